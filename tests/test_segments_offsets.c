/*
 * clscan tests, segments: segments by offsets (int32, uint32, int64 and uint64) through every
 * algorithm run, at sizes around tile boundaries and random sizes, with empty segments, every
 * element a segment and patterns placed against the tiles; the GPU-shaped single pass's head mask
 * and per-tile search, the temporary buffer the mask used, wait lists and events; unsorted and
 * out-of-range device offsets; the one-shot and host calls (groups offsets and offsets_gpu).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ref_scan.h"
#include "segments_fixture.h"

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
/* The tests of this file                                                                         */
/* ============================================================================================== */

const struct CMUnitTest segments_offsets_tests[] = {
    cmocka_unit_test(test_offsets_random),
    cmocka_unit_test(test_offsets_patterns),
    cmocka_unit_test(test_offsets_tiles),
    cmocka_unit_test(test_offsets_one_shot),
};
const size_t segments_offsets_count =
    sizeof segments_offsets_tests / sizeof segments_offsets_tests[0];

const struct CMUnitTest segments_offsets_gpu_tests[] = {
    cmocka_unit_test(test_offsets_gpu_paths),
    cmocka_unit_test(test_offsets_mask_reuse),
    cmocka_unit_test(test_offsets_events),
    cmocka_unit_test(test_offsets_unsorted),
};
const size_t segments_offsets_gpu_count =
    sizeof segments_offsets_gpu_tests / sizeof segments_offsets_gpu_tests[0];
