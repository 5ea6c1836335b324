/* Argument checks that raise clear Ruby exceptions (args.c). */
#ifndef BLOOMC_ARGS_H
#define BLOOMC_ARGS_H

#include "bloomc.h"
#include "bf_probe.h"

/* args.c: argument checks that raise clear Ruby exceptions. */
uint64_t bloomc_index_arg(VALUE pos, uint64_t size);                /* IndexError */
uint64_t bloomc_count_arg(VALUE v, const char *name, uint64_t max); /* ArgumentError */
uint32_t bloomc_uint32_arg(VALUE v, const char *name);              /* RangeError */
bf_hash_kind bloomc_hash_kind_arg(VALUE v);                         /* ArgumentError */
/* The private combine(other, op) of every filter: op is :union or
 * :intersection (ArgumentError otherwise), and same_shape must hold (the Ruby
 * layer names the difference first; this guards the memory). */
int bloomc_intersection_arg(VALUE op, int same_shape);
/* ruby_xcalloc(nbytes, 1) for the cells of what (printf-style, formatted
 * only on failure): a NoMemoryError names the bytes asked for and what they
 * were for. */
void *bloomc_xcalloc(size_t nbytes, const char *what, ...);
/* Its NoMemoryError, for nbytes wanted for what (a String). */
NORETURN(void bloomc_no_memory(size_t nbytes, VALUE what));

#endif
