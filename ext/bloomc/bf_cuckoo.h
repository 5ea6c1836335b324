/* The cuckoo filter (Fan, Andersen, Kaminsky and Mitzenmacher, "Cuckoo
 * Filter: Practically Better Than Bloom", CoNEXT 2014): partial-key cuckoo
 * hashing into buckets of BF_CUCKOO_SLOTS fingerprints of f bits each. A key
 * lives as its fingerprint in one of two buckets, i1 from its hash and
 * i2 = alt(i1, fingerprint), so a stored fingerprint can move between its two
 * buckets without the key, and be deleted.
 *
 * Any number of buckets works (not only powers of two): alt(i, fp) =
 * (H(fp) - i) mod n is its own inverse, so alt(alt(i, fp), fp) = i.
 * Fingerprints are never 0 (0 is an empty slot). */
#ifndef BF_CUCKOO_H
#define BF_CUCKOO_H

#include <stddef.h>
#include <stdint.h>
#include "bf_buckets.h"
#include "bf_probe.h"

#define BF_CUCKOO_SLOTS 4
#define BF_CUCKOO_FP_MIN 8
#define BF_CUCKOO_FP_MAX 32
/* Relocations an insert tries before it gives up (the paper's 500). */
#define BF_CUCKOO_KICKS 500
#define BF_CUCKOO_BUCKETS_MAX (BF_BUCKETS_MAX / BF_CUCKOO_SLOTS)

typedef struct {
    bf_buckets slots; /* nbuckets * BF_CUCKOO_SLOTS slots of fp_bits each */
    uint64_t nbuckets;
    uint32_t seed;  /* MurmurHash3 seed */
    uint64_t count; /* fingerprints stored */
} bf_cuckoo;

/* Shapes the filter (slots not attached). */
void bf_cuckoo_init(bf_cuckoo *f, uint64_t nbuckets, unsigned fp_bits, uint32_t seed);

/* Where a key goes: its fingerprint and its two buckets. */
typedef struct {
    uint32_t fp;
    uint64_t i1, i2;
} bf_cuckoo_place;

bf_cuckoo_place bf_cuckoo_locate(const bf_cuckoo *f, bf_key_hash h);

/* Stores a copy of the key's fingerprint, relocating others when both its
 * buckets are full. 0 when no room was found: every relocation is undone,
 * so the filter is exactly as before and no key is lost. */
int bf_cuckoo_add(bf_cuckoo *f, bf_key_hash h);
/* The same for a fingerprint already known to belong in bucket i (a merge). */
int bf_cuckoo_add_fingerprint(bf_cuckoo *f, uint64_t i, uint32_t fp);

/* The slot writes of a run of adds, so that the run can be undone whole (a
 * batch that is all or nothing): a key's ninth copy finds no room at any
 * fill, so any add of a batch may fail. Costs 16 bytes a write, not a copy
 * of the filter. Start with bf_cuckoo_journal_start; free with
 * bf_cuckoo_journal_free. */
typedef struct {
    uint64_t slot;
    uint32_t was; /* what the slot held before */
} bf_cuckoo_write;

typedef struct {
    bf_cuckoo_write *writes;
    size_t n, cap;
    uint64_t count; /* the filter's count at the start */
} bf_cuckoo_journal;

void bf_cuckoo_journal_start(bf_cuckoo_journal *j, const bf_cuckoo *f);
/* bf_cuckoo_add_fingerprint, writing down what it overwrites: 1, 0 (no
 * room; nothing changed), or -1 when the journal cannot grow (out of
 * memory; nothing changed). */
int bf_cuckoo_add_journaled(bf_cuckoo *f, uint64_t i, uint32_t fp, bf_cuckoo_journal *j);
/* Puts every slot and the count back as they were at the start, last write
 * first; the journal is then empty (and may go on). */
void bf_cuckoo_journal_undo(bf_cuckoo *f, bf_cuckoo_journal *j);
void bf_cuckoo_journal_free(bf_cuckoo_journal *j);
int bf_cuckoo_contains(const bf_cuckoo *f, bf_key_hash h);
/* Whether a located key's fingerprint is in one of its buckets: for a caller
 * that looks before it adds, and so locates once. */
int bf_cuckoo_found(const bf_cuckoo *f, bf_cuckoo_place p);
/* Copies of the key's fingerprint in its two buckets (0 .. 2 * SLOTS). */
unsigned bf_cuckoo_count(const bf_cuckoo *f, bf_key_hash h);
/* Removes one copy; 0 when there is none. */
int bf_cuckoo_remove(bf_cuckoo *f, bf_key_hash h);

/* dst gets a copy of every fingerprint of src (the same shape and seed): 0,
 * with dst part-way, when one finds no room (the caller works on a copy). */
int bf_cuckoo_union(bf_cuckoo *dst, const bf_cuckoo *src);

#endif
