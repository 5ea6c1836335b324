/* Filters whose cells live in a mapped file (mapping.c). */
#ifndef BLOOMC_MAPPING_H
#define BLOOMC_MAPPING_H

#include "bloomc.h"

/* mapping.c: a filter whose cells live in a mapped file. The struct of a
 * class that can be mapped starts with a bloomc_mapping (base NULL: the
 * cells are on the heap). A mapped struct is on a list of the process's
 * mappings until it is unmapped, so that a forked child can find them
 * without asking Ruby for objects that may already be garbage. */
typedef struct bloomc_mapping {
    uint8_t *base;      /* the mapping, or NULL */
    size_t length;      /* of the mapping: the whole file */
    size_t body_offset; /* where the cells start */
    int writable;
    int closed;  /* unmapped by close: every method raises IOError */
    int fd;      /* the mapped file's descriptor (its Ruby File owns it) */
    VALUE owner; /* the filter; not marked: its struct goes with it */
    struct bloomc_mapping *prev, *next;
} bloomc_mapping;
void *bloomc_map_file(int fd, size_t length, int writable); /* SystemCallError */
/* Fills m for a mapping made by bloomc_map_file and puts it on the list. */
void bloomc_mapping_adopt(bloomc_mapping *m, VALUE owner, uint8_t *base, size_t length, size_t body_offset, int fd,
                          int writable);
void bloomc_unmap(bloomc_mapping *m); /* and off the list */
/* dcompact of every mappable type (its struct starts with the mapping). */
void bloomc_mapping_compact(void *ptr);
void bloomc_mapping_check(const bloomc_mapping *m, VALUE self); /* IOError once closed */
/* write_header, sync_mapping, mapped_body_crc (private) and mapped?, on
 * Bloomc::Filter. */
void bloomc_define_mapping_methods(void);
/* Bloomc::Mapped's own (private) methods, defined once. */
void bloomc_init_mapped(VALUE mBloomc);

#endif
