/*
 * clscan tests, reduce: sizes up to millions in both shapes and in the GPU shape with wide
 * work-groups, and determinism: K runs of one float and one double sum on one plan give the same
 * bits (group large).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "reduce_fixture.h"
#include "ref_scan.h"

/* ============================================================================================== */
/* large                                                                                          */
/* ============================================================================================== */

/* Millions of elements, in both shapes with the table's geometry, and in the GPU shape with
 * work-groups of 64 (a lane-group reduction across many work-items). */
static void test_large(void **state) {
  (void)state;
  const clscan_type types[] = {CLSCAN_INT32, CLSCAN_INT64, CLSCAN_FLOAT, CLSCAN_UINT8};
  const size_t sizes[] = {(size_t)1 << 21, 3000017};
  const clscan_tuning wide = {
      .tile_wg = 64, .tile_vpt = 4, .rts_groups_per_cu = 2, .single_pass_shape = CLSCAN_SHAPE_GPU};
  for (size_t k = 0; k < sizeof types / sizeof types[0]; k++) {
    for (int s = 0; s < 3; s++) {
      reduce_case r = {.c = {.type = types[k], .op = CLSCAN_ADD}};
      r.tuning = s < 2 ? (clscan_tuning){.single_pass_shape = shapes[s]} : wide;
      r.c.n = sizes[(k + (size_t)s) % 2];
      r.c.in_off = k % 2 ? 0 : 1;
      r.c.seed = tu_mix(tu_seed(), 4000 + k * 2 + (size_t)s);
      tu_case_set_init(&r.c, r.c.seed);
      expect_case(&r);
    }
  }
}

/* K runs of one float and one double sum on one plan give the same bits, in both shapes. */
static void test_determinism(void **state) {
  (void)state;
  enum { K = 5 };
  clscan_context *ctx = tu_context();
  const clscan_type types[] = {CLSCAN_FLOAT, CLSCAN_DOUBLE};
  const size_t n = 300007;
  for (size_t k = 0; k < 2; k++) {
    if (!supported(types[k]))
      continue;
    for (int s = 0; s < 2; s++) {
      clscan_scan_desc d = {.type = types[k], .op = CLSCAN_ADD};
      clscan_tuning tuning = {.single_pass_shape = shapes[s]};
      size_t e = clscan_type_size(types[k]);
      uint64_t seed = tu_mix(tu_seed(), 5000 + k * 2 + (size_t)s);
      void *host = malloc(n * e);
      assert_non_null(host);
      clscan_ref_fill(types[k], CLSCAN_ADD, seed, host, n);
      clscan_plan *plan = NULL;
      assert_int_equal(clscan_plan_create_tuned(ctx, &d, &tuning, &plan), CLSCAN_SUCCESS);
      cl_mem in = tu_buffer(ctx, CL_MEM_READ_WRITE, n * e);
      cl_mem out = tu_buffer(ctx, CL_MEM_READ_WRITE, K * e);
      assert_true(in && out && tu_write(ctx, NULL, in, 0, n * e, host));
      for (size_t run = 0; run < K; run++)
        assert_int_equal(clscan_plan_enqueue_reduce(plan, NULL, in, 0, out, run, n, 0, NULL, NULL),
                         CLSCAN_SUCCESS);
      unsigned char got[K * 8];
      assert_true(tu_read(ctx, NULL, out, 0, K * e, got));
      for (size_t run = 1; run < K; run++) {
        if (memcmp(got, got + run * e, e) != 0)
          fail_msg("%s %s sum of n=%zu (seed %" PRIu64 "): run %zu gave other bits than run 0",
                   clscan_type_name(types[k]), shape_names[s], n, seed, run);
      }
      clReleaseMemObject(in);
      clReleaseMemObject(out);
      clscan_plan_release(plan);
      free(host);
    }
  }
}

/* ============================================================================================== */
/* The tests of this file                                                                         */
/* ============================================================================================== */

const struct CMUnitTest reduce_large_tests[] = {
    cmocka_unit_test(test_large),
    cmocka_unit_test(test_determinism),
};
const size_t reduce_large_count = sizeof reduce_large_tests / sizeof reduce_large_tests[0];
