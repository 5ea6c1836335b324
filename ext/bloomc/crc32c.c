/*
 * Document-module: Bloomc::CRC32C
 *
 * The CRC-32C (Castagnoli) checksum of a String's bytes.
 */
#include "bloomc.h"
#include "args.h"
#include "bf_crc32c.h"

typedef uint32_t crc32c_fn(uint32_t crc, const void *data, size_t len);

static VALUE checksum_with(crc32c_fn *fn, int argc, VALUE *argv)
{
    rb_check_arity(argc, 1, 2);
    StringValue(argv[0]);
    uint32_t crc = argc == 2 ? bloomc_uint32_arg(argv[1], "crc") : 0;
    VALUE str = argv[0];
    crc = fn(crc, RSTRING_PTR(str), (size_t)RSTRING_LEN(str));
    RB_GC_GUARD(str);
    return UINT2NUM(crc);
}

/*
 * call-seq: CRC32C.checksum(str, crc = 0) -> Integer
 *
 * The CRC-32C (Castagnoli, the iSCSI checksum of RFC 3720) of the bytes of
 * +str+, in 0..2**32-1. +crc+ is the checksum of the bytes before +str+, so a
 * stream can be checksummed in pieces:
 *   CRC32C.checksum(b, CRC32C.checksum(a)) == CRC32C.checksum(a + b)
 * TypeError when +str+ is not a String or +crc+ not an Integer, RangeError
 * when +crc+ is outside 0..2**32-1.
 */
static VALUE crc32c_s_checksum(int argc, VALUE *argv, VALUE mod)
{
    return checksum_with(bf_crc32c, argc, argv);
}

/*
 * call-seq: CRC32C.software_checksum(str, crc = 0) -> Integer (private)
 *
 * CRC32C.checksum computed by the portable table code even where the CPU has
 * a CRC instruction: for the specs and benchmarks.
 */
static VALUE crc32c_s_software_checksum(int argc, VALUE *argv, VALUE mod)
{
    return checksum_with(bf_crc32c_sw, argc, argv);
}

/*
 * call-seq: CRC32C.accelerated? -> true or false (private)
 *
 * Whether CRC32C.checksum uses the CPU's CRC instruction (SSE4.2).
 */
static VALUE crc32c_s_accelerated_p(VALUE mod)
{
    return RBOOL(bf_crc32c_accelerated());
}

/* For RDoc and YARD, which learn which Ruby class a C variable holds only
 * from literal rb_define_* calls in its file, and document a method only
 * on a class they know: the module Bloomc, a parameter here. The variable
 * singleton holds CRC32C's singleton class: named first as the module
 * itself, or RDoc makes a class Bloomc::CRC32C of it in place of the
 * module and loses checksum. Never compiled. */
#if 0
static void classes_for_rdoc_and_yard(void)
{
    mBloomc = rb_define_module("Bloomc");
    singleton = rb_define_module_under(mBloomc, "CRC32C");
}
#endif
void bloomc_init_crc32c(VALUE mBloomc)
{
    bf_crc32c_init();
    VALUE mCRC32C = rb_define_module_under(mBloomc, "CRC32C");
    rb_define_module_function(mCRC32C, "checksum", crc32c_s_checksum, -1);
    VALUE singleton = rb_singleton_class(mCRC32C);
    rb_define_private_method(singleton, "software_checksum", crc32c_s_software_checksum, -1);
    rb_define_private_method(singleton, "accelerated?", crc32c_s_accelerated_p, 0);
}
