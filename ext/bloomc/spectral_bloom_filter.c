/* Bloomc::SpectralBloomFilter: counts by minimum increase (MI) or recurring
 * minimum (RM). Keyword construction is in
 * lib/bloomc/spectral_bloom_filter.rb; the methods every kind shares are in
 * filter.c. The cells are the primary's, then (RM) the secondary's. */
#include "cells.h"
#include "keys.h"
#include "args.h"
#include "state.h"

static const bloomc_kind spectral_kind;

/* The bytes of both filters' cells (0: too many for this machine). */
static size_t body_bytes(uint64_t m, uint64_t m2, unsigned width)
{
    size_t n1 = bf_buckets_nbytes(m, width), n2 = m2 ? bf_buckets_nbytes(m2, width) : 0;
    return !n1 || (m2 && !n2) || n1 + n2 < n1 ? 0 : n1 + n2;
}

/* :nodoc: called by initialize once the Ruby layer has settled the shape;
 * secondary_m is 0 for MI. */
static VALUE setup(VALUE self, VALUE m, VALUE k, VALUE width, VALUE seed, VALUE rm, VALUE secondary_m, VALUE hash)
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

static int add_one(void *f, bf_key_hash h, int report) { return bf_spectral_add(f, h); }
static int contains_one(const void *f, bf_key_hash h) { return bf_spectral_contains(f, h); }

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
    *out = (bloomc_numbers){p->cells.count, &p->count, &p->distinct, p->k, p->seed, p->hash, p->cells.width, p->saturated};
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

/* RM only: minimum increase leaves some of a key's cells below its count, so
 * a delete would take from other keys. */
static int remove_one(void *core, bf_key_hash h)
{
    if (((bf_spectral *)core)->algorithm != BF_SPECTRAL_RM)
        rb_raise(bloomc_eUnsupportedError,
                 "a minimum-increase (MI) spectral filter cannot delete: its cells undercount other keys, so a "
                 "delete could erase them; build it with algorithm: :rm to delete");
    return bf_spectral_remove(core, h);
}
static uint64_t count_one(const void *f, bf_key_hash h) { return bf_spectral_count(f, h); }
BLOOMC_HOT_DELETE(bf_spectral, spectral_kind)
BLOOMC_HOT_COUNT(bf_spectral, spectral_kind)
BLOOMC_HOT_METHODS(bf_spectral, spectral_kind)

static const bloomc_kind spectral_kind = BLOOMC_KIND(5, "SpectralBloomFilter", bf_spectral, .setup_arity = 7, .hot = &hot_methods, .remove_one = remove_one, .count_one = count_one, .hot_delete = hot_delete, .hot_count = hot_count, .nfields = 10,
                                                     .methods = BLOOMC_WIDTH | BLOOMC_SATURATED | BLOOMC_SHARED | BLOOMC_DISTINCT | BLOOMC_HASH_KIND,
                                                     .same_shape = same_shape, .occupied = occupied, .cleared = cleared,
                                                     .add_one = add_one, .contains_one = contains_one);


void bloomc_init_spectral_bloom_filter(void)
{
    VALUE mBloomc = rb_define_module("Bloomc");
    VALUE klass = rb_define_class_under(mBloomc, "SpectralBloomFilter", rb_path2class("Bloomc::Filter"));
    bloomc_define_kind(klass, &spectral_kind);
}
