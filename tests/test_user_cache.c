/*
 * clscan tests: programs built once per descriptor, counted through tests/cl_track.c, and plan
 * cache keys that tell apart descriptors differing only in their OpenCL C (the `user.cache`
 * CTest test).
 */
#include <inttypes.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cl_track.h"
#include "test_util.h"
#include "user_specs.h"

/* ============================================================================================== */
/* Programs built once per descriptor                                                             */
/* ============================================================================================== */

/* Returns a heap copy of a string (a different pointer with the same text). */
static char *copy_of(const char *s) {
  char *c = malloc(strlen(s) + 1);
  assert_non_null(c);
  strcpy(c, s);
  return c;
}

/* Returns the builds counted so far. */
static long builds_now(void) {
  tr_snapshot s;
  tr_snapshot_take(&s);
  return s.builds;
}

/* Runs a one-shot case (checked) on ctx. */
static void run_checked(clscan_context *ctx, const tu_case *c) {
  char msg[1200];
  if (!tu_run_case(ctx, c, msg, sizeof msg))
    fail_msg("%s", msg);
}

/*
 * On a fresh context: a user plan builds its programs once; a second plan for the same text
 * (other pointers) builds nothing; repeated clscan_segmented_scan and clscan_scan_by_key calls
 * (other inits, sizes and offsets) build only the first time; and nothing leaks.
 */
static void test_builds_once(void **state) {
  (void)state;
  clscan_context *shared = tu_context(), *ctx = NULL;
  tr_snapshot before, after;
  tr_snapshot_take(&before);
  assert_int_equal(
      clscan_context_create(clscan_context_cl_context(shared), clscan_context_device(shared), &ctx),
      CLSCAN_SUCCESS);
  clscan_scan_desc d = uc_spec_affine.desc;
  d.algorithm = CLSCAN_ALGO_REDUCE_THEN_SCAN;
  clscan_plan *p1 = NULL, *p2 = NULL;
  long b0 = builds_now();
  assert_int_equal(clscan_plan_create(ctx, &d, &p1), CLSCAN_SUCCESS);
  long b1 = builds_now();
  char *op = copy_of(d.op_source), *type = copy_of(d.type_source), *name = copy_of(d.type_name);
  uc_affine identity = uc_affine_identity;
  d.op_source = op;
  d.type_source = type;
  d.type_name = name;
  d.identity = &identity;
  d.exclusive = 1;
  assert_int_equal(clscan_plan_create(ctx, &d, &p2), CLSCAN_SUCCESS);
  long b2 = builds_now();
  printf("  builds: first affine plan %ld, second plan %ld\n", b1 - b0, b2 - b1);
  if (b1 - b0 < 1)
    fail_msg("the first plan built %ld programs: is clBuildProgram counted?", b1 - b0);
  if (b2 != b1)
    fail_msg("a second plan for the same descriptor built %ld programs", b2 - b1);
  clscan_plan_release(p1);
  clscan_plan_release(p2);
  free(op);
  free(type);
  free(name);

  // Repeated one-shot segmented scans: other inits, sizes and offsets, same descriptor.
  static const clscan_segments kinds[] = {CLSCAN_SEGMENTS_HEAD_FLAGS, CLSCAN_SEGMENTS_KEYS};
  for (int k = 0; k < 2; k++) {
    long first = 0, later = 0;
    for (int rep = 0; rep < 4; rep++) {
      // Offsets stay multiples of 16 bytes, so that every call can use the same I/O variant.
      size_t off = 2 * (size_t)rep;
      tu_case c = {.spec = &uc_spec_affine,
                   .algorithm = CLSCAN_ALGO_AUTO,
                   .segments = kinds[k],
                   .key_type = CLSCAN_UINT64,
                   .n = 3000 + 1000 * (size_t)rep,
                   .in_off = off,
                   .out_off = off,
                   .seg_off = k ? off : 8 * off,
                   .path = TU_PATH_ONE_SHOT,
                   .seed = tu_mix(tu_seed(), 0xB0 + (uint64_t)rep)};
      if (rep % 2)
        tu_case_set_init(&c, tu_mix(tu_seed(), 0xB1 + (uint64_t)rep));
      long b = builds_now();
      run_checked(ctx, &c);
      if (rep == 0)
        first = builds_now() - b;
      else
        later += builds_now() - b;
    }
    printf("  builds: %s one-shot: first call %ld, next three calls %ld\n",
           k ? "clscan_scan_by_key" : "clscan_segmented_scan", first, later);
    if (later != 0)
      fail_msg("repeated one-shot segmented scans built %ld more programs", later);
  }
  clscan_context_release(ctx);
  tr_snapshot_take(&after);
  char leaked[256];
  if (tr_leaked(&before, &after, leaked, sizeof leaked))
    fail_msg("after releasing the context, these OpenCL objects are left: %s", leaked);
}

/* Host twins for the cache-key test (and uc_uc_add_u32). */
static void xor_u32(const void *a, const void *b, void *r) {
  uint32_t x, y;
  memcpy(&x, a, 4);
  memcpy(&y, b, 4);
  x ^= y;
  memcpy(r, &x, 4);
}

static void min_u32(const void *a, const void *b, void *r) {
  uint32_t x, y;
  memcpy(&x, a, 4);
  memcpy(&y, b, 4);
  x = y < x ? y : x;
  memcpy(r, &x, 4);
}

static void below_1000(uint64_t seed, void *data, size_t n) {
  uint32_t *v = data;
  for (size_t i = 0; i < n; i++)
    v[i] = (uint32_t)(uc_rnd(&seed) % 1000);
}

static void plus1(const void *x, uint64_t i, void *y) {
  (void)i;
  uint32_t v;
  memcpy(&v, x, 4);
  v += 1;
  memcpy(y, &v, 4);
}

static void plus2(const void *x, uint64_t i, void *y) {
  (void)i;
  uint32_t v;
  memcpy(&v, x, 4);
  v += 2;
  memcpy(y, &v, 4);
}

/*
 * Descriptors that differ only in op_source, map_source or identity must not share a cached
 * plan: one-shot scans of each, one after the other on the same context, all checked. (The
 * identities 5000 and 7000 are both identities of min on inputs below 1000; an exclusive scan
 * without init starts with the identity given.)
 */
static void test_cache_keys(void **state) {
  (void)state;
  static const uint32_t zero = 0, five = 5000, seven = 7000;
  const tu_spec specs[] = {
      {.name = "uint32 a + b",
       .desc =
           {.type = CLSCAN_UINT32, .op = CLSCAN_USER_OP, .op_source = "a + b", .identity = &zero},
       .op = uc_add_u32},
      {.name = "uint32 a ^ b",
       .desc =
           {.type = CLSCAN_UINT32, .op = CLSCAN_USER_OP, .op_source = "a ^ b", .identity = &zero},
       .op = xor_u32},
      {.name = "min, identity 5000",
       .desc = {.type = CLSCAN_UINT32,
                .op = CLSCAN_USER_OP,
                .op_source = "min(a, b)",
                .identity = &five},
       .op = min_u32,
       .fill = below_1000},
      {.name = "min, identity 7000",
       .desc = {.type = CLSCAN_UINT32,
                .op = CLSCAN_USER_OP,
                .op_source = "min(a, b)",
                .identity = &seven},
       .op = min_u32,
       .fill = below_1000},
      {.name = "map x + 1",
       .desc = {.type = CLSCAN_UINT32, .op = CLSCAN_ADD, .map_source = "x + 1"},
       .map = plus1},
      {.name = "map x + 2",
       .desc = {.type = CLSCAN_UINT32, .op = CLSCAN_ADD, .map_source = "x + 2"},
       .map = plus2},
  };
  for (int round = 0; round < 2; round++) {
    for (size_t k = 0; k < sizeof specs / sizeof specs[0]; k++) {
      tu_case c = {.spec = &specs[k],
                   .algorithm = CLSCAN_ALGO_AUTO,
                   .exclusive = 1,
                   .n = 777 + 100 * (size_t)round,
                   .path = TU_PATH_ONE_SHOT,
                   .seed = tu_mix(tu_seed(), 0xCA + k)};
      run_checked(tu_context(), &c);
    }
  }
}

/* An op expression calling a helper of type_source whose name contains "return": an
 * expression still, since the word `return` does not occur. */
static void test_return_word(void **state) {
  (void)state;
  const tu_spec spec = {
      .name = "affine via compose_return(a, b)",
      .desc = {.type = CLSCAN_USER_TYPE,
               .op = CLSCAN_USER_OP,
               .op_source = "compose_return(a, b)",
               .identity = &uc_affine_identity,
               .type_source = "typedef struct { uint a; uint b; } affine;\n"
                              "affine compose_return(affine f, affine g) {\n"
                              "  affine r; r.a = f.a * g.a; r.b = g.a * f.b + g.b; return r;\n"
                              "}\n",
               .type_name = "affine",
               .type_size = 8},
      .op = uc_affine_op,
      .fill = uc_affine_fill,
      .fill_init = uc_affine_fill};
  tu_case c = {.spec = &spec,
               .algorithm = CLSCAN_ALGO_AUTO,
               .exclusive = 1,
               .n = 5000,
               .path = TU_PATH_PLAN,
               .seed = tu_mix(tu_seed(), 0x7E)};
  tu_case_set_init(&c, tu_mix(tu_seed(), 0x7F));
  run_checked(tu_context(), &c);
}

/* ============================================================================================== */
/* Main                                                                                           */
/* ============================================================================================== */

int main(void) {
  const struct CMUnitTest tests[] = {
      {"builds-once", test_builds_once, NULL, NULL, NULL},
      {"cache-keys", test_cache_keys, NULL, NULL, NULL},
      {"return-in-a-name", test_return_word, NULL, NULL, NULL},
  };
  if (!tu_context())
    return 1;
  int failed = cmocka_run_group_tests_name("user-cache", tests, tu_group_setup, tu_group_teardown);
  tu_context_release();
  return failed ? 1 : 0;
}
