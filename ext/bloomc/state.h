/* A filter's saved state: fields and cells, checked on the way in (state.c). */
#ifndef BLOOMC_STATE_H
#define BLOOMC_STATE_H

#include "bloomc.h"
#include "bf_probe.h"

/* state.c: a filter's state as numbers and bytes (export_core and
 * import_core of every filter class; the file format is in Ruby). Every
 * check raises Bloomc::FormatError. */
NORETURN(void bloomc_format_error(const char *fmt, ...));
VALUE bloomc_state_new(const uint64_t *fields, int nfields, const uint8_t *const *parts, const size_t *lengths, int nparts);
/* The nfields Integers of fields (each 0..2**64-1) into out. */
void bloomc_state_fields(VALUE fields, int nfields, uint64_t *out);
uint64_t bloomc_state_check(uint64_t value, uint64_t min, uint64_t max, const char *name);
/* The seed parameter of the kinds without a hash parameter (4 to 9): the
 * seed in bits 0-31, the hash id in bits 32 and up (0: MurmurHash3 as
 * before, 2: mixed probes), so that a file from before reads as it was and
 * a reader from before refuses a mixed one (its seed is out of range). */
uint64_t bloomc_seed_with_hash(uint32_t seed, bf_hash_kind hash);
/* The hash id of such a parameter, checked (FormatError). */
bf_hash_kind bloomc_hash_of_seed(uint64_t field);
/* A double's IEEE 754 bits, as a saved field holds it, and back. */
uint64_t bloomc_double_bits(double d);
double bloomc_bits_double(uint64_t bits);
/* body's bytes, which must be exactly expected long. */
const uint8_t *bloomc_state_body(VALUE body, size_t expected);

#endif
