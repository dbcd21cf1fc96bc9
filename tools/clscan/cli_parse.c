/*
 * The clscan program: main, subcommand dispatch, messages, option parsing helpers, name
 * lookups, and the usage text of the program and of each command.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* ============================================================================================== */
/* Usage                                                                                          */
/* ============================================================================================== */

/* A subcommand: its name, entry point, one-line summary and usage text. */
typedef struct cli_command {
  const char *name;
  int (*run)(int argc, char **argv);
  const char *summary;
  const char *usage;
} cli_command;

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
     "                         double, int8, uint8, int16, uint16\n"
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
     "  --key-type T           type of --keys: int32 (default), uint32, int64, uint64\n"
     "  --algorithm A          auto (default), blelloch, hillis-steele, reduce-then-scan,\n"
     "                         single-pass\n"
     "  --device SEL           device \"P:D\" or name substring (as CLSCAN_DEVICE)\n"
     "\n"
     "Element 0 always starts a segment. User-defined types (clscan_scan_desc.type_source)\n"
     "are available through the library only; user operators and maps here work on the\n"
     "built-in types above. A source that fails to compile prints the compiler's log.\n"},
    {"bench", cli_cmd_bench, "benchmark the algorithms against a device copy",
     "Usage: clscan bench [options]\n"
     "\n"
     "Times exclusive add scans of random data (verified against a host reference) with each\n"
     "algorithm, next to a clEnqueueCopyBuffer of the same bytes and a sequential host loop.\n"
     "\n"
     "Options:\n"
     "  --device SEL           device \"P:D\" or name substring (as CLSCAN_DEVICE)\n"
     "  --algorithms LIST      comma-separated (default: blelloch,hillis-steele,\n"
     "                         reduce-then-scan,single-pass)\n"
     "  --types LIST           comma-separated input types (default: int32)\n"
     "  --out-type T           output type of every scan (default: the input type)\n"
     "  --variant V            plain (default); map: scans y = x * 3 + (i & 15), computed in\n"
     "                         the input type (integers wrap); segmented: head flags, segments\n"
     "                         of mean length 1000; by-key: int32 keys, runs of mean length 1000\n"
     "  --min-log2 K           smallest n = 2^K (default 10)\n"
     "  --max-log2 K           largest n = 2^K (default 24 on a CPU, 28 on a GPU; capped so\n"
     "                         that the buffers fit the device)\n"
     "  --reps N               timed runs per measurement, after 2 warm-ups (default 20)\n"
     "  --seed S               seed of the random input and segments (default: from the clock)\n"
     "  --csv FILE             write every row as CSV\n"
     "  --plot FILE.svg        write an SVG chart of GB/s against n\n"
     "\n"
     "GB/s counts the bytes a scan must move: n * (input + output [+ flag or key]) element\n"
     "bytes. The copy moves the same bytes: it copies half of them, which are read and written.\n"},
    {"tune", cli_cmd_tune, "measure tile parameters and suggest tuning-table rows",
     "Usage: clscan tune [options]\n"
     "\n"
     "Sweeps the single-pass and reduce-then-scan tile parameters through the library's\n"
     "environment overrides (CLSCAN_CPU_TILE on a CPU; CLSCAN_TILE_WG x CLSCAN_TILE_VPT on a\n"
     "GPU), verifies and times each candidate, and prints rows for src/tuning.c.\n"
     "\n"
     "Options:\n"
     "  --device SEL           device \"P:D\" or name substring (as CLSCAN_DEVICE)\n"
     "  --types LIST           comma-separated element types (default: int32)\n"
     "  --log2 K               n = 2^K (default 24 on a CPU, 26 on a GPU; capped to fit)\n"
     "  --reps N               timed runs per candidate, after 2 warm-ups (default 20)\n"},
};

#define COMMAND_COUNT (sizeof commands / sizeof commands[0])

/* Finds a command by name. */
static const cli_command *find_command(const char *name) {
  for (size_t i = 0; i < COMMAND_COUNT; i++) {
    if (strcmp(commands[i].name, name) == 0)
      return &commands[i];
  }
  return NULL;
}

void cli_print_usage(FILE *f, const char *command) {
  const cli_command *c = command ? find_command(command) : NULL;
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

/* ============================================================================================== */
/* Option parsing                                                                                 */
/* ============================================================================================== */

void cli_parser_init(cli_parser *p, const char *command, int argc, char **argv,
                     const cli_option *options) {
  p->argc = argc;
  p->argv = argv;
  p->next = 1;
  p->only_positional = 0;
  p->command = command;
  p->options = options;
}

/* Finds a long option by the name between "--" and an optional "=". */
static const cli_option *find_option(const cli_option *options, const char *name, size_t len) {
  for (const cli_option *o = options; o->name; o++) {
    if (strlen(o->name) == len && strncmp(o->name, name, len) == 0)
      return o;
  }
  return NULL;
}

/* Handles "--name[=value]" once the option is known: fetches or rejects its value. */
static int option_value(cli_parser *p, const cli_option *o, const char *eq, const char **value) {
  *value = NULL;
  if (!o->takes_value) {
    if (!eq)
      return o->id;
    cli_usage_error(p->command, "option '--%s' takes no value", o->name);
    return CLI_OPT_ERROR;
  }
  if (eq) {
    *value = eq + 1;
  } else if (p->next < p->argc) {
    *value = p->argv[p->next++];
  } else {
    cli_usage_error(p->command, "option '--%s' needs a value", o->name);
    return CLI_OPT_ERROR;
  }
  if (!**value) {
    cli_usage_error(p->command, "option '--%s' needs a non-empty value", o->name);
    return CLI_OPT_ERROR;
  }
  return o->id;
}

int cli_next_option(cli_parser *p, const char **value) {
  *value = NULL;
  if (p->next >= p->argc)
    return CLI_OPT_END;
  const char *arg = p->argv[p->next++];

  // Plain words, "-" (standard input or output) and everything after "--" are positional.
  if (!p->only_positional && strcmp(arg, "--") == 0) {
    p->only_positional = 1;
    return cli_next_option(p, value);
  }
  if (p->only_positional || arg[0] != '-' || arg[1] == '\0') {
    *value = arg;
    return CLI_OPT_POSITIONAL;
  }
  if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0)
    return CLI_OPT_HELP;

  // Long options only: "--name", "--name=value" or "--name value".
  const cli_option *o = NULL;
  const char *eq = NULL;
  if (arg[1] == '-') {
    eq = strchr(arg + 2, '=');
    o = find_option(p->options, arg + 2, eq ? (size_t)(eq - arg - 2) : strlen(arg + 2));
  }
  if (!o) {
    cli_usage_error(p->command, "unknown option '%s'", arg);
    return CLI_OPT_ERROR;
  }
  return option_value(p, o, eq, value);
}

int cli_parse_count(const char *command, const char *option, const char *text,
                    unsigned long long min, unsigned long long max, unsigned long long *out) {
  char *end = NULL;
  errno = 0;
  unsigned long long v = strtoull(text, &end, 10);
  // Digits only: strtoull would accept a sign and leading spaces.
  int digits = text[0] >= '0' && text[0] <= '9';
  if (!digits || errno != 0 || *end != '\0' || v < min || v > max) {
    cli_usage_error(command, "%s: '%s' is not an integer in [%llu, %llu]", option, text, min, max);
    return 0;
  }
  *out = v;
  return 1;
}

/* ============================================================================================== */
/* Names and lists                                                                                */
/* ============================================================================================== */

int cli_type_from_name(const char *name, clscan_type *out) {
  for (int t = 0; t < CLSCAN_TYPE_COUNT; t++) {
    if (strcmp(clscan_type_name((clscan_type)t), name) == 0)
      return *out = (clscan_type)t, 1;
  }
  return 0;
}

int cli_op_from_name(const char *name, clscan_op *out) {
  for (int o = 0; o < CLSCAN_OP_COUNT; o++) {
    if (strcmp(clscan_op_name((clscan_op)o), name) == 0)
      return *out = (clscan_op)o, 1;
  }
  return 0;
}

int cli_algorithm_from_name(const char *name, clscan_algorithm *out) {
  for (int a = 0; a < CLSCAN_ALGORITHM_COUNT; a++) {
    if (strcmp(clscan_algorithm_name((clscan_algorithm)a), name) == 0) {
      *out = (clscan_algorithm)a;
      return 1;
    }
  }
  return 0;
}

int cli_key_type_from_name(const char *name, clscan_type *out) {
  clscan_type t;
  if (!cli_type_from_name(name, &t) || clscan_type_size(t) < 4 || cli_type_is_float(t))
    return 0;
  *out = t;
  return 1;
}

int cli_type_is_float(clscan_type t) {
  return t == CLSCAN_FLOAT || t == CLSCAN_DOUBLE;
}

clscan_type cli_out_type(const clscan_scan_desc *desc) {
  if (desc->out_type == CLSCAN_OUT_SAME)
    return desc->type;
  return (clscan_type)((int)desc->out_type - (int)CLSCAN_OUT_TYPE(0));
}

size_t cli_segment_size(const clscan_scan_desc *desc) {
  if (desc->segments == CLSCAN_SEGMENTS_HEAD_FLAGS)
    return 1;
  return desc->segments == CLSCAN_SEGMENTS_KEYS ? clscan_type_size(desc->key_type) : 0;
}

/* Splits a comma-separated list and passes each item to `add`; 0 on an empty item. */
static int split_list(const char *text, int (*add)(const char *item, void *state), void *state) {
  char item[64];
  const char *p = text;
  for (;;) {
    size_t len = strcspn(p, ",");
    if (len == 0 || len >= sizeof item)
      return 0;
    memcpy(item, p, len);
    item[len] = '\0';
    if (!add(item, state))
      return 0;
    if (p[len] == '\0')
      return 1;
    p += len + 1;
  }
}

/* The state of a list being parsed: the values so far and the item that failed. */
typedef struct list_state {
  int *values;
  int count, max;
  int (*lookup)(const char *name, int *value);
  char bad[64];
} list_state;

/* Adds one named value to a list, rejecting unknown names and repeats. */
static int add_item(const char *item, void *state) {
  list_state *s = state;
  int v;
  snprintf(s->bad, sizeof s->bad, "%s", item);
  if (!s->lookup(item, &v))
    return 0;
  for (int i = 0; i < s->count; i++) {
    if (s->values[i] == v)
      return 0;
  }
  if (s->count == s->max)
    return 0;
  s->values[s->count++] = v;
  return 1;
}

static int lookup_type(const char *name, int *value) {
  clscan_type t;
  return cli_type_from_name(name, &t) ? (*value = (int)t, 1) : 0;
}

static int lookup_algorithm(const char *name, int *value) {
  clscan_algorithm a;
  if (!cli_algorithm_from_name(name, &a) || a == CLSCAN_ALGO_AUTO)
    return 0;
  *value = (int)a;
  return 1;
}

/* Parses a list with a lookup into ints; prints a usage error on failure. */
static int parse_list(const char *command, const char *option, const char *text,
                      int (*lookup)(const char *, int *), int *values, int max, int *count) {
  list_state s = {values, 0, max, lookup, ""};
  if (!split_list(text, add_item, &s)) {
    cli_usage_error(command, "%s: bad or repeated item '%s' in '%s'", option, s.bad, text);
    return 0;
  }
  *count = s.count;
  return 1;
}

int cli_parse_type_list(const char *command, const char *text, clscan_type *out, int *count) {
  int values[CLSCAN_TYPE_COUNT];
  if (!parse_list(command, "--types", text, lookup_type, values, CLSCAN_TYPE_COUNT, count))
    return 0;
  for (int i = 0; i < *count; i++)
    out[i] = (clscan_type)values[i];
  return 1;
}

int cli_parse_algorithm_list(const char *command, const char *text, clscan_algorithm *out,
                             int *count) {
  int values[CLSCAN_ALGORITHM_COUNT];
  if (!parse_list(command, "--algorithms", text, lookup_algorithm, values, CLSCAN_ALGORITHM_COUNT,
                  count))
    return 0;
  for (int i = 0; i < *count; i++)
    out[i] = (clscan_algorithm)values[i];
  return 1;
}

/* ============================================================================================== */
/* Main                                                                                           */
/* ============================================================================================== */

int main(int argc, char **argv) {
  if (argc < 2) {
    cli_print_usage(stderr, NULL);
    return CLI_EXIT_USAGE;
  }
  const char *first = argv[1];
  if (strcmp(first, "--help") == 0 || strcmp(first, "-h") == 0) {
    cli_print_usage(stdout, NULL);
    return CLI_EXIT_OK;
  }
  if (strcmp(first, "--version") == 0) {
    printf("clscan %s\n", clscan_version_string());
    return CLI_EXIT_OK;
  }
  // "clscan help COMMAND" is the same as "clscan COMMAND --help".
  if (strcmp(first, "help") == 0) {
    if (argc > 2 && !find_command(argv[2])) {
      return cli_usage_error(NULL, "unknown command '%s'", argv[2]);
    }
    cli_print_usage(stdout, argc > 2 ? argv[2] : NULL);
    return CLI_EXIT_OK;
  }
  const cli_command *c = find_command(first);
  if (!c) {
    if (first[0] == '-')
      return cli_usage_error(NULL, "unknown option '%s'", first);
    return cli_usage_error(NULL, "unknown command '%s'", first);
  }
  return c->run(argc - 1, argv + 1);
}
