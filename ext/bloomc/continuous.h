/* The continuous filter's binding: continuous_bloom_filter.c, the kind,
 * calls continuous_clock.c, its clock's schedule and the timer thread's
 * Clock handle, which calls nothing back. */
#ifndef BLOOMC_CONTINUOUS_H
#define BLOOMC_CONTINUOUS_H

#include "filter.h"
#include "mapping.h"
#include "bf_continuous.h"
#include "clock.h"

/* The kind's core (bloomc_filter.core, filter.h): the filter, then what is
 * the object's own (bloomc_kind.state_size: copies and loads leave it), its
 * clock's schedule (seconds on the monotonic clock) and the Clock handles
 * on it. The timer thread applies due ticks when it wakes, and, while the
 * schedule is live, so does every add and lookup: an add must never write a
 * slot the clock has already left, or its key would expire early by the
 * timer's lateness (a timer thread kept from the GVL by busy threads). */
typedef struct {
    bf_continuous core;
    bloomc_schedule schedule;
    int live;   /* read the real clock on add and lookup */
    int clocks; /* Clock handles sharing this struct */
    int gone;   /* the filter was collected: only handles remain */
    int still;  /* the filter was frozen: its clock stands still */
} continuous_t;

/* continuous_clock.c: advances the clock by n ticks; defines the clock's
 * private methods and Clock on klass, the class of kind. */
void bloomc_continuous_tick(continuous_t *c, uint64_t n);
void bloomc_init_continuous_clock(VALUE klass, const bloomc_kind *kind);

/* The mapping of the filter whose core c is. */
static inline bloomc_mapping *continuous_map(continuous_t *c)
{
    return &bloomc_filter_of_core(c)->map;
}

/* Applies the ticks due at time now (the catch_up hook; inline: adds and
 * lookups catch up on every call); returns how many. */
static inline uint64_t catch_up(void *core, double now)
{
    continuous_t *c = core;
    uint64_t n = bloomc_schedule_due(&c->schedule, now);
    if (n) bloomc_continuous_tick(c, n);
    return n;
}

/* No schedule: the clock moves only by inc_time_slot. */
static inline void unschedule(continuous_t *c)
{
    c->schedule = (bloomc_schedule){0};
    c->live = 0;
}

#endif
