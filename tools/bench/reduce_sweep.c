/*
 * clscan tools: reduce_sweep, the reduction (clscan_plan_enqueue_reduce, add) under chosen tunings
 * and build options, in one process with the rounds interleaved, for tuning and for comparing
 * kernel variants against each other and against a copy.
 *
 *   build/reduce_sweep LOG2N REPS ROUNDS TYPE:GROUPS:WG:VPT[:OPTIONS]...
 *
 * TYPE is i32, i64, f32 or f64; GROUPS the work-groups per compute unit (rts_groups_per_cu), WG
 * and VPT the tile's work-items and 16-byte vectors per work-item (tile_wg, tile_vpt), each 0 for
 * the tuning table's value; OPTIONS extra OpenCL build options (for example a kernel macro of
 * cl/reduce.cl). Each configuration gets a clscan context of its own over one OpenCL context and
 * queue, created with OPTIONS in CLSCAN_BUILD_OPTIONS, so that its programs are built with its
 * options alone. The input is 2^LOG2N small integers from -7 to 7 (a fixed pseudo-random
 * sequence), whose sums stay far below 2^24 in magnitude at any size this is for, so every order
 * of addition is exact in float too and each result is checked for equality with the host's
 * integer sum: once when the plan is built and again after each round's timing (the output is
 * poisoned before both).
 *
 * Each round times, for each configuration in turn, REPS copies of half its input's bytes
 * (clEnqueueCopyBuffer: they read and write as many bytes as the reduction reads), then the
 * reduction: two warm-ups and REPS runs, each from its first command's start to its end
 * (profiling events of clscan_plan_enqueue_reduce_timed; the host's clock around the enqueue and
 * the wait where the events do not measure, as on rusticl), and prints both medians, the ratio
 * copy / reduction, the median time from a marker enqueued just before each reduction (which
 * adds the host's launch latency: the time the driver takes to submit the kernel), and the median
 * per reduction of REPS batches of BATCH back to back, each from a marker before its first to the
 * end of its last, and from its first command's start to that end (the result checked again
 * after them). Exit status: 0
 * when every result was right, 1 when one was wrong, 2 for bad arguments or a failed OpenCL or
 * clscan call. A configuration the device refuses (f64 without fp64, say) is skipped with a line
 * that says so.
 *
 *   build/reduce_sweep 28 20 2 i32:0:0:0 i32:16:0:0 f32:0:0:0 "i32:0:0:0:-DREDUCE_FOLD_BATCH=1"
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clscan.h"
#include "measure.h"

/* An element type of the sweep. */
typedef struct elem_kind {
  const char *name;
  clscan_type type;
  size_t size;
} elem_kind;

static const elem_kind kinds[] = {{"i32", CLSCAN_INT32, 4},
                                  {"i64", CLSCAN_INT64, 8},
                                  {"f32", CLSCAN_FLOAT, 4},
                                  {"f64", CLSCAN_DOUBLE, 8}};
#define KINDS (sizeof kinds / sizeof kinds[0])

/* One configuration and its plan. */
typedef struct config {
  const char *text;
  int kind;
  clscan_tuning tuning;
  char options[256];
  clscan_context *ctx;
  clscan_plan *plan; /* NULL: skipped */
} config;

/* The shared state. */
typedef struct sweep {
  size_t n;
  int reps;
  long long sum; /* the exact sum of the input */
  clscan_context *ctx;
  cl_command_queue queue;
  cl_mem in[KINDS]; /* NULL for kinds no configuration uses */
  cl_mem out, copy;
} sweep;

/* The input's element i, from -7 to 7 (a 64-bit linear congruential sequence's high bits). */
static int input_value(uint64_t *state) {
  *state = *state * 6364136223846793005ull + 1442695040888963407ull;
  return (int)((*state >> 33) % 15) - 7;
}

/* Parses TYPE:GROUPS:WG:VPT[:OPTIONS]; returns 0 (after a message) if it is malformed. */
static int parse_config(const char *text, config *c) {
  char type[8];
  unsigned g, wg, vpt;
  int used = 0;
  c->text = text;
  if (sscanf(text, "%7[a-z0-9]:%u:%u:%u%n", type, &g, &wg, &vpt, &used) != 4 ||
      (text[used] != '\0' && text[used] != ':')) {
    fprintf(stderr, "reduce_sweep: '%s' is not TYPE:GROUPS:WG:VPT[:OPTIONS]\n", text);
    return 0;
  }
  c->kind = -1;
  for (size_t k = 0; k < KINDS; k++)
    c->kind = strcmp(type, kinds[k].name) == 0 ? (int)k : c->kind;
  if (c->kind < 0) {
    fprintf(stderr, "reduce_sweep: '%s': the type is not i32, i64, f32 or f64\n", text);
    return 0;
  }
  c->tuning = (clscan_tuning){.rts_groups_per_cu = g, .tile_wg = wg, .tile_vpt = vpt};
  snprintf(c->options, sizeof c->options, "%s", text[used] ? text + used + 1 : "");
  return 1;
}

/* Back-to-back reductions per batch: with many in the queue, the driver submits each while the
 * one before runs, so their launch latency hides. */
#define BATCH 10

/* Reduces configuration c's input `count` times back to back into s->out, after a marker; with
 * ms, stores per reduction in ms[0] the time from the first reduction's first command's start to
 * the last one's end and in ms[1] the time from the marker (so also the host's launch latency
 * where count is 1). Returns 0 after a message if a call fails. */
static int reduce_runs(sweep *s, const config *c, int count, double ms[2]) {
  cl_event marker = NULL, first = NULL, done = NULL;
  const double start = measure_host_ms();
  if (clEnqueueMarkerWithWaitList(s->queue, 0, NULL, &marker) != CL_SUCCESS) {
    printf("%-40s clEnqueueMarkerWithWaitList failed\n", c->text);
    return 0;
  }
  clscan_status st = CLSCAN_SUCCESS;
  for (int r = 0; r < count && st == CLSCAN_SUCCESS; r++) {
    if (done)
      clReleaseEvent(done);
    done = NULL;
    st = clscan_plan_enqueue_reduce_timed(c->plan, s->queue, s->in[c->kind], 0, s->out, 0, s->n,
                                          r == 0, r == 0 ? &marker : NULL, r == 0 ? &first : NULL,
                                          &done);
  }
  int ok = st == CLSCAN_SUCCESS && clWaitForEvents(1, &done) == CL_SUCCESS;
  const double wall = measure_host_ms() - start;
  ok = ok && (!ms || (measure_span_ms(first, done, wall, &ms[0]) &&
                      measure_span_ms(marker, done, wall, &ms[1])));
  if (ok && ms) {
    ms[0] /= count;
    ms[1] /= count;
  }
  if (!ok)
    printf("%-40s reduce: %s (%s)\n", c->text, clscan_status_string(st),
           st ? clscan_last_error_detail() : "waiting or profiling failed");
  clReleaseEvent(marker);
  if (first)
    clReleaseEvent(first);
  if (done)
    clReleaseEvent(done);
  return ok;
}

/* Fills s->out with 0xA5 bytes, a value no sum of the input takes, so that a check after runs
 * that wrote nothing fails. Returns 0 after a message if the fill fails. */
static int poison_out(sweep *s) {
  const cl_uchar pattern = 0xA5;
  if (clEnqueueFillBuffer(s->queue, s->out, &pattern, 1, 0, 64, 0, NULL, NULL) == CL_SUCCESS &&
      clFinish(s->queue) == CL_SUCCESS)
    return 1;
  printf("poisoning the output failed\n");
  return 0;
}

/* Returns 1 if s->out holds the exact sum (in c's type), 0 if not, -1 if it cannot be read. */
static int result_right(const sweep *s, const config *c) {
  union {
    int32_t i32;
    int64_t i64;
    float f32;
    double f64;
  } r;
  if (clEnqueueReadBuffer(s->queue, s->out, CL_TRUE, 0, kinds[c->kind].size, &r, 0, NULL, NULL) !=
      CL_SUCCESS)
    return -1;
  switch (kinds[c->kind].type) {
    case CLSCAN_INT32:
      return r.i32 == (int32_t)s->sum;
    case CLSCAN_INT64:
      return r.i64 == s->sum;
    case CLSCAN_FLOAT:
      return (double)r.f32 == (double)s->sum;
    default:
      return r.f64 == (double)s->sum;
  }
}

/* Builds configuration c's context and plan and checks one result. Returns 0 (ready or skipped),
 * 1 (wrong) or 2 (failed). */
static int prepare(sweep *s, config *c) {
  if (*c->options)
    setenv("CLSCAN_BUILD_OPTIONS", c->options, 1);
  else
    unsetenv("CLSCAN_BUILD_OPTIONS");
  clscan_scan_desc d = {.type = kinds[c->kind].type, .op = CLSCAN_ADD};
  clscan_status st = clscan_context_create(clscan_context_cl_context(s->ctx),
                                           clscan_context_device(s->ctx), &c->ctx);
  if (st == CLSCAN_SUCCESS)
    st = clscan_plan_create_tuned(c->ctx, &d, &c->tuning, &c->plan);
  if (st == CLSCAN_UNSUPPORTED_BY_DEVICE) {
    printf("%-40s skipped: %s\n", c->text, clscan_last_error_detail());
    return 0;
  }
  if (st != CLSCAN_SUCCESS) {
    printf("%-40s plan: %s (%s)\n", c->text, clscan_status_string(st), clscan_last_error_detail());
    return 2;
  }
  // The first run builds the programs, under this configuration's options.
  if (!poison_out(s) || !reduce_runs(s, c, 1, NULL))
    return 2;
  int right = result_right(s, c);
  if (right != 1)
    printf("%-40s %s\n", c->text, right ? "reading the result failed" : "WRONG result");
  return right == 1 ? 0 : right ? 2 : 1;
}

static int compare_doubles(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Times configuration c (two warm-ups, then s->reps runs) and checks the last result; prints its
 * line. times holds 2 * s->reps doubles. Returns 0, 1 (wrong) or 2 (failed). */
static int time_config(sweep *s, const config *c, double copy_ms, double *times) {
  double *from_marker = times + s->reps;
  if (!poison_out(s))
    return 2;
  for (int i = 0; i < 2 + s->reps; i++) {
    double ms[2];
    if (!reduce_runs(s, c, 1, i < 2 ? NULL : ms))
      return 2;
    if (i >= 2) {
      times[i - 2] = ms[0];
      from_marker[i - 2] = ms[1];
    }
  }
  qsort(times, (size_t)s->reps, sizeof *times, compare_doubles);
  qsort(from_marker, (size_t)s->reps, sizeof *from_marker, compare_doubles);
  const double ms = times[s->reps / 2], marker_ms = from_marker[s->reps / 2];
  int right = result_right(s, c);
  if (right != 1 || !poison_out(s))
    return right == 0 ? 1 : 2;
  for (int i = 0; i < s->reps; i++) {
    double batch[2];
    if (!reduce_runs(s, c, BATCH, batch))
      return 2;
    times[i] = batch[1];       /* from the marker, per reduction */
    from_marker[i] = batch[0]; /* from the first command, per reduction */
  }
  qsort(times, (size_t)s->reps, sizeof *times, compare_doubles);
  qsort(from_marker, (size_t)s->reps, sizeof *from_marker, compare_doubles);
  right = result_right(s, c);
  printf(
      "%-40s reduce %9.4f ms  copy %9.4f ms  copy/reduce %6.3f  from a marker %9.4f ms  "
      "in batches of %d %9.4f ms (from the first command %9.4f ms)  %s\n",
      c->text, ms, copy_ms, copy_ms / ms, marker_ms, BATCH, times[s->reps / 2],
      from_marker[s->reps / 2],
      right == 1 ? "right"
      : right    ? "unread"
                 : "WRONG");
  return right == 1 ? 0 : right ? 2 : 1;
}

/* Writes the values as n elements of type t into host. */
static void fill_input(void *host, clscan_type t, const int *values, size_t n) {
  for (size_t i = 0; i < n; i++) {
    if (t == CLSCAN_INT32)
      ((int32_t *)host)[i] = values[i];
    else if (t == CLSCAN_INT64)
      ((int64_t *)host)[i] = values[i];
    else if (t == CLSCAN_FLOAT)
      ((float *)host)[i] = (float)values[i];
    else
      ((double *)host)[i] = values[i];
  }
}

/* Creates the context, the inputs of the kinds in use, and the sum. Returns 0 or 2. */
static int setup(sweep *s, const config *configs, int count) {
  if (clscan_context_create_default(&s->ctx) != CLSCAN_SUCCESS) {
    fprintf(stderr, "reduce_sweep: no context: %s\n", clscan_last_error_detail());
    return 2;
  }
  cl_context cl = clscan_context_cl_context(s->ctx);
  s->queue = clscan_context_queue(s->ctx);
  int *values = malloc(s->n * sizeof *values);
  void *host = malloc(s->n * 8);
  if (!values || !host) {
    free(values);
    free(host);
    return 2;
  }
  uint64_t state = 20261206;
  for (size_t i = 0; i < s->n; i++) {
    values[i] = input_value(&state);
    s->sum += values[i];
  }
  cl_int err = CL_SUCCESS;
  for (int c = 0; c < count && err == CL_SUCCESS; c++) {
    const int k = configs[c].kind;
    if (s->in[k])
      continue;
    fill_input(host, kinds[k].type, values, s->n);
    s->in[k] = clCreateBuffer(cl, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, s->n * kinds[k].size,
                              host, &err);
  }
  free(values);
  free(host);
  if (err == CL_SUCCESS)
    s->out = clCreateBuffer(cl, CL_MEM_READ_WRITE, 64, NULL, &err);
  if (err == CL_SUCCESS)
    s->copy = clCreateBuffer(cl, CL_MEM_READ_WRITE, s->n * 4, NULL, &err);
  if (err != CL_SUCCESS) {
    fprintf(stderr, "reduce_sweep: clCreateBuffer failed (%d)\n", err);
    return 2;
  }
  char device[256] = "?";
  clGetDeviceInfo(clscan_context_device(s->ctx), CL_DEVICE_NAME, sizeof device, device, NULL);
  for (size_t k = 0; k < KINDS; k++) {
    if (s->in[k]) {
      const int events = measure_events_usable(s->queue, s->in[k], s->copy, s->n * 2, NULL, NULL);
      measure_use_wall_clock(!events);
      break;
    }
  }
  printf("reduce_sweep on %s, n = %zu, sum %lld, median of %d%s\n", device, s->n, s->sum, s->reps,
         measure_wall_clock() ? " (wall clock: profiling events do not measure here)" : "");
  return 0;
}

/* Runs `rounds` rounds over the configurations; returns the worst status. */
static int run_rounds(sweep *s, const config *configs, int count, int rounds) {
  double *times = malloc(2 * sizeof(double) * (size_t)s->reps);
  int worst = times ? 0 : 2;
  for (int r = 0; r < rounds && worst < 2; r++) {
    printf("round %d\n", r + 1);
    for (int c = 0; c < count && worst < 2; c++) {
      const config *cf = &configs[c];
      if (!cf->plan)
        continue;
      // A copy of half the bytes the reduction reads moves (reads plus writes) as many.
      const size_t bytes = s->n * kinds[cf->kind].size / 2;
      double copy_ms;
      if (!measure_copy_median_ms(s->queue, s->in[cf->kind], s->copy, bytes, 0, s->reps,
                                  &copy_ms)) {
        printf("timing clEnqueueCopyBuffer of %zu bytes failed\n", bytes);
        worst = 2;
        break;
      }
      const int rc = time_config(s, cf, copy_ms, times);
      worst = rc > worst ? rc : worst;
    }
  }
  free(times);
  return worst;
}

static void teardown(sweep *s, config *configs, int count) {
  for (int c = 0; c < count; c++) {
    clscan_plan_release(configs[c].plan);
    clscan_context_release(configs[c].ctx);
  }
  for (size_t k = 0; k < KINDS; k++) {
    if (s->in[k])
      clReleaseMemObject(s->in[k]);
  }
  if (s->out)
    clReleaseMemObject(s->out);
  if (s->copy)
    clReleaseMemObject(s->copy);
  clscan_context_release(s->ctx);
}

int main(int argc, char **argv) {
  sweep s = {0};
  int rounds;
  if (!measure_sweep_args(argc, argv, "reduce_sweep",
                          "LOG2N REPS ROUNDS TYPE:GROUPS:WG:VPT[:OPTIONS]...", 32, &s.n, &s.reps,
                          &rounds))
    return 2;
  const int count = argc - 4;
  config *configs = calloc((size_t)count, sizeof *configs);
  int worst = configs ? 0 : 2;
  for (int c = 0; worst == 0 && c < count; c++)
    worst = parse_config(argv[4 + c], &configs[c]) ? 0 : 2;
  if (worst == 0)
    worst = setup(&s, configs, count);
  for (int c = 0; worst < 2 && c < count; c++) {
    const int rc = prepare(&s, &configs[c]);
    worst = rc > worst ? rc : worst;
  }
  unsetenv("CLSCAN_BUILD_OPTIONS");
  if (worst < 2) {
    const int rc = run_rounds(&s, configs, count, rounds);
    worst = rc > worst ? rc : worst;
  }
  if (configs)
    teardown(&s, configs, count);
  free(configs);
  return worst;
}
