/*
 * clscan tests: radix sorts under fault injection (src/fault.h). For k = 1, 2, ... the k-th fault
 * point (an allocation, a kernel creation, an enqueue) fails during a plan creation and a sort on
 * the process's context; each run must return an error status (never hang or crash), leak no OpenCL
 * object (tests/cl_track.h) and leave the library usable: the next sort without faults gives the
 * reference result. The loop ends at the first k the sort passes without reaching, so every fault
 * point of the sort's path is taken once, for both algorithms.
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

#include "cl_track.h"
#include "fault.h"
#include "ref_sort.h"
#include "test_util.h"

#define N 5000

/* Sorts N pairs on a new plan with the k-th fault point armed; returns the status and sets
 * *reached to the fault points passed. Checks the result when the sort succeeded. */
static clscan_status sort_with_fault(const clscan_sort_desc *d, unsigned long k,
                                     unsigned long *reached) {
  clscan_context *ctx = tu_context();
  uint32_t keys[N], vals[N], wk[N], wv[N];
  for (uint32_t i = 0; i < N; i++) {
    keys[i] = (i * 2654435761u) % 1000u;
    vals[i] = i;
  }
  memcpy(wk, keys, sizeof keys);
  memcpy(wv, vals, sizeof vals);
  assert_int_equal(ref_sort(d, wk, wv, N), 0);
  cl_mem kb = tu_buffer(ctx, CL_MEM_READ_WRITE, sizeof keys);
  cl_mem vb = tu_buffer(ctx, CL_MEM_READ_WRITE, sizeof vals);
  assert_true(tu_write(ctx, NULL, kb, 0, sizeof keys, keys));
  assert_true(tu_write(ctx, NULL, vb, 0, sizeof vals, vals));
  clscan_sort_plan *plan = NULL;
  clscan_test_fault_arm(k);
  clscan_status st = clscan_sort_plan_create(ctx, d, &plan);
  cl_event done = NULL;
  if (st == CLSCAN_SUCCESS)
    st = clscan_sort_enqueue(plan, NULL, kb, 0, vb, 0, N, 0, NULL, &done);
  *reached = clscan_test_fault_count();
  clscan_test_fault_arm(0);
  if (st == CLSCAN_SUCCESS) {
    assert_int_equal(clWaitForEvents(1, &done), CL_SUCCESS);
    clReleaseEvent(done);
    assert_true(tu_read(ctx, NULL, kb, 0, sizeof keys, keys));
    assert_true(tu_read(ctx, NULL, vb, 0, sizeof vals, vals));
    assert_memory_equal(keys, wk, sizeof keys);
    assert_memory_equal(vals, wv, sizeof vals);
  } else {
    assert_null(done);
    assert_true(clscan_last_error_detail()[0] != '\0');
  }
  clFinish(clscan_context_queue(ctx));
  clscan_sort_plan_release(plan);
  clReleaseMemObject(kb);
  clReleaseMemObject(vb);
  return st;
}

/* A run of tr_fault_sweep(): a sort with the k-th fault point armed. */
static int sort_run(void *arg, unsigned long k, unsigned long *reached) {
  return sort_with_fault(arg, k, reached);
}

static void run_faults(clscan_sort_algorithm algo) {
  clscan_sort_desc d = {.key_type = CLSCAN_UINT32, .value_size = 4, .algorithm = algo};
  unsigned long reached = 0;
  // Once without faults: builds the program and sizes the temporary slot, like a warm library.
  if (sort_with_fault(&d, 0, &reached) != CLSCAN_SUCCESS)
    skip();
  char msg[320];
  long points = tr_fault_sweep(sort_run, &d, msg, sizeof msg);
  if (points < 0)
    fail_msg("sort %d: %s", (int)algo, msg);
  printf("sort %d: %ld fault points, each failed once\n", (int)algo, points);
  assert_true(points > 0);
}

static void test_faults_lsd(void **state) {
  (void)state;
  run_faults(CLSCAN_SORT_LSD);
}

static void test_faults_onesweep(void **state) {
  (void)state;
  clscan_sort_desc d = {.algorithm = CLSCAN_SORT_ONESWEEP};
  clscan_sort_plan *p = NULL;
  if (clscan_sort_plan_create(tu_context(), &d, &p) != CLSCAN_SUCCESS)
    skip();
  clscan_sort_plan_release(p);
  run_faults(CLSCAN_SORT_ONESWEEP);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_faults_lsd),
      cmocka_unit_test(test_faults_onesweep),
  };
  if (!tu_context())
    return 1;
  int failed = cmocka_run_group_tests_name("sort_faults", tests, tu_group_setup, tu_group_teardown);
  tu_context_release();
  printf("clscan tests: seed %" PRIu64 "\n", tu_seed());
  return failed ? 1 : 0;
}
