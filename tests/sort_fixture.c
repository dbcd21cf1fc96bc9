/*
 * clscan tests: the fixture of the radix sort tests (see sort_fixture.h).
 */
#include "sort_fixture.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ref_sort.h"

/* Elements of guard before and after each range. */
#define GUARD 8

static uint64_t next(uint64_t *s) {
  uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

int is_float(clscan_type t) {
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
void fill_keys(const clscan_sort_desc *d, gen g, uint64_t seed, void *keys, size_t n) {
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

/* Fills the values: value i carries i (4 bytes: the index itself; else bytes of a hash). */
void fill_values(size_t vs, void *values, size_t n) {
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
void run_case(clscan_sort_plan *plan, const sort_case *c, uint64_t seed) {
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
void check(const sort_case *c, uint64_t seed) {
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

const clscan_type all_types[] = {CLSCAN_INT8,  CLSCAN_UINT8,  CLSCAN_INT16, CLSCAN_UINT16,
                                 CLSCAN_INT32, CLSCAN_UINT32, CLSCAN_INT64, CLSCAN_UINT64,
                                 CLSCAN_FLOAT, CLSCAN_DOUBLE, CLSCAN_HALF};

/* The algorithms: LSD and Onesweep, which every device runs (Onesweep with 32-bit status words
 * where the device lacks 64-bit atomics), so a plan either cannot create fails the test. */
int algorithms(clscan_sort_algorithm out[2]) {
  out[0] = CLSCAN_SORT_LSD;
  out[1] = CLSCAN_SORT_ONESWEEP;
  return 2;
}

/* The case at each of `count` sizes, on one plan (seeds from `seed` up). */
void run_sizes(sort_case *c, const size_t *sizes, size_t count, size_t seed) {
  clscan_sort_plan *plan = NULL;
  assert_int_equal(clscan_sort_plan_create(tu_context(), &c->desc, &plan), CLSCAN_SUCCESS);
  for (size_t i = 0; i < count; i++) {
    c->n = sizes[i];
    run_case(plan, c, tu_mix(tu_seed(), seed + i));
  }
  clscan_sort_plan_release(plan);
}

/* Appends the assertion that plans are built with the warp ranking (warps 1) or without it (0)
 * to CLSCAN_BUILD_OPTIONS (cl/radix_sort.cl, CLSCAN_TEST_SORT_RANK_WARPS). */
void expect_shape(int warps, tu_env_saved *saved) {
  const char *options = getenv("CLSCAN_BUILD_OPTIONS");
  char with_shape[256];
  snprintf(with_shape, sizeof with_shape, "%s -DCLSCAN_TEST_SORT_RANK_WARPS=%d",
           options ? options : "", warps);
  tu_env_set("CLSCAN_BUILD_OPTIONS", with_shape, saved);
}
