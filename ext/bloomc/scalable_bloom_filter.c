/* Bloomc::ScalableBloomFilter: a filter that grows a layer at a time as keys
 * come (bf_scalable.h). Construction and the Ruby-side API are in
 * lib/bloomc/scalable_bloom_filter.rb. */
#include "bloomc.h"
#include "bf_scalable.h"

static VALUE cScalableBloomFilter;
static VALUE eCapacityError;

static void free_layers(bf_layer *layers, size_t n)
{
    for (size_t i = 0; i < n; i++) ruby_xfree(layers[i].bits.data);
    ruby_xfree(layers);
}

static void scalable_free(void *ptr)
{
    bf_scalable *f = ptr;
    free_layers(f->layers, f->nlayers);
    ruby_xfree(f);
}

static size_t scalable_memsize(const void *ptr)
{
    const bf_scalable *f = ptr;
    size_t size = sizeof(*f) + f->nlayers * sizeof(bf_layer);
    for (size_t i = 0; i < f->nlayers; i++) size += bf_bits_nbytes(f->layers[i].bits.nbits);
    return size;
}

static const rb_data_type_t scalable_type = {
    .wrap_struct_name = "bloomc/scalable_bloom_filter",
    .function = {
        .dfree = scalable_free,
        .dsize = scalable_memsize,
    },
    .flags = RUBY_TYPED_FREE_IMMEDIATELY | RUBY_TYPED_WB_PROTECTED,
};

static VALUE scalable_alloc(VALUE klass)
{
    bf_scalable *f;
    return TypedData_Make_Struct(klass, bf_scalable, &scalable_type, f);
}

static bf_scalable *get_filter(VALUE self)
{
    bf_scalable *f = bloomc_typed_data(self, &scalable_type);
    if (!f->layers) rb_raise(rb_eTypeError, "uninitialized %" PRIsVALUE, rb_obj_class(self));
    return f;
}

/* Layers being built into dst: copies of src's (or, without src, layer 0
 * of params, zeroed), each allocated in turn. Run under rb_ensure, so that
 * when an allocation raises, the layers built so far are freed. */
typedef struct {
    bf_layer *dst;
    const bf_layer *src;
    const bf_scalable_params *params;
    size_t n, built;
} layer_build;

static VALUE build_layers(VALUE arg)
{
    layer_build *b = (layer_build *)arg;
    for (; b->built < b->n; b->built++) {
        bf_layer l = {{NULL, 0}, 0, 0, 0};
        if (b->src) l = b->src[b->built];
        else if (!bf_scalable_layer_shape(b->params, b->built, &l.capacity, &l.bits.nbits, &l.k))
            rb_raise(rb_eArgError, "no filter holds a first layer of those parameters");
        size_t nbytes = bf_bits_nbytes(l.bits.nbits);
        if (!nbytes) rb_raise(rb_eArgError, "a layer of %" PRIu64 " bits is too large for this machine", l.bits.nbits);
        l.bits.data = ruby_xmalloc(nbytes);
        if (b->src) memcpy(l.bits.data, b->src[b->built].bits.data, nbytes);
        else memset(l.bits.data, 0, nbytes);
        b->dst[b->built] = l;
    }
    return Qnil;
}

static VALUE unbuild_layers(VALUE arg)
{
    layer_build *b = (layer_build *)arg;
    if (b->built < b->n)
        for (size_t i = 0; i < b->built; i++) ruby_xfree(b->dst[i].bits.data);
    return Qnil;
}

/* Fills dst[0 .. n) as build_layers says; raises with nothing allocated. */
static void fill_layers(bf_layer *dst, const bf_scalable_params *params, const bf_layer *src, size_t n)
{
    layer_build b = {dst, src, params, n, 0};
    rb_ensure(build_layers, (VALUE)&b, unbuild_layers, (VALUE)&b);
}

/* n layers, filled (see build_layers), in an array of their own. */
static bf_layer *new_layers(const bf_scalable_params *params, const bf_layer *src, size_t n)
{
    bf_layer *layers = ruby_xcalloc(n, sizeof(bf_layer));
    int state = 0;
    /* the array is freed when filling it raises */
    layer_build b = {layers, src, params, n, 0};
    rb_protect(build_layers, (VALUE)&b, &state);
    if (state) {
        unbuild_layers((VALUE)&b);
        ruby_xfree(layers);
        rb_jump_tag(state);
    }
    return layers;
}

/* Replace the filter's state: one empty layer of params, or a copy of src.
 * The new layers are allocated whole before the old ones are freed, so a
 * NoMemoryError leaves the filter as it was. */
static void scalable_reset(bf_scalable *f, const bf_scalable_params *params, uint32_t seed, const bf_scalable *src)
{
    bf_layer *layers = new_layers(params, src ? src->layers : NULL, src ? src->nlayers : 1);
    free_layers(f->layers, f->nlayers);
    f->layers = layers;
    f->nlayers = src ? src->nlayers : 1;
    f->params = *params;
    f->seed = seed;
    f->count = src ? src->count : 0;
}

NORETURN(static void capacity_error(const bf_scalable *f));
static void capacity_error(const bf_scalable *f)
{
    if (f->params.max_capacity)
        rb_raise(eCapacityError, "the filter holds its max_capacity of %" PRIu64 " keys", f->params.max_capacity);
    rb_raise(eCapacityError, "the filter cannot grow past %zu layers (the next would exceed %d layers or 2**60 bits)",
             f->nlayers, BF_SCALABLE_LAYERS_MAX);
}

/* Appends the next layer (CapacityError when there is none). */
static void append_layer(bf_scalable *f)
{
    bf_layer l = {{NULL, 0}, 0, 0, 0};
    if (!bf_scalable_layer_shape(&f->params, f->nlayers, &l.capacity, &l.bits.nbits, &l.k)) capacity_error(f);
    size_t nbytes = bf_bits_nbytes(l.bits.nbits);
    if (!nbytes) capacity_error(f);
    /* The array first: if the bits then fail, it is one slot longer, unused. */
    f->layers = ruby_xrealloc2(f->layers, f->nlayers + 1, sizeof(bf_layer));
    l.bits.data = ruby_xcalloc(nbytes, 1);
    f->layers[f->nlayers++] = l;
}

/* Adds a hashed key, growing as needed; 1 when it was new. */
static int add_hashed(bf_scalable *f, bf_key_hash h)
{
    for (;;) {
        switch (bf_scalable_add(f, h)) {
        case BF_SCALABLE_PRESENT: return 0;
        case BF_SCALABLE_ADDED: return 1;
        case BF_SCALABLE_GROW: append_layer(f); break;
        default: capacity_error(f);
        }
    }
}

static bf_key_hash key_hash(const bf_scalable *f, VALUE key)
{
    return bloomc_key_hash(key, f->seed, BF_HASH_MURMUR3);
}

static double double_arg(VALUE v)
{
    return NUM2DBL(rb_to_float(v));
}

/* :nodoc: setup(error_rate, initial_capacity, growth, tightening,
 * even_layers, max_capacity or 0, seed), once the Ruby layer has checked
 * their types. */
static VALUE scalable_setup(VALUE self, VALUE error_rate, VALUE initial, VALUE growth, VALUE tightening, VALUE even,
                            VALUE max_capacity, VALUE seed)
{
    rb_check_frozen(self);
    bf_scalable *f = bloomc_typed_data(self, &scalable_type);
    bf_scalable_params p = {
        .error_rate = double_arg(error_rate),
        .initial_capacity = bloomc_count_arg(initial, "initial_capacity", BF_BITS_MAX),
        .growth = double_arg(growth),
        .tightening = double_arg(tightening),
        .even_layers = (uint32_t)NUM2UINT(even),
        .max_capacity = NUM2ULL(max_capacity),
    };
    uint32_t hash_seed = bloomc_uint32_arg(seed, "seed");
    if (!bf_scalable_params_valid(&p)) rb_raise(rb_eArgError, "no scalable filter has those parameters");
    scalable_reset(f, &p, hash_seed, NULL);
    return self;
}

/* :nodoc: deep copy for dup and clone. */
static VALUE scalable_initialize_copy(VALUE self, VALUE orig)
{
    rb_check_frozen(self);
    if (self == orig) return self;
    const bf_scalable *src = get_filter(orig);
    scalable_reset(bloomc_typed_data(self, &scalable_type), &src->params, src->seed, src);
    return self;
}

/*
 * call-seq:
 *   add(key) -> self
 *   self << key -> self
 *
 * Adds +key+ (a String, Symbol or Integer) to the newest layer unless a
 * layer holds it already; a full newest layer is followed by a new one.
 * Raises Bloomc::CapacityError, and changes nothing, when the key is new and
 * the filter holds its max_capacity.
 */
static VALUE scalable_add(VALUE self, VALUE key)
{
    rb_check_frozen(self);
    bf_scalable *f = get_filter(self);
    add_hashed(f, key_hash(f, key));
    return self;
}

/*
 * call-seq: add?(key) -> self or nil
 *
 * Adds +key+ as #add does; returns self when it was new to the filter, nil
 * when it was probably present, as Set#add? does.
 */
static VALUE scalable_add_p(VALUE self, VALUE key)
{
    rb_check_frozen(self);
    bf_scalable *f = get_filter(self);
    return bloomc_add_p_result(self, add_hashed(f, key_hash(f, key)));
}

/*
 * call-seq:
 *   include?(key) -> true or false
 *   self[key] -> true or false
 *
 * False when +key+ was never added; true when it was, and (at the filter's
 * compound false-positive rate, at most error_rate) for a key that was not.
 */
static VALUE scalable_include_p(VALUE self, VALUE key)
{
    const bf_scalable *f = get_filter(self);
    return RBOOL(bf_scalable_contains(f, key_hash(f, key)));
}

/* Batches add one key at a time: an add may need a new layer, which is
 * allocated (and may raise) between keys, never inside the core. */
static void add_many(void *filter, const bf_key_hash *h, size_t n, uint8_t *out)
{
    for (size_t i = 0; i < n; i++) {
        int fresh = add_hashed(filter, h[i]);
        if (out) out[i] = (uint8_t)fresh;
    }
}

static void contains_many(void *filter, const bf_key_hash *h, size_t n, uint8_t *out)
{
    bf_scalable_contains_many(filter, h, n, out);
}

/* What a batch may change, kept to be put back unless it completes: the
 * layer count and counts, and the newest layer's bits (layers after it are
 * new). */
typedef struct {
    VALUE keys, collect;
    bf_scalable *f;
    size_t nlayers;
    uint64_t count, top_count;
    uint8_t *top_bits;
    int done;
} batch_undo;

static VALUE run_batch_add(VALUE arg)
{
    batch_undo *u = (batch_undo *)arg;
    bloomc_batch b = {u->f, u->f->seed, BF_HASH_MURMUR3, add_many, contains_many};
    VALUE result = bloomc_batch_add(&b, u->keys, u->collect);
    u->done = 1;
    return result;
}

/* Puts the filter back when the batch did not complete (CapacityError, a
 * bad key, or any other way out: throw, Thread#kill), and frees the copy. */
static VALUE finish_batch_add(VALUE arg)
{
    batch_undo *u = (batch_undo *)arg;
    bf_scalable *f = u->f;
    if (!u->done) {
        for (size_t i = u->nlayers; i < f->nlayers; i++) ruby_xfree(f->layers[i].bits.data);
        f->nlayers = u->nlayers;
        f->count = u->count;
        bf_layer *top = &f->layers[f->nlayers - 1];
        top->count = u->top_count;
        memcpy(top->bits.data, u->top_bits, bf_bits_nbytes(top->bits.nbits));
    }
    ruby_xfree(u->top_bits);
    return Qnil;
}

/* :nodoc: add_all's and add_new's work (lib/bloomc/batch.rb). A batch that
 * could meet CapacityError (more keys than the filter has room for before
 * max_capacity, or before the last layer it may have is full) is all or
 * nothing: the newest layer is copied first, and put back with the rest
 * unless every key went in. */
static VALUE scalable_batch_add(VALUE self, VALUE keys, VALUE collect)
{
    rb_check_frozen(self);
    bf_scalable *f = get_filter(self);
    Check_Type(keys, T_ARRAY);
    uint64_t n = (uint64_t)RARRAY_LEN(keys);
    if (bf_scalable_room(f, n) >= n) {
        bloomc_batch b = {f, f->seed, BF_HASH_MURMUR3, add_many, contains_many};
        return bloomc_batch_add(&b, keys, collect);
    }
    const bf_layer *top = &f->layers[f->nlayers - 1];
    size_t nbytes = bf_bits_nbytes(top->bits.nbits);
    batch_undo u = {keys, collect, f, f->nlayers, f->count, top->count, ruby_xmalloc(nbytes), 0};
    memcpy(u.top_bits, top->bits.data, nbytes);
    VALUE result = rb_ensure(run_batch_add, (VALUE)&u, finish_batch_add, (VALUE)&u);
    RB_GC_GUARD(keys);
    RB_GC_GUARD(collect);
    return result;
}

/* :nodoc: the batch lookups' work (lib/bloomc/batch.rb). */
static VALUE scalable_batch_lookup(VALUE self, VALUE keys, VALUE mode)
{
    bf_scalable *f = get_filter(self);
    bloomc_batch b = {f, f->seed, BF_HASH_MURMUR3, add_many, contains_many};
    return bloomc_batch_lookup(&b, keys, mode);
}

/* :nodoc: dedup_lines(chunk, out, length): `bloomc dedup`'s work. */
static VALUE scalable_dedup_lines(VALUE self, VALUE chunk, VALUE out, VALUE length)
{
    rb_check_frozen(self);
    bf_scalable *f = get_filter(self);
    bloomc_batch b = {f, f->seed, BF_HASH_MURMUR3, add_many, contains_many};
    return bloomc_batch_dedup(&b, chunk, out, length);
}

/* call-seq: size -> Integer
 *
 * The number of add calls so far (a key added twice counts twice). */
static VALUE scalable_size(VALUE self) { return ULL2NUM(get_filter(self)->count); }

/* call-seq: distinct_count -> Integer
 *
 * The keys new to the filter so far: the keys its layers took. */
static VALUE scalable_distinct_count(VALUE self) { return ULL2NUM(bf_scalable_distinct(get_filter(self))); }

/* call-seq: m -> Integer
 *
 * The bits of all layers together. */
static VALUE scalable_m(VALUE self)
{
    const bf_scalable *f = get_filter(self);
    uint64_t m = 0;
    for (size_t i = 0; i < f->nlayers; i++) m += f->layers[i].bits.nbits;
    return ULL2NUM(m);
}

/* call-seq: seed -> Integer
 *
 * The MurmurHash3 seed of the key hash. */
static VALUE scalable_seed(VALUE self) { return UINT2NUM(get_filter(self)->seed); }

/* call-seq: error_rate -> Float
 *
 * The false-positive rate all layers together stay within. */
static VALUE scalable_error_rate(VALUE self) { return DBL2NUM(get_filter(self)->params.error_rate); }

/* call-seq: initial_capacity -> Integer
 *
 * The keys the first layer takes. */
static VALUE scalable_initial_capacity(VALUE self) { return ULL2NUM(get_filter(self)->params.initial_capacity); }

/* call-seq: growth -> Float
 *
 * How many times larger each layer's capacity is than the one before. */
static VALUE scalable_growth(VALUE self) { return DBL2NUM(get_filter(self)->params.growth); }

/* call-seq: tightening -> Float
 *
 * The ratio by which each layer's error rate shrinks past even_layers. */
static VALUE scalable_tightening(VALUE self) { return DBL2NUM(get_filter(self)->params.tightening); }

/* call-seq: even_layers -> Integer
 *
 * The first layers, which share the error rate evenly. */
static VALUE scalable_even_layers(VALUE self) { return UINT2NUM(get_filter(self)->params.even_layers); }

/* call-seq: max_capacity -> Integer or nil
 *
 * The most keys it takes (an add of one more raises Bloomc::CapacityError),
 * or nil. */
static VALUE scalable_max_capacity(VALUE self)
{
    uint64_t max = get_filter(self)->params.max_capacity;
    return max ? ULL2NUM(max) : Qnil;
}

/* :nodoc: [[m, k, capacity, count, bits set, error rate it was sized for],
 * ...], oldest first (lib/bloomc/scalable_bloom_filter.rb). */
static VALUE scalable_layer_table(VALUE self)
{
    const bf_scalable *f = get_filter(self);
    VALUE rows = rb_ary_new_capa((long)f->nlayers);
    for (size_t i = 0; i < f->nlayers; i++) {
        const bf_layer *l = &f->layers[i];
        VALUE row = rb_ary_new_from_args(6, ULL2NUM(l->bits.nbits), UINT2NUM(l->k), ULL2NUM(l->capacity),
                                         ULL2NUM(l->count), ULL2NUM(bf_bits_count(&l->bits)),
                                         DBL2NUM(bf_scalable_layer_rate(&f->params, i)));
        rb_ary_push(rows, row);
    }
    return rows;
}

/* :nodoc: the compound rate now, from each layer's fill. */
static VALUE scalable_current_fpr(VALUE self) { return DBL2NUM(bf_scalable_current_fpr(get_filter(self))); }

/* :nodoc: the compound rate by the formula at each layer's key count. */
static VALUE scalable_design_fpr(VALUE self) { return DBL2NUM(bf_scalable_design_fpr(get_filter(self))); }

static int same_params(const bf_scalable *a, const bf_scalable *b)
{
    const bf_scalable_params *p = &a->params, *q = &b->params;
    return a->seed == b->seed && p->error_rate == q->error_rate && p->initial_capacity == q->initial_capacity &&
           p->growth == q->growth && p->tightening == q->tightening && p->even_layers == q->even_layers &&
           p->max_capacity == q->max_capacity;
}

/*
 * call-seq: self == other -> true or false
 *
 * Equal when +other+ is a ScalableBloomFilter of the same parameters and
 * seed, with the same layers (shapes, counts and bits) and add count.
 */
static VALUE scalable_equal(VALUE self, VALUE other)
{
    if (self == other) return Qtrue;
    if (!rb_typeddata_is_kind_of(other, &scalable_type)) return Qfalse;
    const bf_scalable *a = get_filter(self), *b = get_filter(other);
    if (!same_params(a, b) || a->count != b->count || a->nlayers != b->nlayers) return Qfalse;
    for (size_t i = 0; i < a->nlayers; i++) {
        const bf_layer *x = &a->layers[i], *y = &b->layers[i];
        if (!bf_layer_same_shape(x, y) || x->count != y->count ||
            memcmp(x->bits.data, y->bits.data, bf_bits_nbytes(x->bits.nbits)) != 0)
            return Qfalse;
    }
    return Qtrue;
}

/*
 * call-seq: hash -> Integer
 *
 * A hash of the parameters, add count and layers, consistent with ==.
 */
static VALUE scalable_hash(VALUE self)
{
    const bf_scalable *f = get_filter(self);
    st_index_t h = (st_index_t)(f->seed + f->count * 131 + f->nlayers * 7 + f->params.initial_capacity * 31);
    for (size_t i = 0; i < f->nlayers; i++)
        h ^= rb_memhash(f->layers[i].bits.data, (long)bf_bits_nbytes(f->layers[i].bits.nbits)) + i;
    return ST2FIX(h);
}

/* :nodoc: self |= other (Ruby has checked the parameters; the layer shapes
 * are checked here): every key of either is found afterwards. self takes
 * copies of the layers it lacks. */
static VALUE scalable_combine(VALUE self, VALUE other, VALUE op)
{
    rb_check_frozen(self);
    bf_scalable *f = get_filter(self);
    const bf_scalable *o = get_filter(other);
    if (bloomc_intersection_arg(op, same_params(f, o)))
        rb_raise(bloomc_eUnsupportedError, "scalable filters have no exact intersection");
    size_t common = f->nlayers < o->nlayers ? f->nlayers : o->nlayers;
    for (size_t i = 0; i < common; i++)
        if (!bf_layer_same_shape(&f->layers[i], &o->layers[i]))
            rb_raise(rb_eArgError, "cannot combine filters whose layer %zu differs (%" PRIu64 " and %" PRIu64 " bits)", i,
                     f->layers[i].bits.nbits, o->layers[i].bits.nbits);
    if (o->nlayers > f->nlayers) {
        /* copies of the layers self lacks, their counts other's alone (the
         * union below leaves them); the array grows first, then the copies
         * go in, all or none */
        f->layers = ruby_xrealloc2(f->layers, o->nlayers, sizeof(bf_layer));
        fill_layers(f->layers + f->nlayers, &o->params, o->layers + f->nlayers, o->nlayers - f->nlayers);
        f->nlayers = o->nlayers;
    }
    bf_scalable_union(f, o, common);
    return self;
}

/*
 * call-seq: clear -> self
 *
 * Forgets every key: one empty first layer, size 0.
 */
static VALUE scalable_clear(VALUE self)
{
    rb_check_frozen(self);
    bf_scalable *f = get_filter(self);
    bf_scalable_params params = f->params;
    scalable_reset(f, &params, f->seed, NULL);
    return self;
}

#define FIXED_FIELDS 9
#define LAYER_FIELDS 4
#define MAX_FIELDS (FIXED_FIELDS + LAYER_FIELDS * BF_SCALABLE_LAYERS_MAX)

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

/* :nodoc: [[seed, error rate, initial capacity, growth, tightening, even
 * layers, max capacity, count, layers, then m, k, capacity and count of
 * each layer], each layer's bits] (docs/FORMAT.md). */
static VALUE scalable_export_core(VALUE self)
{
    const bf_scalable *f = get_filter(self);
    uint64_t fields[MAX_FIELDS];
    const uint8_t *parts[BF_SCALABLE_LAYERS_MAX];
    size_t lengths[BF_SCALABLE_LAYERS_MAX];
    const bf_scalable_params *p = &f->params;
    uint64_t fixed[FIXED_FIELDS] = {f->seed, double_bits(p->error_rate), p->initial_capacity, double_bits(p->growth),
                                    double_bits(p->tightening), p->even_layers, p->max_capacity, f->count, f->nlayers};
    memcpy(fields, fixed, sizeof fixed);
    for (size_t i = 0; i < f->nlayers; i++) {
        const bf_layer *l = &f->layers[i];
        uint64_t *at = fields + FIXED_FIELDS + LAYER_FIELDS * i;
        at[0] = l->bits.nbits;
        at[1] = l->k;
        at[2] = l->capacity;
        at[3] = l->count;
        parts[i] = l->bits.data;
        lengths[i] = bf_bits_nbytes(l->bits.nbits);
    }
    return bloomc_state_new(fields, (int)(FIXED_FIELDS + LAYER_FIELDS * f->nlayers), parts, lengths, (int)f->nlayers);
}

/* :nodoc: the inverse of export_core; Bloomc::FormatError for anything
 * export_core could not have made. */
static VALUE scalable_import_core(VALUE self, VALUE fields, VALUE body)
{
    rb_check_frozen(self);
    Check_Type(fields, T_ARRAY);
    long n = RARRAY_LEN(fields);
    if (n < FIXED_FIELDS) bloomc_format_error("%ld parameters where a scalable filter has at least %d", n, FIXED_FIELDS);
    uint64_t v[MAX_FIELDS];
    bloomc_state_fields(rb_ary_subseq(fields, 0, FIXED_FIELDS), FIXED_FIELDS, v);
    size_t nlayers = (size_t)bloomc_state_check(v[8], 1, BF_SCALABLE_LAYERS_MAX, "layers");
    bloomc_state_fields(fields, (int)(FIXED_FIELDS + LAYER_FIELDS * nlayers), v);
    bf_scalable src = {
        .nlayers = nlayers,
        .params = {
            .error_rate = bits_double(v[1]),
            .initial_capacity = v[2],
            .growth = bits_double(v[3]),
            .tightening = bits_double(v[4]),
            .even_layers = (uint32_t)bloomc_state_check(v[5], 0, BF_SCALABLE_LAYERS_MAX, "even layers"),
            .max_capacity = v[6],
        },
        .seed = (uint32_t)bloomc_state_check(v[0], 0, UINT32_MAX, "seed"),
        .count = v[7],
    };
    if (!bf_scalable_params_valid(&src.params)) bloomc_format_error("no scalable filter has those parameters");
    bf_layer layers[BF_SCALABLE_LAYERS_MAX];
    size_t total = 0;
    for (size_t i = 0; i < nlayers; i++) {
        const uint64_t *at = v + FIXED_FIELDS + LAYER_FIELDS * i;
        bf_layer *l = &layers[i];
        l->bits.nbits = bloomc_state_check(at[0], 1, BF_BITS_MAX, "layer m");
        l->k = (uint32_t)bloomc_state_check(at[1], 1, BF_K_MAX, "layer k");
        l->capacity = bloomc_state_check(at[2], 1, BF_BITS_MAX, "layer capacity");
        l->count = at[3];
        /* Layer i's shape is the parameters' (export_core writes no other):
         * a layer of another shape would not merge with its twin, and the
         * parameters would size the next layer from nothing the file holds. */
        bf_layer want = {{NULL, 0}, 0, 0, 0};
        if (!bf_scalable_layer_shape(&src.params, i, &want.capacity, &want.bits.nbits, &want.k) || !bf_layer_same_shape(l, &want))
            bloomc_format_error("layer %zu is not the layer the filter's parameters give", i);
        size_t nbytes = bf_bits_nbytes(l->bits.nbits);
        if (!nbytes || nbytes > SIZE_MAX - total) bloomc_format_error("layer %zu is too large for this machine", i);
        total += nbytes;
    }
    const uint8_t *data = bloomc_state_body(body, total);
    for (size_t i = 0; i < nlayers; i++) {
        layers[i].bits.data = (uint8_t *)data;
        if (!bf_bits_tail_clear(&layers[i].bits)) bloomc_format_error("layer %zu has bits set past its m", i);
        data += bf_bits_nbytes(layers[i].bits.nbits);
    }
    src.layers = layers;
    scalable_reset(bloomc_typed_data(self, &scalable_type), &src.params, src.seed, &src);
    RB_GC_GUARD(body);
    return self;
}

void bloomc_init_scalable_bloom_filter(VALUE mBloomc)
{
    cScalableBloomFilter = rb_define_class_under(mBloomc, "ScalableBloomFilter", rb_cObject);
    eCapacityError = rb_define_class_under(mBloomc, "CapacityError", rb_const_get(mBloomc, rb_intern("Error")));
    rb_global_variable(&eCapacityError);
    rb_define_alloc_func(cScalableBloomFilter, scalable_alloc);
    rb_define_private_method(cScalableBloomFilter, "setup", scalable_setup, 7);
    rb_define_method(cScalableBloomFilter, "initialize_copy", scalable_initialize_copy, 1);
    rb_define_method(cScalableBloomFilter, "add", scalable_add, 1);
    rb_define_method(cScalableBloomFilter, "<<", scalable_add, 1);
    rb_define_method(cScalableBloomFilter, "add?", scalable_add_p, 1);
    rb_define_method(cScalableBloomFilter, "include?", scalable_include_p, 1);
    rb_define_method(cScalableBloomFilter, "[]", scalable_include_p, 1);
    bloomc_define_batch_methods(cScalableBloomFilter, scalable_batch_add, scalable_batch_lookup);
    rb_define_private_method(cScalableBloomFilter, "dedup_lines", scalable_dedup_lines, 3);
    rb_define_method(cScalableBloomFilter, "size", scalable_size, 0);
    rb_define_method(cScalableBloomFilter, "distinct_count", scalable_distinct_count, 0);
    rb_define_method(cScalableBloomFilter, "m", scalable_m, 0);
    rb_define_method(cScalableBloomFilter, "seed", scalable_seed, 0);
    rb_define_method(cScalableBloomFilter, "error_rate", scalable_error_rate, 0);
    rb_define_method(cScalableBloomFilter, "initial_capacity", scalable_initial_capacity, 0);
    rb_define_method(cScalableBloomFilter, "growth", scalable_growth, 0);
    rb_define_method(cScalableBloomFilter, "tightening", scalable_tightening, 0);
    rb_define_method(cScalableBloomFilter, "even_layers", scalable_even_layers, 0);
    rb_define_method(cScalableBloomFilter, "max_capacity", scalable_max_capacity, 0);
    rb_define_private_method(cScalableBloomFilter, "layer_table", scalable_layer_table, 0);
    rb_define_private_method(cScalableBloomFilter, "current_fpr", scalable_current_fpr, 0);
    rb_define_private_method(cScalableBloomFilter, "design_fpr", scalable_design_fpr, 0);
    rb_define_method(cScalableBloomFilter, "==", scalable_equal, 1);
    rb_define_method(cScalableBloomFilter, "eql?", scalable_equal, 1);
    rb_define_method(cScalableBloomFilter, "hash", scalable_hash, 0);
    rb_define_private_method(cScalableBloomFilter, "combine", scalable_combine, 2);
    rb_define_method(cScalableBloomFilter, "clear", scalable_clear, 0);
    rb_define_private_method(cScalableBloomFilter, "export_core", scalable_export_core, 0);
    rb_define_private_method(cScalableBloomFilter, "import_core", scalable_import_core, 2);
}
