/* The cuckoo filter (bf_cuckoo.c). */
#include "harness.h"

#include <math.h>
#include <string.h>

#include "bf_cuckoo.h"

#include "fields.h"
#include "keys.h"
#include "reference.h"

/* Model: every key added, with the copies of its fingerprint it put in and
 * has not taken out (tally n). A key's place (fingerprint, its two buckets)
 * comes from bf_cuckoo.h's formulas with the portable bf_reduce (see the top
 * of fuzz/harness.h), checked against bf_cuckoo_locate. A fingerprint in bucket b
 * belongs to the pair {b, alt(b, fp)}, whichever of the two it sits in, so
 * the filter is right exactly when the (fingerprint, pair) of its slots are,
 * as a multiset, those of the model's copies: then no key is lost (count is
 * the copies of its class, at least its own), no fingerprint strays from its
 * two buckets, and count is the slots in use. An add that finds no room must
 * leave every byte as it was; one that finds an empty slot in its buckets
 * takes the first (i1 before i2) without a kick; one that kicks moves
 * fingerprints but loses none. A remove takes the first copy of the key's
 * class (i1 before i2), and 0 exactly when there is none: a false positive
 * takes a copy another key of the class put in (any of them: the filter
 * cannot tell them apart, and neither does the model). */
#define CUCKOO_MAX_BUCKETS 64
#define CUCKOO_MAX_SLOTS (CUCKOO_MAX_BUCKETS * BF_CUCKOO_SLOTS)
/* An add that is refused makes 500 kicks and undoes them (some 20 us with
 * the sanitizers), and the filters here fill in a few dozen keys: past an
 * op's first add, each costs CUCKOO_ADD_COST of this, a refused one
 * BF_CUCKOO_KICKS, so that some 64 refusals per input keep it fast. Apart
 * from ADD_BUDGET, which the bitwise filter needs whole. */
#define CUCKOO_BUDGET (64u * BF_CUCKOO_KICKS)
#define CUCKOO_ADD_COST 16

typedef struct {
    bf_cuckoo f;
    uint64_t count; /* the sum of the keys' n */
    tally keys;     /* n: copies in the filter */
} cuckoo_state;

/* A fingerprint and its pair's lower bucket: the unit the model counts. */
typedef struct {
    uint32_t fp;
    uint64_t lo;
} ck_class;

static void cuckoo_free(void *state)
{
    cuckoo_state *s = state;
    free(s->f.slots.data);
    tally_free(&s->keys);
    memset(s, 0, sizeof *s);
}

static size_t ck_nbytes(const cuckoo_state *s)
{
    return bf_buckets_nbytes(s->f.slots.count, s->f.slots.width);
}

/* u8 buckets (% 64 + 1), u8 fingerprint bits (% 25 + 8), u32 seed: few
 * buckets, so that filling, kicking and failing are common. */
static void cuckoo_init(void *state, reader *r)
{
    cuckoo_state *s = state;
    cuckoo_free(s);
    uint64_t n = 1 + rd_u8(r) % CUCKOO_MAX_BUCKETS;
    unsigned bits = BF_CUCKOO_FP_MIN + rd_u8(r) % (BF_CUCKOO_FP_MAX - BF_CUCKOO_FP_MIN + 1);
    uint32_t seed = rd_u32(r);
    bf_cuckoo_init(&s->f, n, bits, seed);
    CHECK(s->f.nbuckets == n && s->f.seed == seed && s->f.count == 0);
    CHECK(s->f.slots.count == n * BF_CUCKOO_SLOTS && s->f.slots.width == bits && s->f.slots.max == width_max(bits));
    s->f.slots.data = calloc(ck_nbytes(s), 1);
    CHECK(s->f.slots.data != NULL);
}

/* alt(i, fp) = (H - i) mod n, H = fmix64(fp) reduced to [0, n). */
static uint64_t ck_alt(const bf_cuckoo *f, uint64_t i, uint32_t fp)
{
    uint64_t h = bf_reduce(ref_fmix64(fp), f->nbuckets);
    CHECK(h < f->nbuckets && i < f->nbuckets);
    return (h + f->nbuckets - i) % f->nbuckets;
}

static bf_cuckoo_place ck_place(const cuckoo_state *s, bf_key_hash h)
{
    bf_cuckoo_place p, got = bf_cuckoo_locate(&s->f, h);
    p.fp = (uint32_t)bf_reduce(h.h2, s->f.slots.max) + 1; /* floor(h2 * (2^f - 1) / 2^64) + 1 */
    p.i1 = bf_reduce(h.h1, s->f.nbuckets);
    p.i2 = ck_alt(&s->f, p.i1, p.fp);
    CHECK(p.fp >= 1 && p.fp <= s->f.slots.max);
    CHECK(ck_alt(&s->f, p.i2, p.fp) == p.i1); /* its own inverse */
    CHECK(got.fp == p.fp && got.i1 == p.i1 && got.i2 == p.i2);
    return p;
}

static ck_class ck_class_of(uint32_t fp, uint64_t a, uint64_t b)
{
    ck_class c = {fp, a < b ? a : b};
    return c;
}

MODEL static unsigned ck_copies_in(const cuckoo_state *s, uint64_t b, uint32_t fp)
{
    unsigned n = 0;
    for (uint64_t j = b * BF_CUCKOO_SLOTS; j < (b + 1) * BF_CUCKOO_SLOTS; j++) n += bf_buckets_get(&s->f.slots, j) == fp;
    return n;
}

/* Copies of the key's class in the filter (its two buckets, once if one). */
static unsigned ck_slots_of(const cuckoo_state *s, bf_cuckoo_place p)
{
    return ck_copies_in(s, p.i1, p.fp) + (p.i2 != p.i1 ? ck_copies_in(s, p.i2, p.fp) : 0);
}

/* Copies of the class the model holds: the n of every key in it. */
MODEL static uint64_t ck_model_of(const cuckoo_state *s, bf_cuckoo_place p)
{
    ck_class want = ck_class_of(p.fp, p.i1, p.i2);
    uint64_t n = 0;
    for (size_t i = 0; i < s->keys.len; i++) {
        const tally_entry *e = &s->keys.items[i];
        if (!e->n) continue;
        bf_cuckoo_place q = bf_cuckoo_locate(&s->f, e->h);
        ck_class c = ck_class_of(q.fp, q.i1, q.i2);
        if (c.fp == want.fp && c.lo == want.lo) n += e->n;
    }
    return n;
}

/* One key against the filter and the model: count exactly its class's
 * copies (never below its own), include? when there is one. */
static unsigned ck_lookup(const cuckoo_state *s, const reader *r, key_ref k, bf_key_hash h)
{
    bf_cuckoo_place p = ck_place(s, h);
    unsigned got = bf_cuckoo_count(&s->f, h), slots = ck_slots_of(s, p);
    CHECK(got == slots && got <= 2 * BF_CUCKOO_SLOTS);
    CHECK(bf_cuckoo_contains(&s->f, h) == (got > 0));
    CHECK(ck_model_of(s, p) == got);
    long i = tally_find(&s->keys, r, k, h);
    if (i >= 0) CHECK(got >= s->keys.items[i].n);
    return got;
}

MODEL static void ck_snapshot(const cuckoo_state *s, uint32_t *out)
{
    for (uint64_t j = 0; j < s->f.slots.count; j++) out[j] = bf_buckets_get(&s->f.slots, j);
}

MODEL static int ck_class_cmp(const void *a, const void *b)
{
    const ck_class *x = a, *y = b;
    if (x->fp != y->fp) return x->fp < y->fp ? -1 : 1;
    return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* The classes of the slots in use, sorted; their number. */
MODEL static size_t ck_slot_classes(const cuckoo_state *s, ck_class *out)
{
    size_t n = 0;
    for (uint64_t j = 0; j < s->f.slots.count; j++) {
        uint32_t v = bf_buckets_get(&s->f.slots, j);
        if (!v) continue;
        uint64_t b = j / BF_CUCKOO_SLOTS;
        out[n++] = ck_class_of(v, b, ck_alt(&s->f, b, v));
    }
    qsort(out, n, sizeof *out, ck_class_cmp);
    return n;
}

/* The model's copies as classes, sorted (at most max of them). */
MODEL static size_t ck_model_classes(const cuckoo_state *s, ck_class *out, size_t max)
{
    size_t n = 0;
    for (size_t i = 0; i < s->keys.len; i++) {
        const tally_entry *e = &s->keys.items[i];
        bf_cuckoo_place p = bf_cuckoo_locate(&s->f, e->h);
        CHECK(e->n <= max - n);
        for (uint64_t c = 0; c < e->n; c++) out[n++] = ck_class_of(p.fp, p.i1, p.i2);
    }
    qsort(out, n, sizeof *out, ck_class_cmp);
    return n;
}

/* Whether sorted a[0..na) is a sub-multiset of sorted b[0..nb). */
MODEL static int ck_classes_within(const ck_class *a, size_t na, const ck_class *b, size_t nb)
{
    size_t j = 0;
    for (size_t i = 0; i < na; i++) {
        while (j < nb && ck_class_cmp(&b[j], &a[i]) < 0) j++;
        if (j == nb || ck_class_cmp(&b[j], &a[i]) != 0) return 0;
        j++;
    }
    return 1;
}

static void ck_check_counts(const cuckoo_state *s)
{
    CHECK(s->f.count == s->count && s->count <= s->f.slots.count);
}

/* Every slot and key: the slots' classes are the model's copies. */
MODEL static void cuckoo_check_all(void *state, const reader *r)
{
    const cuckoo_state *s = state;
    if (!s->f.slots.data) return;
    ck_check_counts(s);
    CHECK(bf_buckets_count_nonzero(&s->f.slots) == s->f.count);
    CHECK(bf_buckets_tail_clear(&s->f.slots));
    static ck_class have[CUCKOO_MAX_SLOTS], want[CUCKOO_MAX_SLOTS];
    size_t nh = ck_slot_classes(s, have), nw = ck_model_classes(s, want, CUCKOO_MAX_SLOTS);
    CHECK(nh == nw && nh == s->count);
    for (size_t i = 0; i < nh; i++) CHECK(ck_class_cmp(&have[i], &want[i]) == 0);
    for (size_t i = 0; i < s->keys.len; i++) ck_lookup(s, r, s->keys.items[i].key, s->keys.items[i].h);
}

/* For qsort: uint32s in order. */
MODEL static int u32_cmp(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* The first slot of bucket b holding v, or UINT64_MAX. */
static uint64_t ck_first(const uint32_t *slots, uint64_t b, uint32_t v)
{
    for (uint64_t j = b * BF_CUCKOO_SLOTS; j < (b + 1) * BF_CUCKOO_SLOTS; j++)
        if (slots[j] == v) return j;
    return UINT64_MAX;
}

/* The slots before and after differ at `at` alone, from `was` to `now`. */
MODEL static void ck_check_one_change(const cuckoo_state *s, const uint32_t *before, uint64_t at, uint32_t now)
{
    for (uint64_t j = 0; j < s->f.slots.count; j++) CHECK(bf_buckets_get(&s->f.slots, j) == (j == at ? now : before[j]));
    CHECK(bf_buckets_tail_clear(&s->f.slots));
}

/* One add: 0 only with both buckets full, and then not a byte changed;
 * an empty slot of i1 (else i2) taken as it is; a kick moves fingerprints
 * but loses none. Returns the add's answer. */
static int ck_add(cuckoo_state *s, reader *r, key_ref k, bf_key_hash h)
{
    static uint32_t before[CUCKOO_MAX_SLOTS + 1], after[CUCKOO_MAX_SLOTS + 1];
    static uint8_t bytes[CUCKOO_MAX_SLOTS * 4 + 8];
    uint64_t n = s->f.slots.count;
    size_t nbytes = ck_nbytes(s);
    CHECK(nbytes <= sizeof bytes);
    bf_cuckoo_place p = ck_place(s, h);
    ck_snapshot(s, before);
    memcpy(bytes, s->f.slots.data, nbytes);
    unsigned had = ck_slots_of(s, p);
    uint64_t empty = ck_first(before, p.i1, 0);
    if (empty == UINT64_MAX) empty = ck_first(before, p.i2, 0);
    if (!bf_cuckoo_add(&s->f, h)) {
        CHECK(empty == UINT64_MAX); /* a free slot of its own is never refused */
        CHECK(memcmp(bytes, s->f.slots.data, nbytes) == 0);
        ck_check_counts(s);
        CHECK(ck_lookup(s, r, k, h) == had);
        return 0;
    }
    tally_get(&s->keys, r, k, h)->n++;
    s->count++;
    ck_check_counts(s);
    if (empty != UINT64_MAX) {
        ck_check_one_change(s, before, empty, p.fp);
    } else {
        /* Kicked: the slots hold what they held and the new fingerprint,
         * one empty slot fewer (the classes are checked with the rest). */
        ck_snapshot(s, after);
        before[n] = p.fp;
        after[n] = 0;
        qsort(before, (size_t)n + 1, sizeof *before, u32_cmp);
        qsort(after, (size_t)n + 1, sizeof *after, u32_cmp);
        CHECK(memcmp(before, after, ((size_t)n + 1) * sizeof *before) == 0);
        CHECK(bf_buckets_tail_clear(&s->f.slots));
    }
    CHECK(ck_lookup(s, r, k, h) == had + 1);
    return 1;
}

/* One remove: 1 exactly when the key's class has a copy, which goes from
 * the first slot holding it (i1 before i2) and nowhere else; the model
 * takes it from the key, or from another key of its class (a false
 * positive). */
static void ck_remove(cuckoo_state *s, const reader *r, key_ref k, bf_key_hash h)
{
    static uint32_t before[CUCKOO_MAX_SLOTS];
    bf_cuckoo_place p = ck_place(s, h);
    ck_snapshot(s, before);
    unsigned had = ck_slots_of(s, p);
    uint64_t at = ck_first(before, p.i1, p.fp);
    if (at == UINT64_MAX) at = ck_first(before, p.i2, p.fp);
    int got = bf_cuckoo_remove(&s->f, h);
    CHECK(got == (had > 0) && got == (at != UINT64_MAX));
    if (got) {
        long i = tally_find(&s->keys, r, k, h);
        tally_entry *e = i >= 0 && s->keys.items[i].n > 0 ? &s->keys.items[i] : NULL;
        ck_class want = ck_class_of(p.fp, p.i1, p.i2);
        for (size_t j = 0; !e && j < s->keys.len; j++) {
            tally_entry *o = &s->keys.items[j];
            bf_cuckoo_place q = bf_cuckoo_locate(&s->f, o->h);
            ck_class c = ck_class_of(q.fp, q.i1, q.i2);
            if (o->n > 0 && c.fp == want.fp && c.lo == want.lo) e = o;
        }
        CHECK(e != NULL); /* a copy no key of the model put in */
        e->n--;
        s->count--;
    }
    ck_check_counts(s);
    ck_check_one_change(s, before, at, 0);
    CHECK(ck_lookup(s, r, k, h) == had - (unsigned)got);
}

/* Whether one more add may run (see CUCKOO_BUDGET), and pay for it. */
static int ck_may_add(reader *r) { return CUCKOO_BUDGET - r->cuckoo_adds >= BF_CUCKOO_KICKS; }

static void ck_spend(reader *r, int added)
{
    uint64_t cost = added ? CUCKOO_ADD_COST : BF_CUCKOO_KICKS;
    r->cuckoo_adds = cost > CUCKOO_BUDGET - r->cuckoo_adds ? CUCKOO_BUDGET : r->cuckoo_adds + cost;
}

/* A key, u8 t: the same key t % 16 + 1 times: its class fills, then kicks. */
void cuckoo_add_op(void *state, reader *r)
{
    cuckoo_state *s = state;
    key_ref k = rd_key(r);
    unsigned times = 1 + rd_u8(r) % MAX_REPEAT;
    if (!s->f.slots.data) return;
    bf_key_hash h = mm_hash(r, k, s->f.seed);
    for (unsigned t = 0; t < times; t++) {
        if (t > 0 && !ck_may_add(r)) break;
        ck_spend(r, ck_add(s, r, k, h));
    }
}

/* A key: each of its suffixes, longest first, added once; up to 255 keys
 * from one fill the filter and kick. */
void cuckoo_fill_op(void *state, reader *r)
{
    cuckoo_state *s = state;
    key_ref k = rd_key(r);
    if (!s->f.slots.data) return;
    for (size_t j = 0; j < k.len; j++) {
        if (j > 0 && !ck_may_add(r)) break;
        key_ref sub = {k.off + j, k.len - j};
        ck_spend(r, ck_add(s, r, sub, mm_hash(r, sub, s->f.seed)));
    }
}

/* Remove any key. */
void cuckoo_remove_op(void *state, reader *r)
{
    cuckoo_state *s = state;
    key_ref k = rd_key(r);
    if (!s->f.slots.data) return;
    ck_remove(s, r, k, mm_hash(r, k, s->f.seed));
}

/* Remove a key given before (u8 index). */
void cuckoo_remove_known_op(void *state, reader *r)
{
    cuckoo_state *s = state;
    tally_entry e;
    if (rd_known_key(r, &s->keys, s->f.slots.data != NULL, &e)) ck_remove(s, r, e.key, e.h);
}

/* Count any key. */
void cuckoo_count_op(void *state, reader *r)
{
    cuckoo_state *s = state;
    key_ref k = rd_key(r);
    if (!s->f.slots.data) return;
    ck_lookup(s, r, k, mm_hash(r, k, s->f.seed));
}

/* Everything, while the scan budget lasts. */
void cuckoo_check_op(void *state, reader *r)
{
    cuckoo_state *s = state;
    if (!s->f.slots.data) return;
    ck_check_counts(s);
    CHECK(bf_buckets_count_nonzero(&s->f.slots) == s->count);
    if (may_scan(r, s->f.slots.count * 64 + (uint64_t)s->keys.len * 64)) cuckoo_check_all(s, r);
}

/* An empty twin has the first's shape and seed. */
static void cuckoo_twin(void *twin, const void *first, uint8_t mode, reader *r)
{
    cuckoo_state *t = twin;
    const cuckoo_state *s = first;
    int copy = mode & 1;
    cuckoo_free(t);
    if (!s->f.slots.data) return;
    size_t nbytes = ck_nbytes(s);
    if (copy) {
        *t = *s;
        t->f.slots.data = dup_bytes(s->f.slots.data, nbytes);
        tally_copy(&t->keys, &s->keys);
        return;
    }
    bf_cuckoo_init(&t->f, s->f.nbuckets, s->f.slots.width, s->f.seed);
    t->f.slots.data = zeroed(nbytes);
}

/* Cuckoo: bf_cuckoo_union of filters of the same shape and seed, as the
 * binding's combine does it: on a copy that is put back when it answers 0.
 * src never changes. On success dst holds the copies of both (its classes
 * are both models', so every key of either is found) and count is the sum;
 * on failure (no room for one of src's fingerprints, which is allowed) the
 * part-way dst is still a filter: count its slots in use, every copy it
 * held still there, none that neither had. */
static void cuckoo_union(void *dst, void *src, uint8_t flags, reader *r)
{
    cuckoo_state *d = dst, *s = src;
    if (!d->f.slots.data || !s->f.slots.data || d->f.nbuckets != s->f.nbuckets ||
        d->f.slots.width != s->f.slots.width || d->f.seed != s->f.seed || !may_merge(r))
        return;
    static ck_class own[CUCKOO_MAX_SLOTS], theirs[CUCKOO_MAX_SLOTS], both[2 * CUCKOO_MAX_SLOTS], now[CUCKOO_MAX_SLOTS];
    size_t nbytes = ck_nbytes(d);
    uint8_t *dst_was = dup_bytes(d->f.slots.data, nbytes), *src_was = dup_bytes(s->f.slots.data, nbytes);
    uint64_t count = d->f.count;
    int ok = bf_cuckoo_union(&d->f, &s->f);
    CHECK(memcmp(src_was, s->f.slots.data, nbytes) == 0);
    ck_check_counts(s);
    if (ok) {
        CHECK(d->f.count == count + s->f.count);
        for (size_t i = 0; i < s->keys.len; i++) {
            const tally_entry *e = &s->keys.items[i];
            if (e->n) tally_get(&d->keys, r, e->key, e->h)->n += e->n;
        }
        d->count += s->count;
    } else {
        CHECK(bf_buckets_count_nonzero(&d->f.slots) == d->f.count && d->f.count >= count);
        CHECK(bf_buckets_tail_clear(&d->f.slots));
        size_t nn = ck_slot_classes(d, now), no = ck_model_classes(d, own, CUCKOO_MAX_SLOTS);
        size_t nt = ck_model_classes(s, theirs, CUCKOO_MAX_SLOTS);
        memcpy(both, own, no * sizeof *own);
        memcpy(both + no, theirs, nt * sizeof *theirs);
        qsort(both, no + nt, sizeof *both, ck_class_cmp);
        CHECK(ck_classes_within(own, no, now, nn) && ck_classes_within(now, nn, both, no + nt));
        memcpy(d->f.slots.data, dst_was, nbytes);
        d->f.count = count;
    }
    free(dst_was);
    free(src_was);
    cuckoo_check_all(d, r);
    cuckoo_check_all(s, r);
}

/* The last slot set to the largest fingerprint and back. */
static void cuckoo_tail(void *state, uint16_t off, uint8_t flags)
{
    cuckoo_state *s = state;
    if (s->f.slots.data) tail_buckets(&s->f.slots, off, flags, NULL, 1, 1);
}

const fuzz_model cuckoo_model = {sizeof(cuckoo_state), cuckoo_init, cuckoo_check_all, cuckoo_free, cuckoo_twin, cuckoo_union, cuckoo_tail};
