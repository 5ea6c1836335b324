/* The scalable filter (bf_scalable.c): layers appended as the binding does. */
#include "harness.h"

#include <math.h>
#include <string.h>

#include "bf_bloom.h"
#include "bf_scalable.h"

#include "fields.h"
#include "keys.h"
#include "reference.h"

/* Model: every layer's bits, a byte per bit, with its count and its set
 * bits; a layer is appended exactly as the binding's append_layer does
 * (the shape bf_scalable_layer_shape gives, zeroed bits) when an add
 * answers BF_SCALABLE_GROW, and the add is made again. Checked against
 * bf_scalable.h: an add is new exactly when no layer holds the key; a new
 * key goes into the newest layer while it has room; a full one asks for
 * the next layer when one may follow, and answers FULL when none may (the
 * layers reach max_capacity, or BF_SCALABLE_LAYERS_MAX), changing nothing
 * either way; a key added is found ever after, through growth and unions;
 * the layers' counts add up to distinct, and none passes its capacity but
 * through a union. The shapes and error rates follow from the parameters
 * alone: capacities initial * growth^i (rounded; cut at max_capacity),
 * rates that share out error_rate as the header says, and each layer the
 * fewest bits whose formula rate at its capacity is within its share. */

/* The parameters a header may pick (the first of each: the binding's
 * defaults), besides error_rate, initial_capacity and even_layers. */
static const double sc_growths[8] = {2, 1, 1.25, 1.5, 2.5, 3, 3.7, 4}; /* 1: refused */
static const double sc_tightenings[8] = {0.8, 0.85, 0.5, 0.9, 0.1, 0.3, 0.7, 0.99};

typedef struct {
    bf_scalable f;
    size_t nlayers;
    uint8_t *model[BF_SCALABLE_LAYERS_MAX];  /* a byte per bit of each layer */
    uint64_t lcount[BF_SCALABLE_LAYERS_MAX]; /* each layer's count */
    uint64_t ones[BF_SCALABLE_LAYERS_MAX];   /* each layer's bits set */
    uint64_t count;                          /* adds that found or took their key (f.count) */
    uint64_t added;                          /* adds that took a new key: distinct, until a union */
    int unions;                              /* a union made the counts estimates (past capacity, maybe) */
    key_list keys;                           /* every key taken: found ever after */
} scalable_state;

static void scalable_free(void *state)
{
    scalable_state *s = state;
    for (size_t i = 0; i < s->f.nlayers; i++) free(s->f.layers[i].bits.data);
    free(s->f.layers);
    for (size_t i = 0; i < s->nlayers; i++) free(s->model[i]);
    keys_free(&s->keys);
    memset(s, 0, sizeof *s);
}

/* initial * growth^i, rounded, at least 1 (and, as the core, at most
 * BF_BITS_MAX: no layer the harness makes comes near). */
MODEL static uint64_t sc_grown(const bf_scalable_params *p, size_t i)
{
    double c = round((double)p->initial_capacity * pow(p->growth, (double)i));
    if (!(c >= 1)) return 1;
    return c >= (double)BF_BITS_MAX ? BF_BITS_MAX : (uint64_t)c;
}

/* Layer i's capacity: 0 when there is no layer i (past the last layer, or
 * the layers before it reach max_capacity, which cuts the last one). */
MODEL static uint64_t sc_model_capacity(const bf_scalable_params *p, size_t i)
{
    if (i >= BF_SCALABLE_LAYERS_MAX) return 0;
    uint64_t c = sc_grown(p, i), taken = 0;
    if (!p->max_capacity) return c;
    for (size_t j = 0; j < i; j++)
        if ((taken += sc_grown(p, j)) >= p->max_capacity) return 0;
    return c < p->max_capacity - taken ? c : p->max_capacity - taken;
}

/* With max_capacity: how many layers reach it (LAYERS_MAX + 1: too many). */
MODEL static size_t sc_model_layers_to_max(const bf_scalable_params *p)
{
    uint64_t taken = 0;
    for (size_t i = 0; i < BF_SCALABLE_LAYERS_MAX; i++)
        if ((taken += sc_grown(p, i)) >= p->max_capacity) return i + 1;
    return BF_SCALABLE_LAYERS_MAX + 1;
}

/* Layer i's share of error_rate: even over the layers that reach
 * max_capacity; else even over the first even_layers, then shrinking by r,
 * all of them together error_rate. */
MODEL static double sc_model_rate(const bf_scalable_params *p, size_t i)
{
    if (p->max_capacity) return p->error_rate / (double)sc_model_layers_to_max(p);
    double r = p->tightening, share = 1 / ((double)p->even_layers + r / (1 - r));
    if (i < p->even_layers) return p->error_rate * share;
    return p->error_rate * share * pow(r, (double)(i - p->even_layers + 1));
}

/* bf_bloom_size's promise: m bits and k probes hold n keys within rate p
 * by bf_bloom_rate, and m - 1 bits would not (at that k; the core steps m
 * one bit at a time below 10^12 bits). */
static void check_sizing(uint64_t m, uint32_t k, uint64_t n, double p)
{
    CHECK(m >= 1 && m <= BF_BITS_MAX && k >= 1 && k <= BF_K_MAX);
    CHECK(bf_bloom_rate(m, k, (double)n) <= p);
    if (m > 1 && m < 1000000000000ULL) CHECK(bf_bloom_rate(m - 1, k, (double)n) > p);
}

/* The parameters against the model: validity, every layer's rate and
 * shape, and shares that add up to at most error_rate. Returns validity. */
static int sc_check_params(const bf_scalable_params *p)
{
    /* growth below the minimum is refused (1 is among the choices) */
    int valid = p->growth >= BF_SCALABLE_GROWTH_MIN &&
                (!p->max_capacity || sc_model_layers_to_max(p) <= BF_SCALABLE_LAYERS_MAX);
    CHECK(bf_scalable_params_valid(p) == valid);
    if (!valid) return 0;
    double total = 0;
    for (size_t i = 0; i <= BF_SCALABLE_LAYERS_MAX; i++) {
        uint64_t c = 0, m = 0, want = sc_model_capacity(p, i);
        uint32_t k = 0;
        int has = bf_scalable_layer_shape(p, i, &c, &m, &k);
        /* A layer is missing only past the last or max_capacity, or when
         * it would pass BF_BITS_MAX bits, far beyond the keys of an input. */
        CHECK(has ? want == c : want == 0 || want > ((uint64_t)1 << 20));
        if (i == BF_SCALABLE_LAYERS_MAX) break;
        double rate = bf_scalable_layer_rate(p, i), model = sc_model_rate(p, i);
        CHECK(rate > 0 && rate < 1 && fabs(rate - model) <= model * 1e-12);
        if (!has) continue;
        check_sizing(m, k, c, rate);
        total += rate;
    }
    CHECK(total <= p->error_rate * (1 + 1e-12));
    return 1;
}

/* The binding's append_layer: layer nlayers, of the shape the parameters
 * give, zeroed. */
static void sc_append_layer(scalable_state *s)
{
    bf_scalable *f = &s->f;
    CHECK(f->nlayers == s->nlayers && s->nlayers < BF_SCALABLE_LAYERS_MAX);
    bf_layer l;
    memset(&l, 0, sizeof l);
    CHECK(bf_scalable_layer_shape(&f->params, f->nlayers, &l.capacity, &l.bits.nbits, &l.k));
    CHECK(l.capacity == sc_model_capacity(&f->params, f->nlayers));
    check_sizing(l.bits.nbits, l.k, l.capacity, bf_scalable_layer_rate(&f->params, f->nlayers));
    size_t nbytes = bf_bits_nbytes(l.bits.nbits);
    CHECK(nbytes != 0);
    bf_layer *layers = realloc(f->layers, (f->nlayers + 1) * sizeof *layers);
    CHECK(layers != NULL);
    f->layers = layers;
    l.bits.data = calloc(nbytes, 1);
    s->model[s->nlayers] = calloc((size_t)l.bits.nbits, 1);
    CHECK(l.bits.data && s->model[s->nlayers]);
    f->layers[f->nlayers++] = l;
    s->lcount[s->nlayers] = s->ones[s->nlayers] = 0;
    s->nlayers++;
}

/* Header: u16 error rate ((1 + e % 999) / 1000 / 10^(e / 999 % 4), 1e-6 ..
 * 0.999), u8 initial capacity (% 64 + 1), u8 growth and u8 tightening (% 8
 * of the tables above), u8 even layers (% 13), u16 max capacity (bit 0
 * clear: none; else 1 + (v >> 1) % 1024), u32 seed. Parameters no filter
 * has (too many layers to max_capacity) leave it absent, as the binding
 * raises for them. */
static void scalable_init(void *state, reader *r)
{
    scalable_state *s = state;
    scalable_free(s);
    uint16_t e = rd_u16(r);
    bf_scalable_params p;
    memset(&p, 0, sizeof p);
    p.error_rate = (1 + e % 999) / 1000.0 / pow(10, (double)(e / 999 % 4));
    p.initial_capacity = 1 + rd_u8(r) % 64;
    p.growth = sc_growths[rd_u8(r) % 8];
    p.tightening = sc_tightenings[rd_u8(r) % 8];
    p.even_layers = rd_u8(r) % 13;
    uint16_t max = rd_u16(r);
    p.max_capacity = max & 1 ? 1 + (uint64_t)(max >> 1) % 1024 : 0;
    uint32_t seed = rd_u32(r);
    if (!sc_check_params(&p)) return;
    s->f.params = p;
    s->f.seed = seed;
    sc_append_layer(s);
}

MODEL static int sc_model_layer_has(const scalable_state *s, size_t i, bf_key_hash h)
{
    uint64_t pos[BF_K_MAX];
    const bf_layer *l = &s->f.layers[i];
    bf_positions(h, BF_HASH_MURMUR3, l->k, l->bits.nbits, pos);
    return bits_model_has(s->model[i], pos, l->k);
}

MODEL static int sc_model_contains(const scalable_state *s, bf_key_hash h)
{
    for (size_t i = 0; i < s->nlayers; i++)
        if (sc_model_layer_has(s, i, h)) return 1;
    return 0;
}

/* Counts, cheap enough for every op. */
static void sc_check_counts(const scalable_state *s)
{
    const bf_scalable *f = &s->f;
    CHECK(f->nlayers == s->nlayers && f->count == s->count);
    uint64_t sum = 0;
    for (size_t i = 0; i < s->nlayers; i++) {
        const bf_layer *l = &f->layers[i];
        CHECK(l->count == s->lcount[i]);
        sum = s->lcount[i] > UINT64_MAX - sum ? UINT64_MAX : sum + s->lcount[i];
        /* Without unions, a layer is filled to its capacity before the next
         * one comes, and never past it. */
        if (!s->unions) CHECK(i + 1 < s->nlayers ? l->count == l->capacity : l->count <= l->capacity);
    }
    CHECK(bf_scalable_distinct(f) == sum);
    if (!s->unions) CHECK(sum == s->added);
}

/* One add, as the binding's add_hashed: BF_SCALABLE_GROW gets the next
 * layer appended and the add made again. */
static void sc_add(scalable_state *s, key_ref k, bf_key_hash h)
{
    bf_scalable *f = &s->f;
    int present = sc_model_contains(s, h);
    CHECK(bf_scalable_contains(f, h) == present);
    for (int grown = 0;; grown = 1) {
        size_t top = s->nlayers - 1;
        int full = s->lcount[top] >= f->layers[top].capacity;
        uint64_t ones = full ? bf_bits_count(&f->layers[top].bits) : 0;
        bf_scalable_result got = bf_scalable_add(f, h);
        CHECK(f->nlayers == s->nlayers);
        if (present) { /* found in a layer: nothing changes but the count */
            CHECK(got == BF_SCALABLE_PRESENT);
            s->count++;
            sc_check_counts(s);
            return;
        }
        if (!full) { /* into the newest layer */
            CHECK(got == BF_SCALABLE_ADDED);
            uint64_t pos[BF_K_MAX];
            bf_layer *l = &f->layers[top];
            positions(h, BF_HASH_MURMUR3, l->k, l->bits.nbits, pos);
            for (uint32_t j = 0; j < l->k; j++) {
                s->ones[top] += !s->model[top][pos[j]];
                s->model[top][pos[j]] = 1;
                CHECK(bf_bits_get(&l->bits, pos[j]));
            }
            s->lcount[top]++;
            s->count++;
            s->added++;
            keys_push(&s->keys, k);
            sc_check_counts(s);
            CHECK(bf_bits_count(&l->bits) == s->ones[top]);
            CHECK(bf_scalable_contains(f, h));
            return;
        }
        /* The newest layer is full (a layer just appended never is): grow
         * to the next one, if there is one; nothing changed either way. */
        CHECK(!grown);
        int more = sc_model_capacity(&f->params, s->nlayers) != 0;
        CHECK(got == BF_SCALABLE_GROW);
        CHECK(bf_bits_count(&f->layers[top].bits) == ones);
        sc_check_counts(s);
        if (!more) { /* no next layer: max_capacity reached, or the last layer */
            uint64_t capacity = 0;
            for (size_t i = 0; i < s->nlayers; i++) capacity += f->layers[i].capacity;
            CHECK(s->nlayers == BF_SCALABLE_LAYERS_MAX || capacity == f->params.max_capacity);
            CHECK(!bf_scalable_contains(f, h));
            return;
        }
        sc_append_layer(s);
    }
}

/* include? of one key: exactly the model's answer. */
static int sc_lookup(const scalable_state *s, bf_key_hash h)
{
    int want = sc_model_contains(s, h);
    CHECK(bf_scalable_contains(&s->f, h) == want);
    return want;
}

/* Estimates and rates: each layer's set bits (bf_bits_count against the
 * model's count), bf_layer_estimate by Swamidass and Baldi's formula, the
 * current and design rates by theirs; the design rate within error_rate
 * while no union added keys past a capacity. */
static void sc_check_rates(const scalable_state *s)
{
    const bf_scalable *f = &s->f;
    double miss_now = 1, miss_design = 1;
    for (size_t i = 0; i < s->nlayers; i++) {
        const bf_layer *l = &f->layers[i];
        double m = (double)l->bits.nbits, set = (double)s->ones[i];
        CHECK(bf_bits_count(&l->bits) == s->ones[i]);
        uint64_t estimate = s->ones[i] >= l->bits.nbits ? UINT64_MAX : (uint64_t)llround(-(m / l->k) * log1p(-set / m));
        CHECK(bf_layer_estimate(l) == estimate);
        miss_now *= 1 - pow(set / m, l->k);
        miss_design *= 1 - bf_bloom_rate(l->bits.nbits, l->k, (double)s->lcount[i]);
    }
    double now = bf_scalable_current_fpr(f), design = bf_scalable_design_fpr(f);
    CHECK(now >= 0 && now <= 1 && fabs(now - (1 - miss_now)) <= 1e-12 * (1 - miss_now) + 1e-15);
    CHECK(design >= 0 && design <= 1 && fabs(design - (1 - miss_design)) <= 1e-12 * (1 - miss_design) + 1e-15);
    if (!s->unions) CHECK(design <= f->params.error_rate + 1e-13);
}

/* Everything: the counts, rates, every layer's shape and whole image, and
 * every key ever taken found. */
MODEL static void sc_check_all(void *state, const reader *r)
{
    const scalable_state *s = state;
    const bf_scalable *f = &s->f;
    if (!f->layers) return;
    sc_check_counts(s);
    sc_check_rates(s);
    for (size_t i = 0; i < s->nlayers; i++) {
        const bf_layer *l = &f->layers[i];
        bf_layer want;
        memset(&want, 0, sizeof want);
        CHECK(bf_scalable_layer_shape(&f->params, i, &want.capacity, &want.bits.nbits, &want.k));
        CHECK(bf_layer_same_shape(l, &want) && l->bits.nbits == want.bits.nbits && l->k == want.k);
        if (i > 0) {
            const bf_layer *o = &f->layers[i - 1];
            CHECK(bf_layer_same_shape(o, l) == (o->bits.nbits == l->bits.nbits && o->k == l->k && o->capacity == l->capacity));
        }
        CHECK(bf_bits_tail_clear(&l->bits));
        for (uint64_t j = 0; j < l->bits.nbits; j++) CHECK(bf_bits_get(&l->bits, j) == s->model[i][j]);
    }
    for (size_t i = 0; i < s->keys.len; i++) {
        key_ref k = s->keys.items[i].key;
        CHECK(bf_scalable_contains(f, mm_hash(r, k, f->seed)));
    }
}

/* u8 flags (bit 0: add the batch first, a key at a time as the binding's
 * add_many), a batch; then bf_scalable_contains_many in exact blocks
 * against single calls and the model. */
void scalable_batch_op(void *state, reader *r)
{
    scalable_state *s = state;
    uint8_t add = rd_u8(r) & 1;
    batch b;
    rd_batch(r, &b, s->f.seed, BF_HASH_MURMUR3);
    if (!s->f.layers) return;
    if (add)
        for (size_t j = 0; j < b.n; j++) sc_add(s, b.keys[j], b.h[j]);
    bf_key_hash *h = exact_hashes(b.h, b.n);
    uint8_t *out = exact_answers(b.n);
    bf_scalable_contains_many(&s->f, h, b.n, out);
    for (size_t j = 0; j < b.n; j++) CHECK(out[j] == sc_lookup(s, b.h[j]));
    free(h);
    free(out);
}

void scalable_add_op(void *state, reader *r)
{
    scalable_state *s = state;
    key_ref k = rd_key(r);
    if (!s->f.layers) return;
    sc_add(s, k, mm_hash(r, k, s->f.seed));
}

void scalable_contains_op(void *state, reader *r)
{
    scalable_state *s = state;
    key_ref k = rd_key(r);
    if (!s->f.layers) return;
    sc_lookup(s, mm_hash(r, k, s->f.seed));
}

/* The recent keys found; the rest while the scan budget lasts. */
void scalable_check_op(void *state, reader *r)
{
    scalable_state *s = state;
    if (!s->f.layers) return;
    sc_check_counts(s);
    sc_check_rates(s);
    size_t from = s->keys.len > RECENT_KEYS ? s->keys.len - RECENT_KEYS : 0;
    for (size_t i = from; i < s->keys.len; i++)
        CHECK(bf_scalable_contains(&s->f, mm_hash(r, s->keys.items[i].key, s->f.seed)));
    uint64_t cost = (uint64_t)s->keys.len * 64;
    for (size_t i = 0; i < s->nlayers; i++) cost += s->f.layers[i].bits.nbits;
    if (may_scan(r, cost)) sc_check_all(s, r);
}

/* An empty twin has the first's parameters and seed: one empty layer. */
static void scalable_twin(void *twin, const void *first, uint8_t mode, reader *r)
{
    scalable_state *t = twin;
    const scalable_state *s = first;
    int copy = mode & 1;
    scalable_free(t);
    if (!s->f.layers) return;
    if (copy) {
        *t = *s;
        t->f.layers = dup_bytes(s->f.layers, s->nlayers * sizeof *s->f.layers);
        for (size_t i = 0; i < s->nlayers; i++) {
            const bf_layer *l = &s->f.layers[i];
            t->f.layers[i].bits.data = dup_bytes(l->bits.data, bf_bits_nbytes(l->bits.nbits));
            t->model[i] = dup_bytes(s->model[i], (size_t)l->bits.nbits);
        }
        keys_copy(&t->keys, &s->keys);
        return;
    }
    t->f.params = s->f.params;
    t->f.seed = s->f.seed;
    sc_append_layer(t);
}

/* Scalable: as the binding's scalable_combine, of filters of the same
 * parameters and seed (so of layers of the same shapes, checked): dst first
 * takes copies of the layers it lacks (their bits and counts src's alone),
 * then bf_scalable_union ORs the layers both have, each count the larger
 * of the two or of the keys the fill implies (bf_layer_estimate); the add
 * counts are summed. Every key either took is found in dst; counts are
 * estimates from here on and may pass capacities, so the design rate may
 * pass error_rate. distinct adds up the layers' counts, at most
 * UINT64_MAX (a layer with every bit set counts that). */
static int scalable_same_params(const scalable_state *a, const scalable_state *b)
{
    const bf_scalable_params *p = &a->f.params, *q = &b->f.params;
    return a->f.seed == b->f.seed && p->error_rate == q->error_rate && p->initial_capacity == q->initial_capacity &&
           p->growth == q->growth && p->tightening == q->tightening && p->even_layers == q->even_layers &&
           p->max_capacity == q->max_capacity;
}

MODEL static void scalable_model_union(scalable_state *d, const scalable_state *s, const reader *r, size_t common)
{
    for (size_t i = 0; i < common; i++) {
        uint64_t m = d->f.layers[i].bits.nbits, ones = 0;
        for (uint64_t j = 0; j < m; j++) ones += d->model[i][j] |= s->model[i][j];
        d->ones[i] = ones;
        uint64_t larger = d->lcount[i] > s->lcount[i] ? d->lcount[i] : s->lcount[i];
        uint64_t both = d->lcount[i] > UINT64_MAX - s->lcount[i] ? UINT64_MAX : d->lcount[i] + s->lcount[i];
        double mm = (double)m, k = d->f.layers[i].k;
        uint64_t estimate = ones >= m ? UINT64_MAX : (uint64_t)llround(-(mm / k) * log1p(-(double)ones / mm));
        /* the union holds at least the larger set and at most both */
        d->lcount[i] = estimate < larger ? larger : (estimate > both ? both : estimate);
    }
    d->count = s->count > UINT64_MAX - d->count ? UINT64_MAX : d->count + s->count;
    d->unions = 1;
    for (size_t i = 0; i < s->keys.len; i++) keys_push(&d->keys, s->keys.items[i].key);
    keys_dedupe(&d->keys, r);
}

static void scalable_union(void *dst, void *src, uint8_t flags, reader *r)
{
    scalable_state *d = dst, *s = src;
    if (!d->f.layers || !s->f.layers || !scalable_same_params(d, s) || !may_merge(r)) return;
    size_t common = d->nlayers < s->nlayers ? d->nlayers : s->nlayers;
    for (size_t i = 0; i < common; i++) CHECK(bf_layer_same_shape(&d->f.layers[i], &s->f.layers[i]));
    if (s->nlayers > d->nlayers) {
        bf_layer *layers = realloc(d->f.layers, s->nlayers * sizeof *layers);
        CHECK(layers != NULL);
        d->f.layers = layers;
        for (size_t i = d->nlayers; i < s->nlayers; i++) {
            const bf_layer *l = &s->f.layers[i];
            layers[i] = *l;
            layers[i].bits.data = dup_bytes(l->bits.data, bf_bits_nbytes(l->bits.nbits));
            d->model[i] = dup_bytes(s->model[i], (size_t)l->bits.nbits);
            d->lcount[i] = s->lcount[i];
            d->ones[i] = s->ones[i];
        }
        d->f.nlayers = d->nlayers = s->nlayers;
    }
    bf_scalable_union(&d->f, &s->f, common);
    scalable_model_union(d, s, r, common);
    sc_check_all(d, r);
    sc_check_all(s, r);
}

const fuzz_model scalable_model = {sizeof(scalable_state), scalable_init, sc_check_all, scalable_free, scalable_twin, scalable_union, NULL};
