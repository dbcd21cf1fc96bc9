/*
 * clscan tests: the selections' host calls under fault injection (src/fault.h). For k = 1, 2, ...
 * the k-th fault point (an allocation, a program build, a kernel creation or enqueue, a read back)
 * fails during clscan_select_host (run-length encoding: runs and their lengths) or
 * clscan_partition_copy_host (selected and rejected elements); each run must return an error
 * status with a detail (never hang or crash), leave every output array and the count exactly as
 * they were, leak no OpenCL object (tests/cl_track.h) and leave the library usable: the next call
 * without faults gives the reference result. The loop ends at the first k the call passes without
 * reaching, so every fault point of the path is taken once, for each algorithm.
 */
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cl_track.h"
#include "fault.h"
#include "test_util.h"

#define N 20000
#define POISON 0x5A5A5A5Au

/* The input (runs of 1 to 4 equal values, and flags that select about half of them) and the
 * references. */
static int32_t g_in[N];
static unsigned char g_flags[N];
static int32_t g_runs[N], g_selected[N], g_rejected[N];
static uint32_t g_lengths[N];
static size_t g_run_count, g_selected_count;

static void make_input(void) {
  uint64_t s = tu_seed();
  int32_t v = 0;
  for (size_t i = 0; i < N;) {
    size_t len = tu_random_size(&s, 1, 4);
    v += 1 + (int32_t)tu_draw(&s, 5);
    for (size_t j = 0; j < len && i < N; j++, i++) {
      g_in[i] = v;
      g_flags[i] = (unsigned char)tu_draw(&s, 2);
    }
  }
  size_t runs = 0, sel = 0, rej = 0;
  for (size_t i = 0; i < N; i++) {
    if (i == 0 || g_in[i] != g_in[i - 1]) {
      g_runs[runs] = g_in[i];
      g_lengths[runs++] = 0;
    }
    g_lengths[runs - 1]++;
    if (g_flags[i])
      g_selected[sel++] = g_in[i];
    else
      g_rejected[rej++] = g_in[i];
  }
  g_run_count = runs;
  g_selected_count = sel;
}

/* Output arrays, poisoned before each call. */
static int32_t g_out[N], g_out2[N];
static uint32_t g_len_out[N];

static void poison(void) {
  memset(g_out, 0x5A, sizeof g_out);
  memset(g_out2, 0x5A, sizeof g_out2);
  memset(g_len_out, 0x5A, sizeof g_len_out);
}

/* 1 if every byte of the outputs is still the poison. */
static int untouched(void) {
  for (size_t i = 0; i < N; i++) {
    if ((uint32_t)g_out[i] != POISON || (uint32_t)g_out2[i] != POISON || g_len_out[i] != POISON)
      return 0;
  }
  return 1;
}

/* One call with the k-th fault point armed (0: none); checks the result when it succeeded and
 * that nothing was written when it failed. */
static clscan_status call_with_fault(clscan_select_op op, clscan_algorithm algo, unsigned long k,
                                     unsigned long *reached) {
  clscan_context *ctx = tu_context();
  const clscan_select_desc d = {.op = op, .type = CLSCAN_INT32, .count_size = 4, .algorithm = algo};
  uint64_t count = POISON;
  poison();
  clscan_test_fault_arm(k);
  clscan_status st =
      op == CLSCAN_RUN_LENGTH_ENCODE
          ? clscan_select_host(ctx, &d, g_in, NULL, N, g_out, g_len_out, N, &count)
          : clscan_partition_copy_host(ctx, &d, g_in, g_flags, N, g_out, N, g_out2, N, &count);
  *reached = clscan_test_fault_count();
  clscan_test_fault_arm(0);
  if (st != CLSCAN_SUCCESS) {
    if (clscan_last_error_detail()[0] == '\0')
      fail_msg("fault %lu: %s without a detail", k, clscan_status_string(st));
    if (count != POISON || !untouched())
      fail_msg("fault %lu: %s, but an output was written", k, clscan_status_string(st));
    return st;
  }
  if (op == CLSCAN_RUN_LENGTH_ENCODE) {
    assert_int_equal(count, g_run_count);
    assert_memory_equal(g_out, g_runs, g_run_count * sizeof g_runs[0]);
    assert_memory_equal(g_len_out, g_lengths, g_run_count * sizeof g_lengths[0]);
  } else {
    assert_int_equal(count, g_selected_count);
    assert_memory_equal(g_out, g_selected, g_selected_count * sizeof g_selected[0]);
    assert_memory_equal(g_out2, g_rejected, (N - g_selected_count) * sizeof g_rejected[0]);
  }
  return st;
}

/* The operation of a sweep. */
typedef struct select_op {
  clscan_select_op op;
  clscan_algorithm algo;
} select_op;

/* A run of tr_fault_sweep(): the operation with the k-th fault point armed. */
static int select_run(void *arg, unsigned long k, unsigned long *reached) {
  const select_op *o = arg;
  return call_with_fault(o->op, o->algo, k, reached);
}

static void run_faults(clscan_select_op op, clscan_algorithm algo) {
  select_op o = {op, algo};
  unsigned long reached = 0;
  // Once without faults: builds the programs and sizes the temporary slot, like a warm library.
  assert_int_equal(call_with_fault(op, algo, 0, &reached), CLSCAN_SUCCESS);
  const char *name = op == CLSCAN_RUN_LENGTH_ENCODE ? "run-length encoding" : "partition into two";
  char msg[320];
  long points = tr_fault_sweep(select_run, &o, msg, sizeof msg);
  if (points < 0)
    fail_msg("%s, %s: %s", name, clscan_algorithm_name(algo), msg);
  printf("%s, %s: %ld fault points, each failed once\n", name, clscan_algorithm_name(algo), points);
  assert_true(points > 0);
}

static void test_rle_single_pass(void **state) {
  (void)state;
  run_faults(CLSCAN_RUN_LENGTH_ENCODE, CLSCAN_ALGO_SINGLE_PASS);
}

static void test_rle_multi_pass(void **state) {
  (void)state;
  run_faults(CLSCAN_RUN_LENGTH_ENCODE, CLSCAN_ALGO_REDUCE_THEN_SCAN);
}

static void test_partition_single_pass(void **state) {
  (void)state;
  run_faults(CLSCAN_PARTITION, CLSCAN_ALGO_SINGLE_PASS);
}

static void test_partition_multi_pass(void **state) {
  (void)state;
  run_faults(CLSCAN_PARTITION, CLSCAN_ALGO_BLELLOCH);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_rle_single_pass),
      cmocka_unit_test(test_rle_multi_pass),
      cmocka_unit_test(test_partition_single_pass),
      cmocka_unit_test(test_partition_multi_pass),
  };
  if (!tu_context())
    return 1;
  make_input();
  int failed =
      cmocka_run_group_tests_name("select_faults", tests, tu_group_setup, tu_group_teardown);
  tu_context_release();
  printf("clscan tests: seed %" PRIu64 "\n", tu_seed());
  return failed ? 1 : 0;
}
