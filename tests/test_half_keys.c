/*
 * clscan tests, half: by-key scans on half keys (-0.0 equals +0.0, a NaN equals nothing) and a
 * key_equal_source on halves (group keys).
 */
#include <math.h>
#include <stdlib.h>

#include "half_fixture.h"

/* ============================================================================================== */
/* keys                                                                                           */
/* ============================================================================================== */

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
/* The tests of this file                                                                         */
/* ============================================================================================== */

const struct CMUnitTest half_keys_tests[] = {
    cmocka_unit_test(test_keys_builtin),
    cmocka_unit_test(test_keys_equal_source),
};
const size_t half_keys_count = sizeof half_keys_tests / sizeof half_keys_tests[0];
