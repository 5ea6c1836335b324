#include "bf_bits.h"
#include "bf_endian.h"

size_t bf_bits_nbytes(uint64_t nbits)
{
    if (nbits == 0 || nbits > BF_BITS_MAX) return 0;
    uint64_t words = (nbits + 63) / 64;
    if (words > SIZE_MAX / 8) return 0;
    return (size_t)(words * 8);
}

uint64_t bf_bits_count(const bf_bits *b)
{
    /* Bits past nbits are never set, so whole words can be counted. */
    size_t nbytes = bf_bits_nbytes(b->nbits);
    uint64_t total = 0;
    for (size_t i = 0; i < nbytes; i += 8) total += bf_popcount64(bf_load_le64(b->data + i));
    return total;
}

void bf_bits_or(bf_bits *dst, const bf_bits *src)
{
    size_t nbytes = bf_bits_nbytes(dst->nbits);
    for (size_t i = 0; i < nbytes; i += 8) bf_store_le64(dst->data + i, bf_load_le64(dst->data + i) | bf_load_le64(src->data + i));
}

void bf_bits_and(bf_bits *dst, const bf_bits *src)
{
    size_t nbytes = bf_bits_nbytes(dst->nbits);
    for (size_t i = 0; i < nbytes; i += 8) bf_store_le64(dst->data + i, bf_load_le64(dst->data + i) & bf_load_le64(src->data + i));
}

int bf_bits_tail_clear(const bf_bits *b)
{
    size_t nbytes = bf_bits_nbytes(b->nbits), used = (size_t)(b->nbits >> 3);
    if ((b->nbits & 7) && (b->data[used++] >> (b->nbits & 7))) return 0;
    for (size_t i = used; i < nbytes; i++)
        if (b->data[i]) return 0;
    return 1;
}

void bf_bits_merge(bf_bits *dst, uint64_t *count, const bf_bits *src, uint64_t src_count, int intersect)
{
    if (intersect) {
        bf_bits_and(dst, src);
        if (src_count < *count) *count = src_count;
    } else {
        bf_bits_or(dst, src);
        *count = src_count > UINT64_MAX - *count ? UINT64_MAX : *count + src_count;
    }
}
