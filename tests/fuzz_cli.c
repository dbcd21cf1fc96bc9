/*
 * clscan tests: libFuzzer target for the clscan program's input parsing and option handling.
 *
 * It links the program's object library (tools/clscan, clscan_cli_objs) and calls its parser API
 * (tools/clscan/cli.h). The first byte of an input picks what is fuzzed and an element type; the
 * rest is:
 *   0: text input (one number a line) read through cli_read_text() from memory; every element
 *      parsed must format (cli_format_element()) and parse back to the same bytes;
 *   1: binary input read through cli_read_binary(); its length must be a whole number of elements;
 *   2: command options, the rest split at NUL bytes into argv; the first byte's upper bits pick
 *      the command (0: scan, through cli_scan_parse(); 1-4: select, partition, unique, rle,
 *      through cli_select_parse()); an accepted command line must describe a descriptor the
 *      library's rules allow (output type, user operator with its identity, segments and key
 *      type; what selects, the equality, count size and output files of a selection, the
 *      rejected elements' file only for a partition; the extra arguments of --arg: distinct
 *      identifiers, built-in types, a source that reads them, a file or a parsed value each);
 *   3: one element through cli_parse_element(), the list and count parsers of bench and tune, and
 *      the key type and variant names.
 * No OpenCL device is opened. Built with clang's -fsanitize=fuzzer,address,undefined in the
 * sanitizer build (tests/CMakeLists.txt); the seed corpus is tests/fuzz_corpus/.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Aborts (a finding) when a property of the parser does not hold. */
#define PROPERTY(cond)                                                                       \
  do {                                                                                       \
    if (!(cond)) {                                                                           \
      fprintf(stderr, "fuzz_cli: property failed: %s (%s:%d)\n", #cond, __FILE__, __LINE__); \
      abort();                                                                               \
    }                                                                                        \
  } while (0)

/* Checks that an element formats and parses back to the same bytes (NaN: to a NaN). */
static void check_round_trip(clscan_type type, const unsigned char *element) {
  char text[64], why[96];
  unsigned char back[8] = {0};
  size_t e = clscan_type_size(type);
  cli_format_element(type, element, text, sizeof text);
  PROPERTY(cli_parse_element(type, text, back, why, sizeof why));
  if (type == CLSCAN_FLOAT) {
    float a, b;
    memcpy(&a, element, sizeof a);
    memcpy(&b, back, sizeof b);
    PROPERTY(isnan(a) ? isnan(b) : memcmp(&a, &b, sizeof a) == 0);
  } else if (type == CLSCAN_DOUBLE) {
    double a, b;
    memcpy(&a, element, sizeof a);
    memcpy(&b, back, sizeof b);
    PROPERTY(isnan(a) ? isnan(b) : memcmp(&a, &b, sizeof a) == 0);
  } else if (type == CLSCAN_HALF) {
    uint16_t a, b;
    memcpy(&a, element, sizeof a);
    memcpy(&b, back, sizeof b);
    PROPERTY(isnan(clscan_half_to_double(a)) ? isnan(clscan_half_to_double(b)) : a == b);
  } else {
    PROPERTY(memcmp(element, back, e) == 0);
  }
}

/* Mode 0: text input. */
static void fuzz_text(clscan_type type, const uint8_t *data, size_t size) {
  FILE *f = fmemopen((void *)data, size, "r");
  if (!f)
    return;
  cli_byte_buf b = {0};
  int ok = cli_read_text(f, "fuzz input", "input", type, &b);
  fclose(f);
  size_t e = clscan_type_size(type);
  PROPERTY(b.len % e == 0);
  if (ok) {
    for (size_t i = 0; i < b.len; i += e)
      check_round_trip(type, b.data + i);
  }
  free(b.data);
}

/* Mode 1: binary input. */
static void fuzz_binary(clscan_type type, const uint8_t *data, size_t size) {
  FILE *f = fmemopen((void *)data, size, "rb");
  if (!f)
    return;
  cli_byte_buf b = {0};
  int ok = cli_read_binary(f, "fuzz input", type, &b);
  fclose(f);
  PROPERTY(ok == (size % clscan_type_size(type) == 0));
  PROPERTY(!ok || b.len == size);
  if (ok)
    cli_swap_to_little_endian(b.data, b.len, clscan_type_size(type));
  free(b.data);
}

/* Checks that the extra arguments (--arg) of an accepted command line are what the descriptor
 * points at: at most CLSCAN_MAX_ARGS, named by distinct identifiers, of built-in types, read
 * only; buffers and tables with a file, scalars with a value that formats and parses back. */
static void check_args_accepted(const cli_arg_list *l, const clscan_arg *args, size_t count) {
  PROPERTY(count == l->count && count <= CLSCAN_MAX_ARGS);
  PROPERTY(count ? args == l->args : args == NULL);
  for (size_t k = 0; k < count; k++) {
    const cli_arg_spec *s = &l->specs[k];
    const clscan_arg *a = &args[k];
    PROPERTY(a->name == s->name && s->name[0] && strlen(s->name) < sizeof s->name);
    PROPERTY(!(s->name[0] >= '0' && s->name[0] <= '9'));
    for (const char *c = s->name; *c; c++)
      PROPERTY(*c == '_' || (*c >= '0' && *c <= '9') || ((*c | 32) >= 'a' && (*c | 32) <= 'z'));
    for (size_t j = 0; j < k; j++)
      PROPERTY(strcmp(l->specs[j].name, s->name) != 0);
    PROPERTY((unsigned)a->type < CLSCAN_TYPE_COUNT);
    PROPERTY(a->access == CLSCAN_ARG_READ && !a->type_name && !a->type_size);
    PROPERTY((a->kind == CLSCAN_ARG_SCALAR) == (s->kind == CLI_ARG_SCALAR));
    PROPERTY(s->kind == CLI_ARG_SCALAR ? !s->path : s->path && *s->path);
    if (s->kind == CLI_ARG_SCALAR)
      check_round_trip(a->type, s->scalar);
  }
}

/* Checks that an accepted scan command line describes a scan the library's rules allow. */
static void check_accepted(const cli_scan_request *r) {
  const clscan_scan_desc *d = &r->desc;
  clscan_type out = cli_out_type(d);
  PROPERTY((unsigned)d->type < CLSCAN_TYPE_COUNT && (unsigned)out < CLSCAN_TYPE_COUNT);
  PROPERTY(d->out_type == CLSCAN_OUT_SAME || d->out_type == CLSCAN_OUT_TYPE(out));
  if (d->op == CLSCAN_USER_OP) {
    // A user operator comes with its identity, parsed in the output type; --op is not given.
    PROPERTY(d->op_source && d->identity == r->identity && !r->op_given);
  } else {
    PROPERTY((unsigned)d->op < CLSCAN_OP_COUNT && !d->op_source && !d->identity);
    PROPERTY(!cli_type_is_float(out) || d->op < CLSCAN_AND);
  }
  PROPERTY(!d->init || d->init == r->init);
  PROPERTY(!d->map_source || *d->map_source);
  // Flags, keys and offsets exclude each other, and rows exclude them all; a key type is given
  // only with keys (any built-in type) or offsets (one of four).
  PROPERTY(d->segments == CLSCAN_SEGMENTS_NONE || r->segments_path);
  PROPERTY(d->segments != CLSCAN_SEGMENTS_NONE || !r->segments_path);
  PROPERTY(!r->rows || d->segments == CLSCAN_SEGMENTS_NONE);
  PROPERTY(!r->columns || r->rows);
  PROPERTY(!r->key_type_given || d->segments == CLSCAN_SEGMENTS_KEYS ||
           d->segments == CLSCAN_SEGMENTS_OFFSETS);
  PROPERTY((unsigned)d->key_type < CLSCAN_TYPE_COUNT);
  PROPERTY(d->segments != CLSCAN_SEGMENTS_OFFSETS || d->key_type == CLSCAN_INT32 ||
           d->key_type == CLSCAN_UINT32 || d->key_type == CLSCAN_INT64 ||
           d->key_type == CLSCAN_UINT64);
  // Bytes per flag, key or offset: none, a flag, or a built-in key or offset type's size.
  const size_t seg = cli_segment_size(d);
  PROPERTY(seg == 0 || seg == 1 || seg == 2 || seg == 4 || seg == 8);
  // Arguments are read by the map or the operator, and need the enqueue with values.
  check_args_accepted(&r->args, d->args, d->arg_count);
  PROPERTY(!d->arg_count || d->map_source || d->op_source);
  PROPERTY(!d->arg_count || (!r->rows && d->segments != CLSCAN_SEGMENTS_OFFSETS));
}

/* Returns 1 for standard input or output: no path or "-". */
static int is_std(const char *path) {
  return !path || strcmp(path, "-") == 0;
}

/* Checks that an accepted selection command line describes a selection the library allows. */
static void check_select_accepted(const cli_select_request *r, clscan_select_op op) {
  const clscan_select_desc *d = &r->desc;
  int selects = op == CLSCAN_SELECT || op == CLSCAN_PARTITION;
  PROPERTY(d->op == op && (unsigned)d->type < CLSCAN_TYPE_COUNT);
  PROPERTY(d->out_type == CLSCAN_OUT_SAME ||
           (unsigned)((int)d->out_type - (int)CLSCAN_OUT_TYPE(0)) < CLSCAN_TYPE_COUNT);
  PROPERTY((unsigned)d->algorithm < CLSCAN_ALGORITHM_COUNT);
  PROPERTY(d->count_size == 0 || d->count_size == 4 || d->count_size == 8);
  // Select and partition select by exactly one of flags and predicate; the others by neither.
  PROPERTY(selects ? (r->flags_path != NULL) != (d->predicate_source != NULL)
                   : !r->flags_path && !d->predicate_source);
  PROPERTY(!selects || !d->equal_source);
  PROPERTY(!r->flags_path || !is_std(r->flags_path) || !is_std(r->in_path));
  // Run lengths only for rle, and a file for them in binary; the outputs are distinct.
  PROPERTY(!r->lengths_path || op == CLSCAN_RUN_LENGTH_ENCODE);
  PROPERTY(!(op == CLSCAN_RUN_LENGTH_ENCODE && r->binary) || r->lengths_path);
  PROPERTY(!r->count_path || is_std(r->count_path) != is_std(r->out_path) ||
           (!is_std(r->out_path) && strcmp(r->count_path, r->out_path) != 0));
  // Rejected elements only for a partition, to a file other than OUT and the count's.
  PROPERTY(!r->rejected_path || op == CLSCAN_PARTITION);
  PROPERTY(!r->rejected_path || is_std(r->rejected_path) != is_std(r->out_path) ||
           (!is_std(r->out_path) && strcmp(r->rejected_path, r->out_path) != 0));
  PROPERTY(!r->rejected_path || !r->count_path ||
           is_std(r->rejected_path) != is_std(r->count_path) ||
           (!is_std(r->count_path) && strcmp(r->rejected_path, r->count_path) != 0));
  check_args_accepted(&r->args, d->args, d->arg_count);
  PROPERTY(!d->arg_count || d->predicate_source || d->map_source || d->equal_source);
}

/* Mode 2: a command's options, argv split at NUL bytes; `command` picks scan (0) or a selection
 * command (1-4). */
static void fuzz_options(unsigned command, const uint8_t *data, size_t size) {
  static const char *const names[] = {"scan", "select", "partition", "unique", "rle"};
  static const clscan_select_op ops[] = {CLSCAN_SELECT, CLSCAN_SELECT, CLSCAN_PARTITION,
                                         CLSCAN_UNIQUE, CLSCAN_RUN_LENGTH_ENCODE};
  char *text = malloc(size + 1);
  char *argv[66];
  int argc = 0;
  if (!text)
    return;
  memcpy(text, data, size);
  text[size] = '\0';
  command %= 5;
  argv[argc++] = (char *)names[command];
  for (size_t i = 0; i <= size && argc < 64;) {
    argv[argc++] = text + i;
    i += strlen(text + i) + 1;
  }
  argv[argc] = NULL;
  if (command == 0) {
    cli_scan_request r = {.desc = {.type = CLSCAN_INT32, .op = CLSCAN_ADD}};
    int status = cli_scan_parse(argc, argv, &r);
    PROPERTY(status == -1 || status == CLI_EXIT_OK || status == CLI_EXIT_USAGE);
    if (status == -1)
      check_accepted(&r);
  } else {
    cli_select_request r = {.desc = {.type = CLSCAN_INT32}};
    int status = cli_select_parse(argc, argv, &r);
    PROPERTY(status == -1 || status == CLI_EXIT_OK || status == CLI_EXIT_USAGE);
    if (status == -1)
      check_select_accepted(&r, ops[command]);
  }
  free(text);
}

/* Mode 3: one element, and the list and count parsers. */
static void fuzz_values(clscan_type type, const uint8_t *data, size_t size) {
  char *text = malloc(size + 1);
  if (!text)
    return;
  memcpy(text, data, size);
  text[size] = '\0';
  unsigned char element[8];
  char why[96];
  if (cli_parse_element(type, text, element, why, sizeof why))
    check_round_trip(type, element);
  clscan_type types[CLSCAN_TYPE_COUNT];
  clscan_algorithm algos[CLSCAN_ALGORITHM_COUNT];
  int count = -1;
  if (cli_parse_type_list("bench", text, types, &count))
    PROPERTY(count >= 1 && count <= CLSCAN_TYPE_COUNT);
  if (cli_parse_algorithm_list("bench", text, algos, &count))
    PROPERTY(count >= 1 && count < CLSCAN_ALGORITHM_COUNT);
  unsigned long long v;
  if (cli_parse_count("bench", "--reps", text, 1, 1000, &v))
    PROPERTY(v >= 1 && v <= 1000);
  clscan_type key;
  if (cli_key_type_from_name(text, &key))
    PROPERTY(clscan_type_size(key) >= 4 && !cli_type_is_float(key));
  cli_variant variant;
  if (cli_variant_from_name(text, &variant))
    PROPERTY(strcmp(cli_variant_name(variant), text) == 0);
  free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1)
    return 0;
  clscan_type type = (clscan_type)((data[0] >> 2) % CLSCAN_TYPE_COUNT);
  switch (data[0] & 3) {
    case 0:
      fuzz_text(type, data + 1, size - 1);
      break;
    case 1:
      fuzz_binary(type, data + 1, size - 1);
      break;
    case 2:
      fuzz_options((unsigned)(data[0] >> 2), data + 1, size - 1);
      break;
    default:
      fuzz_values(type, data + 1, size - 1);
      break;
  }
  return 0;
}
