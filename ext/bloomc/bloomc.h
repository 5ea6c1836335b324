/* What every Ruby binding shares: Ruby, the module and its error classes,
 * and the list of kinds. Each service has a header of its own (keys.h,
 * batch.h, args.h, state.h, mapping.h, views.h), included where it is used;
 * the bf_* core knows nothing of Ruby. */
#ifndef BLOOMC_H
#define BLOOMC_H

#include <ruby.h>

#ifndef RBOOL /* public from Ruby 3.2 on */
#define RBOOL(v) ((v) ? Qtrue : Qfalse)
#endif

extern VALUE bloomc_mBloomc;
extern VALUE bloomc_eUnsupportedError; /* Bloomc::UnsupportedError */
extern VALUE bloomc_eCapacityError;    /* Bloomc::CapacityError: a filter that cannot take a key */
extern VALUE bloomc_eFormatError;      /* Bloomc::FormatError */

/* rb_check_typeddata with the common case inline: a method's receiver is
 * nearly always exactly our type or its child (a mapped filter's, filter.c),
 * and the full check is a call that walks the type's parents on every add
 * and include?. */
static inline void *bloomc_typed_data(VALUE obj, const rb_data_type_t *type)
{
    if (RB_TYPE_P(obj, T_DATA) && RTYPEDDATA_P(obj)) {
        const rb_data_type_t *t = RTYPEDDATA_TYPE(obj);
        if (t == type || t->parent == type) return RTYPEDDATA_DATA(obj);
    }
    return rb_check_typeddata(obj, type);
}

/* The filter classes, each defined by bloomc_init_<name> in <name>.c, in the
 * order init.c defines them: the one list of kinds. Each kind's number in
 * the file format is in its descriptor; Bloomc::Format::KINDS is made from
 * them, and spec/bloomc/kinds_spec.rb checks every other list against it. */
#define BLOOMC_FILTER_KINDS(X) \
    X(bloom_filter) \
    X(continuous_bloom_filter) \
    X(blocked_bloom_filter) \
    X(counting_bloom_filter) \
    X(spectral_bloom_filter) \
    X(bitwise_bloom_filter) \
    X(stable_bloom_filter) \
    X(a2_bloom_filter) \
    X(scalable_bloom_filter) \
    X(cuckoo_filter) \
    X(binary_fuse_filter) \
    X(sliding_bloom_filter)

#define BLOOMC_DECLARE_INIT(name) void bloomc_init_##name(void);
BLOOMC_FILTER_KINDS(BLOOMC_DECLARE_INIT)
#undef BLOOMC_DECLARE_INIT

void bloomc_init_bit_field(VALUE mBloomc);
void bloomc_init_bit_bucket_field(VALUE mBloomc);
void bloomc_init_redis_layout(VALUE mBloomc);
void bloomc_init_bloom_helper(VALUE mBloomc);
void bloomc_init_fnv(VALUE mBloomc);
void bloomc_init_murmur3(VALUE mBloomc);
void bloomc_init_crc32c(VALUE mBloomc);

#endif
