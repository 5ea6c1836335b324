/* Models of the two fields every structure is built on (fuzz/fields.c):
 * byte images, padding checks, and cells of counters as plain uint32s. */
#ifndef FUZZ_FIELDS_H
#define FUZZ_FIELDS_H

#include "harness.h"

#include "bf_bits.h"
#include "bf_buckets.h"
#include "bf_continuous.h"

#include "keys.h"

#define CELLS_MAX_M 1024 /* counting, spectral (each of the two), stable */
#define MAX_REPEAT 16    /* adds per counting/spectral/cuckoo add op */

void bits_check_image(const bf_bits *b, const uint8_t *model);
void buckets_check_image(const uint8_t *data, const bf_buckets *f, const uint32_t *model);
int bits_model_has(const uint8_t *model, const uint64_t *pos, uint32_t k);
void tail_bits(bf_bits *b, uint16_t off, uint8_t flags);
void tail_buckets(bf_buckets *b, uint16_t off, uint8_t flags, const bf_continuous *c, int live, int live_but_last);

uint32_t width_max(unsigned width);
uint32_t mcells_min(const uint32_t *c, const uint64_t *pos, uint32_t k, uint32_t max);
uint64_t mcells_add(uint32_t *c, const uint64_t *pos, uint32_t k, uint32_t by, uint32_t max);
void mcells_remove(uint32_t *c, const uint64_t *pos, uint32_t k, uint32_t max);
int mcells_recurring(const uint32_t *c, const uint64_t *pos, uint32_t k, uint32_t max);
uint64_t mcells_nonzero(const uint32_t *c, uint64_t m);
uint64_t mcells_saturated(const uint32_t *c, uint64_t m, uint32_t max);
void cells_check_at(const bf_buckets *b, const uint32_t *model, const uint64_t *pos, uint32_t k);
void cells_check_all(const bf_buckets *b, const uint32_t *model);
void cells_twin(bf_buckets *t, uint32_t **tmodel, const bf_buckets *s, const uint32_t *smodel, int copy);
uint32_t model_combine(uint32_t a, uint32_t b, uint32_t max, bf_combine_op op);

void filter_model_merge(uint8_t *dm, const uint8_t *sm, uint64_t nbits, key_list *dk, const key_list *sk,
                        const reader *r, int intersect);
uint64_t merged_count(uint64_t a, uint64_t b, int intersect);

#endif
