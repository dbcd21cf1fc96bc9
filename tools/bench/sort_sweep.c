/*
 * clscan tools: sort_sweep, the radix sort under chosen shapes and build options, for tuning.
 *
 * For each configuration ALGO:KIND:TYPE[:ITEMS[:OPTIONS]] it creates a sort plan (ALGO lsd,
 * onesweep or auto; KIND keys, or pairs with uint32 index values; TYPE u32, i32, f32, u64, i64 or
 * f64) with ITEMS keys per work-item of the warp ranking (CLSCAN_SORT_ITEMS; 0 or absent: the
 * default) and the extra build options OPTIONS (CLSCAN_BUILD_OPTIONS), sorts 2^LOG2N uniformly
 * random keys (every bit random, so float keys include NaNs and infinities) REPS times after two
 * warm-ups, and prints the median time from a marker after the unsorted keys are restored (and
 * the queue finished) to the sort's end (by profiling events; by the host's clock around the
 * enqueue and the wait where the events do not measure, as on rusticl), in keys per second. The
 * sorted keys and values of the last run are compared byte for byte with a reference before the
 * line is printed: the library's default sort of the same keys with index values, checked on the
 * host to be the stable sort (each index once, each key the unsorted key its index names, keys
 * ascending by their ordered bits and equal ones by index). All configurations share one context
 * and queue. `clscan bench --family sort` measures the library's defaults over more key
 * distributions; this program compares shapes in one process.
 *
 *   build/sort_sweep LOG2N REPS CONFIG...   e.g. build/sort_sweep 28 10 lsd:keys:u32 lsd:pairs:u32
 *
 * A configuration the device refuses (CLSCAN_UNSUPPORTED_BY_DEVICE) is skipped with a line that
 * says so. Exit status: 0 when every output was right, 1 when one was
 * wrong, 2 for bad arguments or a failed OpenCL or clscan call.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clscan.h"
#include "measure.h"

/* A key type: its name here, clscan type, size and how its ordered bits are made. */
typedef struct key_kind {
  const char *name;
  clscan_type type;
  size_t size;
  int order; /* 0: unsigned, 1: signed (sign bit flipped), 2: floating point */
} key_kind;

static const key_kind key_kinds[] = {
    {"u32", CLSCAN_UINT32, 4, 0}, {"i32", CLSCAN_INT32, 4, 1}, {"f32", CLSCAN_FLOAT, 4, 2},
    {"u64", CLSCAN_UINT64, 8, 0}, {"i64", CLSCAN_INT64, 8, 1}, {"f64", CLSCAN_DOUBLE, 8, 2},
};

/* One configuration of the command line. */
typedef struct config {
  const char *text;
  clscan_sort_algorithm algo;
  int pairs;
  const key_kind *key;
  unsigned items;
  const char *options;
} config;

/* The data of one key type: the random keys and the host's sorted keys and index values. */
typedef struct data {
  const key_kind *key;
  size_t n;
  unsigned char *keys, *sorted_keys;
  uint32_t *sorted_index;
} data;

/* What every configuration shares. */
typedef struct sweep {
  clscan_context *ctx;
  cl_command_queue queue;
  size_t n;
  int reps;
  cl_mem keys, values, pristine_keys, pristine_values;
  data d;
  unsigned char *out_keys;
  uint32_t *out_values;
} sweep;

/* splitmix64: the i-th random word of the stream. */
static uint64_t random_word(uint64_t i) {
  uint64_t z = (i + 1) * 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/* The ordered bits of key i (see cl/radix_sort.cl): ascending order of the key type. */
static uint64_t ordered(const key_kind *k, const unsigned char *keys, size_t i) {
  uint64_t v = 0;
  memcpy(&v, keys + i * k->size, k->size); /* little-endian host */
  const uint64_t sign = 1ull << (k->size * 8 - 1), all = k->size == 8 ? ~0ull : 0xFFFFFFFFull;
  if (k->order == 1)
    v ^= sign;
  else if (k->order == 2)
    v = (v & sign) ? ~v & all : v | sign;
  return v;
}

/* Checks that (keys, index) is the stable sort of the unsorted keys, in one pass: the index
 * values are a permutation, each key is the unsorted key its index names, and consecutive keys
 * ascend by their ordered bits, equal ones by index. Returns the number of positions that break
 * one of these (0: it is the stable sort, which is unique), -1 without memory. */
static long check_stable_sort(const data *d, const unsigned char *keys, const uint32_t *index) {
  const size_t n = d->n, ks = d->key->size;
  unsigned char *seen = calloc(n, 1);
  if (!seen)
    return -1;
  long wrong = 0;
  for (size_t i = 0; i < n; i++) {
    const uint32_t from = index[i];
    int bad = from >= n || seen[from] ||
              memcmp(keys + i * ks, d->keys + (size_t)(from < n ? from : 0) * ks, ks) != 0;
    if (from < n)
      seen[from] = 1;
    if (!bad && i > 0) {
      const uint64_t a = ordered(d->key, keys, i - 1), b = ordered(d->key, keys, i);
      bad = a > b || (a == b && index[i - 1] > from);
    }
    wrong += bad;
  }
  free(seen);
  return wrong;
}

static int sort_once(sweep *s, clscan_sort_plan *plan, const config *c, double *ms);

/* The reference of a key type: the library's default sort of the keys with their indices as
 * values, checked to be the stable sort (check_stable_sort), so that every configuration's
 * output can be compared with it byte for byte. Returns 0 if it cannot be made or is wrong. */
static int make_reference(sweep *s, const key_kind *k) {
  config c = {.text = "reference", .algo = CLSCAN_SORT_AUTO, .pairs = 1, .key = k, .options = ""};
  clscan_sort_desc desc = {.key_type = k->type, .value_size = 4};
  clscan_sort_plan *plan = NULL;
  double ms;
  clscan_status st = clscan_sort_plan_create(s->ctx, &desc, &plan);
  int ok = st == CLSCAN_SUCCESS && sort_once(s, plan, &c, &ms);
  clscan_sort_plan_release(plan);
  cl_int err = ok ? clEnqueueReadBuffer(s->queue, s->keys, CL_TRUE, 0, s->n * k->size,
                                        s->d.sorted_keys, 0, NULL, NULL)
                  : CL_SUCCESS;
  if (ok && err == CL_SUCCESS)
    err = clEnqueueReadBuffer(s->queue, s->values, CL_TRUE, 0, s->n * 4, s->d.sorted_index, 0, NULL,
                              NULL);
  long wrong = -1;
  if (ok && err == CL_SUCCESS)
    wrong = check_stable_sort(&s->d, s->d.sorted_keys, s->d.sorted_index);
  if (wrong)
    fprintf(stderr, "sort_sweep: the reference sort of %s keys %s (%ld wrong)\n", k->name,
            wrong > 0 ? "is WRONG" : "failed", wrong);
  return wrong == 0;
}

/* Makes the random keys of a key type and their reference (once per type in a row). */
static int make_data(sweep *s, const key_kind *k) {
  if (s->d.key == k)
    return 1;
  s->d.key = k;
  for (size_t i = 0; i < s->n; i++) {
    uint64_t w = random_word(i ^ 0x5EEDull);
    memcpy(s->d.keys + i * k->size, &w, k->size);
  }
  cl_int err = clEnqueueWriteBuffer(s->queue, s->pristine_keys, CL_TRUE, 0, s->n * k->size,
                                    s->d.keys, 0, NULL, NULL);
  if (err != CL_SUCCESS) {
    fprintf(stderr, "sort_sweep: uploading the keys failed (error %d)\n", (int)err);
    return 0;
  }
  double t0 = measure_host_ms();
  if (!make_reference(s, k))
    return 0;
  printf("keys %s: random bits (splitmix64); reference checked in %.0f ms\n", k->name,
         measure_host_ms() - t0);
  return 1;
}

/* Parses ALGO:KIND:TYPE[:ITEMS[:OPTIONS]]; returns 0 (after a message) if it is malformed. */
static int parse_config(const char *text, config *c) {
  char algo[16] = "", kind[16] = "", type[16] = "";
  int used = 0;
  memset(c, 0, sizeof *c);
  c->text = text;
  c->options = "";
  if (sscanf(text, "%15[^:]:%15[^:]:%15[^:]%n", algo, kind, type, &used) != 3)
    goto bad;
  const char *rest = text + used;
  if (*rest == ':') {
    char *end;
    c->items = (unsigned)strtoul(rest + 1, &end, 10);
    if (end == rest + 1 || (*end && *end != ':'))
      goto bad;
    c->options = *end == ':' ? end + 1 : "";
  } else if (*rest) {
    goto bad;
  }
  c->algo = !strcmp(algo, "lsd")        ? CLSCAN_SORT_LSD
            : !strcmp(algo, "onesweep") ? CLSCAN_SORT_ONESWEEP
            : !strcmp(algo, "auto")     ? CLSCAN_SORT_AUTO
                                        : CLSCAN_SORT_ALGORITHM_COUNT;
  c->pairs = !strcmp(kind, "pairs") ? 1 : !strcmp(kind, "keys") ? 0 : -1;
  for (size_t i = 0; i < sizeof key_kinds / sizeof key_kinds[0]; i++) {
    if (!strcmp(type, key_kinds[i].name))
      c->key = &key_kinds[i];
  }
  if (c->algo != CLSCAN_SORT_ALGORITHM_COUNT && c->pairs >= 0 && c->key && c->items <= 64)
    return 1;
bad:
  fprintf(stderr,
          "sort_sweep: '%s' is not ALGO:KIND:TYPE[:ITEMS[:OPTIONS]] (ALGO lsd, onesweep or auto; "
          "KIND keys or pairs; TYPE u32, i32, f32, u64, i64 or f64)\n",
          text);
  return 0;
}

/* Restores the unsorted keys (and index values), then sorts them; *ms gets the sort's time. */
static int sort_once(sweep *s, clscan_sort_plan *plan, const config *c, double *ms) {
  const size_t kb = s->n * c->key->size;
  cl_event marker = NULL, done = NULL;
  cl_int err = clEnqueueCopyBuffer(s->queue, s->pristine_keys, s->keys, 0, 0, kb, 0, NULL, NULL);
  if (err == CL_SUCCESS && c->pairs)
    err =
        clEnqueueCopyBuffer(s->queue, s->pristine_values, s->values, 0, 0, s->n * 4, 0, NULL, NULL);
  // The sort starts on an idle device, as cub_bench's sorts and `clscan bench`'s do (on an H100
  // a marker enqueued behind the copies measured the same).
  if (err == CL_SUCCESS)
    err = clFinish(s->queue);
  const double t0 = measure_host_ms();
  if (err == CL_SUCCESS)
    err = clEnqueueMarkerWithWaitList(s->queue, 0, NULL, &marker);
  clscan_status st = CLSCAN_SUCCESS;
  if (err == CL_SUCCESS)
    st = clscan_sort_enqueue(plan, s->queue, s->keys, 0, c->pairs ? s->values : NULL, 0, s->n, 0,
                             NULL, &done);
  int ok = err == CL_SUCCESS && st == CLSCAN_SUCCESS && clWaitForEvents(1, &done) == CL_SUCCESS;
  ok = ok && measure_span_ms(marker, done, measure_host_ms() - t0, ms);
  if (!ok)
    fprintf(stderr, "sort_sweep: %s: the sort failed (OpenCL %d, %s)\n", c->text, (int)err,
            clscan_status_string(st));
  if (marker)
    clReleaseEvent(marker);
  if (done)
    clReleaseEvent(done);
  return ok;
}

/* Reads the last sort back and counts the keys or values that differ from the host sort. */
static long verify(sweep *s, const config *c) {
  const size_t ks = c->key->size;
  cl_int err =
      clEnqueueReadBuffer(s->queue, s->keys, CL_TRUE, 0, s->n * ks, s->out_keys, 0, NULL, NULL);
  if (err == CL_SUCCESS && c->pairs)
    err = clEnqueueReadBuffer(s->queue, s->values, CL_TRUE, 0, s->n * 4, s->out_values, 0, NULL,
                              NULL);
  if (err != CL_SUCCESS)
    return -1;
  long wrong = 0;
  for (size_t i = 0; i < s->n; i++) {
    int bad = memcmp(s->out_keys + i * ks, s->d.sorted_keys + i * ks, ks) != 0;
    bad |= c->pairs && s->out_values[i] != s->d.sorted_index[i];
    wrong += bad;
  }
  return wrong;
}

/* Measures one configuration; returns 0 when right, 1 when wrong, 2 when it failed. */
static int run_config(sweep *s, const config *c) {
  if (!make_data(s, c->key))
    return 2;
  char items[16];
  snprintf(items, sizeof items, "%u", c->items);
  c->items ? setenv("CLSCAN_SORT_ITEMS", items, 1) : unsetenv("CLSCAN_SORT_ITEMS");
  setenv("CLSCAN_BUILD_OPTIONS", c->options, 1);
  clscan_sort_desc desc = {
      .key_type = c->key->type, .value_size = c->pairs ? 4 : 0, .algorithm = c->algo};
  clscan_sort_plan *plan = NULL;
  clscan_status st = clscan_sort_plan_create(s->ctx, &desc, &plan);
  unsetenv("CLSCAN_SORT_ITEMS");
  unsetenv("CLSCAN_BUILD_OPTIONS");
  if (st == CLSCAN_UNSUPPORTED_BY_DEVICE) {
    printf("%-40s skipped: %s\n", c->text, clscan_status_string(st));
    return 0;
  }
  if (st != CLSCAN_SUCCESS) {
    fprintf(stderr, "sort_sweep: %s: %s\n", c->text, clscan_status_string(st));
    return 2;
  }
  double *times = calloc((size_t)s->reps, sizeof *times), warm;
  int ok = times != NULL;
  for (int i = 0; ok && i < 2; i++)
    ok = sort_once(s, plan, c, &warm);
  for (int i = 0; ok && i < s->reps; i++)
    ok = sort_once(s, plan, c, &times[i]);
  long wrong = ok ? verify(s, c) : -1;
  if (wrong == 0) {
    double ms = measure_median(times, (size_t)s->reps);
    printf("%-40s %9.4f ms %8.2f G keys/s  ok\n", c->text, ms, (double)s->n / (ms * 1e6));
  } else if (wrong > 0) {
    printf("%-40s WRONG: %ld of %zu keys or values differ (no time reported)\n", c->text, wrong,
           s->n);
  }
  fflush(stdout);
  free(times);
  clscan_sort_plan_release(plan);
  return wrong == 0 ? 0 : wrong > 0 ? 1 : 2;
}

/* Creates a device buffer of `bytes` bytes. */
static cl_mem new_buffer(sweep *s, size_t bytes) {
  cl_int err;
  cl_mem m =
      clCreateBuffer(clscan_context_cl_context(s->ctx), CL_MEM_READ_WRITE, bytes, NULL, &err);
  if (err != CL_SUCCESS)
    fprintf(stderr, "sort_sweep: clCreateBuffer of %zu bytes failed (error %d)\n", bytes, (int)err);
  return err == CL_SUCCESS ? m : NULL;
}

/* Creates the context, buffers and host arrays (for keys of up to `ks` bytes). */
static int setup(sweep *s, size_t ks) {
  clscan_status st = clscan_context_create_default(&s->ctx);
  if (st != CLSCAN_SUCCESS) {
    fprintf(stderr, "sort_sweep: no device: %s\n", clscan_status_string(st));
    return 0;
  }
  s->queue = clscan_context_queue(s->ctx);
  s->keys = new_buffer(s, s->n * ks);
  s->pristine_keys = s->keys ? new_buffer(s, s->n * ks) : NULL;
  s->values = s->pristine_keys ? new_buffer(s, s->n * 4) : NULL;
  s->pristine_values = s->values ? new_buffer(s, s->n * 4) : NULL;
  if (!s->pristine_values)
    return 0;
  s->d.n = s->n;
  s->d.keys = malloc(s->n * ks);
  s->d.sorted_keys = malloc(s->n * ks);
  s->d.sorted_index = malloc(s->n * 4);
  s->out_keys = malloc(s->n * ks);
  s->out_values = malloc(s->n * 4);
  if (!s->d.keys || !s->d.sorted_keys || !s->d.sorted_index || !s->out_keys || !s->out_values) {
    fprintf(stderr, "sort_sweep: out of host memory for n = %zu\n", s->n);
    return 0;
  }
  for (size_t i = 0; i < s->n; i++)
    s->out_values[i] = (uint32_t)i;
  cl_int err = clEnqueueWriteBuffer(s->queue, s->pristine_values, CL_TRUE, 0, s->n * 4,
                                    s->out_values, 0, NULL, NULL);
  if (err != CL_SUCCESS) {
    fprintf(stderr, "sort_sweep: uploading the values failed (error %d)\n", (int)err);
    return 0;
  }
  char device[256] = "";
  clGetDeviceInfo(clscan_context_device(s->ctx), CL_DEVICE_NAME, sizeof device, device, NULL);
  int events = measure_events_usable(s->queue, s->pristine_values, s->values, s->n * 4, NULL, NULL);
  measure_use_wall_clock(!events);
  printf("sort_sweep on %s, n = %zu, median of %d%s\n", device, s->n, s->reps,
         events ? "" : " (wall clock: profiling events do not measure here)");
  return 1;
}

/* Releases what setup() created. */
static void teardown(sweep *s) {
  cl_mem all[4] = {s->keys, s->values, s->pristine_keys, s->pristine_values};
  for (int i = 0; i < 4; i++) {
    if (all[i])
      clReleaseMemObject(all[i]);
  }
  free(s->d.keys);
  free(s->d.sorted_keys);
  free(s->d.sorted_index);
  free(s->out_keys);
  free(s->out_values);
  clscan_context_release(s->ctx);
}

int main(int argc, char **argv) {
  sweep s = {0};
  if (!measure_sweep_args(argc, argv, "sort_sweep",
                          "LOG2N REPS ALGO:KIND:TYPE[:ITEMS[:OPTIONS]]...", 31, &s.n, &s.reps,
                          NULL))
    return 2;
  const int count = argc - 3;
  config *configs = calloc((size_t)count, sizeof *configs);
  size_t ks = 4;
  for (int i = 0; configs && i < count; i++) {
    if (!parse_config(argv[3 + i], &configs[i])) {
      free(configs);
      return 2;
    }
    ks = configs[i].key->size > ks ? configs[i].key->size : ks;
  }
  if (!configs)
    return 2;
  int status = setup(&s, ks) ? 0 : 2;
  for (int i = 0; status < 2 && i < count; i++) {
    int r = run_config(&s, &configs[i]);
    status = r > status ? r : status;
  }
  teardown(&s);
  free(configs);
  return status;
}
