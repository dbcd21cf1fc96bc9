/*
 * clscan tests: the kernels compile, on their own and through the library.
 *
 * First the cl/ files are built straight from the source tree, in the combinations the library
 * concatenates, with no -D options at all: every parameter must have a working default. Then
 * one type goes through every program kind the library builds (seed, reduce-then-scan, both
 * single-pass shapes, aligned and unaligned I/O), each checked by a small scan, and the build
 * log can be read after each. This is the quick smoke test that runs first.
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

#ifndef CLSCAN_TEST_CL_DIR
#define CLSCAN_TEST_CL_DIR "cl"
#endif

/* The file lists of the library's programs; those from index 5 on need 64-bit atomics. */
static const char *const programs[][5] = {
    {"common", NULL},
    {"common", "seed", NULL},
    {"common", "tile", NULL},
    {"common", "tile", "reduce_then_scan", NULL},
    {"common", "select_common", "select_multi", NULL},
    {"common", "tile", "status", "single_pass", NULL},
    {"common", "status", "single_pass_cpu", NULL},
    {"common", "select_common", "status", "select", NULL},
    {"common", "select_common", "status", "select_cpu", NULL},
};
#define PROGRAM_COUNT (sizeof programs / sizeof programs[0])
#define NEEDS_ATOMICS(i) ((i) >= 5)

/* Reads a file into a NUL-terminated buffer, or returns NULL. */
static char *read_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f)
    return NULL;
  fseek(f, 0, SEEK_END);
  long size = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *text = size >= 0 ? malloc((size_t)size + 1) : NULL;
  if (text && fread(text, 1, (size_t)size, f) != (size_t)size) {
    free(text);
    text = NULL;
  }
  if (text)
    text[size] = '\0';
  fclose(f);
  return text;
}

/* Returns 1 if the device lists an extension. */
static int has_extension(const char *name) {
  char ext[8192] = "";
  clGetDeviceInfo(clscan_context_device(tu_context()), CL_DEVICE_EXTENSIONS, sizeof ext - 1, ext,
                  NULL);
  return strstr(ext, name) != NULL;
}

/* Prints a program's build log (warnings), if it has one. */
static void print_log(cl_program p, cl_device_id dev) {
  static char log[16384];
  log[0] = '\0';
  clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_LOG, sizeof log - 1, log, NULL);
  if (strlen(log) > 1)
    printf("  build log:\n%s\n", log);
}

/* Builds one list of cl/ files with no options; fails with the build log. */
static void build_raw(const char *const *files) {
  clscan_context *ctx = tu_context();
  char *texts[5] = {NULL};
  char names[128] = "";
  cl_uint count = 0;
  for (; count < 5 && files[count]; count++) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s.cl", CLSCAN_TEST_CL_DIR, files[count]);
    texts[count] = read_file(path);
    if (!texts[count])
      fail_msg("cannot read %s", path);
    strncat(names, files[count], sizeof names - strlen(names) - 2);
    strncat(names, " ", sizeof names - strlen(names) - 1);
  }
  cl_int err;
  cl_device_id dev = clscan_context_device(ctx);
  cl_program p = clCreateProgramWithSource(clscan_context_cl_context(ctx), count,
                                           (const char **)texts, NULL, &err);
  assert_int_equal(err, CL_SUCCESS);
  tu_progress(names);
  err = clBuildProgram(p, 1, &dev, "", NULL, NULL);
  if (err != CL_SUCCESS) {
    static char log[16384];
    log[0] = '\0';
    clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_LOG, sizeof log - 1, log, NULL);
    fail_msg("building [%s] without options returned %d:\n%s", names, (int)err, log);
  }
  cl_uint kernels = 0;
  clCreateKernelsInProgram(p, 0, NULL, &kernels);
  printf("  [%s] builds with defaults (%u kernels)\n", names, kernels);
  print_log(p, dev);
  clReleaseProgram(p);
  for (cl_uint i = 0; i < count; i++)
    free(texts[i]);
}

static void test_sources_build_alone(void **state) {
  (void)state;
  char probe[1024];
  snprintf(probe, sizeof probe, "%s/common.cl", CLSCAN_TEST_CL_DIR);
  char *text = read_file(probe);
  if (!text) {
    printf("  %s is not readable (tests run away from the source tree): skipped\n", probe);
    skip();
  }
  free(text);
  int atomics =
      has_extension("cl_khr_int64_base_atomics") && has_extension("cl_khr_int64_extended_atomics");
  for (size_t i = 0; i < PROGRAM_COUNT; i++) {
    if (NEEDS_ATOMICS(i) && !atomics)
      continue;
    build_raw(programs[i]);
  }
}

/* Builds one algorithm's programs through a plan (under a single-pass shape, if given) and
 * checks them with small scans at aligned and unaligned offsets, then reads the build log. */
static void through_plan(clscan_algorithm algo, const char *shape) {
  clscan_context *ctx = tu_context();
  clscan_scan_desc desc = {.type = CLSCAN_INT32, .op = CLSCAN_ADD, .algorithm = algo};
  clscan_plan *plan = NULL;
  tu_env_saved saved;
  if (shape)
    tu_env_set("CLSCAN_SINGLE_PASS_CPU", shape, &saved);
  clscan_status st = clscan_plan_create(ctx, &desc, &plan);
  if (shape)
    tu_env_restore(&saved);
  if (st == CLSCAN_UNSUPPORTED_BY_DEVICE) {
    printf("  %s: unsupported by the device\n", clscan_algorithm_name(algo));
    return;
  }
  if (st != CLSCAN_SUCCESS)
    fail_msg("%s: clscan_plan_create returned %s (%s)", clscan_algorithm_name(algo),
             clscan_status_string(st), clscan_last_error_detail());
  clscan_algorithm resolved = clscan_plan_algorithm(plan, 5000);
  assert_true(resolved != CLSCAN_ALGO_AUTO);
  if (algo != CLSCAN_ALGO_AUTO)
    assert_int_equal(resolved, algo);
  for (int unaligned = 0; unaligned < 2; unaligned++) {
    tu_case c = {.type = CLSCAN_INT32,
                 .op = CLSCAN_ADD,
                 .algorithm = algo,
                 .n = 5000,
                 .in_off = (size_t)unaligned,
                 .out_off = 3 * (size_t)unaligned,
                 .path = TU_PATH_PLAN,
                 .plan = plan,
                 .seed = tu_mix(tu_seed(), algo)};
    char msg[768];
    if (!tu_run_case(ctx, &c, msg, sizeof msg))
      fail_msg("%s", msg);
  }
  size_t needed = 0;
  assert_int_equal(clscan_context_build_log(ctx, NULL, 0, &needed), CLSCAN_SUCCESS);
  char *log = malloc(needed);
  assert_non_null(log);
  assert_int_equal(clscan_context_build_log(ctx, log, needed, NULL), CLSCAN_SUCCESS);
  if (needed > 2)
    printf("  build log of the last build:\n%s\n", log);
  free(log);
  printf("  %s%s%s: built (resolves to %s), build log %zu bytes\n", clscan_algorithm_name(algo),
         shape ? ", CLSCAN_SINGLE_PASS_CPU=" : "", shape ? shape : "",
         clscan_algorithm_name(resolved), needed);
  clscan_plan_release(plan);
}

static void test_programs_through_plans(void **state) {
  (void)state;
  for (int a = 0; a < CLSCAN_ALGORITHM_COUNT; a++)
    through_plan((clscan_algorithm)a, NULL);
  through_plan(CLSCAN_ALGO_SINGLE_PASS, "1");
  through_plan(CLSCAN_ALGO_SINGLE_PASS, "0");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_sources_build_alone),
      cmocka_unit_test(test_programs_through_plans),
  };
  if (!tu_context())
    return 1;
  int failed =
      cmocka_run_group_tests_name("kernels_compile", tests, tu_group_setup, tu_group_teardown);
  tu_context_release();
  printf("clscan tests: seed %" PRIu64 "\n", tu_seed());
  return failed ? 1 : 0;
}
