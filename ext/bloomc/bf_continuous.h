/* The continuous (time-based) Bloom filter: 4-bit buckets holding the clock
 * slot of the key's last add.
 *
 * The clock is a ring of 15 slots (1..15; 0 marks an empty bucket) that ticks
 * every ttl / 2. A bucket written at slot s is live while fewer than 3 ticks
 * have passed (elapsed 0, 1 or 2) and expired after: a key is present for more
 * than ttl and at most 1.5 ttl after its last add.
 *
 * Unlike the ring alone, every tick also clears the buckets it expires, so no
 * bucket ever holds a slot more than 2 ticks old and a stale slot can never
 * look live again when the ring wraps (bloombroom's zombie keys). */
#ifndef BF_CONTINUOUS_H
#define BF_CONTINUOUS_H

#include <stddef.h>
#include <stdint.h>
#include "bf_buckets.h"
#include "bf_endian.h"
#include "bf_format.h"
#include "bf_probe.h"

#define BF_CONT_BITS 4
#define BF_CONT_SLOTS 15  /* 2^BF_CONT_BITS - 1 */
#define BF_CONT_DIVISOR 2 /* a bucket lives while elapsed <= BF_CONT_DIVISOR */

typedef struct {
    bf_buckets buckets; /* width BF_CONT_BITS */
    uint32_t k;
    uint32_t seed;
    bf_hash_kind hash;
    uint32_t slot;  /* current slot, 1..BF_CONT_SLOTS */
    uint64_t ticks; /* ticks since creation */
    /* Adds in the current tick and the BF_CONT_DIVISOR before it: at most
     * that many keys are live, which bounds how full the buckets are. */
    uint64_t recent_adds[BF_CONT_DIVISOR + 1];
} bf_continuous;

/* 1 when the key was new (not live before: a bucket was empty or expired),
 * 0 when it was live (the add refreshes it). */
int bf_continuous_add(bf_continuous *f, bf_key_hash h);
/* Whether every bucket of the key is live. Expired buckets it reads are
 * cleared when clear_expired is set (ticks clear them too, so this matters only
 * for bloombroom's lazy expiry semantics between ticks). */
int bf_continuous_lookup(bf_continuous *f, bf_key_hash h, int clear_expired);
/* Batches of n hashed keys, as bf_bloom_add_many and bf_bloom_contains_many. */
void bf_continuous_add_many(bf_continuous *f, const bf_key_hash *h, size_t n, uint8_t *out);
void bf_continuous_lookup_many(bf_continuous *f, const bf_key_hash *h, size_t n, int clear_expired, uint8_t *out);
/* Parallel adds by scatter, as bf_bloom_scatter and bf_bloom_apply: an
 * entry for each of a key's k buckets; apply writes the current slot and
 * marks the key new when the bucket was not live, at the clock as it
 * stands (batch.c catches it up between rounds, and applies a round again
 * when a tick came due during it); recent_adds are the caller's. */
void bf_continuous_scatter(const bf_continuous *f, const bf_key_hash *h, size_t n, size_t first, unsigned parts,
                           uint64_t **next);
void bf_continuous_apply(bf_continuous *f, const uint64_t *entries, size_t n, uint8_t *out);
/* Advance the clock by n ticks and clear the buckets they expire. Between
 * the two, between(ctx, f) runs when given: a mapped file records the new
 * clock there, so that a process killed during the clearing leaves no
 * bucket newer than the clock its file holds. */
void bf_continuous_tick(bf_continuous *f, uint64_t n, void (*between)(void *ctx, const bf_continuous *f), void *ctx);

/* The clock in a header of bloomc's format (bf_format.h): parameters
 * BF_CONT_CLOCK_FIELD.. hold the slot, the ticks and the recent adds. */
#define BF_CONT_CLOCK_FIELD 4
#define BF_CONT_CLOCK_FIELDS (2 + BF_CONT_DIVISOR + 1)
/* Writes f's clock into header and rewrites the header's checksum. */
void bf_continuous_store_clock(const bf_continuous *f, uint8_t *header);
/* Reads the clock a writer stored into f; 0 (f unchanged) when the header's
 * slot is not one a writer stores (the file was never ticked so). Inline: a
 * mapped reader reads it on every add and lookup. */
static inline int bf_continuous_load_clock(bf_continuous *f, const uint8_t *header)
{
    uint64_t slot = bf_load_le64(header + bf_format_field_at(BF_CONT_CLOCK_FIELD));
    if (slot < 1 || slot > BF_CONT_SLOTS) return 0;
    f->slot = (uint32_t)slot;
    f->ticks = bf_load_le64(header + bf_format_field_at(BF_CONT_CLOCK_FIELD + 1));
    for (uint32_t d = 0; d <= BF_CONT_DIVISOR; d++)
        f->recent_adds[d] = bf_load_le64(header + bf_format_field_at(BF_CONT_CLOCK_FIELD + 2 + d));
    return 1;
}

/* Whether every bucket is empty or holds a live slot, as ticks leave them
 * (checked on state read from outside). */
int bf_continuous_valid(const bf_continuous *f);
/* Clears the buckets that hold a slot that is not live. */
void bf_continuous_clear_stale(bf_continuous *f);

/* Merge src (same m, k, seed and hash; its clock may differ) into dst, on
 * dst's clock. Union: each bucket takes the more recent of its two live
 * slots, so a key live in either is live in dst, for as long as it was
 * there. Intersection: a bucket stays only where both are live, with the
 * older slot. */
void bf_continuous_union(bf_continuous *dst, const bf_continuous *src);
void bf_continuous_intersect(bf_continuous *dst, const bf_continuous *src);

#endif
