/* Filters of counters (the libBf manual's counting, spectral and bitwise
 * filters). Every cell is a bucket of a bf_buckets field; a key's k cells are
 * the bf_probe positions of its MurmurHash3.
 *
 * One rule keeps counts honest: a counter that reaches its maximum stays
 * there. It is never incremented past it (no wrap to 0) and never
 * decremented again (its true value is unknown), so a key that was added and
 * not deleted always finds every one of its cells above zero. */
#ifndef BF_COUNTING_H
#define BF_COUNTING_H

#include <stddef.h>
#include <stdint.h>
#include "bf_buckets.h"
#include "bf_probe.h"

typedef struct {
    bf_buckets cells;
    uint32_t k;         /* cells per key, 1..BF_K_MAX */
    uint32_t seed;      /* MurmurHash3 seed */
    bf_hash_kind hash;  /* BF_HASH_MURMUR3_MIXED, or BF_HASH_MURMUR3 as before */
    uint64_t count;     /* adds minus successful deletes */
    uint64_t saturated; /* cells at their maximum (they stay there) */
    uint64_t distinct;  /* keys present: adds that found a count of 0, less
                          * deletes that left one */
} bf_counting;


/* A second, independent-looking hash of the same key for another set of cells
 * (a spectral filter's secondary, a bitwise filter's levels), so that keys
 * colliding in one set of cells do not collide in the next. Both halves are
 * put through MurmurHash3's 64-bit finalizer with the salt mixed in. */
bf_key_hash bf_key_hash_salted(bf_key_hash h, uint64_t salt);

/* Fill pos[0..k) with the key's k cells and return their smallest value. */
uint32_t bf_cells_locate(const bf_buckets *b, bf_hash_kind hash, bf_key_hash h, uint32_t k, uint64_t *pos);
/* Smallest value among the cells at pos[0..k). */
uint32_t bf_cells_min(const bf_buckets *b, const uint64_t *pos, uint32_t k);
/* Add `by` to each cell at pos[0..k), stopping at the maximum; returns how
 * many cells reached the maximum in this call. */
uint64_t bf_cells_add(bf_buckets *b, const uint64_t *pos, uint32_t k, uint32_t by);
/* Take 1 from each cell at pos[0..k) that is neither 0 nor saturated. */
void bf_cells_remove(bf_buckets *b, const uint64_t *pos, uint32_t k);
/* Whether the minimum of the cells at pos[0..k) is held by two different
 * cells (the spectral filter's "recurring minimum"). */
int bf_cells_recurring_min(const bf_buckets *b, const uint64_t *pos, uint32_t k);

/* The counting filter: add increments the key's k cells, remove decrements
 * them, count is their minimum (the manual's minimum selection). */
/* 1 when the key was new (its count was 0), 0 otherwise. */
int bf_counting_add(bf_counting *f, bf_key_hash h);
/* 0 (and nothing changes) when the key's count is 0; 1 when it was removed. */
int bf_counting_remove(bf_counting *f, bf_key_hash h);
uint32_t bf_counting_count(const bf_counting *f, bf_key_hash h);

/* The spectral filter (Cohen and Matias, 2003). Minimum increase (MI) adds a
 * key by raising only its smallest cells; recurring minimum (RM) counts in
 * the primary as a counting filter does and keeps the keys whose minimum is
 * held by a single cell in a secondary filter too. */
typedef enum {
    BF_SPECTRAL_MI = 0,
    BF_SPECTRAL_RM = 1
} bf_spectral_algorithm;

typedef struct {
    bf_counting primary;
    bf_counting secondary; /* RM only (cells.data is NULL for MI) */
    bf_spectral_algorithm algorithm;
} bf_spectral;

/* 1 when the key was new (its primary count was 0), 0 otherwise. */
int bf_spectral_add(bf_spectral *f, bf_key_hash h);
/* RM only: 0 (and nothing changes) when the key's count is 0. */
int bf_spectral_remove(bf_spectral *f, bf_key_hash h);
uint32_t bf_spectral_count(const bf_spectral *f, bf_key_hash h);
/* Whether the key may have been added: its primary cells are all non-zero. */
int bf_spectral_contains(const bf_spectral *f, bf_key_hash h);

/* The bitwise filter: a chain of levels of m cells each. Level l's cells are
 * min(32, width << l) bits wide, so each level counts far beyond the last.
 * A key counts at level 0 until all its cells there are saturated; from then
 * on its adds are carried to level 1, and so on; a level is created when the
 * first key overflows the last one. Its count is the sum of its minima over
 * the levels it reached. Nothing is ever decremented, so no key's count ever
 * falls below the number of times it was added. */
typedef struct {
    bf_buckets *levels; /* levels[0 .. nlevels) */
    size_t nlevels;
    uint64_t m; /* cells per level */
    uint32_t k, seed;
    bf_hash_kind hash; /* BF_HASH_MURMUR3_MIXED, or BF_HASH_MURMUR3 as before */
    unsigned width;    /* level 0's cell width */
    uint64_t count;    /* adds */
    uint64_t distinct; /* adds that found the key's level-0 count at 0 */
} bf_bitwise;

/* Cell width of level l. */
unsigned bf_bitwise_level_width(unsigned width, size_t level);
/* The level an add of this key lands on: nlevels when a new level is needed
 * first (the caller allocates it, then calls bf_bitwise_add_at). */
size_t bf_bitwise_target_level(const bf_bitwise *f, bf_key_hash h);
/* 1 when the key was new (its count was 0), 0 otherwise. */
int bf_bitwise_add_at(bf_bitwise *f, bf_key_hash h, size_t level);
/* Saturates at UINT64_MAX, which no run reaches. */
uint64_t bf_bitwise_count(const bf_bitwise *f, bf_key_hash h);

/* Merging two filters of the same shape, cell by cell, into dst.
 * Counting: BF_COMBINE_SUM adds the counts (stopping at the maximum), as
 * for shards of one stream; BF_COMBINE_MIN keeps the smaller count. Either
 * way no key's estimate falls below its count in the merged streams (sum)
 * or in the smaller of the two (min). */
void bf_counting_combine(bf_counting *dst, const bf_counting *src, bf_combine_op op);
/* Spectral: the primaries combine as counting filters. RM's secondaries are
 * cleared: a key's secondary count from one filter would no longer cover
 * its adds in the other, and the primary's minimum still bounds it. */
void bf_spectral_combine(bf_spectral *dst, const bf_spectral *src, bf_combine_op op);
/* Bitwise intersection over the levels both have (the caller drops dst's
 * levels past src's): cell minima. Union (the caller first gives dst as many
 * levels as src): cell maxima, level by level, the multiset union, so each
 * key counts at least the larger of its two counts. Adding the counts up,
 * as the counting filter's union does, would need each key's overflow
 * carried to the next level, which cells alone cannot tell. */
void bf_bitwise_intersect(bf_bitwise *dst, const bf_bitwise *src);
void bf_bitwise_union(bf_bitwise *dst, const bf_bitwise *src);

#endif
