/*
 * clscan tests: OpenCL failures inside the library (built only with CLSCAN_FAULT_INJECTION).
 *
 * src/fault.h makes the k-th "fault point" (an OpenCL allocation, program creation or build,
 * kernel creation or enqueue) fail as OpenCL would. For each operation, a clean run counts its
 * fault points K; then for every k in 1..K the operation runs with the k-th point failing, and
 * must return an error status with a detail, hand out no event, leave a host output array
 * untouched, and not hang (or, where the library absorbs the failure, such as NVIDIA's optional
 * inline-PTX probe, succeed with the right result); afterwards the same context must scan correctly
 * again (its program cache, plans and temporary buffers must not be left in a bad state). Each
 * sweep runs on fresh contexts (so builds fail too) and on one warm context (so failures hit reused
 * temporary buffers, single-pass epochs and tickets).
 *
 * Every algorithm is swept through each entry point: explicit plans (creation and enqueue, both
 * single-pass shapes), clscan_scan and clscan_scan_host. tests/cl_track.c counts the OpenCL objects
 * alive and the kernels enqueued, so that a sweep also checks that no buffer, program, kernel,
 * queue, event or context outlives a released context (host memory leaks are LeakSanitizer's, in
 * the sanitizer build), and that a failed device scan left `out` exactly as it was when the failure
 * came before its first kernel was enqueued. (After a kernel was enqueued, a failure may leave
 * `out` partly written, as clscan.h documents; those runs are counted.) The total number of
 * faults injected is printed at the end.
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
#include "ref_scan.h"
#include "test_util.h"

/* Elements per scan: two or three levels of the seed algorithms, many tiles of the others. */
#define N 300001

/* An operation under test. */
typedef struct fault_op {
  const char *name;
  clscan_algorithm algo;
  const char *shape; /* CLSCAN_SINGLE_PASS_CPU for the plan, or NULL */
  /* PLAN, SCAN, HOST: int32 exclusive add; SEGMENTED: the same through clscan_segmented_scan with
   * head flags; USER: a plan with a user operator (int32 add written in OpenCL C) and a map. */
  enum { VIA_PLAN, VIA_SCAN, VIA_HOST, VIA_SEGMENTED, VIA_USER } via;
} fault_op;

/* Buffers and data shared by every run. */
static int32_t *g_input, *g_got;
static uint8_t *g_flags;
static cl_mem g_in, g_out, g_flags_buf;
static const clscan_scan_desc g_desc = {.type = CLSCAN_INT32, .op = CLSCAN_ADD, .exclusive = 1};
static const int32_t g_zero = 0;

/* The descriptor an operation scans with, and the one its result is checked against. */
static clscan_scan_desc op_desc(const fault_op *op, clscan_scan_desc *check) {
  clscan_scan_desc desc = g_desc;
  desc.algorithm = op->algo;
  *check = desc;
  if (op->via == VIA_SEGMENTED) {
    check->segments = CLSCAN_SEGMENTS_HEAD_FLAGS;
  } else if (op->via == VIA_USER) {
    // The map doubles x with wrapping, the operator adds with wrapping; the check scans 2x.
    desc.op = CLSCAN_USER_OP;
    desc.op_source = "as_int((uint)a + (uint)b)";
    desc.identity = &g_zero;
    desc.map_source = "as_int((uint)x * 2u)";
  }
  return desc;
}

/* What one run observed. */
typedef struct outcome {
  clscan_status status;
  char detail[512];
  int event_leaked;      /* a failed call handed out an event */
  int host_modified;     /* a failed host scan wrote its output */
  int output_correct;    /* the run succeeded and the result is right */
  int out_modified;      /* a failed device scan changed `out` before any kernel was enqueued */
  int out_partial;       /* a failed device scan changed `out` after a kernel was enqueued */
  unsigned long armed;   /* the fault point armed for the run (0: none) */
  unsigned long reached; /* fault points reached, when the run had to disarm early (else 0) */
} outcome;

/* What `out` holds before every device scan, as a 32-bit pattern. */
#define OUT_POISON 0xA5A5A5A5u

/* Totals over every sweep, printed at the end. */
static unsigned long g_injected, g_absorbed, g_partial;

/* Returns a new context on the shared context's cl_context and device. */
static clscan_context *fresh_context(void) {
  clscan_context *shared = tu_context(), *ctx = NULL;
  clscan_status st =
      clscan_context_create(clscan_context_cl_context(shared), clscan_context_device(shared), &ctx);
  assert_int_equal(st, CLSCAN_SUCCESS);
  return ctx;
}

/* Creates the operation's plan (under its single-pass shape). */
static clscan_status make_plan(clscan_context *ctx, const fault_op *op, clscan_plan **plan) {
  clscan_scan_desc check, desc = op_desc(op, &check);
  tu_env_saved saved;
  if (op->shape)
    tu_env_set("CLSCAN_SINGLE_PASS_CPU", op->shape, &saved);
  clscan_status st = clscan_plan_create(ctx, &desc, plan);
  if (op->shape)
    tu_env_restore(&saved);
  return st;
}

/* Fills `out` with the poison pattern. */
static void poison_out(clscan_context *ctx) {
  for (size_t i = 0; i < N; i++)
    g_got[i] = (int32_t)OUT_POISON;
  assert_true(tu_write(ctx, NULL, g_out, 0, N * sizeof(int32_t), g_got));
}

/* After a failed device scan: records whether `out` changed, and whether a kernel had run. */
static void check_out_after_failure(clscan_context *ctx, const tr_snapshot *before, outcome *o) {
  tr_snapshot now;
  tr_snapshot_take(&now);
  assert_true(tu_read(ctx, NULL, g_out, 0, N * sizeof(int32_t), g_got));
  int changed = !tu_all_bytes(g_got, N * sizeof(int32_t), 0xA5);
  if (changed && now.kernels_enqueued == before->kernels_enqueued)
    o->out_modified = 1;
  else if (changed)
    o->out_partial = 1;
}

/* Checks g_got against the reference of the operation's check descriptor. */
static int check_result(const fault_op *op, const clscan_scan_desc *check) {
  if (op->via == VIA_SEGMENTED)
    return clscan_ref_check_segmented(check, g_flags, g_input, g_got, N, NULL);
  if (op->via != VIA_USER)
    return clscan_ref_check(check, g_input, g_got, N, NULL);
  // The user operation scans 2x: check against a doubled copy of the input.
  int32_t *doubled = malloc(N * sizeof(int32_t));
  if (!doubled)
    return 0;
  for (size_t i = 0; i < N; i++)
    doubled[i] = (int32_t)((uint32_t)g_input[i] * 2u);
  int ok = clscan_ref_check(check, doubled, g_got, N, NULL);
  free(doubled);
  return ok;
}

/* Scans device buffers through a plan or clscan_scan(); fills o and returns nothing. */
static void run_device(clscan_context *ctx, const fault_op *op, outcome *o) {
  clscan_scan_desc check, desc = op_desc(op, &check);
  clscan_plan *plan = NULL;
  cl_event done = (cl_event)(uintptr_t)1;
  tr_snapshot before;
  clscan_test_fault_arm(0);
  poison_out(ctx);
  clscan_test_fault_arm(o->armed);
  tr_snapshot_take(&before);
  if (op->via == VIA_PLAN || op->via == VIA_USER) {
    o->status = make_plan(ctx, op, &plan);
    if (o->status == CLSCAN_SUCCESS)
      o->status = clscan_plan_enqueue(plan, NULL, g_in, 0, g_out, 0, N, 0, NULL, &done);
  } else if (op->via == VIA_SEGMENTED) {
    o->status = clscan_segmented_scan(ctx, NULL, &desc, g_flags_buf, 0, g_in, 0, g_out, 0, N, 0,
                                      NULL, &done);
  } else {
    o->status = clscan_scan(ctx, NULL, &desc, g_in, 0, g_out, 0, N, 0, NULL, &done);
  }
  snprintf(o->detail, sizeof o->detail, "%s", clscan_last_error_detail());
  if (o->status == CLSCAN_SUCCESS) {
    clWaitForEvents(1, &done);
    clReleaseEvent(done);
    if (tu_read(ctx, NULL, g_out, 0, N * sizeof(int32_t), g_got))
      o->output_correct = check_result(op, &check);
  } else {
    o->event_leaked = done != NULL && done != (cl_event)(uintptr_t)1;
    unsigned long reached = clscan_test_fault_count();
    clscan_test_fault_arm(0);
    check_out_after_failure(ctx, &before, o);
    o->reached = reached;
  }
  clscan_plan_release(plan);
}

/* Scans host arrays; a failure must leave the output untouched. */
static void run_host(clscan_context *ctx, const fault_op *op, outcome *o) {
  clscan_scan_desc desc = g_desc;
  desc.algorithm = op->algo;
  memset(g_got, 0xA5, N * sizeof(int32_t));
  o->status = clscan_scan_host(ctx, &desc, g_input, g_got, N);
  snprintf(o->detail, sizeof o->detail, "%s", clscan_last_error_detail());
  if (o->status == CLSCAN_SUCCESS) {
    o->output_correct = clscan_ref_check(&desc, g_input, g_got, N, NULL);
  } else {
    o->host_modified = !tu_all_bytes(g_got, N * sizeof(int32_t), 0xA5);
  }
}

/* Runs an operation once with the k-th fault point armed (0: none); returns the points reached. */
static unsigned long run_op(clscan_context *ctx, const fault_op *op, unsigned long k, outcome *o) {
  char what[160];
  snprintf(what, sizeof what, "%s, fault point %lu", op->name, k);
  tu_progress(what);
  memset(o, 0, sizeof *o);
  o->armed = k;
  clscan_test_fault_arm(k);
  if (op->via == VIA_HOST) {
    run_host(ctx, op, o);
  } else {
    run_device(ctx, op, o);
  }
  unsigned long reached = o->reached ? o->reached : clscan_test_fault_count();
  clscan_test_fault_arm(0);
  return reached;
}

/* Checks a run whose k-th fault point failed. */
static void check_failed(const fault_op *op, unsigned long k, const outcome *o) {
  // A failed build of user sources is reported as the user's (our own sources always compile).
  const clscan_status allowed[] = {
      CLSCAN_OUT_OF_DEVICE_MEMORY, CLSCAN_OUT_OF_HOST_MEMORY, CLSCAN_BUILD_FAILED,
      CLSCAN_OPENCL_ERROR, op->via == VIA_USER ? CLSCAN_USER_SOURCE_INVALID : CLSCAN_OPENCL_ERROR};
  int known = 0;
  for (size_t i = 0; i < sizeof allowed / sizeof allowed[0]; i++)
    known |= o->status == allowed[i];
  if (!known)
    fail_msg("%s: fault point %lu: returned %s (%d), not an OpenCL failure status", op->name, k,
             clscan_status_string(o->status), (int)o->status);
  if (o->detail[0] == '\0')
    fail_msg("%s: fault point %lu: empty error detail", op->name, k);
  if (o->event_leaked)
    fail_msg("%s: fault point %lu: an event was handed out", op->name, k);
  if (o->host_modified)
    fail_msg("%s: fault point %lu: the host output was written", op->name, k);
  if (o->out_modified)
    fail_msg("%s: fault point %lu: `out` was written although no kernel was enqueued", op->name, k);
  g_partial += (unsigned long)o->out_partial;
}

/* Checks that a context scans correctly again after a failure. */
static void check_recovers(clscan_context *ctx, const fault_op *op, unsigned long k) {
  outcome o;
  run_op(ctx, op, 0, &o);
  if (o.status != CLSCAN_SUCCESS || !o.output_correct)
    fail_msg("%s: after fault point %lu failed, the next run %s (%s)", op->name, k,
             o.status == CLSCAN_SUCCESS ? "gave a wrong result" : clscan_status_string(o.status),
             o.detail);
}

/*
 * Fails fault point k of an operation on ctx, then checks the result and the recovery. Returns 1
 * when the library absorbed the failure (a failed optional step, such as NVIDIA's inline-PTX
 * probe, only turns a fast path off): the call then succeeded and its result must be right.
 */
static int fault_once(clscan_context *ctx, const fault_op *op, unsigned long k) {
  outcome o;
  unsigned long reached = run_op(ctx, op, k, &o);
  int absorbed = reached >= k && o.status == CLSCAN_SUCCESS;
  g_injected += reached >= k;
  if (reached >= k && !absorbed) {
    check_failed(op, k, &o);
  } else if (o.status != CLSCAN_SUCCESS || !o.output_correct) {
    fail_msg("%s: fault point %lu %s, yet the run %s", op->name, k,
             reached >= k ? "failed and the call succeeded" : "was not reached",
             o.status == CLSCAN_SUCCESS ? "gave a wrong result" : clscan_status_string(o.status));
  }
  check_recovers(ctx, op, k);
  return absorbed;
}

/* Fails unless the OpenCL objects alive now are those alive at `before`. */
static void check_no_leak(const fault_op *op, const tr_snapshot *before, const char *when) {
  tr_snapshot now;
  char leaked[256];
  tr_snapshot_take(&now);
  if (tr_leaked(before, &now, leaked, sizeof leaked))
    fail_msg("%s: %s, OpenCL objects are left over: %s", op->name, when, leaked);
}

static void test_fault_sweep(void **state) {
  const fault_op *op = *state;
  outcome o;
  tr_snapshot before;
  char when[96];

  // An algorithm the device lacks fails before any OpenCL call (test_scan checks the refusal).
  clscan_scan_desc probe = {.type = CLSCAN_INT32, .op = CLSCAN_ADD, .algorithm = op->algo};
  if (clscan_context_supports(tu_context(), &probe) == CLSCAN_UNSUPPORTED_BY_DEVICE) {
    printf("  %s: not supported by this device (%s): skipped\n", op->name,
           clscan_last_error_detail());
    skip();
  }

  // Fresh contexts: every build, kernel and buffer is created during the run.
  tr_snapshot_take(&before);
  clscan_context *ctx = fresh_context();
  unsigned long cold = run_op(ctx, op, 0, &o);
  clscan_context_release(ctx);
  assert_int_equal(o.status, CLSCAN_SUCCESS);
  assert_true(o.output_correct);
  check_no_leak(op, &before, "after a clean run on a fresh context");
  unsigned long absorbed = 0;
  for (unsigned long k = 1; k <= cold; k++) {
    ctx = fresh_context();
    absorbed += (unsigned long)fault_once(ctx, op, k);
    clscan_context_release(ctx);
    snprintf(when, sizeof when, "fault point %lu on a fresh context, once it was released", k);
    check_no_leak(op, &before, when);
  }

  // One warm context: programs cached, temporary buffers (and single-pass state) reused.
  ctx = fresh_context();
  run_op(ctx, op, 0, &o);
  unsigned long warm = run_op(ctx, op, 0, &o);
  for (unsigned long k = 1; k <= warm; k++)
    absorbed += (unsigned long)fault_once(ctx, op, k);
  clscan_context_release(ctx);
  check_no_leak(op, &before, "after the warm context's sweep, once it was released");
  g_absorbed += absorbed;
  printf(
      "  %s: %lu fault points on a fresh context, %lu on a warm one: every one failed cleanly"
      " or (%lu) was absorbed with a right result\n",
      op->name, cold, warm, absorbed);
}

static const fault_op ops[] = {
    {"blelloch, plan", CLSCAN_ALGO_BLELLOCH, NULL, VIA_PLAN},
    {"hillis-steele, plan", CLSCAN_ALGO_HILLIS_STEELE, NULL, VIA_PLAN},
    {"reduce-then-scan, plan", CLSCAN_ALGO_REDUCE_THEN_SCAN, NULL, VIA_PLAN},
    {"single-pass cpu shape, plan", CLSCAN_ALGO_SINGLE_PASS, "1", VIA_PLAN},
    {"single-pass gpu shape, plan", CLSCAN_ALGO_SINGLE_PASS, "0", VIA_PLAN},
    {"auto, clscan_scan", CLSCAN_ALGO_AUTO, NULL, VIA_SCAN},
    {"blelloch, clscan_scan", CLSCAN_ALGO_BLELLOCH, NULL, VIA_SCAN},
    {"hillis-steele, clscan_scan", CLSCAN_ALGO_HILLIS_STEELE, NULL, VIA_SCAN},
    {"reduce-then-scan, clscan_scan", CLSCAN_ALGO_REDUCE_THEN_SCAN, NULL, VIA_SCAN},
    {"single-pass, clscan_scan", CLSCAN_ALGO_SINGLE_PASS, NULL, VIA_SCAN},
    {"auto, clscan_scan_host", CLSCAN_ALGO_AUTO, NULL, VIA_HOST},
    {"blelloch, clscan_scan_host", CLSCAN_ALGO_BLELLOCH, NULL, VIA_HOST},
    {"hillis-steele, clscan_scan_host", CLSCAN_ALGO_HILLIS_STEELE, NULL, VIA_HOST},
    {"reduce-then-scan, clscan_scan_host", CLSCAN_ALGO_REDUCE_THEN_SCAN, NULL, VIA_HOST},
    {"single-pass, clscan_scan_host", CLSCAN_ALGO_SINGLE_PASS, NULL, VIA_HOST},
    {"blelloch, clscan_segmented_scan", CLSCAN_ALGO_BLELLOCH, NULL, VIA_SEGMENTED},
    {"reduce-then-scan, clscan_segmented_scan", CLSCAN_ALGO_REDUCE_THEN_SCAN, NULL, VIA_SEGMENTED},
    {"single-pass, clscan_segmented_scan", CLSCAN_ALGO_SINGLE_PASS, NULL, VIA_SEGMENTED},
    {"hillis-steele, user operator and map, plan", CLSCAN_ALGO_HILLIS_STEELE, NULL, VIA_USER},
    {"single-pass gpu shape, user operator and map, plan", CLSCAN_ALGO_SINGLE_PASS, "0", VIA_USER},
};

static int setup(void **state) {
  if (tu_group_setup(state) != 0)
    return -1;
  clscan_context *ctx = tu_context();
  g_input = malloc(N * sizeof(int32_t));
  g_got = malloc(N * sizeof(int32_t));
  g_flags = malloc(N);
  g_in = tu_buffer(ctx, CL_MEM_READ_WRITE, N * sizeof(int32_t));
  g_out = tu_buffer(ctx, CL_MEM_READ_WRITE, N * sizeof(int32_t));
  g_flags_buf = tu_buffer(ctx, CL_MEM_READ_WRITE, N);
  if (!g_input || !g_got || !g_flags || !g_in || !g_out || !g_flags_buf)
    return -1;
  uint64_t seed = tu_mix(tu_seed(), 0xFA17);
  printf("  data seed %" PRIu64 "\n", seed);
  clscan_ref_fill(CLSCAN_INT32, CLSCAN_ADD, seed, g_input, N);
  const clscan_scan_desc flags_desc = {.segments = CLSCAN_SEGMENTS_HEAD_FLAGS};
  clscan_ref_fill_segments(&flags_desc, 1000, seed + 1, g_flags, N);
  return tu_write(ctx, NULL, g_in, 0, N * sizeof(int32_t), g_input) &&
                 tu_write(ctx, NULL, g_flags_buf, 0, N, g_flags)
             ? 0
             : -1;
}

static int teardown(void **state) {
  if (g_in)
    clReleaseMemObject(g_in);
  if (g_out)
    clReleaseMemObject(g_out);
  if (g_flags_buf)
    clReleaseMemObject(g_flags_buf);
  free(g_flags);
  free(g_input);
  free(g_got);
  return tu_group_teardown(state);
}

int main(void) {
  struct CMUnitTest tests[sizeof ops / sizeof ops[0]];
  for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
    struct CMUnitTest t = {ops[i].name, test_fault_sweep, NULL, NULL, (void *)&ops[i]};
    tests[i] = t;
  }
  if (!tu_context())
    return 1;
  int failed = cmocka_run_group_tests_name("faults", tests, setup, teardown);
  tu_context_release();
  printf(
      "faults: %lu faults injected over %zu operations: every one failed cleanly, or (%lu) was "
      "absorbed with a right result; %lu failed device scans left `out` partly written after "
      "a kernel had been enqueued\n",
      g_injected, sizeof ops / sizeof ops[0], g_absorbed, g_partial);
  printf("clscan tests: seed %" PRIu64 "\n", tu_seed());
  return failed ? 1 : 0;
}
