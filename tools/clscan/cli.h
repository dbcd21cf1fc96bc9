/*
 * The clscan program's private header: exit statuses, messages, option parsing, name lookups,
 * element text and files, device helpers, and the entry point of each command. The program is
 * main.c (main and dispatch) and the object library clscan_cli_objs, which the fuzz target
 * tests/fuzz_cli.c links too:
 *   cli_usage.c     the command table, usage text and messages
 *   cli_parse.c     the option parser, counts, names and lists
 *   cli_format.c    parsing and formatting one element
 *   cli_elements.c  reading and writing element files (text or binary)
 *   cli_output.c    output files replaced atomically
 *   cli_args.c      extra arguments of user sources (--arg) and the scans that take them
 *   cli_devices.c   the devices command and the device helpers
 *   cli_scan.c      the scan command (its parser is the reduce command's too)
 *   cli_reduce.c    the reduce command
 *   cli_select.c    the select, partition, unique and rle commands
 *   cli_select_bench.c  bench --family select (the selection primitives)
 *   cli_bench_sort.c    the sort measurements of sort --bench and bench --family sort
 *   cli_measure.c   the measurements bench and tune share (with tools/bench/measure.c)
 *   cli_bench.c     the bench command; cli_plot.c its CSV and SVG reports
 *   cli_tune.c      the tune command
 *   cli_tuning.c    the library's tuning: defaults, descriptions, rows of src/tuning.c
 * The program uses the library's public API only; bench and tune verify against the host
 * reference of the tests (tests/reference, library clscan_reference).
 */
#ifndef CLSCAN_CLI_H_
#define CLSCAN_CLI_H_

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "clscan.h"

/* ============================================================================================== */
/* Commands, usage and messages (cli_usage.c)                                                     */
/* ============================================================================================== */

/* Exit statuses: success, a failure while running, a usage error on the command line. */
#define CLI_EXIT_OK 0
#define CLI_EXIT_FAIL 1
#define CLI_EXIT_USAGE 2

#if defined(__GNUC__)
#define CLI_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define CLI_PRINTF(f, a)
#endif

/* Prints "clscan: " and a formatted message with a newline to stderr. */
void cli_error(const char *fmt, ...) CLI_PRINTF(1, 2);

/* Prints a library failure: "clscan: <what>: <status string> (<detail>)". */
void cli_lib_error(clscan_status st, const char *fmt, ...) CLI_PRINTF(2, 3);

/* Prints a usage error of a command and a hint to its help; returns CLI_EXIT_USAGE. */
int cli_usage_error(const char *command, const char *fmt, ...) CLI_PRINTF(2, 3);

/* Prints the usage of a command (or of the program, for NULL) to f. */
void cli_print_usage(FILE *f, const char *command);

/* A command: its name, entry point, one-line summary and usage text. */
typedef struct cli_command {
  const char *name;
  int (*run)(int argc, char **argv);
  const char *summary;
  const char *usage;
} cli_command;

/* Finds a command by name; NULL if there is none. */
const cli_command *cli_find_command(const char *name);

/* ============================================================================================== */
/* Option parsing, names and lists (cli_parse.c)                                                  */
/* ============================================================================================== */

/* One long option of a command: its name without "--", whether it takes a value, and its id. */
typedef struct cli_option {
  const char *name;
  int takes_value;
  int id;
} cli_option;

/* Results of cli_next_option() other than an option id (ids are >= 0). */
enum { CLI_OPT_END = -1, CLI_OPT_ERROR = -2, CLI_OPT_POSITIONAL = -3, CLI_OPT_HELP = -4 };

/* The state of a command's argument parsing. */
typedef struct cli_parser {
  int argc;
  char **argv;
  int next;                  /* index of the next argument */
  int only_positional;       /* set after "--" */
  const char *command;       /* for messages */
  const cli_option *options; /* terminated by a NULL name */
} cli_parser;

/* Starts parsing argv[1..argc-1] of a command. */
void cli_parser_init(cli_parser *p, const char *command, int argc, char **argv,
                     const cli_option *options);

/* Returns the next option's id with its value (or NULL), CLI_OPT_POSITIONAL with the argument,
 * CLI_OPT_HELP for -h/--help, CLI_OPT_END, or CLI_OPT_ERROR after printing a usage error.
 * Accepts "--name=value" and "--name value". */
int cli_next_option(cli_parser *p, const char **value);

/* Parses a decimal unsigned integer in [min, max]; prints a usage error and returns 0 if it
 * is not one. */
int cli_parse_count(const char *command, const char *option, const char *text,
                    unsigned long long min, unsigned long long max, unsigned long long *out);

/* Looks a type, operator or algorithm up by its library name; returns 0 if none has it. */
int cli_type_from_name(const char *name, clscan_type *out);
int cli_op_from_name(const char *name, clscan_op *out);
int cli_algorithm_from_name(const char *name, clscan_algorithm *out);

/* Looks an output type up by a type's name (CLSCAN_OUT_TYPE of it); returns 0 if none has it. */
int cli_out_type_from_name(const char *name, clscan_out_type *out);

/* Reads --format's value: "binary" sets *binary, "text" clears it; returns 0 for anything
 * else. */
int cli_format_from_name(const char *name, int *binary);

/* Parses a comma-separated list of type names into out (at most CLSCAN_TYPE_COUNT, no
 * repeats); prints a usage error and returns 0 on a bad list. */
int cli_parse_type_list(const char *command, const char *text, clscan_type *out, int *count);

/* Parses a comma-separated list of algorithm names (not "auto"), like cli_parse_type_list. */
int cli_parse_algorithm_list(const char *command, const char *text, clscan_algorithm *out,
                             int *count);

/* Parses a comma-separated list of operator names (add, mul, min, max, and, or, xor), like
 * cli_parse_type_list. */
int cli_parse_op_list(const char *command, const char *text, clscan_op *out, int *count);

/* Parses a comma-separated list of selection primitives (bench --only) into a mask of bits
 * 1 << cli_select_kind_from_name(), like cli_parse_type_list. */
int cli_parse_select_kinds(const char *command, const char *text, unsigned *mask);

/* Returns a sort algorithm's name ("auto", "lsd", "onesweep"), or looks one up by name (0 if
 * none has it). */
const char *cli_sort_algorithm_name(clscan_sort_algorithm a);
int cli_sort_algorithm_from_name(const char *name, clscan_sort_algorithm *out);

/* Parses a comma-separated list of sort algorithm names, like cli_parse_type_list. */
int cli_parse_sort_algorithm_list(const char *command, const char *text, clscan_sort_algorithm *out,
                                  int *count);

/* Looks a key type of --keys up by name: int32, uint32, int64 or uint64; returns 0 otherwise. */
int cli_key_type_from_name(const char *name, clscan_type *out);

/* Returns 1 for float and double. */
int cli_type_is_float(clscan_type t);

/* Returns the output type of a descriptor: `type` for CLSCAN_OUT_SAME, else the one out_type
 * names. */
clscan_type cli_out_type(const clscan_scan_desc *desc);

/* Returns the size in bytes of one segment entry of a descriptor: 1 for head flags, the key
 * type's size for keys, 0 without segments. */
size_t cli_segment_size(const clscan_scan_desc *desc);

/* ============================================================================================== */
/* Devices (cli_devices.c)                                                                        */
/* ============================================================================================== */

/* Opens a context on the default device, or on the device `selector` names ("P:D" or a name
 * substring, as CLSCAN_DEVICE); prints the failure and returns 0 if none can be opened. */
int cli_open_context(const char *selector, clscan_context **ctx);

/* Copies a string property of a device into buf (empty on failure). */
void cli_device_string(cl_device_id device, cl_device_info what, char *buf, size_t cap);

/* Returns a cl_ulong property of a device (0 on failure). */
cl_ulong cli_device_ulong(cl_device_id device, cl_device_info what);

/* Returns 1 if the device is a GPU. */
int cli_device_is_gpu(cl_device_id device);

/* Prints the build log of the context's last program build to stderr, if any. */
void cli_print_build_log(const clscan_context *ctx);

/* ============================================================================================== */
/* The library's tuning (cli_tuning.c)                                                            */
/* ============================================================================================== */

/* Stores in *t the tuning clscan_plan_create() would give desc on the context's device
 * (clscan_context_default_tuning). Prints the failure, zeroes *t and returns 0 if it cannot. */
int cli_default_tuning(const clscan_context *ctx, const clscan_scan_desc *desc, clscan_tuning *t);

/* Removes the tuning environment variables (CLSCAN_SEED_WG, CLSCAN_TILE_WG, ...) from the
 * program's environment, printing a note for each that was set: they fill the fields a
 * clscan_tuning leaves zero, and a sweep compares candidates against the table's own values. */
void cli_tuning_drop_inherited(void);

/* Describes the fields a tuning sets ("tile_wg=128 tile_vpt=4", "cpu_tile=8192 shape=cpu"), or
 * "the table's values" when it sets none. */
void cli_describe_tuning(const clscan_tuning *t, char *buf, size_t cap);

/* A row of the tuning table in src/tuning.c: what it applies to (0 matches any) and the values. */
typedef struct cli_tuning_row {
  const char *vendor, *device;
  unsigned elem_bytes, in_bytes;
  int segmented;
  int packed;      /* 1: a plain 1- or 2-byte scan (the library's packed narrow tiles) */
  int floating;    /* 1: float or double values (a strictly folding look-back) */
  clscan_tuning t; /* every field resolved, as clscan_plan_get_tuning() reports them */
} cli_tuning_row;

/* Prints a row in the table's format (designated initialisers, laid out as clang-format lays
 * them out), to paste into src/tuning.c. The only function that prints that format. */
void cli_print_tuning_row(FILE *f, const cli_tuning_row *row);

/* ============================================================================================== */
/* Extra arguments of user sources: --arg NAME=KIND:TYPE:VALUE (cli_args.c)                       */
/* ============================================================================================== */

/* The kinds of --arg: a buffer of at least one element per input element, a table of any
 * non-zero length, a scalar. Buffers and tables are read-only device buffers. */
typedef enum cli_arg_kind { CLI_ARG_BUFFER = 0, CLI_ARG_TABLE, CLI_ARG_SCALAR } cli_arg_kind;

/* One --arg: its name, kind, the library's argument (type; name and kind set by
 * cli_args_bind()), and its file (buffer, table) or its value's bytes (scalar, path NULL). */
typedef struct cli_arg_spec {
  char name[64];
  cli_arg_kind kind;
  clscan_arg arg;
  const char *path;
  _Alignas(8) unsigned char scalar[8];
} cli_arg_spec;

/* The --arg options of a command line, in their order, and the descriptor's list of them. */
typedef struct cli_arg_list {
  size_t count;
  cli_arg_spec specs[CLSCAN_MAX_ARGS];
  clscan_arg args[CLSCAN_MAX_ARGS];
} cli_arg_list;

/* The usage lines of --arg, which the scan and selection commands share. */
#define CLI_USAGE_ARG                                                                             \
  "  --arg NAME=KIND:TYPE:V an extra argument the sources see as NAME (repeatable, at most 8):\n" \
  "                         buffer:TYPE:FILE, a read-only array of TYPE with at least one\n"      \
  "                         element per input element (\"x * w[i]\"); table:TYPE:FILE, any\n"     \
  "                         length, indexed below it (\"lut[x & 15]\"); scalar:TYPE:VALUE, one\n" \
  "                         value (\"x > limit\"). FILE is in --format, as IN\n"

/* Parses one --arg value (NAME=buffer:TYPE:FILE, NAME=table:TYPE:FILE or NAME=scalar:TYPE:VALUE)
 * and appends it: the name an identifier not given before, TYPE a name of cli_type_from_name(),
 * VALUE one element of TYPE as cli_parse_element() reads it. Prints a usage error and returns 0
 * otherwise, or when CLSCAN_MAX_ARGS are given already. */
int cli_parse_arg(const char *command, const char *text, cli_arg_list *list);

/* Completes the library's arguments of a list and points a descriptor's args and arg_count at
 * them (NULL and 0 for none). The list must stay where it is while the descriptor is used. */
void cli_args_bind(cli_arg_list *list, const clscan_arg **args, size_t *arg_count);

/* Returns how many of a list's files are standard input ("-"). */
int cli_args_stdin_count(const cli_arg_list *list);

/* ============================================================================================== */
/* The scan command (cli_scan.c)                                                                  */
/* ============================================================================================== */

/* What a scan command line asks for. */
typedef struct cli_scan_request {
  int binary, op_given, key_type_given;
  clscan_scan_desc desc;
  unsigned char init[8], identity[8];
  const char *init_text, *identity_text;
  const char *device, *in_path, *out_path, *segments_path;
  const char *command; /* NULL: "scan"; else the command reusing the parser (messages, --help) */
  size_t rows;         /* --rows: a batched scan of that many rows (0: not batched) */
  int columns;         /* --columns: scan the columns of the --rows matrix instead */
  cli_arg_list args;   /* --arg: extra arguments of the map and the operator (desc.args) */
} cli_scan_request;

/* Parses the scan command's arguments (argv[0] is "scan") into r, which starts with the
 * defaults (int32 add). Returns -1 when the command is to run, else an exit status (after
 * --help, or a usage error, printed). */
int cli_scan_parse(int argc, char **argv, cli_scan_request *r);

/* Scans n elements of host array `in` into host array `out` (of the output type) on the context's
 * device, and waits. With desc->segments HEAD_FLAGS or KEYS, `segments` holds n flags or keys:
 * the library scans host arrays only without segments, so such scans go through device buffers.
 * Prints a failure (with the build log when a program or a user source failed to compile) and
 * returns 0 if the scan fails. */
int cli_scan_arrays(clscan_context *ctx, const clscan_scan_desc *desc, const void *segments,
                    const void *in, void *out, size_t n);

/* ============================================================================================== */
/* The selection commands: select, partition, unique, rle (cli_select.c)                          */
/* ============================================================================================== */

/* What a selection command line asks for. The paths are NULL when not given (IN and OUT: the
 * standard streams). */
typedef struct cli_select_request {
  int binary;
  clscan_select_desc desc;
  const char *device, *in_path, *out_path, *flags_path, *count_path, *lengths_path;
  const char *rejected_path; /* partition --rejected: the rejected elements go there, not OUT */
  cli_arg_list args; /* --arg: extra arguments of the predicate, map and equality (desc.args) */
} cli_select_request;

/* Parses a selection command's arguments (argv[0] is "select", "partition", "unique" or "rle",
 * which sets desc.op) into r, which starts with the defaults (int32). Returns -1 when the command
 * is to run, else an exit status (after --help, or a usage error, printed). */
int cli_select_parse(int argc, char **argv, cli_select_request *r);

/* One of CUB's sorts read from tools/bench/cub_bench's output (cli_cub.c). */
typedef struct cli_cub_sort {
  int pairs;     /* 1: keys with uint32 values */
  char type[16]; /* the key type's name, as clscan_type_name() writes it */
  char dist[16]; /* uniform, few, sorted or narrow */
  int log2n;
  double ms; /* 0: CUB's output was wrong, so no time */
} cli_cub_sort;

/* CUB's sorts of one file. */
typedef struct cli_cub_sorts {
  cli_cub_sort *rows;
  size_t count;
} cli_cub_sorts;

/* Reads the `sort ...` lines of cub_bench's output in `path` (other lines are skipped); returns 0
 * after a message where the file cannot be read, a sort line is malformed or there is none. */
int cli_cub_read(const char *path, cli_cub_sorts *c);

/* CUB's time of a sort in ms (the last matching line), or 0 where c is NULL or has none. */
double cli_cub_sort_ms(const cli_cub_sorts *c, int pairs, const char *type, const char *dist,
                       int log2n);

/* Frees what cli_cub_read() allocated (c stays valid and empty). */
void cli_cub_free(cli_cub_sorts *c);

/* What `bench --family select` (cli_select_bench.c) and `--family sort` (cli_bench_sort.c)
 * measure: on ctx, every type at every size from 2^min_log2 to 2^max_log2 (-1: 2^28 on a GPU,
 * less else; capped to fit the device), each algorithm (algos for the selections, sort_algos for
 * the sorts); rows to stdout and, with csv, as CSV lines (the selections in the scan bench's
 * columns). */
typedef struct cli_family_bench {
  clscan_context *ctx;
  const char *device_name;
  const clscan_algorithm *algos;
  const clscan_sort_algorithm *sort_algos;
  const clscan_type *types;
  int algo_count, sort_algo_count, type_count, min_log2, max_log2, reps;
  unsigned select_kinds; /* select: bit k measures primitive k (cli_select_kind_from_name) */
  int no_host;           /* select: 1 skips timing the sequential host loop */
  uint64_t seed;
  FILE *csv;
  const cli_cub_sorts *cub; /* sort: CUB's times for the "of CUB" column (--cub), or NULL */
} cli_family_bench;

/* Returns the largest log2 n a family measures for a type: b->max_log2, or 2^28 on a GPU and
 * 2^cpu_default else, at most `cap` (what fits the device; a note says when it caps). */
int cli_family_max_log2(const cli_family_bench *b, clscan_type type, int cpu_default, int cap);

/* Prints what the selection family measures and the table's columns. */
void cli_bench_select_header(void);

/* Verifies and times the selection primitives; returns 0 if any measurement failed. */
int cli_bench_select(const cli_family_bench *b);

/* The number of a selection primitive of `bench --family select` by its row name (select-flags,
 * select-pred, partition, partition-copy, unique, rle): returns 1 and stores it, or 0. */
int cli_select_kind_from_name(const char *name, int *kind);

/* The mask of every selection primitive. */
unsigned cli_select_all_kinds(void);

/* The usage texts of the selection commands, for the command table. */
extern const char cli_select_usage[], cli_partition_usage[], cli_unique_usage[], cli_rle_usage[];

/* ============================================================================================== */
/* Elements (cli_format.c) and element files (cli_elements.c)                                     */
/* ============================================================================================== */

/* Parses one element of `type` from text (no surrounding whitespace) into out. Returns 1 on
 * success; otherwise 0 with a reason ("is not a valid int8", "is out of range for int8 ...")
 * in why. */
int cli_parse_element(clscan_type type, const char *text, void *out, char *why, size_t cap);

/* Formats one element of `type` into buf: integers in decimal, float as %.9g, double as %.17g,
 * which cli_parse_element() reads back to the same bits. */
void cli_format_element(clscan_type type, const void *element, char *buf, size_t cap);

/* A growing array of bytes. */
typedef struct cli_byte_buf {
  unsigned char *data;
  size_t len, cap;
} cli_byte_buf;

/* Reads one element a line from f, appending to b; `name` names the file and `what` its role
 * ("input", "flags", "keys") in messages. Prints the first bad line and returns 0 on failure. */
int cli_read_text(FILE *f, const char *name, const char *what, clscan_type type, cli_byte_buf *b);

/* Reads raw elements from f, appending to b; the length must be a whole number of elements.
 * Prints the failure and returns 0 otherwise. The bytes stay in file order (little-endian). */
int cli_read_binary(FILE *f, const char *name, clscan_type type, cli_byte_buf *b);

/* Reads a whole file (path NULL or "-": standard input) of elements of `type` into b, in binary
 * (little-endian) or as text; `what` names it in messages ("input", "flags", "keys"). Prints the
 * failure and returns 0 if it cannot be read (cli_elements.c). */
int cli_read_element_file(int binary, const char *path, const char *what, clscan_type type,
                          cli_byte_buf *b);

/* Converts elements of elem bytes between little-endian and the host's order (a no-op on a
 * little-endian host). */
void cli_swap_to_little_endian(unsigned char *data, size_t bytes, size_t elem);

/* Writes n elements as text, one a line, or as raw little-endian bytes (binary: data is
 * converted in place). Returns 0 if writing failed. */
int cli_write_elements(FILE *f, int binary, clscan_type type, unsigned char *data, size_t n);

/* ============================================================================================== */
/* Files and device values of extra arguments (cli_args.c)                                        */
/* ============================================================================================== */

/* Reads the file of every buffer and table of a list into files[k] (binary or text, as the
 * command's input) and checks their lengths against the input's n elements: a buffer needs at
 * least n elements, a table at least one. Prints the failure and returns 0 otherwise. */
int cli_args_read(const cli_arg_list *list, int binary, size_t n, cli_byte_buf files[]);

/* Frees what cli_args_read() read. */
void cli_args_free_files(const cli_arg_list *list, cli_byte_buf files[]);

/* Creates a read-only device buffer of each buffer's and table's file (mems[k]; NULL for
 * scalars) and the values of an enqueue: the whole file's elements (`length`), or the scalar's
 * bytes. Prints the failure, releases what it created and returns 0 if a buffer cannot be made. */
int cli_args_values(clscan_context *ctx, const cli_arg_list *list, const cli_byte_buf files[],
                    cl_mem mems[], clscan_arg_value values[]);

/* Releases the buffers of cli_args_values(). */
void cli_args_release(const cli_arg_list *list, cl_mem mems[]);

/* A scan (or reduction) of host arrays with extra arguments: desc (whose args are `args`'s), n
 * input elements, n flags or keys for segmented descriptors, the files of cli_args_read(), and
 * room for n output elements (one for a reduction). */
typedef struct cli_args_scan {
  const clscan_scan_desc *desc;
  const cli_arg_list *args;
  const cli_byte_buf *files;
  const void *in, *segments;
  void *out;
  size_t n;
  int reduce;
} cli_args_scan;

/* Runs a cli_args_scan on device buffers through clscan_plan_enqueue_args() (or
 * clscan_plan_enqueue_reduce_args()) and waits. Prints a failure (with the build log when a source
 * did not compile) and returns 0 if it fails; `out` is then unspecified. */
int cli_args_scan_run(clscan_context *ctx, const cli_args_scan *s);

/* ============================================================================================== */
/* Output files (cli_output.c)                                                                    */
/* ============================================================================================== */

/* An output being written: standard output, a file written in place (a device or a pipe), or a
 * temporary file that replaces `target` when committed. */
typedef struct cli_output {
  FILE *f;
  const char *name; /* for messages */
  char *tmp, *target;
} cli_output;

/* Opens an output: "-" or NULL is standard output, a regular or new file gets a temporary file
 * next to it. Prints the failure and returns 0 if it cannot be opened. */
int cli_output_open(cli_output *o, const char *path);

/* Flushes and closes an output and renames its temporary file over the target. Prints the
 * failure, drops the output and returns 0 if any step fails. */
int cli_output_commit(cli_output *o);

/* Drops an output: its temporary file is removed and the target stays as it was. */
void cli_output_abort(cli_output *o);

/* ============================================================================================== */
/* Measurements shared by bench and tune (cli_measure.c)                                          */
/* ============================================================================================== */

/* Warm-up runs before every timed series. */
#define CLI_WARMUPS 2

/* Mean segment length of the segmented and by-key benchmark variants. */
#define CLI_MEAN_SEGMENT 1000

/* Row length of the rows benchmark variant (when it divides n; else one row of n). */
#define CLI_ROW_LENGTH 1024

/* What a benchmarked scan does besides an exclusive add (bench --variant): nothing; scan a map
 * of the input (y = x * 3 + (i & 15) in the input type); restart at random head flags; restart
 * at every change of random int32 keys; restart at random int32 offsets (CSR row pointers, a
 * quarter of the segments empty); scan rows of CLI_ROW_LENGTH elements (clscan_scan_batched). */
typedef enum cli_variant {
  CLI_VARIANT_PLAIN = 0,
  CLI_VARIANT_MAP,
  CLI_VARIANT_SEGMENTED,
  CLI_VARIANT_BY_KEY,
  CLI_VARIANT_OFFSETS,
  CLI_VARIANT_ROWS
} cli_variant;

/* Number of variants. */
#define CLI_VARIANT_COUNT 6

/* Returns a variant's name ("plain", "map", "segmented", "by-key", "offsets", "rows"). */
const char *cli_variant_name(cli_variant v);

/* Looks a variant up by name; returns 0 if none has it. */
int cli_variant_from_name(const char *name, cli_variant *out);

/* What is measured: input type, output type, variant and operator (zero: CLSCAN_ADD). */
typedef struct cli_bench_spec {
  clscan_type type, out_type;
  cli_variant variant;
  clscan_op op;
} cli_bench_spec;

/* Returns the descriptor of a spec for an algorithm: an exclusive scan by the spec's operator into
 * the output type, with the variant's map source or segments. */
clscan_scan_desc cli_bench_desc(const cli_bench_spec *spec, clscan_algorithm algo);

/* Returns the bytes one element moves at least: input, output, and flag or key. */
size_t cli_bench_bytes_per_element(const cli_bench_spec *spec);

/* Device and host buffers of one benchmark size: input, output, head flags or keys, and the
 * copy's source (NULL: the input) and destination. The copy moves as many bytes as the scan:
 * it copies copy_bytes = n * cli_bench_bytes_per_element() / 2, read once and written once.
 * host_ref_in is the input as the host reference scans it: the mapped input for the map variant,
 * else host_in itself. */
typedef struct cli_bench_data {
  clscan_context *ctx;
  clscan_type type; /* the input type, spec.type */
  cli_bench_spec spec;
  size_t n, bytes, out_bytes, seg_bytes, copy_bytes; /* bytes: of the input */
  cl_mem in, out, segments, copy_src, copy;
  void *host_in, *host_out, *host_ref_in, *host_segments;
  size_t n_segments;   /* offsets variant: segments of host_segments (int32 offsets) */
  uint8_t *host_flags; /* offsets and rows variants: the head flags the reference scans */
} cli_bench_data;

/* Creates a read-write device buffer of `bytes` bytes, copied from `host` unless it is NULL;
 * prints the failure (naming the buffer `what`) and returns NULL if it cannot. */
cl_mem cli_new_buffer(clscan_context *ctx, size_t bytes, void *host, const char *what);

/* Allocates the buffers of a plain scan of n elements of `type` and fills the input from `seed`;
 * 0 on failure. */
int cli_bench_data_init(cli_bench_data *d, clscan_context *ctx, clscan_type type, size_t n,
                        uint64_t seed);

/* As cli_bench_data_init(), for a spec: also fills the head flags or keys from `seed`. */
int cli_bench_data_init_spec(cli_bench_data *d, clscan_context *ctx, const cli_bench_spec *spec,
                             size_t n, uint64_t seed);

/* Releases what cli_bench_data_init() allocated. */
void cli_bench_data_free(cli_bench_data *d);

/* Outcome of timing a plan. */
typedef enum cli_timing { CLI_TIMED = 0, CLI_WRONG, CLI_FAILED } cli_timing;

/* Verifies the plan's result on d, then times `reps` runs after two warm-ups and verifies again.
 * Segmented plans run through clscan_plan_enqueue_segmented() with d's flags or keys. Stores the
 * median in *ms when CLI_TIMED; prints what went wrong otherwise. */
cli_timing cli_time_plan(clscan_plan *plan, const clscan_scan_desc *desc, cli_bench_data *d,
                         int reps, const char *label, double *ms);

/* A measurement's runs for cli_time_verified(): `run` runs it once on `state` and waits (with ms,
 * storing its time), returning 0 after printing a failure; `check` verifies the last run's result
 * (`when` says "before timing" or "after timing" in its messages). */
typedef struct cli_verified_runs {
  int (*run)(void *state, double *ms);
  cli_timing (*check)(void *state, const char *when);
  void *state;
} cli_verified_runs;

/* Runs and checks once, runs CLI_WARMUPS warm-ups, times reps runs and checks the last; stores
 * their median in *ms when CLI_TIMED. The caller poisons the outputs before, if it wants. */
cli_timing cli_time_verified(const cli_verified_runs *v, int reps, double *ms);

/* Runs a plan whose cli_time_plan() succeeded `reruns` more times on d, each over a poisoned
 * output, and stores in *differ how many outputs had other bytes than the verified output of the
 * timed runs (d->host_out, which this overwrites). With two_queues, each rerun also runs at the
 * same time on a second queue into an output of its own, and both outputs are compared (2 *
 * reruns in all). Prints what went wrong and returns CLI_FAILED if a run or a read fails. */
cli_timing cli_count_rerun_differences(clscan_plan *plan, cli_bench_data *d, int reruns,
                                       int two_queues, const char *label, int *differ);

/* Chooses the clock of every measurement that follows: the profiling events where they measure,
 * else the wall clock around each enqueue and its wait (measure.h; rusticl's events read 1 ns
 * for every command). Prints a "timing:" line saying which, and why. Returns 0 after printing
 * the failure if its probe buffers cannot be allocated. */
int cli_choose_clock(clscan_context *ctx);

/* Times clEnqueueCopyBuffer of d's copy_bytes into its copy buffer (median of reps, after
 * warm-ups); prints the failure and returns 0 if it fails. */
int cli_time_copy(cli_bench_data *d, int reps, double *ms);

/* Times a single-threaded exclusive scan in C by the spec's operator over d's input, in its type
 * (median of a few runs); the same loop for every variant, a baseline. Returns 0 where the
 * operator has no loop for the type (the bitwise ones on floating types). */
double cli_time_host_loop(const cli_bench_data *d);

/* As cli_time_host_loop(), for a single-threaded fold (the reduce row's host loop): the
 * operator over d's input into one element. 0 where there is no loop, or where the spec's output
 * type is not its input type. */
double cli_time_host_fold(const cli_bench_data *d);

/* Returns the largest log2 n whose in, out and copy buffers of elem bytes fit in a quarter of
 * the device's global memory and in its largest allocation. */
int cli_max_log2_for_device(cl_device_id device, size_t elem);

/* As cli_max_log2_for_device(), for every buffer of a spec's benchmark data. */
int cli_max_log2_for_spec(cl_device_id device, const cli_bench_spec *spec);

/* Returns a 64-bit mix of a seed and an index (splitmix64's finaliser): the benchmarks' random
 * numbers. */
uint64_t cli_mix64(uint64_t seed, uint64_t i);

/* Returns GB/s for reading and writing n elements of elem bytes in ms milliseconds. */
double cli_gbps(size_t n, size_t elem, double ms);

/* Returns GB/s for moving `bytes` bytes in ms milliseconds. */
double cli_gbps_bytes(double bytes, double ms);

/* ============================================================================================== */
/* Sort measurements: sort --bench and bench --family sort (cli_bench_sort.c)                     */
/* ============================================================================================== */

/* The key distributions: uniform random bits; FEW (16) distinct random keys; already sorted
 * (ascending, spread over the key's range); a narrow range, random in the low half of the bits of
 * the ordered keys (sorted with end_bit = half the key's bits). */
typedef enum cli_sort_dist {
  CLI_SORT_UNIFORM = 0,
  CLI_SORT_FEW,
  CLI_SORT_SORTED,
  CLI_SORT_NARROW
} cli_sort_dist;

/* Number of distributions. */
#define CLI_SORT_DIST_COUNT 4

/* Returns a distribution's name ("uniform", "few", "sorted", "narrow"). */
const char *cli_sort_dist_name(cli_sort_dist d);

/* Fills n keys of key_type from a distribution (deterministic for a seed). */
void cli_sort_fill_keys(clscan_type key_type, cli_sort_dist dist, uint64_t seed, void *keys,
                        size_t n);

/* The host side of one sort measurement: the unsorted keys and their uint32 index values, the
 * expected sorted keys and values, room to read results back, and the host radix sort's time. */
typedef struct cli_sort_data {
  clscan_sort_desc desc; /* value_size 0; the measurement adds the values */
  size_t n, ks;
  unsigned char *keys, *want_keys, *got;
  uint32_t *values, *want_values;
  double host_ms;
} cli_sort_data;

/* Fills n keys of desc's key type from a distribution and computes the expected result with a
 * single-threaded host radix sort of the reference's ordered bits (checked against ref_sort() up
 * to 2^20 keys); n must be below 2^32. Prints the failure and returns 0 if it cannot. */
int cli_sort_data_init(cli_sort_data *h, const clscan_sort_desc *desc, cli_sort_dist dist, size_t n,
                       uint64_t seed);

/* Releases what cli_sort_data_init() allocated. */
void cli_sort_data_free(cli_sort_data *h);

/* Sorts h's keys (with pairs, and their index values) with a plan of h->desc (value_size 4 with
 * pairs) on device buffers, in place from a pristine copy each run: verifies the result, times
 * reps runs after warm-ups, verifies again. Stores the median in *ms when CLI_TIMED; prints what
 * went wrong otherwise. */
cli_timing cli_sort_measure(clscan_context *ctx, clscan_sort_plan *plan, cli_sort_data *h,
                            int pairs, int reps, const char *label, double *ms);

/* Returns the largest log2 n whose sort buffers of key_size-byte keys and uint32 values fit in a
 * quarter of the device's memory and in its largest allocation. */
int cli_sort_max_log2(cl_device_id device, size_t key_size);

/* Returns the time in ms of the C library's qsort of h's keys (0 if memory ran out). */
double cli_sort_qsort_ms(const cli_sort_data *h);

/* Prints what the sort family measures and the table's columns. */
void cli_bench_sort_header(const cli_family_bench *b);

/* Verifies and times the sorts (every distribution, keys and pairs); returns 0 if any measurement
 * failed. */
int cli_bench_sort(const cli_family_bench *b);

/* ============================================================================================== */
/* Reports of bench (cli_plot.c)                                                                  */
/* ============================================================================================== */

/* One measured row of bench. gbps counts n * bytes_per_element bytes; so does the copy. Of
 * `reruns` runs after the timed ones, `differ` gave other output bits (reruns 0: not checked). */
typedef struct cli_bench_row {
  clscan_algorithm algo;
  clscan_type type, out_type;
  cli_variant variant;
  clscan_op op;
  int log2n, reruns, differ;
  size_t bytes_per_element;
  double ms, gbps, copy_ms, host_ms;
} cli_bench_row;

/* Writes a row's types into buf: "int32", or "uint8->uint32" when the output type differs. */
void cli_row_types(const cli_bench_row *row, char *buf, size_t cap);

/* Writes a CSV field, quoted (with quotes doubled) when it holds a separator or a quote. */
void cli_csv_text(FILE *f, const char *text);

/* Writes the CSV header, or one row, to f (device names are quoted as needed). */
void cli_csv_header(FILE *f);
void cli_csv_row(FILE *f, const char *device, const cli_bench_row *row);

/* Writes an SVG chart of GB/s against log2 n: one chart per input type, one line per algorithm
 * plus the copy line (its GB/s over the same bytes). Returns 0 if writing failed. */
int cli_write_svg(FILE *f, const char *device, const cli_bench_row *rows, size_t count);

/* ============================================================================================== */
/* Commands                                                                                       */
/* ============================================================================================== */

/* Each takes the command's own arguments (argv[0] is the command name) and returns an exit
 * status. */
int cli_cmd_devices(int argc, char **argv);
int cli_cmd_scan(int argc, char **argv);
int cli_cmd_reduce(int argc, char **argv);
int cli_cmd_bench(int argc, char **argv);
int cli_cmd_tune(int argc, char **argv);
int cli_cmd_sort(int argc, char **argv); /* cli_sort.c, with its usage text: */
extern const char cli_sort_usage[];
int cli_cmd_select(int argc, char **argv); /* select, partition, unique and rle */

#endif /* CLSCAN_CLI_H_ */
