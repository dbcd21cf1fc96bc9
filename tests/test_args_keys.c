/*
 * clscan tests, args: a by-key scan whose key_equal_source reads a scalar and a buffer argument,
 * through every algorithm, inclusive and exclusive, against a host loop; the names the key
 * equality reserves (group keys).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args_fixture.h"

/* ============================================================================================== */
/* Key equality with extra arguments                                                              */
/* ============================================================================================== */

/* The key equality of the keys cases: keys agree modulo the scalar m and in the class table cls
 * (an intersection of two equivalences, so an equivalence), read by key_equal_source only. */
static const clscan_arg key_args[] = {
    {.name = "m", .kind = CLSCAN_ARG_SCALAR, .type = CLSCAN_INT32},
    {.name = "cls", .kind = CLSCAN_ARG_BUFFER, .type = CLSCAN_INT32},
};
#define KEY_RANGE 64

/* The host's equality of the keys cases. */
static int keys_equal(int32_t a, int32_t b, int32_t m, const int32_t *cls) {
  return a % m == b % m && cls[a] == cls[b];
}

/* Checks one by-key scan of n elements with m and the table from cls_off against a host loop. */
static void keys_check(clscan_plan *plan, const tu_algo_case *a, size_t n, int exclusive, int round,
                       uint64_t seed) {
  clscan_context *ctx = tu_context();
  uint64_t s = seed;
  const int32_t m = (int32_t)tu_random_size(&s, 1, 9);
  const size_t cls_off = tu_random_size(&s, 0, 5);
  int32_t *in = malloc(n * 4), *keys = malloc(n * 4), *want = malloc(n * 4), *got = malloc(n * 4);
  int32_t cls[KEY_RANGE + 5];
  assert_true(in && keys && want && got);
  for (size_t k = 0; k < KEY_RANGE + 5; k++)
    cls[k] = (int32_t)tu_random_size(&s, 0, 2);
  fill_ints(tu_mix(seed, 1), in, n, 1000);
  for (size_t i = 0; i < n; i++)
    keys[i] = i > 0 && tu_random_size(&s, 0, 3) != 0
                  ? keys[i - 1]
                  : (int32_t)tu_random_size(&s, 0, KEY_RANGE - 1);
  int32_t acc = 0;
  for (size_t i = 0; i < n; i++) {
    if (i == 0 || !keys_equal(keys[i], keys[i - 1], m, cls + cls_off))
      acc = 0;
    want[i] = exclusive ? acc : acc + in[i];
    acc += in[i];
  }
  cl_mem din = tu_buffer(ctx, CL_MEM_READ_WRITE, n * 4),
         dkeys = tu_buffer(ctx, CL_MEM_READ_WRITE, n * 4);
  cl_mem dout = tu_buffer(ctx, CL_MEM_READ_WRITE, n * 4);
  cl_mem dcls = tu_buffer(ctx, CL_MEM_READ_ONLY, sizeof cls);
  assert_true(din && dkeys && dout && dcls);
  assert_true(tu_write(ctx, NULL, din, 0, n * 4, in) && tu_write(ctx, NULL, dkeys, 0, n * 4, keys));
  assert_true(tu_write(ctx, NULL, dcls, 0, sizeof cls, cls));
  const clscan_arg_value values[] = {{.scalar = &m},
                                     {.buffer = dcls, .offset = cls_off, .length = KEY_RANGE}};
  const clscan_run_args run = {.values = values, .value_count = 2, .segments = dkeys};
  tu_ok(clscan_plan_enqueue_args(plan, NULL, din, 0, dout, 0, n, &run, 0, NULL, NULL, NULL),
        "clscan_plan_enqueue_args (keys)");
  assert_true(tu_read(ctx, NULL, dout, 0, n * 4, got));
  for (size_t i = 0; i < n; i++) {
    if (got[i] != want[i])
      tu_failf(seed, "keys %s n=%zu exclusive=%d round %d: out[%zu] = %d, want %d", a->name, n,
               exclusive, round, i, got[i], want[i]);
  }
  cl_mem all[] = {din, dkeys, dout, dcls};
  for (size_t k = 0; k < 4; k++)
    clReleaseMemObject(all[k]);
  free(in);
  free(keys);
  free(want);
  free(got);
}

/* A by-key scan whose key_equal_source reads a scalar and a buffer argument (and nothing else
 * does), through every algorithm, inclusive and exclusive, at sizes around each one's tile; each
 * plan runs twice per size with new values. */
static void test_keys_equal(void **state) {
  (void)state;
  uint64_t seed = tu_mix(tu_seed(), 5150);
  for (size_t c = 0; c < TU_ALGO_CASE_COUNT; c++) {
    if (!device_runs(&tu_algo_cases[c]))
      continue;
    for (int exclusive = 0; exclusive < 2; exclusive++) {
      const clscan_scan_desc d = {.type = CLSCAN_INT32,
                                  .exclusive = exclusive,
                                  .segments = CLSCAN_SEGMENTS_KEYS,
                                  .key_type = CLSCAN_INT32,
                                  .key_equal_source = "a % m == b % m && cls[a] == cls[b]",
                                  .args = key_args,
                                  .arg_count = 2};
      clscan_plan *plan = tu_algo_plan(&d, &tu_algo_cases[c], NULL);
      size_t sizes[8];
      const size_t count = tu_sizes_around(tu_algo_tile(plan, &tu_algo_cases[c], 1), &seed, sizes);
      for (size_t k = 0; k < count; k++) {
        char what[96];
        snprintf(what, sizeof what, "keys %s n=%zu exclusive=%d", tu_algo_cases[c].name, sizes[k],
                 exclusive);
        tu_progress(what);
        for (int round = 0; round < 2; round++)
          keys_check(plan, &tu_algo_cases[c], sizes[k], exclusive, round,
                     tu_mix(seed, c * 64 + k * 4 + (size_t)(exclusive * 2 + round)));
      }
      clscan_plan_release(plan);
    }
  }
}

/* The names a and b are the key equality's parameters; arguments read by key_equal_source alone
 * are accepted. */
static void test_keys_equal_errors(void **state) {
  (void)state;
  clscan_arg bad[2];
  memcpy(bad, key_args, sizeof bad);
  clscan_scan_desc d = {.type = CLSCAN_INT32,
                        .segments = CLSCAN_SEGMENTS_KEYS,
                        .key_type = CLSCAN_INT32,
                        .key_equal_source = "a % m == b % m && cls[a] == cls[b]",
                        .args = bad,
                        .arg_count = 2};
  clscan_plan *plan = NULL;
  tu_ok(clscan_plan_create(tu_context(), &d, &plan), "key equality with arguments");
  clscan_plan_release(plan);
  const char *const reserved[] = {"a", "b"};
  for (size_t k = 0; k < 2; k++) {
    bad[0].name = reserved[k];
    plan = NULL;
    assert_int_equal(clscan_plan_create(tu_context(), &d, &plan), CLSCAN_INVALID_VALUE);
    assert_null(plan);
  }
  bad[0].name = "m";
  d.key_equal_source = NULL; /* nothing reads the arguments */
  assert_int_equal(clscan_plan_create(tu_context(), &d, &plan), CLSCAN_INVALID_VALUE);
  d.key_equal_source = "a % m == b % nothing";
  assert_int_equal(clscan_plan_create(tu_context(), &d, &plan), CLSCAN_USER_SOURCE_INVALID);
}

/* ============================================================================================== */
/* The tests of this file                                                                         */
/* ============================================================================================== */

const struct CMUnitTest args_keys_tests[] = {
    cmocka_unit_test(test_keys_equal),
    cmocka_unit_test(test_keys_equal_errors),
};
const size_t args_keys_count = sizeof args_keys_tests / sizeof args_keys_tests[0];
