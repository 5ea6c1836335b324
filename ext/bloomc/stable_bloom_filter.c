/* Bloomc::StableBloomFilter: a filter for endless streams that forgets old
 * keys at a steady rate. Keyword construction is in
 * lib/bloomc/stable_bloom_filter.rb; the methods every kind shares are in
 * filter.c. */
#include "filter.h"
#include "keys.h"
#include "args.h"
#include "state.h"
#include "bf_stable.h"

static const bloomc_kind stable_kind;

static bf_stable *get_filter(VALUE self) { return bloomc_filter_core(self, &stable_kind); }

/* :nodoc: called by initialize once the Ruby layer has settled the shape
 * (random_seed is an Integer in 0...2**64, checked there). */
static VALUE setup(VALUE self, VALUE m, VALUE k, VALUE d, VALUE width, VALUE seed, VALUE random_seed, VALUE hash)
{
    bloomc_filter_replaceable(self, &stable_kind);
    bf_stable f = {0};
    uint64_t cells = bloomc_count_arg(m, "m", BF_BUCKETS_MAX); /* checked in order */
    f.k = (uint32_t)bloomc_count_arg(k, "k", BF_K_MAX);
    f.d = bloomc_count_arg(d, "d", cells);
    bf_buckets_init(&f.cells, cells, (unsigned)bloomc_count_arg(width, "width", BF_BUCKET_WIDTH_MAX));
    f.seed = bloomc_uint32_arg(seed, "seed");
    f.random = NUM2ULL(random_seed);
    f.hash = bloomc_hash_kind_arg(hash);
    bloomc_filter_install(self, &f, bf_buckets_nbytes(f.cells.count, f.cells.width), NULL, 0);
    return self;
}

/* call-seq: d -> Integer
 *
 * The number of random cells decremented per add. */
static VALUE stable_d(VALUE self) { return ULL2NUM(get_filter(self)->d); }

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

static int add_one(void *f, bf_key_hash h, int report) { return bf_stable_add(f, h, report); }
static int contains_one(const void *f, bf_key_hash h) { return bf_stable_contains(f, h); }

/* [m, k, d, width, seed, generator state, count] (docs/FORMAT.md): the
 * generator's state is saved, so that a loaded copy forgets the same cells
 * next as its original. */
static void save(const void *core, uint64_t *out)
{
    const bf_stable *f = core;
    uint64_t fields[] = {f->cells.count, f->k, f->d, f->cells.width, bloomc_seed_with_hash(f->seed, f->hash), f->random, f->count};
    memcpy(out, fields, sizeof fields);
}

/* Checked in the order import_core always checked them (the first bad field
 * is the one reported); any generator state is valid. */
static size_t load(void *core, const uint64_t *v)
{
    bf_stable *f = core;
    f->k = (uint32_t)bloomc_state_check(v[1], 1, BF_K_MAX, "k");
    f->seed = (uint32_t)v[4];
    f->hash = bloomc_hash_of_seed(v[4]);
    f->random = v[5];
    f->count = v[6];
    uint64_t m = bloomc_state_check(v[0], 1, BF_BUCKETS_MAX, "m");
    unsigned width = (unsigned)bloomc_state_check(v[3], 1, BF_BUCKET_WIDTH_MAX, "width");
    f->d = bloomc_state_check(v[2], 1, m, "d");
    bf_buckets_init(&f->cells, m, width);
    return bf_buckets_nbytes(m, width);
}

static const char *attach(void *core, uint8_t *body, int saved)
{
    bf_stable *f = core;
    f->cells.data = body;
    return bf_buckets_tail_clear(&f->cells) ? NULL : "bits set past the last cell";
}

static void numbers(void *core, bloomc_numbers *out)
{
    bf_stable *f = core;
    *out = (bloomc_numbers){.m = f->cells.count, .count = &f->count, .k = f->k, .seed = f->seed, .hash = f->hash, .width = f->cells.width};
}

/* Cell maxima or minima; self keeps its generator. */
static void combine(void *core, const void *other, int intersect)
{
    bf_stable_combine(core, other, intersect ? BF_COMBINE_MIN : BF_COMBINE_MAX);
}

static uint64_t occupied(const void *core)
{
    return bf_buckets_count_nonzero(&((const bf_stable *)core)->cells);
}

static bf_key_hash key_hash(const bf_stable *f, VALUE key) { return bloomc_key_hash(key, f->seed, f->hash); }
BLOOMC_HOT_METHODS(bf_stable, stable_kind)

static const bloomc_kind stable_kind = BLOOMC_KIND(7, "StableBloomFilter", bf_stable, .setup_arity = 7, .hot = &hot_methods, .nfields = 7,
                                                   .shape_fields = 5, /* m, k, d, width, seed; the generator runs on after a clear */
                                                   .methods = BLOOMC_WIDTH | BLOOMC_SHARED | BLOOMC_HASH_KIND, .occupied = occupied,
                                                   .add_one = add_one, .contains_one = contains_one);

void bloomc_init_stable_bloom_filter(void)
{
    VALUE mBloomc = rb_define_module("Bloomc");
    VALUE klass = rb_define_class_under(mBloomc, "StableBloomFilter", rb_path2class("Bloomc::Filter"));
    bloomc_define_kind(klass, &stable_kind);
    rb_define_method(klass, "d", stable_d, 0);
    rb_define_method(klass, "stable_zero_fraction", stable_stable_zero_fraction, 0);
    rb_define_method(klass, "stable_false_positive_rate", stable_stable_fpr, 0);
    rb_define_private_method(rb_singleton_class(klass), "d_for", stable_s_d_for, 4);
}
