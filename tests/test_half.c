/*
 * clscan tests: half precision (CLSCAN_HALF, IEEE binary16 kept as its 16 bits), on every device.
 * Every result is checked against the host reference (tests/reference): half sums and products on
 * data that keeps them exact, and single combinations and conversions bit for bit against the
 * correctly rounded result (clscan_ref_half_from_double of the exact value).
 *
 * Groups:
 *   scan    the type's facts and refusals (bitwise operators); every algorithm case at sizes
 *           around its tile, inclusive and exclusive, with and without init: half -> float add,
 *           half add, mul, min, max, float, int32 and double -> half, half -> int32
 *           (truncation); the single pass with its decoupled fallback (CLSCAN_TEST_WITHHOLD=2).
 *   round   one rounding per result: random pairs over the whole half range summed and
 *           multiplied (a head-flag scan of segments of two, every algorithm case), then float,
 *           double and int32 conversions at ties, just off them, at the subnormals and past the
 *           largest half (three algorithm cases per input type).
 *   user    op_source on halves (a + b gives the built-in add's bits; fmax), maps from and to
 *           half, and a map reading a half buffer argument (vload_half) and a half scalar.
 *   keys    by-key scans on half keys (-0.0 equals +0.0, a NaN equals nothing) and a
 *           key_equal_source on halves.
 *   family  select and partition by a predicate, unique and run-length encoding (signed zeros
 *           and NaNs), reductions, and radix sorts of half keys with index values (stability).
 * Seeds are printed with every failure; CLSCAN_TEST_SEED picks another.
 *
 * The tests are in files by concern, on the fixture of half_fixture.c (half values, device
 * buffers, plans run on host arrays, random halves and keys); each file exports the cmocka tests
 * of its group:
 *   test_half_scan.c    scan
 *   test_half_round.c   round
 *   test_half_user.c    user
 *   test_half_keys.c    keys
 *   test_half_family.c  family
 */
#include <stdio.h>
#include <string.h>

#include "half_fixture.h"

int main(int argc, char **argv) {
  if (!tu_context())
    return 1;
  int failed = 0;
  for (int i = 1; i < argc || (argc == 1 && i == 1); i++) {
    const char *g = argc > 1 ? argv[i] : "all";
    int all = strcmp(g, "all") == 0, known = 0;
#define GROUP(name, list)                                                                     \
  if (all || strcmp(g, name) == 0) {                                                          \
    known = 1;                                                                                \
    failed += _cmocka_run_group_tests("half." name, half_##list##_tests, half_##list##_count, \
                                      tu_group_setup, tu_group_teardown);                     \
  }
    GROUP("scan", scan)
    GROUP("round", round)
    GROUP("user", user)
    GROUP("keys", keys)
    GROUP("family", family)
#undef GROUP
    if (!known) {
      fprintf(stderr, "test_half: unknown group %s (scan, round, user, keys, family, all)\n", g);
      failed++;
    }
  }
  tu_context_release();
  return failed ? 1 : 0;
}
