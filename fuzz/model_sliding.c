/* The sliding filter (bf_sliding.c): generations started, grown and dropped
 * as the binding does, its cells one run cut and grown, on a clock the
 * input drives. */
#include "harness.h"

#include <float.h>
#include <math.h>
#include <string.h>

#include "bf_bits.h"
#include "bf_scalable.h"
#include "bf_sliding.h"

#include "fields.h"
#include "keys.h"
#include "reference.h"

/* Model: its own generations (start, initial capacity, layers) and every
 * layer's bits, a byte per bit, dropped and appended by the rules of
 * bf_sliding.h written again here: a generation ends once now - start >=
 * ttl + ttl/g; an add starts one when none is alive or the newest one's
 * window (ttl/g) has passed, sized from the newest one's keys and 1/16 more
 * and 64; it takes keys into its newest layer, then layers of the shapes
 * bf_scalable_layer_shape gives at error_rate / (g + 1). Checked against
 * the core: the result of every add, lookups exactly (the model's live
 * layers' bits), every layer's shape, count and image, and the promises:
 * a key is found whenever its last add is at most ttl ago (no false
 * negative), a key goes into a generation less than a window after its
 * start (so it is gone but as a false positive by ttl * (1 + 1/g)), at
 * most g + 1 generations, and the rate they were sized for within
 * error_rate. Save and load at a later time age every key; fields a save
 * could not write are refused, and what is accepted saves the same again. */

#define SL_MAX_M ((uint64_t)1 << 22) /* bits a layer the model images */

typedef struct {
    key_ref key;
    bf_key_hash h;
    double t; /* its last add */
    int sure; /* the clock has not gone back since: no false negative within ttl */
} sl_key;

typedef struct {
    uint8_t *img; /* a byte per bit */
    uint64_t m, capacity, count;
    uint32_t k;
} sl_layer;

typedef struct {
    bf_sliding f;
    uint8_t *cells;
    size_t nbytes;
    double now;
    size_t ngens, nlayers;
    bf_sliding_gen gens[BF_SLIDING_LIVE_MAX];
    sl_layer layers[BF_SLIDING_LAYERS_MAX];
    uint64_t count;
    sl_key *keys;
    size_t nkeys, cap;
    int have;
} sliding_state;

static void sliding_free(void *state)
{
    sliding_state *s = state;
    free(s->cells);
    for (size_t i = 0; i < s->nlayers; i++) free(s->layers[i].img);
    free(s->keys);
    memset(s, 0, sizeof *s);
}

static double sl_window(const sliding_state *s) { return s->f.params.ttl / s->f.params.generations; }
static double sl_life(const sliding_state *s) { return s->f.params.ttl + sl_window(s); }
/* Rounding of times as large as these, far below a window. */
static double sl_slack(const sliding_state *s, double a, double b) { return 64 * DBL_EPSILON * (fabs(a) + fabs(b) + s->f.params.ttl); }

MODEL static size_t sl_model_expired(const sliding_state *s, double now)
{
    size_t n = 0;
    while (n < s->ngens && now - s->gens[n].start >= sl_life(s)) n++;
    return n;
}

MODEL static int sl_model_due(const sliding_state *s, double now)
{
    if (!s->ngens) return 1;
    return now - s->gens[s->ngens - 1].start >= sl_window(s) && s->ngens - sl_model_expired(s, now) < s->f.params.generations + 1;
}

MODEL static uint64_t sl_model_predicted(const sliding_state *s)
{
    if (!s->ngens) return s->f.params.first_capacity;
    uint64_t seen = 0, before = 0, max = (uint64_t)1 << 40;
    size_t first = s->nlayers - s->gens[s->ngens - 1].nlayers;
    for (size_t i = first; i < s->nlayers; i++) seen += s->layers[i].count;
    if (s->ngens > 1)
        for (size_t i = first - s->gens[s->ngens - 2].nlayers; i < first; i++) before += s->layers[i].count;
    if (seen >= max) return max;
    if (before && seen > before) seen += seen - before < seen / 2 ? seen - before : seen / 2;
    uint64_t c = seen + seen / 16 + 64;
    return c < max ? c : max;
}

static bf_scalable_params sl_model_params(const sliding_state *s, uint64_t initial)
{
    bf_scalable_params p = {s->f.params.error_rate / (s->f.params.generations + 1), initial, 2, 0.5, 1, 0, s->f.params.hash};
    return p;
}

/* Layer i of a generation of that initial capacity, zeroed (0: none). */
static int sl_model_layer(const sliding_state *s, uint64_t initial, size_t i, sl_layer *l)
{
    bf_scalable_params p = sl_model_params(s, initial);
    memset(l, 0, sizeof *l);
    if (!bf_scalable_layer_shape(&p, i, &l->capacity, &l->m, &l->k)) return 0;
    CHECK(l->m <= SL_MAX_M);
    l->img = zeroed((size_t)l->m);
    return 1;
}

MODEL static int sl_model_layer_has(const sliding_state *s, size_t i, bf_key_hash h)
{
    uint64_t pos[BF_K_MAX];
    const sl_layer *l = &s->layers[i];
    positions(h, s->f.params.hash, l->k, l->m, pos);
    return bits_model_has(l->img, pos, l->k);
}

/* Whether layers [from, to) hold the key. */
MODEL static int sl_model_has(const sliding_state *s, size_t from, size_t to, bf_key_hash h)
{
    for (size_t i = from; i < to; i++)
        if (sl_model_layer_has(s, i, h)) return 1;
    return 0;
}

static size_t sl_first_layer(const sliding_state *s, size_t gen)
{
    size_t first = 0;
    for (size_t i = 0; i < gen; i++) first += s->gens[i].nlayers;
    return first;
}

/* The binding's install: next with the old cells from `from` on, zeroed past them. */
static void sl_install(sliding_state *s, const bf_sliding *next, size_t from)
{
    size_t nbytes = 0, kept = s->nbytes - from;
    CHECK(bf_sliding_nbytes(next, &nbytes));
    uint8_t *cells = zeroed(nbytes);
    if (kept) memcpy(cells, s->cells + from, kept < nbytes ? kept : nbytes);
    free(s->cells);
    s->f = *next;
    s->cells = cells;
    s->nbytes = nbytes;
    CHECK(bf_sliding_attach(&s->f, cells) == s->f.nlayers);
}

/* Drops the ended generations from both. */
static void sl_catch_up(sliding_state *s)
{
    size_t n = sl_model_expired(s, s->now);
    CHECK(bf_sliding_expired(&s->f, s->now) == n);
    if (!n) return;
    bf_sliding next = s->f;
    size_t cut = bf_sliding_prefix_nbytes(&next, n), layers = sl_first_layer(s, n);
    bf_sliding_drop(&next, n);
    sl_install(s, &next, cut);
    for (size_t i = 0; i < layers; i++) free(s->layers[i].img);
    memmove(s->layers, s->layers + layers, (s->nlayers - layers) * sizeof s->layers[0]);
    memmove(s->gens, s->gens + n, (s->ngens - n) * sizeof s->gens[0]);
    s->nlayers -= layers;
    s->ngens -= n;
}

static void sl_remember(sliding_state *s, key_ref k, bf_key_hash h, const reader *r)
{
    for (size_t i = 0; i < s->nkeys; i++)
        if (s->keys[i].key.len == k.len && !memcmp(key_ptr(r, s->keys[i].key), key_ptr(r, k), k.len)) {
            s->keys[i].t = s->now;
            s->keys[i].sure = 1;
            return;
        }
    if (s->nkeys == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 64;
        s->keys = realloc(s->keys, s->cap * sizeof *s->keys);
        CHECK(s->keys != NULL);
    }
    s->keys[s->nkeys++] = (sl_key){k, h, s->now, 1};
}

/* One add, as the binding's loop: 0 when no room was left (CapacityError,
 * the filter unchanged). */
static int sl_add(sliding_state *s, key_ref k, bf_key_hash h, const reader *r)
{
    for (int steps = 0;; steps++) {
        CHECK(steps < 4); /* catch up, start, grow, add */
        bf_sliding next = s->f;
        bf_sliding_result got = bf_sliding_add(&s->f, h, s->now, 1);
        if (sl_model_expired(s, s->now)) {
            CHECK(got == BF_SLIDING_CATCH_UP);
            sl_catch_up(s);
            continue;
        }
        if (sl_model_due(s, s->now)) {
            CHECK(got == BF_SLIDING_START);
            sl_layer l;
            uint64_t initial = sl_model_predicted(s);
            int room = s->nlayers < BF_SLIDING_LAYERS_MAX && sl_model_layer(s, initial, 0, &l);
            CHECK(bf_sliding_predicted(&s->f) == initial);
            CHECK(bf_sliding_start(&next, s->now) == room);
            if (!room) return 0;
            sl_install(s, &next, 0);
            s->gens[s->ngens++] = (bf_sliding_gen){s->now, initial, 1};
            s->layers[s->nlayers++] = l;
            CHECK(s->ngens <= s->f.params.generations + 1);
            continue;
        }
        bf_sliding_gen *newest = &s->gens[s->ngens - 1];
        size_t first = s->nlayers - newest->nlayers;
        sl_layer *top = &s->layers[s->nlayers - 1];
        /* a key goes into a generation within its window (or before its
         * start, on a clock set back) */
        CHECK(s->now - newest->start < sl_window(s) + sl_slack(s, s->now, newest->start));
        if (sl_model_has(s, first, s->nlayers, h)) {
            CHECK(got == BF_SLIDING_PRESENT);
        } else if (top->count >= top->capacity) {
            CHECK(got == BF_SLIDING_GROW);
            sl_layer l;
            int room = s->nlayers < BF_SLIDING_LAYERS_MAX && sl_model_layer(s, newest->initial_capacity, newest->nlayers, &l);
            CHECK(bf_sliding_grow(&next) == room);
            if (!room) return 0;
            sl_install(s, &next, 0);
            newest->nlayers++;
            s->layers[s->nlayers++] = l;
            continue;
        } else {
            uint64_t pos[BF_K_MAX];
            positions(h, s->f.params.hash, top->k, top->m, pos);
            for (uint32_t j = 0; j < top->k; j++) top->img[pos[j]] = 1;
            top->count++;
            CHECK(got == (sl_model_has(s, 0, first, h) ? BF_SLIDING_PRESENT : BF_SLIDING_ADDED));
        }
        s->count++;
        sl_remember(s, k, h, r);
        CHECK(bf_sliding_contains(&s->f, h, s->now));
        return 1;
    }
}

/* A lookup: exactly the model's live layers' answer; never a false
 * negative for a key added at most ttl ago (unless the clock went back
 * since: generations that ended on the way forward are gone). */
static int sl_lookup(const sliding_state *s, bf_key_hash h, const sl_key *known)
{
    int want = sl_model_has(s, sl_first_layer(s, sl_model_expired(s, s->now)), s->nlayers, h);
    CHECK(bf_sliding_contains(&s->f, h, s->now) == want);
    if (known && known->sure && s->now - known->t <= s->f.params.ttl - sl_slack(s, s->now, known->t)) CHECK(want);
    return want;
}

static const sl_key *sl_known(const sliding_state *s, key_ref k, const reader *r)
{
    for (size_t i = 0; i < s->nkeys; i++)
        if (s->keys[i].key.len == k.len && !memcmp(key_ptr(r, s->keys[i].key), key_ptr(r, k), k.len)) return &s->keys[i];
    return NULL;
}

/* The structure, counts and rates (cheap), and every image (scan). */
static void sl_check_counts(const sliding_state *s)
{
    const bf_sliding *f = &s->f;
    CHECK(f->ngens == s->ngens && f->nlayers == s->nlayers && f->count == s->count);
    CHECK(s->ngens <= f->params.generations + 1);
    uint64_t sum = 0;
    for (size_t i = 0; i < s->ngens; i++) {
        CHECK(f->gens[i].start == s->gens[i].start && f->gens[i].nlayers == s->gens[i].nlayers);
        CHECK(f->gens[i].initial_capacity == s->gens[i].initial_capacity);
        if (i) CHECK(s->gens[i].start > s->gens[i - 1].start);
        size_t first = sl_first_layer(s, i);
        for (size_t j = 0; j < s->gens[i].nlayers; j++) {
            const bf_layer *l = &f->layers[first + j];
            const sl_layer *m = &s->layers[first + j];
            CHECK(l->bits.nbits == m->m && l->k == m->k && l->capacity == m->capacity && l->count == m->count);
            CHECK(j + 1 < s->gens[i].nlayers ? m->count == m->capacity : m->count <= m->capacity);
            sum += m->count;
        }
    }
    CHECK(bf_sliding_distinct(f) == sum);
    CHECK(bf_sliding_design_fpr(f) <= f->params.error_rate * (1 + 1e-12));
}

MODEL static void sl_check_all(void *state, const reader *r)
{
    const sliding_state *s = state;
    (void)r;
    if (!s->have) return;
    sl_check_counts(s);
    double miss = 1;
    for (size_t i = 0; i < s->nlayers; i++) {
        const bf_layer *l = &s->f.layers[i];
        bits_check_image(&l->bits, s->layers[i].img);
        CHECK(bf_bits_tail_clear(&l->bits));
        uint64_t ones = 0;
        for (uint64_t j = 0; j < s->layers[i].m; j++) ones += s->layers[i].img[j];
        miss *= 1 - pow((double)ones / (double)l->bits.nbits, l->k);
    }
    double now = bf_sliding_current_fpr(&s->f);
    CHECK(fabs(now - (1 - miss)) <= 1e-12);
    for (size_t i = 0; i < s->nkeys; i++) sl_lookup(s, s->keys[i].h, &s->keys[i]);
}

/* Error rates as the scalable header's; ttls, first capacities and clocks
 * from these (the invalid ones refused). */
static const double sl_ttls[8] = {1, 0.01, 0.1, 10, 3600, 0.0099, 4294967296.0, 1e10};
static const uint64_t sl_firsts[8] = {64, 1024, 100, 5000, 63, 1, (uint64_t)1 << 40, ((uint64_t)1 << 40) + 1};
static const double sl_clocks[4] = {0, 1.7e9, -1e9, 6.8e10};

static void sl_new(sliding_state *s, bf_sliding_params p, uint32_t seed, double now)
{
    sliding_free(s);
    int valid = p.error_rate > 0 && p.error_rate < 1 && p.ttl >= 0.01 && p.ttl <= 4294967296.0 && p.generations >= 1 &&
                p.generations <= 8 && p.first_capacity >= 64 && p.first_capacity <= (uint64_t)1 << 40;
    /* and a first layer: every rate the header picks has one */
    CHECK(bf_sliding_params_valid(&p) == valid);
    CHECK(bf_sliding_init(&s->f, &p, seed) == valid);
    if (!valid || p.first_capacity > 5000) return; /* larger: no image */
    s->have = 1;
    s->now = now;
    CHECK(s->f.ngens == 0 && s->f.nlayers == 0 && !bf_sliding_contains(&s->f, (bf_key_hash){1, 2}, now));
}

/* The header's part is empty (so that seeds written before this kind keep
 * their meaning): error_rate 0.01, ttl 1 s, g 4, first capacity 64,
 * mixed probes, seed 0, the clock at 0. sl_new picks others. */
static void sliding_init(void *state, reader *r)
{
    (void)r;
    bf_sliding_params p = {0.01, 1, 4, 64, BF_HASH_MURMUR3_MIXED};
    sl_new(state, p, 0, 0);
}

/* u16 error rate (as the scalable header), u8 ttl, u8 g (% 9: 0 refused),
 * u8 first capacity, u8 flags (bit 0: unmixed probes; bits 1-2: the
 * clock's start), u32 seed. */
void sliding_new_op(void *state, reader *r)
{
    uint16_t e = rd_u16(r);
    bf_sliding_params p;
    p.error_rate = (1 + e % 999) / 1000.0 / pow(10, (double)(e / 999 % 4));
    p.ttl = sl_ttls[rd_u8(r) % 8];
    p.generations = rd_u8(r) % 9;
    p.first_capacity = sl_firsts[rd_u8(r) % 8];
    uint8_t flags = rd_u8(r);
    p.hash = flags & 1 ? BF_HASH_MURMUR3 : BF_HASH_MURMUR3_MIXED;
    uint32_t seed = rd_u32(r);
    sl_new(state, p, seed, sl_clocks[(flags >> 1) % 4]);
}

void sliding_add_op(void *state, reader *r)
{
    sliding_state *s = state;
    key_ref k = rd_key(r);
    if (!s->have) return;
    sl_add(s, k, mm_hash(r, k, s->f.seed), r);
}

void sliding_contains_op(void *state, reader *r)
{
    sliding_state *s = state;
    key_ref k = rd_key(r);
    if (!s->have) return;
    sl_lookup(s, mm_hash(r, k, s->f.seed), sl_known(s, k, r));
}

/* u8 mode: 0, forward (u8 + 1) / 64 ttl; 1, forward u16 / 256 ttl (up to
 * 256 ttl); 2, back (u8 + 1) / 64 ttl; 3, to the u64's double, or, when
 * no add may take it, an add there refused. Lookups at the new time find
 * what the model does; then the binding's catch-up, and the same again. */
void sliding_tick_op(void *state, reader *r)
{
    sliding_state *s = state;
    uint8_t mode = rd_u8(r) % 4;
    double ttl = s->f.params.ttl, to = s->now;
    if (mode == 0) to += (rd_u8(r) + 1) * ttl / 64;
    else if (mode == 1) to += rd_u16(r) * ttl / 256;
    else if (mode == 2) to -= (rd_u8(r) + 1) * ttl / 64;
    else {
        uint64_t u = rd_u64(r);
        memcpy(&to, &u, sizeof to);
    }
    if (!s->have) return;
    if (!bf_sliding_time_valid(to)) {
        CHECK(!(isfinite(to) && fabs(to) <= BF_SLIDING_TIME_MAX));
        bf_sliding before = s->f;
        CHECK(bf_sliding_add(&s->f, (bf_key_hash){3, 4}, to, 1) == BF_SLIDING_BAD_TIME);
        CHECK(!memcmp(&before, &s->f, sizeof before));
        CHECK(!bf_sliding_start(&before, to));
        return;
    }
    if (to < s->now)
        for (size_t i = 0; i < s->nkeys; i++) s->keys[i].sure = 0;
    s->now = to;
    for (size_t i = s->nkeys > RECENT_KEYS ? s->nkeys - RECENT_KEYS : 0; i < s->nkeys; i++) sl_lookup(s, s->keys[i].h, &s->keys[i]);
    sl_catch_up(s);
    sl_check_counts(s);
}

/* u8 flags (bit 0: add the batch first, as the binding's add_many), a
 * batch; then bf_sliding_contains_many against single lookups. */
void sliding_batch_op(void *state, reader *r)
{
    sliding_state *s = state;
    uint8_t add = rd_u8(r) & 1;
    batch b;
    rd_batch(r, &b, s->f.seed, BF_HASH_MURMUR3);
    if (!s->have) return;
    /* a batch of no more new keys than room cannot meet CapacityError */
    uint64_t room = bf_sliding_room(&s->f, s->now, b.n), taken = 0;
    CHECK(room <= b.n);
    if (add)
        for (size_t j = 0; j < b.n; j++) {
            uint64_t before = bf_sliding_distinct(&s->f);
            if (!sl_add(s, b.keys[j], b.h[j], r)) CHECK(taken >= room);
            taken += bf_sliding_distinct(&s->f) > before;
        }
    bf_key_hash *h = exact_hashes(b.h, b.n);
    uint8_t *out = exact_answers(b.n);
    bf_sliding_contains_many(&s->f, h, b.n, s->now, out);
    for (size_t j = 0; j < b.n; j++) CHECK(out[j] == sl_lookup(s, b.h[j], sl_known(s, b.keys[j], r)));
    free(h);
    free(out);
}

/* Every field equal, but ages within rounding. */
static void sl_check_same_fields(const uint64_t *a, const uint64_t *b, size_t n, size_t ngens, const sliding_state *s)
{
    for (size_t i = 0; i < n; i++) {
        size_t g = i - BF_SLIDING_FIXED_FIELDS;
        if (i >= BF_SLIDING_FIXED_FIELDS && g < BF_SLIDING_GEN_FIELDS * ngens && g % BF_SLIDING_GEN_FIELDS == 0) {
            double x, y;
            memcpy(&x, &a[i], sizeof x);
            memcpy(&y, &b[i], sizeof y);
            CHECK(fabs(x - y) <= sl_slack(s, x, s->now));
        } else {
            CHECK(a[i] == b[i]);
        }
    }
}

/* u8 later: saved now and loaded (later % 64) / 16 ttl later, every key
 * aged by that; the loaded filter saves the same fields at its time. */
void sliding_save_load_op(void *state, reader *r)
{
    sliding_state *s = state;
    uint8_t later = rd_u8(r) % 64;
    if (!s->have) return;
    double ref = s->now, ref2 = ref + later * s->f.params.ttl / 16;
    if (!bf_sliding_time_valid(ref2)) return;
    uint64_t saved[BF_SLIDING_FIELDS_MAX], again[BF_SLIDING_FIELDS_MAX];
    size_t n = bf_sliding_nfields(&s->f);
    CHECK(n <= BF_SLIDING_FIELDS_MAX);
    bf_sliding_save(&s->f, ref, saved);
    CHECK(bf_sliding_nfields_in(saved) == n);
    bf_sliding loaded;
    CHECK(bf_sliding_load(&loaded, saved, n, ref2) == NULL);
    bf_sliding_save(&loaded, ref2, again);
    sl_check_same_fields(saved, again, n, s->ngens, s);
    for (size_t i = 0; i < s->ngens; i++) {
        double moved = s->gens[i].start + (ref2 - ref);
        CHECK(fabs(loaded.gens[i].start - moved) <= sl_slack(s, moved, ref2));
        s->gens[i].start = loaded.gens[i].start;
    }
    for (size_t i = 0; i < s->nkeys; i++) s->keys[i].t += ref2 - ref;
    s->now = ref2;
    uint8_t *cells = dup_bytes(s->cells, s->nbytes);
    size_t nbytes = 0;
    CHECK(bf_sliding_nbytes(&loaded, &nbytes) && nbytes == s->nbytes);
    free(s->cells);
    s->f = loaded;
    s->cells = cells;
    CHECK(bf_sliding_attach(&s->f, cells) == s->f.nlayers);
    sl_check_counts(s);
}

/* u16 which field, u64 xor (0: the field's count one more or less, u8),
 * u8 flags (bit 0: one field fewer): a load of fields a save did not write
 * either refuses them or makes a filter that saves them again. */
void sliding_load_bad_op(void *state, reader *r)
{
    sliding_state *s = state;
    uint16_t at = rd_u16(r);
    uint64_t x = rd_u64(r);
    uint8_t flags = rd_u8(r);
    if (!s->have) return;
    uint64_t fields[BF_SLIDING_FIELDS_MAX], again[BF_SLIDING_FIELDS_MAX];
    size_t n = bf_sliding_nfields(&s->f);
    bf_sliding_save(&s->f, s->now, fields);
    fields[at % n] ^= x ? x : 1;
    if (flags & 1) n--;
    bf_sliding z;
    if (bf_sliding_load(&z, fields, n, s->now)) return;
    size_t nbytes = 0;
    CHECK(n == bf_sliding_nfields(&z) && bf_sliding_nbytes(&z, &nbytes));
    CHECK(z.ngens <= z.params.generations + 1 && bf_sliding_params_valid(&z.params));
    for (size_t i = 1; i < z.ngens; i++) CHECK(z.gens[i].start > z.gens[i - 1].start);
    bf_sliding_save(&z, s->now, again);
    sl_check_same_fields(fields, again, n, z.ngens, s);
}

/* The recent keys looked up; everything while the scan budget lasts. */
void sliding_check_op(void *state, reader *r)
{
    sliding_state *s = state;
    if (!s->have) return;
    sl_check_counts(s);
    uint64_t cost = (uint64_t)s->nkeys * 64;
    for (size_t i = 0; i < s->nlayers; i++) cost += s->layers[i].m;
    if (may_scan(r, cost)) sl_check_all(s, r);
}

/* An empty twin has the first's parameters, seed and clock; a copy, all. */
static void sliding_twin(void *twin, const void *first, uint8_t mode, reader *r)
{
    sliding_state *t = twin;
    const sliding_state *s = first;
    (void)r;
    sliding_free(t);
    if (!s->have) return;
    if (mode & 1) {
        *t = *s;
        t->cells = dup_bytes(s->cells, s->nbytes);
        CHECK(bf_sliding_attach(&t->f, t->cells) == t->f.nlayers);
        for (size_t i = 0; i < s->nlayers; i++) t->layers[i].img = dup_bytes(s->layers[i].img, (size_t)s->layers[i].m);
        t->keys = dup_bytes(s->keys, s->cap * sizeof *s->keys);
        return;
    }
    sl_new(t, s->f.params, s->f.seed, s->now);
}

/* No union: generations of two clocks do not line up. */
static void sliding_merge(void *dst, void *src, uint8_t flags, reader *r)
{
    (void)dst, (void)src, (void)flags, (void)r;
}

const fuzz_model sliding_model = {sizeof(sliding_state), sliding_init, sl_check_all, sliding_free, sliding_twin, sliding_merge, NULL};
