/*
 * clscan tests: the algorithm cases a scan test runs through (every algorithm, and the single
 * pass in both shapes), with the plans, tiles and sizes around them, and two ways to fail a
 * cmocka test. Shared by test_args.c and test_half.c; the functions fail the running cmocka test
 * on an unexpected status.
 */
#ifndef CLSCAN_ALGO_CASES_H_
#define CLSCAN_ALGO_CASES_H_

#include <stddef.h>
#include <stdint.h>

#include "clscan.h"

/* One algorithm, and for the single pass its shape. */
typedef struct tu_algo_case {
  const char *name;
  clscan_algorithm algorithm;
  clscan_shape shape;
} tu_algo_case;

/* auto, blelloch, hillis-steele, reduce-then-scan, the single pass CPU- and GPU-shaped. */
extern const tu_algo_case tu_algo_cases[];
#define TU_ALGO_CASE_COUNT 6

/* Creates a plan of desc for an algorithm case. With withhold, CLSCAN_TEST_WITHHOLD holds it
 * while the plan is created (the plan reads it then). Fails the test if the plan is refused. */
clscan_plan *tu_algo_plan(const clscan_scan_desc *desc, const tu_algo_case *a,
                          const char *withhold);

/* Elements per tile (or block) of a plan's algorithm, for sizes around its boundaries; vec is the
 * plan's vector width (16 bytes over the larger of its input and output elements). */
size_t tu_algo_tile(const clscan_plan *plan, const tu_algo_case *a, size_t vec);

/* Writes sizes around a tile of b elements (1, 2, b - 1, b, b + 1, 2 b + 3) and a random larger
 * one to out; returns their count. */
size_t tu_sizes_around(size_t b, uint64_t *s, size_t out[8]);

/* Fails the running test with a formatted message that names the seed. */
void tu_failf(uint64_t seed, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Fails the running test unless a call returned CLSCAN_SUCCESS; `what` names the call. */
void tu_ok(clscan_status st, const char *what);

#endif /* CLSCAN_ALGO_CASES_H_ */
