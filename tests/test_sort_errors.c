/*
 * clscan tests, sort: every bad input of plan creation, of clscan_sort_enqueue (sub-buffers of one
 * buffer that overlap included, and a sort in disjoint ones) and of clscan_sort_host gets its
 * status, and the buffers stay untouched (test_errors).
 */
#include <stdint.h>
#include <string.h>

#include "sort_fixture.h"

/* Expects status `want` from a plan creation. */
static void bad_desc(const clscan_sort_desc *d, clscan_status want) {
  clscan_sort_plan *plan = (clscan_sort_plan *)(uintptr_t)1;
  clscan_status st = clscan_sort_plan_create(tu_context(), d, &plan);
  if (st != want)
    fail_msg("plan_create gave %s, expected %s", clscan_status_string(st),
             clscan_status_string(want));
  assert_true(plan == (clscan_sort_plan *)(uintptr_t)1);
  assert_true(clscan_last_error_detail()[0] != '\0');
}

/* Every bad input gets its status, and the buffers stay untouched. */
void test_errors(void **state) {
  (void)state;
  clscan_context *ctx = tu_context();
  clscan_sort_desc d = {.key_type = CLSCAN_UINT32, .value_size = 4};
  clscan_sort_plan *plan = NULL;
  assert_int_equal(clscan_sort_plan_create(NULL, &d, &plan), CLSCAN_NULL_ARGUMENT);
  assert_int_equal(clscan_sort_plan_create(ctx, NULL, &plan), CLSCAN_NULL_ARGUMENT);
  assert_int_equal(clscan_sort_plan_create(ctx, &d, NULL), CLSCAN_NULL_ARGUMENT);
  clscan_sort_desc b = d;
  b.key_type = CLSCAN_USER_TYPE;
  bad_desc(&b, CLSCAN_INVALID_TYPE);
  b.key_type = (clscan_type)77;
  bad_desc(&b, CLSCAN_INVALID_TYPE);
  b = d;
  b.value_size = CLSCAN_SORT_MAX_VALUE_SIZE + 1;
  bad_desc(&b, CLSCAN_INVALID_VALUE);
  b = d;
  b.begin_bit = 8;
  b.end_bit = 8;
  bad_desc(&b, CLSCAN_INVALID_VALUE);
  b.begin_bit = 0;
  b.end_bit = 33;
  bad_desc(&b, CLSCAN_INVALID_VALUE);
  b.begin_bit = 5;
  b.end_bit = 0;
  bad_desc(&b, CLSCAN_INVALID_VALUE);
  b = d;
  b.algorithm = (clscan_sort_algorithm)CLSCAN_SORT_ALGORITHM_COUNT;
  bad_desc(&b, CLSCAN_INVALID_ALGORITHM);
  b.algorithm = (clscan_sort_algorithm)-1;
  bad_desc(&b, CLSCAN_INVALID_ALGORITHM);

  // Requests.
  assert_int_equal(clscan_sort_plan_create(ctx, &d, &plan), CLSCAN_SUCCESS);
  const size_t n = 1000;
  uint32_t img[1000], back[1000];
  for (size_t i = 0; i < n; i++)
    img[i] = (uint32_t)(n - i);
  cl_mem k = tu_buffer(ctx, CL_MEM_READ_WRITE, n * 4), v = tu_buffer(ctx, CL_MEM_READ_WRITE, n * 4);
  cl_mem ro = tu_buffer(ctx, CL_MEM_READ_ONLY, n * 4);
  assert_true(tu_write(ctx, NULL, k, 0, n * 4, img));
  assert_true(tu_write(ctx, NULL, v, 0, n * 4, img));
  cl_event ev = NULL;
  assert_int_equal(clscan_sort_enqueue(NULL, NULL, k, 0, v, 0, n, 0, NULL, &ev),
                   CLSCAN_NULL_ARGUMENT);
  assert_int_equal(clscan_sort_enqueue(plan, NULL, NULL, 0, v, 0, n, 0, NULL, &ev),
                   CLSCAN_NULL_ARGUMENT);
  assert_int_equal(clscan_sort_enqueue(plan, NULL, k, 0, NULL, 0, n, 0, NULL, &ev),
                   CLSCAN_NULL_ARGUMENT);
  assert_int_equal(clscan_sort_enqueue(plan, NULL, k, 1, v, 0, n, 0, NULL, &ev),
                   CLSCAN_BUFFER_TOO_SMALL);
  assert_int_equal(clscan_sort_enqueue(plan, NULL, k, 0, v, 1, n, 0, NULL, &ev),
                   CLSCAN_BUFFER_TOO_SMALL);
  assert_int_equal(clscan_sort_enqueue(plan, NULL, k, SIZE_MAX, v, 0, n, 0, NULL, &ev),
                   CLSCAN_SIZE_OVERFLOW);
  assert_int_equal(
      clscan_sort_enqueue(plan, NULL, k, 0, v, 0, (size_t)UINT32_MAX + 1, 0, NULL, &ev),
      CLSCAN_SIZE_OVERFLOW);
  assert_int_equal(clscan_sort_enqueue(plan, NULL, ro, 0, v, 0, n, 0, NULL, &ev),
                   CLSCAN_INVALID_BUFFER);
  assert_int_equal(clscan_sort_enqueue(plan, NULL, k, 0, k, 499, 500, 0, NULL, &ev),
                   CLSCAN_OVERLAP);
  // Keys and values in two sub-buffers of one buffer: refused where the sub-buffers overlap (OpenCL
  // leaves that undefined, even for disjoint ranges), taken where they do not.
  const size_t align = tu_sub_buffer_align(ctx, 64), sub_n = align / 4 + 4;
  cl_mem parent = tu_buffer(ctx, CL_MEM_READ_WRITE, 4 * align);
  assert_non_null(parent);
  cl_mem s1 = tu_sub_buffer(parent, 0, 2 * align), s2 = tu_sub_buffer(parent, align, 2 * align);
  assert_non_null(s1);
  assert_non_null(s2);
  assert_int_equal(clscan_sort_enqueue(plan, NULL, s1, 0, s2, 0, sub_n, 0, NULL, &ev),
                   CLSCAN_OVERLAP);
  assert_int_equal(clscan_sort_enqueue(plan, NULL, parent, align / 4, s2, 3, 4, 0, NULL, &ev),
                   CLSCAN_OVERLAP);
  assert_int_equal(clscan_sort_enqueue(plan, NULL, s1, 0, s2, 0, align / 4, 0, NULL, &ev),
                   CLSCAN_OVERLAP);
  assert_null(ev);
  cl_mem s3 = tu_sub_buffer(parent, 2 * align, 2 * align);
  assert_non_null(s3);
  // m reversed keys with their indices, in sub-buffers of 2 * align >= 128 bytes each.
  uint32_t sub_keys[64], sub_vals[64];
  const uint32_t m = align / 2 < 64 ? (uint32_t)(align / 2) : 64;
  for (uint32_t i = 0; i < m; i++) {
    sub_keys[i] = m - 1 - i;
    sub_vals[i] = i;
  }
  assert_true(tu_write(ctx, NULL, s1, 0, m * 4, sub_keys));
  assert_true(tu_write(ctx, NULL, s3, 0, m * 4, sub_vals));
  assert_int_equal(clscan_sort_enqueue(plan, NULL, s1, 0, s3, 0, m, 0, NULL, &ev), CLSCAN_SUCCESS);
  assert_int_equal(clWaitForEvents(1, &ev), CL_SUCCESS);
  clReleaseEvent(ev);
  ev = NULL;
  assert_true(tu_read(ctx, NULL, s1, 0, m * 4, sub_keys));
  assert_true(tu_read(ctx, NULL, s3, 0, m * 4, sub_vals));
  for (uint32_t i = 0; i < m; i++) {
    assert_int_equal(sub_keys[i], i);
    assert_int_equal(sub_vals[i], m - 1 - i);
  }
  clReleaseMemObject(s1);
  clReleaseMemObject(s2);
  clReleaseMemObject(s3);
  clReleaseMemObject(parent);
  assert_int_equal(clscan_sort_enqueue(plan, NULL, k, 0, v, 0, n, 1, NULL, &ev),
                   CLSCAN_INVALID_WAIT_LIST);
  cl_event some = clCreateUserEvent(clscan_context_cl_context(ctx), NULL);
  assert_int_equal(clscan_sort_enqueue(plan, NULL, k, 0, v, 0, n, 0, &some, &ev),
                   CLSCAN_INVALID_WAIT_LIST);
  clSetUserEventStatus(some, CL_COMPLETE);
  clReleaseEvent(some);
  cl_context other_ctx =
      clCreateContext(NULL, 1, (cl_device_id[]){clscan_context_device(ctx)}, NULL, NULL, NULL);
  cl_command_queue other_q = clCreateCommandQueue(other_ctx, clscan_context_device(ctx), 0, NULL);
  assert_int_equal(clscan_sort_enqueue(plan, other_q, k, 0, v, 0, n, 0, NULL, &ev),
                   CLSCAN_INVALID_QUEUE);
  clReleaseCommandQueue(other_q);
  clReleaseContext(other_ctx);
  assert_null(ev);
  // A values buffer without value_size.
  clscan_sort_plan *keys_only = NULL;
  d.value_size = 0;
  assert_int_equal(clscan_sort_plan_create(ctx, &d, &keys_only), CLSCAN_SUCCESS);
  assert_int_equal(clscan_sort_enqueue(keys_only, NULL, k, 0, v, 0, n, 0, NULL, &ev),
                   CLSCAN_INVALID_VALUE);
  clscan_sort_plan_release(keys_only);
  // Untouched.
  assert_true(tu_read(ctx, NULL, k, 0, n * 4, back));
  assert_memory_equal(back, img, sizeof img);
  assert_true(tu_read(ctx, NULL, v, 0, n * 4, back));
  assert_memory_equal(back, img, sizeof img);
  // Host arrays.
  d.value_size = 4;
  memcpy(back, img, sizeof img);
  assert_int_equal(clscan_sort_host(NULL, &d, back, back, n), CLSCAN_NULL_ARGUMENT);
  assert_int_equal(clscan_sort_host(ctx, NULL, back, back, n), CLSCAN_NULL_ARGUMENT);
  assert_int_equal(clscan_sort_host(ctx, &d, NULL, back, n), CLSCAN_NULL_ARGUMENT);
  assert_int_equal(clscan_sort_host(ctx, &d, back, NULL, n), CLSCAN_NULL_ARGUMENT);
  d.value_size = 0;
  assert_int_equal(clscan_sort_host(ctx, &d, back, back, n), CLSCAN_INVALID_VALUE);
  d.end_bit = 40;
  assert_int_equal(clscan_sort_host(ctx, &d, back, NULL, n), CLSCAN_INVALID_VALUE);
  assert_memory_equal(back, img, sizeof img);
  clReleaseMemObject(k);
  clReleaseMemObject(v);
  clReleaseMemObject(ro);
  clscan_sort_plan_release(plan);
}
