/*
 * clscan tests: selections (select, partition, unique, run-length encoding) against the host
 * reference of tests/reference/ref_select.h, case by case (select_case.h).
 *
 * Groups (one CTest test each): `sizes` (tile boundaries of both shapes), `types` (every built-in
 * type, flags and predicate), `patterns` (selected fractions, runs of 1 to 200000), `user` (user
 * types, maps, predicates, equalities), `algorithms` (multi-pass paths and shapes, the fallback),
 * `edges` (capacities, offsets, count size, n = 0, host variants, partition into two buffers),
 * `tiles` (the GPU shape at several tile geometries, around their tile sizes), `large` (millions
 * of elements, and the time of a sequential host loop against the device), `status32` (32-bit
 * status words), `property` (random plans and cases drawn from the seed); in test_select_api.c,
 * `errors` (every bad-input status) and `args` (extra arguments).
 */
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "select_case.h"
#include "test_util.h"

/* ============================================================================================== */
/* Groups                                                                                         */
/* ============================================================================================== */

/* Returns 1 if the device runs a descriptor's type; a device that lacks it (fp64: rusticl's
 * llvmpipe) must refuse it with CLSCAN_UNSUPPORTED_BY_DEVICE, and the cases that need it are left
 * out. */
static int device_runs(clscan_scan_desc d) {
  const clscan_status st = clscan_context_supports(tu_context(), &d);
  if (st != CLSCAN_UNSUPPORTED_BY_DEVICE)
    assert_int_equal(st, CLSCAN_SUCCESS);
  return st == CLSCAN_SUCCESS;
}

/* Runs a case under cmocka: fails with its description. */
static void check_case(const sel_case *c) {
  char what[512], msg[512] = "";
  sel_describe(c, what, sizeof what);
  tu_progress(what);
  if (!sel_run_case(c, msg, sizeof msg))
    fail_msg("%s: %s", what, msg);
}

/* Sizes around the tiles of both shapes (GPU tiles of 4096 with 256 work-items; CPU tiles of
 * the tuning's cpu_tile), for every operation, partition into two buffers and partition with its
 * rejected part reversed. */
static void test_sizes(void **state) {
  (void)state;
  const size_t sizes[] = {1,    2,     3,     255,   4095,  4096,  4097,  8191,
                          8192, 12289, 32767, 32768, 32769, 65537, 100003};
  for (int shape = 1; shape <= 2; shape++) {
    for (size_t o = 0; o < 4; o++) {
      for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        sel_case c = sel_base_case(sel_all_ops[o], sizes[s]);
        c.shape = shape;
        check_case(&c);
      }
    }
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
      sel_case c = sel_base_case(CLSCAN_PARTITION, sizes[s]); /* into two buffers */
      c.split = 1;
      c.by_pred = s % 2;
      c.shape = shape;
      check_case(&c);
      c.split = 0; /* reversed */
      c.reverse = 1;
      c.by_pred = !c.by_pred;
      check_case(&c);
    }
  }
}

/* The GPU shape's tiles at several geometries (CLSCAN_TILE_WG x CLSCAN_TILE_VPT; int32 keeps 4
 * elements per vector, at most 32 per work-item): lane groups of fewer than 32 work-items, one
 * warp, two and eight lane groups per work-group, elements per work-item not a power of two, at
 * sizes around the tile (tile - 1, tile, tile + 1, 2 tiles + 3), with no, half and every element
 * selected (a full tile staged entirely as selected, or as rejected for partition, whose
 * rejected part also goes reversed), runs of mean length 1 and 64, and the fallback forced for half
 * selected; all with vector loads (offset 0), and at 2 tiles + 3 with half selected also with the
 * scalar loads (input offset 1). NVIDIA refuses work-groups below 32 work-items, so GPUs skip the
 * first geometry. */
static void test_tiles(void **state) {
  (void)state;
  const struct geometry { unsigned wg, vpt; } geo[] = {{8, 1}, {32, 3}, {64, 8}, {256, 2}};
  for (size_t g = tu_device_is_cpu() ? 0 : 1; g < sizeof geo / sizeof geo[0]; g++) {
    const size_t items = geo[g].vpt * 4 > 32 ? 32 : geo[g].vpt * 4, tile = geo[g].wg * items;
    const size_t sizes[] = {tile - 1, tile, tile + 1, 2 * tile + 3};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
      for (int op = 0; op < 5; op++) {
        for (int level = 0; level < 3; level++) {
          sel_case c = sel_base_case(op == 4 ? CLSCAN_SELECT : sel_all_ops[op], sizes[s]);
          c.by_pred = op == 4;
          c.shape = 1;
          c.tile_wg = geo[g].wg;
          c.tile_vpt = geo[g].vpt;
          if (c.op >= CLSCAN_UNIQUE) {
            if (level == 2)
              continue;
            c.mean = level == 0 ? 1 : 64;
          } else {
            c.pattern = level == 0 ? P_NONE : level == 1 ? P_RANDOM : P_ALL;
          }
          check_case(&c);
          if (c.op == CLSCAN_PARTITION) { /* the rejected part reversed */
            c.reverse = 1;
            check_case(&c);
            c.reverse = 0;
          }
          if (level == 1) {
            c.withhold = 3;
            check_case(&c);
          }
          if (level == 1 && s == 3) { /* the scalar loads (an offset of no whole vector) */
            c.in_off = 1;
            check_case(&c);
          }
        }
      }
    }
  }
}

/* Every built-in type: every operation in the CPU shape (select and partition by flags and by
 * predicate), and in the GPU shape select by predicate, partition by flags and run-length
 * encoding; partition into two buffers in both shapes, and with its rejected part reversed in the
 * GPU shape (each program is a build, so the matrix is kept to what differs per type). */
static void test_types(void **state) {
  (void)state;
  static const struct {
    clscan_select_op op;
    int pred, shape;
  } cells[] = {
      {CLSCAN_SELECT, 0, 2},
      {CLSCAN_SELECT, 1, 2},
      {CLSCAN_PARTITION, 1, 2},
      {CLSCAN_UNIQUE, 0, 2},
      {CLSCAN_RUN_LENGTH_ENCODE, 0, 2},
      {CLSCAN_SELECT, 1, 1},
      {CLSCAN_PARTITION, 0, 1},
      {CLSCAN_RUN_LENGTH_ENCODE, 0, 1},
  };
  for (int t = 0; t < CLSCAN_TYPE_COUNT; t++) {
    if (!device_runs((clscan_scan_desc){.type = (clscan_type)t}))
      continue;
    for (size_t i = 0; i < sizeof cells / sizeof cells[0]; i++) {
      sel_case c = sel_base_case(cells[i].op, 20011);
      c.type = (clscan_type)t;
      c.by_pred = cells[i].pred;
      c.shape = cells[i].shape;
      check_case(&c);
    }
    for (int shape = 1; shape <= 2; shape++) { /* partition into two buffers */
      sel_case c = sel_base_case(CLSCAN_PARTITION, 20011);
      c.type = (clscan_type)t;
      c.by_pred = shape == 2;
      c.shape = shape;
      c.split = 1;
      check_case(&c);
    }
    sel_case c = sel_base_case(CLSCAN_PARTITION, 20011); /* reversed, in the GPU shape's vectors */
    c.type = (clscan_type)t;
    c.shape = 1;
    c.reverse = 1;
    check_case(&c);
  }
}

/* Selection patterns: none, all, alternating, random fractions; runs of 1, n and random. */
static void test_patterns(void **state) {
  (void)state;
  const unsigned pcts[] = {0, 1, 10, 50, 90, 99, 100};
  for (int shape = 1; shape <= 2; shape++) {
    for (int op = 0; op < 2; op++) {
      for (int p = P_NONE; p <= P_ALTERNATE; p++) {
        sel_case c = sel_base_case(sel_all_ops[op], 50001);
        c.pattern = (sel_pattern)p;
        c.shape = shape;
        check_case(&c);
      }
      for (size_t i = 0; i < sizeof pcts / sizeof pcts[0]; i++) {
        sel_case c = sel_base_case(sel_all_ops[op], 50001);
        c.pct = pcts[i];
        c.shape = shape;
        check_case(&c);
      }
    }
    const unsigned means[] = {1, 2, 4, 100, 5000, 200000};
    for (int op = 2; op < 4; op++) {
      for (size_t i = 0; i < sizeof means / sizeof means[0]; i++) {
        sel_case c = sel_base_case(sel_all_ops[op], 70001);
        c.mean = means[i];
        c.shape = shape;
        check_case(&c);
      }
    }
  }
}

/* User types, built-in vector types, maps; predicates and equalities: every kind in the CPU
 * shape, the struct in the GPU shape too. */
static void test_user(void **state) {
  (void)state;
  const kind kinds[] = {K_USER, K_FLOAT2, K_MAP};
  for (int shape = 1; shape <= 2; shape++) {
    for (size_t k = 0; k < (shape == 1 ? 1u : 3u); k++) {
      for (size_t o = 0; o < 4; o++) {
        for (int pred = 0; pred <= (sel_all_ops[o] <= CLSCAN_PARTITION); pred++) {
          sel_case c = sel_base_case(sel_all_ops[o], 9001);
          c.kind = kinds[k];
          c.by_pred = pred;
          c.shape = shape;
          check_case(&c);
          if (c.op == CLSCAN_PARTITION && pred) { /* the rejected part reversed */
            c.reverse = 1;
            check_case(&c);
          }
        }
      }
    }
  }
}

/* The multi-pass paths, both single-pass shapes, and the forced fallback. */
static void test_algorithms(void **state) {
  (void)state;
  const clscan_algorithm multi[] = {CLSCAN_ALGO_BLELLOCH, CLSCAN_ALGO_HILLIS_STEELE,
                                    CLSCAN_ALGO_REDUCE_THEN_SCAN};
  const size_t sizes[] = {1, 1000, 70001};
  for (size_t a = 0; a < 3; a++) {
    for (size_t o = 0; o < 4; o++) {
      for (size_t s = 0; s < 3; s++) {
        sel_case c = sel_base_case(sel_all_ops[o], sizes[s]);
        c.algorithm = multi[a];
        c.by_pred = s == 1 && o < 2;
        check_case(&c);
      }
    }
    // Partition into two buffers, by flags and by predicate, the capacity below either part;
    // into one with its rejected part reversed.
    for (int pred = 0; pred <= 1; pred++) {
      sel_case c = sel_base_case(CLSCAN_PARTITION, 70001);
      c.algorithm = multi[a];
      c.split = 1;
      c.by_pred = pred;
      check_case(&c);
      c.cap_delta = -40000;
      check_case(&c);
      c.split = 0; /* one buffer, the rejected part reversed */
      c.reverse = 1;
      c.cap_delta = pred ? 3 : 0;
      check_case(&c);
    }
  }
  // The fallback: every 2nd or 3rd tile never publishes, in both shapes, small CPU tiles too,
  // with 8-byte counts (two status words a count; four with 32-bit words) and 4-byte ones.
  sel_expect_single_pass();
  for (int shape = 1; shape <= 2; shape++) {
    for (unsigned w = 2; w <= 3; w++) {
      for (size_t o = 0; o < 4; o++) {
        sel_case c = sel_base_case(sel_all_ops[o], shape == 1 ? 100003 : 300007);
        c.algorithm = CLSCAN_ALGO_SINGLE_PASS;
        c.shape = shape;
        c.withhold = w;
        c.count_size = w == 2 ? 8 : 4;
        check_case(&c);
        if (shape == 1 && w == 3) { /* the GPU shape's scalar loads */
          c.in_off = 1;
          check_case(&c);
        }
      }
      sel_case c = sel_base_case(CLSCAN_PARTITION, shape == 1 ? 100003 : 300007);
      c.algorithm = CLSCAN_ALGO_SINGLE_PASS;
      c.shape = shape;
      c.withhold = w;
      c.split = 1;
      c.by_pred = w == 3;
      check_case(&c);
      c.split = 0;
      c.reverse = 1;
      check_case(&c);
    }
  }
}

/* The partition's per-tile counts, which a later single pass on the same temporary slot reads as
 * status words, with 32-bit words: tile 0 of a partition in CPU tiles of 2^20 counts
 * c = 3 << 18 | 2 << 16 | 0xffff, whose low 32 bits, stored as they are, read as a word of epoch
 * 3 in the state of an inclusive prefix with the largest piece (cl/status.cl), the first word of
 * tile 4 of an int32 scan in CPU tiles of 64. Atomic max keeps it: at epoch 2 tile 4 never reads
 * as published, and an in-place scan (the host variant's) never ends (its fallbacks on tile 4 are
 * turned away by the owner's closed gate; the watchdog fails the test); at epoch 3 its prefix
 * reads as 0xffff | (its high piece << 16). cl/select_common.cl stores counts in 16-bit pieces
 * there (SEL_COUNT_TO_WORD); here a fresh context's slot runs the partition, then scans of 1024
 * ones at epochs 2 to 5, which must be exact. Not on rusticl's llvmpipe: its work-items stop after
 * 65535 loop iterations, fewer than a CPU tile of 2^20 elements takes (docs/testing-drivers.md). */
static void test_status32_counts_reuse(void) {
  if (strstr(tu_device_name(), "llvmpipe")) {
    printf("  counts reuse: skipped on llvmpipe (CPU tiles of 2^20 pass its loop limit)\n");
    return;
  }
  tu_progress("status32: partition counts read as status words by later scans");
  clscan_context *shared = tu_context(), *ctx = NULL;
  assert_int_equal(
      clscan_context_create(clscan_context_cl_context(shared), clscan_context_device(shared), &ctx),
      CLSCAN_SUCCESS);
  const size_t tile = (size_t)1 << 20, n = tile + 8, c = (size_t)3 << 18 | 2u << 16 | 0xffffu;
  int32_t *in = malloc(n * 4), *out = malloc(n * 4);
  unsigned char *flags = malloc(n);
  assert_true(in && out && flags);
  for (size_t i = 0; i < n; i++) {
    in[i] = (int32_t)i;
    flags[i] = i < c || i >= tile + 4;
  }
  tu_env_saved saved[4];
  tu_env_set("CLSCAN_TEST_STATUS32", "1", &saved[0]);
  tu_env_set("CLSCAN_SINGLE_PASS_CPU", "1", &saved[1]);
  tu_env_set("CLSCAN_CPU_TILE", "1048576", &saved[2]);
  tu_env_set("CLSCAN_TEST_WITHHOLD", NULL, &saved[3]);
  const clscan_select_desc part = {.op = CLSCAN_PARTITION, .algorithm = CLSCAN_ALGO_SINGLE_PASS};
  uint64_t count = 0;
  assert_int_equal(clscan_select_host(ctx, &part, in, flags, n, out, NULL, n, &count),
                   CLSCAN_SUCCESS);
  assert_int_equal(count, c + 4);
  for (size_t k = 0; k < n; k++) {
    const size_t want = k < c ? k : k < c + 4 ? tile + 4 + (k - c) : c + (k - c - 4);
    if (out[k] != (int32_t)want)
      fail_msg("partition: element %zu is %d, expected %zu", k, out[k], want);
  }
  tu_env_set("CLSCAN_CPU_TILE", "64", &saved[2]);
  const clscan_scan_desc scan = {
      .type = CLSCAN_INT32, .op = CLSCAN_ADD, .algorithm = CLSCAN_ALGO_SINGLE_PASS};
  const size_t m = 1024;
  for (size_t i = 0; i < m; i++)
    in[i] = 1;
  for (int launch = 2; launch <= 5; launch++) {
    assert_int_equal(clscan_scan_host(ctx, &scan, in, out, m), CLSCAN_SUCCESS);
    for (size_t i = 0; i < m; i++) {
      if (out[i] != (int32_t)(i + 1))
        fail_msg("scan at epoch %d after the partition: element %zu is %d, expected %zu", launch, i,
                 out[i], i + 1);
    }
  }
  for (int i = 3; i >= 0; i--)
    tu_env_restore(&saved[i]);
  free(in);
  free(out);
  free(flags);
  clscan_context_release(ctx);
}

/* The single pass with 32-bit status words (the CTest test select.status32 sets
 * CLSCAN_TEST_STATUS32=1; devices without 64-bit atomics have them anyway): select by flags and by
 * predicate, partition by flags and by predicate, unique and run-length encoding, in both shapes,
 * with every 3rd tile withheld (the fallback) and 8-byte counts (four 32-bit words a count, eight
 * a run-length state), every 2nd with 4-byte counts, and none; the GPU shape's scalar loads too.
 * About 100000 elements are selected, and runs start past index 2^16, so that the high 16-bit
 * piece of a count or index matters. Then the partition's per-tile counts under later scans
 * (test_status32_counts_reuse). */
static void test_status32(void **state) {
  (void)state;
  static const struct {
    clscan_select_op op;
    int pred;
  } ops[] = {{CLSCAN_SELECT, 0},    {CLSCAN_SELECT, 1}, {CLSCAN_PARTITION, 0},
             {CLSCAN_PARTITION, 1}, {CLSCAN_UNIQUE, 0}, {CLSCAN_RUN_LENGTH_ENCODE, 0}};
  for (int shape = 1; shape <= 2; shape++) {
    for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++) {
      for (int v = 0; v < 3; v++) {
        sel_case c = sel_base_case(ops[o].op, shape == 1 ? 200003 : 300007);
        c.by_pred = ops[o].pred;
        c.algorithm = CLSCAN_ALGO_SINGLE_PASS;
        c.shape = shape;
        c.withhold = v == 0 ? 0 : v == 1 ? 3 : 2;
        c.count_size = v == 2 ? 4 : 8;
        check_case(&c);
        if (ops[o].op == CLSCAN_PARTITION) { /* into two buffers; reversed */
          c.split = 1;
          check_case(&c);
          c.split = 0;
          c.reverse = 1;
          check_case(&c);
          c.reverse = 0;
        }
        if (shape == 1 && v == 1) { /* the GPU shape's scalar loads */
          c.in_off = 1;
          check_case(&c);
        }
      }
    }
  }
  test_status32_counts_reuse();
}

/* A partition case of n elements in a layout (split: into two buffers; reverse: its rejected part
 * reversed), shape and way of selecting. */
static sel_case layout_case(size_t n, int split, int reverse, int pred, int shape) {
  sel_case c = sel_base_case(CLSCAN_PARTITION, n);
  c.split = split;
  c.reverse = reverse;
  c.by_pred = pred;
  c.shape = shape;
  return c;
}

/* The partitions' own layouts in both shapes, by flags and by predicate: into two buffers
 * (capacities of both buffers, the same, above, at and below either part) and into one with its
 * rejected part reversed (capacities of n and more); for each, 0, 10, 90 and 100 % selected,
 * offsets (the GPU shape's scalar and vector loads) and 4-byte counts, n = 0 and 1, and the host
 * variant. */
static void test_layout_edges(void) {
  for (int shape = 1; shape <= 2; shape++) {
    for (int pred = 0; pred <= 1; pred++) {
      for (int split = 1; split >= 0; split--) {
        const int reverse = !split;
        const long deltas[] = {5, 0, -1, -30000, -45000, -60000, -90001};
        for (size_t i = 0; i < sizeof deltas / sizeof deltas[0]; i++) {
          sel_case c = layout_case(90001, split, reverse, pred, shape);
          c.cap_delta = deltas[i];
          if (split || deltas[i] >= 0) /* one buffer holds all n */
            check_case(&c);
        }
        const unsigned pcts[] = {0, 10, 90, 100};
        for (size_t i = 0; i < sizeof pcts / sizeof pcts[0]; i++) {
          sel_case c = layout_case(90001, split, reverse, pred, shape);
          c.pct = pcts[i];
          c.cap_delta = split ? -40000 : (long)(i % 2) * 5;
          check_case(&c);
        }
        sel_case c = layout_case(33333, split, reverse, pred, shape);
        c.in_off = 3;
        c.flags_off = 5;
        c.out_off = 7;
        c.len_off = 9;
        c.count_off = 2;
        check_case(&c);
        c.in_off = 32;
        c.flags_off = 48;
        c.count_size = 4;
        check_case(&c);
        for (size_t n = 0; n <= 1; n++) {
          sel_case z = layout_case(n, split, reverse, pred, shape);
          check_case(&z);
        }
        sel_case h = layout_case(12345, split, reverse, pred, shape);
        h.host = 1;
        check_case(&h);
        h.cap_delta = split ? -8000 : 3;
        check_case(&h);
      }
    }
  }
}

/* Capacities below the count, offsets, count sizes, n = 0, the host variant. */
static void test_edges(void **state) {
  (void)state;
  for (int shape = 1; shape <= 2; shape++) {
    for (size_t o = 0; o < 4; o++) {
      // -70002: a capacity of 19999, within the output of every operation but partition (and
      // within a vector of the GPU shape's stores).
      const long deltas[] = {-1, -100, -40000, -70002, -100000, 5};
      for (size_t i = 0; i < sizeof deltas / sizeof deltas[0]; i++) {
        if (sel_all_ops[o] == CLSCAN_PARTITION && deltas[i] < 0)
          continue;
        sel_case c = sel_base_case(sel_all_ops[o], 90001);
        c.cap_delta = deltas[i];
        c.shape = shape;
        check_case(&c);
      }
      sel_case c = sel_base_case(sel_all_ops[o], 33333);
      c.in_off = 3;
      c.flags_off = 5;
      c.out_off = 7;
      c.len_off = 9;
      c.count_off = 2;
      c.shape = shape;
      check_case(&c);
      c.count_size = 4;
      c.type = CLSCAN_INT8;
      check_case(&c);
      // The GPU shape's vector loads from offsets of whole vectors (16 int8, 4 int32), and its
      // scalar loads where only the flags' offset is not one (runs read no flags: vectors).
      c.in_off = 32;
      c.flags_off = 48;
      check_case(&c);
      c.type = CLSCAN_INT32;
      c.count_size = 8;
      check_case(&c);
      c.flags_off = 2;
      check_case(&c);
      sel_case z = sel_base_case(sel_all_ops[o], 0);
      z.shape = shape;
      check_case(&z);
      z.count_size = 4;
      check_case(&z);
      sel_case h = sel_base_case(sel_all_ops[o], 12345);
      h.host = 1;
      h.shape = shape;
      check_case(&h);
      h.cap_delta = sel_all_ops[o] == CLSCAN_PARTITION ? 0 : -12345;
      check_case(&h);
    }
  }
  for (size_t o = 0; o < 4; o++) {
    sel_case z = sel_base_case(sel_all_ops[o], 0);
    z.algorithm = CLSCAN_ALGO_BLELLOCH;
    check_case(&z);
  }
  test_layout_edges();
}

/* The sequential host loop doing an operation's job on int32 (returns the count). */
static uint64_t host_loop(clscan_select_op op, const int32_t *in, const unsigned char *flags,
                          size_t n, int32_t *out, uint32_t *lengths) {
  size_t k = 0;
  if (op == CLSCAN_SELECT || op == CLSCAN_PARTITION) {
    for (size_t i = 0; i < n; i++) {
      if (flags[i])
        out[k++] = in[i];
    }
    if (op == CLSCAN_PARTITION) {
      size_t r = k;
      for (size_t i = 0; i < n; i++) {
        if (!flags[i])
          out[r++] = in[i];
      }
    }
    return k;
  }
  size_t start = 0;
  for (size_t i = 0; i < n; i++) {
    if (i == 0 || in[i] != in[i - 1]) {
      if (k > 0 && op == CLSCAN_RUN_LENGTH_ENCODE)
        lengths[k - 1] = (uint32_t)(i - start);
      start = i;
      out[k++] = in[i];
    }
  }
  if (k > 0 && op == CLSCAN_RUN_LENGTH_ENCODE)
    lengths[k - 1] = (uint32_t)(n - start);
  return k;
}

/* Times an operation on the device (best of 3) against the host loop, and prints both. */
static void time_op(clscan_select_op op, size_t n) {
  clscan_context *ctx = tu_context();
  int32_t *in = malloc(n * 4), *out = malloc(n * 4);
  uint32_t *lengths = malloc(n * 4);
  unsigned char *flags = malloc(n);
  assert_true(in && out && lengths && flags);
  uint64_t s = tu_seed();
  int32_t v = 0;
  for (size_t i = 0; i < n; i++) {
    if (tu_random_size(&s, 0, 3) == 0)
      v++;
    in[i] = op >= CLSCAN_UNIQUE ? v : (int32_t)i;
    flags[i] = tu_random_size(&s, 0, 1) ? 1 : 0;
  }
  // Both sides best of three, on memory they have touched before.
  double host = 1e30;
  uint64_t k = 0;
  for (int rep = 0; rep < 3; rep++) {
    double t0 = tu_seconds();
    k = host_loop(op, in, flags, n, out, lengths);
    double t = tu_seconds() - t0;
    host = t < host ? t : host;
  }
  int by_flags = op <= CLSCAN_PARTITION, rle = op == CLSCAN_RUN_LENGTH_ENCODE;
  cl_mem bi = tu_buffer(ctx, CL_MEM_READ_WRITE, n * 4), bf = tu_buffer(ctx, CL_MEM_READ_WRITE, n);
  cl_mem bo = tu_buffer(ctx, CL_MEM_READ_WRITE, n * 4), bc = tu_buffer(ctx, CL_MEM_READ_WRITE, 8);
  cl_mem bl = tu_buffer(ctx, CL_MEM_READ_WRITE, n * 4);
  assert_true(tu_write(ctx, NULL, bi, 0, n * 4, in) && tu_write(ctx, NULL, bf, 0, n, flags));
  clscan_select_desc d = {.op = op, .count_size = 4};
  clscan_select_plan *plan = NULL;
  assert_int_equal(clscan_select_plan_create(ctx, &d, &plan), CLSCAN_SUCCESS);
  const clscan_select_buffers b = {.in = bi,
                                   .flags = by_flags ? bf : NULL,
                                   .out = bo,
                                   .out_capacity = n,
                                   .lengths = rle ? bl : NULL,
                                   .count = bc};
  double best = 1e30;
  for (int rep = 0; rep < 3; rep++) {
    double t1 = tu_seconds();
    assert_int_equal(clscan_select_enqueue(plan, NULL, &b, n, 0, NULL, NULL), CLSCAN_SUCCESS);
    assert_int_equal(clFinish(clscan_context_queue(ctx)), CL_SUCCESS);
    double t = tu_seconds() - t1;
    best = t < best ? t : best;
  }
  uint32_t count = 0;
  assert_true(tu_read(ctx, NULL, bc, 0, 4, &count));
  assert_int_equal(count, k);
  int32_t *got = malloc(n * 4);
  assert_non_null(got);
  size_t m = op == CLSCAN_PARTITION ? n : (size_t)k;
  assert_true(tu_read(ctx, NULL, bo, 0, m * 4, got));
  assert_memory_equal(got, out, m * 4);
  if (rle) {
    assert_true(tu_read(ctx, NULL, bl, 0, m * 4, got));
    assert_memory_equal(got, lengths, m * 4);
  }
  printf("%s, int32, n %zu: device %.2f ms, sequential host loop %.2f ms (%.2fx)\n",
         op == CLSCAN_SELECT      ? "select by flags"
         : op == CLSCAN_PARTITION ? "partition by flags"
         : op == CLSCAN_UNIQUE    ? "unique"
                                  : "run-length encode",
         n, 1e3 * best, 1e3 * host, host / best);
  clscan_select_plan_release(plan);
  cl_mem all[] = {bi, bf, bo, bc, bl};
  for (size_t i = 0; i < 5; i++)
    clReleaseMemObject(all[i]);
  free(got);
  free(in);
  free(out);
  free(lengths);
  free(flags);
}

/* Millions of elements; and the device's time against a sequential host loop (printed). */
static void test_large(void **state) {
  (void)state;
  for (size_t o = 0; o < 4; o++) {
    sel_case c = sel_base_case(sel_all_ops[o], 3000017);
    check_case(&c);
  }
  // Timing at 2^24 (2^26 with CLSCAN_TEST_SELECT_BIG=1): int32, select and partition by flags
  // (half selected), unique and run-length encoding (runs of mean length 4).
  size_t n = getenv("CLSCAN_TEST_SELECT_BIG") ? (size_t)1 << 26 : (size_t)1 << 24;
  for (size_t o = 0; o < 4; o++)
    time_op(sel_all_ops[o], n);
}

/* ============================================================================================== */
/* Random cases                                                                                   */
/* ============================================================================================== */

/* Plans a property run draws its cases from: each program is a build, so the cases share a few
 * combinations of what is compiled into the kernels. */
#define PROPERTY_COMBOS 12

/* Draws what a plan compiles: the operation and how it selects (flags or predicate), the element
 * type or kind (a user struct, float2, a map), the algorithm (AUTO, the single pass in either
 * shape or by default, or a multi-pass path), the forced fallback and the GPU tile (single pass
 * only), the count size, and for a partition its rejected part reversed. */
static sel_case draw_combo(uint64_t *r) {
  sel_case c = sel_base_case(sel_all_ops[tu_draw(r, 4)], 0);
  c.by_pred = c.op <= CLSCAN_PARTITION && tu_draw(r, 2);
  if (tu_draw(r, 4) == 0) {
    c.kind = (kind)(1 + tu_draw(r, 3));
  } else {
    do
      c.type = (clscan_type)tu_draw(r, CLSCAN_TYPE_COUNT);
    while (!device_runs((clscan_scan_desc){.type = c.type}));
  }
  static const clscan_algorithm multi[] = {CLSCAN_ALGO_BLELLOCH, CLSCAN_ALGO_HILLIS_STEELE,
                                           CLSCAN_ALGO_REDUCE_THEN_SCAN};
  const size_t a = tu_draw(r, 6);
  c.algorithm = a == 0 ? CLSCAN_ALGO_AUTO : a <= 3 ? CLSCAN_ALGO_SINGLE_PASS : multi[tu_draw(r, 3)];
  if (c.algorithm == CLSCAN_ALGO_SINGLE_PASS) {
    c.shape = (int)(a - 1); /* 0 the device's, 1 GPU, 2 CPU */
    c.withhold = tu_draw(r, 4) == 0 ? 2 + (unsigned)tu_draw(r, 2) : 0;
    const struct geometry { unsigned wg, vpt; } geo[] = {{0, 0}, {8, 1}, {32, 3}, {64, 8}};
    const size_t g = tu_draw(r, 4);
    if (c.shape == 1 && (g != 1 || tu_device_is_cpu())) {
      c.tile_wg = geo[g].wg;
      c.tile_vpt = geo[g].vpt;
    }
  }
  c.count_size = tu_draw(r, 2) ? 8 : 4;
  c.reverse = c.op == CLSCAN_PARTITION && tu_draw(r, 3) == 0;
  return c;
}

/* Draws one case on a combination: the pattern (a random fraction, none, all, alternating, or
 * runs of a mean length), n (mostly small, some to 400000), offsets (none, whole vectors, or
 * arbitrary), for a partition in order one buffer or two, the output capacity (n, more, or less
 * where it may be), and the host variant. */
static void draw_case(sel_case *c, uint64_t *r) {
  static const unsigned pcts[] = {0, 1, 10, 50, 90, 99, 100};
  static const unsigned means[] = {1, 2, 4, 64, 5000};
  const size_t p = tu_draw(r, 6);
  c->pattern = p < 2 ? P_RANDOM : p == 2 ? P_NONE : p == 3 ? P_ALL : p == 4 ? P_ALTERNATE : P_RUNS;
  if (c->op >= CLSCAN_UNIQUE && tu_draw(r, 3))
    c->pattern = P_RUNS;
  c->pct = tu_draw(r, 2) ? pcts[tu_draw(r, 7)] : (unsigned)tu_draw(r, 101);
  c->mean = means[tu_draw(r, 5)];
  const size_t s = tu_draw(r, 10);
  c->n = s < 5 ? tu_draw(r, 2000) : s < 8 ? tu_draw(r, 100000) : tu_draw(r, 400000);
  size_t *offs[] = {&c->in_off, &c->flags_off, &c->out_off, &c->len_off, &c->count_off};
  const size_t o = tu_draw(r, 3);
  for (size_t i = 0; i < 5; i++)
    *offs[i] = o == 0 ? 0 : o == 1 ? 16 * tu_draw(r, 3) : tu_draw(r, 10);
  c->split = c->op == CLSCAN_PARTITION && !c->reverse && tu_draw(r, 3) == 0;
  // A partition into one buffer writes all n elements: its capacity is at least n.
  const size_t cap = tu_draw(r, 6);
  const int shorter = cap == 0 && (c->op != CLSCAN_PARTITION || c->split);
  c->cap_delta = shorter ? -(long)tu_draw(r, c->n + 1) : cap == 1 ? (long)tu_draw(r, 10) : 0;
  c->host = tu_draw(r, 8) == 0;
  c->seed = tu_mix(*r, 1);
}

/* Random cases (the CTest test select.property): PROPERTY_COMBOS plans drawn from the suite's
 * seed, then cases on them drawn in turn, 400 or 60 seconds' worth (tu_property_more()); a
 * failure prints the case (its seed included). */
static void test_property(void **state) {
  (void)state;
  uint64_t r = tu_mix(tu_seed(), 0x5e1ec7);
  sel_case combos[PROPERTY_COMBOS];
  for (size_t k = 0; k < PROPERTY_COMBOS; k++)
    combos[k] = draw_combo(&r);
  size_t ran = 0;
  for (; tu_property_more(ran, 400, 60.0); ran++) {
    sel_case c = combos[tu_draw(&r, PROPERTY_COMBOS)];
    draw_case(&c, &r);
    check_case(&c);
  }
  printf("  property: %zu cases on %d plans in %.1f s\n", ran, PROPERTY_COMBOS,
         tu_property_elapsed());
}

/* ============================================================================================== */
/* main                                                                                           */
/* ============================================================================================== */

typedef struct group {
  const char *name;
  struct CMUnitTest tests[5];
  size_t count;
} group;

int main(int argc, char **argv) {
  const group groups[] = {
      {"sizes", {cmocka_unit_test(test_sizes)}, 1},
      {"types", {cmocka_unit_test(test_types)}, 1},
      {"patterns", {cmocka_unit_test(test_patterns)}, 1},
      {"user", {cmocka_unit_test(test_user)}, 1},
      {"algorithms", {cmocka_unit_test(test_algorithms)}, 1},
      {"edges", {cmocka_unit_test(test_edges), cmocka_unit_test(test_timed_edges)}, 2},
      {"tiles", {cmocka_unit_test(test_tiles)}, 1},
      {"large", {cmocka_unit_test(test_large)}, 1},
      {"args",
       {cmocka_unit_test(test_args), cmocka_unit_test(test_args_errors),
        cmocka_unit_test(test_args_errors_values), cmocka_unit_test(test_args_read_write)},
       4},
      {"errors",
       {cmocka_unit_test(test_errors_desc), cmocka_unit_test(test_errors_enqueue),
        cmocka_unit_test(test_errors_operations), cmocka_unit_test(test_errors_host),
        cmocka_unit_test(test_errors_sub_buffers)},
       5},
      {"status32", {cmocka_unit_test(test_status32)}, 1},
      {"property", {cmocka_unit_test(test_property)}, 1},
  };
  const size_t ngroups = sizeof groups / sizeof groups[0];
  if (argc > 1 && strcmp(argv[1], "--list") == 0) {
    for (size_t i = 0; i < ngroups; i++)
      printf("%s\n", groups[i].name);
    return 0;
  }
  if (!tu_context())
    return 1;
  int failed = 0;
  int count = argc > 1 ? argc - 1 : (int)ngroups;
  for (int i = 0; i < count; i++) {
    const char *name = argc > 1 ? argv[i + 1] : groups[i].name;
    const group *g = NULL;
    for (size_t j = 0; j < ngroups; j++) {
      if (strcmp(groups[j].name, name) == 0)
        g = &groups[j];
    }
    if (!g) {
      fprintf(stderr, "test_select: unknown group %s (see --list)\n", name);
      return 2;
    }
    failed +=
        _cmocka_run_group_tests(g->name, g->tests, g->count, tu_group_setup, tu_group_teardown);
  }
  tu_context_release();
  printf("clscan tests: seed %" PRIu64 "\n", tu_seed());
  return failed ? 1 : 0;
}
