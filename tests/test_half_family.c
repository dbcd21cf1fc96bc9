/*
 * clscan tests, half: select and partition by a predicate, unique and run-length encoding (signed
 * zeros and NaNs), reductions, and radix sorts of half keys with index values (stability) (group
 * family).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "ref_select.h"
#include "ref_sort.h"
#include "half_fixture.h"

/* ============================================================================================== */
/* family                                                                                         */
/* ============================================================================================== */

/* Returns 1 if two halves are equal as values (zeros of either sign agree; NaNs agree with any
 * NaN), for results whose sign of zero the scan's identity decides. */
static int same_value(uint16_t a, uint16_t b) {
  if (half_is_nan(a) || half_is_nan(b))
    return half_is_nan(a) && half_is_nan(b);
  return hd(a) == hd(b);
}

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
        cl_mem din = tu_buffer_with(tu_context(), n * 2, in),
               dout = tu_buffer_with(tu_context(), 2, NULL);
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

/* ============================================================================================== */
/* The tests of this file                                                                         */
/* ============================================================================================== */

const struct CMUnitTest half_family_tests[] = {
    cmocka_unit_test(test_family_select),
    cmocka_unit_test(test_family_reduce),
    cmocka_unit_test(test_family_sort),
};
const size_t half_family_count = sizeof half_family_tests / sizeof half_family_tests[0];
