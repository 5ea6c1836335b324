/* A filter key's hash (keys.c). */
#ifndef BLOOMC_KEYS_H
#define BLOOMC_KEYS_H

#include "bloomc.h"
#include "bf_probe.h"

/* keys.c: the hash of a filter key (String by its bytes, Symbol by its name,
 * Integer by its value); TypeError for anything else. */
bf_key_hash bloomc_key_hash(VALUE key, uint32_t seed, bf_hash_kind kind);

#endif
