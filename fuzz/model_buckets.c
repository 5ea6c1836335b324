/* The bucket field (bf_buckets.c). */
#include "harness.h"

#include <math.h>
#include <string.h>

#include "bf_buckets.h"

#include "fields.h"

#define BUCKETS_MAX_N 2000

typedef struct {
    bf_buckets f;
    uint32_t *model;
    uint64_t nonzero;
} buckets_state;

static void buckets_free(void *state)
{
    buckets_state *s = state;
    free(s->f.data);
    free(s->model);
    memset(s, 0, sizeof *s);
}

static void buckets_init(void *state, reader *r)
{
    buckets_state *s = state;
    buckets_free(s);
    unsigned width = 1 + rd_u8(r) % BF_BUCKET_WIDTH_MAX;
    uint64_t count = 1 + rd_u16(r) % BUCKETS_MAX_N;
    size_t nbytes = bf_buckets_nbytes(count, width);
    if (nbytes == 0) return;
    CHECK(nbytes >= (count * width + 7) / 8 + 7);
    s->f.data = calloc(nbytes, 1);
    s->model = calloc((size_t)count, sizeof *s->model);
    CHECK(s->f.data && s->model);
    bf_buckets_init(&s->f, count, width);
    CHECK(s->f.count == count && s->f.width == width);
    CHECK(s->f.max == (width == 32 ? 0xffffffffU : (1U << width) - 1));
}

MODEL static void buckets_check(const buckets_state *s, reader *r)
{
    if (!s->f.data) return;
    CHECK(bf_buckets_count_nonzero(&s->f) == s->nonzero);
    if (r && !may_scan(r, s->f.count * s->f.width)) return;
    uint64_t full = 0;
    for (uint64_t i = 0; i < s->f.count; i++) {
        CHECK(bf_buckets_get(&s->f, i) == s->model[i]);
        full += s->model[i] == s->f.max;
    }
    buckets_check_image(s->f.data, &s->f, s->model);
    CHECK(bf_buckets_count_full(&s->f) == full);
    CHECK(bf_buckets_tail_clear(&s->f));
}

static void buckets_store(buckets_state *s, uint64_t i, uint32_t v)
{
    s->nonzero += (v != 0) - (s->model[i] != 0);
    s->model[i] = v;
}

enum buckets_action {
    BUCKETS_DO_SET,
    BUCKETS_DO_GET,
    BUCKETS_DO_INC,
    BUCKETS_DO_DEC
};

static void buckets_op(buckets_state *s, enum buckets_action op, reader *r)
{
    uint64_t i = rd_u16(r);
    uint32_t v = op == BUCKETS_DO_SET ? rd_u32(r) : 0;
    if (!s->f.data) return;
    i %= s->f.count;
    uint32_t max = s->f.max, old = s->model[i];
    switch (op) {
    case BUCKETS_DO_SET: /* the value masked to the width */
        v &= max;
        bf_buckets_set(&s->f, i, v);
        buckets_store(s, i, v);
        break;
    case BUCKETS_DO_GET:
        break;
    case BUCKETS_DO_INC: /* saturating */
        v = old < max ? old + 1 : max;
        CHECK(bf_buckets_inc(&s->f, i) == v);
        buckets_store(s, i, v);
        break;
    case BUCKETS_DO_DEC: /* saturating */
        v = old > 0 ? old - 1 : 0;
        CHECK(bf_buckets_dec(&s->f, i) == v);
        buckets_store(s, i, v);
        break;
    }
    CHECK(bf_buckets_get(&s->f, i) == s->model[i]);
    /* The buckets around it share its 8-byte word. */
    for (uint64_t j = i >= 3 ? i - 3 : 0; j < s->f.count && j <= i + 3; j++)
        CHECK(bf_buckets_get(&s->f, j) == s->model[j]);
}

void buckets_set_op(void *s, reader *r) { buckets_op(s, BUCKETS_DO_SET, r); }
void buckets_get_op(void *s, reader *r) { buckets_op(s, BUCKETS_DO_GET, r); }
void buckets_inc_op(void *s, reader *r) { buckets_op(s, BUCKETS_DO_INC, r); }
void buckets_dec_op(void *s, reader *r) { buckets_op(s, BUCKETS_DO_DEC, r); }
void buckets_check_op(void *s, reader *r) { buckets_check(s, r); }
static void buckets_final(void *s, const reader *r) { buckets_check(s, NULL); }

/* bf_buckets_decrement_run on the bucket field of the header: a run from any
 * start, of any length 0..count, either within the field (flag bit 0 clear:
 * start 0..count, at most to the end) or wrapping at the end as the stable
 * filter calls it (two runs). The model takes 1 from each non-zero bucket. */
MODEL static void buckets_model_dec_run(buckets_state *s, uint64_t first, uint64_t n)
{
    for (uint64_t i = first; i < first + n; i++)
        if (s->model[i]) buckets_store(s, i, s->model[i] - 1);
}

/* The buckets of [first - 3, first + n + 3): the run and its neighbours. */
static void buckets_check_span(const buckets_state *s, uint64_t first, uint64_t n)
{
    uint64_t from = first >= 3 ? first - 3 : 0, to = first + n + 3;
    for (uint64_t j = from; j < s->f.count && j < to; j++) CHECK(bf_buckets_get(&s->f, j) == s->model[j]);
}

void buckets_dec_run_op(void *state, reader *r)
{
    buckets_state *s = state;
    uint64_t first = rd_u16(r), n = rd_u16(r);
    uint8_t flags = rd_u8(r);
    if (!s->f.data) return;
    uint64_t count = s->f.count;
    if (flags & 1) { /* wrapping, as bf_stable_add */
        first %= count;
        n %= count + 1;
        uint64_t to_end = count - first;
        if (n <= to_end) {
            bf_buckets_decrement_run(&s->f, first, n);
            buckets_model_dec_run(s, first, n);
            buckets_check_span(s, first, n);
        } else {
            bf_buckets_decrement_run(&s->f, first, to_end);
            bf_buckets_decrement_run(&s->f, 0, n - to_end);
            buckets_model_dec_run(s, first, to_end);
            buckets_model_dec_run(s, 0, n - to_end);
            buckets_check_span(s, first, to_end);
            buckets_check_span(s, 0, n - to_end);
        }
    } else {
        first %= count + 1; /* first == count: an empty run at the end */
        n %= count - first + 1;
        bf_buckets_decrement_run(&s->f, first, n);
        buckets_model_dec_run(s, first, n);
        buckets_check_span(s, first, n);
    }
    CHECK(bf_buckets_count_nonzero(&s->f) == s->nonzero);
    if (may_scan(r, s->f.count * s->f.width)) buckets_check_image(s->f.data, &s->f, s->model);
}

static void buckets_twin(void *twin, const void *first, uint8_t mode, reader *r)
{
    buckets_state *t = twin;
    const buckets_state *s = first;
    int copy = mode & 1;
    buckets_free(t);
    if (!s->f.data) return;
    if (copy) *t = *s;
    cells_twin(&t->f, &t->model, &s->f, s->model, copy);
}

MODEL static void buckets_model_combine(buckets_state *d, const buckets_state *s, bf_combine_op op)
{
    for (uint64_t i = 0; i < d->f.count; i++) buckets_store(d, i, model_combine(d->model[i], s->model[i], d->f.max, op));
}

static const bf_combine_op combine_ops[3] = {BF_COMBINE_SUM, BF_COMBINE_MIN, BF_COMBINE_MAX};

static void buckets_merge(void *dst, void *src, uint8_t flags, reader *r)
{
    buckets_state *d = dst, *s = src;
    bf_combine_op op = combine_ops[(flags & 0x7f) % 3];
    if (!d->f.data || !s->f.data || d->f.count != s->f.count || d->f.width != s->f.width || !may_merge(r)) return;
    bf_buckets_combine(&d->f, &s->f, op);
    buckets_model_combine(d, s, op);
    buckets_check(d, NULL);
    buckets_check(s, NULL);
}

static void buckets_tail(void *state, uint16_t off, uint8_t flags)
{
    buckets_state *s = state;
    if (s->f.data) tail_buckets(&s->f, off, flags, NULL, 1, 1);
}

const fuzz_model buckets_model = {sizeof(buckets_state), buckets_init, buckets_final, buckets_free, buckets_twin, buckets_merge, buckets_tail};
