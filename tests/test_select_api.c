/*
 * clscan tests: the groups of test_select that exercise the selection API rather than the kernels:
 * `errors` (every bad-input status of the descriptor, the enqueue and the host variants, with the
 * buffers untouched) and `args` (extra arguments of the predicate, the map and the equality).
 */
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ref_select.h"
#include "select_case.h"

/* ============================================================================================== */
/* Errors                                                                                         */
/* ============================================================================================== */

/* Creates a plan or fails the test. */
static clscan_select_plan *plan_of(const clscan_select_desc *d) {
  clscan_select_plan *p = NULL;
  clscan_status st = clscan_select_plan_create(tu_context(), d, &p);
  if (st != CLSCAN_SUCCESS) {
    static char log[8192];
    clscan_context_build_log(tu_context(), log, sizeof log, NULL);
    fail_msg("plan: %s (%s)\nbuild log:\n%s", clscan_status_string(st), clscan_last_error_detail(),
             log);
  }
  return p;
}

/* Expects a status from plan creation. */
static void expect_desc(const clscan_select_desc *d, clscan_status want) {
  clscan_select_plan *p = (clscan_select_plan *)1;
  clscan_status st = clscan_select_plan_create(tu_context(), d, &p);
  if (st != want)
    fail_msg("plan creation gave %s (%s), expected %s", clscan_status_string(st),
             clscan_last_error_detail(), clscan_status_string(want));
  assert_null(p);
  assert_true(strlen(clscan_last_error_detail()) > 0);
}

void test_errors_desc(void **state) {
  (void)state;
  clscan_context *ctx = tu_context();
  clscan_select_desc d = {0};
  clscan_select_plan *p = NULL;
  assert_int_equal(clscan_select_plan_create(NULL, &d, &p), CLSCAN_NULL_ARGUMENT);
  assert_int_equal(clscan_select_plan_create(ctx, NULL, &p), CLSCAN_NULL_ARGUMENT);
  assert_int_equal(clscan_select_plan_create(ctx, &d, NULL), CLSCAN_NULL_ARGUMENT);
  d.op = CLSCAN_SELECT_OP_COUNT;
  expect_desc(&d, CLSCAN_INVALID_VALUE);
  d.op = (clscan_select_op)-1;
  expect_desc(&d, CLSCAN_INVALID_VALUE);
  d = (clscan_select_desc){.type = (clscan_type)77};
  expect_desc(&d, CLSCAN_INVALID_TYPE);
  d = (clscan_select_desc){.out_type = (clscan_out_type)CLSCAN_INT64};
  expect_desc(&d, CLSCAN_INVALID_TYPE);
  d = (clscan_select_desc){.count_size = 2};
  expect_desc(&d, CLSCAN_INVALID_VALUE);
  d = (clscan_select_desc){.algorithm = (clscan_algorithm)99};
  expect_desc(&d, CLSCAN_INVALID_ALGORITHM);
  d = (clscan_select_desc){.op = CLSCAN_UNIQUE, .predicate_source = "x > 0"};
  expect_desc(&d, CLSCAN_INVALID_VALUE);
  d = (clscan_select_desc){.op = CLSCAN_SELECT, .equal_source = "a == b"};
  expect_desc(&d, CLSCAN_INVALID_VALUE);
  for (int op = 0; op < CLSCAN_SELECT_OP_COUNT; op++) { /* reverse_rejected: partition only */
    if (op == CLSCAN_PARTITION)
      continue;
    d = (clscan_select_desc){.op = (clscan_select_op)op, .reverse_rejected = 1};
    expect_desc(&d, CLSCAN_INVALID_VALUE);
  }
  d = (clscan_select_desc){.op = CLSCAN_UNIQUE,
                           .type = CLSCAN_USER_TYPE,
                           .type_name = "pair",
                           .type_source = sel_pair_source,
                           .type_size = sizeof(pair)};
  expect_desc(&d, CLSCAN_NULL_ARGUMENT);
  d = (clscan_select_desc){.type = CLSCAN_USER_TYPE, .type_size = 8};
  expect_desc(&d, CLSCAN_NULL_ARGUMENT);
  d = (clscan_select_desc){.type = CLSCAN_INT32, .type_name = "x"};
  expect_desc(&d, CLSCAN_INVALID_VALUE);
  d = (clscan_select_desc){.type = CLSCAN_USER_TYPE,
                           .out_type = CLSCAN_OUT_INT32,
                           .type_name = "pair",
                           .type_source = sel_pair_source,
                           .type_size = sizeof(pair),
                           .predicate_source = "1"};
  expect_desc(&d, CLSCAN_INVALID_VALUE); /* a conversion without a map */
  d = (clscan_select_desc){.predicate_source = "x +* 1"};
  expect_desc(&d, CLSCAN_USER_SOURCE_INVALID);
  d = (clscan_select_desc){.op = CLSCAN_UNIQUE,
                           .type = CLSCAN_USER_TYPE,
                           .type_name = "pair",
                           .type_source = sel_pair_source,
                           .type_size = 12,
                           .equal_source = "a.k == b.k"};
  expect_desc(&d, CLSCAN_TYPE_SIZE_MISMATCH);
  clscan_select_plan_release(NULL);
}

/* The timed entry point at n = 0 (one kernel writes the zero count: first and last are one
 * command) and at an even n (every other element flagged): its first event completes and starts
 * no later than the last, and the count is right. The case tests time the odd sizes. */
void test_timed_edges(void **state) {
  (void)state;
  clscan_context *ctx = tu_context();
  const size_t n = 1000;
  cl_mem in = tu_buffer(ctx, CL_MEM_READ_WRITE, n * 4), fl = tu_buffer(ctx, CL_MEM_READ_WRITE, n);
  cl_mem out = tu_buffer(ctx, CL_MEM_READ_WRITE, n * 4), cnt = tu_buffer(ctx, CL_MEM_READ_WRITE, 8);
  int32_t values[1000];
  unsigned char flags[1000];
  for (size_t i = 0; i < n; i++) {
    values[i] = (int32_t)(i * 7 % 100);
    flags[i] = (unsigned char)(i % 2);
  }
  assert_true(tu_write(ctx, NULL, in, 0, sizeof values, values) &&
              tu_write(ctx, NULL, fl, 0, sizeof flags, flags));
  clscan_select_desc d = {.op = CLSCAN_SELECT};
  clscan_select_plan *p = plan_of(&d);
  const clscan_select_buffers b = {
      .in = in, .flags = fl, .out = out, .out_capacity = n, .count = cnt};
  const size_t sizes[] = {0, n};
  for (size_t k = 0; k < 2; k++) {
    unsigned char poison[8];
    memset(poison, TU_POISON, sizeof poison);
    assert_true(tu_write(ctx, NULL, cnt, 0, sizeof poison, poison));
    cl_event first = NULL, last = NULL;
    char msg[256];
    assert_int_equal(clscan_select_enqueue_timed(p, NULL, &b, sizes[k], 0, NULL, &first, &last),
                     CLSCAN_SUCCESS);
    if (!tu_events_ordered(first, last, msg, sizeof msg))
      fail_msg("n = %zu: %s", sizes[k], msg);
    clReleaseEvent(first);
    clReleaseEvent(last);
    uint64_t count = 0; /* count_size 0: uint64 */
    assert_true(tu_read(ctx, NULL, cnt, 0, sizeof count, &count));
    assert_int_equal(count, sizes[k] / 2);
  }
  clscan_select_plan_release(p);
  cl_mem all[] = {in, fl, out, cnt};
  for (size_t i = 0; i < 4; i++)
    clReleaseMemObject(all[i]);
}

/* Fails the test unless `call` returns `want`, naming the call, the status and its detail. */
#define EXPECT(call, want)                                                       \
  do {                                                                           \
    clscan_status st_ = (call);                                                  \
    if (st_ != (want))                                                           \
      fail_msg("%s gave %s (%s), expected %s", #call, clscan_status_string(st_), \
               clscan_last_error_detail(), clscan_status_string(want));          \
  } while (0)

/* The device buffers of the enqueue errors: in, out and a read-only buffer of ERR_N int32, ERR_N
 * flags, ERR_N uint64 lengths, and an 8-byte count, poisoned. */
enum { ERR_N = 1000 };
typedef struct err_buffers {
  cl_mem in, fl, out, cnt, ro, len;
} err_buffers;

static err_buffers err_buffers_make(clscan_context *ctx) {
  err_buffers e = {
      .in = tu_buffer(ctx, CL_MEM_READ_WRITE, ERR_N * 4),
      .fl = tu_buffer(ctx, CL_MEM_READ_WRITE, ERR_N),
      .out = tu_buffer(ctx, CL_MEM_READ_WRITE, ERR_N * 4),
      .cnt = tu_buffer(ctx, CL_MEM_READ_WRITE, 8),
      .ro = tu_buffer(ctx, CL_MEM_READ_ONLY, ERR_N * 4),
      .len = tu_buffer(ctx, CL_MEM_READ_WRITE, ERR_N * 8),
  };
  unsigned char poison[8];
  memset(poison, TU_POISON, 8);
  assert_true(tu_write(ctx, NULL, e.cnt, 0, 8, poison));
  return e;
}

/* Asserts that nothing was written to the count, then releases the buffers. */
static void err_buffers_check_release(clscan_context *ctx, err_buffers *e) {
  unsigned char back[8];
  assert_true(tu_read(ctx, NULL, e->cnt, 0, 8, back));
  assert_true(tu_all_bytes(back, 8, TU_POISON));
  cl_mem all[] = {e->in, e->fl, e->out, e->cnt, e->ro, e->len};
  for (size_t i = 0; i < 6; i++)
    clReleaseMemObject(all[i]);
}

/* A valid select-by-flags request on the error buffers: ERR_N elements into `out`. */
static clscan_select_buffers err_buffers_good(const err_buffers *e) {
  return (clscan_select_buffers){
      .in = e->in, .flags = e->fl, .out = e->out, .out_capacity = ERR_N, .count = e->cnt};
}

/* Every bad argument of an enqueue of a select-by-flags plan, before anything is enqueued. */
void test_errors_enqueue(void **state) {
  (void)state;
  clscan_context *ctx = tu_context();
  const size_t n = ERR_N;
  err_buffers e = err_buffers_make(ctx);
  cl_mem in = e.in, fl = e.fl, out = e.out, ro = e.ro, len = e.len;
  clscan_select_desc d = {.op = CLSCAN_SELECT};
  clscan_select_plan *p = plan_of(&d);
  const clscan_select_buffers good = err_buffers_good(&e);
  clscan_select_buffers b;
  cl_event ev = NULL;
  EXPECT(clscan_select_enqueue(NULL, NULL, &good, n, 0, NULL, NULL), CLSCAN_NULL_ARGUMENT);
  EXPECT(clscan_select_enqueue(p, NULL, NULL, n, 0, NULL, NULL), CLSCAN_NULL_ARGUMENT);
  cl_event first = (cl_event)1, last = (cl_event)1;
  EXPECT(clscan_select_enqueue_timed(p, NULL, NULL, n, 0, NULL, &first, &last),
         CLSCAN_NULL_ARGUMENT);
  assert_null(first);
  assert_null(last);
  first = (cl_event)1;
  EXPECT(clscan_select_enqueue_timed(p, NULL, &good, n + 1, 0, NULL, &first, NULL),
         CLSCAN_BUFFER_TOO_SMALL);
  assert_null(first);
  b = good, b.in = NULL;
  EXPECT(clscan_select_enqueue(p, NULL, &b, n, 0, NULL, NULL), CLSCAN_NULL_ARGUMENT);
  b = good, b.out = NULL;
  EXPECT(clscan_select_enqueue(p, NULL, &b, n, 0, NULL, NULL), CLSCAN_NULL_ARGUMENT);
  b = good, b.count = NULL;
  EXPECT(clscan_select_enqueue(p, NULL, &b, n, 0, NULL, NULL), CLSCAN_NULL_ARGUMENT);
  b = good, b.flags = NULL;
  EXPECT(clscan_select_enqueue(p, NULL, &b, n, 0, NULL, NULL), CLSCAN_NULL_ARGUMENT);
  b = good, b.lengths = len;
  EXPECT(clscan_select_enqueue(p, NULL, &b, n, 0, NULL, NULL), CLSCAN_INVALID_VALUE);
  b = good;
  EXPECT(clscan_select_enqueue(p, NULL, &b, n + 1, 0, NULL, NULL), CLSCAN_BUFFER_TOO_SMALL);
  b = good, b.flags_offset = 1;
  EXPECT(clscan_select_enqueue(p, NULL, &b, n, 0, NULL, NULL), CLSCAN_BUFFER_TOO_SMALL);
  b = good, b.out_capacity = n + 1;
  EXPECT(clscan_select_enqueue(p, NULL, &b, n, 0, NULL, NULL), CLSCAN_BUFFER_TOO_SMALL);
  b = good, b.count_offset = 1;
  EXPECT(clscan_select_enqueue(p, NULL, &b, n, 0, NULL, NULL), CLSCAN_BUFFER_TOO_SMALL);
  b = good, b.in_offset = SIZE_MAX;
  EXPECT(clscan_select_enqueue(p, NULL, &b, n, 0, NULL, NULL), CLSCAN_SIZE_OVERFLOW);
  b = good, b.out = in;
  EXPECT(clscan_select_enqueue(p, NULL, &b, n, 0, NULL, NULL), CLSCAN_OVERLAP);
  b = good, b.count = out;
  EXPECT(clscan_select_enqueue(p, NULL, &b, n, 0, NULL, NULL), CLSCAN_OVERLAP);
  b = good, b.out = fl, b.out_capacity = n / 4;
  EXPECT(clscan_select_enqueue(p, NULL, &b, n, 0, NULL, NULL), CLSCAN_OVERLAP);
  b = good, b.out = ro;
  EXPECT(clscan_select_enqueue(p, NULL, &b, n, 0, NULL, NULL), CLSCAN_INVALID_BUFFER);
  EXPECT(clscan_select_enqueue(p, NULL, &good, n, 1, NULL, NULL), CLSCAN_INVALID_WAIT_LIST);
  EXPECT(clscan_select_enqueue(p, NULL, &good, n, 0, &ev, NULL), CLSCAN_INVALID_WAIT_LIST);
  cl_event null_ev = NULL;
  EXPECT(clscan_select_enqueue(p, NULL, &good, n, 1, &null_ev, NULL), CLSCAN_INVALID_WAIT_LIST);
  // A queue of another cl_context on the same device.
  cl_device_id dev = clscan_context_device(ctx);
  cl_int err;
  cl_context other = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
  assert_int_equal(err, CL_SUCCESS);
  cl_command_queue oq = clCreateCommandQueue(other, dev, 0, &err);
  assert_int_equal(err, CL_SUCCESS);
  EXPECT(clscan_select_enqueue(p, oq, &good, n, 0, NULL, NULL), CLSCAN_INVALID_QUEUE);
  cl_mem foreign = clCreateBuffer(other, CL_MEM_READ_WRITE, n * 4, NULL, &err);
  assert_int_equal(err, CL_SUCCESS);
  b = good, b.out = foreign;
  EXPECT(clscan_select_enqueue(p, NULL, &b, n, 0, NULL, NULL), CLSCAN_INVALID_BUFFER);
  clReleaseMemObject(foreign);
  clReleaseCommandQueue(oq);
  clReleaseContext(other);
  clscan_select_plan_release(p);
  err_buffers_check_release(ctx, &e);
}

/* What each operation refuses: flags for a predicate plan, flags and missing lengths for runs,
 * a partition's capacity, the rejected buffer of a partition into two buffers, and one given to
 * a partition whose rejected part goes reversed into `out`. */
void test_errors_operations(void **state) {
  (void)state;
  clscan_context *ctx = tu_context();
  const size_t n = ERR_N;
  err_buffers e = err_buffers_make(ctx);
  cl_mem in = e.in, fl = e.fl, out = e.out, cnt = e.cnt, ro = e.ro, len = e.len;
  const clscan_select_buffers good = err_buffers_good(&e);
  clscan_select_buffers b;
  unsigned char poison[8];
  memset(poison, TU_POISON, 8);
  clscan_select_desc d = {.op = CLSCAN_SELECT, .predicate_source = "x > 3"};
  clscan_select_plan *p = plan_of(&d);
  EXPECT(clscan_select_enqueue(p, NULL, &good, n, 0, NULL, NULL), CLSCAN_INVALID_VALUE);
  clscan_select_plan_release(p);
  d = (clscan_select_desc){.op = CLSCAN_RUN_LENGTH_ENCODE};
  p = plan_of(&d);
  b = good, b.flags = NULL;
  EXPECT(clscan_select_enqueue(p, NULL, &b, n, 0, NULL, NULL), CLSCAN_NULL_ARGUMENT);
  b.lengths = len;
  b.flags = fl;
  EXPECT(clscan_select_enqueue(p, NULL, &b, n, 0, NULL, NULL), CLSCAN_INVALID_VALUE);
  b.flags = NULL;
  b.out = len;
  EXPECT(clscan_select_enqueue(p, NULL, &b, n, 0, NULL, NULL), CLSCAN_OVERLAP);
  clscan_select_plan_release(p);
  d = (clscan_select_desc){.op = CLSCAN_PARTITION};
  p = plan_of(&d);
  b = good, b.out_capacity = n - 1;
  EXPECT(clscan_select_enqueue(p, NULL, &b, n, 0, NULL, NULL), CLSCAN_BUFFER_TOO_SMALL);
  // Into two buffers: any capacities, but within the buffers, outputs apart, writable.
  b = good, b.out_capacity = n / 4, b.rejected = len, b.rejected_capacity = n / 4;
  assert_int_equal(clscan_select_enqueue(p, NULL, &b, n, 0, NULL, NULL), CLSCAN_SUCCESS);
  assert_int_equal(clFinish(clscan_context_queue(ctx)), CL_SUCCESS);
  assert_true(tu_write(ctx, NULL, cnt, 0, 8, poison));
  b.rejected_capacity = 2 * n + 1; /* len holds 2n int32 */
  EXPECT(clscan_select_enqueue(p, NULL, &b, n, 0, NULL, NULL), CLSCAN_BUFFER_TOO_SMALL);
  b.rejected_capacity = SIZE_MAX;
  EXPECT(clscan_select_enqueue(p, NULL, &b, n, 0, NULL, NULL), CLSCAN_SIZE_OVERFLOW);
  b.rejected_capacity = n / 4, b.rejected = out;
  EXPECT(clscan_select_enqueue(p, NULL, &b, n, 0, NULL, NULL), CLSCAN_OVERLAP);
  b.rejected = in;
  EXPECT(clscan_select_enqueue(p, NULL, &b, n, 0, NULL, NULL), CLSCAN_OVERLAP);
  b.rejected = cnt, b.rejected_capacity = 1;
  EXPECT(clscan_select_enqueue(p, NULL, &b, n, 0, NULL, NULL), CLSCAN_OVERLAP);
  b.rejected = ro, b.rejected_capacity = n / 4;
  EXPECT(clscan_select_enqueue(p, NULL, &b, n, 0, NULL, NULL), CLSCAN_INVALID_BUFFER);
  clscan_select_plan_release(p);
  d = (clscan_select_desc){.op = CLSCAN_SELECT};
  p = plan_of(&d);
  b = good, b.rejected = len, b.rejected_capacity = n / 4;
  EXPECT(clscan_select_enqueue(p, NULL, &b, n, 0, NULL, NULL), CLSCAN_INVALID_VALUE);
  clscan_select_plan_release(p);
  // The rejected part reversed: all n in `out`, and no rejected buffer.
  d = (clscan_select_desc){.op = CLSCAN_PARTITION, .reverse_rejected = 1};
  p = plan_of(&d);
  b = good, b.out_capacity = n - 1;
  EXPECT(clscan_select_enqueue(p, NULL, &b, n, 0, NULL, NULL), CLSCAN_BUFFER_TOO_SMALL);
  b = good, b.rejected = len, b.rejected_capacity = n;
  EXPECT(clscan_select_enqueue(p, NULL, &b, n, 0, NULL, NULL), CLSCAN_INVALID_VALUE);
  clscan_select_plan_release(p);
  err_buffers_check_release(ctx, &e);
}

/* The host variants' own checks, with the caller's arrays untouched. */
void test_errors_host(void **state) {
  (void)state;
  clscan_context *ctx = tu_context();
  clscan_select_desc d;
  int32_t hin[4] = {1, 2, 3, 4}, hout[4];
  unsigned char hfl[4] = {1, 0, 1, 0};
  uint64_t count = 0;
  d = (clscan_select_desc){.op = CLSCAN_SELECT};
  EXPECT(clscan_select_host(NULL, &d, hin, hfl, 4, hout, NULL, 4, &count), CLSCAN_NULL_ARGUMENT);
  EXPECT(clscan_select_host(ctx, &d, hin, hfl, 4, hout, NULL, 4, NULL), CLSCAN_NULL_ARGUMENT);
  EXPECT(clscan_select_host(ctx, &d, hin, NULL, 4, hout, NULL, 4, &count), CLSCAN_NULL_ARGUMENT);
  EXPECT(clscan_select_host(ctx, &d, hin, hfl, 4, hout, (void *)hout, 4, &count),
         CLSCAN_INVALID_VALUE);
  d.op = CLSCAN_PARTITION;
  EXPECT(clscan_select_host(ctx, &d, hin, hfl, 4, hout, NULL, 3, &count), CLSCAN_BUFFER_TOO_SMALL);
  d.op = CLSCAN_UNIQUE;
  EXPECT(clscan_select_host(ctx, &d, hin, hfl, 4, hout, NULL, 4, &count), CLSCAN_INVALID_VALUE);
  // clscan_partition_copy_host: a partition descriptor, arrays where capacities are given.
  int32_t hrej[4] = {7, 7, 7, 7};
  EXPECT(clscan_partition_copy_host(ctx, &d, hin, NULL, 4, hout, 4, hrej, 4, &count),
         CLSCAN_INVALID_VALUE);
  d.op = CLSCAN_PARTITION;
  EXPECT(clscan_partition_copy_host(NULL, &d, hin, hfl, 4, hout, 4, hrej, 4, &count),
         CLSCAN_NULL_ARGUMENT);
  EXPECT(clscan_partition_copy_host(ctx, &d, hin, hfl, 4, hout, 4, NULL, 4, &count),
         CLSCAN_NULL_ARGUMENT);
  EXPECT(clscan_partition_copy_host(ctx, &d, hin, hfl, 4, NULL, 4, hrej, 4, &count),
         CLSCAN_NULL_ARGUMENT);
  EXPECT(clscan_partition_copy_host(ctx, &d, hin, hfl, 4, hout, 4, hrej, 4, NULL),
         CLSCAN_NULL_ARGUMENT);
  EXPECT(clscan_partition_copy_host(ctx, &d, hin, NULL, 4, hout, 4, hrej, 4, &count),
         CLSCAN_NULL_ARGUMENT);
  d.reverse_rejected = 1; /* reversed: into one array only */
  EXPECT(clscan_partition_copy_host(ctx, &d, hin, hfl, 4, hout, 4, hrej, 4, &count),
         CLSCAN_INVALID_VALUE);
  EXPECT(clscan_select_host(ctx, &d, hin, hfl, 4, hout, NULL, 3, &count), CLSCAN_BUFFER_TOO_SMALL);
  d.reverse_rejected = 0;
  for (int i = 0; i < 4; i++)
    assert_int_equal(hrej[i], 7);
  // Capacities of 1: one of each part, the true count.
  assert_int_equal(clscan_partition_copy_host(ctx, &d, hin, hfl, 4, hout, 1, hrej, 1, &count),
                   CLSCAN_SUCCESS);
  assert_int_equal(count, 2);
  assert_int_equal(hout[0], 1);
  assert_int_equal(hrej[0], 2);
  assert_int_equal(hrej[1], 7);
}

#undef EXPECT

/* Selections through sub-buffers of one buffer: in and out in overlapping sub-buffers are refused
 * whatever their ranges (OpenCL leaves writing through overlapping memory objects undefined), and
 * in sub-buffers that do not overlap they select as in any two buffers. */
void test_errors_sub_buffers(void **state) {
  (void)state;
  clscan_context *ctx = tu_context();
  const size_t align = tu_sub_buffer_align(ctx, 64), m = align / 8 < 64 ? align / 8 : 64;
  cl_mem parent = tu_buffer(ctx, CL_MEM_READ_WRITE, 4 * align);
  cl_mem fl = tu_buffer(ctx, CL_MEM_READ_WRITE, m), cnt = tu_buffer(ctx, CL_MEM_READ_WRITE, 8);
  assert_true(parent && fl && cnt);
  cl_mem s1 = tu_sub_buffer(parent, 0, 2 * align), s2 = tu_sub_buffer(parent, align, 2 * align);
  cl_mem s3 = tu_sub_buffer(parent, 2 * align, 2 * align);
  assert_true(s1 && s2 && s3);
  int32_t in[64], out[64], want[64];
  unsigned char flags[64];
  uint64_t rng = tu_mix(tu_seed(), 0x5b);
  for (size_t i = 0; i < m; i++) {
    in[i] = (int32_t)tu_draw(&rng, 1000) - 500;
    flags[i] = (unsigned char)tu_draw(&rng, 2);
  }
  assert_true(tu_write(ctx, NULL, s1, 0, m * 4, in));
  assert_true(tu_write(ctx, NULL, fl, 0, m, flags));
  clscan_select_desc d = {.op = CLSCAN_SELECT};
  clscan_select_plan *p = plan_of(&d);
  clscan_select_buffers b = {.in = s1, .flags = fl, .out = s2, .out_capacity = m, .count = cnt};
  assert_int_equal(clscan_select_enqueue(p, NULL, &b, m, 0, NULL, NULL), CLSCAN_OVERLAP);
  assert_non_null(strstr(clscan_last_error_detail(), "sub-buffer"));
  b.out = parent, b.out_offset = 3 * align / 4;
  assert_int_equal(clscan_select_enqueue(p, NULL, &b, m, 0, NULL, NULL), CLSCAN_OVERLAP);
  b.out = s3, b.out_offset = 0;
  assert_int_equal(clscan_select_enqueue(p, NULL, &b, m, 0, NULL, NULL), CLSCAN_SUCCESS);
  uint64_t count = 0;
  assert_true(tu_read(ctx, NULL, cnt, 0, 8, &count));
  assert_true(tu_read(ctx, NULL, s3, 0, m * 4, out));
  const uint64_t expected = clscan_ref_select(CLSCAN_SELECT, in, 4, flags, m, want, NULL, m);
  assert_int_equal(count, expected);
  assert_memory_equal(out, want, expected * 4);
  clscan_select_plan_release(p);
  clReleaseMemObject(s3);
  clReleaseMemObject(s2);
  clReleaseMemObject(s1);
  clReleaseMemObject(cnt);
  clReleaseMemObject(fl);
  clReleaseMemObject(parent);
}

/* ============================================================================================== */
/* Extra arguments of the predicate and the map                                                   */
/* ============================================================================================== */

/* The arguments of these cases: a uint8 buffer `keep` (indexed by i), an int32 scalar `limit`,
 * and an int32 lookup table `lut` of 16 entries. */
static const clscan_arg sel_args[] = {
    {.name = "keep", .kind = CLSCAN_ARG_BUFFER, .type = CLSCAN_UINT8},
    {.name = "limit", .kind = CLSCAN_ARG_SCALAR, .type = CLSCAN_INT32},
    {.name = "lut", .kind = CLSCAN_ARG_BUFFER, .type = CLSCAN_INT32},
};
#define LUT 16

/* One run of an argument case: its data on the host and the device. */
typedef struct args_run {
  int equal; /* 1: runs by args_equal() of the unmapped elements (see args_desc) */
  size_t n, keep_off;
  int32_t *in, *mapped, lut[LUT + 3], limit;
  unsigned char *keep, *sel;
  cl_mem din, dkeep, dlut, dout, dlen, dcount;
} args_run;

/* Creates a run's data: inputs in [0, 4 * LUT), with runs of equal values for UNIQUE and RLE. */
static void args_run_make(args_run *r, size_t n, uint64_t seed) {
  clscan_context *ctx = tu_context();
  uint64_t s = seed;
  r->equal = 0;
  r->n = n;
  r->keep_off = tu_random_size(&s, 0, 7);
  r->limit = (int32_t)tu_random_size(&s, 0, 40);
  r->in = malloc((n + 1) * 4);
  r->mapped = malloc((n + 1) * 4);
  r->keep = malloc(n + r->keep_off + 1);
  r->sel = malloc(n + 1);
  assert_true(r->in && r->mapped && r->keep && r->sel);
  for (size_t i = 0; i < LUT + 3; i++)
    r->lut[i] = (int32_t)tu_random_size(&s, 0, 9);
  int32_t v = 0;
  for (size_t i = 0; i < n; i++) {
    if (i == 0 || tu_random_size(&s, 0, 3) == 0)
      v = (int32_t)tu_random_size(&s, 0, 4 * LUT - 1);
    r->in[i] = v;
  }
  for (size_t i = 0; i < n + r->keep_off + 1; i++)
    r->keep[i] = (unsigned char)(tu_random_size(&s, 0, 3) != 0);
  r->din = tu_buffer(ctx, CL_MEM_READ_WRITE, (n + 1) * 4);
  r->dkeep = tu_buffer(ctx, CL_MEM_READ_WRITE, n + r->keep_off + 1);
  r->dlut = tu_buffer(ctx, CL_MEM_READ_WRITE, sizeof r->lut);
  r->dout = tu_buffer(ctx, CL_MEM_READ_WRITE, (n + 1) * 4);
  r->dlen = tu_buffer(ctx, CL_MEM_READ_WRITE, (n + 1) * 8);
  r->dcount = tu_buffer(ctx, CL_MEM_READ_WRITE, 8);
  assert_true(r->din && r->dkeep && r->dlut && r->dout && r->dlen && r->dcount);
  assert_true(tu_write(ctx, NULL, r->din, 0, n * 4, r->in));
  assert_true(tu_write(ctx, NULL, r->dkeep, 0, n + r->keep_off + 1, r->keep));
  assert_true(tu_write(ctx, NULL, r->dlut, 0, sizeof r->lut, r->lut));
}

static void args_run_free(args_run *r) {
  cl_mem all[] = {r->din, r->dkeep, r->dlut, r->dout, r->dlen, r->dcount};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
    clReleaseMemObject(all[i]);
  free(r->in);
  free(r->mapped);
  free(r->keep);
  free(r->sel);
}

/* The equality of the runs of an argument case with `equal`: a and b agree divided by
 * limit + 1 or in the table (inputs are not negative). */
#define ARGS_EQUAL "a / (limit + 1) == b / (limit + 1) || lut[a % 16] == lut[b % 16]"

/* The host's ARGS_EQUAL (lut from the offset the cases give it). */
static int args_equal(const args_run *r, int32_t a, int32_t b) {
  return a / (r->limit + 1) == b / (r->limit + 1) || r->lut[3 + a % LUT] == r->lut[3 + b % LUT];
}

/* The descriptor of an argument case: the map x + lut[x % 16] for every operation, and for
 * SELECT and PARTITION the predicate x >= limit && keep[i] over the mapped x. With `equal`
 * (UNIQUE, RUN_LENGTH_ENCODE), no map, and runs by ARGS_EQUAL, which reads the arguments. */
static clscan_select_desc args_desc(clscan_select_op op, clscan_algorithm algorithm, int equal) {
  const int pred = op == CLSCAN_SELECT || op == CLSCAN_PARTITION;
  return (clscan_select_desc){.op = op,
                              .type = CLSCAN_INT32,
                              .map_source = equal ? NULL : "x + lut[x % 16]",
                              .predicate_source = pred ? "x >= limit && keep[i] != 0" : NULL,
                              .equal_source = equal ? ARGS_EQUAL : NULL,
                              .algorithm = algorithm,
                              .args = sel_args,
                              .arg_count = 3};
}

/* Runs one enqueue of a run on a plan (the lut from offset 3) and checks everything it wrote. */
static void args_check(clscan_select_plan *plan, clscan_select_op op, args_run *r,
                       const char *what) {
  clscan_context *ctx = tu_context();
  const size_t n = r->n;
  for (size_t i = 0; i < n; i++)
    r->mapped[i] = r->equal ? r->in[i] : r->in[i] + r->lut[3 + r->in[i] % LUT];
  if (op == CLSCAN_SELECT || op == CLSCAN_PARTITION) {
    for (size_t i = 0; i < n; i++)
      r->sel[i] = r->mapped[i] >= r->limit && r->keep[r->keep_off + i];
  } else if (r->equal) {
    for (size_t i = 0; i < n; i++)
      r->sel[i] = i == 0 || !args_equal(r, r->mapped[i - 1], r->mapped[i]);
  } else {
    clscan_ref_heads(CLSCAN_INT32, NULL, r->mapped, 4, n, r->sel);
  }
  int32_t *want = malloc((n + 1) * 4), *got = malloc((n + 1) * 4);
  uint64_t *want_len = malloc((n + 1) * 8), *got_len = malloc((n + 1) * 8);
  assert_true(want && got && want_len && got_len);
  const uint64_t count = clscan_ref_select(op, r->mapped, 4, r->sel, n, want, want_len, n);
  memset(got, TU_POISON, (n + 1) * 4);
  memset(got_len, TU_POISON, (n + 1) * 8);
  assert_true(tu_write(ctx, NULL, r->dout, 0, (n + 1) * 4, got));
  assert_true(tu_write(ctx, NULL, r->dlen, 0, (n + 1) * 8, got_len));
  const clscan_arg_value values[3] = {{.buffer = r->dkeep, .offset = r->keep_off},
                                      {.scalar = &r->limit},
                                      {.buffer = r->dlut, .offset = 3, .length = LUT}};
  const int rle = op == CLSCAN_RUN_LENGTH_ENCODE;
  const clscan_select_buffers b = {.in = r->din,
                                   .out = r->dout,
                                   .out_capacity = n,
                                   .lengths = rle ? r->dlen : NULL,
                                   .count = r->dcount,
                                   .values = values,
                                   .value_count = 3};
  cl_event done = NULL;
  clscan_status st = clscan_select_enqueue(plan, NULL, &b, n, 0, NULL, &done);
  if (st != CLSCAN_SUCCESS)
    fail_msg("%s: %s (%s)", what, clscan_status_string(st), clscan_last_error_detail());
  assert_int_equal(clWaitForEvents(1, &done), CL_SUCCESS);
  clReleaseEvent(done);
  uint64_t got_count = 0;
  assert_true(tu_read(ctx, NULL, r->dcount, 0, 8, &got_count));
  assert_true(tu_read(ctx, NULL, r->dout, 0, (n + 1) * 4, got));
  assert_true(tu_read(ctx, NULL, r->dlen, 0, (n + 1) * 8, got_len));
  if (got_count != count)
    fail_msg("%s: count %" PRIu64 ", want %" PRIu64, what, got_count, count);
  const size_t m = op == CLSCAN_PARTITION ? n : (size_t)count;
  for (size_t k = 0; k < m; k++) {
    if (got[k] != want[k])
      fail_msg("%s: element %zu of %zu is %d, want %d", what, k, m, got[k], want[k]);
    if (rle && got_len[k] != want_len[k])
      fail_msg("%s: length %zu is %" PRIu64 ", want %" PRIu64, what, k, got_len[k], want_len[k]);
  }
  if (!tu_all_bytes(got + m, (n + 1 - m) * 4, TU_POISON) ||
      !tu_all_bytes(got_len + (rle ? m : 0), (n + 1 - (rle ? m : 0)) * 8, TU_POISON))
    fail_msg("%s: something past the results was written", what);
  free(want);
  free(got);
  free(want_len);
  free(got_len);
}

/* Every operation, through the single pass in both shapes (with and without withheld tiles) and
 * the three multi-pass paths, at sizes around the tiles; each plan runs twice with new values
 * (another keep buffer and offset, limit and table). Cases 4 and 5 are UNIQUE and
 * RUN_LENGTH_ENCODE by an equality that reads the arguments. */
void test_args(void **state) {
  (void)state;
  typedef struct path {
    const char *name;
    clscan_algorithm algorithm;
    int shape;         /* 1 GPU, 2 CPU (single pass) */
    unsigned withhold; /* CLSCAN_TEST_WITHHOLD */
  } path;
  const path paths[] = {
      {"single-pass gpu", CLSCAN_ALGO_SINGLE_PASS, 1, 0},
      {"single-pass cpu", CLSCAN_ALGO_SINGLE_PASS, 2, 0},
      {"single-pass gpu withheld", CLSCAN_ALGO_SINGLE_PASS, 1, 3},
      {"single-pass cpu withheld", CLSCAN_ALGO_SINGLE_PASS, 2, 3},
      {"blelloch", CLSCAN_ALGO_BLELLOCH, 0, 0},
      {"hillis-steele", CLSCAN_ALGO_HILLIS_STEELE, 0, 0},
      {"reduce-then-scan", CLSCAN_ALGO_REDUCE_THEN_SCAN, 0, 0},
  };
  const size_t sizes[] = {1, 4097, 70001};
  sel_expect_single_pass();
  uint64_t seed = tu_mix(tu_seed(), 1616);
  for (size_t p = 0; p < sizeof paths / sizeof paths[0]; p++) {
    for (size_t c = 0; c < 6; c++) {
      const size_t o = c < 4 ? c : c - 2;
      const int equal = c >= 4;
      const sel_case env = {.shape = paths[p].shape, .withhold = paths[p].withhold};
      tu_env_saved saved[SEL_CASE_ENV];
      sel_case_env(&env, saved);
      const clscan_select_desc d = args_desc(sel_all_ops[o], paths[p].algorithm, equal);
      clscan_select_plan *plan = plan_of(&d);
      sel_case_env_restore(saved);
      for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        size_t n = sizes[s] + (paths[p].shape == 2 && s == 2 ? 40000 : 0);
        for (int round = 0; round < 2; round++) {
          char what[160];
          snprintf(what, sizeof what, "args %s op %d%s n=%zu round %d", paths[p].name,
                   (int)sel_all_ops[o], equal ? " equal" : "", n, round);
          tu_progress(what);
          args_run r;
          args_run_make(&r, n, tu_mix(seed, (p * 6 + c) * 16 + s * 2 + (size_t)round));
          r.equal = equal;
          args_check(plan, sel_all_ops[o], &r, what);
          args_run_free(&r);
        }
      }
      clscan_select_plan_release(plan);
    }
  }
}

/* Every bad input of extra arguments in the descriptor, and the host variant, which has no values
 * to give. */
void test_args_errors(void **state) {
  (void)state;
  clscan_context *ctx = tu_context();
  clscan_select_desc d = args_desc(CLSCAN_SELECT, CLSCAN_ALGO_AUTO, 0);
  clscan_arg bad[3];
  memcpy(bad, sel_args, sizeof bad);
  d.args = bad;
  d.map_source = NULL;
  d.predicate_source = NULL;
  expect_desc(&d, CLSCAN_INVALID_VALUE); /* neither predicate_source nor map_source */
  d = args_desc(CLSCAN_UNIQUE, CLSCAN_ALGO_AUTO, 1);
  d.equal_source = NULL;
  expect_desc(&d, CLSCAN_INVALID_VALUE); /* runs by ==: nothing reads the arguments */
  d = args_desc(CLSCAN_SELECT, CLSCAN_ALGO_AUTO, 0);
  d.args = bad;
  const char *const reserved[] = {"a", "b", "x", "i", "clscan_k"};
  for (size_t k = 0; k < sizeof reserved / sizeof reserved[0]; k++) {
    bad[1].name = reserved[k];
    expect_desc(&d, CLSCAN_INVALID_VALUE);
  }
  bad[1].name = "keep";
  expect_desc(&d, CLSCAN_INVALID_VALUE); /* a duplicate name */
  memcpy(bad, sel_args, sizeof bad);
  bad[0].kind = (clscan_arg_kind)5;
  expect_desc(&d, CLSCAN_INVALID_VALUE);
  memcpy(bad, sel_args, sizeof bad);
  bad[1].type = CLSCAN_USER_TYPE;
  expect_desc(&d, CLSCAN_INVALID_TYPE);
  memcpy(bad, sel_args, sizeof bad);
  d.arg_count = CLSCAN_MAX_ARGS + 1;
  expect_desc(&d, CLSCAN_INVALID_VALUE);
  d.arg_count = 3;
  d.args = NULL;
  expect_desc(&d, CLSCAN_NULL_ARGUMENT);
  d.args = bad;
  d.predicate_source = "x >= limit && nothing[i]";
  expect_desc(&d, CLSCAN_USER_SOURCE_INVALID);
  // A user-type table defined by type_source, read by the predicate: accepted.
  const clscan_arg table = {.name = "tab",
                            .kind = CLSCAN_ARG_BUFFER,
                            .type = CLSCAN_USER_TYPE,
                            .type_name = "pair",
                            .type_size = sizeof(pair)};
  const clscan_select_desc with_table = {.op = CLSCAN_SELECT,
                                         .type = CLSCAN_INT32,
                                         .type_source = sel_pair_source,
                                         .predicate_source = "tab[x & 3].k > 0",
                                         .args = &table,
                                         .arg_count = 1};
  clscan_select_plan_release(plan_of(&with_table));

  // The host variant has no values to give.
  int32_t hin[4] = {1, 2, 3, 4}, hout[4];
  uint64_t hcount = 0;
  d = args_desc(CLSCAN_SELECT, CLSCAN_ALGO_AUTO, 0);
  clscan_status st = clscan_select_host(ctx, &d, hin, NULL, 4, hout, NULL, 4, &hcount);
  assert_int_equal(st, CLSCAN_INVALID_VALUE);
}

/* The values of the extra arguments at enqueue: their count, kinds, sizes and overlaps, with the
 * count untouched. */
void test_args_errors_values(void **state) {
  (void)state;
  clscan_context *ctx = tu_context();
  const size_t n = 1000;
  args_run r;
  args_run_make(&r, n, tu_mix(tu_seed(), 1617));
  unsigned char poison[8];
  memset(poison, TU_POISON, sizeof poison);
  assert_true(tu_write(ctx, NULL, r.dcount, 0, 8, poison));
  const clscan_select_desc d = args_desc(CLSCAN_SELECT, CLSCAN_ALGO_AUTO, 0);
  clscan_select_plan *p = plan_of(&d);
  clscan_arg_value v[3] = {
      {.buffer = r.dkeep}, {.scalar = &r.limit}, {.buffer = r.dlut, .length = LUT}};
  const clscan_select_buffers good = {.in = r.din,
                                      .out = r.dout,
                                      .out_capacity = n,
                                      .count = r.dcount,
                                      .values = v,
                                      .value_count = 3};
  clscan_select_buffers b;
  const clscan_arg_value keep = v[0], limit = v[1], lut = v[2];
#define EXPECT_VALUES(want, ...)                                                        \
  do {                                                                                  \
    b = good;                                                                           \
    v[0] = keep, v[1] = limit, v[2] = lut;                                              \
    __VA_ARGS__;                                                                        \
    clscan_status st_ = clscan_select_enqueue(p, NULL, &b, n, 0, NULL, NULL);           \
    if (st_ != (want))                                                                  \
      fail_msg("%s gave %s (%s), expected %s", #__VA_ARGS__, clscan_status_string(st_), \
               clscan_last_error_detail(), clscan_status_string(want));                 \
  } while (0)
  EXPECT_VALUES(CLSCAN_INVALID_VALUE, b.value_count = 2);
  EXPECT_VALUES(CLSCAN_INVALID_VALUE, b.values = NULL, b.value_count = 0);
  EXPECT_VALUES(CLSCAN_NULL_ARGUMENT, b.values = NULL);
  EXPECT_VALUES(CLSCAN_NULL_ARGUMENT, v[0].buffer = NULL);
  EXPECT_VALUES(CLSCAN_INVALID_VALUE, v[0].scalar = &r.limit);
  EXPECT_VALUES(CLSCAN_NULL_ARGUMENT, v[1].scalar = NULL);
  EXPECT_VALUES(CLSCAN_INVALID_VALUE, v[1].buffer = r.dkeep);
  EXPECT_VALUES(CLSCAN_BUFFER_TOO_SMALL, v[0].offset = 9); /* keep holds n + keep_off + 1 */
  EXPECT_VALUES(CLSCAN_BUFFER_TOO_SMALL, v[2].length = LUT + 4);
  EXPECT_VALUES(CLSCAN_SIZE_OVERFLOW, v[2].offset = SIZE_MAX);
  EXPECT_VALUES(CLSCAN_OVERLAP, v[2].buffer = r.dout);
  EXPECT_VALUES(CLSCAN_OVERLAP, v[0].buffer = r.dcount, v[0].length = 8);
  assert_true(tu_read(ctx, NULL, r.dcount, 0, 8, poison));
  assert_true(tu_all_bytes(poison, 8, TU_POISON));
  // A read-only argument may share the input's bytes (keep over the input here).
  EXPECT_VALUES(CLSCAN_SUCCESS, v[0].buffer = r.din);
  assert_int_equal(clFinish(clscan_context_queue(ctx)), CL_SUCCESS);
  clscan_select_plan_release(p);

#undef EXPECT_VALUES
  args_run_free(&r);
}

/* A read-write argument: written as the predicate says, refused where it overlaps another range
 * or is not writable. */
void test_args_read_write(void **state) {
  (void)state;
  clscan_context *ctx = tu_context();
  const size_t n = 1000;
  args_run r;
  args_run_make(&r, n, tu_mix(tu_seed(), 1617));
  cl_mem ro = tu_buffer(ctx, CL_MEM_READ_ONLY, n + 8);
  const clscan_arg rw[] = {{.name = "side",
                            .kind = CLSCAN_ARG_BUFFER,
                            .type = CLSCAN_UINT8,
                            .access = CLSCAN_ARG_READ_WRITE}};
  const clscan_select_desc drw = {.op = CLSCAN_SELECT,
                                  .type = CLSCAN_INT32,
                                  .predicate_source = "{ side[i] = (uchar)(x & 1); return x & 1; }",
                                  .args = rw,
                                  .arg_count = 1};
  clscan_select_plan *p = plan_of(&drw);
  const clscan_arg_value side = {.buffer = r.dkeep};
  clscan_select_buffers b = {.in = r.din,
                             .out = r.dout,
                             .out_capacity = n,
                             .count = r.dcount,
                             .values = &side,
                             .value_count = 1};
  assert_int_equal(clscan_select_enqueue(p, NULL, &b, n, 0, NULL, NULL), CLSCAN_SUCCESS);
  unsigned char *got = malloc(n);
  assert_non_null(got);
  assert_true(tu_read(ctx, NULL, r.dkeep, 0, n, got));
  for (size_t i = 0; i < n; i++) {
    if (got[i] != (r.in[i] & 1))
      fail_msg("side[%zu] is %u, want %d", i, got[i], r.in[i] & 1);
  }
  free(got);
  const clscan_arg_value side_in = {.buffer = r.din}, side_ro = {.buffer = ro};
  b.values = &side_in;
  assert_int_equal(clscan_select_enqueue(p, NULL, &b, n, 0, NULL, NULL), CLSCAN_OVERLAP);
  b.values = &side_ro;
  assert_int_equal(clscan_select_enqueue(p, NULL, &b, n, 0, NULL, NULL), CLSCAN_INVALID_BUFFER);
  clscan_select_plan_release(p);
  clReleaseMemObject(ro);
  args_run_free(&r);
}
