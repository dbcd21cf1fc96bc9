/*
 * clscan tests: the fixture of the error tests (see errors_fixture.h).
 */
#include "errors_fixture.h"

#include <stdio.h>
#include <string.h>

cl_mem g_in, g_out;
const int untouched[4] = {9, 9, 9, 9};
clscan_scan_desc g_desc = {.type = CLSCAN_INT32, .op = CLSCAN_ADD};
const char *const entry_names[VIA_COUNT] = {"clscan_scan", "clscan_plan_enqueue",
                                            "clscan_plan_enqueue_timed"};

int ef_setup(void **state) {
  if (tu_group_setup(state) != 0)
    return -1;
  g_in = tu_buffer(tu_context(), CL_MEM_READ_WRITE, BYTES);
  g_out = tu_buffer(tu_context(), CL_MEM_READ_WRITE, BYTES);
  int32_t data[N];
  for (int i = 0; i < N; i++)
    data[i] = i;
  return g_in && g_out && tu_write(tu_context(), NULL, g_in, 0, BYTES, data) ? 0 : -1;
}

int ef_teardown(void **state) {
  if (g_in)
    clReleaseMemObject(g_in);
  if (g_out)
    clReleaseMemObject(g_out);
  return tu_group_teardown(state);
}

void ef_snapshot(cl_mem buf, size_t bytes, unsigned char *copy) {
  for (size_t i = 0; i < bytes; i++)
    copy[i] = (unsigned char)(i * 7 + 3);
  assert_true(tu_write(tu_context(), NULL, buf, 0, bytes, copy));
}

void ef_check_failure(const char *call, int line, clscan_status got, clscan_status want, cl_mem buf,
                      const unsigned char *before, size_t bytes) {
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

clscan_status enqueue_via(entry via, clscan_plan *plan, const clscan_scan_desc *desc,
                          cl_command_queue q, cl_mem in, size_t in_off, cl_mem out, size_t out_off,
                          size_t n, cl_uint num_wait, const cl_event *wait) {
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
clscan_plan *fixture_plan(void) {
  clscan_plan *plan = NULL;
  assert_int_equal(clscan_plan_create(tu_context(), &g_desc, &plan), CLSCAN_SUCCESS);
  return plan;
}

/*
 * The count is asked first: a device of many compute units (POCL on 16 cores) makes more
 * sub-devices than a fixed array would hold, and a conformant driver then refuses the whole call.
 * A device that reports no partitioning is not asked: Mesa 22.3's rusticl has no
 * clCreateSubDevices entry point, so the ICD loader calls a null pointer
 * (tests/rusticl/sub_devices.c, docs/testing.md).
 */
cl_device_id first_sub_device(cl_device_id dev) {
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
