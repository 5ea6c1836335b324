/* What the harness (fuzz/harness.c) and the files it drives (the models,
 * fuzz/model_*.c, and the checks of hashes and CRC-32C) share: the reader
 * of the input, CHECK, the fuzz_model every kind is driven through, and the
 * handler of every op listed in fuzz/ops.h.
 *
 * Portable bf_reduce: every fuzz/ file includes this header before the
 * core's, and it undefines __SIZEOF_INT128__, so that the inline helpers
 * used here (bf_positions, bf_probe_next, bf_reduce, bf_fuse_positions)
 * take the 32x32-bit fallback path that 32-bit hosts use, while bf_bloom.c,
 * bf_continuous.c and the other core files (compiled separately) take the
 * unsigned __int128 path. The models are built from the fallback positions
 * and the filters from the int128 ones, so every add and lookup
 * cross-checks the two; ref_positions() (fuzz/reference.c) checks both
 * against a direct __int128 formula. */
#ifndef FUZZ_HARNESS_H
#define FUZZ_HARNESS_H

#ifdef BF_PROBE_H
#error "fuzz/harness.h must come before the core's headers (see its top)"
#endif
#ifdef __SIZEOF_INT128__
#define FUZZ_HAVE_INT128 1
#undef __SIZEOF_INT128__
#endif
#ifndef FUZZ_HAVE_INT128
#error "the harness's reference probe positions need unsigned __int128"
#endif
__extension__ typedef unsigned __int128 fuzz_u128;

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "ops.h"

/* Any mismatch with the model: stop right here so libFuzzer records the input
 * and the stack shows which check failed. */
#define CHECK(cond) \
    do { \
        if (!(cond)) abort(); \
    } while (0)

/* Model bookkeeping and whole-structure scans are kept out of libFuzzer's
 * coverage and comparison tracing: they would cost most of the run time and
 * only add noise to the feedback, which should come from the core. */
#if defined(__clang__) && __clang_major__ >= 13
#define MODEL __attribute__((no_sanitize("coverage")))
#else
#define MODEL
#endif

/* The input, and what it has spent so far of what one input may: all zero
 * at its start, each limit beside the code that spends it. */
typedef struct {
    const uint8_t *data;
    size_t size, pos;
    uint64_t scanned; /* see SCAN_BUDGET */
    unsigned reinits;
    unsigned sizings;       /* blocked-filter sizings (milliseconds each): one per input */
    unsigned rates;         /* blocked-filter rate spot checks, see MAX_RATES */
    uint64_t repeated_adds; /* probes of repeated adds, see ADD_BUDGET */
    unsigned merges;        /* merges of twins, see MAX_MERGES */
    unsigned plants;        /* slots planted in continuous filters, see MAX_PLANTS */
    uint64_t crc_bytes;     /* bytes checksummed, see CRC_BUDGET */
    uint64_t cuckoo_adds;   /* cuckoo adds past an op's first, see CUCKOO_BUDGET */
    uint64_t fuse_keys;     /* keys of binary fuse builds, see FUSE_BUDGET */
} reader;

/* Reads past the end of the input yield zeros. */
uint8_t rd_u8(reader *r);
uint16_t rd_u16(reader *r);
uint32_t rd_u32(reader *r);
uint64_t rd_u64(reader *r);

/* A key is a slice of the input itself: a length byte (255: a u16 length
 * follows, for keys of 256 bytes and more), then that many bytes (fewer at the
 * end of the input).  Slices at the very end of the input end at the end of
 * libFuzzer's allocation, so an over-read by a hash is caught. */
typedef struct {
    size_t off, len;
} key_ref;

key_ref rd_key(reader *r);

static inline const uint8_t *key_ptr(const reader *r, key_ref k) { return r->data + k.off; }

/* Whether a mid-program scan costing `cost` may run (and pay for it). */
int may_scan(reader *r, uint64_t cost);
/* Whether `cost` more probes of repeated adds may run (and pay for them). */
int may_add(reader *r, uint64_t cost);
/* Whether one more merge of twins may run. */
int may_merge(reader *r);

/* Copies and zeroed blocks for the twins; neither answers NULL. */
void *dup_bytes(const void *p, size_t n);
void *zeroed(size_t n);

/* A structure kind as the harness drives it, one in each model file: what
 * the harness does with every kind the same way. */
typedef struct {
    size_t state_size; /* the structure, its model and its keys */
    /* A new structure from the header's fields, the old one freed. */
    void (*init)(void *s, reader *r);
    /* Everything against the model, as at the end of the input: spends no
     * budget, and reads the input only for the keys it was given. */
    void (*check)(void *s, const reader *r);
    void (*free)(void *s);
    /* OP_TWIN_MAKE: t anew, empty of s's shape or (mode bit 0) a copy. */
    void (*twin)(void *t, const void *s, uint8_t mode, reader *r);
    /* OP_MERGE: src merged into dst as flags say. */
    void (*merge)(void *dst, void *src, uint8_t flags, reader *r);
    /* OP_TAIL: bits planted in the padding (NULL: not a target). */
    void (*tail)(void *s, uint16_t off, uint8_t flags);
} fuzz_model;

#define FUZZ_DECLARE_MODEL(kind, model) extern const fuzz_model model;
FUZZ_KINDS(FUZZ_DECLARE_MODEL)
#undef FUZZ_DECLARE_MODEL

/* Every op's handler, as ops.h names it. */
#define FUZZ_DECLARE_STRUCTURE_OP(name, kind, handler) void handler(void *s, reader *r);
#define FUZZ_DECLARE_INPUT_OP(name, handler) void handler(reader *r);
FUZZ_OPS(FUZZ_DECLARE_STRUCTURE_OP, FUZZ_DECLARE_STRUCTURE_OP, FUZZ_DECLARE_INPUT_OP)
#undef FUZZ_DECLARE_STRUCTURE_OP
#undef FUZZ_DECLARE_INPUT_OP

/* Checks of published vectors and of large batches, once per process or
 * per input, and the fuse filter's final check (it has no fuzz_model). */
void check_crc_vectors(void);
void check_prefetching_batches(void);
void fuse_final(void);

#endif
