/*
 * clscan tests: output types, user operators and types, maps, segmented and by-key scans.
 *
 * Each cell is one descriptor (a spec of tests/user_case.h) on one algorithm, scanned at sizes
 * around the tile and level boundaries of every algorithm plus random ones, each size with one of
 * the combinations inclusive/exclusive x initial value or none, one segment pattern (random
 * lengths, every element a head, one segment) and one way to reach the library (one-shot, plan,
 * timed plan, host arrays; offsets none, 16-byte aligned or odd; in place where the input and
 * output have the same size), in rotation, and checked element by element against the host
 * reference of user_case.c, with the guards around the output, the input and the segment buffer.
 *
 * The cells are split into groups so that each process compiles a bounded number of programs
 * (POCL takes up to 2 s a program): `test_user GROUP...` runs the named groups, `test_user` runs
 * all, `test_user --list` lists them.
 *   ops        user operators: affine maps and 2x2 matrices (non-commutative structs), int2 (an
 *              OpenCL vector type), max(a, b) on int32, a saturating add given as a function body
 *   types      output types: uint8 -> uint32 and uint64 sums, int8 -> int32 min and max,
 *              int32 -> float sums (in place too), float -> int32 with a bitwise operator
 *   map        maps: x * x + (i & 7) (also segmented), a running argmin through a (value, index)
 *              struct (also by key), uint8 -> uint32 keep-flags
 *   segmented  head flags: int32 add and affine maps
 *   bykey      keys: int32 add and affine maps on int32 and uint64 keys, uint32 and int64 keys
 *   errors     every validation status with the output untouched, sources that do not compile,
 *              type_size mismatches, buffer sizes of every buffer, overlaps, entry points, and
 *              programs built once per descriptor (counted through tests/cl_track.c)
 */
#include <inttypes.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cl_track.h"
#include "ref_scan.h"
#include "test_util.h"
#include "user_case.h"

/* ============================================================================================== */
/* Host twins of the OpenCL C                                                                     */
/* ============================================================================================== */

/* splitmix64 step, for the generators below. */
static uint64_t rnd(uint64_t *s) {
  uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/* A 2x2 matrix of uint, row-major; the operator is the matrix product a * b. */
typedef struct mat2 {
  uint32_t m[4];
} mat2;

static const char mat2_source[] = "typedef struct { uint m[4]; } mat2;";
static const char mat2_op_source[] =
    "{ mat2 r;"
    " r.m[0] = a.m[0] * b.m[0] + a.m[1] * b.m[2]; r.m[1] = a.m[0] * b.m[1] + a.m[1] * b.m[3];"
    " r.m[2] = a.m[2] * b.m[0] + a.m[3] * b.m[2]; r.m[3] = a.m[2] * b.m[1] + a.m[3] * b.m[3];"
    " return r; }";
static const mat2 mat2_identity = {{1, 0, 0, 1}};

static void mat2_op(const void *pa, const void *pb, void *pr) {
  mat2 a, b, r;
  memcpy(&a, pa, sizeof a);
  memcpy(&b, pb, sizeof b);
  r.m[0] = a.m[0] * b.m[0] + a.m[1] * b.m[2];
  r.m[1] = a.m[0] * b.m[1] + a.m[1] * b.m[3];
  r.m[2] = a.m[2] * b.m[0] + a.m[3] * b.m[2];
  r.m[3] = a.m[2] * b.m[1] + a.m[3] * b.m[3];
  memcpy(pr, &r, sizeof r);
}

static void mat2_fill(uint64_t seed, void *data, size_t n) {
  mat2 *v = data;
  for (size_t i = 0; i < n; i++) {
    uint64_t r = rnd(&seed), q = rnd(&seed);
    v[i] = (mat2){{(uint32_t)r, (uint32_t)(r >> 32), (uint32_t)q, (uint32_t)(q >> 32)}};
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
    v[i] = (int32_t)(rnd(&seed) % 2001) - 1000;
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
    v[i] = (uint32_t)(rnd(&seed) % (0xFFFFFFFFu / 600));
}

static void sat_init(uint64_t seed, void *data, size_t n) {
  uint32_t *v = data;
  for (size_t i = 0; i < n; i++)
    v[i] = (uint32_t)(rnd(&seed) % 0x80000000u);
}

/* int32 initial values in [-150, 150], within the int8 inputs' range for min and max. */
static void int8_range_init(uint64_t seed, void *data, size_t n) {
  int32_t *v = data;
  for (size_t i = 0; i < n; i++)
    v[i] = (int32_t)(rnd(&seed) % 301) - 150;
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
    v[i] = (int32_t)(rnd(&seed) % 80001) - 40000;
}

/* A running argmin: float x at index i maps to (x, i); the smaller value wins, and of equal
 * values the earlier one (a is always the earlier operand). */
typedef struct argmin {
  float v;
  uint32_t i;
} argmin;

static const char argmin_source[] = "typedef struct { float v; uint i; } argmin;";
static const char argmin_map_source[] = "{ argmin r; r.v = x; r.i = (uint)i; return r; }";
static const char argmin_op_source[] = "{ return b.v < a.v ? b : a; }";
static const argmin argmin_identity = {INFINITY, 0xFFFFFFFFu};

static void argmin_map(const void *px, uint64_t i, void *py) {
  argmin r;
  memcpy(&r.v, px, 4);
  r.i = (uint32_t)i;
  memcpy(py, &r, sizeof r);
}

static void argmin_op(const void *pa, const void *pb, void *pr) {
  argmin a, b;
  memcpy(&a, pa, sizeof a);
  memcpy(&b, pb, sizeof b);
  memcpy(pr, b.v < a.v ? &b : &a, sizeof a);
}

/* Whole numbers from -50 to 50 as floats: many ties. */
static void argmin_fill(uint64_t seed, void *data, size_t n) {
  float *v = data;
  for (size_t i = 0; i < n; i++)
    v[i] = (float)((int)(rnd(&seed) % 101) - 50);
}

static void argmin_init(uint64_t seed, void *data, size_t n) {
  argmin *v = data;
  for (size_t i = 0; i < n; i++) {
    uint64_t r = rnd(&seed);
    v[i] = (argmin){(float)((int)(r % 121) - 60), 0xFFFF0000u + (uint32_t)(r >> 40) % 100};
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
    uint64_t r = rnd(&seed);
    v[i] = r % 2 ? 0 : (uint8_t)(r >> 8);
  }
}

/* Whole numbers from 0 to 100000 as floats, for float -> int32 conversions. */
static void whole_float_fill(uint64_t seed, void *data, size_t n) {
  float *v = data;
  for (size_t i = 0; i < n; i++)
    v[i] = (float)(rnd(&seed) % 100001);
}

/* ============================================================================================== */
/* Specs                                                                                          */
/* ============================================================================================== */

/* The output type is named explicitly here (CLSCAN_OUT_USER_TYPE, the same user type). */
static const uc_spec spec_mat2 = {.name = "mat2",
                                  .desc = {.type = CLSCAN_USER_TYPE,
                                           .out_type = CLSCAN_OUT_USER_TYPE,
                                           .op = CLSCAN_USER_OP,
                                           .op_source = mat2_op_source,
                                           .identity = &mat2_identity,
                                           .type_source = mat2_source,
                                           .type_name = "mat2",
                                           .type_size = sizeof(mat2)},
                                  .op = mat2_op,
                                  .fill = mat2_fill,
                                  .fill_init = mat2_fill};

static const uc_spec spec_int2 = {.name = "int2-add",
                                  .desc = {.type = CLSCAN_USER_TYPE,
                                           .op = CLSCAN_USER_OP,
                                           .op_source = "a + b",
                                           .identity = int2_identity,
                                           .type_name = "int2",
                                           .type_size = 8},
                                  .op = int2_op,
                                  .fill = int2_fill,
                                  .fill_init = int2_fill};

static const uc_spec spec_max = {.name = "int32-user-max",
                                 .desc = {.type = CLSCAN_INT32,
                                          .op = CLSCAN_USER_OP,
                                          .op_source = "max(a, b)",
                                          .identity = &int32_min_value},
                                 .op = max_op};

static const uc_spec spec_sat = {.name = "uint32-saturating-body",
                                 .desc = {.type = CLSCAN_UINT32,
                                          .op = CLSCAN_USER_OP,
                                          .op_source = sat_op_source,
                                          .identity = &uint32_zero},
                                 .op = sat_op,
                                 .fill = sat_fill,
                                 .fill_init = sat_init};

static const uc_spec spec_u8_u32 = {
    .name = "uint8-to-uint32-add",
    .desc = {.type = CLSCAN_UINT8, .out_type = CLSCAN_OUT_UINT32, .op = CLSCAN_ADD}};
static const uc_spec spec_u8_u64 = {
    .name = "uint8-to-uint64-add",
    .desc = {.type = CLSCAN_UINT8, .out_type = CLSCAN_OUT_UINT64, .op = CLSCAN_ADD}};
static const uc_spec spec_i8_min = {
    .name = "int8-to-int32-min",
    .desc = {.type = CLSCAN_INT8, .out_type = CLSCAN_OUT_INT32, .op = CLSCAN_MIN},
    .fill_init = int8_range_init};
static const uc_spec spec_i8_max = {
    .name = "int8-to-int32-max",
    .desc = {.type = CLSCAN_INT8, .out_type = CLSCAN_OUT_INT32, .op = CLSCAN_MAX},
    .fill_init = int8_range_init};
static const uc_spec spec_i32_float = {
    .name = "int32-to-float-add",
    .desc = {.type = CLSCAN_INT32, .out_type = CLSCAN_OUT_FLOAT, .op = CLSCAN_ADD},
    .fill = small_int_fill};
static const uc_spec spec_float_xor = {
    .name = "float-to-int32-xor",
    .desc = {.type = CLSCAN_FLOAT, .out_type = CLSCAN_OUT_INT32, .op = CLSCAN_XOR},
    .fill = whole_float_fill};

static const uc_spec spec_square = {
    .name = "int32-square-map",
    .desc = {.type = CLSCAN_INT32, .op = CLSCAN_ADD, .map_source = square_map_source},
    .map = square_map,
    .fill = square_fill};

static const uc_spec spec_argmin = {.name = "float-argmin-map",
                                    .desc = {.type = CLSCAN_FLOAT,
                                             .out_type = CLSCAN_OUT_USER_TYPE,
                                             .op = CLSCAN_USER_OP,
                                             .op_source = argmin_op_source,
                                             .identity = &argmin_identity,
                                             .type_source = argmin_source,
                                             .type_name = "argmin",
                                             .type_size = sizeof(argmin),
                                             .map_source = argmin_map_source},
                                    .map = argmin_map,
                                    .op = argmin_op,
                                    .fill = argmin_fill,
                                    .fill_init = argmin_init};

static const uc_spec spec_keep = {.name = "uint8-keep-flags-map",
                                  .desc = {.type = CLSCAN_UINT8,
                                           .out_type = CLSCAN_OUT_UINT32,
                                           .op = CLSCAN_ADD,
                                           .map_source = "(uint)(x != 0)"},
                                  .map = keep_map,
                                  .fill = keep_fill};

static const uc_spec spec_int32_add = {.name = "int32-add",
                                       .desc = {.type = CLSCAN_INT32, .op = CLSCAN_ADD}};

/* ============================================================================================== */
/* Sizes and rotation                                                                             */
/* ============================================================================================== */

/* Sizes around tile and level boundaries (every algorithm's blocks are powers of two). */
static const size_t fixed_sizes[] = {0,    1,    2,     31,    32,    33,    255,   256,
                                     257,  511,  512,   513,   1023,  1024,  1025,  4095,
                                     4096, 4097, 32767, 32768, 32769, 65535, 65536, 65537};
#define FIXED_COUNT (sizeof fixed_sizes / sizeof fixed_sizes[0])
#define RANDOM_COUNT 3
static size_t g_sizes[FIXED_COUNT + RANDOM_COUNT];
static size_t g_size_count;

/* Builds the size list; the random sizes (up to about 300000) come from the base seed. */
static void build_sizes(void) {
  uint64_t s = tu_mix(tu_seed(), 0x05E7);
  memcpy(g_sizes, fixed_sizes, sizeof fixed_sizes);
  g_size_count = FIXED_COUNT;
  g_sizes[g_size_count++] = tu_random_size(&s, 3, 30000);
  g_sizes[g_size_count++] = tu_random_size(&s, 65538, 300000);
  g_sizes[g_size_count++] = tu_random_size(&s, 100000, 300000);
}

/* One way to reach the library. */
typedef struct variant {
  uc_path path;
  int in_place;
  int offsets; /* 0: none, 1: 16-byte aligned, 2: odd */
} variant;

static const variant plain_variants[] = {
    {UC_PATH_ONE_SHOT, 0, 0},   {UC_PATH_PLAN, 0, 1},     {UC_PATH_ONE_SHOT, 1, 1},
    {UC_PATH_PLAN_TIMED, 0, 2}, {UC_PATH_HOST, 0, 0},     {UC_PATH_PLAN, 1, 2},
    {UC_PATH_HOST, 1, 0},       {UC_PATH_ONE_SHOT, 0, 2},
};
static const variant segmented_variants[] = {
    {UC_PATH_ONE_SHOT, 0, 0},   {UC_PATH_PLAN, 0, 1}, {UC_PATH_ONE_SHOT, 1, 2},
    {UC_PATH_PLAN_TIMED, 0, 2}, {UC_PATH_PLAN, 1, 0}, {UC_PATH_ONE_SHOT, 0, 1},
    {UC_PATH_PLAN_TIMED, 1, 1}, {UC_PATH_HOST, 0, 0},
};

/* Elements of `size` bytes in 16 bytes (at least 1). */
static size_t per_vector(size_t size) {
  return size >= 16 ? 1 : 16 / size;
}

/* Sets a case's path and offsets from variant v (offsets differ from size to size). */
static void set_variant(uc_case *c, const variant *v, size_t i) {
  const clscan_scan_desc *d = &c->spec->desc;
  size_t is = uc_in_size(d), os = uc_out_size(d);
  size_t ks = c->segments == CLSCAN_SEGMENTS_KEYS ? uc_key_size(c->key_type) : 1;
  c->path = v->path;
  c->in_place = v->in_place && is == os;
  c->in_off = c->out_off = c->seg_off = 0;
  if (v->offsets == 1) {
    c->in_off = per_vector(is) * (1 + i % 5);
    c->out_off = per_vector(os) * (2 + i % 3);
    c->seg_off = per_vector(ks) * (1 + i % 4);
  } else if (v->offsets == 2) {
    c->in_off = 2 * (i % 4) + 1;
    c->out_off = i % 3;
    c->seg_off = 1 + i % 5;
  }
  if (c->in_place)
    c->in_off = c->out_off;
  c->one_shot_none = (i / 2) % 2;
}

/* ============================================================================================== */
/* Cells                                                                                          */
/* ============================================================================================== */

typedef struct cell {
  char name[128];
  const uc_spec *spec;
  clscan_algorithm algo;
  clscan_segments segments;
  clscan_type key_type;
} cell;

/* FNV-1a of a name: part of each case's seed. */
static uint64_t name_hash(const char *s) {
  uint64_t h = 1469598103934665603ull;
  for (; *s; s++)
    h = (h ^ (unsigned char)*s) * 1099511628211ull;
  return h;
}

/* A case of a cell with combination `combo` (bit 0: exclusive, bit 1: initial value). */
static uc_case cell_case(const cell *cl, unsigned combo) {
  uc_case c = {.spec = cl->spec,
               .algorithm = cl->algo,
               .exclusive = (int)(combo & 1),
               .segments = cl->segments,
               .key_type = cl->key_type};
  if (combo & 2)
    uc_case_set_init(&c, tu_mix(tu_mix(tu_seed(), name_hash(cl->name)), 0x1417));
  return c;
}

/* Returns 1 if the device runs the cell; else checks that it is refused as unsupported. */
static int cell_supported(const cell *cl) {
  uc_case proto = cell_case(cl, 0);
  clscan_scan_desc desc;
  uc_case_desc(&proto, &desc, 1);
  clscan_status st = clscan_context_supports(tu_context(), &desc);
  if (st == CLSCAN_SUCCESS)
    return 1;
  if (st != CLSCAN_UNSUPPORTED_BY_DEVICE)
    fail_msg("%s: clscan_context_supports returned %s (%s)", cl->name, clscan_status_string(st),
             clscan_last_error_detail());
  clscan_plan *plan = NULL;
  assert_int_equal(clscan_plan_create(tu_context(), &desc, &plan), CLSCAN_UNSUPPORTED_BY_DEVICE);
  printf("  %s: not supported by this device (%s): checked that it is refused\n", cl->name,
         clscan_last_error_detail());
  return 0;
}

/* A cmocka test: every size of one cell, with plans made once per combination. */
static void test_cell(void **state) {
  const cell *cl = *state;
  clscan_plan *plans[4] = {NULL, NULL, NULL, NULL};
  char msg[1200] = "";
  if (!cell_supported(cl))
    return;
  for (unsigned combo = 0; combo < 4; combo++) {
    uc_case proto = cell_case(cl, combo);
    clscan_scan_desc desc;
    uc_case_desc(&proto, &desc, 1);
    clscan_status st = clscan_plan_create(tu_context(), &desc, &plans[combo]);
    if (st != CLSCAN_SUCCESS)
      fail_msg("%s: clscan_plan_create returned %s (%s)", cl->name, clscan_status_string(st),
               clscan_last_error_detail());
  }
  int segmented = cl->segments != CLSCAN_SEGMENTS_NONE, ok = 1;
  const variant *list = segmented ? segmented_variants : plain_variants;
  size_t nvar = segmented ? sizeof segmented_variants / sizeof segmented_variants[0]
                          : sizeof plain_variants / sizeof plain_variants[0];
  uint64_t cell_seed = tu_mix(tu_seed(), name_hash(cl->name));
  for (size_t i = 0; ok && i < g_size_count; i++) {
    // Combinations, patterns and variants rotate so that every pair of the first two occurs.
    unsigned combo = (unsigned)(i % 4);
    uc_case c = cell_case(cl, combo);
    c.pattern = (uc_pattern)((i + i / 4) % UC_PATTERN_COUNT);
    c.n = g_sizes[i];
    c.seed = tu_mix(cell_seed, i);
    set_variant(&c, &list[(i + i / 4) % nvar], i);
    c.plan = c.path == UC_PATH_PLAN || c.path == UC_PATH_PLAN_TIMED ? plans[combo] : NULL;
    ok = uc_run_case(tu_context(), &c, msg, sizeof msg);
  }
  for (unsigned combo = 0; combo < 4; combo++)
    clscan_plan_release(plans[combo]);
  if (!ok)
    fail_msg("%s", msg);
}

/* ============================================================================================== */
/* Errors: fixture and checks                                                                     */
/* ============================================================================================== */

/* Elements the error tests scan, and the bytes of their buffers. */
#define EN 8
#define EBYTES 1024

static cl_mem g_in, g_out, g_seg;

static int errors_setup(void **state) {
  if (tu_group_setup(state) != 0)
    return -1;
  clscan_context *ctx = tu_context();
  unsigned char bytes[EBYTES];
  for (size_t i = 0; i < EBYTES; i++)
    bytes[i] = (unsigned char)(i % 7 == 0 ? 1 : 0);
  g_in = tu_buffer(ctx, CL_MEM_READ_WRITE, EBYTES);
  g_out = tu_buffer(ctx, CL_MEM_READ_WRITE, EBYTES);
  g_seg = tu_buffer(ctx, CL_MEM_READ_WRITE, EBYTES);
  if (!g_in || !g_out || !g_seg || !tu_write(ctx, NULL, g_in, 0, EBYTES, bytes) ||
      !tu_write(ctx, NULL, g_seg, 0, EBYTES, bytes))
    return -1;
  return 0;
}

static int errors_teardown(void **state) {
  clReleaseMemObject(g_in);
  clReleaseMemObject(g_out);
  clReleaseMemObject(g_seg);
  return tu_group_teardown(state);
}

/* Fills a buffer with the poison byte. */
static void poison(cl_mem buf, size_t bytes) {
  unsigned char *p = malloc(bytes);
  assert_non_null(p);
  memset(p, TU_POISON, bytes);
  assert_true(tu_write(tu_context(), NULL, buf, 0, bytes, p));
  free(p);
}

/* Checks that a buffer still holds only the poison byte. */
static int still_poisoned(cl_mem buf, size_t bytes) {
  unsigned char *p = malloc(bytes);
  assert_non_null(p);
  assert_true(tu_read(tu_context(), NULL, buf, 0, bytes, p));
  int same = tu_all_bytes(p, bytes, TU_POISON);
  free(p);
  return same;
}

/* Checks a call that must fail: its status, a detail, no event, and `out` untouched (pass NULL
 * for calls that have no device output). */
static void expect_status(const char *what, int line, clscan_status got, clscan_status want,
                          cl_event done, cl_mem out, size_t out_bytes) {
  char detail[512];
  snprintf(detail, sizeof detail, "%s", clscan_last_error_detail());
  if (got != want)
    fail_msg("line %d: %s returned %s (%d), want %s (%d); detail: %s", line, what,
             clscan_status_string(got), (int)got, clscan_status_string(want), (int)want, detail);
  if (want != CLSCAN_SUCCESS && detail[0] == '\0')
    fail_msg("line %d: %s: clscan_last_error_detail() is empty", line, what);
  if (want != CLSCAN_SUCCESS && done)
    fail_msg("line %d: %s failed but handed out an event", line, what);
  if (want != CLSCAN_SUCCESS && out && !still_poisoned(out, out_bytes))
    fail_msg("line %d: %s failed but changed the output buffer", line, what);
}

/* ============================================================================================== */
/* Errors: descriptors                                                                            */
/* ============================================================================================== */

/* A descriptor with exactly one defect, and the status every entry point must return. */
typedef struct bad_desc {
  const char *what;
  clscan_scan_desc desc;
  clscan_status want;
} bad_desc;

static const bad_desc bad_descs[] = {
    {"user op without op_source",
     {.type = CLSCAN_UINT32, .op = CLSCAN_USER_OP, .identity = &uint32_zero},
     CLSCAN_NULL_ARGUMENT},
    {"user op without identity",
     {.type = CLSCAN_UINT32, .op = CLSCAN_USER_OP, .op_source = "a + b"},
     CLSCAN_NULL_ARGUMENT},
    {"op_source with a built-in op",
     {.type = CLSCAN_UINT32, .op = CLSCAN_ADD, .op_source = "a + b"},
     CLSCAN_INVALID_VALUE},
    {"identity with a built-in op",
     {.type = CLSCAN_UINT32, .op = CLSCAN_ADD, .identity = &uint32_zero},
     CLSCAN_INVALID_VALUE},
    {"user input type without type_name",
     {.type = CLSCAN_USER_TYPE,
      .op = CLSCAN_USER_OP,
      .op_source = uc_affine_op_source,
      .identity = &uc_affine_identity,
      .type_source = uc_affine_source,
      .type_size = 8},
     CLSCAN_NULL_ARGUMENT},
    {"user output type without type_name",
     {.type = CLSCAN_FLOAT,
      .out_type = CLSCAN_OUT_USER_TYPE,
      .op = CLSCAN_USER_OP,
      .op_source = argmin_op_source,
      .identity = &argmin_identity,
      .type_source = argmin_source,
      .type_size = 8,
      .map_source = argmin_map_source},
     CLSCAN_NULL_ARGUMENT},
    {"user type with type_size 0",
     {.type = CLSCAN_USER_TYPE,
      .op = CLSCAN_USER_OP,
      .op_source = uc_affine_op_source,
      .identity = &uc_affine_identity,
      .type_source = uc_affine_source,
      .type_name = "affine"},
     CLSCAN_INVALID_VALUE},
    {"type_name without a user type",
     {.type = CLSCAN_INT32, .op = CLSCAN_ADD, .type_name = "int"},
     CLSCAN_INVALID_VALUE},
    {"type_source without a user type",
     {.type = CLSCAN_INT32, .op = CLSCAN_ADD, .type_source = uc_affine_source},
     CLSCAN_INVALID_VALUE},
    {"type_size without a user type",
     {.type = CLSCAN_INT32, .op = CLSCAN_ADD, .type_size = 4},
     CLSCAN_INVALID_VALUE},
    {"out_type CLSCAN_UINT32 (a clscan_type, 1) stored by mistake",
     {.type = CLSCAN_UINT8, .out_type = (clscan_out_type)CLSCAN_UINT32, .op = CLSCAN_ADD},
     CLSCAN_INVALID_TYPE},
    {"out_type 0x100 + CLSCAN_TYPE_COUNT",
     {.type = CLSCAN_UINT8, .out_type = (clscan_out_type)(0x100 + CLSCAN_TYPE_COUNT)},
     CLSCAN_INVALID_TYPE},
    {"out_type 0x100 + 63",
     {.type = CLSCAN_UINT8, .out_type = (clscan_out_type)(0x100 + 63)},
     CLSCAN_INVALID_TYPE},
    {"out_type CLSCAN_OUT_USER_TYPE + 1",
     {.type = CLSCAN_UINT8, .out_type = (clscan_out_type)(CLSCAN_OUT_USER_TYPE + 1)},
     CLSCAN_INVALID_TYPE},
    {"out_type -1", {.type = CLSCAN_UINT8, .out_type = (clscan_out_type)-1}, CLSCAN_INVALID_TYPE},
    {"type CLSCAN_USER_TYPE + 1",
     {.type = (clscan_type)(CLSCAN_USER_TYPE + 1)},
     CLSCAN_INVALID_TYPE},
    {"op CLSCAN_USER_OP + 1",
     {.type = CLSCAN_INT32, .op = (clscan_op)(CLSCAN_USER_OP + 1)},
     CLSCAN_INVALID_OP},
    {"user type with a built-in op",
     {.type = CLSCAN_USER_TYPE,
      .op = CLSCAN_ADD,
      .type_source = uc_affine_source,
      .type_name = "affine",
      .type_size = 8},
     CLSCAN_UNSUPPORTED_OP_FOR_TYPE},
    {"user output type (mapped) with a built-in op",
     {.type = CLSCAN_FLOAT,
      .out_type = CLSCAN_OUT_USER_TYPE,
      .op = CLSCAN_MIN,
      .type_source = argmin_source,
      .type_name = "argmin",
      .type_size = 8,
      .map_source = argmin_map_source},
     CLSCAN_UNSUPPORTED_OP_FOR_TYPE},
    {"xor on a float output type",
     {.type = CLSCAN_INT32, .out_type = CLSCAN_OUT_FLOAT, .op = CLSCAN_XOR},
     CLSCAN_UNSUPPORTED_OP_FOR_TYPE},
    {"and on a float output type from uint8",
     {.type = CLSCAN_UINT8, .out_type = CLSCAN_OUT_FLOAT, .op = CLSCAN_AND},
     CLSCAN_UNSUPPORTED_OP_FOR_TYPE},
    {"user input type to int32 without map_source",
     {.type = CLSCAN_USER_TYPE,
      .out_type = CLSCAN_OUT_INT32,
      .op = CLSCAN_ADD,
      .type_source = uc_affine_source,
      .type_name = "affine",
      .type_size = 8},
     CLSCAN_INVALID_VALUE},
    {"float to a user output type without map_source",
     {.type = CLSCAN_FLOAT,
      .out_type = CLSCAN_OUT_USER_TYPE,
      .op = CLSCAN_USER_OP,
      .op_source = argmin_op_source,
      .identity = &argmin_identity,
      .type_source = argmin_source,
      .type_name = "argmin",
      .type_size = 8},
     CLSCAN_INVALID_VALUE},
    {"segments 3", {.type = CLSCAN_INT32, .segments = (clscan_segments)3}, CLSCAN_INVALID_VALUE},
    {"segments -1", {.type = CLSCAN_INT32, .segments = (clscan_segments)-1}, CLSCAN_INVALID_VALUE},
    {"keys of type float",
     {.type = CLSCAN_INT32, .segments = CLSCAN_SEGMENTS_KEYS, .key_type = CLSCAN_FLOAT},
     CLSCAN_INVALID_TYPE},
    {"keys of type int8",
     {.type = CLSCAN_INT32, .segments = CLSCAN_SEGMENTS_KEYS, .key_type = CLSCAN_INT8},
     CLSCAN_INVALID_TYPE},
    {"keys of type uint16",
     {.type = CLSCAN_INT32, .segments = CLSCAN_SEGMENTS_KEYS, .key_type = CLSCAN_UINT16},
     CLSCAN_INVALID_TYPE},
    {"keys of a user type",
     {.type = CLSCAN_INT32, .segments = CLSCAN_SEGMENTS_KEYS, .key_type = CLSCAN_USER_TYPE},
     CLSCAN_INVALID_TYPE},
};
#define BAD_COUNT (sizeof bad_descs / sizeof bad_descs[0])

/* Calls the one-shot entry point that matches a descriptor's segments on the fixture's buffers. */
static clscan_status one_shot(const clscan_scan_desc *d, cl_event *done) {
  clscan_context *ctx = tu_context();
  if (d->segments == CLSCAN_SEGMENTS_KEYS)
    return clscan_scan_by_key(ctx, NULL, d, g_seg, 0, g_in, 0, g_out, 0, EN, 0, NULL, done);
  if (d->segments == CLSCAN_SEGMENTS_HEAD_FLAGS)
    return clscan_segmented_scan(ctx, NULL, d, g_seg, 0, g_in, 0, g_out, 0, EN, 0, NULL, done);
  return clscan_scan(ctx, NULL, d, g_in, 0, g_out, 0, EN, 0, NULL, done);
}

/* Every defect through plan creation, clscan_context_supports, the one-shot entry point and,
 * for unsegmented descriptors, clscan_scan_host. */
static void test_bad_descs(void **state) {
  (void)state;
  clscan_context *ctx = tu_context();
  for (size_t k = 0; k < BAD_COUNT; k++) {
    const bad_desc *b = &bad_descs[k];
    char what[160];
    tu_progress(b->what);
    clscan_plan *plan = (clscan_plan *)&plan;
    snprintf(what, sizeof what, "clscan_plan_create(%s)", b->what);
    expect_status(what, __LINE__, clscan_plan_create(ctx, &b->desc, &plan), b->want, NULL, NULL, 0);
    if (plan)
      fail_msg("%s: the plan was not set to NULL", what);
    snprintf(what, sizeof what, "clscan_context_supports(%s)", b->what);
    expect_status(what, __LINE__, clscan_context_supports(ctx, &b->desc), b->want, NULL, NULL, 0);
    cl_event done = NULL;
    poison(g_out, EBYTES);
    snprintf(what, sizeof what, "one-shot scan (%s)", b->what);
    expect_status(what, __LINE__, one_shot(&b->desc, &done), b->want, done, g_out, EBYTES);
    if (b->desc.segments == CLSCAN_SEGMENTS_NONE) {
      unsigned char in[EBYTES] = {0}, out[EBYTES];
      memset(out, TU_POISON, sizeof out);
      snprintf(what, sizeof what, "clscan_scan_host(%s)", b->what);
      expect_status(what, __LINE__, clscan_scan_host(ctx, &b->desc, in, out, EN), b->want, NULL,
                    NULL, 0);
      if (!tu_all_bytes(out, sizeof out, TU_POISON))
        fail_msg("%s failed but changed its output array", what);
    }
  }
  printf("  %zu defective descriptors refused by every entry point\n", BAD_COUNT);
}

/* Reads the context's build log; returns its length. */
static size_t build_log_length(clscan_context *ctx, char *buf, size_t cap) {
  size_t needed = 0;
  assert_int_equal(clscan_context_build_log(ctx, buf, cap, &needed), CLSCAN_SUCCESS);
  return needed ? needed - 1 : 0;
}

/* Scans 1000 affine maps with a plan on `ctx` and checks them (the context still works). */
static void check_affine_works(clscan_context *ctx, const char *after) {
  uc_case c = {.spec = &uc_spec_affine,
               .algorithm = CLSCAN_ALGO_AUTO,
               .n = 1000,
               .path = UC_PATH_ONE_SHOT,
               .seed = tu_mix(tu_seed(), 0xAF)};
  char msg[1200];
  if (!uc_run_case(ctx, &c, msg, sizeof msg))
    fail_msg("after %s: %s", after, msg);
}

/* Sources that do not compile: the status, a build log, the output untouched, and the context
 * still working afterwards. */
static void test_bad_sources(void **state) {
  (void)state;
  clscan_context *ctx = tu_context();
  clscan_scan_desc bad[5];
  for (int k = 0; k < 3; k++)
    bad[k] = uc_spec_affine.desc;
  bad[0].op_source = "a +* b";
  bad[1].op_source = "{ affine r = a; r.c = b.a; return r; }";
  bad[2].type_source = "typedef struct { uint a; no_such_type b; } affine;";
  bad[3] = (clscan_scan_desc){
      .type = CLSCAN_INT32, .op = CLSCAN_ADD, .map_source = "x * no_such_symbol"};
  bad[4] = (clscan_scan_desc){.type = CLSCAN_UINT32,
                              .op = CLSCAN_USER_OP,
                              .op_source = "{ return a + ; }",
                              .identity = &uint32_zero};
  const char *names[] = {"op expression", "op body", "type_source", "map expression",
                         "op body on uint32"};
  for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
    char what[128], log[4096];
    snprintf(what, sizeof what, "clscan_plan_create (bad %s)", names[k]);
    tu_progress(what);
    clscan_plan *plan = NULL;
    expect_status(what, __LINE__, clscan_plan_create(ctx, &bad[k], &plan),
                  CLSCAN_USER_SOURCE_INVALID, NULL, NULL, 0);
    assert_null(plan);
    if (build_log_length(ctx, log, sizeof log) == 0)
      fail_msg("%s: the build log is empty", what);
    printf("  bad %s: %s; build log starts: %.100s\n", names[k], clscan_last_error_detail(), log);
    cl_event done = NULL;
    poison(g_out, EBYTES);
    snprintf(what, sizeof what, "clscan_scan (bad %s)", names[k]);
    expect_status(what, __LINE__,
                  clscan_scan(ctx, NULL, &bad[k], g_in, 0, g_out, 0, EN, 0, NULL, &done),
                  CLSCAN_USER_SOURCE_INVALID, done, g_out, EBYTES);
    check_affine_works(ctx, what);
  }
}

/* type_size that differs from the device's sizeof(type_name). */
static void test_type_size_mismatch(void **state) {
  (void)state;
  clscan_context *ctx = tu_context();
  clscan_scan_desc bad[4] = {uc_spec_affine.desc, uc_spec_affine.desc, spec_int2.desc,
                             spec_argmin.desc};
  // The identity and init point at type_size bytes (the API's contract, which the library
  // relies on before a build can tell the sizes apart): give every case 16 readable bytes.
  static unsigned char identity16[3][16];
  memcpy(identity16[0], uc_spec_affine.desc.identity, 8);
  memcpy(identity16[1], &mat2_identity, 16);
  memcpy(identity16[2], &mat2_identity, 16);
  bad[0].type_size = 12;
  bad[0].identity = identity16[0];
  bad[0].init = NULL;
  bad[1].type_size = 4;
  bad[2].type_size = 16;
  bad[2].identity = identity16[1];
  bad[3].type_size = 16;
  bad[3].identity = identity16[2];
  bad[3].init = NULL;
  for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
    char what[128];
    snprintf(what, sizeof what, "clscan_plan_create (%s of %zu bytes)", bad[k].type_name,
             bad[k].type_size);
    tu_progress(what);
    clscan_plan *plan = NULL;
    expect_status(what, __LINE__, clscan_plan_create(ctx, &bad[k], &plan),
                  CLSCAN_TYPE_SIZE_MISMATCH, NULL, NULL, 0);
    assert_null(plan);
    cl_event done = NULL;
    poison(g_out, EBYTES);
    snprintf(what, sizeof what, "clscan_scan (%s of %zu bytes)", bad[k].type_name,
             bad[k].type_size);
    expect_status(what, __LINE__,
                  clscan_scan(ctx, NULL, &bad[k], g_in, 0, g_out, 0, EN, 0, NULL, &done),
                  CLSCAN_TYPE_SIZE_MISMATCH, done, g_out, EBYTES);
  }
  check_affine_works(ctx, "type_size mismatches");
}

/* Entry points that do not match the descriptor's segments, and NULL segment buffers. */
static void test_entry_points(void **state) {
  (void)state;
  clscan_context *ctx = tu_context();
  clscan_scan_desc flat = {.type = CLSCAN_INT32}, flags = flat, keys = flat;
  flags.segments = CLSCAN_SEGMENTS_HEAD_FLAGS;
  keys.segments = CLSCAN_SEGMENTS_KEYS;
  keys.key_type = CLSCAN_UINT64;
  clscan_plan *pflat = NULL, *pflags = NULL, *pkeys = NULL;
  assert_int_equal(clscan_plan_create(ctx, &flat, &pflat), CLSCAN_SUCCESS);
  assert_int_equal(clscan_plan_create(ctx, &flags, &pflags), CLSCAN_SUCCESS);
  assert_int_equal(clscan_plan_create(ctx, &keys, &pkeys), CLSCAN_SUCCESS);
  cl_event done = NULL, first = NULL;
#define EXPECT(call, want)                                                          \
  do {                                                                              \
    poison(g_out, EBYTES);                                                          \
    done = first = NULL;                                                            \
    expect_status(#call, __LINE__, (call), (want), done, g_out, EBYTES);            \
    if ((want) != CLSCAN_SUCCESS && first)                                          \
      fail_msg("line %d: %s failed but handed out a first event", __LINE__, #call); \
  } while (0)
  EXPECT(clscan_plan_enqueue(pflags, NULL, g_in, 0, g_out, 0, EN, 0, NULL, &done),
         CLSCAN_INVALID_VALUE);
  EXPECT(clscan_plan_enqueue(pkeys, NULL, g_in, 0, g_out, 0, EN, 0, NULL, &done),
         CLSCAN_INVALID_VALUE);
  EXPECT(clscan_plan_enqueue_timed(pflags, NULL, g_in, 0, g_out, 0, EN, 0, NULL, &first, &done),
         CLSCAN_INVALID_VALUE);
  EXPECT(clscan_plan_enqueue_segmented(pflat, NULL, g_seg, 0, g_in, 0, g_out, 0, EN, 0, NULL,
                                       &first, &done),
         CLSCAN_INVALID_VALUE);
  EXPECT(clscan_segmented_scan(ctx, NULL, &keys, g_seg, 0, g_in, 0, g_out, 0, EN, 0, NULL, &done),
         CLSCAN_INVALID_VALUE);
  EXPECT(clscan_scan_by_key(ctx, NULL, &flags, g_seg, 0, g_in, 0, g_out, 0, EN, 0, NULL, &done),
         CLSCAN_INVALID_VALUE);
  EXPECT(clscan_segmented_scan(ctx, NULL, &flat, NULL, 0, g_in, 0, g_out, 0, EN, 0, NULL, &done),
         CLSCAN_NULL_ARGUMENT);
  EXPECT(clscan_scan_by_key(ctx, NULL, &keys, NULL, 0, g_in, 0, g_out, 0, EN, 0, NULL, &done),
         CLSCAN_NULL_ARGUMENT);
  EXPECT(clscan_plan_enqueue_segmented(pflags, NULL, NULL, 0, g_in, 0, g_out, 0, EN, 0, NULL,
                                       &first, &done),
         CLSCAN_NULL_ARGUMENT);
  EXPECT(clscan_plan_enqueue_segmented(NULL, NULL, g_seg, 0, g_in, 0, g_out, 0, EN, 0, NULL, &first,
                                       &done),
         CLSCAN_NULL_ARGUMENT);
#undef EXPECT

  // clscan_scan and clscan_scan_host are not documented for segmented descriptors: whatever they
  // return, it must not be success, and they must not write.
  poison(g_out, EBYTES);
  clscan_status st = clscan_scan(ctx, NULL, &flags, g_in, 0, g_out, 0, EN, 0, NULL, &done);
  printf("  clscan_scan with a head-flags descriptor: %s\n", clscan_status_string(st));
  assert_int_not_equal(st, CLSCAN_SUCCESS);
  assert_true(still_poisoned(g_out, EBYTES));
  unsigned char in[64] = {0}, out[64];
  memset(out, TU_POISON, sizeof out);
  st = clscan_scan_host(ctx, &keys, in, out, EN);
  printf("  clscan_scan_host with a keys descriptor: %s\n", clscan_status_string(st));
  assert_int_not_equal(st, CLSCAN_SUCCESS);
  assert_true(tu_all_bytes(out, sizeof out, TU_POISON));
  clscan_plan_release(pflat);
  clscan_plan_release(pflags);
  clscan_plan_release(pkeys);
}

/* ============================================================================================== */
/* Errors: buffer sizes and overlaps                                                              */
/* ============================================================================================== */

/* A scan on buffers of exact sizes: `slack` bytes more (or, -1, one byte fewer) than needed. */
typedef struct sized {
  clscan_scan_desc desc;
  size_t n, in_off, out_off, seg_off;
  long in_slack, out_slack, seg_slack;
  clscan_status want;
} sized;

/* Flags (a head every 37 elements, as 3) or keys (runs of 50) for the sized scans. */
static void sized_segments(const clscan_scan_desc *d, size_t n, unsigned char *seg,
                           unsigned char *heads) {
  if (d->segments == CLSCAN_SEGMENTS_NONE)
    return;
  for (size_t i = 0; i < n; i++) {
    heads[i] = i == 0 || (d->segments == CLSCAN_SEGMENTS_HEAD_FLAGS ? i % 37 == 0 : i % 50 == 0);
    uint64_t key = i / 50 * 0x100000001ull;
    if (d->segments == CLSCAN_SEGMENTS_HEAD_FLAGS)
      seg[i] = i % 37 == 0 ? 3 : 0;
    else
      memcpy(seg + i * uc_key_size(d->key_type), &key, uc_key_size(d->key_type));
  }
}

/* Creates a buffer of exactly `bytes` bytes holding `data` at byte `at` (poison elsewhere). */
static cl_mem exact_buffer(size_t bytes, const void *data, size_t at, size_t len) {
  unsigned char *img = malloc(bytes + 1);
  assert_non_null(img);
  memset(img, TU_POISON, bytes);
  if (data)
    memcpy(img + at, data, len);
  cl_mem buf = tu_buffer(tu_context(), CL_MEM_READ_WRITE, bytes);
  assert_non_null(buf);
  assert_true(tu_write(tu_context(), NULL, buf, 0, bytes, img));
  free(img);
  return buf;
}

/* Runs a sized scan and checks its status and, on success, its result. */
static void run_sized(const sized *z, int line) {
  const clscan_scan_desc *d = &z->desc;
  size_t is = uc_in_size(d), os = uc_out_size(d);
  size_t ks = d->segments == CLSCAN_SEGMENTS_KEYS ? uc_key_size(d->key_type) : 1;
  unsigned char *input = malloc(z->n * is), *seg = malloc(z->n * ks), *heads = malloc(z->n);
  unsigned char *got = malloc((z->out_off + z->n) * os + 1);
  assert_true(input && seg && heads && got);
  clscan_ref_fill(d->type, d->op, tu_mix(tu_seed(), (uint64_t)line), input, z->n);
  sized_segments(d, z->n, seg, heads);
  cl_mem in =
      exact_buffer((z->in_off + z->n) * is + (size_t)z->in_slack, input, z->in_off * is, z->n * is);
  size_t out_bytes = (z->out_off + z->n) * os + (size_t)z->out_slack;
  cl_mem out = exact_buffer(out_bytes, NULL, 0, 0);
  cl_mem sb = exact_buffer((z->seg_off + z->n) * ks + (size_t)z->seg_slack, seg, z->seg_off * ks,
                           z->n * ks);
  cl_event done = NULL;
  clscan_context *ctx = tu_context();
  clscan_status st =
      d->segments == CLSCAN_SEGMENTS_KEYS
          ? clscan_scan_by_key(ctx, NULL, d, sb, z->seg_off, in, z->in_off, out, z->out_off, z->n,
                               0, NULL, &done)
      : d->segments == CLSCAN_SEGMENTS_HEAD_FLAGS
          ? clscan_segmented_scan(ctx, NULL, d, sb, z->seg_off, in, z->in_off, out, z->out_off,
                                  z->n, 0, NULL, &done)
          : clscan_scan(ctx, NULL, d, in, z->in_off, out, z->out_off, z->n, 0, NULL, &done);
  expect_status("sized scan", line, st, z->want, done, out, out_bytes);
  if (st == CLSCAN_SUCCESS) {
    uc_spec spec = {.name = "sized", .desc = *d};
    uc_case c = {
        .spec = &spec, .exclusive = d->exclusive, .segments = d->segments, .key_type = d->key_type};
    char detail[400];
    assert_int_equal(clWaitForEvents(1, &done), CL_SUCCESS);
    clReleaseEvent(done);
    assert_true(tu_read(ctx, NULL, out, 0, out_bytes, got));
    if (!tu_all_bytes(got, z->out_off * os, TU_POISON) ||
        !uc_check(&c, input, d->segments ? heads : NULL, got + z->out_off * os, z->n, detail,
                  sizeof detail))
      fail_msg("line %d: sized scan: wrong result: %s", line, detail);
  }
  clReleaseMemObject(in);
  clReleaseMemObject(out);
  clReleaseMemObject(sb);
  free(input);
  free(seg);
  free(heads);
  free(got);
}

/* Each buffer needs (offset + n) of its own elements: exactly that works, one byte less does not.
 */
static void test_buffer_sizes(void **state) {
  (void)state;
  const clscan_scan_desc widen = {.type = CLSCAN_UINT8, .out_type = CLSCAN_OUT_UINT32};
  const clscan_scan_desc narrow = {
      .type = CLSCAN_UINT32, .out_type = CLSCAN_OUT_UINT8, .exclusive = 1};
  const clscan_scan_desc flags = {.type = CLSCAN_INT32, .segments = CLSCAN_SEGMENTS_HEAD_FLAGS};
  const clscan_scan_desc keys64 = {.type = CLSCAN_INT32,
                                   .exclusive = 1,
                                   .segments = CLSCAN_SEGMENTS_KEYS,
                                   .key_type = CLSCAN_UINT64};
  const clscan_scan_desc keys32 = {.type = CLSCAN_UINT16,
                                   .out_type = CLSCAN_OUT_INT64,
                                   .segments = CLSCAN_SEGMENTS_KEYS,
                                   .key_type = CLSCAN_INT32};
  const sized cases[] = {
      {widen, 1000, 3, 2, 0, 0, 0, 0, CLSCAN_SUCCESS},
      {widen, 1000, 3, 2, 0, -1, 0, 0, CLSCAN_BUFFER_TOO_SMALL},
      {widen, 1000, 3, 2, 0, 0, -1, 0, CLSCAN_BUFFER_TOO_SMALL},
      {narrow, 1000, 1, 5, 0, 0, 0, 0, CLSCAN_SUCCESS},
      {narrow, 1000, 1, 5, 0, -1, 0, 0, CLSCAN_BUFFER_TOO_SMALL},
      {narrow, 1000, 1, 5, 0, 0, -1, 0, CLSCAN_BUFFER_TOO_SMALL},
      {flags, 1000, 0, 1, 5, 0, 0, 0, CLSCAN_SUCCESS},
      {flags, 1000, 0, 1, 5, 0, 0, -1, CLSCAN_BUFFER_TOO_SMALL},
      {keys64, 1000, 2, 0, 3, 0, 0, 0, CLSCAN_SUCCESS},
      {keys64, 1000, 2, 0, 3, 0, 0, -1, CLSCAN_BUFFER_TOO_SMALL},
      {keys64, 1000, 2, 0, 3, 0, -1, 0, CLSCAN_BUFFER_TOO_SMALL},
      {keys32, 1000, 1, 1, 7, 0, 0, 0, CLSCAN_SUCCESS},
      {keys32, 1000, 1, 1, 7, 0, 0, -1, CLSCAN_BUFFER_TOO_SMALL},
      {keys32, 1000, 1, 1, 7, -1, 0, 0, CLSCAN_BUFFER_TOO_SMALL},
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++)
    run_sized(&cases[k], (int)(1000 + k));
}

/* Scans n elements between two places of buffers (maybe the same one) and checks the status and,
 * on success, the result; `seg` may be NULL for unsegmented descriptors. */
static void run_placed(const clscan_scan_desc *d, cl_mem in, size_t in_off, cl_mem seg,
                       size_t seg_off, cl_mem out, size_t out_off, size_t n, clscan_status want,
                       int line) {
  size_t is = uc_in_size(d), os = uc_out_size(d);
  unsigned char *input = malloc(n * is), *segs = malloc(n * 8), *heads = malloc(n);
  unsigned char *got = malloc(n * os);
  assert_true(input && segs && heads && got);
  clscan_context *ctx = tu_context();
  assert_true(tu_read(ctx, NULL, in, in_off * is, n * is, input));
  if (seg) {
    size_t ks = d->segments == CLSCAN_SEGMENTS_KEYS ? uc_key_size(d->key_type) : 1;
    assert_true(tu_read(ctx, NULL, seg, seg_off * ks, n * ks, segs));
    for (size_t i = 0; i < n; i++)
      heads[i] =
          i == 0 || (ks == 1 ? segs[i] != 0 : memcmp(segs + i * ks, segs + (i - 1) * ks, ks));
  }
  cl_event done = NULL;
  clscan_status st = d->segments == CLSCAN_SEGMENTS_KEYS
                         ? clscan_scan_by_key(ctx, NULL, d, seg, seg_off, in, in_off, out, out_off,
                                              n, 0, NULL, &done)
                     : d->segments == CLSCAN_SEGMENTS_HEAD_FLAGS
                         ? clscan_segmented_scan(ctx, NULL, d, seg, seg_off, in, in_off, out,
                                                 out_off, n, 0, NULL, &done)
                         : clscan_scan(ctx, NULL, d, in, in_off, out, out_off, n, 0, NULL, &done);
  if (st != want)
    fail_msg("line %d: returned %s, want %s (%s)", line, clscan_status_string(st),
             clscan_status_string(want), clscan_last_error_detail());
  if (st == CLSCAN_SUCCESS) {
    uc_spec spec = {.name = "placed", .desc = *d};
    uc_case c = {
        .spec = &spec, .exclusive = d->exclusive, .segments = d->segments, .key_type = d->key_type};
    char detail[400];
    assert_int_equal(clWaitForEvents(1, &done), CL_SUCCESS);
    clReleaseEvent(done);
    assert_true(tu_read(ctx, NULL, out, out_off * os, n * os, got));
    if (!uc_check(&c, input, seg ? heads : NULL, got, n, detail, sizeof detail))
      fail_msg("line %d: wrong result: %s", line, detail);
  } else if (done) {
    fail_msg("line %d: failed but handed out an event", line);
  }
  free(input);
  free(segs);
  free(heads);
  free(got);
}

/* Fills a buffer with small pseudo-random bytes (every 7th zero). */
static cl_mem random_buffer(size_t bytes, uint64_t seed) {
  unsigned char *img = malloc(bytes);
  assert_non_null(img);
  for (size_t i = 0; i < bytes; i++)
    img[i] = i % 7 == 0 ? 0 : (unsigned char)(rnd(&seed) % 5);
  cl_mem buf = exact_buffer(bytes, img, 0, bytes);
  free(img);
  return buf;
}

/* Outputs overlapping flags or keys are refused; adjacent ones work. In place needs equal sizes. */
static void test_overlaps(void **state) {
  (void)state;
  const clscan_scan_desc flags = {.type = CLSCAN_INT32, .segments = CLSCAN_SEGMENTS_HEAD_FLAGS};
  const clscan_scan_desc keys = {
      .type = CLSCAN_INT32, .segments = CLSCAN_SEGMENTS_KEYS, .key_type = CLSCAN_UINT64};
  const clscan_scan_desc widen = {.type = CLSCAN_UINT8, .out_type = CLSCAN_OUT_UINT32};
  const clscan_scan_desc widen_flags = {
      .type = CLSCAN_UINT8, .out_type = CLSCAN_OUT_UINT32, .segments = CLSCAN_SEGMENTS_HEAD_FLAGS};
  const clscan_scan_desc to_float = {.type = CLSCAN_INT32, .out_type = CLSCAN_OUT_FLOAT};
  uint64_t seed = tu_mix(tu_seed(), 0x0E7);
  cl_mem shared = random_buffer(4096, seed), in = random_buffer(4096, seed + 1);
  const size_t n = 100;

  // Flags at bytes [0, 100): an int32 output from byte 40 overlaps them, one from byte 100 not.
  run_placed(&flags, in, 0, shared, 0, shared, 10, n, CLSCAN_OVERLAP, __LINE__);
  run_placed(&flags, in, 0, shared, 0, shared, 25, n, CLSCAN_SUCCESS, __LINE__);
  // uint64 keys at bytes [0, 800): output from byte 796 overlaps, from byte 800 not.
  run_placed(&keys, in, 0, shared, 0, shared, 199, n, CLSCAN_OVERLAP, __LINE__);
  run_placed(&keys, in, 0, shared, 0, shared, 200, n, CLSCAN_SUCCESS, __LINE__);
  // The input may be the flags themselves: both are only read.
  run_placed(&widen_flags, in, 8, in, 8, shared, 300, n, CLSCAN_SUCCESS, __LINE__);
  // In place needs equal sizes: uint8 -> uint32 at the same byte start overlaps.
  run_placed(&widen, shared, 40, NULL, 0, shared, 10, n, CLSCAN_OVERLAP, __LINE__);
  run_placed(&widen, shared, 0, NULL, 0, shared, 0, n, CLSCAN_OVERLAP, __LINE__);
  run_placed(&to_float, shared, 3, NULL, 0, shared, 3, n, CLSCAN_SUCCESS, __LINE__);
  clReleaseMemObject(shared);
  clReleaseMemObject(in);

  // Host arrays: in == out is allowed for equal sizes only.
  clscan_context *ctx = tu_context();
  int32_t host[256];
  for (int i = 0; i < 256; i++)
    host[i] = i % 13 - 6;
  uc_spec spec = {.name = "host-in-place", .desc = to_float};
  uc_case c = {.spec = &spec};
  int32_t copy[256];
  char detail[400];
  memcpy(copy, host, sizeof host);
  assert_int_equal(clscan_scan_host(ctx, &to_float, host, host, 256), CLSCAN_SUCCESS);
  if (!uc_check(&c, copy, NULL, host, 256, detail, sizeof detail))
    fail_msg("host in place, int32 -> float: %s", detail);
  memcpy(host, copy, sizeof host);
  assert_int_equal(clscan_scan_host(ctx, &widen, host, host, 256), CLSCAN_OVERLAP);
  assert_memory_equal(host, copy, sizeof host);
}

/* ============================================================================================== */
/* Programs built once per descriptor                                                             */
/* ============================================================================================== */

/* Returns a heap copy of a string (a different pointer with the same text). */
static char *copy_of(const char *s) {
  char *c = malloc(strlen(s) + 1);
  assert_non_null(c);
  strcpy(c, s);
  return c;
}

/* Returns the builds counted so far. */
static long builds_now(void) {
  tr_snapshot s;
  tr_snapshot_take(&s);
  return s.builds;
}

/* Runs a one-shot case (checked) on ctx. */
static void run_checked(clscan_context *ctx, const uc_case *c) {
  char msg[1200];
  if (!uc_run_case(ctx, c, msg, sizeof msg))
    fail_msg("%s", msg);
}

/*
 * On a fresh context: a user plan builds its programs once; a second plan for the same text
 * (other pointers) builds nothing; repeated clscan_segmented_scan and clscan_scan_by_key calls
 * (other inits, sizes and offsets) build only the first time; and nothing leaks.
 */
static void test_builds_once(void **state) {
  (void)state;
  clscan_context *shared = tu_context(), *ctx = NULL;
  tr_snapshot before, after;
  tr_snapshot_take(&before);
  assert_int_equal(
      clscan_context_create(clscan_context_cl_context(shared), clscan_context_device(shared), &ctx),
      CLSCAN_SUCCESS);
  clscan_scan_desc d = uc_spec_affine.desc;
  d.algorithm = CLSCAN_ALGO_REDUCE_THEN_SCAN;
  clscan_plan *p1 = NULL, *p2 = NULL;
  long b0 = builds_now();
  assert_int_equal(clscan_plan_create(ctx, &d, &p1), CLSCAN_SUCCESS);
  long b1 = builds_now();
  char *op = copy_of(d.op_source), *type = copy_of(d.type_source), *name = copy_of(d.type_name);
  uc_affine identity = uc_affine_identity;
  d.op_source = op;
  d.type_source = type;
  d.type_name = name;
  d.identity = &identity;
  d.exclusive = 1;
  assert_int_equal(clscan_plan_create(ctx, &d, &p2), CLSCAN_SUCCESS);
  long b2 = builds_now();
  printf("  builds: first affine plan %ld, second plan %ld\n", b1 - b0, b2 - b1);
  if (b1 - b0 < 1)
    fail_msg("the first plan built %ld programs: is clBuildProgram counted?", b1 - b0);
  if (b2 != b1)
    fail_msg("a second plan for the same descriptor built %ld programs", b2 - b1);
  clscan_plan_release(p1);
  clscan_plan_release(p2);
  free(op);
  free(type);
  free(name);

  // Repeated one-shot segmented scans: other inits, sizes and offsets, same descriptor.
  static const clscan_segments kinds[] = {CLSCAN_SEGMENTS_HEAD_FLAGS, CLSCAN_SEGMENTS_KEYS};
  for (int k = 0; k < 2; k++) {
    long first = 0, later = 0;
    for (int rep = 0; rep < 4; rep++) {
      // Offsets stay multiples of 16 bytes, so that every call can use the same I/O variant.
      size_t off = 2 * (size_t)rep;
      uc_case c = {.spec = &uc_spec_affine,
                   .algorithm = CLSCAN_ALGO_AUTO,
                   .segments = kinds[k],
                   .key_type = CLSCAN_UINT64,
                   .n = 3000 + 1000 * (size_t)rep,
                   .in_off = off,
                   .out_off = off,
                   .seg_off = k ? off : 8 * off,
                   .path = UC_PATH_ONE_SHOT,
                   .seed = tu_mix(tu_seed(), 0xB0 + (uint64_t)rep)};
      if (rep % 2)
        uc_case_set_init(&c, tu_mix(tu_seed(), 0xB1 + (uint64_t)rep));
      long b = builds_now();
      run_checked(ctx, &c);
      if (rep == 0)
        first = builds_now() - b;
      else
        later += builds_now() - b;
    }
    printf("  builds: %s one-shot: first call %ld, next three calls %ld\n",
           k ? "clscan_scan_by_key" : "clscan_segmented_scan", first, later);
    if (later != 0)
      fail_msg("repeated one-shot segmented scans built %ld more programs", later);
  }
  clscan_context_release(ctx);
  tr_snapshot_take(&after);
  char leaked[256];
  if (tr_leaked(&before, &after, leaked, sizeof leaked))
    fail_msg("after releasing the context, these OpenCL objects are left: %s", leaked);
}

/* Host twins for the cache-key test (and uc_uc_add_u32). */
static void xor_u32(const void *a, const void *b, void *r) {
  uint32_t x, y;
  memcpy(&x, a, 4);
  memcpy(&y, b, 4);
  x ^= y;
  memcpy(r, &x, 4);
}

static void min_u32(const void *a, const void *b, void *r) {
  uint32_t x, y;
  memcpy(&x, a, 4);
  memcpy(&y, b, 4);
  x = y < x ? y : x;
  memcpy(r, &x, 4);
}

static void below_1000(uint64_t seed, void *data, size_t n) {
  uint32_t *v = data;
  for (size_t i = 0; i < n; i++)
    v[i] = (uint32_t)(rnd(&seed) % 1000);
}

static void plus1(const void *x, uint64_t i, void *y) {
  (void)i;
  uint32_t v;
  memcpy(&v, x, 4);
  v += 1;
  memcpy(y, &v, 4);
}

static void plus2(const void *x, uint64_t i, void *y) {
  (void)i;
  uint32_t v;
  memcpy(&v, x, 4);
  v += 2;
  memcpy(y, &v, 4);
}

/*
 * Descriptors that differ only in op_source, map_source or identity must not share a cached
 * plan: one-shot scans of each, one after the other on the same context, all checked. (The
 * identities 5000 and 7000 are both identities of min on inputs below 1000; an exclusive scan
 * without init starts with the identity given.)
 */
static void test_cache_keys(void **state) {
  (void)state;
  static const uint32_t zero = 0, five = 5000, seven = 7000;
  const uc_spec specs[] = {
      {.name = "uint32 a + b",
       .desc =
           {.type = CLSCAN_UINT32, .op = CLSCAN_USER_OP, .op_source = "a + b", .identity = &zero},
       .op = uc_add_u32},
      {.name = "uint32 a ^ b",
       .desc =
           {.type = CLSCAN_UINT32, .op = CLSCAN_USER_OP, .op_source = "a ^ b", .identity = &zero},
       .op = xor_u32},
      {.name = "min, identity 5000",
       .desc = {.type = CLSCAN_UINT32,
                .op = CLSCAN_USER_OP,
                .op_source = "min(a, b)",
                .identity = &five},
       .op = min_u32,
       .fill = below_1000},
      {.name = "min, identity 7000",
       .desc = {.type = CLSCAN_UINT32,
                .op = CLSCAN_USER_OP,
                .op_source = "min(a, b)",
                .identity = &seven},
       .op = min_u32,
       .fill = below_1000},
      {.name = "map x + 1",
       .desc = {.type = CLSCAN_UINT32, .op = CLSCAN_ADD, .map_source = "x + 1"},
       .map = plus1},
      {.name = "map x + 2",
       .desc = {.type = CLSCAN_UINT32, .op = CLSCAN_ADD, .map_source = "x + 2"},
       .map = plus2},
  };
  for (int round = 0; round < 2; round++) {
    for (size_t k = 0; k < sizeof specs / sizeof specs[0]; k++) {
      uc_case c = {.spec = &specs[k],
                   .algorithm = CLSCAN_ALGO_AUTO,
                   .exclusive = 1,
                   .n = 777 + 100 * (size_t)round,
                   .path = UC_PATH_ONE_SHOT,
                   .seed = tu_mix(tu_seed(), 0xCA + k)};
      run_checked(tu_context(), &c);
    }
  }
}

/* An op expression calling a helper of type_source whose name contains "return": an
 * expression still, since the word `return` does not occur. */
static void test_return_word(void **state) {
  (void)state;
  const uc_spec spec = {
      .name = "affine via compose_return(a, b)",
      .desc = {.type = CLSCAN_USER_TYPE,
               .op = CLSCAN_USER_OP,
               .op_source = "compose_return(a, b)",
               .identity = &uc_affine_identity,
               .type_source = "typedef struct { uint a; uint b; } affine;\n"
                              "affine compose_return(affine f, affine g) {\n"
                              "  affine r; r.a = f.a * g.a; r.b = g.a * f.b + g.b; return r;\n"
                              "}\n",
               .type_name = "affine",
               .type_size = 8},
      .op = uc_affine_op,
      .fill = uc_affine_fill,
      .fill_init = uc_affine_fill};
  uc_case c = {.spec = &spec,
               .algorithm = CLSCAN_ALGO_AUTO,
               .exclusive = 1,
               .n = 5000,
               .path = UC_PATH_PLAN,
               .seed = tu_mix(tu_seed(), 0x7E)};
  uc_case_set_init(&c, tu_mix(tu_seed(), 0x7F));
  run_checked(tu_context(), &c);
}

/* ============================================================================================== */
/* Groups                                                                                         */
/* ============================================================================================== */

/* A group of cmocka tests built at run time. */
typedef struct group {
  const char *name;
  struct CMUnitTest tests[64];
  cell cells[64];
  size_t count;
  CMFixtureFunction setup, teardown;
} group;

static const clscan_algorithm all_algos[] = {CLSCAN_ALGO_BLELLOCH, CLSCAN_ALGO_HILLIS_STEELE,
                                             CLSCAN_ALGO_REDUCE_THEN_SCAN, CLSCAN_ALGO_SINGLE_PASS,
                                             CLSCAN_ALGO_AUTO};
#define ALGO_COUNT (sizeof all_algos / sizeof all_algos[0])

static void add_test(group *g, const char *name, CMUnitTestFunction fn, void *state) {
  if (g->count == sizeof g->tests / sizeof g->tests[0])
    abort();
  struct CMUnitTest t = {name, fn, NULL, NULL, state};
  g->tests[g->count++] = t;
}

/* Adds a cell for one algorithm. */
static void add_cell(group *g, const uc_spec *spec, clscan_algorithm algo, clscan_segments segments,
                     clscan_type key_type) {
  cell *cl = &g->cells[g->count];
  *cl = (cell){.spec = spec, .algo = algo, .segments = segments, .key_type = key_type};
  const char *seg = segments == CLSCAN_SEGMENTS_HEAD_FLAGS ? "/head-flags"
                    : segments == CLSCAN_SEGMENTS_KEYS     ? "/keys-"
                                                           : "";
  snprintf(cl->name, sizeof cl->name, "%s/%s%s%s", clscan_algorithm_name(algo), spec->name, seg,
           segments == CLSCAN_SEGMENTS_KEYS ? clscan_type_name(key_type) : "");
  add_test(g, cl->name, test_cell, cl);
}

/* Adds a cell for every algorithm. */
static void add_cells(group *g, const uc_spec *spec, clscan_segments segments,
                      clscan_type key_type) {
  for (size_t a = 0; a < ALGO_COUNT; a++)
    add_cell(g, spec, all_algos[a], segments, key_type);
}

static void build_ops(group *g) {
  const uc_spec *specs[] = {&uc_spec_affine, &spec_mat2, &spec_int2, &spec_max, &spec_sat};
  for (size_t s = 0; s < sizeof specs / sizeof specs[0]; s++)
    add_cells(g, specs[s], CLSCAN_SEGMENTS_NONE, CLSCAN_INT32);
}

static void build_types(group *g) {
  const uc_spec *specs[] = {&spec_u8_u32, &spec_u8_u64, &spec_i8_min, &spec_i8_max,
                            &spec_i32_float};
  for (size_t s = 0; s < sizeof specs / sizeof specs[0]; s++)
    add_cells(g, specs[s], CLSCAN_SEGMENTS_NONE, CLSCAN_INT32);
  add_cell(g, &spec_float_xor, CLSCAN_ALGO_AUTO, CLSCAN_SEGMENTS_NONE, CLSCAN_INT32);
}

static void build_map(group *g) {
  add_cells(g, &spec_square, CLSCAN_SEGMENTS_NONE, CLSCAN_INT32);
  add_cells(g, &spec_square, CLSCAN_SEGMENTS_HEAD_FLAGS, CLSCAN_INT32);
  add_cells(g, &spec_argmin, CLSCAN_SEGMENTS_NONE, CLSCAN_INT32);
  add_cells(g, &spec_argmin, CLSCAN_SEGMENTS_KEYS, CLSCAN_INT32);
  add_cells(g, &spec_keep, CLSCAN_SEGMENTS_NONE, CLSCAN_INT32);
}

static void build_segmented(group *g) {
  add_cells(g, &spec_int32_add, CLSCAN_SEGMENTS_HEAD_FLAGS, CLSCAN_INT32);
  add_cells(g, &uc_spec_affine, CLSCAN_SEGMENTS_HEAD_FLAGS, CLSCAN_INT32);
  add_cell(g, &spec_u8_u32, CLSCAN_ALGO_AUTO, CLSCAN_SEGMENTS_HEAD_FLAGS, CLSCAN_INT32);
  add_cell(g, &spec_mat2, CLSCAN_ALGO_AUTO, CLSCAN_SEGMENTS_HEAD_FLAGS, CLSCAN_INT32);
}

static void build_bykey(group *g) {
  add_cells(g, &spec_int32_add, CLSCAN_SEGMENTS_KEYS, CLSCAN_INT32);
  add_cells(g, &spec_int32_add, CLSCAN_SEGMENTS_KEYS, CLSCAN_UINT64);
  add_cells(g, &uc_spec_affine, CLSCAN_SEGMENTS_KEYS, CLSCAN_INT32);
  add_cells(g, &uc_spec_affine, CLSCAN_SEGMENTS_KEYS, CLSCAN_UINT64);
  add_cell(g, &spec_int32_add, CLSCAN_ALGO_AUTO, CLSCAN_SEGMENTS_KEYS, CLSCAN_UINT32);
  add_cell(g, &spec_int32_add, CLSCAN_ALGO_AUTO, CLSCAN_SEGMENTS_KEYS, CLSCAN_INT64);
}

static void build_errors(group *g) {
  add_test(g, "bad-descriptors", test_bad_descs, NULL);
  add_test(g, "sources-that-do-not-compile", test_bad_sources, NULL);
  add_test(g, "type-size-mismatch", test_type_size_mismatch, NULL);
  add_test(g, "entry-points", test_entry_points, NULL);
  add_test(g, "buffer-sizes", test_buffer_sizes, NULL);
  add_test(g, "overlaps-and-in-place", test_overlaps, NULL);
  add_test(g, "builds-once", test_builds_once, NULL);
  add_test(g, "cache-keys", test_cache_keys, NULL);
  add_test(g, "return-in-a-name", test_return_word, NULL);
  g->setup = errors_setup;
  g->teardown = errors_teardown;
}

/* The groups, by name. */
static const struct {
  const char *name;
  void (*build)(group *g);
} groups[] = {{"ops", build_ops},     {"types", build_types},
              {"map", build_map},     {"segmented", build_segmented},
              {"bykey", build_bykey}, {"errors", build_errors}};
#define GROUP_COUNT (sizeof groups / sizeof groups[0])

/* Runs one group by name; returns the number of failed tests, or -1 for an unknown name. */
static int run_group(const char *name) {
  static group g;
  for (size_t i = 0; i < GROUP_COUNT; i++) {
    if (strcmp(groups[i].name, name) != 0)
      continue;
    memset(&g, 0, sizeof g);
    g.name = name;
    g.setup = tu_group_setup;
    g.teardown = tu_group_teardown;
    groups[i].build(&g);
    return _cmocka_run_group_tests(g.name, g.tests, g.count, g.setup, g.teardown);
  }
  return -1;
}

int main(int argc, char **argv) {
  int failed = 0;
  if (argc > 1 && strcmp(argv[1], "--list") == 0) {
    for (size_t i = 0; i < GROUP_COUNT; i++)
      printf("%s\n", groups[i].name);
    return 0;
  }
  build_sizes();
  if (!tu_context())
    return 1;
  int count = argc > 1 ? argc - 1 : (int)GROUP_COUNT;
  for (int i = 0; i < count; i++) {
    const char *name = argc > 1 ? argv[i + 1] : groups[i].name;
    int r = run_group(name);
    if (r < 0) {
      fprintf(stderr, "test_user: unknown group %s (see --list)\n", name);
      return 2;
    }
    failed += r;
  }
  tu_context_release();
  printf("clscan tests: seed %" PRIu64 "\n", tu_seed());
  return failed ? 1 : 0;
}
