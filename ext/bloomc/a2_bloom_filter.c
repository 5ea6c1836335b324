/* Bloomc::A2BloomFilter: active-active buffering, a filter that remembers at
 * least its last `capacity` distinct keys and forgets older ones in bulk.
 * Sizing from an error rate is in lib/bloomc/a2_bloom_filter.rb. */
#include "bloomc.h"
#include "bf_a2.h"

static VALUE cA2BloomFilter;

static size_t half_bytes(const bf_a2 *f)
{
    return bf_bits_nbytes(f->halves[0].nbits);
}

static void a2_free(void *ptr)
{
    bf_a2 *f = ptr;
    ruby_xfree(f->halves[0].data); /* both halves: one allocation */
    ruby_xfree(f);
}

static size_t a2_memsize(const void *ptr)
{
    const bf_a2 *f = ptr;
    return sizeof(*f) + (f->halves[0].data ? 2 * half_bytes(f) : 0);
}

static const rb_data_type_t a2_type = {
    .wrap_struct_name = "bloomc/a2_bloom_filter",
    .function = {
        .dfree = a2_free,
        .dsize = a2_memsize,
    },
    .flags = RUBY_TYPED_FREE_IMMEDIATELY | RUBY_TYPED_WB_PROTECTED,
};

static VALUE a2_alloc(VALUE klass)
{
    bf_a2 *f;
    return TypedData_Make_Struct(klass, bf_a2, &a2_type, f);
}

static bf_a2 *get_filter(VALUE self)
{
    bf_a2 *f = bloomc_typed_data(self, &a2_type);
    if (!f->halves[0].data) rb_raise(rb_eTypeError, "uninitialized %" PRIsVALUE, rb_obj_class(self));
    return f;
}

/* Replace the filter's state: two zeroed halves of half_bits, or a copy of
 * src. */
static void a2_reset(bf_a2 *f, uint64_t half_bits, uint32_t k, uint32_t seed, uint64_t capacity, const bf_a2 *src)
{
    size_t nbytes = bf_bits_nbytes(half_bits);
    if (!nbytes || nbytes > SIZE_MAX / 2) rb_raise(rb_eArgError, "m is too large for this machine");
    uint8_t *data = ruby_xcalloc(2 * nbytes, 1);
    if (src) {
        memcpy(data, src->halves[0].data, 2 * nbytes);
        ruby_xfree(f->halves[0].data);
        *f = *src;
    } else {
        ruby_xfree(f->halves[0].data);
        *f = (bf_a2){.k = k, .seed = seed, .capacity = capacity};
    }
    for (int i = 0; i < 2; i++) {
        f->halves[i].data = data + i * nbytes;
        f->halves[i].nbits = half_bits;
    }
}

/* :nodoc: called by initialize once the Ruby layer has settled m, k and the
 * capacity; m is rounded up to an even number of bits. */
static VALUE a2_setup(VALUE self, VALUE m, VALUE k, VALUE capacity, VALUE seed)
{
    rb_check_frozen(self);
    uint64_t nbits = bloomc_count_arg(m, "m", BF_BITS_MAX);
    uint32_t probes = (uint32_t)bloomc_count_arg(k, "k", BF_K_MAX);
    uint64_t keys = bloomc_count_arg(capacity, "capacity", UINT64_MAX);
    uint32_t hash_seed = bloomc_uint32_arg(seed, "seed");
    a2_reset(bloomc_typed_data(self, &a2_type), (nbits + 1) / 2, probes, hash_seed, keys, NULL);
    return self;
}

/* :nodoc: deep copy for dup and clone. */
static VALUE a2_initialize_copy(VALUE self, VALUE orig)
{
    rb_check_frozen(self);
    if (self == orig) return self;
    const bf_a2 *src = get_filter(orig);
    a2_reset(bloomc_typed_data(self, &a2_type), src->halves[0].nbits, src->k, src->seed, src->capacity, src);
    return self;
}

static bf_key_hash key_hash(const bf_a2 *f, VALUE key)
{
    return bloomc_key_hash(key, f->seed, BF_HASH_MURMUR3);
}

/*
 * call-seq:
 *   add(key) -> self
 *   self << key -> self
 *
 * Adds +key+ to the active half unless it is there already; when the active
 * half already holds +capacity+ keys, the other half is cleared first and
 * becomes the active one.
 */
static VALUE a2_add(VALUE self, VALUE key)
{
    rb_check_frozen(self);
    bf_a2 *f = get_filter(self);
    bf_a2_add(f, key_hash(f, key), 0);
    return self;
}

/*
 * call-seq: add?(key) -> self or nil
 *
 * Adds +key+ as #add does; returns self when it was new (in neither half; a key found only in the older half is copied into the active one all the same),
 * nil when it was probably present, as Set#add? does.
 */
static VALUE a2_add_p(VALUE self, VALUE key)
{
    rb_check_frozen(self);
    bf_a2 *f = get_filter(self);
    return bloomc_add_p_result(self, bf_a2_add(f, key_hash(f, key), 1));
}

/*
 * call-seq:
 *   include?(key) -> true or false
 *   self[key] -> true or false
 *
 * Whether either half holds +key+: always true for the last +capacity+
 * distinct keys added.
 */
static VALUE a2_include_p(VALUE self, VALUE key)
{
    const bf_a2 *f = get_filter(self);
    return RBOOL(bf_a2_contains(f, key_hash(f, key)));
}

static void add_many(void *f, const bf_key_hash *h, size_t n, uint8_t *out)
{
    for (size_t i = 0; i < n; i++) {
        int fresh = bf_a2_add(f, h[i], out != NULL);
        if (out) out[i] = (uint8_t)fresh;
    }
}

static void contains_many(void *f, const bf_key_hash *h, size_t n, uint8_t *out)
{
    for (size_t i = 0; i < n; i++) out[i] = (uint8_t)bf_a2_contains(f, h[i]);
}

/* :nodoc: add_all's and add_new's work (lib/bloomc/batch.rb). */
static VALUE a2_batch_add(VALUE self, VALUE keys, VALUE collect)
{
    rb_check_frozen(self);
    bf_a2 *f = get_filter(self);
    bloomc_batch b = {f, f->seed, BF_HASH_MURMUR3, add_many, contains_many};
    return bloomc_batch_add(&b, keys, collect);
}

/* :nodoc: the batch lookups' work (lib/bloomc/batch.rb). */
static VALUE a2_batch_lookup(VALUE self, VALUE keys, VALUE mode)
{
    bf_a2 *f = get_filter(self);
    bloomc_batch b = {f, f->seed, BF_HASH_MURMUR3, add_many, contains_many};
    return bloomc_batch_lookup(&b, keys, mode);
}

/* call-seq: m -> Integer
 *
 * The number of bits of both halves together. */
static VALUE a2_m(VALUE self) { return ULL2NUM(2 * get_filter(self)->halves[0].nbits); }

/* call-seq: k -> Integer
 *
 * The number of bits set per key. */
static VALUE a2_k(VALUE self) { return UINT2NUM(get_filter(self)->k); }

/* call-seq: capacity -> Integer
 *
 * The number of distinct keys a half takes before the halves swap. */
static VALUE a2_capacity(VALUE self) { return ULL2NUM(get_filter(self)->capacity); }

/* call-seq: seed -> Integer
 *
 * The MurmurHash3 seed of the key hash. */
static VALUE a2_seed(VALUE self) { return UINT2NUM(get_filter(self)->seed); }

/* call-seq: size -> Integer
 *
 * The number of adds. */
static VALUE a2_size(VALUE self) { return ULL2NUM(get_filter(self)->count); }

/* call-seq: active_size -> Integer
 *
 * The distinct keys counted toward the next swap, which comes when it
 * reaches capacity: those added to the active half (after a union, the
 * emptier input's count, though the half holds both inputs' keys). */
static VALUE a2_active_size(VALUE self) { return ULL2NUM(get_filter(self)->in_active); }

/* call-seq: swaps -> Integer
 *
 * How many times the halves have swapped (each swap forgets the keys of the
 * older half). */
static VALUE a2_swaps(VALUE self) { return ULL2NUM(get_filter(self)->swaps); }

/* :nodoc: the manual's k for a target rate. */
static VALUE a2_s_optimal_k(VALUE klass, VALUE p) { return UINT2NUM(bf_a2_optimal_k(NUM2DBL(p))); }

/* :nodoc: the manual's capacity for m bits and k. */
static VALUE a2_s_optimal_capacity(VALUE klass, VALUE m, VALUE k)
{
    uint64_t nbits = bloomc_count_arg(m, "m", BF_BITS_MAX); /* setup's check and error, before setup */
    return ULL2NUM(bf_a2_optimal_capacity(nbits, (uint32_t)bloomc_count_arg(k, "k", BF_K_MAX)));
}

/* :nodoc: the rate with both halves holding n keys. */
static VALUE a2_s_model_fpr(VALUE klass, VALUE m, VALUE k, VALUE n)
{
    return DBL2NUM(bf_a2_fpr(NUM2ULL(m), NUM2UINT(k), NUM2DBL(n)));
}

/*
 * call-seq: self == other -> true or false
 *
 * Equal when +other+ is an A2BloomFilter of the same shape and seed in the
 * same state.
 */
static VALUE a2_equal(VALUE self, VALUE other)
{
    if (self == other) return Qtrue;
    if (!rb_typeddata_is_kind_of(other, &a2_type)) return Qfalse;
    const bf_a2 *a = get_filter(self), *b = get_filter(other);
    return RBOOL(a->halves[0].nbits == b->halves[0].nbits && a->k == b->k && a->seed == b->seed &&
                 a->capacity == b->capacity && a->active == b->active && a->in_active == b->in_active &&
                 a->count == b->count && a->swaps == b->swaps &&
                 memcmp(a->halves[0].data, b->halves[0].data, 2 * half_bytes(a)) == 0);
}

/* call-seq: hash -> Integer
 *
 * Consistent with ==. */
static VALUE a2_hash(VALUE self)
{
    const bf_a2 *f = get_filter(self);
    st_index_t h = rb_memhash(f->halves[0].data, (long)(2 * half_bytes(f)));
    return ST2FIX(h ^ (st_index_t)(f->halves[0].nbits * 31 + f->k * 7 + f->seed + f->capacity * 13 + f->active +
                                   f->in_active * 5 + f->count * 131 + f->swaps * 17));
}

/* :nodoc: bits set in the active half and in the other, for Bloomc::Stats. */
static VALUE a2_occupied_halves(VALUE self)
{
    const bf_a2 *f = get_filter(self);
    return rb_assoc_new(ULL2NUM(bf_bits_count(&f->halves[f->active])), ULL2NUM(bf_bits_count(&f->halves[1 - f->active])));
}

/* :nodoc: half by half OR or AND (Bloomc::SetOps checks shapes). */
static VALUE a2_combine(VALUE self, VALUE other, VALUE op)
{
    rb_check_frozen(self);
    bf_a2 *f = get_filter(self);
    const bf_a2 *o = get_filter(other);
    int and = bloomc_intersection_arg(op, f->halves[0].nbits == o->halves[0].nbits && f->k == o->k && f->seed == o->seed &&
                                              f->capacity == o->capacity);
    if (and) bf_a2_intersect(f, o);
    else bf_a2_union(f, o);
    return self;
}

/*
 * call-seq: clear -> self
 *
 * Forgets every key: both halves empty, size and swaps 0.
 */
static VALUE a2_clear(VALUE self)
{
    rb_check_frozen(self);
    bf_a2 *f = get_filter(self);
    memset(f->halves[0].data, 0, 2 * half_bytes(f));
    f->active = 0;
    f->in_active = f->count = f->swaps = 0;
    return self;
}


/* :nodoc: [[half bits, k, seed, capacity, active half, keys in it, count,
 * swaps], half 0 + half 1] (docs/FORMAT.md). */
static VALUE a2_export_core(VALUE self)
{
    const bf_a2 *f = get_filter(self);
    uint64_t fields[] = {f->halves[0].nbits, f->k, f->seed, f->capacity, f->active, f->in_active, f->count, f->swaps};
    const uint8_t *parts[] = {f->halves[0].data};
    size_t lengths[] = {2 * half_bytes(f)};
    return bloomc_state_new(fields, 8, parts, lengths, 1);
}

/* :nodoc: the inverse of export_core; Bloomc::FormatError for anything
 * export_core could not have made. */
static VALUE a2_import_core(VALUE self, VALUE fields, VALUE body)
{
    rb_check_frozen(self);
    uint64_t v[8];
    bloomc_state_fields(fields, 8, v);
    uint64_t half_bits = bloomc_state_check(v[0], 1, BF_BITS_MAX / 2, "half bits");
    bf_a2 src = {
        .k = (uint32_t)bloomc_state_check(v[1], 1, BF_K_MAX, "k"),
        .seed = (uint32_t)bloomc_state_check(v[2], 0, UINT32_MAX, "seed"),
        .capacity = bloomc_state_check(v[3], 1, UINT64_MAX, "capacity"),
        .active = (unsigned)bloomc_state_check(v[4], 0, 1, "active half"),
        .count = v[6],
        .swaps = v[7],
    };
    src.in_active = bloomc_state_check(v[5], 0, src.capacity, "keys in the active half");
    size_t nbytes = bf_bits_nbytes(half_bits);
    if (!nbytes || nbytes > SIZE_MAX / 2) bloomc_format_error("m %" PRIu64 " is too large for this machine", 2 * half_bits);
    const uint8_t *data = bloomc_state_body(body, 2 * nbytes);
    for (int i = 0; i < 2; i++) {
        src.halves[i] = (bf_bits){(uint8_t *)data + i * nbytes, half_bits};
        if (!bf_bits_tail_clear(&src.halves[i])) bloomc_format_error("bits set past the end of half %d", i);
    }
    a2_reset(bloomc_typed_data(self, &a2_type), half_bits, src.k, src.seed, src.capacity, &src);
    RB_GC_GUARD(body);
    return self;
}


void bloomc_init_a2_bloom_filter(VALUE mBloomc)
{
    cA2BloomFilter = rb_define_class_under(mBloomc, "A2BloomFilter", rb_cObject);
    rb_define_alloc_func(cA2BloomFilter, a2_alloc);
    rb_define_private_method(cA2BloomFilter, "setup", a2_setup, 4);
    rb_define_method(cA2BloomFilter, "initialize_copy", a2_initialize_copy, 1);
    rb_define_method(cA2BloomFilter, "add", a2_add, 1);
    rb_define_method(cA2BloomFilter, "<<", a2_add, 1);
    rb_define_method(cA2BloomFilter, "add?", a2_add_p, 1);
    rb_define_method(cA2BloomFilter, "include?", a2_include_p, 1);
    rb_define_method(cA2BloomFilter, "[]", a2_include_p, 1);
    bloomc_define_batch_methods(cA2BloomFilter, a2_batch_add, a2_batch_lookup);
    rb_define_method(cA2BloomFilter, "m", a2_m, 0);
    rb_define_method(cA2BloomFilter, "k", a2_k, 0);
    rb_define_method(cA2BloomFilter, "capacity", a2_capacity, 0);
    rb_define_method(cA2BloomFilter, "seed", a2_seed, 0);
    rb_define_method(cA2BloomFilter, "size", a2_size, 0);
    rb_define_method(cA2BloomFilter, "active_size", a2_active_size, 0);
    rb_define_method(cA2BloomFilter, "swaps", a2_swaps, 0);
    VALUE singleton = rb_singleton_class(cA2BloomFilter);
    rb_define_private_method(singleton, "optimal_k", a2_s_optimal_k, 1);
    rb_define_private_method(singleton, "optimal_capacity", a2_s_optimal_capacity, 2);
    rb_define_private_method(singleton, "model_fpr", a2_s_model_fpr, 3);
    rb_define_method(cA2BloomFilter, "==", a2_equal, 1);
    rb_define_method(cA2BloomFilter, "eql?", a2_equal, 1);
    rb_define_method(cA2BloomFilter, "hash", a2_hash, 0);
    rb_define_private_method(cA2BloomFilter, "export_core", a2_export_core, 0);
    rb_define_private_method(cA2BloomFilter, "import_core", a2_import_core, 2);
    rb_define_private_method(cA2BloomFilter, "combine", a2_combine, 2);
    rb_define_method(cA2BloomFilter, "clear", a2_clear, 0);
    rb_define_private_method(cA2BloomFilter, "occupied_halves", a2_occupied_halves, 0);
}
