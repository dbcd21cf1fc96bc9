/*
 * The clscan program's `scan` command: its options and the checks between them, reading the
 * input (and head flags or keys, and the --arg files) completely, scanning on the device
 * (cli_scan_arrays(), with or without segments; cli_args_scan_run() with extra arguments), and
 * writing the result through cli_output (which replaces a named output file only when everything
 * succeeded).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* ============================================================================================== */
/* The scan command: options                                                                      */
/* ============================================================================================== */

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
  OPT_OFFSETS,
  OPT_ROWS,
  OPT_COLUMNS,
  OPT_ARG,
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
                                          {"segment-offsets", 1, OPT_OFFSETS},
                                          {"rows", 1, OPT_ROWS},
                                          {"columns", 0, OPT_COLUMNS},
                                          {"arg", 1, OPT_ARG},
                                          {"device", 1, OPT_DEVICE},
                                          {NULL, 0, 0}};

/* The command whose options are parsed: "scan", or the one that reuses the parser. */
static const char *cmd_name(const cli_scan_request *r) {
  return r->command ? r->command : "scan";
}

/* Returns the name of an option by its id. */
static const char *scan_option_name(int id) {
  const cli_option *o = scan_options;
  while (o->name && o->id != id)
    o++;
  return o->name ? o->name : "?";
}

/* Applies an option whose value is a name (format, type, operator, algorithm, key type);
 * returns 0 if the name is not one of its values. */
static int scan_named_option(cli_scan_request *r, int id, const char *v) {
  switch (id) {
    case OPT_FORMAT:
      return cli_format_from_name(v, &r->binary);
    case OPT_TYPE:
      return cli_type_from_name(v, &r->desc.type);
    case OPT_OUT_TYPE:
      return cli_out_type_from_name(v, &r->desc.out_type);
    case OPT_OP:
      r->op_given = 1;
      return cli_op_from_name(v, &r->desc.op);
    case OPT_ALGORITHM:
      return cli_algorithm_from_name(v, &r->desc.algorithm);
    default:
      // Which key types the segments take is checked once they are known (scan_check_keys).
      r->key_type_given = 1;
      return cli_type_from_name(v, &r->desc.key_type);
  }
}

/* Applies --flags, --keys or --segment-offsets; they cannot be combined. */
static int scan_segments_option(cli_scan_request *r, int id, const char *v) {
  clscan_segments kind = id == OPT_FLAGS  ? CLSCAN_SEGMENTS_HEAD_FLAGS
                         : id == OPT_KEYS ? CLSCAN_SEGMENTS_KEYS
                                          : CLSCAN_SEGMENTS_OFFSETS;
  if (r->desc.segments != CLSCAN_SEGMENTS_NONE && r->desc.segments != kind) {
    cli_usage_error(cmd_name(r), "--flags, --keys and --segment-offsets cannot be combined");
    return 0;
  }
  r->desc.segments = kind;
  r->segments_path = v;
  return 1;
}

/* Applies one option's value; returns 0 after a usage error. */
static int scan_option(cli_scan_request *r, int id, const char *v) {
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
    case OPT_OFFSETS:
      return scan_segments_option(r, id, v);
    case OPT_ROWS: {
      unsigned long long rows;
      if (!cli_parse_count(cmd_name(r), "--rows", v, 1, SIZE_MAX, &rows))
        return 0;
      r->rows = (size_t)rows;
      return 1;
    }
    case OPT_COLUMNS:
      r->columns = 1;
      return 1;
    case OPT_ARG:
      return cli_parse_arg(cmd_name(r), v, &r->args);
    case OPT_DEVICE:
      r->device = v;
      return 1;
    default:
      break;
  }
  if (scan_named_option(r, id, v))
    return 1;
  if (id == OPT_KEY_TYPE)
    cli_usage_error(cmd_name(r), "--key-type: '%s' is not a type", v);
  else
    cli_usage_error(cmd_name(r), "--%s: unknown value '%s'", scan_option_name(id), v);
  return 0;
}

/* Parses a value of the output type given by option `name`; prints a usage error if it is not one.
 */
static int scan_value(const cli_scan_request *r, const char *name, const char *text, void *out) {
  char why[96];
  if (cli_parse_element(cli_out_type(&r->desc), text, out, why, sizeof why))
    return 1;
  cli_usage_error(cmd_name(r), "%s: '%s' %s", name, text, why);
  return 0;
}

/* Checks the operator options against each other and the output type. */
static int scan_check_op(cli_scan_request *r) {
  clscan_type out = cli_out_type(&r->desc);
  if (r->desc.op_source) {
    if (r->op_given) {
      cli_usage_error(cmd_name(r), "--op and --op-source cannot be combined");
      return 0;
    }
    if (!r->identity_text) {
      cli_usage_error(cmd_name(r), "--op-source needs --identity (the operator's identity, of %s)",
                      clscan_type_name(out));
      return 0;
    }
    r->desc.op = CLSCAN_USER_OP;
    r->desc.identity = r->identity;
    return scan_value(r, "--identity", r->identity_text, r->identity);
  }
  if (r->identity_text) {
    cli_usage_error(cmd_name(r), "--identity is only used with --op-source");
    return 0;
  }
  if (cli_type_is_float(out) && r->desc.op >= CLSCAN_AND) {
    cli_usage_error(cmd_name(r), "--op %s is not defined on %s", clscan_op_name(r->desc.op),
                    clscan_type_name(out));
    return 0;
  }
  return 1;
}

/* Returns 1 for standard input: no path or "-". */
static int is_stdin(const char *path) {
  return !path || strcmp(path, "-") == 0;
}

/* What the segments file holds, for messages. */
static const char *segments_name(const clscan_scan_desc *d) {
  return d->segments == CLSCAN_SEGMENTS_KEYS      ? "keys"
         : d->segments == CLSCAN_SEGMENTS_OFFSETS ? "offsets"
                                                  : "flags";
}

/* Checks --key-type against the segments: any type for --keys, int32, uint32, int64 or uint64
 * for --segment-offsets, nothing else. */
static int scan_check_keys(const cli_scan_request *r) {
  const clscan_segments s = r->desc.segments;
  const clscan_type t = r->desc.key_type;
  if (r->key_type_given && s != CLSCAN_SEGMENTS_KEYS && s != CLSCAN_SEGMENTS_OFFSETS) {
    cli_usage_error(cmd_name(r), "--key-type is only used with --keys or --segment-offsets");
    return 0;
  }
  if (s == CLSCAN_SEGMENTS_OFFSETS && (clscan_type_size(t) < 4 || cli_type_is_float(t))) {
    cli_usage_error(cmd_name(r), "--key-type %s: offsets are int32, uint32, int64 or uint64",
                    clscan_type_name(t));
    return 0;
  }
  return 1;
}

/* Checks --rows and --columns: a batched scan has no segments of its own. */
static int scan_check_batch(const cli_scan_request *r) {
  if (r->columns && !r->rows) {
    cli_usage_error(cmd_name(r), "--columns needs --rows");
    return 0;
  }
  if (r->rows && r->desc.segments != CLSCAN_SEGMENTS_NONE) {
    cli_usage_error(
        cmd_name(r), "--rows cannot be combined with --%s",
        r->desc.segments == CLSCAN_SEGMENTS_OFFSETS ? "segment-offsets" : segments_name(&r->desc));
    return 0;
  }
  return 1;
}

/* Checks --arg against the other options: a source reads the arguments, the scan runs on
 * device buffers (not with --rows or --segment-offsets), at most one file is standard input. */
static int scan_check_args(cli_scan_request *r) {
  if (!r->args.count)
    return 1;
  if (!r->desc.map_source && !r->desc.op_source) {
    cli_usage_error(cmd_name(r), "--arg needs --map-source or --op-source, which read it");
    return 0;
  }
  if (r->rows || r->desc.segments == CLSCAN_SEGMENTS_OFFSETS) {
    cli_usage_error(cmd_name(r), "--arg cannot be combined with --%s",
                    r->rows ? "rows" : "segment-offsets");
    return 0;
  }
  const int segments_stdin = r->desc.segments != CLSCAN_SEGMENTS_NONE && is_stdin(r->segments_path);
  if (is_stdin(r->in_path) + segments_stdin + cli_args_stdin_count(&r->args) > 1) {
    cli_usage_error(cmd_name(r),
                    "only one of IN, --flags, --keys and the --arg files can be "
                    "standard input");
    return 0;
  }
  cli_args_bind(&r->args, &r->desc.args, &r->desc.arg_count);
  return 1;
}

/* Checks what depends on several options: operator, initial value, segments, arguments. */
static int scan_check(cli_scan_request *r) {
  if (!scan_check_op(r))
    return 0;
  if (!scan_check_keys(r) || !scan_check_batch(r))
    return 0;
  if (r->desc.segments != CLSCAN_SEGMENTS_NONE && is_stdin(r->segments_path) &&
      is_stdin(r->in_path)) {
    cli_usage_error(cmd_name(r), "the input and the %s cannot both be standard input",
                    segments_name(&r->desc));
    return 0;
  }
  if (!scan_check_args(r))
    return 0;
  if (!r->init_text)
    return 1;
  r->desc.init = r->init;
  return scan_value(r, "--init", r->init_text, r->init);
}

int cli_scan_parse(int argc, char **argv, cli_scan_request *r) {
  cli_parser p;
  const char *v;
  int positional = 0;
  cli_parser_init(&p, cmd_name(r), argc, argv, scan_options);
  for (int id; (id = cli_next_option(&p, &v)) != CLI_OPT_END;) {
    if (id == CLI_OPT_ERROR)
      return CLI_EXIT_USAGE;
    if (id == CLI_OPT_HELP) {
      cli_print_usage(stdout, cmd_name(r));
      return CLI_EXIT_OK;
    }
    if (id == CLI_OPT_POSITIONAL) {
      if (positional == 2)
        return cli_usage_error(cmd_name(r), "unexpected argument '%s'", v);
      *(positional++ ? &r->out_path : &r->in_path) = v;
    } else if (!scan_option(r, id, v)) {
      return CLI_EXIT_USAGE;
    }
  }
  return scan_check(r) ? -1 : CLI_EXIT_USAGE;
}

/* ============================================================================================== */
/* Scans of host arrays                                                                           */
/* ============================================================================================== */

/* Prints a failed scan, with the build log when a program or a user source did not compile. */
static int scan_failed(clscan_context *ctx, const clscan_scan_desc *desc, clscan_status st,
                       size_t n) {
  cli_lib_error(st, "scan of %zu %s elements failed", n, clscan_type_name(desc->type));
  if (st == CLSCAN_BUILD_FAILED || st == CLSCAN_USER_SOURCE_INVALID)
    cli_print_build_log(ctx);
  return 0;
}

int cli_scan_arrays(clscan_context *ctx, const clscan_scan_desc *desc, const void *segments,
                    const void *in, void *out, size_t n) {
  clscan_status st = desc->segments != CLSCAN_SEGMENTS_NONE
                         ? clscan_segmented_scan_host(ctx, desc, segments, in, out, n)
                         : clscan_scan_host(ctx, desc, in, out, n);
  return st == CLSCAN_SUCCESS || scan_failed(ctx, desc, st, n);
}

/* ============================================================================================== */
/* The scan command: running                                                                      */
/* ============================================================================================== */

/* Checks that offsets end at the input's length n. */
static int check_offsets_count(const cli_scan_request *r, const cli_byte_buf *s, size_t count,
                               size_t n) {
  const char *name = is_stdin(r->segments_path) ? "-" : r->segments_path;
  if (count == 0) {
    cli_error("offsets '%s' are empty: n_segments + 1 offsets, from 0 to n, are needed", name);
    return 0;
  }
  uint64_t last = 0;
  const size_t size = clscan_type_size(r->desc.key_type);
  memcpy(&last, s->data + (count - 1) * size, size);
  if (last != n) {
    cli_error("offsets '%s' end at %llu, the input has %zu elements: the last offset is n", name,
              (unsigned long long)last, n);
    return 0;
  }
  return 1;
}

/* Reads the head flags, keys or offsets into s and checks them against the n input elements:
 * one flag or key per element; n_segments + 1 offsets, the last one n (the library checks the
 * others). */
static int read_segments(const cli_scan_request *r, size_t n, cli_byte_buf *s) {
  int flags = r->desc.segments == CLSCAN_SEGMENTS_HEAD_FLAGS;
  const char *what = segments_name(&r->desc);
  clscan_type type = flags ? CLSCAN_UINT8 : r->desc.key_type;
  if (!cli_read_element_file(r->binary, r->segments_path, what, type, s))
    return 0;
  // Text flags are 0 or 1; binary flags are bytes, and any non-zero byte starts a segment.
  for (size_t i = 0; flags && !r->binary && i < s->len; i++) {
    if (s->data[i] > 1) {
      cli_error("flags line %zu: '%u' is not 0 or 1", i + 1, (unsigned)s->data[i]);
      return 0;
    }
  }
  size_t count = s->len / clscan_type_size(type);
  if (r->desc.segments == CLSCAN_SEGMENTS_OFFSETS)
    return check_offsets_count(r, s, count, n);
  if (count != n) {
    cli_error("%s '%s' holds %zu %s, the input %zu elements: one per element is needed", what,
              is_stdin(r->segments_path) ? "-" : r->segments_path, count, what, n);
    return 0;
  }
  return 1;
}

/* Reads the input, the flags or keys, and the arguments' files completely. */
static int scan_read(const cli_scan_request *r, cli_byte_buf *in, cli_byte_buf *segments,
                     cli_byte_buf *files) {
  if (!cli_read_element_file(r->binary, r->in_path, "input", r->desc.type, in))
    return 0;
  size_t n = in->len / clscan_type_size(r->desc.type);
  if (r->desc.segments != CLSCAN_SEGMENTS_NONE && !read_segments(r, n, segments))
    return 0;
  return cli_args_read(&r->args, r->binary, n, files);
}

/* Scans through the call the options ask for: with arguments, batched rows or columns, offsets,
 * or cli_scan_arrays(). */
static int scan_dispatch(clscan_context *ctx, const cli_scan_request *r,
                         const cli_byte_buf *segments, const cli_byte_buf *files, const void *in,
                         void *out, size_t n) {
  clscan_status st = CLSCAN_SUCCESS;
  if (r->args.count) {
    const cli_args_scan s = {.desc = &r->desc,
                             .args = &r->args,
                             .files = files,
                             .in = in,
                             .segments = segments->data,
                             .out = out,
                             .n = n};
    return cli_args_scan_run(ctx, &s);
  }
  if (r->rows) {
    if (n % r->rows != 0) {
      cli_error("--rows %zu: the input's %zu elements are not whole rows", r->rows, n);
      return 0;
    }
    const clscan_batch b = {.rows = r->rows,
                            .row_length = n / r->rows,
                            .axis = r->columns ? CLSCAN_BATCH_COLUMNS : CLSCAN_BATCH_ROWS};
    st = clscan_scan_batched_host(ctx, &r->desc, &b, in, out);
  } else if (r->desc.segments == CLSCAN_SEGMENTS_OFFSETS) {
    const size_t count = segments->len / clscan_type_size(r->desc.key_type);
    st = clscan_segmented_scan_offsets_host(ctx, &r->desc, segments->data, count - 1, in, out);
  } else {
    return cli_scan_arrays(ctx, &r->desc, segments->data, in, out, n);
  }
  return st == CLSCAN_SUCCESS || scan_failed(ctx, &r->desc, st, n);
}

/* Scans the input into out (n elements of the output type) on the selected device. */
static int scan_run(const cli_scan_request *r, const cli_byte_buf *in, const cli_byte_buf *segments,
                    const cli_byte_buf *files, cli_byte_buf *out) {
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
  int ok = scan_dispatch(ctx, r, segments, files, in->data, out->data, n);
  clscan_context_release(ctx);
  return ok;
}

/* Writes the scanned elements and commits the output; drops it on failure. */
static int scan_write(cli_output *out, const cli_scan_request *r, cli_byte_buf *b) {
  clscan_type type = cli_out_type(&r->desc);
  size_t n = b->len / clscan_type_size(type);
  if (cli_write_elements(out->f, r->binary, type, b->data, n))
    return cli_output_commit(out);
  cli_error("cannot write %s: %s", out->name, strerror(errno));
  cli_output_abort(out);
  return 0;
}

int cli_cmd_scan(int argc, char **argv) {
  cli_scan_request r = {.desc = {.type = CLSCAN_INT32, .op = CLSCAN_ADD}};
  int status = cli_scan_parse(argc, argv, &r);
  if (status >= 0)
    return status;

  // Input is read and scanned completely before the output is committed.
  cli_byte_buf in = {0}, segments = {0}, result = {0}, files[CLSCAN_MAX_ARGS] = {{0}};
  cli_output out;
  int ok = scan_read(&r, &in, &segments, files) && cli_output_open(&out, r.out_path);
  if (ok) {
    ok = scan_run(&r, &in, &segments, files, &result);
    if (ok)
      ok = scan_write(&out, &r, &result);
    else
      cli_output_abort(&out);
  }
  free(in.data);
  free(segments.data);
  free(result.data);
  cli_args_free_files(&r.args, files);
  return ok ? CLI_EXIT_OK : CLI_EXIT_FAIL;
}
