#include <math.h>
#include <string.h>
#include "bf_a2.h"
#include "bf_bloom.h"

static int half_contains(const bf_bits *b, bf_key_hash h, uint32_t k, bf_hash_kind hash)
{
    bf_probe p = bf_probe_start(h, hash, b->nbits);
    for (uint32_t i = 0; i < k; i++)
        if (!bf_bits_get(b, bf_probe_next(&p))) return 0;
    return 1;
}

static void half_add(bf_bits *b, bf_key_hash h, uint32_t k, bf_hash_kind hash)
{
    bf_probe p = bf_probe_start(h, hash, b->nbits);
    for (uint32_t i = 0; i < k; i++) bf_bits_set(b, bf_probe_next(&p));
}

int bf_a2_add(bf_a2 *f, bf_key_hash h, int tell)
{
    f->count++;
    bf_bits *active = &f->halves[f->active];
    if (half_contains(active, h, f->k, f->hash)) return 0;
    /* Found only in the older half: copied into the active one (so that it
     * outlives the next swap), and not new. */
    int fresh = tell && !half_contains(&f->halves[f->active ^ 1], h, f->k, f->hash);
    if (f->in_active >= f->capacity) {
        /* The active half is full: the other one (the older keys) is
         * dropped and takes the new keys from now on. */
        f->active ^= 1;
        active = &f->halves[f->active];
        memset(active->data, 0, bf_bits_nbytes(active->nbits));
        f->in_active = 0;
        f->swaps++;
    }
    half_add(active, h, f->k, f->hash);
    f->in_active++;
    return fresh;
}

int bf_a2_contains(const bf_a2 *f, bf_key_hash h)
{
    return half_contains(&f->halves[f->active], h, f->k, f->hash) || half_contains(&f->halves[f->active ^ 1], h, f->k, f->hash);
}

uint32_t bf_a2_optimal_k(double p)
{
    double p1 = p / (1.0 + sqrt(1.0 - p)); /* 1 - sqrt(1 - p), without its cancellation for tiny p */
    double k = ceil(-log2(p1) - 1e-9);     /* the manual floors; see bf_a2.h */
    if (!(k >= 1)) return 1;
    return k > BF_K_MAX ? BF_K_MAX : (uint32_t)k;
}

uint64_t bf_a2_optimal_capacity(uint64_t m, uint32_t k)
{
    double c = floor((double)m / (2.0 * k) * log(2.0));
    return c < 1 ? 1 : (uint64_t)c;
}

double bf_a2_fpr(uint64_t m, uint32_t k, double n)
{
    double p1 = m < 2 ? 1 : bf_bloom_expected_rate(m / 2, k, n);
    return 1.0 - (1.0 - p1) * (1.0 - p1);
}

uint64_t bf_a2_sized_bits(double capacity, uint32_t k, double p)
{
    double manual = ceil(capacity * k / log(2.0));
    if (!(manual <= (double)(BF_BITS_MAX / 2))) return 0;
    uint64_t half = bf_bloom_bits_for(k, capacity, p / (1.0 + sqrt(1.0 - p)));
    if (!half || half > BF_BITS_MAX / 2) return 0;
    return 2 * (half > (uint64_t)manual ? half : (uint64_t)manual);
}

void bf_a2_union(bf_a2 *dst, const bf_a2 *src)
{
    bf_bits_or(&dst->halves[dst->active], &src->halves[src->active]);
    bf_bits_or(&dst->halves[dst->active ^ 1], &src->halves[src->active ^ 1]);
    if (src->in_active < dst->in_active) dst->in_active = src->in_active;
    dst->count = src->count > UINT64_MAX - dst->count ? UINT64_MAX : dst->count + src->count;
}

void bf_a2_intersect(bf_a2 *dst, const bf_a2 *src)
{
    bf_bits_and(&dst->halves[dst->active], &src->halves[src->active]);
    bf_bits_and(&dst->halves[dst->active ^ 1], &src->halves[src->active ^ 1]);
    if (src->in_active < dst->in_active) dst->in_active = src->in_active;
    if (src->count < dst->count) dst->count = src->count;
}
