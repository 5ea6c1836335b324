#include <math.h>
#include <string.h>
#include "bf_endian.h"
#include "bf_fuse.h"

/* Segment length 2^k for n keys: the paper's 2^floor(log_3.33(n) + 2.25)
 * (section 4, 3-wise), as the smallest n of each k, so that the shape does
 * not depend on how a host's log() rounds. segment_length_thresholds[i] is the
 * first n of k = i + 3: ceil(3.33^(k - 2.25)), computed to 50 digits. Below 3 keys, k
 * is 2. */
static const uint64_t segment_length_thresholds[] = {
    3, 9, 28, 92, 304, 1010, 3362, 11193, 37273, 124118, 413310, 1376322, 4583150, 15261887, 50822082, 169237530};

static uint32_t segment_length_for(uint64_t n)
{
    uint32_t length = 4;
    for (size_t i = 0; i < sizeof segment_length_thresholds / sizeof segment_length_thresholds[0]; i++)
        if (n >= segment_length_thresholds[i] && length < BF_FUSE_SEGMENT_LENGTH_MAX) length *= 2;
    return length;
}

/* Slots for n keys: n times the paper's size factor
 * max(1.125, 0.875 + 0.25 * ln(10^6) / ln(n)) (section 4, 3-wise). From 10^6
 * keys on the factor is 1.125, done in integers; below, where small filters
 * need the extra room to peel, in doubles (n = 1 counts as 2, whose factor
 * is finite). */
static uint64_t capacity_for(uint64_t n)
{
    if (n >= 1000000) return n + (n + 7) / 8;
    double m = n < 2 ? 2.0 : (double)n;
    double factor = 0.875 + 0.25 * log(1e6) / log(m);
    return (uint64_t)ceil((double)n * factor);
}

int bf_fuse_shape(uint64_t n, unsigned fingerprint_bits, bf_fuse *out)
{
    memset(out, 0, sizeof *out);
    if (fingerprint_bits != 8 && fingerprint_bits != 16) return 0;
    out->fingerprint_bits = fingerprint_bits;
    if (n == 0) return 1;
    if (n > ((uint64_t)1 << 32)) return 0; /* keeps the arithmetic below far from overflow */
    uint64_t length = segment_length_for(n);
    uint64_t segments = (capacity_for(n) + length - 1) / length;
    uint64_t count = segments > 3 ? segments - 2 : 1; /* a key's slots span three segments */
    if ((count + 2) * length > UINT32_MAX) return 0;
    out->segment_length = (uint32_t)length;
    out->segment_length_mask = (uint32_t)length - 1;
    out->segment_count = (uint32_t)count;
    out->segment_count_length = (uint32_t)(count * length);
    out->array_length = (uint32_t)((count + 2) * length);
    return 1;
}

int bf_fuse_valid_shape(const bf_fuse *f)
{
    if (f->fingerprint_bits != 8 && f->fingerprint_bits != 16) return 0;
    uint64_t length = f->segment_length, count = f->segment_count;
    if (f->array_length == 0) return length == 0 && f->segment_length_mask == 0 && count == 0 && f->segment_count_length == 0;
    if (length < 4 || length > BF_FUSE_SEGMENT_LENGTH_MAX || (length & (length - 1))) return 0;
    if (f->segment_length_mask != length - 1 || count == 0) return 0;
    return f->segment_count_length == count * length && f->array_length == (count + 2) * length;
}

size_t bf_fuse_nbytes(const bf_fuse *f)
{
    uint64_t bytes = (uint64_t)f->array_length * (f->fingerprint_bits / 8);
    return bytes > SIZE_MAX ? 0 : (size_t)bytes;
}

/* The scratch of a build: per slot, the XOR of the mixed hashes of the keys
 * in it (8 bytes), an entry of the peeling order or stack (4) and a key
 * count (1); per key, its mixed hash (8), which the sort of the dedup also
 * uses. */
size_t bf_fuse_scratch_bytes(uint64_t n)
{
    bf_fuse shape;
    if (n == 0 || !bf_fuse_shape(n, 8, &shape)) return 0;
    uint64_t bytes = (uint64_t)shape.array_length * 13 + n * 8;
    return bytes > SIZE_MAX ? 0 : (size_t)bytes;
}

/* A slot's key count stops at COUNT_STUCK: past it the count is no longer
 * known, so the slot is never peeled (its keys must leave by their other
 * slots). Only repeated hashes get there in practice. */
#define COUNT_STUCK 255

/* Keys of a large build are counted in the order of their first slot:
 * BUCKET_BITS top bits of the mixed hash, which multiply-shift maps to
 * increasing slots, group them into 2^BUCKET_BITS runs of nearby slots, so
 * that the three slots a key updates lie close to those of the key before.
 * Below BUCKET_MIN keys the slots fit in cache and order does not matter. */
#define BUCKET_BITS 12
#define BUCKET_MIN ((size_t)1 << 16)

/* out[0 .. n) = the keys mixed with seed, grouped by their top bits when
 * there are many. (The filter does not depend on the order.) */
static void mix_in_slot_order(const uint64_t *keys, size_t n, uint64_t seed, uint64_t *out)
{
    if (n < BUCKET_MIN) {
        for (size_t i = 0; i < n; i++) out[i] = bf_fuse_mix(keys[i], seed);
        return;
    }
    size_t start[(size_t)1 << BUCKET_BITS] = {0};
    for (size_t i = 0; i < n; i++) start[bf_fuse_mix(keys[i], seed) >> (64 - BUCKET_BITS)]++;
    size_t sum = 0;
    for (size_t b = 0; b < ((size_t)1 << BUCKET_BITS); b++) {
        size_t c = start[b];
        start[b] = sum;
        sum += c;
    }
    for (size_t i = 0; i < n; i++) {
        uint64_t h = bf_fuse_mix(keys[i], seed);
        out[start[h >> (64 - BUCKET_BITS)]++] = h;
    }
}

/* One try at seed: count and XOR the keys into the slots, peel, and on
 * success set the fingerprints. 1 when every key was peeled. */
static int fuse_try(bf_fuse *f, const uint64_t *keys, size_t n, void *scratch, uint64_t seed)
{
    uint32_t slots = f->array_length;
    uint64_t *xors = scratch, *hashes = xors + slots;
    uint32_t *order = (uint32_t *)(hashes + n);
    uint8_t *counts = (uint8_t *)(order + slots);
    memset(xors, 0, (size_t)slots * sizeof *xors);
    memset(counts, 0, slots);

    mix_in_slot_order(keys, n, seed, hashes);
    uint32_t pos[3];
    for (size_t i = 0; i < n; i++) {
        uint64_t h = hashes[i];
        bf_fuse_positions(f, h, pos);
        for (int j = 0; j < 3; j++) {
            xors[pos[j]] ^= h;
            counts[pos[j]] += counts[pos[j]] != COUNT_STUCK;
        }
    }

    /* Peel, depth first: scan the slots in order, and when one holds a
     * single key, peel it and at once the slots that its removal leaves
     * with one key, which lie within two segments of it (a queue would reach
     * them much later, after the cache has let them go). A slot's count
     * becomes 1 at most once, so it is pushed at most once and leaves the
     * stack before it joins the order: the order grows from the front of
     * one array of `slots` entries and the stack from its back. A peeled slot
     * keeps the hash of its key in xors: no other key touches it. */
    uint32_t *stack = order + slots;
    size_t depth = 0, peeled = 0;
    for (uint32_t i = 0; i < slots; i++) {
        if (counts[i] != 1) continue;
        *--stack = i, depth++;
        while (depth > 0) {
            uint32_t s = *stack++;
            depth--;
            if (counts[s] != 1) continue; /* its key left by another slot */
            uint64_t h = xors[s];
            order[peeled++] = s;
            counts[s] = 0;
            bf_fuse_positions(f, h, pos);
            for (int j = 0; j < 3; j++) {
                uint32_t p = pos[j];
                if (p == s) continue;
                xors[p] ^= h;
                if (counts[p] != COUNT_STUCK && --counts[p] == 1) *--stack = p, depth++;
            }
        }
    }
    if (peeled != n) return 0;

    /* Assign in reverse: each key's peeled slot is set last among its three,
     * so that the XOR of the three is its fingerprint. */
    uint8_t *fp = f->fingerprints;
    memset(fp, 0, bf_fuse_nbytes(f));
    for (size_t i = peeled; i-- > 0;) {
        uint32_t s = order[i];
        uint64_t h = xors[s];
        bf_fuse_positions(f, h, pos);
        if (f->fingerprint_bits == 8) {
            fp[s] = (uint8_t)(bf_fuse_fingerprint(h) ^ fp[pos[0]] ^ fp[pos[1]] ^ fp[pos[2]]);
        } else {
            uint32_t v = bf_fuse_fingerprint(h) ^ bf_fuse_load16(fp + 2 * (size_t)pos[0]) ^
                         bf_fuse_load16(fp + 2 * (size_t)pos[1]) ^ bf_fuse_load16(fp + 2 * (size_t)pos[2]);
            fp[2 * (size_t)s] = (uint8_t)v;
            fp[2 * (size_t)s + 1] = (uint8_t)(v >> 8);
        }
    }
    return 1;
}

/* The next seed of the sequence: a splitmix64 step (Steele, Lea and Flood,
 * "Fast Splittable Pseudorandom Number Generators", 2014; constants as
 * published). */
static uint64_t next_seed(uint64_t seed)
{
    uint64_t z = seed + 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* LSD radix sort, a byte a pass, skipping bytes that all keys share. */
static void sort_hashes(uint64_t *keys, size_t n, uint64_t *tmp)
{
    uint64_t *from = keys, *to = tmp;
    for (unsigned shift = 0; shift < 64; shift += 8) {
        size_t counts[256] = {0};
        for (size_t i = 0; i < n; i++) counts[(from[i] >> shift) & 0xff]++;
        if (counts[(from[0] >> shift) & 0xff] == n) continue;
        size_t sum = 0;
        for (int b = 0; b < 256; b++) {
            size_t c = counts[b];
            counts[b] = sum;
            sum += c;
        }
        for (size_t i = 0; i < n; i++) to[counts[(from[i] >> shift) & 0xff]++] = from[i];
        uint64_t *t = from;
        from = to;
        to = t;
    }
    if (from != keys) memcpy(keys, from, n * sizeof *keys);
}

size_t bf_fuse_dedup(uint64_t *keys, size_t n, void *scratch)
{
    if (n < 2) return n;
    sort_hashes(keys, n, scratch);
    size_t distinct = 1;
    for (size_t i = 1; i < n; i++)
        if (keys[i] != keys[distinct - 1]) keys[distinct++] = keys[i];
    return distinct;
}

static int same_shape(const bf_fuse *a, const bf_fuse *b)
{
    return a->segment_length == b->segment_length && a->segment_length_mask == b->segment_length_mask &&
           a->segment_count == b->segment_count && a->segment_count_length == b->segment_count_length &&
           a->array_length == b->array_length && a->fingerprint_bits == b->fingerprint_bits;
}

bf_fuse_result bf_fuse_build(bf_fuse *f, uint64_t *keys, size_t n, void *scratch, uint64_t seed)
{
    bf_fuse want;
    if (!bf_fuse_shape(n, f->fingerprint_bits, &want) || !same_shape(f, &want)) return BF_FUSE_BAD_SHAPE;
    f->seed = seed;
    if (n == 0) return BF_FUSE_BUILT;

    /* Dedup only after a failure: distinct keys rarely fail, and sorting
     * costs about as much as a try. A try that fails because of repeats is
     * followed by one at the same seed on the distinct keys, so the seeds
     * tried, and the filter, are those of the distinct keys alone. */
    int deduped = 0;
    for (unsigned tries = 0; tries < BF_FUSE_ATTEMPTS_MAX;) {
        if (fuse_try(f, keys, n, scratch, seed)) {
            f->seed = seed;
            return BF_FUSE_BUILT;
        }
        if (!deduped) {
            deduped = 1;
            size_t distinct = bf_fuse_dedup(keys, n, scratch);
            if (distinct < n) {
                n = distinct;
                continue;
            }
        }
        seed = next_seed(seed);
        tries++;
    }
    memset(f->fingerprints, 0, bf_fuse_nbytes(f));
    return BF_FUSE_GAVE_UP;
}


/* Keys a batch looks ahead: their slots are fetched while the key this many
 * places back is compared. */
#define LOOKAHEAD 8

void bf_fuse_contains_many(const bf_fuse *f, const uint64_t *keys, size_t n, uint8_t *out)
{
    if (f->array_length == 0) {
        memset(out, 0, n);
        return;
    }
    size_t width = f->fingerprint_bits / 8;
    uint32_t pos[3];
    for (size_t i = 0; i < n; i++) {
        if (i + LOOKAHEAD < n) {
            bf_fuse_positions(f, bf_fuse_mix(keys[i + LOOKAHEAD], f->seed), pos);
            for (int j = 0; j < 3; j++) bf_prefetch(f->fingerprints + width * pos[j]);
        }
        out[i] = (uint8_t)bf_fuse_contains(f, keys[i]);
    }
}
