/*
 * clscan: the registry of algorithms. Each algorithm lives in its own algo_*.c file and exports
 * one const clscan__algorithm; this list is the only place that names them all. Adding an
 * algorithm (docs/architecture.md) adds one line here.
 */
#include "internal.h"

/* Every registered algorithm, one line each: the name of its exported descriptor. */
#define CLSCAN__ALGORITHMS(X)      \
  X(clscan__algo_blelloch)         \
  X(clscan__algo_hillis_steele)    \
  X(clscan__algo_reduce_then_scan) \
  X(clscan__algo_single_pass)

#define DECLARE_(descriptor) extern const clscan__algorithm descriptor;
CLSCAN__ALGORITHMS(DECLARE_)
#undef DECLARE_

static const clscan__algorithm *const registry[] = {
#define ENTRY_(descriptor) &descriptor,
    CLSCAN__ALGORITHMS(ENTRY_)
#undef ENTRY_
};

const clscan__algorithm *clscan__algorithm_find(clscan__family family, int id) {
  for (size_t i = 0; i < sizeof registry / sizeof registry[0]; i++) {
    if (registry[i]->family == family && registry[i]->id == id)
      return registry[i];
  }
  return NULL;
}

/* Every registered selection algorithm (algo_select_*.c), one line each. */
#define CLSCAN__SELECT_ALGORITHMS(X)   \
  X(clscan__select_blelloch)         \
  X(clscan__select_hillis_steele)    \
  X(clscan__select_reduce_then_scan) \
  X(clscan__select_single_pass)

#define DECLARE_(descriptor) extern const clscan__select_algorithm descriptor;
CLSCAN__SELECT_ALGORITHMS(DECLARE_)
#undef DECLARE_

static const clscan__select_algorithm *const select_registry[] = {
#define ENTRY_(descriptor) &descriptor,
    CLSCAN__SELECT_ALGORITHMS(ENTRY_)
#undef ENTRY_
};

const clscan__select_algorithm *clscan__select_algorithm_find(int id) {
  for (size_t i = 0; i < sizeof select_registry / sizeof select_registry[0]; i++) {
    if (select_registry[i]->id == id)
      return select_registry[i];
  }
  return NULL;
}

size_t clscan__temp_align(const clscan_plan *plan, size_t bytes) {
  size_t s = plan->state_size, a = 16;
  while (a % s)
    a += 16;
  return clscan__div_up(bytes, a) * a;
}
