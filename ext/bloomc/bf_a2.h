/* The A² filter (active-active buffering, Yoon 2010): two plain filters of
 * m/2 bits. New keys go into the active one; when it holds `capacity` keys,
 * the other is cleared and becomes the active one, so the filter remembers at
 * least the last `capacity` distinct keys and forgets older ones in bulk. A
 * key is found when either filter holds it. */
#ifndef BF_A2_H
#define BF_A2_H

#include <stddef.h>
#include <stdint.h>
#include "bf_bits.h"
#include "bf_probe.h"

typedef struct {
    bf_bits halves[2]; /* halves[active] takes new keys; both share one allocation */
    unsigned active;
    uint32_t k, seed;
    bf_hash_kind hash;  /* BF_HASH_MURMUR3_MIXED, or BF_HASH_MURMUR3 as before */
    uint64_t capacity;  /* keys the active half takes before a swap */
    uint64_t in_active; /* distinct keys added to the active half */
    uint64_t count;     /* adds */
    uint64_t swaps;
} bf_a2;

/* With tell: 1 when the key was new (in neither half), 0 otherwise. Without,
 * 0, and the older half is not probed (a plain add has no use for it). */
int bf_a2_add(bf_a2 *f, bf_key_hash h, int tell);
int bf_a2_contains(const bf_a2 *f, bf_key_hash h);
/* Merging a filter of the same shape into dst, active half with active
 * half and older with older: OR (union) or AND (intersection). Either way
 * the active half counts as the emptier of the two, so the next swap, which
 * drops the older half, comes no sooner than either input's would: no key
 * is dropped earlier than it would have been in its input. A union's active
 * half may then hold up to twice capacity keys, and the rate stays raised
 * until that half is dropped, at the swap after next. */
void bf_a2_union(bf_a2 *dst, const bf_a2 *src);
void bf_a2_intersect(bf_a2 *dst, const bf_a2 *src);

/* The manual's optimum for a target rate p over both halves: each half may
 * err at p1 = 1 - sqrt(1 - p), k = -log2 p1 and a half of m/2 bits holds
 * floor(m / (2k) ln 2) keys, at which it is half full and errs at 2^-k. The
 * manual rounds k down, which lands up to twice above p (2^-floor(x) can be
 * 2 * 2^-x); bloomc rounds it up, so the rate never exceeds p. */
uint32_t bf_a2_optimal_k(double p);
uint64_t bf_a2_optimal_capacity(uint64_t m, uint32_t k);
/* The false-positive rate with both halves holding n keys each: 1 - (1 -
 * p1)^2 for p1 a half's expected rate (bf_bloom_expected_rate). */
double bf_a2_fpr(uint64_t m, uint32_t k, double n);
/* The bits (both halves) for capacity keys a half at rate p with k probes:
 * the manual's 2 * ceil(capacity * k / ln 2), or more where a half that
 * small errs above 1 - sqrt(1 - p) on average (capacity 1 at 0.01: 24 bits
 * measured 1.44x the rate). 0 when no filter holds it. */
uint64_t bf_a2_sized_bits(double capacity, uint32_t k, double p);

#endif
