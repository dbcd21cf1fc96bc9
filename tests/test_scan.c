/*
 * clscan tests: the scan matrix.
 *
 * Every algorithm x type x valid operator x inclusive/exclusive x with/without an initial value
 * is scanned at sizes around the block and level boundaries of every algorithm, and verified
 * element by element against the host reference (tests/reference/ref_scan.h), with the guard
 * elements around the output range and the input checked too. Each size of a cell also rotates
 * through the ways to reach the library: clscan_scan, plans, timed plans and clscan_scan_host;
 * zero, aligned and unaligned offsets; out of place and in place.
 *
 * The matrix is split into groups so that CTest can run them in parallel and so that each
 * process compiles only the kernels it needs (POCL compiles one program per type x operator x
 * algorithm in up to 2 s): `test_scan GROUP...` runs the named groups, `test_scan` runs all,
 * `test_scan --list` lists them.
 *   full-*   int32 and int64 add with the full size list (every 2^k - 1, 2^k, 2^k + 1 up to
 *            2^24, odd multiples of block sizes, random sizes up to several million), float add
 *            at multi-million random sizes, an offset grid and sub-buffers.
 *   types-*  every other type x operator with the reduced size list.
 *   shapes   both single-pass kernels (CPU-shaped and GPU-shaped) through explicit plans.
 *   withhold the decoupled fallback (CLSCAN_TEST_WITHHOLD=2 and 3, both shapes).
 *   repeat   1000 single-pass launches back to back, and algorithms interleaved on one context.
 */
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ref_scan.h"
#include "test_util.h"

/* ============================================================================================== */
/* Sizes                                                                                          */
/* ============================================================================================== */

/*
 * Block sizes are powers of two on every device (Blelloch 2 * WG, Hillis-Steele WG, tiles
 * WG * VPT * 16 / sizeof(T), the CPU single pass 32768), and so are their level boundaries
 * (WG^2, (2 WG)^2, WG^3), so 2^k - 1, 2^k and 2^k + 1 for every k up to 24 cover all of them.
 */
#define FULL_MAX_LOG2 24
/* Odd multiples of block sizes and of the Blelloch level boundary, +-1. */
static const size_t odd_multiples[] = {3 * 256,   3 * 512,   5 * 1024,   3 * 2048,  7 * 4096,
                                       3 * 32768, 5 * 65536, 3 * 262144, 513 * 512, 257 * 256};
/* The reduced list for the other type x operator combinations. */
static const size_t reduced_fixed[] = {0,    1,    255,  256,  257,  511,   512,  513,
                                       2047, 2048, 2049, 4097, 8193, 32769, 65537};
/* Sizes of the decoupled-fallback tests (many tiles of either single-pass shape). */
static const size_t withhold_sizes[] = {1, 3001, 65537, 300007, 1000003};

static size_t full_sizes[3 * FULL_MAX_LOG2 + 64], full_count;
static size_t reduced_sizes[sizeof reduced_fixed / sizeof reduced_fixed[0] + 1], reduced_count;
static size_t float_large_sizes[3];

/* Sizes at and above this run with one inclusive/exclusive x init combination each. */
#define LARGE (1u << 20)

/* Builds the size lists; the random ones come from the base seed. */
static void build_sizes(void) {
  uint64_t s = tu_mix(tu_seed(), 0x51235);
  full_count = 0;
  for (size_t n = 0; n < 4; n++)
    full_sizes[full_count++] = n;
  for (unsigned k = 2; k <= FULL_MAX_LOG2; k++) {
    size_t p = (size_t)1 << k;
    full_sizes[full_count++] = p - 1;
    full_sizes[full_count++] = p;
    full_sizes[full_count++] = p + 1;
  }
  for (size_t i = 0; i < sizeof odd_multiples / sizeof odd_multiples[0]; i++) {
    full_sizes[full_count++] = odd_multiples[i] - 1;
    full_sizes[full_count++] = odd_multiples[i] + 1;
  }
  full_sizes[full_count++] = tu_random_size(&s, 2, 65535);
  full_sizes[full_count++] = tu_random_size(&s, 65536, LARGE - 1);
  full_sizes[full_count++] = tu_random_size(&s, LARGE, 4u << 20);
  full_sizes[full_count++] = tu_random_size(&s, 4u << 20, 8u << 20);
  reduced_count = sizeof reduced_fixed / sizeof reduced_fixed[0];
  memcpy(reduced_sizes, reduced_fixed, sizeof reduced_fixed);
  reduced_sizes[reduced_count++] = tu_random_size(&s, 2, 200000);
  for (size_t i = 0; i < 3; i++)
    float_large_sizes[i] = tu_random_size(&s, LARGE, 8u << 20);
}

/* ============================================================================================== */
/* Cells: one algorithm x type x operator over a size list                                        */
/* ============================================================================================== */

typedef struct scan_cell {
  char name[112];
  clscan_algorithm algo;
  clscan_type type;
  clscan_op op;
  const size_t *sizes;
  size_t count;
  int unaligned;        /* 1: the rotation includes unaligned offsets */
  const char *shape;    /* CLSCAN_SINGLE_PASS_CPU for explicit plans, or NULL */
  const char *withhold; /* CLSCAN_TEST_WITHHOLD for explicit plans, or NULL */
  const char *options;  /* CLSCAN_BUILD_OPTIONS added for explicit plans, or NULL */
} scan_cell;

/* One way to reach the library, chosen per size and combination. */
typedef struct variant {
  tu_path path;
  int in_place;
  int offsets; /* 0: none, 1: aligned to 16 bytes, 2: unaligned */
} variant;

/* Every way, for cells that may use the context's plan cache and host arrays. */
static const variant any_variants[] = {
    {TU_PATH_ONE_SHOT, 0, 0},   {TU_PATH_PLAN, 0, 1},     {TU_PATH_ONE_SHOT, 1, 1},
    {TU_PATH_PLAN_TIMED, 0, 2}, {TU_PATH_HOST, 0, 0},     {TU_PATH_PLAN, 1, 2},
    {TU_PATH_HOST, 1, 0},       {TU_PATH_ONE_SHOT, 0, 2},
};
/* Explicit plans only (plans made under CLSCAN_* environment variables). */
static const variant plan_variants[] = {
    {TU_PATH_PLAN, 0, 1},
    {TU_PATH_PLAN_TIMED, 1, 1},
    {TU_PATH_PLAN, 0, 2},
    {TU_PATH_PLAN, 1, 2},
};

/* Picks the variant of size i, combination `combo`, skipping unaligned ones if not allowed. */
static variant pick_variant(const scan_cell *cell, size_t i, unsigned combo) {
  int plans_only = cell->shape || cell->withhold;
  const variant *list = plans_only ? plan_variants : any_variants;
  size_t count = plans_only ? sizeof plan_variants / sizeof plan_variants[0]
                            : sizeof any_variants / sizeof any_variants[0];
  for (size_t k = 0;; k++) {
    variant v = list[(i + combo + k) % count];
    if (cell->unaligned || v.offsets != 2)
      return v;
  }
}

/* Sets a case's offsets for a variant (they differ from size to size). */
static void set_offsets(tu_case *c, const variant *v, size_t i) {
  size_t vec = 16 / clscan_type_size(c->type);
  c->in_place = v->in_place;
  c->in_off = c->out_off = 0;
  if (v->offsets == 1) {
    c->in_off = vec * (1 + i % 7);
    c->out_off = vec * (2 + i % 5);
  } else if (v->offsets == 2) {
    c->in_off = 2 * (i % 4) + 1; /* odd: never a multiple of a vector of 2 or more */
    c->out_off = i % 3;
  }
  if (c->in_place)
    c->in_off = c->out_off = (v->offsets ? c->in_off : 0);
}

/* FNV-1a of a cell's name: part of each case's seed. */
static uint64_t name_hash(const char *s) {
  uint64_t h = 1469598103934665603ull;
  for (; *s; s++)
    h = (h ^ (unsigned char)*s) * 1099511628211ull;
  return h;
}

/* The seed of a cell's initial value: one value per cell, so that clscan_scan() reuses plans. */
static uint64_t cell_init_seed(const scan_cell *cell) {
  return tu_mix(tu_mix(tu_seed(), name_hash(cell->name)), 0x1417);
}

/* Creates an explicit plan, under the cell's environment variables if it has any. */
static clscan_status cell_plan(const scan_cell *cell, const clscan_scan_desc *desc,
                               clscan_plan **plan) {
  tu_env_saved shape, withhold, options;
  if (cell->shape)
    tu_env_set("CLSCAN_SINGLE_PASS_CPU", cell->shape, &shape);
  if (cell->withhold)
    tu_env_set("CLSCAN_TEST_WITHHOLD", cell->withhold, &withhold);
  if (cell->options) {
    const char *prior = getenv("CLSCAN_BUILD_OPTIONS");
    char both[256];
    snprintf(both, sizeof both, "%s %s", prior ? prior : "", cell->options);
    tu_env_set("CLSCAN_BUILD_OPTIONS", both, &options);
  }
  clscan_status st = clscan_plan_create(tu_context(), desc, plan);
  if (cell->options)
    tu_env_restore(&options);
  if (cell->withhold)
    tu_env_restore(&withhold);
  if (cell->shape)
    tu_env_restore(&shape);
  return st;
}

/*
 * Checks that a descriptor the device cannot run is refused with CLSCAN_UNSUPPORTED_BY_DEVICE by
 * every entry point. Returns 1 when the cell is supported.
 */
static int cell_supported(const scan_cell *cell) {
  clscan_context *ctx = tu_context();
  clscan_scan_desc desc = {.type = cell->type, .op = cell->op, .algorithm = cell->algo};
  clscan_status st = clscan_context_supports(ctx, &desc);
  if (st == CLSCAN_SUCCESS)
    return 1;
  assert_int_equal(st, CLSCAN_UNSUPPORTED_BY_DEVICE);
  clscan_plan *plan = (clscan_plan *)&desc;
  assert_int_equal(clscan_plan_create(ctx, &desc, &plan), CLSCAN_UNSUPPORTED_BY_DEVICE);
  assert_null(plan);
  unsigned char host[64] = {0};
  assert_int_equal(clscan_scan_host(ctx, &desc, host, host, 4), CLSCAN_UNSUPPORTED_BY_DEVICE);
  cl_mem buf = tu_buffer(ctx, CL_MEM_READ_WRITE, 64);
  assert_non_null(buf);
  assert_int_equal(clscan_scan(ctx, NULL, &desc, buf, 0, buf, 0, 4, 0, NULL, NULL),
                   CLSCAN_UNSUPPORTED_BY_DEVICE);
  clReleaseMemObject(buf);
  printf("  %s: not supported by this device (%s): checked that it is refused\n", cell->name,
         clscan_last_error_detail());
  return 0;
}

/* Returns 1 if the device runs `algo` (int32 add); otherwise checks that every entry point
 * refuses it, as cell_supported() does, and returns 0. */
static int algo_supported(clscan_algorithm algo, const char *what) {
  scan_cell probe = {.algo = algo, .type = CLSCAN_INT32, .op = CLSCAN_ADD};
  snprintf(probe.name, sizeof probe.name, "%s/%s", clscan_algorithm_name(algo), what);
  return cell_supported(&probe);
}

/* Runs the cases of one combination; returns 1, or 0 with the first failure in msg. */
static int run_combo(const scan_cell *cell, unsigned combo, clscan_plan *plan, char *msg,
                     size_t cap) {
  clscan_context *ctx = tu_context();
  uint64_t cell_seed = tu_mix(tu_seed(), name_hash(cell->name));
  for (size_t i = 0; i < cell->count; i++) {
    // Large sizes run with one combination each, in turn.
    if (cell->sizes[i] >= LARGE && i % 4 != combo)
      continue;
    variant v = pick_variant(cell, i, combo);
    tu_case c = {.type = cell->type,
                 .op = cell->op,
                 .algorithm = cell->algo,
                 .exclusive = (int)(combo & 1),
                 .n = cell->sizes[i],
                 .path = v.path};
    if (combo & 2)
      tu_case_set_init(&c, cell_init_seed(cell));
    set_offsets(&c, &v, i);
    c.seed = tu_mix(cell_seed, i * 4 + combo);
    c.plan = v.path == TU_PATH_PLAN || v.path == TU_PATH_PLAN_TIMED ? plan : NULL;
    if (!tu_run_case(ctx, &c, msg, cap))
      return 0;
  }
  return 1;
}

/* A cmocka test: every combination of one cell. */
static void test_cell(void **state) {
  const scan_cell *cell = *state;
  char msg[768] = "";
  if (!cell_supported(cell))
    return;
  for (unsigned combo = 0; combo < 4; combo++) {
    // The combination's explicit plan: inclusive/exclusive, and init (fixed per cell).
    tu_case proto = {
        .type = cell->type, .op = cell->op, .algorithm = cell->algo, .exclusive = (int)(combo & 1)};
    if (combo & 2)
      tu_case_set_init(&proto, cell_init_seed(cell));
    clscan_scan_desc desc;
    clscan_plan *plan = NULL;
    tu_case_desc(&proto, &desc);
    clscan_status st = cell_plan(cell, &desc, &plan);
    if (st != CLSCAN_SUCCESS)
      fail_msg("%s: clscan_plan_create returned %s (%s)", cell->name, clscan_status_string(st),
               clscan_last_error_detail());
    int ok = run_combo(cell, combo, plan, msg, sizeof msg);
    clscan_plan_release(plan);
    if (!ok)
      fail_msg("%s", msg);
  }
}

/* ============================================================================================== */
/* Offset grid and sub-buffers                                                                    */
/* ============================================================================================== */

/* Every pair of a set of input and output offsets, and in place at each offset (int32 add). */
static void test_offset_grid(void **state) {
  const clscan_algorithm *algo = *state;
  static const size_t offsets[] = {0, 1, 2, 3, 4, 5, 8, 17, 1024};
  static const size_t sizes[] = {1, 700, 70001};
  const size_t count = sizeof offsets / sizeof offsets[0];
  char msg[768];
  uint64_t seed = tu_mix(tu_seed(), 0x0FF5E7 + (uint64_t)*algo);
  size_t k = 0;
  if (!algo_supported(*algo, "offset-grid"))
    return;
  for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
    for (size_t i = 0; i < count; i++) {
      for (size_t j = 0; j <= count; j++, k++) {
        // j == count means in place at offsets[i].
        tu_case c = {.type = CLSCAN_INT32,
                     .op = CLSCAN_ADD,
                     .algorithm = *algo,
                     .exclusive = (int)(k & 1),
                     .n = sizes[s],
                     .in_off = offsets[i],
                     .out_off = j < count ? offsets[j] : offsets[i],
                     .in_place = j == count,
                     .path = k % 3 == 0 ? TU_PATH_PLAN : TU_PATH_ONE_SHOT,
                     .seed = tu_mix(seed, k)};
        if (k % 4 >= 2)
          tu_case_set_init(&c, tu_mix(seed, 0x1417));
        if (!tu_run_case(tu_context(), &c, msg, sizeof msg))
          fail_msg("%s", msg);
      }
    }
  }
}

/* Fills a sub-buffer test's parent: poison everywhere, the input at its byte offset. */
static void fill_parent(unsigned char *img, size_t bytes, const int32_t *input, size_t n,
                        size_t at) {
  memset(img, TU_POISON, bytes);
  memcpy(img + at, input, n * sizeof *input);
}

/* Scans between sub-buffers of one parent: disjoint, and in place through one (the same bytes
 * through two objects are refused). */
static void test_sub_buffers(void **state) {
  const clscan_algorithm *algo = *state;
  clscan_context *ctx = tu_context();
  if (!algo_supported(*algo, "sub-buffers"))
    return;
  const size_t align = tu_sub_buffer_align(ctx, 16), n = 20001;
  const size_t region = (n * 4 / align + 2) * align, bytes = 3 * region;
  uint64_t seed = tu_mix(tu_seed(), 0x5B + (uint64_t)*algo);
  printf("  sub-buffers: n=%zu, origins multiples of %zu bytes, data seed %" PRIu64 "\n", n, align,
         seed);
  int32_t *input = malloc(n * 4);
  unsigned char *img = malloc(bytes);
  assert_non_null(input);
  assert_non_null(img);
  clscan_ref_fill(CLSCAN_INT32, CLSCAN_ADD, seed, input, n);
  cl_mem parent = tu_buffer(ctx, CL_MEM_READ_WRITE, bytes);
  assert_non_null(parent);
  cl_mem a = tu_sub_buffer(parent, 0, region), b = tu_sub_buffer(parent, region, region);
  assert_non_null(a);
  assert_non_null(b);
  clscan_scan_desc desc = {.type = CLSCAN_INT32, .op = CLSCAN_ADD, .algorithm = *algo};
  clscan_ref_mismatch mm;

  // Disjoint: a[3, 3 + n) into b[5, 5 + n); everything else keeps its bytes.
  for (int pass = 0; pass < 2; pass++) {
    desc.exclusive = pass;
    fill_parent(img, bytes, input, n, 3 * 4);
    assert_true(tu_write(ctx, NULL, parent, 0, bytes, img));
    assert_int_equal(clscan_scan(ctx, NULL, &desc, a, 3, b, 5, n, 0, NULL, NULL), CLSCAN_SUCCESS);
    assert_true(tu_read(ctx, NULL, parent, 0, bytes, img));
    if (!clscan_ref_check(&desc, input, img + region + 5 * 4, n, &mm))
      fail_msg("sub-buffers, disjoint, %s: %s (data seed %" PRIu64 ")",
               pass ? "exclusive" : "inclusive", mm.detail, seed);
    assert_memory_equal(img + 3 * 4, input, n * 4);
    assert_true(tu_all_bytes(img + region, 5 * 4, TU_POISON));
    assert_true(tu_all_bytes(img + region + (5 + n) * 4, region - (5 + n) * 4, TU_POISON));
  }

  // In place through the sub-buffer: b[2, 2 + n) into itself. The same bytes through two
  // objects (parent[region / 4 + 2 ...] is b[2 ...]) are refused, and nothing is written: OpenCL
  // leaves a kernel that writes through a buffer and its sub-buffer undefined.
  for (int pass = 0; pass < 2; pass++) {
    desc.exclusive = pass;
    fill_parent(img, bytes, input, n, region + 2 * 4);
    assert_true(tu_write(ctx, NULL, parent, 0, bytes, img));
    assert_int_equal(clscan_scan(ctx, NULL, &desc, parent, region / 4 + 2, b, 2, n, 0, NULL, NULL),
                     CLSCAN_OVERLAP);
    assert_int_equal(clscan_scan(ctx, NULL, &desc, b, 2, b, 2, n, 0, NULL, NULL), CLSCAN_SUCCESS);
    assert_true(tu_read(ctx, NULL, parent, 0, bytes, img));
    if (!clscan_ref_check(&desc, input, img + region + 2 * 4, n, &mm))
      fail_msg("sub-buffers, in place, %s: %s (data seed %" PRIu64 ")",
               pass ? "exclusive" : "inclusive", mm.detail, seed);
    assert_true(tu_all_bytes(img, region + 2 * 4, TU_POISON));
  }
  clReleaseMemObject(b);
  clReleaseMemObject(a);
  clReleaseMemObject(parent);
  free(img);
  free(input);
}

/* ============================================================================================== */
/* Repeated single-pass launches                                                                  */
/* ============================================================================================== */

/* What a repeat test runs. */
typedef struct repeat_spec {
  const char *name;
  const char *shape;    /* CLSCAN_SINGLE_PASS_CPU */
  const char *withhold; /* CLSCAN_TEST_WITHHOLD, or NULL */
  int in_place;
} repeat_spec;

#define REPEATS 1000
static const int checkpoints[] = {1, 2, 10, 333, 500, 999, REPEATS};

/* Returns 1 if launch i (from 1) is verified. */
static int is_checkpoint(int i) {
  for (size_t k = 0; k < sizeof checkpoints / sizeof checkpoints[0]; k++) {
    if (checkpoints[k] == i)
      return 1;
  }
  return 0;
}

/* Verifies the device's result after launch i against the host's. */
static void repeat_verify(const repeat_spec *r, cl_mem out, const uint32_t *want, uint32_t *got,
                          size_t n, int i, uint64_t seed) {
  assert_true(tu_read(tu_context(), NULL, out, 0, n * 4, got));
  for (size_t k = 0; k < n; k++) {
    if (got[k] != want[k])
      fail_msg("%s: launch %d of %d: index %zu: got %" PRIu32 ", want %" PRIu32
               " (n=%zu, data seed %" PRIu64 ")",
               r->name, i, REPEATS, k, got[k], want[k], n, seed);
  }
}

/*
 * Runs one plan REPEATS times back to back on the same buffers (epochs and tickets are reused
 * across launches). Out of place, the output is poisoned before each verified launch; in place,
 * each launch scans the previous result and the host follows along.
 */
static void test_repeat(void **state) {
  const repeat_spec *r = *state;
  clscan_context *ctx = tu_context();
  const size_t n = 5 * 32768 + 3;
  uint64_t seed = tu_mix(tu_seed(), name_hash(r->name));
  scan_cell cell = {.shape = r->shape, .withhold = r->withhold};
  clscan_scan_desc desc = {.type = CLSCAN_UINT32,
                           .op = CLSCAN_ADD,
                           .exclusive = r->in_place,
                           .algorithm = CLSCAN_ALGO_SINGLE_PASS};
  clscan_plan *plan = NULL;
  printf("  %s: n=%zu, %d launches, data seed %" PRIu64 "\n", r->name, n, REPEATS, seed);
  scan_cell probe = {.algo = desc.algorithm, .type = desc.type, .op = desc.op};
  snprintf(probe.name, sizeof probe.name, "%s", r->name);
  if (!cell_supported(&probe))
    return;
  assert_int_equal(cell_plan(&cell, &desc, &plan), CLSCAN_SUCCESS);
  uint32_t *host = malloc(n * 4), *want = malloc(n * 4), *got = malloc(n * 4);
  assert_true(host && want && got);
  clscan_ref_fill(desc.type, desc.op, seed, host, n);
  cl_mem in = tu_buffer(ctx, CL_MEM_READ_WRITE, n * 4);
  cl_mem out = r->in_place ? in : tu_buffer(ctx, CL_MEM_READ_WRITE, n * 4);
  assert_true(in && out && tu_write(ctx, NULL, in, 0, n * 4, host));
  memcpy(want, host, n * 4);
  if (!r->in_place)
    clscan_ref_scan(&desc, host, want, n);
  cl_command_queue q = clscan_context_queue(ctx);
  const cl_uint poison = 0xA5A5A5A5u;
  for (int i = 1; i <= REPEATS; i++) {
    char what[128];
    snprintf(what, sizeof what, "%s: launch %d", r->name, i);
    tu_progress(what);
    if (!r->in_place && is_checkpoint(i))
      assert_int_equal(clEnqueueFillBuffer(q, out, &poison, 4, 0, n * 4, 0, NULL, NULL),
                       CL_SUCCESS);
    clscan_status st = clscan_plan_enqueue(plan, NULL, in, 0, out, 0, n, 0, NULL, NULL);
    if (st != CLSCAN_SUCCESS)
      fail_msg("%s: launch %d: %s (%s)", r->name, i, clscan_status_string(st),
               clscan_last_error_detail());
    // In place, each launch scans the previous result; the host follows along.
    if (r->in_place)
      clscan_ref_scan(&desc, want, want, n);
    if (is_checkpoint(i))
      repeat_verify(r, out, want, got, n, i, seed);
  }
  if (out != in)
    clReleaseMemObject(out);
  clReleaseMemObject(in);
  clscan_plan_release(plan);
  free(host);
  free(want);
  free(got);
}

/* Interleaves every algorithm and both single-pass shapes on one context and its temporary
 * buffers, with sizes that make the buffers grow, verifying each scan. A device without the
 * single pass refuses it and runs AUTO in its steps. */
static void test_interleaved(void **state) {
  (void)state;
  static const clscan_algorithm order[] = {CLSCAN_ALGO_SINGLE_PASS, CLSCAN_ALGO_REDUCE_THEN_SCAN,
                                           CLSCAN_ALGO_SINGLE_PASS, CLSCAN_ALGO_BLELLOCH,
                                           CLSCAN_ALGO_SINGLE_PASS, CLSCAN_ALGO_HILLIS_STEELE,
                                           CLSCAN_ALGO_AUTO,        CLSCAN_ALGO_SINGLE_PASS};
  const size_t count = sizeof order / sizeof order[0];
  uint64_t s = tu_mix(tu_seed(), 0x1A7E);
  char msg[768];
  scan_cell gpu = {.shape = "0"}, cpu = {.shape = "1"};
  clscan_scan_desc desc = {
      .type = CLSCAN_INT32, .op = CLSCAN_ADD, .algorithm = CLSCAN_ALGO_SINGLE_PASS};
  clscan_plan *plans[2] = {NULL, NULL};
  const int single_pass = algo_supported(CLSCAN_ALGO_SINGLE_PASS, "interleaved");
  if (single_pass) {
    assert_int_equal(cell_plan(&gpu, &desc, &plans[0]), CLSCAN_SUCCESS);
    assert_int_equal(cell_plan(&cpu, &desc, &plans[1]), CLSCAN_SUCCESS);
  }
  for (size_t i = 0; i < 240; i++) {
    // Sizes grow slowly, with a small one now and then.
    size_t hi = 1000 + i * 4000;
    tu_case c = {.type = CLSCAN_INT32,
                 .op = CLSCAN_ADD,
                 .algorithm = order[i % count],
                 .n = i % 5 == 4 ? tu_random_size(&s, 0, 100) : tu_random_size(&s, hi / 2, hi),
                 .path = TU_PATH_ONE_SHOT,
                 .seed = tu_mix(s, i)};
    if (c.algorithm == CLSCAN_ALGO_SINGLE_PASS && !single_pass)
      c.algorithm = CLSCAN_ALGO_AUTO;
    // Every other single-pass scan goes through an explicit plan of either shape.
    if (c.algorithm == CLSCAN_ALGO_SINGLE_PASS && i % 2 == 0) {
      c.path = TU_PATH_PLAN;
      c.plan = plans[(i / 2) % 2];
    }
    if (!tu_run_case(tu_context(), &c, msg, sizeof msg))
      fail_msg("step %zu: %s", i, msg);
  }
  clscan_plan_release(plans[0]);
  clscan_plan_release(plans[1]);
}

/* ============================================================================================== */
/* Groups                                                                                         */
/* ============================================================================================== */

/* A group of cmocka tests built at run time. */
typedef struct group {
  const char *name;
  struct CMUnitTest *tests;
  size_t count, cap;
  void **owned; /* cells and names allocated for the tests, freed with the group */
  size_t owned_count, owned_cap;
} group;

/* Records an allocation the group frees after its tests ran; aborts on NULL. */
static void *own(group *g, void *p) {
  if (!p)
    abort();
  if (g->owned_count == g->owned_cap) {
    g->owned_cap = g->owned_cap ? 2 * g->owned_cap : 64;
    g->owned = realloc(g->owned, g->owned_cap * sizeof *g->owned);
    if (!g->owned)
      abort();
  }
  g->owned[g->owned_count++] = p;
  return p;
}

/* Frees a group's tests and what they own. */
static void group_free(group *g) {
  for (size_t i = 0; i < g->owned_count; i++)
    free(g->owned[i]);
  free(g->owned);
  free(g->tests);
}

static void add_test(group *g, const char *name, CMUnitTestFunction fn, void *state) {
  if (g->count == g->cap) {
    g->cap = g->cap ? 2 * g->cap : 64;
    g->tests = realloc(g->tests, g->cap * sizeof *g->tests);
    if (!g->tests)
      abort();
  }
  struct CMUnitTest t = {name, fn, NULL, NULL, state};
  g->tests[g->count++] = t;
}

/* Adds a cell test; returns its cell. */
static scan_cell *add_cell(group *g, clscan_algorithm algo, clscan_type type, clscan_op op,
                           const size_t *sizes, size_t count, int unaligned, const char *shape,
                           const char *withhold, const char *tag) {
  scan_cell *cell = own(g, calloc(1, sizeof *cell));
  *cell = (scan_cell){.algo = algo,
                      .type = type,
                      .op = op,
                      .sizes = sizes,
                      .count = count,
                      .unaligned = unaligned,
                      .shape = shape,
                      .withhold = withhold};
  snprintf(cell->name, sizeof cell->name, "%s/%s/%s/%s", clscan_algorithm_name(algo),
           clscan_type_name(type), clscan_op_name(op), tag);
  add_test(g, cell->name, test_cell, cell);
  return cell;
}

static int is_float_type(clscan_type t) {
  return t == CLSCAN_FLOAT || t == CLSCAN_DOUBLE;
}

/* Operators valid for a type. */
static int op_count(clscan_type t) {
  return is_float_type(t) ? 4 : CLSCAN_OP_COUNT;
}

/* Returns a lasting test name "ALGORITHM/what". */
static const char *extra_name(group *g, clscan_algorithm algo, const char *what) {
  char *name = own(g, malloc(64));
  snprintf(name, 64, "%s/%s", clscan_algorithm_name(algo), what);
  return name;
}

/* The full-size cells, offset grid and sub-buffers of some algorithms. */
static void build_full(group *g, const clscan_algorithm *algos, size_t count) {
  for (size_t a = 0; a < count; a++) {
    add_cell(g, algos[a], CLSCAN_INT32, CLSCAN_ADD, full_sizes, full_count, 1, NULL, NULL, "full");
    add_cell(g, algos[a], CLSCAN_INT64, CLSCAN_ADD, full_sizes, full_count, 1, NULL, NULL, "full");
    add_cell(g, algos[a], CLSCAN_FLOAT, CLSCAN_ADD, float_large_sizes, 3, 1, NULL, NULL, "large");
    add_test(g, extra_name(g, algos[a], "offset-grid"), test_offset_grid, (void *)&algos[a]);
    add_test(g, extra_name(g, algos[a], "sub-buffers"), test_sub_buffers, (void *)&algos[a]);
  }
}

/* The reduced-size cells of some algorithms and types (unaligned offsets with add only). */
static void build_types(group *g, const clscan_algorithm *algos, size_t count,
                        const clscan_type *types, size_t ntypes) {
  for (size_t a = 0; a < count; a++) {
    for (size_t t = 0; t < ntypes; t++) {
      for (int op = 0; op < op_count(types[t]); op++) {
        add_cell(g, algos[a], types[t], (clscan_op)op, reduced_sizes, reduced_count,
                 op == CLSCAN_ADD, NULL, NULL, "reduced");
      }
    }
  }
}

/* Every built-in type but half (tested in test_half.c). */
#define TYPES_ALL_COUNT 10
static const clscan_type types_all[TYPES_ALL_COUNT] = {
    CLSCAN_INT32,  CLSCAN_UINT32, CLSCAN_INT64, CLSCAN_UINT64, CLSCAN_FLOAT,
    CLSCAN_DOUBLE, CLSCAN_INT8,   CLSCAN_UINT8, CLSCAN_INT16,  CLSCAN_UINT16};

/* Both single-pass shapes through explicit plans. */
static void build_shapes(group *g) {
  static const char *const shapes[] = {"1", "0"};
  static const char *const tags[] = {"cpu-shape", "gpu-shape"};
  for (int s = 0; s < 2; s++) {
    add_cell(g, CLSCAN_ALGO_SINGLE_PASS, CLSCAN_INT32, CLSCAN_ADD, full_sizes, full_count, 1,
             shapes[s], NULL, tags[s]);
    for (size_t t = 0; t < TYPES_ALL_COUNT; t++) {
      int all_ops = types_all[t] == CLSCAN_INT32 || types_all[t] == CLSCAN_FLOAT;
      for (int op = 0; op < (all_ops ? op_count(types_all[t]) : 1); op++) {
        if (types_all[t] == CLSCAN_INT32 && op == CLSCAN_ADD)
          continue;
        add_cell(g, CLSCAN_ALGO_SINGLE_PASS, types_all[t], (clscan_op)op, reduced_sizes,
                 reduced_count, op == CLSCAN_ADD, shapes[s], NULL, tags[s]);
      }
    }
  }
}

/* The decoupled fallback: K = 2 and 3, both shapes, four types. */
static void build_withhold(group *g) {
  static const char *const shapes[] = {"1", "0"};
  static const char *const ks[] = {"2", "3"};
  static const clscan_type types[] = {CLSCAN_INT32, CLSCAN_INT64, CLSCAN_FLOAT, CLSCAN_DOUBLE};
  static char tags[2][2][32];
  for (int s = 0; s < 2; s++) {
    for (int k = 0; k < 2; k++) {
      snprintf(tags[s][k], sizeof tags[s][k], "%s-shape/withhold-%s", s ? "gpu" : "cpu", ks[k]);
      for (size_t t = 0; t < 4; t++) {
        add_cell(g, CLSCAN_ALGO_SINGLE_PASS, types[t], CLSCAN_ADD, withhold_sizes,
                 sizeof withhold_sizes / sizeof withhold_sizes[0], 1, shapes[s], ks[k], tags[s][k]);
      }
    }
  }
  // The GPU shape's tiles by ticket and by group id (CLSCAN_GROUP_TILE, cl/single_pass.cl:
  // NVIDIA takes the group id out of place, other devices the ticket), both through the fallback.
  // Not by group id on Mesa's rusticl, whose threads start work-groups out of order (as in
  // test_sort's fallback test).
  static const char *const group_options[] = {"-DCLSCAN_GROUP_TILE=0", "-DCLSCAN_GROUP_TILE=1"};
  static const char *const group_tags[] = {"gpu-shape/ticket-tiles/withhold-3",
                                           "gpu-shape/group-tiles/withhold-3"};
  for (int o = 0; o < (tu_on_rusticl() ? 1 : 2); o++) {
    for (size_t t = 0; t < 4; t += 3) {
      add_cell(g, CLSCAN_ALGO_SINGLE_PASS, types[t], CLSCAN_ADD, withhold_sizes,
               sizeof withhold_sizes / sizeof withhold_sizes[0], 1, "0", "3", group_tags[o])
          ->options = group_options[o];
    }
  }
}

static repeat_spec repeats[] = {
    {"cpu-shape/out-of-place", "1", NULL, 0},      {"gpu-shape/out-of-place", "0", NULL, 0},
    {"cpu-shape/in-place", "1", NULL, 1},          {"gpu-shape/in-place", "0", NULL, 1},
    {"cpu-shape/withhold-3", "1", "3", 0},         {"gpu-shape/withhold-3", "0", "3", 0},
    {"gpu-shape/withhold-2/in-place", "0", "2", 1}};

static void build_repeat(group *g) {
  for (size_t i = 0; i < sizeof repeats / sizeof repeats[0]; i++)
    add_test(g, repeats[i].name, test_repeat, &repeats[i]);
  add_test(g, "interleaved-algorithms", test_interleaved, NULL);
}

/* Builds the named group; returns 0 if there is none. */
static int build_group(const char *name, group *g) {
  static const clscan_algorithm seed_algos[] = {CLSCAN_ALGO_BLELLOCH, CLSCAN_ALGO_HILLIS_STEELE};
  static const clscan_algorithm rts[] = {CLSCAN_ALGO_REDUCE_THEN_SCAN};
  static const clscan_algorithm sp[] = {CLSCAN_ALGO_SINGLE_PASS, CLSCAN_ALGO_AUTO};
  memset(g, 0, sizeof *g);
  g->name = name;
  if (strcmp(name, "full-seed") == 0) {
    build_full(g, seed_algos, 2);
  } else if (strcmp(name, "full-rts") == 0) {
    build_full(g, rts, 1);
  } else if (strcmp(name, "full-sp") == 0) {
    build_full(g, sp, 2);
  } else if (strcmp(name, "types-seed") == 0) {
    build_types(g, seed_algos, 2, types_all, TYPES_ALL_COUNT);
  } else if (strcmp(name, "types-rts-a") == 0) {
    build_types(g, rts, 1, types_all, 5);
  } else if (strcmp(name, "types-rts-b") == 0) {
    build_types(g, rts, 1, types_all + 5, 5);
  } else if (strcmp(name, "types-sp") == 0) {
    build_types(g, sp, 2, types_all, TYPES_ALL_COUNT);
  } else if (strcmp(name, "shapes") == 0) {
    build_shapes(g);
  } else if (strcmp(name, "withhold") == 0) {
    build_withhold(g);
  } else if (strcmp(name, "repeat") == 0) {
    build_repeat(g);
  }
  return g->count > 0;
}

static const char *const group_names[] = {"full-seed",   "full-rts",    "full-sp",  "types-seed",
                                          "types-rts-a", "types-rts-b", "types-sp", "shapes",
                                          "withhold",    "repeat"};

int main(int argc, char **argv) {
  const size_t ngroups = sizeof group_names / sizeof group_names[0];
  int failed = 0;
  if (argc > 1 && strcmp(argv[1], "--list") == 0) {
    for (size_t i = 0; i < ngroups; i++)
      printf("%s\n", group_names[i]);
    return 0;
  }
  build_sizes();
  if (!tu_context())
    return 1;
  int count = argc > 1 ? argc - 1 : (int)ngroups;
  for (int i = 0; i < count; i++) {
    const char *name = argc > 1 ? argv[i + 1] : group_names[i];
    group g;
    if (!build_group(name, &g)) {
      fprintf(stderr, "test_scan: unknown group %s (see --list)\n", name);
      return 2;
    }
    failed += _cmocka_run_group_tests(g.name, g.tests, g.count, tu_group_setup, tu_group_teardown);
    group_free(&g);
  }
  tu_context_release();
  printf("clscan tests: seed %" PRIu64 "\n", tu_seed());
  return failed ? 1 : 0;
}
