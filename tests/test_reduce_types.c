/*
 * clscan tests, reduce: every built-in type and operator, with and without init, in a small
 * GPU-shaped geometry at sizes around its tile and group boundaries (group types) and in the
 * tuning table's GPU and CPU shapes at random sizes (group shapes); every small size in both
 * shapes with aligned and unaligned offsets, and the host variant (group types).
 */
#include <stdint.h>

#include "reduce_fixture.h"

/* Returns 1 if an operator is defined on a type and the device runs it: the device may refuse a
 * pair with CLSCAN_UNSUPPORTED_BY_DEVICE (rusticl 22.x, whose JIT crashes on int8 mul, min, max
 * and and: docs/testing-drivers.md), and only with that status. */
static int op_on_type(clscan_type t, clscan_op op) {
  int is_float = t == CLSCAN_FLOAT || t == CLSCAN_DOUBLE || t == CLSCAN_HALF;
  if (is_float && (op == CLSCAN_AND || op == CLSCAN_OR || op == CLSCAN_XOR))
    return 0;
  clscan_scan_desc d = {.type = t, .op = op};
  clscan_status st = clscan_context_supports(tu_context(), &d);
  if (st != CLSCAN_UNSUPPORTED_BY_DEVICE)
    assert_int_equal(st, CLSCAN_SUCCESS);
  return st == CLSCAN_SUCCESS;
}

/* ============================================================================================== */
/* types                                                                                          */
/* ============================================================================================== */

/* Sizes around the small GPU geometry's tiles (4 x 2 x VEC) and groups, and a few others. */
static const size_t small_sizes[] = {0, 1, 2, 3, 7, 8, 9, 31, 32, 33, 95, 96, 97, 255, 256, 1000};

/* Every type and operator in the shapes [first, last): 0, the small GPU geometry; 1 and 2, the
 * table's GPU and CPU shapes. */
static void types_in_shapes(int first, int last) {
  uint64_t rs = tu_mix(tu_seed(), (uint64_t)(1 + first));
  for (int t = 0; t < CLSCAN_TYPE_COUNT; t++) {
    if (!supported((clscan_type)t))
      continue;
    for (int op = 0; op < CLSCAN_OP_COUNT; op++) {
      if (!op_on_type((clscan_type)t, (clscan_op)op))
        continue;
      for (int s = first; s < last; s++) {
        reduce_case r = {.c = {.type = (clscan_type)t, .op = (clscan_op)op}};
        r.tuning = s == 0 ? small_gpu() : (clscan_tuning){.single_pass_shape = shapes[s - 1]};
        size_t pick = tu_random_size(&rs, 0, sizeof small_sizes / sizeof small_sizes[0] - 1);
        r.c.n = s == 0 ? small_sizes[pick] : tu_random_size(&rs, 1, 20000);
        r.c.in_off = tu_random_size(&rs, 0, 1) ? tu_random_size(&rs, 1, 7) : 0;
        r.c.out_off = tu_random_size(&rs, 0, 3);
        r.c.seed = tu_mix(tu_seed(), (uint64_t)(t * 100 + op * 10 + s));
        if (tu_random_size(&rs, 0, 1))
          tu_case_set_init(&r.c, tu_mix(r.c.seed, 7));
        expect_case(&r);
      }
    }
  }
}

static void test_types(void **state) {
  (void)state;
  types_in_shapes(0, 1);
}

static void test_shapes(void **state) {
  (void)state;
  types_in_shapes(1, 3);
}

/* Every small size in both shapes (int32 add, uint8 max, double add), offsets aligned or not. */
static void test_boundaries(void **state) {
  (void)state;
  const clscan_type types[] = {CLSCAN_INT32, CLSCAN_UINT8, CLSCAN_DOUBLE};
  const clscan_op ops[] = {CLSCAN_ADD, CLSCAN_MAX, CLSCAN_ADD};
  for (size_t k = 0; k < 3; k++) {
    if (!supported(types[k]))
      continue;
    for (size_t i = 0; i < sizeof small_sizes / sizeof small_sizes[0]; i++) {
      for (int s = 0; s < 3; s++) {
        reduce_case r = {.c = {.type = types[k], .op = ops[k], .n = small_sizes[i]}};
        r.tuning = s == 0 ? small_gpu() : (clscan_tuning){.single_pass_shape = shapes[s - 1]};
        r.c.in_off = i % 3 == 0 ? 0 : i % 3 == 1 ? 16 : 5;
        r.c.out_off = i % 2;
        r.c.seed = tu_mix(tu_seed(), 1000 + k * 100 + i * 3 + (size_t)s);
        if (i % 2)
          tu_case_set_init(&r.c, r.c.seed);
        expect_case(&r);
      }
    }
  }
}

/* The host variant: every type with add, and n == 0 with and without init. */
static void test_host(void **state) {
  (void)state;
  for (int t = 0; t < CLSCAN_TYPE_COUNT; t++) {
    if (!supported((clscan_type)t))
      continue;
    for (int k = 0; k < 3; k++) {
      reduce_case r = {.c = {.type = (clscan_type)t, .op = CLSCAN_ADD}, .host = 1};
      r.c.n = k == 0 ? 0 : k == 1 ? 1 : 12345;
      r.c.seed = tu_mix(tu_seed(), 2000 + (uint64_t)t * 3 + (uint64_t)k);
      if (k != 1)
        tu_case_set_init(&r.c, r.c.seed);
      expect_case(&r);
      r.c.has_init = 0;
      expect_case(&r);
    }
  }
}

/* ============================================================================================== */
/* The tests of this file                                                                         */
/* ============================================================================================== */

const struct CMUnitTest reduce_types_tests[] = {
    cmocka_unit_test(test_types),
    cmocka_unit_test(test_boundaries),
    cmocka_unit_test(test_host),
};
const size_t reduce_types_count = sizeof reduce_types_tests / sizeof reduce_types_tests[0];

const struct CMUnitTest reduce_shapes_tests[] = {
    cmocka_unit_test(test_shapes),
};
const size_t reduce_shapes_count = sizeof reduce_shapes_tests / sizeof reduce_shapes_tests[0];
