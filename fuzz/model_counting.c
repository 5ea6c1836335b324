/* The counting filter (bf_counting.c). */
#include "harness.h"

#include <math.h>
#include <string.h>

#include "bf_counting.h"

#include "fields.h"
#include "keys.h"
#include "reference.h"

/* Model: a uint32 per cell, saturating at 2^w - 1, and a saturated cell is
 * never decremented. While every delete was of a key with a true count above
 * 0 (honest), a key's count is at least min(true count, 2^w - 1). */
typedef struct {
    bf_counting f;
    uint32_t *model;
    uint64_t count;     /* adds less successful deletes (never below 0) */
    uint64_t saturated; /* cells that reached the maximum */
    uint64_t distinct;  /* adds that found the key's count at 0, less deletes
                         * that left it at 0 (never below 0): f.distinct */
    int tainted;        /* a delete of a key with true count 0 was found: others may undercount */
    tally keys;
} counting_state;

static void counting_free(void *state)
{
    counting_state *s = state;
    free(s->f.cells.data);
    free(s->model);
    tally_free(&s->keys);
    memset(s, 0, sizeof *s);
}

static void counting_init(void *state, reader *r)
{
    counting_state *s = state;
    counting_free(s);
    uint64_t m = 1 + rd_u16(r) % CELLS_MAX_M;
    unsigned width = 1 + rd_u8(r) % BF_BUCKET_WIDTH_MAX;
    uint32_t k = 1 + rd_u8(r) % BF_K_MAX;
    uint32_t seed = rd_u32(r);
    size_t nbytes = bf_buckets_nbytes(m, width);
    CHECK(nbytes != 0);
    s->f.cells.data = calloc(nbytes, 1);
    s->model = calloc((size_t)m, sizeof *s->model);
    CHECK(s->f.cells.data && s->model);
    bf_buckets_init(&s->f.cells, m, width);
    CHECK(s->f.cells.max == width_max(width));
    s->f.k = k;
    s->f.seed = seed;
}

/* count and include? of one key, exactly the model's; the lower bound for a
 * key given before. */
static uint32_t counting_lookup(const counting_state *s, const reader *r, key_ref k, bf_key_hash h)
{
    uint64_t pos[BF_K_MAX];
    positions(h, BF_HASH_MURMUR3, s->f.k, s->f.cells.count, pos);
    uint32_t max = s->f.cells.max, want = mcells_min(s->model, pos, s->f.k, max);
    CHECK(bf_counting_count(&s->f, h) == want);
    long i = tally_find(&s->keys, r, k, h);
    if (i >= 0 && !s->tainted) {
        uint64_t n = s->keys.items[i].n;
        CHECK(want >= (n < max ? n : max));
    }
    return want;
}

static void counting_check_counts(const counting_state *s)
{
    CHECK(s->f.count == s->count && s->f.saturated == s->saturated && s->f.distinct == s->distinct);
}

MODEL static void counting_check_all(void *state, const reader *r)
{
    const counting_state *s = state;
    if (!s->f.cells.data) return;
    counting_check_counts(s);
    CHECK(s->saturated == mcells_saturated(s->model, s->f.cells.count, s->f.cells.max));
    for (size_t i = 0; i < s->keys.len; i++) counting_lookup(s, r, s->keys.items[i].key, s->keys.items[i].h);
    cells_check_all(&s->f.cells, s->model);
}

/* Delete a key: 0 and nothing changes exactly when its count is 0. */
static void counting_remove(counting_state *s, const reader *r, key_ref k, bf_key_hash h)
{
    uint64_t pos[BF_K_MAX];
    positions(h, BF_HASH_MURMUR3, s->f.k, s->f.cells.count, pos);
    uint32_t max = s->f.cells.max, min = mcells_min(s->model, pos, s->f.k, max);
    int got = bf_counting_remove(&s->f, h);
    CHECK(got == (min > 0));
    if (got) {
        long i = tally_find(&s->keys, r, k, h);
        if (i >= 0 && s->keys.items[i].n > 0) s->keys.items[i].n--;
        else s->tainted = 1; /* a false positive deleted: it took from other keys */
        mcells_remove(s->model, pos, s->f.k, max);
        if (s->count) s->count--;
        if (s->distinct && mcells_min(s->model, pos, s->f.k, max) == 0) s->distinct--;
    }
    cells_check_at(&s->f.cells, s->model, pos, s->f.k);
    counting_check_counts(s);
    counting_lookup(s, r, k, h);
}

/* Add, 1..MAX_REPEAT times. */
void counting_add_op(void *state, reader *r)
{
    counting_state *s = state;
    key_ref k = rd_key(r);
    unsigned times = 1 + rd_u8(r) % MAX_REPEAT;
    if (!s->f.cells.data) return;
    uint64_t pos[BF_K_MAX];
    bf_key_hash h = mm_hash(r, k, s->f.seed);
    positions(h, BF_HASH_MURMUR3, s->f.k, s->f.cells.count, pos);
    tally_entry *e = tally_get(&s->keys, r, k, h);
    for (unsigned t = 0; t < times; t++) {
        if (t > 0 && !may_add(r, s->f.k)) break;
        int fresh = mcells_min(s->model, pos, s->f.k, s->f.cells.max) == 0;
        CHECK(bf_counting_add(&s->f, h) == fresh);
        s->distinct += (uint64_t)fresh;
        s->saturated += mcells_add(s->model, pos, s->f.k, 1, s->f.cells.max);
        s->count++;
        e->n++;
    }
    cells_check_at(&s->f.cells, s->model, pos, s->f.k);
    counting_check_counts(s);
    CHECK(counting_lookup(s, r, k, h) > 0);
}

/* Delete any key. */
void counting_remove_op(void *state, reader *r)
{
    counting_state *s = state;
    key_ref k = rd_key(r);
    if (!s->f.cells.data) return;
    counting_remove(s, r, k, mm_hash(r, k, s->f.seed));
}

/* Delete a key given before. */
void counting_remove_known_op(void *state, reader *r)
{
    counting_state *s = state;
    tally_entry e;
    if (rd_known_key(r, &s->keys, s->f.cells.data != NULL, &e)) counting_remove(s, r, e.key, e.h);
}

/* Count any key. */
void counting_count_op(void *state, reader *r)
{
    counting_state *s = state;
    key_ref k = rd_key(r);
    if (!s->f.cells.data) return;
    counting_lookup(s, r, k, mm_hash(r, k, s->f.seed));
}

/* Everything, while the scan budget lasts. */
void counting_check_op(void *state, reader *r)
{
    counting_state *s = state;
    if (!s->f.cells.data) return;
    counting_check_counts(s);
    CHECK(bf_buckets_count_nonzero(&s->f.cells) == mcells_nonzero(s->model, s->f.cells.count));
    if (may_scan(r, s->f.cells.count * s->f.cells.width + (uint64_t)s->keys.len * s->f.k * 8))
        counting_check_all(s, r);
}

static void counting_twin(void *twin, const void *first, uint8_t mode, reader *r)
{
    counting_state *t = twin;
    const counting_state *s = first;
    int copy = mode & 1;
    counting_free(t);
    if (!s->f.cells.data) return;
    if (copy) {
        *t = *s;
        tally_copy(&t->keys, &s->keys);
    } else {
        t->f.k = s->f.k;
        t->f.seed = s->f.seed;
    }
    cells_twin(&t->f.cells, &t->model, &s->f.cells, s->model, copy);
}

/* bf_counting_combine, SUM or MIN: the cells as bf_buckets_combine, saturated
 * cells recounted, count summed (saturating) or the smaller. A key's count
 * stays at least min(true count, max) in the merged history: sum of the two,
 * or the smaller. */
MODEL static void counting_model_combine(counting_state *d, const counting_state *s, const reader *r, bf_combine_op op)
{
    for (uint64_t i = 0; i < d->f.cells.count; i++) d->model[i] = model_combine(d->model[i], s->model[i], d->f.cells.max, op);
    d->saturated = mcells_saturated(d->model, d->f.cells.count, d->f.cells.max);
    if (op == BF_COMBINE_SUM) d->count = s->count > UINT64_MAX - d->count ? UINT64_MAX : d->count + s->count;
    else if (s->count < d->count) d->count = s->count;
    d->tainted |= s->tainted;
    tally_merge_counts(&d->keys, &s->keys, r, op == BF_COMBINE_SUM ? TALLY_SUM : TALLY_MIN);
}

static int counting_same_shape(const counting_state *a, const counting_state *b)
{
    return a->f.cells.data && b->f.cells.data && a->f.cells.count == b->f.cells.count &&
           a->f.cells.width == b->f.cells.width && a->f.k == b->f.k && a->f.seed == b->f.seed;
}

static void counting_merge(void *dst, void *src, uint8_t flags, reader *r)
{
    counting_state *d = dst, *s = src;
    bf_combine_op op = flags & 1 ? BF_COMBINE_MIN : BF_COMBINE_SUM;
    if (!counting_same_shape(d, s) || !may_merge(r)) return;
    bf_counting_combine(&d->f, &s->f, op);
    counting_model_combine(d, s, r, op);
    /* distinct is the binding's to recount after a merge (from the fill):
     * the model takes the core's from here on. */
    d->distinct = d->f.distinct;
    counting_check_all(d, r);
    counting_check_all(s, r);
}

static void counting_tail(void *state, uint16_t off, uint8_t flags)
{
    counting_state *s = state;
    if (s->f.cells.data) tail_buckets(&s->f.cells, off, flags, NULL, 1, 1);
}

const fuzz_model counting_model = {sizeof(counting_state), counting_init, counting_check_all, counting_free, counting_twin, counting_merge, counting_tail};
