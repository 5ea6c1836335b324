/* The stable filter (bf_stable.c). */
#include "harness.h"

#include <math.h>
#include <string.h>

#include "bf_stable.h"

#include "fields.h"
#include "keys.h"
#include "reference.h"

/* Model: the cells, and a splitmix64 generator of its own from the same
 * seed. An add draws one number, takes 1 from the d cells from
 * floor(x * m / 2^64) on (wrapping at the end), then sets the key's k cells
 * to the maximum. A cell loses at most 1 per add, so a key added fewer than
 * 2^w - 1 adds ago is always found. */
typedef struct {
    bf_stable f;
    uint32_t *model;
    uint64_t random; /* the model's generator */
    uint64_t adds;
    tally keys; /* last: adds so far at the key's last add */
} stable_state;

static void stable_free(void *state)
{
    stable_state *s = state;
    free(s->f.cells.data);
    free(s->model);
    tally_free(&s->keys);
    memset(s, 0, sizeof *s);
}

static void stable_init(void *state, reader *r)
{
    stable_state *s = state;
    stable_free(s);
    uint64_t m = 1 + rd_u16(r) % CELLS_MAX_M;
    unsigned width = 1 + rd_u8(r) % BF_BUCKET_WIDTH_MAX;
    uint32_t k = 1 + rd_u8(r) % BF_K_MAX;
    uint64_t d = 1 + rd_u16(r) % m;
    uint32_t seed = rd_u32(r);
    uint64_t random = rd_u64(r);
    s->f.cells.data = calloc(bf_buckets_nbytes(m, width), 1);
    s->model = calloc((size_t)m, sizeof *s->model);
    CHECK(s->f.cells.data && s->model);
    bf_buckets_init(&s->f.cells, m, width);
    s->f.k = k;
    s->f.seed = seed;
    s->f.d = d;
    s->f.random = s->random = random;
}

static int stable_lookup(const stable_state *s, const reader *r, key_ref k, bf_key_hash h)
{
    uint64_t pos[BF_K_MAX];
    positions(h, BF_HASH_MURMUR3, s->f.k, s->f.cells.count, pos);
    int want = mcells_min(s->model, pos, s->f.k, s->f.cells.max) > 0;
    CHECK(bf_stable_contains(&s->f, h) == want);
    long i = tally_find(&s->keys, r, k, h);
    if (i >= 0 && s->adds - s->keys.items[i].last < s->f.cells.max) CHECK(want);
    return want;
}

MODEL static void stable_check_all(void *state, const reader *r)
{
    const stable_state *s = state;
    if (!s->f.cells.data) return;
    CHECK(s->f.count == s->adds && s->f.random == s->random);
    for (size_t i = 0; i < s->keys.len; i++) stable_lookup(s, r, s->keys.items[i].key, s->keys.items[i].h);
    cells_check_all(&s->f.cells, s->model);
}

void stable_add_op(void *state, reader *r)
{
    stable_state *s = state;
    key_ref k = rd_key(r);
    if (!s->f.cells.data) return;
    uint64_t pos[BF_K_MAX], m = s->f.cells.count, d = s->f.d;
    uint32_t max = s->f.cells.max;
    bf_key_hash h = mm_hash(r, k, s->f.seed);
    positions(h, BF_HASH_MURMUR3, s->f.k, m, pos);
    uint64_t start = (uint64_t)(((fuzz_u128)ref_splitmix64(&s->random) * m) >> 64);
    /* New: not found just before (before the decrements). */
    int fresh = mcells_min(s->model, pos, s->f.k, max) == 0;
    CHECK(bf_stable_add(&s->f, h, 1) == fresh);
    for (uint64_t j = 0; j < d; j++) {
        uint64_t i = (start + j) % m;
        if (s->model[i]) s->model[i]--;
    }
    for (uint32_t i = 0; i < s->f.k; i++) s->model[pos[i]] = max;
    s->adds++;
    tally_get(&s->keys, r, k, h)->last = s->adds;
    CHECK(s->f.random == s->random && s->f.count == s->adds);
    /* The run and a cell either side, then the key's cells. */
    uint64_t span = d + 2 < m ? d + 2 : m;
    for (uint64_t j = 0; j < span; j++) {
        uint64_t i = (start + m - 1 + j) % m;
        CHECK(bf_buckets_get(&s->f.cells, i) == s->model[i]);
    }
    cells_check_at(&s->f.cells, s->model, pos, s->f.k);
    CHECK(stable_lookup(s, r, k, h));
}

/* Any key. */
void stable_contains_op(void *state, reader *r)
{
    stable_state *s = state;
    key_ref k = rd_key(r);
    if (!s->f.cells.data) return;
    stable_lookup(s, r, k, mm_hash(r, k, s->f.seed));
}

/* Everything, while the scan budget lasts. */
void stable_check_op(void *state, reader *r)
{
    stable_state *s = state;
    if (!s->f.cells.data) return;
    CHECK(s->f.count == s->adds && s->f.random == s->random);
    CHECK(bf_buckets_count_nonzero(&s->f.cells) == mcells_nonzero(s->model, s->f.cells.count));
    if (may_scan(r, s->f.cells.count * s->f.cells.width + (uint64_t)s->keys.len * s->f.k * 8))
        stable_check_all(s, r);
}

/* An empty twin has a generator of its own. */
static void stable_twin(void *twin, const void *first, uint8_t mode, reader *r)
{
    stable_state *t = twin;
    const stable_state *s = first;
    int copy = mode & 1;
    uint64_t random = rd_u64(r);
    stable_free(t);
    if (!s->f.cells.data) return;
    if (copy) {
        *t = *s;
        tally_copy(&t->keys, &s->keys);
    } else {
        t->f.k = s->f.k;
        t->f.seed = s->f.seed;
        t->f.d = s->f.d;
        t->f.random = t->random = random;
    }
    cells_twin(&t->f.cells, &t->model, &s->f.cells, s->model, copy);
}

/* Stable: cell maxima (union; adds summed) or minima (intersection; the
 * fewer adds); dst keeps its generator. A key's recency (adds since its
 * last add, which bounds what its cells lost) is the smaller of its two
 * (union) or the larger, where it is in both (intersection); "last" is kept
 * so that adds - last is that recency (mod 2^64). */
MODEL static void stable_model_combine(stable_state *d, const stable_state *s, const reader *r, int intersect)
{
    uint32_t max = d->f.cells.max;
    for (uint64_t i = 0; i < d->f.cells.count; i++)
        d->model[i] = model_combine(d->model[i], s->model[i], max, intersect ? BF_COMBINE_MIN : BF_COMBINE_MAX);
    uint64_t adds = intersect ? (s->adds < d->adds ? s->adds : d->adds)
                              : (s->adds > UINT64_MAX - d->adds ? UINT64_MAX : d->adds + s->adds);
    key_index *ix = tally_index(intersect ? &s->keys : &d->keys);
    size_t dlen = d->keys.len;
    for (size_t i = 0; i < dlen; i++) {
        tally_entry *e = &d->keys.items[i];
        uint64_t rec = d->adds - e->last;
        if (intersect) {
            long j = tally_find_indexed(&s->keys, s->keys.len, ix, r, e->key, e->h);
            uint64_t rs = j < 0 ? max : s->adds - s->keys.items[j].last;
            if (rs > rec) rec = rs;
        }
        if (rec > max) rec = max;
        e->last = adds - rec;
    }
    if (!intersect) {
        for (size_t i = 0; i < s->keys.len; i++) {
            const tally_entry *e = &s->keys.items[i];
            uint64_t rec = s->adds - e->last;
            if (rec > max) rec = max;
            long j = tally_find_indexed(&d->keys, dlen, ix, r, e->key, e->h);
            if (j < 0) {
                tally_entry n = *e;
                n.last = adds - rec;
                tally_push(&d->keys, &n);
            } else if (adds - d->keys.items[j].last > rec) {
                d->keys.items[j].last = adds - rec;
            }
        }
    }
    free(ix);
    d->adds = adds;
}

static void stable_merge(void *dst, void *src, uint8_t flags, reader *r)
{
    stable_state *d = dst, *s = src;
    int intersect = flags & 1;
    if (!d->f.cells.data || !s->f.cells.data || d->f.cells.count != s->f.cells.count ||
        d->f.cells.width != s->f.cells.width || d->f.k != s->f.k || d->f.seed != s->f.seed || d->f.d != s->f.d ||
        !may_merge(r))
        return;
    bf_stable_combine(&d->f, &s->f, intersect ? BF_COMBINE_MIN : BF_COMBINE_MAX);
    stable_model_combine(d, s, r, intersect);
    stable_check_all(d, r);
    stable_check_all(s, r);
}

const fuzz_model stable_model = {sizeof(stable_state), stable_init, stable_check_all, stable_free, stable_twin, stable_merge, NULL};
