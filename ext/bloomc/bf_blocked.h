/* The blocked Bloom filter (Putze, Sanders and Singler, "Cache-, Hash- and
 * Space-Efficient Bloom Filters", 2007): the bits are cut into 512-bit blocks,
 * one 64-byte cache line each, and all k bits of a key fall in one block. A
 * lookup touches one cache line instead of k; the price is a higher
 * false-positive rate at equal size, because blocks fill unevenly, which
 * bf_blocked_fpr models and bf_blocked_size pays for with more bits.
 *
 * A block is eight 64-bit lanes, and a key's probes set one bit in each of k
 * consecutive lanes, wrapping around (the split-block layout): the key's 128-bit hash (h1, h2) picks the block from h1
 * (multiply-shift, as the plain filter) and each probe's bit from six bits of
 * h2, ten probes per 64-bit word, then the word is remixed for the next ten.
 * Each probe is one load and one shift; at the usual k (6 to 9) the lanes
 * err as little as bits placed anywhere in the block would.
 *
 * Bits are laid out as in bf_bits (bit i in byte i / 8 at bit i % 8), so
 * block b is bytes 64b .. 64b + 63 of the same image and lane l of it the
 * little-endian word at byte 64b + 8l. */
#ifndef BF_BLOCKED_H
#define BF_BLOCKED_H

#include <stddef.h>
#include <stdint.h>
#include "bf_bits.h"
#include "bf_probe.h"

#define BF_BLOCK_BITS 512
#define BF_BLOCK_BYTES 64
#define BF_BLOCKS_MAX (BF_BITS_MAX / BF_BLOCK_BITS)

typedef struct {
    bf_bits bits; /* nbits = nblocks * BF_BLOCK_BITS; data 64-byte aligned */
    uint64_t nblocks;
    uint32_t k;        /* bits per key, 1..BF_K_MAX */
    uint32_t seed;     /* MurmurHash3 seed */
    uint64_t count;    /* keys added */
    uint64_t distinct; /* adds that set a bit: keys new to the filter */
} bf_blocked;

/* 1 when the key was new (a bit changed), 0 when it was probably present. */
int bf_blocked_add(bf_blocked *f, bf_key_hash h);
int bf_blocked_contains(const bf_blocked *f, bf_key_hash h);
/* out, when given: whether each key was new. */
void bf_blocked_add_many(bf_blocked *f, const bf_key_hash *h, size_t n, uint8_t *out);
/* bf_blocked_add_many for one of several threads that share the blocks out
 * by ranges of bytes [lo, hi), multiples of BF_BLOCK_BYTES: only the keys
 * whose block lies in the range are added, and out[i] is set to 1 (never to
 * 0) when key i changed a bit; count and distinct are the caller's. Each
 * thread walks every key in order, so each range ends as the serial walk
 * leaves it: the same cells and answers. (For one block a key, this beats a
 * scatter, bf_batch.h, which writes an entry a key: 2.0x against 1.8x with
 * two threads at 1 GiB.) */
void bf_blocked_add_part(bf_blocked *f, const bf_key_hash *h, size_t n, uint8_t *out, size_t lo, size_t hi);
void bf_blocked_contains_many(const bf_blocked *f, const bf_key_hash *h, size_t n, uint8_t *out);

/* The false-positive rate of nblocks blocks holding n keys with k bits each:
 * the chance that a key never added finds its k bits set in a block that
 * holds a Poisson(n / nblocks) number of keys. */
double bf_blocked_fpr(double n, uint64_t nblocks, uint32_t k);

/* The false-positive rate of the filter as it is now: for each block, the
 * chance that k probes starting at each of the eight lanes all find a set
 * bit, from the lanes' fill; averaged over the blocks a key may hash to. */
double bf_blocked_current_fpr(const bf_blocked *f);

/* The fewest blocks, and the k that goes with them, for n keys at a
 * false-positive rate of at most error. 0 when no filter up to BF_BLOCKS_MAX
 * blocks reaches it. */
uint64_t bf_blocked_size(double n, double error, uint32_t *k);

#endif
