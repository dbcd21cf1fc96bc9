/*
 * clscan tests, args: the int32 map x * w[i] + s (a buffer and a scalar argument) through every
 * algorithm and single-pass shape at sizes around each one's tile, inclusive and exclusive, with a
 * host or device initial value and the device total, offsets, in place, segmented, and a plan
 * reused with new buffers; a float map over a uint8 buffer and a user-type table; a read-write
 * argument (group scan).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args_fixture.h"

/* ============================================================================================== */
/* scan: the int32 map x * w[i] + s through every algorithm                                      */
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
  b.in = tu_buffer_with(tu_context(), in_len * 4, x);
  b.out = c->in_place ? b.in : tu_buffer_with(tu_context(), out_len * 4, NULL);
  if (c->in_place) {
    // The guard after an in-place range is the input's: poison it for the check.
    unsigned char poison[TU_GUARD * 4];
    memset(poison, TU_POISON, sizeof poison);
    assert_true(tu_write(tu_context(), NULL, b.in, (c->in_off + n) * 4, sizeof poison, poison));
  }
  b.w = tu_buffer_with(tu_context(), w_len * 4, w);
  b.w2 = tu_buffer_with(tu_context(), w_len * 4, w2);
  b.flags = tu_buffer_with(tu_context(), n + 1, flags);
  b.carry = tu_buffer_with(tu_context(), 8, NULL);
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
      cl_mem in = tu_buffer_with(tu_context(), n * 4, x),
             out = tu_buffer_with(tu_context(), (n + TU_GUARD) * 4, NULL);
      cl_mem dwt = tu_buffer_with(tu_context(), n, wt),
             dlut = tu_buffer_with(tu_context(), sizeof lut, lut);
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
    cl_mem in = tu_buffer_with(tu_context(), n * 4, x),
           out = tu_buffer_with(tu_context(), n * 4, NULL),
           side = tu_buffer_with(tu_context(), n * 4, NULL);
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
/* The tests of this file                                                                         */
/* ============================================================================================== */

const struct CMUnitTest args_scan_tests[] = {
    cmocka_unit_test(test_scan_host_init),  cmocka_unit_test(test_scan_device_init),
    cmocka_unit_test(test_scan_segmented),  cmocka_unit_test(test_scan_types),
    cmocka_unit_test(test_scan_read_write),
};
const size_t args_scan_count = sizeof args_scan_tests / sizeof args_scan_tests[0];
