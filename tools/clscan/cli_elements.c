/*
 * The clscan program's element files: text (one element a line, each parsed strictly, with the
 * line number in every message) or binary (raw little-endian elements), read completely into a
 * growing buffer, and written back in either form.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "cli.h"

/* ============================================================================================== */
/* Reading input                                                                                  */
/* ============================================================================================== */

/* Appends bytes; returns 0 when memory runs out. */
static int buf_append(cli_byte_buf *b, const void *bytes, size_t len) {
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
                     cli_byte_buf *b) {
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

int cli_read_text(FILE *f, const char *name, const char *what, clscan_type type, cli_byte_buf *b) {
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

int cli_read_binary(FILE *f, const char *name, clscan_type type, cli_byte_buf *b) {
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

void cli_swap_to_little_endian(unsigned char *data, size_t bytes, size_t elem) {
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

int cli_write_elements(FILE *f, int binary, clscan_type type, unsigned char *data, size_t n) {
  size_t e = clscan_type_size(type);
  if (binary) {
    cli_swap_to_little_endian(data, n * e, e);
    return fwrite(data, e, n, f) == n;
  }
  char text[64];
  for (size_t i = 0; i < n; i++) {
    cli_format_element(type, data + i * e, text, sizeof text);
    if (fputs(text, f) == EOF || fputc('\n', f) == EOF)
      return 0;
  }
  return 1;
}

int cli_read_element_file(int binary, const char *path, const char *what, clscan_type type,
                          cli_byte_buf *b) {
  const int from_stdin = !path || strcmp(path, "-") == 0;
  const char *name = from_stdin ? "standard input" : path;
  FILE *f = from_stdin ? stdin : fopen(path, "rb");
  if (!f) {
    cli_error("cannot open %s '%s': %s", what, path, strerror(errno));
    return 0;
  }
  int ok = binary ? cli_read_binary(f, name, type, b) : cli_read_text(f, name, what, type, b);
  if (!from_stdin)
    fclose(f);
  if (ok && binary)
    cli_swap_to_little_endian(b->data, b->len, clscan_type_size(type));
  return ok;
}
