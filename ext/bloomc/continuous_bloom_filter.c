/* Bloomc::ContinuousBloomFilter: a Bloom filter whose keys expire after a TTL
 * (bloombroom's ContinuousBloomFilter API). The clock is in
 * continuous_clock.c and its timer thread in
 * lib/bloomc/continuous_bloom_filter.rb; the methods every kind shares are
 * in filter.c. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime under -std=c99 */
#include <sys/mman.h>
#include "continuous.h"

static const bloomc_kind continuous_kind;

continuous_t *bloomc_continuous_struct(VALUE self)
{
    return (continuous_t *)bloomc_filter_of(self, &continuous_kind)->core;
}

continuous_t *bloomc_continuous_state(VALUE self)
{
    continuous_t *c = bloomc_filter_core(self, &continuous_kind);
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

/* Gives the filter src's clock and a copy of its buckets (zeroed when
 * src->buckets.data is NULL), with no clock schedule; the Clock handles on
 * the struct and a frozen filter's still clock stay. */
static continuous_t *install(VALUE self, const bf_continuous *src)
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
    rb_check_frozen(self);
    bloomc_filter_replaceable(self, &continuous_kind);
    bf_continuous f = {.slot = 1};
    bf_buckets_init(&f.buckets, bloomc_count_arg(m, "m", BF_BUCKETS_MAX), BF_CONT_BITS);
    f.k = (uint32_t)bloomc_count_arg(k, "k", BF_K_MAX);
    f.seed = bloomc_uint32_arg(seed, "seed");
    f.hash = bloomc_hash_kind_arg(hash);
    install(self, &f);
    return self;
}

/* :nodoc: deep copy of the C state for initialize_copy (in Ruby, which also
 * gives the copy its own timer state); the copy has no clock schedule. */
static VALUE continuous_copy_state(VALUE self, VALUE orig)
{
    rb_check_frozen(self);
    if (self == orig) return self;
    bf_continuous taken;
    VALUE buf = 0;
    const bf_continuous *src = bloomc_continuous_snapshot(orig, &taken, &buf);
    bloomc_filter_replaceable(self, &continuous_kind);
    install(self, src);
    if (buf) rb_str_resize(buf, 0); /* its memory back now, not at the next GC */
    RB_GC_GUARD(buf);
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

/* A frozen filter is read as it stands: no clock catch-up, no reset. */
static void lookup_many_frozen(void *state, const bf_key_hash *h, size_t n, uint8_t *out)
{
    continuous_t *c = state;
    bloomc_continuous_follow_clock(c, continuous_map(c)); /* a mapped reader's */
    bf_continuous_lookup_many(&c->core, h, n, 0, out);
}

/* :nodoc: the batch lookups' work (lib/bloomc/batch.rb); the shared one
 * does not know a frozen filter's. */
static VALUE continuous_batch_lookup(VALUE self, VALUE keys, VALUE mode)
{
    continuous_t *c = bloomc_continuous_state(self);
    bloomc_batch b = {c, c->core.seed, c->core.hash, add_many, OBJ_FROZEN(self) ? lookup_many_frozen : lookup_many};
    return bloomc_batch_lookup(&b, keys, mode);
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

/*
 * call-seq: self == other -> true or false
 *
 * Equal when +other+ is a ContinuousBloomFilter of the same shape, hash and
 * clock with the same buckets.
 */
static VALUE continuous_equal(VALUE self, VALUE other)
{
    if (self == other) return Qtrue;
    if (!rb_typeddata_is_kind_of(other, &continuous_kind.type)) return Qfalse;
    const bf_continuous *a = get_filter(self), *b = get_filter(other);
    return RBOOL(continuous_kind.same_shape(a, b) && a->slot == b->slot &&
                 memcmp(a->buckets.data, b->buckets.data, bf_buckets_nbytes(a->buckets.count, BF_CONT_BITS)) == 0);
}

/*
 * call-seq: hash -> Integer
 *
 * A hash consistent with ==.
 */
static VALUE continuous_hash(VALUE self)
{
    const bf_continuous *f = get_filter(self);
    st_index_t h = rb_memhash(f->buckets.data, (long)bf_buckets_nbytes(f->buckets.count, BF_CONT_BITS));
    return ST2FIX(h ^ (st_index_t)(f->buckets.count * 31 + f->k * 7 + f->seed + f->hash + f->slot * 131));
}

/* :nodoc: [[m, k, seed, hash, slot, ticks, adds 0..2 ticks ago], buckets]
 * (docs/FORMAT.md; the Ruby layer adds the ttl); a mapped reader's from a
 * snapshot. */
static VALUE continuous_export_core(VALUE self)
{
    bf_continuous taken;
    VALUE buf = 0;
    const bf_continuous *f = bloomc_continuous_snapshot(self, &taken, &buf);
    uint64_t fields[9];
    continuous_kind.save(f, fields);
    const uint8_t *parts[] = {f->buckets.data};
    size_t lengths[] = {bf_buckets_nbytes(f->buckets.count, BF_CONT_BITS)};
    VALUE state = bloomc_state_new(fields, 9, parts, lengths, 1);
    if (buf) rb_str_resize(buf, 0);
    RB_GC_GUARD(buf);
    return state;
}

/* Saved fields and cells (not yet copied: import_core's Ruby String or
 * map_core's file) into *out; returns what is wrong with them, or NULL. A
 * file a writer had open may hold buckets its recorded clock has expired (a
 * reader opening it mid-tick, or a writer killed there): recover accepts
 * those, and a writer clears them (import_core; map_core: clear_stale_cells,
 * once the shape asked for is checked); a reader's lookups read them as
 * absent. */
static const char *saved_problem(bf_continuous *out, uint8_t *cells, int recover)
{
    out->buckets.data = cells;
    if (!bf_buckets_tail_clear(&out->buckets)) return "bits set past the last bucket";
    if (!recover && !bf_continuous_valid(out)) return "a bucket holds a slot that is not live";
    return NULL;
}

/* Saved fields into *out (buckets not attached); returns their bytes. */
static size_t load_fields(VALUE fields, bf_continuous *out)
{
    uint64_t v[9];
    bloomc_state_fields(fields, 9, v);
    return continuous_kind.load(out, v);
}

/* :nodoc: the inverse of export_core; Bloomc::FormatError for anything
 * export_core could not have made (a bucket holding an expired slot
 * included, unless recover). The clock is not running afterwards. */
static VALUE continuous_import_core(VALUE self, VALUE fields, VALUE body, VALUE recover)
{
    rb_check_frozen(self);
    bf_continuous src;
    size_t nbytes = load_fields(fields, &src);
    const char *problem = saved_problem(&src, (uint8_t *)bloomc_state_body(body, nbytes), RTEST(recover));
    if (problem) bloomc_format_error("%s", problem);
    bloomc_filter_replaceable(self, &continuous_kind);
    bf_continuous_clear_stale(&install(self, &src)->core);
    RB_GC_GUARD(body);
    return self;
}

/* :nodoc: adopts the buckets of a file in bloomc's format, mapped from fd (a
 * new filter only; lib/bloomc/mapped.rb has checked the header). */
static VALUE continuous_map_core(int argc, VALUE *argv, VALUE self)
{
    VALUE fields, fd, body_offset, length, writable, recover;
    rb_scan_args(argc, argv, "6", &fields, &fd, &body_offset, &length, &writable, &recover);
    rb_check_frozen(self);
    bloomc_filter *f = bloomc_filter_of(self, &continuous_kind);
    if (f->body || f->map.closed) rb_raise(rb_eArgError, "map_core maps a new filter");
    bf_continuous src;
    size_t nbytes = load_fields(fields, &src), offset = NUM2SIZET(body_offset), total = offset + nbytes;
    if (NUM2SIZET(length) != total) bloomc_format_error("a file of %" PRIsVALUE " bytes where the parameters need %zu", length, total);
    uint8_t *base = bloomc_map_file(NUM2INT(fd), total, RTEST(writable));
    const char *problem = saved_problem(&src, base + offset, RTEST(recover));
    if (problem) {
        munmap(base, total);
        bloomc_format_error("%s", problem);
    }
    ((continuous_t *)f->core)->core = src;
    f->body = base + offset;
    f->body_bytes = nbytes;
    bloomc_mapping_adopt(&f->map, self, base, total, offset, NUM2INT(fd), RTEST(writable));
    return self;
}

/* :nodoc: resets the buckets holding a slot the clock has expired: a
 * writer's first write to a file it maps (Mapped.open). */
static VALUE continuous_clear_stale_cells(VALUE self)
{
    rb_check_frozen(self);
    bf_continuous_clear_stale(get_filter(self));
    return self;
}

/* :nodoc: unmaps a mapped filter; it raises IOError from then on. Its
 * Clock handles stay counted (the shared unmap zeroes the whole core). */
static VALUE continuous_unmap(VALUE self)
{
    bloomc_filter *f = bloomc_filter_of(self, &continuous_kind);
    if (!f->map.base) return self;
    bloomc_unmap(&f->map);
    f->map.closed = 1;
    f->body = NULL;
    f->body_bytes = 0;
    ((continuous_t *)f->core)->core.buckets = (bf_buckets){0}; /* a view of the buckets now holds none */
    return self;
}

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
        .hash = (bf_hash_kind)bloomc_state_check(v[3], BF_HASH_MURMUR3, BF_HASH_FNV1A, "hash"),
        .slot = (uint32_t)bloomc_state_check(v[4], 1, BF_CONT_SLOTS, "slot"),
        .ticks = v[5],
        .recent_adds = {v[6], v[7], v[8]},
    };
    uint64_t m = bloomc_state_check(v[0], 1, BF_BUCKETS_MAX, "m");
    if (f->hash == BF_HASH_FNV1A && f->seed) bloomc_format_error("an fnv1a filter has seed 0, not %u", f->seed);
    size_t nbytes = bf_buckets_nbytes(m, BF_CONT_BITS);
    if (!nbytes) bloomc_format_error("m %" PRIu64 " is too large for this machine", m);
    bf_buckets_init(&f->buckets, m, BF_CONT_BITS);
    return nbytes;
}

/* install's cells only: saved ones are checked by import_core and map_core
 * (which may recover). */
static const char *attach(void *core, uint8_t *body) { return ((bf_continuous *)core)->buckets.data = body, NULL; }

static void numbers(void *core, bloomc_numbers *out)
{
    const bf_continuous *f = core;
    *out = (bloomc_numbers){.m = f->buckets.count, .k = f->k, .seed = f->seed, .hash = f->hash};
}

static int same_shape(const void *a, const void *b)
{
    const bf_continuous *f = a, *o = b;
    return f->buckets.count == o->buckets.count && f->k == o->k && f->seed == o->seed && f->hash == o->hash;
}

/* Union or intersection on self's clock. */
static void combine(VALUE self, void *core, const void *other, int intersect)
{
    if (intersect) bf_continuous_intersect(core, other);
    else bf_continuous_union(core, other);
}

static uint64_t occupied(const void *core) { return bf_buckets_count_nonzero(&((const bf_continuous *)core)->buckets); }

/* The clock (ticks, slot, timer) runs on. */
static void cleared(VALUE self, void *core) { memset(((bf_continuous *)core)->recent_adds, 0, sizeof(uint64_t) * (BF_CONT_DIVISOR + 1)); }

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

static const bloomc_kind continuous_kind = {
    .type = BLOOMC_KIND_TYPE("continuous_bloom_filter"),
    .core_size = sizeof(continuous_t),
    .alignment = 1,
    .nfields = 9,
    .methods = BLOOMC_K | BLOOMC_HASH_KIND,
    .save = save,
    .load = load,
    .attach = attach,
    .numbers = numbers,
    .refresh = bloomc_continuous_follow_clock,
    .same_shape = same_shape,
    .combine = combine,
    .occupied = occupied,
    .cleared = cleared,
    .add_many = add_many,
    .contains_many = lookup_many,
    .body_bytes_for = body_bytes_for,
    .outlives = outlives,
};

void bloomc_init_continuous_bloom_filter(VALUE mBloomc)
{
    VALUE klass = bloomc_define_filter(mBloomc, "ContinuousBloomFilter", &continuous_kind);
    /* Bits per bucket. */
    rb_define_const(klass, "BITS_PER_BUCKET", INT2FIX(BF_CONT_BITS));
    /* Ticks per TTL: the clock ticks every ttl / RESOLUTION_DIVISOR. */
    rb_define_const(klass, "RESOLUTION_DIVISOR", INT2FIX(BF_CONT_DIVISOR));
    rb_define_private_method(klass, "setup", continuous_setup, 4);
    rb_define_private_method(klass, "copy_state", continuous_copy_state, 1);
    rb_define_method(klass, "add", continuous_add, 1);
    rb_define_method(klass, "<<", continuous_add, 1);
    rb_define_method(klass, "add?", continuous_add_p, 1);
    rb_define_method(klass, "include?", continuous_include_p, 1);
    rb_define_method(klass, "[]", continuous_include_p, 1);
    rb_define_private_method(klass, "batch_lookup", continuous_batch_lookup, 2);
    rb_define_method(klass, "inc_time_slot", bloomc_continuous_inc_time_slot, 0); /* in continuous_clock.c */
    bloomc_init_continuous_clock(klass);
    rb_define_private_method(klass, "current_slot", continuous_current_slot, 0);
    rb_define_method(klass, "ticks", continuous_ticks, 0);
    rb_define_method(klass, "buckets", continuous_buckets, 0);
    rb_define_method(klass, "==", continuous_equal, 1);
    rb_define_method(klass, "eql?", continuous_equal, 1);
    rb_define_method(klass, "hash", continuous_hash, 0);
    rb_define_private_method(klass, "export_core", continuous_export_core, 0);
    rb_define_private_method(klass, "import_core", continuous_import_core, 3);
    rb_define_private_method(klass, "map_core", continuous_map_core, -1);
    rb_define_private_method(klass, "unmap", continuous_unmap, 0);
    rb_define_private_method(klass, "clear_stale_cells", continuous_clear_stale_cells, 0);
}
