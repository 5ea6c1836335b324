/* Bloomc::BloomFilter: the plain Bloom filter (bloombroom's BloomFilter API).
 * Construction from capacity and error rate lives in lib/bloomc/bloom_filter.rb;
 * the methods every kind shares are in filter.c. */
#include "filter.h"
#include "keys.h"
#include "args.h"
#include "state.h"
#include "views.h"
#include "bf_bloom.h"

static const bloomc_kind bloom_kind;

static bf_bloom *get_filter(VALUE self) { return bloomc_filter_core(self, &bloom_kind); }

/* :nodoc: called by initialize once the Ruby layer has settled m and k. */
static VALUE setup(VALUE self, VALUE m, VALUE k, VALUE seed, VALUE hash)
{
    bloomc_filter_replaceable(self, &bloom_kind);
    bf_bloom f = {
        .bits.nbits = bloomc_count_arg(m, "m", BF_BITS_MAX),
        .k = (uint32_t)bloomc_count_arg(k, "k", BF_K_MAX),
        .seed = bloomc_uint32_arg(seed, "seed"),
        .hash = bloomc_hash_kind_arg(hash),
    };
    bloomc_filter_install(self, &f, bf_bits_nbytes(f.bits.nbits), NULL, 0);
    return self;
}

static bf_key_hash key_hash(const bf_bloom *f, VALUE key) { return bloomc_key_hash(key, f->seed, f->hash); }
static int add_one(bf_bloom *f, bf_key_hash h, int report) { return bf_bloom_add(f, h); }
static int contains_one(const bf_bloom *f, bf_key_hash h) { return bf_bloom_contains(f, h); }
BLOOMC_HOT_METHODS(bf_bloom, bloom_kind)

/* :nodoc: bloombroom's add, which returns the number of keys added so far
 * (the drop-in's add and <<). */
static VALUE bloom_filter_add_counting(VALUE self, VALUE key)
{
    hot_add(self, key);
    return ULL2NUM(get_filter(self)->count);
}

/* call-seq: bits -> BitField
 *
 * The filter's bits as a BitField that shares the filter's memory. */
static VALUE bloom_filter_bits(VALUE self)
{
    return bloomc_bit_field_view(self, &get_filter(self)->bits);
}

static void scatter(const void *f, const bf_key_hash *h, size_t n, size_t first, unsigned parts, uint64_t **next)
{
    bf_bloom_scatter(f, h, n, first, parts, next);
}
static void apply(void *f, const uint64_t *entries, size_t n, uint8_t *out) { bf_bloom_apply(f, entries, n, out); }
static void add_many(void *f, const bf_key_hash *h, size_t n, uint8_t *out) { bf_bloom_add_many(f, h, n, out); }
static void contains_many(void *f, const bf_key_hash *h, size_t n, uint8_t *out) { bf_bloom_contains_many(f, h, n, out); }

static void save(const void *core, uint64_t *out)
{
    const bf_bloom *f = core;
    uint64_t fields[] = {f->bits.nbits, f->k, f->seed, (uint64_t)f->hash, f->count};
    memcpy(out, fields, sizeof fields);
}

static size_t load(void *core, const uint64_t *v)
{
    bf_bloom *f = core;
    *f = (bf_bloom){
        .bits.nbits = bloomc_state_check(v[0], 1, BF_BITS_MAX, "m"),
        .k = (uint32_t)bloomc_state_check(v[1], 1, BF_K_MAX, "k"),
        .seed = (uint32_t)bloomc_state_check(v[2], 0, UINT32_MAX, "seed"),
        .hash = (bf_hash_kind)bloomc_state_check(v[3], BF_HASH_MURMUR3, BF_HASH_MURMUR3_MIXED, "hash"),
        .count = v[4],
    };
    if (f->hash == BF_HASH_FNV1A && f->seed) bloomc_format_error("an fnv1a filter has seed 0, not %u", f->seed);
    return bf_bits_nbytes(f->bits.nbits);
}

static const char *attach(void *core, uint8_t *body, int saved)
{
    bf_bloom *f = core;
    f->bits.data = body;
    return bf_bits_tail_clear(&f->bits) ? NULL : "bits set past m";
}

static void numbers(void *core, bloomc_numbers *out)
{
    bf_bloom *f = core;
    *out = (bloomc_numbers){.m = f->bits.nbits, .count = &f->count, .distinct = &f->distinct, .k = f->k, .seed = f->seed, .hash = f->hash};
}

static void combine(void *core, const void *other, int intersect) { bloomc_combine_bits(core, other, intersect); }

static const bloomc_kind bloom_kind = BLOOMC_KIND(1, "BloomFilter", bf_bloom, .setup_arity = 4, .hot = &hot_methods, .nfields = 5,
                                                  .shape_fields = 4, /* m, k, seed, hash */
                                                  .methods = BLOOMC_SHARED | BLOOMC_DISTINCT | BLOOMC_HASH_KIND,
                                                  .occupied = bloomc_occupied_bits, .add_many = add_many, .scatter = scatter,
                                                  .apply = apply, .contains_many = contains_many,
                                                  .mappable = 1);

void bloomc_init_bloom_filter(void)
{
    VALUE mBloomc = rb_define_module("Bloomc");
    VALUE klass = rb_define_class_under(mBloomc, "BloomFilter", rb_path2class("Bloomc::Filter"));
    bloomc_define_kind(klass, &bloom_kind);
    rb_define_private_method(klass, "add_counting", bloom_filter_add_counting, 1);
    rb_define_method(klass, "bits", bloom_filter_bits, 0);
}
