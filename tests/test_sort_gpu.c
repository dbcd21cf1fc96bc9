/*
 * clscan tests, sort: both GPU shapes on this device (the warp ranking, asserted at build time
 * where the device fits it, with tiles of 256 x 3 keys too, and the per-work-item ranking) at
 * sizes around their tiles, and Onesweep with withheld publications (the decoupled fallback) in
 * the CPU shape and both GPU shapes, with the GPU shape's tiles by ticket and by group id
 * (test_gpu_shape, test_fallback).
 */
#include <stdio.h>
#include <stdlib.h>

#include "sort_fixture.h"

/* The cases of one GPU shape (work-groups with barriers and local ranking) on this device. */
static void gpu_shape_cases(size_t seed) {
  clscan_sort_algorithm algos[2];
  const int na = algorithms(algos);
  for (int a = 0; a < na; a++) {
    sort_case c = {.desc = {.key_type = a ? CLSCAN_INT64 : CLSCAN_UINT32,
                            .value_size = 4,
                            .descending = a,
                            .algorithm = algos[a]},
                   .g = GEN_RANDOM,
                   .n = 20000};
    check(&c, tu_mix(tu_seed(), seed + (size_t)a));
    c.g = GEN_FEW;
    c.n = 3 * 1024 + 5;
    check(&c, tu_mix(tu_seed(), seed + 10 + (size_t)a));
    c.g = GEN_EQUAL;
    c.n = 2 * 4096 + 77;
    check(&c, tu_mix(tu_seed(), seed + 20 + (size_t)a));
    // Keys only with an odd number of passes, wide values, a bit range, special doubles.
    sort_case more[] = {
        {.desc = {.key_type = CLSCAN_UINT8, .algorithm = algos[a]},
         .g = GEN_RANDOM,
         .n = 5000,
         .keys_off = 3},
        {.desc =
             {.key_type = CLSCAN_DOUBLE, .value_size = 12, .descending = 1, .algorithm = algos[a]},
         .g = GEN_SPECIAL,
         .n = 4100,
         .values_off = 1},
        {.desc = {.key_type = CLSCAN_UINT32,
                  .value_size = 3,
                  .begin_bit = 4,
                  .end_bit = 20,
                  .algorithm = algos[a]},
         .g = GEN_RANDOM,
         .n = 2047},
        {.desc = {.key_type = CLSCAN_UINT32, .value_size = 4, .algorithm = algos[a]},
         .g = GEN_MID8,
         .n = 6000},
        {.desc = {.key_type = CLSCAN_UINT64, .value_size = 256, .algorithm = algos[a]},
         .g = GEN_RANDOM,
         .n = 4097,
         .keys_off = 1},
    };
    for (size_t i = 0; i < sizeof more / sizeof more[0]; i++)
      check(&more[i], tu_mix(tu_seed(), seed + 30 + 10 * (size_t)a + i));
    // Sizes around the tiles of both GPU shapes (1024 and 4096 keys), on one plan.
    static const size_t sizes[] = {2, 31, 33, 1025, 4095, 4096, 4097, 8191, 8192, 12288 + 31};
    sort_case s = {.desc = {.key_type = CLSCAN_INT16, .value_size = 2, .algorithm = algos[a]},
                   .g = GEN_RANDOM};
    run_sizes(&s, sizes, sizeof sizes / sizeof sizes[0], seed + 60);
  }
}

/* 1 if gpu_shape_cases() can assert the warp ranking on this device: work-groups of 256 and 32 KB
 * of local memory, and plans of its largest cases build in that shape (the library falls back to
 * the per-work-item ranking where the kernels' own work-group limit is below 256, as on Mesa
 * rusticl's llvmpipe). Call it with the GPU shape selected. */
static int warp_ranking_fits(void) {
  cl_device_id dev = clscan_context_device(tu_context());
  cl_ulong local = 0;
  size_t wg = 0;
  clGetDeviceInfo(dev, CL_DEVICE_LOCAL_MEM_SIZE, sizeof local, &local, NULL);
  clGetDeviceInfo(dev, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof wg, &wg, NULL);
  if (local < 32 * 1024 || wg < 256)
    return 0;
  tu_env_saved options;
  expect_shape(1, &options);
  clscan_sort_algorithm algos[2];
  const int na = algorithms(algos);
  int fits = 1;
  for (int a = 0; a < na && fits; a++) {
    const clscan_sort_desc probes[] = {
        {.key_type = CLSCAN_INT64, .value_size = 4, .algorithm = algos[a]},
        {.key_type = CLSCAN_DOUBLE, .value_size = 12, .algorithm = algos[a]}};
    for (size_t i = 0; i < 2 && fits; i++) {
      clscan_sort_plan *plan = NULL;
      fits = clscan_sort_plan_create(tu_context(), &probes[i], &plan) == CLSCAN_SUCCESS;
      clscan_sort_plan_release(plan);
    }
  }
  tu_env_restore(&options);
  return fits;
}

/* Both GPU shapes on this device: the warp ranking (256 x 16 keys, 256 x 8 for 8-byte keys, and
 * 256 x 3), and the
 * per-work-item ranking (32 x 32) that CLSCAN_SORT_CLASSIC asks for; each asserts its shape at
 * build time (the warp ranking where the device fits it). */
void test_gpu_shape(void **state) {
  (void)state;
  tu_env_saved saved, options, classic;
  tu_env_set("CLSCAN_SINGLE_PASS_CPU", "0", &saved);
  if (warp_ranking_fits())
    expect_shape(1, &options);
  else
    tu_env_set("CLSCAN_BUILD_OPTIONS", getenv("CLSCAN_BUILD_OPTIONS"), &options);
  gpu_shape_cases(500);
  // Warp tiles of 256 x 3 keys (CLSCAN_SORT_ITEMS): a tile size that is not a power of two.
  tu_env_saved items;
  tu_env_set("CLSCAN_SORT_ITEMS", "3", &items);
  clscan_sort_algorithm algos[2];
  const int na = algorithms(algos);
  for (int a = 0; a < na; a++) {
    sort_case c = {.desc = {.key_type = CLSCAN_INT32, .value_size = 8, .algorithm = algos[a]},
                   .g = GEN_FEW,
                   .n = 4 * 768 + 1};
    check(&c, tu_mix(tu_seed(), 590 + (size_t)a));
  }
  tu_env_restore(&items);
  tu_env_restore(&options);
  expect_shape(0, &options);
  tu_env_set("CLSCAN_SORT_CLASSIC", "1", &classic);
  gpu_shape_cases(1500);
  tu_env_restore(&classic);
  tu_env_restore(&options);
  tu_env_restore(&saved);
}

/* Onesweep with withheld publications: every third tile publishes nothing, so the tiles after
 * it count its digits themselves (the decoupled fallback). The CPU shape and both GPU shapes. */
void test_fallback(void **state) {
  (void)state;
  tu_env_saved saved, shape, classic;
  tu_env_set("CLSCAN_TEST_WITHHOLD", "3", &saved);
  for (int gpu = 0; gpu < 3; gpu++) {
    tu_env_set("CLSCAN_SINGLE_PASS_CPU", gpu ? "0" : "1", &shape);
    tu_env_set("CLSCAN_SORT_CLASSIC", gpu == 2 ? "1" : NULL, &classic);
    sort_case c = {
        .desc = {.key_type = CLSCAN_UINT32, .value_size = 4, .algorithm = CLSCAN_SORT_ONESWEEP},
        .g = GEN_RANDOM,
        .n = gpu ? 4 * 4096 + 12345 : 200000};
    check(&c, tu_mix(tu_seed(), 700 + (size_t)gpu));
    tu_env_restore(&classic);
    tu_env_restore(&shape);
  }
  // The GPU shape's tiles by ticket and by group id (SORT_GROUP_TILE: NVIDIA takes the group id,
  // other devices the ticket), both through the fallback. Not by group id on Mesa's rusticl, where
  // no default takes it: llvmpipe's threads start work-groups out of order, so a tile finds many
  // predecessors not yet started and counts each itself, and those loops pass llvmpipe's limit of
  // 65535 iterations per work-item (docs/testing-drivers.md), which ends them silently.
  for (int group = 0; group < (tu_on_rusticl() ? 1 : 2); group++) {
    tu_env_saved options;
    const char *prior = getenv("CLSCAN_BUILD_OPTIONS");
    char with_tiles[256];
    snprintf(with_tiles, sizeof with_tiles, "%s -DSORT_GROUP_TILE=%d", prior ? prior : "", group);
    tu_env_set("CLSCAN_SINGLE_PASS_CPU", "0", &shape);
    tu_env_set("CLSCAN_BUILD_OPTIONS", with_tiles, &options);
    sort_case c = {
        .desc = {.key_type = CLSCAN_UINT32, .value_size = 4, .algorithm = CLSCAN_SORT_ONESWEEP},
        .g = GEN_RANDOM,
        .n = 4 * 4096 + 12345};
    check(&c, tu_mix(tu_seed(), 710 + (size_t)group));
    tu_env_restore(&options);
    tu_env_restore(&shape);
  }
  tu_env_restore(&saved);
}
