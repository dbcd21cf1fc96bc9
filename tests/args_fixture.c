/*
 * clscan tests: the fixture of the extra-argument tests (see args_fixture.h).
 */
#include "args_fixture.h"

#include <stdlib.h>
#include <string.h>

/* The map of the int32 cases: x * w[i] + s, with a weight buffer w and a scalar s. */
const clscan_arg int_args[] = {
    {.name = "w", .kind = CLSCAN_ARG_BUFFER, .type = CLSCAN_INT32},
    {.name = "s", .kind = CLSCAN_ARG_SCALAR, .type = CLSCAN_INT32},
};

/* Random int32 values in [-lim, lim]. */
void fill_ints(uint64_t seed, int32_t *v, size_t n, int32_t lim) {
  uint64_t s = seed;
  for (size_t i = 0; i < n; i++)
    v[i] = (int32_t)tu_random_size(&s, 0, 2 * (size_t)lim) - lim;
}

/* Returns 1 if the device runs an algorithm case (rusticl 22 refuses the single pass: it must say
 * so with CLSCAN_UNSUPPORTED_BY_DEVICE, and the case is left out). */
int device_runs(const tu_algo_case *a) {
  const clscan_scan_desc d = {.type = CLSCAN_INT32, .algorithm = a->algorithm};
  const clscan_status st = clscan_context_supports(tu_context(), &d);
  if (st != CLSCAN_SUCCESS && st != CLSCAN_UNSUPPORTED_BY_DEVICE)
    fail_msg("clscan_context_supports(%s): %s", a->name, clscan_status_string(st));
  return st == CLSCAN_SUCCESS;
}

/* Checks n results from a device buffer against the reference, and the guards after them. */
void check_out(uint64_t seed, const char *what, cl_mem out, size_t off, const int32_t *want,
               size_t n) {
  int32_t *got = malloc((n + TU_GUARD) * 4);
  assert_non_null(got);
  assert_true(tu_read(tu_context(), NULL, out, off * 4, (n + TU_GUARD) * 4, got));
  for (size_t i = 0; i < n; i++) {
    if (got[i] != want[i]) {
      int32_t g = got[i];
      free(got);
      tu_failf(seed, "%s: element %zu of %zu is %d, want %d", what, i, n, g, want[i]);
    }
  }
  const unsigned char *guard = (const unsigned char *)(got + n);
  for (size_t i = 0; i < TU_GUARD * 4; i++) {
    if (guard[i] != TU_POISON) {
      free(got);
      tu_failf(seed, "%s: the guard after the output was written", what);
    }
  }
  free(got);
}
