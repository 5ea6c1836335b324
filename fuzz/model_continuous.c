/* The continuous filter (bf_continuous.c): a ring of slots, ticks and planted slots. */
#include "harness.h"

#include <math.h>
#include <string.h>

#include "bf_continuous.h"

#include "fields.h"
#include "keys.h"
#include "reference.h"

#define CONT_MAX_M 2048
#define MAX_PLANTS 16 /* plants of a slot per input: each rehashes the live keys */

#define AGE_EMPTY 0xff

typedef struct {
    bf_continuous f;
    /* Per bucket: ticks since its slot was current on the ring, 0..14
     * (0..2 live; 3..14 only for a slot planted from outside, "stale"), or
     * AGE_EMPTY. */
    uint8_t *age;
    uint32_t *expect;                     /* scratch: expected bucket values */
    uint64_t nonzero;                     /* buckets not empty */
    uint64_t recent[BF_CONT_DIVISOR + 1]; /* the model of f.recent_adds */
    uint32_t slot0;                       /* slot at creation */
    uint32_t tmod;                        /* ticks since creation, mod BF_CONT_SLOTS */
    uint64_t ticks;                       /* ticks since creation, mod 2^64 */
    key_list keys;                        /* adds of the last 0..2 ticks, with their age */
} cont_state;

static void cont_free(void *state)
{
    cont_state *s = state;
    free(s->f.buckets.data);
    free(s->age);
    free(s->expect);
    keys_free(&s->keys);
    memset(s, 0, sizeof *s);
}

static void cont_init(void *state, reader *r)
{
    cont_state *s = state;
    cont_free(s);
    uint64_t m = 1 + rd_u16(r) % CONT_MAX_M;
    uint32_t k = 1 + rd_u8(r) % BF_K_MAX;
    uint8_t flags = rd_u8(r);
    uint32_t seed = rd_u32(r);
    size_t nbytes = bf_buckets_nbytes(m, BF_CONT_BITS);
    if (nbytes == 0) return;
    s->f.buckets.data = calloc(nbytes, 1);
    s->age = malloc((size_t)m);
    s->expect = calloc((size_t)m, sizeof *s->expect);
    CHECK(s->f.buckets.data && s->age && s->expect);
    memset(s->age, AGE_EMPTY, (size_t)m);
    bf_buckets_init(&s->f.buckets, m, BF_CONT_BITS);
    s->f.k = k;
    s->f.seed = seed;
    s->f.hash = (flags & 1) ? BF_HASH_FNV1A : (flags & 0x80) ? BF_HASH_MURMUR3_MIXED
                                                             : BF_HASH_MURMUR3;
    /* The binding starts at slot 1 (or a copy's slot); any slot must work. */
    s->f.slot = 1 + (uint32_t)(flags >> 1) % BF_CONT_SLOTS;
    s->f.ticks = 0;
    s->slot0 = s->f.slot;
}

static uint32_t cont_slot(const cont_state *s)
{
    return (s->slot0 - 1 + s->tmod) % BF_CONT_SLOTS + 1;
}

/* The slot written `age` ticks ago. */
static uint32_t cont_slot_at_age(const cont_state *s, uint32_t age)
{
    return (cont_slot(s) - 1 + BF_CONT_SLOTS - age) % BF_CONT_SLOTS + 1;
}

/* Ticks from slot start to slot current on the ring (bloombroom's elapsed). */
static uint32_t ring_elapsed(uint32_t start, uint32_t current)
{
    return current >= start ? current - start : current + BF_CONT_SLOTS - start;
}

static int age_live(uint8_t age)
{
    return age <= BF_CONT_DIVISOR; /* AGE_EMPTY is not */
}

static int age_stale(uint8_t age)
{
    return age != AGE_EMPTY && age > BF_CONT_DIVISOR;
}

/* The bucket value of a model age. */
static uint32_t cont_expect(const cont_state *s, uint8_t age)
{
    return age == AGE_EMPTY ? 0 : cont_slot_at_age(s, age);
}

MODEL static uint64_t cont_model_stale(const cont_state *s)
{
    uint64_t n = 0;
    for (uint64_t i = 0; i < s->f.buckets.count; i++) n += age_stale(s->age[i]);
    return n;
}

/* Every bucket equals the model; in particular every live bucket holds one
 * of the 3 live slots, and the filter is valid exactly when no stale slot
 * was planted (and left). */
MODEL static void cont_check_all(cont_state *s, reader *r)
{
    uint32_t cur = cont_slot(s);
    CHECK(s->f.slot == cur && s->f.ticks == s->ticks);
    CHECK(memcmp(s->f.recent_adds, s->recent, sizeof s->recent) == 0);
    CHECK(bf_buckets_count_nonzero(&s->f.buckets) == s->nonzero);
    if (r && !may_scan(r, s->f.buckets.count * BF_CONT_BITS)) return;
    uint64_t stale = 0;
    for (uint64_t i = 0; i < s->f.buckets.count; i++) {
        uint32_t v = bf_buckets_get(&s->f.buckets, i);
        if (age_live(s->age[i])) CHECK(v != 0 && ring_elapsed(v, cur) <= BF_CONT_DIVISOR);
        stale += age_stale(s->age[i]);
        s->expect[i] = cont_expect(s, s->age[i]);
        CHECK(v == s->expect[i]);
    }
    buckets_check_image(s->f.buckets.data, &s->f.buckets, s->expect);
    CHECK(bf_buckets_tail_clear(&s->f.buckets));
    CHECK(bf_continuous_valid(&s->f) == (stale == 0));
}

/* After a lookup of the key at pos[0..k) with clear_expired: each of its
 * buckets is as the model says, or, for a stale one, 0 (the model follows).
 * Returns whether stale buckets were cleared: 1 all, 0 none, -1 none there
 * (a lookup clears all or none). Without clear_expired nothing changes. */
static int cont_after_lookup(cont_state *s, const uint64_t *pos, int clear)
{
    int cleared = -1;
    for (uint32_t i = 0; i < s->f.k; i++) {
        uint8_t a = s->age[pos[i]];
        uint32_t v = bf_buckets_get(&s->f.buckets, pos[i]);
        if (clear && age_stale(a) && v == 0) {
            s->age[pos[i]] = AGE_EMPTY;
            s->nonzero--;
            cleared = cleared == 0 ? 2 : 1;
        } else {
            CHECK(v == cont_expect(s, a));
            if (clear && age_stale(a)) cleared = cleared == 1 ? 2 : 0; /* 2: some, not all */
        }
        CHECK(cleared != 2);
    }
    return cleared;
}

/* Look a key up; the answer must be exactly the model's (all k buckets
 * live). A lookup never changes a live or empty bucket; with clear_expired
 * it clears the stale ones it reads: all of the key's when the first bucket
 * that is not live is stale, all or none (an early exit at an empty one)
 * otherwise. Without planted slots there are none (ticks clear them). */
static int cont_lookup(cont_state *s, const uint8_t *p, size_t n, int clear)
{
    uint64_t pos[BF_K_MAX];
    bf_key_hash h = key_hash(p, n, s->f.seed, s->f.hash);
    positions(h, s->f.hash, s->f.k, s->f.buckets.count, pos);
    int want = 1, first = -1; /* first bucket that is not live: 0 empty, 1 stale */
    for (uint32_t i = 0; i < s->f.k; i++) {
        uint8_t a = s->age[pos[i]];
        want &= age_live(a);
        if (!age_live(a) && first < 0) first = a != AGE_EMPTY;
    }
    CHECK(bf_continuous_lookup(&s->f, h, clear) == want);
    int cleared = cont_after_lookup(s, pos, clear);
    if (clear && first == 1) CHECK(cleared == 1);
    return want;
}

/* What the buckets and clock look like when bf_continuous_tick calls back
 * between advancing and expiring. */
typedef struct {
    const bf_continuous *twin; /* the same tick, done without a callback */
    const uint8_t *before;     /* the buckets before the tick */
    size_t nbytes;
    int called;
} cont_between;

/* Between the halves the clock and the counts of recent adds have moved and
 * the buckets are still untouched. */
static void cont_check_between(void *ctx, const bf_continuous *f)
{
    cont_between *b = ctx;
    b->called++;
    CHECK(memcmp(b->before, f->buckets.data, b->nbytes) == 0);
    CHECK(f->slot == b->twin->slot && f->ticks == b->twin->ticks);
    CHECK(memcmp(f->recent_adds, b->twin->recent_adds, sizeof f->recent_adds) == 0);
}

/* bf_continuous_tick(f, n), or (split) the same with a callback between its
 * halves, which must see the new clock over the old buckets; either must
 * leave exactly what one tick on a copy leaves. */
static void cont_tick_core(cont_state *s, uint64_t n, int split)
{
    if (!split) {
        bf_continuous_tick(&s->f, n, NULL, NULL);
        return;
    }
    size_t nbytes = bf_buckets_nbytes(s->f.buckets.count, BF_CONT_BITS);
    bf_continuous twin = s->f;
    twin.buckets.data = malloc(nbytes);
    uint8_t *before = malloc(nbytes);
    CHECK(twin.buckets.data && before);
    memcpy(twin.buckets.data, s->f.buckets.data, nbytes);
    memcpy(before, s->f.buckets.data, nbytes);
    bf_continuous_tick(&twin, n, NULL, NULL);
    cont_between between = {&twin, before, nbytes, 0};
    bf_continuous_tick(&s->f, n, cont_check_between, &between);
    CHECK(between.called == (n > 0));
    CHECK(memcmp(twin.buckets.data, s->f.buckets.data, nbytes) == 0);
    CHECK(s->f.slot == twin.slot && s->f.ticks == twin.ticks && s->f.k == twin.k && s->f.seed == twin.seed);
    CHECK(memcmp(s->f.recent_adds, twin.recent_adds, sizeof twin.recent_adds) == 0);
    free(twin.buckets.data);
    free(before);
}

/* The model of n ticks: a bucket keeps its slot while that slot is live on
 * the new clock (a stale slot planted a tick or two ahead of the clock comes
 * alive), except that 3 or more ticks clear everything. */
MODEL static void cont_tick(cont_state *s, uint64_t n, reader *r, int split)
{
    cont_tick_core(s, n, split);
    s->ticks += n;
    s->tmod = (uint32_t)((s->tmod + n % BF_CONT_SLOTS) % BF_CONT_SLOTS);
    uint64_t old[BF_CONT_DIVISOR + 1];
    memcpy(old, s->recent, sizeof old);
    for (uint64_t d = 0; d <= BF_CONT_DIVISOR; d++) s->recent[d] = d >= n ? old[d - n] : 0;
    for (uint64_t i = 0; i < s->f.buckets.count && n > 0; i++) {
        if (s->age[i] == AGE_EMPTY) continue;
        uint64_t age = (s->age[i] + n % BF_CONT_SLOTS) % BF_CONT_SLOTS;
        if (n > BF_CONT_DIVISOR || age > BF_CONT_DIVISOR) {
            s->age[i] = AGE_EMPTY;
            s->nonzero--;
        } else {
            s->age[i] = (uint8_t)age;
        }
    }
    /* 3 or more ticks with no add in between: nothing survives. */
    if (n > BF_CONT_DIVISOR) CHECK(bf_buckets_count_nonzero(&s->f.buckets) == 0);
    cont_check_all(s, r);
    /* No false negative: a key added fewer than 3 ticks ago is present.
     * Older adds are dropped from the list (their absence is not guaranteed:
     * other keys may cover their buckets; the bucket model checks that). */
    size_t keep = 0;
    for (size_t i = 0; i < s->keys.len; i++) {
        key_entry e = s->keys.items[i];
        e.age = n > BF_CONT_DIVISOR - e.age ? BF_CONT_DIVISOR + 1 : e.age + n;
        if (e.age > BF_CONT_DIVISOR) continue;
        s->keys.items[keep++] = e;
    }
    s->keys.len = keep;
}

/* One add on the model: every bucket of the key takes the current slot.
 * Returns whether the key was new: one of its buckets was not live (empty,
 * or a stale slot planted), which is what bf_continuous_add returns. */
static int cont_model_add(cont_state *s, const uint64_t *pos, key_ref k)
{
    int live = 1;
    for (uint32_t i = 0; i < s->f.k; i++) live &= age_live(s->age[pos[i]]);
    for (uint32_t i = 0; i < s->f.k; i++) {
        s->nonzero += s->age[pos[i]] == AGE_EMPTY;
        s->age[pos[i]] = 0;
    }
    s->recent[0]++;
    keys_push(&s->keys, k);
    return !live;
}

static void cont_check_keys(cont_state *s, const reader *r)
{
    for (size_t i = 0; i < s->keys.len; i++)
        CHECK(cont_lookup(s, key_ptr(r, s->keys.items[i].key), s->keys.items[i].key.len, 1));
}

void cont_add_op(void *state, reader *r)
{
    cont_state *s = state;
    uint64_t pos[BF_K_MAX];
    key_ref k = rd_key(r);
    if (!s->f.buckets.data) return;
    const uint8_t *p = key_ptr(r, k);
    bf_key_hash h = key_hash(p, k.len, s->f.seed, s->f.hash);
    positions(h, s->f.hash, s->f.k, s->f.buckets.count, pos);
    int fresh = bf_continuous_add(&s->f, h);
    CHECK(fresh == cont_model_add(s, pos, k));
    CHECK(cont_lookup(s, p, k.len, 0));
    CHECK(bf_buckets_count_nonzero(&s->f.buckets) == s->nonzero);
}

/* Tick by 0..20. */
void cont_tick_op(void *state, reader *r)
{
    cont_state *s = state;
    uint64_t n = rd_u8(r) % 21;
    if (!s->f.buckets.data) return;
    cont_tick(s, n, r, 0);
    cont_check_keys(s, r);
}

/* Look up any key. */
void cont_lookup_op(void *state, reader *r)
{
    cont_state *s = state;
    key_ref k = rd_key(r);
    uint8_t clear = rd_u8(r) & 1;
    if (!s->f.buckets.data) return;
    cont_lookup(s, key_ptr(r, k), k.len, clear);
    CHECK(bf_buckets_count_nonzero(&s->f.buckets) == s->nonzero);
}

/* Tick by any count (a long pause: n mod 15 on the ring). */
void cont_tick_big_op(void *state, reader *r)
{
    cont_state *s = state;
    uint64_t n = rd_u64(r);
    if (!s->f.buckets.data) return;
    cont_tick(s, n, r, 0);
    cont_check_keys(s, r);
}

static void cont_final(void *state, const reader *r)
{
    cont_state *s = state;
    if (!s->f.buckets.data) return;
    cont_check_all(s, NULL);
    cont_check_keys(s, r);
}

/* u8 flags: bit 0 add the batch first (bit 2: out NULL; each answer the
 * model's after the keys before it), bit 1 clear_expired for the lookups. */
void cont_batch_op(void *state, reader *r)
{
    cont_state *s = state;
    uint8_t flags = rd_u8(r);
    batch b;
    rd_batch(r, &b, s->f.seed, s->f.hash);
    if (!s->f.buckets.data) return;
    uint64_t pos[BF_K_MAX];
    bf_key_hash *h = exact_hashes(b.h, b.n);
    uint8_t *out = exact_answers(b.n);
    if (flags & 1) {
        uint8_t *fresh = flags & 4 ? NULL : exact_answers(b.n);
        bf_continuous_add_many(&s->f, h, b.n, fresh);
        for (size_t j = 0; j < b.n; j++) {
            positions(b.h[j], s->f.hash, s->f.k, s->f.buckets.count, pos);
            int want = cont_model_add(s, pos, b.keys[j]);
            CHECK(!fresh || fresh[j] == want);
        }
        free(fresh);
    }
    /* Stale buckets (planted) cleared by one lookup do not change a later
     * one's answer, which depends on the live buckets alone. */
    int clear = (flags >> 1) & 1;
    bf_continuous_lookup_many(&s->f, h, b.n, clear, out);
    for (size_t j = 0; j < b.n; j++) {
        positions(b.h[j], s->f.hash, s->f.k, s->f.buckets.count, pos);
        int want = 1;
        for (uint32_t i = 0; i < s->f.k; i++) want &= age_live(s->age[pos[i]]);
        CHECK(!(flags & 1) || want);
        CHECK(out[j] == want);
    }
    for (size_t j = 0; j < b.n; j++) {
        positions(b.h[j], s->f.hash, s->f.k, s->f.buckets.count, pos);
        for (uint32_t i = 0; i < s->f.k; i++) {
            uint8_t a = s->age[pos[i]];
            uint32_t v = bf_buckets_get(&s->f.buckets, pos[i]);
            if (clear && age_stale(a) && v == 0) {
                s->age[pos[i]] = AGE_EMPTY;
                s->nonzero--;
            } else {
                CHECK(v == cont_expect(s, a));
            }
        }
    }
    CHECK(bf_buckets_count_nonzero(&s->f.buckets) == s->nonzero);
    free(h);
    free(out);
}

/* An empty twin starts at any slot of the ring: its clock is its own. */
static void cont_twin(void *twin, const void *first, uint8_t mode, reader *r)
{
    cont_state *t = twin;
    const cont_state *s = first;
    int copy = mode & 1;
    uint8_t slot = (uint8_t)(mode >> 1);
    cont_free(t);
    if (!s->f.buckets.data) return;
    uint64_t m = s->f.buckets.count;
    size_t nbytes = bf_buckets_nbytes(m, BF_CONT_BITS);
    if (copy) {
        *t = *s;
        t->f.buckets.data = dup_bytes(s->f.buckets.data, nbytes);
        t->age = dup_bytes(s->age, (size_t)m);
        t->expect = zeroed((size_t)m * sizeof *t->expect);
        keys_copy(&t->keys, &s->keys);
        return;
    }
    t->f.buckets.data = zeroed(nbytes);
    t->age = malloc((size_t)m);
    CHECK(t->age != NULL);
    memset(t->age, AGE_EMPTY, (size_t)m);
    t->expect = zeroed((size_t)m * sizeof *t->expect);
    bf_buckets_init(&t->f.buckets, m, BF_CONT_BITS);
    t->f.k = s->f.k;
    t->f.seed = s->f.seed;
    t->f.hash = s->f.hash;
    t->f.slot = t->slot0 = 1 + (uint32_t)slot % BF_CONT_SLOTS;
}

/* The continuous filters, on dst's clock, from the ages on each one's own
 * clock: union keeps the younger of the live ages, intersection the older
 * where both are live; anything not live (empty, or a stale planted slot)
 * counts as absent. A key of either history still live there is found in
 * the union for as long as it was there; a key of both in the intersection
 * for as long as the older of the two. recent_adds: summed / the smaller. */
MODEL static void cont_model_merge(cont_state *d, const cont_state *s, const reader *r, int intersect)
{
    for (uint64_t i = 0; i < d->f.buckets.count; i++) {
        uint8_t a = d->age[i], b = s->age[i], n;
        int la = age_live(a), lb = age_live(b);
        if (intersect) n = la && lb ? (a > b ? a : b) : AGE_EMPTY;
        else n = la ? (lb && b < a ? b : a) : (lb ? b : AGE_EMPTY);
        if (a != AGE_EMPTY) d->nonzero--;
        if (n != AGE_EMPTY) d->nonzero++;
        d->age[i] = n;
    }
    for (int j = 0; j <= BF_CONT_DIVISOR; j++) {
        if (intersect) d->recent[j] = s->recent[j] < d->recent[j] ? s->recent[j] : d->recent[j];
        else d->recent[j] += s->recent[j];
    }
    if (intersect) {
        key_index *ix = keys_index(&s->keys, r);
        size_t keep = 0;
        for (size_t i = 0; i < d->keys.len; i++) {
            key_entry e = d->keys.items[i];
            long age = keys_min_age(&s->keys, ix, r, e.key);
            if (age < 0) continue;
            if ((uint64_t)age > e.age) e.age = (uint64_t)age;
            d->keys.items[keep++] = e;
        }
        d->keys.len = keep;
        free(ix);
    } else {
        for (size_t i = 0; i < s->keys.len; i++) {
            keys_push(&d->keys, s->keys.items[i].key);
            d->keys.items[d->keys.len - 1].age = s->keys.items[i].age;
        }
        keys_dedupe(&d->keys, r);
    }
}

static void cont_merge(void *dst, void *src, uint8_t flags, reader *r)
{
    cont_state *d = dst, *s = src;
    int intersect = flags & 1;
    if (!d->f.buckets.data || !s->f.buckets.data || d->f.buckets.count != s->f.buckets.count || d->f.k != s->f.k ||
        d->f.seed != s->f.seed || d->f.hash != s->f.hash || !may_merge(r))
        return;
    if (intersect) bf_continuous_intersect(&d->f, &s->f);
    else bf_continuous_union(&d->f, &s->f);
    cont_model_merge(d, s, r, intersect);
    cont_check_all(d, NULL);
    CHECK(bf_continuous_valid(&d->f)); /* stale slots never survive a merge */
    cont_check_keys(d, r);
    cont_check_all(s, NULL);
}

static void cont_tail(void *state, uint16_t off, uint8_t flags)
{
    cont_state *c = state;
    if (!c->f.buckets.data) return;
    uint64_t stale = cont_model_stale(c), last = c->f.buckets.count - 1;
    tail_buckets(&c->f.buckets, off, flags, &c->f, stale == 0, stale == (uint64_t)age_stale(c->age[last]));
}

/* Keys whose bucket `at` was just overwritten lose their guarantee, unless
 * it now holds a live slot no older than their add. */
MODEL static void cont_drop_keys(cont_state *s, const reader *r, uint64_t at, uint8_t age)
{
    uint64_t pos[BF_K_MAX];
    size_t keep = 0;
    for (size_t i = 0; i < s->keys.len; i++) {
        key_entry e = s->keys.items[i];
        int hit = 0;
        if (!(age_live(age) && age <= e.age)) {
            bf_key_hash h = bf_key_hash_bytes(key_ptr(r, e.key), e.key.len, s->f.seed, s->f.hash);
            bf_positions(h, s->f.hash, s->f.k, s->f.buckets.count, pos);
            for (uint32_t j = 0; j < s->f.k; j++) hit |= pos[j] == at;
        }
        if (!hit) s->keys.items[keep++] = e;
    }
    s->keys.len = keep;
}

MODEL static void cont_model_clear_stale(cont_state *s)
{
    for (uint64_t i = 0; i < s->f.buckets.count; i++)
        if (age_stale(s->age[i])) {
            s->age[i] = AGE_EMPTY;
            s->nonzero--;
        }
}

/* u16 bucket, u8 value (% 16: empty, a live slot or a stale one), u8 flags
 * (bit 0: then bf_continuous_clear_stale). As state read from outside may
 * hold: bf_continuous_valid must say whether any bucket holds a slot that is
 * not live, clear_stale must clear exactly those, and lookups and ticks
 * carry on from there (see cont_lookup and cont_tick). */
void cont_plant_op(void *state, reader *r)
{
    cont_state *s = state;
    uint16_t at = rd_u16(r);
    uint8_t value = rd_u8(r), flags = rd_u8(r);
    if (!s->f.buckets.data || r->plants++ >= MAX_PLANTS) return;
    uint64_t i = at % s->f.buckets.count;
    uint32_t v = value & 15;
    bf_buckets_set(&s->f.buckets, i, v);
    uint8_t age = v == 0 ? AGE_EMPTY : (uint8_t)ring_elapsed(v, cont_slot(s));
    if (s->age[i] != AGE_EMPTY) s->nonzero--;
    if (age != AGE_EMPTY) s->nonzero++;
    s->age[i] = age;
    CHECK(bf_buckets_get(&s->f.buckets, i) == cont_expect(s, age));
    cont_drop_keys(s, r, i, age);
    CHECK(bf_continuous_valid(&s->f) == (cont_model_stale(s) == 0));
    CHECK(bf_buckets_count_nonzero(&s->f.buckets) == s->nonzero);
    if (flags & 1) {
        bf_continuous_clear_stale(&s->f);
        cont_model_clear_stale(s);
        CHECK(bf_continuous_valid(&s->f));
        cont_check_all(s, NULL);
    } else {
        cont_check_all(s, r);
    }
    cont_check_keys(s, r);
}

/* u8 flags (bit 0: a u64 count follows, else a u8 % 21): the tick with a
 * callback between its halves, against bf_continuous_tick on a copy and the
 * model. */
void cont_tick_split_op(void *state, reader *r)
{
    cont_state *s = state;
    uint8_t flags = rd_u8(r);
    uint64_t n = (flags & 1) ? rd_u64(r) : rd_u8(r) % 21;
    if (!s->f.buckets.data) return;
    cont_tick(s, n, r, 1);
    cont_check_keys(s, r);
}
/* -------------------------------------------------------------- models */

const fuzz_model cont_model = {sizeof(cont_state), cont_init, cont_final, cont_free, cont_twin, cont_merge, cont_tail};
