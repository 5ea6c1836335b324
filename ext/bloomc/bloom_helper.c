/* Bloomc::BloomHelper.multi_hash: a key's probe values, as the filters use them.
 * find_m_k lives in lib/bloomc/bloom_helper.rb. */
#include "bloomc.h"

/*
 * call-seq: multi_hash(key, k, m = nil) -> Array of Integer
 *
 * The +k+ probe values of +key+ (enhanced double hashing over one MurmurHash3
 * x64_128 with seed 0): 64-bit Integers, or, when +m+ is given, the bit
 * positions in 0...m that a BloomFilter with m bits and seed 0 uses.
 */
static VALUE bloom_helper_s_multi_hash(int argc, VALUE *argv, VALUE mod)
{
    rb_check_arity(argc, 2, 3);
    uint32_t k = (uint32_t)bloomc_count_arg(argv[1], "k", BF_K_MAX);
    uint64_t m = (argc == 3 && !NIL_P(argv[2])) ? bloomc_count_arg(argv[2], "m", BF_BITS_MAX) : 0;
    bf_probe p = bf_probe_start(bloomc_key_hash(argv[0], 0));
    VALUE result = rb_ary_new_capa(k);
    for (uint32_t i = 0; i < k; i++) {
        uint64_t x = bf_probe_next(&p);
        rb_ary_push(result, ULL2NUM(m ? bf_reduce(x, m) : x));
    }
    return result;
}

void bloomc_init_bloom_helper(VALUE mBloomc)
{
    VALUE mBloomHelper = rb_define_module_under(mBloomc, "BloomHelper");
    rb_define_singleton_method(mBloomHelper, "multi_hash", bloom_helper_s_multi_hash, -1);
}
