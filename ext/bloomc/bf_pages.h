/* Large cell arrays straight from the kernel: anonymous mappings aligned to
 * 2 MiB (so that each 2 MiB of cells can be one huge page), committed in
 * bulk when asked, and the process's transparent-huge-page switch. The
 * binding (filter.c) decides when to use them and tells Ruby's GC; this core
 * includes no ruby.h. Linux calls are used where extconf.rb found them;
 * elsewhere the bulk commit and the huge-page advice fall back or do
 * nothing. */
#ifndef BF_PAGES_H
#define BF_PAGES_H

#include <stddef.h>

/* The alignment of bf_pages_alloc's mappings: one x86-64 huge page. */
#define BF_PAGES_ALIGN ((size_t)2 << 20)

/* nbytes zeroed bytes, BF_PAGES_ALIGN aligned, committed as they are first
 * touched; advised MADV_HUGEPAGE when huge is non-zero. NULL (errno set)
 * when the kernel refuses. */
void *bf_pages_alloc(size_t nbytes, int huge);
/* Frees what bf_pages_alloc returned for the same nbytes. */
void bf_pages_free(void *p, size_t nbytes);

/* Commits every page of [p, p + nbytes): for writing (write non-zero: a
 * private page gets its own frame, a shared file's hole gets its block) or
 * for reading (a file's pages read in, holes left holes), on up to threads
 * threads. The contents do not change, even under concurrent writes to
 * other bytes. Returns 0, or an errno (ENOMEM: no memory; EFAULT: past a
 * file's end). */
int bf_pages_commit(void *p, size_t nbytes, int write, int threads);
#define BF_PAGES_MAX_THREADS 64

/* How many bytes of the pages holding [p, p + nbytes) are resident now
 * (mincore): what the commit did, seen apart from the rest of the process.
 * Returns (size_t)-1, errno set, where the kernel cannot say (ENOSYS: a
 * build without mincore). */
size_t bf_pages_resident(const void *p, size_t nbytes);

/* Lifts the process's THP_DISABLE (Ruby 3.1 sets it at boot) as narrowly as
 * the kernel allows: THP stays off except where advised MADV_HUGEPAGE, or,
 * on kernels without that, off nowhere. Returns 0 or an errno (ENOSYS: a
 * build without prctl's PR_SET_THP_DISABLE, which is Linux's). */
int bf_pages_allow_huge(void);

#endif
