/* Once per process: every batch function on filters of at least
 * BF_BATCH_PREFETCH_MIN_BYTES, so that prefetching runs under the sanitizers,
 * at every batch size 0..BATCH_MAX (the look-ahead's edges are at
 * BF_BATCH_AHEAD), with heap blocks of exactly n hashes and answers. Each
 * filter has a twin fed one key at a time: images, counts and answers (the
 * adds' "new" too, except at every third size, where out is NULL) must
 * agree. */
#include "harness.h"

#include <string.h>

#include "bf_batch.h"
#include "bf_bits.h"
#include "bf_blocked.h"
#include "bf_bloom.h"
#include "bf_buckets.h"
#include "bf_continuous.h"

#include "keys.h"

/* Hashes of the 8-byte keys from .. from + n - 1, in a block of exactly n. */
static bf_key_hash *large_keys(uint64_t from, size_t n, bf_hash_kind kind)
{
    bf_key_hash *h = malloc(n * sizeof *h);
    CHECK(h != NULL || n == 0);
    for (size_t i = 0; i < n; i++) {
        uint8_t key[8];
        uint64_t v = from + i;
        for (int b = 0; b < 8; b++) key[b] = (uint8_t)(v >> (8 * b));
        h[i] = bf_key_hash_bytes(key, sizeof key, 7, kind);
    }
    return h;
}

/* Round n adds keys next .. next + n - 1, then looks up n keys: the last
 * `added` of those and n - added never added yet, so answers are mixed. */
typedef struct {
    bf_key_hash *add, *look;
    uint8_t *out, *fresh; /* fresh: the answers of the batch add */
    size_t n, added;
} large_round;

static void large_round_start(large_round *q, size_t n, uint64_t *next, bf_hash_kind kind)
{
    q->n = n;
    q->added = (n + 1) / 2;
    q->add = large_keys(*next, n, kind);
    *next += n;
    q->look = large_keys(*next - q->added, n, kind);
    q->out = exact_answers(n);
    q->fresh = exact_answers(n);
}

static void large_round_end(large_round *q)
{
    free(q->add);
    free(q->look);
    free(q->out);
    free(q->fresh);
}

static void check_prefetching_bloom(uint32_t k, bf_hash_kind kind)
{
    bf_bloom a, b;
    memset(&a, 0, sizeof a);
    a.bits.nbits = (uint64_t)8 << 20;
    a.k = k;
    a.seed = 7;
    a.hash = kind;
    b = a;
    size_t nbytes = bf_bits_nbytes(a.bits.nbits);
    CHECK(bf_batch_prefetches(nbytes));
    a.bits.data = calloc(nbytes, 1);
    b.bits.data = calloc(nbytes, 1);
    CHECK(a.bits.data && b.bits.data);
    uint64_t next = 0;
    for (size_t n = 0; n <= BATCH_MAX; n++) {
        large_round q;
        large_round_start(&q, n, &next, kind);
        bf_bloom_add_many(&a, q.add, n, n % 3 ? q.fresh : NULL);
        for (size_t i = 0; i < n; i++) CHECK(bf_bloom_add(&b, q.add[i]) == q.fresh[i] || n % 3 == 0);
        /* The same keys again: none is new now, in the batch or one by one. */
        bf_bloom_add_many(&a, q.add, n, q.fresh);
        for (size_t i = 0; i < n; i++) CHECK(bf_bloom_add(&b, q.add[i]) == 0 && q.fresh[i] == 0);
        CHECK(a.count == b.count && a.distinct == b.distinct && memcmp(a.bits.data, b.bits.data, nbytes) == 0);
        bf_bloom_contains_many(&a, q.look, n, q.out);
        for (size_t i = 0; i < n; i++)
            CHECK(q.out[i] == bf_bloom_contains(&b, q.look[i]) && (i >= q.added || q.out[i] == 1));
        large_round_end(&q);
    }
    free(a.bits.data);
    free(b.bits.data);
}

static void check_prefetching_blocked(uint32_t k, uint32_t seed)
{
    bf_blocked a, b;
    memset(&a, 0, sizeof a);
    a.nblocks = ((size_t)1 << 20) / BF_BLOCK_BYTES;
    a.bits.nbits = a.nblocks * BF_BLOCK_BITS;
    a.k = k;
    a.seed = seed;
    b = a;
    size_t nbytes = bf_bits_nbytes(a.bits.nbits);
    CHECK(nbytes == a.nblocks * BF_BLOCK_BYTES && bf_batch_prefetches(nbytes));
    a.bits.data = aligned_alloc(BF_BLOCK_BYTES, nbytes);
    b.bits.data = aligned_alloc(BF_BLOCK_BYTES, nbytes);
    CHECK(a.bits.data && b.bits.data);
    memset(a.bits.data, 0, nbytes);
    memset(b.bits.data, 0, nbytes);
    uint64_t next = 0;
    for (size_t n = 0; n <= BATCH_MAX; n++) {
        large_round q;
        large_round_start(&q, n, &next, BF_HASH_MURMUR3);
        bf_blocked_add_many(&a, q.add, n, n % 3 ? q.fresh : NULL);
        for (size_t i = 0; i < n; i++) CHECK(bf_blocked_add(&b, q.add[i]) == q.fresh[i] || n % 3 == 0);
        /* The same keys again: none is new now, in the batch or one by one. */
        bf_blocked_add_many(&a, q.add, n, q.fresh);
        for (size_t i = 0; i < n; i++) CHECK(bf_blocked_add(&b, q.add[i]) == 0 && q.fresh[i] == 0);
        CHECK(a.count == b.count && a.distinct == b.distinct && memcmp(a.bits.data, b.bits.data, nbytes) == 0);
        bf_blocked_contains_many(&a, q.look, n, q.out);
        for (size_t i = 0; i < n; i++)
            CHECK(q.out[i] == bf_blocked_contains(&b, q.look[i]) && (i >= q.added || q.out[i] == 1));
        large_round_end(&q);
    }
    free(a.bits.data);
    free(b.bits.data);
}

/* Ticks of 0..2 between rounds, and a stale bucket (which ticks never leave)
 * planted under a key not added, so that lookups with clear_expired reset it
 * in the batch as one at a time. */
static void check_prefetching_continuous(uint32_t k, bf_hash_kind kind)
{
    bf_continuous a, b;
    memset(&a, 0, sizeof a);
    uint64_t count = (uint64_t)2 << 20;
    a.k = k;
    a.seed = 7;
    a.hash = kind;
    a.slot = 1;
    size_t nbytes = bf_buckets_nbytes(count, BF_CONT_BITS);
    CHECK(bf_batch_prefetches(nbytes));
    a.buckets.data = calloc(nbytes, 1);
    bf_buckets_init(&a.buckets, count, BF_CONT_BITS);
    b = a;
    b.buckets.data = calloc(nbytes, 1);
    CHECK(a.buckets.data && b.buckets.data);
    uint64_t next = 0;
    for (size_t n = 0; n <= BATCH_MAX; n++) {
        bf_continuous_tick(&a, n % 3, NULL, NULL);
        bf_continuous_tick(&b, n % 3, NULL, NULL);
        large_round q;
        large_round_start(&q, n, &next, kind);
        bf_continuous_add_many(&a, q.add, n, n % 3 ? q.fresh : NULL);
        for (size_t i = 0; i < n; i++) CHECK(bf_continuous_add(&b, q.add[i]) == q.fresh[i] || n % 3 == 0);
        /* The same keys again, in the same tick: all live, none new. */
        bf_continuous_add_many(&a, q.add, n, q.fresh);
        for (size_t i = 0; i < n; i++) CHECK(bf_continuous_add(&b, q.add[i]) == 0 && q.fresh[i] == 0);
        CHECK(memcmp(a.buckets.data, b.buckets.data, nbytes) == 0);
        uint64_t planted = count; /* none */
        if (n >= 2) {
            /* Any slot 3 or more ticks old, in the first bucket of the last
             * key looked up (never added) unless a key just added has it. */
            uint64_t pos[BF_K_MAX], other[BF_K_MAX];
            uint32_t stale = (a.slot - 1 + BF_CONT_DIVISOR + 3) % BF_CONT_SLOTS + 1;
            bf_positions(q.look[n - 1], kind, k, count, pos);
            int shared = 0;
            for (size_t i = 0; i < q.added; i++) {
                bf_positions(q.look[i], kind, k, count, other);
                for (uint32_t j = 0; j < k; j++) shared |= other[j] == pos[0];
            }
            if (!shared) {
                planted = pos[0];
                bf_buckets_set(&a.buckets, planted, stale);
                bf_buckets_set(&b.buckets, planted, stale);
            }
        }
        int clear = (n >> 1) & 1;
        bf_continuous_lookup_many(&a, q.look, n, clear, q.out);
        for (size_t i = 0; i < n; i++)
            CHECK(q.out[i] == bf_continuous_lookup(&b, q.look[i], clear) && (i >= q.added || q.out[i] == 1));
        CHECK(memcmp(a.buckets.data, b.buckets.data, nbytes) == 0);
        /* A key's first bucket is always read, so a stale one there is reset. */
        if (planted < count) CHECK((bf_buckets_get(&a.buckets, planted) == 0) == clear);
        large_round_end(&q);
    }
    free(a.buckets.data);
    free(b.buckets.data);
}

void check_prefetching_batches(void)
{
    static int done;
    if (done) return;
    done = 1;
    check_prefetching_bloom(7, BF_HASH_MURMUR3);
    check_prefetching_bloom(3, BF_HASH_FNV1A);
    check_prefetching_blocked(8, 0);
    check_prefetching_blocked(13, 99); /* probes past the unrolled eight, a remixed word */
    check_prefetching_continuous(4, BF_HASH_MURMUR3);
    check_prefetching_continuous(7, BF_HASH_FNV1A);
}
