/*
 * clscan: the selections' single pass (select, partition, unique, run-length encoding), the flag
 * count fused with the scatter through the scan's decoupled look-back and fallback, in two shapes:
 * cl/select.cl (GPU: work-groups of tile_wg work-items, `items` elements each) and
 * cl/select_cpu.cl (CPU: one work-item per tile of cpu_tile elements). Both build on
 * cl/status.cl, whose state is renamed to the selection's count state by cl/select_common.cl; the
 * GPU shape looks back with cl/lookback_warp.cl's warp-wide window on NVIDIA (a tree reduction of
 * the counts) and with status.cl's serial walker elsewhere. The GPU shape loads 16-byte vectors
 * (CLSCAN_VECTOR_IO=1) in the plan's kernel set where the plan's vec > 1, and single elements in
 * its unaligned set (select_api.c picks the set per request; the launch names it).
 *
 * Temporary layout: the ticket counter (a uint at byte 0), the partition's total (a ulong at byte
 * 8), from CLSCAN__STATUS_OFFSET the status words (per tile: one 8-byte word per 4 bytes of count
 * state, that is one per 4 bytes of the count, twice that for run-length encoding; on devices
 * without 64-bit atomics, and under CLSCAN_TEST_STATUS32, two 4-byte words per 4 bytes of state,
 * cl/status.cl's CLSCAN_STATUS32: plan->status32), and for partition into one buffer in order
 * one ulong count per tile (the pre-pass). A later single pass (the scan's, which may use the same
 * slot) reads the per-tile counts as words of an older epoch: below 2^35, and with 32-bit words
 * stored in 16-bit pieces (cl/select_common.cl, SEL_COUNT_TO_WORD). The slot's status-word size and
 * epoch are temp.c's (clscan__temp_acquire_words, through select_api.c's dispatch), so a slot whose
 * words had the other size is zeroed first. Nothing else needs 64-bit atomics: the ticket is a
 * 32-bit atomic and the partition's total a plain store and load between two launches.
 */
#include "internal.h"

/* Kernel index. */
enum { EMPTY = CLSCAN__SEL_KERNEL_EMPTY, PASS, COUNT_TILES, COUNT_TOTAL };

/* Byte offset of the status words in the temporary buffer (as the scan's single pass). */

static const clscan__program gpu_program = {
    .name = "select",
    .files = {"common", "select_common", "status", "lookback_warp", "select", NULL},
    .vector_io_option = 1, /* the vector loads (cl/select.cl's SEL_VEC) */
};

static const clscan__program cpu_program = {
    .name = "select_cpu",
    .files = {"common", "select_common", "status", "select_cpu", NULL},
};

static const clscan__program *const programs[] = {&gpu_program, &cpu_program, NULL};

static const clscan__kernel_names gpu_kernels = {{[EMPTY] = "select_empty",
                                                  [PASS] = "select_single_pass",
                                                  [COUNT_TILES] = "select_count_tiles",
                                                  [COUNT_TOTAL] = "select_count_total"}};
static const clscan__kernel_names cpu_kernels = {{[EMPTY] = "select_empty",
                                                  [PASS] = "select_single_pass_cpu",
                                                  [COUNT_TILES] = "select_count_tiles_cpu",
                                                  [COUNT_TOTAL] = "select_count_total_cpu"}};

/* Elements per tile of the plan's shape. */
static size_t tile_elems(const clscan_select_plan *plan) {
  const clscan__tuning *t = &plan->tuning;
  return t->single_pass_cpu ? t->cpu_tile : (size_t)t->tile_wg * plan->items;
}

/* Status words per tile (cl/status.cl's STATUS_WORDS): one per 4 bytes of the count state
 * (cl/select_common.cl: fields of the count's size; run-length encoding has two), two with
 * 32-bit words (a 16-bit piece each). */
static size_t status_words(const clscan_select_plan *plan) {
  const size_t state_words = (plan->op == CLSCAN_RUN_LENGTH_ENCODE ? 2 : 1) * plan->count_size / 4;
  return state_words * (plan->status32 ? 2 : 1);
}

/* Bytes of one status word (cl/status.cl's status_t). */
static size_t status_word_bytes(const clscan_select_plan *plan) {
  return plan->status32 ? 4 : 8;
}

static clscan_status config(const clscan_select_plan *plan, clscan__kernel_config *cfg) {
  const clscan__tuning *t = &plan->tuning;
  cfg->withhold = plan->withhold;
  cfg->status32 = plan->status32;
  if (t->single_pass_cpu) {
    cfg->program = &cpu_program;
    cfg->kernels = &cpu_kernels;
    cfg->wg = 1;
    cfg->cpu_tile = t->cpu_tile;
    return CLSCAN_SUCCESS;
  }
  cfg->program = &gpu_program;
  cfg->kernels = &gpu_kernels;
  cfg->wg = t->tile_wg;
  cfg->vpt = plan->items;
  return clscan__device_has_nv_ptx(plan->ctx, &cfg->nv_ptx);
}

/* Byte offset of the partition's per-tile counts. */
static size_t counts_offset(const clscan_select_plan *plan, size_t tiles) {
  return CLSCAN__STATUS_OFFSET + tiles * status_word_bytes(plan) * status_words(plan);
}

/* Whether the plan's partition writes its rejected elements in order after the selected ones, and
 * so counts the selected ones first; a request that gives them a buffer of their own does not
 * (io.split). */
static int needs_total(const clscan_select_plan *plan) {
  return plan->op == CLSCAN_PARTITION && !plan->reverse_rejected;
}

static size_t temp_bytes(const clscan_select_plan *plan, size_t n) {
  size_t tiles = clscan__div_up(n, tile_elems(plan));
  return counts_offset(plan, tiles) + (needs_total(plan) ? tiles * 8 : 0);
}

static cl_uint tickets(const clscan_select_plan *plan, size_t n) {
  return (cl_uint)clscan__div_up(n, tile_elems(plan));
}

/* Partition: counts every tile, then sums the counts into the total at byte 8 of temp. */
static clscan_status enqueue_total(const clscan__select_launch *l, size_t tiles, size_t local) {
  const clscan__select_request *r = l->req;
  const cl_kernel *k = l->kernels->k;
  const clscan__select_io io = clscan__select_io_of(l->plan, r);
  cl_mem temp = l->temp;
  cl_ulong n = r->n, t = tiles;
  // The counts live in the temporary buffer, from an offset counted in ulongs.
  cl_ulong counts_off = counts_offset(l->plan, tiles) / 8;
  const clscan__karg count_args[] = {
      CLSCAN__ARG(io.in), CLSCAN__ARG(io.in_off), CLSCAN__ARG(io.flags),  CLSCAN__ARG(io.flags_off),
      CLSCAN__ARG(n),     CLSCAN__ARG(temp),      CLSCAN__ARG(counts_off)};
  CLSCAN_RETURN_IF_ERROR(clscan__extra_set(k[COUNT_TILES], 7, r->extra, 0));
  CLSCAN_RETURN_IF_ERROR(clscan__chain_call(l->chain, k[COUNT_TILES], count_args, 7, tiles, local));
  const clscan__karg total_args[] = {CLSCAN__ARG(temp), CLSCAN__ARG(counts_off), CLSCAN__ARG(t)};
  return clscan__chain_call(l->chain, k[COUNT_TOTAL], total_args, 3, 1, local);
}

/* One launch of one work-group per tile (partition into one buffer in order: after its count
 * pre-pass). */
static clscan_status enqueue(const clscan__select_launch *l) {
  const clscan_select_plan *plan = l->plan;
  const clscan__select_request *r = l->req;
  size_t local = plan->tuning.single_pass_cpu ? 1 : plan->tuning.tile_wg;
  size_t tiles = clscan__div_up(r->n, tile_elems(plan));
  const clscan__select_io io = clscan__select_io_of(plan, r);
  if (needs_total(plan) && !io.split)
    CLSCAN_RETURN_IF_ERROR(enqueue_total(l, tiles, local));
  cl_mem temp = l->temp;
  cl_ulong cap = r->capacity, n = r->n, epoch = l->epoch;
  cl_uint ticket_base = l->ticket_base;
  const clscan__karg args[] = {CLSCAN__ARG(io.in),
                               CLSCAN__ARG(io.in_off),
                               CLSCAN__ARG(io.flags),
                               CLSCAN__ARG(io.flags_off),
                               CLSCAN__ARG(io.out),
                               CLSCAN__ARG(io.out_off),
                               CLSCAN__ARG(cap),
                               CLSCAN__ARG(io.lengths),
                               CLSCAN__ARG(io.lengths_off),
                               CLSCAN__ARG(io.rej),
                               CLSCAN__ARG(io.rej_off),
                               CLSCAN__ARG(io.rej_cap),
                               CLSCAN__ARG(io.split),
                               CLSCAN__ARG(io.count),
                               CLSCAN__ARG(io.count_off),
                               CLSCAN__ARG(n),
                               CLSCAN__ARG(temp),
                               CLSCAN__ARG(ticket_base),
                               CLSCAN__ARG(epoch)};
  enum { ARGS = sizeof args / sizeof args[0] };
  CLSCAN_RETURN_IF_ERROR(clscan__extra_set(l->kernels->k[PASS], ARGS, r->extra, 0));
  return clscan__chain_call(l->chain, l->kernels->k[PASS], args, ARGS, tiles, local);
}

const clscan__select_algorithm clscan__select_single_pass = {
    .name = "single-pass",
    .id = CLSCAN_ALGO_SINGLE_PASS,
    .programs = programs,
    .config = config,
    .temp_bytes = temp_bytes,
    .tickets = tickets,
    .enqueue = enqueue,
};
