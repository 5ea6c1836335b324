#include "bf_buckets.h"

size_t bf_buckets_nbytes(uint64_t count, unsigned width)
{
    if (count == 0 || count > BF_BUCKETS_MAX || width < 1 || width > BF_BUCKET_WIDTH_MAX)
        return 0;
    uint64_t bytes = (count * width + 7) / 8 + 7;  /* 7: room for the last 8-byte load */
    if (bytes > SIZE_MAX) return 0;
    return (size_t)bytes;
}

void bf_buckets_init(bf_buckets *b, uint64_t count, unsigned width)
{
    b->count = count;
    b->width = width;
    b->max = (uint32_t)(((uint64_t)1 << width) - 1);
}

uint64_t bf_buckets_count_nonzero(const bf_buckets *b)
{
    /* Read `lanes` buckets per 8-byte load (57 bits are always usable after the
     * byte-alignment shift) and count the non-zero ones with one popcount:
     * adding the low-bits mask to a lane's low bits carries into the lane's top
     * bit exactly when those low bits are non-zero, and never past the lane. */
    unsigned w = b->width;
    unsigned lanes = 57 / w;
    uint64_t low = 0, high = 0;
    for (unsigned j = 0; j < lanes; j++) {
        low |= ((uint64_t)(b->max >> 1)) << (j * w);
        high |= (uint64_t)1 << (j * w + w - 1);
    }
    uint64_t total = 0;
    for (uint64_t i = 0; i < b->count; i += lanes) {
        uint64_t bit = i * w;
        uint64_t x = bf_load_le64(b->data + (bit >> 3)) >> (bit & 7);
        uint64_t rem = b->count - i;
        unsigned n = rem < lanes ? (unsigned)rem : lanes;
        x &= ((uint64_t)1 << (n * w)) - 1;  /* n * w <= 57 */
        total += bf_popcount64((((x & low) + low) | x) & high);
    }
    return total;
}
