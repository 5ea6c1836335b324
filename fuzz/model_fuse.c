/* The binary fuse filter (bf_fuse.c): static, no header and no twin. */
#include "harness.h"

#include <math.h>
#include <string.h>

#include "bf_fuse.h"

#include "reference.h"

/* Model: the set of key hashes a filter was built from (sorted, distinct).
 * The filter is static, so it has no header and no twin: OP_FUSE_BUILD
 * makes one from hashes of the input (0 .. FUSE_MAX_GEN generated, with
 * repeats on purpose, then up to FUSE_MAX_RAW raw u64s), in caller-provided
 * scratch and fingerprints of exactly the sizes the core asks for (ASan
 * sees a byte past them), either after bf_fuse_dedup, as the binding does,
 * or with the repeats left in (the core dedups on its first failure). The
 * build must succeed; every hash of the set is found; bf_fuse_contains (the
 * portable bf_reduce here) and bf_fuse_contains_many (bf_fuse.c's int128
 * one) agree with a lookup done here from the header's formulas, for members
 * and non-members alike; the seed used is one of the first
 * BF_FUSE_ATTEMPTS_MAX of the splitmix64 sequence; and the same set, in
 * another order with other repeats, builds the same bytes and seed. The
 * shape op asks bf_fuse_shape for any n and bits (refused: nothing is
 * built), then mutates its fields as a loaded file could have them: when
 * bf_fuse_valid_shape accepts, which it must exactly when the header's
 * relations between the fields hold, every lookup stays inside
 * bf_fuse_nbytes. */
#define FUSE_MAX_GEN 3000
#define FUSE_MAX_RAW 32
/* Keys built per input, over every build: a few builds of a few thousand,
 * so that the other structures keep their share of the time. */
#define FUSE_BUDGET (1u << 15)
#define FUSE_PROBES 256          /* non-members looked up after a build */
#define FUSE_FP_MAX 24           /* of them false positives: the rate is 1/256 or less (mean 1) */
#define FUSE_READ_MAX (1u << 16) /* mutated shapes up to this many bytes get fingerprints to read */
#define FUSE_ATTEMPTS BF_FUSE_ATTEMPTS_MAX

typedef struct {
    bf_fuse f;     /* fingerprints: exactly bf_fuse_nbytes(f) bytes, or NULL before a build */
    uint64_t *set; /* the model: the distinct hashes, ascending */
    size_t n;
} fuse_state;

/* The input's one filter: OP_FUSE_BUILD makes it, fuse_final frees it. */
static fuse_state input_fuse;

static void fuse_free(fuse_state *s)
{
    free(s->f.fingerprints);
    free(s->set);
    memset(s, 0, sizeof *s);
}

/* malloc that never answers NULL (n = 0 gets a byte: ASan still sees any read). */
static void *fuse_alloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    CHECK(p != NULL);
    return p;
}

MODEL static int u64_cmp(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Sorts and drops repeats in place; the number of distinct values. */
MODEL static size_t fuse_model_set(uint64_t *v, size_t n)
{
    if (n == 0) return 0;
    qsort(v, n, sizeof *v, u64_cmp);
    size_t d = 1;
    for (size_t i = 1; i < n; i++)
        if (v[i] != v[d - 1]) v[d++] = v[i];
    return d;
}

MODEL static int fuse_member(const fuse_state *s, uint64_t key)
{
    return s->n && bsearch(&key, s->set, s->n, sizeof *s->set, u64_cmp) != NULL;
}

static int fuse_same_shape(const bf_fuse *a, const bf_fuse *b)
{
    return a->segment_length == b->segment_length && a->segment_length_mask == b->segment_length_mask &&
           a->segment_count == b->segment_count && a->segment_count_length == b->segment_count_length &&
           a->array_length == b->array_length && a->fingerprint_bits == b->fingerprint_bits;
}

/* The header's relations between the fields (bf_fuse.h's struct), from
 * which every lookup stays in the array: bits 8 or 16; the empty filter all
 * zeros; else a power-of-two segment length 4 .. 2^18, its mask, at least
 * one segment for first slots, and the two lengths their products, in
 * exact arithmetic. */
static int fuse_ref_valid(const bf_fuse *f)
{
    if (f->fingerprint_bits != 8 && f->fingerprint_bits != 16) return 0;
    uint64_t l = f->segment_length, c = f->segment_count;
    if (f->array_length == 0) return l == 0 && f->segment_length_mask == 0 && c == 0 && f->segment_count_length == 0;
    int pow2 = 0;
    for (unsigned b = 2; b <= BF_FUSE_OFFSET_SHIFT; b++) pow2 |= l == ((uint64_t)1 << b);
    return pow2 && f->segment_length_mask == l - 1 && c >= 1 && f->segment_count_length == c * l &&
           f->array_length == (c + 2) * l;
}

/* A key's slots from the header's description, in 64-bit arithmetic and the
 * direct __int128 multiply-shift: one in each of three consecutive
 * segments, inside the array, and what bf_fuse_positions (the portable
 * bf_reduce of fuzz/harness.h) gives. f must be valid and not empty. */
static void fuse_ref_positions(const bf_fuse *f, uint64_t h, uint32_t out[3])
{
    uint64_t l = f->segment_length, mask = l - 1;
    uint64_t p0 = (uint64_t)(((fuzz_u128)h * f->segment_count_length) >> 64);
    uint64_t pos[3] = {p0, (p0 + l) ^ (h & mask), (p0 + 2 * l) ^ ((h >> BF_FUSE_OFFSET_SHIFT) & mask)};
    uint32_t got[3];
    bf_fuse_positions(f, h, got);
    CHECK(p0 < f->segment_count_length);
    for (int j = 0; j < 3; j++) {
        CHECK(pos[j] < f->array_length && pos[j] / l == p0 / l + (uint64_t)j);
        CHECK(got[j] == pos[j]);
        out[j] = (uint32_t)pos[j];
    }
}

static uint32_t fuse_slot(const bf_fuse *f, uint32_t p)
{
    const uint8_t *fp = f->fingerprints;
    return f->fingerprint_bits == 8 ? fp[p] : (uint32_t)fp[2 * (size_t)p] | (uint32_t)fp[2 * (size_t)p + 1] << 8;
}

/* A lookup done here: the fingerprint (bits 0..15 of h ^ h >> 32, cut to
 * the width) is the XOR of the key's three slots. */
static int fuse_ref_contains(const bf_fuse *f, uint64_t key)
{
    if (f->array_length == 0) return 0;
    uint64_t h = ref_fmix64(key + f->seed);
    CHECK(h == bf_fuse_mix(key, f->seed));
    uint32_t pos[3], want = (uint32_t)(h ^ (h >> 32)) & (f->fingerprint_bits == 8 ? 0xffU : 0xffffU);
    fuse_ref_positions(f, h, pos);
    return (want ^ fuse_slot(f, pos[0]) ^ fuse_slot(f, pos[1]) ^ fuse_slot(f, pos[2])) == 0;
}

/* keys[0 .. n) looked up one at a time and as a batch, each against the
 * lookup done here; members of s (when given) must be found. Returns the
 * false positives: keys found that are not members. */
static size_t fuse_lookups(const bf_fuse *f, const uint64_t *keys, size_t n, const fuse_state *s)
{
    uint8_t *out = fuse_alloc(n);
    size_t fps = 0;
    bf_fuse_contains_many(f, keys, n, out);
    for (size_t i = 0; i < n; i++) {
        int got = bf_fuse_contains(f, keys[i]);
        CHECK(out[i] == got && got == fuse_ref_contains(f, keys[i]));
        if (!s) continue;
        int member = fuse_member(s, keys[i]);
        if (member) CHECK(got);
        fps += got && !member;
    }
    free(out);
    return fps;
}

/* A shape bf_fuse_shape gave for n keys: accepted by bf_fuse_valid_shape,
 * the paper's segment length, room for n keys at 1.125 slots a key or more,
 * and the byte counts the header gives. */
static void fuse_check_shape(const bf_fuse *f, uint64_t n, unsigned bits)
{
    CHECK(bf_fuse_valid_shape(f) && fuse_ref_valid(f) && f->fingerprint_bits == bits && f->seed == 0);
    CHECK(bf_fuse_nbytes(f) == (size_t)f->array_length * (bits / 8));
    size_t scratch = bf_fuse_scratch_bytes(n);
    if (n == 0) {
        CHECK(f->array_length == 0 && scratch == 0);
        return;
    }
    /* Room to peel, and the scratch fuse_try lays out: per slot a hash, an
     * order entry and a count, per key its mixed hash. */
    CHECK(f->array_length >= n + n / 8 && scratch >= (size_t)f->array_length * 13 + n * 8);
    /* The paper's 2^floor(log_3.33(n) + 2.25), 4 .. 2^18 (not checked where
     * the exponent is within rounding of an integer). */
    long double e = logl((long double)n) / logl(3.33L) + 2.25L, fl = floorl(e);
    if (e - fl < 1e-9L || fl + 1 - e < 1e-9L) return;
    CHECK(f->segment_length == (fl >= BF_FUSE_OFFSET_SHIFT ? BF_FUSE_SEGMENT_LENGTH_MAX : (uint32_t)1 << (int)fl));
}

/* Which step of the splitmix64 sequence from `from` is `seed` (FUSE_ATTEMPTS
 * when none of the ones a build tries). */
MODEL static unsigned fuse_seed_step(uint64_t from, uint64_t seed)
{
    uint64_t s = from;
    for (unsigned t = 0; t < FUSE_ATTEMPTS; t++) {
        if (s == seed) return t;
        uint64_t state = s;
        s = ref_splitmix64(&state);
    }
    return FUSE_ATTEMPTS;
}

/* One build of keys[0 .. n) (modified as the build may) into f, shaped
 * here for n, with scratch and fingerprints of exactly the sizes asked for.
 * The fingerprints start out as garbage. */
static void fuse_build_into(bf_fuse *f, uint64_t *keys, size_t n, unsigned bits, uint64_t seed)
{
    CHECK(bf_fuse_shape(n, bits, f));
    fuse_check_shape(f, n, bits);
    size_t nbytes = bf_fuse_nbytes(f), sb = bf_fuse_scratch_bytes(n);
    f->fingerprints = fuse_alloc(nbytes);
    memset(f->fingerprints, 0xa5 ^ (int)(seed & 0xff), nbytes);
    void *scratch = n ? fuse_alloc(sb) : NULL;
    bf_fuse shape = *f;
    CHECK(bf_fuse_build(f, keys, n, scratch, seed) == BF_FUSE_BUILT);
    CHECK(fuse_same_shape(f, &shape) && f->fingerprints == shape.fingerprints);
    CHECK(fuse_seed_step(seed, f->seed) < FUSE_ATTEMPTS);
    if (n == 0) CHECK(f->seed == seed);
    free(scratch);
}

/* u8 flags (bit 0: 16-bit fingerprints, bit 1: bf_fuse_dedup first as the
 * binding does, bit 2: generated hashes base + j rather than splitmix64
 * outputs), u64 seed, u16 g (% (FUSE_MAX_GEN + 1) generated hashes), u16
 * d (g % d + 1 distinct among them: hash j = i % d), u64 base, u8 r
 * (% (FUSE_MAX_RAW + 1)) and r u64 hashes as they are, u64 shuffle (the
 * order and repeats of the rebuild). */
void fuse_build_op(reader *r)
{
    fuse_state *s = &input_fuse;
    uint8_t flags = rd_u8(r);
    uint64_t seed = rd_u64(r);
    size_t gen = rd_u16(r) % (FUSE_MAX_GEN + 1);
    size_t pool = rd_u16(r);
    uint64_t base = rd_u64(r);
    size_t raw = rd_u8(r) % (FUSE_MAX_RAW + 1), n = gen + raw;
    uint64_t *keys = fuse_alloc(n * sizeof *keys);
    pool = gen ? pool % gen + 1 : 0;
    for (size_t i = 0; i < gen; i++) {
        uint64_t j = i % pool, state = base + j;
        keys[i] = flags & 4 ? base + j : ref_splitmix64(&state);
    }
    for (size_t i = gen; i < n; i++) keys[i] = rd_u64(r);
    uint64_t shuffle = rd_u64(r);
    if (2 * (uint64_t)n + 1 > FUSE_BUDGET - r->fuse_keys) {
        free(keys);
        return;
    }
    r->fuse_keys += 2 * (uint64_t)n + 1;
    unsigned bits = flags & 1 ? 16 : 8;

    /* The model, and bf_fuse_dedup against it with the n * 8 bytes of
     * scratch it asks for. */
    uint64_t *set = fuse_alloc(n * sizeof *set), *work = fuse_alloc(n * sizeof *work);
    memcpy(set, keys, n * sizeof *set);
    size_t d = fuse_model_set(set, n);
    memcpy(work, keys, n * sizeof *work);
    uint64_t *dscratch = fuse_alloc(n * sizeof *dscratch);
    CHECK(bf_fuse_dedup(work, n, dscratch) == d && memcmp(work, set, d * sizeof *set) == 0);
    free(dscratch);

    fuse_free(s);
    size_t m = n;
    memcpy(work, keys, n * sizeof *work);
    if (flags & 2) {
        dscratch = fuse_alloc(bf_fuse_scratch_bytes(n));
        m = bf_fuse_dedup(work, n, dscratch);
        free(dscratch);
        memcpy(keys, work, m * sizeof *keys); /* as the build gets them */
    }
    fuse_build_into(&s->f, work, m, bits, seed);
    s->set = set;
    s->n = d;
    /* The keys: with repeats, sorted and deduplicated in front (every try
     * with repeats fails); without, left alone unless a seed failed. */
    if (m > d || s->f.seed != seed)
        CHECK(memcmp(work, set, d * sizeof *set) == 0);
    else
        CHECK(memcmp(work, keys, m * sizeof *keys) == 0);

    /* Every member found; non-members agree everywhere and are rarely found. */
    fuse_lookups(&s->f, set, d, s);
    uint64_t probe[FUSE_PROBES], state = shuffle ^ seed;
    for (size_t i = 0; i < FUSE_PROBES; i++) probe[i] = i < d && (i & 1) ? set[i] + 1 : ref_splitmix64(&state);
    CHECK(fuse_lookups(&s->f, probe, FUSE_PROBES, s) <= FUSE_FP_MAX);

    /* Determinism: the set in another order, with other repeats, in the
     * same shape (for n keys; after a dedup, d keys, or n if that is the
     * same shape), builds the same bytes with the same seed. */
    size_t len = m;
    bf_fuse n_shape, d_shape;
    if ((flags & 2) && bf_fuse_shape(n, bits, &n_shape) && bf_fuse_shape(d, bits, &d_shape) && fuse_same_shape(&n_shape, &d_shape)) len = n;
    uint64_t *again = fuse_alloc(len * sizeof *again);
    for (size_t i = 0; i < len; i++) again[i] = i < d ? set[i] : set[ref_splitmix64(&state) % d];
    for (size_t i = len; i > 1; i--) {
        size_t j = (size_t)(ref_splitmix64(&shuffle) % i);
        uint64_t t = again[i - 1];
        again[i - 1] = again[j];
        again[j] = t;
    }
    bf_fuse f2;
    fuse_build_into(&f2, again, len, bits, seed);
    CHECK(fuse_same_shape(&f2, &s->f) && f2.seed == s->f.seed);
    CHECK(memcmp(f2.fingerprints, s->f.fingerprints, bf_fuse_nbytes(&f2)) == 0);
    free(f2.fingerprints);
    free(again);
    free(work);
    free(keys);
}

/* u8 count (% 32 + 1), then per key a u8: odd, a member (u16 index), else a
 * u64 hash: each against the model and the lookup done here. */
void fuse_lookup_op(reader *r)
{
    const fuse_state *s = &input_fuse;
    uint64_t keys[32];
    size_t n = rd_u8(r) % 32 + 1;
    for (size_t i = 0; i < n; i++) {
        uint8_t sel = rd_u8(r);
        if ((sel & 1) && s->n)
            keys[i] = s->set[rd_u16(r) % s->n];
        else
            keys[i] = rd_u64(r);
    }
    if (!s->f.fingerprints) return;
    fuse_lookups(&s->f, keys, n, s);
}

/* u8 shift, u64 n (n >> shift % 64 keys), u8 bits: bf_fuse_shape, refused
 * exactly for other bits than 8 and 16 and for over 2^32 keys, or near it
 * (accepted up to 3.5 billion), and a refusal builds nothing. Then u8
 * which: bit i XORs field i (segment_length, mask, segment_count,
 * segment_count_length, array_length, fingerprint_bits) with a u32; bit 6
 * replaces them all by a consistent-looking shape (u8 log2 length % 32, u32
 * count, products in 32 bits, which may wrap); bit 7 reads fingerprints
 * from the input. u64 seed, u8 count (% 16 + 1) and that many u64 keys. */
void fuse_shape_op(reader *r)
{
    unsigned shift = rd_u8(r) % 64;
    uint64_t n = rd_u64(r) >> shift;
    unsigned bits = rd_u8(r);
    bf_fuse f;
    int ok = bf_fuse_shape(n, bits, &f);
    if (bits != 8 && bits != 16) CHECK(!ok);
    if (n > ((uint64_t)1 << 32)) CHECK(!ok);
    if ((bits == 8 || bits == 16) && n <= 3500000000u) CHECK(ok);
    bf_fuse f8;
    CHECK((bf_fuse_scratch_bytes(n) == 0) == (n == 0 || !bf_fuse_shape(n, 8, &f8)));
    if (ok) {
        fuse_check_shape(&f, n, bits);
    } else {
        /* Nothing is built: no key, scratch or fingerprint is touched. */
        uint64_t few[1] = {n};
        CHECK(bf_fuse_build(&f, few, (size_t)n, NULL, 1) == BF_FUSE_BAD_SHAPE && few[0] == n);
    }

    uint8_t which = rd_u8(r);
    uint32_t *fields[6] = {&f.segment_length, &f.segment_length_mask, &f.segment_count, &f.segment_count_length, &f.array_length, &f.fingerprint_bits};
    if (which & 64) {
        unsigned lg = rd_u8(r) % 32;
        uint32_t count = rd_u32(r), l = (uint32_t)1 << lg;
        f.segment_length = l;
        f.segment_length_mask = l - 1;
        f.segment_count = count;
        f.segment_count_length = count * l;
        f.array_length = (count + 2) * l;
    }
    for (int i = 0; i < 6; i++)
        if (which & (1 << i)) *fields[i] ^= rd_u32(r);
    f.seed = rd_u64(r);
    uint64_t keys[16];
    size_t nk = rd_u8(r) % 16 + 1;
    for (size_t i = 0; i < nk; i++) keys[i] = rd_u64(r);
    int valid = bf_fuse_valid_shape(&f);
    CHECK(valid == fuse_ref_valid(&f));
    f.fingerprints = NULL;
    if (!valid) return;
    size_t nbytes = bf_fuse_nbytes(&f);
    CHECK(nbytes == (size_t)f.array_length * (f.fingerprint_bits / 8));
    if (nbytes > FUSE_READ_MAX) {
        /* Too large to give it fingerprints: the slots are checked in range. */
        uint32_t pos[3];
        for (size_t i = 0; i < nk; i++) fuse_ref_positions(&f, bf_fuse_mix(keys[i], f.seed), pos);
        return;
    }
    f.fingerprints = fuse_alloc(nbytes);
    for (size_t i = 0; i < nbytes; i++) f.fingerprints[i] = which & 128 ? rd_u8(r) : (uint8_t)(i * 151 + 7);
    fuse_lookups(&f, keys, nk, NULL);
    /* A build into it for a count it was not shaped for is refused, and
     * leaves the fingerprints as they were. */
    bf_fuse want;
    size_t bn = nk % 4;
    uint8_t *was = fuse_alloc(nbytes);
    memcpy(was, f.fingerprints, nbytes);
    if (!bf_fuse_shape(bn, f.fingerprint_bits, &want) || !fuse_same_shape(&want, &f)) {
        CHECK(bf_fuse_build(&f, keys, bn, NULL, 1) == BF_FUSE_BAD_SHAPE);
        CHECK(memcmp(was, f.fingerprints, nbytes) == 0);
    }
    free(was);
    free(f.fingerprints);
}

MODEL void fuse_final(void)
{
    fuse_state *s = &input_fuse;
    if (s->f.fingerprints) fuse_lookups(&s->f, s->set, s->n, s);
    fuse_free(s);
}
