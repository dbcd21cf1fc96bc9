/*
 * clscan: reduce-then-scan (cl/tile.cl, cl/reduce_then_scan.cl).
 *
 * A fixed number of work-groups (rts_groups_per_cu per compute unit, at most one per tile) each
 * reduce a run of consecutive tiles to one total; one work-group scans the totals exclusively,
 * seeded with the initial value; then each work-group scans its run again, seeded with its
 * offset. About 3n elements of traffic, and deterministic: the same tiles combine in the same
 * order on every run. Temporary layout: the totals, then their scan, each array aligned.
 */
#include "internal.h"

/* Kernel indices. */
enum { REDUCE, SCAN, SPINE };

static const clscan__program program = {
    .name = "reduce_then_scan",
    .files = {"common", "tile", "reduce_then_scan", NULL},
    .vector_io_option = 1,
};

static const clscan__kernel_names kernels = {{
    [REDUCE] = "rts_reduce",
    [SCAN] = "rts_scan",
    [SPINE] = "rts_spine",
}};

static const clscan__program *const programs[] = {&program, NULL};

/* Elements per tile of the tile kernels. */
static size_t tile_elems(const clscan_plan *plan) {
  return (size_t)plan->tuning.tile_wg * plan->tuning.tile_vpt * plan->vec;
}

/* Work-groups for n elements. */
static size_t groups_for(const clscan_plan *plan, size_t n) {
  size_t groups = (size_t)plan->ctx->info.compute_units * plan->tuning.rts_groups_per_cu;
  size_t tiles = clscan__div_up(n, tile_elems(plan));
  return groups < tiles ? (groups ? groups : 1) : (tiles ? tiles : 1);
}

static clscan_status config(const clscan_plan *plan, int vector_io, clscan__kernel_config *cfg) {
  cfg->program = &program;
  cfg->kernels = &kernels;
  cfg->wg = plan->tuning.tile_wg;
  cfg->vpt = plan->tuning.tile_vpt;
  cfg->vector_io = vector_io;
  return clscan__device_has_nv_ptx(plan->ctx, &cfg->nv_ptx);
}

static size_t temp_bytes(const clscan_plan *plan, size_t n) {
  return 2 * clscan__temp_align(plan, groups_for(plan, n) * plan->state_size);
}

/* Group totals, their exclusive scan, then the seeded scan of each run. */
static clscan_status enqueue(const clscan__launch *l) {
  const clscan_plan *plan = l->plan;
  const clscan__request *r = l->req;
  const cl_kernel *k = l->kernels->k;
  size_t s = plan->state_size, v = plan->out_size, wg = plan->tuning.tile_wg;
  cl_mem in = r->buf[CLSCAN__BUF_IN].mem, out = r->buf[CLSCAN__BUF_OUT].mem;
  cl_mem aux = l->aux, temp = l->temp;
  cl_ulong n = r->n, in_off = r->buf[CLSCAN__BUF_IN].off, out_off = r->buf[CLSCAN__BUF_OUT].off;
  cl_ulong aux_off = l->aux_off, groups = groups_for(plan, r->n);
  cl_ulong per_group = clscan__div_up(clscan__div_up(r->n, tile_elems(plan)), groups);
  cl_ulong partials_off = 0, offsets_off = clscan__temp_align(plan, groups * s) / s;
  cl_int excl = plan->desc.exclusive != 0;

  const clscan__karg reduce_args[] = {
      CLSCAN__ARG(in), CLSCAN__ARG(in_off), CLSCAN__ARG(aux),          CLSCAN__ARG(aux_off),
      CLSCAN__ARG(n),  CLSCAN__ARG(temp),   CLSCAN__ARG(partials_off), CLSCAN__ARG(per_group)};
  CLSCAN_RETURN_IF_ERROR(clscan__extra_set(k[REDUCE], 8, l->extra, 0));
  CLSCAN_RETURN_IF_ERROR(clscan__chain_call(l->chain, k[REDUCE], reduce_args, 8, groups, wg));

  const clscan__karg spine_args[] = {CLSCAN__ARG(temp),   CLSCAN__ARG(partials_off),
                                     CLSCAN__ARG(temp),   CLSCAN__ARG(offsets_off),
                                     CLSCAN__ARG(groups), {v, l->seed}};
  CLSCAN_RETURN_IF_ERROR(clscan__extra_set(k[SPINE], 6, l->extra, 1));
  CLSCAN_RETURN_IF_ERROR(clscan__chain_call(l->chain, k[SPINE], spine_args, 6, 1, wg));

  const clscan__karg scan_args[] = {
      CLSCAN__ARG(in),          CLSCAN__ARG(in_off),    CLSCAN__ARG(aux),  CLSCAN__ARG(aux_off),
      CLSCAN__ARG(out),         CLSCAN__ARG(out_off),   CLSCAN__ARG(n),    CLSCAN__ARG(temp),
      CLSCAN__ARG(offsets_off), CLSCAN__ARG(per_group), CLSCAN__ARG(excl), {v, l->seed}};
  CLSCAN_RETURN_IF_ERROR(clscan__extra_set(k[SCAN], 12, l->extra, 1));
  return clscan__chain_call(l->chain, k[SCAN], scan_args, 12, groups, wg);
}

const clscan__algorithm clscan__algo_reduce_then_scan = {
    .name = "reduce-then-scan",
    .family = CLSCAN__FAMILY_SCAN,
    .id = CLSCAN_ALGO_REDUCE_THEN_SCAN,
    .programs = programs,
    .vector_variants = 1,
    .config = config,
    .temp_bytes = temp_bytes,
    .tickets = NULL,
    .enqueue = enqueue,
};
