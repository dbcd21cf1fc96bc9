/*
 * clscan tests: the fixture of the reduction tests (test_reduce*.c): the two reduction shapes, a
 * small GPU-shaped geometry, and one reduction case run (through a plan on device buffers or
 * clscan_reduce_host) and checked against the host reference, with its guards and input.
 */
#ifndef CLSCAN_REDUCE_FIXTURE_H_
#define CLSCAN_REDUCE_FIXTURE_H_

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "test_util.h"

/* The two reduction shapes, as the tuning selects them. */
extern const clscan_shape shapes[2];
extern const char *const shape_names[2];

/* A small GPU-shaped geometry, so that tiles and groups are crossed at small sizes: 4 work-items
 * on a CPU device, one warp (the least NVIDIA accepts) on a GPU. */
clscan_tuning small_gpu(void);

/* One reduction to run and check. */
typedef struct reduce_case {
  tu_case c;            /* descriptor (spec or type/op), init, n, in_off, out_off, seed */
  clscan_tuning tuning; /* the plan's tuning (zero fields: the table's) */
  int host;             /* 1: clscan_reduce_host */
} reduce_case;

/* Runs a case and fails the test with its description if it does not pass. */
void expect_case(const reduce_case *r);

/* Returns 1 if the context's device runs a descriptor (double needs fp64). */
int supported(clscan_type t);

/* The tests of each file, run by test_reduce.c as one cmocka group each (faults only in
 * fault-injection builds). */
extern const struct CMUnitTest reduce_types_tests[], reduce_shapes_tests[], reduce_user_tests[],
    reduce_large_tests[], reduce_errors_tests[];
extern const size_t reduce_types_count, reduce_shapes_count, reduce_user_count, reduce_large_count,
    reduce_errors_count;
#ifdef CLSCAN_FAULT_INJECTION
extern const struct CMUnitTest reduce_faults_tests[];
extern const size_t reduce_faults_count;
#endif

#endif /* CLSCAN_REDUCE_FIXTURE_H_ */
