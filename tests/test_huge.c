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
 * 2^32 + 3 and 2^31 + 5 cases need a device with larger allocations (a GPU: see
 * the README's Reliability section).
 *
 * Usage: test_huge [--all-algorithms]   (also scans the 2^31 case with every algorithm)
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
  clscan_type type; /* CLSCAN_INT8 or CLSCAN_INT32 */
  size_t n;
  int in_place, exclusive;
  int32_t init; /* used when has_init */
  int has_init;
} huge_case;

static const huge_case cases[] = {
    {CLSCAN_INT8, ((size_t)1 << 31), 0, 0, 0, 0},               /* fits POCL's 2 GiB */
    {CLSCAN_INT32, ((size_t)1 << 31) + 5, 1, 1, -123456789, 1}, /* 8 GiB, in place */
    {CLSCAN_INT8, ((size_t)1 << 32) + 3, 0, 1, 0, 0},           /* 4 GiB + 4 GiB */
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
    if (h->type == CLSCAN_INT8)
      ((int8_t *)out)[i] = (int8_t)(r >> 56);
    else
      ((int32_t *)out)[i] = (int32_t)(r >> 32);
  }
}

/* ============================================================================================== */
/* One case                                                                                       */
/* ============================================================================================== */

/* Returns NULL if the device can hold the case, else why not (in buf). */
static const char *too_big(const huge_case *h, char *buf, size_t cap) {
  cl_device_id dev = clscan_context_device(tu_context());
  cl_ulong max_alloc = 0, global = 0;
  clGetDeviceInfo(dev, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof max_alloc, &max_alloc, NULL);
  clGetDeviceInfo(dev, CL_DEVICE_GLOBAL_MEM_SIZE, sizeof global, &global, NULL);
  cl_ulong bytes = (cl_ulong)h->n * clscan_type_size(h->type);
  cl_ulong total = bytes * (h->in_place ? 1 : 2);
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
  size_t e = clscan_type_size(h->type);
  uint32_t acc = h->has_init ? (uint32_t)h->init : 0; /* wraps like the device, low bits kept */
  for (size_t first = 0; first < h->n; first += CHUNK) {
    size_t count = h->n - first < CHUNK ? h->n - first : CHUNK;
    char what[96];
    snprintf(what, sizeof what, "huge: checking elements from %zu", first);
    tu_progress(what);
    generate(h, seed, first, count, in_chunk);
    if (!tu_read(tu_context(), NULL, out, first * e, count * e, out_chunk))
      return 0;
    for (size_t i = 0; i < count; i++) {
      uint32_t x = h->type == CLSCAN_INT8 ? (uint32_t)((int8_t *)in_chunk)[i]
                                          : (uint32_t)((int32_t *)in_chunk)[i];
      uint32_t want = h->exclusive ? acc : acc + x;
      acc += x;
      uint32_t got = h->type == CLSCAN_INT8 ? (uint32_t)((int8_t *)out_chunk)[i]
                                            : (uint32_t)((int32_t *)out_chunk)[i];
      if (h->type == CLSCAN_INT8)
        want = (uint32_t)(int8_t)(uint8_t)want;
      if (got != want) {
        printf("  MISMATCH at index %zu: got %" PRId32 ", want %" PRId32 "\n", first + i,
               (int32_t)got, (int32_t)want);
        return 0;
      }
    }
  }
  return 1;
}

/* Runs one case with one algorithm; returns 1 (passed), 0 (failed) or -1 (skipped). */
static int run_case(const huge_case *h, clscan_algorithm algo, uint64_t seed) {
  clscan_context *ctx = tu_context();
  size_t e = clscan_type_size(h->type);
  char why[256], label[160];
  snprintf(label, sizeof label, "%s %s %s n=%zu (2^%d%+lld)%s%s", clscan_algorithm_name(algo),
           clscan_type_name(h->type), h->exclusive ? "exclusive" : "inclusive", h->n,
           h->n >= ((size_t)1 << 32) ? 32 : 31,
           (long long)(h->n - (h->n >= ((size_t)1 << 32) ? ((size_t)1 << 32) : ((size_t)1 << 31))),
           h->has_init ? " with init" : "", h->in_place ? ", in place" : "");
  if (too_big(h, why, sizeof why)) {
    printf("  skip %s: %s\n", label, why);
    return -1;
  }
  printf("  %s: data seed %" PRIu64 "\n", label, seed);
  fflush(stdout);
  void *in_chunk = malloc(CHUNK * e), *out_chunk = malloc(CHUNK * e);
  cl_mem in = tu_buffer(ctx, CL_MEM_READ_WRITE, h->n * e);
  cl_mem out = h->in_place || !in ? in : tu_buffer(ctx, CL_MEM_READ_WRITE, h->n * e);
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
    clscan_scan_desc desc = {
        .type = h->type, .op = CLSCAN_ADD, .exclusive = h->exclusive, .algorithm = algo};
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
  int all = argc > 1 && strcmp(argv[1], "--all-algorithms") == 0;
  if (!tu_context())
    return 1;
  size_t largest = 0;
  int failed = 0, passed = 0;
  for (size_t i = 0; i < CASE_COUNT; i++) {
    static const clscan_algorithm algos[] = {CLSCAN_ALGO_AUTO, CLSCAN_ALGO_SINGLE_PASS,
                                             CLSCAN_ALGO_REDUCE_THEN_SCAN, CLSCAN_ALGO_BLELLOCH,
                                             CLSCAN_ALGO_HILLIS_STEELE};
    size_t nalgos = all && i == 0 ? sizeof algos / sizeof algos[0] : 1;
    for (size_t a = 0; a < nalgos; a++) {
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
