/* Bloomc::BlockedBloomFilter: a Bloom filter whose keys each set their k bits
 * inside one 64-byte block (see bf_blocked.h). Construction from capacity and
 * error rate lives in lib/bloomc/blocked_bloom_filter.rb. */
#include "bloomc.h"
#include "bf_blocked.h"

static VALUE cBlockedBloomFilter;

/* The core filter and the allocation its 64-byte-aligned bits live in. */
typedef struct {
    bf_blocked core;
    void *allocation;
} blocked_t;

static void blocked_free(void *ptr)
{
    blocked_t *b = ptr;
    ruby_xfree(b->allocation);
    ruby_xfree(b);
}

static size_t blocked_bytes(uint64_t nblocks)
{
    return bf_bits_nbytes(nblocks * BF_BLOCK_BITS);
}

static size_t blocked_memsize(const void *ptr)
{
    const blocked_t *b = ptr;
    return sizeof(*b) + (b->allocation ? blocked_bytes(b->core.nblocks) + BF_BLOCK_BYTES - 1 : 0);
}

static const rb_data_type_t blocked_type = {
    .wrap_struct_name = "bloomc/blocked_bloom_filter",
    .function = {
        .dfree = blocked_free,
        .dsize = blocked_memsize,
    },
    .flags = RUBY_TYPED_FREE_IMMEDIATELY | RUBY_TYPED_WB_PROTECTED,
};

static VALUE blocked_alloc(VALUE klass)
{
    blocked_t *b;
    return TypedData_Make_Struct(klass, blocked_t, &blocked_type, b);
}

static blocked_t *get_state(VALUE self)
{
    blocked_t *b = bloomc_typed_data(self, &blocked_type);
    if (!b->allocation) rb_raise(rb_eTypeError, "uninitialized %" PRIsVALUE, rb_obj_class(self));
    return b;
}

static bf_blocked *get_filter(VALUE self)
{
    return &get_state(self)->core;
}

/* Replace the filter's state: nblocks zeroed blocks, or a copy of src. The
 * bits are aligned to 64 bytes so that a block is exactly one cache line. */
static void blocked_reset(blocked_t *b, uint64_t nblocks, uint32_t k, uint32_t seed, const bf_blocked *src)
{
    size_t nbytes = blocked_bytes(nblocks);
    if (!nbytes) rb_raise(rb_eArgError, "m is too large for this machine"); /* 32-bit size_t */
    void *allocation = ruby_xcalloc(nbytes + BF_BLOCK_BYTES - 1, 1);
    uint8_t *data = (uint8_t *)(((uintptr_t)allocation + BF_BLOCK_BYTES - 1) & ~(uintptr_t)(BF_BLOCK_BYTES - 1));
    if (src) memcpy(data, src->bits.data, nbytes);
    ruby_xfree(b->allocation);
    b->allocation = allocation;
    bf_blocked *f = &b->core;
    f->bits.data = data;
    f->bits.nbits = nblocks * BF_BLOCK_BITS;
    f->nblocks = nblocks;
    f->k = k;
    f->seed = seed;
    f->count = src ? src->count : 0;
    f->distinct = src ? src->distinct : 0;
}

/* :nodoc: called by initialize once the Ruby layer has settled m and k; m is
 * rounded up to whole blocks. */
static VALUE blocked_setup(VALUE self, VALUE m, VALUE k, VALUE seed)
{
    rb_check_frozen(self);
    blocked_t *b = bloomc_typed_data(self, &blocked_type);
    uint64_t nbits = bloomc_count_arg(m, "m", BF_BITS_MAX);
    uint32_t nprobes = (uint32_t)bloomc_count_arg(k, "k", BF_K_MAX);
    uint32_t hash_seed = bloomc_uint32_arg(seed, "seed");
    blocked_reset(b, (nbits + BF_BLOCK_BITS - 1) / BF_BLOCK_BITS, nprobes, hash_seed, NULL);
    return self;
}

/* :nodoc: deep copy for dup and clone. */
static VALUE blocked_initialize_copy(VALUE self, VALUE orig)
{
    rb_check_frozen(self);
    if (self == orig) return self;
    const bf_blocked *src = get_filter(orig);
    blocked_reset(bloomc_typed_data(self, &blocked_type), src->nblocks, src->k, src->seed, src);
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

/*
 * call-seq:
 *   add(key) -> self
 *   self << key -> self
 *
 * Adds +key+ (a String, by its bytes; a Symbol, by its name; or an Integer).
 */
static VALUE blocked_add(VALUE self, VALUE key)
{
    rb_check_frozen(self);
    bf_blocked *f = get_filter(self);
    bf_blocked_add(f, bloomc_key_hash(key, f->seed, BF_HASH_MURMUR3));
    return self;
}

/*
 * call-seq: add?(key) -> self or nil
 *
 * Adds +key+ as #add does; returns self when it was new (a bit changed),
 * nil when it was probably present, as Set#add? does.
 */
static VALUE blocked_add_p(VALUE self, VALUE key)
{
    rb_check_frozen(self);
    bf_blocked *f = get_filter(self);
    return bloomc_add_p_result(self, bf_blocked_add(f, bloomc_key_hash(key, f->seed, BF_HASH_MURMUR3)));
}

/*
 * call-seq:
 *   include?(key) -> true or false
 *   self[key] -> true or false
 *
 * False when +key+ was never added; true when it was, and (rarely, at the
 * filter's false-positive rate) for a key that was not.
 */
static VALUE blocked_include_p(VALUE self, VALUE key)
{
    const bf_blocked *f = get_filter(self);
    return RBOOL(bf_blocked_contains(f, bloomc_key_hash(key, f->seed, BF_HASH_MURMUR3)));
}

static void add_many(void *f, const bf_key_hash *h, size_t n, uint8_t *out)
{
    bf_blocked_add_many(f, h, n, out);
}

static void contains_many(void *f, const bf_key_hash *h, size_t n, uint8_t *out)
{
    bf_blocked_contains_many(f, h, n, out);
}

/* :nodoc: add_all's and add_new's work (lib/bloomc/batch.rb). */
static VALUE blocked_batch_add(VALUE self, VALUE keys, VALUE collect)
{
    rb_check_frozen(self);
    bf_blocked *f = get_filter(self);
    bloomc_batch b = {f, f->seed, BF_HASH_MURMUR3, add_many, contains_many};
    return bloomc_batch_add(&b, keys, collect);
}

/* :nodoc: the batch lookups' work (lib/bloomc/batch.rb). */
static VALUE blocked_batch_lookup(VALUE self, VALUE keys, VALUE mode)
{
    bf_blocked *f = get_filter(self);
    bloomc_batch b = {f, f->seed, BF_HASH_MURMUR3, add_many, contains_many};
    return bloomc_batch_lookup(&b, keys, mode);
}

/*
 * call-seq: m -> Integer
 *
 * The number of bits: a whole number of 512-bit blocks.
 */
static VALUE blocked_m(VALUE self)
{
    return ULL2NUM(get_filter(self)->bits.nbits);
}

/*
 * call-seq: k -> Integer
 *
 * The number of bits set per key, all in one block.
 */
static VALUE blocked_k(VALUE self)
{
    return UINT2NUM(get_filter(self)->k);
}

/*
 * call-seq: seed -> Integer
 *
 * The MurmurHash3 seed of the key hash.
 */
static VALUE blocked_seed(VALUE self)
{
    return UINT2NUM(get_filter(self)->seed);
}

/*
 * call-seq: size -> Integer
 *
 * The number of add calls so far (a key added twice counts twice).
 */
static VALUE blocked_size(VALUE self)
{
    return ULL2NUM(get_filter(self)->count);
}

/* :nodoc: keys new to the filter, for over_capacity? (lib/bloomc/sizing.rb). */
static VALUE blocked_distinct(VALUE self) { return ULL2NUM(get_filter(self)->distinct); }

/* :nodoc: sets it, for a filter loaded or merged. */
static VALUE blocked_set_distinct(VALUE self, VALUE n)
{
    get_filter(self)->distinct = NUM2ULL(n);
    return n;
}

/*
 * call-seq: bits -> BitField
 *
 * The filter's bits as a BitField that shares the filter's memory; block b
 * is bits 512b ... 512(b + 1).
 */
static VALUE blocked_bits(VALUE self)
{
    return bloomc_bit_field_view(self, &get_filter(self)->bits);
}

/*
 * call-seq: self == other -> true or false
 *
 * Equal when +other+ is a BlockedBloomFilter of the same m, k and seed with
 * the same bits and key count.
 */
static VALUE blocked_equal(VALUE self, VALUE other)
{
    if (self == other) return Qtrue;
    if (!rb_typeddata_is_kind_of(other, &blocked_type)) return Qfalse;
    const bf_blocked *a = get_filter(self), *b = get_filter(other);
    return RBOOL(a->nblocks == b->nblocks && a->k == b->k && a->seed == b->seed && a->count == b->count &&
                 memcmp(a->bits.data, b->bits.data, blocked_bytes(a->nblocks)) == 0);
}

/*
 * call-seq: hash -> Integer
 *
 * A hash of the shape, seed, key count and bits, consistent with ==.
 */
static VALUE blocked_hash(VALUE self)
{
    const bf_blocked *f = get_filter(self);
    st_index_t h = rb_memhash(f->bits.data, (long)blocked_bytes(f->nblocks));
    return ST2FIX(h ^ (st_index_t)(f->nblocks * 31 + f->k * 7 + f->seed + f->count * 131));
}

/* :nodoc: the false-positive rate of the bits as they are, block by block. */
static VALUE blocked_current_fpr(VALUE self)
{
    return DBL2NUM(bf_blocked_current_fpr(get_filter(self)));
}

/* :nodoc: cells (bits) that are not zero, for Bloomc::Stats. */
static VALUE blocked_occupied(VALUE self)
{
    return ULL2NUM(bf_bits_count(&get_filter(self)->bits));
}

/* :nodoc: self |= other or self &= other (Bloomc::SetOps checks shapes). */
static VALUE blocked_combine(VALUE self, VALUE other, VALUE op)
{
    rb_check_frozen(self);
    bf_blocked *f = get_filter(self);
    const bf_blocked *o = get_filter(other);
    int and = bloomc_intersection_arg(op, f->nblocks == o->nblocks && f->k == o->k && f->seed == o->seed);
    bf_bits_merge(&f->bits, &f->count, &o->bits, o->count, and);
    return self;
}

/*
 * call-seq: clear -> self
 *
 * Forgets every key: no bit set, size 0.
 */
static VALUE blocked_clear(VALUE self)
{
    rb_check_frozen(self);
    bf_blocked *f = get_filter(self);
    memset(f->bits.data, 0, bf_bits_nbytes(f->bits.nbits));
    f->count = f->distinct = 0;
    return self;
}


/* :nodoc: [[blocks, k, seed, count], bits] (docs/FORMAT.md). */
static VALUE blocked_export_core(VALUE self)
{
    const bf_blocked *f = get_filter(self);
    uint64_t fields[] = {f->nblocks, f->k, f->seed, f->count};
    const uint8_t *parts[] = {f->bits.data};
    size_t lengths[] = {blocked_bytes(f->nblocks)};
    return bloomc_state_new(fields, 4, parts, lengths, 1);
}

/* :nodoc: the inverse of export_core; Bloomc::FormatError for anything
 * export_core could not have made. */
static VALUE blocked_import_core(VALUE self, VALUE fields, VALUE body)
{
    rb_check_frozen(self);
    uint64_t v[4];
    bloomc_state_fields(fields, 4, v);
    bf_blocked src = {
        .nblocks = bloomc_state_check(v[0], 1, BF_BLOCKS_MAX, "blocks"),
        .k = (uint32_t)bloomc_state_check(v[1], 1, BF_K_MAX, "k"),
        .seed = (uint32_t)bloomc_state_check(v[2], 0, UINT32_MAX, "seed"),
        .count = v[3],
    };
    size_t nbytes = blocked_bytes(src.nblocks);
    if (!nbytes) bloomc_format_error("%" PRIu64 " blocks are too many for this machine", src.nblocks);
    src.bits.data = (uint8_t *)bloomc_state_body(body, nbytes);
    blocked_reset(bloomc_typed_data(self, &blocked_type), src.nblocks, src.k, src.seed, &src);
    RB_GC_GUARD(body);
    return self;
}


void bloomc_init_blocked_bloom_filter(VALUE mBloomc)
{
    cBlockedBloomFilter = rb_define_class_under(mBloomc, "BlockedBloomFilter", rb_cObject);
    rb_define_alloc_func(cBlockedBloomFilter, blocked_alloc);
    /* Bits per block: m is always a multiple of it. */
    rb_define_const(cBlockedBloomFilter, "BLOCK_BITS", INT2FIX(BF_BLOCK_BITS));
    rb_define_private_method(rb_singleton_class(cBlockedBloomFilter), "optimal_m_k", blocked_optimal_m_k, 2);
    rb_define_private_method(rb_singleton_class(cBlockedBloomFilter), "model_fpr", blocked_model_fpr, 3);
    rb_define_private_method(cBlockedBloomFilter, "setup", blocked_setup, 3);
    rb_define_method(cBlockedBloomFilter, "initialize_copy", blocked_initialize_copy, 1);
    rb_define_method(cBlockedBloomFilter, "add", blocked_add, 1);
    rb_define_method(cBlockedBloomFilter, "<<", blocked_add, 1);
    rb_define_method(cBlockedBloomFilter, "add?", blocked_add_p, 1);
    rb_define_method(cBlockedBloomFilter, "include?", blocked_include_p, 1);
    rb_define_method(cBlockedBloomFilter, "[]", blocked_include_p, 1);
    bloomc_define_batch_methods(cBlockedBloomFilter, blocked_batch_add, blocked_batch_lookup);
    rb_define_method(cBlockedBloomFilter, "m", blocked_m, 0);
    rb_define_method(cBlockedBloomFilter, "k", blocked_k, 0);
    rb_define_method(cBlockedBloomFilter, "seed", blocked_seed, 0);
    rb_define_method(cBlockedBloomFilter, "size", blocked_size, 0);
    rb_define_private_method(cBlockedBloomFilter, "distinct", blocked_distinct, 0);
    rb_define_private_method(cBlockedBloomFilter, "distinct=", blocked_set_distinct, 1);
    rb_define_method(cBlockedBloomFilter, "bits", blocked_bits, 0);
    rb_define_method(cBlockedBloomFilter, "==", blocked_equal, 1);
    rb_define_method(cBlockedBloomFilter, "eql?", blocked_equal, 1);
    rb_define_method(cBlockedBloomFilter, "hash", blocked_hash, 0);
    rb_define_private_method(cBlockedBloomFilter, "export_core", blocked_export_core, 0);
    rb_define_private_method(cBlockedBloomFilter, "import_core", blocked_import_core, 2);
    rb_define_private_method(cBlockedBloomFilter, "combine", blocked_combine, 2);
    rb_define_method(cBlockedBloomFilter, "clear", blocked_clear, 0);
    rb_define_private_method(cBlockedBloomFilter, "occupied", blocked_occupied, 0);
    rb_define_private_method(cBlockedBloomFilter, "current_fpr", blocked_current_fpr, 0);
}
