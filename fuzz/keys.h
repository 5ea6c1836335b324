/* The keys the models keep of what they were given (fuzz/keys.c): lists of
 * keys with an age, tallies of distinct keys with their true counts, and
 * batches of keys read from the input. */
#ifndef FUZZ_KEYS_H
#define FUZZ_KEYS_H

#include "harness.h"

#include "bf_hash.h"
#include "bf_probe.h"

#define BATCH_MAX 70
#define RECENT_KEYS 16 /* the most recent keys that a "recent" op looks up */

/* A growable list of keys (with an age, used by the continuous filter). */
typedef struct {
    key_ref key;
    uint64_t age; /* ticks since this add */
} key_entry;

typedef struct {
    key_entry *items;
    size_t len, cap;
} key_list;

/* The distinct keys (by their bytes) a structure was given, with what the
 * lower-bound checks need to know of each. */
typedef struct {
    key_ref key;
    bf_key_hash h;      /* under the structure's seed */
    uint64_t n;         /* true count: adds less deletes while it had any */
    uint64_t sc;        /* RM: what it put into the secondary cells, less what it took */
    uint64_t last;      /* stable: adds so far at its last add; A2: swaps so far at it */
    uint8_t unreliable; /* RM: it entered the secondary through a false positive */
} tally_entry;

typedef struct {
    tally_entry *items;
    size_t len, cap;
} tally;

/* Keys sorted by a hash, so that merging two histories costs n log n. */
typedef struct {
    uint64_t h1, h2;
    size_t i;
} key_index;

void keys_push(key_list *l, key_ref k);
void keys_free(key_list *l);
void keys_copy(key_list *d, const key_list *s);
key_index *keys_index(const key_list *l, const reader *r);
long keys_min_age(const key_list *l, const key_index *ix, const reader *r, key_ref k);
void keys_dedupe(key_list *l, const reader *r);

void tally_free(tally *t);
long tally_find(const tally *t, const reader *r, key_ref k, bf_key_hash h);
tally_entry *tally_get(tally *t, const reader *r, key_ref k, bf_key_hash h);
/* u8 which: one of the keys given before, into e, when there are any and
 * the structure exists (have). */
int rd_known_key(reader *r, const tally *keys, int have, tally_entry *e);
void tally_copy(tally *d, const tally *s);
void tally_push(tally *t, const tally_entry *e);
key_index *tally_index(const tally *t);
long tally_find_indexed(const tally *t, size_t n, const key_index *ix, const reader *r, key_ref k, bf_key_hash h);

/* Tallies of merged histories. Sum: each key's true counts added. Min: the
 * smaller of the two (0 for a key of one history only). Max: the larger. */
enum {
    TALLY_SUM,
    TALLY_MIN,
    TALLY_MAX
};

void tally_merge_counts(tally *d, const tally *s, const reader *r, int how);

/* A group of keys from the input, hashed for one filter: the *_many functions
 * must answer exactly as one single-key call per key, in order. */
typedef struct {
    size_t n;
    key_ref keys[BATCH_MAX];
    bf_key_hash h[BATCH_MAX];
} batch;

void rd_batch(reader *r, batch *b, uint32_t seed, bf_hash_kind kind);
bf_key_hash *exact_hashes(const bf_key_hash *h, size_t n);
uint8_t *exact_answers(size_t n);

#endif
