/*
 * clscan tools: launch_latency, where the fixed cost of one small call goes: the driver's time to
 * submit a kernel against clscan's own host time, and what a marker enqueued before a call adds
 * to its measured time.
 *
 *   build/launch_latency [LOG2N [REPS]]       (defaults 12 and 200)
 *
 * On the default device (CLSCAN_DEVICE picks another) it times, REPS times after five warm-ups,
 * and prints the medians in microseconds of:
 * - a one-work-group kernel of its own (it adds 1 to a word): its duration from its profiling
 *   event, the host time clEnqueueNDRangeKernel takes to return, and the time from a marker
 *   enqueued just before it to its end;
 * - the int32 sum (clscan_plan_enqueue_reduce_timed) of 2^LOG2N small integers: the host time of
 *   the call, its time from its first command's start to its end, and from a marker enqueued just
 *   before it to its end.
 * On an idle queue a marker's start is taken at once, while the kernel behind it starts only
 * after the host has submitted it, so the difference between the last two is about the host time
 * of the submission. The word the kernel counts must equal the launches and each sum the host's,
 * else nothing is printed and the exit status is 1 (2 for bad arguments or a failed call). Where
 * the device's profiling events do not measure (rusticl), it checks the results, says so and
 * prints no times.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clscan.h"
#include "measure.h"

/* The rows, in printing order. */
enum { K_DURATION, K_ENQUEUE, K_MARKER, R_CALL, R_FIRST, R_MARKER, ROWS };

static const char *const row_names[ROWS] = {
    "kernel of one work-group: its duration",       "kernel: host time of clEnqueueNDRangeKernel",
    "kernel: from a marker before it to its end",   "reduction: host time of the call",
    "reduction: from its first command to its end", "reduction: from a marker before it to its end",
};

/* What one run needs. */
typedef struct bench {
  clscan_context *ctx;
  cl_command_queue q;
  cl_kernel k;
  clscan_plan *plan;
  cl_mem in, out, word;
  size_t n;
  int32_t sum;
} bench;

static const char *const source =
    "__kernel void bump(__global uint *w) { if (get_global_id(0) == 0) w[0] += 1u; }";

/* Builds the kernel, the plan and the buffers; returns 0 after a message on failure. */
static int setup(bench *b, int log2n) {
  if (clscan_context_create_default(&b->ctx) != CLSCAN_SUCCESS) {
    fprintf(stderr, "launch_latency: no context: %s\n", clscan_last_error_detail());
    return 0;
  }
  cl_context cl = clscan_context_cl_context(b->ctx);
  cl_device_id dev = clscan_context_device(b->ctx);
  b->q = clscan_context_queue(b->ctx);
  b->n = (size_t)1 << log2n;
  int32_t *host = malloc(b->n * sizeof *host);
  if (!host)
    return 0;
  uint32_t x = 12345u; /* a fixed sequence of integers from -7 to 7 */
  for (size_t i = 0; i < b->n; i++) {
    x = x * 1664525u + 1013904223u;
    host[i] = (int32_t)(x >> 28) - 7;
    b->sum += host[i];
  }
  cl_int err;
  const cl_uint zero = 0;
  b->in =
      clCreateBuffer(cl, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, b->n * sizeof *host, host, &err);
  free(host);
  unsigned char poison[64]; /* no sum of the input: a reduction that writes nothing is caught */
  memset(poison, 0xA5, sizeof poison);
  b->out = err == CL_SUCCESS ? clCreateBuffer(cl, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                                              sizeof poison, poison, &err)
                             : NULL;
  b->word = err == CL_SUCCESS ? clCreateBuffer(cl, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                                               sizeof zero, (void *)&zero, &err)
                              : NULL;
  const char *src = source;
  cl_program p = err == CL_SUCCESS ? clCreateProgramWithSource(cl, 1, &src, NULL, &err) : NULL;
  if (err == CL_SUCCESS)
    err = clBuildProgram(p, 1, &dev, "", NULL, NULL);
  b->k = err == CL_SUCCESS ? clCreateKernel(p, "bump", &err) : NULL;
  if (p)
    clReleaseProgram(p);
  if (err == CL_SUCCESS)
    err = clSetKernelArg(b->k, 0, sizeof b->word, &b->word);
  if (err != CL_SUCCESS) {
    fprintf(stderr, "launch_latency: OpenCL setup failed (%d)\n", (int)err);
    return 0;
  }
  const clscan_scan_desc d = {.type = CLSCAN_INT32, .op = CLSCAN_ADD};
  if (clscan_plan_create(b->ctx, &d, &b->plan) != CLSCAN_SUCCESS) {
    fprintf(stderr, "launch_latency: plan: %s\n", clscan_last_error_detail());
    return 0;
  }
  return 1;
}

/* Times the kernel once into t[K_*]; returns 0 if a call fails. */
static int time_kernel(const bench *b, double t[ROWS]) {
  const size_t one = 64;
  cl_event marker = NULL, ev = NULL, alone = NULL;
  int ok = clEnqueueNDRangeKernel(b->q, b->k, 1, NULL, &one, &one, 0, NULL, &alone) == CL_SUCCESS &&
           clWaitForEvents(1, &alone) == CL_SUCCESS &&
           measure_event_ms(alone, alone, &t[K_DURATION]);
  ok = ok && clEnqueueMarkerWithWaitList(b->q, 0, NULL, &marker) == CL_SUCCESS;
  const double start = measure_host_ms();
  ok = ok && clEnqueueNDRangeKernel(b->q, b->k, 1, NULL, &one, &one, 0, NULL, &ev) == CL_SUCCESS;
  t[K_ENQUEUE] = measure_host_ms() - start;
  ok = ok && clWaitForEvents(1, &ev) == CL_SUCCESS && measure_event_ms(marker, ev, &t[K_MARKER]);
  cl_event all[] = {alone, marker, ev};
  for (int i = 0; i < 3; i++) {
    if (all[i])
      clReleaseEvent(all[i]);
  }
  return ok;
}

/* Times the reduction once into t[R_*] and checks its sum; returns 0 (wrong: *wrong = 1) or 1. */
static int time_reduce(const bench *b, double t[ROWS], int *wrong) {
  cl_event marker = NULL, first = NULL, done = NULL;
  int ok = clEnqueueMarkerWithWaitList(b->q, 0, NULL, &marker) == CL_SUCCESS;
  const double start = measure_host_ms();
  ok = ok && clscan_plan_enqueue_reduce_timed(b->plan, b->q, b->in, 0, b->out, 0, b->n, 0, NULL,
                                              &first, &done) == CLSCAN_SUCCESS;
  t[R_CALL] = measure_host_ms() - start;
  ok = ok && clWaitForEvents(1, &done) == CL_SUCCESS &&
       measure_event_ms(first, done, &t[R_FIRST]) && measure_event_ms(marker, done, &t[R_MARKER]);
  int32_t got = 0;
  ok = ok &&
       clEnqueueReadBuffer(b->q, b->out, CL_TRUE, 0, sizeof got, &got, 0, NULL, NULL) == CL_SUCCESS;
  if (ok && got != b->sum) {
    *wrong = 1;
    ok = 0;
  }
  cl_event all[] = {marker, first, done};
  for (int i = 0; i < 3; i++) {
    if (all[i])
      clReleaseEvent(all[i]);
  }
  return ok;
}

/* The kernel's word must count every launch (two per run). */
static int word_right(const bench *b, unsigned launches) {
  cl_uint got = 0;
  return clEnqueueReadBuffer(b->q, b->word, CL_TRUE, 0, sizeof got, &got, 0, NULL, NULL) ==
             CL_SUCCESS &&
         got == launches;
}

int main(int argc, char **argv) {
  const int log2n = argc > 1 ? atoi(argv[1]) : 12, reps = argc > 2 ? atoi(argv[2]) : 200;
  if (argc > 3 || log2n < 1 || log2n > 30 || reps < 1 || reps > 100000) {
    fprintf(stderr, "usage: launch_latency [LOG2N (1..30) [REPS (1..100000)]]\n");
    return 2;
  }
  bench b = {0};
  if (!setup(&b, log2n))
    return 2;
  double *t = malloc(sizeof(double) * ROWS * (size_t)reps);
  int wrong = 0, ok = t != NULL;
  const int warmups = 5;
  for (int r = 0; ok && r < warmups + reps; r++) {
    double row[ROWS];
    ok = time_kernel(&b, row) && time_reduce(&b, row, &wrong);
    for (int i = 0; ok && r >= warmups && i < ROWS; i++)
      t[i * reps + (r - warmups)] = row[i];
  }
  if (ok && !word_right(&b, 2u * (unsigned)(warmups + reps)))
    wrong = 1;
  if (!ok || wrong) {
    fprintf(stderr, "launch_latency: %s\n",
            wrong ? "WRONG result: a sum or the kernel's count differs" : "an OpenCL call failed");
    return wrong ? 1 : 2;
  }
  char device[256] = "?";
  clGetDeviceInfo(clscan_context_device(b.ctx), CL_DEVICE_NAME, sizeof device, device, NULL);
  if (!measure_events_usable(b.q, b.in, b.out, 64, NULL, NULL)) {
    printf(
        "launch_latency on %s: its profiling events do not measure; the sums and launches "
        "were checked, nothing is timed\n",
        device);
    free(t);
    return 0;
  }
  printf("launch_latency on %s, reduction of 2^%d int32, median of %d (us)\n", device, log2n, reps);
  for (int i = 0; i < ROWS; i++)
    printf("%-48s %10.2f\n", row_names[i], 1000.0 * measure_median(t + i * reps, (size_t)reps));
  free(t);
  return 0;
}
