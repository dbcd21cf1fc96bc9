/*
 * clscan tests: validation of descriptors with output types, user operators and types, maps and
 * segments: every validation status with the output untouched, sources that do not compile,
 * type_size mismatches, entry points that do not match the segments, buffer sizes of every
 * buffer, and overlaps (the `user.errors` CTest test).
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

#include "ref_scan.h"
#include "test_util.h"
#include "user_specs.h"

/* The zero of uint32, as an identity. */
static const uint32_t uint32_zero = 0;

/* ============================================================================================== */
/* Errors: fixture and checks                                                                     */
/* ============================================================================================== */

/* Elements the error tests scan, and the bytes of their buffers. */
#define EN 8
#define EBYTES 1024

static cl_mem g_in, g_out, g_seg;

static int errors_setup(void **state) {
  if (tu_group_setup(state) != 0)
    return -1;
  clscan_context *ctx = tu_context();
  unsigned char bytes[EBYTES];
  for (size_t i = 0; i < EBYTES; i++)
    bytes[i] = (unsigned char)(i % 7 == 0 ? 1 : 0);
  g_in = tu_buffer(ctx, CL_MEM_READ_WRITE, EBYTES);
  g_out = tu_buffer(ctx, CL_MEM_READ_WRITE, EBYTES);
  g_seg = tu_buffer(ctx, CL_MEM_READ_WRITE, EBYTES);
  if (!g_in || !g_out || !g_seg || !tu_write(ctx, NULL, g_in, 0, EBYTES, bytes) ||
      !tu_write(ctx, NULL, g_seg, 0, EBYTES, bytes))
    return -1;
  return 0;
}

static int errors_teardown(void **state) {
  clReleaseMemObject(g_in);
  clReleaseMemObject(g_out);
  clReleaseMemObject(g_seg);
  return tu_group_teardown(state);
}

/* Fills a buffer with the poison byte. */
static void poison(cl_mem buf, size_t bytes) {
  unsigned char *p = malloc(bytes);
  assert_non_null(p);
  memset(p, TU_POISON, bytes);
  assert_true(tu_write(tu_context(), NULL, buf, 0, bytes, p));
  free(p);
}

/* Checks that a buffer still holds only the poison byte. */
static int still_poisoned(cl_mem buf, size_t bytes) {
  unsigned char *p = malloc(bytes);
  assert_non_null(p);
  assert_true(tu_read(tu_context(), NULL, buf, 0, bytes, p));
  int same = tu_all_bytes(p, bytes, TU_POISON);
  free(p);
  return same;
}

/* Checks a call that must fail: its status, a detail, no event, and `out` untouched (pass NULL
 * for calls that have no device output). */
static void expect_status(const char *what, int line, clscan_status got, clscan_status want,
                          cl_event done, cl_mem out, size_t out_bytes) {
  char detail[512];
  snprintf(detail, sizeof detail, "%s", clscan_last_error_detail());
  if (got != want)
    fail_msg("line %d: %s returned %s (%d), want %s (%d); detail: %s", line, what,
             clscan_status_string(got), (int)got, clscan_status_string(want), (int)want, detail);
  if (want != CLSCAN_SUCCESS && detail[0] == '\0')
    fail_msg("line %d: %s: clscan_last_error_detail() is empty", line, what);
  if (want != CLSCAN_SUCCESS && done)
    fail_msg("line %d: %s failed but handed out an event", line, what);
  if (want != CLSCAN_SUCCESS && out && !still_poisoned(out, out_bytes))
    fail_msg("line %d: %s failed but changed the output buffer", line, what);
}

/* ============================================================================================== */
/* Errors: descriptors                                                                            */
/* ============================================================================================== */

/* A descriptor with exactly one defect, and the status every entry point must return. */
typedef struct bad_desc {
  const char *what;
  clscan_scan_desc desc;
  clscan_status want;
} bad_desc;

static const bad_desc bad_descs[] = {
    {"user op without op_source",
     {.type = CLSCAN_UINT32, .op = CLSCAN_USER_OP, .identity = &uint32_zero},
     CLSCAN_NULL_ARGUMENT},
    {"user op without identity",
     {.type = CLSCAN_UINT32, .op = CLSCAN_USER_OP, .op_source = "a + b"},
     CLSCAN_NULL_ARGUMENT},
    {"op_source with a built-in op",
     {.type = CLSCAN_UINT32, .op = CLSCAN_ADD, .op_source = "a + b"},
     CLSCAN_INVALID_VALUE},
    {"identity with a built-in op",
     {.type = CLSCAN_UINT32, .op = CLSCAN_ADD, .identity = &uint32_zero},
     CLSCAN_INVALID_VALUE},
    {"user input type without type_name",
     {.type = CLSCAN_USER_TYPE,
      .op = CLSCAN_USER_OP,
      .op_source = uc_affine_op_source,
      .identity = &uc_affine_identity,
      .type_source = uc_affine_source,
      .type_size = 8},
     CLSCAN_NULL_ARGUMENT},
    {"user output type without type_name",
     {.type = CLSCAN_FLOAT,
      .out_type = CLSCAN_OUT_USER_TYPE,
      .op = CLSCAN_USER_OP,
      .op_source = uc_argmin_op_source,
      .identity = &uc_argmin_identity,
      .type_source = uc_argmin_source,
      .type_size = 8,
      .map_source = uc_argmin_map_source},
     CLSCAN_NULL_ARGUMENT},
    {"user type with type_size 0",
     {.type = CLSCAN_USER_TYPE,
      .op = CLSCAN_USER_OP,
      .op_source = uc_affine_op_source,
      .identity = &uc_affine_identity,
      .type_source = uc_affine_source,
      .type_name = "affine"},
     CLSCAN_INVALID_VALUE},
    {"type_name without a user type",
     {.type = CLSCAN_INT32, .op = CLSCAN_ADD, .type_name = "int"},
     CLSCAN_INVALID_VALUE},
    {"type_source without a user type",
     {.type = CLSCAN_INT32, .op = CLSCAN_ADD, .type_source = uc_affine_source},
     CLSCAN_INVALID_VALUE},
    {"type_size without a user type",
     {.type = CLSCAN_INT32, .op = CLSCAN_ADD, .type_size = 4},
     CLSCAN_INVALID_VALUE},
    {"out_type CLSCAN_UINT32 (a clscan_type, 1) stored by mistake",
     {.type = CLSCAN_UINT8, .out_type = (clscan_out_type)CLSCAN_UINT32, .op = CLSCAN_ADD},
     CLSCAN_INVALID_TYPE},
    {"out_type 0x100 + CLSCAN_TYPE_COUNT",
     {.type = CLSCAN_UINT8, .out_type = (clscan_out_type)(0x100 + CLSCAN_TYPE_COUNT)},
     CLSCAN_INVALID_TYPE},
    {"out_type 0x100 + 63",
     {.type = CLSCAN_UINT8, .out_type = (clscan_out_type)(0x100 + 63)},
     CLSCAN_INVALID_TYPE},
    {"out_type CLSCAN_OUT_USER_TYPE + 1",
     {.type = CLSCAN_UINT8, .out_type = (clscan_out_type)(CLSCAN_OUT_USER_TYPE + 1)},
     CLSCAN_INVALID_TYPE},
    {"out_type -1", {.type = CLSCAN_UINT8, .out_type = (clscan_out_type)-1}, CLSCAN_INVALID_TYPE},
    {"type CLSCAN_USER_TYPE + 1",
     {.type = (clscan_type)(CLSCAN_USER_TYPE + 1)},
     CLSCAN_INVALID_TYPE},
    {"op CLSCAN_USER_OP + 1",
     {.type = CLSCAN_INT32, .op = (clscan_op)(CLSCAN_USER_OP + 1)},
     CLSCAN_INVALID_OP},
    {"user type with a built-in op",
     {.type = CLSCAN_USER_TYPE,
      .op = CLSCAN_ADD,
      .type_source = uc_affine_source,
      .type_name = "affine",
      .type_size = 8},
     CLSCAN_UNSUPPORTED_OP_FOR_TYPE},
    {"user output type (mapped) with a built-in op",
     {.type = CLSCAN_FLOAT,
      .out_type = CLSCAN_OUT_USER_TYPE,
      .op = CLSCAN_MIN,
      .type_source = uc_argmin_source,
      .type_name = "argmin",
      .type_size = 8,
      .map_source = uc_argmin_map_source},
     CLSCAN_UNSUPPORTED_OP_FOR_TYPE},
    {"xor on a float output type",
     {.type = CLSCAN_INT32, .out_type = CLSCAN_OUT_FLOAT, .op = CLSCAN_XOR},
     CLSCAN_UNSUPPORTED_OP_FOR_TYPE},
    {"and on a float output type from uint8",
     {.type = CLSCAN_UINT8, .out_type = CLSCAN_OUT_FLOAT, .op = CLSCAN_AND},
     CLSCAN_UNSUPPORTED_OP_FOR_TYPE},
    {"user input type to int32 without map_source",
     {.type = CLSCAN_USER_TYPE,
      .out_type = CLSCAN_OUT_INT32,
      .op = CLSCAN_ADD,
      .type_source = uc_affine_source,
      .type_name = "affine",
      .type_size = 8},
     CLSCAN_INVALID_VALUE},
    {"float to a user output type without map_source",
     {.type = CLSCAN_FLOAT,
      .out_type = CLSCAN_OUT_USER_TYPE,
      .op = CLSCAN_USER_OP,
      .op_source = uc_argmin_op_source,
      .identity = &uc_argmin_identity,
      .type_source = uc_argmin_source,
      .type_name = "argmin",
      .type_size = 8},
     CLSCAN_INVALID_VALUE},
    {"segments 4 (the internal rows kind)",
     {.type = CLSCAN_INT32, .segments = (clscan_segments)4},
     CLSCAN_INVALID_VALUE},
    {"segments -1", {.type = CLSCAN_INT32, .segments = (clscan_segments)-1}, CLSCAN_INVALID_VALUE},
    {"keys of type 40",
     {.type = CLSCAN_INT32, .segments = CLSCAN_SEGMENTS_KEYS, .key_type = (clscan_type)40},
     CLSCAN_INVALID_TYPE},
    {"keys of a user type without key_type_name",
     {.type = CLSCAN_INT32, .segments = CLSCAN_SEGMENTS_KEYS, .key_type = CLSCAN_USER_TYPE},
     CLSCAN_NULL_ARGUMENT},
    {"key_equal_source without keys",
     {.type = CLSCAN_INT32, .segments = CLSCAN_SEGMENTS_HEAD_FLAGS, .key_equal_source = "a == b"},
     CLSCAN_INVALID_VALUE},
};
#define BAD_COUNT (sizeof bad_descs / sizeof bad_descs[0])

/* Calls the one-shot entry point that matches a descriptor's segments on the fixture's buffers. */
static clscan_status one_shot(const clscan_scan_desc *d, cl_event *done) {
  clscan_context *ctx = tu_context();
  if (d->segments == CLSCAN_SEGMENTS_KEYS)
    return clscan_scan_by_key(ctx, NULL, d, g_seg, 0, g_in, 0, g_out, 0, EN, 0, NULL, done);
  if (d->segments == CLSCAN_SEGMENTS_HEAD_FLAGS)
    return clscan_segmented_scan(ctx, NULL, d, g_seg, 0, g_in, 0, g_out, 0, EN, 0, NULL, done);
  return clscan_scan(ctx, NULL, d, g_in, 0, g_out, 0, EN, 0, NULL, done);
}

/* Every defect through plan creation, clscan_context_supports, the one-shot entry point and,
 * for unsegmented descriptors, clscan_scan_host. */
static void test_bad_descs(void **state) {
  (void)state;
  clscan_context *ctx = tu_context();
  for (size_t k = 0; k < BAD_COUNT; k++) {
    const bad_desc *b = &bad_descs[k];
    char what[160];
    tu_progress(b->what);
    clscan_plan *plan = (clscan_plan *)&plan;
    snprintf(what, sizeof what, "clscan_plan_create(%s)", b->what);
    expect_status(what, __LINE__, clscan_plan_create(ctx, &b->desc, &plan), b->want, NULL, NULL, 0);
    if (plan)
      fail_msg("%s: the plan was not set to NULL", what);
    snprintf(what, sizeof what, "clscan_context_supports(%s)", b->what);
    expect_status(what, __LINE__, clscan_context_supports(ctx, &b->desc), b->want, NULL, NULL, 0);
    cl_event done = NULL;
    poison(g_out, EBYTES);
    snprintf(what, sizeof what, "one-shot scan (%s)", b->what);
    expect_status(what, __LINE__, one_shot(&b->desc, &done), b->want, done, g_out, EBYTES);
    if (b->desc.segments == CLSCAN_SEGMENTS_NONE) {
      unsigned char in[EBYTES] = {0}, out[EBYTES];
      memset(out, TU_POISON, sizeof out);
      snprintf(what, sizeof what, "clscan_scan_host(%s)", b->what);
      expect_status(what, __LINE__, clscan_scan_host(ctx, &b->desc, in, out, EN), b->want, NULL,
                    NULL, 0);
      if (!tu_all_bytes(out, sizeof out, TU_POISON))
        fail_msg("%s failed but changed its output array", what);
    }
  }
  printf("  %zu defective descriptors refused by every entry point\n", BAD_COUNT);
}

/* Reads the context's build log; returns its length. */
static size_t build_log_length(clscan_context *ctx, char *buf, size_t cap) {
  size_t needed = 0;
  assert_int_equal(clscan_context_build_log(ctx, buf, cap, &needed), CLSCAN_SUCCESS);
  return needed ? needed - 1 : 0;
}

/* Scans 1000 affine maps with a plan on `ctx` and checks them (the context still works). */
static void check_affine_works(clscan_context *ctx, const char *after) {
  tu_case c = {.spec = &uc_spec_affine,
               .algorithm = CLSCAN_ALGO_AUTO,
               .n = 1000,
               .path = TU_PATH_ONE_SHOT,
               .seed = tu_mix(tu_seed(), 0xAF)};
  char msg[1200];
  if (!tu_run_case(ctx, &c, msg, sizeof msg))
    fail_msg("after %s: %s", after, msg);
}

/* Sources that do not compile: the status, a build log, the output untouched, and the context
 * still working afterwards. */
static void test_bad_sources(void **state) {
  (void)state;
  clscan_context *ctx = tu_context();
  clscan_scan_desc bad[5];
  for (int k = 0; k < 3; k++)
    bad[k] = uc_spec_affine.desc;
  bad[0].op_source = "a +* b";
  bad[1].op_source = "{ affine r = a; r.c = b.a; return r; }";
  bad[2].type_source = "typedef struct { uint a; no_such_type b; } affine;";
  bad[3] = (clscan_scan_desc){
      .type = CLSCAN_INT32, .op = CLSCAN_ADD, .map_source = "x * no_such_symbol"};
  bad[4] = (clscan_scan_desc){.type = CLSCAN_UINT32,
                              .op = CLSCAN_USER_OP,
                              .op_source = "{ return a + ; }",
                              .identity = &uint32_zero};
  const char *names[] = {"op expression", "op body", "type_source", "map expression",
                         "op body on uint32"};
  for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
    char what[128], log[4096];
    snprintf(what, sizeof what, "clscan_plan_create (bad %s)", names[k]);
    tu_progress(what);
    clscan_plan *plan = NULL;
    expect_status(what, __LINE__, clscan_plan_create(ctx, &bad[k], &plan),
                  CLSCAN_USER_SOURCE_INVALID, NULL, NULL, 0);
    assert_null(plan);
    // The calling thread's detail quotes the compiler's first error (the context's log may be
    // another thread's by the time it is read).
    if (!strstr(clscan_last_error_detail(), "first error: ") ||
        strstr(clscan_last_error_detail(), "none in the log"))
      fail_msg("%s: the detail quotes no compiler error: %s", what, clscan_last_error_detail());
    if (build_log_length(ctx, log, sizeof log) == 0)
      fail_msg("%s: the build log is empty", what);
    printf("  bad %s: %s; build log starts: %.100s\n", names[k], clscan_last_error_detail(), log);
    cl_event done = NULL;
    poison(g_out, EBYTES);
    snprintf(what, sizeof what, "clscan_scan (bad %s)", names[k]);
    expect_status(what, __LINE__,
                  clscan_scan(ctx, NULL, &bad[k], g_in, 0, g_out, 0, EN, 0, NULL, &done),
                  CLSCAN_USER_SOURCE_INVALID, done, g_out, EBYTES);
    check_affine_works(ctx, what);
  }
}

/* type_size that differs from the device's sizeof(type_name). */
static void test_type_size_mismatch(void **state) {
  (void)state;
  clscan_context *ctx = tu_context();
  clscan_scan_desc bad[4] = {uc_spec_affine.desc, uc_spec_affine.desc, uc_spec_int2.desc,
                             uc_spec_argmin.desc};
  // The identity and init point at type_size bytes (the API's contract, which the library
  // relies on before a build can tell the sizes apart): give every case 16 readable bytes.
  static unsigned char identity16[3][16];
  memcpy(identity16[0], uc_spec_affine.desc.identity, 8);
  memcpy(identity16[1], &uc_mat2_identity, 16);
  memcpy(identity16[2], &uc_mat2_identity, 16);
  bad[0].type_size = 12;
  bad[0].identity = identity16[0];
  bad[0].init = NULL;
  bad[1].type_size = 4;
  bad[2].type_size = 16;
  bad[2].identity = identity16[1];
  bad[3].type_size = 16;
  bad[3].identity = identity16[2];
  bad[3].init = NULL;
  for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
    char what[128];
    snprintf(what, sizeof what, "clscan_plan_create (%s of %zu bytes)", bad[k].type_name,
             bad[k].type_size);
    tu_progress(what);
    clscan_plan *plan = NULL;
    expect_status(what, __LINE__, clscan_plan_create(ctx, &bad[k], &plan),
                  CLSCAN_TYPE_SIZE_MISMATCH, NULL, NULL, 0);
    assert_null(plan);
    cl_event done = NULL;
    poison(g_out, EBYTES);
    snprintf(what, sizeof what, "clscan_scan (%s of %zu bytes)", bad[k].type_name,
             bad[k].type_size);
    expect_status(what, __LINE__,
                  clscan_scan(ctx, NULL, &bad[k], g_in, 0, g_out, 0, EN, 0, NULL, &done),
                  CLSCAN_TYPE_SIZE_MISMATCH, done, g_out, EBYTES);
  }
  check_affine_works(ctx, "type_size mismatches");
}

/* Entry points that do not match the descriptor's segments, and NULL segment buffers. */
static void test_entry_points(void **state) {
  (void)state;
  clscan_context *ctx = tu_context();
  clscan_scan_desc flat = {.type = CLSCAN_INT32}, flags = flat, keys = flat;
  flags.segments = CLSCAN_SEGMENTS_HEAD_FLAGS;
  keys.segments = CLSCAN_SEGMENTS_KEYS;
  keys.key_type = CLSCAN_UINT64;
  clscan_plan *pflat = NULL, *pflags = NULL, *pkeys = NULL;
  assert_int_equal(clscan_plan_create(ctx, &flat, &pflat), CLSCAN_SUCCESS);
  assert_int_equal(clscan_plan_create(ctx, &flags, &pflags), CLSCAN_SUCCESS);
  assert_int_equal(clscan_plan_create(ctx, &keys, &pkeys), CLSCAN_SUCCESS);
  cl_event done = NULL, first = NULL;
#define EXPECT(call, want)                                                          \
  do {                                                                              \
    poison(g_out, EBYTES);                                                          \
    done = first = NULL;                                                            \
    expect_status(#call, __LINE__, (call), (want), done, g_out, EBYTES);            \
    if ((want) != CLSCAN_SUCCESS && first)                                          \
      fail_msg("line %d: %s failed but handed out a first event", __LINE__, #call); \
  } while (0)
  EXPECT(clscan_plan_enqueue(pflags, NULL, g_in, 0, g_out, 0, EN, 0, NULL, &done),
         CLSCAN_INVALID_VALUE);
  EXPECT(clscan_plan_enqueue(pkeys, NULL, g_in, 0, g_out, 0, EN, 0, NULL, &done),
         CLSCAN_INVALID_VALUE);
  EXPECT(clscan_plan_enqueue_timed(pflags, NULL, g_in, 0, g_out, 0, EN, 0, NULL, &first, &done),
         CLSCAN_INVALID_VALUE);
  EXPECT(clscan_plan_enqueue_segmented(pflat, NULL, g_seg, 0, g_in, 0, g_out, 0, EN, 0, NULL,
                                       &first, &done),
         CLSCAN_INVALID_VALUE);
  EXPECT(clscan_segmented_scan(ctx, NULL, &keys, g_seg, 0, g_in, 0, g_out, 0, EN, 0, NULL, &done),
         CLSCAN_INVALID_VALUE);
  EXPECT(clscan_scan_by_key(ctx, NULL, &flags, g_seg, 0, g_in, 0, g_out, 0, EN, 0, NULL, &done),
         CLSCAN_INVALID_VALUE);
  EXPECT(clscan_segmented_scan(ctx, NULL, &flat, NULL, 0, g_in, 0, g_out, 0, EN, 0, NULL, &done),
         CLSCAN_NULL_ARGUMENT);
  EXPECT(clscan_scan_by_key(ctx, NULL, &keys, NULL, 0, g_in, 0, g_out, 0, EN, 0, NULL, &done),
         CLSCAN_NULL_ARGUMENT);
  EXPECT(clscan_plan_enqueue_segmented(pflags, NULL, NULL, 0, g_in, 0, g_out, 0, EN, 0, NULL,
                                       &first, &done),
         CLSCAN_NULL_ARGUMENT);
  EXPECT(clscan_plan_enqueue_segmented(NULL, NULL, g_seg, 0, g_in, 0, g_out, 0, EN, 0, NULL, &first,
                                       &done),
         CLSCAN_NULL_ARGUMENT);
#undef EXPECT

  // clscan_scan and clscan_scan_host are not documented for segmented descriptors: whatever they
  // return, it must not be success, and they must not write.
  poison(g_out, EBYTES);
  clscan_status st = clscan_scan(ctx, NULL, &flags, g_in, 0, g_out, 0, EN, 0, NULL, &done);
  printf("  clscan_scan with a head-flags descriptor: %s\n", clscan_status_string(st));
  assert_int_not_equal(st, CLSCAN_SUCCESS);
  assert_true(still_poisoned(g_out, EBYTES));
  unsigned char in[64] = {0}, out[64];
  memset(out, TU_POISON, sizeof out);
  st = clscan_scan_host(ctx, &keys, in, out, EN);
  printf("  clscan_scan_host with a keys descriptor: %s\n", clscan_status_string(st));
  assert_int_not_equal(st, CLSCAN_SUCCESS);
  assert_true(tu_all_bytes(out, sizeof out, TU_POISON));
  clscan_plan_release(pflat);
  clscan_plan_release(pflags);
  clscan_plan_release(pkeys);
}

/* ============================================================================================== */
/* Errors: buffer sizes and overlaps                                                              */
/* ============================================================================================== */

/* A scan on buffers of exact sizes: `slack` bytes more (or, -1, one byte fewer) than needed. */
typedef struct sized {
  clscan_scan_desc desc;
  size_t n, in_off, out_off, seg_off;
  long in_slack, out_slack, seg_slack;
  clscan_status want;
} sized;

/* Flags (a head every 37 elements, as 3) or keys (runs of 50) for the sized scans. */
static void sized_segments(const clscan_scan_desc *d, size_t n, unsigned char *seg) {
  if (d->segments == CLSCAN_SEGMENTS_NONE)
    return;
  for (size_t i = 0; i < n; i++) {
    uint64_t key = i / 50 * 0x100000001ull;
    if (d->segments == CLSCAN_SEGMENTS_HEAD_FLAGS)
      seg[i] = i % 37 == 0 ? 3 : 0;
    else
      memcpy(seg + i * clscan_type_size(d->key_type), &key, clscan_type_size(d->key_type));
  }
}

/* Creates a buffer of exactly `bytes` bytes holding `data` at byte `at` (poison elsewhere). */
static cl_mem exact_buffer(size_t bytes, const void *data, size_t at, size_t len) {
  unsigned char *img = malloc(bytes + 1);
  assert_non_null(img);
  memset(img, TU_POISON, bytes);
  if (data)
    memcpy(img + at, data, len);
  cl_mem buf = tu_buffer(tu_context(), CL_MEM_READ_WRITE, bytes);
  assert_non_null(buf);
  assert_true(tu_write(tu_context(), NULL, buf, 0, bytes, img));
  free(img);
  return buf;
}

/* Runs a sized scan and checks its status and, on success, its result. */
static void run_sized(const sized *z, int line) {
  const clscan_scan_desc *d = &z->desc;
  size_t is = clscan_ref_in_size(d), os = clscan_ref_out_size(d);
  size_t ks = d->segments == CLSCAN_SEGMENTS_KEYS ? clscan_type_size(d->key_type) : 1;
  unsigned char *input = malloc(z->n * is), *seg = malloc(z->n * ks);
  unsigned char *got = malloc((z->out_off + z->n) * os + 1);
  assert_true(input && seg && got);
  clscan_ref_fill(d->type, d->op, tu_mix(tu_seed(), (uint64_t)line), input, z->n);
  sized_segments(d, z->n, seg);
  cl_mem in =
      exact_buffer((z->in_off + z->n) * is + (size_t)z->in_slack, input, z->in_off * is, z->n * is);
  size_t out_bytes = (z->out_off + z->n) * os + (size_t)z->out_slack;
  cl_mem out = exact_buffer(out_bytes, NULL, 0, 0);
  cl_mem sb = exact_buffer((z->seg_off + z->n) * ks + (size_t)z->seg_slack, seg, z->seg_off * ks,
                           z->n * ks);
  cl_event done = NULL;
  clscan_context *ctx = tu_context();
  clscan_status st =
      d->segments == CLSCAN_SEGMENTS_KEYS
          ? clscan_scan_by_key(ctx, NULL, d, sb, z->seg_off, in, z->in_off, out, z->out_off, z->n,
                               0, NULL, &done)
      : d->segments == CLSCAN_SEGMENTS_HEAD_FLAGS
          ? clscan_segmented_scan(ctx, NULL, d, sb, z->seg_off, in, z->in_off, out, z->out_off,
                                  z->n, 0, NULL, &done)
          : clscan_scan(ctx, NULL, d, in, z->in_off, out, z->out_off, z->n, 0, NULL, &done);
  expect_status("sized scan", line, st, z->want, done, out, out_bytes);
  if (st == CLSCAN_SUCCESS) {
    clscan_ref_mismatch mm = {.detail = "a guard element before the output was overwritten"};
    assert_int_equal(clWaitForEvents(1, &done), CL_SUCCESS);
    clReleaseEvent(done);
    assert_true(tu_read(ctx, NULL, out, 0, out_bytes, got));
    if (!tu_all_bytes(got, z->out_off * os, TU_POISON) ||
        !clscan_ref_check_segmented(d, seg, input, got + z->out_off * os, z->n, &mm))
      fail_msg("line %d: sized scan: wrong result: %s", line, mm.detail);
  }
  clReleaseMemObject(in);
  clReleaseMemObject(out);
  clReleaseMemObject(sb);
  free(input);
  free(seg);
  free(got);
}

/* Each buffer needs (offset + n) of its own elements: exactly that works, one byte less does not.
 */
static void test_buffer_sizes(void **state) {
  (void)state;
  const clscan_scan_desc widen = {.type = CLSCAN_UINT8, .out_type = CLSCAN_OUT_UINT32};
  const clscan_scan_desc narrow = {
      .type = CLSCAN_UINT32, .out_type = CLSCAN_OUT_UINT8, .exclusive = 1};
  const clscan_scan_desc flags = {.type = CLSCAN_INT32, .segments = CLSCAN_SEGMENTS_HEAD_FLAGS};
  const clscan_scan_desc keys64 = {.type = CLSCAN_INT32,
                                   .exclusive = 1,
                                   .segments = CLSCAN_SEGMENTS_KEYS,
                                   .key_type = CLSCAN_UINT64};
  const clscan_scan_desc keys32 = {.type = CLSCAN_UINT16,
                                   .out_type = CLSCAN_OUT_INT64,
                                   .segments = CLSCAN_SEGMENTS_KEYS,
                                   .key_type = CLSCAN_INT32};
  const sized cases[] = {
      {widen, 1000, 3, 2, 0, 0, 0, 0, CLSCAN_SUCCESS},
      {widen, 1000, 3, 2, 0, -1, 0, 0, CLSCAN_BUFFER_TOO_SMALL},
      {widen, 1000, 3, 2, 0, 0, -1, 0, CLSCAN_BUFFER_TOO_SMALL},
      {narrow, 1000, 1, 5, 0, 0, 0, 0, CLSCAN_SUCCESS},
      {narrow, 1000, 1, 5, 0, -1, 0, 0, CLSCAN_BUFFER_TOO_SMALL},
      {narrow, 1000, 1, 5, 0, 0, -1, 0, CLSCAN_BUFFER_TOO_SMALL},
      {flags, 1000, 0, 1, 5, 0, 0, 0, CLSCAN_SUCCESS},
      {flags, 1000, 0, 1, 5, 0, 0, -1, CLSCAN_BUFFER_TOO_SMALL},
      {keys64, 1000, 2, 0, 3, 0, 0, 0, CLSCAN_SUCCESS},
      {keys64, 1000, 2, 0, 3, 0, 0, -1, CLSCAN_BUFFER_TOO_SMALL},
      {keys64, 1000, 2, 0, 3, 0, -1, 0, CLSCAN_BUFFER_TOO_SMALL},
      {keys32, 1000, 1, 1, 7, 0, 0, 0, CLSCAN_SUCCESS},
      {keys32, 1000, 1, 1, 7, 0, 0, -1, CLSCAN_BUFFER_TOO_SMALL},
      {keys32, 1000, 1, 1, 7, -1, 0, 0, CLSCAN_BUFFER_TOO_SMALL},
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++)
    run_sized(&cases[k], (int)(1000 + k));
}

/* Scans n elements between two places of buffers (maybe the same one) and checks the status and,
 * on success, the result; `seg` may be NULL for unsegmented descriptors. */
static void run_placed(const clscan_scan_desc *d, cl_mem in, size_t in_off, cl_mem seg,
                       size_t seg_off, cl_mem out, size_t out_off, size_t n, clscan_status want,
                       int line) {
  size_t is = clscan_ref_in_size(d), os = clscan_ref_out_size(d);
  unsigned char *input = malloc(n * is), *segs = malloc(n * 8);
  unsigned char *got = malloc(n * os);
  assert_true(input && segs && got);
  clscan_context *ctx = tu_context();
  assert_true(tu_read(ctx, NULL, in, in_off * is, n * is, input));
  if (seg) {
    size_t ks = d->segments == CLSCAN_SEGMENTS_KEYS ? clscan_type_size(d->key_type) : 1;
    assert_true(tu_read(ctx, NULL, seg, seg_off * ks, n * ks, segs));
  }
  cl_event done = NULL;
  clscan_status st = d->segments == CLSCAN_SEGMENTS_KEYS
                         ? clscan_scan_by_key(ctx, NULL, d, seg, seg_off, in, in_off, out, out_off,
                                              n, 0, NULL, &done)
                     : d->segments == CLSCAN_SEGMENTS_HEAD_FLAGS
                         ? clscan_segmented_scan(ctx, NULL, d, seg, seg_off, in, in_off, out,
                                                 out_off, n, 0, NULL, &done)
                         : clscan_scan(ctx, NULL, d, in, in_off, out, out_off, n, 0, NULL, &done);
  if (st != want)
    fail_msg("line %d: returned %s, want %s (%s)", line, clscan_status_string(st),
             clscan_status_string(want), clscan_last_error_detail());
  if (st == CLSCAN_SUCCESS) {
    clscan_ref_mismatch mm;
    assert_int_equal(clWaitForEvents(1, &done), CL_SUCCESS);
    clReleaseEvent(done);
    assert_true(tu_read(ctx, NULL, out, out_off * os, n * os, got));
    if (!clscan_ref_check_segmented(d, seg ? segs : NULL, input, got, n, &mm))
      fail_msg("line %d: wrong result: %s", line, mm.detail);
  } else if (done) {
    fail_msg("line %d: failed but handed out an event", line);
  }
  free(input);
  free(segs);
  free(got);
}

/* Fills a buffer with small pseudo-random bytes (every 7th zero). */
static cl_mem random_buffer(size_t bytes, uint64_t seed) {
  unsigned char *img = malloc(bytes);
  assert_non_null(img);
  for (size_t i = 0; i < bytes; i++)
    img[i] = i % 7 == 0 ? 0 : (unsigned char)(uc_rnd(&seed) % 5);
  cl_mem buf = exact_buffer(bytes, img, 0, bytes);
  free(img);
  return buf;
}

/* Outputs overlapping flags or keys are refused; adjacent ones work. In place needs equal sizes. */
static void test_overlaps(void **state) {
  (void)state;
  const clscan_scan_desc flags = {.type = CLSCAN_INT32, .segments = CLSCAN_SEGMENTS_HEAD_FLAGS};
  const clscan_scan_desc keys = {
      .type = CLSCAN_INT32, .segments = CLSCAN_SEGMENTS_KEYS, .key_type = CLSCAN_UINT64};
  const clscan_scan_desc widen = {.type = CLSCAN_UINT8, .out_type = CLSCAN_OUT_UINT32};
  const clscan_scan_desc widen_flags = {
      .type = CLSCAN_UINT8, .out_type = CLSCAN_OUT_UINT32, .segments = CLSCAN_SEGMENTS_HEAD_FLAGS};
  const clscan_scan_desc to_float = {.type = CLSCAN_INT32, .out_type = CLSCAN_OUT_FLOAT};
  uint64_t seed = tu_mix(tu_seed(), 0x0E7);
  cl_mem shared = random_buffer(4096, seed), in = random_buffer(4096, seed + 1);
  const size_t n = 100;

  // Flags at bytes [0, 100): an int32 output from byte 40 overlaps them, one from byte 100 not.
  run_placed(&flags, in, 0, shared, 0, shared, 10, n, CLSCAN_OVERLAP, __LINE__);
  run_placed(&flags, in, 0, shared, 0, shared, 25, n, CLSCAN_SUCCESS, __LINE__);
  // uint64 keys at bytes [0, 800): output from byte 796 overlaps, from byte 800 not.
  run_placed(&keys, in, 0, shared, 0, shared, 199, n, CLSCAN_OVERLAP, __LINE__);
  run_placed(&keys, in, 0, shared, 0, shared, 200, n, CLSCAN_SUCCESS, __LINE__);
  // The input may be the flags themselves: both are only read.
  run_placed(&widen_flags, in, 8, in, 8, shared, 300, n, CLSCAN_SUCCESS, __LINE__);
  // In place needs equal sizes: uint8 -> uint32 at the same byte start overlaps.
  run_placed(&widen, shared, 40, NULL, 0, shared, 10, n, CLSCAN_OVERLAP, __LINE__);
  run_placed(&widen, shared, 0, NULL, 0, shared, 0, n, CLSCAN_OVERLAP, __LINE__);
  run_placed(&to_float, shared, 3, NULL, 0, shared, 3, n, CLSCAN_SUCCESS, __LINE__);
  clReleaseMemObject(shared);
  clReleaseMemObject(in);

  // Host arrays: in == out is allowed for equal sizes only.
  clscan_context *ctx = tu_context();
  int32_t host[256];
  for (int i = 0; i < 256; i++)
    host[i] = i % 13 - 6;
  int32_t copy[256];
  clscan_ref_mismatch mm;
  memcpy(copy, host, sizeof host);
  assert_int_equal(clscan_scan_host(ctx, &to_float, host, host, 256), CLSCAN_SUCCESS);
  if (!clscan_ref_check(&to_float, copy, host, 256, &mm))
    fail_msg("host in place, int32 -> float: %s", mm.detail);
  memcpy(host, copy, sizeof host);
  assert_int_equal(clscan_scan_host(ctx, &widen, host, host, 256), CLSCAN_OVERLAP);
  assert_memory_equal(host, copy, sizeof host);
}

/* ============================================================================================== */
/* Main                                                                                           */
/* ============================================================================================== */

int main(void) {
  const struct CMUnitTest tests[] = {
      {"bad-descriptors", test_bad_descs, NULL, NULL, NULL},
      {"sources-that-do-not-compile", test_bad_sources, NULL, NULL, NULL},
      {"type-size-mismatch", test_type_size_mismatch, NULL, NULL, NULL},
      {"entry-points", test_entry_points, NULL, NULL, NULL},
      {"buffer-sizes", test_buffer_sizes, NULL, NULL, NULL},
      {"overlaps-and-in-place", test_overlaps, NULL, NULL, NULL},
  };
  if (!tu_context())
    return 1;
  int failed = cmocka_run_group_tests_name("user-errors", tests, errors_setup, errors_teardown);
  tu_context_release();
  return failed ? 1 : 0;
}
