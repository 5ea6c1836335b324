/* The A2 filter (bf_a2.c): two halves that swap. */
#include "harness.h"

#include <math.h>
#include <string.h>

#include "bf_a2.h"

#include "fields.h"
#include "keys.h"
#include "reference.h"

#define A2_MAX_BITS 2048 /* per half */
#define A2_MAX_CAPACITY 48

/* Model: two halves, a byte per bit. An add of a key not in the active half
 * first swaps when the active half holds `capacity` keys (the other half is
 * cleared and becomes the active one), then sets the key's bits there. A key
 * added since the last swap or in the epoch before is always found. */
typedef struct {
    bf_a2 f;
    uint8_t *model[2];
    unsigned active;
    uint64_t in_active, count, swaps;
    tally keys; /* last: swaps so far at the key's last add */
} a2_state;

static void a2_free(void *state)
{
    a2_state *s = state;
    for (int i = 0; i < 2; i++) {
        free(s->f.halves[i].data);
        free(s->model[i]);
    }
    tally_free(&s->keys);
    memset(s, 0, sizeof *s);
}

static void a2_init(void *state, reader *r)
{
    a2_state *s = state;
    a2_free(s);
    uint64_t nbits = 1 + rd_u16(r) % A2_MAX_BITS;
    uint32_t k = 1 + rd_u8(r) % BF_K_MAX;
    uint64_t capacity = 1 + rd_u8(r) % A2_MAX_CAPACITY;
    uint32_t seed = rd_u32(r);
    /* The binding has both halves in one block; apart here, so that ASan
     * sees an overrun of the first. */
    for (int i = 0; i < 2; i++) {
        s->f.halves[i].data = calloc(bf_bits_nbytes(nbits), 1);
        s->f.halves[i].nbits = nbits;
        s->model[i] = calloc((size_t)nbits, 1);
        CHECK(s->f.halves[i].data && s->model[i]);
    }
    s->f.k = k;
    s->f.seed = seed;
    s->f.capacity = capacity;
}

MODEL static int a2_model_half(const a2_state *s, unsigned half, const uint64_t *pos)
{
    return bits_model_has(s->model[half], pos, s->f.k);
}

static void a2_check_counts(const a2_state *s)
{
    CHECK(s->f.active == s->active && s->f.in_active == s->in_active);
    CHECK(s->f.count == s->count && s->f.swaps == s->swaps);
}

/* A half's whole byte image, padding zero. */
MODEL static void a2_check_half(const a2_state *s, unsigned half)
{
    const bf_bits *b = &s->f.halves[half];
    uint64_t ones = 0;
    for (uint64_t i = 0; i < b->nbits; i++) ones += s->model[half][i];
    bits_check_image(b, s->model[half]);
    CHECK(bf_bits_count(b) == ones);
}

static int a2_lookup(const a2_state *s, const reader *r, key_ref k, bf_key_hash h)
{
    uint64_t pos[BF_K_MAX];
    positions(h, BF_HASH_MURMUR3, s->f.k, s->f.halves[0].nbits, pos);
    int want = a2_model_half(s, 0, pos) || a2_model_half(s, 1, pos);
    CHECK(bf_a2_contains(&s->f, h) == want);
    long i = tally_find(&s->keys, r, k, h);
    if (i >= 0 && s->swaps - s->keys.items[i].last <= 1) CHECK(want);
    return want;
}

MODEL static void a2_check_all(void *state, const reader *r)
{
    const a2_state *s = state;
    if (!s->f.halves[0].data) return;
    a2_check_counts(s);
    for (size_t i = 0; i < s->keys.len; i++) a2_lookup(s, r, s->keys.items[i].key, s->keys.items[i].h);
    a2_check_half(s, 0);
    a2_check_half(s, 1);
}

void a2_add_op(void *state, reader *r)
{
    a2_state *s = state;
    key_ref k = rd_key(r);
    if (!s->f.halves[0].data) return;
    uint64_t pos[BF_K_MAX];
    bf_key_hash h = mm_hash(r, k, s->f.seed);
    positions(h, BF_HASH_MURMUR3, s->f.k, s->f.halves[0].nbits, pos);
    int fresh = !a2_model_half(s, 0, pos) && !a2_model_half(s, 1, pos); /* in neither half */
    CHECK(bf_a2_add(&s->f, h, 1) == fresh);
    s->count++;
    int swapped = 0;
    if (!a2_model_half(s, s->active, pos)) {
        if (s->in_active >= s->f.capacity) {
            s->active ^= 1;
            memset(s->model[s->active], 0, (size_t)s->f.halves[0].nbits);
            s->in_active = 0;
            s->swaps++;
            swapped = 1;
        }
        for (uint32_t i = 0; i < s->f.k; i++) s->model[s->active][pos[i]] = 1;
        s->in_active++;
    }
    tally_get(&s->keys, r, k, h)->last = s->swaps;
    a2_check_counts(s);
    /* The half just cleared holds this key's bits only. */
    if (swapped && may_scan(r, s->f.halves[0].nbits)) a2_check_half(s, s->active);
    for (uint32_t i = 0; i < s->f.k; i++)
        for (unsigned half = 0; half < 2; half++)
            CHECK(bf_bits_get(&s->f.halves[half], pos[i]) == s->model[half][pos[i]]);
    CHECK(a2_lookup(s, r, k, h));
}

/* Any key. */
void a2_contains_op(void *state, reader *r)
{
    a2_state *s = state;
    key_ref k = rd_key(r);
    if (!s->f.halves[0].data) return;
    a2_lookup(s, r, k, mm_hash(r, k, s->f.seed));
}

/* Everything, while the scan budget lasts. */
void a2_check_op(void *state, reader *r)
{
    a2_state *s = state;
    if (!s->f.halves[0].data) return;
    a2_check_counts(s);
    if (may_scan(r, 2 * s->f.halves[0].nbits + (uint64_t)s->keys.len * s->f.k * 8)) a2_check_all(s, r);
}

static void a2_twin(void *twin, const void *first, uint8_t mode, reader *r)
{
    a2_state *t = twin;
    const a2_state *s = first;
    int copy = mode & 1;
    a2_free(t);
    if (!s->f.halves[0].data) return;
    uint64_t nbits = s->f.halves[0].nbits;
    size_t nbytes = bf_bits_nbytes(nbits);
    if (copy) {
        *t = *s;
        for (int i = 0; i < 2; i++) {
            t->f.halves[i].data = dup_bytes(s->f.halves[i].data, nbytes);
            t->model[i] = dup_bytes(s->model[i], (size_t)nbits);
        }
        tally_copy(&t->keys, &s->keys);
        return;
    }
    for (int i = 0; i < 2; i++) {
        t->f.halves[i].data = zeroed(nbytes);
        t->f.halves[i].nbits = nbits;
        t->model[i] = zeroed((size_t)nbits);
    }
    t->f.k = s->f.k;
    t->f.seed = s->f.seed;
    t->f.capacity = s->f.capacity;
}

/* A2: active half with active half, older with older, OR or AND; in_active
 * the smaller of the two (so no input's key is dropped sooner), count
 * summed (union) or the smaller, dst's swaps
 * and active half kept. A key's age in swaps (0: in the active half, 1: in
 * the older one, 2: not sure) is the younger of its two in a union; in an
 * intersection a key stays sure only in the same half of both. */
MODEL static void a2_model_merge(a2_state *d, const a2_state *s, const reader *r, int intersect)
{
    uint64_t nbits = d->f.halves[0].nbits;
    for (unsigned h = 0; h < 2; h++) {
        uint8_t *dm = d->model[d->active ^ h];
        const uint8_t *sm = s->model[s->active ^ h];
        for (uint64_t i = 0; i < nbits; i++) dm[i] = intersect ? (dm[i] & sm[i]) : (dm[i] | sm[i]);
    }
    if (intersect) {
        if (s->in_active < d->in_active) d->in_active = s->in_active;
        if (s->count < d->count) d->count = s->count;
    } else {
        if (s->in_active < d->in_active) d->in_active = s->in_active;
        d->count = s->count > UINT64_MAX - d->count ? UINT64_MAX : d->count + s->count;
    }
    key_index *ix = tally_index(intersect ? &s->keys : &d->keys);
    size_t dlen = d->keys.len;
    for (size_t i = 0; i < dlen; i++) {
        tally_entry *e = &d->keys.items[i];
        uint64_t age = d->swaps - e->last;
        if (age > 2) age = 2;
        if (intersect) {
            long j = tally_find_indexed(&s->keys, s->keys.len, ix, r, e->key, e->h);
            uint64_t as = j < 0 ? 2 : s->swaps - s->keys.items[j].last;
            if (as != age) age = 2;
        }
        e->last = d->swaps - age;
    }
    if (!intersect) {
        for (size_t i = 0; i < s->keys.len; i++) {
            const tally_entry *e = &s->keys.items[i];
            uint64_t age = s->swaps - e->last;
            if (age > 2) age = 2;
            long j = tally_find_indexed(&d->keys, dlen, ix, r, e->key, e->h);
            if (j < 0) {
                tally_entry n = *e;
                n.last = d->swaps - age;
                tally_push(&d->keys, &n);
            } else if (d->swaps - d->keys.items[j].last > age) {
                d->keys.items[j].last = d->swaps - age;
            }
        }
    }
    free(ix);
}

static void a2_merge(void *dst, void *src, uint8_t flags, reader *r)
{
    a2_state *d = dst, *s = src;
    int intersect = flags & 1;
    if (!d->f.halves[0].data || !s->f.halves[0].data || d->f.halves[0].nbits != s->f.halves[0].nbits ||
        d->f.k != s->f.k || d->f.seed != s->f.seed || d->f.capacity != s->f.capacity || !may_merge(r))
        return;
    if (intersect) bf_a2_intersect(&d->f, &s->f);
    else bf_a2_union(&d->f, &s->f);
    a2_model_merge(d, s, r, intersect);
    a2_check_all(d, r);
    a2_check_all(s, r);
}

/* One of the two halves (bit 0 of off), the rest of off in its padding. */
static void a2_tail(void *state, uint16_t off, uint8_t flags)
{
    a2_state *s = state;
    if (s->f.halves[0].data) tail_bits(&s->f.halves[off & 1], (uint16_t)(off >> 1), flags);
}

const fuzz_model a2_model = {sizeof(a2_state), a2_init, a2_check_all, a2_free, a2_twin, a2_merge, a2_tail};
