/*
 * clscan tests: the fixture of the half-precision tests (test_half*.c): half bit patterns and
 * values, which algorithm cases the device runs, device buffers, a plan run on host arrays,
 * random halves of every class and runs of half keys.
 */
#ifndef CLSCAN_HALF_FIXTURE_H_
#define CLSCAN_HALF_FIXTURE_H_

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "algo_cases.h"
#include "test_util.h"

/* Some half bit patterns. */
#define H_ZERO 0x0000u
#define H_NEG_ZERO 0x8000u
#define H_ONE 0x3C00u
#define H_MAX 0x7BFFu /* 65504 */
#define H_INF 0x7C00u
#define H_NEG_INF 0xFC00u
#define H_NAN 0x7E00u

/* Allocates n bytes or fails the test. */
void *xmalloc(size_t n);

/* Returns 1 if the device runs an algorithm case (rusticl refuses the single pass without 64-bit
 * atomics: it must say so with CLSCAN_UNSUPPORTED_BY_DEVICE, and the case is left out). */
int device_runs(const tu_algo_case *a);

/* Whether a descriptor numbered pick runs algorithm case a: auto and two others that rotate with
 * pick, so that a few descriptors cover every case between them while each builds three
 * programs, not six (builds are most of the time on a CPU device). */
int rotating_algo(size_t a, size_t pick);

/* Returns 1 if the device has fp64 (double inputs). */
int device_has_double(void);

/*
 * Runs a plan on host arrays: n elements of in_size bytes into out (out_size bytes each), with
 * segments (flags or keys, seg_size bytes each) when not NULL and the extra argument values of
 * values (value_count of them). Fails the test on any error.
 */
void run_plan(clscan_plan *plan, const void *seg, size_t seg_size, const void *in, size_t in_size,
              void *out, size_t out_size, size_t n, const clscan_arg_value *values,
              size_t value_count);

/* The exact value of a half, and whether a half is a NaN. */
double hd(uint16_t h);
uint16_t hh(double d);
int half_is_nan(uint16_t h);

/* The vector width of a descriptor's plans: 16 bytes over its larger element. */
size_t vec_of(const clscan_scan_desc *d);

/* A random finite half of any class: zeros, infinities, subnormals, the largest, and any. */
uint16_t random_half(uint64_t *s);

/* Fills keys in runs of pool values (both zeros, NaNs, subnormals, infinities and others); a run
 * of zeros mixes -0.0 and +0.0. Returns how many neighbours are zeros of opposite signs and how
 * many are both NaNs (*nan_pairs). */
size_t fill_keys(uint64_t seed, uint16_t *keys, size_t n, size_t *nan_pairs);

/* The tests of each file, run by test_half.c as one cmocka group each. */
extern const struct CMUnitTest half_scan_tests[], half_round_tests[], half_user_tests[],
    half_keys_tests[], half_family_tests[];
extern const size_t half_scan_count, half_round_count, half_user_count, half_keys_count,
    half_family_count;

#endif /* CLSCAN_HALF_FIXTURE_H_ */
