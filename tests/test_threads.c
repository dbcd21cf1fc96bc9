/*
 * clscan tests: one context shared by many threads.
 *
 * THREADS threads run many verified scans at once (mixed types, operators, algorithms, paths and
 * random sizes): each on its own queue; all on the context's default queue; and all through one
 * shared plan. Plans for clscan_scan() are created by racing threads, programs are built while
 * other threads enqueue, and temporary buffers are shared. Results are checked per scan; the
 * first failure of each thread is reported with its seed. CLSCAN_TEST_THREAD_SCANS sets the scans
 * per thread and mode (default 64; the shared-plan mode runs twice as many); the total of
 * threads x scans is printed at the end. Every fourth scan of the first two modes is segmented
 * (int32 add with head flags, or the affine user type by uint64 key, through tests/user_case.c),
 * so that user programs are built and segmented scans run while other threads scan. Last, the
 * threads share one selection plan in the GPU shape, whose scalar kernels (for offsets that are not
 * multiples of a vector) are built at the first such request, by whichever threads race to it.
 *
 * Each mode draws all its cases before its threads start. On POCL before 6.0 the cases then run
 * once, one after another and largest first, on a second context before the threads run them on
 * the first: that driver aborts when threads run one kernel at once at growing grid sizes
 * (tests/pocl/dlhandle_release.c), and a kernel first run at its largest size never grows. The
 * second context has its own plans and programs, so the threads still build them while others
 * scan. CLSCAN_TEST_THREAD_WARM=0 or 1 leaves the warm-up out or runs it on any driver.
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

#include <cmocka.h>

#include "test_util.h"
#include "user_case.h"

#define THREADS 8
#define DEFAULT_SCANS_PER_THREAD 64

/* Scans per thread and mode: CLSCAN_TEST_THREAD_SCANS, else the default. */
static int scans_per_thread(void) {
  const char *v = getenv("CLSCAN_TEST_THREAD_SCANS");
  int n = v && *v ? atoi(v) : DEFAULT_SCANS_PER_THREAD;
  return n > 0 ? n : DEFAULT_SCANS_PER_THREAD;
}

/* Scans run by all threads of all modes, printed at the end. */
static int g_total_scans;

/* How the threads reach the context. */
typedef enum mode { OWN_QUEUES, SHARED_QUEUE, SHARED_PLAN } mode;

/* One scan a thread runs: a case of the mix, or a segmented one (on the context's queue). */
typedef struct job {
  int segmented;
  tu_case c;
} job;

/* One thread's work and results. */
typedef struct worker {
  int id;
  mode mode;
  clscan_plan *plan; /* SHARED_PLAN: the plan (int32 add, single pass) */
  uint64_t seed;
  job *jobs; /* drawn before the threads start */
  int count;
  int scans, segmented, failures;
  char first_failure[1100];
} worker;

/* The mix of scans: few enough types and operators that compiling stays cheap on POCL. */
static const clscan_type types[] = {CLSCAN_INT32, CLSCAN_INT64, CLSCAN_FLOAT, CLSCAN_UINT8};
static const clscan_algorithm algos[] = {CLSCAN_ALGO_AUTO, CLSCAN_ALGO_BLELLOCH,
                                         CLSCAN_ALGO_HILLIS_STEELE, CLSCAN_ALGO_REDUCE_THEN_SCAN,
                                         CLSCAN_ALGO_SINGLE_PASS};
/* The last index of algos the mix draws, and the shared plan's algorithm: without the single pass
 * (a device without 64-bit atomics) the mix leaves it out and the shared plan is AUTO's. */
static size_t g_last_algo = 4;
static clscan_algorithm g_plan_algo = CLSCAN_ALGO_SINGLE_PASS;

/* Leaves the single pass out of the mix where the device refuses it, and says so. */
static void fit_mix_to_device(void) {
  clscan_scan_desc desc = {
      .type = CLSCAN_INT32, .op = CLSCAN_ADD, .algorithm = CLSCAN_ALGO_SINGLE_PASS};
  clscan_status st = clscan_context_supports(tu_context(), &desc);
  if (st == CLSCAN_SUCCESS)
    return;
  assert_int_equal(st, CLSCAN_UNSUPPORTED_BY_DEVICE);
  printf("  the single pass is not supported by this device (%s): the mix leaves it out\n",
         clscan_last_error_detail());
  g_last_algo = 3;
  g_plan_algo = CLSCAN_ALGO_AUTO;
}

/* Draws a size: mostly moderate, sometimes a boundary, now and then a large one. */
static size_t draw_size(uint64_t *s) {
  static const size_t special[] = {0, 1, 255, 257, 2049, 65537};
  size_t pick = tu_random_size(s, 0, 19);
  if (pick < 3)
    return special[tu_random_size(s, 0, 5)];
  if (pick == 3)
    return tu_random_size(s, 1u << 20, 3u << 20);
  return tu_random_size(s, 2, 200000);
}

/* Draws one scan of the mix. */
static void draw_case(worker *w, uint64_t *s, int i, tu_case *c) {
  memset(c, 0, sizeof *c);
  c->type = types[tu_random_size(s, 0, 3)];
  c->op = c->type == CLSCAN_INT32 && tu_random_size(s, 0, 3) == 0 ? CLSCAN_MAX : CLSCAN_ADD;
  c->algorithm = algos[tu_random_size(s, 0, g_last_algo)];
  c->exclusive = (int)tu_random_size(s, 0, 1);
  if (tu_random_size(s, 0, 1))
    tu_case_set_init(c, tu_mix(w->seed, 7));
  c->n = draw_size(s);
  c->in_place = tu_random_size(s, 0, 3) == 0;
  c->in_off = c->in_place ? 0 : tu_random_size(s, 0, 2) * 16;
  c->out_off = tu_random_size(s, 0, 3) == 0 ? 5 : 0;
  if (c->in_place)
    c->in_off = c->out_off;
  c->path = (tu_path)tu_random_size(s, 0, 3);
  c->seed = tu_mix(w->seed, (uint64_t)i);
}

/* int32 add with no user sources, for the segmented scans of the mix. */
static const uc_spec spec_int32_add = {.name = "int32-add",
                                       .desc = {.type = CLSCAN_INT32, .op = CLSCAN_ADD}};

/* Draws one segmented scan of the mix into c. */
static void draw_segmented(worker *w, uint64_t *s, int i, uc_case *c) {
  memset(c, 0, sizeof *c);
  int affine = (int)tu_random_size(s, 0, 1);
  c->spec = affine ? &uc_spec_affine : &spec_int32_add;
  c->segments = affine ? CLSCAN_SEGMENTS_KEYS : CLSCAN_SEGMENTS_HEAD_FLAGS;
  c->key_type = CLSCAN_UINT64;
  c->algorithm = algos[tu_random_size(s, 0, g_last_algo)];
  c->exclusive = (int)tu_random_size(s, 0, 1);
  c->pattern = UC_PATTERN_RANDOM;
  c->n = draw_size(s);
  c->path = (uc_path)tu_random_size(s, 0, 2); /* one-shot, plan or timed plan */
  c->seed = tu_mix(w->seed, (uint64_t)i + 0x5E6);
  if (tu_random_size(s, 0, 1))
    uc_case_set_init(c, tu_mix(c->seed, 7));
}

/* Draws a thread's scans: every fourth of the first two modes segmented; the shared plan's all
 * int32 add through the plan. Returns 0 when out of memory. */
static int draw_jobs(worker *w) {
  w->count = w->mode == SHARED_PLAN ? 2 * scans_per_thread() : scans_per_thread();
  w->jobs = calloc((size_t)w->count, sizeof *w->jobs);
  if (!w->jobs)
    return 0;
  uint64_t s = w->seed;
  for (int i = 0; i < w->count; i++) {
    tu_case *c = &w->jobs[i].c;
    draw_case(w, &s, i, c);
    if (w->mode == SHARED_PLAN) {
      // The shared plan's descriptor: int32 add, inclusive, no init, single pass.
      c->type = CLSCAN_INT32;
      c->op = CLSCAN_ADD;
      c->algorithm = g_plan_algo;
      c->exclusive = c->has_init = 0;
      c->path = i % 3 ? TU_PATH_PLAN : TU_PATH_PLAN_TIMED;
      c->plan = w->plan;
    }
    w->jobs[i].segmented = w->mode != SHARED_PLAN && i % 4 == 3;
    if (w->jobs[i].segmented)
      draw_segmented(w, &s, i, c);
  }
  return 1;
}

/* ============================================================================================== */
/* The warm-up for POCL before 6.0                                                                */
/* ============================================================================================== */

/* Returns 1 when the cases must first run on a second context, largest first: on POCL before 6.0
 * (tests/pocl/dlhandle_release.c), or as CLSCAN_TEST_THREAD_WARM (0 or 1) says. */
static int warm_up_wanted(void) {
  const char *v = getenv("CLSCAN_TEST_THREAD_WARM");
  if (v && *v)
    return atoi(v) != 0;
  const int pocl = tu_pocl_major();
  return pocl > 0 && pocl < 6;
}

/* A case of a warm-up, by its size: a scan (c) or a selection (at offset off). */
typedef struct sized {
  size_t n, off;
  const tu_case *c;
} sized;

/* Orders a warm-up's cases from the largest down (qsort). */
static int by_size_down(const void *a, const void *b) {
  const size_t x = ((const sized *)a)->n, y = ((const sized *)b)->n;
  return (x < y) - (x > y);
}

/* Runs every thread's scans on a second context of the same device, one after another and the
 * largest first, without the shared plan or the threads' queues; returns the number that failed,
 * after printing the first failure. */
static int warm_up(const worker *w) {
  size_t total = 0, k = 0;
  for (int t = 0; t < THREADS; t++)
    total += (size_t)w[t].count;
  sized *order = malloc(total * sizeof *order);
  assert_non_null(order);
  for (int t = 0; t < THREADS; t++) {
    for (int i = 0; i < w[t].count; i++)
      order[k++] = (sized){.n = w[t].jobs[i].c.n, .c = &w[t].jobs[i].c};
  }
  qsort(order, total, sizeof *order, by_size_down);
  clscan_context *second = NULL;
  assert_int_equal(clscan_context_create_default(&second), CLSCAN_SUCCESS);
  int failures = 0;
  char msg[1024];
  for (size_t i = 0; i < total; i++) {
    tu_case c = *order[i].c;
    c.plan = NULL;
    c.queue = NULL;
    if (!tu_run_case(second, &c, msg, sizeof msg) && failures++ == 0)
      fprintf(stderr, "  FAILED in the warm-up: %s\n", msg);
  }
  clscan_context_release(second);
  printf("  warm-up: %zu scans on a second context, the largest (%zu elements) first\n", total,
         total ? order[0].n : 0);
  fflush(stdout);
  free(order);
  return failures;
}

static void *worker_main(void *arg) {
  worker *w = arg;
  clscan_context *ctx = tu_context();
  cl_command_queue own = NULL;
  if (w->mode == OWN_QUEUES || (w->mode == SHARED_PLAN && w->id % 2)) {
    cl_int err;
    own = clCreateCommandQueue(clscan_context_cl_context(ctx), clscan_context_device(ctx), 0, &err);
    if (err != CL_SUCCESS) {
      snprintf(w->first_failure, sizeof w->first_failure, "clCreateCommandQueue returned %d", err);
      w->failures = 1;
      return NULL;
    }
  }
  for (int i = 0; i < w->count; i++) {
    tu_case c = w->jobs[i].c;
    char msg[1024];
    if (!w->jobs[i].segmented)
      c.queue = own;
    w->scans++;
    w->segmented += w->jobs[i].segmented;
    if (!tu_run_case(ctx, &c, msg, sizeof msg) && w->failures++ == 0)
      snprintf(w->first_failure, sizeof w->first_failure, "thread %d: %s", w->id, msg);
  }
  if (own)
    clReleaseCommandQueue(own);
  return NULL;
}

/* Runs THREADS workers in a mode and fails with every thread's first failure. */
static void run_workers(mode m, uint64_t salt) {
  worker w[THREADS];
  pthread_t threads[THREADS];
  clscan_plan *plan = NULL;
  fit_mix_to_device();
  if (m == SHARED_PLAN) {
    clscan_scan_desc desc = {.type = CLSCAN_INT32, .op = CLSCAN_ADD, .algorithm = g_plan_algo};
    assert_int_equal(clscan_plan_create(tu_context(), &desc, &plan), CLSCAN_SUCCESS);
  }
  for (int i = 0; i < THREADS; i++) {
    w[i] = (worker){
        .id = i, .mode = m, .plan = plan, .seed = tu_mix(tu_seed(), salt * 100 + (uint64_t)i)};
    printf("  thread %d: seed %" PRIu64 "\n", i, w[i].seed);
    assert_true(draw_jobs(&w[i]));
  }
  const int warm_failures = warm_up_wanted() ? warm_up(w) : 0;
  for (int i = 0; i < THREADS; i++)
    assert_int_equal(pthread_create(&threads[i], NULL, worker_main, &w[i]), 0);
  int failures = 0, scans = 0, segmented = 0;
  for (int i = 0; i < THREADS; i++) {
    assert_int_equal(pthread_join(threads[i], NULL), 0);
    scans += w[i].scans;
    segmented += w[i].segmented;
    failures += w[i].failures;
    if (w[i].failures)
      fprintf(stderr, "  FAILED %s\n", w[i].first_failure);
    free(w[i].jobs);
  }
  clscan_plan_release(plan);
  g_total_scans += scans;
  printf("  %d scans (%d of them segmented) on %d threads, %d failed\n", scans, segmented, THREADS,
         failures);
  if (failures)
    fail_msg("%d of %d scans failed (first failures above)", failures, scans);
  if (warm_failures)
    fail_msg("%d scans of the warm-up failed (the first above)", warm_failures);
}

static void test_own_queues(void **state) {
  (void)state;
  run_workers(OWN_QUEUES, 1);
}

static void test_shared_queue(void **state) {
  (void)state;
  run_workers(SHARED_QUEUE, 2);
}

static void test_shared_plan(void **state) {
  (void)state;
  run_workers(SHARED_PLAN, 3);
}

/* ============================================================================================== */
/* A shared selection plan                                                                        */
/* ============================================================================================== */

#define SELECTIONS 6

/* One thread's selections by flags through the shared plan: sizes and offsets drawn before the
 * threads start. */
typedef struct select_worker {
  clscan_select_plan *plan;
  uint64_t seed;
  size_t n[SELECTIONS], off[SELECTIONS];
  int runs, failures;
  char first_failure[256];
} select_worker;

/* Draws a thread's selections: sizes from 1 to 5000; odd ones start at an element that is not a
 * multiple of a vector (the scalar kernels). */
static void draw_selections(select_worker *w) {
  uint64_t s = tu_mix(w->seed, 1);
  for (int i = 0; i < SELECTIONS; i++) {
    w->n[i] = tu_random_size(&s, 1, 5000);
    w->off[i] = i % 2 ? 3 : 8;
  }
}

/* Runs one selection of n int32 elements at an offset of `off` elements (input and flags) on ctx
 * and checks the count and the selected elements against the host; returns 1 when it is right. */
static int select_once(select_worker *w, clscan_context *ctx, size_t n, size_t off, uint64_t *s) {
  int32_t *in = malloc((off + n) * 4), *got = malloc(n * 4), *want = malloc(n * 4);
  uint8_t *flags = malloc(off + n);
  cl_mem ib = tu_buffer(ctx, 0, (off + n) * 4), fb = tu_buffer(ctx, 0, off + n);
  cl_mem ob = tu_buffer(ctx, 0, n * 4), cb = tu_buffer(ctx, 0, 8);
  int ok = in && got && want && flags && ib && fb && ob && cb;
  size_t count = 0;
  for (size_t i = 0; ok && i < off + n; i++) {
    *s = tu_mix(*s, i);
    in[i] = (int32_t)(*s >> 16);
    flags[i] = (uint8_t)(*s % 3 == 0);
    if (i >= off && flags[i])
      want[count++] = in[i];
  }
  ok = ok && tu_write(ctx, NULL, ib, 0, (off + n) * 4, in) &&
       tu_write(ctx, NULL, fb, 0, off + n, flags);
  const clscan_select_buffers b = {.in = ib,
                                   .in_offset = off,
                                   .flags = fb,
                                   .flags_offset = off,
                                   .out = ob,
                                   .out_capacity = n,
                                   .count = cb};
  cl_event done = NULL;
  clscan_status st =
      ok ? clscan_select_enqueue(w->plan, NULL, &b, n, 0, NULL, &done) : CLSCAN_SUCCESS;
  uint64_t got_count = 0;
  if (ok && st == CLSCAN_SUCCESS) {
    ok = clWaitForEvents(1, &done) == CL_SUCCESS && tu_read(ctx, NULL, cb, 0, 8, &got_count) &&
         tu_read(ctx, NULL, ob, 0, n * 4, got);
    clReleaseEvent(done);
  }
  if (ok && (st != CLSCAN_SUCCESS || got_count != count || memcmp(got, want, count * 4) != 0)) {
    ok = 0;
    if (!w->failures)
      snprintf(w->first_failure, sizeof w->first_failure,
               "n %zu offset %zu: %s, count %" PRIu64 " (want %zu)", n, off,
               clscan_status_string(st), got_count, count);
  }
  cl_mem all[4] = {ib, fb, ob, cb};
  for (int i = 0; i < 4; i++) {
    if (all[i])
      clReleaseMemObject(all[i]);
  }
  free(in);
  free(got);
  free(want);
  free(flags);
  return ok;
}

static void *select_worker_main(void *arg) {
  select_worker *w = arg;
  uint64_t s = w->seed;
  for (int i = 0; i < SELECTIONS; i++) {
    w->runs++;
    w->failures += !select_once(w, tu_context(), w->n[i], w->off[i], &s);
  }
  return NULL;
}

/* Creates the selection plan of the shared-plan test on ctx: the GPU shape with small tiles, so
 * that it has vector and scalar kernels on any device (32 work-items: the fewest NVIDIA takes, a
 * warp). */
static clscan_select_plan *select_plan(clscan_context *ctx) {
  tu_env_saved saved[3];
  tu_env_set("CLSCAN_SINGLE_PASS_CPU", "0", &saved[0]);
  tu_env_set("CLSCAN_TILE_WG", "32", &saved[1]);
  tu_env_set("CLSCAN_TILE_VPT", "2", &saved[2]);
  const clscan_select_desc d = {
      .op = CLSCAN_SELECT, .type = CLSCAN_INT32, .algorithm = CLSCAN_ALGO_SINGLE_PASS};
  clscan_select_plan *plan = NULL;
  const clscan_status st = clscan_select_plan_create(ctx, &d, &plan);
  for (int i = 2; i >= 0; i--)
    tu_env_restore(&saved[i]);
  // Every device runs the selections' single pass (32-bit status words without 64-bit atomics).
  assert_int_equal(st, CLSCAN_SUCCESS);
  return plan;
}

/* The selections' warm-up (as warm_up's): every thread's selections on a second context with its
 * own plan, the largest first; returns the number that failed. */
static int warm_up_selections(const select_worker *w) {
  sized order[THREADS * SELECTIONS];
  for (int t = 0; t < THREADS; t++) {
    for (int i = 0; i < SELECTIONS; i++)
      order[t * SELECTIONS + i] = (sized){.n = w[t].n[i], .off = w[t].off[i]};
  }
  qsort(order, THREADS * SELECTIONS, sizeof *order, by_size_down);
  clscan_context *second = NULL;
  assert_int_equal(clscan_context_create_default(&second), CLSCAN_SUCCESS);
  select_worker warm = {.plan = select_plan(second), .seed = w[0].seed};
  uint64_t s = warm.seed;
  for (int i = 0; i < THREADS * SELECTIONS; i++)
    warm.failures += !select_once(&warm, second, order[i].n, order[i].off, &s);
  if (warm.failures)
    fprintf(stderr, "  FAILED in the warm-up: %s\n", warm.first_failure);
  clscan_select_plan_release(warm.plan);
  clscan_context_release(second);
  printf("  warm-up: %d selections on a second context, the largest (%zu elements) first\n",
         THREADS * SELECTIONS, order[0].n);
  fflush(stdout);
  return warm.failures;
}

static void test_shared_select_plan(void **state) {
  (void)state;
  clscan_select_plan *plan = select_plan(tu_context());
  select_worker w[THREADS];
  pthread_t threads[THREADS];
  for (int i = 0; i < THREADS; i++) {
    w[i] = (select_worker){.plan = plan, .seed = tu_mix(tu_seed(), 4000 + (uint64_t)i)};
    draw_selections(&w[i]);
  }
  const int warm_failures = warm_up_wanted() ? warm_up_selections(w) : 0;
  for (int i = 0; i < THREADS; i++)
    assert_int_equal(pthread_create(&threads[i], NULL, select_worker_main, &w[i]), 0);
  int runs = 0, failures = 0;
  for (int i = 0; i < THREADS; i++) {
    pthread_join(threads[i], NULL);
    runs += w[i].runs;
    failures += w[i].failures;
    if (w[i].failures)
      printf("  thread %d: first failure: %s (seed %" PRIu64 ")\n", i, w[i].first_failure,
             w[i].seed);
  }
  clscan_select_plan_release(plan);
  printf("  %d selections through one plan on %d threads, %d failed\n", runs, THREADS, failures);
  if (failures)
    fail_msg("%d of %d selections failed (first failures above)", failures, runs);
  if (warm_failures)
    fail_msg("%d selections of the warm-up failed (the first above)", warm_failures);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_own_queues),
      cmocka_unit_test(test_shared_queue),
      cmocka_unit_test(test_shared_plan),
      cmocka_unit_test(test_shared_select_plan),
  };
  if (!tu_context())
    return 1;
  int failed = cmocka_run_group_tests_name("threads", tests, tu_group_setup, tu_group_teardown);
  tu_context_release();
  printf(
      "threads: %d threads x %d scans per thread and mode (x2 through the shared plan) = %d "
      "verified scans on one context\n",
      THREADS, scans_per_thread(), g_total_scans);
  printf("clscan tests: seed %" PRIu64 "\n", tu_seed());
  return failed ? 1 : 0;
}
