/*
 * clscan tests, half: one rounding per result, bit for bit: random pairs over the whole half range
 * summed and multiplied (a head-flag scan of segments of two, every algorithm case), then float,
 * double and int32 conversions at ties, just off them, at the subnormals and past the largest half
 * (group round).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "half_fixture.h"

/* ============================================================================================== */
/* round                                                                                          */
/* ============================================================================================== */

/* A second operand: random; for a sum the negation of a (cancellations, inf + -inf) or one near
 * a's exponent (ties); for a product one whose significand makes ties likely (1.5 or 1 + 2^-10
 * times a power of two) or one that brings the product near 1 .. the subnormals. */
static uint16_t partner(uint64_t *s, uint16_t a, int mul) {
  const uint16_t sign = tu_random_size(s, 0, 1) ? 0x8000u : 0;
  const int ea = (a >> 10) & 0x1F;
  const size_t c = tu_random_size(s, 0, 7);
  if (c < 2)
    return random_half(s);
  if (c == 2 && !mul)
    return a ^ 0x8000u;
  if (c == 2) {
    const uint16_t e = (uint16_t)tu_random_size(s, 1, 30);
    return (uint16_t)(sign | ((unsigned)e << 10) | (tu_random_size(s, 0, 1) ? 0x200u : 0x001u));
  }
  int e =
      mul ? 30 - ea + (int)tu_random_size(s, 0, 40) - 20 : ea + (int)tu_random_size(s, 0, 24) - 12;
  e = e < 0 ? 0 : e > 30 ? 30 : e;
  return (uint16_t)(sign | ((unsigned)e << 10) | tu_random_size(s, 0, 0x3FF));
}

/* Returns 1 if an exact value lies halfway between two finite halves. */
static int is_tie(double d) {
  const uint16_t h = hh(d);
  if (hd(h) == d || (h & 0x7C00u) == 0x7C00u)
    return 0;
  const uint16_t other = fabs(d) > fabs(hd(h)) ? (uint16_t)(h + 1) : (uint16_t)(h - 1);
  return fabs(d - hd(h)) == fabs(hd(other) - d);
}

/* The exact result of a segment of two, as the library defines it: init op a op b with init the
 * operator's identity, +0.0 for add (so -0.0 + -0.0 gives +0.0, as +0.0 + -0.0 + -0.0 does; every
 * other sum is a + b) and 1 for mul. Exact in double: one rounding follows. */
static double pair_exact(int mul, uint16_t a, uint16_t b) {
  return mul ? hd(a) * hd(b) : (0.0 + hd(a)) + hd(b);
}

/* What the pairs of a round case contain, so that a test of ties has ties to test. */
typedef struct pair_stats {
  size_t ties, overflows, subnormals, nans, zeros;
} pair_stats;

/* Fills n / 2 pairs and the flags of segments of two; returns the statistics of the exact results
 * a + b (or a * b). */
static pair_stats make_pairs(uint64_t seed, int mul, uint16_t *in, unsigned char *flags, size_t n) {
  pair_stats st = {0};
  uint64_t s = seed;
  for (size_t k = 0; k + 1 < n; k += 2) {
    in[k] = random_half(&s);
    in[k + 1] = partner(&s, in[k], mul);
    flags[k] = 1;
    flags[k + 1] = 0;
    const double x = pair_exact(mul, in[k], in[k + 1]);
    const uint16_t want = hh(x);
    st.ties += (size_t)is_tie(x);
    st.overflows += (size_t)(isfinite(x) && (want & 0x7FFFu) == H_INF);
    st.subnormals += (size_t)(x != 0 && (want & 0x7C00u) == 0);
    st.nans += (size_t)isnan(x);
    st.zeros += (size_t)(x == 0 && (in[k] & 0x7FFFu) && (in[k + 1] & 0x7FFFu));
  }
  return st;
}

/* Checks the segments of two bit for bit: out[2k] is init op a (a itself, but for add's -0.0) and
 * out[2k+1] the correctly rounded init op a op b (an invalid result: any NaN). */
static void check_pairs(uint64_t seed, const char *what, const tu_algo_case *a, int mul,
                        const uint16_t *in, const uint16_t *got, size_t n) {
  for (size_t k = 0; k + 1 < n; k += 2) {
    const double x = pair_exact(mul, in[k], in[k + 1]);
    const uint16_t want = hh(x), head = mul ? in[k] : hh(0.0 + hd(in[k]));
    if (got[k] != head)
      tu_failf(seed, "%s %s: out[%zu] = 0x%04x, want 0x%04x (the head itself)", what, a->name, k,
               got[k], head);
    if (isnan(x) ? !half_is_nan(got[k + 1]) : got[k + 1] != want)
      tu_failf(seed, "%s %s: 0x%04x (%.9g) %s 0x%04x (%.9g) = 0x%04x (%.9g), want 0x%04x (%.9g)",
               what, a->name, in[k], hd(in[k]), mul ? "*" : "+", in[k + 1], hd(in[k + 1]),
               got[k + 1], hd(got[k + 1]), want, hd(want));
  }
}

/* Single sums and products over the whole range, through every algorithm case. */
static void test_round_pairs(void **state) {
  (void)state;
  const size_t n = 2 * 12000;
  uint16_t *in = xmalloc(n * 2), *got = xmalloc(n * 2);
  unsigned char *flags = xmalloc(n);
  for (int mul = 0; mul < 2; mul++) {
    const uint64_t seed = tu_mix(tu_seed(), 0x4A30u + (unsigned)mul);
    const pair_stats st = make_pairs(seed, mul, in, flags, n);
    const char *what = mul ? "half mul" : "half add";
    // The data must hold what the check is about.
    if (st.ties < 50 || st.overflows < 50 || st.subnormals < 50 || st.nans < 5 ||
        (!mul && st.zeros < 5))
      tu_failf(seed,
               "%s: pairs with %zu ties, %zu overflows, %zu subnormal results, %zu NaNs, %zu"
               " cancellations",
               what, st.ties, st.overflows, st.subnormals, st.nans, st.zeros);
    const clscan_scan_desc d = {.type = CLSCAN_HALF,
                                .op = mul ? CLSCAN_MUL : CLSCAN_ADD,
                                .segments = CLSCAN_SEGMENTS_HEAD_FLAGS};
    for (size_t a = 0; a < TU_ALGO_CASE_COUNT; a++) {
      if (!device_runs(&tu_algo_cases[a]))
        continue;
      tu_progress(what);
      clscan_plan *plan = tu_algo_plan(&d, &tu_algo_cases[a], NULL);
      run_plan(plan, flags, 1, in, 2, got, 2, n, NULL, 0);
      clscan_plan_release(plan);
      check_pairs(seed, what, &tu_algo_cases[a], mul, in, got, n);
    }
    // The one-shot host call too.
    tu_ok(clscan_segmented_scan_host(tu_context(), &d, flags, in, got, n), what);
    check_pairs(seed, what, &tu_algo_cases[0], mul, in, got, n);
  }
  free(in);
  free(got);
  free(flags);
}

/* The ties between every pair of neighbouring positive halves (the last: between 65504 and the
 * 65536 a wider format would have), as doubles: (h + next) / 2. */
static double tie_after(uint16_t h) {
  return (hd(h) + (h == H_MAX ? 65536.0 : hd((uint16_t)(h + 1)))) / 2;
}

/* Float inputs at every tie, one float ulp either side, and past the largest half. */
static size_t make_float_inputs(float *x) {
  size_t n = 0;
  for (uint16_t h = 0; h <= H_MAX; h++) {
    const float t = (float)tie_after(h); /* exact: a tie has 12 significant bits */
    const float v[3] = {t, nextafterf(t, 0), nextafterf(t, INFINITY)};
    for (size_t k = 0; k < 3; k++) {
      x[n++] = v[k];
      x[n++] = -v[k];
    }
  }
  const float far[] = {65504.0f, 65512.0f, 65535.0f, 65536.0f, 1e6f, 3.4e38f, INFINITY, 1e-10f};
  for (size_t k = 0; k < sizeof far / sizeof far[0]; k++) {
    x[n++] = far[k];
    x[n++] = -far[k];
  }
  return n;
}

/* Double inputs at every tie, and just off it by far less than a float ulp: a float would round
 * those to the tie first and then to even, twice (h + ulp/2 + tiny must round away from h). */
static size_t make_double_inputs(double *x) {
  size_t n = 0;
  for (uint16_t h = 0; h <= H_MAX; h++) {
    const double t = tie_after(h), tiny = ldexp(t > 0 ? t : 0x1p-25, -40);
    const double v[3] = {t, t + tiny, t - tiny};
    for (size_t k = 0; k < 3; k++) {
      x[n++] = v[k];
      x[n++] = -v[k];
    }
  }
  x[n++] = 65519.999;
  x[n++] = 65520.0;
  x[n++] = -1e300;
  return n;
}

/* int32 inputs where halves are sparser than integers, and past the largest half. */
static size_t make_int_inputs(int32_t *x) {
  size_t n = 0;
  for (int32_t v = 2040; v < 2200; v++)
    x[n++] = v;
  for (int32_t v = 8180; v < 8240; v++)
    x[n++] = -v;
  for (int32_t v = 65490; v < 65560; v++)
    x[n++] = v;
  const int32_t far[] = {INT32_MAX, INT32_MIN, 16777217, -16777217, 1000001, 0, -1, 1};
  for (size_t k = 0; k < sizeof far / sizeof far[0]; k++)
    x[n++] = far[k];
  return n;
}

/* Counts the inputs whose correct half differs from the one rounded through float (doubles) or
 * rounded half away from zero (floats, ints): the cases a wrong rounding gets wrong. */
static size_t telling(clscan_type t, const void *x, size_t n) {
  size_t count = 0;
  for (size_t i = 0; i < n; i++) {
    const double v = t == CLSCAN_FLOAT   ? (double)((const float *)x)[i]
                     : t == CLSCAN_INT32 ? (double)((const int32_t *)x)[i]
                                         : ((const double *)x)[i];
    const uint16_t want = hh(v);
    if (t == CLSCAN_DOUBLE) {
      count += (size_t)(hh((double)(float)v) != want);
    } else if (is_tie(v)) {
      const double away = fabs(v) > fabs(hd(want)) ? v + (v - hd(want)) : hd(want);
      count += (size_t)(hh(away) != want);
    }
  }
  return count;
}

/* Converts n inputs element by element (every element a segment; min, whose identity +inf keeps
 * every non-NaN bit pattern) through auto and two other algorithm cases (rotating_algo: the three
 * input types cover every case), and checks each against the correctly rounded half. */
static void convert_check(clscan_type t, const void *x, size_t n, size_t pick, uint64_t seed) {
  const size_t is = clscan_type_size(t);
  unsigned char *flags = xmalloc(n);
  uint16_t *got = xmalloc(n * 2);
  memset(flags, 1, n);
  const size_t tells = telling(t, x, n);
  if (tells < 3)
    tu_failf(seed, "%s -> half: only %zu inputs tell the rounding apart", clscan_type_name(t),
             tells);
  const clscan_scan_desc d = {.type = t,
                              .op = CLSCAN_MIN,
                              .out_type = CLSCAN_OUT_HALF,
                              .segments = CLSCAN_SEGMENTS_HEAD_FLAGS};
  for (size_t a = 0; a < TU_ALGO_CASE_COUNT; a++) {
    if (!rotating_algo(a, pick) || !device_runs(&tu_algo_cases[a]))
      continue;
    tu_progress(clscan_type_name(t));
    clscan_plan *plan = tu_algo_plan(&d, &tu_algo_cases[a], NULL);
    run_plan(plan, flags, 1, x, is, got, 2, n, NULL, 0);
    clscan_plan_release(plan);
    for (size_t i = 0; i < n; i++) {
      const double v = t == CLSCAN_FLOAT   ? (double)((const float *)x)[i]
                       : t == CLSCAN_INT32 ? (double)((const int32_t *)x)[i]
                                           : ((const double *)x)[i];
      if (got[i] != hh(v))
        tu_failf(seed, "%s -> half %s: %.17g (element %zu) gave 0x%04x (%.9g), want 0x%04x (%.9g)",
                 clscan_type_name(t), tu_algo_cases[a].name, v, i, got[i], hd(got[i]), hh(v),
                 hd(hh(v)));
    }
  }
  free(flags);
  free(got);
}

static void test_round_conversions(void **state) {
  (void)state;
  const uint64_t seed = tu_mix(tu_seed(), 0x4A32);
  const size_t cap = 6 * ((size_t)H_MAX + 1) + 64;
  float *f = xmalloc(cap * sizeof *f);
  convert_check(CLSCAN_FLOAT, f, make_float_inputs(f), 0, seed);
  free(f);
  int32_t *k = xmalloc(cap * sizeof *k);
  convert_check(CLSCAN_INT32, k, make_int_inputs(k), 1, seed);
  free(k);
  if (!device_has_double()) {
    print_message("half: %s has no fp64; double -> half is left out\n", tu_device_name());
    return;
  }
  double *d = xmalloc(cap * sizeof *d);
  convert_check(CLSCAN_DOUBLE, d, make_double_inputs(d), 2, seed);
  free(d);
}

/* ============================================================================================== */
/* The tests of this file                                                                         */
/* ============================================================================================== */

const struct CMUnitTest half_round_tests[] = {
    cmocka_unit_test(test_round_pairs),
    cmocka_unit_test(test_round_conversions),
};
const size_t half_round_count = sizeof half_round_tests / sizeof half_round_tests[0];
