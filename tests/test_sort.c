/*
 * clscan tests: radix sorts (clscan_sort_* in clscan.h) against the host reference
 * (tests/reference/ref_sort.h: qsort with an index tie-break). Every case sorts keys, and pairs
 * whose values carry the key's input index, so that the comparison with the reference checks
 * stability too; values of other sizes carry bytes derived from the index. Buffers have guards
 * before and after the sorted ranges, which must keep their contents.
 *
 * Groups: types (every key type, both directions, both algorithms), ranges (bit ranges), floats
 * (NaNs, infinities and both zeros), shapes (all-equal, sorted, reversed, few distinct keys,
 * sizes around tile boundaries up to 2^20), gpu_shape (both GPU shapes on a CPU device, sizes
 * around their tiles), skips (equal high
 * digits, which Onesweep skips), values (value sizes,
 * offsets, keys and values in one buffer), fallback (CLSCAN_TEST_WITHHOLD with Onesweep), edges
 * (n = 0 and 1, host arrays) and errors (every bad input, with the buffers untouched); apart from
 * them, property (random plans and sorts drawn from the seed, the CTest test sort.property).
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

#include "ref_sort.h"
#include "test_util.h"

/* Elements of guard before and after each range. */
#define GUARD 8

/* How keys are generated. */
typedef enum gen {
  GEN_RANDOM,   /* uniform random bits */
  GEN_FEW,      /* few distinct keys (random among 5) */
  GEN_EQUAL,    /* all keys equal */
  GEN_SORTED,   /* already in the sort's order */
  GEN_REVERSED, /* in the reverse of the sort's order */
  GEN_SPECIAL,  /* floats: NaNs, infinities, zeros, denormals and ordinary values */
  GEN_LOW8,     /* random bits 0..7, the other bits zero (passes skipped, one runs) */
  GEN_MID8,     /* random bits 8..15 only (one pass runs, between skipped ones) */
  GEN_LOW16,    /* random bits 0..15 (two passes run) */
  GEN_LOW24     /* random bits 0..23 (three passes run) */
} gen;

static uint64_t next(uint64_t *s) {
  uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

static int is_float(clscan_type t) {
  return t == CLSCAN_FLOAT || t == CLSCAN_DOUBLE;
}

/* Stores the low `size` bytes of v at p. */
static void put(void *p, size_t size, uint64_t v) {
  unsigned char *b = p;
  for (size_t i = 0; i < size; i++)
    b[i] = (unsigned char)(v >> (8 * i));
}

/* A special float or double value. */
static void special(clscan_type t, uint64_t r, void *p) {
  static const double values[] = {0.0, -0.0, 1.0, -1.0, 1e-300, -1e-300, 3.5, -2.25, 1e30, -1e30};
  const int pick = (int)(r % 16);
  if (t == CLSCAN_FLOAT) {
    static const uint32_t bits[] = {0x7f800000u, 0xff800000u, 0x7fc00000u,
                                    0xffc00000u, 0x7f800001u, 0xff800123u};
    if (pick < 6) {
      memcpy(p, &bits[pick], 4);
      return;
    }
    float f = (float)values[pick - 6];
    memcpy(p, &f, 4);
    return;
  }
  static const uint64_t dbits[] = {0x7ff0000000000000ull, 0xfff0000000000000ull,
                                   0x7ff8000000000000ull, 0xfff8000000000000ull,
                                   0x7ff0000000000001ull, 0xfff0000000000123ull};
  if (pick < 6) {
    memcpy(p, &dbits[pick], 8);
    return;
  }
  memcpy(p, &values[pick - 6], 8);
}

/* Fills n keys by `g` (sorted and reversed through the reference). */
static void fill_keys(const clscan_sort_desc *d, gen g, uint64_t seed, void *keys, size_t n) {
  const size_t ks = clscan_type_size(d->key_type);
  uint64_t s = seed, few[5];
  for (int i = 0; i < 5; i++)
    few[i] = next(&s);
  const uint64_t same = next(&s);
  for (size_t i = 0; i < n; i++) {
    void *p = (unsigned char *)keys + i * ks;
    const uint64_t r = next(&s);
    if (g == GEN_SPECIAL && is_float(d->key_type))
      special(d->key_type, r, p);
    else if (g >= GEN_LOW8)
      put(p, ks,
          g == GEN_LOW8    ? r & 0xFF
          : g == GEN_MID8  ? r & 0xFF00
          : g == GEN_LOW16 ? r & 0xFFFF
                           : r & 0xFFFFFF);
    else
      put(p, ks, g == GEN_FEW ? few[r % 5] : g == GEN_EQUAL ? same : r);
  }
  if (g == GEN_SORTED || g == GEN_REVERSED) {
    clscan_sort_desc o = *d;
    o.descending = g == GEN_REVERSED ? !d->descending : d->descending;
    assert_int_equal(ref_sort(&o, keys, NULL, n), 0);
  }
}

/* One sort case. */
typedef struct sort_case {
  clscan_sort_desc desc;
  gen g;
  size_t n;
  size_t keys_off, values_off;
  int shared; /* 1: keys and values in one buffer (values after the keys and a guard) */
} sort_case;

/* Fills the values: value i carries i (4 bytes: the index itself; else bytes of a hash). */
static void fill_values(size_t vs, void *values, size_t n) {
  for (size_t i = 0; i < n; i++) {
    unsigned char *p = (unsigned char *)values + i * vs;
    uint64_t h = i * 0x9E3779B97F4A7C15ull + 1;
    for (size_t b = 0; b < vs; b++)
      p[b] = b < 4 && vs >= 4 ? (unsigned char)(i >> (8 * b)) : (unsigned char)(h >> (8 * (b % 8)));
  }
}

/* Describes a case for messages. */
static void describe(const sort_case *c, char *buf, size_t cap) {
  snprintf(buf, cap, "sort %s%s values %zu bits [%u,%u) algo %d gen %d n %zu offs %zu/%zu%s",
           clscan_type_name(c->desc.key_type), c->desc.descending ? " desc" : "",
           c->desc.value_size, c->desc.begin_bit, c->desc.end_bit, (int)c->desc.algorithm,
           (int)c->g, c->n, c->keys_off, c->values_off, c->shared ? " shared" : "");
}

/* Runs one case on a plan and checks keys, values and guards against the reference. */
static void run_case(clscan_sort_plan *plan, const sort_case *c, uint64_t seed) {
  char what[200];
  describe(c, what, sizeof what);
  tu_progress(what);
  clscan_context *ctx = tu_context();
  const size_t ks = clscan_type_size(c->desc.key_type), vs = c->desc.value_size, n = c->n;
  // Host images of the buffers: guards of a fill byte around the ranges.
  const size_t kbytes = (c->keys_off + n + GUARD) * ks;
  const size_t vstart = c->shared ? (kbytes + vs - 1) / vs : 0;
  const size_t voff = vstart + c->values_off;
  const size_t vbytes = vs ? (voff + n + GUARD) * vs : 0;
  const size_t total = c->shared ? vbytes : kbytes;
  unsigned char *kimg = malloc(total + 1), *vimg = malloc(vbytes + 1);
  unsigned char *want_k = malloc(n * ks + 1), *want_v = malloc(n * vs + 1);
  unsigned char *got = malloc(total + vbytes + 1);
  assert_non_null(kimg);
  assert_non_null(vimg);
  assert_non_null(got);
  memset(kimg, 0x5A, total);
  memset(vimg, 0x3C, vbytes);
  unsigned char *keys = kimg + c->keys_off * ks;
  unsigned char *vals = (c->shared ? kimg : vimg) + voff * vs;
  fill_keys(&c->desc, c->g, seed, keys, n);
  if (vs)
    fill_values(vs, vals, n);
  memcpy(want_k, keys, n * ks);
  if (vs)
    memcpy(want_v, vals, n * vs);
  assert_int_equal(ref_sort(&c->desc, want_k, vs ? want_v : NULL, n), 0);
  // Device buffers, sorted in place.
  cl_mem kbuf = tu_buffer(ctx, CL_MEM_READ_WRITE, total);
  cl_mem vbuf = vs && !c->shared ? tu_buffer(ctx, CL_MEM_READ_WRITE, vbytes) : NULL;
  assert_true(tu_write(ctx, NULL, kbuf, 0, total, kimg));
  if (vbuf)
    assert_true(tu_write(ctx, NULL, vbuf, 0, vbytes, vimg));
  cl_event done = NULL;
  clscan_status st = clscan_sort_enqueue(plan, NULL, kbuf, c->keys_off,
                                         vs ? (vbuf ? vbuf : kbuf) : NULL, voff, n, 0, NULL, &done);
  if (st != CLSCAN_SUCCESS)
    fail_msg("%s: %s (%s)", what, clscan_status_string(st), clscan_last_error_detail());
  assert_non_null(done);
  assert_int_equal(clWaitForEvents(1, &done), CL_SUCCESS);
  clReleaseEvent(done);
  assert_true(tu_read(ctx, NULL, kbuf, 0, total, got));
  if (vbuf)
    assert_true(tu_read(ctx, NULL, vbuf, 0, vbytes, got + total));
  // The expected images: the sorted ranges in the original images.
  memcpy(keys, want_k, n * ks);
  if (vs)
    memcpy(vals, want_v, n * vs);
  for (size_t i = 0; i < total; i++) {
    if (got[i] != kimg[i])
      fail_msg("%s: byte %zu of the keys buffer is %02x, expected %02x (key %zu)", what, i, got[i],
               kimg[i], i / ks);
  }
  if (vbuf && memcmp(got + total, vimg, vbytes) != 0)
    fail_msg("%s: values differ", what);
  if (vbuf)
    clReleaseMemObject(vbuf);
  clReleaseMemObject(kbuf);
  free(kimg);
  free(vimg);
  free(want_k);
  free(want_v);
  free(got);
}

/* Creates a plan for the case's descriptor and runs the case on it. */
static void check(const sort_case *c, uint64_t seed) {
  clscan_sort_plan *plan = NULL;
  clscan_status st = clscan_sort_plan_create(tu_context(), &c->desc, &plan);
  if (st != CLSCAN_SUCCESS) {
    static char log[8192];
    clscan_context_build_log(tu_context(), log, sizeof log, NULL);
    fail_msg("plan: %s (%s)\nbuild log:\n%s", clscan_status_string(st), clscan_last_error_detail(),
             log);
  }
  run_case(plan, c, seed);
  clscan_sort_plan_release(plan);
}

static const clscan_type all_types[] = {CLSCAN_INT8,  CLSCAN_UINT8,  CLSCAN_INT16, CLSCAN_UINT16,
                                        CLSCAN_INT32, CLSCAN_UINT32, CLSCAN_INT64, CLSCAN_UINT64,
                                        CLSCAN_FLOAT, CLSCAN_DOUBLE, CLSCAN_HALF};
#define TYPE_COUNT (sizeof all_types / sizeof all_types[0])

/* The algorithms: LSD and Onesweep, which every device runs (Onesweep with 32-bit status words
 * where the device lacks 64-bit atomics), so a plan either cannot create fails the test. */
static int algorithms(clscan_sort_algorithm out[2]) {
  out[0] = CLSCAN_SORT_LSD;
  out[1] = CLSCAN_SORT_ONESWEEP;
  return 2;
}

/* Every key type, ascending and descending, keys and index pairs, on both algorithms (the
 * direction alternates with the algorithm to keep builds few; each type gets both directions). */
static void test_types(void **state) {
  (void)state;
  clscan_sort_algorithm algos[2];
  const int na = algorithms(algos);
  for (size_t t = 0; t < TYPE_COUNT; t++) {
    for (int a = 0; a < na; a++) {
      for (int desc = 0; desc < 2; desc++) {
        if (na == 2 && desc != (int)((t + (size_t)a) % 2))
          continue;
        sort_case c = {.desc = {.key_type = all_types[t],
                                .descending = desc,
                                .value_size = 4,
                                .algorithm = algos[a]},
                       .g = GEN_RANDOM,
                       .n = 40000 + 17 * t};
        check(&c, tu_mix(tu_seed(), 100 * t + 10 * (size_t)a + (size_t)desc));
      }
    }
  }
}

/* Bit ranges, including a narrow one, one not a multiple of 8, and the top bits. */
static void test_ranges(void **state) {
  (void)state;
  static const struct {
    clscan_type t;
    unsigned b, e;
    int desc;
  } r[] = {{CLSCAN_UINT32, 0, 12, 0}, {CLSCAN_UINT32, 4, 20, 1}, {CLSCAN_INT32, 24, 32, 0},
           {CLSCAN_UINT64, 3, 61, 0}, {CLSCAN_FLOAT, 16, 32, 1}, {CLSCAN_UINT8, 1, 2, 0}};
  clscan_sort_algorithm algos[2];
  const int na = algorithms(algos);
  for (size_t i = 0; i < sizeof r / sizeof r[0]; i++) {
    sort_case c = {.desc = {.key_type = r[i].t,
                            .begin_bit = r[i].b,
                            .end_bit = r[i].e,
                            .descending = r[i].desc,
                            .value_size = 4,
                            .algorithm = algos[i % (size_t)na]},
                   .g = GEN_RANDOM,
                   .n = 30001};
    check(&c, tu_mix(tu_seed(), 200 + i));
  }
}

/* Floats and doubles with NaNs of both signs, infinities, both zeros and denormals. */
static void test_floats(void **state) {
  (void)state;
  clscan_sort_algorithm algos[2];
  const int na = algorithms(algos);
  for (int a = 0; a < na; a++) {
    for (int t = 0; t < 2; t++) {
      sort_case c = {.desc = {.key_type = t ? CLSCAN_DOUBLE : CLSCAN_FLOAT,
                              .descending = a,
                              .value_size = 4,
                              .algorithm = algos[a]},
                     .g = GEN_SPECIAL,
                     .n = 5000};
      check(&c, tu_mix(tu_seed(), 300 + 2 * (size_t)a + (size_t)t));
    }
  }
  // The order itself, on fixed values: -NaN < -inf < -1 < -0.0 < +0.0 < 1 < +inf < +NaN.
  const uint32_t order[] = {0xffc00000u, 0xff800000u, 0xbf800000u, 0x80000000u,
                            0x00000000u, 0x3f800000u, 0x7f800000u, 0x7fc00000u};
  uint32_t keys[8];
  for (int i = 0; i < 8; i++)
    keys[i] = order[(i * 5) % 8];
  clscan_sort_desc d = {.key_type = CLSCAN_FLOAT};
  assert_int_equal(clscan_sort_host(tu_context(), &d, keys, NULL, 8), CLSCAN_SUCCESS);
  assert_memory_equal(keys, order, sizeof order);
}

/* The case at each of `count` sizes, on one plan (seeds from `seed` up). */
static void run_sizes(sort_case *c, const size_t *sizes, size_t count, size_t seed) {
  clscan_sort_plan *plan = NULL;
  assert_int_equal(clscan_sort_plan_create(tu_context(), &c->desc, &plan), CLSCAN_SUCCESS);
  for (size_t i = 0; i < count; i++) {
    c->n = sizes[i];
    run_case(plan, c, tu_mix(tu_seed(), seed + i));
  }
  clscan_sort_plan_release(plan);
}

/* All-equal, sorted, reversed and few distinct keys; sizes around tile boundaries. */
static void test_shapes(void **state) {
  (void)state;
  clscan_sort_algorithm algos[2];
  const int na = algorithms(algos);
  const gen gens[] = {GEN_EQUAL, GEN_SORTED, GEN_REVERSED, GEN_FEW};
  for (int a = 0; a < na; a++) {
    for (size_t g = 0; g < 4; g++) {
      sort_case c = {.desc = {.key_type = CLSCAN_UINT32, .value_size = 4, .algorithm = algos[a]},
                     .g = gens[g],
                     .n = 50000};
      check(&c, tu_mix(tu_seed(), 400 + 10 * (size_t)a + g));
    }
    // Sizes around the CPU tile (16384 keys) and the GPU tiles (1024 and 4096 keys), on one plan.
    static const size_t sizes[] = {2,     3,     255,   1023,  1024,  1025,
                                   16383, 16384, 16385, 32768, 49153, 1u << 20};
    sort_case c = {.desc = {.key_type = CLSCAN_UINT32, .value_size = 4, .algorithm = algos[a]},
                   .g = GEN_RANDOM};
    run_sizes(&c, sizes, sizeof sizes / sizeof sizes[0], 450);
  }
}

/* Keys whose high digits are all equal: Onesweep skips those passes, so the keys end in the
 * caller's buffers or in the copies depending on how many ran; LSD runs every pass. */
static void test_skips(void **state) {
  (void)state;
  clscan_sort_algorithm algos[2];
  const int na = algorithms(algos);
  const gen gens[] = {GEN_LOW8, GEN_MID8, GEN_LOW16, GEN_LOW24};
  for (int a = 0; a < na; a++) {
    sort_case c = {.desc = {.key_type = CLSCAN_UINT32, .value_size = 4, .algorithm = algos[a]},
                   .n = 70000,
                   .keys_off = 1,
                   .values_off = 2};
    clscan_sort_plan *plan = NULL;
    assert_int_equal(clscan_sort_plan_create(tu_context(), &c.desc, &plan), CLSCAN_SUCCESS);
    for (size_t g = 0; g < 4; g++) {
      c.g = gens[g];
      run_case(plan, &c, tu_mix(tu_seed(), 900 + 10 * (size_t)a + g));
    }
    clscan_sort_plan_release(plan);
  }
}

/* The cases of one GPU shape (work-groups with barriers and local ranking) on this device. */
static void gpu_shape_cases(size_t seed) {
  clscan_sort_algorithm algos[2];
  const int na = algorithms(algos);
  for (int a = 0; a < na; a++) {
    sort_case c = {.desc = {.key_type = a ? CLSCAN_INT64 : CLSCAN_UINT32,
                            .value_size = 4,
                            .descending = a,
                            .algorithm = algos[a]},
                   .g = GEN_RANDOM,
                   .n = 20000};
    check(&c, tu_mix(tu_seed(), seed + (size_t)a));
    c.g = GEN_FEW;
    c.n = 3 * 1024 + 5;
    check(&c, tu_mix(tu_seed(), seed + 10 + (size_t)a));
    c.g = GEN_EQUAL;
    c.n = 2 * 4096 + 77;
    check(&c, tu_mix(tu_seed(), seed + 20 + (size_t)a));
    // Keys only with an odd number of passes, wide values, a bit range, special doubles.
    sort_case more[] = {
        {.desc = {.key_type = CLSCAN_UINT8, .algorithm = algos[a]},
         .g = GEN_RANDOM,
         .n = 5000,
         .keys_off = 3},
        {.desc =
             {.key_type = CLSCAN_DOUBLE, .value_size = 12, .descending = 1, .algorithm = algos[a]},
         .g = GEN_SPECIAL,
         .n = 4100,
         .values_off = 1},
        {.desc = {.key_type = CLSCAN_UINT32,
                  .value_size = 3,
                  .begin_bit = 4,
                  .end_bit = 20,
                  .algorithm = algos[a]},
         .g = GEN_RANDOM,
         .n = 2047},
        {.desc = {.key_type = CLSCAN_UINT32, .value_size = 4, .algorithm = algos[a]},
         .g = GEN_MID8,
         .n = 6000},
        {.desc = {.key_type = CLSCAN_UINT64, .value_size = 256, .algorithm = algos[a]},
         .g = GEN_RANDOM,
         .n = 4097,
         .keys_off = 1},
    };
    for (size_t i = 0; i < sizeof more / sizeof more[0]; i++)
      check(&more[i], tu_mix(tu_seed(), seed + 30 + 10 * (size_t)a + i));
    // Sizes around the tiles of both GPU shapes (1024 and 4096 keys), on one plan.
    static const size_t sizes[] = {2, 31, 33, 1025, 4095, 4096, 4097, 8191, 8192, 12288 + 31};
    sort_case s = {.desc = {.key_type = CLSCAN_INT16, .value_size = 2, .algorithm = algos[a]},
                   .g = GEN_RANDOM};
    run_sizes(&s, sizes, sizeof sizes / sizeof sizes[0], seed + 60);
  }
}

/* Appends the assertion that plans are built with the warp ranking (warps 1) or without it (0)
 * to CLSCAN_BUILD_OPTIONS (cl/radix_sort.cl, CLSCAN_TEST_SORT_RANK_WARPS). */
static void expect_shape(int warps, tu_env_saved *saved) {
  const char *options = getenv("CLSCAN_BUILD_OPTIONS");
  char with_shape[256];
  snprintf(with_shape, sizeof with_shape, "%s -DCLSCAN_TEST_SORT_RANK_WARPS=%d",
           options ? options : "", warps);
  tu_env_set("CLSCAN_BUILD_OPTIONS", with_shape, saved);
}

/* 1 if gpu_shape_cases() can assert the warp ranking on this device: work-groups of 256 and 32 KB
 * of local memory, and plans of its largest cases build in that shape (the library falls back to
 * the per-work-item ranking where the kernels' own work-group limit is below 256, as on Mesa
 * rusticl's llvmpipe). Call it with the GPU shape selected. */
static int warp_ranking_fits(void) {
  cl_device_id dev = clscan_context_device(tu_context());
  cl_ulong local = 0;
  size_t wg = 0;
  clGetDeviceInfo(dev, CL_DEVICE_LOCAL_MEM_SIZE, sizeof local, &local, NULL);
  clGetDeviceInfo(dev, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof wg, &wg, NULL);
  if (local < 32 * 1024 || wg < 256)
    return 0;
  tu_env_saved options;
  expect_shape(1, &options);
  clscan_sort_algorithm algos[2];
  const int na = algorithms(algos);
  int fits = 1;
  for (int a = 0; a < na && fits; a++) {
    const clscan_sort_desc probes[] = {
        {.key_type = CLSCAN_INT64, .value_size = 4, .algorithm = algos[a]},
        {.key_type = CLSCAN_DOUBLE, .value_size = 12, .algorithm = algos[a]}};
    for (size_t i = 0; i < 2 && fits; i++) {
      clscan_sort_plan *plan = NULL;
      fits = clscan_sort_plan_create(tu_context(), &probes[i], &plan) == CLSCAN_SUCCESS;
      clscan_sort_plan_release(plan);
    }
  }
  tu_env_restore(&options);
  return fits;
}

/* Both GPU shapes on this device: the warp ranking (256 x 16 keys, 256 x 8 for 8-byte keys, and
 * 256 x 3), and the
 * per-work-item ranking (32 x 32) that CLSCAN_SORT_CLASSIC asks for; each asserts its shape at
 * build time (the warp ranking where the device fits it). */
static void test_gpu_shape(void **state) {
  (void)state;
  tu_env_saved saved, options, classic;
  tu_env_set("CLSCAN_SINGLE_PASS_CPU", "0", &saved);
  if (warp_ranking_fits())
    expect_shape(1, &options);
  else
    tu_env_set("CLSCAN_BUILD_OPTIONS", getenv("CLSCAN_BUILD_OPTIONS"), &options);
  gpu_shape_cases(500);
  // Warp tiles of 256 x 3 keys (CLSCAN_SORT_ITEMS): a tile size that is not a power of two.
  tu_env_saved items;
  tu_env_set("CLSCAN_SORT_ITEMS", "3", &items);
  clscan_sort_algorithm algos[2];
  const int na = algorithms(algos);
  for (int a = 0; a < na; a++) {
    sort_case c = {.desc = {.key_type = CLSCAN_INT32, .value_size = 8, .algorithm = algos[a]},
                   .g = GEN_FEW,
                   .n = 4 * 768 + 1};
    check(&c, tu_mix(tu_seed(), 590 + (size_t)a));
  }
  tu_env_restore(&items);
  tu_env_restore(&options);
  expect_shape(0, &options);
  tu_env_set("CLSCAN_SORT_CLASSIC", "1", &classic);
  gpu_shape_cases(1500);
  tu_env_restore(&classic);
  tu_env_restore(&options);
  tu_env_restore(&saved);
}

/* Value sizes, offsets, and keys and values in one buffer. */
static void test_values(void **state) {
  (void)state;
  clscan_sort_algorithm algos[2];
  const int na = algorithms(algos);
  static const size_t sizes[] = {0, 1, 3, 8, 12, 256};
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
    sort_case c = {.desc = {.key_type = CLSCAN_UINT16,
                            .value_size = sizes[i],
                            .algorithm = algos[i % (size_t)na]},
                   .g = GEN_RANDOM,
                   .n = 20011,
                   .keys_off = 3 + i,
                   .values_off = 5 * i};
    check(&c, tu_mix(tu_seed(), 600 + i));
  }
  sort_case c = {.desc = {.key_type = CLSCAN_INT32, .value_size = 4, .algorithm = algos[na - 1]},
                 .g = GEN_RANDOM,
                 .n = 9999,
                 .keys_off = 7,
                 .values_off = 1,
                 .shared = 1};
  check(&c, tu_mix(tu_seed(), 650));
}

/* Onesweep with withheld publications: every third tile publishes nothing, so the tiles after
 * it count its digits themselves (the decoupled fallback). The CPU shape and both GPU shapes. */
static void test_fallback(void **state) {
  (void)state;
  tu_env_saved saved, shape, classic;
  tu_env_set("CLSCAN_TEST_WITHHOLD", "3", &saved);
  for (int gpu = 0; gpu < 3; gpu++) {
    tu_env_set("CLSCAN_SINGLE_PASS_CPU", gpu ? "0" : "1", &shape);
    tu_env_set("CLSCAN_SORT_CLASSIC", gpu == 2 ? "1" : NULL, &classic);
    sort_case c = {
        .desc = {.key_type = CLSCAN_UINT32, .value_size = 4, .algorithm = CLSCAN_SORT_ONESWEEP},
        .g = GEN_RANDOM,
        .n = gpu ? 4 * 4096 + 12345 : 200000};
    check(&c, tu_mix(tu_seed(), 700 + (size_t)gpu));
    tu_env_restore(&classic);
    tu_env_restore(&shape);
  }
  // The GPU shape's tiles by ticket and by group id (SORT_GROUP_TILE: NVIDIA takes the group id,
  // other devices the ticket), both through the fallback. Not by group id on Mesa's rusticl, where
  // no default takes it: llvmpipe's threads start work-groups out of order, so a tile finds many
  // predecessors not yet started and counts each itself, and those loops pass llvmpipe's limit of
  // 65535 iterations per work-item (docs/testing-drivers.md), which ends them silently.
  for (int group = 0; group < (tu_on_rusticl() ? 1 : 2); group++) {
    tu_env_saved options;
    const char *prior = getenv("CLSCAN_BUILD_OPTIONS");
    char with_tiles[256];
    snprintf(with_tiles, sizeof with_tiles, "%s -DSORT_GROUP_TILE=%d", prior ? prior : "", group);
    tu_env_set("CLSCAN_SINGLE_PASS_CPU", "0", &shape);
    tu_env_set("CLSCAN_BUILD_OPTIONS", with_tiles, &options);
    sort_case c = {
        .desc = {.key_type = CLSCAN_UINT32, .value_size = 4, .algorithm = CLSCAN_SORT_ONESWEEP},
        .g = GEN_RANDOM,
        .n = 4 * 4096 + 12345};
    check(&c, tu_mix(tu_seed(), 710 + (size_t)group));
    tu_env_restore(&options);
    tu_env_restore(&shape);
  }
  tu_env_restore(&saved);
}

/* ============================================================================================== */
/* Random cases                                                                                   */
/* ============================================================================================== */

/* Plans a property run draws its cases from (each is a build). */
#define PROPERTY_PLANS 10

/* What a property plan compiles: its descriptor, the shape (0 the device's, 1 the GPU shape, 2
 * the GPU shape's per-work-item ranking) and, for Onesweep, whether every third tile withholds
 * its publication (the decoupled fallback). */
typedef struct property_plan {
  clscan_sort_desc desc;
  int shape, withhold;
} property_plan;

/* Draws a plan: any key type, either direction, values of 0 to 12 bytes, the whole key or a bit
 * range, AUTO, LSD or Onesweep, a shape, the fallback. */
static property_plan draw_plan(uint64_t *r) {
  static const size_t value_sizes[] = {0, 0, 1, 2, 3, 4, 4, 8, 12};
  static const clscan_sort_algorithm algos[] = {CLSCAN_SORT_AUTO, CLSCAN_SORT_LSD,
                                                CLSCAN_SORT_ONESWEEP};
  property_plan p = {.desc = {.key_type = all_types[tu_draw(r, TYPE_COUNT)]}};
  p.desc.descending = (int)tu_draw(r, 2);
  p.desc.value_size = value_sizes[tu_draw(r, sizeof value_sizes / sizeof value_sizes[0])];
  const unsigned bits = 8 * (unsigned)clscan_type_size(p.desc.key_type);
  if (tu_draw(r, 4) == 0) {
    p.desc.begin_bit = (unsigned)tu_draw(r, bits);
    p.desc.end_bit = p.desc.begin_bit + 1 + (unsigned)tu_draw(r, bits - p.desc.begin_bit);
  }
  p.desc.algorithm = algos[tu_draw(r, 3)];
  p.shape = (int)tu_draw(r, 3);
  p.withhold = p.desc.algorithm == CLSCAN_SORT_ONESWEEP && tu_draw(r, 3) == 0;
  return p;
}

/* Draws a case on a plan: how keys are generated, n (mostly small, some to 300000), offsets, and
 * keys and values in one buffer. */
static sort_case draw_sort_case(const property_plan *p, uint64_t *r) {
  static const gen gens[] = {GEN_RANDOM,  GEN_RANDOM, GEN_FEW,  GEN_EQUAL, GEN_SORTED, GEN_REVERSED,
                             GEN_SPECIAL, GEN_LOW8,   GEN_MID8, GEN_LOW16, GEN_LOW24};
  sort_case c = {.desc = p->desc, .g = gens[tu_draw(r, sizeof gens / sizeof gens[0])]};
  if (c.g == GEN_SPECIAL && !is_float(c.desc.key_type))
    c.g = GEN_RANDOM;
  const size_t s = tu_draw(r, 10);
  c.n = s < 5 ? tu_draw(r, 3000) : s < 8 ? tu_draw(r, 70000) : tu_draw(r, 300000);
  c.keys_off = tu_draw(r, 3) == 0 ? tu_draw(r, 9) : 0;
  c.values_off = tu_draw(r, 3) == 0 ? tu_draw(r, 9) : 0;
  c.shared = c.desc.value_size && tu_draw(r, 6) == 0;
  return c;
}

/* Random sorts (the CTest test sort.property, `test_sort test_property`; not in the default
 * run): PROPERTY_PLANS plans drawn from the suite's seed (printed), then cases on them in turn,
 * 100 or 60 seconds' worth (tu_property_more()); a failure prints the case, and the suite's seed
 * (CLSCAN_TEST_SEED) repeats the run. */
static void test_property(void **state) {
  (void)state;
  uint64_t r = tu_mix(tu_seed(), 0x5027);
  property_plan plans[PROPERTY_PLANS];
  for (size_t k = 0; k < PROPERTY_PLANS; k++) {
    plans[k] = draw_plan(&r);
    const clscan_sort_desc *d = &plans[k].desc;
    printf("  plan %zu: %s%s values %zu bits [%u,%u) algo %d shape %d withhold %d\n", k,
           clscan_type_name(d->key_type), d->descending ? " desc" : "", d->value_size, d->begin_bit,
           d->end_bit, (int)d->algorithm, plans[k].shape, plans[k].withhold);
  }
  size_t ran = 0;
  for (; tu_property_more(ran, 100, 60.0); ran++) {
    const property_plan *p = &plans[tu_draw(&r, PROPERTY_PLANS)];
    const sort_case c = draw_sort_case(p, &r);
    tu_env_saved cpu, classic, withhold;
    tu_env_set("CLSCAN_SINGLE_PASS_CPU", p->shape ? "0" : NULL, &cpu);
    tu_env_set("CLSCAN_SORT_CLASSIC", p->shape == 2 ? "1" : NULL, &classic);
    tu_env_set("CLSCAN_TEST_WITHHOLD", p->withhold ? "3" : NULL, &withhold);
    check(&c, tu_mix(r, 1));
    tu_env_restore(&withhold);
    tu_env_restore(&classic);
    tu_env_restore(&cpu);
  }
  printf("  property: %zu sorts on %d plans in %.1f s\n", ran, PROPERTY_PLANS,
         tu_property_elapsed());
}

/* The algorithm AUTO resolves to in one shape (CLSCAN_SINGLE_PASS_CPU, CLSCAN_SORT_CLASSIC). */
static clscan_sort_algorithm auto_choice(const char *cpu, const char *classic) {
  tu_env_saved saved_cpu, saved_classic;
  tu_env_set("CLSCAN_SINGLE_PASS_CPU", cpu, &saved_cpu);
  tu_env_set("CLSCAN_SORT_CLASSIC", classic, &saved_classic);
  clscan_sort_desc d = {.key_type = CLSCAN_UINT32};
  clscan_sort_plan *plan = NULL;
  assert_int_equal(clscan_sort_plan_create(tu_context(), &d, &plan), CLSCAN_SUCCESS);
  const clscan_sort_algorithm got = clscan_sort_plan_algorithm(plan);
  clscan_sort_plan_release(plan);
  tu_env_restore(&saved_classic);
  tu_env_restore(&saved_cpu);
  return got;
}

/* AUTO's choice, n = 0 and 1 (a marker, done still given), and host arrays. */
static void test_edges(void **state) {
  (void)state;
  // AUTO resolves to Onesweep with the warp ranking, to LSD in the CPU shape and with the
  // per-work-item ranking (as measured, docs/performance.md). Whether the GPU shape takes the
  // warp ranking depends on the device (not on Mesa rusticl's llvmpipe): a uint32 plan built
  // with the warp ranking asserted tells.
  tu_env_saved shape, options;
  tu_env_set("CLSCAN_SINGLE_PASS_CPU", "0", &shape);
  expect_shape(1, &options);
  clscan_sort_desc probe = {.key_type = CLSCAN_UINT32, .algorithm = CLSCAN_SORT_LSD};
  clscan_sort_plan *plan = NULL;
  const int warps = clscan_sort_plan_create(tu_context(), &probe, &plan) == CLSCAN_SUCCESS;
  clscan_sort_plan_release(plan);
  tu_env_restore(&options);
  tu_env_restore(&shape);
  assert_int_equal(auto_choice("0", "0"), warps ? CLSCAN_SORT_ONESWEEP : CLSCAN_SORT_LSD);
  assert_int_equal(auto_choice("1", "0"), CLSCAN_SORT_LSD);
  assert_int_equal(auto_choice("0", "1"), CLSCAN_SORT_LSD);
  clscan_context *ctx = tu_context();
  clscan_sort_desc d = {.key_type = CLSCAN_UINT32, .value_size = 4};
  assert_int_equal(clscan_sort_plan_create(ctx, &d, &plan), CLSCAN_SUCCESS);
  for (size_t n = 0; n < 2; n++) {
    sort_case c = {.desc = d, .g = GEN_RANDOM, .n = n, .keys_off = 2, .values_off = 1};
    run_case(plan, &c, tu_mix(tu_seed(), 800 + n));
  }
  assert_int_equal(clscan_sort_temp_bytes(plan, 0), 0);
  assert_true(clscan_sort_temp_bytes(plan, 1000000) >= 1000000 * 8);
  assert_int_equal(clscan_sort_temp_bytes(NULL, 10), 0);
  clscan_sort_plan_release(plan);
  clscan_sort_plan_release(NULL);
  // Host arrays: keys only and pairs.
  const size_t n = 77777;
  uint32_t *k = malloc(n * 4), *v = malloc(n * 4), *wk = malloc(n * 4), *wv = malloc(n * 4);
  fill_keys(&d, GEN_FEW, tu_mix(tu_seed(), 810), k, n);
  fill_values(4, v, n);
  memcpy(wk, k, n * 4);
  memcpy(wv, v, n * 4);
  d.descending = 1;
  assert_int_equal(ref_sort(&d, wk, wv, n), 0);
  assert_int_equal(clscan_sort_host(ctx, &d, k, v, n), CLSCAN_SUCCESS);
  assert_memory_equal(k, wk, n * 4);
  assert_memory_equal(v, wv, n * 4);
  assert_int_equal(clscan_sort_host(ctx, &d, k, v, 0), CLSCAN_SUCCESS);
  free(k);
  free(v);
  free(wk);
  free(wv);
}

/* Expects status `want` from a plan creation. */
static void bad_desc(const clscan_sort_desc *d, clscan_status want) {
  clscan_sort_plan *plan = (clscan_sort_plan *)(uintptr_t)1;
  clscan_status st = clscan_sort_plan_create(tu_context(), d, &plan);
  if (st != want)
    fail_msg("plan_create gave %s, expected %s", clscan_status_string(st),
             clscan_status_string(want));
  assert_true(plan == (clscan_sort_plan *)(uintptr_t)1);
  assert_true(clscan_last_error_detail()[0] != '\0');
}

/* Every bad input gets its status, and the buffers stay untouched. */
static void test_errors(void **state) {
  (void)state;
  clscan_context *ctx = tu_context();
  clscan_sort_desc d = {.key_type = CLSCAN_UINT32, .value_size = 4};
  clscan_sort_plan *plan = NULL;
  assert_int_equal(clscan_sort_plan_create(NULL, &d, &plan), CLSCAN_NULL_ARGUMENT);
  assert_int_equal(clscan_sort_plan_create(ctx, NULL, &plan), CLSCAN_NULL_ARGUMENT);
  assert_int_equal(clscan_sort_plan_create(ctx, &d, NULL), CLSCAN_NULL_ARGUMENT);
  clscan_sort_desc b = d;
  b.key_type = CLSCAN_USER_TYPE;
  bad_desc(&b, CLSCAN_INVALID_TYPE);
  b.key_type = (clscan_type)77;
  bad_desc(&b, CLSCAN_INVALID_TYPE);
  b = d;
  b.value_size = CLSCAN_SORT_MAX_VALUE_SIZE + 1;
  bad_desc(&b, CLSCAN_INVALID_VALUE);
  b = d;
  b.begin_bit = 8;
  b.end_bit = 8;
  bad_desc(&b, CLSCAN_INVALID_VALUE);
  b.begin_bit = 0;
  b.end_bit = 33;
  bad_desc(&b, CLSCAN_INVALID_VALUE);
  b.begin_bit = 5;
  b.end_bit = 0;
  bad_desc(&b, CLSCAN_INVALID_VALUE);
  b = d;
  b.algorithm = (clscan_sort_algorithm)CLSCAN_SORT_ALGORITHM_COUNT;
  bad_desc(&b, CLSCAN_INVALID_ALGORITHM);
  b.algorithm = (clscan_sort_algorithm)-1;
  bad_desc(&b, CLSCAN_INVALID_ALGORITHM);

  // Requests.
  assert_int_equal(clscan_sort_plan_create(ctx, &d, &plan), CLSCAN_SUCCESS);
  const size_t n = 1000;
  uint32_t img[1000], back[1000];
  for (size_t i = 0; i < n; i++)
    img[i] = (uint32_t)(n - i);
  cl_mem k = tu_buffer(ctx, CL_MEM_READ_WRITE, n * 4), v = tu_buffer(ctx, CL_MEM_READ_WRITE, n * 4);
  cl_mem ro = tu_buffer(ctx, CL_MEM_READ_ONLY, n * 4);
  assert_true(tu_write(ctx, NULL, k, 0, n * 4, img));
  assert_true(tu_write(ctx, NULL, v, 0, n * 4, img));
  cl_event ev = NULL;
  assert_int_equal(clscan_sort_enqueue(NULL, NULL, k, 0, v, 0, n, 0, NULL, &ev),
                   CLSCAN_NULL_ARGUMENT);
  assert_int_equal(clscan_sort_enqueue(plan, NULL, NULL, 0, v, 0, n, 0, NULL, &ev),
                   CLSCAN_NULL_ARGUMENT);
  assert_int_equal(clscan_sort_enqueue(plan, NULL, k, 0, NULL, 0, n, 0, NULL, &ev),
                   CLSCAN_NULL_ARGUMENT);
  assert_int_equal(clscan_sort_enqueue(plan, NULL, k, 1, v, 0, n, 0, NULL, &ev),
                   CLSCAN_BUFFER_TOO_SMALL);
  assert_int_equal(clscan_sort_enqueue(plan, NULL, k, 0, v, 1, n, 0, NULL, &ev),
                   CLSCAN_BUFFER_TOO_SMALL);
  assert_int_equal(clscan_sort_enqueue(plan, NULL, k, SIZE_MAX, v, 0, n, 0, NULL, &ev),
                   CLSCAN_SIZE_OVERFLOW);
  assert_int_equal(
      clscan_sort_enqueue(plan, NULL, k, 0, v, 0, (size_t)UINT32_MAX + 1, 0, NULL, &ev),
      CLSCAN_SIZE_OVERFLOW);
  assert_int_equal(clscan_sort_enqueue(plan, NULL, ro, 0, v, 0, n, 0, NULL, &ev),
                   CLSCAN_INVALID_BUFFER);
  assert_int_equal(clscan_sort_enqueue(plan, NULL, k, 0, k, 499, 500, 0, NULL, &ev),
                   CLSCAN_OVERLAP);
  // Keys and values in two sub-buffers of one buffer: refused where the sub-buffers overlap (OpenCL
  // leaves that undefined, even for disjoint ranges), taken where they do not.
  const size_t align = tu_sub_buffer_align(ctx, 64), sub_n = align / 4 + 4;
  cl_mem parent = tu_buffer(ctx, CL_MEM_READ_WRITE, 4 * align);
  assert_non_null(parent);
  cl_mem s1 = tu_sub_buffer(parent, 0, 2 * align), s2 = tu_sub_buffer(parent, align, 2 * align);
  assert_non_null(s1);
  assert_non_null(s2);
  assert_int_equal(clscan_sort_enqueue(plan, NULL, s1, 0, s2, 0, sub_n, 0, NULL, &ev),
                   CLSCAN_OVERLAP);
  assert_int_equal(clscan_sort_enqueue(plan, NULL, parent, align / 4, s2, 3, 4, 0, NULL, &ev),
                   CLSCAN_OVERLAP);
  assert_int_equal(clscan_sort_enqueue(plan, NULL, s1, 0, s2, 0, align / 4, 0, NULL, &ev),
                   CLSCAN_OVERLAP);
  assert_null(ev);
  cl_mem s3 = tu_sub_buffer(parent, 2 * align, 2 * align);
  assert_non_null(s3);
  // m reversed keys with their indices, in sub-buffers of 2 * align >= 128 bytes each.
  uint32_t sub_keys[64], sub_vals[64];
  const uint32_t m = align / 2 < 64 ? (uint32_t)(align / 2) : 64;
  for (uint32_t i = 0; i < m; i++) {
    sub_keys[i] = m - 1 - i;
    sub_vals[i] = i;
  }
  assert_true(tu_write(ctx, NULL, s1, 0, m * 4, sub_keys));
  assert_true(tu_write(ctx, NULL, s3, 0, m * 4, sub_vals));
  assert_int_equal(clscan_sort_enqueue(plan, NULL, s1, 0, s3, 0, m, 0, NULL, &ev), CLSCAN_SUCCESS);
  assert_int_equal(clWaitForEvents(1, &ev), CL_SUCCESS);
  clReleaseEvent(ev);
  ev = NULL;
  assert_true(tu_read(ctx, NULL, s1, 0, m * 4, sub_keys));
  assert_true(tu_read(ctx, NULL, s3, 0, m * 4, sub_vals));
  for (uint32_t i = 0; i < m; i++) {
    assert_int_equal(sub_keys[i], i);
    assert_int_equal(sub_vals[i], m - 1 - i);
  }
  clReleaseMemObject(s1);
  clReleaseMemObject(s2);
  clReleaseMemObject(s3);
  clReleaseMemObject(parent);
  assert_int_equal(clscan_sort_enqueue(plan, NULL, k, 0, v, 0, n, 1, NULL, &ev),
                   CLSCAN_INVALID_WAIT_LIST);
  cl_event some = clCreateUserEvent(clscan_context_cl_context(ctx), NULL);
  assert_int_equal(clscan_sort_enqueue(plan, NULL, k, 0, v, 0, n, 0, &some, &ev),
                   CLSCAN_INVALID_WAIT_LIST);
  clSetUserEventStatus(some, CL_COMPLETE);
  clReleaseEvent(some);
  cl_context other_ctx =
      clCreateContext(NULL, 1, (cl_device_id[]){clscan_context_device(ctx)}, NULL, NULL, NULL);
  cl_command_queue other_q = clCreateCommandQueue(other_ctx, clscan_context_device(ctx), 0, NULL);
  assert_int_equal(clscan_sort_enqueue(plan, other_q, k, 0, v, 0, n, 0, NULL, &ev),
                   CLSCAN_INVALID_QUEUE);
  clReleaseCommandQueue(other_q);
  clReleaseContext(other_ctx);
  assert_null(ev);
  // A values buffer without value_size.
  clscan_sort_plan *keys_only = NULL;
  d.value_size = 0;
  assert_int_equal(clscan_sort_plan_create(ctx, &d, &keys_only), CLSCAN_SUCCESS);
  assert_int_equal(clscan_sort_enqueue(keys_only, NULL, k, 0, v, 0, n, 0, NULL, &ev),
                   CLSCAN_INVALID_VALUE);
  clscan_sort_plan_release(keys_only);
  // Untouched.
  assert_true(tu_read(ctx, NULL, k, 0, n * 4, back));
  assert_memory_equal(back, img, sizeof img);
  assert_true(tu_read(ctx, NULL, v, 0, n * 4, back));
  assert_memory_equal(back, img, sizeof img);
  // Host arrays.
  d.value_size = 4;
  memcpy(back, img, sizeof img);
  assert_int_equal(clscan_sort_host(NULL, &d, back, back, n), CLSCAN_NULL_ARGUMENT);
  assert_int_equal(clscan_sort_host(ctx, NULL, back, back, n), CLSCAN_NULL_ARGUMENT);
  assert_int_equal(clscan_sort_host(ctx, &d, NULL, back, n), CLSCAN_NULL_ARGUMENT);
  assert_int_equal(clscan_sort_host(ctx, &d, back, NULL, n), CLSCAN_NULL_ARGUMENT);
  d.value_size = 0;
  assert_int_equal(clscan_sort_host(ctx, &d, back, back, n), CLSCAN_INVALID_VALUE);
  d.end_bit = 40;
  assert_int_equal(clscan_sort_host(ctx, &d, back, NULL, n), CLSCAN_INVALID_VALUE);
  assert_memory_equal(back, img, sizeof img);
  clReleaseMemObject(k);
  clReleaseMemObject(v);
  clReleaseMemObject(ro);
  clscan_sort_plan_release(plan);
}

int main(int argc, char **argv) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_errors),    cmocka_unit_test(test_edges),
      cmocka_unit_test(test_values),    cmocka_unit_test(test_floats),
      cmocka_unit_test(test_ranges),    cmocka_unit_test(test_shapes),
      cmocka_unit_test(test_gpu_shape), cmocka_unit_test(test_fallback),
      cmocka_unit_test(test_skips),     cmocka_unit_test(test_types),
  };
  const struct CMUnitTest property[] = {cmocka_unit_test(test_property)};
  const int random = argc > 1 && strcmp(argv[1], "test_property") == 0;
  if (argc > 1 && !random)
    cmocka_set_test_filter(argv[1]);
  if (!tu_context())
    return 1;
  int failed = random
                   ? cmocka_run_group_tests_name("sort property", property, tu_group_setup,
                                                 tu_group_teardown)
                   : cmocka_run_group_tests_name("sort", tests, tu_group_setup, tu_group_teardown);
  tu_context_release();
  printf("clscan tests: seed %" PRIu64 "\n", tu_seed());
  return failed ? 1 : 0;
}
