/*
 * The clscan program's measurements, shared by `bench` and `tune`: benchmark buffers, verified
 * and profiled timing of a plan, timing of a device copy and of the sequential host loop.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "ref_scan.h"

/* Timed runs of the sequential host loop (its median is reported). */
#define HOST_RUNS 5

/* ============================================================================================== */
/* Small helpers                                                                                  */
/* ============================================================================================== */

static int compare_doubles(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

double cli_median(double *values, size_t count) {
  if (count == 0)
    return 0;
  qsort(values, count, sizeof *values, compare_doubles);
  return count % 2 ? values[count / 2] : (values[count / 2 - 1] + values[count / 2]) / 2;
}

double cli_gbps(size_t n, size_t elem, double ms) {
  return ms > 0 ? 2.0 * (double)n * (double)elem / (ms * 1e6) : 0;
}

int cli_max_log2_for_device(cl_device_id device, size_t elem) {
  cl_ulong quarter = cli_device_ulong(device, CL_DEVICE_GLOBAL_MEM_SIZE) / 4;
  cl_ulong max_alloc = cli_device_ulong(device, CL_DEVICE_MAX_MEM_ALLOC_SIZE);
  int k = 40;
  // Input, output and the copy destination, each one allocation.
  while (k > 0 && (3 * ((cl_ulong)elem << k) > quarter || ((cl_ulong)elem << k) > max_alloc))
    k--;
  return k;
}

/* Returns the milliseconds between a command's start and another's end (profiling). */
static int event_ms(cl_event first, cl_event last, double *ms) {
  cl_ulong start = 0, end = 0;
  if (clGetEventProfilingInfo(first, CL_PROFILING_COMMAND_START, sizeof start, &start, NULL) !=
          CL_SUCCESS ||
      clGetEventProfilingInfo(last, CL_PROFILING_COMMAND_END, sizeof end, &end, NULL) != CL_SUCCESS)
    return 0;
  *ms = end > start ? (double)(end - start) * 1e-6 : 0;
  return 1;
}

/* ============================================================================================== */
/* Benchmark data                                                                                 */
/* ============================================================================================== */

/* Creates a device buffer, optionally initialised from host memory; prints failures. */
static cl_mem new_buffer(clscan_context *ctx, size_t bytes, void *host, const char *what) {
  cl_int err;
  cl_mem_flags flags = CL_MEM_READ_WRITE | (host ? CL_MEM_COPY_HOST_PTR : 0);
  cl_mem buf = clCreateBuffer(clscan_context_cl_context(ctx), flags, bytes, host, &err);
  if (err != CL_SUCCESS) {
    cli_error("cannot allocate the %s buffer of %zu bytes: clCreateBuffer returned %d", what, bytes,
              (int)err);
    return NULL;
  }
  return buf;
}

int cli_bench_data_init(cli_bench_data *d, clscan_context *ctx, clscan_type type, size_t n,
                        uint64_t seed) {
  memset(d, 0, sizeof *d);
  d->ctx = ctx;
  d->type = type;
  d->n = n;
  d->bytes = n * clscan_type_size(type);
  d->host_in = malloc(d->bytes);
  d->host_out = malloc(d->bytes);
  if (!d->host_in || !d->host_out) {
    cli_error("out of host memory for %zu elements", n);
    return 0;
  }
  clscan_ref_fill(type, CLSCAN_ADD, seed, d->host_in, n);
  d->in = new_buffer(ctx, d->bytes, d->host_in, "input");
  if (d->in)
    d->out = new_buffer(ctx, d->bytes, NULL, "output");
  if (d->out)
    d->copy = new_buffer(ctx, d->bytes, NULL, "copy");
  return d->copy != NULL;
}

void cli_bench_data_free(cli_bench_data *d) {
  if (d->in)
    clReleaseMemObject(d->in);
  if (d->out)
    clReleaseMemObject(d->out);
  if (d->copy)
    clReleaseMemObject(d->copy);
  free(d->host_in);
  free(d->host_out);
  memset(d, 0, sizeof *d);
}

/* ============================================================================================== */
/* Timing a plan                                                                                  */
/* ============================================================================================== */

/* Reads the output back and checks it against the host reference. */
static cli_timing verify(const clscan_scan_desc *desc, cli_bench_data *d, const char *label,
                         const char *when) {
  cl_command_queue q = clscan_context_queue(d->ctx);
  cl_int err = clEnqueueReadBuffer(q, d->out, CL_TRUE, 0, d->bytes, d->host_out, 0, NULL, NULL);
  if (err != CL_SUCCESS) {
    cli_error("%s: reading the result back failed: clEnqueueReadBuffer returned %d", label,
              (int)err);
    return CLI_FAILED;
  }
  clscan_ref_mismatch m;
  if (clscan_ref_check(desc, d->host_in, d->host_out, d->n, &m))
    return CLI_TIMED;
  cli_error("%s: WRONG RESULT %s: %s", label, when, m.detail);
  return CLI_WRONG;
}

/* Enqueues one scan, optionally timing it; waits for it. */
static cli_timing run_once(clscan_plan *plan, cli_bench_data *d, const char *label, double *ms) {
  cl_event first = NULL, done = NULL;
  clscan_status st = clscan_plan_enqueue_timed(plan, NULL, d->in, 0, d->out, 0, d->n, 0, NULL,
                                               ms ? &first : NULL, &done);
  if (st != CLSCAN_SUCCESS) {
    cli_lib_error(st, "%s: enqueue failed", label);
    return CLI_FAILED;
  }
  int ok = clWaitForEvents(1, &done) == CL_SUCCESS && (!ms || event_ms(first, done, ms));
  if (first)
    clReleaseEvent(first);
  clReleaseEvent(done);
  if (!ok)
    cli_error("%s: waiting for the scan or reading its profiling times failed", label);
  return ok ? CLI_TIMED : CLI_FAILED;
}

/* Runs the scan over a poisoned output and verifies it. */
static cli_timing first_run(clscan_plan *plan, const clscan_scan_desc *desc, cli_bench_data *d,
                            const char *label) {
  // A poisoned output makes a scan that writes nothing fail, even after another algorithm.
  const unsigned char poison = 0x5a;
  cl_command_queue q = clscan_context_queue(d->ctx);
  if (clEnqueueFillBuffer(q, d->out, &poison, 1, 0, d->bytes, 0, NULL, NULL) != CL_SUCCESS ||
      clFinish(q) != CL_SUCCESS) {
    cli_error("%s: clearing the output buffer failed", label);
    return CLI_FAILED;
  }
  cli_timing t = run_once(plan, d, label, NULL);
  return t == CLI_TIMED ? verify(desc, d, label, "before timing") : t;
}

cli_timing cli_time_plan(clscan_plan *plan, const clscan_scan_desc *desc, cli_bench_data *d,
                         int reps, const char *label, double *ms) {
  cli_timing t = first_run(plan, desc, d, label);
  for (int i = 0; i < CLI_WARMUPS && t == CLI_TIMED; i++)
    t = run_once(plan, d, label, NULL);
  if (t != CLI_TIMED)
    return t;
  double *times = malloc((size_t)reps * sizeof *times);
  if (!times) {
    cli_error("out of host memory");
    return CLI_FAILED;
  }
  for (int i = 0; i < reps && t == CLI_TIMED; i++)
    t = run_once(plan, d, label, &times[i]);
  // The last timed run's output is checked too: a time is only reported for right results.
  if (t == CLI_TIMED)
    t = verify(desc, d, label, "after timing");
  if (t == CLI_TIMED)
    *ms = cli_median(times, (size_t)reps);
  free(times);
  return t;
}

int cli_time_copy(cli_bench_data *d, int reps, double *ms) {
  cl_command_queue q = clscan_context_queue(d->ctx);
  double *times = malloc((size_t)reps * sizeof *times);
  int ok = times != NULL;
  for (int i = 0; ok && i < CLI_WARMUPS + reps; i++) {
    cl_event ev;
    ok = clEnqueueCopyBuffer(q, d->in, d->copy, 0, 0, d->bytes, 0, NULL, &ev) == CL_SUCCESS;
    if (!ok)
      break;
    double t = 0;
    ok = clWaitForEvents(1, &ev) == CL_SUCCESS && event_ms(ev, ev, &t);
    if (i >= CLI_WARMUPS)
      times[i - CLI_WARMUPS] = t;
    clReleaseEvent(ev);
  }
  if (ok)
    *ms = cli_median(times, (size_t)reps);
  else
    cli_error("timing clEnqueueCopyBuffer of %zu bytes failed", d->bytes);
  free(times);
  return ok;
}

/* ============================================================================================== */
/* The sequential host loop                                                                       */
/* ============================================================================================== */

/* Exclusive sums in plain C, one per element width (integers wrap, as on the device). */
#define HOST_SCAN(T, NAME)                                \
  static void NAME(const void *in, void *out, size_t n) { \
    const T *x = in;                                      \
    T *y = out, acc = 0;                                  \
    for (size_t i = 0; i < n; i++) {                      \
      T v = x[i];                                         \
      y[i] = acc;                                         \
      acc = (T)(acc + v);                                 \
    }                                                     \
  }
HOST_SCAN(uint8_t, host_scan_u8)
HOST_SCAN(uint16_t, host_scan_u16)
HOST_SCAN(uint32_t, host_scan_u32)
HOST_SCAN(uint64_t, host_scan_u64)
HOST_SCAN(float, host_scan_float)
HOST_SCAN(double, host_scan_double)

/* Keeps the host loop's results observable, so that the compiler cannot drop the loop. */
static volatile unsigned char host_sink;

/* Returns the host loop for a type: floating types add as such, integers by their width. */
static void (*host_scan_for(clscan_type type))(const void *, void *, size_t) {
  if (type == CLSCAN_FLOAT)
    return host_scan_float;
  if (type == CLSCAN_DOUBLE)
    return host_scan_double;
  switch (clscan_type_size(type)) {
    case 1:
      return host_scan_u8;
    case 2:
      return host_scan_u16;
    case 4:
      return host_scan_u32;
    default:
      return host_scan_u64;
  }
}

double cli_time_host_loop(const cli_bench_data *d) {
  void (*scan)(const void *, void *, size_t) = host_scan_for(d->type);
  double times[HOST_RUNS];
  for (int r = 0; r < HOST_RUNS; r++) {
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    scan(d->host_in, d->host_out, d->n);
    clock_gettime(CLOCK_MONOTONIC, &b);
    host_sink ^= ((unsigned char *)d->host_out)[d->bytes - 1];
    times[r] = (double)(b.tv_sec - a.tv_sec) * 1e3 + (double)(b.tv_nsec - a.tv_nsec) * 1e-6;
  }
  return cli_median(times, HOST_RUNS);
}
