/* Fixed little-endian loads and stores.
 *
 * Every byte layout in bloomc (bit fields, bucket fields, hash input blocks) is
 * defined little-endian so that a filter and a hash are the same on every
 * machine.  memcpy avoids unaligned-access faults; assembling the value from
 * bytes keeps the result independent of the host's byte order.  Compilers turn
 * both into a single load or store on little-endian hosts. */
#ifndef BF_ENDIAN_H
#define BF_ENDIAN_H

#include <stdint.h>
#include <string.h>

static inline uint32_t bf_load_le32(const uint8_t *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) |
           ((uint32_t)p[3] << 24);
}

static inline uint64_t bf_load_le64(const uint8_t *p)
{
    return (uint64_t)bf_load_le32(p) | ((uint64_t)bf_load_le32(p + 4) << 32);
}

static inline void bf_store_le64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}

/* The first n (<= 8) bytes at p as a little-endian integer.  Unrolled: this
 * reads every short key's tail, and a loop here costs more than the hash. */
static inline uint64_t bf_load_le_partial(const uint8_t *p, size_t n)
{
    uint64_t v = 0;
    switch (n) {
    case 8: return bf_load_le64(p);
    case 7: v |= (uint64_t)p[6] << 48; /* fall through */
    case 6: v |= (uint64_t)p[5] << 40; /* fall through */
    case 5: v |= (uint64_t)p[4] << 32; /* fall through */
    case 4: return v | bf_load_le32(p);
    case 3: v |= (uint64_t)p[2] << 16; /* fall through */
    case 2: v |= (uint64_t)p[1] << 8;  /* fall through */
    case 1: v |= p[0];                 /* fall through */
    default: return v;
    }
}

static inline uint64_t bf_rotl64(uint64_t x, unsigned r)
{
    return (x << r) | (x >> (64 - r));
}

static inline uint32_t bf_rotl32(uint32_t x, unsigned r)
{
    return (x << r) | (x >> (32 - r));
}

static inline unsigned bf_popcount64(uint64_t x)
{
    return (unsigned)__builtin_popcountll(x);
}

/* Ask for the cache line holding p ahead of its use (batch operations issue
 * the loads of later keys while probing earlier ones). A hint: no fault, no
 * effect on results. */
static inline void bf_prefetch(const void *p)
{
#if defined(__GNUC__) || defined(__clang__)
    __builtin_prefetch(p);
#else
    (void)p;
#endif
}

#endif
