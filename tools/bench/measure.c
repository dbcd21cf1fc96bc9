/*
 * clscan tools: the shared measurement helpers (measure.h).
 */
#include "measure.h"

#include <stdlib.h>
#include <time.h>

/* Orders doubles for qsort. */
static int compare_doubles(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

double measure_median(double *values, size_t count) {
  if (count == 0)
    return 0;
  qsort(values, count, sizeof *values, compare_doubles);
  return count % 2 ? values[count / 2] : (values[count / 2 - 1] + values[count / 2]) / 2;
}

int measure_event_ms(cl_event first, cl_event last, double *ms) {
  cl_ulong start = 0, end = 0;
  if (clGetEventProfilingInfo(first, CL_PROFILING_COMMAND_START, sizeof start, &start, NULL) !=
          CL_SUCCESS ||
      clGetEventProfilingInfo(last, CL_PROFILING_COMMAND_END, sizeof end, &end, NULL) != CL_SUCCESS)
    return 0;
  *ms = end > start ? (double)(end - start) * 1e-6 : 0;
  return 1;
}

int measure_copy_ms(cl_command_queue q, cl_mem src, cl_mem dst, size_t bytes, double *ms) {
  cl_event ev;
  if (clEnqueueCopyBuffer(q, src, dst, 0, 0, bytes, 0, NULL, &ev) != CL_SUCCESS)
    return 0;
  int ok = clWaitForEvents(1, &ev) == CL_SUCCESS && measure_event_ms(ev, ev, ms);
  clReleaseEvent(ev);
  return ok;
}

double measure_host_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}
