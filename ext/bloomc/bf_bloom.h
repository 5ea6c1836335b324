/* The plain Bloom filter over a bf_bits field. */
#ifndef BF_BLOOM_H
#define BF_BLOOM_H

#include <stddef.h>
#include <stdint.h>
#include "bf_bits.h"
#include "bf_probe.h"

typedef struct {
    bf_bits bits;
    uint32_t k;        /* probes per key, 1..BF_K_MAX */
    uint32_t seed;     /* MurmurHash3 seed */
    bf_hash_kind hash; /* how keys map to positions */
    uint64_t count;    /* keys added */
    uint64_t distinct; /* adds that set a bit: keys new to the filter */
} bf_bloom;

/* Sets the key's k bits of b; returns 1 when one of them was clear (the key
 * was new), 0 when all were set (it was, probably, present). */
int bf_bloom_set_probes(bf_bits *b, uint32_t k, bf_hash_kind hash, bf_key_hash h);
/* Whether the key's k bits of b are all set, stopping at the first clear
 * one (for fields at most about half full, where that is the common case). */
int bf_bloom_test_probes(const bf_bits *b, uint32_t k, bf_hash_kind hash, bf_key_hash h);

/* The false-positive rate of m bits and k probes holding n keys, by the
 * formula (1 - (1 - 1/m)^(kn))^k. */
double bf_bloom_rate(uint64_t m, uint32_t k, double n);
/* The rate a filter of m bits and k independent probes holding n keys has
 * on average over its keys: E[(X/m)^k] for X its set bits. Above the
 * formula's E[X/m]^k (Jensen), by much when m is small (capacity 1 at 0.001:
 * 1.8x). Exact when n is whole and k * k * n is at most 2^20 (about a
 * millisecond); past that, to second order in Var[X/m], within 0.1% of
 * exact there for k up to 64. */
double bf_bloom_expected_rate(uint64_t m, uint32_t k, double n);

/* How bf_bloom_size judges a shape: by bf_bloom_rate (the scalable filter's
 * layers, whose v2 files are checked against shapes sized so), or by
 * bf_bloom_expected_rate (every filter sized from capacity and rate). */
typedef enum { BF_SIZING_FORMULA,
               BF_SIZING_EXPECTED } bf_sizing;

/* The fewest bits at which k independent probes hold n keys within p on
 * average (bf_bloom_expected_rate); 0 when no m up to BF_BITS_MAX does. */
uint64_t bf_bloom_bits_for(uint32_t k, double n, double p);

/* The fewest bits m, with its k, whose rate at n keys is at most p by the
 * chosen judge (0 < p < 1, n > 0). 0 when no m up to BF_BITS_MAX gets
 * there. */
int bf_bloom_size(double n, double p, bf_sizing sizing, uint64_t *m, uint32_t *k);

/* 1 when the key was new (a bit changed), 0 when it was probably present. */
int bf_bloom_add(bf_bloom *f, bf_key_hash h);
int bf_bloom_contains(const bf_bloom *f, bf_key_hash h);

/* Batches of n keys already hashed: the same results as one call per key,
 * with the memory of later keys fetched while earlier ones are probed.
 * out[i] is 1 when key i is (probably) present, 0 when it is not; for an
 * add, when given, whether key i was new. */
void bf_bloom_add_many(bf_bloom *f, const bf_key_hash *h, size_t n, uint8_t *out);
void bf_bloom_contains_many(const bf_bloom *f, const bf_key_hash *h, size_t n, uint8_t *out);

/* Parallel adds by scatter (bf_batch.h). bf_bloom_scatter writes an entry
 * for each of the k probes of keys h[0 .. n), whose indexes in the round
 * start at first, to next[owner] (advanced), for parts owners.
 * bf_bloom_apply sets the bits of one owner's entries, in order, and sets
 * out[index] to 1 (never to 0) when that changed a bit; count and distinct
 * are the caller's. Each bit has one owner, which sees the keys that touch it
 * in the serial order: the same cells and answers as bf_bloom_add_many. */
void bf_bloom_scatter(const bf_bloom *f, const bf_key_hash *h, size_t n, size_t first, unsigned parts, uint64_t **next);
void bf_bloom_apply(bf_bloom *f, const uint64_t *entries, size_t n, uint8_t *out);

#endif
