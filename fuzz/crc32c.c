/* CRC-32C (bf_crc32c.c), hardware and portable, against a bitwise
 * reference: over slices of the input cut anywhere and copied to any
 * alignment, and over runs of zeros short and very long. */
#include "harness.h"

#include <string.h>

#include "bf_crc32c.h"

/* Bit at a time, straight from the definition (reflected polynomial
 * 0x82F63B78, register and result inverted). */
MODEL static uint32_t ref_crc32c(uint32_t crc, const uint8_t *p, size_t n)
{
    uint32_t c = ~crc;
    for (size_t i = 0; i < n; i++) {
        c ^= p[i];
        for (int b = 0; b < 8; b++) c = (c >> 1) ^ (0x82F63B78U & (0U - (c & 1)));
    }
    return ~c;
}

#define CRC_BUDGET (1u << 21) /* bytes checksummed per input */
#define ZEROS_MAX (1u << 19)  /* longest run of zero bytes checksummed */
static const uint8_t zero_bytes[ZEROS_MAX];

static int may_crc(reader *r, uint64_t bytes)
{
    if (bytes > CRC_BUDGET - r->crc_bytes) return 0;
    r->crc_bytes += bytes;
    return 1;
}

/* The check value, RFC 3720's vectors, and the portable path before
 * bf_crc32c_init (once per process). */
void check_crc_vectors(void)
{
    static int done;
    if (done) return;
    done = 1;
    uint8_t buf[32];
    const uint8_t *nine = (const uint8_t *)"123456789";
    CHECK(ref_crc32c(0, nine, 9) == 0xE3069283U);
    CHECK(bf_crc32c(0, nine, 9) == 0xE3069283U); /* before init: the portable code */
    bf_crc32c_init();
    bf_crc32c_init();
    CHECK(bf_crc32c(0, nine, 9) == 0xE3069283U && bf_crc32c_sw(0, nine, 9) == 0xE3069283U);
    static const uint32_t want[4] = {0x8A9136AAU, 0x62A8AB43U, 0x46DD794EU, 0x113FDB5CU};
    for (int v = 0; v < 4; v++) {
        for (int i = 0; i < 32; i++) buf[i] = (uint8_t)(v == 0 ? 0 : (v == 1 ? 0xff : (v == 2 ? i : 31 - i)));
        CHECK(ref_crc32c(0, buf, 32) == want[v]);
        CHECK(bf_crc32c(0, buf, 32) == want[v] && bf_crc32c_sw(0, buf, 32) == want[v]);
    }
    CHECK(bf_crc32c_accelerated() == 0 || bf_crc32c_accelerated() == 1);
    CHECK(bf_crc32c(0, NULL, 0) == 0 && bf_crc32c_sw(0, NULL, 0) == 0 && bf_crc32c_zeros(0, 0) == 0);
    CHECK(bf_crc32c_zeros(0, 32) == want[0]);
}

/* A slice of the input, u32 starting crc, u8 flags (bits 0-2: cut points,
 * bits 3-5: an offset for a copy), then a u16 per cut point. Whole, in
 * pieces at the cut points (each piece by bf_crc32c, by bf_crc32c_sw, or
 * alternating), and copied to another alignment in a block of its exact
 * length: all equal to the bitwise reference. */
void crc_op(reader *r)
{
    key_ref k = rd_key(r);
    uint32_t c0 = rd_u32(r);
    uint8_t flags = rd_u8(r);
    size_t cuts[8], ncuts = flags & 7, n = k.len;
    unsigned off = (flags >> 3) & 7;
    for (size_t i = 0; i < ncuts; i++) cuts[i] = rd_u16(r) % (n + 1);
    if (!may_crc(r, 6 * (uint64_t)n + 1)) return;
    for (size_t i = 1; i < ncuts; i++) /* sort the few cut points */
        for (size_t j = i; j > 0 && cuts[j - 1] > cuts[j]; j--) {
            size_t t = cuts[j];
            cuts[j] = cuts[j - 1];
            cuts[j - 1] = t;
        }
    const uint8_t *p = key_ptr(r, k);
    uint32_t want = ref_crc32c(c0, p, n);
    CHECK(bf_crc32c(c0, p, n) == want);
    CHECK(bf_crc32c_sw(c0, p, n) == want);
    for (int how = 0; how < 3; how++) {
        uint32_t c = c0;
        size_t from = 0;
        for (size_t i = 0; i <= ncuts; i++) {
            size_t to = i < ncuts ? cuts[i] : n;
            int sw = how == 1 || (how == 2 && (i & 1));
            c = sw ? bf_crc32c_sw(c, p + from, to - from) : bf_crc32c(c, p + from, to - from);
            from = to;
        }
        CHECK(c == want);
    }
    uint8_t *copy = malloc(n + off ? n + off : 1); /* ends with the slice */
    CHECK(copy != NULL);
    memset(copy, 0xA5, off);
    if (n) memcpy(copy + off, p, n);
    CHECK(bf_crc32c(c0, copy + off, n) == want && bf_crc32c_sw(c0, copy + off, n) == want);
    free(copy);
    CHECK(bf_crc32c(want, NULL, 0) == want && bf_crc32c_sw(want, NULL, 0) == want);
}

/* u32 crc, u32 n, u8 shift (n % (ZEROS_MAX + 1) >> shift % 20), u64 a,
 * u64 b: bf_crc32c_zeros against the checksum of n zero bytes (hardware,
 * portable, and bitwise for short runs), and zeros(zeros(c, a), b) ==
 * zeros(c, a + b) for runs up to 2^63 each. */
void crc_zeros_op(reader *r)
{
    uint32_t c = rd_u32(r);
    uint32_t n = rd_u32(r);
    uint8_t shift = rd_u8(r);
    uint64_t a = rd_u64(r), b = rd_u64(r);
    n = (n % (ZEROS_MAX + 1)) >> (shift % 20);
    a >>= 1 + (shift >> 5);
    b >>= 1 + ((shift >> 2) & 7) * 8;
    uint32_t z = bf_crc32c_zeros(c, n);
    if (may_crc(r, n)) CHECK(bf_crc32c(c, zero_bytes, n) == z);
    if (may_crc(r, n)) CHECK(bf_crc32c_sw(c, zero_bytes, n) == z);
    if (n <= 4096 && may_crc(r, 8 * (uint64_t)n)) CHECK(ref_crc32c(c, zero_bytes, n) == z);
    CHECK(bf_crc32c_zeros(c, 0) == c);
    /* Runs near 2^64 take some 0.2 ms each under the sanitizers: charged as
     * 2^15 bytes, a few dozen per input. */
    if (!may_crc(r, 1u << 15)) return;
    CHECK(bf_crc32c_zeros(bf_crc32c_zeros(c, a), b) == bf_crc32c_zeros(c, a + b));
    CHECK(bf_crc32c_zeros(bf_crc32c_zeros(c, n), a) == bf_crc32c_zeros(c, a + n));
}
