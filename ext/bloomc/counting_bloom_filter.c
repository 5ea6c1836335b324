/* Bloomc::CountingBloomFilter: a filter of saturating counters that can
 * delete keys and estimate how often each was added. Keyword construction is
 * in lib/bloomc/counting_bloom_filter.rb. */
#include <sys/mman.h>
#include "cells.h"

static VALUE cCountingBloomFilter;

typedef struct {
    bloomc_mapping map; /* first: mapping.c reads it */
    bf_counting core;
} counting_t;

static void counting_free(void *ptr)
{
    counting_t *c = ptr;
    if (c->map.base) bloomc_unmap(&c->map);
    else ruby_xfree(c->core.cells.data);
    ruby_xfree(c);
}

/* A mapped filter's cells are the page cache's: only the struct counts. */
static size_t counting_memsize(const void *ptr)
{
    const counting_t *c = ptr;
    const bf_counting *f = &c->core;
    return sizeof(*c) + (f->cells.data && !c->map.base ? bf_buckets_nbytes(f->cells.count, f->cells.width) : 0);
}

static const rb_data_type_t counting_type = {
    .wrap_struct_name = "bloomc/counting_bloom_filter",
    .function = {
        .dfree = counting_free,
        .dsize = counting_memsize,
        .dcompact = bloomc_mapping_compact,
    },
    .flags = RUBY_TYPED_FREE_IMMEDIATELY | RUBY_TYPED_WB_PROTECTED,
};

static VALUE counting_alloc(VALUE klass)
{
    counting_t *c;
    return TypedData_Make_Struct(klass, counting_t, &counting_type, c);
}

static bf_counting *get_filter(VALUE self)
{
    counting_t *c = bloomc_typed_data(self, &counting_type);
    bloomc_mapping_check(&c->map, self);
    if (!c->core.cells.data) rb_raise(rb_eTypeError, "uninitialized %" PRIsVALUE, rb_obj_class(self));
    return &c->core;
}

/* The filter's state, for setup and copies: a mapped filter keeps its file. */
static bf_counting *replaceable(VALUE self)
{
    counting_t *c = bloomc_typed_data(self, &counting_type);
    bloomc_mapping_check(&c->map, self);
    if (c->map.base) rb_raise(rb_eArgError, "a mapped %" PRIsVALUE " cannot be re-initialized", rb_obj_class(self));
    return &c->core;
}

/* Replace the filter's state: m zeroed cells, or a copy of src. */
static void counting_reset(bf_counting *f, uint64_t m, unsigned width, uint32_t k, uint32_t seed, const bf_counting *src)
{
    f->cells.data = bloomc_buckets_replace(f->cells.data, m, width, src ? src->cells.data : NULL);
    bf_buckets_init(&f->cells, m, width);
    f->k = k;
    f->seed = seed;
    f->count = src ? src->count : 0;
    f->saturated = src ? src->saturated : 0;
    f->distinct = src ? src->distinct : 0;
}

/* :nodoc: called by initialize once the Ruby layer has settled m and k. */
static VALUE counting_setup(VALUE self, VALUE m, VALUE k, VALUE width, VALUE seed)
{
    rb_check_frozen(self);
    uint64_t cells = bloomc_count_arg(m, "m", BF_BUCKETS_MAX);
    uint32_t probes = (uint32_t)bloomc_count_arg(k, "k", BF_K_MAX);
    unsigned bits = (unsigned)bloomc_count_arg(width, "width", BF_BUCKET_WIDTH_MAX);
    uint32_t hash_seed = bloomc_uint32_arg(seed, "seed");
    counting_reset(replaceable(self), cells, bits, probes, hash_seed, NULL);
    return self;
}

/* :nodoc: deep copy for dup and clone. */
static VALUE counting_initialize_copy(VALUE self, VALUE orig)
{
    rb_check_frozen(self);
    if (self == orig) return self;
    const bf_counting *src = get_filter(orig);
    counting_reset(replaceable(self), src->cells.count, src->cells.width, src->k, src->seed, src);
    return self;
}

static bf_key_hash key_hash(const bf_counting *f, VALUE key)
{
    return bloomc_key_hash(key, f->seed, BF_HASH_MURMUR3);
}

/*
 * call-seq:
 *   add(key) -> self
 *   self << key -> self
 *
 * Counts one more +key+ (a String, Symbol or Integer).
 */
static VALUE counting_add(VALUE self, VALUE key)
{
    rb_check_frozen(self);
    bf_counting *f = get_filter(self);
    bf_counting_add(f, key_hash(f, key));
    return self;
}

/*
 * call-seq: add?(key) -> self or nil
 *
 * Adds +key+ as #add does; returns self when it was new (its count was 0),
 * nil when it was probably present, as Set#add? does.
 */
static VALUE counting_add_p(VALUE self, VALUE key)
{
    rb_check_frozen(self);
    bf_counting *f = get_filter(self);
    return bloomc_add_p_result(self, bf_counting_add(f, key_hash(f, key)));
}

/*
 * call-seq:
 *   delete(key) -> true or false
 *   remove(key) -> true or false
 *
 * Counts one +key+ less: true when it was counted, false (and nothing
 * changes) when its count is 0. Deleting a key that was never added but is
 * found (a false positive) takes from other keys' counts: delete only keys
 * you added.
 */
static VALUE counting_delete(VALUE self, VALUE key)
{
    rb_check_frozen(self);
    bf_counting *f = get_filter(self);
    return RBOOL(bf_counting_remove(f, key_hash(f, key)));
}

/*
 * call-seq: count(key) -> Integer
 *
 * How many times +key+ was added less the times it was deleted: never less,
 * more when other keys share all its cells, and at most the cell maximum
 * (2**width - 1).
 */
static VALUE counting_count(VALUE self, VALUE key)
{
    const bf_counting *f = get_filter(self);
    return UINT2NUM(bf_counting_count(f, key_hash(f, key)));
}

/*
 * call-seq:
 *   include?(key) -> true or false
 *   self[key] -> true or false
 *
 * Whether count(key) is above 0.
 */
static VALUE counting_include_p(VALUE self, VALUE key)
{
    const bf_counting *f = get_filter(self);
    return RBOOL(bf_counting_count(f, key_hash(f, key)) > 0);
}

static void add_many(void *f, const bf_key_hash *h, size_t n, uint8_t *out)
{
    for (size_t i = 0; i < n; i++) {
        int fresh = bf_counting_add(f, h[i]);
        if (out) out[i] = (uint8_t)fresh;
    }
}

static void contains_many(void *f, const bf_key_hash *h, size_t n, uint8_t *out)
{
    for (size_t i = 0; i < n; i++) out[i] = bf_counting_count(f, h[i]) > 0;
}

/* :nodoc: add_all's and add_new's work (lib/bloomc/batch.rb). */
static VALUE counting_batch_add(VALUE self, VALUE keys, VALUE collect)
{
    rb_check_frozen(self);
    bf_counting *f = get_filter(self);
    bloomc_batch b = {f, f->seed, BF_HASH_MURMUR3, add_many, contains_many};
    return bloomc_batch_add(&b, keys, collect);
}

/* :nodoc: the batch lookups' work (lib/bloomc/batch.rb). */
static VALUE counting_batch_lookup(VALUE self, VALUE keys, VALUE mode)
{
    bf_counting *f = get_filter(self);
    bloomc_batch b = {f, f->seed, BF_HASH_MURMUR3, add_many, contains_many};
    return bloomc_batch_lookup(&b, keys, mode);
}

/* call-seq: m -> Integer
 *
 * The number of cells. */
static VALUE counting_m(VALUE self) { return ULL2NUM(get_filter(self)->cells.count); }

/* call-seq: k -> Integer
 *
 * The number of cells per key. */
static VALUE counting_k(VALUE self) { return UINT2NUM(get_filter(self)->k); }

/* call-seq: width -> Integer
 *
 * Bits per cell. */
static VALUE counting_width(VALUE self) { return UINT2NUM(get_filter(self)->cells.width); }

/* call-seq: seed -> Integer
 *
 * The MurmurHash3 seed of the key hash. */
static VALUE counting_seed(VALUE self) { return UINT2NUM(get_filter(self)->seed); }

/* call-seq: size -> Integer
 *
 * Adds less successful deletes (never below 0: a delete that finds
 * saturated cells succeeds without a matching add). */
static VALUE counting_size(VALUE self) { return ULL2NUM(get_filter(self)->count); }

/* :nodoc: keys new to the filter, for over_capacity? (lib/bloomc/sizing.rb). */
static VALUE counting_distinct(VALUE self) { return ULL2NUM(get_filter(self)->distinct); }

/* :nodoc: sets it, for a filter loaded or merged. */
static VALUE counting_set_distinct(VALUE self, VALUE n)
{
    get_filter(self)->distinct = NUM2ULL(n);
    return n;
}

/* call-seq: saturated -> Integer
 *
 * The number of cells that reached 2**width - 1. They stay there: a count
 * that reaches a saturated cell is a lower bound no longer, and deletes
 * leave such cells alone so that no other key loses its count. */
static VALUE counting_saturated(VALUE self) { return ULL2NUM(get_filter(self)->saturated); }

/* call-seq: cells_in_use -> Integer
 *
 * The number of cells above 0. */
static VALUE counting_cells_in_use(VALUE self) { return ULL2NUM(bf_buckets_count_nonzero(&get_filter(self)->cells)); }

/*
 * call-seq: self == other -> true or false
 *
 * Equal when +other+ is a CountingBloomFilter of the same shape and seed with
 * the same cells and counts.
 */
static VALUE counting_equal(VALUE self, VALUE other)
{
    if (self == other) return Qtrue;
    if (!rb_typeddata_is_kind_of(other, &counting_type)) return Qfalse;
    const bf_counting *a = get_filter(self), *b = get_filter(other);
    return RBOOL(bloomc_counting_equal(a, b));
}

/* call-seq: hash -> Integer
 *
 * Consistent with ==. */
static VALUE counting_hash(VALUE self)
{
    return ST2FIX(bloomc_counting_hash(get_filter(self)));
}

/* :nodoc: cell sums or minima (Bloomc::SetOps checks shapes). */
static VALUE counting_combine(VALUE self, VALUE other, VALUE op)
{
    rb_check_frozen(self);
    bf_counting *f = get_filter(self);
    const bf_counting *o = get_filter(other);
    int intersect = bloomc_intersection_arg(op, f->cells.count == o->cells.count && f->cells.width == o->cells.width && f->k == o->k &&
                                                    f->seed == o->seed);
    bf_counting_combine(f, o, intersect ? BF_COMBINE_MIN : BF_COMBINE_SUM);
    return self;
}

/*
 * call-seq: clear -> self
 *
 * Forgets every key: all cells 0, size and saturated 0.
 */
static VALUE counting_clear(VALUE self)
{
    rb_check_frozen(self);
    bf_counting *f = get_filter(self);
    memset(f->cells.data, 0, bf_buckets_nbytes(f->cells.count, f->cells.width));
    f->count = f->saturated = f->distinct = 0;
    return self;
}


/* :nodoc: [[m, k, width, seed, count, saturated], cells] (docs/FORMAT.md). */
static VALUE counting_export_core(VALUE self)
{
    const bf_counting *f = get_filter(self);
    uint64_t fields[] = {f->cells.count, f->k, f->cells.width, f->seed, f->count, f->saturated};
    const uint8_t *parts[] = {f->cells.data};
    size_t lengths[] = {bf_buckets_nbytes(f->cells.count, f->cells.width)};
    return bloomc_state_new(fields, 6, parts, lengths, 1);
}

/* :nodoc: the inverse of export_core; Bloomc::FormatError for anything
 * export_core could not have made. */
static VALUE counting_import_core(VALUE self, VALUE fields, VALUE body)
{
    rb_check_frozen(self);
    uint64_t v[6];
    bloomc_state_fields(fields, 6, v);
    bf_counting src;
    size_t nbytes = bloomc_counting_state(&src, v[0], v[1], v[2], v[3], v[4]);
    const char *problem = bloomc_counting_state_cells(&src, bloomc_state_body(body, nbytes));
    if (problem) bloomc_format_error("%s", problem);
    counting_reset(replaceable(self), src.cells.count, src.cells.width, src.k, src.seed, &src);
    RB_GC_GUARD(body);
    return self;
}

/* :nodoc: adopts the cells of a file in bloomc's format, mapped from fd (a
 * new filter only; lib/bloomc/mapped.rb has checked the header). */
static VALUE counting_map_core(VALUE self, VALUE fields, VALUE fd, VALUE body_offset, VALUE length, VALUE writable)
{
    rb_check_frozen(self);
    counting_t *c = bloomc_typed_data(self, &counting_type);
    if (c->core.cells.data || c->map.closed) rb_raise(rb_eArgError, "map_core maps a new filter");
    uint64_t v[6];
    bloomc_state_fields(fields, 6, v);
    bf_counting src;
    size_t nbytes = bloomc_counting_state(&src, v[0], v[1], v[2], v[3], v[4]), offset = NUM2SIZET(body_offset);
    if (NUM2SIZET(length) != offset + nbytes)
        bloomc_format_error("a file of %" PRIsVALUE " bytes where the parameters need %zu", length, offset + nbytes);
    uint8_t *base = bloomc_map_file(NUM2INT(fd), offset + nbytes, RTEST(writable));
    const char *problem = bloomc_counting_state_cells(&src, base + offset);
    if (problem) {
        munmap(base, offset + nbytes);
        bloomc_format_error("%s", problem);
    }
    c->core = src;
    bloomc_mapping_adopt(&c->map, self, base, offset + nbytes, offset, NUM2INT(fd), RTEST(writable));
    return self;
}

/* :nodoc: unmaps a mapped filter; it raises IOError from then on. */
static VALUE counting_unmap(VALUE self)
{
    counting_t *c = bloomc_typed_data(self, &counting_type);
    if (!c->map.base) return self;
    bloomc_unmap(&c->map);
    c->map.closed = 1;
    c->core.cells.data = NULL;
    return self;
}

/* :nodoc: the parameters export_core saves, without the cells. */
static VALUE counting_export_fields(VALUE self)
{
    const bf_counting *f = get_filter(self);
    uint64_t fields[] = {f->cells.count, f->k, f->cells.width, f->seed, f->count, f->saturated};
    return rb_ary_entry(bloomc_state_new(fields, 6, NULL, NULL, 0), 0);
}

/* :nodoc: the bytes export_core's body would take with m cells of this
 * filter's width (for a new mapped file: its filter is never built on the
 * heap). */
static VALUE counting_body_bytes_for(VALUE self, VALUE m)
{
    size_t nbytes = bf_buckets_nbytes(bloomc_count_arg(m, "m", BF_BUCKETS_MAX), get_filter(self)->cells.width);
    if (!nbytes) rb_raise(rb_eArgError, "m is too large for this machine");
    return SIZET2NUM(nbytes);
}


void bloomc_init_counting_bloom_filter(VALUE mBloomc)
{
    cCountingBloomFilter = rb_define_class_under(mBloomc, "CountingBloomFilter", rb_cObject);
    rb_define_alloc_func(cCountingBloomFilter, counting_alloc);
    rb_define_private_method(cCountingBloomFilter, "setup", counting_setup, 4);
    rb_define_method(cCountingBloomFilter, "initialize_copy", counting_initialize_copy, 1);
    rb_define_method(cCountingBloomFilter, "add", counting_add, 1);
    rb_define_method(cCountingBloomFilter, "<<", counting_add, 1);
    rb_define_method(cCountingBloomFilter, "add?", counting_add_p, 1);
    rb_define_method(cCountingBloomFilter, "delete", counting_delete, 1);
    rb_define_method(cCountingBloomFilter, "remove", counting_delete, 1);
    rb_define_method(cCountingBloomFilter, "count", counting_count, 1);
    rb_define_method(cCountingBloomFilter, "include?", counting_include_p, 1);
    rb_define_method(cCountingBloomFilter, "[]", counting_include_p, 1);
    bloomc_define_batch_methods(cCountingBloomFilter, counting_batch_add, counting_batch_lookup);
    rb_define_method(cCountingBloomFilter, "m", counting_m, 0);
    rb_define_method(cCountingBloomFilter, "k", counting_k, 0);
    rb_define_method(cCountingBloomFilter, "width", counting_width, 0);
    rb_define_method(cCountingBloomFilter, "seed", counting_seed, 0);
    rb_define_method(cCountingBloomFilter, "size", counting_size, 0);
    rb_define_private_method(cCountingBloomFilter, "distinct", counting_distinct, 0);
    rb_define_private_method(cCountingBloomFilter, "distinct=", counting_set_distinct, 1);
    rb_define_method(cCountingBloomFilter, "saturated", counting_saturated, 0);
    rb_define_method(cCountingBloomFilter, "cells_in_use", counting_cells_in_use, 0);
    rb_define_method(cCountingBloomFilter, "==", counting_equal, 1);
    rb_define_method(cCountingBloomFilter, "eql?", counting_equal, 1);
    rb_define_method(cCountingBloomFilter, "hash", counting_hash, 0);
    rb_define_private_method(cCountingBloomFilter, "export_core", counting_export_core, 0);
    rb_define_private_method(cCountingBloomFilter, "import_core", counting_import_core, 2);
    rb_define_private_method(cCountingBloomFilter, "map_core", counting_map_core, 5);
    rb_define_private_method(cCountingBloomFilter, "unmap", counting_unmap, 0);
    rb_define_private_method(cCountingBloomFilter, "export_fields", counting_export_fields, 0);
    rb_define_private_method(cCountingBloomFilter, "body_bytes_for", counting_body_bytes_for, 1);
    bloomc_define_mapping_methods(cCountingBloomFilter, &counting_type);
    rb_define_private_method(cCountingBloomFilter, "combine", counting_combine, 2);
    rb_define_method(cCountingBloomFilter, "clear", counting_clear, 0);
    rb_define_private_method(cCountingBloomFilter, "occupied", counting_cells_in_use, 0);
}
