/*
 * clscan tests: the public tuning calls and the generated type and status tables.
 *
 * - clscan_context_default_tuning() reports what clscan_plan_create() gives (every field set),
 *   and clscan_plan_get_tuning() reports a plan's resolved values.
 * - clscan_plan_create_tuned() takes the caller's values (reported back, and the scans stay
 *   exact), leaves zero fields to the table, rejects each kind of bad value with
 *   CLSCAN_INVALID_VALUE and a detail naming the field, and creates nothing then.
 * - The environment switches are still read: CLSCAN_SINGLE_PASS_CPU and CLSCAN_TILE_WG change the
 *   defaults, and a caller's value wins over them.
 * - CLSCAN_TYPE_MAP, CLSCAN_OP_MAP and CLSCAN_STATUS_MAP: names and sizes, and a string for
 *   CLSCAN_MPI_ERROR.
 * - AUTO's choice of algorithm is the one docs/tuning.md gives for the device.
 * - The H200 and H100 rows (through a test hook that resolves a descriptor's tuning for a
 *   named NVIDIA GPU): which plans stash their tile and which get a register cap, and that a
 *   stash that would not fit, a user type, a tile other than the row's or another GPU drops them;
 *   and the reductions' shape of their own, which only the row's tile and group count keep.
 */
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "test_util.h"
#include "user_specs.h"
#ifdef CLSCAN_FAULT_INJECTION
#include "fault.h"
#endif

/* Elements of the verified scans: several tiles of every shape. */
#define N 200003

/* The descriptor most tests use: an exclusive int64 sum through the single pass where the device
 * has it, else reduce-then-scan. */
static clscan_scan_desc sum_desc(void) {
  clscan_scan_desc d = {.type = CLSCAN_INT64, .op = CLSCAN_ADD, .exclusive = 1};
  return d;
}

/* Runs a plan on N int64 values and checks the exclusive sum exactly; returns 1 if it verified. */
static int verified(clscan_plan *plan) {
  clscan_context *ctx = tu_context();
  int64_t *host = malloc(N * sizeof *host), *got = malloc(N * sizeof *got);
  cl_mem in = tu_buffer(ctx, CL_MEM_READ_WRITE, N * sizeof *host);
  cl_mem out = tu_buffer(ctx, CL_MEM_READ_WRITE, N * sizeof *host);
  int ok = host && got && in && out;
  for (size_t i = 0; ok && i < N; i++)
    host[i] = (int64_t)((i * 2654435761u) % 1000) - 500;
  ok = ok && tu_write(ctx, NULL, in, 0, N * sizeof *host, host);
  ok = ok && clscan_plan_enqueue(plan, NULL, in, 0, out, 0, N, 0, NULL, NULL) == CLSCAN_SUCCESS;
  ok = ok && tu_read(ctx, NULL, out, 0, N * sizeof *got, got);
  int64_t sum = 0;
  for (size_t i = 0; ok && i < N; i++) {
    ok = got[i] == sum;
    sum += host[i];
  }
  if (in)
    clReleaseMemObject(in);
  if (out)
    clReleaseMemObject(out);
  free(host);
  free(got);
  return ok;
}

/* Returns 1 if every field of a reported tuning is set. */
static int resolved(const clscan_tuning *t) {
  return t->seed_wg && t->tile_wg && t->tile_vpt && t->rts_groups_per_cu && t->cpu_tile &&
         (t->single_pass_shape == CLSCAN_SHAPE_GPU || t->single_pass_shape == CLSCAN_SHAPE_CPU);
}

static void test_defaults_match_plan(void **state) {
  (void)state;
  clscan_context *ctx = tu_context();
  const clscan_scan_desc desc = sum_desc();
  clscan_tuning defaults, got;
  assert_int_equal(clscan_context_default_tuning(ctx, &desc, &defaults), CLSCAN_SUCCESS);
  assert_true(resolved(&defaults));
  clscan_plan *plan = NULL;
  assert_int_equal(clscan_plan_create(ctx, &desc, &plan), CLSCAN_SUCCESS);
  assert_int_equal(clscan_plan_get_tuning(plan, &got), CLSCAN_SUCCESS);
  assert_memory_equal(&defaults, &got, sizeof got);
  clscan_plan_release(plan);

  // A zeroed override and a NULL one give the defaults too.
  const clscan_tuning zero = {0};
  assert_int_equal(clscan_plan_create_tuned(ctx, &desc, &zero, &plan), CLSCAN_SUCCESS);
  assert_int_equal(clscan_plan_get_tuning(plan, &got), CLSCAN_SUCCESS);
  assert_memory_equal(&defaults, &got, sizeof got);
  clscan_plan_release(plan);
  assert_int_equal(clscan_plan_create_tuned(ctx, &desc, NULL, &plan), CLSCAN_SUCCESS);
  clscan_plan_release(plan);

  // Other element sizes resolve too.
  const clscan_scan_desc narrow = {.type = CLSCAN_INT8};
  assert_int_equal(clscan_context_default_tuning(ctx, &narrow, &got), CLSCAN_SUCCESS);
  assert_true(resolved(&got));
}

static void test_overrides_taken(void **state) {
  (void)state;
  clscan_context *ctx = tu_context();
  const clscan_scan_desc desc = sum_desc();
  clscan_tuning defaults;
  assert_int_equal(clscan_context_default_tuning(ctx, &desc, &defaults), CLSCAN_SUCCESS);

  // Each shape with values other than the table's, verified.
  const clscan_tuning cases[] = {
      {.tile_wg = 32, .tile_vpt = 3, .single_pass_shape = CLSCAN_SHAPE_GPU},
      {.cpu_tile = 1000, .single_pass_shape = CLSCAN_SHAPE_CPU},
      {.rts_groups_per_cu = 1, .tile_wg = 64, .tile_vpt = 1},
      {.seed_wg = 64},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    const clscan_tuning *want = &cases[i];
    clscan_plan *plan = NULL;
    clscan_tuning got;
    assert_int_equal(clscan_plan_create_tuned(ctx, &desc, want, &plan), CLSCAN_SUCCESS);
    assert_int_equal(clscan_plan_get_tuning(plan, &got), CLSCAN_SUCCESS);
    assert_int_equal(got.seed_wg, want->seed_wg ? want->seed_wg : defaults.seed_wg);
    assert_int_equal(got.tile_wg, want->tile_wg ? want->tile_wg : defaults.tile_wg);
    assert_int_equal(got.tile_vpt, want->tile_vpt ? want->tile_vpt : defaults.tile_vpt);
    assert_int_equal(got.rts_groups_per_cu, want->rts_groups_per_cu ? want->rts_groups_per_cu
                                                                    : defaults.rts_groups_per_cu);
    assert_int_equal(got.cpu_tile, want->cpu_tile ? want->cpu_tile : defaults.cpu_tile);
    assert_int_equal(got.single_pass_shape, want->single_pass_shape ? want->single_pass_shape
                                                                    : defaults.single_pass_shape);
    if (!verified(plan))
      fail_msg("tuning case %zu scanned wrongly", i);
    clscan_plan_release(plan);
  }

  // The reduce-then-scan and Blelloch plans run with overrides too.
  clscan_scan_desc rts = sum_desc();
  rts.algorithm = CLSCAN_ALGO_REDUCE_THEN_SCAN;
  const clscan_tuning small = {.tile_wg = 16, .tile_vpt = 2, .rts_groups_per_cu = 3, .seed_wg = 32};
  clscan_plan *plan = NULL;
  clscan_status st = clscan_plan_create_tuned(ctx, &rts, &small, &plan);
  if (st == CLSCAN_INVALID_VALUE) /* NVIDIA needs tile_wg >= 32 */
    return;
  assert_int_equal(st, CLSCAN_SUCCESS);
  assert_true(verified(plan));
  clscan_plan_release(plan);
  rts.algorithm = CLSCAN_ALGO_BLELLOCH;
  assert_int_equal(clscan_plan_create_tuned(ctx, &rts, &small, &plan), CLSCAN_SUCCESS);
  assert_true(verified(plan));
  clscan_plan_release(plan);
}

/* Expects plan creation with a tuning to fail with CLSCAN_INVALID_VALUE naming `field`. */
static void expect_rejected(const clscan_tuning *t, const char *field) {
  clscan_context *ctx = tu_context();
  const clscan_scan_desc desc = sum_desc();
  clscan_plan *plan = (clscan_plan *)&plan; /* must become NULL */
  assert_int_equal(clscan_plan_create_tuned(ctx, &desc, t, &plan), CLSCAN_INVALID_VALUE);
  assert_null(plan);
  if (!strstr(clscan_last_error_detail(), field))
    fail_msg("detail \"%s\" does not name %s", clscan_last_error_detail(), field);
}

static void test_bad_values_rejected(void **state) {
  (void)state;
  const clscan_tuning not_pow2 = {.tile_wg = 48};
  const clscan_tuning too_wide = {.tile_wg = 1u << 30};
  const clscan_tuning seed = {.seed_wg = 3};
  const clscan_tuning vpt = {.tile_vpt = 17};
  const clscan_tuning cpu_tile = {.cpu_tile = (1u << 24) + 1};
  const clscan_tuning shape = {.single_pass_shape = (clscan_shape)7};
  expect_rejected(&not_pow2, "tile_wg");
  expect_rejected(&too_wide, "tile_wg");
  expect_rejected(&seed, "seed_wg");
  expect_rejected(&vpt, "tile_vpt");
  expect_rejected(&cpu_tile, "cpu_tile");
  expect_rejected(&shape, "single_pass_shape");

  // Missing arguments.
  clscan_tuning t;
  const clscan_scan_desc desc = sum_desc();
  assert_int_equal(clscan_plan_get_tuning(NULL, &t), CLSCAN_NULL_ARGUMENT);
  assert_int_equal(clscan_context_default_tuning(NULL, &desc, &t), CLSCAN_NULL_ARGUMENT);
  assert_int_equal(clscan_context_default_tuning(tu_context(), NULL, &t), CLSCAN_NULL_ARGUMENT);
  assert_int_equal(clscan_context_default_tuning(tu_context(), &desc, NULL), CLSCAN_NULL_ARGUMENT);
  const clscan_scan_desc bad = {.type = (clscan_type)99};
  assert_int_equal(clscan_context_default_tuning(tu_context(), &bad, &t), CLSCAN_INVALID_TYPE);
}

static void test_environment_still_read(void **state) {
  (void)state;
  clscan_context *ctx = tu_context();
  const clscan_scan_desc desc = sum_desc();
  clscan_tuning t;
  tu_env_saved shape, wg;
  tu_env_set("CLSCAN_SINGLE_PASS_CPU", "0", &shape);
  tu_env_set("CLSCAN_TILE_WG", "64", &wg);
  clscan_status st = clscan_context_default_tuning(ctx, &desc, &t);
  clscan_plan *plan = NULL;
  const clscan_tuning caller = {.tile_wg = 32, .single_pass_shape = CLSCAN_SHAPE_CPU};
  clscan_status st2 = clscan_plan_create_tuned(ctx, &desc, &caller, &plan);
  tu_env_restore(&wg);
  tu_env_restore(&shape);
  assert_int_equal(st, CLSCAN_SUCCESS);
  assert_int_equal(t.single_pass_shape, CLSCAN_SHAPE_GPU);
  assert_int_equal(t.tile_wg, 64);
  // The caller's values win over the environment's.
  assert_int_equal(st2, CLSCAN_SUCCESS);
  assert_int_equal(clscan_plan_get_tuning(plan, &t), CLSCAN_SUCCESS);
  assert_int_equal(t.single_pass_shape, CLSCAN_SHAPE_CPU);
  assert_int_equal(t.tile_wg, 32);
  assert_true(verified(plan));
  clscan_plan_release(plan);

  // A bad environment value is reported like a bad argument.
  tu_env_set("CLSCAN_TILE_VPT", "99", &wg);
  st = clscan_context_default_tuning(ctx, &desc, &t);
  tu_env_restore(&wg);
  assert_int_equal(st, CLSCAN_INVALID_VALUE);

  // The reduction's and reduce-then-scan's groups per compute unit, and a bad value of them.
  tu_env_set("CLSCAN_RTS_GROUPS", "3", &wg);
  st = clscan_context_default_tuning(ctx, &desc, &t);
  assert_int_equal(st, CLSCAN_SUCCESS);
  assert_int_equal(t.rts_groups_per_cu, 3);
  tu_env_restore(&wg);
  tu_env_set("CLSCAN_RTS_GROUPS", "0", &wg);
  st = clscan_context_default_tuning(ctx, &desc, &t);
  tu_env_restore(&wg);
  assert_int_equal(st, CLSCAN_INVALID_VALUE);
}

static void test_generated_tables(void **state) {
  (void)state;
  static const struct {
    clscan_type type;
    const char *name;
    size_t size;
  } types[] = {
      {CLSCAN_INT32, "int32", 4},   {CLSCAN_UINT32, "uint32", 4}, {CLSCAN_INT64, "int64", 8},
      {CLSCAN_UINT64, "uint64", 8}, {CLSCAN_FLOAT, "float", 4},   {CLSCAN_DOUBLE, "double", 8},
      {CLSCAN_INT8, "int8", 1},     {CLSCAN_UINT8, "uint8", 1},   {CLSCAN_INT16, "int16", 2},
      {CLSCAN_UINT16, "uint16", 2}, {CLSCAN_HALF, "half", 2}};
  assert_int_equal(sizeof types / sizeof types[0], CLSCAN_TYPE_COUNT);
  for (size_t i = 0; i < CLSCAN_TYPE_COUNT; i++) {
    assert_int_equal((int)types[i].type, (int)i); /* the enum values are unchanged */
    assert_string_equal(clscan_type_name(types[i].type), types[i].name);
    assert_int_equal(clscan_type_size(types[i].type), types[i].size);
    assert_int_equal((int)CLSCAN_OUT_TYPE(types[i].type), 0x100 + (int)i);
  }
  assert_int_equal(CLSCAN_OUT_UINT16, 0x109);
  assert_int_equal(CLSCAN_OUT_USER_TYPE, 0x100 + CLSCAN_USER_TYPE);
  assert_string_equal(clscan_type_name(CLSCAN_USER_TYPE), "user");
  assert_null(clscan_type_name((clscan_type)CLSCAN_TYPE_COUNT));
  assert_int_equal(clscan_type_size(CLSCAN_USER_TYPE), 0);
  static const char *const ops[] = {"add", "mul", "min", "max", "and", "or", "xor"};
  for (int i = 0; i < CLSCAN_OP_COUNT; i++)
    assert_string_equal(clscan_op_name((clscan_op)i), ops[i]);
  assert_int_equal(CLSCAN_XOR, 6);
  assert_null(clscan_op_name((clscan_op)CLSCAN_OP_COUNT));
  assert_string_equal(clscan_algorithm_name(CLSCAN_ALGO_AUTO), "auto");
  assert_string_equal(clscan_algorithm_name(CLSCAN_ALGO_REDUCE_THEN_SCAN), "reduce-then-scan");
  assert_string_equal(clscan_algorithm_name(CLSCAN_ALGO_SINGLE_PASS), "single-pass");
  assert_null(clscan_algorithm_name((clscan_algorithm)CLSCAN_ALGORITHM_COUNT));
  // CLSCAN_MPI_ERROR is a status of the list, with its own string.
  assert_int_equal((int)CLSCAN_MPI_ERROR, -1100);
  assert_string_not_equal(clscan_status_string(CLSCAN_MPI_ERROR), "unknown status");
}

/* AUTO's choice, as docs/tuning.md ("What AUTO runs") gives it: the single pass where the device
 * has 64-bit atomics and on every CPU device (without 64-bit atomics with 32-bit status words),
 * reduce-then-scan on a GPU without 64-bit atomics; at every size, and the same when
 * CLSCAN_TEST_STATUS32=1 forces the 32-bit words while the plan is created. */
static void test_auto_choice(void **state) {
  (void)state;
  clscan_context *ctx = tu_context();
  const clscan_algorithm want = tu_device_has_int64_atomics() || tu_device_is_cpu()
                                    ? CLSCAN_ALGO_SINGLE_PASS
                                    : CLSCAN_ALGO_REDUCE_THEN_SCAN;
  static const clscan_type types[] = {CLSCAN_INT32, CLSCAN_INT64, CLSCAN_FLOAT};
  static const size_t sizes[] = {1, (size_t)1 << 16, (size_t)1 << 20, (size_t)1 << 24};
  const char *old = getenv("CLSCAN_TEST_STATUS32");
  char saved[16] = "";
  if (old)
    snprintf(saved, sizeof saved, "%s", old);
  for (int forced = 0; forced < 2; forced++) {
    if (forced)
      setenv("CLSCAN_TEST_STATUS32", "1", 1);
    for (size_t t = 0; t < sizeof types / sizeof types[0]; t++) {
      const clscan_scan_desc desc = {.type = types[t], .op = CLSCAN_ADD, .exclusive = 1};
      clscan_plan *plan = NULL;
      assert_int_equal(clscan_plan_create(ctx, &desc, &plan), CLSCAN_SUCCESS);
      for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        const clscan_algorithm got = clscan_plan_algorithm(plan, sizes[k]);
        if (got != want)
          fail_msg(
              "AUTO runs %s for %s at n = %zu (CLSCAN_TEST_STATUS32 %s); docs/tuning.md says %s",
              clscan_algorithm_name(got), clscan_type_name(types[t]), sizes[k],
              forced ? "1"
              : old  ? saved
                     : "unset",
              clscan_algorithm_name(want));
      }
      if (types[t] == CLSCAN_INT64)
        assert_true(verified(plan));
      clscan_plan_release(plan);
    }
  }
  if (old)
    setenv("CLSCAN_TEST_STATUS32", saved, 1);
  else
    unsetenv("CLSCAN_TEST_STATUS32");
  printf("  AUTO runs %s on %s (%s, %s 64-bit atomics)\n", clscan_algorithm_name(want),
         tu_device_name(), tu_device_is_cpu() ? "a CPU" : "not a CPU",
         tu_device_has_int64_atomics() ? "with" : "without");
}

#ifdef CLSCAN_FAULT_INJECTION
/* The tile fields come from the table in the tests of the rows, not from the environment. */
static void unset_tuning_env(void) {
  const char *vars[] = {"CLSCAN_TILE_WG", "CLSCAN_TILE_VPT", "CLSCAN_RTS_GROUPS",
                        "CLSCAN_SINGLE_PASS_CPU"};
  for (size_t v = 0; v < sizeof vars / sizeof vars[0]; v++)
    unsetenv(vars[v]);
}

/* The test hook's tuning of desc (AUTO: the single pass) on an NVIDIA GPU named device. */
static clscan_status device_tuning(const char *device, const clscan_scan_desc *desc,
                                   const clscan_tuning *overrides, clscan_tuning *t, int *stash,
                                   unsigned *regs, unsigned reduce[3]) {
  clscan_scan_desc d = *desc;
  if (d.algorithm == CLSCAN_ALGO_AUTO)
    d.algorithm = CLSCAN_ALGO_SINGLE_PASS;
  return clscan_test_device_tuning(tu_context(), device, &d, overrides, t, stash, regs, reduce);
}

/* One expectation of the H200's rows: a descriptor (AUTO: the single pass), overrides, the
 * device name, then the tile, the stash and the register cap it must get. */
typedef struct row_case {
  const char *what;
  clscan_scan_desc desc;
  clscan_tuning overrides;
  const char *device;
  unsigned tile_wg, tile_vpt;
  int stash;
  unsigned nv_registers;
} row_case;

static void test_h200_rows(void **state) {
  (void)state;
  const clscan_scan_desc affine = {.type = CLSCAN_USER_TYPE,
                                   .op = CLSCAN_USER_OP,
                                   .op_source = uc_affine_op_source,
                                   .identity = &uc_affine_identity,
                                   .type_source = uc_affine_source,
                                   .type_name = "affine",
                                   .type_size = sizeof(uc_affine)};
  const char *h200 = "NVIDIA H200", *h100 = "NVIDIA H100 80GB HBM3", *a100 = "NVIDIA A100";
  const clscan_algorithm rts = CLSCAN_ALGO_REDUCE_THEN_SCAN;
  const row_case cases[] = {
      {"int32 add", {.type = CLSCAN_INT32}, {0}, h200, 128, 16, 1, 0},
      {"int32 add on an H100", {.type = CLSCAN_INT32}, {0}, h100, 128, 16, 1, 0},
      {"int8 add on an H100", {.type = CLSCAN_INT8}, {0}, h100, 128, 16, 0, 128},
      {"float add", {.type = CLSCAN_FLOAT}, {0}, h200, 128, 12, 1, 0},
      {"double add", {.type = CLSCAN_DOUBLE}, {0}, h200, 128, 16, 1, 0},
      {"int64 add", {.type = CLSCAN_INT64}, {0}, h200, 128, 16, 1, 0},
      {"int32 reduce-then-scan", {.type = CLSCAN_INT32, .algorithm = rts}, {0}, h200, 256, 8, 0, 0},
      {"double reduce-then-scan",
       {.type = CLSCAN_DOUBLE, .algorithm = rts},
       {0},
       h200,
       256,
       12,
       0,
       0},
      {"int8 add", {.type = CLSCAN_INT8}, {0}, h200, 128, 16, 0, 128},
      {"uint8 add", {.type = CLSCAN_UINT8}, {0}, h200, 128, 16, 0, 128},
      {"int8 min", {.type = CLSCAN_INT8, .op = CLSCAN_MIN}, {0}, h200, 128, 16, 0, 0},
      {"int8 add, the row's tile given",
       {.type = CLSCAN_INT8},
       {.tile_wg = 128, .tile_vpt = 16},
       h200,
       128,
       16,
       0,
       128},
      {"int8 add, another tile", {.type = CLSCAN_INT8}, {.tile_vpt = 12}, h200, 128, 12, 0, 0},
      {"int16 add", {.type = CLSCAN_INT16}, {0}, h200, 128, 16, 0, 0},
      {"int16 reduce-then-scan",
       {.type = CLSCAN_INT16, .algorithm = rts},
       {0},
       h200,
       128,
       12,
       0,
       0},
      {"uint8 -> uint32",
       {.type = CLSCAN_UINT8, .out_type = CLSCAN_OUT_UINT32},
       {0},
       h200,
       128,
       10,
       0,
       0},
      {"uint16 -> uint32",
       {.type = CLSCAN_UINT16, .out_type = CLSCAN_OUT_UINT32},
       {0},
       h200,
       256,
       8,
       0,
       0},
      {"int32 head flags",
       {.type = CLSCAN_INT32, .segments = CLSCAN_SEGMENTS_HEAD_FLAGS},
       {0},
       h200,
       128,
       12,
       0,
       0},
      {"int32 offsets",
       {.type = CLSCAN_INT32, .segments = CLSCAN_SEGMENTS_OFFSETS, .key_type = CLSCAN_UINT32},
       {0},
       h200,
       128,
       10,
       1,
       0},
      {"int32 offsets, reduce-then-scan",
       {.type = CLSCAN_INT32,
        .segments = CLSCAN_SEGMENTS_OFFSETS,
        .key_type = CLSCAN_UINT32,
        .algorithm = rts},
       {0},
       h200,
       128,
       12,
       0,
       0},
      /* Batched rows: the library's internal segment kind 4 (src/internal.h). */
      {"int32 rows",
       {.type = CLSCAN_INT32, .segments = (clscan_segments)4},
       {0},
       h200,
       128,
       12,
       1,
       0},
      {"int32 rows, reduce-then-scan",
       {.type = CLSCAN_INT32, .segments = (clscan_segments)4, .algorithm = rts},
       {0},
       h200,
       128,
       12,
       0,
       0},
      {"int64 head flags",
       {.type = CLSCAN_INT64, .segments = CLSCAN_SEGMENTS_HEAD_FLAGS},
       {0},
       h200,
       128,
       8,
       0,
       0},
      {"user type", affine, {0}, h200, 256, 8, 0, 0},
      {"float, a smaller tile",
       {.type = CLSCAN_FLOAT},
       {.tile_wg = 128, .tile_vpt = 8},
       h200,
       128,
       8,
       1,
       0},
      {"float, a tile past local memory",
       {.type = CLSCAN_FLOAT},
       {.tile_wg = 256, .tile_vpt = 16},
       h200,
       256,
       16,
       0,
       0},
      {"float, the CPU shape",
       {.type = CLSCAN_FLOAT},
       {.single_pass_shape = CLSCAN_SHAPE_CPU},
       h200,
       128,
       12,
       0,
       0},
      {"float on another NVIDIA GPU", {.type = CLSCAN_FLOAT}, {0}, a100, 256, 4, 0, 0},
      {"int8 add on another NVIDIA GPU", {.type = CLSCAN_INT8}, {0}, a100, 256, 4, 0, 0},
  };
  unset_tuning_env();
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    const row_case *c = &cases[i];
    clscan_tuning t;
    int stash = -1;
    unsigned regs = 99, reduce[3];
    clscan_status st = device_tuning(c->device, &c->desc, &c->overrides, &t, &stash, &regs, reduce);
    if (st != CLSCAN_SUCCESS)
      fail_msg("%s: %s (%s)", c->what, clscan_status_string(st), clscan_last_error_detail());
    if (t.tile_wg != c->tile_wg || t.tile_vpt != c->tile_vpt || stash != c->stash ||
        regs != c->nv_registers)
      fail_msg("%s on %s: tile %u x %u, stash %d, register cap %u; want %u x %u, %d and %u",
               c->what, c->device, t.tile_wg, t.tile_vpt, stash, regs, c->tile_wg, c->tile_vpt,
               c->stash, c->nv_registers);
  }
}

/* One expectation of the reduction's shape on NVIDIA: a descriptor (AUTO: the single pass),
 * overrides, the device name, then the work-group size, vectors per work-item and groups per
 * compute unit its reductions must get. */
typedef struct reduce_case {
  const char *what;
  clscan_scan_desc desc;
  clscan_tuning overrides;
  const char *device;
  unsigned wg, vpt, groups;
} reduce_case;

/* The H200's int32 row gives its reductions 256 x 8 and 2 groups per compute unit; other rows,
 * a caller's tile or group count, the CPU shape and other GPUs give the tile's. */
static void test_reduce_shapes(void **state) {
  (void)state;
  const char *h200 = "NVIDIA H200", *a100 = "NVIDIA A100";
  const reduce_case cases[] = {
      {"int32 add", {.type = CLSCAN_INT32}, {0}, h200, 256, 8, 2},
      {"uint32 max", {.type = CLSCAN_UINT32, .op = CLSCAN_MAX}, {0}, h200, 256, 8, 2},
      {"int32, the row's tile and groups given",
       {.type = CLSCAN_INT32},
       {.tile_wg = 128, .tile_vpt = 16, .rts_groups_per_cu = 8},
       h200,
       256,
       8,
       2},
      {"int32, another tile", {.type = CLSCAN_INT32}, {.tile_vpt = 8}, h200, 128, 8, 8},
      {"int32, other groups", {.type = CLSCAN_INT32}, {.rts_groups_per_cu = 4}, h200, 128, 16, 4},
      {"int32, the CPU shape",
       {.type = CLSCAN_INT32},
       {.single_pass_shape = CLSCAN_SHAPE_CPU},
       h200,
       128,
       16,
       8},
      {"int32 reduce-then-scan",
       {.type = CLSCAN_INT32, .algorithm = CLSCAN_ALGO_REDUCE_THEN_SCAN},
       {0},
       h200,
       256,
       8,
       4},
      {"float add", {.type = CLSCAN_FLOAT}, {0}, h200, 128, 12, 8},
      {"int64 add", {.type = CLSCAN_INT64}, {0}, h200, 128, 16, 8},
      {"int32 on another NVIDIA GPU", {.type = CLSCAN_INT32}, {0}, a100, 256, 4, 4},
  };
  unset_tuning_env();
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    const reduce_case *c = &cases[i];
    clscan_tuning t;
    int stash;
    unsigned regs, r[3] = {0, 0, 0};
    clscan_status st = device_tuning(c->device, &c->desc, &c->overrides, &t, &stash, &regs, r);
    if (st != CLSCAN_SUCCESS)
      fail_msg("%s: %s (%s)", c->what, clscan_status_string(st), clscan_last_error_detail());
    if (r[0] != c->wg || r[1] != c->vpt || r[2] != c->groups)
      fail_msg("%s on %s: the reduction gets %u x %u, %u groups per unit; want %u x %u, %u",
               c->what, c->device, r[0], r[1], r[2], c->wg, c->vpt, c->groups);
  }
}
#endif

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_defaults_match_plan), cmocka_unit_test(test_overrides_taken),
      cmocka_unit_test(test_bad_values_rejected), cmocka_unit_test(test_environment_still_read),
      cmocka_unit_test(test_generated_tables),    cmocka_unit_test(test_auto_choice),
#ifdef CLSCAN_FAULT_INJECTION
      cmocka_unit_test(test_h200_rows),           cmocka_unit_test(test_reduce_shapes),
#endif
  };
  if (!tu_context())
    return 1;
  int failed = cmocka_run_group_tests_name("tuning", tests, tu_group_setup, tu_group_teardown);
  tu_context_release();
  printf("clscan tests: seed %" PRIu64 "\n", tu_seed());
  return failed ? 1 : 0;
}
