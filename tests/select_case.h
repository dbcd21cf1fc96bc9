/*
 * clscan tests: one selection case (select, partition, unique, run-length encoding) run against the
 * host reference of tests/reference/ref_select.h (select_case.c), which test_select (test_select.c,
 * test_select_api.c) and test_select_oclgrind share.
 *
 * A case is one selection of generated data: its operation, element type (built-in, or the user
 * types and maps below), how elements are selected (flags, predicate, runs), the pattern of the
 * selection (none, all, alternating, a random fraction, runs of a mean length), the algorithm and
 * single-pass shape, the forced fallback (CLSCAN_TEST_WITHHOLD), n, offsets, output capacity and
 * count size. Each run poisons the output, length and count buffers (and a partition's rejected
 * buffer), and then checks every result, the true count, and that nothing past min(count,
 * capacity) was written (guards).
 */
#ifndef CLSCAN_SELECT_CASE_H_
#define CLSCAN_SELECT_CASE_H_

#include <stddef.h>
#include <stdint.h>

#include "clscan.h"
#include "test_util.h"

/* How elements are chosen. */
typedef enum pattern {
  P_RANDOM = 0, /* each with probability pct / 100 */
  P_NONE,
  P_ALL,
  P_ALTERNATE,
  P_RUNS /* runs of equal values of mean length `mean` (unique, rle; also the data of others) */
} sel_pattern;

/* Element kinds beyond the built-in types. */
typedef enum kind {
  K_BUILTIN = 0,
  K_USER,   /* struct pair { int k; float w; }, equality and predicate on k */
  K_MAP,    /* int32 in, int64 out: x * 3 + i % 2 (predicate and equality on the mapped value) */
  K_FLOAT2, /* float2, an OpenCL built-in vector, with equal_source */
} kind;

typedef struct sel_case {
  clscan_select_op op;
  clscan_type type; /* K_BUILTIN */
  kind kind;
  int by_pred; /* SELECT, PARTITION: predicate instead of flags */
  sel_pattern pattern;
  unsigned pct, mean;
  clscan_algorithm algorithm;
  int shape;                  /* 0 default, 1 GPU (CLSCAN_SINGLE_PASS_CPU=0), 2 CPU */
  unsigned withhold;          /* CLSCAN_TEST_WITHHOLD */
  unsigned tile_wg, tile_vpt; /* CLSCAN_TILE_WG, CLSCAN_TILE_VPT (the GPU shape's tile); 0: unset */
  size_t n, in_off, flags_off, out_off, len_off, count_off;
  long cap_delta; /* capacity = n + cap_delta (clamped at 0) */
  size_t count_size;
  int host;    /* clscan_select_host (clscan_partition_copy_host) instead of the device path */
  int split;   /* PARTITION into two buffers: the rejected ones at len_off of their own, both of
                  the capacity */
  int reverse; /* PARTITION into one buffer with reverse_rejected: the rejected ones reversed at
                  its end (CUB's layout) */
  uint64_t seed;
} sel_case;

typedef struct pair {
  int32_t k;
  float w;
} pair;

/* The OpenCL C of `pair`. */
extern const char *const sel_pair_source;

/* Every operation, in clscan_select_op order. */
extern const clscan_select_op sel_all_ops[4];

/* Writes a one-line description of a case into buf (cap bytes). */
void sel_describe(const sel_case *c, char *buf, size_t cap);

/* Runs and checks one case; returns 1 on success, else 0 with the reason in msg. */
int sel_run_case(const sel_case *c, char *msg, size_t mcap);

/* A case with defaults: int32 select by flags, half selected, AUTO, capacity n. */
sel_case sel_base_case(clscan_select_op op, size_t n);

/* The environment switches a case sets (read at plan creation), and their restoring. */
#define SEL_CASE_ENV 4
void sel_case_env(const sel_case *c, tu_env_saved saved[SEL_CASE_ENV]);
void sel_case_env_restore(tu_env_saved saved[SEL_CASE_ENV]);

/* Checks under cmocka that the device runs the selections' single pass when asked for. */
void sel_expect_single_pass(void);

/* test_select_api.c: the groups `errors` and `args`. */
void test_errors_desc(void **state);
void test_errors_enqueue(void **state);
void test_errors_operations(void **state);
void test_errors_host(void **state);
void test_errors_sub_buffers(void **state);
void test_timed_edges(void **state);
void test_args(void **state);
void test_args_errors(void **state);
void test_args_errors_values(void **state);
void test_args_read_write(void **state);

#endif /* CLSCAN_SELECT_CASE_H_ */
