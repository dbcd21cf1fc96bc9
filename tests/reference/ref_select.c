/*
 * clscan host reference for selections (ref_select.h).
 */
#include "ref_select.h"

#include "ref_scan.h"

#include <string.h>

int clscan_ref_equal_builtin(clscan_type type, const void *a, const void *b) {
  switch (type) {
    case CLSCAN_FLOAT: {
      float x, y;
      memcpy(&x, a, sizeof x);
      memcpy(&y, b, sizeof y);
      return x == y;
    }
    case CLSCAN_DOUBLE: {
      double x, y;
      memcpy(&x, a, sizeof x);
      memcpy(&y, b, sizeof y);
      return x == y;
    }
    case CLSCAN_HALF: {
      uint16_t x, y;
      memcpy(&x, a, sizeof x);
      memcpy(&y, b, sizeof y);
      return clscan_ref_half_to_double(x) == clscan_ref_half_to_double(y);
    }
    default:
      return memcmp(a, b, clscan_type_size(type)) == 0;
  }
}

void clscan_ref_heads(clscan_type type, clscan_ref_equal_fn eq, const void *vals, size_t size,
                      size_t n, unsigned char *heads) {
  const unsigned char *v = vals;
  for (size_t i = 0; i < n; i++) {
    if (i == 0) {
      heads[i] = 1;
      continue;
    }
    const void *a = v + (i - 1) * size, *b = v + i * size;
    int same = eq ? eq(a, b) != 0 : clscan_ref_equal_builtin(type, a, b);
    heads[i] = !same;
  }
}

/* Copies element i to slot k of out when k < cap. */
static void put(unsigned char *out, const unsigned char *v, size_t size, size_t cap, uint64_t k,
                size_t i) {
  if (k < cap)
    memcpy(out + k * size, v + i * size, size);
}

uint64_t clscan_ref_select(clscan_select_op op, const void *vals, size_t size,
                           const unsigned char *sel, size_t n, void *out, uint64_t *lengths,
                           size_t cap) {
  const unsigned char *v = vals;
  unsigned char *o = out;
  uint64_t count = 0;
  for (size_t i = 0; i < n; i++) {
    if (!sel[i])
      continue;
    put(o, v, size, cap, count, i);
    count++;
  }
  if (op == CLSCAN_PARTITION) {
    uint64_t k = count;
    for (size_t i = 0; i < n; i++) {
      if (!sel[i])
        put(o, v, size, cap, k++, i);
    }
  }
  if (op == CLSCAN_RUN_LENGTH_ENCODE && lengths) {
    // Run k runs from head k to the next head (or n).
    uint64_t k = 0;
    size_t start = 0;
    for (size_t i = 0; i <= n; i++) {
      if (i == n || (sel[i] && i > 0)) {
        if (n > 0 && k < cap)
          lengths[k] = i - start;
        k++;
        start = i;
      }
    }
  }
  return count;
}
