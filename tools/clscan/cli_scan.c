/*
 * The clscan program's `scan` command: strict parsing of elements, reading text or binary
 * input (and head flags or keys), checking the options against each other, scanning on the
 * device (cli_scan_arrays), and writing the result through cli_output (which replaces a named
 * output file only when everything succeeded).
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

/* Parses one text line into an element and appends it; prints the error otherwise. `what` names
 * the file in messages ("input", "flags", "keys"). */
static int text_line(char *line, size_t len, size_t number, const char *what, clscan_type type,
                     byte_buf *b) {
  unsigned char element[8];
  char why[96];
  if (strlen(line) != len) {
    cli_error("%s line %zu: contains a NUL byte", what, number);
    return 0;
  }
  char *text = trim(line, &len);
  if (len == 0) {
    cli_error("%s line %zu: blank lines are not allowed", what, number);
    return 0;
  }
  if (!cli_parse_element(type, text, element, why, sizeof why)) {
    cli_error("%s line %zu: '%.60s%s' %s", what, number, text, len > 60 ? "..." : "", why);
    return 0;
  }
  if (!buf_append(b, element, clscan_type_size(type))) {
    cli_error("out of memory at %s line %zu", what, number);
    return 0;
  }
  return 1;
}

/* Reads one number a line; `what` names the file in messages, as for text_line(). */
static int read_text(FILE *f, const char *name, const char *what, clscan_type type, byte_buf *b) {
  char *line = NULL;
  size_t line_cap = 0, number = 0;
  ssize_t len;
  int ok = 1;
  while (ok && (len = getline(&line, &line_cap, f)) >= 0) {
    ok = text_line(line, (size_t)len, ++number, what, type, b);
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
/* The scan command: options                                                                      */
/* ============================================================================================== */

/* What the command line asks for. */
typedef struct scan_request {
  int binary, op_given, key_type_given;
  clscan_scan_desc desc;
  unsigned char init[8], identity[8];
  const char *init_text, *identity_text;
  const char *device, *in_path, *out_path, *segments_path;
} scan_request;

enum {
  OPT_FORMAT,
  OPT_TYPE,
  OPT_OUT_TYPE,
  OPT_OP,
  OPT_ALGORITHM,
  OPT_KEY_TYPE,
  OPT_EXCLUSIVE,
  OPT_INIT,
  OPT_OP_SOURCE,
  OPT_IDENTITY,
  OPT_MAP_SOURCE,
  OPT_FLAGS,
  OPT_KEYS,
  OPT_DEVICE
};

static const cli_option scan_options[] = {{"format", 1, OPT_FORMAT},
                                          {"type", 1, OPT_TYPE},
                                          {"out-type", 1, OPT_OUT_TYPE},
                                          {"op", 1, OPT_OP},
                                          {"algorithm", 1, OPT_ALGORITHM},
                                          {"key-type", 1, OPT_KEY_TYPE},
                                          {"exclusive", 0, OPT_EXCLUSIVE},
                                          {"init", 1, OPT_INIT},
                                          {"op-source", 1, OPT_OP_SOURCE},
                                          {"identity", 1, OPT_IDENTITY},
                                          {"map-source", 1, OPT_MAP_SOURCE},
                                          {"flags", 1, OPT_FLAGS},
                                          {"keys", 1, OPT_KEYS},
                                          {"device", 1, OPT_DEVICE},
                                          {NULL, 0, 0}};

/* Returns the name of an option by its id. */
static const char *scan_option_name(int id) {
  const cli_option *o = scan_options;
  while (o->name && o->id != id)
    o++;
  return o->name ? o->name : "?";
}

/* Applies an option whose value is a name (format, type, operator, algorithm, key type);
 * returns 0 if the name is not one of its values. */
static int scan_named_option(scan_request *r, int id, const char *v) {
  clscan_type t;
  switch (id) {
    case OPT_FORMAT:
      r->binary = strcmp(v, "binary") == 0;
      return r->binary || strcmp(v, "text") == 0;
    case OPT_TYPE:
      return cli_type_from_name(v, &r->desc.type);
    case OPT_OUT_TYPE:
      if (!cli_type_from_name(v, &t))
        return 0;
      r->desc.out_type = CLSCAN_OUT_TYPE(t);
      return 1;
    case OPT_OP:
      r->op_given = 1;
      return cli_op_from_name(v, &r->desc.op);
    case OPT_ALGORITHM:
      return cli_algorithm_from_name(v, &r->desc.algorithm);
    default:
      r->key_type_given = 1;
      return cli_key_type_from_name(v, &r->desc.key_type);
  }
}

/* Applies --flags or --keys; they cannot be combined. */
static int scan_segments_option(scan_request *r, int id, const char *v) {
  clscan_segments kind = id == OPT_FLAGS ? CLSCAN_SEGMENTS_HEAD_FLAGS : CLSCAN_SEGMENTS_KEYS;
  if (r->desc.segments != CLSCAN_SEGMENTS_NONE && r->desc.segments != kind) {
    cli_usage_error("scan", "--flags and --keys cannot be combined");
    return 0;
  }
  r->desc.segments = kind;
  r->segments_path = v;
  return 1;
}

/* Applies one option's value; returns 0 after a usage error. */
static int scan_option(scan_request *r, int id, const char *v) {
  switch (id) {
    case OPT_EXCLUSIVE:
      r->desc.exclusive = 1;
      return 1;
    case OPT_INIT:
      r->init_text = v;
      return 1;
    case OPT_IDENTITY:
      r->identity_text = v;
      return 1;
    case OPT_OP_SOURCE:
      r->desc.op_source = v;
      return 1;
    case OPT_MAP_SOURCE:
      r->desc.map_source = v;
      return 1;
    case OPT_FLAGS:
    case OPT_KEYS:
      return scan_segments_option(r, id, v);
    case OPT_DEVICE:
      r->device = v;
      return 1;
    default:
      break;
  }
  if (scan_named_option(r, id, v))
    return 1;
  if (id == OPT_KEY_TYPE)
    cli_usage_error("scan", "--key-type: '%s' is not a key type (int32, uint32, int64, uint64)", v);
  else
    cli_usage_error("scan", "--%s: unknown value '%s'", scan_option_name(id), v);
  return 0;
}

/* Parses a value of the output type given by option `name`; prints a usage error if it is not one.
 */
static int scan_value(const scan_request *r, const char *name, const char *text, void *out) {
  char why[96];
  if (cli_parse_element(cli_out_type(&r->desc), text, out, why, sizeof why))
    return 1;
  cli_usage_error("scan", "%s: '%s' %s", name, text, why);
  return 0;
}

/* Checks the operator options against each other and the output type. */
static int scan_check_op(scan_request *r) {
  clscan_type out = cli_out_type(&r->desc);
  if (r->desc.op_source) {
    if (r->op_given) {
      cli_usage_error("scan", "--op and --op-source cannot be combined");
      return 0;
    }
    if (!r->identity_text) {
      cli_usage_error("scan", "--op-source needs --identity (the operator's identity, of %s)",
                      clscan_type_name(out));
      return 0;
    }
    r->desc.op = CLSCAN_USER_OP;
    r->desc.identity = r->identity;
    return scan_value(r, "--identity", r->identity_text, r->identity);
  }
  if (r->identity_text) {
    cli_usage_error("scan", "--identity is only used with --op-source");
    return 0;
  }
  if (cli_type_is_float(out) && r->desc.op >= CLSCAN_AND) {
    cli_usage_error("scan", "--op %s is not defined on %s", clscan_op_name(r->desc.op),
                    clscan_type_name(out));
    return 0;
  }
  return 1;
}

/* Returns 1 for standard input: no path or "-". */
static int is_stdin(const char *path) {
  return !path || strcmp(path, "-") == 0;
}

/* Checks what depends on several options: operator, initial value, segments. */
static int scan_check(scan_request *r) {
  if (!scan_check_op(r))
    return 0;
  if (r->key_type_given && r->desc.segments != CLSCAN_SEGMENTS_KEYS) {
    cli_usage_error("scan", "--key-type is only used with --keys");
    return 0;
  }
  if (r->desc.segments != CLSCAN_SEGMENTS_NONE && is_stdin(r->segments_path) &&
      is_stdin(r->in_path)) {
    cli_usage_error("scan", "the input and the %s cannot both be standard input",
                    r->desc.segments == CLSCAN_SEGMENTS_KEYS ? "keys" : "flags");
    return 0;
  }
  if (!r->init_text)
    return 1;
  r->desc.init = r->init;
  return scan_value(r, "--init", r->init_text, r->init);
}

/* Parses the command line; returns -1 to go on, or an exit status. */
static int scan_parse(int argc, char **argv, scan_request *r) {
  cli_parser p;
  const char *v;
  int positional = 0;
  cli_parser_init(&p, "scan", argc, argv, scan_options);
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
    } else if (!scan_option(r, id, v)) {
      return CLI_EXIT_USAGE;
    }
  }
  return scan_check(r) ? -1 : CLI_EXIT_USAGE;
}

/* ============================================================================================== */
/* The scan command: running                                                                      */
/* ============================================================================================== */

/* Reads a whole file (or standard input) of elements of `type` into b; `what` names it in
 * messages. */
static int read_elements(const scan_request *r, const char *path, const char *what,
                         clscan_type type, byte_buf *b) {
  int from_stdin = is_stdin(path);
  const char *name = from_stdin ? "standard input" : path;
  FILE *f = from_stdin ? stdin : fopen(path, "rb");
  if (!f) {
    cli_error("cannot open %s '%s': %s", what, path, strerror(errno));
    return 0;
  }
  int ok = r->binary ? read_binary(f, name, type, b) : read_text(f, name, what, type, b);
  if (!from_stdin)
    fclose(f);
  if (ok && r->binary)
    swap_to_little_endian(b->data, b->len, clscan_type_size(type));
  return ok;
}

/* Reads the head flags or keys into s and checks them against the n input elements. */
static int read_segments(const scan_request *r, size_t n, byte_buf *s) {
  int flags = r->desc.segments == CLSCAN_SEGMENTS_HEAD_FLAGS;
  const char *what = flags ? "flags" : "keys";
  clscan_type type = flags ? CLSCAN_UINT8 : r->desc.key_type;
  if (!read_elements(r, r->segments_path, what, type, s))
    return 0;
  // Text flags are 0 or 1; binary flags are bytes, and any non-zero byte starts a segment.
  for (size_t i = 0; flags && !r->binary && i < s->len; i++) {
    if (s->data[i] > 1) {
      cli_error("flags line %zu: '%u' is not 0 or 1", i + 1, (unsigned)s->data[i]);
      return 0;
    }
  }
  size_t count = s->len / clscan_type_size(type);
  if (count != n) {
    cli_error("%s '%s' holds %zu %s, the input %zu elements: one per element is needed", what,
              is_stdin(r->segments_path) ? "-" : r->segments_path, count, what, n);
    return 0;
  }
  return 1;
}

/* Reads the input, and the flags or keys, completely. */
static int scan_read(const scan_request *r, byte_buf *in, byte_buf *segments) {
  if (!read_elements(r, r->in_path, "input", r->desc.type, in))
    return 0;
  size_t n = in->len / clscan_type_size(r->desc.type);
  return r->desc.segments == CLSCAN_SEGMENTS_NONE || read_segments(r, n, segments);
}

/* Scans the input into out (n elements of the output type) on the selected device. */
static int scan_run(const scan_request *r, const byte_buf *in, const byte_buf *segments,
                    byte_buf *out) {
  size_t n = in->len / clscan_type_size(r->desc.type);
  size_t elem = clscan_type_size(cli_out_type(&r->desc));
  if (n > SIZE_MAX / elem || !(out->data = malloc(n ? n * elem : 1))) {
    cli_error("out of memory for %zu output elements", n);
    return 0;
  }
  out->len = out->cap = n * elem;
  clscan_context *ctx = NULL;
  if (!cli_open_context(r->device, &ctx))
    return 0;
  int ok = cli_scan_arrays(ctx, &r->desc, segments->data, in->data, out->data, n);
  clscan_context_release(ctx);
  return ok;
}

/* Writes the scanned elements and commits the output; drops it on failure. */
static int scan_write(cli_output *out, const scan_request *r, byte_buf *b) {
  clscan_type type = cli_out_type(&r->desc);
  size_t n = b->len / clscan_type_size(type);
  if (write_elements(out->f, r->binary, type, b->data, n))
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
  byte_buf in = {0}, segments = {0}, result = {0};
  cli_output out;
  int ok = scan_read(&r, &in, &segments) && cli_output_open(&out, r.out_path);
  if (ok) {
    ok = scan_run(&r, &in, &segments, &result);
    if (ok)
      ok = scan_write(&out, &r, &result);
    else
      cli_output_abort(&out);
  }
  free(in.data);
  free(segments.data);
  free(result.data);
  return ok ? CLI_EXIT_OK : CLI_EXIT_FAIL;
}
