/* libFuzzer harness for bloomc's C core (ext/bloomc/bf_*.c).
 *
 * The input is a little program.  A header sizes one of each structure (bit
 * field, bucket field, plain Bloom filter, continuous filter, blocked filter,
 * counting filter, spectral filter (MI or RM), bitwise filter, stable filter,
 * A2 filter, scalable filter, cuckoo filter); then every opcode byte picks one operation and reads its
 * operands from the bytes that follow.  Each structure is shadowed by a plain
 * model kept here (a byte per bit, a uint32 per bucket or cell, an "age in
 * ticks" per continuous bucket, ...) and every result is checked against it;
 * any mismatch traps.  The binary fuse filter, static, has no header: its ops
 * build one from hashes of the input and check it against the set it was
 * built from.  The filters of counters also check the guarantees their
 * headers promise (counts never below the true count, recent keys found)
 * against the true history of the keys.  Reads past the end of the input
 * yield zeros, so every input is a valid program.
 *
 * Most structures may get a twin of the same shape (empty, driven by its own
 * ops, or a copy of the first); the combine ops merge one into the other and
 * check the result cell by cell against the merged models and the merged
 * histories of the keys (see "twins" and "merges" below).  CRC-32C is checked
 * against a bitwise reference over slices of the input and runs of zeros;
 * padding checks plant bits past the end; planted slots make continuous
 * filters invalid as state read from outside may be.
 *
 * The words of the input (the kinds, the header's order, the padding
 * targets, the opcodes and the handler of each) are listed once, in
 * fuzz/ops.h, which fuzz/make_corpus.rb reads too. Every kind is driven
 * through one fuzz_model; the harness at the end does everything it does
 * with all kinds the same way over those.
 *
 * Build and run: `rake fuzz` (see the Rakefile), or by hand:
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
 *     -I ext/bloomc fuzz/fuzz_core.c ext/bloomc/bf_bits.c ext/bloomc/bf_buckets.c \
 *     ext/bloomc/bf_hash.c ext/bloomc/bf_bloom.c ext/bloomc/bf_blocked.c \
 *     ext/bloomc/bf_continuous.c ext/bloomc/bf_counting.c ext/bloomc/bf_stable.c \
 *     ext/bloomc/bf_a2.c ext/bloomc/bf_crc32c.c ext/bloomc/bf_scalable.c \
 *     ext/bloomc/bf_cuckoo.c ext/bloomc/bf_fuse.c -o tmp/fuzz_core
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

#include <math.h>
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
#include "bf_crc32c.h"
#include "bf_cuckoo.h"
#include "bf_fuse.h"
#include "bf_hash.h"
#include "bf_probe.h"
#include "bf_scalable.h"
#include "bf_stable.h"
#include "ops.h"

#ifndef FUZZ_HAVE_INT128
#error "the harness's reference probe positions need unsigned __int128"
#endif
__extension__ typedef unsigned __int128 fuzz_u128;

/* Any mismatch with the model: stop right here so libFuzzer records the input
 * and the stack shows which check failed. */
#define CHECK(cond) \
    do { \
        if (!(cond)) abort(); \
    } while (0)

/* Model bookkeeping and whole-structure scans are kept out of libFuzzer's
 * coverage and comparison tracing: they would cost most of the run time and
 * only add noise to the feedback, which should come from the core. */
#if defined(__clang__) && __clang_major__ >= 13
#define MODEL __attribute__((no_sanitize("coverage")))
#else
#define MODEL
#endif

/* The structures, numbered as ops.h lists them. */
#define KIND_NUMBER(kind, model) KIND_##kind,
typedef enum { FUZZ_KINDS(KIND_NUMBER) STRUCTURES } structure_kind;
#undef KIND_NUMBER

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
/* A rate spot check costs up to ~15 ms here (three bf_blocked_fpr calls at a
 * million keys per block), most far less. */
#define MAX_RATES 4

/* ------------------------------------------------------------------ input */

/* The input, and what it has spent so far of what one input may: all zero
 * at its start, each limit beside the code that spends it. */
typedef struct {
    const uint8_t *data;
    size_t size, pos;
    uint64_t scanned; /* see SCAN_BUDGET */
    unsigned reinits;
    unsigned sizings;       /* blocked-filter sizings (milliseconds each): one per input */
    unsigned rates;         /* blocked-filter rate spot checks, see MAX_RATES */
    uint64_t repeated_adds; /* probes of repeated adds, see ADD_BUDGET */
    unsigned merges;        /* merges of twins, see MAX_MERGES */
    unsigned plants;        /* slots planted in continuous filters, see MAX_PLANTS */
    uint64_t crc_bytes;     /* bytes checksummed, see CRC_BUDGET */
    uint64_t cuckoo_adds;   /* cuckoo adds past an op's first, see CUCKOO_BUDGET */
    uint64_t fuse_keys;     /* keys of binary fuse builds, see FUSE_BUDGET */
} reader;

/* Whether a mid-program scan costing `cost` may run (and pay for it). */
static int may_scan(reader *r, uint64_t cost)
{
    if (cost > SCAN_BUDGET - r->scanned) return 0;
    r->scanned += cost;
    return 1;
}

static uint8_t rd_u8(reader *r)
{
    return r->pos < r->size ? r->data[r->pos++] : 0;
}

/* The twin ops' structure: a byte % STRUCTURES, the kind itself. */
static structure_kind rd_kind(reader *r)
{
    return (structure_kind)(rd_u8(r) % STRUCTURES);
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

/* A structure kind as the harness drives it: what it does with every kind
 * the same way. */
typedef struct {
    size_t state_size; /* the structure, its model and its keys */
    /* A new structure from the header's fields, the old one freed. */
    void (*init)(void *s, reader *r);
    /* Everything against the model, as at the end of the input: spends no
     * budget, and reads the input only for the keys it was given. */
    void (*check)(void *s, const reader *r);
    void (*free)(void *s);
    /* OP_TWIN_MAKE: t anew, empty of s's shape or (mode bit 0) a copy. */
    void (*twin)(void *t, const void *s, uint8_t mode, reader *r);
    /* OP_MERGE: src merged into dst as flags say. */
    void (*merge)(void *dst, void *src, uint8_t flags, reader *r);
    /* OP_TAIL: bits planted in the padding (NULL: not a target). */
    void (*tail)(void *s, uint16_t off, uint8_t flags);
} fuzz_model;

/* Every op's handler, as ops.h names it. */
#define DECLARE_STRUCTURE_OP(name, kind, handler) static void handler(void *s, reader *r);
#define DECLARE_INPUT_OP(name, handler) static void handler(reader *r);
FUZZ_OPS(DECLARE_STRUCTURE_OP, DECLARE_STRUCTURE_OP, DECLARE_INPUT_OP)
#undef DECLARE_STRUCTURE_OP
#undef DECLARE_INPUT_OP

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
        k1 *= c1;
        k1 = ref_rotl64(k1, 31);
        k1 *= c2;
        h1 ^= k1;
        h1 = ref_rotl64(h1, 27);
        h1 += h2;
        h1 = h1 * 5 + 0x52dce729;
        k2 *= c2;
        k2 = ref_rotl64(k2, 33);
        k2 *= c1;
        h2 ^= k2;
        h2 = ref_rotl64(h2, 31);
        h2 += h1;
        h2 = h2 * 5 + 0x38495ab5;
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
        k2 *= c2;
        k2 = ref_rotl64(k2, 33);
        k2 *= c1;
        h2 ^= k2;
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
        k1 *= c1;
        k1 = ref_rotl64(k1, 31);
        k1 *= c2;
        h1 ^= k1;
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
 * murmur3_mixed  the same x_i,  floor(fmix64(x_i)*m/2^64);
 * fnv1a  x_i = h1 + h2*(i + 1),  x_i mod m. */
static void ref_positions(bf_key_hash h, bf_hash_kind kind, uint32_t k, uint64_t m, uint64_t *out)
{
    for (uint64_t i = 0; i < k; i++) {
        if (kind == BF_HASH_FNV1A) {
            out[i] = (h.h1 + h.h2 * (i + 1)) % m;
        } else {
            uint64_t x = h.h1 + i * h.h2 + (i * i * i - i) / 6;
            if (kind == BF_HASH_MURMUR3_MIXED) x = ref_fmix64(x);
            out[i] = (uint64_t)(((fuzz_u128)x * m) >> 64);
        }
    }
}

/* One of the three probe layouts, from a byte. */
static bf_hash_kind hash_kind_of(uint8_t b)
{
    return b % 3 == 0 ? BF_HASH_MURMUR3 : b % 3 == 1 ? BF_HASH_FNV1A
                                                     : BF_HASH_MURMUR3_MIXED;
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

static void bits_free(void *state)
{
    bits_state *s = state;
    free(s->f.data);
    free(s->model);
    memset(s, 0, sizeof *s);
}

static void bits_init(void *state, reader *r)
{
    bits_state *s = state;
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
    CHECK(bf_bits_tail_clear(&s->f));
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

enum bits_action {
    BITS_DO_SET,
    BITS_DO_CLEAR,
    BITS_DO_GET
};

/* set (with bf_bits_test_and_set when bit 15 of the u16 is set: 1 exactly
 * when the bit was clear), clear, get. */
static void bits_op(bits_state *s, enum bits_action op, reader *r)
{
    uint64_t i = rd_u16(r);
    if (!s->f.data) return;
    int test = (i >> 15) & 1;
    i %= s->f.nbits;
    switch (op) {
    case BITS_DO_SET:
        if (test) CHECK(bf_bits_test_and_set(&s->f, i) == !s->model[i]);
        else bf_bits_set(&s->f, i);
        s->ones += !s->model[i];
        s->model[i] = 1;
        break;
    case BITS_DO_CLEAR:
        bf_bits_clear(&s->f, i);
        s->ones -= s->model[i];
        s->model[i] = 0;
        break;
    case BITS_DO_GET:
        break;
    }
    CHECK(bf_bits_get(&s->f, i) == s->model[i]);
    /* The neighbours in the same byte and the bytes either side. */
    for (uint64_t j = i >= 9 ? i - 9 : 0; j < s->f.nbits && j <= i + 9; j++)
        CHECK(bf_bits_get(&s->f, j) == s->model[j]);
}

static void bits_set_op(void *s, reader *r) { bits_op(s, BITS_DO_SET, r); }
static void bits_clear_op(void *s, reader *r) { bits_op(s, BITS_DO_CLEAR, r); }
static void bits_get_op(void *s, reader *r) { bits_op(s, BITS_DO_GET, r); }
static void bits_check_op(void *s, reader *r) { bits_check(s, r); }
static void bits_final(void *s, const reader *r) { bits_check(s, NULL); }

/* ------------------------------------------------------------ bucket field */

typedef struct {
    bf_buckets f;
    uint32_t *model;
    uint64_t nonzero;
} buckets_state;

static void buckets_free(void *state)
{
    buckets_state *s = state;
    free(s->f.data);
    free(s->model);
    memset(s, 0, sizeof *s);
}

static void buckets_init(void *state, reader *r)
{
    buckets_state *s = state;
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
    uint64_t full = 0;
    for (uint64_t i = 0; i < s->f.count; i++) {
        CHECK(bf_buckets_get(&s->f, i) == s->model[i]);
        full += s->model[i] == s->f.max;
    }
    buckets_check_image(s->f.data, &s->f, s->model);
    CHECK(bf_buckets_count_full(&s->f) == full);
    CHECK(bf_buckets_tail_clear(&s->f));
}

static void buckets_store(buckets_state *s, uint64_t i, uint32_t v)
{
    s->nonzero += (v != 0) - (s->model[i] != 0);
    s->model[i] = v;
}

enum buckets_action {
    BUCKETS_DO_SET,
    BUCKETS_DO_GET,
    BUCKETS_DO_INC,
    BUCKETS_DO_DEC
};

static void buckets_op(buckets_state *s, enum buckets_action op, reader *r)
{
    uint64_t i = rd_u16(r);
    uint32_t v = op == BUCKETS_DO_SET ? rd_u32(r) : 0;
    if (!s->f.data) return;
    i %= s->f.count;
    uint32_t max = s->f.max, old = s->model[i];
    switch (op) {
    case BUCKETS_DO_SET: /* the value masked to the width */
        v &= max;
        bf_buckets_set(&s->f, i, v);
        buckets_store(s, i, v);
        break;
    case BUCKETS_DO_GET:
        break;
    case BUCKETS_DO_INC: /* saturating */
        v = old < max ? old + 1 : max;
        CHECK(bf_buckets_inc(&s->f, i) == v);
        buckets_store(s, i, v);
        break;
    case BUCKETS_DO_DEC: /* saturating */
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

static void buckets_set_op(void *s, reader *r) { buckets_op(s, BUCKETS_DO_SET, r); }
static void buckets_get_op(void *s, reader *r) { buckets_op(s, BUCKETS_DO_GET, r); }
static void buckets_inc_op(void *s, reader *r) { buckets_op(s, BUCKETS_DO_INC, r); }
static void buckets_dec_op(void *s, reader *r) { buckets_op(s, BUCKETS_DO_DEC, r); }
static void buckets_check_op(void *s, reader *r) { buckets_check(s, r); }
static void buckets_final(void *s, const reader *r) { buckets_check(s, NULL); }

/* ------------------------------------------------------------ Bloom filter */

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
    for (uint32_t i = 0; i < s->f.k; i++)
        if (!s->model[pos[i]]) return 0;
    return 1;
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

static void bloom_add_op(void *state, reader *r)
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
static void bloom_contains_op(void *state, reader *r)
{
    bloom_state *s = state;
    key_ref k = rd_key(r);
    if (!s->f.bits.data) return;
    bloom_lookup(s, key_ptr(r, k), k.len, 0);
}

/* The most recent keys are all still there. */
static void bloom_recent_op(void *state, reader *r)
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
    /* Per bucket: ticks since its slot was current on the ring, 0..14
     * (0..2 live; 3..14 only for a slot planted from outside, "stale"), or
     * AGE_EMPTY. */
    uint8_t *age;
    uint32_t *expect;                     /* scratch: expected bucket values */
    uint64_t nonzero;                     /* buckets not empty */
    uint64_t recent[BF_CONT_DIVISOR + 1]; /* the model of f.recent_adds */
    uint32_t slot0;                       /* slot at creation */
    uint32_t tmod;                        /* ticks since creation, mod BF_CONT_SLOTS */
    uint64_t ticks;                       /* ticks since creation, mod 2^64 */
    key_list keys;                        /* adds of the last 0..2 ticks, with their age */
} cont_state;

static void cont_free(void *state)
{
    cont_state *s = state;
    free(s->f.buckets.data);
    free(s->age);
    free(s->expect);
    keys_free(&s->keys);
    memset(s, 0, sizeof *s);
}

static void cont_init(void *state, reader *r)
{
    cont_state *s = state;
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
    s->f.hash = (flags & 1) ? BF_HASH_FNV1A : (flags & 0x80) ? BF_HASH_MURMUR3_MIXED
                                                             : BF_HASH_MURMUR3;
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

static int age_live(uint8_t age)
{
    return age <= BF_CONT_DIVISOR; /* AGE_EMPTY is not */
}

static int age_stale(uint8_t age)
{
    return age != AGE_EMPTY && age > BF_CONT_DIVISOR;
}

/* The bucket value of a model age. */
static uint32_t cont_expect(const cont_state *s, uint8_t age)
{
    return age == AGE_EMPTY ? 0 : cont_slot_at_age(s, age);
}

MODEL static uint64_t cont_model_stale(const cont_state *s)
{
    uint64_t n = 0;
    for (uint64_t i = 0; i < s->f.buckets.count; i++) n += age_stale(s->age[i]);
    return n;
}

/* Every bucket equals the model; in particular every live bucket holds one
 * of the 3 live slots, and the filter is valid exactly when no stale slot
 * was planted (and left). */
MODEL static void cont_check_all(cont_state *s, reader *r)
{
    uint32_t cur = cont_slot(s);
    CHECK(s->f.slot == cur && s->f.ticks == s->ticks);
    CHECK(memcmp(s->f.recent_adds, s->recent, sizeof s->recent) == 0);
    CHECK(bf_buckets_count_nonzero(&s->f.buckets) == s->nonzero);
    if (r && !may_scan(r, s->f.buckets.count * BF_CONT_BITS)) return;
    uint64_t stale = 0;
    for (uint64_t i = 0; i < s->f.buckets.count; i++) {
        uint32_t v = bf_buckets_get(&s->f.buckets, i);
        if (age_live(s->age[i])) CHECK(v != 0 && ring_elapsed(v, cur) <= BF_CONT_DIVISOR);
        stale += age_stale(s->age[i]);
        s->expect[i] = cont_expect(s, s->age[i]);
        CHECK(v == s->expect[i]);
    }
    buckets_check_image(s->f.buckets.data, &s->f.buckets, s->expect);
    CHECK(bf_buckets_tail_clear(&s->f.buckets));
    CHECK(bf_continuous_valid(&s->f) == (stale == 0));
}

/* After a lookup of the key at pos[0..k) with clear_expired: each of its
 * buckets is as the model says, or, for a stale one, 0 (the model follows).
 * Returns whether stale buckets were cleared: 1 all, 0 none, -1 none there
 * (a lookup clears all or none). Without clear_expired nothing changes. */
static int cont_after_lookup(cont_state *s, const uint64_t *pos, int clear)
{
    int cleared = -1;
    for (uint32_t i = 0; i < s->f.k; i++) {
        uint8_t a = s->age[pos[i]];
        uint32_t v = bf_buckets_get(&s->f.buckets, pos[i]);
        if (clear && age_stale(a) && v == 0) {
            s->age[pos[i]] = AGE_EMPTY;
            s->nonzero--;
            cleared = cleared == 0 ? 2 : 1;
        } else {
            CHECK(v == cont_expect(s, a));
            if (clear && age_stale(a)) cleared = cleared == 1 ? 2 : 0; /* 2: some, not all */
        }
        CHECK(cleared != 2);
    }
    return cleared;
}

/* Look a key up; the answer must be exactly the model's (all k buckets
 * live). A lookup never changes a live or empty bucket; with clear_expired
 * it clears the stale ones it reads: all of the key's when the first bucket
 * that is not live is stale, all or none (an early exit at an empty one)
 * otherwise. Without planted slots there are none (ticks clear them). */
static int cont_lookup(cont_state *s, const uint8_t *p, size_t n, int clear)
{
    uint64_t pos[BF_K_MAX];
    bf_key_hash h = key_hash(p, n, s->f.seed, s->f.hash);
    positions(h, s->f.hash, s->f.k, s->f.buckets.count, pos);
    int want = 1, first = -1; /* first bucket that is not live: 0 empty, 1 stale */
    for (uint32_t i = 0; i < s->f.k; i++) {
        uint8_t a = s->age[pos[i]];
        want &= age_live(a);
        if (!age_live(a) && first < 0) first = a != AGE_EMPTY;
    }
    CHECK(bf_continuous_lookup(&s->f, h, clear) == want);
    int cleared = cont_after_lookup(s, pos, clear);
    if (clear && first == 1) CHECK(cleared == 1);
    return want;
}

/* What the buckets and clock look like when bf_continuous_tick calls back
 * between advancing and expiring. */
typedef struct {
    const bf_continuous *twin; /* the same tick, done without a callback */
    const uint8_t *before;     /* the buckets before the tick */
    size_t nbytes;
    int called;
} cont_between;

/* Between the halves the clock and the counts of recent adds have moved and
 * the buckets are still untouched. */
static void cont_check_between(void *ctx, const bf_continuous *f)
{
    cont_between *b = ctx;
    b->called++;
    CHECK(memcmp(b->before, f->buckets.data, b->nbytes) == 0);
    CHECK(f->slot == b->twin->slot && f->ticks == b->twin->ticks);
    CHECK(memcmp(f->recent_adds, b->twin->recent_adds, sizeof f->recent_adds) == 0);
}

/* bf_continuous_tick(f, n), or (split) the same with a callback between its
 * halves, which must see the new clock over the old buckets; either must
 * leave exactly what one tick on a copy leaves. */
static void cont_tick_core(cont_state *s, uint64_t n, int split)
{
    if (!split) {
        bf_continuous_tick(&s->f, n, NULL, NULL);
        return;
    }
    size_t nbytes = bf_buckets_nbytes(s->f.buckets.count, BF_CONT_BITS);
    bf_continuous twin = s->f;
    twin.buckets.data = malloc(nbytes);
    uint8_t *before = malloc(nbytes);
    CHECK(twin.buckets.data && before);
    memcpy(twin.buckets.data, s->f.buckets.data, nbytes);
    memcpy(before, s->f.buckets.data, nbytes);
    bf_continuous_tick(&twin, n, NULL, NULL);
    cont_between between = {&twin, before, nbytes, 0};
    bf_continuous_tick(&s->f, n, cont_check_between, &between);
    CHECK(between.called == (n > 0));
    CHECK(memcmp(twin.buckets.data, s->f.buckets.data, nbytes) == 0);
    CHECK(s->f.slot == twin.slot && s->f.ticks == twin.ticks && s->f.k == twin.k && s->f.seed == twin.seed);
    CHECK(memcmp(s->f.recent_adds, twin.recent_adds, sizeof twin.recent_adds) == 0);
    free(twin.buckets.data);
    free(before);
}

/* The model of n ticks: a bucket keeps its slot while that slot is live on
 * the new clock (a stale slot planted a tick or two ahead of the clock comes
 * alive), except that 3 or more ticks clear everything. */
MODEL static void cont_tick(cont_state *s, uint64_t n, reader *r, int split)
{
    cont_tick_core(s, n, split);
    s->ticks += n;
    s->tmod = (uint32_t)((s->tmod + n % BF_CONT_SLOTS) % BF_CONT_SLOTS);
    uint64_t old[BF_CONT_DIVISOR + 1];
    memcpy(old, s->recent, sizeof old);
    for (uint64_t d = 0; d <= BF_CONT_DIVISOR; d++) s->recent[d] = d >= n ? old[d - n] : 0;
    for (uint64_t i = 0; i < s->f.buckets.count && n > 0; i++) {
        if (s->age[i] == AGE_EMPTY) continue;
        uint64_t age = (s->age[i] + n % BF_CONT_SLOTS) % BF_CONT_SLOTS;
        if (n > BF_CONT_DIVISOR || age > BF_CONT_DIVISOR) {
            s->age[i] = AGE_EMPTY;
            s->nonzero--;
        } else {
            s->age[i] = (uint8_t)age;
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

/* One add on the model: every bucket of the key takes the current slot.
 * Returns whether the key was new: one of its buckets was not live (empty,
 * or a stale slot planted), which is what bf_continuous_add returns. */
static int cont_model_add(cont_state *s, const uint64_t *pos, key_ref k)
{
    int live = 1;
    for (uint32_t i = 0; i < s->f.k; i++) live &= age_live(s->age[pos[i]]);
    for (uint32_t i = 0; i < s->f.k; i++) {
        s->nonzero += s->age[pos[i]] == AGE_EMPTY;
        s->age[pos[i]] = 0;
    }
    s->recent[0]++;
    keys_push(&s->keys, k);
    return !live;
}

static void cont_check_keys(cont_state *s, const reader *r)
{
    for (size_t i = 0; i < s->keys.len; i++)
        CHECK(cont_lookup(s, key_ptr(r, s->keys.items[i].key), s->keys.items[i].key.len, 1));
}

static void cont_add_op(void *state, reader *r)
{
    cont_state *s = state;
    uint64_t pos[BF_K_MAX];
    key_ref k = rd_key(r);
    if (!s->f.buckets.data) return;
    const uint8_t *p = key_ptr(r, k);
    bf_key_hash h = key_hash(p, k.len, s->f.seed, s->f.hash);
    positions(h, s->f.hash, s->f.k, s->f.buckets.count, pos);
    int fresh = bf_continuous_add(&s->f, h);
    CHECK(fresh == cont_model_add(s, pos, k));
    CHECK(cont_lookup(s, p, k.len, 0));
    CHECK(bf_buckets_count_nonzero(&s->f.buckets) == s->nonzero);
}

/* Tick by 0..20. */
static void cont_tick_op(void *state, reader *r)
{
    cont_state *s = state;
    uint64_t n = rd_u8(r) % 21;
    if (!s->f.buckets.data) return;
    cont_tick(s, n, r, 0);
    cont_check_keys(s, r);
}

/* Look up any key. */
static void cont_lookup_op(void *state, reader *r)
{
    cont_state *s = state;
    key_ref k = rd_key(r);
    uint8_t clear = rd_u8(r) & 1;
    if (!s->f.buckets.data) return;
    cont_lookup(s, key_ptr(r, k), k.len, clear);
    CHECK(bf_buckets_count_nonzero(&s->f.buckets) == s->nonzero);
}

/* Tick by any count (a long pause: n mod 15 on the ring). */
static void cont_tick_big_op(void *state, reader *r)
{
    cont_state *s = state;
    uint64_t n = rd_u64(r);
    if (!s->f.buckets.data) return;
    cont_tick(s, n, r, 0);
    cont_check_keys(s, r);
}

static void cont_final(void *state, const reader *r)
{
    cont_state *s = state;
    if (!s->f.buckets.data) return;
    cont_check_all(s, NULL);
    cont_check_keys(s, r);
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
    bf_hash_kind kind = hash_kind_of(rd_u8(r));
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

/* u8 flags: bit 0 add the batch first, bit 1 without the answers of the
 * add (out NULL). Each add's answer is the model's after the keys before
 * it, so a key given twice in a batch is new the first time at most. */
static void bloom_batch_op(void *state, reader *r)
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

/* u8 flags: bit 0 add the batch first (bit 2: out NULL; each answer the
 * model's after the keys before it), bit 1 clear_expired for the lookups. */
static void cont_batch_op(void *state, reader *r)
{
    cont_state *s = state;
    uint8_t flags = rd_u8(r);
    batch b;
    rd_batch(r, &b, s->f.seed, s->f.hash);
    if (!s->f.buckets.data) return;
    uint64_t pos[BF_K_MAX];
    bf_key_hash *h = exact_hashes(b.h, b.n);
    uint8_t *out = exact_answers(b.n);
    if (flags & 1) {
        uint8_t *fresh = flags & 4 ? NULL : exact_answers(b.n);
        bf_continuous_add_many(&s->f, h, b.n, fresh);
        for (size_t j = 0; j < b.n; j++) {
            positions(b.h[j], s->f.hash, s->f.k, s->f.buckets.count, pos);
            int want = cont_model_add(s, pos, b.keys[j]);
            CHECK(!fresh || fresh[j] == want);
        }
        free(fresh);
    }
    /* Stale buckets (planted) cleared by one lookup do not change a later
     * one's answer, which depends on the live buckets alone. */
    int clear = (flags >> 1) & 1;
    bf_continuous_lookup_many(&s->f, h, b.n, clear, out);
    for (size_t j = 0; j < b.n; j++) {
        positions(b.h[j], s->f.hash, s->f.k, s->f.buckets.count, pos);
        int want = 1;
        for (uint32_t i = 0; i < s->f.k; i++) want &= age_live(s->age[pos[i]]);
        CHECK(!(flags & 1) || want);
        CHECK(out[j] == want);
    }
    for (size_t j = 0; j < b.n; j++) {
        positions(b.h[j], s->f.hash, s->f.k, s->f.buckets.count, pos);
        for (uint32_t i = 0; i < s->f.k; i++) {
            uint8_t a = s->age[pos[i]];
            uint32_t v = bf_buckets_get(&s->f.buckets, pos[i]);
            if (clear && age_stale(a) && v == 0) {
                s->age[pos[i]] = AGE_EMPTY;
                s->nonzero--;
            } else {
                CHECK(v == cont_expect(s, a));
            }
        }
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
    for (uint32_t i = 0; i < s->f.k; i++)
        if (!s->model[pos[i]]) return 0;
    return 1;
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
static void blocked_add_op(void *state, reader *r)
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
static void blocked_contains_op(void *state, reader *r)
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
static void blocked_batch_op(void *state, reader *r)
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
static void blocked_recent_op(void *state, reader *r)
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
static void blocked_rate_op(reader *r)
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
 * filter has a twin fed one key at a time: images, counts and answers (the
 * adds' "new" too, except at every third size, where out is NULL) must
 * agree. */

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
    uint8_t *out, *fresh; /* fresh: the answers of the batch add */
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
    q->fresh = exact_answers(n);
}

static void large_round_end(large_round *q)
{
    free(q->add);
    free(q->look);
    free(q->out);
    free(q->fresh);
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
        bf_bloom_add_many(&a, q.add, n, n % 3 ? q.fresh : NULL);
        for (size_t i = 0; i < n; i++) CHECK(bf_bloom_add(&b, q.add[i]) == q.fresh[i] || n % 3 == 0);
        /* The same keys again: none is new now, in the batch or one by one. */
        bf_bloom_add_many(&a, q.add, n, q.fresh);
        for (size_t i = 0; i < n; i++) CHECK(bf_bloom_add(&b, q.add[i]) == 0 && q.fresh[i] == 0);
        CHECK(a.count == b.count && a.distinct == b.distinct && memcmp(a.bits.data, b.bits.data, nbytes) == 0);
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
        bf_blocked_add_many(&a, q.add, n, n % 3 ? q.fresh : NULL);
        for (size_t i = 0; i < n; i++) CHECK(bf_blocked_add(&b, q.add[i]) == q.fresh[i] || n % 3 == 0);
        /* The same keys again: none is new now, in the batch or one by one. */
        bf_blocked_add_many(&a, q.add, n, q.fresh);
        for (size_t i = 0; i < n; i++) CHECK(bf_blocked_add(&b, q.add[i]) == 0 && q.fresh[i] == 0);
        CHECK(a.count == b.count && a.distinct == b.distinct && memcmp(a.bits.data, b.bits.data, nbytes) == 0);
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
        bf_continuous_tick(&a, n % 3, NULL, NULL);
        bf_continuous_tick(&b, n % 3, NULL, NULL);
        large_round q;
        large_round_start(&q, n, &next, kind);
        bf_continuous_add_many(&a, q.add, n, n % 3 ? q.fresh : NULL);
        for (size_t i = 0; i < n; i++) CHECK(bf_continuous_add(&b, q.add[i]) == q.fresh[i] || n % 3 == 0);
        /* The same keys again, in the same tick: all live, none new. */
        bf_continuous_add_many(&a, q.add, n, q.fresh);
        for (size_t i = 0; i < n; i++) CHECK(bf_continuous_add(&b, q.add[i]) == 0 && q.fresh[i] == 0);
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

static void buckets_dec_run_op(void *state, reader *r)
{
    buckets_state *s = state;
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
        first %= count + 1; /* first == count: an empty run at the end */
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

#define CELLS_MAX_M 1024 /* counting, spectral (each of the two), stable */
#define BITWISE_MAX_M 512
#define BITWISE_K_MAX 32      /* larger k is the counting and spectral filters' */
#define BITWISE_MAX_LEVELS 16 /* 6 levels take 2^32 adds of a key; more is a bug */
#define A2_MAX_BITS 2048      /* per half */
#define A2_MAX_CAPACITY 48
#define MAX_REPEAT 16 /* adds per counting/spectral add op */
#define BITWISE_MAX_REPEAT 1024
/* Repeated adds (past the first of each op) cost up to this many probes per
 * input, over all structures (a bitwise add costs k per level it may scan):
 * enough to fill a bitwise filter's first five levels at k = 1 (65,809 adds,
 * about 380,000), while each input stays within some 50 ms. */
#define ADD_BUDGET (1u << 19)

/* Whether `cost` more probes of repeated adds may run (and pay for them). */
static int may_add(reader *r, uint64_t cost)
{
    if (cost > ADD_BUDGET - r->repeated_adds) return 0;
    r->repeated_adds += cost;
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
    CHECK(bf_buckets_count_full(b) == mcells_saturated(model, b->count, b->max));
    buckets_check_image(b->data, b, model);
    CHECK(bf_buckets_tail_clear(b));
}

/* The distinct keys (by their bytes) a structure was given, with what the
 * lower-bound checks need to know of each. */
typedef struct {
    key_ref key;
    bf_key_hash h;      /* under the structure's seed */
    uint64_t n;         /* true count: adds less deletes while it had any */
    uint64_t sc;        /* RM: what it put into the secondary cells, less what it took */
    uint64_t last;      /* stable: adds so far at its last add; A2: swaps so far at it */
    uint8_t unreliable; /* RM: it entered the secondary through a false positive */
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
static void counting_add_op(void *state, reader *r)
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
static void counting_remove_op(void *state, reader *r)
{
    counting_state *s = state;
    key_ref k = rd_key(r);
    if (!s->f.cells.data) return;
    counting_remove(s, r, k, mm_hash(r, k, s->f.seed));
}

/* Delete a key given before. */
static void counting_remove_known_op(void *state, reader *r)
{
    counting_state *s = state;
    uint8_t which = rd_u8(r);
    if (!s->f.cells.data || s->keys.len == 0) return;
    tally_entry e = s->keys.items[which % s->keys.len];
    counting_remove(s, r, e.key, e.h);
}

/* Count any key. */
static void counting_count_op(void *state, reader *r)
{
    counting_state *s = state;
    key_ref k = rd_key(r);
    if (!s->f.cells.data) return;
    counting_lookup(s, r, k, mm_hash(r, k, s->f.seed));
}

/* Everything, while the scan budget lasts. */
static void counting_check_op(void *state, reader *r)
{
    counting_state *s = state;
    if (!s->f.cells.data) return;
    counting_check_counts(s);
    CHECK(bf_buckets_count_nonzero(&s->f.cells) == mcells_nonzero(s->model, s->f.cells.count));
    if (may_scan(r, s->f.cells.count * s->f.cells.width + (uint64_t)s->keys.len * s->f.k * 8))
        counting_check_all(s, r);
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
static void spectral_add_op(void *state, reader *r)
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
static void spectral_remove_op(void *state, reader *r)
{
    spectral_state *s = state;
    key_ref k = rd_key(r);
    if (!s->f.primary.cells.data) return;
    spectral_remove(s, r, k, mm_hash(r, k, s->f.primary.seed));
}

/* Delete a key given before. */
static void spectral_remove_known_op(void *state, reader *r)
{
    spectral_state *s = state;
    uint8_t which = rd_u8(r);
    if (!s->f.primary.cells.data || s->keys.len == 0) return;
    tally_entry e = s->keys.items[which % s->keys.len];
    spectral_remove(s, r, e.key, e.h);
}

/* Count any key. */
static void spectral_count_op(void *state, reader *r)
{
    spectral_state *s = state;
    key_ref k = rd_key(r);
    if (!s->f.primary.cells.data) return;
    spectral_lookup(s, r, k, mm_hash(r, k, s->f.primary.seed));
}

/* Everything, while the scan budget lasts. */
static void spectral_check_op(void *state, reader *r)
{
    spectral_state *s = state;
    if (!s->f.primary.cells.data) return;
    spectral_check_counts(s);
    if (may_scan(r, (s->f.primary.cells.count + s->f.secondary.cells.count) * s->f.primary.cells.width +
                        (uint64_t)s->keys.len * s->f.primary.k * 16))
        spectral_check_all(s, r);
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
    uint64_t distinct; /* adds that landed on level 0 with its count there 0 */
    tally keys;
} bitwise_state;

MODEL static unsigned model_level_width(unsigned width, size_t level)
{
    uint64_t w = width;
    for (size_t l = 0; l < level && w < 32; l++) w *= 2;
    return w > 32 ? 32 : (unsigned)w;
}

static void bitwise_free(void *state)
{
    bitwise_state *s = state;
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

static void bitwise_init(void *state, reader *r)
{
    bitwise_state *s = state;
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
    CHECK(s->f.count == s->count && s->f.nlevels == s->nlevels && s->f.distinct == s->distinct);
    for (size_t l = 0; l < s->nlevels; l++) {
        const bf_buckets *b = &s->f.levels[l];
        CHECK(b->count == s->f.m && b->width == model_level_width(s->f.width, l) && b->max == level_max(s, l));
    }
}

MODEL static void bitwise_check_all(void *state, const reader *r)
{
    const bitwise_state *s = state;
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
        /* New: its count was 0, which it can be on level 0 only. */
        int fresh = level == 0 && mcells_min(s->model[0], bitwise_pos(s, h, lp, 0), s->f.k, level_max(s, 0)) == 0;
        CHECK(bf_bitwise_add_at(&s->f, h, level) == fresh);
        s->distinct += (uint64_t)fresh;
        mcells_add(s->model[level], bitwise_pos(s, h, lp, level), s->f.k, 1, level_max(s, level));
        s->count++;
        e->n++;
    }
    return level;
}

/* Add 1..BITWISE_MAX_REPEAT times, mostly few: the low 10 bits of a u16,
 * shifted right by (its top 6 bits) % 11. */
static void bitwise_add_op(void *state, reader *r)
{
    bitwise_state *s = state;
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
}

/* Count any key. */
static void bitwise_count_op(void *state, reader *r)
{
    bitwise_state *s = state;
    key_ref k = rd_key(r);
    if (!s->f.levels) return;
    bitwise_lookup(s, r, k, mm_hash(r, k, s->f.seed));
}

/* Everything, while the scan budget lasts. */
static void bitwise_check_op(void *state, reader *r)
{
    bitwise_state *s = state;
    if (!s->f.levels) return;
    bitwise_check_counts(s);
    uint64_t cost = (uint64_t)s->keys.len * s->f.k * 8 * s->nlevels;
    for (size_t l = 0; l < s->nlevels; l++) cost += s->f.m * s->f.levels[l].width;
    if (may_scan(r, cost)) bitwise_check_all(s, r);
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

static void stable_add_op(void *state, reader *r)
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
static void stable_contains_op(void *state, reader *r)
{
    stable_state *s = state;
    key_ref k = rd_key(r);
    if (!s->f.cells.data) return;
    stable_lookup(s, r, k, mm_hash(r, k, s->f.seed));
}

/* Everything, while the scan budget lasts. */
static void stable_check_op(void *state, reader *r)
{
    stable_state *s = state;
    if (!s->f.cells.data) return;
    CHECK(s->f.count == s->adds && s->f.random == s->random);
    CHECK(bf_buckets_count_nonzero(&s->f.cells) == mcells_nonzero(s->model, s->f.cells.count));
    if (may_scan(r, s->f.cells.count * s->f.cells.width + (uint64_t)s->keys.len * s->f.k * 8))
        stable_check_all(s, r);
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

static void a2_free(void *state)
{
    a2_state *s = state;
    for (int i = 0; i < 2; i++) {
        free(s->f.halves[i].data);
        free(s->model[i]);
    }
    tally_free(&s->keys);
    memset(s, 0, sizeof *s);
}

static void a2_init(void *state, reader *r)
{
    a2_state *s = state;
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

MODEL static void a2_check_all(void *state, const reader *r)
{
    const a2_state *s = state;
    if (!s->f.halves[0].data) return;
    a2_check_counts(s);
    for (size_t i = 0; i < s->keys.len; i++) a2_lookup(s, r, s->keys.items[i].key, s->keys.items[i].h);
    a2_check_half(s, 0);
    a2_check_half(s, 1);
}

static void a2_add_op(void *state, reader *r)
{
    a2_state *s = state;
    key_ref k = rd_key(r);
    if (!s->f.halves[0].data) return;
    uint64_t pos[BF_K_MAX];
    bf_key_hash h = mm_hash(r, k, s->f.seed);
    positions(h, BF_HASH_MURMUR3, s->f.k, s->f.halves[0].nbits, pos);
    int fresh = !a2_model_half(s, 0, pos) && !a2_model_half(s, 1, pos); /* in neither half */
    CHECK(bf_a2_add(&s->f, h, 1) == fresh);
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
}

/* Any key. */
static void a2_contains_op(void *state, reader *r)
{
    a2_state *s = state;
    key_ref k = rd_key(r);
    if (!s->f.halves[0].data) return;
    a2_lookup(s, r, k, mm_hash(r, k, s->f.seed));
}

/* Everything, while the scan budget lasts. */
static void a2_check_op(void *state, reader *r)
{
    a2_state *s = state;
    if (!s->f.halves[0].data) return;
    a2_check_counts(s);
    if (may_scan(r, 2 * s->f.halves[0].nbits + (uint64_t)s->keys.len * s->f.k * 8)) a2_check_all(s, r);
}

/* ------------------------------------------------------ scalable filter */

/* Model: every layer's bits, a byte per bit, with its count and its set
 * bits; a layer is appended exactly as the binding's append_layer does
 * (the shape bf_scalable_layer_shape gives, zeroed bits) when an add
 * answers BF_SCALABLE_GROW, and the add is made again. Checked against
 * bf_scalable.h: an add is new exactly when no layer holds the key; a new
 * key goes into the newest layer while it has room; a full one asks for
 * the next layer when one may follow, and answers FULL when none may (the
 * layers reach max_capacity, or BF_SCALABLE_LAYERS_MAX), changing nothing
 * either way; a key added is found ever after, through growth and unions;
 * the layers' counts add up to distinct, and none passes its capacity but
 * through a union. The shapes and error rates follow from the parameters
 * alone: capacities initial * growth^i (rounded; cut at max_capacity),
 * rates that share out error_rate as the header says, and each layer the
 * fewest bits whose formula rate at its capacity is within its share. */

/* The parameters a header may pick (the first of each: the binding's
 * defaults), besides error_rate, initial_capacity and even_layers. */
static const double sc_growths[8] = {2, 1, 1.25, 1.5, 2.5, 3, 3.7, 4}; /* 1: refused */
static const double sc_tightenings[8] = {0.8, 0.85, 0.5, 0.9, 0.1, 0.3, 0.7, 0.99};

typedef struct {
    bf_scalable f;
    size_t nlayers;
    uint8_t *model[BF_SCALABLE_LAYERS_MAX];  /* a byte per bit of each layer */
    uint64_t lcount[BF_SCALABLE_LAYERS_MAX]; /* each layer's count */
    uint64_t ones[BF_SCALABLE_LAYERS_MAX];   /* each layer's bits set */
    uint64_t count;                          /* adds that found or took their key (f.count) */
    uint64_t added;                          /* adds that took a new key: distinct, until a union */
    int unions;                              /* a union made the counts estimates (past capacity, maybe) */
    key_list keys;                           /* every key taken: found ever after */
} scalable_state;

static void scalable_free(void *state)
{
    scalable_state *s = state;
    for (size_t i = 0; i < s->f.nlayers; i++) free(s->f.layers[i].bits.data);
    free(s->f.layers);
    for (size_t i = 0; i < s->nlayers; i++) free(s->model[i]);
    keys_free(&s->keys);
    memset(s, 0, sizeof *s);
}

/* initial * growth^i, rounded, at least 1 (and, as the core, at most
 * BF_BITS_MAX: no layer the harness makes comes near). */
MODEL static uint64_t sc_grown(const bf_scalable_params *p, size_t i)
{
    double c = round((double)p->initial_capacity * pow(p->growth, (double)i));
    if (!(c >= 1)) return 1;
    return c >= (double)BF_BITS_MAX ? BF_BITS_MAX : (uint64_t)c;
}

/* Layer i's capacity: 0 when there is no layer i (past the last layer, or
 * the layers before it reach max_capacity, which cuts the last one). */
MODEL static uint64_t sc_model_capacity(const bf_scalable_params *p, size_t i)
{
    if (i >= BF_SCALABLE_LAYERS_MAX) return 0;
    uint64_t c = sc_grown(p, i), taken = 0;
    if (!p->max_capacity) return c;
    for (size_t j = 0; j < i; j++)
        if ((taken += sc_grown(p, j)) >= p->max_capacity) return 0;
    return c < p->max_capacity - taken ? c : p->max_capacity - taken;
}

/* With max_capacity: how many layers reach it (LAYERS_MAX + 1: too many). */
MODEL static size_t sc_model_layers_to_max(const bf_scalable_params *p)
{
    uint64_t taken = 0;
    for (size_t i = 0; i < BF_SCALABLE_LAYERS_MAX; i++)
        if ((taken += sc_grown(p, i)) >= p->max_capacity) return i + 1;
    return BF_SCALABLE_LAYERS_MAX + 1;
}

/* Layer i's share of error_rate: even over the layers that reach
 * max_capacity; else even over the first even_layers, then shrinking by r,
 * all of them together error_rate. */
MODEL static double sc_model_rate(const bf_scalable_params *p, size_t i)
{
    if (p->max_capacity) return p->error_rate / (double)sc_model_layers_to_max(p);
    double r = p->tightening, share = 1 / ((double)p->even_layers + r / (1 - r));
    if (i < p->even_layers) return p->error_rate * share;
    return p->error_rate * share * pow(r, (double)(i - p->even_layers + 1));
}

/* bf_bloom_size's promise: m bits and k probes hold n keys within rate p
 * by bf_bloom_rate, and m - 1 bits would not (at that k; the core steps m
 * one bit at a time below 10^12 bits). */
static void check_sizing(uint64_t m, uint32_t k, uint64_t n, double p)
{
    CHECK(m >= 1 && m <= BF_BITS_MAX && k >= 1 && k <= BF_K_MAX);
    CHECK(bf_bloom_rate(m, k, (double)n) <= p);
    if (m > 1 && m < 1000000000000ULL) CHECK(bf_bloom_rate(m - 1, k, (double)n) > p);
}

/* The parameters against the model: validity, every layer's rate and
 * shape, and shares that add up to at most error_rate. Returns validity. */
static int sc_check_params(const bf_scalable_params *p)
{
    /* growth below the minimum is refused (1 is among the choices) */
    int valid = p->growth >= BF_SCALABLE_GROWTH_MIN &&
                (!p->max_capacity || sc_model_layers_to_max(p) <= BF_SCALABLE_LAYERS_MAX);
    CHECK(bf_scalable_params_valid(p) == valid);
    if (!valid) return 0;
    double total = 0;
    for (size_t i = 0; i <= BF_SCALABLE_LAYERS_MAX; i++) {
        uint64_t c = 0, m = 0, want = sc_model_capacity(p, i);
        uint32_t k = 0;
        int has = bf_scalable_layer_shape(p, i, &c, &m, &k);
        /* A layer is missing only past the last or max_capacity, or when
         * it would pass BF_BITS_MAX bits, far beyond the keys of an input. */
        CHECK(has ? want == c : want == 0 || want > ((uint64_t)1 << 20));
        if (i == BF_SCALABLE_LAYERS_MAX) break;
        double rate = bf_scalable_layer_rate(p, i), model = sc_model_rate(p, i);
        CHECK(rate > 0 && rate < 1 && fabs(rate - model) <= model * 1e-12);
        if (!has) continue;
        check_sizing(m, k, c, rate);
        total += rate;
    }
    CHECK(total <= p->error_rate * (1 + 1e-12));
    return 1;
}

/* The binding's append_layer: layer nlayers, of the shape the parameters
 * give, zeroed. */
static void sc_append_layer(scalable_state *s)
{
    bf_scalable *f = &s->f;
    CHECK(f->nlayers == s->nlayers && s->nlayers < BF_SCALABLE_LAYERS_MAX);
    bf_layer l;
    memset(&l, 0, sizeof l);
    CHECK(bf_scalable_layer_shape(&f->params, f->nlayers, &l.capacity, &l.bits.nbits, &l.k));
    CHECK(l.capacity == sc_model_capacity(&f->params, f->nlayers));
    check_sizing(l.bits.nbits, l.k, l.capacity, bf_scalable_layer_rate(&f->params, f->nlayers));
    size_t nbytes = bf_bits_nbytes(l.bits.nbits);
    CHECK(nbytes != 0);
    bf_layer *layers = realloc(f->layers, (f->nlayers + 1) * sizeof *layers);
    CHECK(layers != NULL);
    f->layers = layers;
    l.bits.data = calloc(nbytes, 1);
    s->model[s->nlayers] = calloc((size_t)l.bits.nbits, 1);
    CHECK(l.bits.data && s->model[s->nlayers]);
    f->layers[f->nlayers++] = l;
    s->lcount[s->nlayers] = s->ones[s->nlayers] = 0;
    s->nlayers++;
}

/* Header: u16 error rate ((1 + e % 999) / 1000 / 10^(e / 999 % 4), 1e-6 ..
 * 0.999), u8 initial capacity (% 64 + 1), u8 growth and u8 tightening (% 8
 * of the tables above), u8 even layers (% 13), u16 max capacity (bit 0
 * clear: none; else 1 + (v >> 1) % 1024), u32 seed. Parameters no filter
 * has (too many layers to max_capacity) leave it absent, as the binding
 * raises for them. */
static void scalable_init(void *state, reader *r)
{
    scalable_state *s = state;
    scalable_free(s);
    uint16_t e = rd_u16(r);
    bf_scalable_params p;
    memset(&p, 0, sizeof p);
    p.error_rate = (1 + e % 999) / 1000.0 / pow(10, (double)(e / 999 % 4));
    p.initial_capacity = 1 + rd_u8(r) % 64;
    p.growth = sc_growths[rd_u8(r) % 8];
    p.tightening = sc_tightenings[rd_u8(r) % 8];
    p.even_layers = rd_u8(r) % 13;
    uint16_t max = rd_u16(r);
    p.max_capacity = max & 1 ? 1 + (uint64_t)(max >> 1) % 1024 : 0;
    uint32_t seed = rd_u32(r);
    if (!sc_check_params(&p)) return;
    s->f.params = p;
    s->f.seed = seed;
    sc_append_layer(s);
}

MODEL static int sc_model_layer_has(const scalable_state *s, size_t i, bf_key_hash h)
{
    uint64_t pos[BF_K_MAX];
    const bf_layer *l = &s->f.layers[i];
    bf_positions(h, BF_HASH_MURMUR3, l->k, l->bits.nbits, pos);
    for (uint32_t j = 0; j < l->k; j++)
        if (!s->model[i][pos[j]]) return 0;
    return 1;
}

MODEL static int sc_model_contains(const scalable_state *s, bf_key_hash h)
{
    for (size_t i = 0; i < s->nlayers; i++)
        if (sc_model_layer_has(s, i, h)) return 1;
    return 0;
}

/* Counts, cheap enough for every op. */
static void sc_check_counts(const scalable_state *s)
{
    const bf_scalable *f = &s->f;
    CHECK(f->nlayers == s->nlayers && f->count == s->count);
    uint64_t sum = 0;
    for (size_t i = 0; i < s->nlayers; i++) {
        const bf_layer *l = &f->layers[i];
        CHECK(l->count == s->lcount[i]);
        sum = s->lcount[i] > UINT64_MAX - sum ? UINT64_MAX : sum + s->lcount[i];
        /* Without unions, a layer is filled to its capacity before the next
         * one comes, and never past it. */
        if (!s->unions) CHECK(i + 1 < s->nlayers ? l->count == l->capacity : l->count <= l->capacity);
    }
    CHECK(bf_scalable_distinct(f) == sum);
    if (!s->unions) CHECK(sum == s->added);
}

/* One add, as the binding's add_hashed: BF_SCALABLE_GROW gets the next
 * layer appended and the add made again. */
static void sc_add(scalable_state *s, key_ref k, bf_key_hash h)
{
    bf_scalable *f = &s->f;
    int present = sc_model_contains(s, h);
    CHECK(bf_scalable_contains(f, h) == present);
    for (int grown = 0;; grown = 1) {
        size_t top = s->nlayers - 1;
        int full = s->lcount[top] >= f->layers[top].capacity;
        uint64_t ones = full ? bf_bits_count(&f->layers[top].bits) : 0;
        bf_scalable_result got = bf_scalable_add(f, h);
        CHECK(f->nlayers == s->nlayers);
        if (present) { /* found in a layer: nothing changes but the count */
            CHECK(got == BF_SCALABLE_PRESENT);
            s->count++;
            sc_check_counts(s);
            return;
        }
        if (!full) { /* into the newest layer */
            CHECK(got == BF_SCALABLE_ADDED);
            uint64_t pos[BF_K_MAX];
            bf_layer *l = &f->layers[top];
            positions(h, BF_HASH_MURMUR3, l->k, l->bits.nbits, pos);
            for (uint32_t j = 0; j < l->k; j++) {
                s->ones[top] += !s->model[top][pos[j]];
                s->model[top][pos[j]] = 1;
                CHECK(bf_bits_get(&l->bits, pos[j]));
            }
            s->lcount[top]++;
            s->count++;
            s->added++;
            keys_push(&s->keys, k);
            sc_check_counts(s);
            CHECK(bf_bits_count(&l->bits) == s->ones[top]);
            CHECK(bf_scalable_contains(f, h));
            return;
        }
        /* The newest layer is full (a layer just appended never is): grow
         * to the next one, if there is one; nothing changed either way. */
        CHECK(!grown);
        int more = sc_model_capacity(&f->params, s->nlayers) != 0;
        CHECK(got == BF_SCALABLE_GROW);
        CHECK(bf_bits_count(&f->layers[top].bits) == ones);
        sc_check_counts(s);
        if (!more) { /* no next layer: max_capacity reached, or the last layer */
            uint64_t capacity = 0;
            for (size_t i = 0; i < s->nlayers; i++) capacity += f->layers[i].capacity;
            CHECK(s->nlayers == BF_SCALABLE_LAYERS_MAX || capacity == f->params.max_capacity);
            CHECK(!bf_scalable_contains(f, h));
            return;
        }
        sc_append_layer(s);
    }
}

/* include? of one key: exactly the model's answer. */
static int sc_lookup(const scalable_state *s, bf_key_hash h)
{
    int want = sc_model_contains(s, h);
    CHECK(bf_scalable_contains(&s->f, h) == want);
    return want;
}

/* Estimates and rates: each layer's set bits (bf_bits_count against the
 * model's count), bf_layer_estimate by Swamidass and Baldi's formula, the
 * current and design rates by theirs; the design rate within error_rate
 * while no union added keys past a capacity. */
static void sc_check_rates(const scalable_state *s)
{
    const bf_scalable *f = &s->f;
    double miss_now = 1, miss_design = 1;
    for (size_t i = 0; i < s->nlayers; i++) {
        const bf_layer *l = &f->layers[i];
        double m = (double)l->bits.nbits, set = (double)s->ones[i];
        CHECK(bf_bits_count(&l->bits) == s->ones[i]);
        uint64_t estimate = s->ones[i] >= l->bits.nbits ? UINT64_MAX : (uint64_t)llround(-(m / l->k) * log1p(-set / m));
        CHECK(bf_layer_estimate(l) == estimate);
        miss_now *= 1 - pow(set / m, l->k);
        miss_design *= 1 - bf_bloom_rate(l->bits.nbits, l->k, (double)s->lcount[i]);
    }
    double now = bf_scalable_current_fpr(f), design = bf_scalable_design_fpr(f);
    CHECK(now >= 0 && now <= 1 && fabs(now - (1 - miss_now)) <= 1e-12 * (1 - miss_now) + 1e-15);
    CHECK(design >= 0 && design <= 1 && fabs(design - (1 - miss_design)) <= 1e-12 * (1 - miss_design) + 1e-15);
    if (!s->unions) CHECK(design <= f->params.error_rate + 1e-13);
}

/* Everything: the counts, rates, every layer's shape and whole image, and
 * every key ever taken found. */
MODEL static void sc_check_all(void *state, const reader *r)
{
    const scalable_state *s = state;
    const bf_scalable *f = &s->f;
    if (!f->layers) return;
    sc_check_counts(s);
    sc_check_rates(s);
    for (size_t i = 0; i < s->nlayers; i++) {
        const bf_layer *l = &f->layers[i];
        bf_layer want;
        memset(&want, 0, sizeof want);
        CHECK(bf_scalable_layer_shape(&f->params, i, &want.capacity, &want.bits.nbits, &want.k));
        CHECK(bf_layer_same_shape(l, &want) && l->bits.nbits == want.bits.nbits && l->k == want.k);
        if (i > 0) {
            const bf_layer *o = &f->layers[i - 1];
            CHECK(bf_layer_same_shape(o, l) == (o->bits.nbits == l->bits.nbits && o->k == l->k && o->capacity == l->capacity));
        }
        CHECK(bf_bits_tail_clear(&l->bits));
        for (uint64_t j = 0; j < l->bits.nbits; j++) CHECK(bf_bits_get(&l->bits, j) == s->model[i][j]);
    }
    for (size_t i = 0; i < s->keys.len; i++) {
        key_ref k = s->keys.items[i].key;
        CHECK(bf_scalable_contains(f, mm_hash(r, k, f->seed)));
    }
}

/* u8 flags (bit 0: add the batch first, a key at a time as the binding's
 * add_many), a batch; then bf_scalable_contains_many in exact blocks
 * against single calls and the model. */
static void scalable_batch_op(void *state, reader *r)
{
    scalable_state *s = state;
    uint8_t add = rd_u8(r) & 1;
    batch b;
    rd_batch(r, &b, s->f.seed, BF_HASH_MURMUR3);
    if (!s->f.layers) return;
    if (add)
        for (size_t j = 0; j < b.n; j++) sc_add(s, b.keys[j], b.h[j]);
    bf_key_hash *h = exact_hashes(b.h, b.n);
    uint8_t *out = exact_answers(b.n);
    bf_scalable_contains_many(&s->f, h, b.n, out);
    for (size_t j = 0; j < b.n; j++) CHECK(out[j] == sc_lookup(s, b.h[j]));
    free(h);
    free(out);
}

static void scalable_add_op(void *state, reader *r)
{
    scalable_state *s = state;
    key_ref k = rd_key(r);
    if (!s->f.layers) return;
    sc_add(s, k, mm_hash(r, k, s->f.seed));
}

static void scalable_contains_op(void *state, reader *r)
{
    scalable_state *s = state;
    key_ref k = rd_key(r);
    if (!s->f.layers) return;
    sc_lookup(s, mm_hash(r, k, s->f.seed));
}

/* The recent keys found; the rest while the scan budget lasts. */
static void scalable_check_op(void *state, reader *r)
{
    scalable_state *s = state;
    if (!s->f.layers) return;
    sc_check_counts(s);
    sc_check_rates(s);
    size_t from = s->keys.len > RECENT_KEYS ? s->keys.len - RECENT_KEYS : 0;
    for (size_t i = from; i < s->keys.len; i++)
        CHECK(bf_scalable_contains(&s->f, mm_hash(r, s->keys.items[i].key, s->f.seed)));
    uint64_t cost = (uint64_t)s->keys.len * 64;
    for (size_t i = 0; i < s->nlayers; i++) cost += s->f.layers[i].bits.nbits;
    if (may_scan(r, cost)) sc_check_all(s, r);
}

/* ------------------------------------------------ blocked: rate now */

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

static void blocked_rate_now_op(void *s, reader *r) { blocked_rate_now(s); }

static void blocked_final(void *s, const reader *r)
{
    blocked_check_all(s, r);
    blocked_rate_now(s);
}

/* -------------------------------------------------------- cuckoo filter */

/* Model: every key added, with the copies of its fingerprint it put in and
 * has not taken out (tally n). A key's place (fingerprint, its two buckets)
 * comes from bf_cuckoo.h's formulas with this file's bf_reduce (see the top
 * of the file), checked against bf_cuckoo_locate. A fingerprint in bucket b
 * belongs to the pair {b, alt(b, fp)}, whichever of the two it sits in, so
 * the filter is right exactly when the (fingerprint, pair) of its slots are,
 * as a multiset, those of the model's copies: then no key is lost (count is
 * the copies of its class, at least its own), no fingerprint strays from its
 * two buckets, and count is the slots in use. An add that finds no room must
 * leave every byte as it was; one that finds an empty slot in its buckets
 * takes the first (i1 before i2) without a kick; one that kicks moves
 * fingerprints but loses none. A remove takes the first copy of the key's
 * class (i1 before i2), and 0 exactly when there is none: a false positive
 * takes a copy another key of the class put in (any of them: the filter
 * cannot tell them apart, and neither does the model). */
#define CUCKOO_MAX_BUCKETS 64
#define CUCKOO_MAX_SLOTS (CUCKOO_MAX_BUCKETS * BF_CUCKOO_SLOTS)
/* An add that is refused makes 500 kicks and undoes them (some 20 us with
 * the sanitizers), and the filters here fill in a few dozen keys: past an
 * op's first add, each costs CUCKOO_ADD_COST of this, a refused one
 * BF_CUCKOO_KICKS, so that some 64 refusals per input keep it fast. Apart
 * from ADD_BUDGET, which the bitwise filter needs whole. */
#define CUCKOO_BUDGET (64u * BF_CUCKOO_KICKS)
#define CUCKOO_ADD_COST 16

typedef struct {
    bf_cuckoo f;
    uint64_t count; /* the sum of the keys' n */
    tally keys;     /* n: copies in the filter */
} cuckoo_state;

/* A fingerprint and its pair's lower bucket: the unit the model counts. */
typedef struct {
    uint32_t fp;
    uint64_t lo;
} ck_class;

static void cuckoo_free(void *state)
{
    cuckoo_state *s = state;
    free(s->f.slots.data);
    tally_free(&s->keys);
    memset(s, 0, sizeof *s);
}

static size_t ck_nbytes(const cuckoo_state *s)
{
    return bf_buckets_nbytes(s->f.slots.count, s->f.slots.width);
}

/* u8 buckets (% 64 + 1), u8 fingerprint bits (% 25 + 8), u32 seed: few
 * buckets, so that filling, kicking and failing are common. */
static void cuckoo_init(void *state, reader *r)
{
    cuckoo_state *s = state;
    cuckoo_free(s);
    uint64_t n = 1 + rd_u8(r) % CUCKOO_MAX_BUCKETS;
    unsigned bits = BF_CUCKOO_FP_MIN + rd_u8(r) % (BF_CUCKOO_FP_MAX - BF_CUCKOO_FP_MIN + 1);
    uint32_t seed = rd_u32(r);
    bf_cuckoo_init(&s->f, n, bits, seed);
    CHECK(s->f.nbuckets == n && s->f.seed == seed && s->f.count == 0);
    CHECK(s->f.slots.count == n * BF_CUCKOO_SLOTS && s->f.slots.width == bits && s->f.slots.max == width_max(bits));
    s->f.slots.data = calloc(ck_nbytes(s), 1);
    CHECK(s->f.slots.data != NULL);
}

/* alt(i, fp) = (H - i) mod n, H = fmix64(fp) reduced to [0, n). */
static uint64_t ck_alt(const bf_cuckoo *f, uint64_t i, uint32_t fp)
{
    uint64_t h = bf_reduce(ref_fmix64(fp), f->nbuckets);
    CHECK(h < f->nbuckets && i < f->nbuckets);
    return (h + f->nbuckets - i) % f->nbuckets;
}

static bf_cuckoo_place ck_place(const cuckoo_state *s, bf_key_hash h)
{
    bf_cuckoo_place p, got = bf_cuckoo_locate(&s->f, h);
    p.fp = (uint32_t)bf_reduce(h.h2, s->f.slots.max) + 1; /* floor(h2 * (2^f - 1) / 2^64) + 1 */
    p.i1 = bf_reduce(h.h1, s->f.nbuckets);
    p.i2 = ck_alt(&s->f, p.i1, p.fp);
    CHECK(p.fp >= 1 && p.fp <= s->f.slots.max);
    CHECK(ck_alt(&s->f, p.i2, p.fp) == p.i1); /* its own inverse */
    CHECK(got.fp == p.fp && got.i1 == p.i1 && got.i2 == p.i2);
    return p;
}

static ck_class ck_class_of(uint32_t fp, uint64_t a, uint64_t b)
{
    ck_class c = {fp, a < b ? a : b};
    return c;
}

MODEL static unsigned ck_copies_in(const cuckoo_state *s, uint64_t b, uint32_t fp)
{
    unsigned n = 0;
    for (uint64_t j = b * BF_CUCKOO_SLOTS; j < (b + 1) * BF_CUCKOO_SLOTS; j++) n += bf_buckets_get(&s->f.slots, j) == fp;
    return n;
}

/* Copies of the key's class in the filter (its two buckets, once if one). */
static unsigned ck_slots_of(const cuckoo_state *s, bf_cuckoo_place p)
{
    return ck_copies_in(s, p.i1, p.fp) + (p.i2 != p.i1 ? ck_copies_in(s, p.i2, p.fp) : 0);
}

/* Copies of the class the model holds: the n of every key in it. */
MODEL static uint64_t ck_model_of(const cuckoo_state *s, bf_cuckoo_place p)
{
    ck_class want = ck_class_of(p.fp, p.i1, p.i2);
    uint64_t n = 0;
    for (size_t i = 0; i < s->keys.len; i++) {
        const tally_entry *e = &s->keys.items[i];
        if (!e->n) continue;
        bf_cuckoo_place q = bf_cuckoo_locate(&s->f, e->h);
        ck_class c = ck_class_of(q.fp, q.i1, q.i2);
        if (c.fp == want.fp && c.lo == want.lo) n += e->n;
    }
    return n;
}

/* One key against the filter and the model: count exactly its class's
 * copies (never below its own), include? when there is one. */
static unsigned ck_lookup(const cuckoo_state *s, const reader *r, key_ref k, bf_key_hash h)
{
    bf_cuckoo_place p = ck_place(s, h);
    unsigned got = bf_cuckoo_count(&s->f, h), slots = ck_slots_of(s, p);
    CHECK(got == slots && got <= 2 * BF_CUCKOO_SLOTS);
    CHECK(bf_cuckoo_contains(&s->f, h) == (got > 0));
    CHECK(ck_model_of(s, p) == got);
    long i = tally_find(&s->keys, r, k, h);
    if (i >= 0) CHECK(got >= s->keys.items[i].n);
    return got;
}

MODEL static void ck_snapshot(const cuckoo_state *s, uint32_t *out)
{
    for (uint64_t j = 0; j < s->f.slots.count; j++) out[j] = bf_buckets_get(&s->f.slots, j);
}

MODEL static int ck_class_cmp(const void *a, const void *b)
{
    const ck_class *x = a, *y = b;
    if (x->fp != y->fp) return x->fp < y->fp ? -1 : 1;
    return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* The classes of the slots in use, sorted; their number. */
MODEL static size_t ck_slot_classes(const cuckoo_state *s, ck_class *out)
{
    size_t n = 0;
    for (uint64_t j = 0; j < s->f.slots.count; j++) {
        uint32_t v = bf_buckets_get(&s->f.slots, j);
        if (!v) continue;
        uint64_t b = j / BF_CUCKOO_SLOTS;
        out[n++] = ck_class_of(v, b, ck_alt(&s->f, b, v));
    }
    qsort(out, n, sizeof *out, ck_class_cmp);
    return n;
}

/* The model's copies as classes, sorted (at most max of them). */
MODEL static size_t ck_model_classes(const cuckoo_state *s, ck_class *out, size_t max)
{
    size_t n = 0;
    for (size_t i = 0; i < s->keys.len; i++) {
        const tally_entry *e = &s->keys.items[i];
        bf_cuckoo_place p = bf_cuckoo_locate(&s->f, e->h);
        CHECK(e->n <= max - n);
        for (uint64_t c = 0; c < e->n; c++) out[n++] = ck_class_of(p.fp, p.i1, p.i2);
    }
    qsort(out, n, sizeof *out, ck_class_cmp);
    return n;
}

/* Whether sorted a[0..na) is a sub-multiset of sorted b[0..nb). */
MODEL static int ck_classes_within(const ck_class *a, size_t na, const ck_class *b, size_t nb)
{
    size_t j = 0;
    for (size_t i = 0; i < na; i++) {
        while (j < nb && ck_class_cmp(&b[j], &a[i]) < 0) j++;
        if (j == nb || ck_class_cmp(&b[j], &a[i]) != 0) return 0;
        j++;
    }
    return 1;
}

static void ck_check_counts(const cuckoo_state *s)
{
    CHECK(s->f.count == s->count && s->count <= s->f.slots.count);
}

/* Every slot and key: the slots' classes are the model's copies. */
MODEL static void cuckoo_check_all(void *state, const reader *r)
{
    const cuckoo_state *s = state;
    if (!s->f.slots.data) return;
    ck_check_counts(s);
    CHECK(bf_buckets_count_nonzero(&s->f.slots) == s->f.count);
    CHECK(bf_buckets_tail_clear(&s->f.slots));
    static ck_class have[CUCKOO_MAX_SLOTS], want[CUCKOO_MAX_SLOTS];
    size_t nh = ck_slot_classes(s, have), nw = ck_model_classes(s, want, CUCKOO_MAX_SLOTS);
    CHECK(nh == nw && nh == s->count);
    for (size_t i = 0; i < nh; i++) CHECK(ck_class_cmp(&have[i], &want[i]) == 0);
    for (size_t i = 0; i < s->keys.len; i++) ck_lookup(s, r, s->keys.items[i].key, s->keys.items[i].h);
}

/* For qsort: uint32s in order. */
MODEL static int u32_cmp(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* The first slot of bucket b holding v, or UINT64_MAX. */
static uint64_t ck_first(const uint32_t *slots, uint64_t b, uint32_t v)
{
    for (uint64_t j = b * BF_CUCKOO_SLOTS; j < (b + 1) * BF_CUCKOO_SLOTS; j++)
        if (slots[j] == v) return j;
    return UINT64_MAX;
}

/* The slots before and after differ at `at` alone, from `was` to `now`. */
MODEL static void ck_check_one_change(const cuckoo_state *s, const uint32_t *before, uint64_t at, uint32_t now)
{
    for (uint64_t j = 0; j < s->f.slots.count; j++) CHECK(bf_buckets_get(&s->f.slots, j) == (j == at ? now : before[j]));
    CHECK(bf_buckets_tail_clear(&s->f.slots));
}

/* One add: 0 only with both buckets full, and then not a byte changed;
 * an empty slot of i1 (else i2) taken as it is; a kick moves fingerprints
 * but loses none. Returns the add's answer. */
static int ck_add(cuckoo_state *s, reader *r, key_ref k, bf_key_hash h)
{
    static uint32_t before[CUCKOO_MAX_SLOTS + 1], after[CUCKOO_MAX_SLOTS + 1];
    static uint8_t bytes[CUCKOO_MAX_SLOTS * 4 + 8];
    uint64_t n = s->f.slots.count;
    size_t nbytes = ck_nbytes(s);
    CHECK(nbytes <= sizeof bytes);
    bf_cuckoo_place p = ck_place(s, h);
    ck_snapshot(s, before);
    memcpy(bytes, s->f.slots.data, nbytes);
    unsigned had = ck_slots_of(s, p);
    uint64_t empty = ck_first(before, p.i1, 0);
    if (empty == UINT64_MAX) empty = ck_first(before, p.i2, 0);
    if (!bf_cuckoo_add(&s->f, h)) {
        CHECK(empty == UINT64_MAX); /* a free slot of its own is never refused */
        CHECK(memcmp(bytes, s->f.slots.data, nbytes) == 0);
        ck_check_counts(s);
        CHECK(ck_lookup(s, r, k, h) == had);
        return 0;
    }
    tally_get(&s->keys, r, k, h)->n++;
    s->count++;
    ck_check_counts(s);
    if (empty != UINT64_MAX) {
        ck_check_one_change(s, before, empty, p.fp);
    } else {
        /* Kicked: the slots hold what they held and the new fingerprint,
         * one empty slot fewer (the classes are checked with the rest). */
        ck_snapshot(s, after);
        before[n] = p.fp;
        after[n] = 0;
        qsort(before, (size_t)n + 1, sizeof *before, u32_cmp);
        qsort(after, (size_t)n + 1, sizeof *after, u32_cmp);
        CHECK(memcmp(before, after, ((size_t)n + 1) * sizeof *before) == 0);
        CHECK(bf_buckets_tail_clear(&s->f.slots));
    }
    CHECK(ck_lookup(s, r, k, h) == had + 1);
    return 1;
}

/* One remove: 1 exactly when the key's class has a copy, which goes from
 * the first slot holding it (i1 before i2) and nowhere else; the model
 * takes it from the key, or from another key of its class (a false
 * positive). */
static void ck_remove(cuckoo_state *s, const reader *r, key_ref k, bf_key_hash h)
{
    static uint32_t before[CUCKOO_MAX_SLOTS];
    bf_cuckoo_place p = ck_place(s, h);
    ck_snapshot(s, before);
    unsigned had = ck_slots_of(s, p);
    uint64_t at = ck_first(before, p.i1, p.fp);
    if (at == UINT64_MAX) at = ck_first(before, p.i2, p.fp);
    int got = bf_cuckoo_remove(&s->f, h);
    CHECK(got == (had > 0) && got == (at != UINT64_MAX));
    if (got) {
        long i = tally_find(&s->keys, r, k, h);
        tally_entry *e = i >= 0 && s->keys.items[i].n > 0 ? &s->keys.items[i] : NULL;
        ck_class want = ck_class_of(p.fp, p.i1, p.i2);
        for (size_t j = 0; !e && j < s->keys.len; j++) {
            tally_entry *o = &s->keys.items[j];
            bf_cuckoo_place q = bf_cuckoo_locate(&s->f, o->h);
            ck_class c = ck_class_of(q.fp, q.i1, q.i2);
            if (o->n > 0 && c.fp == want.fp && c.lo == want.lo) e = o;
        }
        CHECK(e != NULL); /* a copy no key of the model put in */
        e->n--;
        s->count--;
    }
    ck_check_counts(s);
    ck_check_one_change(s, before, at, 0);
    CHECK(ck_lookup(s, r, k, h) == had - (unsigned)got);
}

/* Whether one more add may run (see CUCKOO_BUDGET), and pay for it. */
static int ck_may_add(reader *r) { return CUCKOO_BUDGET - r->cuckoo_adds >= BF_CUCKOO_KICKS; }

static void ck_spend(reader *r, int added)
{
    uint64_t cost = added ? CUCKOO_ADD_COST : BF_CUCKOO_KICKS;
    r->cuckoo_adds = cost > CUCKOO_BUDGET - r->cuckoo_adds ? CUCKOO_BUDGET : r->cuckoo_adds + cost;
}

/* A key, u8 t: the same key t % 16 + 1 times: its class fills, then kicks. */
static void cuckoo_add_op(void *state, reader *r)
{
    cuckoo_state *s = state;
    key_ref k = rd_key(r);
    unsigned times = 1 + rd_u8(r) % MAX_REPEAT;
    if (!s->f.slots.data) return;
    bf_key_hash h = mm_hash(r, k, s->f.seed);
    for (unsigned t = 0; t < times; t++) {
        if (t > 0 && !ck_may_add(r)) break;
        ck_spend(r, ck_add(s, r, k, h));
    }
}

/* A key: each of its suffixes, longest first, added once; up to 255 keys
 * from one fill the filter and kick. */
static void cuckoo_fill_op(void *state, reader *r)
{
    cuckoo_state *s = state;
    key_ref k = rd_key(r);
    if (!s->f.slots.data) return;
    for (size_t j = 0; j < k.len; j++) {
        if (j > 0 && !ck_may_add(r)) break;
        key_ref sub = {k.off + j, k.len - j};
        ck_spend(r, ck_add(s, r, sub, mm_hash(r, sub, s->f.seed)));
    }
}

/* Remove any key. */
static void cuckoo_remove_op(void *state, reader *r)
{
    cuckoo_state *s = state;
    key_ref k = rd_key(r);
    if (!s->f.slots.data) return;
    ck_remove(s, r, k, mm_hash(r, k, s->f.seed));
}

/* Remove a key given before (u8 index). */
static void cuckoo_remove_known_op(void *state, reader *r)
{
    cuckoo_state *s = state;
    uint8_t which = rd_u8(r);
    if (!s->f.slots.data || s->keys.len == 0) return;
    tally_entry e = s->keys.items[which % s->keys.len];
    ck_remove(s, r, e.key, e.h);
}

/* Count any key. */
static void cuckoo_count_op(void *state, reader *r)
{
    cuckoo_state *s = state;
    key_ref k = rd_key(r);
    if (!s->f.slots.data) return;
    ck_lookup(s, r, k, mm_hash(r, k, s->f.seed));
}

/* Everything, while the scan budget lasts. */
static void cuckoo_check_op(void *state, reader *r)
{
    cuckoo_state *s = state;
    if (!s->f.slots.data) return;
    ck_check_counts(s);
    CHECK(bf_buckets_count_nonzero(&s->f.slots) == s->count);
    if (may_scan(r, s->f.slots.count * 64 + (uint64_t)s->keys.len * 64)) cuckoo_check_all(s, r);
}

/* ---------------------------------------------------- binary fuse filter */

/* Model: the set of key hashes a filter was built from (sorted, distinct).
 * The filter is static, so it has no header and no twin: OP_FUSE_BUILD
 * makes one from hashes of the input (0 .. FUSE_MAX_GEN generated, with
 * repeats on purpose, then up to FUSE_MAX_RAW raw u64s), in caller-provided
 * scratch and fingerprints of exactly the sizes the core asks for (ASan
 * sees a byte past them), either after bf_fuse_dedup, as the binding does,
 * or with the repeats left in (the core dedups on its first failure). The
 * build must succeed; every hash of the set is found; bf_fuse_contains (the
 * portable bf_reduce here) and bf_fuse_contains_many (bf_fuse.c's int128
 * one) agree with a lookup done here from the header's formulas, for members
 * and non-members alike; the seed used is one of the first
 * BF_FUSE_ATTEMPTS_MAX of the splitmix64 sequence; and the same set, in
 * another order with other repeats, builds the same bytes and seed. The
 * shape op asks bf_fuse_shape for any n and bits (refused: nothing is
 * built), then mutates its fields as a loaded file could have them: when
 * bf_fuse_valid_shape accepts, which it must exactly when the header's
 * relations between the fields hold, every lookup stays inside
 * bf_fuse_nbytes. */
#define FUSE_MAX_GEN 3000
#define FUSE_MAX_RAW 32
/* Keys built per input, over every build: a few builds of a few thousand,
 * so that the other structures keep their share of the time. */
#define FUSE_BUDGET (1u << 15)
#define FUSE_PROBES 256          /* non-members looked up after a build */
#define FUSE_FP_MAX 24           /* of them false positives: the rate is 1/256 or less (mean 1) */
#define FUSE_READ_MAX (1u << 16) /* mutated shapes up to this many bytes get fingerprints to read */
#define FUSE_ATTEMPTS BF_FUSE_ATTEMPTS_MAX

typedef struct {
    bf_fuse f;     /* fingerprints: exactly bf_fuse_nbytes(f) bytes, or NULL before a build */
    uint64_t *set; /* the model: the distinct hashes, ascending */
    size_t n;
} fuse_state;

/* The input's one filter: OP_FUSE_BUILD makes it, fuse_final frees it. */
static fuse_state input_fuse;

static void fuse_free(fuse_state *s)
{
    free(s->f.fingerprints);
    free(s->set);
    memset(s, 0, sizeof *s);
}

/* malloc that never answers NULL (n = 0 gets a byte: ASan still sees any read). */
static void *fuse_alloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    CHECK(p != NULL);
    return p;
}

MODEL static int u64_cmp(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Sorts and drops repeats in place; the number of distinct values. */
MODEL static size_t fuse_model_set(uint64_t *v, size_t n)
{
    if (n == 0) return 0;
    qsort(v, n, sizeof *v, u64_cmp);
    size_t d = 1;
    for (size_t i = 1; i < n; i++)
        if (v[i] != v[d - 1]) v[d++] = v[i];
    return d;
}

MODEL static int fuse_member(const fuse_state *s, uint64_t key)
{
    return s->n && bsearch(&key, s->set, s->n, sizeof *s->set, u64_cmp) != NULL;
}

static int fuse_same_shape(const bf_fuse *a, const bf_fuse *b)
{
    return a->segment_length == b->segment_length && a->segment_length_mask == b->segment_length_mask &&
           a->segment_count == b->segment_count && a->segment_count_length == b->segment_count_length &&
           a->array_length == b->array_length && a->fingerprint_bits == b->fingerprint_bits;
}

/* The header's relations between the fields (bf_fuse.h's struct), from
 * which every lookup stays in the array: bits 8 or 16; the empty filter all
 * zeros; else a power-of-two segment length 4 .. 2^18, its mask, at least
 * one segment for first slots, and the two lengths their products, in
 * exact arithmetic. */
static int fuse_ref_valid(const bf_fuse *f)
{
    if (f->fingerprint_bits != 8 && f->fingerprint_bits != 16) return 0;
    uint64_t l = f->segment_length, c = f->segment_count;
    if (f->array_length == 0) return l == 0 && f->segment_length_mask == 0 && c == 0 && f->segment_count_length == 0;
    int pow2 = 0;
    for (unsigned b = 2; b <= BF_FUSE_OFFSET_SHIFT; b++) pow2 |= l == ((uint64_t)1 << b);
    return pow2 && f->segment_length_mask == l - 1 && c >= 1 && f->segment_count_length == c * l &&
           f->array_length == (c + 2) * l;
}

/* A key's slots from the header's description, in 64-bit arithmetic and the
 * direct __int128 multiply-shift: one in each of three consecutive
 * segments, inside the array, and what bf_fuse_positions (this file's
 * portable bf_reduce) gives. f must be valid and not empty. */
static void fuse_ref_positions(const bf_fuse *f, uint64_t h, uint32_t out[3])
{
    uint64_t l = f->segment_length, mask = l - 1;
    uint64_t p0 = (uint64_t)(((fuzz_u128)h * f->segment_count_length) >> 64);
    uint64_t pos[3] = {p0, (p0 + l) ^ (h & mask), (p0 + 2 * l) ^ ((h >> BF_FUSE_OFFSET_SHIFT) & mask)};
    uint32_t got[3];
    bf_fuse_positions(f, h, got);
    CHECK(p0 < f->segment_count_length);
    for (int j = 0; j < 3; j++) {
        CHECK(pos[j] < f->array_length && pos[j] / l == p0 / l + (uint64_t)j);
        CHECK(got[j] == pos[j]);
        out[j] = (uint32_t)pos[j];
    }
}

static uint32_t fuse_slot(const bf_fuse *f, uint32_t p)
{
    const uint8_t *fp = f->fingerprints;
    return f->fingerprint_bits == 8 ? fp[p] : (uint32_t)fp[2 * (size_t)p] | (uint32_t)fp[2 * (size_t)p + 1] << 8;
}

/* A lookup done here: the fingerprint (bits 0..15 of h ^ h >> 32, cut to
 * the width) is the XOR of the key's three slots. */
static int fuse_ref_contains(const bf_fuse *f, uint64_t key)
{
    if (f->array_length == 0) return 0;
    uint64_t h = ref_fmix64(key + f->seed);
    CHECK(h == bf_fuse_mix(key, f->seed));
    uint32_t pos[3], want = (uint32_t)(h ^ (h >> 32)) & (f->fingerprint_bits == 8 ? 0xffU : 0xffffU);
    fuse_ref_positions(f, h, pos);
    return (want ^ fuse_slot(f, pos[0]) ^ fuse_slot(f, pos[1]) ^ fuse_slot(f, pos[2])) == 0;
}

/* keys[0 .. n) looked up one at a time and as a batch, each against the
 * lookup done here; members of s (when given) must be found. Returns the
 * false positives: keys found that are not members. */
static size_t fuse_lookups(const bf_fuse *f, const uint64_t *keys, size_t n, const fuse_state *s)
{
    uint8_t *out = fuse_alloc(n);
    size_t fps = 0;
    bf_fuse_contains_many(f, keys, n, out);
    for (size_t i = 0; i < n; i++) {
        int got = bf_fuse_contains(f, keys[i]);
        CHECK(out[i] == got && got == fuse_ref_contains(f, keys[i]));
        if (!s) continue;
        int member = fuse_member(s, keys[i]);
        if (member) CHECK(got);
        fps += got && !member;
    }
    free(out);
    return fps;
}

/* A shape bf_fuse_shape gave for n keys: accepted by bf_fuse_valid_shape,
 * the paper's segment length, room for n keys at 1.125 slots a key or more,
 * and the byte counts the header gives. */
static void fuse_check_shape(const bf_fuse *f, uint64_t n, unsigned bits)
{
    CHECK(bf_fuse_valid_shape(f) && fuse_ref_valid(f) && f->fingerprint_bits == bits && f->seed == 0);
    CHECK(bf_fuse_nbytes(f) == (size_t)f->array_length * (bits / 8));
    size_t scratch = bf_fuse_scratch_bytes(n);
    if (n == 0) {
        CHECK(f->array_length == 0 && scratch == 0);
        return;
    }
    /* Room to peel, and the scratch fuse_try lays out: per slot a hash, an
     * order entry and a count, per key its mixed hash. */
    CHECK(f->array_length >= n + n / 8 && scratch >= (size_t)f->array_length * 13 + n * 8);
    /* The paper's 2^floor(log_3.33(n) + 2.25), 4 .. 2^18 (not checked where
     * the exponent is within rounding of an integer). */
    long double e = logl((long double)n) / logl(3.33L) + 2.25L, fl = floorl(e);
    if (e - fl < 1e-9L || fl + 1 - e < 1e-9L) return;
    CHECK(f->segment_length == (fl >= BF_FUSE_OFFSET_SHIFT ? BF_FUSE_SEGMENT_LENGTH_MAX : (uint32_t)1 << (int)fl));
}

/* Which step of the splitmix64 sequence from `from` is `seed` (FUSE_ATTEMPTS
 * when none of the ones a build tries). */
MODEL static unsigned fuse_seed_step(uint64_t from, uint64_t seed)
{
    uint64_t s = from;
    for (unsigned t = 0; t < FUSE_ATTEMPTS; t++) {
        if (s == seed) return t;
        uint64_t state = s;
        s = ref_splitmix64(&state);
    }
    return FUSE_ATTEMPTS;
}

/* One build of keys[0 .. n) (modified as the build may) into f, shaped
 * here for n, with scratch and fingerprints of exactly the sizes asked for.
 * The fingerprints start out as garbage. */
static void fuse_build_into(bf_fuse *f, uint64_t *keys, size_t n, unsigned bits, uint64_t seed)
{
    CHECK(bf_fuse_shape(n, bits, f));
    fuse_check_shape(f, n, bits);
    size_t nbytes = bf_fuse_nbytes(f), sb = bf_fuse_scratch_bytes(n);
    f->fingerprints = fuse_alloc(nbytes);
    memset(f->fingerprints, 0xa5 ^ (int)(seed & 0xff), nbytes);
    void *scratch = n ? fuse_alloc(sb) : NULL;
    bf_fuse shape = *f;
    CHECK(bf_fuse_build(f, keys, n, scratch, seed) == BF_FUSE_BUILT);
    CHECK(fuse_same_shape(f, &shape) && f->fingerprints == shape.fingerprints);
    CHECK(fuse_seed_step(seed, f->seed) < FUSE_ATTEMPTS);
    if (n == 0) CHECK(f->seed == seed);
    free(scratch);
}

/* u8 flags (bit 0: 16-bit fingerprints, bit 1: bf_fuse_dedup first as the
 * binding does, bit 2: generated hashes base + j rather than splitmix64
 * outputs), u64 seed, u16 g (% (FUSE_MAX_GEN + 1) generated hashes), u16
 * d (g % d + 1 distinct among them: hash j = i % d), u64 base, u8 r
 * (% (FUSE_MAX_RAW + 1)) and r u64 hashes as they are, u64 shuffle (the
 * order and repeats of the rebuild). */
static void fuse_build_op(reader *r)
{
    fuse_state *s = &input_fuse;
    uint8_t flags = rd_u8(r);
    uint64_t seed = rd_u64(r);
    size_t gen = rd_u16(r) % (FUSE_MAX_GEN + 1);
    size_t pool = rd_u16(r);
    uint64_t base = rd_u64(r);
    size_t raw = rd_u8(r) % (FUSE_MAX_RAW + 1), n = gen + raw;
    uint64_t *keys = fuse_alloc(n * sizeof *keys);
    pool = gen ? pool % gen + 1 : 0;
    for (size_t i = 0; i < gen; i++) {
        uint64_t j = i % pool, state = base + j;
        keys[i] = flags & 4 ? base + j : ref_splitmix64(&state);
    }
    for (size_t i = gen; i < n; i++) keys[i] = rd_u64(r);
    uint64_t shuffle = rd_u64(r);
    if (2 * (uint64_t)n + 1 > FUSE_BUDGET - r->fuse_keys) {
        free(keys);
        return;
    }
    r->fuse_keys += 2 * (uint64_t)n + 1;
    unsigned bits = flags & 1 ? 16 : 8;

    /* The model, and bf_fuse_dedup against it with the n * 8 bytes of
     * scratch it asks for. */
    uint64_t *set = fuse_alloc(n * sizeof *set), *work = fuse_alloc(n * sizeof *work);
    memcpy(set, keys, n * sizeof *set);
    size_t d = fuse_model_set(set, n);
    memcpy(work, keys, n * sizeof *work);
    uint64_t *dscratch = fuse_alloc(n * sizeof *dscratch);
    CHECK(bf_fuse_dedup(work, n, dscratch) == d && memcmp(work, set, d * sizeof *set) == 0);
    free(dscratch);

    fuse_free(s);
    size_t m = n;
    memcpy(work, keys, n * sizeof *work);
    if (flags & 2) {
        dscratch = fuse_alloc(bf_fuse_scratch_bytes(n));
        m = bf_fuse_dedup(work, n, dscratch);
        free(dscratch);
        memcpy(keys, work, m * sizeof *keys); /* as the build gets them */
    }
    fuse_build_into(&s->f, work, m, bits, seed);
    s->set = set;
    s->n = d;
    /* The keys: with repeats, sorted and deduplicated in front (every try
     * with repeats fails); without, left alone unless a seed failed. */
    if (m > d || s->f.seed != seed)
        CHECK(memcmp(work, set, d * sizeof *set) == 0);
    else
        CHECK(memcmp(work, keys, m * sizeof *keys) == 0);

    /* Every member found; non-members agree everywhere and are rarely found. */
    fuse_lookups(&s->f, set, d, s);
    uint64_t probe[FUSE_PROBES], state = shuffle ^ seed;
    for (size_t i = 0; i < FUSE_PROBES; i++) probe[i] = i < d && (i & 1) ? set[i] + 1 : ref_splitmix64(&state);
    CHECK(fuse_lookups(&s->f, probe, FUSE_PROBES, s) <= FUSE_FP_MAX);

    /* Determinism: the set in another order, with other repeats, in the
     * same shape (for n keys; after a dedup, d keys, or n if that is the
     * same shape), builds the same bytes with the same seed. */
    size_t len = m;
    bf_fuse n_shape, d_shape;
    if ((flags & 2) && bf_fuse_shape(n, bits, &n_shape) && bf_fuse_shape(d, bits, &d_shape) && fuse_same_shape(&n_shape, &d_shape)) len = n;
    uint64_t *again = fuse_alloc(len * sizeof *again);
    for (size_t i = 0; i < len; i++) again[i] = i < d ? set[i] : set[ref_splitmix64(&state) % d];
    for (size_t i = len; i > 1; i--) {
        size_t j = (size_t)(ref_splitmix64(&shuffle) % i);
        uint64_t t = again[i - 1];
        again[i - 1] = again[j];
        again[j] = t;
    }
    bf_fuse f2;
    fuse_build_into(&f2, again, len, bits, seed);
    CHECK(fuse_same_shape(&f2, &s->f) && f2.seed == s->f.seed);
    CHECK(memcmp(f2.fingerprints, s->f.fingerprints, bf_fuse_nbytes(&f2)) == 0);
    free(f2.fingerprints);
    free(again);
    free(work);
    free(keys);
}

/* u8 count (% 32 + 1), then per key a u8: odd, a member (u16 index), else a
 * u64 hash: each against the model and the lookup done here. */
static void fuse_lookup_op(reader *r)
{
    const fuse_state *s = &input_fuse;
    uint64_t keys[32];
    size_t n = rd_u8(r) % 32 + 1;
    for (size_t i = 0; i < n; i++) {
        uint8_t sel = rd_u8(r);
        if ((sel & 1) && s->n)
            keys[i] = s->set[rd_u16(r) % s->n];
        else
            keys[i] = rd_u64(r);
    }
    if (!s->f.fingerprints) return;
    fuse_lookups(&s->f, keys, n, s);
}

/* u8 shift, u64 n (n >> shift % 64 keys), u8 bits: bf_fuse_shape, refused
 * exactly for other bits than 8 and 16 and for over 2^32 keys, or near it
 * (accepted up to 3.5 billion), and a refusal builds nothing. Then u8
 * which: bit i XORs field i (segment_length, mask, segment_count,
 * segment_count_length, array_length, fingerprint_bits) with a u32; bit 6
 * replaces them all by a consistent-looking shape (u8 log2 length % 32, u32
 * count, products in 32 bits, which may wrap); bit 7 reads fingerprints
 * from the input. u64 seed, u8 count (% 16 + 1) and that many u64 keys. */
static void fuse_shape_op(reader *r)
{
    unsigned shift = rd_u8(r) % 64;
    uint64_t n = rd_u64(r) >> shift;
    unsigned bits = rd_u8(r);
    bf_fuse f;
    int ok = bf_fuse_shape(n, bits, &f);
    if (bits != 8 && bits != 16) CHECK(!ok);
    if (n > ((uint64_t)1 << 32)) CHECK(!ok);
    if ((bits == 8 || bits == 16) && n <= 3500000000u) CHECK(ok);
    bf_fuse f8;
    CHECK((bf_fuse_scratch_bytes(n) == 0) == (n == 0 || !bf_fuse_shape(n, 8, &f8)));
    if (ok) {
        fuse_check_shape(&f, n, bits);
    } else {
        /* Nothing is built: no key, scratch or fingerprint is touched. */
        uint64_t few[1] = {n};
        CHECK(bf_fuse_build(&f, few, (size_t)n, NULL, 1) == BF_FUSE_BAD_SHAPE && few[0] == n);
    }

    uint8_t which = rd_u8(r);
    uint32_t *fields[6] = {&f.segment_length, &f.segment_length_mask, &f.segment_count, &f.segment_count_length, &f.array_length, &f.fingerprint_bits};
    if (which & 64) {
        unsigned lg = rd_u8(r) % 32;
        uint32_t count = rd_u32(r), l = (uint32_t)1 << lg;
        f.segment_length = l;
        f.segment_length_mask = l - 1;
        f.segment_count = count;
        f.segment_count_length = count * l;
        f.array_length = (count + 2) * l;
    }
    for (int i = 0; i < 6; i++)
        if (which & (1 << i)) *fields[i] ^= rd_u32(r);
    f.seed = rd_u64(r);
    uint64_t keys[16];
    size_t nk = rd_u8(r) % 16 + 1;
    for (size_t i = 0; i < nk; i++) keys[i] = rd_u64(r);
    int valid = bf_fuse_valid_shape(&f);
    CHECK(valid == fuse_ref_valid(&f));
    f.fingerprints = NULL;
    if (!valid) return;
    size_t nbytes = bf_fuse_nbytes(&f);
    CHECK(nbytes == (size_t)f.array_length * (f.fingerprint_bits / 8));
    if (nbytes > FUSE_READ_MAX) {
        /* Too large to give it fingerprints: the slots are checked in range. */
        uint32_t pos[3];
        for (size_t i = 0; i < nk; i++) fuse_ref_positions(&f, bf_fuse_mix(keys[i], f.seed), pos);
        return;
    }
    f.fingerprints = fuse_alloc(nbytes);
    for (size_t i = 0; i < nbytes; i++) f.fingerprints[i] = which & 128 ? rd_u8(r) : (uint8_t)(i * 151 + 7);
    fuse_lookups(&f, keys, nk, NULL);
    /* A build into it for a count it was not shaped for is refused, and
     * leaves the fingerprints as they were. */
    bf_fuse want;
    size_t bn = nk % 4;
    uint8_t *was = fuse_alloc(nbytes);
    memcpy(was, f.fingerprints, nbytes);
    if (!bf_fuse_shape(bn, f.fingerprint_bits, &want) || !fuse_same_shape(&want, &f)) {
        CHECK(bf_fuse_build(&f, keys, bn, NULL, 1) == BF_FUSE_BAD_SHAPE);
        CHECK(memcmp(was, f.fingerprints, nbytes) == 0);
    }
    free(was);
    free(f.fingerprints);
}

MODEL static void fuse_final(void)
{
    fuse_state *s = &input_fuse;
    if (s->f.fingerprints) fuse_lookups(&s->f, s->set, s->n, s);
    fuse_free(s);
}

/* ------------------------------------------------------------ twins */

/* A second instance ("twin") of every structure: the bit field, the bucket
 * field, and the continuous, counting, spectral, bitwise, stable, A2, plain,
 * blocked, scalable and cuckoo filters (the plain and blocked filters merge with
 * bf_bits_or and bf_bits_and, as the binding merges them): the same
 * shape as the first one, made empty (then driven by its own ops, through
 * OP_TWIN_OP, with every check the first one gets) or as a copy of the
 * first. The combine ops merge the twin into the first, or the first into
 * the twin; the result is compared with the models merged cell by cell, the
 * input left unchanged is checked in full, and the guarantees of the merged
 * filter are checked against the merged true histories of the keys. */
#define MAX_MERGES 32 /* merges per input: each compares every cell of both */
#define MAX_PLANTS 16 /* plants of a slot per input: each rehashes the live keys */

static int may_merge(reader *r)
{
    return r->merges++ < MAX_MERGES;
}

static void *dup_bytes(const void *p, size_t n)
{
    void *q = malloc(n ? n : 1);
    CHECK(q != NULL);
    if (n) memcpy(q, p, n);
    return q;
}

static void *zeroed(size_t n)
{
    void *q = calloc(n ? n : 1, 1);
    CHECK(q != NULL);
    return q;
}

static void keys_copy(key_list *d, const key_list *s)
{
    d->items = dup_bytes(s->items, s->len * sizeof *s->items);
    d->len = d->cap = s->len;
}

static void tally_copy(tally *d, const tally *s)
{
    d->items = dup_bytes(s->items, s->len * sizeof *s->items);
    d->len = d->cap = s->len;
}

static void tally_push(tally *t, const tally_entry *e)
{
    if (t->len == t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 32;
        tally_entry *p = realloc(t->items, cap * sizeof *p);
        CHECK(p != NULL);
        t->items = p;
        t->cap = cap;
    }
    t->items[t->len++] = *e;
}

static int same_key(const reader *r, key_ref a, key_ref b)
{
    return a.len == b.len && (a.len == 0 || memcmp(key_ptr(r, a), key_ptr(r, b), a.len) == 0);
}

/* Keys sorted by a hash, so that merging two histories costs n log n. */
typedef struct {
    uint64_t h1, h2;
    size_t i;
} key_index;

MODEL static int key_index_cmp(const void *a, const void *b)
{
    const key_index *x = a, *y = b;
    if (x->h1 != y->h1) return x->h1 < y->h1 ? -1 : 1;
    if (x->h2 != y->h2) return x->h2 < y->h2 ? -1 : 1;
    return x->i < y->i ? -1 : x->i > y->i;
}

/* FNV-1a over a key's bytes: only to sort the keys of a key_list. */
MODEL static uint64_t model_bytes_hash(const uint8_t *p, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 0x100000001b3ULL;
    return h;
}

MODEL static key_index *tally_index(const tally *t)
{
    key_index *ix = malloc((t->len ? t->len : 1) * sizeof *ix);
    CHECK(ix != NULL);
    for (size_t i = 0; i < t->len; i++) {
        ix[i].h1 = t->items[i].h.h1;
        ix[i].h2 = t->items[i].h.h2;
        ix[i].i = i;
    }
    qsort(ix, t->len, sizeof *ix, key_index_cmp);
    return ix;
}

/* First position in ix[0..n) whose hash is not below (h1, h2). */
MODEL static size_t index_lower(const key_index *ix, size_t n, uint64_t h1, uint64_t h2)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (ix[mid].h1 < h1 || (ix[mid].h1 == h1 && ix[mid].h2 < h2)) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* The entry for key k among the first n of t, sorted in ix, or -1. */
MODEL static long tally_find_indexed(const tally *t, size_t n, const key_index *ix, const reader *r, key_ref k, bf_key_hash h)
{
    for (size_t j = index_lower(ix, n, h.h1, h.h2); j < n && ix[j].h1 == h.h1 && ix[j].h2 == h.h2; j++)
        if (same_key(r, t->items[ix[j].i].key, k)) return (long)ix[j].i;
    return -1;
}

MODEL static key_index *keys_index(const key_list *l, const reader *r)
{
    key_index *ix = malloc((l->len ? l->len : 1) * sizeof *ix);
    CHECK(ix != NULL);
    for (size_t i = 0; i < l->len; i++) {
        ix[i].h1 = model_bytes_hash(key_ptr(r, l->items[i].key), l->items[i].key.len);
        ix[i].h2 = 0;
        ix[i].i = i;
    }
    qsort(ix, l->len, sizeof *ix, key_index_cmp);
    return ix;
}

/* The smallest age of key k in l (sorted in ix), or -1 when it is not there. */
MODEL static long keys_min_age(const key_list *l, const key_index *ix, const reader *r, key_ref k)
{
    long best = -1;
    uint64_t h = model_bytes_hash(key_ptr(r, k), k.len);
    for (size_t j = index_lower(ix, l->len, h, 0); j < l->len && ix[j].h1 == h; j++) {
        const key_entry *e = &l->items[ix[j].i];
        if (same_key(r, e->key, k) && (best < 0 || e->age < (uint64_t)best)) best = (long)e->age;
    }
    return best;
}

/* One entry per key, the youngest (the one whose guarantee lasts longest). */
MODEL static void keys_dedupe(key_list *l, const reader *r)
{
    if (l->len < 2) return;
    key_index *ix = keys_index(l, r);
    key_entry *out = malloc(l->len * sizeof *out);
    CHECK(out != NULL);
    size_t n = 0;
    for (size_t a = 0; a < l->len;) {
        size_t b = a, start = n;
        while (b < l->len && ix[b].h1 == ix[a].h1) b++;
        for (size_t j = a; j < b; j++) {
            key_entry e = l->items[ix[j].i];
            size_t q = start;
            while (q < n && !same_key(r, out[q].key, e.key)) q++;
            if (q == n) out[n++] = e;
            else if (e.age < out[q].age) out[q].age = e.age;
        }
        a = b;
    }
    free(ix);
    free(l->items);
    l->items = out;
    l->cap = l->len;
    l->len = n;
}

/* The twins, empty (with the first's shape) or copies of the first. */

static void bits_twin(void *twin, const void *first, uint8_t mode, reader *r)
{
    bits_state *t = twin;
    const bits_state *s = first;
    int copy = mode & 1;
    bits_free(t);
    if (!s->f.data) return;
    uint64_t n = s->f.nbits;
    size_t nbytes = bf_bits_nbytes(n);
    if (copy) {
        *t = *s;
        t->f.data = dup_bytes(s->f.data, nbytes);
        t->model = dup_bytes(s->model, (size_t)n);
        return;
    }
    t->f.data = zeroed(nbytes);
    t->model = zeroed((size_t)n);
    t->f.nbits = n;
}

static void buckets_twin(void *twin, const void *first, uint8_t mode, reader *r)
{
    buckets_state *t = twin;
    const buckets_state *s = first;
    int copy = mode & 1;
    buckets_free(t);
    if (!s->f.data) return;
    size_t nbytes = bf_buckets_nbytes(s->f.count, s->f.width), cells = (size_t)s->f.count * sizeof *s->model;
    if (copy) {
        *t = *s;
        t->f.data = dup_bytes(s->f.data, nbytes);
        t->model = dup_bytes(s->model, cells);
        return;
    }
    t->f.data = zeroed(nbytes);
    t->model = zeroed(cells);
    bf_buckets_init(&t->f, s->f.count, s->f.width);
}

/* An empty twin starts at any slot of the ring: its clock is its own. */
static void cont_twin(void *twin, const void *first, uint8_t mode, reader *r)
{
    cont_state *t = twin;
    const cont_state *s = first;
    int copy = mode & 1;
    uint8_t slot = (uint8_t)(mode >> 1);
    cont_free(t);
    if (!s->f.buckets.data) return;
    uint64_t m = s->f.buckets.count;
    size_t nbytes = bf_buckets_nbytes(m, BF_CONT_BITS);
    if (copy) {
        *t = *s;
        t->f.buckets.data = dup_bytes(s->f.buckets.data, nbytes);
        t->age = dup_bytes(s->age, (size_t)m);
        t->expect = zeroed((size_t)m * sizeof *t->expect);
        keys_copy(&t->keys, &s->keys);
        return;
    }
    t->f.buckets.data = zeroed(nbytes);
    t->age = malloc((size_t)m);
    CHECK(t->age != NULL);
    memset(t->age, AGE_EMPTY, (size_t)m);
    t->expect = zeroed((size_t)m * sizeof *t->expect);
    bf_buckets_init(&t->f.buckets, m, BF_CONT_BITS);
    t->f.k = s->f.k;
    t->f.seed = s->f.seed;
    t->f.hash = s->f.hash;
    t->f.slot = t->slot0 = 1 + (uint32_t)slot % BF_CONT_SLOTS;
}

static void counting_twin(void *twin, const void *first, uint8_t mode, reader *r)
{
    counting_state *t = twin;
    const counting_state *s = first;
    int copy = mode & 1;
    counting_free(t);
    if (!s->f.cells.data) return;
    const bf_buckets *c = &s->f.cells;
    size_t nbytes = bf_buckets_nbytes(c->count, c->width), cells = (size_t)c->count * sizeof *s->model;
    if (copy) {
        *t = *s;
        t->f.cells.data = dup_bytes(c->data, nbytes);
        t->model = dup_bytes(s->model, cells);
        tally_copy(&t->keys, &s->keys);
        return;
    }
    t->f.cells.data = zeroed(nbytes);
    t->model = zeroed(cells);
    bf_buckets_init(&t->f.cells, c->count, c->width);
    t->f.k = s->f.k;
    t->f.seed = s->f.seed;
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

static void bitwise_twin(void *twin, const void *first, uint8_t mode, reader *r)
{
    bitwise_state *t = twin;
    const bitwise_state *s = first;
    int copy = mode & 1;
    bitwise_free(t);
    if (!s->f.levels) return;
    if (copy) {
        *t = *s;
        t->f.levels = dup_bytes(s->f.levels, s->f.nlevels * sizeof *s->f.levels);
        for (size_t l = 0; l < s->f.nlevels; l++) {
            const bf_buckets *b = &s->f.levels[l];
            t->f.levels[l].data = dup_bytes(b->data, bf_buckets_nbytes(b->count, b->width));
            t->model[l] = dup_bytes(s->model[l], (size_t)s->f.m * sizeof(uint32_t));
        }
        tally_copy(&t->keys, &s->keys);
        return;
    }
    t->f.m = s->f.m;
    t->f.width = s->f.width;
    t->f.k = s->f.k;
    t->f.seed = s->f.seed;
    bitwise_add_level(t);
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
    const bf_buckets *c = &s->f.cells;
    size_t nbytes = bf_buckets_nbytes(c->count, c->width), cells = (size_t)c->count * sizeof *s->model;
    if (copy) {
        *t = *s;
        t->f.cells.data = dup_bytes(c->data, nbytes);
        t->model = dup_bytes(s->model, cells);
        tally_copy(&t->keys, &s->keys);
        return;
    }
    t->f.cells.data = zeroed(nbytes);
    t->model = zeroed(cells);
    bf_buckets_init(&t->f.cells, c->count, c->width);
    t->f.k = s->f.k;
    t->f.seed = s->f.seed;
    t->f.d = s->f.d;
    t->f.random = t->random = random;
}

static void a2_twin(void *twin, const void *first, uint8_t mode, reader *r)
{
    a2_state *t = twin;
    const a2_state *s = first;
    int copy = mode & 1;
    a2_free(t);
    if (!s->f.halves[0].data) return;
    uint64_t nbits = s->f.halves[0].nbits;
    size_t nbytes = bf_bits_nbytes(nbits);
    if (copy) {
        *t = *s;
        for (int i = 0; i < 2; i++) {
            t->f.halves[i].data = dup_bytes(s->f.halves[i].data, nbytes);
            t->model[i] = dup_bytes(s->model[i], (size_t)nbits);
        }
        tally_copy(&t->keys, &s->keys);
        return;
    }
    for (int i = 0; i < 2; i++) {
        t->f.halves[i].data = zeroed(nbytes);
        t->f.halves[i].nbits = nbits;
        t->model[i] = zeroed((size_t)nbits);
    }
    t->f.k = s->f.k;
    t->f.seed = s->f.seed;
    t->f.capacity = s->f.capacity;
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

/* An empty twin has the first's parameters and seed: one empty layer. */
static void scalable_twin(void *twin, const void *first, uint8_t mode, reader *r)
{
    scalable_state *t = twin;
    const scalable_state *s = first;
    int copy = mode & 1;
    scalable_free(t);
    if (!s->f.layers) return;
    if (copy) {
        *t = *s;
        t->f.layers = dup_bytes(s->f.layers, s->nlayers * sizeof *s->f.layers);
        for (size_t i = 0; i < s->nlayers; i++) {
            const bf_layer *l = &s->f.layers[i];
            t->f.layers[i].bits.data = dup_bytes(l->bits.data, bf_bits_nbytes(l->bits.nbits));
            t->model[i] = dup_bytes(s->model[i], (size_t)l->bits.nbits);
        }
        keys_copy(&t->keys, &s->keys);
        return;
    }
    t->f.params = s->f.params;
    t->f.seed = s->f.seed;
    sc_append_layer(t);
}

/* An empty twin has the first's shape and seed. */
static void cuckoo_twin(void *twin, const void *first, uint8_t mode, reader *r)
{
    cuckoo_state *t = twin;
    const cuckoo_state *s = first;
    int copy = mode & 1;
    cuckoo_free(t);
    if (!s->f.slots.data) return;
    size_t nbytes = ck_nbytes(s);
    if (copy) {
        *t = *s;
        t->f.slots.data = dup_bytes(s->f.slots.data, nbytes);
        tally_copy(&t->keys, &s->keys);
        return;
    }
    bf_cuckoo_init(&t->f, s->f.nbuckets, s->f.slots.width, s->f.seed);
    t->f.slots.data = zeroed(nbytes);
}

/* ------------------------------------------------------------ merges */

/* bf_bits_or / bf_bits_and: bit by bit. */
MODEL static void bits_model_merge(bits_state *d, const bits_state *s, int intersect)
{
    d->ones = 0;
    for (uint64_t i = 0; i < d->f.nbits; i++) {
        d->model[i] = intersect ? (d->model[i] & s->model[i]) : (d->model[i] | s->model[i]);
        d->ones += d->model[i];
    }
}

static void bits_merge(void *dst, void *src, uint8_t flags, reader *r)
{
    bits_state *d = dst, *s = src;
    int intersect = flags & 1;
    if (!d->f.data || !s->f.data || d->f.nbits != s->f.nbits || !may_merge(r)) return;
    if (intersect) bf_bits_and(&d->f, &s->f);
    else bf_bits_or(&d->f, &s->f);
    bits_model_merge(d, s, intersect);
    bits_check(d, NULL);
    bits_check(s, NULL);
}

/* bf_buckets_combine: a + b stopping at the maximum, min or max. */
MODEL static uint32_t model_combine(uint32_t a, uint32_t b, uint32_t max, bf_combine_op op)
{
    if (op == BF_COMBINE_SUM) return (uint64_t)a + b >= max ? max : a + b;
    if (op == BF_COMBINE_MIN) return a < b ? a : b;
    return a > b ? a : b;
}

MODEL static void buckets_model_combine(buckets_state *d, const buckets_state *s, bf_combine_op op)
{
    for (uint64_t i = 0; i < d->f.count; i++) buckets_store(d, i, model_combine(d->model[i], s->model[i], d->f.max, op));
}

static const bf_combine_op combine_ops[3] = {BF_COMBINE_SUM, BF_COMBINE_MIN, BF_COMBINE_MAX};

static void buckets_merge(void *dst, void *src, uint8_t flags, reader *r)
{
    buckets_state *d = dst, *s = src;
    bf_combine_op op = combine_ops[(flags & 0x7f) % 3];
    if (!d->f.data || !s->f.data || d->f.count != s->f.count || d->f.width != s->f.width || !may_merge(r)) return;
    bf_buckets_combine(&d->f, &s->f, op);
    buckets_model_combine(d, s, op);
    buckets_check(d, NULL);
    buckets_check(s, NULL);
}

/* The continuous filters, on dst's clock, from the ages on each one's own
 * clock: union keeps the younger of the live ages, intersection the older
 * where both are live; anything not live (empty, or a stale planted slot)
 * counts as absent. A key of either history still live there is found in
 * the union for as long as it was there; a key of both in the intersection
 * for as long as the older of the two. recent_adds: summed / the smaller. */
MODEL static void cont_model_merge(cont_state *d, const cont_state *s, const reader *r, int intersect)
{
    for (uint64_t i = 0; i < d->f.buckets.count; i++) {
        uint8_t a = d->age[i], b = s->age[i], n;
        int la = age_live(a), lb = age_live(b);
        if (intersect) n = la && lb ? (a > b ? a : b) : AGE_EMPTY;
        else n = la ? (lb && b < a ? b : a) : (lb ? b : AGE_EMPTY);
        if (a != AGE_EMPTY) d->nonzero--;
        if (n != AGE_EMPTY) d->nonzero++;
        d->age[i] = n;
    }
    for (int j = 0; j <= BF_CONT_DIVISOR; j++) {
        if (intersect) d->recent[j] = s->recent[j] < d->recent[j] ? s->recent[j] : d->recent[j];
        else d->recent[j] += s->recent[j];
    }
    if (intersect) {
        key_index *ix = keys_index(&s->keys, r);
        size_t keep = 0;
        for (size_t i = 0; i < d->keys.len; i++) {
            key_entry e = d->keys.items[i];
            long age = keys_min_age(&s->keys, ix, r, e.key);
            if (age < 0) continue;
            if ((uint64_t)age > e.age) e.age = (uint64_t)age;
            d->keys.items[keep++] = e;
        }
        d->keys.len = keep;
        free(ix);
    } else {
        for (size_t i = 0; i < s->keys.len; i++) {
            keys_push(&d->keys, s->keys.items[i].key);
            d->keys.items[d->keys.len - 1].age = s->keys.items[i].age;
        }
        keys_dedupe(&d->keys, r);
    }
}

static void cont_merge(void *dst, void *src, uint8_t flags, reader *r)
{
    cont_state *d = dst, *s = src;
    int intersect = flags & 1;
    if (!d->f.buckets.data || !s->f.buckets.data || d->f.buckets.count != s->f.buckets.count || d->f.k != s->f.k ||
        d->f.seed != s->f.seed || d->f.hash != s->f.hash || !may_merge(r))
        return;
    if (intersect) bf_continuous_intersect(&d->f, &s->f);
    else bf_continuous_union(&d->f, &s->f);
    cont_model_merge(d, s, r, intersect);
    cont_check_all(d, NULL);
    CHECK(bf_continuous_valid(&d->f)); /* stale slots never survive a merge */
    cont_check_keys(d, r);
    cont_check_all(s, NULL);
}

/* Tallies of merged histories. Sum: each key's true counts added. Min: the
 * smaller of the two (0 for a key of one history only). Max: the larger. */
enum {
    TALLY_SUM,
    TALLY_MIN,
    TALLY_MAX
};

MODEL static void tally_merge_counts(tally *d, const tally *s, const reader *r, int how)
{
    if (how == TALLY_MIN) {
        key_index *ix = tally_index(s);
        for (size_t i = 0; i < d->len; i++) {
            tally_entry *e = &d->items[i];
            long j = tally_find_indexed(s, s->len, ix, r, e->key, e->h);
            uint64_t n = j < 0 ? 0 : s->items[j].n;
            if (n < e->n) e->n = n;
        }
        free(ix);
        return;
    }
    key_index *ix = tally_index(d);
    size_t dlen = d->len;
    for (size_t i = 0; i < s->len; i++) {
        const tally_entry *e = &s->items[i];
        /* Entries appended here are of s, all different: not searched. */
        long j = tally_find_indexed(d, dlen, ix, r, e->key, e->h);
        if (j < 0) {
            tally_entry n = *e;
            n.sc = 0;
            n.unreliable = 0;
            n.last = 0;
            tally_push(d, &n);
        } else if (how == TALLY_SUM) {
            d->items[j].n += e->n;
        } else if (e->n > d->items[j].n) {
            d->items[j].n = e->n;
        }
    }
    free(ix);
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

/* Bitwise: the caller's part (levels added to dst for a union, dropped past
 * src's for an intersection), then cell maxima or minima level by level.
 * A key counts at least the larger of its true counts (union) or the
 * smaller (intersection). */
static void bitwise_truncate(bitwise_state *s, size_t n)
{
    while (s->f.nlevels > n) {
        size_t l = --s->f.nlevels;
        free(s->f.levels[l].data);
        free(s->model[l]);
        s->model[l] = NULL;
    }
    s->nlevels = s->f.nlevels;
}

MODEL static void bitwise_model_merge(bitwise_state *d, const bitwise_state *s, const reader *r, int intersect)
{
    size_t n = d->nlevels < s->nlevels ? d->nlevels : s->nlevels;
    for (size_t l = 0; l < n; l++) {
        uint32_t max = level_max(d, l);
        for (uint64_t i = 0; i < d->f.m; i++)
            d->model[l][i] = model_combine(d->model[l][i], s->model[l][i], max, intersect ? BF_COMBINE_MIN : BF_COMBINE_MAX);
    }
    if (intersect) d->count = s->count < d->count ? s->count : d->count;
    else d->count = s->count > UINT64_MAX - d->count ? UINT64_MAX : d->count + s->count;
    tally_merge_counts(&d->keys, &s->keys, r, intersect ? TALLY_MIN : TALLY_MAX);
}

static void bitwise_merge(void *dst, void *src, uint8_t flags, reader *r)
{
    bitwise_state *d = dst, *s = src;
    int intersect = flags & 1;
    if (!d->f.levels || !s->f.levels || d->f.m != s->f.m || d->f.width != s->f.width || d->f.k != s->f.k ||
        d->f.seed != s->f.seed || !may_merge(r))
        return;
    if (intersect) {
        bf_bitwise_intersect(&d->f, &s->f);
        bitwise_truncate(d, s->f.nlevels);
    } else {
        while (d->f.nlevels < s->f.nlevels) bitwise_add_level(d);
        bf_bitwise_union(&d->f, &s->f);
    }
    bitwise_model_merge(d, s, r, intersect);
    d->distinct = d->f.distinct; /* the binding's to recount, as counting_merge */
    bitwise_check_all(d, r);
    bitwise_check_all(s, r);
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

/* A2: active half with active half, older with older, OR or AND; in_active
 * the smaller of the two (so no input's key is dropped sooner), count
 * summed (union) or the smaller, dst's swaps
 * and active half kept. A key's age in swaps (0: in the active half, 1: in
 * the older one, 2: not sure) is the younger of its two in a union; in an
 * intersection a key stays sure only in the same half of both. */
MODEL static void a2_model_merge(a2_state *d, const a2_state *s, const reader *r, int intersect)
{
    uint64_t nbits = d->f.halves[0].nbits;
    for (unsigned h = 0; h < 2; h++) {
        uint8_t *dm = d->model[d->active ^ h];
        const uint8_t *sm = s->model[s->active ^ h];
        for (uint64_t i = 0; i < nbits; i++) dm[i] = intersect ? (dm[i] & sm[i]) : (dm[i] | sm[i]);
    }
    if (intersect) {
        if (s->in_active < d->in_active) d->in_active = s->in_active;
        if (s->count < d->count) d->count = s->count;
    } else {
        if (s->in_active < d->in_active) d->in_active = s->in_active;
        d->count = s->count > UINT64_MAX - d->count ? UINT64_MAX : d->count + s->count;
    }
    key_index *ix = tally_index(intersect ? &s->keys : &d->keys);
    size_t dlen = d->keys.len;
    for (size_t i = 0; i < dlen; i++) {
        tally_entry *e = &d->keys.items[i];
        uint64_t age = d->swaps - e->last;
        if (age > 2) age = 2;
        if (intersect) {
            long j = tally_find_indexed(&s->keys, s->keys.len, ix, r, e->key, e->h);
            uint64_t as = j < 0 ? 2 : s->swaps - s->keys.items[j].last;
            if (as != age) age = 2;
        }
        e->last = d->swaps - age;
    }
    if (!intersect) {
        for (size_t i = 0; i < s->keys.len; i++) {
            const tally_entry *e = &s->keys.items[i];
            uint64_t age = s->swaps - e->last;
            if (age > 2) age = 2;
            long j = tally_find_indexed(&d->keys, dlen, ix, r, e->key, e->h);
            if (j < 0) {
                tally_entry n = *e;
                n.last = d->swaps - age;
                tally_push(&d->keys, &n);
            } else if (d->swaps - d->keys.items[j].last > age) {
                d->keys.items[j].last = d->swaps - age;
            }
        }
    }
    free(ix);
}

static void a2_merge(void *dst, void *src, uint8_t flags, reader *r)
{
    a2_state *d = dst, *s = src;
    int intersect = flags & 1;
    if (!d->f.halves[0].data || !s->f.halves[0].data || d->f.halves[0].nbits != s->f.halves[0].nbits ||
        d->f.k != s->f.k || d->f.seed != s->f.seed || d->f.capacity != s->f.capacity || !may_merge(r))
        return;
    if (intersect) bf_a2_intersect(&d->f, &s->f);
    else bf_a2_union(&d->f, &s->f);
    a2_model_merge(d, s, r, intersect);
    a2_check_all(d, r);
    a2_check_all(s, r);
}

/* The plain and blocked filters as the binding merges them: bf_bits_or or
 * bf_bits_and of the bits, count summed (saturating) or the smaller. Every
 * key of either history is found in the union, every key of both in the
 * intersection. distinct is left to the binding, which recounts it from the
 * fill: the model takes dst's from here on. */
MODEL static void filter_model_merge(uint8_t *dm, const uint8_t *sm, uint64_t nbits, key_list *dk, const key_list *sk,
                                     const reader *r, int intersect)
{
    for (uint64_t i = 0; i < nbits; i++) dm[i] = intersect ? (dm[i] & sm[i]) : (dm[i] | sm[i]);
    if (intersect) {
        key_index *ix = keys_index(sk, r);
        size_t keep = 0;
        for (size_t i = 0; i < dk->len; i++)
            if (keys_min_age(sk, ix, r, dk->items[i].key) >= 0) dk->items[keep++] = dk->items[i];
        dk->len = keep;
        free(ix);
    } else {
        for (size_t i = 0; i < sk->len; i++) keys_push(dk, sk->items[i].key);
        keys_dedupe(dk, r);
    }
}

static uint64_t merged_count(uint64_t a, uint64_t b, int intersect)
{
    if (intersect) return a < b ? a : b;
    return b > UINT64_MAX - a ? UINT64_MAX : a + b;
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

/* Scalable: as the binding's scalable_combine, of filters of the same
 * parameters and seed (so of layers of the same shapes, checked): dst first
 * takes copies of the layers it lacks (their bits and counts src's alone),
 * then bf_scalable_union ORs the layers both have, each count the larger
 * of the two or of the keys the fill implies (bf_layer_estimate); the add
 * counts are summed. Every key either took is found in dst; counts are
 * estimates from here on and may pass capacities, so the design rate may
 * pass error_rate. distinct adds up the layers' counts, at most
 * UINT64_MAX (a layer with every bit set counts that). */
static int scalable_same_params(const scalable_state *a, const scalable_state *b)
{
    const bf_scalable_params *p = &a->f.params, *q = &b->f.params;
    return a->f.seed == b->f.seed && p->error_rate == q->error_rate && p->initial_capacity == q->initial_capacity &&
           p->growth == q->growth && p->tightening == q->tightening && p->even_layers == q->even_layers &&
           p->max_capacity == q->max_capacity;
}

MODEL static void scalable_model_union(scalable_state *d, const scalable_state *s, const reader *r, size_t common)
{
    for (size_t i = 0; i < common; i++) {
        uint64_t m = d->f.layers[i].bits.nbits, ones = 0;
        for (uint64_t j = 0; j < m; j++) ones += d->model[i][j] |= s->model[i][j];
        d->ones[i] = ones;
        uint64_t larger = d->lcount[i] > s->lcount[i] ? d->lcount[i] : s->lcount[i];
        uint64_t both = d->lcount[i] > UINT64_MAX - s->lcount[i] ? UINT64_MAX : d->lcount[i] + s->lcount[i];
        double mm = (double)m, k = d->f.layers[i].k;
        uint64_t estimate = ones >= m ? UINT64_MAX : (uint64_t)llround(-(mm / k) * log1p(-(double)ones / mm));
        /* the union holds at least the larger set and at most both */
        d->lcount[i] = estimate < larger ? larger : (estimate > both ? both : estimate);
    }
    d->count = s->count > UINT64_MAX - d->count ? UINT64_MAX : d->count + s->count;
    d->unions = 1;
    for (size_t i = 0; i < s->keys.len; i++) keys_push(&d->keys, s->keys.items[i].key);
    keys_dedupe(&d->keys, r);
}

static void scalable_union(void *dst, void *src, uint8_t flags, reader *r)
{
    scalable_state *d = dst, *s = src;
    if (!d->f.layers || !s->f.layers || !scalable_same_params(d, s) || !may_merge(r)) return;
    size_t common = d->nlayers < s->nlayers ? d->nlayers : s->nlayers;
    for (size_t i = 0; i < common; i++) CHECK(bf_layer_same_shape(&d->f.layers[i], &s->f.layers[i]));
    if (s->nlayers > d->nlayers) {
        bf_layer *layers = realloc(d->f.layers, s->nlayers * sizeof *layers);
        CHECK(layers != NULL);
        d->f.layers = layers;
        for (size_t i = d->nlayers; i < s->nlayers; i++) {
            const bf_layer *l = &s->f.layers[i];
            layers[i] = *l;
            layers[i].bits.data = dup_bytes(l->bits.data, bf_bits_nbytes(l->bits.nbits));
            d->model[i] = dup_bytes(s->model[i], (size_t)l->bits.nbits);
            d->lcount[i] = s->lcount[i];
            d->ones[i] = s->ones[i];
        }
        d->f.nlayers = d->nlayers = s->nlayers;
    }
    bf_scalable_union(&d->f, &s->f, common);
    scalable_model_union(d, s, r, common);
    sc_check_all(d, r);
    sc_check_all(s, r);
}

/* Cuckoo: bf_cuckoo_union of filters of the same shape and seed, as the
 * binding's combine does it: on a copy that is put back when it answers 0.
 * src never changes. On success dst holds the copies of both (its classes
 * are both models', so every key of either is found) and count is the sum;
 * on failure (no room for one of src's fingerprints, which is allowed) the
 * part-way dst is still a filter: count its slots in use, every copy it
 * held still there, none that neither had. */
static void cuckoo_union(void *dst, void *src, uint8_t flags, reader *r)
{
    cuckoo_state *d = dst, *s = src;
    if (!d->f.slots.data || !s->f.slots.data || d->f.nbuckets != s->f.nbuckets ||
        d->f.slots.width != s->f.slots.width || d->f.seed != s->f.seed || !may_merge(r))
        return;
    static ck_class own[CUCKOO_MAX_SLOTS], theirs[CUCKOO_MAX_SLOTS], both[2 * CUCKOO_MAX_SLOTS], now[CUCKOO_MAX_SLOTS];
    size_t nbytes = ck_nbytes(d);
    uint8_t *dst_was = dup_bytes(d->f.slots.data, nbytes), *src_was = dup_bytes(s->f.slots.data, nbytes);
    uint64_t count = d->f.count;
    int ok = bf_cuckoo_union(&d->f, &s->f);
    CHECK(memcmp(src_was, s->f.slots.data, nbytes) == 0);
    ck_check_counts(s);
    if (ok) {
        CHECK(d->f.count == count + s->f.count);
        for (size_t i = 0; i < s->keys.len; i++) {
            const tally_entry *e = &s->keys.items[i];
            if (e->n) tally_get(&d->keys, r, e->key, e->h)->n += e->n;
        }
        d->count += s->count;
    } else {
        CHECK(bf_buckets_count_nonzero(&d->f.slots) == d->f.count && d->f.count >= count);
        CHECK(bf_buckets_tail_clear(&d->f.slots));
        size_t nn = ck_slot_classes(d, now), no = ck_model_classes(d, own, CUCKOO_MAX_SLOTS);
        size_t nt = ck_model_classes(s, theirs, CUCKOO_MAX_SLOTS);
        memcpy(both, own, no * sizeof *own);
        memcpy(both + no, theirs, nt * sizeof *theirs);
        qsort(both, no + nt, sizeof *both, ck_class_cmp);
        CHECK(ck_classes_within(own, no, now, nn) && ck_classes_within(now, nn, both, no + nt));
        memcpy(d->f.slots.data, dst_was, nbytes);
        d->f.count = count;
    }
    free(dst_was);
    free(src_was);
    cuckoo_check_all(d, r);
    cuckoo_check_all(s, r);
}

/* ------------------------------------------------------------ CRC-32C */

/* Bit at a time, straight from the definition (reflected polynomial
 * 0x82F63B78, register and result inverted). */
MODEL static uint32_t ref_crc32c(uint32_t crc, const uint8_t *p, size_t n)
{
    uint32_t c = ~crc;
    for (size_t i = 0; i < n; i++) {
        c ^= p[i];
        for (int b = 0; b < 8; b++) c = (c >> 1) ^ (0x82F63B78U & (0U - (c & 1)));
    }
    return ~c;
}

#define CRC_BUDGET (1u << 21) /* bytes checksummed per input */
#define ZEROS_MAX (1u << 19)  /* longest run of zero bytes checksummed */
static const uint8_t zero_bytes[ZEROS_MAX];

static int may_crc(reader *r, uint64_t bytes)
{
    if (bytes > CRC_BUDGET - r->crc_bytes) return 0;
    r->crc_bytes += bytes;
    return 1;
}

/* The check value, RFC 3720's vectors, and the portable path before
 * bf_crc32c_init (once per process). */
static void check_crc_vectors(void)
{
    static int done;
    if (done) return;
    done = 1;
    uint8_t buf[32];
    const uint8_t *nine = (const uint8_t *)"123456789";
    CHECK(ref_crc32c(0, nine, 9) == 0xE3069283U);
    CHECK(bf_crc32c(0, nine, 9) == 0xE3069283U); /* before init: the portable code */
    bf_crc32c_init();
    bf_crc32c_init();
    CHECK(bf_crc32c(0, nine, 9) == 0xE3069283U && bf_crc32c_sw(0, nine, 9) == 0xE3069283U);
    static const uint32_t want[4] = {0x8A9136AAU, 0x62A8AB43U, 0x46DD794EU, 0x113FDB5CU};
    for (int v = 0; v < 4; v++) {
        for (int i = 0; i < 32; i++) buf[i] = (uint8_t)(v == 0 ? 0 : (v == 1 ? 0xff : (v == 2 ? i : 31 - i)));
        CHECK(ref_crc32c(0, buf, 32) == want[v]);
        CHECK(bf_crc32c(0, buf, 32) == want[v] && bf_crc32c_sw(0, buf, 32) == want[v]);
    }
    CHECK(bf_crc32c_accelerated() == 0 || bf_crc32c_accelerated() == 1);
    CHECK(bf_crc32c(0, NULL, 0) == 0 && bf_crc32c_sw(0, NULL, 0) == 0 && bf_crc32c_zeros(0, 0) == 0);
    CHECK(bf_crc32c_zeros(0, 32) == want[0]);
}

/* A slice of the input, u32 starting crc, u8 flags (bits 0-2: cut points,
 * bits 3-5: an offset for a copy), then a u16 per cut point. Whole, in
 * pieces at the cut points (each piece by bf_crc32c, by bf_crc32c_sw, or
 * alternating), and copied to another alignment in a block of its exact
 * length: all equal to the bitwise reference. */
static void crc_op(reader *r)
{
    key_ref k = rd_key(r);
    uint32_t c0 = rd_u32(r);
    uint8_t flags = rd_u8(r);
    size_t cuts[8], ncuts = flags & 7, n = k.len;
    unsigned off = (flags >> 3) & 7;
    for (size_t i = 0; i < ncuts; i++) cuts[i] = rd_u16(r) % (n + 1);
    if (!may_crc(r, 6 * (uint64_t)n + 1)) return;
    for (size_t i = 1; i < ncuts; i++) /* sort the few cut points */
        for (size_t j = i; j > 0 && cuts[j - 1] > cuts[j]; j--) {
            size_t t = cuts[j];
            cuts[j] = cuts[j - 1];
            cuts[j - 1] = t;
        }
    const uint8_t *p = key_ptr(r, k);
    uint32_t want = ref_crc32c(c0, p, n);
    CHECK(bf_crc32c(c0, p, n) == want);
    CHECK(bf_crc32c_sw(c0, p, n) == want);
    for (int how = 0; how < 3; how++) {
        uint32_t c = c0;
        size_t from = 0;
        for (size_t i = 0; i <= ncuts; i++) {
            size_t to = i < ncuts ? cuts[i] : n;
            int sw = how == 1 || (how == 2 && (i & 1));
            c = sw ? bf_crc32c_sw(c, p + from, to - from) : bf_crc32c(c, p + from, to - from);
            from = to;
        }
        CHECK(c == want);
    }
    uint8_t *copy = malloc(n + off ? n + off : 1); /* ends with the slice */
    CHECK(copy != NULL);
    memset(copy, 0xA5, off);
    if (n) memcpy(copy + off, p, n);
    CHECK(bf_crc32c(c0, copy + off, n) == want && bf_crc32c_sw(c0, copy + off, n) == want);
    free(copy);
    CHECK(bf_crc32c(want, NULL, 0) == want && bf_crc32c_sw(want, NULL, 0) == want);
}

/* u32 crc, u32 n, u8 shift (n % (ZEROS_MAX + 1) >> shift % 20), u64 a,
 * u64 b: bf_crc32c_zeros against the checksum of n zero bytes (hardware,
 * portable, and bitwise for short runs), and zeros(zeros(c, a), b) ==
 * zeros(c, a + b) for runs up to 2^63 each. */
static void crc_zeros_op(reader *r)
{
    uint32_t c = rd_u32(r);
    uint32_t n = rd_u32(r);
    uint8_t shift = rd_u8(r);
    uint64_t a = rd_u64(r), b = rd_u64(r);
    n = (n % (ZEROS_MAX + 1)) >> (shift % 20);
    a >>= 1 + (shift >> 5);
    b >>= 1 + ((shift >> 2) & 7) * 8;
    uint32_t z = bf_crc32c_zeros(c, n);
    if (may_crc(r, n)) CHECK(bf_crc32c(c, zero_bytes, n) == z);
    if (may_crc(r, n)) CHECK(bf_crc32c_sw(c, zero_bytes, n) == z);
    if (n <= 4096 && may_crc(r, 8 * (uint64_t)n)) CHECK(ref_crc32c(c, zero_bytes, n) == z);
    CHECK(bf_crc32c_zeros(c, 0) == c);
    /* Runs near 2^64 take some 0.2 ms each under the sanitizers: charged as
     * 2^15 bytes, a few dozen per input. */
    if (!may_crc(r, 1u << 15)) return;
    CHECK(bf_crc32c_zeros(bf_crc32c_zeros(c, a), b) == bf_crc32c_zeros(c, a + b));
    CHECK(bf_crc32c_zeros(bf_crc32c_zeros(c, n), a) == bf_crc32c_zeros(c, a + n));
}

/* ------------------------------------------------------------ padding */

/* tail_clear: 1 on every structure as the ops leave it, 1 with the last
 * real bit (or bucket) set, 0 with any one bit of the padding set (planted
 * here and taken out again). */
static void tail_bits(bf_bits *b, uint16_t off, uint8_t flags)
{
    uint64_t nbits = b->nbits, pad = (uint64_t)bf_bits_nbytes(nbits) * 8 - nbits;
    CHECK(bf_bits_tail_clear(b));
    if ((flags & 1) && pad) {
        uint64_t bit = nbits + off % pad;
        CHECK(!bf_bits_get(b, bit));
        bf_bits_set(b, bit);
        CHECK(!bf_bits_tail_clear(b));
        bf_bits_clear(b, bit);
    }
    if (flags & 2) {
        int was = bf_bits_get(b, nbits - 1);
        bf_bits_set(b, nbits - 1);
        CHECK(bf_bits_tail_clear(b));
        if (!was) bf_bits_clear(b, nbits - 1);
    }
    CHECK(bf_bits_tail_clear(b));
}

/* The same for a bucket field; a continuous filter's validity goes with it
 * (live: whether the model holds no stale slot; live_but_last: none but
 * perhaps in the last bucket). */
static void tail_buckets(bf_buckets *b, uint16_t off, uint8_t flags, const bf_continuous *c, int live, int live_but_last)
{
    uint64_t nbits = b->count * b->width, pad = (uint64_t)bf_buckets_nbytes(b->count, b->width) * 8 - nbits;
    CHECK(bf_buckets_tail_clear(b));
    if (c) CHECK(bf_continuous_valid(c) == live);
    if ((flags & 1) && pad) {
        uint64_t bit = nbits + off % pad;
        uint8_t mask = (uint8_t)(1u << (bit & 7));
        CHECK(!(b->data[bit >> 3] & mask));
        b->data[bit >> 3] |= mask;
        CHECK(!bf_buckets_tail_clear(b));
        if (c) CHECK(!bf_continuous_valid(c));
        b->data[bit >> 3] &= (uint8_t)~mask;
    }
    if (flags & 2) {
        uint32_t was = bf_buckets_get(b, b->count - 1);
        /* A continuous filter's last bucket gets its current slot: live. */
        bf_buckets_set(b, b->count - 1, c ? c->slot : b->max);
        CHECK(bf_buckets_tail_clear(b));
        if (c) CHECK(bf_continuous_valid(c) == live_but_last);
        bf_buckets_set(b, b->count - 1, was);
    }
    CHECK(bf_buckets_tail_clear(b));
    if (c) CHECK(bf_continuous_valid(c) == live);
}

/* The padding targets of OP_TAIL (ops.h's FUZZ_TAILS): each kind's hook. */
static void bits_tail(void *state, uint16_t off, uint8_t flags)
{
    bits_state *s = state;
    if (s->f.data) tail_bits(&s->f, off, flags);
}

static void buckets_tail(void *state, uint16_t off, uint8_t flags)
{
    buckets_state *s = state;
    if (s->f.data) tail_buckets(&s->f, off, flags, NULL, 1, 1);
}

static void cont_tail(void *state, uint16_t off, uint8_t flags)
{
    cont_state *c = state;
    if (!c->f.buckets.data) return;
    uint64_t stale = cont_model_stale(c), last = c->f.buckets.count - 1;
    tail_buckets(&c->f.buckets, off, flags, &c->f, stale == 0, stale == (uint64_t)age_stale(c->age[last]));
}

static void counting_tail(void *state, uint16_t off, uint8_t flags)
{
    counting_state *s = state;
    if (s->f.cells.data) tail_buckets(&s->f.cells, off, flags, NULL, 1, 1);
}

/* One of the two halves (bit 0 of off), the rest of off in its padding. */
static void a2_tail(void *state, uint16_t off, uint8_t flags)
{
    a2_state *s = state;
    if (s->f.halves[0].data) tail_bits(&s->f.halves[off & 1], (uint16_t)(off >> 1), flags);
}

/* The last slot set to the largest fingerprint and back. */
static void cuckoo_tail(void *state, uint16_t off, uint8_t flags)
{
    cuckoo_state *s = state;
    if (s->f.slots.data) tail_buckets(&s->f.slots, off, flags, NULL, 1, 1);
}

/* ------------------------------------- continuous: planted slots, ticks */

/* Keys whose bucket `at` was just overwritten lose their guarantee, unless
 * it now holds a live slot no older than their add. */
MODEL static void cont_drop_keys(cont_state *s, const reader *r, uint64_t at, uint8_t age)
{
    uint64_t pos[BF_K_MAX];
    size_t keep = 0;
    for (size_t i = 0; i < s->keys.len; i++) {
        key_entry e = s->keys.items[i];
        int hit = 0;
        if (!(age_live(age) && age <= e.age)) {
            bf_key_hash h = bf_key_hash_bytes(key_ptr(r, e.key), e.key.len, s->f.seed, s->f.hash);
            bf_positions(h, s->f.hash, s->f.k, s->f.buckets.count, pos);
            for (uint32_t j = 0; j < s->f.k; j++) hit |= pos[j] == at;
        }
        if (!hit) s->keys.items[keep++] = e;
    }
    s->keys.len = keep;
}

MODEL static void cont_model_clear_stale(cont_state *s)
{
    for (uint64_t i = 0; i < s->f.buckets.count; i++)
        if (age_stale(s->age[i])) {
            s->age[i] = AGE_EMPTY;
            s->nonzero--;
        }
}

/* u16 bucket, u8 value (% 16: empty, a live slot or a stale one), u8 flags
 * (bit 0: then bf_continuous_clear_stale). As state read from outside may
 * hold: bf_continuous_valid must say whether any bucket holds a slot that is
 * not live, clear_stale must clear exactly those, and lookups and ticks
 * carry on from there (see cont_lookup and cont_tick). */
static void cont_plant_op(void *state, reader *r)
{
    cont_state *s = state;
    uint16_t at = rd_u16(r);
    uint8_t value = rd_u8(r), flags = rd_u8(r);
    if (!s->f.buckets.data || r->plants++ >= MAX_PLANTS) return;
    uint64_t i = at % s->f.buckets.count;
    uint32_t v = value & 15;
    bf_buckets_set(&s->f.buckets, i, v);
    uint8_t age = v == 0 ? AGE_EMPTY : (uint8_t)ring_elapsed(v, cont_slot(s));
    if (s->age[i] != AGE_EMPTY) s->nonzero--;
    if (age != AGE_EMPTY) s->nonzero++;
    s->age[i] = age;
    CHECK(bf_buckets_get(&s->f.buckets, i) == cont_expect(s, age));
    cont_drop_keys(s, r, i, age);
    CHECK(bf_continuous_valid(&s->f) == (cont_model_stale(s) == 0));
    CHECK(bf_buckets_count_nonzero(&s->f.buckets) == s->nonzero);
    if (flags & 1) {
        bf_continuous_clear_stale(&s->f);
        cont_model_clear_stale(s);
        CHECK(bf_continuous_valid(&s->f));
        cont_check_all(s, NULL);
    } else {
        cont_check_all(s, r);
    }
    cont_check_keys(s, r);
}

/* u8 flags (bit 0: a u64 count follows, else a u8 % 21): the tick with a
 * callback between its halves, against bf_continuous_tick on a copy and the
 * model. */
static void cont_tick_split_op(void *state, reader *r)
{
    cont_state *s = state;
    uint8_t flags = rd_u8(r);
    uint64_t n = (flags & 1) ? rd_u64(r) : rd_u8(r) % 21;
    if (!s->f.buckets.data) return;
    cont_tick(s, n, r, 1);
    cont_check_keys(s, r);
}
/* -------------------------------------------------------------- models */

/* Each kind as the harness drives it (fuzz_model, above). */
const fuzz_model bits_model = {sizeof(bits_state), bits_init, bits_final, bits_free, bits_twin, bits_merge, bits_tail};
const fuzz_model buckets_model = {sizeof(buckets_state), buckets_init, buckets_final, buckets_free, buckets_twin, buckets_merge, buckets_tail};
const fuzz_model cont_model = {sizeof(cont_state), cont_init, cont_final, cont_free, cont_twin, cont_merge, cont_tail};
const fuzz_model counting_model = {sizeof(counting_state), counting_init, counting_check_all, counting_free, counting_twin, counting_merge, counting_tail};
const fuzz_model spectral_model = {sizeof(spectral_state), spectral_init, spectral_check_all, spectral_free, spectral_twin, spectral_merge, NULL};
const fuzz_model bitwise_model = {sizeof(bitwise_state), bitwise_init, bitwise_check_all, bitwise_free, bitwise_twin, bitwise_merge, NULL};
const fuzz_model stable_model = {sizeof(stable_state), stable_init, stable_check_all, stable_free, stable_twin, stable_merge, NULL};
const fuzz_model a2_model = {sizeof(a2_state), a2_init, a2_check_all, a2_free, a2_twin, a2_merge, a2_tail};
const fuzz_model bloom_model = {sizeof(bloom_state), bloom_init, bloom_final, bloom_free, bloom_twin, bloom_merge, NULL};
const fuzz_model blocked_model = {sizeof(blocked_state), blocked_init, blocked_final, blocked_free, blocked_twin, blocked_merge, NULL};
const fuzz_model scalable_model = {sizeof(scalable_state), scalable_init, sc_check_all, scalable_free, scalable_twin, scalable_union, NULL};
const fuzz_model cuckoo_model = {sizeof(cuckoo_state), cuckoo_init, cuckoo_check_all, cuckoo_free, cuckoo_twin, cuckoo_union, cuckoo_tail};

/* ------------------------------------------------------------------ main */

#define MAX_REINITS 8

/* Every kind's model, by its number. */
#define MODEL_OF(kind, model) [KIND_##kind] = &model,
static const fuzz_model *const models[STRUCTURES] = {FUZZ_KINDS(MODEL_OF)};
#undef MODEL_OF

/* The kinds in the header's order: OP_REINIT's numbers. */
#define HEADER_KIND(kind) KIND_##kind,
static const structure_kind header_kinds[] = {FUZZ_HEADER(HEADER_KIND)};
#undef HEADER_KIND
_Static_assert(sizeof header_kinds / sizeof header_kinds[0] == STRUCTURES, "the header has every kind");

/* OP_TAIL's targets: a kind's structure of the header or its twin. */
typedef struct {
    structure_kind kind;
    int twin;
} tail_target;

enum {
    FIRST,
    TWIN
};

#define TAIL_TARGET(kind, which) {KIND_##kind, which},
static const tail_target tail_targets[] = {FUZZ_TAILS(TAIL_TARGET)};
#undef TAIL_TARGET
#define TAIL_TARGETS (sizeof tail_targets / sizeof tail_targets[0])

/* The opcodes, by their numbers. */
typedef struct {
    structure_kind kind; /* STRUCTURES for an INPUT_OP */
    int picked;          /* PICKED_OP: a u8 picks the structure of the header or its twin */
    void (*on_structure)(void *s, reader *r);
    void (*on_input)(reader *r);
} op_entry;

#define AS_STRUCTURE_OP(name, kind, handler) {KIND_##kind, 0, handler, NULL},
#define AS_PICKED_OP(name, kind, handler) {KIND_##kind, 1, handler, NULL},
#define AS_INPUT_OP(name, handler) {STRUCTURES, 0, NULL, handler},
static const op_entry ops[] = {FUZZ_OPS(AS_STRUCTURE_OP, AS_PICKED_OP, AS_INPUT_OP)};
#undef AS_STRUCTURE_OP
#undef AS_PICKED_OP
#undef AS_INPUT_OP
#define OP_COUNT (sizeof ops / sizeof ops[0])

/* Each kind's structure of the header ([0]) and its twin ([1]): made once,
 * zero at the start of every input, and left freed (zero) at its end. */
static void *states[STRUCTURES][2];

/* OP_TWIN_OP's sub-op byte: the kind's STRUCTURE_OPs in ops.h's order, the
 * byte % their count. */
MODEL static const op_entry *twin_sub_op(structure_kind kind, uint8_t sub)
{
    size_t n = 0;
    for (size_t i = 0; i < OP_COUNT; i++) n += ops[i].kind == kind && !ops[i].picked;
    CHECK(n > 0);
    size_t pick = sub % n;
    for (size_t i = 0;; i++)
        if (ops[i].kind == kind && !ops[i].picked && pick-- == 0) return &ops[i];
}

/* u8 which kind, u8 mode (bit 0: a copy of the first, else empty of its
 * shape; the kind's twin hook may read more). */
static void twin_make_op(reader *r)
{
    structure_kind kind = rd_kind(r);
    uint8_t mode = rd_u8(r);
    models[kind]->twin(states[kind][1], states[kind][0], mode, r);
}

/* u8 which kind, u8 sub-op: one of that kind's ops, on its twin. */
static void twin_op(reader *r)
{
    structure_kind kind = rd_kind(r);
    uint8_t sub = rd_u8(r);
    twin_sub_op(kind, sub)->on_structure(states[kind][1], r);
}

/* u8 which kind, u8 flags: bit 7 the first merged into the twin instead of
 * the twin into the first; the kind's merge reads the rest (bit 0: most
 * often an intersection rather than a union). */
static void merge_op(reader *r)
{
    structure_kind kind = rd_kind(r);
    uint8_t flags = rd_u8(r);
    int into_twin = flags >> 7;
    models[kind]->merge(states[kind][into_twin], states[kind][!into_twin], flags, r);
}

/* u8 which target, u16 where in its padding, u8 flags (bit 0: plant a
 * padding bit, bit 1: set the last bit). */
static void tail_op(reader *r)
{
    tail_target t = tail_targets[rd_u8(r) % TAIL_TARGETS];
    uint16_t off = rd_u16(r);
    uint8_t flags = rd_u8(r);
    models[t.kind]->tail(states[t.kind][t.twin], off, flags);
}

/* u8 which kind (in the header's order), then a header of that kind: the
 * structure checked in full, then started over. */
static void reinit_op(reader *r)
{
    structure_kind kind = header_kinds[rd_u8(r) % STRUCTURES];
    if (r->reinits++ >= MAX_REINITS) return; /* the header bytes then read as ops */
    models[kind]->check(states[kind][0], r);
    models[kind]->init(states[kind][0], r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    reader r;
    memset(&r, 0, sizeof r);
    r.data = data;
    r.size = size;
    for (size_t k = 0; k < STRUCTURES; k++)
        for (int i = 0; i < 2; i++) {
            if (!states[k][i]) states[k][i] = malloc(models[k]->state_size);
            CHECK(states[k][i] != NULL);
            memset(states[k][i], 0, models[k]->state_size);
        }

    check_vectors();
    check_counter_vectors();
    check_crc_vectors();
    check_prefetching_batches();

    /* The header; the twins start out absent (OP_TWIN_MAKE). */
    for (size_t i = 0; i < STRUCTURES; i++) models[header_kinds[i]]->init(states[header_kinds[i]][0], &r);

    while (r.pos < r.size) {
        const op_entry *op = &ops[rd_u8(&r) % OP_COUNT];
        if (op->on_input) op->on_input(&r);
        else op->on_structure(states[op->kind][op->picked ? rd_u8(&r) & 1 : 0], &r);
    }

    /* Everything compared in full, then freed. */
    for (size_t k = 0; k < STRUCTURES; k++)
        for (int i = 0; i < 2; i++) models[k]->check(states[k][i], &r);
    fuse_final();
    for (size_t k = 0; k < STRUCTURES; k++)
        for (int i = 0; i < 2; i++) models[k]->free(states[k][i]);
    return 0;
}
