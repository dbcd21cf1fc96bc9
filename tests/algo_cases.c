/*
 * clscan tests: the algorithm cases of scan tests (algo_cases.h).
 */
#include "algo_cases.h"

#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

#include <cmocka.h>

#include "test_util.h"

const tu_algo_case tu_algo_cases[TU_ALGO_CASE_COUNT] = {
    {"auto", CLSCAN_ALGO_AUTO, CLSCAN_SHAPE_DEFAULT},
    {"blelloch", CLSCAN_ALGO_BLELLOCH, CLSCAN_SHAPE_DEFAULT},
    {"hillis-steele", CLSCAN_ALGO_HILLIS_STEELE, CLSCAN_SHAPE_DEFAULT},
    {"reduce-then-scan", CLSCAN_ALGO_REDUCE_THEN_SCAN, CLSCAN_SHAPE_DEFAULT},
    {"single-pass cpu", CLSCAN_ALGO_SINGLE_PASS, CLSCAN_SHAPE_CPU},
    {"single-pass gpu", CLSCAN_ALGO_SINGLE_PASS, CLSCAN_SHAPE_GPU},
};

clscan_plan *tu_algo_plan(const clscan_scan_desc *desc, const tu_algo_case *a,
                          const char *withhold) {
  clscan_scan_desc d = *desc;
  d.algorithm = a->algorithm;
  const clscan_tuning t = {.single_pass_shape = a->shape};
  clscan_plan *plan = NULL;
  tu_env_saved saved;
  if (withhold)
    tu_env_set("CLSCAN_TEST_WITHHOLD", withhold, &saved);
  const clscan_status st = clscan_plan_create_tuned(tu_context(), &d, &t, &plan);
  if (withhold)
    tu_env_restore(&saved);
  if (st != CLSCAN_SUCCESS)
    fail_msg("plan %s: %s (%s)", a->name, clscan_status_string(st), clscan_last_error_detail());
  return plan;
}

size_t tu_algo_tile(const clscan_plan *plan, const tu_algo_case *a, size_t vec) {
  clscan_tuning t;
  tu_ok(clscan_plan_get_tuning(plan, &t), "clscan_plan_get_tuning");
  switch (clscan_plan_algorithm(plan, 1)) {
    case CLSCAN_ALGO_BLELLOCH:
      return 2 * (size_t)t.seed_wg;
    case CLSCAN_ALGO_HILLIS_STEELE:
      return t.seed_wg;
    case CLSCAN_ALGO_SINGLE_PASS:
      if (a->shape == CLSCAN_SHAPE_CPU || (a->shape == CLSCAN_SHAPE_DEFAULT && tu_device_is_cpu()))
        return t.cpu_tile;
      return (size_t)t.tile_wg * t.tile_vpt * vec;
    default:
      return (size_t)t.tile_wg * t.tile_vpt * vec;
  }
}

size_t tu_sizes_around(size_t b, uint64_t *s, size_t out[8]) {
  size_t k = 0;
  out[k++] = 1;
  out[k++] = 2;
  out[k++] = b - 1;
  out[k++] = b;
  out[k++] = b + 1;
  out[k++] = 2 * b + 3;
  out[k++] = tu_random_size(s, 3 * b, 3 * b + 70000);
  return k;
}

void tu_failf(uint64_t seed, const char *fmt, ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  fail_msg("%s (seed %" PRIu64 ")", msg, seed);
}

void tu_ok(clscan_status st, const char *what) {
  if (st != CLSCAN_SUCCESS)
    fail_msg("%s: %s (%s)", what, clscan_status_string(st), clscan_last_error_detail());
}
