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

/* The exact path's budget, throws x k: about a millisecond. Past it (n well
 * above k), the second-order term is at most 1% of the first for k up to
 * 64, and the expansion within 0.01%. */
#define EXACT_WORK (1 << 20)

/* E[(X/m)^k] exactly, for a whole number of throws: a lookup's k probes land
 * on D distinct cells and find them all set with chance Q_D, so the rate is
 * sum_j P(D = j) Q_j. P(D = j): k throws into m cells. Q_j, the chance that j
 * given cells are all set after the filter's throws: for c the number of K =
 * min(k, m) given cells that are set, E[C(c, j)] / C(K, j), by symmetry.
 * Every term is positive, so no digits cancel at any rate. */
static double exact_expected_rate(uint64_t m, uint32_t k, uint64_t throws)
{
    double md = (double)m;
    uint32_t K = (uint64_t)k < m ? k : (uint32_t)m;
    double distinct[BF_K_MAX + 1] = {1}, covered[BF_K_MAX + 1] = {1};
    for (uint32_t t = 0; t < k; t++) {
        uint32_t top = t + 1 < K ? t + 1 : K;
        for (uint32_t j = top; j > 0; j--) distinct[j] = distinct[j] * (j / md) + distinct[j - 1] * ((md - (j - 1)) / md);
        distinct[0] = 0;
    }
    for (uint64_t t = 0; t < throws; t++) {
        uint32_t top = t + 1 < K ? (uint32_t)t + 1 : K;
        for (uint32_t c = top; c > 0; c--)
            covered[c] = covered[c] * (1 - (K - c) / md) + covered[c - 1] * ((K - (c - 1)) / md);
        covered[0] *= 1 - K / md;
    }
    double all_set[BF_K_MAX + 1] = {0};
    for (uint32_t c = 1; c <= K; c++) {
        double w = covered[c];
        for (uint32_t j = 1; j <= c; j++) {
            w *= (double)(c - j + 1) / (K - j + 1); /* C(c, j) / C(K, j), built up */
            all_set[j] += w;
        }
    }
    double rate = 0;
    for (uint32_t j = 1; j <= K; j++) rate += distinct[j] * all_set[j];
    return rate;
}

double bf_bloom_expected_rate(uint64_t m, uint32_t k, double n)
{
    double throws = (double)k * n;
    if (!(throws > 0)) return 0;
    int exact = throws == floor(throws) && throws * k <= EXACT_WORK;
    /* E[f^k] ~ mu^k + C(k,2) mu^(k-2) Var[f], f = X/m. With a = (1-1/m)^N and
     * b = (1-2/m)^N: Var[X] = m^2 (b - a^2) + m (a - b), where
     * b - a^2 = a^2 expm1(N log1p(-1/(m-1)^2)) keeps its digits at any m.
     * Where the second term is at most 1% of the first, the terms after it
     * are about its square: within 0.01%, for a fraction of the exact
     * path's time (sizing 10,000 keys at 1% takes 5 microseconds, not 17
     * milliseconds). */
    double mu = bf_bloom_rate(m, 1, throws);
    if (m < 2 || k < 2) return exact ? exact_expected_rate(m, k, (uint64_t)throws) : pow(mu, k);
    double md = (double)m;
    double a = exp(throws * log1p(-1.0 / md)), b = exp(throws * log1p(-2.0 / md));
    double spread = a * a * expm1(throws * log1p(-1.0 / ((md - 1) * (md - 1))));
    double var = spread + (a - b) / md; /* Var[X] / m^2 */
    double first = pow(mu, k), second = (double)k * (k - 1) / 2 * pow(mu, k - 2.0) * fmax(var, 0);
    if (exact && second > 0.01 * first) return exact_expected_rate(m, k, (uint64_t)throws);
    return first + second;
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

/* The formula's m for k probes, n keys and rate p, in closed form (before
 * rounding checks): where the expected rate's search starts, as it is never
 * below the formula's. */
static double formula_start(uint32_t k, double n, double p)
{
    double fill = pow(p, 1.0 / k);
    double start = ceil(-1.0 / expm1(log1p(-fill) / ((double)k * n)));
    return start >= 1 ? start : 1;
}

uint64_t bf_bloom_bits_for(uint32_t k, double n, double p)
{
    double start = formula_start(k, n, p);
    return start <= (double)BF_BITS_MAX ? expected_bits((uint64_t)start, k, n, p) : 0;
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
        double start = formula_start(k, n, p);
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

/* Batches on large filters keep each key's positions from its prefetch to
 * its probe, in a ring of BF_BATCH_AHEAD keys of up to RING_K probes:
 * worked out twice, mixed probes (an fmix64 each) cost a 12 MB filter's
 * batches a third of their speed. */
#define RING_K 32

static void locate_and_prefetch(const bf_bloom *f, bf_key_hash h, uint64_t *pos)
{
    bf_probe p = bf_probe_start(h, f->hash, f->bits.nbits);
    for (uint32_t i = 0; i < f->k; i++) {
        pos[i] = bf_probe_next(&p);
        bf_prefetch(f->bits.data + (pos[i] >> 3));
    }
}

static int ring_fits(const bf_bloom *f, size_t n)
{
    return f->k <= RING_K && n > 0 && bf_batch_prefetches(bf_bits_nbytes(f->bits.nbits));
}

static void add_many_ring(bf_bloom *f, const bf_key_hash *h, size_t n, uint8_t *out)
{
    uint64_t ring[BF_BATCH_AHEAD][RING_K];
    for (size_t i = 0; i < n && i < BF_BATCH_AHEAD; i++) locate_and_prefetch(f, h[i], ring[i]);
    for (size_t i = 0; i < n; i++) {
        uint64_t *pos = ring[i % BF_BATCH_AHEAD];
        unsigned changed = 0;
        for (uint32_t j = 0; j < f->k; j++) changed |= bf_bits_test_and_set(&f->bits, pos[j]);
        f->count++;
        f->distinct += changed;
        if (out) out[i] = (uint8_t)changed;
        if (i + BF_BATCH_AHEAD < n) locate_and_prefetch(f, h[i + BF_BATCH_AHEAD], pos);
    }
}

static void contains_many_ring(const bf_bloom *f, const bf_key_hash *h, size_t n, uint8_t *out)
{
    uint64_t ring[BF_BATCH_AHEAD][RING_K];
    int sparse = (double)f->k * (double)f->count * 4 < (double)f->bits.nbits; /* as bf_bloom_contains */
    for (size_t i = 0; i < n && i < BF_BATCH_AHEAD; i++) locate_and_prefetch(f, h[i], ring[i]);
    for (size_t i = 0; i < n; i++) {
        uint64_t *pos = ring[i % BF_BATCH_AHEAD];
        int all = 1;
        for (uint32_t j = 0; j < f->k && (all || !sparse); j++) all &= bf_bits_get(&f->bits, pos[j]);
        out[i] = (uint8_t)all;
        if (i + BF_BATCH_AHEAD < n) locate_and_prefetch(f, h[i + BF_BATCH_AHEAD], pos);
    }
}

void bf_bloom_add_many(bf_bloom *f, const bf_key_hash *h, size_t n, uint8_t *out)
{
    if (ring_fits(f, n)) {
        add_many_ring(f, h, n, out);
        return;
    }
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
    if (ring_fits(f, n)) {
        contains_many_ring(f, h, n, out);
        return;
    }
    int ahead = bf_batch_prefetches(bf_bits_nbytes(f->bits.nbits));
    if (ahead)
        for (size_t i = 0; i < n && i < BF_BATCH_AHEAD; i++) prefetch_key(f, h[i]);
    for (size_t i = 0; i < n; i++) {
        if (ahead && i + BF_BATCH_AHEAD < n) prefetch_key(f, h[i + BF_BATCH_AHEAD]);
        out[i] = (uint8_t)bf_bloom_contains(f, h[i]);
    }
}
