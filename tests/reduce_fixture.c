/*
 * clscan tests: the fixture of the reduction tests (see reduce_fixture.h).
 */
#include "reduce_fixture.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ref_scan.h"

/* The two reduction shapes, as the tuning selects them. */
const clscan_shape shapes[] = {CLSCAN_SHAPE_GPU, CLSCAN_SHAPE_CPU};
const char *const shape_names[] = {"gpu-shape", "cpu-shape"};

/* A small GPU-shaped geometry, so that tiles and groups are crossed at small sizes: 4 work-items
 * on a CPU device, one warp (the least NVIDIA accepts) on a GPU. */
clscan_tuning small_gpu(void) {
  return (clscan_tuning){.tile_wg = tu_device_is_cpu() ? 4 : 32,
                         .tile_vpt = 2,
                         .rts_groups_per_cu = 3,
                         .single_pass_shape = CLSCAN_SHAPE_GPU};
}

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
void expect_case(const reduce_case *r) {
  char msg[1024] = "", what[1024];
  describe(r, what, sizeof what);
  tu_progress(what);
  if (!run_case(r, msg, sizeof msg))
    fail_msg("%s: %s", what, msg);
}

/* Returns 1 if the context's device runs a descriptor (double needs fp64). */
int supported(clscan_type t) {
  clscan_scan_desc d = {.type = t};
  return clscan_context_supports(tu_context(), &d) == CLSCAN_SUCCESS;
}
