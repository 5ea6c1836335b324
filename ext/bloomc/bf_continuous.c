#include "bf_continuous.h"
#include <string.h>
#include "bf_batch.h"
#include "bf_crc32c.h"
#include "bf_endian.h"
#include "bf_format.h"

/* Bucket i is the low nibble of byte i / 2 when i is even, the high one when
 * odd (bf_buckets' layout at width 4): one byte load, no multiply. */
static inline unsigned nibble_get(const uint8_t *data, uint64_t i)
{
    return (data[i >> 1] >> ((i & 1) << 2)) & 0xF;
}

static inline void nibble_set(uint8_t *data, uint64_t i, unsigned value)
{
    unsigned shift = (unsigned)(i & 1) << 2;
    uint8_t *byte = data + (i >> 1);
    *byte = (uint8_t)((*byte & ~(0xFu << shift)) | (value << shift));
}

/* Bit s set for each live slot s: the current one and the BF_CONT_DIVISOR
 * before it. Slot 0 (empty) is never live. */
static inline unsigned live_slots(const bf_continuous *f)
{
    unsigned mask = 0;
    for (uint32_t d = 0; d <= BF_CONT_DIVISOR; d++) mask |= 1u << ((f->slot + BF_CONT_SLOTS - 1 - d) % BF_CONT_SLOTS + 1);
    return mask;
}

int bf_continuous_add(bf_continuous *f, bf_key_hash h)
{
    unsigned live_mask = live_slots(f), live = 1;
    bf_probe p = bf_probe_start(h, f->hash, f->buckets.count);
    for (uint32_t i = 0; i < f->k; i++) {
        uint64_t at = bf_probe_next(&p);
        live &= live_mask >> nibble_get(f->buckets.data, at);
        nibble_set(f->buckets.data, at, f->slot);
    }
    f->recent_adds[0]++;
    return !(live & 1);
}

/* Whether at most a fifth or so of the buckets can be live: k buckets per
 * recent add, fewer than one per 4 buckets. */
static inline int mostly_empty(const bf_continuous *f)
{
    double adds = 0;
    for (uint32_t d = 0; d <= BF_CONT_DIVISOR; d++) adds += (double)f->recent_adds[d];
    return (double)f->k * adds * 4 < (double)f->buckets.count;
}

int bf_continuous_lookup(bf_continuous *f, bf_key_hash h, int clear_expired)
{
    /* Branch-free over the k buckets, as the plain filter's lookup: whether a
     * bucket is empty or live is a coin toss on a miss. A bucket is live when
     * its slot is one of the live ones, stale when it is any other non-zero
     * slot. Ticks clear stale buckets, so the reset pass below runs only if
     * one was somehow left. */
    unsigned live_mask = live_slots(f), stale_mask = 0xFFFEu & ~live_mask;
    bf_probe p = bf_probe_start(h, f->hash, f->buckets.count);
    if (mostly_empty(f)) {
        /* As the plain filter: a miss's first bucket is empty nearly always,
         * so stop there. A stale bucket (which ticks leave none of) sends a
         * filter that resets them through the full pass below. */
        unsigned start = 1;
        uint32_t i = 0;
        for (; i < f->k; i++) {
            start = nibble_get(f->buckets.data, bf_probe_next(&p));
            if (!((live_mask >> start) & 1)) break;
        }
        if (i == f->k) return 1;
        if (start == 0 || !clear_expired) return 0;
        p = bf_probe_start(h, f->hash, f->buckets.count);
    }
    unsigned live = 1, stale = 0;
    for (uint32_t i = 0; i < f->k; i++) {
        unsigned start = nibble_get(f->buckets.data, bf_probe_next(&p));
        live &= live_mask >> start;
        stale |= stale_mask >> start;
    }
    if ((stale & 1) && clear_expired) {
        p = bf_probe_start(h, f->hash, f->buckets.count);
        for (uint32_t i = 0; i < f->k; i++) {
            uint64_t pos = bf_probe_next(&p);
            if ((stale_mask >> nibble_get(f->buckets.data, pos)) & 1) nibble_set(f->buckets.data, pos, 0);
        }
    }
    return (int)(live & 1);
}

static void prefetch_key(const bf_continuous *f, bf_key_hash h)
{
    bf_probe p = bf_probe_start(h, f->hash, f->buckets.count);
    for (uint32_t i = 0; i < f->k; i++) bf_prefetch(f->buckets.data + (bf_probe_next(&p) * BF_CONT_BITS >> 3));
}

void bf_continuous_add_many(bf_continuous *f, const bf_key_hash *h, size_t n, uint8_t *out)
{
    int ahead = bf_batch_prefetches(bf_buckets_nbytes(f->buckets.count, BF_CONT_BITS));
    if (ahead)
        for (size_t i = 0; i < n && i < BF_BATCH_AHEAD; i++) prefetch_key(f, h[i]);
    for (size_t i = 0; i < n; i++) {
        if (ahead && i + BF_BATCH_AHEAD < n) prefetch_key(f, h[i + BF_BATCH_AHEAD]);
        int fresh = bf_continuous_add(f, h[i]);
        if (out) out[i] = (uint8_t)fresh;
    }
}

void bf_continuous_lookup_many(bf_continuous *f, const bf_key_hash *h, size_t n, int clear_expired, uint8_t *out)
{
    int ahead = bf_batch_prefetches(bf_buckets_nbytes(f->buckets.count, BF_CONT_BITS));
    if (ahead)
        for (size_t i = 0; i < n && i < BF_BATCH_AHEAD; i++) prefetch_key(f, h[i]);
    for (size_t i = 0; i < n; i++) {
        if (ahead && i + BF_BATCH_AHEAD < n) prefetch_key(f, h[i + BF_BATCH_AHEAD]);
        out[i] = (uint8_t)bf_continuous_lookup(f, h[i], clear_expired);
    }
}

/* Buckets are nibbles: 128 to a cache line. */
#define LINE_BUCKETS (512 / BF_CONT_BITS)

void bf_continuous_scatter(const bf_continuous *f, const bf_key_hash *h, size_t n, size_t first, unsigned parts,
                           uint64_t **next)
{
    uint64_t multiplier = bf_scatter_multiplier((f->buckets.count + LINE_BUCKETS - 1) / LINE_BUCKETS, parts);
    for (size_t i = 0; i < n; i++) {
        bf_probe p = bf_probe_start(h[i], f->hash, f->buckets.count);
        for (uint32_t j = 0; j < f->k; j++) {
            uint64_t at = bf_probe_next(&p);
            *next[bf_reduce(at / LINE_BUCKETS, multiplier)]++ = bf_scatter_entry(at, first + i);
        }
    }
}

void bf_continuous_apply(bf_continuous *f, const uint64_t *entries, size_t n, uint8_t *out)
{
    unsigned live_mask = live_slots(f);
    for (size_t i = 0; i < n; i++) {
        if (i + BF_SCATTER_AHEAD < n)
            bf_prefetch(f->buckets.data + (bf_scatter_position(entries[i + BF_SCATTER_AHEAD]) * BF_CONT_BITS >> 3));
        uint64_t at = bf_scatter_position(entries[i]);
        unsigned live = live_mask >> nibble_get(f->buckets.data, at);
        nibble_set(f->buckets.data, at, f->slot);
        if (!(live & 1)) __atomic_store_n(&out[bf_scatter_index(entries[i])], 1, __ATOMIC_RELAXED);
    }
}

#define NIBBLES(v) (0x1111111111111111ULL * (uint64_t)(v))
#define LOW3 NIBBLES(0x7)
#define HIGH1 NIBBLES(0x8)

/* The top bit of each nibble of x that is non-zero: adding 7 to a nibble's
 * low three bits carries into its top bit exactly when they are non-zero. */
static inline uint64_t nonzero_nibbles(uint64_t x)
{
    return (((x & LOW3) + LOW3) | x) & HIGH1;
}

/* Keep the nibbles holding one of the live slots, zero the rest: 16 buckets
 * per 8-byte word, no branch, so compilers vectorize the loop; on x86-64 it
 * is built for AVX2 as well and the CPU's best version is picked at load time
 * (a 100M-bucket sweep: about 16 ms scalar, 7 with SSE2, 3 with AVX2).
 * Buckets are whole nibbles of each word because 4 divides 64 and the field
 * starts at bit 0. Words are loaded in host order: every step works on each
 * nibble alone, and a byte swap keeps nibbles whole, so the result is the
 * same on any endianness. */
#ifdef BLOOMC_TARGET_CLONES
#define SWEEP_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define SWEEP_CLONES
#endif
SWEEP_CLONES static void sweep_words(uint8_t *data, size_t nwords, uint64_t live0, uint64_t live1, uint64_t live2)
{
    for (size_t i = 0; i < nwords; i++) {
        uint64_t x;
        memcpy(&x, data + 8 * i, 8);
        uint64_t keep = (~nonzero_nibbles(x ^ live0) | ~nonzero_nibbles(x ^ live1) | ~nonzero_nibbles(x ^ live2)) & HIGH1;
        /* Each kept nibble's top bit h becomes 0xF there: 16h - h, with no
         * borrow between nibbles. */
        x &= (keep << 1) - (keep >> 3);
        memcpy(data + 8 * i, &x, 8);
    }
}

#if BF_CONT_DIVISOR != 2
#error "sweep keeps exactly three live slots"
#endif

static void sweep(bf_continuous *f)
{
    uint64_t live[BF_CONT_DIVISOR + 1];
    for (uint32_t d = 0; d <= BF_CONT_DIVISOR; d++) {
        uint32_t slot = (f->slot + BF_CONT_SLOTS - 1 - d) % BF_CONT_SLOTS + 1;
        live[d] = NIBBLES(slot);
    }
    sweep_words(f->buckets.data, bf_buckets_nbytes(f->buckets.count, BF_CONT_BITS) / 8, live[0], live[1], live[2]);
}

static void advance(bf_continuous *f, uint64_t n)
{
    f->ticks += n;
    for (uint32_t d = BF_CONT_DIVISOR + 1; d-- > 0;)
        f->recent_adds[d] = d >= n ? f->recent_adds[d - n] : 0;
    f->slot = (uint32_t)((f->slot - 1 + n % BF_CONT_SLOTS) % BF_CONT_SLOTS) + 1;
}

static void expire(bf_continuous *f, uint64_t n)
{
    if (n > BF_CONT_DIVISOR) {
        /* Everything written before these ticks is now more than 2 ticks old. */
        memset(f->buckets.data, 0, bf_buckets_nbytes(f->buckets.count, BF_CONT_BITS));
    } else {
        sweep(f);
    }
}

void bf_continuous_tick(bf_continuous *f, uint64_t n, void (*between)(void *ctx, const bf_continuous *f), void *ctx)
{
    if (n == 0) return;
    advance(f, n);
    if (between) between(ctx, f);
    expire(f, n);
}

void bf_continuous_store_clock(const bf_continuous *f, uint8_t *header)
{
    uint64_t clock[BF_CONT_CLOCK_FIELDS] = {f->slot, f->ticks};
    for (uint32_t d = 0; d <= BF_CONT_DIVISOR; d++) clock[2 + d] = f->recent_adds[d];
    for (size_t i = 0; i < BF_CONT_CLOCK_FIELDS; i++) bf_store_le64(header + bf_format_field_at(BF_CONT_CLOCK_FIELD + i), clock[i]);
    /* a version 2 header has parameters after the clock's: the checksum's
     * place comes from the header's own count */
    size_t nfields = (size_t)header[BF_FORMAT_NFIELDS_AT] | (size_t)header[BF_FORMAT_NFIELDS_AT + 1] << 8;
    size_t crc_at = bf_format_header_crc_at(nfields);
    uint32_t crc = bf_crc32c(0, header, crc_at);
    for (int i = 0; i < 4; i++) header[crc_at + i] = (uint8_t)(crc >> (8 * i));
}


#define NOT_LIVE 0xFF

/* age[v]: ticks since slot v was current, for the live slots of f; NOT_LIVE
 * for empty and expired ones. */
static void slot_ages(const bf_continuous *f, uint8_t age[BF_CONT_SLOTS + 1])
{
    memset(age, NOT_LIVE, BF_CONT_SLOTS + 1);
    for (uint32_t d = 0; d <= BF_CONT_DIVISOR; d++) age[(f->slot + BF_CONT_SLOTS - 1 - d) % BF_CONT_SLOTS + 1] = (uint8_t)d;
}

static void combine(bf_continuous *dst, const bf_continuous *src, int keep_younger)
{
    uint8_t age_dst[BF_CONT_SLOTS + 1], age_src[BF_CONT_SLOTS + 1], slot_of_age[BF_CONT_DIVISOR + 1];
    slot_ages(dst, age_dst);
    slot_ages(src, age_src);
    for (uint32_t d = 0; d <= BF_CONT_DIVISOR; d++) slot_of_age[d] = (uint8_t)((dst->slot + BF_CONT_SLOTS - 1 - d) % BF_CONT_SLOTS + 1);
    for (uint64_t i = 0; i < dst->buckets.count; i++) {
        unsigned a = age_dst[nibble_get(dst->buckets.data, i)], b = age_src[nibble_get(src->buckets.data, i)], age;
        if (keep_younger) age = a < b ? a : b; /* NOT_LIVE loses */
        else age = a == NOT_LIVE || b == NOT_LIVE ? NOT_LIVE : (a > b ? a : b);
        nibble_set(dst->buckets.data, i, age == NOT_LIVE ? 0 : slot_of_age[age]);
    }
}

void bf_continuous_union(bf_continuous *dst, const bf_continuous *src)
{
    combine(dst, src, 1);
    for (uint32_t d = 0; d <= BF_CONT_DIVISOR; d++) dst->recent_adds[d] += src->recent_adds[d];
}

void bf_continuous_intersect(bf_continuous *dst, const bf_continuous *src)
{
    combine(dst, src, 0);
    for (uint32_t d = 0; d <= BF_CONT_DIVISOR; d++)
        if (src->recent_adds[d] < dst->recent_adds[d]) dst->recent_adds[d] = src->recent_adds[d];
}

int bf_continuous_valid(const bf_continuous *f)
{
    unsigned ok = live_slots(f) | 1u; /* live slots, and 0 */
    for (uint64_t i = 0; i < f->buckets.count; i++)
        if (!(ok >> nibble_get(f->buckets.data, i) & 1)) return 0;
    return bf_buckets_tail_clear(&f->buckets);
}

void bf_continuous_clear_stale(bf_continuous *f)
{
    unsigned ok = live_slots(f) | 1u;
    for (uint64_t i = 0; i < f->buckets.count; i++)
        if (!(ok >> nibble_get(f->buckets.data, i) & 1)) nibble_set(f->buckets.data, i, 0);
}
