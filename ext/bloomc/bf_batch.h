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

#define BF_BATCH_AHEAD 8
/* Below this, a filter is assumed to stay in L2 between keys. */
#define BF_BATCH_PREFETCH_MIN_BYTES ((size_t)1 << 20)

static inline int bf_batch_prefetches(size_t filter_bytes)
{
    return filter_bytes >= BF_BATCH_PREFETCH_MIN_BYTES;
}

#endif
