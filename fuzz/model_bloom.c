/* The plain Bloom filter (bf_bloom.c), both probe layouts. */
#include "harness.h"

#include <math.h>
#include <string.h>

#include "bf_bloom.h"

#include "fields.h"
#include "keys.h"
#include "reference.h"

#define BLOOM_MAX_M 4096

typedef struct {
    bf_bloom f;
    uint8_t *model; /* one byte per bit */
    uint64_t ones, adds;
    uint64_t distinct; /* adds that found a clear bit: the model of f.distinct */
    key_list keys;
} bloom_state;

static void bloom_free(void *state)
{
    bloom_state *s = state;
    free(s->f.bits.data);
    free(s->model);
    keys_free(&s->keys);
    memset(s, 0, sizeof *s);
}

static void bloom_init(void *state, reader *r)
{
    bloom_state *s = state;
    bloom_free(s);
    uint64_t m = 1 + rd_u16(r) % BLOOM_MAX_M;
    uint32_t k = 1 + rd_u8(r) % BF_K_MAX;
    bf_hash_kind kind = hash_kind_of(rd_u8(r));
    uint32_t seed = rd_u32(r);
    size_t nbytes = bf_bits_nbytes(m);
    if (nbytes == 0) return;
    s->f.bits.data = calloc(nbytes, 1);
    s->model = calloc((size_t)m, 1);
    CHECK(s->f.bits.data && s->model);
    s->f.bits.nbits = m;
    s->f.k = k;
    s->f.seed = seed;
    s->f.hash = kind;
    s->f.count = 0;
}

static int bloom_model_contains(const bloom_state *s, const uint64_t *pos)
{
    return bits_model_has(s->model, pos, s->f.k);
}

/* One add on the model: whether it was new (a bit of it was clear before,
 * which is what bf_bloom_add returns), its bits set, the counts. */
static int bloom_model_add(bloom_state *s, const uint64_t *pos, key_ref k)
{
    int fresh = !bloom_model_contains(s, pos);
    for (uint32_t i = 0; i < s->f.k; i++) {
        s->ones += !s->model[pos[i]];
        s->model[pos[i]] = 1;
    }
    s->adds++;
    s->distinct += (uint64_t)fresh;
    keys_push(&s->keys, k);
    return fresh;
}

static void bloom_lookup(const bloom_state *s, const uint8_t *p, size_t n, int must)
{
    uint64_t pos[BF_K_MAX];
    bf_key_hash h = key_hash(p, n, s->f.seed, s->f.hash);
    positions(h, s->f.hash, s->f.k, s->f.bits.nbits, pos);
    int want = bloom_model_contains(s, pos);
    CHECK(!must || want);
    CHECK(bf_bloom_contains(&s->f, h) == want);
}

static void bloom_check(const bloom_state *s)
{
    if (!s->f.bits.data) return;
    CHECK(s->f.count == s->adds && s->f.distinct == s->distinct);
    CHECK(bf_bits_count(&s->f.bits) == s->ones);
}

void bloom_add_op(void *state, reader *r)
{
    bloom_state *s = state;
    uint64_t pos[BF_K_MAX];
    key_ref k = rd_key(r);
    if (!s->f.bits.data) return;
    const uint8_t *p = key_ptr(r, k);
    bf_key_hash h = key_hash(p, k.len, s->f.seed, s->f.hash);
    positions(h, s->f.hash, s->f.k, s->f.bits.nbits, pos);
    int fresh = bf_bloom_add(&s->f, h);
    CHECK(fresh == bloom_model_add(s, pos, k));
    CHECK(s->f.count == s->adds && s->f.distinct == s->distinct);
    CHECK(bf_bloom_contains(&s->f, h));
}

/* Any key: exactly the model's answer. */
void bloom_contains_op(void *state, reader *r)
{
    bloom_state *s = state;
    key_ref k = rd_key(r);
    if (!s->f.bits.data) return;
    bloom_lookup(s, key_ptr(r, k), k.len, 0);
}

/* The most recent keys are all still there. */
void bloom_recent_op(void *state, reader *r)
{
    bloom_state *s = state;
    if (!s->f.bits.data) return;
    size_t from = s->keys.len > RECENT_KEYS ? s->keys.len - RECENT_KEYS : 0;
    for (size_t i = from; i < s->keys.len; i++)
        bloom_lookup(s, key_ptr(r, s->keys.items[i].key), s->keys.items[i].key.len, 1);
    bloom_check(s);
}

MODEL static void bloom_final(void *state, const reader *r)
{
    const bloom_state *s = state;
    if (!s->f.bits.data) return;
    for (size_t i = 0; i < s->keys.len; i++)
        bloom_lookup(s, key_ptr(r, s->keys.items[i].key), s->keys.items[i].key.len, 1);
    bloom_check(s);
    bits_check_image(&s->f.bits, s->model);
}

/* u8 flags: bit 0 add the batch first, bit 1 without the answers of the
 * add (out NULL). Each add's answer is the model's after the keys before
 * it, so a key given twice in a batch is new the first time at most. */
void bloom_batch_op(void *state, reader *r)
{
    bloom_state *s = state;
    uint8_t flags = rd_u8(r), add = flags & 1;
    batch b;
    rd_batch(r, &b, s->f.seed, s->f.hash);
    if (!s->f.bits.data) return;
    uint64_t pos[BF_K_MAX];
    bf_key_hash *h = exact_hashes(b.h, b.n);
    uint8_t *out = exact_answers(b.n);
    if (add) {
        uint8_t *fresh = flags & 2 ? NULL : exact_answers(b.n);
        bf_bloom_add_many(&s->f, h, b.n, fresh);
        for (size_t j = 0; j < b.n; j++) {
            positions(b.h[j], s->f.hash, s->f.k, s->f.bits.nbits, pos);
            int want = bloom_model_add(s, pos, b.keys[j]);
            CHECK(!fresh || fresh[j] == want);
        }
        free(fresh);
    }
    bf_bloom_contains_many(&s->f, h, b.n, out);
    for (size_t j = 0; j < b.n; j++) {
        positions(b.h[j], s->f.hash, s->f.k, s->f.bits.nbits, pos);
        int want = bloom_model_contains(s, pos);
        CHECK(!add || want);
        CHECK(out[j] == want);
    }
    bloom_check(s);
    free(h);
    free(out);
}

static void bloom_twin(void *twin, const void *first, uint8_t mode, reader *r)
{
    bloom_state *t = twin;
    const bloom_state *s = first;
    int copy = mode & 1;
    bloom_free(t);
    if (!s->f.bits.data) return;
    uint64_t m = s->f.bits.nbits;
    size_t nbytes = bf_bits_nbytes(m);
    if (copy) {
        *t = *s;
        t->f.bits.data = dup_bytes(s->f.bits.data, nbytes);
        t->model = dup_bytes(s->model, (size_t)m);
        keys_copy(&t->keys, &s->keys);
        return;
    }
    t->f = s->f;
    t->f.bits.data = zeroed(nbytes);
    t->f.count = t->f.distinct = 0;
    t->model = zeroed((size_t)m);
}

static void bloom_merge(void *dst, void *src, uint8_t flags, reader *r)
{
    bloom_state *d = dst, *s = src;
    int intersect = flags & 1;
    if (!d->f.bits.data || !s->f.bits.data || d->f.bits.nbits != s->f.bits.nbits || d->f.k != s->f.k ||
        d->f.seed != s->f.seed || d->f.hash != s->f.hash || !may_merge(r))
        return;
    if (intersect) bf_bits_and(&d->f.bits, &s->f.bits);
    else bf_bits_or(&d->f.bits, &s->f.bits);
    d->f.count = merged_count(d->f.count, s->f.count, intersect);
    d->adds = merged_count(d->adds, s->adds, intersect);
    d->distinct = d->f.distinct;
    filter_model_merge(d->model, s->model, d->f.bits.nbits, &d->keys, &s->keys, r, intersect);
    d->ones = 0;
    for (uint64_t i = 0; i < d->f.bits.nbits; i++) d->ones += d->model[i];
    bloom_final(d, r);
    bloom_final(s, r);
}

const fuzz_model bloom_model = {sizeof(bloom_state), bloom_init, bloom_final, bloom_free, bloom_twin, bloom_merge, NULL};
