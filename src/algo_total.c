/*
 * clscan: a scan's device total (clscan_run_args.total), family CLSCAN__FAMILY_TOTAL. One kernel
 * (cl/total.cl) of one work-item, launched by dispatch around the scan: before an exclusive scan
 * it saves the last mapped element to temporary memory, after the scan it writes the inclusive
 * total. The scan algorithms need no change for it.
 */
#include "internal.h"

/* Kernel index. */
enum { TOTAL };

static const clscan__program program = {
    .name = "total",
    .files = {"common", "total", NULL},
};

static const clscan__kernel_names kernels = {{[TOTAL] = "scan_total"}};

static const clscan__program *const programs[] = {&program, NULL};

static clscan_status config(const clscan_plan *plan, int vector_io, clscan__kernel_config *cfg) {
  (void)plan;
  (void)vector_io;
  cfg->program = &program;
  cfg->kernels = &kernels;
  cfg->wg = 1;
  return CLSCAN_SUCCESS;
}

/* One saved element (the dispatch adds it after the scan's own temporary storage). */
static size_t temp_bytes(const clscan_plan *plan, size_t n) {
  (void)n;
  return clscan__temp_align(plan, plan->out_size);
}

/* One launch of the launch's phase. */
static clscan_status enqueue(const clscan__launch *l) {
  const clscan__request *r = l->req;
  cl_mem in = r->buf[CLSCAN__BUF_IN].mem, out = r->buf[CLSCAN__BUF_OUT].mem, temp = l->temp;
  cl_mem total = r->total.mem;
  cl_ulong in_off = r->buf[CLSCAN__BUF_IN].off, out_off = r->buf[CLSCAN__BUF_OUT].off;
  cl_ulong n = r->n, save_off = l->save_off, total_off = r->total.off;
  cl_int excl = l->plan->desc.exclusive != 0, phase = l->total_phase;
  const clscan__karg args[] = {
      CLSCAN__ARG(in),       CLSCAN__ARG(in_off), CLSCAN__ARG(out),
      CLSCAN__ARG(out_off),  CLSCAN__ARG(n),      CLSCAN__ARG(temp),
      CLSCAN__ARG(save_off), CLSCAN__ARG(total),  CLSCAN__ARG(total_off),
      CLSCAN__ARG(excl),     CLSCAN__ARG(phase),  {l->plan->out_size, l->seed}};
  cl_kernel k = l->kernels->k[TOTAL];
  CLSCAN_RETURN_IF_ERROR(clscan__extra_set(k, 12, l->extra, 1));
  return clscan__chain_call(l->chain, k, args, 12, 1, 1);
}

const clscan__algorithm clscan__algo_total = {
    .name = "total",
    .family = CLSCAN__FAMILY_TOTAL,
    .id = 0,
    .programs = programs,
    .vector_variants = 0,
    .enqueue_empty = 1,
    .config = config,
    .temp_bytes = temp_bytes,
    .tickets = NULL,
    .enqueue = enqueue,
};
