#include "bf_bloom.h"
#include <math.h>
#include "bf_batch.h"
#include "bf_endian.h"

double bf_bloom_rate(uint64_t m, uint32_t k, double n)
{
    /* the chance that a given bit is set: 1 - (1 - 1/m)^(kn), without the
     * cancellation of 1 - 1/m for large m */
    double fill = -expm1((double)k * n * log1p(-1.0 / (double)m));
    return pow(fill, k);
}

int bf_bloom_size(double n, double p, uint64_t *m_out, uint32_t *k_out)
{
    /* The optimum over real k is near k = -log2 p; the best whole k is one
     * of its neighbours. For each, m solves the formula in closed form; it
     * is rounded up, then raised while rounding in the formula still puts
     * the rate above p. */
    double ideal = -log2(p), best = INFINITY;
    uint32_t best_k = 0;
    double lo = floor(ideal) - 1, hi = ceil(ideal) + 1;
    if (lo < 1) lo = 1;
    if (hi > BF_K_MAX) hi = BF_K_MAX;
    if (lo > hi) lo = hi;
    for (uint32_t k = (uint32_t)lo; k <= (uint32_t)hi; k++) {
        double fill = pow(p, 1.0 / k);
        double m = ceil(-1.0 / expm1(log1p(-fill) / ((double)k * n)));
        if (!(m >= 1)) m = 1;
        for (int step = 0; m <= (double)BF_BITS_MAX && bf_bloom_rate((uint64_t)m, k, n) > p && step < 64; step++)
            m += fmax(1, ceil(m * 1e-12));
        if (m <= (double)BF_BITS_MAX && bf_bloom_rate((uint64_t)m, k, n) <= p && m < best) {
            best = m;
            best_k = k;
        }
    }
    if (!best_k) return 0;
    *m_out = (uint64_t)best;
    *k_out = best_k;
    return 1;
}

int bf_bloom_set_probes(bf_bits *b, uint32_t k, bf_hash_kind hash, bf_key_hash h)
{
    bf_probe p = bf_probe_start(h, hash, b->nbits);
    unsigned changed = 0;
    for (uint32_t i = 0; i < k; i++) changed |= bf_bits_test_and_set(b, bf_probe_next(&p));
    return (int)changed;
}

int bf_bloom_test_probes(const bf_bits *b, uint32_t k, bf_hash_kind hash, bf_key_hash h)
{
    bf_probe p = bf_probe_start(h, hash, b->nbits);
    for (uint32_t i = 0; i < k; i++)
        if (!bf_bits_get(b, bf_probe_next(&p))) return 0;
    return 1;
}

int bf_bloom_add(bf_bloom *f, bf_key_hash h)
{
    int changed = bf_bloom_set_probes(&f->bits, f->k, f->hash, h);
    f->count++;
    f->distinct += (uint64_t)changed;
    return changed;
}

int bf_bloom_contains(const bf_bloom *f, bf_key_hash h)
{
    bf_probe p = bf_probe_start(h, f->hash, f->bits.nbits);
    /* Mostly empty (k adds per 4 bits or fewer: at most 22% of the bits
     * set, fewer when keys were added twice): a miss's first bit is zero
     * nearly always, so stopping there is a well-predicted branch, and on a
     * filter larger than the caches it saves the memory traffic of the other
     * k - 1 probes. */
    if ((double)f->k * (double)f->count * 4 < (double)f->bits.nbits) return bf_bloom_test_probes(&f->bits, f->k, f->hash, h);
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

void bf_bloom_add_many(bf_bloom *f, const bf_key_hash *h, size_t n, uint8_t *out)
{
    int ahead = bf_batch_prefetches(bf_bits_nbytes(f->bits.nbits));
    if (ahead)
        for (size_t i = 0; i < n && i < BF_BATCH_AHEAD; i++) prefetch_key(f, h[i]);
    for (size_t i = 0; i < n; i++) {
        if (ahead && i + BF_BATCH_AHEAD < n) prefetch_key(f, h[i + BF_BATCH_AHEAD]);
        int changed = bf_bloom_add(f, h[i]);
        if (out) out[i] = (uint8_t)changed;
    }
}

void bf_bloom_scatter(const bf_bloom *f, const bf_key_hash *h, size_t n, size_t first, unsigned parts, uint64_t **next)
{
    uint64_t multiplier = bf_scatter_multiplier((f->bits.nbits + 511) / 512, parts);
    for (size_t i = 0; i < n; i++) {
        bf_probe p = bf_probe_start(h[i], f->hash, f->bits.nbits);
        for (uint32_t j = 0; j < f->k; j++) {
            uint64_t bit = bf_probe_next(&p);
            *next[bf_reduce(bit / 512, multiplier)]++ = bf_scatter_entry(bit, first + i);
        }
    }
}

void bf_bloom_apply(bf_bloom *f, const uint64_t *entries, size_t n, uint8_t *out)
{
    for (size_t i = 0; i < n; i++) {
        if (i + BF_SCATTER_AHEAD < n) bf_prefetch(f->bits.data + (bf_scatter_position(entries[i + BF_SCATTER_AHEAD]) >> 3));
        if (bf_bits_test_and_set(&f->bits, bf_scatter_position(entries[i])))
            __atomic_store_n(&out[bf_scatter_index(entries[i])], 1, __ATOMIC_RELAXED);
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
