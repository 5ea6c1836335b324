#include "bf_bloom.h"
#include "bf_batch.h"
#include "bf_endian.h"

void bf_bloom_add(bf_bloom *f, bf_key_hash h)
{
    bf_probe p = bf_probe_start(h, f->hash, f->bits.nbits);
    for (uint32_t i = 0; i < f->k; i++) bf_bits_set(&f->bits, bf_probe_next(&p));
    f->count++;
}

int bf_bloom_contains(const bf_bloom *f, bf_key_hash h)
{
    bf_probe p = bf_probe_start(h, f->hash, f->bits.nbits);
    /* Mostly empty (k adds per 4 bits or fewer: at most 22% of the bits
     * set, fewer when keys were added twice): a miss's first bit is zero
     * nearly always, so stopping there is a well-predicted branch, and on a
     * filter larger than the caches it saves the memory traffic of the other
     * k - 1 probes. */
    if ((double)f->k * (double)f->count * 4 < (double)f->bits.nbits) {
        for (uint32_t i = 0; i < f->k; i++)
            if (!bf_bits_get(&f->bits, bf_probe_next(&p))) return 0;
        return 1;
    }
    /* Fuller: no early exit. All k loads issue together, and a miss costs no
     * mispredicted branch (at half fill, the first zero bit is a coin toss). */
    int all = 1;
    for (uint32_t i = 0; i < f->k; i++) all &= bf_bits_get(&f->bits, bf_probe_next(&p));
    return all;
}

static void prefetch_key(const bf_bloom *f, bf_key_hash h)
{
    bf_probe p = bf_probe_start(h, f->hash, f->bits.nbits);
    for (uint32_t i = 0; i < f->k; i++) bf_prefetch(f->bits.data + (bf_probe_next(&p) >> 3));
}

void bf_bloom_add_many(bf_bloom *f, const bf_key_hash *h, size_t n)
{
    int ahead = bf_batch_prefetches(bf_bits_nbytes(f->bits.nbits));
    if (ahead)
        for (size_t i = 0; i < n && i < BF_BATCH_AHEAD; i++) prefetch_key(f, h[i]);
    for (size_t i = 0; i < n; i++) {
        if (ahead && i + BF_BATCH_AHEAD < n) prefetch_key(f, h[i + BF_BATCH_AHEAD]);
        bf_bloom_add(f, h[i]);
    }
}

void bf_bloom_contains_many(const bf_bloom *f, const bf_key_hash *h, size_t n, uint8_t *out)
{
    int ahead = bf_batch_prefetches(bf_bits_nbytes(f->bits.nbits));
    if (ahead)
        for (size_t i = 0; i < n && i < BF_BATCH_AHEAD; i++) prefetch_key(f, h[i]);
    for (size_t i = 0; i < n; i++) {
        if (ahead && i + BF_BATCH_AHEAD < n) prefetch_key(f, h[i + BF_BATCH_AHEAD]);
        out[i] = (uint8_t)bf_bloom_contains(f, h[i]);
    }
}
