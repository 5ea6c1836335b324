/* Bloomc::Filter, the base class of every filter kind: the methods every
 * kind shares, written and documented once over the kind's descriptor
 * (filter.h). A kind's class (bloomc_define_kind) inherits them, undefines
 * those it lacks, and defines its hot add and include? over direct calls of
 * its core (BLOOMC_HOT_METHODS). */
#include "filter.h" /* Ruby's headers first, as Ruby's extension guide asks */
#include "keys.h"
#include "args.h"
#include "state.h"
#include "batch.h"
#include "mapping.h"
#include "bf_pages.h"
#include "bf_bits.h"
#include "clock.h"
#include <errno.h>
#include <math.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

const rb_data_type_t bloomc_filter_type = {
    .wrap_struct_name = "bloomc/filter",
    .flags = RUBY_TYPED_FREE_IMMEDIATELY | RUBY_TYPED_WB_PROTECTED,
};

/* Every kind's class, for alloc, which is given only the class, and the type
 * its mapped filters take: set once at load (Init_bloomc), read-only after. */
enum { KINDS_MAX = 16 };
static struct {
    VALUE klass;
    const bloomc_kind *kind;
    rb_data_type_t mapped_type;
} classes[KINDS_MAX];
static int nclasses;

/* Set once by Bloomc.use_huge_pages! (atomically: any Ractor may allocate). */
int bloomc_huge_pages;

/* clock.h's, set once at load (bloomc_init_filter). */
double bloomc_coarse_resolution;

static int on_pages(size_t nbytes) { return nbytes >= BLOOMC_PAGES_MIN; }

/* nbytes for cells, zeroed: from bf_pages when large (Ruby's GC is told of
 * them, as it is of what ruby_xcalloc gives), else from Ruby's heap.
 * NoMemoryError naming what they are for, after one GC and a retry. */
static void *cells_alloc(size_t nbytes, VALUE klass, uint64_t m)
{
    if (!on_pages(nbytes)) return bloomc_xcalloc(nbytes, "a %" PRIsVALUE " of m = %" PRIu64, klass, m);
    void *p = bf_pages_alloc(nbytes, bloomc_huge_pages);
    if (!p) {
        rb_gc(); /* a dead filter's mapping goes with its object */
        p = bf_pages_alloc(nbytes, bloomc_huge_pages);
    }
    if (!p) bloomc_no_memory(nbytes, rb_sprintf("a %" PRIsVALUE " of m = %" PRIu64, klass, m));
    rb_gc_adjust_memory_usage((ssize_t)nbytes);
    return p;
}

static void cells_free(void *p, size_t nbytes)
{
    if (!p) return;
    if (!on_pages(nbytes)) {
        ruby_xfree(p);
        return;
    }
    bf_pages_free(p, nbytes);
    rb_gc_adjust_memory_usage(-(ssize_t)nbytes);
}

void bloomc_filter_free(void *ptr)
{
    bloomc_filter *f = ptr;
    if (f->map.base) bloomc_unmap(&f->map);
    cells_free(f->allocation, f->allocation_bytes);
    f->allocation = NULL;
    f->body = NULL;
    if (f->kind->outlives && f->kind->outlives(f->core)) return;
    ruby_xfree(f);
}

static size_t alignment(const bloomc_kind *kind) { return kind->alignment ? kind->alignment : 1; }

/* The bytes of the core that setups, copies and loads replace. */
static size_t state_size(const bloomc_kind *kind) { return kind->state_size ? kind->state_size : kind->core_size; }

/* A mapped filter's cells are the kernel's page cache, not this process's
 * heap: only the struct counts. */
size_t bloomc_filter_memsize(const void *ptr)
{
    const bloomc_filter *f = ptr;
    return sizeof(*f) + f->kind->core_size + (f->allocation ? f->body_bytes + alignment(f->kind) - 1 : 0);
}

static const bloomc_kind *kind_of_class(VALUE klass)
{
    for (VALUE c = klass; c && c != rb_cObject; c = RCLASS_SUPER(c))
        for (int i = 0; i < nclasses; i++)
            if (classes[i].klass == c) return classes[i].kind;
    rb_raise(rb_eTypeError, "%" PRIsVALUE " is not a filter class", klass);
}

static VALUE filter_alloc(VALUE klass)
{
    const bloomc_kind *kind = kind_of_class(klass);
    VALUE obj = rb_data_typed_object_zalloc(klass, sizeof(bloomc_filter) + kind->core_size, &kind->type);
    ((bloomc_filter *)RTYPEDDATA_DATA(obj))->kind = kind;
    return obj;
}

void bloomc_filter_unready(VALUE self, const bloomc_filter *f)
{
    bloomc_mapping_check(&f->map, self);
    rb_raise(rb_eTypeError, "uninitialized %" PRIsVALUE, rb_obj_class(self));
}

bloomc_filter *bloomc_filter_get(VALUE self)
{
    bloomc_filter *f = rb_check_typeddata(self, &bloomc_filter_type);
    if (!f->body || f->map.closed) bloomc_filter_unready(self, f);
    if (f->kind->refresh) f->kind->refresh(f->core, &f->map);
    return f;
}

/* Another filter of f's kind, initialized and open (TypeError otherwise). */
static bloomc_filter *same_kind(VALUE other, const bloomc_filter *f)
{
    rb_check_typeddata(other, &f->kind->type);
    return bloomc_filter_get(other);
}

/* The object of self, set up or not. */
static bloomc_filter *object(VALUE self)
{
    return rb_check_typeddata(self, &bloomc_filter_type);
}

bloomc_filter *bloomc_filter_replaceable(VALUE self, const bloomc_kind *kind)
{
    rb_check_frozen(self);
    bloomc_filter *f = bloomc_filter_of(self, kind);
    bloomc_mapping_check(&f->map, self);
    if (f->map.base) rb_raise(rb_eArgError, "a mapped %" PRIsVALUE " cannot be re-initialized", rb_obj_class(self));
    return f;
}

void bloomc_filter_install(VALUE self, const void *core, size_t nbytes, const uint8_t *src, size_t src_bytes)
{
    bloomc_filter_install_at(RTYPEDDATA_DATA(self), core, nbytes, src, src_bytes);
}

/* Where the cells start in an allocation for them. */
static uint8_t *aligned(void *allocation, const bloomc_kind *kind)
{
    return (uint8_t *)(((uintptr_t)allocation + alignment(kind) - 1) & ~(uintptr_t)(alignment(kind) - 1));
}

/* Gives f the state core with the cells of nbytes in allocation (of
 * allocation_bytes; committed: every page of it), whose old cells it frees. */
static void adopt(bloomc_filter *f, const void *core, void *allocation, size_t allocation_bytes, size_t nbytes,
                  int committed)
{
    cells_free(f->allocation, f->allocation_bytes);
    memcpy(f->core, core, state_size(f->kind));
    f->allocation = allocation;
    f->allocation_bytes = allocation_bytes;
    f->committed = committed;
    f->body = aligned(allocation, f->kind);
    f->body_bytes = nbytes;
    f->kind->attach(f->core, f->body, 0); /* checked before, where it came from outside */
}

/* The class of kind and the m of core, for messages about its size. */
static VALUE class_of_kind(const bloomc_kind *kind)
{
    for (int i = 0; i < nclasses; i++)
        if (classes[i].kind == kind) return classes[i].klass;
    return rb_cObject;
}

static uint64_t m_of(const bloomc_kind *kind, const void *core)
{
    bloomc_numbers n = {0};
    kind->numbers((void *)core, &n);
    return n.m;
}

void bloomc_filter_install_at(bloomc_filter *f, const void *core, size_t nbytes, const uint8_t *src, size_t src_bytes)
{
    VALUE klass = class_of_kind(f->kind);
    uint64_t m = m_of(f->kind, core);
    if (!nbytes && !f->kind->empty_cells)
        rb_raise(rb_eArgError, "a %" PRIsVALUE " of m = %" PRIu64 " is too large for this machine", klass, m);
    size_t total = nbytes + alignment(f->kind) - 1;
    if (!total) total = 1; /* a filter of no cells has a body all the same */
    void *allocation = cells_alloc(total, klass, m);
    if (src) memcpy(aligned(allocation, f->kind), src, src_bytes);
    /* A copy that wrote every byte has committed every page; Ruby's heap is
     * not the prefault's business. */
    adopt(f, core, allocation, total, nbytes, !on_pages(total) || (src && src_bytes == nbytes));
}

/* Below this, a commit takes a few ms: one thread. */
#define COMMIT_THREADS_MIN_BYTES ((size_t)64 << 20)

/* Commits f's pages, the whole mapped file's when mapped. */
void bloomc_filter_commit(bloomc_filter *f)
{
    uint8_t *start = f->allocation;
    size_t length = f->allocation_bytes;
    int write = 1;
    if (f->map.base) {
        /* Past a truncated file's end a touch is SIGBUS: refuse first. (A
         * forked child's descriptor is /dev/null: its mapping is intact.) */
        struct stat st;
        if (fstat(f->map.fd, &st) == 0 && S_ISREG(st.st_mode) && (uint64_t)st.st_size != (uint64_t)f->map.length)
            rb_raise(rb_eIOError, "the file of this %" PRIsVALUE " changed size under its mapping", class_of_kind(f->kind));
        start = f->map.base;
        length = f->map.length;
        write = f->map.writable;
    }
    /* Each core commits a part: the kernel's page zeroing is most of it. */
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    int err = bf_pages_commit(start, length, write, cores > 1 && length >= COMMIT_THREADS_MIN_BYTES ? (int)cores : 1);
    if (err == ENOMEM) bloomc_no_memory(length, rb_sprintf("committing the pages of a %" PRIsVALUE, class_of_kind(f->kind)));
    if (err) rb_syserr_fail(err, "madvise");
    if (!f->map.base) f->committed = 1;
}

/* The batch prefault. A batch of n keys, each touching t pages, faults in an
 * expected fraction 1 - exp(-n t / P) of a fresh filter's P pages one at a
 * time. Committing all P in one madvise costs 1.2-1.9 us a page here, a
 * demand fault 2.9-4.5 us (bench/prefault.rb, docs/PERFORMANCE.md): bulk
 * wins once the batch would touch about half the pages. (With huge pages a
 * demand fault fills 2 MiB, so either way costs about the same.) Mapped files are
 * left alone: committing allocates a sparse file's holes, which only the
 * user may ask for (prefault:, prefault!). */
#define PREFAULT_FRACTION 0.5

void bloomc_filter_prefault_for_batch(bloomc_filter *f, size_t nkeys)
{
    if (f->committed || f->map.base || !on_pages(f->allocation_bytes)) return;
    bloomc_numbers n = {0};
    f->kind->numbers(f->core, &n);
    double per_key = 1.0;
    if (f->kind->pages_per_key) per_key = f->kind->pages_per_key;
    else if (n.k) per_key = n.k;
    double pages = ceil((double)f->body_bytes / 4096.0);
    if (1.0 - exp(-(double)nkeys * per_key / pages) >= PREFAULT_FRACTION) bloomc_filter_commit(f);
}

/* A filter as what reads it whole sees it: its core and cells, or, for a
 * mapped reader of a kind with a snapshot hook, a copy of both taken at one
 * instant into buf (which release frees; the GC does, if anything raises
 * first). */
typedef struct {
    const void *core;
    const uint8_t *body;
    VALUE buf;
} view;

static view view_of(bloomc_filter *f)
{
    const bloomc_kind *kind = f->kind;
    view v = {f->core, f->body, 0};
    if (!kind->snapshot || !f->map.base || f->map.writable) return v;
    size_t core_bytes = (kind->core_size + 15) & ~(size_t)15;
    uint8_t *copy = rb_alloc_tmp_buffer(&v.buf, (long)(core_bytes + alignment(kind) - 1 + f->body_bytes));
    uint8_t *cells = aligned(copy + core_bytes, kind);
    kind->snapshot(f->core, &f->map, copy, cells);
    v.core = copy;
    v.body = cells;
    return v;
}

static void release(view *v)
{
    if (v->buf) rb_free_tmp_buffer(&v->buf);
}

/* :nodoc: deep copy for dup and clone. */
static VALUE filter_initialize_copy(VALUE self, VALUE orig)
{
    if (self == orig) return rb_check_frozen(self), self;
    bloomc_filter *f = bloomc_filter_replaceable(self, object(self)->kind);
    bloomc_filter *src = same_kind(orig, f);
    view v = view_of(src);
    bloomc_filter_install(self, v.core, src->body_bytes, v.body, src->body_bytes);
    release(&v);
    return self;
}

/* The saved fields of a filter of kind, and how many there are. */
typedef struct {
    uint64_t v[BLOOMC_FIELDS_MAX];
    int n;
} fields_t;

static fields_t saved_fields(const bloomc_kind *kind, const void *core)
{
    fields_t out;
    kind->save(core, out.v);
    out.n = kind->nfields_in ? kind->nfields_in(out.v) : kind->nfields;
    return out;
}

/* The fields == compares. */
static fields_t compared_fields(const bloomc_kind *kind, const void *core)
{
    fields_t out = saved_fields(kind, core);
    if (kind->equal_fields) out.n = kind->equal_fields;
    out.n -= kind->unequal_tail;
    return out;
}

/*
 * call-seq: self == other -> true or false
 *
 * Equal when +other+ is a filter of the same class with the same
 * parameters, key counts and cells: what a dump of each holds (a kind's own
 * docs say what it leaves out).
 */
static VALUE filter_equal(VALUE self, VALUE other)
{
    if (self == other) return Qtrue;
    bloomc_filter *f = bloomc_filter_get(self);
    if (!rb_typeddata_is_kind_of(other, &f->kind->type)) return Qfalse;
    bloomc_filter *o = bloomc_filter_get(other);
    view x = view_of(f), y = view_of(o);
    fields_t a = compared_fields(f->kind, x.core), b = compared_fields(o->kind, y.core);
    int equal = a.n == b.n && memcmp(a.v, b.v, sizeof(uint64_t) * (size_t)a.n) == 0 && f->body_bytes == o->body_bytes &&
                memcmp(x.body, y.body, f->body_bytes) == 0;
    release(&x);
    release(&y);
    return RBOOL(equal);
}

/*
 * call-seq: hash -> Integer
 *
 * A hash of the parameters, key counts and cells, consistent with #==, so
 * that filters can be Hash keys and Set members.
 */
static VALUE filter_hash(VALUE self)
{
    bloomc_filter *f = bloomc_filter_get(self);
    view v = view_of(f);
    fields_t a = compared_fields(f->kind, v.core);
    st_index_t h = rb_memhash(a.v, (long)(sizeof(uint64_t) * (size_t)a.n)) ^ rb_memhash(v.body, (long)f->body_bytes);
    release(&v);
    return ST2FIX(h);
}

static bloomc_numbers numbers(VALUE self)
{
    bloomc_filter *f = bloomc_filter_get(self);
    bloomc_numbers n = {0};
    f->kind->numbers(f->core, &n);
    return n;
}

/*
 * call-seq: m -> Integer
 *
 * The number of cells: bits in a plain filter; counters, levels or slots in
 * the kinds that say so.
 */
static VALUE filter_m(VALUE self) { return ULL2NUM(numbers(self).m); }

/*
 * call-seq: k -> Integer
 *
 * The number of cells a key sets (its probes).
 */
static VALUE filter_k(VALUE self) { return UINT2NUM(numbers(self).k); }

/*
 * call-seq: seed -> Integer
 *
 * The seed of the key hash (MurmurHash3's; 0 for FNV-1a).
 */
static VALUE filter_seed(VALUE self) { return UINT2NUM(numbers(self).seed); }

/*
 * call-seq: size -> Integer
 *
 * The number of adds so far: a key added twice counts twice (#estimated_count
 * counts keys).
 */
static VALUE filter_size(VALUE self) { return ULL2NUM(*numbers(self).count); }

/* :nodoc: the hash function's number in Bloomc::HASH_FUNCTIONS. */
/*
 * call-seq: width -> Integer
 *
 * Kinds of counters (counting, spectral, stable, bitwise): the bits of a
 * cell, which counts up to 2**width - 1.
 */
static VALUE filter_width(VALUE self) { return UINT2NUM(numbers(self).width); }

/*
 * call-seq: saturated -> Integer
 *
 * Counting and spectral filters: the cells that reached 2**width - 1. They
 * stay there: a count that reaches a saturated cell is a lower bound no
 * longer, and deletes leave such cells alone so that no other key loses
 * its count.
 */
static VALUE filter_saturated(VALUE self) { return ULL2NUM(numbers(self).saturated); }

static VALUE filter_hash_kind(VALUE self) { return INT2FIX(numbers(self).hash); }

/* :nodoc: keys new to the filter, for over_capacity? (lib/bloomc/sizing.rb). */
static VALUE filter_distinct(VALUE self)
{
    return ULL2NUM(*numbers(self).distinct);
}

/* :nodoc: sets it, for a filter loaded or merged. */
static VALUE filter_set_distinct(VALUE self, VALUE n)
{
    rb_check_frozen(self);
    uint64_t value = NUM2ULL(n);
    *numbers(self).distinct = value;
    return n;
}

uint64_t bloomc_occupied_bits(const void *core)
{
    const bloomc_filter *f = bloomc_filter_of_core((void *)core);
    bf_bits bits = {.data = f->body, .nbits = 8 * (uint64_t)f->body_bytes};
    return bf_bits_count(&bits);
}

void bloomc_combine_bits(void *core, const void *other, int intersect)
{
    bloomc_numbers mine = {0}, theirs = {0};
    const bloomc_kind *kind = bloomc_filter_of_core(core)->kind;
    kind->numbers(core, &mine);
    kind->numbers((void *)other, &theirs);
    bf_bits_merge(core, mine.count, other, *theirs.count, intersect);
}

/* :nodoc: cells that are not zero, for Bloomc::Stats. */
static VALUE filter_occupied(VALUE self)
{
    const bloomc_filter *f = bloomc_filter_get(self);
    return ULL2NUM(f->kind->occupied(f->core));
}

/* :nodoc: self |= other or self &= other (Bloomc::SetOps checks shapes). */
static VALUE filter_combine(VALUE self, VALUE other, VALUE op)
{
    rb_check_frozen(self);
    bloomc_filter *f = bloomc_filter_get(self);
    const bloomc_filter *o = same_kind(other, f);
    int shape = f->kind->shape_fields;
    fields_t a = saved_fields(f->kind, f->core), b = saved_fields(o->kind, o->core);
    int same = shape ? memcmp(a.v, b.v, sizeof(uint64_t) * (size_t)shape) == 0 : f->kind->same_shape(f->core, o->core);
    f->kind->combine(f->core, o->core, bloomc_intersection_arg(op, same));
    return self;
}

/*
 * call-seq: clear -> self
 *
 * Forgets every key: every cell and every count 0. The parameters stay.
 */
static VALUE filter_clear(VALUE self)
{
    rb_check_frozen(self);
    bloomc_filter *f = bloomc_filter_get(self);
    memset(f->body, 0, f->body_bytes);
    bloomc_numbers n = {0};
    f->kind->numbers(f->core, &n);
    if (n.count) *n.count = 0;
    if (n.distinct) *n.distinct = 0;
    if (f->kind->cleared) f->kind->cleared(f->core);
    return self;
}

/* :nodoc: [fields, cells] (docs/FORMAT.md). */
static VALUE filter_export_core(VALUE self)
{
    bloomc_filter *f = bloomc_filter_get(self);
    view v = view_of(f);
    fields_t a = saved_fields(f->kind, v.core);
    const uint8_t *parts[] = {v.body};
    size_t lengths[] = {f->body_bytes};
    VALUE state = bloomc_state_new(a.v, a.n, parts, lengths, 1);
    release(&v);
    return state;
}

/* :nodoc: the fields export_core saves, without the cells. */
static VALUE filter_export_fields(VALUE self)
{
    const bloomc_filter *f = bloomc_filter_get(self);
    fields_t a = saved_fields(f->kind, f->core);
    return rb_ary_entry(bloomc_state_new(a.v, a.n, NULL, NULL, 0), 0);
}

/* Saved fields into core (cells not attached); returns the cells' bytes. */
static size_t load_fields(const bloomc_kind *kind, VALUE fields, void *core)
{
    fields_t a;
    a.n = kind->nfields;
    if (kind->nfields_in) {
        Check_Type(fields, T_ARRAY);
        if (RARRAY_LEN(fields) < a.n)
            bloomc_format_error("%ld parameters where this kind of filter has at least %d", RARRAY_LEN(fields), a.n);
        bloomc_state_fields(rb_ary_subseq(fields, 0, a.n), a.n, a.v);
        a.n = kind->nfields_in(a.v);
    }
    bloomc_state_fields(fields, a.n, a.v);
    memset(core, 0, kind->core_size);
    size_t nbytes = kind->load(core, a.v);
    if (nbytes || kind->empty_cells) return nbytes;
    bloomc_numbers n = {0};
    kind->numbers(core, &n);
    bloomc_format_error("m %" PRIu64 " is too large for this machine", n.m);
}

/* attach's saved for a save whose file was open for writing (or not). */
static int saved_how(VALUE open) { return RTEST(open) ? BLOOMC_SAVED_OPEN : BLOOMC_SAVED; }

/* :nodoc: import_core(fields, body, open = false): the inverse of
 * export_core; Bloomc::FormatError for anything export_core could not have
 * made. open: the save's file was open for writing (Bloomc::Format's
 * FLAG_OPEN). */
static VALUE filter_import_core(int argc, VALUE *argv, VALUE self)
{
    VALUE fields, body, open;
    rb_scan_args(argc, argv, "21", &fields, &body, &open);
    bloomc_filter *f = bloomc_filter_replaceable(self, object(self)->kind);
    const bloomc_kind *kind = f->kind;
    VALUE buf;
    void *core = ALLOCV(buf, kind->core_size);
    size_t nbytes = load_fields(kind, fields, core);
    uint8_t *cells = (uint8_t *)bloomc_state_body(body, nbytes);
    const char *problem = kind->attach(core, cells, saved_how(open));
    if (problem) bloomc_format_error("%s", problem);
    bloomc_filter_install(self, core, nbytes, cells, nbytes);
    ALLOCV_END(buf);
    RB_GC_GUARD(body);
    if (RTEST(open) && kind->recover) kind->recover(f->core);
    return self;
}

/* :nodoc: the recover hook on a mapped writer's cells, whose file may have
 * been left open for writing: its first write (Mapped.open), once the
 * shape asked for is checked. */
static VALUE filter_clear_stale_cells(VALUE self)
{
    rb_check_frozen(self);
    bloomc_filter *f = bloomc_filter_get(self);
    f->kind->recover(f->core);
    return self;
}

/* A mapped filter's type: its kind's, but not Ractor-shareable when frozen
 * (Ractor.make_shareable raises Ractor::Error at once, before it freezes
 * anything the filter holds). Its file, its lock and the fork hook's list of
 * mappings are the main Ractor's, and a close in one Ractor would unmap the
 * cells under a lookup in another. A child of the kind's type, so every
 * check for the kind accepts it. An object's type is fixed when it is
 * allocated, so a filter to be mapped is allocated with it (allocate_mapped). */
static const rb_data_type_t *mapped_type(const bloomc_kind *kind)
{
    for (int i = 0; i < nclasses; i++)
        if (classes[i].kind == kind) return &classes[i].mapped_type;
    rb_bug("bloomc: a filter kind without a class");
}

/* :nodoc: a new, uninitialized filter of klass with the mapped type, for
 * map_core (lib/bloomc/mapped.rb). */
static VALUE filter_allocate_mapped(VALUE klass)
{
    const bloomc_kind *kind = kind_of_class(klass);
    VALUE obj = rb_data_typed_object_zalloc(klass, sizeof(bloomc_filter) + kind->core_size, mapped_type(kind));
    ((bloomc_filter *)RTYPEDDATA_DATA(obj))->kind = kind;
    return obj;
}

bloomc_filter *bloomc_filter_mappable(VALUE self, const bloomc_kind *kind)
{
    rb_check_frozen(self);
    bloomc_filter *f = bloomc_filter_of(self, kind);
    if (f->body || f->map.closed || RTYPEDDATA_TYPE(self) != mapped_type(kind))
        rb_raise(rb_eArgError, "map_core maps a new filter from allocate_mapped");
    return f;
}

void bloomc_filter_map(VALUE self, bloomc_filter *f, uint8_t *base, size_t length, size_t body_offset, size_t body_bytes,
                       int fd, int writable)
{
    f->body = base + body_offset;
    f->body_bytes = body_bytes;
    bloomc_mapping_adopt(&f->map, self, base, length, body_offset, fd, writable);
}

/* :nodoc: map_core(fields, fd, body_offset, length, writable, open =
 * false): adopts the cells of a file in bloomc's format, mapped from fd, in
 * place of its own (a new filter only; lib/bloomc/mapped.rb has checked the
 * header, and passes the file's length and whether it was open for
 * writing). A writer that may have found it open puts it right itself,
 * once the shape is checked. */
static VALUE filter_map_core(int argc, VALUE *argv, VALUE self)
{
    VALUE fields, fd, body_offset, length, writable, open;
    rb_scan_args(argc, argv, "51", &fields, &fd, &body_offset, &length, &writable, &open);
    bloomc_filter *f = bloomc_filter_mappable(self, object(self)->kind);
    const bloomc_kind *kind = f->kind;
    VALUE buf;
    void *core = ALLOCV(buf, kind->core_size);
    size_t nbytes = load_fields(kind, fields, core), offset = NUM2SIZET(body_offset);
    if (NUM2SIZET(length) != offset + nbytes)
        bloomc_format_error("a file of %" PRIsVALUE " bytes where the parameters need %zu", length, offset + nbytes);
    uint8_t *base = bloomc_map_file(NUM2INT(fd), offset + nbytes, RTEST(writable));
    const char *problem = kind->attach(core, base + offset, saved_how(open));
    if (problem) {
        munmap(base, offset + nbytes);
        bloomc_format_error("%s", problem);
    }
    memcpy(f->core, core, state_size(kind));
    ALLOCV_END(buf);
    bloomc_filter_map(self, f, base, offset + nbytes, offset, nbytes, NUM2INT(fd), RTEST(writable));
    return self;
}

/* :nodoc: unmaps a mapped filter; it raises IOError from then on. */
static VALUE filter_unmap(VALUE self)
{
    bloomc_filter *f = object(self);
    if (!f->map.base) return self;
    bloomc_unmap(&f->map);
    f->map.closed = 1;
    f->body = NULL;
    f->body_bytes = 0;
    memset(f->core, 0, state_size(f->kind)); /* a view of the cells now holds none */
    return self;
}

/* The kind's load of fields into a scratch core, for body_bytes_for. */
typedef struct {
    const bloomc_kind *kind;
    void *core;
    uint64_t fields[BLOOMC_FIELDS_MAX];
} trial_load;

static VALUE run_trial_load(VALUE arg)
{
    trial_load *t = (trial_load *)arg;
    return SIZET2NUM(t->kind->load(t->core, t->fields));
}

static VALUE argument_refused(VALUE arg, VALUE error)
{
    rb_exc_raise(rb_exc_new_str(rb_eArgError, rb_funcall(error, rb_intern("message"), 0)));
}

/* :nodoc: the bytes export_core's body would take with m cells (for a new
 * mapped file: its filter is never built on the heap). The kind's load
 * says, on the filter's fields with m in place of its own; what it refuses
 * is an ArgumentError here. */
static VALUE filter_body_bytes_for(VALUE self, VALUE m)
{
    const bloomc_filter *f = bloomc_filter_get(self);
    VALUE buf;
    trial_load *t = ALLOCV(buf, sizeof(trial_load) + f->kind->core_size);
    *t = (trial_load){.kind = f->kind, .core = t + 1};
    f->kind->save(f->core, t->fields);
    t->fields[0] = bloomc_count_arg(m, "m", UINT64_MAX);
    size_t nbytes = NUM2SIZET(rb_rescue2(run_trial_load, (VALUE)t, argument_refused, Qnil, bloomc_eFormatError, (VALUE)0));
    ALLOCV_END(buf);
    if (!nbytes) rb_raise(rb_eArgError, "m %" PRIsVALUE " is too large for this machine", m);
    return SIZET2NUM(nbytes);
}

/* The batch hooks of a kind that adds or looks up one key at a time. */
static void add_each(void *core, const bf_key_hash *h, size_t n, uint8_t *out)
{
    int (*add_one)(void *, bf_key_hash, int) = bloomc_filter_of_core(core)->kind->add_one;
    for (size_t i = 0; i < n; i++) {
        int fresh = add_one(core, h[i], out != NULL);
        if (out) out[i] = (uint8_t)fresh;
    }
}

static void contains_each(void *core, const bf_key_hash *h, size_t n, uint8_t *out)
{
    int (*contains_one)(const void *, bf_key_hash) = bloomc_filter_of_core(core)->kind->contains_one;
    for (size_t i = 0; i < n; i++) out[i] = (uint8_t)contains_one(core, h[i]);
}

static bloomc_many_fn *adds_of(const bloomc_kind *kind)
{
    return kind->add_many ? kind->add_many : kind->add_one ? add_each
                                                           : NULL;
}

static bloomc_many_fn *lookups_of(const bloomc_kind *kind)
{
    return kind->contains_many ? kind->contains_many : contains_each;
}

static bloomc_many_fn *readonly_lookups_of(const bloomc_kind *kind)
{
    return kind->contains_readonly ? kind->contains_readonly : lookups_of(kind);
}

/* The kind's clock caught up for an add (for_add) or a lookup; 1 when it
 * moved. */
static int catch_up(void *core, const bloomc_kind *kind, int for_add)
{
    return kind->catch_up && kind->catch_up(core, kind->now(core, for_add)) > 0;
}

/* A group of keys of a batch (batch.c hands add and lookup a group at a
 * time) on a kind that refreshes or keeps time: brought up to date first,
 * as a single add or lookup is. */
static const bloomc_kind *up_to_date(void *core, int for_add)
{
    bloomc_filter *f = bloomc_filter_of_core(core);
    if (f->kind->refresh) f->kind->refresh(core, &f->map);
    catch_up(core, f->kind, for_add);
    return f->kind;
}

static void add_on_time(void *core, const bf_key_hash *h, size_t n, uint8_t *out)
{
    adds_of(up_to_date(core, 1))(core, h, n, out);
}

static void lookup_on_time(void *core, const bf_key_hash *h, size_t n, uint8_t *out)
{
    lookups_of(up_to_date(core, 0))(core, h, n, out);
}

/* A frozen filter's: refreshed, its clock standing still, read only. */
static void lookup_still(void *core, const bf_key_hash *h, size_t n, uint8_t *out)
{
    bloomc_filter *f = bloomc_filter_of_core(core);
    if (f->kind->refresh) f->kind->refresh(core, &f->map);
    readonly_lookups_of(f->kind)(core, h, n, out);
}

/* batch.c's catch_up around each round of a parallel add. */
static int catch_up_round(void *core) { return catch_up(core, bloomc_filter_of_core(core)->kind, 1); }

static bloomc_batch batch_of(VALUE self, bloomc_filter *f)
{
    const bloomc_kind *kind = f->kind;
    bloomc_numbers n = {0};
    kind->numbers(f->core, &n);
    int timed = kind->refresh || kind->catch_up, frozen = OBJ_FROZEN(self);
    bloomc_many_fn *add = adds_of(kind), *lookup = lookups_of(kind);
    if (timed) {
        if (add) add = add_on_time;
        lookup = frozen ? lookup_still : lookup_on_time;
    }
    bloomc_batch b = {.filter = f->core,
                      .seed = n.seed,
                      .kind = n.hash,
                      .add = add,
                      .lookup = lookup,
                      .add_part = kind->add_part,
                      .scatter = kind->scatter,
                      .apply = kind->apply,
                      .probes = n.k,
                      .catch_up = kind->catch_up ? catch_up_round : NULL,
                      .count = n.count,
                      .distinct = n.distinct,
                      .body_bytes = f->body_bytes,
                      .lookup_shared = readonly_lookups_of(kind)};
    /* A mapped reader's core follows its file as it reads: one thread. */
    if (kind->refresh && f->map.base) b.lookup_shared = NULL;
    return b;
}

/* A batch of lookups. Its threads, when it has several, only read: the
 * clock caught up once, first (late by at most the batch, as a lookup may
 * be: an expired key seen a little longer, never a live one missed). */
static bloomc_batch lookup_batch_of(VALUE self, bloomc_filter *f)
{
    bloomc_batch b = batch_of(self, f);
    if (b.lookup_shared && !OBJ_FROZEN(self)) catch_up(f->core, f->kind, 0);
    return b;
}

/* A batch add that may fail part way (the kind's room) is all or nothing:
 * it journals its changes (the kind's journal hooks) or keeps a copy of the
 * state before it, and puts it back unless every key went in. So is a
 * dedup_lines of a kind with journal hooks, which also drops the lines it
 * appended: the caller never printed them, and the filter no longer holds
 * them. */
typedef struct {
    bloomc_filter *f;
    bloomc_batch b;
    int dedup;                    /* dedup_lines, not batch_add */
    VALUE keys, collect, threads; /* batch_add */
    VALUE chunk, out, length;     /* dedup_lines */
    long out_length;              /* out's length before */
    void *core, *allocation;      /* the copy: the core, and its cells as install_at places them */
    size_t body_bytes, allocation_bytes;
    int done;
} batch_run;

static VALUE run_batch_add(VALUE arg)
{
    batch_run *r = (batch_run *)arg;
    VALUE result = r->dedup ? bloomc_batch_dedup(&r->b, r->chunk, r->out, r->length)
                            : bloomc_batch_add(&r->b, r->keys, r->collect, r->threads);
    r->done = 1;
    return result;
}

/* Runs on any way out (an error, throw, Thread#kill); allocates nothing. */
static VALUE finish_batch_add(VALUE arg)
{
    batch_run *r = (batch_run *)arg;
    const bloomc_kind *kind = r->f->kind;
    if (!r->done && !NIL_P(r->out) && RSTRING_LEN(r->out) > r->out_length) rb_str_set_len(r->out, r->out_length);
    if (kind->journal_start) {
        if (!r->done) kind->journal_undo(r->f->core);
        kind->journal_end(r->f->core);
    } else if (r->done) cells_free(r->allocation, r->allocation_bytes);
    else adopt(r->f, r->core, r->allocation, r->allocation_bytes, r->body_bytes, 1);
    return Qnil;
}

/* Runs r all or nothing when the kind's adds may fail part way. */
static VALUE run_all_or_nothing(VALUE self, batch_run *r, size_t nkeys)
{
    bloomc_filter *f = r->f;
    const bloomc_kind *kind = f->kind;
    if (!kind->room || kind->room(f->core, nkeys) >= nkeys) return run_batch_add((VALUE)r);
    if (kind->journal_start) {
        kind->journal_start(f->core);
        return rb_ensure(run_batch_add, (VALUE)r, finish_batch_add, (VALUE)r);
    }
    /* One allocation (a batch allocates no Ruby object): the cells, then
     * the core, which stays there unused when the copy is put back. */
    r->body_bytes = f->body_bytes;
    r->allocation_bytes = alignment(kind) - 1 + f->body_bytes + kind->core_size;
    r->allocation = on_pages(r->allocation_bytes) ? cells_alloc(r->allocation_bytes, rb_obj_class(self), m_of(kind, f->core))
                                                  : ruby_xmalloc(r->allocation_bytes);
    uint8_t *cells = memcpy(aligned(r->allocation, kind), f->body, f->body_bytes);
    r->core = memcpy(cells + f->body_bytes, f->core, kind->core_size);
    return rb_ensure(run_batch_add, (VALUE)r, finish_batch_add, (VALUE)r);
}

/* :nodoc: add_all's and add_new's work (lib/bloomc/batch.rb). */
static VALUE filter_batch_add(VALUE self, VALUE keys, VALUE collect, VALUE threads)
{
    rb_check_frozen(self);
    bloomc_filter *f = bloomc_filter_get(self);
    if (!f->kind->add_one && !f->kind->add_many)
        rb_raise(bloomc_eUnsupportedError, "%" PRIsVALUE " cannot add keys", rb_obj_class(self));
    bloomc_filter_prefault_for_batch(f, RB_TYPE_P(keys, T_ARRAY) ? (size_t)RARRAY_LEN(keys) : 0);
    batch_run r = {.f = f, .b = batch_of(self, f), .keys = keys, .collect = collect, .threads = threads, .out = Qnil};
    if (f->kind->room) Check_Type(keys, T_ARRAY);
    return run_all_or_nothing(self, &r, f->kind->room ? (size_t)RARRAY_LEN(keys) : 0);
}

/* :nodoc: the batch lookups' work (lib/bloomc/batch.rb). */
static VALUE filter_batch_lookup(VALUE self, VALUE keys, VALUE mode, VALUE threads)
{
    bloomc_batch b = lookup_batch_of(self, bloomc_filter_get(self));
    return bloomc_batch_lookup(&b, keys, mode, threads);
}

/* :nodoc: dedup_lines(chunk, out, length): `bloomc dedup`'s work (batch.c). */
static VALUE filter_dedup_lines(VALUE self, VALUE chunk, VALUE out, VALUE length)
{
    rb_check_frozen(self);
    Check_Type(out, T_STRING);
    bloomc_filter *f = bloomc_filter_get(self);
    batch_run r = {.f = f, .b = batch_of(self, f), .dedup = 1, .chunk = chunk, .out = out, .length = length, .out_length = RSTRING_LEN(out)};
    /* A journal's undo is cheap: every dedup is all or nothing with one. */
    return f->kind->journal_start ? run_all_or_nothing(self, &r, SIZE_MAX) : run_batch_add((VALUE)&r);
}

/* :nodoc: add_lines(chunk, length, threads): `bloomc build`'s work (batch.c);
 * only for kinds whose adds never raise (no room hook: add_all's all or
 * nothing needs the keys). */
static VALUE filter_add_lines(VALUE self, VALUE chunk, VALUE length, VALUE threads)
{
    rb_check_frozen(self);
    bloomc_filter *f = bloomc_filter_get(self);
    bloomc_batch b = batch_of(self, f);
    bloomc_batch_lines lines = bloomc_batch_lines_of(chunk, length);
    bloomc_filter_prefault_for_batch(f, (size_t)lines.count);
    return bloomc_batch_add_lines(&b, &lines, threads);
}

/* :nodoc: query_lines(chunk, out, length, delimiter, fields, invert):
 * `bloomc query`'s work on lines (batch.c). */
static VALUE filter_query_lines(int argc, VALUE *argv, VALUE self)
{
    rb_check_arity(argc, 6, 6);
    bloomc_batch b = lookup_batch_of(self, bloomc_filter_get(self));
    return bloomc_batch_query(&b, argv[0], argv[1], argv[2], argv[3], argv[4], argv[5]);
}

/* :nodoc: commits every page of the cells (prefault!, lib/bloomc/pages.rb).
 * Not a write: a frozen filter may, and its cells do not change. */
static VALUE filter_commit_pages(VALUE self)
{
    bloomc_filter_commit(bloomc_filter_get(self));
    return self;
}

/* :nodoc: the bytes of the cells' pages (the whole file's when mapped)
 * resident now: what specs of the commit look at, apart from the rest of the
 * process's memory. */
static VALUE filter_resident_bytes(VALUE self)
{
    bloomc_filter *f = bloomc_filter_get(self);
    const uint8_t *start = f->map.base ? f->map.base : f->allocation;
    size_t length = f->map.base ? f->map.length : f->allocation_bytes;
    size_t resident = bf_pages_resident(start, length);
    if (resident == (size_t)-1) {
        if (errno == ENOSYS) rb_raise(rb_eNotImpError, "resident_bytes: this build has no mincore");
        rb_sys_fail("mincore");
    }
    return SIZET2NUM(resident);
}

/* :nodoc: lifts THP_DISABLE (bf_pages.h) and advises MADV_HUGEPAGE for the
 * cells allocated from then on; the errno when the kernel refuses, or 0. */
static VALUE pages_allow_huge(VALUE module)
{
    int err = bf_pages_allow_huge();
    if (!err) __atomic_store_n(&bloomc_huge_pages, 1, __ATOMIC_RELAXED);
    return INT2FIX(err);
}

/* :nodoc: whether pages_allow_huge has succeeded in this process. */
static VALUE pages_huge(VALUE module) { return __atomic_load_n(&bloomc_huge_pages, __ATOMIC_RELAXED) ? Qtrue : Qfalse; }

void bloomc_init_pages(VALUE mBloomc)
{
    VALUE singleton = rb_singleton_class(mBloomc);
    rb_define_private_method(singleton, "allow_huge_pages", pages_allow_huge, 0);
    rb_define_private_method(singleton, "huge_pages_advised", pages_huge, 0);
}

/* Adds one key through the descriptor: 1 when it was new (report 0: the
 * answer is not used). */
static int add_key(VALUE self, VALUE key, int report)
{
    rb_check_frozen(self);
    bloomc_filter *f = bloomc_filter_get(self);
    const bloomc_kind *kind = f->kind;
    if (!kind->add_one && !kind->add_many) rb_raise(bloomc_eUnsupportedError, "%" PRIsVALUE " cannot add keys", rb_obj_class(self));
    catch_up(f->core, kind, 1);
    bloomc_numbers n = {0};
    kind->numbers(f->core, &n);
    bf_key_hash h = bloomc_key_hash(key, n.seed, n.hash);
    if (kind->add_one) return kind->add_one(f->core, h, report);
    uint8_t fresh = 0;
    kind->add_many(f->core, &h, 1, report ? &fresh : NULL);
    return fresh;
}

/*
 * call-seq:
 *   add(key) -> self
 *   self << key -> self
 *
 * Adds +key+: a String, by its bytes; a Symbol, by its name; or an Integer
 * (TypeError for anything else). Returns self, so adds chain:
 * <tt>filter << a << b</tt>.
 */
static VALUE filter_add(VALUE self, VALUE key)
{
    add_key(self, key, 0);
    return self;
}

/*
 * call-seq: add?(key) -> self or nil
 *
 * Adds +key+ and returns self when it was new to the filter, nil when it
 * was probably there already, as Set#add? does: one hash, one pass.
 */
static VALUE filter_add_p(VALUE self, VALUE key) { return bloomc_add_p_result(self, add_key(self, key, 1)); }

/*
 * call-seq:
 *   include?(key) -> true or false
 *   self[key] -> true or false
 *
 * False when +key+ was never added (or has since gone, in the kinds that
 * forget); true when it was, and, at the filter's false-positive rate, for
 * a key that was not.
 */
static VALUE filter_include_p(VALUE self, VALUE key)
{
    bloomc_filter *f = bloomc_filter_get(self);
    const bloomc_kind *kind = f->kind;
    int frozen = OBJ_FROZEN(self);
    if (!frozen) catch_up(f->core, kind, 0); /* a frozen filter's clock stands still */
    bloomc_numbers n = {0};
    kind->numbers(f->core, &n);
    bf_key_hash h = bloomc_key_hash(key, n.seed, n.hash);
    uint8_t found = 0;
    if (frozen && kind->contains_readonly) kind->contains_readonly(f->core, &h, 1, &found);
    else if (kind->contains_one) found = (uint8_t)kind->contains_one(f->core, h);
    else kind->contains_many(f->core, &h, 1, &found);
    return RBOOL(found);
}

/* The hash of key for f's kind. */
static bf_key_hash hash_for(bloomc_filter *f, VALUE key)
{
    bloomc_numbers n = {0};
    f->kind->numbers(f->core, &n);
    return bloomc_key_hash(key, n.seed, n.hash);
}

/*
 * call-seq:
 *   delete(key) -> true or false
 *   remove(key) -> true or false
 *
 * Kinds that count their keys (CountingBloomFilter, CuckooFilter, an RM
 * SpectralBloomFilter): takes one add of +key+ away; false, and nothing
 * changes, when there was none. Delete only keys you added: deleting a key
 * that was never added but is found (a false positive) takes from the keys
 * that share its cells, which may then be missed (false negatives).
 */
static VALUE filter_delete(VALUE self, VALUE key)
{
    rb_check_frozen(self);
    bloomc_filter *f = bloomc_filter_get(self);
    return RBOOL(f->kind->remove_one(f->core, hash_for(f, key)));
}

/*
 * call-seq: count(key) -> Integer
 *
 * Kinds that count their keys: how many times +key+ was added, less the
 * times it was deleted. Never less; more when other keys share all its
 * cells (or its fingerprint); 0 for a key surely absent.
 */
static VALUE filter_count(VALUE self, VALUE key)
{
    bloomc_filter *f = bloomc_filter_get(self);
    return ULL2NUM(f->kind->count_one(f->core, hash_for(f, key)));
}

/* :nodoc: { number => class } of every kind, from their descriptors: what
 * Bloomc::Format::KINDS is made from (lib/bloomc/format.rb). */
static VALUE filter_kinds(VALUE module)
{
    VALUE kinds = rb_hash_new();
    for (int i = 0; i < nclasses; i++)
        rb_hash_aset(kinds, INT2FIX(classes[i].kind->format_kind), classes[i].klass);
    return kinds;
}

/*
 * Document-class: Bloomc::Filter
 *
 * The base class of every filter kind in the gem (BloomFilter,
 * CountingBloomFilter, CuckooFilter and the rest): the methods they share
 * are defined and documented here once. A kind's own documentation says
 * where one of them means something more there, and a kind undefines those
 * it cannot do (a CuckooFilter has no #k; a BinaryFuseFilter, built once,
 * has an #add that raises). Filter itself makes no objects: make one of its
 * kinds.
 */
void bloomc_init_filter(void)
{
    VALUE mBloomc = rb_define_module("Bloomc");
    VALUE cFilter = rb_define_class_under(mBloomc, "Filter", rb_cObject);
    rb_undef_alloc_func(cFilter); /* each kind has its own */
    rb_define_private_method(rb_singleton_class(mBloomc), "filter_kinds", filter_kinds, 0);
#ifdef BLOOMC_LOOKUP_CLOCK
    struct timespec resolution;
    if (clock_getres(BLOOMC_LOOKUP_CLOCK, &resolution) == 0)
        bloomc_coarse_resolution = (double)resolution.tv_sec + (double)resolution.tv_nsec * 1e-9;
#endif
    rb_define_method(cFilter, "initialize_copy", filter_initialize_copy, 1);
    rb_define_method(cFilter, "add", filter_add, 1);
    rb_define_method(cFilter, "<<", filter_add, 1);
    rb_define_method(cFilter, "add?", filter_add_p, 1);
    rb_define_method(cFilter, "include?", filter_include_p, 1);
    rb_define_method(cFilter, "[]", filter_include_p, 1);
    rb_define_method(cFilter, "delete", filter_delete, 1);
    rb_define_method(cFilter, "remove", filter_delete, 1);
    rb_define_method(cFilter, "count", filter_count, 1);
    rb_define_method(cFilter, "==", filter_equal, 1);
    rb_define_method(cFilter, "eql?", filter_equal, 1);
    rb_define_method(cFilter, "hash", filter_hash, 0);
    rb_define_method(cFilter, "m", filter_m, 0);
    rb_define_method(cFilter, "k", filter_k, 0);
    rb_define_method(cFilter, "seed", filter_seed, 0);
    rb_define_method(cFilter, "size", filter_size, 0);
    rb_define_method(cFilter, "width", filter_width, 0);
    rb_define_method(cFilter, "saturated", filter_saturated, 0);
    rb_define_method(cFilter, "clear", filter_clear, 0);
    rb_define_private_method(cFilter, "commit_pages", filter_commit_pages, 0);
    rb_define_private_method(cFilter, "resident_bytes", filter_resident_bytes, 0);
    rb_define_private_method(cFilter, "hash_kind", filter_hash_kind, 0);
    rb_define_private_method(cFilter, "distinct", filter_distinct, 0);
    rb_define_private_method(cFilter, "distinct=", filter_set_distinct, 1);
    rb_define_private_method(cFilter, "combine", filter_combine, 2);
    rb_define_private_method(cFilter, "occupied", filter_occupied, 0);
    rb_define_private_method(cFilter, "export_core", filter_export_core, 0);
    rb_define_private_method(cFilter, "export_fields", filter_export_fields, 0);
    rb_define_private_method(cFilter, "import_core", filter_import_core, -1);
    bloomc_define_batch_methods(cFilter, filter_batch_add, filter_batch_lookup);
    rb_define_private_method(cFilter, "dedup_lines", filter_dedup_lines, 3);
    rb_define_private_method(cFilter, "add_lines", filter_add_lines, 3);
    rb_define_private_method(cFilter, "query_lines", filter_query_lines, -1);
    rb_define_private_method(cFilter, "map_core", filter_map_core, -1);
    rb_define_private_method(cFilter, "unmap", filter_unmap, 0);
    rb_define_private_method(cFilter, "clear_stale_cells", filter_clear_stale_cells, 0);
    rb_define_private_method(cFilter, "body_bytes_for", filter_body_bytes_for, 1);
    rb_define_private_method(rb_singleton_class(cFilter), "allocate_mapped", filter_allocate_mapped, 0);
    bloomc_define_mapping_methods();
}

/* What a kind lacks of Filter's methods, undefined on its class so that it
 * does not respond to them. */
static void undefine_missing(VALUE klass, const bloomc_kind *kind)
{
    int adds = kind->add_one || kind->add_many;
    static const struct {
        unsigned flag;
        const char *names[3];
    } optional[] = {{BLOOMC_K, {"k"}}, {BLOOMC_SIZE, {"size"}}, {BLOOMC_HASH_KIND, {"hash_kind"}}, {BLOOMC_DISTINCT, {"distinct", "distinct="}}, {BLOOMC_WIDTH, {"width"}}, {BLOOMC_SATURATED, {"saturated"}}};
    for (size_t i = 0; i < sizeof optional / sizeof optional[0]; i++)
        for (int j = 0; j < 3 && optional[i].names[j]; j++)
            if (!(kind->methods & optional[i].flag)) rb_undef_method(klass, optional[i].names[j]);
    if (!kind->occupied) rb_undef_method(klass, "occupied");
    if (!kind->remove_one) rb_undef_method(klass, "delete"), rb_undef_method(klass, "remove");
    if (!kind->count_one) rb_undef_method(klass, "count");
    if (!adds) {
        /* batch_add stays: it raises Bloomc::UnsupportedError, naming the class. */
        static const char *const writers[] = {"add", "<<", "add?", "clear", "dedup_lines"};
        for (size_t i = 0; i < sizeof writers / sizeof writers[0]; i++) rb_undef_method(klass, writers[i]);
    }
    if (!adds || kind->room) rb_undef_method(klass, "add_lines"); /* needs adds that never raise */
    if (!kind->recover) rb_undef_method(klass, "clear_stale_cells");
    if (!kind->mappable) {
        static const char *const mapping[] = {"map_core", "unmap", "body_bytes_for", "write_header",
                                              "sync_mapping", "check_mapped_length", "mapped_body_crc", "mapped?"};
        for (size_t i = 0; i < sizeof mapping / sizeof mapping[0]; i++) rb_undef_method(klass, mapping[i]);
        rb_undef_method(rb_singleton_class(klass), "allocate_mapped");
    }
}

void bloomc_define_kind(VALUE klass, const bloomc_kind *kind)
{
    if (nclasses >= KINDS_MAX) rb_bug("bloomc: more filter kinds than the %d in filter.c", KINDS_MAX);
    for (int i = 0; i < nclasses; i++)
        if (classes[i].kind->format_kind == kind->format_kind) rb_bug("bloomc: two kinds numbered %d", kind->format_kind);
    classes[nclasses].klass = klass;
    classes[nclasses].kind = kind;
    classes[nclasses].mapped_type = kind->type;
    classes[nclasses].mapped_type.parent = &kind->type;
    classes[nclasses++].mapped_type.flags &= ~(VALUE)RUBY_TYPED_FROZEN_SHAREABLE;
    rb_define_alloc_func(klass, filter_alloc);
    rb_define_private_method(klass, "setup", kind->setup, kind->setup_arity);
    if (kind->hot && kind->hot->add) {
        rb_define_method(klass, "add", kind->hot->add, 1);
        rb_define_method(klass, "<<", kind->hot->add, 1);
        rb_define_method(klass, "add?", kind->hot->add_p, 1);
    }
    if (kind->hot_delete) {
        rb_define_method(klass, "delete", kind->hot_delete, 1);
        rb_define_method(klass, "remove", kind->hot_delete, 1);
    }
    if (kind->hot_count) rb_define_method(klass, "count", kind->hot_count, 1);
    if (kind->hot && kind->hot->include_p) {
        rb_define_method(klass, "include?", kind->hot->include_p, 1);
        rb_define_method(klass, "[]", kind->hot->include_p, 1);
    }
    undefine_missing(klass, kind);
}
