#include "bloomc.h"
#include "bf_endian.h"

/* Integers are hashed under a different seed so that an Integer key and a
 * String holding the same bytes are independent keys. */
#define INTEGER_SEED_TWEAK 0x9e3779b9U

static bf_key_hash hash_integer(VALUE key, uint32_t seed, bf_hash_kind kind)
{
    uint8_t buf[8];
    seed ^= INTEGER_SEED_TWEAK;
    if (FIXNUM_P(key)) {
        bf_store_le64(buf, (uint64_t)(int64_t)FIX2LONG(key));
        return bf_key_hash_bytes(buf, 8, seed, kind);
    }
    /* Every value in int64 range is hashed as its 8 bytes, so the result does
     * not depend on where this platform puts the Fixnum/Bignum boundary. */
    int sign = rb_integer_pack(key, buf, 1, 8, 0, INTEGER_PACK_LITTLE_ENDIAN | INTEGER_PACK_2COMP);
    int64_t as_int64 = (int64_t)bf_load_le64(buf);
    if ((sign == 1 && as_int64 > 0) || (sign == -1 && as_int64 < 0))
        return bf_key_hash_bytes(buf, 8, seed, kind);

    /* Larger values: two's complement in one byte more than the magnitude needs. */
    size_t len = rb_absint_size(key, NULL) + 1;
    VALUE tmp;
    uint8_t *wide = ALLOCV_N(uint8_t, tmp, len);
    rb_integer_pack(key, wide, len, 1, 0, INTEGER_PACK_LITTLE_ENDIAN | INTEGER_PACK_2COMP);
    bf_key_hash h = bf_key_hash_bytes(wide, len, seed, kind);
    ALLOCV_END(tmp);
    return h;
}

bf_key_hash bloomc_key_hash(VALUE key, uint32_t seed, bf_hash_kind kind)
{
    /* Strings first: the common key, one flags test away. */
    if (!RB_TYPE_P(key, T_STRING) && RB_TYPE_P(key, T_SYMBOL)) key = rb_sym2str(key);
    if (RB_TYPE_P(key, T_STRING)) {
        bf_key_hash h = bf_key_hash_bytes((const uint8_t *)RSTRING_PTR(key), (size_t)RSTRING_LEN(key), seed, kind);
        RB_GC_GUARD(key);
        return h;
    }
    if (RB_INTEGER_TYPE_P(key)) return hash_integer(key, seed, kind);
    rb_raise(rb_eTypeError, "key must be a String, Symbol or Integer, not %" PRIsVALUE, rb_obj_class(key));
}
