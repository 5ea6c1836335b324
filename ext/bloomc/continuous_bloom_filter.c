/* Bloomc::ContinuousBloomFilter: a Bloom filter whose keys expire after a TTL
 * (bloombroom's ContinuousBloomFilter API). Its descriptor's hooks give
 * filter.c's shared methods its clock, a mapped reader's view of its
 * writer's, and the recovery of a file saved open. The clock's schedule is
 * continuous_clock.c; its timer thread, lib/bloomc/continuous_bloom_filter.rb. */
#include "continuous.h"
#include "keys.h"
#include "args.h"
#include "state.h"
#include "views.h"

static const bloomc_kind continuous_kind;

/* A reader of a mapped file follows the writer's clock, which the writer
 * records in the header at every tick: the slot and ticks are read from
 * there whenever the reader is used (an aligned 8-byte load each), so its
 * lookups, copies, dumps and merges all see the writer's live slots. A
 * header never ticked so keeps the last good clock. (The refresh hook.) */
static void follow_clock(void *core, const bloomc_mapping *map)
{
    continuous_t *c = core;
    if (map->base && !map->writable) bf_continuous_load_clock(&c->core, map->base);
}

static bf_continuous *get_filter(VALUE self) { return bloomc_filter_refreshed(self, &continuous_kind); }

/* The time an add or lookup catches the clock up to (filter.h's clock
 * hooks): none while no live schedule runs, when only the timer's wake-ups
 * and inc_time_slot move the clock. */
static double clock_now(const void *core, int for_add)
{
    const continuous_t *c = core;
    if (!c->live) return NAN;
    return for_add ? bloomc_monotonic_now() : bloomc_lookup_now(c->schedule.period);
}

/* :nodoc: called by initialize once the Ruby layer has settled m and k. */
static VALUE setup(VALUE self, VALUE m, VALUE k, VALUE seed, VALUE hash)
{
    bloomc_filter_replaceable(self, &continuous_kind);
    bf_continuous f = {.slot = 1};
    bf_buckets_init(&f.buckets, bloomc_count_arg(m, "m", BF_BUCKETS_MAX), BF_CONT_BITS);
    f.k = (uint32_t)bloomc_count_arg(k, "k", BF_K_MAX);
    f.seed = bloomc_uint32_arg(seed, "seed");
    f.hash = bloomc_hash_kind_arg(hash);
    continuous_t c = {.core = f};
    bloomc_filter_install(self, &c, bf_buckets_nbytes(f.buckets.count, BF_CONT_BITS), NULL, 0);
    unschedule(bloomc_filter_core(self, &continuous_kind)); /* the old clock's timer is stopped next */
    return self;
}

static bf_key_hash key_hash(const continuous_t *c, VALUE key) { return bloomc_key_hash(key, c->core.seed, c->core.hash); }
static int add_one(continuous_t *c, bf_key_hash h, int report) { return bf_continuous_add(&c->core, h); }
/*
 * call-seq:
 *   include?(key) -> true or false
 *   self[key] -> true or false
 *
 * Whether +key+ was added within its TTL (or, at the false-positive rate, a
 * key that was not). Expired buckets it reads are reset, as in bloombroom,
 * unless the filter is frozen: then it only reads, so that Ractors may share
 * it. (Not BLOOMC_HOT_METHODS' lookup, which sees only the core.)
 */
static VALUE continuous_include_p(VALUE self, VALUE key)
{
    continuous_t *c = bloomc_filter_current(self, &continuous_kind, 0);
    return RBOOL(bf_continuous_lookup(&c->core, key_hash(c, key), !OBJ_FROZEN(self)));
}
BLOOMC_HOT_ADDS(continuous_t, continuous_kind, continuous_include_p)


/* Batches: filter.c catches the clock up before each group of keys, as
 * before every single add, so a long batch never writes a stale slot, and
 * around each round of a parallel add (scatter), which counts its keys as
 * recent adds (numbers' count). Lookups reset what they read, as include?
 * does; frozen filters and batch.c's threads take lookup_readonly. */
static void add_many(void *core, const bf_key_hash *h, size_t n, uint8_t *out) { bf_continuous_add_many(core, h, n, out); }
static void lookup_many(void *core, const bf_key_hash *h, size_t n, uint8_t *out)
{
    bf_continuous_lookup_many(core, h, n, 1, out);
}
static void lookup_readonly(void *core, const bf_key_hash *h, size_t n, uint8_t *out)
{
    bf_continuous_lookup_many(core, h, n, 0, out);
}
static void scatter(const void *core, const bf_key_hash *h, size_t n, size_t first, unsigned parts, uint64_t **next)
{
    bf_continuous_scatter(core, h, n, first, parts, next);
}
static void apply(void *core, const uint64_t *entries, size_t n, uint8_t *out) { bf_continuous_apply(core, entries, n, out); }

/* A mapped reader's state at one instant (the snapshot hook), for its
 * copies, dumps and ==: the buckets copied between two reads of the same
 * recorded clock (a tick in between, or a clock read half-written: again),
 * then the buckets that clock has expired cleared (a tick's sweep may still
 * be running), as the reader's lookups read them. */
static void snapshot(void *core, const bloomc_mapping *map, void *copy, uint8_t *cells)
{
    continuous_t *c = core, *out = copy;
    size_t nbytes = bf_buckets_nbytes(c->core.buckets.count, BF_CONT_BITS);
    for (int tries = 0; tries < 100; tries++) { /* a writer ticking without pause could outrun a copy */
        uint64_t ticks = c->core.ticks;
        uint32_t slot = c->core.slot;
        memcpy(cells, c->core.buckets.data, nbytes);
        follow_clock(c, map);
        if (c->core.ticks == ticks && c->core.slot == slot) break;
    }
    *out = *c;
    out->core.buckets.data = cells;
    bf_continuous_clear_stale(&out->core);
}

/* Resets the buckets holding a slot the clock has expired (the recover
 * hook): what a file saved open may hold (attach). */
static void recover(void *core) { bf_continuous_clear_stale(core); }

/* call-seq: inc_time_slot -> Integer
 *
 * Advances the clock by one tick (ttl / 2), expiring what the tick expires, and
 * returns the new slot (1..15). The timer thread calls this; call it yourself
 * to keep time by other means. */
static VALUE continuous_inc_time_slot(VALUE self)
{
    rb_check_frozen(self);
    continuous_t *c = bloomc_filter_core(self, &continuous_kind);
    bloomc_continuous_tick(c, 1);
    return UINT2NUM(c->core.slot);
}

/* :nodoc: the current slot, 1..15. */
static VALUE continuous_current_slot(VALUE self) { return UINT2NUM(get_filter(self)->slot); }

/* call-seq: ticks -> Integer
 *
 * The number of clock ticks since the filter was made. */
static VALUE continuous_ticks(VALUE self) { return ULL2NUM(get_filter(self)->ticks); }

/* call-seq: buckets -> BitBucketField
 *
 * The 4-bit buckets as a BitBucketField that shares the filter's memory. */
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

/* Saved buckets hold a live slot or none, unless saved open: a file a
 * writer had open may hold buckets its recorded clock has expired (a reader
 * opening it mid-tick, or a writer killed there), which a reader's lookups
 * read as absent, and recover clears on the filter's own. */
static const char *attach(void *core, uint8_t *body, int saved)
{
    bf_continuous *f = core;
    f->buckets.data = body;
    if (saved && !bf_buckets_tail_clear(&f->buckets)) return "bits set past the last bucket";
    if (saved == BLOOMC_SAVED && !bf_continuous_valid(f)) return "a bucket holds a slot that is not live";
    return NULL;
}

/* The adds counted are this tick's, which a parallel add adds to. */
static void numbers(void *core, bloomc_numbers *out)
{
    bf_continuous *f = core;
    *out = (bloomc_numbers){.m = f->buckets.count, .count = &f->recent_adds[0], .k = f->k, .seed = f->seed, .hash = f->hash};
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

/* A Clock handle (the timer thread's) keeps the struct, and its last one
 * frees it (continuous_clock.c); the buckets go with the filter. */
static int outlives(void *core)
{
    continuous_t *c = core;
    c->gone = 1;
    return c->clocks > 0;
}

/* == compares the shape, the slot and the cells (the first 5 fields): a
 * mapped reader knows the ticks and add counts only as of its writer's last
 * tick. The core past state_size (the clock's schedule and the timer's
 * handles) is the object's own. */
static const bloomc_kind continuous_kind = BLOOMC_KIND(3, "ContinuousBloomFilter", continuous_t, .setup_arity = 4, .hot = &hot_methods, .nfields = 9,
                                                       .shape_fields = 4, .equal_fields = 5, .state_size = offsetof(continuous_t, schedule),
                                                       .methods = BLOOMC_K | BLOOMC_HASH_KIND, .recover = recover, .refresh = follow_clock,
                                                       .snapshot = snapshot, .now = clock_now, .catch_up = catch_up, .occupied = occupied,
                                                       .cleared = cleared, .add_many = add_many, .contains_many = lookup_many,
                                                       .contains_readonly = lookup_readonly, .scatter = scatter, .apply = apply,
                                                       .mappable = 1, .outlives = outlives);

void bloomc_init_continuous_bloom_filter(void)
{
    VALUE mBloomc = rb_define_module("Bloomc");
    VALUE klass = rb_define_class_under(mBloomc, "ContinuousBloomFilter", rb_path2class("Bloomc::Filter"));
    bloomc_define_kind(klass, &continuous_kind);
    /* Bits per bucket. */
    rb_define_const(klass, "BITS_PER_BUCKET", INT2FIX(BF_CONT_BITS));
    /* Ticks per TTL: the clock ticks every ttl / RESOLUTION_DIVISOR. */
    rb_define_const(klass, "RESOLUTION_DIVISOR", INT2FIX(BF_CONT_DIVISOR));
    /* Filter's deep copy, for the Ruby layer's initialize_copy, which
     * leaves the timer behind. */
    rb_define_alias(klass, "copy_state", "initialize_copy");
    rb_define_private_method(klass, "current_slot", continuous_current_slot, 0);
    rb_define_method(klass, "inc_time_slot", continuous_inc_time_slot, 0);
    rb_define_method(klass, "ticks", continuous_ticks, 0);
    rb_define_method(klass, "buckets", continuous_buckets, 0);
    bloomc_init_continuous_clock(klass, &continuous_kind);
}
