/*
 * clscan tests: helpers shared by the test programs (see test_util.h).
 */
#include "test_util.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ref_scan.h"

/* Default base seed when CLSCAN_TEST_SEED is not set. */
#define TU_DEFAULT_SEED 20251129u
/* Seconds without progress after which the watchdog ends the process (CLSCAN_TEST_STALL_S). */
#define TU_DEFAULT_STALL_S 240

/* ============================================================================================== */
/* Context, device and seeds                                                                      */
/* ============================================================================================== */

static clscan_context *g_ctx;
static char g_device_name[256];
static int g_device_is_cpu;
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;

static void watchdog_start(void);

/* Prints the device, the library version and the seed once per process. */
static void describe_device(clscan_context *ctx) {
  cl_device_id dev = clscan_context_device(ctx);
  char version[256] = "", driver[256] = "";
  cl_device_type type = 0;
  clGetDeviceInfo(dev, CL_DEVICE_NAME, sizeof g_device_name - 1, g_device_name, NULL);
  clGetDeviceInfo(dev, CL_DEVICE_VERSION, sizeof version - 1, version, NULL);
  clGetDeviceInfo(dev, CL_DRIVER_VERSION, sizeof driver - 1, driver, NULL);
  clGetDeviceInfo(dev, CL_DEVICE_TYPE, sizeof type, &type, NULL);
  g_device_is_cpu = (type & CL_DEVICE_TYPE_CPU) != 0;
  printf("clscan tests: device \"%s\" (%s, driver %s), clscan %s\n", g_device_name, version, driver,
         clscan_version_string());
  printf("clscan tests: seed %" PRIu64 " (run with CLSCAN_TEST_SEED=%" PRIu64 " to reproduce)\n",
         tu_seed(), tu_seed());
  fflush(stdout);
}

clscan_context *tu_context(void) {
  pthread_mutex_lock(&g_lock);
  if (!g_ctx) {
    clscan_status st = clscan_context_create_default(&g_ctx);
    if (st != CLSCAN_SUCCESS) {
      fprintf(stderr, "clscan tests: clscan_context_create_default failed: %s (%s)\n",
              clscan_status_string(st), clscan_last_error_detail());
      g_ctx = NULL;
    } else {
      describe_device(g_ctx);
      watchdog_start();
    }
  }
  clscan_context *ctx = g_ctx;
  pthread_mutex_unlock(&g_lock);
  return ctx;
}

void tu_context_release(void) {
  pthread_mutex_lock(&g_lock);
  clscan_context_release(g_ctx);
  g_ctx = NULL;
  pthread_mutex_unlock(&g_lock);
}

const char *tu_device_name(void) {
  return g_device_name;
}

int tu_device_is_cpu(void) {
  return g_device_is_cpu;
}

int tu_group_setup(void **state) {
  (void)state;
  return tu_context() ? 0 : -1;
}

int tu_group_teardown(void **state) {
  (void)state;
  return 0;
}

uint64_t tu_seed(void) {
  static uint64_t seed;
  static int known;
  if (!known) {
    const char *v = getenv("CLSCAN_TEST_SEED");
    seed = TU_DEFAULT_SEED;
    if (v && strcmp(v, "time") == 0) {
      seed = (uint64_t)time(NULL);
    } else if (v && *v) {
      seed = strtoull(v, NULL, 0);
    }
    known = 1;
  }
  return seed;
}

uint64_t tu_mix(uint64_t seed, uint64_t value) {
  uint64_t z = seed ^ (value + 0x9E3779B97F4A7C15ull + (seed << 6) + (seed >> 2));
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

size_t tu_random_size(uint64_t *state, size_t lo, size_t hi) {
  *state = tu_mix(*state, 0x5151);
  return lo + (size_t)(*state % (uint64_t)(hi - lo + 1));
}

/* ============================================================================================== */
/* Environment and watchdog                                                                       */
/* ============================================================================================== */

void tu_env_set(const char *name, const char *value, tu_env_saved *saved) {
  const char *old = getenv(name);
  snprintf(saved->name, sizeof saved->name, "%s", name);
  saved->was_set = old != NULL;
  snprintf(saved->value, sizeof saved->value, "%s", old ? old : "");
  if (value) {
    setenv(name, value, 1);
  } else {
    unsetenv(name);
  }
}

void tu_env_restore(const tu_env_saved *saved) {
  if (saved->was_set) {
    setenv(saved->name, saved->value, 1);
  } else {
    unsetenv(saved->name);
  }
}

static char g_current[512] = "(starting)";
static unsigned long g_progress;

void tu_progress(const char *what) {
  pthread_mutex_lock(&g_lock);
  snprintf(g_current, sizeof g_current, "%s", what);
  g_progress++;
  pthread_mutex_unlock(&g_lock);
}

/* Ends the process when the progress counter stays still for the stall limit. */
static void *watchdog_main(void *arg) {
  unsigned long limit = (unsigned long)(uintptr_t)arg, still = 0, last = (unsigned long)-1;
  for (;;) {
    sleep(1);
    pthread_mutex_lock(&g_lock);
    unsigned long now = g_progress;
    if (now != last) {
      last = now;
      still = 0;
    } else if (++still >= limit) {
      fprintf(stderr, "clscan tests: WATCHDOG: no progress for %lu s (a hang?) in: %s\n", limit,
              g_current);
      fflush(stderr);
      fflush(stdout);
      _exit(3);
    }
    pthread_mutex_unlock(&g_lock);
  }
  return NULL;
}

/* Starts the watchdog thread once (CLSCAN_TEST_STALL_S=0 turns it off). */
static void watchdog_start(void) {
  const char *v = getenv("CLSCAN_TEST_STALL_S");
  unsigned long limit = v && *v ? strtoul(v, NULL, 10) : TU_DEFAULT_STALL_S;
  pthread_t thread;
  if (limit == 0)
    return;
  if (pthread_create(&thread, NULL, watchdog_main, (void *)(uintptr_t)limit) == 0)
    pthread_detach(thread);
}

/* ============================================================================================== */
/* Buffers                                                                                        */
/* ============================================================================================== */

cl_mem tu_buffer(clscan_context *ctx, cl_mem_flags flags, size_t bytes) {
  cl_int err = CL_SUCCESS;
  cl_mem buf = clCreateBuffer(clscan_context_cl_context(ctx), flags, bytes ? bytes : 1, NULL, &err);
  if (err != CL_SUCCESS) {
    fprintf(stderr, "clscan tests: clCreateBuffer(%zu bytes) returned %d\n", bytes, (int)err);
    return NULL;
  }
  return buf;
}

int tu_write(clscan_context *ctx, cl_command_queue queue, cl_mem buf, size_t at, size_t bytes,
             const void *data) {
  if (!queue)
    queue = clscan_context_queue(ctx);
  if (bytes == 0)
    return 1;
  return clEnqueueWriteBuffer(queue, buf, CL_TRUE, at, bytes, data, 0, NULL, NULL) == CL_SUCCESS;
}

int tu_read(clscan_context *ctx, cl_command_queue queue, cl_mem buf, size_t at, size_t bytes,
            void *data) {
  if (!queue)
    queue = clscan_context_queue(ctx);
  if (bytes == 0)
    return 1;
  return clEnqueueReadBuffer(queue, buf, CL_TRUE, at, bytes, data, 0, NULL, NULL) == CL_SUCCESS;
}

int tu_all_bytes(const void *p, size_t bytes, unsigned char byte) {
  const unsigned char *b = p;
  for (size_t i = 0; i < bytes; i++) {
    if (b[i] != byte)
      return 0;
  }
  return 1;
}

/* ============================================================================================== */
/* Case descriptions                                                                              */
/* ============================================================================================== */

static const char *const path_names[] = {"clscan_scan", "plan_enqueue", "plan_enqueue_timed",
                                         "scan_host"};

void tu_case_desc(const tu_case *c, clscan_scan_desc *desc) {
  memset(desc, 0, sizeof *desc);
  desc->type = c->type;
  desc->op = c->op;
  desc->exclusive = c->exclusive;
  desc->init = c->has_init ? c->init : NULL;
  desc->algorithm = c->algorithm;
}

void tu_case_set_init(tu_case *c, uint64_t seed) {
  memset(c->init, 0, sizeof c->init);
  clscan_ref_fill(c->type, c->op, seed, c->init, 1);
  c->has_init = 1;
}

void tu_case_describe(const tu_case *c, char *buf, size_t cap) {
  char init[64] = "none";
  if (c->has_init)
    clscan_ref_format(c->type, c->init, 0, init, sizeof init);
  snprintf(buf, cap,
           "%s %s %s %s init=%s n=%zu in_off=%zu out_off=%zu%s via %s%s data_seed=%" PRIu64
           " (base seed %" PRIu64 ")",
           clscan_algorithm_name(c->algorithm), clscan_type_name(c->type), clscan_op_name(c->op),
           c->exclusive ? "exclusive" : "inclusive", init, c->n, c->in_off, c->out_off,
           c->in_place ? " in-place" : "", path_names[c->path], c->queue ? " (own queue)" : "",
           c->seed, tu_seed());
}

/* Formats a failure: the case, then the reason. Always returns 0. */
#if defined(__GNUC__)
static int fail(const tu_case *c, char *msg, size_t cap, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
#endif
static int fail(const tu_case *c, char *msg, size_t cap, const char *fmt, ...) {
  char what[256], desc[384];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  tu_case_describe(c, desc, sizeof desc);
  snprintf(msg, cap, "%s: %s", desc, what);
  return 0;
}

/* ============================================================================================== */
/* Checks                                                                                         */
/* ============================================================================================== */

/* Checks the result and the guards of an output image whose range starts at element `off`. */
static int check_output(const tu_case *c, const unsigned char *input, const unsigned char *img,
                        size_t off, size_t total, char *msg, size_t cap) {
  size_t e = clscan_type_size(c->type);
  clscan_scan_desc desc;
  clscan_ref_mismatch mm;
  if (!tu_all_bytes(img, off * e, TU_POISON))
    return fail(c, msg, cap, "a guard element before the output range was overwritten");
  if (!tu_all_bytes(img + (off + c->n) * e, (total - off - c->n) * e, TU_POISON))
    return fail(c, msg, cap, "a guard element after the output range was overwritten");
  tu_case_desc(c, &desc);
  if (!clscan_ref_check(&desc, input, img + off * e, c->n, &mm))
    return fail(c, msg, cap, "wrong result at %s", mm.detail);
  return 1;
}

/* Waits for an event and checks that it completed. */
static int check_event(const tu_case *c, cl_event ev, const char *name, char *msg, size_t cap) {
  cl_int status = CL_QUEUED;
  if (!ev)
    return fail(c, msg, cap, "no %s event was returned", name);
  cl_int err = clWaitForEvents(1, &ev);
  if (err == CL_SUCCESS)
    err = clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, NULL);
  if (err != CL_SUCCESS || status != CL_COMPLETE)
    return fail(c, msg, cap, "%s event: wait returned %d, status %d", name, (int)err, (int)status);
  return 1;
}

/* ============================================================================================== */
/* Running a case on host arrays                                                                  */
/* ============================================================================================== */

static int run_host(clscan_context *ctx, const tu_case *c, const unsigned char *input, char *msg,
                    size_t cap) {
  size_t e = clscan_type_size(c->type), total = c->n + 2 * TU_GUARD;
  unsigned char *img = malloc(total * e), *src = NULL;
  int ok = 0;
  clscan_scan_desc desc;
  tu_case_desc(c, &desc);
  if (!img)
    return fail(c, msg, cap, "out of host memory");
  memset(img, TU_POISON, total * e);
  unsigned char *dst = img + TU_GUARD * e;

  // In place, the input is copied into the output range; otherwise a copy is checked afterwards.
  if (c->in_place) {
    memcpy(dst, input, c->n * e);
    src = dst;
  } else {
    src = malloc(c->n * e + 1);
    if (!src)
      goto done;
    memcpy(src, input, c->n * e);
  }
  clscan_status st = clscan_scan_host(ctx, &desc, src, dst, c->n);
  if (st != CLSCAN_SUCCESS) {
    fail(c, msg, cap, "returned %s (%s)", clscan_status_string(st), clscan_last_error_detail());
  } else if (!c->in_place && memcmp(src, input, c->n * e) != 0) {
    fail(c, msg, cap, "the input array was modified");
  } else {
    ok = check_output(c, input, img, TU_GUARD, total, msg, cap);
  }
done:
  if (!c->in_place)
    free(src);
  free(img);
  return ok;
}

/* ============================================================================================== */
/* Running a case on device buffers                                                               */
/* ============================================================================================== */

/* Device buffers and host images of one case. */
typedef struct dev_case {
  cl_mem in, out;
  unsigned char *in_img, *out_img;
  size_t in_total, out_total; /* elements */
} dev_case;

/* Creates and fills the buffers: poison around the data, input bytes outside the input range. */
static int dev_setup(clscan_context *ctx, const tu_case *c, const unsigned char *input, dev_case *d,
                     char *msg, size_t cap) {
  size_t e = clscan_type_size(c->type);
  d->out_total = c->out_off + c->n + TU_GUARD;
  d->in_total = c->in_off + c->n + TU_GUARD;
  d->out_img = malloc(d->out_total * e);
  if (!d->out_img)
    return fail(c, msg, cap, "out of host memory");
  memset(d->out_img, TU_POISON, d->out_total * e);
  if (c->in_place) {
    memcpy(d->out_img + c->out_off * e, input, c->n * e);
  } else {
    d->in_img = malloc(d->in_total * e);
    if (!d->in_img)
      return fail(c, msg, cap, "out of host memory");
    memset(d->in_img, TU_INPUT_FILL, d->in_total * e);
    memcpy(d->in_img + c->in_off * e, input, c->n * e);
  }
  d->out = tu_buffer(ctx, CL_MEM_READ_WRITE, d->out_total * e);
  d->in = c->in_place ? d->out : tu_buffer(ctx, CL_MEM_READ_WRITE, d->in_total * e);
  if (!d->out || !d->in)
    return fail(c, msg, cap, "clCreateBuffer failed");
  if (!tu_write(ctx, c->queue, d->out, 0, d->out_total * e, d->out_img) ||
      (!c->in_place && !tu_write(ctx, c->queue, d->in, 0, d->in_total * e, d->in_img)))
    return fail(c, msg, cap, "clEnqueueWriteBuffer failed");
  return 1;
}

static void dev_cleanup(dev_case *d) {
  if (d->in && d->in != d->out)
    clReleaseMemObject(d->in);
  if (d->out)
    clReleaseMemObject(d->out);
  free(d->in_img);
  free(d->out_img);
}

/* Enqueues the case through its path; returns the status and the events. */
static clscan_status dev_enqueue(clscan_context *ctx, const tu_case *c, const dev_case *d,
                                 cl_event *first, cl_event *done) {
  clscan_scan_desc desc;
  clscan_plan *plan = c->plan;
  clscan_status st = CLSCAN_SUCCESS;
  size_t in_off = c->in_place ? c->out_off : c->in_off;
  tu_case_desc(c, &desc);
  if (c->path == TU_PATH_SCAN)
    return clscan_scan(ctx, c->queue, &desc, d->in, in_off, d->out, c->out_off, c->n, 0, NULL,
                       done);
  if (!plan)
    st = clscan_plan_create(ctx, &desc, &plan);
  if (st != CLSCAN_SUCCESS)
    return st;
  if (c->path == TU_PATH_PLAN_TIMED) {
    st = clscan_plan_enqueue_timed(plan, c->queue, d->in, in_off, d->out, c->out_off, c->n, 0, NULL,
                                   first, done);
  } else {
    st =
        clscan_plan_enqueue(plan, c->queue, d->in, in_off, d->out, c->out_off, c->n, 0, NULL, done);
  }
  if (plan != c->plan)
    clscan_plan_release(plan);
  return st;
}

/* Scans, waits for the events, reads back and checks everything. */
static int dev_scan_and_check(clscan_context *ctx, const tu_case *c, const unsigned char *input,
                              dev_case *d, char *msg, size_t cap) {
  size_t e = clscan_type_size(c->type);
  cl_event first = NULL, done = NULL;
  clscan_status st = dev_enqueue(ctx, c, d, &first, &done);
  if (st != CLSCAN_SUCCESS)
    return fail(c, msg, cap, "returned %s (%s)", clscan_status_string(st),
                clscan_last_error_detail());
  int ok = check_event(c, done, "done", msg, cap);
  if (ok && c->path == TU_PATH_PLAN_TIMED)
    ok = check_event(c, first, "first", msg, cap);
  if (done)
    clReleaseEvent(done);
  if (first)
    clReleaseEvent(first);
  if (!ok)
    return 0;

  // The output buffer, whole: results and guards.
  if (!tu_read(ctx, c->queue, d->out, 0, d->out_total * e, d->out_img))
    return fail(c, msg, cap, "clEnqueueReadBuffer failed");
  size_t off = c->out_off;
  if (!check_output(c, input, d->out_img, off, d->out_total, msg, cap))
    return 0;
  if (c->in_place)
    return 1;

  // The input buffer, whole: it must be unchanged (read into the output image's memory).
  unsigned char *back = d->out_img;
  if (d->in_total > d->out_total)
    back = realloc(d->out_img, d->in_total * e);
  if (!back)
    return fail(c, msg, cap, "out of host memory");
  d->out_img = back;
  if (!tu_read(ctx, c->queue, d->in, 0, d->in_total * e, back))
    return fail(c, msg, cap, "clEnqueueReadBuffer failed");
  if (memcmp(back, d->in_img, d->in_total * e) != 0)
    return fail(c, msg, cap, "the input buffer was modified");
  return 1;
}

static int run_device(clscan_context *ctx, const tu_case *c, const unsigned char *input, char *msg,
                      size_t cap) {
  dev_case d;
  memset(&d, 0, sizeof d);
  int ok = dev_setup(ctx, c, input, &d, msg, cap);
  if (ok)
    ok = dev_scan_and_check(ctx, c, input, &d, msg, cap);
  dev_cleanup(&d);
  return ok;
}

int tu_run_case(clscan_context *ctx, const tu_case *c, char *msg, size_t cap) {
  char desc[384];
  size_t e = clscan_type_size(c->type);
  tu_case_describe(c, desc, sizeof desc);
  tu_progress(desc);
  unsigned char *input = malloc(c->n * e + 1);
  if (!input)
    return fail(c, msg, cap, "out of host memory");
  clscan_ref_fill(c->type, c->op, c->seed, input, c->n);
  int ok = c->path == TU_PATH_HOST ? run_host(ctx, c, input, msg, cap)
                                   : run_device(ctx, c, input, msg, cap);
  free(input);
  return ok;
}
