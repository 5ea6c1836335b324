/* A field of n-bit buckets, 1 <= n <= 32.
 *
 * Buckets are packed end to end with no padding between them: bucket i holds
 * bits [i*n, i*n + n) of a little-endian bit stream (bit j in byte j / 8 at
 * bit j % 8), the same layout as bf_bits.  A bucket is read with one 8-byte
 * load at the byte holding its first bit: the shift is at most 7 and n at most
 * 32, so the bucket always lies inside the loaded word.  The buffer carries
 * enough trailing bytes for that load at the last bucket. */
#ifndef BF_BUCKETS_H
#define BF_BUCKETS_H

#include <stddef.h>
#include <stdint.h>
#include "bf_endian.h"

#define BF_BUCKET_WIDTH_MAX 32
#define BF_BUCKETS_MAX ((uint64_t)1 << 56)

typedef struct {
    uint8_t *data;  /* bf_buckets_nbytes(count, width) zeroed bytes */
    uint64_t count; /* number of buckets */
    unsigned width; /* bits per bucket, 1..32 */
    uint32_t max;   /* largest bucket value, 2^width - 1 */
} bf_buckets;

/* Bytes to allocate; 0 when count is 0, width is out of range, or the field is
 * too large for this machine. */
size_t bf_buckets_nbytes(uint64_t count, unsigned width);

/* Fill in count, width and max (data is set by the caller). */
void bf_buckets_init(bf_buckets *b, uint64_t count, unsigned width);

static inline uint32_t bf_buckets_get(const bf_buckets *b, uint64_t i)
{
    uint64_t bit = i * b->width;
    return (uint32_t)(bf_load_le64(b->data + (bit >> 3)) >> (bit & 7)) & b->max;
}

/* value must be <= b->max; neighbours are untouched. */
static inline void bf_buckets_set(bf_buckets *b, uint64_t i, uint32_t value)
{
    uint64_t bit = i * b->width;
    uint8_t *p = b->data + (bit >> 3);
    unsigned shift = (unsigned)(bit & 7);
    uint64_t word = bf_load_le64(p);
    word &= ~((uint64_t)b->max << shift);
    word |= (uint64_t)value << shift;
    bf_store_le64(p, word);
}

/* Saturating increment and decrement; both return the new value. */
static inline uint32_t bf_buckets_inc(bf_buckets *b, uint64_t i)
{
    uint32_t v = bf_buckets_get(b, i);
    if (v < b->max) bf_buckets_set(b, i, ++v);
    return v;
}

static inline uint32_t bf_buckets_dec(bf_buckets *b, uint64_t i)
{
    uint32_t v = bf_buckets_get(b, i);
    if (v > 0) bf_buckets_set(b, i, --v);
    return v;
}

/* Take 1 from every non-zero bucket of [first, first + n), first + n <= count
 * (a word at a time). */
void bf_buckets_decrement_run(bf_buckets *b, uint64_t first, uint64_t n);

/* Number of non-zero buckets. */
uint64_t bf_buckets_count_nonzero(const bf_buckets *b);

/* Whether the bits past the last bucket (up to bf_buckets_nbytes) are all
 * clear; checked on state read from outside. */
int bf_buckets_tail_clear(const bf_buckets *b);

/* Number of buckets at their maximum. */
uint64_t bf_buckets_count_full(const bf_buckets *b);

/* Bucket by bucket, dst = dst + src (stopping at the maximum), min(dst, src)
 * or max(dst, src); both of the same count and width. */
typedef enum {
    BF_COMBINE_SUM,
    BF_COMBINE_MIN,
    BF_COMBINE_MAX
} bf_combine_op;
void bf_buckets_combine(bf_buckets *dst, const bf_buckets *src, bf_combine_op op);

#endif
