/* The bitwise filter (bf_counting.c): levels allocated as the binding does. */
#include "harness.h"

#include <math.h>
#include <string.h>

#include "bf_counting.h"

#include "fields.h"
#include "keys.h"
#include "reference.h"

#define BITWISE_MAX_M 512
#define BITWISE_K_MAX 32      /* larger k is the counting and spectral filters' */
#define BITWISE_MAX_LEVELS 16 /* 6 levels take 2^32 adds of a key; more is a bug */
#define BITWISE_MAX_REPEAT 1024

/* Model: a uint32 array per level, level l's cells min(32, width * 2^l)
 * bits; an add lands on the first level where one of the key's cells is
 * below the maximum, and when there is none the harness appends a level as
 * the binding does (add_level in bitwise_bloom_filter.c). A key's count is
 * never below its number of adds. */
typedef struct {
    bf_bitwise f;
    uint32_t *model[BITWISE_MAX_LEVELS];
    size_t nlevels;
    uint64_t count;
    uint64_t distinct; /* adds that landed on level 0 with its count there 0 */
    tally keys;
} bitwise_state;

MODEL static unsigned model_level_width(unsigned width, size_t level)
{
    uint64_t w = width;
    for (size_t l = 0; l < level && w < 32; l++) w *= 2;
    return w > 32 ? 32 : (unsigned)w;
}

static void bitwise_free(void *state)
{
    bitwise_state *s = state;
    for (size_t i = 0; i < s->f.nlevels; i++) free(s->f.levels[i].data);
    free(s->f.levels);
    for (size_t i = 0; i < BITWISE_MAX_LEVELS; i++) free(s->model[i]);
    tally_free(&s->keys);
    memset(s, 0, sizeof *s);
}

/* The binding's add_level: level nlevels, zeroed, of bf_bitwise_level_width. */
static void bitwise_add_level(bitwise_state *s)
{
    bf_bitwise *f = &s->f;
    CHECK(f->nlevels == s->nlevels && s->nlevels < BITWISE_MAX_LEVELS);
    unsigned width = bf_bitwise_level_width(f->width, f->nlevels);
    CHECK(width == model_level_width(f->width, f->nlevels));
    size_t nbytes = bf_buckets_nbytes(f->m, width);
    CHECK(nbytes != 0);
    bf_buckets *levels = realloc(f->levels, (f->nlevels + 1) * sizeof *levels);
    CHECK(levels != NULL);
    f->levels = levels;
    bf_buckets *level = &f->levels[f->nlevels];
    level->data = calloc(nbytes, 1);
    CHECK(level->data != NULL);
    bf_buckets_init(level, f->m, width);
    f->nlevels++;
    s->model[s->nlevels] = calloc((size_t)f->m, sizeof(uint32_t));
    CHECK(s->model[s->nlevels] != NULL);
    s->nlevels++;
}

static void bitwise_init(void *state, reader *r)
{
    bitwise_state *s = state;
    bitwise_free(s);
    s->f.m = 1 + rd_u16(r) % BITWISE_MAX_M;
    s->f.width = 1 + rd_u8(r) % BF_BUCKET_WIDTH_MAX;
    s->f.k = 1 + rd_u8(r) % BITWISE_K_MAX;
    s->f.seed = rd_u32(r);
    bitwise_add_level(s);
}

/* A key's cells on every level so far (level 0 by its hash, level l by the
 * hash salted with 1 + l), filled in as needed. */
typedef struct {
    uint64_t pos[BITWISE_MAX_LEVELS][BF_K_MAX];
    size_t have;
} level_positions;

MODEL static const uint64_t *bitwise_pos(const bitwise_state *s, bf_key_hash h, level_positions *lp, size_t level)
{
    while (lp->have <= level) {
        size_t l = lp->have++;
        positions(l ? salted(h, RM_SALT + l) : h, BF_HASH_MURMUR3, s->f.k, s->f.m, lp->pos[l]);
    }
    return lp->pos[level];
}

MODEL static uint32_t level_max(const bitwise_state *s, size_t level)
{
    return width_max(model_level_width(s->f.width, level));
}

MODEL static size_t bitwise_model_target(const bitwise_state *s, bf_key_hash h, level_positions *lp)
{
    for (size_t l = 0; l < s->nlevels; l++)
        if (mcells_min(s->model[l], bitwise_pos(s, h, lp, l), s->f.k, level_max(s, l)) < level_max(s, l)) return l;
    return s->nlevels;
}

static uint64_t bitwise_lookup(const bitwise_state *s, const reader *r, key_ref k, bf_key_hash h)
{
    level_positions lp;
    lp.have = 0;
    uint64_t want = 0;
    for (size_t l = 0; l < s->nlevels; l++) {
        uint32_t max = level_max(s, l), min = mcells_min(s->model[l], bitwise_pos(s, h, &lp, l), s->f.k, max);
        want += min;
        if (min < max) break;
    }
    CHECK(bf_bitwise_count(&s->f, h) == want);
    long i = tally_find(&s->keys, r, k, h);
    if (i >= 0) CHECK(want >= s->keys.items[i].n);
    return want;
}

static void bitwise_check_counts(const bitwise_state *s)
{
    CHECK(s->f.count == s->count && s->f.nlevels == s->nlevels && s->f.distinct == s->distinct);
    for (size_t l = 0; l < s->nlevels; l++) {
        const bf_buckets *b = &s->f.levels[l];
        CHECK(b->count == s->f.m && b->width == model_level_width(s->f.width, l) && b->max == level_max(s, l));
    }
}

MODEL static void bitwise_check_all(void *state, const reader *r)
{
    const bitwise_state *s = state;
    if (!s->f.levels) return;
    bitwise_check_counts(s);
    for (size_t i = 0; i < s->keys.len; i++) bitwise_lookup(s, r, s->keys.items[i].key, s->keys.items[i].h);
    for (size_t l = 0; l < s->nlevels; l++) cells_check_all(&s->f.levels[l], s->model[l]);
}

/* Adds of one key, each on the level the model picks (a new one appended
 * as the binding does); returns the level of the last. Model code: the
 * loop runs up to BITWISE_MAX_REPEAT times. */
MODEL static size_t bitwise_add_times(bitwise_state *s, reader *r, bf_key_hash h, tally_entry *e, unsigned times,
                                      level_positions *lp)
{
    size_t level = 0;
    for (unsigned t = 0; t < times; t++) {
        if (t > 0 && !may_add(r, (uint64_t)s->f.k * (s->nlevels + 1))) break;
        size_t want = bitwise_model_target(s, h, lp);
        level = bf_bitwise_target_level(&s->f, h);
        CHECK(level == want);
        if (level == s->f.nlevels) bitwise_add_level(s);
        /* New: its count was 0, which it can be on level 0 only. */
        int fresh = level == 0 && mcells_min(s->model[0], bitwise_pos(s, h, lp, 0), s->f.k, level_max(s, 0)) == 0;
        CHECK(bf_bitwise_add_at(&s->f, h, level) == fresh);
        s->distinct += (uint64_t)fresh;
        mcells_add(s->model[level], bitwise_pos(s, h, lp, level), s->f.k, 1, level_max(s, level));
        s->count++;
        e->n++;
    }
    return level;
}

/* Add 1..BITWISE_MAX_REPEAT times, mostly few: the low 10 bits of a u16,
 * shifted right by (its top 6 bits) % 11. */
void bitwise_add_op(void *state, reader *r)
{
    bitwise_state *s = state;
    key_ref k = rd_key(r);
    uint16_t t = rd_u16(r);
    unsigned times = 1 + ((t % BITWISE_MAX_REPEAT) >> ((t / BITWISE_MAX_REPEAT) % 11));
    if (!s->f.levels) return;
    bf_key_hash h = mm_hash(r, k, s->f.seed);
    tally_entry *e = tally_get(&s->keys, r, k, h);
    level_positions lp;
    lp.have = 0;
    size_t level = bitwise_add_times(s, r, h, e, times, &lp);
    cells_check_at(&s->f.levels[level], s->model[level], bitwise_pos(s, h, &lp, level), s->f.k);
    bitwise_check_counts(s);
    CHECK(bitwise_lookup(s, r, k, h) >= e->n);
}

/* Count any key. */
void bitwise_count_op(void *state, reader *r)
{
    bitwise_state *s = state;
    key_ref k = rd_key(r);
    if (!s->f.levels) return;
    bitwise_lookup(s, r, k, mm_hash(r, k, s->f.seed));
}

/* Everything, while the scan budget lasts. */
void bitwise_check_op(void *state, reader *r)
{
    bitwise_state *s = state;
    if (!s->f.levels) return;
    bitwise_check_counts(s);
    uint64_t cost = (uint64_t)s->keys.len * s->f.k * 8 * s->nlevels;
    for (size_t l = 0; l < s->nlevels; l++) cost += s->f.m * s->f.levels[l].width;
    if (may_scan(r, cost)) bitwise_check_all(s, r);
}

static void bitwise_twin(void *twin, const void *first, uint8_t mode, reader *r)
{
    bitwise_state *t = twin;
    const bitwise_state *s = first;
    int copy = mode & 1;
    bitwise_free(t);
    if (!s->f.levels) return;
    if (copy) {
        *t = *s;
        t->f.levels = dup_bytes(s->f.levels, s->f.nlevels * sizeof *s->f.levels);
        for (size_t l = 0; l < s->f.nlevels; l++) {
            const bf_buckets *b = &s->f.levels[l];
            t->f.levels[l].data = dup_bytes(b->data, bf_buckets_nbytes(b->count, b->width));
            t->model[l] = dup_bytes(s->model[l], (size_t)s->f.m * sizeof(uint32_t));
        }
        tally_copy(&t->keys, &s->keys);
        return;
    }
    t->f.m = s->f.m;
    t->f.width = s->f.width;
    t->f.k = s->f.k;
    t->f.seed = s->f.seed;
    bitwise_add_level(t);
}

/* Bitwise: the caller's part (levels added to dst for a union, dropped past
 * src's for an intersection), then cell maxima or minima level by level.
 * A key counts at least the larger of its true counts (union) or the
 * smaller (intersection). */
static void bitwise_truncate(bitwise_state *s, size_t n)
{
    while (s->f.nlevels > n) {
        size_t l = --s->f.nlevels;
        free(s->f.levels[l].data);
        free(s->model[l]);
        s->model[l] = NULL;
    }
    s->nlevels = s->f.nlevels;
}

MODEL static void bitwise_model_merge(bitwise_state *d, const bitwise_state *s, const reader *r, int intersect)
{
    size_t n = d->nlevels < s->nlevels ? d->nlevels : s->nlevels;
    for (size_t l = 0; l < n; l++) {
        uint32_t max = level_max(d, l);
        for (uint64_t i = 0; i < d->f.m; i++)
            d->model[l][i] = model_combine(d->model[l][i], s->model[l][i], max, intersect ? BF_COMBINE_MIN : BF_COMBINE_MAX);
    }
    if (intersect) d->count = s->count < d->count ? s->count : d->count;
    else d->count = s->count > UINT64_MAX - d->count ? UINT64_MAX : d->count + s->count;
    tally_merge_counts(&d->keys, &s->keys, r, intersect ? TALLY_MIN : TALLY_MAX);
}

static void bitwise_merge(void *dst, void *src, uint8_t flags, reader *r)
{
    bitwise_state *d = dst, *s = src;
    int intersect = flags & 1;
    if (!d->f.levels || !s->f.levels || d->f.m != s->f.m || d->f.width != s->f.width || d->f.k != s->f.k ||
        d->f.seed != s->f.seed || !may_merge(r))
        return;
    if (intersect) {
        bf_bitwise_intersect(&d->f, &s->f);
        bitwise_truncate(d, s->f.nlevels);
    } else {
        while (d->f.nlevels < s->f.nlevels) bitwise_add_level(d);
        bf_bitwise_union(&d->f, &s->f);
    }
    bitwise_model_merge(d, s, r, intersect);
    d->distinct = d->f.distinct; /* the binding's to recount, as counting_merge */
    bitwise_check_all(d, r);
    bitwise_check_all(s, r);
}

const fuzz_model bitwise_model = {sizeof(bitwise_state), bitwise_init, bitwise_check_all, bitwise_free, bitwise_twin, bitwise_merge, NULL};
