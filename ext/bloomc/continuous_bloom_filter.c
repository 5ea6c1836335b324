/* Bloomc::ContinuousBloomFilter: a Bloom filter whose keys expire after a TTL
 * (bloombroom's ContinuousBloomFilter API). The clock and the timer thread are
 * in lib/bloomc/continuous_bloom_filter.rb; the buckets and every per-key step
 * are here. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime under -std=c99 */
#include <sys/mman.h>
#include "continuous.h"

static VALUE cContinuousBloomFilter;

/* The struct outlives its filter while a Clock handle (the timer thread's)
 * holds it; the cells go with the filter. */
static void continuous_free(void *ptr)
{
    continuous_t *c = ptr;
    if (c->map.base) bloomc_unmap(&c->map);
    else ruby_xfree(c->core.buckets.data);
    c->core.buckets.data = NULL;
    c->gone = 1;
    if (c->clocks == 0) ruby_xfree(c);
}

static size_t continuous_memsize(const void *ptr)
{
    const continuous_t *c = ptr;
    /* a mapped filter's buckets are the page cache's */
    return sizeof(*c) + (c->core.buckets.data && !c->map.base ? bf_buckets_nbytes(c->core.buckets.count, BF_CONT_BITS) : 0);
}

static const rb_data_type_t continuous_type = {
    .wrap_struct_name = "bloomc/continuous_bloom_filter",
    .function = {
        .dfree = continuous_free,
        .dsize = continuous_memsize,
        .dcompact = bloomc_mapping_compact,
    },
    .flags = RUBY_TYPED_FREE_IMMEDIATELY | RUBY_TYPED_WB_PROTECTED,
};

static VALUE continuous_alloc(VALUE klass)
{
    continuous_t *c;
    return TypedData_Make_Struct(klass, continuous_t, &continuous_type, c);
}

/* A reader of a mapped file follows the writer's clock, which the writer
 * records in the header at every tick: the slot and ticks are read from
 * there whenever the reader is used (an aligned 8-byte load each), so its
 * lookups, copies, dumps and merges all see the writer's live slots. A
 * header never ticked so keeps the last good clock. */
static inline void follow_clock(continuous_t *c)
{
    if (c->map.base && !c->map.writable) bf_continuous_load_clock(&c->core, c->map.base);
}

continuous_t *bloomc_continuous_struct(VALUE self)
{
    return bloomc_typed_data(self, &continuous_type);
}

continuous_t *bloomc_continuous_state(VALUE self)
{
    continuous_t *c = bloomc_typed_data(self, &continuous_type);
    bloomc_mapping_check(&c->map, self);
    if (!c->core.buckets.data) rb_raise(rb_eTypeError, "uninitialized %" PRIsVALUE, rb_obj_class(self));
    follow_clock(c);
    return c;
}

static bf_continuous *get_filter(VALUE self)
{
    return &bloomc_continuous_state(self)->core;
}

/* The filter's state, for setup and copies: a mapped filter keeps its file. */
static continuous_t *replaceable(VALUE self)
{
    continuous_t *c = bloomc_typed_data(self, &continuous_type);
    bloomc_mapping_check(&c->map, self);
    if (c->map.base) rb_raise(rb_eArgError, "a mapped %" PRIsVALUE " cannot be re-initialized", rb_obj_class(self));
    return c;
}

/* The filter for an add or lookup, its clock brought up to now (for a
 * lookup, to lookup_now). */
static bf_continuous *get_current_filter(VALUE self, int for_add)
{
    continuous_t *c = bloomc_continuous_state(self);
    if (c->live && !OBJ_FROZEN(self)) catch_up(c, for_add ? monotonic_now() : lookup_now(c));
    return &c->core;
}

static void continuous_reset(continuous_t *c, uint64_t m, uint32_t k, uint32_t seed, bf_hash_kind hash,
                             const bf_continuous *src)
{
    bf_continuous *f = &c->core;
    c->epoch = c->period = 0;
    c->applied = 0;
    c->live = 0;
    size_t nbytes = bf_buckets_nbytes(m, BF_CONT_BITS);
    if (!nbytes) rb_raise(rb_eArgError, "m is too large for this machine"); /* 32-bit size_t */
    uint8_t *data = ruby_xcalloc(nbytes, 1);
    if (src) memcpy(data, src->buckets.data, nbytes);
    ruby_xfree(f->buckets.data);
    f->buckets.data = data;
    bf_buckets_init(&f->buckets, m, BF_CONT_BITS);
    f->k = k;
    f->seed = seed;
    f->hash = hash;
    f->slot = src ? src->slot : 1;
    f->ticks = src ? src->ticks : 0;
    for (uint32_t d = 0; d <= BF_CONT_DIVISOR; d++) f->recent_adds[d] = src ? src->recent_adds[d] : 0;
}

/* :nodoc: called by initialize once the Ruby layer has settled m and k. */
static VALUE continuous_setup(VALUE self, VALUE m, VALUE k, VALUE seed, VALUE hash)
{
    rb_check_frozen(self);
    continuous_t *c = replaceable(self);
    uint64_t nbuckets = bloomc_count_arg(m, "m", BF_BUCKETS_MAX);
    uint32_t nprobes = (uint32_t)bloomc_count_arg(k, "k", BF_K_MAX);
    uint32_t hash_seed = bloomc_uint32_arg(seed, "seed");
    continuous_reset(c, nbuckets, nprobes, hash_seed, bloomc_hash_kind_arg(hash), NULL);
    return self;
}

/* The filter as copies and dumps see it: for a reader of a mapped file,
 * whose writer may tick meanwhile, a snapshot into *buf (a hidden String,
 * not scanned by the GC, which the caller empties; garbage if anything
 * raises first): the buckets copied between two reads of the same recorded
 * clock (a tick in between, or a clock read half-written: again), then the
 * buckets that clock has expired cleared (a tick's sweep may still be
 * running), as the reader's lookups read them. Anything else is read as it
 * stands. */
static const bf_continuous *snapshot(VALUE self, bf_continuous *out, VALUE *buf)
{
    continuous_t *c = bloomc_continuous_state(self);
    if (!c->map.base || c->map.writable) return &c->core;
    size_t nbytes = bf_buckets_nbytes(c->core.buckets.count, BF_CONT_BITS);
    *buf = rb_obj_hide(rb_str_buf_new((long)nbytes));
    uint8_t *copy = (uint8_t *)RSTRING_PTR(*buf);
    for (int tries = 0; tries < 100; tries++) { /* a writer ticking without pause could outrun a copy */
        uint64_t ticks = c->core.ticks;
        uint32_t slot = c->core.slot;
        memcpy(copy, c->core.buckets.data, nbytes);
        follow_clock(c);
        if (c->core.ticks == ticks && c->core.slot == slot) break;
    }
    *out = c->core;
    out->buckets.data = copy;
    bf_continuous_clear_stale(out);
    return out;
}

/* :nodoc: deep copy of the C state for initialize_copy (in Ruby, which also
 * gives the copy its own timer state); the copy has no clock schedule. */
static VALUE continuous_initialize_copy(VALUE self, VALUE orig)
{
    rb_check_frozen(self);
    if (self == orig) return self;
    bf_continuous taken;
    VALUE buf = 0;
    const bf_continuous *src = snapshot(orig, &taken, &buf);
    continuous_reset(replaceable(self), src->buckets.count, src->k, src->seed, src->hash, src);
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

/* A frozen filter is read as it stands: no clock catch-up, no reset (a
 * mapped reader follows its writer's clock). */
static void lookup_many_frozen(void *state, const bf_key_hash *h, size_t n, uint8_t *out)
{
    continuous_t *c = state;
    follow_clock(c);
    bf_continuous_lookup_many(&c->core, h, n, 0, out);
}

/* :nodoc: add_all's and add_new's work (lib/bloomc/batch.rb). */
static VALUE continuous_batch_add(VALUE self, VALUE keys, VALUE collect)
{
    rb_check_frozen(self);
    continuous_t *c = bloomc_continuous_state(self);
    bloomc_batch b = {c, c->core.seed, c->core.hash, add_many, lookup_many};
    return bloomc_batch_add(&b, keys, collect);
}

/* :nodoc: dedup_lines(chunk, out, length): `bloomc dedup --ttl`'s work (batch.c). */
static VALUE continuous_dedup_lines(VALUE self, VALUE chunk, VALUE out, VALUE length)
{
    rb_check_frozen(self);
    continuous_t *c = bloomc_continuous_state(self);
    bloomc_batch b = {c, c->core.seed, c->core.hash, add_many, lookup_many};
    return bloomc_batch_dedup(&b, chunk, out, length);
}

/* :nodoc: the batch lookups' work (lib/bloomc/batch.rb). */
static VALUE continuous_batch_lookup(VALUE self, VALUE keys, VALUE mode)
{
    continuous_t *c = bloomc_continuous_state(self);
    bloomc_batch b = {c, c->core.seed, c->core.hash, add_many, OBJ_FROZEN(self) ? lookup_many_frozen : lookup_many};
    return bloomc_batch_lookup(&b, keys, mode);
}

/* :nodoc: the current slot, 1..15. */
static VALUE continuous_current_slot(VALUE self)
{
    return UINT2NUM(get_filter(self)->slot);
}

/*
 * call-seq: ticks -> Integer
 *
 * The number of clock ticks since the filter was made.
 */
static VALUE continuous_ticks(VALUE self)
{
    return ULL2NUM(get_filter(self)->ticks);
}

/*
 * call-seq: m -> Integer
 *
 * The number of buckets.
 */
static VALUE continuous_m(VALUE self)
{
    return ULL2NUM(get_filter(self)->buckets.count);
}

/*
 * call-seq: k -> Integer
 *
 * The number of buckets written per key.
 */
static VALUE continuous_k(VALUE self)
{
    return UINT2NUM(get_filter(self)->k);
}

/*
 * call-seq: seed -> Integer
 *
 * The MurmurHash3 seed of the key hash.
 */
static VALUE continuous_seed(VALUE self)
{
    return UINT2NUM(get_filter(self)->seed);
}

/* :nodoc: the hash function's number in Bloomc::HASH_FUNCTIONS. */
static VALUE continuous_hash_kind(VALUE self)
{
    return INT2FIX(get_filter(self)->hash);
}

/*
 * call-seq: buckets -> BitBucketField
 *
 * The 4-bit buckets as a BitBucketField that shares the filter's memory.
 */
static VALUE continuous_buckets(VALUE self)
{
    return bloomc_bit_bucket_field_view(self, &get_filter(self)->buckets);
}

/*
 * call-seq: self == other -> true or false
 *
 * Equal when +other+ is a ContinuousBloomFilter of the same shape, hash and
 * clock with the same buckets.
 */
static VALUE continuous_equal(VALUE self, VALUE other)
{
    if (self == other) return Qtrue;
    if (!rb_typeddata_is_kind_of(other, &continuous_type)) return Qfalse;
    const bf_continuous *a = get_filter(self), *b = get_filter(other);
    return RBOOL(a->buckets.count == b->buckets.count && a->k == b->k && a->seed == b->seed &&
                 a->hash == b->hash && a->slot == b->slot &&
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

/* :nodoc: cells (bits) that are not zero, for Bloomc::Stats. */
static VALUE continuous_occupied(VALUE self)
{
    return ULL2NUM(bf_buckets_count_nonzero(&get_filter(self)->buckets));
}

/* :nodoc: union or intersection on self's clock (Bloomc::SetOps checks shapes). */
static VALUE continuous_combine(VALUE self, VALUE other, VALUE op)
{
    rb_check_frozen(self);
    bf_continuous *f = get_filter(self);
    const bf_continuous *o = get_filter(other);
    int and = bloomc_intersection_arg(op, f->buckets.count == o->buckets.count && f->k == o->k && f->seed == o->seed && f->hash == o->hash);
    if (and) bf_continuous_intersect(f, o);
    else bf_continuous_union(f, o);
    return self;
}

/*
 * call-seq: clear -> self
 *
 * Forgets every key; the clock (ticks, slot, timer) runs on.
 */
static VALUE continuous_clear(VALUE self)
{
    rb_check_frozen(self);
    bf_continuous *f = get_filter(self);
    memset(f->buckets.data, 0, bf_buckets_nbytes(f->buckets.count, f->buckets.width));
    memset(f->recent_adds, 0, sizeof(f->recent_adds));
    return self;
}


/* :nodoc: [[m, k, seed, hash, slot, ticks, adds 0..2 ticks ago], buckets]
 * (docs/FORMAT.md; the Ruby layer adds the ttl). */
static VALUE continuous_export_core(VALUE self)
{
    bf_continuous taken;
    VALUE buf = 0;
    const bf_continuous *f = snapshot(self, &taken, &buf);
    uint64_t fields[] = {f->buckets.count, f->k, f->seed, (uint64_t)f->hash, f->slot, f->ticks,
                         f->recent_adds[0], f->recent_adds[1], f->recent_adds[2]};
    const uint8_t *parts[] = {f->buckets.data};
    size_t lengths[] = {bf_buckets_nbytes(f->buckets.count, BF_CONT_BITS)};
    VALUE state = bloomc_state_new(fields, 9, parts, lengths, 1);
    if (buf) rb_str_resize(buf, 0);
    RB_GC_GUARD(buf);
    return state;
}

/* Saved fields into out (buckets.data NULL); returns the bytes of its buckets. */
static size_t saved_state(VALUE fields, bf_continuous *out)
{
    uint64_t v[9];
    bloomc_state_fields(fields, 9, v);
    *out = (bf_continuous){
        .k = (uint32_t)bloomc_state_check(v[1], 1, BF_K_MAX, "k"),
        .seed = (uint32_t)bloomc_state_check(v[2], 0, UINT32_MAX, "seed"),
        .hash = (bf_hash_kind)bloomc_state_check(v[3], BF_HASH_MURMUR3, BF_HASH_FNV1A, "hash"),
        .slot = (uint32_t)bloomc_state_check(v[4], 1, BF_CONT_SLOTS, "slot"),
        .ticks = v[5],
        .recent_adds = {v[6], v[7], v[8]},
    };
    uint64_t m = bloomc_state_check(v[0], 1, BF_BUCKETS_MAX, "m");
    if (out->hash == BF_HASH_FNV1A && out->seed) bloomc_format_error("an fnv1a filter has seed 0, not %u", out->seed);
    size_t nbytes = bf_buckets_nbytes(m, BF_CONT_BITS);
    if (!nbytes) bloomc_format_error("m %" PRIu64 " is too large for this machine", m);
    bf_buckets_init(&out->buckets, m, BF_CONT_BITS);
    return nbytes;
}

/* What is wrong with saved buckets, or NULL. A file a writer had open may
 * hold buckets its recorded clock has expired (the writer was killed after
 * recording a tick, before clearing them): recover accepts those, and the
 * caller clears them. */
static const char *saved_buckets_problem(const bf_continuous *f, int recover)
{
    if (!bf_buckets_tail_clear(&f->buckets)) return "bits set past the last bucket";
    if (!recover && !bf_continuous_valid(f)) return "a bucket holds a slot that is not live";
    return NULL;
}

/* :nodoc: the inverse of export_core; Bloomc::FormatError for anything
 * export_core could not have made (a bucket holding an expired slot
 * included, unless recover). The clock is not running afterwards. */
static VALUE continuous_import_core(VALUE self, VALUE fields, VALUE body, VALUE recover)
{
    rb_check_frozen(self);
    bf_continuous src;
    src.buckets.data = (uint8_t *)bloomc_state_body(body, saved_state(fields, &src));
    const char *problem = saved_buckets_problem(&src, RTEST(recover));
    if (problem) bloomc_format_error("%s", problem);
    continuous_t *c = replaceable(self);
    continuous_reset(c, src.buckets.count, src.k, src.seed, src.hash, &src);
    bf_continuous_clear_stale(&c->core);
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
    continuous_t *c = bloomc_typed_data(self, &continuous_type);
    if (c->core.buckets.data || c->map.closed) rb_raise(rb_eArgError, "map_core maps a new filter");
    bf_continuous src;
    size_t nbytes = saved_state(fields, &src), offset = NUM2SIZET(body_offset);
    if (NUM2SIZET(length) != offset + nbytes)
        bloomc_format_error("a file of %" PRIsVALUE " bytes where the parameters need %zu", length, offset + nbytes);
    uint8_t *base = bloomc_map_file(NUM2INT(fd), offset + nbytes, RTEST(writable));
    src.buckets.data = base + offset;
    /* A file a writer has open may hold buckets its recorded clock has
     * expired (a reader opening it mid-tick, or a writer killed there): a
     * writer clears them (clear_stale_cells, once the shape asked for is
     * checked), a reader's lookups read them as absent. */
    const char *problem = saved_buckets_problem(&src, RTEST(recover));
    if (problem) {
        munmap(base, offset + nbytes);
        bloomc_format_error("%s", problem);
    }
    c->core = src;
    c->epoch = c->period = 0;
    c->applied = 0;
    c->live = 0;
    bloomc_mapping_adopt(&c->map, self, base, offset + nbytes, offset, NUM2INT(fd), RTEST(writable));
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

/* :nodoc: unmaps a mapped filter; it raises IOError from then on. */
static VALUE continuous_unmap(VALUE self)
{
    continuous_t *c = bloomc_typed_data(self, &continuous_type);
    if (!c->map.base) return self;
    bloomc_unmap(&c->map);
    c->map.closed = 1;
    c->core.buckets.data = NULL;
    c->core.buckets.count = 0; /* a view of the buckets now holds none */
    return self;
}

/* :nodoc: the parameters export_core saves, without the buckets. */
static VALUE continuous_export_fields(VALUE self)
{
    const bf_continuous *f = get_filter(self);
    uint64_t fields[] = {f->buckets.count, f->k, f->seed, (uint64_t)f->hash, f->slot, f->ticks,
                         f->recent_adds[0], f->recent_adds[1], f->recent_adds[2]};
    return rb_ary_entry(bloomc_state_new(fields, 9, NULL, NULL, 0), 0);
}

/* :nodoc: the bytes export_core's body would take with m buckets (for a
 * new mapped file: its filter is never built on the heap). */
static VALUE continuous_body_bytes_for(VALUE self, VALUE m)
{
    get_filter(self);
    size_t nbytes = bf_buckets_nbytes(bloomc_count_arg(m, "m", BF_BUCKETS_MAX), BF_CONT_BITS);
    if (!nbytes) rb_raise(rb_eArgError, "m is too large for this machine");
    return SIZET2NUM(nbytes);
}


void bloomc_init_continuous_bloom_filter(VALUE mBloomc)
{
    cContinuousBloomFilter = rb_define_class_under(mBloomc, "ContinuousBloomFilter", rb_cObject);
    rb_define_alloc_func(cContinuousBloomFilter, continuous_alloc);
    /* Bits per bucket. */
    rb_define_const(cContinuousBloomFilter, "BITS_PER_BUCKET", INT2FIX(BF_CONT_BITS));
    /* Ticks per TTL: the clock ticks every ttl / RESOLUTION_DIVISOR. */
    rb_define_const(cContinuousBloomFilter, "RESOLUTION_DIVISOR", INT2FIX(BF_CONT_DIVISOR));
    rb_define_private_method(cContinuousBloomFilter, "setup", continuous_setup, 4);
    rb_define_private_method(cContinuousBloomFilter, "copy_state", continuous_initialize_copy, 1);
    rb_define_method(cContinuousBloomFilter, "add", continuous_add, 1);
    rb_define_method(cContinuousBloomFilter, "<<", continuous_add, 1);
    rb_define_method(cContinuousBloomFilter, "add?", continuous_add_p, 1);
    rb_define_method(cContinuousBloomFilter, "include?", continuous_include_p, 1);
    rb_define_method(cContinuousBloomFilter, "[]", continuous_include_p, 1);
    rb_define_private_method(cContinuousBloomFilter, "dedup_lines", continuous_dedup_lines, 3);
    bloomc_define_batch_methods(cContinuousBloomFilter, continuous_batch_add, continuous_batch_lookup);
    rb_define_method(cContinuousBloomFilter, "inc_time_slot", bloomc_continuous_inc_time_slot, 0); /* in continuous_clock.c */
    bloomc_init_continuous_clock(cContinuousBloomFilter);
    rb_define_private_method(cContinuousBloomFilter, "current_slot", continuous_current_slot, 0);
    rb_define_private_method(cContinuousBloomFilter, "hash_kind", continuous_hash_kind, 0);
    rb_define_method(cContinuousBloomFilter, "ticks", continuous_ticks, 0);
    rb_define_method(cContinuousBloomFilter, "m", continuous_m, 0);
    rb_define_method(cContinuousBloomFilter, "k", continuous_k, 0);
    rb_define_method(cContinuousBloomFilter, "seed", continuous_seed, 0);
    rb_define_method(cContinuousBloomFilter, "buckets", continuous_buckets, 0);
    rb_define_method(cContinuousBloomFilter, "==", continuous_equal, 1);
    rb_define_method(cContinuousBloomFilter, "eql?", continuous_equal, 1);
    rb_define_method(cContinuousBloomFilter, "hash", continuous_hash, 0);
    rb_define_private_method(cContinuousBloomFilter, "export_core", continuous_export_core, 0);
    rb_define_private_method(cContinuousBloomFilter, "import_core", continuous_import_core, 3);
    rb_define_private_method(cContinuousBloomFilter, "map_core", continuous_map_core, -1);
    rb_define_private_method(cContinuousBloomFilter, "unmap", continuous_unmap, 0);
    rb_define_private_method(cContinuousBloomFilter, "clear_stale_cells", continuous_clear_stale_cells, 0);
    rb_define_private_method(cContinuousBloomFilter, "export_fields", continuous_export_fields, 0);
    rb_define_private_method(cContinuousBloomFilter, "body_bytes_for", continuous_body_bytes_for, 1);
    bloomc_define_mapping_methods(cContinuousBloomFilter);
    rb_define_private_method(cContinuousBloomFilter, "combine", continuous_combine, 2);
    rb_define_method(cContinuousBloomFilter, "clear", continuous_clear, 0);
    rb_define_private_method(cContinuousBloomFilter, "occupied", continuous_occupied, 0);
}
