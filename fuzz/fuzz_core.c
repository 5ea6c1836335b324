/* libFuzzer harness for bloomc's C core (ext/bloomc/bf_*.c).
 *
 * The input is a little program.  A header sizes one of each structure (bit
 * field, bucket field, plain Bloom filter, continuous filter, blocked filter,
 * counting filter, spectral filter (MI or RM), bitwise filter, stable filter,
 * A2 filter); then every opcode byte picks one operation and reads its
 * operands from the bytes that follow.  Each structure is shadowed by a plain
 * model kept here (a byte per bit, a uint32 per bucket or cell, an "age in
 * ticks" per continuous bucket, ...) and every result is checked against it;
 * any mismatch traps.  The filters of counters also check the guarantees their
 * headers promise (counts never below the true count, recent keys found)
 * against the true history of the keys.  Reads past the end of the input
 * yield zeros, so every input is a valid program.
 *
 * Build and run: `rake fuzz` (see the Rakefile), or by hand:
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
 *     -I ext/bloomc fuzz/fuzz_core.c ext/bloomc/bf_bits.c ext/bloomc/bf_buckets.c \
 *     ext/bloomc/bf_hash.c ext/bloomc/bf_bloom.c ext/bloomc/bf_blocked.c \
 *     ext/bloomc/bf_continuous.c ext/bloomc/bf_counting.c ext/bloomc/bf_stable.c \
 *     ext/bloomc/bf_a2.c -o tmp/fuzz_core
 *
 * Portable bf_reduce: this file undefines __SIZEOF_INT128__ before including
 * the core's headers, so the inline helpers used HERE (bf_positions,
 * bf_probe_next, bf_reduce) take the 32x32-bit fallback path that 32-bit hosts
 * use, while bf_bloom.c, bf_continuous.c and the other core files (compiled
 * separately) take the unsigned __int128 path.  The models are built from the
 * fallback positions and the filters from the int128 ones, so every
 * add/lookup cross-checks the two; ref_positions() below checks both against
 * a direct __int128 formula. */
#ifdef __SIZEOF_INT128__
#define FUZZ_HAVE_INT128 1
#undef __SIZEOF_INT128__
#endif

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bf_a2.h"
#include "bf_batch.h"
#include "bf_bits.h"
#include "bf_blocked.h"
#include "bf_bloom.h"
#include "bf_buckets.h"
#include "bf_continuous.h"
#include "bf_counting.h"
#include "bf_hash.h"
#include "bf_probe.h"
#include "bf_stable.h"

#ifndef FUZZ_HAVE_INT128
#error "the harness's reference probe positions need unsigned __int128"
#endif
__extension__ typedef unsigned __int128 fuzz_u128;

/* Any mismatch with the model: stop right here so libFuzzer records the input
 * and the stack shows which check failed. */
#define CHECK(cond)              \
    do {                         \
        if (!(cond)) abort();    \
    } while (0)

/* Model bookkeeping and whole-structure scans are kept out of libFuzzer's
 * coverage and comparison tracing: they would cost most of the run time and
 * only add noise to the feedback, which should come from the core. */
#if defined(__clang__) && __clang_major__ >= 13
#define MODEL __attribute__((no_sanitize("coverage")))
#else
#define MODEL
#endif

/* Limits of what the input may ask for. */
#define BITS_MAX_N 5000
#define BUCKETS_MAX_N 2000
#define BLOOM_MAX_M 4096
#define CONT_MAX_M 2048
#define BLOCKED_MAX_BLOCKS 64
#define BATCH_MAX 70
#define RECENT_KEYS 16
/* Whole-structure scans in the middle of a program cost up to this many
 * bucket-bits per input; past it only the cheap checks run until the end,
 * where everything is always compared.  Keeps every input fast. */
#define SCAN_BUDGET (1u << 18)
#define MAX_REINITS 8
/* A rate spot check costs up to ~15 ms here (three bf_blocked_fpr calls at a
 * million keys per block), most far less. */
#define MAX_RATES 4

/* ------------------------------------------------------------------ input */

typedef struct {
    const uint8_t *data;
    size_t size, pos;
    uint64_t scan_budget; /* see SCAN_BUDGET */
    unsigned reinits;
    unsigned sizings;     /* blocked-filter sizings (milliseconds each): one per input */
    unsigned rates;       /* blocked-filter rate spot checks, see MAX_RATES */
    uint64_t add_budget;  /* probes of repeated adds, see ADD_BUDGET */
} reader;

/* Whether a mid-program scan costing `cost` may run (and pay for it). */
static int may_scan(reader *r, uint64_t cost)
{
    if (cost > r->scan_budget) return 0;
    r->scan_budget -= cost;
    return 1;
}

static uint8_t rd_u8(reader *r)
{
    return r->pos < r->size ? r->data[r->pos++] : 0;
}

static uint16_t rd_u16(reader *r)
{
    uint16_t lo = rd_u8(r);
    return (uint16_t)(lo | (uint16_t)rd_u8(r) << 8);
}

static uint32_t rd_u32(reader *r)
{
    uint32_t lo = rd_u16(r);
    return lo | (uint32_t)rd_u16(r) << 16;
}

static uint64_t rd_u64(reader *r)
{
    uint64_t lo = rd_u32(r);
    return lo | (uint64_t)rd_u32(r) << 32;
}

/* A key is a slice of the input itself: a length byte (255: a u16 length
 * follows, for keys of 256 bytes and more), then that many bytes (fewer at the
 * end of the input).  Slices at the very end of the input end at the end of
 * libFuzzer's allocation, so an over-read by a hash is caught. */
typedef struct {
    size_t off, len;
} key_ref;

static key_ref rd_key(reader *r)
{
    key_ref k;
    size_t len = rd_u8(r);
    if (len == 255) len = rd_u16(r);
    size_t left = r->size - r->pos; /* pos <= size always */
    if (len > left) len = left;
    k.off = r->pos;
    k.len = len;
    r->pos += len;
    return k;
}

static const uint8_t *key_ptr(const reader *r, key_ref k)
{
    return r->data + k.off;
}

/* A growable list of keys (with an age, used by the continuous filter). */
typedef struct {
    key_ref key;
    uint64_t age; /* ticks since this add */
} key_entry;

typedef struct {
    key_entry *items;
    size_t len, cap;
} key_list;

static void keys_push(key_list *l, key_ref k)
{
    if (l->len == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 64;
        key_entry *p = realloc(l->items, cap * sizeof *p);
        CHECK(p != NULL);
        l->items = p;
        l->cap = cap;
    }
    l->items[l->len].key = k;
    l->items[l->len].age = 0;
    l->len++;
}

static void keys_free(key_list *l)
{
    free(l->items);
    l->items = NULL;
    l->len = l->cap = 0;
}

/* ------------------------------------------------------------ references */

static uint32_t ref_rotl32(uint32_t x, int r) { return (x << r) | (x >> (32 - r)); }
static uint64_t ref_rotl64(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

static uint32_t ref_fmix32(uint32_t h)
{
    h ^= h >> 16;
    h *= 0x85ebca6bU;
    h ^= h >> 13;
    h *= 0xc2b2ae35U;
    h ^= h >> 16;
    return h;
}

static uint64_t ref_fmix64(uint64_t k)
{
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdULL;
    k ^= k >> 33;
    k *= 0xc4ceb9fe1a85ec53ULL;
    k ^= k >> 33;
    return k;
}

/* MurmurHash3_x86_32 as written in SMHasher (byte-wise little-endian block
 * reads, switch fall-through tail): an independent model of bf_murmur3_32. */
static uint32_t ref_murmur3_32(const uint8_t *data, size_t len, uint32_t seed)
{
    const uint32_t c1 = 0xcc9e2d51U, c2 = 0x1b873593U;
    size_t nblocks = len / 4;
    uint32_t h1 = seed;
    for (size_t i = 0; i < nblocks; i++) {
        const uint8_t *b = data + 4 * i;
        uint32_t k1 = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
        k1 *= c1;
        k1 = ref_rotl32(k1, 15);
        k1 *= c2;
        h1 ^= k1;
        h1 = ref_rotl32(h1, 13);
        h1 = h1 * 5 + 0xe6546b64U;
    }
    const uint8_t *tail = data + 4 * nblocks;
    uint32_t k1 = 0;
    switch (len & 3) {
    case 3: k1 ^= (uint32_t)tail[2] << 16; /* fall through */
    case 2: k1 ^= (uint32_t)tail[1] << 8;  /* fall through */
    case 1:
        k1 ^= tail[0];
        k1 *= c1;
        k1 = ref_rotl32(k1, 15);
        k1 *= c2;
        h1 ^= k1;
    }
    h1 ^= (uint32_t)len;
    return ref_fmix32(h1);
}

static uint64_t ref_block64(const uint8_t *b)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) v = v << 8 | b[i];
    return v;
}

/* MurmurHash3_x64_128 as written in SMHasher. */
static void ref_murmur3_128(const uint8_t *data, size_t len, uint32_t seed, uint64_t out[2])
{
    const uint64_t c1 = 0x87c37b91114253d5ULL, c2 = 0x4cf5ad432745937fULL;
    size_t nblocks = len / 16;
    uint64_t h1 = seed, h2 = seed;
    for (size_t i = 0; i < nblocks; i++) {
        uint64_t k1 = ref_block64(data + 16 * i), k2 = ref_block64(data + 16 * i + 8);
        k1 *= c1; k1 = ref_rotl64(k1, 31); k1 *= c2; h1 ^= k1;
        h1 = ref_rotl64(h1, 27); h1 += h2; h1 = h1 * 5 + 0x52dce729;
        k2 *= c2; k2 = ref_rotl64(k2, 33); k2 *= c1; h2 ^= k2;
        h2 = ref_rotl64(h2, 31); h2 += h1; h2 = h2 * 5 + 0x38495ab5;
    }
    const uint8_t *tail = data + 16 * nblocks;
    uint64_t k1 = 0, k2 = 0;
    switch (len & 15) {
    case 15: k2 ^= (uint64_t)tail[14] << 48; /* fall through */
    case 14: k2 ^= (uint64_t)tail[13] << 40; /* fall through */
    case 13: k2 ^= (uint64_t)tail[12] << 32; /* fall through */
    case 12: k2 ^= (uint64_t)tail[11] << 24; /* fall through */
    case 11: k2 ^= (uint64_t)tail[10] << 16; /* fall through */
    case 10: k2 ^= (uint64_t)tail[9] << 8;   /* fall through */
    case 9:
        k2 ^= (uint64_t)tail[8];
        k2 *= c2; k2 = ref_rotl64(k2, 33); k2 *= c1; h2 ^= k2;
        /* fall through */
    case 8: k1 ^= (uint64_t)tail[7] << 56; /* fall through */
    case 7: k1 ^= (uint64_t)tail[6] << 48; /* fall through */
    case 6: k1 ^= (uint64_t)tail[5] << 40; /* fall through */
    case 5: k1 ^= (uint64_t)tail[4] << 32; /* fall through */
    case 4: k1 ^= (uint64_t)tail[3] << 24; /* fall through */
    case 3: k1 ^= (uint64_t)tail[2] << 16; /* fall through */
    case 2: k1 ^= (uint64_t)tail[1] << 8;  /* fall through */
    case 1:
        k1 ^= (uint64_t)tail[0];
        k1 *= c1; k1 = ref_rotl64(k1, 31); k1 *= c2; h1 ^= k1;
    }
    h1 ^= (uint64_t)len;
    h2 ^= (uint64_t)len;
    h1 += h2;
    h2 += h1;
    h1 = ref_fmix64(h1);
    h2 = ref_fmix64(h2);
    h1 += h2;
    h2 += h1;
    out[0] = h1;
    out[1] = h2;
}

/* Published test vectors, so the references above are themselves checked. */
static void check_vectors(void)
{
    static const struct {
        const char *s;
        uint32_t seed, want;
    } mm32[] = {
        {"", 0, 0},
        {"", 1, 0x514E28B7U},
        {"", 0xffffffffU, 0x81F16F39U},
        {"aaaa", 0x9747b28cU, 0x5A97808AU},
        {"Hello, world!", 0x9747b28cU, 0x24884CBAU},
        {"The quick brown fox jumps over the lazy dog", 0x9747b28cU, 0x2FA826CDU},
    };
    for (size_t i = 0; i < sizeof mm32 / sizeof mm32[0]; i++) {
        const uint8_t *p = (const uint8_t *)mm32[i].s;
        size_t n = strlen(mm32[i].s);
        CHECK(ref_murmur3_32(p, n, mm32[i].seed) == mm32[i].want);
        CHECK(bf_murmur3_32(p, n, mm32[i].seed) == mm32[i].want);
    }
    const uint8_t *a = (const uint8_t *)"a";
    CHECK(bf_fnv1_32(a, 0) == 0x811c9dc5U && bf_fnv1a_32(a, 0) == 0x811c9dc5U);
    CHECK(bf_fnv1_64(a, 0) == 0xcbf29ce484222325ULL && bf_fnv1a_64(a, 0) == 0xcbf29ce484222325ULL);
    CHECK(bf_fnv1_32(a, 1) == 0x050c5d7eU);
    CHECK(bf_fnv1a_32(a, 1) == 0xe40c292cU);
    CHECK(bf_fnv1_64(a, 1) == 0xaf63bd4c8601b7beULL);
    CHECK(bf_fnv1a_64(a, 1) == 0xaf63dc4c8601ec8cULL);
}

/* Probe positions straight from the formulas in bf_probe.h, with a real
 * 128-bit product: murmur3  x_i = h1 + i*h2 + (i^3 - i)/6,  floor(x_i*m/2^64);
 * fnv1a  x_i = h1 + h2*(i + 1),  x_i mod m. */
static void ref_positions(bf_key_hash h, bf_hash_kind kind, uint32_t k, uint64_t m, uint64_t *out)
{
    for (uint64_t i = 0; i < k; i++) {
        if (kind == BF_HASH_FNV1A) {
            out[i] = (h.h1 + h.h2 * (i + 1)) % m;
        } else {
            uint64_t x = h.h1 + i * h.h2 + (i * i * i - i) / 6;
            out[i] = (uint64_t)(((fuzz_u128)x * m) >> 64);
        }
    }
}

/* bf_positions (fallback bf_reduce here, see the top of the file), checked
 * against ref_positions, bf_probe_values and streaming bf_probe_next. */
static void positions(bf_key_hash h, bf_hash_kind kind, uint32_t k, uint64_t m, uint64_t *out)
{
    uint64_t ref[BF_K_MAX], vals[BF_K_MAX];
    CHECK(k >= 1 && k <= BF_K_MAX && m >= 1);
    bf_positions(h, kind, k, m, out);
    ref_positions(h, kind, k, m, ref);
    bf_probe_values(h, kind, k, vals);
    bf_probe p = bf_probe_start(h, kind, m);
    for (uint32_t i = 0; i < k; i++) {
        CHECK(out[i] < m);
        CHECK(out[i] == ref[i]);
        CHECK(bf_probe_next(&p) == out[i]);
        uint64_t v = kind == BF_HASH_FNV1A ? vals[i] % m : (uint64_t)(((fuzz_u128)vals[i] * m) >> 64);
        CHECK(v == out[i]);
        CHECK(bf_reduce(vals[i], m) == (uint64_t)(((fuzz_u128)vals[i] * m) >> 64));
    }
}

static bf_key_hash key_hash(const uint8_t *p, size_t n, uint32_t seed, bf_hash_kind kind)
{
    bf_key_hash h = bf_key_hash_bytes(p, n, seed, kind);
    if (kind == BF_HASH_FNV1A) {
        uint64_t v = bf_fnv1a_64(p, n);
        CHECK(h.h1 == v >> 32 && h.h2 == (v & 0xffffffffU));
    } else {
        uint64_t out[2];
        bf_murmur3_128(p, n, seed, out);
        CHECK(h.h1 == out[0] && h.h2 == out[1]);
    }
    return h;
}

/* ------------------------------------------------------------ bit field */

typedef struct {
    bf_bits f;
    uint8_t *model; /* one byte (0/1) per bit */
    uint64_t ones;
} bits_state;

static void bits_free(bits_state *s)
{
    free(s->f.data);
    free(s->model);
    memset(s, 0, sizeof *s);
}

static void bits_init(bits_state *s, reader *r)
{
    bits_free(s);
    uint64_t n = 1 + rd_u16(r) % BITS_MAX_N;
    size_t nbytes = bf_bits_nbytes(n);
    if (nbytes == 0) return; /* invalid size: no field */
    CHECK(nbytes % 8 == 0 && nbytes * 8 >= n && nbytes * 8 < n + 64);
    s->f.data = calloc(nbytes, 1);
    s->model = calloc((size_t)n, 1);
    CHECK(s->f.data && s->model);
    s->f.nbits = n;
}

/* The whole byte image, including the padding past nbits (always zero). */
MODEL static void bits_check(const bits_state *s, reader *r)
{
    if (!s->f.data) return;
    CHECK(bf_bits_count(&s->f) == s->ones);
    if (r && !may_scan(r, s->f.nbits)) return;
    size_t nbytes = bf_bits_nbytes(s->f.nbits);
    for (size_t j = 0; j < nbytes; j++) {
        uint8_t want = 0;
        for (unsigned b = 0; b < 8; b++) {
            uint64_t i = (uint64_t)j * 8 + b;
            if (i < s->f.nbits && s->model[i]) want |= (uint8_t)(1u << b);
        }
        CHECK(s->f.data[j] == want);
    }
}

static void bits_op(bits_state *s, unsigned op, reader *r)
{
    uint64_t i = rd_u16(r);
    if (!s->f.data) return;
    i %= s->f.nbits;
    switch (op) {
    case 0:
        bf_bits_set(&s->f, i);
        s->ones += !s->model[i];
        s->model[i] = 1;
        break;
    case 1:
        bf_bits_clear(&s->f, i);
        s->ones -= s->model[i];
        s->model[i] = 0;
        break;
    default:
        break;
    }
    CHECK(bf_bits_get(&s->f, i) == s->model[i]);
    /* The neighbours in the same byte and the bytes either side. */
    for (uint64_t j = i >= 9 ? i - 9 : 0; j < s->f.nbits && j <= i + 9; j++)
        CHECK(bf_bits_get(&s->f, j) == s->model[j]);
}

/* ------------------------------------------------------------ bucket field */

typedef struct {
    bf_buckets f;
    uint32_t *model;
    uint64_t nonzero;
} buckets_state;

static void buckets_free(buckets_state *s)
{
    free(s->f.data);
    free(s->model);
    memset(s, 0, sizeof *s);
}

static void buckets_init(buckets_state *s, reader *r)
{
    buckets_free(s);
    unsigned width = 1 + rd_u8(r) % BF_BUCKET_WIDTH_MAX;
    uint64_t count = 1 + rd_u16(r) % BUCKETS_MAX_N;
    size_t nbytes = bf_buckets_nbytes(count, width);
    if (nbytes == 0) return;
    CHECK(nbytes >= (count * width + 7) / 8 + 7);
    s->f.data = calloc(nbytes, 1);
    s->model = calloc((size_t)count, sizeof *s->model);
    CHECK(s->f.data && s->model);
    bf_buckets_init(&s->f, count, width);
    CHECK(s->f.count == count && s->f.width == width);
    CHECK(s->f.max == (width == 32 ? 0xffffffffU : (1U << width) - 1));
}

/* The exact byte image of the model (bucket i = bits [i*w, i*w + w) of the
 * little-endian bit stream, zero padding after): no bucket write may leak. */
MODEL static void buckets_check_image(const uint8_t *data, const bf_buckets *f, const uint32_t *model)
{
    size_t nbytes = bf_buckets_nbytes(f->count, f->width);
    uint8_t *want = calloc(nbytes, 1);
    CHECK(want != NULL);
    for (uint64_t i = 0; i < f->count; i++)
        for (unsigned b = 0; b < f->width; b++)
            if (model[i] >> b & 1) {
                uint64_t bit = i * f->width + b;
                want[bit >> 3] |= (uint8_t)(1u << (bit & 7));
            }
    CHECK(memcmp(want, data, nbytes) == 0);
    free(want);
}

MODEL static void buckets_check(const buckets_state *s, reader *r)
{
    if (!s->f.data) return;
    CHECK(bf_buckets_count_nonzero(&s->f) == s->nonzero);
    if (r && !may_scan(r, s->f.count * s->f.width)) return;
    for (uint64_t i = 0; i < s->f.count; i++) CHECK(bf_buckets_get(&s->f, i) == s->model[i]);
    buckets_check_image(s->f.data, &s->f, s->model);
}

static void buckets_store(buckets_state *s, uint64_t i, uint32_t v)
{
    s->nonzero += (v != 0) - (s->model[i] != 0);
    s->model[i] = v;
}

static void buckets_op(buckets_state *s, unsigned op, reader *r)
{
    uint64_t i = rd_u16(r);
    uint32_t v = op == 0 ? rd_u32(r) : 0;
    if (!s->f.data) return;
    i %= s->f.count;
    uint32_t max = s->f.max, old = s->model[i];
    switch (op) {
    case 0: /* set; the value masked to the width */
        v &= max;
        bf_buckets_set(&s->f, i, v);
        buckets_store(s, i, v);
        break;
    case 1: /* get */
        break;
    case 2: /* saturating inc */
        v = old < max ? old + 1 : max;
        CHECK(bf_buckets_inc(&s->f, i) == v);
        buckets_store(s, i, v);
        break;
    case 3: /* saturating dec */
        v = old > 0 ? old - 1 : 0;
        CHECK(bf_buckets_dec(&s->f, i) == v);
        buckets_store(s, i, v);
        break;
    }
    CHECK(bf_buckets_get(&s->f, i) == s->model[i]);
    /* The buckets around it share its 8-byte word. */
    for (uint64_t j = i >= 3 ? i - 3 : 0; j < s->f.count && j <= i + 3; j++)
        CHECK(bf_buckets_get(&s->f, j) == s->model[j]);
}

/* ------------------------------------------------------------ Bloom filter */

typedef struct {
    bf_bloom f;
    uint8_t *model; /* one byte per bit */
    uint64_t ones, adds;
    key_list keys;
} bloom_state;

static void bloom_free(bloom_state *s)
{
    free(s->f.bits.data);
    free(s->model);
    keys_free(&s->keys);
    memset(s, 0, sizeof *s);
}

static void bloom_init(bloom_state *s, reader *r)
{
    bloom_free(s);
    uint64_t m = 1 + rd_u16(r) % BLOOM_MAX_M;
    uint32_t k = 1 + rd_u8(r) % BF_K_MAX;
    bf_hash_kind kind = (rd_u8(r) & 1) ? BF_HASH_FNV1A : BF_HASH_MURMUR3;
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
    for (uint32_t i = 0; i < s->f.k; i++)
        if (!s->model[pos[i]]) return 0;
    return 1;
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
    CHECK(s->f.count == s->adds);
    CHECK(bf_bits_count(&s->f.bits) == s->ones);
}

static void bloom_op(bloom_state *s, unsigned op, reader *r)
{
    uint64_t pos[BF_K_MAX];
    switch (op) {
    case 0: { /* add */
        key_ref k = rd_key(r);
        if (!s->f.bits.data) return;
        const uint8_t *p = key_ptr(r, k);
        bf_key_hash h = key_hash(p, k.len, s->f.seed, s->f.hash);
        positions(h, s->f.hash, s->f.k, s->f.bits.nbits, pos);
        bf_bloom_add(&s->f, h);
        for (uint32_t i = 0; i < s->f.k; i++) {
            s->ones += !s->model[pos[i]];
            s->model[pos[i]] = 1;
        }
        s->adds++;
        keys_push(&s->keys, k);
        CHECK(bf_bloom_contains(&s->f, h));
        break;
    }
    case 1: { /* contains, any key: exactly the model's answer */
        key_ref k = rd_key(r);
        if (!s->f.bits.data) return;
        bloom_lookup(s, key_ptr(r, k), k.len, 0);
        break;
    }
    default: { /* the most recent keys are all still there */
        if (!s->f.bits.data) return;
        size_t from = s->keys.len > RECENT_KEYS ? s->keys.len - RECENT_KEYS : 0;
        for (size_t i = from; i < s->keys.len; i++)
            bloom_lookup(s, key_ptr(r, s->keys.items[i].key), s->keys.items[i].key.len, 1);
        bloom_check(s);
        break;
    }
    }
}

MODEL static void bloom_final(const bloom_state *s, const reader *r)
{
    if (!s->f.bits.data) return;
    for (size_t i = 0; i < s->keys.len; i++)
        bloom_lookup(s, key_ptr(r, s->keys.items[i].key), s->keys.items[i].key.len, 1);
    bloom_check(s);
    size_t nbytes = bf_bits_nbytes(s->f.bits.nbits);
    for (size_t j = 0; j < nbytes; j++) {
        uint8_t want = 0;
        for (unsigned b = 0; b < 8; b++) {
            uint64_t i = (uint64_t)j * 8 + b;
            if (i < s->f.bits.nbits && s->model[i]) want |= (uint8_t)(1u << b);
        }
        CHECK(s->f.bits.data[j] == want);
    }
}

/* ------------------------------------------------------ continuous filter */

#define AGE_EMPTY 0xff

typedef struct {
    bf_continuous f;
    uint8_t *age;       /* per bucket: ticks since written (0..2), or AGE_EMPTY */
    uint32_t *expect;   /* scratch: expected bucket values */
    uint64_t nonzero;   /* buckets not empty */
    uint32_t slot0;     /* slot at creation */
    uint32_t tmod;      /* ticks since creation, mod BF_CONT_SLOTS */
    uint64_t ticks;     /* ticks since creation, mod 2^64 */
    key_list keys;      /* adds of the last 0..2 ticks, with their age */
} cont_state;

static void cont_free(cont_state *s)
{
    free(s->f.buckets.data);
    free(s->age);
    free(s->expect);
    keys_free(&s->keys);
    memset(s, 0, sizeof *s);
}

static void cont_init(cont_state *s, reader *r)
{
    cont_free(s);
    uint64_t m = 1 + rd_u16(r) % CONT_MAX_M;
    uint32_t k = 1 + rd_u8(r) % BF_K_MAX;
    uint8_t flags = rd_u8(r);
    uint32_t seed = rd_u32(r);
    size_t nbytes = bf_buckets_nbytes(m, BF_CONT_BITS);
    if (nbytes == 0) return;
    s->f.buckets.data = calloc(nbytes, 1);
    s->age = malloc((size_t)m);
    s->expect = calloc((size_t)m, sizeof *s->expect);
    CHECK(s->f.buckets.data && s->age && s->expect);
    memset(s->age, AGE_EMPTY, (size_t)m);
    bf_buckets_init(&s->f.buckets, m, BF_CONT_BITS);
    s->f.k = k;
    s->f.seed = seed;
    s->f.hash = (flags & 1) ? BF_HASH_FNV1A : BF_HASH_MURMUR3;
    /* The binding starts at slot 1 (or a copy's slot); any slot must work. */
    s->f.slot = 1 + (uint32_t)(flags >> 1) % BF_CONT_SLOTS;
    s->f.ticks = 0;
    s->slot0 = s->f.slot;
}

static uint32_t cont_slot(const cont_state *s)
{
    return (s->slot0 - 1 + s->tmod) % BF_CONT_SLOTS + 1;
}

/* The slot written `age` ticks ago. */
static uint32_t cont_slot_at_age(const cont_state *s, uint32_t age)
{
    return (cont_slot(s) - 1 + BF_CONT_SLOTS - age) % BF_CONT_SLOTS + 1;
}

/* Ticks from slot start to slot current on the ring (bloombroom's elapsed). */
static uint32_t ring_elapsed(uint32_t start, uint32_t current)
{
    return current >= start ? current - start : current + BF_CONT_SLOTS - start;
}

/* Every bucket equals the model; in particular every non-zero bucket holds
 * one of the 3 live slots. */
MODEL static void cont_check_all(cont_state *s, reader *r)
{
    uint32_t cur = cont_slot(s);
    CHECK(s->f.slot == cur && s->f.ticks == s->ticks);
    CHECK(bf_buckets_count_nonzero(&s->f.buckets) == s->nonzero);
    if (r && !may_scan(r, s->f.buckets.count * BF_CONT_BITS)) return;
    for (uint64_t i = 0; i < s->f.buckets.count; i++) {
        uint32_t v = bf_buckets_get(&s->f.buckets, i);
        if (v != 0) CHECK(ring_elapsed(v, cur) <= BF_CONT_DIVISOR);
        s->expect[i] = s->age[i] == AGE_EMPTY ? 0 : cont_slot_at_age(s, s->age[i]);
        CHECK(v == s->expect[i]);
    }
    buckets_check_image(s->f.buckets.data, &s->f.buckets, s->expect);
}

/* Look a key up; the answer must be exactly the model's (all k buckets live),
 * and a lookup never changes a bucket (ticks already cleared the expired). */
static int cont_lookup(cont_state *s, const uint8_t *p, size_t n, int clear)
{
    uint64_t pos[BF_K_MAX];
    bf_key_hash h = key_hash(p, n, s->f.seed, s->f.hash);
    positions(h, s->f.hash, s->f.k, s->f.buckets.count, pos);
    int want = 1;
    for (uint32_t i = 0; i < s->f.k; i++) want &= s->age[pos[i]] != AGE_EMPTY;
    CHECK(bf_continuous_lookup(&s->f, h, clear) == want);
    for (uint32_t i = 0; i < s->f.k; i++) {
        uint32_t a = s->age[pos[i]];
        CHECK(bf_buckets_get(&s->f.buckets, pos[i]) == (a == AGE_EMPTY ? 0 : cont_slot_at_age(s, a)));
    }
    return want;
}

MODEL static void cont_tick(cont_state *s, uint64_t n, reader *r)
{
    bf_continuous_tick(&s->f, n);
    s->ticks += n;
    s->tmod = (uint32_t)((s->tmod + n % BF_CONT_SLOTS) % BF_CONT_SLOTS);
    for (uint64_t i = 0; i < s->f.buckets.count; i++) {
        if (s->age[i] == AGE_EMPTY) continue;
        if (n > (uint64_t)(BF_CONT_DIVISOR - s->age[i])) {
            s->age[i] = AGE_EMPTY;
            s->nonzero--;
        } else {
            s->age[i] = (uint8_t)(s->age[i] + n);
        }
    }
    /* 3 or more ticks with no add in between: nothing survives. */
    if (n > BF_CONT_DIVISOR) CHECK(bf_buckets_count_nonzero(&s->f.buckets) == 0);
    cont_check_all(s, r);
    /* No false negative: a key added fewer than 3 ticks ago is present.
     * Older adds are dropped from the list (their absence is not guaranteed:
     * other keys may cover their buckets; the bucket model checks that). */
    size_t keep = 0;
    for (size_t i = 0; i < s->keys.len; i++) {
        key_entry e = s->keys.items[i];
        e.age = n > BF_CONT_DIVISOR - e.age ? BF_CONT_DIVISOR + 1 : e.age + n;
        if (e.age > BF_CONT_DIVISOR) continue;
        s->keys.items[keep++] = e;
    }
    s->keys.len = keep;
}

static void cont_check_keys(cont_state *s, const reader *r)
{
    for (size_t i = 0; i < s->keys.len; i++)
        CHECK(cont_lookup(s, key_ptr(r, s->keys.items[i].key), s->keys.items[i].key.len, 1));
}

static void cont_op(cont_state *s, unsigned op, reader *r)
{
    switch (op) {
    case 0: { /* add */
        uint64_t pos[BF_K_MAX];
        key_ref k = rd_key(r);
        if (!s->f.buckets.data) return;
        const uint8_t *p = key_ptr(r, k);
        bf_key_hash h = key_hash(p, k.len, s->f.seed, s->f.hash);
        positions(h, s->f.hash, s->f.k, s->f.buckets.count, pos);
        bf_continuous_add(&s->f, h);
        for (uint32_t i = 0; i < s->f.k; i++) {
            s->nonzero += s->age[pos[i]] == AGE_EMPTY;
            s->age[pos[i]] = 0;
        }
        keys_push(&s->keys, k);
        CHECK(cont_lookup(s, p, k.len, 0));
        CHECK(bf_buckets_count_nonzero(&s->f.buckets) == s->nonzero);
        break;
    }
    case 1: { /* tick by 0..20 */
        uint64_t n = rd_u8(r) % 21;
        if (!s->f.buckets.data) return;
        cont_tick(s, n, r);
        cont_check_keys(s, r);
        break;
    }
    case 2: { /* lookup any key */
        key_ref k = rd_key(r);
        uint8_t clear = rd_u8(r) & 1;
        if (!s->f.buckets.data) return;
        cont_lookup(s, key_ptr(r, k), k.len, clear);
        CHECK(bf_buckets_count_nonzero(&s->f.buckets) == s->nonzero);
        break;
    }
    default: { /* tick by any count (a long pause: n mod 15 on the ring) */
        uint64_t n = rd_u64(r);
        if (!s->f.buckets.data) return;
        cont_tick(s, n, r);
        cont_check_keys(s, r);
        break;
    }
    }
}

/* ----------------------------------------------------------------- hashes */

typedef struct {
    uint32_t m32, f1_32, f1a_32;
    uint64_t m128[2], f1_64, f1a_64;
} hash_set;

static void hash_all(const uint8_t *p, size_t n, uint32_t seed, hash_set *o)
{
    o->m32 = bf_murmur3_32(p, n, seed);
    bf_murmur3_128(p, n, seed, o->m128);
    o->f1_32 = bf_fnv1_32(p, n);
    o->f1a_32 = bf_fnv1a_32(p, n);
    o->f1_64 = bf_fnv1_64(p, n);
    o->f1a_64 = bf_fnv1a_64(p, n);
}

static int hash_eq(const hash_set *a, const hash_set *b)
{
    return a->m32 == b->m32 && a->m128[0] == b->m128[0] && a->m128[1] == b->m128[1] &&
           a->f1_32 == b->f1_32 && a->f1a_32 == b->f1a_32 && a->f1_64 == b->f1_64 &&
           a->f1a_64 == b->f1a_64;
}

/* The same bytes in the input, at offset `off` (1..7) of a buffer that ends
 * with the key (over-reads are caught by ASan), and at another offset inside
 * a larger buffer whose surroundings are different garbage: every hash must
 * agree (alignment independence, no dependence on bytes outside the key). */
static void hash_op(reader *r)
{
    key_ref k = rd_key(r);
    unsigned off = 1 + rd_u8(r) % 7;
    uint32_t seed = rd_u32(r);
    const uint8_t *p = key_ptr(r, k);
    size_t n = k.len;

    hash_set h0, h1, h2;
    hash_all(p, n, seed, &h0);

    uint8_t *a = malloc(n + off);
    CHECK(a != NULL);
    memset(a, 0xA5, off);
    if (n) memcpy(a + off, p, n);
    hash_all(a + off, n, seed, &h1);
    CHECK(hash_eq(&h0, &h1));
    free(a);

    unsigned off2 = 8 - off + 8; /* 9..15: a different alignment mod 8 unless off == 4 */
    uint8_t *b = malloc(n + 32);
    CHECK(b != NULL);
    memset(b, 0x5A ^ (uint8_t)seed, n + 32);
    if (n) memcpy(b + off2, p, n);
    hash_all(b + off2, n, seed, &h2);
    CHECK(hash_eq(&h0, &h2));
    free(b);

    CHECK(h0.m32 == ref_murmur3_32(p, n, seed));
    uint64_t ref128[2];
    ref_murmur3_128(p, n, seed, ref128);
    CHECK(h0.m128[0] == ref128[0] && h0.m128[1] == ref128[1]);

    /* The probe hashes are the hashes above, split as bf_probe.h says. */
    key_hash(p, n, seed, BF_HASH_MURMUR3);
    key_hash(p, n, seed, BF_HASH_FNV1A);
}

/* Probe positions for any m (up to 2^64 - 1) and k, without a filter. */
static void positions_op(reader *r)
{
    uint64_t pos[BF_K_MAX];
    uint8_t flags = rd_u8(r);
    uint32_t k = 1 + rd_u8(r) % BF_K_MAX;
    uint64_t m = rd_u64(r);
    key_ref key = rd_key(r);
    if (flags & 2) m >>= (flags >> 2) & 63; /* small m as often as large */
    if (m == 0) m = 1;
    bf_hash_kind kind = (flags & 1) ? BF_HASH_FNV1A : BF_HASH_MURMUR3;
    bf_key_hash h = key_hash(key_ptr(r, key), key.len, rd_u32(r), kind);
    positions(h, kind, k, m, pos);
}

/* The size functions: 0 exactly for invalid arguments, else large enough. */
static void nbytes_op(reader *r)
{
    uint64_t n = rd_u64(r);
    uint8_t w = rd_u8(r);
    uint8_t shift = rd_u8(r);
    n >>= shift & 63;

    size_t nb = bf_bits_nbytes(n);
    if (n == 0 || n > BF_BITS_MAX) {
        CHECK(nb == 0);
    } else {
        CHECK(nb != 0 && nb % 8 == 0 && (uint64_t)nb / 8 == (n + 63) / 64);
    }

    unsigned width = w % 40; /* 0 and 33..39 are invalid */
    size_t bb = bf_buckets_nbytes(n, width);
    if (n == 0 || n > BF_BUCKETS_MAX || width < 1 || width > BF_BUCKET_WIDTH_MAX) {
        CHECK(bb == 0);
    } else {
        CHECK(bb != 0 && (uint64_t)bb == (n * width + 7) / 8 + 7);
    }
}

/* ---------------------------------------------------------------- batches */

/* A group of keys from the input, hashed for one filter: the *_many functions
 * must answer exactly as one single-key call per key, in order. */
typedef struct {
    size_t n;
    key_ref keys[BATCH_MAX];
    bf_key_hash h[BATCH_MAX];
} batch;

static void rd_batch(reader *r, batch *b, uint32_t seed, bf_hash_kind kind)
{
    b->n = 1 + rd_u8(r) % BATCH_MAX;
    for (size_t i = 0; i < b->n; i++) {
        b->keys[i] = rd_key(r);
        b->h[i] = key_hash(key_ptr(r, b->keys[i]), b->keys[i].len, seed, kind);
    }
}

/* The batch functions get heap blocks of exactly n hashes and n answers: a
 * look-ahead that reads h[n] or later (it only prefetches, so the answers
 * would not show it) or a write past out[n - 1] is an ASan report, where the
 * spare room of a BATCH_MAX array would hide it. */
static bf_key_hash *exact_hashes(const bf_key_hash *h, size_t n)
{
    bf_key_hash *copy = malloc(n * sizeof *copy);
    CHECK(copy != NULL || n == 0);
    if (n) memcpy(copy, h, n * sizeof *copy);
    return copy;
}

static uint8_t *exact_answers(size_t n)
{
    uint8_t *out = malloc(n);
    CHECK(out != NULL || n == 0);
    if (n) memset(out, 0xA5, n); /* neither 0 nor 1: an answer left unwritten shows */
    return out;
}

static void bloom_batch_op(bloom_state *s, reader *r)
{
    uint8_t add = rd_u8(r) & 1;
    batch b;
    rd_batch(r, &b, s->f.seed, s->f.hash);
    if (!s->f.bits.data) return;
    uint64_t pos[BF_K_MAX];
    bf_key_hash *h = exact_hashes(b.h, b.n);
    uint8_t *out = exact_answers(b.n);
    if (add) {
        bf_bloom_add_many(&s->f, h, b.n);
        for (size_t j = 0; j < b.n; j++) {
            positions(b.h[j], s->f.hash, s->f.k, s->f.bits.nbits, pos);
            for (uint32_t i = 0; i < s->f.k; i++) {
                s->ones += !s->model[pos[i]];
                s->model[pos[i]] = 1;
            }
            s->adds++;
            keys_push(&s->keys, b.keys[j]);
        }
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

static void cont_batch_op(cont_state *s, reader *r)
{
    uint8_t flags = rd_u8(r);
    batch b;
    rd_batch(r, &b, s->f.seed, s->f.hash);
    if (!s->f.buckets.data) return;
    uint64_t pos[BF_K_MAX];
    bf_key_hash *h = exact_hashes(b.h, b.n);
    uint8_t *out = exact_answers(b.n);
    if (flags & 1) {
        bf_continuous_add_many(&s->f, h, b.n);
        for (size_t j = 0; j < b.n; j++) {
            positions(b.h[j], s->f.hash, s->f.k, s->f.buckets.count, pos);
            for (uint32_t i = 0; i < s->f.k; i++) {
                s->nonzero += s->age[pos[i]] == AGE_EMPTY;
                s->age[pos[i]] = 0;
            }
            keys_push(&s->keys, b.keys[j]);
        }
    }
    bf_continuous_lookup_many(&s->f, h, b.n, (flags >> 1) & 1, out);
    for (size_t j = 0; j < b.n; j++) {
        positions(b.h[j], s->f.hash, s->f.k, s->f.buckets.count, pos);
        int want = 1;
        for (uint32_t i = 0; i < s->f.k; i++) want &= s->age[pos[i]] != AGE_EMPTY;
        CHECK(!(flags & 1) || want);
        CHECK(out[j] == want);
    }
    CHECK(bf_buckets_count_nonzero(&s->f.buckets) == s->nonzero);
    free(h);
    free(out);
}

/* --------------------------------------------------------- blocked filter */

/* The model places a key's bits from bf_blocked.h's description alone:
 * block floor(h1 * nblocks / 2^64); probe i sets bit (6 bits of a hash word)
 * of lane (i + (h2 >> 61)) % 8, the word being h2 for probes 0..9 and h2
 * remixed once more for every ten after. */
typedef struct {
    bf_blocked f;
    uint8_t *model; /* one byte per bit */
    uint64_t adds;
    key_list keys;
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

static void blocked_free(blocked_state *s)
{
    free(s->f.bits.data);
    free(s->model);
    keys_free(&s->keys);
    memset(s, 0, sizeof *s);
}

static void blocked_init(blocked_state *s, reader *r)
{
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
    for (uint32_t i = 0; i < s->f.k; i++)
        if (!s->model[pos[i]]) return 0;
    return 1;
}

/* The byte image is the model's bits, bit i in byte i / 8 at bit i % 8. */
MODEL static void blocked_check_image(const blocked_state *s)
{
    CHECK(s->f.count == s->adds);
    for (uint64_t j = 0; j < s->f.nblocks * BF_BLOCK_BYTES; j++) {
        uint8_t want = 0;
        for (unsigned b = 0; b < 8; b++) want |= (uint8_t)(s->model[j * 8 + b] << b);
        CHECK(s->f.bits.data[j] == want);
    }
}

static void blocked_op(blocked_state *s, unsigned op, reader *r)
{
    uint64_t pos[BF_K_MAX];
    switch (op) {
    case 0: { /* add one key */
        key_ref k = rd_key(r);
        if (!s->f.bits.data) return;
        bf_key_hash h = key_hash(key_ptr(r, k), k.len, s->f.seed, BF_HASH_MURMUR3);
        blocked_positions(s, h, pos);
        bf_blocked_add(&s->f, h);
        for (uint32_t i = 0; i < s->f.k; i++) s->model[pos[i]] = 1;
        s->adds++;
        keys_push(&s->keys, k);
        CHECK(bf_blocked_contains(&s->f, h));
        break;
    }
    case 1: { /* look up one key: exactly the model's answer */
        key_ref k = rd_key(r);
        if (!s->f.bits.data) return;
        bf_key_hash h = key_hash(key_ptr(r, k), k.len, s->f.seed, BF_HASH_MURMUR3);
        blocked_positions(s, h, pos);
        CHECK(bf_blocked_contains(&s->f, h) == blocked_model_contains(s, pos));
        break;
    }
    default: { /* a batch: add_many (flag) then contains_many, against the model */
        uint8_t add = rd_u8(r) & 1;
        batch b;
        rd_batch(r, &b, s->f.seed, BF_HASH_MURMUR3);
        if (!s->f.bits.data) return;
        bf_key_hash *h = exact_hashes(b.h, b.n);
        uint8_t *out = exact_answers(b.n);
        if (add) {
            bf_blocked_add_many(&s->f, h, b.n);
            for (size_t j = 0; j < b.n; j++) {
                blocked_positions(s, b.h[j], pos);
                for (uint32_t i = 0; i < s->f.k; i++) s->model[pos[i]] = 1;
                s->adds++;
                keys_push(&s->keys, b.keys[j]);
            }
        }
        bf_blocked_contains_many(&s->f, h, b.n, out);
        for (size_t j = 0; j < b.n; j++) {
            blocked_positions(s, b.h[j], pos);
            CHECK(out[j] == blocked_model_contains(s, pos));
        }
        CHECK(s->f.count == s->adds);
        free(h);
        free(out);
        break;
    }
    }
}

MODEL static void blocked_final(const blocked_state *s, const reader *r)
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
static void blocked_recent(const blocked_state *s, reader *r)
{
    if (!s->f.bits.data) return;
    size_t from = s->keys.len > RECENT_KEYS ? s->keys.len - RECENT_KEYS : 0;
    for (size_t i = from; i < s->keys.len; i++) {
        key_ref k = s->keys.items[i].key;
        CHECK(bf_blocked_contains(&s->f, key_hash(key_ptr(r, k), k.len, s->f.seed, BF_HASH_MURMUR3)));
    }
    CHECK(s->f.count == s->adds);
    if (may_scan(r, s->f.bits.nbits)) blocked_check_image(s);
}

/* Rates anywhere in n 1..1e7, any k and up to 2^40 blocks (mean loads up to
 * 1e7 keys per block, where the old log-space Poisson sum passed 1): a
 * probability, and no higher with more blocks. Where the rate is flat near 1,
 * adjacent block counts differ by rounding only, hence the relative slack of
 * 1e-12 (seen: 3e-15 in 200,000 samples). */
static void blocked_fpr_op(reader *r)
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
static void blocked_size_op(reader *r)
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

/* Once per process: every batch function on filters of at least
 * BF_BATCH_PREFETCH_MIN_BYTES, so that prefetching runs under the sanitizers,
 * at every batch size 0..BATCH_MAX (the look-ahead's edges are at
 * BF_BATCH_AHEAD), with heap blocks of exactly n hashes and answers. Each
 * filter has a twin fed one key at a time: images and answers must agree. */

/* Hashes of the 8-byte keys from .. from + n - 1, in a block of exactly n. */
static bf_key_hash *large_keys(uint64_t from, size_t n, bf_hash_kind kind)
{
    bf_key_hash *h = malloc(n * sizeof *h);
    CHECK(h != NULL || n == 0);
    for (size_t i = 0; i < n; i++) {
        uint8_t key[8];
        uint64_t v = from + i;
        for (int b = 0; b < 8; b++) key[b] = (uint8_t)(v >> (8 * b));
        h[i] = bf_key_hash_bytes(key, sizeof key, 7, kind);
    }
    return h;
}

/* Round n adds keys next .. next + n - 1, then looks up n keys: the last
 * `added` of those and n - added never added yet, so answers are mixed. */
typedef struct {
    bf_key_hash *add, *look;
    uint8_t *out;
    size_t n, added;
} large_round;

static void large_round_start(large_round *q, size_t n, uint64_t *next, bf_hash_kind kind)
{
    q->n = n;
    q->added = (n + 1) / 2;
    q->add = large_keys(*next, n, kind);
    *next += n;
    q->look = large_keys(*next - q->added, n, kind);
    q->out = exact_answers(n);
}

static void large_round_end(large_round *q)
{
    free(q->add);
    free(q->look);
    free(q->out);
}

static void check_prefetching_bloom(uint32_t k, bf_hash_kind kind)
{
    bf_bloom a, b;
    memset(&a, 0, sizeof a);
    a.bits.nbits = (uint64_t)8 << 20;
    a.k = k;
    a.seed = 7;
    a.hash = kind;
    b = a;
    size_t nbytes = bf_bits_nbytes(a.bits.nbits);
    CHECK(bf_batch_prefetches(nbytes));
    a.bits.data = calloc(nbytes, 1);
    b.bits.data = calloc(nbytes, 1);
    CHECK(a.bits.data && b.bits.data);
    uint64_t next = 0;
    for (size_t n = 0; n <= BATCH_MAX; n++) {
        large_round q;
        large_round_start(&q, n, &next, kind);
        bf_bloom_add_many(&a, q.add, n);
        for (size_t i = 0; i < n; i++) bf_bloom_add(&b, q.add[i]);
        CHECK(a.count == b.count && memcmp(a.bits.data, b.bits.data, nbytes) == 0);
        bf_bloom_contains_many(&a, q.look, n, q.out);
        for (size_t i = 0; i < n; i++)
            CHECK(q.out[i] == bf_bloom_contains(&b, q.look[i]) && (i >= q.added || q.out[i] == 1));
        large_round_end(&q);
    }
    free(a.bits.data);
    free(b.bits.data);
}

static void check_prefetching_blocked(uint32_t k, uint32_t seed)
{
    bf_blocked a, b;
    memset(&a, 0, sizeof a);
    a.nblocks = ((size_t)1 << 20) / BF_BLOCK_BYTES;
    a.bits.nbits = a.nblocks * BF_BLOCK_BITS;
    a.k = k;
    a.seed = seed;
    b = a;
    size_t nbytes = bf_bits_nbytes(a.bits.nbits);
    CHECK(nbytes == a.nblocks * BF_BLOCK_BYTES && bf_batch_prefetches(nbytes));
    a.bits.data = aligned_alloc(BF_BLOCK_BYTES, nbytes);
    b.bits.data = aligned_alloc(BF_BLOCK_BYTES, nbytes);
    CHECK(a.bits.data && b.bits.data);
    memset(a.bits.data, 0, nbytes);
    memset(b.bits.data, 0, nbytes);
    uint64_t next = 0;
    for (size_t n = 0; n <= BATCH_MAX; n++) {
        large_round q;
        large_round_start(&q, n, &next, BF_HASH_MURMUR3);
        bf_blocked_add_many(&a, q.add, n);
        for (size_t i = 0; i < n; i++) bf_blocked_add(&b, q.add[i]);
        CHECK(a.count == b.count && memcmp(a.bits.data, b.bits.data, nbytes) == 0);
        bf_blocked_contains_many(&a, q.look, n, q.out);
        for (size_t i = 0; i < n; i++)
            CHECK(q.out[i] == bf_blocked_contains(&b, q.look[i]) && (i >= q.added || q.out[i] == 1));
        large_round_end(&q);
    }
    free(a.bits.data);
    free(b.bits.data);
}

/* Ticks of 0..2 between rounds, and a stale bucket (which ticks never leave)
 * planted under a key not added, so that lookups with clear_expired reset it
 * in the batch as one at a time. */
static void check_prefetching_continuous(uint32_t k, bf_hash_kind kind)
{
    bf_continuous a, b;
    memset(&a, 0, sizeof a);
    uint64_t count = (uint64_t)2 << 20;
    a.k = k;
    a.seed = 7;
    a.hash = kind;
    a.slot = 1;
    size_t nbytes = bf_buckets_nbytes(count, BF_CONT_BITS);
    CHECK(bf_batch_prefetches(nbytes));
    a.buckets.data = calloc(nbytes, 1);
    bf_buckets_init(&a.buckets, count, BF_CONT_BITS);
    b = a;
    b.buckets.data = calloc(nbytes, 1);
    CHECK(a.buckets.data && b.buckets.data);
    uint64_t next = 0;
    for (size_t n = 0; n <= BATCH_MAX; n++) {
        bf_continuous_tick(&a, n % 3);
        bf_continuous_tick(&b, n % 3);
        large_round q;
        large_round_start(&q, n, &next, kind);
        bf_continuous_add_many(&a, q.add, n);
        for (size_t i = 0; i < n; i++) bf_continuous_add(&b, q.add[i]);
        CHECK(memcmp(a.buckets.data, b.buckets.data, nbytes) == 0);
        uint64_t planted = count; /* none */
        if (n >= 2) {
            /* Any slot 3 or more ticks old, in the first bucket of the last
             * key looked up (never added) unless a key just added has it. */
            uint64_t pos[BF_K_MAX], other[BF_K_MAX];
            uint32_t stale = (a.slot - 1 + BF_CONT_DIVISOR + 3) % BF_CONT_SLOTS + 1;
            bf_positions(q.look[n - 1], kind, k, count, pos);
            int shared = 0;
            for (size_t i = 0; i < q.added; i++) {
                bf_positions(q.look[i], kind, k, count, other);
                for (uint32_t j = 0; j < k; j++) shared |= other[j] == pos[0];
            }
            if (!shared) {
                planted = pos[0];
                bf_buckets_set(&a.buckets, planted, stale);
                bf_buckets_set(&b.buckets, planted, stale);
            }
        }
        int clear = (n >> 1) & 1;
        bf_continuous_lookup_many(&a, q.look, n, clear, q.out);
        for (size_t i = 0; i < n; i++)
            CHECK(q.out[i] == bf_continuous_lookup(&b, q.look[i], clear) && (i >= q.added || q.out[i] == 1));
        CHECK(memcmp(a.buckets.data, b.buckets.data, nbytes) == 0);
        /* A key's first bucket is always read, so a stale one there is reset. */
        if (planted < count) CHECK((bf_buckets_get(&a.buckets, planted) == 0) == clear);
        large_round_end(&q);
    }
    free(a.buckets.data);
    free(b.buckets.data);
}

static void check_prefetching_batches(void)
{
    static int done;
    if (done) return;
    done = 1;
    check_prefetching_bloom(7, BF_HASH_MURMUR3);
    check_prefetching_bloom(3, BF_HASH_FNV1A);
    check_prefetching_blocked(8, 0);
    check_prefetching_blocked(13, 99); /* probes past the unrolled eight, a remixed word */
    check_prefetching_continuous(4, BF_HASH_MURMUR3);
    check_prefetching_continuous(7, BF_HASH_FNV1A);
}

/* ------------------------------------------- run of buckets (decrement) */

/* bf_buckets_decrement_run on the bucket field of the header: a run from any
 * start, of any length 0..count, either within the field (flag bit 0 clear:
 * start 0..count, at most to the end) or wrapping at the end as the stable
 * filter calls it (two runs). The model takes 1 from each non-zero bucket. */
MODEL static void buckets_model_dec_run(buckets_state *s, uint64_t first, uint64_t n)
{
    for (uint64_t i = first; i < first + n; i++)
        if (s->model[i]) buckets_store(s, i, s->model[i] - 1);
}

/* The buckets of [first - 3, first + n + 3): the run and its neighbours. */
static void buckets_check_span(const buckets_state *s, uint64_t first, uint64_t n)
{
    uint64_t from = first >= 3 ? first - 3 : 0, to = first + n + 3;
    for (uint64_t j = from; j < s->f.count && j < to; j++) CHECK(bf_buckets_get(&s->f, j) == s->model[j]);
}

static void buckets_dec_run_op(buckets_state *s, reader *r)
{
    uint64_t first = rd_u16(r), n = rd_u16(r);
    uint8_t flags = rd_u8(r);
    if (!s->f.data) return;
    uint64_t count = s->f.count;
    if (flags & 1) { /* wrapping, as bf_stable_add */
        first %= count;
        n %= count + 1;
        uint64_t to_end = count - first;
        if (n <= to_end) {
            bf_buckets_decrement_run(&s->f, first, n);
            buckets_model_dec_run(s, first, n);
            buckets_check_span(s, first, n);
        } else {
            bf_buckets_decrement_run(&s->f, first, to_end);
            bf_buckets_decrement_run(&s->f, 0, n - to_end);
            buckets_model_dec_run(s, first, to_end);
            buckets_model_dec_run(s, 0, n - to_end);
            buckets_check_span(s, first, to_end);
            buckets_check_span(s, 0, n - to_end);
        }
    } else {
        first %= count + 1;          /* first == count: an empty run at the end */
        n %= count - first + 1;
        bf_buckets_decrement_run(&s->f, first, n);
        buckets_model_dec_run(s, first, n);
        buckets_check_span(s, first, n);
    }
    CHECK(bf_buckets_count_nonzero(&s->f) == s->nonzero);
    if (may_scan(r, s->f.count * s->f.width)) buckets_check_image(s->f.data, &s->f, s->model);
}

/* ------------------------------------------------ filters of counters */

/* The five structures below (counting, spectral, bitwise, stable, A2) hash
 * keys with MurmurHash3 only and place them with bf_positions (checked by
 * positions() above). Their models keep cells as plain uint32s. */

#define CELLS_MAX_M 1024     /* counting, spectral (each of the two), stable */
#define BITWISE_MAX_M 512
#define BITWISE_K_MAX 32     /* larger k is the counting and spectral filters' */
#define BITWISE_MAX_LEVELS 16 /* 6 levels take 2^32 adds of a key; more is a bug */
#define A2_MAX_BITS 2048     /* per half */
#define A2_MAX_CAPACITY 48
#define MAX_REPEAT 16        /* adds per counting/spectral add op */
#define BITWISE_MAX_REPEAT 1024
/* Repeated adds (past the first of each op) cost up to this many probes per
 * input, over all structures (a bitwise add costs k per level it may scan):
 * enough to fill a bitwise filter's first five levels at k = 1 (65,809 adds,
 * about 380,000), while each input stays within some 50 ms. */
#define ADD_BUDGET (1u << 19)

/* Whether `cost` more probes of repeated adds may run (and pay for them). */
static int may_add(reader *r, uint64_t cost)
{
    if (cost > r->add_budget) return 0;
    r->add_budget -= cost;
    return 1;
}

static uint64_t ref_splitmix64(uint64_t *state)
{
    /* Steele, Lea and Flood's SplitMix64 as in Vigna's splitmix64.c. */
    uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* bf_key_hash_salted, from bf_counting.h's description and checked against
 * it: each half through fmix64, the salt (times the golden ratio for h1)
 * mixed in. */
static bf_key_hash salted(bf_key_hash h, uint64_t salt)
{
    bf_key_hash got = bf_key_hash_salted(h, salt), want;
    want.h1 = ref_fmix64(h.h1 ^ (salt * 0x9e3779b97f4a7c15ULL));
    want.h2 = ref_fmix64(h.h2 + salt);
    CHECK(got.h1 == want.h1 && got.h2 == want.h2);
    return got;
}

/* Published SplitMix64 outputs (seed 1234567), bf_bitwise_level_width on
 * every level, and a salted hash: once per input, they cost nothing. */
static void check_counter_vectors(void)
{
    static const uint64_t want[3] = {6457827717110365317ULL, 3203168211198807973ULL, 9817491932198370423ULL};
    uint64_t a = 1234567, b = 1234567;
    for (int i = 0; i < 3; i++) {
        CHECK(ref_splitmix64(&a) == want[i]);
        CHECK(bf_splitmix64(&b) == want[i]);
    }
    CHECK(a == b);
    for (unsigned w = 1; w <= BF_BUCKET_WIDTH_MAX; w++)
        for (size_t l = 0; l < 70; l++) {
            uint64_t v = (uint64_t)w << (l < 40 ? l : 40);
            CHECK(bf_bitwise_level_width(w, l) == (v > 32 ? 32 : v));
        }
    CHECK(bf_bitwise_level_width(32, (size_t)-1) == 32);
    bf_key_hash h = {0x0123456789abcdefULL, 0xfedcba9876543210ULL};
    salted(h, 0);
    salted(h, UINT64_MAX);
}

static uint32_t width_max(unsigned width)
{
    return width >= 32 ? 0xffffffffU : (uint32_t)((1ULL << width) - 1);
}

/* The model of bf_cells_*: pos[0..k) in order, a probe repeating a cell
 * sees what the earlier one left. */
MODEL static uint32_t mcells_min(const uint32_t *c, const uint64_t *pos, uint32_t k, uint32_t max)
{
    uint32_t min = max;
    for (uint32_t i = 0; i < k; i++)
        if (c[pos[i]] < min) min = c[pos[i]];
    return min;
}

/* Adds `by` to each cell, stopping at max; returns the cells that got there. */
MODEL static uint64_t mcells_add(uint32_t *c, const uint64_t *pos, uint32_t k, uint32_t by, uint32_t max)
{
    uint64_t reached = 0;
    for (uint32_t i = 0; i < k; i++) {
        uint32_t v = c[pos[i]];
        if (v == max || by == 0) continue;
        uint64_t sum = (uint64_t)v + by;
        c[pos[i]] = sum >= max ? max : (uint32_t)sum;
        reached += c[pos[i]] == max;
    }
    return reached;
}

/* Takes 1 from each cell that is neither 0 nor saturated. */
MODEL static void mcells_remove(uint32_t *c, const uint64_t *pos, uint32_t k, uint32_t max)
{
    for (uint32_t i = 0; i < k; i++)
        if (c[pos[i]] > 0 && c[pos[i]] < max) c[pos[i]]--;
}

/* Whether two different cells (positions) hold the minimum. */
MODEL static int mcells_recurring(const uint32_t *c, const uint64_t *pos, uint32_t k, uint32_t max)
{
    uint32_t min = mcells_min(c, pos, k, max);
    uint64_t seen = UINT64_MAX;
    for (uint32_t i = 0; i < k; i++) {
        if (c[pos[i]] != min) continue;
        if (seen == UINT64_MAX) seen = pos[i];
        else if (pos[i] != seen) return 1;
    }
    return 0;
}

MODEL static uint64_t mcells_nonzero(const uint32_t *c, uint64_t m)
{
    uint64_t n = 0;
    for (uint64_t i = 0; i < m; i++) n += c[i] != 0;
    return n;
}

MODEL static uint64_t mcells_saturated(const uint32_t *c, uint64_t m, uint32_t max)
{
    uint64_t n = 0;
    for (uint64_t i = 0; i < m; i++) n += c[i] == max;
    return n;
}

/* The cells at pos[0..k) of a field equal the model's. */
static void cells_check_at(const bf_buckets *b, const uint32_t *model, const uint64_t *pos, uint32_t k)
{
    for (uint32_t i = 0; i < k; i++) CHECK(bf_buckets_get(b, pos[i]) == model[pos[i]]);
}

/* A field's every cell and its whole byte image against the model. */
MODEL static void cells_check_all(const bf_buckets *b, const uint32_t *model)
{
    for (uint64_t i = 0; i < b->count; i++) CHECK(bf_buckets_get(b, i) == model[i]);
    CHECK(bf_buckets_count_nonzero(b) == mcells_nonzero(model, b->count));
    buckets_check_image(b->data, b, model);
}

/* The distinct keys (by their bytes) a structure was given, with what the
 * lower-bound checks need to know of each. */
typedef struct {
    key_ref key;
    bf_key_hash h;       /* under the structure's seed */
    uint64_t n;          /* true count: adds less deletes while it had any */
    uint64_t sc;         /* RM: what it put into the secondary cells, less what it took */
    uint64_t last;       /* stable: adds so far at its last add; A2: swaps so far at it */
    uint8_t unreliable;  /* RM: it entered the secondary through a false positive */
} tally_entry;

typedef struct {
    tally_entry *items;
    size_t len, cap;
} tally;

static void tally_free(tally *t)
{
    free(t->items);
    memset(t, 0, sizeof *t);
}

/* Index of the key, or -1. */
MODEL static long tally_find(const tally *t, const reader *r, key_ref k, bf_key_hash h)
{
    for (size_t i = 0; i < t->len; i++) {
        const tally_entry *e = &t->items[i];
        if (e->h.h1 == h.h1 && e->h.h2 == h.h2 && e->key.len == k.len &&
            (k.len == 0 || memcmp(key_ptr(r, e->key), key_ptr(r, k), k.len) == 0))
            return (long)i;
    }
    return -1;
}

/* The key's entry, made (all zero) when it is new. */
MODEL static tally_entry *tally_get(tally *t, const reader *r, key_ref k, bf_key_hash h)
{
    long i = tally_find(t, r, k, h);
    if (i >= 0) return &t->items[i];
    if (t->len == t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 32;
        tally_entry *p = realloc(t->items, cap * sizeof *p);
        CHECK(p != NULL);
        t->items = p;
        t->cap = cap;
    }
    tally_entry *e = &t->items[t->len++];
    memset(e, 0, sizeof *e);
    e->key = k;
    e->h = h;
    return e;
}

/* Keys for the structures below: hashed (and checked) under their seed. */
static bf_key_hash mm_hash(const reader *r, key_ref k, uint32_t seed)
{
    return key_hash(key_ptr(r, k), k.len, seed, BF_HASH_MURMUR3);
}

/* ------------------------------------------------------- counting filter */

/* Model: a uint32 per cell, saturating at 2^w - 1, and a saturated cell is
 * never decremented. While every delete was of a key with a true count above
 * 0 (honest), a key's count is at least min(true count, 2^w - 1). */
typedef struct {
    bf_counting f;
    uint32_t *model;
    uint64_t count;     /* adds less successful deletes (never below 0) */
    uint64_t saturated; /* cells that reached the maximum */
    int tainted;        /* a delete of a key with true count 0 was found: others may undercount */
    tally keys;
} counting_state;

static void counting_free(counting_state *s)
{
    free(s->f.cells.data);
    free(s->model);
    tally_free(&s->keys);
    memset(s, 0, sizeof *s);
}

static void counting_init(counting_state *s, reader *r)
{
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
    CHECK(s->f.count == s->count && s->f.saturated == s->saturated);
}

MODEL static void counting_check_all(const counting_state *s, const reader *r)
{
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
    }
    cells_check_at(&s->f.cells, s->model, pos, s->f.k);
    counting_check_counts(s);
    counting_lookup(s, r, k, h);
}

static void counting_op(counting_state *s, unsigned op, reader *r)
{
    switch (op) {
    case 0: { /* add, 1..MAX_REPEAT times */
        key_ref k = rd_key(r);
        unsigned times = 1 + rd_u8(r) % MAX_REPEAT;
        if (!s->f.cells.data) return;
        uint64_t pos[BF_K_MAX];
        bf_key_hash h = mm_hash(r, k, s->f.seed);
        positions(h, BF_HASH_MURMUR3, s->f.k, s->f.cells.count, pos);
        tally_entry *e = tally_get(&s->keys, r, k, h);
        for (unsigned t = 0; t < times; t++) {
            if (t > 0 && !may_add(r, s->f.k)) break;
            bf_counting_add(&s->f, h);
            s->saturated += mcells_add(s->model, pos, s->f.k, 1, s->f.cells.max);
            s->count++;
            e->n++;
        }
        cells_check_at(&s->f.cells, s->model, pos, s->f.k);
        counting_check_counts(s);
        CHECK(counting_lookup(s, r, k, h) > 0);
        break;
    }
    case 1: { /* delete any key */
        key_ref k = rd_key(r);
        if (!s->f.cells.data) return;
        counting_remove(s, r, k, mm_hash(r, k, s->f.seed));
        break;
    }
    case 2: { /* delete a key given before */
        uint8_t which = rd_u8(r);
        if (!s->f.cells.data || s->keys.len == 0) return;
        tally_entry e = s->keys.items[which % s->keys.len];
        counting_remove(s, r, e.key, e.h);
        break;
    }
    case 3: { /* count any key */
        key_ref k = rd_key(r);
        if (!s->f.cells.data) return;
        counting_lookup(s, r, k, mm_hash(r, k, s->f.seed));
        break;
    }
    default: /* everything, while the scan budget lasts */
        if (!s->f.cells.data) return;
        counting_check_counts(s);
        CHECK(bf_buckets_count_nonzero(&s->f.cells) == mcells_nonzero(s->model, s->f.cells.count));
        if (may_scan(r, s->f.cells.count * s->f.cells.width + (uint64_t)s->keys.len * s->f.k * 8))
            counting_check_all(s, r);
        break;
    }
}

/* ------------------------------------------------------- spectral filter */

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
#define RM_SALT 1 /* bf_counting.c's SECONDARY_SALT */

typedef struct {
    bf_spectral f;
    uint32_t *pmodel, *smodel; /* smodel: RM only */
    uint64_t pcount, psat, scount, ssat;
    int ptaint, staint;  /* a false positive deleted from the primary / the secondary */
    tally keys;
} spectral_state;

static void spectral_free(spectral_state *s)
{
    free(s->f.primary.cells.data);
    free(s->f.secondary.cells.data);
    free(s->pmodel);
    free(s->smodel);
    tally_free(&s->keys);
    memset(s, 0, sizeof *s);
}

static void spectral_init(spectral_state *s, reader *r)
{
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

/* One add on the model. */
MODEL static void spectral_model_add(spectral_state *s, tally_entry *e, const uint64_t *pos, const uint64_t *spos)
{
    uint32_t k = s->f.primary.k, max = s->f.primary.cells.max;
    e->n++;
    s->pcount++;
    if (!spectral_rm(s)) { /* minimum increase: each cell holding the minimum, once */
        uint32_t min = mcells_min(s->pmodel, pos, k, max);
        if (min == max) return;
        for (uint32_t i = 0; i < k; i++) {
            if (s->pmodel[pos[i]] != min) continue;
            s->pmodel[pos[i]] = min + 1;
            s->psat += min + 1 == max;
        }
        return;
    }
    s->psat += mcells_add(s->pmodel, pos, k, 1, max);
    int recurring = mcells_recurring(s->pmodel, pos, k, max);
    uint32_t in_secondary = mcells_min(s->smodel, spos, k, max);
    /* What the key put into its secondary cells is all still there (or
     * saturated) unless a false positive took from them. */
    if (e->sc > 0 && !s->staint) CHECK(in_secondary > 0);
    if (recurring && !in_secondary) return;
    if (in_secondary && e->sc == 0) e->unreliable = 1;
    uint32_t by = in_secondary ? 1 : mcells_min(s->pmodel, pos, k, max);
    s->ssat += mcells_add(s->smodel, spos, k, by, max);
    s->scount++;
    e->sc += by;
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
}

MODEL static void spectral_check_all(const spectral_state *s, const reader *r)
{
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

static void spectral_op(spectral_state *s, unsigned op, reader *r)
{
    switch (op) {
    case 0: { /* add, 1..MAX_REPEAT times */
        key_ref k = rd_key(r);
        unsigned times = 1 + rd_u8(r) % MAX_REPEAT;
        if (!s->f.primary.cells.data) return;
        uint64_t pos[BF_K_MAX], spos[BF_K_MAX];
        bf_key_hash h = mm_hash(r, k, s->f.primary.seed);
        spectral_positions(s, h, pos, spos);
        tally_entry *e = tally_get(&s->keys, r, k, h);
        for (unsigned t = 0; t < times; t++) {
            if (t > 0 && !may_add(r, 2 * s->f.primary.k)) break;
            bf_spectral_add(&s->f, h);
            spectral_model_add(s, e, pos, spos);
        }
        cells_check_at(&s->f.primary.cells, s->pmodel, pos, s->f.primary.k);
        if (spectral_rm(s)) cells_check_at(&s->f.secondary.cells, s->smodel, spos, s->f.secondary.k);
        spectral_check_counts(s);
        spectral_lookup(s, r, k, h);
        CHECK(bf_spectral_contains(&s->f, h));
        break;
    }
    case 1: { /* delete any key */
        key_ref k = rd_key(r);
        if (!s->f.primary.cells.data) return;
        spectral_remove(s, r, k, mm_hash(r, k, s->f.primary.seed));
        break;
    }
    case 2: { /* delete a key given before */
        uint8_t which = rd_u8(r);
        if (!s->f.primary.cells.data || s->keys.len == 0) return;
        tally_entry e = s->keys.items[which % s->keys.len];
        spectral_remove(s, r, e.key, e.h);
        break;
    }
    case 3: { /* count any key */
        key_ref k = rd_key(r);
        if (!s->f.primary.cells.data) return;
        spectral_lookup(s, r, k, mm_hash(r, k, s->f.primary.seed));
        break;
    }
    default:
        if (!s->f.primary.cells.data) return;
        spectral_check_counts(s);
        if (may_scan(r, (s->f.primary.cells.count + s->f.secondary.cells.count) * s->f.primary.cells.width +
                            (uint64_t)s->keys.len * s->f.primary.k * 16))
            spectral_check_all(s, r);
        break;
    }
}

/* ------------------------------------------------------- bitwise filter */

/* Model: a uint32 array per level, level l's cells min(32, width * 2^l)
 * bits; an add lands on the first level where one of the key's cells is
 * below the maximum, and when there is none the harness appends a level as
 * the binding does (add_level in bitwise_bloom_filter.c). A key's count is
 * never below its number of adds. */
typedef struct {
    bf_bitwise f;
    uint32_t *model[BITWISE_MAX_LEVELS];
    size_t nlevels;
    uint64_t count;
    tally keys;
} bitwise_state;

MODEL static unsigned model_level_width(unsigned width, size_t level)
{
    uint64_t w = width;
    for (size_t l = 0; l < level && w < 32; l++) w *= 2;
    return w > 32 ? 32 : (unsigned)w;
}

static void bitwise_free(bitwise_state *s)
{
    for (size_t i = 0; i < s->f.nlevels; i++) free(s->f.levels[i].data);
    free(s->f.levels);
    for (size_t i = 0; i < BITWISE_MAX_LEVELS; i++) free(s->model[i]);
    tally_free(&s->keys);
    memset(s, 0, sizeof *s);
}

/* The binding's add_level: level nlevels, zeroed, of bf_bitwise_level_width. */
static void bitwise_add_level(bitwise_state *s)
{
    bf_bitwise *f = &s->f;
    CHECK(f->nlevels == s->nlevels && s->nlevels < BITWISE_MAX_LEVELS);
    unsigned width = bf_bitwise_level_width(f->width, f->nlevels);
    CHECK(width == model_level_width(f->width, f->nlevels));
    size_t nbytes = bf_buckets_nbytes(f->m, width);
    CHECK(nbytes != 0);
    bf_buckets *levels = realloc(f->levels, (f->nlevels + 1) * sizeof *levels);
    CHECK(levels != NULL);
    f->levels = levels;
    bf_buckets *level = &f->levels[f->nlevels];
    level->data = calloc(nbytes, 1);
    CHECK(level->data != NULL);
    bf_buckets_init(level, f->m, width);
    f->nlevels++;
    s->model[s->nlevels] = calloc((size_t)f->m, sizeof(uint32_t));
    CHECK(s->model[s->nlevels] != NULL);
    s->nlevels++;
}

static void bitwise_init(bitwise_state *s, reader *r)
{
    bitwise_free(s);
    s->f.m = 1 + rd_u16(r) % BITWISE_MAX_M;
    s->f.width = 1 + rd_u8(r) % BF_BUCKET_WIDTH_MAX;
    s->f.k = 1 + rd_u8(r) % BITWISE_K_MAX;
    s->f.seed = rd_u32(r);
    bitwise_add_level(s);
}

/* A key's cells on every level so far (level 0 by its hash, level l by the
 * hash salted with 1 + l), filled in as needed. */
typedef struct {
    uint64_t pos[BITWISE_MAX_LEVELS][BF_K_MAX];
    size_t have;
} level_positions;

MODEL static const uint64_t *bitwise_pos(const bitwise_state *s, bf_key_hash h, level_positions *lp, size_t level)
{
    while (lp->have <= level) {
        size_t l = lp->have++;
        positions(l ? salted(h, RM_SALT + l) : h, BF_HASH_MURMUR3, s->f.k, s->f.m, lp->pos[l]);
    }
    return lp->pos[level];
}

MODEL static uint32_t level_max(const bitwise_state *s, size_t level)
{
    return width_max(model_level_width(s->f.width, level));
}

MODEL static size_t bitwise_model_target(const bitwise_state *s, bf_key_hash h, level_positions *lp)
{
    for (size_t l = 0; l < s->nlevels; l++)
        if (mcells_min(s->model[l], bitwise_pos(s, h, lp, l), s->f.k, level_max(s, l)) < level_max(s, l)) return l;
    return s->nlevels;
}

static uint64_t bitwise_lookup(const bitwise_state *s, const reader *r, key_ref k, bf_key_hash h)
{
    level_positions lp;
    lp.have = 0;
    uint64_t want = 0;
    for (size_t l = 0; l < s->nlevels; l++) {
        uint32_t max = level_max(s, l), min = mcells_min(s->model[l], bitwise_pos(s, h, &lp, l), s->f.k, max);
        want += min;
        if (min < max) break;
    }
    CHECK(bf_bitwise_count(&s->f, h) == want);
    long i = tally_find(&s->keys, r, k, h);
    if (i >= 0) CHECK(want >= s->keys.items[i].n);
    return want;
}

static void bitwise_check_counts(const bitwise_state *s)
{
    CHECK(s->f.count == s->count && s->f.nlevels == s->nlevels);
    for (size_t l = 0; l < s->nlevels; l++) {
        const bf_buckets *b = &s->f.levels[l];
        CHECK(b->count == s->f.m && b->width == model_level_width(s->f.width, l) && b->max == level_max(s, l));
    }
}

MODEL static void bitwise_check_all(const bitwise_state *s, const reader *r)
{
    if (!s->f.levels) return;
    bitwise_check_counts(s);
    for (size_t i = 0; i < s->keys.len; i++) bitwise_lookup(s, r, s->keys.items[i].key, s->keys.items[i].h);
    for (size_t l = 0; l < s->nlevels; l++) cells_check_all(&s->f.levels[l], s->model[l]);
}

/* Adds of one key, each on the level the model picks (a new one appended
 * as the binding does); returns the level of the last. Model code: the
 * loop runs up to BITWISE_MAX_REPEAT times. */
MODEL static size_t bitwise_add_times(bitwise_state *s, reader *r, bf_key_hash h, tally_entry *e, unsigned times,
                                      level_positions *lp)
{
    size_t level = 0;
    for (unsigned t = 0; t < times; t++) {
        if (t > 0 && !may_add(r, (uint64_t)s->f.k * (s->nlevels + 1))) break;
        size_t want = bitwise_model_target(s, h, lp);
        level = bf_bitwise_target_level(&s->f, h);
        CHECK(level == want);
        if (level == s->f.nlevels) bitwise_add_level(s);
        bf_bitwise_add_at(&s->f, h, level);
        mcells_add(s->model[level], bitwise_pos(s, h, lp, level), s->f.k, 1, level_max(s, level));
        s->count++;
        e->n++;
    }
    return level;
}

static void bitwise_op(bitwise_state *s, unsigned op, reader *r)
{
    switch (op) {
    case 0: { /* add 1..BITWISE_MAX_REPEAT times, mostly few: the low 10 bits
               * of a u16, shifted right by (its top 6 bits) % 11 */
        key_ref k = rd_key(r);
        uint16_t t = rd_u16(r);
        unsigned times = 1 + ((t % BITWISE_MAX_REPEAT) >> ((t / BITWISE_MAX_REPEAT) % 11));
        if (!s->f.levels) return;
        bf_key_hash h = mm_hash(r, k, s->f.seed);
        tally_entry *e = tally_get(&s->keys, r, k, h);
        level_positions lp;
        lp.have = 0;
        size_t level = bitwise_add_times(s, r, h, e, times, &lp);
        cells_check_at(&s->f.levels[level], s->model[level], bitwise_pos(s, h, &lp, level), s->f.k);
        bitwise_check_counts(s);
        CHECK(bitwise_lookup(s, r, k, h) >= e->n);
        break;
    }
    case 1: { /* count any key */
        key_ref k = rd_key(r);
        if (!s->f.levels) return;
        bitwise_lookup(s, r, k, mm_hash(r, k, s->f.seed));
        break;
    }
    default: {
        if (!s->f.levels) return;
        bitwise_check_counts(s);
        uint64_t cost = (uint64_t)s->keys.len * s->f.k * 8 * s->nlevels;
        for (size_t l = 0; l < s->nlevels; l++) cost += s->f.m * s->f.levels[l].width;
        if (may_scan(r, cost)) bitwise_check_all(s, r);
        break;
    }
    }
}

/* ------------------------------------------------------- stable filter */

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
    tally keys;      /* last: adds so far at the key's last add */
} stable_state;

static void stable_free(stable_state *s)
{
    free(s->f.cells.data);
    free(s->model);
    tally_free(&s->keys);
    memset(s, 0, sizeof *s);
}

static void stable_init(stable_state *s, reader *r)
{
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

MODEL static void stable_check_all(const stable_state *s, const reader *r)
{
    if (!s->f.cells.data) return;
    CHECK(s->f.count == s->adds && s->f.random == s->random);
    for (size_t i = 0; i < s->keys.len; i++) stable_lookup(s, r, s->keys.items[i].key, s->keys.items[i].h);
    cells_check_all(&s->f.cells, s->model);
}

static void stable_op(stable_state *s, unsigned op, reader *r)
{
    switch (op) {
    case 0: { /* add */
        key_ref k = rd_key(r);
        if (!s->f.cells.data) return;
        uint64_t pos[BF_K_MAX], m = s->f.cells.count, d = s->f.d;
        uint32_t max = s->f.cells.max;
        bf_key_hash h = mm_hash(r, k, s->f.seed);
        positions(h, BF_HASH_MURMUR3, s->f.k, m, pos);
        uint64_t start = (uint64_t)(((fuzz_u128)ref_splitmix64(&s->random) * m) >> 64);
        bf_stable_add(&s->f, h);
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
        break;
    }
    case 1: { /* contains any key */
        key_ref k = rd_key(r);
        if (!s->f.cells.data) return;
        stable_lookup(s, r, k, mm_hash(r, k, s->f.seed));
        break;
    }
    default:
        if (!s->f.cells.data) return;
        CHECK(s->f.count == s->adds && s->f.random == s->random);
        CHECK(bf_buckets_count_nonzero(&s->f.cells) == mcells_nonzero(s->model, s->f.cells.count));
        if (may_scan(r, s->f.cells.count * s->f.cells.width + (uint64_t)s->keys.len * s->f.k * 8))
            stable_check_all(s, r);
        break;
    }
}

/* ----------------------------------------------------------- A2 filter */

/* Model: two halves, a byte per bit. An add of a key not in the active half
 * first swaps when the active half holds `capacity` keys (the other half is
 * cleared and becomes the active one), then sets the key's bits there. A key
 * added since the last swap or in the epoch before is always found. */
typedef struct {
    bf_a2 f;
    uint8_t *model[2];
    unsigned active;
    uint64_t in_active, count, swaps;
    tally keys; /* last: swaps so far at the key's last add */
} a2_state;

static void a2_free(a2_state *s)
{
    for (int i = 0; i < 2; i++) {
        free(s->f.halves[i].data);
        free(s->model[i]);
    }
    tally_free(&s->keys);
    memset(s, 0, sizeof *s);
}

static void a2_init(a2_state *s, reader *r)
{
    a2_free(s);
    uint64_t nbits = 1 + rd_u16(r) % A2_MAX_BITS;
    uint32_t k = 1 + rd_u8(r) % BF_K_MAX;
    uint64_t capacity = 1 + rd_u8(r) % A2_MAX_CAPACITY;
    uint32_t seed = rd_u32(r);
    /* The binding has both halves in one block; apart here, so that ASan
     * sees an overrun of the first. */
    for (int i = 0; i < 2; i++) {
        s->f.halves[i].data = calloc(bf_bits_nbytes(nbits), 1);
        s->f.halves[i].nbits = nbits;
        s->model[i] = calloc((size_t)nbits, 1);
        CHECK(s->f.halves[i].data && s->model[i]);
    }
    s->f.k = k;
    s->f.seed = seed;
    s->f.capacity = capacity;
}

MODEL static int a2_model_half(const a2_state *s, unsigned half, const uint64_t *pos)
{
    for (uint32_t i = 0; i < s->f.k; i++)
        if (!s->model[half][pos[i]]) return 0;
    return 1;
}

static void a2_check_counts(const a2_state *s)
{
    CHECK(s->f.active == s->active && s->f.in_active == s->in_active);
    CHECK(s->f.count == s->count && s->f.swaps == s->swaps);
}

/* A half's whole byte image, padding zero. */
MODEL static void a2_check_half(const a2_state *s, unsigned half)
{
    const bf_bits *b = &s->f.halves[half];
    size_t nbytes = bf_bits_nbytes(b->nbits);
    uint64_t ones = 0;
    for (size_t j = 0; j < nbytes; j++) {
        uint8_t want = 0;
        for (unsigned bit = 0; bit < 8; bit++) {
            uint64_t i = (uint64_t)j * 8 + bit;
            if (i < b->nbits && s->model[half][i]) {
                want |= (uint8_t)(1u << bit);
                ones++;
            }
        }
        CHECK(b->data[j] == want);
    }
    CHECK(bf_bits_count(b) == ones);
}

static int a2_lookup(const a2_state *s, const reader *r, key_ref k, bf_key_hash h)
{
    uint64_t pos[BF_K_MAX];
    positions(h, BF_HASH_MURMUR3, s->f.k, s->f.halves[0].nbits, pos);
    int want = a2_model_half(s, 0, pos) || a2_model_half(s, 1, pos);
    CHECK(bf_a2_contains(&s->f, h) == want);
    long i = tally_find(&s->keys, r, k, h);
    if (i >= 0 && s->swaps - s->keys.items[i].last <= 1) CHECK(want);
    return want;
}

MODEL static void a2_check_all(const a2_state *s, const reader *r)
{
    if (!s->f.halves[0].data) return;
    a2_check_counts(s);
    for (size_t i = 0; i < s->keys.len; i++) a2_lookup(s, r, s->keys.items[i].key, s->keys.items[i].h);
    a2_check_half(s, 0);
    a2_check_half(s, 1);
}

static void a2_op(a2_state *s, unsigned op, reader *r)
{
    switch (op) {
    case 0: { /* add */
        key_ref k = rd_key(r);
        if (!s->f.halves[0].data) return;
        uint64_t pos[BF_K_MAX];
        bf_key_hash h = mm_hash(r, k, s->f.seed);
        positions(h, BF_HASH_MURMUR3, s->f.k, s->f.halves[0].nbits, pos);
        bf_a2_add(&s->f, h);
        s->count++;
        int swapped = 0;
        if (!a2_model_half(s, s->active, pos)) {
            if (s->in_active >= s->f.capacity) {
                s->active ^= 1;
                memset(s->model[s->active], 0, (size_t)s->f.halves[0].nbits);
                s->in_active = 0;
                s->swaps++;
                swapped = 1;
            }
            for (uint32_t i = 0; i < s->f.k; i++) s->model[s->active][pos[i]] = 1;
            s->in_active++;
        }
        tally_get(&s->keys, r, k, h)->last = s->swaps;
        a2_check_counts(s);
        /* The half just cleared holds this key's bits only. */
        if (swapped && may_scan(r, s->f.halves[0].nbits)) a2_check_half(s, s->active);
        for (uint32_t i = 0; i < s->f.k; i++)
            for (unsigned half = 0; half < 2; half++)
                CHECK(bf_bits_get(&s->f.halves[half], pos[i]) == s->model[half][pos[i]]);
        CHECK(a2_lookup(s, r, k, h));
        break;
    }
    case 1: { /* contains any key */
        key_ref k = rd_key(r);
        if (!s->f.halves[0].data) return;
        a2_lookup(s, r, k, mm_hash(r, k, s->f.seed));
        break;
    }
    default:
        if (!s->f.halves[0].data) return;
        a2_check_counts(s);
        if (may_scan(r, 2 * s->f.halves[0].nbits + (uint64_t)s->keys.len * s->f.k * 8)) a2_check_all(s, r);
        break;
    }
}

/* ------------------------------------------------------------------ main */

enum {
    OP_BITS_SET, OP_BITS_CLEAR, OP_BITS_GET, OP_BITS_CHECK,
    OP_BK_SET, OP_BK_GET, OP_BK_INC, OP_BK_DEC, OP_BK_CHECK,
    OP_BLOOM_ADD, OP_BLOOM_CONTAINS, OP_BLOOM_RECENT,
    OP_CONT_ADD, OP_CONT_TICK, OP_CONT_LOOKUP, OP_CONT_TICK_BIG,
    OP_HASH, OP_POSITIONS, OP_REINIT, OP_NBYTES,
    OP_BLOOM_BATCH, OP_CONT_BATCH, OP_BLOCKED_ADD, OP_BLOCKED_CONTAINS, OP_BLOCKED_BATCH, OP_BLOCKED_SIZE,
    OP_BLOCKED_RECENT, OP_BLOCKED_RATE,
    OP_BK_DEC_RUN,
    OP_CNT_ADD, OP_CNT_REMOVE, OP_CNT_REMOVE_KNOWN, OP_CNT_COUNT, OP_CNT_CHECK,
    OP_SPEC_ADD, OP_SPEC_REMOVE, OP_SPEC_REMOVE_KNOWN, OP_SPEC_COUNT, OP_SPEC_CHECK,
    OP_BW_ADD, OP_BW_COUNT, OP_BW_CHECK,
    OP_ST_ADD, OP_ST_CONTAINS, OP_ST_CHECK,
    OP_A2_ADD, OP_A2_CONTAINS, OP_A2_CHECK,
    OP_COUNT
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    reader r = {data, size, 0, SCAN_BUDGET, 0, 0, 0, ADD_BUDGET};
    bits_state bits;
    buckets_state buckets;
    bloom_state bloom;
    cont_state cont;
    blocked_state blocked;
    counting_state counting;
    spectral_state spectral;
    bitwise_state bitwise;
    stable_state stable;
    a2_state a2;
    memset(&counting, 0, sizeof counting);
    memset(&spectral, 0, sizeof spectral);
    memset(&bitwise, 0, sizeof bitwise);
    memset(&stable, 0, sizeof stable);
    memset(&a2, 0, sizeof a2);
    memset(&blocked, 0, sizeof blocked);
    memset(&bits, 0, sizeof bits);
    memset(&buckets, 0, sizeof buckets);
    memset(&bloom, 0, sizeof bloom);
    memset(&cont, 0, sizeof cont);

    check_vectors();
    check_counter_vectors();
    check_prefetching_batches();

    /* Header: 2 + 3 + 8 + 8 + 6 bytes, then 8 + 11 + 8 + 18 + 8. */
    bits_init(&bits, &r);
    buckets_init(&buckets, &r);
    bloom_init(&bloom, &r);
    cont_init(&cont, &r);
    blocked_init(&blocked, &r);
    counting_init(&counting, &r);
    spectral_init(&spectral, &r);
    bitwise_init(&bitwise, &r);
    stable_init(&stable, &r);
    a2_init(&a2, &r);

    while (r.pos < r.size) {
        unsigned op = rd_u8(&r) % OP_COUNT;
        switch (op) {
        case OP_BITS_SET: case OP_BITS_CLEAR: case OP_BITS_GET:
            bits_op(&bits, op - OP_BITS_SET, &r);
            break;
        case OP_BITS_CHECK:
            bits_check(&bits, &r);
            break;
        case OP_BK_SET: case OP_BK_GET: case OP_BK_INC: case OP_BK_DEC:
            buckets_op(&buckets, op - OP_BK_SET, &r);
            break;
        case OP_BK_CHECK:
            buckets_check(&buckets, &r);
            break;
        case OP_BLOOM_ADD: case OP_BLOOM_CONTAINS: case OP_BLOOM_RECENT:
            bloom_op(&bloom, op - OP_BLOOM_ADD, &r);
            break;
        case OP_CONT_ADD: case OP_CONT_TICK: case OP_CONT_LOOKUP: case OP_CONT_TICK_BIG:
            cont_op(&cont, op - OP_CONT_ADD, &r);
            break;
        case OP_HASH:
            hash_op(&r);
            break;
        case OP_POSITIONS:
            positions_op(&r);
            break;
        case OP_REINIT: { /* check one structure in full, then start it over */
            unsigned which = rd_u8(&r) % 10;
            if (r.reinits++ >= MAX_REINITS) break; /* the header bytes then read as ops */
            switch (which) {
            case 0: bits_check(&bits, NULL); bits_init(&bits, &r); break;
            case 1: buckets_check(&buckets, NULL); buckets_init(&buckets, &r); break;
            case 2: bloom_final(&bloom, &r); bloom_init(&bloom, &r); break;
            case 4: blocked_final(&blocked, &r); blocked_init(&blocked, &r); break;
            case 5: counting_check_all(&counting, &r); counting_init(&counting, &r); break;
            case 6: spectral_check_all(&spectral, &r); spectral_init(&spectral, &r); break;
            case 7: bitwise_check_all(&bitwise, &r); bitwise_init(&bitwise, &r); break;
            case 8: stable_check_all(&stable, &r); stable_init(&stable, &r); break;
            case 9: a2_check_all(&a2, &r); a2_init(&a2, &r); break;
            default:
                if (cont.f.buckets.data) {
                    cont_check_all(&cont, NULL);
                    cont_check_keys(&cont, &r);
                }
                cont_init(&cont, &r);
                break;
            }
            break;
        }
        case OP_NBYTES:
            nbytes_op(&r);
            break;
        case OP_BLOOM_BATCH:
            bloom_batch_op(&bloom, &r);
            break;
        case OP_CONT_BATCH:
            cont_batch_op(&cont, &r);
            break;
        case OP_BLOCKED_ADD: case OP_BLOCKED_CONTAINS: case OP_BLOCKED_BATCH:
            blocked_op(&blocked, op - OP_BLOCKED_ADD, &r);
            break;
        case OP_BLOCKED_SIZE:
            blocked_size_op(&r);
            break;
        case OP_BLOCKED_RECENT:
            blocked_recent(&blocked, &r);
            break;
        case OP_BLOCKED_RATE:
            blocked_fpr_op(&r);
            break;
        case OP_BK_DEC_RUN:
            buckets_dec_run_op(&buckets, &r);
            break;
        case OP_CNT_ADD: case OP_CNT_REMOVE: case OP_CNT_REMOVE_KNOWN: case OP_CNT_COUNT: case OP_CNT_CHECK:
            counting_op(&counting, op - OP_CNT_ADD, &r);
            break;
        case OP_SPEC_ADD: case OP_SPEC_REMOVE: case OP_SPEC_REMOVE_KNOWN: case OP_SPEC_COUNT: case OP_SPEC_CHECK:
            spectral_op(&spectral, op - OP_SPEC_ADD, &r);
            break;
        case OP_BW_ADD: case OP_BW_COUNT: case OP_BW_CHECK:
            bitwise_op(&bitwise, op - OP_BW_ADD, &r);
            break;
        case OP_ST_ADD: case OP_ST_CONTAINS: case OP_ST_CHECK:
            stable_op(&stable, op - OP_ST_ADD, &r);
            break;
        case OP_A2_ADD: case OP_A2_CONTAINS: case OP_A2_CHECK:
            a2_op(&a2, op - OP_A2_ADD, &r);
            break;
        }
    }

    bits_check(&bits, NULL);
    buckets_check(&buckets, NULL);
    bloom_final(&bloom, &r);
    if (cont.f.buckets.data) {
        cont_check_all(&cont, NULL);
        cont_check_keys(&cont, &r);
    }

    counting_check_all(&counting, &r);
    spectral_check_all(&spectral, &r);
    bitwise_check_all(&bitwise, &r);
    stable_check_all(&stable, &r);
    a2_check_all(&a2, &r);

    bits_free(&bits);
    buckets_free(&buckets);
    counting_free(&counting);
    spectral_free(&spectral);
    bitwise_free(&bitwise);
    stable_free(&stable);
    a2_free(&a2);
    blocked_final(&blocked, &r);
    bloom_free(&bloom);
    cont_free(&cont);
    blocked_free(&blocked);
    return 0;
}
