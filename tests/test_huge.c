/*
 * clscan tests: scans of 2^31 elements and more (64-bit indices all the way through).
 *
 * Each case fills a device buffer chunk by chunk from a generator that can restart at any chunk,
 * scans it with clscan_scan, then reads the result back chunk by chunk and compares it with a
 * running host reference, regenerating the input as it goes: the host never holds more than two
 * chunks, whatever n is. Integer add wraps, so the reference is exact.
 *
 * A case the device cannot hold (one buffer larger than CL_DEVICE_MAX_MEM_ALLOC_SIZE, or buffers
 * larger than its global memory) is skipped with the reason. POCL on a 24 GiB machine allows
 * 2 GiB per buffer and about 5 GiB in all, so there the largest case is 2^31 int8 elements; the
 * other cases (2^31 + 5 int32, 2^32 + 3 int8, 2^32 + 1 int32, and 2^32 + 3 uint8 counts summed
 * into uint64, the compaction pattern with mixed types) need a device with larger allocations
 * (a GPU: see the README's Reliability section).
 *
 * Usage: test_huge [--all-algorithms] [--case K]
 *   --all-algorithms  runs every case with every algorithm, not only AUTO;
 *   --case K          runs only case K (0-based, in the order of `cases` below).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "test_util.h"

/* Elements per chunk of the fill and the check (64 MiB of int8, 256 MiB of int32). */
#define CHUNK ((size_t)1 << 26)

/* One huge scan. */
typedef struct huge_case {
  clscan_type type; /* CLSCAN_INT8, CLSCAN_UINT8 or CLSCAN_INT32 */
  size_t n;
  int in_place, exclusive;
  int32_t init; /* used when has_init (same-type cases only) */
  int has_init;
  clscan_out_type out_type; /* CLSCAN_OUT_SAME or CLSCAN_OUT_UINT64 */
} huge_case;

static const huge_case cases[] = {
    {CLSCAN_INT8, ((size_t)1 << 31), 0, 0, 0, 0, CLSCAN_OUT_SAME}, /* POCL's 2 GiB */
    {CLSCAN_INT32, ((size_t)1 << 31) + 5, 1, 1, -123456789, 1,
     CLSCAN_OUT_SAME},                                                    /* 8 GiB in place */
    {CLSCAN_INT8, ((size_t)1 << 32) + 3, 0, 1, 0, 0, CLSCAN_OUT_SAME},    /* 4 + 4 GiB */
    {CLSCAN_INT32, ((size_t)1 << 32) + 1, 0, 0, 0, 0, CLSCAN_OUT_SAME},   /* 16 + 16 GiB */
    {CLSCAN_UINT8, ((size_t)1 << 32) + 3, 0, 1, 0, 0, CLSCAN_OUT_UINT64}, /* 4 + 32 GiB */
};
#define CASE_COUNT (sizeof cases / sizeof cases[0])

/* ============================================================================================== */
/* Data                                                                                           */
/* ============================================================================================== */

/* Fills elements [first, first + count) of the input (count <= CHUNK); element values depend on
 * the seed and the chunk only, so any chunk can be regenerated. */
static void generate(const huge_case *h, uint64_t seed, size_t first, size_t count, void *out) {
  uint64_t x = tu_mix(seed, first / CHUNK) | 1;
  for (size_t i = 0; i < count; i++) {
    // xorshift64*: cheap enough for billions of elements.
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    uint64_t r = x * 0x2545F4914F6CDD1Dull;
    if (h->type == CLSCAN_INT8 || h->type == CLSCAN_UINT8)
      ((uint8_t *)out)[i] = (uint8_t)(r >> 56);
    else
      ((int32_t *)out)[i] = (int32_t)(r >> 32);
  }
}

/* ============================================================================================== */
/* One case                                                                                       */
/* ============================================================================================== */

/* Bytes per output element. */
static size_t out_size(const huge_case *h) {
  clscan_scan_desc d = {.type = h->type, .out_type = h->out_type};
  return clscan_ref_out_size(&d);
}

/* Element i of an input chunk, as the scan adds it (int8 and int32 sign-extend). */
static uint64_t in_value(const huge_case *h, const void *chunk, size_t i) {
  switch (h->type) {
    case CLSCAN_INT8:
      return (uint64_t)(int64_t)((const int8_t *)chunk)[i];
    case CLSCAN_UINT8:
      return ((const uint8_t *)chunk)[i];
    default:
      return (uint64_t)(int64_t)((const int32_t *)chunk)[i];
  }
}

/* Element i of an output chunk, zero-extended to 64 bits. */
static uint64_t out_value(const huge_case *h, const void *chunk, size_t i) {
  switch (out_size(h)) {
    case 1:
      return ((const uint8_t *)chunk)[i];
    case 4:
      return ((const uint32_t *)chunk)[i];
    default:
      return ((const uint64_t *)chunk)[i];
  }
}

/* Returns NULL if the device can hold the case, else why not (in buf). */
static const char *too_big(const huge_case *h, char *buf, size_t cap) {
  cl_device_id dev = clscan_context_device(tu_context());
  cl_ulong max_alloc = 0, global = 0;
  clGetDeviceInfo(dev, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof max_alloc, &max_alloc, NULL);
  clGetDeviceInfo(dev, CL_DEVICE_GLOBAL_MEM_SIZE, sizeof global, &global, NULL);
  cl_ulong in_bytes = (cl_ulong)h->n * clscan_type_size(h->type);
  cl_ulong bytes = (cl_ulong)h->n * out_size(h);
  cl_ulong total = h->in_place ? bytes : in_bytes + bytes;
  if (bytes > max_alloc) {
    snprintf(buf, cap,
             "a buffer of %" PRIu64 " bytes exceeds the device's largest allocation (%" PRIu64
             " bytes)",
             (uint64_t)bytes, (uint64_t)max_alloc);
    return buf;
  }
  // The library's temporary buffers are small next to these; leave 1/16 of memory for them.
  if (total > global - global / 16) {
    snprintf(buf, cap,
             "%" PRIu64 " bytes of buffers exceed the device's global memory (%" PRIu64 " bytes)",
             (uint64_t)total, (uint64_t)global);
    return buf;
  }
  return NULL;
}

/* Writes the generated input into buf, chunk by chunk. */
static int fill(const huge_case *h, uint64_t seed, cl_mem buf, void *chunk) {
  size_t e = clscan_type_size(h->type);
  for (size_t first = 0; first < h->n; first += CHUNK) {
    size_t count = h->n - first < CHUNK ? h->n - first : CHUNK;
    generate(h, seed, first, count, chunk);
    if (!tu_write(tu_context(), NULL, buf, first * e, count * e, chunk))
      return 0;
  }
  return 1;
}

/* Compares the result with the running reference, chunk by chunk; prints the first mismatch. */
static int check(const huge_case *h, uint64_t seed, cl_mem out, void *in_chunk, void *out_chunk) {
  size_t e = out_size(h);
  uint64_t mask = e == 8 ? UINT64_MAX : ((uint64_t)1 << (8 * e)) - 1;
  uint64_t acc = h->has_init ? (uint64_t)(int64_t)h->init : 0; /* wraps; low bits compared */
  for (size_t first = 0; first < h->n; first += CHUNK) {
    size_t count = h->n - first < CHUNK ? h->n - first : CHUNK;
    char what[96];
    snprintf(what, sizeof what, "huge: checking elements from %zu", first);
    tu_progress(what);
    generate(h, seed, first, count, in_chunk);
    if (!tu_read(tu_context(), NULL, out, first * e, count * e, out_chunk))
      return 0;
    for (size_t i = 0; i < count; i++) {
      uint64_t x = in_value(h, in_chunk, i);
      uint64_t want = (h->exclusive ? acc : acc + x) & mask;
      acc += x;
      uint64_t got = out_value(h, out_chunk, i);
      if (got != want) {
        printf("  MISMATCH at index %zu: got %" PRIu64 ", want %" PRIu64 " (low %zu bytes)\n",
               first + i, got, want, e);
        return 0;
      }
    }
  }
  return 1;
}

/* Runs one case with one algorithm; returns 1 (passed), 0 (failed) or -1 (skipped). */
static int run_case(const huge_case *h, clscan_algorithm algo, uint64_t seed) {
  clscan_context *ctx = tu_context();
  size_t e = clscan_type_size(h->type), eo = out_size(h);
  char why[256], label[160];
  snprintf(label, sizeof label, "%s %s%s %s n=%zu (2^%d%+lld)%s%s", clscan_algorithm_name(algo),
           clscan_type_name(h->type), h->out_type ? " -> uint64" : "",
           h->exclusive ? "exclusive" : "inclusive", h->n, h->n >= ((size_t)1 << 32) ? 32 : 31,
           (long long)(h->n - (h->n >= ((size_t)1 << 32) ? ((size_t)1 << 32) : ((size_t)1 << 31))),
           h->has_init ? " with init" : "", h->in_place ? ", in place" : "");
  if (too_big(h, why, sizeof why)) {
    printf("  skip %s: %s\n", label, why);
    return -1;
  }
  printf("  %s: data seed %" PRIu64 "\n", label, seed);
  fflush(stdout);
  void *in_chunk = malloc(CHUNK * e), *out_chunk = malloc(CHUNK * eo);
  cl_mem in = tu_buffer(ctx, CL_MEM_READ_WRITE, h->n * e);
  cl_mem out = h->in_place || !in ? in : tu_buffer(ctx, CL_MEM_READ_WRITE, h->n * eo);
  int ok = in_chunk && out_chunk && in && out;
  if (!ok)
    printf("  FAILED %s: out of host or device memory\n", label);
  struct timespec t0, t1, t2, t3;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  tu_progress("huge: filling");
  if (ok && !(ok = fill(h, seed, in, in_chunk)))
    printf("  FAILED %s: writing the input failed\n", label);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  if (ok) {
    tu_progress(label);
    clscan_scan_desc desc = {.type = h->type,
                             .op = CLSCAN_ADD,
                             .exclusive = h->exclusive,
                             .algorithm = algo,
                             .out_type = h->out_type};
    int8_t init8 = (int8_t)h->init;
    if (h->has_init)
      desc.init = h->type == CLSCAN_INT8 ? (const void *)&init8 : (const void *)&h->init;
    cl_event done = NULL;
    clscan_status st = clscan_scan(ctx, NULL, &desc, in, 0, out, 0, h->n, 0, NULL, &done);
    if (st == CLSCAN_SUCCESS) {
      clWaitForEvents(1, &done);
      clReleaseEvent(done);
    } else {
      printf("  FAILED %s: clscan_scan returned %s (%s)\n", label, clscan_status_string(st),
             clscan_last_error_detail());
      ok = 0;
    }
  }
  clock_gettime(CLOCK_MONOTONIC, &t2);
  if (ok && !(ok = check(h, seed, out, in_chunk, out_chunk)))
    printf("  FAILED %s: wrong result (above)\n", label);
  clock_gettime(CLOCK_MONOTONIC, &t3);
  if (ok)
    printf("  ok   %s: fill %.1f s, scan %.1f s, check %.1f s\n", label,
           (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec),
           (double)(t2.tv_sec - t1.tv_sec) + 1e-9 * (double)(t2.tv_nsec - t1.tv_nsec),
           (double)(t3.tv_sec - t2.tv_sec) + 1e-9 * (double)(t3.tv_nsec - t2.tv_nsec));
  if (out && out != in)
    clReleaseMemObject(out);
  if (in)
    clReleaseMemObject(in);
  free(in_chunk);
  free(out_chunk);
  fflush(stdout);
  return ok;
}

int main(int argc, char **argv) {
  int all = 0;
  long only = -1;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--all-algorithms") == 0) {
      all = 1;
    } else if (strcmp(argv[i], "--case") == 0 && i + 1 < argc) {
      only = strtol(argv[++i], NULL, 10);
    } else {
      fprintf(stderr, "usage: test_huge [--all-algorithms] [--case K]\n");
      return 2;
    }
  }
  if (!tu_context())
    return 1;
  size_t largest = 0;
  int failed = 0, passed = 0;
  for (size_t i = 0; i < CASE_COUNT; i++) {
    if (only >= 0 && (size_t)only != i)
      continue;
    static const clscan_algorithm algos[] = {CLSCAN_ALGO_AUTO, CLSCAN_ALGO_SINGLE_PASS,
                                             CLSCAN_ALGO_REDUCE_THEN_SCAN, CLSCAN_ALGO_BLELLOCH,
                                             CLSCAN_ALGO_HILLIS_STEELE};
    // With --all-algorithms every case runs each explicit algorithm (AUTO is one of them).
    size_t first = all ? 1 : 0, last = all ? sizeof algos / sizeof algos[0] : 1;
    for (size_t a = first; a < last; a++) {
      int r = run_case(&cases[i], algos[a], tu_mix(tu_seed(), 0x4A6E + i));
      if (r == 1) {
        passed++;
        if (cases[i].n > largest)
          largest = cases[i].n;
      }
      failed += r == 0;
    }
  }
  printf("huge: largest n verified: %zu on \"%s\"\n", largest, tu_device_name());
  printf("%d passed, %d failed\n", passed, failed);
  tu_context_release();
  return failed ? 1 : 0;
}
