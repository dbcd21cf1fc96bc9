/*
 * The clscan program's `reduce` command: the scan command's options (parsed by cli_scan_parse())
 * without the ones a reduction has no use for (--exclusive, --flags, --keys, --key-type,
 * --algorithm), the same input conventions, and one element of the output type written through
 * cli_output (which replaces a named output file only when everything succeeded).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* Rejects the scan options that a reduction does not take. */
static int reduce_check(const cli_scan_request *r) {
  const char *bad = r->desc.exclusive                                ? "--exclusive"
                    : r->desc.segments == CLSCAN_SEGMENTS_KEYS       ? "--keys"
                    : r->desc.segments == CLSCAN_SEGMENTS_HEAD_FLAGS ? "--flags"
                    : r->desc.segments == CLSCAN_SEGMENTS_OFFSETS    ? "--segment-offsets"
                    : r->rows                                        ? "--rows"
                    : r->key_type_given                              ? "--key-type"
                    : r->desc.algorithm != CLSCAN_ALGO_AUTO          ? "--algorithm"
                                                                     : NULL;
  if (!bad)
    return 1;
  cli_usage_error("reduce", "%s is a scan option; reduce does not take it", bad);
  return 0;
}

/* Reduces the input on the selected device into result (one element of the output type); with
 * arguments, their files are `files`. */
static int reduce_run(const cli_scan_request *r, const cli_byte_buf *in, const cli_byte_buf *files,
                      void *result) {
  size_t n = in->len / clscan_type_size(r->desc.type);
  clscan_context *ctx = NULL;
  if (!cli_open_context(r->device, &ctx))
    return 0;
  if (r->args.count) {
    const cli_args_scan s = {.desc = &r->desc,
                             .args = &r->args,
                             .files = files,
                             .in = in->data,
                             .out = result,
                             .n = n,
                             .reduce = 1};
    int ok = cli_args_scan_run(ctx, &s);
    clscan_context_release(ctx);
    return ok;
  }
  // An empty input has no bytes; the library still wants an array.
  static const unsigned char none[1];
  clscan_status st = clscan_reduce_host(ctx, &r->desc, n ? in->data : none, n, result);
  if (st != CLSCAN_SUCCESS) {
    cli_lib_error(st, "reduction of %zu %s elements failed", n, clscan_type_name(r->desc.type));
    if (st == CLSCAN_BUILD_FAILED || st == CLSCAN_USER_SOURCE_INVALID)
      cli_print_build_log(ctx);
  }
  clscan_context_release(ctx);
  return st == CLSCAN_SUCCESS;
}

/* Writes the result and commits the output; drops it on failure. */
static int reduce_write(cli_output *out, const cli_scan_request *r, unsigned char *result) {
  if (cli_write_elements(out->f, r->binary, cli_out_type(&r->desc), result, 1))
    return cli_output_commit(out);
  cli_error("cannot write %s: %s", out->name, strerror(errno));
  cli_output_abort(out);
  return 0;
}

int cli_cmd_reduce(int argc, char **argv) {
  cli_scan_request r = {.desc = {.type = CLSCAN_INT32, .op = CLSCAN_ADD}, .command = "reduce"};
  int status = cli_scan_parse(argc, argv, &r);
  if (status >= 0)
    return status;
  if (!reduce_check(&r))
    return CLI_EXIT_USAGE;

  // The input is read and reduced completely before the output is committed.
  cli_byte_buf in = {0}, files[CLSCAN_MAX_ARGS] = {{0}};
  _Alignas(16) unsigned char result[16];
  cli_output out;
  int ok = cli_read_element_file(r.binary, r.in_path, "input", r.desc.type, &in) &&
           cli_args_read(&r.args, r.binary, in.len / clscan_type_size(r.desc.type), files) &&
           cli_output_open(&out, r.out_path);
  if (ok) {
    ok = reduce_run(&r, &in, files, result);
    if (ok)
      ok = reduce_write(&out, &r, result);
    else
      cli_output_abort(&out);
  }
  free(in.data);
  cli_args_free_files(&r.args, files);
  return ok ? CLI_EXIT_OK : CLI_EXIT_FAIL;
}
