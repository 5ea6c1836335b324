/* Bloomc::ScalableBloomFilter: a filter that grows a layer at a time as keys
 * come (bf_scalable.h); construction is in lib/bloomc/scalable_bloom_filter.rb,
 * the methods every kind shares in filter.c. The layers' bits are one run of
 * cells, oldest first (the saved body's order), and the layer table is in the
 * core: a new layer is a new run with the old layers copied in (amortised, as
 * layers grow geometrically). */
#include "filter.h"
#include "keys.h"
#include "args.h"
#include "state.h"
#include "bf_scalable.h"

static const bloomc_kind scalable_kind;

typedef struct {
    bf_scalable f; /* first: a core is its bf_scalable */
    bf_layer layers[BF_SCALABLE_LAYERS_MAX];
} scalable;

static bf_scalable *get_filter(VALUE self) { return bloomc_filter_core(self, &scalable_kind); }
static bf_key_hash key_hash(const bf_scalable *f, VALUE key) { return bloomc_key_hash(key, f->seed, f->params.hash); }

/* The bytes of c's layers' bits (0: more than this machine holds). */
static size_t cells_bytes(scalable *c)
{
    c->f.layers = c->layers; /* a copy's table is its own */
    return bf_scalable_nbytes(&c->f);
}

/* Appends the next layer, zeroed (CapacityError when there is none); the
 * filter is unchanged when that or the allocation raises. */
static void append_layer(bf_scalable *f)
{
    scalable next = *(scalable *)f;
    bloomc_filter *obj = bloomc_filter_of_core(f);
    size_t nbytes = 0;
    next.f.nlayers++;
    if (!bf_scalable_layer_init(&f->params, f->nlayers, &next.layers[f->nlayers]) || !(nbytes = cells_bytes(&next))) {
        if (f->params.max_capacity)
            rb_raise(bloomc_eCapacityError, "the filter holds its max_capacity of %" PRIu64 " keys", f->params.max_capacity);
        rb_raise(bloomc_eCapacityError, "the filter cannot grow past %zu layers (the next would exceed %d layers or 2**60 bits)",
                 f->nlayers, BF_SCALABLE_LAYERS_MAX);
    }
    bloomc_filter_install_at(obj, &next, nbytes, obj->body, obj->body_bytes);
}

/* Adds a hashed key, growing as needed; 1 when it was new. */
static int add_one(void *core, bf_key_hash h, int report)
{
    bf_scalable *f = core;
    for (;;) {
        bf_scalable_result r = bf_scalable_add(f, h);
        if (r != BF_SCALABLE_GROW) return r == BF_SCALABLE_ADDED;
        append_layer(f);
    }
}

/* :nodoc: max_capacity is 0 for none; the Ruby layer has checked them all. */
static VALUE setup(VALUE self, VALUE error_rate, VALUE initial, VALUE growth, VALUE tightening, VALUE even,
                   VALUE max_capacity, VALUE seed, VALUE hash)
{
    bloomc_filter_replaceable(self, &scalable_kind);
    scalable c = {.f.nlayers = 1};
    c.f.params = (bf_scalable_params){NUM2DBL(error_rate), bloomc_count_arg(initial, "initial_capacity", BF_BITS_MAX),
                                      NUM2DBL(growth), NUM2DBL(tightening), (uint32_t)NUM2UINT(even), NUM2ULL(max_capacity),
                                      bloomc_hash_kind_arg(hash)};
    c.f.seed = bloomc_uint32_arg(seed, "seed");
    /* valid parameters give a first layer */
    if (!bf_scalable_params_valid(&c.f.params) || !bf_scalable_layer_init(&c.f.params, 0, &c.layers[0]))
        rb_raise(rb_eArgError, "no scalable filter has those parameters");
    bloomc_filter_install(self, &c, cells_bytes(&c), NULL, 0);
    return self;
}

static void contains_many(void *f, const bf_key_hash *h, size_t n, uint8_t *out) { bf_scalable_contains_many(f, h, n, out); }

/* Raises itself, to name the layer (a message in a static buffer would race
 * between Ractors); only cells from outside can have bits past an m. */
static const char *attach(void *core, uint8_t *body, int saved)
{
    scalable *c = core;
    c->f.layers = c->layers;
    size_t bad = bf_scalable_attach(&c->f, body);
    if (bad < c->f.nlayers) bloomc_format_error("layer %zu has bits set past its m", bad);
    return NULL;
}

/* A batch of more keys than this may meet CapacityError, and is undone
 * when it does (filter.c). */
static uint64_t room(const void *core, uint64_t n) { return bf_scalable_room(core, n); }

/* call-seq: distinct_count -> Integer
 *
 * The keys new to the filter so far: the keys its layers took. */
static VALUE scalable_distinct_count(VALUE self) { return ULL2NUM(bf_scalable_distinct(get_filter(self))); }
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
 * The most keys it takes (one more raises Bloomc::CapacityError), or nil. */
static VALUE scalable_max_capacity(VALUE self) { return get_filter(self)->params.max_capacity ? ULL2NUM(get_filter(self)->params.max_capacity) : Qnil; }
/* :nodoc: the compound rate by the formula at each layer's key count. */
static VALUE scalable_design_fpr(VALUE self) { return DBL2NUM(bf_scalable_design_fpr(get_filter(self))); }

/* :nodoc: [capacity, m, k] of layer +index+ for this filter's parameters,
 * whether or not it has that layer yet; nil when no filter of them has one
 * (Bloomc::Redis::ScalableBloomFilter sizes its layers by it). */
static VALUE scalable_layer_shape(VALUE self, VALUE index)
{
    uint64_t capacity, m;
    uint32_t k;
    long i = NUM2LONG(index);
    if (i < 0 || i >= BF_SCALABLE_LAYERS_MAX) return Qnil;
    if (!bf_scalable_layer_shape(&get_filter(self)->params, (size_t)i, &capacity, &m, &k)) return Qnil;
    return rb_ary_new_from_args(3, ULL2NUM(capacity), ULL2NUM(m), UINT2NUM(k));
}

/* :nodoc: [[m, k, capacity, count, bits set, error rate it was sized for],
 * ...], oldest first (lib/bloomc/scalable_bloom_filter.rb). */
static VALUE scalable_layer_table(VALUE self)
{
    const bf_scalable *f = get_filter(self);
    VALUE rows = rb_ary_new_capa((long)f->nlayers);
    for (size_t i = 0; i < f->nlayers; i++) {
        const bf_layer *l = &f->layers[i];
        rb_ary_push(rows, rb_ary_new_from_args(6, ULL2NUM(l->bits.nbits), UINT2NUM(l->k), ULL2NUM(l->capacity), ULL2NUM(l->count),
                                               ULL2NUM(bf_bits_count(&l->bits)), DBL2NUM(bf_scalable_layer_rate(&f->params, i))));
    }
    return rows;
}

/* self |= other: every key of either is found afterwards. self takes copies
 * of the layers it lacks, their counts other's alone (the union leaves
 * them). */
static void combine(void *core, const void *other, int intersect)
{
    bf_scalable *f = core;
    const bf_scalable *o = other;
    if (intersect) rb_raise(bloomc_eUnsupportedError, "scalable filters have no exact intersection");
    size_t common = f->nlayers < o->nlayers ? f->nlayers : o->nlayers;
    bloomc_filter *obj = bloomc_filter_of_core(core), *from = bloomc_filter_of_core((void *)other);
    size_t have = obj->body_bytes;
    if (from->body_bytes > have) {
        scalable next = *(const scalable *)o;
        memcpy(next.layers, f->layers, sizeof(bf_layer) * common);
        next.f.count = f->count;
        bloomc_filter_install_at(obj, &next, from->body_bytes, obj->body, have);
        memcpy(obj->body + have, from->body + have, from->body_bytes - have);
    }
    bf_scalable_union(f, o, common);
}

/* After clear zeroed the cells: one empty first layer. */
static void cleared(void *core)
{
    scalable to = *(scalable *)core;
    to.f.nlayers = 1;
    to.layers[0].count = 0;
    bloomc_filter_install_at(bloomc_filter_of_core(core), &to, cells_bytes(&to), NULL, 0);
}

enum { FIXED_FIELDS = 9 };

/* [seed, error rate, initial capacity, growth, tightening, even layers, max
 * capacity, count, layers L, then m, k, capacity and count of each layer]
 * (docs/FORMAT.md). */
static void save(const void *core, uint64_t *out)
{
    const bf_scalable *f = core;
    const bf_scalable_params *p = &f->params;
    uint64_t fixed[FIXED_FIELDS] = {bloomc_seed_with_hash(f->seed, p->hash), bloomc_double_bits(p->error_rate), p->initial_capacity, bloomc_double_bits(p->growth),
                                    bloomc_double_bits(p->tightening), p->even_layers, p->max_capacity, f->count, f->nlayers};
    memcpy(out, fixed, sizeof fixed);
    bf_scalable_save_layers(f, out + FIXED_FIELDS);
}

static int nfields_in(const uint64_t *v)
{
    return FIXED_FIELDS + BF_SCALABLE_LAYER_FIELDS * (int)bloomc_state_check(v[8], 1, BF_SCALABLE_LAYERS_MAX, "layers");
}

static size_t load(void *core, const uint64_t *v)
{
    scalable *c = core;
    c->f = (bf_scalable){
        .nlayers = (size_t)v[8], /* checked by nfields_in */
        .params = {bloomc_bits_double(v[1]), v[2], bloomc_bits_double(v[3]), bloomc_bits_double(v[4]),
                   (uint32_t)bloomc_state_check(v[5], 0, BF_SCALABLE_LAYERS_MAX, "even layers"), v[6], bloomc_hash_of_seed(v[0])},
        .seed = (uint32_t)v[0],
        .count = v[7],
    };
    if (!bf_scalable_params_valid(&c->f.params)) bloomc_format_error("no scalable filter has those parameters");
    c->f.layers = c->layers;
    size_t bad = bf_scalable_load_layers(&c->f, v + FIXED_FIELDS);
    if (bad < c->f.nlayers) bloomc_format_error("layer %zu is not the layer the filter's parameters give", bad);
    return cells_bytes(c);
}

static void numbers(void *core, bloomc_numbers *out)
{
    bf_scalable *f = core;
    uint64_t m = 0;
    for (size_t i = 0; i < f->nlayers; i++) m += f->layers[i].bits.nbits;
    *out = (bloomc_numbers){.m = m, .count = &f->count, .seed = f->seed, .hash = f->params.hash};
}

static int contains_one(const bf_scalable *f, bf_key_hash h) { return bf_scalable_contains(f, h); }
BLOOMC_HOT_METHODS(bf_scalable, scalable_kind)

static const bloomc_kind scalable_kind = BLOOMC_KIND(9, "ScalableBloomFilter", scalable, .setup_arity = 8, .hot = &hot_methods, .nfields = FIXED_FIELDS,
                                                     .shape_fields = 7, /* seed and parameters */
                                                     .methods = BLOOMC_SIZE | BLOOMC_HASH_KIND, .cleared = cleared,
                                                     .add_one = add_one, .contains_many = contains_many, .room = room,
                                                     .nfields_in = nfields_in);

void bloomc_init_scalable_bloom_filter(void)
{
    VALUE mBloomc = rb_define_module("Bloomc");
    VALUE klass = rb_define_class_under(mBloomc, "ScalableBloomFilter", rb_path2class("Bloomc::Filter"));
    bloomc_define_kind(klass, &scalable_kind);
    rb_define_method(klass, "distinct_count", scalable_distinct_count, 0);
    rb_define_method(klass, "error_rate", scalable_error_rate, 0);
    rb_define_method(klass, "initial_capacity", scalable_initial_capacity, 0);
    rb_define_method(klass, "growth", scalable_growth, 0);
    rb_define_method(klass, "tightening", scalable_tightening, 0);
    rb_define_method(klass, "even_layers", scalable_even_layers, 0);
    rb_define_method(klass, "max_capacity", scalable_max_capacity, 0);
    rb_define_private_method(klass, "layer_table", scalable_layer_table, 0);
    rb_define_private_method(klass, "design_fpr", scalable_design_fpr, 0);
    rb_define_private_method(klass, "layer_shape", scalable_layer_shape, 1);
}
