/* Bloomc::CuckooFilter: a filter of fingerprints that can delete keys, in
 * about a quarter of a counting filter's memory (bf_cuckoo.h). Sizing from
 * capacity and error rate is in lib/bloomc/cuckoo_filter.rb; the methods
 * every kind shares are in filter.c. */
#include "filter.h"
#include "bf_cuckoo.h"

static const bloomc_kind cuckoo_kind;

static bf_cuckoo *get_filter(VALUE self) { return bloomc_filter_core(self, &cuckoo_kind); }
static bf_key_hash key_hash(const bf_cuckoo *f, VALUE key) { return bloomc_key_hash(key, f->seed, BF_HASH_MURMUR3); }

/* :nodoc: called by initialize once the Ruby layer has settled the shape. */
static VALUE cuckoo_setup(VALUE self, VALUE buckets, VALUE fingerprint_bits, VALUE seed)
{
    bloomc_filter_replaceable(self, &cuckoo_kind);
    bf_cuckoo f;
    uint64_t n = bloomc_count_arg(buckets, "buckets", BF_CUCKOO_BUCKETS_MAX);
    unsigned bits = (unsigned)bloomc_count_arg(fingerprint_bits, "fingerprint_bits", BF_CUCKOO_FP_MAX);
    if (bits < BF_CUCKOO_FP_MIN)
        rb_raise(rb_eArgError, "fingerprint_bits must be %d..%d, got %u", BF_CUCKOO_FP_MIN, BF_CUCKOO_FP_MAX, bits);
    bf_cuckoo_init(&f, n, bits, bloomc_uint32_arg(seed, "seed"));
    bloomc_filter_install(self, &f, bf_buckets_nbytes(f.slots.count, bits), NULL, 0);
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

/* One hashed key: one more copy of it (add), or with report (add?) one
 * only when it is not there, as Set#add? does, since another copy would make
 * one delete leave it present. Returns whether it was added. */
static int add_one(void *core, bf_key_hash h, int report)
{
    bf_cuckoo *f = core;
    bf_cuckoo_place p = bf_cuckoo_locate(f, h);
    if (report && bf_cuckoo_found(f, p)) return 0;
    if (!bf_cuckoo_add_fingerprint(f, p.i1, p.fp)) no_room(f);
    return 1;
}

/* A run of adds (add_all, add_new, dedup_lines) that is all or nothing.
 * Any add may fail, at any fill: a key's ninth copy finds both its buckets
 * full of itself. So every slot write is journaled (bf_cuckoo.h) and, unless
 * the run reaches its end, undone on the way out, whatever the way out (a
 * CapacityError, NoMemoryError, a throw). The shared batch_add would copy
 * the whole filter instead. */
typedef struct {
    bf_cuckoo *f;
    bf_cuckoo_journal journal;
    VALUE keys, collect, threads; /* add_all, add_new */
    VALUE chunk, out, length;     /* dedup_lines */
    long out_len;                 /* out's length before the run */
    int done;
} journaled_run;

/* Undone before the message is made, so that it counts the slots the filter
 * is left with (finish_run's undo then finds nothing to do). */
NORETURN(static void batch_no_room(journaled_run *r));
static void batch_no_room(journaled_run *r)
{
    bf_cuckoo_journal_undo(r->f, &r->journal);
    rb_raise(bloomc_eCapacityError,
             "the cuckoo filter found no room for a key of the batch after %d relocations (%" PRIu64 " of %" PRIu64
             " slots used); nothing was lost, and no key of the batch was added",
             BF_CUCKOO_KICKS, r->f->count, r->f->slots.count);
}

static void add_journaled(void *arg, const bf_key_hash *h, size_t n, uint8_t *out)
{
    journaled_run *r = arg;
    for (size_t i = 0; i < n; i++) {
        bf_cuckoo_place p = bf_cuckoo_locate(r->f, h[i]);
        /* add_new and dedup_lines add a key as add? does, only when it is
         * not there: another copy would make one delete leave it present. */
        if (out && !(out[i] = !bf_cuckoo_found(r->f, p))) continue;
        int added = bf_cuckoo_add_journaled(r->f, p.i1, p.fp, &r->journal);
        if (added < 0) rb_memerror();
        if (!added) batch_no_room(r);
    }
}

static void lookup_journaled(void *arg, const bf_key_hash *h, size_t n, uint8_t *out)
{
    journaled_run *r = arg;
    for (size_t i = 0; i < n; i++) out[i] = (uint8_t)bf_cuckoo_contains(r->f, h[i]);
}

static bloomc_batch journaled_batch(journaled_run *r)
{
    /* One thread: relocations depend on every earlier add. */
    return (bloomc_batch){.filter = r, .seed = r->f->seed, .kind = BF_HASH_MURMUR3, .add = add_journaled, .lookup = lookup_journaled};
}

static VALUE run_batch_add(VALUE arg)
{
    journaled_run *r = (journaled_run *)arg;
    bloomc_batch b = journaled_batch(r);
    VALUE result = bloomc_batch_add(&b, r->keys, r->collect, r->threads);
    r->done = 1;
    return result;
}

static VALUE run_dedup(VALUE arg)
{
    journaled_run *r = (journaled_run *)arg;
    bloomc_batch b = journaled_batch(r);
    VALUE result = bloomc_batch_dedup(&b, r->chunk, r->out, r->length);
    r->done = 1;
    return result;
}

/* Runs on any way out; allocates no Ruby object. A failed dedup_lines also
 * drops the lines it appended: the caller never printed them, and the filter
 * no longer holds them. (Only an out that grew was writable.) */
static VALUE finish_run(VALUE arg)
{
    journaled_run *r = (journaled_run *)arg;
    if (!r->done) {
        bf_cuckoo_journal_undo(r->f, &r->journal);
        if (!NIL_P(r->out) && RSTRING_LEN(r->out) > r->out_len) rb_str_set_len(r->out, r->out_len);
    }
    bf_cuckoo_journal_free(&r->journal);
    return Qnil;
}

static VALUE journaled(journaled_run *r, VALUE (*run)(VALUE))
{
    bf_cuckoo_journal_start(&r->journal, r->f);
    return rb_ensure(run, (VALUE)r, finish_run, (VALUE)r);
}

/* :nodoc: add_all's and add_new's work (lib/bloomc/batch.rb), all or nothing. */
static VALUE cuckoo_batch_add(VALUE self, VALUE keys, VALUE collect, VALUE threads)
{
    rb_check_frozen(self);
    journaled_run r = {.f = get_filter(self), .keys = keys, .collect = collect, .threads = threads, .out = Qnil};
    return journaled(&r, run_batch_add);
}

/* :nodoc: dedup_lines(chunk, out, length) (batch.c), all or nothing. */
static VALUE cuckoo_dedup_lines(VALUE self, VALUE chunk, VALUE out, VALUE length)
{
    rb_check_frozen(self);
    Check_Type(out, T_STRING);
    journaled_run r = {.f = get_filter(self), .chunk = chunk, .out = out, .length = length, .out_len = RSTRING_LEN(out)};
    return journaled(&r, run_dedup);
}

static int contains_one(const void *core, bf_key_hash h) { return bf_cuckoo_contains(core, h); }

/*
 * call-seq:
 *   delete(key) -> true or false
 *   remove(key) -> true or false
 *
 * Removes one copy of +key+'s fingerprint: false (and nothing changes) when
 * none is stored. Delete only keys you added: deleting a key that was never
 * added but is found (a false positive) removes another key's fingerprint,
 * and that key is then missed (a false negative).
 */
static VALUE cuckoo_delete(VALUE self, VALUE key)
{
    rb_check_frozen(self);
    bf_cuckoo *f = get_filter(self);
    return RBOOL(bf_cuckoo_remove(f, key_hash(f, key)));
}

/*
 * call-seq: count(key) -> Integer
 *
 * The copies of +key+'s fingerprint stored: the times it was added less the
 * times it was deleted, or more when other keys share its fingerprint and a
 * bucket (at most 8).
 */
static VALUE cuckoo_count(VALUE self, VALUE key)
{
    const bf_cuckoo *f = get_filter(self);
    return UINT2NUM(bf_cuckoo_count(f, key_hash(f, key)));
}

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
    *out = (bloomc_numbers){f->slots.count, &f->count, NULL, 0, f->seed, BF_HASH_MURMUR3};
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
 * at any fill. Only the shared batch_add reads it, which this kind replaces
 * (journaled_run); were it used, 0 would make it all or nothing. */
static uint64_t room(const void *core, uint64_t n) { return 0; }

static const bloomc_kind cuckoo_kind = {
    .type = BLOOMC_KIND_TYPE("cuckoo_filter"),
    .core_size = sizeof(bf_cuckoo),
    .nfields = 4,
    .shape_fields = 3, /* buckets, fingerprint bits, seed */
    .methods = BLOOMC_SIZE,
    .save = save,
    .load = load,
    .attach = attach,
    .numbers = numbers,
    .combine = combine,
    .occupied = occupied,
    .add_one = add_one,
    .contains_one = contains_one,
    .room = room,
};

BLOOMC_HOT_METHODS(bf_cuckoo, cuckoo_kind)

void bloomc_init_cuckoo_filter(void)
{
    VALUE mBloomc = rb_define_module("Bloomc");
    VALUE cFilter = rb_define_class_under(mBloomc, "Filter", rb_cObject);
    VALUE cCuckooFilter = rb_define_class_under(mBloomc, "CuckooFilter", cFilter);
    bloomc_define_kind(cCuckooFilter, &cuckoo_kind);
    define_hot_methods(cCuckooFilter);
    /* Fingerprints a bucket holds. */
    rb_define_const(cCuckooFilter, "SLOTS", INT2FIX(BF_CUCKOO_SLOTS));
    rb_define_private_method(cCuckooFilter, "setup", cuckoo_setup, 3);
    rb_define_method(cCuckooFilter, "delete", cuckoo_delete, 1);
    rb_define_method(cCuckooFilter, "remove", cuckoo_delete, 1);
    rb_define_method(cCuckooFilter, "count", cuckoo_count, 1);
    rb_define_method(cCuckooFilter, "buckets", cuckoo_buckets, 0);
    rb_define_method(cCuckooFilter, "fingerprint_bits", cuckoo_fingerprint_bits, 0);
    /* Journaled instead of the shared ones (journaled_run). */
    rb_define_private_method(cCuckooFilter, "batch_add", cuckoo_batch_add, 3);
    rb_define_private_method(cCuckooFilter, "dedup_lines", cuckoo_dedup_lines, 3);
}
