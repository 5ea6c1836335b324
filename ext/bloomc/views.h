/* BitField and BitBucketField views of a filter's cells (bit_field.c, bit_bucket_field.c). */
#ifndef BLOOMC_VIEWS_H
#define BLOOMC_VIEWS_H

#include "bloomc.h"
#include "bf_bits.h"
#include "bf_buckets.h"

/* Views that share a filter's storage (filter.bits, filter.buckets). */
VALUE bloomc_bit_field_view(VALUE owner, bf_bits *bits);
VALUE bloomc_bit_bucket_field_view(VALUE owner, bf_buckets *buckets);

#endif
