/* The plain Bloom filter over a bf_bits field. */
#ifndef BF_BLOOM_H
#define BF_BLOOM_H

#include <stddef.h>
#include <stdint.h>
#include "bf_bits.h"
#include "bf_probe.h"

typedef struct {
    bf_bits bits;
    uint32_t k;         /* probes per key, 1..BF_K_MAX */
    uint32_t seed;      /* MurmurHash3 seed */
    bf_hash_kind hash;  /* how keys map to positions */
    uint64_t count;     /* keys added */
} bf_bloom;

void bf_bloom_add(bf_bloom *f, bf_key_hash h);
int bf_bloom_contains(const bf_bloom *f, bf_key_hash h);

/* Batches of n keys already hashed: the same results as one call per key,
 * with the memory of later keys fetched while earlier ones are probed.
 * out[i] is 1 when key i is (probably) present, 0 when it is not. */
void bf_bloom_add_many(bf_bloom *f, const bf_key_hash *h, size_t n);
void bf_bloom_contains_many(const bf_bloom *f, const bf_key_hash *h, size_t n, uint8_t *out);

#endif
