/* Batch operations shared by every filter class (the public methods are in
 * lib/bloomc/batch.rb): keys are read from a Ruby Array a group at a time,
 * hashed, and handed to the filter's *_many function, which overlaps the
 * memory fetches of later keys with the probes of earlier ones. */
#include "bloomc.h"
#include "batch.h"
#include "keys.h"
#include "bf_endian.h"
#include "bf_batch.h"
#include <pthread.h>
#include <signal.h>

/* Keys hashed per call into the core: enough to keep BF_BATCH_AHEAD keys in
 * flight, small enough for the stack. */
#define GROUP 64

/* Raises TypeError for the first key of another type than String, Symbol or
 * Integer; returns 1 when every key is a String or a Fixnum, the keys that
 * native threads may hash (hashing a Symbol or a Bignum may allocate). */
static int check_key_types(VALUE keys)
{
    int plain = 1;
    for (long i = 0; i < RARRAY_LEN(keys); i++) {
        VALUE key = RARRAY_AREF(keys, i);
        if (RB_TYPE_P(key, T_STRING) || FIXNUM_P(key)) continue;
        if (!RB_TYPE_P(key, T_SYMBOL) && !RB_INTEGER_TYPE_P(key))
            rb_raise(rb_eTypeError, "key at index %ld must be a String, Symbol or Integer, not %" PRIsVALUE, i,
                     rb_obj_class(key));
        plain = 0;
    }
    return plain;
}

/* bloomc_key_hash with the String case inline: a batch spends most of its
 * time here. (Single-key add and include? call it out of line; inlining it
 * there measured slower.) */
static inline bf_key_hash hash_key(VALUE key, const bloomc_batch *b)
{
    if (!RB_TYPE_P(key, T_STRING)) return bloomc_key_hash(key, b->seed, b->kind);
    bf_key_hash h = bf_key_hash_bytes((const uint8_t *)RSTRING_PTR(key), (size_t)RSTRING_LEN(key), b->seed, b->kind);
    RB_GC_GUARD(key);
    return h;
}

/* A key is two dependent memory reads, its object and then its bytes, and a
 * large Array's keys are scattered over the heap: reading them dominates a
 * batch on a small filter. So while hashing key i, the object of key
 * i + 2 * KEY_AHEAD and the bytes of key i + KEY_AHEAD (whose object was
 * fetched earlier) are fetched. A prefetch never faults, and reading the
 * object's header only looks at a live key of the Array. */
#define KEY_AHEAD 8

static inline void prefetch_key(const VALUE *keys, long i, long len)
{
    if (i + 2 * KEY_AHEAD < len && !RB_SPECIAL_CONST_P(keys[i + 2 * KEY_AHEAD])) bf_prefetch((const void *)keys[i + 2 * KEY_AHEAD]);
    if (i + KEY_AHEAD < len && RB_TYPE_P(keys[i + KEY_AHEAD], T_STRING)) bf_prefetch(RSTRING_PTR(keys[i + KEY_AHEAD]));
}

/* Hash keys[from, from + n) into h (n <= GROUP). Keys are read while the GVL
 * is held, and the Array's length is read again for every key, so an Array
 * shrunk by a hashing side effect (there are none today) is never overrun. */
static size_t hash_group(VALUE keys, long from, const bloomc_batch *b, bf_key_hash *h)
{
    size_t n = 0;
    for (long i = from; i < RARRAY_LEN(keys) && n < GROUP; i++) {
        prefetch_key(RARRAY_CONST_PTR(keys), i, RARRAY_LEN(keys));
        h[n++] = hash_key(RARRAY_AREF(keys, i), b);
    }
    return n;
}

/* ---- Batches on several cores --------------------------------------------
 *
 * A large batch runs on native threads while the calling thread keeps the
 * GVL and waits for them: no other Ruby thread runs meanwhile, so no key
 * moves, changes or is freed, and the threads read the keys' bytes without
 * calling Ruby. They read only Strings and Fixnums (check_key_types).
 *
 * Lookups split the keys between the threads. Adds run in rounds, each
 * thread hashing its share of a round's keys into a buffer; then one of two
 * ways, the kind's:
 * - ranges (add_part): each thread walks every key of the round in order but
 *   sets only the cells in its own range of the filter's bytes;
 * - scatter (scatter, apply; bf_batch.h): each thread writes an entry for
 *   every cell its keys touch to the list of the thread that owns the cell's
 *   cache line, and then each owner sets the cells of its lists in the keys'
 *   order. A key of k probes costs each range walker k branches it cannot
 *   predict; scatter pays an 8-byte entry a probe instead (BloomFilter,
 *   1 GiB, two threads: 1.7x one against 1.4x).
 * Either way no two threads write one cache line, and each cell sees the
 * round's keys in the serial order: the cells, count, distinct and add_new's
 * answers are exactly the serial walk's. */

#define MAX_THREADS 64
/* Fewer keys than this per thread: starting a thread costs more than it saves. */
#define MIN_KEYS_PER_THREAD 4096
/* Keys per round of an add: 4 MiB of hashes and 256 KiB of answers; at
 * most what a scatter entry's index holds. */
#define ROUND ((long)BF_SCATTER_ROUND_MAX)
#define LINE 64

/* Where a parallel batch's keys are: an Array's elements (read-only), or
 * the lines of a String: key i is text[starts[i], starts[i + 1] - 1), the
 * line without its '\n'. */
typedef struct {
    const VALUE *keys;
    const char *text;
    const size_t *starts;
} key_source;

typedef struct {
    const bloomc_batch *b;
    key_source src;
    long from, to; /* the keys of this job */
    long base;     /* the key that h[0] and out[0] belong to */
    bf_key_hash *h;
    uint8_t *out;
    size_t lo, hi; /* add_part's range of bytes */
    /* Scatter: list (source, owner) is entries + (source * parts + owner) *
     * cap, of filled[source * parts + owner] entries. */
    uint64_t *entries;
    size_t cap, *filled;
    int parts, self;
    int mode;
    int *decided; /* all_include?/any_include?: set once one thread's answer decides */
    long found;
    /* Each job on cache lines of its own (two: the adjacent-line prefetcher
     * pairs them): the jobs sit side by side, and one thread's writes to its
     * job must not evict another's. */
} __attribute__((aligned(2 * LINE))) job;

/* The hash of key i, whose object and bytes were fetched while earlier keys
 * were hashed (to: the job's end). */
static inline bf_key_hash hash_at(const key_source *src, long i, long to, const bloomc_batch *b)
{
    if (src->text) {
        size_t start = src->starts[i];
        return bf_key_hash_bytes((const uint8_t *)src->text + start, src->starts[i + 1] - start - 1, b->seed, b->kind);
    }
    prefetch_key(src->keys, i, to);
    return hash_key(src->keys[i], b);
}

static void *hash_job(void *arg)
{
    job *j = arg;
    for (long i = j->from; i < j->to; i++) j->h[i - j->base] = hash_at(&j->src, i, j->to, j->b);
    return NULL;
}

/* Hashes the job's keys, then writes their entries to each owner's list. */
static void *scatter_job(void *arg)
{
    job *j = arg;
    hash_job(j);
    uint64_t *next[MAX_THREADS];
    uint64_t *row = j->entries + (size_t)j->self * (size_t)j->parts * j->cap;
    for (int owner = 0; owner < j->parts; owner++) next[owner] = row + (size_t)owner * j->cap;
    size_t first = (size_t)(j->from - j->base);
    j->b->scatter(j->b->filter, j->h + first, (size_t)(j->to - j->from), first, (unsigned)j->parts, next);
    for (int owner = 0; owner < j->parts; owner++)
        j->filled[j->self * j->parts + owner] = (size_t)(next[owner] - (row + (size_t)owner * j->cap));
    return NULL;
}

/* Sets the cells of this owner's lists, the sources in the keys' order. */
static void *apply_job(void *arg)
{
    job *j = arg;
    for (int source = 0; source < j->parts; source++) {
        size_t list = (size_t)source * (size_t)j->parts + (size_t)j->self;
        j->b->apply(j->b->filter, j->entries + list * j->cap, j->filled[list], j->out);
    }
    return NULL;
}

static void *add_job(void *arg)
{
    job *j = arg;
    j->b->add_part(j->b->filter, j->h, (size_t)(j->to - j->from), j->out, j->lo, j->hi);
    return NULL;
}

static void *lookup_job(void *arg)
{
    job *j = arg;
    bf_key_hash h[GROUP];
    uint8_t answers[GROUP];
    for (long i = j->from; i < j->to;) {
        if (j->decided && __atomic_load_n(j->decided, __ATOMIC_RELAXED)) break;
        size_t n = 0;
        for (; n < GROUP && i + (long)n < j->to; n++) h[n] = hash_at(&j->src, i + (long)n, j->to, j->b);
        uint8_t *out = j->out ? j->out + (i - j->base) : answers;
        j->b->lookup_shared(j->b->filter, h, n, out);
        size_t found = 0;
        for (size_t k = 0; k < n; k++) found += out[k];
        j->found += (long)found; /* its own line */
        if ((j->mode == BLOOMC_BATCH_ALL && found < n) || (j->mode == BLOOMC_BATCH_ANY && found > 0)) {
            __atomic_store_n(j->decided, 1, __ATOMIC_RELAXED);
            break;
        }
        i += (long)n;
    }
    return NULL;
}

/* Runs fn on jobs[0 .. t): jobs[0] in the calling thread, the others on
 * threads of their own (in the calling thread too, one after another, where
 * one cannot be started). The threads block every signal, so that signals
 * still reach Ruby's own threads. */
static void run_jobs(job *jobs, int t, void *(*fn)(void *))
{
    pthread_t tid[MAX_THREADS];
    int started[MAX_THREADS] = {0};
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    for (int w = 1; w < t; w++) started[w] = pthread_create(&tid[w], NULL, fn, &jobs[w]) == 0;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    fn(&jobs[0]);
    for (int w = 1; w < t; w++) {
        if (started[w]) pthread_join(tid[w], NULL);
        else fn(&jobs[w]);
    }
}

/* Automatic (threads: nil) uses several threads only for this many keys
 * and a filter past the last-level cache: below, the threads mostly wait
 * on the same memory as one would (docs/PERFORMANCE.md). */
#define AUTO_MIN_KEYS 100000
#define AUTO_MIN_BYTES ((size_t)64 << 20)

/* The threads for a batch of nkeys over cells of body_bytes: threads is an
 * Integer from lib/bloomc/batch.rb, n (up to n) or -n (automatic, up to n);
 * as many as nkeys keeps busy. A chunk of a stream (add_lines) is one of
 * many: automatic threads for any size of it. */
static int threads_for(VALUE threads, long nkeys, size_t body_bytes, int chunk)
{
    long t = NUM2LONG(threads);
    if (t == 0) rb_raise(rb_eArgError, "threads must be at least 1, not 0");
    if (t < 0) t = (chunk || nkeys >= AUTO_MIN_KEYS) && body_bytes >= AUTO_MIN_BYTES ? -t : 1;
    if (t > MAX_THREADS) t = MAX_THREADS;
    if (t > nkeys / MIN_KEYS_PER_THREAD) t = nkeys / MIN_KEYS_PER_THREAD;
    return t < 1 ? 1 : (int)t;
}

/* A scatter round's lists hold about this many entries (16 MiB; each of
 * t sources keeps a list of its keys' entries for each of t owners). */
#define SCATTER_BUDGET ((size_t)1 << 21)

/* The threads for an add of nkeys keys: threads_for's, or 1 where the kind
 * has no parallel add or its cells are too few or too many for one. A
 * scatter's round shrinks with the square of the threads: it uses only as
 * many as keep MIN_KEYS_PER_THREAD keys each in a round (8 at k = 7). */
static int add_threads_for(const bloomc_batch *b, VALUE threads, long nkeys, int chunk)
{
    int t = threads_for(threads, nkeys, b->body_bytes, chunk);
    if (!b->scatter) return b->add_part ? t : 1;
    size_t lines = b->body_bytes / LINE, probes = b->probes ? b->probes : 1;
    while (t > 1 && (size_t)t * (size_t)t * probes * MIN_KEYS_PER_THREAD > SCATTER_BUDGET) t--;
    if (lines <= (size_t)t || (uint64_t)b->body_bytes * 8 >= BF_SCATTER_POSITIONS_MAX) return 1;
    return t;
}

/* Splits keys [from, from + n) evenly over t jobs like proto. */
static void split_keys(job *jobs, int t, const job *proto, long from, long n)
{
    for (int w = 0; w < t; w++) {
        jobs[w] = *proto;
        jobs[w].from = from + n * w / t;
        jobs[w].to = from + n * (w + 1) / t;
    }
}

typedef struct {
    const bloomc_batch *b;
    key_source src;
    long nkeys;
    VALUE fresh_keys; /* add_new's answer (Array keys only), or nil */
    int threads;
    bf_key_hash *h;
    uint8_t *fresh;
    uint64_t *entries; /* scatter's lists */
    uint8_t *spare;    /* a restamp's answers (a kind with a clock) */
} parallel_add_run;

static VALUE parallel_add(VALUE arg)
{
    parallel_add_run *r = (parallel_add_run *)arg;
    const bloomc_batch *b = r->b;
    int t = r->threads;
    long round = ROUND;
    size_t cap = 0, filled[MAX_THREADS * MAX_THREADS], probes = b->probes ? b->probes : 1;
    if (b->scatter) {
        if ((size_t)round > SCATTER_BUDGET / ((size_t)t * probes)) round = (long)(SCATTER_BUDGET / ((size_t)t * probes));
        if (round < t) round = t;
    }
    if (round > r->nkeys) round = r->nkeys;
    /* Here, under rb_ensure: a NoMemoryError still frees what came before. */
    r->h = ruby_xmalloc2((size_t)round, sizeof(bf_key_hash));
    r->fresh = ruby_xmalloc((size_t)round);
    if (b->scatter) {
        cap = ((size_t)round / (size_t)t + 1) * probes;
        r->entries = ruby_xmalloc2((size_t)t * (size_t)t * cap, sizeof(uint64_t));
        if (b->catch_up) r->spare = ruby_xmalloc((size_t)round);
    }
    job jobs[MAX_THREADS];
    for (long from = 0; from < r->nkeys;) {
        long n = r->nkeys - from < round ? r->nkeys - from : round;
        job proto = {.b = b, .src = r->src, .base = from, .h = r->h, .out = r->fresh};
        memset(r->fresh, 0, (size_t)n);
        split_keys(jobs, t, &proto, from, n);
        if (b->scatter) {
            for (int w = 0; w < t; w++) {
                jobs[w].entries = r->entries;
                jobs[w].cap = cap;
                jobs[w].filled = filled;
                jobs[w].parts = t;
                jobs[w].self = w;
            }
            if (b->catch_up) b->catch_up(b->filter);
            run_jobs(jobs, t, scatter_job);
            run_jobs(jobs, t, apply_job);
        } else {
            run_jobs(jobs, t, hash_job);
            for (int w = 0; w < t; w++) {
                jobs[w].from = 0;
                jobs[w].to = n;
                jobs[w].lo = (b->body_bytes * (size_t)w / (size_t)t) & ~(size_t)(LINE - 1);
                jobs[w].hi = w + 1 == t ? b->body_bytes : (b->body_bytes * (size_t)(w + 1) / (size_t)t) & ~(size_t)(LINE - 1);
            }
            run_jobs(jobs, t, add_job);
        }
        uint64_t fresh = 0;
        for (long i = 0; i < n; i++) fresh += r->fresh[i];
        /* A tick came due during the round: a second pass stamps its keys
         * with the new slot, its answers set aside. */
        if (b->scatter && b->catch_up && b->catch_up(b->filter)) {
            for (int w = 0; w < t; w++) jobs[w].out = r->spare;
            run_jobs(jobs, t, apply_job);
        }
        if (b->count) *b->count += (uint64_t)n;
        if (b->distinct) *b->distinct += fresh;
        /* Last: a NoMemoryError here leaves the cells and counts whole. */
        if (!NIL_P(r->fresh_keys))
            for (long i = 0; i < n; i++)
                if (r->fresh[i]) rb_ary_push(r->fresh_keys, r->src.keys[from + i]);
        from += n;
    }
    return Qnil;
}

static VALUE free_parallel_add(VALUE arg)
{
    parallel_add_run *r = (parallel_add_run *)arg;
    ruby_xfree(r->h);
    ruby_xfree(r->fresh);
    ruby_xfree(r->entries);
    ruby_xfree(r->spare);
    ruby_xfree((void *)r->src.starts);
    return Qnil;
}

/* Adds src's nkeys keys on t threads (b->add_part); add_new's Array of the
 * new ones in fresh_keys, unless it is nil. Frees src.starts. */
static void add_in_parallel(const bloomc_batch *b, key_source src, long nkeys, VALUE fresh_keys, int t)
{
    parallel_add_run r = {.b = b, .src = src, .nkeys = nkeys, .fresh_keys = fresh_keys, .threads = t};
    rb_ensure(parallel_add, (VALUE)&r, free_parallel_add, (VALUE)&r);
}

/* A lookup of every key on t threads; the mode's answer. */
static VALUE parallel_lookup(const bloomc_batch *b, VALUE keys, int mode, int t)
{
    long len = RARRAY_LEN(keys);
    key_source src = {.keys = RARRAY_CONST_PTR(keys)};
    int decided = 0;
    job jobs[MAX_THREADS];
    if (mode != BLOOMC_BATCH_RESULTS) {
        job proto = {.b = b, .src = src, .mode = mode, .decided = &decided};
        split_keys(jobs, t, &proto, 0, len);
        run_jobs(jobs, t, lookup_job);
        long found = 0;
        for (int w = 0; w < t; w++) found += jobs[w].found;
        if (mode == BLOOMC_BATCH_COUNT) return LONG2NUM(found);
        return RBOOL(mode == BLOOMC_BATCH_ALL ? !decided : decided);
    }
    /* The answers go straight into the result Array's memory: true and false
     * are immediates, so no write barrier is needed. */
    VALUE results = rb_ary_new_capa(len);
    uint8_t *out = ruby_xmalloc((size_t)len);
    job proto = {.b = b, .src = src, .out = out};
    split_keys(jobs, t, &proto, 0, len);
    run_jobs(jobs, t, lookup_job);
    VALUE answers[GROUP];
    for (long i = 0; i < len;) {
        long n = len - i < GROUP ? len - i : GROUP;
        for (long k = 0; k < n; k++) answers[k] = RBOOL(out[i + k]);
        rb_ary_cat(results, answers, n);
        i += n;
    }
    ruby_xfree(out);
    return results;
}

static VALUE keys_arg(VALUE keys)
{
    Check_Type(keys, T_ARRAY);
    return keys;
}

VALUE bloomc_batch_add(const bloomc_batch *b, VALUE keys, VALUE collect, VALUE threads)
{
    keys_arg(keys);
    int t = add_threads_for(b, threads, RARRAY_LEN(keys), 0);
    /* Every key is checked before the first is added, so a bad key leaves the
     * filter as it was. */
    int plain = check_key_types(keys);
    VALUE fresh_keys = RTEST(collect) ? rb_ary_new() : Qnil;
    if (t > 1 && plain) {
        key_source src = {.keys = RARRAY_CONST_PTR(keys)};
        add_in_parallel(b, src, RARRAY_LEN(keys), fresh_keys, t);
        RB_GC_GUARD(keys);
        return fresh_keys;
    }
    bf_key_hash h[GROUP];
    uint8_t fresh[GROUP];
    for (long from = 0; from < RARRAY_LEN(keys);) {
        size_t n = hash_group(keys, from, b, h);
        b->add(b->filter, h, n, NIL_P(fresh_keys) ? NULL : fresh);
        if (!NIL_P(fresh_keys))
            for (size_t i = 0; i < n; i++)
                if (fresh[i]) rb_ary_push(fresh_keys, RARRAY_AREF(keys, from + (long)i));
        from += (long)n;
    }
    RB_GC_GUARD(keys);
    return fresh_keys;
}

VALUE bloomc_batch_lookup(const bloomc_batch *b, VALUE keys, VALUE mode_arg, VALUE threads)
{
    keys_arg(keys);
    int mode = NUM2INT(mode_arg);
    if (mode < BLOOMC_BATCH_RESULTS || mode > BLOOMC_BATCH_ANY) rb_raise(rb_eArgError, "unknown batch mode %d", mode);
    int t = b->lookup_shared ? threads_for(threads, RARRAY_LEN(keys), b->body_bytes, 0) : 1;
    /* all_include? and any_include? can answer before the last key: checking
     * every key first keeps a bad key raising wherever it sits. The other
     * lookups hash every key, which raises just the same, and skip the extra
     * pass over the keys, unless they will run on several threads. */
    if (t > 1 || mode == BLOOMC_BATCH_ALL || mode == BLOOMC_BATCH_ANY) {
        if (check_key_types(keys) && t > 1) {
            VALUE answer = parallel_lookup(b, keys, mode, t);
            RB_GC_GUARD(keys);
            return answer;
        }
    }
    VALUE results = mode == BLOOMC_BATCH_RESULTS ? rb_ary_new_capa(RARRAY_LEN(keys)) : Qnil;
    long found = 0;
    bf_key_hash h[GROUP];
    uint8_t out[GROUP];
    for (long from = 0; from < RARRAY_LEN(keys);) {
        size_t n = hash_group(keys, from, b, h);
        b->lookup(b->filter, h, n, out);
        from += (long)n;
        if (mode == BLOOMC_BATCH_RESULTS) {
            /* true and false are immediates: no write barrier, and one append
             * per group instead of one call per key */
            VALUE answers[GROUP];
            for (size_t i = 0; i < n; i++) answers[i] = RBOOL(out[i]);
            rb_ary_cat(results, answers, (long)n);
        } else {
            size_t group_found = 0;
            for (size_t i = 0; i < n; i++) group_found += out[i];
            if (mode == BLOOMC_BATCH_ALL && group_found < n) return Qfalse;
            if (mode == BLOOMC_BATCH_ANY && group_found > 0) return Qtrue;
            found += (long)group_found;
        }
    }
    RB_GC_GUARD(keys);
    switch (mode) {
    case BLOOMC_BATCH_RESULTS: return results;
    case BLOOMC_BATCH_COUNT: return LONG2NUM(found);
    case BLOOMC_BATCH_ALL: return Qtrue;
    default: return Qfalse;
    }
}

/* The first length bytes of chunk, checked, for a method that appends
 * some of its lines to out (another String). Strings only, not to_str: a
 * converted copy would not be the chunk its caller keeps alive. */
static const char *lines_of(VALUE chunk, VALUE out, VALUE length)
{
    Check_Type(chunk, T_STRING);
    Check_Type(out, T_STRING);
    rb_str_modify(out);
    if (chunk == out) rb_raise(rb_eArgError, "the chunk and the output must be different Strings");
    long n = NUM2LONG(length);
    if (n < 0 || n > RSTRING_LEN(chunk)) rb_raise(rb_eArgError, "length %ld outside the chunk's %ld bytes", n, RSTRING_LEN(chunk));
    return RSTRING_PTR(chunk);
}

/* The private entry points of Bloomc::Batch (lib/bloomc/batch.rb). */
/* The lines of chunk's first length bytes (each ending in '\n', the last
 * perhaps not) whose key, the line without its '\n', was new to the
 * filter (add?): each line is added, and the new ones are appended to out,
 * with a '\n' where they had none. In order, so a line repeated within the
 * chunk is written once. (`bloomc dedup`.) */
VALUE bloomc_batch_dedup(const bloomc_batch *b, VALUE chunk, VALUE out, VALUE length)
{
    const char *p = lines_of(chunk, out, length), *end = p + NUM2LONG(length);
    while (p < end) {
        const char *newline = memchr(p, '\n', (size_t)(end - p));
        const char *key_end = newline ? newline : end;
        bf_key_hash h = bf_key_hash_bytes((const uint8_t *)p, (size_t)(key_end - p), b->seed, b->kind);
        uint8_t fresh;
        b->add(b->filter, &h, 1, &fresh); /* add? in one pass over the cells */
        if (fresh) {
            rb_str_cat(out, p, key_end - p);
            rb_str_cat(out, "\n", 1);
        }
        p = newline ? newline + 1 : end;
    }
    RB_GC_GUARD(chunk);
    return out;
}

bloomc_batch_lines bloomc_batch_lines_of(VALUE chunk, VALUE length)
{
    Check_Type(chunk, T_STRING);
    long n = NUM2LONG(length);
    if (n < 0 || n > RSTRING_LEN(chunk)) rb_raise(rb_eArgError, "length %ld outside the chunk's %ld bytes", n, RSTRING_LEN(chunk));
    bloomc_batch_lines lines = {chunk, RSTRING_PTR(chunk), n, 0};
    for (const char *p = lines.text, *end = p + n; p < end; lines.count++) {
        const char *newline = memchr(p, '\n', (size_t)(end - p));
        p = newline ? newline + 1 : end;
    }
    return lines;
}

/* The lines of a chunk added as keys (each line without its '\n'; the last
 * may lack one), as add_all of them would; returns how many. On several
 * threads as add_all, where the kind can. (`bloomc build`: no Ruby object
 * is made for a key.) */
VALUE bloomc_batch_add_lines(const bloomc_batch *b, const bloomc_batch_lines *chunk_lines, VALUE threads)
{
    const char *text = chunk_lines->text, *end = text + chunk_lines->length;
    long lines = chunk_lines->count;
    int t = add_threads_for(b, threads, lines, 1);
    if (t > 1) {
        /* starts[i + 1] is one past line i's '\n' (or past the chunk's end
         * for a last line without one). */
        size_t *starts = ruby_xmalloc2((size_t)lines + 1, sizeof(size_t));
        long i = 0;
        starts[0] = 0;
        for (const char *p = text; p < end; i++) {
            const char *newline = memchr(p, '\n', (size_t)(end - p));
            p = newline ? newline + 1 : end;
            starts[i + 1] = newline ? (size_t)(p - text) : (size_t)(end - text) + 1;
        }
        key_source src = {.text = text, .starts = starts};
        add_in_parallel(b, src, lines, Qnil, t); /* frees starts */
    } else {
        bf_key_hash h[GROUP];
        size_t k = 0;
        for (const char *p = text; p < end;) {
            const char *newline = memchr(p, '\n', (size_t)(end - p));
            const char *key_end = newline ? newline : end;
            h[k++] = bf_key_hash_bytes((const uint8_t *)p, (size_t)(key_end - p), b->seed, b->kind);
            if (k == GROUP) {
                b->add(b->filter, h, k, NULL);
                k = 0;
            }
            p = newline ? newline + 1 : end;
        }
        if (k) b->add(b->filter, h, k, NULL);
    }
    VALUE chunk = chunk_lines->chunk;
    RB_GC_GUARD(chunk);
    return LONG2NUM(lines);
}

static int key_held(const bloomc_batch *b, const char *from, const char *to)
{
    bf_key_hash h = bf_key_hash_bytes((const uint8_t *)from, (size_t)(to - from), b->seed, b->kind);
    uint8_t found;
    b->lookup(b->filter, &h, 1, &found);
    return found != 0;
}

/* Whether any chosen field of the line [from, to) is held: fields are
 * split at delimiter, and field i (from 0) is chosen when chosen is NULL or
 * chosen[i] is not 0; the first field found ends the search. */
static int field_held(const bloomc_batch *b, const char *from, const char *to, int delimiter, const char *chosen, long nchosen)
{
    for (long field = 0;; field++) {
        const char *stop = memchr(from, delimiter, (size_t)(to - from));
        const char *field_end = stop ? stop : to;
        if ((!chosen || (field < nchosen && chosen[field])) && key_held(b, from, field_end)) return 1;
        if (!stop || (chosen && field + 1 >= nchosen)) return 0; /* no line or no chosen field left */
        from = stop + 1;
    }
}

/* The lines of chunk's first length bytes that the filter holds (invert:
 * those it does not), appended to out with a '\n' each; returns how many.
 * A line's key is the line without its '\n'; with a delimiter (a byte),
 * a line is held when any of its chosen fields is: fields is a String whose
 * byte i is not 0 when field i + 1 is chosen, or nil for every field.
 * (`bloomc query`: no Ruby object is made for a key.) */
VALUE bloomc_batch_query(const bloomc_batch *b, VALUE chunk, VALUE out, VALUE length, VALUE delimiter, VALUE fields, VALUE invert)
{
    const char *p = lines_of(chunk, out, length), *end = p + NUM2LONG(length);
    int split = !NIL_P(delimiter);
    int byte = split ? NUM2INT(delimiter) : 0;
    if (split && (byte < 0 || byte > 255 || byte == '\n')) rb_raise(rb_eArgError, "a delimiter is one byte other than a newline, not %d", byte);
    const char *chosen = NULL;
    long nchosen = 0;
    if (!NIL_P(fields)) {
        StringValue(fields);
        chosen = RSTRING_PTR(fields);
        nchosen = RSTRING_LEN(fields);
    }
    int inverted = RTEST(invert);
    long printed = 0;
    while (p < end) {
        const char *newline = memchr(p, '\n', (size_t)(end - p));
        const char *line_end = newline ? newline : end;
        int held = split ? field_held(b, p, line_end, byte, chosen, nchosen) : key_held(b, p, line_end);
        if (held != inverted) {
            rb_str_cat(out, p, line_end - p);
            rb_str_cat(out, "\n", 1);
            printed++;
        }
        p = newline ? newline + 1 : end;
    }
    RB_GC_GUARD(chunk);
    RB_GC_GUARD(fields);
    return LONG2NUM(printed);
}

void bloomc_define_batch_methods(VALUE klass, VALUE (*add)(VALUE, VALUE, VALUE, VALUE), VALUE (*lookup)(VALUE, VALUE, VALUE, VALUE))
{
    rb_define_private_method(klass, "batch_add", add, 3);
    if (lookup) rb_define_private_method(klass, "batch_lookup", lookup, 3); /* NULL: the kind defines its own */
}
