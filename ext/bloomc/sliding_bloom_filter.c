/* Bloomc::SlidingBloomFilter: keys expire after a ttl, and no capacity is
 * given (bf_sliding.h; construction and clock: in
 * lib/bloomc/sliding_bloom_filter.rb). Its cells are every live generation's
 * layers, oldest first: a generation that ends is cut off the front of the
 * run, and a new generation or layer is appended to its end. */
#include "filter.h"
#include "keys.h"
#include "args.h"
#include "state.h"
#include "clock.h"
#include "bf_sliding.h"

static const bloomc_kind sliding_kind;

/* The state, all of it: the core's times are its clock's (clock.h). now
 * is the time it last caught up to: adds go in at it, and a frozen filter
 * answers at it. */
typedef struct {
    bf_sliding f; /* first: a core is its bf_sliding */
    double now;
    bloomc_clock clock;
    uint64_t max_bytes; /* 0: none; not saved */
} sliding_t;

static ID id_read_clock;

static sliding_t *get_filter(VALUE self) { return bloomc_filter_core(self, &sliding_kind); }
static bf_key_hash key_hash(const sliding_t *c, VALUE key) { return bloomc_key_hash(key, c->f.seed, c->f.params.hash); }
static double window(const sliding_t *c) { return c->f.params.ttl / c->f.params.generations; }

/* The now hook (a lookup's cheaper clock may end a generation a kernel
 * tick late, never early). */
static double clock_now(const void *c, int for_add) { return bloomc_clock_now(&((const sliding_t *)c)->clock, for_add, window(c)); }

/* Drops the n oldest generations, which have ended: their cells are the
 * run's first bytes. */
static void drop(sliding_t *c, size_t n)
{
    bloomc_filter *obj = bloomc_filter_of_core(c);
    size_t cut = bf_sliding_prefix_nbytes(&c->f, n), left = obj->body_bytes - cut;
    sliding_t next = *c;
    bf_sliding_drop(&next.f, n);
    bloomc_filter_install_at(obj, &next, left, obj->body + cut, left);
}

/* Appends a generation started now (start) or a layer of the newest one:
 * CapacityError, the filter as it was, when there is no room. */
static void extend(sliding_t *c, int start)
{
    bloomc_filter *obj = bloomc_filter_of_core(c);
    sliding_t next = *c;
    size_t nbytes = 0;
    if (!(start ? bf_sliding_start(&next.f, c->now) : bf_sliding_grow(&next.f)) || !bf_sliding_nbytes(&next.f, &nbytes))
        rb_raise(bloomc_eCapacityError, "the sliding filter cannot grow past %d layers; the key was not added", BF_SLIDING_LAYERS_MAX);
    if (c->max_bytes && nbytes > c->max_bytes)
        rb_raise(bloomc_eCapacityError, "the sliding filter would take %zu bytes, past its max_bytes of %" PRIu64 "; the key was not added",
                 nbytes, c->max_bytes);
    bloomc_filter_install_at(obj, &next, nbytes, obj->body, obj->body_bytes);
}

/* Brings the filter to now (its clock never goes back: a lookup's cheaper
 * reading may lag an add's), dropping what has ended; how many ended. */
static uint64_t catch_up(void *core, double now)
{
    sliding_t *c = core;
    if (!(now > c->now)) return 0; /* NaN too: a given clock not read yet */
    c->now = now;
    size_t n = bf_sliding_expired(&c->f, now);
    if (n) drop(c, n);
    return n;
}

/* Adds a hashed key at the time the filter caught up to; 1 when it was new. */
static int add_one(void *core, bf_key_hash h, int report)
{
    sliding_t *c = core;
    for (;;) {
        switch (bf_sliding_add(&c->f, h, c->now, report)) {
        case BF_SLIDING_PRESENT: return 0;
        case BF_SLIDING_ADDED: return 1;
        case BF_SLIDING_CATCH_UP: drop(c, bf_sliding_expired(&c->f, c->now)); break;
        case BF_SLIDING_START: extend(c, 1); break;
        case BF_SLIDING_GROW: extend(c, 0); break;
        default: rb_raise(rb_eRangeError, "the clock read %g, which is no time a filter takes", c->now);
        }
    }
}

/* The hot methods' start (not BLOOMC_HOT_METHODS'): the key hashed (a bad
 * one raises before the clock moves), a given clock read (the Ruby layer's
 * read_clock; a frozen filter's stands still), the filter brought to now. */
static sliding_t *current(VALUE self, VALUE key, bf_key_hash *h, int for_add)
{
    sliding_t *c = get_filter(self);
    *h = key_hash(c, key);
    if (c->clock.given && !OBJ_FROZEN(self)) c->clock.given_now = NUM2DBL(rb_funcall(self, id_read_clock, 0));
    return bloomc_filter_current(self, &sliding_kind, for_add);
}

static int hot_add_one(VALUE self, VALUE key, int report)
{
    bf_key_hash h;
    rb_check_frozen(self);
    return add_one(current(self, key, &h, 1), h, report);
}
static VALUE hot_add(VALUE self, VALUE key) { return hot_add_one(self, key, 0), self; }
static VALUE hot_add_p(VALUE self, VALUE key) { return bloomc_add_p_result(self, hot_add_one(self, key, 1)); }
static VALUE hot_include_p(VALUE self, VALUE key)
{
    bf_key_hash h;
    const sliding_t *c = current(self, key, &h, 0);
    return RBOOL(bf_sliding_contains(&c->f, h, c->now));
}

static const bloomc_hot_methods hot_methods = {hot_add, hot_add_p, hot_include_p};

/* The batch hooks (filter.c catches the clock up before each group). */
static int contains_one(const void *c, bf_key_hash h) { return bf_sliding_contains(c, h, ((const sliding_t *)c)->now); }
static void contains_many(void *c, const bf_key_hash *h, size_t n, uint8_t *out)
{
    bf_sliding_contains_many(c, h, n, ((sliding_t *)c)->now, out);
}
static uint64_t room(const void *c, uint64_t n) { return bf_sliding_room(c, ((const sliding_t *)c)->now, n); }

/* :nodoc: setup(error_rate, ttl, generations, first_capacity, seed, hash
 * kind, max_bytes or 0), once the Ruby layer has checked them. */
static VALUE setup(VALUE self, VALUE error_rate, VALUE ttl, VALUE generations, VALUE first_capacity, VALUE seed, VALUE hash,
                   VALUE max_bytes)
{
    bloomc_filter_replaceable(self, &sliding_kind);
    sliding_t c = {.max_bytes = NUM2ULL(max_bytes), .clock.epoch = bloomc_monotonic_now()};
    bf_sliding_params p = {NUM2DBL(error_rate), NUM2DBL(ttl), NUM2UINT(generations), NUM2ULL(first_capacity),
                           bloomc_hash_kind_arg(hash)};
    if (!bf_sliding_init(&c.f, &p, bloomc_uint32_arg(seed, "seed")))
        rb_raise(rb_eArgError, "no sliding filter has those parameters");
    bloomc_filter_install(self, &c, 0, NULL, 0);
    return self;
}

/* :nodoc: use_clock(time or nil): from now on the clock is the Ruby
 * layer's, read as time now (nil: the monotonic clock's); epoch moves so
 * that every generation keeps its age. */
static VALUE sliding_use_clock(VALUE self, VALUE time)
{
    rb_check_frozen(self);
    sliding_t *c = get_filter(self);
    double reading = NIL_P(time) ? 0 : NUM2DBL(time);
    if (!bf_sliding_time_valid(reading)) rb_raise(rb_eRangeError, "the clock read %g, which is no time a filter takes", reading);
    bloomc_clock_switch(&c->clock, clock_now(c, 1), !NIL_P(time), reading);
    return self;
}

/* :nodoc: tick(time or nil): the given clock's reading (the hot methods
 * read it themselves), then, with advance, the filter brought to it; a
 * frozen filter's clock stands still. */
static VALUE sliding_tick(VALUE self, VALUE time, VALUE advance)
{
    sliding_t *c = get_filter(self);
    if (c->clock.given && !NIL_P(time) && !OBJ_FROZEN(self)) c->clock.given_now = NUM2DBL(time);
    if (RTEST(advance)) bloomc_filter_current(self, &sliding_kind, 0);
    return self;
}

/* :nodoc: the layers, oldest first: [[m, k, capacity, count, bits set,
 * generation, age in seconds], ...] (lib/bloomc/sliding_bloom_filter.rb). */
static VALUE sliding_layer_table(VALUE self)
{
    const sliding_t *c = get_filter(self);
    VALUE rows = rb_ary_new_capa((long)c->f.nlayers);
    for (size_t g = 0, i = 0; g < c->f.ngens; g++)
        for (size_t end = i + c->f.gens[g].nlayers; i < end; i++) {
            const bf_layer *l = &c->f.layers[i];
            rb_ary_push(rows, rb_ary_new_from_args(7, ULL2NUM(l->bits.nbits), UINT2NUM(l->k), ULL2NUM(l->capacity), ULL2NUM(l->count),
                                                   ULL2NUM(bf_bits_count(&l->bits)), SIZET2NUM(g), DBL2NUM(c->now - c->f.gens[g].start)));
        }
    return rows;
}

/* The saved fields and when the save was (bf_sliding_save_timed). */
static double wall_now(void) { return bloomc_clock_seconds(CLOCK_REALTIME); }

static void save(const void *core, uint64_t *out)
{
    const sliding_t *c = core;
    bf_sliding_save_timed(&c->f, clock_now(c, 1), wall_now(), out);
}

/* 0 for fields no save writes: load refuses them. */
static int nfields_in(const uint64_t *v) { return (int)bf_sliding_nfields_in(v) + BF_SLIDING_TIME_FIELDS; }

/* The newest generation's start is core time 0, on the monotonic clock (a
 * given clock's Ruby layer then switches it), and caught up to. */
static size_t load(void *core, const uint64_t *v)
{
    sliding_t *c = core;
    double ago = 0;
    const char *problem = bf_sliding_load_timed(&c->f, v, wall_now(), &ago);
    if (problem) bloomc_format_error("%s", problem);
    c->clock.epoch = bloomc_monotonic_now() - ago;
    size_t nbytes = 0;
    bf_sliding_nbytes(&c->f, &nbytes); /* bf_sliding_load checked it */
    return nbytes;
}

/* Raises itself, to name the layer. */
static const char *attach(void *core, uint8_t *body, int saved)
{
    sliding_t *c = core;
    size_t bad = bf_sliding_attach(&c->f, body);
    if (bad < c->f.nlayers) bloomc_format_error("layer %zu has bits set past its m", bad);
    return NULL;
}

static void numbers(void *core, bloomc_numbers *out)
{
    sliding_t *c = core;
    *out = (bloomc_numbers){.m = bf_sliding_bits(&c->f), .count = &c->f.count, .seed = c->f.seed, .hash = c->f.params.hash};
}

static void combine(void *core, const void *other, int intersect)
{
    rb_raise(bloomc_eUnsupportedError, "sliding filters cannot be combined: their generations start at other times");
}

/* After clear zeroed the cells and the count: no generation. */
static void cleared(void *core)
{
    sliding_t *c = core, next = *c;
    bf_sliding_drop(&next.f, next.f.ngens);
    bloomc_filter_install_at(bloomc_filter_of_core(c), &next, 0, NULL, 0);
}

static const bloomc_kind sliding_kind = BLOOMC_KIND(12, "SlidingBloomFilter", sliding_t, .setup_arity = 7, .hot = &hot_methods,
                                                    .nfields = BF_SLIDING_FIXED_FIELDS, .nfields_in = nfields_in,
                                                    .shape_fields = 4, /* seed and hash, error rate, ttl, generations */
                                                    .unequal_tail = BF_SLIDING_TIME_FIELDS, .empty_cells = 1,
                                                    .methods = BLOOMC_SIZE | BLOOMC_HASH_KIND, .now = clock_now,
                                                    .catch_up = catch_up, .cleared = cleared, .add_one = add_one,
                                                    .contains_one = contains_one, .contains_many = contains_many, .room = room);

void bloomc_init_sliding_bloom_filter(void)
{
    VALUE mBloomc = rb_define_module("Bloomc");
    VALUE klass = rb_define_class_under(mBloomc, "SlidingBloomFilter", rb_path2class("Bloomc::Filter"));
    bloomc_define_kind(klass, &sliding_kind);
    id_read_clock = rb_intern("read_clock");
    rb_define_private_method(klass, "use_clock", sliding_use_clock, 1);
    rb_define_private_method(klass, "tick", sliding_tick, 2);
    rb_define_private_method(klass, "layer_table", sliding_layer_table, 0);
}
