#include "bf_bloom.h"
#include "bf_hash.h"

bf_key_hash bf_key_hash_bytes(const uint8_t *key, size_t len, uint32_t seed)
{
    uint64_t out[2];
    bf_murmur3_128(key, len, seed, out);
    bf_key_hash h = {out[0], out[1]};
    return h;
}

void bf_bloom_add(bf_bloom *f, bf_key_hash h)
{
    bf_probe p = bf_probe_start(h);
    for (uint32_t i = 0; i < f->k; i++) bf_bits_set(&f->bits, bf_reduce(bf_probe_next(&p), f->bits.nbits));
    f->count++;
}

int bf_bloom_contains(const bf_bloom *f, bf_key_hash h)
{
    bf_probe p = bf_probe_start(h);
    /* No early exit: all k loads issue together, and a miss costs no
     * mispredicted branch (at half fill, the first zero bit is a coin toss). */
    int all = 1;
    for (uint32_t i = 0; i < f->k; i++) all &= bf_bits_get(&f->bits, bf_reduce(bf_probe_next(&p), f->bits.nbits));
    return all;
}
