/*
 * clscan tests: reductions (clscan_plan_enqueue_reduce and clscan_reduce_host).
 *
 * Every result is checked against the host reference: a reduction is the last element of the
 * inclusive scan with the same initial value (clscan_ref_scan_twins), so the device's value
 * replaces that element of the reference scan and clscan_ref_check_twins judges it, integers
 * exactly and floating-point sums within the reference's tolerance (CLSCAN_REF_FLOAT_TOL and
 * CLSCAN_REF_DOUBLE_TOL relative to the sum of |y|; min and max exactly). n == 0 must give the
 * initial value (or the identity) exactly. The output element sits between poisoned guards that
 * must survive, and the input must be unchanged.
 *
 * Groups (one CTest test each):
 * - types: every built-in type and operator, with and without init, in a small GPU-shaped
 *   geometry at sizes around its tile and group boundaries, with aligned and unaligned offsets;
 *   every small size in both shapes; the host variant.
 * - shapes: every built-in type and operator, with and without init, in the tuning table's GPU
 *   shape (one launch) and CPU shape (chunks and a final fold) at random sizes. Apart from types
 *   because each case builds programs of its own: on the H200 the two groups together take
 *   minutes of NVIDIA's compiler, and apart they run side by side.
 * - user: output types, user operators and types (non-commutative ones too), maps.
 * - large: sizes up to millions in both shapes, and determinism (K runs give the same bits for
 *   float and double sums).
 * - errors: every bad-input status of both entry points, with the output left untouched.
 * - faults (fault-injection builds): every OpenCL fault point of a plan's creation and reduction
 *   (fresh contexts, so builds fail too) and of a reduction on a warm plan (both shapes) and of
 *   clscan_reduce_host fails cleanly: an OpenCL status with a detail, no event, the output
 *   untouched (only the last kernel writes it, so this holds at every point), and the next
 *   reduction on the same context is right.
 * Seeds are printed with each failure (and the base seed at the end).
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
#ifdef CLSCAN_FAULT_INJECTION
#include "fault.h"
#endif

/* The two reduction shapes, as the tuning selects them. */
static const clscan_shape shapes[] = {CLSCAN_SHAPE_GPU, CLSCAN_SHAPE_CPU};
static const char *const shape_names[] = {"gpu-shape", "cpu-shape"};

/* A small GPU-shaped geometry, so that tiles and groups are crossed at small sizes: 4 work-items
 * on a CPU device, one warp (the least NVIDIA accepts) on a GPU. */
static clscan_tuning small_gpu(void) {
  return (clscan_tuning){.tile_wg = tu_device_is_cpu() ? 4 : 32,
                         .tile_vpt = 2,
                         .rts_groups_per_cu = 3,
                         .single_pass_shape = CLSCAN_SHAPE_GPU};
}

/* One reduction to run and check. */
typedef struct reduce_case {
  tu_case c;            /* descriptor (spec or type/op), init, n, in_off, out_off, seed */
  clscan_tuning tuning; /* the plan's tuning (zero fields: the table's) */
  int host;             /* 1: clscan_reduce_host */
} reduce_case;

/* Describes a case in one line. */
static void describe(const reduce_case *r, char *buf, size_t cap) {
  char c[512];
  tu_case shown = r->c;
  shown.path = r->host ? TU_PATH_HOST : TU_PATH_PLAN; /* the scan path names; see below */
  tu_case_describe(&shown, c, sizeof c);
  snprintf(buf, cap, "reduce of %s (shape %d tile_wg %u vpt %u groups/cu %u)%s", c,
           (int)r->tuning.single_pass_shape, r->tuning.tile_wg, r->tuning.tile_vpt,
           r->tuning.rts_groups_per_cu,
           r->host ? ": clscan_reduce_host" : ": clscan_plan_enqueue_reduce");
}

/* A built-in operator's identity for a built-in output type (what n == 0 gives without init). */
static void builtin_identity(clscan_type t, clscan_op op, void *out) {
  union {
    int8_t i8;
    uint8_t u8;
    int16_t i16;
    uint16_t u16;
    int32_t i32;
    uint32_t u32;
    int64_t i64;
    uint64_t u64;
    float f;
    double d;
  } v;
  memset(&v, 0, sizeof v);
  int is_float = t == CLSCAN_FLOAT || t == CLSCAN_DOUBLE;
  int is_signed = t == CLSCAN_INT8 || t == CLSCAN_INT16 || t == CLSCAN_INT32 || t == CLSCAN_INT64;
  size_t bits = clscan_type_size(t) * 8;
  if (t == CLSCAN_HALF) {
    // IEEE binary16 bits: 1, +infinity, -infinity, 0.
    v.u16 = op == CLSCAN_MUL   ? 0x3C00u
            : op == CLSCAN_MIN ? 0x7C00u
            : op == CLSCAN_MAX ? 0xFC00u
                               : 0;
  } else if (op == CLSCAN_MUL) {
    if (t == CLSCAN_FLOAT)
      v.f = 1;
    else if (t == CLSCAN_DOUBLE)
      v.d = 1;
    else
      v.u64 = 1;
  } else if (op == CLSCAN_AND) {
    v.u64 = ~(uint64_t)0;
  } else if (op == CLSCAN_MIN || op == CLSCAN_MAX) {
    int want_max = op == CLSCAN_MIN; /* the identity of min is the largest value */
    if (t == CLSCAN_FLOAT)
      v.f = want_max ? (float)INFINITY : -(float)INFINITY;
    else if (t == CLSCAN_DOUBLE)
      v.d = want_max ? (double)INFINITY : -(double)INFINITY;
    else if (is_signed)
      v.u64 = want_max ? (((uint64_t)1 << (bits - 1)) - 1) : ((uint64_t)1 << (bits - 1));
    else
      v.u64 = want_max ? ~(uint64_t)0 : 0;
  }
  (void)is_float;
  memcpy(out, &v, clscan_type_size(t));
}

/* The expected result of an empty reduction. */
static void empty_result(const reduce_case *r, const clscan_scan_desc *d, void *out) {
  size_t eo = clscan_ref_out_size(d);
  if (d->init)
    memcpy(out, d->init, eo);
  else if (d->op == CLSCAN_USER_OP)
    memcpy(out, d->identity, eo);
  else
    builtin_identity(clscan_ref_out_type(d), d->op, out);
  (void)r;
}

/* Checks a device result against the reference; 1 if it matches, else 0 with a detail. */
static int check_result(const reduce_case *r, const clscan_scan_desc *d, const void *in,
                        const void *got, char *msg, size_t cap) {
  size_t eo = clscan_ref_out_size(d), n = r->c.n;
  unsigned char want[TU_MAX_ELEM];
  if (n == 0) {
    empty_result(r, d, want);
    if (memcmp(want, got, eo) == 0)
      return 1;
    char a[128], b[128];
    clscan_ref_format_out(d, want, a, sizeof a);
    clscan_ref_format_out(d, got, b, sizeof b);
    snprintf(msg, cap, "n = 0: want %s, got %s", a, b);
    return 0;
  }
  const clscan_ref_twins twins = {r->c.spec ? r->c.spec->map : NULL,
                                  r->c.spec ? r->c.spec->op : NULL};
  unsigned char *ref = malloc(n * eo);
  if (!ref) {
    snprintf(msg, cap, "out of host memory");
    return 0;
  }
  clscan_ref_scan_twins(d, &twins, NULL, in, ref, n);
  memcpy(ref + (n - 1) * eo, got, eo);
  clscan_ref_mismatch m;
  int ok = clscan_ref_check_twins(d, &twins, NULL, in, ref, n, &m);
  if (!ok)
    snprintf(msg, cap, "%s", m.detail);
  free(ref);
  return ok;
}

/* Buffers and host images of one device-path case. */
typedef struct reduce_run {
  unsigned char *input;  /* n input elements */
  unsigned char *in_img; /* in_off fill bytes, the input, a guard of fill */
  unsigned char *out_img;
  cl_mem in, out;
  size_t in_bytes, out_elems;
} reduce_run;

static void run_free(reduce_run *u) {
  free(u->input);
  free(u->in_img);
  free(u->out_img);
  if (u->in)
    clReleaseMemObject(u->in);
  if (u->out)
    clReleaseMemObject(u->out);
}

/* Fills the case's input from its seed. */
static void fill_input(const reduce_case *r, const clscan_scan_desc *d, void *data) {
  if (r->c.spec && r->c.spec->fill)
    r->c.spec->fill(r->c.seed, data, r->c.n);
  else
    clscan_ref_fill(d->type, d->op, r->c.seed, data, r->c.n);
}

/* Runs a case through a plan on device buffers and reads the result into got; 1 on success. */
static int run_device(clscan_context *ctx, const reduce_case *r, const clscan_scan_desc *d,
                      reduce_run *u, void *got, char *msg, size_t cap) {
  size_t ei = clscan_ref_in_size(d), eo = clscan_ref_out_size(d), n = r->c.n;
  clscan_plan *plan = NULL;
  clscan_status st = clscan_plan_create_tuned(ctx, d, &r->tuning, &plan);
  if (st != CLSCAN_SUCCESS) {
    snprintf(msg, cap, "plan: %s (%s)", clscan_status_string(st), clscan_last_error_detail());
    return 0;
  }
  u->in_bytes = (r->c.in_off + n + TU_GUARD) * ei;
  u->out_elems = r->c.out_off + 1 + TU_GUARD;
  u->in_img = malloc(u->in_bytes);
  u->out_img = malloc(u->out_elems * eo);
  int ok = u->in_img && u->out_img;
  if (ok) {
    memset(u->in_img, TU_INPUT_FILL, u->in_bytes);
    memcpy(u->in_img + r->c.in_off * ei, u->input, n * ei);
    memset(u->out_img, TU_POISON, u->out_elems * eo);
    u->in = tu_buffer(ctx, CL_MEM_READ_WRITE, u->in_bytes);
    u->out = tu_buffer(ctx, CL_MEM_READ_WRITE, u->out_elems * eo);
  }
  ok = ok && u->in && u->out && tu_write(ctx, NULL, u->in, 0, u->in_bytes, u->in_img) &&
       tu_write(ctx, NULL, u->out, 0, u->out_elems * eo, u->out_img);
  cl_event first = NULL, done = NULL;
  const int timed = n % 2 == 1; /* odd sizes go through the timed entry point */
  if (ok) {
    st = timed ? clscan_plan_enqueue_reduce_timed(plan, NULL, u->in, r->c.in_off, u->out,
                                                  r->c.out_off, n, 0, NULL, &first, &done)
               : clscan_plan_enqueue_reduce(plan, NULL, u->in, r->c.in_off, u->out, r->c.out_off, n,
                                            0, NULL, &done);
    ok = st == CLSCAN_SUCCESS;
    if (!ok)
      snprintf(msg, cap, "enqueue: %s (%s)", clscan_status_string(st), clscan_last_error_detail());
  }
  ok = ok && (timed ? tu_events_ordered(first, done, msg, cap)
                    : tu_event_complete(done, "done", msg, cap));
  if (first)
    clReleaseEvent(first);
  if (done)
    clReleaseEvent(done);
  unsigned char *back = ok ? malloc(u->out_elems * eo) : NULL;
  unsigned char *in_back = ok ? malloc(u->in_bytes) : NULL;
  ok = ok && back && in_back && tu_read(ctx, NULL, u->out, 0, u->out_elems * eo, back) &&
       tu_read(ctx, NULL, u->in, 0, u->in_bytes, in_back);
  if (ok) {
    memcpy(got, back + r->c.out_off * eo, eo);
    int guards = tu_all_bytes(back, r->c.out_off * eo, TU_POISON) &&
                 tu_all_bytes(back + (r->c.out_off + 1) * eo, TU_GUARD * eo, TU_POISON);
    if (!guards)
      snprintf(msg, cap, "an element beside the result was written");
    else if (memcmp(in_back, u->in_img, u->in_bytes) != 0)
      snprintf(msg, cap, "the input buffer changed");
    ok = guards && memcmp(in_back, u->in_img, u->in_bytes) == 0;
  }
  free(back);
  free(in_back);
  clscan_plan_release(plan);
  return ok;
}

/* Runs and checks one case; 1 if it passed, else 0 with the reason in msg. */
static int run_case(const reduce_case *r, char *msg, size_t cap) {
  clscan_context *ctx = tu_context();
  clscan_scan_desc d;
  tu_case_desc(&r->c, &d);
  d.exclusive = 0;
  size_t ei = clscan_ref_in_size(&d), n = r->c.n;
  unsigned char got[TU_MAX_ELEM];
  reduce_run u = {0};
  u.input = malloc(n * ei + 1);
  int ok = u.input != NULL;
  if (ok)
    fill_input(r, &d, u.input);
  if (ok && r->host) {
    memset(got, TU_POISON, sizeof got);
    clscan_status st = clscan_reduce_host(ctx, &d, u.input, n, got);
    ok = st == CLSCAN_SUCCESS;
    if (!ok)
      snprintf(msg, cap, "clscan_reduce_host: %s (%s)", clscan_status_string(st),
               clscan_last_error_detail());
  } else if (ok) {
    ok = run_device(ctx, r, &d, &u, got, msg, cap);
  }
  ok = ok && check_result(r, &d, u.input, got, msg, cap);
  run_free(&u);
  return ok;
}

/* Runs a case and fails the test with its description if it does not pass. */
static void expect_case(const reduce_case *r) {
  char msg[1024] = "", what[1024];
  describe(r, what, sizeof what);
  tu_progress(what);
  if (!run_case(r, msg, sizeof msg))
    fail_msg("%s: %s", what, msg);
}

/* Returns 1 if the context's device runs a descriptor (double needs fp64). */
static int supported(clscan_type t) {
  clscan_scan_desc d = {.type = t};
  return clscan_context_supports(tu_context(), &d) == CLSCAN_SUCCESS;
}

/* Returns 1 if an operator is defined on a type and the device runs it: the device may refuse a
 * pair with CLSCAN_UNSUPPORTED_BY_DEVICE (rusticl 22.x, whose JIT crashes on int8 mul, min, max
 * and and: docs/testing-drivers.md), and only with that status. */
static int op_on_type(clscan_type t, clscan_op op) {
  int is_float = t == CLSCAN_FLOAT || t == CLSCAN_DOUBLE || t == CLSCAN_HALF;
  if (is_float && (op == CLSCAN_AND || op == CLSCAN_OR || op == CLSCAN_XOR))
    return 0;
  clscan_scan_desc d = {.type = t, .op = op};
  clscan_status st = clscan_context_supports(tu_context(), &d);
  if (st != CLSCAN_UNSUPPORTED_BY_DEVICE)
    assert_int_equal(st, CLSCAN_SUCCESS);
  return st == CLSCAN_SUCCESS;
}

/* ============================================================================================== */
/* types                                                                                          */
/* ============================================================================================== */

/* Sizes around the small GPU geometry's tiles (4 x 2 x VEC) and groups, and a few others. */
static const size_t small_sizes[] = {0, 1, 2, 3, 7, 8, 9, 31, 32, 33, 95, 96, 97, 255, 256, 1000};

/* Every type and operator in the shapes [first, last): 0, the small GPU geometry; 1 and 2, the
 * table's GPU and CPU shapes. */
static void types_in_shapes(int first, int last) {
  uint64_t rs = tu_mix(tu_seed(), (uint64_t)(1 + first));
  for (int t = 0; t < CLSCAN_TYPE_COUNT; t++) {
    if (!supported((clscan_type)t))
      continue;
    for (int op = 0; op < CLSCAN_OP_COUNT; op++) {
      if (!op_on_type((clscan_type)t, (clscan_op)op))
        continue;
      for (int s = first; s < last; s++) {
        reduce_case r = {.c = {.type = (clscan_type)t, .op = (clscan_op)op}};
        r.tuning = s == 0 ? small_gpu() : (clscan_tuning){.single_pass_shape = shapes[s - 1]};
        size_t pick = tu_random_size(&rs, 0, sizeof small_sizes / sizeof small_sizes[0] - 1);
        r.c.n = s == 0 ? small_sizes[pick] : tu_random_size(&rs, 1, 20000);
        r.c.in_off = tu_random_size(&rs, 0, 1) ? tu_random_size(&rs, 1, 7) : 0;
        r.c.out_off = tu_random_size(&rs, 0, 3);
        r.c.seed = tu_mix(tu_seed(), (uint64_t)(t * 100 + op * 10 + s));
        if (tu_random_size(&rs, 0, 1))
          tu_case_set_init(&r.c, tu_mix(r.c.seed, 7));
        expect_case(&r);
      }
    }
  }
}

static void test_types(void **state) {
  (void)state;
  types_in_shapes(0, 1);
}

static void test_shapes(void **state) {
  (void)state;
  types_in_shapes(1, 3);
}

/* Every small size in both shapes (int32 add, uint8 max, double add), offsets aligned or not. */
static void test_boundaries(void **state) {
  (void)state;
  const clscan_type types[] = {CLSCAN_INT32, CLSCAN_UINT8, CLSCAN_DOUBLE};
  const clscan_op ops[] = {CLSCAN_ADD, CLSCAN_MAX, CLSCAN_ADD};
  for (size_t k = 0; k < 3; k++) {
    if (!supported(types[k]))
      continue;
    for (size_t i = 0; i < sizeof small_sizes / sizeof small_sizes[0]; i++) {
      for (int s = 0; s < 3; s++) {
        reduce_case r = {.c = {.type = types[k], .op = ops[k], .n = small_sizes[i]}};
        r.tuning = s == 0 ? small_gpu() : (clscan_tuning){.single_pass_shape = shapes[s - 1]};
        r.c.in_off = i % 3 == 0 ? 0 : i % 3 == 1 ? 16 : 5;
        r.c.out_off = i % 2;
        r.c.seed = tu_mix(tu_seed(), 1000 + k * 100 + i * 3 + (size_t)s);
        if (i % 2)
          tu_case_set_init(&r.c, r.c.seed);
        expect_case(&r);
      }
    }
  }
}

/* The host variant: every type with add, and n == 0 with and without init. */
static void test_host(void **state) {
  (void)state;
  for (int t = 0; t < CLSCAN_TYPE_COUNT; t++) {
    if (!supported((clscan_type)t))
      continue;
    for (int k = 0; k < 3; k++) {
      reduce_case r = {.c = {.type = (clscan_type)t, .op = CLSCAN_ADD}, .host = 1};
      r.c.n = k == 0 ? 0 : k == 1 ? 1 : 12345;
      r.c.seed = tu_mix(tu_seed(), 2000 + (uint64_t)t * 3 + (uint64_t)k);
      if (k != 1)
        tu_case_set_init(&r.c, r.c.seed);
      expect_case(&r);
      r.c.has_init = 0;
      expect_case(&r);
    }
  }
}

/* ============================================================================================== */
/* user                                                                                           */
/* ============================================================================================== */

static void test_user(void **state) {
  (void)state;
  const tu_spec *specs[] = {
      &uc_spec_affine,    &uc_spec_mat2,   &uc_spec_int2,   &uc_spec_max,    &uc_spec_sat,
      &uc_spec_u8_u32,    &uc_spec_u8_u64, &uc_spec_i8_min, &uc_spec_i8_max, &uc_spec_i32_float,
      &uc_spec_float_xor, &uc_spec_square, &uc_spec_argmin, &uc_spec_keep};
  const size_t sizes[] = {0, 1, 33, 257, 5000};
  for (size_t k = 0; k < sizeof specs / sizeof specs[0]; k++) {
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
      for (int s = 0; s < 3; s++) {
        reduce_case r = {.c = {.spec = specs[k], .n = sizes[i]}, .host = s == 2 && i == 2};
        r.tuning = s == 0 ? small_gpu() : (clscan_tuning){.single_pass_shape = shapes[s - 1]};
        r.c.in_off = i % 2 ? 3 : 0;
        r.c.out_off = i % 3;
        r.c.seed = tu_mix(tu_seed(), 3000 + k * 100 + i * 3 + (size_t)s);
        if (i % 2 == 0)
          tu_case_set_init(&r.c, tu_mix(r.c.seed, 9));
        expect_case(&r);
      }
    }
  }
}

/* ============================================================================================== */
/* large                                                                                          */
/* ============================================================================================== */

/* Millions of elements, in both shapes with the table's geometry, and in the GPU shape with
 * work-groups of 64 (a lane-group reduction across many work-items). */
static void test_large(void **state) {
  (void)state;
  const clscan_type types[] = {CLSCAN_INT32, CLSCAN_INT64, CLSCAN_FLOAT, CLSCAN_UINT8};
  const size_t sizes[] = {(size_t)1 << 21, 3000017};
  const clscan_tuning wide = {
      .tile_wg = 64, .tile_vpt = 4, .rts_groups_per_cu = 2, .single_pass_shape = CLSCAN_SHAPE_GPU};
  for (size_t k = 0; k < sizeof types / sizeof types[0]; k++) {
    for (int s = 0; s < 3; s++) {
      reduce_case r = {.c = {.type = types[k], .op = CLSCAN_ADD}};
      r.tuning = s < 2 ? (clscan_tuning){.single_pass_shape = shapes[s]} : wide;
      r.c.n = sizes[(k + (size_t)s) % 2];
      r.c.in_off = k % 2 ? 0 : 1;
      r.c.seed = tu_mix(tu_seed(), 4000 + k * 2 + (size_t)s);
      tu_case_set_init(&r.c, r.c.seed);
      expect_case(&r);
    }
  }
}

/* K runs of one float and one double sum on one plan give the same bits, in both shapes. */
static void test_determinism(void **state) {
  (void)state;
  enum { K = 5 };
  clscan_context *ctx = tu_context();
  const clscan_type types[] = {CLSCAN_FLOAT, CLSCAN_DOUBLE};
  const size_t n = 300007;
  for (size_t k = 0; k < 2; k++) {
    if (!supported(types[k]))
      continue;
    for (int s = 0; s < 2; s++) {
      clscan_scan_desc d = {.type = types[k], .op = CLSCAN_ADD};
      clscan_tuning tuning = {.single_pass_shape = shapes[s]};
      size_t e = clscan_type_size(types[k]);
      uint64_t seed = tu_mix(tu_seed(), 5000 + k * 2 + (size_t)s);
      void *host = malloc(n * e);
      assert_non_null(host);
      clscan_ref_fill(types[k], CLSCAN_ADD, seed, host, n);
      clscan_plan *plan = NULL;
      assert_int_equal(clscan_plan_create_tuned(ctx, &d, &tuning, &plan), CLSCAN_SUCCESS);
      cl_mem in = tu_buffer(ctx, CL_MEM_READ_WRITE, n * e);
      cl_mem out = tu_buffer(ctx, CL_MEM_READ_WRITE, K * e);
      assert_true(in && out && tu_write(ctx, NULL, in, 0, n * e, host));
      for (size_t run = 0; run < K; run++)
        assert_int_equal(clscan_plan_enqueue_reduce(plan, NULL, in, 0, out, run, n, 0, NULL, NULL),
                         CLSCAN_SUCCESS);
      unsigned char got[K * 8];
      assert_true(tu_read(ctx, NULL, out, 0, K * e, got));
      for (size_t run = 1; run < K; run++) {
        if (memcmp(got, got + run * e, e) != 0)
          fail_msg("%s %s sum of n=%zu (seed %" PRIu64 "): run %zu gave other bits than run 0",
                   clscan_type_name(types[k]), shape_names[s], n, seed, run);
      }
      clReleaseMemObject(in);
      clReleaseMemObject(out);
      clscan_plan_release(plan);
      free(host);
    }
  }
}

/* ============================================================================================== */
/* errors                                                                                         */
/* ============================================================================================== */

/* Buffers of the error tests: 64 int32 inputs and 8 int32 outputs, poisoned. */
typedef struct err_fixture {
  clscan_context *ctx;
  clscan_plan *plan;
  cl_mem in, out, small, ro;
} err_fixture;

static void err_setup(err_fixture *f) {
  f->ctx = tu_context();
  clscan_scan_desc d = {.type = CLSCAN_INT32, .op = CLSCAN_ADD};
  assert_int_equal(clscan_plan_create(f->ctx, &d, &f->plan), CLSCAN_SUCCESS);
  unsigned char poison[256];
  memset(poison, TU_POISON, sizeof poison);
  f->in = tu_buffer(f->ctx, CL_MEM_READ_WRITE, 256);
  f->out = tu_buffer(f->ctx, CL_MEM_READ_WRITE, 32);
  f->small = tu_buffer(f->ctx, CL_MEM_READ_WRITE, 2);
  f->ro = tu_buffer(f->ctx, CL_MEM_READ_ONLY, 32);
  assert_true(f->in && f->out && f->small && f->ro);
  assert_true(tu_write(f->ctx, NULL, f->in, 0, 256, poison));
  assert_true(tu_write(f->ctx, NULL, f->out, 0, 32, poison));
}

static void err_teardown(err_fixture *f) {
  clReleaseMemObject(f->in);
  clReleaseMemObject(f->out);
  clReleaseMemObject(f->small);
  clReleaseMemObject(f->ro);
  clscan_plan_release(f->plan);
}

/* Expects a status, a detail, a NULL event, and both buffers untouched. */
static void expect_refused(const err_fixture *f, clscan_status got, clscan_status want,
                           cl_event done, const char *what) {
  if (got != want)
    fail_msg("%s: want %s, got %s (%s)", what, clscan_status_string(want),
             clscan_status_string(got), clscan_last_error_detail());
  assert_null(done);
  assert_true(clscan_last_error_detail()[0] != '\0');
  unsigned char back[256];
  assert_true(tu_read(f->ctx, NULL, f->out, 0, 32, back));
  if (!tu_all_bytes(back, 32, TU_POISON))
    fail_msg("%s: the output buffer was written", what);
  assert_true(tu_read(f->ctx, NULL, f->in, 0, 256, back));
  if (!tu_all_bytes(back, 256, TU_POISON))
    fail_msg("%s: the input buffer was written", what);
}

static void test_enqueue_errors(void **state) {
  (void)state;
  err_fixture f;
  err_setup(&f);
  cl_event done = (cl_event)1, ev = NULL;
  clscan_status st;
#define REFUSE(call, want, what)              \
  do {                                        \
    done = (cl_event)1;                       \
    st = (call);                              \
    expect_refused(&f, st, want, done, what); \
  } while (0)
  REFUSE(clscan_plan_enqueue_reduce(NULL, NULL, f.in, 0, f.out, 0, 64, 0, NULL, &done),
         CLSCAN_NULL_ARGUMENT, "NULL plan");
  REFUSE(clscan_plan_enqueue_reduce(f.plan, NULL, NULL, 0, f.out, 0, 64, 0, NULL, &done),
         CLSCAN_NULL_ARGUMENT, "NULL input");
  REFUSE(clscan_plan_enqueue_reduce(f.plan, NULL, f.in, 0, NULL, 0, 64, 0, NULL, &done),
         CLSCAN_NULL_ARGUMENT, "NULL output");
  REFUSE(clscan_plan_enqueue_reduce(f.plan, NULL, f.in, 1, f.out, 0, 64, 0, NULL, &done),
         CLSCAN_BUFFER_TOO_SMALL, "input range past the buffer");
  REFUSE(clscan_plan_enqueue_reduce(f.plan, NULL, f.in, 0, f.out, 8, 64, 0, NULL, &done),
         CLSCAN_BUFFER_TOO_SMALL, "output element past the buffer");
  REFUSE(clscan_plan_enqueue_reduce(f.plan, NULL, f.in, 0, f.out, 8, 0, 0, NULL, &done),
         CLSCAN_BUFFER_TOO_SMALL, "output element past the buffer, n = 0");
  REFUSE(clscan_plan_enqueue_reduce(f.plan, NULL, f.in, 0, f.small, 0, 1, 0, NULL, &done),
         CLSCAN_BUFFER_TOO_SMALL, "output buffer smaller than one element");
  REFUSE(clscan_plan_enqueue_reduce(f.plan, NULL, f.in, 0, f.ro, 0, 1, 0, NULL, &done),
         CLSCAN_INVALID_BUFFER, "read-only output");
  REFUSE(clscan_plan_enqueue_reduce(f.plan, NULL, f.in, 0, f.in, 10, 32, 0, NULL, &done),
         CLSCAN_OVERLAP, "output inside the input range");
  REFUSE(clscan_plan_enqueue_reduce(f.plan, NULL, f.in, 0, f.in, 0, 32, 0, NULL, &done),
         CLSCAN_OVERLAP, "output at the input's first element");
  REFUSE(clscan_plan_enqueue_reduce(f.plan, NULL, f.in, 0, f.out, 0, 8, 1, NULL, &done),
         CLSCAN_INVALID_WAIT_LIST, "num_wait 1 with no list");
  REFUSE(clscan_plan_enqueue_reduce(f.plan, NULL, f.in, 0, f.out, 0, 8, 0, &ev, &done),
         CLSCAN_INVALID_WAIT_LIST, "a list with num_wait 0");
  REFUSE(clscan_plan_enqueue_reduce(f.plan, NULL, f.in, 0, f.out, 0, 8, 1, &ev, &done),
         CLSCAN_INVALID_WAIT_LIST, "a NULL event in the list");
  REFUSE(clscan_plan_enqueue_reduce(f.plan, NULL, f.in, 0, f.out, 0, SIZE_MAX, 0, NULL, &done),
         CLSCAN_SIZE_OVERFLOW, "offset + n overflows");

  // The timed entry point refuses the same way and leaves no first event.
  cl_event first = (cl_event)1;
  REFUSE(
      clscan_plan_enqueue_reduce_timed(f.plan, NULL, f.in, 0, f.in, 0, 32, 0, NULL, &first, &done),
      CLSCAN_OVERLAP, "timed: output at the input's first element");
  assert_null(first);
  first = (cl_event)1;
  REFUSE(
      clscan_plan_enqueue_reduce_timed(NULL, NULL, f.in, 0, f.out, 0, 64, 0, NULL, &first, &done),
      CLSCAN_NULL_ARGUMENT, "timed: NULL plan");
  assert_null(first);

  // A segmented plan is refused.
  clscan_scan_desc seg = {.type = CLSCAN_INT32, .segments = CLSCAN_SEGMENTS_HEAD_FLAGS};
  clscan_plan *sp = NULL;
  assert_int_equal(clscan_plan_create(f.ctx, &seg, &sp), CLSCAN_SUCCESS);
  REFUSE(clscan_plan_enqueue_reduce(sp, NULL, f.in, 0, f.out, 0, 8, 0, NULL, &done),
         CLSCAN_INVALID_VALUE, "segmented plan");
  clscan_plan_release(sp);

  // Right next to the input (no overlap) and a wait list with an event: accepted, exact.
  int32_t ones[64], sum = 0;
  for (int i = 0; i < 64; i++)
    ones[i] = i - 20;
  for (int i = 0; i < 32; i++)
    sum += ones[i];
  assert_true(tu_write(f.ctx, NULL, f.in, 0, sizeof ones, ones));
  cl_event marker = NULL;
  assert_int_equal(clEnqueueMarkerWithWaitList(clscan_context_queue(f.ctx), 0, NULL, &marker),
                   CL_SUCCESS);
  assert_int_equal(
      clscan_plan_enqueue_reduce(f.plan, NULL, f.in, 0, f.in, 32, 32, 1, &marker, &done),
      CLSCAN_SUCCESS);
  assert_int_equal(clWaitForEvents(1, &done), CL_SUCCESS);
  clReleaseEvent(done);
  clReleaseEvent(marker);
  int32_t got = 0;
  assert_true(tu_read(f.ctx, NULL, f.in, 32 * sizeof got, sizeof got, &got));
  assert_int_equal(got, sum);

  // n = 0 through the timed entry point: one kernel writes the identity, so the first command is
  // the last; both events complete (the case tests time the odd sizes).
  char msg[256];
  first = NULL;
  assert_int_equal(
      clscan_plan_enqueue_reduce_timed(f.plan, NULL, f.in, 0, f.out, 0, 0, 0, NULL, &first, &done),
      CLSCAN_SUCCESS);
  if (!tu_events_ordered(first, done, msg, sizeof msg))
    fail_msg("n = 0, timed: %s", msg);
  clReleaseEvent(first);
  clReleaseEvent(done);
  got = 1;
  assert_true(tu_read(f.ctx, NULL, f.out, 0, sizeof got, &got));
  assert_int_equal(got, 0);
#undef REFUSE
  err_teardown(&f);
}

static void test_host_errors(void **state) {
  (void)state;
  clscan_context *ctx = tu_context();
  clscan_scan_desc d = {.type = CLSCAN_INT32, .op = CLSCAN_ADD};
  int32_t in[16] = {0}, result = 0x5A5A5A5A;
  clscan_status st;
#define REFUSE_HOST(call, want, what)                                        \
  do {                                                                       \
    result = 0x5A5A5A5A;                                                     \
    st = (call);                                                             \
    if (st != (want))                                                        \
      fail_msg("%s: want %s, got %s (%s)", what, clscan_status_string(want), \
               clscan_status_string(st), clscan_last_error_detail());        \
    assert_true(clscan_last_error_detail()[0] != '\0');                      \
    assert_int_equal(result, 0x5A5A5A5A);                                    \
  } while (0)
  REFUSE_HOST(clscan_reduce_host(NULL, &d, in, 16, &result), CLSCAN_NULL_ARGUMENT, "NULL ctx");
  REFUSE_HOST(clscan_reduce_host(ctx, NULL, in, 16, &result), CLSCAN_NULL_ARGUMENT, "NULL desc");
  REFUSE_HOST(clscan_reduce_host(ctx, &d, NULL, 16, &result), CLSCAN_NULL_ARGUMENT, "NULL in");
  REFUSE_HOST(clscan_reduce_host(ctx, &d, in, 16, NULL), CLSCAN_NULL_ARGUMENT, "NULL result");
  clscan_scan_desc seg = d;
  seg.segments = CLSCAN_SEGMENTS_KEYS;
  REFUSE_HOST(clscan_reduce_host(ctx, &seg, in, 16, &result), CLSCAN_INVALID_VALUE, "segmented");
  clscan_scan_desc bad = d;
  bad.type = (clscan_type)99;
  REFUSE_HOST(clscan_reduce_host(ctx, &bad, in, 16, &result), CLSCAN_INVALID_TYPE, "bad type");
  clscan_scan_desc fxor = {.type = CLSCAN_FLOAT, .op = CLSCAN_XOR};
  REFUSE_HOST(clscan_reduce_host(ctx, &fxor, in, 16, &result), CLSCAN_UNSUPPORTED_OP_FOR_TYPE,
              "xor on float");
  REFUSE_HOST(clscan_reduce_host(ctx, &d, in, SIZE_MAX / 2, &result), CLSCAN_SIZE_OVERFLOW,
              "n * element size overflows");
  // The result inside the input is refused, and the input is left as it was.
  in[5] = 77;
  st = clscan_reduce_host(ctx, &d, in, 16, &in[5]);
  assert_int_equal(st, CLSCAN_OVERLAP);
  assert_int_equal(in[5], 77);
  // Just past the input is fine.
  int32_t both[17];
  for (int i = 0; i < 17; i++)
    both[i] = i;
  assert_int_equal(clscan_reduce_host(ctx, &d, both, 16, &both[16]), CLSCAN_SUCCESS);
  assert_int_equal(both[16], 120);
#undef REFUSE_HOST
}

/* ============================================================================================== */
/* faults                                                                                         */
/* ============================================================================================== */

#ifdef CLSCAN_FAULT_INJECTION

enum { FAULT_N = 50001 };

/* What one armed run did. */
typedef struct fault_run {
  clscan_status status;
  int event_handed_out, out_touched, right;
  unsigned long reached;
} fault_run;

/* Reduces FAULT_N int32 values of `in` on ctx (a new plan of `shape`, created inside the armed
 * window when `plan` is NULL) with the k-th fault point armed (0: none). */
static void fault_device(clscan_context *ctx, clscan_plan *plan, clscan_shape shape, cl_mem in,
                         cl_mem out, int64_t want, unsigned long k, fault_run *r) {
  clscan_scan_desc d = {.type = CLSCAN_INT64, .out_type = CLSCAN_OUT_INT64};
  clscan_tuning t = {.single_pass_shape = shape};
  const int64_t poison = 0x5A5A5A5A5A5A5A5A;
  memset(r, 0, sizeof *r);
  assert_true(tu_write(ctx, NULL, out, 0, sizeof poison, &poison));
  cl_event done = (cl_event)1;
  clscan_plan *own = NULL;
  clscan_test_fault_arm(k);
  r->status = plan ? CLSCAN_SUCCESS : clscan_plan_create_tuned(ctx, &d, &t, &own);
  if (r->status != CLSCAN_SUCCESS)
    done = NULL; /* no enqueue was called */
  else
    r->status =
        clscan_plan_enqueue_reduce(plan ? plan : own, NULL, in, 0, out, 0, FAULT_N, 0, NULL, &done);
  r->reached = clscan_test_fault_count();
  clscan_test_fault_arm(0);
  if (r->status != CLSCAN_SUCCESS && clscan_last_error_detail()[0] == '\0')
    fail_msg("fault point %lu: %s without a detail", k, clscan_status_string(r->status));
  r->event_handed_out = r->status != CLSCAN_SUCCESS && done != NULL;
  if (r->status == CLSCAN_SUCCESS) {
    clWaitForEvents(1, &done);
    clReleaseEvent(done);
  }
  int64_t got = 0;
  assert_true(tu_read(ctx, NULL, out, 0, sizeof got, &got));
  r->out_touched = r->status != CLSCAN_SUCCESS && got != poison;
  r->right = r->status == CLSCAN_SUCCESS && got == want;
  clscan_plan_release(own);
}

/* Checks a run whose fault point failed (or was absorbed, with the right result). */
static void fault_check(const char *what, unsigned long k, const fault_run *r) {
  if (r->status == CLSCAN_SUCCESS) {
    if (!r->right)
      fail_msg("%s: fault point %lu absorbed, but the result is wrong", what, k);
    return;
  }
  if (r->status != CLSCAN_OUT_OF_DEVICE_MEMORY && r->status != CLSCAN_OUT_OF_HOST_MEMORY &&
      r->status != CLSCAN_BUILD_FAILED && r->status != CLSCAN_OPENCL_ERROR)
    fail_msg("%s: fault point %lu: %s is not an OpenCL failure status", what, k,
             clscan_status_string(r->status));
  if (r->event_handed_out)
    fail_msg("%s: fault point %lu: an event was handed out", what, k);
  if (r->out_touched)
    fail_msg("%s: fault point %lu: the output was written", what, k);
}

/* The input of the fault runs and its sum. */
static int64_t fault_input(int64_t *host) {
  int64_t sum = 0;
  for (size_t i = 0; i < FAULT_N; i++) {
    host[i] = (int64_t)((i * 2654435761u) % 2001) - 1000;
    sum += host[i];
  }
  return sum;
}

/* Sweeps every fault point of one setup: fresh contexts (plan creation armed too) or the warm
 * context with a plan of each shape. */
static void fault_sweep(int fresh, clscan_shape shape) {
  static int64_t host[FAULT_N];
  int64_t want = fault_input(host);
  clscan_context *warm = tu_context(), *ctx = warm;
  unsigned long points = 0, swept = 0;
  for (unsigned long k = 0; k == 0 || k <= points; k++) {
    if (fresh)
      assert_int_equal(clscan_context_create_default(&ctx), CLSCAN_SUCCESS);
    cl_mem in = tu_buffer(ctx, CL_MEM_READ_WRITE, sizeof host);
    cl_mem out = tu_buffer(ctx, CL_MEM_READ_WRITE, 8);
    assert_true(in && out && tu_write(ctx, NULL, in, 0, sizeof host, host));
    clscan_plan *plan = NULL;
    clscan_scan_desc d = {.type = CLSCAN_INT64};
    clscan_tuning t = {.single_pass_shape = shape};
    if (!fresh)
      assert_int_equal(clscan_plan_create_tuned(ctx, &d, &t, &plan), CLSCAN_SUCCESS);
    char what[96];
    snprintf(what, sizeof what, "reduce faults (%s context, shape %d), point %lu",
             fresh ? "fresh" : "warm", (int)shape, k);
    tu_progress(what);
    fault_run r;
    fault_device(ctx, plan, shape, in, out, want, k, &r);
    if (k == 0) {
      assert_true(r.right);
      points = r.reached;
    } else {
      fault_check(what, k, &r);
      swept++;
      fault_device(ctx, plan, shape, in, out, want, 0, &r); /* the context still works */
      if (!r.right)
        fail_msg("%s: the next reduction on the context is wrong", what);
    }
    clscan_plan_release(plan);
    clReleaseMemObject(in);
    clReleaseMemObject(out);
    if (fresh)
      clscan_context_release(ctx);
  }
  printf("  %s context, shape %d: %lu fault points swept\n", fresh ? "fresh" : "warm", (int)shape,
         swept);
  assert_true(swept > 0);
}

static void test_faults_fresh(void **state) {
  (void)state;
  fault_sweep(1, CLSCAN_SHAPE_DEFAULT);
}

static void test_faults_warm(void **state) {
  (void)state;
  fault_sweep(0, CLSCAN_SHAPE_GPU);
  fault_sweep(0, CLSCAN_SHAPE_CPU);
}

/* clscan_reduce_host: each fault point fails cleanly and leaves the result untouched. */
static void test_faults_host(void **state) {
  (void)state;
  static int64_t host[FAULT_N];
  int64_t want = fault_input(host), got = 0;
  clscan_context *ctx = tu_context();
  clscan_scan_desc d = {.type = CLSCAN_INT64};
  clscan_test_fault_arm(0);
  assert_int_equal(clscan_reduce_host(ctx, &d, host, FAULT_N, &got), CLSCAN_SUCCESS);
  assert_true(got == want);
  clscan_test_fault_arm(100000);
  assert_int_equal(clscan_reduce_host(ctx, &d, host, FAULT_N, &got), CLSCAN_SUCCESS);
  unsigned long points = clscan_test_fault_count();
  clscan_test_fault_arm(0);
  for (unsigned long k = 1; k <= points; k++) {
    got = 0x5A5A;
    clscan_test_fault_arm(k);
    clscan_status st = clscan_reduce_host(ctx, &d, host, FAULT_N, &got);
    clscan_test_fault_arm(0);
    if (st == CLSCAN_SUCCESS ? got != want : got != 0x5A5A)
      fail_msg("clscan_reduce_host, fault point %lu: %s, result %s", k, clscan_status_string(st),
               st == CLSCAN_SUCCESS ? "wrong" : "written");
  }
  printf("  clscan_reduce_host: %lu fault points swept\n", points);
  assert_true(points > 0);
}

#endif

int main(int argc, char **argv) {
  const struct CMUnitTest types[] = {
      cmocka_unit_test(test_types), cmocka_unit_test(test_boundaries), cmocka_unit_test(test_host)};
  const struct CMUnitTest shapes_group[] = {cmocka_unit_test(test_shapes)};
  const struct CMUnitTest user[] = {cmocka_unit_test(test_user)};
  const struct CMUnitTest large[] = {cmocka_unit_test(test_large),
                                     cmocka_unit_test(test_determinism)};
  const struct CMUnitTest errors[] = {cmocka_unit_test(test_enqueue_errors),
                                      cmocka_unit_test(test_host_errors)};
#ifdef CLSCAN_FAULT_INJECTION
  const struct CMUnitTest faults[] = {cmocka_unit_test(test_faults_fresh),
                                      cmocka_unit_test(test_faults_warm),
                                      cmocka_unit_test(test_faults_host)};
#endif
  if (!tu_context())
    return 1;
  int failed = 0, ran = 0;
  for (int i = 1; i < argc || (argc == 1 && i == 1); i++) {
    const char *g = argc > 1 ? argv[i] : "all";
    int all = strcmp(g, "all") == 0, known = 0;
#define GROUP(name, list)                                                                     \
  if (all || strcmp(g, name) == 0) {                                                          \
    known = 1;                                                                                \
    failed +=                                                                                 \
        cmocka_run_group_tests_name("reduce." name, list, tu_group_setup, tu_group_teardown); \
  }
    GROUP("types", types)
    GROUP("shapes", shapes_group)
    GROUP("user", user)
    GROUP("large", large)
    GROUP("errors", errors)
#ifdef CLSCAN_FAULT_INJECTION
    GROUP("faults", faults)
#endif
#undef GROUP
    if (!known) {
      fprintf(stderr,
              "test_reduce: unknown group %s (types, shapes, user, large, errors, faults, all)\n",
              g);
      failed++;
    }
    ran++;
  }
  tu_context_release();
  printf("clscan tests: seed %" PRIu64 " (%d group runs)\n", tu_seed(), ran);
  return failed ? 1 : 0;
}
