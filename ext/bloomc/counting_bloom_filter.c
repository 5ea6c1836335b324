/* Bloomc::CountingBloomFilter: a filter of saturating counters that can
 * delete keys and estimate how often each was added. Keyword construction is
 * in lib/bloomc/counting_bloom_filter.rb; the methods every kind shares are
 * in filter.c. */
#include "cells.h"
#include "keys.h"
#include "args.h"
#include "state.h"

static const bloomc_kind counting_kind;

static bf_counting *get_filter(VALUE self) { return bloomc_filter_core(self, &counting_kind); }

/* :nodoc: called by initialize once the Ruby layer has settled m and k. */
static VALUE counting_setup(VALUE self, VALUE m, VALUE k, VALUE width, VALUE seed, VALUE hash)
{
    bloomc_filter_replaceable(self, &counting_kind);
    bf_counting f = {0};
    uint64_t cells = bloomc_count_arg(m, "m", BF_BUCKETS_MAX);
    f.k = (uint32_t)bloomc_count_arg(k, "k", BF_K_MAX);
    bf_buckets_init(&f.cells, cells, (unsigned)bloomc_count_arg(width, "width", BF_BUCKET_WIDTH_MAX));
    f.seed = bloomc_uint32_arg(seed, "seed");
    f.hash = bloomc_hash_kind_arg(hash);
    bloomc_filter_install(self, &f, bf_buckets_nbytes(f.cells.count, f.cells.width), NULL, 0);
    return self;
}

static bf_key_hash key_hash(const bf_counting *f, VALUE key)
{
    return bloomc_key_hash(key, f->seed, f->hash);
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

/* call-seq: count(key) -> Integer
 *
 * How many times +key+ was added less the times it was deleted: never less,
 * more when other keys share all its cells, and at most the cell maximum
 * (2**width - 1). */
static VALUE counting_count(VALUE self, VALUE key)
{
    const bf_counting *f = get_filter(self);
    return UINT2NUM(bf_counting_count(f, key_hash(f, key)));
}

static int add_one(void *f, bf_key_hash h, int report) { return bf_counting_add(f, h); }
static int contains_one(const void *f, bf_key_hash h) { return bf_counting_count(f, h) > 0; }

/* call-seq: width -> Integer
 *
 * Bits per cell. */
static VALUE counting_width(VALUE self) { return UINT2NUM(get_filter(self)->cells.width); }

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

static void save(const void *core, uint64_t *out)
{
    const bf_counting *f = core;
    uint64_t fields[] = {f->cells.count, f->k, f->cells.width, bloomc_seed_with_hash(f->seed, f->hash), f->count, f->saturated};
    memcpy(out, fields, sizeof fields);
}

static size_t load(void *core, const uint64_t *v)
{
    return bloomc_counting_state(core, v[0], v[1], v[2], v[3], v[4]);
}

static const char *attach(void *core, uint8_t *body, int saved)
{
    return bloomc_counting_state_cells(core, body, saved);
}

static void numbers(void *core, bloomc_numbers *out)
{
    bf_counting *f = core;
    *out = (bloomc_numbers){f->cells.count, &f->count, &f->distinct, f->k, f->seed, f->hash};
}

static void combine(void *core, const void *other, int intersect)
{
    bf_counting_combine(core, other, intersect ? BF_COMBINE_MIN : BF_COMBINE_SUM);
}

static uint64_t occupied(const void *core)
{
    return bf_buckets_count_nonzero(&((const bf_counting *)core)->cells);
}

static size_t body_bytes_for(const void *core, VALUE m)
{
    return bf_buckets_nbytes(bloomc_count_arg(m, "m", BF_BUCKETS_MAX), ((const bf_counting *)core)->cells.width);
}

static const bloomc_kind counting_kind = BLOOMC_KIND(4, "counting_bloom_filter", bf_counting, .nfields = 6,
                                                     .shape_fields = 4, /* m, k, width, seed */
                                                     .methods = BLOOMC_SHARED | BLOOMC_DISTINCT | BLOOMC_HASH_KIND,
                                                     .occupied = occupied, .cleared = bloomc_counting_cleared,
                                                     .add_one = add_one, .contains_one = contains_one,
                                                     .body_bytes_for = body_bytes_for);

BLOOMC_HOT_METHODS(bf_counting, counting_kind)

void bloomc_init_counting_bloom_filter(void)
{
    VALUE mBloomc = rb_define_module("Bloomc");
    VALUE cFilter = rb_define_class_under(mBloomc, "Filter", rb_cObject);
    VALUE cCountingBloomFilter = rb_define_class_under(mBloomc, "CountingBloomFilter", cFilter);
    bloomc_define_kind(cCountingBloomFilter, &counting_kind);
    define_hot_methods(cCountingBloomFilter);
    rb_define_private_method(cCountingBloomFilter, "setup", counting_setup, 5);
    rb_define_method(cCountingBloomFilter, "delete", counting_delete, 1);
    rb_define_method(cCountingBloomFilter, "remove", counting_delete, 1);
    rb_define_method(cCountingBloomFilter, "count", counting_count, 1);
    rb_define_method(cCountingBloomFilter, "width", counting_width, 0);
    rb_define_method(cCountingBloomFilter, "saturated", counting_saturated, 0);
    rb_define_method(cCountingBloomFilter, "cells_in_use", counting_cells_in_use, 0);
}
