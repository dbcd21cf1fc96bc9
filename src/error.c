/*
 * clscan: status strings (generated from CLSCAN_STATUS_MAP) and the per-thread error detail.
 */
#include <stdarg.h>
#include <stdio.h>

#include "internal.h"

/* The calling thread's last error detail. */
static _Thread_local char last_detail[512];

const char *clscan_status_string(clscan_status s) {
  switch (s) {
#define CLSCAN_STATUS_CASE_(name, value, text) \
  case CLSCAN_##name:                          \
    return text;
    CLSCAN_STATUS_MAP(CLSCAN_STATUS_CASE_)
#undef CLSCAN_STATUS_CASE_
  }
  return "unknown status";
}

const char *clscan_last_error_detail(void) {
  return last_detail;
}

void clscan__clear_error(void) {
  last_detail[0] = '\0';
}

void clscan__begin_call(cl_event *first, cl_event *done) {
  clscan__clear_error();
  if (first)
    *first = NULL;
  if (done)
    *done = NULL;
}

clscan_status clscan__fail(clscan_status status, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(last_detail, sizeof last_detail, fmt, ap);
  va_end(ap);
  return status;
}

const char *clscan__cl_error_name(cl_int err) {
  switch (err) {
#define CL_NAME_(e) \
  case e:           \
    return #e;
    CL_NAME_(CL_SUCCESS)
    CL_NAME_(CL_DEVICE_NOT_FOUND)
    CL_NAME_(CL_DEVICE_NOT_AVAILABLE)
    CL_NAME_(CL_COMPILER_NOT_AVAILABLE)
    CL_NAME_(CL_MEM_OBJECT_ALLOCATION_FAILURE)
    CL_NAME_(CL_OUT_OF_RESOURCES)
    CL_NAME_(CL_OUT_OF_HOST_MEMORY)
    CL_NAME_(CL_PROFILING_INFO_NOT_AVAILABLE)
    CL_NAME_(CL_BUILD_PROGRAM_FAILURE)
    CL_NAME_(CL_MISALIGNED_SUB_BUFFER_OFFSET)
    CL_NAME_(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
    CL_NAME_(CL_INVALID_VALUE)
    CL_NAME_(CL_INVALID_DEVICE)
    CL_NAME_(CL_INVALID_CONTEXT)
    CL_NAME_(CL_INVALID_COMMAND_QUEUE)
    CL_NAME_(CL_INVALID_MEM_OBJECT)
    CL_NAME_(CL_INVALID_BUILD_OPTIONS)
    CL_NAME_(CL_INVALID_PROGRAM)
    CL_NAME_(CL_INVALID_PROGRAM_EXECUTABLE)
    CL_NAME_(CL_INVALID_KERNEL_NAME)
    CL_NAME_(CL_INVALID_KERNEL)
    CL_NAME_(CL_INVALID_ARG_INDEX)
    CL_NAME_(CL_INVALID_ARG_VALUE)
    CL_NAME_(CL_INVALID_ARG_SIZE)
    CL_NAME_(CL_INVALID_KERNEL_ARGS)
    CL_NAME_(CL_INVALID_WORK_DIMENSION)
    CL_NAME_(CL_INVALID_WORK_GROUP_SIZE)
    CL_NAME_(CL_INVALID_WORK_ITEM_SIZE)
    CL_NAME_(CL_INVALID_GLOBAL_OFFSET)
    CL_NAME_(CL_INVALID_EVENT_WAIT_LIST)
    CL_NAME_(CL_INVALID_EVENT)
    CL_NAME_(CL_INVALID_OPERATION)
    CL_NAME_(CL_INVALID_BUFFER_SIZE)
    CL_NAME_(CL_INVALID_GLOBAL_WORK_SIZE)
    CL_NAME_(CL_INVALID_PLATFORM)
#undef CL_NAME_
    default:
      return "unknown OpenCL error";
  }
}

clscan_status clscan__cl_fail(cl_int err, const char *what) {
  clscan_status st = CLSCAN_OPENCL_ERROR;
  if (err == CL_MEM_OBJECT_ALLOCATION_FAILURE || err == CL_OUT_OF_RESOURCES ||
      err == CL_INVALID_BUFFER_SIZE) {
    st = CLSCAN_OUT_OF_DEVICE_MEMORY;
  } else if (err == CL_OUT_OF_HOST_MEMORY) {
    st = CLSCAN_OUT_OF_HOST_MEMORY;
  }
  return clscan__fail(st, "%s returned %s (%d)", what, clscan__cl_error_name(err), (int)err);
}
