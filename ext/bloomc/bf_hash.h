/* Hash functions: MurmurHash3 (x86_32, x64_128) and FNV-1/FNV-1a (32, 64 bits).
 * Pure C, no Ruby. Inputs are bytes; results do not depend on the host. */
#ifndef BF_HASH_H
#define BF_HASH_H

#include <stddef.h>
#include <stdint.h>

uint32_t bf_murmur3_32(const uint8_t *key, size_t len, uint32_t seed);
/* out[0] and out[1] are the reference's h1 and h2; the canonical 16-byte
 * digest is out[0] then out[1], each little-endian. */
void bf_murmur3_128(const uint8_t *key, size_t len, uint32_t seed, uint64_t out[2]);

uint32_t bf_fnv1_32(const uint8_t *key, size_t len);
uint32_t bf_fnv1a_32(const uint8_t *key, size_t len);
uint64_t bf_fnv1_64(const uint8_t *key, size_t len);
uint64_t bf_fnv1a_64(const uint8_t *key, size_t len);

/* MurmurHash3's 64-bit finalizer (every output bit depends on every input
 * bit), shared by the hash and the counting filters' salted rehash. */
static inline uint64_t bf_fmix64(uint64_t k)
{
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdULL;
    k ^= k >> 33;
    k *= 0xc4ceb9fe1a85ec53ULL;
    k ^= k >> 33;
    return k;
}

#endif
