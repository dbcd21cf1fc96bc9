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
    case CLSCAN_INT8: return (uint64_t)(int64_t)((const int8_t *)p)[i];
    case CLSCAN_UINT8: return ((const uint8_t *)p)[i];
    case CLSCAN_INT16: return (uint64_t)(int64_t)((const int16_t *)p)[i];
    case CLSCAN_UINT16: return ((const uint16_t *)p)[i];
    case CLSCAN_INT32: return (uint64_t)(int64_t)((const int32_t *)p)[i];
    case CLSCAN_UINT32: return ((const uint32_t *)p)[i];
    default: return ((const uint64_t *)p)[i];
  }
}

/* Writes the low bits of a 64-bit pattern as element i. */
static void put_int(clscan_type t, void *p, size_t i, uint64_t v) {
  switch (clscan_type_size(t)) {
    case 1: ((uint8_t *)p)[i] = (uint8_t)v; break;
    case 2: ((uint16_t *)p)[i] = (uint16_t)v; break;
    case 4: ((uint32_t *)p)[i] = (uint32_t)v; break;
    default: ((uint64_t *)p)[i] = v; break;
  }
}

static int is_signed(clscan_type t) {
  return t == CLSCAN_INT8 || t == CLSCAN_INT16 || t == CLSCAN_INT32 || t == CLSCAN_INT64;
}
static int is_float(clscan_type t) { return t == CLSCAN_FLOAT || t == CLSCAN_DOUBLE; }

/* Combines two integers (sign-extended patterns) as the device does, then truncates. */
static uint64_t int_op(clscan_type t, clscan_op op, uint64_t a, uint64_t b) {
  unsigned bits = 8 * (unsigned)clscan_type_size(t);
  uint64_t mask = bits == 64 ? UINT64_MAX : (((uint64_t)1 << bits) - 1);
  uint64_t r;
  switch (op) {
    case CLSCAN_ADD: r = a + b; break;
    case CLSCAN_MUL: r = a * b; break;
    case CLSCAN_MIN: r = is_signed(t) ? ((int64_t)b < (int64_t)a ? b : a) : (b < a ? b : a); break;
    case CLSCAN_MAX: r = is_signed(t) ? ((int64_t)a < (int64_t)b ? b : a) : (a < b ? b : a); break;
    case CLSCAN_AND: r = a & b; break;
    case CLSCAN_OR: r = a | b; break;
    default: r = a ^ b; break;
  }
  r &= mask;
  // Sign-extend again so that later signed comparisons see the element's value.
  if (is_signed(t) && bits < 64 && (r >> (bits - 1)) & 1) r |= ~mask;
  return r;
}

/* The integer identity as a sign-extended pattern. */
static uint64_t int_identity(clscan_type t, clscan_op op) {
  unsigned bits = 8 * (unsigned)clscan_type_size(t);
  uint64_t all = bits == 64 ? UINT64_MAX : (((uint64_t)1 << bits) - 1);
  switch (op) {
    case CLSCAN_MUL: return 1;
    case CLSCAN_MIN: return is_signed(t) ? all >> 1 : all;
    case CLSCAN_MAX: return is_signed(t) ? ~(all >> 1) : 0;
    case CLSCAN_AND: return is_signed(t) ? UINT64_MAX : all;
    default: return 0;
  }
}

/* ============================================================================================== */
/* Floating-point elements                                                                        */
/* ============================================================================================== */

static long double get_float(clscan_type t, const void *p, size_t i) {
  return t == CLSCAN_FLOAT ? ((const float *)p)[i] : ((const double *)p)[i];
}

static long double float_op(clscan_op op, long double a, long double b) {
  switch (op) {
    case CLSCAN_ADD: return a + b;
    case CLSCAN_MUL: return a * b;
    case CLSCAN_MIN: return b < a ? b : a;
    default: return a < b ? b : a;
  }
}

static long double float_identity(clscan_op op) {
  return op == CLSCAN_MUL ? 1.0L : op == CLSCAN_MIN ? INFINITY : op == CLSCAN_MAX ? -INFINITY : 0;
}

/* ============================================================================================== */
/* Reference and check                                                                            */
/* ============================================================================================== */

/* The reference value before element i is combined: init or the identity. */
void clscan_ref_scan(const clscan_scan_desc *d, const void *in, void *out, size_t n) {
  if (is_float(d->type)) {
    long double acc = d->init ? get_float(d->type, d->init, 0) : float_identity(d->op);
    for (size_t i = 0; i < n; i++) {
      long double x = get_float(d->type, in, i), next = float_op(d->op, acc, x);
      long double v = d->exclusive ? acc : next;
      if (d->type == CLSCAN_FLOAT) ((float *)out)[i] = (float)v;
      else ((double *)out)[i] = (double)v;
      acc = next;
    }
    return;
  }
  uint64_t acc = d->init ? get_int(d->type, d->init, 0) : int_identity(d->type, d->op);
  for (size_t i = 0; i < n; i++) {
    uint64_t x = get_int(d->type, in, i), next = int_op(d->type, d->op, acc, x);
    put_int(d->type, out, i, d->exclusive ? acc : next);
    acc = next;
  }
}

/* Checks a floating-point result against the long double reference with the stated tolerance. */
static int check_float(const clscan_scan_desc *d, const void *in, const void *got, size_t n,
                       clscan_ref_mismatch *m) {
  double tol = d->type == CLSCAN_FLOAT ? CLSCAN_REF_FLOAT_TOL : CLSCAN_REF_DOUBLE_TOL;
  long double acc = d->init ? get_float(d->type, d->init, 0) : float_identity(d->op);
  long double scale = fabsl(acc);
  for (size_t i = 0; i < n; i++) {
    long double x = get_float(d->type, in, i), next = float_op(d->op, acc, x);
    long double want = d->exclusive ? acc : next, have = get_float(d->type, got, i);
    if (!d->exclusive) scale += fabsl(x);
    long double bound = d->op == CLSCAN_ADD ? tol * scale : d->op == CLSCAN_MUL ? tol * fabsl(want) : 0;
    int ok = (isinf(want) || d->op == CLSCAN_MIN || d->op == CLSCAN_MAX)
                 ? have == (d->type == CLSCAN_FLOAT ? (long double)(float)want : (long double)(double)want)
                 : fabsl(have - want) <= bound;
    if (!ok || isnan(have)) {
      if (m) {
        m->index = (int64_t)i;
        snprintf(m->detail, sizeof m->detail, "index %zu: got %.9Lg, want %.9Lg (bound %.3Lg)", i,
                 have, want, bound);
      }
      return 0;
    }
    if (d->exclusive) scale += fabsl(x);
    acc = next;
  }
  return 1;
}

int clscan_ref_check(const clscan_scan_desc *d, const void *in, const void *got, size_t n,
                     clscan_ref_mismatch *m) {
  if (m) {
    m->index = -1;
    m->detail[0] = '\0';
  }
  if (is_float(d->type)) return check_float(d, in, got, n, m);
  uint64_t acc = d->init ? get_int(d->type, d->init, 0) : int_identity(d->type, d->op);
  for (size_t i = 0; i < n; i++) {
    uint64_t next = int_op(d->type, d->op, acc, get_int(d->type, in, i));
    uint64_t want = d->exclusive ? acc : next, have = get_int(d->type, got, i);
    if (want != have) {
      if (m) {
        m->index = (int64_t)i;
        snprintf(m->detail, sizeof m->detail, "index %zu: got %" PRId64 ", want %" PRId64, i,
                 (int64_t)have, (int64_t)want);
      }
      return 0;
    }
    acc = next;
  }
  return 1;
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

void clscan_ref_fill(clscan_type type, clscan_op op, uint64_t seed, void *data, size_t n) {
  uint64_t s = seed;
  for (size_t i = 0; i < n; i++) {
    uint64_t r = next_random(&s);
    if (is_float(type)) {
      double u = (double)(r >> 11) / 9007199254740992.0; /* [0, 1) */
      // Sums of values in [-1, 1); products of values near 1 so that they neither vanish nor
      // overflow; min and max of values spread widely.
      double v = op == CLSCAN_MUL ? 0.999 + 0.002 * u : op == CLSCAN_ADD ? 2 * u - 1 : 2e6 * u - 1e6;
      if (type == CLSCAN_FLOAT) ((float *)data)[i] = (float)v;
      else ((double *)data)[i] = v;
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

void clscan_ref_format(clscan_type type, const void *data, size_t i, char *buf, size_t cap) {
  if (type == CLSCAN_FLOAT) snprintf(buf, cap, "%.9g", ((const float *)data)[i]);
  else if (type == CLSCAN_DOUBLE) snprintf(buf, cap, "%.17g", ((const double *)data)[i]);
  else if (is_signed(type)) snprintf(buf, cap, "%" PRId64, (int64_t)get_int(type, data, i));
  else snprintf(buf, cap, "%" PRIu64, get_int(type, data, i));
}
