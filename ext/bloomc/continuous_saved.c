/* ContinuousBloomFilter's saved and mapped state: copies and dumps (a
 * mapped reader's from a snapshot), loads and mapping a file, whose saved
 * buckets a writer's clock may have expired (recover). */
#include "continuous.h"
#include "state.h"
#include "mapping.h"
#include <sys/mman.h>

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
    const bloomc_mapping *map = continuous_map(c);
    if (!map->base || map->writable) return &c->core;
    size_t nbytes = bf_buckets_nbytes(c->core.buckets.count, BF_CONT_BITS);
    *buf = rb_obj_hide(rb_str_buf_new((long)nbytes));
    uint8_t *copy = (uint8_t *)RSTRING_PTR(*buf);
    for (int tries = 0; tries < 100; tries++) { /* a writer ticking without pause could outrun a copy */
        uint64_t ticks = c->core.ticks;
        uint32_t slot = c->core.slot;
        memcpy(copy, c->core.buckets.data, nbytes);
        bloomc_continuous_follow_clock(c, map);
        if (c->core.ticks == ticks && c->core.slot == slot) break;
    }
    *out = c->core;
    out->buckets.data = copy;
    bf_continuous_clear_stale(out);
    return out;
}

/* :nodoc: deep copy of the C state for initialize_copy (in Ruby, which also
 * gives the copy its own timer state); the copy has no clock schedule. */
static VALUE continuous_copy_state(VALUE self, VALUE orig)
{
    rb_check_frozen(self);
    if (self == orig) return self;
    bf_continuous taken;
    VALUE buf = 0;
    const bf_continuous *src = snapshot(orig, &taken, &buf);
    bloomc_filter_replaceable(self, &bloomc_continuous_kind);
    bloomc_continuous_install(self, src);
    if (buf) rb_str_resize(buf, 0); /* its memory back now, not at the next GC */
    RB_GC_GUARD(buf);
    return self;
}

/* :nodoc: [[m, k, seed, hash, slot, ticks, adds 0..2 ticks ago], buckets]
 * (docs/FORMAT.md; the Ruby layer adds the ttl); a mapped reader's from a
 * snapshot. */
static VALUE continuous_export_core(VALUE self)
{
    bf_continuous taken;
    VALUE buf = 0;
    const bf_continuous *f = snapshot(self, &taken, &buf);
    uint64_t fields[9];
    bloomc_continuous_kind.save(f, fields);
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
    return bloomc_continuous_kind.load(out, v);
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
    bloomc_filter_replaceable(self, &bloomc_continuous_kind);
    bf_continuous_clear_stale(&bloomc_continuous_install(self, &src)->core);
    RB_GC_GUARD(body);
    return self;
}

/* :nodoc: adopts the buckets of a file in bloomc's format, mapped from fd (a
 * new filter only; lib/bloomc/mapped.rb has checked the header). */
static VALUE continuous_map_core(int argc, VALUE *argv, VALUE self)
{
    VALUE fields, fd, body_offset, length, writable, recover;
    rb_scan_args(argc, argv, "6", &fields, &fd, &body_offset, &length, &writable, &recover);
    bloomc_filter *f = bloomc_filter_mappable(self, &bloomc_continuous_kind);
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
    bloomc_filter_map(self, f, base, total, offset, nbytes, NUM2INT(fd), RTEST(writable));
    return self;
}

/* :nodoc: resets the buckets holding a slot the clock has expired: a
 * writer's first write to a file it maps (Mapped.open). */
static VALUE continuous_clear_stale_cells(VALUE self)
{
    rb_check_frozen(self);
    bf_continuous_clear_stale(&bloomc_continuous_state(self)->core);
    return self;
}

/* :nodoc: unmaps a mapped filter; it raises IOError from then on. Its
 * Clock handles stay counted (the shared unmap zeroes the whole core). */
static VALUE continuous_unmap(VALUE self)
{
    bloomc_filter *f = bloomc_filter_of(self, &bloomc_continuous_kind);
    if (!f->map.base) return self;
    bloomc_unmap(&f->map);
    f->map.closed = 1;
    f->body = NULL;
    f->body_bytes = 0;
    ((continuous_t *)f->core)->core.buckets = (bf_buckets){0}; /* a view of the buckets now holds none */
    return self;
}

void bloomc_init_continuous_saved(VALUE klass)
{
    rb_define_private_method(klass, "copy_state", continuous_copy_state, 1);
    rb_define_private_method(klass, "export_core", continuous_export_core, 0);
    rb_define_private_method(klass, "import_core", continuous_import_core, 3);
    rb_define_private_method(klass, "map_core", continuous_map_core, -1);
    rb_define_private_method(klass, "unmap", continuous_unmap, 0);
    rb_define_private_method(klass, "clear_stale_cells", continuous_clear_stale_cells, 0);
}
