/* Bloomc::BloomFilter: the plain Bloom filter (bloombroom's BloomFilter API).
 * Construction from capacity and error rate lives in lib/bloomc/bloom_filter.rb. */
#include <sys/mman.h>
#include "bloomc.h"
#include "bf_bloom.h"

static VALUE cBloomFilter;

typedef struct {
    bloomc_mapping map; /* first: mapping.c reads it */
    bf_bloom core;
} bloom_t;

static void bloom_filter_free(void *ptr)
{
    bloom_t *b = ptr;
    if (b->map.base) bloomc_unmap(&b->map);
    else ruby_xfree(b->core.bits.data);
    ruby_xfree(b);
}

/* A mapped filter's cells are the kernel's page cache, not this process's
 * heap: only the struct counts. */
static size_t bloom_filter_memsize(const void *ptr)
{
    const bloom_t *b = ptr;
    return sizeof(*b) + (b->core.bits.data && !b->map.base ? bf_bits_nbytes(b->core.bits.nbits) : 0);
}

static const rb_data_type_t bloom_filter_type = {
    .wrap_struct_name = "bloomc/bloom_filter",
    .function = {
        .dfree = bloom_filter_free,
        .dsize = bloom_filter_memsize,
        .dcompact = bloomc_mapping_compact,
    },
    .flags = RUBY_TYPED_FREE_IMMEDIATELY | RUBY_TYPED_WB_PROTECTED,
};

static VALUE bloom_filter_alloc(VALUE klass)
{
    bloom_t *b;
    return TypedData_Make_Struct(klass, bloom_t, &bloom_filter_type, b);
}

static bf_bloom *get_filter(VALUE self)
{
    bloom_t *b = bloomc_typed_data(self, &bloom_filter_type);
    bloomc_mapping_check(&b->map, self);
    if (!b->core.bits.data) rb_raise(rb_eTypeError, "uninitialized %" PRIsVALUE, rb_obj_class(self));
    return &b->core;
}

/* The filter's state, for setup and copies: a mapped filter keeps its file. */
static bf_bloom *replaceable(VALUE self)
{
    bloom_t *b = bloomc_typed_data(self, &bloom_filter_type);
    bloomc_mapping_check(&b->map, self);
    if (b->map.base) rb_raise(rb_eArgError, "a mapped %" PRIsVALUE " cannot be re-initialized", rb_obj_class(self));
    return &b->core;
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
    f->distinct = src ? src->distinct : 0;
}

/* :nodoc: called by initialize once the Ruby layer has settled m and k. */
static VALUE bloom_filter_setup(VALUE self, VALUE m, VALUE k, VALUE seed, VALUE hash)
{
    rb_check_frozen(self);
    bf_bloom *f = replaceable(self);
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
    bloom_filter_reset(replaceable(self), src->bits.nbits, src->k, src->seed, src->hash, src);
    return self;
}

/*
 * call-seq:
 *   add(key) -> self
 *   self << key -> self
 *
 * Adds +key+ (a String, by its bytes; a Symbol, by its name; or an Integer).
 * Returns self, so adds chain: <tt>filter << a << b</tt>.
 */
static VALUE bloom_filter_add(VALUE self, VALUE key)
{
    rb_check_frozen(self);
    bf_bloom *f = get_filter(self);
    bf_bloom_add(f, bloomc_key_hash(key, f->seed, f->hash));
    return self;
}

/* :nodoc: bloombroom's add, which returns the number of keys added so far
 * (the drop-in's add and <<). */
static VALUE bloom_filter_add_counting(VALUE self, VALUE key)
{
    bloom_filter_add(self, key);
    return ULL2NUM(get_filter(self)->count);
}

/*
 * call-seq: add?(key) -> self or nil
 *
 * Adds +key+ and returns self when it was new (a bit changed), nil when it
 * was probably present already, as Set#add? does: one hash, one pass over
 * the bits.
 */
static VALUE bloom_filter_add_p(VALUE self, VALUE key)
{
    rb_check_frozen(self);
    bf_bloom *f = get_filter(self);
    return bloomc_add_p_result(self, bf_bloom_add(f, bloomc_key_hash(key, f->seed, f->hash)));
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

static void add_many(void *f, const bf_key_hash *h, size_t n, uint8_t *out)
{
    bf_bloom_add_many(f, h, n, out);
}

static void contains_many(void *f, const bf_key_hash *h, size_t n, uint8_t *out)
{
    bf_bloom_contains_many(f, h, n, out);
}

/* :nodoc: add_all's and add_new's work (lib/bloomc/batch.rb). */
static VALUE bloom_filter_batch_add(VALUE self, VALUE keys, VALUE collect)
{
    rb_check_frozen(self);
    bf_bloom *f = get_filter(self);
    bloomc_batch b = {f, f->seed, f->hash, add_many, contains_many};
    return bloomc_batch_add(&b, keys, collect);
}

/* :nodoc: dedup_lines(chunk, out, length): `bloomc dedup`'s work (see batch.c). */
static VALUE bloom_filter_dedup_lines(VALUE self, VALUE chunk, VALUE out, VALUE length)
{
    rb_check_frozen(self);
    bf_bloom *f = get_filter(self);
    bloomc_batch b = {f, f->seed, f->hash, add_many, contains_many};
    return bloomc_batch_dedup(&b, chunk, out, length);
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

/* :nodoc: keys new to the filter (adds that set a bit), for over_capacity?. */
static VALUE bloom_filter_distinct(VALUE self)
{
    return ULL2NUM(get_filter(self)->distinct);
}

/* :nodoc: sets it, for a filter loaded or merged (lib/bloomc/sizing.rb). */
static VALUE bloom_filter_set_distinct(VALUE self, VALUE n)
{
    get_filter(self)->distinct = NUM2ULL(n);
    return n;
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
    bf_bits_merge(&f->bits, &f->count, &o->bits, o->count, and);
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
    f->distinct = 0;
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

/* Saved fields into out (data NULL); returns the bytes of its bits. */
static size_t saved_state(VALUE fields, bf_bloom *out)
{
    uint64_t v[5];
    bloomc_state_fields(fields, 5, v);
    *out = (bf_bloom){
        .bits = {NULL, bloomc_state_check(v[0], 1, BF_BITS_MAX, "m")},
        .k = (uint32_t)bloomc_state_check(v[1], 1, BF_K_MAX, "k"),
        .seed = (uint32_t)bloomc_state_check(v[2], 0, UINT32_MAX, "seed"),
        .hash = (bf_hash_kind)bloomc_state_check(v[3], BF_HASH_MURMUR3, BF_HASH_FNV1A, "hash"),
        .count = v[4],
    };
    if (out->hash == BF_HASH_FNV1A && out->seed) bloomc_format_error("an fnv1a filter has seed 0, not %u", out->seed);
    size_t nbytes = bf_bits_nbytes(out->bits.nbits);
    if (!nbytes) bloomc_format_error("m %" PRIu64 " is too large for this machine", out->bits.nbits);
    return nbytes;
}

/* What is wrong with saved bits, or NULL. */
static const char *saved_bits_problem(const bf_bloom *f)
{
    return bf_bits_tail_clear(&f->bits) ? NULL : "bits set past m";
}

/* :nodoc: the inverse of export_core; Bloomc::FormatError for anything
 * export_core could not have made. */
static VALUE bloom_filter_import_core(VALUE self, VALUE fields, VALUE body)
{
    rb_check_frozen(self);
    bf_bloom src;
    src.bits.data = (uint8_t *)bloomc_state_body(body, saved_state(fields, &src));
    const char *problem = saved_bits_problem(&src);
    if (problem) bloomc_format_error("%s", problem);
    bloom_filter_reset(replaceable(self), src.bits.nbits, src.k, src.seed, src.hash, &src);
    RB_GC_GUARD(body);
    return self;
}

/* :nodoc: adopts the bits of a file in bloomc's format, mapped from fd, in
 * place of its own (a new filter only; lib/bloomc/mapped.rb has checked
 * the header, and passes the file's length). */
static VALUE bloom_filter_map_core(VALUE self, VALUE fields, VALUE fd, VALUE body_offset, VALUE length, VALUE writable)
{
    rb_check_frozen(self);
    bloom_t *b = bloomc_typed_data(self, &bloom_filter_type);
    if (b->core.bits.data || b->map.closed) rb_raise(rb_eArgError, "map_core maps a new filter");
    bf_bloom src;
    size_t nbytes = saved_state(fields, &src), offset = NUM2SIZET(body_offset);
    if (NUM2SIZET(length) != offset + nbytes)
        bloomc_format_error("a file of %" PRIsVALUE " bytes where the parameters need %zu", length, offset + nbytes);
    uint8_t *base = bloomc_map_file(NUM2INT(fd), offset + nbytes, RTEST(writable));
    src.bits.data = base + offset;
    const char *problem = saved_bits_problem(&src);
    if (problem) {
        munmap(base, offset + nbytes);
        bloomc_format_error("%s", problem);
    }
    b->core = src;
    bloomc_mapping_adopt(&b->map, self, base, offset + nbytes, offset, NUM2INT(fd), RTEST(writable));
    return self;
}

/* :nodoc: unmaps a mapped filter; it raises IOError from then on. */
static VALUE bloom_filter_unmap(VALUE self)
{
    bloom_t *b = bloomc_typed_data(self, &bloom_filter_type);
    if (!b->map.base) return self;
    bloomc_unmap(&b->map);
    b->map.closed = 1;
    b->core.bits.data = NULL;
    b->core.bits.nbits = 0; /* a view of the bits now holds none */
    return self;
}

/* :nodoc: the bytes export_core's body would take with m bits (for a new
 * mapped file: its filter is never built on the heap). */
static VALUE bloom_filter_body_bytes_for(VALUE self, VALUE m)
{
    get_filter(self);
    size_t nbytes = bf_bits_nbytes(bloomc_count_arg(m, "m", BF_BITS_MAX));
    if (!nbytes) rb_raise(rb_eArgError, "m is too large for this machine");
    return SIZET2NUM(nbytes);
}

/* :nodoc: the parameters export_core saves, without the bits. */
static VALUE bloom_filter_export_fields(VALUE self)
{
    const bf_bloom *f = get_filter(self);
    uint64_t fields[] = {f->bits.nbits, f->k, f->seed, (uint64_t)f->hash, f->count};
    return rb_ary_entry(bloomc_state_new(fields, 5, NULL, NULL, 0), 0);
}


void bloomc_init_bloom_filter(VALUE mBloomc)
{
    cBloomFilter = rb_define_class_under(mBloomc, "BloomFilter", rb_cObject);
    rb_define_alloc_func(cBloomFilter, bloom_filter_alloc);
    rb_define_private_method(cBloomFilter, "setup", bloom_filter_setup, 4);
    rb_define_method(cBloomFilter, "initialize_copy", bloom_filter_initialize_copy, 1);
    rb_define_method(cBloomFilter, "add", bloom_filter_add, 1);
    rb_define_method(cBloomFilter, "<<", bloom_filter_add, 1);
    rb_define_method(cBloomFilter, "add?", bloom_filter_add_p, 1);
    rb_define_private_method(cBloomFilter, "add_counting", bloom_filter_add_counting, 1);
    rb_define_method(cBloomFilter, "include?", bloom_filter_include_p, 1);
    rb_define_method(cBloomFilter, "[]", bloom_filter_include_p, 1);
    rb_define_private_method(cBloomFilter, "dedup_lines", bloom_filter_dedup_lines, 3);
    bloomc_define_batch_methods(cBloomFilter, bloom_filter_batch_add, bloom_filter_batch_lookup);
    rb_define_method(cBloomFilter, "m", bloom_filter_m, 0);
    rb_define_method(cBloomFilter, "k", bloom_filter_k, 0);
    rb_define_method(cBloomFilter, "seed", bloom_filter_seed, 0);
    rb_define_method(cBloomFilter, "size", bloom_filter_size, 0);
    rb_define_private_method(cBloomFilter, "distinct", bloom_filter_distinct, 0);
    rb_define_private_method(cBloomFilter, "distinct=", bloom_filter_set_distinct, 1);
    rb_define_private_method(cBloomFilter, "hash_kind", bloom_filter_hash_kind, 0);
    rb_define_method(cBloomFilter, "bits", bloom_filter_bits, 0);
    rb_define_method(cBloomFilter, "==", bloom_filter_equal, 1);
    rb_define_method(cBloomFilter, "eql?", bloom_filter_equal, 1);
    rb_define_method(cBloomFilter, "hash", bloom_filter_hash, 0);
    rb_define_private_method(cBloomFilter, "export_core", bloom_filter_export_core, 0);
    rb_define_private_method(cBloomFilter, "import_core", bloom_filter_import_core, 2);
    rb_define_private_method(cBloomFilter, "map_core", bloom_filter_map_core, 5);
    rb_define_private_method(cBloomFilter, "unmap", bloom_filter_unmap, 0);
    rb_define_private_method(cBloomFilter, "export_fields", bloom_filter_export_fields, 0);
    rb_define_private_method(cBloomFilter, "body_bytes_for", bloom_filter_body_bytes_for, 1);
    bloomc_define_mapping_methods(cBloomFilter, &bloom_filter_type);
    rb_define_private_method(cBloomFilter, "combine", bloom_filter_combine, 2);
    rb_define_method(cBloomFilter, "clear", bloom_filter_clear, 0);
    rb_define_private_method(cBloomFilter, "occupied", bloom_filter_occupied, 0);
}
