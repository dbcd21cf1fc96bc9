/*
 * clscan tests: the context's locks, through the test hooks of src/fault.h (so this program is
 * built only with -DCLSCAN_FAULT_INJECTION=ON).
 *
 * - A program build does not block other threads: while one thread's build is held inside the
 *   build hook, another thread enqueues a scan on a plan built before and reads its verified
 *   result. With a build under a lock the enqueue needs, the enqueue waits until the hook gives
 *   up (HOOK_WAIT_MS) and the test fails.
 * - Two threads that ask for the same new program at once build it once: the first build is held
 *   in the hook until the second thread has asked; the library's build count grows by one.
 * - A scan prefers the temporary slot last used on its own queue: two queues are made to use two
 *   slots (the first slot's scan waits on a user event, so its slot is not idle when the second
 *   queue's scan picks one); then each queue's next scan must take its own slot again.
 * - A slot is zeroed when its single passes change status-word size (scans and selections), and
 *   AUTO's selections take the single pass (test_select_single_pass_slots).
 */
#include <inttypes.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "fault.h"
#include "test_util.h"

/* How long the build hook holds a build at most, in milliseconds. */
#define HOOK_WAIT_MS 15000

/* Elements of the verified scans. */
#define N 100003

/* What the build hook and the test threads share. */
typedef struct gate {
  pthread_mutex_t lock;
  pthread_cond_t changed;
  int armed;     /* 1: the next build is held */
  int in_build;  /* the held build has reached the hook */
  int release;   /* the test lets the held build go on */
  int timed_out; /* the hook gave up waiting for `release` */
} gate;

static gate g_gate = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0, 0, 0};

/* Adds milliseconds to the current CLOCK_REALTIME time. */
static struct timespec deadline_in(long ms) {
  struct timespec t;
  clock_gettime(CLOCK_REALTIME, &t);
  t.tv_sec += ms / 1000;
  t.tv_nsec += (ms % 1000) * 1000000L;
  if (t.tv_nsec >= 1000000000L) {
    t.tv_sec++;
    t.tv_nsec -= 1000000000L;
  }
  return t;
}

/* The build hook: holds the first build after arming until the test releases it (or gives up). */
static void hold_build(void *arg) {
  gate *g = arg;
  pthread_mutex_lock(&g->lock);
  if (g->armed) {
    g->armed = 0;
    g->in_build = 1;
    pthread_cond_broadcast(&g->changed);
    struct timespec until = deadline_in(HOOK_WAIT_MS);
    while (!g->release) {
      if (pthread_cond_timedwait(&g->changed, &g->lock, &until) != 0) {
        g->timed_out = 1;
        break;
      }
    }
  }
  pthread_mutex_unlock(&g->lock);
}

/* Arms the hook for the next build. */
static void gate_arm(gate *g) {
  pthread_mutex_lock(&g->lock);
  g->armed = 1;
  g->in_build = g->release = g->timed_out = 0;
  pthread_mutex_unlock(&g->lock);
  clscan_test_set_build_hook(hold_build, g);
}

/* Waits until the held build reached the hook; returns 0 if it did not within the limit. */
static int gate_wait_in_build(gate *g) {
  pthread_mutex_lock(&g->lock);
  struct timespec until = deadline_in(2 * HOOK_WAIT_MS);
  while (!g->in_build) {
    if (pthread_cond_timedwait(&g->changed, &g->lock, &until) != 0)
      break;
  }
  int reached = g->in_build;
  pthread_mutex_unlock(&g->lock);
  return reached;
}

/* Lets the held build go on and reports whether the hook had given up by then. */
static int gate_release(gate *g) {
  pthread_mutex_lock(&g->lock);
  g->release = 1;
  pthread_cond_broadcast(&g->changed);
  int timed_out = g->timed_out;
  pthread_mutex_unlock(&g->lock);
  return timed_out;
}

/* A plan creation run in a thread. */
typedef struct creator {
  clscan_scan_desc desc;
  clscan_plan *plan;
  clscan_status status;
} creator;

static void *create_main(void *arg) {
  creator *c = arg;
  c->status = clscan_plan_create(tu_context(), &c->desc, &c->plan);
  return NULL;
}

/* Runs an inclusive int32 sum of N elements through a plan on a queue and checks it exactly;
 * returns 1 if it verified. */
static int verified_sum(clscan_plan *plan, cl_command_queue queue) {
  clscan_context *ctx = tu_context();
  int32_t *host = malloc(N * sizeof *host), *got = malloc(N * sizeof *got);
  cl_mem in = tu_buffer(ctx, CL_MEM_READ_WRITE, N * sizeof *host);
  cl_mem out = tu_buffer(ctx, CL_MEM_READ_WRITE, N * sizeof *host);
  int ok = host && got && in && out;
  for (size_t i = 0; ok && i < N; i++)
    host[i] = (int32_t)(i % 7) - 3;
  ok = ok && tu_write(ctx, queue, in, 0, N * sizeof *host, host);
  cl_event done = NULL;
  ok = ok && clscan_plan_enqueue(plan, queue, in, 0, out, 0, N, 0, NULL, &done) == CLSCAN_SUCCESS;
  if (done) {
    ok = ok && clWaitForEvents(1, &done) == CL_SUCCESS;
    clReleaseEvent(done);
  }
  ok = ok && tu_read(ctx, queue, out, 0, N * sizeof *got, got);
  int32_t sum = 0;
  for (size_t i = 0; ok && i < N; i++) {
    sum += host[i];
    ok = got[i] == sum;
  }
  if (in)
    clReleaseMemObject(in);
  if (out)
    clReleaseMemObject(out);
  free(host);
  free(got);
  return ok;
}

static void test_build_does_not_block_enqueue(void **state) {
  (void)state;
  clscan_context *ctx = tu_context();
  tu_progress("concurrency: build does not block an enqueue");
  // A plan built (and run once) before the slow build starts.
  const clscan_scan_desc cached = {.type = CLSCAN_INT32, .op = CLSCAN_ADD};
  clscan_plan *plan = NULL;
  assert_int_equal(clscan_plan_create(ctx, &cached, &plan), CLSCAN_SUCCESS);
  assert_true(verified_sum(plan, NULL));

  // Another thread builds a program no test here builds otherwise; its build is held.
  creator c = {.desc = {.type = CLSCAN_INT16,
                        .op = CLSCAN_MAX,
                        .algorithm = CLSCAN_ALGO_HILLIS_STEELE,
                        .exclusive = 1}};
  gate_arm(&g_gate);
  pthread_t builder;
  assert_int_equal(pthread_create(&builder, NULL, create_main, &c), 0);
  int reached = gate_wait_in_build(&g_gate);

  // While the build is held, a scan on the cached plan runs to its verified result.
  int ok = reached && verified_sum(plan, NULL);
  int timed_out = gate_release(&g_gate);
  pthread_join(builder, NULL);
  clscan_test_set_build_hook(NULL, NULL);
  assert_true(reached);
  assert_true(ok);
  assert_false(timed_out); /* the enqueue had to wait for the build */
  assert_int_equal(c.status, CLSCAN_SUCCESS);
  clscan_plan_release(c.plan);
  clscan_plan_release(plan);
}

static void test_same_program_built_once(void **state) {
  (void)state;
  tu_progress("concurrency: one build for two requesters");
  const clscan_scan_desc desc = {
      .type = CLSCAN_UINT16, .op = CLSCAN_XOR, .algorithm = CLSCAN_ALGO_BLELLOCH};
  creator first = {.desc = desc}, second = {.desc = desc};
  unsigned long before = clscan_test_build_count();
  gate_arm(&g_gate);
  pthread_t t1, t2;
  assert_int_equal(pthread_create(&t1, NULL, create_main, &first), 0);
  int reached = gate_wait_in_build(&g_gate);

  // The second requester asks while the first build is held, and is given time to reach the
  // program cache before the build goes on.
  assert_int_equal(pthread_create(&t2, NULL, create_main, &second), 0);
  struct timespec pause = {0, 300 * 1000000L};
  nanosleep(&pause, NULL);
  int timed_out = gate_release(&g_gate);
  pthread_join(t1, NULL);
  pthread_join(t2, NULL);
  clscan_test_set_build_hook(NULL, NULL);
  unsigned long builds = clscan_test_build_count() - before;
  assert_true(reached);
  assert_false(timed_out);
  assert_int_equal(first.status, CLSCAN_SUCCESS);
  assert_int_equal(second.status, CLSCAN_SUCCESS);
  if (builds != 1)
    fail_msg("the program was built %lu times by two requesters", builds);
  clscan_plan_release(first.plan);
  clscan_plan_release(second.plan);
}

/* Enqueues the plan's scan of n int32 on a queue, optionally waiting for an event, and returns
 * the temporary slot it took (-1 on failure). */
static int scan_slot(clscan_plan *plan, cl_command_queue q, cl_mem in, cl_mem out, size_t n,
                     cl_event wait, cl_event *done) {
  clscan_status st =
      clscan_plan_enqueue(plan, q, in, 0, out, 0, n, wait ? 1 : 0, wait ? &wait : NULL, done);
  return st == CLSCAN_SUCCESS ? clscan_test_last_temp_slot() : -1;
}

static void test_same_queue_slot(void **state) {
  (void)state;
  tu_progress("concurrency: same-queue temporary slot");
  clscan_context *shared = tu_context();
  cl_context cl_ctx = clscan_context_cl_context(shared);
  cl_device_id dev = clscan_context_device(shared);
  clscan_context *ctx = NULL; /* a fresh context: no slot used yet */
  assert_int_equal(clscan_context_create(cl_ctx, dev, &ctx), CLSCAN_SUCCESS);
  cl_int err;
  cl_command_queue qa = clCreateCommandQueue(cl_ctx, dev, 0, &err);
  assert_int_equal(err, CL_SUCCESS);
  cl_command_queue qb = clCreateCommandQueue(cl_ctx, dev, 0, &err);
  assert_int_equal(err, CL_SUCCESS);
  const size_t n = 70001;
  cl_mem in = tu_buffer(shared, CL_MEM_READ_WRITE, n * 4);
  cl_mem out_a = tu_buffer(shared, CL_MEM_READ_WRITE, n * 4);
  cl_mem out_b = tu_buffer(shared, CL_MEM_READ_WRITE, n * 4);
  assert_true(in && out_a && out_b);
  int32_t *ones = malloc(n * 4), *got = malloc(n * 4);
  assert_true(ones && got);
  for (size_t i = 0; i < n; i++)
    ones[i] = 1;
  assert_true(tu_write(shared, qa, in, 0, n * 4, ones));
  const clscan_scan_desc desc = {.type = CLSCAN_INT32, .op = CLSCAN_ADD};
  clscan_plan *plan = NULL;
  assert_int_equal(clscan_plan_create(ctx, &desc, &plan), CLSCAN_SUCCESS);

  // Queue A's scan waits on a user event, so its slot is not idle when queue B picks one.
  cl_event gate_ev = clCreateUserEvent(cl_ctx, &err);
  assert_int_equal(err, CL_SUCCESS);
  cl_event done_a = NULL, done_b = NULL;
  int slot_a = scan_slot(plan, qa, in, out_a, n, gate_ev, &done_a);
  int slot_b = scan_slot(plan, qb, in, out_b, n, NULL, &done_b);
  clSetUserEventStatus(gate_ev, CL_COMPLETE);
  clWaitForEvents(1, &done_a);
  clWaitForEvents(1, &done_b);
  clReleaseEvent(done_a);
  clReleaseEvent(done_b);
  assert_true(slot_a >= 0 && slot_b >= 0);
  assert_int_not_equal(slot_a, slot_b);

  // Both slots are idle now: each queue's next scan takes the slot it used last.
  int again_b = scan_slot(plan, qb, in, out_b, n, NULL, NULL);
  int again_a = scan_slot(plan, qa, in, out_a, n, NULL, NULL);
  clFinish(qa);
  clFinish(qb);
  if (again_b != slot_b || again_a != slot_a)
    fail_msg("queue A used slot %d then %d, queue B slot %d then %d", slot_a, again_a, slot_b,
             again_b);

  // And the scans are right.
  assert_true(tu_read(shared, qa, out_a, 0, n * 4, got));
  for (size_t i = 0; i < n; i++)
    assert_int_equal(got[i], (int32_t)(i + 1));
  assert_true(tu_read(shared, qb, out_b, 0, n * 4, got));
  for (size_t i = 0; i < n; i++)
    assert_int_equal(got[i], (int32_t)(i + 1));
  free(ones);
  free(got);
  clReleaseEvent(gate_ev);
  clscan_plan_release(plan);
  clReleaseMemObject(in);
  clReleaseMemObject(out_a);
  clReleaseMemObject(out_b);
  clReleaseCommandQueue(qa);
  clReleaseCommandQueue(qb);
  clscan_context_release(ctx);
}

/* Runs plan's scan of n ones on q and checks it; returns whether its slot was zeroed first. */
static int scan_zeroed(clscan_context *shared, clscan_plan *plan, cl_command_queue q, cl_mem in,
                       cl_mem out, size_t n, int32_t *got) {
  assert_true(scan_slot(plan, q, in, out, n, NULL, NULL) >= 0);
  const int zeroed = clscan_test_last_temp_zeroed();
  assert_true(tu_read(shared, q, out, 0, n * 4, got));
  for (size_t i = 0; i < n; i++)
    assert_int_equal(got[i], (int32_t)(i + 1));
  return zeroed;
}

/* Creates a single-pass int32 plan with CLSCAN_TEST_STATUS32 set to `status32` meanwhile. */
static clscan_plan *single_pass_plan(clscan_context *ctx, const char *status32) {
  const clscan_scan_desc desc = {
      .type = CLSCAN_INT32, .op = CLSCAN_ADD, .algorithm = CLSCAN_ALGO_SINGLE_PASS};
  const char *old = getenv("CLSCAN_TEST_STATUS32");
  char saved[16] = "";
  if (old)
    snprintf(saved, sizeof saved, "%s", old);
  setenv("CLSCAN_TEST_STATUS32", status32, 1);
  clscan_plan *plan = NULL;
  clscan_status st = clscan_plan_create(ctx, &desc, &plan);
  if (old)
    setenv("CLSCAN_TEST_STATUS32", saved, 1);
  else
    unsetenv("CLSCAN_TEST_STATUS32");
  assert_int_equal(st, CLSCAN_SUCCESS);
  return plan;
}

/* Single passes with 64-bit and 32-bit status words take turns on one slot: each change of word
 * size zeroes the slot (read in the other size, old words can stay above every new epoch, and
 * every look-back then takes the fallback), a repeat of the same size does not. */
static void test_status_word_size_change(void **state) {
  (void)state;
  tu_progress("concurrency: a slot changing status-word size is zeroed");
  clscan_context *shared = tu_context();
  clscan_context *ctx = NULL; /* a fresh context: its first scan zeroes its new slot */
  assert_int_equal(
      clscan_context_create(clscan_context_cl_context(shared), clscan_context_device(shared), &ctx),
      CLSCAN_SUCCESS);
  cl_command_queue q = clscan_context_queue(ctx);
  const size_t n = 70001;
  cl_mem in = tu_buffer(shared, CL_MEM_READ_WRITE, n * 4);
  cl_mem out = tu_buffer(shared, CL_MEM_READ_WRITE, n * 4);
  int32_t *ones = malloc(n * 4), *got = malloc(n * 4);
  assert_true(in && out && ones && got);
  for (size_t i = 0; i < n; i++)
    ones[i] = 1;
  assert_true(tu_write(shared, q, in, 0, n * 4, ones));
  clscan_plan *wide = single_pass_plan(ctx, "0"), *narrow = single_pass_plan(ctx, "1");
  // Without 64-bit atomics both plans have 32-bit words: no change of size, no zeroing.
  const int sizes_differ = tu_device_has_int64_atomics();
  assert_int_equal(scan_zeroed(shared, wide, q, in, out, n, got), 1);
  assert_int_equal(scan_zeroed(shared, wide, q, in, out, n, got), 0);
  assert_int_equal(scan_zeroed(shared, narrow, q, in, out, n, got), sizes_differ);
  assert_int_equal(scan_zeroed(shared, narrow, q, in, out, n, got), 0);
  assert_int_equal(scan_zeroed(shared, wide, q, in, out, n, got), sizes_differ);
  printf("  status words of %s: the slot was zeroed %s\n",
         sizes_differ ? "8 then 4 then 8 bytes" : "4 bytes only (no 64-bit atomics)",
         sizes_differ ? "at each change" : "once, when new");
  free(ones);
  free(got);
  clscan_plan_release(wide);
  clscan_plan_release(narrow);
  clReleaseMemObject(in);
  clReleaseMemObject(out);
  clscan_context_release(ctx);
}

/* A selection by flags of n int32 elements (element i is i, every third flagged) and the buffers
 * that hold it. */
typedef struct select_bufs {
  cl_mem in, flags, out, count;
  size_t n;
} select_bufs;

/* Creates a selection plan (by flags) of `algorithm` with CLSCAN_TEST_STATUS32 set to `status32`
 * meanwhile (NULL: unset). */
static clscan_select_plan *select_plan(clscan_context *ctx, clscan_algorithm algorithm,
                                       const char *status32) {
  const clscan_select_desc d = {.op = CLSCAN_SELECT, .algorithm = algorithm};
  tu_env_saved saved;
  tu_env_set("CLSCAN_TEST_STATUS32", status32, &saved);
  clscan_select_plan *plan = NULL;
  const clscan_status st = clscan_select_plan_create(ctx, &d, &plan);
  tu_env_restore(&saved);
  if (st != CLSCAN_SUCCESS)
    fail_msg("selection plan (%s, CLSCAN_TEST_STATUS32=%s): %s (%s)",
             clscan_algorithm_name(algorithm), status32 ? status32 : "unset",
             clscan_status_string(st), clscan_last_error_detail());
  return plan;
}

/* Runs plan's selection of b on q and checks it; returns whether its slot was zeroed first. */
static int select_zeroed(clscan_context *shared, clscan_select_plan *plan, cl_command_queue q,
                         const select_bufs *b, int32_t *got) {
  const clscan_select_buffers sb = {
      .in = b->in, .flags = b->flags, .out = b->out, .out_capacity = b->n, .count = b->count};
  assert_int_equal(clscan_select_enqueue(plan, q, &sb, b->n, 0, NULL, NULL), CLSCAN_SUCCESS);
  const int zeroed = clscan_test_last_temp_zeroed();
  uint64_t count = 0;
  const size_t want = (b->n + 2) / 3;
  assert_true(tu_read(shared, q, b->count, 0, 8, &count));
  assert_int_equal(count, want);
  assert_true(tu_read(shared, q, b->out, 0, want * 4, got));
  for (size_t k = 0; k < want; k++)
    assert_int_equal(got[k], (int32_t)(3 * k));
  return zeroed;
}

/* Selections take the single pass where AUTO gives it (on every CPU device and wherever 64-bit
 * atomics exist: also on CPUs without them, with 32-bit status words), build kernels with 32-bit
 * words under CLSCAN_TEST_STATUS32 (a program of their own where AUTO's words are 64-bit), and
 * pass their status words' size to the temporary slots like the scans (temp.c): a new slot is
 * zeroed before its first single pass (the multi-pass path never zeroes it), and a single pass
 * whose words have the other size than the slot's last one zeroes it again. A fresh context runs,
 * on one queue: AUTO's selection (zeroed: it is the single pass), a scan with the same words (not
 * zeroed), a selection with 32-bit words (zeroed where 64-bit atomics exist, the sizes then
 * differ), a scan with 32-bit words (not zeroed), AUTO's selection again (as the third), and
 * reduce-then-scan's (never). */
static void test_select_single_pass_slots(void **state) {
  (void)state;
  tu_progress("concurrency: AUTO's selections take the single pass and its status words");
  clscan_context *shared = tu_context();
  clscan_context *ctx = NULL;
  assert_int_equal(
      clscan_context_create(clscan_context_cl_context(shared), clscan_context_device(shared), &ctx),
      CLSCAN_SUCCESS);
  cl_command_queue q = clscan_context_queue(ctx);
  const size_t n = 70001;
  select_bufs b = {.n = n};
  b.in = tu_buffer(shared, CL_MEM_READ_WRITE, n * 4);
  b.flags = tu_buffer(shared, CL_MEM_READ_WRITE, n);
  b.out = tu_buffer(shared, CL_MEM_READ_WRITE, n * 4);
  b.count = tu_buffer(shared, CL_MEM_READ_WRITE, 8);
  cl_mem in = tu_buffer(shared, CL_MEM_READ_WRITE, n * 4);
  cl_mem out = tu_buffer(shared, CL_MEM_READ_WRITE, n * 4);
  int32_t *data = malloc(n * 4), *got = malloc(n * 4);
  unsigned char *flags = malloc(n);
  assert_true(b.in && b.flags && b.out && b.count && in && out && data && got && flags);
  for (size_t i = 0; i < n; i++) {
    data[i] = (int32_t)i;
    flags[i] = i % 3 == 0;
  }
  assert_true(tu_write(shared, q, b.in, 0, n * 4, data));
  assert_true(tu_write(shared, q, b.flags, 0, n, flags));
  for (size_t i = 0; i < n; i++)
    data[i] = 1;
  assert_true(tu_write(shared, q, in, 0, n * 4, data));
  // AUTO's words: 64-bit where the device has 64-bit atomics, else 32-bit.
  const int wide_auto = tu_device_has_int64_atomics();
  clscan_select_plan *automatic = select_plan(ctx, CLSCAN_ALGO_AUTO, NULL);
  if (select_zeroed(shared, automatic, q, &b, got) != 1)
    fail_msg("AUTO's selection did not zero a new slot: it did not take the single pass on %s",
             tu_device_name());
  // The 32-bit words' kernels are a program of their own where AUTO's words are 64-bit.
  const unsigned long builds = clscan_test_build_count();
  clscan_select_plan *narrow_select = select_plan(ctx, CLSCAN_ALGO_SINGLE_PASS, "1");
  if (clscan_test_build_count() - builds != (unsigned long)wide_auto)
    fail_msg(
        "a selection plan with 32-bit status words built %lu programs after AUTO's (%d-bit "
        "words), expected %d",
        clscan_test_build_count() - builds, wide_auto ? 64 : 32, wide_auto);
  clscan_select_plan *rts = select_plan(ctx, CLSCAN_ALGO_REDUCE_THEN_SCAN, NULL);
  clscan_plan *same_scan = single_pass_plan(ctx, "0"), *narrow_scan = single_pass_plan(ctx, "1");
  assert_int_equal(scan_zeroed(shared, same_scan, q, in, out, n, got), 0);
  assert_int_equal(select_zeroed(shared, narrow_select, q, &b, got), wide_auto);
  assert_int_equal(scan_zeroed(shared, narrow_scan, q, in, out, n, got), 0);
  assert_int_equal(select_zeroed(shared, automatic, q, &b, got), wide_auto);
  assert_int_equal(select_zeroed(shared, rts, q, &b, got), 0);
  printf("  AUTO's selections run the single pass with %d-bit status words\n", wide_auto ? 64 : 32);
  free(data);
  free(got);
  free(flags);
  clscan_select_plan_release(automatic);
  clscan_select_plan_release(narrow_select);
  clscan_select_plan_release(rts);
  clscan_plan_release(same_scan);
  clscan_plan_release(narrow_scan);
  cl_mem all[] = {b.in, b.flags, b.out, b.count, in, out};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
    clReleaseMemObject(all[i]);
  clscan_context_release(ctx);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_build_does_not_block_enqueue),
      cmocka_unit_test(test_same_program_built_once),
      cmocka_unit_test(test_same_queue_slot),
      cmocka_unit_test(test_status_word_size_change),
      cmocka_unit_test(test_select_single_pass_slots),
  };
  if (!tu_context())
    return 1;
  int failed = cmocka_run_group_tests_name("concurrency", tests, tu_group_setup, tu_group_teardown);
  tu_context_release();
  printf("clscan tests: seed %" PRIu64 "\n", tu_seed());
  return failed ? 1 : 0;
}
