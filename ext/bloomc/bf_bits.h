/* A bit field of any length.
 *
 * Bit i lives in byte i / 8 at bit i % 8, so the byte image is the same on
 * every machine.  The buffer is owned by the caller (the Ruby binding allocates
 * it so Ruby's GC accounts for it); bf_bits_nbytes says how large it must be. */
#ifndef BF_BITS_H
#define BF_BITS_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    uint8_t *data; /* bf_bits_nbytes(nbits) zeroed bytes */
    uint64_t nbits;
} bf_bits;

/* Largest supported length: byte counts stay far from SIZE_MAX and bit indices
 * never overflow a uint64_t in any later arithmetic. */
#define BF_BITS_MAX ((uint64_t)1 << 60)

/* Bytes to allocate for nbits (a whole number of 64-bit words, so counting can
 * go a word at a time); 0 when nbits is 0 or too large for this machine. */
size_t bf_bits_nbytes(uint64_t nbits);

static inline int bf_bits_get(const bf_bits *b, uint64_t i)
{
    return (b->data[i >> 3] >> (i & 7)) & 1;
}

static inline void bf_bits_set(bf_bits *b, uint64_t i)
{
    b->data[i >> 3] |= (uint8_t)(1u << (i & 7));
}

/* Sets bit i; returns 1 when it was clear (the add changed the field). */
static inline unsigned bf_bits_test_and_set(bf_bits *b, uint64_t i)
{
    uint8_t *byte = b->data + (i >> 3);
    unsigned was = (*byte >> (i & 7)) & 1;
    *byte = (uint8_t)(*byte | (1u << (i & 7)));
    return was ^ 1;
}

static inline void bf_bits_clear(bf_bits *b, uint64_t i)
{
    b->data[i >> 3] &= (uint8_t)(~(1u << (i & 7)));
}

/* Number of bits set. */
uint64_t bf_bits_count(const bf_bits *b);

/* Whether the bytes past nbits (up to bf_bits_nbytes) are all clear, as
 * counting and comparing assume; checked on state read from outside. */
int bf_bits_tail_clear(const bf_bits *b);

/* dst |= src and dst &= src, a word at a time; both of the same nbits. */
void bf_bits_or(bf_bits *dst, const bf_bits *src);
void bf_bits_and(bf_bits *dst, const bf_bits *src);

/* A filter of bits merged with another of the same shape: OR with the key
 * counts added (saturating), or AND with the smaller count. */
void bf_bits_merge(bf_bits *dst, uint64_t *count, const bf_bits *src, uint64_t src_count, int intersect);

#endif
