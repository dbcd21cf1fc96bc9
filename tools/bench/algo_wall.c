/*
 * clscan developer benchmark: scan algorithms against each other by wall-clock time, for devices
 * whose profiling events do not measure (rusticl 22.3 gives every command the timestamps 0, 1,
 * 2 and 3 ns).
 *
 * For each type and size it creates one plan per configuration (exclusive add), checks each
 * plan's output against the host reference, then runs --rounds rounds; in each round every
 * configuration, in an order that rotates from round to round, times a batch of scans between
 * two clFinish calls on the host's monotonic clock (batch = 2^22 / n scans, 1 to 64). It prints
 * the median time per scan of each configuration and its ratio to the first configuration's
 * median, and the median over rounds of that ratio (both sides of it from the same round, so
 * that a busy machine's slow rounds cancel).
 *
 * Configurations: rts (reduce-then-scan), sp (the single pass as the device runs it), sp32 (the
 * single pass with 32-bit status words, CLSCAN_TEST_STATUS32=1 while its plan is created), sp64
 * (CLSCAN_TEST_STATUS32=0: 64-bit words where the device has 64-bit atomics), blelloch, hs
 * (Hillis-Steele), auto.
 *
 * Usage: algo_wall [--min-log2 K] [--max-log2 K] [--rounds R] [--types LIST] CONFIG...
 * (defaults 16, 24, 7, int32,int64,float); the device is CLSCAN_DEVICE's. Exit status 1 when a
 * result is wrong, 2 for bad arguments or a failed call.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clscan.h"
#include "measure.h"
#include "ref_scan.h"

#define MAX_CONFIGS 8
#define MAX_ROUNDS 101

/* One configuration: its name, algorithm and the status-word switch its plan is created with
 * (NULL: the environment as it is). */
typedef struct config {
  const char *name;
  clscan_algorithm algorithm;
  const char *status32;
} config;

static const config known[] = {{"rts", CLSCAN_ALGO_REDUCE_THEN_SCAN, NULL},
                               {"sp", CLSCAN_ALGO_SINGLE_PASS, NULL},
                               {"sp32", CLSCAN_ALGO_SINGLE_PASS, "1"},
                               {"sp64", CLSCAN_ALGO_SINGLE_PASS, "0"},
                               {"blelloch", CLSCAN_ALGO_BLELLOCH, NULL},
                               {"hs", CLSCAN_ALGO_HILLIS_STEELE, NULL},
                               {"auto", CLSCAN_ALGO_AUTO, NULL}};

/* The run's options. */
typedef struct options {
  int min_log2, max_log2, rounds;
  clscan_type types[8];
  int ntypes;
  const config *configs[MAX_CONFIGS];
  int nconfigs;
} options;

/* The buffers of one type and size. */
typedef struct bench {
  clscan_context *ctx;
  cl_command_queue q;
  cl_mem in, out;
  void *host_in, *host_out;
  size_t n, elem;
} bench;

static int parse_types(const char *list, options *o) {
  static const clscan_type all[] = {CLSCAN_INT32,  CLSCAN_UINT32, CLSCAN_INT64,
                                    CLSCAN_UINT64, CLSCAN_FLOAT,  CLSCAN_DOUBLE};
  char copy[256];
  snprintf(copy, sizeof copy, "%s", list);
  o->ntypes = 0;
  for (char *save = NULL, *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
    int found = 0;
    for (size_t i = 0; i < sizeof all / sizeof all[0] && !found; i++) {
      if (strcmp(t, clscan_type_name(all[i])) == 0 && o->ntypes < 8)
        o->types[o->ntypes++] = all[i], found = 1;
    }
    if (!found)
      return 0;
  }
  return o->ntypes > 0;
}

static int parse_config(const char *name, options *o) {
  for (size_t i = 0; i < sizeof known / sizeof known[0]; i++) {
    if (strcmp(name, known[i].name) == 0 && o->nconfigs < MAX_CONFIGS)
      return o->configs[o->nconfigs++] = &known[i], 1;
  }
  return 0;
}

static int parse(int argc, char **argv, options *o) {
  *o = (options){.min_log2 = 16, .max_log2 = 24, .rounds = 7};
  if (!parse_types("int32,int64,float", o))
    return 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (strcmp(a, "--min-log2") == 0 && v)
      o->min_log2 = atoi(v), i++;
    else if (strcmp(a, "--max-log2") == 0 && v)
      o->max_log2 = atoi(v), i++;
    else if (strcmp(a, "--rounds") == 0 && v)
      o->rounds = atoi(v), i++;
    else if (strcmp(a, "--types") == 0 && v) {
      if (!parse_types(v, o))
        return 0;
      i++;
    } else if (!parse_config(a, o))
      return 0;
  }
  return o->nconfigs > 0 && o->rounds > 0 && o->rounds <= MAX_ROUNDS && o->min_log2 >= 0 &&
         o->min_log2 <= o->max_log2 && o->max_log2 < 31;
}

/* Creates a configuration's plan, with its status-word switch set while it is created. */
static clscan_status plan_for(const bench *b, clscan_type type, const config *c,
                              clscan_plan **plan) {
  clscan_scan_desc desc = {
      .type = type, .op = CLSCAN_ADD, .exclusive = 1, .algorithm = c->algorithm};
  const char *old = getenv("CLSCAN_TEST_STATUS32");
  char saved[16] = "";
  if (old)
    snprintf(saved, sizeof saved, "%s", old);
  if (c->status32)
    setenv("CLSCAN_TEST_STATUS32", c->status32, 1);
  clscan_status st = clscan_plan_create(b->ctx, &desc, plan);
  if (c->status32 && old)
    setenv("CLSCAN_TEST_STATUS32", saved, 1);
  else if (c->status32)
    unsetenv("CLSCAN_TEST_STATUS32");
  return st;
}

/* Scans once and compares the output with the host reference; returns 1 if it matches. */
static int verify(const bench *b, clscan_plan *plan, clscan_type type) {
  clscan_scan_desc desc = {.type = type, .op = CLSCAN_ADD, .exclusive = 1};
  cl_event done = NULL;
  if (clscan_plan_enqueue(plan, b->q, b->in, 0, b->out, 0, b->n, 0, NULL, &done) != CLSCAN_SUCCESS)
    return 0;
  clWaitForEvents(1, &done);
  clReleaseEvent(done);
  if (clEnqueueReadBuffer(b->q, b->out, CL_TRUE, 0, b->n * b->elem, b->host_out, 0, NULL, NULL) !=
      CL_SUCCESS)
    return 0;
  clscan_ref_mismatch m;
  return clscan_ref_check(&desc, b->host_in, b->host_out, b->n, &m);
}

/* Times `batch` scans between two clFinish calls; stores milliseconds per scan in *ms. */
static int time_batch(const bench *b, clscan_plan *plan, int batch, double *ms) {
  if (clFinish(b->q) != CL_SUCCESS)
    return 0;
  const double start = measure_host_ms();
  for (int i = 0; i < batch; i++) {
    if (clscan_plan_enqueue(plan, b->q, b->in, 0, b->out, 0, b->n, 0, NULL, NULL) != CLSCAN_SUCCESS)
      return 0;
  }
  if (clFinish(b->q) != CL_SUCCESS)
    return 0;
  *ms = (measure_host_ms() - start) / batch;
  return 1;
}

/* Times every configuration's plan over the rounds and prints one line per configuration. */
static int time_size(const options *o, const bench *b, clscan_type type, clscan_plan **plans,
                     int k) {
  static double t[MAX_CONFIGS][MAX_ROUNDS], ratio[MAX_ROUNDS];
  int batch = (int)((size_t)1 << 22 >> k);
  batch = batch < 1 ? 1 : batch > 64 ? 64 : batch;
  for (int c = 0; c < o->nconfigs; c++)
    time_batch(b, plans[c], batch, &t[c][0]); /* warm-up */
  for (int r = 0; r < o->rounds; r++) {
    for (int j = 0; j < o->nconfigs; j++) {
      const int c = (j + r) % o->nconfigs;
      if (!time_batch(b, plans[c], batch, &t[c][r]))
        return 0;
    }
  }
  double first[MAX_ROUNDS];
  memcpy(first, t[0], sizeof first);
  const double base = measure_median(first, (size_t)o->rounds);
  for (int c = 0; c < o->nconfigs; c++) {
    for (int r = 0; r < o->rounds; r++)
      ratio[r] = t[c][r] / t[0][r];
    const double ms = measure_median(t[c], (size_t)o->rounds);
    printf("%-6s 2^%-3d %-8s %10.4f %8.3f %8.3f %8.3f\n", clscan_type_name(type), k,
           o->configs[c]->name, ms, 2.0 * (double)b->n * (double)b->elem / (ms * 1e6), base / ms,
           1.0 / measure_median(ratio, (size_t)o->rounds));
  }
  return 1;
}

/* Runs one type and size: buffers, plans, checks, times. Returns 0 on success, else the exit
 * status. */
static int run_size(const options *o, bench *b, clscan_type type, int k) {
  clscan_plan *plans[MAX_CONFIGS] = {0};
  int status = 0;
  b->n = (size_t)1 << k;
  b->elem = clscan_type_size(type);
  cl_int err;
  cl_context cl = clscan_context_cl_context(b->ctx);
  b->host_in = malloc(b->n * b->elem);
  b->host_out = malloc(b->n * b->elem);
  b->in = clCreateBuffer(cl, CL_MEM_READ_WRITE, b->n * b->elem, NULL, &err);
  b->out = clCreateBuffer(cl, CL_MEM_READ_WRITE, b->n * b->elem, NULL, &err);
  if (!b->host_in || !b->host_out || !b->in || !b->out)
    status = 2;
  if (!status) {
    clscan_ref_fill(type, CLSCAN_ADD, (uint64_t)k, b->host_in, b->n);
    if (clEnqueueWriteBuffer(b->q, b->in, CL_TRUE, 0, b->n * b->elem, b->host_in, 0, NULL, NULL) !=
        CL_SUCCESS)
      status = 2;
  }
  for (int c = 0; c < o->nconfigs && !status; c++) {
    clscan_status st = plan_for(b, type, o->configs[c], &plans[c]);
    if (st != CLSCAN_SUCCESS) {
      fprintf(stderr, "algo_wall: %s %s: %s (%s)\n", clscan_type_name(type), o->configs[c]->name,
              clscan_status_string(st), clscan_last_error_detail());
      status = 2;
    } else if (!verify(b, plans[c], type)) {
      fprintf(stderr, "algo_wall: %s 2^%d %s: wrong result\n", clscan_type_name(type), k,
              o->configs[c]->name);
      status = 1;
    }
  }
  if (!status && !time_size(o, b, type, plans, k))
    status = 2;
  for (int c = 0; c < o->nconfigs; c++)
    clscan_plan_release(plans[c]);
  clReleaseMemObject(b->in);
  clReleaseMemObject(b->out);
  free(b->host_in);
  free(b->host_out);
  return status;
}

int main(int argc, char **argv) {
  options o;
  if (!parse(argc, argv, &o)) {
    fprintf(stderr,
            "usage: algo_wall [--min-log2 K] [--max-log2 K] [--rounds R] [--types LIST] "
            "rts|sp|sp32|sp64|blelloch|hs|auto...\n");
    return 2;
  }
  bench b = {0};
  clscan_status st = clscan_context_create_default(&b.ctx);
  if (st != CLSCAN_SUCCESS) {
    fprintf(stderr, "algo_wall: no context: %s (%s)\n", clscan_status_string(st),
            clscan_last_error_detail());
    return 2;
  }
  b.q = clscan_context_queue(b.ctx);
  char dev[256] = "";
  clGetDeviceInfo(clscan_context_device(b.ctx), CL_DEVICE_NAME, sizeof dev - 1, dev, NULL);
  printf(
      "device: %s\nwall clock, clFinish around each batch; median of %d rounds; ratio: the "
      "first configuration's time / this one's (> 1: faster), of the medians and the median "
      "of the rounds' ratios\n",
      dev, o.rounds);
  printf("%-6s %-5s %-8s %10s %8s %8s %8s\n", "type", "n", "config", "ms", "GB/s", "ratio",
         "r-ratio");
  int status = 0;
  for (int t = 0; t < o.ntypes && !status; t++) {
    for (int k = o.min_log2; k <= o.max_log2 && !status; k++)
      status = run_size(&o, &b, o.types[t], k);
    fflush(stdout);
  }
  clscan_context_release(b.ctx);
  return status;
}
