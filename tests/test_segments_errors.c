/*
 * clscan tests, segments: every bad-input status of the offsets and batched entry points and of
 * the new descriptor fields, with the output untouched.
 */
#include <string.h>

#include "segments_fixture.h"

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

/* ============================================================================================== */
/* The tests of this file                                                                         */
/* ============================================================================================== */

const struct CMUnitTest segments_errors_tests[] = {
    cmocka_unit_test(test_desc_errors),
    cmocka_unit_test(test_call_errors),
};
const size_t segments_errors_count = sizeof segments_errors_tests / sizeof segments_errors_tests[0];
