/* libFuzzer harness for bloomc's C core (ext/bloomc/bf_*.c).
 *
 * The input is a little program.  A header sizes one of each structure (bit
 * field, bucket field, plain Bloom filter, continuous filter, blocked filter,
 * counting filter, spectral filter (MI or RM), bitwise filter, stable filter,
 * A2 filter, scalable filter, cuckoo filter); then every opcode byte picks
 * one operation and reads its operands from the bytes that follow.  Each
 * structure is shadowed by a plain model (a byte per bit, a uint32 per
 * bucket or cell, an "age in ticks" per continuous bucket, ...) and every
 * result is checked against it; any mismatch traps.  The binary fuse filter,
 * static, has no header: its ops build one from hashes of the input and
 * check it against the set it was built from.  The filters of counters also
 * check the guarantees their headers promise (counts never below the true
 * count, recent keys found) against the true history of the keys.  Reads
 * past the end of the input yield zeros, so every input is a valid program.
 *
 * Most structures may get a twin of the same shape (empty, driven by its own
 * ops, or a copy of the first); the combine ops merge one into the other and
 * check the result cell by cell against the merged models and the merged
 * histories of the keys.  CRC-32C is checked against a bitwise reference
 * over slices of the input and runs of zeros; padding checks plant bits past
 * the end; planted slots make continuous filters invalid as state read from
 * outside may be.
 *
 * The files: this one reads the input and does what it does with every kind
 * the same way (the header, the dispatch of the opcodes, twins, merges,
 * padding checks, starting a structure over, the final checks), through the
 * fuzz_model of each kind (fuzz/model_<kind>.c, shaped like the core's
 * bf_<kind>.c); fuzz/ops.h lists the words of the input once, for this file
 * and fuzz/make_corpus.rb; fuzz/reference.c holds the reference hashes and
 * vectors, fuzz/crc32c.c the CRC-32C checks, fuzz/keys.c and fuzz/fields.c
 * what several models share, fuzz/prefetch.c the batches on large filters.
 *
 * Build and run: `rake fuzz` (see the Rakefile), or by hand, with every C
 * file of fuzz/ but the test_ programs, which have a main of their own:
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
 *     -I ext/bloomc $(find fuzz -name '*.c' ! -name 'test_*') ext/bloomc/bf_*.c \
 *     -o tmp/fuzz_core */
#include "harness.h"

#include <string.h>

#include "reference.h"

/* The structures, numbered as ops.h lists them. */
#define KIND_NUMBER(kind, model) KIND_##kind,
typedef enum { FUZZ_KINDS(KIND_NUMBER) STRUCTURES } structure_kind;
#undef KIND_NUMBER

/* Whole-structure scans in the middle of a program cost up to this many
 * bucket-bits per input; past it only the cheap checks run until the end,
 * where everything is always compared.  Keeps every input fast. */
#define SCAN_BUDGET (1u << 18)
/* Repeated adds (past the first of each op) cost up to this many probes per
 * input, over all structures (a bitwise add costs k per level it may scan):
 * enough to fill a bitwise filter's first five levels at k = 1 (65,809 adds,
 * about 380,000), while each input stays within some 50 ms. */
#define ADD_BUDGET (1u << 19)
#define MAX_MERGES 32 /* merges per input: each compares every cell of both */

/* Whether a mid-program scan costing `cost` may run (and pay for it). */
int may_scan(reader *r, uint64_t cost)
{
    if (cost > SCAN_BUDGET - r->scanned) return 0;
    r->scanned += cost;
    return 1;
}

uint8_t rd_u8(reader *r)
{
    return r->pos < r->size ? r->data[r->pos++] : 0;
}

/* The twin ops' structure: a byte % STRUCTURES, the kind itself. */
static structure_kind rd_kind(reader *r)
{
    return (structure_kind)(rd_u8(r) % STRUCTURES);
}

uint16_t rd_u16(reader *r)
{
    uint16_t lo = rd_u8(r);
    return (uint16_t)(lo | (uint16_t)rd_u8(r) << 8);
}

uint32_t rd_u32(reader *r)
{
    uint32_t lo = rd_u16(r);
    return lo | (uint32_t)rd_u16(r) << 16;
}

uint64_t rd_u64(reader *r)
{
    uint64_t lo = rd_u32(r);
    return lo | (uint64_t)rd_u32(r) << 32;
}

key_ref rd_key(reader *r)
{
    key_ref k;
    size_t len = rd_u8(r);
    if (len == 255) len = rd_u16(r);
    size_t left = r->size - r->pos; /* pos <= size always */
    if (len > left) len = left;
    k.off = r->pos;
    k.len = len;
    r->pos += len;
    return k;
}

/* Whether `cost` more probes of repeated adds may run (and pay for them). */
int may_add(reader *r, uint64_t cost)
{
    if (cost > ADD_BUDGET - r->repeated_adds) return 0;
    r->repeated_adds += cost;
    return 1;
}

int may_merge(reader *r)
{
    return r->merges++ < MAX_MERGES;
}

void *dup_bytes(const void *p, size_t n)
{
    void *q = malloc(n ? n : 1);
    CHECK(q != NULL);
    if (n) memcpy(q, p, n);
    return q;
}

void *zeroed(size_t n)
{
    void *q = calloc(n ? n : 1, 1);
    CHECK(q != NULL);
    return q;
}

#define MAX_REINITS 8

/* Every kind's model, by its number. */
#define MODEL_OF(kind, model) [KIND_##kind] = &model,
static const fuzz_model *const models[STRUCTURES] = {FUZZ_KINDS(MODEL_OF)};
#undef MODEL_OF

/* The kinds in the header's order: OP_REINIT's numbers. */
#define HEADER_KIND(kind) KIND_##kind,
static const structure_kind header_kinds[] = {FUZZ_HEADER(HEADER_KIND)};
#undef HEADER_KIND
_Static_assert(sizeof header_kinds / sizeof header_kinds[0] == STRUCTURES, "the header has every kind");

/* OP_TAIL's targets: a kind's structure of the header or its twin. */
typedef struct {
    structure_kind kind;
    int twin;
} tail_target;

enum {
    FIRST,
    TWIN
};

#define TAIL_TARGET(kind, which) {KIND_##kind, which},
static const tail_target tail_targets[] = {FUZZ_TAILS(TAIL_TARGET)};
#undef TAIL_TARGET
#define TAIL_TARGETS (sizeof tail_targets / sizeof tail_targets[0])

/* The opcodes, by their numbers. */
typedef struct {
    structure_kind kind; /* STRUCTURES for an INPUT_OP */
    int picked;          /* PICKED_OP: a u8 picks the structure of the header or its twin */
    void (*on_structure)(void *s, reader *r);
    void (*on_input)(reader *r);
} op_entry;

#define AS_STRUCTURE_OP(name, kind, handler) {KIND_##kind, 0, handler, NULL},
#define AS_PICKED_OP(name, kind, handler) {KIND_##kind, 1, handler, NULL},
#define AS_INPUT_OP(name, handler) {STRUCTURES, 0, NULL, handler},
static const op_entry ops[] = {FUZZ_OPS(AS_STRUCTURE_OP, AS_PICKED_OP, AS_INPUT_OP)};
#undef AS_STRUCTURE_OP
#undef AS_PICKED_OP
#undef AS_INPUT_OP
#define OP_COUNT (sizeof ops / sizeof ops[0])

/* Each kind's structure of the header ([0]) and its twin ([1]): made once,
 * zero at the start of every input, and left freed (zero) at its end. */
static void *states[STRUCTURES][2];

/* OP_TWIN_OP's sub-op byte: the kind's STRUCTURE_OPs in ops.h's order, the
 * byte % their count. */
MODEL static const op_entry *twin_sub_op(structure_kind kind, uint8_t sub)
{
    size_t n = 0;
    for (size_t i = 0; i < OP_COUNT; i++) n += ops[i].kind == kind && !ops[i].picked;
    CHECK(n > 0);
    size_t pick = sub % n;
    for (size_t i = 0;; i++)
        if (ops[i].kind == kind && !ops[i].picked && pick-- == 0) return &ops[i];
}

/* Twins: a second instance of every kind, of the same shape as the first,
 * made empty (then driven by its own ops, through OP_TWIN_OP, with every
 * check the first one gets) or as a copy of the first. OP_MERGE merges the
 * twin into the first, or the first into the twin: the result is compared
 * with the models merged cell by cell, the input left unchanged is checked
 * in full, and the guarantees of the merged filter are checked against the
 * merged true histories of the keys.
 *
 * u8 which kind, u8 mode (bit 0: a copy of the first, else empty of its
 * shape; the kind's twin hook may read more). */
void twin_make_op(reader *r)
{
    structure_kind kind = rd_kind(r);
    uint8_t mode = rd_u8(r);
    models[kind]->twin(states[kind][1], states[kind][0], mode, r);
}

/* u8 which kind, u8 sub-op: one of that kind's ops, on its twin. */
void twin_op(reader *r)
{
    structure_kind kind = rd_kind(r);
    uint8_t sub = rd_u8(r);
    twin_sub_op(kind, sub)->on_structure(states[kind][1], r);
}

/* u8 which kind, u8 flags: bit 7 the first merged into the twin instead of
 * the twin into the first; the kind's merge reads the rest (bit 0: most
 * often an intersection rather than a union). */
void merge_op(reader *r)
{
    structure_kind kind = rd_kind(r);
    uint8_t flags = rd_u8(r);
    int into_twin = flags >> 7;
    models[kind]->merge(states[kind][into_twin], states[kind][!into_twin], flags, r);
}

/* u8 which target, u16 where in its padding, u8 flags (bit 0: plant a
 * padding bit, bit 1: set the last bit). */
void tail_op(reader *r)
{
    tail_target t = tail_targets[rd_u8(r) % TAIL_TARGETS];
    uint16_t off = rd_u16(r);
    uint8_t flags = rd_u8(r);
    models[t.kind]->tail(states[t.kind][t.twin], off, flags);
}

/* u8 which kind (in the header's order), then a header of that kind: the
 * structure checked in full, then started over. */
void reinit_op(reader *r)
{
    structure_kind kind = header_kinds[rd_u8(r) % STRUCTURES];
    if (r->reinits++ >= MAX_REINITS) return; /* the header bytes then read as ops */
    models[kind]->check(states[kind][0], r);
    models[kind]->init(states[kind][0], r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    reader r;
    memset(&r, 0, sizeof r);
    r.data = data;
    r.size = size;
    for (size_t k = 0; k < STRUCTURES; k++)
        for (int i = 0; i < 2; i++) {
            if (!states[k][i]) states[k][i] = malloc(models[k]->state_size);
            CHECK(states[k][i] != NULL);
            memset(states[k][i], 0, models[k]->state_size);
        }

    check_vectors();
    check_counter_vectors();
    check_crc_vectors();
    check_prefetching_batches();

    /* The header; the twins start out absent (OP_TWIN_MAKE). */
    for (size_t i = 0; i < STRUCTURES; i++) models[header_kinds[i]]->init(states[header_kinds[i]][0], &r);

    while (r.pos < r.size) {
        const op_entry *op = &ops[rd_u8(&r) % OP_COUNT];
        if (op->on_input) op->on_input(&r);
        else op->on_structure(states[op->kind][op->picked ? rd_u8(&r) & 1 : 0], &r);
    }

    /* Everything compared in full, then freed. */
    for (size_t k = 0; k < STRUCTURES; k++)
        for (int i = 0; i < 2; i++) models[k]->check(states[k][i], &r);
    fuse_final();
    for (size_t k = 0; k < STRUCTURES; k++)
        for (int i = 0; i < 2; i++) models[k]->free(states[k][i]);
    return 0;
}
