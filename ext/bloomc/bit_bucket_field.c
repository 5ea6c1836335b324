/*
 * Document-class: Bloomc::BitBucketField
 *
 * A fixed-size field of n-bit buckets, 1 <= n <= 32 (bloombroom's
 * BitBucketField API, with working inc and dec).
 */
#include "bloomc.h"
#include "args.h"
#include "views.h"

static VALUE cBitBucketField;

typedef struct {
    bf_buckets own;      /* the storage of a standalone field */
    bf_buckets *buckets; /* &own, or a filter's field; NULL until initialized */
    VALUE owner;         /* the filter a view belongs to, or Qfalse */
} bucket_field_t;

static void bucket_field_mark(void *ptr)
{
    bucket_field_t *bf = ptr;
    rb_gc_mark_movable(bf->owner);
}

static void bucket_field_compact(void *ptr)
{
    bucket_field_t *bf = ptr;
    bf->owner = rb_gc_location(bf->owner);
}

static void bucket_field_free(void *ptr)
{
    bucket_field_t *bf = ptr;
    ruby_xfree(bf->own.data);
    ruby_xfree(bf);
}

static size_t bucket_field_memsize(const void *ptr)
{
    const bucket_field_t *bf = ptr;
    return sizeof(*bf) + (bf->own.data ? bf_buckets_nbytes(bf->own.count, bf->own.width) : 0);
}

static const rb_data_type_t bucket_field_type = {
    .wrap_struct_name = "bloomc/bit_bucket_field",
    .function = {
        .dmark = bucket_field_mark,
        .dfree = bucket_field_free,
        .dsize = bucket_field_memsize,
        .dcompact = bucket_field_compact,
    },
    .flags = RUBY_TYPED_FREE_IMMEDIATELY | RUBY_TYPED_WB_PROTECTED,
};

static VALUE bucket_field_alloc(VALUE klass)
{
    bucket_field_t *bf;
    VALUE self = TypedData_Make_Struct(klass, bucket_field_t, &bucket_field_type, bf);
    bf->owner = Qfalse;
    return self;
}

static bf_buckets *get_buckets(VALUE self)
{
    bucket_field_t *bf = bloomc_typed_data(self, &bucket_field_type);
    if (!bf->buckets) rb_raise(rb_eTypeError, "uninitialized %" PRIsVALUE, rb_obj_class(self));
    if (!bf->buckets->data) rb_raise(rb_eIOError, "the filter of this view is closed"); /* a mapped one, unmapped */
    return bf->buckets;
}

static bf_buckets *get_buckets_for_write(VALUE self)
{
    bucket_field_t *bf = bloomc_typed_data(self, &bucket_field_type);
    rb_check_frozen(self);
    if (bf->owner) rb_check_frozen(bf->owner);
    return get_buckets(self);
}

static void bucket_field_reset(VALUE self, uint64_t count, unsigned width, const bf_buckets *src)
{
    bucket_field_t *bf = bloomc_typed_data(self, &bucket_field_type);
    size_t nbytes = bf_buckets_nbytes(count, width);
    uint8_t *data = bloomc_xcalloc(nbytes, "a BitBucketField of %" PRIu64 " buckets of %u bits", count, width);
    if (src) memcpy(data, src->data, nbytes);
    ruby_xfree(bf->own.data);
    bf->own.data = data;
    bf_buckets_init(&bf->own, count, width);
    bf->buckets = &bf->own;
    bf->owner = Qfalse;
}

VALUE bloomc_bit_bucket_field_view(VALUE owner, bf_buckets *buckets)
{
    /* The owner's class names the view's class (FIELD_CLASS), so that
     * Bloombroom::BloomFilter#bits is a Bloombroom::BitField. */
    VALUE klass = rb_const_get(rb_obj_class(owner), rb_intern("FIELD_CLASS"));
    if (!RB_TYPE_P(klass, T_CLASS) || !RTEST(rb_class_inherited_p(klass, cBitBucketField))) klass = cBitBucketField;
    VALUE self = bucket_field_alloc(klass);
    bucket_field_t *bf = DATA_PTR(self);
    bf->buckets = buckets;
    RB_OBJ_WRITE(self, &bf->owner, owner);
    return self;
}

/* A bucket value argument: an Integer in 0..max. */
static uint32_t bucket_value_arg(VALUE value, const bf_buckets *b)
{
    if (!RB_INTEGER_TYPE_P(value))
        rb_raise(rb_eTypeError, "bucket value must be an Integer, not %" PRIsVALUE, rb_obj_class(value));
    if (FIXNUM_P(value) && FIX2LONG(value) >= 0 && (uint64_t)FIX2LONG(value) <= b->max)
        return (uint32_t)FIX2LONG(value);
    rb_raise(rb_eArgError, "bucket value %" PRIsVALUE " outside 0..%u of a %u-bit bucket", value, b->max, b->width);
}

/*
 * call-seq: BitBucketField.new(bits, size)
 *
 * A field of +size+ buckets of +bits+ bits each (1..32), all 0.
 */
static VALUE bucket_field_initialize(VALUE self, VALUE bits, VALUE size)
{
    rb_check_frozen(self);
    uint64_t width = bloomc_count_arg(bits, "bits per bucket", BF_BUCKET_WIDTH_MAX);
    uint64_t count = bloomc_count_arg(size, "size", BF_BUCKETS_MAX);
    bucket_field_reset(self, count, (unsigned)width, NULL);
    return self;
}

/* :nodoc: deep copy for dup and clone; a view's copy owns its buckets. */
static VALUE bucket_field_initialize_copy(VALUE self, VALUE orig)
{
    rb_check_frozen(self);
    if (self == orig) return self;
    const bf_buckets *src = get_buckets(orig);
    bucket_field_reset(self, src->count, src->width, src);
    return self;
}

/*
 * call-seq: size -> Integer
 *
 * The number of buckets.
 */
static VALUE bucket_field_size(VALUE self)
{
    return ULL2NUM(get_buckets(self)->count);
}

/*
 * call-seq: bits -> Integer
 *
 * The number of bits per bucket.
 */
static VALUE bucket_field_bits(VALUE self)
{
    return UINT2NUM(get_buckets(self)->width);
}

/*
 * call-seq: self[position] -> Integer
 *
 * The value of the bucket at +position+. Also +get+.
 */
static VALUE bucket_field_aref(VALUE self, VALUE pos)
{
    bf_buckets *b = get_buckets(self);
    return UINT2NUM(bf_buckets_get(b, bloomc_index_arg(pos, b->count)));
}

/*
 * call-seq:
 *   self[position] = value
 *   set(position, value) -> value
 *
 * Sets the bucket at +position+ to +value+, an Integer in 0..2**bits-1
 * (ArgumentError outside it; the neighbouring buckets never change).
 */
static VALUE bucket_field_aset(VALUE self, VALUE pos, VALUE value)
{
    bf_buckets *b = get_buckets_for_write(self);
    uint64_t i = bloomc_index_arg(pos, b->count);
    bf_buckets_set(b, i, bucket_value_arg(value, b));
    return value;
}

/*
 * call-seq: zero?(position) -> true or false
 *
 * Whether the bucket at +position+ is 0.
 */
static VALUE bucket_field_zero_p(VALUE self, VALUE pos)
{
    bf_buckets *b = get_buckets(self);
    return RBOOL(bf_buckets_get(b, bloomc_index_arg(pos, b->count)) == 0);
}

/*
 * call-seq: inc(position) -> Integer
 *
 * Adds 1 to the bucket, saturating at 2**bits-1; returns the new value.
 */
static VALUE bucket_field_inc(VALUE self, VALUE pos)
{
    bf_buckets *b = get_buckets_for_write(self);
    return UINT2NUM(bf_buckets_inc(b, bloomc_index_arg(pos, b->count)));
}

/*
 * call-seq: dec(position) -> Integer
 *
 * Subtracts 1 from the bucket, saturating at 0; returns the new value.
 */
static VALUE bucket_field_dec(VALUE self, VALUE pos)
{
    bf_buckets *b = get_buckets_for_write(self);
    return UINT2NUM(bf_buckets_dec(b, bloomc_index_arg(pos, b->count)));
}

/*
 * call-seq: total_set -> Integer
 *
 * The number of non-zero buckets.
 */
static VALUE bucket_field_total_set(VALUE self)
{
    return ULL2NUM(bf_buckets_count_nonzero(get_buckets(self)));
}

static VALUE bucket_field_enum_size(VALUE self, VALUE args, VALUE eobj)
{
    return bucket_field_size(self);
}

/*
 * call-seq:
 *   each { |value| ... } -> self
 *   each -> Enumerator
 *
 * Yields each bucket's value from position 0 up.
 */
static VALUE bucket_field_each(VALUE self)
{
    RETURN_SIZED_ENUMERATOR(self, 0, 0, bucket_field_enum_size);
    for (uint64_t i = 0; i < get_buckets(self)->count; i++) rb_yield(UINT2NUM(bf_buckets_get(get_buckets(self), i)));
    return self;
}

/*
 * call-seq: to_s(base = 2) -> String
 *
 * The buckets separated by spaces, position 0 first: in base 2 each padded to
 * +bits+ digits ("0011 1000"), in base 10 plain ("3 8"). Any other base
 * raises ArgumentError.
 */
static VALUE bucket_field_to_s(int argc, VALUE *argv, VALUE self)
{
    rb_check_arity(argc, 0, 1);
    int base = 2;
    if (argc == 1) {
        VALUE b = argv[0];
        if (b == INT2FIX(10)) base = 10;
        else if (b != INT2FIX(2)) rb_raise(rb_eArgError, "unsupported base %" PRIsVALUE " (2 or 10)", rb_inspect(b));
    }
    bf_buckets *b = get_buckets(self);
    VALUE str = rb_usascii_str_new(NULL, 0);
    char digits[34];
    for (uint64_t i = 0; i < b->count; i++) {
        uint32_t v = bf_buckets_get(b, i);
        int n;
        if (base == 10) {
            n = snprintf(digits, sizeof(digits), "%u", v);
        } else {
            for (n = 0; n < (int)b->width; n++) digits[n] = (char)('0' + ((v >> (b->width - 1 - (unsigned)n)) & 1));
        }
        if (i > 0) rb_str_cat(str, " ", 1);
        rb_str_cat(str, digits, n);
    }
    return str;
}

/*
 * call-seq: self == other -> true or false
 *
 * Equal when +other+ is a BitBucketField of the same width and size holding
 * the same values.
 */
static VALUE bucket_field_equal(VALUE self, VALUE other)
{
    if (self == other) return Qtrue;
    if (!rb_typeddata_is_kind_of(other, &bucket_field_type)) return Qfalse;
    bf_buckets *a = get_buckets(self), *b = get_buckets(other);
    return RBOOL(a->count == b->count && a->width == b->width &&
                 memcmp(a->data, b->data, bf_buckets_nbytes(a->count, a->width)) == 0);
}

/*
 * call-seq: hash -> Integer
 *
 * A hash of the width, size and values, consistent with ==.
 */
static VALUE bucket_field_hash(VALUE self)
{
    bf_buckets *b = get_buckets(self);
    return ST2FIX(rb_memhash(b->data, (long)bf_buckets_nbytes(b->count, b->width)) ^ (st_index_t)(b->count * 33 + b->width));
}

/* For RDoc and YARD, which learn which Ruby class a C variable holds only
 * from literal rb_define_* calls in its file, and document a method only
 * on a class they know: the module Bloomc, a parameter here. Never compiled. */
#if 0
static void classes_for_rdoc_and_yard(void)
{
    mBloomc = rb_define_module("Bloomc");
}
#endif
void bloomc_init_bit_bucket_field(VALUE mBloomc)
{
    cBitBucketField = rb_define_class_under(mBloomc, "BitBucketField", rb_cObject);
    rb_include_module(cBitBucketField, rb_mEnumerable);
    rb_define_alloc_func(cBitBucketField, bucket_field_alloc);
    rb_define_method(cBitBucketField, "initialize", bucket_field_initialize, 2);
    rb_define_method(cBitBucketField, "initialize_copy", bucket_field_initialize_copy, 1);
    rb_define_method(cBitBucketField, "size", bucket_field_size, 0);
    rb_define_method(cBitBucketField, "bits", bucket_field_bits, 0);
    rb_define_method(cBitBucketField, "[]", bucket_field_aref, 1);
    rb_define_method(cBitBucketField, "get", bucket_field_aref, 1);
    rb_define_method(cBitBucketField, "[]=", bucket_field_aset, 2);
    rb_define_method(cBitBucketField, "set", bucket_field_aset, 2);
    rb_define_method(cBitBucketField, "zero?", bucket_field_zero_p, 1);
    rb_define_method(cBitBucketField, "inc", bucket_field_inc, 1);
    rb_define_method(cBitBucketField, "dec", bucket_field_dec, 1);
    rb_define_method(cBitBucketField, "total_set", bucket_field_total_set, 0);
    rb_define_method(cBitBucketField, "each", bucket_field_each, 0);
    rb_define_method(cBitBucketField, "to_s", bucket_field_to_s, -1);
    rb_define_method(cBitBucketField, "==", bucket_field_equal, 1);
    rb_define_method(cBitBucketField, "eql?", bucket_field_equal, 1);
    rb_define_method(cBitBucketField, "hash", bucket_field_hash, 0);
}
