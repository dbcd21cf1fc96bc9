/*
 * clscan tests: the single pass gives the same bits on every run.
 *
 * Floating-point scans with random inputs at sizes of many tiles are run K times (K = 10, or
 * CLSCAN_DETERMINISM_RUNS) through one plan, and every run's output must equal the first run's
 * bit for bit; then with the decoupled fallback forced (CLSCAN_TEST_WITHHOLD=2 and 3: some tiles
 * never publish, so their successors reduce them from the input) and in place, which must give
 * the same bits again. Each result is also checked against a double-precision host reference
 * within a tolerance, and for the CPU kernel with a known tile size (cpu-small) bit for bit against
 * a host model of the strict left fold of tile aggregates (check_exact_cpu).
 *
 * Cases: float and double add, a user operator on floats, a map on floats, and a segmented float
 * scan (head flags). Kernel shapes: the CPU kernel with its default tile and with a small one
 * (CLSCAN_CPU_TILE=1024, many more tiles), and the GPU-shaped kernel (CLSCAN_SINGLE_PASS_CPU=0).
 * Run it with several POCL threads (CTest sets POCL_MAX_PTHREAD_COUNT=8), so that work-groups
 * interleave and look-backs reach different depths from run to run.
 *
 * The group "queues" runs float and double sums of one plan on two command queues at once (the
 * default kernel shape), QUEUE_ROUNDS scans on each before either is waited for: every output must
 * have the bits of a scan run alone.
 *
 * `test_determinism [GROUP...]` runs the named groups (cpu, cpu-small, gpu-shape, queues), all
 * without.
 */
#include <inttypes.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "test_util.h"

/* ============================================================================================== */
/* Cases                                                                                          */
/* ============================================================================================== */

typedef enum det_kind {
  DET_FLOAT_ADD,
  DET_DOUBLE_ADD,
  DET_USER_OP,
  DET_MAP,
  DET_SEGMENTED
} det_kind;

static const char *const kind_names[] = {"float add", "double add", "float user op", "float map",
                                         "segmented float add"};

/* Sizes: many tiles of every shape, none a multiple of a tile. */
static const size_t det_sizes[] = {(1u << 18) + 3, (1u << 22) - 5};

/* One kernel shape: the environment its plans are created under. */
typedef struct det_shape {
  const char *name;
  const char *single_pass_cpu; /* CLSCAN_SINGLE_PASS_CPU, or NULL */
  const char *cpu_tile;        /* CLSCAN_CPU_TILE, or NULL */
  size_t max_n;                /* larger sizes are skipped (the GPU shape is slow on a CPU) */
} det_shape;

static const det_shape shapes[] = {
    {"cpu", NULL, NULL, SIZE_MAX},
    {"cpu-small", "1", "1024", SIZE_MAX},
    {"gpu-shape", "0", NULL, (1u << 20)},
};

static size_t runs(void) {
  const char *s = getenv("CLSCAN_DETERMINISM_RUNS");
  long k = s ? strtol(s, NULL, 10) : 10;
  return k >= 2 ? (size_t)k : 2;
}

static size_t elem_size(det_kind kind) {
  return kind == DET_DOUBLE_ADD ? 8 : 4;
}

/* Fills a descriptor for a case (static strings only). */
static void kind_desc(det_kind kind, clscan_scan_desc *d) {
  static const float zero = 0.0f;
  memset(d, 0, sizeof *d);
  d->type = kind == DET_DOUBLE_ADD ? CLSCAN_DOUBLE : CLSCAN_FLOAT;
  d->op = CLSCAN_ADD;
  d->algorithm = CLSCAN_ALGO_SINGLE_PASS;
  if (kind == DET_USER_OP) {
    d->op = CLSCAN_USER_OP;
    d->op_source = "a + b";
    d->identity = &zero;
  } else if (kind == DET_MAP) {
    d->map_source = "x * 0.5f + 0.25f";
  } else if (kind == DET_SEGMENTED) {
    d->segments = CLSCAN_SEGMENTS_HEAD_FLAGS;
  }
}

/* Random inputs in [-0.5, 1) (so that roundings happen everywhere) and head flags, 1 in 5000. */
static void fill_input(det_kind kind, uint64_t seed, size_t n, void *in, unsigned char *flags) {
  uint64_t s = seed;
  for (size_t i = 0; i < n; i++) {
    s = tu_mix(s, i);
    const double x = (double)(s >> 11) / 9007199254740992.0 * 1.5 - 0.5;
    if (kind == DET_DOUBLE_ADD)
      ((double *)in)[i] = x;
    else
      ((float *)in)[i] = (float)x;
    flags[i] = (unsigned char)(i == 0 || (s & 0xffff) % 5000 == 0);
  }
}

/* Checks out against the double reference of the case within a tolerance; 1 if it agrees. */
static int check_reference(det_kind kind, size_t n, const void *in, const unsigned char *flags,
                           const void *out, char *msg, size_t cap) {
  double acc = 0, mass = 0;
  for (size_t i = 0; i < n; i++) {
    double x = kind == DET_DOUBLE_ADD ? ((const double *)in)[i] : ((const float *)in)[i];
    if (kind == DET_MAP)
      x = (double)((float)x * 0.5f + 0.25f);
    if (kind == DET_SEGMENTED && flags[i])
      acc = mass = 0;
    acc += x;
    mass += fabs(x);
    const double got = kind == DET_DOUBLE_ADD ? ((const double *)out)[i] : ((const float *)out)[i];
    const double tol = (kind == DET_DOUBLE_ADD ? 1e-12 : 2e-5) * (mass + 1);
    if (!(fabs(got - acc) <= tol)) {
      snprintf(msg, cap, "element %zu: %.17g, reference %.17g", i, got, acc);
      return 0;
    }
  }
  return 1;
}

/*
 * The CPU kernel's result, modelled exactly: each tile of `tile` elements reduced in order from the
 * identity, the tiles' aggregates folded strictly left to right from the seed (the identity here),
 * and each tile scanned in order from that fold. Floating-point add in that order on the host
 * gives the device's bits (no contraction is possible in a chain of additions). Segmented: the
 * segmented operator of cl/common.cl on (value, head flag). Returns 1 if every bit agrees.
 */
static int check_exact_cpu(det_kind kind, size_t n, size_t tile, const void *in,
                           const unsigned char *flags, const void *out, char *msg, size_t cap) {
  double pd = 0, gd = 0;
  float pf = 0, gf = 0;
  for (size_t b = 0; b < n; b += tile) {
    const size_t e = b + tile < n ? b + tile : n;
    double ad = 0, accd = pd;
    float af = 0, accf = pf;
    int aflag = 0;
    for (size_t i = b; i < e; i++) {
      if (kind == DET_DOUBLE_ADD) {
        const double x = ((const double *)in)[i];
        ad = ad + x;
        accd = accd + x;
        gd = ((const double *)out)[i];
        if (memcmp(&gd, &accd, sizeof gd) != 0) {
          snprintf(msg, cap, "element %zu: %.17g, the exact model %.17g", i, gd, accd);
          return 0;
        }
        continue;
      }
      const float x = ((const float *)in)[i];
      float want;
      if (kind == DET_SEGMENTED) {
        af = flags[i] ? x : af + x;
        aflag |= flags[i];
        accf = flags[i] ? x : accf + x;
        want = 0.0f + accf;
      } else {
        af = af + x;
        accf = accf + x;
        want = accf;
      }
      gf = ((const float *)out)[i];
      if (memcmp(&gf, &want, sizeof gf) != 0) {
        snprintf(msg, cap, "element %zu: %.9g, the exact model %.9g", i, gf, want);
        return 0;
      }
    }
    // The inclusive prefix of the tile: the fold so far op the aggregate, one combination.
    if (kind == DET_DOUBLE_ADD)
      pd = pd + ad;
    else if (kind == DET_SEGMENTED)
      pf = aflag ? af : pf + af;
    else
      pf = pf + af;
  }
  return 1;
}

/* ============================================================================================== */
/* Runs                                                                                           */
/* ============================================================================================== */

/* One case's buffers and host copies. */
typedef struct det_run {
  det_kind kind;
  size_t n, bytes;
  uint64_t seed;
  void *in, *first, *out;
  unsigned char *flags;
  cl_mem in_buf, out_buf, flags_buf, inplace_buf;
} det_run;

/* Creates a plan under a shape's environment and a withholding factor (NULL: none). */
static clscan_plan *make_plan(const det_shape *shape, det_kind kind, const char *withhold) {
  tu_env_saved s1, s2, s3;
  tu_env_set("CLSCAN_SINGLE_PASS_CPU", shape->single_pass_cpu, &s1);
  tu_env_set("CLSCAN_CPU_TILE", shape->cpu_tile, &s2);
  tu_env_set("CLSCAN_TEST_WITHHOLD", withhold, &s3);
  clscan_scan_desc d;
  kind_desc(kind, &d);
  clscan_plan *plan = NULL;
  const clscan_status st = clscan_plan_create(tu_context(), &d, &plan);
  tu_env_restore(&s3);
  tu_env_restore(&s2);
  tu_env_restore(&s1);
  if (st != CLSCAN_SUCCESS)
    fail_msg("plan for %s (%s, withhold %s): %s", kind_names[kind], shape->name,
             withhold ? withhold : "none", clscan_status_string(st));
  return plan;
}

/* Runs one scan and reads its output into r->out. */
static void run_once(det_run *r, clscan_plan *plan, int in_place) {
  clscan_context *ctx = tu_context();
  cl_mem src = r->in_buf, dst = r->out_buf;
  if (in_place) {
    assert_true(tu_write(ctx, NULL, r->inplace_buf, 0, r->bytes, r->in));
    src = dst = r->inplace_buf;
  }
  clscan_status st;
  if (r->kind == DET_SEGMENTED)
    st = clscan_plan_enqueue_segmented(plan, NULL, r->flags_buf, 0, src, 0, dst, 0, r->n, 0, NULL,
                                       NULL, NULL);
  else
    st = clscan_plan_enqueue(plan, NULL, src, 0, dst, 0, r->n, 0, NULL, NULL);
  if (st != CLSCAN_SUCCESS)
    fail_msg("enqueue: %s", clscan_status_string(st));
  assert_true(tu_read(ctx, NULL, dst, 0, r->bytes, r->out));
}

/* Fails unless r->out equals the first run's bits; says where they differ. */
static void expect_first(const det_run *r, const det_shape *shape, const char *what) {
  if (memcmp(r->out, r->first, r->bytes) == 0)
    return;
  size_t i = 0, es = elem_size(r->kind);
  while (memcmp((const char *)r->out + i * es, (const char *)r->first + i * es, es) == 0)
    i++;
  fail_msg("%s, n %zu, seed %" PRIu64 ", %s: %s differs from the first run from element %zu",
           kind_names[r->kind], r->n, r->seed, shape->name, what, i);
}

static void run_case(const det_shape *shape, det_kind kind, size_t n) {
  clscan_context *ctx = tu_context();
  char what[160], msg[256];
  det_run r = {.kind = kind, .n = n, .bytes = n * elem_size(kind)};
  r.seed = tu_mix(tu_mix(tu_seed(), (uint64_t)kind), n);
  r.in = malloc(r.bytes);
  r.first = malloc(r.bytes);
  r.out = malloc(r.bytes);
  r.flags = malloc(n);
  assert_non_null(r.in);
  assert_non_null(r.first);
  assert_non_null(r.out);
  assert_non_null(r.flags);
  fill_input(kind, r.seed, n, r.in, r.flags);
  r.in_buf = tu_buffer(ctx, CL_MEM_READ_WRITE, r.bytes);
  r.out_buf = tu_buffer(ctx, CL_MEM_READ_WRITE, r.bytes);
  r.inplace_buf = tu_buffer(ctx, CL_MEM_READ_WRITE, r.bytes);
  r.flags_buf = tu_buffer(ctx, CL_MEM_READ_WRITE, n);
  assert_true(r.in_buf && r.out_buf && r.inplace_buf && r.flags_buf);
  assert_true(tu_write(ctx, NULL, r.in_buf, 0, r.bytes, r.in));
  assert_true(tu_write(ctx, NULL, r.flags_buf, 0, n, r.flags));

  snprintf(what, sizeof what, "%s n=%zu %s", kind_names[kind], n, shape->name);
  tu_progress(what);
  clscan_plan *plan = make_plan(shape, kind, NULL);
  run_once(&r, plan, 0);
  memcpy(r.first, r.out, r.bytes);
  if (!check_reference(kind, n, r.in, r.flags, r.first, msg, sizeof msg))
    fail_msg("%s, n %zu, seed %" PRIu64 ", %s: %s", kind_names[kind], n, r.seed, shape->name, msg);
  // With a known CPU tile, the bits themselves: the strict left fold of the tile aggregates.
  if (shape->cpu_tile && kind != DET_MAP &&
      !check_exact_cpu(kind, n, (size_t)strtoul(shape->cpu_tile, NULL, 10), r.in, r.flags, r.first,
                       msg, sizeof msg))
    fail_msg("%s, n %zu, seed %" PRIu64 ", %s: %s", kind_names[kind], n, r.seed, shape->name, msg);
  const size_t k = runs();
  for (size_t i = 1; i < k; i++) {
    run_once(&r, plan, 0);
    snprintf(what, sizeof what, "run %zu", i + 1);
    expect_first(&r, shape, what);
  }
  for (int i = 0; i < 2; i++) {
    run_once(&r, plan, 1);
    expect_first(&r, shape, "in place");
  }
  clscan_plan_release(plan);

  // The decoupled fallback forced: the same bits, out of place and in place.
  static const char *const withholds[] = {"2", "3"};
  for (size_t w = 0; w < 2; w++) {
    plan = make_plan(shape, kind, withholds[w]);
    for (int in_place = 0; in_place < 2; in_place++) {
      for (int i = 0; i < 2; i++) {
        run_once(&r, plan, in_place);
        snprintf(what, sizeof what, "withhold %s%s", withholds[w], in_place ? " in place" : "");
        expect_first(&r, shape, what);
      }
    }
    clscan_plan_release(plan);
  }
  clReleaseMemObject(r.in_buf);
  clReleaseMemObject(r.out_buf);
  clReleaseMemObject(r.inplace_buf);
  clReleaseMemObject(r.flags_buf);
  free(r.in);
  free(r.first);
  free(r.out);
  free(r.flags);
}

/* ============================================================================================== */
/* Two queues at once                                                                             */
/* ============================================================================================== */

#define QUEUE_ROUNDS 4

/* Scans of one plan on two queues, QUEUE_ROUNDS each and all enqueued before any wait, into
 * separate outputs: each must equal a scan run alone, bit for bit. */
static void run_two_queues(det_kind kind, size_t n) {
  clscan_context *ctx = tu_context();
  cl_context cl_ctx = clscan_context_cl_context(ctx);
  cl_device_id dev = clscan_context_device(ctx);
  char what[160];
  const size_t bytes = n * elem_size(kind);
  const uint64_t seed = tu_mix(tu_mix(tu_seed(), 0x9e37 + (uint64_t)kind), n);
  snprintf(what, sizeof what, "%s n=%zu on two queues (seed %" PRIu64 ")", kind_names[kind], n,
           seed);
  tu_progress(what);
  void *in = malloc(bytes), *alone = malloc(bytes), *got = malloc(bytes);
  unsigned char *flags = malloc(n);
  assert_true(in && alone && got && flags);
  fill_input(kind, seed, n, in, flags);
  cl_int err;
  cl_command_queue q[2];
  for (int i = 0; i < 2; i++) {
    q[i] = clCreateCommandQueue(cl_ctx, dev, 0, &err);
    assert_int_equal(err, CL_SUCCESS);
  }
  cl_mem in_buf = tu_buffer(ctx, CL_MEM_READ_WRITE, bytes), out[2][QUEUE_ROUNDS];
  assert_non_null(in_buf);
  assert_true(tu_write(ctx, NULL, in_buf, 0, bytes, in));
  clscan_scan_desc d;
  kind_desc(kind, &d);
  d.algorithm = CLSCAN_ALGO_AUTO;
  clscan_plan *plan = NULL;
  assert_int_equal(clscan_plan_create(ctx, &d, &plan), CLSCAN_SUCCESS);
  for (int i = 0; i < 2; i++)
    for (int r = 0; r < QUEUE_ROUNDS; r++) {
      out[i][r] = tu_buffer(ctx, CL_MEM_READ_WRITE, bytes);
      assert_non_null(out[i][r]);
    }
  // The scan alone.
  assert_int_equal(clscan_plan_enqueue(plan, q[0], in_buf, 0, out[0][0], 0, n, 0, NULL, NULL),
                   CLSCAN_SUCCESS);
  assert_int_equal(clFinish(q[0]), CL_SUCCESS);
  assert_true(tu_read(ctx, q[0], out[0][0], 0, bytes, alone));
  char msg[256];
  if (!check_reference(kind, n, in, flags, alone, msg, sizeof msg))
    fail_msg("%s: %s", what, msg);
  // Both queues at once, alternating.
  for (int r = 0; r < QUEUE_ROUNDS; r++)
    for (int i = 0; i < 2; i++)
      assert_int_equal(clscan_plan_enqueue(plan, q[i], in_buf, 0, out[i][r], 0, n, 0, NULL, NULL),
                       CLSCAN_SUCCESS);
  for (int i = 0; i < 2; i++)
    assert_int_equal(clFinish(q[i]), CL_SUCCESS);
  for (int i = 0; i < 2; i++)
    for (int r = 0; r < QUEUE_ROUNDS; r++) {
      assert_true(tu_read(ctx, q[i], out[i][r], 0, bytes, got));
      if (memcmp(got, alone, bytes) != 0)
        fail_msg("%s: queue %d, round %d differs from the scan run alone", what, i, r);
      clReleaseMemObject(out[i][r]);
    }
  clscan_plan_release(plan);
  clReleaseMemObject(in_buf);
  for (int i = 0; i < 2; i++)
    clReleaseCommandQueue(q[i]);
  free(in);
  free(alone);
  free(got);
  free(flags);
}

static void test_two_queues(void **state) {
  (void)state;
  run_two_queues(DET_FLOAT_ADD, det_sizes[1]);
  clscan_scan_desc d;
  kind_desc(DET_DOUBLE_ADD, &d);
  if (clscan_context_supports(tu_context(), &d) == CLSCAN_SUCCESS)
    run_two_queues(DET_DOUBLE_ADD, det_sizes[1]);
}

/* ============================================================================================== */
/* Tests: one per shape x case, over the sizes                                                    */
/* ============================================================================================== */

typedef struct det_cell {
  const det_shape *shape;
  det_kind kind;
} det_cell;

static void test_cell(void **state) {
  const det_cell *c = *state;
  // double needs fp64 and the single pass 64-bit atomics (rusticl's llvmpipe has neither): the
  // device must refuse such a cell with CLSCAN_UNSUPPORTED_BY_DEVICE, and the cell is skipped.
  clscan_scan_desc d;
  kind_desc(c->kind, &d);
  const clscan_status supported = clscan_context_supports(tu_context(), &d);
  if (supported == CLSCAN_UNSUPPORTED_BY_DEVICE)
    skip();
  assert_int_equal(supported, CLSCAN_SUCCESS);
  for (size_t s = 0; s < sizeof det_sizes / sizeof det_sizes[0]; s++) {
    if (det_sizes[s] <= c->shape->max_n)
      run_case(c->shape, c->kind, det_sizes[s]);
  }
}

#define NKINDS 5
#define NSHAPES (sizeof shapes / sizeof shapes[0])

int main(int argc, char **argv) {
  static det_cell cells[NSHAPES][NKINDS];
  static struct CMUnitTest tests[NSHAPES][NKINDS];
  static char names[NSHAPES][NKINDS][64];
  int failed = 0;
  if (!tu_context())
    return 1;
  for (size_t s = 0; s < NSHAPES; s++) {
    int wanted = argc == 1;
    for (int a = 1; a < argc; a++)
      wanted |= strcmp(argv[a], shapes[s].name) == 0;
    if (!wanted)
      continue;
    for (int k = 0; k < NKINDS; k++) {
      cells[s][k] = (det_cell){&shapes[s], (det_kind)k};
      snprintf(names[s][k], sizeof names[s][k], "%s/%s", shapes[s].name, kind_names[k]);
      tests[s][k] = (struct CMUnitTest){names[s][k], test_cell, NULL, NULL, &cells[s][k]};
    }
    failed += _cmocka_run_group_tests(shapes[s].name, tests[s], NKINDS, tu_group_setup,
                                      tu_group_teardown);
  }
  int queues = argc == 1;
  for (int a = 1; a < argc; a++)
    queues |= strcmp(argv[a], "queues") == 0;
  if (queues) {
    static const struct CMUnitTest queue_tests[] = {
        cmocka_unit_test(test_two_queues),
    };
    failed += cmocka_run_group_tests_name("queues", queue_tests, tu_group_setup, tu_group_teardown);
  }
  tu_context_release();
  printf("clscan tests: seed %" PRIu64 ", %zu runs per case\n", tu_seed(), runs());
  return failed ? 1 : 0;
}
