/*
 * The clscan program's `tune` command: sweeps the tile parameters of the single-pass and
 * reduce-then-scan algorithms (plans created with clscan_plan_create_tuned), verifies and times
 * every candidate, ranks them, and prints rows in the format of src/tuning.c's table (through
 * cli_print_tuning_row, with the values clscan_plan_get_tuning reports for the winner).
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* The swept values. */
static const unsigned cpu_tiles[] = {8192, 16384, 32768, 65536, 131072};
static const unsigned gpu_wgs[] = {128, 256, 512};
static const unsigned gpu_vpts[] = {2, 3, 4, 6, 8};

/* ============================================================================================== */
/* Candidates                                                                                     */
/* ============================================================================================== */

/* One candidate: an algorithm and the tuning it is created with (zero fields: the table's). */
typedef struct candidate {
  clscan_algorithm algo;
  clscan_tuning t;
} candidate;

/* A measured candidate, with the tuning its plan resolved to (every field set). */
typedef struct result {
  candidate c;
  clscan_tuning resolved;
  clscan_type type;
  double ms, gbps;
} result;

/* Describes a candidate's tuning ("cpu_tile=8192 shape=cpu", or "the table's values"). */
static void describe(const candidate *c, char *buf, size_t cap) {
  cli_describe_tuning(&c->t, buf, cap);
}

/* A single-pass candidate of the CPU shape with a CPU tile. */
static candidate cpu_candidate(unsigned cpu_tile) {
  return (candidate){CLSCAN_ALGO_SINGLE_PASS,
                     {.cpu_tile = cpu_tile, .single_pass_shape = CLSCAN_SHAPE_CPU}};
}

/* A tile candidate: the GPU-shaped single pass, or reduce-then-scan. */
static candidate tile_candidate(clscan_algorithm algo, unsigned wg, unsigned vpt) {
  candidate c = {algo, {.tile_wg = wg, .tile_vpt = vpt}};
  if (algo == CLSCAN_ALGO_SINGLE_PASS)
    c.t.single_pass_shape = CLSCAN_SHAPE_GPU;
  return c;
}

/* Lists the candidates for a device: CPU tiles on a CPU, work-group x vectors elsewhere.
 * Returns how many were stored (at most cap). */
static int list_candidates(cl_device_id device, int single_pass, candidate *out, int cap) {
  int count = 0;
  if (cli_device_ulong(device, CL_DEVICE_TYPE) & CL_DEVICE_TYPE_CPU) {
    for (size_t i = 0; single_pass && i < sizeof cpu_tiles / sizeof cpu_tiles[0]; i++)
      out[count++] = cpu_candidate(cpu_tiles[i]);
    // Reduce-then-scan at the table's values, for comparison.
    out[count++] = (candidate){CLSCAN_ALGO_REDUCE_THEN_SCAN, {0}};
    return count;
  }
  for (size_t w = 0; w < sizeof gpu_wgs / sizeof gpu_wgs[0]; w++) {
    for (size_t v = 0; v < sizeof gpu_vpts / sizeof gpu_vpts[0] && count + 2 <= cap; v++) {
      if (single_pass)
        out[count++] = tile_candidate(CLSCAN_ALGO_SINGLE_PASS, gpu_wgs[w], gpu_vpts[v]);
      out[count++] = tile_candidate(CLSCAN_ALGO_REDUCE_THEN_SCAN, gpu_wgs[w], gpu_vpts[v]);
    }
  }
  return count;
}

/* ============================================================================================== */
/* Measuring                                                                                      */
/* ============================================================================================== */

/* A sweep in progress. */
typedef struct tune_state {
  clscan_context *ctx;
  cl_device_id device;
  size_t max_wg;
  int reps, wrong;
  result *results;
  size_t count;
} tune_state;

/* Creates the candidate's plan with its tuning, then verifies and times it. Returns 1 and stores
 * the result, with the plan's resolved tuning, when it was measured. */
static int measure(tune_state *s, const candidate *c, cli_bench_data *d, result *out) {
  char params[96], label[160];
  describe(c, params, sizeof params);
  snprintf(label, sizeof label, "%s %s [%s]", clscan_algorithm_name(c->algo),
           clscan_type_name(d->type), params);
  if (c->t.tile_wg > s->max_wg) {
    printf("  skipped  %s: the device allows work-groups of at most %zu\n", label, s->max_wg);
    return 0;
  }
  clscan_scan_desc desc = {.type = d->type, .op = CLSCAN_ADD, .exclusive = 1, .algorithm = c->algo};
  clscan_plan *plan = NULL;
  clscan_status st = clscan_plan_create_tuned(s->ctx, &desc, &c->t, &plan);
  if (st == CLSCAN_SUCCESS)
    st = clscan_plan_get_tuning(plan, &out->resolved);
  cli_timing t = CLI_FAILED;
  if (st != CLSCAN_SUCCESS) {
    printf("  skipped  %s: plan creation failed: %s (%s)\n", label, clscan_status_string(st),
           clscan_last_error_detail());
  } else {
    t = cli_time_plan(plan, &desc, d, s->reps, label, &out->ms);
    if (t == CLI_FAILED)
      printf("  skipped  %s: it could not run (see above)\n", label);
  }
  clscan_plan_release(plan);
  if (t == CLI_WRONG)
    s->wrong = 1;
  if (t != CLI_TIMED)
    return 0;
  out->c = *c;
  out->type = d->type;
  out->gbps = cli_gbps(d->n, clscan_type_size(d->type), out->ms);
  printf("  %8.4f ms %8.3f GB/s  %s\n", out->ms, out->gbps, label);
  fflush(stdout);
  return 1;
}

/* Measures every candidate for one type at n = 2^log2n. */
static void tune_type(tune_state *s, clscan_type type, int log2n, const candidate *cands, int count,
                      uint64_t seed) {
  cli_bench_data d;
  printf("\n%s, n = 2^%d:\n", clscan_type_name(type), log2n);
  if (cli_bench_data_init(&d, s->ctx, type, (size_t)1 << log2n, seed)) {
    for (int i = 0; i < count; i++) {
      if (measure(s, &cands[i], &d, &s->results[s->count]))
        s->count++;
    }
  } else {
    s->wrong = 1;
  }
  cli_bench_data_free(&d);
}

/* ============================================================================================== */
/* Reports                                                                                        */
/* ============================================================================================== */

static int by_time(const void *a, const void *b) {
  const result *x = a, *y = b;
  return x->ms < y->ms ? -1 : x->ms > y->ms;
}

/* Prints the candidates of one type and algorithm, fastest first. */
static void print_ranking(tune_state *s, clscan_type type, clscan_algorithm algo) {
  result *r = malloc((s->count ? s->count : 1) * sizeof *r);
  size_t n = 0;
  for (size_t i = 0; r && i < s->count; i++) {
    if (s->results[i].type == type && s->results[i].c.algo == algo)
      r[n++] = s->results[i];
  }
  if (n) {
    qsort(r, n, sizeof *r, by_time);
    printf("\n%s, %s (fastest first):\n%4s  %-40s %10s %9s %8s\n", clscan_type_name(type),
           clscan_algorithm_name(algo), "rank", "tuning (clscan_tuning fields)", "median ms",
           "GB/s", "of best");
  }
  for (size_t i = 0; i < n; i++) {
    char params[96];
    describe(&r[i].c, params, sizeof params);
    printf("%4zu  %-40s %10.4f %9.3f %7.1f%%\n", i + 1, params, r[i].ms, r[i].gbps,
           100.0 * r[0].ms / r[i].ms);
  }
  free(r);
}

/* Returns the fastest result of a type and algorithm, or NULL. */
static const result *best(const tune_state *s, clscan_type type, clscan_algorithm algo) {
  const result *b = NULL;
  for (size_t i = 0; i < s->count; i++) {
    const result *r = &s->results[i];
    if (r->type == type && r->c.algo == algo && (!b || r->ms < b->ms))
      b = r;
  }
  return b;
}

/* Finds the result of a type and algorithm with given work-group size and vectors, or NULL. */
static const result *find(const tune_state *s, clscan_type type, clscan_algorithm algo, unsigned wg,
                          unsigned vpt) {
  for (size_t i = 0; i < s->count; i++) {
    const result *r = &s->results[i];
    if (r->type == type && r->c.algo == algo && r->c.t.tile_wg == wg && r->c.t.tile_vpt == vpt)
      return r;
  }
  return NULL;
}

/* Prints the comment of a suggested row: device, size and measured speeds. */
static void print_row_comment(const tune_state *s, clscan_type type, int log2n,
                              const result *lead) {
  char name[256], driver[256], params[96];
  cli_device_string(s->device, CL_DEVICE_NAME, name, sizeof name);
  cli_device_string(s->device, CL_DRIVER_VERSION, driver, sizeof driver);
  const result *sp = best(s, type, CLSCAN_ALGO_SINGLE_PASS);
  const result *rts = best(s, type, CLSCAN_ALGO_REDUCE_THEN_SCAN);
  const result *rts_here =
      find(s, type, CLSCAN_ALGO_REDUCE_THEN_SCAN, lead->c.t.tile_wg, lead->c.t.tile_vpt);
  printf("    /* %s, driver %s.\n     * `clscan tune`, %s, n = 2^%d:", name, driver,
         clscan_type_name(type), log2n);
  if (sp)
    printf(" single-pass %.2f GB/s%s", sp->gbps, rts_here ? "," : ".");
  if (rts_here)
    printf(" reduce-then-scan %.2f GB/s.", rts_here->gbps);
  if (rts && rts != rts_here) {
    describe(&rts->c, params, sizeof params);
    printf(" (Reduce-then-scan's best: %.2f GB/s with %s.)", rts->gbps, params);
  }
  describe(&lead->c, params, sizeof params);
  printf("\n     * Swept: %s; the other fields are the table's. */\n", params);
}

/* Prints a suggested tuning-table row for the element size of `type`. */
static void print_row(const tune_state *s, clscan_type type, int log2n) {
  const result *lead = best(s, type, CLSCAN_ALGO_SINGLE_PASS);
  if (!lead)
    lead = best(s, type, CLSCAN_ALGO_REDUCE_THEN_SCAN);
  if (!lead)
    return;
  char vendor[256], name[256];
  cli_device_string(s->device, CL_DEVICE_VENDOR, vendor, sizeof vendor);
  cli_device_string(s->device, CL_DEVICE_NAME, name, sizeof name);
  cli_tuning_row row = {.vendor = vendor,
                        .device = name,
                        .elem_bytes = (unsigned)clscan_type_size(type),
                        .packed = clscan_type_size(type) <= 2, /* tune measures plain scans */
                        .floating = type == CLSCAN_FLOAT || type == CLSCAN_DOUBLE,
                        .t = lead->resolved};
  print_row_comment(s, type, log2n, lead);
  cli_print_tuning_row(stdout, &row);
}

/* Prints one suggested row per element size (from the first listed type of that size). */
static void print_rows(const tune_state *s, const clscan_type *types, const int *log2n, int count) {
  printf(
      "\nSuggested rows for the table in src/tuning.c (device rows: paste them above the "
      "vendor's default row):\n");
  for (int i = 0; i < count; i++) {
    int first = 1;
    for (int j = 0; j < i; j++)
      first &= clscan_type_size(types[j]) != clscan_type_size(types[i]);
    if (first)
      print_row(s, types[i], log2n[i]);
  }
}

/* ============================================================================================== */
/* The tune command                                                                               */
/* ============================================================================================== */

/* What the command line asks for. */
typedef struct tune_request {
  const char *device;
  clscan_type types[CLSCAN_TYPE_COUNT];
  int type_count, log2n, reps;
} tune_request;

enum { OPT_DEVICE, OPT_TYPES, OPT_LOG2, OPT_REPS };

/* Parses the command line; returns -1 to go on, or an exit status. */
static int tune_parse(int argc, char **argv, tune_request *r) {
  static const cli_option options[] = {{"device", 1, OPT_DEVICE},
                                       {"types", 1, OPT_TYPES},
                                       {"log2", 1, OPT_LOG2},
                                       {"reps", 1, OPT_REPS},
                                       {NULL, 0, 0}};
  cli_parser p;
  const char *v;
  unsigned long long x;
  int ok = 1;
  cli_parser_init(&p, "tune", argc, argv, options);
  for (int id; ok && (id = cli_next_option(&p, &v)) != CLI_OPT_END;) {
    if (id == CLI_OPT_ERROR)
      return CLI_EXIT_USAGE;
    if (id == CLI_OPT_HELP) {
      cli_print_usage(stdout, "tune");
      return CLI_EXIT_OK;
    }
    if (id == CLI_OPT_POSITIONAL)
      return cli_usage_error("tune", "unexpected argument '%s'", v);
    if (id == OPT_DEVICE)
      r->device = v;
    if (id == OPT_TYPES)
      ok = cli_parse_type_list("tune", v, r->types, &r->type_count);
    if (id == OPT_LOG2 && (ok = cli_parse_count("tune", "--log2", v, 0, 40, &x)))
      r->log2n = (int)x;
    if (id == OPT_REPS && (ok = cli_parse_count("tune", "--reps", v, 1, 100000, &x)))
      r->reps = (int)x;
  }
  for (int i = 0; ok && i < r->type_count; i++) {
    if (r->types[i] == CLSCAN_HALF)
      return cli_usage_error("tune", "--types: half has no row of its own to tune");
  }
  return ok ? -1 : CLI_EXIT_USAGE;
}

/* Runs the sweep for every type; stores each type's size in log2n. */
static void sweep(tune_state *s, const tune_request *r, int *log2n) {
  clscan_scan_desc sp = {.algorithm = CLSCAN_ALGO_SINGLE_PASS};
  candidate cands[64];
  int count =
      list_candidates(s->device, clscan_context_supports(s->ctx, &sp) == CLSCAN_SUCCESS, cands, 64);
  s->results = malloc((size_t)(count * r->type_count) * sizeof *s->results);
  if (!s->results) {
    cli_error("out of host memory");
    s->wrong = 1;
    return;
  }
  int want = r->log2n >= 0 ? r->log2n : cli_device_is_gpu(s->device) ? 26 : 24;
  for (int i = 0; i < r->type_count; i++) {
    int cap = cli_max_log2_for_device(s->device, clscan_type_size(r->types[i]));
    log2n[i] = want < cap ? want : cap;
    tune_type(s, r->types[i], log2n[i], cands, count, 12345);
  }
}

int cli_cmd_tune(int argc, char **argv) {
  tune_request r = {.types = {CLSCAN_INT32}, .type_count = 1, .log2n = -1, .reps = 20};
  int status = tune_parse(argc, argv, &r);
  if (status >= 0)
    return status;

  tune_state s = {.reps = r.reps};
  cli_tuning_drop_inherited();
  if (!cli_open_context(r.device, &s.ctx))
    return CLI_EXIT_FAIL;
  s.device = clscan_context_device(s.ctx);
  clGetDeviceInfo(s.device, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof s.max_wg, &s.max_wg, NULL);
  char name[256];
  cli_device_string(s.device, CL_DEVICE_NAME, name, sizeof name);
  printf(
      "device: %s\nscan:   exclusive add, verified; median of %d runs after %d warm-ups; "
      "seed 12345\n",
      name, r.reps, CLI_WARMUPS);

  int log2n[CLSCAN_TYPE_COUNT];
  sweep(&s, &r, log2n);
  for (int i = 0; i < r.type_count; i++) {
    print_ranking(&s, r.types[i], CLSCAN_ALGO_SINGLE_PASS);
    print_ranking(&s, r.types[i], CLSCAN_ALGO_REDUCE_THEN_SCAN);
  }
  if (s.count)
    print_rows(&s, r.types, log2n, r.type_count);
  if (!s.count)
    cli_error("tune: no candidate could be measured");
  if (s.wrong)
    cli_error("tune: some candidates failed verification (see above)");
  free(s.results);
  clscan_context_release(s.ctx);
  return s.count && !s.wrong ? CLI_EXIT_OK : CLI_EXIT_FAIL;
}
