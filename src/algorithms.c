/*
 * clscan: the registry of algorithms. Each algorithm lives in its own algo_*.c file and exports
 * one const clscan__algorithm; this list is the only place that names them all. Adding an
 * algorithm (docs/architecture.md) adds one line here.
 */
#include "sort_internal.h"

/* Every registered algorithm, one line each: the name of its exported descriptor. */
#define CLSCAN__ALGORITHMS(X)      \
  X(clscan__algo_blelloch)         \
  X(clscan__algo_hillis_steele)    \
  X(clscan__algo_reduce_then_scan) \
  X(clscan__algo_single_pass)

#define DECLARE_(descriptor) extern const clscan__algorithm descriptor;
CLSCAN__ALGORITHMS(DECLARE_)
#undef DECLARE_

/* The sort family's algorithms: each descriptor's registry entry is its `base`. */
#define CLSCAN__SORT_ALGORITHMS(X) \
  X(clscan__algo_radix_sort)       \
  X(clscan__algo_radix_sort_onesweep)

#define DECLARE_SORT_(descriptor) extern const clscan__sort_algorithm descriptor;
CLSCAN__SORT_ALGORITHMS(DECLARE_SORT_)
#undef DECLARE_SORT_

static const clscan__algorithm *const registry[] = {
#define ENTRY_(descriptor) &descriptor,
    CLSCAN__ALGORITHMS(ENTRY_)
#undef ENTRY_
#define SORT_ENTRY_(descriptor) &descriptor.base,
        CLSCAN__SORT_ALGORITHMS(SORT_ENTRY_)
#undef SORT_ENTRY_
};

const clscan__algorithm *clscan__algorithm_find(clscan__family family, int id) {
  for (size_t i = 0; i < sizeof registry / sizeof registry[0]; i++) {
    if (registry[i]->family == family && registry[i]->id == id)
      return registry[i];
  }
  return NULL;
}

size_t clscan__temp_align(const clscan_plan *plan, size_t bytes) {
  size_t s = plan->state_size, a = 16;
  while (a % s)
    a += 16;
  return clscan__div_up(bytes, a) * a;
}
