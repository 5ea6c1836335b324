/* The sliding Bloom filter (issue 34): keys age out after ttl seconds, and
 * no capacity is given.
 *
 * Time is cut into generations. A generation takes adds for window = ttl / g
 * seconds from its start, and ends (is dropped whole) once now - start >=
 * life = ttl + window: a key it holds was added less than window after its
 * start, so it is found until at least ttl after its add, and gone by ttl *
 * (1 + 1/g). A generation starts at the first add after the newest one's
 * window (lazily, so starts are at least window apart): at most g + 1 are
 * alive at once, since (now - life, now] holds no more starts. Each is a
 * scalable Bloom filter (bf_scalable.h) at error_rate / (g + 1), so their
 * union stays within error_rate at every moment, whatever the rate of adds.
 * A generation's first layer is sized from the keys the one before it took
 * (a little more, see bf_sliding.c), and it grows by layers within its
 * window when the rate rises, so memory follows the keys of the window.
 *
 * Every generation's layers sit in one table, oldest generation first and
 * each generation's layers oldest first, and their bits in one run of
 * cells in that order, which the caller allocates: a generation's end cuts
 * a prefix off the run, and a start or a layer appends to its end. The core
 * never allocates, never reads a clock (now is always the caller's, in
 * seconds on the filter's own timeline) and holds no pointer but the
 * layers' bits, so a copy of the struct is a filter once attached to cells.
 *
 * The caller's add, as a loop like the scalable filter's (each result but
 * the last two changes nothing):
 *   BF_SLIDING_CATCH_UP: drop the bf_sliding_expired oldest generations
 *     (cells without their bf_sliding_prefix_nbytes first bytes);
 *   BF_SLIDING_START: bf_sliding_start a generation (cells with its first
 *     layer's zeroed bytes appended);
 *   BF_SLIDING_GROW: bf_sliding_grow the newest generation by a layer (the
 *     same);
 *   then add again. A start or grow that answers 0 leaves the filter as it
 *   was: no room is left (CapacityError). Each step can be made on a copy,
 *   installed once its cells are allocated (bf_sliding_attach). */
#ifndef BF_SLIDING_H
#define BF_SLIDING_H

#include <stddef.h>
#include <stdint.h>
#include "bf_probe.h"
#include "bf_scalable.h"

/* g, generations a ttl: 1..8, so at most 9 alive. */
#define BF_SLIDING_GENERATIONS_MIN 1
#define BF_SLIDING_GENERATIONS_MAX 8
#define BF_SLIDING_GENERATIONS_DEFAULT 4
#define BF_SLIDING_LIVE_MAX (BF_SLIDING_GENERATIONS_MAX + 1)
/* Every generation's layers together (a lookup keeps a bit a layer). */
#define BF_SLIDING_LAYERS_MAX BF_SCALABLE_LAYERS_MAX
/* ttl in seconds. At least 10 ms: a window is then at least 1.25 ms, a
 * hundred times the resolution of a double at BF_SLIDING_TIME_MAX, and
 * generations turn over (each a reallocation) at most 800 times a second.
 * At most 2^32 s, as the continuous filter's. */
#define BF_SLIDING_TTL_MIN 0.01
#define BF_SLIDING_TTL_MAX 4294967296.0
/* |now| at most 2^36 s (2,177 years): Unix time, a monotonic clock or a
 * simulated one, with a double's resolution still about 15 us. */
#define BF_SLIDING_TIME_MAX 68719476736.0
/* A generation's first layer holds at least this many keys; the first
 * generation's (first_capacity) defaults to BF_SLIDING_FIRST_DEFAULT, and
 * none is sized above BF_SLIDING_CAPACITY_MAX. */
#define BF_SLIDING_CAPACITY_FLOOR 64
#define BF_SLIDING_FIRST_DEFAULT 1024
#define BF_SLIDING_CAPACITY_MAX ((uint64_t)1 << 40)
/* Each generation's layers: growth 2, and half its budget for the first
 * layer, a quarter for the second, ... (bf_sliding.c says why). */
#define BF_SLIDING_GROWTH 2.0
#define BF_SLIDING_TIGHTENING 0.5
#define BF_SLIDING_EVEN_LAYERS 1

typedef struct {
    double error_rate;       /* of the whole filter at every moment, 0 < error_rate < 1 */
    double ttl;              /* BF_SLIDING_TTL_MIN .. BF_SLIDING_TTL_MAX seconds */
    uint32_t generations;    /* g */
    uint64_t first_capacity; /* the first layer of a generation with none before it */
    bf_hash_kind hash;       /* BF_HASH_MURMUR3 or BF_HASH_MURMUR3_MIXED */
} bf_sliding_params;

typedef struct {
    double start;              /* the now of its first add */
    uint64_t initial_capacity; /* its first layer's keys */
    size_t nlayers;            /* 1 .. */
} bf_sliding_gen;

typedef struct {
    bf_sliding_params params;
    uint32_t seed;  /* MurmurHash3 seed */
    uint64_t count; /* adds */
    size_t ngens;   /* gens[0 .. ngens), the oldest first */
    size_t nlayers; /* layers[0 .. nlayers): every generation's, in the order of gens */
    bf_sliding_gen gens[BF_SLIDING_LIVE_MAX];
    bf_layer layers[BF_SLIDING_LAYERS_MAX];
} bf_sliding;

/* Whether the parameters make a filter (each in range, and a first layer
 * of first_capacity exists at the generations' rate). */
int bf_sliding_params_valid(const bf_sliding_params *p);
/* An empty filter (no generation: no cells). 0 when the parameters are not
 * valid. */
int bf_sliding_init(bf_sliding *f, const bf_sliding_params *p, uint32_t seed);
/* Whether now is a time an add may take: finite, |now| <= BF_SLIDING_TIME_MAX. */
int bf_sliding_time_valid(double now);
/* Generation i's parameters as a scalable filter, and a view of it whose
 * layers are the filter's (valid while the table is unchanged; it writes
 * to them only through bf_scalable_add, on a filter not const). */
bf_scalable_params bf_sliding_gen_params(const bf_sliding *f, size_t i);
bf_scalable bf_sliding_gen_view(const bf_sliding *f, size_t i);

/* Catching up: how many of the oldest generations have ended at now (0
 * for a now that is NaN); the bytes of the first n generations' cells;
 * and dropping them from the tables (the layers' bits then need
 * bf_sliding_attach to the cells without those bytes). */
size_t bf_sliding_expired(const bf_sliding *f, double now);
size_t bf_sliding_prefix_nbytes(const bf_sliding *f, size_t n);
void bf_sliding_drop(bf_sliding *f, size_t n);
/* Whether an add at now must first start a generation: none is alive, or
 * the newest one's window has passed (and fewer than g + 1 are alive, which
 * exact arithmetic always gives; it guards the rate against rounding). */
int bf_sliding_due(const bf_sliding *f, double now);
/* The first layer's keys a generation started now would get: the keys the
 * newest took, one more step of a rise from the one before it (at most
 * half as many again), 1/16 more and BF_SLIDING_CAPACITY_FLOOR. */
uint64_t bf_sliding_predicted(const bf_sliding *f);
/* Appends a generation started at now with its first layer (bits not
 * attached; the caller appends its zeroed bytes), or a layer to the newest
 * generation. 0, changing nothing, when there is no room (BF_SLIDING_LAYERS_MAX
 * layers, or a layer past BF_BITS_MAX bits), or when an add would not have
 * asked for it (bf_sliding_due false, or the newest layer not full). */
int bf_sliding_start(bf_sliding *f, double now);
int bf_sliding_grow(bf_sliding *f);

/* The bytes of every layer's bits, one after the other, into *out; 0 when
 * they are more than this machine holds. */
int bf_sliding_nbytes(const bf_sliding *f, size_t *out);
/* Points the layers' bits into cells, one after the other; returns the
 * first layer with bits set past its m (nlayers: none). */
size_t bf_sliding_attach(bf_sliding *f, uint8_t *cells);

typedef enum {
    BF_SLIDING_PRESENT = 0,  /* a live generation (probably) held the key; now the newest does */
    BF_SLIDING_ADDED = 1,    /* new to every live generation: the newest took it */
    BF_SLIDING_GROW = 2,     /* the newest layer is full: bf_sliding_grow, then add again */
    BF_SLIDING_START = 3,    /* bf_sliding_start, then add again */
    BF_SLIDING_CATCH_UP = 4, /* drop the ended generations, then add again */
    BF_SLIDING_BAD_TIME = 5  /* now is not bf_sliding_time_valid: nothing changed */
} bf_sliding_result;

/* report 0: whether the key was new is not asked, so the older
 * generations are not looked in (BF_SLIDING_ADDED stands for either). */
bf_sliding_result bf_sliding_add(bf_sliding *f, bf_key_hash h, double now, int report);
/* Over the generations alive at now (every one in the table for a NaN
 * now: a clock standing still). */
int bf_sliding_contains(const bf_sliding *f, bf_key_hash h, double now);
void bf_sliding_contains_many(const bf_sliding *f, const bf_key_hash *h, size_t n, double now, uint8_t *out);

/* How many more keys new to the filter adds at now take before one needs a
 * layer or generation that may not follow, counted only up to want. */
uint64_t bf_sliding_room(const bf_sliding *f, double now, uint64_t want);
/* The bits of every layer in the table. */
uint64_t bf_sliding_bits(const bf_sliding *f);
/* Keys the generations took, each counted once in every generation it was
 * added in (a key added again after a window is in two); at most
 * UINT64_MAX. */
uint64_t bf_sliding_distinct(const bf_sliding *f);
/* The chance that a key never added is found now: 1 - prod(1 - fill^k) over
 * every layer in the table. */
double bf_sliding_current_fpr(const bf_sliding *f);
/* The same from the layers' key counts by the rate they were sized by: at
 * most error_rate. */
double bf_sliding_design_fpr(const bf_sliding *f);

/* Saved fields (an array of uint64): BF_SLIDING_FIXED_FIELDS first,
 *   seed | hash << 32, error_rate (double bits), ttl (double bits), g,
 *   first_capacity, count, generations G, layers L;
 * then for each generation, the oldest first,
 *   age at the reference time (double bits), layers, initial capacity;
 * then every layer's m, k, capacity and count (bf_scalable_save_layers),
 * in the table's order: BF_SLIDING_FIXED_FIELDS + 3G + 4L fields, at most
 * BF_SLIDING_FIELDS_MAX. A filter saved at ref and loaded at ref2 has aged
 * ref2 - ref. */
enum {
    BF_SLIDING_FIXED_FIELDS = 8,
    BF_SLIDING_GEN_FIELDS = 3,
    BF_SLIDING_FIELDS_MAX = BF_SLIDING_FIXED_FIELDS + BF_SLIDING_GEN_FIELDS * BF_SLIDING_LIVE_MAX +
                            BF_SCALABLE_LAYER_FIELDS * BF_SLIDING_LAYERS_MAX /* 291, and 2 with the time */
};
size_t bf_sliding_nfields(const bf_sliding *f);
/* From the first BF_SLIDING_FIXED_FIELDS: how many fields there are (0:
 * no save writes those). */
size_t bf_sliding_nfields_in(const uint64_t *fixed);
/* Writes bf_sliding_nfields(f) fields; ref is finite. */
void bf_sliding_save(const bf_sliding *f, double ref, uint64_t *out);
/* Sets f from n saved fields at the time ref (cells not attached: then
 * bf_sliding_nbytes and bf_sliding_attach, which checks their padding).
 * NULL, or what is wrong: anything no save writes is refused. */
const char *bf_sliding_load(bf_sliding *f, const uint64_t *fields, size_t n, double ref);

/* A save with its time (docs/FORMAT.md): the fields of a save at ref, the
 * newest generation's start (now without one), then BF_SLIDING_TIME_FIELDS
 * that say when it was made and that == leaves out: the seconds from ref to
 * now, and the wall time. A load at wall time wall puts ref at core time 0
 * and says how long ago that was: since plus the wall time that passed
 * (none if the wall clock went back). */
enum { BF_SLIDING_TIME_FIELDS = 2 };
void bf_sliding_save_timed(const bf_sliding *f, double now, double wall, uint64_t *out);
const char *bf_sliding_load_timed(bf_sliding *f, const uint64_t *fields, double wall, double *started_ago);

#endif
