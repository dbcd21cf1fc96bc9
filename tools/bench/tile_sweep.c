/*
 * clscan tools: tile_sweep, the measurements behind the tuning table's GPU rows.
 *
 * For each configuration KIND:WG:VPT[:OPTIONS] it creates a single-pass plan with the tile
 * work-group size WG and VPT 16-byte vectors per work-item (0: the table's value; both through
 * CLSCAN_TILE_WG and CLSCAN_TILE_VPT) and the extra build options OPTIONS (CLSCAN_BUILD_OPTIONS,
 * e.g. -cl-nv-maxrregcount=64), scans 2^LOG2N elements (exclusive add) REPS times after two
 * warm-ups, and prints the median scan time (first kernel's start to last kernel's end) against
 * clEnqueueCopyBuffer of the same bytes (half of what the scan reads and writes), each copy run
 * just before a scan. The output of the last run is verified exactly against a host scan before
 * the line is printed. All configurations share one context, one queue and one input per kind,
 * so their ratios are comparable. `clscan tune` covers plain same-type scans; this program also
 * covers mixed types, maps and segments.
 *
 * KIND: i8, i16, i32, i64, f32 (integers in [-8, 8]: partial sums of a random walk stay far
 * below 2^24, so every order of addition is exact), f64 (integers in [-1000, 1000], exact for the
 * same reason below 2^53), u8 (uint8 into uint32),
 * map (int32, x * 3 + (i & 15)), seg (int32, head flags, one element in 1000 a head),
 * key (int32 values, int32 keys, the same segments).
 *
 *   build/tile_sweep LOG2N REPS CONFIG...   e.g. build/tile_sweep 28 20 i32:256:8 i32:128:6
 *
 * Exit status: 0 when every output was right, 1 when one was wrong, 2 for bad arguments or a
 * failed OpenCL or clscan call.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clscan.h"

/* One kind of scan: its descriptor and how the host generates and checks it. */
typedef struct kind {
  const char *name;
  clscan_type type, out;
  size_t in_size, out_size;
  clscan_segments segments;
  const char *map;
} kind;

static const kind kinds[] = {
    {"i8", CLSCAN_INT8, CLSCAN_INT8, 1, 1, CLSCAN_SEGMENTS_NONE, NULL},
    {"i16", CLSCAN_INT16, CLSCAN_INT16, 2, 2, CLSCAN_SEGMENTS_NONE, NULL},
    {"i32", CLSCAN_INT32, CLSCAN_INT32, 4, 4, CLSCAN_SEGMENTS_NONE, NULL},
    {"i64", CLSCAN_INT64, CLSCAN_INT64, 8, 8, CLSCAN_SEGMENTS_NONE, NULL},
    {"f32", CLSCAN_FLOAT, CLSCAN_FLOAT, 4, 4, CLSCAN_SEGMENTS_NONE, NULL},
    {"f64", CLSCAN_DOUBLE, CLSCAN_DOUBLE, 8, 8, CLSCAN_SEGMENTS_NONE, NULL},
    {"u8", CLSCAN_UINT8, CLSCAN_UINT32, 1, 4, CLSCAN_SEGMENTS_NONE, NULL},
    {"map", CLSCAN_INT32, CLSCAN_INT32, 4, 4, CLSCAN_SEGMENTS_NONE, "x * 3 + (int)(i & 15)"},
    {"seg", CLSCAN_INT32, CLSCAN_INT32, 4, 4, CLSCAN_SEGMENTS_HEAD_FLAGS, NULL},
    {"key", CLSCAN_INT32, CLSCAN_INT32, 4, 4, CLSCAN_SEGMENTS_KEYS, NULL},
};
#define KIND_COUNT (sizeof kinds / sizeof kinds[0])

/* Everything the configurations share. */
typedef struct sweep {
  size_t n;
  int reps;
  clscan_context *ctx;
  cl_command_queue queue;
  cl_mem in, out, aux;
  void *host_in, *host_out;
  uint8_t *flags;
  int32_t *keys;
  const kind *loaded; /* the kind whose input is on the device */
  uint64_t rng;
} sweep;

static uint32_t next_random(sweep *s) {
  s->rng = s->rng * 6364136223846793005ull + 1442695040888963407ull;
  return (uint32_t)(s->rng >> 32);
}

static int by_value(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* Milliseconds from the start of command a to the end of command b. */
static double elapsed_ms(cl_event a, cl_event b) {
  cl_ulong start = 0, end = 0;
  clGetEventProfilingInfo(a, CL_PROFILING_COMMAND_START, sizeof start, &start, NULL);
  clGetEventProfilingInfo(b, CL_PROFILING_COMMAND_END, sizeof end, &end, NULL);
  return (double)(end - start) * 1e-6;
}

/* Element i of the loaded input as the scanned value, wrapped to 64 bits. */
static uint64_t input_value(const sweep *s, const kind *k, size_t i) {
  const void *h = s->host_in;
  switch (k->type) {
  case CLSCAN_INT8:
    return (uint64_t)(int64_t)((const int8_t *)h)[i];
  case CLSCAN_INT16:
    return (uint64_t)(int64_t)((const int16_t *)h)[i];
  case CLSCAN_UINT8:
    return ((const uint8_t *)h)[i];
  case CLSCAN_INT64:
    return (uint64_t)((const int64_t *)h)[i];
  default: {
    uint64_t x = (uint64_t)(int64_t)((const int32_t *)h)[i];
    return k->map ? x * 3 + (i & 15) : x;
  }
  }
}

/* Returns 1 if element i starts a segment. */
static int is_head(const sweep *s, const kind *k, size_t i) {
  if (k->segments == CLSCAN_SEGMENTS_NONE)
    return 0;
  return i == 0 || (k->segments == CLSCAN_SEGMENTS_HEAD_FLAGS ? s->flags[i] != 0
                                                              : s->keys[i] != s->keys[i - 1]);
}

/* Output element i, widened (integers wrap to the output's width, as the reference does). */
static uint64_t output_value(const sweep *s, const kind *k, size_t i) {
  const void *h = s->host_out;
  switch (k->out_size) {
  case 1:
    return ((const uint8_t *)h)[i];
  case 2:
    return ((const uint16_t *)h)[i];
  case 4:
    return ((const uint32_t *)h)[i];
  default:
    return ((const uint64_t *)h)[i];
  }
}

/* Counts the output elements that differ from an exclusive host scan. */
static size_t count_wrong(const sweep *s, const kind *k) {
  size_t wrong = 0;
  if (k->type == CLSCAN_FLOAT) {
    double acc = 0;
    for (size_t i = 0; i < s->n; i++) {
      wrong += ((const float *)s->host_out)[i] != acc;
      acc += ((const float *)s->host_in)[i];
    }
    return wrong;
  }
  if (k->type == CLSCAN_DOUBLE) {
    double acc = 0;
    for (size_t i = 0; i < s->n; i++) {
      wrong += ((const double *)s->host_out)[i] != acc;
      acc += ((const double *)s->host_in)[i];
    }
    return wrong;
  }
  const uint64_t mask = k->out_size == 8 ? ~0ull : (1ull << (8 * k->out_size)) - 1;
  uint64_t acc = 0;
  for (size_t i = 0; i < s->n; i++) {
    if (is_head(s, k, i))
      acc = 0;
    wrong += output_value(s, k, i) != (acc & mask);
    acc += input_value(s, k, i);
  }
  return wrong;
}

/* Generates and uploads a fresh input of kind k (and its flags or keys). */
static int load_input(sweep *s, const kind *k) {
  for (size_t i = 0; i < s->n; i++) {
    uint32_t r = next_random(s);
    switch (k->type) {
    case CLSCAN_FLOAT:
      ((float *)s->host_in)[i] = (float)(r % 17) - 8.0f;
      break;
    case CLSCAN_DOUBLE:
      ((double *)s->host_in)[i] = (double)(r % 2001) - 1000.0;
      break;
    case CLSCAN_INT64:
      ((uint64_t *)s->host_in)[i] = ((uint64_t)r << 32) | next_random(s);
      break;
    default:
      memcpy((char *)s->host_in + i * k->in_size, &r, k->in_size);
    }
  }
  cl_int err = clEnqueueWriteBuffer(s->queue, s->in, CL_TRUE, 0, s->n * k->in_size, s->host_in, 0,
                                    NULL, NULL);
  if (err == CL_SUCCESS && k->segments == CLSCAN_SEGMENTS_HEAD_FLAGS)
    err = clEnqueueWriteBuffer(s->queue, s->aux, CL_TRUE, 0, s->n, s->flags, 0, NULL, NULL);
  if (err == CL_SUCCESS && k->segments == CLSCAN_SEGMENTS_KEYS)
    err = clEnqueueWriteBuffer(s->queue, s->aux, CL_TRUE, 0, s->n * 4, s->keys, 0, NULL, NULL);
  s->loaded = k;
  return err == CL_SUCCESS ? 0 : 2;
}

/* Sets or clears a tuning override. */
static void set_override(const char *name, unsigned value) {
  char text[16];
  snprintf(text, sizeof text, "%u", value);
  if (value)
    setenv(name, text, 1);
  else
    unsetenv(name);
}

/* Times one scan and the copy before it; returns 0 or 2. */
static int time_once(sweep *s, clscan_plan *plan, const kind *k, double *scan_ms, double *copy_ms) {
  cl_event copy, first = NULL, last = NULL;
  size_t copy_bytes = s->n * (k->in_size + k->out_size) / 2;
  if (clEnqueueCopyBuffer(s->queue, s->in, s->out, 0, 0, copy_bytes, 0, NULL, &copy) != CL_SUCCESS)
    return 2;
  clWaitForEvents(1, &copy);
  *copy_ms = elapsed_ms(copy, copy);
  clReleaseEvent(copy);
  clscan_status st =
      k->segments ? clscan_plan_enqueue_segmented(plan, s->queue, s->aux, 0, s->in, 0, s->out, 0,
                                                  s->n, 0, NULL, &first, &last)
                  : clscan_plan_enqueue_timed(plan, s->queue, s->in, 0, s->out, 0, s->n, 0, NULL,
                                              &first, &last);
  if (st != CLSCAN_SUCCESS) {
    fprintf(stderr, "tile_sweep: enqueue: %s\n", clscan_status_string(st));
    return 2;
  }
  clWaitForEvents(1, &last);
  *scan_ms = elapsed_ms(first, last);
  clReleaseEvent(first);
  clReleaseEvent(last);
  return 0;
}

/* Runs one configuration and prints its line; returns 0, 1 (wrong output) or 2. */
static int run_config(sweep *s, const char *config) {
  char name[8], options[256] = "";
  unsigned wg = 0, vpt = 0;
  if (sscanf(config, "%7[^:]:%u:%u:%255[^\n]", name, &wg, &vpt, options) < 3) {
    fprintf(stderr, "tile_sweep: bad configuration '%s' (KIND:WG:VPT[:OPTIONS])\n", config);
    return 2;
  }
  const kind *k = NULL;
  for (size_t i = 0; i < KIND_COUNT; i++)
    k = strcmp(kinds[i].name, name) == 0 ? &kinds[i] : k;
  if (!k) {
    fprintf(stderr, "tile_sweep: unknown kind '%s'\n", name);
    return 2;
  }
  setenv("CLSCAN_BUILD_OPTIONS", options, 1);
  set_override("CLSCAN_TILE_WG", wg);
  set_override("CLSCAN_TILE_VPT", vpt);
  if (s->loaded != k && load_input(s, k))
    return 2;

  clscan_scan_desc d = {.type = k->type,
                        .op = CLSCAN_ADD,
                        .exclusive = 1,
                        .algorithm = CLSCAN_ALGO_SINGLE_PASS,
                        .out_type = k->out == k->type ? CLSCAN_OUT_SAME : CLSCAN_OUT_TYPE(k->out),
                        .map_source = k->map,
                        .segments = k->segments,
                        .key_type = CLSCAN_INT32};
  clscan_plan *plan;
  clscan_status st = clscan_plan_create(s->ctx, &d, &plan);
  if (st != CLSCAN_SUCCESS) {
    printf("%-40s plan: %s\n", config, clscan_status_string(st));
    return 2;
  }
  double *scan = malloc(sizeof(double) * (size_t)s->reps);
  double *copy = malloc(sizeof(double) * (size_t)s->reps);
  int rc = scan && copy ? 0 : 2;
  for (int r = -2; r < s->reps && rc == 0; r++) {
    double a = 0, b = 0;
    rc = time_once(s, plan, k, &a, &b);
    if (r >= 0) {
      scan[r] = a;
      copy[r] = b;
    }
  }
  if (rc == 0 && clEnqueueReadBuffer(s->queue, s->out, CL_TRUE, 0, s->n * k->out_size,
                                     s->host_out, 0, NULL, NULL) != CL_SUCCESS)
    rc = 2;
  if (rc == 0) {
    size_t wrong = count_wrong(s, k);
    qsort(scan, (size_t)s->reps, sizeof *scan, by_value);
    qsort(copy, (size_t)s->reps, sizeof *copy, by_value);
    double ms = scan[s->reps / 2], copy_ms = copy[s->reps / 2];
    printf("%-40s scan %8.4f ms  copy %8.4f ms  copy/scan %.3f  wrong %zu\n", config, ms, copy_ms,
           copy_ms / ms, wrong);
    fflush(stdout);
    rc = wrong ? 1 : 0;
  }
  free(scan);
  free(copy);
  clscan_plan_release(plan);
  return rc;
}

/* Creates the context, buffers and segments every configuration shares. */
static int setup(sweep *s) {
  if (clscan_context_create_default(&s->ctx) != CLSCAN_SUCCESS)
    return 2;
  cl_context cl = clscan_context_cl_context(s->ctx);
  s->queue = clscan_context_queue(s->ctx);
  cl_int e1, e2, e3;
  s->in = clCreateBuffer(cl, CL_MEM_READ_WRITE, s->n * 8, NULL, &e1);
  s->out = clCreateBuffer(cl, CL_MEM_READ_WRITE, s->n * 8, NULL, &e2);
  s->aux = clCreateBuffer(cl, CL_MEM_READ_WRITE, s->n * 4, NULL, &e3);
  s->host_in = malloc(s->n * 8);
  s->host_out = malloc(s->n * 8);
  s->flags = malloc(s->n);
  s->keys = malloc(s->n * 4);
  if (e1 || e2 || e3 || !s->host_in || !s->host_out || !s->flags || !s->keys)
    return 2;
  int32_t key = 0;
  for (size_t i = 0; i < s->n; i++) {
    s->flags[i] = next_random(s) % 1000 == 0;
    key += s->flags[i];
    s->keys[i] = key;
  }
  char device[256] = "";
  clGetDeviceInfo(clscan_context_device(s->ctx), CL_DEVICE_NAME, sizeof device, device, NULL);
  printf("tile_sweep on %s, n = %zu, median of %d\n", device, s->n, s->reps);
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: tile_sweep LOG2N REPS KIND:WG:VPT[:OPTIONS]...\n");
    return 2;
  }
  sweep s = {.n = (size_t)1 << atoi(argv[1]), .reps = atoi(argv[2]), .rng = 7};
  if (s.reps < 1 || s.n < 2 || setup(&s)) {
    fprintf(stderr, "tile_sweep: setup failed\n");
    return 2;
  }
  int worst = 0;
  for (int a = 3; a < argc; a++) {
    int rc = run_config(&s, argv[a]);
    worst = rc > worst ? rc : worst;
  }
  return worst;
}
