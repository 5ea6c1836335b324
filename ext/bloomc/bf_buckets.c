#include "bf_buckets.h"

size_t bf_buckets_nbytes(uint64_t count, unsigned width)
{
    if (count == 0 || count > BF_BUCKETS_MAX || width < 1 || width > BF_BUCKET_WIDTH_MAX)
        return 0;
    uint64_t bytes = (count * width + 7) / 8 + 7; /* 7: room for the last 8-byte load */
    if (bytes > SIZE_MAX) return 0;
    return (size_t)bytes;
}

void bf_buckets_init(bf_buckets *b, uint64_t count, unsigned width)
{
    b->count = count;
    b->width = width;
    b->max = (uint32_t)(((uint64_t)1 << width) - 1);
}

/* The masks of the lane tricks below, for `lanes` buckets of width w in a
 * word: low holds each lane's low w - 1 bits, high each lane's top bit.
 * Adding low's lane bits to a lane's low bits carries into the lane's top
 * bit exactly when those low bits are non-zero, and never past the lane. */
static void lane_masks(const bf_buckets *b, unsigned lanes, uint64_t *low, uint64_t *high)
{
    unsigned w = b->width;
    *low = *high = 0;
    for (unsigned j = 0; j < lanes; j++) {
        *low |= ((uint64_t)(b->max >> 1)) << (j * w);
        *high |= (uint64_t)1 << (j * w + w - 1);
    }
}

/* Top bit of each non-zero lane of x. */
static inline uint64_t nonzero_lanes(uint64_t x, uint64_t low, uint64_t high)
{
    return (((x & low) + low) | x) & high;
}

void bf_buckets_decrement_run(bf_buckets *b, uint64_t first, uint64_t n)
{
    /* 57 / width buckets per 8-byte load: subtract 1 from the lowest bit of
     * every non-zero lane at once (a lane holding at least 1 never borrows
     * from its neighbour). */
    unsigned w = b->width;
    unsigned lanes = 57 / w;
    uint64_t low, high;
    lane_masks(b, lanes, &low, &high);
    for (uint64_t i = first, end = first + n; i < end;) {
        uint64_t rem = end - i;
        unsigned cnt = rem < lanes ? (unsigned)rem : lanes;
        uint64_t bit = i * w;
        uint8_t *p = b->data + (bit >> 3);
        unsigned shift = (unsigned)(bit & 7);
        uint64_t mask = ((uint64_t)1 << (cnt * w)) - 1; /* cnt * w <= 57 */
        uint64_t word = bf_load_le64(p);
        uint64_t x = (word >> shift) & mask;
        x -= nonzero_lanes(x, low, high) >> (w - 1);
        bf_store_le64(p, (word & ~(mask << shift)) | (x << shift));
        i += cnt;
    }
}

uint64_t bf_buckets_count_nonzero(const bf_buckets *b)
{
    /* Read `lanes` buckets per 8-byte load (57 bits are always usable after the
     * byte-alignment shift) and count the non-zero ones with one popcount. */
    unsigned w = b->width;
    unsigned lanes = 57 / w;
    uint64_t low, high;
    lane_masks(b, lanes, &low, &high);
    uint64_t total = 0;
    for (uint64_t i = 0; i < b->count; i += lanes) {
        uint64_t bit = i * w;
        uint64_t x = bf_load_le64(b->data + (bit >> 3)) >> (bit & 7);
        uint64_t rem = b->count - i;
        unsigned n = rem < lanes ? (unsigned)rem : lanes;
        x &= ((uint64_t)1 << (n * w)) - 1; /* n * w <= 57 */
        total += bf_popcount64(nonzero_lanes(x, low, high));
    }
    return total;
}

uint64_t bf_buckets_count_full(const bf_buckets *b)
{
    uint64_t total = 0;
    for (uint64_t i = 0; i < b->count; i++) total += bf_buckets_get(b, i) == b->max;
    return total;
}

void bf_buckets_combine(bf_buckets *dst, const bf_buckets *src, bf_combine_op op)
{
    for (uint64_t i = 0; i < dst->count; i++) {
        uint32_t a = bf_buckets_get(dst, i), b = bf_buckets_get(src, i), v;
        switch (op) {
        case BF_COMBINE_SUM: v = b >= dst->max - a ? dst->max : a + b; break;
        case BF_COMBINE_MIN: v = a < b ? a : b; break;
        default: v = a > b ? a : b; break;
        }
        if (v != a) bf_buckets_set(dst, i, v);
    }
}

int bf_buckets_tail_clear(const bf_buckets *b)
{
    uint64_t nbits = b->count * b->width;
    size_t nbytes = bf_buckets_nbytes(b->count, b->width), used = (size_t)(nbits >> 3);
    if ((nbits & 7) && (b->data[used++] >> (nbits & 7))) return 0;
    for (size_t i = used; i < nbytes; i++)
        if (b->data[i]) return 0;
    return 1;
}
