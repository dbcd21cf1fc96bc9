/*
 * The clscan program's reading of CUB's sort figures: the `sort ...` lines that
 * tools/bench/cub_bench prints (tools/bench/README.md), so that `clscan bench --family sort --cub
 * FILE` can give each row's rate as a fraction of CUB's, both measured in the same device call.
 *
 * A sort line is "sort" followed by key=value fields: kind (keys or pairs), type, values (uint32
 * or none), dist, log2n, end_bit and verified (yes or WRONG), then, when verified, ms and
 * gkeys_per_s. Other lines (the header, scans, primitives, notes) are skipped. A sort line that
 * lacks a field or whose numbers do not parse makes the whole file refused, with its line number.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* The fields of one sort line, as text (NULL where absent). */
typedef struct sort_fields {
  const char *kind, *type, *values, *dist, *log2n, *verified, *ms;
} sort_fields;

/* The fields a sort line is read for, by name. */
static const struct {
  const char *name;
  size_t offset; /* of its pointer in sort_fields */
} field_names[] = {
    {"kind", offsetof(sort_fields, kind)},     {"type", offsetof(sort_fields, type)},
    {"values", offsetof(sort_fields, values)}, {"dist", offsetof(sort_fields, dist)},
    {"log2n", offsetof(sort_fields, log2n)},   {"verified", offsetof(sort_fields, verified)},
    {"ms", offsetof(sort_fields, ms)},
};

/* Points each known field of a line's key=value tokens at its value (the line is cut in place). */
static void split_fields(char *line, sort_fields *f) {
  memset(f, 0, sizeof *f);
  char *save = NULL;
  for (char *tok = strtok_r(line, " \t\r\n", &save); tok; tok = strtok_r(NULL, " \t\r\n", &save)) {
    char *eq = strchr(tok, '=');
    if (!eq)
      continue;
    *eq = '\0';
    for (size_t i = 0; i < sizeof field_names / sizeof field_names[0]; i++) {
      if (strcmp(tok, field_names[i].name) == 0)
        *(const char **)((char *)f + field_names[i].offset) = eq + 1;
    }
  }
}

/* Copies text into a fixed field; returns 0 if it does not fit or is empty. */
static int copy_text(char *dst, size_t cap, const char *text) {
  size_t len = strlen(text);
  if (len == 0 || len >= cap)
    return 0;
  memcpy(dst, text, len + 1);
  return 1;
}

/* Fills one row from a sort line's fields; returns 0 with a reason in *why if they are wrong. */
static int fill_row(const sort_fields *f, cli_cub_sort *row, const char **why) {
  *why = "a field of kind, type, values, dist, log2n and verified is missing";
  if (!f->kind || !f->type || !f->values || !f->dist || !f->log2n || !f->verified)
    return 0;
  *why = "kind is not keys or pairs, or values does not match it";
  int pairs = strcmp(f->kind, "pairs") == 0;
  if ((!pairs && strcmp(f->kind, "keys") != 0) || strcmp(f->values, pairs ? "uint32" : "none"))
    return 0;
  *why = "type or dist is empty or too long";
  if (!copy_text(row->type, sizeof row->type, f->type) ||
      !copy_text(row->dist, sizeof row->dist, f->dist))
    return 0;
  row->pairs = pairs;
  char *end;
  errno = 0;
  long log2n = strtol(f->log2n, &end, 10);
  *why = "log2n is not a whole number from 0 to 40";
  if (errno || *end || end == f->log2n || log2n < 0 || log2n > 40)
    return 0;
  row->log2n = (int)log2n;
  row->ms = 0;
  if (strcmp(f->verified, "yes") != 0)
    return 1; /* CUB's own check failed: a row with no time */
  *why = "a verified line's ms is missing or not a positive number";
  if (!f->ms)
    return 0;
  errno = 0;
  row->ms = strtod(f->ms, &end);
  return !errno && !*end && end != f->ms && row->ms > 0;
}

/* Appends a row; returns 0 when out of memory. */
static int append_row(cli_cub_sorts *c, const cli_cub_sort *row, size_t *cap) {
  if (c->count == *cap) {
    size_t grown = *cap ? 2 * *cap : 32;
    cli_cub_sort *rows = realloc(c->rows, grown * sizeof *rows);
    if (!rows)
      return 0;
    c->rows = rows;
    *cap = grown;
  }
  c->rows[c->count++] = *row;
  return 1;
}

/* Reads the sort lines of an open file; returns 0 after a message. */
static int read_lines(FILE *f, const char *path, cli_cub_sorts *c) {
  char *line = NULL;
  size_t line_cap = 0, number = 0, cap = 0;
  int ok = 1;
  while (ok && getline(&line, &line_cap, f) >= 0) {
    number++;
    if (strncmp(line, "sort ", 5) != 0)
      continue;
    sort_fields fields;
    cli_cub_sort row;
    const char *why;
    split_fields(line + 5, &fields);
    if (!fill_row(&fields, &row, &why)) {
      cli_error("--cub: %s:%zu: not a cub_bench sort line: %s", path, number, why);
      ok = 0;
    } else if (!append_row(c, &row, &cap)) {
      cli_error("--cub: out of memory reading %s", path);
      ok = 0;
    }
  }
  if (ok && ferror(f)) {
    cli_error("--cub: cannot read %s: %s", path, strerror(errno));
    ok = 0;
  }
  free(line);
  return ok;
}

int cli_cub_read(const char *path, cli_cub_sorts *c) {
  memset(c, 0, sizeof *c);
  FILE *f = fopen(path, "r");
  if (!f) {
    cli_error("--cub: cannot open %s: %s", path, strerror(errno));
    return 0;
  }
  int ok = read_lines(f, path, c);
  fclose(f);
  if (ok && c->count == 0) {
    cli_error("--cub: %s has no sort lines of tools/bench/cub_bench (run it with --only sort)",
              path);
    ok = 0;
  }
  if (!ok)
    cli_cub_free(c);
  return ok;
}

double cli_cub_sort_ms(const cli_cub_sorts *c, int pairs, const char *type, const char *dist,
                       int log2n) {
  double ms = 0;
  for (size_t i = 0; c && i < c->count; i++) {
    const cli_cub_sort *r = &c->rows[i];
    if (r->pairs == pairs && r->log2n == log2n && strcmp(r->type, type) == 0 &&
        strcmp(r->dist, dist) == 0)
      ms = r->ms; /* the last line of a kind counts */
  }
  return ms;
}

void cli_cub_free(cli_cub_sorts *c) {
  free(c->rows);
  c->rows = NULL;
  c->count = 0;
}
