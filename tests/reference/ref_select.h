/*
 * clscan host reference for selections (select, partition, unique, run-length encoding):
 * sequential loops over mapped elements, against which the tests check the device's results.
 */
#ifndef CLSCAN_REF_SELECT_H_
#define CLSCAN_REF_SELECT_H_

#include <stddef.h>
#include <stdint.h>

#include "clscan.h"

/* Returns non-zero if two elements are equal (the twin of equal_source). */
typedef int (*clscan_ref_equal_fn)(const void *a, const void *b);

/* Returns 1 if two elements of a built-in type are equal as values (floats: -0.0 equals 0.0,
 * NaN equals nothing), as the library's built-in equality. */
int clscan_ref_equal_builtin(clscan_type type, const void *a, const void *b);

/* Marks the heads of runs of equal consecutive elements: heads[i] = 1 if i == 0 or element i
 * differs from element i - 1 (by eq, or by built-in equality of `type` when eq is NULL). */
void clscan_ref_heads(clscan_type type, clscan_ref_equal_fn eq, const void *vals, size_t size,
                      size_t n, unsigned char *heads);

/*
 * The reference selection of n elements of `size` bytes (already mapped), selected where
 * sel[i] != 0 (flags, predicate results, or run heads from clscan_ref_heads()):
 * - SELECT and UNIQUE: the selected elements in order;
 * - PARTITION: the selected ones in order, then the rejected ones in order;
 * - RUN_LENGTH_ENCODE: the heads in order, and lengths[k] the length of run k.
 * Writes the first cap results to out (and lengths), and returns the true count (selected
 * elements, or runs).
 */
uint64_t clscan_ref_select(clscan_select_op op, const void *vals, size_t size,
                           const unsigned char *sel, size_t n, void *out, uint64_t *lengths,
                           size_t cap);

#endif /* CLSCAN_REF_SELECT_H_ */
