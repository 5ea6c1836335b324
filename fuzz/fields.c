/* Models of the bit and bucket fields that every structure is built on:
 * byte images and padding checks. The filters of counters (counting,
 * spectral, bitwise, stable, A2, cuckoo) hash keys with MurmurHash3 only and
 * place them with bf_positions (checked by positions() in reference.c);
 * their models keep cells as plain uint32s, with the helpers below. */
#include "fields.h"

#include <string.h>

/* A bit field's whole byte image against a model of a byte per bit: the
 * padding past nbits always zero. */
MODEL void bits_check_image(const bf_bits *b, const uint8_t *model)
{
    size_t nbytes = bf_bits_nbytes(b->nbits);
    for (size_t j = 0; j < nbytes; j++) {
        uint8_t want = 0;
        for (unsigned bit = 0; bit < 8; bit++) {
            uint64_t i = (uint64_t)j * 8 + bit;
            if (i < b->nbits && model[i]) want |= (uint8_t)(1u << bit);
        }
        CHECK(b->data[j] == want);
    }
}

/* The exact byte image of the model (bucket i = bits [i*w, i*w + w) of the
 * little-endian bit stream, zero padding after): no bucket write may leak. */
MODEL void buckets_check_image(const uint8_t *data, const bf_buckets *f, const uint32_t *model)
{
    size_t nbytes = bf_buckets_nbytes(f->count, f->width);
    uint8_t *want = calloc(nbytes, 1);
    CHECK(want != NULL);
    for (uint64_t i = 0; i < f->count; i++)
        for (unsigned b = 0; b < f->width; b++)
            if (model[i] >> b & 1) {
                uint64_t bit = i * f->width + b;
                want[bit >> 3] |= (uint8_t)(1u << (bit & 7));
            }
    CHECK(memcmp(want, data, nbytes) == 0);
    free(want);
}

uint32_t width_max(unsigned width)
{
    return width >= 32 ? 0xffffffffU : (uint32_t)((1ULL << width) - 1);
}

/* The model of bf_cells_*: pos[0..k) in order, a probe repeating a cell
 * sees what the earlier one left. */
MODEL uint32_t mcells_min(const uint32_t *c, const uint64_t *pos, uint32_t k, uint32_t max)
{
    uint32_t min = max;
    for (uint32_t i = 0; i < k; i++)
        if (c[pos[i]] < min) min = c[pos[i]];
    return min;
}

/* Adds `by` to each cell, stopping at max; returns the cells that got there. */
MODEL uint64_t mcells_add(uint32_t *c, const uint64_t *pos, uint32_t k, uint32_t by, uint32_t max)
{
    uint64_t reached = 0;
    for (uint32_t i = 0; i < k; i++) {
        uint32_t v = c[pos[i]];
        if (v == max || by == 0) continue;
        uint64_t sum = (uint64_t)v + by;
        c[pos[i]] = sum >= max ? max : (uint32_t)sum;
        reached += c[pos[i]] == max;
    }
    return reached;
}

/* Takes 1 from each cell that is neither 0 nor saturated. */
MODEL void mcells_remove(uint32_t *c, const uint64_t *pos, uint32_t k, uint32_t max)
{
    for (uint32_t i = 0; i < k; i++)
        if (c[pos[i]] > 0 && c[pos[i]] < max) c[pos[i]]--;
}

/* Whether two different cells (positions) hold the minimum. */
MODEL int mcells_recurring(const uint32_t *c, const uint64_t *pos, uint32_t k, uint32_t max)
{
    uint32_t min = mcells_min(c, pos, k, max);
    uint64_t seen = UINT64_MAX;
    for (uint32_t i = 0; i < k; i++) {
        if (c[pos[i]] != min) continue;
        if (seen == UINT64_MAX) seen = pos[i];
        else if (pos[i] != seen) return 1;
    }
    return 0;
}

MODEL uint64_t mcells_nonzero(const uint32_t *c, uint64_t m)
{
    uint64_t n = 0;
    for (uint64_t i = 0; i < m; i++) n += c[i] != 0;
    return n;
}

MODEL uint64_t mcells_saturated(const uint32_t *c, uint64_t m, uint32_t max)
{
    uint64_t n = 0;
    for (uint64_t i = 0; i < m; i++) n += c[i] == max;
    return n;
}

/* The cells at pos[0..k) of a field equal the model's. */
void cells_check_at(const bf_buckets *b, const uint32_t *model, const uint64_t *pos, uint32_t k)
{
    for (uint32_t i = 0; i < k; i++) CHECK(bf_buckets_get(b, pos[i]) == model[pos[i]]);
}

/* A twin's field of cells and its model: copies of the first's, or zeroed
 * blocks of its shape. */
void cells_twin(bf_buckets *t, uint32_t **tmodel, const bf_buckets *s, const uint32_t *smodel, int copy)
{
    size_t nbytes = bf_buckets_nbytes(s->count, s->width), cells = (size_t)s->count * sizeof *smodel;
    if (copy) {
        t->data = dup_bytes(s->data, nbytes);
        *tmodel = dup_bytes(smodel, cells);
        return;
    }
    t->data = zeroed(nbytes);
    *tmodel = zeroed(cells);
    bf_buckets_init(t, s->count, s->width);
}

/* A field's every cell and its whole byte image against the model. */
MODEL void cells_check_all(const bf_buckets *b, const uint32_t *model)
{
    for (uint64_t i = 0; i < b->count; i++) CHECK(bf_buckets_get(b, i) == model[i]);
    CHECK(bf_buckets_count_nonzero(b) == mcells_nonzero(model, b->count));
    CHECK(bf_buckets_count_full(b) == mcells_saturated(model, b->count, b->max));
    buckets_check_image(b->data, b, model);
    CHECK(bf_buckets_tail_clear(b));
}

/* bf_buckets_combine: a + b stopping at the maximum, min or max. */
MODEL uint32_t model_combine(uint32_t a, uint32_t b, uint32_t max, bf_combine_op op)
{
    if (op == BF_COMBINE_SUM) return (uint64_t)a + b >= max ? max : a + b;
    if (op == BF_COMBINE_MIN) return a < b ? a : b;
    return a > b ? a : b;
}

/* The plain and blocked filters as the binding merges them: bf_bits_or or
 * bf_bits_and of the bits, count summed (saturating) or the smaller. Every
 * key of either history is found in the union, every key of both in the
 * intersection. distinct is left to the binding, which recounts it from the
 * fill: the model takes dst's from here on. */
MODEL void filter_model_merge(uint8_t *dm, const uint8_t *sm, uint64_t nbits, key_list *dk, const key_list *sk,
                              const reader *r, int intersect)
{
    for (uint64_t i = 0; i < nbits; i++) dm[i] = intersect ? (dm[i] & sm[i]) : (dm[i] | sm[i]);
    if (intersect) {
        key_index *ix = keys_index(sk, r);
        size_t keep = 0;
        for (size_t i = 0; i < dk->len; i++)
            if (keys_min_age(sk, ix, r, dk->items[i].key) >= 0) dk->items[keep++] = dk->items[i];
        dk->len = keep;
        free(ix);
    } else {
        for (size_t i = 0; i < sk->len; i++) keys_push(dk, sk->items[i].key);
        keys_dedupe(dk, r);
    }
}

uint64_t merged_count(uint64_t a, uint64_t b, int intersect)
{
    if (intersect) return a < b ? a : b;
    return b > UINT64_MAX - a ? UINT64_MAX : a + b;
}

/* tail_clear: 1 on every structure as the ops leave it, 1 with the last
 * real bit (or bucket) set, 0 with any one bit of the padding set (planted
 * here and taken out again). */
void tail_bits(bf_bits *b, uint16_t off, uint8_t flags)
{
    uint64_t nbits = b->nbits, pad = (uint64_t)bf_bits_nbytes(nbits) * 8 - nbits;
    CHECK(bf_bits_tail_clear(b));
    if ((flags & 1) && pad) {
        uint64_t bit = nbits + off % pad;
        CHECK(!bf_bits_get(b, bit));
        bf_bits_set(b, bit);
        CHECK(!bf_bits_tail_clear(b));
        bf_bits_clear(b, bit);
    }
    if (flags & 2) {
        int was = bf_bits_get(b, nbits - 1);
        bf_bits_set(b, nbits - 1);
        CHECK(bf_bits_tail_clear(b));
        if (!was) bf_bits_clear(b, nbits - 1);
    }
    CHECK(bf_bits_tail_clear(b));
}

/* Whether a key's bits pos[0..k) are all set in a model of a byte per bit. */
MODEL int bits_model_has(const uint8_t *model, const uint64_t *pos, uint32_t k)
{
    for (uint32_t i = 0; i < k; i++)
        if (!model[pos[i]]) return 0;
    return 1;
}

/* The same for a bucket field; a continuous filter's validity goes with it
 * (live: whether the model holds no stale slot; live_but_last: none but
 * perhaps in the last bucket). */
void tail_buckets(bf_buckets *b, uint16_t off, uint8_t flags, const bf_continuous *c, int live, int live_but_last)
{
    uint64_t nbits = b->count * b->width, pad = (uint64_t)bf_buckets_nbytes(b->count, b->width) * 8 - nbits;
    CHECK(bf_buckets_tail_clear(b));
    if (c) CHECK(bf_continuous_valid(c) == live);
    if ((flags & 1) && pad) {
        uint64_t bit = nbits + off % pad;
        uint8_t mask = (uint8_t)(1u << (bit & 7));
        CHECK(!(b->data[bit >> 3] & mask));
        b->data[bit >> 3] |= mask;
        CHECK(!bf_buckets_tail_clear(b));
        if (c) CHECK(!bf_continuous_valid(c));
        b->data[bit >> 3] &= (uint8_t)~mask;
    }
    if (flags & 2) {
        uint32_t was = bf_buckets_get(b, b->count - 1);
        /* A continuous filter's last bucket gets its current slot: live. */
        bf_buckets_set(b, b->count - 1, c ? c->slot : b->max);
        CHECK(bf_buckets_tail_clear(b));
        if (c) CHECK(bf_continuous_valid(c) == live_but_last);
        bf_buckets_set(b, b->count - 1, was);
    }
    CHECK(bf_buckets_tail_clear(b));
    if (c) CHECK(bf_continuous_valid(c) == live);
}
