/* Bloomc::BloomFilter: the plain Bloom filter (bloombroom's BloomFilter API).
 * Construction from capacity and error rate lives in lib/bloomc/bloom_filter.rb. */
#include "bloomc.h"

static VALUE cBloomFilter;

static void bloom_filter_free(void *ptr)
{
    bf_bloom *f = ptr;
    ruby_xfree(f->bits.data);
    ruby_xfree(f);
}

static size_t bloom_filter_memsize(const void *ptr)
{
    const bf_bloom *f = ptr;
    return sizeof(*f) + (f->bits.data ? bf_bits_nbytes(f->bits.nbits) : 0);
}

static const rb_data_type_t bloom_filter_type = {
    .wrap_struct_name = "bloomc/bloom_filter",
    .function = {
        .dfree = bloom_filter_free,
        .dsize = bloom_filter_memsize,
    },
    .flags = RUBY_TYPED_FREE_IMMEDIATELY | RUBY_TYPED_WB_PROTECTED,
};

static VALUE bloom_filter_alloc(VALUE klass)
{
    bf_bloom *f;
    return TypedData_Make_Struct(klass, bf_bloom, &bloom_filter_type, f);
}

static bf_bloom *get_filter(VALUE self)
{
    bf_bloom *f = bloomc_typed_data(self, &bloom_filter_type);
    if (!f->bits.data) rb_raise(rb_eTypeError, "uninitialized %" PRIsVALUE, rb_obj_class(self));
    return f;
}

/* Replace the filter's state: m zeroed bits, or a copy of src. */
static void bloom_filter_reset(bf_bloom *f, uint64_t m, uint32_t k, uint32_t seed, bf_hash_kind hash, const bf_bloom *src)
{
    size_t nbytes = bf_bits_nbytes(m);
    if (!nbytes) rb_raise(rb_eArgError, "m is too large for this machine"); /* 32-bit size_t */
    uint8_t *data = ruby_xcalloc(nbytes, 1);
    if (src) memcpy(data, src->bits.data, nbytes);
    ruby_xfree(f->bits.data);
    f->bits.data = data;
    f->bits.nbits = m;
    f->k = k;
    f->seed = seed;
    f->hash = hash;
    f->count = src ? src->count : 0;
}

/* :nodoc: called by initialize once the Ruby layer has settled m and k. */
static VALUE bloom_filter_setup(VALUE self, VALUE m, VALUE k, VALUE seed, VALUE hash)
{
    rb_check_frozen(self);
    bf_bloom *f = bloomc_typed_data(self, &bloom_filter_type);
    uint64_t nbits = bloomc_count_arg(m, "m", BF_BITS_MAX);
    uint32_t nprobes = (uint32_t)bloomc_count_arg(k, "k", BF_K_MAX);
    uint32_t hash_seed = bloomc_uint32_arg(seed, "seed");
    bloom_filter_reset(f, nbits, nprobes, hash_seed, bloomc_hash_kind_arg(hash), NULL);
    return self;
}

/* :nodoc: deep copy for dup and clone. */
static VALUE bloom_filter_initialize_copy(VALUE self, VALUE orig)
{
    rb_check_frozen(self);
    if (self == orig) return self;
    const bf_bloom *src = get_filter(orig);
    bloom_filter_reset(bloomc_typed_data(self, &bloom_filter_type), src->bits.nbits, src->k, src->seed, src->hash, src);
    return self;
}

/*
 * call-seq:
 *   add(key) -> Integer
 *   self << key -> Integer
 *
 * Adds +key+ (a String, by its bytes; a Symbol, by its name; or an Integer)
 * and returns the number of keys added so far, as bloombroom does.
 */
static VALUE bloom_filter_add(VALUE self, VALUE key)
{
    rb_check_frozen(self);
    bf_bloom *f = get_filter(self);
    bf_bloom_add(f, bloomc_key_hash(key, f->seed, f->hash));
    return ULL2NUM(f->count);
}

/*
 * call-seq:
 *   include?(key) -> true or false
 *   self[key] -> true or false
 *
 * False when +key+ was never added; true when it was, and (rarely, at the
 * filter's false-positive rate) for a key that was not.
 */
static VALUE bloom_filter_include_p(VALUE self, VALUE key)
{
    const bf_bloom *f = get_filter(self);
    return RBOOL(bf_bloom_contains(f, bloomc_key_hash(key, f->seed, f->hash)));
}

static void add_many(void *f, const bf_key_hash *h, size_t n)
{
    bf_bloom_add_many(f, h, n);
}

static void contains_many(void *f, const bf_key_hash *h, size_t n, uint8_t *out)
{
    bf_bloom_contains_many(f, h, n, out);
}

/* :nodoc: add_all's work (lib/bloomc/batch.rb). */
static VALUE bloom_filter_batch_add(VALUE self, VALUE keys)
{
    rb_check_frozen(self);
    bf_bloom *f = get_filter(self);
    bloomc_batch b = {f, f->seed, f->hash, add_many, contains_many};
    bloomc_batch_add(&b, keys);
    return self;
}

/* :nodoc: the batch lookups' work (lib/bloomc/batch.rb). */
static VALUE bloom_filter_batch_lookup(VALUE self, VALUE keys, VALUE mode)
{
    bf_bloom *f = get_filter(self);
    bloomc_batch b = {f, f->seed, f->hash, add_many, contains_many};
    return bloomc_batch_lookup(&b, keys, mode);
}

/*
 * call-seq: m -> Integer
 *
 * The number of bits.
 */
static VALUE bloom_filter_m(VALUE self)
{
    return ULL2NUM(get_filter(self)->bits.nbits);
}

/*
 * call-seq: k -> Integer
 *
 * The number of bits set per key.
 */
static VALUE bloom_filter_k(VALUE self)
{
    return UINT2NUM(get_filter(self)->k);
}

/*
 * call-seq: seed -> Integer
 *
 * The MurmurHash3 seed of the key hash.
 */
static VALUE bloom_filter_seed(VALUE self)
{
    return UINT2NUM(get_filter(self)->seed);
}

/* :nodoc: the hash function's number in Bloomc::HASH_FUNCTIONS. */
static VALUE bloom_filter_hash_kind(VALUE self)
{
    return INT2FIX(get_filter(self)->hash);
}

/*
 * call-seq: size -> Integer
 *
 * The number of add calls so far (a key added twice counts twice).
 */
static VALUE bloom_filter_size(VALUE self)
{
    return ULL2NUM(get_filter(self)->count);
}

/*
 * call-seq: bits -> BitField
 *
 * The filter's bits as a BitField that shares the filter's memory.
 */
static VALUE bloom_filter_bits(VALUE self)
{
    return bloomc_bit_field_view(self, &get_filter(self)->bits);
}

/*
 * call-seq: self == other -> true or false
 *
 * Equal when +other+ is a BloomFilter of the same m, k and seed with the same
 * bits and key count.
 */
static VALUE bloom_filter_equal(VALUE self, VALUE other)
{
    if (self == other) return Qtrue;
    if (!rb_typeddata_is_kind_of(other, &bloom_filter_type)) return Qfalse;
    const bf_bloom *a = get_filter(self), *b = get_filter(other);
    return RBOOL(a->bits.nbits == b->bits.nbits && a->k == b->k && a->seed == b->seed && a->hash == b->hash && a->count == b->count &&
                 memcmp(a->bits.data, b->bits.data, bf_bits_nbytes(a->bits.nbits)) == 0);
}

/*
 * call-seq: hash -> Integer
 *
 * A hash of the shape, seed, key count and bits, consistent with ==.
 */
static VALUE bloom_filter_hash(VALUE self)
{
    const bf_bloom *f = get_filter(self);
    st_index_t h = rb_memhash(f->bits.data, (long)bf_bits_nbytes(f->bits.nbits));
    return ST2FIX(h ^ (st_index_t)(f->bits.nbits * 31 + f->k * 7 + f->seed + f->hash + f->count * 131));
}

/* :nodoc: cells (bits) that are not zero, for Bloomc::Stats. */
static VALUE bloom_filter_occupied(VALUE self)
{
    return ULL2NUM(bf_bits_count(&get_filter(self)->bits));
}

/* :nodoc: self |= other or self &= other (Bloomc::SetOps checks shapes). */
static VALUE bloom_filter_combine(VALUE self, VALUE other, VALUE op)
{
    rb_check_frozen(self);
    bf_bloom *f = get_filter(self);
    const bf_bloom *o = get_filter(other);
    int and = bloomc_intersection_arg(op, f->bits.nbits == o->bits.nbits && f->k == o->k && f->seed == o->seed && f->hash == o->hash);
    if (and) {
        bf_bits_and(&f->bits, &o->bits);
        if (o->count < f->count) f->count = o->count;
    } else {
        bf_bits_or(&f->bits, &o->bits);
        f->count = o->count > UINT64_MAX - f->count ? UINT64_MAX : f->count + o->count;
    }
    return self;
}

/*
 * call-seq: clear -> self
 *
 * Forgets every key: no bit set, size 0.
 */
static VALUE bloom_filter_clear(VALUE self)
{
    rb_check_frozen(self);
    bf_bloom *f = get_filter(self);
    memset(f->bits.data, 0, bf_bits_nbytes(f->bits.nbits));
    f->count = 0;
    return self;
}


/* :nodoc: [[m, k, seed, hash, count], bits] (docs/FORMAT.md). */
static VALUE bloom_filter_export_core(VALUE self)
{
    const bf_bloom *f = get_filter(self);
    uint64_t fields[] = {f->bits.nbits, f->k, f->seed, (uint64_t)f->hash, f->count};
    const uint8_t *parts[] = {f->bits.data};
    size_t lengths[] = {bf_bits_nbytes(f->bits.nbits)};
    return bloomc_state_new(fields, 5, parts, lengths, 1);
}

/* :nodoc: the inverse of export_core; Bloomc::FormatError for anything
 * export_core could not have made. */
static VALUE bloom_filter_import_core(VALUE self, VALUE fields, VALUE body)
{
    rb_check_frozen(self);
    uint64_t v[5];
    bloomc_state_fields(fields, 5, v);
    bf_bloom src = {
        .bits = {NULL, bloomc_state_check(v[0], 1, BF_BITS_MAX, "m")},
        .k = (uint32_t)bloomc_state_check(v[1], 1, BF_K_MAX, "k"),
        .seed = (uint32_t)bloomc_state_check(v[2], 0, UINT32_MAX, "seed"),
        .hash = (bf_hash_kind)bloomc_state_check(v[3], BF_HASH_MURMUR3, BF_HASH_FNV1A, "hash"),
        .count = v[4],
    };
    if (src.hash == BF_HASH_FNV1A && src.seed) bloomc_format_error("an fnv1a filter has seed 0, not %u", src.seed);
    size_t nbytes = bf_bits_nbytes(src.bits.nbits);
    if (!nbytes) bloomc_format_error("m %" PRIu64 " is too large for this machine", src.bits.nbits);
    src.bits.data = (uint8_t *)bloomc_state_body(body, nbytes);
    if (!bf_bits_tail_clear(&src.bits)) bloomc_format_error("bits set past m");
    bloom_filter_reset(bloomc_typed_data(self, &bloom_filter_type), src.bits.nbits, src.k, src.seed, src.hash, &src);
    RB_GC_GUARD(body);
    return self;
}


void bloomc_init_bloom_filter(VALUE mBloomc)
{
    cBloomFilter = rb_define_class_under(mBloomc, "BloomFilter", rb_cObject);
    rb_define_alloc_func(cBloomFilter, bloom_filter_alloc);
    rb_define_private_method(cBloomFilter, "setup", bloom_filter_setup, 4);
    rb_define_method(cBloomFilter, "initialize_copy", bloom_filter_initialize_copy, 1);
    rb_define_method(cBloomFilter, "add", bloom_filter_add, 1);
    rb_define_method(cBloomFilter, "<<", bloom_filter_add, 1);
    rb_define_method(cBloomFilter, "include?", bloom_filter_include_p, 1);
    rb_define_method(cBloomFilter, "[]", bloom_filter_include_p, 1);
    bloomc_define_batch_methods(cBloomFilter, bloom_filter_batch_add, bloom_filter_batch_lookup);
    rb_define_method(cBloomFilter, "m", bloom_filter_m, 0);
    rb_define_method(cBloomFilter, "k", bloom_filter_k, 0);
    rb_define_method(cBloomFilter, "seed", bloom_filter_seed, 0);
    rb_define_method(cBloomFilter, "size", bloom_filter_size, 0);
    rb_define_private_method(cBloomFilter, "hash_kind", bloom_filter_hash_kind, 0);
    rb_define_method(cBloomFilter, "bits", bloom_filter_bits, 0);
    rb_define_method(cBloomFilter, "==", bloom_filter_equal, 1);
    rb_define_method(cBloomFilter, "eql?", bloom_filter_equal, 1);
    rb_define_method(cBloomFilter, "hash", bloom_filter_hash, 0);
    rb_define_private_method(cBloomFilter, "export_core", bloom_filter_export_core, 0);
    rb_define_private_method(cBloomFilter, "import_core", bloom_filter_import_core, 2);
    rb_define_private_method(cBloomFilter, "combine", bloom_filter_combine, 2);
    rb_define_method(cBloomFilter, "clear", bloom_filter_clear, 0);
    rb_define_private_method(cBloomFilter, "occupied", bloom_filter_occupied, 0);
}
