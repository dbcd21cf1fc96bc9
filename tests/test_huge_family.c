/*
 * clscan tests: selections of more than 2^32 elements and sorts of more than 2^31 keys (64-bit
 * counts and indices through the selection's look-back, 32-bit ranks near their limit in the
 * sort).
 *
 * Like test_huge, the host never holds a whole array: inputs are generated chunk by chunk from a
 * counter-based hash (any element can be regenerated from its index), written to the device, and
 * the results are read back chunk by chunk and checked as they stream past.
 * - Selection by flags of n = 2^32 + 7 uint8 elements (about half selected, so the count passes
 *   2^31): the count, and every output element in order, against the regenerated input.
 * - Sort of n = 2^31 + 5 pairs, uint32 keys k(i) = C * i + D (mod 2^32; C odd, so the keys are
 *   distinct) with the uint32 index i as the value: the output keys must increase strictly, and
 *   each value v must satisfy v < n and k(v) == its key. Distinct keys give distinct values, so
 *   the values are a permutation of 0 .. n - 1 and the output is the unique sorted order.
 * - Sort of n = 2^31 + 5 uint64 keys only, descending, with the same construction in 64 bits:
 *   the keys must decrease strictly, and each must be k(v) for some v < n (k is invertible).
 *
 * A case the device cannot hold (a buffer above CL_DEVICE_MAX_MEM_ALLOC_SIZE, or buffers and the
 * temporary memory above its global memory) is skipped with the reason. CPU devices skip the
 * full-size cases too (POCL holds the selection, but it takes minutes of a CI machine's two
 * cores); `--small` runs the same cases at about 2^22 elements on every device, for the suite.
 *
 * Usage: test_huge_family [--small] [--case K]...
 *   --small   the same cases at about 2^22 elements;
 *   --case K  runs case K (0-based, in the order of main's list; repeatable), not every case.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "test_util.h"

/* Elements per chunk of the fill and the check. */
#define CHUNK ((size_t)1 << 26)

/* The keys' bijections: k(i) = C * i + D, and i = (k - D) * C^-1 (mod 2^32 or 2^64). */
#define C32 0x9E3779B1u
#define D32 0x7F4A7C15u
#define C64 0x9E3779B97F4A7C15ull
#define D64 0xD1B54A32D192ED03ull

/* The multiplicative inverse of an odd c modulo 2^64 (Newton's iteration, 6 steps). */
static uint64_t inverse64(uint64_t c) {
  uint64_t x = c;
  for (int i = 0; i < 6; i++)
    x *= 2 - c * x;
  return x;
}

/* A cheap counter-based hash of index i (splitmix64's finalizer). */
static uint64_t hash(uint64_t seed, uint64_t i) {
  uint64_t x = (i + seed) * 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  return x ^ (x >> 31);
}

/* Seconds since t0. */
static double since(const struct timespec *t0) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)(t.tv_sec - t0->tv_sec) + 1e-9 * (double)(t.tv_nsec - t0->tv_nsec);
}

/* Returns NULL if the device can hold buffers of the given sizes (largest: the largest of them)
 * plus temp bytes of temporary memory, else why not (in buf). */
static int small_run; /* --small */
static const char *too_big(size_t largest, size_t total, char *buf, size_t cap) {
  if (!small_run && tu_device_is_cpu()) {
    snprintf(buf, cap, "full-size cases run on GPUs only (--small covers CPU devices)");
    return buf;
  }
  cl_device_id dev = clscan_context_device(tu_context());
  cl_ulong max_alloc = 0, global = 0;
  clGetDeviceInfo(dev, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof max_alloc, &max_alloc, NULL);
  clGetDeviceInfo(dev, CL_DEVICE_GLOBAL_MEM_SIZE, sizeof global, &global, NULL);
  if (largest > max_alloc) {
    snprintf(buf, cap,
             "a buffer of %zu bytes exceeds the device's largest allocation (%" PRIu64 " bytes)",
             largest, (uint64_t)max_alloc);
    return buf;
  }
  if (total > global - global / 16) {
    snprintf(buf, cap, "%zu bytes of buffers exceed the device's global memory (%" PRIu64 " bytes)",
             total, (uint64_t)global);
    return buf;
  }
  return NULL;
}

/* Writes count elements of elem bytes, made by gen(seed, first, count, chunk), chunk by chunk. */
typedef void generator(uint64_t seed, size_t first, size_t count, void *chunk);
static int fill(cl_mem buf, size_t n, size_t elem, uint64_t seed, generator *gen, void *chunk) {
  for (size_t first = 0; first < n; first += CHUNK) {
    const size_t count = n - first < CHUNK ? n - first : CHUNK;
    gen(seed, first, count, chunk);
    if (!tu_write(tu_context(), NULL, buf, first * elem, count * elem, chunk))
      return 0;
  }
  return 1;
}

/* ============================================================================================== */
/* Selection                                                                                      */
/* ============================================================================================== */

/* An element's value and flag, from its hash h. */
static uint8_t sel_value(uint64_t h) {
  return (uint8_t)(h >> 56);
}
static uint8_t sel_flag(uint64_t h) {
  return (uint8_t)(h >> 20 & 1);
}
static void gen_values(uint64_t seed, size_t first, size_t count, void *chunk) {
  for (size_t i = 0; i < count; i++)
    ((uint8_t *)chunk)[i] = sel_value(hash(seed, first + i));
}
static void gen_flags(uint64_t seed, size_t first, size_t count, void *chunk) {
  // Every 1000th flag byte is a non-zero value other than 1 (any non-zero flag selects).
  for (size_t i = 0; i < count; i++)
    ((uint8_t *)chunk)[i] =
        (uint8_t)(sel_flag(hash(seed, first + i)) * ((first + i) % 1000 ? 1 : 0xA5));
}

/* Checks the selection's count and output, streaming the input past the output. */
static int check_select(cl_mem out, cl_mem count_buf, size_t n, uint64_t seed, uint8_t *chunk) {
  uint64_t count = 0, want = 0;
  if (!tu_read(tu_context(), NULL, count_buf, 0, sizeof count, &count))
    return 0;
  size_t have = 0, used = 0, read = 0; /* output elements in chunk, consumed, read so far */
  for (size_t i = 0; i < n; i++) {
    if (i % CHUNK == 0)
      tu_progress("huge family: checking the selection");
    const uint64_t h = hash(seed, i);
    if (!sel_flag(h))
      continue;
    if (want < count) {
      if (used == have) {
        have = count - read < CHUNK ? (size_t)(count - read) : CHUNK;
        if (!tu_read(tu_context(), NULL, out, read, have, chunk))
          return 0;
        read += have;
        used = 0;
      }
      const uint8_t got = chunk[used++];
      if (got != sel_value(h)) {
        printf("  MISMATCH at output %" PRIu64 " (input %zu): got %u, want %u\n", want, i, got,
               sel_value(h));
        return 0;
      }
    }
    want++;
  }
  if (count != want) {
    printf("  MISMATCH: count %" PRIu64 ", want %" PRIu64 "\n", count, want);
    return 0;
  }
  return 1;
}

/* Selects by flags from n uint8 elements with algorithm algo; 1 passed, 0 failed, -1 skipped. */
static int run_select(size_t n, clscan_algorithm algo, uint64_t seed) {
  clscan_context *ctx = tu_context();
  char label[128], why[256];
  snprintf(label, sizeof label, "select by flags, %s, uint8, n=%zu", clscan_algorithm_name(algo),
           n);
  // Multi-pass selections take about 17 bytes of temporary memory per element.
  const size_t temp = algo == CLSCAN_ALGO_SINGLE_PASS ? n / 64 : 17 * n;
  if (too_big(n, 3 * n + temp, why, sizeof why)) {
    printf("  skip %s: %s\n", label, why);
    return -1;
  }
  const clscan_select_desc desc = {.op = CLSCAN_SELECT, .type = CLSCAN_UINT8, .algorithm = algo};
  clscan_select_plan *plan = NULL;
  clscan_status st = clscan_select_plan_create(ctx, &desc, &plan);
  if (st == CLSCAN_UNSUPPORTED_BY_DEVICE) {
    printf("  skip %s: %s\n", label, clscan_last_error_detail());
    return -1;
  }
  printf("  %s: data seed %" PRIu64 "\n", label, seed);
  fflush(stdout);
  uint8_t *chunk = malloc(CHUNK);
  cl_mem in = tu_buffer(ctx, CL_MEM_READ_ONLY, n), flags = tu_buffer(ctx, CL_MEM_READ_ONLY, n);
  cl_mem out = tu_buffer(ctx, CL_MEM_READ_WRITE, n);
  cl_mem count = tu_buffer(ctx, CL_MEM_READ_WRITE, sizeof(uint64_t));
  int ok = st == CLSCAN_SUCCESS && chunk && in && flags && out && count;
  if (!ok)
    printf("  FAILED %s: plan (%s) or memory\n", label, clscan_status_string(st));
  struct timespec t0;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  tu_progress("huge family: filling the selection's input");
  ok = ok && fill(in, n, 1, seed, gen_values, chunk) && fill(flags, n, 1, seed, gen_flags, chunk);
  const double t_fill = since(&t0);
  if (ok) {
    tu_progress(label);
    const clscan_select_buffers b = {
        .in = in, .flags = flags, .out = out, .out_capacity = n, .count = count};
    cl_event done = NULL;
    st = clscan_select_enqueue(plan, NULL, &b, n, 0, NULL, &done);
    if (st == CLSCAN_SUCCESS) {
      clWaitForEvents(1, &done);
      clReleaseEvent(done);
    } else {
      printf("  FAILED %s: clscan_select_enqueue returned %s (%s)\n", label,
             clscan_status_string(st), clscan_last_error_detail());
      ok = 0;
    }
  }
  const double t_run = since(&t0) - t_fill;
  if (ok && !(ok = check_select(out, count, n, seed, chunk)))
    printf("  FAILED %s: wrong result (above)\n", label);
  if (ok)
    printf("  ok   %s: fill %.1f s, select %.1f s, check %.1f s\n", label, t_fill, t_run,
           since(&t0) - t_fill - t_run);
  const cl_mem bufs[] = {in, flags, out, count};
  for (size_t i = 0; i < 4; i++)
    if (bufs[i])
      clReleaseMemObject(bufs[i]);
  clscan_select_plan_release(plan);
  free(chunk);
  return ok;
}

/* ============================================================================================== */
/* Sorts                                                                                          */
/* ============================================================================================== */

static void gen_keys32(uint64_t seed, size_t first, size_t count, void *chunk) {
  (void)seed;
  for (size_t i = 0; i < count; i++)
    ((uint32_t *)chunk)[i] = (uint32_t)(C32 * (uint32_t)(first + i) + D32);
}
static void gen_index32(uint64_t seed, size_t first, size_t count, void *chunk) {
  (void)seed;
  for (size_t i = 0; i < count; i++)
    ((uint32_t *)chunk)[i] = (uint32_t)(first + i);
}
static void gen_keys64(uint64_t seed, size_t first, size_t count, void *chunk) {
  (void)seed;
  for (size_t i = 0; i < count; i++)
    ((uint64_t *)chunk)[i] = C64 * (uint64_t)(first + i) + D64;
}

/* Checks a sorted array of n keys (key_size 4 or 8; ascending unless descending) and, with
 * values (uint32 indices), that each value is its key's index; see the file's comment. */
static int check_sort(cl_mem keys, cl_mem values, size_t n, size_t key_size, int descending,
                      void *key_chunk, uint32_t *value_chunk) {
  const uint64_t inv32 = inverse64(C32) & 0xFFFFFFFFu, inv64 = inverse64(C64);
  uint64_t prev = 0;
  for (size_t first = 0; first < n; first += CHUNK) {
    const size_t count = n - first < CHUNK ? n - first : CHUNK;
    tu_progress("huge family: checking a sort");
    if (!tu_read(tu_context(), NULL, keys, first * key_size, count * key_size, key_chunk) ||
        (values && !tu_read(tu_context(), NULL, values, first * 4, count * 4, value_chunk)))
      return 0;
    for (size_t j = 0; j < count; j++) {
      const size_t p = first + j;
      const uint64_t k =
          key_size == 4 ? ((const uint32_t *)key_chunk)[j] : ((const uint64_t *)key_chunk)[j];
      if (p > 0 && (descending ? k >= prev : k <= prev)) {
        printf("  MISMATCH at %zu: key %" PRIu64 " after %" PRIu64 "\n", p, k, prev);
        return 0;
      }
      prev = k;
      const uint64_t index = key_size == 4 ? ((k - D32) * inv32) & 0xFFFFFFFFu : (k - D64) * inv64;
      if (index >= n) {
        printf("  MISMATCH at %zu: key %" PRIu64 " is no input key\n", p, k);
        return 0;
      }
      if (values && value_chunk[j] != index) {
        printf("  MISMATCH at %zu: value %u, want %" PRIu64 "\n", p, value_chunk[j], index);
        return 0;
      }
    }
  }
  return 1;
}

static const char *sort_algorithm_name(clscan_sort_algorithm a) {
  return a == CLSCAN_SORT_LSD ? "lsd" : a == CLSCAN_SORT_ONESWEEP ? "onesweep" : "auto";
}

/* Sorts n keys (uint32 with uint32 index values, or uint64 keys only, descending); 1 passed, 0
 * failed, -1 skipped. */
static int run_sort(size_t n, int wide, clscan_sort_algorithm algo) {
  clscan_context *ctx = tu_context();
  const size_t ks = wide ? 8 : 4, vs = wide ? 0 : 4;
  char label[128], why[256];
  snprintf(label, sizeof label, "sort %s, %s, n=%zu", sort_algorithm_name(algo),
           wide ? "uint64 keys descending" : "uint32 keys with uint32 values ascending", n);
  const clscan_sort_desc desc = {.key_type = wide ? CLSCAN_UINT64 : CLSCAN_UINT32,
                                 .value_size = vs,
                                 .descending = wide,
                                 .algorithm = algo};
  clscan_sort_plan *plan = NULL;
  clscan_status st = clscan_sort_plan_create(ctx, &desc, &plan);
  if (st == CLSCAN_UNSUPPORTED_BY_DEVICE) {
    printf("  skip %s: %s\n", label, clscan_last_error_detail());
    return -1;
  }
  if (st != CLSCAN_SUCCESS) {
    printf("  FAILED %s: clscan_sort_plan_create returned %s\n", label, clscan_status_string(st));
    return 0;
  }
  if (too_big(n * ks, n * (ks + vs) + clscan_sort_temp_bytes(plan, n), why, sizeof why)) {
    printf("  skip %s: %s\n", label, why);
    clscan_sort_plan_release(plan);
    return -1;
  }
  printf("  %s\n", label);
  fflush(stdout);
  void *key_chunk = malloc(CHUNK * ks);
  uint32_t *value_chunk = vs ? malloc(CHUNK * vs) : NULL;
  cl_mem keys = tu_buffer(ctx, CL_MEM_READ_WRITE, n * ks);
  cl_mem values = vs ? tu_buffer(ctx, CL_MEM_READ_WRITE, n * vs) : NULL;
  int ok = key_chunk && keys && (!vs || (value_chunk && values));
  if (!ok)
    printf("  FAILED %s: out of host or device memory\n", label);
  struct timespec t0;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  tu_progress("huge family: filling a sort's input");
  ok = ok && fill(keys, n, ks, 0, wide ? gen_keys64 : gen_keys32, key_chunk) &&
       (!vs || fill(values, n, vs, 0, gen_index32, value_chunk));
  const double t_fill = since(&t0);
  if (ok) {
    tu_progress(label);
    cl_event done = NULL;
    st = clscan_sort_enqueue(plan, NULL, keys, 0, values, 0, n, 0, NULL, &done);
    if (st == CLSCAN_SUCCESS) {
      clWaitForEvents(1, &done);
      clReleaseEvent(done);
    } else {
      printf("  FAILED %s: clscan_sort_enqueue returned %s (%s)\n", label, clscan_status_string(st),
             clscan_last_error_detail());
      ok = 0;
    }
  }
  const double t_run = since(&t0) - t_fill;
  if (ok && !(ok = check_sort(keys, values, n, ks, wide, key_chunk, value_chunk)))
    printf("  FAILED %s: wrong result (above)\n", label);
  if (ok)
    printf("  ok   %s: fill %.1f s, sort %.1f s, check %.1f s\n", label, t_fill, t_run,
           since(&t0) - t_fill - t_run);
  if (values)
    clReleaseMemObject(values);
  if (keys)
    clReleaseMemObject(keys);
  clscan_sort_plan_release(plan);
  free(key_chunk);
  free(value_chunk);
  return ok;
}

int main(int argc, char **argv) {
  unsigned only = 0; /* bit k: run case k; 0: every case */
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--small") == 0) {
      small_run = 1;
    } else if (strcmp(argv[i], "--case") == 0 && i + 1 < argc && atoi(argv[i + 1]) >= 0 &&
               atoi(argv[i + 1]) < 6) {
      only |= 1u << atoi(argv[++i]);
    } else {
      fprintf(stderr, "usage: test_huge_family [--small] [--case K]... (K = 0 to 5)\n");
      return 2;
    }
  }
  if (!tu_context())
    return 1;
  const size_t n_select = small_run ? ((size_t)1 << 22) + 7 : ((size_t)1 << 32) + 7;
  const size_t n_sort = small_run ? ((size_t)1 << 21) + 5 : ((size_t)1 << 31) + 5;
  int passed = 0, failed = 0, skipped = 0;
  for (unsigned k = 0; k < 6; k++) {
    if (only && !(only >> k & 1))
      continue;
    int r;
    if (k < 2) {
      r = run_select(n_select, k ? CLSCAN_ALGO_REDUCE_THEN_SCAN : CLSCAN_ALGO_SINGLE_PASS,
                     tu_mix(tu_seed(), k + 1));
    } else {
      r = run_sort(n_sort, k >= 4, k % 2 ? CLSCAN_SORT_ONESWEEP : CLSCAN_SORT_LSD);
    }
    passed += r == 1;
    failed += r == 0;
    skipped += r == -1;
  }
  printf("huge family: %d passed, %d failed, %d skipped on \"%s\"\n", passed, failed, skipped,
         tu_device_name());
  tu_context_release();
  return failed ? 1 : 0;
}
