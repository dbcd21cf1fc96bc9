/*
 * clscan tests: the kernels compile, on their own and through the library.
 *
 * First every program of the registered algorithms is built from the library's embedded cl/
 * files (the test hooks of src/kernels.h: the programs and files come from the library, so a new
 * cl/ file or program is covered without a change here), with no -D options at all: every
 * parameter must have a working default. Each leading part of a program's file list builds too,
 * so that a file needing a later one is caught, and every embedded file must belong to a
 * program. The names cl/common.cl gives the host's types, operators and segment kinds must have
 * the values clscan.h gives them. Then one type goes through every algorithm (both single-pass
 * shapes, aligned and unaligned I/O), each checked by a small scan, and the build log can be read
 * after each. This is the quick smoke test that runs first.
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

#ifdef CLSCAN_FAULT_INJECTION
#include "internal.h"
#include "kernels.h"

/* The most files a program concatenates, and the most distinct file lists built. */
#define MAX_FILES 8
#define MAX_LISTS 64

/* The file lists built so far, as "a b c" strings, so that shared leading parts build once. */
typedef struct built_lists {
  char names[MAX_LISTS][256];
  size_t count;
} built_lists;

/* Finds an embedded file by name; fails the test if there is none. */
static const clscan__kernel_source *find_source(const char *name) {
  for (const clscan__kernel_source *s = clscan_test_kernel_sources(); s->name; s++) {
    if (strcmp(s->name, name) == 0)
      return s;
  }
  fail_msg("a program names cl/%s.cl, which the library does not embed", name);
  return NULL;
}

/* Prints a program's build log (warnings), if it has one. */
static void print_log(cl_program p, cl_device_id dev) {
  static char log[16384];
  log[0] = '\0';
  clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_LOG, sizeof log - 1, log, NULL);
  if (strlen(log) > 1)
    printf("  build log:\n%s\n", log);
}

/* Builds the first `count` embedded files of a list, in order, with no options, unless that
 * list was built before; fails with the build log. */
static void build_raw(const char *const *files, cl_uint count, built_lists *built) {
  const char *texts[MAX_FILES];
  size_t lengths[MAX_FILES];
  char names[256] = "";
  for (cl_uint i = 0; i < count; i++) {
    const clscan__kernel_source *src = find_source(files[i]);
    texts[i] = src->text;
    lengths[i] = src->length;
    snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", i ? " " : "", files[i]);
  }
  for (size_t i = 0; i < built->count; i++) {
    if (strcmp(built->names[i], names) == 0)
      return;
  }
  assert_true(built->count < MAX_LISTS);
  snprintf(built->names[built->count++], sizeof built->names[0], "%s", names);

  clscan_context *ctx = tu_context();
  cl_int err;
  cl_device_id dev = clscan_context_device(ctx);
  cl_program p =
      clCreateProgramWithSource(clscan_context_cl_context(ctx), count, texts, lengths, &err);
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
}

/* Returns 1 if the device runs the algorithm that builds a program. Scan algorithms are asked
 * through clscan_context_supports(); other families are built everywhere. */
static int program_supported(const clscan_test_program_info *info) {
  clscan_scan_desc desc = {
      .type = CLSCAN_INT32, .op = CLSCAN_ADD, .algorithm = (clscan_algorithm)info->id};
  // Other families run everywhere: a program with the status words (cl/status.cl) takes 32-bit
  // words where the device lacks 64-bit atomics (the selections' single pass and Onesweep).
  if (info->family != 0)
    return 1;
  return clscan_context_supports(tu_context(), &desc) == CLSCAN_SUCCESS;
}

/* Returns 1 if some program of the registry concatenates the embedded file `name`. */
static int used_by_a_program(const char *name) {
  clscan_test_program_info info;
  for (size_t i = 0; clscan_test_program(i, &info); i++) {
    for (const char *const *f = info.files; *f; f++) {
      if (strcmp(*f, name) == 0)
        return 1;
    }
  }
  return 0;
}

static void test_sources_build_alone(void **state) {
  (void)state;
  for (const clscan__kernel_source *s = clscan_test_kernel_sources(); s->name; s++) {
    if (!used_by_a_program(s->name))
      fail_msg("cl/%s.cl is embedded, but no registered algorithm's program uses it", s->name);
  }
  static built_lists built;
  built.count = 0;
  clscan_test_program_info info;
  size_t programs = 0;
  for (size_t i = 0; clscan_test_program(i, &info); i++, programs++) {
    if (!program_supported(&info)) {
      printf("  program %s: its algorithm is unsupported by the device, not built\n", info.name);
      continue;
    }
    cl_uint count = 0;
    while (info.files[count]) {
      assert_true(count < MAX_FILES);
      count++;
    }
    for (cl_uint part = 1; part <= count; part++)
      build_raw(info.files, part, &built);
  }
  assert_true(programs > 0);
  printf("  %zu programs, %zu file lists built\n", programs, built.count);
}

/* One name of a header's list and its value; for a built-in type, its size (else -1). */
typedef struct name_fact {
  const char *name;
  int value, size;
} name_fact;

#define TYPE_FACT_(name, value, text, cl_name, size, is_signed, is_float) \
  {"CLSCAN_" #name, value, size},
#define OP_FACT_(name, value, text) {"CLSCAN_" #name, value, -1},
static const name_fact name_facts[] = {
    CLSCAN_TYPE_MAP(TYPE_FACT_) CLSCAN_OP_MAP(OP_FACT_){"CLSCAN_USER_TYPE", CLSCAN_USER_TYPE, -1},
    {"CLSCAN_USER_OP", CLSCAN_USER_OP, -1},
    {"CLSCAN_SEGMENTS_NONE", CLSCAN_SEGMENTS_NONE, -1},
    {"CLSCAN_SEGMENTS_HEAD_FLAGS", CLSCAN_SEGMENTS_HEAD_FLAGS, -1},
    {"CLSCAN_SEGMENTS_KEYS", CLSCAN_SEGMENTS_KEYS, -1},
    {"CLSCAN_SEGMENTS_OFFSETS", CLSCAN_SEGMENTS_OFFSETS, -1},
    {"CLSCAN__SEGMENTS_ROWS", (int)CLSCAN__SEGMENTS_ROWS, -1},
};
#undef TYPE_FACT_
#undef OP_FACT_

/* Appends OpenCL C that builds only where `f` holds in cl/common.cl: the name has the header's
 * value and, for a built-in type, its entries in the size and scalar tables (CLSCAN_SIZE_<value>,
 * CLSCAN_SCALAR_<value>) have the type's size (a double's scalar only where the device has fp64).
 */
static void append_fact(char *buf, size_t cap, const name_fact *f) {
  size_t len = strlen(buf);
  len += (size_t)snprintf(buf + len, cap - len, "#if !defined(%s) || %s != %d\n#error %s\n#endif\n",
                          f->name, f->name, f->value, f->name);
  if (f->size < 0)
    return;
  const int dbl = f->value == CLSCAN_DOUBLE;
  snprintf(buf + len, cap - len,
           "#if CLSCAN_CAT(CLSCAN_SIZE_, %s) != %d\n#error size of %s\n#endif\n"
           "%stypedef char size_%d[sizeof(CLSCAN_CAT(CLSCAN_SCALAR_, %s)) == %d ? 1 : -1];\n%s",
           f->name, f->size, f->name,
           dbl ? "#ifdef cl_khr_fp64\n#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n" : "",
           f->value, f->name, f->size, dbl ? "#endif\n" : "");
}

/* cl/common.cl names the values of clscan.h's enumerations as clscan.h does, so that the kernels
 * compare the host's numbers with names: the program of common.cl and the checks of every name
 * in the headers' lists builds. */
static void test_names_agree(void **state) {
  (void)state;
  static char checks[65536];
  checks[0] = '\0';
  for (size_t i = 0; i < sizeof name_facts / sizeof name_facts[0]; i++)
    append_fact(checks, sizeof checks, &name_facts[i]);
  assert_true(strlen(checks) + 1 < sizeof checks);
  const clscan__kernel_source *common = find_source("common");
  const char *texts[] = {common->text, checks};
  const size_t lengths[] = {common->length, strlen(checks)};
  clscan_context *ctx = tu_context();
  cl_device_id dev = clscan_context_device(ctx);
  cl_int err;
  cl_program p = clCreateProgramWithSource(clscan_context_cl_context(ctx), 2, texts, lengths, &err);
  assert_int_equal(err, CL_SUCCESS);
  err = clBuildProgram(p, 1, &dev, "", NULL, NULL);
  if (err != CL_SUCCESS) {
    static char log[16384];
    log[0] = '\0';
    clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_LOG, sizeof log - 1, log, NULL);
    clReleaseProgram(p);
    fail_msg("cl/common.cl's names disagree with clscan.h (build %d):\n%s", (int)err, log);
  }
  clReleaseProgram(p);
  printf("  cl/common.cl names the %zu values of clscan.h's lists as clscan.h does\n",
         sizeof name_facts / sizeof name_facts[0]);
}
#else
static void test_sources_build_alone(void **state) {
  (void)state;
  printf(
      "  the library is built without its test hooks (-DCLSCAN_FAULT_INJECTION=ON), which\n"
      "  list its programs and embedded files: skipped\n");
  skip();
}
static void test_names_agree(void **state) {
  (void)state;
  printf("  the library is built without its test hooks, which embed cl/common.cl: skipped\n");
  skip();
}
#endif

/* Builds one algorithm's programs through a plan (under a single-pass shape, if given) and
 * checks them with small scans at aligned and unaligned offsets, then reads the build log. */
static void through_plan(clscan_algorithm algo, clscan_shape shape) {
  clscan_context *ctx = tu_context();
  clscan_scan_desc desc = {.type = CLSCAN_INT32, .op = CLSCAN_ADD, .algorithm = algo};
  const clscan_tuning tuning = {.single_pass_shape = shape};
  clscan_plan *plan = NULL;
  clscan_status st = clscan_plan_create_tuned(ctx, &desc, &tuning, &plan);
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
  static const char *const shapes[] = {"", ", GPU shape", ", CPU shape"};
  printf("  %s%s: built (resolves to %s), build log %zu bytes\n", clscan_algorithm_name(algo),
         shapes[shape], clscan_algorithm_name(resolved), needed);
  clscan_plan_release(plan);
}

static void test_programs_through_plans(void **state) {
  (void)state;
  for (int a = 0; a < CLSCAN_ALGORITHM_COUNT; a++)
    through_plan((clscan_algorithm)a, CLSCAN_SHAPE_DEFAULT);
  through_plan(CLSCAN_ALGO_SINGLE_PASS, CLSCAN_SHAPE_CPU);
  through_plan(CLSCAN_ALGO_SINGLE_PASS, CLSCAN_SHAPE_GPU);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_sources_build_alone),
      cmocka_unit_test(test_names_agree),
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
