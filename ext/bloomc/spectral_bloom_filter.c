/* Bloomc::SpectralBloomFilter: counts by minimum increase (MI) or recurring
 * minimum (RM). Keyword construction is in
 * lib/bloomc/spectral_bloom_filter.rb; the methods every kind shares are in
 * filter.c. The cells are the primary's, then (RM) the secondary's. */
#include "cells.h"
#include "keys.h"
#include "args.h"
#include "state.h"

static const bloomc_kind spectral_kind;

static bf_spectral *get_filter(VALUE self) { return bloomc_filter_core(self, &spectral_kind); }

/* The bytes of both filters' cells (0: too many for this machine). */
static size_t body_bytes(uint64_t m, uint64_t m2, unsigned width)
{
    size_t n1 = bf_buckets_nbytes(m, width), n2 = m2 ? bf_buckets_nbytes(m2, width) : 0;
    return !n1 || (m2 && !n2) || n1 + n2 < n1 ? 0 : n1 + n2;
}

/* :nodoc: called by initialize once the Ruby layer has settled the shape;
 * secondary_m is 0 for MI. */
static VALUE spectral_setup(VALUE self, VALUE m, VALUE k, VALUE width, VALUE seed, VALUE rm, VALUE secondary_m, VALUE hash)
{
    bloomc_filter_replaceable(self, &spectral_kind);
    bf_spectral f = {.algorithm = RTEST(rm) ? BF_SPECTRAL_RM : BF_SPECTRAL_MI};
    uint64_t cells = bloomc_count_arg(m, "m", BF_BUCKETS_MAX);
    f.primary.k = f.secondary.k = (uint32_t)bloomc_count_arg(k, "k", BF_K_MAX);
    unsigned bits = (unsigned)bloomc_count_arg(width, "width", BF_BUCKET_WIDTH_MAX);
    f.primary.seed = f.secondary.seed = bloomc_uint32_arg(seed, "seed");
    f.primary.hash = f.secondary.hash = bloomc_hash_kind_arg(hash);
    uint64_t cells2 = RTEST(rm) ? bloomc_count_arg(secondary_m, "secondary_m", BF_BUCKETS_MAX) : 0;
    bf_buckets_init(&f.primary.cells, cells, bits);
    bf_buckets_init(&f.secondary.cells, cells2, bits);
    bloomc_filter_install(self, &f, body_bytes(cells, cells2, bits), NULL, 0);
    return self;
}

static bf_key_hash key_hash(const bf_spectral *f, VALUE key)
{
    return bloomc_key_hash(key, f->primary.seed, f->primary.hash);
}

/*
 * call-seq:
 *   delete(key) -> true or false
 *   remove(key) -> true or false
 *
 * RM only: counts one +key+ less; false (and nothing changes) when its count
 * is 0. An MI filter raises Bloomc::UnsupportedError: minimum increase leaves
 * some of a key's cells below its count, so a delete would take from other
 * keys.
 */
static VALUE spectral_delete(VALUE self, VALUE key)
{
    rb_check_frozen(self);
    bf_spectral *f = get_filter(self);
    if (f->algorithm != BF_SPECTRAL_RM)
        rb_raise(bloomc_eUnsupportedError,
                 "a minimum-increase (MI) spectral filter cannot delete: its cells undercount other keys, so a "
                 "delete could erase them; build it with algorithm: :rm to delete");
    return RBOOL(bf_spectral_remove(f, key_hash(f, key)));
}

/* call-seq: count(key) -> Integer
 *
 * The estimated number of adds of +key+ (less deletes, for RM). */
static VALUE spectral_count(VALUE self, VALUE key)
{
    const bf_spectral *f = get_filter(self);
    return UINT2NUM(bf_spectral_count(f, key_hash(f, key)));
}

static int add_one(void *f, bf_key_hash h, int report) { return bf_spectral_add(f, h); }
static int contains_one(const void *f, bf_key_hash h) { return bf_spectral_contains(f, h); }

/* call-seq: secondary_m -> Integer or nil
 *
 * The number of cells of RM's secondary filter; nil for MI. */
static VALUE spectral_secondary_m(VALUE self)
{
    const bf_spectral *f = get_filter(self);
    return f->algorithm == BF_SPECTRAL_RM ? ULL2NUM(f->secondary.cells.count) : Qnil;
}

/* call-seq: width -> Integer
 *
 * Bits per cell. */
static VALUE spectral_width(VALUE self) { return UINT2NUM(get_filter(self)->primary.cells.width); }

/* call-seq: saturated -> Integer
 *
 * The number of primary cells at 2**width - 1 (they stay there). */
static VALUE spectral_saturated(VALUE self) { return ULL2NUM(get_filter(self)->primary.saturated); }

/* :nodoc: 1 for RM, 0 for MI (lib/bloomc/spectral_bloom_filter.rb names them). */
static VALUE spectral_algorithm_number(VALUE self) { return INT2FIX(get_filter(self)->algorithm); }

/* [algorithm, m, k, width, seed, count, saturated, secondary m, count and
 * saturated] (docs/FORMAT.md). */
static void save(const void *core, uint64_t *out)
{
    const bf_spectral *f = core;
    const bf_counting *p = &f->primary, *s = &f->secondary;
    uint64_t fields[] = {(uint64_t)f->algorithm, p->cells.count, p->k, p->cells.width, bloomc_seed_with_hash(p->seed, p->hash), p->count, p->saturated,
                         s->cells.count, s->count, s->saturated};
    memcpy(out, fields, sizeof fields);
}

static size_t load(void *core, const uint64_t *v)
{
    bf_spectral *f = core;
    f->algorithm = (bf_spectral_algorithm)bloomc_state_check(v[0], BF_SPECTRAL_MI, BF_SPECTRAL_RM, "algorithm");
    size_t n1 = bloomc_counting_state(&f->primary, v[1], v[2], v[3], v[4], v[5]), n2 = 0;
    if (f->algorithm == BF_SPECTRAL_RM) {
        n2 = bloomc_counting_state(&f->secondary, v[7], v[2], v[3], v[4], v[8]);
        if (n1 + n2 < n1) bloomc_format_error("the cells are too many for this machine");
    } else if (v[7] || v[8] || v[9]) {
        bloomc_format_error("a minimum-increase filter has no secondary cells");
    }
    return n1 + n2;
}

static const char *attach(void *core, uint8_t *body, int saved)
{
    bf_spectral *f = core;
    const char *problem = bloomc_counting_state_cells(&f->primary, body, saved);
    if (problem || f->algorithm != BF_SPECTRAL_RM) return problem;
    uint8_t *secondary = body + bf_buckets_nbytes(f->primary.cells.count, f->primary.cells.width);
    return bloomc_counting_state_cells(&f->secondary, secondary, saved);
}

static void numbers(void *core, bloomc_numbers *out)
{
    bf_counting *p = &((bf_spectral *)core)->primary;
    *out = (bloomc_numbers){p->cells.count, &p->count, &p->distinct, p->k, p->seed, p->hash};
}

static int same_shape(const void *a, const void *b)
{
    const bf_spectral *f = a, *o = b;
    return f->algorithm == o->algorithm && bloomc_counting_same_shape(&f->primary, &o->primary) &&
           f->secondary.cells.count == o->secondary.cells.count;
}

/* Primary sums or minima; RM's secondary cleared. */
static void combine(void *core, const void *other, int intersect)
{
    bf_spectral_combine(core, other, intersect ? BF_COMBINE_MIN : BF_COMBINE_SUM);
}

static uint64_t occupied(const void *core)
{
    return bf_buckets_count_nonzero(&((const bf_spectral *)core)->primary.cells);
}

static void cleared(void *core)
{
    bf_spectral *f = core;
    bloomc_counting_cleared(&f->primary);
    bloomc_counting_cleared(&f->secondary);
}

static const bloomc_kind spectral_kind = BLOOMC_KIND(5, "spectral_bloom_filter", bf_spectral, .nfields = 10,
                                                     .methods = BLOOMC_SHARED | BLOOMC_DISTINCT | BLOOMC_HASH_KIND,
                                                     .same_shape = same_shape, .occupied = occupied, .cleared = cleared,
                                                     .add_one = add_one, .contains_one = contains_one);

BLOOMC_HOT_METHODS(bf_spectral, spectral_kind)

void bloomc_init_spectral_bloom_filter(void)
{
    VALUE mBloomc = rb_define_module("Bloomc");
    VALUE cFilter = rb_define_class_under(mBloomc, "Filter", rb_cObject);
    VALUE cSpectralBloomFilter = rb_define_class_under(mBloomc, "SpectralBloomFilter", cFilter);
    bloomc_define_kind(cSpectralBloomFilter, &spectral_kind);
    define_hot_methods(cSpectralBloomFilter);
    rb_define_private_method(cSpectralBloomFilter, "setup", spectral_setup, 7);
    rb_define_method(cSpectralBloomFilter, "delete", spectral_delete, 1);
    rb_define_method(cSpectralBloomFilter, "remove", spectral_delete, 1);
    rb_define_method(cSpectralBloomFilter, "count", spectral_count, 1);
    rb_define_method(cSpectralBloomFilter, "secondary_m", spectral_secondary_m, 0);
    rb_define_method(cSpectralBloomFilter, "width", spectral_width, 0);
    rb_define_method(cSpectralBloomFilter, "saturated", spectral_saturated, 0);
    rb_define_private_method(cSpectralBloomFilter, "algorithm_number", spectral_algorithm_number, 0);
}
