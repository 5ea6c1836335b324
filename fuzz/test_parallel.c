/* Standalone check of the cores' parallel adds, the way batch.c runs them:
 * by scatter (bf_batch.h) for the plain and continuous cores, where several
 * threads each write the entries of their share of the keys to the owners'
 * lists, then each owner sets the cells of its lists; by ranges for the
 * blocked core, where each thread walks every key but sets only the blocks
 * of its own range of cache lines. The cells and the keys found new
 * must be the serial add_many's, byte for byte; `rake fuzz` builds it with
 * ThreadSanitizer, which reports any two threads touching one byte without
 * order. Keys are hashes from a fixed splitmix64 sequence; exits 1 on the
 * first failure.
 *
 *   clang -g -O1 -fsanitize=thread -Iext/bloomc fuzz/test_parallel.c ext/bloomc/bf_bloom.c \
 *     ext/bloomc/bf_blocked.c ext/bloomc/bf_continuous.c ext/bloomc/bf_bits.c ext/bloomc/bf_buckets.c \
 *     ext/bloomc/bf_crc32c.c ext/bloomc/bf_hash.c -lm -lpthread -o tmp/test_parallel && tmp/test_parallel */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bf_batch.h"
#include "bf_blocked.h"
#include "bf_bloom.h"
#include "bf_continuous.h"
#include "check.h"

#define MAX_THREADS 4
#define LINE 64

enum kind { BLOOM,
            BLOCKED,
            CONTINUOUS };
static const char *const kind_names[] = {"bloom", "blocked", "continuous"};

typedef struct {
    enum kind kind;
    void *filter;
    const bf_key_hash *h;
    size_t from, to; /* this thread's keys, for the scatter */
    size_t lo, hi;   /* this thread's range of bytes, for the blocked core */
    int self, parts;
    uint64_t *entries; /* list (source, owner) at (source * parts + owner) * cap */
    size_t cap, *filled;
    uint8_t *out;
} job;

static void *scatter(void *arg)
{
    job *j = arg;
    uint64_t *next[MAX_THREADS], *row = j->entries + (size_t)j->self * (size_t)j->parts * j->cap;
    for (int owner = 0; owner < j->parts; owner++) next[owner] = row + (size_t)owner * j->cap;
    const bf_key_hash *h = j->h + j->from;
    size_t n = j->to - j->from;
    if (j->kind == BLOOM) bf_bloom_scatter(j->filter, h, n, j->from, (unsigned)j->parts, next);
    else bf_continuous_scatter(j->filter, h, n, j->from, (unsigned)j->parts, next);
    for (int owner = 0; owner < j->parts; owner++)
        j->filled[j->self * j->parts + owner] = (size_t)(next[owner] - (row + (size_t)owner * j->cap));
    return NULL;
}

static void *apply(void *arg)
{
    job *j = arg;
    for (int source = 0; source < j->parts; source++) {
        size_t list = (size_t)source * (size_t)j->parts + (size_t)j->self;
        const uint64_t *entries = j->entries + list * j->cap;
        if (j->kind == BLOOM) bf_bloom_apply(j->filter, entries, j->filled[list], j->out);
        else bf_continuous_apply(j->filter, entries, j->filled[list], j->out);
    }
    return NULL;
}

static void *add_range(void *arg)
{
    job *j = arg;
    bf_blocked_add_part(j->filter, j->h, j->to, j->out, j->lo, j->hi);
    return NULL;
}

static void run(job *jobs, int t, void *(*fn)(void *))
{
    pthread_t tid[MAX_THREADS];
    for (int w = 0; w < t; w++) CHECK(pthread_create(&tid[w], NULL, fn, &jobs[w]) == 0, "thread %d", w);
    for (int w = 0; w < t; w++) pthread_join(tid[w], NULL);
}

/* batch.c's round: keys split evenly, then scatter, then apply; or, for the
 * blocked core, ranges of whole cache lines, the last to the end. */
static void add_parallel(enum kind kind, void *filter, size_t nbytes, const bf_key_hash *h, size_t n, uint32_t k,
                         uint8_t *out, int t)
{
    job jobs[MAX_THREADS];
    size_t filled[MAX_THREADS * MAX_THREADS];
    size_t cap = (n / (size_t)t + 1) * k;
    uint64_t *entries = malloc((size_t)t * (size_t)t * cap * sizeof *entries);
    memset(out, 0, n);
    for (int w = 0; w < t; w++) {
        size_t lo = (nbytes * (size_t)w / (size_t)t) & ~(size_t)(LINE - 1);
        size_t hi = w + 1 == t ? nbytes : (nbytes * (size_t)(w + 1) / (size_t)t) & ~(size_t)(LINE - 1);
        jobs[w] = (job){kind, filter, h, n * (size_t)w / (size_t)t, n * (size_t)(w + 1) / (size_t)t, lo, hi,
                        w, t, entries, cap, filled, out};
    }
    if (kind == BLOCKED) {
        for (int w = 0; w < t; w++) jobs[w].to = n; /* every thread walks every key */
        run(jobs, t, add_range);
    } else {
        run(jobs, t, scatter);
        run(jobs, t, apply);
    }
    free(entries);
}

/* n keys (a tenth repeated) into a filter of ncells cells, serially and on t
 * threads. */
static void check(enum kind kind, uint64_t ncells, uint32_t k, size_t n, int t, uint64_t seed)
{
    CHECK(n <= BF_SCATTER_ROUND_MAX, "one round");
    bf_key_hash *h = malloc(n * sizeof *h);
    uint8_t *fresh_serial = malloc(n), *fresh_parallel = malloc(n);
    for (size_t i = 0; i < n; i++) {
        h[i].h1 = splitmix(&seed);
        h[i].h2 = splitmix(&seed);
        if (i % 10 == 9) h[i] = h[i / 2]; /* repeats: new once, at the first */
    }
    size_t nbytes = kind == CONTINUOUS ? bf_buckets_nbytes(ncells, BF_CONT_BITS) : bf_bits_nbytes(ncells);
    size_t allocated = (nbytes + LINE - 1) / LINE * LINE;
    uint8_t *serial_cells = aligned_alloc(LINE, allocated), *parallel_cells = aligned_alloc(LINE, allocated);
    memset(serial_cells, 0, allocated);
    memset(parallel_cells, 0, allocated);
    if (kind == BLOCKED) {
        bf_blocked a = {{serial_cells, ncells}, ncells / BF_BLOCK_BITS, k, 0, 0, 0};
        bf_blocked b = {{parallel_cells, ncells}, ncells / BF_BLOCK_BITS, k, 0, 0, 0};
        bf_blocked_add_many(&a, h, n, fresh_serial);
        add_parallel(kind, &b, nbytes, h, n, k, fresh_parallel, t);
    } else if (kind == BLOOM) {
        bf_bloom a = {{serial_cells, ncells}, k, 0, BF_HASH_MURMUR3, 0, 0};
        bf_bloom b = {{parallel_cells, ncells}, k, 0, BF_HASH_MURMUR3, 0, 0};
        bf_bloom_add_many(&a, h, n, fresh_serial);
        add_parallel(kind, &b, nbytes, h, n, k, fresh_parallel, t);
    } else {
        /* Slot 4, with buckets of slots 1 (expired, as if a tick had left
         * them) and 3 (live) among the empty ones, so that new keys are
         * found three ways. */
        bf_continuous a = {.k = k, .hash = BF_HASH_MURMUR3, .slot = 4}, b = a;
        bf_buckets_init(&a.buckets, ncells, BF_CONT_BITS);
        b.buckets = a.buckets;
        a.buckets.data = serial_cells;
        b.buckets.data = parallel_cells;
        for (uint64_t i = 0; i < ncells; i += 3) bf_buckets_set(&a.buckets, i, i % 2 ? 1 : 3);
        memcpy(parallel_cells, serial_cells, nbytes);
        bf_continuous_add_many(&a, h, n, fresh_serial);
        add_parallel(kind, &b, nbytes, h, n, k, fresh_parallel, t);
    }
    CHECK(memcmp(serial_cells, parallel_cells, nbytes) == 0, "%s m=%llu k=%u n=%zu t=%d: cells differ",
          kind_names[kind], (unsigned long long)ncells, k, n, t);
    CHECK(memcmp(fresh_serial, fresh_parallel, n) == 0, "%s m=%llu k=%u n=%zu t=%d: new keys differ", kind_names[kind],
          (unsigned long long)ncells, k, n, t);
    free(h);
    free(fresh_serial);
    free(fresh_parallel);
    free(serial_cells);
    free(parallel_cells);
}

int main(void)
{
    uint64_t seed = 1;
    /* Sizes of a few cache lines a thread, odd sizes, and one past the 1 MiB
     * where the serial walk starts to prefetch. (batch.c runs a scatter only
     * on more lines than threads.) */
    const uint64_t bloom_bits[] = {2048 + 64, 4096 + 100, 100003, 8 * 1048576 + 12345};
    const uint64_t blocks[] = {1, 3, 1601, 16411}; /* some ranges empty */
    const uint64_t buckets[] = {640 + 3, 1280 + 7, 100003, 2 * 1048576 + 12345};
    const uint32_t ks[] = {1, 7, 11};
    for (int t = 2; t <= MAX_THREADS; t++)
        for (size_t s = 0; s < sizeof bloom_bits / sizeof *bloom_bits; s++)
            for (size_t j = 0; j < sizeof ks / sizeof *ks; j++) {
                check(BLOOM, bloom_bits[s], ks[j], 20000, t, seed++);
                check(BLOCKED, blocks[s] * BF_BLOCK_BITS, ks[j], 20000, t, seed++);
                check(CONTINUOUS, buckets[s], ks[j], 20000, t, seed++);
            }
    puts("test_parallel: ok");
    return 0;
}
