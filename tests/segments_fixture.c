/*
 * clscan tests: the fixture of the segment tests (see segments_fixture.h): the algorithm runs and
 * one segmented scan on device buffers between poisoned guards, checked against the reference.
 */
#include "segments_fixture.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ref_scan.h"

/* Every scan algorithm, and the shapes of the single pass. */
const clscan_algorithm algos[] = {CLSCAN_ALGO_BLELLOCH, CLSCAN_ALGO_HILLIS_STEELE,
                                  CLSCAN_ALGO_REDUCE_THEN_SCAN, CLSCAN_ALGO_SINGLE_PASS,
                                  CLSCAN_ALGO_SINGLE_PASS};
/* Small geometries, so that tiles, blocks and groups are crossed at small sizes (run 4 is the
 * single pass's CPU shape, run 3 its GPU shape). */
static const clscan_tuning tunings[NUM_RUNS] = {
    {.seed_wg = 4},
    {.seed_wg = 8},
    {.tile_wg = 4, .tile_vpt = 2, .rts_groups_per_cu = 2},
    {.tile_wg = 4, .tile_vpt = 2, .single_pass_shape = CLSCAN_SHAPE_GPU},
    {.cpu_tile = 7, .single_pass_shape = CLSCAN_SHAPE_CPU}};
/* Run r's tuning: NVIDIA needs work-groups of at least a warp, so GPUs get 32 work-items where the
 * table says 4 (tiles of 256 int32 elements, still crossed by the larger sizes). */
const clscan_tuning *run_tuning(int r) {
  static clscan_tuning gpu[NUM_RUNS];
  gpu[r] = tunings[r];
  if (!tu_device_is_cpu() && gpu[r].tile_wg == 4)
    gpu[r].tile_wg = 32;
  return &gpu[r];
}
const char *const run_names[NUM_RUNS] = {"blelloch", "hillis-steele", "reduce-then-scan",
                                         "single-pass-gpu", "single-pass-cpu"};

/* Returns 1 if the device runs run r's algorithm (rusticl 22 refuses the single pass: it must say
 * so with CLSCAN_UNSUPPORTED_BY_DEVICE, and the run is left out). */
int run_ok(int r) {
  const clscan_scan_desc d = {.type = CLSCAN_INT32, .algorithm = algos[r]};
  const clscan_status st = clscan_context_supports(tu_context(), &d);
  if (st != CLSCAN_SUCCESS && st != CLSCAN_UNSUPPORTED_BY_DEVICE)
    fail_msg("clscan_context_supports(%s): %s", run_names[r], clscan_status_string(st));
  return st == CLSCAN_SUCCESS;
}

/* Sizes around the small tiles (32 int32 elements for tile_wg 4 x vpt 2 x 4) and blocks. */
const size_t sizes[] = {1, 2, 7, 31, 32, 33, 64, 65, 257, 1000};

/* Prints a failure with its case description and fails the test. */
void failf(const char *what, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char detail[512];
  vsnprintf(detail, sizeof detail, fmt, ap);
  va_end(ap);
  print_error("%s: %s (base seed %" PRIu64 ")\n", what, detail, tu_seed());
  fail();
}

/* Device copies of a case's arrays. */
typedef struct dev_case {
  cl_mem in, out, aux;
} dev_case;

static void dev_release(dev_case *d) {
  if (d->in)
    clReleaseMemObject(d->in);
  if (d->out && d->out != d->in)
    clReleaseMemObject(d->out);
  if (d->aux)
    clReleaseMemObject(d->aux);
  memset(d, 0, sizeof *d);
}

/* Writes poison and the input into the device buffers of a case. */
static int seg_upload(clscan_context *ctx, const seg_case *c, const void *in, size_t ei, size_t eo,
                      dev_case *d) {
  const size_t out_elems = c->out_off + c->n + TU_GUARD;
  unsigned char *poison = malloc(out_elems * eo);
  if (!poison)
    return 0;
  memset(poison, TU_POISON, out_elems * eo);
  d->out = tu_buffer(ctx, CL_MEM_READ_WRITE, out_elems * eo);
  d->in = c->in_place ? d->out : tu_buffer(ctx, CL_MEM_READ_WRITE, (c->in_off + c->n) * ei);
  d->aux = tu_buffer(ctx, CL_MEM_READ_ONLY, c->aux_count * c->aux_size + 16);
  int ok = d->out && d->in && d->aux && tu_write(ctx, NULL, d->out, 0, out_elems * eo, poison) &&
           tu_write(ctx, NULL, d->in, (c->in_place ? c->out_off : c->in_off) * ei, c->n * ei, in) &&
           tu_write(ctx, NULL, d->aux, 0, c->aux_count * c->aux_size, c->aux);
  free(poison);
  return ok;
}

/* Checks a case's results and its guards; returns 1 when they are right. */
static int seg_check(const seg_case *c, const void *in, const unsigned char *got, size_t eo) {
  clscan_scan_desc ref = c->desc;
  ref.segments = CLSCAN_SEGMENTS_HEAD_FLAGS;
  ref.key_type = CLSCAN_INT32;
  ref.key_type_source = ref.key_type_name = ref.key_equal_source = NULL;
  ref.key_size = 0;
  clscan_ref_mismatch m = {0};
  if (!clscan_ref_check_segmented(&ref, c->flags, in, got + c->out_off * eo, c->n, &m)) {
    failf(c->what,
          "n %zu seed %" PRIu64 " in_off %zu out_off %zu in_place %d: element %" PRId64 ": %s",
          c->n, c->seed, c->in_off, c->out_off, c->in_place, m.index, m.detail);
    return 0;
  }
  if (!tu_all_bytes(got + (c->out_off + c->n) * eo, TU_GUARD * eo, TU_POISON) ||
      (!c->in_place && !tu_all_bytes(got, c->out_off * eo, TU_POISON))) {
    failf(c->what, "n %zu seed %" PRIu64 ": a guard around the output was written", c->n, c->seed);
    return 0;
  }
  return 1;
}

/* Runs a case on a fresh plan (keys: clscan_plan_enqueue_segmented; offsets:
 * clscan_plan_enqueue_offsets) and checks it. */
void run_seg_case(const seg_case *c) {
  clscan_context *ctx = tu_context();
  char what[128];
  snprintf(what, sizeof what, "%s n=%zu", c->what, c->n);
  tu_progress(what);
  const size_t ei =
      c->desc.type == CLSCAN_USER_TYPE ? c->desc.type_size : clscan_type_size(c->desc.type);
  const size_t eo = ei; /* these cases keep the type */
  unsigned char *in = malloc(c->n * ei + 1), *got = malloc((c->out_off + c->n + TU_GUARD) * eo);
  assert_non_null(in);
  assert_non_null(got);
  clscan_ref_fill(c->desc.type, c->desc.op, c->seed, in, c->n);
  clscan_plan *plan = NULL;
  clscan_status st = clscan_plan_create_tuned(ctx, &c->desc, c->tuning, &plan);
  if (st != CLSCAN_SUCCESS) {
    failf(c->what, "plan: %s (%s)", clscan_status_string(st), clscan_last_error_detail());
    return;
  }
  dev_case d = {0};
  assert_true(seg_upload(ctx, c, in, ei, eo, &d));
  cl_event done = NULL;
  const size_t io = c->in_place ? c->out_off : c->in_off;
  if (c->desc.segments == CLSCAN_SEGMENTS_OFFSETS)
    st = clscan_plan_enqueue_offsets(plan, NULL, d.aux, 0, c->n_segments, d.in, io, d.out,
                                     c->out_off, c->n, 0, NULL, NULL, &done);
  else
    st = clscan_plan_enqueue_segmented(plan, NULL, d.aux, 0, d.in, io, d.out, c->out_off, c->n, 0,
                                       NULL, NULL, &done);
  if (st != CLSCAN_SUCCESS) {
    failf(c->what, "enqueue: %s (%s)", clscan_status_string(st), clscan_last_error_detail());
    return;
  }
  assert_int_equal(clWaitForEvents(1, &done), CL_SUCCESS);
  clReleaseEvent(done);
  assert_true(tu_read(ctx, NULL, d.out, 0, (c->out_off + c->n + TU_GUARD) * eo, got));
  seg_check(c, in, got, eo);
  dev_release(&d);
  clscan_plan_release(plan);
  free(in);
  free(got);
}
