/*
 * clscan: the classic three-phase scans, Blelloch and Hillis-Steele (cl/seed.cl).
 *
 * Each work-group scans a block in local memory (Blelloch: up-sweep and down-sweep over 2 * wg
 * elements; Hillis-Steele: a double-buffered scan over wg elements) and writes the block's total;
 * the totals are scanned the same way, recursively, in the temporary buffer; then every block
 * adds its offset. Scalar I/O only, so there is one kernel set per plan.
 */
#include "internal.h"

/* Kernel indices, the same for both algorithms. */
enum { SCAN_BLOCKS, ADD_BLOCK_OFFSETS, SCAN_SUMS, ADD_SUM_OFFSETS };

/* Both algorithms build one program. */
static const clscan__program seed_program = {
    .name = "seed",
    .files = {"common", "seed", NULL},
};

static const clscan__kernel_names blelloch_kernels = {{
    [SCAN_BLOCKS] = "blelloch_scan_blocks",
    [ADD_BLOCK_OFFSETS] = "add_block_offsets",
    [SCAN_SUMS] = "blelloch_scan_sums",
    [ADD_SUM_OFFSETS] = "add_sum_offsets",
}};

static const clscan__kernel_names hillis_steele_kernels = {{
    [SCAN_BLOCKS] = "hillis_steele_scan_blocks",
    [ADD_BLOCK_OFFSETS] = "add_block_offsets",
    [SCAN_SUMS] = "hillis_steele_scan_sums",
    [ADD_SUM_OFFSETS] = "add_sum_offsets",
}};

static const clscan__program *const programs[] = {&seed_program, NULL};

/* Returns 1 for a plan's Blelloch kernels. */
static int is_blelloch(const clscan__kernel_config *cfg) {
  return cfg->kernels == &blelloch_kernels;
}

/* Elements per block: Blelloch's work-items hold two elements each. */
static size_t block_elems(const clscan_plan *plan, int blelloch) {
  return blelloch ? 2 * (size_t)plan->tuning.seed_wg : plan->tuning.seed_wg;
}

static clscan_status blelloch_config(const clscan_plan *plan, int vector_io,
                                     clscan__kernel_config *cfg) {
  (void)vector_io;
  cfg->program = &seed_program;
  cfg->kernels = &blelloch_kernels;
  cfg->wg = plan->tuning.seed_wg;
  return CLSCAN_SUCCESS;
}

static clscan_status hillis_steele_config(const clscan_plan *plan, int vector_io,
                                          clscan__kernel_config *cfg) {
  (void)vector_io;
  cfg->program = &seed_program;
  cfg->kernels = &hillis_steele_kernels;
  cfg->wg = plan->tuning.seed_wg;
  return CLSCAN_SUCCESS;
}

/* One array of block totals per level. */
static size_t temp_bytes(const clscan_plan *plan, size_t n, int blelloch) {
  size_t b = block_elems(plan, blelloch), bytes = 0;
  for (size_t m = n; m > b; m = clscan__div_up(m, b))
    bytes += clscan__temp_align(plan, clscan__div_up(m, b) * plan->state_size);
  return bytes;
}

static size_t blelloch_temp_bytes(const clscan_plan *plan, size_t n) {
  return temp_bytes(plan, n, 1);
}

static size_t hillis_steele_temp_bytes(const clscan_plan *plan, size_t n) {
  return temp_bytes(plan, n, 0);
}

/* Scans the m block totals of an upper level in place (exclusively), and the levels above. */
static clscan_status scan_sums(const clscan__launch *l, cl_ulong off, cl_ulong m,
                               cl_ulong temp_off) {
  const clscan_plan *plan = l->plan;
  const cl_kernel *k = l->kernels->k;
  size_t b = block_elems(plan, is_blelloch(&l->kernels->cfg)), s = plan->state_size;
  size_t v = plan->out_size, wg = plan->tuning.seed_wg, blocks = clscan__div_up(m, b);
  cl_int has_sums = blocks > 1;
  cl_ulong sums_off = temp_off / s;
  cl_mem temp = l->temp;
  const clscan__karg args[] = {
      CLSCAN__ARG(temp),     CLSCAN__ARG(off),      CLSCAN__ARG(temp),
      CLSCAN__ARG(off),      CLSCAN__ARG(m),        CLSCAN__ARG(temp),
      CLSCAN__ARG(sums_off), CLSCAN__ARG(has_sums), {v, has_sums ? l->identity : l->seed}};
  CLSCAN_RETURN_IF_ERROR(clscan__extra_set(k[SCAN_SUMS], 9, l->extra, !has_sums));
  CLSCAN_RETURN_IF_ERROR(clscan__chain_call(l->chain, k[SCAN_SUMS], args, 9, blocks, wg));
  if (!has_sums)
    return CLSCAN_SUCCESS;

  CLSCAN_RETURN_IF_ERROR(
      scan_sums(l, sums_off, blocks, temp_off + clscan__temp_align(plan, blocks * s)));
  cl_uint block = (cl_uint)b;
  const clscan__karg add_args[] = {CLSCAN__ARG(temp), CLSCAN__ARG(off),      CLSCAN__ARG(m),
                                   CLSCAN__ARG(temp), CLSCAN__ARG(sums_off), CLSCAN__ARG(block)};
  CLSCAN_RETURN_IF_ERROR(clscan__extra_set(k[ADD_SUM_OFFSETS], 6, l->extra, 0));
  return clscan__chain_call(l->chain, k[ADD_SUM_OFFSETS], add_args, 6, blocks, wg);
}

/* Scans level 0's blocks, scans their totals (recursively), adds the offsets. */
static clscan_status enqueue(const clscan__launch *l) {
  const clscan_plan *plan = l->plan;
  const clscan__request *r = l->req;
  const cl_kernel *k = l->kernels->k;
  size_t b = block_elems(plan, is_blelloch(&l->kernels->cfg)), s = plan->state_size;
  size_t v = plan->out_size, wg = plan->tuning.seed_wg, blocks = clscan__div_up(r->n, b);
  cl_mem in = r->buf[CLSCAN__BUF_IN].mem, out = r->buf[CLSCAN__BUF_OUT].mem;
  cl_ulong in_off = r->buf[CLSCAN__BUF_IN].off, out_off = r->buf[CLSCAN__BUF_OUT].off, n = r->n;
  cl_int has_sums = blocks > 1, excl = plan->desc.exclusive != 0;
  cl_ulong sums_off = 0, aux_off = l->aux_off;
  cl_mem sums = has_sums ? l->temp : in; /* any valid buffer when unused */
  cl_mem aux = l->aux, temp = l->temp;

  // Blocks are scanned with the seed only when one block covers n.
  const clscan__karg args[] = {
      CLSCAN__ARG(in),       CLSCAN__ARG(in_off), CLSCAN__ARG(aux),
      CLSCAN__ARG(aux_off),  CLSCAN__ARG(out),    CLSCAN__ARG(out_off),
      CLSCAN__ARG(n),        CLSCAN__ARG(sums),   CLSCAN__ARG(sums_off),
      CLSCAN__ARG(has_sums), CLSCAN__ARG(excl),   {v, has_sums ? l->identity : l->seed}};
  CLSCAN_RETURN_IF_ERROR(clscan__extra_set(k[SCAN_BLOCKS], 12, l->extra, !has_sums));
  CLSCAN_RETURN_IF_ERROR(clscan__chain_call(l->chain, k[SCAN_BLOCKS], args, 12, blocks, wg));
  if (!has_sums)
    return CLSCAN_SUCCESS;

  // Scan the block totals exclusively, in place, with the seed; then add them as offsets.
  CLSCAN_RETURN_IF_ERROR(scan_sums(l, sums_off, blocks, clscan__temp_align(plan, blocks * s)));
  cl_uint block = (cl_uint)b;
  const clscan__karg add_args[] = {CLSCAN__ARG(out),      CLSCAN__ARG(out_off), CLSCAN__ARG(aux),
                                   CLSCAN__ARG(aux_off),  CLSCAN__ARG(n),       CLSCAN__ARG(temp),
                                   CLSCAN__ARG(sums_off), CLSCAN__ARG(block),   {v, l->seed}};
  CLSCAN_RETURN_IF_ERROR(clscan__extra_set(k[ADD_BLOCK_OFFSETS], 9, l->extra, 1));
  return clscan__chain_call(l->chain, k[ADD_BLOCK_OFFSETS], add_args, 9, blocks, wg);
}

const clscan__algorithm clscan__algo_blelloch = {
    .name = "blelloch",
    .family = CLSCAN__FAMILY_SCAN,
    .id = CLSCAN_ALGO_BLELLOCH,
    .programs = programs,
    .vector_variants = 0,
    .config = blelloch_config,
    .temp_bytes = blelloch_temp_bytes,
    .tickets = NULL,
    .enqueue = enqueue,
};

const clscan__algorithm clscan__algo_hillis_steele = {
    .name = "hillis-steele",
    .family = CLSCAN__FAMILY_SCAN,
    .id = CLSCAN_ALGO_HILLIS_STEELE,
    .programs = programs,
    .vector_variants = 0,
    .config = hillis_steele_config,
    .temp_bytes = hillis_steele_temp_bytes,
    .tickets = NULL,
    .enqueue = enqueue,
};
