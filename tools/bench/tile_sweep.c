/*
 * clscan tools: tile_sweep, the measurements behind the tuning table's GPU rows.
 *
 * For each configuration KIND:WG:VPT[:OPTIONS] it creates a single-pass plan with the tile
 * work-group size WG and VPT 16-byte vectors per work-item (clscan_plan_create_tuned with
 * tile_wg and tile_vpt; 0 leaves a field to the table) and the extra build options OPTIONS
 * (CLSCAN_BUILD_OPTIONS, which has no API: it is a debugging aid; e.g. -cl-nv-maxrregcount=64),
 * scans 2^LOG2N elements (exclusive add) REPS times after two warm-ups, and prints the median scan
 * time (first kernel's start to last kernel's end) against clEnqueueCopyBuffer of the same bytes
 * (half of what the scan reads and writes), each copy run just before a scan. The output of the
 * last run is verified exactly against a host scan before the line is printed. All configurations
 * share one context, one queue and one input per kind, so their ratios are comparable. `clscan
 * tune` covers plain same-type scans; this program also covers mixed types, maps and segments. The
 * buffers are sized for the kinds named, so that `tile_sweep 28 20 i32:0:0` (the library's own
 * tuning, 2 x 1 GiB of device memory) also measures the single pass against a copy between the same
 * two buffers where `clscan bench` caps n because its separate copy buffers would not fit (POCL at
 * 2^28).
 *
 * KIND: i8, i16, i32, i64, f32 (integers in [-8, 8]: partial sums of a random walk stay far
 * below 2^24, so every order of addition is exact), f64 (integers in [-1000, 1000], exact for the
 * same reason below 2^53), u8 (uint8 into uint32),
 * map (int32, x * 3 + (i & 15)), seg (int32, head flags, one element in 1000 a head),
 * key (int32 values, int32 keys, the same segments), off (int32, the same segments by uint32
 * offsets), row and r1000 (int32, rows of 1024 and of 1000 elements through clscan_scan_batched,
 * as many whole rows as fit in n; rows of 1024 start every tile with a row, rows of 1000 almost
 * none; timed by its one event: rows are one kernel; WG and VPT reach it through CLSCAN_TILE_WG and
 * CLSCAN_TILE_VPT, set until the configuration ends, in a context of its own, since the batched
 * call creates its plan at its first call and finds it again by descriptor; LOG2N at least 10).
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
#include "measure.h"

/* One kind of scan: its descriptor and how the host generates and checks it. */
typedef struct kind {
  const char *name;
  clscan_type type, out;
  size_t in_size, out_size;
  clscan_segments segments;
  const char *map;
  size_t row_length; /* rows of this length through clscan_scan_batched (0: not rows) */
} kind;

static const kind kinds[] = {
    {"i8", CLSCAN_INT8, CLSCAN_INT8, 1, 1, CLSCAN_SEGMENTS_NONE, NULL, 0},
    {"i16", CLSCAN_INT16, CLSCAN_INT16, 2, 2, CLSCAN_SEGMENTS_NONE, NULL, 0},
    {"i32", CLSCAN_INT32, CLSCAN_INT32, 4, 4, CLSCAN_SEGMENTS_NONE, NULL, 0},
    {"i64", CLSCAN_INT64, CLSCAN_INT64, 8, 8, CLSCAN_SEGMENTS_NONE, NULL, 0},
    {"f32", CLSCAN_FLOAT, CLSCAN_FLOAT, 4, 4, CLSCAN_SEGMENTS_NONE, NULL, 0},
    {"f64", CLSCAN_DOUBLE, CLSCAN_DOUBLE, 8, 8, CLSCAN_SEGMENTS_NONE, NULL, 0},
    {"u8", CLSCAN_UINT8, CLSCAN_UINT32, 1, 4, CLSCAN_SEGMENTS_NONE, NULL, 0},
    {"map", CLSCAN_INT32, CLSCAN_INT32, 4, 4, CLSCAN_SEGMENTS_NONE, "x * 3 + (int)(i & 15)", 0},
    {"seg", CLSCAN_INT32, CLSCAN_INT32, 4, 4, CLSCAN_SEGMENTS_HEAD_FLAGS, NULL, 0},
    {"key", CLSCAN_INT32, CLSCAN_INT32, 4, 4, CLSCAN_SEGMENTS_KEYS, NULL, 0},
    {"off", CLSCAN_INT32, CLSCAN_INT32, 4, 4, CLSCAN_SEGMENTS_OFFSETS, NULL, 0},
    {"row", CLSCAN_INT32, CLSCAN_INT32, 4, 4, CLSCAN_SEGMENTS_NONE, NULL, 1024},
    {"r1000", CLSCAN_INT32, CLSCAN_INT32, 4, 4, CLSCAN_SEGMENTS_NONE, NULL, 1000},
};

/* Returns 1 for the kinds of rows. */
static int is_rows(const struct kind *k) {
  return k->row_length != 0;
}
#define KIND_COUNT (sizeof kinds / sizeof kinds[0])

/* Everything the configurations share. */
typedef struct sweep {
  size_t n;
  int reps;
  clscan_context *ctx;
  cl_command_queue queue;
  cl_mem in, out, aux, offsets;
  size_t n_segments; /* of the offsets: the heads of the flags */
  void *host_in, *host_out;
  uint8_t *flags;
  int32_t *keys;
  const kind *loaded;       /* the kind whose input is on the device */
  clscan_context *rows_ctx; /* the kind "row": a context of the configuration's own */
  clscan_scan_desc rows_desc;
  uint64_t rng;
} sweep;

/* One configuration of the command line: KIND:WG:VPT[:OPTIONS]. */
typedef struct config {
  const char *text;
  const kind *k;
  unsigned wg, vpt;
  char options[256];
} config;

static uint32_t next_random(sweep *s) {
  s->rng = s->rng * 6364136223846793005ull + 1442695040888963407ull;
  return (uint32_t)(s->rng >> 32);
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
  if (is_rows(k))
    return i % k->row_length == 0;
  if (k->segments == CLSCAN_SEGMENTS_NONE)
    return 0;
  if (k->segments == CLSCAN_SEGMENTS_KEYS)
    return i == 0 || s->keys[i] != s->keys[i - 1];
  return i == 0 || s->flags[i] != 0;
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
  // Rows cover the whole rows that fit in n; the elements after them are not written.
  const size_t end = is_rows(k) ? s->n / k->row_length * k->row_length : s->n;
  uint64_t acc = 0;
  for (size_t i = 0; i < end; i++) {
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
  if (err != CL_SUCCESS)
    fprintf(stderr, "tile_sweep: uploading the input failed (error %d)\n", (int)err);
  return err == CL_SUCCESS ? 0 : 2;
}

/* Times one scan and the copy before it; returns 0 or 2. */
static int time_once(sweep *s, clscan_plan *plan, const kind *k, double *scan_ms, double *copy_ms) {
  cl_event first = NULL, last = NULL;
  size_t copy_bytes = s->n * (k->in_size + k->out_size) / 2;
  if (!measure_copy_ms(s->queue, s->in, s->out, copy_bytes, copy_ms)) {
    fprintf(stderr, "tile_sweep: clEnqueueCopyBuffer of %zu bytes failed\n", copy_bytes);
    return 2;
  }
  clscan_status st;
  if (is_rows(k)) {
    // The batched call returns its last event only; rows without padding are one kernel.
    const clscan_batch b = {.rows = s->n / k->row_length, .row_length = k->row_length};
    st = clscan_scan_batched(s->rows_ctx, s->queue, &s->rows_desc, &b, s->in, 0, s->out, 0, 0, NULL,
                             &last);
    if (st == CLSCAN_SUCCESS) {
      clRetainEvent(last);
      first = last;
    }
  } else if (k->segments == CLSCAN_SEGMENTS_OFFSETS) {
    st = clscan_plan_enqueue_offsets(plan, s->queue, s->offsets, 0, s->n_segments, s->in, 0, s->out,
                                     0, s->n, 0, NULL, &first, &last);
  } else if (k->segments) {
    st = clscan_plan_enqueue_segmented(plan, s->queue, s->aux, 0, s->in, 0, s->out, 0, s->n, 0,
                                       NULL, &first, &last);
  } else {
    st = clscan_plan_enqueue_timed(plan, s->queue, s->in, 0, s->out, 0, s->n, 0, NULL, &first,
                                   &last);
  }
  if (st != CLSCAN_SUCCESS) {
    fprintf(stderr, "tile_sweep: enqueue: %s\n", clscan_status_string(st));
    return 2;
  }
  int ok = clWaitForEvents(1, &last) == CL_SUCCESS && measure_event_ms(first, last, scan_ms);
  clReleaseEvent(first);
  clReleaseEvent(last);
  if (!ok)
    fprintf(stderr, "tile_sweep: waiting for the scan or reading its profiling times failed\n");
  return ok ? 0 : 2;
}

/* Parses KIND:WG:VPT[:OPTIONS]; prints what is wrong and returns 0 for a bad configuration. */
static int parse_config(const char *text, config *c) {
  char name[8];
  memset(c, 0, sizeof *c);
  c->text = text;
  if (sscanf(text, "%7[^:]:%u:%u:%255[^\n]", name, &c->wg, &c->vpt, c->options) < 3) {
    fprintf(stderr, "tile_sweep: bad configuration '%s' (KIND:WG:VPT[:OPTIONS])\n", text);
    return 0;
  }
  for (size_t i = 0; i < KIND_COUNT; i++)
    c->k = strcmp(kinds[i].name, name) == 0 ? &kinds[i] : c->k;
  if (!c->k)
    fprintf(stderr, "tile_sweep: unknown kind '%s'\n", name);
  return c->k != NULL;
}

/* Runs one configuration and prints its line; returns 0, 1 (wrong output) or 2. */
static int run_config(sweep *s, const config *c) {
  const kind *k = c->k;
  if (is_rows(k) && s->n < k->row_length) {
    fprintf(stderr, "tile_sweep: the kind %s needs LOG2N >= 10 (rows of %zu)\n", k->name,
            k->row_length);
    return 2;
  }
  setenv("CLSCAN_BUILD_OPTIONS", c->options, 1);
  if (s->loaded != k && load_input(s, k))
    return 2;

  clscan_scan_desc d = {
      .type = k->type,
      .op = CLSCAN_ADD,
      .exclusive = 1,
      .algorithm = CLSCAN_ALGO_SINGLE_PASS,
      .out_type = k->out == k->type ? CLSCAN_OUT_SAME : CLSCAN_OUT_TYPE(k->out),
      .map_source = k->map,
      .segments = k->segments,
      .key_type = k->segments == CLSCAN_SEGMENTS_OFFSETS ? CLSCAN_UINT32 : CLSCAN_INT32};
  const clscan_tuning tuning = {.tile_wg = c->wg, .tile_vpt = c->vpt};
  clscan_plan *plan;
  clscan_status st;
  if (is_rows(k)) {
    // A context of its own, whose plan takes the tile from the environment.
    char text[16];
    snprintf(text, sizeof text, "%u", c->wg);
    c->wg ? setenv("CLSCAN_TILE_WG", text, 1) : unsetenv("CLSCAN_TILE_WG");
    snprintf(text, sizeof text, "%u", c->vpt);
    c->vpt ? setenv("CLSCAN_TILE_VPT", text, 1) : unsetenv("CLSCAN_TILE_VPT");
    s->rows_desc = d;
    st = clscan_context_create(clscan_context_cl_context(s->ctx), clscan_context_device(s->ctx),
                               &s->rows_ctx);
    plan = NULL; /* the batched call makes its own at its first call, which reads the tile */
  } else {
    st = clscan_plan_create_tuned(s->ctx, &d, &tuning, &plan);
  }
  if (st != CLSCAN_SUCCESS) {
    printf("%-40s plan: %s (%s)\n", c->text, clscan_status_string(st), clscan_last_error_detail());
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
  if (rc == 0 && clEnqueueReadBuffer(s->queue, s->out, CL_TRUE, 0, s->n * k->out_size, s->host_out,
                                     0, NULL, NULL) != CL_SUCCESS)
    rc = 2;
  if (rc == 0) {
    size_t wrong = count_wrong(s, k);
    double ms = measure_median(scan, (size_t)s->reps);
    double copy_ms = measure_median(copy, (size_t)s->reps);
    printf("%-40s scan %8.4f ms  copy %8.4f ms  copy/scan %.3f  wrong %zu\n", c->text, ms, copy_ms,
           copy_ms / ms, wrong);
    fflush(stdout);
    rc = wrong ? 1 : 0;
  }
  free(scan);
  free(copy);
  if (plan)
    clscan_plan_release(plan);
  if (s->rows_ctx)
    clscan_context_release(s->rows_ctx);
  s->rows_ctx = NULL;
  unsetenv("CLSCAN_TILE_WG");
  unsetenv("CLSCAN_TILE_VPT");
  return rc;
}

/* The largest buffers the configurations need: bytes per element of input and output, and
 * whether any scans with head flags or keys. */
typedef struct needs {
  size_t in_size, out_size;
  int flags, keys, offsets;
} needs;

static needs needs_of(const config *configs, int count) {
  needs w = {0, 0, 0, 0, 0};
  for (int i = 0; i < count; i++) {
    const kind *k = configs[i].k;
    w.in_size = k->in_size > w.in_size ? k->in_size : w.in_size;
    w.out_size = k->out_size > w.out_size ? k->out_size : w.out_size;
    w.flags |= k->segments == CLSCAN_SEGMENTS_HEAD_FLAGS || k->segments == CLSCAN_SEGMENTS_OFFSETS;
    w.offsets |= k->segments == CLSCAN_SEGMENTS_OFFSETS;
    w.keys |= k->segments == CLSCAN_SEGMENTS_KEYS;
  }
  // The copy before each scan moves n * (in + out) / 2 bytes from the input to the output.
  size_t half = (w.in_size + w.out_size + 1) / 2;
  w.in_size = w.in_size > half ? w.in_size : half;
  w.out_size = w.out_size > half ? w.out_size : half;
  return w;
}

/* Creates a device buffer; prints the failure and returns NULL if it cannot. */
static cl_mem new_buffer(cl_context cl, size_t bytes, const char *what) {
  cl_int err;
  cl_mem buf = clCreateBuffer(cl, CL_MEM_READ_WRITE, bytes, NULL, &err);
  if (err == CL_SUCCESS)
    return buf;
  fprintf(stderr, "tile_sweep: cannot allocate the %s buffer of %zu bytes (error %d)\n", what,
          bytes, (int)err);
  return NULL;
}

/* Draws the head flags and keys the segmented kinds share: one element in 1000 a head. */
static void make_segments(sweep *s) {
  int32_t key = 0;
  for (size_t i = 0; i < s->n; i++) {
    uint8_t head = next_random(s) % 1000 == 0;
    key += head;
    if (s->flags)
      s->flags[i] = head;
    if (s->keys)
      s->keys[i] = key;
  }
}

/* Uploads the heads of the flags as uint32 offsets (0, every later head, n). */
static int upload_offsets(sweep *s, cl_context cl) {
  uint32_t *off = malloc((s->n + 1) * sizeof *off);
  if (!off) {
    fprintf(stderr, "tile_sweep: out of host memory for the offsets\n");
    return 2;
  }
  size_t count = 0;
  for (size_t i = 0; i < s->n; i++) {
    if (i == 0 || s->flags[i])
      off[count++] = (uint32_t)i;
  }
  off[count] = (uint32_t)s->n;
  s->n_segments = count;
  s->offsets = new_buffer(cl, (count + 1) * sizeof *off, "offsets");
  cl_int err = s->offsets ? clEnqueueWriteBuffer(s->queue, s->offsets, CL_TRUE, 0,
                                                 (count + 1) * sizeof *off, off, 0, NULL, NULL)
                          : CL_INVALID_MEM_OBJECT;
  free(off);
  if (err != CL_SUCCESS)
    fprintf(stderr, "tile_sweep: uploading the offsets failed (error %d)\n", (int)err);
  return err == CL_SUCCESS ? 0 : 2;
}

/* Creates the context, buffers and segments every configuration shares. */
static int setup(sweep *s, const needs *w) {
  clscan_status st = clscan_context_create_default(&s->ctx);
  if (st != CLSCAN_SUCCESS) {
    fprintf(stderr, "tile_sweep: no device: %s\n", clscan_status_string(st));
    return 2;
  }
  cl_context cl = clscan_context_cl_context(s->ctx);
  s->queue = clscan_context_queue(s->ctx);
  size_t aux = w->keys ? 4 : w->flags ? 1 : 0;
  s->in = new_buffer(cl, s->n * w->in_size, "input");
  s->out = s->in ? new_buffer(cl, s->n * w->out_size, "output") : NULL;
  s->aux = s->out && aux ? new_buffer(cl, s->n * aux, "segments") : NULL;
  if (!s->out || (aux && !s->aux))
    return 2;
  s->host_in = malloc(s->n * w->in_size);
  s->host_out = malloc(s->n * w->out_size);
  s->flags = w->flags ? malloc(s->n) : NULL;
  s->keys = w->keys ? malloc(s->n * 4) : NULL;
  if (!s->host_in || !s->host_out || (w->flags && !s->flags) || (w->keys && !s->keys)) {
    fprintf(stderr, "tile_sweep: out of host memory for n = %zu\n", s->n);
    return 2;
  }
  make_segments(s);
  if (w->offsets && upload_offsets(s, cl))
    return 2;
  char device[256] = "";
  clGetDeviceInfo(clscan_context_device(s->ctx), CL_DEVICE_NAME, sizeof device, device, NULL);
  printf("tile_sweep on %s, n = %zu, median of %d\n", device, s->n, s->reps);
  return 0;
}

/* Releases what setup() created. */
static void teardown(sweep *s) {
  cl_mem all[4] = {s->in, s->out, s->aux, s->offsets};
  for (int i = 0; i < 4; i++) {
    if (all[i])
      clReleaseMemObject(all[i]);
  }
  free(s->host_in);
  free(s->host_out);
  free(s->flags);
  free(s->keys);
  clscan_context_release(s->ctx);
}

int main(int argc, char **argv) {
  sweep s = {.rng = 7};
  if (!measure_sweep_args(argc, argv, "tile_sweep", "LOG2N REPS KIND:WG:VPT[:OPTIONS]...", 40, &s.n,
                          &s.reps, NULL))
    return 2;
  int count = argc - 3;
  config *configs = calloc((size_t)count, sizeof *configs);
  int ok = configs != NULL;
  for (int i = 0; ok && i < count; i++)
    ok = parse_config(argv[3 + i], &configs[i]);
  needs w = ok ? needs_of(configs, count) : (needs){0, 0, 0, 0, 0};
  int worst = ok ? setup(&s, &w) : 2;
  int ready = worst == 0;
  for (int i = 0; ready && i < count; i++) {
    int rc = run_config(&s, &configs[i]);
    worst = rc > worst ? rc : worst;
  }
  teardown(&s);
  free(configs);
  return worst;
}
