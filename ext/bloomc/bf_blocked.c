#include "bf_blocked.h"
#include <math.h>
#ifndef M_LN2
#define M_LN2 0.69314718055994530942
#endif
#include "bf_batch.h"
#include "bf_endian.h"

#define LANES 8            /* 64-bit words per block */
#define PROBES_PER_WORD 10 /* 6-bit positions in a 64-bit hash word */

/* A new 64-bit word from a spent one: multiply by an odd constant (the
 * 64-bit golden ratio, 2^64 / phi) after folding the high half down, so every
 * output bit depends on every input bit. */
static inline uint64_t remix(uint64_t w)
{
    w ^= w >> 32;
    w *= 0x9e3779b97f4a7c15ULL;
    return w ^ (w >> 29);
}

static inline uint8_t *block_of(const bf_blocked *f, bf_key_hash h)
{
    return f->bits.data + bf_reduce(h.h1, f->nblocks) * BF_BLOCK_BYTES;
}

/* Probe i sets one bit of lane (i + first) % 8: the bit is six bits of a hash
 * word, bits 6i .. 6i + 5 of h2 for the first ten probes, then of h2 remixed
 * once for the next ten, and so on. first, the top three bits of h2, spreads
 * the keys of a k that is not a multiple of 8 over all the lanes. The first
 * eight probes (the usual k) are unrolled; later ones take the loop. */
#define LANE(block, i) ((block) + 8 * (((i) + first) % LANES))
#define BIT(w, i) (((w) >> (6 * ((i) % PROBES_PER_WORD))) & 63)

/* Sets one bit of a lane; returns it when it was clear (0 otherwise). */
static inline uint64_t set_lane_bit(uint8_t *lane, unsigned bit)
{
    uint64_t old = bf_load_le64(lane), mask = (uint64_t)1 << bit;
    bf_store_le64(lane, old | mask);
    return ~old & mask;
}

static uint64_t add_after_eight(uint8_t *block, uint64_t w, unsigned first, uint32_t k)
{
    uint64_t changed = 0;
    for (uint32_t i = 8; i < k; i++) {
        if (i % PROBES_PER_WORD == 0) w = remix(w);
        changed |= set_lane_bit(LANE(block, i), (unsigned)BIT(w, i));
    }
    return changed;
}

static uint64_t test_after_eight(const uint8_t *block, uint64_t w, unsigned first, uint32_t k)
{
    uint64_t all = 1;
    for (uint32_t i = 8; i < k; i++) {
        if (i % PROBES_PER_WORD == 0) w = remix(w);
        all &= bf_load_le64(LANE(block, i)) >> BIT(w, i);
    }
    return all;
}

#define SET(i) changed |= set_lane_bit(LANE(block, i), (unsigned)BIT(w, i))

/* Sets key h's bits in its block; nonzero when one was clear. */
static inline uint64_t set_block(uint8_t *block, uint32_t k, bf_key_hash h)
{
    uint64_t w = h.h2, changed = 0;
    unsigned first = (unsigned)(w >> 61);
    switch (k < 8 ? k : 8) {
    case 8: SET(7); /* fall through */
    case 7: SET(6); /* fall through */
    case 6: SET(5); /* fall through */
    case 5: SET(4); /* fall through */
    case 4: SET(3); /* fall through */
    case 3: SET(2); /* fall through */
    case 2: SET(1); /* fall through */
    default: SET(0);
    }
    if (k > 8) changed |= add_after_eight(block, w, first, k);
    return changed;
}

int bf_blocked_add(bf_blocked *f, bf_key_hash h)
{
    uint64_t changed = set_block(block_of(f, h), f->k, h);
    f->count++;
    f->distinct += changed != 0;
    return changed != 0;
}

#define TEST(i) (bf_load_le64(LANE(block, i)) >> BIT(w, i))

int bf_blocked_contains(const bf_blocked *f, bf_key_hash h)
{
    const uint8_t *block = block_of(f, h);
    uint64_t w = h.h2, all = 1;
    unsigned first = (unsigned)(w >> 61);
    switch (f->k < 8 ? f->k : 8) {
    case 8: all &= TEST(7); /* fall through */
    case 7: all &= TEST(6); /* fall through */
    case 6: all &= TEST(5); /* fall through */
    case 5: all &= TEST(4); /* fall through */
    case 4: all &= TEST(3); /* fall through */
    case 3: all &= TEST(2); /* fall through */
    case 2: all &= TEST(1); /* fall through */
    default: all &= TEST(0);
    }
    if (f->k > 8) all &= test_after_eight(block, w, first, f->k);
    return (int)(all & 1);
}

void bf_blocked_add_many(bf_blocked *f, const bf_key_hash *h, size_t n, uint8_t *out)
{
    int ahead = bf_batch_prefetches(bf_bits_nbytes(f->bits.nbits));
    if (ahead)
        for (size_t i = 0; i < n && i < BF_BATCH_AHEAD; i++) bf_prefetch(block_of(f, h[i]));
    for (size_t i = 0; i < n; i++) {
        if (ahead && i + BF_BATCH_AHEAD < n) bf_prefetch(block_of(f, h[i + BF_BATCH_AHEAD]));
        int changed = bf_blocked_add(f, h[i]);
        if (out) out[i] = (uint8_t)changed;
    }
}

void bf_blocked_contains_many(const bf_blocked *f, const bf_key_hash *h, size_t n, uint8_t *out)
{
    int ahead = bf_batch_prefetches(bf_bits_nbytes(f->bits.nbits));
    if (ahead)
        for (size_t i = 0; i < n && i < BF_BATCH_AHEAD; i++) bf_prefetch(block_of(f, h[i]));
    for (size_t i = 0; i < n; i++) {
        if (ahead && i + BF_BATCH_AHEAD < n) bf_prefetch(block_of(f, h[i + BF_BATCH_AHEAD]));
        out[i] = (uint8_t)bf_blocked_contains(f, h[i]);
    }
}

/* Blocks lie whole in a range of bytes whose ends are multiples of
 * BF_BLOCK_BYTES (the caller's), so a key's bits land in one thread's part. */
void bf_blocked_add_part(bf_blocked *f, const bf_key_hash *h, size_t n, uint8_t *out, size_t lo, size_t hi)
{
    const size_t span = hi - lo;
    /* The prefetches run BF_BATCH_AHEAD keys of this range ahead, not of
     * the batch: every thread keeps as many fetches in flight as the serial
     * walk does. in_flight: the keys of this range in [i, next). */
    size_t next = 0, in_flight = 0;
    for (size_t i = 0; i < n; i++) {
        for (; in_flight <= BF_BATCH_AHEAD && next < n; next++) {
            uint8_t *later = block_of(f, h[next]);
            if ((size_t)(later - f->bits.data) - lo < span) {
                bf_prefetch(later);
                in_flight++;
            }
        }
        uint8_t *block = block_of(f, h[i]);
        if ((size_t)(block - f->bits.data) - lo >= span) continue;
        in_flight--;
        if (set_block(block, f->k, h[i])) __atomic_store_n(&out[i], 1, __ATOMIC_RELAXED);
    }
}

#define LANE_BITS 64
#define MAX_PER_LANE (BF_K_MAX / LANES + 1)

/* A key puts q = k / 8 probes in every lane and one more in r = k % 8 of
 * them (consecutive from a random lane), each uniform over the lane's 64 bits,
 * with repeats. dist[d] is the chance that c such probes hit d distinct bits
 * (built one probe at a time: a new probe lands on one of the d bits already
 * hit, or on one of the 64 - d others). */
static void distinct_bits(uint32_t c, double dist[MAX_PER_LANE + 1])
{
    for (uint32_t d = 0; d <= MAX_PER_LANE; d++) dist[d] = d == 0;
    for (uint32_t t = 0; t < c; t++) {
        for (uint32_t d = t + 1; d > 0; d--)
            dist[d] = dist[d] * d / LANE_BITS + dist[d - 1] * (LANE_BITS - (d - 1)) / LANE_BITS;
        dist[0] = 0;
    }
}

/* The chance that c probes of a lane all find set bits, when each bit is set
 * with probability set (independently, the usual approximation): the probes
 * need only their distinct bits set. */
static double lane_hit(const double dist[MAX_PER_LANE + 1], uint32_t c, double set)
{
    double p = 0, power = 1;
    for (uint32_t d = 0; d <= c; d++, power *= set) p += dist[d] * power;
    return p;
}

double bf_blocked_current_fpr(const bf_blocked *f)
{
    double total = 0;
    for (uint64_t b = 0; b < f->nblocks; b++) {
        const uint8_t *block = f->bits.data + b * BF_BLOCK_BYTES;
        double fill[LANES], block_rate = 0;
        for (unsigned l = 0; l < LANES; l++) fill[l] = bf_popcount64(bf_load_le64(block + 8 * l)) / 64.0;
        for (unsigned first = 0; first < LANES; first++) {
            double p = 1;
            for (uint32_t i = 0; i < f->k && p > 0; i++) p *= fill[(i + first) % LANES];
            block_rate += p;
        }
        total += block_rate / LANES;
    }
    return total / (double)f->nblocks;
}

double bf_blocked_fpr(double n, uint64_t nblocks, uint32_t k)
{
    double load = n / (double)nblocks; /* mean keys per block */
    if (!(load >= 0)) return NAN;
    if (load == 0 || k == 0) return 0.0;
    /* Past this the blocks are full to any precision a double has (and the
     * sum below would take as many terms as the load's square root). */
    if (load > 1e6) return 1.0;

    uint32_t q = k / LANES, r = k % LANES;
    double dist_q[MAX_PER_LANE + 1], dist_q1[MAX_PER_LANE + 1];
    distinct_bits(q, dist_q);
    distinct_bits(q + 1, dist_q1);
    /* A lane's bit stays unset through one key with this probability. */
    double unset_per_key = pow(1.0 - 1.0 / LANE_BITS, q) * (1.0 - (double)r / (LANES * LANE_BITS));

    /* Sum over j, the keys in the probed block (Poisson with mean load), of
     * the chance that a key never added finds all its bits set there. The
     * weights run by recurrence from the mode out to 12 standard deviations
     * each way (w(j+1) = w(j) load / (j+1)) and are normalized by their sum:
     * no factorials, no overflow, and the mass left out is below 1e-30. */
    double mode = floor(load), spread = 12.0 * sqrt(load) + 30.0;
    double weight_sum = 0, sum = 0;
    for (int down = 0; down < 2; down++) {
        double j = down ? mode - 1 : mode, w = down ? mode / load : 1.0;
        for (; j >= 0 && fabs(j - load) <= spread; j += down ? -1 : 1) {
            double set = 1.0 - pow(unset_per_key, j);
            sum += w * pow(lane_hit(dist_q1, q + 1, set), r) * pow(lane_hit(dist_q, q, set), LANES - r);
            weight_sum += w;
            w *= down ? j / load : load / (j + 1);
        }
    }
    return sum / weight_sum;
}

/* The fewest blocks that reach error with k bits per key (0 if none do).
 * The search starts from the plain filter's optimal size, which a blocked
 * filter never beats, so the Poisson sums stay short (a few hundred terms). */
static uint64_t blocks_for(double n, double error, uint32_t k)
{
    double plain_bits = ceil(-n * log(error) / (M_LN2 * M_LN2));
    if (!(plain_bits / BF_BLOCK_BITS < (double)BF_BLOCKS_MAX)) return 0;
    uint64_t hi = (uint64_t)(plain_bits / BF_BLOCK_BITS) + 1, lo = hi / 2;
    while (bf_blocked_fpr(n, hi, k) > error) {
        if (hi >= BF_BLOCKS_MAX) return 0;
        lo = hi;
        hi = hi > BF_BLOCKS_MAX / 2 ? BF_BLOCKS_MAX : hi * 2;
    }
    while (lo > 0 && bf_blocked_fpr(n, lo, k) <= error) {
        hi = lo;
        lo /= 2;
    }
    while (hi - lo > 1) {
        uint64_t mid = lo + (hi - lo) / 2;
        if (bf_blocked_fpr(n, mid, k) <= error) hi = mid;
        else lo = mid;
    }
    return hi;
}

uint64_t bf_blocked_size(double n, double error, uint32_t *k)
{
    *k = 1;
    if (!(n > 0) || !(error > 0 && error < 1)) return 0;
    uint64_t best = 0;
    uint32_t best_k = 1;
    /* The rate falls and then rises again in k; past the best k, a few more
     * values are tried in case the curve is flat there. */
    for (uint32_t kk = 1, worse = 0; kk <= BF_K_MAX && worse < 4; kk++) {
        uint64_t blocks = blocks_for(n, error, kk);
        if (blocks && (!best || blocks < best)) {
            best = blocks;
            best_k = kk;
            worse = 0;
        } else if (best) {
            worse++;
        }
    }
    *k = best_k;
    return best;
}
