/*
 * clscan host reference for sorting: qsort of indices by (ordered key bits, index), then the
 * keys and values permuted by the result. The comparison works on ordered bits, computed here
 * independently of cl/radix_sort.cl from the rule stated in clscan.h.
 */
#include "ref_sort.h"

#include <stdlib.h>
#include <string.h>

uint64_t ref_sort_order(clscan_type key_type, int descending, unsigned begin_bit, unsigned end_bit,
                        const void *key) {
  const size_t size = clscan_type_size(key_type);
  const unsigned bits = (unsigned)size * 8;
  uint64_t u = 0;
  if (size == 1)
    u = *(const uint8_t *)key;
  else if (size == 2)
    u = *(const uint16_t *)key;
  else if (size == 4)
    u = *(const uint32_t *)key;
  else
    u = *(const uint64_t *)key;
  const uint64_t all = bits == 64 ? ~(uint64_t)0 : (((uint64_t)1 << bits) - 1);
  const uint64_t sign = (uint64_t)1 << (bits - 1);
  if (key_type == CLSCAN_FLOAT || key_type == CLSCAN_DOUBLE || key_type == CLSCAN_HALF)
    u = (u & sign) ? (~u & all) : (u | sign);
  else if (key_type == CLSCAN_INT8 || key_type == CLSCAN_INT16 || key_type == CLSCAN_INT32 ||
           key_type == CLSCAN_INT64)
    u ^= sign;
  if (descending)
    u = ~u & all;
  if (begin_bit || end_bit) {
    const unsigned width = end_bit - begin_bit;
    u >>= begin_bit;
    if (width < 64)
      u &= ((uint64_t)1 << width) - 1;
  }
  return u;
}

/* One entry of the index sort. */
typedef struct ref_entry {
  uint64_t order;
  size_t index;
} ref_entry;

static int compare_entries(const void *a, const void *b) {
  const ref_entry *x = a, *y = b;
  if (x->order != y->order)
    return x->order < y->order ? -1 : 1;
  return x->index < y->index ? -1 : x->index > y->index;
}

/* Permutes n elements of `size` bytes by the sorted entries (through a copy). */
static int permute(void *data, size_t size, const ref_entry *e, size_t n) {
  unsigned char *copy = malloc(n * size);
  if (!copy)
    return -1;
  memcpy(copy, data, n * size);
  for (size_t i = 0; i < n; i++)
    memcpy((unsigned char *)data + i * size, copy + e[i].index * size, size);
  free(copy);
  return 0;
}

int ref_sort(const clscan_sort_desc *desc, void *keys, void *values, size_t n) {
  if (n < 2)
    return 0;
  const size_t ks = clscan_type_size(desc->key_type);
  ref_entry *e = malloc(n * sizeof *e);
  if (!e)
    return -1;
  for (size_t i = 0; i < n; i++) {
    e[i].order = ref_sort_order(desc->key_type, desc->descending, desc->begin_bit, desc->end_bit,
                                (const unsigned char *)keys + i * ks);
    e[i].index = i;
  }
  qsort(e, n, sizeof *e, compare_entries);
  int rc = permute(keys, ks, e, n);
  if (rc == 0 && values && desc->value_size)
    rc = permute(values, desc->value_size, e, n);
  free(e);
  return rc;
}
