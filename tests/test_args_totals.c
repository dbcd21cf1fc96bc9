/*
 * clscan tests, args: reductions with extra arguments and a device initial value and total (group
 * reduce); streams scanned in chunks chained through the device total, the packed narrow path,
 * plain plans' totals and n == 0 (group chain).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args_fixture.h"

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
        cl_mem in = tu_buffer_with(tu_context(), (n + 1) * 4, x),
               out = tu_buffer_with(tu_context(), 8, NULL);
        cl_mem dw = tu_buffer_with(tu_context(), (n + w_off + 1) * 4, w),
               carry = tu_buffer_with(tu_context(), 8, NULL);
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
      cl_mem in = tu_buffer_with(tu_context(), n * 4, x),
             out = tu_buffer_with(tu_context(), n * 4, NULL),
             dw = tu_buffer_with(tu_context(), n * 4, w);
      cl_mem carry = tu_buffer_with(tu_context(), 4, &start);
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
      cl_mem buf = tu_buffer_with(tu_context(), n, x), dc = tu_buffer_with(tu_context(), 4, carry);
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
        cl_mem in = tu_buffer_with(tu_context(), (n + 1) * 4, x),
               out = tu_buffer_with(tu_context(), (n + 1) * 4, NULL);
        cl_mem total = tu_buffer_with(tu_context(), 16, NULL);
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
/* The tests of this file                                                                         */
/* ============================================================================================== */

const struct CMUnitTest args_reduce_tests[] = {
    cmocka_unit_test(test_reduce),
};
const size_t args_reduce_count = sizeof args_reduce_tests / sizeof args_reduce_tests[0];

const struct CMUnitTest args_chain_tests[] = {
    cmocka_unit_test(test_chain),
    cmocka_unit_test(test_chain_narrow),
    cmocka_unit_test(test_total_plain),
};
const size_t args_chain_count = sizeof args_chain_tests / sizeof args_chain_tests[0];
