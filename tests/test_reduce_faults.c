/*
 * clscan tests, reduce: under fault injection, every OpenCL fault point of a plan's creation and
 * reduction (fresh contexts), of a reduction on a warm plan in both shapes and of
 * clscan_reduce_host fails cleanly, with the output untouched, and the next reduction on the
 * context is right (group faults; built only with CLSCAN_FAULT_INJECTION).
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "fault.h"
#include "reduce_fixture.h"

/* ============================================================================================== */
/* faults                                                                                         */
/* ============================================================================================== */

enum { FAULT_N = 50001 };

/* What one armed run did. */
typedef struct fault_run {
  clscan_status status;
  int event_handed_out, out_touched, right;
  unsigned long reached;
} fault_run;

/* Reduces FAULT_N int32 values of `in` on ctx (a new plan of `shape`, created inside the armed
 * window when `plan` is NULL) with the k-th fault point armed (0: none). */
static void fault_device(clscan_context *ctx, clscan_plan *plan, clscan_shape shape, cl_mem in,
                         cl_mem out, int64_t want, unsigned long k, fault_run *r) {
  clscan_scan_desc d = {.type = CLSCAN_INT64, .out_type = CLSCAN_OUT_INT64};
  clscan_tuning t = {.single_pass_shape = shape};
  const int64_t poison = 0x5A5A5A5A5A5A5A5A;
  memset(r, 0, sizeof *r);
  assert_true(tu_write(ctx, NULL, out, 0, sizeof poison, &poison));
  cl_event done = (cl_event)1;
  clscan_plan *own = NULL;
  clscan_test_fault_arm(k);
  r->status = plan ? CLSCAN_SUCCESS : clscan_plan_create_tuned(ctx, &d, &t, &own);
  if (r->status != CLSCAN_SUCCESS)
    done = NULL; /* no enqueue was called */
  else
    r->status =
        clscan_plan_enqueue_reduce(plan ? plan : own, NULL, in, 0, out, 0, FAULT_N, 0, NULL, &done);
  r->reached = clscan_test_fault_count();
  clscan_test_fault_arm(0);
  if (r->status != CLSCAN_SUCCESS && clscan_last_error_detail()[0] == '\0')
    fail_msg("fault point %lu: %s without a detail", k, clscan_status_string(r->status));
  r->event_handed_out = r->status != CLSCAN_SUCCESS && done != NULL;
  if (r->status == CLSCAN_SUCCESS) {
    clWaitForEvents(1, &done);
    clReleaseEvent(done);
  }
  int64_t got = 0;
  assert_true(tu_read(ctx, NULL, out, 0, sizeof got, &got));
  r->out_touched = r->status != CLSCAN_SUCCESS && got != poison;
  r->right = r->status == CLSCAN_SUCCESS && got == want;
  clscan_plan_release(own);
}

/* Checks a run whose fault point failed (or was absorbed, with the right result). */
static void fault_check(const char *what, unsigned long k, const fault_run *r) {
  if (r->status == CLSCAN_SUCCESS) {
    if (!r->right)
      fail_msg("%s: fault point %lu absorbed, but the result is wrong", what, k);
    return;
  }
  if (r->status != CLSCAN_OUT_OF_DEVICE_MEMORY && r->status != CLSCAN_OUT_OF_HOST_MEMORY &&
      r->status != CLSCAN_BUILD_FAILED && r->status != CLSCAN_OPENCL_ERROR)
    fail_msg("%s: fault point %lu: %s is not an OpenCL failure status", what, k,
             clscan_status_string(r->status));
  if (r->event_handed_out)
    fail_msg("%s: fault point %lu: an event was handed out", what, k);
  if (r->out_touched)
    fail_msg("%s: fault point %lu: the output was written", what, k);
}

/* The input of the fault runs and its sum. */
static int64_t fault_input(int64_t *host) {
  int64_t sum = 0;
  for (size_t i = 0; i < FAULT_N; i++) {
    host[i] = (int64_t)((i * 2654435761u) % 2001) - 1000;
    sum += host[i];
  }
  return sum;
}

/* Sweeps every fault point of one setup: fresh contexts (plan creation armed too) or the warm
 * context with a plan of each shape. */
static void fault_sweep(int fresh, clscan_shape shape) {
  static int64_t host[FAULT_N];
  int64_t want = fault_input(host);
  clscan_context *warm = tu_context(), *ctx = warm;
  unsigned long points = 0, swept = 0;
  for (unsigned long k = 0; k == 0 || k <= points; k++) {
    if (fresh)
      assert_int_equal(clscan_context_create_default(&ctx), CLSCAN_SUCCESS);
    cl_mem in = tu_buffer(ctx, CL_MEM_READ_WRITE, sizeof host);
    cl_mem out = tu_buffer(ctx, CL_MEM_READ_WRITE, 8);
    assert_true(in && out && tu_write(ctx, NULL, in, 0, sizeof host, host));
    clscan_plan *plan = NULL;
    clscan_scan_desc d = {.type = CLSCAN_INT64};
    clscan_tuning t = {.single_pass_shape = shape};
    if (!fresh)
      assert_int_equal(clscan_plan_create_tuned(ctx, &d, &t, &plan), CLSCAN_SUCCESS);
    char what[96];
    snprintf(what, sizeof what, "reduce faults (%s context, shape %d), point %lu",
             fresh ? "fresh" : "warm", (int)shape, k);
    tu_progress(what);
    fault_run r;
    fault_device(ctx, plan, shape, in, out, want, k, &r);
    if (k == 0) {
      assert_true(r.right);
      points = r.reached;
    } else {
      fault_check(what, k, &r);
      swept++;
      fault_device(ctx, plan, shape, in, out, want, 0, &r); /* the context still works */
      if (!r.right)
        fail_msg("%s: the next reduction on the context is wrong", what);
    }
    clscan_plan_release(plan);
    clReleaseMemObject(in);
    clReleaseMemObject(out);
    if (fresh)
      clscan_context_release(ctx);
  }
  printf("  %s context, shape %d: %lu fault points swept\n", fresh ? "fresh" : "warm", (int)shape,
         swept);
  assert_true(swept > 0);
}

static void test_faults_fresh(void **state) {
  (void)state;
  fault_sweep(1, CLSCAN_SHAPE_DEFAULT);
}

static void test_faults_warm(void **state) {
  (void)state;
  fault_sweep(0, CLSCAN_SHAPE_GPU);
  fault_sweep(0, CLSCAN_SHAPE_CPU);
}

/* clscan_reduce_host: each fault point fails cleanly and leaves the result untouched. */
static void test_faults_host(void **state) {
  (void)state;
  static int64_t host[FAULT_N];
  int64_t want = fault_input(host), got = 0;
  clscan_context *ctx = tu_context();
  clscan_scan_desc d = {.type = CLSCAN_INT64};
  clscan_test_fault_arm(0);
  assert_int_equal(clscan_reduce_host(ctx, &d, host, FAULT_N, &got), CLSCAN_SUCCESS);
  assert_true(got == want);
  clscan_test_fault_arm(100000);
  assert_int_equal(clscan_reduce_host(ctx, &d, host, FAULT_N, &got), CLSCAN_SUCCESS);
  unsigned long points = clscan_test_fault_count();
  clscan_test_fault_arm(0);
  for (unsigned long k = 1; k <= points; k++) {
    got = 0x5A5A;
    clscan_test_fault_arm(k);
    clscan_status st = clscan_reduce_host(ctx, &d, host, FAULT_N, &got);
    clscan_test_fault_arm(0);
    if (st == CLSCAN_SUCCESS ? got != want : got != 0x5A5A)
      fail_msg("clscan_reduce_host, fault point %lu: %s, result %s", k, clscan_status_string(st),
               st == CLSCAN_SUCCESS ? "wrong" : "written");
  }
  printf("  clscan_reduce_host: %lu fault points swept\n", points);
  assert_true(points > 0);
}

/* ============================================================================================== */
/* The tests of this file                                                                         */
/* ============================================================================================== */

const struct CMUnitTest reduce_faults_tests[] = {
    cmocka_unit_test(test_faults_fresh),
    cmocka_unit_test(test_faults_warm),
    cmocka_unit_test(test_faults_host),
};
const size_t reduce_faults_count = sizeof reduce_faults_tests / sizeof reduce_faults_tests[0];
