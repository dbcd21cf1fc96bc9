/*
 * clscan tests: the fixture of the error tests (test_errors*.c): int32 buffers of N elements, the
 * int32 add descriptor, and the checks of a call that must fail.
 *
 * Each failing call must return its documented status, leave the output (device buffer or host
 * array) byte-identical, leave no event behind, and describe itself in
 * clscan_last_error_detail().
 */
#ifndef CLSCAN_ERRORS_FIXTURE_H_
#define CLSCAN_ERRORS_FIXTURE_H_

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "test_util.h"

/* Elements of the fixture's buffers. */
#define N 64
#define BYTES (N * 4)

/* A sentinel that a failing call must replace with NULL in its event or handle output. */
#define NOT_SET ((void *)(uintptr_t)0x1)

/* The fixture's input (0, 1, ..., N - 1 as int32) and output buffers of BYTES bytes. */
extern cl_mem g_in, g_out;
/* What host output arrays hold before a call that must fail. */
extern const int untouched[4];
/* int32 add. */
extern clscan_scan_desc g_desc;

/* Group setup and teardown: the context and the fixture's buffers. */
int ef_setup(void **state);
int ef_teardown(void **state);

/* Fills a buffer with a pattern and snapshots it. */
void ef_snapshot(cl_mem buf, size_t bytes, unsigned char *copy);

/* Checks a failed call: its status, its detail, and that the buffer (if any) kept its bytes. */
void ef_check_failure(const char *call, int line, clscan_status got, clscan_status want, cl_mem buf,
                      const unsigned char *before, size_t bytes);

/* Runs a call that must fail with `want`, with the fixture's output buffer snapshotted. */
#define EXPECT_FAIL(want, call)                                             \
  do {                                                                      \
    unsigned char before_[BYTES];                                           \
    ef_snapshot(g_out, BYTES, before_);                                     \
    clscan_status got_ = (call);                                            \
    ef_check_failure(#call, __LINE__, got_, (want), g_out, before_, BYTES); \
  } while (0)

/* Runs a call that must fail, checking a given buffer (size `bytes`) instead. */
#define EXPECT_FAIL_ON(want, buf, bytes, call)                                \
  do {                                                                        \
    unsigned char *before_ = malloc(bytes);                                   \
    assert_non_null(before_);                                                 \
    ef_snapshot((buf), (bytes), before_);                                     \
    clscan_status got_ = (call);                                              \
    ef_check_failure(#call, __LINE__, got_, (want), (buf), before_, (bytes)); \
    free(before_);                                                            \
  } while (0)

/* Runs a call that does not touch device memory and must fail with `want`. */
#define EXPECT_STATUS(want, call)                                   \
  do {                                                              \
    clscan_status got_ = (call);                                    \
    ef_check_failure(#call, __LINE__, got_, (want), NULL, NULL, 0); \
  } while (0)

/* Asserts that a call succeeded. */
#define EXPECT_OK(call)                                                                     \
  do {                                                                                      \
    clscan_status got_ = (call);                                                            \
    if (got_ != CLSCAN_SUCCESS)                                                             \
      fail_msg("line %d: %s returned %s (%s)", __LINE__, #call, clscan_status_string(got_), \
               clscan_last_error_detail());                                                 \
  } while (0)

/* The enqueue entry points, so that every enqueue check runs through each. */
typedef enum entry { VIA_SCAN, VIA_PLAN, VIA_PLAN_TIMED, VIA_COUNT } entry;
extern const char *const entry_names[VIA_COUNT];

/* Enqueues through an entry point and checks that a failure hands out no events. */
clscan_status enqueue_via(entry via, clscan_plan *plan, const clscan_scan_desc *desc,
                          cl_command_queue q, cl_mem in, size_t in_off, cl_mem out, size_t out_off,
                          size_t n, cl_uint num_wait, const cl_event *wait);

/* Creates the fixture's int32 add plan. */
clscan_plan *fixture_plan(void);

/* The tests of each file, run by test_errors.c as one cmocka group each. */
extern const struct CMUnitTest errors_args_tests[], errors_buffers_tests[], errors_queues_tests[],
    errors_api_tests[];
extern const size_t errors_args_count, errors_buffers_count, errors_queues_count, errors_api_count;

/* Partitions `dev` into sub-devices of one compute unit each and returns the first (the caller
 * releases it), or NULL where the device cannot be partitioned. */
cl_device_id first_sub_device(cl_device_id dev);

#endif /* CLSCAN_ERRORS_FIXTURE_H_ */
