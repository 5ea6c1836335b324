/* The stable Bloom filter (Deng and Rafiei, 2006): a filter for an endless
 * stream that forgets old keys at a steady rate. Each add first takes 1 from
 * d cells chosen at random, then sets the key's k cells to the maximum
 * 2^width - 1. The fraction of zero cells settles at a fixed point whatever
 * the stream's length, and with it the false-positive rate. The d cells are
 * consecutive, from a random start.
 *
 * The random cells come from a splitmix64 generator whose state is part of
 * the filter, so a filter with a given seed behaves the same on every run. */
#ifndef BF_STABLE_H
#define BF_STABLE_H

#include <stddef.h>
#include <stdint.h>
#include "bf_buckets.h"
#include "bf_probe.h"

typedef struct {
    bf_buckets cells;
    uint32_t k;        /* cells set per key, 1..BF_K_MAX */
    uint32_t seed;     /* MurmurHash3 seed */
    bf_hash_kind hash; /* BF_HASH_MURMUR3_MIXED, or BF_HASH_MURMUR3 as before */
    uint64_t d;        /* cells decremented per add, 1..cells.count */
    uint64_t random;   /* generator state */
    uint64_t count;    /* adds */
} bf_stable;

/* The next value of a splitmix64 generator (Steele, Lea and Flood, 2014). */
uint64_t bf_splitmix64(uint64_t *state);

/* With tell: 1 when the key was new (include? would have said false just
 * before), else 0. Without, 0, and no lookup pass before the add. */
int bf_stable_add(bf_stable *f, bf_key_hash h, int tell);
int bf_stable_contains(const bf_stable *f, bf_key_hash h);
/* Merging a filter of the same shape into dst, cell by cell: the larger
 * value (union: a key recent in either stays as recent) or the smaller
 * (intersection). dst keeps its generator. */
void bf_stable_combine(bf_stable *dst, const bf_stable *src, bf_combine_op op);

/* The stable point: the expected fraction of zero cells after many adds,
 * (1 / (1 + 1 / (d (1/k - 1/m))))^max, and the false-positive rate there,
 * (1 - that)^k (Deng and Rafiei's Theorem 2 and its corollary; the libBf
 * manual's rendering of the formula lost its exponents). */
double bf_stable_zero_fraction(uint64_t m, uint32_t k, uint64_t d, unsigned width);
double bf_stable_fpr(uint64_t m, uint32_t k, uint64_t d, unsigned width);
/* The d whose stable point has false-positive rate fpr (0 when none can:
 * fpr is out of (0, 1), or k >= m). */
uint64_t bf_stable_d_for(uint64_t m, uint32_t k, unsigned width, double fpr);

#endif
