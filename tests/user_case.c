/*
 * clscan tests: scans with output types, user operators and types, maps and segments (see
 * user_case.h).
 */
#include "user_case.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ref_scan.h"
#include "test_util.h"

/* ============================================================================================== */
/* Types and elements                                                                             */
/* ============================================================================================== */

static int is_float(clscan_type t) {
  return t == CLSCAN_FLOAT || t == CLSCAN_DOUBLE;
}

static int is_signed(clscan_type t) {
  return t == CLSCAN_INT8 || t == CLSCAN_INT16 || t == CLSCAN_INT32 || t == CLSCAN_INT64;
}

clscan_type uc_out_type(const clscan_scan_desc *desc) {
  if (desc->out_type == CLSCAN_OUT_SAME)
    return desc->type;
  return (clscan_type)((int)desc->out_type - 0x100);
}

size_t uc_in_size(const clscan_scan_desc *desc) {
  return desc->type == CLSCAN_USER_TYPE ? desc->type_size : clscan_type_size(desc->type);
}

size_t uc_out_size(const clscan_scan_desc *desc) {
  clscan_type t = uc_out_type(desc);
  return t == CLSCAN_USER_TYPE ? desc->type_size : clscan_type_size(t);
}

size_t uc_key_size(clscan_type key_type) {
  return clscan_type_size(key_type);
}

/* Reads element i of a built-in integer type as a 64-bit pattern, sign-extended if signed. */
static uint64_t get_int(clscan_type t, const void *p, size_t i) {
  const unsigned char *b = (const unsigned char *)p + i * clscan_type_size(t);
  switch (t) {
    case CLSCAN_INT8:
      return (uint64_t)(int64_t)(int8_t)b[0];
    case CLSCAN_UINT8:
      return b[0];
    case CLSCAN_INT16: {
      int16_t v;
      memcpy(&v, b, 2);
      return (uint64_t)(int64_t)v;
    }
    case CLSCAN_UINT16: {
      uint16_t v;
      memcpy(&v, b, 2);
      return v;
    }
    case CLSCAN_INT32: {
      int32_t v;
      memcpy(&v, b, 4);
      return (uint64_t)(int64_t)v;
    }
    case CLSCAN_UINT32: {
      uint32_t v;
      memcpy(&v, b, 4);
      return v;
    }
    default: {
      uint64_t v;
      memcpy(&v, b, 8);
      return v;
    }
  }
}

/* Writes the low bits of a 64-bit pattern as element i (little-endian hosts, like the devices). */
static void put_int(clscan_type t, void *p, size_t i, uint64_t v) {
  size_t size = clscan_type_size(t);
  memcpy((unsigned char *)p + i * size, &v, size);
}

static long double get_float(clscan_type t, const void *p, size_t i) {
  if (t == CLSCAN_FLOAT) {
    float f;
    memcpy(&f, (const unsigned char *)p + 4 * i, 4);
    return f;
  }
  double d;
  memcpy(&d, (const unsigned char *)p + 8 * i, 8);
  return d;
}

static void put_float(clscan_type t, void *p, long double v) {
  if (t == CLSCAN_FLOAT) {
    float f = (float)v;
    memcpy(p, &f, 4);
  } else {
    double d = (double)v;
    memcpy(p, &d, 8);
  }
}

/* Converts one element between built-in types as a C cast does (values in range). */
static void convert(clscan_type from, const void *x, clscan_type to, void *y) {
  if (from == to) {
    memcpy(y, x, clscan_type_size(to));
  } else if (is_float(from)) {
    long double v = get_float(from, x, 0);
    if (is_float(to))
      put_float(to, y, v);
    else
      put_int(to, y, 0, is_signed(to) ? (uint64_t)(int64_t)v : (uint64_t)v);
  } else {
    uint64_t v = get_int(from, x, 0);
    if (is_float(to))
      put_float(to, y, is_signed(from) ? (long double)(int64_t)v : (long double)v);
    else
      put_int(to, y, 0, v);
  }
}

/* Combines two integers of type t (sign-extended patterns) as the device does. */
static uint64_t int_op(clscan_type t, clscan_op op, uint64_t a, uint64_t b) {
  unsigned bits = 8 * (unsigned)clscan_type_size(t);
  uint64_t mask = bits == 64 ? UINT64_MAX : (((uint64_t)1 << bits) - 1), r;
  int s = is_signed(t);
  switch (op) {
    case CLSCAN_ADD:
      r = a + b;
      break;
    case CLSCAN_MUL:
      r = a * b;
      break;
    case CLSCAN_MIN:
      r = s ? ((int64_t)b < (int64_t)a ? b : a) : (b < a ? b : a);
      break;
    case CLSCAN_MAX:
      r = s ? ((int64_t)a < (int64_t)b ? b : a) : (a < b ? b : a);
      break;
    case CLSCAN_AND:
      r = a & b;
      break;
    case CLSCAN_OR:
      r = a | b;
      break;
    default:
      r = a ^ b;
      break;
  }
  r &= mask;
  // Sign-extend again so that later signed comparisons see the element's value.
  if (s && bits < 64 && ((r >> (bits - 1)) & 1))
    r |= ~mask;
  return r;
}

/* The identity of a built-in integer operator as a sign-extended pattern. */
static uint64_t int_identity(clscan_type t, clscan_op op) {
  unsigned bits = 8 * (unsigned)clscan_type_size(t);
  uint64_t all = bits == 64 ? UINT64_MAX : (((uint64_t)1 << bits) - 1);
  switch (op) {
    case CLSCAN_MUL:
      return 1;
    case CLSCAN_MIN:
      return is_signed(t) ? all >> 1 : all;
    case CLSCAN_MAX:
      return is_signed(t) ? ~(all >> 1) : 0;
    case CLSCAN_AND:
      return is_signed(t) ? UINT64_MAX : all;
    default:
      return 0;
  }
}

static long double float_op(clscan_op op, long double a, long double b) {
  switch (op) {
    case CLSCAN_ADD:
      return a + b;
    case CLSCAN_MUL:
      return a * b;
    case CLSCAN_MIN:
      return b < a ? b : a;
    default:
      return a < b ? b : a;
  }
}

static long double float_identity(clscan_op op) {
  return op == CLSCAN_MUL ? 1.0L : op == CLSCAN_MIN ? INFINITY : op == CLSCAN_MAX ? -INFINITY : 0;
}

/* Formats an output element: built-in types as numbers, user types as 32-bit words (or bytes). */
static void format_elem(const clscan_scan_desc *d, const void *p, char *buf, size_t cap) {
  clscan_type t = uc_out_type(d);
  if (t != CLSCAN_USER_TYPE) {
    clscan_ref_format(t, p, 0, buf, cap);
    return;
  }
  size_t size = d->type_size, len = 0, step = size % 4 == 0 ? 4 : 1;
  buf[0] = '\0';
  for (size_t k = 0; k < size && len + 16 < cap; k += step) {
    uint32_t w = 0;
    memcpy(&w, (const unsigned char *)p + k, step);
    len += (size_t)snprintf(buf + len, cap - len, "%s%s0x%" PRIx32, k ? ", " : "", k ? "" : "{", w);
  }
  if (len + 2 < cap)
    snprintf(buf + len, cap - len, "}");
}

/* ============================================================================================== */
/* Shared specs                                                                                   */
/* ============================================================================================== */

const char uc_affine_source[] = "typedef struct { uint a; uint b; } affine;";
const char uc_affine_op_source[] =
    "{ affine r; r.a = a.a * b.a; r.b = b.a * a.b + b.b; return r; }";
const uc_affine uc_affine_identity = {1, 0};

void uc_affine_op(const void *pa, const void *pb, void *pr) {
  uc_affine f, g, r;
  memcpy(&f, pa, sizeof f);
  memcpy(&g, pb, sizeof g);
  r.a = f.a * g.a;
  r.b = g.a * f.b + g.b;
  memcpy(pr, &r, sizeof r);
}

void uc_affine_fill(uint64_t seed, void *data, size_t n) {
  uc_affine *v = data;
  for (size_t i = 0; i < n; i++) {
    seed = tu_mix(seed, i);
    v[i].a = (uint32_t)seed | (seed % 16 ? 1u : 0u);
    v[i].b = (uint32_t)(seed >> 32);
  }
}

const uc_spec uc_spec_affine = {.name = "affine",
                                .desc = {.type = CLSCAN_USER_TYPE,
                                         .op = CLSCAN_USER_OP,
                                         .op_source = uc_affine_op_source,
                                         .identity = &uc_affine_identity,
                                         .type_source = uc_affine_source,
                                         .type_name = "affine",
                                         .type_size = sizeof(uc_affine)},
                                .op = uc_affine_op,
                                .fill = uc_affine_fill,
                                .fill_init = uc_affine_fill};

void uc_add_u32(const void *a, const void *b, void *r) {
  uint32_t x, y;
  memcpy(&x, a, 4);
  memcpy(&y, b, 4);
  x += y;
  memcpy(r, &x, 4);
}

/* ============================================================================================== */
/* The reference                                                                                  */
/* ============================================================================================== */

/* Computes y[i]: the map's host twin, or the input converted to the output type. */
static void load(const uc_case *c, const void *in, size_t i, void *y) {
  const clscan_scan_desc *d = &c->spec->desc;
  const unsigned char *x = (const unsigned char *)in + i * uc_in_size(d);
  clscan_type ot = uc_out_type(d);
  if (c->spec->map)
    c->spec->map(x, (uint64_t)i, y);
  else if (d->type == CLSCAN_USER_TYPE || ot == CLSCAN_USER_TYPE)
    memcpy(y, x, d->type_size);
  else
    convert(d->type, x, ot, y);
}

/* Combines a and b (output-type elements) into r with the descriptor's operator. */
static void combine(const uc_case *c, const void *a, const void *b, void *r) {
  const clscan_scan_desc *d = &c->spec->desc;
  clscan_type ot = uc_out_type(d);
  if (d->op == CLSCAN_USER_OP) {
    unsigned char tmp[UC_MAX_ELEM];
    c->spec->op(a, b, tmp);
    memcpy(r, tmp, uc_out_size(d));
    return;
  }
  put_int(ot, r, 0, int_op(ot, d->op, get_int(ot, a, 0), get_int(ot, b, 0)));
}

/* The value every segment starts from: the case's init, else the identity. */
static void start_value(const uc_case *c, void *v) {
  const clscan_scan_desc *d = &c->spec->desc;
  clscan_type ot = uc_out_type(d);
  if (c->has_init)
    memcpy(v, c->init, uc_out_size(d));
  else if (d->op == CLSCAN_USER_OP)
    memcpy(v, d->identity, uc_out_size(d));
  else
    put_int(ot, v, 0, int_identity(ot, d->op));
}

/* Finds the start of the segment of element i (for messages). */
static size_t segment_start(const unsigned char *heads, size_t i) {
  while (i > 0 && !(heads && heads[i]))
    i--;
  return i;
}

/* Checks a floating-point output (built-in operator) against a long double reference. */
static int check_float(const uc_case *c, const void *in, const unsigned char *heads,
                       const void *got, size_t n, char *detail, size_t cap) {
  const clscan_scan_desc *d = &c->spec->desc;
  clscan_type ot = uc_out_type(d);
  size_t os = uc_out_size(d);
  long double tol = ot == CLSCAN_FLOAT ? CLSCAN_REF_FLOAT_TOL : CLSCAN_REF_DOUBLE_TOL;
  long double start = c->has_init ? get_float(ot, c->init, 0) : float_identity(d->op);
  long double acc = start, scale = 0;
  for (size_t i = 0; i < n; i++) {
    unsigned char y[UC_MAX_ELEM];
    if (i == 0 || (heads && heads[i])) {
      acc = start;
      scale = isinf(start) ? 0 : fabsl(start);
    }
    load(c, in, i, y);
    long double x = get_float(ot, y, 0), next = float_op(d->op, acc, x);
    long double want = c->exclusive ? acc : next, have = get_float(ot, got, i);
    if (!c->exclusive)
      scale += fabsl(x);
    long double bound = d->op == CLSCAN_ADD   ? tol * scale
                        : d->op == CLSCAN_MUL ? tol * fabsl(want)
                                              : 0;
    long double rounded = ot == CLSCAN_FLOAT ? (long double)(float)want : (long double)(double)want;
    int ok = (isinf(want) || d->op == CLSCAN_MIN || d->op == CLSCAN_MAX)
                 ? have == rounded
                 : fabsl(have - want) <= bound;
    if (!ok || isnan(have)) {
      snprintf(detail, cap,
               "index %zu (segment from %zu): got %.9Lg, want %.9Lg (bound %.3Lg, %zu-byte "
               "floats)",
               i, segment_start(heads, i), have, want, bound, os);
      return 0;
    }
    if (c->exclusive)
      scale += fabsl(x);
    acc = next;
  }
  return 1;
}

int uc_check(const uc_case *c, const void *in, const unsigned char *heads, const void *got,
             size_t n, char *detail, size_t cap) {
  const clscan_scan_desc *d = &c->spec->desc;
  if (is_float(uc_out_type(d)) && d->op != CLSCAN_USER_OP)
    return check_float(c, in, heads, got, n, detail, cap);
  size_t os = uc_out_size(d);
  unsigned char start[UC_MAX_ELEM], acc[UC_MAX_ELEM], y[UC_MAX_ELEM], next[UC_MAX_ELEM];
  start_value(c, start);
  for (size_t i = 0; i < n; i++) {
    if (i == 0 || (heads && heads[i]))
      memcpy(acc, start, os);
    load(c, in, i, y);
    combine(c, acc, y, next);
    const unsigned char *want = c->exclusive ? acc : next;
    const unsigned char *have = (const unsigned char *)got + i * os;
    if (memcmp(want, have, os) != 0) {
      char w[128], h[128];
      format_elem(d, want, w, sizeof w);
      format_elem(d, have, h, sizeof h);
      snprintf(detail, cap, "index %zu (segment from %zu): got %s, want %s", i,
               segment_start(heads, i), h, w);
      return 0;
    }
    memcpy(acc, next, os);
  }
  return 1;
}

/* ============================================================================================== */
/* Segments                                                                                       */
/* ============================================================================================== */

/* splitmix64 step. */
static uint64_t next_random(uint64_t *s) {
  uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/* Draws a segment length: many short ones, some of a few tiles, a few very long ones. */
static size_t draw_length(uint64_t *s) {
  uint64_t r = next_random(s), bucket = r % 100, v = r >> 8;
  if (bucket < 40)
    return 1 + (size_t)(v % 8);
  if (bucket < 70)
    return 9 + (size_t)(v % 292);
  if (bucket < 90)
    return 301 + (size_t)(v % 4700);
  return 5001 + (size_t)(v % 65000);
}

/* Lays out where segments start, by pattern (heads[0] is always set). */
static void draw_heads(const uc_case *c, uint64_t *s, unsigned char *heads, size_t n) {
  memset(heads, 0, n);
  if (c->pattern == UC_PATTERN_EVERY) {
    memset(heads, 1, n);
  } else if (c->pattern == UC_PATTERN_RANDOM) {
    for (size_t i = 0; i < n; i += draw_length(s))
      heads[i] = 1;
  }
  if (n)
    heads[0] = 1;
}

/* Masks a key to its type's width. */
static uint64_t key_mask(clscan_type t, uint64_t v) {
  return uc_key_size(t) == 8 ? v : v & 0xFFFFFFFFu;
}

/* The key after `key` at a segment start: differs from it in the key's width, sometimes only in
 * the high half (64-bit keys), sometimes back to a value used earlier. */
static uint64_t next_key(clscan_type t, uint64_t *s, uint64_t key, const uint64_t *pool) {
  uint64_t r = next_random(s), k;
  switch (r % 4) {
    case 0:
      k = uc_key_size(t) == 8 ? key + ((uint64_t)1 << 32) : key ^ 0x80000000u;
      break;
    case 1:
      k = key + 1;
      break;
    case 2:
      k = pool[(r >> 8) % 4];
      break;
    default:
      k = r >> 3;
      break;
  }
  if (key_mask(t, k) == key_mask(t, key))
    k = key ^ 1;
  return k;
}

/* Fills the flags or keys of a case (n elements) for its pattern. */
static void fill_segments(const uc_case *c, unsigned char *seg, size_t n) {
  uint64_t s = tu_mix(c->seed, 0x5E6);
  unsigned char *heads = malloc(n + 1);
  if (!heads)
    abort();
  draw_heads(c, &s, heads, n);
  if (c->segments == CLSCAN_SEGMENTS_HEAD_FLAGS) {
    // Flags: any non-zero byte starts a segment; element 0's flag may be zero.
    for (size_t i = 0; i < n; i++) {
      uint64_t r = next_random(&s);
      seg[i] = heads[i] ? (unsigned char)(1 + r % 255) : 0;
      if (i == 0 && r % 3 == 0)
        seg[i] = 0;
    }
  } else {
    uint64_t pool[4];
    for (int k = 0; k < 4; k++)
      pool[k] = next_random(&s) >> (k * 9);
    // Every element a head alternates two keys (only consecutive runs matter); 64-bit ones
    // differ only in their high half.
    uint64_t key = pool[0], other = uc_key_size(c->key_type) == 8 ? pool[0] ^ ((uint64_t)1 << 40)
                                                                  : pool[0] ^ 0x80000000u;
    for (size_t i = 0; i < n; i++) {
      if (i > 0 && heads[i] && c->pattern == UC_PATTERN_EVERY)
        key = i % 2 ? other : pool[0];
      else if (i > 0 && heads[i])
        key = next_key(c->key_type, &s, key, pool);
      put_int(c->key_type, seg, i, key);
    }
  }
  free(heads);
}

/* Derives head flags from a flags or keys buffer by clscan.h's rules. */
static void compute_heads(const uc_case *c, const unsigned char *seg, unsigned char *heads,
                          size_t n) {
  for (size_t i = 0; i < n; i++) {
    if (c->segments == CLSCAN_SEGMENTS_HEAD_FLAGS)
      heads[i] = i == 0 || seg[i] != 0;
    else
      heads[i] = i == 0 || key_mask(c->key_type, get_int(c->key_type, seg, i)) !=
                               key_mask(c->key_type, get_int(c->key_type, seg, i - 1));
  }
}

/* ============================================================================================== */
/* Describing a case                                                                              */
/* ============================================================================================== */

static const char *const path_names[UC_PATH_COUNT] = {"one-shot", "plan", "plan-timed",
                                                      "scan_host"};
static const char *const pattern_names[UC_PATTERN_COUNT] = {"random-lengths", "every-element",
                                                            "one-segment"};

void uc_case_desc(const uc_case *c, clscan_scan_desc *desc, int for_plan) {
  *desc = c->spec->desc;
  desc->exclusive = c->exclusive;
  desc->init = c->has_init ? c->init : NULL;
  desc->algorithm = c->algorithm;
  desc->segments = c->segments;
  desc->key_type = c->segments == CLSCAN_SEGMENTS_KEYS ? c->key_type : CLSCAN_INT32;
  if (!for_plan && c->one_shot_none)
    desc->segments = CLSCAN_SEGMENTS_NONE;
}

void uc_case_set_init(uc_case *c, uint64_t seed) {
  const clscan_scan_desc *d = &c->spec->desc;
  memset(c->init, 0, sizeof c->init);
  if (c->spec->fill_init)
    c->spec->fill_init(seed, c->init, 1);
  else
    clscan_ref_fill(uc_out_type(d), d->op, seed, c->init, 1);
  c->has_init = 1;
}

void uc_case_describe(const uc_case *c, char *buf, size_t cap) {
  char init[128] = "none", seg[96] = "unsegmented";
  if (c->has_init)
    format_elem(&c->spec->desc, c->init, init, sizeof init);
  if (c->segments == CLSCAN_SEGMENTS_HEAD_FLAGS)
    snprintf(
        seg, sizeof seg, "head-flags %s seg_off=%zu%s", pattern_names[c->pattern], c->seg_off,
        c->one_shot_none && c->path == UC_PATH_ONE_SHOT ? " (one-shot desc.segments NONE)" : "");
  else if (c->segments == CLSCAN_SEGMENTS_KEYS)
    snprintf(
        seg, sizeof seg, "keys-%s %s seg_off=%zu%s", clscan_type_name(c->key_type),
        pattern_names[c->pattern], c->seg_off,
        c->one_shot_none && c->path == UC_PATH_ONE_SHOT ? " (one-shot desc.segments NONE)" : "");
  snprintf(buf, cap,
           "%s %s %s init=%s %s n=%zu in_off=%zu out_off=%zu%s via %s data_seed=%" PRIu64
           " (base seed %" PRIu64 ")",
           c->spec->name, clscan_algorithm_name(c->algorithm),
           c->exclusive ? "exclusive" : "inclusive", init, seg, c->n, c->in_off, c->out_off,
           c->in_place ? " in-place" : "", path_names[c->path], c->seed, tu_seed());
}

/* Formats a failure: the case, then the reason. Always returns 0. */
#if defined(__GNUC__)
static int fail(const uc_case *c, char *msg, size_t cap, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
#endif
static int fail(const uc_case *c, char *msg, size_t cap, const char *fmt, ...) {
  char what[512], desc[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  uc_case_describe(c, desc, sizeof desc);
  snprintf(msg, cap, "%s: %s", desc, what);
  return 0;
}

/* ============================================================================================== */
/* Data of a case                                                                                 */
/* ============================================================================================== */

/* Host data of one case: inputs, segments and the heads derived from them. */
typedef struct uc_data {
  unsigned char *input, *seg, *heads;
  size_t is, os, ks;
} uc_data;

static void data_free(uc_data *d) {
  free(d->input);
  free(d->seg);
  free(d->heads);
}

/* Draws a case's inputs and segments. */
static int data_make(const uc_case *c, uc_data *d) {
  const clscan_scan_desc *desc = &c->spec->desc;
  memset(d, 0, sizeof *d);
  d->is = uc_in_size(desc);
  d->os = uc_out_size(desc);
  d->ks = c->segments == CLSCAN_SEGMENTS_KEYS ? uc_key_size(c->key_type) : 1;
  d->input = malloc(c->n * d->is + 1);
  d->seg = malloc(c->n * d->ks + 1);
  d->heads = malloc(c->n + 1);
  if (!d->input || !d->seg || !d->heads)
    return 0;
  if (c->spec->fill)
    c->spec->fill(c->seed, d->input, c->n);
  else
    clscan_ref_fill(desc->type, desc->op, c->seed, d->input, c->n);
  if (c->segments != CLSCAN_SEGMENTS_NONE) {
    fill_segments(c, d->seg, c->n);
    compute_heads(c, d->seg, d->heads, c->n);
  }
  return 1;
}

/* Checks a result range and the guards around it. */
static int check_result(const uc_case *c, const uc_data *d, const unsigned char *img, size_t off,
                        size_t total, char *msg, size_t cap) {
  char detail[400];
  if (!tu_all_bytes(img, off * d->os, TU_POISON))
    return fail(c, msg, cap, "a guard element before the output range was overwritten");
  if (!tu_all_bytes(img + (off + c->n) * d->os, (total - off - c->n) * d->os, TU_POISON))
    return fail(c, msg, cap, "a guard element after the output range was overwritten");
  const unsigned char *heads = c->segments != CLSCAN_SEGMENTS_NONE ? d->heads : NULL;
  if (!uc_check(c, d->input, heads, img + off * d->os, c->n, detail, sizeof detail))
    return fail(c, msg, cap, "wrong result at %s", detail);
  return 1;
}

/* ============================================================================================== */
/* Running on host arrays                                                                         */
/* ============================================================================================== */

static int run_host(clscan_context *ctx, const uc_case *c, const uc_data *d, char *msg,
                    size_t cap) {
  size_t total = c->n + 2 * TU_GUARD;
  unsigned char *img = malloc(total * d->os), *src = NULL;
  clscan_scan_desc desc;
  int ok = 0;
  uc_case_desc(c, &desc, 1);
  if (!img)
    return fail(c, msg, cap, "out of host memory");
  memset(img, TU_POISON, total * d->os);
  unsigned char *dst = img + TU_GUARD * d->os;

  // In place, the input is copied into the output range; otherwise a copy is checked afterwards.
  if (c->in_place) {
    memcpy(dst, d->input, c->n * d->is);
    src = dst;
  } else {
    src = malloc(c->n * d->is + 1);
    if (!src) {
      free(img);
      return fail(c, msg, cap, "out of host memory");
    }
    memcpy(src, d->input, c->n * d->is);
  }
  clscan_status st = c->segments ? clscan_segmented_scan_host(ctx, &desc, d->seg, src, dst, c->n)
                                 : clscan_scan_host(ctx, &desc, src, dst, c->n);
  if (st != CLSCAN_SUCCESS)
    fail(c, msg, cap, "returned %s (%s)", clscan_status_string(st), clscan_last_error_detail());
  else if (!c->in_place && memcmp(src, d->input, c->n * d->is) != 0)
    fail(c, msg, cap, "the input array was modified");
  else
    ok = check_result(c, d, img, TU_GUARD, total, msg, cap);
  if (!c->in_place)
    free(src);
  free(img);
  return ok;
}

/* ============================================================================================== */
/* Running on device buffers                                                                      */
/* ============================================================================================== */

/* Device buffers of one case and the host images they started from. */
typedef struct uc_bufs {
  cl_mem in, out, seg;
  unsigned char *in_img, *out_img, *seg_img;
  size_t in_bytes, out_bytes, seg_bytes, out_total;
} uc_bufs;

static void bufs_free(uc_bufs *b) {
  if (b->in && b->in != b->out)
    clReleaseMemObject(b->in);
  if (b->out)
    clReleaseMemObject(b->out);
  if (b->seg)
    clReleaseMemObject(b->seg);
  free(b->in_img);
  free(b->out_img);
  free(b->seg_img);
}

/* Creates one buffer from a host image. */
static cl_mem upload(clscan_context *ctx, const unsigned char *img, size_t bytes) {
  cl_mem buf = tu_buffer(ctx, CL_MEM_READ_WRITE, bytes);
  if (buf && !tu_write(ctx, NULL, buf, 0, bytes, img)) {
    clReleaseMemObject(buf);
    return NULL;
  }
  return buf;
}

/* Makes the host images (poison around the output, fill bytes around inputs) and buffers. */
static int bufs_make(clscan_context *ctx, const uc_case *c, const uc_data *d, uc_bufs *b) {
  memset(b, 0, sizeof *b);
  b->out_total = c->out_off + c->n + TU_GUARD;
  b->out_bytes = b->out_total * d->os;
  b->in_bytes = (c->in_off + c->n + TU_GUARD) * d->is;
  b->seg_bytes = (c->seg_off + c->n + TU_GUARD) * d->ks;
  b->out_img = malloc(b->out_bytes);
  b->in_img = malloc(b->in_bytes);
  b->seg_img = malloc(b->seg_bytes);
  if (!b->out_img || !b->in_img || !b->seg_img)
    return 0;
  memset(b->out_img, TU_POISON, b->out_bytes);
  memset(b->in_img, TU_INPUT_FILL, b->in_bytes);
  memset(b->seg_img, TU_INPUT_FILL, b->seg_bytes);
  if (c->in_place)
    memcpy(b->out_img + c->out_off * d->os, d->input, c->n * d->is);
  else
    memcpy(b->in_img + c->in_off * d->is, d->input, c->n * d->is);
  memcpy(b->seg_img + c->seg_off * d->ks, d->seg, c->n * d->ks);
  b->out = upload(ctx, b->out_img, b->out_bytes);
  b->in = c->in_place ? b->out : upload(ctx, b->in_img, b->in_bytes);
  if (c->segments != CLSCAN_SEGMENTS_NONE)
    b->seg = upload(ctx, b->seg_img, b->seg_bytes);
  return b->out && b->in && (c->segments == CLSCAN_SEGMENTS_NONE || b->seg);
}

/* Enqueues an unsegmented case through its path. */
static clscan_status enqueue_plain(clscan_context *ctx, const uc_case *c, const uc_bufs *b,
                                   clscan_plan *plan, cl_event *first, cl_event *done) {
  clscan_scan_desc desc;
  size_t in_off = c->in_place ? c->out_off : c->in_off;
  uc_case_desc(c, &desc, 0);
  if (c->path == UC_PATH_ONE_SHOT)
    return clscan_scan(ctx, NULL, &desc, b->in, in_off, b->out, c->out_off, c->n, 0, NULL, done);
  if (c->path == UC_PATH_PLAN_TIMED)
    return clscan_plan_enqueue_timed(plan, NULL, b->in, in_off, b->out, c->out_off, c->n, 0, NULL,
                                     first, done);
  return clscan_plan_enqueue(plan, NULL, b->in, in_off, b->out, c->out_off, c->n, 0, NULL, done);
}

/* Enqueues a segmented case through its path. */
static clscan_status enqueue_segmented(clscan_context *ctx, const uc_case *c, const uc_bufs *b,
                                       clscan_plan *plan, cl_event *first, cl_event *done) {
  clscan_scan_desc desc;
  size_t in_off = c->in_place ? c->out_off : c->in_off;
  uc_case_desc(c, &desc, 0);
  if (c->path == UC_PATH_ONE_SHOT && c->segments == CLSCAN_SEGMENTS_HEAD_FLAGS)
    return clscan_segmented_scan(ctx, NULL, &desc, b->seg, c->seg_off, b->in, in_off, b->out,
                                 c->out_off, c->n, 0, NULL, done);
  if (c->path == UC_PATH_ONE_SHOT)
    return clscan_scan_by_key(ctx, NULL, &desc, b->seg, c->seg_off, b->in, in_off, b->out,
                              c->out_off, c->n, 0, NULL, done);
  return clscan_plan_enqueue_segmented(plan, NULL, b->seg, c->seg_off, b->in, in_off, b->out,
                                       c->out_off, c->n, 0, NULL,
                                       c->path == UC_PATH_PLAN_TIMED ? first : NULL, done);
}

/* Enqueues a case, creating its plan if a plan path has none. */
static clscan_status enqueue(clscan_context *ctx, const uc_case *c, const uc_bufs *b,
                             cl_event *first, cl_event *done) {
  clscan_plan *plan = c->plan;
  clscan_status st = CLSCAN_SUCCESS;
  if (c->path != UC_PATH_ONE_SHOT && !plan) {
    clscan_scan_desc desc;
    uc_case_desc(c, &desc, 1);
    st = clscan_plan_create(ctx, &desc, &plan);
    if (st != CLSCAN_SUCCESS)
      return st;
  }
  if (c->segments == CLSCAN_SEGMENTS_NONE)
    st = enqueue_plain(ctx, c, b, plan, first, done);
  else
    st = enqueue_segmented(ctx, c, b, plan, first, done);
  if (plan != c->plan)
    clscan_plan_release(plan);
  return st;
}

/* Waits for an event and checks that it completed. */
static int check_event(const uc_case *c, cl_event ev, const char *name, char *msg, size_t cap) {
  cl_int status = CL_QUEUED;
  if (!ev)
    return fail(c, msg, cap, "no %s event was returned", name);
  cl_int err = clWaitForEvents(1, &ev);
  if (err == CL_SUCCESS)
    err = clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, NULL);
  if (err != CL_SUCCESS || status != CL_COMPLETE)
    return fail(c, msg, cap, "%s event: wait returned %d, status %d", name, (int)err, (int)status);
  return 1;
}

/* Reads a buffer back and compares it with the image it was made from. */
static int unchanged(clscan_context *ctx, cl_mem buf, const unsigned char *img, size_t bytes) {
  unsigned char *back = malloc(bytes);
  int same = back && tu_read(ctx, NULL, buf, 0, bytes, back) && memcmp(back, img, bytes) == 0;
  free(back);
  return same;
}

/* Scans, waits, reads back and checks the output, the input and the segments. */
static int scan_and_check(clscan_context *ctx, const uc_case *c, const uc_data *d, uc_bufs *b,
                          char *msg, size_t cap) {
  cl_event first = NULL, done = NULL;
  clscan_status st = enqueue(ctx, c, b, &first, &done);
  if (st != CLSCAN_SUCCESS)
    return fail(c, msg, cap, "returned %s (%s)", clscan_status_string(st),
                clscan_last_error_detail());
  int ok = check_event(c, done, "done", msg, cap);
  if (ok && c->path == UC_PATH_PLAN_TIMED)
    ok = check_event(c, first, "first", msg, cap);
  if (done)
    clReleaseEvent(done);
  if (first)
    clReleaseEvent(first);
  if (!ok)
    return 0;
  if (!tu_read(ctx, NULL, b->out, 0, b->out_bytes, b->out_img))
    return fail(c, msg, cap, "clEnqueueReadBuffer failed");
  if (!check_result(c, d, b->out_img, c->out_off, b->out_total, msg, cap))
    return 0;
  if (!c->in_place && !unchanged(ctx, b->in, b->in_img, b->in_bytes))
    return fail(c, msg, cap, "the input buffer was modified");
  if (b->seg && !unchanged(ctx, b->seg, b->seg_img, b->seg_bytes))
    return fail(c, msg, cap, "the flags or keys buffer was modified");
  return 1;
}

int uc_run_case(clscan_context *ctx, const uc_case *c, char *msg, size_t cap) {
  char desc[512];
  uc_data d;
  uc_case_describe(c, desc, sizeof desc);
  tu_progress(desc);
  int ok = data_make(c, &d);
  if (!ok) {
    data_free(&d);
    return fail(c, msg, cap, "out of host memory");
  }
  if (c->path == UC_PATH_HOST) {
    ok = run_host(ctx, c, &d, msg, cap);
  } else {
    uc_bufs b;
    ok = bufs_make(ctx, c, &d, &b);
    if (!ok)
      fail(c, msg, cap, "could not create or fill the buffers");
    else
      ok = scan_and_check(ctx, c, &d, &b, msg, cap);
    bufs_free(&b);
  }
  data_free(&d);
  return ok;
}
