#include "bf_scalable.h"
#include <math.h>
#include "bf_bloom.h"

/* A layer's capacity before max_capacity cuts it: initial * growth^i, kept
 * far below overflow (BF_BITS_MAX bits could never hold more keys). */
static uint64_t grown_capacity(const bf_scalable_params *p, size_t i)
{
    double c = round((double)p->initial_capacity * pow(p->growth, (double)i));
    if (!(c >= 1)) return 1;
    return c >= (double)BF_BITS_MAX ? BF_BITS_MAX : (uint64_t)c;
}

/* With a max_capacity: how many layers reach it (BF_SCALABLE_LAYERS_MAX + 1
 * when that many do not). */
static size_t layers_to_max(const bf_scalable_params *p)
{
    uint64_t taken = 0;
    for (size_t i = 0; i < BF_SCALABLE_LAYERS_MAX; i++) {
        uint64_t c = grown_capacity(p, i);
        if (c >= p->max_capacity - taken) return i + 1;
        taken += c;
    }
    return BF_SCALABLE_LAYERS_MAX + 1;
}

double bf_scalable_layer_rate(const bf_scalable_params *p, size_t i)
{
    if (p->max_capacity) return p->error_rate / (double)layers_to_max(p);
    /* The first even_layers layers take an equal share each, and those after
     * shares that shrink by r: e * share + share * (r + r^2 + ...) = 1. */
    double r = p->tightening;
    double share = 1.0 / ((double)p->even_layers + r / (1.0 - r));
    if (i < p->even_layers) return p->error_rate * share;
    return p->error_rate * share * pow(r, (double)(i - p->even_layers + 1));
}

int bf_scalable_layer_shape(const bf_scalable_params *p, size_t i, uint64_t *capacity, uint64_t *m, uint32_t *k)
{
    if (i >= BF_SCALABLE_LAYERS_MAX) return 0;
    uint64_t c = grown_capacity(p, i);
    if (p->max_capacity) {
        uint64_t taken = 0;
        for (size_t j = 0; j < i && taken < p->max_capacity; j++) {
            uint64_t before = grown_capacity(p, j);
            taken += before < p->max_capacity - taken ? before : p->max_capacity - taken;
        }
        if (taken >= p->max_capacity) return 0;
        if (c > p->max_capacity - taken) c = p->max_capacity - taken;
    }
    double rate = bf_scalable_layer_rate(p, i);
    bf_sizing sizing = p->hash == BF_HASH_MURMUR3_MIXED ? BF_SIZING_EXPECTED : BF_SIZING_FORMULA;
    if (!(rate > 0) || !bf_bloom_size((double)c, rate, sizing, m, k)) return 0;
    *capacity = c;
    return 1;
}

int bf_scalable_params_valid(const bf_scalable_params *p)
{
    if (!(p->error_rate > 0 && p->error_rate < 1)) return 0;
    if (p->initial_capacity < 1 || p->initial_capacity > BF_BITS_MAX) return 0;
    if (!(p->growth >= BF_SCALABLE_GROWTH_MIN && p->growth <= BF_SCALABLE_GROWTH_MAX)) return 0;
    if (!(p->tightening > 0 && p->tightening < 1)) return 0;
    if (p->even_layers > BF_SCALABLE_LAYERS_MAX) return 0;
    if (p->hash != BF_HASH_MURMUR3 && p->hash != BF_HASH_MURMUR3_MIXED) return 0;
    if (p->max_capacity && layers_to_max(p) > BF_SCALABLE_LAYERS_MAX) return 0;
    uint64_t c, m;
    uint32_t k;
    return bf_scalable_layer_shape(p, 0, &c, &m, &k);
}

int bf_scalable_layer_init(const bf_scalable_params *p, size_t i, bf_layer *l)
{
    *l = (bf_layer){{NULL, 0}, 0, 0, 0};
    return bf_scalable_layer_shape(p, i, &l->capacity, &l->bits.nbits, &l->k);
}

int bf_scalable_same_params(const bf_scalable *a, const bf_scalable *b)
{
    const bf_scalable_params *p = &a->params, *q = &b->params;
    return a->seed == b->seed && p->error_rate == q->error_rate && p->initial_capacity == q->initial_capacity &&
           p->growth == q->growth && p->tightening == q->tightening && p->even_layers == q->even_layers &&
           p->max_capacity == q->max_capacity && p->hash == q->hash;
}

size_t bf_scalable_nbytes(const bf_scalable *f)
{
    size_t total = 0;
    for (size_t i = 0; i < f->nlayers; i++) {
        size_t nbytes = bf_bits_nbytes(f->layers[i].bits.nbits);
        if (!nbytes || nbytes > SIZE_MAX - total) return 0;
        total += nbytes;
    }
    return total;
}

size_t bf_scalable_attach(bf_scalable *f, uint8_t *body)
{
    size_t bad = f->nlayers;
    for (size_t i = 0; i < f->nlayers; i++) {
        bf_bits *bits = &f->layers[i].bits;
        bits->data = body;
        body += bf_bits_nbytes(bits->nbits);
        if (bad == f->nlayers && !bf_bits_tail_clear(bits)) bad = i;
    }
    return bad;
}

/* The probes the first round of a lookup loads of each layer. Measured in
 * C at 7 layers (1.96 MB), 200,000 lookups, the least of 9 rounds: 1 probe,
 * misses 90.6 ns and hits 78.6; 2: 69.8 and 80.0; 3: 62.3 and 82.3; 4: 58.1
 * and 90.7; 6: 69.7 and 107.4 (a layer at a time, early exit: about 100 ns
 * a miss). */
#define FIRST_PROBES 3

/* Bit j set when layer j passes the first round of a lookup: its first
 * FIRST_PROBES probes, or all of them for layer `whole` (n for none), find
 * their bits set. Every layer's probe values are the same (bf_probe.h: only
 * the m they are mapped onto differs), so the layers are asked together,
 * with no branch between the loads: the round waits for about one memory
 * access whatever the number of layers (asking a layer at a time waits for
 * a load after a mispredicted branch, layer after layer). A layer at its
 * design fill (about half its bits set) passes in one key in eight that it
 * does not hold. whole_pos, when given, keeps layer `whole`'s positions for
 * an add, which would otherwise work its mixed probes out twice. */
static uint64_t first_round(const bf_scalable *f, bf_key_hash h, size_t whole, uint64_t *whole_pos)
{
    uint64_t values[FIRST_PROBES];
    bf_probe_values(h, f->params.hash, FIRST_PROBES, values);
    uint64_t passed = 0;
    for (size_t j = 0; j < f->nlayers; j++) {
        const bf_layer *l = &f->layers[j];
        unsigned all = 1;
        if (j == whole) {
            bf_probe p = bf_probe_start(h, f->params.hash, l->bits.nbits);
            for (uint32_t t = 0; t < l->k; t++) {
                uint64_t pos = bf_probe_next(&p);
                if (whole_pos) whole_pos[t] = pos;
                all &= (unsigned)bf_bits_get(&l->bits, pos);
            }
        } else {
            for (uint32_t t = 0; t < FIRST_PROBES && t < l->k; t++)
                all &= (unsigned)bf_bits_get(&l->bits, bf_reduce(values[t], l->bits.nbits));
        }
        passed |= (uint64_t)all << j;
    }
    return passed;
}

/* Whether a layer that passed the first round holds the key: each is
 * checked to its last probe, the newest first. */
static int some_passed_has(const bf_scalable *f, bf_key_hash h, uint64_t passed, size_t whole)
{
    for (size_t j = f->nlayers; passed && j-- > 0;) {
        if (!(passed >> j & 1)) continue;
        const bf_layer *l = &f->layers[j];
        if (j == whole || l->k <= FIRST_PROBES || bf_bloom_test_probes(&l->bits, l->k, f->params.hash, h)) return 1;
    }
    return 0;
}

bf_scalable_result bf_scalable_add(bf_scalable *f, bf_key_hash h)
{
    size_t newest = f->nlayers - 1;
    bf_layer *top = &f->layers[newest];
    if (f->nlayers > 1 || top->count >= top->capacity) {
        /* The newest layer to its last probe in the first round: when no
         * layer holds the key, its lines are then in the cache for the add,
         * and its positions in pos. */
        uint64_t pos[BF_K_MAX];
        if (some_passed_has(f, h, first_round(f, h, newest, pos), newest)) {
            f->count++;
            return BF_SCALABLE_PRESENT;
        }
        if (top->count >= top->capacity) return BF_SCALABLE_GROW;
        /* no layer holds it: a bit of the newest layer is clear, and is set now */
        for (uint32_t t = 0; t < top->k; t++) bf_bits_set(&top->bits, pos[t]);
        f->count++;
        top->count++;
        return BF_SCALABLE_ADDED;
    }
    /* With one layer that takes keys, setting its bits tells whether the key
     * was new in the same pass. */
    f->count++;
    if (!bf_bloom_set_probes(&top->bits, top->k, f->params.hash, h)) return BF_SCALABLE_PRESENT;
    top->count++;
    return BF_SCALABLE_ADDED;
}

int bf_scalable_contains(const bf_scalable *f, bf_key_hash h)
{
    return some_passed_has(f, h, first_round(f, h, f->nlayers, NULL), f->nlayers);
}

void bf_scalable_contains_many(const bf_scalable *f, const bf_key_hash *h, size_t n, uint8_t *out)
{
    for (size_t i = 0; i < n; i++) out[i] = (uint8_t)bf_scalable_contains(f, h[i]);
}

uint64_t bf_scalable_room(const bf_scalable *f, uint64_t want)
{
    const bf_layer *top = &f->layers[f->nlayers - 1];
    uint64_t room = top->count < top->capacity ? top->capacity - top->count : 0;
    /* room < want and a layer's capacity is at most BF_BITS_MAX: no overflow
     * while want stays below 2^63 */
    for (size_t i = f->nlayers; room < want; i++) {
        uint64_t c, m;
        uint32_t k;
        if (!bf_scalable_layer_shape(&f->params, i, &c, &m, &k)) break;
        room += c;
    }
    return room < want ? room : want;
}

uint64_t bf_scalable_distinct(const bf_scalable *f)
{
    /* Saturating: after a union, a layer whose every bit is set counts
     * UINT64_MAX (bf_layer_estimate), and a sum that wrapped would pass for
     * a few keys. */
    uint64_t total = 0;
    for (size_t i = 0; i < f->nlayers; i++) {
        uint64_t c = f->layers[i].count;
        total = c > UINT64_MAX - total ? UINT64_MAX : total + c;
    }
    return total;
}

double bf_scalable_current_fpr(const bf_scalable *f)
{
    double miss = 1;
    for (size_t i = 0; i < f->nlayers; i++) {
        const bf_layer *l = &f->layers[i];
        miss *= 1 - pow((double)bf_bits_count(&l->bits) / (double)l->bits.nbits, l->k);
    }
    return 1 - miss;
}

double bf_scalable_design_fpr(const bf_scalable *f)
{
    double miss = 1;
    for (size_t i = 0; i < f->nlayers; i++) {
        const bf_layer *l = &f->layers[i];
        double rate = f->params.hash == BF_HASH_MURMUR3_MIXED ? bf_bloom_expected_rate(l->bits.nbits, l->k, (double)l->count)
                                                              : bf_bloom_rate(l->bits.nbits, l->k, (double)l->count);
        miss *= 1 - rate;
    }
    return 1 - miss;
}

uint64_t bf_layer_estimate(const bf_layer *l)
{
    uint64_t set = bf_bits_count(&l->bits);
    if (set >= l->bits.nbits) return UINT64_MAX;
    double m = (double)l->bits.nbits;
    return (uint64_t)llround(-(m / l->k) * log1p(-(double)set / m));
}

int bf_layer_same_shape(const bf_layer *a, const bf_layer *b)
{
    return a->bits.nbits == b->bits.nbits && a->k == b->k && a->capacity == b->capacity;
}

void bf_scalable_union(bf_scalable *dst, const bf_scalable *src, size_t nlayers)
{
    for (size_t i = 0; i < nlayers; i++) {
        bf_layer *d = &dst->layers[i];
        const bf_layer *s = &src->layers[i];
        uint64_t larger = d->count > s->count ? d->count : s->count;
        uint64_t both = d->count > UINT64_MAX - s->count ? UINT64_MAX : d->count + s->count;
        bf_bits_or(&d->bits, &s->bits);
        /* The union of two sets holds at least the larger and at most both:
         * the estimate within those (a layer whose bits are all set has no
         * estimate, UINT64_MAX, which would also wrap the filter's sum). */
        uint64_t estimate = bf_layer_estimate(d);
        d->count = estimate < larger ? larger : (estimate > both ? both : estimate);
    }
    dst->count = dst->count > UINT64_MAX - src->count ? UINT64_MAX : dst->count + src->count;
}

void bf_scalable_save_layers(const bf_scalable *f, uint64_t *out)
{
    for (size_t i = 0; i < f->nlayers; i++, out += BF_SCALABLE_LAYER_FIELDS) {
        const bf_layer *l = &f->layers[i];
        out[0] = l->bits.nbits;
        out[1] = l->k;
        out[2] = l->capacity;
        out[3] = l->count;
    }
}

size_t bf_scalable_load_layers(bf_scalable *f, const uint64_t *fields)
{
    for (size_t i = 0; i < f->nlayers; i++, fields += BF_SCALABLE_LAYER_FIELDS) {
        bf_layer *l = &f->layers[i];
        if (!bf_scalable_layer_init(&f->params, i, l) || fields[0] != l->bits.nbits || fields[1] != l->k || fields[2] != l->capacity)
            return i;
        l->count = fields[3];
    }
    return f->nlayers;
}
