/*
 * clscan tests: extra arguments of user sources (clscan_arg), device-resident initial values
 * and device totals (clscan_plan_enqueue_args, clscan_plan_enqueue_reduce_args). Every result is
 * checked against a host loop: integers exactly. Half precision has its own program (test_half.c).
 *
 * Groups: scan (every algorithm and shape, sizes around each one's tile, offsets, in place,
 * exclusive, segmented, plan reuse with new buffers), reduce, chain (chunked streams chained
 * through the device total, n = 0), errors (every bad input's status, buffers untouched),
 * keys (a by-key scan whose key equality reads the arguments).
 * Seeds are printed with every failure; CLSCAN_TEST_SEED picks another.
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

#include "algo_cases.h"
#include "test_util.h"

/* ============================================================================================== */
/* Fixtures                                                                                       */
/* ============================================================================================== */

/* The map of the int32 cases: x * w[i] + s, with a weight buffer w and a scalar s. */
static const clscan_arg int_args[] = {
    {.name = "w", .kind = CLSCAN_ARG_BUFFER, .type = CLSCAN_INT32},
    {.name = "s", .kind = CLSCAN_ARG_SCALAR, .type = CLSCAN_INT32},
};

/* Random int32 values in [-lim, lim]. */
static void fill_ints(uint64_t seed, int32_t *v, size_t n, int32_t lim) {
  uint64_t s = seed;
  for (size_t i = 0; i < n; i++)
    v[i] = (int32_t)tu_random_size(&s, 0, 2 * (size_t)lim) - lim;
}

/* Returns 1 if the device runs an algorithm case (rusticl 22 refuses the single pass: it must say
 * so with CLSCAN_UNSUPPORTED_BY_DEVICE, and the case is left out). */
static int device_runs(const tu_algo_case *a) {
  const clscan_scan_desc d = {.type = CLSCAN_INT32, .algorithm = a->algorithm};
  const clscan_status st = clscan_context_supports(tu_context(), &d);
  if (st != CLSCAN_SUCCESS && st != CLSCAN_UNSUPPORTED_BY_DEVICE)
    fail_msg("clscan_context_supports(%s): %s", a->name, clscan_status_string(st));
  return st == CLSCAN_SUCCESS;
}

/* ============================================================================================== */
/* Device buffers of one case                                                                     */
/* ============================================================================================== */

/* A case's buffers: input, output, weights (twice, for plan reuse), flags and the carry. */
typedef struct bufs {
  cl_mem in, out, w, w2, flags, carry;
} bufs;

static void bufs_release(bufs *b) {
  cl_mem *all[] = {&b->in, &b->out, &b->w, &b->w2, &b->flags, &b->carry};
  for (size_t k = 0; k < sizeof all / sizeof all[0]; k++) {
    if (*all[k])
      clReleaseMemObject(*all[k]);
    *all[k] = NULL;
  }
}

/* Creates a buffer holding bytes of data (or poison when data is NULL). */
static cl_mem buffer_with(size_t bytes, const void *data) {
  clscan_context *ctx = tu_context();
  cl_mem m = tu_buffer(ctx, CL_MEM_READ_WRITE, bytes ? bytes : 1);
  assert_non_null(m);
  if (data) {
    assert_true(tu_write(ctx, NULL, m, 0, bytes, data));
  } else {
    unsigned char *p = malloc(bytes ? bytes : 1);
    assert_non_null(p);
    memset(p, TU_POISON, bytes ? bytes : 1);
    assert_true(tu_write(ctx, NULL, m, 0, bytes ? bytes : 1, p));
    free(p);
  }
  return m;
}

/* ============================================================================================== */
/* scan: the int32 map x * w[i] + s through every algorithm                                      */
/* ============================================================================================== */

/* One scan case of the int32 map. */
typedef struct map_case {
  size_t n, in_off, out_off, w_off;
  int exclusive, in_place, segmented, device_init, total;
  int32_t init, s;
} map_case;

/* The host reference: out = init op scan of v, v[i] = x[i] * w[i] + s (wrapping), restarting at
 * heads; returns the inclusive total of the whole range. */
static int32_t reference(const map_case *c, const int32_t *x, const int32_t *w,
                         const unsigned char *flags, int32_t *out) {
  uint32_t acc = (uint32_t)c->init, total = (uint32_t)c->init;
  for (size_t i = 0; i < c->n; i++) {
    if (c->segmented && (i == 0 || flags[i]))
      acc = (uint32_t)c->init;
    uint32_t v = (uint32_t)x[i] * (uint32_t)w[i] + (uint32_t)c->s;
    if (c->exclusive)
      out[i] = (int32_t)acc;
    acc += v;
    total += v;
    if (!c->exclusive)
      out[i] = (int32_t)acc;
  }
  return (int32_t)total;
}

/* Checks n results from a device buffer against the reference, and the guards after them. */
static void check_out(uint64_t seed, const char *what, cl_mem out, size_t off, const int32_t *want,
                      size_t n) {
  int32_t *got = malloc((n + TU_GUARD) * 4);
  assert_non_null(got);
  assert_true(tu_read(tu_context(), NULL, out, off * 4, (n + TU_GUARD) * 4, got));
  for (size_t i = 0; i < n; i++) {
    if (got[i] != want[i]) {
      int32_t g = got[i];
      free(got);
      tu_failf(seed, "%s: element %zu of %zu is %d, want %d", what, i, n, g, want[i]);
    }
  }
  const unsigned char *guard = (const unsigned char *)(got + n);
  for (size_t i = 0; i < TU_GUARD * 4; i++) {
    if (guard[i] != TU_POISON) {
      free(got);
      tu_failf(seed, "%s: the guard after the output was written", what);
    }
  }
  free(got);
}

/* Runs one case on a plan and checks it (run twice with different weights: plan reuse). */
static void run_map_case(clscan_plan *plan, const map_case *c, uint64_t seed, const char *what) {
  size_t n = c->n, in_len = c->in_off + n + TU_GUARD, w_len = c->w_off + n + TU_GUARD;
  size_t out_off = c->in_place ? c->in_off : c->out_off;
  size_t out_len = (c->in_place ? in_len : c->out_off + n + TU_GUARD);
  int32_t *x = calloc(in_len, 4), *w = calloc(w_len, 4), *w2 = calloc(w_len, 4);
  int32_t *want = malloc((n + 1) * 4);
  unsigned char *flags = calloc(n + 1, 1);
  assert_true(x && w && w2 && want && flags);
  fill_ints(seed, x, in_len, 1000);
  fill_ints(tu_mix(seed, 1), w, w_len, 50);
  fill_ints(tu_mix(seed, 2), w2, w_len, 50);
  uint64_t fs = tu_mix(seed, 3);
  for (size_t i = 0; i < n; i++)
    flags[i] = tu_random_size(&fs, 0, 99) < 3;
  bufs b = {0};
  b.in = buffer_with(in_len * 4, x);
  b.out = c->in_place ? b.in : buffer_with(out_len * 4, NULL);
  if (c->in_place) {
    // The guard after an in-place range is the input's: poison it for the check.
    unsigned char poison[TU_GUARD * 4];
    memset(poison, TU_POISON, sizeof poison);
    assert_true(tu_write(tu_context(), NULL, b.in, (c->in_off + n) * 4, sizeof poison, poison));
  }
  b.w = buffer_with(w_len * 4, w);
  b.w2 = buffer_with(w_len * 4, w2);
  b.flags = buffer_with(n + 1, flags);
  b.carry = buffer_with(8, NULL);
  int32_t carry[2] = {c->init, 0};
  assert_true(tu_write(tu_context(), NULL, b.carry, 0, 8, carry));
  for (int round = 0; round < 2; round++) {
    if (round == 1 && c->in_place)
      break; /* the input is gone */
    const clscan_arg_value values[2] = {{.buffer = round ? b.w2 : b.w, .offset = c->w_off},
                                        {.scalar = &c->s}};
    const clscan_run_args run = {.values = values,
                                 .value_count = 2,
                                 .init = c->device_init ? b.carry : NULL,
                                 .total = c->total ? b.carry : NULL,
                                 .total_offset = c->total && !c->device_init ? 4 : 0,
                                 .segments = c->segmented ? b.flags : NULL};
    cl_event done = NULL;
    tu_ok(clscan_plan_enqueue_args(plan, NULL, b.in, c->in_off, b.out, out_off, n, &run, 0, NULL,
                                   NULL, &done),
          what);
    assert_int_equal(clWaitForEvents(1, &done), CL_SUCCESS);
    clReleaseEvent(done);
    int32_t total = reference(c, x + c->in_off, (round ? w2 : w) + c->w_off, flags, want);
    char label[256];
    snprintf(label, sizeof label, "%s round %d", what, round);
    check_out(seed, label, b.out, out_off, want, n);
    if (c->total) {
      int32_t got[2];
      assert_true(tu_read(tu_context(), NULL, b.carry, 0, 8, got));
      int32_t g = got[c->device_init ? 0 : 1];
      if (g != total)
        tu_failf(seed, "%s: the device total is %d, want %d", label, g, total);
      if (c->device_init) {
        // The carry now holds the total: put the initial value back for the next round.
        assert_true(tu_write(tu_context(), NULL, b.carry, 0, 4, &c->init));
      }
    }
  }
  if (c->in_place)
    b.out = NULL;
  bufs_release(&b);
  free(x);
  free(w);
  free(w2);
  free(want);
  free(flags);
}

/* The int32 map, every algorithm and shape, sizes around tiles, each variant of the case. */
static void run_all(int device_init, int segmented) {
  const clscan_scan_desc base = {.type = CLSCAN_INT32,
                                 .op = CLSCAN_ADD,
                                 .map_source = "x * w[i] + s",
                                 .args = int_args,
                                 .arg_count = 2,
                                 .device_init = device_init,
                                 .segments = segmented ? CLSCAN_SEGMENTS_HEAD_FLAGS : 0};
  uint64_t seed = tu_mix(tu_seed(), (uint64_t)(device_init * 2 + segmented));
  for (size_t a = 0; a < TU_ALGO_CASE_COUNT; a++) {
    if (!device_runs(&tu_algo_cases[a]))
      continue;
    clscan_scan_desc inc = base, exc = base;
    exc.exclusive = 1;
    int32_t host_init = 12345;
    if (!device_init)
      inc.init = exc.init = &host_init;
    clscan_plan *plans[2] = {tu_algo_plan(&inc, &tu_algo_cases[a], NULL),
                             tu_algo_plan(&exc, &tu_algo_cases[a], NULL)};
    size_t sizes[8];
    size_t count = tu_sizes_around(tu_algo_tile(plans[0], &tu_algo_cases[a], 4), &seed, sizes);
    for (size_t k = 0; k < count; k++) {
      for (int e = 0; e < 2; e++) {
        map_case c = {
            .n = sizes[k],
            .in_off = tu_random_size(&seed, 0, 9),
            .out_off = tu_random_size(&seed, 0, 9),
            .w_off = tu_random_size(&seed, 0, 20),
            .exclusive = e,
            .in_place = k % 3 == 2,
            .segmented = segmented,
            .device_init = device_init,
            .total = !segmented,
            .init = device_init ? (int32_t)tu_random_size(&seed, 0, 999) - 500 : host_init,
            .s = (int32_t)tu_random_size(&seed, 0, 20) - 10};
        char what[160];
        snprintf(what, sizeof what, "%s %s%s%s n=%zu%s", tu_algo_cases[a].name,
                 e ? "exclusive" : "inclusive", segmented ? " segmented" : "",
                 device_init ? " device init" : "", c.n, c.in_place ? " in place" : "");
        tu_progress(what);
        run_map_case(plans[e], &c, tu_mix(seed, k * 2 + (size_t)e), what);
      }
    }
    clscan_plan_release(plans[0]);
    clscan_plan_release(plans[1]);
  }
}

static void test_scan_host_init(void **state) {
  (void)state;
  run_all(0, 0);
}

static void test_scan_device_init(void **state) {
  (void)state;
  run_all(1, 0);
}

static void test_scan_segmented(void **state) {
  (void)state;
  run_all(1, 1);
}

/* A float map over a uint8 weight buffer and a user-type lookup table, into float: exact, since
 * every value is a small integer. */
static void test_scan_types(void **state) {
  (void)state;
  typedef struct pair {
    float lo, hi;
  } pair;
  const clscan_arg args[] = {
      {.name = "wt", .kind = CLSCAN_ARG_BUFFER, .type = CLSCAN_UINT8},
      {.name = "lut",
       .kind = CLSCAN_ARG_BUFFER,
       .type = CLSCAN_USER_TYPE,
       .type_name = "pair",
       .type_size = sizeof(pair)},
      {.name = "k", .kind = CLSCAN_ARG_SCALAR, .type = CLSCAN_UINT32},
  };
  const clscan_scan_desc base = {.type = CLSCAN_INT32,
                                 .out_type = CLSCAN_OUT_FLOAT,
                                 .op = CLSCAN_ADD,
                                 .type_source = "typedef struct { float lo, hi; } pair;",
                                 .map_source = "(float)wt[i] * lut[(uint)x % k].hi",
                                 .args = args,
                                 .arg_count = 3};
  uint64_t seed = tu_mix(tu_seed(), 77);
  const uint32_t k = 5;
  const pair lut[5] = {{0, 1}, {0, 2}, {0, -1}, {0, 3}, {0, 0}};
  for (size_t a = 0; a < TU_ALGO_CASE_COUNT; a++) {
    if (!device_runs(&tu_algo_cases[a]))
      continue;
    clscan_plan *plan = tu_algo_plan(&base, &tu_algo_cases[a], NULL);
    size_t sizes[8];
    size_t count = tu_sizes_around(tu_algo_tile(plan, &tu_algo_cases[a], 4), &seed, sizes);
    for (size_t s = 0; s < count; s++) {
      size_t n = sizes[s];
      int32_t *x = malloc(n * 4);
      unsigned char *wt = malloc(n);
      float *want = malloc((n + TU_GUARD) * 4), *got = malloc((n + TU_GUARD) * 4);
      assert_true(x && wt && want && got);
      uint64_t r = tu_mix(seed, s);
      fill_ints(r, x, n, 100000);
      double acc = 0;
      for (size_t i = 0; i < n; i++) {
        wt[i] = (unsigned char)tu_random_size(&r, 0, 3);
        acc += (double)wt[i] * lut[(uint32_t)x[i] % k].hi;
        want[i] = (float)acc;
      }
      cl_mem in = buffer_with(n * 4, x), out = buffer_with((n + TU_GUARD) * 4, NULL);
      cl_mem dwt = buffer_with(n, wt), dlut = buffer_with(sizeof lut, lut);
      const clscan_arg_value values[3] = {
          {.buffer = dwt}, {.buffer = dlut, .length = 5}, {.scalar = &k}};
      const clscan_run_args run = {.values = values, .value_count = 3};
      tu_ok(clscan_plan_enqueue_args(plan, NULL, in, 0, out, 0, n, &run, 0, NULL, NULL, NULL),
            tu_algo_cases[a].name);
      assert_true(tu_read(tu_context(), NULL, out, 0, (n + TU_GUARD) * 4, got));
      for (size_t i = 0; i < n; i++) {
        if (got[i] != want[i])
          tu_failf(r, "float map %s n=%zu: element %zu is %g, want %g", tu_algo_cases[a].name, n, i,
                   (double)got[i], (double)want[i]);
      }
      clReleaseMemObject(in);
      clReleaseMemObject(out);
      clReleaseMemObject(dwt);
      clReleaseMemObject(dlut);
      free(x);
      free(wt);
      free(want);
      free(got);
    }
    clscan_plan_release(plan);
  }
}

/* A read-write argument: the map also writes each mapped value (idempotently) to a side buffer. */
static void test_scan_read_write(void **state) {
  (void)state;
  const clscan_arg args[] = {{.name = "side",
                              .kind = CLSCAN_ARG_BUFFER,
                              .type = CLSCAN_INT32,
                              .access = CLSCAN_ARG_READ_WRITE}};
  const clscan_scan_desc base = {.type = CLSCAN_INT32,
                                 .op = CLSCAN_ADD,
                                 .map_source = "{ side[i] = 3 * x; return 3 * x; }",
                                 .args = args,
                                 .arg_count = 1};
  uint64_t seed = tu_mix(tu_seed(), 99);
  for (size_t a = 0; a < TU_ALGO_CASE_COUNT; a++) {
    if (!device_runs(&tu_algo_cases[a]))
      continue;
    clscan_plan *plan = tu_algo_plan(&base, &tu_algo_cases[a], NULL);
    size_t n = tu_random_size(&seed, 1, 100000);
    int32_t *x = malloc(n * 4), *got = malloc(n * 4);
    assert_true(x && got);
    fill_ints(seed, x, n, 1000);
    cl_mem in = buffer_with(n * 4, x), out = buffer_with(n * 4, NULL),
           side = buffer_with(n * 4, NULL);
    const clscan_arg_value v = {.buffer = side};
    const clscan_run_args run = {.values = &v, .value_count = 1};
    tu_ok(clscan_plan_enqueue_args(plan, NULL, in, 0, out, 0, n, &run, 0, NULL, NULL, NULL),
          tu_algo_cases[a].name);
    assert_true(tu_read(tu_context(), NULL, side, 0, n * 4, got));
    for (size_t i = 0; i < n; i++) {
      if (got[i] != 3 * x[i])
        tu_failf(seed, "%s: side[%zu] is %d, want %d", tu_algo_cases[a].name, i, got[i], 3 * x[i]);
    }
    assert_true(tu_read(tu_context(), NULL, out, 0, n * 4, got));
    uint32_t acc = 0;
    for (size_t i = 0; i < n; i++) {
      acc += 3u * (uint32_t)x[i];
      if (got[i] != (int32_t)acc)
        tu_failf(seed, "%s: out[%zu] is %d, want %d", tu_algo_cases[a].name, i, got[i],
                 (int32_t)acc);
    }
    clReleaseMemObject(in);
    clReleaseMemObject(out);
    clReleaseMemObject(side);
    free(x);
    free(got);
    clscan_plan_release(plan);
  }
}

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
  cl_mem in = buffer_with(in_len * 4, x), dtab = buffer_with(sizeof tab, tab);
  cl_mem out = c->in_place ? in : buffer_with(out_len * 4, NULL);
  cl_mem dflags = buffer_with(n + 1, flags), total = buffer_with(4, NULL);
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
      cl_mem in = buffer_with((n + 1) * 4, x), out = buffer_with(4, NULL);
      cl_mem dtab = buffer_with(sizeof tab, tab);
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
/* reduce */
/* ============================================================================================== */

static void test_reduce(void **state) {
  (void)state;
  uint64_t seed = tu_mix(tu_seed(), 5);
  const clscan_shape shapes[] = {CLSCAN_SHAPE_CPU, CLSCAN_SHAPE_GPU};
  for (int device_init = 0; device_init < 2; device_init++) {
    for (size_t sh = 0; sh < 2; sh++) {
      const int32_t host_init = -77;
      clscan_scan_desc d = {.type = CLSCAN_INT32,
                            .op = CLSCAN_ADD,
                            .map_source = "x * w[i] + s",
                            .args = int_args,
                            .arg_count = 2,
                            .device_init = device_init,
                            .init = device_init ? NULL : &host_init};
      const clscan_tuning t = {.single_pass_shape = shapes[sh]};
      clscan_plan *plan = NULL;
      tu_ok(clscan_plan_create_tuned(tu_context(), &d, &t, &plan), "reduce plan");
      const size_t sizes[] = {0, 1, 2, 1000, 4096, 65537, tu_random_size(&seed, 100000, 300000)};
      for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        size_t n = sizes[k], w_off = k;
        int32_t *x = malloc((n + 1) * 4), *w = malloc((n + w_off + 1) * 4);
        assert_true(x && w);
        uint64_t r = tu_mix(seed, k * 4 + sh * 2 + (size_t)device_init);
        fill_ints(r, x, n + 1, 1000);
        fill_ints(tu_mix(r, 1), w, n + w_off + 1, 50);
        int32_t init = device_init ? (int32_t)tu_random_size(&r, 0, 1000) : host_init, s = 3;
        uint32_t want = (uint32_t)init;
        for (size_t i = 0; i < n; i++)
          want += (uint32_t)x[i] * (uint32_t)w[w_off + i] + (uint32_t)s;
        cl_mem in = buffer_with((n + 1) * 4, x), out = buffer_with(8, NULL);
        cl_mem dw = buffer_with((n + w_off + 1) * 4, w), carry = buffer_with(8, NULL);
        int32_t c2[2] = {0, init};
        assert_true(tu_write(tu_context(), NULL, carry, 0, 8, c2));
        const clscan_arg_value v[2] = {{.buffer = dw, .offset = w_off}, {.scalar = &s}};
        const clscan_run_args run = {
            .values = v, .value_count = 2, .init = device_init ? carry : NULL, .init_offset = 4};
        tu_ok(clscan_plan_enqueue_reduce_args(plan, NULL, in, 0, out, 1, n, &run, 0, NULL, NULL),
              "clscan_plan_enqueue_reduce_args");
        int32_t got[2];
        assert_true(tu_read(tu_context(), NULL, out, 0, 8, got));
        if (got[1] != (int32_t)want)
          tu_failf(r, "reduce n=%zu shape %d device_init %d: %d, want %d", n, (int)shapes[sh],
                   device_init, got[1], (int32_t)want);
        clReleaseMemObject(in);
        clReleaseMemObject(out);
        clReleaseMemObject(dw);
        clReleaseMemObject(carry);
        free(x);
        free(w);
      }
      clscan_plan_release(plan);
    }
  }
}

/* ============================================================================================== */
/* chain: a stream in chunks, chained through the device                                          */
/* ============================================================================================== */

/* Scans a stream in random chunks whose carry is the previous chunk's device total, and checks
 * the whole against the host loop; every algorithm, inclusive and exclusive, chunks of 0 too. */
static void test_chain(void **state) {
  (void)state;
  uint64_t seed = tu_mix(tu_seed(), 11);
  const clscan_arg arg = {.name = "w", .kind = CLSCAN_ARG_BUFFER, .type = CLSCAN_INT32};
  for (size_t a = 0; a < TU_ALGO_CASE_COUNT; a++) {
    if (!device_runs(&tu_algo_cases[a]))
      continue;
    for (int e = 0; e < 2; e++) {
      clscan_scan_desc d = {.type = CLSCAN_INT32,
                            .op = CLSCAN_ADD,
                            .exclusive = e,
                            .map_source = "x - w[i]",
                            .args = &arg,
                            .arg_count = 1,
                            .device_init = 1};
      clscan_plan *plan = tu_algo_plan(&d, &tu_algo_cases[a], NULL);
      size_t n = tu_random_size(&seed, 50000, 200000);
      int32_t *x = malloc(n * 4), *w = malloc(n * 4), *want = malloc(n * 4), *got = malloc(n * 4);
      assert_true(x && w && want && got);
      fill_ints(seed, x, n, 1 << 20);
      fill_ints(tu_mix(seed, 1), w, n, 1 << 10);
      const int32_t start = (int32_t)tu_random_size(&seed, 0, 1000);
      uint32_t acc = (uint32_t)start;
      for (size_t i = 0; i < n; i++) {
        uint32_t v = (uint32_t)x[i] - (uint32_t)w[i];
        want[i] = (int32_t)(e ? acc : acc + v);
        acc += v;
      }
      cl_mem in = buffer_with(n * 4, x), out = buffer_with(n * 4, NULL), dw = buffer_with(n * 4, w);
      cl_mem carry = buffer_with(4, &start);
      size_t chunks = 0;
      for (size_t at = 0; at < n; chunks++) {
        size_t len = chunks % 5 == 3 ? 0 : tu_random_size(&seed, 1, 40000);
        if (len > n - at)
          len = n - at;
        const clscan_arg_value v = {.buffer = dw, .offset = at};
        const clscan_run_args run = {.values = &v, .value_count = 1, .init = carry, .total = carry};
        tu_ok(clscan_plan_enqueue_args(plan, NULL, in, at, out, at, len, &run, 0, NULL, NULL, NULL),
              "chunk");
        at += len;
      }
      int32_t total;
      assert_true(tu_read(tu_context(), NULL, out, 0, n * 4, got));
      assert_true(tu_read(tu_context(), NULL, carry, 0, 4, &total));
      for (size_t i = 0; i < n; i++) {
        if (got[i] != want[i])
          tu_failf(seed, "chain %s %s n=%zu in %zu chunks: element %zu is %d, want %d",
                   tu_algo_cases[a].name, e ? "exclusive" : "inclusive", n, chunks, i, got[i],
                   want[i]);
      }
      if (total != (int32_t)acc)
        tu_failf(seed, "chain %s: the last total is %d, want %d", tu_algo_cases[a].name, total,
                 (int32_t)acc);
      clReleaseMemObject(in);
      clReleaseMemObject(out);
      clReleaseMemObject(dw);
      clReleaseMemObject(carry);
      free(x);
      free(w);
      free(want);
      free(got);
      clscan_plan_release(plan);
    }
  }
}

/* The packed narrow path (plain uint8 xor, no map) with a device initial value and total at a
 * byte offset, chunks at unaligned offsets, in place: every algorithm and shape. */
static void test_chain_narrow(void **state) {
  (void)state;
  uint64_t seed = tu_mix(tu_seed(), 17);
  const size_t n = 150001, chunk = 37777;
  unsigned char *x = malloc(n), *got = malloc(n);
  assert_true(x && got);
  for (size_t a = 0; a < TU_ALGO_CASE_COUNT; a++) {
    if (!device_runs(&tu_algo_cases[a]))
      continue;
    for (int e = 0; e < 2; e++) {
      const clscan_scan_desc d = {
          .type = CLSCAN_UINT8, .op = CLSCAN_XOR, .exclusive = e, .device_init = 1};
      clscan_plan *plan = tu_algo_plan(&d, &tu_algo_cases[a], NULL);
      uint64_t r = tu_mix(seed, a * 2 + (size_t)e);
      for (size_t i = 0; i < n; i++)
        x[i] = (unsigned char)tu_random_size(&r, 0, 255);
      unsigned char carry[4] = {0, 0, 0, (unsigned char)tu_random_size(&r, 0, 255)};
      unsigned acc = carry[3];
      cl_mem buf = buffer_with(n, x), dc = buffer_with(4, carry);
      for (size_t at = 0; at < n; at += chunk) {
        size_t len = n - at < chunk ? n - at : chunk;
        const clscan_run_args run = {.init = dc, .init_offset = 3, .total = dc, .total_offset = 3};
        tu_ok(
            clscan_plan_enqueue_args(plan, NULL, buf, at, buf, at, len, &run, 0, NULL, NULL, NULL),
            "narrow chunk");
      }
      assert_true(tu_read(tu_context(), NULL, buf, 0, n, got));
      assert_true(tu_read(tu_context(), NULL, dc, 0, 4, carry));
      for (size_t i = 0; i < n; i++) {
        unsigned next = acc ^ x[i], want = e ? acc : next;
        if (got[i] != want)
          tu_failf(seed, "narrow chain %s %s: element %zu is %u, want %u", tu_algo_cases[a].name,
                   e ? "exclusive" : "inclusive", i, got[i], want);
        acc = next;
      }
      if (carry[3] != acc)
        tu_failf(seed, "narrow chain %s: total %u, want %u", tu_algo_cases[a].name, carry[3], acc);
      clReleaseMemObject(buf);
      clReleaseMemObject(dc);
      clscan_plan_release(plan);
    }
  }
  free(x);
  free(got);
}

/* A plain plan (no extra arguments) writes its total too; n == 0 writes the initial value. */
static void test_total_plain(void **state) {
  (void)state;
  uint64_t seed = tu_mix(tu_seed(), 13);
  const int32_t init = 1000;
  for (size_t a = 0; a < TU_ALGO_CASE_COUNT; a++) {
    if (!device_runs(&tu_algo_cases[a]))
      continue;
    for (int e = 0; e < 2; e++) {
      const clscan_scan_desc d = {
          .type = CLSCAN_INT32, .op = CLSCAN_MAX, .exclusive = e, .init = &init};
      clscan_plan *plan = tu_algo_plan(&d, &tu_algo_cases[a], NULL);
      const size_t sizes[] = {0, 1, tu_random_size(&seed, 2, 100000)};
      for (size_t k = 0; k < 3; k++) {
        size_t n = sizes[k];
        int32_t *x = malloc((n + 1) * 4);
        assert_non_null(x);
        fill_ints(tu_mix(seed, k), x, n + 1, 1 << 20);
        int32_t want = init;
        for (size_t i = 0; i < n; i++)
          want = x[i] > want ? x[i] : want;
        cl_mem in = buffer_with((n + 1) * 4, x), out = buffer_with((n + 1) * 4, NULL);
        cl_mem total = buffer_with(16, NULL);
        const clscan_run_args run = {.total = total, .total_offset = 8};
        tu_ok(clscan_plan_enqueue_args(plan, NULL, in, 0, out, 0, n, &run, 0, NULL, NULL, NULL),
              "plain total");
        int32_t got[4];
        assert_true(tu_read(tu_context(), NULL, total, 0, 16, got));
        if (got[2] != want)
          tu_failf(seed, "total %s %s n=%zu: %d, want %d", tu_algo_cases[a].name,
                   e ? "exclusive" : "inclusive", n, got[2], want);
        const unsigned char *g = (const unsigned char *)got;
        for (size_t i = 0; i < 16; i++) {
          if ((i < 8 || i >= 12) && g[i] != TU_POISON)
            tu_failf(seed, "total %s n=%zu: byte %zu next to the total was written",
                     tu_algo_cases[a].name, n, i);
        }
        clReleaseMemObject(in);
        clReleaseMemObject(out);
        clReleaseMemObject(total);
        free(x);
      }
      clscan_plan_release(plan);
    }
  }
}

/* ============================================================================================== */
/* errors */
/* ============================================================================================== */

/* Expects a status from a descriptor at plan creation (and from clscan_context_supports). */
static void expect_desc(clscan_status want, const clscan_scan_desc *d, const char *what) {
  clscan_plan *plan = (clscan_plan *)1;
  clscan_status st = clscan_plan_create(tu_context(), d, &plan);
  if (st != want)
    fail_msg("%s: plan creation gave %s (%s), want %s", what, clscan_status_string(st),
             clscan_last_error_detail(), clscan_status_string(want));
  assert_null(plan);
  // Only a build tells a source that does not compile.
  st = clscan_context_supports(tu_context(), d);
  if (want == CLSCAN_USER_SOURCE_INVALID)
    want = CLSCAN_SUCCESS;
  if (st != want)
    fail_msg("%s: clscan_context_supports gave %s, want %s", what, clscan_status_string(st),
             clscan_status_string(want));
}

static void test_desc_errors(void **state) {
  (void)state;
  const clscan_scan_desc good = {
      .type = CLSCAN_INT32, .map_source = "x * w[i] + s", .args = int_args, .arg_count = 2};
  clscan_arg bad[2];
  clscan_scan_desc d;
#define CASE(want, what, ...)          \
  do {                                 \
    d = good;                          \
    memcpy(bad, int_args, sizeof bad); \
    d.args = bad;                      \
    __VA_ARGS__;                       \
    expect_desc(want, &d, what);       \
  } while (0)
  CASE(CLSCAN_NULL_ARGUMENT, "args NULL", d.args = NULL);
  CASE(CLSCAN_INVALID_VALUE, "args with arg_count 0", d.arg_count = 0);
  CASE(CLSCAN_INVALID_VALUE, "arg_count too large", d.arg_count = CLSCAN_MAX_ARGS + 1);
  CASE(CLSCAN_INVALID_VALUE, "no map_source", d.map_source = NULL);
  static const int32_t zero = 0;
  CASE(CLSCAN_INVALID_VALUE, "name a with op_source", d.op = CLSCAN_USER_OP, d.op_source = "a + b",
       d.identity = &zero, bad[0].name = "a");
  CASE(CLSCAN_INVALID_VALUE, "name b with op_source", d.op = CLSCAN_USER_OP, d.op_source = "a + b",
       d.identity = &zero, d.map_source = NULL, bad[1].name = "b");
  CASE(CLSCAN_NULL_ARGUMENT, "name NULL", bad[0].name = NULL);
  CASE(CLSCAN_INVALID_VALUE, "name not an identifier", bad[0].name = "1w");
  CASE(CLSCAN_INVALID_VALUE, "name with a space", bad[0].name = "w x");
  CASE(CLSCAN_INVALID_VALUE, "name x", bad[0].name = "x");
  CASE(CLSCAN_INVALID_VALUE, "name i", bad[1].name = "i");
  CASE(CLSCAN_INVALID_VALUE, "name clscan_", bad[0].name = "clscan_w");
  CASE(CLSCAN_INVALID_VALUE, "duplicate names", bad[1].name = "w");
  CASE(CLSCAN_INVALID_VALUE, "unknown kind", bad[0].kind = (clscan_arg_kind)7);
  CASE(CLSCAN_INVALID_VALUE, "unknown access", bad[0].access = (clscan_arg_access)9);
  CASE(CLSCAN_INVALID_VALUE, "read-write scalar", bad[1].access = CLSCAN_ARG_READ_WRITE);
  CASE(CLSCAN_INVALID_TYPE, "unknown type", bad[0].type = (clscan_type)40);
  CASE(CLSCAN_INVALID_TYPE, "user-type scalar", bad[1].type = CLSCAN_USER_TYPE);
  CASE(CLSCAN_NULL_ARGUMENT, "user type without type_name", bad[0].type = CLSCAN_USER_TYPE,
       bad[0].type_size = 8);
  CASE(CLSCAN_INVALID_VALUE, "user type of size 0", bad[0].type = CLSCAN_USER_TYPE,
       bad[0].type_name = "float2");
  CASE(CLSCAN_INVALID_VALUE, "type_name for a built-in type", bad[0].type_name = "int");
  CASE(CLSCAN_INVALID_VALUE, "type_source without a user type", d.type_source = "typedef int q;");
  CASE(CLSCAN_INVALID_VALUE, "device_init with init", d.device_init = 1, d.init = &good);
  CASE(CLSCAN_USER_SOURCE_INVALID, "a map naming an unknown argument",
       d.map_source = "x * nope[i]");
  CASE(CLSCAN_USER_SOURCE_INVALID, "a map writing a read-only buffer",
       d.map_source = "{ w[i] = 1; return x; }");
  CASE(CLSCAN_USER_SOURCE_INVALID, "a user type argument of an undefined type",
       bad[0].type = CLSCAN_USER_TYPE, bad[0].type_name = "nosuchtype", bad[0].type_size = 8);
  if (!clscan_context_supports(tu_context(), &(clscan_scan_desc){.type = CLSCAN_DOUBLE}))
    return;
  CASE(CLSCAN_UNSUPPORTED_BY_DEVICE, "a double argument without fp64", bad[0].type = CLSCAN_DOUBLE);
#undef CASE
}

/* The one-shot, host and plain enqueue calls refuse descriptors and plans that need run args. */
static void test_call_errors(void **state) {
  (void)state;
  clscan_context *ctx = tu_context();
  const clscan_scan_desc d = {
      .type = CLSCAN_INT32, .map_source = "x * w[i] + s", .args = int_args, .arg_count = 2};
  const clscan_scan_desc di = {.type = CLSCAN_INT32, .device_init = 1};
  int32_t host[4] = {1, 2, 3, 4}, out[4] = {0};
  cl_mem in = buffer_with(sizeof host, host), dout = buffer_with(64, NULL);
  const clscan_scan_desc *descs[] = {&d, &di};
  for (int k = 0; k < 2; k++) {
    assert_int_equal(clscan_scan(ctx, NULL, descs[k], in, 0, dout, 0, 4, 0, NULL, NULL),
                     CLSCAN_INVALID_VALUE);
    assert_int_equal(clscan_scan_host(ctx, descs[k], host, out, 4), CLSCAN_INVALID_VALUE);
    assert_int_equal(clscan_reduce_host(ctx, descs[k], host, 4, out), CLSCAN_INVALID_VALUE);
    // Batched scans, rows without padding (a segmented scan) and with (their own kernel).
    for (size_t stride = 2; stride <= 3; stride++) {
      const clscan_batch batch = {.rows = 2, .row_length = 2, .row_stride = stride};
      assert_int_equal(
          clscan_scan_batched(ctx, NULL, descs[k], &batch, in, 0, dout, 0, 0, NULL, NULL),
          CLSCAN_INVALID_VALUE);
    }
    // Segments by offsets take neither extra arguments nor device_init.
    const int32_t offsets[3] = {0, 1, 4};
    cl_mem doffsets = buffer_with(sizeof offsets, offsets);
    assert_int_equal(clscan_segmented_scan_offsets(ctx, NULL, descs[k], doffsets, 0, 2, in, 0, dout,
                                                   0, 4, 0, NULL, NULL),
                     CLSCAN_INVALID_VALUE);
    assert_int_equal(clscan_segmented_scan_offsets_host(ctx, descs[k], offsets, 2, host, out),
                     CLSCAN_INVALID_VALUE);
    clscan_scan_desc by_offsets = *descs[k];
    by_offsets.segments = CLSCAN_SEGMENTS_OFFSETS;
    clscan_plan *plan = NULL;
    assert_int_equal(clscan_plan_create(ctx, &by_offsets, &plan), CLSCAN_INVALID_VALUE);
    assert_null(plan);
    clReleaseMemObject(doffsets);
    tu_ok(clscan_plan_create(ctx, descs[k], &plan), "plan");
    assert_int_equal(clscan_plan_enqueue(plan, NULL, in, 0, dout, 0, 4, 0, NULL, NULL),
                     CLSCAN_INVALID_VALUE);
    assert_int_equal(clscan_plan_enqueue_reduce(plan, NULL, in, 0, dout, 0, 4, 0, NULL, NULL),
                     CLSCAN_INVALID_VALUE);
    clscan_plan_release(plan);
  }
  for (int i = 0; i < 4; i++)
    assert_int_equal(out[i], 0);
  // A plan segmented by offsets runs through clscan_plan_enqueue_offsets(), never through
  // clscan_plan_enqueue_args() (which would take its offsets for flags); the output stays as it
  // was.
  const clscan_scan_desc plain_offsets = {.type = CLSCAN_INT32,
                                          .segments = CLSCAN_SEGMENTS_OFFSETS};
  clscan_plan *offsets_plan = NULL;
  tu_ok(clscan_plan_create(ctx, &plain_offsets, &offsets_plan), "offsets plan");
  const int32_t poison[4] = {-7, -7, -7, -7};
  cl_mem flags = buffer_with(sizeof host, host), pout = buffer_with(sizeof poison, poison);
  const clscan_run_args seg_run = {.segments = flags};
  const clscan_run_args *runs[] = {NULL, &seg_run};
  for (int k = 0; k < 2; k++) {
    assert_int_equal(clscan_plan_enqueue_args(offsets_plan, NULL, in, 0, pout, 0, 4, runs[k], 0,
                                              NULL, NULL, NULL),
                     CLSCAN_INVALID_VALUE);
  }
  int32_t got[4];
  assert_true(tu_read(ctx, NULL, pout, 0, sizeof got, got));
  assert_memory_equal(got, poison, sizeof got);
  clscan_plan_release(offsets_plan);
  clReleaseMemObject(flags);
  clReleaseMemObject(pout);
  assert_int_equal(
      clscan_plan_enqueue_args(NULL, NULL, in, 0, dout, 0, 4, NULL, 0, NULL, NULL, NULL),
      CLSCAN_NULL_ARGUMENT);
  assert_int_equal(
      clscan_plan_enqueue_reduce_args(NULL, NULL, in, 0, dout, 0, 4, NULL, 0, NULL, NULL),
      CLSCAN_NULL_ARGUMENT);
  clReleaseMemObject(in);
  clReleaseMemObject(dout);
}

/* The fixture of the enqueue errors: a plan with a buffer and a scalar argument and device_init,
 * its buffers, and a good run. */
typedef struct err_fixture {
  clscan_plan *plan, *seg_plan;
  cl_mem in, out, w, carry, ro, other;
  cl_context other_ctx;
  clscan_arg_value values[2];
  clscan_run_args run;
  int32_t s;
} err_fixture;

static void check_untouched(const err_fixture *f, const char *what) {
  unsigned char got[256];
  assert_true(tu_read(tu_context(), NULL, f->out, 0, sizeof got, got));
  for (size_t i = 0; i < sizeof got; i++) {
    if (got[i] != TU_POISON)
      fail_msg("%s: the output was written", what);
  }
  int32_t carry[4];
  assert_true(tu_read(tu_context(), NULL, f->carry, 0, 16, carry));
  if (carry[0] != 5 || carry[1] != 5)
    fail_msg("%s: the carry was written", what);
}

/* Runs an enqueue with a modified copy of the good run, expecting `want`. */
static void expect_run(err_fixture *f, clscan_status want, const clscan_run_args *run, size_t n,
                       size_t out_off, int reduce, const char *what) {
  cl_event done = (cl_event)1;
  clscan_status st = reduce ? clscan_plan_enqueue_reduce_args(f->plan, NULL, f->in, 0, f->out,
                                                              out_off, n, run, 0, NULL, &done)
                            : clscan_plan_enqueue_args(f->plan, NULL, f->in, 0, f->out, out_off, n,
                                                       run, 0, NULL, NULL, &done);
  clFinish(clscan_context_queue(tu_context()));
  if (st != want)
    fail_msg("%s: got %s (%s), want %s", what, clscan_status_string(st), clscan_last_error_detail(),
             clscan_status_string(want));
  if (want != CLSCAN_SUCCESS) {
    assert_null(done);
    check_untouched(f, what);
  } else if (done) {
    clReleaseEvent(done);
  }
}

static void test_enqueue_errors(void **state) {
  (void)state;
  clscan_context *ctx = tu_context();
  err_fixture f = {.s = 1};
  const clscan_scan_desc d = {.type = CLSCAN_INT32,
                              .map_source = "x * w[i] + s",
                              .args = int_args,
                              .arg_count = 2,
                              .device_init = 1};
  tu_ok(clscan_plan_create(ctx, &d, &f.plan), "plan");
  int32_t x[64], carry[4] = {5, 5, 5, 5};
  for (int i = 0; i < 64; i++)
    x[i] = i;
  f.in = buffer_with(sizeof x, x);
  f.out = buffer_with(256, NULL);
  f.w = buffer_with(sizeof x, x);
  f.carry = buffer_with(16, carry);
  f.ro = tu_buffer(ctx, CL_MEM_READ_ONLY, 256);
  cl_int err;
  cl_device_id dev = clscan_context_device(ctx);
  f.other_ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
  assert_int_equal(err, CL_SUCCESS);
  f.other = clCreateBuffer(f.other_ctx, CL_MEM_READ_WRITE, 256, NULL, &err);
  assert_int_equal(err, CL_SUCCESS);
  f.values[0] = (clscan_arg_value){.buffer = f.w};
  f.values[1] = (clscan_arg_value){.scalar = &f.s};
  f.run = (clscan_run_args){.values = f.values, .value_count = 2, .init = f.carry};
  clscan_arg_value v[2];
  clscan_run_args r;
#define RUN(want, n, what, ...)              \
  do {                                       \
    memcpy(v, f.values, sizeof v);           \
    r = f.run;                               \
    r.values = v;                            \
    __VA_ARGS__;                             \
    expect_run(&f, want, &r, n, 0, 0, what); \
  } while (0)
  expect_run(&f, CLSCAN_INVALID_VALUE, NULL, 16, 0, 0, "run NULL (no values)");
  RUN(CLSCAN_INVALID_VALUE, 16, "value_count 1", r.value_count = 1);
  RUN(CLSCAN_INVALID_VALUE, 16, "value_count 3", r.value_count = 3);
  RUN(CLSCAN_NULL_ARGUMENT, 16, "values NULL", r.values = NULL);
  RUN(CLSCAN_NULL_ARGUMENT, 16, "buffer NULL", v[0].buffer = NULL);
  RUN(CLSCAN_INVALID_VALUE, 16, "buffer with a scalar", v[0].scalar = &f.s);
  RUN(CLSCAN_NULL_ARGUMENT, 16, "scalar NULL", v[1].scalar = NULL);
  RUN(CLSCAN_INVALID_VALUE, 16, "scalar with a buffer", v[1].buffer = f.w);
  RUN(CLSCAN_INVALID_BUFFER, 16, "buffer of another context", v[0].buffer = f.other);
  RUN(CLSCAN_INVALID_BUFFER, 16, "buffer not a cl_mem", v[0].buffer = (cl_mem)f.other_ctx);
  RUN(CLSCAN_BUFFER_TOO_SMALL, 16, "offset + n past the end", v[0].offset = 60);
  RUN(CLSCAN_BUFFER_TOO_SMALL, 16, "length past the end", v[0].length = 65);
  RUN(CLSCAN_SIZE_OVERFLOW, 16, "offset overflows", v[0].offset = SIZE_MAX - 4);
  RUN(CLSCAN_OVERLAP, 16, "argument overlaps the output", v[0].buffer = f.out);
  RUN(CLSCAN_NULL_ARGUMENT, 16, "init NULL with device_init", r.init = NULL);
  RUN(CLSCAN_INVALID_VALUE, 16, "init offset unaligned", r.init_offset = 2);
  RUN(CLSCAN_BUFFER_TOO_SMALL, 16, "init past the end", r.init_offset = 16);
  RUN(CLSCAN_INVALID_BUFFER, 16, "init of another context", r.init = f.other);
  RUN(CLSCAN_OVERLAP, 16, "init inside the output", r.init = f.out, r.init_offset = 8);
  RUN(CLSCAN_INVALID_VALUE, 16, "total offset unaligned", r.total = f.carry, r.total_offset = 3);
  RUN(CLSCAN_BUFFER_TOO_SMALL, 16, "total past the end", r.total = f.carry, r.total_offset = 16);
  RUN(CLSCAN_INVALID_BUFFER, 16, "total read-only", r.total = f.ro);
  RUN(CLSCAN_INVALID_BUFFER, 16, "total of another context", r.total = f.other);
  RUN(CLSCAN_OVERLAP, 16, "total inside the output", r.total = f.out, r.total_offset = 4);
  RUN(CLSCAN_OVERLAP, 16, "total inside the input", r.total = f.in, r.total_offset = 4);
  RUN(CLSCAN_INVALID_VALUE, 16, "segments for an unsegmented plan", r.segments = f.w);
  // The reduction's own refusals.
  memcpy(v, f.values, sizeof v);
  r = f.run;
  r.values = v;
  r.total = f.carry;
  r.total_offset = 8;
  expect_run(&f, CLSCAN_INVALID_VALUE, &r, 16, 1, 1, "reduce with a total");
  r.total = NULL;
  r.segments = f.w;
  expect_run(&f, CLSCAN_INVALID_VALUE, &r, 16, 1, 1, "reduce with segments");
  r.segments = NULL;
  r.init = f.out;
  r.init_offset = 4;
  expect_run(&f, CLSCAN_OVERLAP, &r, 16, 1, 1, "reduce init on its output");
  // A read-write argument that overlaps the input, and a plan without device_init given init.
  const clscan_arg rw = {.name = "w", .type = CLSCAN_INT32, .access = CLSCAN_ARG_READ_WRITE};
  const clscan_scan_desc drw = {
      .type = CLSCAN_INT32, .map_source = "x + w[i]", .args = &rw, .arg_count = 1};
  clscan_plan *prw = NULL;
  tu_ok(clscan_plan_create(ctx, &drw, &prw), "read-write plan");
  const clscan_arg_value vin = {.buffer = f.in}, vro = {.buffer = f.ro};
  const clscan_run_args rin = {.values = &vin, .value_count = 1};
  const clscan_run_args rro = {.values = &vro, .value_count = 1};
  const clscan_arg_value vw = {.buffer = f.w};
  const clscan_run_args rinit = {.values = &vw, .value_count = 1, .init = f.carry};
  assert_int_equal(
      clscan_plan_enqueue_args(prw, NULL, f.in, 0, f.out, 0, 16, &rin, 0, NULL, NULL, NULL),
      CLSCAN_OVERLAP);
  assert_int_equal(
      clscan_plan_enqueue_args(prw, NULL, f.in, 0, f.out, 0, 16, &rro, 0, NULL, NULL, NULL),
      CLSCAN_INVALID_BUFFER);
  assert_int_equal(
      clscan_plan_enqueue_args(prw, NULL, f.in, 0, f.out, 0, 16, &rinit, 0, NULL, NULL, NULL),
      CLSCAN_INVALID_VALUE);
  check_untouched(&f, "read-write plan");
  clscan_plan_release(prw);
  // A segmented plan needs its segments, and has no total.
  const clscan_scan_desc dseg = {.type = CLSCAN_INT32, .segments = CLSCAN_SEGMENTS_HEAD_FLAGS};
  tu_ok(clscan_plan_create(ctx, &dseg, &f.seg_plan), "segmented plan");
  const clscan_run_args rseg = {.segments = NULL};
  const clscan_run_args rtot = {.segments = f.w, .total = f.carry, .total_offset = 8};
  assert_int_equal(
      clscan_plan_enqueue_args(f.seg_plan, NULL, f.in, 0, f.out, 0, 16, &rseg, 0, NULL, NULL, NULL),
      CLSCAN_NULL_ARGUMENT);
  assert_int_equal(
      clscan_plan_enqueue_args(f.seg_plan, NULL, f.in, 0, f.out, 0, 16, &rtot, 0, NULL, NULL, NULL),
      CLSCAN_INVALID_VALUE);
  check_untouched(&f, "segmented plan");
  // The good run succeeds (the fixture is sound).
  expect_run(&f, CLSCAN_SUCCESS, &f.run, 16, 0, 0, "the good run");
#undef RUN
  clscan_plan_release(f.plan);
  clscan_plan_release(f.seg_plan);
  cl_mem all[] = {f.in, f.out, f.w, f.carry, f.ro, f.other};
  for (size_t k = 0; k < sizeof all / sizeof all[0]; k++)
    clReleaseMemObject(all[k]);
  clReleaseContext(f.other_ctx);
}

/* ============================================================================================== */
/* Key equality with extra arguments                                                              */
/* ============================================================================================== */

/* The key equality of the keys cases: keys agree modulo the scalar m and in the class table cls
 * (an intersection of two equivalences, so an equivalence), read by key_equal_source only. */
static const clscan_arg key_args[] = {
    {.name = "m", .kind = CLSCAN_ARG_SCALAR, .type = CLSCAN_INT32},
    {.name = "cls", .kind = CLSCAN_ARG_BUFFER, .type = CLSCAN_INT32},
};
#define KEY_RANGE 64

/* The host's equality of the keys cases. */
static int keys_equal(int32_t a, int32_t b, int32_t m, const int32_t *cls) {
  return a % m == b % m && cls[a] == cls[b];
}

/* Checks one by-key scan of n elements with m and the table from cls_off against a host loop. */
static void keys_check(clscan_plan *plan, const tu_algo_case *a, size_t n, int exclusive, int round,
                       uint64_t seed) {
  clscan_context *ctx = tu_context();
  uint64_t s = seed;
  const int32_t m = (int32_t)tu_random_size(&s, 1, 9);
  const size_t cls_off = tu_random_size(&s, 0, 5);
  int32_t *in = malloc(n * 4), *keys = malloc(n * 4), *want = malloc(n * 4), *got = malloc(n * 4);
  int32_t cls[KEY_RANGE + 5];
  assert_true(in && keys && want && got);
  for (size_t k = 0; k < KEY_RANGE + 5; k++)
    cls[k] = (int32_t)tu_random_size(&s, 0, 2);
  fill_ints(tu_mix(seed, 1), in, n, 1000);
  for (size_t i = 0; i < n; i++)
    keys[i] = i > 0 && tu_random_size(&s, 0, 3) != 0
                  ? keys[i - 1]
                  : (int32_t)tu_random_size(&s, 0, KEY_RANGE - 1);
  int32_t acc = 0;
  for (size_t i = 0; i < n; i++) {
    if (i == 0 || !keys_equal(keys[i], keys[i - 1], m, cls + cls_off))
      acc = 0;
    want[i] = exclusive ? acc : acc + in[i];
    acc += in[i];
  }
  cl_mem din = tu_buffer(ctx, CL_MEM_READ_WRITE, n * 4),
         dkeys = tu_buffer(ctx, CL_MEM_READ_WRITE, n * 4);
  cl_mem dout = tu_buffer(ctx, CL_MEM_READ_WRITE, n * 4);
  cl_mem dcls = tu_buffer(ctx, CL_MEM_READ_ONLY, sizeof cls);
  assert_true(din && dkeys && dout && dcls);
  assert_true(tu_write(ctx, NULL, din, 0, n * 4, in) && tu_write(ctx, NULL, dkeys, 0, n * 4, keys));
  assert_true(tu_write(ctx, NULL, dcls, 0, sizeof cls, cls));
  const clscan_arg_value values[] = {{.scalar = &m},
                                     {.buffer = dcls, .offset = cls_off, .length = KEY_RANGE}};
  const clscan_run_args run = {.values = values, .value_count = 2, .segments = dkeys};
  tu_ok(clscan_plan_enqueue_args(plan, NULL, din, 0, dout, 0, n, &run, 0, NULL, NULL, NULL),
        "clscan_plan_enqueue_args (keys)");
  assert_true(tu_read(ctx, NULL, dout, 0, n * 4, got));
  for (size_t i = 0; i < n; i++) {
    if (got[i] != want[i])
      tu_failf(seed, "keys %s n=%zu exclusive=%d round %d: out[%zu] = %d, want %d", a->name, n,
               exclusive, round, i, got[i], want[i]);
  }
  cl_mem all[] = {din, dkeys, dout, dcls};
  for (size_t k = 0; k < 4; k++)
    clReleaseMemObject(all[k]);
  free(in);
  free(keys);
  free(want);
  free(got);
}

/* A by-key scan whose key_equal_source reads a scalar and a buffer argument (and nothing else
 * does), through every algorithm, inclusive and exclusive, at sizes around each one's tile; each
 * plan runs twice per size with new values. */
static void test_keys_equal(void **state) {
  (void)state;
  uint64_t seed = tu_mix(tu_seed(), 5150);
  for (size_t c = 0; c < TU_ALGO_CASE_COUNT; c++) {
    if (!device_runs(&tu_algo_cases[c]))
      continue;
    for (int exclusive = 0; exclusive < 2; exclusive++) {
      const clscan_scan_desc d = {.type = CLSCAN_INT32,
                                  .exclusive = exclusive,
                                  .segments = CLSCAN_SEGMENTS_KEYS,
                                  .key_type = CLSCAN_INT32,
                                  .key_equal_source = "a % m == b % m && cls[a] == cls[b]",
                                  .args = key_args,
                                  .arg_count = 2};
      clscan_plan *plan = tu_algo_plan(&d, &tu_algo_cases[c], NULL);
      size_t sizes[8];
      const size_t count = tu_sizes_around(tu_algo_tile(plan, &tu_algo_cases[c], 1), &seed, sizes);
      for (size_t k = 0; k < count; k++) {
        char what[96];
        snprintf(what, sizeof what, "keys %s n=%zu exclusive=%d", tu_algo_cases[c].name, sizes[k],
                 exclusive);
        tu_progress(what);
        for (int round = 0; round < 2; round++)
          keys_check(plan, &tu_algo_cases[c], sizes[k], exclusive, round,
                     tu_mix(seed, c * 64 + k * 4 + (size_t)(exclusive * 2 + round)));
      }
      clscan_plan_release(plan);
    }
  }
}

/* The names a and b are the key equality's parameters; arguments read by key_equal_source alone
 * are accepted. */
static void test_keys_equal_errors(void **state) {
  (void)state;
  clscan_arg bad[2];
  memcpy(bad, key_args, sizeof bad);
  clscan_scan_desc d = {.type = CLSCAN_INT32,
                        .segments = CLSCAN_SEGMENTS_KEYS,
                        .key_type = CLSCAN_INT32,
                        .key_equal_source = "a % m == b % m && cls[a] == cls[b]",
                        .args = bad,
                        .arg_count = 2};
  clscan_plan *plan = NULL;
  tu_ok(clscan_plan_create(tu_context(), &d, &plan), "key equality with arguments");
  clscan_plan_release(plan);
  const char *const reserved[] = {"a", "b"};
  for (size_t k = 0; k < 2; k++) {
    bad[0].name = reserved[k];
    plan = NULL;
    assert_int_equal(clscan_plan_create(tu_context(), &d, &plan), CLSCAN_INVALID_VALUE);
    assert_null(plan);
  }
  bad[0].name = "m";
  d.key_equal_source = NULL; /* nothing reads the arguments */
  assert_int_equal(clscan_plan_create(tu_context(), &d, &plan), CLSCAN_INVALID_VALUE);
  d.key_equal_source = "a % m == b % nothing";
  assert_int_equal(clscan_plan_create(tu_context(), &d, &plan), CLSCAN_USER_SOURCE_INVALID);
}

int main(int argc, char **argv) {
  const struct CMUnitTest scan[] = {
      cmocka_unit_test(test_scan_host_init), cmocka_unit_test(test_scan_device_init),
      cmocka_unit_test(test_scan_segmented), cmocka_unit_test(test_scan_types),
      cmocka_unit_test(test_scan_read_write)};
  const struct CMUnitTest op[] = {cmocka_unit_test(test_op), cmocka_unit_test(test_op_segmented),
                                  cmocka_unit_test(test_op_withheld),
                                  cmocka_unit_test(test_op_reduce)};
  const struct CMUnitTest reduce[] = {cmocka_unit_test(test_reduce)};
  const struct CMUnitTest chain[] = {cmocka_unit_test(test_chain),
                                     cmocka_unit_test(test_chain_narrow),
                                     cmocka_unit_test(test_total_plain)};
  const struct CMUnitTest errors[] = {cmocka_unit_test(test_desc_errors),
                                      cmocka_unit_test(test_call_errors),
                                      cmocka_unit_test(test_enqueue_errors)};
  const struct CMUnitTest keys[] = {cmocka_unit_test(test_keys_equal),
                                    cmocka_unit_test(test_keys_equal_errors)};
  if (!tu_context())
    return 1;
  int failed = 0;
  for (int i = 1; i < argc || (argc == 1 && i == 1); i++) {
    const char *g = argc > 1 ? argv[i] : "all";
    int all = strcmp(g, "all") == 0, known = 0;
#define GROUP(name, list)                                                                         \
  if (all || strcmp(g, name) == 0) {                                                              \
    known = 1;                                                                                    \
    failed += cmocka_run_group_tests_name("args." name, list, tu_group_setup, tu_group_teardown); \
  }
    GROUP("scan", scan)
    GROUP("op", op)
    GROUP("reduce", reduce)
    GROUP("chain", chain)
    GROUP("errors", errors)
    GROUP("keys", keys)
#undef GROUP
    if (!known) {
      fprintf(stderr, "test_args: unknown group %s (scan, op, reduce, chain, errors, keys, all)\n",
              g);
      failed++;
    }
  }
  tu_context_release();
  return failed ? 1 : 0;
}
