/* The binary fuse filter (Graf and Lemire, "Binary Fuse Filters: Fast and
 * Smaller Than Xor Filters", ACM JEA 27, 2022), 3-wise, with 8- or 16-bit
 * fingerprints: a static set built once from all its keys, then only read.
 * About 9 bits a key for a false-positive rate of 1/256 (18 for 1/65536),
 * where a Bloom filter needs about 11.5 (23).
 *
 * The array of fingerprints is cut into segments of segment_length slots (a
 * power of two). A key, mixed with the seed into a hash h, picks a first slot
 * p0 among the first segment_count segments, and one slot in each of the two
 * segments after p0's; it is present when the XOR of the fingerprints in its
 * three slots is its own fingerprint. Building solves those XOR equations by
 * peeling: a slot that only one key touches can be set last, for that key,
 * whatever its other two slots hold; removing the key may leave other slots
 * with one key, and so on. The segments keep every key's three slots close
 * together, which is what lets peeling succeed at about 1.125 slots a key
 * (the xor filter, with slots anywhere, needs 1.23).
 *
 * Keys arrive hashed (a 64-bit hash of the key, e.g. MurmurHash3's h1); the
 * filter is a plain struct whose fingerprints are memory the caller owns (a
 * heap block or a mapped file), so the core never allocates, and building
 * works in scratch memory the caller provides. 16-bit fingerprints are
 * stored little-endian: the bytes of a filter are the same on every host. */
#ifndef BF_FUSE_H
#define BF_FUSE_H

#include <stddef.h>
#include <stdint.h>
#include "bf_hash.h"
#include "bf_probe.h"

/* The paper's segment length grows with n; bloomc stops it at 2^18, so that
 * the two in-segment offsets come from disjoint bits of the hash (bits 0..17
 * and 18..35; see bf_fuse_positions). Slots are counted in 32 bits (scratch
 * indices stay 4 bytes), so a filter has fewer than 2^32 slots: at most
 * about 3.8 billion keys. */
#define BF_FUSE_SEGMENT_LENGTH_MAX ((uint32_t)1 << 18)
#define BF_FUSE_OFFSET_SHIFT 18
/* Seeds tried before a build gives up. One try fails with a probability
 * that is small even for tiny filters (at most a few percent) and far
 * smaller for large ones, so this is reached only by a broken shape. */
#define BF_FUSE_ATTEMPTS_MAX 100

typedef struct {
    uint64_t seed;                 /* mixed into every key hash; the one the build found to work */
    uint32_t segment_length;       /* a power of two, 4 .. BF_FUSE_SEGMENT_LENGTH_MAX (0: empty filter) */
    uint32_t segment_length_mask;  /* segment_length - 1 */
    uint32_t segment_count;        /* segments a key's first slot may fall in */
    uint32_t segment_count_length; /* segment_count * segment_length */
    uint32_t array_length;         /* (segment_count + 2) * segment_length slots; 0: empty filter */
    uint32_t fingerprint_bits;     /* 8 or 16 */
    uint8_t *fingerprints;         /* bf_fuse_nbytes(f) bytes, owned by the caller */
} bf_fuse;

/* The shape for n keys (seed 0, fingerprints not attached): 1 on success, 0
 * when fingerprint_bits is not 8 or 16 or n needs 2^32 slots or more. n = 0
 * gives the empty filter (no slots, every lookup false); n = 1 and 2 get the
 * smallest shape, 3 segments of 4 slots. */
int bf_fuse_shape(uint64_t n, unsigned fingerprint_bits, bf_fuse *out);
/* Whether the sizes of f (read from anywhere) are consistent: lookups then
 * stay inside bf_fuse_nbytes(f) bytes. The empty filter is valid. */
int bf_fuse_valid_shape(const bf_fuse *f);
/* Bytes of the fingerprint array: array_length * fingerprint_bits / 8 (0 for
 * the empty filter, or when it exceeds SIZE_MAX). */
size_t bf_fuse_nbytes(const bf_fuse *f);
/* Bytes of scratch a build of n keys needs (0: more than this host holds).
 * It is about 23 bytes a key; the memory must be aligned for uint64_t (as
 * malloc's is). */
size_t bf_fuse_scratch_bytes(uint64_t n);

typedef enum {
    BF_FUSE_BUILT = 0,
    BF_FUSE_BAD_SHAPE = 1, /* f was not shaped by bf_fuse_shape for these n keys */
    BF_FUSE_GAVE_UP = 2    /* BF_FUSE_ATTEMPTS_MAX seeds failed: the fingerprints are zeroed */
} bf_fuse_result;

/* Builds f from the hashes of n keys into f->fingerprints (bf_fuse_nbytes
 * bytes; their content does not matter), using scratch
 * (bf_fuse_scratch_bytes(n) bytes, aligned for uint64_t). f must be shaped
 * by bf_fuse_shape(n, ...). The seeds tried are seed, then the steps of a
 * splitmix64 sequence from it; f->seed becomes the one that worked. With
 * n = 0 nothing is read or written (scratch may be NULL).
 *
 * keys may repeat any hash any number of times. Repeats make every seed fail
 * (a key's slots hold it twice, so they never hold a single key), so after
 * the first failure keys is sorted and its repeats dropped IN PLACE (keys
 * then holds the distinct hashes, ascending, followed by leftovers);
 * otherwise keys is only read. The
 * result depends only on the set of hashes and seed, not on their order or
 * repeats, and is the same on every host. */
bf_fuse_result bf_fuse_build(bf_fuse *f, uint64_t *keys, size_t n, void *scratch, uint64_t seed);
/* Sorts keys ascending and moves the distinct ones to the front; returns
 * how many there are. scratch: at least n * 8 bytes aligned for uint64_t
 * (bf_fuse_scratch_bytes(n) is enough). For a caller that wants to shape a
 * filter for the distinct keys only. */
size_t bf_fuse_dedup(uint64_t *keys, size_t n, void *scratch);

/* A key hash mixed with the filter's seed: what positions and fingerprint
 * are taken from. */
static inline uint64_t bf_fuse_mix(uint64_t key, uint64_t seed)
{
    return bf_fmix64(key + seed);
}

/* The fingerprint of a mixed hash: bits 0..15 folded with bits 32..47, so
 * that it is no copy of the bits that pick any one slot. Truncated to 8 bits
 * for 8-bit filters. */
static inline uint32_t bf_fuse_fingerprint(uint64_t h)
{
    return (uint32_t)((h ^ (h >> 32)) & 0xffffU);
}

/* A key's three slots, one in each of three consecutive segments. The first
 * is spread over the first segment_count_length slots by multiply-shift (the
 * high bits of h); the next two start at the same offset one and two
 * segments on and flip it by bits 0..17 and 18..35 of h, which keeps each in
 * its segment and makes the three offsets independent. */
static inline void bf_fuse_positions(const bf_fuse *f, uint64_t h, uint32_t pos[3])
{
    uint32_t p0 = (uint32_t)bf_reduce(h, f->segment_count_length);
    pos[0] = p0;
    pos[1] = (p0 + f->segment_length) ^ ((uint32_t)h & f->segment_length_mask);
    pos[2] = (p0 + 2 * f->segment_length) ^ ((uint32_t)(h >> BF_FUSE_OFFSET_SHIFT) & f->segment_length_mask);
}

static inline uint32_t bf_fuse_load16(const uint8_t *p) { return (uint32_t)p[0] | ((uint32_t)p[1] << 8); }

/* 1 when the key is (probably) in the set, 0 when it is certainly not. */
static inline int bf_fuse_contains(const bf_fuse *f, uint64_t key)
{
    if (f->array_length == 0) return 0;
    uint64_t h = bf_fuse_mix(key, f->seed);
    uint32_t pos[3];
    bf_fuse_positions(f, h, pos);
    const uint8_t *fp = f->fingerprints;
    if (f->fingerprint_bits == 8) return ((bf_fuse_fingerprint(h) ^ fp[pos[0]] ^ fp[pos[1]] ^ fp[pos[2]]) & 0xffU) == 0;
    return (bf_fuse_fingerprint(h) ^ bf_fuse_load16(fp + 2 * (size_t)pos[0]) ^ bf_fuse_load16(fp + 2 * (size_t)pos[1]) ^
            bf_fuse_load16(fp + 2 * (size_t)pos[2])) == 0;
}

/* out[i] = bf_fuse_contains(f, keys[i]), with the slots of later keys
 * fetched while earlier ones are compared. */
void bf_fuse_contains_many(const bf_fuse *f, const uint64_t *keys, size_t n, uint8_t *out);

#endif
