#include "bf_bloom.h"

void bf_bloom_add(bf_bloom *f, bf_key_hash h)
{
    bf_probe p = bf_probe_start(h, f->hash, f->bits.nbits);
    for (uint32_t i = 0; i < f->k; i++) bf_bits_set(&f->bits, bf_probe_next(&p));
    f->count++;
}

int bf_bloom_contains(const bf_bloom *f, bf_key_hash h)
{
    bf_probe p = bf_probe_start(h, f->hash, f->bits.nbits);
    /* No early exit: all k loads issue together, and a miss costs no
     * mispredicted branch (at half fill, the first zero bit is a coin toss). */
    int all = 1;
    for (uint32_t i = 0; i < f->k; i++) all &= bf_bits_get(&f->bits, bf_probe_next(&p));
    return all;
}
