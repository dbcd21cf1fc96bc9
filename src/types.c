/*
 * clscan: element types and operators, the leaf of the library. Every table here is generated
 * from CLSCAN_TYPE_MAP and CLSCAN_OP_MAP in clscan.h, so names, sizes and OpenCL names cannot
 * disagree with the enums. Nothing here calls another clscan function.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "internal.h"

/* One built-in type's facts, from CLSCAN_TYPE_MAP. */
typedef struct type_facts {
  const char *name;
  const char *cl_name;
  size_t size;
  int is_signed;
  int is_float;
} type_facts;

static const type_facts types[CLSCAN_TYPE_COUNT] = {
#define TYPE_ROW_(name, value, text, cl_name, size, is_signed, is_float) \
  [value] = {text, cl_name, size, is_signed, is_float},
    CLSCAN_TYPE_MAP(TYPE_ROW_)
#undef TYPE_ROW_
};

static const char *const op_names[CLSCAN_OP_COUNT] = {
#define OP_ROW_(name, value, text) [value] = text,
    CLSCAN_OP_MAP(OP_ROW_)
#undef OP_ROW_
};

/* The maps and the COUNT macros agree: every built-in value has a row, and none is left over. */
#define TYPE_ONE_(...) +1
#define OP_ONE_(...) +1
_Static_assert(0 CLSCAN_TYPE_MAP(TYPE_ONE_) == CLSCAN_TYPE_COUNT, "CLSCAN_TYPE_COUNT");
_Static_assert(0 CLSCAN_OP_MAP(OP_ONE_) == CLSCAN_OP_COUNT, "CLSCAN_OP_COUNT");
#undef TYPE_ONE_
#undef OP_ONE_

int clscan__type_is_builtin(clscan_type t) {
  return (unsigned)t < CLSCAN_TYPE_COUNT;
}

int clscan__type_is_float(clscan_type t) {
  return clscan__type_is_builtin(t) && types[t].is_float;
}

const char *clscan__type_cl_name(clscan_type t) {
  return clscan__type_is_builtin(t) ? types[t].cl_name : NULL;
}

uint16_t clscan_half_from_double(double value) {
  uint64_t b;
  memcpy(&b, &value, sizeof b);
  const uint16_t sign = (uint16_t)((b >> 48) & 0x8000u);
  const int e = (int)((b >> 52) & 0x7FF);
  const uint64_t frac = b & ((UINT64_C(1) << 52) - 1);
  if (e == 0x7FF)
    return (uint16_t)(sign | (frac ? 0x7E00u : 0x7C00u));
  // The half's biased exponent; below -10 the value is under half the smallest subnormal, 2^-24.
  const int he = e - 1023 + 15;
  if (e == 0 || he < -10)
    return sign;
  // Drop the bits of the 53-bit significand that the half has no room for (more below its
  // normal range), rounding to nearest, ties to even.
  const uint64_t m = frac | (UINT64_C(1) << 52);
  const int shift = 42 + (he < 1 ? 1 - he : 0);
  const uint64_t rest = m & ((UINT64_C(1) << shift) - 1), tie = UINT64_C(1) << (shift - 1);
  uint64_t q = m >> shift;
  q += rest > tie || (rest == tie && (q & 1));
  // A subnormal's bits are its count of 2^-24 (1024 is the smallest normal's encoding); a
  // normal's significand carries into the exponent when it rounds up to 2048.
  uint32_t bits = he < 1 ? (uint32_t)q : ((uint32_t)he << 10) + (uint32_t)(q - 1024);
  if (bits > 0x7C00u)
    bits = 0x7C00u;
  return (uint16_t)(sign | bits);
}

double clscan_half_to_double(uint16_t half) {
  const unsigned e = (half >> 10) & 0x1Fu, m = half & 0x3FFu;
  double v;
  if (e == 0x1F)
    v = m ? NAN : INFINITY;
  else
    v = e ? ldexp((double)(m | 0x400u), (int)e - 25) : ldexp((double)m, -24);
  return (half & 0x8000u) ? -v : v;
}

const char *clscan__type_user_name(clscan_type t) {
  return t == CLSCAN_HALF ? "float" : clscan__type_cl_name(t);
}

size_t clscan_type_size(clscan_type type) {
  return clscan__type_is_builtin(type) ? types[type].size : 0;
}

const char *clscan_type_name(clscan_type type) {
  if (type == CLSCAN_USER_TYPE)
    return "user";
  return clscan__type_is_builtin(type) ? types[type].name : NULL;
}

const char *clscan_op_name(clscan_op op) {
  if (op == CLSCAN_USER_OP)
    return "user";
  return (unsigned)op < CLSCAN_OP_COUNT ? op_names[op] : NULL;
}

/* ============================================================================================== */
/* Identities                                                                                     */
/* ============================================================================================== */

/* Stores an integer identity of the given size and signedness. */
static void int_identity(clscan_op op, size_t size, int is_signed, void *bytes) {
  uint64_t v = 0;
  uint64_t all = size == 8 ? UINT64_MAX : (((uint64_t)1 << (8 * size)) - 1);
  uint64_t smax = all >> 1;
  switch (op) {
    case CLSCAN_MUL:
      v = 1;
      break;
    case CLSCAN_MIN:
      v = is_signed ? smax : all;
      break;
    case CLSCAN_MAX:
      v = is_signed ? smax + 1 : 0;
      break; /* the sign bit alone: the minimum */
    case CLSCAN_AND:
      v = all;
      break;
    default:
      v = 0;
      break;
  }
  memcpy(bytes, &v, size); /* little-endian hosts, like every OpenCL device we target */
}

void clscan__identity(clscan_type type, clscan_op op, void *bytes) {
  memset(bytes, 0, 8);
  if (type == CLSCAN_FLOAT) {
    float f = op == CLSCAN_MUL   ? 1.0f
              : op == CLSCAN_MIN ? INFINITY
              : op == CLSCAN_MAX ? -INFINITY
                                 : 0.0f;
    memcpy(bytes, &f, sizeof f);
  } else if (type == CLSCAN_HALF) {
    /* IEEE binary16 bits: 1.0, +infinity, -infinity, 0. */
    uint16_t h = op == CLSCAN_MUL   ? 0x3C00u
                 : op == CLSCAN_MIN ? 0x7C00u
                 : op == CLSCAN_MAX ? 0xFC00u
                                    : 0u;
    memcpy(bytes, &h, sizeof h);
  } else if (type == CLSCAN_DOUBLE) {
    double d = op == CLSCAN_MUL   ? 1.0
               : op == CLSCAN_MIN ? INFINITY
               : op == CLSCAN_MAX ? -INFINITY
                                  : 0.0;
    memcpy(bytes, &d, sizeof d);
  } else if (clscan__type_is_builtin(type)) {
    int_identity(op, types[type].size, types[type].is_signed, bytes);
  }
}

/* ============================================================================================== */
/* Descriptor sizes                                                                               */
/* ============================================================================================== */

clscan_type clscan__out_type(const clscan_scan_desc *d) {
  return d->out_type == CLSCAN_OUT_SAME ? d->type : (clscan_type)(d->out_type - 0x100);
}

size_t clscan__in_size(const clscan_scan_desc *d) {
  return d->type == CLSCAN_USER_TYPE ? d->type_size : clscan_type_size(d->type);
}

size_t clscan__out_size(const clscan_scan_desc *d) {
  clscan_type t = clscan__out_type(d);
  return t == CLSCAN_USER_TYPE ? d->type_size : clscan_type_size(t);
}

size_t clscan__aux_size(const clscan_scan_desc *d) {
  if (d->segments == CLSCAN_SEGMENTS_HEAD_FLAGS)
    return 1;
  if (d->segments == CLSCAN_SEGMENTS_KEYS)
    return d->key_type == CLSCAN_USER_TYPE ? d->key_size : clscan_type_size(d->key_type);
  if (d->segments == CLSCAN_SEGMENTS_OFFSETS)
    return clscan_type_size(d->key_type);
  return 0;
}
