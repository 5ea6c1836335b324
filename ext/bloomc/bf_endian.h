/* Fixed little-endian loads and stores.
 *
 * Every byte layout in bloomc (bit fields, bucket fields, hash input blocks) is
 * defined little-endian so that a filter and a hash are the same on every
 * machine.  Where the compiler says which byte order the host has, a load or
 * store is a memcpy (no unaligned-access faults), byte-swapped on big-endian
 * hosts; elsewhere the value is assembled byte by byte.  (At -O1, GCC 12
 * does not merge the byte-by-byte form into one load: the blocked filter's
 * unrolled probes got eight byte loads per lane.) */
#ifndef BF_ENDIAN_H
#define BF_ENDIAN_H

#include <stdint.h>
#include <string.h>

/* BF_LE32/BF_LE64: a host-order value from or to little-endian, where the
 * compiler says which byte order the host has. (BF_PORTABLE_BYTES keeps the
 * byte-by-byte form, for `rake fuzz` to check it on this host too.) */
#if defined(BF_PORTABLE_BYTES)
#elif defined(__BYTE_ORDER__) && defined(__ORDER_LITTLE_ENDIAN__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define BF_LE32(v) (v)
#define BF_LE64(v) (v)
#elif defined(__BYTE_ORDER__) && defined(__ORDER_BIG_ENDIAN__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define BF_LE32(v) __builtin_bswap32(v)
#define BF_LE64(v) __builtin_bswap64(v)
#endif

static inline uint32_t bf_load_le32(const uint8_t *p)
{
#ifdef BF_LE32
    uint32_t v;
    memcpy(&v, p, sizeof v);
    return BF_LE32(v);
#else
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
#endif
}

static inline uint64_t bf_load_le64(const uint8_t *p)
{
#ifdef BF_LE64
    uint64_t v;
    memcpy(&v, p, sizeof v);
    return BF_LE64(v);
#else
    return (uint64_t)bf_load_le32(p) | ((uint64_t)bf_load_le32(p + 4) << 32);
#endif
}

static inline void bf_store_le64(uint8_t *p, uint64_t v)
{
#ifdef BF_LE64
    v = BF_LE64(v);
    memcpy(p, &v, sizeof v);
#else
    for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
#endif
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
