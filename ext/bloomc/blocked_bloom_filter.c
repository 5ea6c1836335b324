/* Bloomc::BlockedBloomFilter: a Bloom filter whose keys each set their k bits
 * inside one 64-byte block (see bf_blocked.h). Construction from capacity and
 * error rate lives in lib/bloomc/blocked_bloom_filter.rb; the methods every
 * kind shares are in filter.c. */
#include "filter.h"
#include "keys.h"
#include "args.h"
#include "state.h"
#include "views.h"
#include "bf_blocked.h"

static const bloomc_kind blocked_kind;

static bf_blocked *get_filter(VALUE self) { return bloomc_filter_core(self, &blocked_kind); }

/* :nodoc: called by initialize once the Ruby layer has settled m and k; m is
 * rounded up to whole blocks. */
static VALUE setup(VALUE self, VALUE m, VALUE k, VALUE seed)
{
    bloomc_filter_replaceable(self, &blocked_kind);
    uint64_t nbits = bloomc_count_arg(m, "m", BF_BITS_MAX);
    bf_blocked f = {.nblocks = (nbits + BF_BLOCK_BITS - 1) / BF_BLOCK_BITS};
    f.k = (uint32_t)bloomc_count_arg(k, "k", BF_K_MAX); /* checked in order */
    f.seed = bloomc_uint32_arg(seed, "seed");
    f.bits.nbits = f.nblocks * BF_BLOCK_BITS;
    bloomc_filter_install(self, &f, bf_bits_nbytes(f.bits.nbits), NULL, 0);
    return self;
}

/* :nodoc: [m, k] for capacity keys at error (checked by the Ruby layer). */
static VALUE blocked_optimal_m_k(VALUE klass, VALUE capacity, VALUE error)
{
    (void)klass;
    double n = NUM2DBL(capacity), e = NUM2DBL(error);
    uint32_t k;
    uint64_t nblocks = bf_blocked_size(n, e, &k);
    if (!nblocks)
        rb_raise(rb_eArgError, "capacity %" PRIsVALUE " at error %" PRIsVALUE " needs more bits than a filter can hold",
                 capacity, error);
    return rb_assoc_new(ULL2NUM(nblocks * BF_BLOCK_BITS), UINT2NUM(k));
}

/* :nodoc: the modelled false-positive rate of m bits and k probes holding n keys. */
static VALUE blocked_model_fpr(VALUE klass, VALUE m, VALUE k, VALUE n)
{
    (void)klass;
    uint64_t nbits = bloomc_count_arg(m, "m", BF_BITS_MAX);
    uint32_t nprobes = (uint32_t)bloomc_count_arg(k, "k", BF_K_MAX);
    return DBL2NUM(bf_blocked_fpr(NUM2DBL(n), (nbits + BF_BLOCK_BITS - 1) / BF_BLOCK_BITS, nprobes));
}

/* call-seq: bits -> BitField
 *
 * The filter's bits as a BitField that shares the filter's memory; block b
 * is bits 512b ... 512(b + 1). */
static VALUE blocked_bits(VALUE self)
{
    return bloomc_bit_field_view(self, &get_filter(self)->bits);
}

/* :nodoc: the false-positive rate of the bits as they are, block by block. */
static VALUE blocked_current_fpr(VALUE self)
{
    return DBL2NUM(bf_blocked_current_fpr(get_filter(self)));
}

static void add_part(void *f, const bf_key_hash *h, size_t n, uint8_t *out, size_t lo, size_t hi) { bf_blocked_add_part(f, h, n, out, lo, hi); }
static void add_many(void *f, const bf_key_hash *h, size_t n, uint8_t *out) { bf_blocked_add_many(f, h, n, out); }
static void contains_many(void *f, const bf_key_hash *h, size_t n, uint8_t *out) { bf_blocked_contains_many(f, h, n, out); }

static void save(const void *core, uint64_t *out)
{
    const bf_blocked *f = core;
    uint64_t fields[] = {f->nblocks, f->k, f->seed, f->count};
    memcpy(out, fields, sizeof fields);
}

static size_t load(void *core, const uint64_t *v)
{
    bf_blocked *f = core;
    *f = (bf_blocked){
        .nblocks = bloomc_state_check(v[0], 1, BF_BLOCKS_MAX, "blocks"),
        .k = (uint32_t)bloomc_state_check(v[1], 1, BF_K_MAX, "k"),
        .seed = (uint32_t)bloomc_state_check(v[2], 0, UINT32_MAX, "seed"),
        .count = v[3],
    };
    f->bits.nbits = f->nblocks * BF_BLOCK_BITS;
    return bf_bits_nbytes(f->bits.nbits);
}

/* Whole blocks: no bits past m to check. */
static const char *attach(void *core, uint8_t *body, int saved)
{
    ((bf_blocked *)core)->bits.data = body;
    return NULL;
}

static void numbers(void *core, bloomc_numbers *out)
{
    bf_blocked *f = core;
    *out = (bloomc_numbers){.m = f->bits.nbits, .count = &f->count, .distinct = &f->distinct, .k = f->k, .seed = f->seed, .hash = BF_HASH_MURMUR3};
}

static void combine(void *core, const void *other, int intersect) { bloomc_combine_bits(core, other, intersect); }

static bf_key_hash key_hash(const bf_blocked *f, VALUE key) { return bloomc_key_hash(key, f->seed, BF_HASH_MURMUR3); }
static int add_one(bf_blocked *f, bf_key_hash h, int report) { return bf_blocked_add(f, h); }
static int contains_one(const bf_blocked *f, bf_key_hash h) { return bf_blocked_contains(f, h); }
BLOOMC_HOT_METHODS(bf_blocked, blocked_kind)

static const bloomc_kind blocked_kind = BLOOMC_KIND(2, "BlockedBloomFilter", bf_blocked, .setup_arity = 3, .hot = &hot_methods,
                                                    .alignment = BF_BLOCK_BYTES,     /* a block is exactly one cache line */
                                                    .nfields = 4, .shape_fields = 3, /* blocks, k, seed */
                                                    .methods = BLOOMC_SHARED | BLOOMC_DISTINCT,
                                                    .occupied = bloomc_occupied_bits, .add_many = add_many,
                                                    .add_part = add_part, .contains_many = contains_many, .pages_per_key = 1,
                                                    /* its k bits share one block */);

void bloomc_init_blocked_bloom_filter(void)
{
    VALUE mBloomc = rb_define_module("Bloomc");
    VALUE klass = rb_define_class_under(mBloomc, "BlockedBloomFilter", rb_path2class("Bloomc::Filter"));
    bloomc_define_kind(klass, &blocked_kind);
    /* Bits per block: m is always a multiple of it. */
    rb_define_const(klass, "BLOCK_BITS", INT2FIX(BF_BLOCK_BITS));
    rb_define_private_method(rb_singleton_class(klass), "optimal_m_k", blocked_optimal_m_k, 2);
    rb_define_private_method(rb_singleton_class(klass), "model_fpr", blocked_model_fpr, 3);
    rb_define_method(klass, "bits", blocked_bits, 0);
    rb_define_private_method(klass, "current_fpr", blocked_current_fpr, 0);
}
