/*
 * clscan tests, half: the type's facts, the reference's conversions and the refusals (bitwise
 * operators); every algorithm case at sizes around its tile, inclusive and exclusive, with and
 * without init: half -> float add, half add, mul, min, max, float, int32 and double -> half,
 * half -> int32 (truncation); the single pass with its decoupled fallback (group scan).
 */
#include <math.h>

#include "half_fixture.h"

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
/* The tests of this file                                                                         */
/* ============================================================================================== */

const struct CMUnitTest half_scan_tests[] = {
    cmocka_unit_test(test_basics),
    cmocka_unit_test(test_scan),
    cmocka_unit_test(test_scan_withhold),
};
const size_t half_scan_count = sizeof half_scan_tests / sizeof half_scan_tests[0];
