/* The batch methods' engine (batch.c): add_all, the batch lookups and the CLI's line loops. */
#ifndef BLOOMC_BATCH_H
#define BLOOMC_BATCH_H

#include "bloomc.h"
#include "bf_probe.h"

/* batch.c: add_all and the batch lookups over an Array of keys, for any
 * filter that can add and look up hashed keys n at a time. */
typedef struct {
    void *filter;
    uint32_t seed;
    bf_hash_kind kind;
    /* out, when not NULL: 1 for each key that was new (add?'s answer) */
    void (*add)(void *filter, const bf_key_hash *h, size_t n, uint8_t *out);
    void (*lookup)(void *filter, const bf_key_hash *h, size_t n, uint8_t *out);
    /* Parallel batches (NULL: serial only). add_part adds keys as add but
     * sets only the cells in body bytes [lo, hi), and sets out[i] to 1
     * (never to 0) when key i changed one there; the caller then adds to
     * *count and *distinct (when not NULL). lookup_shared: a lookup that
     * only reads, so that several threads may call it at once. */
    void (*add_part)(void *filter, const bf_key_hash *h, size_t n, uint8_t *out, size_t lo, size_t hi);
    /* Or, parallel adds by scatter (bf_batch.h): scatter writes the entries
     * of keys h[0 .. n) (indexes from first) to next[owner], for parts
     * owners, at most probes a key; apply sets one owner's entries. */
    void (*scatter)(const void *filter, const bf_key_hash *h, size_t n, size_t first, unsigned parts, uint64_t **next);
    void (*apply)(void *filter, const uint64_t *entries, size_t n, uint8_t *out);
    unsigned probes;
    /* A clock's kind: catch_up applies the ticks due, before each round of a
     * parallel add and after it; when it applied any after, the round is
     * applied again, stamping its keys with the newer slot (late rather than
     * early: a key falls short of its TTL by at most that second pass). */
    int (*catch_up)(void *filter);
    void (*lookup_shared)(void *filter, const bf_key_hash *h, size_t n, uint8_t *out);
    uint64_t *count, *distinct;
    size_t body_bytes;
} bloomc_batch;

/* What a batch lookup returns (the mode argument, as a Fixnum). */
enum {
    BLOOMC_BATCH_RESULTS,
    BLOOMC_BATCH_COUNT,
    BLOOMC_BATCH_ALL,
    BLOOMC_BATCH_ANY
};

/* add_all (collect false: returns nil) and add_new (collect true: returns
 * the Array of the keys that were new, in order). */
VALUE bloomc_batch_add(const bloomc_batch *b, VALUE keys, VALUE collect, VALUE threads);
VALUE bloomc_batch_lookup(const bloomc_batch *b, VALUE keys, VALUE mode, VALUE threads);
VALUE bloomc_batch_dedup(const bloomc_batch *b, VALUE chunk, VALUE out, VALUE length);
/* The lines of a chunk's first length bytes (checked), and how many. */
typedef struct {
    VALUE chunk;
    const char *text;
    long length, count;
} bloomc_batch_lines;
bloomc_batch_lines bloomc_batch_lines_of(VALUE chunk, VALUE length);
VALUE bloomc_batch_add_lines(const bloomc_batch *b, const bloomc_batch_lines *lines, VALUE threads);
VALUE bloomc_batch_query(const bloomc_batch *b, VALUE chunk, VALUE out, VALUE length, VALUE delimiter, VALUE fields, VALUE invert);
void bloomc_define_batch_methods(VALUE klass, VALUE (*add)(VALUE, VALUE, VALUE, VALUE), VALUE (*lookup)(VALUE, VALUE, VALUE, VALUE));

#endif
