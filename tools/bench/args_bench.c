/*
 * clscan developer benchmark: maps that read an extra buffer (clscan_arg), against the plain scan
 * of the same type on the same device, per byte moved.
 *
 * For each type (int32, float) it times, as the median of --reps profiled runs (first command's
 * start to last command's end):
 *   plain   the plan of a plain inclusive sum, in -> out (8 bytes per int32 element moved);
 *   map     "x * w[i]" with w an extra buffer, in, w -> out (12 bytes per element);
 *   total   the map with device init and a device total (the chained-chunk form).
 * and prints the time per byte of each relative to the plain scan's: the target is
 * map/plain per byte <= 1.10. Every result is checked against a host loop on small integers
 * (exact in float too) before timing.
 *
 * Usage: args_bench [--log2n N] [--reps R] [--algorithm auto|single-pass|reduce-then-scan]
 * (defaults 24, 10, auto); the device is CLSCAN_DEVICE's, as for every clscan program.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clscan.h"
#include "measure.h"

#define MAX_REPS 101

/* Prints a failed call and returns 1 from main's helpers. */
#define TRY(call)                                                                   \
  do {                                                                              \
    clscan_status s_ = (call);                                                      \
    if (s_ != CLSCAN_SUCCESS) {                                                     \
      fprintf(stderr, "args_bench: %s: %s (%s)\n", #call, clscan_status_string(s_), \
              clscan_last_error_detail());                                          \
      return 1;                                                                     \
    }                                                                               \
  } while (0)

/* The buffers of one type's runs. */
typedef struct bench {
  clscan_context *ctx;
  cl_command_queue q;
  cl_mem in, w, out, carry;
  size_t n;
  int reps;
  clscan_algorithm algorithm;
} bench;

/* Times reps enqueues of a plan (run NULL: the plain enqueue); median milliseconds in *ms. */
static int time_plan(const bench *b, clscan_plan *plan, const clscan_run_args *run, double *ms) {
  double t[MAX_REPS];
  for (int r = -1; r < b->reps; r++) {
    cl_event first = NULL, done = NULL;
    if (run) {
      TRY(clscan_plan_enqueue_args(plan, b->q, b->in, 0, b->out, 0, b->n, run, 0, NULL, &first,
                                   &done));
    } else {
      TRY(clscan_plan_enqueue_timed(plan, b->q, b->in, 0, b->out, 0, b->n, 0, NULL, &first, &done));
    }
    clWaitForEvents(1, &done);
    if (r >= 0 && !measure_event_ms(first, done, &t[r]))
      return 1;
    clReleaseEvent(first);
    clReleaseEvent(done);
  }
  *ms = measure_median(t, (size_t)b->reps);
  return 0;
}

/* Checks out[0, n) against the running sum of x * w (w == NULL: of x), from init. */
static int check(const bench *b, clscan_type type, const int32_t *x, const int32_t *w, int32_t init,
                 const char *what) {
  void *got = malloc(b->n * 4);
  if (!got || clEnqueueReadBuffer(b->q, b->out, CL_TRUE, 0, b->n * 4, got, 0, NULL, NULL))
    return 1;
  int64_t acc = init;
  int bad = 0;
  for (size_t i = 0; i < b->n && !bad; i++) {
    acc += (int64_t)x[i] * (w ? w[i] : 1);
    if (type == CLSCAN_INT32)
      bad = ((int32_t *)got)[i] != (int32_t)(uint32_t)acc;
    else
      bad = ((float *)got)[i] != (float)acc;
    if (bad)
      fprintf(stderr, "args_bench: %s: element %zu is wrong\n", what, i);
  }
  free(got);
  return bad;
}

/* Creates the plan of a descriptor with the bench's algorithm. */
static int plan_of(const bench *b, clscan_scan_desc d, clscan_plan **plan) {
  d.algorithm = b->algorithm;
  TRY(clscan_plan_create(b->ctx, &d, plan));
  return 0;
}

/* Runs and times the three forms for one type. */
static int run_type(bench *b, clscan_type type, const int32_t *x, const int32_t *w) {
  const clscan_arg arg = {.name = "w", .type = type};
  clscan_scan_desc plain = {.type = type},
                   mapped = {.type = type, .map_source = "x * w[i]", .args = &arg, .arg_count = 1};
  clscan_scan_desc chained = mapped;
  chained.device_init = 1;
  clscan_plan *p0, *p1, *p2;
  if (plan_of(b, plain, &p0) || plan_of(b, mapped, &p1) || plan_of(b, chained, &p2))
    return 1;
  const clscan_arg_value v = {.buffer = b->w};
  const clscan_run_args run = {.values = &v, .value_count = 1};
  const clscan_run_args run_chain = {
      .values = &v, .value_count = 1, .init = b->carry, .total = b->carry, .total_offset = 4};
  double t0, t1, t2;
  if (time_plan(b, p0, NULL, &t0) || check(b, type, x, NULL, 0, "plain") ||
      time_plan(b, p1, &run, &t1) || check(b, type, x, w, 0, "map") ||
      time_plan(b, p2, &run_chain, &t2) || check(b, type, x, w, 0, "map with device init"))
    return 1;
  double per_byte0 = t0 / (8.0 * (double)b->n), per_byte1 = t1 / (12.0 * (double)b->n);
  double per_byte2 = t2 / (12.0 * (double)b->n);
  printf(
      "%-6s n=%zu %-16s plain %8.3f ms  map %8.3f ms (%.3fx per byte)  map+total %8.3f ms "
      "(%.3fx per byte)\n",
      clscan_type_name(type), b->n, clscan_algorithm_name(clscan_plan_algorithm(p1, b->n)), t0, t1,
      per_byte1 / per_byte0, t2, per_byte2 / per_byte0);
  clscan_plan_release(p0);
  clscan_plan_release(p1);
  clscan_plan_release(p2);
  return 0;
}

/* Fills the device buffers of a type from the host values. */
static int upload(const bench *b, clscan_type type, const int32_t *x, const int32_t *w) {
  void *hx = malloc(b->n * 4), *hw = malloc(b->n * 4);
  const int32_t zero = 0;
  if (!hx || !hw)
    return 1;
  for (size_t i = 0; i < b->n; i++) {
    if (type == CLSCAN_INT32) {
      ((int32_t *)hx)[i] = x[i];
      ((int32_t *)hw)[i] = w[i];
    } else {
      ((float *)hx)[i] = (float)x[i];
      ((float *)hw)[i] = (float)w[i];
    }
  }
  int bad = clEnqueueWriteBuffer(b->q, b->in, CL_TRUE, 0, b->n * 4, hx, 0, NULL, NULL) ||
            clEnqueueWriteBuffer(b->q, b->w, CL_TRUE, 0, b->n * 4, hw, 0, NULL, NULL) ||
            clEnqueueWriteBuffer(b->q, b->carry, CL_TRUE, 0, 4, &zero, 0, NULL, NULL);
  free(hx);
  free(hw);
  return bad;
}

int main(int argc, char **argv) {
  bench b = {.reps = 10, .algorithm = CLSCAN_ALGO_AUTO};
  unsigned log2n = 24;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (strcmp(argv[i], "--log2n") == 0)
      log2n = (unsigned)atoi(argv[i + 1]);
    else if (strcmp(argv[i], "--reps") == 0)
      b.reps = atoi(argv[i + 1]);
    else if (strcmp(argv[i], "--algorithm") == 0)
      b.algorithm = strcmp(argv[i + 1], "single-pass") == 0        ? CLSCAN_ALGO_SINGLE_PASS
                    : strcmp(argv[i + 1], "reduce-then-scan") == 0 ? CLSCAN_ALGO_REDUCE_THEN_SCAN
                                                                   : CLSCAN_ALGO_AUTO;
  }
  if (log2n < 10 || log2n > 30 || b.reps < 1 || b.reps > MAX_REPS) {
    fprintf(stderr, "args_bench: --log2n 10..30, --reps 1..%d\n", MAX_REPS);
    return 2;
  }
  b.n = (size_t)1 << log2n;
  TRY(clscan_context_create_default(&b.ctx));
  b.q = clscan_context_queue(b.ctx);
  cl_context cl = clscan_context_cl_context(b.ctx);
  cl_int err;
  b.in = clCreateBuffer(cl, CL_MEM_READ_WRITE, b.n * 4, NULL, &err);
  b.w = clCreateBuffer(cl, CL_MEM_READ_ONLY, b.n * 4, NULL, &err);
  b.out = clCreateBuffer(cl, CL_MEM_READ_WRITE, b.n * 4, NULL, &err);
  b.carry = clCreateBuffer(cl, CL_MEM_READ_WRITE, 8, NULL, &err);
  int32_t *x = malloc(b.n * 4), *w = malloc(b.n * 4);
  if (!b.in || !b.w || !b.out || !b.carry || !x || !w) {
    fprintf(stderr, "args_bench: out of memory for n = 2^%u\n", log2n);
    return 1;
  }
  // Small values keep float sums exact up to 2^24 in magnitude: x in {-1, 0, 1}, w in {0, 1, 2}.
  for (size_t i = 0; i < b.n; i++) {
    x[i] = (int32_t)(i % 3) - 1;
    w[i] = (int32_t)((i / 3) % 3);
  }
  const clscan_type types[] = {CLSCAN_INT32, CLSCAN_FLOAT};
  int failed = 0;
  for (size_t t = 0; t < 2 && !failed; t++)
    failed = upload(&b, types[t], x, w) || run_type(&b, types[t], x, w);
  free(x);
  free(w);
  clReleaseMemObject(b.in);
  clReleaseMemObject(b.w);
  clReleaseMemObject(b.out);
  clReleaseMemObject(b.carry);
  clscan_context_release(b.ctx);
  return failed;
}
