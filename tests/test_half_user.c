/*
 * clscan tests, half: op_source on halves (a + b gives the built-in add's bits; fmax), maps from
 * and to half, and a map reading a half buffer argument (vload_half) and a half scalar (group
 * user).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "half_fixture.h"

/* ============================================================================================== */
/* user                                                                                           */
/* ============================================================================================== */

/* Host twins of the user sources. */
static void twin_add(const void *a, const void *b, void *r) {
  uint16_t x, y;
  memcpy(&x, a, 2);
  memcpy(&y, b, 2);
  const uint16_t z = hh(hd(x) + hd(y));
  memcpy(r, &z, 2);
}
static void twin_fmax(const void *a, const void *b, void *r) {
  uint16_t x, y;
  memcpy(&x, a, 2);
  memcpy(&y, b, 2);
  const uint16_t z = hh(fmax(hd(x), hd(y)));
  memcpy(r, &z, 2);
}
static void twin_double_it(const void *x, uint64_t i, void *y) {
  (void)i;
  uint16_t h;
  memcpy(&h, x, 2);
  const float f = (float)(hd(h) * 2.0);
  memcpy(y, &f, 4);
}
static void twin_square(const void *x, uint64_t i, void *y) {
  (void)i;
  uint16_t h;
  memcpy(&h, x, 2);
  const uint16_t z = hh(hd(h) * hd(h)); /* exact in float, then one rounding */
  memcpy(y, &z, 2);
}

/* Runs a descriptor (with twins) through three algorithm cases (rotating_algo) at the sizes around
 * its tile, on data from fill (or clscan_ref_fill of the input type and op), and checks it. With
 * same_as, a descriptor whose bits must equal those of desc on the same data runs too. */
static void user_cases(const char *what, const clscan_scan_desc *desc, const clscan_ref_twins *tw,
                       clscan_op fill_op, const clscan_scan_desc *same_as, size_t pick,
                       uint64_t seed) {
  const size_t is = clscan_ref_in_size(desc), os = clscan_ref_out_size(desc);
  for (size_t a = 0; a < TU_ALGO_CASE_COUNT; a++) {
    if (!rotating_algo(a, pick) || !device_runs(&tu_algo_cases[a]))
      continue;
    clscan_plan *plan = tu_algo_plan(desc, &tu_algo_cases[a], NULL);
    clscan_plan *twin = same_as ? tu_algo_plan(same_as, &tu_algo_cases[a], NULL) : NULL;
    uint64_t s = tu_mix(seed, a);
    size_t sizes[8],
        count = tu_sizes_around(tu_algo_tile(plan, &tu_algo_cases[a], vec_of(desc)), &s, sizes);
    for (size_t k = 0; k < count; k++) {
      const size_t n = sizes[k];
      const uint64_t r = tu_mix(seed, a * 16 + k);
      unsigned char *in = xmalloc(n * is), *got = xmalloc(n * os), *got2 = xmalloc(n * os);
      clscan_ref_fill(desc->type, fill_op, r, in, n);
      if (fill_op == CLSCAN_MAX) /* one zero: fmax of two zeros may return either */
        for (size_t i = 0; i < n; i++)
          if (((uint16_t *)in)[i] == H_NEG_ZERO)
            ((uint16_t *)in)[i] = H_ZERO;
      tu_progress(what);
      run_plan(plan, NULL, 0, in, is, got, os, n, NULL, 0);
      clscan_ref_mismatch m;
      if (!clscan_ref_check_twins(desc, tw, NULL, in, got, n, &m))
        tu_failf(r, "%s %s n=%zu: %s", what, tu_algo_cases[a].name, n, m.detail);
      if (twin) {
        run_plan(twin, NULL, 0, in, is, got2, os, n, NULL, 0);
        if (memcmp(got, got2, n * os) != 0)
          tu_failf(r, "%s %s n=%zu: the bits differ from the built-in operator's", what,
                   tu_algo_cases[a].name, n);
      }
      free(in);
      free(got);
      free(got2);
    }
    clscan_plan_release(plan);
    clscan_plan_release(twin);
  }
}

static void test_user_ops(void **state) {
  (void)state;
  const uint64_t seed = tu_mix(tu_seed(), 0x4A40);
  const uint16_t zero = H_ZERO, neg_inf = H_NEG_INF;
  const clscan_scan_desc add = {
      .type = CLSCAN_HALF, .op = CLSCAN_USER_OP, .op_source = "a + b", .identity = &zero};
  const clscan_scan_desc builtin = {.type = CLSCAN_HALF, .op = CLSCAN_ADD};
  const clscan_ref_twins tadd = {.op = twin_add};
  user_cases("op a + b", &add, &tadd, CLSCAN_ADD, &builtin, 0, tu_mix(seed, 1));
  const clscan_scan_desc mx = {
      .type = CLSCAN_HALF, .op = CLSCAN_USER_OP, .op_source = "fmax(a, b)", .identity = &neg_inf};
  const clscan_ref_twins tmax = {.op = twin_fmax};
  const clscan_scan_desc bmax = {.type = CLSCAN_HALF, .op = CLSCAN_MAX};
  user_cases("op fmax(a, b)", &mx, &tmax, CLSCAN_MAX, &bmax, 1, tu_mix(seed, 2));
}

static void test_user_maps(void **state) {
  (void)state;
  const uint64_t seed = tu_mix(tu_seed(), 0x4A41);
  const clscan_scan_desc to_float = {.type = CLSCAN_HALF,
                                     .op = CLSCAN_ADD,
                                     .out_type = CLSCAN_OUT_FLOAT,
                                     .map_source = "x * 2.0f"};
  const clscan_ref_twins t1 = {.map = twin_double_it};
  user_cases("map x * 2.0f", &to_float, &t1, CLSCAN_ADD, NULL, 2, tu_mix(seed, 1));
  const clscan_scan_desc square = {.type = CLSCAN_HALF, .op = CLSCAN_MAX, .map_source = "x * x"};
  const clscan_ref_twins t2 = {.map = twin_square};
  user_cases("map x * x", &square, &t2, CLSCAN_MAX, NULL, 3, tu_mix(seed, 2));
}

/* A float scan of x * w[i] + s with a half buffer w (read by vload_half) and a half scalar s: small
 * integers times quarters plus a half, so every float sum is exact. */
static void test_user_args(void **state) {
  (void)state;
  const uint64_t seed = tu_mix(tu_seed(), 0x4A42);
  static const clscan_arg args[] = {
      {.name = "w", .kind = CLSCAN_ARG_BUFFER, .type = CLSCAN_HALF},
      {.name = "s", .kind = CLSCAN_ARG_SCALAR, .type = CLSCAN_HALF},
  };
  const clscan_scan_desc d = {
      .type = CLSCAN_FLOAT, .map_source = "x * vload_half(i, w) + s", .args = args, .arg_count = 2};
  for (size_t a = 0; a < TU_ALGO_CASE_COUNT; a++) {
    if (!device_runs(&tu_algo_cases[a]))
      continue;
    clscan_plan *plan = tu_algo_plan(&d, &tu_algo_cases[a], NULL);
    uint64_t s = tu_mix(seed, a);
    size_t sizes[8], count = tu_sizes_around(tu_algo_tile(plan, &tu_algo_cases[a], 4), &s, sizes);
    for (size_t k = 0; k < count; k++) {
      const size_t n = sizes[k];
      const uint64_t r0 = tu_mix(seed, a * 16 + k);
      uint64_t r = r0;
      float *x = xmalloc(n * 4), *got = xmalloc(n * 4);
      uint16_t *w = xmalloc(n * 2);
      const uint16_t sv = hh((double)((int)tu_random_size(&r, 0, 8) - 4) * 0.5);
      double acc = 0;
      int nonzero = 0;
      for (size_t i = 0; i < n; i++) {
        x[i] = (float)((int)tu_random_size(&r, 0, 16) - 8);
        w[i] = hh((double)((int)tu_random_size(&r, 0, 16) - 8) * 0.25);
        nonzero |= x[i] != 0 && w[i] != 0;
      }
      cl_mem dw = tu_buffer_with(tu_context(), n * 2, w);
      const clscan_arg_value values[] = {{.buffer = dw}, {.scalar = &sv}};
      tu_progress("map with half arguments");
      run_plan(plan, NULL, 0, x, 4, got, 4, n, values, 2);
      clReleaseMemObject(dw);
      if (n > 16 && !nonzero)
        tu_failf(r0, "args: the weights are all zero");
      for (size_t i = 0; i < n; i++) {
        acc += (double)x[i] * hd(w[i]) + hd(sv);
        if ((double)got[i] != acc)
          tu_failf(r0, "args %s n=%zu s=%g: out[%zu] = %.9g, want %.9g", tu_algo_cases[a].name, n,
                   hd(sv), i, (double)got[i], acc);
      }
      free(x);
      free(got);
      free(w);
    }
    clscan_plan_release(plan);
  }
}

/* ============================================================================================== */
/* The tests of this file                                                                         */
/* ============================================================================================== */

const struct CMUnitTest half_user_tests[] = {
    cmocka_unit_test(test_user_ops),
    cmocka_unit_test(test_user_maps),
    cmocka_unit_test(test_user_args),
};
const size_t half_user_count = sizeof half_user_tests / sizeof half_user_tests[0];
