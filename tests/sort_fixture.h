/*
 * clscan tests: the fixture of the radix sort tests (test_sort*.c): how keys are generated, one
 * sort case (keys and index pairs at offsets, in one buffer or two) run on a plan and checked
 * against the host reference with its guards, the key types, the algorithms, and the build option
 * that asserts the GPU shape's ranking.
 */
#ifndef CLSCAN_SORT_FIXTURE_H_
#define CLSCAN_SORT_FIXTURE_H_

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "test_util.h"

/* How keys are generated. */
typedef enum gen {
  GEN_RANDOM,   /* uniform random bits */
  GEN_FEW,      /* few distinct keys (random among 5) */
  GEN_EQUAL,    /* all keys equal */
  GEN_SORTED,   /* already in the sort's order */
  GEN_REVERSED, /* in the reverse of the sort's order */
  GEN_SPECIAL,  /* floats: NaNs, infinities, zeros, denormals and ordinary values */
  GEN_LOW8,     /* random bits 0..7, the other bits zero (passes skipped, one runs) */
  GEN_MID8,     /* random bits 8..15 only (one pass runs, between skipped ones) */
  GEN_LOW16,    /* random bits 0..15 (two passes run) */
  GEN_LOW24     /* random bits 0..23 (three passes run) */
} gen;

/* Returns 1 for the floating-point key types that GEN_SPECIAL fills (float and double). */
int is_float(clscan_type t);

/* Fills n keys by `g` (sorted and reversed through the reference). */
void fill_keys(const clscan_sort_desc *d, gen g, uint64_t seed, void *keys, size_t n);

/* One sort case. */
typedef struct sort_case {
  clscan_sort_desc desc;
  gen g;
  size_t n;
  size_t keys_off, values_off;
  int shared; /* 1: keys and values in one buffer (values after the keys and a guard) */
} sort_case;

/* Fills the values: value i carries i (4 bytes: the index itself; else bytes of a hash). */
void fill_values(size_t vs, void *values, size_t n);

/* Runs one case on a plan and checks keys, values and guards against the reference. */
void run_case(clscan_sort_plan *plan, const sort_case *c, uint64_t seed);

/* Creates a plan for the case's descriptor and runs the case on it. */
void check(const sort_case *c, uint64_t seed);

/* Every key type. */
extern const clscan_type all_types[11];
#define TYPE_COUNT (sizeof all_types / sizeof all_types[0])

/* The algorithms: LSD and Onesweep, which every device runs (Onesweep with 32-bit status words
 * where the device lacks 64-bit atomics), so a plan either cannot create fails the test. */
int algorithms(clscan_sort_algorithm out[2]);

/* The case at each of `count` sizes, on one plan (seeds from `seed` up). */
void run_sizes(sort_case *c, const size_t *sizes, size_t count, size_t seed);

/* Appends the assertion that plans are built with the warp ranking (warps 1) or without it (0)
 * to CLSCAN_BUILD_OPTIONS (cl/radix_sort.cl, CLSCAN_TEST_SORT_RANK_WARPS). */
void expect_shape(int warps, tu_env_saved *saved);

/* The tests of each file, run by test_sort.c as one cmocka group (sort), where a CTest test can
 * pick one by name, and test_property as a group of its own (sort property). */
/* test_sort_keys.c */
void test_types(void **state);
void test_ranges(void **state);
void test_floats(void **state);
void test_shapes(void **state);
void test_skips(void **state);
/* test_sort_gpu.c */
void test_gpu_shape(void **state);
void test_fallback(void **state);
/* test_sort_edges.c */
void test_values(void **state);
void test_edges(void **state);
/* test_sort_errors.c */
void test_errors(void **state);
/* test_sort_property.c */
void test_property(void **state);

#endif /* CLSCAN_SORT_FIXTURE_H_ */
