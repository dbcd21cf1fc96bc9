/*
 * clscan tests: output types, user operators and types, maps, segmented and by-key scans, cell
 * by cell.
 *
 * Each cell is one descriptor (a spec of tests/user_specs.h) on one algorithm, scanned at sizes
 * around the tile and level boundaries of every algorithm plus random ones, each size with one of
 * the combinations inclusive/exclusive x initial value or none, one segment pattern (random
 * lengths, every element a head, one segment) and one way to reach the library (one-shot, plan,
 * timed plan, host arrays; offsets none, 16-byte aligned or odd; in place where the input and
 * output have the same size), in rotation, and checked element by element against the host
 * reference (tu_run_case), with the guards around the output, the input and the segment buffer.
 *
 * The cells are split into groups so that each process compiles a bounded number of programs
 * (POCL takes up to 2 s a program): `test_user_cells GROUP...` runs the named groups,
 * `test_user_cells` runs all, `test_user_cells --list` lists them.
 *   ops        user operators: affine maps and 2x2 matrices (non-commutative structs), int2 (an
 *              OpenCL vector type), max(a, b) on int32, a saturating add given as a function body
 *   types      output types: uint8 -> uint32 and uint64 sums, int8 -> int32 min and max,
 *              int32 -> float sums (in place too), float -> int32 with a bitwise operator
 *   map        maps: x * x + (i & 7) (also segmented), a running argmin through a (value, index)
 *              struct (also by key), uint8 -> uint32 keep-flags
 *   segmented  head flags: int32 add and affine maps
 *   bykey      keys: int32 add and affine maps on int32 and uint64 keys, uint32 and int64 keys
 *
 * Validation of these descriptors is test_user_errors.c's; program caching test_user_cache.c's.
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

#include "test_util.h"
#include "user_specs.h"

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
  tu_path path;
  int in_place;
  int offsets; /* 0: none, 1: 16-byte aligned, 2: odd */
} variant;

static const variant plain_variants[] = {
    {TU_PATH_ONE_SHOT, 0, 0},   {TU_PATH_PLAN, 0, 1},     {TU_PATH_ONE_SHOT, 1, 1},
    {TU_PATH_PLAN_TIMED, 0, 2}, {TU_PATH_HOST, 0, 0},     {TU_PATH_PLAN, 1, 2},
    {TU_PATH_HOST, 1, 0},       {TU_PATH_ONE_SHOT, 0, 2},
};
static const variant segmented_variants[] = {
    {TU_PATH_ONE_SHOT, 0, 0},   {TU_PATH_PLAN, 0, 1}, {TU_PATH_ONE_SHOT, 1, 2},
    {TU_PATH_PLAN_TIMED, 0, 2}, {TU_PATH_PLAN, 1, 0}, {TU_PATH_ONE_SHOT, 0, 1},
    {TU_PATH_PLAN_TIMED, 1, 1}, {TU_PATH_HOST, 0, 0},
};

/* Elements of `size` bytes in 16 bytes (at least 1). */
static size_t per_vector(size_t size) {
  return size >= 16 ? 1 : 16 / size;
}

/* Sets a case's path and offsets from variant v (offsets differ from size to size). */
static void set_variant(tu_case *c, const variant *v, size_t i) {
  const clscan_scan_desc *d = &c->spec->desc;
  size_t is = clscan_ref_in_size(d), os = clscan_ref_out_size(d);
  size_t ks = c->segments == CLSCAN_SEGMENTS_KEYS ? clscan_type_size(c->key_type) : 1;
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
  const tu_spec *spec;
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
static tu_case cell_case(const cell *cl, unsigned combo) {
  tu_case c = {.spec = cl->spec,
               .algorithm = cl->algo,
               .exclusive = (int)(combo & 1),
               .segments = cl->segments,
               .key_type = cl->key_type};
  if (combo & 2)
    tu_case_set_init(&c, tu_mix(tu_mix(tu_seed(), name_hash(cl->name)), 0x1417));
  return c;
}

/* Returns 1 if the device runs the cell; else checks that it is refused as unsupported. */
static int cell_supported(const cell *cl) {
  tu_case proto = cell_case(cl, 0);
  clscan_scan_desc desc;
  tu_case_desc(&proto, &desc);
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
    tu_case proto = cell_case(cl, combo);
    clscan_scan_desc desc;
    tu_case_desc(&proto, &desc);
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
    tu_case c = cell_case(cl, combo);
    c.pattern = (tu_pattern)((i + i / 4) % TU_PATTERN_COUNT);
    c.n = g_sizes[i];
    c.seed = tu_mix(cell_seed, i);
    set_variant(&c, &list[(i + i / 4) % nvar], i);
    c.plan = c.path == TU_PATH_PLAN || c.path == TU_PATH_PLAN_TIMED ? plans[combo] : NULL;
    ok = tu_run_case(tu_context(), &c, msg, sizeof msg);
  }
  for (unsigned combo = 0; combo < 4; combo++)
    clscan_plan_release(plans[combo]);
  if (!ok)
    fail_msg("%s", msg);
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
static void add_cell(group *g, const tu_spec *spec, clscan_algorithm algo, clscan_segments segments,
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
static void add_cells(group *g, const tu_spec *spec, clscan_segments segments,
                      clscan_type key_type) {
  for (size_t a = 0; a < ALGO_COUNT; a++)
    add_cell(g, spec, all_algos[a], segments, key_type);
}

static void build_ops(group *g) {
  const tu_spec *specs[] = {&uc_spec_affine, &uc_spec_mat2, &uc_spec_int2, &uc_spec_max,
                            &uc_spec_sat};
  for (size_t s = 0; s < sizeof specs / sizeof specs[0]; s++)
    add_cells(g, specs[s], CLSCAN_SEGMENTS_NONE, CLSCAN_INT32);
}

static void build_types(group *g) {
  const tu_spec *specs[] = {&uc_spec_u8_u32, &uc_spec_u8_u64, &uc_spec_i8_min, &uc_spec_i8_max,
                            &uc_spec_i32_float};
  for (size_t s = 0; s < sizeof specs / sizeof specs[0]; s++)
    add_cells(g, specs[s], CLSCAN_SEGMENTS_NONE, CLSCAN_INT32);
  add_cell(g, &uc_spec_float_xor, CLSCAN_ALGO_AUTO, CLSCAN_SEGMENTS_NONE, CLSCAN_INT32);
}

static void build_map(group *g) {
  add_cells(g, &uc_spec_square, CLSCAN_SEGMENTS_NONE, CLSCAN_INT32);
  add_cells(g, &uc_spec_square, CLSCAN_SEGMENTS_HEAD_FLAGS, CLSCAN_INT32);
  add_cells(g, &uc_spec_argmin, CLSCAN_SEGMENTS_NONE, CLSCAN_INT32);
  add_cells(g, &uc_spec_argmin, CLSCAN_SEGMENTS_KEYS, CLSCAN_INT32);
  add_cells(g, &uc_spec_keep, CLSCAN_SEGMENTS_NONE, CLSCAN_INT32);
}

static void build_segmented(group *g) {
  add_cells(g, &uc_spec_int32_add, CLSCAN_SEGMENTS_HEAD_FLAGS, CLSCAN_INT32);
  add_cells(g, &uc_spec_affine, CLSCAN_SEGMENTS_HEAD_FLAGS, CLSCAN_INT32);
  add_cell(g, &uc_spec_u8_u32, CLSCAN_ALGO_AUTO, CLSCAN_SEGMENTS_HEAD_FLAGS, CLSCAN_INT32);
  add_cell(g, &uc_spec_mat2, CLSCAN_ALGO_AUTO, CLSCAN_SEGMENTS_HEAD_FLAGS, CLSCAN_INT32);
}

static void build_bykey(group *g) {
  add_cells(g, &uc_spec_int32_add, CLSCAN_SEGMENTS_KEYS, CLSCAN_INT32);
  add_cells(g, &uc_spec_int32_add, CLSCAN_SEGMENTS_KEYS, CLSCAN_UINT64);
  add_cells(g, &uc_spec_affine, CLSCAN_SEGMENTS_KEYS, CLSCAN_INT32);
  add_cells(g, &uc_spec_affine, CLSCAN_SEGMENTS_KEYS, CLSCAN_UINT64);
  add_cell(g, &uc_spec_int32_add, CLSCAN_ALGO_AUTO, CLSCAN_SEGMENTS_KEYS, CLSCAN_UINT32);
  add_cell(g, &uc_spec_int32_add, CLSCAN_ALGO_AUTO, CLSCAN_SEGMENTS_KEYS, CLSCAN_INT64);
}

/* The groups, by name. */
static const struct {
  const char *name;
  void (*build)(group *g);
} groups[] = {{"ops", build_ops},
              {"types", build_types},
              {"map", build_map},
              {"segmented", build_segmented},
              {"bykey", build_bykey}};
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
      fprintf(stderr, "test_user_cells: unknown group %s (see --list)\n", name);
      return 2;
    }
    failed += r;
  }
  tu_context_release();
  printf("clscan tests: seed %" PRIu64 "\n", tu_seed());
  return failed ? 1 : 0;
}
