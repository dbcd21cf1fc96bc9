/*
 * clscan tests: descriptors with output types, user operators and types and maps, with the host
 * twins of their OpenCL C (see user_specs.h).
 */
#include "user_specs.h"

#include <math.h>
#include <string.h>

/* ============================================================================================== */
/* The affine-map type and uint32 a + b                                                           */
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

const tu_spec uc_spec_affine = {.name = "affine",
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
/* Host twins of the OpenCL C                                                                     */
/* ============================================================================================== */

uint64_t uc_rnd(uint64_t *s) {
  uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/* mat2: a 2x2 matrix of uint, row-major (uc_mat2); the operator is the matrix product a * b. */
static const char mat2_source[] = "typedef struct { uint m[4]; } mat2;";
static const char mat2_op_source[] =
    "{ mat2 r;"
    " r.m[0] = a.m[0] * b.m[0] + a.m[1] * b.m[2]; r.m[1] = a.m[0] * b.m[1] + a.m[1] * b.m[3];"
    " r.m[2] = a.m[2] * b.m[0] + a.m[3] * b.m[2]; r.m[3] = a.m[2] * b.m[1] + a.m[3] * b.m[3];"
    " return r; }";
const uc_mat2 uc_mat2_identity = {{1, 0, 0, 1}};

static void mat2_op(const void *pa, const void *pb, void *pr) {
  uc_mat2 a, b, r;
  memcpy(&a, pa, sizeof a);
  memcpy(&b, pb, sizeof b);
  r.m[0] = a.m[0] * b.m[0] + a.m[1] * b.m[2];
  r.m[1] = a.m[0] * b.m[1] + a.m[1] * b.m[3];
  r.m[2] = a.m[2] * b.m[0] + a.m[3] * b.m[2];
  r.m[3] = a.m[2] * b.m[1] + a.m[3] * b.m[3];
  memcpy(pr, &r, sizeof r);
}

static void mat2_fill(uint64_t seed, void *data, size_t n) {
  uc_mat2 *v = data;
  for (size_t i = 0; i < n; i++) {
    uint64_t r = uc_rnd(&seed), q = uc_rnd(&seed);
    v[i] = (uc_mat2){{(uint32_t)r, (uint32_t)(r >> 32), (uint32_t)q, (uint32_t)(q >> 32)}};
  }
}

/* int2, an OpenCL vector type (no type_source), added element-wise. */
static const int32_t int2_identity[2] = {0, 0};

static void int2_op(const void *pa, const void *pb, void *pr) {
  uint32_t a[2], b[2];
  memcpy(a, pa, 8);
  memcpy(b, pb, 8);
  a[0] += b[0];
  a[1] += b[1];
  memcpy(pr, a, 8);
}

/* Values in [-1000, 1000], so that no sum of up to 300000 overflows (signed overflow of a user
 * operator is the user's undefined behaviour). */
static void small_int_fill(uint64_t seed, void *data, size_t n) {
  int32_t *v = data;
  for (size_t i = 0; i < n; i++)
    v[i] = (int32_t)(uc_rnd(&seed) % 2001) - 1000;
}

static void int2_fill(uint64_t seed, void *data, size_t n) {
  small_int_fill(seed, data, 2 * n);
}

/* max(a, b) on int32, identity INT32_MIN. */
static const int32_t int32_min_value = INT32_MIN;

static void max_op(const void *pa, const void *pb, void *pr) {
  int32_t a, b;
  memcpy(&a, pa, 4);
  memcpy(&b, pb, 4);
  int32_t r = a < b ? b : a;
  memcpy(pr, &r, 4);
}

/* A saturating uint add, given as a function body: associative on unsigned values. */
static const char sat_op_source[] = "{ uint s = a + b; return s < a ? 0xFFFFFFFFu : s; }";
static const uint32_t uint32_zero = 0;

static void sat_op(const void *pa, const void *pb, void *pr) {
  uint32_t a, b;
  memcpy(&a, pa, 4);
  memcpy(&b, pb, 4);
  uint32_t s = a + b;
  s = s < a ? 0xFFFFFFFFu : s;
  memcpy(pr, &s, 4);
}

/* Values up to 2^32 / 600: sums saturate after about a thousand elements. */
static void sat_fill(uint64_t seed, void *data, size_t n) {
  uint32_t *v = data;
  for (size_t i = 0; i < n; i++)
    v[i] = (uint32_t)(uc_rnd(&seed) % (0xFFFFFFFFu / 600));
}

static void sat_init(uint64_t seed, void *data, size_t n) {
  uint32_t *v = data;
  for (size_t i = 0; i < n; i++)
    v[i] = (uint32_t)(uc_rnd(&seed) % 0x80000000u);
}

/* int32 initial values in [-150, 150], within the int8 inputs' range for min and max. */
static void int8_range_init(uint64_t seed, void *data, size_t n) {
  int32_t *v = data;
  for (size_t i = 0; i < n; i++)
    v[i] = (int32_t)(uc_rnd(&seed) % 301) - 150;
}

/* x * x + (int)(i & 7) on int32, with |x| <= 40000 so that x * x does not overflow. */
static const char square_map_source[] = "x * x + (int)(i & 7)";

static void square_map(const void *px, uint64_t i, void *py) {
  int32_t x;
  memcpy(&x, px, 4);
  uint32_t y = (uint32_t)x * (uint32_t)x + (uint32_t)(i & 7);
  memcpy(py, &y, 4);
}

static void square_fill(uint64_t seed, void *data, size_t n) {
  int32_t *v = data;
  for (size_t i = 0; i < n; i++)
    v[i] = (int32_t)(uc_rnd(&seed) % 80001) - 40000;
}

/* A running argmin (uc_argmin): float x at index i maps to (x, i); the smaller value wins, and of
 * equal values the earlier one (a is always the earlier operand). */
const char uc_argmin_source[] = "typedef struct { float v; uint i; } argmin;";
const char uc_argmin_map_source[] = "{ argmin r; r.v = x; r.i = (uint)i; return r; }";
const char uc_argmin_op_source[] = "{ return b.v < a.v ? b : a; }";
const uc_argmin uc_argmin_identity = {INFINITY, 0xFFFFFFFFu};

static void argmin_map(const void *px, uint64_t i, void *py) {
  uc_argmin r;
  memcpy(&r.v, px, 4);
  r.i = (uint32_t)i;
  memcpy(py, &r, sizeof r);
}

static void argmin_op(const void *pa, const void *pb, void *pr) {
  uc_argmin a, b;
  memcpy(&a, pa, sizeof a);
  memcpy(&b, pb, sizeof b);
  memcpy(pr, b.v < a.v ? &b : &a, sizeof a);
}

/* Whole numbers from -50 to 50 as floats: many ties. */
static void argmin_fill(uint64_t seed, void *data, size_t n) {
  float *v = data;
  for (size_t i = 0; i < n; i++)
    v[i] = (float)((int)(uc_rnd(&seed) % 101) - 50);
}

static void argmin_init(uint64_t seed, void *data, size_t n) {
  uc_argmin *v = data;
  for (size_t i = 0; i < n; i++) {
    uint64_t r = uc_rnd(&seed);
    v[i] = (uc_argmin){(float)((int)(r % 121) - 60), 0xFFFF0000u + (uint32_t)(r >> 40) % 100};
  }
}

/* uint8 -> uint32 keep-flags: 1 where the byte is not zero. */
static void keep_map(const void *px, uint64_t i, void *py) {
  (void)i;
  uint32_t y = *(const uint8_t *)px != 0;
  memcpy(py, &y, 4);
}

/* Bytes, about half of them zero. */
static void keep_fill(uint64_t seed, void *data, size_t n) {
  uint8_t *v = data;
  for (size_t i = 0; i < n; i++) {
    uint64_t r = uc_rnd(&seed);
    v[i] = r % 2 ? 0 : (uint8_t)(r >> 8);
  }
}

/* Whole numbers from 0 to 100000 as floats, for float -> int32 conversions. */
static void whole_float_fill(uint64_t seed, void *data, size_t n) {
  float *v = data;
  for (size_t i = 0; i < n; i++)
    v[i] = (float)(uc_rnd(&seed) % 100001);
}

/* ============================================================================================== */
/* Specs                                                                                          */
/* ============================================================================================== */

/* The output type is named explicitly here (CLSCAN_OUT_USER_TYPE, the same user type). */
const tu_spec uc_spec_mat2 = {.name = "mat2",
                              .desc = {.type = CLSCAN_USER_TYPE,
                                       .out_type = CLSCAN_OUT_USER_TYPE,
                                       .op = CLSCAN_USER_OP,
                                       .op_source = mat2_op_source,
                                       .identity = &uc_mat2_identity,
                                       .type_source = mat2_source,
                                       .type_name = "mat2",
                                       .type_size = sizeof(uc_mat2)},
                              .op = mat2_op,
                              .fill = mat2_fill,
                              .fill_init = mat2_fill};

const tu_spec uc_spec_int2 = {.name = "int2-add",
                              .desc = {.type = CLSCAN_USER_TYPE,
                                       .op = CLSCAN_USER_OP,
                                       .op_source = "a + b",
                                       .identity = int2_identity,
                                       .type_name = "int2",
                                       .type_size = 8},
                              .op = int2_op,
                              .fill = int2_fill,
                              .fill_init = int2_fill};

const tu_spec uc_spec_max = {.name = "int32-user-max",
                             .desc = {.type = CLSCAN_INT32,
                                      .op = CLSCAN_USER_OP,
                                      .op_source = "max(a, b)",
                                      .identity = &int32_min_value},
                             .op = max_op};

const tu_spec uc_spec_sat = {.name = "uint32-saturating-body",
                             .desc = {.type = CLSCAN_UINT32,
                                      .op = CLSCAN_USER_OP,
                                      .op_source = sat_op_source,
                                      .identity = &uint32_zero},
                             .op = sat_op,
                             .fill = sat_fill,
                             .fill_init = sat_init};

const tu_spec uc_spec_u8_u32 = {
    .name = "uint8-to-uint32-add",
    .desc = {.type = CLSCAN_UINT8, .out_type = CLSCAN_OUT_UINT32, .op = CLSCAN_ADD}};
const tu_spec uc_spec_u8_u64 = {
    .name = "uint8-to-uint64-add",
    .desc = {.type = CLSCAN_UINT8, .out_type = CLSCAN_OUT_UINT64, .op = CLSCAN_ADD}};
const tu_spec uc_spec_i8_min = {
    .name = "int8-to-int32-min",
    .desc = {.type = CLSCAN_INT8, .out_type = CLSCAN_OUT_INT32, .op = CLSCAN_MIN},
    .fill_init = int8_range_init};
const tu_spec uc_spec_i8_max = {
    .name = "int8-to-int32-max",
    .desc = {.type = CLSCAN_INT8, .out_type = CLSCAN_OUT_INT32, .op = CLSCAN_MAX},
    .fill_init = int8_range_init};
const tu_spec uc_spec_i32_float = {
    .name = "int32-to-float-add",
    .desc = {.type = CLSCAN_INT32, .out_type = CLSCAN_OUT_FLOAT, .op = CLSCAN_ADD},
    .fill = small_int_fill};
const tu_spec uc_spec_float_xor = {
    .name = "float-to-int32-xor",
    .desc = {.type = CLSCAN_FLOAT, .out_type = CLSCAN_OUT_INT32, .op = CLSCAN_XOR},
    .fill = whole_float_fill};

const tu_spec uc_spec_square = {
    .name = "int32-square-map",
    .desc = {.type = CLSCAN_INT32, .op = CLSCAN_ADD, .map_source = square_map_source},
    .map = square_map,
    .fill = square_fill};

const tu_spec uc_spec_argmin = {.name = "float-argmin-map",
                                .desc = {.type = CLSCAN_FLOAT,
                                         .out_type = CLSCAN_OUT_USER_TYPE,
                                         .op = CLSCAN_USER_OP,
                                         .op_source = uc_argmin_op_source,
                                         .identity = &uc_argmin_identity,
                                         .type_source = uc_argmin_source,
                                         .type_name = "argmin",
                                         .type_size = sizeof(uc_argmin),
                                         .map_source = uc_argmin_map_source},
                                .map = argmin_map,
                                .op = argmin_op,
                                .fill = argmin_fill,
                                .fill_init = argmin_init};

const tu_spec uc_spec_keep = {.name = "uint8-keep-flags-map",
                              .desc = {.type = CLSCAN_UINT8,
                                       .out_type = CLSCAN_OUT_UINT32,
                                       .op = CLSCAN_ADD,
                                       .map_source = "(uint)(x != 0)"},
                              .map = keep_map,
                              .fill = keep_fill};

const tu_spec uc_spec_int32_add = {.name = "int32-add",
                                   .desc = {.type = CLSCAN_INT32, .op = CLSCAN_ADD}};
