/*
 * clscan tests: the fixture of the half-precision tests (see half_fixture.h).
 */
#include "half_fixture.h"

#include <stdlib.h>
#include <string.h>

/* Allocates n bytes or fails the test. */
void *xmalloc(size_t n) {
  void *p = malloc(n ? n : 1);
  assert_non_null(p);
  return p;
}

/* Returns 1 if the device runs an algorithm case (rusticl refuses the single pass without 64-bit
 * atomics: it must say so with CLSCAN_UNSUPPORTED_BY_DEVICE, and the case is left out). */
int device_runs(const tu_algo_case *a) {
  const clscan_scan_desc d = {.type = CLSCAN_HALF, .algorithm = a->algorithm};
  const clscan_status st = clscan_context_supports(tu_context(), &d);
  if (st != CLSCAN_SUCCESS && st != CLSCAN_UNSUPPORTED_BY_DEVICE)
    fail_msg("clscan_context_supports(%s): %s", a->name, clscan_status_string(st));
  return st == CLSCAN_SUCCESS;
}

/* Whether a descriptor numbered pick runs algorithm case a: auto and two others that rotate with
 * pick, so that a few descriptors cover every case between them while each builds three
 * programs, not six (builds are most of the time on a CPU device). */
int rotating_algo(size_t a, size_t pick) {
  return a == 0 || a == 1 + pick % (TU_ALGO_CASE_COUNT - 1) ||
         a == 1 + (pick + 2) % (TU_ALGO_CASE_COUNT - 1);
}

/* Returns 1 if the device has fp64 (double inputs). */
int device_has_double(void) {
  const clscan_scan_desc d = {.type = CLSCAN_DOUBLE, .out_type = CLSCAN_OUT_HALF};
  return clscan_context_supports(tu_context(), &d) == CLSCAN_SUCCESS;
}

/*
 * Runs a plan on host arrays: n elements of in_size bytes into out (out_size bytes each), with
 * segments (flags or keys, seg_size bytes each) when not NULL and the extra argument values of
 * values (value_count of them). Fails the test on any error.
 */
void run_plan(clscan_plan *plan, const void *seg, size_t seg_size, const void *in, size_t in_size,
              void *out, size_t out_size, size_t n, const clscan_arg_value *values,
              size_t value_count) {
  clscan_context *ctx = tu_context();
  cl_mem din = tu_buffer_with(tu_context(), n * in_size, in),
         dout = tu_buffer_with(tu_context(), n * out_size, NULL);
  cl_mem dseg = seg ? tu_buffer_with(tu_context(), n * seg_size, seg) : NULL;
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
double hd(uint16_t h) {
  return clscan_ref_half_to_double(h);
}
uint16_t hh(double d) {
  return clscan_ref_half_from_double(d);
}
int half_is_nan(uint16_t h) {
  return (h & 0x7C00u) == 0x7C00u && (h & 0x3FFu) != 0;
}

/* The vector width of a descriptor's plans: 16 bytes over its larger element. */
size_t vec_of(const clscan_scan_desc *d) {
  const size_t is = clscan_ref_in_size(d), os = clscan_ref_out_size(d);
  return 16 / (is > os ? is : os);
}

/* A random finite half of any class: zeros, infinities, subnormals, the largest, and any. */
uint16_t random_half(uint64_t *s) {
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

/* Key values of the by-key cases: both zeros, NaNs, subnormals, infinities and others. */
static const uint16_t key_pool[] = {H_ZERO,    H_NEG_ZERO, H_NAN,   0x7C01u, 0xFE00u,
                                    0x0001u,   0x8001u,    0x03FFu, 0x0400u, H_INF,
                                    H_NEG_INF, H_ONE,      0xBC00u, H_MAX,   0x3555u};
#define KEY_POOL (sizeof key_pool / sizeof key_pool[0])

/* Fills keys in runs of pool values; a run of zeros mixes -0.0 and +0.0. Returns how many
 * neighbours are zeros of opposite signs and how many are both NaNs (*nan_pairs). */
size_t fill_keys(uint64_t seed, uint16_t *keys, size_t n, size_t *nan_pairs) {
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
