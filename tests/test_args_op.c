/*
 * clscan tests, args: a user operator that reads extra arguments (the table of the symmetric group
 * of three points, which is not commutative) through every algorithm and shape, plain and
 * segmented, with the single pass's publications withheld, and the reduction with it (group op).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args_fixture.h"

/* ============================================================================================== */
/* op: a user operator that reads extra arguments, through every algorithm                        */
/* ============================================================================================== */

/* The operator of these cases composes permutations of three points, elements of the symmetric
 * group S3 numbered 0 to 5, through its multiplication table: a buffer `tab` of k * k entries and
 * a scalar `k`, so every combination in every kernel (the look-back included) reads both. The
 * group is not commutative, so an operand out of order changes the result. The map reduces
 * large inputs to elements with the same scalar. */
#define S3 6
static const clscan_arg op_args[] = {
    {.name = "tab", .kind = CLSCAN_ARG_BUFFER, .type = CLSCAN_INT32},
    {.name = "k", .kind = CLSCAN_ARG_SCALAR, .type = CLSCAN_UINT32},
};

/* Fills tab with S3's table: tab[a * 6 + b] is "a then b", with element 0 the identity. */
static void s3_table(int32_t tab[S3 * S3]) {
  static const int perm[S3][3] = {{0, 1, 2}, {1, 0, 2}, {0, 2, 1}, {2, 1, 0}, {1, 2, 0}, {2, 0, 1}};
  for (int a = 0; a < S3; a++) {
    for (int b = 0; b < S3; b++) {
      int r[3];
      for (int p = 0; p < 3; p++)
        r[p] = perm[b][perm[a][p]];
      for (int c = 0; c < S3; c++) {
        if (r[0] == perm[c][0] && r[1] == perm[c][1] && r[2] == perm[c][2])
          tab[a * S3 + b] = c;
      }
    }
  }
}

/* One case of the S3 operator. */
typedef struct op_case {
  size_t n, in_off, tab_off;
  int exclusive, in_place, segmented, total;
  int32_t init;
} op_case;

/* The host reference: init op the scan of x[i] % 6, restarting at heads; returns the total. */
static int32_t op_reference(const op_case *c, const int32_t tab[S3 * S3], const int32_t *x,
                            const unsigned char *flags, int32_t *out) {
  int32_t acc = c->init, total = c->init;
  for (size_t i = 0; i < c->n; i++) {
    if (c->segmented && (i == 0 || flags[i]))
      acc = c->init;
    const int32_t v = x[i] % S3;
    if (c->exclusive)
      out[i] = acc;
    acc = tab[acc * S3 + v];
    total = tab[total * S3 + v];
    if (!c->exclusive)
      out[i] = acc;
  }
  return total;
}

/* Runs one case of the S3 operator on a plan and checks it. */
static void run_op_case(clscan_plan *plan, const op_case *c, uint64_t seed, const char *what) {
  size_t n = c->n, in_len = c->in_off + n + TU_GUARD;
  size_t out_off = c->in_place ? c->in_off : 0, out_len = c->in_place ? in_len : n + TU_GUARD;
  int32_t tab[S3 + S3 * S3], *x = malloc(in_len * 4), *want = malloc((n + 1) * 4);
  unsigned char *flags = calloc(n + 1, 1);
  assert_true(x && want && flags);
  for (size_t i = 0; i < c->tab_off; i++)
    tab[i] = -1; /* what the offset skips: an index out of the table if it were read */
  s3_table(tab + c->tab_off);
  uint64_t r = seed;
  for (size_t i = 0; i < in_len; i++)
    x[i] = (int32_t)tu_random_size(&r, 0, 1u << 20);
  for (size_t i = 0; i < n; i++)
    flags[i] = tu_random_size(&r, 0, 99) < 3;
  const uint32_t k = S3;
  cl_mem in = tu_buffer_with(tu_context(), in_len * 4, x),
         dtab = tu_buffer_with(tu_context(), sizeof tab, tab);
  cl_mem out = c->in_place ? in : tu_buffer_with(tu_context(), out_len * 4, NULL);
  cl_mem dflags = tu_buffer_with(tu_context(), n + 1, flags),
         total = tu_buffer_with(tu_context(), 4, NULL);
  if (c->in_place) {
    unsigned char poison[TU_GUARD * 4];
    memset(poison, TU_POISON, sizeof poison);
    assert_true(tu_write(tu_context(), NULL, in, (c->in_off + n) * 4, sizeof poison, poison));
  }
  const clscan_arg_value values[2] = {{.buffer = dtab, .offset = c->tab_off, .length = S3 * S3},
                                      {.scalar = &k}};
  const clscan_run_args run = {.values = values,
                               .value_count = 2,
                               .total = c->total ? total : NULL,
                               .segments = c->segmented ? dflags : NULL};
  tu_ok(clscan_plan_enqueue_args(plan, NULL, in, c->in_off, out, out_off, n, &run, 0, NULL, NULL,
                                 NULL),
        what);
  const int32_t want_total = op_reference(c, tab + c->tab_off, x + c->in_off, flags, want);
  check_out(seed, what, out, out_off, want, n);
  if (c->total) {
    int32_t got;
    assert_true(tu_read(tu_context(), NULL, total, 0, 4, &got));
    if (got != want_total)
      tu_failf(seed, "%s: the device total is %d, want %d", what, got, want_total);
  }
  if (!c->in_place)
    clReleaseMemObject(out);
  clReleaseMemObject(in);
  clReleaseMemObject(dtab);
  clReleaseMemObject(dflags);
  clReleaseMemObject(total);
  free(x);
  free(want);
  free(flags);
}

/* The S3 operator through every algorithm and shape, sizes around tiles, inclusive and exclusive,
 * in place or not, segmented or not; `withhold` forces the single pass's fallback. */
static void run_op_all(int segmented, const char *withhold) {
  int32_t init = 4;
  const clscan_scan_desc base = {.type = CLSCAN_INT32,
                                 .op = CLSCAN_USER_OP,
                                 .op_source = "tab[(uint)a * k + (uint)b]",
                                 .identity = &(int32_t){0},
                                 .map_source = "x % (int)k",
                                 .args = op_args,
                                 .arg_count = 2,
                                 .init = &init,
                                 .segments = segmented ? CLSCAN_SEGMENTS_HEAD_FLAGS : 0};
  uint64_t seed = tu_mix(tu_seed(), (uint64_t)(40 + segmented + (withhold ? 2 : 0)));
  tu_env_saved saved;
  tu_env_set("CLSCAN_TEST_WITHHOLD", withhold, &saved);
  for (size_t a = 0; a < TU_ALGO_CASE_COUNT; a++) {
    clscan_scan_desc inc = base, exc = base;
    exc.exclusive = 1;
    clscan_plan *plans[2] = {tu_algo_plan(&inc, &tu_algo_cases[a], NULL),
                             tu_algo_plan(&exc, &tu_algo_cases[a], NULL)};
    size_t sizes[8];
    size_t count = tu_sizes_around(tu_algo_tile(plans[0], &tu_algo_cases[a], 4), &seed, sizes);
    for (size_t s = 0; s < count; s++) {
      for (int e = 0; e < 2; e++) {
        const op_case c = {.n = sizes[s],
                           .in_off = tu_random_size(&seed, 0, 9),
                           .tab_off = tu_random_size(&seed, 0, S3),
                           .exclusive = e,
                           .in_place = s % 3 == 2,
                           .segmented = segmented,
                           .total = !segmented,
                           .init = init};
        char what[160];
        snprintf(what, sizeof what, "op %s %s%s%s n=%zu%s", tu_algo_cases[a].name,
                 e ? "exclusive" : "inclusive", segmented ? " segmented" : "",
                 withhold ? " withheld" : "", c.n, c.in_place ? " in place" : "");
        tu_progress(what);
        run_op_case(plans[e], &c, tu_mix(seed, s * 2 + (size_t)e), what);
      }
    }
    clscan_plan_release(plans[0]);
    clscan_plan_release(plans[1]);
  }
  tu_env_restore(&saved);
}

static void test_op(void **state) {
  (void)state;
  run_op_all(0, NULL);
}

static void test_op_segmented(void **state) {
  (void)state;
  run_op_all(1, NULL);
}

/* With every third single-pass tile's publications withheld, so that the look-back's fallback
 * reduces those tiles (and combines with the arguments) itself. */
static void test_op_withheld(void **state) {
  (void)state;
  run_op_all(0, "3");
  run_op_all(1, "3");
}

/* The reduction with the S3 operator, in both shapes (the GPU shape's one kernel, the CPU shape's
 * two). */
static void test_op_reduce(void **state) {
  (void)state;
  uint64_t seed = tu_mix(tu_seed(), 47);
  const clscan_shape shapes[] = {CLSCAN_SHAPE_CPU, CLSCAN_SHAPE_GPU};
  int32_t tab[S3 * S3];
  s3_table(tab);
  const uint32_t k = S3;
  for (size_t sh = 0; sh < 2; sh++) {
    const int32_t init = 3;
    const clscan_scan_desc d = {.type = CLSCAN_INT32,
                                .op = CLSCAN_USER_OP,
                                .op_source = "tab[(uint)a * k + (uint)b]",
                                .identity = &(int32_t){0},
                                .args = op_args,
                                .arg_count = 2,
                                .init = &init};
    const clscan_tuning t = {.single_pass_shape = shapes[sh]};
    clscan_plan *plan = NULL;
    tu_ok(clscan_plan_create_tuned(tu_context(), &d, &t, &plan), "reduce plan");
    const size_t sizes[] = {0, 1, 2, 1000, 4097, 65537, tu_random_size(&seed, 100000, 300000)};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
      size_t n = sizes[s];
      int32_t *x = malloc((n + 1) * 4);
      assert_non_null(x);
      uint64_t r = tu_mix(seed, s * 2 + sh);
      int32_t want = init;
      for (size_t i = 0; i < n; i++) {
        x[i] = (int32_t)tu_random_size(&r, 0, S3 - 1);
        want = tab[want * S3 + x[i]];
      }
      cl_mem in = tu_buffer_with(tu_context(), (n + 1) * 4, x),
             out = tu_buffer_with(tu_context(), 4, NULL);
      cl_mem dtab = tu_buffer_with(tu_context(), sizeof tab, tab);
      const clscan_arg_value v[2] = {{.buffer = dtab, .length = S3 * S3}, {.scalar = &k}};
      const clscan_run_args run = {.values = v, .value_count = 2};
      tu_ok(clscan_plan_enqueue_reduce_args(plan, NULL, in, 0, out, 0, n, &run, 0, NULL, NULL),
            "clscan_plan_enqueue_reduce_args");
      int32_t got;
      assert_true(tu_read(tu_context(), NULL, out, 0, 4, &got));
      if (got != want)
        tu_failf(r, "S3 reduce n=%zu shape %d: %d, want %d", n, (int)shapes[sh], got, want);
      clReleaseMemObject(in);
      clReleaseMemObject(out);
      clReleaseMemObject(dtab);
      free(x);
    }
    clscan_plan_release(plan);
  }
}

/* ============================================================================================== */
/* The tests of this file                                                                         */
/* ============================================================================================== */

const struct CMUnitTest args_op_tests[] = {
    cmocka_unit_test(test_op),
    cmocka_unit_test(test_op_segmented),
    cmocka_unit_test(test_op_withheld),
    cmocka_unit_test(test_op_reduce),
};
const size_t args_op_count = sizeof args_op_tests / sizeof args_op_tests[0];
