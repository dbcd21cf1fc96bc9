/*
 * The clscan program's measurements, shared by `bench` and `tune`: the benchmark variants,
 * benchmark buffers, verified and profiled timing of a plan, timing of a device copy of the same
 * bytes and of the sequential host loop.
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "measure.h"
#include "ref_scan.h"

/* Timed runs of the sequential host loop (its median is reported). */
#define HOST_RUNS 5

/* ============================================================================================== */
/* Small helpers                                                                                  */
/* ============================================================================================== */

double cli_gbps(size_t n, size_t elem, double ms) {
  return cli_gbps_bytes(2.0 * (double)n * (double)elem, ms);
}

double cli_gbps_bytes(double bytes, double ms) {
  return ms > 0 ? bytes / (ms * 1e6) : 0;
}

/* Returns the largest log2 n whose buffers, of `total` bytes per element in all and at most
 * `largest` bytes per element each, fit in a quarter of the device's memory and its largest
 * allocation. */
static int max_log2(cl_device_id device, size_t total, size_t largest) {
  cl_ulong quarter = cli_device_ulong(device, CL_DEVICE_GLOBAL_MEM_SIZE) / 4;
  cl_ulong max_alloc = cli_device_ulong(device, CL_DEVICE_MAX_MEM_ALLOC_SIZE);
  int k = 40;
  while (k > 0 && (((cl_ulong)total << k) > quarter || ((cl_ulong)largest << k) > max_alloc))
    k--;
  return k;
}

int cli_max_log2_for_device(cl_device_id device, size_t elem) {
  // Input, output and the copy destination, each one allocation.
  return max_log2(device, 3 * elem, elem);
}

int cli_max_log2_for_spec(cl_device_id device, const cli_bench_spec *spec) {
  size_t in = clscan_type_size(spec->type), out = clscan_type_size(spec->out_type);
  size_t seg = cli_bench_bytes_per_element(spec) - in - out;
  // The copy's destination holds half the bytes moved, rounded up; its source is the input when
  // that is large enough, else a buffer of its own.
  size_t half = (in + out + seg + 1) / 2, src = half > in ? half : 0;
  size_t largest = in > out ? in : out;
  largest = largest > half ? largest : half;
  return max_log2(device, in + out + seg + half + src, largest);
}

/* ============================================================================================== */
/* Variants                                                                                       */
/* ============================================================================================== */

static const char *const variant_names[CLI_VARIANT_COUNT] = {"plain",  "map",     "segmented",
                                                             "by-key", "offsets", "rows"};

const char *cli_variant_name(cli_variant v) {
  return (unsigned)v < CLI_VARIANT_COUNT ? variant_names[v] : "?";
}

int cli_variant_from_name(const char *name, cli_variant *out) {
  for (int v = 0; v < CLI_VARIANT_COUNT; v++) {
    if (strcmp(variant_names[v], name) == 0)
      return *out = (cli_variant)v, 1;
  }
  return 0;
}

/* The map variant's y = x * 3 + (i & 15) in OpenCL C, by input type. Integers compute in the
 * unsigned type of their width and reinterpret the bits (as_T), so that they wrap modulo 2^bits
 * of the input type without signed overflow; the value is then converted to the output type. */
static const char *const map_sources[CLSCAN_TYPE_COUNT] = {
    [CLSCAN_INT32] = "as_int((uint)x * 3u + (uint)(i & 15))",
    [CLSCAN_UINT32] = "x * 3u + (uint)(i & 15)",
    [CLSCAN_INT64] = "as_long((ulong)x * 3ul + (i & 15))",
    [CLSCAN_UINT64] = "x * 3ul + (i & 15)",
    [CLSCAN_FLOAT] = "x * 3.0f + (float)(i & 15)",
    [CLSCAN_DOUBLE] = "x * 3.0 + (double)(i & 15)",
    [CLSCAN_INT8] = "as_char((uchar)((uchar)x * (uchar)3 + (uchar)(i & 15)))",
    [CLSCAN_UINT8] = "(uchar)(x * (uchar)3 + (uchar)(i & 15))",
    [CLSCAN_INT16] = "as_short((ushort)((ushort)x * (ushort)3 + (ushort)(i & 15)))",
    [CLSCAN_UINT16] = "(ushort)(x * (ushort)3 + (ushort)(i & 15))",
};

clscan_scan_desc cli_bench_desc(const cli_bench_spec *spec, clscan_algorithm algo) {
  clscan_scan_desc d = {.type = spec->type, .op = CLSCAN_ADD, .exclusive = 1, .algorithm = algo};
  if (spec->out_type != spec->type)
    d.out_type = CLSCAN_OUT_TYPE(spec->out_type);
  if (spec->variant == CLI_VARIANT_MAP)
    d.map_source = map_sources[spec->type];
  if (spec->variant == CLI_VARIANT_SEGMENTED)
    d.segments = CLSCAN_SEGMENTS_HEAD_FLAGS;
  if (spec->variant == CLI_VARIANT_BY_KEY)
    d.segments = CLSCAN_SEGMENTS_KEYS;
  if (spec->variant == CLI_VARIANT_OFFSETS)
    d.segments = CLSCAN_SEGMENTS_OFFSETS;
  d.key_type = CLSCAN_INT32;
  return d;
}

/* The rows variant's row length for n elements. */
static size_t row_length(size_t n) {
  return n % CLI_ROW_LENGTH == 0 ? CLI_ROW_LENGTH : n;
}

/* Fills the offsets variant's int32 offsets (mean segment length CLI_MEAN_SEGMENT) and the head
 * flags of the offsets and rows variants. */
static int host_offsets(cli_bench_data *d, uint64_t seed) {
  d->host_flags = malloc(d->n ? d->n : 1);
  if (!d->host_flags)
    return 0;
  if (d->spec.variant == CLI_VARIANT_ROWS) {
    for (size_t i = 0; i < d->n; i++)
      d->host_flags[i] = i % row_length(d->n) == 0;
    return 1;
  }
  const size_t cap = d->n / 2 + 2;
  uint64_t *o = malloc(cap * sizeof *o);
  if (!o)
    return 0;
  clscan_ref_fill_offsets(d->n, CLI_MEAN_SEGMENT, seed, o, cap, &d->n_segments);
  clscan_ref_offsets_to_flags(o, d->n_segments, d->host_flags, d->n);
  d->seg_bytes = (d->n_segments + 1) * sizeof(int32_t);
  d->host_segments = malloc(d->seg_bytes);
  for (size_t s = 0; d->host_segments && s <= d->n_segments; s++)
    ((int32_t *)d->host_segments)[s] = (int32_t)o[s];
  free(o);
  return d->host_segments != NULL;
}

size_t cli_bench_bytes_per_element(const cli_bench_spec *spec) {
  clscan_scan_desc d = cli_bench_desc(spec, CLSCAN_ALGO_AUTO);
  return clscan_type_size(spec->type) + clscan_type_size(spec->out_type) + cli_segment_size(&d);
}

/* Applies the map variant's map on the host, in the input type (see map_sources). */
static void map_on_host(clscan_type t, const void *in, void *out, size_t n) {
  for (size_t i = 0; i < n; i++) {
    unsigned c = (unsigned)(i & 15);
    if (t == CLSCAN_FLOAT)
      ((float *)out)[i] = ((const float *)in)[i] * 3.0f + (float)c;
    else if (t == CLSCAN_DOUBLE)
      ((double *)out)[i] = ((const double *)in)[i] * 3.0 + (double)c;
    else if (clscan_type_size(t) == 1)
      ((uint8_t *)out)[i] = (uint8_t)(((const uint8_t *)in)[i] * 3u + c);
    else if (clscan_type_size(t) == 2)
      ((uint16_t *)out)[i] = (uint16_t)(((const uint16_t *)in)[i] * 3u + c);
    else if (clscan_type_size(t) == 4)
      ((uint32_t *)out)[i] = ((const uint32_t *)in)[i] * 3u + c;
    else
      ((uint64_t *)out)[i] = ((const uint64_t *)in)[i] * 3u + c;
  }
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

/* Allocates the host arrays and fills the input, the mapped input and the segments. */
static int host_data(cli_bench_data *d, uint64_t seed) {
  const cli_bench_spec *s = &d->spec;
  clscan_scan_desc desc = cli_bench_desc(s, CLSCAN_ALGO_AUTO);
  // The host loop writes the input's type into host_out, so it holds at least the input.
  d->host_in = malloc(d->bytes);
  d->host_out = malloc(d->out_bytes > d->bytes ? d->out_bytes : d->bytes);
  d->host_ref_in = s->variant == CLI_VARIANT_MAP ? malloc(d->bytes) : d->host_in;
  d->host_segments = d->seg_bytes ? malloc(d->seg_bytes) : NULL;
  if (!d->host_in || !d->host_out || !d->host_ref_in || (d->seg_bytes && !d->host_segments)) {
    cli_error("out of host memory for %zu elements", d->n);
    return 0;
  }
  clscan_ref_fill(s->type, CLSCAN_ADD, seed, d->host_in, d->n);
  if (s->variant == CLI_VARIANT_MAP)
    map_on_host(s->type, d->host_in, d->host_ref_in, d->n);
  if (d->host_segments)
    clscan_ref_fill_segments(&desc, CLI_MEAN_SEGMENT, seed, d->host_segments, d->n);
  if ((s->variant == CLI_VARIANT_OFFSETS || s->variant == CLI_VARIANT_ROWS) &&
      !host_offsets(d, seed)) {
    cli_error("out of host memory for the offsets or flags of %zu elements", d->n);
    return 0;
  }
  return 1;
}

/* Creates the device buffers: input and segments from the host, output, copy source and copy. */
static int device_data(cli_bench_data *d) {
  d->in = new_buffer(d->ctx, d->bytes, d->host_in, "input");
  if (d->in && d->seg_bytes)
    d->segments = new_buffer(d->ctx, d->seg_bytes, d->host_segments, "segments");
  if (d->in && (!d->seg_bytes || d->segments))
    d->out = new_buffer(d->ctx, d->out_bytes, NULL, "output");
  if (d->out && d->copy_bytes > d->bytes)
    d->copy_src = new_buffer(d->ctx, d->copy_bytes, NULL, "copy source");
  if (d->out && (d->copy_bytes <= d->bytes || d->copy_src))
    d->copy = new_buffer(d->ctx, d->copy_bytes, NULL, "copy");
  return d->copy != NULL;
}

int cli_bench_data_init_spec(cli_bench_data *d, clscan_context *ctx, const cli_bench_spec *spec,
                             size_t n, uint64_t seed) {
  clscan_scan_desc desc = cli_bench_desc(spec, CLSCAN_ALGO_AUTO);
  memset(d, 0, sizeof *d);
  d->ctx = ctx;
  d->type = spec->type;
  d->spec = *spec;
  d->n = n;
  d->bytes = n * clscan_type_size(spec->type);
  d->out_bytes = n * clscan_type_size(spec->out_type);
  d->seg_bytes = n * cli_segment_size(&desc);
  d->copy_bytes = (d->bytes + d->out_bytes + d->seg_bytes + 1) / 2;
  return host_data(d, seed) && device_data(d);
}

int cli_bench_data_init(cli_bench_data *d, clscan_context *ctx, clscan_type type, size_t n,
                        uint64_t seed) {
  cli_bench_spec spec = {.type = type, .out_type = type, .variant = CLI_VARIANT_PLAIN};
  return cli_bench_data_init_spec(d, ctx, &spec, n, seed);
}

void cli_bench_data_free(cli_bench_data *d) {
  cl_mem all[5] = {d->in, d->out, d->segments, d->copy_src, d->copy};
  for (int i = 0; i < 5; i++) {
    if (all[i])
      clReleaseMemObject(all[i]);
  }
  if (d->host_ref_in != d->host_in)
    free(d->host_ref_in);
  free(d->host_in);
  free(d->host_out);
  free(d->host_segments);
  free(d->host_flags);
  memset(d, 0, sizeof *d);
}

/* ============================================================================================== */
/* Timing a plan                                                                                  */
/* ============================================================================================== */

/* Reads the output back and checks it against the host reference. */
static cli_timing verify(const clscan_scan_desc *desc, cli_bench_data *d, const char *label,
                         const char *when) {
  cl_command_queue q = clscan_context_queue(d->ctx);
  cl_int err = clEnqueueReadBuffer(q, d->out, CL_TRUE, 0, d->out_bytes, d->host_out, 0, NULL, NULL);
  if (err != CL_SUCCESS) {
    cli_error("%s: reading the result back failed: clEnqueueReadBuffer returned %d", label,
              (int)err);
    return CLI_FAILED;
  }
  // The reference scans the input the map produced on the host, so it is given no map.
  clscan_scan_desc ref = *desc;
  ref.map_source = NULL;
  const void *segments = d->host_segments;
  if (d->host_flags) {
    // Offsets and rows: the reference scans their head flags.
    ref.segments = CLSCAN_SEGMENTS_HEAD_FLAGS;
    segments = d->host_flags;
  }
  clscan_ref_mismatch m;
  if (clscan_ref_check_segmented(&ref, segments, d->host_ref_in, d->host_out, d->n, &m))
    return CLI_TIMED;
  cli_error("%s: WRONG RESULT %s: %s", label, when, m.detail);
  return CLI_WRONG;
}

/* Enqueues the variant's scan of d on the plan. The rows variant runs clscan_scan_batched() with
 * the plan's descriptor (found again in the context's cache); it returns only its last event,
 * which is then also *first (rows without padding are one kernel after the first runs). */
static clscan_status enqueue_variant(clscan_plan *plan, cli_bench_data *d, cl_event *first,
                                     cl_event *done) {
  if (d->spec.variant == CLI_VARIANT_OFFSETS)
    return clscan_plan_enqueue_offsets(plan, NULL, d->segments, 0, d->n_segments, d->in, 0, d->out,
                                       0, d->n, 0, NULL, first, done);
  if (d->spec.variant == CLI_VARIANT_ROWS) {
    const clscan_scan_desc desc = cli_bench_desc(&d->spec, clscan_plan_algorithm(plan, d->n));
    const clscan_batch b = {.rows = d->n / row_length(d->n), .row_length = row_length(d->n)};
    clscan_status st =
        clscan_scan_batched(d->ctx, NULL, &desc, &b, d->in, 0, d->out, 0, 0, NULL, done);
    if (st == CLSCAN_SUCCESS && first) {
      clRetainEvent(*done);
      *first = *done;
    }
    return st;
  }
  if (d->segments)
    return clscan_plan_enqueue_segmented(plan, NULL, d->segments, 0, d->in, 0, d->out, 0, d->n, 0,
                                         NULL, first, done);
  return clscan_plan_enqueue_timed(plan, NULL, d->in, 0, d->out, 0, d->n, 0, NULL, first, done);
}

/* Enqueues one scan, optionally timing it; waits for it. */
static cli_timing run_once(clscan_plan *plan, cli_bench_data *d, const char *label, double *ms) {
  cl_event first = NULL, done = NULL;
  cl_event *want_first = ms ? &first : NULL;
  clscan_status st = enqueue_variant(plan, d, want_first, &done);
  if (st != CLSCAN_SUCCESS) {
    cli_lib_error(st, "%s: enqueue failed", label);
    return CLI_FAILED;
  }
  int ok = clWaitForEvents(1, &done) == CL_SUCCESS && (!ms || measure_event_ms(first, done, ms));
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
  if (clEnqueueFillBuffer(q, d->out, &poison, 1, 0, d->out_bytes, 0, NULL, NULL) != CL_SUCCESS ||
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
    *ms = measure_median(times, (size_t)reps);
  free(times);
  return t;
}

int cli_time_copy(cli_bench_data *d, int reps, double *ms) {
  cl_command_queue q = clscan_context_queue(d->ctx);
  cl_mem src = d->copy_src ? d->copy_src : d->in;
  double *times = malloc((size_t)reps * sizeof *times);
  int ok = times != NULL;
  for (int i = 0; ok && i < CLI_WARMUPS + reps; i++) {
    double t = 0;
    ok = measure_copy_ms(q, src, d->copy, d->copy_bytes, &t);
    if (ok && i >= CLI_WARMUPS)
      times[i - CLI_WARMUPS] = t;
  }
  if (ok)
    *ms = measure_median(times, (size_t)reps);
  else
    cli_error("timing clEnqueueCopyBuffer of %zu bytes failed", d->copy_bytes);
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
    double start = measure_host_ms();
    scan(d->host_in, d->host_out, d->n);
    times[r] = measure_host_ms() - start;
    host_sink ^= ((unsigned char *)d->host_out)[d->bytes - 1];
  }
  return measure_median(times, HOST_RUNS);
}
