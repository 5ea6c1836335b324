/* Bloomc::ContinuousBloomFilter: a Bloom filter whose keys expire after a TTL
 * (bloombroom's ContinuousBloomFilter API). The clock is in
 * continuous_clock.c and its timer thread in
 * lib/bloomc/continuous_bloom_filter.rb; the methods every kind shares are
 * in filter.c. */
#include "continuous.h"
#include "keys.h"
#include "args.h"
#include "state.h"
#include "views.h"
#include "batch.h"

continuous_t *bloomc_continuous_struct(VALUE self)
{
    return (continuous_t *)bloomc_filter_of(self, &bloomc_continuous_kind)->core;
}

continuous_t *bloomc_continuous_state(VALUE self)
{
    continuous_t *c = bloomc_filter_core(self, &bloomc_continuous_kind);
    bloomc_continuous_follow_clock(c, continuous_map(c));
    return c;
}

static bf_continuous *get_filter(VALUE self) { return &bloomc_continuous_state(self)->core; }

/* The filter for an add or lookup, its clock brought up to now (for a
 * lookup, to lookup_now). */
static bf_continuous *get_current_filter(VALUE self, int for_add)
{
    continuous_t *c = bloomc_continuous_state(self);
    if (c->live && !OBJ_FROZEN(self)) catch_up(c, for_add ? monotonic_now() : lookup_now(c));
    return &c->core;
}

/* The Clock handles' count stays, and a frozen filter's still clock
 * (continuous.h). */
continuous_t *bloomc_continuous_install(VALUE self, const bf_continuous *src)
{
    const continuous_t *old = bloomc_continuous_struct(self);
    continuous_t c = {.core = *src, .clocks = old->clocks, .still = old->still};
    size_t nbytes = bf_buckets_nbytes(src->buckets.count, BF_CONT_BITS);
    bloomc_filter_install(self, &c, nbytes, src->buckets.data, src->buckets.data ? nbytes : 0);
    return bloomc_continuous_struct(self);
}

/* :nodoc: called by initialize once the Ruby layer has settled m and k. */
static VALUE continuous_setup(VALUE self, VALUE m, VALUE k, VALUE seed, VALUE hash)
{
    bloomc_filter_replaceable(self, &bloomc_continuous_kind);
    bf_continuous f = {.slot = 1};
    bf_buckets_init(&f.buckets, bloomc_count_arg(m, "m", BF_BUCKETS_MAX), BF_CONT_BITS);
    f.k = (uint32_t)bloomc_count_arg(k, "k", BF_K_MAX);
    f.seed = bloomc_uint32_arg(seed, "seed");
    f.hash = bloomc_hash_kind_arg(hash);
    bloomc_continuous_install(self, &f);
    return self;
}

/*
 * call-seq:
 *   add(key) -> self
 *   self << key -> self
 *
 * Adds +key+, or renews it: it stays present for at least ttl from now.
 */
static VALUE continuous_add(VALUE self, VALUE key)
{
    rb_check_frozen(self);
    bf_continuous *f = get_current_filter(self, 1);
    bf_continuous_add(f, bloomc_key_hash(key, f->seed, f->hash));
    return self;
}

/*
 * call-seq: add?(key) -> self or nil
 *
 * Adds +key+ as #add does; returns self when it was new (not live; a live key is renewed all the same),
 * nil when it was probably present, as Set#add? does.
 */
static VALUE continuous_add_p(VALUE self, VALUE key)
{
    rb_check_frozen(self);
    bf_continuous *f = get_current_filter(self, 1);
    return bloomc_add_p_result(self, bf_continuous_add(f, bloomc_key_hash(key, f->seed, f->hash)));
}

/*
 * call-seq:
 *   include?(key) -> true or false
 *   self[key] -> true or false
 *
 * Whether +key+ was added within its TTL (or, at the false-positive rate, a
 * key that was not). Expired buckets it reads are reset, as in bloombroom.
 */
static VALUE continuous_include_p(VALUE self, VALUE key)
{
    bf_continuous *f = get_current_filter(self, 0);
    return RBOOL(bf_continuous_lookup(f, bloomc_key_hash(key, f->seed, f->hash), !OBJ_FROZEN(self)));
}

/* Batches: the clock is brought up to date before every group of keys, as it
 * is before every single add, so a long batch never writes a stale slot. */
static void add_many(void *state, const bf_key_hash *h, size_t n, uint8_t *out)
{
    continuous_t *c = state;
    if (c->live) catch_up(c, monotonic_now());
    bf_continuous_add_many(&c->core, h, n, out);
}

static void lookup_many(void *state, const bf_key_hash *h, size_t n, uint8_t *out)
{
    continuous_t *c = state;
    if (c->live) catch_up(c, lookup_now(c));
    bf_continuous_lookup_many(&c->core, h, n, 1, out);
}

/* A frozen filter is read as it stands: no clock catch-up, no reset. So are
 * the threads of a parallel lookup (batch_of below), which only read: ticks
 * leave no expired bucket to reset on the heap. */
static void lookup_many_frozen(void *state, const bf_key_hash *h, size_t n, uint8_t *out)
{
    continuous_t *c = state;
    bloomc_continuous_follow_clock(c, continuous_map(c)); /* a mapped reader's */
    bf_continuous_lookup_many(&c->core, h, n, 0, out);
}

/* The batch of self for lookups (the one filter.c makes knows no frozen
 * filter): a frozen filter looks up without moving its clock. Threads share
 * a filter on the heap, its clock caught up once first (late by at most the
 * batch, as a lookup may be: an expired key seen a little longer, never a
 * live one missed). A mapped filter looks up on one thread, as it always
 * has: a reader follows its writer's clock, whose clearing it may see half
 * done. */
static bloomc_batch batch_of(VALUE self)
{
    continuous_t *c = bloomc_continuous_state(self);
    int frozen = OBJ_FROZEN(self), shared = !continuous_map(c)->base;
    if (shared && !frozen && c->live) catch_up(c, lookup_now(c));
    return (bloomc_batch){.filter = c,
                          .seed = c->core.seed,
                          .kind = c->core.hash,
                          .add = add_many,
                          .lookup = frozen ? lookup_many_frozen : lookup_many,
                          .lookup_shared = shared ? lookup_many_frozen : NULL,
                          .body_bytes = bf_buckets_nbytes(c->core.buckets.count, BF_CONT_BITS)};
}

/* Parallel adds (batch.c's scatter): the clock caught up around each
 * round, which counts its keys as recent adds. */
static void scatter(const void *state, const bf_key_hash *h, size_t n, size_t first, unsigned parts, uint64_t **next)
{
    bf_continuous_scatter(&((const continuous_t *)state)->core, h, n, first, parts, next);
}

static void apply(void *state, const uint64_t *entries, size_t n, uint8_t *out)
{
    bf_continuous_apply(&((continuous_t *)state)->core, entries, n, out);
}

static int batch_catch_up(void *state)
{
    continuous_t *c = state;
    return c->live && catch_up(c, monotonic_now()) > 0;
}

static void adjust_batch(void *state, bloomc_batch *b)
{
    continuous_t *c = state;
    b->catch_up = batch_catch_up;
    b->count = &c->core.recent_adds[0];
    b->lookup_shared = NULL; /* filter.c's lookups would move the clock: the kind's own above */
}

static VALUE continuous_batch_lookup(VALUE self, VALUE keys, VALUE mode, VALUE threads)
{
    bloomc_batch b = batch_of(self);
    return bloomc_batch_lookup(&b, keys, mode, threads);
}

/* :nodoc: `bloomc query`'s work on lines (batch.c). */
static VALUE continuous_query_lines(int argc, VALUE *argv, VALUE self)
{
    rb_check_arity(argc, 6, 6);
    bloomc_batch b = batch_of(self);
    return bloomc_batch_query(&b, argv[0], argv[1], argv[2], argv[3], argv[4], argv[5]);
}

/* :nodoc: the current slot, 1..15. */
static VALUE continuous_current_slot(VALUE self) { return UINT2NUM(get_filter(self)->slot); }

/*
 * call-seq: ticks -> Integer
 *
 * The number of clock ticks since the filter was made.
 */
static VALUE continuous_ticks(VALUE self) { return ULL2NUM(get_filter(self)->ticks); }

/*
 * call-seq: buckets -> BitBucketField
 *
 * The 4-bit buckets as a BitBucketField that shares the filter's memory.
 */
static VALUE continuous_buckets(VALUE self) { return bloomc_bit_bucket_field_view(self, &get_filter(self)->buckets); }

/* The hooks take the core, whose first member is the bf_continuous. */
static void save(const void *core, uint64_t *out)
{
    const bf_continuous *f = core;
    uint64_t fields[] = {f->buckets.count, f->k, f->seed, (uint64_t)f->hash, f->slot, f->ticks,
                         f->recent_adds[0], f->recent_adds[1], f->recent_adds[2]};
    memcpy(out, fields, sizeof fields);
}

static size_t load(void *core, const uint64_t *v)
{
    bf_continuous *f = core;
    *f = (bf_continuous){
        .k = (uint32_t)bloomc_state_check(v[1], 1, BF_K_MAX, "k"),
        .seed = (uint32_t)bloomc_state_check(v[2], 0, UINT32_MAX, "seed"),
        .hash = (bf_hash_kind)bloomc_state_check(v[3], BF_HASH_MURMUR3, BF_HASH_MURMUR3_MIXED, "hash"),
        .slot = (uint32_t)bloomc_state_check(v[4], 1, BF_CONT_SLOTS, "slot"),
        .ticks = v[5],
        .recent_adds = {v[6], v[7], v[8]},
    };
    uint64_t m = bloomc_state_check(v[0], 1, BF_BUCKETS_MAX, "m");
    if (f->hash == BF_HASH_FNV1A && f->seed) bloomc_format_error("an fnv1a filter has seed 0, not %u", f->seed);
    bf_buckets_init(&f->buckets, m, BF_CONT_BITS);
    return bf_buckets_nbytes(m, BF_CONT_BITS);
}

/* install's cells only: saved ones are checked by import_core and map_core
 * (which may recover). */
static const char *attach(void *core, uint8_t *body, int saved) { return ((bf_continuous *)core)->buckets.data = body, NULL; }

static void numbers(void *core, bloomc_numbers *out)
{
    const bf_continuous *f = core;
    *out = (bloomc_numbers){.m = f->buckets.count, .k = f->k, .seed = f->seed, .hash = f->hash};
}

/* Union or intersection on self's clock. */
static void combine(void *core, const void *other, int intersect)
{
    if (intersect) bf_continuous_intersect(core, other);
    else bf_continuous_union(core, other);
}

static uint64_t occupied(const void *core) { return bf_buckets_count_nonzero(&((const bf_continuous *)core)->buckets); }

/* The clock (ticks, slot, timer) runs on. */
static void cleared(void *core) { memset(((bf_continuous *)core)->recent_adds, 0, sizeof(uint64_t) * (BF_CONT_DIVISOR + 1)); }

static size_t body_bytes_for(const void *core, VALUE m)
{
    return bf_buckets_nbytes(bloomc_count_arg(m, "m", BF_BUCKETS_MAX), BF_CONT_BITS);
}

/* A Clock handle (the timer thread's) keeps the struct, and its last one
 * frees it (continuous_clock.c); the buckets go with the filter. */
static int outlives(void *core)
{
    continuous_t *c = core;
    c->gone = 1;
    return c->clocks > 0;
}

const bloomc_kind bloomc_continuous_kind = {
    .type = BLOOMC_KIND_TYPE("continuous_bloom_filter"),
    .format_kind = 3,
    .core_size = sizeof(continuous_t),
    .nfields = 9,
    .shape_fields = 4, /* m, k, seed, hash */
    /* == leaves out the ticks and add counts, which a mapped reader knows
     * only as of its writer's last tick: the shape, the slot and the cells. */
    .equal_fields = 5,
    .methods = BLOOMC_K | BLOOMC_HASH_KIND,
    .save = save,
    .load = load,
    .attach = attach,
    .numbers = numbers,
    .refresh = bloomc_continuous_follow_clock,
    .combine = combine,
    .occupied = occupied,
    .cleared = cleared,
    .add_many = add_many,
    .scatter = scatter,
    .apply = apply,
    .adjust_batch = adjust_batch,
    .contains_many = lookup_many,
    .body_bytes_for = body_bytes_for,
    .outlives = outlives,
};

void bloomc_init_continuous_bloom_filter(void)
{
    VALUE mBloomc = rb_define_module("Bloomc");
    VALUE cFilter = rb_define_class_under(mBloomc, "Filter", rb_cObject);
    VALUE klass = rb_define_class_under(mBloomc, "ContinuousBloomFilter", cFilter);
    bloomc_define_kind(klass, &bloomc_continuous_kind);
    /* Bits per bucket. */
    rb_define_const(klass, "BITS_PER_BUCKET", INT2FIX(BF_CONT_BITS));
    /* Ticks per TTL: the clock ticks every ttl / RESOLUTION_DIVISOR. */
    rb_define_const(klass, "RESOLUTION_DIVISOR", INT2FIX(BF_CONT_DIVISOR));
    rb_define_private_method(klass, "setup", continuous_setup, 4);
    rb_define_method(klass, "add", continuous_add, 1);
    rb_define_method(klass, "<<", continuous_add, 1);
    rb_define_method(klass, "add?", continuous_add_p, 1);
    rb_define_method(klass, "include?", continuous_include_p, 1);
    rb_define_method(klass, "[]", continuous_include_p, 1);
    rb_define_private_method(klass, "batch_lookup", continuous_batch_lookup, 3);
    rb_define_private_method(klass, "query_lines", continuous_query_lines, -1);
    rb_define_method(klass, "inc_time_slot", bloomc_continuous_inc_time_slot, 0); /* in continuous_clock.c */
    bloomc_init_continuous_clock(klass);
    bloomc_init_continuous_saved(klass);
    rb_define_private_method(klass, "current_slot", continuous_current_slot, 0);
    rb_define_method(klass, "ticks", continuous_ticks, 0);
    rb_define_method(klass, "buckets", continuous_buckets, 0);
}
