#include <math.h>
#include "bf_stable.h"

uint64_t bf_splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

int bf_stable_add(bf_stable *f, bf_key_hash h, int tell)
{
    int fresh = tell && !bf_stable_contains(f, h); /* before the decrements below */
    /* d consecutive cells from a random start, wrapping at the end: Deng
     * and Rafiei's own shortcut (one random number per add, and a run of
     * cells in a cache line or two instead of d scattered misses). Every cell
     * is still decremented with probability d/m per add, which is what the
     * stable point depends on. */
    uint64_t m = f->cells.count;
    uint64_t c = bf_reduce(bf_splitmix64(&f->random), m);
    uint64_t to_end = m - c; /* d <= m: at most one wrap */
    if (f->d <= to_end) {
        bf_buckets_decrement_run(&f->cells, c, f->d);
    } else {
        bf_buckets_decrement_run(&f->cells, c, to_end);
        bf_buckets_decrement_run(&f->cells, 0, f->d - to_end);
    }
    bf_probe p = bf_probe_start(h, f->hash, m);
    for (uint32_t i = 0; i < f->k; i++) bf_buckets_set(&f->cells, bf_probe_next(&p), f->cells.max);
    f->count++;
    return fresh;
}

int bf_stable_contains(const bf_stable *f, bf_key_hash h)
{
    bf_probe p = bf_probe_start(h, f->hash, f->cells.count);
    for (uint32_t i = 0; i < f->k; i++)
        if (!bf_buckets_get(&f->cells, bf_probe_next(&p))) return 0;
    return 1;
}

double bf_stable_zero_fraction(uint64_t m, uint32_t k, uint64_t d, unsigned width)
{
    double max = ldexp(1.0, (int)width) - 1;
    double spread = (double)d * (1.0 / k - 1.0 / (double)m);
    if (spread <= 0) return 0; /* k >= m: every add sets every cell */
    return pow(1.0 / (1.0 + 1.0 / spread), max);
}

double bf_stable_fpr(uint64_t m, uint32_t k, uint64_t d, unsigned width)
{
    return pow(1.0 - bf_stable_zero_fraction(m, k, d, width), k);
}

uint64_t bf_stable_d_for(uint64_t m, uint32_t k, unsigned width, double fpr)
{
    if (!(fpr > 0 && fpr < 1) || k >= m) return 0;
    /* Solve the formula for d: zero fraction z = 1 - fpr^(1/k),
     * d = 1 / ((z^(-1/max) - 1) (1/k - 1/m)), rounded up (more decrements, a
     * lower rate). */
    double max = ldexp(1.0, (int)width) - 1;
    /* expm1 keeps the small differences exact (1 - fpr^(1/k) near 0 for a
     * rate near 1, z^(-1/max) - 1 near 0 for wide cells). */
    double z = -expm1(log(fpr) / k);
    double denom = expm1(-log(z) / max) * (1.0 / k - 1.0 / (double)m);
    if (!(denom > 0)) return 0;
    double d = ceil(1.0 / denom);
    if (!(d >= 1)) d = 1;
    if (d > (double)m) return 0; /* more decrements than cells: no such filter */
    return (uint64_t)d;
}

void bf_stable_combine(bf_stable *dst, const bf_stable *src, bf_combine_op op)
{
    bf_buckets_combine(&dst->cells, &src->cells, op);
    if (op == BF_COMBINE_MAX) dst->count = src->count > UINT64_MAX - dst->count ? UINT64_MAX : dst->count + src->count;
    else if (src->count < dst->count) dst->count = src->count;
}
