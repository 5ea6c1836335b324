#include "bloomc.h"

VALUE bloomc_mBloomc;
VALUE bloomc_eUnsupportedError;
VALUE bloomc_eCapacityError;
VALUE bloomc_eFormatError;

RUBY_FUNC_EXPORTED void Init_bloomc(void)
{
#ifdef HAVE_RB_EXT_RACTOR_SAFE
    /* No mutable C globals (class handles are set once here; the huge-page
     * switch is set once, atomically), and every
     * object's state lives in the object: safe to call from any Ractor. A
     * frozen filter on the heap is shareable (filter.h: BLOOMC_KIND_TYPE),
     * and Ractors may look keys up in it at once; a mapped filter is not. */
    rb_ext_ractor_safe(true);
#endif
    bloomc_mBloomc = rb_define_module("Bloomc");
    /* lib/bloomc.rb defines the error classes first; these find them (or
     * make them, when the extension is loaded alone). */
    VALUE error = rb_define_class_under(bloomc_mBloomc, "Error", rb_eStandardError);
    bloomc_eUnsupportedError = rb_define_class_under(bloomc_mBloomc, "UnsupportedError", error);
    rb_global_variable(&bloomc_eUnsupportedError);
    bloomc_eCapacityError = rb_define_class_under(bloomc_mBloomc, "CapacityError", error);
    rb_global_variable(&bloomc_eCapacityError);
    bloomc_eFormatError = rb_define_class_under(bloomc_mBloomc, "FormatError", error);
    rb_global_variable(&bloomc_eFormatError);
    /* Largest k a filter accepts. */
    rb_define_const(bloomc_mBloomc, "MAX_K", INT2FIX(BF_K_MAX));
    /* The hash functions a filter can map keys with (see bf_probe.h). */
    VALUE kinds = rb_hash_new();
    rb_hash_aset(kinds, ID2SYM(rb_intern("murmur3")), INT2FIX(BF_HASH_MURMUR3));
    rb_hash_aset(kinds, ID2SYM(rb_intern("fnv1a")), INT2FIX(BF_HASH_FNV1A));
    rb_define_const(bloomc_mBloomc, "HASH_FUNCTIONS", rb_obj_freeze(kinds));

    bloomc_init_fnv(bloomc_mBloomc);
    bloomc_init_murmur3(bloomc_mBloomc);
    bloomc_init_bit_field(bloomc_mBloomc);
    bloomc_init_bit_bucket_field(bloomc_mBloomc);
    bloomc_init_bloom_helper(bloomc_mBloomc);
    bloomc_init_mapped(bloomc_mBloomc);
    bloomc_init_pages(bloomc_mBloomc);
#define BLOOMC_CALL_INIT(name) bloomc_init_##name(bloomc_mBloomc);
    BLOOMC_FILTER_KINDS(BLOOMC_CALL_INIT)
#undef BLOOMC_CALL_INIT
    bloomc_init_crc32c(bloomc_mBloomc);
    bloomc_init_redis_layout(bloomc_mBloomc);
}
