/*
 * clscan tests: half precision (CLSCAN_HALF, IEEE binary16 kept as its 16 bits), on every device.
 * Every result is checked against the host reference (tests/reference): half sums and products on
 * data that keeps them exact, and single combinations and conversions bit for bit against the
 * correctly rounded result (clscan_ref_half_from_double of the exact value).
 *
 * Groups:
 *   scan    the type's facts and refusals (bitwise operators); every algorithm case at sizes
 *           around its tile, inclusive and exclusive, with and without init: half -> float add,
 *           half add, mul, min, max, float, int32 and double -> half, half -> int32
 *           (truncation); the single pass with its decoupled fallback (CLSCAN_TEST_WITHHOLD=2).
 *   round   one rounding per result: random pairs over the whole half range summed and
 *           multiplied (a head-flag scan of segments of two, every algorithm case), then float,
 *           double and int32 conversions at ties, just off them, at the subnormals and past the
 *           largest half (three algorithm cases per input type).
 *   user    op_source on halves (a + b gives the built-in add's bits; fmax), maps from and to
 *           half, and a map reading a half buffer argument (vload_half) and a half scalar.
 *   keys    by-key scans on half keys (-0.0 equals +0.0, a NaN equals nothing) and a
 *           key_equal_source on halves.
 *   family  select and partition by a predicate, unique and run-length encoding (signed zeros
 *           and NaNs), reductions, and radix sorts of half keys with index values (stability).
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

#include "ref_select.h"
#include "ref_sort.h"
#include "algo_cases.h"
#include "test_util.h"

/* ============================================================================================== */
/* Fixtures                                                                                       */
/* ============================================================================================== */

/* Some half bit patterns. */
#define H_ZERO 0x0000u
#define H_NEG_ZERO 0x8000u
#define H_ONE 0x3C00u
#define H_MAX 0x7BFFu /* 65504 */
#define H_INF 0x7C00u
#define H_NEG_INF 0xFC00u
#define H_NAN 0x7E00u

/* Allocates n bytes or fails the test. */
static void *xmalloc(size_t n) {
  void *p = malloc(n ? n : 1);
  assert_non_null(p);
  return p;
}

/* Returns 1 if the device runs an algorithm case (rusticl refuses the single pass without 64-bit
 * atomics: it must say so with CLSCAN_UNSUPPORTED_BY_DEVICE, and the case is left out). */
static int device_runs(const tu_algo_case *a) {
  const clscan_scan_desc d = {.type = CLSCAN_HALF, .algorithm = a->algorithm};
  const clscan_status st = clscan_context_supports(tu_context(), &d);
  if (st != CLSCAN_SUCCESS && st != CLSCAN_UNSUPPORTED_BY_DEVICE)
    fail_msg("clscan_context_supports(%s): %s", a->name, clscan_status_string(st));
  return st == CLSCAN_SUCCESS;
}

/* Whether a descriptor numbered pick runs algorithm case a: auto and two others that rotate with
 * pick, so that a few descriptors cover every case between them while each builds three
 * programs, not six (builds are most of the time on a CPU device). */
static int rotating_algo(size_t a, size_t pick) {
  return a == 0 || a == 1 + pick % (TU_ALGO_CASE_COUNT - 1) ||
         a == 1 + (pick + 2) % (TU_ALGO_CASE_COUNT - 1);
}

/* Returns 1 if the device has fp64 (double inputs). */
static int device_has_double(void) {
  const clscan_scan_desc d = {.type = CLSCAN_DOUBLE, .out_type = CLSCAN_OUT_HALF};
  return clscan_context_supports(tu_context(), &d) == CLSCAN_SUCCESS;
}

/* A device buffer holding bytes of data (or poison when data is NULL). */
static cl_mem buffer_with(size_t bytes, const void *data) {
  clscan_context *ctx = tu_context();
  cl_mem m = tu_buffer(ctx, CL_MEM_READ_WRITE, bytes ? bytes : 1);
  assert_non_null(m);
  if (data) {
    assert_true(tu_write(ctx, NULL, m, 0, bytes, data));
  } else {
    unsigned char *p = xmalloc(bytes);
    memset(p, TU_POISON, bytes ? bytes : 1);
    assert_true(tu_write(ctx, NULL, m, 0, bytes ? bytes : 1, p));
    free(p);
  }
  return m;
}

/*
 * Runs a plan on host arrays: n elements of in_size bytes into out (out_size bytes each), with
 * segments (flags or keys, seg_size bytes each) when not NULL and the extra argument values of
 * values (value_count of them). Fails the test on any error.
 */
static void run_plan(clscan_plan *plan, const void *seg, size_t seg_size, const void *in,
                     size_t in_size, void *out, size_t out_size, size_t n,
                     const clscan_arg_value *values, size_t value_count) {
  clscan_context *ctx = tu_context();
  cl_mem din = buffer_with(n * in_size, in), dout = buffer_with(n * out_size, NULL);
  cl_mem dseg = seg ? buffer_with(n * seg_size, seg) : NULL;
  const clscan_run_args run = {.values = values, .value_count = value_count, .segments = dseg};
  tu_ok(clscan_plan_enqueue_args(plan, NULL, din, 0, dout, 0, n, &run, 0, NULL, NULL, NULL),
        "clscan_plan_enqueue_args");
  assert_true(tu_read(ctx, NULL, dout, 0, n * out_size, out));
  clReleaseMemObject(din);
  clReleaseMemObject(dout);
  if (dseg)
    clReleaseMemObject(dseg);
}

/* The exact value of a half, and whether a half is a NaN. */
static double hd(uint16_t h) {
  return clscan_ref_half_to_double(h);
}
static uint16_t hh(double d) {
  return clscan_ref_half_from_double(d);
}
static int half_is_nan(uint16_t h) {
  return (h & 0x7C00u) == 0x7C00u && (h & 0x3FFu) != 0;
}

/* Returns 1 if two halves are equal as values (zeros of either sign agree; NaNs agree with any
 * NaN), for results whose sign of zero the scan's identity decides. */
static int same_value(uint16_t a, uint16_t b) {
  if (half_is_nan(a) || half_is_nan(b))
    return half_is_nan(a) && half_is_nan(b);
  return hd(a) == hd(b);
}

/* ============================================================================================== */
/* scan                                                                                           */
/* ============================================================================================== */

/* Initial values and inputs that keep every grouping exact (sums of small integers and halves). */
static void fill_half_int_init(uint64_t seed, void *data, size_t n) {
  uint64_t s = seed;
  for (size_t i = 0; i < n; i++)
    ((uint16_t *)data)[i] = hh((double)((int)tu_random_size(&s, 0, 40) - 20));
}

/* A signed power of two 2^-3 .. 2^3: the product's partial results stay finite. */
static void fill_half_pow2_init(uint64_t seed, void *data, size_t n) {
  uint64_t s = seed;
  for (size_t i = 0; i < n; i++) {
    const int e = (int)tu_random_size(&s, 0, 6) - 3;
    ((uint16_t *)data)[i] = hh(tu_random_size(&s, 0, 1) ? -ldexp(1, e) : ldexp(1, e));
  }
}

static void fill_float_int_init(uint64_t seed, void *data, size_t n) {
  uint64_t s = seed;
  for (size_t i = 0; i < n; i++)
    ((float *)data)[i] = (float)((int)tu_random_size(&s, 0, 40) - 20);
}

/* Telescoping inputs y_i - y_(i-1), y_i = k_i / den with k_i in [-1000, 1000]: every run sums to
 * a difference of two y, so every partial sum is exact in half (2000 / den units at most). */
static double telescoping(uint64_t *s, double *prev, double den) {
  const double y = (double)((int)tu_random_size(s, 0, 2000) - 1000) / den;
  const double d = y - *prev;
  *prev = y;
  return d;
}

static void fill_float_tele(uint64_t seed, void *data, size_t n) {
  uint64_t s = seed;
  double prev = 0;
  for (size_t i = 0; i < n; i++)
    ((float *)data)[i] = (float)telescoping(&s, &prev, 2.0);
}

static void fill_double_tele(uint64_t seed, void *data, size_t n) {
  uint64_t s = seed;
  double prev = 0;
  for (size_t i = 0; i < n; i++)
    ((double *)data)[i] = telescoping(&s, &prev, 2.0);
}

static void fill_int_tele(uint64_t seed, void *data, size_t n) {
  uint64_t s = seed;
  double prev = 0;
  for (size_t i = 0; i < n; i++)
    ((int32_t *)data)[i] = (int32_t)telescoping(&s, &prev, 1.0);
}

/* Halves whose truncation matters: +-k.5, +-k.25, +-k.75 (k up to 300), and some large ones. */
static void fill_half_fractions(uint64_t seed, void *data, size_t n) {
  uint64_t s = seed;
  for (size_t i = 0; i < n; i++) {
    const double k = (double)tu_random_size(&s, 0, 300);
    const double f = (double)tu_random_size(&s, 1, 3) * 0.25;
    double v = tu_random_size(&s, 0, 15) == 0 ? (double)tu_random_size(&s, 0, 65504) : k + f;
    ((uint16_t *)data)[i] = hh(tu_random_size(&s, 0, 1) ? -v : v);
  }
}

/* The scan group's descriptors (the cases set exclusive, init and the algorithm). */
static const tu_spec scan_specs[] = {
    {"half -> float add",
     {.type = CLSCAN_HALF, .op = CLSCAN_ADD, .out_type = CLSCAN_OUT_FLOAT},
     NULL,
     NULL,
     NULL,
     fill_float_int_init},
    {"half add", {.type = CLSCAN_HALF, .op = CLSCAN_ADD}, NULL, NULL, NULL, fill_half_int_init},
    {"half mul", {.type = CLSCAN_HALF, .op = CLSCAN_MUL}, NULL, NULL, NULL, fill_half_pow2_init},
    {"half min", {.type = CLSCAN_HALF, .op = CLSCAN_MIN}, NULL, NULL, NULL, NULL},
    {"half max", {.type = CLSCAN_HALF, .op = CLSCAN_MAX}, NULL, NULL, NULL, NULL},
    {"float -> half add",
     {.type = CLSCAN_FLOAT, .op = CLSCAN_ADD, .out_type = CLSCAN_OUT_HALF},
     NULL,
     NULL,
     fill_float_tele,
     fill_half_int_init},
    {"int32 -> half add",
     {.type = CLSCAN_INT32, .op = CLSCAN_ADD, .out_type = CLSCAN_OUT_HALF},
     NULL,
     NULL,
     fill_int_tele,
     fill_half_int_init},
    {"half -> int32 add",
     {.type = CLSCAN_HALF, .op = CLSCAN_ADD, .out_type = CLSCAN_OUT_INT32},
     NULL,
     NULL,
     fill_half_fractions,
     NULL},
    {"double -> half add",
     {.type = CLSCAN_DOUBLE, .op = CLSCAN_ADD, .out_type = CLSCAN_OUT_HALF},
     NULL,
     NULL,
     fill_double_tele,
     fill_half_int_init},
};
#define SCAN_SPEC_COUNT (sizeof scan_specs / sizeof scan_specs[0])

/* The vector width of a descriptor's plans: 16 bytes over its larger element. */
static size_t vec_of(const clscan_scan_desc *d) {
  const size_t is = clscan_ref_in_size(d), os = clscan_ref_out_size(d);
  return 16 / (is > os ? is : os);
}

/* Runs one case of a spec through a plan and fails the test on a mismatch. */
static void run_case(tu_case *c, const tu_algo_case *a, const char *withhold) {
  clscan_scan_desc d;
  tu_case_desc(c, &d);
  c->plan = tu_algo_plan(&d, a, withhold);
  char msg[1024];
  const int good = tu_run_case(tu_context(), c, msg, sizeof msg);
  clscan_plan_release(c->plan);
  c->plan = NULL;
  if (!good)
    fail_msg("%s (%s%s)", msg, a->name, withhold ? ", withhold 2" : "");
}

/* Runs a spec through an algorithm case at the sizes around its tile; the four combinations of
 * exclusive and init rotate over the sizes, from a different start per spec. */
static void scan_spec(const tu_spec *spec, size_t si, const tu_algo_case *a, const char *withhold,
                      uint64_t seed) {
  clscan_plan *probe = tu_algo_plan(&spec->desc, a, withhold);
  uint64_t s = seed;
  size_t sizes[8], count = tu_sizes_around(tu_algo_tile(probe, a, vec_of(&spec->desc)), &s, sizes);
  clscan_plan_release(probe);
  for (size_t k = 0; k < count; k++) {
    tu_case c = {.spec = spec, .algorithm = a->algorithm, .n = sizes[k], .path = TU_PATH_PLAN};
    const size_t v = (k + si) % 4;
    c.exclusive = (int)(v & 1);
    c.seed = tu_mix(seed, k);
    if (v & 2)
      tu_case_set_init(&c, tu_mix(seed, 100 + k));
    run_case(&c, a, withhold);
  }
}

/* The type's facts, the reference's conversions, and what the device must accept or refuse:
 * every device runs halves (no cl_khr_fp16 needed); bitwise operators are refused. */
static void test_basics(void **state) {
  (void)state;
  assert_int_equal(clscan_type_size(CLSCAN_HALF), 2);
  assert_string_equal(clscan_type_name(CLSCAN_HALF), "half");
  for (uint32_t h = 0; h < 0x10000u; h++)
    if (!half_is_nan((uint16_t)h))
      assert_int_equal(hh(hd((uint16_t)h)), h);
  assert_int_equal(hh(1.0 + 0x1p-11), H_ONE);         /* a tie, to even: down */
  assert_int_equal(hh(1.0 + 3 * 0x1p-11), H_ONE + 2); /* a tie, to even: up */
  assert_int_equal(hh(65520.0), H_INF);               /* past the largest half */
  assert_int_equal(hh(nextafter(65520.0, 0)), H_MAX);
  assert_int_equal(hh(0x1p-25), H_ZERO); /* the smallest subnormal's tie */
  assert_int_equal(hh(-3 * 0x1p-25), H_NEG_ZERO + 2);
  assert_true(half_is_nan(hh(NAN)));
  const clscan_scan_desc descs[] = {
      {.type = CLSCAN_HALF},
      {.type = CLSCAN_HALF, .out_type = CLSCAN_OUT_FLOAT},
      {.type = CLSCAN_FLOAT, .out_type = CLSCAN_OUT_HALF},
      {.type = CLSCAN_INT32, .segments = CLSCAN_SEGMENTS_KEYS, .key_type = CLSCAN_HALF},
  };
  for (size_t k = 0; k < sizeof descs / sizeof descs[0]; k++)
    tu_ok(clscan_context_supports(tu_context(), &descs[k]), "clscan_context_supports(half)");
  const clscan_op bitwise[] = {CLSCAN_AND, CLSCAN_OR, CLSCAN_XOR};
  for (size_t k = 0; k < 3; k++) {
    const clscan_scan_desc d = {.type = CLSCAN_HALF, .op = bitwise[k]};
    clscan_plan *plan = NULL;
    assert_int_equal(clscan_context_supports(tu_context(), &d), CLSCAN_UNSUPPORTED_OP_FOR_TYPE);
    assert_int_equal(clscan_plan_create(tu_context(), &d, &plan), CLSCAN_UNSUPPORTED_OP_FOR_TYPE);
    assert_null(plan);
  }
}

/* The half -> half specs through every algorithm case the device runs; the conversions through
 * auto and two rotating cases (rotating_algo), which cover every case between them. */
static void test_scan(void **state) {
  (void)state;
  const uint64_t seed = tu_mix(tu_seed(), 0x4A1F);
  const int fp64 = device_has_double();
  if (!fp64)
    print_message("half: %s has no fp64; double -> half is left out\n", tu_device_name());
  for (size_t a = 0; a < TU_ALGO_CASE_COUNT; a++) {
    if (!device_runs(&tu_algo_cases[a]))
      continue;
    for (size_t si = 0; si < SCAN_SPEC_COUNT; si++) {
      const clscan_scan_desc *d = &scan_specs[si].desc;
      if ((d->type == CLSCAN_DOUBLE && !fp64) ||
          (d->out_type != CLSCAN_OUT_SAME && !rotating_algo(a, si)))
        continue;
      scan_spec(&scan_specs[si], si, &tu_algo_cases[a], NULL, tu_mix(seed, a * 100 + si));
    }
  }
}

/* The single pass with every second tile withholding its status (the decoupled fallback). */
static void test_scan_withhold(void **state) {
  (void)state;
  const uint64_t seed = tu_mix(tu_seed(), 0x4A20);
  for (size_t a = 0; a < TU_ALGO_CASE_COUNT; a++) {
    if (tu_algo_cases[a].algorithm != CLSCAN_ALGO_SINGLE_PASS || !device_runs(&tu_algo_cases[a]))
      continue;
    for (size_t si = 1; si < 3; si++) /* half add and mul */
      scan_spec(&scan_specs[si], si, &tu_algo_cases[a], "2", tu_mix(seed, a * 100 + si));
  }
}

/* ============================================================================================== */
/* round                                                                                          */
/* ============================================================================================== */

/* A random finite half of any class: zeros, infinities, subnormals, the largest, and any. */
static uint16_t random_half(uint64_t *s) {
  const uint16_t sign = tu_random_size(s, 0, 1) ? 0x8000u : 0;
  const uint16_t m = (uint16_t)tu_random_size(s, 0, 0x3FF);
  switch (tu_random_size(s, 0, 15)) {
    case 0:
      return sign;
    case 1:
      return sign | H_INF;
    case 2:
      return sign | m; /* subnormal */
    case 3:
      return (uint16_t)(sign | (30u << 10) | m); /* 32768 .. 65504 */
    default:
      return (uint16_t)(sign | (tu_random_size(s, 0, 30) << 10) | m);
  }
}

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
      cl_mem dw = buffer_with(n * 2, w);
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
/* keys                                                                                           */
/* ============================================================================================== */

/* Key values of the by-key cases: both zeros, NaNs, subnormals, infinities and others. */
static const uint16_t key_pool[] = {H_ZERO,    H_NEG_ZERO, H_NAN,   0x7C01u, 0xFE00u,
                                    0x0001u,   0x8001u,    0x03FFu, 0x0400u, H_INF,
                                    H_NEG_INF, H_ONE,      0xBC00u, H_MAX,   0x3555u};
#define KEY_POOL (sizeof key_pool / sizeof key_pool[0])

/* Fills keys in runs of pool values; a run of zeros mixes -0.0 and +0.0. Returns how many
 * neighbours are zeros of opposite signs and how many are both NaNs (*nan_pairs). */
static size_t fill_keys(uint64_t seed, uint16_t *keys, size_t n, size_t *nan_pairs) {
  uint64_t s = seed;
  size_t mixed = 0;
  *nan_pairs = 0;
  for (size_t i = 0; i < n;) {
    const uint16_t k = key_pool[tu_random_size(&s, 0, KEY_POOL - 1)];
    const size_t len = tu_random_size(&s, 1, 8);
    for (size_t j = 0; j < len && i < n; j++, i++) {
      keys[i] = (k & 0x7FFFu) == 0 ? (tu_random_size(&s, 0, 1) ? H_NEG_ZERO : H_ZERO) : k;
      if (i > 0) {
        mixed += (size_t)((keys[i] | keys[i - 1]) == H_NEG_ZERO && keys[i] != keys[i - 1]);
        *nan_pairs += (size_t)(half_is_nan(keys[i]) && half_is_nan(keys[i - 1]));
      }
    }
  }
  return mixed;
}

/* Checks a by-key int32 sum against a host loop over eq (NULL: clscan_ref_keys_equal). */
typedef int (*key_eq_fn)(const uint16_t *keys, size_t i, size_t j);
static void check_by_key(uint64_t seed, const char *what, const tu_algo_case *a, int exclusive,
                         const uint16_t *keys, const int32_t *in, const int32_t *got, size_t n,
                         key_eq_fn eq) {
  uint32_t acc = 0;
  for (size_t i = 0; i < n; i++) {
    const int same =
        i > 0 && (eq ? eq(keys, i - 1, i) : clscan_ref_keys_equal(CLSCAN_HALF, keys, i - 1, i));
    if (!same)
      acc = 0;
    const int32_t want = exclusive ? (int32_t)acc : (int32_t)(acc + (uint32_t)in[i]);
    acc += (uint32_t)in[i];
    if (got[i] != want)
      tu_failf(seed, "%s %s n=%zu exclusive=%d: out[%zu] = %d, want %d (keys 0x%04x 0x%04x)", what,
               a->name, n, exclusive, i, got[i], want, i ? keys[i - 1] : 0, keys[i]);
  }
}

/* The key equality of the key_equal_source case, on the host. */
static int floor_equal(const uint16_t *keys, size_t i, size_t j) {
  return floor(hd(keys[i])) == floor(hd(keys[j]));
}

/* Keys for floor(a) == floor(b): eighths in [-5, 5], in runs, with NaNs and infinities. */
static size_t fill_floor_keys(uint64_t seed, uint16_t *keys, size_t n) {
  uint64_t s = seed;
  size_t telling_pairs = 0;
  for (size_t i = 0; i < n; i++) {
    const size_t c = tu_random_size(&s, 0, 40);
    keys[i] = c == 0            ? H_NAN
              : c == 1          ? H_INF
              : c < 20 && i > 0 ? keys[i - 1]
                                : hh((double)((int)tu_random_size(&s, 0, 80) - 40) / 8.0);
    telling_pairs += (size_t)(i > 0 && keys[i] != keys[i - 1] && floor_equal(keys, i - 1, i));
  }
  return telling_pairs;
}

static void keys_cases(const char *what, const char *equal_source, uint64_t seed) {
  const clscan_scan_desc base = {.type = CLSCAN_INT32,
                                 .segments = CLSCAN_SEGMENTS_KEYS,
                                 .key_type = CLSCAN_HALF,
                                 .key_equal_source = equal_source};
  for (size_t a = 0; a < TU_ALGO_CASE_COUNT; a++) {
    if (!device_runs(&tu_algo_cases[a]))
      continue;
    for (int exclusive = 0; exclusive < 2; exclusive++) {
      clscan_scan_desc d = base;
      d.exclusive = exclusive;
      clscan_plan *plan = tu_algo_plan(&d, &tu_algo_cases[a], NULL);
      uint64_t s = tu_mix(seed, a * 2 + (size_t)exclusive);
      size_t sizes[8], count = tu_sizes_around(tu_algo_tile(plan, &tu_algo_cases[a], 4), &s, sizes);
      for (size_t k = 0; k < count; k++) {
        const size_t n = sizes[k];
        const uint64_t r = tu_mix(seed, a * 64 + k * 2 + (size_t)exclusive);
        uint16_t *keys = xmalloc(n * 2);
        int32_t *in = xmalloc(n * 4), *got = xmalloc(n * 4);
        size_t nan_pairs = 0, telling_pairs;
        telling_pairs =
            equal_source ? fill_floor_keys(r, keys, n) : fill_keys(r, keys, n, &nan_pairs);
        if (n > 1000 && (telling_pairs == 0 || (!equal_source && nan_pairs == 0)))
          tu_failf(r, "%s n=%zu: the keys do not tell equalities apart", what, n);
        clscan_ref_fill(CLSCAN_INT32, CLSCAN_ADD, tu_mix(r, 1), in, n);
        tu_progress(what);
        run_plan(plan, keys, 2, in, 4, got, 4, n, NULL, 0);
        check_by_key(r, what, &tu_algo_cases[a], exclusive, keys, in, got, n,
                     equal_source ? floor_equal : NULL);
        free(keys);
        free(in);
        free(got);
      }
      clscan_plan_release(plan);
    }
  }
}

static void test_keys_builtin(void **state) {
  (void)state;
  keys_cases("half keys", NULL, tu_mix(tu_seed(), 0x4A50));
}

static void test_keys_equal_source(void **state) {
  (void)state;
  keys_cases("half keys floor(a) == floor(b)", "floor(a) == floor(b)", tu_mix(tu_seed(), 0x4A51));
}

/* ============================================================================================== */
/* family                                                                                         */
/* ============================================================================================== */

static const clscan_algorithm select_algos[] = {CLSCAN_ALGO_AUTO, CLSCAN_ALGO_SINGLE_PASS,
                                                CLSCAN_ALGO_BLELLOCH, CLSCAN_ALGO_HILLIS_STEELE,
                                                CLSCAN_ALGO_REDUCE_THEN_SCAN};
static const size_t family_sizes[] = {1, 2, 999, 4097, 70001};
#define FAMILY_SIZES (sizeof family_sizes / sizeof family_sizes[0])

/* Halves for selections: random ones of every class, NaNs, and runs of pool keys. */
static void fill_family(uint64_t seed, uint16_t *v, size_t n) {
  uint64_t s = seed;
  size_t nan_pairs;
  fill_keys(tu_mix(seed, 1), v, n, &nan_pairs);
  for (size_t i = 0; i < n; i++) {
    const size_t c = tu_random_size(&s, 0, 3);
    if (c == 0)
      v[i] = random_half(&s);
    else if (c == 1)
      v[i] = (uint16_t)tu_random_size(&s, 0, 0xFFFF); /* any pattern, NaNs included */
  }
}

/* Runs one selection on the host path and checks it against clscan_ref_select (every algorithm
 * runs on every device: the single pass with 32-bit status words without 64-bit atomics). */
static void select_check(uint64_t seed, const clscan_select_desc *d, const uint16_t *in,
                         const unsigned char *sel, size_t n) {
  uint16_t *want = xmalloc(n * 2), *got = xmalloc(n * 2);
  uint64_t *wlen = xmalloc(n * 8), *glen = xmalloc(n * 8), count = 0;
  const int rle = d->op == CLSCAN_RUN_LENGTH_ENCODE;
  const uint64_t wcount = clscan_ref_select(d->op, in, 2, sel, n, want, wlen, n);
  const clscan_status st =
      clscan_select_host(tu_context(), d, in, NULL, n, got, rle ? glen : NULL, n, &count);
  tu_ok(st, "clscan_select_host");
  const size_t written = d->op == CLSCAN_PARTITION ? n : (size_t)wcount;
  if (count != wcount)
    tu_failf(seed, "select op %d %s n=%zu: count %" PRIu64 ", want %" PRIu64, (int)d->op,
             clscan_algorithm_name(d->algorithm), n, count, wcount);
  for (size_t i = 0; i < written; i++)
    if (got[i] != want[i] || (rle && glen[i] != wlen[i]))
      tu_failf(seed, "select op %d %s n=%zu: out[%zu] = 0x%04x, want 0x%04x", (int)d->op,
               clscan_algorithm_name(d->algorithm), n, i, got[i], want[i]);
  free(want);
  free(got);
  free(wlen);
  free(glen);
}

/* select and partition by x > 0.0f; unique and run-length encoding with built-in equality. */
static void test_family_select(void **state) {
  (void)state;
  const uint64_t seed = tu_mix(tu_seed(), 0x4A60);
  const clscan_select_op ops[] = {CLSCAN_SELECT, CLSCAN_PARTITION, CLSCAN_UNIQUE,
                                  CLSCAN_RUN_LENGTH_ENCODE};
  for (size_t k = 0; k < FAMILY_SIZES; k++) {
    const size_t n = family_sizes[k];
    const uint64_t r = tu_mix(seed, k);
    uint16_t *in = xmalloc(n * 2);
    unsigned char *pos = xmalloc(n), *heads = xmalloc(n);
    fill_family(r, in, n);
    size_t selected = 0, runs = 0, zero_pairs = 0, nan_pairs = 0;
    for (size_t i = 0; i < n; i++) {
      pos[i] = hd(in[i]) > 0;
      selected += pos[i];
      if (i > 0) {
        zero_pairs += (size_t)((in[i] | in[i - 1]) == H_NEG_ZERO && in[i] != in[i - 1]);
        nan_pairs += (size_t)(half_is_nan(in[i]) && half_is_nan(in[i - 1]));
      }
    }
    clscan_ref_heads(CLSCAN_HALF, NULL, in, 2, n, heads);
    for (size_t i = 0; i < n; i++)
      runs += heads[i];
    if (n > 1000 &&
        (selected == 0 || selected == n || runs == n || zero_pairs == 0 || nan_pairs == 0))
      tu_failf(r, "family n=%zu: %zu selected, %zu runs, %zu mixed zero pairs, %zu NaN pairs", n,
               selected, runs, zero_pairs, nan_pairs);
    for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++) {
      const int by_pred = ops[o] == CLSCAN_SELECT || ops[o] == CLSCAN_PARTITION;
      for (size_t a = 0; a < sizeof select_algos / sizeof select_algos[0]; a++) {
        const clscan_select_desc d = {.op = ops[o],
                                      .type = CLSCAN_HALF,
                                      .predicate_source = by_pred ? "x > 0.0f" : NULL,
                                      .algorithm = select_algos[a]};
        tu_progress("half selections");
        select_check(r, &d, in, by_pred ? pos : heads, n);
      }
    }
    free(in);
    free(pos);
    free(heads);
  }
}

/* Reductions: an exact sum and the max, on the host path and through the single-pass shapes. */
static void test_family_reduce(void **state) {
  (void)state;
  const uint64_t seed = tu_mix(tu_seed(), 0x4A61);
  const clscan_op ops[] = {CLSCAN_ADD, CLSCAN_MAX, CLSCAN_MIN};
  for (size_t k = 0; k < FAMILY_SIZES; k++) {
    const size_t n = family_sizes[k];
    for (size_t o = 0; o < 3; o++) {
      const uint64_t r = tu_mix(seed, k * 4 + o);
      uint16_t *in = xmalloc(n * 2), want, got = 0x5A5A;
      clscan_ref_fill(CLSCAN_HALF, ops[o], r, in, n);
      const clscan_scan_desc d = {.type = CLSCAN_HALF, .op = ops[o]};
      uint16_t *scan = xmalloc(n * 2);
      clscan_ref_scan(&d, in, scan, n);
      want = scan[n - 1];
      tu_ok(clscan_reduce_host(tu_context(), &d, in, n, &got), "clscan_reduce_host");
      if (!same_value(got, want))
        tu_failf(r, "reduce %s n=%zu: 0x%04x (%g), want 0x%04x (%g)", clscan_op_name(ops[o]), n,
                 got, hd(got), want, hd(want));
      for (size_t a = 0; a < TU_ALGO_CASE_COUNT; a++) {
        if (tu_algo_cases[a].algorithm != CLSCAN_ALGO_SINGLE_PASS ||
            !device_runs(&tu_algo_cases[a]))
          continue;
        clscan_plan *plan = tu_algo_plan(&d, &tu_algo_cases[a], NULL);
        cl_mem din = buffer_with(n * 2, in), dout = buffer_with(2, NULL);
        tu_ok(clscan_plan_enqueue_reduce(plan, NULL, din, 0, dout, 0, n, 0, NULL, NULL),
              "clscan_plan_enqueue_reduce");
        assert_true(tu_read(tu_context(), NULL, dout, 0, 2, &got));
        clReleaseMemObject(din);
        clReleaseMemObject(dout);
        clscan_plan_release(plan);
        if (!same_value(got, want))
          tu_failf(r, "reduce %s %s n=%zu: 0x%04x (%g), want 0x%04x (%g)", clscan_op_name(ops[o]),
                   tu_algo_cases[a].name, n, got, hd(got), want, hd(want));
      }
      free(in);
      free(scan);
    }
  }
}

/* Radix sorts of half keys (NaNs of both signs and payloads, infinities, both zeros, subnormals,
 * many duplicates) with their indices as values, ascending and descending, keys only too. */
static void test_family_sort(void **state) {
  (void)state;
  const uint64_t seed = tu_mix(tu_seed(), 0x4A62);
  const clscan_sort_algorithm sorts[] = {CLSCAN_SORT_AUTO, CLSCAN_SORT_LSD, CLSCAN_SORT_ONESWEEP};
  for (size_t k = 0; k < FAMILY_SIZES; k++) {
    const size_t n = family_sizes[k];
    const uint64_t r = tu_mix(seed, k);
    uint16_t *keys = xmalloc(n * 2), *want = xmalloc(n * 2), *got = xmalloc(n * 2);
    uint32_t *wv = xmalloc(n * 4), *gv = xmalloc(n * 4);
    fill_family(r, keys, n);
    for (size_t alg = 0; alg < 3; alg++) {
      for (int variant = 0; variant < 4; variant++) {
        const clscan_sort_desc d = {.key_type = CLSCAN_HALF,
                                    .value_size = variant < 2 ? 4 : 0,
                                    .descending = variant & 1,
                                    .algorithm = sorts[alg]};
        memcpy(want, keys, n * 2);
        memcpy(got, keys, n * 2);
        for (size_t i = 0; i < n; i++)
          wv[i] = gv[i] = (uint32_t)i;
        assert_int_equal(ref_sort(&d, want, d.value_size ? wv : NULL, n), 0);
        tu_progress("half sort");
        const clscan_status st =
            clscan_sort_host(tu_context(), &d, got, d.value_size ? gv : NULL, n);
        tu_ok(st, "clscan_sort_host");
        for (size_t i = 0; i < n; i++)
          if (got[i] != want[i] || (d.value_size && gv[i] != wv[i]))
            tu_failf(r, "sort alg %d %s%s n=%zu: [%zu] = 0x%04x (index %u), want 0x%04x (index %u)",
                     (int)sorts[alg], d.descending ? "descending" : "ascending",
                     d.value_size ? " with values" : "", n, i, got[i], d.value_size ? gv[i] : 0,
                     want[i], d.value_size ? wv[i] : 0);
      }
    }
    free(keys);
    free(want);
    free(got);
    free(wv);
    free(gv);
  }
}

int main(int argc, char **argv) {
  const struct CMUnitTest scan[] = {cmocka_unit_test(test_basics), cmocka_unit_test(test_scan),
                                    cmocka_unit_test(test_scan_withhold)};
  const struct CMUnitTest round[] = {cmocka_unit_test(test_round_pairs),
                                     cmocka_unit_test(test_round_conversions)};
  const struct CMUnitTest user[] = {cmocka_unit_test(test_user_ops),
                                    cmocka_unit_test(test_user_maps),
                                    cmocka_unit_test(test_user_args)};
  const struct CMUnitTest keys[] = {cmocka_unit_test(test_keys_builtin),
                                    cmocka_unit_test(test_keys_equal_source)};
  const struct CMUnitTest family[] = {cmocka_unit_test(test_family_select),
                                      cmocka_unit_test(test_family_reduce),
                                      cmocka_unit_test(test_family_sort)};
  if (!tu_context())
    return 1;
  int failed = 0;
  for (int i = 1; i < argc || (argc == 1 && i == 1); i++) {
    const char *g = argc > 1 ? argv[i] : "all";
    int all = strcmp(g, "all") == 0, known = 0;
#define GROUP(name, list)                                                                         \
  if (all || strcmp(g, name) == 0) {                                                              \
    known = 1;                                                                                    \
    failed += cmocka_run_group_tests_name("half." name, list, tu_group_setup, tu_group_teardown); \
  }
    GROUP("scan", scan)
    GROUP("round", round)
    GROUP("user", user)
    GROUP("keys", keys)
    GROUP("family", family)
#undef GROUP
    if (!known) {
      fprintf(stderr, "test_half: unknown group %s (scan, round, user, keys, family, all)\n", g);
      failed++;
    }
  }
  tu_context_release();
  return failed ? 1 : 0;
}
