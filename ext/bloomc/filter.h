/* One descriptor per filter kind (in the manner of ruby/digest's metadata
 * struct), and the object every filter class wraps. filter.c implements the
 * methods every kind shares once, through the descriptor; a kind's binding
 * (<kind>_bloom_filter.c) keeps its hot add and include? and its own methods.
 *
 * A kind's cells (bits, counters, levels, layers) are one run of bytes in the
 * order of the file format's body (docs/FORMAT.md): a heap allocation of the
 * object's, or the body of a mapped file. Copies, dumps, ==, hash, clear and
 * memsize work on that run; the descriptor says how the kind's core points
 * into it and what its saved fields are. */
#ifndef BLOOMC_FILTER_H
#define BLOOMC_FILTER_H

#include "bloomc.h"
#include "batch.h"   /* the batch hooks' bloomc_batch */
#include "mapping.h" /* bloomc_filter starts with its mapping */

typedef struct bloomc_kind bloomc_kind;

/* The object a filter class wraps. */
typedef struct {
    bloomc_mapping map; /* first: mapping.c reads it */
    const bloomc_kind *kind;
    void *allocation; /* the heap cells' allocation (NULL when mapped) */
    uint8_t *body;    /* the cells: in allocation, aligned, or in the mapping;
                       * NULL until set up */
    size_t body_bytes;
    size_t allocation_bytes; /* of allocation: from bf_pages when >= BLOOMC_PAGES_MIN */
    int committed;           /* every page of the heap cells is committed (filter.c) */
    uint64_t core[];         /* the kind's state (core_size bytes), 8-byte aligned */
} bloomc_filter;

/* What the shared readers (m, k, seed, size, distinct) report. */
typedef struct {
    uint64_t m;
    uint64_t *count;    /* the adds (size, with BLOOMC_SIZE; a parallel add
                         * adds to it); clear zeroes it */
    uint64_t *distinct; /* with BLOOMC_DISTINCT; clear zeroes it */
    uint32_t k, seed;
    bf_hash_kind hash;
    unsigned width;     /* a counter's bits, with BLOOMC_WIDTH */
    uint64_t saturated; /* counters at their maximum, with BLOOMC_SATURATED */
} bloomc_numbers;

typedef void bloomc_many_fn(void *core, const bf_key_hash *h, size_t n, uint8_t *out);

/* A method of one key (add, include?, ...), as rb_define_method takes it. */
typedef VALUE bloomc_key_method(VALUE self, VALUE key);

/* A kind's hot methods (BLOOMC_HOT_METHODS): direct calls of its core,
 * which bloomc_define_kind defines in place of Filter's. */
typedef struct {
    bloomc_key_method *add, *add_p;
    bloomc_key_method *include_p; /* NULL: the kind defines its own */
} bloomc_hot_methods;

struct bloomc_kind {
    rb_data_type_t type; /* .parent is bloomc_filter_type; set by BLOOMC_KIND_TYPE */
    int format_kind;     /* its number in a file's header (docs/FORMAT.md): never reused */
    /* The private setup(...) of setup_arity arguments, which initialize
     * calls once the Ruby layer has settled them, and the hot methods. */
    VALUE(*setup)
    (ANYARGS);
    int setup_arity;
    const bloomc_hot_methods *hot;
    size_t core_size;
    /* The core's first state_size bytes are the filter's state, which
     * setups, copies and loads replace and unmap zeroes; the rest is the
     * object's own and stays (the continuous filter's clock schedule and
     * the Clock handles on it). 0: all of it. */
    size_t state_size;
    size_t alignment; /* of the cells: a power of two (0: 1) */
    int nfields;      /* the saved fields (docs/FORMAT.md), at most BLOOMC_FIELDS_MAX;
                       * with nfields_in, the first ones, which say how many */
    /* The first shape_fields saved fields are the shape and hashing that
     * combine needs the same on both sides (0: the same_shape hook says);
     * == compares the first equal_fields (0: all) and the cells. */
    int shape_fields, equal_fields;
    /* == and hash also leave out the last unequal_tail saved fields (what
     * says when a save was, not what the filter is). */
    int unequal_tail;
    /* No cells is a filter (one with no generation yet): load's and
     * install's 0 bytes are not "too many for this machine". */
    int empty_cells;
    unsigned methods; /* which of the optional shared methods the class has */
    /* The saved fields of core into out[0 .. nfields). */
    void (*save)(const void *core, uint64_t *out);
    /* Saved fields into core (cells not attached), each checked
     * (Bloomc::FormatError); returns the bytes its cells take (0: too many
     * for this machine). */
    size_t (*load)(void *core, const uint64_t *fields);
    /* Points core's cells into body. saved (BLOOMC_SAVED or
     * BLOOMC_SAVED_OPEN): the cells come from a dump or a file (anywhere):
     * also derives what they imply and returns what is wrong with them, or
     * NULL. */
    const char *(*attach)(void *core, uint8_t *body, int saved);
    /* After cells saved open (BLOOMC_SAVED_OPEN) were loaded into the
     * filter's own (import_core; a mapped writer's clear_stale_cells, once
     * its shape is checked): puts right what the writer's recorded fields
     * do not explain. NULL: nothing to. */
    void (*recover)(void *core);
    void (*numbers)(void *core, bloomc_numbers *out);
    /* Brings core up to date before a shared method reads it, and before
     * each add, lookup and group of a batch (a mapped reader follows its
     * writer's clock); NULL: nothing to do. */
    void (*refresh)(void *core, const bloomc_mapping *map);
    /* A mapped reader's state as of one instant, for what reads it whole
     * (copies, dumps, ==, hash), where its writer changes more than cells
     * under it (the continuous filter's clock, which a tick records before
     * it clears what it expired): a copy of core (core_size bytes) into
     * copy, its cells into cells (the body's bytes), consistent with each
     * other. NULL: the cells as they stand. */
    void (*snapshot)(void *core, const bloomc_mapping *map, void *copy, uint8_t *cells);
    /* A kind whose keys age with time. catch_up brings core to the time
     * now, in seconds on the kind's own timeline, and returns how many steps
     * that took (0: none); what a step is is the kind's: the continuous
     * filter applies the ticks due (a bloomc_schedule, clock.h), a filter of
     * time windows drops the generations that have ended. now is that time
     * for an add (for_add) or a lookup: a clock the kind reads
     * (bloomc_monotonic_now; for lookups the cheaper bloomc_lookup_now), or,
     * for a clock of the user's (a Ruby callable, which the Ruby layer
     * calls), the time that layer last gave the core; NaN: the clock stands
     * still. now never calls Ruby: batch.c catches up between rounds of
     * native threads. filter.c applies them before every add and lookup,
     * each group of keys of a batch and each round of a parallel add, and
     * once before a parallel lookup, whose threads then only read; never on
     * a frozen filter, whose clock stands still (Ractors share it). A kind's
     * hot methods get the same from bloomc_filter_current. NULL: no clock. */
    double (*now)(const void *core, int for_add);
    uint64_t (*catch_up)(void *core, double now);
    /* combine's precondition when shape_fields is 0: the same shape and hashing. */
    int (*same_shape)(const void *a, const void *b);
    /* core |= other (intersect 0) or core &= other. */
    void (*combine)(void *core, const void *other, int intersect);
    uint64_t (*occupied)(const void *core); /* non-zero cells (NULL: the kind's own) */
    /* After clear has zeroed the cells, count and distinct: the rest (NULL:
     * nothing). */
    void (*cleared)(void *core);
    /* One hashed key: add (1 when it was new; report 0: the answer is not
     * used) and lookup, for the batch methods; or n keys at a time, which
     * take precedence. Without either add, batch adds raise
     * Bloomc::UnsupportedError. */
    int (*add_one)(void *core, bf_key_hash h, int report);
    int (*contains_one)(const void *core, bf_key_hash h);
    bloomc_many_fn *add_many, *contains_many;
    /* Kinds that count a key's adds: delete (and remove) takes one away (1
     * when there was one to take), and count says how many there are. NULL:
     * the class has neither. */
    int (*remove_one)(void *core, bf_key_hash h);
    uint64_t (*count_one)(const void *core, bf_key_hash h);
    bloomc_key_method *hot_delete, *hot_count; /* the same, direct */
    /* A lookup that writes nothing, where the ones above tidy what they
     * read (the continuous filter resets expired buckets): for frozen
     * filters and batch.c's threads. NULL: those write nothing. */
    bloomc_many_fn *contains_readonly;
    /* add_many for one thread of several (bloomc_batch's add_part); NULL:
     * batch adds run on one thread. A kind with one must keep its count
     * and distinct where numbers points, and change nothing else on add. */
    void (*add_part)(void *core, const bf_key_hash *h, size_t n, uint8_t *out, size_t lo, size_t hi);
    /* Or by scatter (bloomc_batch's scatter and apply), at most k entries a key. */
    void (*scatter)(const void *core, const bf_key_hash *h, size_t n, size_t first, unsigned parts, uint64_t **next);
    void (*apply)(void *core, const uint64_t *entries, size_t n, uint8_t *out);
    /* How many keys new to the filter fit before an add could raise
     * (UINT64_MAX: any number); a batch of more is undone when it fails.
     * NULL: an add never raises. */
    uint64_t (*room)(const void *core, uint64_t n);
    /* A kind whose adds may fail part way through a batch can journal them
     * instead: journal_start before a batch add or dedup_lines, undo on any
     * way out before its end, end after either. NULL: a batch add of more
     * keys than room is run on a copy of the cells (and dedup_lines is not
     * undone). */
    void (*journal_start)(void *core);
    void (*journal_undo)(void *core);
    void (*journal_end)(void *core);
    int mappable; /* a file can hold it (Bloomc::Mapped) */
    /* At the object's end: 1 when the struct must outlive it (a handle still
     * points at it, and frees it). NULL: never. */
    int (*outlives)(void *core);
    /* A kind whose saved fields vary in number: how many there are, from the
     * first nfields of them (checked: Bloomc::FormatError). NULL: nfields. */
    int (*nfields_in)(const uint64_t *fields);
    /* The pages a key's add touches, for the batch prefault (0: k, each
     * probe on a page of its own). */
    int pages_per_key;
};

/* The most saved fields of any kind (the sliding filter's: 8, 3 for each of
 * up to 9 generations, 4 for each of up to 64 layers, and 2 that time the
 * save; the scalable filter has at most 265). */
#define BLOOMC_FIELDS_MAX 293

/* attach's saved: cells from outside, saved whole or by a writer that had
 * the file open, whose cells may be newer than the fields it recorded (a
 * continuous filter's buckets than its clock): the kind accepts what that
 * explains, and its recover hook puts it right on cells of the filter's
 * own. */
enum {
    BLOOMC_SAVED = 1,     /* a dump, a closed file */
    BLOOMC_SAVED_OPEN = 2 /* a file open for writing (Format::FLAG_OPEN) */
};

/* The optional shared methods (bloomc_kind.methods). */
enum {
    BLOOMC_K = 1,          /* k */
    BLOOMC_SIZE = 2,       /* size */
    BLOOMC_DISTINCT = 4,   /* distinct and distinct= (private) */
    BLOOMC_HASH_KIND = 8,  /* hash_kind (private) */
    BLOOMC_WIDTH = 16,     /* width */
    BLOOMC_SATURATED = 32, /* saturated */
    BLOOMC_SHARED = BLOOMC_K | BLOOMC_SIZE
};

/* The parent of every kind's type: rb_check_typeddata(obj,
 * &bloomc_filter_type) accepts any filter. */
extern const rb_data_type_t bloomc_filter_type;
void bloomc_filter_free(void *ptr);
size_t bloomc_filter_memsize(const void *ptr);

/* A frozen filter is Ractor-shareable (Ractor.make_shareable): its struct
 * holds no VALUE, every method that writes calls rb_check_frozen, and a
 * lookup only reads the core and cells, so Ractors may read it at once. A
 * mapped filter is the exception: map_core gives it a type without the flag
 * (filter.c), since its file and mapping belong to the main Ractor. */
#define BLOOMC_KIND_TYPE(name) \
    { \
        .wrap_struct_name = "Bloomc::" name, \
        .function = {.dfree = bloomc_filter_free, .dsize = bloomc_filter_memsize, .dcompact = bloomc_mapping_compact}, \
        .parent = &bloomc_filter_type, \
        .flags = RUBY_TYPED_FREE_IMMEDIATELY | RUBY_TYPED_WB_PROTECTED | RUBY_TYPED_FROZEN_SHAREABLE, \
    }

/* add?'s answer from an add that says whether the key was new. */
static inline VALUE bloomc_add_p_result(VALUE self, int fresh)
{
    return fresh ? self : Qnil;
}

/* A kind's descriptor: its number in the file format, its type (named for
 * its class) and core, the hooks every binding names alike (setup, save, load, attach,
 * numbers and combine: static functions of the binding), and the rest as
 * designated initializers. */
#define BLOOMC_KIND(number, name, core_type, ...) \
    { \
        .type = BLOOMC_KIND_TYPE(name), .format_kind = number, .core_size = sizeof(core_type), \
        .setup = RUBY_METHOD_FUNC(setup), .save = save, .load = load, .attach = attach, .numbers = numbers, .combine = combine, \
        __VA_ARGS__ \
    }

NORETURN(void bloomc_filter_unready(VALUE self, const bloomc_filter *f));

/* The object behind self, of exactly this kind's class, or a TypeError (a
 * mapped filter's type is a child of the kind's: the full check finds it). */
static inline bloomc_filter *bloomc_filter_of(VALUE self, const bloomc_kind *kind)
{
    return bloomc_typed_data(self, &kind->type);
}

/* The core of an initialized, open filter (inline: every add and lookup
 * starts here); IOError once closed, TypeError before setup. */
static inline void *bloomc_filter_core(VALUE self, const bloomc_kind *kind)
{
    bloomc_filter *f = bloomc_filter_of(self, kind);
    if (RB_UNLIKELY(!f->body || f->map.closed)) bloomc_filter_unready(self, f);
    return f->core;
}

/* The object whose core this is (a handle that outlives the object frees it). */
static inline bloomc_filter *bloomc_filter_of_core(void *core)
{
    return (bloomc_filter *)((char *)core - offsetof(bloomc_filter, core));
}

/* The core as a reader sees it: refreshed (a mapped reader's clock brought
 * up to its writer's). Always inline, over a descriptor the compiler sees:
 * what a kind lacks costs nothing, and the hooks it has are inlined too
 * (called through the descriptor from a function of their own, GCC 12
 * turns them into direct calls only after it has stopped inlining). */
static inline __attribute__((always_inline)) void *bloomc_filter_refreshed(VALUE self, const bloomc_kind *kind)
{
    void *core = bloomc_filter_core(self, kind);
    if (kind->refresh) kind->refresh(core, &bloomc_filter_of_core(core)->map);
    return core;
}

/* The core as an add (for_add) or a lookup must see it: refreshed, and its
 * clock caught up unless the filter is frozen. */
static inline __attribute__((always_inline)) void *bloomc_filter_current(VALUE self, const bloomc_kind *kind, int for_add)
{
    void *core = bloomc_filter_refreshed(self, kind);
    if (kind->catch_up && !OBJ_FROZEN(self)) kind->catch_up(core, kind->now(core, for_add));
    return core;
}

/* The object of any filter kind, initialized and open (refreshed). */
bloomc_filter *bloomc_filter_get(VALUE self);
/* The object, for setup and copies: not frozen, open, not mapped
 * (ArgumentError). */
bloomc_filter *bloomc_filter_replaceable(VALUE self, const bloomc_kind *kind);
/* Gives the filter the state of core (fields set, cells not attached):
 * cells of nbytes, zeroed, then the first src_bytes of src copied in. The old
 * cells are freed only once the new ones exist (ArgumentError when nbytes is
 * 0: too many for this machine). */
void bloomc_filter_install(VALUE self, const void *core, size_t nbytes, const uint8_t *src, size_t src_bytes);
/* The same for a filter known by its struct (a kind's hook that has only the
 * core: bloomc_filter_of_core). */
void bloomc_filter_install_at(bloomc_filter *f, const void *core, size_t nbytes, const uint8_t *src, size_t src_bytes);

/* The object, for map_core: not frozen, new, and allocated with the type of
 * a mapped filter (allocate_mapped), which keeps a frozen one from being
 * shared between Ractors (ArgumentError otherwise). */
bloomc_filter *bloomc_filter_mappable(VALUE self, const bloomc_kind *kind);
/* Gives the filter (from bloomc_filter_mappable) the cells at body_offset in
 * the mapping base of the file fd (length bytes, made by bloomc_map_file). */
void bloomc_filter_map(VALUE self, bloomc_filter *f, uint8_t *base, size_t length, size_t body_offset, size_t body_bytes,
                       int fd, int writable);

/* The bits set in the cells: the occupied hook of a kind whose cells are
 * plain bits. */
uint64_t bloomc_occupied_bits(const void *core);
/* The combine hook of a kind whose core starts with its bits (a bf_bits):
 * the bits merged, and the add counts. */
void bloomc_combine_bits(void *core, const void *other, int intersect);

/* Cells of at least this many bytes are an anonymous mapping of their own
 * (bf_pages.h): one huge page. Smaller ones stay on Ruby's heap, where
 * AddressSanitizer checks every access (it does not see into a mapping),
 * and where the gain would be small: below 2 MiB a filter holds at most 512
 * pages, faulted in well under 5 ms. */
#define BLOOMC_PAGES_MIN ((size_t)2 << 20)

/* Whether Bloomc.use_huge_pages! has run: new large cells get MADV_HUGEPAGE. */
extern int bloomc_huge_pages;

/* Commits every page of f's cells now (a mapped file's: for writing when
 * mapped writable, which allocates a sparse file's holes; else for
 * reading). NoMemoryError or SystemCallError when the kernel cannot. */
void bloomc_filter_commit(bloomc_filter *f);
/* Before a batch of nkeys adds: commits the cells in bulk when the batch
 * would fault most of their pages in one at a time anyway (filter.c). */
void bloomc_filter_prefault_for_batch(bloomc_filter *f, size_t nkeys);

/* Bloomc's private huge-page switch (filter.c; lib/bloomc/pages.rb). */
void bloomc_init_pages(VALUE mBloomc);

/* Bloomc::Filter, the base class of every kind (filter.c). */
void bloomc_init_filter(void);
/* Makes klass, a subclass of Bloomc::Filter, the class of kind: its
 * allocator, setup and hot methods, and none of Filter's methods that kind
 * lacks. (Each binding defines its class itself, where RDoc finds it.) */
void bloomc_define_kind(VALUE klass, const bloomc_kind *kind);

/* A kind's hot methods, add (and <<), add? and include? (and []), as direct
 * calls of its core in place of Filter's, which go through the descriptor
 * and are documented there (RDoc does not see these): hot_methods, for the
 * descriptor's .hot. Before it, the binding defines static key_hash(core,
 * key), add_one(core, h, report) and contains_one(core, h), which the
 * compiler inlines into each. BLOOMC_HOT_ADDS is the adds alone, for a kind
 * whose lookup needs more than its core (the continuous filter's: whether
 * it is frozen), given as include_p. */
#define BLOOMC_HOT_ADDS(core_type, kind, include_p) \
    static VALUE hot_add(VALUE self, VALUE key) \
    { \
        rb_check_frozen(self); \
        core_type *f = bloomc_filter_current(self, &(kind), 1); \
        add_one(f, key_hash(f, key), 0); \
        return self; \
    } \
    static VALUE hot_add_p(VALUE self, VALUE key) \
    { \
        rb_check_frozen(self); \
        core_type *f = bloomc_filter_current(self, &(kind), 1); \
        return bloomc_add_p_result(self, add_one(f, key_hash(f, key), 1)); \
    } \
    static const bloomc_hot_methods hot_methods = {hot_add, hot_add_p, include_p};
/* A kind with remove_one and count_one hooks makes its delete and count
 * direct calls too (the binding's static remove_one and count_one,
 * inlined): the descriptor's hot_delete and hot_count. */
#define BLOOMC_HOT_DELETE(core_type, kind) \
    static VALUE hot_delete(VALUE self, VALUE key) \
    { \
        rb_check_frozen(self); \
        core_type *f = bloomc_filter_core(self, &(kind)); \
        return RBOOL(remove_one(f, key_hash(f, key))); \
    }
#define BLOOMC_HOT_COUNT(core_type, kind) \
    static VALUE hot_count(VALUE self, VALUE key) \
    { \
        const core_type *f = bloomc_filter_core(self, &(kind)); \
        return ULL2NUM(count_one(f, key_hash(f, key))); \
    }
#define BLOOMC_HOT_METHODS(core_type, kind) \
    static VALUE hot_include_p(VALUE self, VALUE key) \
    { \
        const core_type *f = bloomc_filter_current(self, &(kind), 0); \
        return RBOOL(contains_one(f, key_hash(f, key))); \
    } \
    BLOOMC_HOT_ADDS(core_type, kind, hot_include_p)

#endif
