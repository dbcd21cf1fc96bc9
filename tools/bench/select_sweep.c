/*
 * clscan tools: select_sweep, the selections (select, partition, unique, run-length encoding) of
 * int32 under chosen build options, in one process with the rounds interleaved, for comparing
 * kernel variants against each other and against a copy.
 *
 *   build/select_sweep LOG2N REPS ROUNDS KIND[:OPTIONS]...
 *
 * KIND is flags0 (select by flags, none set), flags50 (select by flags, half set at random),
 * pred (select by the predicate x < 50), part (stable partition by it into one buffer), part2
 * (into two buffers), partr (into one buffer, the rejected part reversed: reverse_rejected),
 * unique or rle (run-length encoding); OPTIONS extra OpenCL build options (a
 * kernel macro of cl/select.cl, say). Each configuration gets a clscan context of its own over
 * one OpenCL context and queue, created with OPTIONS in CLSCAN_BUILD_OPTIONS, so that its
 * programs are built with its options alone (the tile comes from the tuning table, or from
 * CLSCAN_TILE_WG and CLSCAN_TILE_VPT for every configuration). The input is 2^LOG2N int32 values
 * in [0, 100) in runs of mean length 4 (a fixed pseudo-random sequence), so the predicate selects
 * about half and unique keeps about a quarter; counts and run lengths are uint32.
 *
 * Each round times, for each configuration in turn, REPS copies (clEnqueueCopyBuffer) of half
 * the bytes the selection must move (inputs read once, outputs written once, as `clscan bench`
 * counts them), then the selection: two warm-ups and REPS runs, each from its first command's
 * start to its last command's end (profiling events of clscan_select_enqueue_timed; the host's
 * clock around the enqueue and the wait where the events do not measure), and prints both
 * medians and the ratio copy / selection. The count, the elements and the run lengths are
 * compared with the host's after the first run and after each round's timing (the outputs are
 * poisoned before both); a wrong configuration is still timed, its line says WRONG and how many
 * outputs differ, so that a measurement build that is wrong on purpose (-DSEL_TEST_NO_LOOKBACK=1)
 * can be timed beside the default. Exit status: 0 when every result was right, 1 when one was
 * wrong, 2 for bad arguments or a failed OpenCL or clscan call.
 *
 *   build/select_sweep 28 10 2 unique rle unique:-DSEL_TEST_NO_LOOKBACK=1
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clscan.h"
#include "measure.h"

/* What a configuration runs. */
typedef enum kind { FLAGS0, FLAGS50, PRED, PART, PART2, PARTR, UNIQUE, RLE, KINDS } kind;

static const char *const kind_names[KINDS] = {"flags0", "flags50", "pred",   "part",
                                              "part2",  "partr",   "unique", "rle"};

/* Returns 1 for the partitions. */
static int is_partition(kind k) {
  return k == PART || k == PART2 || k == PARTR;
}

/* One configuration and its plan. */
typedef struct config {
  const char *text;
  kind k;
  char options[256];
  clscan_context *ctx;
  clscan_select_plan *plan;
} config;

/* The expected results of one kind: out (and for rle the run lengths), count elements; for the
 * partitions out holds every element, the selected ones first. */
typedef struct expected {
  int32_t *out;
  uint32_t *lengths;
  size_t count;
} expected;

/* The shared state. */
typedef struct sweep {
  size_t n;
  int reps;
  clscan_context *ctx;
  cl_command_queue queue;
  int32_t *values;
  unsigned char *half; /* the host's flags of flags50 */
  expected want[KINDS];
  cl_mem in, flags0, flags50, out, rejected, lengths, count, copy;
  int32_t *got;         /* host copy of out (and rejected after it) */
  uint32_t *got_length; /* host copy of lengths */
} sweep;

/* Parses KIND[:OPTIONS]; returns 0 (after a message) if it is malformed. */
static int parse_config(const char *text, config *c) {
  const size_t len = strcspn(text, ":");
  c->text = text;
  c->k = KINDS;
  for (int k = 0; k < KINDS; k++) {
    if (strlen(kind_names[k]) == len && strncmp(text, kind_names[k], len) == 0)
      c->k = (kind)k;
  }
  if (c->k == KINDS) {
    fprintf(
        stderr,
        "select_sweep: '%s': the kind is not flags0, flags50, pred, part, part2, partr, unique or "
        "rle\n",
        text);
    return 0;
  }
  snprintf(c->options, sizeof c->options, "%s", text[len] ? text + len + 1 : "");
  return 1;
}

/* The next value of a 64-bit linear congruential sequence (its high bits). */
static uint32_t next_random(uint64_t *state) {
  *state = *state * 6364136223846793005ull + 1442695040888963407ull;
  return (uint32_t)(*state >> 33);
}

/* Whether element i is selected (or, for the runs, is a run's head). */
static int chosen(const sweep *s, kind k, size_t i) {
  switch (k) {
    case FLAGS0:
      return 0;
    case FLAGS50:
      return s->half[i] != 0;
    case PRED:
    case PART:
    case PART2:
    case PARTR:
      return s->values[i] < 50;
    default:
      return i == 0 || s->values[i] != s->values[i - 1];
  }
}

/* Computes the expected results of kind k on the host. Returns 0 if memory runs out. */
static int expect(sweep *s, kind k) {
  expected *e = &s->want[k];
  e->out = malloc(s->n * sizeof *e->out);
  e->lengths = k == RLE ? malloc(s->n * sizeof *e->lengths) : NULL;
  if (!e->out || (k == RLE && !e->lengths))
    return 0;
  size_t c = 0;
  for (size_t i = 0; i < s->n; i++) {
    if (chosen(s, k, i)) {
      if (k == RLE && c > 0)
        e->lengths[c - 1] = (uint32_t)(i - e->lengths[c - 1]);
      if (k == RLE)
        e->lengths[c] = (uint32_t)i; /* the head's index, until the next head closes the run */
      e->out[c++] = s->values[i];
    }
  }
  if (k == RLE && c > 0)
    e->lengths[c - 1] = (uint32_t)(s->n - e->lengths[c - 1]);
  e->count = c;
  for (size_t i = 0, r = s->n; is_partition(k) && i < s->n; i++) {
    if (!chosen(s, k, i))
      e->out[k == PARTR ? --r : c++] = s->values[i];
  }
  return 1;
}

/* The bytes kind k must move with `count` selected: inputs read once, outputs written once. */
static size_t moved_bytes(const sweep *s, kind k, size_t count) {
  switch (k) {
    case FLAGS0:
    case FLAGS50:
      return s->n * 5 + count * 4;
    case PART:
    case PART2:
    case PARTR:
      return s->n * 8;
    case RLE:
      return s->n * 4 + count * 8;
    default:
      return s->n * 4 + count * 4;
  }
}

/* Runs configuration c once; with ms, stores the time from its first command's start to its end.
 * Returns 0 after a message if a call fails. */
static int select_run(sweep *s, const config *c, double *ms) {
  const clscan_select_buffers b = {.in = s->in,
                                   .flags = c->k == FLAGS0    ? s->flags0
                                            : c->k == FLAGS50 ? s->flags50
                                                              : NULL,
                                   .out = s->out,
                                   .out_capacity = s->n,
                                   .lengths = c->k == RLE ? s->lengths : NULL,
                                   .rejected = c->k == PART2 ? s->rejected : NULL,
                                   .rejected_capacity = c->k == PART2 ? s->n : 0,
                                   .count = s->count};
  cl_event first = NULL, done = NULL;
  const double start = measure_host_ms();
  clscan_status st =
      clscan_select_enqueue_timed(c->plan, s->queue, &b, s->n, 0, NULL, &first, &done);
  int ok = st == CLSCAN_SUCCESS && clWaitForEvents(1, &done) == CL_SUCCESS;
  const double wall = measure_host_ms() - start;
  ok = ok && (!ms || measure_span_ms(first, done, wall, ms));
  if (!ok)
    printf("%-40s select: %s (%s)\n", c->text, clscan_status_string(st),
           st ? clscan_last_error_detail() : "waiting or profiling failed");
  if (first)
    clReleaseEvent(first);
  if (done)
    clReleaseEvent(done);
  return ok;
}

/* Fills the outputs and the count with 0xA5 bytes. Returns 0 after a message if a fill fails. */
static int poison(sweep *s) {
  const cl_uchar pattern = 0xA5;
  cl_mem all[] = {s->out, s->rejected, s->lengths, s->count};
  const size_t bytes[] = {s->n * 4, s->n * 4, s->n * 4, 8};
  for (size_t i = 0; i < 4; i++) {
    if (clEnqueueFillBuffer(s->queue, all[i], &pattern, 1, 0, bytes[i], 0, NULL, NULL) !=
        CL_SUCCESS) {
      printf("poisoning the outputs failed\n");
      return 0;
    }
  }
  return clFinish(s->queue) == CL_SUCCESS;
}

/* Reads configuration c's results back and counts those that differ from the host's (the count
 * wrong counts as one); returns -1 if they cannot be read. */
static long long differences(sweep *s, const config *c) {
  const expected *e = &s->want[c->k];
  uint32_t count = 0;
  const size_t kept = c->k == PART || c->k == PARTR ? s->n : e->count; /* in `out` */
  cl_int err = clEnqueueReadBuffer(s->queue, s->count, CL_TRUE, 0, 4, &count, 0, NULL, NULL);
  if (err == CL_SUCCESS && kept)
    err = clEnqueueReadBuffer(s->queue, s->out, CL_TRUE, 0, kept * 4, s->got, 0, NULL, NULL);
  if (err == CL_SUCCESS && c->k == PART2 && s->n > e->count)
    err = clEnqueueReadBuffer(s->queue, s->rejected, CL_TRUE, 0, (s->n - e->count) * 4,
                              s->got + e->count, 0, NULL, NULL);
  if (err == CL_SUCCESS && c->k == RLE && e->count)
    err = clEnqueueReadBuffer(s->queue, s->lengths, CL_TRUE, 0, e->count * 4, s->got_length, 0,
                              NULL, NULL);
  if (err != CL_SUCCESS)
    return -1;
  long long wrong = count != e->count;
  const size_t all = is_partition(c->k) ? s->n : e->count;
  for (size_t i = 0; i < all; i++)
    wrong += s->got[i] != e->out[i];
  for (size_t i = 0; c->k == RLE && i < e->count; i++)
    wrong += s->got_length[i] != e->lengths[i];
  return wrong;
}

/* Writes into verdict "right", or how many outputs differ; returns 0 (right), 1 (wrong) or 2
 * (unread). */
static int check(sweep *s, const config *c, char *verdict, size_t cap) {
  const long long wrong = differences(s, c);
  if (wrong < 0)
    snprintf(verdict, cap, "results unread");
  else if (wrong)
    snprintf(verdict, cap, "WRONG (%lld outputs differ)", wrong);
  else
    snprintf(verdict, cap, "right");
  return wrong < 0 ? 2 : wrong > 0;
}

/* Builds configuration c's context and plan and checks one run. Returns 0, 1 (wrong; it is still
 * timed) or 2 (failed). */
static int prepare(sweep *s, config *c) {
  if (*c->options)
    setenv("CLSCAN_BUILD_OPTIONS", c->options, 1);
  else
    unsetenv("CLSCAN_BUILD_OPTIONS");
  static const clscan_select_op ops[KINDS] = {
      [FLAGS0] = CLSCAN_SELECT,  [FLAGS50] = CLSCAN_SELECT,       [PRED] = CLSCAN_SELECT,
      [PART] = CLSCAN_PARTITION, [PART2] = CLSCAN_PARTITION,      [PARTR] = CLSCAN_PARTITION,
      [UNIQUE] = CLSCAN_UNIQUE,  [RLE] = CLSCAN_RUN_LENGTH_ENCODE};
  const int pred = c->k == PRED || is_partition(c->k);
  const clscan_select_desc d = {.op = ops[c->k],
                                .type = CLSCAN_INT32,
                                .predicate_source = pred ? "x < 50" : NULL,
                                .count_size = 4,
                                .reverse_rejected = c->k == PARTR};
  clscan_status st = clscan_context_create(clscan_context_cl_context(s->ctx),
                                           clscan_context_device(s->ctx), &c->ctx);
  if (st == CLSCAN_SUCCESS)
    st = clscan_select_plan_create(c->ctx, &d, &c->plan);
  if (st != CLSCAN_SUCCESS) {
    printf("%-40s plan: %s (%s)\n", c->text, clscan_status_string(st), clscan_last_error_detail());
    return 2;
  }
  // The first run builds the programs, under this configuration's options.
  if (!poison(s) || !select_run(s, c, NULL))
    return 2;
  char verdict[64];
  const int rc = check(s, c, verdict, sizeof verdict);
  if (rc)
    printf("%-40s %s\n", c->text, verdict);
  return rc;
}

static int compare_doubles(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Times configuration c (two warm-ups, then s->reps runs), checks the last results and prints
 * its line. times holds s->reps doubles. Returns 0, 1 (wrong) or 2 (failed). */
static int time_config(sweep *s, const config *c, double copy_ms, double *times) {
  if (!poison(s))
    return 2;
  for (int i = 0; i < 2 + s->reps; i++) {
    if (!select_run(s, c, i < 2 ? NULL : &times[i - 2]))
      return 2;
  }
  qsort(times, (size_t)s->reps, sizeof *times, compare_doubles);
  const double ms = times[s->reps / 2];
  char verdict[64];
  const int rc = check(s, c, verdict, sizeof verdict);
  printf("%-40s %10zu selected  %9.4f ms  copy %9.4f ms  copy/select %6.3f  %s\n", c->text,
         s->want[c->k].count, ms, copy_ms, copy_ms / ms, verdict);
  return rc;
}

/* Creates the buffers of every output and input, each host reference the configurations need,
 * and the context. Returns 0 or 2. */
static int setup(sweep *s, const config *configs, int count) {
  if (clscan_context_create_default(&s->ctx) != CLSCAN_SUCCESS) {
    fprintf(stderr, "select_sweep: no context: %s\n", clscan_last_error_detail());
    return 2;
  }
  cl_context cl = clscan_context_cl_context(s->ctx);
  s->queue = clscan_context_queue(s->ctx);
  s->values = malloc(s->n * sizeof *s->values);
  s->half = malloc(s->n);
  unsigned char *zeros = calloc(s->n, 1);
  s->got = malloc(s->n * sizeof *s->got);
  s->got_length = malloc(s->n * sizeof *s->got_length);
  if (!s->values || !s->half || !zeros || !s->got || !s->got_length) {
    free(zeros);
    fprintf(stderr, "select_sweep: out of host memory\n");
    return 2;
  }
  uint64_t state = 20261206;
  int32_t v = 0;
  for (size_t i = 0; i < s->n; i++) {
    if (next_random(&state) % 4 == 0)
      v = (int32_t)(next_random(&state) % 100);
    s->values[i] = v;
    s->half[i] = (unsigned char)(next_random(&state) & 1);
  }
  for (int c = 0; c < count; c++) {
    if (!s->want[configs[c].k].out && !expect(s, configs[c].k)) {
      free(zeros);
      fprintf(stderr, "select_sweep: out of host memory\n");
      return 2;
    }
  }
  cl_int err = CL_SUCCESS;
  const cl_mem_flags rw = CL_MEM_READ_WRITE, ro = CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR;
  s->in = clCreateBuffer(cl, ro, s->n * 4, s->values, &err);
  if (err == CL_SUCCESS)
    s->flags0 = clCreateBuffer(cl, ro, s->n, zeros, &err);
  if (err == CL_SUCCESS)
    s->flags50 = clCreateBuffer(cl, ro, s->n, s->half, &err);
  free(zeros);
  cl_mem *mems[] = {&s->out, &s->rejected, &s->lengths, &s->copy};
  for (size_t i = 0; i < 4 && err == CL_SUCCESS; i++)
    *mems[i] = clCreateBuffer(cl, rw, s->n * 4, NULL, &err);
  if (err == CL_SUCCESS)
    s->count = clCreateBuffer(cl, rw, 8, NULL, &err);
  if (err != CL_SUCCESS) {
    fprintf(stderr, "select_sweep: clCreateBuffer failed (%d)\n", err);
    return 2;
  }
  char device[256] = "?";
  clGetDeviceInfo(clscan_context_device(s->ctx), CL_DEVICE_NAME, sizeof device, device, NULL);
  measure_use_wall_clock(!measure_events_usable(s->queue, s->in, s->copy, s->n * 4, NULL, NULL));
  printf("select_sweep on %s, n = %zu, median of %d%s\n", device, s->n, s->reps,
         measure_wall_clock() ? " (wall clock: profiling events do not measure here)" : "");
  return 0;
}

/* Runs `rounds` rounds over the configurations; returns the worst status. */
static int run_rounds(sweep *s, const config *configs, int count, int rounds) {
  double *times = malloc(sizeof(double) * (size_t)s->reps);
  int worst = times ? 0 : 2;
  for (int r = 0; r < rounds && worst < 2; r++) {
    printf("round %d\n", r + 1);
    for (int c = 0; c < count && worst < 2; c++) {
      const config *cf = &configs[c];
      const size_t bytes = moved_bytes(s, cf->k, s->want[cf->k].count) / 2;
      double copy_ms;
      if (!measure_copy_median_ms(s->queue, s->in, s->copy, bytes, 0, s->reps, &copy_ms)) {
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
    clscan_select_plan_release(configs[c].plan);
    clscan_context_release(configs[c].ctx);
  }
  cl_mem all[] = {s->in, s->flags0, s->flags50, s->out, s->rejected, s->lengths, s->count, s->copy};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
    if (all[i])
      clReleaseMemObject(all[i]);
  }
  for (int k = 0; k < KINDS; k++) {
    free(s->want[k].out);
    free(s->want[k].lengths);
  }
  free(s->values);
  free(s->half);
  free(s->got);
  free(s->got_length);
  clscan_context_release(s->ctx);
}

int main(int argc, char **argv) {
  sweep s = {0};
  int rounds;
  if (!measure_sweep_args(argc, argv, "select_sweep", "LOG2N REPS ROUNDS KIND[:OPTIONS]...", 31,
                          &s.n, &s.reps, &rounds))
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
