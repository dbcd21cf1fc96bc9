/*
 * The clscan program's `bench --family select`: the selection primitives (select by flags at
 * selected fractions from 0 to 100 %, select by predicate and partition at 50 %, the partition
 * into one buffer, into two (partition-copy, the rejected ones to a buffer of their own) and into
 * one with its rejected part reversed (partition-reversed, CUB's layout), unique and run-length
 * encoding of runs of mean length 4), each verified against a host computation
 * before and after it is timed, next to a device copy of the bytes it must move and a sequential
 * host loop doing the same job.
 *
 * The bytes a primitive must move count its inputs read once and its outputs written once: for
 * select by flags of n elements of e bytes with c selected, n * (e + 1) + c * e + the count; the
 * copy copies half of them (read once and written once), as for the scans. The expected results
 * come from the tests' host reference (tests/reference/ref_select.h), with the predicate
 * recomputed from the values the input was generated from; the device's count, elements and run
 * lengths must match them exactly. The timed host loops are this file's own plain C loops.
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "measure.h"
#include "ref_select.h"

/* Bytes of the count and of each run length in every measurement (uint32, as CUB's int). */
#define SB_COUNT_SIZE 4

/* Mean run length of the unique and rle inputs. */
#define SB_MEAN_RUN 4

/* The predicate of select-pred and partition; the input's values lie in [0, 100). */
#define SB_PREDICATE "x < 50"

/* Timed runs of the host loop (the median is reported). */
#define SB_HOST_RUNS 3

/* The selected fractions of the select-by-flags sweep, in percent. */
static const int sweep_percent[] = {0, 1, 10, 50, 90, 99, 100};
#define SWEEP_COUNT (sizeof sweep_percent / sizeof sweep_percent[0])

/* ============================================================================================== */
/* The primitives measured                                                                        */
/* ============================================================================================== */

/* What one row measures. */
typedef enum sb_kind {
  SB_SELECT_FLAGS = 0,
  SB_SELECT_PRED,
  SB_PARTITION,
  SB_PARTITION_COPY,     /* into two buffers: the rejected ones to d->rejected */
  SB_PARTITION_REVERSED, /* into one buffer, the rejected ones from its end (reverse_rejected) */
  SB_UNIQUE,
  SB_RLE
} sb_kind;
#define SB_KIND_COUNT 7

static const char *const kind_names[SB_KIND_COUNT] = {
    "select-flags",       "select-pred", "partition", "partition-copy",
    "partition-reversed", "unique",      "rle"};

int cli_select_kind_from_name(const char *name, int *kind) {
  for (int k = 0; k < SB_KIND_COUNT; k++) {
    if (strcmp(name, kind_names[k]) == 0) {
      *kind = k;
      return 1;
    }
  }
  return 0;
}

unsigned cli_select_all_kinds(void) {
  return (1u << SB_KIND_COUNT) - 1;
}

/* The operation of each kind. */
static const clscan_select_op kind_ops[SB_KIND_COUNT] = {
    CLSCAN_SELECT,    CLSCAN_SELECT, CLSCAN_PARTITION,        CLSCAN_PARTITION,
    CLSCAN_PARTITION, CLSCAN_UNIQUE, CLSCAN_RUN_LENGTH_ENCODE};

/* Returns 1 for the partitions. */
static int is_partition(sb_kind k) {
  return kind_ops[k] == CLSCAN_PARTITION;
}

/* Returns 1 for the kinds selected by SB_PREDICATE. */
static int by_predicate(sb_kind k) {
  return k == SB_SELECT_PRED || is_partition(k);
}

/* Returns the selection descriptor of a kind for a type and algorithm. */
static clscan_select_desc kind_desc(sb_kind k, clscan_type type, clscan_algorithm algo) {
  clscan_select_desc d = {
      .op = kind_ops[k], .type = type, .count_size = SB_COUNT_SIZE, .algorithm = algo};
  if (by_predicate(k))
    d.predicate_source = SB_PREDICATE;
  d.reverse_rejected = k == SB_PARTITION_REVERSED;
  return d;
}

/* ============================================================================================== */
/* Host data and the host loops                                                                   */
/* ============================================================================================== */

/* Stores the small integer v (0..99) as element i of `type` (integers by their width). */
static void store_small(clscan_type type, void *data, size_t i, unsigned v) {
  if (type == CLSCAN_FLOAT)
    ((float *)data)[i] = (float)v;
  else if (type == CLSCAN_DOUBLE)
    ((double *)data)[i] = (double)v;
  else if (clscan_type_size(type) == 1)
    ((uint8_t *)data)[i] = (uint8_t)v;
  else if (clscan_type_size(type) == 2)
    ((uint16_t *)data)[i] = (uint16_t)v;
  else if (clscan_type_size(type) == 4)
    ((uint32_t *)data)[i] = v;
  else
    ((uint64_t *)data)[i] = v;
}

/* Fills the random input (values in [0, 100)), the input of runs and the flags of percent %. */
static void fill_values(clscan_type type, uint64_t seed, void *in, void *runs, size_t n) {
  unsigned v = 0;
  for (size_t i = 0; i < n; i++) {
    uint64_t h = cli_mix64(seed, i);
    store_small(type, in, i, (unsigned)(h % 100));
    // A new run starts with probability 1 / SB_MEAN_RUN, with a value unlike the last.
    if (i > 0 && (h >> 32) % SB_MEAN_RUN == 0)
      v = (v + 1 + (unsigned)((h >> 40) % 99)) % 100;
    store_small(type, runs, i, v);
  }
}

static void fill_flags(uint64_t seed, int percent, unsigned char *flags, size_t n) {
  for (size_t i = 0; i < n; i++)
    flags[i] = (unsigned char)(cli_mix64(seed ^ 0xf1a9, i) % 10000 < (uint64_t)percent * 100);
}

/* The host loops by element width: select by flags, unique and rle compare and copy bits (the
 * inputs hold no -0.0 or NaN, so bits and values agree); the predicate loops compare values. */
#define SB_HOST_BITS(T, SUFFIX)                                                            \
  static uint64_t select_flags_##SUFFIX(const void *in, const unsigned char *f, void *out, \
                                        size_t n) {                                        \
    const T *x = in;                                                                       \
    T *y = out;                                                                            \
    uint64_t c = 0;                                                                        \
    for (size_t i = 0; i < n; i++) {                                                       \
      y[c] = x[i];                                                                         \
      c += f[i] != 0;                                                                      \
    }                                                                                      \
    return c;                                                                              \
  }                                                                                        \
  static uint64_t rle_##SUFFIX(const void *in, void *out, uint32_t *lengths, size_t n) {   \
    const T *x = in;                                                                       \
    T *y = out;                                                                            \
    uint64_t c = 0;                                                                        \
    for (size_t i = 0; i < n; i++) {                                                       \
      if (i == 0 || x[i] != x[i - 1]) {                                                    \
        y[c] = x[i];                                                                       \
        if (lengths)                                                                       \
          lengths[c] = 0;                                                                  \
        c++;                                                                               \
      }                                                                                    \
      if (lengths)                                                                         \
        lengths[c - 1]++;                                                                  \
    }                                                                                      \
    return c;                                                                              \
  }
SB_HOST_BITS(uint8_t, u8)
SB_HOST_BITS(uint16_t, u16)
SB_HOST_BITS(uint32_t, u32)
SB_HOST_BITS(uint64_t, u64)

/* Select and partition by SB_PREDICATE (x < 50) in the element's own type. The partition's
 * rejected elements go to `rejected` (n elements), then, with `join` 1, after the selected ones;
 * with `join` 2 they go from the end of `out` backwards instead (each element is stored at both
 * next slots; the later ones overwrite what is not theirs). */
#define SB_HOST_PRED(T, SUFFIX)                                                                  \
  static uint64_t pred_##SUFFIX(const void *in, void *out, void *rejected, int join, size_t n) { \
    const T *x = in;                                                                             \
    T *y = out, *r = rejected;                                                                   \
    uint64_t c = 0, d = 0;                                                                       \
    if (join == 2) {                                                                             \
      for (size_t i = 0; i < n; i++) {                                                           \
        int keep = x[i] < (T)50;                                                                 \
        y[c] = x[i];                                                                             \
        y[n - 1 - d] = x[i];                                                                     \
        c += keep;                                                                               \
        d += !keep;                                                                              \
      }                                                                                          \
      return c;                                                                                  \
    }                                                                                            \
    for (size_t i = 0; i < n; i++) {                                                             \
      int keep = x[i] < (T)50;                                                                   \
      y[c] = x[i];                                                                               \
      c += keep;                                                                                 \
      if (r) {                                                                                   \
        r[d] = x[i];                                                                             \
        d += !keep;                                                                              \
      }                                                                                          \
    }                                                                                            \
    if (r && join)                                                                               \
      memcpy(y + c, r, (size_t)d * sizeof(T));                                                   \
    return c;                                                                                    \
  }
SB_HOST_PRED(int8_t, i8)
SB_HOST_PRED(uint8_t, u8)
SB_HOST_PRED(int16_t, i16)
SB_HOST_PRED(uint16_t, u16)
SB_HOST_PRED(int32_t, i32)
SB_HOST_PRED(uint32_t, u32)
SB_HOST_PRED(int64_t, i64)
SB_HOST_PRED(uint64_t, u64)
SB_HOST_PRED(float, f32)
SB_HOST_PRED(double, f64)

typedef uint64_t (*sb_flags_fn)(const void *, const unsigned char *, void *, size_t);
typedef uint64_t (*sb_rle_fn)(const void *, void *, uint32_t *, size_t);
typedef uint64_t (*sb_pred_fn)(const void *, void *, void *, int, size_t);

static sb_flags_fn flags_fn(clscan_type t) {
  size_t e = clscan_type_size(t);
  return e == 1   ? select_flags_u8
         : e == 2 ? select_flags_u16
         : e == 4 ? select_flags_u32
                  : select_flags_u64;
}

static sb_rle_fn rle_fn(clscan_type t) {
  size_t e = clscan_type_size(t);
  return e == 1 ? rle_u8 : e == 2 ? rle_u16 : e == 4 ? rle_u32 : rle_u64;
}

static sb_pred_fn pred_fn(clscan_type t) {
  static const sb_pred_fn fns[CLSCAN_TYPE_COUNT] = {
      [CLSCAN_INT32] = pred_i32,  [CLSCAN_UINT32] = pred_u32, [CLSCAN_INT64] = pred_i64,
      [CLSCAN_UINT64] = pred_u64, [CLSCAN_FLOAT] = pred_f32,  [CLSCAN_DOUBLE] = pred_f64,
      [CLSCAN_INT8] = pred_i8,    [CLSCAN_UINT8] = pred_u8,   [CLSCAN_INT16] = pred_i16,
      [CLSCAN_UINT16] = pred_u16};
  return fns[t];
}

/* The host side of one size: inputs, the expected results of the row being measured, the
 * device's results read back, and what the host loop writes. */
typedef struct sb_host {
  clscan_type type;
  size_t n, elem;
  uint64_t seed;
  unsigned char *in, *runs, *flags, *sel, *want, *loop_out, *loop_rejected, *got;
  uint64_t *ref_lengths;
  uint32_t *want_lengths, *loop_lengths, *got_lengths;
  uint64_t want_count;
} sb_host;

/* Marks what selects for a kind in h->sel: the flags, the predicate (recomputed from the small
 * values the input was generated from, not from the typed elements), or the heads of runs. */
static const unsigned char *selection(sb_host *h, sb_kind k) {
  if (k == SB_SELECT_FLAGS)
    return h->flags;
  if (k >= SB_UNIQUE) {
    clscan_ref_heads(h->type, NULL, h->runs, h->elem, h->n, h->sel);
    return h->sel;
  }
  for (size_t i = 0; i < h->n; i++)
    h->sel[i] = cli_mix64(h->seed, i) % 100 < 50;
  return h->sel;
}

/* Computes the expected results of a kind with the tests' host reference (ref_select.h). */
static void host_expect(sb_host *h, sb_kind k) {
  const unsigned char *sel = selection(h, k);
  const void *vals = k >= SB_UNIQUE ? h->runs : h->in;
  h->want_count = clscan_ref_select(kind_ops[k], vals, h->elem, sel, h->n, h->want,
                                    k == SB_RLE ? h->ref_lengths : NULL, h->n);
  // The rejected part reversed: swap its elements end for end.
  for (size_t a = (size_t)h->want_count, z = h->n; k == SB_PARTITION_REVERSED && a + 1 < z;
       a++, z--) {
    unsigned char t[8], *p = h->want + a * h->elem, *q = h->want + (z - 1) * h->elem;
    memcpy(t, p, h->elem);
    memcpy(p, q, h->elem);
    memcpy(q, t, h->elem);
  }
  for (uint64_t r = 0; k == SB_RLE && r < h->want_count; r++)
    h->want_lengths[r] = (uint32_t)h->ref_lengths[r];
}

/* Runs the sequential host loop of a kind once (into the loop's own arrays). */
static void host_loop(sb_host *h, sb_kind k) {
  switch (k) {
    case SB_SELECT_FLAGS:
      flags_fn(h->type)(h->in, h->flags, h->loop_out, h->n);
      break;
    case SB_SELECT_PRED:
      pred_fn(h->type)(h->in, h->loop_out, NULL, 0, h->n);
      break;
    case SB_PARTITION:
    case SB_PARTITION_COPY:
      pred_fn(h->type)(h->in, h->loop_out, h->loop_rejected, k == SB_PARTITION, h->n);
      break;
    case SB_PARTITION_REVERSED:
      pred_fn(h->type)(h->in, h->loop_out, NULL, 2, h->n);
      break;
    case SB_UNIQUE:
      rle_fn(h->type)(h->runs, h->loop_out, NULL, h->n);
      break;
    default:
      rle_fn(h->type)(h->runs, h->loop_out, h->loop_lengths, h->n);
      break;
  }
}

/* Returns the host loop's median time in ms. */
static double host_time(sb_host *h, sb_kind k) {
  double times[SB_HOST_RUNS];
  for (int r = 0; r < SB_HOST_RUNS; r++) {
    double start = measure_host_ms();
    host_loop(h, k);
    times[r] = measure_host_ms() - start;
  }
  return measure_median(times, SB_HOST_RUNS);
}

/* Returns the number of elements a kind writes: n for partitions, else the count. */
static size_t out_elements(const sb_host *h, sb_kind k) {
  return is_partition(k) ? h->n : (size_t)h->want_count;
}

/* Returns the bytes a kind must move: inputs read once, outputs (and the count) written once. */
static double bytes_moved(const sb_host *h, sb_kind k) {
  double n = (double)h->n, e = (double)h->elem, c = (double)h->want_count;
  double in = n * e + (k == SB_SELECT_FLAGS ? n : 0);
  double out = (double)out_elements(h, k) * e + (k == SB_RLE ? c * SB_COUNT_SIZE : 0);
  return in + out + SB_COUNT_SIZE;
}

/* ============================================================================================== */
/* Device buffers                                                                                 */
/* ============================================================================================== */

/* The device buffers of one size. */
typedef struct sb_device {
  cl_mem in, runs, flags, out, lengths, count, copy_src, copy_dst, rejected;
  size_t copy_cap; /* bytes of each copy buffer */
} sb_device;

/* Bytes per element of every device buffer together: input, runs, flags, output, lengths,
 * rejected and the two copy buffers (each half of what a row could move at most,
 * n * (2e + 4) + the count). */
static size_t device_bytes_per_element(size_t e) {
  return e + e + 1 + e + SB_COUNT_SIZE + e + 2 * (e + SB_COUNT_SIZE / 2);
}

static void device_free(sb_device *d) {
  cl_mem all[9] = {d->in,    d->runs,     d->flags,    d->out,     d->lengths,
                   d->count, d->copy_src, d->copy_dst, d->rejected};
  for (int i = 0; i < 9; i++) {
    if (all[i])
      clReleaseMemObject(all[i]);
  }
  memset(d, 0, sizeof *d);
}

static int device_init(clscan_context *ctx, const sb_host *h, sb_device *d) {
  size_t n = h->n, e = h->elem;
  memset(d, 0, sizeof *d);
  d->copy_cap = (n * (2 * e + SB_COUNT_SIZE) + SB_COUNT_SIZE + 1) / 2;
  d->in = cli_new_buffer(ctx, n * e, h->in, "input");
  d->runs = d->in ? cli_new_buffer(ctx, n * e, h->runs, "runs input") : NULL;
  d->flags = d->runs ? cli_new_buffer(ctx, n, NULL, "flags") : NULL;
  d->out = d->flags ? cli_new_buffer(ctx, n * e, NULL, "output") : NULL;
  d->lengths = d->out ? cli_new_buffer(ctx, n * SB_COUNT_SIZE, NULL, "lengths") : NULL;
  d->count = d->lengths ? cli_new_buffer(ctx, SB_COUNT_SIZE, NULL, "count") : NULL;
  d->copy_src = d->count ? cli_new_buffer(ctx, d->copy_cap, NULL, "copy source") : NULL;
  d->copy_dst = d->copy_src ? cli_new_buffer(ctx, d->copy_cap, NULL, "copy") : NULL;
  d->rejected = d->copy_dst ? cli_new_buffer(ctx, n * e, NULL, "rejected") : NULL;
  return d->rejected != NULL;
}

/* ============================================================================================== */
/* Running, verifying and timing one row                                                          */
/* ============================================================================================== */

/* One measurement in progress. */
typedef struct sb_run {
  const cli_family_bench *b;
  cl_command_queue q;
  sb_host *h;
  sb_device *d;
  clscan_select_plan *plan;
  sb_kind kind;
  const char *algo_name;
  char label[96]; /* names the row in messages */
} sb_run;

/* Enqueues the selection once and waits; with ms, stores the time from its first command's start
 * to its last command's end (the wall time if profiling fails). */
static int run_once(void *state, double *ms) {
  const sb_run *r = state;
  clscan_select_buffers bufs = {.in = r->kind >= SB_UNIQUE ? r->d->runs : r->d->in,
                                .flags = r->kind == SB_SELECT_FLAGS ? r->d->flags : NULL,
                                .out = r->d->out,
                                .out_capacity = r->h->n,
                                .lengths = r->kind == SB_RLE ? r->d->lengths : NULL,
                                .count = r->d->count};
  if (r->kind == SB_PARTITION_COPY) {
    bufs.rejected = r->d->rejected;
    bufs.rejected_capacity = r->h->n;
  }
  cl_event first = NULL, done = NULL;
  double start = measure_host_ms();
  clscan_status st = clscan_select_enqueue_timed(r->plan, r->q, &bufs, r->h->n, 0, NULL,
                                                 ms ? &first : NULL, &done);
  if (st != CLSCAN_SUCCESS) {
    cli_lib_error(st, "%s: enqueue failed", r->label);
    return 0;
  }
  int ok = clWaitForEvents(1, &done) == CL_SUCCESS;
  double wall = measure_host_ms() - start;
  if (ok && ms && !measure_span_ms(first, done, wall, ms))
    *ms = wall;
  if (first)
    clReleaseEvent(first);
  clReleaseEvent(done);
  if (!ok)
    cli_error("%s: waiting for the selection failed", r->label);
  return ok;
}

/* Reads the count, the elements and the lengths back and compares them with the host's. */
static cli_timing verify(void *state, const char *when) {
  const sb_run *r = state;
  sb_host *h = r->h;
  uint32_t count = 0;
  size_t elems = out_elements(h, r->kind);
  // A partition into two buffers: the selected ones from out, the rejected ones after them.
  size_t from_out = r->kind == SB_PARTITION_COPY ? (size_t)h->want_count : elems;
  cl_int err = clEnqueueReadBuffer(r->q, r->d->count, CL_TRUE, 0, 4, &count, 0, NULL, NULL);
  if (err == CL_SUCCESS && count == h->want_count && from_out)
    err =
        clEnqueueReadBuffer(r->q, r->d->out, CL_TRUE, 0, from_out * h->elem, h->got, 0, NULL, NULL);
  if (err == CL_SUCCESS && count == h->want_count && elems > from_out)
    err = clEnqueueReadBuffer(r->q, r->d->rejected, CL_TRUE, 0, (elems - from_out) * h->elem,
                              h->got + from_out * h->elem, 0, NULL, NULL);
  if (err == CL_SUCCESS && count == h->want_count && elems && r->kind == SB_RLE)
    err = clEnqueueReadBuffer(r->q, r->d->lengths, CL_TRUE, 0, elems * SB_COUNT_SIZE,
                              h->got_lengths, 0, NULL, NULL);
  if (err != CL_SUCCESS) {
    cli_error("%s: reading the results back failed: clEnqueueReadBuffer returned %d", r->label,
              (int)err);
    return CLI_FAILED;
  }
  const char *what =
      count != h->want_count                          ? "count"
      : memcmp(h->got, h->want, elems * h->elem) != 0 ? "elements"
      : r->kind == SB_RLE && memcmp(h->got_lengths, h->want_lengths, elems * SB_COUNT_SIZE) != 0
          ? "run lengths"
          : NULL;
  if (!what)
    return CLI_TIMED;
  cli_error("%s: WRONG RESULT %s: wrong %s (count %u, expected %llu)", r->label, when, what,
            (unsigned)count, (unsigned long long)h->want_count);
  return CLI_WRONG;
}

/* Verifies a run over a poisoned output, times reps runs after warm-ups, verifies again. */
static cli_timing time_row(const sb_run *r, double *ms) {
  const unsigned char poison = 0x5a;
  if (clEnqueueFillBuffer(r->q, r->d->out, &poison, 1, 0, r->h->n * r->h->elem, 0, NULL, NULL) !=
          CL_SUCCESS ||
      clEnqueueFillBuffer(r->q, r->d->rejected, &poison, 1, 0, r->h->n * r->h->elem, 0, NULL,
                          NULL) != CL_SUCCESS ||
      clEnqueueFillBuffer(r->q, r->d->count, &poison, 1, 0, SB_COUNT_SIZE, 0, NULL, NULL) !=
          CL_SUCCESS ||
      clFinish(r->q) != CL_SUCCESS) {
    cli_error("%s: clearing the output buffers failed", r->label);
    return CLI_FAILED;
  }
  cli_verified_runs v = {.run = run_once, .check = verify, .state = (void *)r};
  return cli_time_verified(&v, r->b->reps, ms);
}

/* Times a device copy of `bytes` bytes (median of reps after warm-ups). */
static int time_copy(const sb_run *r, size_t bytes, double *ms) {
  const int ok = measure_copy_median_ms(r->q, r->d->copy_src, r->d->copy_dst, bytes, CLI_WARMUPS,
                                        r->b->reps, ms);
  if (!ok)
    cli_error("timing clEnqueueCopyBuffer of %zu bytes failed", bytes);
  return ok;
}

/* ============================================================================================== */
/* Rows                                                                                           */
/* ============================================================================================== */

/* What a row's CSV variant column says: the kind and its selected fraction or run length. */
static void row_variant(sb_kind k, int percent, char *buf, size_t cap) {
  if (k >= SB_UNIQUE)
    snprintf(buf, cap, "%s:run=%d", kind_names[k], SB_MEAN_RUN);
  else
    snprintf(buf, cap, "%s:f=%g", kind_names[k], percent / 100.0);
}

/* Prints a measured row and writes its CSV line, in the scan bench's columns (bytes_per_element
 * is fractional here: it depends on the count; no operator, no reruns). */
static void print_row(const sb_run *r, int log2n, const char *variant, double bytes, double ms,
                      double copy_ms, double host_ms) {
  const sb_host *h = r->h;
  double gbps = cli_gbps_bytes(bytes, ms);
  char host[32] = "-", host_csv[32] = "";
  if (host_ms >= 0) {
    snprintf(host, sizeof host, "%.4f", host_ms);
    snprintf(host_csv, sizeof host_csv, "%.6g", host_ms);
  }
  printf("%11.4f %9.3f %9.3f %10.4f %10s\n", ms, gbps, copy_ms / ms, copy_ms, host);
  fflush(stdout);
  if (!r->b->csv)
    return;
  cli_csv_text(r->b->csv, r->b->device_name);
  fprintf(r->b->csv, ",%s,%s,%llu,%.6g,%.6g,%.6g,%.6g,%s,%s,%s,%.6g,%.0f,,0,\n", r->algo_name,
          clscan_type_name(h->type), 1ull << log2n, ms, gbps, copy_ms / ms, copy_ms, host_csv,
          clscan_type_name(h->type), variant, bytes / (double)h->n, (bytes + 1) / 2);
  fflush(r->b->csv);
}

/* Measures one row (the flags already on the device for select-flags) and prints it; returns 0
 * if it failed. */
static int measure_row(sb_run *r, int log2n, int percent) {
  sb_host *h = r->h;
  char variant[48];
  row_variant(r->kind, percent, variant, sizeof variant);
  snprintf(r->label, sizeof r->label, "%s %s %s n=2^%d", variant, r->algo_name,
           clscan_type_name(h->type), log2n);
  host_expect(h, r->kind);
  double host_ms = r->b->no_host ? -1 : host_time(h, r->kind), bytes = bytes_moved(h, r->kind),
         ms = 0, copy_ms = 0;
  cli_timing t = time_row(r, &ms);
  if (t == CLI_TIMED && !time_copy(r, (size_t)((bytes + 1) / 2), &copy_ms))
    t = CLI_FAILED;
  double frac = h->n ? 100.0 * (double)h->want_count / (double)h->n : 0;
  printf("%-18s %-17s %-7s 2^%-3d %6.2f ", kind_names[r->kind], r->algo_name,
         clscan_type_name(h->type), log2n, frac);
  if (t != CLI_TIMED) {
    printf("%s\n",
           t == CLI_WRONG ? "WRONG RESULT (no time reported)" : "FAILED (no time reported)");
    fflush(stdout);
    return 0;
  }
  print_row(r, log2n, variant, bytes, ms, copy_ms, host_ms);
  return 1;
}

/* ============================================================================================== */
/* Sizes, types and the entry point                                                               */
/* ============================================================================================== */

/* The plans of one type, by algorithm (in the request's order) and kind; NULL where none. */
typedef clscan_select_plan *sb_plans[CLSCAN_ALGORITHM_COUNT][SB_KIND_COUNT];

static void host_free(sb_host *h) {
  void *all[] = {h->in,          h->runs,         h->flags,        h->sel,
                 h->want,        h->got,          h->loop_out,     h->loop_rejected,
                 h->ref_lengths, h->want_lengths, h->loop_lengths, h->got_lengths};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
    free(all[i]);
  memset(h, 0, sizeof *h);
}

static int host_init(sb_host *h, clscan_type type, size_t n, uint64_t seed) {
  memset(h, 0, sizeof *h);
  h->type = type;
  h->n = n;
  h->seed = seed;
  h->elem = clscan_type_size(type);
  unsigned char **bytes[] = {&h->in, &h->runs, &h->want, &h->got, &h->loop_out, &h->loop_rejected};
  int ok = 1;
  for (size_t i = 0; i < sizeof bytes / sizeof bytes[0]; i++)
    ok = (*bytes[i] = malloc(n * h->elem)) != NULL && ok;
  uint32_t **lengths[] = {&h->want_lengths, &h->loop_lengths, &h->got_lengths};
  for (size_t i = 0; i < sizeof lengths / sizeof lengths[0]; i++)
    ok = (*lengths[i] = malloc(n * sizeof(uint32_t))) != NULL && ok;
  h->flags = malloc(n);
  h->sel = malloc(n);
  h->ref_lengths = malloc(n * sizeof *h->ref_lengths);
  if (!ok || !h->flags || !h->sel || !h->ref_lengths) {
    cli_error("out of host memory for %zu elements", n);
    return 0;
  }
  fill_values(type, seed, h->in, h->runs, n);
  return 1;
}

/* Writes the flags of `percent` % to the host and the device. */
static int set_flags(sb_run *r, uint64_t seed, int percent) {
  fill_flags(seed, percent, r->h->flags, r->h->n);
  if (clEnqueueWriteBuffer(r->q, r->d->flags, CL_TRUE, 0, r->h->n, r->h->flags, 0, NULL, NULL) ==
      CL_SUCCESS)
    return 1;
  cli_error("writing the flags to the device failed");
  return 0;
}

/* Measures every row of one algorithm at one size; returns 0 if any failed. */
static int measure_algorithm(sb_run *r, clscan_select_plan *const plans[SB_KIND_COUNT], int log2n) {
  int ok = 1;
  for (int k = 0; k < SB_KIND_COUNT; k++) {
    r->kind = (sb_kind)k;
    r->plan = plans[k];
    if (!r->plan || !(r->b->select_kinds >> k & 1))
      continue;
    if (k != SB_SELECT_FLAGS) {
      ok = measure_row(r, log2n, 50) && ok;
      continue;
    }
    for (size_t f = 0; f < SWEEP_COUNT; f++) {
      if (!set_flags(r, r->b->seed, sweep_percent[f]))
        return 0;
      ok = measure_row(r, log2n, sweep_percent[f]) && ok;
    }
  }
  return ok;
}

/* Measures one type at n = 2^log2n with every algorithm. */
static int measure_size(const cli_family_bench *b, clscan_type type, int log2n, sb_plans plans) {
  sb_host h;
  sb_device d = {0};
  sb_run r = {.b = b, .q = clscan_context_queue(b->ctx), .h = &h, .d = &d};
  int ok = host_init(&h, type, (size_t)1 << log2n, b->seed) && device_init(b->ctx, &h, &d);
  for (int a = 0; ok && a < b->algo_count; a++) {
    r.algo_name = clscan_algorithm_name(b->algos[a]);
    ok = measure_algorithm(&r, plans[a], log2n) && ok;
  }
  device_free(&d);
  host_free(&h);
  return ok;
}

/* Creates the plans of one type; unsupported ones are skipped with a note. Returns 0 if a plan
 * failed otherwise. */
static int create_plans(const cli_family_bench *b, clscan_type type, sb_plans plans) {
  int ok = 1;
  memset(plans, 0, sizeof(sb_plans));
  for (int a = 0; a < b->algo_count; a++) {
    for (int k = 0; k < SB_KIND_COUNT; k++) {
      if (!(b->select_kinds >> k & 1))
        continue;
      clscan_select_desc desc = kind_desc((sb_kind)k, type, b->algos[a]);
      clscan_status st = clscan_select_plan_create(b->ctx, &desc, &plans[a][k]);
      if (st == CLSCAN_UNSUPPORTED_BY_DEVICE) {
        printf("note: skipping %s with %s for %s: %s (%s)\n", kind_names[k],
               clscan_algorithm_name(b->algos[a]), clscan_type_name(type), clscan_status_string(st),
               clscan_last_error_detail());
      } else if (st != CLSCAN_SUCCESS) {
        cli_lib_error(st, "cannot create the %s plan (%s) for %s", kind_names[k],
                      clscan_algorithm_name(b->algos[a]), clscan_type_name(type));
        if (st == CLSCAN_BUILD_FAILED || st == CLSCAN_USER_SOURCE_INVALID)
          cli_print_build_log(b->ctx);
        ok = 0;
      }
    }
  }
  return ok;
}

/* Returns the largest log2 n whose buffers fit in a quarter of the device's memory and in its
 * largest allocation. */
static int max_log2_for(cl_device_id device, size_t elem) {
  cl_ulong quarter = cli_device_ulong(device, CL_DEVICE_GLOBAL_MEM_SIZE) / 4;
  cl_ulong max_alloc = cli_device_ulong(device, CL_DEVICE_MAX_MEM_ALLOC_SIZE);
  size_t all = device_bytes_per_element(elem), largest = elem + SB_COUNT_SIZE;
  int k = 40;
  while (k > 0 && (((cl_ulong)all << k) > quarter || ((cl_ulong)largest << k) > max_alloc))
    k--;
  return k;
}

/* Measures one type at every size that fits; returns 0 if anything failed. */
static int measure_type(const cli_family_bench *b, clscan_type type) {
  cl_device_id device = clscan_context_device(b->ctx);
  int max = cli_family_max_log2(b, type, 24, max_log2_for(device, clscan_type_size(type)));
  sb_plans plans;
  int ok = create_plans(b, type, plans);
  for (int k = b->min_log2; k <= max; k++)
    ok = measure_size(b, type, k, plans) && ok;
  for (int a = 0; a < b->algo_count; a++) {
    for (int k = 0; k < SB_KIND_COUNT; k++)
      clscan_select_plan_release(plans[a][k]);
  }
  return ok;
}

void cli_bench_select_header(void) {
  printf(
      "family:  select: select-flags (selected fraction swept over 0, 1, 10, 50, 90, 99, 100 %%),"
      "\n         select-pred, partition, partition-copy (into two buffers) and\n"
      "         partition-reversed (the rejected part reversed) (predicate \"%s\"\n"
      "         on values in [0, 100): 50 %%),\n"
      "         unique and rle (runs of mean length %d); counts and run lengths uint32\n",
      SB_PREDICATE, SB_MEAN_RUN);
  printf("check:   count, elements and run lengths against a host loop, before and after timing\n");
  printf(
      "bytes:   moved = inputs read once + outputs written once (+ the count): select-flags\n"
      "         n * (e + 1) + c * e, select-pred and unique n * e + c * e, partitions 2 * n * e,\n"
      "         rle n * e + c * (e + 4); GB/s = moved / time; the copy copies moved / 2 bytes;\n"
      "         ratio = copy time / time (1.0 = copy speed); sel%% = 100 * count / n\n\n");
  printf("%-18s %-17s %-7s %-5s %6s %11s %9s %9s %10s %10s\n", "primitive", "algorithm", "type",
         "n", "sel%", "median ms", "GB/s", "ratio", "copy ms", "host ms");
}

int cli_bench_select(const cli_family_bench *b) {
  int ok = 1;
  for (int i = 0; i < b->type_count; i++)
    ok = measure_type(b, b->types[i]) && ok;
  return ok;
}
