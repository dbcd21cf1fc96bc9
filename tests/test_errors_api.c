/*
 * clscan tests, errors: status strings, names and sizes, versions, NULL releases, the build log,
 * clscan_context_create with a foreign device, CLSCAN_DEVICE naming no device, the error detail
 * per thread, and the events a failed call returns (NULL).
 */
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "errors_fixture.h"

/* ============================================================================================== */
/* Statuses, names, versions, releases, build log                                                 */
/* ============================================================================================== */

typedef struct status_entry {
  clscan_status value;
  const char *name, *text;
} status_entry;

#define STATUS_ENTRY_(name, value, text) {CLSCAN_##name, #name, text},
static const status_entry statuses[] = {CLSCAN_STATUS_MAP(STATUS_ENTRY_)};
#undef STATUS_ENTRY_

static void test_status_strings(void **state) {
  (void)state;
  const size_t count = sizeof statuses / sizeof statuses[0];
  assert_int_equal(CLSCAN_SUCCESS, 0);
  for (size_t i = 0; i < count; i++) {
    const char *s = clscan_status_string(statuses[i].value);
    assert_non_null(s);
    assert_true(s[0] != '\0');
    assert_string_equal(s, statuses[i].text);
    if (i > 0)
      assert_true(statuses[i].value < 0);
    for (size_t j = 0; j < i; j++) {
      assert_true(statuses[i].value != statuses[j].value);
      assert_true(strcmp(s, clscan_status_string(statuses[j].value)) != 0);
    }
  }
  const int unknown[] = {1, -1, -30, -1000, -1022, 4096, INT_MIN, INT_MAX};
  for (size_t i = 0; i < sizeof unknown / sizeof unknown[0]; i++)
    assert_string_equal(clscan_status_string((clscan_status)unknown[i]), "unknown status");
}

static void test_names_and_sizes(void **state) {
  (void)state;
  const size_t sizes[CLSCAN_TYPE_COUNT] = {4, 4, 8, 8, 4, 8, 1, 1, 2, 2, 2};
  for (int t = 0; t < CLSCAN_TYPE_COUNT; t++) {
    assert_int_equal(clscan_type_size((clscan_type)t), sizes[t]);
    assert_non_null(clscan_type_name((clscan_type)t));
  }
  for (int op = 0; op < CLSCAN_OP_COUNT; op++)
    assert_non_null(clscan_op_name((clscan_op)op));
  for (int a = 0; a < CLSCAN_ALGORITHM_COUNT; a++)
    assert_non_null(clscan_algorithm_name((clscan_algorithm)a));
  assert_int_equal(clscan_type_size((clscan_type)CLSCAN_TYPE_COUNT), 0);
  assert_int_equal(clscan_type_size((clscan_type)-1), 0);
  assert_null(clscan_type_name((clscan_type)CLSCAN_TYPE_COUNT));
  assert_null(clscan_op_name((clscan_op)CLSCAN_OP_COUNT));
  assert_null(clscan_algorithm_name((clscan_algorithm)CLSCAN_ALGORITHM_COUNT));
  assert_string_equal(clscan_type_name(CLSCAN_INT32), "int32");
  assert_string_equal(clscan_op_name(CLSCAN_XOR), "xor");
  assert_string_equal(clscan_algorithm_name(CLSCAN_ALGO_SINGLE_PASS), "single-pass");
}

static void test_version(void **state) {
  (void)state;
  char expect[64];
  snprintf(expect, sizeof expect, "%d.%d.%d", CLSCAN_VERSION_MAJOR, CLSCAN_VERSION_MINOR,
           CLSCAN_VERSION_PATCH);
  assert_int_equal(clscan_version_number(), CLSCAN_VERSION_NUMBER);
  assert_int_equal(CLSCAN_VERSION_NUMBER, CLSCAN_VERSION_MAJOR * 10000 +
                                              CLSCAN_VERSION_MINOR * 100 + CLSCAN_VERSION_PATCH);
  assert_string_equal(clscan_version_string(), CLSCAN_VERSION_STRING);
  assert_string_equal(clscan_version_string(), expect);
}

static void test_release_null(void **state) {
  (void)state;
  clscan_context_release(NULL);
  clscan_plan_release(NULL);
  assert_int_equal(clscan_plan_algorithm(NULL, 100), CLSCAN_ALGO_AUTO);
}

static void test_build_log(void **state) {
  (void)state;
  clscan_context *ctx = tu_context();
  clscan_plan *plan = fixture_plan(); /* a build (or a cached program) happened */
  size_t needed = 0, again = 0;
  EXPECT_OK(clscan_context_build_log(ctx, NULL, 0, &needed));
  assert_true(needed >= 1);
  EXPECT_OK(clscan_context_build_log(ctx, NULL, 0, NULL));
  char *log = malloc(needed);
  assert_non_null(log);
  memset(log, 'x', needed);
  EXPECT_OK(clscan_context_build_log(ctx, log, needed, &again));
  assert_int_equal(again, needed);
  assert_int_equal(strlen(log), needed - 1);
  char one[1] = {'x'};
  EXPECT_OK(clscan_context_build_log(ctx, one, 1, NULL));
  assert_int_equal(one[0], '\0');
  free(log);
  clscan_plan_release(plan);
}

/* ============================================================================================== */
/* Contexts                                                                                       */
/* ============================================================================================== */

/* Finds a device that is not `dev`: a sub-device of it, or another device of any platform. */
static cl_device_id other_device(cl_device_id dev, int *is_sub) {
  cl_device_id sub = first_sub_device(dev), devices[16];
  *is_sub = sub != NULL;
  if (sub)
    return sub;
  cl_platform_id platforms[8];
  cl_uint np = 0;
  clGetPlatformIDs(8, platforms, &np);
  for (cl_uint p = 0; p < np && p < 8; p++) {
    cl_uint nd = 0;
    if (clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, 16, devices, &nd) != CL_SUCCESS)
      continue;
    for (cl_uint d = 0; d < nd && d < 16; d++) {
      if (devices[d] != dev)
        return devices[d];
    }
  }
  return NULL;
}

static void test_context_create(void **state) {
  (void)state;
  clscan_context *ctx = tu_context(), *c = NULL;
  cl_context cl_ctx = clscan_context_cl_context(ctx);
  cl_device_id dev = clscan_context_device(ctx);

  // The device of the cl_context works, and the accessors give back what went in.
  EXPECT_OK(clscan_context_create(cl_ctx, dev, &c));
  assert_ptr_equal(clscan_context_cl_context(c), cl_ctx);
  assert_ptr_equal(clscan_context_device(c), dev);
  assert_non_null(clscan_context_queue(c));
  clscan_context_release(c);

  // A device outside the cl_context fails.
  int is_sub = 0;
  cl_device_id other = other_device(dev, &is_sub);
  if (!other) {
    printf("  no second device or sub-device: the foreign-device case is skipped\n");
    return;
  }
  c = NOT_SET;
  EXPECT_STATUS(CLSCAN_INVALID_VALUE, clscan_context_create(cl_ctx, other, &c));
  assert_null(c);
  if (is_sub)
    clReleaseDevice(other);
}

static void test_device_env(void **state) {
  (void)state;
  const char *const selectors[] = {"no-such-device-clscan-test", "99:99"};
  for (int i = 0; i < 2; i++) {
    tu_env_saved saved;
    clscan_context *c = NOT_SET;
    tu_env_set("CLSCAN_DEVICE", selectors[i], &saved);
    clscan_status st = clscan_context_create_default(&c);
    char detail[512];
    snprintf(detail, sizeof detail, "%s", clscan_last_error_detail());
    tu_env_restore(&saved);
    if (st == CLSCAN_SUCCESS)
      clscan_context_release(c);
    assert_int_equal(st, CLSCAN_NO_DEVICE);
    assert_null(c);
    assert_true(detail[0] != '\0');
  }
}

/* Every call that returns events sets them to NULL when it fails (here: a NULL context, plan or
 * descriptor), so that no stale event is left for the caller to release. */
static void test_failed_calls_clear_events(void **state) {
  (void)state;
  const cl_event stale = (cl_event)(uintptr_t)0x10;
  const clscan_scan_desc d = {0};
  const clscan_batch batch = {0};
  const clscan_select_buffers sb = {0};
  cl_event first, done;
#define EXPECT_CLEARED(call)                        \
  do {                                              \
    first = stale;                                  \
    done = stale;                                   \
    assert_int_equal((call), CLSCAN_NULL_ARGUMENT); \
    assert_null(done);                              \
  } while (0)
  EXPECT_CLEARED(clscan_scan(NULL, NULL, &d, NULL, 0, NULL, 0, 4, 0, NULL, &done));
  EXPECT_CLEARED(clscan_scan(NULL, NULL, NULL, NULL, 0, NULL, 0, 4, 0, NULL, &done));
  EXPECT_CLEARED(
      clscan_segmented_scan(NULL, NULL, NULL, NULL, 0, NULL, 0, NULL, 0, 4, 0, NULL, &done));
  EXPECT_CLEARED(
      clscan_scan_by_key(NULL, NULL, NULL, NULL, 0, NULL, 0, NULL, 0, 4, 0, NULL, &done));
  EXPECT_CLEARED(clscan_segmented_scan_offsets(NULL, NULL, NULL, NULL, 0, 1, NULL, 0, NULL, 0, 4, 0,
                                               NULL, &done));
  EXPECT_CLEARED(clscan_scan_batched(NULL, NULL, &d, &batch, NULL, 0, NULL, 0, 0, NULL, &done));
  EXPECT_CLEARED(clscan_plan_enqueue(NULL, NULL, NULL, 0, NULL, 0, 4, 0, NULL, &done));
  EXPECT_CLEARED(clscan_plan_enqueue_reduce(NULL, NULL, NULL, 0, NULL, 0, 4, 0, NULL, &done));
  EXPECT_CLEARED(
      clscan_plan_enqueue_reduce_args(NULL, NULL, NULL, 0, NULL, 0, 4, NULL, 0, NULL, &done));
  EXPECT_CLEARED(clscan_select_enqueue(NULL, NULL, &sb, 4, 0, NULL, &done));
  EXPECT_CLEARED(clscan_sort_enqueue(NULL, NULL, NULL, 0, NULL, 0, 4, 0, NULL, &done));
  // The calls that also return their first command's event clear both.
  EXPECT_CLEARED(
      clscan_plan_enqueue_timed(NULL, NULL, NULL, 0, NULL, 0, 4, 0, NULL, &first, &done));
  assert_null(first);
  EXPECT_CLEARED(clscan_plan_enqueue_segmented(NULL, NULL, NULL, 0, NULL, 0, NULL, 0, 4, 0, NULL,
                                               &first, &done));
  assert_null(first);
  EXPECT_CLEARED(clscan_plan_enqueue_offsets(NULL, NULL, NULL, 0, 1, NULL, 0, NULL, 0, 4, 0, NULL,
                                             &first, &done));
  assert_null(first);
  EXPECT_CLEARED(
      clscan_plan_enqueue_args(NULL, NULL, NULL, 0, NULL, 0, 4, NULL, 0, NULL, &first, &done));
  assert_null(first);
  EXPECT_CLEARED(
      clscan_plan_enqueue_reduce_timed(NULL, NULL, NULL, 0, NULL, 0, 4, 0, NULL, &first, &done));
  assert_null(first);
  EXPECT_CLEARED(clscan_select_enqueue_timed(NULL, NULL, &sb, 4, 0, NULL, &first, &done));
  assert_null(first);
#undef EXPECT_CLEARED
}

/* The error detail belongs to the thread that failed. */
static void *fail_in_thread(void *arg) {
  (void)arg;
  clscan_status st = clscan_plan_create(NULL, &g_desc, NULL);
  return (void *)(intptr_t)(st == CLSCAN_NULL_ARGUMENT && clscan_last_error_detail()[0] != '\0');
}

static void test_detail_is_per_thread(void **state) {
  (void)state;
  clscan_scan_desc bad = {.type = (clscan_type)-7};
  char mine[512];
  assert_int_equal(clscan_context_supports(tu_context(), &bad), CLSCAN_INVALID_TYPE);
  snprintf(mine, sizeof mine, "%s", clscan_last_error_detail());
  assert_true(mine[0] != '\0');
  pthread_t thread;
  void *ok = NULL;
  assert_int_equal(pthread_create(&thread, NULL, fail_in_thread, NULL), 0);
  assert_int_equal(pthread_join(thread, &ok), 0);
  assert_true(ok != NULL);
  assert_string_equal(clscan_last_error_detail(), mine);
}

/* ============================================================================================== */
/* The tests of this file                                                                         */
/* ============================================================================================== */

const struct CMUnitTest errors_api_tests[] = {
    cmocka_unit_test(test_status_strings),
    cmocka_unit_test(test_names_and_sizes),
    cmocka_unit_test(test_version),
    cmocka_unit_test(test_release_null),
    cmocka_unit_test(test_build_log),
    cmocka_unit_test(test_context_create),
    cmocka_unit_test(test_device_env),
    cmocka_unit_test(test_detail_is_per_thread),
    cmocka_unit_test(test_failed_calls_clear_events),
};
const size_t errors_api_count = sizeof errors_api_tests / sizeof errors_api_tests[0];
