/*
 * clscan tests: ordering by events.
 *
 * On an out-of-order queue (where the device offers one), a write, two chained scans and a read
 * are ordered only by their events, for every algorithm. A user event in a scan's wait list
 * must hold the scan back: while it is not complete the scan's event stays pending, the output
 * keeps its poison, and input written meanwhile (through another queue) is what gets scanned.
 * An algorithm the device lacks must be refused at once, whatever its wait list holds.
 */
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "ref_scan.h"
#include "test_util.h"

/* Elements per scan: several Blelloch levels and many tiles of every algorithm. */
#define N 300001

static const clscan_algorithm algos[] = {CLSCAN_ALGO_AUTO, CLSCAN_ALGO_BLELLOCH,
                                         CLSCAN_ALGO_HILLIS_STEELE, CLSCAN_ALGO_REDUCE_THEN_SCAN,
                                         CLSCAN_ALGO_SINGLE_PASS};
#define ALGO_COUNT (sizeof algos / sizeof algos[0])

/* Returns an out-of-order queue of the context's device, or NULL if the device has none. */
static cl_command_queue out_of_order_queue(void) {
  clscan_context *ctx = tu_context();
  cl_command_queue_properties props = 0;
  clGetDeviceInfo(clscan_context_device(ctx), CL_DEVICE_QUEUE_PROPERTIES, sizeof props, &props,
                  NULL);
  if (!(props & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE))
    return NULL;
  cl_int err;
  cl_command_queue q =
      clCreateCommandQueue(clscan_context_cl_context(ctx), clscan_context_device(ctx),
                           CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, &err);
  return err == CL_SUCCESS ? q : NULL;
}

/* Returns an event's execution status. */
static cl_int event_status(cl_event ev) {
  cl_int status = CL_QUEUED;
  clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, NULL);
  return status;
}

/* Sleeps for some milliseconds. */
static void sleep_ms(long ms) {
  struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
  nanosleep(&t, NULL);
}

/* Checks a scan status. */
static void check_status(clscan_status st, const char *what) {
  if (st != CLSCAN_SUCCESS)
    fail_msg("%s returned %s (%s)", what, clscan_status_string(st), clscan_last_error_detail());
}

/*
 * Returns 1 if the device runs `desc`. Otherwise (the single pass on a device without 64-bit
 * atomics) checks that clscan_scan refuses it with CLSCAN_UNSUPPORTED_BY_DEVICE at once, though
 * its wait list holds a user event that never completes, leaves no event, and says why; returns 0.
 */
static int supported_or_refused(cl_command_queue q, const clscan_scan_desc *desc) {
  clscan_context *ctx = tu_context();
  if (clscan_context_supports(ctx, desc) == CLSCAN_SUCCESS)
    return 1;
  cl_int err;
  cl_event gate = clCreateUserEvent(clscan_context_cl_context(ctx), &err);
  cl_event done = (cl_event)(uintptr_t)1;
  assert_int_equal(err, CL_SUCCESS);
  cl_mem buf = tu_buffer(ctx, CL_MEM_READ_WRITE, 64);
  assert_non_null(buf);
  assert_int_equal(clscan_scan(ctx, q, desc, buf, 0, buf, 0, 16, 1, &gate, &done),
                   CLSCAN_UNSUPPORTED_BY_DEVICE);
  assert_null(done);
  printf("  %s: not supported by this device (%s): checked that it is refused\n",
         clscan_algorithm_name(desc->algorithm), clscan_last_error_detail());
  assert_int_equal(clSetUserEventStatus(gate, CL_COMPLETE), CL_SUCCESS);
  clReleaseEvent(gate);
  clReleaseMemObject(buf);
  return 0;
}

/* ============================================================================================== */
/* Out-of-order queue: write -> scan -> scan -> read, by events only                              */
/* ============================================================================================== */

/* Runs the chain for one algorithm; the second scan goes through a plan (exclusive, with init). */
static void chain_one(cl_command_queue q, clscan_algorithm algo, uint64_t seed) {
  clscan_context *ctx = tu_context();
  const int32_t init = 17;
  clscan_scan_desc first = {.type = CLSCAN_INT32, .op = CLSCAN_ADD, .algorithm = algo};
  clscan_scan_desc second = {
      .type = CLSCAN_INT32, .op = CLSCAN_ADD, .exclusive = 1, .init = &init, .algorithm = algo};
  if (!supported_or_refused(q, &first))
    return;
  const size_t bytes = N * sizeof(int32_t);
  int32_t *data = malloc(bytes), *mid = malloc(bytes), *want = malloc(bytes), *got = malloc(bytes);
  assert_true(data && mid && want && got);
  clscan_ref_fill(CLSCAN_INT32, CLSCAN_ADD, seed, data, N);
  clscan_ref_scan(&first, data, mid, N);
  clscan_ref_scan(&second, mid, want, N);
  cl_mem in = tu_buffer(ctx, CL_MEM_READ_WRITE, bytes),
         tmp = tu_buffer(ctx, CL_MEM_READ_WRITE, bytes);
  cl_mem out = tu_buffer(ctx, CL_MEM_READ_WRITE, bytes);
  assert_true(in && tmp && out);
  clscan_plan *plan = NULL;
  check_status(clscan_plan_create(ctx, &second, &plan), "clscan_plan_create");

  // Write and poison, then scan twice and read, each waiting only for the event before it.
  const cl_uint poison = 0xA5A5A5A5u;
  cl_event ev[6];
  assert_int_equal(clEnqueueWriteBuffer(q, in, CL_FALSE, 0, bytes, data, 0, NULL, &ev[0]),
                   CL_SUCCESS);
  assert_int_equal(clEnqueueFillBuffer(q, out, &poison, 4, 0, bytes, 0, NULL, &ev[1]), CL_SUCCESS);
  check_status(clscan_scan(ctx, q, &first, in, 0, tmp, 0, N, 1, &ev[0], &ev[2]), "clscan_scan");
  cl_event before_second[2] = {ev[2], ev[1]};
  check_status(clscan_plan_enqueue(plan, q, tmp, 0, out, 0, N, 2, before_second, &ev[3]),
               "clscan_plan_enqueue");
  assert_int_equal(clEnqueueReadBuffer(q, out, CL_FALSE, 0, bytes, got, 1, &ev[3], &ev[4]),
                   CL_SUCCESS);
  assert_int_equal(clEnqueueReadBuffer(q, tmp, CL_FALSE, 0, bytes, mid, 1, &ev[3], &ev[5]),
                   CL_SUCCESS);
  assert_int_equal(clWaitForEvents(2, &ev[4]), CL_SUCCESS);
  clscan_ref_mismatch mm;
  if (!clscan_ref_check(&second, mid, got, N, &mm) || memcmp(got, want, bytes) != 0)
    fail_msg("%s: out-of-order chain: %s (data seed %" PRIu64 ")", clscan_algorithm_name(algo),
             mm.index >= 0 ? mm.detail : "the intermediate scan is wrong", seed);
  for (int i = 0; i < 6; i++)
    clReleaseEvent(ev[i]);
  clscan_plan_release(plan);
  clReleaseMemObject(in);
  clReleaseMemObject(tmp);
  clReleaseMemObject(out);
  free(data);
  free(mid);
  free(want);
  free(got);
}

static void test_out_of_order_chain(void **state) {
  (void)state;
  cl_command_queue q = out_of_order_queue();
  if (!q) {
    printf("  the device has no out-of-order queues: skipped\n");
    skip();
  }
  for (size_t a = 0; a < ALGO_COUNT; a++) {
    char what[96];
    snprintf(what, sizeof what, "out-of-order chain, %s", clscan_algorithm_name(algos[a]));
    tu_progress(what);
    chain_one(q, algos[a], tu_mix(tu_seed(), 0xC4A1 + a));
  }
  clReleaseCommandQueue(q);
}

/* ============================================================================================== */
/* User events hold scans back                                                                    */
/* ============================================================================================== */

/* Scans behind a user event on queue q; meanwhile writes new input through another queue. */
static void gate_one(cl_command_queue q, cl_command_queue side, clscan_algorithm algo, int in_place,
                     uint64_t seed) {
  clscan_context *ctx = tu_context();
  clscan_scan_desc desc = {.type = CLSCAN_INT32, .op = CLSCAN_MAX, .algorithm = algo};
  if (!supported_or_refused(q, &desc))
    return;
  const size_t bytes = N * sizeof(int32_t);
  int32_t *first = malloc(bytes), *second = malloc(bytes), *got = malloc(bytes);
  assert_true(first && second && got);
  clscan_ref_fill(CLSCAN_INT32, CLSCAN_MAX, seed, first, N);
  clscan_ref_fill(CLSCAN_INT32, CLSCAN_MAX, seed + 1, second, N);
  cl_mem in = tu_buffer(ctx, CL_MEM_READ_WRITE, bytes);
  cl_mem out = in_place ? in : tu_buffer(ctx, CL_MEM_READ_WRITE, bytes);
  assert_true(in && out && tu_write(ctx, side, in, 0, bytes, first));
  if (!in_place) {
    memset(got, 0xA5, bytes);
    assert_true(tu_write(ctx, side, out, 0, bytes, got));
  }
  cl_int err;
  cl_event gate = clCreateUserEvent(clscan_context_cl_context(ctx), &err), done = NULL;
  assert_int_equal(err, CL_SUCCESS);

  // The scan is enqueued behind the gate and must not start.
  check_status(clscan_scan(ctx, q, &desc, in, 0, out, 0, N, 1, &gate, &done), "clscan_scan");
  clFlush(q);
  sleep_ms(30);
  assert_true(event_status(done) > CL_COMPLETE);
  if (!in_place) {
    assert_true(tu_read(ctx, side, out, 0, bytes, got));
    assert_true(tu_all_bytes(got, bytes, 0xA5));
  }
  assert_true(tu_write(ctx, side, in, 0, bytes, second));
  assert_true(event_status(done) > CL_COMPLETE);

  // Open the gate: the scan runs on the input written meanwhile.
  assert_int_equal(clSetUserEventStatus(gate, CL_COMPLETE), CL_SUCCESS);
  assert_int_equal(clWaitForEvents(1, &done), CL_SUCCESS);
  assert_int_equal(event_status(done), CL_COMPLETE);
  assert_true(tu_read(ctx, side, out, 0, bytes, got));
  clscan_ref_mismatch mm;
  if (!clscan_ref_check(&desc, second, got, N, &mm))
    fail_msg("%s%s behind a user event: %s (data seed %" PRIu64 ")", clscan_algorithm_name(algo),
             in_place ? " in place" : "", mm.detail, seed);
  clReleaseEvent(done);
  clReleaseEvent(gate);
  if (out != in)
    clReleaseMemObject(out);
  clReleaseMemObject(in);
  free(first);
  free(second);
  free(got);
}

static void test_user_event_gate(void **state) {
  (void)state;
  clscan_context *ctx = tu_context();
  cl_int err;
  cl_command_queue side =
      clCreateCommandQueue(clscan_context_cl_context(ctx), clscan_context_device(ctx), 0, &err);
  assert_int_equal(err, CL_SUCCESS);
  cl_command_queue ooo = out_of_order_queue();
  cl_command_queue queues[2] = {clscan_context_queue(ctx), ooo};
  for (int qi = 0; qi < (ooo ? 2 : 1); qi++) {
    for (size_t a = 0; a < ALGO_COUNT; a++) {
      char what[96];
      snprintf(what, sizeof what, "user event gate, %s, queue %d", clscan_algorithm_name(algos[a]),
               qi);
      tu_progress(what);
      gate_one(queues[qi], side, algos[a], (int)(a % 2), tu_mix(tu_seed(), 0x6A7E + 8 * qi + a));
    }
  }
  if (ooo)
    clReleaseCommandQueue(ooo);
  clReleaseCommandQueue(side);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_out_of_order_chain),
      cmocka_unit_test(test_user_event_gate),
  };
  if (!tu_context())
    return 1;
  int failed = cmocka_run_group_tests_name("events", tests, tu_group_setup, tu_group_teardown);
  tu_context_release();
  printf("clscan tests: seed %" PRIu64 "\n", tu_seed());
  return failed ? 1 : 0;
}
