/* The spectral filter, MI and RM (bf_counting.c). */
#include "harness.h"

#include <math.h>
#include <string.h>

#include "bf_counting.h"

#include "fields.h"
#include "keys.h"
#include "reference.h"

/* Model: the cells exactly as bf_counting.c defines MI and RM, RM with its
 * documented deviation (a key already in the secondary goes up there on
 * every add, recurring or not). Lower bounds: MI's count is never below
 * min(true count, max). RM's holds while every delete was honest in both
 * filters, for keys that entered the secondary with their primary minimum
 * (not through another key's cells) or that the primary answers for.
 * Honest in the secondary means the deleted key had put counts there: a
 * delete of a key that was added but never entered the secondary still
 * takes 1 from the secondary cells it finds above 0, which are other keys'
 * counts, and those keys may then count below their adds (m = 4,
 * secondary_m = 2, width 4, k = 2, seed 0: add "key0", add "key8" twice,
 * delete "key0": count("key8") is 1). So such a delete (staint) ends RM's
 * lower-bound checks for the rest of the input. */

typedef struct {
    bf_spectral f;
    uint32_t *pmodel, *smodel; /* smodel: RM only */
    uint64_t pcount, psat, scount, ssat;
    uint64_t pdistinct; /* f.primary.distinct, as the counting filter's */
    int ptaint, staint; /* a false positive deleted from the primary / the secondary */
    tally keys;
} spectral_state;

static void spectral_free(void *state)
{
    spectral_state *s = state;
    free(s->f.primary.cells.data);
    free(s->f.secondary.cells.data);
    free(s->pmodel);
    free(s->smodel);
    tally_free(&s->keys);
    memset(s, 0, sizeof *s);
}

static void spectral_init(void *state, reader *r)
{
    spectral_state *s = state;
    spectral_free(s);
    uint64_t m = 1 + rd_u16(r) % CELLS_MAX_M;
    uint64_t m2 = 1 + rd_u16(r) % CELLS_MAX_M;
    unsigned width = 1 + rd_u8(r) % BF_BUCKET_WIDTH_MAX;
    uint32_t k = 1 + rd_u8(r) % BF_K_MAX;
    uint8_t flags = rd_u8(r);
    uint32_t seed = rd_u32(r);
    /* As the binding: both filters share width, k and seed; MI has no
     * secondary cells (NULL data, count 0). Separate blocks here, so that
     * ASan sees an overrun of either. */
    bf_counting *p = &s->f.primary, *q = &s->f.secondary;
    p->cells.data = calloc(bf_buckets_nbytes(m, width), 1);
    s->pmodel = calloc((size_t)m, sizeof *s->pmodel);
    CHECK(p->cells.data && s->pmodel);
    bf_buckets_init(&p->cells, m, width);
    p->k = q->k = k;
    p->seed = q->seed = seed;
    s->f.algorithm = (flags & 1) ? BF_SPECTRAL_RM : BF_SPECTRAL_MI;
    if (s->f.algorithm == BF_SPECTRAL_RM) {
        q->cells.data = calloc(bf_buckets_nbytes(m2, width), 1);
        s->smodel = calloc((size_t)m2, sizeof *s->smodel);
        CHECK(q->cells.data && s->smodel);
        bf_buckets_init(&q->cells, m2, width);
    } else {
        bf_buckets_init(&q->cells, 0, width);
    }
}

static int spectral_rm(const spectral_state *s)
{
    return s->f.algorithm == BF_SPECTRAL_RM;
}

/* A key's primary and (RM) secondary cells. */
static void spectral_positions(const spectral_state *s, bf_key_hash h, uint64_t *pos, uint64_t *spos)
{
    positions(h, BF_HASH_MURMUR3, s->f.primary.k, s->f.primary.cells.count, pos);
    if (spectral_rm(s)) positions(salted(h, RM_SALT), BF_HASH_MURMUR3, s->f.secondary.k, s->f.secondary.cells.count, spos);
}

/* One add on the model; whether the key was new (its primary count was 0,
 * which is what bf_spectral_add returns). */
MODEL static int spectral_model_add(spectral_state *s, tally_entry *e, const uint64_t *pos, const uint64_t *spos)
{
    uint32_t k = s->f.primary.k, max = s->f.primary.cells.max;
    int fresh = mcells_min(s->pmodel, pos, k, max) == 0;
    e->n++;
    s->pcount++;
    s->pdistinct += (uint64_t)fresh;
    if (!spectral_rm(s)) { /* minimum increase: each cell holding the minimum, once */
        uint32_t min = mcells_min(s->pmodel, pos, k, max);
        if (min == max) return fresh;
        for (uint32_t i = 0; i < k; i++) {
            if (s->pmodel[pos[i]] != min) continue;
            s->pmodel[pos[i]] = min + 1;
            s->psat += min + 1 == max;
        }
        return fresh;
    }
    s->psat += mcells_add(s->pmodel, pos, k, 1, max);
    int recurring = mcells_recurring(s->pmodel, pos, k, max);
    uint32_t in_secondary = mcells_min(s->smodel, spos, k, max);
    /* What the key put into its secondary cells is all still there (or
     * saturated) unless a false positive took from them. */
    if (e->sc > 0 && !s->staint) CHECK(in_secondary > 0);
    if (recurring && !in_secondary) return fresh;
    if (in_secondary && e->sc == 0) e->unreliable = 1;
    uint32_t by = in_secondary ? 1 : mcells_min(s->pmodel, pos, k, max);
    s->ssat += mcells_add(s->smodel, spos, k, by, max);
    s->scount++;
    e->sc += by;
    return fresh;
}

/* count and include? of one key, exactly the model's; the lower bound. */
static uint32_t spectral_lookup(const spectral_state *s, const reader *r, key_ref k, bf_key_hash h)
{
    uint64_t pos[BF_K_MAX], spos[BF_K_MAX];
    spectral_positions(s, h, pos, spos);
    uint32_t kk = s->f.primary.k, max = s->f.primary.cells.max;
    uint32_t min = mcells_min(s->pmodel, pos, kk, max), want = min;
    if (spectral_rm(s) && min > 0 && !mcells_recurring(s->pmodel, pos, kk, max)) {
        uint32_t second = mcells_min(s->smodel, spos, kk, max);
        if (second > 0 && second < min) want = second;
    }
    CHECK(bf_spectral_count(&s->f, h) == want);
    CHECK(bf_spectral_contains(&s->f, h) == (min > 0));
    long i = tally_find(&s->keys, r, k, h);
    if (i >= 0 && !s->ptaint) {
        const tally_entry *e = &s->keys.items[i];
        uint64_t bound = e->n < max ? e->n : max;
        if (e->n > 0) CHECK(min > 0);
        if (!spectral_rm(s) || (!s->staint && !e->unreliable && (e->sc > 0 || want == min))) CHECK(want >= bound);
    }
    return want;
}

static void spectral_check_counts(const spectral_state *s)
{
    CHECK(s->f.primary.count == s->pcount && s->f.primary.saturated == s->psat);
    CHECK(s->f.secondary.count == s->scount && s->f.secondary.saturated == s->ssat);
    /* The secondary's cells change through bf_cells_* only: no key is ever
     * new to it as a counting filter. */
    CHECK(s->f.primary.distinct == s->pdistinct && s->f.secondary.distinct == 0);
}

MODEL static void spectral_check_all(void *state, const reader *r)
{
    const spectral_state *s = state;
    if (!s->f.primary.cells.data) return;
    spectral_check_counts(s);
    uint32_t max = s->f.primary.cells.max;
    CHECK(s->psat == mcells_saturated(s->pmodel, s->f.primary.cells.count, max));
    for (size_t i = 0; i < s->keys.len; i++) spectral_lookup(s, r, s->keys.items[i].key, s->keys.items[i].h);
    cells_check_all(&s->f.primary.cells, s->pmodel);
    if (spectral_rm(s)) {
        CHECK(s->ssat == mcells_saturated(s->smodel, s->f.secondary.cells.count, max));
        cells_check_all(&s->f.secondary.cells, s->smodel);
    } else {
        CHECK(s->f.secondary.cells.data == NULL && s->scount == 0);
    }
}

static void spectral_remove(spectral_state *s, const reader *r, key_ref k, bf_key_hash h)
{
    uint64_t pos[BF_K_MAX], spos[BF_K_MAX];
    spectral_positions(s, h, pos, spos);
    uint32_t kk = s->f.primary.k, max = s->f.primary.cells.max;
    int got = bf_spectral_remove(&s->f, h);
    if (!spectral_rm(s)) {
        CHECK(got == 0); /* MI cannot delete: nothing changes */
    } else {
        CHECK(got == (mcells_min(s->pmodel, pos, kk, max) > 0));
        if (got) {
            long i = tally_find(&s->keys, r, k, h);
            tally_entry *e = i >= 0 ? &s->keys.items[i] : NULL;
            if (e && e->n > 0) e->n--;
            else s->ptaint = 1;
            mcells_remove(s->pmodel, pos, kk, max);
            if (s->pcount) s->pcount--;
            if (s->pdistinct && mcells_min(s->pmodel, pos, kk, max) == 0) s->pdistinct--;
            if (mcells_min(s->smodel, spos, kk, max) > 0) {
                if (e && e->sc > 0) e->sc--;
                else s->staint = 1;
                mcells_remove(s->smodel, spos, kk, max);
                if (s->scount) s->scount--;
            }
        }
        cells_check_at(&s->f.secondary.cells, s->smodel, spos, kk);
    }
    cells_check_at(&s->f.primary.cells, s->pmodel, pos, kk);
    spectral_check_counts(s);
    spectral_lookup(s, r, k, h);
}

/* Add, 1..MAX_REPEAT times. */
void spectral_add_op(void *state, reader *r)
{
    spectral_state *s = state;
    key_ref k = rd_key(r);
    unsigned times = 1 + rd_u8(r) % MAX_REPEAT;
    if (!s->f.primary.cells.data) return;
    uint64_t pos[BF_K_MAX], spos[BF_K_MAX];
    bf_key_hash h = mm_hash(r, k, s->f.primary.seed);
    spectral_positions(s, h, pos, spos);
    tally_entry *e = tally_get(&s->keys, r, k, h);
    for (unsigned t = 0; t < times; t++) {
        if (t > 0 && !may_add(r, 2 * s->f.primary.k)) break;
        int fresh = bf_spectral_add(&s->f, h);
        CHECK(fresh == spectral_model_add(s, e, pos, spos));
    }
    cells_check_at(&s->f.primary.cells, s->pmodel, pos, s->f.primary.k);
    if (spectral_rm(s)) cells_check_at(&s->f.secondary.cells, s->smodel, spos, s->f.secondary.k);
    spectral_check_counts(s);
    spectral_lookup(s, r, k, h);
    CHECK(bf_spectral_contains(&s->f, h));
}

/* Delete any key. */
void spectral_remove_op(void *state, reader *r)
{
    spectral_state *s = state;
    key_ref k = rd_key(r);
    if (!s->f.primary.cells.data) return;
    spectral_remove(s, r, k, mm_hash(r, k, s->f.primary.seed));
}

/* Delete a key given before. */
void spectral_remove_known_op(void *state, reader *r)
{
    spectral_state *s = state;
    tally_entry e;
    if (rd_known_key(r, &s->keys, s->f.primary.cells.data != NULL, &e)) spectral_remove(s, r, e.key, e.h);
}

/* Count any key. */
void spectral_count_op(void *state, reader *r)
{
    spectral_state *s = state;
    key_ref k = rd_key(r);
    if (!s->f.primary.cells.data) return;
    spectral_lookup(s, r, k, mm_hash(r, k, s->f.primary.seed));
}

/* Everything, while the scan budget lasts. */
void spectral_check_op(void *state, reader *r)
{
    spectral_state *s = state;
    if (!s->f.primary.cells.data) return;
    spectral_check_counts(s);
    if (may_scan(r, (s->f.primary.cells.count + s->f.secondary.cells.count) * s->f.primary.cells.width +
                        (uint64_t)s->keys.len * s->f.primary.k * 16))
        spectral_check_all(s, r);
}

static void spectral_twin(void *twin, const void *first, uint8_t mode, reader *r)
{
    spectral_state *t = twin;
    const spectral_state *s = first;
    int copy = mode & 1;
    spectral_free(t);
    if (!s->f.primary.cells.data) return;
    const bf_buckets *p = &s->f.primary.cells, *q = &s->f.secondary.cells;
    size_t pbytes = bf_buckets_nbytes(p->count, p->width), pcells = (size_t)p->count * sizeof(uint32_t);
    size_t qbytes = spectral_rm(s) ? bf_buckets_nbytes(q->count, q->width) : 0, qcells = (size_t)q->count * sizeof(uint32_t);
    if (copy) {
        *t = *s;
        t->f.primary.cells.data = dup_bytes(p->data, pbytes);
        t->pmodel = dup_bytes(s->pmodel, pcells);
        if (spectral_rm(s)) {
            t->f.secondary.cells.data = dup_bytes(q->data, qbytes);
            t->smodel = dup_bytes(s->smodel, qcells);
        }
        tally_copy(&t->keys, &s->keys);
        return;
    }
    t->f.algorithm = s->f.algorithm;
    t->f.primary.cells.data = zeroed(pbytes);
    t->pmodel = zeroed(pcells);
    bf_buckets_init(&t->f.primary.cells, p->count, p->width);
    t->f.primary.k = t->f.secondary.k = s->f.primary.k;
    t->f.primary.seed = t->f.secondary.seed = s->f.primary.seed;
    if (spectral_rm(s)) {
        t->f.secondary.cells.data = zeroed(qbytes);
        t->smodel = zeroed(qcells);
    }
    bf_buckets_init(&t->f.secondary.cells, q->count, q->width);
}

/* bf_spectral_combine: the primaries as counting filters; RM's secondary is
 * emptied (every key's secondary history with it). */
MODEL static void spectral_model_combine(spectral_state *d, const spectral_state *s, const reader *r, bf_combine_op op)
{
    uint32_t max = d->f.primary.cells.max;
    for (uint64_t i = 0; i < d->f.primary.cells.count; i++) d->pmodel[i] = model_combine(d->pmodel[i], s->pmodel[i], max, op);
    d->psat = mcells_saturated(d->pmodel, d->f.primary.cells.count, max);
    if (op == BF_COMBINE_SUM) d->pcount = s->pcount > UINT64_MAX - d->pcount ? UINT64_MAX : d->pcount + s->pcount;
    else if (s->pcount < d->pcount) d->pcount = s->pcount;
    d->ptaint |= s->ptaint;
    tally_merge_counts(&d->keys, &s->keys, r, op == BF_COMBINE_SUM ? TALLY_SUM : TALLY_MIN);
    if (spectral_rm(d)) {
        memset(d->smodel, 0, (size_t)d->f.secondary.cells.count * sizeof *d->smodel);
        d->scount = d->ssat = 0;
        d->staint = 0;
        for (size_t i = 0; i < d->keys.len; i++) {
            d->keys.items[i].sc = 0;
            d->keys.items[i].unreliable = 0;
        }
    }
}

static void spectral_merge(void *dst, void *src, uint8_t flags, reader *r)
{
    spectral_state *d = dst, *s = src;
    bf_combine_op op = flags & 1 ? BF_COMBINE_MIN : BF_COMBINE_SUM;
    const bf_counting *a = &d->f.primary, *b = &s->f.primary;
    if (!a->cells.data || !b->cells.data || a->cells.count != b->cells.count || a->cells.width != b->cells.width ||
        a->k != b->k || a->seed != b->seed || d->f.algorithm != s->f.algorithm ||
        d->f.secondary.cells.count != s->f.secondary.cells.count || !may_merge(r))
        return;
    bf_spectral_combine(&d->f, &s->f, op);
    spectral_model_combine(d, s, r, op);
    d->pdistinct = d->f.primary.distinct; /* the binding's to recount, as counting_merge */
    spectral_check_all(d, r);
    spectral_check_all(s, r);
}

const fuzz_model spectral_model = {sizeof(spectral_state), spectral_init, spectral_check_all, spectral_free, spectral_twin, spectral_merge, NULL};
