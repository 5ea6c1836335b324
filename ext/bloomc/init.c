#include "bloomc.h"

VALUE bloomc_mBloomc;

RUBY_FUNC_EXPORTED void Init_bloomc(void)
{
    bloomc_mBloomc = rb_define_module("Bloomc");
    /* Largest k a filter accepts. */
    rb_define_const(bloomc_mBloomc, "MAX_K", INT2FIX(BF_K_MAX));

    bloomc_init_fnv(bloomc_mBloomc);
    bloomc_init_murmur3(bloomc_mBloomc);
    bloomc_init_bit_field(bloomc_mBloomc);
    bloomc_init_bit_bucket_field(bloomc_mBloomc);
    bloomc_init_bloom_helper(bloomc_mBloomc);
    bloomc_init_bloom_filter(bloomc_mBloomc);
}
