/*
 * The clscan program's `sort` command: sorts a file of keys (and optionally a file of values)
 * with clscan_sort_host(), in the scan command's file conventions (text or binary, IN and OUT
 * default to standard input and output, OUT replaced only when everything succeeded), and its
 * benchmark mode (--bench), which verifies a sort of random keys and then times it in keys per
 * second, next to the C library's qsort (the measurements are cli_bench_sort.c's).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

const char cli_sort_usage[] =
    "Usage: clscan sort [options] [IN [OUT]]\n"
    "       clscan sort --bench [--n N] [--type T] [--pairs] [--algorithm A] [--reps R]\n"
    "\n"
    "Sorts the keys in IN (default or '-': standard input) into OUT (default or '-': standard\n"
    "output), stably. OUT is replaced only when the whole sort succeeded. Floating-point keys\n"
    "sort in the IEEE total order: -NaN < -inf < ... < -0.0 < +0.0 < ... < +inf < +NaN.\n"
    "\n"
    "Options (--opt=value and --opt value both work):\n"
    "  --format text|binary   text: one number a line (default); binary: raw little-endian\n"
    "  --type T               key type: int8, uint8, int16, uint16, int32 (default), uint32,\n"
    "                         int64, uint64, float, double\n"
    "  --descending           largest first (equal keys keep their input order)\n"
    "  --bits B:E             compare bits [B, E) of the ordered keys only\n"
    "  --values FILE          values, one per key, that move with their keys; needs --values-out\n"
    "  --value-type T         type of the values (default uint32)\n"
    "  --values-out FILE      where the sorted values go ('-': standard output)\n"
    "  --algorithm A          auto (default), lsd, onesweep\n"
    "  --device D             device: \"P:D\" or a name substring (as CLSCAN_DEVICE)\n"
    "\n"
    "--bench sorts N (default 2^24) random keys of T (default uint32), with uint32 index values\n"
    "when --pairs is given, checks the result against a host radix sort (itself checked against\n"
    "the host reference up to 2^20 keys) before and after timing, then prints the median of R\n"
    "(default 5) sorts after 2 warm-ups in keys/s, and the C library's qsort of the same keys.\n"
    "`clscan bench --family sort` measures more key distributions, types and sizes.\n";

enum {
  OPT_FORMAT,
  OPT_TYPE,
  OPT_DESCENDING,
  OPT_BITS,
  OPT_VALUES,
  OPT_VALUE_TYPE,
  OPT_VALUES_OUT,
  OPT_ALGORITHM,
  OPT_DEVICE,
  OPT_BENCH,
  OPT_N,
  OPT_PAIRS,
  OPT_REPS
};

static const cli_option sort_options[] = {{"format", 1, OPT_FORMAT},
                                          {"type", 1, OPT_TYPE},
                                          {"descending", 0, OPT_DESCENDING},
                                          {"bits", 1, OPT_BITS},
                                          {"values", 1, OPT_VALUES},
                                          {"value-type", 1, OPT_VALUE_TYPE},
                                          {"values-out", 1, OPT_VALUES_OUT},
                                          {"algorithm", 1, OPT_ALGORITHM},
                                          {"device", 1, OPT_DEVICE},
                                          {"bench", 0, OPT_BENCH},
                                          {"n", 1, OPT_N},
                                          {"pairs", 0, OPT_PAIRS},
                                          {"reps", 1, OPT_REPS},
                                          {NULL, 0, 0}};

/* What a sort command line asks for. */
typedef struct sort_request {
  int binary, bench, pairs, type_given;
  clscan_sort_desc desc;
  clscan_type value_type;
  unsigned long long n, reps;
  const char *device, *in_path, *out_path, *values_path, *values_out;
} sort_request;

/* Parses --bits B:E. */
static int parse_bits(sort_request *r, const char *v) {
  unsigned b, e;
  char tail;
  if (sscanf(v, "%u:%u%c", &b, &e, &tail) != 2 || b >= e || e > 64)
    return cli_usage_error("sort", "--bits: '%s' is not B:E with B < E <= 64", v), 0;
  r->desc.begin_bit = b;
  r->desc.end_bit = e;
  return 1;
}

/* Parses --algorithm. */
static int parse_algorithm(sort_request *r, const char *v) {
  if (cli_sort_algorithm_from_name(v, &r->desc.algorithm))
    return 1;
  return cli_usage_error("sort", "--algorithm: '%s' is not auto, lsd or onesweep", v), 0;
}

/* Applies one option's value; returns 0 after a usage error. */
static int sort_option(sort_request *r, int id, const char *v) {
  switch (id) {
    case OPT_FORMAT:
      if (cli_format_from_name(v, &r->binary))
        return 1;
      return cli_usage_error("sort", "--format: unknown value '%s'", v), 0;
    case OPT_TYPE:
      r->type_given = 1;
      /* fall through */
    case OPT_VALUE_TYPE:
      if (cli_type_from_name(v, id == OPT_TYPE ? &r->desc.key_type : &r->value_type))
        return 1;
      return cli_usage_error("sort", "--%s: '%s' is not a type",
                             id == OPT_TYPE ? "type" : "value-type", v),
             0;
    case OPT_DESCENDING:
      r->desc.descending = 1;
      return 1;
    case OPT_BITS:
      return parse_bits(r, v);
    case OPT_VALUES:
      r->values_path = v;
      return 1;
    case OPT_VALUES_OUT:
      r->values_out = v;
      return 1;
    case OPT_ALGORITHM:
      return parse_algorithm(r, v);
    case OPT_DEVICE:
      r->device = v;
      return 1;
    case OPT_BENCH:
      r->bench = 1;
      return 1;
    case OPT_PAIRS:
      r->pairs = 1;
      return 1;
    case OPT_N:
      return cli_parse_count("sort", "--n", v, 1, UINT32_MAX, &r->n);
    default:
      return cli_parse_count("sort", "--reps", v, 1, 1000, &r->reps);
  }
}

/* Parses the command line; returns -1 to run, else an exit status. */
static int sort_parse(int argc, char **argv, sort_request *r) {
  cli_parser p;
  const char *v;
  int positional = 0;
  cli_parser_init(&p, "sort", argc, argv, sort_options);
  for (int id; (id = cli_next_option(&p, &v)) != CLI_OPT_END;) {
    if (id == CLI_OPT_ERROR)
      return CLI_EXIT_USAGE;
    if (id == CLI_OPT_HELP) {
      cli_print_usage(stdout, "sort");
      return CLI_EXIT_OK;
    }
    if (id == CLI_OPT_POSITIONAL) {
      if (positional == 2)
        return cli_usage_error("sort", "unexpected argument '%s'", v);
      *(positional++ ? &r->out_path : &r->in_path) = v;
    } else if (!sort_option(r, id, v)) {
      return CLI_EXIT_USAGE;
    }
  }
  if (!r->values_path != !r->values_out)
    return cli_usage_error("sort", "--values and --values-out go together");
  if (r->bench && (r->values_path || positional))
    return cli_usage_error("sort", "--bench takes no files");
  return -1;
}

/* ============================================================================================== */
/* Sorting files                                                                                  */
/* ============================================================================================== */

static int is_stdin(const char *path) {
  return !path || strcmp(path, "-") == 0;
}

/* Writes n elements to a path and commits it. */
static int write_file(const sort_request *r, const char *path, clscan_type type, cli_byte_buf *b) {
  cli_output out;
  if (!cli_output_open(&out, path))
    return 0;
  size_t n = b->len / clscan_type_size(type);
  if (cli_write_elements(out.f, r->binary, type, b->data, n))
    return cli_output_commit(&out);
  cli_error("cannot write %s: %s", out.name, strerror(errno));
  cli_output_abort(&out);
  return 0;
}

/* Sorts the read keys (and values) on the device. */
static int sort_arrays(const sort_request *r, cli_byte_buf *keys, cli_byte_buf *values) {
  size_t n = keys->len / clscan_type_size(r->desc.key_type);
  clscan_sort_desc d = r->desc;
  if (values->data) {
    d.value_size = clscan_type_size(r->value_type);
    if (values->len / d.value_size != n) {
      cli_error("the values hold %zu elements, the keys %zu: one per key is needed",
                values->len / d.value_size, n);
      return 0;
    }
  }
  clscan_context *ctx = NULL;
  if (!cli_open_context(r->device, &ctx))
    return 0;
  clscan_status st = clscan_sort_host(ctx, &d, keys->data, values->data, n);
  if (st != CLSCAN_SUCCESS) {
    cli_lib_error(st, "sort of %zu %s keys failed", n, clscan_type_name(d.key_type));
    if (st == CLSCAN_BUILD_FAILED || st == CLSCAN_USER_SOURCE_INVALID)
      cli_print_build_log(ctx);
  }
  clscan_context_release(ctx);
  return st == CLSCAN_SUCCESS;
}

static int sort_files(const sort_request *r) {
  cli_byte_buf keys = {0}, values = {0};
  int ok = 0;
  if (r->values_path && is_stdin(r->values_path) && is_stdin(r->in_path)) {
    cli_error("the keys and the values cannot both be standard input");
    return CLI_EXIT_USAGE;
  }
  if (cli_read_element_file(r->binary, r->in_path, "input", r->desc.key_type, &keys) &&
      (!r->values_path ||
       cli_read_element_file(r->binary, r->values_path, "values", r->value_type, &values)) &&
      sort_arrays(r, &keys, &values) && write_file(r, r->out_path, r->desc.key_type, &keys) &&
      (!r->values_out || write_file(r, r->values_out, r->value_type, &values)))
    ok = 1;
  free(keys.data);
  free(values.data);
  return ok ? CLI_EXIT_OK : CLI_EXIT_FAIL;
}

/* ============================================================================================== */
/* The benchmark (the measurements of cli_bench_sort.c)                                           */
/* ============================================================================================== */

/* Verifies and times a sort of random keys, and times qsort of the same keys; prints one row. */
static int sort_bench(const sort_request *r) {
  size_t n = r->n ? (size_t)r->n : (size_t)1 << 24;
  clscan_sort_desc d = r->desc;
  d.value_size = r->pairs ? 4 : 0;
  clscan_context *ctx = NULL;
  clscan_sort_plan *plan = NULL;
  cli_sort_data h = {0};
  int ok = 0;
  if (!cli_open_context(r->device, &ctx))
    return CLI_EXIT_FAIL;
  clscan_status st = clscan_sort_plan_create(ctx, &d, &plan);
  if (st != CLSCAN_SUCCESS)
    cli_lib_error(st, "sort plan");
  else if (cli_sort_data_init(&h, &d, CLI_SORT_UNIFORM, n, 0x5EED)) {
    double ms = 0;
    const char *algo = cli_sort_algorithm_name(clscan_sort_plan_algorithm(plan));
    ok = cli_sort_measure(ctx, plan, &h, r->pairs, (int)r->reps, "sort --bench", &ms) == CLI_TIMED;
    double tq = ok ? cli_sort_qsort_ms(&h) : 0;
    if (ok)
      printf(
          "sort %s%s n=%zu algorithm=%s: %.3f ms, %.1f M keys/s (verified; median of %d); qsort "
          "%.1f ms, %.1f M keys/s; %.2fx qsort\n",
          clscan_type_name(d.key_type), r->pairs ? "/uint32 pairs" : " keys", n, algo, ms,
          (double)n / ms / 1e3, (int)r->reps, tq, tq > 0 ? (double)n / tq / 1e3 : 0.0, tq / ms);
  }
  cli_sort_data_free(&h);
  clscan_sort_plan_release(plan);
  clscan_context_release(ctx);
  return ok ? CLI_EXIT_OK : CLI_EXIT_FAIL;
}

int cli_cmd_sort(int argc, char **argv) {
  sort_request r = {.desc = {.key_type = CLSCAN_INT32}, .value_type = CLSCAN_UINT32, .reps = 5};
  int status = sort_parse(argc, argv, &r);
  if (status >= 0)
    return status;
  if (r.bench) {
    if (!r.type_given)
      r.desc.key_type = CLSCAN_UINT32;
    return sort_bench(&r);
  }
  return sort_files(&r);
}
