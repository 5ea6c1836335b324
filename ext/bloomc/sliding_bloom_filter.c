/* Bloomc::SlidingBloomFilter: keys expire after a ttl, and no capacity is
 * given (bf_sliding.h). Construction and the clock: option are in
 * lib/bloomc/sliding_bloom_filter.rb, the methods every kind shares in
 * filter.c. Its cells are every live generation's layers, oldest first: a
 * generation that ends is cut off the front of the run, and a new
 * generation or layer is appended to its end. */
#include "filter.h"
#include "keys.h"
#include "args.h"
#include "state.h"
#include "clock.h"
#include "bf_sliding.h"

static const bloomc_kind sliding_kind;

/* The state (all of it: copies and loads replace it whole). The core's
 * times are seconds since epoch, a reading of the clock: a new clock, or a
 * load, moves epoch and leaves every generation's start as it was, so ages
 * saved again are the same to the bit. now is the time the filter last
 * caught up to: adds go in at it, and a frozen filter answers at it (its
 * clock stands still). */
typedef struct {
    bf_sliding f;       /* first: a core is its bf_sliding */
    double now;         /* core time */
    double epoch;       /* the clock's reading at core time 0 */
    int given;          /* a clock the Ruby layer gives (clock:), in given_now */
    double given_now;   /* its last reading */
    uint64_t max_bytes; /* 0: none; not saved */
} sliding_t;

static ID id_clock, id_call;

static sliding_t *get_filter(VALUE self) { return bloomc_filter_core(self, &sliding_kind); }
static bf_key_hash key_hash(const sliding_t *c, VALUE key) { return bloomc_key_hash(key, c->f.seed, c->f.params.hash); }
static double window(const sliding_t *c) { return c->f.params.ttl / c->f.params.generations; }

/* The clock hooks: the given clock's last reading, or the monotonic clock
 * (for lookups its cheaper reading, which may lag a kernel tick: a
 * generation may end that much late, never early). */
static double clock_now(const void *core, int for_add)
{
    const sliding_t *c = core;
    if (c->given) return c->given_now - c->epoch;
    return (for_add ? bloomc_monotonic_now() : bloomc_lookup_now(window(c))) - c->epoch;
}

/* Reads a given clock (a Ruby callable in @clock) before a single add or
 * lookup; a frozen filter's clock stands still. */
static void read_given_clock(VALUE self, sliding_t *c)
{
    if (RB_LIKELY(!c->given) || OBJ_FROZEN(self)) return;
    VALUE reading = rb_funcall(rb_ivar_get(self, id_clock), id_call, 0);
    if (!RB_FLOAT_TYPE_P(reading) && !RB_INTEGER_TYPE_P(reading) && !rb_obj_is_kind_of(reading, rb_cNumeric))
        rb_raise(rb_eTypeError, "a clock reads seconds as a number, not %" PRIsVALUE, rb_obj_class(reading));
    double now = NUM2DBL(reading);
    if (!bf_sliding_time_valid(now)) rb_raise(rb_eRangeError, "the clock read %g, which is no time a filter takes", now);
    c->given_now = now;
}

/* Gives the filter the state next, its cells the first nbytes of src's
 * src_bytes (zeroed past them). */
static void reinstall(sliding_t *c, const sliding_t *next, size_t nbytes, const uint8_t *src, size_t src_bytes)
{
    bloomc_filter_install_at(bloomc_filter_of_core(c), next, nbytes, src, src_bytes);
}

/* Drops the n oldest generations, which have ended: their cells are the
 * run's first bytes. */
static void drop(sliding_t *c, size_t n)
{
    bloomc_filter *obj = bloomc_filter_of_core(c);
    size_t cut = bf_sliding_prefix_nbytes(&c->f, n), left = obj->body_bytes - cut;
    sliding_t next = *c;
    bf_sliding_drop(&next.f, n);
    reinstall(c, &next, left, obj->body + cut, left);
}

/* Appends a generation started at now (start) or a layer of the newest one:
 * CapacityError, the filter as it was, when there is no room. */
static void extend(sliding_t *c, int start, double now)
{
    bloomc_filter *obj = bloomc_filter_of_core(c);
    sliding_t next = *c;
    size_t nbytes = 0;
    if (!(start ? bf_sliding_start(&next.f, now) : bf_sliding_grow(&next.f)) || !bf_sliding_nbytes(&next.f, &nbytes))
        rb_raise(bloomc_eCapacityError,
                 "the sliding filter cannot grow past %d layers (or 2**60 bits a layer); the key was not added",
                 BF_SLIDING_LAYERS_MAX);
    if (c->max_bytes && nbytes > c->max_bytes)
        rb_raise(bloomc_eCapacityError, "the sliding filter would take %zu bytes, past its max_bytes of %" PRIu64 "; the key was not added",
                 nbytes, c->max_bytes);
    reinstall(c, &next, nbytes, obj->body, obj->body_bytes);
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
static int add_one(sliding_t *c, bf_key_hash h, int report)
{
    for (;;) {
        switch (bf_sliding_add(&c->f, h, c->now, report)) {
        case BF_SLIDING_PRESENT: return 0;
        case BF_SLIDING_ADDED: return 1;
        case BF_SLIDING_CATCH_UP: drop(c, bf_sliding_expired(&c->f, c->now)); break;
        case BF_SLIDING_START: extend(c, 1, c->now); break;
        case BF_SLIDING_GROW: extend(c, 0, c->now); break;
        default: rb_raise(rb_eRangeError, "the clock read %g, which is no time a filter takes", c->now);
        }
    }
}

/* The hot methods, by hand rather than BLOOMC_HOT_METHODS: a given clock is
 * read before the filter catches up. */
static VALUE hot_add(VALUE self, VALUE key)
{
    rb_check_frozen(self);
    sliding_t *c = get_filter(self);
    bf_key_hash h = key_hash(c, key); /* a bad key raises before the clock moves */
    read_given_clock(self, c);
    add_one(bloomc_filter_current(self, &sliding_kind, 1), h, 0);
    return self;
}

static VALUE hot_add_p(VALUE self, VALUE key)
{
    rb_check_frozen(self);
    sliding_t *c = get_filter(self);
    bf_key_hash h = key_hash(c, key);
    read_given_clock(self, c);
    return bloomc_add_p_result(self, add_one(bloomc_filter_current(self, &sliding_kind, 1), h, 1));
}

static VALUE hot_include_p(VALUE self, VALUE key)
{
    sliding_t *c = get_filter(self);
    bf_key_hash h = key_hash(c, key);
    read_given_clock(self, c);
    c = bloomc_filter_current(self, &sliding_kind, 0);
    return RBOOL(bf_sliding_contains(&c->f, h, c->now));
}

static const bloomc_hot_methods hot_methods = {hot_add, hot_add_p, hot_include_p};

/* The batch hooks (filter.c catches the clock up before each group). */
static int add_hook(void *core, bf_key_hash h, int report) { return add_one(core, h, report); }
static int contains_one(const void *core, bf_key_hash h)
{
    const sliding_t *c = core;
    return bf_sliding_contains(&c->f, h, c->now);
}
static void contains_many(void *core, const bf_key_hash *h, size_t n, uint8_t *out)
{
    sliding_t *c = core;
    bf_sliding_contains_many(&c->f, h, n, c->now, out);
}
static uint64_t room(const void *core, uint64_t n)
{
    const sliding_t *c = core;
    return bf_sliding_room(&c->f, c->now, n);
}

/* :nodoc: setup(error_rate, ttl, generations, first_capacity, seed, hash
 * kind, max_bytes or 0), once the Ruby layer has checked them. */
static VALUE setup(VALUE self, VALUE error_rate, VALUE ttl, VALUE generations, VALUE first_capacity, VALUE seed, VALUE hash,
                   VALUE max_bytes)
{
    bloomc_filter_replaceable(self, &sliding_kind);
    sliding_t c = {.max_bytes = NUM2ULL(max_bytes), .epoch = bloomc_monotonic_now()};
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
    double core_now = clock_now(c, 1), to = NIL_P(time) ? bloomc_monotonic_now() : NUM2DBL(time);
    if (!bf_sliding_time_valid(to)) rb_raise(rb_eRangeError, "the clock read %g, which is no time a filter takes", to);
    c->epoch = to - core_now;
    c->given = !NIL_P(time);
    c->given_now = to;
    return self;
}

/* :nodoc: given_time = t: the given clock's reading, for the Ruby
 * layer's methods (the hot ones read it themselves). */
static VALUE sliding_set_given_time(VALUE self, VALUE time)
{
    sliding_t *c = get_filter(self);
    if (c->given && !OBJ_FROZEN(self)) c->given_now = NUM2DBL(time);
    return time;
}

/* :nodoc: brings the filter to its clock's now (not when frozen). */
static VALUE sliding_advance(VALUE self)
{
    bloomc_filter_current(self, &sliding_kind, 0);
    return self;
}

/* :nodoc: the layers, oldest first: [[m, k, capacity, count, bits set, rate,
 * generation, age in seconds], ...] (lib/bloomc/sliding_bloom_filter.rb). */
static VALUE sliding_layer_table(VALUE self)
{
    const sliding_t *c = get_filter(self);
    VALUE rows = rb_ary_new_capa((long)c->f.nlayers);
    for (size_t g = 0, first = 0; g < c->f.ngens; first += c->f.gens[g].nlayers, g++) {
        bf_scalable v = bf_sliding_gen_view(&c->f, g);
        for (size_t i = 0; i < v.nlayers; i++) {
            const bf_layer *l = &v.layers[i];
            VALUE row[] = {ULL2NUM(l->bits.nbits),
                           UINT2NUM(l->k),
                           ULL2NUM(l->capacity),
                           ULL2NUM(l->count),
                           ULL2NUM(bf_bits_count(&l->bits)),
                           DBL2NUM(bf_scalable_layer_rate(&v.params, i)),
                           SIZET2NUM(g),
                           DBL2NUM(c->now - c->f.gens[g].start)};
            rb_ary_push(rows, rb_ary_new_from_values(8, row));
        }
    }
    return rows;
}

/* :nodoc: the compound rate by the formula at each layer's key count. */
static VALUE sliding_design_fpr(VALUE self) { return DBL2NUM(bf_sliding_design_fpr(&get_filter(self)->f)); }

/* The saved fields: bf_sliding's, with ages from the newest generation's
 * start (so they change only when a generation starts or ends), then two
 * that say when the save was, which == and hash leave out: the seconds from
 * that start to the save on the filter's clock, and the wall time
 * (docs/FORMAT.md). */
enum { TAIL_FIELDS = 2 };

static double wall_now(void) { return bloomc_clock_seconds(CLOCK_REALTIME); }
static double reference(const sliding_t *c) { return c->f.ngens ? c->f.gens[c->f.ngens - 1].start : c->now; }

static void save(const void *core, uint64_t *out)
{
    const sliding_t *c = core;
    double ref = reference(c), since = clock_now(c, 1) - ref;
    bf_sliding_save(&c->f, ref, out);
    out += bf_sliding_nfields(&c->f);
    out[0] = bloomc_double_bits(since > 0 ? since : 0);
    out[1] = bloomc_double_bits(wall_now());
}

static int nfields_in(const uint64_t *v)
{
    size_t n = bf_sliding_nfields_in(v);
    if (!n) bloomc_format_error("the counts of generations and layers do not fit");
    return (int)n + TAIL_FIELDS;
}

/* A filter saved at wall time w, since seconds after its newest
 * generation started, has aged since plus the wall time from w to now (none
 * when the wall clock went back): that start is core time 0, on the
 * monotonic clock (a given clock's Ruby layer then moves epoch with
 * use_clock), and the filter has caught up to it. */
static size_t load(void *core, const uint64_t *v)
{
    sliding_t *c = core;
    size_t n = bf_sliding_nfields_in(v);
    double since = bloomc_bits_double(v[n]), saved_wall = bloomc_bits_double(v[n + 1]);
    if (!(since >= 0 && since <= BF_SLIDING_TIME_MAX) || !bf_sliding_time_valid(saved_wall))
        bloomc_format_error("the save's time is out of range");
    double elapsed = wall_now() - saved_wall;
    c->epoch = bloomc_monotonic_now() - since - (elapsed > 0 ? elapsed : 0);
    c->now = 0;
    const char *problem = bf_sliding_load(&c->f, v, n, 0);
    if (problem) bloomc_format_error("%s", problem);
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
    uint64_t m = 0;
    for (size_t i = 0; i < c->f.nlayers; i++) m += c->f.layers[i].bits.nbits;
    *out = (bloomc_numbers){.m = m, .count = &c->f.count, .seed = c->f.seed, .hash = c->f.params.hash};
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
    reinstall(c, &next, 0, NULL, 0);
}

static const bloomc_kind sliding_kind = BLOOMC_KIND(12, "SlidingBloomFilter", sliding_t, .setup_arity = 7, .hot = &hot_methods,
                                                    .nfields = BF_SLIDING_FIXED_FIELDS, .nfields_in = nfields_in,
                                                    .shape_fields = 4, /* seed and hash, error rate, ttl, generations */
                                                    .unequal_tail = TAIL_FIELDS, .empty_cells = 1,
                                                    .methods = BLOOMC_SIZE | BLOOMC_HASH_KIND, .now = clock_now,
                                                    .catch_up = catch_up, .cleared = cleared, .add_one = add_hook,
                                                    .contains_one = contains_one, .contains_many = contains_many, .room = room);

void bloomc_init_sliding_bloom_filter(void)
{
    VALUE mBloomc = rb_define_module("Bloomc");
    VALUE klass = rb_define_class_under(mBloomc, "SlidingBloomFilter", rb_path2class("Bloomc::Filter"));
    bloomc_define_kind(klass, &sliding_kind);
    id_clock = rb_intern("@clock");
    id_call = rb_intern("call");
    rb_define_private_method(klass, "use_clock", sliding_use_clock, 1);
    rb_define_private_method(klass, "given_time=", sliding_set_given_time, 1);
    rb_define_private_method(klass, "advance", sliding_advance, 0);
    rb_define_private_method(klass, "layer_table", sliding_layer_table, 0);
    rb_define_private_method(klass, "design_fpr", sliding_design_fpr, 0);
}
