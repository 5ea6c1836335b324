/* Shared declarations of the Ruby bindings (the bf_* core knows nothing of Ruby). */
#ifndef BLOOMC_H
#define BLOOMC_H

#include <ruby.h>
/* Only what every binding shares: each binding includes its own core. */
#include "bf_bits.h"
#include "bf_buckets.h"
#include "bf_probe.h"

#ifndef RBOOL /* public from Ruby 3.2 on */
#define RBOOL(v) ((v) ? Qtrue : Qfalse)
#endif

extern VALUE bloomc_mBloomc;
extern VALUE bloomc_eUnsupportedError; /* Bloomc::UnsupportedError */
extern VALUE bloomc_eCapacityError;    /* Bloomc::CapacityError: a filter that cannot take a key */
extern VALUE bloomc_eFormatError;      /* Bloomc::FormatError */

/* rb_check_typeddata with the common case inline: a method's receiver is
 * nearly always exactly our type or its child (a mapped filter's, filter.c),
 * and the full check is a call that walks the type's parents on every add
 * and include?. */
static inline void *bloomc_typed_data(VALUE obj, const rb_data_type_t *type)
{
    if (RB_TYPE_P(obj, T_DATA) && RTYPEDDATA_P(obj)) {
        const rb_data_type_t *t = RTYPEDDATA_TYPE(obj);
        if (t == type || t->parent == type) return RTYPEDDATA_DATA(obj);
    }
    return rb_check_typeddata(obj, type);
}

/* keys.c: the hash of a filter key (String by its bytes, Symbol by its name,
 * Integer by its value); TypeError for anything else. */
bf_key_hash bloomc_key_hash(VALUE key, uint32_t seed, bf_hash_kind kind);

/* batch.c: add_all and the batch lookups over an Array of keys, for any
 * filter that can add and look up hashed keys n at a time. */
typedef struct {
    void *filter;
    uint32_t seed;
    bf_hash_kind kind;
    /* out, when not NULL: 1 for each key that was new (add?'s answer) */
    void (*add)(void *filter, const bf_key_hash *h, size_t n, uint8_t *out);
    void (*lookup)(void *filter, const bf_key_hash *h, size_t n, uint8_t *out);
    /* Parallel batches (NULL: serial only). add_part adds keys as add but
     * sets only the cells in body bytes [lo, hi), and sets out[i] to 1
     * (never to 0) when key i changed one there; the caller then adds to
     * *count and *distinct (when not NULL). lookup_shared: a lookup that
     * only reads, so that several threads may call it at once. */
    void (*add_part)(void *filter, const bf_key_hash *h, size_t n, uint8_t *out, size_t lo, size_t hi);
    /* Or, parallel adds by scatter (bf_batch.h): scatter writes the entries
     * of keys h[0 .. n) (indexes from first) to next[owner], for parts
     * owners, at most probes a key; apply sets one owner's entries. */
    void (*scatter)(const void *filter, const bf_key_hash *h, size_t n, size_t first, unsigned parts, uint64_t **next);
    void (*apply)(void *filter, const uint64_t *entries, size_t n, uint8_t *out);
    unsigned probes;
    /* A clock's kind: catch_up applies the ticks due, before each round of a
     * parallel add and after it; when it applied any after, the round is
     * applied again, stamping its keys with the newer slot (late rather than
     * early: a key falls short of its TTL by at most that second pass). */
    int (*catch_up)(void *filter);
    void (*lookup_shared)(void *filter, const bf_key_hash *h, size_t n, uint8_t *out);
    uint64_t *count, *distinct;
    size_t body_bytes;
} bloomc_batch;

/* What a batch lookup returns (the mode argument, as a Fixnum). */
enum {
    BLOOMC_BATCH_RESULTS,
    BLOOMC_BATCH_COUNT,
    BLOOMC_BATCH_ALL,
    BLOOMC_BATCH_ANY
};

/* add_all (collect false: returns nil) and add_new (collect true: returns
 * the Array of the keys that were new, in order). */
VALUE bloomc_batch_add(const bloomc_batch *b, VALUE keys, VALUE collect, VALUE threads);
VALUE bloomc_batch_lookup(const bloomc_batch *b, VALUE keys, VALUE mode, VALUE threads);
VALUE bloomc_batch_dedup(const bloomc_batch *b, VALUE chunk, VALUE out, VALUE length);
/* The lines of a chunk's first length bytes (checked), and how many. */
typedef struct {
    VALUE chunk;
    const char *text;
    long length, count;
} bloomc_batch_lines;
bloomc_batch_lines bloomc_batch_lines_of(VALUE chunk, VALUE length);
VALUE bloomc_batch_add_lines(const bloomc_batch *b, const bloomc_batch_lines *lines, VALUE threads);
VALUE bloomc_batch_query(const bloomc_batch *b, VALUE chunk, VALUE out, VALUE length, VALUE delimiter, VALUE fields, VALUE invert);
void bloomc_define_batch_methods(VALUE klass, VALUE (*add)(VALUE, VALUE, VALUE, VALUE), VALUE (*lookup)(VALUE, VALUE, VALUE, VALUE));
/* add?'s answer from an add that says whether the key was new. */
static inline VALUE bloomc_add_p_result(VALUE self, int fresh)
{
    return fresh ? self : Qnil;
}

/* args.c: argument checks that raise clear Ruby exceptions. */
uint64_t bloomc_index_arg(VALUE pos, uint64_t size);                /* IndexError */
uint64_t bloomc_count_arg(VALUE v, const char *name, uint64_t max); /* ArgumentError */
uint32_t bloomc_uint32_arg(VALUE v, const char *name);              /* RangeError */
bf_hash_kind bloomc_hash_kind_arg(VALUE v);                         /* ArgumentError */
/* The private combine(other, op) of every filter: op is :union or
 * :intersection (ArgumentError otherwise), and same_shape must hold (the Ruby
 * layer names the difference first; this guards the memory). */
int bloomc_intersection_arg(VALUE op, int same_shape);
/* ruby_xcalloc(nbytes, 1) for the cells of what (printf-style, formatted
 * only on failure): a NoMemoryError names the bytes asked for and what they
 * were for. */
void *bloomc_xcalloc(size_t nbytes, const char *what, ...);
/* Its NoMemoryError, for nbytes wanted for what (a String). */
NORETURN(void bloomc_no_memory(size_t nbytes, VALUE what));

/* state.c: a filter's state as numbers and bytes (export_core and
 * import_core of every filter class; the file format is in Ruby). Every
 * check raises Bloomc::FormatError. */
NORETURN(void bloomc_format_error(const char *fmt, ...));
VALUE bloomc_state_new(const uint64_t *fields, int nfields, const uint8_t *const *parts, const size_t *lengths, int nparts);
/* The nfields Integers of fields (each 0..2**64-1) into out. */
void bloomc_state_fields(VALUE fields, int nfields, uint64_t *out);
uint64_t bloomc_state_check(uint64_t value, uint64_t min, uint64_t max, const char *name);
/* The seed parameter of the kinds without a hash parameter (4 to 9): the
 * seed in bits 0-31, the hash id in bits 32 and up (0: MurmurHash3 as
 * before, 2: mixed probes), so that a file from before reads as it was and
 * a reader from before refuses a mixed one (its seed is out of range). */
uint64_t bloomc_seed_with_hash(uint32_t seed, bf_hash_kind hash);
/* The hash id of such a parameter, checked (FormatError). */
bf_hash_kind bloomc_hash_of_seed(uint64_t field);
/* body's bytes, which must be exactly expected long. */
const uint8_t *bloomc_state_body(VALUE body, size_t expected);

/* mapping.c: a filter whose cells live in a mapped file. The struct of a
 * class that can be mapped starts with a bloomc_mapping (base NULL: the
 * cells are on the heap). A mapped struct is on a list of the process's
 * mappings until it is unmapped, so that a forked child can find them
 * without asking Ruby for objects that may already be garbage. */
typedef struct bloomc_mapping {
    uint8_t *base;      /* the mapping, or NULL */
    size_t length;      /* of the mapping: the whole file */
    size_t body_offset; /* where the cells start */
    int writable;
    int closed;  /* unmapped by close: every method raises IOError */
    int fd;      /* the mapped file's descriptor (its Ruby File owns it) */
    VALUE owner; /* the filter; not marked: its struct goes with it */
    struct bloomc_mapping *prev, *next;
} bloomc_mapping;
void *bloomc_map_file(int fd, size_t length, int writable); /* SystemCallError */
/* Fills m for a mapping made by bloomc_map_file and puts it on the list. */
void bloomc_mapping_adopt(bloomc_mapping *m, VALUE owner, uint8_t *base, size_t length, size_t body_offset, int fd,
                          int writable);
void bloomc_unmap(bloomc_mapping *m); /* and off the list */
/* dcompact of every mappable type (its struct starts with the mapping). */
void bloomc_mapping_compact(void *ptr);
void bloomc_mapping_check(const bloomc_mapping *m, VALUE self); /* IOError once closed */
/* write_header, sync_mapping, mapped_body_crc (private) and mapped?, on
 * Bloomc::Filter. */
void bloomc_define_mapping_methods(void);
/* Bloomc::Mapped's own (private) methods, defined once. */
void bloomc_init_mapped(VALUE mBloomc);
/* Bloomc's private huge-page switch (filter.c; lib/bloomc/pages.rb). */
void bloomc_init_pages(VALUE mBloomc);

/* Views that share a filter's storage (filter.bits, filter.buckets). */
VALUE bloomc_bit_field_view(VALUE owner, bf_bits *bits);
VALUE bloomc_bit_bucket_field_view(VALUE owner, bf_buckets *buckets);

/* The filter classes, each defined by bloomc_init_<name> in <name>.c, in the
 * order init.c defines them: the one list of kinds on the C side (the file
 * format's kind numbers are Bloomc::Format::KINDS, in lib/bloomc/format.rb). */
#define BLOOMC_FILTER_KINDS(X) \
    X(bloom_filter) \
    X(continuous_bloom_filter) \
    X(blocked_bloom_filter) \
    X(counting_bloom_filter) \
    X(spectral_bloom_filter) \
    X(bitwise_bloom_filter) \
    X(stable_bloom_filter) \
    X(a2_bloom_filter) \
    X(scalable_bloom_filter) \
    X(cuckoo_filter) \
    X(binary_fuse_filter)

#define BLOOMC_DECLARE_INIT(name) void bloomc_init_##name(void);
BLOOMC_FILTER_KINDS(BLOOMC_DECLARE_INIT)
#undef BLOOMC_DECLARE_INIT

void bloomc_init_bit_field(VALUE mBloomc);
void bloomc_init_bit_bucket_field(VALUE mBloomc);
void bloomc_init_redis_layout(VALUE mBloomc);
void bloomc_init_bloom_helper(VALUE mBloomc);
void bloomc_init_fnv(VALUE mBloomc);
void bloomc_init_murmur3(VALUE mBloomc);
void bloomc_init_crc32c(VALUE mBloomc);

#endif
