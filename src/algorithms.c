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
  X(clscan__algo_single_pass)      \
  X(clscan__algo_reduce)           \
  X(clscan__algo_total)

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

/* Every registered selection algorithm (algo_select_*.c), one line each. */
#define CLSCAN__SELECT_ALGORITHMS(X) \
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

#ifdef CLSCAN_FAULT_INJECTION
/* Returns 1 if an earlier algorithm of the registry (before index `a`) has the program. */
static int listed_before(size_t a, const clscan__program *program) {
  for (size_t e = 0; e < a; e++) {
    for (const clscan__program *const *p = registry[e]->programs; *p; p++) {
      if (*p == program)
        return 1;
    }
  }
  return 0;
}

/* Returns 1 if an earlier selection algorithm (before index `a`) has the program. */
static int select_listed_before(size_t a, const clscan__program *program) {
  for (size_t e = 0; e < a; e++) {
    for (const clscan__program *const *p = select_registry[e]->programs; *p; p++) {
      if (*p == program)
        return 1;
    }
  }
  return 0;
}

int clscan_test_program(size_t i, clscan_test_program_info *out) {
  size_t seen = 0;
  for (size_t a = 0; a < sizeof registry / sizeof registry[0]; a++) {
    for (const clscan__program *const *p = registry[a]->programs; *p; p++) {
      if (listed_before(a, *p) || seen++ != i)
        continue;
      *out = (clscan_test_program_info){(*p)->name, (*p)->files, (int)registry[a]->family,
                                        registry[a]->id};
      return 1;
    }
  }
  // Then the selection family's programs.
  for (size_t a = 0; a < sizeof select_registry / sizeof select_registry[0]; a++) {
    for (const clscan__program *const *p = select_registry[a]->programs; *p; p++) {
      if (select_listed_before(a, *p) || seen++ != i)
        continue;
      *out = (clscan_test_program_info){(*p)->name, (*p)->files, (int)CLSCAN__FAMILY_SELECT,
                                        select_registry[a]->id};
      return 1;
    }
  }
  // Then the batched scans' program.
  if (seen++ == i) {
    *out = (clscan_test_program_info){clscan__batch_program.name, clscan__batch_program.files,
                                      (int)CLSCAN__FAMILY_BATCH, 0};
    return 1;
  }
  return 0;
}
#endif
