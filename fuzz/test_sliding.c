/* Standalone checks of the sliding filter core (ext/bloomc/bf_sliding.c) on
 * a simulated clock, its cells in one malloc'd run that is cut and grown as
 * the binding will: no false negative within ttl of a key's add; every key
 * gone but as a false positive after ttl * (1 + 1/g); the false-positive
 * rate measured at many moments on streams whose rate swings 10x and bursts
 * 100x; the bytes at a steady rate against a plain filter of the window's
 * keys, and after a burst; save and load at another time. Keys come from a
 * fixed splitmix64 sequence, so a run is the same every time; exits 1 on
 * the first failure.
 *
 *   gcc -std=c99 -O2 -Wall -Wextra -Werror -Iext/bloomc fuzz/test_sliding.c \
 *     ext/bloomc/bf_sliding.c ext/bloomc/bf_scalable.c ext/bloomc/bf_bloom.c \
 *     ext/bloomc/bf_bits.c ext/bloomc/bf_hash.c -lm -o tmp/test_sliding && tmp/test_sliding
 *
 * `tmp/test_sliding small` runs smaller streams and a window of 200,000
 * keys rather than 1,000,000 for the bytes (for -fsanitize=address,undefined). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bf_bloom.h"
#include "bf_sliding.h"
#include "check.h"

static int small;

/* The binding's part: the filter and its one run of cells. */
typedef struct {
    bf_sliding f;
    uint8_t *cells;
    size_t nbytes;
    uint64_t starts, grows, drops, moves; /* reallocations of each cause */
} filter;

static size_t nbytes_of(const bf_sliding *f)
{
    size_t n;
    CHECK(bf_sliding_nbytes(f, &n), "bytes");
    return n;
}

/* Installs next, whose cells are the old ones from `from` on, then zeroes. */
static void install(filter *x, const bf_sliding *next, size_t from)
{
    size_t nbytes = nbytes_of(next), kept = x->nbytes - from;
    if (from) memmove(x->cells, x->cells + from, kept);
    uint8_t *cells = realloc(x->cells, nbytes ? nbytes : 1);
    CHECK(cells != NULL, "out of memory (%zu bytes)", nbytes);
    if (nbytes > kept) memset(cells + kept, 0, nbytes - kept);
    x->f = *next;
    x->cells = cells;
    x->nbytes = nbytes;
    CHECK(bf_sliding_attach(&x->f, cells) == x->f.nlayers, "padding");
    x->moves++;
}

static void catch_up(filter *x, double now)
{
    size_t n = bf_sliding_expired(&x->f, now);
    if (!n) return;
    bf_sliding next = x->f;
    size_t cut = bf_sliding_prefix_nbytes(&next, n);
    bf_sliding_drop(&next, n);
    install(x, &next, cut);
    x->drops += n;
}

static int add(filter *x, bf_key_hash h, double now)
{
    for (;;) {
        bf_sliding next = x->f;
        switch (bf_sliding_add(&x->f, h, now, 1)) {
        case BF_SLIDING_PRESENT: return 0;
        case BF_SLIDING_ADDED: return 1;
        case BF_SLIDING_CATCH_UP: catch_up(x, now); break;
        case BF_SLIDING_START:
            CHECK(bf_sliding_start(&next, now), "start at %.6f: no room", now);
            install(x, &next, 0);
            x->starts++;
            break;
        case BF_SLIDING_GROW:
            CHECK(bf_sliding_grow(&next), "grow at %.6f: no room (%zu layers)", now, x->f.nlayers);
            install(x, &next, 0);
            x->grows++;
            break;
        case BF_SLIDING_BAD_TIME: CHECK(0, "time %.6f refused", now);
        }
    }
}

static int lookup(filter *x, bf_key_hash h, double now)
{
    catch_up(x, now);
    return bf_sliding_contains(&x->f, h, now);
}

static void make(filter *x, double ttl, double rate, uint32_t g)
{
    memset(x, 0, sizeof *x);
    bf_sliding_params p = {rate, ttl, g, BF_SLIDING_FIRST_DEFAULT, BF_HASH_MURMUR3_MIXED};
    CHECK(bf_sliding_init(&x->f, &p, 42), "init");
}

static void unmake(filter *x) { free(x->cells); }

static bf_key_hash random_hash(uint64_t *state)
{
    bf_key_hash h = {splitmix(state), splitmix(state)};
    return h;
}

/* A stream: the keys added and when, in order. */
typedef struct {
    bf_key_hash *h;
    double *t;
    size_t n, cap;
} history;

static void remember(history *s, bf_key_hash h, double t)
{
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 1024;
        s->h = realloc(s->h, s->cap * sizeof *s->h);
        s->t = realloc(s->t, s->cap * sizeof *s->t);
        CHECK(s->h && s->t, "out of memory");
    }
    s->h[s->n] = h;
    s->t[s->n++] = t;
}

/* The first key added at or after t. */
static size_t first_at(const history *s, double t)
{
    size_t lo = 0, hi = s->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->t[mid] < t) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* The rate of a stream at t ttls from its start, relative to its base. */
typedef double rate_fn(double t);

typedef struct {
    double max_fpr, max_current, max_design, max_gone;
    uint64_t false_negatives, checked_live, checked_gone, samples;
} tally;

/* The checks at one moment: keys added within ttl (all of them, or a sample
 * and the oldest), keys past ttl * (1 + 1/g) (the most recent 20,000),
 * fresh keys for the rate. */
static void sample(filter *x, const history *s, double now, uint64_t *rng, tally *out)
{
    const bf_sliding_params *p = &x->f.params;
    double ttl = p->ttl, gone_after = ttl * (1 + 1.0 / p->generations);
    size_t live = first_at(s, now - ttl), want = small ? 5000 : 20000;
    size_t n = s->n - live;
    for (size_t i = 0; i < n && i < want; i++) {
        /* the oldest first (they end first), then random ones */
        size_t j = i < want / 4 || n <= want ? live + i : live + (size_t)(splitmix(rng) % n);
        if (!lookup(x, s->h[j], now)) {
            out->false_negatives++;
            fprintf(stderr, "false negative: added at %.9f, looked up at %.9f (ttl %.3f)\n", s->t[j], now, ttl);
        }
        out->checked_live++;
    }
    size_t dead = first_at(s, now - gone_after);
    while (dead > 0 && now - s->t[dead - 1] < gone_after) dead--; /* rounding of the bound */
    size_t from = dead > want ? dead - want : 0, found = 0;
    for (size_t j = from; j < dead; j++) found += lookup(x, s->h[j], now);
    if (dead > from) {
        double gone = (double)found / (double)(dead - from);
        if (gone > out->max_gone && dead - from >= 1000) out->max_gone = gone; /* the max of samples large enough to say */
        /* only false positives: within the rate and its noise */
        CHECK(gone <= p->error_rate + 5 * sqrt(p->error_rate / (double)(dead - from)) + 1.0 / (double)(dead - from),
              "%zu of %zu keys found past ttl * (1 + 1/g) at %.3f", found, dead - from, now);
        out->checked_gone += dead - from;
    }
    size_t trials = small ? 20000 : 100000, fp = 0;
    for (size_t i = 0; i < trials; i++) fp += lookup(x, random_hash(rng), now);
    double fpr = (double)fp / (double)trials;
    CHECK(fpr <= p->error_rate + 5 * sqrt(p->error_rate / (double)trials), "rate %.5f at %.3f", fpr, now);
    double current = bf_sliding_current_fpr(&x->f), design = bf_sliding_design_fpr(&x->f);
    CHECK(design <= p->error_rate * (1 + 1e-9), "design rate %.6f", design);
    CHECK(x->f.ngens <= p->generations + 1, "%zu generations", x->f.ngens);
    if (fpr > out->max_fpr) out->max_fpr = fpr;
    if (current > out->max_current) out->max_current = current;
    if (design > out->max_design) out->max_design = design;
    out->samples++;
}

/* Adds a Poisson stream of rate(t / ttl) * scale keys a second from 0 to end,
 * checking at every `every` seconds. */
static tally run(filter *x, history *s, rate_fn *rate, double scale, double end, double every, uint64_t seed)
{
    tally out;
    memset(&out, 0, sizeof out);
    uint64_t keys = seed, rng = seed ^ 0x5eed;
    double t = 0, next = every, ttl = x->f.params.ttl;
    for (;;) {
        double u = ((double)(splitmix(&rng) >> 11) + 0.5) / 9007199254740992.0;
        t += -log(u) / (rate(t / ttl) * scale);
        while (next <= t && next <= end) {
            sample(x, s, next, &rng, &out);
            next += every;
        }
        if (t > end) break;
        bf_key_hash h = random_hash(&keys);
        add(x, h, t);
        remember(s, h, t);
        CHECK(lookup(x, h, t), "a key not found right after its add at %.6f", t);
    }
    return out;
}

/* 10x swings (a sine over 6 ttl) and a 100x burst for half a ttl at 5 ttl. */
static double swinging(double t)
{
    double r = 1 + 4.5 * (1 - cos(t * 2 * 3.14159265358979323846 / 6)); /* 1 .. 10 */
    return t >= 5 && t < 5.5 ? 100 : r;
}

/* Bytes of a plain filter of n keys at rate p, sized as BloomFilter is. */
static double plain_bytes(double n, double p)
{
    uint64_t m;
    uint32_t k;
    CHECK(bf_bloom_size(n, p, BF_SIZING_EXPECTED, &m, &k), "plain size");
    return (double)bf_bits_nbytes(m);
}

static void check_rates(void)
{
    static const double rates[] = {0.01, 0.001};
    static const uint32_t gs[] = {4, 1, 8};
    for (size_t i = 0; i < sizeof rates / sizeof rates[0]; i++)
        for (size_t j = 0; j < sizeof gs / sizeof gs[0]; j++) {
            filter x;
            history s = {0};
            double ttl = 10, scale = small ? 300 : 2000; /* keys a second at rate 1: a window of 3,000 or 20,000 */
            make(&x, ttl, rates[i], gs[j]);
            /* the stream's time in ttls */
            tally t = run(&x, &s, swinging, scale / ttl, 9 * ttl, ttl / 7.3, 1000 * i + j + 1);
            (void)t;
            printf("rate %.3f g %u: %zu adds, %llu samples, %llu live keys checked, %llu false negatives; "
                   "max fpr %.5f (current %.5f, design %.5f), max found past ttl*(1+1/g) %.5f; %llu starts, %llu grows, %llu drops\n",
                   rates[i], gs[j], s.n, (unsigned long long)t.samples, (unsigned long long)t.checked_live,
                   (unsigned long long)t.false_negatives, t.max_fpr, t.max_current, t.max_design, t.max_gone,
                   (unsigned long long)x.starts, (unsigned long long)x.grows, (unsigned long long)x.drops);
            CHECK(t.false_negatives == 0, "false negatives");
            free(s.h);
            free(s.t);
            unmake(&x);
        }
}

/* Bytes at a steady rate of `window` keys a ttl (ttl 1 s), from 2 ttl on,
 * against a plain filter of the window's keys; then a 100x burst of half a
 * ttl on a smaller window, and the bytes from 2 ttl after its end against
 * those before it. */
static double window_keys(const history *s, double now) { return (double)(s->n - first_at(s, now - 1)); }

typedef struct {
    double sum, max;
    size_t n;
} average;

static void note(average *a, double v)
{
    a->sum += v;
    a->n++;
    if (v > a->max) a->max = v;
}

/* Adds rate(t) * window Poisson keys a second from `from` to `to`, calling
 * back every tenth of a ttl. */
static void stream(filter *x, history *s, double from, double to, double keys_a_second, uint64_t *rng, uint64_t *keys,
                   void (*every)(filter *, const history *, double, void *), void *arg)
{
    double t = from, next = from + 0.1;
    for (;;) {
        double u = ((double)(splitmix(rng) >> 11) + 0.5) / 9007199254740992.0;
        t += -log(u) / keys_a_second;
        while (next <= t && next <= to) {
            every(x, s, next, arg);
            next += 0.1;
        }
        if (t > to) break;
        bf_key_hash h = random_hash(keys);
        add(x, h, t);
        remember(s, h, t);
    }
}

typedef struct {
    average *ratio, *bytes;
    double from, rate;
} memory_probe;

static void measure(filter *x, const history *s, double now, void *arg)
{
    memory_probe *m = arg;
    catch_up(x, now);
    if (now < m->from) return;
    double n = window_keys(s, now);
    if (m->ratio) note(m->ratio, (double)x->nbytes / plain_bytes(n, m->rate));
    if (m->bytes) note(m->bytes, (double)x->nbytes);
}

static void check_memory(void)
{
    double rate = 0.01, window = small ? 200000 : 1000000;
    uint64_t rng = 77, keys = 78;
    filter x;
    history s = {0};
    make(&x, 1, rate, BF_SLIDING_GENERATIONS_DEFAULT);
    average ratio = {0};
    memory_probe m = {&ratio, NULL, 2, rate};
    stream(&x, &s, 0, 5, window, &rng, &keys, measure, &m);
    printf("steady, %.0f keys a ttl at %.2f, g 4: bytes %.3fx a plain filter of the window's keys on average, %.3fx at most "
           "(%zu samples; %zu layers in %zu generations at the end)\n",
           window, rate, ratio.sum / (double)ratio.n, ratio.max, ratio.n, x.f.nlayers, x.f.ngens);
    CHECK(ratio.max <= 2.5, "steady bytes %.3fx a plain filter", ratio.max);
    free(s.h);
    free(s.t);
    unmake(&x);

    /* the burst */
    double base = small ? 20000 : 50000;
    memset(&s, 0, sizeof s);
    make(&x, 1, rate, BF_SLIDING_GENERATIONS_DEFAULT);
    average before = {0}, during = {0}, after = {0};
    memory_probe b = {NULL, &before, 2, rate}, d = {NULL, &during, 3, rate}, a = {NULL, &after, 3.5 + 2, rate};
    stream(&x, &s, 0, 3, base, &rng, &keys, measure, &b);
    stream(&x, &s, 3, 3.5, base * 100, &rng, &keys, measure, &d);
    stream(&x, &s, 3.5, 5.5, base, &rng, &keys, measure, &d);
    stream(&x, &s, 5.5, 8, base, &rng, &keys, measure, &a);
    double steady_bytes = before.sum / (double)before.n;
    printf("burst of 100x for ttl/2 on %.0f keys a ttl: steady %.0f bytes; at most %.1fx during and up to 2 ttl after; "
           "from 2 ttl after its end %.3fx on average, %.3fx at most\n",
           base, steady_bytes, during.max / steady_bytes, after.sum / (double)after.n / steady_bytes, after.max / steady_bytes);
    CHECK(after.max <= 1.3 * steady_bytes, "bytes after the burst %.3fx steady", after.max / steady_bytes);
    free(s.h);
    free(s.t);
    unmake(&x);
}

/* Saved at ref and loaded at ref + 10: the keys have aged 10 s. Every field
 * but the ages the same again; corrupted fields refused. */
static void check_save_load(void)
{
    filter x, y;
    history s = {0};
    uint64_t rng = 5, keys = 6;
    make(&x, 30, 0.01, 4);
    average none = {0};
    memory_probe m = {NULL, &none, 1e9, 0.01};
    stream(&x, &s, 1000, 1100, 300, &rng, &keys, measure, &m);
    double ref = 1100;
    catch_up(&x, ref);
    uint64_t saved[BF_SLIDING_FIELDS_MAX], again[BF_SLIDING_FIELDS_MAX];
    size_t n = bf_sliding_nfields(&x.f);
    CHECK(n <= BF_SLIDING_FIELDS_MAX, "fields");
    bf_sliding_save(&x.f, ref, saved);
    CHECK(bf_sliding_nfields_in(saved) == n, "nfields_in");
    memset(&y, 0, sizeof y);
    const char *problem = bf_sliding_load(&y.f, saved, n, ref + 10);
    CHECK(!problem, "load: %s", problem);
    y.nbytes = nbytes_of(&y.f);
    CHECK(y.nbytes == x.nbytes, "bytes");
    y.cells = malloc(y.nbytes);
    memcpy(y.cells, x.cells, y.nbytes);
    CHECK(bf_sliding_attach(&y.f, y.cells) == y.f.nlayers, "attach");
    bf_sliding_save(&y.f, ref + 10, again);
    for (size_t i = 0; i < n; i++) {
        int age = i >= BF_SLIDING_FIXED_FIELDS && i < BF_SLIDING_FIXED_FIELDS + BF_SLIDING_GEN_FIELDS * x.f.ngens &&
                  (i - BF_SLIDING_FIXED_FIELDS) % BF_SLIDING_GEN_FIELDS == 0;
        double a, b;
        memcpy(&a, &saved[i], sizeof a);
        memcpy(&b, &again[i], sizeof b);
        CHECK(age ? fabs(a - b) < 1e-9 : saved[i] == again[i], "field %zu", i);
    }
    /* each key is found until ttl after its add, 10 s later on y's clock */
    size_t checked = 0;
    for (size_t i = first_at(&s, ref - 30); i < s.n; i++, checked++) {
        double due = s.t[i] + 30 + 10;
        CHECK(lookup(&y, s.h[i], due - 1e-6), "key %zu lost after load", i);
    }
    /* and none is there past ttl * (1 + 1/g) (but as a false positive) */
    size_t found = 0;
    for (size_t i = 0; i < s.n; i++) found += lookup(&y, s.h[i], ref + 10 + 30 * 1.25);
    CHECK(found <= s.n / 50, "%zu keys after every generation ended", found);
    CHECK(y.f.ngens == 0 && y.nbytes == 0, "generations left");
    printf("save/load: %zu fields, %zu keys found 10 s later on the loaded filter's clock\n", n, checked);

    /* corruptions: each refused */
    static const struct {
        size_t at;
        uint64_t value;
    } bad[] = {{0, (uint64_t)7 << 32}, {3, 0}, {3, 9}, {4, 1}, {6, 99}, {7, 65}, {BF_SLIDING_FIXED_FIELDS + 1, 0}, {BF_SLIDING_FIXED_FIELDS + 2, 0}, {BF_SLIDING_FIXED_FIELDS, 0x7ff8000000000000ULL}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        uint64_t c[BF_SLIDING_FIELDS_MAX];
        memcpy(c, saved, n * sizeof c[0]);
        c[bad[i].at] = bad[i].value;
        bf_sliding z;
        CHECK(bf_sliding_load(&z, c, n, ref) != NULL, "corruption %zu accepted", i);
    }
    /* a layer's m, and the generations' order */
    uint64_t c[BF_SLIDING_FIELDS_MAX];
    size_t layers = BF_SLIDING_FIXED_FIELDS + BF_SLIDING_GEN_FIELDS * x.f.ngens;
    memcpy(c, saved, n * sizeof c[0]);
    c[layers]++;
    bf_sliding z;
    CHECK(bf_sliding_load(&z, c, n, ref) != NULL, "a layer of another m accepted");
    memcpy(c, saved, n * sizeof c[0]);
    c[BF_SLIDING_FIXED_FIELDS + BF_SLIDING_GEN_FIELDS] = c[BF_SLIDING_FIXED_FIELDS];
    CHECK(x.f.ngens < 2 || bf_sliding_load(&z, c, n, ref) != NULL, "generations out of order accepted");
    CHECK(bf_sliding_load(&z, saved, n - 1, ref) != NULL, "a short array accepted");
    free(s.h);
    free(s.t);
    unmake(&x);
    unmake(&y);
}

int main(int argc, char **argv)
{
    small = argc > 1 && strcmp(argv[1], "small") == 0;
    check_save_load();
    check_rates();
    check_memory();
    puts("test_sliding: ok");
    return 0;
}
