/*
 * The clscan program's command table: the usage text of the program and of each command, the
 * lookup of a command by name, and the program's messages (errors, library failures, usage
 * errors).
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

/* ============================================================================================== */
/* Usage                                                                                          */
/* ============================================================================================== */

static const cli_command commands[] = {
    {"devices", cli_cmd_devices, "list OpenCL platforms and devices; * marks the default",
     "Usage: clscan devices\n"
     "\n"
     "Lists every OpenCL platform and device with its capabilities and the algorithms clscan\n"
     "can run on it. '*' marks the default device: the one CLSCAN_DEVICE names (\"P:D\" or a\n"
     "name substring), else the first GPU, else the first device.\n"},
    {"scan", cli_cmd_scan, "scan a file of numbers (text or binary)",
     "Usage: clscan scan [options] [IN [OUT]]\n"
     "\n"
     "Scans IN (default or '-': standard input) into OUT (default or '-': standard output).\n"
     "OUT is replaced only when the whole scan succeeded. OUT holds elements of the output type.\n"
     "\n"
     "Options (--opt=value and --opt value both work):\n"
     "  --format text|binary   text: one number a line (default); binary: raw little-endian\n"
     "                         (also for --flags and --keys files)\n"
     "  --type T               input type: int32 (default), uint32, int64, uint64, float,\n"
     "                         double, int8, uint8, int16, uint16, half (IEEE binary16:\n"
     "                         text is rounded to the nearest half; sources see a float)\n"
     "  --out-type T           output type, in which the scan is computed (default: --type);\n"
     "                         the input is converted as an OpenCL C cast\n"
     "  --op OP                add (default), mul, min, max, and, or, xor\n"
     "  --op-source SRC        a user operator instead of --op: OpenCL C over a and b of the\n"
     "                         output type, an expression (\"a + b\") or a body with return\n"
     "                         (\"{ return a > b ? a : b; }\"); it must be associative\n"
     "  --identity V           the identity of --op-source (required with it), output type\n"
     "  --map-source SRC       scan map(x, i) instead of x: OpenCL C of x (the input element)\n"
     "                         and i (its index, a ulong), converted to the output type\n"
     "  --exclusive            exclusive scan (default: inclusive)\n"
     "  --init VALUE           initial value, of the output type (default: the identity)\n"
     "  --flags FILE           segmented scan: one head flag per input element (text: 0 or 1\n"
     "                         a line; binary: one byte each, non-zero starts a segment)\n"
     "  --keys FILE            scan by key: one key per input element; a run of equal keys\n"
     "                         is a segment (not with --flags)\n"
     "  --segment-offsets FILE segmented scan: n_segments + 1 offsets (CSR row pointers):\n"
     "                         segment s is elements [o[s], o[s+1]); o[0] is 0, each at least\n"
     "                         the one before (equal: an empty segment), the last is n\n"
     "  --key-type T           type of --keys: any --type (default int32; floats compare as\n"
     "                         values); of --segment-offsets: int32, uint32, int64, uint64\n"
     "  --rows R               batched scan: the input is R rows of equal length, each\n"
     "                         scanned on its own (not with segments)\n"
     "  --columns              with --rows: scan each column of that row-major matrix\n"
     "  --algorithm A          auto (default), blelloch, hillis-steele, reduce-then-scan,\n"
     "                         single-pass\n" CLI_USAGE_ARG
     "                         (--map-source and --op-source read them; not with --rows or\n"
     "                         --segment-offsets)\n"
     "  --device SEL           device \"P:D\" or name substring (as CLSCAN_DEVICE)\n"
     "\n"
     "Element 0 always starts a segment. User-defined types (clscan_scan_desc.type_source)\n"
     "are available through the library only; user operators and maps here work on the\n"
     "built-in types above. A source that fails to compile prints the compiler's log.\n"},
    {"reduce", cli_cmd_reduce, "reduce a file of numbers to one (text or binary)",
     "Usage: clscan reduce [options] [IN [OUT]]\n"
     "\n"
     "Reduces IN (default or '-': standard input) to one element of the output type,\n"
     "init op x[0] op x[1] op ..., written to OUT (default or '-': standard output). OUT is\n"
     "replaced only when the whole reduction succeeded. An empty IN gives --init (or the\n"
     "identity).\n"
     "\n"
     "Options: those of clscan scan (see clscan scan --help) except --exclusive, --flags,\n"
     "--keys, --key-type and --algorithm:\n"
     "  --format text|binary, --type T, --out-type T, --op OP, --op-source SRC,\n"
     "  --identity V, --map-source SRC, --init VALUE, --arg SPEC, --device SEL\n"
     "\n"
     "The result is deterministic: the same input, options and device give the same bits.\n"},
    {"sort", cli_cmd_sort, "sort a file of keys (and values), or benchmark sorts", cli_sort_usage},
    {"select", cli_cmd_select, "keep the elements whose flag is set or that pass a predicate",
     cli_select_usage},
    {"partition", cli_cmd_select,
     "selected elements, then the rejected ones (stable; or two files)", cli_partition_usage},
    {"unique", cli_cmd_select, "drop consecutive duplicates", cli_unique_usage},
    {"rle", cli_cmd_select, "run-length encode: each run's value and length", cli_rle_usage},
    {"bench", cli_cmd_bench, "benchmark the algorithms against a device copy",
     "Usage: clscan bench [options]\n"
     "\n"
     "Times exclusive scans of random data (verified against a host reference) with each\n"
     "algorithm, next to a clEnqueueCopyBuffer of the same bytes and a sequential host loop,\n"
     "and counts the reruns whose output bits differ; or the selections or the sorts.\n"
     "\n"
     "Options:\n"
     "  --device SEL           device \"P:D\" or name substring (as CLSCAN_DEVICE)\n"
     "  --algorithms LIST      comma-separated (default: blelloch,hillis-steele,\n"
     "                         reduce-then-scan,single-pass; sorts: lsd,onesweep, or auto)\n"
     "  --types LIST           comma-separated input types (default: int32; sorts: uint32;\n"
     "                         half only for scans)\n"
     "  --ops LIST             comma-separated operators: add (default), mul, min, max, and,\n"
     "                         or, xor (the bitwise ones are skipped for float, double, half)\n"
     "  --out-type T           output type of every scan (default: the input type)\n"
     "  --variant V            plain (default); map: scans y = x * 3 + (i & 15), computed in\n"
     "                         the input type (integers wrap; half: y = -x); segmented: head\n"
     "                         flags, segments of mean length 1000; by-key: int32 keys, runs\n"
     "                         of mean length 1000;\n"
     "                         offsets: int32 offsets, segments of mean length 1000 (a quarter\n"
     "                         empty); rows: clscan_scan_batched over rows of 1024 elements\n"
     "  --min-log2 K           smallest n = 2^K (default 10)\n"
     "  --max-log2 K           largest n = 2^K (default 24 on a CPU, 28 on a GPU; sorts 22 on a\n"
     "                         CPU; capped so that the buffers fit the device)\n"
     "  --reps N               timed runs per measurement, after 2 warm-ups (default 20)\n"
     "  --reruns K             runs after the timed ones, each compared byte for byte with\n"
     "                         their verified output: the differ column (default 5; 0: none)\n"
     "  --concurrent           each rerun also runs at the same time on a second queue, into\n"
     "                         an output of its own; both outputs are compared (scan rows)\n"
     "  --seed S               seed of the random input and segments (default: from the clock)\n"
     "  --csv FILE             write every row as CSV\n"
     "  --plot FILE.svg        write an SVG chart of GB/s against n (one operator)\n"
     "  --no-reduce            no reduce row (plain variant: each size also times\n"
     "                         clscan_plan_enqueue_reduce, the operator over the input into\n"
     "                         the output type, against a copy of n inputs + one output; table\n"
     "                         only, not in the CSV or SVG)\n"
     "  --family F             scan (default); select: the selection primitives instead\n"
     "                         (select by flags at 0, 1, 10, 50, 90, 99, 100 % selected, by\n"
     "                         predicate and partition at 50 %, unique and rle of runs of mean\n"
     "                         length 4; default algorithms single-pass,reduce-then-scan);\n"
     "                         sort: sorts of keys and of key + uint32 index pairs, keys\n"
     "                         uniform, few distinct, already sorted and in a narrow bit range,\n"
     "                         in keys/s. Neither takes --variant, --out-type, --ops, --reruns\n"
     "                         or --plot\n"
     "  --only LIST            select: only these primitives (comma-separated row names:\n"
     "                         select-flags, select-pred, partition, partition-copy,\n"
     "                         partition-reversed, unique, rle)\n"
     "  --no-host              select: do not time the sequential host loop (host ms: -); the\n"
     "                         results are still checked against the host reference\n"
     "  --cub FILE             sort: CUB's times from FILE, the output of tools/bench/cub_bench\n"
     "                         --only sort on the same device: each row's rate as a fraction\n"
     "                         of CUB's (column \"of CUB\", CSV column cub_ms)\n"
     "\n"
     "GB/s counts the bytes a scan must move: n * (input + output [+ flag or key]) element\n"
     "bytes. The copy moves the same bytes: it copies half of them, which are read and written.\n"
     "A selection moves its inputs once and its outputs once (select by flags of c of n int32:\n"
     "n * 5 + c * 4 + the count).\n"},
    {"tune", cli_cmd_tune, "measure tile parameters and suggest tuning-table rows",
     "Usage: clscan tune [options]\n"
     "\n"
     "Sweeps the single-pass and reduce-then-scan tile parameters through plans with explicit\n"
     "tuning (clscan_tuning's cpu_tile on a CPU; tile_wg x tile_vpt on a GPU), verifies and\n"
     "times each candidate, and prints rows for the table in src/tuning.c.\n"
     "\n"
     "Options:\n"
     "  --device SEL           device \"P:D\" or name substring (as CLSCAN_DEVICE)\n"
     "  --types LIST           comma-separated element types (default: int32)\n"
     "  --log2 K               n = 2^K (default 24 on a CPU, 26 on a GPU; capped to fit)\n"
     "  --reps N               timed runs per candidate, after 2 warm-ups (default 20)\n"},
};

#define COMMAND_COUNT (sizeof commands / sizeof commands[0])

const cli_command *cli_find_command(const char *name) {
  for (size_t i = 0; i < COMMAND_COUNT; i++) {
    if (strcmp(commands[i].name, name) == 0)
      return &commands[i];
  }
  return NULL;
}

void cli_print_usage(FILE *f, const char *command) {
  const cli_command *c = command ? cli_find_command(command) : NULL;
  if (c) {
    fputs(c->usage, f);
    return;
  }
  fputs(
      "Usage: clscan COMMAND [options]\n       clscan COMMAND --help  (or: clscan help COMMAND)\n"
      "       clscan --version\n"
      "\nParallel prefix sums (scans) on OpenCL devices.\n\nCommands:\n",
      f);
  for (size_t i = 0; i < COMMAND_COUNT; i++) {
    fprintf(f, "  %-9s %s\n", commands[i].name, commands[i].summary);
  }
  fputs("\nExit status: 0 on success, 1 on failure, 2 on a usage error.\n", f);
}

/* ============================================================================================== */
/* Messages                                                                                       */
/* ============================================================================================== */

void cli_error(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("clscan: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
}

void cli_lib_error(clscan_status st, const char *fmt, ...) {
  // The detail says which check or which OpenCL call failed; it is read before anything else.
  const char *detail = clscan_last_error_detail();
  va_list ap;
  va_start(ap, fmt);
  fputs("clscan: ", stderr);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fprintf(stderr, ": %s", clscan_status_string(st));
  if (detail && *detail)
    fprintf(stderr, " (%s)", detail);
  fputc('\n', stderr);
}

int cli_usage_error(const char *command, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "clscan: %s%s", command ? command : "", command ? ": " : "");
  vfprintf(stderr, fmt, ap);
  fprintf(stderr, "\nTry 'clscan %s%s--help'.\n", command ? command : "", command ? " " : "");
  va_end(ap);
  return CLI_EXIT_USAGE;
}
