/* Standalone check of the cores' parallel adds (bf_bloom_add_part,
 * bf_blocked_add_part), the way batch.c runs them: several threads, each
 * over every key but only its own range of cache lines, writing the shared
 * answers. The cells and the keys found new must be the serial add_many's,
 * byte for byte; `rake fuzz` builds it with ThreadSanitizer, which reports
 * any two threads touching one byte without order. Keys are hashes from a
 * fixed splitmix64 sequence; exits 1 on the first failure.
 *
 *   clang -g -O1 -fsanitize=thread -Iext/bloomc fuzz/test_parallel.c ext/bloomc/bf_bloom.c \
 *     ext/bloomc/bf_blocked.c ext/bloomc/bf_bits.c -lm -lpthread -o tmp/test_parallel && tmp/test_parallel */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bf_blocked.h"
#include "bf_bloom.h"
#include "check.h"

#define MAX_THREADS 4
#define LINE 64

typedef struct {
    int blocked;
    void *filter;
    const bf_key_hash *h;
    size_t n, lo, hi;
    uint8_t *out;
} part;

static void *run_part(void *arg)
{
    part *p = arg;
    if (p->blocked) bf_blocked_add_part(p->filter, p->h, p->n, p->out, p->lo, p->hi);
    else bf_bloom_add_part(p->filter, p->h, p->n, p->out, p->lo, p->hi);
    return NULL;
}

/* batch.c's split: ranges of whole cache lines, the last to the end. */
static void add_parallel(int blocked, void *filter, size_t nbytes, const bf_key_hash *h, size_t n, uint8_t *out, int t)
{
    pthread_t tid[MAX_THREADS];
    part parts[MAX_THREADS];
    memset(out, 0, n);
    for (int w = 0; w < t; w++) {
        size_t lo = (nbytes * (size_t)w / (size_t)t) & ~(size_t)(LINE - 1);
        size_t hi = w + 1 == t ? nbytes : (nbytes * (size_t)(w + 1) / (size_t)t) & ~(size_t)(LINE - 1);
        parts[w] = (part){blocked, filter, h, n, lo, hi, out};
        CHECK(pthread_create(&tid[w], NULL, run_part, &parts[w]) == 0, "thread %d", w);
    }
    for (int w = 0; w < t; w++) pthread_join(tid[w], NULL);
}

/* n keys (a tenth repeated) into a filter of nbits, serially and on t threads. */
static void check(int blocked, uint64_t nbits, uint32_t k, size_t n, int t, uint64_t seed)
{
    bf_key_hash *h = malloc(n * sizeof *h);
    uint8_t *fresh_serial = malloc(n), *fresh_parallel = malloc(n);
    for (size_t i = 0; i < n; i++) {
        h[i].h1 = splitmix(&seed);
        h[i].h2 = splitmix(&seed);
        if (i % 10 == 9) h[i] = h[i / 2]; /* repeats: new once, at the first */
    }
    size_t nbytes = bf_bits_nbytes(nbits);
    uint8_t *serial_cells = aligned_alloc(LINE, (nbytes + LINE - 1) / LINE * LINE);
    uint8_t *parallel_cells = aligned_alloc(LINE, (nbytes + LINE - 1) / LINE * LINE);
    memset(serial_cells, 0, nbytes);
    memset(parallel_cells, 0, nbytes);
    if (blocked) {
        bf_blocked a = {{serial_cells, nbits}, nbits / BF_BLOCK_BITS, k, 0, 0, 0};
        bf_blocked b = {{parallel_cells, nbits}, nbits / BF_BLOCK_BITS, k, 0, 0, 0};
        bf_blocked_add_many(&a, h, n, fresh_serial);
        add_parallel(1, &b, nbytes, h, n, fresh_parallel, t);
    } else {
        bf_bloom a = {{serial_cells, nbits}, k, 0, BF_HASH_MURMUR3, 0, 0};
        bf_bloom b = {{parallel_cells, nbits}, k, 0, BF_HASH_MURMUR3, 0, 0};
        bf_bloom_add_many(&a, h, n, fresh_serial);
        add_parallel(0, &b, nbytes, h, n, fresh_parallel, t);
    }
    CHECK(memcmp(serial_cells, parallel_cells, nbytes) == 0, "%s m=%llu k=%u n=%zu t=%d: cells differ",
          blocked ? "blocked" : "bloom", (unsigned long long)nbits, k, n, t);
    CHECK(memcmp(fresh_serial, fresh_parallel, n) == 0, "%s m=%llu k=%u n=%zu t=%d: new keys differ",
          blocked ? "blocked" : "bloom", (unsigned long long)nbits, k, n, t);
    free(h);
    free(fresh_serial);
    free(fresh_parallel);
    free(serial_cells);
    free(parallel_cells);
}

int main(void)
{
    uint64_t seed = 1;
    /* Sizes below a cache line a thread (some ranges empty), odd sizes, and
     * one past the 1 MiB where the cores start to prefetch. */
    const uint64_t bloom_bits[] = {64, 1000, 100003, 8 * 1048576 + 12345};
    const uint64_t blocks[] = {1, 3, 1601, 16411};
    const uint32_t ks[] = {1, 7, 11};
    for (int t = 2; t <= MAX_THREADS; t++)
        for (size_t s = 0; s < sizeof bloom_bits / sizeof *bloom_bits; s++)
            for (size_t j = 0; j < sizeof ks / sizeof *ks; j++) {
                check(0, bloom_bits[s], ks[j], 20000, t, seed++);
                check(1, blocks[s] * BF_BLOCK_BITS, ks[j], 20000, t, seed++);
            }
    puts("test_parallel: ok");
    return 0;
}
