/* The scalable Bloom filter (Almeida, Baquero, Preguiça and Hutchison,
 * "Scalable Bloom Filters", 2007): a chain of plain Bloom filters, the
 * layers. Keys go into the newest layer; once it has taken its capacity of
 * keys new to the filter, a larger layer follows with a lower error rate, so
 * that the rates of all layers, which a key never added meets one after the
 * other, add up to at most the filter's error rate however many keys come.
 *
 * Layer i holds about initial_capacity * growth^i keys. Its rate is the
 * error budget's share for layer i (bf_scalable_layer_rate): the paper
 * shrinks it geometrically from the first layer on (rate * (1 - r) * r^i,
 * r the tightening ratio); bloomc spreads the budget evenly over the first
 * even_layers layers and shrinks it geometrically after them, which costs
 * fewer bits a key for every filter of up to 2^even_layers times its initial
 * capacity (docs/FILTERS.md explains the numbers). With a max_capacity, the budget is
 * spread evenly over exactly the layers that reach it, and the last of them
 * is cut to end at max_capacity.
 *
 * A key is hashed once (MurmurHash3 x64_128, h1 and h2); every layer derives
 * its k probes from that pair as the plain filter does (bf_probe.h), over its
 * own m. The parameters' hash says how: BF_HASH_MURMUR3_MIXED (new filters)
 * mixes each probe and sizes each layer by its expected rate;
 * BF_HASH_MURMUR3 (filters made before) keeps unmixed probes and layers
 * sized by the formula, so that their saved layer shapes still check. A layer's bits are a bf_bits field that the caller allocates
 * (bf_scalable_layer_shape says how large), so the core never allocates. */
#ifndef BF_SCALABLE_H
#define BF_SCALABLE_H

#include <stddef.h>
#include <stdint.h>
#include "bf_bits.h"
#include "bf_probe.h"

/* At most 64 layers (a lookup keeps one bit a layer in a word). Growth is
 * at least 1.25, so that they hold millions of keys even from an initial
 * capacity of 1 (1.25^63 is 1.3 million; growth 2 reaches BF_BITS_MAX
 * first); a filter out of layers raises rather than grow further. */
#define BF_SCALABLE_LAYERS_MAX 64
#define BF_SCALABLE_GROWTH_MIN 1.25
#define BF_SCALABLE_GROWTH_MAX 64.0

typedef struct {
    bf_bits bits;
    uint32_t k;
    uint64_t capacity; /* keys new to the filter that it takes */
    uint64_t count;    /* keys it took */
} bf_layer;

typedef struct {
    double error_rate; /* of all layers together, 0 < error_rate < 1 */
    uint64_t initial_capacity;
    double growth;         /* BF_SCALABLE_GROWTH_MIN .. BF_SCALABLE_GROWTH_MAX */
    double tightening;     /* 0 < r < 1 */
    uint32_t even_layers;  /* 0 .. BF_SCALABLE_LAYERS_MAX */
    uint64_t max_capacity; /* 0: none */
    bf_hash_kind hash;     /* BF_HASH_MURMUR3 or BF_HASH_MURMUR3_MIXED */
} bf_scalable_params;

typedef struct {
    bf_layer *layers; /* layers[0 .. nlayers), the newest last */
    size_t nlayers;
    bf_scalable_params params;
    uint32_t seed;  /* MurmurHash3 seed */
    uint64_t count; /* adds */
} bf_scalable;

/* The error rate layer i is sized for. */
double bf_scalable_layer_rate(const bf_scalable_params *p, size_t i);
/* Layer i's capacity and bits, which depend on the parameters and i alone
 * (so two filters of the same parameters have layers of the same shapes). 0
 * when there is no layer i: the layers before it reach max_capacity, or it
 * would exceed BF_SCALABLE_LAYERS_MAX layers or BF_BITS_MAX bits. */
int bf_scalable_layer_shape(const bf_scalable_params *p, size_t i, uint64_t *capacity, uint64_t *m, uint32_t *k);
/* Whether the parameters make a filter (each in its range). */
int bf_scalable_params_valid(const bf_scalable_params *p);
/* Layer i of the parameters, no key in it, its bits not attached (0 when
 * there is no layer i). */
int bf_scalable_layer_init(const bf_scalable_params *p, size_t i, bf_layer *l);
/* Whether two filters have the same parameters and seed, and so layers of
 * the same shapes. */
int bf_scalable_same_params(const bf_scalable *a, const bf_scalable *b);

/* The bytes of every layer's bits, one after the other (0: more than this
 * machine holds). */
size_t bf_scalable_nbytes(const bf_scalable *f);

/* The saved fields of f's layers (docs/FORMAT.md): m, k, capacity and
 * count of each, oldest first. */
enum { BF_SCALABLE_LAYER_FIELDS = 4 };
void bf_scalable_save_layers(const bf_scalable *f, uint64_t *out);
/* Sets f's nlayers layers (in f->layers) from their saved fields; returns
 * the first that is not the layer f's parameters give (nlayers when every
 * one is): a dump writes no other, a layer of another shape would not merge
 * with its twin, and the parameters would size the next layer from nothing
 * the file holds. */
size_t bf_scalable_load_layers(bf_scalable *f, const uint64_t *fields);
/* Points the layers' bits into body, one after the other, oldest first;
 * returns the first layer with bits set past its m (nlayers: none). */
size_t bf_scalable_attach(bf_scalable *f, uint8_t *body);

/* What an add did. */
typedef enum {
    BF_SCALABLE_PRESENT = 0, /* the key was (probably) there: nothing changed but the add count */
    BF_SCALABLE_ADDED = 1,   /* new: it went into the newest layer */
    /* new, and the newest layer is full: nothing changed; append layer
     * nlayers (bf_scalable_layer_shape sizes it, or says there is none), then
     * add again */
    BF_SCALABLE_GROW = 2
} bf_scalable_result;

bf_scalable_result bf_scalable_add(bf_scalable *f, bf_key_hash h);
int bf_scalable_contains(const bf_scalable *f, bf_key_hash h);
void bf_scalable_contains_many(const bf_scalable *f, const bf_key_hash *h, size_t n, uint8_t *out);

/* How many more keys new to the filter it takes before an add needs a layer
 * that may not follow, counted only up to want: the newest layer's room and the
 * capacities of the layers that may follow it. A batch of at most that many
 * keys cannot meet it. */
uint64_t bf_scalable_room(const bf_scalable *f, uint64_t want);
/* Keys new to the filter, over all layers; UINT64_MAX at most (a union
 * counts a layer with every bit set as UINT64_MAX). */
uint64_t bf_scalable_distinct(const bf_scalable *f);
/* The chance that a key never added is found now: 1 - prod(1 - fill_i^k_i). */
double bf_scalable_current_fpr(const bf_scalable *f);
/* The same from each layer's key count, by the rate its layers were sized
 * by (bf_bloom_size): at most error_rate unless a union put more keys in a
 * layer than its capacity. */
double bf_scalable_design_fpr(const bf_scalable *f);
/* The keys a layer's fill implies (Swamidass and Baldi's estimate);
 * UINT64_MAX when every bit is set. */
uint64_t bf_layer_estimate(const bf_layer *l);

/* Whether two layers have the same m and k (and so the same positions for
 * every key). */
int bf_layer_same_shape(const bf_layer *a, const bf_layer *b);
/* dst |= src over the first nlayers layers (each of the same shape): every
 * key of either is found. Each layer's count becomes the keys its bits now
 * imply, at least either count and at most both together. */
void bf_scalable_union(bf_scalable *dst, const bf_scalable *src, size_t nlayers);

#endif
