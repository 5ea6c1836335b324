/* The cuckoo filter: see bf_cuckoo.h. */
#include "bf_cuckoo.h"
#include "bf_hash.h"
#include <stdlib.h>

void bf_cuckoo_init(bf_cuckoo *f, uint64_t nbuckets, unsigned fp_bits, uint32_t seed)
{
    *f = (bf_cuckoo){.nbuckets = nbuckets, .seed = seed};
    bf_buckets_init(&f->slots, nbuckets * BF_CUCKOO_SLOTS, fp_bits);
}

/* The other bucket of fp, seen from bucket i: (H(fp) - i) mod n. */
static uint64_t alt(const bf_cuckoo *f, uint64_t i, uint32_t fp)
{
    uint64_t h = bf_reduce(bf_fmix64(fp), f->nbuckets);
    return h >= i ? h - i : h + f->nbuckets - i;
}

bf_cuckoo_place bf_cuckoo_locate(const bf_cuckoo *f, bf_key_hash h)
{
    bf_cuckoo_place p;
    /* h2 picks the fingerprint, 1 .. 2^f - 1, and h1 the first bucket:
     * independent bits of the key's hash. */
    p.fp = (uint32_t)bf_reduce(h.h2, f->slots.max) + 1;
    p.i1 = bf_reduce(h.h1, f->nbuckets);
    p.i2 = alt(f, p.i1, p.fp);
    return p;
}

/* A slot about to be overwritten, when a journal is kept (room for it was
 * reserved before the add began). */
static void note(bf_cuckoo_journal *j, uint64_t slot, uint32_t was)
{
    if (j) j->writes[j->n++] = (bf_cuckoo_write){slot, was};
}

/* Stores fp in an empty slot of bucket i; 0 when the bucket is full. */
static int put(bf_cuckoo *f, uint64_t i, uint32_t fp, bf_cuckoo_journal *j)
{
    for (uint64_t s = i * BF_CUCKOO_SLOTS; s < (i + 1) * BF_CUCKOO_SLOTS; s++) {
        if (bf_buckets_get(&f->slots, s) == 0) {
            note(j, s, 0);
            bf_buckets_set(&f->slots, s, fp);
            return 1;
        }
    }
    return 0;
}

static unsigned copies_in(const bf_cuckoo *f, uint64_t i, uint32_t fp)
{
    unsigned n = 0;
    for (uint64_t s = i * BF_CUCKOO_SLOTS; s < (i + 1) * BF_CUCKOO_SLOTS; s++)
        n += bf_buckets_get(&f->slots, s) == fp;
    return n;
}

/* Whether bucket i holds fp. When its slots fit in one 8-byte load (4f + 7
 * bits: f <= 14, rates down to about 0.05%), all four are compared at once:
 * a lane of slots ^ (fp in every lane) is zero where a slot matches, and
 * (x - lo) & ~x & hi is non-zero exactly when some lane of x is. */
static int has(const bf_cuckoo *f, uint64_t i, uint32_t fp)
{
    unsigned w = f->slots.width;
    if (BF_CUCKOO_SLOTS * w + 7 > 64) return copies_in(f, i, fp) > 0;
    uint64_t bit = i * BF_CUCKOO_SLOTS * w;
    uint64_t lo = 1 | (uint64_t)1 << w | (uint64_t)1 << 2 * w | (uint64_t)1 << 3 * w;
    uint64_t lanes = (bf_load_le64(f->slots.data + (bit >> 3)) >> (bit & 7)) & (((uint64_t)1 << 4 * w) - 1);
    uint64_t x = lanes ^ (fp * lo);
    return ((x - lo) & ~x & (lo << (w - 1))) != 0;
}

/* j: NULL, or a journal with room for BF_CUCKOO_KICKS + 1 more writes. */
static int insert(bf_cuckoo *f, uint64_t i, uint32_t fp, bf_cuckoo_journal *j)
{
    uint64_t other = alt(f, i, fp);
    if (put(f, i, fp, j) || put(f, other, fp, j)) return f->count++, 1;
    /* Both full: evict a victim, move it to its other bucket, and so on.
     * The victim slot comes from the fingerprint in hand and the step, so the
     * same filter and key always take the same path (no generator state). */
    uint64_t path[BF_CUCKOO_KICKS];
    uint32_t carried = fp;
    uint64_t bucket = (bf_fmix64(fp) & 1) ? other : i;
    size_t noted = j ? j->n : 0;
    for (int kick = 0; kick < BF_CUCKOO_KICKS; kick++) {
        uint64_t slot = bucket * BF_CUCKOO_SLOTS + (bf_fmix64((uint64_t)carried ^ ((uint64_t)kick << 32)) & 3);
        uint32_t victim = bf_buckets_get(&f->slots, slot);
        note(j, slot, victim);
        bf_buckets_set(&f->slots, slot, carried);
        path[kick] = slot;
        carried = victim;
        bucket = alt(f, bucket, carried);
        if (put(f, bucket, carried, j)) return f->count++, 1;
    }
    /* No room: undo every swap, last first, so that each fingerprint is back
     * where it was and the new one is dropped. The filter is as it was, so
     * the journal forgets these writes. */
    for (int kick = BF_CUCKOO_KICKS - 1; kick >= 0; kick--) {
        uint32_t was = bf_buckets_get(&f->slots, path[kick]);
        bf_buckets_set(&f->slots, path[kick], carried);
        carried = was;
    }
    if (j) j->n = noted;
    return 0;
}

int bf_cuckoo_add_fingerprint(bf_cuckoo *f, uint64_t i, uint32_t fp) { return insert(f, i, fp, NULL); }

void bf_cuckoo_journal_start(bf_cuckoo_journal *j, const bf_cuckoo *f) { *j = (bf_cuckoo_journal){.count = f->count}; }

int bf_cuckoo_add_journaled(bf_cuckoo *f, uint64_t i, uint32_t fp, bf_cuckoo_journal *j)
{
    /* An add writes at most every slot of its path and one empty slot:
     * reserved first, so that no write is ever made that cannot be undone. */
    size_t need = BF_CUCKOO_KICKS + 1;
    if (j->cap - j->n < need) {
        size_t cap = j->cap ? j->cap : need;
        while (cap - j->n < need) {
            if (cap > SIZE_MAX / 2 / sizeof *j->writes) return -1;
            cap *= 2;
        }
        bf_cuckoo_write *writes = realloc(j->writes, cap * sizeof *writes);
        if (!writes) return -1;
        j->writes = writes;
        j->cap = cap;
    }
    return insert(f, i, fp, j);
}

void bf_cuckoo_journal_undo(bf_cuckoo *f, bf_cuckoo_journal *j)
{
    /* Last first: a slot written twice ends with what it held before the
     * first write. */
    while (j->n > 0) {
        j->n--;
        bf_buckets_set(&f->slots, j->writes[j->n].slot, j->writes[j->n].was);
    }
    f->count = j->count;
}

void bf_cuckoo_journal_free(bf_cuckoo_journal *j)
{
    free(j->writes);
    *j = (bf_cuckoo_journal){0};
}

int bf_cuckoo_add(bf_cuckoo *f, bf_key_hash h)
{
    bf_cuckoo_place p = bf_cuckoo_locate(f, h);
    return bf_cuckoo_add_fingerprint(f, p.i1, p.fp);
}

int bf_cuckoo_found(const bf_cuckoo *f, bf_cuckoo_place p) { return has(f, p.i1, p.fp) || has(f, p.i2, p.fp); }

int bf_cuckoo_contains(const bf_cuckoo *f, bf_key_hash h) { return bf_cuckoo_found(f, bf_cuckoo_locate(f, h)); }

unsigned bf_cuckoo_count(const bf_cuckoo *f, bf_key_hash h)
{
    bf_cuckoo_place p = bf_cuckoo_locate(f, h);
    return copies_in(f, p.i1, p.fp) + (p.i2 != p.i1 ? copies_in(f, p.i2, p.fp) : 0);
}

static int take(bf_cuckoo *f, uint64_t i, uint32_t fp)
{
    for (uint64_t s = i * BF_CUCKOO_SLOTS; s < (i + 1) * BF_CUCKOO_SLOTS; s++) {
        if (bf_buckets_get(&f->slots, s) == fp) {
            bf_buckets_set(&f->slots, s, 0);
            f->count--;
            return 1;
        }
    }
    return 0;
}

int bf_cuckoo_remove(bf_cuckoo *f, bf_key_hash h)
{
    bf_cuckoo_place p = bf_cuckoo_locate(f, h);
    return take(f, p.i1, p.fp) || take(f, p.i2, p.fp);
}

int bf_cuckoo_union(bf_cuckoo *dst, const bf_cuckoo *src)
{
    for (uint64_t s = 0; s < src->slots.count; s++) {
        uint32_t fp = bf_buckets_get(&src->slots, s);
        if (fp && !bf_cuckoo_add_fingerprint(dst, s / BF_CUCKOO_SLOTS, fp)) return 0;
    }
    return 1;
}
