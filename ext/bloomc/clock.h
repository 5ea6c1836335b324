/* Time for the kinds whose keys age (filter.h's clock hooks, now and
 * catch_up): seconds on the monotonic clock, a cheaper read of it for
 * lookups, and a schedule of periodic ticks. */
#ifndef BLOOMC_CLOCK_H
#define BLOOMC_CLOCK_H

#include <math.h>
#include <stdint.h>
#include <time.h>

/* Seconds on clock id, or -1 if it cannot be read (before any epoch: no
 * tick is due). */
static inline double bloomc_clock_seconds(clockid_t id)
{
    struct timespec ts;
    if (clock_gettime(id, &ts) != 0) return -1;
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static inline double bloomc_monotonic_now(void) { return bloomc_clock_seconds(CLOCK_MONOTONIC); }

/* Linux's coarse monotonic clock and its resolution (the kernel's tick, e.g.
 * 4 ms), or 0 where there is none: set once at load (filter.c). Elsewhere a
 * clock of that name may report its counter's resolution rather than how
 * often it moves, so extconf.rb looks for Linux's. */
#ifdef HAVE_CLOCK_MONOTONIC_COARSE
#define BLOOMC_LOOKUP_CLOCK CLOCK_MONOTONIC_COARSE
#endif
extern double bloomc_coarse_resolution;

/* The time a lookup catches a clock of ticks period apart up to. The coarse
 * clock reads the same timeline as CLOCK_MONOTONIC as of the kernel's last
 * update: never ahead, so a lookup never applies a tick early, only late,
 * normally by up to a kernel tick, which keeps an expired key visible that
 * much longer (the upper bound's slack, docs/FILTERS.md). It costs 3 ns
 * where CLOCK_MONOTONIC cost 26 on the development VM, a quarter of a
 * continuous filter's lookup. Used when its resolution is at most 1% of the
 * period. Adds always read CLOCK_MONOTONIC: a tick applied late there would
 * stamp the key with a slot already left, and it would expire early. */
static inline double bloomc_lookup_now(double period)
{
#ifdef BLOOMC_LOOKUP_CLOCK
    if (bloomc_coarse_resolution > 0 && period >= 100 * bloomc_coarse_resolution) {
        double now = bloomc_clock_seconds(BLOOMC_LOOKUP_CLOCK);
        if (now >= 0) return now;
    }
#endif
    return bloomc_monotonic_now();
}

/* A kind's clock: the monotonic clock, or one its Ruby layer gives (a
 * user's callable, whose last reading is given_now), as seconds since
 * epoch, one of its readings: switching clocks, or loading, moves epoch and
 * leaves the kind's own times as they were, to the bit. */
typedef struct {
    double epoch, given_now;
    int given;
} bloomc_clock;

/* Seconds since epoch now: the given reading, or the monotonic clock (for a
 * lookup, bloomc_lookup_now of period). */
static inline double bloomc_clock_now(const bloomc_clock *c, int for_add, double period)
{
    if (c->given) return c->given_now - c->epoch;
    return (for_add ? bloomc_monotonic_now() : bloomc_lookup_now(period)) - c->epoch;
}

/* From now on, the given clock read as reading (given) or the monotonic
 * clock, at the same seconds since epoch as now. */
static inline void bloomc_clock_switch(bloomc_clock *c, double now, int given, double reading)
{
    if (!given) reading = bloomc_monotonic_now();
    *c = (bloomc_clock){.epoch = reading - now, .given_now = reading, .given = given};
}

/* Periodic ticks: tick n is due at epoch + n * period (period 0: no
 * schedule); applied ticks have been applied. */
typedef struct {
    double epoch, period;
    uint64_t applied;
} bloomc_schedule;

/* The ticks due by now that were not yet applied, counted as applied from
 * here on (0 without a schedule, or when now is NaN). */
static inline uint64_t bloomc_schedule_due(bloomc_schedule *s, double now)
{
    if (s->period <= 0 || !(now >= s->epoch)) return 0;
    double due = floor((now - s->epoch) / s->period);
    uint64_t n = due >= 1.8e19 ? UINT64_MAX : (uint64_t)due;
    if (n <= s->applied) return 0;
    uint64_t fresh = n - s->applied;
    s->applied = n;
    return fresh;
}

#endif
