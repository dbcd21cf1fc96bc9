/*
 * clscan tests, segments: more than 2^32 int8 elements in place, with uint64 offsets around
 * 2^32, and batched rows longer than 2^31 and of 1000 elements. The group huge runs only when
 * named: it needs 4.5 GiB of device memory, and a case the device cannot hold is skipped.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "segments_fixture.h"

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
/* The tests of this file                                                                         */
/* ============================================================================================== */

const struct CMUnitTest segments_huge_tests[] = {
    cmocka_unit_test(test_huge_offsets),
    cmocka_unit_test(test_huge_rows),
};
const size_t segments_huge_count = sizeof segments_huge_tests / sizeof segments_huge_tests[0];
