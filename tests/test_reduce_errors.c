/*
 * clscan tests, reduce: every bad-input status of clscan_plan_enqueue_reduce (and its timed entry
 * point) and of clscan_reduce_host, with a detail, no event and the buffers or the result left
 * untouched, and the inputs beside the bad ones that are accepted (group errors).
 */
#include <stdint.h>
#include <string.h>

#include "reduce_fixture.h"

/* ============================================================================================== */
/* errors                                                                                         */
/* ============================================================================================== */

/* Buffers of the error tests: 64 int32 inputs and 8 int32 outputs, poisoned. */
typedef struct err_fixture {
  clscan_context *ctx;
  clscan_plan *plan;
  cl_mem in, out, small, ro;
} err_fixture;

static void err_setup(err_fixture *f) {
  f->ctx = tu_context();
  clscan_scan_desc d = {.type = CLSCAN_INT32, .op = CLSCAN_ADD};
  assert_int_equal(clscan_plan_create(f->ctx, &d, &f->plan), CLSCAN_SUCCESS);
  unsigned char poison[256];
  memset(poison, TU_POISON, sizeof poison);
  f->in = tu_buffer(f->ctx, CL_MEM_READ_WRITE, 256);
  f->out = tu_buffer(f->ctx, CL_MEM_READ_WRITE, 32);
  f->small = tu_buffer(f->ctx, CL_MEM_READ_WRITE, 2);
  f->ro = tu_buffer(f->ctx, CL_MEM_READ_ONLY, 32);
  assert_true(f->in && f->out && f->small && f->ro);
  assert_true(tu_write(f->ctx, NULL, f->in, 0, 256, poison));
  assert_true(tu_write(f->ctx, NULL, f->out, 0, 32, poison));
}

static void err_teardown(err_fixture *f) {
  clReleaseMemObject(f->in);
  clReleaseMemObject(f->out);
  clReleaseMemObject(f->small);
  clReleaseMemObject(f->ro);
  clscan_plan_release(f->plan);
}

/* Expects a status, a detail, a NULL event, and both buffers untouched. */
static void expect_refused(const err_fixture *f, clscan_status got, clscan_status want,
                           cl_event done, const char *what) {
  if (got != want)
    fail_msg("%s: want %s, got %s (%s)", what, clscan_status_string(want),
             clscan_status_string(got), clscan_last_error_detail());
  assert_null(done);
  assert_true(clscan_last_error_detail()[0] != '\0');
  unsigned char back[256];
  assert_true(tu_read(f->ctx, NULL, f->out, 0, 32, back));
  if (!tu_all_bytes(back, 32, TU_POISON))
    fail_msg("%s: the output buffer was written", what);
  assert_true(tu_read(f->ctx, NULL, f->in, 0, 256, back));
  if (!tu_all_bytes(back, 256, TU_POISON))
    fail_msg("%s: the input buffer was written", what);
}

static void test_enqueue_errors(void **state) {
  (void)state;
  err_fixture f;
  err_setup(&f);
  cl_event done = (cl_event)1, ev = NULL;
  clscan_status st;
#define REFUSE(call, want, what)              \
  do {                                        \
    done = (cl_event)1;                       \
    st = (call);                              \
    expect_refused(&f, st, want, done, what); \
  } while (0)
  REFUSE(clscan_plan_enqueue_reduce(NULL, NULL, f.in, 0, f.out, 0, 64, 0, NULL, &done),
         CLSCAN_NULL_ARGUMENT, "NULL plan");
  REFUSE(clscan_plan_enqueue_reduce(f.plan, NULL, NULL, 0, f.out, 0, 64, 0, NULL, &done),
         CLSCAN_NULL_ARGUMENT, "NULL input");
  REFUSE(clscan_plan_enqueue_reduce(f.plan, NULL, f.in, 0, NULL, 0, 64, 0, NULL, &done),
         CLSCAN_NULL_ARGUMENT, "NULL output");
  REFUSE(clscan_plan_enqueue_reduce(f.plan, NULL, f.in, 1, f.out, 0, 64, 0, NULL, &done),
         CLSCAN_BUFFER_TOO_SMALL, "input range past the buffer");
  REFUSE(clscan_plan_enqueue_reduce(f.plan, NULL, f.in, 0, f.out, 8, 64, 0, NULL, &done),
         CLSCAN_BUFFER_TOO_SMALL, "output element past the buffer");
  REFUSE(clscan_plan_enqueue_reduce(f.plan, NULL, f.in, 0, f.out, 8, 0, 0, NULL, &done),
         CLSCAN_BUFFER_TOO_SMALL, "output element past the buffer, n = 0");
  REFUSE(clscan_plan_enqueue_reduce(f.plan, NULL, f.in, 0, f.small, 0, 1, 0, NULL, &done),
         CLSCAN_BUFFER_TOO_SMALL, "output buffer smaller than one element");
  REFUSE(clscan_plan_enqueue_reduce(f.plan, NULL, f.in, 0, f.ro, 0, 1, 0, NULL, &done),
         CLSCAN_INVALID_BUFFER, "read-only output");
  REFUSE(clscan_plan_enqueue_reduce(f.plan, NULL, f.in, 0, f.in, 10, 32, 0, NULL, &done),
         CLSCAN_OVERLAP, "output inside the input range");
  REFUSE(clscan_plan_enqueue_reduce(f.plan, NULL, f.in, 0, f.in, 0, 32, 0, NULL, &done),
         CLSCAN_OVERLAP, "output at the input's first element");
  REFUSE(clscan_plan_enqueue_reduce(f.plan, NULL, f.in, 0, f.out, 0, 8, 1, NULL, &done),
         CLSCAN_INVALID_WAIT_LIST, "num_wait 1 with no list");
  REFUSE(clscan_plan_enqueue_reduce(f.plan, NULL, f.in, 0, f.out, 0, 8, 0, &ev, &done),
         CLSCAN_INVALID_WAIT_LIST, "a list with num_wait 0");
  REFUSE(clscan_plan_enqueue_reduce(f.plan, NULL, f.in, 0, f.out, 0, 8, 1, &ev, &done),
         CLSCAN_INVALID_WAIT_LIST, "a NULL event in the list");
  REFUSE(clscan_plan_enqueue_reduce(f.plan, NULL, f.in, 0, f.out, 0, SIZE_MAX, 0, NULL, &done),
         CLSCAN_SIZE_OVERFLOW, "offset + n overflows");

  // The timed entry point refuses the same way and leaves no first event.
  cl_event first = (cl_event)1;
  REFUSE(
      clscan_plan_enqueue_reduce_timed(f.plan, NULL, f.in, 0, f.in, 0, 32, 0, NULL, &first, &done),
      CLSCAN_OVERLAP, "timed: output at the input's first element");
  assert_null(first);
  first = (cl_event)1;
  REFUSE(
      clscan_plan_enqueue_reduce_timed(NULL, NULL, f.in, 0, f.out, 0, 64, 0, NULL, &first, &done),
      CLSCAN_NULL_ARGUMENT, "timed: NULL plan");
  assert_null(first);

  // A segmented plan is refused.
  clscan_scan_desc seg = {.type = CLSCAN_INT32, .segments = CLSCAN_SEGMENTS_HEAD_FLAGS};
  clscan_plan *sp = NULL;
  assert_int_equal(clscan_plan_create(f.ctx, &seg, &sp), CLSCAN_SUCCESS);
  REFUSE(clscan_plan_enqueue_reduce(sp, NULL, f.in, 0, f.out, 0, 8, 0, NULL, &done),
         CLSCAN_INVALID_VALUE, "segmented plan");
  clscan_plan_release(sp);

  // Right next to the input (no overlap) and a wait list with an event: accepted, exact.
  int32_t ones[64], sum = 0;
  for (int i = 0; i < 64; i++)
    ones[i] = i - 20;
  for (int i = 0; i < 32; i++)
    sum += ones[i];
  assert_true(tu_write(f.ctx, NULL, f.in, 0, sizeof ones, ones));
  cl_event marker = NULL;
  assert_int_equal(clEnqueueMarkerWithWaitList(clscan_context_queue(f.ctx), 0, NULL, &marker),
                   CL_SUCCESS);
  assert_int_equal(
      clscan_plan_enqueue_reduce(f.plan, NULL, f.in, 0, f.in, 32, 32, 1, &marker, &done),
      CLSCAN_SUCCESS);
  assert_int_equal(clWaitForEvents(1, &done), CL_SUCCESS);
  clReleaseEvent(done);
  clReleaseEvent(marker);
  int32_t got = 0;
  assert_true(tu_read(f.ctx, NULL, f.in, 32 * sizeof got, sizeof got, &got));
  assert_int_equal(got, sum);

  // n = 0 through the timed entry point: one kernel writes the identity, so the first command is
  // the last; both events complete (the case tests time the odd sizes).
  char msg[256];
  first = NULL;
  assert_int_equal(
      clscan_plan_enqueue_reduce_timed(f.plan, NULL, f.in, 0, f.out, 0, 0, 0, NULL, &first, &done),
      CLSCAN_SUCCESS);
  if (!tu_events_ordered(first, done, msg, sizeof msg))
    fail_msg("n = 0, timed: %s", msg);
  clReleaseEvent(first);
  clReleaseEvent(done);
  got = 1;
  assert_true(tu_read(f.ctx, NULL, f.out, 0, sizeof got, &got));
  assert_int_equal(got, 0);
#undef REFUSE
  err_teardown(&f);
}

static void test_host_errors(void **state) {
  (void)state;
  clscan_context *ctx = tu_context();
  clscan_scan_desc d = {.type = CLSCAN_INT32, .op = CLSCAN_ADD};
  int32_t in[16] = {0}, result = 0x5A5A5A5A;
  clscan_status st;
#define REFUSE_HOST(call, want, what)                                        \
  do {                                                                       \
    result = 0x5A5A5A5A;                                                     \
    st = (call);                                                             \
    if (st != (want))                                                        \
      fail_msg("%s: want %s, got %s (%s)", what, clscan_status_string(want), \
               clscan_status_string(st), clscan_last_error_detail());        \
    assert_true(clscan_last_error_detail()[0] != '\0');                      \
    assert_int_equal(result, 0x5A5A5A5A);                                    \
  } while (0)
  REFUSE_HOST(clscan_reduce_host(NULL, &d, in, 16, &result), CLSCAN_NULL_ARGUMENT, "NULL ctx");
  REFUSE_HOST(clscan_reduce_host(ctx, NULL, in, 16, &result), CLSCAN_NULL_ARGUMENT, "NULL desc");
  REFUSE_HOST(clscan_reduce_host(ctx, &d, NULL, 16, &result), CLSCAN_NULL_ARGUMENT, "NULL in");
  REFUSE_HOST(clscan_reduce_host(ctx, &d, in, 16, NULL), CLSCAN_NULL_ARGUMENT, "NULL result");
  clscan_scan_desc seg = d;
  seg.segments = CLSCAN_SEGMENTS_KEYS;
  REFUSE_HOST(clscan_reduce_host(ctx, &seg, in, 16, &result), CLSCAN_INVALID_VALUE, "segmented");
  clscan_scan_desc bad = d;
  bad.type = (clscan_type)99;
  REFUSE_HOST(clscan_reduce_host(ctx, &bad, in, 16, &result), CLSCAN_INVALID_TYPE, "bad type");
  clscan_scan_desc fxor = {.type = CLSCAN_FLOAT, .op = CLSCAN_XOR};
  REFUSE_HOST(clscan_reduce_host(ctx, &fxor, in, 16, &result), CLSCAN_UNSUPPORTED_OP_FOR_TYPE,
              "xor on float");
  REFUSE_HOST(clscan_reduce_host(ctx, &d, in, SIZE_MAX / 2, &result), CLSCAN_SIZE_OVERFLOW,
              "n * element size overflows");
  // The result inside the input is refused, and the input is left as it was.
  in[5] = 77;
  st = clscan_reduce_host(ctx, &d, in, 16, &in[5]);
  assert_int_equal(st, CLSCAN_OVERLAP);
  assert_int_equal(in[5], 77);
  // Just past the input is fine.
  int32_t both[17];
  for (int i = 0; i < 17; i++)
    both[i] = i;
  assert_int_equal(clscan_reduce_host(ctx, &d, both, 16, &both[16]), CLSCAN_SUCCESS);
  assert_int_equal(both[16], 120);
#undef REFUSE_HOST
}

/* ============================================================================================== */
/* The tests of this file                                                                         */
/* ============================================================================================== */

const struct CMUnitTest reduce_errors_tests[] = {
    cmocka_unit_test(test_enqueue_errors),
    cmocka_unit_test(test_host_errors),
};
const size_t reduce_errors_count = sizeof reduce_errors_tests / sizeof reduce_errors_tests[0];
