#include "bf_probe.h"
#include "bf_hash.h"

bf_key_hash bf_key_hash_bytes(const uint8_t *key, size_t len, uint32_t seed, bf_hash_kind kind)
{
    bf_key_hash h;
    if (kind == BF_HASH_FNV1A) {
        uint64_t v = bf_fnv1a_64(key, len);
        h.h1 = v >> 32;
        h.h2 = v & 0xffffffffU;
    } else {
        uint64_t out[2];
        bf_murmur3_128(key, len, seed, out);
        h.h1 = out[0];
        h.h2 = out[1];
    }
    return h;
}
