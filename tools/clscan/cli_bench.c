/*
 * The clscan program's `bench` command: every algorithm against a device copy of the same bytes
 * and a host loop, over a range of sizes, types and operators, for one variant (plain, map,
 * segmented, by-key, offsets, rows) and output type, with a determinism check of reruns, a table,
 * where Blelloch's scan overtakes Hillis-Steele's, and CSV and SVG reports. `--family select` and
 * `--family sort` measure the selection primitives (cli_select_bench.c) and the sorts
 * (cli_bench_sort.c) instead.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "measure.h"
#include "ref_scan.h"

/* ============================================================================================== */
/* The bench command: options                                                                     */
/* ============================================================================================== */

/* The families of primitives bench measures. */
typedef enum bench_family { FAMILY_SCAN = 0, FAMILY_SELECT, FAMILY_SORT } bench_family;

/* What the command line asks for. */
typedef struct bench_request {
  const char *device, *csv_path, *plot_path, *algos_text, *only_text;
  const char *cub_path; /* sorts: cub_bench's output for the "of CUB" column (--cub) */
  clscan_algorithm algos[CLSCAN_ALGORITHM_COUNT];
  clscan_sort_algorithm sort_algos[CLSCAN_SORT_ALGORITHM_COUNT];
  clscan_type types[CLSCAN_TYPE_COUNT];
  clscan_op ops[CLSCAN_OP_COUNT];
  clscan_type out_type; /* with has_out_type; else each input type */
  cli_variant variant;
  bench_family family;
  int algo_count, sort_algo_count, type_count, op_count, has_out_type, min_log2, max_log2, reps;
  int reruns;            /* runs after the timed ones compared with their output (0: none) */
  int concurrent;        /* 1: each rerun also runs on a second queue at the same time */
  int reduce;            /* 1: the plain variant's sizes get a reduce row (--no-reduce: 0) */
  int no_host;           /* selections: 1 skips timing the host loop (--no-host) */
  unsigned select_kinds; /* selections: the primitives measured (--only; default all) */
  int variant_given, types_given, ops_given, reruns_given; /* what was given */
  uint64_t seed;
} bench_request;

enum {
  OPT_DEVICE,
  OPT_ALGORITHMS,
  OPT_TYPES,
  OPT_OUT_TYPE,
  OPT_VARIANT,
  OPT_CSV,
  OPT_PLOT,
  OPT_FAMILY,
  OPT_OPS,
  OPT_NO_REDUCE,
  OPT_CONCURRENT,
  OPT_ONLY,
  OPT_NO_HOST,
  OPT_CUB,
  OPT_MIN, /* the numeric options, in the order of bench_number's limits */
  OPT_MAX,
  OPT_REPS,
  OPT_RERUNS,
  OPT_SEED
};

/* Applies a numeric option; returns 0 after a usage error. */
static int bench_number(bench_request *r, int id, const char *v) {
  static const struct {
    const char *name;
    unsigned long long min, max;
  } limits[] = {{"--min-log2", 0, 40},
                {"--max-log2", 0, 40},
                {"--reps", 1, 100000},
                {"--reruns", 0, 100000},
                {"--seed", 0, UINT64_MAX}};
  unsigned long long x;
  int i = id - OPT_MIN;
  if (!cli_parse_count("bench", limits[i].name, v, limits[i].min, limits[i].max, &x))
    return 0;
  if (id == OPT_MIN)
    r->min_log2 = (int)x;
  if (id == OPT_MAX)
    r->max_log2 = (int)x;
  if (id == OPT_REPS)
    r->reps = (int)x;
  if (id == OPT_RERUNS) {
    r->reruns = (int)x;
    r->reruns_given = 1;
  }
  if (id == OPT_SEED)
    r->seed = x;
  return 1;
}

/* Applies one option; returns 0 after a usage error. */
static int bench_option(bench_request *r, int id, const char *v) {
  switch (id) {
    case OPT_DEVICE:
      r->device = v;
      return 1;
    case OPT_ALGORITHMS:
      r->algos_text = v; /* parsed with the family's names once every option is known */
      return 1;
    case OPT_TYPES:
      r->types_given = 1;
      return cli_parse_type_list("bench", v, r->types, &r->type_count);
    case OPT_OPS:
      r->ops_given = 1;
      return cli_parse_op_list("bench", v, r->ops, &r->op_count);
    case OPT_OUT_TYPE:
      r->has_out_type = 1;
      if (cli_type_from_name(v, &r->out_type))
        return 1;
      cli_usage_error("bench", "--out-type: unknown type '%s'", v);
      return 0;
    case OPT_FAMILY:
      r->family = strcmp(v, "select") == 0 ? FAMILY_SELECT
                  : strcmp(v, "sort") == 0 ? FAMILY_SORT
                                           : FAMILY_SCAN;
      if (r->family != FAMILY_SCAN || strcmp(v, "scan") == 0)
        return 1;
      cli_usage_error("bench", "--family: '%s' is not scan, select or sort", v);
      return 0;
    case OPT_VARIANT:
      r->variant_given = 1;
      if (cli_variant_from_name(v, &r->variant))
        return 1;
      cli_usage_error("bench",
                      "--variant: '%s' is not plain, map, segmented, by-key, offsets or rows", v);
      return 0;
    case OPT_CSV:
      r->csv_path = v;
      return 1;
    case OPT_PLOT:
      r->plot_path = v;
      return 1;
    case OPT_NO_REDUCE:
      r->reduce = 0;
      return 1;
    case OPT_CONCURRENT:
      r->concurrent = 1;
      return 1;
    case OPT_ONLY:
      r->only_text = v;
      return 1;
    case OPT_NO_HOST:
      r->no_host = 1;
      return 1;
    case OPT_CUB:
      r->cub_path = v;
      return 1;
    default:
      return bench_number(r, id, v);
  }
}

/* Parses --algorithms with the family's names (or sets the family's default); returns 0 after a
 * usage error. */
static int bench_algorithms(bench_request *r) {
  static const clscan_algorithm select_algos[] = {CLSCAN_ALGO_SINGLE_PASS,
                                                  CLSCAN_ALGO_REDUCE_THEN_SCAN};
  if (r->family == FAMILY_SORT && r->algos_text)
    return cli_parse_sort_algorithm_list("bench", r->algos_text, r->sort_algos,
                                         &r->sort_algo_count);
  if (r->family == FAMILY_SORT) {
    r->sort_algos[0] = CLSCAN_SORT_LSD;
    r->sort_algos[1] = CLSCAN_SORT_ONESWEEP;
    r->sort_algo_count = 2;
    return 1;
  }
  if (r->algos_text)
    return cli_parse_algorithm_list("bench", r->algos_text, r->algos, &r->algo_count);
  if (r->family == FAMILY_SELECT) {
    memcpy(r->algos, select_algos, sizeof select_algos);
    r->algo_count = 2;
  }
  return 1;
}

/* Checks the options against each other once all are known; returns -1 to go on, or an exit
 * status after a usage error. */
static int bench_check(bench_request *r) {
  if (r->family != FAMILY_SCAN &&
      (r->variant_given || r->has_out_type || r->plot_path || r->ops_given || r->reruns_given))
    return cli_usage_error("bench",
                           "--family %s takes no --variant, --out-type, --plot, --ops or "
                           "--reruns",
                           r->family == FAMILY_SORT ? "sort" : "select");
  for (int i = 0; i < r->type_count && r->family != FAMILY_SCAN; i++) {
    if (r->types[i] == CLSCAN_HALF)
      return cli_usage_error("bench", "--family %s does not benchmark half (scans do)",
                             r->family == FAMILY_SORT ? "sort" : "select");
  }
  // Half results are checked exactly, on half inputs whose sums are exact halves (the
  // reference's data); other inputs' half sums would round.
  for (int i = 0; i < r->type_count && r->has_out_type && r->out_type == CLSCAN_HALF; i++) {
    if (r->types[i] != CLSCAN_HALF)
      return cli_usage_error("bench", "--out-type half needs --types half");
  }
  if (r->concurrent && r->reruns == 0)
    return cli_usage_error("bench", "--concurrent runs the reruns on two queues: give --reruns");
  if (r->plot_path && r->op_count > 1)
    return cli_usage_error("bench", "--plot draws one operator: give --ops one of them");
  if (r->family != FAMILY_SELECT && (r->only_text || r->no_host))
    return cli_usage_error("bench", "--only and --no-host are for --family select");
  if (r->family != FAMILY_SORT && r->cub_path)
    return cli_usage_error("bench", "--cub is for --family sort");
  r->select_kinds = cli_select_all_kinds();
  if (r->only_text && !cli_parse_select_kinds("bench", r->only_text, &r->select_kinds))
    return CLI_EXIT_USAGE;
  if (r->family == FAMILY_SORT && !r->types_given)
    r->types[0] = CLSCAN_UINT32;
  if (!bench_algorithms(r))
    return CLI_EXIT_USAGE;
  if (r->max_log2 >= 0 && r->min_log2 > r->max_log2)
    return cli_usage_error("bench", "--min-log2 %d is above --max-log2 %d", r->min_log2,
                           r->max_log2);
  return -1;
}

/* Parses the command line; returns -1 to go on, or an exit status. */
static int bench_parse(int argc, char **argv, bench_request *r) {
  static const cli_option options[] = {{"device", 1, OPT_DEVICE},
                                       {"algorithms", 1, OPT_ALGORITHMS},
                                       {"types", 1, OPT_TYPES},
                                       {"out-type", 1, OPT_OUT_TYPE},
                                       {"variant", 1, OPT_VARIANT},
                                       {"min-log2", 1, OPT_MIN},
                                       {"max-log2", 1, OPT_MAX},
                                       {"reps", 1, OPT_REPS},
                                       {"seed", 1, OPT_SEED},
                                       {"csv", 1, OPT_CSV},
                                       {"plot", 1, OPT_PLOT},
                                       {"no-reduce", 0, OPT_NO_REDUCE},
                                       {"family", 1, OPT_FAMILY},
                                       {"only", 1, OPT_ONLY},
                                       {"no-host", 0, OPT_NO_HOST},
                                       {"cub", 1, OPT_CUB},
                                       {"ops", 1, OPT_OPS},
                                       {"reruns", 1, OPT_RERUNS},
                                       {"concurrent", 0, OPT_CONCURRENT},
                                       {NULL, 0, 0}};
  cli_parser p;
  const char *v;
  cli_parser_init(&p, "bench", argc, argv, options);
  for (int id; (id = cli_next_option(&p, &v)) != CLI_OPT_END;) {
    if (id == CLI_OPT_ERROR)
      return CLI_EXIT_USAGE;
    if (id == CLI_OPT_HELP) {
      cli_print_usage(stdout, "bench");
      return CLI_EXIT_OK;
    }
    if (id == CLI_OPT_POSITIONAL)
      return cli_usage_error("bench", "unexpected argument '%s'", v);
    if (!bench_option(r, id, v))
      return CLI_EXIT_USAGE;
  }
  return bench_check(r);
}

/* ============================================================================================== */
/* The bench command: measuring                                                                   */
/* ============================================================================================== */

/* A benchmark in progress. */
typedef struct bench_state {
  const bench_request *req;
  clscan_context *ctx;
  cl_device_id device;
  char device_name[256];
  cli_output csv, plot; /* f is NULL when not asked for */
  cli_bench_row *rows;
  size_t row_count, row_cap;
  int failed, type_width;                     /* type_width: of the table's type column */
  const cli_cub_sorts *cub;                   /* sorts: CUB's times (--cub), or NULL */
  clscan_op op;                               /* the operator being measured */
  clscan_plan *plans[CLSCAN_ALGORITHM_COUNT]; /* of the type being measured, by algorithm */
} bench_state;

/* Returns what one input type is measured as: its output type and the variant. */
static cli_bench_spec bench_spec(const bench_state *s, clscan_type type) {
  cli_bench_spec spec = {.type = type, .out_type = type, .variant = s->req->variant, .op = s->op};
  if (s->req->has_out_type)
    spec.out_type = s->req->out_type;
  return spec;
}

/* Writes a time in ms into buf, or "-" for none (0). */
static void ms_text(double ms, char *buf, size_t cap) {
  if (ms > 0)
    snprintf(buf, cap, "%.4f", ms);
  else
    snprintf(buf, cap, "-");
}

/* Writes the determinism column into buf: "D/K" of K reruns, or "-" when none ran. */
static void differ_text(int differ, int reruns, char *buf, size_t cap) {
  if (reruns > 0)
    snprintf(buf, cap, "%d/%d", differ, reruns);
  else
    snprintf(buf, cap, "-");
}

/* Prints the start of a table row: algorithm, types, operator and size. */
static void row_start(const bench_state *s, const char *algo, const char *types, clscan_op op,
                      int log2n) {
  printf("%-17s %-*s %-4s 2^%-3d ", algo, s->type_width, types, clscan_op_name(op), log2n);
}

/* Keeps a measured row, prints it and writes it to the CSV file. */
static void bench_row(bench_state *s, const cli_bench_row *row) {
  char types[32], host[32], differ[32];
  cli_row_types(row, types, sizeof types);
  ms_text(row->host_ms, host, sizeof host);
  differ_text(row->differ, row->reruns, differ, sizeof differ);
  row_start(s, clscan_algorithm_name(row->algo), types, row->op, row->log2n);
  printf("%11.4f %9.3f %9.3f %10.4f %10s %7s\n", row->ms, row->gbps,
         row->ms > 0 ? row->copy_ms / row->ms : 0.0, row->copy_ms, host, differ);
  fflush(stdout);
  if (s->csv.f)
    cli_csv_row(s->csv.f, s->device_name, row);
  if (s->row_count == s->row_cap) {
    size_t cap = s->row_cap ? 2 * s->row_cap : 64;
    cli_bench_row *grown = realloc(s->rows, cap * sizeof *grown);
    if (!grown)
      return; /* the row is printed; only the chart misses it */
    s->rows = grown;
    s->row_cap = cap;
  }
  s->rows[s->row_count++] = *row;
}

/* Verifies and times one algorithm on d, and reports its row (or why it has none). */
static void bench_algorithm(bench_state *s, cli_bench_data *d, cli_bench_row *row) {
  char types[32], label[96];
  cli_row_types(row, types, sizeof types);
  snprintf(label, sizeof label, "%s %s %s %s n=2^%d", clscan_algorithm_name(row->algo), types,
           clscan_op_name(row->op), cli_variant_name(row->variant), row->log2n);
  clscan_scan_desc desc = cli_bench_desc(&d->spec, row->algo);
  clscan_plan *plan = s->plans[row->algo];
  cli_timing t = cli_time_plan(plan, &desc, d, s->req->reps, label, &row->ms);
  row->reruns = s->req->reruns * (s->req->concurrent ? 2 : 1);
  if (t == CLI_TIMED)
    t = cli_count_rerun_differences(plan, d, s->req->reruns, s->req->concurrent, label,
                                    &row->differ);
  if (t == CLI_TIMED) {
    row->gbps = cli_gbps_bytes((double)d->n * (double)row->bytes_per_element, row->ms);
    bench_row(s, row);
  } else {
    row_start(s, clscan_algorithm_name(row->algo), types, row->op, row->log2n);
    printf("%s\n",
           t == CLI_WRONG ? "WRONG RESULT (no time reported)" : "FAILED (no time reported)");
    s->failed = 1;
  }
}

/* ---------------------------------------------------------------------------------------------
 * The reduce row (plain variant): clscan_plan_enqueue_reduce of the same input, an add into the
 * output type, against a copy of the bytes it must move (n inputs read, one element written).
 * It is timed from its first command's start to its last command's end (profiling events of
 * clscan_plan_enqueue_reduce_timed), as the scans are: the host's launch latency before the
 * first kernel starts does not count.
 * ------------------------------------------------------------------------------------------- */

/* Reduces d's input into d->out[0]; with ms, times it. Returns 0 after printing a failure. */
static int reduce_once(clscan_plan *plan, cli_bench_data *d, const char *label, double *ms) {
  cl_command_queue q = clscan_context_queue(d->ctx);
  cl_event first = NULL, done = NULL;
  const double start = measure_host_ms();
  clscan_status st = clscan_plan_enqueue_reduce_timed(plan, q, d->in, 0, d->out, 0, d->n, 0, NULL,
                                                      ms ? &first : NULL, &done);
  int ok = st == CLSCAN_SUCCESS;
  if (!ok)
    cli_lib_error(st, "%s: enqueue failed", label);
  ok = ok && clWaitForEvents(1, &done) == CL_SUCCESS;
  ok = ok && (!ms || measure_span_ms(first, done, measure_host_ms() - start, ms));
  if (st == CLSCAN_SUCCESS && !ok)
    cli_error("%s: waiting for the reduction or reading its profiling times failed", label);
  if (first)
    clReleaseEvent(first);
  if (done)
    clReleaseEvent(done);
  return ok;
}

/* Reads the reduction's result and checks it: against the host reference (the last element of
 * the inclusive scan, floats within its tolerance) when `want` is NULL, else bit for bit against
 * `want` (the same plan and input give the same bits). Stores the result in got. */
static cli_timing reduce_verify(const clscan_scan_desc *desc, cli_bench_data *d, const char *label,
                                const void *want, unsigned char got[8]) {
  size_t eo = clscan_type_size(cli_out_type(desc));
  cl_command_queue q = clscan_context_queue(d->ctx);
  if (clEnqueueReadBuffer(q, d->out, CL_TRUE, 0, eo, got, 0, NULL, NULL) != CL_SUCCESS) {
    cli_error("%s: reading the result back failed", label);
    return CLI_FAILED;
  }
  if (want) {
    if (memcmp(want, got, eo) == 0)
      return CLI_TIMED;
    cli_error("%s: WRONG RESULT after timing: other bits than before", label);
    return CLI_WRONG;
  }
  clscan_ref_scan(desc, d->host_in, d->host_out, d->n);
  memcpy((unsigned char *)d->host_out + (d->n - 1) * eo, got, eo);
  clscan_ref_mismatch m;
  if (clscan_ref_check(desc, d->host_in, d->host_out, d->n, &m))
    return CLI_TIMED;
  cli_error("%s: WRONG RESULT before timing: %s", label, m.detail);
  return CLI_WRONG;
}

/* Runs a verified reduction `reruns` more times and counts those whose result has other bits
 * than `want` in *differ. */
static cli_timing reduce_reruns(clscan_plan *plan, cli_bench_data *d, int reruns, const char *label,
                                const unsigned char want[8], int *differ) {
  size_t eo = clscan_type_size(d->spec.out_type);
  cl_command_queue q = clscan_context_queue(d->ctx);
  unsigned char got[8];
  *differ = 0;
  for (int i = 0; i < reruns; i++) {
    if (!reduce_once(plan, d, label, NULL))
      return CLI_FAILED;
    if (clEnqueueReadBuffer(q, d->out, CL_TRUE, 0, eo, got, 0, NULL, NULL) != CL_SUCCESS) {
      cli_error("%s: reading a rerun's result back failed", label);
      return CLI_FAILED;
    }
    *differ += memcmp(got, want, eo) != 0;
  }
  return CLI_TIMED;
}

/* Verifies, times (median of reps after warm-ups) and verifies again a reduction of d, then
 * counts the reruns whose bits differ (in *differ). */
static cli_timing reduce_time(clscan_plan *plan, const clscan_scan_desc *desc, cli_bench_data *d,
                              int reps, int reruns, const char *label, double *ms, int *differ) {
  unsigned char first[8], last[8];
  const unsigned char poison = 0x5a;
  cl_command_queue q = clscan_context_queue(d->ctx);
  if (clEnqueueFillBuffer(q, d->out, &poison, 1, 0, 8, 0, NULL, NULL) != CL_SUCCESS) {
    cli_error("%s: clearing the output failed", label);
    return CLI_FAILED;
  }
  if (!reduce_once(plan, d, label, NULL))
    return CLI_FAILED;
  cli_timing t = reduce_verify(desc, d, label, NULL, first);
  double *times = t == CLI_TIMED ? malloc((size_t)reps * sizeof *times) : NULL;
  if (t == CLI_TIMED && !times)
    t = CLI_FAILED;
  for (int i = 0; i < CLI_WARMUPS + reps && t == CLI_TIMED; i++) {
    if (!reduce_once(plan, d, label, i < CLI_WARMUPS ? NULL : &times[i - CLI_WARMUPS]))
      t = CLI_FAILED;
  }
  if (t == CLI_TIMED)
    t = reduce_verify(desc, d, label, first, last);
  if (t == CLI_TIMED)
    *ms = measure_median(times, (size_t)reps);
  free(times);
  return t == CLI_TIMED ? reduce_reruns(plan, d, reruns, label, first, differ) : t;
}

/* Measures the reduce row of one size: a plain variant's input, reduced by the operator into the
 * output type. */
static void bench_reduce(bench_state *s, cli_bench_data *d, const cli_bench_row *scan_row) {
  clscan_scan_desc desc = {
      .type = d->spec.type, .op = d->spec.op, .out_type = CLSCAN_OUT_TYPE(d->spec.out_type)};
  char types[32], label[96], differ_col[32];
  int differ = 0;
  cli_row_types(scan_row, types, sizeof types);
  snprintf(label, sizeof label, "reduce %s %s n=2^%d", types, clscan_op_name(d->spec.op),
           scan_row->log2n);
  size_t in = clscan_type_size(d->spec.type), out = clscan_type_size(d->spec.out_type);
  double bytes = (double)d->n * (double)in + (double)out, ms = 0, copy_ms = 0;
  size_t copy_bytes = (size_t)(bytes + 1) / 2;
  clscan_plan *plan = NULL;
  clscan_status st = clscan_plan_create(s->ctx, &desc, &plan);
  if (st != CLSCAN_SUCCESS) {
    cli_lib_error(st, "%s: cannot create the plan", label);
    s->failed = 1;
    return;
  }
  cli_timing t = reduce_time(plan, &desc, d, s->req->reps, s->req->reruns, label, &ms, &differ);
  if (t == CLI_TIMED && !measure_copy_median_ms(clscan_context_queue(s->ctx), d->in, d->copy,
                                                copy_bytes, CLI_WARMUPS, s->req->reps, &copy_ms))
    t = CLI_FAILED;
  char host[32];
  ms_text(t == CLI_TIMED ? cli_time_host_fold(d) : 0, host, sizeof host);
  row_start(s, "reduce", types, d->spec.op, scan_row->log2n);
  if (t == CLI_TIMED) {
    differ_text(differ, s->req->reruns, differ_col, sizeof differ_col);
    printf("%11.4f %9.3f %9.3f %10.4f %10s %7s\n", ms, ms > 0 ? cli_gbps_bytes(bytes, ms) : 0.0,
           ms > 0 ? copy_ms / ms : 0.0, copy_ms, host, differ_col);
  } else {
    printf("%s\n",
           t == CLI_WRONG ? "WRONG RESULT (no time reported)" : "FAILED (no time reported)");
    s->failed = 1;
  }
  fflush(stdout);
  clscan_plan_release(plan);
}

/* Measures every planned algorithm on n = 2^k elements of one type. */
static void bench_size(bench_state *s, clscan_type type, int k) {
  cli_bench_data d;
  cli_bench_spec spec = bench_spec(s, type);
  cli_bench_row row = {.type = type,
                       .out_type = spec.out_type,
                       .variant = spec.variant,
                       .op = spec.op,
                       .log2n = k,
                       .bytes_per_element = cli_bench_bytes_per_element(&spec)};
  int ok = cli_bench_data_init_spec(&d, s->ctx, &spec, (size_t)1 << k, s->req->seed) &&
           cli_time_copy(&d, s->req->reps, &row.copy_ms);
  if (!ok)
    s->failed = 1;
  if (ok)
    row.host_ms = cli_time_host_loop(&d);
  for (int i = 0; ok && i < s->req->algo_count; i++) {
    row.algo = s->req->algos[i];
    if (s->plans[row.algo])
      bench_algorithm(s, &d, &row);
  }
  if (ok && s->req->reduce && spec.variant == CLI_VARIANT_PLAIN)
    bench_reduce(s, &d, &row);
  cli_bench_data_free(&d);
}

/* Creates the plans of one type; returns how many algorithms can run. */
static int bench_plans(bench_state *s, clscan_type type) {
  int count = 0;
  cli_bench_spec spec = bench_spec(s, type);
  for (int i = 0; i < s->req->algo_count; i++) {
    clscan_algorithm a = s->req->algos[i];
    clscan_scan_desc desc = cli_bench_desc(&spec, a);
    const char *name = clscan_algorithm_name(a);
    clscan_status st = clscan_context_supports(s->ctx, &desc);
    if (st != CLSCAN_SUCCESS) {
      printf("note: skipping %s for %s %s: %s (%s)\n", name, clscan_type_name(type),
             clscan_op_name(s->op), clscan_status_string(st), clscan_last_error_detail());
      continue;
    }
    st = clscan_plan_create(s->ctx, &desc, &s->plans[a]);
    if (st != CLSCAN_SUCCESS) {
      cli_lib_error(st, "cannot create the %s plan for %s", name, clscan_type_name(type));
      if (st == CLSCAN_BUILD_FAILED || st == CLSCAN_USER_SOURCE_INVALID)
        cli_print_build_log(s->ctx);
      s->failed = 1;
      continue;
    }
    count++;
  }
  return count;
}

/* Measures one type at every size that fits the device. */
static void bench_type(bench_state *s, clscan_type type) {
  cli_bench_spec spec = bench_spec(s, type);
  int want = s->req->max_log2 >= 0 ? s->req->max_log2 : cli_device_is_gpu(s->device) ? 28 : 24;
  int cap = cli_max_log2_for_spec(s->device, &spec);
  int max = want < cap ? want : cap;
  if (max < want)
    printf(
        "note: %s sizes capped at 2^%d so that the scan's and the copy's buffers fit the "
        "device\n",
        clscan_type_name(type), cap);
  if (s->req->min_log2 > max) {
    printf("note: no %s size from 2^%d up fits the device\n", clscan_type_name(type),
           s->req->min_log2);
    return;
  }
  memset(s->plans, 0, sizeof s->plans);
  if (bench_plans(s, type) > 0) {
    for (int k = s->req->min_log2; k <= max; k++)
      bench_size(s, type, k);
  }
  for (int a = 0; a < CLSCAN_ALGORITHM_COUNT; a++)
    clscan_plan_release(s->plans[a]);
}

/* ============================================================================================== */
/* The bench command: reports                                                                     */
/* ============================================================================================== */

/* Finds the measured time of an algorithm for a type and size, of the first operator; 0 if there
 * is none. */
static double row_ms(const bench_state *s, clscan_algorithm a, clscan_type t, int k) {
  for (size_t i = 0; i < s->row_count; i++) {
    const cli_bench_row *r = &s->rows[i];
    if (r->algo == a && r->type == t && r->log2n == k && r->op == s->req->ops[0])
      return r->ms;
  }
  return 0;
}

/* Prints where Blelloch's O(n) work starts to beat Hillis-Steele's O(n log B), per type. B is
 * the library's seed work-group size for the first type (clscan_context_default_tuning). */
static void print_lesson(const bench_state *s) {
  clscan_scan_desc seed = {
      .type = s->req->types[0], .op = s->req->ops[0], .algorithm = CLSCAN_ALGO_BLELLOCH};
  clscan_tuning tuning;
  if (!cli_default_tuning(s->ctx, &seed, &tuning))
    return;
  unsigned b = tuning.seed_wg, log2b = 0;
  while ((1u << (log2b + 1)) <= b)
    log2b++;
  printf("\nWork efficiency, Blelloch against Hillis-Steele (%s, work-group size B = %u):\n",
         clscan_op_name(s->req->ops[0]), b);
  printf(
      "  work per element and level: hillis-steele log2(%u) = %u combines, blelloch ~2 "
      "(up-sweep + down-sweep)\n",
      b, log2b);
  for (int i = 0; i < s->req->type_count; i++) {
    clscan_type t = s->req->types[i];
    int first = -1, compared = 0;
    for (int k = s->req->min_log2; k <= 40 && first < 0; k++) {
      double bl = row_ms(s, CLSCAN_ALGO_BLELLOCH, t, k),
             hs = row_ms(s, CLSCAN_ALGO_HILLIS_STEELE, t, k);
      if (bl > 0 && hs > 0)
        compared = 1;
      if (bl > 0 && hs > 0 && bl < hs)
        first = k;
    }
    printf("  %-7s smallest n where blelloch beats hillis-steele: ", clscan_type_name(t));
    if (first >= 0)
      printf("2^%d (%.4f ms vs %.4f ms)\n", first, row_ms(s, CLSCAN_ALGO_BLELLOCH, t, first),
             row_ms(s, CLSCAN_ALGO_HILLIS_STEELE, t, first));
    else
      printf("%s\n", compared ? "none in range" : "not measured (run both algorithms)");
  }
}

/* Prints what the variant scans, for the header. */
static void print_variant(cli_variant v) {
  printf("variant: %s: ", cli_variant_name(v));
  if (v == CLI_VARIANT_PLAIN)
    printf("y = x\n");
  else if (v == CLI_VARIANT_MAP)
    printf("y = x * 3 + (i & 15), computed in the input type (integers wrap)\n");
  else if (v == CLI_VARIANT_SEGMENTED)
    printf("random uint8 head flags, mean segment length %d (plan API)\n", CLI_MEAN_SEGMENT);
  else if (v == CLI_VARIANT_BY_KEY)
    printf("int32 keys, runs of mean length %d\n", CLI_MEAN_SEGMENT);
  else if (v == CLI_VARIANT_OFFSETS)
    printf("int32 offsets, mean segment length %d, a quarter of them empty (plan API)\n",
           CLI_MEAN_SEGMENT);
  else
    printf("rows of %d elements (clscan_scan_batched)\n", CLI_ROW_LENGTH);
}

/* Sets the width of the table's type column: the longest type label, at least 7. */
static void set_type_width(bench_state *s) {
  s->type_width = 7;
  for (int i = 0; i < s->req->type_count; i++) {
    cli_bench_spec spec = bench_spec(s, s->req->types[i]);
    cli_bench_row row = {.type = spec.type, .out_type = spec.out_type};
    char types[32];
    cli_row_types(&row, types, sizeof types);
    if ((int)strlen(types) > s->type_width)
      s->type_width = (int)strlen(types);
  }
}

/* Prints, per input type, the types scanned, the bytes per element that GB/s counts, and the
 * bytes the copy copies. */
static void print_bytes(const bench_state *s) {
  for (int i = 0; i < s->req->type_count; i++) {
    cli_bench_spec spec = bench_spec(s, s->req->types[i]);
    size_t in = clscan_type_size(spec.type), out = clscan_type_size(spec.out_type);
    size_t all = cli_bench_bytes_per_element(&spec);
    printf("types:   %s -> %s: %zu bytes per element (input %zu + output %zu",
           clscan_type_name(spec.type), clscan_type_name(spec.out_type), all, in, out);
    if (all > in + out)
      printf(" + %s %zu", spec.variant == CLI_VARIANT_BY_KEY ? "key" : "flag", all - in - out);
    printf("); the copy copies n * %g bytes\n", (double)all / 2);
  }
}

/* Prints the device, its driver and the seed. */
static void print_device(const bench_state *s) {
  char vendor[256], driver[256];
  cli_device_string(s->device, CL_DEVICE_VENDOR, vendor, sizeof vendor);
  cli_device_string(s->device, CL_DRIVER_VERSION, driver, sizeof driver);
  printf("device:  %s (%s)\ndriver:  %s\n", s->device_name, vendor, driver);
  printf("seed:    %llu (repeat with --seed %llu)\n", (unsigned long long)s->req->seed,
         (unsigned long long)s->req->seed);
}

/* Prints what is measured, on which device, and the table's columns. */
static void print_header(const bench_state *s) {
  print_variant(s->req->variant);
  print_bytes(s);
  printf("scan:    exclusive");
  for (int i = 0; i < s->req->op_count; i++)
    printf("%s %s", i ? "," : "", clscan_op_name(s->req->ops[i]));
  printf(", verified before and after timing; median of %d runs after %d warm-ups\n", s->req->reps,
         CLI_WARMUPS);
  if (s->req->reruns > 0)
    printf(
        "reruns:  %d more runs, each over a poisoned output%s; differ = how many outputs had\n"
        "         other bytes than the verified output of the timed runs\n",
        s->req->reruns,
        s->req->concurrent ? ", each at the same time on a second queue (two outputs)" : "");
  printf(
      "GB/s = n * bytes per element / time; the copy moves the same bytes (it copies half of\n"
      "         them, read once and written once); ratio = copy time / scan time (1.0 = copy "
      "speed)\n\n");
  printf("%-17s %-*s %-4s %-5s %11s %9s %9s %10s %10s %7s\n", "algorithm", s->type_width, "type",
         "op", "n", "median ms", "GB/s", "ratio", "copy ms", "host ms", "differ");
}

/* Opens the report files before measuring, so that a bad path fails at once. */
static int open_reports(bench_state *s) {
  const bench_request *r = s->req;
  if (r->csv_path && !cli_output_open(&s->csv, r->csv_path))
    return 0;
  if (r->plot_path && !cli_output_open(&s->plot, r->plot_path))
    return 0;
  if (s->csv.f && r->family != FAMILY_SORT) /* the sort rows have columns of their own */
    cli_csv_header(s->csv.f);
  return 1;
}

/* Finishes the report files (they hold verified rows only); returns 0 if writing failed. */
static int close_reports(bench_state *s) {
  int ok = 1;
  if (s->plot.f && !cli_write_svg(s->plot.f, s->device_name, s->rows, s->row_count)) {
    cli_error("cannot write %s: %s", s->plot.name, strerror(errno));
    cli_output_abort(&s->plot);
    ok = 0;
  }
  if (s->plot.f)
    ok = cli_output_commit(&s->plot) && ok;
  if (s->csv.f)
    ok = cli_output_commit(&s->csv) && ok;
  return ok;
}

/* Measures the scans (and reductions) the request asks for: every type with every operator. */
static void run_scans(bench_state *s) {
  set_type_width(s);
  print_header(s);
  for (int i = 0; i < s->req->type_count; i++) {
    for (int o = 0; o < s->req->op_count; o++) {
      s->op = s->req->ops[o];
      bench_type(s, s->req->types[i]);
    }
  }
  print_lesson(s);
}

/* Returns what the selection and sort families measure. */
static cli_family_bench family_bench(const bench_state *s) {
  const bench_request *r = s->req;
  cli_family_bench b = {.ctx = s->ctx,
                        .device_name = s->device_name,
                        .algos = r->algos,
                        .sort_algos = r->sort_algos,
                        .types = r->types,
                        .algo_count = r->algo_count,
                        .sort_algo_count = r->sort_algo_count,
                        .type_count = r->type_count,
                        .min_log2 = r->min_log2,
                        .max_log2 = r->max_log2,
                        .reps = r->reps,
                        .select_kinds = r->select_kinds,
                        .no_host = r->no_host,
                        .seed = r->seed,
                        .csv = s->csv.f,
                        .cub = s->cub};
  return b;
}

/* Measures the selection family (cli_select_bench.c): its own rows, in the same CSV columns. */
static void run_selections(bench_state *s) {
  cli_family_bench b = family_bench(s);
  cli_bench_select_header();
  s->failed = !cli_bench_select(&b);
}

/* Measures the sorts (cli_bench_sort.c): rows and CSV columns of their own. */
static void run_sorts(bench_state *s) {
  cli_family_bench b = family_bench(s);
  cli_bench_sort_header(&b);
  s->failed = !cli_bench_sort(&b);
}

int cli_cmd_bench(int argc, char **argv) {
  bench_request r = {.algos = {CLSCAN_ALGO_BLELLOCH, CLSCAN_ALGO_HILLIS_STEELE,
                               CLSCAN_ALGO_REDUCE_THEN_SCAN, CLSCAN_ALGO_SINGLE_PASS},
                     .algo_count = 4,
                     .types = {CLSCAN_INT32},
                     .variant = CLI_VARIANT_PLAIN,
                     .type_count = 1,
                     .ops = {CLSCAN_ADD},
                     .op_count = 1,
                     .reruns = 5,
                     .min_log2 = 10,
                     .max_log2 = -1,
                     .reps = 20,
                     .reduce = 1,
                     .seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32)};
  int status = bench_parse(argc, argv, &r);
  if (status >= 0)
    return status;
  // CUB's figures are read before any device work, so that a bad file measures nothing.
  cli_cub_sorts cub = {0};
  if (r.cub_path && !cli_cub_read(r.cub_path, &cub))
    return CLI_EXIT_FAIL;

  bench_state s = {.req = &r, .cub = r.cub_path ? &cub : NULL};
  if (!cli_open_context(r.device, &s.ctx)) {
    cli_cub_free(&cub);
    return CLI_EXIT_FAIL;
  }
  s.device = clscan_context_device(s.ctx);
  cli_device_string(s.device, CL_DEVICE_NAME, s.device_name, sizeof s.device_name);
  int ok = open_reports(&s);
  if (ok) {
    print_device(&s);
    ok = cli_choose_clock(s.ctx);
  }
  if (ok) {
    void (*run_family[])(bench_state *) = {run_scans, run_selections, run_sorts};
    run_family[r.family](&s);
    ok = close_reports(&s) && !s.failed;
  } else {
    cli_output_abort(&s.csv);
    cli_output_abort(&s.plot);
  }
  if (s.failed)
    cli_error("bench: some measurements failed (see above); their rows have no time");
  free(s.rows);
  cli_cub_free(&cub);
  clscan_context_release(s.ctx);
  return ok ? CLI_EXIT_OK : CLI_EXIT_FAIL;
}
