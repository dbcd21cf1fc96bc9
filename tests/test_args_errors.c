/*
 * clscan tests, args: every bad input's status (descriptors at plan creation, the one-shot, host
 * and plain enqueue calls, the enqueue's run arguments), with the buffers untouched (group
 * errors).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args_fixture.h"

/* ============================================================================================== */
/* errors */
/* ============================================================================================== */

/* Expects a status from a descriptor at plan creation (and from clscan_context_supports). */
static void expect_desc(clscan_status want, const clscan_scan_desc *d, const char *what) {
  clscan_plan *plan = (clscan_plan *)1;
  clscan_status st = clscan_plan_create(tu_context(), d, &plan);
  if (st != want)
    fail_msg("%s: plan creation gave %s (%s), want %s", what, clscan_status_string(st),
             clscan_last_error_detail(), clscan_status_string(want));
  assert_null(plan);
  // Only a build tells a source that does not compile.
  st = clscan_context_supports(tu_context(), d);
  if (want == CLSCAN_USER_SOURCE_INVALID)
    want = CLSCAN_SUCCESS;
  if (st != want)
    fail_msg("%s: clscan_context_supports gave %s, want %s", what, clscan_status_string(st),
             clscan_status_string(want));
}

static void test_desc_errors(void **state) {
  (void)state;
  const clscan_scan_desc good = {
      .type = CLSCAN_INT32, .map_source = "x * w[i] + s", .args = int_args, .arg_count = 2};
  clscan_arg bad[2];
  clscan_scan_desc d;
#define CASE(want, what, ...)          \
  do {                                 \
    d = good;                          \
    memcpy(bad, int_args, sizeof bad); \
    d.args = bad;                      \
    __VA_ARGS__;                       \
    expect_desc(want, &d, what);       \
  } while (0)
  CASE(CLSCAN_NULL_ARGUMENT, "args NULL", d.args = NULL);
  CASE(CLSCAN_INVALID_VALUE, "args with arg_count 0", d.arg_count = 0);
  CASE(CLSCAN_INVALID_VALUE, "arg_count too large", d.arg_count = CLSCAN_MAX_ARGS + 1);
  CASE(CLSCAN_INVALID_VALUE, "no map_source", d.map_source = NULL);
  static const int32_t zero = 0;
  CASE(CLSCAN_INVALID_VALUE, "name a with op_source", d.op = CLSCAN_USER_OP, d.op_source = "a + b",
       d.identity = &zero, bad[0].name = "a");
  CASE(CLSCAN_INVALID_VALUE, "name b with op_source", d.op = CLSCAN_USER_OP, d.op_source = "a + b",
       d.identity = &zero, d.map_source = NULL, bad[1].name = "b");
  CASE(CLSCAN_NULL_ARGUMENT, "name NULL", bad[0].name = NULL);
  CASE(CLSCAN_INVALID_VALUE, "name not an identifier", bad[0].name = "1w");
  CASE(CLSCAN_INVALID_VALUE, "name with a space", bad[0].name = "w x");
  CASE(CLSCAN_INVALID_VALUE, "name x", bad[0].name = "x");
  CASE(CLSCAN_INVALID_VALUE, "name i", bad[1].name = "i");
  CASE(CLSCAN_INVALID_VALUE, "name clscan_", bad[0].name = "clscan_w");
  CASE(CLSCAN_INVALID_VALUE, "duplicate names", bad[1].name = "w");
  CASE(CLSCAN_INVALID_VALUE, "unknown kind", bad[0].kind = (clscan_arg_kind)7);
  CASE(CLSCAN_INVALID_VALUE, "unknown access", bad[0].access = (clscan_arg_access)9);
  CASE(CLSCAN_INVALID_VALUE, "read-write scalar", bad[1].access = CLSCAN_ARG_READ_WRITE);
  CASE(CLSCAN_INVALID_TYPE, "unknown type", bad[0].type = (clscan_type)40);
  CASE(CLSCAN_INVALID_TYPE, "user-type scalar", bad[1].type = CLSCAN_USER_TYPE);
  CASE(CLSCAN_NULL_ARGUMENT, "user type without type_name", bad[0].type = CLSCAN_USER_TYPE,
       bad[0].type_size = 8);
  CASE(CLSCAN_INVALID_VALUE, "user type of size 0", bad[0].type = CLSCAN_USER_TYPE,
       bad[0].type_name = "float2");
  CASE(CLSCAN_INVALID_VALUE, "type_name for a built-in type", bad[0].type_name = "int");
  CASE(CLSCAN_INVALID_VALUE, "type_source without a user type", d.type_source = "typedef int q;");
  CASE(CLSCAN_INVALID_VALUE, "device_init with init", d.device_init = 1, d.init = &good);
  CASE(CLSCAN_USER_SOURCE_INVALID, "a map naming an unknown argument",
       d.map_source = "x * nope[i]");
  CASE(CLSCAN_USER_SOURCE_INVALID, "a map writing a read-only buffer",
       d.map_source = "{ w[i] = 1; return x; }");
  CASE(CLSCAN_USER_SOURCE_INVALID, "a user type argument of an undefined type",
       bad[0].type = CLSCAN_USER_TYPE, bad[0].type_name = "nosuchtype", bad[0].type_size = 8);
  if (!clscan_context_supports(tu_context(), &(clscan_scan_desc){.type = CLSCAN_DOUBLE}))
    return;
  CASE(CLSCAN_UNSUPPORTED_BY_DEVICE, "a double argument without fp64", bad[0].type = CLSCAN_DOUBLE);
#undef CASE
}

/* The one-shot, host and plain enqueue calls refuse descriptors and plans that need run args. */
static void test_call_errors(void **state) {
  (void)state;
  clscan_context *ctx = tu_context();
  const clscan_scan_desc d = {
      .type = CLSCAN_INT32, .map_source = "x * w[i] + s", .args = int_args, .arg_count = 2};
  const clscan_scan_desc di = {.type = CLSCAN_INT32, .device_init = 1};
  int32_t host[4] = {1, 2, 3, 4}, out[4] = {0};
  cl_mem in = tu_buffer_with(tu_context(), sizeof host, host),
         dout = tu_buffer_with(tu_context(), 64, NULL);
  const clscan_scan_desc *descs[] = {&d, &di};
  for (int k = 0; k < 2; k++) {
    assert_int_equal(clscan_scan(ctx, NULL, descs[k], in, 0, dout, 0, 4, 0, NULL, NULL),
                     CLSCAN_INVALID_VALUE);
    assert_int_equal(clscan_scan_host(ctx, descs[k], host, out, 4), CLSCAN_INVALID_VALUE);
    assert_int_equal(clscan_reduce_host(ctx, descs[k], host, 4, out), CLSCAN_INVALID_VALUE);
    // Batched scans, rows without padding (a segmented scan) and with (their own kernel).
    for (size_t stride = 2; stride <= 3; stride++) {
      const clscan_batch batch = {.rows = 2, .row_length = 2, .row_stride = stride};
      assert_int_equal(
          clscan_scan_batched(ctx, NULL, descs[k], &batch, in, 0, dout, 0, 0, NULL, NULL),
          CLSCAN_INVALID_VALUE);
    }
    // Segments by offsets take neither extra arguments nor device_init.
    const int32_t offsets[3] = {0, 1, 4};
    cl_mem doffsets = tu_buffer_with(tu_context(), sizeof offsets, offsets);
    assert_int_equal(clscan_segmented_scan_offsets(ctx, NULL, descs[k], doffsets, 0, 2, in, 0, dout,
                                                   0, 4, 0, NULL, NULL),
                     CLSCAN_INVALID_VALUE);
    assert_int_equal(clscan_segmented_scan_offsets_host(ctx, descs[k], offsets, 2, host, out),
                     CLSCAN_INVALID_VALUE);
    clscan_scan_desc by_offsets = *descs[k];
    by_offsets.segments = CLSCAN_SEGMENTS_OFFSETS;
    clscan_plan *plan = NULL;
    assert_int_equal(clscan_plan_create(ctx, &by_offsets, &plan), CLSCAN_INVALID_VALUE);
    assert_null(plan);
    clReleaseMemObject(doffsets);
    tu_ok(clscan_plan_create(ctx, descs[k], &plan), "plan");
    assert_int_equal(clscan_plan_enqueue(plan, NULL, in, 0, dout, 0, 4, 0, NULL, NULL),
                     CLSCAN_INVALID_VALUE);
    assert_int_equal(clscan_plan_enqueue_reduce(plan, NULL, in, 0, dout, 0, 4, 0, NULL, NULL),
                     CLSCAN_INVALID_VALUE);
    clscan_plan_release(plan);
  }
  for (int i = 0; i < 4; i++)
    assert_int_equal(out[i], 0);
  // A plan segmented by offsets runs through clscan_plan_enqueue_offsets(), never through
  // clscan_plan_enqueue_args() (which would take its offsets for flags); the output stays as it
  // was.
  const clscan_scan_desc plain_offsets = {.type = CLSCAN_INT32,
                                          .segments = CLSCAN_SEGMENTS_OFFSETS};
  clscan_plan *offsets_plan = NULL;
  tu_ok(clscan_plan_create(ctx, &plain_offsets, &offsets_plan), "offsets plan");
  const int32_t poison[4] = {-7, -7, -7, -7};
  cl_mem flags = tu_buffer_with(tu_context(), sizeof host, host),
         pout = tu_buffer_with(tu_context(), sizeof poison, poison);
  const clscan_run_args seg_run = {.segments = flags};
  const clscan_run_args *runs[] = {NULL, &seg_run};
  for (int k = 0; k < 2; k++) {
    assert_int_equal(clscan_plan_enqueue_args(offsets_plan, NULL, in, 0, pout, 0, 4, runs[k], 0,
                                              NULL, NULL, NULL),
                     CLSCAN_INVALID_VALUE);
  }
  int32_t got[4];
  assert_true(tu_read(ctx, NULL, pout, 0, sizeof got, got));
  assert_memory_equal(got, poison, sizeof got);
  clscan_plan_release(offsets_plan);
  clReleaseMemObject(flags);
  clReleaseMemObject(pout);
  assert_int_equal(
      clscan_plan_enqueue_args(NULL, NULL, in, 0, dout, 0, 4, NULL, 0, NULL, NULL, NULL),
      CLSCAN_NULL_ARGUMENT);
  assert_int_equal(
      clscan_plan_enqueue_reduce_args(NULL, NULL, in, 0, dout, 0, 4, NULL, 0, NULL, NULL),
      CLSCAN_NULL_ARGUMENT);
  clReleaseMemObject(in);
  clReleaseMemObject(dout);
}

/* The fixture of the enqueue errors: a plan with a buffer and a scalar argument and device_init,
 * its buffers, and a good run. */
typedef struct err_fixture {
  clscan_plan *plan, *seg_plan;
  cl_mem in, out, w, carry, ro, other;
  cl_context other_ctx;
  clscan_arg_value values[2];
  clscan_run_args run;
  int32_t s;
} err_fixture;

static void check_untouched(const err_fixture *f, const char *what) {
  unsigned char got[256];
  assert_true(tu_read(tu_context(), NULL, f->out, 0, sizeof got, got));
  for (size_t i = 0; i < sizeof got; i++) {
    if (got[i] != TU_POISON)
      fail_msg("%s: the output was written", what);
  }
  int32_t carry[4];
  assert_true(tu_read(tu_context(), NULL, f->carry, 0, 16, carry));
  if (carry[0] != 5 || carry[1] != 5)
    fail_msg("%s: the carry was written", what);
}

/* Runs an enqueue with a modified copy of the good run, expecting `want`. */
static void expect_run(err_fixture *f, clscan_status want, const clscan_run_args *run, size_t n,
                       size_t out_off, int reduce, const char *what) {
  cl_event done = (cl_event)1;
  clscan_status st = reduce ? clscan_plan_enqueue_reduce_args(f->plan, NULL, f->in, 0, f->out,
                                                              out_off, n, run, 0, NULL, &done)
                            : clscan_plan_enqueue_args(f->plan, NULL, f->in, 0, f->out, out_off, n,
                                                       run, 0, NULL, NULL, &done);
  clFinish(clscan_context_queue(tu_context()));
  if (st != want)
    fail_msg("%s: got %s (%s), want %s", what, clscan_status_string(st), clscan_last_error_detail(),
             clscan_status_string(want));
  if (want != CLSCAN_SUCCESS) {
    assert_null(done);
    check_untouched(f, what);
  } else if (done) {
    clReleaseEvent(done);
  }
}

static void test_enqueue_errors(void **state) {
  (void)state;
  clscan_context *ctx = tu_context();
  err_fixture f = {.s = 1};
  const clscan_scan_desc d = {.type = CLSCAN_INT32,
                              .map_source = "x * w[i] + s",
                              .args = int_args,
                              .arg_count = 2,
                              .device_init = 1};
  tu_ok(clscan_plan_create(ctx, &d, &f.plan), "plan");
  int32_t x[64], carry[4] = {5, 5, 5, 5};
  for (int i = 0; i < 64; i++)
    x[i] = i;
  f.in = tu_buffer_with(tu_context(), sizeof x, x);
  f.out = tu_buffer_with(tu_context(), 256, NULL);
  f.w = tu_buffer_with(tu_context(), sizeof x, x);
  f.carry = tu_buffer_with(tu_context(), 16, carry);
  f.ro = tu_buffer(ctx, CL_MEM_READ_ONLY, 256);
  cl_int err;
  cl_device_id dev = clscan_context_device(ctx);
  f.other_ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
  assert_int_equal(err, CL_SUCCESS);
  f.other = clCreateBuffer(f.other_ctx, CL_MEM_READ_WRITE, 256, NULL, &err);
  assert_int_equal(err, CL_SUCCESS);
  f.values[0] = (clscan_arg_value){.buffer = f.w};
  f.values[1] = (clscan_arg_value){.scalar = &f.s};
  f.run = (clscan_run_args){.values = f.values, .value_count = 2, .init = f.carry};
  clscan_arg_value v[2];
  clscan_run_args r;
#define RUN(want, n, what, ...)              \
  do {                                       \
    memcpy(v, f.values, sizeof v);           \
    r = f.run;                               \
    r.values = v;                            \
    __VA_ARGS__;                             \
    expect_run(&f, want, &r, n, 0, 0, what); \
  } while (0)
  expect_run(&f, CLSCAN_INVALID_VALUE, NULL, 16, 0, 0, "run NULL (no values)");
  RUN(CLSCAN_INVALID_VALUE, 16, "value_count 1", r.value_count = 1);
  RUN(CLSCAN_INVALID_VALUE, 16, "value_count 3", r.value_count = 3);
  RUN(CLSCAN_NULL_ARGUMENT, 16, "values NULL", r.values = NULL);
  RUN(CLSCAN_NULL_ARGUMENT, 16, "buffer NULL", v[0].buffer = NULL);
  RUN(CLSCAN_INVALID_VALUE, 16, "buffer with a scalar", v[0].scalar = &f.s);
  RUN(CLSCAN_NULL_ARGUMENT, 16, "scalar NULL", v[1].scalar = NULL);
  RUN(CLSCAN_INVALID_VALUE, 16, "scalar with a buffer", v[1].buffer = f.w);
  RUN(CLSCAN_INVALID_BUFFER, 16, "buffer of another context", v[0].buffer = f.other);
  RUN(CLSCAN_INVALID_BUFFER, 16, "buffer not a cl_mem", v[0].buffer = (cl_mem)f.other_ctx);
  RUN(CLSCAN_BUFFER_TOO_SMALL, 16, "offset + n past the end", v[0].offset = 60);
  RUN(CLSCAN_BUFFER_TOO_SMALL, 16, "length past the end", v[0].length = 65);
  RUN(CLSCAN_SIZE_OVERFLOW, 16, "offset overflows", v[0].offset = SIZE_MAX - 4);
  RUN(CLSCAN_OVERLAP, 16, "argument overlaps the output", v[0].buffer = f.out);
  RUN(CLSCAN_NULL_ARGUMENT, 16, "init NULL with device_init", r.init = NULL);
  RUN(CLSCAN_INVALID_VALUE, 16, "init offset unaligned", r.init_offset = 2);
  RUN(CLSCAN_BUFFER_TOO_SMALL, 16, "init past the end", r.init_offset = 16);
  RUN(CLSCAN_INVALID_BUFFER, 16, "init of another context", r.init = f.other);
  RUN(CLSCAN_OVERLAP, 16, "init inside the output", r.init = f.out, r.init_offset = 8);
  RUN(CLSCAN_INVALID_VALUE, 16, "total offset unaligned", r.total = f.carry, r.total_offset = 3);
  RUN(CLSCAN_BUFFER_TOO_SMALL, 16, "total past the end", r.total = f.carry, r.total_offset = 16);
  RUN(CLSCAN_INVALID_BUFFER, 16, "total read-only", r.total = f.ro);
  RUN(CLSCAN_INVALID_BUFFER, 16, "total of another context", r.total = f.other);
  RUN(CLSCAN_OVERLAP, 16, "total inside the output", r.total = f.out, r.total_offset = 4);
  RUN(CLSCAN_OVERLAP, 16, "total inside the input", r.total = f.in, r.total_offset = 4);
  RUN(CLSCAN_INVALID_VALUE, 16, "segments for an unsegmented plan", r.segments = f.w);
  // The reduction's own refusals.
  memcpy(v, f.values, sizeof v);
  r = f.run;
  r.values = v;
  r.total = f.carry;
  r.total_offset = 8;
  expect_run(&f, CLSCAN_INVALID_VALUE, &r, 16, 1, 1, "reduce with a total");
  r.total = NULL;
  r.segments = f.w;
  expect_run(&f, CLSCAN_INVALID_VALUE, &r, 16, 1, 1, "reduce with segments");
  r.segments = NULL;
  r.init = f.out;
  r.init_offset = 4;
  expect_run(&f, CLSCAN_OVERLAP, &r, 16, 1, 1, "reduce init on its output");
  // A read-write argument that overlaps the input, and a plan without device_init given init.
  const clscan_arg rw = {.name = "w", .type = CLSCAN_INT32, .access = CLSCAN_ARG_READ_WRITE};
  const clscan_scan_desc drw = {
      .type = CLSCAN_INT32, .map_source = "x + w[i]", .args = &rw, .arg_count = 1};
  clscan_plan *prw = NULL;
  tu_ok(clscan_plan_create(ctx, &drw, &prw), "read-write plan");
  const clscan_arg_value vin = {.buffer = f.in}, vro = {.buffer = f.ro};
  const clscan_run_args rin = {.values = &vin, .value_count = 1};
  const clscan_run_args rro = {.values = &vro, .value_count = 1};
  const clscan_arg_value vw = {.buffer = f.w};
  const clscan_run_args rinit = {.values = &vw, .value_count = 1, .init = f.carry};
  assert_int_equal(
      clscan_plan_enqueue_args(prw, NULL, f.in, 0, f.out, 0, 16, &rin, 0, NULL, NULL, NULL),
      CLSCAN_OVERLAP);
  assert_int_equal(
      clscan_plan_enqueue_args(prw, NULL, f.in, 0, f.out, 0, 16, &rro, 0, NULL, NULL, NULL),
      CLSCAN_INVALID_BUFFER);
  assert_int_equal(
      clscan_plan_enqueue_args(prw, NULL, f.in, 0, f.out, 0, 16, &rinit, 0, NULL, NULL, NULL),
      CLSCAN_INVALID_VALUE);
  check_untouched(&f, "read-write plan");
  clscan_plan_release(prw);
  // A segmented plan needs its segments, and has no total.
  const clscan_scan_desc dseg = {.type = CLSCAN_INT32, .segments = CLSCAN_SEGMENTS_HEAD_FLAGS};
  tu_ok(clscan_plan_create(ctx, &dseg, &f.seg_plan), "segmented plan");
  const clscan_run_args rseg = {.segments = NULL};
  const clscan_run_args rtot = {.segments = f.w, .total = f.carry, .total_offset = 8};
  assert_int_equal(
      clscan_plan_enqueue_args(f.seg_plan, NULL, f.in, 0, f.out, 0, 16, &rseg, 0, NULL, NULL, NULL),
      CLSCAN_NULL_ARGUMENT);
  assert_int_equal(
      clscan_plan_enqueue_args(f.seg_plan, NULL, f.in, 0, f.out, 0, 16, &rtot, 0, NULL, NULL, NULL),
      CLSCAN_INVALID_VALUE);
  check_untouched(&f, "segmented plan");
  // The good run succeeds (the fixture is sound).
  expect_run(&f, CLSCAN_SUCCESS, &f.run, 16, 0, 0, "the good run");
#undef RUN
  clscan_plan_release(f.plan);
  clscan_plan_release(f.seg_plan);
  cl_mem all[] = {f.in, f.out, f.w, f.carry, f.ro, f.other};
  for (size_t k = 0; k < sizeof all / sizeof all[0]; k++)
    clReleaseMemObject(all[k]);
  clReleaseContext(f.other_ctx);
}

/* ============================================================================================== */
/* The tests of this file                                                                         */
/* ============================================================================================== */

const struct CMUnitTest args_errors_tests[] = {
    cmocka_unit_test(test_desc_errors),
    cmocka_unit_test(test_call_errors),
    cmocka_unit_test(test_enqueue_errors),
};
const size_t args_errors_count = sizeof args_errors_tests / sizeof args_errors_tests[0];
