/*
 * clscan tests: extra arguments of user sources (clscan_arg), device-resident initial values
 * and device totals (clscan_plan_enqueue_args, clscan_plan_enqueue_reduce_args). Every result is
 * checked against a host loop: integers exactly. Half precision has its own program (test_half.c).
 *
 * Groups: scan (every algorithm and shape, sizes around each one's tile, offsets, in place,
 * exclusive, segmented, plan reuse with new buffers), op (an operator that reads a table, not
 * commutative, through every algorithm and the look-back's fallback), reduce, chain (chunked
 * streams chained through the device total, n = 0), errors (every bad input's status, buffers
 * untouched), keys (a by-key scan whose key equality reads the arguments). Seeds are printed with
 * every failure; CLSCAN_TEST_SEED picks another.
 *
 * The tests are in files by concern, on the fixture of args_fixture.c (the int32 map's arguments,
 * device buffers, the output check); each file exports the cmocka tests of its groups:
 *   test_args_scan.c    scan
 *   test_args_op.c      op
 *   test_args_totals.c  reduce, chain
 *   test_args_errors.c  errors
 *   test_args_keys.c    keys
 */
#include <stdio.h>
#include <string.h>

#include "args_fixture.h"

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
    failed += _cmocka_run_group_tests("args." name, args_##list##_tests, args_##list##_count, \
                                      tu_group_setup, tu_group_teardown);                     \
  }
    GROUP("scan", scan)
    GROUP("op", op)
    GROUP("reduce", reduce)
    GROUP("chain", chain)
    GROUP("errors", errors)
    GROUP("keys", keys)
#undef GROUP
    if (!known) {
      fprintf(stderr, "test_args: unknown group %s (scan, op, reduce, chain, errors, keys, all)\n",
              g);
      failed++;
    }
  }
  tu_context_release();
  return failed ? 1 : 0;
}
