/*
 * clscan tests: every error status, with the exact value, and the API's small promises.
 *
 * Each failing call must return its documented status, leave the output (device buffer or host
 * array) byte-identical, leave no event behind, and describe itself in
 * clscan_last_error_detail(). Also checked: n == 0 (a valid event, wait lists honoured), NULL
 * releases, versions, status strings, names, the build log, clscan_context_create with a
 * foreign device, and CLSCAN_DEVICE naming no device.
 */
#include <limits.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ref_scan.h"
#include "test_util.h"

/* Elements of the fixture's buffers. */
#define N 64
#define BYTES (N * 4)

/* A sentinel that a failing call must replace with NULL in its event or handle output. */
#define NOT_SET ((void *)(uintptr_t)0x1)

static cl_mem g_in, g_out;
/* What host output arrays hold before a call that must fail. */
static const int untouched[4] = {9, 9, 9, 9};
static clscan_scan_desc g_desc = {.type = CLSCAN_INT32, .op = CLSCAN_ADD};

/* ============================================================================================== */
/* Checking a failure                                                                             */
/* ============================================================================================== */

/* Fills the output buffer with a pattern and snapshots it. */
static void snapshot(cl_mem buf, size_t bytes, unsigned char *copy) {
  for (size_t i = 0; i < bytes; i++)
    copy[i] = (unsigned char)(i * 7 + 3);
  assert_true(tu_write(tu_context(), NULL, buf, 0, bytes, copy));
}

/* Checks a failed call: its status, its detail, and that the buffer kept its bytes. */
static void check_failure(const char *call, int line, clscan_status got, clscan_status want,
                          cl_mem buf, const unsigned char *before, size_t bytes) {
  char detail[512];
  snprintf(detail, sizeof detail, "%s", clscan_last_error_detail());
  if (got != want)
    fail_msg("line %d: %s returned %s (%d), want %s (%d); detail: %s", line, call,
             clscan_status_string(got), (int)got, clscan_status_string(want), (int)want, detail);
  if (detail[0] == '\0')
    fail_msg("line %d: %s: clscan_last_error_detail() is empty", line, call);
  if (buf) {
    unsigned char *after = malloc(bytes);
    assert_non_null(after);
    assert_true(tu_read(tu_context(), NULL, buf, 0, bytes, after));
    if (memcmp(before, after, bytes) != 0)
      fail_msg("line %d: %s failed but modified the output buffer", line, call);
    free(after);
  }
}

/* Runs a call that must fail with `want`, with the fixture's output buffer snapshotted. */
#define EXPECT_FAIL(want, call)                                          \
  do {                                                                   \
    unsigned char before_[BYTES];                                        \
    snapshot(g_out, BYTES, before_);                                     \
    clscan_status got_ = (call);                                         \
    check_failure(#call, __LINE__, got_, (want), g_out, before_, BYTES); \
  } while (0)

/* Runs a call that must fail, checking a given buffer (size `bytes`) instead. */
#define EXPECT_FAIL_ON(want, buf, bytes, call)                             \
  do {                                                                     \
    unsigned char *before_ = malloc(bytes);                                \
    assert_non_null(before_);                                              \
    snapshot((buf), (bytes), before_);                                     \
    clscan_status got_ = (call);                                           \
    check_failure(#call, __LINE__, got_, (want), (buf), before_, (bytes)); \
    free(before_);                                                         \
  } while (0)

/* Runs a call that does not touch device memory and must fail with `want`. */
#define EXPECT_STATUS(want, call)                                \
  do {                                                           \
    clscan_status got_ = (call);                                 \
    check_failure(#call, __LINE__, got_, (want), NULL, NULL, 0); \
  } while (0)

/* Asserts that a call succeeded. */
#define EXPECT_OK(call)                                                                     \
  do {                                                                                      \
    clscan_status got_ = (call);                                                            \
    if (got_ != CLSCAN_SUCCESS)                                                             \
      fail_msg("line %d: %s returned %s (%s)", __LINE__, #call, clscan_status_string(got_), \
               clscan_last_error_detail());                                                 \
  } while (0)

/* The enqueue entry points, so that every enqueue check runs through each. */
typedef enum entry { VIA_SCAN, VIA_PLAN, VIA_PLAN_TIMED, VIA_COUNT } entry;

/* Enqueues through an entry point and checks that a failure hands out no events. */
static clscan_status enqueue_via(entry via, clscan_plan *plan, const clscan_scan_desc *desc,
                                 cl_command_queue q, cl_mem in, size_t in_off, cl_mem out,
                                 size_t out_off, size_t n, cl_uint num_wait, const cl_event *wait) {
  cl_event done = NOT_SET, first = NOT_SET;
  clscan_status st;
  if (via == VIA_SCAN) {
    st = clscan_scan(tu_context(), q, desc, in, in_off, out, out_off, n, num_wait, wait, &done);
    first = NULL;
  } else if (via == VIA_PLAN) {
    st = clscan_plan_enqueue(plan, q, in, in_off, out, out_off, n, num_wait, wait, &done);
    first = NULL;
  } else {
    st = clscan_plan_enqueue_timed(plan, q, in, in_off, out, out_off, n, num_wait, wait, &first,
                                   &done);
  }
  if (st != CLSCAN_SUCCESS) {
    // The detail must survive the checks below, which make no clscan calls.
    assert_null(done);
    assert_null(first);
    return st;
  }
  if (done) {
    clWaitForEvents(1, &done);
    clReleaseEvent(done);
  }
  if (first)
    clReleaseEvent(first);
  return st;
}

/* Creates the fixture's int32 add plan. */
static clscan_plan *fixture_plan(void) {
  clscan_plan *plan = NULL;
  assert_int_equal(clscan_plan_create(tu_context(), &g_desc, &plan), CLSCAN_SUCCESS);
  return plan;
}

static const char *const entry_names[VIA_COUNT] = {"clscan_scan", "clscan_plan_enqueue",
                                                   "clscan_plan_enqueue_timed"};

/* ============================================================================================== */
/* NULL arguments                                                                                 */
/* ============================================================================================== */

static void test_null_arguments(void **state) {
  (void)state;
  clscan_context *ctx = tu_context();
  clscan_plan *plan = fixture_plan(), *none = NOT_SET;
  cl_event done = NOT_SET;
  int host_in[4] = {1, 2, 3, 4}, host_out[4] = {9, 9, 9, 9};

  // clscan_scan.
  EXPECT_FAIL(CLSCAN_NULL_ARGUMENT,
              clscan_scan(NULL, NULL, &g_desc, g_in, 0, g_out, 0, N, 0, NULL, &done));
  assert_null(done);
  EXPECT_FAIL(CLSCAN_NULL_ARGUMENT,
              clscan_scan(ctx, NULL, NULL, g_in, 0, g_out, 0, N, 0, NULL, NULL));
  EXPECT_FAIL(CLSCAN_NULL_ARGUMENT,
              clscan_scan(ctx, NULL, &g_desc, NULL, 0, g_out, 0, N, 0, NULL, NULL));
  EXPECT_FAIL(CLSCAN_NULL_ARGUMENT,
              clscan_scan(ctx, NULL, &g_desc, g_in, 0, NULL, 0, N, 0, NULL, NULL));
  EXPECT_FAIL(CLSCAN_NULL_ARGUMENT,
              clscan_scan(ctx, NULL, &g_desc, NULL, 0, NULL, 0, 0, 0, NULL, NULL));

  // Plans.
  EXPECT_FAIL(CLSCAN_NULL_ARGUMENT,
              clscan_plan_enqueue(NULL, NULL, g_in, 0, g_out, 0, N, 0, NULL, NULL));
  EXPECT_FAIL(CLSCAN_NULL_ARGUMENT,
              clscan_plan_enqueue_timed(NULL, NULL, g_in, 0, g_out, 0, N, 0, NULL, NULL, NULL));
  for (entry via = VIA_PLAN; via < VIA_COUNT; via++) {
    EXPECT_FAIL(CLSCAN_NULL_ARGUMENT,
                enqueue_via(via, plan, NULL, NULL, NULL, 0, g_out, 0, N, 0, NULL));
    EXPECT_FAIL(CLSCAN_NULL_ARGUMENT,
                enqueue_via(via, plan, NULL, NULL, g_in, 0, NULL, 0, N, 0, NULL));
  }
  EXPECT_STATUS(CLSCAN_NULL_ARGUMENT, clscan_plan_create(NULL, &g_desc, &none));
  assert_null(none);
  none = NOT_SET;
  EXPECT_STATUS(CLSCAN_NULL_ARGUMENT, clscan_plan_create(ctx, NULL, &none));
  assert_null(none);
  EXPECT_STATUS(CLSCAN_NULL_ARGUMENT, clscan_plan_create(ctx, &g_desc, NULL));

  // Host scans: the output array keeps its values.
  EXPECT_STATUS(CLSCAN_NULL_ARGUMENT, clscan_scan_host(NULL, &g_desc, host_in, host_out, 4));
  EXPECT_STATUS(CLSCAN_NULL_ARGUMENT, clscan_scan_host(ctx, NULL, host_in, host_out, 4));
  EXPECT_STATUS(CLSCAN_NULL_ARGUMENT, clscan_scan_host(ctx, &g_desc, NULL, host_out, 4));
  EXPECT_STATUS(CLSCAN_NULL_ARGUMENT, clscan_scan_host(ctx, &g_desc, host_in, NULL, 4));
  assert_memory_equal(host_out, untouched, sizeof untouched);

  // Contexts.
  clscan_context *c = NOT_SET;
  cl_context cl_ctx = clscan_context_cl_context(ctx);
  cl_device_id dev = clscan_context_device(ctx);
  EXPECT_STATUS(CLSCAN_NULL_ARGUMENT, clscan_context_create(NULL, dev, &c));
  assert_null(c);
  EXPECT_STATUS(CLSCAN_NULL_ARGUMENT, clscan_context_create(cl_ctx, NULL, &c));
  EXPECT_STATUS(CLSCAN_NULL_ARGUMENT, clscan_context_create(cl_ctx, dev, NULL));
  EXPECT_STATUS(CLSCAN_NULL_ARGUMENT, clscan_context_create_default(NULL));
  EXPECT_STATUS(CLSCAN_NULL_ARGUMENT, clscan_context_supports(NULL, &g_desc));
  EXPECT_STATUS(CLSCAN_NULL_ARGUMENT, clscan_context_supports(ctx, NULL));
  EXPECT_STATUS(CLSCAN_NULL_ARGUMENT, clscan_context_build_log(NULL, NULL, 0, NULL));
  EXPECT_STATUS(CLSCAN_NULL_ARGUMENT, clscan_context_build_log(ctx, NULL, 16, NULL));
  clscan_plan_release(plan);
}

/* ============================================================================================== */
/* Descriptors                                                                                    */
/* ============================================================================================== */

/* Expects `want` from every entry point that takes a descriptor. */
static void expect_desc_status(const clscan_scan_desc *d, clscan_status want) {
  clscan_context *ctx = tu_context();
  clscan_plan *plan = NOT_SET;
  int host_in[4] = {1, 2, 3, 4}, host_out[4] = {9, 9, 9, 9};
  EXPECT_STATUS(want, clscan_context_supports(ctx, d));
  EXPECT_STATUS(want, clscan_plan_create(ctx, d, &plan));
  assert_null(plan);
  EXPECT_FAIL(want, clscan_scan(ctx, NULL, d, g_in, 0, g_out, 0, N, 0, NULL, NULL));
  EXPECT_STATUS(want, clscan_scan_host(ctx, d, host_in, host_out, 4));
  assert_memory_equal(host_out, untouched, sizeof untouched);
}

static void test_invalid_enums(void **state) {
  (void)state;
  const int bad[] = {-1, 1000, INT_MIN};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0] + 1; i++) {
    clscan_scan_desc d = g_desc;
    int v = i < sizeof bad / sizeof bad[0] ? bad[i] : -2;
    d.type = i == 3 ? (clscan_type)CLSCAN_TYPE_COUNT : (clscan_type)v;
    expect_desc_status(&d, CLSCAN_INVALID_TYPE);
    d = g_desc;
    d.op = i == 3 ? (clscan_op)CLSCAN_OP_COUNT : (clscan_op)v;
    expect_desc_status(&d, CLSCAN_INVALID_OP);
    d = g_desc;
    d.algorithm = i == 3 ? (clscan_algorithm)CLSCAN_ALGORITHM_COUNT : (clscan_algorithm)v;
    expect_desc_status(&d, CLSCAN_INVALID_ALGORITHM);
  }
}

static void test_bitwise_on_floats(void **state) {
  (void)state;
  const clscan_type types[] = {CLSCAN_FLOAT, CLSCAN_DOUBLE};
  for (int t = 0; t < 2; t++) {
    for (int op = CLSCAN_AND; op <= CLSCAN_XOR; op++) {
      clscan_scan_desc d = {.type = types[t], .op = (clscan_op)op};
      expect_desc_status(&d, CLSCAN_UNSUPPORTED_OP_FOR_TYPE);
    }
  }
}

/* Every type x operator: supported, refused for bitwise on floats, or (fp64, single pass, and
 * on Mesa 22.3's rusticl int8 with a non-zero identity: docs/testing-drivers.md) refused by the
 * device. */
static void test_supports_matrix(void **state) {
  (void)state;
  clscan_context *ctx = tu_context();
  for (int t = 0; t < CLSCAN_TYPE_COUNT; t++) {
    for (int op = 0; op < CLSCAN_OP_COUNT; op++) {
      for (int a = 0; a < CLSCAN_ALGORITHM_COUNT; a++) {
        clscan_scan_desc d = {
            .type = (clscan_type)t, .op = (clscan_op)op, .algorithm = (clscan_algorithm)a};
        clscan_status st = clscan_context_supports(ctx, &d);
        int is_float = t == CLSCAN_FLOAT || t == CLSCAN_DOUBLE;
        if (is_float && op >= CLSCAN_AND) {
          assert_int_equal(st, CLSCAN_UNSUPPORTED_OP_FOR_TYPE);
        } else if (st != CLSCAN_SUCCESS) {
          assert_int_equal(st, CLSCAN_UNSUPPORTED_BY_DEVICE);
          int int8_on_rusticl = t == CLSCAN_INT8 && strstr(clscan_last_error_detail(), "rusticl");
          assert_true(t == CLSCAN_DOUBLE || a == CLSCAN_ALGO_SINGLE_PASS || int8_on_rusticl);
        }
      }
    }
  }
}

/* ============================================================================================== */
/* Buffer sizes and offsets                                                                       */
/* ============================================================================================== */

/* Scans n elements with buffers exactly large enough, and one element and one byte short. */
static void check_sizes(clscan_type type, size_t in_off, size_t out_off, entry via) {
  clscan_context *ctx = tu_context();
  const size_t n = 1000, e = clscan_type_size(type);
  clscan_scan_desc d = {.type = type, .op = CLSCAN_ADD};
  clscan_plan *plan = NULL;
  if (via != VIA_SCAN)
    assert_int_equal(clscan_plan_create(ctx, &d, &plan), CLSCAN_SUCCESS);
  const size_t in_bytes = (in_off + n) * e, out_bytes = (out_off + n) * e;
  cl_mem in = tu_buffer(ctx, CL_MEM_READ_WRITE, in_bytes);
  cl_mem out = tu_buffer(ctx, CL_MEM_READ_WRITE, out_bytes);
  cl_mem in_short = tu_buffer(ctx, CL_MEM_READ_WRITE, in_bytes - e);
  cl_mem out_short = tu_buffer(ctx, CL_MEM_READ_WRITE, out_bytes - e);
  cl_mem in_byte = tu_buffer(ctx, CL_MEM_READ_WRITE, in_bytes - 1);
  cl_mem out_byte = tu_buffer(ctx, CL_MEM_READ_WRITE, out_bytes - 1);
  assert_true(in && out && in_short && out_short && in_byte && out_byte);

  // Exactly large enough: the scan runs and is right.
  unsigned char *data = malloc(in_bytes), *got = malloc(out_bytes);
  assert_true(data && got);
  clscan_ref_fill(type, CLSCAN_ADD, tu_mix(tu_seed(), 0xB0F), data, in_off + n);
  assert_true(tu_write(ctx, NULL, in, 0, in_bytes, data));
  EXPECT_OK(enqueue_via(via, plan, &d, NULL, in, in_off, out, out_off, n, 0, NULL));
  assert_true(tu_read(ctx, NULL, out, 0, out_bytes, got));
  assert_true(clscan_ref_check(&d, data + in_off * e, got + out_off * e, n, NULL));

  // One element or one byte short, as input or as output.
  EXPECT_FAIL_ON(CLSCAN_BUFFER_TOO_SMALL, out, out_bytes,
                 enqueue_via(via, plan, &d, NULL, in_short, in_off, out, out_off, n, 0, NULL));
  EXPECT_FAIL_ON(CLSCAN_BUFFER_TOO_SMALL, out, out_bytes,
                 enqueue_via(via, plan, &d, NULL, in_byte, in_off, out, out_off, n, 0, NULL));
  EXPECT_FAIL_ON(CLSCAN_BUFFER_TOO_SMALL, out_short, out_bytes - e,
                 enqueue_via(via, plan, &d, NULL, in, in_off, out_short, out_off, n, 0, NULL));
  EXPECT_FAIL_ON(CLSCAN_BUFFER_TOO_SMALL, out_byte, out_bytes - 1,
                 enqueue_via(via, plan, &d, NULL, in, in_off, out_byte, out_off, n, 0, NULL));
  // One more element than fits, through the offsets.
  EXPECT_FAIL_ON(CLSCAN_BUFFER_TOO_SMALL, out, out_bytes,
                 enqueue_via(via, plan, &d, NULL, in, in_off + 1, out, out_off, n, 0, NULL));
  EXPECT_FAIL_ON(CLSCAN_BUFFER_TOO_SMALL, out, out_bytes,
                 enqueue_via(via, plan, &d, NULL, in, in_off, out, out_off + 1, n, 0, NULL));
  cl_mem bufs[] = {in, out, in_short, out_short, in_byte, out_byte};
  for (size_t i = 0; i < 6; i++)
    clReleaseMemObject(bufs[i]);
  clscan_plan_release(plan);
  free(data);
  free(got);
}

static void test_buffer_too_small(void **state) {
  (void)state;
  const clscan_type types[] = {CLSCAN_INT32, CLSCAN_INT64, CLSCAN_UINT8};
  for (entry via = VIA_SCAN; via < VIA_COUNT; via++) {
    for (size_t t = 0; t < 3; t++) {
      check_sizes(types[t], 0, 0, via);
      check_sizes(types[t], 3, 0, via);
      check_sizes(types[t], 0, 5, via);
      check_sizes(types[t], 16, 17, via);
    }
  }
}

static void test_size_overflow(void **state) {
  (void)state;
  clscan_plan *plan = fixture_plan();
  const size_t big = SIZE_MAX / 4 + 1;
  for (entry via = VIA_SCAN; via < VIA_COUNT; via++) {
    printf("  %s\n", entry_names[via]);
    EXPECT_FAIL(CLSCAN_SIZE_OVERFLOW,
                enqueue_via(via, plan, &g_desc, NULL, g_in, 0, g_out, 0, big, 0, NULL));
    EXPECT_FAIL(CLSCAN_SIZE_OVERFLOW,
                enqueue_via(via, plan, &g_desc, NULL, g_in, 0, g_out, 0, SIZE_MAX, 0, NULL));
    EXPECT_FAIL(CLSCAN_SIZE_OVERFLOW,
                enqueue_via(via, plan, &g_desc, NULL, g_in, SIZE_MAX / 4, g_out, 0, 1, 0, NULL));
    EXPECT_FAIL(CLSCAN_SIZE_OVERFLOW,
                enqueue_via(via, plan, &g_desc, NULL, g_in, SIZE_MAX, g_out, 0, 1, 0, NULL));
    EXPECT_FAIL(CLSCAN_SIZE_OVERFLOW,
                enqueue_via(via, plan, &g_desc, NULL, g_in, 0, g_out, SIZE_MAX - 4, 8, 0, NULL));
  }
  int host_in[4] = {1, 2, 3, 4}, host_out[4] = {9, 9, 9, 9};
  EXPECT_STATUS(CLSCAN_SIZE_OVERFLOW,
                clscan_scan_host(tu_context(), &g_desc, host_in, host_out, big));
  assert_memory_equal(host_out, untouched, sizeof untouched);
  clscan_plan_release(plan);
}

/* ============================================================================================== */
/* Overlap                                                                                        */
/* ============================================================================================== */

/* Ranges within one buffer: overlapping ones fail; adjacent and identical ones succeed. */
static void test_overlap_one_buffer(void **state) {
  (void)state;
  clscan_context *ctx = tu_context();
  clscan_plan *plan = fixture_plan();
  const size_t total = 3 * N;
  cl_mem buf = tu_buffer(ctx, CL_MEM_READ_WRITE, total * 4);
  assert_non_null(buf);
  for (entry via = VIA_SCAN; via < VIA_COUNT; via++) {
    const size_t bad[][2] = {{0, 1}, {1, 0}, {N, N - 1}, {N, 2 * N - 1}, {0, N - 1}, {N - 1, 0}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
      EXPECT_FAIL_ON(
          CLSCAN_OVERLAP, buf, total * 4,
          enqueue_via(via, plan, &g_desc, NULL, buf, bad[i][0], buf, bad[i][1], N, 0, NULL));
    }
    EXPECT_OK(enqueue_via(via, plan, &g_desc, NULL, buf, 0, buf, N, N, 0, NULL));
    EXPECT_OK(enqueue_via(via, plan, &g_desc, NULL, buf, 2 * N, buf, N, N, 0, NULL));
    EXPECT_OK(enqueue_via(via, plan, &g_desc, NULL, buf, N, buf, N, N, 0, NULL));
    EXPECT_OK(enqueue_via(via, plan, &g_desc, NULL, buf, 1, buf, 1, N, 0, NULL));
  }
  clReleaseMemObject(buf);
  clscan_plan_release(plan);
}

/* Ranges in overlapping sub-buffers, and a sub-buffer against its parent. */
static void test_overlap_sub_buffers(void **state) {
  (void)state;
  clscan_context *ctx = tu_context();
  cl_uint bits = 0;
  clGetDeviceInfo(clscan_context_device(ctx), CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof bits, &bits,
                  NULL);
  const size_t align = bits / 8 < 64 ? 64 : bits / 8, total = 4 * align;
  const size_t n = align / 4 + 4; /* one range reaches 16 bytes into the next region */
  cl_mem parent = tu_buffer(ctx, CL_MEM_READ_WRITE, total);
  assert_non_null(parent);
  cl_buffer_region r1 = {0, 2 * align}, r2 = {align, 2 * align};
  cl_int err;
  cl_mem s1 = clCreateSubBuffer(parent, 0, CL_BUFFER_CREATE_TYPE_REGION, &r1, &err);
  assert_int_equal(err, CL_SUCCESS);
  cl_mem s2 = clCreateSubBuffer(parent, 0, CL_BUFFER_CREATE_TYPE_REGION, &r2, &err);
  assert_int_equal(err, CL_SUCCESS);
  clscan_plan *plan = fixture_plan();
  for (entry via = VIA_SCAN; via < VIA_COUNT; via++) {
    // s1[0, n) and s2[0, n) share 16 bytes; so do the parent and s2.
    EXPECT_FAIL_ON(CLSCAN_OVERLAP, parent, total,
                   enqueue_via(via, plan, &g_desc, NULL, s1, 0, s2, 0, n, 0, NULL));
    EXPECT_FAIL_ON(CLSCAN_OVERLAP, parent, total,
                   enqueue_via(via, plan, &g_desc, NULL, s2, 0, s1, 0, n, 0, NULL));
    EXPECT_FAIL_ON(CLSCAN_OVERLAP, parent, total,
                   enqueue_via(via, plan, &g_desc, NULL, parent, 4, s2, 0, n, 0, NULL));
    EXPECT_FAIL_ON(CLSCAN_OVERLAP, parent, total,
                   enqueue_via(via, plan, &g_desc, NULL, s2, 1, parent, align / 4, n, 0, NULL));
    // Disjoint ranges of overlapping sub-buffers, and the same bytes through two handles.
    EXPECT_OK(enqueue_via(via, plan, &g_desc, NULL, s1, 0, s2, 0, align / 4, 0, NULL));
    EXPECT_OK(enqueue_via(via, plan, &g_desc, NULL, parent, align / 4, s2, 0, n, 0, NULL));
    EXPECT_OK(enqueue_via(via, plan, &g_desc, NULL, s2, 3, s1, align / 4 + 3, 20, 0, NULL));
  }
  clscan_plan_release(plan);
  clReleaseMemObject(s2);
  clReleaseMemObject(s1);
  clReleaseMemObject(parent);
}

static void test_host_overlap(void **state) {
  (void)state;
  clscan_context *ctx = tu_context();
  int32_t a[2 * N];
  for (int i = 0; i < 2 * N; i++)
    a[i] = i;
  int32_t copy[2 * N];
  memcpy(copy, a, sizeof a);
  EXPECT_STATUS(CLSCAN_OVERLAP, clscan_scan_host(ctx, &g_desc, a, a + 1, N));
  EXPECT_STATUS(CLSCAN_OVERLAP, clscan_scan_host(ctx, &g_desc, a + 1, a, N));
  EXPECT_STATUS(CLSCAN_OVERLAP, clscan_scan_host(ctx, &g_desc, a, a + N - 1, N));
  EXPECT_STATUS(CLSCAN_OVERLAP, clscan_scan_host(ctx, &g_desc, a + N - 1, a, N));
  assert_memory_equal(a, copy, sizeof a);

  // Adjacent and identical arrays are fine.
  EXPECT_OK(clscan_scan_host(ctx, &g_desc, a, a + N, N));
  assert_int_equal(a[2 * N - 1], (N - 1) * N / 2);
  EXPECT_OK(clscan_scan_host(ctx, &g_desc, a, a, N));
  assert_int_equal(a[2], 0 + 1 + 2);
}

/* ============================================================================================== */
/* Foreign queues and buffers, read-only output, wait lists                                       */
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
    check_failure("foreign output buffer", __LINE__, st, CLSCAN_INVALID_BUFFER, NULL, NULL, 0);
    assert_int_equal(clEnqueueReadBuffer(q, foreign, CL_TRUE, 0, BYTES, after, 0, NULL, NULL),
                     CL_SUCCESS);
    assert_memory_equal(before, after, BYTES);
  }
  clscan_plan_release(plan);
  clReleaseMemObject(foreign);
  clReleaseCommandQueue(q);
  clReleaseContext(other);
}

/*
 * Partitions `dev` into sub-devices of one compute unit each and returns the first (the caller
 * releases it), or NULL where the device cannot be partitioned. The count is asked first: a device
 * of many compute units (POCL on 16 cores) makes more sub-devices than a fixed array would hold,
 * and a conformant driver then refuses the whole call. A device that reports no partitioning is
 * not asked: Mesa 22.3's rusticl has no clCreateSubDevices entry point, so the ICD loader calls a
 * null pointer (tests/rusticl/sub_devices.c, docs/testing.md).
 */
static cl_device_id first_sub_device(cl_device_id dev) {
  cl_uint max_sub = 0, count = 0;
  if (clGetDeviceInfo(dev, CL_DEVICE_PARTITION_MAX_SUB_DEVICES, sizeof max_sub, &max_sub, NULL) !=
          CL_SUCCESS ||
      max_sub < 2)
    return NULL;
  const cl_device_partition_property props[] = {CL_DEVICE_PARTITION_EQUALLY, 1, 0};
  if (clCreateSubDevices(dev, props, 0, NULL, &count) != CL_SUCCESS || count == 0)
    return NULL;
  cl_device_id *sub = calloc(count, sizeof *sub), first = NULL;
  if (sub && clCreateSubDevices(dev, props, count, sub, NULL) == CL_SUCCESS) {
    first = sub[0];
    for (cl_uint i = 1; i < count; i++)
      clReleaseDevice(sub[i]);
  }
  free(sub);
  return first;
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

static void test_read_only_output(void **state) {
  (void)state;
  clscan_context *ctx = tu_context();
  unsigned char pattern[BYTES];
  memset(pattern, 0x77, BYTES);
  cl_int err;
  cl_mem ro = clCreateBuffer(clscan_context_cl_context(ctx),
                             CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, BYTES, pattern, &err);
  assert_int_equal(err, CL_SUCCESS);
  clscan_plan *plan = fixture_plan();
  for (entry via = VIA_SCAN; via < VIA_COUNT; via++) {
    unsigned char after[BYTES];
    clscan_status st = enqueue_via(via, plan, &g_desc, NULL, g_in, 0, ro, 0, N, 0, NULL);
    check_failure("read-only output", __LINE__, st, CLSCAN_INVALID_BUFFER, NULL, NULL, 0);
    st = enqueue_via(via, plan, &g_desc, NULL, ro, 0, ro, 0, N, 0, NULL);
    check_failure("read-only in place", __LINE__, st, CLSCAN_INVALID_BUFFER, NULL, NULL, 0);
    assert_true(tu_read(ctx, NULL, ro, 0, BYTES, after));
    assert_memory_equal(pattern, after, BYTES);
    // A read-only input is fine.
    EXPECT_OK(enqueue_via(via, plan, &g_desc, NULL, ro, 0, g_out, 0, N, 0, NULL));
  }
  clscan_plan_release(plan);
  clReleaseMemObject(ro);
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
  cl_int status = CL_QUEUED;
  assert_non_null(ev);
  assert_int_equal(clWaitForEvents(1, &ev), CL_SUCCESS);
  assert_int_equal(
      clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, NULL),
      CL_SUCCESS);
  assert_int_equal(status, CL_COMPLETE);
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
  snapshot(g_out, BYTES, before);
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
  const size_t sizes[CLSCAN_TYPE_COUNT] = {4, 4, 8, 8, 4, 8, 1, 1, 2, 2};
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
/* Main                                                                                           */
/* ============================================================================================== */

static int setup(void **state) {
  if (tu_group_setup(state) != 0)
    return -1;
  g_in = tu_buffer(tu_context(), CL_MEM_READ_WRITE, BYTES);
  g_out = tu_buffer(tu_context(), CL_MEM_READ_WRITE, BYTES);
  int32_t data[N];
  for (int i = 0; i < N; i++)
    data[i] = i;
  return g_in && g_out && tu_write(tu_context(), NULL, g_in, 0, BYTES, data) ? 0 : -1;
}

static int teardown(void **state) {
  if (g_in)
    clReleaseMemObject(g_in);
  if (g_out)
    clReleaseMemObject(g_out);
  return tu_group_teardown(state);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_null_arguments),
      cmocka_unit_test(test_invalid_enums),
      cmocka_unit_test(test_bitwise_on_floats),
      cmocka_unit_test(test_supports_matrix),
      cmocka_unit_test(test_buffer_too_small),
      cmocka_unit_test(test_size_overflow),
      cmocka_unit_test(test_overlap_one_buffer),
      cmocka_unit_test(test_overlap_sub_buffers),
      cmocka_unit_test(test_host_overlap),
      cmocka_unit_test(test_foreign_objects),
      cmocka_unit_test(test_queue_of_other_device),
      cmocka_unit_test(test_read_only_output),
      cmocka_unit_test(test_wait_list),
      cmocka_unit_test(test_zero_length),
      cmocka_unit_test(test_status_strings),
      cmocka_unit_test(test_names_and_sizes),
      cmocka_unit_test(test_version),
      cmocka_unit_test(test_release_null),
      cmocka_unit_test(test_build_log),
      cmocka_unit_test(test_context_create),
      cmocka_unit_test(test_device_env),
      cmocka_unit_test(test_detail_is_per_thread),
  };
  if (!tu_context())
    return 1;
  int failed = cmocka_run_group_tests_name("errors", tests, setup, teardown);
  tu_context_release();
  printf("clscan tests: seed %llu\n", (unsigned long long)tu_seed());
  return failed ? 1 : 0;
}
