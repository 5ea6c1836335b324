/*
 * Document-module: Bloomc::FNV
 *
 * FNV-1 and FNV-1a hashes of a String's bytes.
 */
/* The functions come from one macro, which RDoc cannot read: their
 * documentation is in Document-method comments. */
#include "bloomc.h"
#include "bf_hash.h"

#define FNV_METHOD(name, bits) \
    static VALUE fnv_s_##name(VALUE mod, VALUE str) \
    { \
        StringValue(str); \
        VALUE h = ULL2NUM(bf_##name((const uint8_t *)RSTRING_PTR(str), (size_t)RSTRING_LEN(str))); \
        RB_GC_GUARD(str); \
        return h; \
    }

/*
 * Document-method: Bloomc::FNV::fnv1_32
 * call-seq: FNV.fnv1_32(str) -> Integer
 *
 * FNV-1, 32 bits, over every byte of +str+.
 */
FNV_METHOD(fnv1_32, 32)
/*
 * Document-method: Bloomc::FNV::fnv1a_32
 * call-seq: FNV.fnv1a_32(str) -> Integer
 *
 * FNV-1a, 32 bits, over every byte of +str+.
 */
FNV_METHOD(fnv1a_32, 32)
/*
 * Document-method: Bloomc::FNV::fnv1_64
 * call-seq: FNV.fnv1_64(str) -> Integer
 *
 * FNV-1, 64 bits, over every byte of +str+.
 */
FNV_METHOD(fnv1_64, 64)
/*
 * Document-method: Bloomc::FNV::fnv1a_64
 * call-seq: FNV.fnv1a_64(str) -> Integer
 *
 * FNV-1a, 64 bits, over every byte of +str+.
 */
FNV_METHOD(fnv1a_64, 64)

/* For RDoc and YARD, which learn which Ruby class a C variable holds only
 * from literal rb_define_* calls in its file, and document a method only
 * on a class they know: the module Bloomc, a parameter here. Never compiled. */
#if 0
static void classes_for_rdoc_and_yard(void)
{
    mBloomc = rb_define_module("Bloomc");
}
#endif
void bloomc_init_fnv(VALUE mBloomc)
{
    VALUE mFNV = rb_define_module_under(mBloomc, "FNV");
    rb_define_module_function(mFNV, "fnv1_32", fnv_s_fnv1_32, 1);
    rb_define_module_function(mFNV, "fnv1a_32", fnv_s_fnv1a_32, 1);
    rb_define_module_function(mFNV, "fnv1_64", fnv_s_fnv1_64, 1);
    rb_define_module_function(mFNV, "fnv1a_64", fnv_s_fnv1a_64, 1);
}
