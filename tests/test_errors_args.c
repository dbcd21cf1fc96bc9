/*
 * clscan tests, errors: NULL arguments, invalid enums, bitwise operators on floats and the
 * supports matrix of every type and operator.
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "errors_fixture.h"

/* ============================================================================================== */
/* NULL arguments                                                                                 */
/* ============================================================================================== */

static void test_null_arguments(void **state) {
  (void)state;
  clscan_context *ctx = tu_context();
  clscan_plan *plan = fixture_plan(), *none = NOT_SET;
  cl_event done = NOT_SET;
  int host_in[4] = {1, 2, 3, 4}, host_out[4] = {9, 9, 9, 9};

  // clscan_scan.
  EXPECT_FAIL(CLSCAN_NULL_ARGUMENT,
              clscan_scan(NULL, NULL, &g_desc, g_in, 0, g_out, 0, N, 0, NULL, &done));
  assert_null(done);
  EXPECT_FAIL(CLSCAN_NULL_ARGUMENT,
              clscan_scan(ctx, NULL, NULL, g_in, 0, g_out, 0, N, 0, NULL, NULL));
  EXPECT_FAIL(CLSCAN_NULL_ARGUMENT,
              clscan_scan(ctx, NULL, &g_desc, NULL, 0, g_out, 0, N, 0, NULL, NULL));
  EXPECT_FAIL(CLSCAN_NULL_ARGUMENT,
              clscan_scan(ctx, NULL, &g_desc, g_in, 0, NULL, 0, N, 0, NULL, NULL));
  EXPECT_FAIL(CLSCAN_NULL_ARGUMENT,
              clscan_scan(ctx, NULL, &g_desc, NULL, 0, NULL, 0, 0, 0, NULL, NULL));

  // Plans.
  EXPECT_FAIL(CLSCAN_NULL_ARGUMENT,
              clscan_plan_enqueue(NULL, NULL, g_in, 0, g_out, 0, N, 0, NULL, NULL));
  EXPECT_FAIL(CLSCAN_NULL_ARGUMENT,
              clscan_plan_enqueue_timed(NULL, NULL, g_in, 0, g_out, 0, N, 0, NULL, NULL, NULL));
  for (entry via = VIA_PLAN; via < VIA_COUNT; via++) {
    EXPECT_FAIL(CLSCAN_NULL_ARGUMENT,
                enqueue_via(via, plan, NULL, NULL, NULL, 0, g_out, 0, N, 0, NULL));
    EXPECT_FAIL(CLSCAN_NULL_ARGUMENT,
                enqueue_via(via, plan, NULL, NULL, g_in, 0, NULL, 0, N, 0, NULL));
  }
  EXPECT_STATUS(CLSCAN_NULL_ARGUMENT, clscan_plan_create(NULL, &g_desc, &none));
  assert_null(none);
  none = NOT_SET;
  EXPECT_STATUS(CLSCAN_NULL_ARGUMENT, clscan_plan_create(ctx, NULL, &none));
  assert_null(none);
  EXPECT_STATUS(CLSCAN_NULL_ARGUMENT, clscan_plan_create(ctx, &g_desc, NULL));

  // Host scans: the output array keeps its values.
  EXPECT_STATUS(CLSCAN_NULL_ARGUMENT, clscan_scan_host(NULL, &g_desc, host_in, host_out, 4));
  EXPECT_STATUS(CLSCAN_NULL_ARGUMENT, clscan_scan_host(ctx, NULL, host_in, host_out, 4));
  EXPECT_STATUS(CLSCAN_NULL_ARGUMENT, clscan_scan_host(ctx, &g_desc, NULL, host_out, 4));
  EXPECT_STATUS(CLSCAN_NULL_ARGUMENT, clscan_scan_host(ctx, &g_desc, host_in, NULL, 4));
  assert_memory_equal(host_out, untouched, sizeof untouched);

  // Contexts.
  clscan_context *c = NOT_SET;
  cl_context cl_ctx = clscan_context_cl_context(ctx);
  cl_device_id dev = clscan_context_device(ctx);
  EXPECT_STATUS(CLSCAN_NULL_ARGUMENT, clscan_context_create(NULL, dev, &c));
  assert_null(c);
  EXPECT_STATUS(CLSCAN_NULL_ARGUMENT, clscan_context_create(cl_ctx, NULL, &c));
  EXPECT_STATUS(CLSCAN_NULL_ARGUMENT, clscan_context_create(cl_ctx, dev, NULL));
  EXPECT_STATUS(CLSCAN_NULL_ARGUMENT, clscan_context_create_default(NULL));
  EXPECT_STATUS(CLSCAN_NULL_ARGUMENT, clscan_context_supports(NULL, &g_desc));
  EXPECT_STATUS(CLSCAN_NULL_ARGUMENT, clscan_context_supports(ctx, NULL));
  EXPECT_STATUS(CLSCAN_NULL_ARGUMENT, clscan_context_build_log(NULL, NULL, 0, NULL));
  EXPECT_STATUS(CLSCAN_NULL_ARGUMENT, clscan_context_build_log(ctx, NULL, 16, NULL));
  clscan_plan_release(plan);
}

/* ============================================================================================== */
/* Descriptors                                                                                    */
/* ============================================================================================== */

/* Expects `want` from every entry point that takes a descriptor. */
static void expect_desc_status(const clscan_scan_desc *d, clscan_status want) {
  clscan_context *ctx = tu_context();
  clscan_plan *plan = NOT_SET;
  int host_in[4] = {1, 2, 3, 4}, host_out[4] = {9, 9, 9, 9};
  EXPECT_STATUS(want, clscan_context_supports(ctx, d));
  EXPECT_STATUS(want, clscan_plan_create(ctx, d, &plan));
  assert_null(plan);
  EXPECT_FAIL(want, clscan_scan(ctx, NULL, d, g_in, 0, g_out, 0, N, 0, NULL, NULL));
  EXPECT_STATUS(want, clscan_scan_host(ctx, d, host_in, host_out, 4));
  assert_memory_equal(host_out, untouched, sizeof untouched);
}

static void test_invalid_enums(void **state) {
  (void)state;
  const int bad[] = {-1, 1000, INT_MIN};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0] + 1; i++) {
    clscan_scan_desc d = g_desc;
    int v = i < sizeof bad / sizeof bad[0] ? bad[i] : -2;
    d.type = i == 3 ? (clscan_type)CLSCAN_TYPE_COUNT : (clscan_type)v;
    expect_desc_status(&d, CLSCAN_INVALID_TYPE);
    d = g_desc;
    d.op = i == 3 ? (clscan_op)CLSCAN_OP_COUNT : (clscan_op)v;
    expect_desc_status(&d, CLSCAN_INVALID_OP);
    d = g_desc;
    d.algorithm = i == 3 ? (clscan_algorithm)CLSCAN_ALGORITHM_COUNT : (clscan_algorithm)v;
    expect_desc_status(&d, CLSCAN_INVALID_ALGORITHM);
  }
}

static void test_bitwise_on_floats(void **state) {
  (void)state;
  const clscan_type types[] = {CLSCAN_FLOAT, CLSCAN_DOUBLE};
  for (int t = 0; t < 2; t++) {
    for (int op = CLSCAN_AND; op <= CLSCAN_XOR; op++) {
      clscan_scan_desc d = {.type = types[t], .op = (clscan_op)op};
      expect_desc_status(&d, CLSCAN_UNSUPPORTED_OP_FOR_TYPE);
    }
  }
}

/* Every type x operator: supported, refused for bitwise on floats, or (fp64, single pass, and
 * on Mesa 22.3's rusticl int8 with a non-zero identity: docs/testing.md) refused by the
 * device. */
static void test_supports_matrix(void **state) {
  (void)state;
  clscan_context *ctx = tu_context();
  for (int t = 0; t < CLSCAN_TYPE_COUNT; t++) {
    for (int op = 0; op < CLSCAN_OP_COUNT; op++) {
      for (int a = 0; a < CLSCAN_ALGORITHM_COUNT; a++) {
        clscan_scan_desc d = {
            .type = (clscan_type)t, .op = (clscan_op)op, .algorithm = (clscan_algorithm)a};
        clscan_status st = clscan_context_supports(ctx, &d);
        int is_float = t == CLSCAN_FLOAT || t == CLSCAN_DOUBLE || t == CLSCAN_HALF;
        if (is_float && op >= CLSCAN_AND) {
          assert_int_equal(st, CLSCAN_UNSUPPORTED_OP_FOR_TYPE);
        } else if (st != CLSCAN_SUCCESS) {
          assert_int_equal(st, CLSCAN_UNSUPPORTED_BY_DEVICE);
          int int8_on_rusticl = t == CLSCAN_INT8 && strstr(clscan_last_error_detail(), "rusticl");
          assert_true(t == CLSCAN_DOUBLE || t == CLSCAN_HALF || a == CLSCAN_ALGO_SINGLE_PASS ||
                      int8_on_rusticl);
        }
      }
    }
  }
}

/* ============================================================================================== */
/* The tests of this file                                                                         */
/* ============================================================================================== */

const struct CMUnitTest errors_args_tests[] = {
    cmocka_unit_test(test_null_arguments),
    cmocka_unit_test(test_invalid_enums),
    cmocka_unit_test(test_bitwise_on_floats),
    cmocka_unit_test(test_supports_matrix),
};
const size_t errors_args_count = sizeof errors_args_tests / sizeof errors_args_tests[0];
