/*
 * The clscan program's view of the library's tuning, in one place: the defaults a plan would get
 * (clscan_context_default_tuning), the tuning environment variables a sweep must not inherit, and
 * the one function that prints a tuning as a row of the table in src/tuning.c. Plans with explicit
 * tuning are created with clscan_plan_create_tuned() by their callers (bench and tune).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* The environment variables that fill the tuning fields a caller leaves zero (docs/tuning.md). */
static const char *const tuning_vars[] = {"CLSCAN_SEED_WG", "CLSCAN_TILE_WG", "CLSCAN_TILE_VPT",
                                          "CLSCAN_CPU_TILE", "CLSCAN_SINGLE_PASS_CPU"};

int cli_default_tuning(const clscan_context *ctx, const clscan_scan_desc *desc, clscan_tuning *t) {
  clscan_status st = clscan_context_default_tuning(ctx, desc, t);
  if (st == CLSCAN_SUCCESS)
    return 1;
  memset(t, 0, sizeof *t);
  cli_lib_error(st, "cannot read the library's default tuning");
  return 0;
}

void cli_tuning_drop_inherited(void) {
  for (size_t i = 0; i < sizeof tuning_vars / sizeof tuning_vars[0]; i++) {
    const char *v = getenv(tuning_vars[i]);
    if (v)
      printf("note: ignoring %s=%s from the environment during the sweep\n", tuning_vars[i], v);
    unsetenv(tuning_vars[i]);
  }
}

void cli_describe_tuning(const clscan_tuning *t, char *buf, size_t cap) {
  static const char *const shapes[] = {"default", "gpu", "cpu"};
  const struct {
    const char *name;
    unsigned value;
  } fields[] = {{"seed_wg", t->seed_wg},
                {"tile_wg", t->tile_wg},
                {"tile_vpt", t->tile_vpt},
                {"rts_groups_per_cu", t->rts_groups_per_cu},
                {"cpu_tile", t->cpu_tile}};
  size_t len = 0;
  buf[0] = '\0';
  for (size_t i = 0; i < sizeof fields / sizeof fields[0] && len < cap; i++) {
    if (fields[i].value)
      len += (size_t)snprintf(buf + len, cap - len, "%s%s=%u", len ? " " : "", fields[i].name,
                              fields[i].value);
  }
  unsigned shape = (unsigned)t->single_pass_shape;
  if (shape != CLSCAN_SHAPE_DEFAULT && len < cap)
    len += (size_t)snprintf(buf + len, cap - len, "%sshape=%s", len ? " " : "",
                            shape < 3 ? shapes[shape] : "?");
  if (len == 0)
    snprintf(buf, cap, "the table's values");
}

/* Writes text as the inside of a C string literal. */
static void c_string(FILE *f, const char *text) {
  for (const char *p = text; *p; p++) {
    if (*p == '"' || *p == '\\')
      fputc('\\', f);
    fputc(*p, f);
  }
}

/* Formats the `.t = {...}` part of a row on one line. The CPU tile and the CPU shape appear only
 * where the CPU-shaped single pass runs: the GPU-shaped kernels do not use them. */
static void format_params(const clscan_tuning *t, char *buf, size_t cap) {
  int len = snprintf(buf, cap,
                     ".t = {.seed_wg = %u, .tile_wg = %u, .tile_vpt = %u, "
                     ".rts_groups_per_cu = %u",
                     t->seed_wg, t->tile_wg, t->tile_vpt, t->rts_groups_per_cu);
  if (t->single_pass_shape == CLSCAN_SHAPE_CPU && len > 0 && (size_t)len < cap)
    len += snprintf(buf + len, cap - (size_t)len, ", .cpu_tile = %u, .single_pass_cpu = 1",
                    t->cpu_tile);
  if (len > 0 && (size_t)len < cap)
    snprintf(buf + len, cap - (size_t)len, "}},");
}

void cli_print_tuning_row(FILE *f, const cli_tuning_row *row) {
  fputs("    {.vendor = \"", f);
  c_string(f, row->vendor);
  fputs("\",\n     .device = \"", f);
  c_string(f, row->device);
  fputs("\",\n", f);
  if (row->elem_bytes)
    fprintf(f, "     .elem_bytes = %u,\n", row->elem_bytes);
  if (row->in_bytes)
    fprintf(f, "     .in_bytes = %u,\n", row->in_bytes);
  if (row->segmented)
    fputs("     .segmented = 1,\n", f);
  if (row->packed)
    fputs("     .packed = 1,\n", f);
  if (row->floating)
    fputs("     .floating = 1,\n", f);
  char params[256];
  format_params(&row->t, params, sizeof params);
  // The table's lines end by column 100 (.clang-format): a longer `.t` takes a field a line, in
  // the layout clang-format gives it.
  if (5 + strlen(params) <= 100) {
    fprintf(f, "     %s\n", params);
    return;
  }
  fputs("     .t = {", f);
  for (const char *p = params + strlen(".t = {"); *p; p++) {
    fputc(*p, f);
    if (*p == ',' && p[1] == ' ' && p[2] == '.') {
      fputs("\n           ", f);
      p++; /* the space after the comma becomes the indentation */
    }
  }
  fputc('\n', f);
}
