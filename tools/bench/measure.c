/*
 * clscan tools: the shared measurement helpers (measure.h).
 */
#include "measure.h"

#include <stdio.h>
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

/* The process's clock: 0 for profiling events, 1 for the wall clock. */
static int wall_clock;

void measure_use_wall_clock(int on) {
  wall_clock = on != 0;
}

int measure_wall_clock(void) {
  return wall_clock;
}

int measure_span_ms(cl_event first, cl_event last, double wall_ms, double *ms) {
  if (wall_clock) {
    *ms = wall_ms;
    return 1;
  }
  return first && measure_event_ms(first, last, ms);
}

/* One copy, with its profiled time in *event_ms (when profiling can be read; else -1) and its
 * host time, enqueue to wait, in *wall_ms. Returns 0 if the copy fails. */
static int timed_copy(cl_command_queue q, cl_mem src, cl_mem dst, size_t bytes, double *event_ms,
                      double *wall_ms) {
  cl_event ev;
  const double start = measure_host_ms();
  if (clEnqueueCopyBuffer(q, src, dst, 0, 0, bytes, 0, NULL, &ev) != CL_SUCCESS)
    return 0;
  int ok = clWaitForEvents(1, &ev) == CL_SUCCESS;
  *wall_ms = measure_host_ms() - start;
  if (ok && !measure_event_ms(ev, ev, event_ms))
    *event_ms = -1;
  clReleaseEvent(ev);
  return ok;
}

int measure_copy_ms(cl_command_queue q, cl_mem src, cl_mem dst, size_t bytes, double *ms) {
  double event_ms, wall_ms;
  if (!timed_copy(q, src, dst, bytes, &event_ms, &wall_ms) || (!wall_clock && event_ms < 0))
    return 0;
  *ms = wall_clock ? wall_ms : event_ms;
  return 1;
}

int measure_copy_median_ms(cl_command_queue q, cl_mem src, cl_mem dst, size_t bytes, int warmups,
                           int reps, double *ms) {
  double *times = malloc((size_t)reps * sizeof *times);
  int ok = times != NULL;
  for (int i = 0; ok && i < warmups + reps; i++) {
    double t = 0;
    ok = measure_copy_ms(q, src, dst, bytes, &t);
    if (ok && i >= warmups)
      times[i - warmups] = t;
  }
  if (ok)
    *ms = measure_median(times, (size_t)reps);
  free(times);
  return ok;
}

int measure_events_usable(cl_command_queue q, cl_mem src, cl_mem dst, size_t bytes,
                          double *event_ms, double *wall_ms) {
  double e = -1, w = 0;
  const int ok = timed_copy(q, src, dst, bytes, &e, &w);
  if (event_ms)
    *event_ms = e;
  if (wall_ms)
    *wall_ms = w;
  return ok && e > 0 && e * 1000 >= w;
}

double measure_host_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

int measure_sweep_args(int argc, char **argv, const char *name, const char *usage, int max_log2,
                       size_t *n, int *reps, int *rounds) {
  const int lead = rounds ? 4 : 3;
  if (argc <= lead) {
    fprintf(stderr, "usage: %s %s\n", name, usage);
    return 0;
  }
  const int log2n = atoi(argv[1]);
  *reps = atoi(argv[2]);
  if (rounds)
    *rounds = atoi(argv[3]);
  if (log2n < 1 || log2n > max_log2 || *reps < 1 || (rounds && *rounds < 1)) {
    fprintf(stderr, "%s: LOG2N must be in [1, %d], REPS%s at least 1\n", name, max_log2,
            rounds ? " and ROUNDS" : "");
    return 0;
  }
  *n = (size_t)1 << log2n;
  return 1;
}
