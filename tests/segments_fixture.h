/*
 * clscan tests: the fixture of the segment tests (test_segments*.c): the five algorithm runs at
 * small tiles, the sizes around them, failures that print their case, and one segmented scan (by
 * keys or by offsets) run on a fresh plan and checked against the host reference.
 */
#ifndef CLSCAN_SEGMENTS_FIXTURE_H_
#define CLSCAN_SEGMENTS_FIXTURE_H_

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "test_util.h"

/* Every scan algorithm, and the shapes of the single pass: run r uses algos[r] with the small
 * geometry of run_tuning(r) (run 4 is the single pass's CPU shape, run 3 its GPU shape). */
#define NUM_RUNS 5
extern const clscan_algorithm algos[NUM_RUNS];

/* Run r's tuning: NVIDIA needs work-groups of at least a warp, so GPUs get 32 work-items where the
 * table says 4 (tiles of 256 int32 elements, still crossed by the larger sizes). */
const clscan_tuning *run_tuning(int r);
/* Run r's name in messages. */
extern const char *const run_names[NUM_RUNS];

/* Returns 1 if the device runs run r's algorithm (rusticl 22 refuses the single pass: it must say
 * so with CLSCAN_UNSUPPORTED_BY_DEVICE, and the run is left out). */
int run_ok(int r);

/* Sizes around the small tiles (32 int32 elements for tile_wg 4 x vpt 2 x 4) and blocks. */
extern const size_t sizes[10];
#define NUM_SIZES (sizeof sizes / sizeof sizes[0])

/* Prints a failure with its case description and fails the test. */
void failf(const char *what, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

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

/* Runs a case on a fresh plan (keys: clscan_plan_enqueue_segmented; offsets:
 * clscan_plan_enqueue_offsets) and checks it. */
void run_seg_case(const seg_case *c);

/* The tests of each file, run by test_segments.c as one cmocka group each (huge only by name). */
extern const struct CMUnitTest segments_keys_tests[], segments_offsets_tests[],
    segments_offsets_gpu_tests[], segments_rows_tests[], segments_huge_tests[],
    segments_errors_tests[];
extern const size_t segments_keys_count, segments_offsets_count, segments_offsets_gpu_count,
    segments_rows_count, segments_huge_count, segments_errors_count;

#endif /* CLSCAN_SEGMENTS_FIXTURE_H_ */
