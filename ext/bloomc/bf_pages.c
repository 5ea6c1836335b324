/* See bf_pages.h. */
#define _GNU_SOURCE 1 /* MAP_ANONYMOUS, madvise's advice and prctl under -std=c99 */
#include "bf_pages.h"
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

/* The HAVE_ macros are extconf.rb's checks; a build without them (rake
 * fuzz's) gets every fallback. */
#ifdef HAVE_PRCTL_THP_DISABLE
#include <sys/prctl.h>
/* Linux 6.18: THP_DISABLE that spares memory advised MADV_HUGEPAGE. */
#ifndef PR_THP_DISABLE_EXCEPT_ADVISED
#define PR_THP_DISABLE_EXCEPT_ADVISED (1 << 1)
#endif
#endif

/* Linux 5.14's bulk commit, missing from older headers (extconf.rb checked
 * that this is Linux, whose ABI the values are); an older kernel answers
 * EINVAL and the pages are touched. */
#ifdef HAVE_MADV_POPULATE
#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22
#endif
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif
#endif

#ifdef HAVE_MINCORE
/* mincore's vector: unsigned char on Linux, char on macOS and the BSDs. */
#ifdef HAVE_MINCORE_UNSIGNED_VECTOR
typedef unsigned char mincore_vector;
#else
typedef char mincore_vector;
#endif
/* BLOOMC_FALLBACKS builds the char vector on Linux too, whose prototype
 * takes unsigned char: only there is it passed through void *. */
#ifdef BLOOMC_FORCED_FALLBACKS
#define MINCORE_VECTOR(v) ((void *)(v))
#else
#define MINCORE_VECTOR(v) (v)
#endif
#endif

static size_t page_size(void)
{
    long p = sysconf(_SC_PAGESIZE);
    return p > 0 ? (size_t)p : 4096;
}

static size_t round_up(size_t n, size_t to) { return (n + to - 1) & ~(to - 1); }

void *bf_pages_alloc(size_t nbytes, int huge)
{
    size_t length = round_up(nbytes, page_size());
    if (!nbytes || length < nbytes || length + BF_PAGES_ALIGN < length) {
        errno = ENOMEM;
        return NULL;
    }
    /* Over-allocate by one alignment and trim both ends: mmap itself only
     * promises page alignment. The untouched excess is never committed. */
    uint8_t *raw = mmap(NULL, length + BF_PAGES_ALIGN, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == MAP_FAILED) return NULL;
    uint8_t *p = (uint8_t *)round_up((uintptr_t)raw, BF_PAGES_ALIGN);
    if (p > raw) munmap(raw, (size_t)(p - raw));
    size_t tail = (size_t)(raw + length + BF_PAGES_ALIGN - (p + length));
    if (tail) munmap(p + length, tail);
#ifdef HAVE_MADV_HUGEPAGE
    if (huge) madvise(p, length, MADV_HUGEPAGE); /* advice: refused is only slower */
#else
    (void)huge;
#endif
    return p;
}

void bf_pages_free(void *p, size_t nbytes)
{
    if (p) munmap(p, round_up(nbytes, page_size()));
}

/* The fallback: one access per page. A write adds 0 atomically, so that a
 * byte another thread sets meanwhile is never put back. */
static void touch(uint8_t *start, size_t length, size_t page, int write)
{
    for (size_t off = 0; off < length; off += page) {
        if (write) __atomic_fetch_or(start + off, (uint8_t)0, __ATOMIC_RELAXED);
        else (void)*(volatile const uint8_t *)(start + off);
    }
}

/* One thread's share of a commit: whole pages [start, start + length). */
typedef struct {
    uint8_t *start;
    size_t length, page;
    int write, err;
} commit_part;

static void *commit_run(void *arg)
{
    commit_part *c = arg;
    c->err = 0;
#ifdef HAVE_MADV_POPULATE
    int advice = c->write ? MADV_POPULATE_WRITE : MADV_POPULATE_READ;
    for (;;) {
        if (madvise(c->start, c->length, advice) == 0) return NULL;
        if (errno == EINTR || errno == EAGAIN) continue; /* a signal, or memory being reclaimed */
        if (errno != EINVAL) {
            c->err = errno;
            return NULL;
        }
        break; /* a kernel before 5.14 */
    }
#endif
    touch(c->start, c->length, c->page, c->write);
    return NULL;
}

int bf_pages_commit(void *p, size_t nbytes, int write, int threads)
{
    if (!nbytes) return 0;
    size_t page = page_size();
    /* madvise takes whole pages: from the page that holds the first byte. */
    uint8_t *start = (uint8_t *)((uintptr_t)p & ~(uintptr_t)(page - 1));
    size_t length = round_up(nbytes + (size_t)((uint8_t *)p - start), page);
    /* The kernel zeroes (or reads) the pages of each part on the thread that
     * asks: a 1 GiB commit took 0.41-0.48 s on one thread here, 0.25 s on
     * two. Parts are whole huge pages, so none is split between threads. */
    if (threads > BF_PAGES_MAX_THREADS) threads = BF_PAGES_MAX_THREADS;
    if (threads < 1 || length < (size_t)threads * BF_PAGES_ALIGN) threads = 1;
    commit_part parts[BF_PAGES_MAX_THREADS];
    pthread_t tid[BF_PAGES_MAX_THREADS];
    int started[BF_PAGES_MAX_THREADS] = {0};
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    for (int w = 0; w < threads; w++) {
        size_t from = w ? round_up(length / (size_t)threads * (size_t)w, BF_PAGES_ALIGN) : 0;
        size_t to = w + 1 == threads ? length : round_up(length / (size_t)threads * (size_t)(w + 1), BF_PAGES_ALIGN);
        parts[w] = (commit_part){start + from, to - from, page, write, 0};
        if (w) started[w] = pthread_create(&tid[w], NULL, commit_run, &parts[w]) == 0;
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    commit_run(&parts[0]);
    int err = parts[0].err;
    for (int w = 1; w < threads; w++) {
        if (started[w]) pthread_join(tid[w], NULL);
        else commit_run(&parts[w]);
        if (!err) err = parts[w].err;
    }
    return err;
}

size_t bf_pages_resident(const void *p, size_t nbytes)
{
#ifndef HAVE_MINCORE
    (void)p;
    (void)nbytes;
    errno = ENOSYS;
    return (size_t)-1;
#else
    size_t page = page_size();
    uint8_t *start = (uint8_t *)((uintptr_t)p & ~(uintptr_t)(page - 1));
    size_t length = round_up(nbytes + (size_t)((const uint8_t *)p - start), page);
    /* A window of 4096 pages at a time: one byte of answer per page. */
    mincore_vector vec[4096];
    size_t resident = 0;
    for (size_t off = 0; off < length;) {
        size_t window = length - off < sizeof vec * page ? length - off : sizeof vec * page;
        if (mincore(start + off, window, MINCORE_VECTOR(vec)) != 0) return (size_t)-1;
        for (size_t i = 0; i < window / page; i++) resident += (size_t)(vec[i] & 1) * page;
        off += window;
    }
    return resident;
#endif
}

int bf_pages_allow_huge(void)
{
#ifdef HAVE_PRCTL_THP_DISABLE
    if (prctl(PR_SET_THP_DISABLE, 1, PR_THP_DISABLE_EXCEPT_ADVISED, 0, 0) == 0) return 0;
    if (errno != EINVAL) return errno;
    return prctl(PR_SET_THP_DISABLE, 0, 0, 0, 0) == 0 ? 0 : errno;
#else
    return ENOSYS;
#endif
}
