/*
 * Document-module: Bloomc::Murmur3
 *
 * MurmurHash3 x86_32 and x64_128 of a String's bytes.
 */
#include "bloomc.h"
#include "args.h"
#include "bf_hash.h"
#include "bf_endian.h"

static uint32_t seed_arg(int argc, VALUE *argv)
{
    rb_check_arity(argc, 1, 2);
    StringValue(argv[0]);
    return argc == 2 ? bloomc_uint32_arg(argv[1], "seed") : 0;
}

/* The 16-byte x64_128 digest: h1 then h2, each little-endian. */
static void digest128(int argc, VALUE *argv, uint8_t digest[16])
{
    uint32_t seed = seed_arg(argc, argv);
    VALUE str = argv[0];
    uint64_t out[2];
    bf_murmur3_128((const uint8_t *)RSTRING_PTR(str), (size_t)RSTRING_LEN(str), seed, out);
    RB_GC_GUARD(str);
    bf_store_le64(digest, out[0]);
    bf_store_le64(digest + 8, out[1]);
}

/*
 * call-seq: Murmur3.hash32(str, seed = 0) -> Integer
 *
 * MurmurHash3_x86_32 of the bytes of +str+; +seed+ in 0..2**32-1.
 */
static VALUE murmur3_s_hash32(int argc, VALUE *argv, VALUE mod)
{
    uint32_t seed = seed_arg(argc, argv);
    VALUE str = argv[0];
    uint32_t h = bf_murmur3_32((const uint8_t *)RSTRING_PTR(str), (size_t)RSTRING_LEN(str), seed);
    RB_GC_GUARD(str);
    return UINT2NUM(h);
}

/*
 * call-seq: Murmur3.hash128(str, seed = 0) -> Integer
 *
 * MurmurHash3_x64_128 of the bytes of +str+ as one 128-bit Integer: the
 * digest read little-endian, that is h1 + (h2 << 64).
 */
static VALUE murmur3_s_hash128(int argc, VALUE *argv, VALUE mod)
{
    uint8_t digest[16];
    digest128(argc, argv, digest);
    return rb_integer_unpack(digest, 16, 1, 0, INTEGER_PACK_LITTLE_ENDIAN);
}

/*
 * call-seq: Murmur3.digest128(str, seed = 0) -> String
 *
 * MurmurHash3_x64_128 of the bytes of +str+ as its 16-byte binary digest
 * (h1 then h2, each little-endian), as SMHasher lays it out.
 */
static VALUE murmur3_s_digest128(int argc, VALUE *argv, VALUE mod)
{
    uint8_t digest[16];
    digest128(argc, argv, digest);
    return rb_str_new((const char *)digest, 16);
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
void bloomc_init_murmur3(VALUE mBloomc)
{
    VALUE mMurmur3 = rb_define_module_under(mBloomc, "Murmur3");
    rb_define_module_function(mMurmur3, "hash32", murmur3_s_hash32, -1);
    rb_define_module_function(mMurmur3, "hash128", murmur3_s_hash128, -1);
    rb_define_module_function(mMurmur3, "digest128", murmur3_s_digest128, -1);
}
