/*
 * The clscan program's extra arguments of user sources (--arg NAME=KIND:TYPE:VALUE, the library's
 * clscan_arg): parsing each option into a descriptor's argument list, reading the files of buffer
 * and table arguments in the command's format and checking their lengths, making device buffers
 * and values of them, and the scans and reductions with arguments, which run on device buffers
 * (the library's host calls take no argument values).
 */
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* ============================================================================================== */
/* Parsing --arg                                                                                  */
/* ============================================================================================== */

/* Copies the name before '=' into spec->name; prints a usage error if it is not an identifier. */
static int arg_name(const char *command, const char *text, size_t len, cli_arg_spec *spec) {
  int ident = len > 0 && (isalpha((unsigned char)text[0]) || text[0] == '_');
  for (size_t k = 1; ident && k < len; k++)
    ident = isalnum((unsigned char)text[k]) || text[k] == '_';
  if (!ident || len >= sizeof spec->name) {
    cli_usage_error(command,
                    "--arg '%s': the name before '=' must be an OpenCL C identifier of at most "
                    "%zu characters",
                    text, sizeof spec->name - 1);
    return 0;
  }
  memcpy(spec->name, text, len);
  spec->name[len] = '\0';
  return 1;
}

/* Parses KIND (buffer, table or scalar) of length len; prints a usage error if it is none. */
static int arg_kind(const char *command, const char *text, const char *kind, size_t len,
                    cli_arg_spec *spec) {
  static const char *const kinds[] = {"buffer", "table", "scalar"};
  for (int k = 0; k < 3; k++) {
    if (strlen(kinds[k]) == len && strncmp(kinds[k], kind, len) == 0) {
      spec->kind = (cli_arg_kind)k;
      return 1;
    }
  }
  cli_usage_error(command, "--arg '%s': the kind '%.*s' is not buffer, table or scalar", text,
                  (int)len, kind);
  return 0;
}

/* Parses TYPE (a type name of length len); prints a usage error if it is not one. */
static int arg_type(const char *command, const char *text, const char *type, size_t len,
                    clscan_type *out) {
  char name[16];
  if (len < sizeof name) {
    memcpy(name, type, len);
    name[len] = '\0';
    if (cli_type_from_name(name, out))
      return 1;
  }
  cli_usage_error(command, "--arg '%s': '%.*s' is not a type", text, (int)len, type);
  return 0;
}

/* Parses VALUE: a scalar of the argument's type, or a buffer's or table's file name. */
static int arg_value(const char *command, const char *text, const char *value, cli_arg_spec *spec) {
  if (!*value) {
    cli_usage_error(command, "--arg '%s': no %s after the type", text,
                    spec->kind == CLI_ARG_SCALAR ? "value" : "file");
    return 0;
  }
  if (spec->kind != CLI_ARG_SCALAR) {
    spec->path = value;
    return 1;
  }
  char why[96];
  if (cli_parse_element(spec->arg.type, value, spec->scalar, why, sizeof why))
    return 1;
  cli_usage_error(command, "--arg '%s': '%s' %s", text, value, why);
  return 0;
}

/* Returns 1 if a list already has an argument of that name. */
static int arg_named(const cli_arg_list *list, const char *name) {
  for (size_t k = 0; k < list->count; k++) {
    if (strcmp(list->specs[k].name, name) == 0)
      return 1;
  }
  return 0;
}

int cli_parse_arg(const char *command, const char *text, cli_arg_list *list) {
  if (list->count == CLSCAN_MAX_ARGS) {
    cli_usage_error(command, "--arg '%s': at most %d arguments", text, CLSCAN_MAX_ARGS);
    return 0;
  }
  const char *eq = strchr(text, '=');
  const char *colon = eq ? strchr(eq + 1, ':') : NULL;
  const char *colon2 = colon ? strchr(colon + 1, ':') : NULL;
  if (!colon2) {
    cli_usage_error(command,
                    "--arg '%s': expected NAME=buffer:TYPE:FILE, NAME=table:TYPE:FILE or "
                    "NAME=scalar:TYPE:VALUE",
                    text);
    return 0;
  }
  cli_arg_spec spec = {0};
  if (!arg_name(command, text, (size_t)(eq - text), &spec) ||
      !arg_kind(command, text, eq + 1, (size_t)(colon - eq - 1), &spec) ||
      !arg_type(command, text, colon + 1, (size_t)(colon2 - colon - 1), &spec.arg.type) ||
      !arg_value(command, text, colon2 + 1, &spec))
    return 0;
  if (arg_named(list, spec.name)) {
    cli_usage_error(command, "--arg '%s': an argument named '%s' is already given", text,
                    spec.name);
    return 0;
  }
  list->specs[list->count++] = spec;
  return 1;
}

void cli_args_bind(cli_arg_list *list, const clscan_arg **args, size_t *arg_count) {
  for (size_t k = 0; k < list->count; k++) {
    cli_arg_spec *s = &list->specs[k];
    s->arg.name = s->name;
    s->arg.kind = s->kind == CLI_ARG_SCALAR ? CLSCAN_ARG_SCALAR : CLSCAN_ARG_BUFFER;
    s->arg.access = CLSCAN_ARG_READ;
    list->args[k] = s->arg;
  }
  *args = list->count ? list->args : NULL;
  *arg_count = list->count;
}

int cli_args_stdin_count(const cli_arg_list *list) {
  int count = 0;
  for (size_t k = 0; k < list->count; k++)
    count += list->specs[k].path && strcmp(list->specs[k].path, "-") == 0;
  return count;
}

/* ============================================================================================== */
/* Reading the files                                                                              */
/* ============================================================================================== */

/* Reads one buffer's or table's file and checks its length against the n input elements. */
static int read_arg_file(const cli_arg_spec *s, int binary, size_t n, cli_byte_buf *b) {
  char what[96];
  snprintf(what, sizeof what, "argument %s", s->name);
  if (!cli_read_element_file(binary, s->path, what, s->arg.type, b))
    return 0;
  const size_t count = b->len / clscan_type_size(s->arg.type);
  const char *name = strcmp(s->path, "-") == 0 ? "standard input" : s->path;
  if (s->kind == CLI_ARG_BUFFER && count < n) {
    cli_error(
        "argument %s ('%s') holds %zu %s elements, the input %zu: a buffer needs one per "
        "input element (a table may have any length)",
        s->name, name, count, clscan_type_name(s->arg.type), n);
    return 0;
  }
  if (s->kind == CLI_ARG_TABLE && count == 0) {
    cli_error("argument %s ('%s') is empty: a table needs at least one element", s->name, name);
    return 0;
  }
  return 1;
}

int cli_args_read(const cli_arg_list *list, int binary, size_t n, cli_byte_buf files[]) {
  for (size_t k = 0; k < list->count; k++) {
    if (list->specs[k].path && !read_arg_file(&list->specs[k], binary, n, &files[k]))
      return 0;
  }
  return 1;
}

void cli_args_free_files(const cli_arg_list *list, cli_byte_buf files[]) {
  for (size_t k = 0; k < list->count; k++) {
    free(files[k].data);
    files[k] = (cli_byte_buf){0};
  }
}

/* ============================================================================================== */
/* Device values                                                                                  */
/* ============================================================================================== */

int cli_args_values(clscan_context *ctx, const cli_arg_list *list, const cli_byte_buf files[],
                    cl_mem mems[], clscan_arg_value values[]) {
  for (size_t k = 0; k < list->count; k++) {
    const cli_arg_spec *s = &list->specs[k];
    mems[k] = NULL;
    if (!s->path) {
      values[k] = (clscan_arg_value){.scalar = s->scalar};
      continue;
    }
    // An empty buffer (of an empty input) still needs a device buffer; nothing reads it.
    const size_t elem = clscan_type_size(s->arg.type);
    unsigned char none[8] = {0};
    void *host = files[k].len ? files[k].data : none;
    mems[k] = cli_new_buffer(ctx, files[k].len ? files[k].len : elem, host, s->name);
    if (!mems[k]) {
      cli_args_release(list, mems);
      return 0;
    }
    // The sources may read every element the file holds (length 0, for none, means n = 0).
    values[k] = (clscan_arg_value){.buffer = mems[k], .length = files[k].len / elem};
  }
  return 1;
}

void cli_args_release(const cli_arg_list *list, cl_mem mems[]) {
  for (size_t k = 0; k < list->count; k++) {
    if (mems[k])
      clReleaseMemObject(mems[k]);
    mems[k] = NULL;
  }
}

/* ============================================================================================== */
/* Scans and reductions with arguments                                                            */
/* ============================================================================================== */

/* The device buffers of a scan with arguments. */
typedef struct args_scan_buffers {
  cl_mem in, out, segments, args[CLSCAN_MAX_ARGS];
} args_scan_buffers;

/* Creates the input, output and segment buffers of n elements (at least one byte each). */
static int scan_buffers(clscan_context *ctx, const cli_args_scan *s, args_scan_buffers *b) {
  const clscan_scan_desc *d = s->desc;
  const size_t in_bytes = s->n * clscan_type_size(d->type);
  const size_t out_bytes = (s->reduce ? 1 : s->n) * clscan_type_size(cli_out_type(d));
  const size_t seg_bytes = s->n * cli_segment_size(d);
  unsigned char none[8] = {0};
  b->in = cli_new_buffer(ctx, in_bytes ? in_bytes : 1, in_bytes ? (void *)s->in : none, "input");
  b->out = b->in ? cli_new_buffer(ctx, out_bytes ? out_bytes : 1, NULL, "output") : NULL;
  if (b->out && seg_bytes)
    b->segments = cli_new_buffer(ctx, seg_bytes, (void *)s->segments, "segments");
  return b->out && (!seg_bytes || b->segments);
}

/* Releases what scan_buffers() and cli_args_values() created. */
static void scan_buffers_release(const cli_arg_list *list, args_scan_buffers *b) {
  cl_mem all[] = {b->in, b->out, b->segments};
  for (size_t k = 0; k < 3; k++) {
    if (all[k])
      clReleaseMemObject(all[k]);
  }
  cli_args_release(list, b->args);
}

/* Enqueues the scan or reduction on the context's queue and reads the result back; prints a
 * failure and returns 0 if either fails. */
static int scan_enqueue(clscan_context *ctx, clscan_plan *plan, const cli_args_scan *s,
                        args_scan_buffers *b, const clscan_arg_value *values) {
  const clscan_run_args run = {
      .values = values, .value_count = s->args->count, .segments = b->segments};
  clscan_status st = s->reduce ? clscan_plan_enqueue_reduce_args(plan, NULL, b->in, 0, b->out, 0,
                                                                 s->n, &run, 0, NULL, NULL)
                               : clscan_plan_enqueue_args(plan, NULL, b->in, 0, b->out, 0, s->n,
                                                          &run, 0, NULL, NULL, NULL);
  if (st != CLSCAN_SUCCESS) {
    cli_lib_error(st, "%s of %zu %s elements failed", s->reduce ? "reduction" : "scan", s->n,
                  clscan_type_name(s->desc->type));
    return 0;
  }
  const size_t out_bytes = (s->reduce ? 1 : s->n) * clscan_type_size(cli_out_type(s->desc));
  cl_int err = out_bytes == 0 ? CL_SUCCESS
                              : clEnqueueReadBuffer(clscan_context_queue(ctx), b->out, CL_TRUE, 0,
                                                    out_bytes, s->out, 0, NULL, NULL);
  if (err != CL_SUCCESS) {
    cli_error("cannot read the result back: clEnqueueReadBuffer returned %d", (int)err);
    return 0;
  }
  return 1;
}

int cli_args_scan_run(clscan_context *ctx, const cli_args_scan *s) {
  const char *what = s->reduce ? "reduction" : "scan";
  clscan_plan *plan = NULL;
  clscan_status st = clscan_plan_create(ctx, s->desc, &plan);
  if (st != CLSCAN_SUCCESS) {
    cli_lib_error(st, "the %s's plan failed", what);
    if (st == CLSCAN_BUILD_FAILED || st == CLSCAN_USER_SOURCE_INVALID)
      cli_print_build_log(ctx);
    return 0;
  }
  args_scan_buffers b = {0};
  clscan_arg_value values[CLSCAN_MAX_ARGS];
  int ok = scan_buffers(ctx, s, &b) && cli_args_values(ctx, s->args, s->files, b.args, values);
  ok = ok && scan_enqueue(ctx, plan, s, &b, values);
  scan_buffers_release(s->args, &b);
  clscan_plan_release(plan);
  return ok;
}
