/*
 * clscan tests: the context, seeds, watchdog and buffers shared by the test programs (see
 * test_util.h; cases are in test_case.c).
 */
#include "test_util.h"

#include <inttypes.h>
#include <pthread.h>
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

int tu_device_has_int64_atomics(void) {
  static char ext[16384];
  ext[0] = '\0';
  clGetDeviceInfo(clscan_context_device(tu_context()), CL_DEVICE_EXTENSIONS, sizeof ext - 1, ext,
                  NULL);
  return strstr(ext, "cl_khr_int64_base_atomics") && strstr(ext, "cl_khr_int64_extended_atomics");
}

/* Writes the name of the context's platform into name (cap bytes, "" when unknown). */
static void platform_name(char *name, size_t cap) {
  cl_platform_id platform = NULL;
  name[0] = '\0';
  clGetDeviceInfo(clscan_context_device(tu_context()), CL_DEVICE_PLATFORM, sizeof platform,
                  &platform, NULL);
  if (platform)
    clGetPlatformInfo(platform, CL_PLATFORM_NAME, cap, name, NULL);
  name[cap - 1] = '\0';
}

int tu_on_rusticl(void) {
  char name[64];
  platform_name(name, sizeof name);
  return strcmp(name, "rusticl") == 0;
}

int tu_pocl_major(void) {
  char name[64], driver[64] = "";
  platform_name(name, sizeof name);
  if (strcmp(name, "Portable Computing Language") != 0)
    return 0;
  clGetDeviceInfo(clscan_context_device(tu_context()), CL_DRIVER_VERSION, sizeof driver - 1, driver,
                  NULL);
  return atoi(driver);
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

size_t tu_draw(uint64_t *state, size_t m) {
  return tu_random_size(state, 0, m - 1);
}

double tu_seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static double property_start = -1.0;

int tu_property_more(size_t done, size_t cases, double seconds) {
  if (property_start < 0)
    property_start = tu_seconds();
  const char *c = getenv("CLSCAN_TEST_PROPERTY_CASES"), *s = getenv("CLSCAN_TEST_PROPERTY_SECONDS");
  if (c && *c)
    cases = (size_t)strtoull(c, NULL, 10);
  if (s && *s)
    seconds = strtod(s, NULL);
  return done < cases && tu_property_elapsed() < seconds;
}

double tu_property_elapsed(void) {
  return property_start < 0 ? 0.0 : tu_seconds() - property_start;
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

cl_mem tu_buffer_with(clscan_context *ctx, size_t bytes, const void *data) {
  const size_t size = bytes ? bytes : 1;
  cl_mem buf = tu_buffer(ctx, CL_MEM_READ_WRITE, size);
  unsigned char *poison = data ? NULL : malloc(size);
  if (poison)
    memset(poison, TU_POISON, size);
  if (buf && (data || poison) &&
      tu_write(ctx, NULL, buf, 0, data ? bytes : size, data ? data : poison)) {
    free(poison);
    return buf;
  }
  fprintf(stderr, "clscan tests: a buffer of %zu bytes could not be created and filled\n", bytes);
  free(poison);
  if (buf)
    clReleaseMemObject(buf);
  return NULL;
}

size_t tu_sub_buffer_align(clscan_context *ctx, size_t at_least) {
  cl_uint bits = 0;
  clGetDeviceInfo(clscan_context_device(ctx), CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof bits, &bits,
                  NULL);
  return bits / 8 < at_least ? at_least : bits / 8;
}

cl_mem tu_sub_buffer(cl_mem parent, size_t origin, size_t size) {
  cl_buffer_region r = {origin, size};
  cl_int err = CL_SUCCESS;
  cl_mem sub = clCreateSubBuffer(parent, 0, CL_BUFFER_CREATE_TYPE_REGION, &r, &err);
  if (err != CL_SUCCESS) {
    fprintf(stderr, "clscan tests: clCreateSubBuffer([%zu, %zu)) returned %d\n", origin,
            origin + size, (int)err);
    return NULL;
  }
  return sub;
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
