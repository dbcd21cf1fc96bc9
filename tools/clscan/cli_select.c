/*
 * The clscan program's selection commands: `select` (stream compaction), `partition`, `unique` and
 * `rle` (run-length encoding), on the library's clscan_select_host(). They share the scan
 * command's file conventions: text (one element a line, parsed strictly with line numbers) or
 * binary (raw little-endian), IN and OUT defaulting to standard input and output, everything read
 * and computed before any output is committed, and named output files replaced atomically
 * (cli_output). The count (selected elements, unique elements or runs) goes to --count FILE only,
 * so that standard output carries nothing but elements. `partition --rejected FILE` splits the
 * partition in two files: the selected elements to OUT, the rejected ones to FILE, each in order
 * (clscan_partition_copy_host(), or a `rejected` device buffer where --arg needs a plan).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* ============================================================================================== */
/* Usage texts (the command table in cli_usage.c points here)                                     */
/* ============================================================================================== */

/* The options every selection command has. */
#define SEL_USAGE_FILES                                                                      \
  "IN defaults to standard input and OUT to standard output ('-' for either). Every named\n" \
  "output (OUT, --count, --lengths) is replaced only when the whole command succeeded; on\n" \
  "bad input nothing is written.\n"                                                          \
  "\n"                                                                                       \
  "Options (--opt=value and --opt value both work):\n"                                       \
  "  --format text|binary   text: one number a line (default); binary: raw little-endian\n"  \
  "                         (also for the --flags, --count and --lengths files)\n"           \
  "  --type T               input type: int32 (default), uint32, int64, uint64, float,\n"    \
  "                         double, int8, uint8, int16, uint16\n"                            \
  "  --map-source SRC       work on map(x, i) instead of x: OpenCL C of x (the input\n"      \
  "                         element) and i (its index, a ulong), of --out-type\n"            \
  "  --out-type T           type of the mapped element and of OUT (default: --type)\n"

#define SEL_USAGE_COMMON                                                                         \
  "  --count FILE           write the count to FILE: text, one decimal line; binary,\n"          \
  "                         --count-size bytes (--count /dev/stderr on a terminal);\n"           \
  "                         default: not written\n"                                              \
  "  --count-size 4|8       bytes of the count (and of rle's lengths): uint32 or uint64\n"       \
  "                         (default 8)\n"                                                       \
  "  --algorithm A          auto (default), single-pass (one pass, the flag scan fused with\n"   \
  "                         the scatter), or blelloch, hillis-steele, reduce-then-scan (the\n"   \
  "                         multi-pass path: that scan of the flags, then a scatter)\n"          \
  "  --device SEL           device \"P:D\" or name substring (as CLSCAN_DEVICE)\n" CLI_USAGE_ARG \
  "                         (--predicate, --map-source and --equal read them)\n"

#define SEL_USAGE_SELECT_BY                                                                    \
  "  --flags FILE           one flag per input element: text, 0 or 1 a line; binary, one\n"    \
  "                         byte each, non-zero selects\n"                                     \
  "  --predicate SRC        OpenCL C over x (the element, after the map) and i (its index,\n"  \
  "                         a ulong), non-zero selects: an expression (\"x > 0\") or a body\n" \
  "                         with return (\"{ return (x & 1) == 0; }\"); not with --flags\n"

#define SEL_USAGE_EQUAL                                                                      \
  "  --equal SRC            OpenCL C over a and b (elements of --out-type), non-zero when\n" \
  "                         they are equal; default ==, where floats compare as values\n"    \
  "                         (-0.0 equals 0.0, NaN equals nothing)\n"

#define SEL_USAGE_TAIL                                                                       \
  "\n"                                                                                       \
  "Exit status: 0 on success, 1 on bad input or a failure (a source that fails to compile\n" \
  "prints the compiler's log), 2 on a usage error.\n"

const char cli_select_usage[] =
    "Usage: clscan select (--flags FILE | --predicate SRC) [options] [IN [OUT]]\n"
    "\n"
    "Writes the elements of IN whose flag is set, or for which the predicate holds, to OUT,\n"
    "in their order (stream compaction); --count gets their number.\n" SEL_USAGE_FILES
        SEL_USAGE_SELECT_BY SEL_USAGE_COMMON SEL_USAGE_TAIL;

const char cli_partition_usage[] =
    "Usage: clscan partition (--flags FILE | --predicate SRC) [options] [IN [OUT]]\n"
    "\n"
    "Writes the selected elements of IN in their order, then the rejected ones in their order\n"
    "(not reversed, unlike CUB's DevicePartition), to OUT: a stable partition, as many\n"
    "elements as IN. --count gets the number selected: where the rejected part starts.\n"
    "With --rejected FILE: only the selected elements to OUT, and the rejected ones, in their\n"
    "order, to FILE, in the same --format. With --reverse-rejected: the rejected ones last to\n"
    "first after the selected ones (CUB's layout; one pass on the device).\n" SEL_USAGE_FILES
        SEL_USAGE_SELECT_BY
    "  --rejected FILE        write the rejected elements to FILE, not after the selected\n"
    "                         ones in OUT; replaced only on success, as OUT; a file other\n"
    "                         than OUT and --count\n"
    "  --reverse-rejected     write the rejected elements after the selected ones in\n"
    "                         reverse order (not with --rejected)\n" SEL_USAGE_COMMON
        SEL_USAGE_TAIL;

const char cli_unique_usage[] =
    "Usage: clscan unique [options] [IN [OUT]]\n"
    "\n"
    "Writes the first element of each run of equal consecutive elements of IN to OUT (as\n"
    "uniq does for lines); --count gets their number.\n" SEL_USAGE_FILES SEL_USAGE_EQUAL
        SEL_USAGE_COMMON SEL_USAGE_TAIL;

const char cli_rle_usage[] =
    "Usage: clscan rle [options] [IN [OUT]]\n"
    "\n"
    "Run-length encodes IN: for each run of equal consecutive elements, its first element and\n"
    "its length. Text without --lengths: one line per run, the value, a space and the length.\n"
    "With --lengths FILE (required with --format binary): the values to OUT and the lengths\n"
    "to FILE, each in --format (binary lengths: --count-size bytes each). --count gets the\n"
    "number of runs.\n" SEL_USAGE_FILES SEL_USAGE_EQUAL
    "  --lengths FILE         write the run lengths to FILE (see above)\n" SEL_USAGE_COMMON
        SEL_USAGE_TAIL;

/* ============================================================================================== */
/* Options                                                                                        */
/* ============================================================================================== */

enum {
  OPT_FORMAT,
  OPT_TYPE,
  OPT_OUT_TYPE,
  OPT_MAP_SOURCE,
  OPT_FLAGS,
  OPT_PREDICATE,
  OPT_EQUAL,
  OPT_COUNT,
  OPT_COUNT_SIZE,
  OPT_LENGTHS,
  OPT_REJECTED,
  OPT_REVERSE_REJECTED,
  OPT_ALGORITHM,
  OPT_DEVICE,
  OPT_ARG
};

static const cli_option select_options[] = {{"format", 1, OPT_FORMAT},
                                            {"type", 1, OPT_TYPE},
                                            {"out-type", 1, OPT_OUT_TYPE},
                                            {"map-source", 1, OPT_MAP_SOURCE},
                                            {"flags", 1, OPT_FLAGS},
                                            {"predicate", 1, OPT_PREDICATE},
                                            {"equal", 1, OPT_EQUAL},
                                            {"count", 1, OPT_COUNT},
                                            {"count-size", 1, OPT_COUNT_SIZE},
                                            {"lengths", 1, OPT_LENGTHS},
                                            {"rejected", 1, OPT_REJECTED},
                                            {"reverse-rejected", 0, OPT_REVERSE_REJECTED},
                                            {"algorithm", 1, OPT_ALGORITHM},
                                            {"device", 1, OPT_DEVICE},
                                            {"arg", 1, OPT_ARG},
                                            {NULL, 0, 0}};

/* The commands and the operation each runs. */
static const struct {
  const char *name;
  clscan_select_op op;
} select_commands[] = {{"select", CLSCAN_SELECT},
                       {"partition", CLSCAN_PARTITION},
                       {"unique", CLSCAN_UNIQUE},
                       {"rle", CLSCAN_RUN_LENGTH_ENCODE}};

/* Returns the command's name of an operation. */
static const char *op_command(clscan_select_op op) {
  for (size_t i = 0; i < sizeof select_commands / sizeof select_commands[0]; i++) {
    if (select_commands[i].op == op)
      return select_commands[i].name;
  }
  return "select";
}

/* Applies an option whose value is a name (format, type, output type, algorithm); returns 0 if
 * the name is not one of its values. */
static int named_option(cli_select_request *r, int id, const char *v) {
  switch (id) {
    case OPT_FORMAT:
      return cli_format_from_name(v, &r->binary);
    case OPT_TYPE:
      return cli_type_from_name(v, &r->desc.type);
    case OPT_OUT_TYPE:
      return cli_out_type_from_name(v, &r->desc.out_type);
    default:
      return cli_algorithm_from_name(v, &r->desc.algorithm);
  }
}

/* Applies one option's value; returns 0 after a usage error. */
static int select_option(cli_select_request *r, const char *cmd, int id, const char *v) {
  switch (id) {
    case OPT_MAP_SOURCE:
      r->desc.map_source = v;
      return 1;
    case OPT_FLAGS:
      r->flags_path = v;
      return 1;
    case OPT_PREDICATE:
      r->desc.predicate_source = v;
      return 1;
    case OPT_EQUAL:
      r->desc.equal_source = v;
      return 1;
    case OPT_COUNT:
      r->count_path = v;
      return 1;
    case OPT_LENGTHS:
      r->lengths_path = v;
      return 1;
    case OPT_REJECTED:
      r->rejected_path = v;
      return 1;
    case OPT_REVERSE_REJECTED:
      r->desc.reverse_rejected = 1;
      return 1;
    case OPT_DEVICE:
      r->device = v;
      return 1;
    case OPT_ARG:
      return cli_parse_arg(cmd, v, &r->args);
    case OPT_COUNT_SIZE:
      if (strcmp(v, "4") != 0 && strcmp(v, "8") != 0) {
        cli_usage_error(cmd, "--count-size: '%s' is not 4 or 8", v);
        return 0;
      }
      r->desc.count_size = (size_t)(v[0] - '0');
      return 1;
    default:
      break;
  }
  if (named_option(r, id, v))
    return 1;
  cli_usage_error(cmd, "--%s: unknown value '%s'", select_options[id].name, v);
  return 0;
}

/* Returns 1 for standard input or output: no path or "-". */
static int is_std(const char *path) {
  return !path || strcmp(path, "-") == 0;
}

/* Returns 1 if two output paths name the same file by name (both standard output included). */
static int same_output(const char *a, const char *b) {
  return is_std(a) ? is_std(b) : !is_std(b) && strcmp(a, b) == 0;
}

/* Checks what selects (flags or predicate) and the equality against the operation. */
static int check_selection(const cli_select_request *r, const char *cmd) {
  int selects = r->desc.op == CLSCAN_SELECT || r->desc.op == CLSCAN_PARTITION;
  if (selects && r->flags_path && r->desc.predicate_source)
    return cli_usage_error(cmd, "--flags and --predicate cannot be combined"), 0;
  if (selects && !r->flags_path && !r->desc.predicate_source)
    return cli_usage_error(cmd, "needs --flags FILE or --predicate SRC (what selects)"), 0;
  if (!selects && (r->flags_path || r->desc.predicate_source))
    return cli_usage_error(cmd, "--%s is only used by select and partition",
                           r->flags_path ? "flags" : "predicate"),
           0;
  if (selects && r->desc.equal_source)
    return cli_usage_error(cmd, "--equal is only used by unique and rle"), 0;
  if (r->flags_path && is_std(r->flags_path) && is_std(r->in_path))
    return cli_usage_error(cmd, "the input and the flags cannot both be standard input"), 0;
  return 1;
}

/* Checks --arg against the other options: a source reads the arguments, at most one file is
 * standard input. */
static int check_args(cli_select_request *r, const char *cmd) {
  if (!r->args.count)
    return 1;
  if (!r->desc.predicate_source && !r->desc.map_source && !r->desc.equal_source)
    return cli_usage_error(cmd, "--arg needs --predicate, --map-source or --equal, which read it"),
           0;
  const int flags_stdin = r->flags_path && is_std(r->flags_path);
  if (is_std(r->in_path) + flags_stdin + cli_args_stdin_count(&r->args) > 1)
    return cli_usage_error(cmd,
                           "only one of IN, --flags and the --arg files can be standard "
                           "input"),
           0;
  cli_args_bind(&r->args, &r->desc.args, &r->desc.arg_count);
  return 1;
}

/* Checks that the named outputs (OUT, always, and --count, --lengths, --rejected where given)
 * are different files, by name. */
static int check_distinct(const cli_select_request *r, const char *cmd) {
  const char *paths[] = {r->out_path, r->count_path, r->lengths_path, r->rejected_path};
  static const char *const names[] = {"OUT", "--count", "--lengths", "--rejected"};
  for (int i = 0; i < 4; i++) {
    for (int j = i + 1; j < 4 && (i == 0 || paths[i]); j++) {
      if (paths[j] && same_output(paths[i], paths[j]))
        return cli_usage_error(cmd, "%s and %s must be different files", names[i], names[j]), 0;
    }
  }
  return 1;
}

/* Checks the outputs: --lengths only for rle (and needed there in binary), --rejected and
 * --reverse-rejected only for partition and not together, distinct files. */
static int check_outputs(const cli_select_request *r, const char *cmd) {
  int rle = r->desc.op == CLSCAN_RUN_LENGTH_ENCODE;
  if (r->lengths_path && !rle)
    return cli_usage_error(cmd, "--lengths is only used by rle"), 0;
  if (rle && r->binary && !r->lengths_path)
    return cli_usage_error(cmd, "--format binary needs --lengths FILE for the run lengths"), 0;
  if (r->rejected_path && r->desc.op != CLSCAN_PARTITION)
    return cli_usage_error(cmd, "--rejected is only used by partition"), 0;
  if (r->desc.reverse_rejected && r->desc.op != CLSCAN_PARTITION)
    return cli_usage_error(cmd, "--reverse-rejected is only used by partition"), 0;
  if (r->desc.reverse_rejected && r->rejected_path)
    return cli_usage_error(cmd, "--reverse-rejected and --rejected cannot be combined"), 0;
  return check_distinct(r, cmd);
}

int cli_select_parse(int argc, char **argv, cli_select_request *r) {
  const char *cmd = argc > 0 ? argv[0] : "select";
  int known = 0;
  for (size_t i = 0; i < sizeof select_commands / sizeof select_commands[0]; i++) {
    if (strcmp(select_commands[i].name, cmd) == 0)
      r->desc.op = select_commands[i].op, known = 1;
  }
  if (!known)
    return cli_usage_error(NULL, "unknown command '%s'", cmd);
  cli_parser p;
  const char *v;
  int positional = 0;
  cli_parser_init(&p, cmd, argc, argv, select_options);
  for (int id; (id = cli_next_option(&p, &v)) != CLI_OPT_END;) {
    if (id == CLI_OPT_ERROR)
      return CLI_EXIT_USAGE;
    if (id == CLI_OPT_HELP) {
      cli_print_usage(stdout, cmd);
      return CLI_EXIT_OK;
    }
    if (id == CLI_OPT_POSITIONAL) {
      if (positional == 2)
        return cli_usage_error(cmd, "unexpected argument '%s'", v);
      *(positional++ ? &r->out_path : &r->in_path) = v;
    } else if (!select_option(r, cmd, id, v)) {
      return CLI_EXIT_USAGE;
    }
  }
  return check_selection(r, cmd) && check_outputs(r, cmd) && check_args(r, cmd) ? -1
                                                                                : CLI_EXIT_USAGE;
}

/* ============================================================================================== */
/* Reading                                                                                        */
/* ============================================================================================== */

/* Returns the output type of a selection descriptor. */
static clscan_type sel_out_type(const clscan_select_desc *d) {
  if (d->out_type == CLSCAN_OUT_SAME)
    return d->type;
  return (clscan_type)((int)d->out_type - (int)CLSCAN_OUT_TYPE(0));
}

/* Returns the bytes of the count and of one run length. */
static size_t sel_count_size(const clscan_select_desc *d) {
  return d->count_size ? d->count_size : 8;
}

/* Reads the flags into b and checks them against the n input elements. */
static int read_flags(const cli_select_request *r, size_t n, cli_byte_buf *b) {
  if (!cli_read_element_file(r->binary, r->flags_path, "flags", CLSCAN_UINT8, b))
    return 0;
  // Text flags are 0 or 1; binary flags are bytes, and any non-zero byte selects.
  for (size_t i = 0; !r->binary && i < b->len; i++) {
    if (b->data[i] > 1) {
      cli_error("flags line %zu: '%u' is not 0 or 1", i + 1, (unsigned)b->data[i]);
      return 0;
    }
  }
  if (b->len != n) {
    cli_error("flags '%s' holds %zu flags, the input %zu elements: one per element is needed",
              is_std(r->flags_path) ? "-" : r->flags_path, b->len, n);
    return 0;
  }
  return 1;
}

/* ============================================================================================== */
/* Running                                                                                        */
/* ============================================================================================== */

/* The arrays of one selection: the input and flags read, the results (with --rejected, the
 * rejected elements apart) and the count. */
typedef struct sel_arrays {
  cli_byte_buf in, flags, files[CLSCAN_MAX_ARGS];
  unsigned char *out, *lengths, *rejected;
  size_t n;
  uint64_t count;
} sel_arrays;

/* Returns how many results `out` holds: all n for a partition into one file, else the count. */
static size_t out_results(const cli_select_request *r, const sel_arrays *a) {
  return r->desc.op == CLSCAN_PARTITION && !r->rejected_path ? a->n : (size_t)a->count;
}

/* Allocates the result arrays for n elements (at least one byte each, for n = 0). */
static int alloc_results(const cli_select_request *r, sel_arrays *a) {
  size_t elem = clscan_type_size(sel_out_type(&r->desc)), cs = sel_count_size(&r->desc);
  size_t n = a->n ? a->n : 1;
  if (n > SIZE_MAX / elem || n > SIZE_MAX / cs || !(a->out = malloc(n * elem)) ||
      (r->desc.op == CLSCAN_RUN_LENGTH_ENCODE && !(a->lengths = malloc(n * cs))) ||
      (r->rejected_path && !(a->rejected = malloc(n * elem)))) {
    cli_error("out of memory for %zu output elements", a->n);
    return 0;
  }
  return 1;
}

/* The device buffers of a selection with arguments. */
typedef struct sel_device {
  cl_mem in, flags, out, lengths, rejected, count, args[CLSCAN_MAX_ARGS];
} sel_device;

/* Creates the buffers of a selection with arguments: the input and flags copied, room for n
 * results, lengths and rejected elements, and the count (each at least one element). */
static int device_buffers(clscan_context *ctx, const cli_select_request *r, const sel_arrays *a,
                          sel_device *b) {
  const size_t elem = clscan_type_size(sel_out_type(&r->desc)), cs = sel_count_size(&r->desc);
  const size_t n = a->n ? a->n : 1;
  unsigned char none[8] = {0};
  b->in = cli_new_buffer(ctx, a->in.len ? a->in.len : 1, a->in.len ? a->in.data : none, "input");
  if (b->in && r->flags_path)
    b->flags = cli_new_buffer(ctx, n, a->flags.len ? a->flags.data : none, "flags");
  if (b->in && (!r->flags_path || b->flags))
    b->out = cli_new_buffer(ctx, n * elem, NULL, "output");
  if (b->out && r->desc.op == CLSCAN_RUN_LENGTH_ENCODE)
    b->lengths = cli_new_buffer(ctx, n * cs, NULL, "lengths");
  if (b->out && r->rejected_path)
    b->rejected = cli_new_buffer(ctx, n * elem, NULL, "rejected");
  const int extras =
      (r->desc.op != CLSCAN_RUN_LENGTH_ENCODE || b->lengths) && (!r->rejected_path || b->rejected);
  if (b->out && extras)
    b->count = cli_new_buffer(ctx, cs, NULL, "count");
  return b->count != NULL;
}

/* Releases the buffers of device_buffers() and cli_args_values(). */
static void device_release(const cli_select_request *r, sel_device *b) {
  cl_mem all[] = {b->in, b->flags, b->out, b->lengths, b->rejected, b->count};
  for (size_t k = 0; k < sizeof all / sizeof all[0]; k++) {
    if (all[k])
      clReleaseMemObject(all[k]);
  }
  cli_args_release(&r->args, b->args);
}

/* Reads the first m elements of `size` bytes of a buffer back (blocking); none when m is 0. */
static cl_int read_back(cl_command_queue q, cl_mem buf, size_t m, size_t size, void *to) {
  return m ? clEnqueueReadBuffer(q, buf, CL_TRUE, 0, m * size, to, 0, NULL, NULL) : CL_SUCCESS;
}

/* Reads the count of a selection with arguments back (blocking). */
static cl_int read_count(cl_command_queue q, const cli_select_request *r, sel_arrays *a,
                         const sel_device *b) {
  const size_t cs = sel_count_size(&r->desc);
  unsigned char bytes[8] = {0};
  cl_int err = clEnqueueReadBuffer(q, b->count, CL_TRUE, 0, cs, bytes, 0, NULL, NULL);
  uint32_t narrow = 0;
  memcpy(&narrow, bytes, 4);
  if (cs == 4)
    a->count = narrow;
  else
    memcpy(&a->count, bytes, 8);
  return err;
}

/* Reads the count and the results of a selection with arguments back (blocking); a count above
 * n reads no result (run_selection() reports it). */
static int device_read(clscan_context *ctx, const cli_select_request *r, sel_arrays *a,
                       const sel_device *b) {
  cl_command_queue q = clscan_context_queue(ctx);
  const size_t elem = clscan_type_size(sel_out_type(&r->desc)), cs = sel_count_size(&r->desc);
  cl_int err = read_count(q, r, a, b);
  const int valid = err == CL_SUCCESS && a->count <= a->n;
  const size_t m = valid ? out_results(r, a) : 0;
  if (valid)
    err = read_back(q, b->out, m, elem, a->out);
  if (valid && err == CL_SUCCESS && b->lengths)
    err = read_back(q, b->lengths, m, cs, a->lengths);
  if (valid && err == CL_SUCCESS && b->rejected)
    err = read_back(q, b->rejected, a->n - (size_t)a->count, elem, a->rejected);
  if (err != CL_SUCCESS)
    cli_error("cannot read the results back: clEnqueueReadBuffer returned %d", (int)err);
  return err == CL_SUCCESS;
}

/* Runs a selection with arguments on device buffers (clscan_select_host takes no argument
 * values) and returns the library's status; sets *printed when it failed otherwise (a buffer or
 * a read back, with a message of its own). */
static clscan_status select_device(clscan_context *ctx, const cli_select_request *r, sel_arrays *a,
                                   int *printed) {
  clscan_select_plan *plan = NULL;
  clscan_status st = clscan_select_plan_create(ctx, &r->desc, &plan);
  if (st != CLSCAN_SUCCESS)
    return st;
  sel_device b = {0};
  clscan_arg_value values[CLSCAN_MAX_ARGS];
  *printed = 1;
  if (device_buffers(ctx, r, a, &b) && cli_args_values(ctx, &r->args, a->files, b.args, values)) {
    const clscan_select_buffers sb = {.in = b.in,
                                      .flags = b.flags,
                                      .out = b.out,
                                      .out_capacity = a->n,
                                      .lengths = b.lengths,
                                      .rejected = b.rejected,
                                      .rejected_capacity = b.rejected ? a->n : 0,
                                      .count = b.count,
                                      .values = values,
                                      .value_count = r->args.count};
    st = clscan_select_enqueue(plan, NULL, &sb, a->n, 0, NULL, NULL);
    *printed = st == CLSCAN_SUCCESS && !device_read(ctx, r, a, &b);
  }
  device_release(r, &b);
  clscan_select_plan_release(plan);
  return st;
}

/* Runs a selection without arguments on the host arrays: a partition with --rejected into two
 * arrays, every other selection into one. */
static clscan_status select_host(clscan_context *ctx, const cli_select_request *r, sel_arrays *a) {
  // An empty input still passes valid pointers; the library reads none of them.
  static const unsigned char none[1];
  const void *in = a->in.data ? a->in.data : none;
  const unsigned char *flags = r->flags_path ? (a->flags.data ? a->flags.data : none) : NULL;
  if (r->rejected_path)
    return clscan_partition_copy_host(ctx, &r->desc, in, flags, a->n, a->out, a->n, a->rejected,
                                      a->n, &a->count);
  return clscan_select_host(ctx, &r->desc, in, flags, a->n, a->out, a->lengths, a->n, &a->count);
}

/* Runs the selection on the device; prints a failure with the build log when a source failed. */
static int run_selection(const cli_select_request *r, sel_arrays *a) {
  clscan_context *ctx = NULL;
  if (!alloc_results(r, a) || !cli_open_context(r->device, &ctx))
    return 0;
  int printed = 0;
  clscan_status st = r->args.count ? select_device(ctx, r, a, &printed) : select_host(ctx, r, a);
  if (printed) {
    clscan_context_release(ctx);
    return 0;
  }
  if (st != CLSCAN_SUCCESS) {
    cli_lib_error(st, "%s of %zu %s elements failed", op_command(r->desc.op), a->n,
                  clscan_type_name(r->desc.type));
    if (st == CLSCAN_BUILD_FAILED || st == CLSCAN_USER_SOURCE_INVALID)
      cli_print_build_log(ctx);
  } else if (a->count > a->n) {
    cli_error("%s: the library reported %llu results of %zu elements", op_command(r->desc.op),
              (unsigned long long)a->count, a->n);
    st = CLSCAN_INVALID_VALUE;
  }
  clscan_context_release(ctx);
  return st == CLSCAN_SUCCESS;
}

/* ============================================================================================== */
/* Writing                                                                                        */
/* ============================================================================================== */

/* The outputs of one selection, in the order they are committed; f is NULL for one not asked
 * for. */
typedef struct sel_outputs {
  cli_output out, lengths, rejected, count;
} sel_outputs;

enum { SEL_OUTPUTS = 4 };

/* Returns the outputs of o in the order they are committed. */
static void output_list(sel_outputs *o, cli_output *all[SEL_OUTPUTS]) {
  all[0] = &o->out;
  all[1] = &o->lengths;
  all[2] = &o->rejected;
  all[3] = &o->count;
}

/* Drops every output that is open: no target changes. */
static void abort_outputs(sel_outputs *o) {
  cli_output *all[SEL_OUTPUTS];
  output_list(o, all);
  for (int i = 0; i < SEL_OUTPUTS; i++) {
    if (all[i]->f)
      cli_output_abort(all[i]);
  }
}

/* Opens the outputs asked for (each a temporary file until committed); on failure drops those
 * already open. */
static int open_outputs(const cli_select_request *r, sel_outputs *o) {
  memset(o, 0, sizeof *o);
  if (!cli_output_open(&o->out, r->out_path))
    return 0;
  const char *paths[SEL_OUTPUTS] = {NULL, r->lengths_path, r->rejected_path, r->count_path};
  cli_output *all[SEL_OUTPUTS];
  output_list(o, all);
  for (int i = 1; i < SEL_OUTPUTS; i++) {
    if (paths[i] && !cli_output_open(all[i], paths[i])) {
      abort_outputs(o);
      return 0;
    }
  }
  return 1;
}

/* Returns the unsigned integer type of count_size bytes. */
static clscan_type count_type(const cli_select_request *r) {
  return sel_count_size(&r->desc) == 4 ? CLSCAN_UINT32 : CLSCAN_UINT64;
}

/* Writes the runs as text lines "value length". */
static int write_runs_text(FILE *f, const cli_select_request *r, const sel_arrays *a) {
  clscan_type t = sel_out_type(&r->desc);
  size_t elem = clscan_type_size(t);
  char value[64];
  for (uint64_t i = 0; i < a->count; i++) {
    unsigned long long len;
    if (sel_count_size(&r->desc) == 4) {
      uint32_t l;
      memcpy(&l, a->lengths + i * 4, 4);
      len = l;
    } else {
      uint64_t l;
      memcpy(&l, a->lengths + i * 8, 8);
      len = l;
    }
    cli_format_element(t, a->out + i * elem, value, sizeof value);
    if (fprintf(f, "%s %llu\n", value, len) < 0)
      return 0;
  }
  return 1;
}

/* Writes the count as text or count_size bytes. */
static int write_count(FILE *f, const cli_select_request *r, uint64_t count) {
  if (!r->binary)
    return fprintf(f, "%llu\n", (unsigned long long)count) > 0;
  unsigned char bytes[8];
  uint32_t narrow = (uint32_t)count;
  if (sel_count_size(&r->desc) == 4)
    memcpy(bytes, &narrow, 4);
  else
    memcpy(bytes, &count, 8);
  return cli_write_elements(f, 1, count_type(r), bytes, 1);
}

/* Writes m elements of type t to an open output; says so when that failed. */
static int write_array(const cli_output *o, int binary, clscan_type t, unsigned char *data,
                       size_t m) {
  if (cli_write_elements(o->f, binary, t, data, m))
    return 1;
  cli_error("cannot write %s: %s", o->name, strerror(errno));
  return 0;
}

/* Writes every result to its output (nothing is committed yet). */
static int write_results(const cli_select_request *r, sel_arrays *a, sel_outputs *o) {
  clscan_type t = sel_out_type(&r->desc);
  if (r->desc.op == CLSCAN_RUN_LENGTH_ENCODE && !r->lengths_path) {
    if (!write_runs_text(o->out.f, r, a))
      return cli_error("cannot write %s: %s", o->out.name, strerror(errno)), 0;
  } else if (!write_array(&o->out, r->binary, t, a->out, out_results(r, a))) {
    return 0;
  }
  if (o->lengths.f &&
      !write_array(&o->lengths, r->binary, count_type(r), a->lengths, (size_t)a->count))
    return 0;
  if (o->rejected.f &&
      !write_array(&o->rejected, r->binary, t, a->rejected, a->n - (size_t)a->count))
    return 0;
  if (o->count.f && !write_count(o->count.f, r, a->count))
    return cli_error("cannot write %s: %s", o->count.name, strerror(errno)), 0;
  return 1;
}

/* Commits the outputs in turn; after a failed commit the others are dropped. */
static int commit_outputs(sel_outputs *o) {
  cli_output *all[SEL_OUTPUTS];
  output_list(o, all);
  for (int i = 0; i < SEL_OUTPUTS; i++) {
    if (all[i]->f && !cli_output_commit(all[i])) {
      for (int j = i + 1; j < SEL_OUTPUTS; j++) {
        if (all[j]->f)
          cli_output_abort(all[j]);
      }
      return 0;
    }
  }
  return 1;
}

/* Reads the input (and the flags, and the --arg files) completely. */
static int read_inputs(const cli_select_request *r, sel_arrays *a) {
  if (!cli_read_element_file(r->binary, r->in_path, "input", r->desc.type, &a->in))
    return 0;
  a->n = a->in.len / clscan_type_size(r->desc.type);
  if (r->flags_path && !read_flags(r, a->n, &a->flags))
    return 0;
  return cli_args_read(&r->args, r->binary, a->n, a->files);
}

int cli_cmd_select(int argc, char **argv) {
  cli_select_request r = {.desc = {.type = CLSCAN_INT32}};
  int status = cli_select_parse(argc, argv, &r);
  if (status >= 0)
    return status;

  // Everything is read and computed before any output is committed.
  sel_arrays a = {0};
  sel_outputs o;
  int ok = read_inputs(&r, &a) && open_outputs(&r, &o);
  if (ok) {
    ok = run_selection(&r, &a) && write_results(&r, &a, &o);
    ok = ok ? commit_outputs(&o) : (abort_outputs(&o), 0);
  }
  free(a.in.data);
  free(a.flags.data);
  cli_args_free_files(&r.args, a.files);
  free(a.out);
  free(a.lengths);
  free(a.rejected);
  return ok ? CLI_EXIT_OK : CLI_EXIT_FAIL;
}
