/* Bloomc::RedisLayout (private): where a key's cells are in a filter kept in
 * Redis (lib/bloomc/redis.rb), computed exactly as for the local filters,
 * so a Redis filter answers as a local one of the same shape would.
 *
 * A key goes to one shard, chosen from its hash independently of its probes,
 * and its k cells lie in that shard. Bit cells are given as Redis bit
 * offsets: Redis numbers the bits of a byte from the most significant, the
 * local filters from the least, so offset (p & ~7) | (7 - (p & 7)) holds
 * local bit p, and a Redis string's bytes are the local filter's bytes.
 * Counter cells are given as cell indexes (BITFIELD's #i); their bytes
 * differ from the local layout and are converted by cells_to_redis and
 * cells_from_redis. */
#include "bloomc.h"
#include "keys.h"
#include "args.h"
#include "bf_bits.h"
#include "bf_continuous.h"

static VALUE cRedisLayout;

typedef struct {
    uint64_t m; /* cells per shard */
    uint32_t k, seed, shards;
    bf_hash_kind hash;
    int bit_offsets; /* bit cells: Redis bit offsets; else cell indexes */
} layout_t;

static const rb_data_type_t layout_type = {
    .wrap_struct_name = "bloomc/redis_layout",
    .function = {
        .dfree = RUBY_TYPED_DEFAULT_FREE,
        .dsize = NULL,
    },
    .flags = RUBY_TYPED_FREE_IMMEDIATELY | RUBY_TYPED_WB_PROTECTED,
};

static VALUE layout_alloc(VALUE klass)
{
    layout_t *l;
    return TypedData_Make_Struct(klass, layout_t, &layout_type, l);
}

static const layout_t *get_layout(VALUE self)
{
    const layout_t *l = bloomc_typed_data(self, &layout_type);
    if (!l->m) rb_raise(rb_eArgError, "uninitialized %" PRIsVALUE, rb_obj_class(self));
    return l;
}

/* initialize(m, k, seed, hash_kind, shards, bit_offsets): m cells per shard. */
static VALUE layout_initialize(VALUE self, VALUE m, VALUE k, VALUE seed, VALUE hash, VALUE shards, VALUE bit_offsets)
{
    layout_t *l = bloomc_typed_data(self, &layout_type);
    rb_check_frozen(self);
    layout_t fresh = {
        .m = bloomc_count_arg(m, "m", BF_BITS_MAX),
        .k = (uint32_t)bloomc_count_arg(k, "k", BF_K_MAX),
        .seed = bloomc_uint32_arg(seed, "seed"),
        .shards = (uint32_t)bloomc_count_arg(shards, "shards", 1u << 16),
        .hash = bloomc_hash_kind_arg(hash),
        .bit_offsets = RTEST(bit_offsets),
    };
    *l = fresh;
    return self;
}

/* The shard of a key: from both hash words, mixed so that it does not
 * follow the probes' own use of them. */
static uint32_t shard_of(const layout_t *l, bf_key_hash h)
{
    uint64_t mixed = bf_fmix64(h.h1 ^ bf_fmix64(h.h2 + 0x9e3779b97f4a7c15ULL));
    return (uint32_t)bf_reduce(mixed, l->shards);
}

static VALUE cells_of(const layout_t *l, bf_key_hash h)
{
    uint64_t positions[BF_K_MAX];
    bf_positions(h, l->hash, l->k, l->m, positions);
    VALUE cells = rb_ary_new_capa(l->k);
    for (uint32_t i = 0; i < l->k; i++) {
        uint64_t p = positions[i];
        rb_ary_push(cells, ULL2NUM(l->bit_offsets ? (p & ~(uint64_t)7) | (7 - (p & 7)) : p));
    }
    return cells;
}

/*
 * call-seq: locate(key) -> [shard, cells]
 *
 * The key's shard (0...shards) and its k cells there.
 */
static VALUE layout_locate(VALUE self, VALUE key)
{
    const layout_t *l = get_layout(self);
    bf_key_hash h = bloomc_key_hash(key, l->seed, l->hash);
    return rb_assoc_new(UINT2NUM(shard_of(l, h)), cells_of(l, h));
}

/* m, k, seed, shards as given. */
static VALUE layout_m(VALUE self) { return ULL2NUM(get_layout(self)->m); }
static VALUE layout_k(VALUE self) { return UINT2NUM(get_layout(self)->k); }
static VALUE layout_shards(VALUE self) { return UINT2NUM(get_layout(self)->shards); }

static unsigned width_arg(VALUE width)
{
    return (unsigned)bloomc_count_arg(width, "width", 32);
}

static uint64_t msb_get(const uint8_t *data, uint64_t bit, unsigned width)
{
    uint64_t v = 0;
    for (unsigned j = 0; j < width; j++, bit++) v = (v << 1) | ((data[bit >> 3] >> (7 - (bit & 7))) & 1);
    return v;
}

static void msb_set(uint8_t *data, uint64_t bit, unsigned width, uint64_t v)
{
    for (unsigned j = 0; j < width; j++, bit++) {
        unsigned b = (unsigned)((v >> (width - 1 - j)) & 1);
        uint8_t mask = (uint8_t)(1u << (7 - (bit & 7)));
        data[bit >> 3] = (uint8_t)(b ? data[bit >> 3] | mask : data[bit >> 3] & ~mask);
    }
}

/* Converts count cells of width bits between the local layout (least
 * significant bit first, values little-endian) and BITFIELD's (most
 * significant first, big-endian); src may be shorter than the cells need
 * (Redis strings end at their last written byte): the rest reads as 0. */
static VALUE convert_cells(VALUE src, VALUE count, VALUE width, int to_redis)
{
    unsigned w = width_arg(width);
    StringValue(src);
    /* A Redis string holds at most 2**32 bits (512 MB). */
    uint64_t n = bloomc_count_arg(count, "count", ((uint64_t)1 << 32) / w);
    if (!bf_buckets_nbytes(n, w)) rb_raise(rb_eArgError, "%" PRIu64 " cells of %u bits cannot exist here", n, w);
    size_t nbytes = (size_t)((n * w + 7) / 8); /* whole bytes, as both layouts end */
    if ((uint64_t)RSTRING_LEN(src) > nbytes) rb_raise(rb_eArgError, "%ld bytes for %" PRIu64 " cells of %u bits", RSTRING_LEN(src), n, w);
    /* The local field reads and writes 8 bytes at a time: both buffers
     * have room past the cells. */
    uint8_t *in = ruby_xcalloc(nbytes + 8, 1);
    memcpy(in, RSTRING_PTR(src), (size_t)RSTRING_LEN(src));
    VALUE out = rb_str_buf_new((long)nbytes + 8);
    uint8_t *o = (uint8_t *)RSTRING_PTR(out);
    memset(o, 0, nbytes + 8);
    bf_buckets local = {to_redis ? in : o, n, w, (uint32_t)((w == 32) ? 0xffffffffu : (1u << w) - 1)};
    uint64_t saturated = 0;
    for (uint64_t i = 0; i < n; i++) {
        uint32_t v = to_redis ? bf_buckets_get(&local, i) : (uint32_t)msb_get(in, i * w, w);
        if (to_redis) msb_set(o, i * w, w, v);
        else bf_buckets_set(&local, i, v);
        saturated += v == local.max;
    }
    ruby_xfree(in);
    rb_str_set_len(out, (long)nbytes);
    return to_redis ? out : rb_assoc_new(out, ULL2NUM(saturated));
}

/* cells_to_redis(bytes, count, width): local cells as BITFIELD lays them. */
static VALUE layout_s_cells_to_redis(VALUE klass, VALUE src, VALUE count, VALUE width)
{
    return convert_cells(src, count, width, 1);
}

/* cells_from_redis(bytes, count, width): the inverse, and how many cells
 * are saturated ([bytes, saturated]). */
static VALUE layout_s_cells_from_redis(VALUE klass, VALUE src, VALUE count, VALUE width)
{
    return convert_cells(src, count, width, 0);
}

/* The bucket field of a continuous filter's count buckets, over a copy of
 * src (or zeros) with room for the field's 8-byte reads and writes. */
static bf_buckets continuous_buckets(VALUE src, uint64_t n)
{
    size_t nbytes = bf_buckets_nbytes(n, BF_CONT_BITS);
    if (!nbytes) rb_raise(rb_eArgError, "%" PRIu64 " buckets cannot exist here", n);
    bf_buckets b = {ruby_xcalloc(nbytes, 1), n, BF_CONT_BITS, (1u << BF_CONT_BITS) - 1};
    if (!NIL_P(src)) {
        if ((size_t)RSTRING_LEN(src) > nbytes) {
            ruby_xfree(b.data);
            rb_raise(rb_eArgError, "%ld bytes for %" PRIu64 " buckets", RSTRING_LEN(src), n);
        }
        memcpy(b.data, RSTRING_PTR(src), (size_t)RSTRING_LEN(src));
    }
    return b;
}

static uint32_t slot_arg(VALUE slot)
{
    uint64_t s = bloomc_count_arg(slot, "slot", BF_CONT_SLOTS);
    return (uint32_t)s;
}

/* Ticks from slot s to the current slot c on the ring 1..15. */
static uint32_t slot_age(uint32_t s, uint32_t c)
{
    return c >= s ? c - s : c + BF_CONT_SLOTS - s;
}

/*
 * call-seq: continuous_to_redis(buckets, count, slot) -> [next, current, previous]
 *
 * A local continuous filter's buckets (at current slot +slot+) as the Redis
 * filter keeps them: one bitmap per period of the server's clock, bucket i
 * at the bit of Redis offset (i & ~7) | (7 - (i & 7)), as locate gives it.
 * A bucket a ticks old goes to the period a - 1 back, one younger than its
 * age: how far the local clock is into its slot is not known, and the
 * server's may be further into its period, so a key at its own age could
 * lose up to a period of its ttl. A bucket of the current slot goes to the
 * current period and to the next (whose bitmap lives a period longer).
 * Stale buckets are dropped, as the local filter reads them.
 */
static VALUE layout_s_continuous_to_redis(VALUE klass, VALUE src, VALUE count, VALUE slot)
{
    StringValue(src);
    uint64_t n = bloomc_count_arg(count, "count", (uint64_t)1 << 32);
    uint32_t current = slot_arg(slot);
    size_t nbytes = (size_t)((n + 7) / 8);
    VALUE ages[BF_CONT_DIVISOR + 1];
    for (int a = 0; a <= BF_CONT_DIVISOR; a++) {
        ages[a] = rb_str_buf_new((long)nbytes);
        memset(RSTRING_PTR(ages[a]), 0, nbytes);
        rb_str_set_len(ages[a], (long)nbytes);
    }
    bf_buckets b = continuous_buckets(src, n);
    for (uint64_t i = 0; i < n; i++) {
        uint32_t s = bf_buckets_get(&b, i);
        if (s == 0 || s > BF_CONT_SLOTS) continue;
        uint32_t age = slot_age(s, current);
        if (age > BF_CONT_DIVISOR) continue;
        char bit = (char)(1u << (i & 7)); /* Redis offset (i & ~7) | (7 - (i & 7)), as the probes */
        /* bitmap a is the period a - 1 back */
        char *bitmap = RSTRING_PTR(ages[age]);
        bitmap[i >> 3] |= bit;
        if (age == 0) {
            bitmap = RSTRING_PTR(ages[1]);
            bitmap[i >> 3] |= bit;
        }
    }
    ruby_xfree(b.data);
    return rb_ary_new_from_values(BF_CONT_DIVISOR + 1, ages);
}

/*
 * call-seq: continuous_from_redis(age0, age1, age2, count, slot) -> buckets
 *
 * The inverse: bucket i gets the slot of the youngest bitmap with bit i
 * set, counted back from +slot+, or 0. A bitmap may be shorter than count
 * bits (Redis strings end at their last written byte).
 */
static VALUE layout_s_continuous_from_redis(VALUE klass, VALUE age0, VALUE age1, VALUE age2, VALUE count, VALUE slot)
{
    VALUE ages[] = {age0, age1, age2};
    for (int a = 0; a <= BF_CONT_DIVISOR; a++) StringValue(ages[a]);
    uint64_t n = bloomc_count_arg(count, "count", (uint64_t)1 << 32);
    uint32_t current = slot_arg(slot);
    bf_buckets b = continuous_buckets(Qnil, n);
    for (uint64_t i = 0; i < n; i++) {
        for (uint32_t a = 0; a <= BF_CONT_DIVISOR; a++) {
            long at = (long)(i >> 3);
            if (at >= RSTRING_LEN(ages[a]) || !((uint8_t)RSTRING_PTR(ages[a])[at] & (1u << (i & 7)))) continue;
            bf_buckets_set(&b, i, a < current ? current - a : current + BF_CONT_SLOTS - a);
            break;
        }
    }
    VALUE out = rb_str_new((const char *)b.data, (long)((n * BF_CONT_BITS + 7) / 8));
    ruby_xfree(b.data);
    RB_GC_GUARD(age0);
    RB_GC_GUARD(age1);
    RB_GC_GUARD(age2);
    return out;
}

void bloomc_init_redis_layout(VALUE mBloomc)
{
    cRedisLayout = rb_define_class_under(mBloomc, "RedisLayout", rb_cObject);
    rb_define_alloc_func(cRedisLayout, layout_alloc);
    rb_define_method(cRedisLayout, "initialize", layout_initialize, 6);
    rb_define_method(cRedisLayout, "locate", layout_locate, 1);
    rb_define_method(cRedisLayout, "m", layout_m, 0);
    rb_define_method(cRedisLayout, "k", layout_k, 0);
    rb_define_method(cRedisLayout, "shards", layout_shards, 0);
    rb_define_singleton_method(cRedisLayout, "cells_to_redis", layout_s_cells_to_redis, 3);
    rb_define_singleton_method(cRedisLayout, "cells_from_redis", layout_s_cells_from_redis, 3);
    rb_define_singleton_method(cRedisLayout, "continuous_to_redis", layout_s_continuous_to_redis, 3);
    rb_define_singleton_method(cRedisLayout, "continuous_from_redis", layout_s_continuous_from_redis, 5);
}
