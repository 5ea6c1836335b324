/* Bloomc::BitwiseBloomFilter: counts without an upper bound, in levels of
 * counters that are created as counts outgrow them. Keyword construction is
 * in lib/bloomc/bitwise_bloom_filter.rb; the methods every kind shares are in
 * filter.c. The cells are each level's, level 0 first. */
#include "filter.h"
#include "keys.h"
#include "args.h"
#include "state.h"
#include "bf_counting.h"

/* Levels a filter may have (the file format's limit): far more than any
 * count reaches (a level of 32-bit cells holds 2**32 - 1 more). */
enum { LEVELS_MAX = 64 };

/* The kind's core: core.levels points at levels, each level into the body.
 * It lives inline in the object, so a pointer to it survives a new level. */
typedef struct {
    bf_bitwise core;
    bf_buckets levels[LEVELS_MAX];
    char problem[48]; /* attach's answer, which names the level */
} bitwise_t;

static const bloomc_kind bitwise_kind;

/* The bytes of the first n levels (0: too many for this machine). */
static size_t levels_bytes(const bf_bitwise *f, size_t n)
{
    size_t total = 0;
    for (size_t i = 0; i < n; i++) {
        size_t bytes = bf_buckets_nbytes(f->m, bf_bitwise_level_width(f->width, i));
        if (!bytes || total + bytes < total) return 0;
        total += bytes;
    }
    return total;
}

/* Gives the filter n levels: its first ones kept, any new ones zeroed. The
 * old cells are freed only once the new ones exist. */
static void resize(bitwise_t *f, size_t n)
{
    if (n > LEVELS_MAX) rb_raise(rb_eRangeError, "a filter of %zu levels cannot be saved", n);
    bloomc_filter *obj = bloomc_filter_of_core(f);
    bitwise_t copy = *f;
    copy.core.nlevels = n;
    size_t nbytes = levels_bytes(&f->core, n);
    bloomc_filter_install_at(obj, &copy, nbytes, obj->body, nbytes < obj->body_bytes ? nbytes : obj->body_bytes);
}

/* :nodoc: called by initialize once the Ruby layer has settled m and k. */
static VALUE setup(VALUE self, VALUE m, VALUE k, VALUE width, VALUE seed, VALUE hash)
{
    bloomc_filter_replaceable(self, &bitwise_kind);
    bitwise_t f = {.core.nlevels = 1};
    f.core.m = bloomc_count_arg(m, "m", BF_BUCKETS_MAX);
    f.core.k = (uint32_t)bloomc_count_arg(k, "k", BF_K_MAX);
    f.core.width = (unsigned)bloomc_count_arg(width, "width", BF_BUCKET_WIDTH_MAX);
    f.core.seed = bloomc_uint32_arg(seed, "seed");
    f.core.hash = bloomc_hash_kind_arg(hash);
    bloomc_filter_install(self, &f, levels_bytes(&f.core, 1), NULL, 0);
    return self;
}

static bf_key_hash key_hash(const bitwise_t *f, VALUE key)
{
    return bloomc_key_hash(key, f->core.seed, f->core.hash);
}

/* A new level is made (and may raise) before the add, never inside it. */
static int add_one(void *core, bf_key_hash h, int report)
{
    bitwise_t *f = core;
    size_t level = bf_bitwise_target_level(&f->core, h);
    if (level == f->core.nlevels) resize(f, level + 1);
    return bf_bitwise_add_at(&f->core, h, level);
}

static int contains_one(const void *core, bf_key_hash h) { return bf_bitwise_count(core, h) > 0; }

/* [m, k, width, seed, count, levels] (docs/FORMAT.md). */
static void save(const void *core, uint64_t *out)
{
    const bf_bitwise *f = core;
    uint64_t fields[] = {f->m, f->k, f->width, bloomc_seed_with_hash(f->seed, f->hash), f->count, f->nlevels};
    memcpy(out, fields, sizeof fields);
}

static size_t load(void *core, const uint64_t *v)
{
    bf_bitwise *f = core;
    f->nlevels = (size_t)bloomc_state_check(v[5], 1, LEVELS_MAX, "levels");
    f->m = bloomc_state_check(v[0], 1, BF_BUCKETS_MAX, "m");
    f->k = (uint32_t)bloomc_state_check(v[1], 1, BF_K_MAX, "k");
    f->width = (unsigned)bloomc_state_check(v[2], 1, BF_BUCKET_WIDTH_MAX, "width");
    f->seed = (uint32_t)v[3];
    f->hash = bloomc_hash_of_seed(v[3]);
    f->count = v[4];
    size_t total = levels_bytes(f, f->nlevels);
    if (!total) bloomc_format_error("%zu levels of %" PRIu64 " cells are too many for this machine", f->nlevels, f->m);
    return total;
}

static const char *attach(void *core, uint8_t *body, int saved)
{
    bitwise_t *f = core;
    f->core.levels = f->levels;
    for (size_t i = 0; i < f->core.nlevels; i++) {
        bf_buckets *level = &f->levels[i];
        bf_buckets_init(level, f->core.m, bf_bitwise_level_width(f->core.width, i));
        level->data = body;
        body += bf_buckets_nbytes(level->count, level->width);
        if (!bf_buckets_tail_clear(level)) {
            snprintf(f->problem, sizeof f->problem, "bits set past the last cell of level %zu", i);
            return f->problem;
        }
    }
    return NULL;
}

static void numbers(void *core, bloomc_numbers *out)
{
    bf_bitwise *f = core;
    *out = (bloomc_numbers){.m = f->m, .count = &f->count, .distinct = &f->distinct, .k = f->k, .seed = f->seed, .hash = f->hash, .width = f->width};
}

/* Cell maxima or minima level by level: a union takes other's levels too,
 * an intersection drops the ones other lacks. */
static void combine(void *core, const void *other, int intersect)
{
    bitwise_t *f = core;
    const bf_bitwise *o = other;
    if (intersect) {
        bf_bitwise_intersect(&f->core, o);
        if (f->core.nlevels > o->nlevels) resize(f, o->nlevels);
    } else {
        if (f->core.nlevels < o->nlevels) resize(f, o->nlevels);
        bf_bitwise_union(&f->core, o);
    }
}

static uint64_t occupied(const void *core)
{
    return bf_buckets_count_nonzero(&((const bf_bitwise *)core)->levels[0]);
}

/* Clear keeps only the first level. */
static void cleared(void *core)
{
    bitwise_t *f = core;
    if (f->core.nlevels > 1) resize(f, 1);
}

static uint64_t count_one(const void *f, bf_key_hash h) { return bf_bitwise_count(f, h); }
BLOOMC_HOT_COUNT(bitwise_t, bitwise_kind)
BLOOMC_HOT_METHODS(bitwise_t, bitwise_kind)

static const bloomc_kind bitwise_kind = BLOOMC_KIND(6, "BitwiseBloomFilter", bitwise_t, .setup_arity = 5, .hot = &hot_methods, .count_one = count_one, .hot_count = hot_count, .nfields = 6,
                                                    .shape_fields = 4, /* m, k, width, seed */
                                                    .methods = BLOOMC_WIDTH | BLOOMC_SHARED | BLOOMC_DISTINCT | BLOOMC_HASH_KIND,
                                                    .occupied = occupied, .cleared = cleared, .add_one = add_one,
                                                    .contains_one = contains_one);


void bloomc_init_bitwise_bloom_filter(void)
{
    VALUE mBloomc = rb_define_module("Bloomc");
    VALUE klass = rb_define_class_under(mBloomc, "BitwiseBloomFilter", rb_path2class("Bloomc::Filter"));
    bloomc_define_kind(klass, &bitwise_kind);
}
