/* Bloomc::BinaryFuseFilter: a set built once from all its keys and then only
 * read, at about 9 bits a key for 1/256 (bf_fuse.h). BinaryFuseFilter.build
 * is in lib/bloomc/binary_fuse_filter.rb; the methods every kind shares are
 * in filter.c. */
#include "filter.h"
#include "keys.h"
#include "args.h"
#include "state.h"
#include "bf_fuse.h"

/* The core: the filter and what it was built from. */
typedef struct {
    bf_fuse f;
    uint32_t key_seed; /* MurmurHash3 seed of the keys' hashes */
    uint64_t count;    /* distinct key hashes it was built from */
} fuse_t;

static const bloomc_kind fuse_kind;

static fuse_t *get_filter(VALUE self) { return bloomc_filter_core(self, &fuse_kind); }
static uint64_t key_hash(const fuse_t *c, VALUE key) { return bloomc_key_hash(key, c->key_seed, BF_HASH_MURMUR3).h1; }

/* The saved body: the fingerprints, or one zero byte for the empty filter
 * (a body of 0 bytes would read as "too large"). */
static size_t cells_bytes(const bf_fuse *f) { return f->array_length ? bf_fuse_nbytes(f) : 1; }

/* :nodoc: setup(keys, fingerprint_bits, seed): builds from an Array of keys,
 * hashed, their repeats dropped. */
static VALUE setup(VALUE self, VALUE keys, VALUE fingerprint_bits, VALUE seed)
{
    bloomc_filter_replaceable(self, &fuse_kind);
    Check_Type(keys, T_ARRAY);
    unsigned bits = (unsigned)bloomc_count_arg(fingerprint_bits, "fingerprint_bits", 16);
    if (bits != 8 && bits != 16) rb_raise(rb_eArgError, "fingerprint_bits must be 8 or 16, got %u", bits);
    fuse_t c = {.key_seed = bloomc_uint32_arg(seed, "seed")};
    /* Every buffer is ALLOCV's, freed by the GC if a key raises. */
    VALUE hashes_buf, scratch_buf, cells_buf;
    size_t n = (size_t)RARRAY_LEN(keys);
    uint64_t *hashes = ALLOCV_N(uint64_t, hashes_buf, n ? n : 1);
    /* Hashing calls no Ruby method: the Array keeps its length meanwhile. */
    for (size_t i = 0; i < n; i++) hashes[i] = key_hash(&c, RARRAY_AREF(keys, (long)i));
    size_t scratch_bytes = bf_fuse_scratch_bytes(n);
    if (n && !scratch_bytes) rb_raise(rb_eArgError, "%zu keys are too many for a binary fuse filter", n);
    void *scratch = ALLOCV(scratch_buf, scratch_bytes ? scratch_bytes : 8);
    n = n ? bf_fuse_dedup(hashes, n, scratch) : 0;
    if (!bf_fuse_shape(n, bits, &c.f)) rb_raise(rb_eArgError, "%zu keys are too many for a binary fuse filter", n);
    size_t nbytes = cells_bytes(&c.f);
    c.f.fingerprints = ALLOCV(cells_buf, nbytes);
    memset(c.f.fingerprints, 0, nbytes);
    if (bf_fuse_build(&c.f, hashes, n, scratch, 0) != BF_FUSE_BUILT)
        rb_raise(bloomc_eCapacityError, "no binary fuse filter of %zu keys was found after %d seeds", n, BF_FUSE_ATTEMPTS_MAX);
    c.count = n;
    bloomc_filter_install(self, &c, nbytes, c.f.fingerprints, nbytes);
    ALLOCV_END(cells_buf);
    ALLOCV_END(scratch_buf);
    ALLOCV_END(hashes_buf);
    return self;
}

/*
 * call-seq:
 *   include?(key) -> true or false
 *   self[key] -> true or false
 *
 * True for every key the filter was built from; for any other key, true at
 * the filter's false-positive rate (about 1/256 with 8-bit fingerprints,
 * 1/65536 with 16).
 */
static VALUE fuse_include_p(VALUE self, VALUE key)
{
    const fuse_t *c = get_filter(self);
    return RBOOL(bf_fuse_contains(&c->f, key_hash(c, key)));
}

/* call-seq: fingerprint_bits -> Integer
 *
 * 8 or 16. */
static VALUE fuse_fingerprint_bits(VALUE self) { return UINT2NUM(get_filter(self)->f.fingerprint_bits); }

/* Batch lookups: the keys' 64-bit hashes to the core's pipelined lookup. */
static void contains_many(void *core, const bf_key_hash *h, size_t n, uint8_t *out)
{
    const fuse_t *c = core;
    uint64_t keys[64];
    for (size_t done = 0; done < n; done += 64) {
        size_t chunk = n - done < 64 ? n - done : 64;
        for (size_t i = 0; i < chunk; i++) keys[i] = h[done + i].h1;
        bf_fuse_contains_many(&c->f, keys, chunk, out + done);
    }
}

/* [fingerprint bits, key seed, build seed, segment length, segment count,
 * keys] (docs/FORMAT.md). */
static void save(const void *core, uint64_t *out)
{
    const fuse_t *c = core;
    uint64_t fields[] = {c->f.fingerprint_bits, c->key_seed, c->f.seed, c->f.segment_length, c->f.segment_count, c->count};
    memcpy(out, fields, sizeof fields);
}

static size_t load(void *core, const uint64_t *v)
{
    fuse_t *c = core;
    c->f.fingerprint_bits = (uint32_t)bloomc_state_check(v[0], 8, 16, "fingerprint bits");
    c->key_seed = (uint32_t)bloomc_state_check(v[1], 0, UINT32_MAX, "seed");
    c->f.seed = v[2];
    c->f.segment_length = (uint32_t)bloomc_state_check(v[3], 0, BF_FUSE_SEGMENT_LENGTH_MAX, "segment length");
    c->f.segment_count = (uint32_t)bloomc_state_check(v[4], 0, UINT32_MAX, "segment count");
    c->count = v[5];
    uint64_t count_length = (uint64_t)c->f.segment_count * c->f.segment_length;
    uint64_t array_length = count_length + 2 * (uint64_t)c->f.segment_length;
    if (c->f.segment_length && (array_length > UINT32_MAX || count_length == 0))
        bloomc_format_error("segment length %u and count %u are no binary fuse filter's", c->f.segment_length,
                            c->f.segment_count);
    c->f.segment_length_mask = c->f.segment_length ? c->f.segment_length - 1 : 0;
    c->f.segment_count_length = (uint32_t)count_length;
    c->f.array_length = c->f.segment_length ? (uint32_t)array_length : 0;
    if (!bf_fuse_valid_shape(&c->f)) bloomc_format_error("the binary fuse filter's shape is inconsistent");
    return cells_bytes(&c->f);
}

/* Any fingerprints are a filter (no bits to check); the empty filter's one
 * byte is 0. */
static const char *attach(void *core, uint8_t *body, int saved)
{
    fuse_t *c = core;
    c->f.fingerprints = body;
    return saved && !c->f.array_length && body[0] ? "the empty filter's body is not 0" : NULL;
}

static void numbers(void *core, bloomc_numbers *out)
{
    fuse_t *c = core;
    *out = (bloomc_numbers){.m = c->f.array_length, .count = &c->count, .k = 3, .seed = c->key_seed, .hash = BF_HASH_MURMUR3};
}

/* Slots whose fingerprint is not 0, for fill_ratio. */
static uint64_t occupied(const void *core)
{
    const bf_fuse *f = &((const fuse_t *)core)->f;
    uint64_t n = 0;
    for (uint32_t i = 0; i < f->array_length; i++)
        n += (f->fingerprint_bits == 8 ? f->fingerprints[i] : bf_fuse_load16(f->fingerprints + 2 * (size_t)i)) != 0;
    return n;
}

static void combine(void *core, const void *other, int intersect)
{
    rb_raise(bloomc_eUnsupportedError, "a Bloomc::BinaryFuseFilter cannot be combined: build one from the keys of both");
}

static const bloomc_hot_methods hot_methods = {.include_p = fuse_include_p};
static const bloomc_kind fuse_kind = BLOOMC_KIND(11, "BinaryFuseFilter", fuse_t, .setup_arity = 3, .hot = &hot_methods, .nfields = 6,
                                                 .shape_fields = 2, /* fingerprint bits, seed */
                                                 .methods = BLOOMC_SIZE, .occupied = occupied, .contains_many = contains_many);

void bloomc_init_binary_fuse_filter(void)
{
    VALUE mBloomc = rb_define_module("Bloomc");
    VALUE klass = rb_define_class_under(mBloomc, "BinaryFuseFilter", rb_path2class("Bloomc::Filter"));
    bloomc_define_kind(klass, &fuse_kind);
    rb_define_method(klass, "fingerprint_bits", fuse_fingerprint_bits, 0);
}
