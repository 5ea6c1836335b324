/* The keys the models keep of what they were given: lists (with an age),
 * tallies (with true counts), their merges, and batches read from the
 * input. */
#include "keys.h"

#include <string.h>

#include "reference.h"

void keys_push(key_list *l, key_ref k)
{
    if (l->len == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 64;
        key_entry *p = realloc(l->items, cap * sizeof *p);
        CHECK(p != NULL);
        l->items = p;
        l->cap = cap;
    }
    l->items[l->len].key = k;
    l->items[l->len].age = 0;
    l->len++;
}

void keys_free(key_list *l)
{
    free(l->items);
    l->items = NULL;
    l->len = l->cap = 0;
}

void rd_batch(reader *r, batch *b, uint32_t seed, bf_hash_kind kind)
{
    b->n = 1 + rd_u8(r) % BATCH_MAX;
    for (size_t i = 0; i < b->n; i++) {
        b->keys[i] = rd_key(r);
        b->h[i] = key_hash(key_ptr(r, b->keys[i]), b->keys[i].len, seed, kind);
    }
}

/* The batch functions get heap blocks of exactly n hashes and n answers: a
 * look-ahead that reads h[n] or later (it only prefetches, so the answers
 * would not show it) or a write past out[n - 1] is an ASan report, where the
 * spare room of a BATCH_MAX array would hide it. */
bf_key_hash *exact_hashes(const bf_key_hash *h, size_t n)
{
    bf_key_hash *copy = malloc(n * sizeof *copy);
    CHECK(copy != NULL || n == 0);
    if (n) memcpy(copy, h, n * sizeof *copy);
    return copy;
}

uint8_t *exact_answers(size_t n)
{
    uint8_t *out = malloc(n);
    CHECK(out != NULL || n == 0);
    if (n) memset(out, 0xA5, n); /* neither 0 nor 1: an answer left unwritten shows */
    return out;
}

void tally_free(tally *t)
{
    free(t->items);
    memset(t, 0, sizeof *t);
}

/* Index of the key, or -1. */
MODEL long tally_find(const tally *t, const reader *r, key_ref k, bf_key_hash h)
{
    for (size_t i = 0; i < t->len; i++) {
        const tally_entry *e = &t->items[i];
        if (e->h.h1 == h.h1 && e->h.h2 == h.h2 && e->key.len == k.len &&
            (k.len == 0 || memcmp(key_ptr(r, e->key), key_ptr(r, k), k.len) == 0))
            return (long)i;
    }
    return -1;
}

/* The key's entry, made (all zero) when it is new. */
MODEL tally_entry *tally_get(tally *t, const reader *r, key_ref k, bf_key_hash h)
{
    long i = tally_find(t, r, k, h);
    if (i >= 0) return &t->items[i];
    if (t->len == t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 32;
        tally_entry *p = realloc(t->items, cap * sizeof *p);
        CHECK(p != NULL);
        t->items = p;
        t->cap = cap;
    }
    tally_entry *e = &t->items[t->len++];
    memset(e, 0, sizeof *e);
    e->key = k;
    e->h = h;
    return e;
}

void keys_copy(key_list *d, const key_list *s)
{
    d->items = dup_bytes(s->items, s->len * sizeof *s->items);
    d->len = d->cap = s->len;
}

int rd_known_key(reader *r, const tally *keys, int have, tally_entry *e)
{
    uint8_t which = rd_u8(r);
    if (!have || keys->len == 0) return 0;
    *e = keys->items[which % keys->len];
    return 1;
}

void tally_copy(tally *d, const tally *s)
{
    d->items = dup_bytes(s->items, s->len * sizeof *s->items);
    d->len = d->cap = s->len;
}

void tally_push(tally *t, const tally_entry *e)
{
    if (t->len == t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 32;
        tally_entry *p = realloc(t->items, cap * sizeof *p);
        CHECK(p != NULL);
        t->items = p;
        t->cap = cap;
    }
    t->items[t->len++] = *e;
}

static int same_key(const reader *r, key_ref a, key_ref b)
{
    return a.len == b.len && (a.len == 0 || memcmp(key_ptr(r, a), key_ptr(r, b), a.len) == 0);
}

MODEL static int key_index_cmp(const void *a, const void *b)
{
    const key_index *x = a, *y = b;
    if (x->h1 != y->h1) return x->h1 < y->h1 ? -1 : 1;
    if (x->h2 != y->h2) return x->h2 < y->h2 ? -1 : 1;
    return x->i < y->i ? -1 : x->i > y->i;
}

/* FNV-1a over a key's bytes: only to sort the keys of a key_list. */
MODEL static uint64_t model_bytes_hash(const uint8_t *p, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 0x100000001b3ULL;
    return h;
}

MODEL key_index *tally_index(const tally *t)
{
    key_index *ix = malloc((t->len ? t->len : 1) * sizeof *ix);
    CHECK(ix != NULL);
    for (size_t i = 0; i < t->len; i++) {
        ix[i].h1 = t->items[i].h.h1;
        ix[i].h2 = t->items[i].h.h2;
        ix[i].i = i;
    }
    qsort(ix, t->len, sizeof *ix, key_index_cmp);
    return ix;
}

/* First position in ix[0..n) whose hash is not below (h1, h2). */
MODEL static size_t index_lower(const key_index *ix, size_t n, uint64_t h1, uint64_t h2)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (ix[mid].h1 < h1 || (ix[mid].h1 == h1 && ix[mid].h2 < h2)) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* The entry for key k among the first n of t, sorted in ix, or -1. */
MODEL long tally_find_indexed(const tally *t, size_t n, const key_index *ix, const reader *r, key_ref k, bf_key_hash h)
{
    for (size_t j = index_lower(ix, n, h.h1, h.h2); j < n && ix[j].h1 == h.h1 && ix[j].h2 == h.h2; j++)
        if (same_key(r, t->items[ix[j].i].key, k)) return (long)ix[j].i;
    return -1;
}

MODEL key_index *keys_index(const key_list *l, const reader *r)
{
    key_index *ix = malloc((l->len ? l->len : 1) * sizeof *ix);
    CHECK(ix != NULL);
    for (size_t i = 0; i < l->len; i++) {
        ix[i].h1 = model_bytes_hash(key_ptr(r, l->items[i].key), l->items[i].key.len);
        ix[i].h2 = 0;
        ix[i].i = i;
    }
    qsort(ix, l->len, sizeof *ix, key_index_cmp);
    return ix;
}

/* The smallest age of key k in l (sorted in ix), or -1 when it is not there. */
MODEL long keys_min_age(const key_list *l, const key_index *ix, const reader *r, key_ref k)
{
    long best = -1;
    uint64_t h = model_bytes_hash(key_ptr(r, k), k.len);
    for (size_t j = index_lower(ix, l->len, h, 0); j < l->len && ix[j].h1 == h; j++) {
        const key_entry *e = &l->items[ix[j].i];
        if (same_key(r, e->key, k) && (best < 0 || e->age < (uint64_t)best)) best = (long)e->age;
    }
    return best;
}

/* One entry per key, the youngest (the one whose guarantee lasts longest). */
MODEL void keys_dedupe(key_list *l, const reader *r)
{
    if (l->len < 2) return;
    key_index *ix = keys_index(l, r);
    key_entry *out = malloc(l->len * sizeof *out);
    CHECK(out != NULL);
    size_t n = 0;
    for (size_t a = 0; a < l->len;) {
        size_t b = a, start = n;
        while (b < l->len && ix[b].h1 == ix[a].h1) b++;
        for (size_t j = a; j < b; j++) {
            key_entry e = l->items[ix[j].i];
            size_t q = start;
            while (q < n && !same_key(r, out[q].key, e.key)) q++;
            if (q == n) out[n++] = e;
            else if (e.age < out[q].age) out[q].age = e.age;
        }
        a = b;
    }
    free(ix);
    free(l->items);
    l->items = out;
    l->cap = l->len;
    l->len = n;
}

MODEL void tally_merge_counts(tally *d, const tally *s, const reader *r, int how)
{
    if (how == TALLY_MIN) {
        key_index *ix = tally_index(s);
        for (size_t i = 0; i < d->len; i++) {
            tally_entry *e = &d->items[i];
            long j = tally_find_indexed(s, s->len, ix, r, e->key, e->h);
            uint64_t n = j < 0 ? 0 : s->items[j].n;
            if (n < e->n) e->n = n;
        }
        free(ix);
        return;
    }
    key_index *ix = tally_index(d);
    size_t dlen = d->len;
    for (size_t i = 0; i < s->len; i++) {
        const tally_entry *e = &s->items[i];
        /* Entries appended here are of s, all different: not searched. */
        long j = tally_find_indexed(d, dlen, ix, r, e->key, e->h);
        if (j < 0) {
            tally_entry n = *e;
            n.sc = 0;
            n.unreliable = 0;
            n.last = 0;
            tally_push(d, &n);
        } else if (how == TALLY_SUM) {
            d->items[j].n += e->n;
        } else if (e->n > d->items[j].n) {
            d->items[j].n = e->n;
        }
    }
    free(ix);
}
