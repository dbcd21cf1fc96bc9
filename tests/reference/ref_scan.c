/*
 * clscan reference scans on the host: see ref_scan.h.
 */
#include "ref_scan.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* ============================================================================================== */
/* Integer elements as 64-bit patterns                                                            */
/* ============================================================================================== */

/* Reads element i as a 64-bit pattern, sign-extended for signed types. */
static uint64_t get_int(clscan_type t, const void *p, size_t i) {
  switch (t) {
    case CLSCAN_INT8:
      return (uint64_t)(int64_t)((const int8_t *)p)[i];
    case CLSCAN_UINT8:
      return ((const uint8_t *)p)[i];
    case CLSCAN_INT16:
      return (uint64_t)(int64_t)((const int16_t *)p)[i];
    case CLSCAN_UINT16:
      return ((const uint16_t *)p)[i];
    case CLSCAN_INT32:
      return (uint64_t)(int64_t)((const int32_t *)p)[i];
    case CLSCAN_UINT32:
      return ((const uint32_t *)p)[i];
    default:
      return ((const uint64_t *)p)[i];
  }
}

/* Writes the low bits of a 64-bit pattern as element i. */
static void put_int(clscan_type t, void *p, size_t i, uint64_t v) {
  switch (clscan_type_size(t)) {
    case 1:
      ((uint8_t *)p)[i] = (uint8_t)v;
      break;
    case 2:
      ((uint16_t *)p)[i] = (uint16_t)v;
      break;
    case 4:
      ((uint32_t *)p)[i] = (uint32_t)v;
      break;
    default:
      ((uint64_t *)p)[i] = v;
      break;
  }
}

static int is_signed(clscan_type t) {
  return t == CLSCAN_INT8 || t == CLSCAN_INT16 || t == CLSCAN_INT32 || t == CLSCAN_INT64;
}
static int is_float(clscan_type t) {
  return t == CLSCAN_FLOAT || t == CLSCAN_DOUBLE || t == CLSCAN_HALF;
}

/* Truncates a pattern to t's bits, then sign-extends it again for signed types, so that later
 * signed comparisons see the element's value. */
static uint64_t int_norm(clscan_type t, uint64_t r) {
  unsigned bits = 8 * (unsigned)clscan_type_size(t);
  uint64_t mask = bits == 64 ? UINT64_MAX : (((uint64_t)1 << bits) - 1);
  r &= mask;
  if (is_signed(t) && bits < 64 && (r >> (bits - 1)) & 1)
    r |= ~mask;
  return r;
}

/* Combines two integers (sign-extended patterns) as the device does, then truncates. */
static uint64_t int_op(clscan_type t, clscan_op op, uint64_t a, uint64_t b) {
  uint64_t r;
  switch (op) {
    case CLSCAN_ADD:
      r = a + b;
      break;
    case CLSCAN_MUL:
      r = a * b;
      break;
    case CLSCAN_MIN:
      r = is_signed(t) ? ((int64_t)b < (int64_t)a ? b : a) : (b < a ? b : a);
      break;
    case CLSCAN_MAX:
      r = is_signed(t) ? ((int64_t)a < (int64_t)b ? b : a) : (a < b ? b : a);
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
  return int_norm(t, r);
}

/* The integer identity as a sign-extended pattern. */
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

/* ============================================================================================== */
/* Floating-point elements                                                                        */
/* ============================================================================================== */

double clscan_ref_half_to_double(uint16_t h) {
  const int e = (h >> 10) & 0x1F, m = h & 0x3FF;
  double v = e == 0 ? ldexp(m, -24) : e == 31 ? (m ? NAN : INFINITY) : ldexp(1024 + m, e - 25);
  return (h & 0x8000u) ? -v : v;
}

uint16_t clscan_ref_half_from_double(double d) {
  const uint16_t sign = signbit(d) ? 0x8000u : 0;
  const double a = fabs(d);
  if (isnan(d))
    return sign | 0x7E00u;
  if (a >= 65520.0) /* halfway between the largest half, 65504, and 2^16 rounds to even: up */
    return sign | 0x7C00u;
  if (a < 0x1p-14) /* subnormal: units of 2^-24; 1024 of them is the smallest normal's encoding */
    return (uint16_t)(sign | (uint16_t)nearbyint(a * 0x1p24));
  int e;
  frexp(a, &e); /* a = f 2^e with f in [0.5, 1): a's half exponent is e - 1, its ulp 2^(e-11) */
  const int q = (int)nearbyint(ldexp(a, 11 - e)); /* 1024 .. 2048, ties to even */
  // A q of 2048 carries into the exponent, which the sum encodes as it should.
  return (uint16_t)(sign | (uint16_t)(((e - 1 + 15) << 10) + (q - 1024)));
}

static long double get_float(clscan_type t, const void *p, size_t i) {
  if (t == CLSCAN_HALF)
    return clscan_ref_half_to_double(((const uint16_t *)p)[i]);
  return t == CLSCAN_FLOAT ? ((const float *)p)[i] : ((const double *)p)[i];
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

/* Rounds a value to a floating type, as storing it in an element of that type does. */
static long double round_to(clscan_type t, long double v) {
  if (t == CLSCAN_HALF)
    return clscan_ref_half_to_double(clscan_ref_half_from_double((double)v));
  return t == CLSCAN_FLOAT ? (long double)(float)v : (long double)(double)v;
}

/* Converts a float to a 64-bit pattern by truncation toward zero. Out-of-range values and NaN,
 * undefined in OpenCL C, give 0 rather than C's undefined behaviour. */
static uint64_t float_to_int(long double v) {
  if (!(v >= -9223372036854775808.0L && v < 18446744073709551616.0L))
    return 0;
  return v < 0 ? (uint64_t)(int64_t)v : (uint64_t)v;
}

/* Stores a value as element i of a floating type. */
static void put_float(clscan_type t, void *p, size_t i, long double v) {
  if (t == CLSCAN_HALF)
    ((uint16_t *)p)[i] = clscan_ref_half_from_double((double)v);
  else if (t == CLSCAN_FLOAT)
    ((float *)p)[i] = (float)v;
  else
    ((double *)p)[i] = (double)v;
}

/* ============================================================================================== */
/* Element types of a descriptor                                                                  */
/* ============================================================================================== */

clscan_type clscan_ref_out_type(const clscan_scan_desc *d) {
  return d->out_type == CLSCAN_OUT_SAME ? d->type : (clscan_type)((int)d->out_type - 0x100);
}

size_t clscan_ref_in_size(const clscan_scan_desc *d) {
  return d->type == CLSCAN_USER_TYPE ? d->type_size : clscan_type_size(d->type);
}

size_t clscan_ref_out_size(const clscan_scan_desc *d) {
  clscan_type t = clscan_ref_out_type(d);
  return t == CLSCAN_USER_TYPE ? d->type_size : clscan_type_size(t);
}

/* ============================================================================================== */
/* The running reference                                                                          */
/* ============================================================================================== */

/*
 * A reference scan in progress: it visits the elements in order and yields each expected output.
 * Built-in operators run on 64-bit integer patterns or long doubles; a user operator runs its
 * host twin on output-type bytes (bstart, bacc).
 */
typedef struct cursor {
  const clscan_scan_desc *d;
  const void *segs, *in;
  clscan_ref_map_fn map;
  clscan_ref_op_fn op;
  clscan_type ot;
  size_t is, os, seg_start;
  uint64_t iacc, iinit;
  long double facc, finit, scale;
  _Alignas(16) unsigned char bstart[CLSCAN_REF_MAX_ELEM];
  _Alignas(16) unsigned char bacc[CLSCAN_REF_MAX_ELEM];
  _Alignas(16) unsigned char bwant[CLSCAN_REF_MAX_ELEM];
} cursor;

static void cursor_init(cursor *c, const clscan_scan_desc *d, const clscan_ref_twins *tw,
                        const void *segs, const void *in) {
  memset(c, 0, sizeof *c);
  c->d = d;
  c->in = in;
  c->segs = d->segments == CLSCAN_SEGMENTS_NONE ? NULL : segs;
  c->map = tw && d->map_source ? tw->map : NULL;
  c->op = tw && d->op == CLSCAN_USER_OP ? tw->op : NULL;
  c->ot = clscan_ref_out_type(d);
  c->is = clscan_ref_in_size(d);
  c->os = clscan_ref_out_size(d);
  if (d->op == CLSCAN_USER_OP) {
    const void *start = d->init ? d->init : d->identity;
    if (start && c->os <= CLSCAN_REF_MAX_ELEM)
      memcpy(c->bstart, start, c->os);
  } else if (is_float(c->ot)) {
    c->finit = d->init ? get_float(c->ot, d->init, 0) : float_identity(d->op);
  } else {
    c->iinit = d->init ? get_int(c->ot, d->init, 0) : int_identity(c->ot, d->op);
  }
}

/* Returns 1 when element i starts a segment (element 0 always does), and records where. */
static int starts_segment(cursor *c, size_t i) {
  int head = i == 0;
  if (!head && c->segs && c->d->segments == CLSCAN_SEGMENTS_HEAD_FLAGS)
    head = ((const uint8_t *)c->segs)[i] != 0;
  else if (!head && c->segs)
    head = !clscan_ref_keys_equal(c->d->key_type, c->segs, i, i - 1);
  if (head)
    c->seg_start = i;
  return head;
}

/* Applies the map's twin to element i; y receives one output-type element. */
static void map_elem(const cursor *c, size_t i, unsigned char *y) {
  c->map((const unsigned char *)c->in + i * c->is, (uint64_t)i, y);
}

/* Converts (or maps) element i of the input to the integer output type. */
static uint64_t in_as_int(const cursor *c, size_t i) {
  if (c->map) {
    _Alignas(16) unsigned char y[CLSCAN_REF_MAX_ELEM];
    map_elem(c, i, y);
    return get_int(c->ot, y, 0);
  }
  if (is_float(c->d->type))
    return int_norm(c->ot, float_to_int(get_float(c->d->type, c->in, i)));
  return int_norm(c->ot, get_int(c->d->type, c->in, i));
}

/* Converts (or maps) element i of the input to the floating output type, rounding once. */
static long double in_as_float(const cursor *c, size_t i) {
  if (c->map) {
    _Alignas(16) unsigned char y[CLSCAN_REF_MAX_ELEM];
    map_elem(c, i, y);
    return get_float(c->ot, y, 0);
  }
  if (is_float(c->d->type))
    return round_to(c->ot, get_float(c->d->type, c->in, i));
  uint64_t v = get_int(c->d->type, c->in, i);
  if (c->ot == CLSCAN_FLOAT)
    return is_signed(c->d->type) ? (float)(int64_t)v : (float)v;
  // The device converts an integer to a half through float: exact wherever the half is finite.
  if (c->ot == CLSCAN_HALF)
    return round_to(c->ot, is_signed(c->d->type) ? (float)(int64_t)v : (float)v);
  return is_signed(c->d->type) ? (double)(int64_t)v : (double)v;
}

/* Computes y[i] as output-type bytes: mapped, copied (user types) or converted. */
static void in_as_bytes(const cursor *c, size_t i, unsigned char *y) {
  if (c->map)
    map_elem(c, i, y);
  else if (c->d->type == CLSCAN_USER_TYPE || c->ot == CLSCAN_USER_TYPE)
    memcpy(y, (const unsigned char *)c->in + i * c->is, c->os);
  else if (is_float(c->ot))
    put_float(c->ot, y, 0, in_as_float(c, i));
  else
    put_int(c->ot, y, 0, in_as_int(c, i));
}

/* Visits integer element i; returns its expected output. */
static uint64_t int_step(cursor *c, size_t i) {
  if (starts_segment(c, i))
    c->iacc = c->iinit;
  uint64_t next = int_op(c->ot, c->d->op, c->iacc, in_as_int(c, i));
  uint64_t want = c->d->exclusive ? c->iacc : next;
  c->iacc = next;
  return want;
}

/* Visits floating element i; returns its expected output and the tolerance of a check. */
static long double float_step(cursor *c, size_t i, long double *bound) {
  if (starts_segment(c, i)) {
    c->facc = c->finit;
    c->scale = isinf(c->finit) ? 0 : fabsl(c->finit);
  }
  long double x = in_as_float(c, i), next = float_op(c->d->op, c->facc, x);
  long double want = c->d->exclusive ? c->facc : next;
  double tol = c->ot == CLSCAN_FLOAT    ? CLSCAN_REF_FLOAT_TOL
               : c->ot == CLSCAN_DOUBLE ? CLSCAN_REF_DOUBLE_TOL
                                        : CLSCAN_REF_HALF_TOL;
  if (!c->d->exclusive)
    c->scale += fabsl(x);
  *bound = c->d->op == CLSCAN_ADD ? tol * c->scale : c->d->op == CLSCAN_MUL ? tol * fabsl(want) : 0;
  if (c->d->exclusive)
    c->scale += fabsl(x);
  c->facc = next;
  return want;
}

/* Visits element i with a user operator; returns its expected output (os bytes). */
static const unsigned char *bytes_step(cursor *c, size_t i) {
  _Alignas(16) unsigned char y[CLSCAN_REF_MAX_ELEM], next[CLSCAN_REF_MAX_ELEM];
  if (starts_segment(c, i))
    memcpy(c->bacc, c->bstart, c->os);
  in_as_bytes(c, i, y);
  c->op(c->bacc, y, next);
  memcpy(c->bwant, c->d->exclusive ? c->bacc : next, c->os);
  memcpy(c->bacc, next, c->os);
  return c->bwant;
}

/* ============================================================================================== */
/* Reference and check                                                                            */
/* ============================================================================================== */

void clscan_ref_scan_twins(const clscan_scan_desc *d, const clscan_ref_twins *twins,
                           const void *segments, const void *in, void *out, size_t n) {
  cursor c;
  cursor_init(&c, d, twins, segments, in);
  for (size_t i = 0; i < n; i++) {
    long double bound;
    if (c.op)
      memcpy((unsigned char *)out + i * c.os, bytes_step(&c, i), c.os);
    else if (!is_float(c.ot))
      put_int(c.ot, out, i, int_step(&c, i));
    else
      put_float(c.ot, out, i, float_step(&c, i, &bound));
  }
}

void clscan_ref_scan_segmented(const clscan_scan_desc *d, const void *segments, const void *in,
                               void *out, size_t n) {
  clscan_ref_scan_twins(d, NULL, segments, in, out, n);
}

void clscan_ref_scan(const clscan_scan_desc *d, const void *in, void *out, size_t n) {
  clscan_ref_scan_twins(d, NULL, NULL, in, out, n);
}

/* Starts a mismatch's description: the index and, in a segmented scan, its segment's start. */
static void mismatch_at(const cursor *c, size_t i, clscan_ref_mismatch *m, char *where,
                        size_t cap) {
  m->index = (int64_t)i;
  if (c->segs)
    snprintf(where, cap, "index %zu (segment from %zu)", i, c->seg_start);
  else
    snprintf(where, cap, "index %zu", i);
}

/* Checks a floating-point result against the long double reference with the stated tolerance. */
static int check_float(cursor *c, const void *got, size_t n, clscan_ref_mismatch *m) {
  for (size_t i = 0; i < n; i++) {
    long double bound, want = float_step(c, i, &bound), have = get_float(c->ot, got, i);
    int ok = (isinf(want) || c->d->op == CLSCAN_MIN || c->d->op == CLSCAN_MAX)
                 ? have == round_to(c->ot, want)
                 : fabsl(have - want) <= bound;
    if (!ok || isnan(have)) {
      char where[48];
      mismatch_at(c, i, m, where, sizeof where);
      snprintf(m->detail, sizeof m->detail, "%s: got %.9Lg, want %.9Lg (bound %.3Lg)", where, have,
               want, bound);
      return 0;
    }
  }
  return 1;
}

/* Checks an integer result exactly. */
static int check_int(cursor *c, const void *got, size_t n, clscan_ref_mismatch *m) {
  for (size_t i = 0; i < n; i++) {
    uint64_t want = int_step(c, i), have = get_int(c->ot, got, i);
    if (want != have) {
      char where[48];
      mismatch_at(c, i, m, where, sizeof where);
      snprintf(m->detail, sizeof m->detail, "%s: got %" PRId64 ", want %" PRId64, where,
               (int64_t)have, (int64_t)want);
      return 0;
    }
  }
  return 1;
}

/* Checks a user operator's result byte by byte. */
static int check_bytes(cursor *c, const void *got, size_t n, clscan_ref_mismatch *m) {
  for (size_t i = 0; i < n; i++) {
    const unsigned char *want = bytes_step(c, i), *have = (const unsigned char *)got + i * c->os;
    if (memcmp(want, have, c->os) != 0) {
      char where[48], w[120], h[120];
      mismatch_at(c, i, m, where, sizeof where);
      clscan_ref_format_out(c->d, want, w, sizeof w);
      clscan_ref_format_out(c->d, have, h, sizeof h);
      snprintf(m->detail, sizeof m->detail, "%s: got %s, want %s", where, h, w);
      return 0;
    }
  }
  return 1;
}

int clscan_ref_check_twins(const clscan_scan_desc *d, const clscan_ref_twins *twins,
                           const void *segments, const void *in, const void *got, size_t n,
                           clscan_ref_mismatch *m) {
  clscan_ref_mismatch ignored;
  if (!m)
    m = &ignored;
  m->index = -1;
  m->detail[0] = '\0';
  cursor c;
  cursor_init(&c, d, twins, segments, in);
  if (d->op == CLSCAN_USER_OP || (d->map_source && !c.map)) {
    if (!c.op || (d->map_source && !c.map) || c.os > CLSCAN_REF_MAX_ELEM) {
      snprintf(m->detail, sizeof m->detail, "the reference needs host twins of the OpenCL C");
      return 0;
    }
    return check_bytes(&c, got, n, m);
  }
  return is_float(c.ot) ? check_float(&c, got, n, m) : check_int(&c, got, n, m);
}

int clscan_ref_check_segmented(const clscan_scan_desc *d, const void *segments, const void *in,
                               const void *got, size_t n, clscan_ref_mismatch *m) {
  return clscan_ref_check_twins(d, NULL, segments, in, got, n, m);
}

int clscan_ref_check(const clscan_scan_desc *d, const void *in, const void *got, size_t n,
                     clscan_ref_mismatch *m) {
  return clscan_ref_check_twins(d, NULL, NULL, in, got, n, m);
}
/* ============================================================================================== */
/* Data                                                                                           */
/* ============================================================================================== */

/* splitmix64: small, fast and good enough for test data. */
static uint64_t next_random(uint64_t *s) {
  uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/*
 * The next half of clscan_ref_fill(). Sums and products are made exact in every grouping, so
 * that they are checked exactly: element i of a sum is y_i - y_(i-1) for random integers y_i in
 * [-256, 256] (y_(-1) = 0), so the sum of any run of elements is a difference of two y, an
 * integer of at most 512 in magnitude; element i of a product is +-2^(e_i - e_(i-1)) for random
 * e_i in [-6, 6], so every product of a run is a signed power of two in [2^-12, 2^12]. Min and
 * max see every finite half, the infinities and both zeros (no NaN: min and max of a NaN depend
 * on the grouping). *prev holds y_(i-1) or e_(i-1).
 */
static uint16_t half_fill(clscan_op op, uint64_t r, int *prev) {
  if (op == CLSCAN_ADD || op == CLSCAN_MUL) {
    const int lim = op == CLSCAN_ADD ? 256 : 6, y = (int)((r >> 8) % (2 * lim + 1)) - lim;
    const int d = y - *prev;
    *prev = y;
    if (op == CLSCAN_ADD)
      return clscan_ref_half_from_double(d);
    return clscan_ref_half_from_double((r & 1) ? -ldexp(1, d) : ldexp(1, d));
  }
  uint16_t h = (uint16_t)(r >> 16);
  if ((h & 0x7C00u) == 0x7C00u)
    h &= 0xFC00u; /* an infinity, not a NaN */
  return h;
}

void clscan_ref_fill(clscan_type type, clscan_op op, uint64_t seed, void *data, size_t n) {
  uint64_t s = seed;
  int prev = 0;
  for (size_t i = 0; i < n; i++) {
    uint64_t r = next_random(&s);
    if (type == CLSCAN_HALF) {
      ((uint16_t *)data)[i] = half_fill(op, r, &prev);
    } else if (is_float(type)) {
      double u = (double)(r >> 11) / 9007199254740992.0; /* [0, 1) */
      // Sums of values in [-1, 1); products of values near 1 so that they neither vanish nor
      // overflow; min and max of values spread widely.
      double v = op == CLSCAN_MUL   ? 0.999 + 0.002 * u
                 : op == CLSCAN_ADD ? 2 * u - 1
                                    : 2e6 * u - 1e6;
      if (type == CLSCAN_FLOAT)
        ((float *)data)[i] = (float)v;
      else
        ((double *)data)[i] = v;
    } else if (op == CLSCAN_MUL) {
      // Mostly odd values: products of random integers soon become 0 modulo 2^bits otherwise.
      put_int(type, data, i, (r % 16 == 0) ? (r >> 8) & ~(uint64_t)1 : (r >> 8) | 1);
    } else if (op == CLSCAN_AND) {
      // Mostly-set bits so that the running and does not reach zero at once.
      put_int(type, data, i, ~((r >> 8) & (r >> 20) & (r >> 33)));
    } else {
      put_int(type, data, i, r >> 5);
    }
  }
}

void clscan_ref_fill_segments(const clscan_scan_desc *desc, size_t mean_length, uint64_t seed,
                              void *data, size_t n) {
  uint64_t s = seed ^ 0x5E6D5E6D5E6D5E6Dull, key = 0;
  uint64_t mean = mean_length ? mean_length : 1;
  for (size_t i = 0; i < n; i++) {
    uint64_t r = next_random(&s);
    int head = r % mean == 0;
    if (desc->segments == CLSCAN_SEGMENTS_HEAD_FLAGS) {
      ((uint8_t *)data)[i] = (uint8_t)head;
    } else if (desc->segments == CLSCAN_SEGMENTS_KEYS) {
      // A new key differs from the previous one in its low bits, so also after truncation.
      if (head && i > 0)
        key += 1 + (r >> 32) % 7;
      put_int(desc->key_type, data, i, key);
    }
  }
}

void clscan_ref_format(clscan_type type, const void *data, size_t i, char *buf, size_t cap) {
  if (type == CLSCAN_HALF) {
    const uint16_t h = ((const uint16_t *)data)[i];
    snprintf(buf, cap, "%.5g (0x%04x)", clscan_ref_half_to_double(h), (unsigned)h);
  } else if (type == CLSCAN_FLOAT)
    snprintf(buf, cap, "%.9g", ((const float *)data)[i]);
  else if (type == CLSCAN_DOUBLE)
    snprintf(buf, cap, "%.17g", ((const double *)data)[i]);
  else if (is_signed(type))
    snprintf(buf, cap, "%" PRId64, (int64_t)get_int(type, data, i));
  else
    snprintf(buf, cap, "%" PRIu64, get_int(type, data, i));
}

void clscan_ref_format_out(const clscan_scan_desc *desc, const void *elem, char *buf, size_t cap) {
  clscan_type t = clscan_ref_out_type(desc);
  if (t != CLSCAN_USER_TYPE) {
    clscan_ref_format(t, elem, 0, buf, cap);
    return;
  }
  size_t size = desc->type_size, len = 0, step = size % 4 == 0 ? 4 : 1;
  buf[0] = '\0';
  for (size_t k = 0; k < size && len + 16 < cap; k += step) {
    uint32_t w = 0;
    memcpy(&w, (const unsigned char *)elem + k, step);
    len += (size_t)snprintf(buf + len, cap - len, "%s%s0x%" PRIx32, k ? ", " : "", k ? "" : "{", w);
  }
  if (len + 2 < cap)
    snprintf(buf + len, cap - len, "}");
}

int clscan_ref_keys_equal(clscan_type key_type, const void *keys, size_t i, size_t j) {
  if (is_float(key_type))
    return get_float(key_type, keys, i) == get_float(key_type, keys, j);
  return get_int(key_type, keys, i) == get_int(key_type, keys, j);
}

void clscan_ref_fill_offsets(size_t n, size_t mean_length, uint64_t seed, uint64_t *offsets,
                             size_t cap, size_t *n_segments) {
  uint64_t s = seed ^ 0x0FF5E7500FF5E750ull;
  uint64_t mean = mean_length ? mean_length : 1;
  size_t count = 0, pos = 0;
  while (count + 1 < cap) {
    offsets[count++] = pos;
    if (pos == n && (next_random(&s) % 2 == 0 || count + 1 >= cap))
      break;
    uint64_t r = next_random(&s);
    // A quarter of the segments are empty; the others average mean_length elements.
    size_t len = r % 4 == 0 ? 0 : (size_t)(1 + (r >> 8) % (2 * mean));
    pos = len > n - pos ? n : pos + len;
  }
  if (offsets[count - 1] != n)
    offsets[count++] = n;
  *n_segments = count - 1;
}

void clscan_ref_offsets_to_flags(const uint64_t *offsets, size_t n_segments, uint8_t *flags,
                                 size_t n) {
  memset(flags, 0, n);
  for (size_t s = 0; s <= n_segments; s++) {
    if (offsets[s] < n)
      flags[offsets[s]] = 1;
  }
}
