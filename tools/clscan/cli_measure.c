/*
 * The clscan program's measurements, shared by `bench` and `tune`: the benchmark variants,
 * benchmark buffers, verified and profiled timing of a plan, timing of a device copy of the same
 * bytes and of the sequential host loop.
 */
#include <math.h>
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

uint64_t cli_mix64(uint64_t seed, uint64_t i) {
  uint64_t z = seed + 0x9e3779b97f4a7c15ull * (i + 1);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

int cli_family_max_log2(const cli_family_bench *b, clscan_type type, int cpu_default, int cap) {
  cl_device_id device = clscan_context_device(b->ctx);
  int want = b->max_log2 >= 0 ? b->max_log2 : cli_device_is_gpu(device) ? 28 : cpu_default;
  if (cap < want)
    printf("note: %s sizes capped at 2^%d so that the buffers fit the device\n",
           clscan_type_name(type), cap);
  return want < cap ? want : cap;
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
    [CLSCAN_HALF] = "-x", /* x is a float; exact, so that half sums and products stay exact */
};

clscan_scan_desc cli_bench_desc(const cli_bench_spec *spec, clscan_algorithm algo) {
  clscan_scan_desc d = {.type = spec->type, .op = spec->op, .exclusive = 1, .algorithm = algo};
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
    if (t == CLSCAN_HALF)
      ((uint16_t *)out)[i] =
          clscan_half_from_double(-clscan_half_to_double(((const uint16_t *)in)[i]));
    else if (t == CLSCAN_FLOAT)
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

cl_mem cli_new_buffer(clscan_context *ctx, size_t bytes, void *host, const char *what) {
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
  clscan_ref_fill(s->type, s->op, seed, d->host_in, d->n);
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
  d->in = cli_new_buffer(d->ctx, d->bytes, d->host_in, "input");
  if (d->in && d->seg_bytes)
    d->segments = cli_new_buffer(d->ctx, d->seg_bytes, d->host_segments, "segments");
  if (d->in && (!d->seg_bytes || d->segments))
    d->out = cli_new_buffer(d->ctx, d->out_bytes, NULL, "output");
  if (d->out && d->copy_bytes > d->bytes)
    d->copy_src = cli_new_buffer(d->ctx, d->copy_bytes, NULL, "copy source");
  if (d->out && (d->copy_bytes <= d->bytes || d->copy_src))
    d->copy = cli_new_buffer(d->ctx, d->copy_bytes, NULL, "copy");
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

/* Enqueues the variant's scan of d's input into `out` on queue q (NULL: the context's), without
 * waiting; stores its first command's event in *first when first is not NULL, its last in *done.
 * The rows variant runs clscan_scan_batched() with the plan's descriptor (found again in the
 * context's cache); it returns only its last event, which is then also *first (rows without
 * padding are one kernel after the first runs). */
static clscan_status enqueue_variant(clscan_plan *plan, cli_bench_data *d, cl_command_queue q,
                                     cl_mem out, cl_event *first, cl_event *done) {
  if (d->spec.variant == CLI_VARIANT_OFFSETS)
    return clscan_plan_enqueue_offsets(plan, q, d->segments, 0, d->n_segments, d->in, 0, out, 0,
                                       d->n, 0, NULL, first, done);
  if (d->spec.variant == CLI_VARIANT_ROWS) {
    const clscan_scan_desc desc = cli_bench_desc(&d->spec, clscan_plan_algorithm(plan, d->n));
    const clscan_batch b = {.rows = d->n / row_length(d->n), .row_length = row_length(d->n)};
    clscan_status st = clscan_scan_batched(d->ctx, q, &desc, &b, d->in, 0, out, 0, 0, NULL, done);
    if (st == CLSCAN_SUCCESS && first) {
      clRetainEvent(*done);
      *first = *done;
    }
    return st;
  }
  if (d->segments)
    return clscan_plan_enqueue_segmented(plan, q, d->segments, 0, d->in, 0, out, 0, d->n, 0, NULL,
                                         first, done);
  return clscan_plan_enqueue_timed(plan, q, d->in, 0, out, 0, d->n, 0, NULL, first, done);
}

/* enqueue_variant(), reporting a failure under `label`. */
static cli_timing enqueue_scan(clscan_plan *plan, cli_bench_data *d, cl_command_queue q, cl_mem out,
                               const char *label, cl_event *first, cl_event *done) {
  clscan_status st = enqueue_variant(plan, d, q, out, first, done);
  if (st == CLSCAN_SUCCESS)
    return CLI_TIMED;
  cli_lib_error(st, "%s: enqueue failed", label);
  return CLI_FAILED;
}

/* Enqueues one scan, optionally timing it; waits for it. */
static cli_timing run_once(clscan_plan *plan, cli_bench_data *d, const char *label, double *ms) {
  cl_event first = NULL, done = NULL;
  const double start = measure_host_ms();
  if (enqueue_scan(plan, d, NULL, d->out, label, ms ? &first : NULL, &done) != CLI_TIMED)
    return CLI_FAILED;
  int ok = clWaitForEvents(1, &done) == CL_SUCCESS;
  ok = ok && (!ms || measure_span_ms(first, done, measure_host_ms() - start, ms));
  if (first)
    clReleaseEvent(first);
  clReleaseEvent(done);
  if (!ok)
    cli_error("%s: waiting for the scan or reading its profiling times failed", label);
  return ok ? CLI_TIMED : CLI_FAILED;
}

/* A plan being timed, for cli_time_verified(). */
typedef struct plan_runs {
  clscan_plan *plan;
  const clscan_scan_desc *desc;
  cli_bench_data *d;
  const char *label;
} plan_runs;

static int plan_run(void *state, double *ms) {
  const plan_runs *p = state;
  return run_once(p->plan, p->d, p->label, ms) == CLI_TIMED;
}

static cli_timing plan_check(void *state, const char *when) {
  const plan_runs *p = state;
  return verify(p->desc, p->d, p->label, when);
}

cli_timing cli_time_plan(clscan_plan *plan, const clscan_scan_desc *desc, cli_bench_data *d,
                         int reps, const char *label, double *ms) {
  // A poisoned output makes a scan that writes nothing fail, even after another algorithm.
  const unsigned char poison = 0x5a;
  cl_command_queue q = clscan_context_queue(d->ctx);
  if (clEnqueueFillBuffer(q, d->out, &poison, 1, 0, d->out_bytes, 0, NULL, NULL) != CL_SUCCESS ||
      clFinish(q) != CL_SUCCESS) {
    cli_error("%s: clearing the output buffer failed", label);
    return CLI_FAILED;
  }
  plan_runs p = {.plan = plan, .desc = desc, .d = d, .label = label};
  cli_verified_runs v = {.run = plan_run, .check = plan_check, .state = &p};
  return cli_time_verified(&v, reps, ms);
}

cli_timing cli_time_verified(const cli_verified_runs *v, int reps, double *ms) {
  cli_timing t = v->run(v->state, NULL) ? v->check(v->state, "before timing") : CLI_FAILED;
  for (int i = 0; i < CLI_WARMUPS && t == CLI_TIMED; i++)
    t = v->run(v->state, NULL) ? CLI_TIMED : CLI_FAILED;
  double *times = t == CLI_TIMED ? malloc((size_t)reps * sizeof *times) : NULL;
  if (t == CLI_TIMED && !times) {
    cli_error("out of host memory");
    t = CLI_FAILED;
  }
  for (int i = 0; i < reps && t == CLI_TIMED; i++)
    t = v->run(v->state, &times[i]) ? CLI_TIMED : CLI_FAILED;
  if (t == CLI_TIMED)
    t = v->check(v->state, "after timing");
  if (t == CLI_TIMED)
    *ms = measure_median(times, (size_t)reps);
  free(times);
  return t;
}

/* The buffers of the reruns: the verified output, and with a second queue its output buffer. */
typedef struct rerun_state {
  clscan_plan *plan;
  cli_bench_data *d;
  const char *label;
  unsigned char *want;
  cl_command_queue q2; /* NULL: one queue */
  cl_mem out2;
  int differ;
} rerun_state;

/* Poisons an output buffer (a rerun that skips elements then differs). */
static int poison_output(cl_command_queue q, cl_mem out, size_t bytes) {
  const unsigned char poison = 0x5a;
  return clEnqueueFillBuffer(q, out, &poison, 1, 0, bytes, 0, NULL, NULL) == CL_SUCCESS &&
         clFinish(q) == CL_SUCCESS;
}

/* Reads an output back into d->host_out and counts it in r->differ if it is not r->want. */
static int compare_output(rerun_state *r, cl_command_queue q, cl_mem out) {
  cli_bench_data *d = r->d;
  if (clEnqueueReadBuffer(q, out, CL_TRUE, 0, d->out_bytes, d->host_out, 0, NULL, NULL) !=
      CL_SUCCESS) {
    cli_error("%s: reading a rerun's output back failed", r->label);
    return 0;
  }
  r->differ += memcmp(r->want, d->host_out, d->out_bytes) != 0;
  return 1;
}

/* One rerun over poisoned outputs: on the context's queue, and at the same time on the second
 * queue when there is one. */
static cli_timing rerun_once(rerun_state *r) {
  cli_bench_data *d = r->d;
  cl_command_queue q = clscan_context_queue(d->ctx);
  cl_event done[2] = {NULL, NULL};
  if (!poison_output(q, d->out, d->out_bytes) ||
      (r->q2 && !poison_output(r->q2, r->out2, d->out_bytes))) {
    cli_error("%s: clearing the output buffer failed", r->label);
    return CLI_FAILED;
  }
  cli_timing t = enqueue_scan(r->plan, d, q, d->out, r->label, NULL, &done[0]);
  if (t == CLI_TIMED && r->q2)
    t = enqueue_scan(r->plan, d, r->q2, r->out2, r->label, NULL, &done[1]);
  cl_uint events = done[1] ? 2 : 1;
  if (done[0] && clWaitForEvents(events, done) != CL_SUCCESS) {
    cli_error("%s: waiting for a rerun failed", r->label);
    t = CLI_FAILED;
  }
  for (int i = 0; i < 2; i++) {
    if (done[i])
      clReleaseEvent(done[i]);
  }
  if (t == CLI_TIMED && !compare_output(r, q, d->out))
    t = CLI_FAILED;
  if (t == CLI_TIMED && r->q2 && !compare_output(r, r->q2, r->out2))
    t = CLI_FAILED;
  return t;
}

/* Creates the second queue and its output buffer; prints the failure and returns 0 if it cannot. */
static int second_queue(rerun_state *r) {
  cl_int err;
  cl_context cl = clscan_context_cl_context(r->d->ctx);
  r->q2 = clCreateCommandQueue(cl, clscan_context_device(r->d->ctx), 0, &err);
  if (err != CL_SUCCESS) {
    cli_error("%s: cannot create a second queue: clCreateCommandQueue returned %d", r->label,
              (int)err);
    r->q2 = NULL;
    return 0;
  }
  r->out2 = cli_new_buffer(r->d->ctx, r->d->out_bytes, NULL, "second output");
  return r->out2 != NULL;
}

cli_timing cli_count_rerun_differences(clscan_plan *plan, cli_bench_data *d, int reruns,
                                       int two_queues, const char *label, int *differ) {
  rerun_state r = {.plan = plan, .d = d, .label = label};
  *differ = 0;
  if (reruns <= 0)
    return CLI_TIMED;
  r.want = malloc(d->out_bytes);
  if (!r.want) {
    cli_error("%s: out of host memory for the reruns", label);
    return CLI_FAILED;
  }
  memcpy(r.want, d->host_out, d->out_bytes);
  cli_timing t = !two_queues || second_queue(&r) ? CLI_TIMED : CLI_FAILED;
  for (int i = 0; i < reruns && t == CLI_TIMED; i++)
    t = rerun_once(&r);
  *differ = r.differ;
  if (r.out2)
    clReleaseMemObject(r.out2);
  if (r.q2)
    clReleaseCommandQueue(r.q2);
  free(r.want);
  return t;
}

/* The bytes of the clock probe's copy. */
#define CLOCK_PROBE_BYTES ((size_t)4 << 20)

int cli_choose_clock(clscan_context *ctx) {
  cl_device_id device = clscan_context_device(ctx);
  cl_ulong max_alloc = cli_device_ulong(device, CL_DEVICE_MAX_MEM_ALLOC_SIZE);
  size_t bytes = max_alloc < CLOCK_PROBE_BYTES ? (size_t)max_alloc : CLOCK_PROBE_BYTES;
  cl_mem src = cli_new_buffer(ctx, bytes, NULL, "clock probe");
  cl_mem dst = src ? cli_new_buffer(ctx, bytes, NULL, "clock probe") : NULL;
  double event_ms = -1, wall_ms = 0;
  cl_command_queue q = clscan_context_queue(ctx);
  // A warm-up copy first (the first use of a buffer may allocate it), then the probe.
  int usable = dst && measure_events_usable(q, src, dst, bytes, NULL, NULL);
  usable = dst && measure_events_usable(q, src, dst, bytes, &event_ms, &wall_ms);
  if (dst)
    clReleaseMemObject(dst);
  if (src)
    clReleaseMemObject(src);
  if (!dst)
    return 0;
  measure_use_wall_clock(!usable);
  if (usable)
    printf("timing:  profiling events (the first command's start to the last command's end)\n");
  else if (event_ms < 0)
    printf(
        "timing:  wall clock around each enqueue and its wait: this device's profiling\n"
        "         events cannot be read (a copy of %zu bytes took %.4f ms)\n",
        bytes, wall_ms);
  else
    printf(
        "timing:  wall clock around each enqueue and its wait: this device's profiling\n"
        "         events do not measure (a copy of %zu bytes read %.6f ms by its events,\n"
        "         %.4f ms on the host clock)\n",
        bytes, event_ms, wall_ms);
  return 1;
}

int cli_time_copy(cli_bench_data *d, int reps, double *ms) {
  cl_command_queue q = clscan_context_queue(d->ctx);
  cl_mem src = d->copy_src ? d->copy_src : d->in;
  const int ok = measure_copy_median_ms(q, src, d->copy, d->copy_bytes, CLI_WARMUPS, reps, ms);
  if (!ok)
    cli_error("timing clEnqueueCopyBuffer of %zu bytes failed", d->copy_bytes);
  return ok;
}

/* ============================================================================================== */
/* The sequential host loop                                                                       */
/* ============================================================================================== */

/* A host loop over n elements of `in`: an exclusive scan into `out`, or a fold into out[0]. */
typedef void (*host_loop_fn)(const void *in, void *out, size_t n);

/* The two host loops of a type and operator. */
typedef struct host_loops {
  host_loop_fn scan, fold;
} host_loops;

/* Defines, in plain C over T, an exclusive scan NAME and a fold fold_NAME, each starting from
 * INIT and combining with COMBINE, an expression of the running value `acc` and the element
 * `v`. */
#define HOST_LOOPS(T, NAME, INIT, COMBINE)                       \
  static void NAME(const void *in, void *out, size_t n) {        \
    const T *x = in;                                             \
    T *y = out, acc = INIT;                                      \
    for (size_t i = 0; i < n; i++) {                             \
      T v = x[i];                                                \
      y[i] = acc;                                                \
      acc = (T)(COMBINE);                                        \
    }                                                            \
  }                                                              \
  static void fold_##NAME(const void *in, void *out, size_t n) { \
    const T *x = in;                                             \
    T acc = INIT;                                                \
    for (size_t i = 0; i < n; i++) {                             \
      T v = x[i];                                                \
      acc = (T)(COMBINE);                                        \
    }                                                            \
    *(T *)out = acc;                                             \
  }

/* Both loops of NAME, for the tables below. */
#define LOOPS(NAME) \
  { NAME, fold_##NAME }

/* Add, mul, and, or and xor by element width, in the unsigned type (integers wrap, as on the
 * device); add and mul of the floating types. */
#define HOST_WIDTH_OPS(U, S)                \
  HOST_LOOPS(U, add_##S, 0, acc + v)        \
  HOST_LOOPS(U, mul_##S, 1, acc *v)         \
  HOST_LOOPS(U, and_##S, (U) ~(U)0, acc &v) \
  HOST_LOOPS(U, or_##S, 0, acc | v)         \
  HOST_LOOPS(U, xor_##S, 0, acc ^ v)
HOST_WIDTH_OPS(uint8_t, u8)
HOST_WIDTH_OPS(uint16_t, u16)
HOST_WIDTH_OPS(uint32_t, u32)
HOST_WIDTH_OPS(uint64_t, u64)
HOST_LOOPS(float, add_f32, 0, acc + v)
HOST_LOOPS(float, mul_f32, 1, acc *v)
HOST_LOOPS(double, add_f64, 0, acc + v)
HOST_LOOPS(double, mul_f64, 1, acc *v)

/* Min and max in each type's own order, from its largest and smallest value. */
#define HOST_MIN_MAX(T, S, LO, HI)              \
  HOST_LOOPS(T, min_##S, HI, v < acc ? v : acc) \
  HOST_LOOPS(T, max_##S, LO, acc < v ? v : acc)
HOST_MIN_MAX(int8_t, i8, INT8_MIN, INT8_MAX)
HOST_MIN_MAX(uint8_t, u8, 0, UINT8_MAX)
HOST_MIN_MAX(int16_t, i16, INT16_MIN, INT16_MAX)
HOST_MIN_MAX(uint16_t, u16, 0, UINT16_MAX)
HOST_MIN_MAX(int32_t, i32, INT32_MIN, INT32_MAX)
HOST_MIN_MAX(uint32_t, u32, 0, UINT32_MAX)
HOST_MIN_MAX(int64_t, i64, INT64_MIN, INT64_MAX)
HOST_MIN_MAX(uint64_t, u64, 0, UINT64_MAX)
HOST_MIN_MAX(float, f32, -HUGE_VALF, HUGE_VALF)
HOST_MIN_MAX(double, f64, -HUGE_VAL, HUGE_VAL)

/* Keeps the host loop's results observable, so that the compiler cannot drop the loop. */
static volatile unsigned char host_sink;

/* Returns the host loops of an operator that does not depend on the signedness: by element width
 * for integers; none for the bitwise operators of the floating types. */
static host_loops host_width_loops(clscan_type type, clscan_op op) {
  static const host_loops by_width[4][5] = {
      {LOOPS(add_u8), LOOPS(mul_u8), LOOPS(and_u8), LOOPS(or_u8), LOOPS(xor_u8)},
      {LOOPS(add_u16), LOOPS(mul_u16), LOOPS(and_u16), LOOPS(or_u16), LOOPS(xor_u16)},
      {LOOPS(add_u32), LOOPS(mul_u32), LOOPS(and_u32), LOOPS(or_u32), LOOPS(xor_u32)},
      {LOOPS(add_u64), LOOPS(mul_u64), LOOPS(and_u64), LOOPS(or_u64), LOOPS(xor_u64)}};
  static const host_loops f32[2] = {LOOPS(add_f32), LOOPS(mul_f32)};
  static const host_loops f64[2] = {LOOPS(add_f64), LOOPS(mul_f64)};
  static const int column[CLSCAN_OP_COUNT] = {
      [CLSCAN_ADD] = 0, [CLSCAN_MUL] = 1, [CLSCAN_AND] = 2, [CLSCAN_OR] = 3, [CLSCAN_XOR] = 4};
  const host_loops none = {NULL, NULL};
  if (type == CLSCAN_FLOAT || type == CLSCAN_DOUBLE) {
    if (op != CLSCAN_ADD && op != CLSCAN_MUL)
      return none;
    return (type == CLSCAN_FLOAT ? f32 : f64)[op == CLSCAN_MUL];
  }
  size_t e = clscan_type_size(type);
  int row = e == 1 ? 0 : e == 2 ? 1 : e == 4 ? 2 : 3;
  return by_width[row][column[op]];
}

/* Returns the host loops of a type and built-in operator; NULLs where there are none. */
static host_loops host_loops_for(clscan_type type, clscan_op op) {
  static const host_loops min_max[CLSCAN_TYPE_COUNT][2] = {
      [CLSCAN_INT32] = {LOOPS(min_i32), LOOPS(max_i32)},
      [CLSCAN_UINT32] = {LOOPS(min_u32), LOOPS(max_u32)},
      [CLSCAN_INT64] = {LOOPS(min_i64), LOOPS(max_i64)},
      [CLSCAN_UINT64] = {LOOPS(min_u64), LOOPS(max_u64)},
      [CLSCAN_FLOAT] = {LOOPS(min_f32), LOOPS(max_f32)},
      [CLSCAN_DOUBLE] = {LOOPS(min_f64), LOOPS(max_f64)},
      [CLSCAN_INT8] = {LOOPS(min_i8), LOOPS(max_i8)},
      [CLSCAN_UINT8] = {LOOPS(min_u8), LOOPS(max_u8)},
      [CLSCAN_INT16] = {LOOPS(min_i16), LOOPS(max_i16)},
      [CLSCAN_UINT16] = {LOOPS(min_u16), LOOPS(max_u16)}};
  const host_loops none = {NULL, NULL};
  if ((unsigned)type >= CLSCAN_TYPE_COUNT || (unsigned)op >= CLSCAN_OP_COUNT)
    return none;
  if (op == CLSCAN_MIN || op == CLSCAN_MAX)
    return min_max[type][op == CLSCAN_MAX];
  return host_width_loops(type, op);
}

/* Times a host loop over d's input into d's host output (median of HOST_RUNS); 0 without one. */
static double time_host(host_loop_fn loop, const cli_bench_data *d) {
  double times[HOST_RUNS];
  if (!loop)
    return 0;
  for (int r = 0; r < HOST_RUNS; r++) {
    double start = measure_host_ms();
    loop(d->host_in, d->host_out, d->n);
    times[r] = measure_host_ms() - start;
    host_sink ^= ((unsigned char *)d->host_out)[0];
  }
  return measure_median(times, HOST_RUNS);
}

double cli_time_host_loop(const cli_bench_data *d) {
  return time_host(host_loops_for(d->type, d->spec.op).scan, d);
}

double cli_time_host_fold(const cli_bench_data *d) {
  if (d->spec.out_type != d->type)
    return 0;
  return time_host(host_loops_for(d->type, d->spec.op).fold, d);
}
