/* The blocked filter (bf_blocked.c): its layout, sizing and rates. */
#include "harness.h"

#include <math.h>
#include <string.h>

#include "bf_blocked.h"

#include "fields.h"
#include "keys.h"
#include "reference.h"

#define BLOCKED_MAX_BLOCKS 64
/* A rate spot check costs up to ~15 ms here (three bf_blocked_fpr calls at a
 * million keys per block), most far less. */
#define MAX_RATES 4

/* The model places a key's bits from bf_blocked.h's description alone:
 * block floor(h1 * nblocks / 2^64); probe i sets bit (6 bits of a hash word)
 * of lane (i + (h2 >> 61)) % 8, the word being h2 for probes 0..9 and h2
 * remixed once more for every ten after. */
typedef struct {
    bf_blocked f;
    uint8_t *model; /* one byte per bit */
    uint64_t adds;
    uint64_t distinct; /* adds that found a clear bit: the model of f.distinct */
    key_list keys;
    double last_rate; /* bf_blocked_current_fpr when last asked: it never falls */
} blocked_state;

static uint64_t model_remix(uint64_t w)
{
    w ^= w >> 32;
    w *= 0x9e3779b97f4a7c15ULL;
    return w ^ (w >> 29);
}

static void blocked_positions(const blocked_state *s, bf_key_hash h, uint64_t *out)
{
    uint64_t block = (uint64_t)(((fuzz_u128)h.h1 * s->f.nblocks) >> 64);
    CHECK(block < s->f.nblocks);
    uint64_t w = h.h2;
    unsigned first = (unsigned)(h.h2 >> 61);
    for (uint32_t i = 0; i < s->f.k; i++) {
        if (i > 0 && i % 10 == 0) w = model_remix(w);
        uint64_t lane = (i + first) % 8, bit = (w >> (6 * (i % 10))) & 63;
        out[i] = block * BF_BLOCK_BITS + lane * 64 + bit;
    }
}

static void blocked_free(void *state)
{
    blocked_state *s = state;
    free(s->f.bits.data);
    free(s->model);
    keys_free(&s->keys);
    memset(s, 0, sizeof *s);
}

static void blocked_init(void *state, reader *r)
{
    blocked_state *s = state;
    blocked_free(s);
    uint64_t nblocks = 1 + rd_u8(r) % BLOCKED_MAX_BLOCKS;
    uint32_t k = 1 + rd_u8(r) % BF_K_MAX;
    uint32_t seed = rd_u32(r);
    size_t nbytes = (size_t)nblocks * BF_BLOCK_BYTES;
    /* 64-byte aligned, as the binding allocates it: a block is a cache line. */
    s->f.bits.data = aligned_alloc(BF_BLOCK_BYTES, nbytes);
    s->model = calloc((size_t)(nblocks * BF_BLOCK_BITS), 1);
    CHECK(s->f.bits.data && s->model);
    memset(s->f.bits.data, 0, nbytes);
    s->f.bits.nbits = nblocks * BF_BLOCK_BITS;
    s->f.nblocks = nblocks;
    s->f.k = k;
    s->f.seed = seed;
}

static int blocked_model_contains(const blocked_state *s, const uint64_t *pos)
{
    return bits_model_has(s->model, pos, s->f.k);
}

/* One add on the model; whether it was new (a bit of it was clear). */
static int blocked_model_add(blocked_state *s, const uint64_t *pos, key_ref k)
{
    int fresh = !blocked_model_contains(s, pos);
    for (uint32_t i = 0; i < s->f.k; i++) s->model[pos[i]] = 1;
    s->adds++;
    s->distinct += (uint64_t)fresh;
    keys_push(&s->keys, k);
    return fresh;
}

static void blocked_check_counts(const blocked_state *s)
{
    CHECK(s->f.count == s->adds && s->f.distinct == s->distinct);
}

/* The byte image is the model's bits, bit i in byte i / 8 at bit i % 8. */
MODEL static void blocked_check_image(const blocked_state *s)
{
    blocked_check_counts(s);
    for (uint64_t j = 0; j < s->f.nblocks * BF_BLOCK_BYTES; j++) {
        uint8_t want = 0;
        for (unsigned b = 0; b < 8; b++) want |= (uint8_t)(s->model[j * 8 + b] << b);
        CHECK(s->f.bits.data[j] == want);
    }
}

/* Add one key. */
void blocked_add_op(void *state, reader *r)
{
    blocked_state *s = state;
    uint64_t pos[BF_K_MAX];
    key_ref k = rd_key(r);
    if (!s->f.bits.data) return;
    bf_key_hash h = key_hash(key_ptr(r, k), k.len, s->f.seed, BF_HASH_MURMUR3);
    blocked_positions(s, h, pos);
    int fresh = bf_blocked_add(&s->f, h);
    CHECK(fresh == blocked_model_add(s, pos, k));
    blocked_check_counts(s);
    CHECK(bf_blocked_contains(&s->f, h));
}

/* Look up one key: exactly the model's answer. */
void blocked_contains_op(void *state, reader *r)
{
    blocked_state *s = state;
    uint64_t pos[BF_K_MAX];
    key_ref k = rd_key(r);
    if (!s->f.bits.data) return;
    bf_key_hash h = key_hash(key_ptr(r, k), k.len, s->f.seed, BF_HASH_MURMUR3);
    blocked_positions(s, h, pos);
    CHECK(bf_blocked_contains(&s->f, h) == blocked_model_contains(s, pos));
}

/* A batch: add_many (flags bit 0; bit 1: out NULL) then contains_many,
 * against the model, as bloom_batch_op. */
void blocked_batch_op(void *state, reader *r)
{
    blocked_state *s = state;
    uint64_t pos[BF_K_MAX];
    uint8_t flags = rd_u8(r), add = flags & 1;
    batch b;
    rd_batch(r, &b, s->f.seed, BF_HASH_MURMUR3);
    if (!s->f.bits.data) return;
    bf_key_hash *h = exact_hashes(b.h, b.n);
    uint8_t *out = exact_answers(b.n);
    if (add) {
        uint8_t *fresh = flags & 2 ? NULL : exact_answers(b.n);
        bf_blocked_add_many(&s->f, h, b.n, fresh);
        for (size_t j = 0; j < b.n; j++) {
            blocked_positions(s, b.h[j], pos);
            int want = blocked_model_add(s, pos, b.keys[j]);
            CHECK(!fresh || fresh[j] == want);
        }
        free(fresh);
    }
    bf_blocked_contains_many(&s->f, h, b.n, out);
    for (size_t j = 0; j < b.n; j++) {
        blocked_positions(s, b.h[j], pos);
        CHECK(out[j] == blocked_model_contains(s, pos));
    }
    blocked_check_counts(s);
    free(h);
    free(out);
}

/* Every key found, and the whole image. */
MODEL static void blocked_check_all(const blocked_state *s, const reader *r)
{
    if (!s->f.bits.data) return;
    for (size_t i = 0; i < s->keys.len; i++) {
        key_ref k = s->keys.items[i].key;
        CHECK(bf_blocked_contains(&s->f, key_hash(key_ptr(r, k), k.len, s->f.seed, BF_HASH_MURMUR3)));
    }
    blocked_check_image(s);
}

/* The most recent keys are all still there; the whole image while the scan
 * budget lasts (the final check alone would not say which op went wrong). */
void blocked_recent_op(void *state, reader *r)
{
    const blocked_state *s = state;
    if (!s->f.bits.data) return;
    size_t from = s->keys.len > RECENT_KEYS ? s->keys.len - RECENT_KEYS : 0;
    for (size_t i = from; i < s->keys.len; i++) {
        key_ref k = s->keys.items[i].key;
        CHECK(bf_blocked_contains(&s->f, key_hash(key_ptr(r, k), k.len, s->f.seed, BF_HASH_MURMUR3)));
    }
    blocked_check_counts(s);
    if (may_scan(r, s->f.bits.nbits)) blocked_check_image(s);
}

/* Rates anywhere in n 1..1e7, any k and up to 2^40 blocks (mean loads up to
 * 1e7 keys per block, where the old log-space Poisson sum passed 1): a
 * probability, and no higher with more blocks. Where the rate is flat near 1,
 * adjacent block counts differ by rounding only, hence the relative slack of
 * 1e-12 (seen: 3e-15 in 200,000 samples). */
void blocked_rate_op(reader *r)
{
    double n = 1 + (double)((rd_u32(r) % 10000000) >> (rd_u8(r) % 24));
    uint8_t shift = rd_u8(r);
    uint64_t nblocks = 1 + (rd_u64(r) >> (24 + shift % 40));
    uint32_t k = 1 + rd_u8(r) % BF_K_MAX;
    uint64_t more = 1 + rd_u8(r);
    if (r->rates++ >= MAX_RATES) return;
    double rate = bf_blocked_fpr(n, nblocks, k);
    CHECK(rate >= 0 && rate <= 1);
    double next = bf_blocked_fpr(n, nblocks + more, k), twice = bf_blocked_fpr(n, nblocks * 2, k);
    CHECK(next >= 0 && next <= rate * (1 + 1e-12));
    CHECK(twice >= 0 && twice <= rate * (1 + 1e-12));
}

/* The sizing model: the blocks it picks reach the rate, one block fewer does
 * not (for its k), and rates are probabilities that fall as blocks grow. */
void blocked_size_op(reader *r)
{
    static const double n_scale[4] = {1, 10, 100, 500}, error_scale[3] = {1, 10, 100};
    double n = 1 + rd_u16(r) % 20000;
    double error = 0.3 / (1 + rd_u16(r) % 3000); /* 1e-4 .. 0.3 */
    /* Last, so that a missing byte (0) keeps the ranges above: up to 1e7
     * keys and down to 1e-6. */
    uint8_t scale = rd_u8(r);
    n *= n_scale[scale % 4];
    error /= error_scale[(scale >> 2) % 3];
    if (r->sizings++ > 0) return;
    uint32_t k = 0;
    uint64_t nblocks = bf_blocked_size(n, error, &k);
    CHECK(nblocks >= 1 && k >= 1 && k <= BF_K_MAX);
    double rate = bf_blocked_fpr(n, nblocks, k);
    CHECK(rate >= 0 && rate <= error);
    if (nblocks > 1) CHECK(bf_blocked_fpr(n, nblocks - 1, k) > error);
    CHECK(bf_blocked_fpr(n, nblocks * 2, k) <= rate);
    CHECK(bf_blocked_fpr(0, nblocks, k) == 0);
    CHECK(bf_blocked_size(-1, error, &k) == 0 && bf_blocked_size(n, 1.5, &k) == 0);
}

/* bf_blocked.h's definition on the model's bits: per block, the average
 * over the 8 start lanes of the product of the fills (set bits / 64) of the
 * k lanes from there; then the average over the blocks. */
MODEL static double blocked_model_rate(const blocked_state *s)
{
    double total = 0;
    for (uint64_t b = 0; b < s->f.nblocks; b++) {
        double fill[8], rate = 0;
        for (unsigned l = 0; l < 8; l++) {
            unsigned ones = 0;
            for (unsigned j = 0; j < 64; j++) ones += s->model[b * BF_BLOCK_BITS + l * 64 + j];
            fill[l] = ones / 64.0;
        }
        for (unsigned first = 0; first < 8; first++) {
            double p = 1;
            for (uint32_t i = 0; i < s->f.k; i++) p *= fill[(first + i) % 8];
            rate += p;
        }
        total += rate / 8;
    }
    return total / (double)s->f.nblocks;
}

/* A probability, 0 when nothing was added, the model's value, and never
 * lower than when last asked (bits are only ever set). */
static void blocked_rate_now(blocked_state *s)
{
    if (!s->f.bits.data) return;
    double got = bf_blocked_current_fpr(&s->f), want = blocked_model_rate(s);
    CHECK(got >= 0 && got <= 1);
    if (s->adds == 0) CHECK(got == 0);
    double diff = got > want ? got - want : want - got;
    CHECK(diff <= want * 1e-12 + 1e-300);
    CHECK(got >= s->last_rate);
    s->last_rate = got;
}

void blocked_rate_now_op(void *s, reader *r) { blocked_rate_now(s); }

static void blocked_final(void *s, const reader *r)
{
    blocked_check_all(s, r);
    blocked_rate_now(s);
}

static void blocked_twin(void *twin, const void *first, uint8_t mode, reader *r)
{
    blocked_state *t = twin;
    const blocked_state *s = first;
    int copy = mode & 1;
    blocked_free(t);
    if (!s->f.bits.data) return;
    size_t nbytes = (size_t)s->f.nblocks * BF_BLOCK_BYTES, nbits = (size_t)s->f.bits.nbits;
    uint8_t *data = aligned_alloc(BF_BLOCK_BYTES, nbytes);
    CHECK(data != NULL);
    if (copy) {
        *t = *s;
        memcpy(data, s->f.bits.data, nbytes);
        t->f.bits.data = data;
        t->model = dup_bytes(s->model, nbits);
        keys_copy(&t->keys, &s->keys);
        return;
    }
    memset(data, 0, nbytes);
    t->f = s->f;
    t->f.bits.data = data;
    t->f.count = t->f.distinct = 0;
    t->model = zeroed(nbits);
}

static void blocked_merge(void *dst, void *src, uint8_t flags, reader *r)
{
    blocked_state *d = dst, *s = src;
    int intersect = flags & 1;
    if (!d->f.bits.data || !s->f.bits.data || d->f.nblocks != s->f.nblocks || d->f.k != s->f.k ||
        d->f.seed != s->f.seed || !may_merge(r))
        return;
    if (intersect) bf_bits_and(&d->f.bits, &s->f.bits);
    else bf_bits_or(&d->f.bits, &s->f.bits);
    d->f.count = merged_count(d->f.count, s->f.count, intersect);
    d->adds = merged_count(d->adds, s->adds, intersect);
    d->distinct = d->f.distinct;
    filter_model_merge(d->model, s->model, d->f.bits.nbits, &d->keys, &s->keys, r, intersect);
    if (intersect) d->last_rate = 0; /* bits cleared: the rate may fall */
    blocked_check_all(d, r);
    blocked_check_all(s, r);
    blocked_rate_now(d);
}

const fuzz_model blocked_model = {sizeof(blocked_state), blocked_init, blocked_final, blocked_free, blocked_twin, blocked_merge, NULL};
