/* Independent references the models are built on, and the checks of the
 * core's hashes and probe positions against them (fuzz/reference.c). */
#ifndef FUZZ_REFERENCE_H
#define FUZZ_REFERENCE_H

#include "harness.h"

#include "bf_hash.h"
#include "bf_probe.h"

#define RM_SALT 1 /* bf_counting.c's SECONDARY_SALT; the bitwise levels' salts start after it */

uint64_t ref_fmix64(uint64_t k);
uint64_t ref_splitmix64(uint64_t *state);
bf_hash_kind hash_kind_of(uint8_t b);
void positions(bf_key_hash h, bf_hash_kind kind, uint32_t k, uint64_t m, uint64_t *out);
bf_key_hash key_hash(const uint8_t *p, size_t n, uint32_t seed, bf_hash_kind kind);
bf_key_hash mm_hash(const reader *r, key_ref k, uint32_t seed);
bf_key_hash salted(bf_key_hash h, uint64_t salt);
void check_vectors(void);
void check_counter_vectors(void);

#endif
