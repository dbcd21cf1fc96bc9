/*
 * The clscan program's `scan` command: strict parsing of elements, reading text or binary
 * input, scanning it with clscan_scan_host, and writing the result through cli_output (which
 * replaces a named output file only when everything succeeded).
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "cli.h"
#include "ref_scan.h"

/* ============================================================================================== */
/* Parsing elements                                                                               */
/* ============================================================================================== */

/* Returns the smallest and largest value of an integer type. */
static void int_range(clscan_type t, long long *min, unsigned long long *max) {
  size_t bits = 8 * clscan_type_size(t);
  int is_signed = t == CLSCAN_INT8 || t == CLSCAN_INT16 || t == CLSCAN_INT32 || t == CLSCAN_INT64;
  unsigned long long all = bits == 64 ? ~0ull : (1ull << bits) - 1;
  *max = is_signed ? all >> 1 : all;
  *min = is_signed ? -(long long)(all >> 1) - 1 : 0;
}

/* Stores the low bytes of v as an element of `size` bytes. */
static void store_int(unsigned long long v, size_t size, void *out) {
  uint8_t u8 = (uint8_t)v;
  uint16_t u16 = (uint16_t)v;
  uint32_t u32 = (uint32_t)v;
  uint64_t u64 = (uint64_t)v;
  memcpy(out,
         size == 1   ? (void *)&u8
         : size == 2 ? (void *)&u16
         : size == 4 ? (void *)&u32
                     : (void *)&u64,
         size);
}

/* Parses a decimal integer of type t; see cli_parse_element(). */
static int parse_int(clscan_type t, const char *text, void *out, char *why, size_t cap) {
  long long min;
  unsigned long long max, v = 0;
  int_range(t, &min, &max);
  const char *digits = text + (text[0] == '-' || text[0] == '+');
  char *end = NULL;
  errno = 0;
  // strtoull takes the magnitude: it would skip spaces and wrap negative numbers on its own.
  if (isdigit((unsigned char)digits[0]))
    v = strtoull(digits, &end, 10);
  if (!end || *end != '\0') {
    snprintf(why, cap, "is not a valid %s", clscan_type_name(t));
    return 0;
  }
  int negative = text[0] == '-' && v != 0;
  unsigned long long limit = negative ? (unsigned long long)(-(min + 1)) + 1 : max;
  if (errno == ERANGE || v > limit) {
    snprintf(why, cap, "is out of range for %s [%lld, %llu]", clscan_type_name(t), min, max);
    return 0;
  }
  store_int(negative ? 0 - v : v, clscan_type_size(t), out);
  return 1;
}

/* Parses a float or double; overflow is an error, underflow to a subnormal or zero is not. */
static int parse_float(clscan_type t, const char *text, void *out, char *why, size_t cap) {
  char *end = NULL;
  errno = 0;
  float f = 0;
  double d = 0;
  if (t == CLSCAN_FLOAT)
    f = strtof(text, &end);
  else
    d = strtod(text, &end);
  if (end == text || *end != '\0' || isspace((unsigned char)text[0])) {
    snprintf(why, cap, "is not a valid %s", clscan_type_name(t));
    return 0;
  }
  if (errno == ERANGE && (t == CLSCAN_FLOAT ? isinf(f) : isinf(d))) {
    snprintf(why, cap, "is out of range for %s", clscan_type_name(t));
    return 0;
  }
  if (t == CLSCAN_FLOAT)
    memcpy(out, &f, sizeof f);
  else
    memcpy(out, &d, sizeof d);
  return 1;
}

int cli_parse_element(clscan_type type, const char *text, void *out, char *why, size_t cap) {
  return cli_type_is_float(type) ? parse_float(type, text, out, why, cap)
                                 : parse_int(type, text, out, why, cap);
}

/* ============================================================================================== */
/* Reading input                                                                                  */
/* ============================================================================================== */

/* A growing array of bytes. */
typedef struct byte_buf {
  unsigned char *data;
  size_t len, cap;
} byte_buf;

/* Appends bytes; returns 0 when memory runs out. */
static int buf_append(byte_buf *b, const void *bytes, size_t len) {
  if (b->len + len > b->cap) {
    size_t cap = b->cap ? b->cap : 4096;
    while (cap < b->len + len)
      cap *= 2;
    unsigned char *grown = realloc(b->data, cap);
    if (!grown)
      return 0;
    b->data = grown;
    b->cap = cap;
  }
  memcpy(b->data + b->len, bytes, len);
  b->len += len;
  return 1;
}

/* Removes surrounding whitespace from a line in place; returns the trimmed start. */
static char *trim(char *line, size_t *len) {
  while (*len && isspace((unsigned char)line[*len - 1]))
    line[--*len] = '\0';
  while (*len && isspace((unsigned char)*line))
    line++, --*len;
  return line;
}

/* Parses one text line into an element and appends it; prints the error otherwise. */
static int text_line(char *line, size_t len, size_t number, clscan_type type, byte_buf *b) {
  unsigned char element[8];
  char why[96];
  if (strlen(line) != len) {
    cli_error("input line %zu: contains a NUL byte", number);
    return 0;
  }
  char *text = trim(line, &len);
  if (len == 0) {
    cli_error("input line %zu: blank lines are not allowed", number);
    return 0;
  }
  if (!cli_parse_element(type, text, element, why, sizeof why)) {
    cli_error("input line %zu: '%.60s%s' %s", number, text, len > 60 ? "..." : "", why);
    return 0;
  }
  if (!buf_append(b, element, clscan_type_size(type))) {
    cli_error("out of memory at input line %zu", number);
    return 0;
  }
  return 1;
}

/* Reads one number a line. */
static int read_text(FILE *f, const char *name, clscan_type type, byte_buf *b) {
  char *line = NULL;
  size_t line_cap = 0, number = 0;
  ssize_t len;
  int ok = 1;
  while (ok && (len = getline(&line, &line_cap, f)) >= 0) {
    ok = text_line(line, (size_t)len, ++number, type, b);
  }
  free(line);
  if (ok && ferror(f)) {
    cli_error("cannot read %s: %s", name, strerror(errno));
    ok = 0;
  }
  return ok;
}

/* Reads raw elements; the length must be a whole number of elements. */
static int read_binary(FILE *f, const char *name, clscan_type type, byte_buf *b) {
  unsigned char chunk[65536];
  size_t got;
  while ((got = fread(chunk, 1, sizeof chunk, f)) > 0) {
    if (!buf_append(b, chunk, got)) {
      cli_error("out of memory reading %s", name);
      return 0;
    }
  }
  if (ferror(f)) {
    cli_error("cannot read %s: %s", name, strerror(errno));
    return 0;
  }
  size_t e = clscan_type_size(type);
  if (b->len % e != 0) {
    cli_error("%s: binary input of %zu bytes is not a whole number of %s elements (%zu bytes each)",
              name, b->len, clscan_type_name(type), e);
    return 0;
  }
  return 1;
}

/* Converts elements between little-endian and the host's order (a no-op on little-endian). */
static void swap_to_little_endian(unsigned char *data, size_t bytes, size_t elem) {
  const uint16_t one = 1;
  if (*(const unsigned char *)&one == 1 || elem == 1)
    return;
  for (size_t i = 0; i + elem <= bytes; i += elem) {
    for (size_t a = i, z = i + elem - 1; a < z; a++, z--) {
      unsigned char t = data[a];
      data[a] = data[z];
      data[z] = t;
    }
  }
}

/* ============================================================================================== */
/* Writing output                                                                                 */
/* ============================================================================================== */

/* Writes n elements as text, one a line, or as raw little-endian bytes. */
static int write_elements(FILE *f, int binary, clscan_type type, unsigned char *data, size_t n) {
  size_t e = clscan_type_size(type);
  if (binary) {
    swap_to_little_endian(data, n * e, e);
    return fwrite(data, e, n, f) == n;
  }
  char text[64];
  for (size_t i = 0; i < n; i++) {
    clscan_ref_format(type, data, i, text, sizeof text);
    if (fputs(text, f) == EOF || fputc('\n', f) == EOF)
      return 0;
  }
  return 1;
}

/* ============================================================================================== */
/* The scan command                                                                               */
/* ============================================================================================== */

/* What the command line asks for. */
typedef struct scan_request {
  int binary;
  clscan_scan_desc desc;
  unsigned char init[8];
  const char *device, *in_path, *out_path;
} scan_request;

enum { OPT_FORMAT, OPT_TYPE, OPT_OP, OPT_EXCLUSIVE, OPT_INIT, OPT_ALGORITHM, OPT_DEVICE };

/* Applies one option's value; returns 0 after a usage error. */
static int scan_option(scan_request *r, int id, const char *v, const char **init_text) {
  int ok = 1;
  switch (id) {
    case OPT_FORMAT:
      ok = strcmp(v, "text") == 0 || strcmp(v, "binary") == 0;
      r->binary = strcmp(v, "binary") == 0;
      break;
    case OPT_TYPE:
      ok = cli_type_from_name(v, &r->desc.type);
      break;
    case OPT_OP:
      ok = cli_op_from_name(v, &r->desc.op);
      break;
    case OPT_EXCLUSIVE:
      r->desc.exclusive = 1;
      break;
    case OPT_INIT:
      *init_text = v;
      break;
    case OPT_ALGORITHM:
      ok = cli_algorithm_from_name(v, &r->desc.algorithm);
      break;
    default:
      r->device = v;
      break;
  }
  if (!ok) {
    static const char *const names[] = {"--format", "--type", "--op", "", "", "--algorithm"};
    cli_usage_error("scan", "%s: unknown value '%s'", names[id], v);
  }
  return ok;
}

/* Checks what depends on several options: the initial value and the operator's type. */
static int scan_check(scan_request *r, const char *init_text) {
  char why[96];
  if (cli_type_is_float(r->desc.type) && r->desc.op >= CLSCAN_AND) {
    cli_usage_error("scan", "--op %s is not defined on %s", clscan_op_name(r->desc.op),
                    clscan_type_name(r->desc.type));
    return 0;
  }
  if (!init_text)
    return 1;
  if (!cli_parse_element(r->desc.type, init_text, r->init, why, sizeof why)) {
    cli_usage_error("scan", "--init: '%s' %s", init_text, why);
    return 0;
  }
  r->desc.init = r->init;
  return 1;
}

/* Parses the command line; returns -1 to go on, or an exit status. */
static int scan_parse(int argc, char **argv, scan_request *r) {
  static const cli_option options[] = {{"format", 1, OPT_FORMAT}, {"type", 1, OPT_TYPE},
                                       {"op", 1, OPT_OP},         {"exclusive", 0, OPT_EXCLUSIVE},
                                       {"init", 1, OPT_INIT},     {"algorithm", 1, OPT_ALGORITHM},
                                       {"device", 1, OPT_DEVICE}, {NULL, 0, 0}};
  cli_parser p;
  const char *v, *init_text = NULL;
  int positional = 0;
  cli_parser_init(&p, "scan", argc, argv, options);
  for (int id; (id = cli_next_option(&p, &v)) != CLI_OPT_END;) {
    if (id == CLI_OPT_ERROR)
      return CLI_EXIT_USAGE;
    if (id == CLI_OPT_HELP) {
      cli_print_usage(stdout, "scan");
      return CLI_EXIT_OK;
    }
    if (id == CLI_OPT_POSITIONAL) {
      if (positional == 2)
        return cli_usage_error("scan", "unexpected argument '%s'", v);
      *(positional++ ? &r->out_path : &r->in_path) = v;
    } else if (!scan_option(r, id, v, &init_text)) {
      return CLI_EXIT_USAGE;
    }
  }
  return scan_check(r, init_text) ? -1 : CLI_EXIT_USAGE;
}

/* Reads the whole input into b. */
static int scan_read(const scan_request *r, byte_buf *b) {
  int from_stdin = !r->in_path || strcmp(r->in_path, "-") == 0;
  const char *name = from_stdin ? "standard input" : r->in_path;
  FILE *f = from_stdin ? stdin : fopen(r->in_path, "rb");
  if (!f) {
    cli_error("cannot open input '%s': %s", r->in_path, strerror(errno));
    return 0;
  }
  int ok = r->binary ? read_binary(f, name, r->desc.type, b) : read_text(f, name, r->desc.type, b);
  if (!from_stdin)
    fclose(f);
  if (ok && r->binary)
    swap_to_little_endian(b->data, b->len, clscan_type_size(r->desc.type));
  return ok;
}

/* Scans the elements in b in place on the selected device. */
static int scan_run(const scan_request *r, byte_buf *b) {
  clscan_context *ctx = NULL;
  if (!cli_open_context(r->device, &ctx))
    return 0;
  size_t n = b->len / clscan_type_size(r->desc.type);
  clscan_status st = clscan_scan_host(ctx, &r->desc, b->data, b->data, n);
  if (st != CLSCAN_SUCCESS) {
    cli_lib_error(st, "scan of %zu %s elements failed", n, clscan_type_name(r->desc.type));
    if (st == CLSCAN_BUILD_FAILED)
      cli_print_build_log(ctx);
  }
  clscan_context_release(ctx);
  return st == CLSCAN_SUCCESS;
}

/* Writes the scanned elements and commits the output; drops it on failure. */
static int scan_write(cli_output *out, const scan_request *r, byte_buf *b) {
  size_t n = b->len / clscan_type_size(r->desc.type);
  if (write_elements(out->f, r->binary, r->desc.type, b->data, n))
    return cli_output_commit(out);
  cli_error("cannot write %s: %s", out->name, strerror(errno));
  cli_output_abort(out);
  return 0;
}

int cli_cmd_scan(int argc, char **argv) {
  scan_request r = {.desc = {.type = CLSCAN_INT32, .op = CLSCAN_ADD}};
  int status = scan_parse(argc, argv, &r);
  if (status >= 0)
    return status;

  // Input is read and scanned completely before the output is committed.
  byte_buf b = {0};
  cli_output out;
  int ok = scan_read(&r, &b) && cli_output_open(&out, r.out_path);
  if (ok) {
    ok = scan_run(&r, &b);
    if (ok)
      ok = scan_write(&out, &r, &b);
    else
      cli_output_abort(&out);
  }
  free(b.data);
  return ok ? CLI_EXIT_OK : CLI_EXIT_FAIL;
}
