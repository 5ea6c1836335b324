#include "bf_sliding.h"
#include <math.h>
#include <string.h>

/* Why these layer parameters (bits a key by 1.44 log2(1/p), at error_rate
 * 0.01 and g 4, so 0.002 a generation): with tightening r the first layer
 * is sized for (1 - r) of the budget and layer i for (1 - r) r^i. A
 * generation sized from the one before takes its keys in its first layer at
 * a steady rate, and that layer costs 13.5 bits a key at r 0.25, 14.4 at
 * 0.5, 15.8 at 0.75; one that grows to 7 layers (a 100x burst) costs 28.1,
 * 21.7 and 18.9 over its keys. r 0.5 is within a bit of the best at either
 * end (and the best at 2 to 3 layers, a rate 3 to 7 times the last
 * window's). even_layers 1 then gives the first layer the same (1 - r)
 * share as 0 would; growth 2 keeps a burst within few layers. */

/* A generation's first layer is sized for the keys of the one before it
 * and 1/16 more, plus the floor: at a steady rate the count of a window
 * varies (by its square root for a Poisson stream: 4 deviations at 1,000
 * keys, far more above), and a generation that passes its first layer by
 * one key pays for a second layer twice its size. */
#define HEADROOM_SHIFT 4

static double window_of(const bf_sliding_params *p) { return p->ttl / (double)p->generations; }
static double life_of(const bf_sliding_params *p) { return p->ttl + window_of(p); }

static uint64_t double_bits(double d)
{
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    return u;
}

static double bits_double(uint64_t u)
{
    double d;
    memcpy(&d, &u, sizeof d);
    return d;
}

int bf_sliding_time_valid(double now) { return isfinite(now) && fabs(now) <= BF_SLIDING_TIME_MAX; }

/* A generation's parameters: all the filter's but its initial capacity. */
static bf_scalable_params params_for(const bf_sliding_params *p, uint64_t initial_capacity)
{
    bf_scalable_params s = {p->error_rate / (double)(p->generations + 1), initial_capacity, BF_SLIDING_GROWTH,
                            BF_SLIDING_TIGHTENING, BF_SLIDING_EVEN_LAYERS, 0, p->hash};
    return s;
}

bf_scalable_params bf_sliding_gen_params(const bf_sliding *f, size_t i) { return params_for(&f->params, f->gens[i].initial_capacity); }

/* Where generation i's layers start in the table. */
static size_t first_layer(const bf_sliding *f, size_t i)
{
    size_t first = 0;
    for (size_t j = 0; j < i; j++) first += f->gens[j].nlayers;
    return first;
}

/* Layers [first, first + n) as a scalable filter, for what reads layers
 * alone (lookups, rates); the cast: it writes only for a caller that may. */
static bf_scalable layers_view(const bf_sliding *f, size_t first, size_t n)
{
    bf_scalable v;
    memset(&v, 0, sizeof v);
    v.layers = (bf_layer *)(uintptr_t)(f->layers + first);
    v.nlayers = n;
    v.params.hash = f->params.hash;
    v.seed = f->seed;
    return v;
}

bf_scalable bf_sliding_gen_view(const bf_sliding *f, size_t i)
{
    bf_scalable v = layers_view(f, first_layer(f, i), f->gens[i].nlayers);
    v.params = bf_sliding_gen_params(f, i);
    return v;
}

int bf_sliding_params_valid(const bf_sliding_params *p)
{
    if (!(p->error_rate > 0 && p->error_rate < 1)) return 0;
    if (!(p->ttl >= BF_SLIDING_TTL_MIN && p->ttl <= BF_SLIDING_TTL_MAX)) return 0;
    if (p->generations < BF_SLIDING_GENERATIONS_MIN || p->generations > BF_SLIDING_GENERATIONS_MAX) return 0;
    if (p->first_capacity < BF_SLIDING_CAPACITY_FLOOR || p->first_capacity > BF_SLIDING_CAPACITY_MAX) return 0;
    if (p->hash != BF_HASH_MURMUR3 && p->hash != BF_HASH_MURMUR3_MIXED) return 0;
    /* the first generation's parameters: every later one differs only in
     * its initial capacity, which a start checks */
    bf_scalable_params s = params_for(p, p->first_capacity);
    return bf_scalable_params_valid(&s);
}

int bf_sliding_init(bf_sliding *f, const bf_sliding_params *p, uint32_t seed)
{
    memset(f, 0, sizeof *f);
    if (!bf_sliding_params_valid(p)) return 0;
    f->params = *p;
    f->seed = seed;
    return 1;
}

size_t bf_sliding_expired(const bf_sliding *f, double now)
{
    double life = life_of(&f->params);
    size_t n = 0;
    /* starts only increase, so the ended ones come first; NaN ends none */
    while (n < f->ngens && now - f->gens[n].start >= life) n++;
    return n;
}

int bf_sliding_nbytes(const bf_sliding *f, size_t *out)
{
    size_t total = 0;
    for (size_t i = 0; i < f->nlayers; i++) {
        size_t nbytes = bf_bits_nbytes(f->layers[i].bits.nbits);
        if (!nbytes || nbytes > SIZE_MAX - total) return 0;
        total += nbytes;
    }
    *out = total;
    return 1;
}

size_t bf_sliding_prefix_nbytes(const bf_sliding *f, size_t n)
{
    size_t total = 0, layers = first_layer(f, n < f->ngens ? n : f->ngens);
    /* a prefix of a run whose total fits (bf_sliding_nbytes) */
    for (size_t i = 0; i < layers; i++) total += bf_bits_nbytes(f->layers[i].bits.nbits);
    return total;
}

void bf_sliding_drop(bf_sliding *f, size_t n)
{
    if (n > f->ngens) n = f->ngens;
    size_t layers = first_layer(f, n);
    memmove(f->layers, f->layers + layers, (f->nlayers - layers) * sizeof f->layers[0]);
    memmove(f->gens, f->gens + n, (f->ngens - n) * sizeof f->gens[0]);
    f->nlayers -= layers;
    f->ngens -= n;
}

int bf_sliding_due(const bf_sliding *f, double now)
{
    if (!f->ngens) return 1;
    const bf_sliding_gen *newest = &f->gens[f->ngens - 1];
    if (!(now - newest->start >= window_of(&f->params))) return 0;
    /* Starts a window apart leave at most g + 1 alive; should rounding ever
     * let one more in, the newest takes the adds a little longer instead
     * (its keys live a little longer) rather than break the rate. */
    return f->ngens - bf_sliding_expired(f, now) < f->params.generations + 1;
}

/* The keys generation i took (its layers' counts). */
static uint64_t gen_distinct(const bf_sliding *f, size_t i)
{
    bf_scalable v = bf_sliding_gen_view(f, i);
    return bf_scalable_distinct(&v);
}

uint64_t bf_sliding_predicted(const bf_sliding *f)
{
    if (!f->ngens) return f->params.first_capacity;
    uint64_t seen = gen_distinct(f, f->ngens - 1), before = f->ngens > 1 ? gen_distinct(f, f->ngens - 2) : 0;
    if (seen >= BF_SLIDING_CAPACITY_MAX) return BF_SLIDING_CAPACITY_MAX;
    /* A rate that rose from the generation before likely rises as much
     * again (a morning's traffic): one more step of it, at most half as
     * much again, so that the new generation's first layer still holds it
     * (a generation that outgrows that layer pays for one twice its size). */
    if (before && seen > before) seen += seen - before < seen / 2 ? seen - before : seen / 2;
    uint64_t c = seen + (seen >> HEADROOM_SHIFT) + BF_SLIDING_CAPACITY_FLOOR;
    return c < BF_SLIDING_CAPACITY_MAX ? c : BF_SLIDING_CAPACITY_MAX;
}

int bf_sliding_start(bf_sliding *f, double now)
{
    if (!bf_sliding_time_valid(now) || !bf_sliding_due(f, now)) return 0;
    if (f->ngens >= BF_SLIDING_LIVE_MAX || f->nlayers >= BF_SLIDING_LAYERS_MAX) return 0;
    bf_sliding_gen g = {now, bf_sliding_predicted(f), 1};
    bf_scalable_params p = params_for(&f->params, g.initial_capacity);
    bf_layer l;
    if (!bf_scalable_params_valid(&p) || !bf_scalable_layer_init(&p, 0, &l)) return 0;
    f->gens[f->ngens++] = g;
    f->layers[f->nlayers++] = l;
    return 1;
}

int bf_sliding_grow(bf_sliding *f)
{
    if (!f->ngens || f->nlayers >= BF_SLIDING_LAYERS_MAX) return 0;
    const bf_layer *top = &f->layers[f->nlayers - 1];
    if (top->count < top->capacity) return 0;
    bf_sliding_gen *newest = &f->gens[f->ngens - 1];
    bf_scalable_params p = bf_sliding_gen_params(f, f->ngens - 1);
    bf_layer l;
    if (!bf_scalable_layer_init(&p, newest->nlayers, &l)) return 0;
    f->layers[f->nlayers++] = l;
    newest->nlayers++;
    return 1;
}

size_t bf_sliding_attach(bf_sliding *f, uint8_t *cells)
{
    bf_scalable v = layers_view(f, 0, f->nlayers);
    return bf_scalable_attach(&v, cells);
}

bf_sliding_result bf_sliding_add(bf_sliding *f, bf_key_hash h, double now, int report)
{
    if (!bf_sliding_time_valid(now)) return BF_SLIDING_BAD_TIME;
    if (bf_sliding_expired(f, now)) return BF_SLIDING_CATCH_UP;
    if (bf_sliding_due(f, now)) return BF_SLIDING_START;
    /* Into the newest generation even when an older one holds the key: the
     * older one ends sooner than the key's ttl. */
    size_t newest = f->ngens - 1, first = f->nlayers - f->gens[newest].nlayers;
    bf_scalable v = bf_sliding_gen_view(f, newest);
    bf_scalable_result r = bf_scalable_add(&v, h);
    if (r == BF_SCALABLE_GROW) return BF_SLIDING_GROW;
    f->count++;
    if (r == BF_SCALABLE_PRESENT) return BF_SLIDING_PRESENT;
    if (first && report) {
        bf_scalable older = layers_view(f, 0, first);
        if (bf_scalable_contains(&older, h)) return BF_SLIDING_PRESENT;
    }
    return BF_SLIDING_ADDED;
}

/* Every layer from the first generation alive at now on. */
static bf_scalable live_view(const bf_sliding *f, double now)
{
    size_t first = first_layer(f, bf_sliding_expired(f, now));
    return layers_view(f, first, f->nlayers - first);
}

int bf_sliding_contains(const bf_sliding *f, bf_key_hash h, double now)
{
    bf_scalable v = live_view(f, now);
    /* all layers' first probes together, in one round (bf_scalable.c) */
    return v.nlayers && bf_scalable_contains(&v, h);
}

void bf_sliding_contains_many(const bf_sliding *f, const bf_key_hash *h, size_t n, double now, uint8_t *out)
{
    bf_scalable v = live_view(f, now);
    if (!v.nlayers) {
        memset(out, 0, n);
        return;
    }
    bf_scalable_contains_many(&v, h, n, out);
}

uint64_t bf_sliding_room(const bf_sliding *f, double now, uint64_t want)
{
    if (!bf_sliding_time_valid(now)) return 0;
    bf_sliding t = *f;
    bf_sliding_drop(&t, bf_sliding_expired(&t, now));
    uint64_t room = 0;
    size_t next;
    bf_scalable_params p;
    if (bf_sliding_due(&t, now)) {
        if (t.ngens >= BF_SLIDING_LIVE_MAX) return 0;
        p = params_for(&t.params, bf_sliding_predicted(&t));
        if (!bf_scalable_params_valid(&p)) return 0;
        next = 0;
    } else {
        const bf_layer *top = &t.layers[t.nlayers - 1];
        room = top->count < top->capacity ? top->capacity - top->count : 0;
        p = bf_sliding_gen_params(&t, t.ngens - 1);
        next = t.gens[t.ngens - 1].nlayers;
    }
    /* room < want and each capacity is at most BF_BITS_MAX: no overflow */
    for (size_t slots = BF_SLIDING_LAYERS_MAX - t.nlayers; room < want && slots > 0; slots--, next++) {
        uint64_t c, m;
        uint32_t k;
        if (!bf_scalable_layer_shape(&p, next, &c, &m, &k)) break;
        room += c;
    }
    return room < want ? room : want;
}

uint64_t bf_sliding_bits(const bf_sliding *f)
{
    uint64_t m = 0;
    for (size_t i = 0; i < f->nlayers; i++) m += f->layers[i].bits.nbits;
    return m;
}

uint64_t bf_sliding_distinct(const bf_sliding *f)
{
    bf_scalable v = layers_view(f, 0, f->nlayers);
    return bf_scalable_distinct(&v);
}

double bf_sliding_current_fpr(const bf_sliding *f)
{
    bf_scalable v = layers_view(f, 0, f->nlayers);
    return bf_scalable_current_fpr(&v);
}

double bf_sliding_design_fpr(const bf_sliding *f)
{
    double miss = 1;
    for (size_t i = 0; i < f->ngens; i++) {
        bf_scalable v = bf_sliding_gen_view(f, i);
        miss *= 1 - bf_scalable_design_fpr(&v);
    }
    return 1 - miss;
}

size_t bf_sliding_nfields(const bf_sliding *f)
{
    return BF_SLIDING_FIXED_FIELDS + BF_SLIDING_GEN_FIELDS * f->ngens + BF_SCALABLE_LAYER_FIELDS * f->nlayers;
}

size_t bf_sliding_nfields_in(const uint64_t *fixed)
{
    uint64_t g = fixed[3], gens = fixed[6], layers = fixed[7];
    if (g < BF_SLIDING_GENERATIONS_MIN || g > BF_SLIDING_GENERATIONS_MAX || gens > g + 1) return 0;
    if (layers > BF_SLIDING_LAYERS_MAX || gens > layers || (gens == 0) != (layers == 0)) return 0;
    return BF_SLIDING_FIXED_FIELDS + BF_SLIDING_GEN_FIELDS * (size_t)gens + BF_SCALABLE_LAYER_FIELDS * (size_t)layers;
}

void bf_sliding_save(const bf_sliding *f, double ref, uint64_t *out)
{
    const bf_sliding_params *p = &f->params;
    uint64_t fixed[BF_SLIDING_FIXED_FIELDS] = {f->seed | (uint64_t)p->hash << 32, double_bits(p->error_rate), double_bits(p->ttl),
                                               p->generations, p->first_capacity, f->count, f->ngens, f->nlayers};
    memcpy(out, fixed, sizeof fixed);
    out += BF_SLIDING_FIXED_FIELDS;
    for (size_t i = 0; i < f->ngens; i++, out += BF_SLIDING_GEN_FIELDS) {
        out[0] = double_bits(ref - f->gens[i].start);
        out[1] = f->gens[i].nlayers;
        out[2] = f->gens[i].initial_capacity;
    }
    bf_scalable v = layers_view(f, 0, f->nlayers);
    bf_scalable_save_layers(&v, out);
}

/* Generation i's fields, then its layers (in the table already, from
 * fields). */
static const char *load_gen(bf_sliding *f, size_t i, const uint64_t *gen, double ref, size_t *layers_left)
{
    double age = bits_double(gen[0]);
    if (!isfinite(age) || fabs(age) > 2 * BF_SLIDING_TIME_MAX) return "a generation's age is out of range";
    if (gen[1] < 1 || gen[1] > *layers_left) return "the generations' layers do not add up to the filter's";
    if (gen[2] < BF_SLIDING_CAPACITY_FLOOR || gen[2] > BF_SLIDING_CAPACITY_MAX) return "a generation's initial capacity is out of range";
    f->gens[i] = (bf_sliding_gen){ref - age, gen[2], (size_t)gen[1]};
    *layers_left -= (size_t)gen[1];
    /* Starts are a window apart; ages saved and taken from another ref
     * may round, by far less than half a window (BF_SLIDING_TTL_MIN). */
    if (i > 0 && !(f->gens[i].start - f->gens[i - 1].start > window_of(&f->params) / 2))
        return "the generations do not start a window apart";
    bf_scalable_params p = bf_sliding_gen_params(f, i);
    if (!bf_scalable_params_valid(&p)) return "a generation's layers have no shape";
    return NULL;
}

const char *bf_sliding_load(bf_sliding *f, const uint64_t *fields, size_t n, double ref)
{
    memset(f, 0, sizeof *f);
    if (!bf_sliding_time_valid(ref)) return "the reference time is out of range";
    if (n < BF_SLIDING_FIXED_FIELDS || bf_sliding_nfields_in(fields) != n) return "the counts of generations and layers do not fit";
    uint64_t hash = fields[0] >> 32;
    if (hash != BF_HASH_MURMUR3 && hash != BF_HASH_MURMUR3_MIXED) return "unknown hash";
    bf_sliding_params p = {bits_double(fields[1]), bits_double(fields[2]), (uint32_t)fields[3], fields[4], (bf_hash_kind)hash};
    if (!bf_sliding_params_valid(&p)) return "no sliding filter has those parameters";
    f->params = p;
    f->seed = (uint32_t)fields[0];
    f->count = fields[5];
    f->ngens = (size_t)fields[6];
    f->nlayers = (size_t)fields[7];
    const uint64_t *gen = fields + BF_SLIDING_FIXED_FIELDS, *layer = gen + BF_SLIDING_GEN_FIELDS * f->ngens;
    size_t left = f->nlayers;
    for (size_t i = 0; i < f->ngens; i++, gen += BF_SLIDING_GEN_FIELDS) {
        const char *problem = load_gen(f, i, gen, ref, &left);
        if (problem) return problem;
    }
    if (left) return "the generations' layers do not add up to the filter's";
    for (size_t i = 0, first = 0; i < f->ngens; first += f->gens[i].nlayers, i++) {
        bf_scalable v = bf_sliding_gen_view(f, i);
        if (bf_scalable_load_layers(&v, layer + BF_SCALABLE_LAYER_FIELDS * first) < v.nlayers)
            return "a layer is not the one its generation's parameters give";
        /* an add fills a layer to its capacity before the next one comes */
        for (size_t j = 0; j < v.nlayers; j++)
            if (j + 1 < v.nlayers ? v.layers[j].count != v.layers[j].capacity : v.layers[j].count > v.layers[j].capacity)
                return "a layer's count does not fit its capacity";
    }
    if (bf_sliding_distinct(f) > f->count) return "more keys in the layers than adds";
    size_t nbytes;
    if (!bf_sliding_nbytes(f, &nbytes)) return "the layers are too large for this machine";
    return NULL;
}

void bf_sliding_save_timed(const bf_sliding *f, double now, double wall, uint64_t *out)
{
    double ref = f->ngens ? f->gens[f->ngens - 1].start : now, since = now - ref;
    bf_sliding_save(f, ref, out);
    out += bf_sliding_nfields(f);
    out[0] = double_bits(since > 0 ? since : 0);
    out[1] = double_bits(wall);
}

const char *bf_sliding_load_timed(bf_sliding *f, const uint64_t *fields, double wall, double *started_ago)
{
    size_t n = bf_sliding_nfields_in(fields);
    if (!n) return "the counts of generations and layers do not fit";
    double since = bits_double(fields[n]), saved = bits_double(fields[n + 1]), elapsed = wall - saved;
    if (!(since >= 0 && since <= BF_SLIDING_TIME_MAX) || !bf_sliding_time_valid(saved)) return "the save's time is out of range";
    *started_ago = since + (elapsed > 0 ? elapsed : 0);
    return bf_sliding_load(f, fields, n, 0);
}
