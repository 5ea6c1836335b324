/* The bit field (bf_bits.c) and the size functions of both fields. */
#include "harness.h"

#include <math.h>
#include <string.h>

#include "bf_bits.h"
#include "bf_buckets.h"

#include "fields.h"

#define BITS_MAX_N 5000

typedef struct {
    bf_bits f;
    uint8_t *model; /* one byte (0/1) per bit */
    uint64_t ones;
} bits_state;

static void bits_free(void *state)
{
    bits_state *s = state;
    free(s->f.data);
    free(s->model);
    memset(s, 0, sizeof *s);
}

static void bits_init(void *state, reader *r)
{
    bits_state *s = state;
    bits_free(s);
    uint64_t n = 1 + rd_u16(r) % BITS_MAX_N;
    size_t nbytes = bf_bits_nbytes(n);
    if (nbytes == 0) return; /* invalid size: no field */
    CHECK(nbytes % 8 == 0 && nbytes * 8 >= n && nbytes * 8 < n + 64);
    s->f.data = calloc(nbytes, 1);
    s->model = calloc((size_t)n, 1);
    CHECK(s->f.data && s->model);
    s->f.nbits = n;
}

/* The whole byte image, including the padding past nbits (always zero). */
MODEL static void bits_check(const bits_state *s, reader *r)
{
    if (!s->f.data) return;
    CHECK(bf_bits_count(&s->f) == s->ones);
    CHECK(bf_bits_tail_clear(&s->f));
    if (r && !may_scan(r, s->f.nbits)) return;
    bits_check_image(&s->f, s->model);
}

enum bits_action {
    BITS_DO_SET,
    BITS_DO_CLEAR,
    BITS_DO_GET
};

/* set (with bf_bits_test_and_set when bit 15 of the u16 is set: 1 exactly
 * when the bit was clear), clear, get. */
static void bits_op(bits_state *s, enum bits_action op, reader *r)
{
    uint64_t i = rd_u16(r);
    if (!s->f.data) return;
    int test = (i >> 15) & 1;
    i %= s->f.nbits;
    switch (op) {
    case BITS_DO_SET:
        if (test) CHECK(bf_bits_test_and_set(&s->f, i) == !s->model[i]);
        else bf_bits_set(&s->f, i);
        s->ones += !s->model[i];
        s->model[i] = 1;
        break;
    case BITS_DO_CLEAR:
        bf_bits_clear(&s->f, i);
        s->ones -= s->model[i];
        s->model[i] = 0;
        break;
    case BITS_DO_GET:
        break;
    }
    CHECK(bf_bits_get(&s->f, i) == s->model[i]);
    /* The neighbours in the same byte and the bytes either side. */
    for (uint64_t j = i >= 9 ? i - 9 : 0; j < s->f.nbits && j <= i + 9; j++)
        CHECK(bf_bits_get(&s->f, j) == s->model[j]);
}

void bits_set_op(void *s, reader *r) { bits_op(s, BITS_DO_SET, r); }
void bits_clear_op(void *s, reader *r) { bits_op(s, BITS_DO_CLEAR, r); }
void bits_get_op(void *s, reader *r) { bits_op(s, BITS_DO_GET, r); }
void bits_check_op(void *s, reader *r) { bits_check(s, r); }
static void bits_final(void *s, const reader *r) { bits_check(s, NULL); }

/* The size functions: 0 exactly for invalid arguments, else large enough. */
void nbytes_op(reader *r)
{
    uint64_t n = rd_u64(r);
    uint8_t w = rd_u8(r);
    uint8_t shift = rd_u8(r);
    n >>= shift & 63;

    size_t nb = bf_bits_nbytes(n);
    if (n == 0 || n > BF_BITS_MAX) {
        CHECK(nb == 0);
    } else {
        CHECK(nb != 0 && nb % 8 == 0 && (uint64_t)nb / 8 == (n + 63) / 64);
    }

    unsigned width = w % 40; /* 0 and 33..39 are invalid */
    size_t bb = bf_buckets_nbytes(n, width);
    if (n == 0 || n > BF_BUCKETS_MAX || width < 1 || width > BF_BUCKET_WIDTH_MAX) {
        CHECK(bb == 0);
    } else {
        CHECK(bb != 0 && (uint64_t)bb == (n * width + 7) / 8 + 7);
    }
}

static void bits_twin(void *twin, const void *first, uint8_t mode, reader *r)
{
    bits_state *t = twin;
    const bits_state *s = first;
    int copy = mode & 1;
    bits_free(t);
    if (!s->f.data) return;
    uint64_t n = s->f.nbits;
    size_t nbytes = bf_bits_nbytes(n);
    if (copy) {
        *t = *s;
        t->f.data = dup_bytes(s->f.data, nbytes);
        t->model = dup_bytes(s->model, (size_t)n);
        return;
    }
    t->f.data = zeroed(nbytes);
    t->model = zeroed((size_t)n);
    t->f.nbits = n;
}

/* bf_bits_or / bf_bits_and: bit by bit. */
MODEL static void bits_model_merge(bits_state *d, const bits_state *s, int intersect)
{
    d->ones = 0;
    for (uint64_t i = 0; i < d->f.nbits; i++) {
        d->model[i] = intersect ? (d->model[i] & s->model[i]) : (d->model[i] | s->model[i]);
        d->ones += d->model[i];
    }
}

static void bits_merge(void *dst, void *src, uint8_t flags, reader *r)
{
    bits_state *d = dst, *s = src;
    int intersect = flags & 1;
    if (!d->f.data || !s->f.data || d->f.nbits != s->f.nbits || !may_merge(r)) return;
    if (intersect) bf_bits_and(&d->f, &s->f);
    else bf_bits_or(&d->f, &s->f);
    bits_model_merge(d, s, intersect);
    bits_check(d, NULL);
    bits_check(s, NULL);
}

static void bits_tail(void *state, uint16_t off, uint8_t flags)
{
    bits_state *s = state;
    if (s->f.data) tail_bits(&s->f, off, flags);
}

const fuzz_model bits_model = {sizeof(bits_state), bits_init, bits_final, bits_free, bits_twin, bits_merge, bits_tail};
