/*
 * clscan tests, segments: batched scans of rows without padding through every algorithm, rows
 * with padding and columns, in place and not, with init and exclusive, and the host call; rows of
 * lengths around the tiles' strides through the tile kernels at small tiles, with a map of the
 * row index.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ref_scan.h"
#include "segments_fixture.h"

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
/* The tests of this file                                                                         */
/* ============================================================================================== */

const struct CMUnitTest segments_rows_tests[] = {
    cmocka_unit_test(test_rows),
    cmocka_unit_test(test_rows_tiles),
};
const size_t segments_rows_count = sizeof segments_rows_tests / sizeof segments_rows_tests[0];
