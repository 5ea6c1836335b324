/* CRC-32C (Castagnoli): polynomial 0x1EDC6F41 (0x82F63B78 reflected), input
 * and output reflected, initial value and final xor 0xFFFFFFFF. This is the
 * iSCSI checksum of RFC 3720 (section 12.1, vectors in appendix B.4), also
 * used by SCTP, ext4 and Btrfs; the check value of "123456789" is 0xE3069283.
 * Pure C, no Ruby. Results do not depend on the host's byte order.
 *
 * Chaining: crc is the checksum of the bytes before data (as this function
 * returned it: the inversions are applied inside), and 0 to start. So
 *     bf_crc32c(0, "", 0) == 0
 *     bf_crc32c(bf_crc32c(0, a, na), b, nb) == the checksum of a followed by b
 * and data may be split anywhere, at any length and alignment. data may be
 * NULL when len is 0. */
#ifndef BF_CRC32C_H
#define BF_CRC32C_H

#include <stddef.h>
#include <stdint.h>

/* Picks the fastest implementation this CPU runs (SSE4.2's crc32 instruction
 * on x86-64). Call once, before any other thread or Ractor can call
 * bf_crc32c (the extension's Init does); it only writes a flag, so calling it
 * again is harmless. Before it is called, bf_crc32c uses the portable code:
 * the same results, only slower. */
void bf_crc32c_init(void);

/* Nonzero when bf_crc32c uses the hardware instruction (after init). */
int bf_crc32c_accelerated(void);

/* The checksum, by the fastest implementation bf_crc32c_init found. */
uint32_t bf_crc32c(uint32_t crc, const void *data, size_t len);

/* The same checksum by the portable code (slicing-by-8 tables) whatever the
 * CPU: to test the hardware path against and to measure it. */
uint32_t bf_crc32c_sw(uint32_t crc, const void *data, size_t len);

/* bf_crc32c(crc, n zero bytes) without the bytes, in O(log n) steps: zero
 * bytes act on the CRC register linearly, so n of them are one 32x32 matrix
 * over GF(2), built by squaring (for the holes of a sparse file). */
uint32_t bf_crc32c_zeros(uint32_t crc, uint64_t n);

#endif
