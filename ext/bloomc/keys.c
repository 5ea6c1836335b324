#include "bloomc.h"
#include "keys.h"
#include "bf_endian.h"

/* An Integer key is hashed by its bytes, but apart from a String holding the
 * same bytes: MurmurHash3 under a different seed; FNV-1a, which takes no
 * seed, with its hash XOR-ed with a constant (the 64-bit golden ratio). */
#define INTEGER_SEED_TWEAK 0x9e3779b9U
#define INTEGER_FNV_TWEAK 0x9e3779b97f4a7c15ULL

static bf_key_hash integer_bytes_hash(const uint8_t *bytes, size_t len, uint32_t seed, bf_hash_kind kind)
{
    if (kind != BF_HASH_FNV1A) return bf_key_hash_bytes(bytes, len, seed ^ INTEGER_SEED_TWEAK, kind);
    uint64_t v = bf_fnv1a_64(bytes, len) ^ INTEGER_FNV_TWEAK;
    bf_key_hash h = {v >> 32, v & 0xffffffffU}; /* as bf_key_hash_bytes splits it */
    return h;
}

static bf_key_hash hash_integer(VALUE key, uint32_t seed, bf_hash_kind kind)
{
    uint8_t buf[8];
    if (FIXNUM_P(key)) {
        bf_store_le64(buf, (uint64_t)(int64_t)FIX2LONG(key));
        return integer_bytes_hash(buf, 8, seed, kind);
    }
    /* Every value in int64 range is hashed as its 8 bytes, so the result does
     * not depend on where this platform puts the Fixnum/Bignum boundary. */
    int sign = rb_integer_pack(key, buf, 1, 8, 0, INTEGER_PACK_LITTLE_ENDIAN | INTEGER_PACK_2COMP);
    int64_t as_int64 = (int64_t)bf_load_le64(buf);
    if ((sign == 1 && as_int64 > 0) || (sign == -1 && as_int64 < 0))
        return integer_bytes_hash(buf, 8, seed, kind);

    /* Larger values: two's complement in one byte more than the magnitude needs. */
    size_t len = rb_absint_size(key, NULL) + 1;
    VALUE tmp;
    uint8_t *wide = ALLOCV_N(uint8_t, tmp, len);
    rb_integer_pack(key, wide, len, 1, 0, INTEGER_PACK_LITTLE_ENDIAN | INTEGER_PACK_2COMP);
    bf_key_hash h = integer_bytes_hash(wide, len, seed, kind);
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
