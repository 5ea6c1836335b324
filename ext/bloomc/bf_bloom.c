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

/* The exact path's budget: throws times reachable counts of set bits. */
#define EXACT_STEPS 25000
#define EXACT_STATES 160

double bf_bloom_expected_rate(uint64_t m, uint32_t k, double n)
{
    double throws = (double)k * n;
    if (!(throws > 0)) return 0;
    double reach = fmin(throws, (double)m);
    if (n == floor(n) && throws * reach <= EXACT_STEPS) {
        /* P(X = j) after each throw: a throw lands on a set bit with
         * chance j/m. reach <= throws, so at most sqrt(25,000) + 1 states. */
        size_t states = (size_t)reach + 1, t_max = (size_t)throws;
        double dist[EXACT_STATES] = {1};
        for (size_t t = 0; t < t_max; t++) {
            size_t top = t + 1 < states - 1 ? t + 1 : states - 1;
            for (size_t j = top; j > 0; j--)
                dist[j] = dist[j] * ((double)j / (double)m) + dist[j - 1] * ((double)(m - (j - 1)) / (double)m);
            dist[0] = 0;
        }
        double rate = 0;
        for (size_t j = 1; j < states; j++) rate += dist[j] * pow((double)j / (double)m, k);
        return rate;
    }
    /* E[f^k] ~ mu^k + C(k,2) mu^(k-2) Var[f], f = X/m. With a = (1-1/m)^N and
     * b = (1-2/m)^N: Var[X] = m^2 (b - a^2) + m (a - b), where
     * b - a^2 = a^2 expm1(N log1p(-1/(m-1)^2)) keeps its digits at any m. */
    double mu = bf_bloom_rate(m, 1, throws);
    if (m < 2 || k < 2) return pow(mu, k);
    double md = (double)m;
    double a = exp(throws * log1p(-1.0 / md)), b = exp(throws * log1p(-2.0 / md));
    double spread = a * a * expm1(throws * log1p(-1.0 / ((md - 1) * (md - 1))));
    double var = spread + (a - b) / md; /* Var[X] / m^2 */
    return pow(mu, k) + (double)k * (k - 1) / 2 * pow(mu, k - 2.0) * fmax(var, 0);
}

/* The formula's m from its closed form, raised while rounding still puts
 * the rate above p (kept step for step: v2 scalable files are checked
 * against layer shapes sized this way). 0 when it gets nowhere. */
static uint64_t formula_bits(double start, uint32_t k, double n, double p)
{
    double m = start;
    for (int step = 0; m <= (double)BF_BITS_MAX && bf_bloom_rate((uint64_t)m, k, n) > p && step < 64; step++)
        m += fmax(1, ceil(m * 1e-12));
    return m <= (double)BF_BITS_MAX && bf_bloom_rate((uint64_t)m, k, n) <= p ? (uint64_t)m : 0;
}

/* The fewest m >= from at which the expected rate of k probes and n keys
 * is within p, or 0 past BF_BITS_MAX: doubling steps out, then halving
 * back, in integers (a double cannot count single bits past 2^53). */
static uint64_t expected_bits(uint64_t from, uint32_t k, double n, double p)
{
    if (bf_bloom_expected_rate(from, k, n) <= p) return from;
    uint64_t bad = from, step = 1;
    for (;;) {
        if (step > BF_BITS_MAX - bad) {
            if (bf_bloom_expected_rate(BF_BITS_MAX, k, n) > p) return 0;
            step = BF_BITS_MAX - bad;
            break;
        }
        if (bf_bloom_expected_rate(bad + step, k, n) <= p) break;
        bad += step;
        step *= 2;
    }
    uint64_t good = bad + step;
    while (good - bad > 1) {
        uint64_t mid = bad + (good - bad) / 2;
        if (bf_bloom_expected_rate(mid, k, n) <= p) good = mid;
        else bad = mid;
    }
    return good;
}

int bf_bloom_size(double n, double p, bf_sizing sizing, uint64_t *m_out, uint32_t *k_out)
{
    /* The optimum over real k is near k = -log2 p; the best whole k is one
     * of its neighbours (two either side when judged by the expected rate,
     * whose optimum sits lower for small m). For each, the formula's m in
     * closed form is where the search starts: the expected rate is never
     * below the formula's. */
    double ideal = -log2(p), reach = sizing == BF_SIZING_EXPECTED ? 2 : 1;
    uint64_t best = 0;
    uint32_t best_k = 0;
    double lo = fmax(1, floor(ideal) - reach), hi = fmin(BF_K_MAX, ceil(ideal) + reach);
    if (lo > hi) lo = hi;
    for (uint32_t k = (uint32_t)lo; k <= (uint32_t)hi; k++) {
        double fill = pow(p, 1.0 / k);
        double start = ceil(-1.0 / expm1(log1p(-fill) / ((double)k * n)));
        if (!(start >= 1)) start = 1;
        if (!(start <= (double)BF_BITS_MAX)) continue;
        uint64_t m = sizing == BF_SIZING_EXPECTED ? expected_bits((uint64_t)start, k, n, p) : formula_bits(start, k, n, p);
        if (m && (!best || m < best)) {
            best = m;
            best_k = k;
        }
    }
    if (!best_k) return 0;
    *m_out = best;
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
