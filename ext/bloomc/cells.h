/* Shared by the bindings of the filters of counters (counting and
 * spectral): cells.c. */
#ifndef BLOOMC_CELLS_H
#define BLOOMC_CELLS_H

#include "filter.h"
#include "bf_counting.h"

/* A counting filter's saved fields into out, checked (FormatError); returns
 * the bytes its cells take. Then bloomc_counting_state_cells points out at
 * them and, for saved cells, checks them (what is wrong, or NULL) and counts
 * the saturated ones (the saved count is not trusted: a mapped file's may be
 * older). */
size_t bloomc_counting_state(bf_counting *out, uint64_t m, uint64_t k, uint64_t width, uint64_t seed, uint64_t count);
const char *bloomc_counting_state_cells(bf_counting *out, const uint8_t *data, int saved);
/* Descriptor hooks (filter.h) of a counting filter's core; cleared zeroes
 * every count. */
int bloomc_counting_same_shape(const void *a, const void *b);
void bloomc_counting_cleared(void *core);

#endif
