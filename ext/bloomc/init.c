#include "filter.h"
#include "mapping.h"

VALUE bloomc_mBloomc;
VALUE bloomc_eUnsupportedError;
VALUE bloomc_eCapacityError;
VALUE bloomc_eFormatError;

#define BUILD_FEATURE(hash, name, on) rb_hash_aset(hash, ID2SYM(rb_intern(name)), (on) ? Qtrue : Qfalse)

/* :nodoc: which of extconf.rb's platform checks this build passed (the
 * fallback runs where one did not), named as BLOOMC_FALLBACKS names them;
 * forced: whether BLOOMC_FALLBACKS turned some off. A new frozen Hash
 * each call, so that no Ractor shares one. */
static VALUE bloomc_build_features(VALUE module)
{
    VALUE features = rb_hash_new();
#ifdef HAVE_FALLOCATE
    BUILD_FEATURE(features, "fallocate", 1);
#else
    BUILD_FEATURE(features, "fallocate", 0);
#endif
#ifdef HAVE_POSIX_FALLOCATE
    BUILD_FEATURE(features, "posix_fallocate", 1);
#else
    BUILD_FEATURE(features, "posix_fallocate", 0);
#endif
#ifdef HAVE_SEEK_HOLE
    BUILD_FEATURE(features, "seek_hole", 1);
#else
    BUILD_FEATURE(features, "seek_hole", 0);
#endif
#ifdef HAVE_MINCORE
    BUILD_FEATURE(features, "mincore", 1);
#else
    BUILD_FEATURE(features, "mincore", 0);
#endif
#ifdef HAVE_MINCORE_UNSIGNED_VECTOR
    BUILD_FEATURE(features, "mincore_unsigned_vector", 1);
#else
    BUILD_FEATURE(features, "mincore_unsigned_vector", 0);
#endif
#ifdef HAVE_MADV_POPULATE
    BUILD_FEATURE(features, "populate", 1);
#else
    BUILD_FEATURE(features, "populate", 0);
#endif
#ifdef HAVE_MADV_HUGEPAGE
    BUILD_FEATURE(features, "hugepage_advice", 1);
#else
    BUILD_FEATURE(features, "hugepage_advice", 0);
#endif
#ifdef HAVE_PRCTL_THP_DISABLE
    BUILD_FEATURE(features, "thp", 1);
#else
    BUILD_FEATURE(features, "thp", 0);
#endif
#ifdef HAVE_CLOCK_MONOTONIC_COARSE
    BUILD_FEATURE(features, "coarse_clock", 1);
#else
    BUILD_FEATURE(features, "coarse_clock", 0);
#endif
    /* A hardware path: the continuous filter's sweep also built for AVX2,
     * picked at load where the CPU has it (x86-64 with GCC or Clang). */
#ifdef BLOOMC_TARGET_CLONES
    BUILD_FEATURE(features, "avx2_sweep", 1);
#else
    BUILD_FEATURE(features, "avx2_sweep", 0);
#endif
#ifdef BLOOMC_FORCED_FALLBACKS
    BUILD_FEATURE(features, "forced", 1);
#else
    BUILD_FEATURE(features, "forced", 0);
#endif
    return rb_obj_freeze(features);
}

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
    VALUE kinds = rb_hash_new();
    rb_hash_aset(kinds, ID2SYM(rb_intern("murmur3")), INT2FIX(BF_HASH_MURMUR3));
    rb_hash_aset(kinds, ID2SYM(rb_intern("fnv1a")), INT2FIX(BF_HASH_FNV1A));
    rb_hash_aset(kinds, ID2SYM(rb_intern("murmur3_mixed")), INT2FIX(BF_HASH_MURMUR3_MIXED));
    /* The hash functions a filter's hash: takes (:murmur3_mixed, the
     * default; :murmur3; :fnv1a, bloombroom's), each by its number in the
     * file format (see bf_probe.h). */
    rb_define_const(bloomc_mBloomc, "HASH_FUNCTIONS", rb_obj_freeze(kinds));

    bloomc_init_fnv(bloomc_mBloomc);
    bloomc_init_murmur3(bloomc_mBloomc);
    bloomc_init_bit_field(bloomc_mBloomc);
    bloomc_init_bit_bucket_field(bloomc_mBloomc);
    bloomc_init_bloom_helper(bloomc_mBloomc);
    bloomc_init_mapped(bloomc_mBloomc);
    bloomc_init_pages(bloomc_mBloomc);
    bloomc_init_filter();
#define BLOOMC_CALL_INIT(name) bloomc_init_##name();
    BLOOMC_FILTER_KINDS(BLOOMC_CALL_INIT)
#undef BLOOMC_CALL_INIT
    bloomc_init_crc32c(bloomc_mBloomc);
    bloomc_init_redis_layout(bloomc_mBloomc);
    rb_define_private_method(rb_singleton_class(bloomc_mBloomc), "build_features", bloomc_build_features, 0);
}
