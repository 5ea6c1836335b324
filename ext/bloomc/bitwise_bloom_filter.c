/* Bloomc::BitwiseBloomFilter: counts without an upper bound, in levels of
 * counters that are created as counts outgrow them. Keyword construction is
 * in lib/bloomc/bitwise_bloom_filter.rb. */
#include "cells.h"

static VALUE cBitwiseBloomFilter;

static size_t level_bytes(const bf_buckets *b)
{
    return bf_buckets_nbytes(b->count, b->width);
}

static void free_levels(bf_buckets *levels, size_t n)
{
    for (size_t i = 0; i < n; i++) ruby_xfree(levels[i].data);
    ruby_xfree(levels);
}

static void bitwise_free(void *ptr)
{
    bf_bitwise *f = ptr;
    free_levels(f->levels, f->nlevels);
    ruby_xfree(f);
}

static size_t bitwise_memsize(const void *ptr)
{
    const bf_bitwise *f = ptr;
    size_t total = sizeof(*f) + f->nlevels * sizeof(bf_buckets);
    for (size_t i = 0; i < f->nlevels; i++) total += level_bytes(&f->levels[i]);
    return total;
}

static const rb_data_type_t bitwise_type = {
    .wrap_struct_name = "bloomc/bitwise_bloom_filter",
    .function = {
        .dfree = bitwise_free,
        .dsize = bitwise_memsize,
    },
    .flags = RUBY_TYPED_FREE_IMMEDIATELY | RUBY_TYPED_WB_PROTECTED,
};

static VALUE bitwise_alloc(VALUE klass)
{
    bf_bitwise *f;
    return TypedData_Make_Struct(klass, bf_bitwise, &bitwise_type, f);
}

static bf_bitwise *get_filter(VALUE self)
{
    bf_bitwise *f = bloomc_typed_data(self, &bitwise_type);
    if (!f->nlevels) rb_raise(rb_eTypeError, "uninitialized %" PRIsVALUE, rb_obj_class(self));
    return f;
}

/* Append level f->nlevels (zeroed). The array grows before the cells are
 * allocated, so a failure at either step leaves the filter whole. */
static void add_level(bf_bitwise *f)
{
    unsigned width = bf_bitwise_level_width(f->width, f->nlevels);
    size_t nbytes = bf_buckets_nbytes(f->m, width);
    if (!nbytes) rb_raise(rb_eArgError, "%" PRIu64 " cells of %u bits are too many for this machine", f->m, width);
    f->levels = ruby_xrealloc2(f->levels, f->nlevels + 1, sizeof(bf_buckets));
    bf_buckets *level = &f->levels[f->nlevels];
    level->data = ruby_xcalloc(nbytes, 1);
    bf_buckets_init(level, f->m, width);
    f->nlevels++;
}

/* What build_levels makes: fresh's levels, one zeroed or a copy of src's. */
typedef struct {
    bf_bitwise *fresh;
    const bf_bitwise *src; /* NULL: one zeroed level */
} level_build;

static VALUE build_levels(VALUE arg)
{
    level_build *b = (level_build *)arg;
    size_t n = b->src ? b->src->nlevels : 1;
    for (size_t i = 0; i < n; i++) {
        add_level(b->fresh);
        if (b->src) memcpy(b->fresh->levels[i].data, b->src->levels[i].data, level_bytes(&b->src->levels[i]));
    }
    return Qnil;
}

/* Make the new state beside the old one and swap it in only once it is
 * whole: an allocation that fails on the way frees what was built and
 * leaves the filter as it was. */
static void replace_state(VALUE self, bf_bitwise fresh, const bf_bitwise *src)
{
    level_build b = {&fresh, src};
    int state = 0;
    rb_protect(build_levels, (VALUE)&b, &state);
    if (state) {
        free_levels(fresh.levels, fresh.nlevels);
        rb_jump_tag(state);
    }
    bf_bitwise *f = bloomc_typed_data(self, &bitwise_type);
    free_levels(f->levels, f->nlevels);
    *f = fresh;
}

/* :nodoc: called by initialize once the Ruby layer has settled m and k. */
static VALUE bitwise_setup(VALUE self, VALUE m, VALUE k, VALUE width, VALUE seed)
{
    rb_check_frozen(self);
    uint64_t cells = bloomc_count_arg(m, "m", BF_BUCKETS_MAX);
    uint32_t probes = (uint32_t)bloomc_count_arg(k, "k", BF_K_MAX);
    unsigned bits = (unsigned)bloomc_count_arg(width, "width", BF_BUCKET_WIDTH_MAX);
    uint32_t hash_seed = bloomc_uint32_arg(seed, "seed");
    replace_state(self, (bf_bitwise){NULL, 0, cells, probes, hash_seed, bits, 0, 0}, NULL);
    return self;
}

/* :nodoc: deep copy for dup and clone. */
static VALUE bitwise_initialize_copy(VALUE self, VALUE orig)
{
    rb_check_frozen(self);
    if (self == orig) return self;
    const bf_bitwise *src = get_filter(orig);
    replace_state(self, (bf_bitwise){NULL, 0, src->m, src->k, src->seed, src->width, src->count, src->distinct}, src);
    return self;
}

static bf_key_hash key_hash(const bf_bitwise *f, VALUE key)
{
    return bloomc_key_hash(key, f->seed, BF_HASH_MURMUR3);
}

static int add_hashed(bf_bitwise *f, bf_key_hash h)
{
    size_t level = bf_bitwise_target_level(f, h);
    if (level == f->nlevels) add_level(f);
    return bf_bitwise_add_at(f, h, level);
}

/*
 * call-seq:
 *   add(key) -> self
 *   self << key -> self
 *
 * Counts one more +key+ (a String, Symbol or Integer), in a new level when
 * its count outgrows the last one.
 */
static VALUE bitwise_add(VALUE self, VALUE key)
{
    rb_check_frozen(self);
    bf_bitwise *f = get_filter(self);
    add_hashed(f, key_hash(f, key));
    return self;
}

/*
 * call-seq: add?(key) -> self or nil
 *
 * Adds +key+ as #add does; returns self when it was new (its count was 0),
 * nil when it was probably present, as Set#add? does.
 */
static VALUE bitwise_add_p(VALUE self, VALUE key)
{
    rb_check_frozen(self);
    bf_bitwise *f = get_filter(self);
    return bloomc_add_p_result(self, add_hashed(f, key_hash(f, key)));
}

/*
 * call-seq: count(key) -> Integer
 *
 * How many times +key+ was added: never less, more when other keys share
 * its cells.
 */
static VALUE bitwise_count(VALUE self, VALUE key)
{
    const bf_bitwise *f = get_filter(self);
    return ULL2NUM(bf_bitwise_count(f, key_hash(f, key)));
}

/*
 * call-seq:
 *   include?(key) -> true or false
 *   self[key] -> true or false
 *
 * Whether count(key) is above 0.
 */
static VALUE bitwise_include_p(VALUE self, VALUE key)
{
    const bf_bitwise *f = get_filter(self);
    return RBOOL(bf_bitwise_count(f, key_hash(f, key)) > 0);
}

/* Batches add one key at a time: an add may need a new level, which is
 * allocated (and may raise) between keys, never inside the core. */
static void add_many(void *f, const bf_key_hash *h, size_t n, uint8_t *out)
{
    for (size_t i = 0; i < n; i++) {
        int fresh = add_hashed(f, h[i]);
        if (out) out[i] = (uint8_t)fresh;
    }
}

static void contains_many(void *f, const bf_key_hash *h, size_t n, uint8_t *out)
{
    for (size_t i = 0; i < n; i++) out[i] = bf_bitwise_count(f, h[i]) > 0;
}

/* :nodoc: add_all's and add_new's work (lib/bloomc/batch.rb). */
static VALUE bitwise_batch_add(VALUE self, VALUE keys, VALUE collect)
{
    rb_check_frozen(self);
    bf_bitwise *f = get_filter(self);
    bloomc_batch b = {f, f->seed, BF_HASH_MURMUR3, add_many, contains_many};
    return bloomc_batch_add(&b, keys, collect);
}

/* :nodoc: the batch lookups' work (lib/bloomc/batch.rb). */
static VALUE bitwise_batch_lookup(VALUE self, VALUE keys, VALUE mode)
{
    bf_bitwise *f = get_filter(self);
    bloomc_batch b = {f, f->seed, BF_HASH_MURMUR3, add_many, contains_many};
    return bloomc_batch_lookup(&b, keys, mode);
}

/* call-seq: m -> Integer
 *
 * The number of cells per level. */
static VALUE bitwise_m(VALUE self) { return ULL2NUM(get_filter(self)->m); }

/* call-seq: k -> Integer
 *
 * The number of cells per key and level. */
static VALUE bitwise_k(VALUE self) { return UINT2NUM(get_filter(self)->k); }

/* call-seq: width -> Integer
 *
 * Bits per cell of level 0 (level l's are min(32, width << l)). */
static VALUE bitwise_width(VALUE self) { return UINT2NUM(get_filter(self)->width); }

/* call-seq: seed -> Integer
 *
 * The MurmurHash3 seed of the key hash. */
static VALUE bitwise_seed(VALUE self) { return UINT2NUM(get_filter(self)->seed); }

/* call-seq: size -> Integer
 *
 * The number of adds. */
static VALUE bitwise_size(VALUE self) { return ULL2NUM(get_filter(self)->count); }

/* :nodoc: keys new to the filter, for over_capacity? (lib/bloomc/sizing.rb). */
static VALUE bitwise_distinct(VALUE self) { return ULL2NUM(get_filter(self)->distinct); }

/* :nodoc: sets it, for a filter loaded or merged. */
static VALUE bitwise_set_distinct(VALUE self, VALUE n)
{
    get_filter(self)->distinct = NUM2ULL(n);
    return n;
}

/* call-seq: levels -> Integer
 *
 * The number of levels so far (1 until some key outgrows level 0). */
static VALUE bitwise_levels(VALUE self) { return SIZET2NUM(get_filter(self)->nlevels); }

/*
 * call-seq: self == other -> true or false
 *
 * Equal when +other+ is a BitwiseBloomFilter of the same shape and seed with
 * the same levels and cells.
 */
static VALUE bitwise_equal(VALUE self, VALUE other)
{
    if (self == other) return Qtrue;
    if (!rb_typeddata_is_kind_of(other, &bitwise_type)) return Qfalse;
    const bf_bitwise *a = get_filter(self), *b = get_filter(other);
    if (a->m != b->m || a->k != b->k || a->seed != b->seed || a->width != b->width || a->count != b->count ||
        a->nlevels != b->nlevels)
        return Qfalse;
    for (size_t i = 0; i < a->nlevels; i++)
        if (memcmp(a->levels[i].data, b->levels[i].data, level_bytes(&a->levels[i])) != 0) return Qfalse;
    return Qtrue;
}

/* call-seq: hash -> Integer
 *
 * Consistent with ==. */
static VALUE bitwise_hash(VALUE self)
{
    const bf_bitwise *f = get_filter(self);
    st_index_t h = (st_index_t)(f->m * 31 + f->k * 7 + f->seed + f->width * 17 + f->count * 131 + f->nlevels);
    for (size_t i = 0; i < f->nlevels; i++) h = h * 1000003 ^ rb_memhash(f->levels[i].data, (long)level_bytes(&f->levels[i]));
    return ST2FIX(h);
}

/* :nodoc: cells (bits) that are not zero, for Bloomc::Stats. */
static VALUE bitwise_occupied(VALUE self)
{
    return ULL2NUM(bf_buckets_count_nonzero(&get_filter(self)->levels[0]));
}

/* Drop the levels from n on (n >= 1). */
static void truncate_levels(bf_bitwise *f, size_t n)
{
    while (f->nlevels > n) ruby_xfree(f->levels[--f->nlevels].data);
}

/* :nodoc: cell maxima or minima level by level (Bloomc::SetOps checks shapes). */
static VALUE bitwise_combine(VALUE self, VALUE other, VALUE op)
{
    rb_check_frozen(self);
    bf_bitwise *f = get_filter(self);
    const bf_bitwise *o = get_filter(other);
    int and = bloomc_intersection_arg(op, f->m == o->m && f->k == o->k && f->seed == o->seed && f->width == o->width);
    if (and) {
        bf_bitwise_intersect(f, o);
        truncate_levels(f, o->nlevels);
    } else {
        /* The union needs src's levels; a failed allocation leaves self
         * with some zeroed levels more, which count nothing. */
        while (f->nlevels < o->nlevels) add_level(f);
        bf_bitwise_union(f, o);
    }
    return self;
}

/*
 * call-seq: clear -> self
 *
 * Forgets every key and every level but the first.
 */
static VALUE bitwise_clear(VALUE self)
{
    rb_check_frozen(self);
    bf_bitwise *f = get_filter(self);
    truncate_levels(f, 1);
    memset(f->levels[0].data, 0, level_bytes(&f->levels[0]));
    f->count = f->distinct = 0;
    return self;
}


/* Levels a saved filter may have: far more than any count reaches (a level
 * of 32-bit cells holds 2**32 - 1 more). */
#define SAVED_LEVELS_MAX 64

/* :nodoc: [[m, k, width, seed, count, levels], each level's cells] (docs/FORMAT.md). */
static VALUE bitwise_export_core(VALUE self)
{
    const bf_bitwise *f = get_filter(self);
    if (f->nlevels > SAVED_LEVELS_MAX) rb_raise(rb_eRangeError, "a filter of %zu levels cannot be saved", f->nlevels);
    uint64_t fields[] = {f->m, f->k, f->width, f->seed, f->count, f->nlevels};
    const uint8_t *parts[SAVED_LEVELS_MAX];
    size_t lengths[SAVED_LEVELS_MAX];
    for (size_t i = 0; i < f->nlevels; i++) {
        parts[i] = f->levels[i].data;
        lengths[i] = level_bytes(&f->levels[i]);
    }
    return bloomc_state_new(fields, 6, parts, lengths, (int)f->nlevels);
}

/* :nodoc: the inverse of export_core; Bloomc::FormatError for anything
 * export_core could not have made. */
static VALUE bitwise_import_core(VALUE self, VALUE fields, VALUE body)
{
    rb_check_frozen(self);
    uint64_t v[6];
    bloomc_state_fields(fields, 6, v);
    bf_buckets levels[SAVED_LEVELS_MAX];
    bf_bitwise src = {
        .levels = levels,
        .nlevels = (size_t)bloomc_state_check(v[5], 1, SAVED_LEVELS_MAX, "levels"),
        .m = bloomc_state_check(v[0], 1, BF_BUCKETS_MAX, "m"),
        .k = (uint32_t)bloomc_state_check(v[1], 1, BF_K_MAX, "k"),
        .width = (unsigned)bloomc_state_check(v[2], 1, BF_BUCKET_WIDTH_MAX, "width"),
        .seed = (uint32_t)bloomc_state_check(v[3], 0, UINT32_MAX, "seed"),
        .count = v[4],
    };
    size_t total = 0;
    for (size_t i = 0; i < src.nlevels; i++) {
        bf_buckets_init(&levels[i], src.m, bf_bitwise_level_width(src.width, i));
        size_t n = level_bytes(&levels[i]);
        if (!n || total + n < total) bloomc_format_error("%zu levels of %" PRIu64 " cells are too many for this machine", src.nlevels, src.m);
        total += n;
    }
    const uint8_t *data = bloomc_state_body(body, total);
    for (size_t i = 0; i < src.nlevels; i++) {
        levels[i].data = (uint8_t *)data;
        if (!bf_buckets_tail_clear(&levels[i])) bloomc_format_error("bits set past the last cell of level %zu", i);
        data += level_bytes(&levels[i]);
    }
    replace_state(self, (bf_bitwise){NULL, 0, src.m, src.k, src.seed, src.width, src.count, 0}, &src);
    RB_GC_GUARD(body);
    return self;
}


void bloomc_init_bitwise_bloom_filter(VALUE mBloomc)
{
    cBitwiseBloomFilter = rb_define_class_under(mBloomc, "BitwiseBloomFilter", rb_cObject);
    rb_define_alloc_func(cBitwiseBloomFilter, bitwise_alloc);
    rb_define_private_method(cBitwiseBloomFilter, "setup", bitwise_setup, 4);
    rb_define_method(cBitwiseBloomFilter, "initialize_copy", bitwise_initialize_copy, 1);
    rb_define_method(cBitwiseBloomFilter, "add", bitwise_add, 1);
    rb_define_method(cBitwiseBloomFilter, "<<", bitwise_add, 1);
    rb_define_method(cBitwiseBloomFilter, "add?", bitwise_add_p, 1);
    rb_define_method(cBitwiseBloomFilter, "count", bitwise_count, 1);
    rb_define_method(cBitwiseBloomFilter, "include?", bitwise_include_p, 1);
    rb_define_method(cBitwiseBloomFilter, "[]", bitwise_include_p, 1);
    bloomc_define_batch_methods(cBitwiseBloomFilter, bitwise_batch_add, bitwise_batch_lookup);
    rb_define_method(cBitwiseBloomFilter, "m", bitwise_m, 0);
    rb_define_method(cBitwiseBloomFilter, "k", bitwise_k, 0);
    rb_define_method(cBitwiseBloomFilter, "width", bitwise_width, 0);
    rb_define_method(cBitwiseBloomFilter, "seed", bitwise_seed, 0);
    rb_define_method(cBitwiseBloomFilter, "size", bitwise_size, 0);
    rb_define_private_method(cBitwiseBloomFilter, "distinct", bitwise_distinct, 0);
    rb_define_private_method(cBitwiseBloomFilter, "distinct=", bitwise_set_distinct, 1);
    rb_define_method(cBitwiseBloomFilter, "levels", bitwise_levels, 0);
    rb_define_method(cBitwiseBloomFilter, "==", bitwise_equal, 1);
    rb_define_method(cBitwiseBloomFilter, "eql?", bitwise_equal, 1);
    rb_define_method(cBitwiseBloomFilter, "hash", bitwise_hash, 0);
    rb_define_private_method(cBitwiseBloomFilter, "export_core", bitwise_export_core, 0);
    rb_define_private_method(cBitwiseBloomFilter, "import_core", bitwise_import_core, 2);
    rb_define_private_method(cBitwiseBloomFilter, "combine", bitwise_combine, 2);
    rb_define_method(cBitwiseBloomFilter, "clear", bitwise_clear, 0);
    rb_define_private_method(cBitwiseBloomFilter, "occupied", bitwise_occupied, 0);
}
