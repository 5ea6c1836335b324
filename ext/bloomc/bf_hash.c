/* MurmurHash3 after Austin Appleby's description in SMHasher (public domain
 * algorithm; the multipliers and rotations are its published constants), and
 * FNV after Fowler, Noll and Vo (offset bases and primes from the FNV spec). */
#include "bf_hash.h"
#include "bf_endian.h"

static inline uint32_t fmix32(uint32_t h)
{
    h ^= h >> 16;
    h *= 0x85ebca6bU;
    h ^= h >> 13;
    h *= 0xc2b2ae35U;
    h ^= h >> 16;
    return h;
}

static inline uint32_t murmur32_scramble(uint32_t k)
{
    k *= 0xcc9e2d51U;
    k = bf_rotl32(k, 15);
    k *= 0x1b873593U;
    return k;
}

uint32_t bf_murmur3_32(const uint8_t *key, size_t len, uint32_t seed)
{
    uint32_t h = seed;
    size_t nblocks = len / 4;

    for (size_t i = 0; i < nblocks; i++) {
        h ^= murmur32_scramble(bf_load_le32(key + 4 * i));
        h = bf_rotl32(h, 13);
        h = h * 5 + 0xe6546b64U;
    }
    /* A zero tail scrambles to zero, so mixing it unconditionally is harmless. */
    h ^= murmur32_scramble((uint32_t)bf_load_le_partial(key + 4 * nblocks, len & 3));
    h ^= (uint32_t)len;
    return fmix32(h);
}

static const uint64_t C1 = 0x87c37b91114253d5ULL;
static const uint64_t C2 = 0x4cf5ad432745937fULL;

static inline uint64_t scramble_k1(uint64_t k)
{
    k *= C1;
    k = bf_rotl64(k, 31);
    return k * C2;
}

static inline uint64_t scramble_k2(uint64_t k)
{
    k *= C2;
    k = bf_rotl64(k, 33);
    return k * C1;
}

void bf_murmur3_128(const uint8_t *key, size_t len, uint32_t seed, uint64_t out[2])
{
    uint64_t h1 = seed, h2 = seed;
    size_t nblocks = len / 16;

    for (size_t i = 0; i < nblocks; i++) {
        const uint8_t *block = key + 16 * i;
        h1 ^= scramble_k1(bf_load_le64(block));
        h1 = bf_rotl64(h1, 27);
        h1 += h2;
        h1 = h1 * 5 + 0x52dce729;

        h2 ^= scramble_k2(bf_load_le64(block + 8));
        h2 = bf_rotl64(h2, 31);
        h2 += h1;
        h2 = h2 * 5 + 0x38495ab5;
    }

    const uint8_t *tail = key + 16 * nblocks;
    size_t rest = len & 15;
    if (rest > 8) {
        h2 ^= scramble_k2(bf_load_le_partial(tail + 8, rest - 8));
        rest = 8;
    }
    h1 ^= scramble_k1(bf_load_le_partial(tail, rest));

    h1 ^= (uint64_t)len;
    h2 ^= (uint64_t)len;
    h1 += h2;
    h2 += h1;
    h1 = bf_fmix64(h1);
    h2 = bf_fmix64(h2);
    h1 += h2;
    h2 += h1;
    out[0] = h1;
    out[1] = h2;
}

#define FNV32_BASIS 0x811c9dc5U
#define FNV32_PRIME 0x01000193U
#define FNV64_BASIS 0xcbf29ce484222325ULL
#define FNV64_PRIME 0x00000100000001b3ULL

uint32_t bf_fnv1_32(const uint8_t *key, size_t len)
{
    uint32_t h = FNV32_BASIS;
    for (size_t i = 0; i < len; i++) h = (h * FNV32_PRIME) ^ key[i];
    return h;
}

uint32_t bf_fnv1a_32(const uint8_t *key, size_t len)
{
    uint32_t h = FNV32_BASIS;
    for (size_t i = 0; i < len; i++) h = (h ^ key[i]) * FNV32_PRIME;
    return h;
}

uint64_t bf_fnv1_64(const uint8_t *key, size_t len)
{
    uint64_t h = FNV64_BASIS;
    for (size_t i = 0; i < len; i++) h = (h * FNV64_PRIME) ^ key[i];
    return h;
}

uint64_t bf_fnv1a_64(const uint8_t *key, size_t len)
{
    uint64_t h = FNV64_BASIS;
    for (size_t i = 0; i < len; i++) h = (h ^ key[i]) * FNV64_PRIME;
    return h;
}
