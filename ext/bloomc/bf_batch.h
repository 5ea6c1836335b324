/* How batch operations overlap memory fetches with work.
 *
 * A batch hashes its keys first, then walks them, prefetching the cells of
 * the key BF_BATCH_AHEAD places ahead: by the time the walk reaches it, its
 * cache lines are on their way. A filter that fits in the core's caches gains
 * nothing from that and pays for computing positions twice, so small filters
 * skip it. */
#ifndef BF_BATCH_H
#define BF_BATCH_H

#include <stddef.h>
#include <stdint.h>

#define BF_BATCH_AHEAD 8
/* Below this, a filter is assumed to stay in L2 between keys. */
#define BF_BATCH_PREFETCH_MIN_BYTES ((size_t)1 << 20)

static inline int bf_batch_prefetches(size_t filter_bytes)
{
    return filter_bytes >= BF_BATCH_PREFETCH_MIN_BYTES;
}

/* Parallel adds by scatter. Each thread takes its share of a round's keys
 * and writes an entry for each cell they touch to the list of the thread
 * that owns the cell's cache line; then each owner sets the cells of its
 * lists, in the order of the keys. Entries hold a position and the key's
 * index in its round. Owners are a function of the line, from a
 * multiplier: no two threads write one line. */
#define BF_SCATTER_INDEX_BITS 18
#define BF_SCATTER_ROUND_MAX ((size_t)1 << BF_SCATTER_INDEX_BITS)
/* Positions past this do not fit an entry (filters of 8 TiB or more). */
#define BF_SCATTER_POSITIONS_MAX ((uint64_t)1 << (64 - BF_SCATTER_INDEX_BITS))

/* How many entries ahead an owner fetches the cells: each is one miss. */
#define BF_SCATTER_AHEAD (2 * BF_BATCH_AHEAD)

static inline uint64_t bf_scatter_entry(uint64_t position, size_t index)
{
    return position << BF_SCATTER_INDEX_BITS | (uint64_t)index;
}
static inline uint64_t bf_scatter_position(uint64_t entry) { return entry >> BF_SCATTER_INDEX_BITS; }
static inline size_t bf_scatter_index(uint64_t entry) { return (size_t)(entry & (BF_SCATTER_ROUND_MAX - 1)); }

/* The multiplier that maps lines [0, lines) onto owners [0, parts) in
 * order, parts < lines: rounded down, so that the last line's owner is
 * still below parts. */
static inline uint64_t bf_scatter_multiplier(uint64_t lines, unsigned parts)
{
    return UINT64_MAX / lines * parts;
}

#endif
