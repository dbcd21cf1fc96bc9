/*
 * clscan tests, segments: by-key scans of every built-in key type (float and double keys with
 * -0.0, NaN and equal neighbours) through two of the algorithm runs, float keys through all; a
 * user key type with its equality and key_equal_source on a built-in key type; the one-shot and
 * host by-key calls.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ref_scan.h"
#include "segments_fixture.h"

/* ============================================================================================== */
/* Keys                                                                                           */
/* ============================================================================================== */

/* Fills n keys of a built-in type with runs of random lengths (mean about 4), and for floating
 * types special values: -0.0 next to 0.0 (equal), NaN runs (never equal). */
static void fill_keys(clscan_type t, uint64_t seed, void *keys, size_t n) {
  uint64_t s = seed;
  int64_t key = 0;
  for (size_t i = 0; i < n; i++) {
    size_t r = tu_random_size(&s, 0, 15);
    if (r < 4)
      key += (int64_t)r + 1;
    if (t == CLSCAN_FLOAT || t == CLSCAN_DOUBLE) {
      double v = (double)key * 0.5;
      if (r == 14)
        v = NAN;
      else if (r == 15 || (key == 0 && i % 2))
        v = key == 0 ? -0.0 : v;
      if (t == CLSCAN_FLOAT)
        ((float *)keys)[i] = (float)v;
      else
        ((double *)keys)[i] = v;
    } else {
      // Wraps in narrow types; equal neighbours stay equal, different ones mostly differ.
      const size_t ks = clscan_type_size(t);
      uint64_t u = (uint64_t)key;
      memcpy((unsigned char *)keys + i * ks, &u, ks);
    }
  }
}

/* Head flags of n built-in keys, from the reference's key equality. */
static void key_flags(clscan_type t, const void *keys, uint8_t *flags, size_t n) {
  for (size_t i = 0; i < n; i++)
    flags[i] = i == 0 || !clscan_ref_keys_equal(t, keys, i, i - 1);
}

/* Every built-in key type through two algorithm runs (float through all), inclusive and
 * exclusive, with init and without. */
static void test_key_types(void **state) {
  (void)state;
  uint64_t seed = tu_mix(tu_seed(), 1);
  for (int t = 0; t < CLSCAN_TYPE_COUNT; t++) {
    clscan_type kt = (clscan_type)t;
    if (kt == CLSCAN_DOUBLE &&
        !(clscan_context_supports(
              tu_context(),
              &(clscan_scan_desc){.segments = CLSCAN_SEGMENTS_KEYS, .key_type = kt}) == 0))
      continue;
    for (int r = 0; r < NUM_RUNS; r++) {
      if (!run_ok(r))
        continue;
      // Each key type through two runs (every run sees four key types), float through all.
      if (kt != CLSCAN_FLOAT && r != t % NUM_RUNS && r != (t + 2) % NUM_RUNS)
        continue;
      const size_t n = sizes[(size_t)(t * NUM_RUNS + r) % NUM_SIZES] + (size_t)r * 40;
      const size_t ks = clscan_type_size(kt);
      void *keys = malloc(n * ks);
      uint8_t *flags = malloc(n);
      assert_non_null(keys);
      assert_non_null(flags);
      uint64_t s = tu_mix(seed, (uint64_t)(t * 16 + r));
      fill_keys(kt, s, keys, n);
      key_flags(kt, keys, flags, n);
      int32_t init = 7;
      char what[96];
      snprintf(what, sizeof what, "keys %s %s", clscan_type_name(kt), run_names[r]);
      seg_case c = {.what = what,
                    .desc = {.type = r % 2 ? CLSCAN_FLOAT : CLSCAN_INT32,
                             .exclusive = r % 2,
                             .init = r % 2 ? NULL : &init,
                             .algorithm = algos[r],
                             .segments = CLSCAN_SEGMENTS_KEYS,
                             .key_type = kt},
                    .tuning = run_tuning(r),
                    .n = n,
                    .in_off = (size_t)r,
                    .out_off = 4,
                    .in_place = r == 2,
                    .aux = keys,
                    .aux_count = n,
                    .aux_size = ks,
                    .flags = flags,
                    .seed = s};
      run_seg_case(&c);
      free(keys);
      free(flags);
    }
  }
}

/* A user key type (two ints, equal when their first fields are) and key_equal_source on int32
 * keys (equal when they agree after division by 10), through every algorithm run. */
typedef struct pair_key {
  int32_t group, tag;
} pair_key;

static void test_user_keys(void **state) {
  (void)state;
  uint64_t seed = tu_mix(tu_seed(), 2);
  for (int r = 0; r < NUM_RUNS; r++) {
    if (!run_ok(r))
      continue;
    const size_t n = 100 + (size_t)r * 37;
    pair_key *pk = malloc(n * sizeof *pk);
    int32_t *ik = malloc(n * sizeof *ik);
    uint8_t *flags = malloc(n);
    assert_true(pk && ik && flags);
    uint64_t s = tu_mix(seed, (uint64_t)r);
    int32_t g = 0;
    for (size_t i = 0; i < n; i++) {
      if (tu_random_size(&s, 0, 3) == 0)
        g++;
      pk[i].group = g;
      pk[i].tag = (int32_t)tu_random_size(&s, 0, 1000); /* ignored by the equality */
      flags[i] = i == 0 || pk[i].group != pk[i - 1].group;
    }
    char what[96];
    snprintf(what, sizeof what, "user keys %s", run_names[r]);
    seg_case c = {.what = what,
                  .desc = {.type = CLSCAN_INT32,
                           .algorithm = algos[r],
                           .segments = CLSCAN_SEGMENTS_KEYS,
                           .key_type = CLSCAN_USER_TYPE,
                           .key_type_source = "typedef struct { int group, tag; } pair_key;",
                           .key_type_name = "pair_key",
                           .key_size = sizeof(pair_key),
                           .key_equal_source = "a.group == b.group"},
                  .tuning = run_tuning(r),
                  .n = n,
                  .aux = pk,
                  .aux_count = n,
                  .aux_size = sizeof(pair_key),
                  .flags = flags,
                  .seed = s};
    run_seg_case(&c);
    // The same segments from int32 keys group * 10 + a digit, equal after division by 10.
    for (size_t i = 0; i < n; i++)
      ik[i] = pk[i].group * 10 + pk[i].tag % 10;
    snprintf(what, sizeof what, "key_equal_source int32 %s", run_names[r]);
    c.desc.key_type = CLSCAN_INT32;
    c.desc.key_type_source = c.desc.key_type_name = NULL;
    c.desc.key_size = 0;
    c.desc.key_equal_source = "{ return a / 10 == b / 10; }";
    c.aux = ik;
    c.aux_size = sizeof *ik;
    run_seg_case(&c);
    free(pk);
    free(ik);
    free(flags);
  }
}

/* The one-shot and host by-key calls with a float key type (NaN and -0.0 keys). */
static void test_keys_one_shot(void **state) {
  (void)state;
  clscan_context *ctx = tu_context();
  const size_t n = 300;
  float keys[300];
  int32_t in[300], out[300], dev[300];
  uint8_t flags[300];
  uint64_t s = tu_mix(tu_seed(), 3);
  fill_keys(CLSCAN_FLOAT, s, keys, n);
  keys[10] = 0.0f;
  keys[11] = -0.0f; /* equal to the key before: no new segment */
  keys[20] = NAN;
  keys[21] = NAN; /* NaN equals nothing: two segments */
  key_flags(CLSCAN_FLOAT, keys, flags, n);
  assert_int_equal(flags[11], 0);
  assert_int_equal(flags[21], 1);
  clscan_ref_fill(CLSCAN_INT32, CLSCAN_ADD, s, in, n);
  clscan_scan_desc d = {.segments = CLSCAN_SEGMENTS_KEYS, .key_type = CLSCAN_FLOAT};
  assert_int_equal(clscan_segmented_scan_host(ctx, &d, keys, in, out, n), CLSCAN_SUCCESS);
  clscan_scan_desc ref = {.segments = CLSCAN_SEGMENTS_HEAD_FLAGS};
  clscan_ref_mismatch m;
  if (!clscan_ref_check_segmented(&ref, flags, in, out, n, &m))
    failf("host float keys", "seed %" PRIu64 " element %" PRId64 ": %s", s, m.index, m.detail);
  cl_mem k = tu_buffer(ctx, CL_MEM_READ_ONLY, sizeof keys), b = tu_buffer(ctx, 0, sizeof in);
  assert_true(tu_write(ctx, NULL, k, 0, sizeof keys, keys) &&
              tu_write(ctx, NULL, b, 0, sizeof in, in));
  d.segments = CLSCAN_SEGMENTS_NONE; /* the by-key call sets it */
  cl_event done = NULL;
  assert_int_equal(clscan_scan_by_key(ctx, NULL, &d, k, 0, b, 0, b, 0, n, 0, NULL, &done),
                   CLSCAN_SUCCESS);
  clWaitForEvents(1, &done);
  clReleaseEvent(done);
  assert_true(tu_read(ctx, NULL, b, 0, sizeof dev, dev));
  assert_memory_equal(dev, out, sizeof out);
  clReleaseMemObject(k);
  clReleaseMemObject(b);
}

/* ============================================================================================== */
/* The tests of this file                                                                         */
/* ============================================================================================== */

const struct CMUnitTest segments_keys_tests[] = {
    cmocka_unit_test(test_key_types),
    cmocka_unit_test(test_user_keys),
    cmocka_unit_test(test_keys_one_shot),
};
const size_t segments_keys_count = sizeof segments_keys_tests / sizeof segments_keys_tests[0];
