/*
 * clscan tests: radix sorts (clscan_sort_* in clscan.h) against the host reference
 * (tests/reference/ref_sort.h: qsort with an index tie-break). Every case sorts keys, and pairs
 * whose values carry the key's input index, so that the comparison with the reference checks
 * stability too; values of other sizes carry bytes derived from the index. Buffers have guards
 * before and after the sorted ranges, which must keep their contents.
 *
 * Tests (test_NAME): types (every key type, both directions, both algorithms), ranges (bit
 * ranges), floats (NaNs, infinities and both zeros), shapes (all-equal, sorted, reversed, few
 * distinct keys, sizes around tile boundaries up to 2^20), gpu_shape (both GPU shapes on a CPU
 * device, sizes around their tiles), skips (equal high digits, which Onesweep skips), values
 * (value sizes, offsets, keys and values in one buffer), fallback (CLSCAN_TEST_WITHHOLD with
 * Onesweep), edges (n = 0 and 1, host arrays) and errors (every bad input, with the buffers
 * untouched); apart from them, property (random plans and sorts drawn from the seed, the CTest
 * test sort.property).
 *
 * The tests are in files by concern, on the fixture of sort_fixture.c (key generation, one case
 * run on a plan and checked, the key types and algorithms); test_sort.c runs them as one cmocka
 * group, so that a test's name picks it (test_sort test_fallback):
 *   test_sort_keys.c      types, ranges, floats, shapes, skips
 *   test_sort_gpu.c       gpu_shape, fallback
 *   test_sort_edges.c     values, edges
 *   test_sort_errors.c    errors
 *   test_sort_property.c  property
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "sort_fixture.h"

int main(int argc, char **argv) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_errors),    cmocka_unit_test(test_edges),
      cmocka_unit_test(test_values),    cmocka_unit_test(test_floats),
      cmocka_unit_test(test_ranges),    cmocka_unit_test(test_shapes),
      cmocka_unit_test(test_gpu_shape), cmocka_unit_test(test_fallback),
      cmocka_unit_test(test_skips),     cmocka_unit_test(test_types),
  };
  const struct CMUnitTest property[] = {cmocka_unit_test(test_property)};
  const int random = argc > 1 && strcmp(argv[1], "test_property") == 0;
  if (argc > 1 && !random)
    cmocka_set_test_filter(argv[1]);
  if (!tu_context())
    return 1;
  int failed = random
                   ? cmocka_run_group_tests_name("sort property", property, tu_group_setup,
                                                 tu_group_teardown)
                   : cmocka_run_group_tests_name("sort", tests, tu_group_setup, tu_group_teardown);
  tu_context_release();
  printf("clscan tests: seed %" PRIu64 "\n", tu_seed());
  return failed ? 1 : 0;
}
