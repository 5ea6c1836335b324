/* The places in a header of bloomc's file format (docs/FORMAT.md), for the
 * core that reads or rewrites a mapped file's header in place. All numbers
 * are little-endian. lib/bloomc/format.rb writes and parses the same layout;
 * spec/bloomc/format_layout_spec.rb checks that the two agree. */
#ifndef BF_FORMAT_H
#define BF_FORMAT_H

#include <stddef.h>

#define BF_FORMAT_MAGIC_BYTES 8 /* "\x89BLOOMC\n" */
#define BF_FORMAT_VERSION_AT 8  /* u16 */
#define BF_FORMAT_KIND_AT 10    /* u16 */
#define BF_FORMAT_FLAGS_AT 12   /* u16 */
#define BF_FORMAT_NFIELDS_AT 14 /* u16: the parameters that follow */
#define BF_FORMAT_HEADER 16     /* the parameters start here, a u64 each */
#define BF_FORMAT_TRAILER 24    /* after them: stored and raw body length (u64), body and header CRC32C (u32) */
#define BF_FORMAT_ALIGN 64      /* the body starts on a multiple of this */

/* Where parameter i starts. */
static inline size_t bf_format_field_at(size_t i)
{
    return BF_FORMAT_HEADER + 8 * i;
}

/* Where the header's CRC32C is, which covers every byte before it. */
static inline size_t bf_format_header_crc_at(size_t nfields)
{
    return bf_format_field_at(nfields) + BF_FORMAT_TRAILER - 4;
}

#endif
