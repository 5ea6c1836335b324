/* Bloomc::SpectralBloomFilter: counts by minimum increase (MI) or recurring
 * minimum (RM). Keyword construction is in
 * lib/bloomc/spectral_bloom_filter.rb. */
#include "cells.h"

static VALUE cSpectralBloomFilter;

static void spectral_free(void *ptr)
{
    bf_spectral *f = ptr;
    ruby_xfree(f->primary.cells.data); /* the secondary's cells too */
    ruby_xfree(f);
}

static size_t cells_bytes(const bf_counting *c)
{
    return c->cells.data ? bf_buckets_nbytes(c->cells.count, c->cells.width) : 0;
}

static size_t spectral_memsize(const void *ptr)
{
    const bf_spectral *f = ptr;
    return sizeof(*f) + cells_bytes(&f->primary) + cells_bytes(&f->secondary);
}

static const rb_data_type_t spectral_type = {
    .wrap_struct_name = "bloomc/spectral_bloom_filter",
    .function = {
        .dfree = spectral_free,
        .dsize = spectral_memsize,
    },
    .flags = RUBY_TYPED_FREE_IMMEDIATELY | RUBY_TYPED_WB_PROTECTED,
};

static VALUE spectral_alloc(VALUE klass)
{
    bf_spectral *f;
    return TypedData_Make_Struct(klass, bf_spectral, &spectral_type, f);
}

static bf_spectral *get_filter(VALUE self)
{
    bf_spectral *f = bloomc_typed_data(self, &spectral_type);
    if (!f->primary.cells.data) rb_raise(rb_eTypeError, "uninitialized %" PRIsVALUE, rb_obj_class(self));
    return f;
}

static void init_cells(bf_counting *c, uint8_t *data, uint64_t count, unsigned width, uint32_t k, uint32_t seed,
                       const bf_counting *src)
{
    c->cells.data = data;
    bf_buckets_init(&c->cells, count, width);
    c->k = k;
    c->seed = seed;
    c->count = src ? src->count : 0;
    c->saturated = src ? src->saturated : 0;
    c->distinct = src ? src->distinct : 0;
}

/* Replace the filter's state: zeroed cells, or a copy of src's. The primary
 * and secondary cells share one allocation (the secondary's follows), so a
 * failure leaves the filter as it was and nothing leaks. */
static void spectral_reset(bf_spectral *f, uint64_t m, uint64_t m2, unsigned width, uint32_t k, uint32_t seed,
                           bf_spectral_algorithm algorithm, const bf_spectral *src)
{
    size_t n1 = bf_buckets_nbytes(m, width), n2 = m2 ? bf_buckets_nbytes(m2, width) : 0;
    if (!n1 || (m2 && !n2) || n1 + n2 < n1)
        rb_raise(rb_eArgError, "%" PRIu64 " + %" PRIu64 " cells of %u bits are too many for this machine", m, m2, width);
    uint8_t *data = ruby_xcalloc(n1 + n2, 1);
    if (src) memcpy(data, src->primary.cells.data, n1 + n2);
    ruby_xfree(f->primary.cells.data);
    init_cells(&f->primary, data, m, width, k, seed, src ? &src->primary : NULL);
    init_cells(&f->secondary, m2 ? data + n1 : NULL, m2, width, k, seed, src ? &src->secondary : NULL);
    f->algorithm = algorithm;
}

/* :nodoc: called by initialize once the Ruby layer has settled the shape;
 * secondary_m is 0 for MI. */
static VALUE spectral_setup(VALUE self, VALUE m, VALUE k, VALUE width, VALUE seed, VALUE rm, VALUE secondary_m)
{
    rb_check_frozen(self);
    uint64_t cells = bloomc_count_arg(m, "m", BF_BUCKETS_MAX);
    uint32_t probes = (uint32_t)bloomc_count_arg(k, "k", BF_K_MAX);
    unsigned bits = (unsigned)bloomc_count_arg(width, "width", BF_BUCKET_WIDTH_MAX);
    uint32_t hash_seed = bloomc_uint32_arg(seed, "seed");
    uint64_t cells2 = RTEST(rm) ? bloomc_count_arg(secondary_m, "secondary_m", BF_BUCKETS_MAX) : 0;
    spectral_reset(bloomc_typed_data(self, &spectral_type), cells, cells2, bits, probes, hash_seed,
                   RTEST(rm) ? BF_SPECTRAL_RM : BF_SPECTRAL_MI, NULL);
    return self;
}

/* :nodoc: deep copy for dup and clone. */
static VALUE spectral_initialize_copy(VALUE self, VALUE orig)
{
    rb_check_frozen(self);
    if (self == orig) return self;
    const bf_spectral *s = get_filter(orig);
    spectral_reset(bloomc_typed_data(self, &spectral_type), s->primary.cells.count, s->secondary.cells.count,
                   s->primary.cells.width, s->primary.k, s->primary.seed, s->algorithm, s);
    return self;
}

static bf_key_hash key_hash(const bf_spectral *f, VALUE key)
{
    return bloomc_key_hash(key, f->primary.seed, BF_HASH_MURMUR3);
}

/*
 * call-seq:
 *   add(key) -> self
 *   self << key -> self
 *
 * Counts one more +key+ (a String, Symbol or Integer).
 */
static VALUE spectral_add(VALUE self, VALUE key)
{
    rb_check_frozen(self);
    bf_spectral *f = get_filter(self);
    bf_spectral_add(f, key_hash(f, key));
    return self;
}

/*
 * call-seq: add?(key) -> self or nil
 *
 * Adds +key+ as #add does; returns self when it was new (its count was 0),
 * nil when it was probably present, as Set#add? does.
 */
static VALUE spectral_add_p(VALUE self, VALUE key)
{
    rb_check_frozen(self);
    bf_spectral *f = get_filter(self);
    return bloomc_add_p_result(self, bf_spectral_add(f, key_hash(f, key)));
}

/*
 * call-seq:
 *   delete(key) -> true or false
 *   remove(key) -> true or false
 *
 * RM only: counts one +key+ less; false (and nothing changes) when its count
 * is 0. An MI filter raises Bloomc::UnsupportedError: minimum increase leaves
 * some of a key's cells below its count, so a delete would take from other
 * keys.
 */
static VALUE spectral_delete(VALUE self, VALUE key)
{
    rb_check_frozen(self);
    bf_spectral *f = get_filter(self);
    if (f->algorithm != BF_SPECTRAL_RM)
        rb_raise(bloomc_eUnsupportedError,
                 "a minimum-increase (MI) spectral filter cannot delete: its cells undercount other keys, so a "
                 "delete could erase them; build it with algorithm: :rm to delete");
    return RBOOL(bf_spectral_remove(f, key_hash(f, key)));
}

/*
 * call-seq: count(key) -> Integer
 *
 * The estimated number of adds of +key+ (less deletes, for RM).
 */
static VALUE spectral_count(VALUE self, VALUE key)
{
    const bf_spectral *f = get_filter(self);
    return UINT2NUM(bf_spectral_count(f, key_hash(f, key)));
}

/*
 * call-seq:
 *   include?(key) -> true or false
 *   self[key] -> true or false
 *
 * Whether +key+ may have been added (all its primary cells above 0).
 */
static VALUE spectral_include_p(VALUE self, VALUE key)
{
    const bf_spectral *f = get_filter(self);
    return RBOOL(bf_spectral_contains(f, key_hash(f, key)));
}

static void add_many(void *f, const bf_key_hash *h, size_t n, uint8_t *out)
{
    for (size_t i = 0; i < n; i++) {
        int fresh = bf_spectral_add(f, h[i]);
        if (out) out[i] = (uint8_t)fresh;
    }
}

static void contains_many(void *f, const bf_key_hash *h, size_t n, uint8_t *out)
{
    for (size_t i = 0; i < n; i++) out[i] = (uint8_t)bf_spectral_contains(f, h[i]);
}

/* :nodoc: add_all's and add_new's work (lib/bloomc/batch.rb). */
static VALUE spectral_batch_add(VALUE self, VALUE keys, VALUE collect)
{
    rb_check_frozen(self);
    bf_spectral *f = get_filter(self);
    bloomc_batch b = {f, f->primary.seed, BF_HASH_MURMUR3, add_many, contains_many};
    return bloomc_batch_add(&b, keys, collect);
}

/* :nodoc: the batch lookups' work (lib/bloomc/batch.rb). */
static VALUE spectral_batch_lookup(VALUE self, VALUE keys, VALUE mode)
{
    bf_spectral *f = get_filter(self);
    bloomc_batch b = {f, f->primary.seed, BF_HASH_MURMUR3, add_many, contains_many};
    return bloomc_batch_lookup(&b, keys, mode);
}

/* call-seq: m -> Integer
 *
 * The number of cells of the primary filter. */
static VALUE spectral_m(VALUE self) { return ULL2NUM(get_filter(self)->primary.cells.count); }

/* call-seq: secondary_m -> Integer or nil
 *
 * The number of cells of RM's secondary filter; nil for MI. */
static VALUE spectral_secondary_m(VALUE self)
{
    const bf_spectral *f = get_filter(self);
    return f->algorithm == BF_SPECTRAL_RM ? ULL2NUM(f->secondary.cells.count) : Qnil;
}

/* call-seq: k -> Integer
 *
 * The number of cells per key. */
static VALUE spectral_k(VALUE self) { return UINT2NUM(get_filter(self)->primary.k); }

/* call-seq: width -> Integer
 *
 * Bits per cell. */
static VALUE spectral_width(VALUE self) { return UINT2NUM(get_filter(self)->primary.cells.width); }

/* call-seq: seed -> Integer
 *
 * The MurmurHash3 seed of the key hash. */
static VALUE spectral_seed(VALUE self) { return UINT2NUM(get_filter(self)->primary.seed); }

/* call-seq: size -> Integer
 *
 * Adds less successful deletes (never below 0: a delete that finds
 * saturated cells succeeds without a matching add). */
static VALUE spectral_size(VALUE self) { return ULL2NUM(get_filter(self)->primary.count); }

/* :nodoc: keys new to the filter, for over_capacity? (lib/bloomc/sizing.rb). */
static VALUE spectral_distinct(VALUE self) { return ULL2NUM(get_filter(self)->primary.distinct); }

/* :nodoc: sets it, for a filter loaded or merged. */
static VALUE spectral_set_distinct(VALUE self, VALUE n)
{
    get_filter(self)->primary.distinct = NUM2ULL(n);
    return n;
}

/* call-seq: saturated -> Integer
 *
 * The number of primary cells at 2**width - 1 (they stay there). */
static VALUE spectral_saturated(VALUE self) { return ULL2NUM(get_filter(self)->primary.saturated); }

/* :nodoc: 1 for RM, 0 for MI (lib/bloomc/spectral_bloom_filter.rb names them). */
static VALUE spectral_algorithm_number(VALUE self) { return INT2FIX(get_filter(self)->algorithm); }

/*
 * call-seq: self == other -> true or false
 *
 * Equal when +other+ is a SpectralBloomFilter of the same algorithm, shape
 * and seed with the same cells and counts.
 */
static VALUE spectral_equal(VALUE self, VALUE other)
{
    if (self == other) return Qtrue;
    if (!rb_typeddata_is_kind_of(other, &spectral_type)) return Qfalse;
    const bf_spectral *a = get_filter(self), *b = get_filter(other);
    return RBOOL(a->algorithm == b->algorithm && bloomc_counting_equal(&a->primary, &b->primary) &&
                 bloomc_counting_equal(&a->secondary, &b->secondary));
}

/* call-seq: hash -> Integer
 *
 * Consistent with ==. */
static VALUE spectral_hash(VALUE self)
{
    const bf_spectral *f = get_filter(self);
    return ST2FIX(bloomc_counting_hash(&f->primary) ^ (bloomc_counting_hash(&f->secondary) * 3) ^ f->algorithm);
}

/* :nodoc: cells (bits) that are not zero, for Bloomc::Stats. */
static VALUE spectral_occupied(VALUE self)
{
    return ULL2NUM(bf_buckets_count_nonzero(&get_filter(self)->primary.cells));
}

/* :nodoc: primary sums or minima; RM's secondary cleared (Bloomc::SetOps checks shapes). */
static VALUE spectral_combine(VALUE self, VALUE other, VALUE op)
{
    rb_check_frozen(self);
    bf_spectral *f = get_filter(self);
    const bf_spectral *o = get_filter(other);
    const bf_counting *a = &f->primary, *b = &o->primary;
    int intersect = bloomc_intersection_arg(op, f->algorithm == o->algorithm && a->cells.count == b->cells.count &&
                                                    a->cells.width == b->cells.width && a->k == b->k && a->seed == b->seed &&
                                                    f->secondary.cells.count == o->secondary.cells.count);
    bf_spectral_combine(f, o, intersect ? BF_COMBINE_MIN : BF_COMBINE_SUM);
    return self;
}

/*
 * call-seq: clear -> self
 *
 * Forgets every key, in both of RM's filters.
 */
static VALUE spectral_clear(VALUE self)
{
    rb_check_frozen(self);
    bf_spectral *f = get_filter(self);
    bf_counting *parts[2] = {&f->primary, &f->secondary};
    for (int i = 0; i < 2; i++) {
        if (parts[i]->cells.data) memset(parts[i]->cells.data, 0, bf_buckets_nbytes(parts[i]->cells.count, parts[i]->cells.width));
        parts[i]->count = parts[i]->saturated = parts[i]->distinct = 0;
    }
    return self;
}


/* :nodoc: [[algorithm, m, k, width, seed, count, saturated, secondary m,
 * count and saturated], primary cells + secondary cells] (docs/FORMAT.md). */
static VALUE spectral_export_core(VALUE self)
{
    const bf_spectral *f = get_filter(self);
    const bf_counting *p = &f->primary, *s = &f->secondary;
    uint64_t fields[] = {(uint64_t)f->algorithm, p->cells.count, p->k, p->cells.width, p->seed, p->count, p->saturated,
                         s->cells.count, s->count, s->saturated};
    const uint8_t *parts[] = {p->cells.data, s->cells.data};
    size_t lengths[] = {bf_buckets_nbytes(p->cells.count, p->cells.width),
                        s->cells.data ? bf_buckets_nbytes(s->cells.count, s->cells.width) : 0};
    return bloomc_state_new(fields, 10, parts, lengths, s->cells.data ? 2 : 1);
}

/* :nodoc: the inverse of export_core; Bloomc::FormatError for anything
 * export_core could not have made. */
static VALUE spectral_import_core(VALUE self, VALUE fields, VALUE body)
{
    rb_check_frozen(self);
    uint64_t v[10];
    bloomc_state_fields(fields, 10, v);
    bf_spectral src;
    src.algorithm = (bf_spectral_algorithm)bloomc_state_check(v[0], BF_SPECTRAL_MI, BF_SPECTRAL_RM, "algorithm");
    size_t n1 = bloomc_counting_state(&src.primary, v[1], v[2], v[3], v[4], v[5]), n2 = 0;
    if (src.algorithm == BF_SPECTRAL_RM) {
        n2 = bloomc_counting_state(&src.secondary, v[7], v[2], v[3], v[4], v[8]);
        if (n1 + n2 < n1) bloomc_format_error("the cells are too many for this machine");
    } else if (v[7] || v[8] || v[9]) {
        bloomc_format_error("a minimum-increase filter has no secondary cells");
    } else {
        memset(&src.secondary, 0, sizeof(src.secondary));
    }
    const uint8_t *data = bloomc_state_body(body, n1 + n2);
    const char *problem = bloomc_counting_state_cells(&src.primary, data);
    if (!problem && n2) problem = bloomc_counting_state_cells(&src.secondary, data + n1);
    if (problem) bloomc_format_error("%s", problem);
    spectral_reset(bloomc_typed_data(self, &spectral_type), src.primary.cells.count, n2 ? src.secondary.cells.count : 0,
                   src.primary.cells.width, src.primary.k, src.primary.seed, src.algorithm, &src);
    RB_GC_GUARD(body);
    return self;
}


void bloomc_init_spectral_bloom_filter(VALUE mBloomc)
{
    cSpectralBloomFilter = rb_define_class_under(mBloomc, "SpectralBloomFilter", rb_cObject);
    rb_define_alloc_func(cSpectralBloomFilter, spectral_alloc);
    rb_define_private_method(cSpectralBloomFilter, "setup", spectral_setup, 6);
    rb_define_method(cSpectralBloomFilter, "initialize_copy", spectral_initialize_copy, 1);
    rb_define_method(cSpectralBloomFilter, "add", spectral_add, 1);
    rb_define_method(cSpectralBloomFilter, "<<", spectral_add, 1);
    rb_define_method(cSpectralBloomFilter, "add?", spectral_add_p, 1);
    rb_define_method(cSpectralBloomFilter, "delete", spectral_delete, 1);
    rb_define_method(cSpectralBloomFilter, "remove", spectral_delete, 1);
    rb_define_method(cSpectralBloomFilter, "count", spectral_count, 1);
    rb_define_method(cSpectralBloomFilter, "include?", spectral_include_p, 1);
    rb_define_method(cSpectralBloomFilter, "[]", spectral_include_p, 1);
    bloomc_define_batch_methods(cSpectralBloomFilter, spectral_batch_add, spectral_batch_lookup);
    rb_define_method(cSpectralBloomFilter, "m", spectral_m, 0);
    rb_define_method(cSpectralBloomFilter, "secondary_m", spectral_secondary_m, 0);
    rb_define_method(cSpectralBloomFilter, "k", spectral_k, 0);
    rb_define_method(cSpectralBloomFilter, "width", spectral_width, 0);
    rb_define_method(cSpectralBloomFilter, "seed", spectral_seed, 0);
    rb_define_method(cSpectralBloomFilter, "size", spectral_size, 0);
    rb_define_private_method(cSpectralBloomFilter, "distinct", spectral_distinct, 0);
    rb_define_private_method(cSpectralBloomFilter, "distinct=", spectral_set_distinct, 1);
    rb_define_method(cSpectralBloomFilter, "saturated", spectral_saturated, 0);
    rb_define_private_method(cSpectralBloomFilter, "algorithm_number", spectral_algorithm_number, 0);
    rb_define_method(cSpectralBloomFilter, "==", spectral_equal, 1);
    rb_define_method(cSpectralBloomFilter, "eql?", spectral_equal, 1);
    rb_define_method(cSpectralBloomFilter, "hash", spectral_hash, 0);
    rb_define_private_method(cSpectralBloomFilter, "export_core", spectral_export_core, 0);
    rb_define_private_method(cSpectralBloomFilter, "import_core", spectral_import_core, 2);
    rb_define_private_method(cSpectralBloomFilter, "combine", spectral_combine, 2);
    rb_define_method(cSpectralBloomFilter, "clear", spectral_clear, 0);
    rb_define_private_method(cSpectralBloomFilter, "occupied", spectral_occupied, 0);
}
