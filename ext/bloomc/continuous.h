/* The continuous filter's binding, shared by its three files:
 * continuous_bloom_filter.c (the filter), continuous_clock.c (its clock,
 * the tick schedule and the timer thread's Clock handle) and
 * continuous_saved.c (copies, dumps, loads and mapped files). */
#ifndef BLOOMC_CONTINUOUS_H
#define BLOOMC_CONTINUOUS_H

#include "filter.h"
#include "mapping.h"
#include "bf_continuous.h"
#include <math.h>
#include <time.h>

/* The kind's core (bloomc_filter.core, filter.h): the filter and its clock's
 * schedule: tick n is due at epoch + n * period (seconds on the monotonic
 * clock); applied ticks have been applied. The
 * timer thread applies due ticks when it wakes, and, while the schedule is
 * live, so does every add and lookup: an add must never write a slot the
 * clock has already left, or its key would expire early by the timer's
 * lateness (a timer thread kept from the GVL by busy threads). */
typedef struct {
    bf_continuous core;
    double epoch, period; /* period 0: no schedule */
    uint64_t applied;
    int live;   /* read the real clock on add and lookup */
    int clocks; /* Clock handles sharing this struct */
    int gone;   /* the filter was collected: only handles remain */
    int still;  /* the filter was frozen: its clock stands still */
} continuous_t;

/* continuous_bloom_filter.c: the kind; the state of an initialized, open
 * filter (a mapped reader's clock brought up to its writer's), or raises;
 * the struct as it is, for the clock's own methods; and install, which gives
 * the filter src's clock and a copy of its buckets (zeroed when
 * src->buckets.data is NULL), with no clock schedule, keeping the Clock
 * handles on the struct and a frozen filter's still clock. */
extern const bloomc_kind bloomc_continuous_kind;
continuous_t *bloomc_continuous_state(VALUE self);
continuous_t *bloomc_continuous_struct(VALUE self);
continuous_t *bloomc_continuous_install(VALUE self, const bf_continuous *src);

/* The mapping of the filter whose core c is. */
static inline bloomc_mapping *continuous_map(continuous_t *c)
{
    return &bloomc_filter_of_core(c)->map;
}

/* A reader of a mapped file follows the writer's clock, which the writer
 * records in the header at every tick: the slot and ticks are read from
 * there whenever the reader is used (an aligned 8-byte load each), so its
 * lookups, copies, dumps and merges all see the writer's live slots. A
 * header never ticked so keeps the last good clock. (The kind's refresh
 * hook; inline: adds and lookups run it.) */
static inline void bloomc_continuous_follow_clock(void *core, const bloomc_mapping *map)
{
    continuous_t *c = core;
    if (map->base && !map->writable) bf_continuous_load_clock(&c->core, map->base);
}

/* continuous_clock.c */
void bloomc_continuous_tick(continuous_t *c, uint64_t n);
VALUE bloomc_continuous_inc_time_slot(VALUE self); /* ContinuousBloomFilter#inc_time_slot */
void bloomc_init_continuous_clock(VALUE klass);
extern double bloomc_coarse_resolution;
/* continuous_saved.c: copies, dumps, loads and mapping a file. */
void bloomc_init_continuous_saved(VALUE klass);

/* Inline: adds and lookups read the clock on every call. */

/* The number of ticks due at time now under the schedule (0 without one). */
static inline uint64_t due_ticks(const continuous_t *c, double now)
{
    if (c->period <= 0 || now < c->epoch) return 0;
    double due = floor((now - c->epoch) / c->period);
    return due >= 1.8e19 ? UINT64_MAX : (uint64_t)due;
}

/* Apply the ticks due at time now; returns how many. */
static inline uint64_t catch_up(continuous_t *c, double now)
{
    uint64_t due = due_ticks(c, now);
    if (due <= c->applied) return 0;
    uint64_t n = due - c->applied;
    bloomc_continuous_tick(c, n);
    c->applied = due;
    return n;
}

/* Seconds on clock id, or -1 if it cannot be read. */
static inline double clock_seconds(clockid_t id)
{
    struct timespec ts;
    if (clock_gettime(id, &ts) != 0) return -1;
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Before any epoch (due_ticks: no tick due) if the clock cannot be read. */
static inline double monotonic_now(void)
{
    return clock_seconds(CLOCK_MONOTONIC);
}

/* Linux's coarse monotonic clock and its resolution (the kernel's tick, e.g.
 * 4 ms), or 0 where there is none. (Elsewhere a clock of that name may
 * report its counter's resolution rather than how often it moves, so
 * extconf.rb looks for Linux's.) Set once at load. */
#ifdef HAVE_CLOCK_MONOTONIC_COARSE
#define LOOKUP_CLOCK CLOCK_MONOTONIC_COARSE
#endif

/* The time a lookup catches the clock up to. The coarse clock reads the
 * same timeline as CLOCK_MONOTONIC as of the kernel's last update: never
 * ahead, so a lookup never applies a tick early, only late, normally by up
 * to a kernel tick, which keeps an expired key visible that much longer
 * (the upper bound's slack, docs/FILTERS.md). It costs 3 ns where CLOCK_MONOTONIC
 * cost 26 on the development VM, a quarter of a lookup. Used when its
 * resolution is at most 1% of the period. Adds always read CLOCK_MONOTONIC:
 * a tick applied late there would stamp the key with a slot already left,
 * and it would expire early. */
static inline double lookup_now(const continuous_t *c)
{
#ifdef LOOKUP_CLOCK
    if (bloomc_coarse_resolution > 0 && c->period >= 100 * bloomc_coarse_resolution) {
        double now = clock_seconds(LOOKUP_CLOCK);
        if (now >= 0) return now;
    }
#endif
    return monotonic_now();
}

#endif
