/*
 * clscan tests: reductions (clscan_plan_enqueue_reduce and clscan_reduce_host).
 *
 * Every result is checked against the host reference: a reduction is the last element of the
 * inclusive scan with the same initial value (clscan_ref_scan_twins), so the device's value
 * replaces that element of the reference scan and clscan_ref_check_twins judges it, integers
 * exactly and floating-point sums within the reference's tolerance (CLSCAN_REF_FLOAT_TOL and
 * CLSCAN_REF_DOUBLE_TOL relative to the sum of |y|; min and max exactly). n == 0 must give the
 * initial value (or the identity) exactly. The output element sits between poisoned guards that
 * must survive, and the input must be unchanged.
 *
 * Groups (one CTest test each):
 * - types: every built-in type and operator, with and without init, in a small GPU-shaped
 *   geometry at sizes around its tile and group boundaries, with aligned and unaligned offsets;
 *   every small size in both shapes; the host variant.
 * - shapes: every built-in type and operator, with and without init, in the tuning table's GPU
 *   shape (one launch) and CPU shape (chunks and a final fold) at random sizes. Apart from types
 *   because each case builds programs of its own: on the H200 the two groups together take
 *   minutes of NVIDIA's compiler, and apart they run side by side.
 * - user: output types, user operators and types (non-commutative ones too), maps.
 * - large: sizes up to millions in both shapes, and determinism (K runs give the same bits for
 *   float and double sums).
 * - errors: every bad-input status of both entry points, with the output left untouched.
 * - faults (fault-injection builds): every OpenCL fault point of a plan's creation and reduction
 *   (fresh contexts, so builds fail too) and of a reduction on a warm plan (both shapes) and of
 *   clscan_reduce_host fails cleanly: an OpenCL status with a detail, no event, the output
 *   untouched (only the last kernel writes it, so this holds at every point), and the next
 *   reduction on the same context is right.
 * Seeds are printed with each failure (and the base seed at the end).
 *
 * The tests are in files by concern, on the fixture of reduce_fixture.c (the shapes, the small
 * GPU-shaped geometry, one case run and checked); each file exports the cmocka tests of its
 * groups:
 *   test_reduce_types.c   types, shapes
 *   test_reduce_user.c    user
 *   test_reduce_large.c   large
 *   test_reduce_errors.c  errors
 *   test_reduce_faults.c  faults (built only with CLSCAN_FAULT_INJECTION)
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "reduce_fixture.h"

int main(int argc, char **argv) {
  if (!tu_context())
    return 1;
  int failed = 0, ran = 0;
  for (int i = 1; i < argc || (argc == 1 && i == 1); i++) {
    const char *g = argc > 1 ? argv[i] : "all";
    int all = strcmp(g, "all") == 0, known = 0;
#define GROUP(name, list)                                                                        \
  if (all || strcmp(g, name) == 0) {                                                             \
    known = 1;                                                                                   \
    failed += _cmocka_run_group_tests("reduce." name, reduce_##list##_tests,                     \
                                      reduce_##list##_count, tu_group_setup, tu_group_teardown); \
  }
    GROUP("types", types)
    GROUP("shapes", shapes)
    GROUP("user", user)
    GROUP("large", large)
    GROUP("errors", errors)
#ifdef CLSCAN_FAULT_INJECTION
    GROUP("faults", faults)
#endif
#undef GROUP
    if (!known) {
      fprintf(stderr,
              "test_reduce: unknown group %s (types, shapes, user, large, errors, faults, all)\n",
              g);
      failed++;
    }
    ran++;
  }
  tu_context_release();
  printf("clscan tests: seed %" PRIu64 " (%d group runs)\n", tu_seed(), ran);
  return failed ? 1 : 0;
}
