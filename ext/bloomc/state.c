/* A filter's state as plain numbers and bytes, for lib/bloomc/format.rb
 * (docs/FORMAT.md): export_core gives [fields, body], import_core takes them
 * back, checking every field and the body before anything is allocated.
 * What arrives here may come from anywhere, so every failed check raises
 * Bloomc::FormatError. */
#include "bloomc.h"
#include "state.h"
#include <ruby/encoding.h>
#include <stdarg.h>

void bloomc_format_error(const char *fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    VALUE message = rb_vsprintf(fmt, args);
    va_end(args);
    rb_exc_raise(rb_exc_new_str(bloomc_eFormatError, message));
}

VALUE bloomc_state_new(const uint64_t *fields, int nfields, const uint8_t *const *parts, const size_t *lengths, int nparts)
{
    VALUE ary = rb_ary_new_capa(nfields);
    for (int i = 0; i < nfields; i++) rb_ary_push(ary, ULL2NUM(fields[i]));
    size_t total = 0;
    for (int i = 0; i < nparts; i++) total += lengths[i];
    VALUE body = rb_str_buf_new((long)total);
    for (int i = 0; i < nparts; i++) rb_str_cat(body, (const char *)parts[i], (long)lengths[i]);
    rb_enc_associate(body, rb_ascii8bit_encoding());
    return rb_assoc_new(ary, body);
}

void bloomc_state_fields(VALUE fields, int nfields, uint64_t *out)
{
    Check_Type(fields, T_ARRAY);
    if (RARRAY_LEN(fields) != nfields)
        bloomc_format_error("%ld parameters where this kind of filter has %d", RARRAY_LEN(fields), nfields);
    for (int i = 0; i < nfields; i++) {
        VALUE v = RARRAY_AREF(fields, i);
        int fits = FIXNUM_P(v) ? FIX2LONG(v) >= 0
                               : RB_TYPE_P(v, T_BIGNUM) && FIX2INT(rb_big_cmp(v, INT2FIX(0))) >= 0 &&
                                     FIX2INT(rb_big_cmp(v, ULL2NUM(UINT64_MAX))) <= 0;
        if (!fits) bloomc_format_error("parameter %d is not a 64-bit unsigned integer", i);
        out[i] = NUM2ULL(v);
    }
}

uint64_t bloomc_state_check(uint64_t value, uint64_t min, uint64_t max, const char *name)
{
    if (value < min || value > max)
        bloomc_format_error("%s %" PRIu64 " outside %" PRIu64 "..%" PRIu64, name, value, min, max);
    return value;
}

uint64_t bloomc_seed_with_hash(uint32_t seed, bf_hash_kind hash) { return (uint64_t)hash << 32 | seed; }

bf_hash_kind bloomc_hash_of_seed(uint64_t field)
{
    uint64_t hash = field >> 32;
    if (hash != BF_HASH_MURMUR3 && hash != BF_HASH_MURMUR3_MIXED)
        bloomc_format_error("seed parameter %" PRIu64 ": hash id %" PRIu64 " is not 0 or 2", field, hash);
    return (bf_hash_kind)hash;
}

const uint8_t *bloomc_state_body(VALUE body, size_t expected)
{
    StringValue(body);
    if ((size_t)RSTRING_LEN(body) != expected)
        bloomc_format_error("body of %ld bytes where the parameters need %llu", RSTRING_LEN(body), (unsigned long long)expected);
    return (const uint8_t *)RSTRING_PTR(body);
}

uint64_t bloomc_double_bits(double d)
{
    uint64_t bits;
    memcpy(&bits, &d, sizeof bits);
    return bits;
}

double bloomc_bits_double(uint64_t bits)
{
    double d;
    memcpy(&d, &bits, sizeof d);
    return d;
}
