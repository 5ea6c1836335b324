/* Helpers shared by the bindings of the filters of counters. */
#include "cells.h"
#include "state.h"

int bloomc_counting_same_shape(const void *a, const void *b)
{
    const bf_counting *f = a, *o = b;
    return f->cells.count == o->cells.count && f->cells.width == o->cells.width && f->k == o->k && f->seed == o->seed &&
           f->hash == o->hash;
}

void bloomc_counting_cleared(void *core)
{
    bf_counting *f = core;
    f->count = f->saturated = f->distinct = 0;
}

size_t bloomc_counting_state(bf_counting *out, uint64_t m, uint64_t k, uint64_t width, uint64_t seed, uint64_t count)
{
    bf_buckets_init(&out->cells, bloomc_state_check(m, 1, BF_BUCKETS_MAX, "m"),
                    (unsigned)bloomc_state_check(width, 1, BF_BUCKET_WIDTH_MAX, "width"));
    out->cells.data = NULL;
    out->k = (uint32_t)bloomc_state_check(k, 1, BF_K_MAX, "k");
    out->seed = (uint32_t)seed;
    out->hash = bloomc_hash_of_seed(seed);
    out->count = count;
    out->saturated = 0;
    size_t nbytes = bf_buckets_nbytes(m, (unsigned)width);
    if (!nbytes) bloomc_format_error("%" PRIu64 " cells of %u bits are too many for this machine", m, (unsigned)width);
    return nbytes;
}

const char *bloomc_counting_state_cells(bf_counting *out, const uint8_t *data, int saved)
{
    out->cells.data = (uint8_t *)data;
    if (!saved) return NULL; /* a scan of every cell: only for cells from outside */
    if (!bf_buckets_tail_clear(&out->cells)) return "bits set past the last cell";
    out->saturated = bf_buckets_count_full(&out->cells);
    return NULL;
}
