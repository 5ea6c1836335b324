/* The plain Bloom filter over a bf_bits field, and the probe positions every
 * filter shares.
 *
 * One 128-bit MurmurHash3 of the key gives (h1, h2); probe i is at
 *   x_i = h1 + i*h2 + (i^3 - i)/6   (mod 2^64)
 * (Dillinger and Manolios' enhanced double hashing: the cubic term keeps the k
 * probes apart even when h2 is a multiple of a factor of m), and each x_i is
 * mapped onto [0, m) by Lemire's multiply-shift, floor(x_i * m / 2^64): exact
 * for any m, one multiplication instead of a division per probe. */
#ifndef BF_BLOOM_H
#define BF_BLOOM_H

#include <stdint.h>
#include "bf_bits.h"

#define BF_K_MAX 128

typedef struct {
    bf_bits bits;
    uint32_t k;     /* probes per key, 1..BF_K_MAX */
    uint32_t seed;  /* MurmurHash3 seed */
    uint64_t count; /* keys added */
} bf_bloom;

typedef struct {
    uint64_t h1, h2;
} bf_key_hash;

/* floor(x * m / 2^64), in [0, m). */
static inline uint64_t bf_reduce(uint64_t x, uint64_t m)
{
#ifdef __SIZEOF_INT128__
    __extension__ typedef unsigned __int128 u128;
    return (uint64_t)(((u128)x * m) >> 64);
#else
    uint64_t x_hi = x >> 32, x_lo = x & 0xffffffffU;
    uint64_t m_hi = m >> 32, m_lo = m & 0xffffffffU;
    uint64_t lo_lo = x_lo * m_lo, hi_lo = x_hi * m_lo, lo_hi = x_lo * m_hi;
    uint64_t cross = (lo_lo >> 32) + (hi_lo & 0xffffffffU) + lo_hi;
    return x_hi * m_hi + (hi_lo >> 32) + (cross >> 32);
#endif
}

/* The probe sequence of one key: bf_probe_next gives x_0, x_1, ... */
typedef struct {
    uint64_t x, y, i;
} bf_probe;

static inline bf_probe bf_probe_start(bf_key_hash h)
{
    bf_probe p = {h.h1, h.h2, 0};
    return p;
}

static inline uint64_t bf_probe_next(bf_probe *p)
{
    uint64_t v = p->x;
    p->x += p->y;
    p->y += ++p->i;
    return v;
}

/* Hash a key's bytes with the given seed. */
bf_key_hash bf_key_hash_bytes(const uint8_t *key, size_t len, uint32_t seed);

void bf_bloom_add(bf_bloom *f, bf_key_hash h);
int bf_bloom_contains(const bf_bloom *f, bf_key_hash h);

#endif
