/* Bloomc::A2BloomFilter: active-active buffering, a filter that remembers at
 * least its last `capacity` distinct keys and forgets older ones in bulk.
 * Sizing from an error rate is in lib/bloomc/a2_bloom_filter.rb; the methods
 * every kind shares are in filter.c. */
#include "filter.h"
#include "keys.h"
#include "args.h"
#include "state.h"
#include "bf_a2.h"

static const bloomc_kind a2_kind;

static bf_a2 *get_filter(VALUE self) { return bloomc_filter_core(self, &a2_kind); }

/* The bytes of both halves of half_bits each (0: too many for this machine). */
static size_t halves_bytes(uint64_t half_bits)
{
    size_t nbytes = bf_bits_nbytes(half_bits);
    return nbytes > SIZE_MAX / 2 ? 0 : 2 * nbytes;
}

/* :nodoc: called by initialize once the Ruby layer has settled m, k and the
 * capacity; m is rounded up to an even number of bits. */
static VALUE setup(VALUE self, VALUE m, VALUE k, VALUE capacity, VALUE seed, VALUE hash)
{
    bloomc_filter_replaceable(self, &a2_kind);
    /* One statement per argument: checked in order, as before. */
    uint64_t half_bits = (bloomc_count_arg(m, "m", BF_BITS_MAX) + 1) / 2;
    uint32_t probes = (uint32_t)bloomc_count_arg(k, "k", BF_K_MAX);
    uint64_t keys = bloomc_count_arg(capacity, "capacity", UINT64_MAX);
    bf_a2 f = {{{.nbits = half_bits}, {.nbits = half_bits}}, .k = probes, .capacity = keys};
    f.seed = bloomc_uint32_arg(seed, "seed");
    f.hash = bloomc_hash_kind_arg(hash);
    bloomc_filter_install(self, &f, halves_bytes(half_bits), NULL, 0);
    return self;
}

/* :nodoc: bits set in the active half and in the other, for Bloomc::Stats. */
static VALUE a2_occupied_halves(VALUE self)
{
    const bf_a2 *f = get_filter(self);
    return rb_assoc_new(ULL2NUM(bf_bits_count(&f->halves[f->active])), ULL2NUM(bf_bits_count(&f->halves[1 - f->active])));
}

/* :nodoc: the manual's k for a target rate. */
static VALUE a2_s_optimal_k(VALUE klass, VALUE p) { return UINT2NUM(bf_a2_optimal_k(NUM2DBL(p))); }

/* :nodoc: the manual's capacity for m bits and k. */
static VALUE a2_s_optimal_capacity(VALUE klass, VALUE m, VALUE k)
{
    uint64_t nbits = bloomc_count_arg(m, "m", BF_BITS_MAX); /* setup's check and error, before setup */
    return ULL2NUM(bf_a2_optimal_capacity(nbits, (uint32_t)bloomc_count_arg(k, "k", BF_K_MAX)));
}

/* :nodoc: the bits for capacity keys a half at rate p with k probes (nil:
 * no filter holds it). */
static VALUE a2_s_sized_bits(VALUE klass, VALUE capacity, VALUE k, VALUE p)
{
    uint64_t bits = bf_a2_sized_bits(NUM2DBL(capacity), NUM2UINT(k), NUM2DBL(p));
    return bits ? ULL2NUM(bits) : Qnil;
}

/* :nodoc: the rate with both halves holding n keys. */
static VALUE a2_s_model_fpr(VALUE klass, VALUE m, VALUE k, VALUE n)
{
    return DBL2NUM(bf_a2_fpr(NUM2ULL(m), NUM2UINT(k), NUM2DBL(n)));
}

static bf_key_hash key_hash(const bf_a2 *f, VALUE key) { return bloomc_key_hash(key, f->seed, f->hash); }
static int add_one(void *f, bf_key_hash h, int report) { return bf_a2_add(f, h, report); }
static int contains_one(const void *f, bf_key_hash h) { return bf_a2_contains(f, h); }

/* [half bits, k, seed, capacity, active half, keys in it, count, swaps];
 * the body is half 0 then half 1 (docs/FORMAT.md). */
static void save(const void *core, uint64_t *out)
{
    const bf_a2 *f = core;
    uint64_t fields[] = {f->halves[0].nbits, f->k, bloomc_seed_with_hash(f->seed, f->hash), f->capacity, f->active, f->in_active, f->count, f->swaps};
    memcpy(out, fields, sizeof fields);
}

static size_t load(void *core, const uint64_t *v)
{
    bf_a2 *f = core;
    uint64_t half_bits = bloomc_state_check(v[0], 1, BF_BITS_MAX / 2, "half bits");
    *f = (bf_a2){
        .halves = {{.nbits = half_bits}, {.nbits = half_bits}},
        .k = (uint32_t)bloomc_state_check(v[1], 1, BF_K_MAX, "k"),
        .seed = (uint32_t)v[2],
        .hash = bloomc_hash_of_seed(v[2]),
        .capacity = bloomc_state_check(v[3], 1, UINT64_MAX, "capacity"),
        .active = (unsigned)bloomc_state_check(v[4], 0, 1, "active half"),
        .count = v[6],
        .swaps = v[7],
    };
    f->in_active = bloomc_state_check(v[5], 0, f->capacity, "keys in the active half");
    return halves_bytes(half_bits);
}

static const char *attach(void *core, uint8_t *body, int saved)
{
    bf_a2 *f = core;
    f->halves[0].data = body;
    f->halves[1].data = body + bf_bits_nbytes(f->halves[0].nbits);
    if (!bf_bits_tail_clear(&f->halves[0])) return "bits set past the end of half 0";
    return bf_bits_tail_clear(&f->halves[1]) ? NULL : "bits set past the end of half 1";
}

static void numbers(void *core, bloomc_numbers *out)
{
    bf_a2 *f = core;
    *out = (bloomc_numbers){.m = 2 * f->halves[0].nbits, .count = &f->count, .k = f->k, .seed = f->seed, .hash = f->hash};
}

/* Half by half OR or AND. */
static void combine(void *core, const void *other, int intersect)
{
    if (intersect) bf_a2_intersect(core, other);
    else bf_a2_union(core, other);
}

/* Both halves empty, size and swaps 0. */
static void cleared(void *core)
{
    bf_a2 *f = core;
    f->active = 0;
    f->in_active = f->swaps = 0;
}

BLOOMC_HOT_METHODS(bf_a2, a2_kind)

static const bloomc_kind a2_kind = BLOOMC_KIND(8, "A2BloomFilter", bf_a2, .setup_arity = 5, .hot = &hot_methods, .nfields = 8,
                                               .shape_fields = 4, /* half bits, k, seed, capacity */
                                               .methods = BLOOMC_SHARED | BLOOMC_HASH_KIND, .cleared = cleared,
                                               .add_one = add_one, .contains_one = contains_one);


void bloomc_init_a2_bloom_filter(void)
{
    VALUE mBloomc = rb_define_module("Bloomc");
    VALUE klass = rb_define_class_under(mBloomc, "A2BloomFilter", rb_path2class("Bloomc::Filter"));
    bloomc_define_kind(klass, &a2_kind);
    rb_define_private_method(klass, "occupied_halves", a2_occupied_halves, 0);
    VALUE singleton = rb_singleton_class(klass);
    rb_define_private_method(singleton, "optimal_k", a2_s_optimal_k, 1);
    rb_define_private_method(singleton, "optimal_capacity", a2_s_optimal_capacity, 2);
    rb_define_private_method(singleton, "model_fpr", a2_s_model_fpr, 3);
    rb_define_private_method(singleton, "sized_bits", a2_s_sized_bits, 3);
}
