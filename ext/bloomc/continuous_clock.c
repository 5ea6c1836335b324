/* ContinuousBloomFilter's clock: the tick, the schedule the timer thread
 * and live adds and lookups follow, and the Clock handle (the timer thread
 * lives in lib/bloomc/continuous_timer.rb). */
#include "continuous.h"
#include "mapping.h"

/* The kind of the filters whose clock this is, set once at load. Only
 * writers and new timers reach the clock: no mapped reader to refresh. */
static const bloomc_kind *continuous_kind;

/* Records the advanced clock in a mapped file's header (ctx). */
static void store_clock(void *header, const bf_continuous *f)
{
    bf_continuous_store_clock(f, header);
}

/* Advance the clock by n ticks. A mapped file gets the new clock before the
 * expired buckets are cleared, so that a process killed in between leaves
 * no bucket newer than the clock its file records (reopening clears what
 * that clock has expired). */
void bloomc_continuous_tick(continuous_t *c, uint64_t n)
{
    const bloomc_mapping *map = continuous_map(c);
    bf_continuous_tick(&c->core, n, map->base && map->writable ? store_clock : NULL, map->base);
}

/* ContinuousBloomFilter::Clock: what the timer thread holds instead of its
 * filter. It shares the filter's struct, so the thread reaches the clock
 * without holding the filter alive, and never through a weak reference,
 * which can hand out a filter already dead. */
static VALUE cClock;

/* The last handle of a collected filter frees the filter's object, which
 * the filter's end left to it (the kind's outlives hook). */
static void clock_free(void *ptr)
{
    continuous_t *c = ptr;
    if (--c->clocks == 0 && c->gone) ruby_xfree(bloomc_filter_of_core(c));
}

/* No dsize: the struct is the filter's. */
static const rb_data_type_t clock_type = {
    .wrap_struct_name = "bloomc/continuous_clock",
    .function = {.dfree = clock_free},
    .flags = RUBY_TYPED_FREE_IMMEDIATELY | RUBY_TYPED_WB_PROTECTED,
};

/* :nodoc: schedule_clock(epoch, period, live): tick n is due at epoch + n *
 * period; live makes add and lookup read the monotonic clock too. */
static VALUE continuous_schedule_clock(VALUE self, VALUE epoch, VALUE period, VALUE live)
{
    continuous_t *c = bloomc_filter_core(self, continuous_kind);
    double e = NUM2DBL(epoch), p = NUM2DBL(period);
    if (!(p > 0) || !isfinite(p) || !isfinite(e)) rb_raise(rb_eArgError, "bad clock schedule");
    c->schedule = (bloomc_schedule){.epoch = e, .period = p};
    c->live = RTEST(live);
    return self;
}

/* :nodoc: a Clock handle on this filter's struct (for its timer). */
static VALUE continuous_clock_handle(VALUE self)
{
    continuous_t *c = bloomc_filter_core(self, continuous_kind);
    VALUE handle = TypedData_Wrap_Struct(cClock, &clock_type, c);
    c->clocks++;
    return handle;
}

/* The shared struct, or NULL once the clock cannot move: its filter was
 * collected or closed, or is a mapped filter this process may not write. */
static continuous_t *clock_target(VALUE handle)
{
    continuous_t *c = bloomc_typed_data(handle, &clock_type);
    if (c->gone || c->still) return NULL;
    const bloomc_mapping *map = continuous_map(c);
    return map->closed || (map->base && !map->writable) ? NULL : c;
}

/* :nodoc: the filter is being frozen (ContinuousBloomFilter#freeze): no
 * Clock may move it from now on. */
static VALUE continuous_stop_clocks(VALUE self)
{
    continuous_t *c = (continuous_t *)bloomc_filter_of(self, continuous_kind)->core; /* set up or not */
    c->still = 1;
    return self;
}

/* :nodoc: Clock#catch_up(now): the ticks due by now applied (how many), or
 * nil when the clock cannot move (the timer then ends). */
static VALUE clock_catch_up(VALUE handle, VALUE now)
{
    double t = NUM2DBL(now);
    continuous_t *c = clock_target(handle);
    return c ? ULL2NUM(catch_up(c, t)) : Qnil;
}

/* :nodoc: Clock#next_tick_at: when the next tick is due; nil without a
 * schedule or when the clock cannot move. */
static VALUE clock_next_tick_at(VALUE handle)
{
    const continuous_t *c = clock_target(handle);
    if (!c || c->schedule.period <= 0) return Qnil;
    const bloomc_schedule *s = &c->schedule;
    return DBL2NUM(s->epoch + (double)(s->applied + 1) * s->period);
}

/* :nodoc: Clock#unschedule: the clock moves only by inc_time_slot again. */
static VALUE clock_unschedule(VALUE handle)
{
    unschedule(bloomc_typed_data(handle, &clock_type));
    return handle;
}

void bloomc_init_continuous_clock(VALUE klass, const bloomc_kind *kind)
{
    continuous_kind = kind;
    rb_define_private_method(klass, "schedule_clock", continuous_schedule_clock, 3);
    rb_define_private_method(klass, "clock_handle", continuous_clock_handle, 0);
    rb_define_private_method(klass, "stop_clocks", continuous_stop_clocks, 0);
    cClock = rb_define_class_under(klass, "Clock", rb_cObject);
    rb_undef_alloc_func(cClock);
    rb_define_method(cClock, "catch_up", clock_catch_up, 1);
    rb_define_method(cClock, "next_tick_at", clock_next_tick_at, 0);
    rb_define_method(cClock, "unschedule", clock_unschedule, 0);
}
