/*
 * Document-class: Bloomc::BitField
 *
 * A fixed-size field of bits (bloombroom's BitField API).
 * Bloomc::BloomFilter#bits is one, sharing the filter's memory.
 */
#include "bloomc.h"
#include "args.h"
#include "views.h"

static VALUE cBitField;

typedef struct {
    bf_bits own;   /* the storage of a standalone field */
    bf_bits *bits; /* &own, or a filter's field; NULL until initialized */
    VALUE owner;   /* the filter a view belongs to, or Qfalse */
} bit_field_t;

static void bit_field_mark(void *ptr)
{
    bit_field_t *bf = ptr;
    rb_gc_mark_movable(bf->owner);
}

static void bit_field_compact(void *ptr)
{
    bit_field_t *bf = ptr;
    bf->owner = rb_gc_location(bf->owner);
}

static void bit_field_free(void *ptr)
{
    bit_field_t *bf = ptr;
    ruby_xfree(bf->own.data);
    ruby_xfree(bf);
}

static size_t bit_field_memsize(const void *ptr)
{
    const bit_field_t *bf = ptr;
    return sizeof(*bf) + (bf->own.data ? bf_bits_nbytes(bf->own.nbits) : 0);
}

static const rb_data_type_t bit_field_type = {
    .wrap_struct_name = "bloomc/bit_field",
    .function = {
        .dmark = bit_field_mark,
        .dfree = bit_field_free,
        .dsize = bit_field_memsize,
        .dcompact = bit_field_compact,
    },
    .flags = RUBY_TYPED_FREE_IMMEDIATELY | RUBY_TYPED_WB_PROTECTED,
};

static VALUE bit_field_alloc(VALUE klass)
{
    bit_field_t *bf;
    VALUE self = TypedData_Make_Struct(klass, bit_field_t, &bit_field_type, bf);
    bf->owner = Qfalse;
    return self;
}

static bf_bits *get_bits(VALUE self)
{
    bit_field_t *bf = bloomc_typed_data(self, &bit_field_type);
    if (!bf->bits) rb_raise(rb_eTypeError, "uninitialized %" PRIsVALUE, rb_obj_class(self));
    if (!bf->bits->data) rb_raise(rb_eIOError, "the filter of this view is closed"); /* a mapped one, unmapped */
    return bf->bits;
}

/* A write must respect the frozen state of the field and of its filter. */
static bf_bits *get_bits_for_write(VALUE self)
{
    bit_field_t *bf = bloomc_typed_data(self, &bit_field_type);
    rb_check_frozen(self);
    if (bf->owner) rb_check_frozen(bf->owner);
    return get_bits(self);
}

/* Replace the storage with nbits zeroed bits (or a copy of src). */
static void bit_field_reset(VALUE self, uint64_t nbits, const bf_bits *src)
{
    bit_field_t *bf = bloomc_typed_data(self, &bit_field_type);
    size_t nbytes = bf_bits_nbytes(nbits);
    uint8_t *data = bloomc_xcalloc(nbytes, "a BitField of %" PRIu64 " bits", nbits);
    if (src) memcpy(data, src->data, nbytes);
    ruby_xfree(bf->own.data);
    bf->own.data = data;
    bf->own.nbits = nbits;
    bf->bits = &bf->own;
    bf->owner = Qfalse;
}

VALUE bloomc_bit_field_view(VALUE owner, bf_bits *bits)
{
    /* The owner's class names the view's class (FIELD_CLASS), so that
     * Bloombroom::BloomFilter#bits is a Bloombroom::BitField. */
    VALUE klass = rb_const_get(rb_obj_class(owner), rb_intern("FIELD_CLASS"));
    if (!RB_TYPE_P(klass, T_CLASS) || !RTEST(rb_class_inherited_p(klass, cBitField))) klass = cBitField;
    VALUE self = bit_field_alloc(klass);
    bit_field_t *bf = DATA_PTR(self);
    bf->bits = bits;
    RB_OBJ_WRITE(self, &bf->owner, owner);
    return self;
}

/*
 * call-seq: BitField.new(size)
 *
 * A field of +size+ bits, all 0. +size+ is a positive Integer.
 */
static VALUE bit_field_initialize(VALUE self, VALUE size)
{
    rb_check_frozen(self);
    bit_field_reset(self, bloomc_count_arg(size, "size", BF_BITS_MAX), NULL);
    return self;
}

/* :nodoc: deep copy for dup and clone; a view's copy owns its bits. */
static VALUE bit_field_initialize_copy(VALUE self, VALUE orig)
{
    rb_check_frozen(self);
    if (self == orig) return self;
    const bf_bits *src = get_bits(orig);
    bit_field_reset(self, src->nbits, src);
    return self;
}

/*
 * call-seq: size -> Integer
 *
 * The number of bits.
 */
static VALUE bit_field_size(VALUE self)
{
    return ULL2NUM(get_bits(self)->nbits);
}

/*
 * call-seq: self[position] -> 0 or 1
 *
 * The bit at +position+ (IndexError outside 0...size). Also +get+.
 */
static VALUE bit_field_aref(VALUE self, VALUE pos)
{
    bf_bits *bits = get_bits(self);
    return INT2FIX(bf_bits_get(bits, bloomc_index_arg(pos, bits->nbits)));
}

/*
 * call-seq: self[position] = value
 *
 * Sets the bit to +value+: 0 or false clears it, 1 or true sets it; any other
 * value raises ArgumentError.
 */
static VALUE bit_field_aset(VALUE self, VALUE pos, VALUE value)
{
    bf_bits *bits = get_bits_for_write(self);
    uint64_t i = bloomc_index_arg(pos, bits->nbits);
    if (value == INT2FIX(1) || value == Qtrue) bf_bits_set(bits, i);
    else if (value == INT2FIX(0) || value == Qfalse) bf_bits_clear(bits, i);
    else rb_raise(rb_eArgError, "bit value must be 0, 1, true or false, not %" PRIsVALUE, rb_inspect(value));
    return value;
}

/*
 * call-seq: set(position) -> self
 *
 * Sets the bit at +position+ to 1.
 */
static VALUE bit_field_set(VALUE self, VALUE pos)
{
    bf_bits *bits = get_bits_for_write(self);
    bf_bits_set(bits, bloomc_index_arg(pos, bits->nbits));
    return self;
}

/*
 * call-seq: unset(position) -> self
 *
 * Sets the bit at +position+ to 0.
 */
static VALUE bit_field_unset(VALUE self, VALUE pos)
{
    bf_bits *bits = get_bits_for_write(self);
    bf_bits_clear(bits, bloomc_index_arg(pos, bits->nbits));
    return self;
}

/*
 * call-seq: include?(position) -> true or false
 *
 * Whether the bit at +position+ is 1.
 */
static VALUE bit_field_include_p(VALUE self, VALUE pos)
{
    bf_bits *bits = get_bits(self);
    return RBOOL(bf_bits_get(bits, bloomc_index_arg(pos, bits->nbits)));
}

/*
 * call-seq: zero?(position) -> true or false
 *
 * Whether the bit at +position+ is 0.
 */
static VALUE bit_field_zero_p(VALUE self, VALUE pos)
{
    bf_bits *bits = get_bits(self);
    return RBOOL(!bf_bits_get(bits, bloomc_index_arg(pos, bits->nbits)));
}

/*
 * call-seq: total_set -> Integer
 *
 * The number of bits set to 1.
 */
static VALUE bit_field_total_set(VALUE self)
{
    return ULL2NUM(bf_bits_count(get_bits(self)));
}

static VALUE bit_field_enum_size(VALUE self, VALUE args, VALUE eobj)
{
    return bit_field_size(self);
}

/*
 * call-seq:
 *   each { |bit| ... } -> self
 *   each -> Enumerator
 *
 * Yields each bit (0 or 1) from position 0 up.
 */
static VALUE bit_field_each(VALUE self)
{
    RETURN_SIZED_ENUMERATOR(self, 0, 0, bit_field_enum_size);
    /* Re-read the field each time: the block may change it. */
    for (uint64_t i = 0; i < get_bits(self)->nbits; i++) rb_yield(INT2FIX(bf_bits_get(get_bits(self), i)));
    return self;
}

/*
 * call-seq: to_s -> String
 *
 * The bits as "0" and "1" characters, position 0 first ("0100010000").
 */
static VALUE bit_field_to_s(VALUE self)
{
    bf_bits *bits = get_bits(self);
    if (bits->nbits > LONG_MAX) rb_raise(rb_eRangeError, "field too large for a String");
    VALUE str = rb_usascii_str_new(NULL, (long)bits->nbits);
    char *out = RSTRING_PTR(str);
    for (uint64_t i = 0; i < bits->nbits; i++) out[i] = (char)('0' + bf_bits_get(bits, i));
    return str;
}

/*
 * call-seq: self == other -> true or false
 *
 * Equal when +other+ is a BitField of the same size with the same bits.
 */
static VALUE bit_field_equal(VALUE self, VALUE other)
{
    if (self == other) return Qtrue;
    if (!rb_typeddata_is_kind_of(other, &bit_field_type)) return Qfalse;
    bf_bits *a = get_bits(self), *b = get_bits(other);
    return RBOOL(a->nbits == b->nbits && memcmp(a->data, b->data, bf_bits_nbytes(a->nbits)) == 0);
}

/*
 * call-seq: hash -> Integer
 *
 * A hash of the size and bits, consistent with ==, so equal fields are one Hash key.
 */
static VALUE bit_field_hash(VALUE self)
{
    bf_bits *b = get_bits(self);
    return ST2FIX(rb_memhash(b->data, (long)bf_bits_nbytes(b->nbits)) ^ (st_index_t)b->nbits);
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
void bloomc_init_bit_field(VALUE mBloomc)
{
    cBitField = rb_define_class_under(mBloomc, "BitField", rb_cObject);
    rb_include_module(cBitField, rb_mEnumerable);
    rb_define_alloc_func(cBitField, bit_field_alloc);
    rb_define_method(cBitField, "initialize", bit_field_initialize, 1);
    rb_define_method(cBitField, "initialize_copy", bit_field_initialize_copy, 1);
    rb_define_method(cBitField, "size", bit_field_size, 0);
    rb_define_method(cBitField, "[]", bit_field_aref, 1);
    rb_define_method(cBitField, "get", bit_field_aref, 1);
    rb_define_method(cBitField, "[]=", bit_field_aset, 2);
    rb_define_method(cBitField, "set", bit_field_set, 1);
    rb_define_method(cBitField, "unset", bit_field_unset, 1);
    rb_define_method(cBitField, "include?", bit_field_include_p, 1);
    rb_define_method(cBitField, "zero?", bit_field_zero_p, 1);
    rb_define_method(cBitField, "total_set", bit_field_total_set, 0);
    rb_define_method(cBitField, "each", bit_field_each, 0);
    rb_define_method(cBitField, "to_s", bit_field_to_s, 0);
    rb_define_method(cBitField, "==", bit_field_equal, 1);
    rb_define_method(cBitField, "eql?", bit_field_equal, 1);
    rb_define_method(cBitField, "hash", bit_field_hash, 0);
}
