/*
 * clscan: the selections' portable multi-pass path (cl/select_multi.cl), one descriptor per scan
 * algorithm it can use (Blelloch, Hillis-Steele, reduce-then-scan). It needs no atomics, so AUTO
 * takes it (with reduce-then-scan) on devices without 64-bit atomics.
 *
 * Passes: select_mark writes each element's flag (uint8) into the temporary buffer; the scan
 * algorithm's own descriptor and kernels (the plan's `scan`, a uint8 -> uint64 exclusive sum)
 * scan them into ulong positions; select_scatter writes the elements (and, for run-length
 * encoding, the starts of the runs, which select_lengths turns into lengths). About n (flags)
 * + 8n (positions) bytes of temporary traffic on top of the scan's, against the single pass's
 * none: it is the baseline, not the fast path.
 *
 * Temporary layout: the scan algorithm's temporary storage from byte 0 (where it expects it),
 * then the flags (n bytes), the positions (n ulongs) and, for run-length encoding, the starts
 * (n + 1 ulongs), each 16-byte aligned.
 */
#include "internal.h"

/* Kernel index. */
enum { EMPTY = CLSCAN__SEL_KERNEL_EMPTY, MARK, SCATTER, LENGTHS };

static const clscan__program multi_program = {
    .name = "select_multi",
    .files = {"common", "select_common", "select_multi", NULL},
};

static const clscan__program *const programs[] = {&multi_program, NULL};

static const clscan__kernel_names multi_kernels = {{[EMPTY] = "select_empty",
                                                    [MARK] = "select_mark",
                                                    [SCATTER] = "select_scatter",
                                                    [LENGTHS] = "select_lengths"}};

/* Where the regions of the temporary buffer start, for n elements. */
typedef struct regions {
  size_t mark, pos, starts, end;
} regions;

static size_t align16(size_t bytes) {
  return clscan__div_up(bytes, 16) * 16;
}

/* The scan algorithm of a multi-pass plan. */
static const clscan__algorithm *scan_algo(const clscan_select_plan *plan) {
  return clscan__algorithm_find(CLSCAN__FAMILY_SCAN, (int)plan->algorithm);
}

static regions regions_of(const clscan_select_plan *plan, size_t n) {
  regions g;
  const clscan__algorithm *a = scan_algo(plan);
  g.mark = align16(a ? a->temp_bytes(plan->scan, n) : 0);
  g.pos = g.mark + align16(n);
  g.starts = g.pos + align16(8 * n);
  g.end = g.starts + (plan->op == CLSCAN_RUN_LENGTH_ENCODE ? align16(8 * (n + 1)) : 0);
  return g;
}

static clscan_status config(const clscan_select_plan *plan, clscan__kernel_config *cfg) {
  cfg->program = &multi_program;
  cfg->kernels = &multi_kernels;
  cfg->wg = plan->tuning.tile_wg;
  return CLSCAN_SUCCESS;
}

static size_t temp_bytes(const clscan_select_plan *plan, size_t n) {
  return regions_of(plan, n).end;
}

/* Scans the flags into the positions with the scan algorithm's descriptor and kernels. */
static clscan_status scan_flags(const clscan__select_launch *l, const regions *g) {
  const clscan_select_plan *plan = l->plan;
  const clscan__algorithm *a = scan_algo(plan);
  if (!a)
    return clscan__fail(CLSCAN_INTERNAL_ERROR, "no scan algorithm %d", (int)plan->algorithm);
  // Both regions are 16-byte aligned, so the vector I/O kernel set applies; plan creation built
  // it (the plan lock, held here, also guards the scan plan, which only this plan uses).
  const clscan__algo_kernels *ak = &plan->scan->algos[a->id][a->vector_variants ? 1 : 0];
  if (!ak->ready)
    return clscan__fail(CLSCAN_INTERNAL_ERROR, "the flag scan's kernels are missing");
  clscan__request sr = {.queue = l->req->queue, .n = l->req->n};
  sr.buf[CLSCAN__BUF_IN] = (clscan__buffer){l->temp, g->mark};
  sr.buf[CLSCAN__BUF_OUT] = (clscan__buffer){l->temp, g->pos / 8};
  const clscan__launch sl = {.plan = plan->scan,
                             .kernels = ak,
                             .chain = l->chain,
                             .req = &sr,
                             .temp = l->temp,
                             .aux = l->temp,
                             .seed = plan->scan->identity,
                             .identity = plan->scan->identity};
  return a->enqueue(&sl);
}

static clscan_status enqueue(const clscan__select_launch *l) {
  const clscan_select_plan *plan = l->plan;
  const clscan__select_request *r = l->req;
  const cl_kernel *k = plan->kernels.k;
  size_t local = plan->tuning.tile_wg;
  const regions g = regions_of(plan, r->n);
  const clscan__select_io io = clscan__select_io_of(plan, r);
  cl_mem temp = l->temp;
  cl_ulong n = r->n, cap = r->capacity;
  size_t groups = clscan__div_up(r->n, local);
  // The flags, positions and starts are regions of temp, passed as offsets (bytes for the flags,
  // ulongs for the others): sub-buffers would need the device's base address alignment.
  cl_ulong mark_off = g.mark, pos_off = g.pos / 8, starts_off = g.starts / 8;

  cl_ulong padded = align16(r->n);
  const clscan__karg mark_args[] = {
      CLSCAN__ARG(io.in), CLSCAN__ARG(io.in_off), CLSCAN__ARG(io.flags), CLSCAN__ARG(io.flags_off),
      CLSCAN__ARG(n),     CLSCAN__ARG(padded),    CLSCAN__ARG(temp),     CLSCAN__ARG(mark_off)};
  CLSCAN_RETURN_IF_ERROR(clscan__extra_set(k[MARK], 8, r->extra, 0));
  CLSCAN_RETURN_IF_ERROR(
      clscan__chain_call(l->chain, k[MARK], mark_args, 8, clscan__div_up(padded, local), local));
  CLSCAN_RETURN_IF_ERROR(scan_flags(l, &g));
  const clscan__karg scatter_args[] = {
      CLSCAN__ARG(io.in),       CLSCAN__ARG(io.in_off), CLSCAN__ARG(temp),
      CLSCAN__ARG(mark_off),    CLSCAN__ARG(pos_off),   CLSCAN__ARG(starts_off),
      CLSCAN__ARG(n),           CLSCAN__ARG(io.out),    CLSCAN__ARG(io.out_off),
      CLSCAN__ARG(cap),         CLSCAN__ARG(io.rej),    CLSCAN__ARG(io.rej_off),
      CLSCAN__ARG(io.rej_cap),  CLSCAN__ARG(io.split),  CLSCAN__ARG(io.count),
      CLSCAN__ARG(io.count_off)};
  enum { SCATTER_ARGS = sizeof scatter_args / sizeof scatter_args[0] };
  CLSCAN_RETURN_IF_ERROR(clscan__extra_set(k[SCATTER], SCATTER_ARGS, r->extra, 0));
  CLSCAN_RETURN_IF_ERROR(
      clscan__chain_call(l->chain, k[SCATTER], scatter_args, SCATTER_ARGS, groups, local));
  if (plan->op != CLSCAN_RUN_LENGTH_ENCODE)
    return CLSCAN_SUCCESS;
  size_t m = r->n < r->capacity ? r->n : r->capacity;
  const clscan__karg len_args[] = {
      CLSCAN__ARG(temp),           CLSCAN__ARG(mark_off), CLSCAN__ARG(pos_off),
      CLSCAN__ARG(starts_off),     CLSCAN__ARG(n),        CLSCAN__ARG(io.lengths),
      CLSCAN__ARG(io.lengths_off), CLSCAN__ARG(cap),      CLSCAN__ARG(io.count),
      CLSCAN__ARG(io.count_off)};
  return clscan__chain_call(l->chain, k[LENGTHS], len_args, 10, clscan__div_up(m ? m : 1, local),
                            local);
}

#define MULTI_PASS(NAME, ID)                                                                  \
  {                                                                                           \
    .name = NAME, .id = ID, .programs = programs, .config = config, .temp_bytes = temp_bytes, \
    .tickets = NULL, .enqueue = enqueue,                                                      \
  }

const clscan__select_algorithm clscan__select_blelloch =
    MULTI_PASS("blelloch", CLSCAN_ALGO_BLELLOCH);
const clscan__select_algorithm clscan__select_hillis_steele =
    MULTI_PASS("hillis-steele", CLSCAN_ALGO_HILLIS_STEELE);
const clscan__select_algorithm clscan__select_reduce_then_scan =
    MULTI_PASS("reduce-then-scan", CLSCAN_ALGO_REDUCE_THEN_SCAN);
