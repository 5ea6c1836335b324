#include "bloomc.h"
#include "args.h"
#include <stdarg.h>

static void require_integer(VALUE v, const char *name)
{
    if (!RB_INTEGER_TYPE_P(v))
        rb_raise(rb_eTypeError, "%s must be an Integer, not %" PRIsVALUE, name, rb_obj_class(v));
}

uint64_t bloomc_index_arg(VALUE pos, uint64_t size)
{
    require_integer(pos, "position");
    if (FIXNUM_P(pos)) {
        long v = FIX2LONG(pos);
        if (v >= 0 && (uint64_t)v < size) return (uint64_t)v;
    }
    rb_raise(rb_eIndexError, "position %" PRIsVALUE " outside 0...%" PRIu64, pos, size);
}

uint64_t bloomc_count_arg(VALUE v, const char *name, uint64_t max)
{
    require_integer(v, name);
    if (FIXNUM_P(v) && FIX2LONG(v) > 0 && (uint64_t)FIX2LONG(v) <= max) return (uint64_t)FIX2LONG(v);
    int positive = FIXNUM_P(v) ? FIX2LONG(v) > 0 : FIX2INT(rb_big_cmp(v, INT2FIX(0))) > 0;
    if (!positive)
        rb_raise(rb_eArgError, "%s must be positive, got %" PRIsVALUE, name, v);
    if (!FIXNUM_P(v) && FIX2INT(rb_big_cmp(v, ULL2NUM(max))) <= 0) return NUM2ULL(v); /* a Bignum within max */
    rb_raise(rb_eArgError, "%s %" PRIsVALUE " is too large (at most %" PRIu64 ")", name, v, max);
}

uint32_t bloomc_uint32_arg(VALUE v, const char *name)
{
    require_integer(v, name);
    if (FIXNUM_P(v) && FIX2LONG(v) >= 0 && FIX2LONG(v) <= 0xffffffffL) return (uint32_t)FIX2LONG(v);
    rb_raise(rb_eRangeError, "%s %" PRIsVALUE " outside 0..4294967295", name, v);
}

bf_hash_kind bloomc_hash_kind_arg(VALUE v)
{
    if (v == INT2FIX(BF_HASH_MURMUR3)) return BF_HASH_MURMUR3;
    if (v == INT2FIX(BF_HASH_FNV1A)) return BF_HASH_FNV1A;
    if (v == INT2FIX(BF_HASH_MURMUR3_MIXED)) return BF_HASH_MURMUR3_MIXED;
    rb_raise(rb_eArgError, "unknown hash function %" PRIsVALUE, rb_inspect(v));
}

int bloomc_intersection_arg(VALUE op, int same_shape)
{
    if (!same_shape) rb_raise(rb_eArgError, "cannot combine filters of different shapes");
    if (op == ID2SYM(rb_intern("union"))) return 0;
    if (op == ID2SYM(rb_intern("intersection"))) return 1;
    rb_raise(rb_eArgError, "unknown set operation %" PRIsVALUE, rb_inspect(op));
}

typedef struct {
    size_t nbytes;
    void *p;
} calloc_try;

static VALUE try_calloc(VALUE arg)
{
    calloc_try *t = (calloc_try *)arg;
    t->p = ruby_xcalloc(t->nbytes, 1);
    return Qnil;
}

static VALUE calloc_failed(VALUE arg, VALUE error)
{
    (void)arg;
    (void)error;
    return Qnil;
}

void *bloomc_xcalloc(size_t nbytes, const char *what, ...)
{
    calloc_try t = {nbytes, NULL};
    rb_rescue2(try_calloc, (VALUE)&t, calloc_failed, (VALUE)&t, rb_eNoMemError, (VALUE)0);
    if (t.p) return t.p;
    va_list ap;
    va_start(ap, what);
    VALUE message = rb_vsprintf(what, ap);
    va_end(ap);
    bloomc_no_memory(nbytes, message);
}

void bloomc_no_memory(size_t nbytes, VALUE what)
{
    rb_raise(rb_eNoMemError, "failed to allocate %" PRIu64 " bytes (%.1f GiB) for %" PRIsVALUE, (uint64_t)nbytes,
             (double)nbytes / (1024.0 * 1024.0 * 1024.0), what);
}
