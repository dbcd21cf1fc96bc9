/*
 * clscan tests, sort: value sizes, offsets, and keys and values in one buffer; the algorithm AUTO
 * resolves to in each shape, n = 0 and 1, the temporary bytes a plan asks for, and host arrays
 * (test_values, test_edges).
 */
#include <stdlib.h>
#include <string.h>

#include "ref_sort.h"
#include "sort_fixture.h"

/* Value sizes, offsets, and keys and values in one buffer. */
void test_values(void **state) {
  (void)state;
  clscan_sort_algorithm algos[2];
  const int na = algorithms(algos);
  static const size_t sizes[] = {0, 1, 3, 8, 12, 256};
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
    sort_case c = {.desc = {.key_type = CLSCAN_UINT16,
                            .value_size = sizes[i],
                            .algorithm = algos[i % (size_t)na]},
                   .g = GEN_RANDOM,
                   .n = 20011,
                   .keys_off = 3 + i,
                   .values_off = 5 * i};
    check(&c, tu_mix(tu_seed(), 600 + i));
  }
  sort_case c = {.desc = {.key_type = CLSCAN_INT32, .value_size = 4, .algorithm = algos[na - 1]},
                 .g = GEN_RANDOM,
                 .n = 9999,
                 .keys_off = 7,
                 .values_off = 1,
                 .shared = 1};
  check(&c, tu_mix(tu_seed(), 650));
}

/* The algorithm AUTO resolves to in one shape (CLSCAN_SINGLE_PASS_CPU, CLSCAN_SORT_CLASSIC). */
static clscan_sort_algorithm auto_choice(const char *cpu, const char *classic) {
  tu_env_saved saved_cpu, saved_classic;
  tu_env_set("CLSCAN_SINGLE_PASS_CPU", cpu, &saved_cpu);
  tu_env_set("CLSCAN_SORT_CLASSIC", classic, &saved_classic);
  clscan_sort_desc d = {.key_type = CLSCAN_UINT32};
  clscan_sort_plan *plan = NULL;
  assert_int_equal(clscan_sort_plan_create(tu_context(), &d, &plan), CLSCAN_SUCCESS);
  const clscan_sort_algorithm got = clscan_sort_plan_algorithm(plan);
  clscan_sort_plan_release(plan);
  tu_env_restore(&saved_classic);
  tu_env_restore(&saved_cpu);
  return got;
}

/* AUTO's choice, n = 0 and 1 (a marker, done still given), and host arrays. */
void test_edges(void **state) {
  (void)state;
  // AUTO resolves to Onesweep with the warp ranking, to LSD in the CPU shape and with the
  // per-work-item ranking (as measured, docs/performance.md). Whether the GPU shape takes the
  // warp ranking depends on the device (not on Mesa rusticl's llvmpipe): a uint32 plan built
  // with the warp ranking asserted tells.
  tu_env_saved shape, options;
  tu_env_set("CLSCAN_SINGLE_PASS_CPU", "0", &shape);
  expect_shape(1, &options);
  clscan_sort_desc probe = {.key_type = CLSCAN_UINT32, .algorithm = CLSCAN_SORT_LSD};
  clscan_sort_plan *plan = NULL;
  const int warps = clscan_sort_plan_create(tu_context(), &probe, &plan) == CLSCAN_SUCCESS;
  clscan_sort_plan_release(plan);
  tu_env_restore(&options);
  tu_env_restore(&shape);
  assert_int_equal(auto_choice("0", "0"), warps ? CLSCAN_SORT_ONESWEEP : CLSCAN_SORT_LSD);
  assert_int_equal(auto_choice("1", "0"), CLSCAN_SORT_LSD);
  assert_int_equal(auto_choice("0", "1"), CLSCAN_SORT_LSD);
  clscan_context *ctx = tu_context();
  clscan_sort_desc d = {.key_type = CLSCAN_UINT32, .value_size = 4};
  assert_int_equal(clscan_sort_plan_create(ctx, &d, &plan), CLSCAN_SUCCESS);
  for (size_t n = 0; n < 2; n++) {
    sort_case c = {.desc = d, .g = GEN_RANDOM, .n = n, .keys_off = 2, .values_off = 1};
    run_case(plan, &c, tu_mix(tu_seed(), 800 + n));
  }
  assert_int_equal(clscan_sort_temp_bytes(plan, 0), 0);
  assert_true(clscan_sort_temp_bytes(plan, 1000000) >= 1000000 * 8);
  assert_int_equal(clscan_sort_temp_bytes(NULL, 10), 0);
  clscan_sort_plan_release(plan);
  clscan_sort_plan_release(NULL);
  // Host arrays: keys only and pairs.
  const size_t n = 77777;
  uint32_t *k = malloc(n * 4), *v = malloc(n * 4), *wk = malloc(n * 4), *wv = malloc(n * 4);
  fill_keys(&d, GEN_FEW, tu_mix(tu_seed(), 810), k, n);
  fill_values(4, v, n);
  memcpy(wk, k, n * 4);
  memcpy(wv, v, n * 4);
  d.descending = 1;
  assert_int_equal(ref_sort(&d, wk, wv, n), 0);
  assert_int_equal(clscan_sort_host(ctx, &d, k, v, n), CLSCAN_SUCCESS);
  assert_memory_equal(k, wk, n * 4);
  assert_memory_equal(v, wv, n * 4);
  assert_int_equal(clscan_sort_host(ctx, &d, k, v, 0), CLSCAN_SUCCESS);
  free(k);
  free(v);
  free(wk);
  free(wv);
}
