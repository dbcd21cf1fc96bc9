/*
 * clscan tests, errors: buffers too small for their offsets and sizes, size overflows, overlapping
 * ranges (in one buffer, in sub-buffers, in host arrays) and read-only outputs.
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "errors_fixture.h"
#include "ref_scan.h"

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

/* Ranges in overlapping sub-buffers, and a sub-buffer against its parent: refused whatever the
 * ranges (OpenCL leaves a kernel that writes through overlapping memory objects undefined);
 * disjoint sub-buffers of one buffer, and in place through one sub-buffer, are fine. */
static void test_overlap_sub_buffers(void **state) {
  (void)state;
  clscan_context *ctx = tu_context();
  const size_t align = tu_sub_buffer_align(ctx, 64), total = 4 * align;
  const size_t n = align / 4 + 4; /* one range reaches 16 bytes into the next region */
  cl_mem parent = tu_buffer(ctx, CL_MEM_READ_WRITE, total);
  assert_non_null(parent);
  cl_mem s1 = tu_sub_buffer(parent, 0, 2 * align), s2 = tu_sub_buffer(parent, align, 2 * align);
  cl_mem s3 = tu_sub_buffer(parent, 2 * align, 2 * align);
  assert_non_null(s1);
  assert_non_null(s2);
  assert_non_null(s3);
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
    // Disjoint ranges of overlapping sub-buffers, and the same bytes through two objects.
    EXPECT_FAIL_ON(CLSCAN_OVERLAP, parent, total,
                   enqueue_via(via, plan, &g_desc, NULL, s1, 0, s2, 0, align / 4, 0, NULL));
    assert_non_null(strstr(clscan_last_error_detail(), "sub-buffer"));
    EXPECT_FAIL_ON(CLSCAN_OVERLAP, parent, total,
                   enqueue_via(via, plan, &g_desc, NULL, parent, align / 4, s2, 0, n, 0, NULL));
    EXPECT_FAIL_ON(CLSCAN_OVERLAP, parent, total,
                   enqueue_via(via, plan, &g_desc, NULL, s2, 3, s1, align / 4 + 3, 20, 0, NULL));
    // Sub-buffers that do not overlap, a sub-buffer in place, and disjoint ranges of the parent.
    EXPECT_OK(enqueue_via(via, plan, &g_desc, NULL, s1, 0, s3, 0, n, 0, NULL));
    EXPECT_OK(enqueue_via(via, plan, &g_desc, NULL, s2, 3, s2, 3, n, 0, NULL));
    EXPECT_OK(enqueue_via(via, plan, &g_desc, NULL, parent, 0, parent, align / 2, n, 0, NULL));
  }
  clscan_plan_release(plan);
  clReleaseMemObject(s3);
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
    ef_check_failure("read-only output", __LINE__, st, CLSCAN_INVALID_BUFFER, NULL, NULL, 0);
    st = enqueue_via(via, plan, &g_desc, NULL, ro, 0, ro, 0, N, 0, NULL);
    ef_check_failure("read-only in place", __LINE__, st, CLSCAN_INVALID_BUFFER, NULL, NULL, 0);
    assert_true(tu_read(ctx, NULL, ro, 0, BYTES, after));
    assert_memory_equal(pattern, after, BYTES);
    // A read-only input is fine.
    EXPECT_OK(enqueue_via(via, plan, &g_desc, NULL, ro, 0, g_out, 0, N, 0, NULL));
  }
  clscan_plan_release(plan);
  clReleaseMemObject(ro);
}

/* ============================================================================================== */
/* The tests of this file                                                                         */
/* ============================================================================================== */

const struct CMUnitTest errors_buffers_tests[] = {
    cmocka_unit_test(test_buffer_too_small),   cmocka_unit_test(test_size_overflow),
    cmocka_unit_test(test_overlap_one_buffer), cmocka_unit_test(test_overlap_sub_buffers),
    cmocka_unit_test(test_host_overlap),       cmocka_unit_test(test_read_only_output),
};
const size_t errors_buffers_count = sizeof errors_buffers_tests / sizeof errors_buffers_tests[0];
