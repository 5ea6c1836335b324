/* Bloomc::CountingBloomFilter: a filter of saturating counters that can
 * delete keys and estimate how often each was added. Keyword construction is
 * in lib/bloomc/counting_bloom_filter.rb; the methods every kind shares are
 * in filter.c. */
#include "cells.h"
#include "keys.h"
#include "args.h"
#include "state.h"

static const bloomc_kind counting_kind;

/* :nodoc: called by initialize once the Ruby layer has settled m and k. */
static VALUE setup(VALUE self, VALUE m, VALUE k, VALUE width, VALUE seed, VALUE hash)
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

static int add_one(void *f, bf_key_hash h, int report) { return bf_counting_add(f, h); }
static int contains_one(const void *f, bf_key_hash h) { return bf_counting_count(f, h) > 0; }

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
    *out = (bloomc_numbers){f->cells.count, &f->count, &f->distinct, f->k, f->seed, f->hash, f->cells.width, f->saturated};
}

static void combine(void *core, const void *other, int intersect)
{
    bf_counting_combine(core, other, intersect ? BF_COMBINE_MIN : BF_COMBINE_SUM);
}

static uint64_t occupied(const void *core)
{
    return bf_buckets_count_nonzero(&((const bf_counting *)core)->cells);
}

static int remove_one(void *f, bf_key_hash h) { return bf_counting_remove(f, h); }
static uint64_t count_one(const void *f, bf_key_hash h) { return bf_counting_count(f, h); }
BLOOMC_HOT_DELETE(bf_counting, counting_kind)
BLOOMC_HOT_COUNT(bf_counting, counting_kind)
BLOOMC_HOT_METHODS(bf_counting, counting_kind)

static const bloomc_kind counting_kind = BLOOMC_KIND(4, "CountingBloomFilter", bf_counting, .setup_arity = 5, .hot = &hot_methods, .remove_one = remove_one, .count_one = count_one, .hot_delete = hot_delete, .hot_count = hot_count, .nfields = 6,
                                                     .shape_fields = 4, /* m, k, width, seed */
                                                     .methods = BLOOMC_WIDTH | BLOOMC_SATURATED | BLOOMC_SHARED | BLOOMC_DISTINCT | BLOOMC_HASH_KIND,
                                                     .occupied = occupied, .cleared = bloomc_counting_cleared,
                                                     .add_one = add_one, .contains_one = contains_one,
                                                     .mappable = 1);


void bloomc_init_counting_bloom_filter(void)
{
    VALUE mBloomc = rb_define_module("Bloomc");
    VALUE klass = rb_define_class_under(mBloomc, "CountingBloomFilter", rb_path2class("Bloomc::Filter"));
    bloomc_define_kind(klass, &counting_kind);
}
