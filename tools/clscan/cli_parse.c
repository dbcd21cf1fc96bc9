/*
 * The clscan program's command-line parsing: the long-option parser every command uses, counts,
 * the lookup of types, operators, algorithms and key types by name, comma-separated lists, and
 * the descriptor facts the commands share (output type, segment entry size).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* ============================================================================================== */
/* Option parsing                                                                                 */
/* ============================================================================================== */

void cli_parser_init(cli_parser *p, const char *command, int argc, char **argv,
                     const cli_option *options) {
  p->argc = argc;
  p->argv = argv;
  p->next = 1;
  p->only_positional = 0;
  p->command = command;
  p->options = options;
}

/* Finds a long option by the name between "--" and an optional "=". */
static const cli_option *find_option(const cli_option *options, const char *name, size_t len) {
  for (const cli_option *o = options; o->name; o++) {
    if (strlen(o->name) == len && strncmp(o->name, name, len) == 0)
      return o;
  }
  return NULL;
}

/* Handles "--name[=value]" once the option is known: fetches or rejects its value. */
static int option_value(cli_parser *p, const cli_option *o, const char *eq, const char **value) {
  *value = NULL;
  if (!o->takes_value) {
    if (!eq)
      return o->id;
    cli_usage_error(p->command, "option '--%s' takes no value", o->name);
    return CLI_OPT_ERROR;
  }
  if (eq) {
    *value = eq + 1;
  } else if (p->next < p->argc) {
    *value = p->argv[p->next++];
  } else {
    cli_usage_error(p->command, "option '--%s' needs a value", o->name);
    return CLI_OPT_ERROR;
  }
  if (!**value) {
    cli_usage_error(p->command, "option '--%s' needs a non-empty value", o->name);
    return CLI_OPT_ERROR;
  }
  return o->id;
}

int cli_next_option(cli_parser *p, const char **value) {
  *value = NULL;
  if (p->next >= p->argc)
    return CLI_OPT_END;
  const char *arg = p->argv[p->next++];

  // Plain words, "-" (standard input or output) and everything after "--" are positional.
  if (!p->only_positional && strcmp(arg, "--") == 0) {
    p->only_positional = 1;
    return cli_next_option(p, value);
  }
  if (p->only_positional || arg[0] != '-' || arg[1] == '\0') {
    *value = arg;
    return CLI_OPT_POSITIONAL;
  }
  if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0)
    return CLI_OPT_HELP;

  // Long options only: "--name", "--name=value" or "--name value".
  const cli_option *o = NULL;
  const char *eq = NULL;
  if (arg[1] == '-') {
    eq = strchr(arg + 2, '=');
    o = find_option(p->options, arg + 2, eq ? (size_t)(eq - arg - 2) : strlen(arg + 2));
  }
  if (!o) {
    cli_usage_error(p->command, "unknown option '%s'", arg);
    return CLI_OPT_ERROR;
  }
  return option_value(p, o, eq, value);
}

int cli_parse_count(const char *command, const char *option, const char *text,
                    unsigned long long min, unsigned long long max, unsigned long long *out) {
  char *end = NULL;
  errno = 0;
  unsigned long long v = strtoull(text, &end, 10);
  // Digits only: strtoull would accept a sign and leading spaces.
  int digits = text[0] >= '0' && text[0] <= '9';
  if (!digits || errno != 0 || *end != '\0' || v < min || v > max) {
    cli_usage_error(command, "%s: '%s' is not an integer in [%llu, %llu]", option, text, min, max);
    return 0;
  }
  *out = v;
  return 1;
}

/* ============================================================================================== */
/* Names and lists                                                                                */
/* ============================================================================================== */

int cli_type_from_name(const char *name, clscan_type *out) {
  for (int t = 0; t < CLSCAN_TYPE_COUNT; t++) {
    if (strcmp(clscan_type_name((clscan_type)t), name) == 0)
      return *out = (clscan_type)t, 1;
  }
  return 0;
}

int cli_out_type_from_name(const char *name, clscan_out_type *out) {
  clscan_type t;
  if (!cli_type_from_name(name, &t))
    return 0;
  *out = CLSCAN_OUT_TYPE(t);
  return 1;
}

int cli_format_from_name(const char *name, int *binary) {
  *binary = strcmp(name, "binary") == 0;
  return *binary || strcmp(name, "text") == 0;
}

int cli_op_from_name(const char *name, clscan_op *out) {
  for (int o = 0; o < CLSCAN_OP_COUNT; o++) {
    if (strcmp(clscan_op_name((clscan_op)o), name) == 0)
      return *out = (clscan_op)o, 1;
  }
  return 0;
}

int cli_algorithm_from_name(const char *name, clscan_algorithm *out) {
  for (int a = 0; a < CLSCAN_ALGORITHM_COUNT; a++) {
    if (strcmp(clscan_algorithm_name((clscan_algorithm)a), name) == 0) {
      *out = (clscan_algorithm)a;
      return 1;
    }
  }
  return 0;
}

/* The sort algorithms' names, by clscan_sort_algorithm. */
static const char *const sort_algorithm_names[CLSCAN_SORT_ALGORITHM_COUNT] = {"auto", "lsd",
                                                                              "onesweep"};

const char *cli_sort_algorithm_name(clscan_sort_algorithm a) {
  return (unsigned)a < CLSCAN_SORT_ALGORITHM_COUNT ? sort_algorithm_names[a] : "?";
}

int cli_sort_algorithm_from_name(const char *name, clscan_sort_algorithm *out) {
  for (int a = 0; a < CLSCAN_SORT_ALGORITHM_COUNT; a++) {
    if (strcmp(sort_algorithm_names[a], name) == 0)
      return *out = (clscan_sort_algorithm)a, 1;
  }
  return 0;
}

int cli_key_type_from_name(const char *name, clscan_type *out) {
  clscan_type t;
  if (!cli_type_from_name(name, &t) || clscan_type_size(t) < 4 || cli_type_is_float(t))
    return 0;
  *out = t;
  return 1;
}

int cli_type_is_float(clscan_type t) {
  return t == CLSCAN_FLOAT || t == CLSCAN_DOUBLE || t == CLSCAN_HALF;
}

clscan_type cli_out_type(const clscan_scan_desc *desc) {
  if (desc->out_type == CLSCAN_OUT_SAME)
    return desc->type;
  return (clscan_type)((int)desc->out_type - (int)CLSCAN_OUT_TYPE(0));
}

size_t cli_segment_size(const clscan_scan_desc *desc) {
  if (desc->segments == CLSCAN_SEGMENTS_HEAD_FLAGS)
    return 1;
  return desc->segments == CLSCAN_SEGMENTS_KEYS ? clscan_type_size(desc->key_type) : 0;
}

/* Splits a comma-separated list and passes each item to `add`; 0 on an empty item. */
static int split_list(const char *text, int (*add)(const char *item, void *state), void *state) {
  char item[64];
  const char *p = text;
  for (;;) {
    size_t len = strcspn(p, ",");
    if (len == 0 || len >= sizeof item)
      return 0;
    memcpy(item, p, len);
    item[len] = '\0';
    if (!add(item, state))
      return 0;
    if (p[len] == '\0')
      return 1;
    p += len + 1;
  }
}

/* The state of a list being parsed: the values so far and the item that failed. */
typedef struct list_state {
  int *values;
  int count, max;
  int (*lookup)(const char *name, int *value);
  char bad[64];
} list_state;

/* Adds one named value to a list, rejecting unknown names and repeats. */
static int add_item(const char *item, void *state) {
  list_state *s = state;
  int v;
  snprintf(s->bad, sizeof s->bad, "%s", item);
  if (!s->lookup(item, &v))
    return 0;
  for (int i = 0; i < s->count; i++) {
    if (s->values[i] == v)
      return 0;
  }
  if (s->count == s->max)
    return 0;
  s->values[s->count++] = v;
  return 1;
}

static int lookup_type(const char *name, int *value) {
  clscan_type t;
  return cli_type_from_name(name, &t) ? (*value = (int)t, 1) : 0;
}

static int lookup_op(const char *name, int *value) {
  clscan_op o;
  return cli_op_from_name(name, &o) ? (*value = (int)o, 1) : 0;
}

static int lookup_sort_algorithm(const char *name, int *value) {
  clscan_sort_algorithm a;
  return cli_sort_algorithm_from_name(name, &a) ? (*value = (int)a, 1) : 0;
}

static int lookup_algorithm(const char *name, int *value) {
  clscan_algorithm a;
  if (!cli_algorithm_from_name(name, &a) || a == CLSCAN_ALGO_AUTO)
    return 0;
  *value = (int)a;
  return 1;
}

/* Parses a list with a lookup into ints; prints a usage error on failure. */
static int parse_list(const char *command, const char *option, const char *text,
                      int (*lookup)(const char *, int *), int *values, int max, int *count) {
  list_state s = {values, 0, max, lookup, ""};
  if (!split_list(text, add_item, &s)) {
    cli_usage_error(command, "%s: bad or repeated item '%s' in '%s'", option, s.bad, text);
    return 0;
  }
  *count = s.count;
  return 1;
}

int cli_parse_type_list(const char *command, const char *text, clscan_type *out, int *count) {
  int values[CLSCAN_TYPE_COUNT];
  if (!parse_list(command, "--types", text, lookup_type, values, CLSCAN_TYPE_COUNT, count))
    return 0;
  for (int i = 0; i < *count; i++)
    out[i] = (clscan_type)values[i];
  return 1;
}

int cli_parse_algorithm_list(const char *command, const char *text, clscan_algorithm *out,
                             int *count) {
  int values[CLSCAN_ALGORITHM_COUNT];
  if (!parse_list(command, "--algorithms", text, lookup_algorithm, values, CLSCAN_ALGORITHM_COUNT,
                  count))
    return 0;
  for (int i = 0; i < *count; i++)
    out[i] = (clscan_algorithm)values[i];
  return 1;
}

int cli_parse_op_list(const char *command, const char *text, clscan_op *out, int *count) {
  int values[CLSCAN_OP_COUNT];
  if (!parse_list(command, "--ops", text, lookup_op, values, CLSCAN_OP_COUNT, count))
    return 0;
  for (int i = 0; i < *count; i++)
    out[i] = (clscan_op)values[i];
  return 1;
}

int cli_parse_select_kinds(const char *command, const char *text, unsigned *mask) {
  int values[32], count = 0;
  if (!parse_list(command, "--only", text, cli_select_kind_from_name, values, 32, &count))
    return 0;
  *mask = 0;
  for (int i = 0; i < count; i++)
    *mask |= 1u << values[i];
  return 1;
}

int cli_parse_sort_algorithm_list(const char *command, const char *text, clscan_sort_algorithm *out,
                                  int *count) {
  int values[CLSCAN_SORT_ALGORITHM_COUNT];
  if (!parse_list(command, "--algorithms", text, lookup_sort_algorithm, values,
                  CLSCAN_SORT_ALGORITHM_COUNT, count))
    return 0;
  for (int i = 0; i < *count; i++)
    out[i] = (clscan_sort_algorithm)values[i];
  return 1;
}
