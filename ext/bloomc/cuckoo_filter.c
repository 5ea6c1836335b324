/* Bloomc::CuckooFilter: a filter of fingerprints that can delete keys, in
 * about a quarter of a counting filter's memory (bf_cuckoo.h). Sizing from
 * capacity and error rate is in lib/bloomc/cuckoo_filter.rb; the methods
 * every kind shares are in filter.c. */
#include "filter.h"
#include "keys.h"
#include "args.h"
#include "state.h"
#include "bf_cuckoo.h"

/* The core: the filter, and the journal of the batch under way (filter.c's
 * journal hooks), which a key that finds no room undoes; the journal is
 * past state_size, so copies and loads leave it. */
typedef struct {
    bf_cuckoo f; /* first: a core is its bf_cuckoo */
    bf_cuckoo_journal journal;
    int journaling;
} cuckoo_t;

static const bloomc_kind cuckoo_kind;

static bf_cuckoo *get_filter(VALUE self) { return bloomc_filter_core(self, &cuckoo_kind); }
static bf_key_hash key_hash(const bf_cuckoo *f, VALUE key) { return bloomc_key_hash(key, f->seed, BF_HASH_MURMUR3); }

/* :nodoc: called by initialize once the Ruby layer has settled the shape. */
static VALUE setup(VALUE self, VALUE buckets, VALUE fingerprint_bits, VALUE seed)
{
    bloomc_filter_replaceable(self, &cuckoo_kind);
    cuckoo_t c = {0};
    uint64_t n = bloomc_count_arg(buckets, "buckets", BF_CUCKOO_BUCKETS_MAX);
    unsigned bits = (unsigned)bloomc_count_arg(fingerprint_bits, "fingerprint_bits", BF_CUCKOO_FP_MAX);
    if (bits < BF_CUCKOO_FP_MIN)
        rb_raise(rb_eArgError, "fingerprint_bits must be %d..%d, got %u", BF_CUCKOO_FP_MIN, BF_CUCKOO_FP_MAX, bits);
    bf_cuckoo_init(&c.f, n, bits, bloomc_uint32_arg(seed, "seed"));
    bloomc_filter_install(self, &c, bf_buckets_nbytes(c.f.slots.count, bits), NULL, 0);
    return self;
}

/* An add that found no room: the filter is as it was. */
NORETURN(static void no_room(const bf_cuckoo *f));
static void no_room(const bf_cuckoo *f)
{
    rb_raise(bloomc_eCapacityError,
             "the cuckoo filter found no room for the key after %d relocations (%" PRIu64 " of %" PRIu64
             " slots used); nothing was lost, and the key was not added",
             BF_CUCKOO_KICKS, f->count, f->slots.count);
}

/* A batch that finds no room is undone before the message is made, so that
 * it counts the slots the filter is left with. */
NORETURN(static void batch_no_room(cuckoo_t *c));
static void batch_no_room(cuckoo_t *c)
{
    bf_cuckoo_journal_undo(&c->f, &c->journal);
    rb_raise(bloomc_eCapacityError,
             "the cuckoo filter found no room for a key of the batch after %d relocations (%" PRIu64 " of %" PRIu64
             " slots used); nothing was lost, and no key of the batch was added",
             BF_CUCKOO_KICKS, c->f.count, c->f.slots.count);
}

/* One hashed key: one more copy of it (add), or with report (add?,
 * add_new, dedup_lines) one only when it is not there, as Set#add? does,
 * since another copy would make one delete leave it present. Returns
 * whether it was added. In a batch every slot write is journaled: any add
 * may fail, at any fill (a key's ninth copy finds both its buckets full of
 * itself), and the batch is all or nothing. */
static int add_one(void *core, bf_key_hash h, int report)
{
    cuckoo_t *c = core;
    bf_cuckoo_place p = bf_cuckoo_locate(&c->f, h);
    if (report && bf_cuckoo_found(&c->f, p)) return 0;
    if (!c->journaling) {
        if (!bf_cuckoo_add_fingerprint(&c->f, p.i1, p.fp)) no_room(&c->f);
        return 1;
    }
    int added = bf_cuckoo_add_journaled(&c->f, p.i1, p.fp, &c->journal);
    if (added < 0) rb_memerror();
    if (!added) batch_no_room(c);
    return 1;
}

/* Batches call add_one inline, not through the descriptor. */
static void add_many(void *core, const bf_key_hash *h, size_t n, uint8_t *out)
{
    for (size_t i = 0; i < n; i++) {
        int added = add_one(core, h[i], out != NULL);
        if (out) out[i] = (uint8_t)added;
    }
}

static void journal_start(void *core)
{
    cuckoo_t *c = core;
    bf_cuckoo_journal_start(&c->journal, &c->f);
    c->journaling = 1;
}

static void journal_undo(void *core) { bf_cuckoo_journal_undo(&((cuckoo_t *)core)->f, &((cuckoo_t *)core)->journal); }

static void journal_end(void *core)
{
    cuckoo_t *c = core;
    bf_cuckoo_journal_free(&c->journal);
    c->journaling = 0;
}

static int contains_one(const void *core, bf_key_hash h) { return bf_cuckoo_contains(core, h); }

/* call-seq: buckets -> Integer
 *
 * The number of buckets, of 4 slots each. */
static VALUE cuckoo_buckets(VALUE self) { return ULL2NUM(get_filter(self)->nbuckets); }

/* call-seq: fingerprint_bits -> Integer
 *
 * The bits of each fingerprint, 8..32: more bits, fewer false positives. */
static VALUE cuckoo_fingerprint_bits(VALUE self) { return UINT2NUM(get_filter(self)->slots.width); }

/* [buckets, fingerprint bits, seed, count] (docs/FORMAT.md). */
static void save(const void *core, uint64_t *out)
{
    const bf_cuckoo *f = core;
    uint64_t fields[] = {f->nbuckets, f->slots.width, f->seed, f->count};
    memcpy(out, fields, sizeof fields);
}

static size_t load(void *core, const uint64_t *v)
{
    bf_cuckoo *f = core;
    uint64_t n = bloomc_state_check(v[0], 1, BF_CUCKOO_BUCKETS_MAX, "buckets");
    unsigned bits = (unsigned)bloomc_state_check(v[1], BF_CUCKOO_FP_MIN, BF_CUCKOO_FP_MAX, "fingerprint bits");
    bf_cuckoo_init(f, n, bits, (uint32_t)bloomc_state_check(v[2], 0, UINT32_MAX, "seed"));
    f->count = v[3];
    return bf_buckets_nbytes(f->slots.count, bits);
}

/* Saved slots: the count is the slots in use (the saved one must agree). */
static const char *attach(void *core, uint8_t *body, int saved)
{
    bf_cuckoo *f = core;
    f->slots.data = body;
    if (!saved) return NULL;
    if (!bf_buckets_tail_clear(&f->slots)) return "bits set past the last slot";
    return bf_buckets_count_nonzero(&f->slots) == f->count ? NULL : "the count is not the number of slots in use";
}

static void numbers(void *core, bloomc_numbers *out)
{
    bf_cuckoo *f = core;
    *out = (bloomc_numbers){.m = f->slots.count, .count = &f->count, .seed = f->seed, .hash = BF_HASH_MURMUR3};
}

/* Union only, and only when every fingerprint of other finds room: on a
 * copy of the slots, put back (CapacityError) when one does not. A filter
 * merged with itself reads the copy (else it would copy its new copies). */
static void combine(void *core, const void *other, int intersect)
{
    bf_cuckoo *f = core;
    if (intersect) rb_raise(bloomc_eUnsupportedError, "cuckoo filters have no exact intersection");
    size_t nbytes = bf_buckets_nbytes(f->slots.count, f->slots.width);
    uint8_t *before = ruby_xmalloc(nbytes);
    memcpy(before, f->slots.data, nbytes);
    uint64_t count = f->count;
    bf_cuckoo src = *(const bf_cuckoo *)other;
    if (other == core) src.slots.data = before;
    int fits = bf_cuckoo_union(f, &src);
    if (!fits) {
        memcpy(f->slots.data, before, nbytes);
        f->count = count;
    }
    ruby_xfree(before);
    if (!fits) rb_raise(bloomc_eCapacityError, "the union does not fit in the filter (it is unchanged)");
}

static uint64_t occupied(const void *core) { return bf_buckets_count_nonzero(&((const bf_cuckoo *)core)->slots); }

/* How many keys surely fit: none, since a key's ninth copy finds no room
 * at any fill; the journal makes a batch all or nothing. */
static uint64_t room(const void *core, uint64_t n) { return 0; }

static int remove_one(void *f, bf_key_hash h) { return bf_cuckoo_remove(f, h); }
static uint64_t count_one(const void *f, bf_key_hash h) { return bf_cuckoo_count(f, h); }
BLOOMC_HOT_DELETE(bf_cuckoo, cuckoo_kind)
BLOOMC_HOT_COUNT(bf_cuckoo, cuckoo_kind)
BLOOMC_HOT_METHODS(bf_cuckoo, cuckoo_kind)

static const bloomc_kind cuckoo_kind = BLOOMC_KIND(10, "CuckooFilter", cuckoo_t, .setup_arity = 3, .hot = &hot_methods, .remove_one = remove_one, .count_one = count_one, .hot_delete = hot_delete, .hot_count = hot_count, .nfields = 4, .state_size = offsetof(cuckoo_t, journal),
                                                   .shape_fields = 3, /* buckets, fingerprint bits, seed */
                                                   .methods = BLOOMC_SIZE, .occupied = occupied, .add_one = add_one, .add_many = add_many,
                                                   .contains_one = contains_one, .room = room, .journal_start = journal_start,
                                                   .journal_undo = journal_undo, .journal_end = journal_end);


void bloomc_init_cuckoo_filter(void)
{
    VALUE mBloomc = rb_define_module("Bloomc");
    VALUE klass = rb_define_class_under(mBloomc, "CuckooFilter", rb_path2class("Bloomc::Filter"));
    bloomc_define_kind(klass, &cuckoo_kind);
    /* Fingerprints a bucket holds. */
    rb_define_const(klass, "SLOTS", INT2FIX(BF_CUCKOO_SLOTS));
    rb_define_method(klass, "buckets", cuckoo_buckets, 0);
    rb_define_method(klass, "fingerprint_bits", cuckoo_fingerprint_bits, 0);
}
