/*
 * clscan tests: segments by offsets, by-key scans of every key type (user keys and key equality
 * included) and batched scans of rows and columns.
 *
 * Every result is checked against the host reference (tests/reference/ref_scan.h): offsets and
 * keys are turned into head flags on the host (clscan_ref_offsets_to_flags, and the keys'
 * equality in C), and the reference scans the flags; batched scans are checked row by row (column
 * by column) against the reference's plain scan. Integers must match exactly, floats within the
 * reference's tolerance. Outputs sit between poisoned guards that must survive, the padding between
 * rows must keep its bytes, and the inputs must be unchanged.
 *
 * Groups (one CTest test each):
 * - keys: every built-in key type through two of the algorithm runs (small tiles, so that tiles
 *   are crossed at small sizes; the single pass's GPU and CPU shapes), float keys through all;
 * float and double keys with -0.0, NaN and equal neighbours; a user key type with its equality;
 * key_equal_source on a built-in key type; one-shot and host calls.
 * - offsets: int32, uint32, int64 and uint64 offsets through every algorithm, inclusive and
 *   exclusive, with and without init, in place and not, at sizes around tile boundaries and
 *   random sizes, with empty segments (leading, repeated, trailing), every element a segment, one
 *   segment; patterns placed against the tiles (boundaries at tile boundaries, more empty
 *   segments in a tile than work-items, tiles with no head); one-shot and host calls.
 * - offsets_gpu: the GPU-shaped single pass's head mask (built by a pre-pass) with every offset
 *   type, its per-tile search (CLSCAN_SEG_OFFSETS_MASK=0), the mask under the decoupled fallback
 *   (CLSCAN_TEST_WITHHOLD); later single passes on the temporary buffer the mask used; the
 *   caller's wait list and the first and last events; unsorted and out-of-range device offsets
 *   through every algorithm (they must finish and write only the output range).
 * - rows: rows without padding (the segmented path, every algorithm), rows with padding and
 *   columns (the simple kernel), in place and not, with init and exclusive; the host call; rows
 *   of lengths around the tiles' strides through the tile kernels, with a map of the index.
 * - huge (not in the default run; needs 4.5 GiB of device memory): n > 2^32 int8 elements in
 *   place, with uint64 offsets around 2^32, and batched rows longer than 2^31 and of 1000.
 * - errors: every bad-input status of the new entry points and descriptor fields, with the
 *   output untouched.
 * Seeds are printed with every failure, and the base seed at the start.
 */
#include <inttypes.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "ref_scan.h"
#include "test_util.h"

/* Every scan algorithm, and the shapes of the single pass. */
static const clscan_algorithm algos[] = {CLSCAN_ALGO_BLELLOCH, CLSCAN_ALGO_HILLIS_STEELE,
                                         CLSCAN_ALGO_REDUCE_THEN_SCAN, CLSCAN_ALGO_SINGLE_PASS,
                                         CLSCAN_ALGO_SINGLE_PASS};
#define NUM_RUNS 5
/* Small geometries, so that tiles, blocks and groups are crossed at small sizes (run 4 is the
 * single pass's CPU shape, run 3 its GPU shape). */
static const clscan_tuning tunings[NUM_RUNS] = {
    {.seed_wg = 4},
    {.seed_wg = 8},
    {.tile_wg = 4, .tile_vpt = 2, .rts_groups_per_cu = 2},
    {.tile_wg = 4, .tile_vpt = 2, .single_pass_shape = CLSCAN_SHAPE_GPU},
    {.cpu_tile = 7, .single_pass_shape = CLSCAN_SHAPE_CPU}};
/* Run r's tuning: NVIDIA needs work-groups of at least a warp, so GPUs get 32 work-items where the
 * table says 4 (tiles of 256 int32 elements, still crossed by the larger sizes). */
static const clscan_tuning *run_tuning(int r) {
  static clscan_tuning gpu[NUM_RUNS];
  gpu[r] = tunings[r];
  if (!tu_device_is_cpu() && gpu[r].tile_wg == 4)
    gpu[r].tile_wg = 32;
  return &gpu[r];
}
static const char *const run_names[NUM_RUNS] = {"blelloch", "hillis-steele", "reduce-then-scan",
                                                "single-pass-gpu", "single-pass-cpu"};

/* Returns 1 if the device runs run r's algorithm (rusticl 22 refuses the single pass: it must say
 * so with CLSCAN_UNSUPPORTED_BY_DEVICE, and the run is left out). */
static int run_ok(int r) {
  const clscan_scan_desc d = {.type = CLSCAN_INT32, .algorithm = algos[r]};
  const clscan_status st = clscan_context_supports(tu_context(), &d);
  if (st != CLSCAN_SUCCESS && st != CLSCAN_UNSUPPORTED_BY_DEVICE)
    fail_msg("clscan_context_supports(%s): %s", run_names[r], clscan_status_string(st));
  return st == CLSCAN_SUCCESS;
}

/* Sizes around the small tiles (32 int32 elements for tile_wg 4 x vpt 2 x 4) and blocks. */
static const size_t sizes[] = {1, 2, 7, 31, 32, 33, 64, 65, 257, 1000};
#define NUM_SIZES (sizeof sizes / sizeof sizes[0])

/* Prints a failure with its case description and fails the test. */
static void failf(const char *what, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static void failf(const char *what, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char detail[512];
  vsnprintf(detail, sizeof detail, fmt, ap);
  va_end(ap);
  print_error("%s: %s (base seed %" PRIu64 ")\n", what, detail, tu_seed());
  fail();
}

/* Device copies of a case's arrays. */
typedef struct dev_case {
  cl_mem in, out, aux;
} dev_case;

static void dev_release(dev_case *d) {
  if (d->in)
    clReleaseMemObject(d->in);
  if (d->out && d->out != d->in)
    clReleaseMemObject(d->out);
  if (d->aux)
    clReleaseMemObject(d->aux);
  memset(d, 0, sizeof *d);
}

/* One segmented scan to run on a plan and check: n inputs from in_off, outputs at out_off (in
 * place: the input at out_off of the output buffer), aux the keys or offsets (aux_count elements
 * of aux_size bytes), flags the head flags the reference scans. */
typedef struct seg_case {
  const char *what;
  clscan_scan_desc desc;
  const clscan_tuning *tuning;
  size_t n, in_off, out_off;
  int in_place;
  const void *aux;
  size_t aux_count, aux_size, n_segments; /* n_segments: offsets only */
  const uint8_t *flags;
  uint64_t seed;
} seg_case;

/* Writes poison and the input into the device buffers of a case. */
static int seg_upload(clscan_context *ctx, const seg_case *c, const void *in, size_t ei, size_t eo,
                      dev_case *d) {
  const size_t out_elems = c->out_off + c->n + TU_GUARD;
  unsigned char *poison = malloc(out_elems * eo);
  if (!poison)
    return 0;
  memset(poison, TU_POISON, out_elems * eo);
  d->out = tu_buffer(ctx, CL_MEM_READ_WRITE, out_elems * eo);
  d->in = c->in_place ? d->out : tu_buffer(ctx, CL_MEM_READ_WRITE, (c->in_off + c->n) * ei);
  d->aux = tu_buffer(ctx, CL_MEM_READ_ONLY, c->aux_count * c->aux_size + 16);
  int ok = d->out && d->in && d->aux && tu_write(ctx, NULL, d->out, 0, out_elems * eo, poison) &&
           tu_write(ctx, NULL, d->in, (c->in_place ? c->out_off : c->in_off) * ei, c->n * ei, in) &&
           tu_write(ctx, NULL, d->aux, 0, c->aux_count * c->aux_size, c->aux);
  free(poison);
  return ok;
}

/* Checks a case's results and its guards; returns 1 when they are right. */
static int seg_check(const seg_case *c, const void *in, const unsigned char *got, size_t eo) {
  clscan_scan_desc ref = c->desc;
  ref.segments = CLSCAN_SEGMENTS_HEAD_FLAGS;
  ref.key_type = CLSCAN_INT32;
  ref.key_type_source = ref.key_type_name = ref.key_equal_source = NULL;
  ref.key_size = 0;
  clscan_ref_mismatch m = {0};
  if (!clscan_ref_check_segmented(&ref, c->flags, in, got + c->out_off * eo, c->n, &m)) {
    failf(c->what,
          "n %zu seed %" PRIu64 " in_off %zu out_off %zu in_place %d: element %" PRId64 ": %s",
          c->n, c->seed, c->in_off, c->out_off, c->in_place, m.index, m.detail);
    return 0;
  }
  if (!tu_all_bytes(got + (c->out_off + c->n) * eo, TU_GUARD * eo, TU_POISON) ||
      (!c->in_place && !tu_all_bytes(got, c->out_off * eo, TU_POISON))) {
    failf(c->what, "n %zu seed %" PRIu64 ": a guard around the output was written", c->n, c->seed);
    return 0;
  }
  return 1;
}

/* Runs a case on a fresh plan (keys: clscan_plan_enqueue_segmented; offsets:
 * clscan_plan_enqueue_offsets) and checks it. */
static void run_seg_case(const seg_case *c) {
  clscan_context *ctx = tu_context();
  char what[128];
  snprintf(what, sizeof what, "%s n=%zu", c->what, c->n);
  tu_progress(what);
  const size_t ei =
      c->desc.type == CLSCAN_USER_TYPE ? c->desc.type_size : clscan_type_size(c->desc.type);
  const size_t eo = ei; /* these cases keep the type */
  unsigned char *in = malloc(c->n * ei + 1), *got = malloc((c->out_off + c->n + TU_GUARD) * eo);
  assert_non_null(in);
  assert_non_null(got);
  clscan_ref_fill(c->desc.type, c->desc.op, c->seed, in, c->n);
  clscan_plan *plan = NULL;
  clscan_status st = clscan_plan_create_tuned(ctx, &c->desc, c->tuning, &plan);
  if (st != CLSCAN_SUCCESS) {
    failf(c->what, "plan: %s (%s)", clscan_status_string(st), clscan_last_error_detail());
    return;
  }
  dev_case d = {0};
  assert_true(seg_upload(ctx, c, in, ei, eo, &d));
  cl_event done = NULL;
  const size_t io = c->in_place ? c->out_off : c->in_off;
  if (c->desc.segments == CLSCAN_SEGMENTS_OFFSETS)
    st = clscan_plan_enqueue_offsets(plan, NULL, d.aux, 0, c->n_segments, d.in, io, d.out,
                                     c->out_off, c->n, 0, NULL, NULL, &done);
  else
    st = clscan_plan_enqueue_segmented(plan, NULL, d.aux, 0, d.in, io, d.out, c->out_off, c->n, 0,
                                       NULL, NULL, &done);
  if (st != CLSCAN_SUCCESS) {
    failf(c->what, "enqueue: %s (%s)", clscan_status_string(st), clscan_last_error_detail());
    return;
  }
  assert_int_equal(clWaitForEvents(1, &done), CL_SUCCESS);
  clReleaseEvent(done);
  assert_true(tu_read(ctx, NULL, d.out, 0, (c->out_off + c->n + TU_GUARD) * eo, got));
  seg_check(c, in, got, eo);
  dev_release(&d);
  clscan_plan_release(plan);
  free(in);
  free(got);
}

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
/* Offsets                                                                                        */
/* ============================================================================================== */

/* Stores 64-bit offsets as offsets of a type (signed ones stay small and non-negative). */
static void *offsets_as(clscan_type t, const uint64_t *o, size_t count) {
  const size_t size = clscan_type_size(t);
  unsigned char *p = malloc(count * size + 1);
  for (size_t s = 0; p && s < count; s++)
    memcpy(p + s * size, &o[s], size);
  return p;
}

/* Runs one offsets case of a pattern through one algorithm run. */
static void offsets_case(const char *pattern, const uint64_t *o, size_t n_segments, size_t n,
                         clscan_type ot, int r, int variant, uint64_t s) {
  uint8_t *flags = malloc(n + 1);
  void *aux = offsets_as(ot, o, n_segments + 1);
  assert_true(flags && aux);
  clscan_ref_offsets_to_flags(o, n_segments, flags, n);
  double finit = 2.5;
  int32_t iinit = -3;
  // Few distinct programs (each is a build): int32 add mostly, max and a floating type once each.
  const int is_float = variant == 5;
  char what[128];
  snprintf(what, sizeof what, "offsets %s %s %s variant %d", pattern, clscan_type_name(ot),
           run_names[r], variant);
  seg_case c = {.what = what,
                .desc = {.type = is_float ? CLSCAN_DOUBLE : CLSCAN_INT32,
                         .op = variant == 7 ? CLSCAN_MAX : CLSCAN_ADD,
                         .exclusive = variant % 2,
                         .init = variant % 4 == 0 ? NULL
                                 : is_float       ? (const void *)&finit
                                                  : &iinit,
                         .algorithm = algos[r],
                         .segments = CLSCAN_SEGMENTS_OFFSETS,
                         .key_type = ot},
                .tuning = run_tuning(r),
                .n = n,
                .in_off = (size_t)variant % 5,
                .out_off = (size_t)variant % 3,
                .in_place = variant % 4 == 3,
                .aux = aux,
                .aux_count = n_segments + 1,
                .aux_size = clscan_type_size(ot),
                .n_segments = n_segments,
                .flags = flags,
                .seed = s};
  if (is_float && clscan_context_supports(tu_context(), &c.desc) != CLSCAN_SUCCESS)
    c.desc.type = CLSCAN_FLOAT, c.desc.init = NULL;
  run_seg_case(&c);
  free(flags);
  free(aux);
}

/* The offset types; run r of a test uses offset_offset_types[r % 4], so that every type is covered
 * and each run builds few programs. */
static const clscan_type offset_types[] = {CLSCAN_INT32, CLSCAN_UINT32, CLSCAN_INT64,
                                           CLSCAN_UINT64};

/* Random partitions with empty segments at sizes around tiles, every offset type and algorithm. */
static void test_offsets_random(void **state) {
  (void)state;
  uint64_t seed = tu_mix(tu_seed(), 4);
  uint64_t *o = malloc(5000 * sizeof *o);
  assert_non_null(o);
  for (int r = 0; r < NUM_RUNS; r++) {
    if (!run_ok(r))
      continue;
    for (size_t k = 0; k < NUM_SIZES; k++) {
      uint64_t s = tu_mix(seed, (uint64_t)(r * 64 + (int)k));
      size_t n = sizes[k], n_segments = 0;
      clscan_ref_fill_offsets(n, 1 + k % 9, s, o, 5000, &n_segments);
      offsets_case("random", o, n_segments, n, offset_types[r % 4], r, (int)k, s);
    }
    // A random size up to a few thousand.
    uint64_t s = tu_mix(seed, (uint64_t)(r * 64 + 63));
    size_t n = tu_random_size(&s, 1000, 4000), n_segments = 0;
    clscan_ref_fill_offsets(n, 20, s, o, 5000, &n_segments);
    offsets_case("random-large", o, n_segments, n, offset_types[r % 4], r, r + 1, s);
  }
  free(o);
}

/* Fixed patterns: every element its own segment, one segment, leading and repeated empty
 * segments, and many empty segments at one position (the search over equal offsets). */
static void test_offsets_patterns(void **state) {
  (void)state;
  const size_t n = 97;
  uint64_t *o = malloc(2000 * sizeof *o);
  assert_non_null(o);
  for (int r = 0; r < NUM_RUNS; r++) {
    if (!run_ok(r))
      continue;
    uint64_t s = tu_mix(tu_seed(), (uint64_t)(500 + r));
    for (size_t i = 0; i <= n; i++)
      o[i] = i;
    offsets_case("every", o, n, n, offset_types[r % 4], r, 1, s);
    o[0] = 0;
    o[1] = n;
    offsets_case("one", o, 1, n, offset_types[r % 4], r, 2, s);
    // Three empty segments first, 1500 empty ones at 40, two empty ones last.
    size_t c = 0;
    for (int e = 0; e < 4; e++)
      o[c++] = 0;
    o[c++] = 17;
    for (int e = 0; e < 1500; e++)
      o[c++] = 40;
    o[c++] = 41;
    for (int e = 0; e < 3; e++)
      o[c++] = n;
    offsets_case("empty", o, c - 1, n, offset_types[r % 4], r, 3, s);
  }
  free(o);
}

/* The int32 tile of run r (work-items x vectors x 4 elements), or 32 for runs without tiles. */
static size_t run_tile(int r) {
  const clscan_tuning *t = run_tuning(r);
  return t->tile_wg ? (size_t)t->tile_wg * t->tile_vpt * 4 : 32;
}

/* Patterns placed against the tiles of the tile kernels, which mark a tile's heads from its
 * offsets in local memory: a segment boundary exactly at every tile boundary (and next to it),
 * more empty segments inside one tile and at a tile boundary than a work-group has work-items,
 * segments spanning many tiles with no head in between, many empty segments at the end (the
 * last tile's offsets equal n, past which nothing is marked), and a tile that ends the range
 * part way. Variants 0, 9 and 3 (in place) keep the buffers aligned, so that full tiles take the
 * vector loads; variant 2 does not. */
static void offsets_tiles_run(int r, clscan_type ot, uint64_t *o) {
  const size_t t = run_tile(r), n = 6 * t + 7;
  uint64_t s = tu_mix(tu_seed(), (uint64_t)(700 + r));
  size_t c = 0;
  o[c++] = 0;
  for (size_t b = t; b < n; b += t) {
    o[c++] = b - 1;
    o[c++] = b;
    o[c++] = b + 1;
  }
  o[c++] = n;
  offsets_case("tile-bounds", o, c - 1, n, ot, r, 0, s);
  // 300 empty segments inside tile 1, 300 at the start of tile 3, heads in between.
  c = 0;
  o[c++] = 0;
  for (int e = 0; e < 300; e++)
    o[c++] = t + 3;
  o[c++] = t + 4;
  o[c++] = 2 * t + t / 2;
  for (int e = 0; e < 300; e++)
    o[c++] = 3 * t;
  o[c++] = 3 * t + 2;
  o[c++] = n;
  offsets_case("tile-empty", o, c - 1, n, ot, r, 9, s);
  // Heads only at 1 and n - 1: tiles 1 to 5 have none; then 2000 empty segments at n.
  c = 0;
  o[c++] = 0;
  o[c++] = 1;
  o[c++] = n - 1;
  for (int e = 0; e < 2000; e++)
    o[c++] = n;
  offsets_case("tile-none", o, c - 1, n, ot, r, 3, s);
  // Every element a segment across tiles, ending part way into the last tile.
  for (size_t i = 0; i <= n; i++)
    o[i] = i;
  offsets_case("tile-every", o, n, n, ot, r, 2, s);
}

static void test_offsets_tiles(void **state) {
  (void)state;
  uint64_t *o = malloc(4000 * sizeof *o);
  assert_non_null(o);
  for (int r = 0; r < NUM_RUNS; r++) {
    if (run_ok(r))
      offsets_tiles_run(r, offset_types[r % 4], o);
  }
  free(o);
}

/* The GPU-shaped single pass (run 3) finds each tile's first offset in a pre-pass by default (the
 * tile firsts; CLSCAN_SEG_OFFSETS_MASK=1 selects a global head mask built by a pre-pass instead,
 * =0 a search per tile): the tile patterns with every offset type through the firsts, through the
 * mask, through the search, and through the firsts with every other tile silent
 * (CLSCAN_TEST_WITHHOLD=2), so that successors take the decoupled fallback, which marks a silent
 * tile's heads from its first too; random partitions at sizes around the tiles with int32 offsets
 * through the firsts and through the mask; every element a segment over 200003 elements (firsts
 * past 2^16) through the firsts. */
static void test_offsets_gpu_paths(void **state) {
  (void)state;
  const int r = 3;
  if (!run_ok(r))
    return;
  uint64_t *o = malloc(5000 * sizeof *o);
  assert_non_null(o);
  static const clscan_type mask_types[] = {CLSCAN_INT32, CLSCAN_UINT32, CLSCAN_INT64,
                                           CLSCAN_UINT64};
  for (size_t k = 0; k < sizeof mask_types / sizeof mask_types[0]; k++)
    offsets_tiles_run(r, mask_types[k], o);
  uint64_t seed = tu_mix(tu_seed(), 11);
  for (int mask = 0; mask < 2; mask++) {
    tu_env_saved saved;
    tu_env_set("CLSCAN_SEG_OFFSETS_MASK", mask ? "1" : "2", &saved);
    for (size_t k = 0; k < NUM_SIZES; k++) {
      uint64_t s = tu_mix(seed, (uint64_t)k);
      size_t n = sizes[k] * 3, n_segments = 0;
      clscan_ref_fill_offsets(n, 1 + k % 5, s, o, 5000, &n_segments);
      offsets_case(mask ? "mask-random" : "firsts-random", o, n_segments, n, CLSCAN_INT32, r,
                   (int)k, s);
    }
    tu_env_restore(&saved);
  }
  // More than 2^16 offsets: tile firsts of more than one 16-bit piece (cl/single_pass.cl).
  const size_t big = 200003;
  uint64_t *every = malloc((big + 1) * sizeof *every);
  assert_non_null(every);
  for (size_t i = 0; i <= big; i++)
    every[i] = i;
  offsets_case("firsts-every-element", every, big, big, CLSCAN_UINT32, r, 1, tu_mix(seed, 99));
  free(every);
  static const struct {
    const char *name, *value;
  } envs[] = {{"CLSCAN_SEG_OFFSETS_MASK", "1"},
              {"CLSCAN_SEG_OFFSETS_MASK", "0"},
              {"CLSCAN_TEST_WITHHOLD", "2"}};
  for (size_t e = 0; e < sizeof envs / sizeof envs[0]; e++) {
    tu_env_saved saved;
    tu_env_set(envs[e].name, envs[e].value, &saved);
    offsets_tiles_run(r, CLSCAN_INT32, o);
    offsets_tiles_run(r, CLSCAN_UINT64, o);
    tu_env_restore(&saved);
  }
  free(o);
}

/* Runs a plain int32 add scan of n elements in place on a plan of tuning t and checks it. */
static void plain_case(const char *what, const clscan_tuning *t, size_t n, uint64_t s) {
  clscan_context *ctx = tu_context();
  tu_progress(what);
  const clscan_scan_desc d = {.algorithm = CLSCAN_ALGO_SINGLE_PASS};
  int32_t *in = malloc(n * sizeof *in), *got = malloc(n * sizeof *got);
  assert_true(in && got);
  clscan_ref_fill(CLSCAN_INT32, CLSCAN_ADD, s, in, n);
  clscan_plan *plan = NULL;
  assert_int_equal(clscan_plan_create_tuned(ctx, &d, t, &plan), CLSCAN_SUCCESS);
  cl_mem b = tu_buffer(ctx, 0, n * 4);
  assert_true(b && tu_write(ctx, NULL, b, 0, n * 4, in));
  cl_event done = NULL;
  assert_int_equal(clscan_plan_enqueue(plan, NULL, b, 0, b, 0, n, 0, NULL, &done), CLSCAN_SUCCESS);
  assert_int_equal(clWaitForEvents(1, &done), CL_SUCCESS);
  clReleaseEvent(done);
  assert_true(tu_read(ctx, NULL, b, 0, n * 4, got));
  clscan_ref_mismatch m = {0};
  if (!clscan_ref_check(&d, in, got, n, &m))
    failf(what, "n %zu seed %" PRIu64 ": element %" PRId64 ": %s", n, s, m.index, m.detail);
  clReleaseMemObject(b);
  clscan_plan_release(plan);
  free(in);
  free(got);
}

/* The tile firsts (the default) and the head mask (CLSCAN_SEG_OFFSETS_MASK=1) live in the
 * temporary buffer past the scan's status words, where a later single pass with more tiles keeps
 * its own status words, which must read as zeros or older epochs: an offsets scan with every
 * element a segment (every mask bit set, firsts up to 1000) is followed on the same queue by
 * plain single passes in place (their gates are status words too) of many more tiles in both
 * shapes, which must be right and must end (segments.offsets_status32 runs this with 32-bit
 * status words). */
static void test_offsets_mask_reuse(void **state) {
  (void)state;
  if (!run_ok(3))
    return;
  const size_t n = 1000;
  uint64_t *o = malloc((n + 1) * sizeof *o);
  assert_non_null(o);
  for (size_t i = 0; i <= n; i++)
    o[i] = i;
  // Follow-up sizes in tiles, so that the mask's bytes fall among their status words or gates.
  static const size_t tiles[] = {10, 20, 40, 90, 200, 1000};
  for (int mask = 0; mask < 2; mask++) {
    tu_env_saved saved;
    tu_env_set("CLSCAN_SEG_OFFSETS_MASK", mask ? "1" : "2", &saved);
    const char *pass = mask ? "mask" : "firsts";
    for (size_t k = 0; k < sizeof tiles / sizeof tiles[0]; k++) {
      for (int shape = 0; shape < 2; shape++) {
        const uint64_t s = tu_mix(tu_seed(), 1200 + 2 * k + (size_t)shape);
        offsets_case(mask ? "mask-reuse" : "firsts-reuse", o, n, n, CLSCAN_INT32, 3, 0, s);
        const size_t tile = shape ? run_tuning(4)->cpu_tile : run_tile(3);
        char what[96];
        snprintf(what, sizeof what, "after the %s: %s, %zu tiles", pass, shape ? "CPU" : "GPU",
                 tiles[k]);
        plain_case(what, run_tuning(3 + shape), tiles[k] * tile + 3, s);
      }
    }
    tu_env_restore(&saved);
  }
  free(o);
}

/* The offsets' pre-pass is the chain's first command: an offsets scan waiting on a user event runs
 * nothing (the output stays as it was, the events stay pending) until the event completes; then
 * the first event (the mask's fill) and the last (the whole scan) complete, and the result is
 * right. */
static void test_offsets_events(void **state) {
  (void)state;
  if (!run_ok(3))
    return;
  clscan_context *ctx = tu_context();
  tu_progress("offsets events");
  const size_t n = 3000;
  uint64_t o[400];
  size_t n_segments = 0;
  const uint64_t s = tu_mix(tu_seed(), 14);
  clscan_ref_fill_offsets(n, 10, s, o, 400, &n_segments);
  uint32_t o32[400];
  for (size_t k = 0; k <= n_segments; k++)
    o32[k] = (uint32_t)o[k];
  int32_t *in = malloc(n * 4), *got = malloc(n * 4);
  uint8_t *flags = malloc(n);
  assert_true(in && got && flags);
  clscan_ref_fill(CLSCAN_INT32, CLSCAN_ADD, s, in, n);
  clscan_ref_offsets_to_flags(o, n_segments, flags, n);
  const clscan_scan_desc d = {.algorithm = CLSCAN_ALGO_SINGLE_PASS,
                              .segments = CLSCAN_SEGMENTS_OFFSETS,
                              .key_type = CLSCAN_UINT32};
  clscan_plan *plan = NULL;
  assert_int_equal(clscan_plan_create_tuned(ctx, &d, run_tuning(3), &plan), CLSCAN_SUCCESS);
  cl_mem ob = tu_buffer(ctx, CL_MEM_READ_ONLY, sizeof o32), ib = tu_buffer(ctx, 0, n * 4),
         outb = tu_buffer(ctx, 0, n * 4);
  memset(got, TU_POISON, n * 4);
  assert_true(ob && ib && outb && tu_write(ctx, NULL, ob, 0, sizeof o32, o32) &&
              tu_write(ctx, NULL, ib, 0, n * 4, in) && tu_write(ctx, NULL, outb, 0, n * 4, got));
  cl_int err;
  cl_event gate = clCreateUserEvent(clscan_context_cl_context(ctx), &err);
  assert_int_equal(err, CL_SUCCESS);
  cl_event first = NULL, done = NULL;
  assert_int_equal(clscan_plan_enqueue_offsets(plan, NULL, ob, 0, n_segments, ib, 0, outb, 0, n, 1,
                                               &gate, &first, &done),
                   CLSCAN_SUCCESS);
  if (!(first && done && first != done)) {
    // Let the queue go on before failing, so that later cases do not wait for the gate forever.
    clSetUserEventStatus(gate, CL_COMPLETE);
    failf("offsets events",
          "the scan returned no pre-pass event before its last (under "
          "CLSCAN_SEG_OFFSETS_MASK=0 the scan has no pre-pass)");
  }
  clFlush(clscan_context_queue(ctx));
  struct timespec pause = {0, 50 * 1000 * 1000};
  nanosleep(&pause, NULL);
  cl_int status = CL_COMPLETE;
  assert_int_equal(
      clGetEventInfo(first, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, NULL),
      CL_SUCCESS);
  if (status == CL_COMPLETE)
    failf("offsets events", "the pre-pass ran before the caller's event completed");
  assert_int_equal(
      clGetEventInfo(done, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, NULL),
      CL_SUCCESS);
  if (status == CL_COMPLETE)
    failf("offsets events", "the scan completed before the caller's event");
  assert_int_equal(clSetUserEventStatus(gate, CL_COMPLETE), CL_SUCCESS);
  char msg[256];
  if (!tu_event_complete(done, "done", msg, sizeof msg) ||
      !tu_event_complete(first, "first", msg, sizeof msg))
    failf("offsets events", "%s", msg);
  assert_true(tu_read(ctx, NULL, outb, 0, n * 4, got));
  clscan_scan_desc ref = {.segments = CLSCAN_SEGMENTS_HEAD_FLAGS};
  clscan_ref_mismatch m = {0};
  if (!clscan_ref_check_segmented(&ref, flags, in, got, n, &m))
    failf("offsets events", "element %" PRId64 ": %s", m.index, m.detail);
  clReleaseEvent(first);
  clReleaseEvent(done);
  clReleaseEvent(gate);
  clReleaseMemObject(ob);
  clReleaseMemObject(ib);
  clReleaseMemObject(outb);
  clscan_plan_release(plan);
  free(in);
  free(got);
  free(flags);
}

/* Device offsets that break the rule (not sorted, offsets[0] not 0, repeated, past n, negative
 * int32, uint64 beyond 2^32) give unspecified results, but every algorithm must finish, read
 * only the offsets and write only the output range. */
static void test_offsets_unsorted(void **state) {
  (void)state;
  clscan_context *ctx = tu_context();
  const size_t n = 300, count = 12, eo = 4, out_elems = n + 2 * TU_GUARD;
  const uint64_t bad[12] = {5,          0,  299, 17, 17, 300, 1000, 40, 3, (uint64_t)1 << 33,
                            UINT64_MAX, 150};
  int32_t in[300];
  clscan_ref_fill(CLSCAN_INT32, CLSCAN_ADD, tu_mix(tu_seed(), 13), in, n);
  for (int r = 0; r < NUM_RUNS; r++) {
    if (!run_ok(r))
      continue;
    for (int wide = 0; wide < 2; wide++) {
      char what[96];
      snprintf(what, sizeof what, "unsorted offsets %s %s", wide ? "uint64" : "int32",
               run_names[r]);
      tu_progress(what);
      const clscan_scan_desc d = {.algorithm = algos[r],
                                  .segments = CLSCAN_SEGMENTS_OFFSETS,
                                  .key_type = wide ? CLSCAN_UINT64 : CLSCAN_INT32};
      void *off = offsets_as(d.key_type, bad, count);
      assert_non_null(off);
      if (!wide)
        ((int32_t *)off)[10] = -1;
      unsigned char poison[(300 + 2 * TU_GUARD) * 4], got[sizeof poison];
      memset(poison, TU_POISON, sizeof poison);
      clscan_plan *plan = NULL;
      assert_int_equal(clscan_plan_create_tuned(ctx, &d, run_tuning(r), &plan), CLSCAN_SUCCESS);
      const size_t osize = clscan_type_size(d.key_type);
      cl_mem ob = tu_buffer(ctx, CL_MEM_READ_ONLY, count * osize), ib = tu_buffer(ctx, 0, n * 4),
             outb = tu_buffer(ctx, 0, out_elems * eo);
      assert_true(ob && ib && outb && tu_write(ctx, NULL, ob, 0, count * osize, off) &&
                  tu_write(ctx, NULL, ib, 0, n * 4, in) &&
                  tu_write(ctx, NULL, outb, 0, sizeof poison, poison));
      cl_event done = NULL;
      const clscan_status st = clscan_plan_enqueue_offsets(plan, NULL, ob, 0, count - 1, ib, 0,
                                                           outb, TU_GUARD, n, 0, NULL, NULL, &done);
      if (st != CLSCAN_SUCCESS) {
        failf(what, "%s (%s)", clscan_status_string(st), clscan_last_error_detail());
      } else {
        assert_int_equal(clWaitForEvents(1, &done), CL_SUCCESS);
        clReleaseEvent(done);
        assert_true(tu_read(ctx, NULL, outb, 0, sizeof got, got));
        if (!tu_all_bytes(got, TU_GUARD * eo, TU_POISON) ||
            !tu_all_bytes(got + (TU_GUARD + n) * eo, TU_GUARD * eo, TU_POISON))
          failf(what, "a guard around the output was written");
      }
      clReleaseMemObject(ob);
      clReleaseMemObject(ib);
      clReleaseMemObject(outb);
      clscan_plan_release(plan);
      free(off);
    }
  }
}

/* The one-shot and host calls, and n == 0. */
static void test_offsets_one_shot(void **state) {
  (void)state;
  clscan_context *ctx = tu_context();
  const size_t n = 500;
  uint64_t o[600];
  int32_t in[500], out[500], dev[500], o32[600];
  uint8_t flags[500];
  size_t n_segments = 0;
  uint64_t s = tu_mix(tu_seed(), 6);
  clscan_ref_fill_offsets(n, 6, s, o, 600, &n_segments);
  for (size_t i = 0; i <= n_segments; i++)
    o32[i] = (int32_t)o[i];
  clscan_ref_offsets_to_flags(o, n_segments, flags, n);
  clscan_ref_fill(CLSCAN_INT32, CLSCAN_ADD, s, in, n);
  clscan_scan_desc d = {.exclusive = 1};
  assert_int_equal(clscan_segmented_scan_offsets_host(ctx, &d, o32, n_segments, in, out),
                   CLSCAN_SUCCESS);
  clscan_scan_desc ref = {.exclusive = 1, .segments = CLSCAN_SEGMENTS_HEAD_FLAGS};
  clscan_ref_mismatch m;
  if (!clscan_ref_check_segmented(&ref, flags, in, out, n, &m))
    failf("host offsets", "seed %" PRIu64 " element %" PRId64 ": %s", s, m.index, m.detail);
  cl_mem ob = tu_buffer(ctx, CL_MEM_READ_ONLY, sizeof o32), ib = tu_buffer(ctx, 0, sizeof in),
         outb = tu_buffer(ctx, 0, sizeof dev);
  assert_true(tu_write(ctx, NULL, ob, 0, sizeof o32, o32) &&
              tu_write(ctx, NULL, ib, 0, sizeof in, in));
  cl_event done = NULL;
  d.segments = CLSCAN_SEGMENTS_OFFSETS;
  assert_int_equal(clscan_segmented_scan_offsets(ctx, NULL, &d, ob, 0, n_segments, ib, 0, outb, 0,
                                                 n, 0, NULL, &done),
                   CLSCAN_SUCCESS);
  clWaitForEvents(1, &done);
  clReleaseEvent(done);
  assert_true(tu_read(ctx, NULL, outb, 0, sizeof dev, dev));
  assert_memory_equal(dev, out, sizeof out);
  // n == 0 with no segments completes with an event and writes nothing.
  assert_int_equal(
      clscan_segmented_scan_offsets(ctx, NULL, &d, ob, 0, 0, ib, 0, outb, 0, 0, 0, NULL, &done),
      CLSCAN_SUCCESS);
  assert_non_null(done);
  clWaitForEvents(1, &done);
  clReleaseEvent(done);
  const int32_t zero = 0;
  assert_int_equal(clscan_segmented_scan_offsets_host(ctx, &d, &zero, 0, in, out), CLSCAN_SUCCESS);
  clReleaseMemObject(ob);
  clReleaseMemObject(ib);
  clReleaseMemObject(outb);
}

/* ============================================================================================== */
/* Batched rows and columns                                                                       */
/* ============================================================================================== */

/* Checks a batched result against the reference line by line, and the padding. */
static int check_batch(const char *what, const clscan_scan_desc *d, const clscan_batch *b,
                       const int32_t *in, const int32_t *before, const int32_t *got, uint64_t s) {
  const size_t stride = b->row_stride ? b->row_stride : b->row_length;
  const int cols = b->axis == CLSCAN_BATCH_COLUMNS;
  const size_t lines = cols ? b->row_length : b->rows, len = cols ? b->rows : b->row_length;
  int32_t *x = malloc((len + 1) * sizeof *x), *y = malloc((len + 1) * sizeof *y);
  assert_true(x && y);
  clscan_scan_desc ref = *d;
  ref.algorithm = CLSCAN_ALGO_AUTO;
  int ok = 1;
  for (size_t l = 0; l < lines && ok; l++) {
    for (size_t i = 0; i < len; i++) {
      const size_t at = cols ? i * stride + l : l * stride + i;
      x[i] = in[at];
      y[i] = got[at];
    }
    clscan_ref_mismatch m;
    if (!clscan_ref_check(&ref, x, y, len, &m)) {
      failf(what,
            "rows %zu length %zu stride %zu seed %" PRIu64 ": line %zu element %" PRId64 ": %s",
            b->rows, b->row_length, stride, s, l, m.index, m.detail);
      ok = 0;
    }
  }
  for (size_t r = 0; r + 1 < b->rows && ok; r++) {
    for (size_t i = b->row_length; i < stride; i++) {
      if (got[r * stride + i] != before[r * stride + i]) {
        failf(what, "the padding at row %zu element %zu was written (seed %" PRIu64 ")", r, i, s);
        ok = 0;
        break;
      }
    }
  }
  free(x);
  free(y);
  return ok;
}

/* One batched scan on device buffers (and in place) and through the host call. */
static void batch_case(const char *what, clscan_scan_desc d, clscan_batch b, uint64_t s) {
  clscan_context *ctx = tu_context();
  tu_progress(what);
  const size_t stride = b.row_stride ? b.row_stride : b.row_length;
  const size_t span = b.rows && b.row_length ? (b.rows - 1) * stride + b.row_length : 0;
  const size_t bytes = (span + 1) * sizeof(int32_t);
  int32_t *in = malloc(bytes), *out = malloc(bytes), *before = malloc(bytes);
  assert_true(in && out && before);
  clscan_ref_fill(CLSCAN_INT32, d.op, s, in, span);
  clscan_ref_fill(CLSCAN_INT32, d.op, s ^ 99, before, span);
  memcpy(out, before, bytes);
  clscan_status st = clscan_scan_batched_host(ctx, &d, &b, in, out);
  if (st != CLSCAN_SUCCESS)
    failf(what, "host: %s (%s)", clscan_status_string(st), clscan_last_error_detail());
  check_batch(what, &d, &b, in, before, out, s);
  // Device buffers, out of place at an offset, then in place (the padding is then the input's).
  cl_mem ib = tu_buffer(ctx, CL_MEM_READ_ONLY, bytes), ob = tu_buffer(ctx, 0, bytes + 64);
  assert_true(tu_write(ctx, NULL, ib, 0, span * 4 + 4, in) &&
              tu_write(ctx, NULL, ob, 12, span * 4 + 4, before));
  cl_event done = NULL;
  st = clscan_scan_batched(ctx, NULL, &d, &b, ib, 0, ob, 3, 0, NULL, &done);
  if (st != CLSCAN_SUCCESS) {
    failf(what, "device: %s (%s)", clscan_status_string(st), clscan_last_error_detail());
    return;
  }
  clWaitForEvents(1, &done);
  clReleaseEvent(done);
  assert_true(tu_read(ctx, NULL, ob, 12, span * 4 + 4, out));
  check_batch(what, &d, &b, in, before, out, s);
  assert_true(tu_write(ctx, NULL, ob, 12, span * 4 + 4, in));
  st = clscan_scan_batched(ctx, NULL, &d, &b, ob, 3, ob, 3, 0, NULL, &done);
  assert_int_equal(st, CLSCAN_SUCCESS);
  clWaitForEvents(1, &done);
  clReleaseEvent(done);
  assert_true(tu_read(ctx, NULL, ob, 12, span * 4 + 4, out));
  check_batch(what, &d, &b, in, in, out, s);
  clReleaseMemObject(ib);
  clReleaseMemObject(ob);
  free(in);
  free(out);
  free(before);
}

/* Rows without padding through every algorithm, rows with padding, columns. */
static void test_rows(void **state) {
  (void)state;
  static const size_t shapes[][3] = {{1, 1, 0},   {1, 100, 0}, {7, 33, 0}, {40, 5, 0},
                                     {3, 64, 0},  {5, 31, 40}, {9, 1, 3},  {17, 20, 21},
                                     {2, 300, 0}, {200, 3, 0}};
  uint64_t seed = tu_mix(tu_seed(), 7);
  int32_t init = 11;
  for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++) {
    for (int axis = 0; axis < 2; axis++) {
      const int r = (int)(k + (size_t)axis) % 4;
      if (!run_ok(r))
        continue;
      clscan_scan_desc d = {.op = k % 3 == 2 ? CLSCAN_MIN : CLSCAN_ADD,
                            .exclusive = (int)k % 2,
                            .init = k % 4 == 1 ? &init : NULL,
                            .algorithm = algos[r]};
      clscan_batch b = {.rows = shapes[k][0],
                        .row_length = shapes[k][1],
                        .row_stride = shapes[k][2],
                        .axis = axis ? CLSCAN_BATCH_COLUMNS : CLSCAN_BATCH_ROWS};
      char what[128];
      snprintf(what, sizeof what, "batch %s %zux%zu stride %zu %s", axis ? "columns" : "rows",
               b.rows, b.row_length, b.row_stride, run_names[r]);
      batch_case(what, d, b, tu_mix(seed, k * 2 + (size_t)axis));
    }
  }
}

/* Rows without padding through the tile kernels at small tiles (set through the environment: the
 * batched calls take no tuning), on aligned buffers so that full tiles take the vector loads, with
 * a map of the index within the row: row lengths below, at and above the distance between a
 * work-item's vectors and the tile, so that the row position a work-item advances wraps once,
 * many times or never per vector. The map gives these descriptors plan-cache keys of their own. */
static void rows_tile_case(const char *what, const clscan_scan_desc *d, const clscan_batch *b,
                           uint64_t s) {
  clscan_context *ctx = tu_context();
  tu_progress(what);
  const size_t n = b->rows * b->row_length, bytes = (n + 1) * sizeof(int32_t);
  int32_t *in = malloc(bytes), *mapped = malloc(bytes), *out = malloc(bytes);
  assert_true(in && mapped && out);
  clscan_ref_fill(CLSCAN_INT32, d->op, s, in, n);
  for (size_t i = 0; i < n; i++)
    mapped[i] = (int32_t)((uint32_t)in[i] + (uint32_t)(i % b->row_length % 7));
  clscan_scan_desc ref = *d;
  ref.map_source = NULL;
  cl_mem ib = tu_buffer(ctx, 0, bytes), ob = tu_buffer(ctx, 0, bytes);
  assert_true(tu_write(ctx, NULL, ib, 0, n * 4, in));
  for (int in_place = 0; in_place < 2; in_place++) {
    cl_event done = NULL;
    const clscan_status st =
        clscan_scan_batched(ctx, NULL, d, b, ib, 0, in_place ? ib : ob, 0, 0, NULL, &done);
    if (st != CLSCAN_SUCCESS) {
      failf(what, "%s (%s)", clscan_status_string(st), clscan_last_error_detail());
      break;
    }
    clWaitForEvents(1, &done);
    clReleaseEvent(done);
    assert_true(tu_read(ctx, NULL, in_place ? ib : ob, 0, n * 4, out));
    check_batch(what, &ref, b, mapped, mapped, out, s);
  }
  clReleaseMemObject(ib);
  clReleaseMemObject(ob);
  free(in);
  free(mapped);
  free(out);
}

static void test_rows_tiles(void **state) {
  (void)state;
  const int wg = tu_device_is_cpu() ? 4 : 32;
  const size_t tile = (size_t)wg * 2 * 4;
  char wg_text[16];
  snprintf(wg_text, sizeof wg_text, "%d", wg);
  tu_env_saved saved[3];
  tu_env_set("CLSCAN_TILE_WG", wg_text, &saved[0]);
  tu_env_set("CLSCAN_TILE_VPT", "2", &saved[1]);
  tu_env_set("CLSCAN_SINGLE_PASS_CPU", "0", &saved[2]);
  static const size_t lengths[] = {1, 3, 5, 15, 16, 17, 33, 255, 256, 257, 1000};
  const int32_t init = -5;
  for (int r = 2; r <= 3; r++) {
    if (!run_ok(r))
      continue;
    for (size_t k = 0; k < sizeof lengths / sizeof lengths[0]; k++) {
      const clscan_batch b = {.rows = (3 * tile + 5) / lengths[k] + 1, .row_length = lengths[k]};
      const clscan_scan_desc d = {.exclusive = (int)k % 2,
                                  .init = k % 3 == 1 ? &init : NULL,
                                  .algorithm = algos[r],
                                  .map_source = "x + (int)(i % 7)"};
      char what[160];
      snprintf(what, sizeof what, "rows-tiles %zux%zu %s", b.rows, b.row_length, run_names[r]);
      rows_tile_case(what, &d, &b, tu_mix(tu_seed(), 900 + k * 4 + (size_t)r));
    }
  }
  for (int i = 2; i >= 0; i--)
    tu_env_restore(&saved[i]);
}

/* ============================================================================================== */
/* More than 2^32 elements (the group "huge", not in the default run: it needs a GPU's memory)    */
/* ============================================================================================== */

/* Elements of the huge cases, and bytes per read-back chunk. */
#define HUGE_N (((size_t)1 << 32) + 4099)
#define HUGE_CHUNK ((size_t)1 << 26)

/* Returns 1 when the device holds one buffer of `bytes` and twice that in all, else prints why
 * the case is skipped. */
static int huge_fits(const char *what, size_t bytes) {
  cl_ulong max_alloc = 0, global = 0;
  cl_device_id dev = clscan_context_device(tu_context());
  clGetDeviceInfo(dev, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof max_alloc, &max_alloc, NULL);
  clGetDeviceInfo(dev, CL_DEVICE_GLOBAL_MEM_SIZE, sizeof global, &global, NULL);
  if (bytes <= max_alloc && 2 * (cl_ulong)bytes <= global)
    return 1;
  printf("  skip %s: %zu bytes (the device allows %" PRIu64 " per buffer, %" PRIu64 " in all)\n",
         what, bytes, (uint64_t)max_alloc, (uint64_t)global);
  return 0;
}

/* An int8 buffer of HUGE_N ones. */
static cl_mem huge_ones(void) {
  clscan_context *ctx = tu_context();
  cl_mem b = tu_buffer(ctx, 0, HUGE_N);
  assert_non_null(b);
  const cl_uchar one = 1;
  assert_int_equal(
      clEnqueueFillBuffer(clscan_context_queue(ctx), b, &one, 1, 0, HUGE_N, 0, NULL, NULL),
      CL_SUCCESS);
  return b;
}

/* Checks the first n elements of an inclusive int8 add scan of ones in place: element i holds
 * (i - start + 1) mod 256, start the first element of i's segment, which start_of(i, data) gives
 * for increasing i. */
typedef size_t (*huge_start_fn)(size_t i, const void *data);
static void huge_check(const char *what, cl_mem b, size_t n, huge_start_fn start_of,
                       const void *data) {
  unsigned char *got = malloc(HUGE_CHUNK);
  assert_non_null(got);
  for (size_t at = 0; at < n; at += HUGE_CHUNK) {
    const size_t len = n - at < HUGE_CHUNK ? n - at : HUGE_CHUNK;
    assert_true(tu_read(tu_context(), NULL, b, at, len, got));
    for (size_t k = 0; k < len; k++) {
      const size_t i = at + k;
      const unsigned char want = (unsigned char)(i - start_of(i, data) + 1);
      if (got[k] != want) {
        failf(what, "element %zu: got %u, want %u", i, got[k], want);
        free(got);
        return;
      }
    }
  }
  free(got);
}

/* The huge offsets: a segment every 100003 elements, and around 2^32 an empty segment and
 * segments of one element; the last offset is HUGE_N. */
typedef struct huge_offsets {
  uint64_t *o;
  size_t count;
} huge_offsets;

static size_t huge_offsets_start(size_t i, const void *data) {
  const huge_offsets *h = data;
  static size_t q = 0; /* the last answer's index, as i increases */
  if (i == 0)
    q = 0;
  while (q + 1 < h->count && h->o[q + 1] <= i)
    q++;
  return (size_t)h->o[q];
}

static void test_huge_offsets(void **state) {
  (void)state;
  const char *what = "huge offsets uint64 single-pass";
  if (!huge_fits(what, HUGE_N))
    return;
  tu_progress(what);
  huge_offsets h = {malloc((HUGE_N / 100003 + 16) * sizeof(uint64_t)), 0};
  assert_non_null(h.o);
  const uint64_t two32 = (uint64_t)1 << 32;
  for (uint64_t v = 0; v < two32 - 1; v += 100003)
    h.o[h.count++] = v;
  const uint64_t around[] = {two32 - 1, two32, two32, two32 + 1, two32 + 2, two32 + 4000};
  for (size_t k = 0; k < sizeof around / sizeof around[0]; k++)
    h.o[h.count++] = around[k];
  h.o[h.count++] = HUGE_N;
  clscan_context *ctx = tu_context();
  cl_mem b = huge_ones();
  cl_mem ob = tu_buffer(ctx, CL_MEM_READ_ONLY, h.count * sizeof(uint64_t));
  assert_true(ob && tu_write(ctx, NULL, ob, 0, h.count * sizeof(uint64_t), h.o));
  const clscan_scan_desc d = {.type = CLSCAN_INT8,
                              .algorithm = CLSCAN_ALGO_SINGLE_PASS,
                              .segments = CLSCAN_SEGMENTS_OFFSETS,
                              .key_type = CLSCAN_UINT64};
  cl_event done = NULL;
  clscan_status st = clscan_segmented_scan_offsets(ctx, NULL, &d, ob, 0, h.count - 1, b, 0, b, 0,
                                                   HUGE_N, 0, NULL, &done);
  if (st != CLSCAN_SUCCESS) {
    failf(what, "%s (%s)", clscan_status_string(st), clscan_last_error_detail());
  } else {
    assert_int_equal(clWaitForEvents(1, &done), CL_SUCCESS);
    clReleaseEvent(done);
    huge_check(what, b, HUGE_N, huge_offsets_start, &h);
  }
  clReleaseMemObject(ob);
  clReleaseMemObject(b);
  free(h.o);
}

/* Rows of a batch of two, each longer than 2^31, and rows of 1000 elements. */
static size_t huge_rows_start(size_t i, const void *data) {
  const size_t len = *(const size_t *)data;
  return i - i % len;
}

static void test_huge_rows(void **state) {
  (void)state;
  static const size_t lengths[] = {HUGE_N / 2, 1000};
  for (size_t k = 0; k < 2; k++) {
    char what[64];
    snprintf(what, sizeof what, "huge rows of %zu", lengths[k]);
    if (!huge_fits(what, HUGE_N))
      return;
    tu_progress(what);
    cl_mem b = huge_ones();
    const clscan_scan_desc d = {.type = CLSCAN_INT8, .algorithm = CLSCAN_ALGO_SINGLE_PASS};
    const clscan_batch bt = {.rows = HUGE_N / lengths[k], .row_length = lengths[k]};
    cl_event done = NULL;
    clscan_status st = clscan_scan_batched(tu_context(), NULL, &d, &bt, b, 0, b, 0, 0, NULL, &done);
    if (st != CLSCAN_SUCCESS) {
      failf(what, "%s (%s)", clscan_status_string(st), clscan_last_error_detail());
    } else {
      assert_int_equal(clWaitForEvents(1, &done), CL_SUCCESS);
      clReleaseEvent(done);
      // Elements past the batch's span keep their ones.
      const size_t span = bt.rows * bt.row_length;
      unsigned char tail[4099];
      const size_t rest = HUGE_N - span;
      assert_true(rest <= sizeof tail);
      if (rest) {
        assert_true(tu_read(tu_context(), NULL, b, span, rest, tail));
        if (!tu_all_bytes(tail, rest, 1))
          failf(what, "an element past the batch was written");
      }
      huge_check(what, b, span, huge_rows_start, &lengths[k]);
    }
    clReleaseMemObject(b);
  }
}

/* ============================================================================================== */
/* Errors                                                                                         */
/* ============================================================================================== */

/* Descriptor fields: every new bad value gets its status from plan creation. */
static void test_desc_errors(void **state) {
  (void)state;
  clscan_context *ctx = tu_context();
  clscan_plan *p = NULL;
  const struct {
    clscan_scan_desc d;
    clscan_status want;
  } cases[] = {
      {{.segments = (clscan_segments)4}, CLSCAN_INVALID_VALUE},
      {{.segments = CLSCAN_SEGMENTS_OFFSETS, .key_type = CLSCAN_FLOAT}, CLSCAN_INVALID_TYPE},
      {{.segments = CLSCAN_SEGMENTS_OFFSETS, .key_type = CLSCAN_UINT8}, CLSCAN_INVALID_TYPE},
      {{.segments = CLSCAN_SEGMENTS_OFFSETS, .key_equal_source = "a == b"}, CLSCAN_INVALID_VALUE},
      {{.segments = CLSCAN_SEGMENTS_KEYS, .key_type = (clscan_type)40}, CLSCAN_INVALID_TYPE},
      {{.segments = CLSCAN_SEGMENTS_KEYS,
        .key_type = CLSCAN_USER_TYPE,
        .key_size = 4,
        .key_equal_source = "a == b"},
       CLSCAN_NULL_ARGUMENT},
      {{.segments = CLSCAN_SEGMENTS_KEYS,
        .key_type = CLSCAN_USER_TYPE,
        .key_type_name = "int",
        .key_size = 4},
       CLSCAN_NULL_ARGUMENT},
      {{.segments = CLSCAN_SEGMENTS_KEYS,
        .key_type = CLSCAN_USER_TYPE,
        .key_type_name = "int",
        .key_equal_source = "a == b"},
       CLSCAN_INVALID_VALUE},
      {{.segments = CLSCAN_SEGMENTS_KEYS, .key_type = CLSCAN_INT32, .key_size = 4},
       CLSCAN_INVALID_VALUE},
      {{.segments = CLSCAN_SEGMENTS_KEYS, .key_type = CLSCAN_INT32, .key_type_name = "int"},
       CLSCAN_INVALID_VALUE},
      {{.segments = CLSCAN_SEGMENTS_HEAD_FLAGS, .key_equal_source = "a == b"},
       CLSCAN_INVALID_VALUE},
      {{.key_type_source = "typedef int k;"}, CLSCAN_INVALID_VALUE},
      {{.segments = CLSCAN_SEGMENTS_KEYS,
        .key_type = CLSCAN_USER_TYPE,
        .key_type_name = "int",
        .key_size = 8,
        .key_equal_source = "a == b"},
       CLSCAN_TYPE_SIZE_MISMATCH},
      {{.segments = CLSCAN_SEGMENTS_KEYS, .key_type = CLSCAN_INT32, .key_equal_source = "a === b"},
       CLSCAN_USER_SOURCE_INVALID},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    clscan_status st = clscan_plan_create(ctx, &cases[i].d, &p);
    if (st != cases[i].want)
      failf("desc errors", "case %zu: got %s, want %s (%s)", i, clscan_status_string(st),
            clscan_status_string(cases[i].want), clscan_last_error_detail());
    assert_null(p);
  }
}

/* Enqueue arguments of the offsets and batched calls; the output must stay untouched. */
static void test_call_errors(void **state) {
  (void)state;
  clscan_context *ctx = tu_context();
  int32_t poison[64], got[64], o[5] = {0, 2, 2, 4, 8};
  memset(poison, TU_POISON, sizeof poison);
  cl_mem ob = tu_buffer(ctx, CL_MEM_READ_ONLY, sizeof o), ib = tu_buffer(ctx, 0, 64 * 4),
         out = tu_buffer(ctx, 0, 64 * 4);
  assert_true(tu_write(ctx, NULL, ob, 0, sizeof o, o) &&
              tu_write(ctx, NULL, out, 0, sizeof poison, poison));
  clscan_scan_desc d = {.segments = CLSCAN_SEGMENTS_OFFSETS};
  clscan_plan *plan = NULL, *flat = NULL;
  assert_int_equal(clscan_plan_create(ctx, &d, &plan), CLSCAN_SUCCESS);
  assert_int_equal(clscan_plan_create(ctx, &(clscan_scan_desc){0}, &flat), CLSCAN_SUCCESS);
  cl_event done = (cl_event)1;
#define EXPECT(call, want)                                                               \
  do {                                                                                   \
    clscan_status st_ = (call);                                                          \
    if (st_ != (want))                                                                   \
      failf("call errors", "%s: got %s, want %s (%s)", #call, clscan_status_string(st_), \
            clscan_status_string(want), clscan_last_error_detail());                     \
  } while (0)
  EXPECT(clscan_plan_enqueue_offsets(NULL, NULL, ob, 0, 4, ib, 0, out, 0, 8, 0, NULL, NULL, &done),
         CLSCAN_NULL_ARGUMENT);
  assert_null(done);
  EXPECT(clscan_plan_enqueue_offsets(flat, NULL, ob, 0, 4, ib, 0, out, 0, 8, 0, NULL, NULL, NULL),
         CLSCAN_INVALID_VALUE);
  EXPECT(clscan_plan_enqueue(plan, NULL, ib, 0, out, 0, 8, 0, NULL, NULL), CLSCAN_INVALID_VALUE);
  EXPECT(clscan_plan_enqueue_segmented(plan, NULL, ob, 0, ib, 0, out, 0, 8, 0, NULL, NULL, NULL),
         CLSCAN_INVALID_VALUE);
  EXPECT(clscan_plan_enqueue_offsets(plan, NULL, NULL, 0, 4, ib, 0, out, 0, 8, 0, NULL, NULL, NULL),
         CLSCAN_NULL_ARGUMENT);
  EXPECT(clscan_plan_enqueue_offsets(plan, NULL, ob, 0, 0, ib, 0, out, 0, 8, 0, NULL, NULL, NULL),
         CLSCAN_INVALID_VALUE);
  EXPECT(clscan_plan_enqueue_offsets(plan, NULL, ob, 1, 4, ib, 0, out, 0, 8, 0, NULL, NULL, NULL),
         CLSCAN_BUFFER_TOO_SMALL);
  EXPECT(clscan_plan_enqueue_offsets(plan, NULL, ob, 0, 5, ib, 0, out, 0, 8, 0, NULL, NULL, NULL),
         CLSCAN_BUFFER_TOO_SMALL);
  EXPECT(clscan_plan_enqueue_offsets(plan, NULL, ob, 0, SIZE_MAX, ib, 0, out, 0, 8, 0, NULL, NULL,
                                     NULL),
         CLSCAN_SIZE_OVERFLOW);
  EXPECT(clscan_plan_enqueue_offsets(plan, NULL, out, 0, 4, ib, 0, out, 2, 8, 0, NULL, NULL, NULL),
         CLSCAN_OVERLAP);
  EXPECT(clscan_plan_enqueue_offsets(plan, NULL, ob, 0, 4, ib, 0, out, 0, 8, 1, NULL, NULL, NULL),
         CLSCAN_INVALID_WAIT_LIST);
  EXPECT(clscan_segmented_scan_host(ctx, &d, o, (int32_t[8]){0}, (int32_t[8]){0}, 8),
         CLSCAN_INVALID_VALUE);
  EXPECT(clscan_segmented_scan_offsets(NULL, NULL, &d, ob, 0, 4, ib, 0, out, 0, 8, 0, NULL, NULL),
         CLSCAN_NULL_ARGUMENT);
  EXPECT(clscan_segmented_scan_offsets(ctx, NULL, NULL, ob, 0, 4, ib, 0, out, 0, 8, 0, NULL, NULL),
         CLSCAN_NULL_ARGUMENT);
  d.segments = CLSCAN_SEGMENTS_KEYS;
  EXPECT(clscan_segmented_scan_offsets(ctx, NULL, &d, ob, 0, 4, ib, 0, out, 0, 8, 0, NULL, NULL),
         CLSCAN_INVALID_VALUE);
  d.segments = CLSCAN_SEGMENTS_NONE;
  EXPECT(clscan_segmented_scan_offsets(ctx, NULL, &d, ob, 0, 4, ib, 0, out, 0, 65, 0, NULL, NULL),
         CLSCAN_BUFFER_TOO_SMALL);
  // Host offsets that break the rule.
  int32_t in[8] = {1, 2, 3, 4, 5, 6, 7, 8}, res[8];
  memset(res, TU_POISON, sizeof res);
  const int32_t bad_first[3] = {1, 2, 8}, bad_order[4] = {0, 5, 3, 8}, bad_sign[3] = {0, -1, 8};
  EXPECT(clscan_segmented_scan_offsets_host(ctx, &d, bad_first, 2, in, res), CLSCAN_INVALID_VALUE);
  EXPECT(clscan_segmented_scan_offsets_host(ctx, &d, bad_order, 3, in, res), CLSCAN_INVALID_VALUE);
  EXPECT(clscan_segmented_scan_offsets_host(ctx, &d, bad_sign, 2, in, res), CLSCAN_INVALID_VALUE);
  EXPECT(clscan_segmented_scan_offsets_host(ctx, &d, NULL, 2, in, res), CLSCAN_NULL_ARGUMENT);
  EXPECT(clscan_segmented_scan_offsets_host(ctx, &d, o, 4, in, (int32_t *)o + 1), CLSCAN_OVERLAP);
  EXPECT(clscan_segmented_scan_offsets_host(ctx, &d, o, 4, in, in + 1), CLSCAN_OVERLAP);
  assert_true(tu_all_bytes(res, sizeof res, TU_POISON));
  // Batches.
  clscan_batch b = {.rows = 4, .row_length = 8};
  EXPECT(clscan_scan_batched(ctx, NULL, &d, NULL, ib, 0, out, 0, 0, NULL, NULL),
         CLSCAN_NULL_ARGUMENT);
  b.axis = (clscan_batch_axis)2;
  EXPECT(clscan_scan_batched(ctx, NULL, &d, &b, ib, 0, out, 0, 0, NULL, NULL),
         CLSCAN_INVALID_VALUE);
  b.axis = CLSCAN_BATCH_ROWS;
  b.row_stride = 7;
  EXPECT(clscan_scan_batched(ctx, NULL, &d, &b, ib, 0, out, 0, 0, NULL, NULL),
         CLSCAN_INVALID_VALUE);
  b.row_stride = 20;
  EXPECT(clscan_scan_batched(ctx, NULL, &d, &b, ib, 0, out, 0, 0, NULL, NULL),
         CLSCAN_BUFFER_TOO_SMALL);
  b.row_stride = SIZE_MAX / 2;
  EXPECT(clscan_scan_batched(ctx, NULL, &d, &b, ib, 0, out, 0, 0, NULL, NULL),
         CLSCAN_SIZE_OVERFLOW);
  b.row_stride = 8;
  EXPECT(clscan_scan_batched(ctx, NULL, &d, &b, ib, 0, ib, 1, 0, NULL, NULL), CLSCAN_OVERLAP);
  EXPECT(clscan_scan_batched(ctx, NULL, &d, &b, NULL, 0, out, 0, 0, NULL, NULL),
         CLSCAN_NULL_ARGUMENT);
  d.segments = CLSCAN_SEGMENTS_HEAD_FLAGS;
  EXPECT(clscan_scan_batched(ctx, NULL, &d, &b, ib, 0, out, 0, 0, NULL, NULL),
         CLSCAN_INVALID_VALUE);
  EXPECT(clscan_scan_batched_host(ctx, &d, &b, in, res), CLSCAN_INVALID_VALUE);
  d.segments = CLSCAN_SEGMENTS_NONE;
  b.rows = 1;
  EXPECT(clscan_scan_batched_host(ctx, &d, &b, in, in + 1), CLSCAN_OVERLAP);
  EXPECT(clscan_scan_batched_host(ctx, &d, &b, NULL, res), CLSCAN_NULL_ARGUMENT);
#undef EXPECT
  assert_true(tu_all_bytes(res, sizeof res, TU_POISON));
  assert_true(tu_read(ctx, NULL, out, 0, sizeof got, got));
  assert_memory_equal(got, poison, sizeof got);
  clscan_plan_release(plan);
  clscan_plan_release(flat);
  clReleaseMemObject(ob);
  clReleaseMemObject(ib);
  clReleaseMemObject(out);
}

int main(int argc, char **argv) {
  const struct CMUnitTest keys[] = {cmocka_unit_test(test_key_types),
                                    cmocka_unit_test(test_user_keys),
                                    cmocka_unit_test(test_keys_one_shot)};
  const struct CMUnitTest offsets[] = {
      cmocka_unit_test(test_offsets_random), cmocka_unit_test(test_offsets_patterns),
      cmocka_unit_test(test_offsets_tiles), cmocka_unit_test(test_offsets_one_shot)};
  const struct CMUnitTest offsets_gpu[] = {
      cmocka_unit_test(test_offsets_gpu_paths), cmocka_unit_test(test_offsets_mask_reuse),
      cmocka_unit_test(test_offsets_events), cmocka_unit_test(test_offsets_unsorted)};
  const struct CMUnitTest rows[] = {cmocka_unit_test(test_rows), cmocka_unit_test(test_rows_tiles)};
  const struct CMUnitTest huge[] = {cmocka_unit_test(test_huge_offsets),
                                    cmocka_unit_test(test_huge_rows)};
  const struct CMUnitTest errors[] = {cmocka_unit_test(test_desc_errors),
                                      cmocka_unit_test(test_call_errors)};
  if (!tu_context())
    return 1;
  printf("test_segments: base seed %" PRIu64 " (CLSCAN_TEST_SEED reproduces it)\n", tu_seed());
  int failed = 0;
  for (int i = 1; i < argc || (argc == 1 && i == 1); i++) {
    const char *g = argc > 1 ? argv[i] : "all";
    int all = strcmp(g, "all") == 0, known = 0;
#define GROUP(name, list)                                                                       \
  if (all || strcmp(g, name) == 0) {                                                            \
    known = 1;                                                                                  \
    failed +=                                                                                   \
        cmocka_run_group_tests_name("segments." name, list, tu_group_setup, tu_group_teardown); \
  }
    GROUP("keys", keys)
    GROUP("offsets", offsets)
    GROUP("offsets_gpu", offsets_gpu)
    GROUP("rows", rows)
    GROUP("errors", errors)
#undef GROUP
    // Not part of "all": it needs more than 4 GiB of device memory.
    if (strcmp(g, "huge") == 0) {
      known = 1;
      failed +=
          cmocka_run_group_tests_name("segments.huge", huge, tu_group_setup, tu_group_teardown);
    }
    if (!known) {
      fprintf(stderr,
              "test_segments: unknown group %s (keys, offsets, offsets_gpu, rows, errors, huge)\n",
              g);
      return 2;
    }
  }
  tu_context_release();
  return failed ? 1 : 0;
}
