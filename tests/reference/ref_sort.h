/*
 * clscan host reference: stable radix-sort order (clscan_sort_* in clscan.h), computed with the C
 * library's qsort and an index tie-break, so that equal keys keep their input order.
 */
#ifndef CLSCAN_REF_SORT_H_
#define CLSCAN_REF_SORT_H_

#include <stddef.h>
#include <stdint.h>

#include "clscan.h"

/* The ordered bits of a key of a built-in type at `key` (clscan.h, "Sorting"): the sign bit
 * flipped for signed integers, the float flip for floating-point keys, inverted when descending,
 * then bits [begin_bit, end_bit) (0 and 0: all) shifted down. */
uint64_t ref_sort_order(clscan_type key_type, int descending, unsigned begin_bit, unsigned end_bit,
                        const void *key);

/* Sorts n keys (and their values of value_size bytes, values NULL without) in place, stably, as
 * clscan_sort_host() with that descriptor must. Returns 0, or -1 when memory ran out. */
int ref_sort(const clscan_sort_desc *desc, void *keys, void *values, size_t n);

#endif /* CLSCAN_REF_SORT_H_ */
