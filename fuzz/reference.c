/* Independent references: MurmurHash3 as SMHasher writes it, the probe
 * positions straight from bf_probe.h's formulas with a real 128-bit product,
 * SplitMix64 and the salted hashes; published vectors that check the
 * references themselves; and the ops that check the core's hashes and
 * positions against them. */
#include "reference.h"

#include <string.h>

#include "bf_bits.h"
#include "bf_buckets.h"
#include "bf_counting.h"
#include "bf_stable.h"

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

uint64_t ref_fmix64(uint64_t k)
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
void check_vectors(void)
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
bf_hash_kind hash_kind_of(uint8_t b)
{
    return b % 3 == 0 ? BF_HASH_MURMUR3 : b % 3 == 1 ? BF_HASH_FNV1A
                                                     : BF_HASH_MURMUR3_MIXED;
}

/* bf_positions (the fallback bf_reduce, see the top of fuzz/harness.h), checked
 * against ref_positions, bf_probe_values and streaming bf_probe_next. */
void positions(bf_key_hash h, bf_hash_kind kind, uint32_t k, uint64_t m, uint64_t *out)
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

bf_key_hash key_hash(const uint8_t *p, size_t n, uint32_t seed, bf_hash_kind kind)
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
void hash_op(reader *r)
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
void positions_op(reader *r)
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

uint64_t ref_splitmix64(uint64_t *state)
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
bf_key_hash salted(bf_key_hash h, uint64_t salt)
{
    bf_key_hash got = bf_key_hash_salted(h, salt), want;
    want.h1 = ref_fmix64(h.h1 ^ (salt * 0x9e3779b97f4a7c15ULL));
    want.h2 = ref_fmix64(h.h2 + salt);
    CHECK(got.h1 == want.h1 && got.h2 == want.h2);
    return got;
}

/* Published SplitMix64 outputs (seed 1234567), bf_bitwise_level_width on
 * every level, and a salted hash: once per input, they cost nothing. */
void check_counter_vectors(void)
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

/* Keys of the filters of counters, the scalable and the cuckoo filters:
 * MurmurHash3 only, hashed (and checked) under their seed. */
bf_key_hash mm_hash(const reader *r, key_ref k, uint32_t seed)
{
    return key_hash(key_ptr(r, k), k.len, seed, BF_HASH_MURMUR3);
}
