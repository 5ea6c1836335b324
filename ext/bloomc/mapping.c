/* Filters whose cells live in a memory-mapped file (BloomFilter.open and
 * the same on ContinuousBloomFilter and CountingBloomFilter; the file's
 * header and locking are in lib/bloomc/mapped.rb). The mapping is MAP_SHARED:
 * every write lands in the page cache at once, visible to readers and kept
 * when the process dies; msync makes it durable. */
/* Ruby's headers first: ruby/config.h sets the feature macros (pread under
 * -std=c99, SEEK_DATA, SEEK_HOLE) for the system's headers after it. */
#include "filter.h"
#include "mapping.h"
#include "state.h"
#include <ruby/thread.h>
#include "bf_crc32c.h"
#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* Whether the file still has the length its mapping was made with: a page
 * of the mapping past the end of the file raises SIGBUS when touched, so a
 * file truncated under a mapping must be caught before the cells are. */
static int file_has_length(int fd, size_t length)
{
    struct stat st;
    return fstat(fd, &st) == 0 && (uint64_t)st.st_size == (uint64_t)length;
}

void *bloomc_map_file(int fd, size_t length, int writable)
{
    void *base = mmap(NULL, length, PROT_READ | (writable ? PROT_WRITE : 0), MAP_SHARED, fd, 0);
    if (base == MAP_FAILED) rb_sys_fail("mmap");
    if (!file_has_length(fd, length)) { /* it changed since the header was read */
        munmap(base, length);
        bloomc_format_error("the file changed size while it was being opened");
    }
    return base;
}

/* Every mapped struct of this process (the GVL, or the GC's stop, guards
 * it: mapped filters open in the main Ractor only). */
static bloomc_mapping *live_mappings;

void bloomc_mapping_adopt(bloomc_mapping *m, VALUE owner, uint8_t *base, size_t length, size_t body_offset, int fd,
                          int writable)
{
    *m = (bloomc_mapping){base, length, body_offset, writable, 0, fd, owner, NULL, live_mappings};
    if (live_mappings) live_mappings->prev = m;
    live_mappings = m;
}

void bloomc_unmap(bloomc_mapping *m)
{
    if (!m->base) return;
    munmap(m->base, m->length);
    m->base = NULL;
    if (m->prev) m->prev->next = m->next;
    else live_mappings = m->next;
    if (m->next) m->next->prev = m->prev;
    m->prev = m->next = NULL;
}

/* The owner moved (GC.compact): its old slot forwards to the new one. */
void bloomc_mapping_compact(void *ptr)
{
    bloomc_mapping *m = ptr;
    if (m->base) m->owner = rb_gc_location(m->owner);
}

/*
 * :nodoc: in a forked child (Process._fork's hook in lib/bloomc/mapped.rb):
 * the files stay the parent's. Every mapped filter turns read-only (frozen)
 * and its descriptor is pointed at /dev/null, so that the child holds no
 * share of the parent's lock, which ends when the parent closes. The filters
 * are reached through their structs: a weak table of Ruby objects can hand
 * out one already dead, whose instance variables the GC may have freed.
 * Setting a flag is all that is done to an owner.
 */
static VALUE mapping_hand_back_after_fork(VALUE module)
{
    int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
    for (bloomc_mapping *m = live_mappings; m; m = m->next) {
        m->writable = 0;
        RB_OBJ_FREEZE_RAW(m->owner);
        if (devnull >= 0) dup2(devnull, m->fd);
    }
    if (devnull >= 0) close(devnull);
    return module;
}

void bloomc_mapping_check(const bloomc_mapping *m, VALUE self)
{
    if (m->closed) rb_raise(rb_eIOError, "closed %" PRIsVALUE, rb_obj_class(self));
}

/* The mapping of a mapped filter: TypeError for a kind that cannot be
 * mapped, IOError when closed, ArgumentError when the filter is not mapped. */
static bloomc_mapping *find_mapping(VALUE self)
{
    bloomc_filter *f = rb_check_typeddata(self, &bloomc_filter_type);
    if (!f->kind->mappable) rb_raise(rb_eTypeError, "%" PRIsVALUE " cannot be mapped", rb_obj_class(self));
    bloomc_mapping_check(&f->map, self);
    if (!f->map.base) rb_raise(rb_eArgError, "%" PRIsVALUE " is not mapped to a file", rb_obj_class(self));
    return &f->map;
}

/* :nodoc: writes the header (bytes before the body) into the mapping. */
static VALUE mapping_write_header(VALUE self, VALUE header)
{
    bloomc_mapping *m = find_mapping(self);
    StringValue(header);
    if (!m->writable) rb_raise(rb_eIOError, "%" PRIsVALUE " is mapped for reading", rb_obj_class(self));
    if ((size_t)RSTRING_LEN(header) != m->body_offset) rb_raise(rb_eArgError, "a header of %ld bytes where the body starts at %zu",
                                                                RSTRING_LEN(header), m->body_offset);
    memcpy(m->base, RSTRING_PTR(header), m->body_offset);
    return self;
}

/* :nodoc: IOError unless the mapped file (fd) still has its length and its
 * header still starts with magic: flush and close check it before they
 * write, since nothing in a file truncated under its mapping can be trusted
 * (touching the lost pages is SIGBUS; once the file is extended again they
 * read as zeros: cut below the header, so does the magic). */
static VALUE mapping_check_length(VALUE self, VALUE fd, VALUE magic)
{
    bloomc_mapping *m = find_mapping(self);
    StringValue(magic);
    if (!file_has_length(NUM2INT(fd), m->length))
        rb_raise(rb_eIOError, "the mapped file was truncated or extended by someone else");
    if ((size_t)RSTRING_LEN(magic) > m->body_offset || memcmp(m->base, RSTRING_PTR(magic), (size_t)RSTRING_LEN(magic)) != 0)
        rb_raise(rb_eIOError, "the mapped file was truncated by someone else: its header and cells are gone");
    return self;
}

/* :nodoc: msync the whole mapping (MS_SYNC: returns once it is on disk). */
static VALUE mapping_sync(VALUE self)
{
    bloomc_mapping *m = find_mapping(self);
    if (m->writable && msync(m->base, m->length, MS_SYNC) != 0) rb_sys_fail("msync");
    return self;
}

/* Where the data after `at` starts and ends in the file (SEEK_DATA and
 * SEEK_HOLE): holes read as zeros. Where the file system cannot tell, all of
 * it is data. */
static void next_data(int fd, size_t at, size_t end, size_t *start, size_t *stop)
{
    *start = at;
    *stop = end;
#ifdef HAVE_SEEK_HOLE
    off_t data = lseek(fd, (off_t)at, SEEK_DATA);
    if (data < 0) {
        if (errno == ENXIO) *start = end; /* only a hole is left */
        return;
    }
    *start = (size_t)data < end ? (size_t)data : end;
    off_t hole = lseek(fd, data, SEEK_HOLE);
    if (hole >= 0 && (size_t)hole < end) *stop = (size_t)hole;
#else
    (void)fd;
#endif
}

/* CRC32C of the bytes [at, end) of the file open at fd, read through fd
 * rather than a mapping, and over the holes of a sparse file by
 * arithmetic: touching 4 GiB of holes through the mapping faults in a page
 * at a time (7 s); reading them copies zeros (3 s); skipping them is free.
 * IOError when the file is shorter than end. */
static uint32_t file_crc(int fd, size_t at, size_t end)
{
    enum { CHUNK = 1 << 20 };
    uint8_t *buffer = ruby_xmalloc(CHUNK);
    uint32_t crc = 0;
    while (at < end) {
        size_t start, stop;
        next_data(fd, at, end, &start, &stop);
        if (start == end && !file_has_length(fd, end)) { /* ENXIO: the file is shorter */
            ruby_xfree(buffer);
            rb_raise(rb_eIOError, "the mapped file was truncated by someone else");
        }
        crc = bf_crc32c_zeros(crc, start - at);
        for (at = start; at < stop;) {
            size_t want = stop - at < CHUNK ? stop - at : CHUNK;
            ssize_t got = pread(fd, buffer, want, (off_t)at);
            if (got <= 0) {
                int e = got < 0 ? errno : EIO; /* 0: the file shrank under the mapping */
                ruby_xfree(buffer);
                rb_syserr_fail(e, "pread");
            }
            crc = bf_crc32c(crc, buffer, (size_t)got);
            at += (size_t)got;
        }
    }
    ruby_xfree(buffer);
    return crc;
}

/* :nodoc: CRC32C of the mapped body, read through fd (the mapped file). */
static VALUE mapping_body_crc(VALUE self, VALUE fd)
{
    bloomc_mapping *m = find_mapping(self);
    return UINT2NUM(file_crc(NUM2INT(fd), m->body_offset, m->length));
}

/* :nodoc: file_crc(fd, at, end): CRC32C of the bytes [at, end) of the file
 * open at fd, the body of a file not mapped yet (open checks a closed
 * file's checksum before it reserves or maps anything). */
static VALUE mapping_s_file_crc(VALUE module, VALUE fd, VALUE at, VALUE end)
{
    size_t from = NUM2SIZET(at), to = NUM2SIZET(end);
    if (from > to) rb_raise(rb_eArgError, "a range from %zu to %zu", from, to);
    return UINT2NUM(file_crc(NUM2INT(fd), from, to));
}

/*
 * call-seq: mapped? -> true or false
 *
 * Whether the filter's cells live in a memory-mapped file (Class.open),
 * open or closed since.
 */
static VALUE mapping_mapped_p(VALUE self)
{
    const bloomc_filter *f = rb_check_typeddata(self, &bloomc_filter_type);
    return RBOOL(f->map.base || f->map.closed);
}

/* Reserving the blocks of a file to be mapped for writing (open's
 * reserve: true). A page of a sparse file takes its disk block when first
 * written through the mapping, and when the file system has none left that
 * write is SIGBUS; on tmpfs, so is a read of a hole. Once every block is
 * allocated, no access through the mapping needs one. */
enum {
    RESERVE_STEP = 64 << 20, /* bytes per call without the GVL: an interrupt waits one step at most */
    ZERO_CHUNK = 1 << 20,    /* the zeros fallback reads and writes this much at a time */
    ZERO_GRAIN = 512         /* no file system allocates less: a run of zero bytes this long may be a hole */
};

typedef struct {
    int fd;
    off_t length, done; /* the first done bytes are reserved */
    int writing;        /* the file system cannot allocate (EOPNOTSUPP): zeros are written instead */
    int error;          /* errno, or 0 */
    uint8_t *buffer;    /* ZERO_CHUNK bytes, for writing */
} reservation;

/* 0, or why the range could not be allocated (EOPNOTSUPP: the file system
 * cannot). fallocate(2) rather than posix_fallocate where both exist:
 * where the file system cannot, glibc's posix_fallocate writes a byte into
 * every block in one uninterruptible call and says nothing, and musl's
 * fails; this way the fallback below is the same on every C library. */
static int allocate_range(int fd, off_t at, off_t length)
{
#if defined(HAVE_FALLOCATE)
    return fallocate(fd, 0, at, length) == 0 ? 0 : errno;
#elif defined(HAVE_POSIX_FALLOCATE)
    int e = posix_fallocate(fd, at, length); /* returns the error; EINVAL where the file system cannot */
    return e == EINVAL ? EOPNOTSUPP : e;
#else
    (void)fd;
    (void)at;
    (void)length;
    return EOPNOTSUPP;
#endif
}

/* Whether the file has every block already (a reopened file that was
 * reserved, or filled): no hole that SEEK_HOLE can see, and as many blocks
 * as bytes. Where SEEK_HOLE sees none (NFS before 4.2), st_blocks is all
 * there is, and since it counts indirect blocks too, a file missing a few
 * blocks in a thousand can pass. Blocks fallocated and never written read
 * as holes to SEEK_HOLE (ext4, XFS, tmpfs): fallocate then runs again,
 * which costs nothing on a disk and 0.3 s a GiB on tmpfs. */
static int fully_allocated(int fd, off_t length)
{
    struct stat st;
    if (fstat(fd, &st) != 0 || (uint64_t)st.st_blocks * 512 < (uint64_t)length) return 0;
#ifdef HAVE_SEEK_HOLE
    off_t hole = lseek(fd, 0, SEEK_HOLE);
    if (hole >= 0 && hole < length) return 0;
#endif
    return 1;
}

static int all_zero(const uint8_t *p, size_t n)
{
    static const uint8_t zeros[ZERO_GRAIN];
    return memcmp(p, zeros, n) == 0;
}

static int write_back(int fd, const uint8_t *p, size_t n, off_t at)
{
    while (n) {
        ssize_t put = pwrite(fd, p, n, at);
        if (put < 0) {
            if (errno == EINTR) continue;
            return errno;
        }
        if (put == 0) return EIO;
        p += put;
        n -= (size_t)put;
        at += put;
    }
    return 0;
}

/* The fallback where the file system cannot allocate: every run of zero
 * grains in [at, at + length) (holes read as zeros) is written back as it
 * is, which allocates its blocks; a grain that is not all zeros is data,
 * whose block exists. What the file holds does not change: the writer's
 * lock is held, and nothing writes through the mapping before this ends. */
static int write_zeros(reservation *r, off_t at, off_t length)
{
    for (off_t end = at + length; at < end;) {
        size_t want = end - at < ZERO_CHUNK ? (size_t)(end - at) : ZERO_CHUNK;
        ssize_t got = pread(r->fd, r->buffer, want, at);
        if (got < 0) {
            if (errno == EINTR) continue;
            return errno;
        }
        if (got == 0) return EIO;        /* the file shrank under the writer's lock */
        size_t n = (size_t)got, run = 0; /* the run of zero grains starts at run */
        for (size_t i = 0; i < n; i += ZERO_GRAIN) {
            size_t grain = n - i < ZERO_GRAIN ? n - i : ZERO_GRAIN;
            if (all_zero(r->buffer + i, grain)) continue;
            int e = write_back(r->fd, r->buffer + run, i - run, at + (off_t)run);
            if (e) return e;
            run = i + grain;
        }
        int e = write_back(r->fd, r->buffer + run, n - run, at + (off_t)run);
        if (e) return e;
        at += got;
    }
    return 0;
}

/* One step, without the GVL; calls nothing of Ruby's. */
static void *reserve_step(void *arg)
{
    reservation *r = arg;
    off_t piece = r->length - r->done < RESERVE_STEP ? r->length - r->done : RESERVE_STEP;
    if (!r->writing) {
        int e = allocate_range(r->fd, r->done, piece);
        if (e == 0) {
            r->done += piece;
            return NULL;
        }
        if (e != EOPNOTSUPP && e != ENOSYS) {
            r->error = e;
            return NULL;
        }
        r->writing = 1;
    }
    r->error = write_zeros(r, r->done, piece);
    if (!r->error) r->done += piece;
    return NULL;
}

/*
 * :nodoc: reserve_blocks(fd, length, path, zeros) -> :allocated, :fallocate or :zeros
 *
 * Gives the first length bytes of the file open at fd (for writing) every
 * disk block they need, so that no write through a mapping of them can
 * fault for lack of space: nothing when every block is there already
 * (:allocated), else fallocate, or where the file system cannot, writing
 * its zeros (zeros: true goes there at once, for the specs). Raises
 * SystemCallError naming path: Errno::ENOSPC when the disk is too full,
 * Errno::EDQUOT over a quota, Errno::EFBIG past the largest file.
 */
static VALUE mapping_s_reserve_blocks(VALUE module, VALUE fd, VALUE length, VALUE path, VALUE zeros)
{
    reservation r = {.fd = NUM2INT(fd), .length = NUM2OFFT(length), .writing = RTEST(zeros)};
    if (r.length < 0) rb_raise(rb_eArgError, "negative length");
    VALUE tmp = 0;
    r.buffer = ALLOCV(tmp, ZERO_CHUNK);
    int already = fully_allocated(r.fd, r.length);
    if (already) r.done = r.length;
    while (r.done < r.length && !r.error) {
        rb_thread_call_without_gvl(reserve_step, &r, RUBY_UBF_IO, NULL);
        if (r.error == EINTR) r.error = 0; /* a signal: Ruby's handlers run, and the step again */
        rb_thread_check_ints();
    }
    ALLOCV_END(tmp);
    if (r.error)
        rb_syserr_fail_str(r.error, rb_sprintf("reserving the %" PRIsVALUE " bytes of %" PRIsVALUE, length, path));
    return ID2SYM(rb_intern(already ? "allocated" : (r.writing ? "zeros" : "fallocate")));
}

/* On Bloomc::Filter; the kinds that cannot be mapped undefine them. */
void bloomc_define_mapping_methods(void)
{
    VALUE mBloomc = rb_define_module("Bloomc");
    VALUE cFilter = rb_define_class_under(mBloomc, "Filter", rb_cObject);
    rb_define_private_method(cFilter, "write_header", mapping_write_header, 1);
    rb_define_private_method(cFilter, "sync_mapping", mapping_sync, 0);
    rb_define_private_method(cFilter, "check_mapped_length", mapping_check_length, 2);
    rb_define_private_method(cFilter, "mapped_body_crc", mapping_body_crc, 1);
    rb_define_method(cFilter, "mapped?", mapping_mapped_p, 0);
}

void bloomc_init_mapped(VALUE mBloomc)
{
    VALUE mapped = rb_define_module_under(mBloomc, "Mapped");
    rb_define_private_method(rb_singleton_class(mapped), "hand_back_after_fork", mapping_hand_back_after_fork, 0);
    rb_define_private_method(rb_singleton_class(mapped), "reserve_blocks", mapping_s_reserve_blocks, 4);
    rb_define_private_method(rb_singleton_class(mapped), "file_crc", mapping_s_file_crc, 3);
}
