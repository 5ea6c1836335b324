#include "bf_continuous.h"
#include <string.h>

void bf_continuous_add(bf_continuous *f, bf_key_hash h)
{
    bf_probe p = bf_probe_start(h, f->hash, f->buckets.count);
    for (uint32_t i = 0; i < f->k; i++) bf_buckets_set(&f->buckets, bf_probe_next(&p), f->slot);
}

int bf_continuous_lookup(bf_continuous *f, bf_key_hash h, int clear_expired)
{
    /* Branch-free over the k buckets, as the plain filter's lookup: whether a
     * bucket is empty or live is a coin toss on a miss. Ticks clear expired
     * buckets, so the reset pass below runs only if one was somehow left. */
    bf_probe p = bf_probe_start(h, f->hash, f->buckets.count);
    unsigned live = 1, expired = 0;
    for (uint32_t i = 0; i < f->k; i++) {
        uint32_t start = bf_buckets_get(&f->buckets, bf_probe_next(&p));
        unsigned fresh = bf_ring_elapsed(start, f->slot) <= BF_CONT_DIVISOR;
        live &= (start != 0) & fresh;
        expired |= (start != 0) & !fresh;
    }
    if (expired && clear_expired) {
        p = bf_probe_start(h, f->hash, f->buckets.count);
        for (uint32_t i = 0; i < f->k; i++) {
            uint64_t pos = bf_probe_next(&p);
            uint32_t start = bf_buckets_get(&f->buckets, pos);
            if (start && bf_ring_elapsed(start, f->slot) > BF_CONT_DIVISOR) bf_buckets_set(&f->buckets, pos, 0);
        }
    }
    return (int)live;
}

#define NIBBLES(v) ((uint64_t)(v) * 0x1111111111111111ULL)
#define LOW3 NIBBLES(0x7)
#define HIGH1 NIBBLES(0x8)

/* The top bit of each nibble of x that is non-zero: adding 7 to a nibble's
 * low three bits carries into its top bit exactly when they are non-zero. */
static inline uint64_t nonzero_nibbles(uint64_t x)
{
    return (((x & LOW3) + LOW3) | x) & HIGH1;
}

/* Keep the nibbles holding one of the live slots, zero the rest: 16 buckets
 * per step, no branch. Buckets are whole nibbles of each 8-byte word because
 * 4 divides 64 and the field starts at bit 0. */
static void sweep(bf_continuous *f)
{
    uint64_t live[BF_CONT_DIVISOR + 1];
    for (uint32_t d = 0; d <= BF_CONT_DIVISOR; d++) {
        uint32_t slot = (f->slot + BF_CONT_SLOTS - 1 - d) % BF_CONT_SLOTS + 1;
        live[d] = NIBBLES(slot);
    }
    size_t nbytes = bf_buckets_nbytes(f->buckets.count, BF_CONT_BITS);
    for (size_t off = 0; off + 8 <= nbytes; off += 8) {
        uint64_t x = bf_load_le64(f->buckets.data + off);
        if (!x) continue;
        uint64_t keep = 0;
        for (uint32_t d = 0; d <= BF_CONT_DIVISOR; d++) keep |= ~nonzero_nibbles(x ^ live[d]) & HIGH1;
        uint64_t kept = x & ((keep >> 3) * 0xF);
        if (kept != x) bf_store_le64(f->buckets.data + off, kept);
    }
}

void bf_continuous_tick(bf_continuous *f, uint64_t n)
{
    if (n == 0) return;
    f->ticks += n;
    f->slot = (uint32_t)((f->slot - 1 + n % BF_CONT_SLOTS) % BF_CONT_SLOTS) + 1;
    if (n > BF_CONT_DIVISOR) {
        /* Everything written before these ticks is now more than 2 ticks old. */
        memset(f->buckets.data, 0, bf_buckets_nbytes(f->buckets.count, BF_CONT_BITS));
    } else {
        sweep(f);
    }
}
