/*
 * clscan tests: the fixture of the extra-argument tests (test_args*.c): the int32 map's
 * arguments, random int32 data, which algorithm cases the device runs, device buffers filled with
 * data or poison, and the check of an int32 output and the guards after it.
 */
#ifndef CLSCAN_ARGS_FIXTURE_H_
#define CLSCAN_ARGS_FIXTURE_H_

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "algo_cases.h"
#include "test_util.h"

/* The map of the int32 cases: x * w[i] + s, with a weight buffer w and a scalar s. */
extern const clscan_arg int_args[2];

/* Random int32 values in [-lim, lim]. */
void fill_ints(uint64_t seed, int32_t *v, size_t n, int32_t lim);

/* Returns 1 if the device runs an algorithm case (rusticl 22 refuses the single pass: it must say
 * so with CLSCAN_UNSUPPORTED_BY_DEVICE, and the case is left out). */
int device_runs(const tu_algo_case *a);

/* Checks n results from a device buffer against the reference, and the guards after them. */
void check_out(uint64_t seed, const char *what, cl_mem out, size_t off, const int32_t *want,
               size_t n);

/* The tests of each file, run by test_args.c as one cmocka group each. */
extern const struct CMUnitTest args_scan_tests[], args_op_tests[], args_reduce_tests[],
    args_chain_tests[], args_errors_tests[], args_keys_tests[];
extern const size_t args_scan_count, args_op_count, args_reduce_count, args_chain_count,
    args_errors_count, args_keys_count;

#endif /* CLSCAN_ARGS_FIXTURE_H_ */
