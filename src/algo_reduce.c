/*
 * clscan: the reduction (family CLSCAN__FAMILY_REDUCE; cl/reduce.cl).
 *
 * No work-group waits for another to run, so no forward-progress guarantee is needed, and the
 * result is deterministic for a fixed n, descriptor and tuning. A fixed partition into G
 * work-groups each reduce one contiguous part of the input to a partial; the partials are then
 * combined in order with the initial value into the output.
 *
 * GPU shape (G = reduce_groups_per_cu per compute unit, at most one per tile; tiles of reduce_wg x
 * reduce_vpt 16-byte vectors; src/tuning.c gives the reduction the scan's tile and
 * rts_groups_per_cu unless its row has a shape for it): one launch. Each work-group publishes its
 * partial in cl/status.cl's words and takes a ticket, and the work-group with the launch's last
 * ticket folds the partials and writes the result (reduce_strided for built-in operators on integer
 * values, where any order gives the same bits; reduce_ordered, reduce-then-scan's tile reduction,
 * for the others). The ticket counter and the words live in the temporary buffer under the single
 * pass's epochs (src/temp.c), so nothing is cleared between launches. CPU shape (the plan's
 * single_pass_shape, like the single pass's): reduce_chunks, G single-work-item groups folding
 * their chunk in a loop, writes the partials, and reduce_final combines them. About n elements of
 * traffic: the input is read once. An empty reduction runs reduce_final alone, which writes the
 * initial value.
 */
#include "internal.h"

/* Kernel indices. */
enum { PARTIALS, FINAL };

static const clscan__program gpu_program = {
    .name = "reduce",
    .files = {"common", "tile", "reduce_then_scan", "status", "reduce"},
    .vector_io_option = 1,
};

static const clscan__program cpu_program = {
    .name = "reduce_cpu",
    .files = {"common", "reduce", NULL},
    .vector_io_option = 0,
};

/* GPU shape: the ordered tile reduction, or, where every order gives the same bits, the strided
 * one (see exact_commutative()); each folds the partials in its last work-group. */
static const clscan__kernel_names gpu_kernels = {{
    [PARTIALS] = "reduce_ordered",
    [FINAL] = "reduce_final",
}};

static const clscan__kernel_names gpu_strided_kernels = {{
    [PARTIALS] = "reduce_strided",
    [FINAL] = "reduce_final",
}};

static const clscan__kernel_names cpu_kernels = {{
    [PARTIALS] = "reduce_chunks",
    [FINAL] = "reduce_final",
}};

static const clscan__program *const programs[] = {&gpu_program, &cpu_program, NULL};

/* 1 when the plan reduces in the CPU shape. */
static int cpu_shape(const clscan_plan *plan) {
  return plan->tuning.single_pass_cpu != 0;
}

/* 1 when every order of combination gives the same bits: a built-in operator on integer values
 * (they wrap, so add and mul are exactly associative; all seven are commutative). */
static int exact_commutative(const clscan_plan *plan) {
  clscan_type v = clscan__out_type(&plan->desc);
  return plan->desc.op != CLSCAN_USER_OP && clscan__type_is_builtin(v) && !clscan__type_is_float(v);
}

/* Elements per partial's unit of work: a tile (GPU shape) or one element (CPU shape). */
static size_t unit_elems(const clscan_plan *plan) {
  if (cpu_shape(plan))
    return 1;
  return (size_t)plan->tuning.reduce_wg * plan->tuning.reduce_vpt * plan->vec;
}

/* The most elements one CPU-shaped chunk holds. Its work-item folds them in one loop, and Mesa's
 * llvmpipe (rusticl) silently ends a work-item's loops after 65535 iterations in all
 * (tests/rusticl/loop_limit.c), so larger inputs take more chunks instead of longer ones. */
#define CPU_CHUNK_MAX 32768

/* Partials (work-groups of the first kernel) for n > 0 elements: reduce_groups_per_cu per compute
 * unit, at most one per unit of work, and in the CPU shape at least one per CPU_CHUNK_MAX
 * elements. */
static size_t groups_for(const clscan_plan *plan, size_t n) {
  size_t groups = (size_t)plan->ctx->info.compute_units * plan->tuning.reduce_groups_per_cu;
  size_t units = clscan__div_up(n, unit_elems(plan));
  if (cpu_shape(plan) && groups < clscan__div_up(n, CPU_CHUNK_MAX))
    groups = clscan__div_up(n, CPU_CHUNK_MAX);
  if (groups < 1)
    groups = 1;
  return groups < units ? groups : (units ? units : 1);
}

static clscan_status config(const clscan_plan *plan, int vector_io, clscan__kernel_config *cfg) {
  if (cpu_shape(plan)) {
    cfg->program = &cpu_program;
    cfg->kernels = &cpu_kernels;
    cfg->wg = 1;
    return CLSCAN_SUCCESS;
  }
  cfg->program = &gpu_program;
  cfg->kernels = exact_commutative(plan) ? &gpu_strided_kernels : &gpu_kernels;
  cfg->wg = plan->tuning.reduce_wg;
  cfg->vpt = plan->tuning.reduce_vpt;
  cfg->vector_io = vector_io;
  cfg->status32 = plan->status32;
  return clscan__device_has_nv_ptx(plan->ctx, &cfg->nv_ptx);
}

static size_t temp_bytes(const clscan_plan *plan, size_t n) {
  if (!cpu_shape(plan))
    return CLSCAN__STATUS_OFFSET + (n ? groups_for(plan, n) : 1) *
                                       clscan__status_state_bytes(plan->state_size, plan->status32);
  return clscan__temp_align(plan, (n ? groups_for(plan, n) : 1) * plan->state_size);
}

/* GPU shape: one ticket per work-group of the launch. */
static cl_uint tickets(const clscan_plan *plan, size_t n) {
  return cpu_shape(plan) || !n ? 0 : (cl_uint)groups_for(plan, n);
}

/* CPU shape: the partials of n > 0 elements into temp[0, groups). */
static clscan_status enqueue_chunks(const clscan__launch *l, cl_ulong groups) {
  const clscan__request *r = l->req;
  cl_kernel k = l->kernels->k[PARTIALS];
  cl_mem in = r->buf[CLSCAN__BUF_IN].mem, temp = l->temp;
  cl_ulong n = r->n, in_off = r->buf[CLSCAN__BUF_IN].off, partials_off = 0;
  cl_ulong per_group = clscan__div_up(r->n, groups);
  const clscan__karg args[] = {
      CLSCAN__ARG(in),   CLSCAN__ARG(in_off),       CLSCAN__ARG(n),
      CLSCAN__ARG(temp), CLSCAN__ARG(partials_off), CLSCAN__ARG(per_group)};
  CLSCAN_RETURN_IF_ERROR(clscan__extra_set(k, 6, l->extra, 0));
  return clscan__chain_call(l->chain, k, args, 6, groups, 1);
}

/* The ordered combination of `groups` partials in temp with the initial value into the output
 * (no partials: the initial value alone). */
static clscan_status enqueue_final(const clscan__launch *l, cl_ulong groups) {
  const clscan_plan *plan = l->plan;
  const clscan__request *r = l->req;
  cl_mem out = r->buf[CLSCAN__BUF_OUT].mem, temp = l->temp;
  cl_ulong out_off = r->buf[CLSCAN__BUF_OUT].off, partials_off = 0;
  const clscan__karg args[] = {CLSCAN__ARG(temp),    CLSCAN__ARG(partials_off),
                               CLSCAN__ARG(groups),  CLSCAN__ARG(out),
                               CLSCAN__ARG(out_off), {plan->out_size, l->seed}};
  size_t wg = cpu_shape(plan) ? 1 : plan->tuning.reduce_wg;
  CLSCAN_RETURN_IF_ERROR(clscan__extra_set(l->kernels->k[FINAL], 6, l->extra, 1));
  return clscan__chain_call(l->chain, l->kernels->k[FINAL], args, 6, 1, wg);
}

/* GPU shape: the one launch of n > 0 elements (partials, and the last group's fold). */
static clscan_status enqueue_gpu(const clscan__launch *l, cl_ulong groups) {
  const clscan_plan *plan = l->plan;
  const clscan__request *r = l->req;
  cl_kernel k = l->kernels->k[PARTIALS];
  cl_mem in = r->buf[CLSCAN__BUF_IN].mem, out = r->buf[CLSCAN__BUF_OUT].mem, temp = l->temp;
  cl_ulong n = r->n, in_off = r->buf[CLSCAN__BUF_IN].off, out_off = r->buf[CLSCAN__BUF_OUT].off;
  cl_ulong epoch = l->epoch,
           tiles_per_group = clscan__div_up(clscan__div_up(n, unit_elems(plan)), groups);
  cl_uint ticket_base = l->ticket_base;
  const clscan__karg args[] = {CLSCAN__ARG(in),
                               CLSCAN__ARG(in_off),
                               CLSCAN__ARG(n),
                               CLSCAN__ARG(temp),
                               CLSCAN__ARG(ticket_base),
                               CLSCAN__ARG(epoch),
                               CLSCAN__ARG(tiles_per_group),
                               CLSCAN__ARG(out),
                               CLSCAN__ARG(out_off),
                               {plan->out_size, l->seed}};
  CLSCAN_RETURN_IF_ERROR(clscan__extra_set(k, 10, l->extra, 1));
  return clscan__chain_call(l->chain, k, args, 10, groups, plan->tuning.reduce_wg);
}

/* n > 0: the GPU shape's one launch, or the CPU shape's chunks and final fold; n == 0: the final
 * kernel alone, which writes the initial value. */
static clscan_status enqueue(const clscan__launch *l) {
  const clscan_plan *plan = l->plan;
  cl_ulong groups = l->req->n ? groups_for(plan, l->req->n) : 0;
  if (!groups)
    return enqueue_final(l, 0);
  if (!cpu_shape(plan))
    return enqueue_gpu(l, groups);
  CLSCAN_RETURN_IF_ERROR(enqueue_chunks(l, groups));
  return enqueue_final(l, groups);
}

const clscan__algorithm clscan__algo_reduce = {
    .name = "reduce",
    .family = CLSCAN__FAMILY_REDUCE,
    .id = CLSCAN__REDUCE_TWO_PASS,
    .programs = programs,
    .vector_variants = 1,
    .enqueue_empty = 1,
    .config = config,
    .temp_bytes = temp_bytes,
    .tickets = tickets,
    .enqueue = enqueue,
};
