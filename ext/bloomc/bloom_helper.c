/* Bloomc::BloomHelper's probe values, as the filters use them; the public
 * methods live in lib/bloomc/bloom_helper.rb. */
#include "bloomc.h"
#include "keys.h"
#include "args.h"
#include "bf_bloom.h"

/* :nodoc: probe_values(key, k, m_or_nil, hash_kind); see multi_hash in Ruby. */
static VALUE bloom_helper_s_probe_values(VALUE mod, VALUE key, VALUE vk, VALUE vm, VALUE kind_arg)
{
    uint32_t k = (uint32_t)bloomc_count_arg(vk, "k", BF_K_MAX);
    uint64_t m = NIL_P(vm) ? 0 : bloomc_count_arg(vm, "m", BF_BITS_MAX);
    bf_hash_kind kind = bloomc_hash_kind_arg(kind_arg);
    bf_key_hash h = bloomc_key_hash(key, 0, kind);
    uint64_t values[BF_K_MAX];
    if (m) bf_positions(h, kind, k, m, values);
    else bf_probe_values(h, kind, k, values);
    VALUE result = rb_ary_new_capa(k);
    for (uint32_t i = 0; i < k; i++) rb_ary_push(result, ULL2NUM(values[i]));
    return result;
}

/* :nodoc: optimal_m_k(capacity, error): [m, k] by bf_bloom_size, or nil when
 * no filter can hold it (BloomFilter.find_m_k checks the arguments first). */
static VALUE bloom_helper_s_optimal_m_k(VALUE mod, VALUE capacity, VALUE error)
{
    uint64_t m;
    uint32_t k;
    if (!bf_bloom_size(NUM2DBL(capacity), NUM2DBL(error), BF_SIZING_EXPECTED, &m, &k)) return Qnil;
    return rb_assoc_new(ULL2NUM(m), UINT2NUM(k));
}

/* :nodoc: formula_m_k(capacity, error): [m, k] as bloomc sized filters
 * before sizing by the expected rate (to recognise them), or nil. */
static VALUE bloom_helper_s_formula_m_k(VALUE mod, VALUE capacity, VALUE error)
{
    uint64_t m;
    uint32_t k;
    if (!bf_bloom_size(NUM2DBL(capacity), NUM2DBL(error), BF_SIZING_FORMULA, &m, &k)) return Qnil;
    return rb_assoc_new(ULL2NUM(m), UINT2NUM(k));
}

/* :nodoc: the formula's rate of m bits and k probes at n keys. */
static VALUE bloom_helper_s_formula_rate(VALUE mod, VALUE m, VALUE k, VALUE n)
{
    return DBL2NUM(bf_bloom_rate(bloomc_count_arg(m, "m", BF_BITS_MAX), (uint32_t)bloomc_count_arg(k, "k", BF_K_MAX), NUM2DBL(n)));
}

/* :nodoc: the expected rate of m bits and k independent probes at n keys. */
static VALUE bloom_helper_s_expected_rate(VALUE mod, VALUE m, VALUE k, VALUE n)
{
    return DBL2NUM(bf_bloom_expected_rate(bloomc_count_arg(m, "m", BF_BITS_MAX), (uint32_t)bloomc_count_arg(k, "k", BF_K_MAX), NUM2DBL(n)));
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
void bloomc_init_bloom_helper(VALUE mBloomc)
{
    VALUE mBloomHelper = rb_define_module_under(mBloomc, "BloomHelper");
    rb_define_singleton_method(mBloomHelper, "probe_values", bloom_helper_s_probe_values, 4);
    rb_define_singleton_method(mBloomHelper, "optimal_m_k", bloom_helper_s_optimal_m_k, 2);
    rb_define_singleton_method(mBloomHelper, "formula_rate", bloom_helper_s_formula_rate, 3);
    rb_define_singleton_method(mBloomHelper, "expected_rate", bloom_helper_s_expected_rate, 3);
    rb_define_singleton_method(mBloomHelper, "formula_m_k", bloom_helper_s_formula_m_k, 2);
    rb_funcall(mBloomHelper, rb_intern("private_class_method"), 5, ID2SYM(rb_intern("probe_values")),
               ID2SYM(rb_intern("optimal_m_k")), ID2SYM(rb_intern("formula_rate")), ID2SYM(rb_intern("expected_rate")),
               ID2SYM(rb_intern("formula_m_k")));
}
