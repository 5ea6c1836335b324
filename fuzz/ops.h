/* The words of the fuzzer's input, listed once: the harness is built from
 * these lists, and fuzz/make_corpus.rb reads this file to write its seeds
 * by name. Each entry is numbered by its place in its list, so inserting,
 * moving or removing one changes what every seed in fuzz/corpus says: add
 * at the end of a list, then run make_corpus.rb again.
 *
 * For make_corpus.rb's parser: one entry a line, as NAME(ARGUMENTS), and
 * no comment inside a list. */
#ifndef FUZZ_OPS_H
#define FUZZ_OPS_H

/* clang-format off */

/* The structures, numbered as OP_TWIN_MAKE, OP_TWIN_OP and OP_MERGE pick
 * them (a byte % their count), each with its model (fuzz/model_*.c). */
#define FUZZ_KINDS(KIND) \
    KIND(BITS,     bits_model) \
    KIND(BUCKETS,  buckets_model) \
    KIND(CONT,     cont_model) \
    KIND(COUNTING, counting_model) \
    KIND(SPECTRAL, spectral_model) \
    KIND(BITWISE,  bitwise_model) \
    KIND(STABLE,   stable_model) \
    KIND(A2,       a2_model) \
    KIND(BLOOM,    bloom_model) \
    KIND(BLOCKED,  blocked_model) \
    KIND(SCALABLE, scalable_model) \
    KIND(CUCKOO,   cuckoo_model) \
    KIND(SLIDING,  sliding_model)

/* The header: each kind's fields, in this order. OP_REINIT's byte (% the
 * count of kinds) numbers the kinds in this order too. */
#define FUZZ_HEADER(PART) \
    PART(BITS) \
    PART(BUCKETS) \
    PART(BLOOM) \
    PART(CONT) \
    PART(BLOCKED) \
    PART(COUNTING) \
    PART(SPECTRAL) \
    PART(BITWISE) \
    PART(STABLE) \
    PART(A2) \
    PART(SCALABLE) \
    PART(CUCKOO) \
    PART(SLIDING)

/* OP_TAIL's byte % their count: whose padding it plants a bit in, the
 * header's structure (FIRST) or its twin. */
#define FUZZ_TAILS(TAIL) \
    TAIL(BITS,     FIRST) \
    TAIL(BITS,     TWIN) \
    TAIL(BUCKETS,  FIRST) \
    TAIL(BUCKETS,  TWIN) \
    TAIL(CONT,     FIRST) \
    TAIL(CONT,     TWIN) \
    TAIL(COUNTING, FIRST) \
    TAIL(A2,       FIRST) \
    TAIL(CUCKOO,   FIRST)

/* The opcodes, a byte % their count each, then the op's operands.
 *   STRUCTURE_OP(NAME, KIND, handler): handler on the kind's structure of
 *     the header. These are also the kind's sub-ops for OP_TWIN_OP, which
 *     picks one (a byte % the kind's count of them, in this order) to run
 *     on the twin instead.
 *   PICKED_OP(NAME, KIND, handler): a u8 first picks the structure of the
 *     header (bit 0 clear) or its twin.
 *   INPUT_OP(NAME, handler): of no one structure. */
#define FUZZ_OPS(STRUCTURE_OP, PICKED_OP, INPUT_OP) \
    STRUCTURE_OP(BITS_SET,          BITS,     bits_set_op) \
    STRUCTURE_OP(BITS_CLEAR,        BITS,     bits_clear_op) \
    STRUCTURE_OP(BITS_GET,          BITS,     bits_get_op) \
    STRUCTURE_OP(BITS_CHECK,        BITS,     bits_check_op) \
    STRUCTURE_OP(BK_SET,            BUCKETS,  buckets_set_op) \
    STRUCTURE_OP(BK_GET,            BUCKETS,  buckets_get_op) \
    STRUCTURE_OP(BK_INC,            BUCKETS,  buckets_inc_op) \
    STRUCTURE_OP(BK_DEC,            BUCKETS,  buckets_dec_op) \
    STRUCTURE_OP(BK_CHECK,          BUCKETS,  buckets_check_op) \
    STRUCTURE_OP(BLOOM_ADD,         BLOOM,    bloom_add_op) \
    STRUCTURE_OP(BLOOM_CONTAINS,    BLOOM,    bloom_contains_op) \
    STRUCTURE_OP(BLOOM_RECENT,      BLOOM,    bloom_recent_op) \
    STRUCTURE_OP(CONT_ADD,          CONT,     cont_add_op) \
    STRUCTURE_OP(CONT_TICK,         CONT,     cont_tick_op) \
    STRUCTURE_OP(CONT_LOOKUP,       CONT,     cont_lookup_op) \
    STRUCTURE_OP(CONT_TICK_BIG,     CONT,     cont_tick_big_op) \
    INPUT_OP(HASH,                              hash_op) \
    INPUT_OP(POSITIONS,                         positions_op) \
    INPUT_OP(REINIT,                            reinit_op) \
    INPUT_OP(NBYTES,                            nbytes_op) \
    STRUCTURE_OP(BLOOM_BATCH,       BLOOM,    bloom_batch_op) \
    STRUCTURE_OP(CONT_BATCH,        CONT,     cont_batch_op) \
    STRUCTURE_OP(BLOCKED_ADD,       BLOCKED,  blocked_add_op) \
    STRUCTURE_OP(BLOCKED_CONTAINS,  BLOCKED,  blocked_contains_op) \
    STRUCTURE_OP(BLOCKED_BATCH,     BLOCKED,  blocked_batch_op) \
    INPUT_OP(BLOCKED_SIZE,                      blocked_size_op) \
    STRUCTURE_OP(BLOCKED_RECENT,    BLOCKED,  blocked_recent_op) \
    INPUT_OP(BLOCKED_RATE,                      blocked_rate_op) \
    STRUCTURE_OP(BK_DEC_RUN,        BUCKETS,  buckets_dec_run_op) \
    STRUCTURE_OP(CNT_ADD,           COUNTING, counting_add_op) \
    STRUCTURE_OP(CNT_REMOVE,        COUNTING, counting_remove_op) \
    STRUCTURE_OP(CNT_REMOVE_KNOWN,  COUNTING, counting_remove_known_op) \
    STRUCTURE_OP(CNT_COUNT,         COUNTING, counting_count_op) \
    STRUCTURE_OP(CNT_CHECK,         COUNTING, counting_check_op) \
    STRUCTURE_OP(SPEC_ADD,          SPECTRAL, spectral_add_op) \
    STRUCTURE_OP(SPEC_REMOVE,       SPECTRAL, spectral_remove_op) \
    STRUCTURE_OP(SPEC_REMOVE_KNOWN, SPECTRAL, spectral_remove_known_op) \
    STRUCTURE_OP(SPEC_COUNT,        SPECTRAL, spectral_count_op) \
    STRUCTURE_OP(SPEC_CHECK,        SPECTRAL, spectral_check_op) \
    STRUCTURE_OP(BW_ADD,            BITWISE,  bitwise_add_op) \
    STRUCTURE_OP(BW_COUNT,          BITWISE,  bitwise_count_op) \
    STRUCTURE_OP(BW_CHECK,          BITWISE,  bitwise_check_op) \
    STRUCTURE_OP(ST_ADD,            STABLE,   stable_add_op) \
    STRUCTURE_OP(ST_CONTAINS,       STABLE,   stable_contains_op) \
    STRUCTURE_OP(ST_CHECK,          STABLE,   stable_check_op) \
    STRUCTURE_OP(A2_ADD,            A2,       a2_add_op) \
    STRUCTURE_OP(A2_CONTAINS,       A2,       a2_contains_op) \
    STRUCTURE_OP(A2_CHECK,          A2,       a2_check_op) \
    INPUT_OP(TWIN_MAKE,                         twin_make_op) \
    INPUT_OP(TWIN_OP,                           twin_op) \
    INPUT_OP(MERGE,                             merge_op) \
    INPUT_OP(CRC,                               crc_op) \
    INPUT_OP(CRC_ZEROS,                         crc_zeros_op) \
    INPUT_OP(TAIL,                              tail_op) \
    PICKED_OP(CONT_PLANT,           CONT,     cont_plant_op) \
    PICKED_OP(CONT_TICK_SPLIT,      CONT,     cont_tick_split_op) \
    STRUCTURE_OP(BLOCKED_RATE_NOW,  BLOCKED,  blocked_rate_now_op) \
    STRUCTURE_OP(SC_ADD,            SCALABLE, scalable_add_op) \
    STRUCTURE_OP(SC_CONTAINS,       SCALABLE, scalable_contains_op) \
    STRUCTURE_OP(SC_BATCH,          SCALABLE, scalable_batch_op) \
    STRUCTURE_OP(SC_CHECK,          SCALABLE, scalable_check_op) \
    STRUCTURE_OP(CK_ADD,            CUCKOO,   cuckoo_add_op) \
    STRUCTURE_OP(CK_FILL,           CUCKOO,   cuckoo_fill_op) \
    STRUCTURE_OP(CK_REMOVE,         CUCKOO,   cuckoo_remove_op) \
    STRUCTURE_OP(CK_REMOVE_KNOWN,   CUCKOO,   cuckoo_remove_known_op) \
    STRUCTURE_OP(CK_COUNT,          CUCKOO,   cuckoo_count_op) \
    STRUCTURE_OP(CK_CHECK,          CUCKOO,   cuckoo_check_op) \
    INPUT_OP(FUSE_BUILD,                        fuse_build_op) \
    INPUT_OP(FUSE_LOOKUP,                       fuse_lookup_op) \
    INPUT_OP(FUSE_SHAPE,                        fuse_shape_op) \
    STRUCTURE_OP(SL_NEW,            SLIDING,  sliding_new_op) \
    STRUCTURE_OP(SL_ADD,            SLIDING,  sliding_add_op) \
    STRUCTURE_OP(SL_CONTAINS,       SLIDING,  sliding_contains_op) \
    STRUCTURE_OP(SL_TICK,           SLIDING,  sliding_tick_op) \
    STRUCTURE_OP(SL_BATCH,          SLIDING,  sliding_batch_op) \
    STRUCTURE_OP(SL_SAVE_LOAD,      SLIDING,  sliding_save_load_op) \
    STRUCTURE_OP(SL_LOAD_BAD,       SLIDING,  sliding_load_bad_op) \
    STRUCTURE_OP(SL_CHECK,          SLIDING,  sliding_check_op)

/* clang-format on */

#endif
