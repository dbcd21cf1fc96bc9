/*
 * clscan tests, errors: foreign queues and buffers, a queue of another device, wait lists, and
 * empty scans (n == 0: a valid event, wait lists honoured).
 */
#include <stdio.h>
#include <string.h>

#include "errors_fixture.h"

/* ============================================================================================== */
/* Foreign queues and buffers, wait lists                                                        */
/* ============================================================================================== */

static void test_foreign_objects(void **state) {
  (void)state;
  clscan_context *ctx = tu_context();
  cl_device_id dev = clscan_context_device(ctx);
  cl_int err;
  cl_context other = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
  assert_int_equal(err, CL_SUCCESS);
  cl_command_queue q = clCreateCommandQueue(other, dev, 0, &err);
  assert_int_equal(err, CL_SUCCESS);
  cl_mem foreign = clCreateBuffer(other, CL_MEM_READ_WRITE, BYTES, NULL, &err);
  assert_int_equal(err, CL_SUCCESS);
  clscan_plan *plan = fixture_plan();
  for (entry via = VIA_SCAN; via < VIA_COUNT; via++) {
    EXPECT_FAIL(CLSCAN_INVALID_QUEUE,
                enqueue_via(via, plan, &g_desc, q, g_in, 0, g_out, 0, N, 0, NULL));
    EXPECT_FAIL(CLSCAN_INVALID_BUFFER,
                enqueue_via(via, plan, &g_desc, NULL, foreign, 0, g_out, 0, N, 0, NULL));
    unsigned char before[BYTES], after[BYTES];
    memset(before, 0x3C, BYTES);
    assert_int_equal(clEnqueueWriteBuffer(q, foreign, CL_TRUE, 0, BYTES, before, 0, NULL, NULL),
                     CL_SUCCESS);
    clscan_status st = enqueue_via(via, plan, &g_desc, NULL, g_in, 0, foreign, 0, N, 0, NULL);
    ef_check_failure("foreign output buffer", __LINE__, st, CLSCAN_INVALID_BUFFER, NULL, NULL, 0);
    assert_int_equal(clEnqueueReadBuffer(q, foreign, CL_TRUE, 0, BYTES, after, 0, NULL, NULL),
                     CL_SUCCESS);
    assert_memory_equal(before, after, BYTES);
  }
  clscan_plan_release(plan);
  clReleaseMemObject(foreign);
  clReleaseCommandQueue(q);
  clReleaseContext(other);
}

/* A queue of another device of the same cl_context (a sub-device), where the device allows. */
static void test_queue_of_other_device(void **state) {
  (void)state;
  clscan_context *ctx = tu_context();
  cl_device_id dev = clscan_context_device(ctx), sub = first_sub_device(dev);
  if (!sub) {
    printf("  the device cannot be partitioned: skipped\n");
    skip();
  }
  cl_device_id both[2] = {dev, sub};
  cl_int err;
  cl_context cl_ctx = clCreateContext(NULL, 2, both, NULL, NULL, &err);
  assert_int_equal(err, CL_SUCCESS);
  clscan_context *c = NULL;
  EXPECT_OK(clscan_context_create(cl_ctx, dev, &c));
  cl_command_queue q = clCreateCommandQueue(cl_ctx, sub, 0, &err);
  assert_int_equal(err, CL_SUCCESS);
  cl_mem buf = clCreateBuffer(cl_ctx, CL_MEM_READ_WRITE, BYTES, NULL, &err);
  assert_int_equal(err, CL_SUCCESS);
  EXPECT_STATUS(CLSCAN_INVALID_QUEUE, clscan_scan(c, q, &g_desc, buf, 0, buf, 0, N, 0, NULL, NULL));
  clReleaseMemObject(buf);
  clReleaseCommandQueue(q);
  clscan_context_release(c);
  clReleaseContext(cl_ctx);
  clReleaseDevice(sub);
}

static void test_wait_list(void **state) {
  (void)state;
  clscan_context *ctx = tu_context();
  cl_int err;
  cl_event ready = clCreateUserEvent(clscan_context_cl_context(ctx), &err);
  assert_int_equal(err, CL_SUCCESS);
  assert_int_equal(clSetUserEventStatus(ready, CL_COMPLETE), CL_SUCCESS);
  cl_event with_null[2] = {ready, NULL};
  clscan_plan *plan = fixture_plan();
  for (entry via = VIA_SCAN; via < VIA_COUNT; via++) {
    EXPECT_FAIL(CLSCAN_INVALID_WAIT_LIST,
                enqueue_via(via, plan, &g_desc, NULL, g_in, 0, g_out, 0, N, 1, NULL));
    EXPECT_FAIL(CLSCAN_INVALID_WAIT_LIST,
                enqueue_via(via, plan, &g_desc, NULL, g_in, 0, g_out, 0, N, 0, &ready));
    EXPECT_FAIL(CLSCAN_INVALID_WAIT_LIST,
                enqueue_via(via, plan, &g_desc, NULL, g_in, 0, g_out, 0, N, 2, with_null));
    EXPECT_FAIL(CLSCAN_INVALID_WAIT_LIST,
                enqueue_via(via, plan, &g_desc, NULL, g_in, 0, g_out, 0, 0, 1, NULL));
    EXPECT_OK(enqueue_via(via, plan, &g_desc, NULL, g_in, 0, g_out, 0, N, 1, &ready));
  }
  clscan_plan_release(plan);
  clReleaseEvent(ready);
}

/* ============================================================================================== */
/* Empty scans                                                                                    */
/* ============================================================================================== */

/* Checks that an event completes and is CL_COMPLETE. */
static void check_complete(cl_event ev) {
  char msg[160];
  if (!tu_event_complete(ev, "zero-length scan", msg, sizeof msg))
    fail_msg("%s", msg);
}

/* Returns an event's execution status. */
static cl_int event_status(cl_event ev) {
  cl_int status = CL_QUEUED;
  clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, NULL);
  return status;
}

static void test_zero_length(void **state) {
  (void)state;
  clscan_context *ctx = tu_context();
  clscan_plan *plan = fixture_plan();
  unsigned char before[BYTES], after[BYTES];
  ef_snapshot(g_out, BYTES, before);
  for (entry via = VIA_SCAN; via < VIA_COUNT; via++) {
    // Without a wait list: a valid event, already or soon complete; NULL done is fine too.
    cl_event done = NULL, first = NULL;
    if (via == VIA_SCAN) {
      EXPECT_OK(clscan_scan(ctx, NULL, &g_desc, g_in, 0, g_out, 0, 0, 0, NULL, &done));
      EXPECT_OK(clscan_scan(ctx, NULL, &g_desc, g_in, 0, g_out, 0, 0, 0, NULL, NULL));
    } else if (via == VIA_PLAN) {
      EXPECT_OK(clscan_plan_enqueue(plan, NULL, g_in, 0, g_out, 0, 0, 0, NULL, &done));
      EXPECT_OK(clscan_plan_enqueue(plan, NULL, g_in, 0, g_out, 0, 0, 0, NULL, NULL));
    } else {
      EXPECT_OK(
          clscan_plan_enqueue_timed(plan, NULL, g_in, 0, g_out, 0, 0, 0, NULL, &first, &done));
      check_complete(first);
      clReleaseEvent(first);
    }
    check_complete(done);
    clReleaseEvent(done);

    // With a wait list: the event completes only after the user event does.
    cl_int err;
    cl_event gate = clCreateUserEvent(clscan_context_cl_context(ctx), &err);
    assert_int_equal(err, CL_SUCCESS);
    done = NULL;
    if (via == VIA_SCAN) {
      EXPECT_OK(clscan_scan(ctx, NULL, &g_desc, g_in, 0, g_out, 0, 0, 1, &gate, &done));
    } else {
      EXPECT_OK(clscan_plan_enqueue(plan, NULL, g_in, 0, g_out, 0, 0, 1, &gate, &done));
    }
    assert_non_null(done);
    clFlush(clscan_context_queue(ctx));
    assert_true(event_status(done) > CL_COMPLETE);
    assert_int_equal(clSetUserEventStatus(gate, CL_COMPLETE), CL_SUCCESS);
    check_complete(done);
    clReleaseEvent(done);
    clReleaseEvent(gate);
  }
  int host_in[1] = {5}, host_out[1] = {9};
  EXPECT_OK(clscan_scan_host(ctx, &g_desc, host_in, host_out, 0));
  assert_int_equal(host_out[0], 9);
  assert_true(tu_read(ctx, NULL, g_out, 0, BYTES, after));
  assert_memory_equal(before, after, BYTES);
  clscan_plan_release(plan);
}

/* ============================================================================================== */
/* The tests of this file                                                                         */
/* ============================================================================================== */

const struct CMUnitTest errors_queues_tests[] = {
    cmocka_unit_test(test_foreign_objects),
    cmocka_unit_test(test_queue_of_other_device),
    cmocka_unit_test(test_wait_list),
    cmocka_unit_test(test_zero_length),
};
const size_t errors_queues_count = sizeof errors_queues_tests / sizeof errors_queues_tests[0];
