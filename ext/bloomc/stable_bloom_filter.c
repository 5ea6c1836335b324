/* Bloomc::StableBloomFilter: a filter for endless streams that forgets old
 * keys at a steady rate. Keyword construction is in
 * lib/bloomc/stable_bloom_filter.rb. */
#include "bloomc.h"
#include "bf_stable.h"
#include "cells.h"

static VALUE cStableBloomFilter;

static void stable_free(void *ptr)
{
    bf_stable *f = ptr;
    ruby_xfree(f->cells.data);
    ruby_xfree(f);
}

static size_t stable_memsize(const void *ptr)
{
    const bf_stable *f = ptr;
    return sizeof(*f) + (f->cells.data ? bf_buckets_nbytes(f->cells.count, f->cells.width) : 0);
}

static const rb_data_type_t stable_type = {
    .wrap_struct_name = "bloomc/stable_bloom_filter",
    .function = {
        .dfree = stable_free,
        .dsize = stable_memsize,
    },
    .flags = RUBY_TYPED_FREE_IMMEDIATELY | RUBY_TYPED_WB_PROTECTED,
};

static VALUE stable_alloc(VALUE klass)
{
    bf_stable *f;
    return TypedData_Make_Struct(klass, bf_stable, &stable_type, f);
}

static bf_stable *get_filter(VALUE self)
{
    bf_stable *f = bloomc_typed_data(self, &stable_type);
    if (!f->cells.data) rb_raise(rb_eTypeError, "uninitialized %" PRIsVALUE, rb_obj_class(self));
    return f;
}

/* :nodoc: called by initialize once the Ruby layer has settled the shape
 * (random_seed is an Integer in 0...2**64, checked there). */
static VALUE stable_setup(VALUE self, VALUE m, VALUE k, VALUE d, VALUE width, VALUE seed, VALUE random_seed)
{
    rb_check_frozen(self);
    uint64_t cells = bloomc_count_arg(m, "m", BF_BUCKETS_MAX);
    uint32_t probes = (uint32_t)bloomc_count_arg(k, "k", BF_K_MAX);
    uint64_t decrements = bloomc_count_arg(d, "d", cells);
    unsigned bits = (unsigned)bloomc_count_arg(width, "width", BF_BUCKET_WIDTH_MAX);
    uint32_t hash_seed = bloomc_uint32_arg(seed, "seed");
    uint64_t state = NUM2ULL(random_seed);
    bf_stable *f = bloomc_typed_data(self, &stable_type);
    f->cells.data = bloomc_buckets_replace(f->cells.data, cells, bits, NULL);
    bf_buckets_init(&f->cells, cells, bits);
    f->k = probes;
    f->seed = hash_seed;
    f->d = decrements;
    f->random = state;
    f->count = 0;
    return self;
}

/* :nodoc: deep copy for dup and clone (the copy's generator continues from
 * the same state, so both forget the same cells next). */
static VALUE stable_initialize_copy(VALUE self, VALUE orig)
{
    rb_check_frozen(self);
    if (self == orig) return self;
    const bf_stable *src = get_filter(orig);
    bf_stable *f = bloomc_typed_data(self, &stable_type);
    uint8_t *data = bloomc_buckets_replace(f->cells.data, src->cells.count, src->cells.width, src->cells.data);
    *f = *src;
    f->cells.data = data;
    return self;
}

static bf_key_hash key_hash(const bf_stable *f, VALUE key)
{
    return bloomc_key_hash(key, f->seed, BF_HASH_MURMUR3);
}

/*
 * call-seq:
 *   add(key) -> self
 *   self << key -> self
 *
 * Takes 1 from d random cells, then sets +key+'s k cells to 2**width - 1.
 */
static VALUE stable_add(VALUE self, VALUE key)
{
    rb_check_frozen(self);
    bf_stable *f = get_filter(self);
    bf_stable_add(f, key_hash(f, key), 0);
    return self;
}

/*
 * call-seq: add?(key) -> self or nil
 *
 * Adds +key+ as #add does; returns self when it was new (include? would have said false),
 * nil when it was probably present, as Set#add? does.
 */
static VALUE stable_add_p(VALUE self, VALUE key)
{
    rb_check_frozen(self);
    bf_stable *f = get_filter(self);
    return bloomc_add_p_result(self, bf_stable_add(f, key_hash(f, key), 1));
}

/*
 * call-seq:
 *   include?(key) -> true or false
 *   self[key] -> true or false
 *
 * Whether all of +key+'s cells are above 0: true for a key added recently
 * (the last add always is), false for most keys never added and for keys
 * added long ago.
 */
static VALUE stable_include_p(VALUE self, VALUE key)
{
    const bf_stable *f = get_filter(self);
    return RBOOL(bf_stable_contains(f, key_hash(f, key)));
}

static void add_many(void *f, const bf_key_hash *h, size_t n, uint8_t *out)
{
    for (size_t i = 0; i < n; i++) {
        int fresh = bf_stable_add(f, h[i], out != NULL);
        if (out) out[i] = (uint8_t)fresh;
    }
}

static void contains_many(void *f, const bf_key_hash *h, size_t n, uint8_t *out)
{
    for (size_t i = 0; i < n; i++) out[i] = (uint8_t)bf_stable_contains(f, h[i]);
}

/* :nodoc: add_all's and add_new's work (lib/bloomc/batch.rb). */
static VALUE stable_batch_add(VALUE self, VALUE keys, VALUE collect)
{
    rb_check_frozen(self);
    bf_stable *f = get_filter(self);
    bloomc_batch b = {f, f->seed, BF_HASH_MURMUR3, add_many, contains_many};
    return bloomc_batch_add(&b, keys, collect);
}

/* :nodoc: the batch lookups' work (lib/bloomc/batch.rb). */
static VALUE stable_batch_lookup(VALUE self, VALUE keys, VALUE mode)
{
    bf_stable *f = get_filter(self);
    bloomc_batch b = {f, f->seed, BF_HASH_MURMUR3, add_many, contains_many};
    return bloomc_batch_lookup(&b, keys, mode);
}

/* call-seq: m -> Integer
 *
 * The number of cells. */
static VALUE stable_m(VALUE self) { return ULL2NUM(get_filter(self)->cells.count); }

/* call-seq: k -> Integer
 *
 * The number of cells set per key. */
static VALUE stable_k(VALUE self) { return UINT2NUM(get_filter(self)->k); }

/* call-seq: d -> Integer
 *
 * The number of random cells decremented per add. */
static VALUE stable_d(VALUE self) { return ULL2NUM(get_filter(self)->d); }

/* call-seq: width -> Integer
 *
 * Bits per cell. */
static VALUE stable_width(VALUE self) { return UINT2NUM(get_filter(self)->cells.width); }

/* call-seq: seed -> Integer
 *
 * The MurmurHash3 seed of the key hash. */
static VALUE stable_seed(VALUE self) { return UINT2NUM(get_filter(self)->seed); }

/* call-seq: size -> Integer
 *
 * The number of adds. */
static VALUE stable_size(VALUE self) { return ULL2NUM(get_filter(self)->count); }

/* call-seq: zero_fraction -> Float
 *
 * The fraction of cells at 0 now (1.0 when new; it falls towards
 * stable_zero_fraction as keys stream in). */
static VALUE stable_zero_fraction(VALUE self)
{
    const bf_stable *f = get_filter(self);
    return DBL2NUM(1.0 - (double)bf_buckets_count_nonzero(&f->cells) / (double)f->cells.count);
}

/* call-seq: stable_zero_fraction -> Float
 *
 * The fraction of zero cells the filter settles at (Deng and Rafiei). */
static VALUE stable_stable_zero_fraction(VALUE self)
{
    const bf_stable *f = get_filter(self);
    return DBL2NUM(bf_stable_zero_fraction(f->cells.count, f->k, f->d, f->cells.width));
}

/* call-seq: stable_false_positive_rate -> Float
 *
 * The false-positive rate once settled: (1 - stable_zero_fraction)**k. */
static VALUE stable_stable_fpr(VALUE self)
{
    const bf_stable *f = get_filter(self);
    return DBL2NUM(bf_stable_fpr(f->cells.count, f->k, f->d, f->cells.width));
}

/* :nodoc: the d for a target rate, 0 when none reaches it (the Ruby layer
 * checks the arguments first). */
static VALUE stable_s_d_for(VALUE klass, VALUE m, VALUE k, VALUE width, VALUE fpr)
{
    /* The sizes are checked as setup checks them, so a capacity whose m is
     * out of range gets setup's ArgumentError, not a conversion error. */
    uint64_t cells = bloomc_count_arg(m, "m", BF_BUCKETS_MAX);
    uint32_t probes = (uint32_t)bloomc_count_arg(k, "k", BF_K_MAX);
    unsigned bits = (unsigned)bloomc_count_arg(width, "width", BF_BUCKET_WIDTH_MAX);
    return ULL2NUM(bf_stable_d_for(cells, probes, bits, NUM2DBL(fpr)));
}

/*
 * call-seq: self == other -> true or false
 *
 * Equal when +other+ is a StableBloomFilter of the same shape, seeds and
 * generator state with the same cells.
 */
static VALUE stable_equal(VALUE self, VALUE other)
{
    if (self == other) return Qtrue;
    if (!rb_typeddata_is_kind_of(other, &stable_type)) return Qfalse;
    const bf_stable *a = get_filter(self), *b = get_filter(other);
    return RBOOL(a->cells.count == b->cells.count && a->cells.width == b->cells.width && a->k == b->k && a->d == b->d &&
                 a->seed == b->seed && a->random == b->random && a->count == b->count &&
                 memcmp(a->cells.data, b->cells.data, bf_buckets_nbytes(a->cells.count, a->cells.width)) == 0);
}

/* call-seq: hash -> Integer
 *
 * Consistent with ==. */
static VALUE stable_hash(VALUE self)
{
    const bf_stable *f = get_filter(self);
    st_index_t h = rb_memhash(f->cells.data, (long)bf_buckets_nbytes(f->cells.count, f->cells.width));
    return ST2FIX(h ^ (st_index_t)(f->cells.count * 31 + f->k * 7 + f->d * 13 + f->seed + f->random + f->count * 131));
}

/* :nodoc: cells (bits) that are not zero, for Bloomc::Stats. */
static VALUE stable_occupied(VALUE self)
{
    return ULL2NUM(bf_buckets_count_nonzero(&get_filter(self)->cells));
}

/* :nodoc: cell maxima or minima (Bloomc::SetOps checks shapes). */
static VALUE stable_combine(VALUE self, VALUE other, VALUE op)
{
    rb_check_frozen(self);
    bf_stable *f = get_filter(self);
    const bf_stable *o = get_filter(other);
    int intersect = bloomc_intersection_arg(op, f->cells.count == o->cells.count && f->cells.width == o->cells.width && f->k == o->k &&
                                                    f->d == o->d && f->seed == o->seed);
    bf_stable_combine(f, o, intersect ? BF_COMBINE_MIN : BF_COMBINE_MAX);
    return self;
}

/*
 * call-seq: clear -> self
 *
 * Forgets every key: all cells 0, size 0. The generator runs on.
 */
static VALUE stable_clear(VALUE self)
{
    rb_check_frozen(self);
    bf_stable *f = get_filter(self);
    memset(f->cells.data, 0, bf_buckets_nbytes(f->cells.count, f->cells.width));
    f->count = 0;
    return self;
}


/* :nodoc: [[m, k, d, width, seed, generator state, count], cells] (docs/FORMAT.md). */
static VALUE stable_export_core(VALUE self)
{
    const bf_stable *f = get_filter(self);
    uint64_t fields[] = {f->cells.count, f->k, f->d, f->cells.width, f->seed, f->random, f->count};
    const uint8_t *parts[] = {f->cells.data};
    size_t lengths[] = {bf_buckets_nbytes(f->cells.count, f->cells.width)};
    return bloomc_state_new(fields, 7, parts, lengths, 1);
}

/* :nodoc: the inverse of export_core; Bloomc::FormatError for anything
 * export_core could not have made. */
static VALUE stable_import_core(VALUE self, VALUE fields, VALUE body)
{
    rb_check_frozen(self);
    uint64_t v[7];
    bloomc_state_fields(fields, 7, v);
    bf_stable src = {
        .k = (uint32_t)bloomc_state_check(v[1], 1, BF_K_MAX, "k"),
        .seed = (uint32_t)bloomc_state_check(v[4], 0, UINT32_MAX, "seed"),
        .random = v[5],
        .count = v[6],
    };
    uint64_t m = bloomc_state_check(v[0], 1, BF_BUCKETS_MAX, "m");
    unsigned width = (unsigned)bloomc_state_check(v[3], 1, BF_BUCKET_WIDTH_MAX, "width");
    src.d = bloomc_state_check(v[2], 1, m, "d");
    size_t nbytes = bf_buckets_nbytes(m, width);
    if (!nbytes) bloomc_format_error("%" PRIu64 " cells of %u bits are too many for this machine", m, width);
    bf_buckets_init(&src.cells, m, width);
    src.cells.data = (uint8_t *)bloomc_state_body(body, nbytes);
    if (!bf_buckets_tail_clear(&src.cells)) bloomc_format_error("bits set past the last cell");
    bf_stable *f = bloomc_typed_data(self, &stable_type);
    uint8_t *data = bloomc_buckets_replace(f->cells.data, m, width, src.cells.data);
    *f = src;
    f->cells.data = data;
    RB_GC_GUARD(body);
    return self;
}


void bloomc_init_stable_bloom_filter(VALUE mBloomc)
{
    cStableBloomFilter = rb_define_class_under(mBloomc, "StableBloomFilter", rb_cObject);
    rb_define_alloc_func(cStableBloomFilter, stable_alloc);
    rb_define_private_method(cStableBloomFilter, "setup", stable_setup, 6);
    rb_define_method(cStableBloomFilter, "initialize_copy", stable_initialize_copy, 1);
    rb_define_method(cStableBloomFilter, "add", stable_add, 1);
    rb_define_method(cStableBloomFilter, "<<", stable_add, 1);
    rb_define_method(cStableBloomFilter, "add?", stable_add_p, 1);
    rb_define_method(cStableBloomFilter, "include?", stable_include_p, 1);
    rb_define_method(cStableBloomFilter, "[]", stable_include_p, 1);
    bloomc_define_batch_methods(cStableBloomFilter, stable_batch_add, stable_batch_lookup);
    rb_define_method(cStableBloomFilter, "m", stable_m, 0);
    rb_define_method(cStableBloomFilter, "k", stable_k, 0);
    rb_define_method(cStableBloomFilter, "d", stable_d, 0);
    rb_define_method(cStableBloomFilter, "width", stable_width, 0);
    rb_define_method(cStableBloomFilter, "seed", stable_seed, 0);
    rb_define_method(cStableBloomFilter, "size", stable_size, 0);
    rb_define_method(cStableBloomFilter, "zero_fraction", stable_zero_fraction, 0);
    rb_define_method(cStableBloomFilter, "stable_zero_fraction", stable_stable_zero_fraction, 0);
    rb_define_method(cStableBloomFilter, "stable_false_positive_rate", stable_stable_fpr, 0);
    rb_define_private_method(rb_singleton_class(cStableBloomFilter), "d_for", stable_s_d_for, 4);
    rb_define_method(cStableBloomFilter, "==", stable_equal, 1);
    rb_define_method(cStableBloomFilter, "eql?", stable_equal, 1);
    rb_define_method(cStableBloomFilter, "hash", stable_hash, 0);
    rb_define_private_method(cStableBloomFilter, "export_core", stable_export_core, 0);
    rb_define_private_method(cStableBloomFilter, "import_core", stable_import_core, 2);
    rb_define_private_method(cStableBloomFilter, "combine", stable_combine, 2);
    rb_define_method(cStableBloomFilter, "clear", stable_clear, 0);
    rb_define_private_method(cStableBloomFilter, "occupied", stable_occupied, 0);
}
