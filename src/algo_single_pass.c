/*
 * clscan: the single pass, a chained scan with decoupled look-back and decoupled fallback, in two
 * shapes (cl/status.cl with cl/lookback_warp.cl and cl/single_pass.cl, or cl/single_pass_cpu.cl).
 *
 * GPU shape: one work-group of tile_wg work-items per tile of tile_wg * tile_vpt 16-byte vectors
 * (cl/tile.cl). CPU shape: one work-item per tile of cpu_tile elements, a sequential loop that
 * stays in cache. Both run as one launch of one work-group per tile. Tiles take tickets from a
 * counter in the temporary buffer (so tiles start in ticket order) and publish their status words
 * tagged with the launch's epoch, so the buffer is zeroed only when it is new, was used by another
 * algorithm, or the epoch would overflow (temp.c). Temporary layout: the ticket counter, then from
 * CLSCAN__STATUS_OFFSET one 8-byte status word per 4 bytes of state, per tile, then one 8-byte
 * in-place gate per tile (cl/single_pass.cl, "In place"); on devices without 64-bit atomics, 4-byte
 * words, two per 4 bytes of state (cl/status.cl, CLSCAN_STATUS32).
 *
 * Segments by offsets in the GPU shape (CLSCAN_SEG_OFFSETS_MASK picks; plan.c):
 * - 2, the default: tile firsts. A pre-pass of one work-item per tile finds the index of the
 *   tile's first offset (a search that each work-group narrows for its tiles together) and
 *   writes it in the temporary buffer, after the gates at MASK_ALIGN (cl/single_pass.cl,
 *   seg_offsets_firsts). Each tile then reads its offsets from there, coalesced, and marks its
 *   heads in local memory (cl/tile.cl, seg_mark_tile). Each first
 *   is stored in 16-bit pieces, one per 8-byte word, so that a later single pass whose status
 *   words (of either size) cover them reads them as epoch 0 (temp.c): nothing clears them.
 * - 1: a head mask of (n + 31) / 32 words there: a zero fill, then one work-item per offset
 *   setting its bit (cl/tile.cl, seg_offsets_mark). The scan reads its heads from the mask, one
 *   word per vector. A last zero fill leaves the mask's bytes zero again, since a later single
 *   pass with more tiles reads them as status words, which must hold zeros or older epochs.
 * - 0: each tile searches its first offset with the whole work-group (no pre-pass).
 * The pre-pass is the chain's first command, so it waits for the caller's events; the last
 * command's event ends the whole. On the H200 (int32, 2^28, segments of mean length 1000) the
 * firsts ran at 1.12x the plain scan's time, the mask at 1.20x (docs/performance.md).
 */
#include "internal.h"

/* Kernel indices: the scan out of place and in place, and the finishing launch of an in-place
 * scan (the CPU shape's one kernel does all three, told apart by its in_place argument). */
enum { SCAN, SCAN_IN_PLACE, FINISH, MARK };

/* Byte offset of the status words in the temporary buffer (after the ticket counter). */

/* Alignment of the head mask in the temporary buffer (a multiple of the fill pattern's 4 bytes
 * and of every device's base address alignment in the words' kernel argument offset). */
#define MASK_ALIGN 256

/* Bytes per tile first (cl/single_pass.cl, SEG_FIRST_WORDS ulongs of 16 bits each). */
#define FIRST_BYTES 32

static const clscan__program gpu_program = {
    .name = "single_pass",
    .files = {"common", "tile", "status", "lookback_warp", "single_pass", NULL},
    .vector_io_option = 1,
};

static const clscan__program cpu_program = {
    .name = "single_pass_cpu",
    .files = {"common", "status", "single_pass_cpu", NULL},
    .vector_io_option = 1, /* always 0 here; kept so its build options stay as they were */
};

static const clscan__kernel_names gpu_kernels = {{[SCAN] = "single_pass_scan",
                                                  [SCAN_IN_PLACE] = "single_pass_scan_in_place",
                                                  [FINISH] = "single_pass_finish"}};
/* The GPU shape with the head mask of segments by offsets: the same kernels and the pre-pass. */
static const clscan__kernel_names gpu_mask_kernels = {
    {[SCAN] = "single_pass_scan",
     [SCAN_IN_PLACE] = "single_pass_scan_in_place",
     [FINISH] = "single_pass_finish",
     [MARK] = "seg_offsets_mark"}};
/* The GPU shape with the tile firsts of segments by offsets: the same kernels and their pre-pass.
 */
static const clscan__kernel_names gpu_firsts_kernels = {
    {[SCAN] = "single_pass_scan",
     [SCAN_IN_PLACE] = "single_pass_scan_in_place",
     [FINISH] = "single_pass_finish",
     [MARK] = "seg_offsets_firsts"}};
static const clscan__kernel_names cpu_kernels = {{[SCAN] = "single_pass_scan_cpu",
                                                  [SCAN_IN_PLACE] = "single_pass_scan_cpu",
                                                  [FINISH] = "single_pass_scan_cpu"}};

static const clscan__program *const programs[] = {&gpu_program, &cpu_program, NULL};

/* Elements per tile of the plan's shape. */
static size_t tile_elems(const clscan_plan *plan) {
  const clscan__tuning *t = &plan->tuning;
  return t->single_pass_cpu ? t->cpu_tile : (size_t)t->tile_wg * t->tile_vpt * plan->vec;
}

/* 1 when the plan's scans build a head mask of their offsets first (GPU shape only). */
static int uses_mask(const clscan_plan *plan) {
  return plan->seg_mask == 1 && plan->desc.segments == CLSCAN_SEGMENTS_OFFSETS &&
         !plan->tuning.single_pass_cpu;
}

/* 1 when the plan's scans find each tile's first offset in a pre-pass (GPU shape only). */
static int uses_firsts(const clscan_plan *plan) {
  return plan->seg_mask == 2 && plan->desc.segments == CLSCAN_SEGMENTS_OFFSETS &&
         !plan->tuning.single_pass_cpu;
}

static clscan_status config(const clscan_plan *plan, int vector_io, clscan__kernel_config *cfg) {
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
  cfg->kernels = uses_mask(plan)     ? &gpu_mask_kernels
                 : uses_firsts(plan) ? &gpu_firsts_kernels
                                     : &gpu_kernels;
  cfg->seg_mask = uses_mask(plan);
  cfg->seg_firsts = uses_firsts(plan);
  cfg->wg = t->tile_wg;
  cfg->vpt = t->tile_vpt;
  cfg->vector_io = vector_io;
  cfg->stash = t->stash;
  CLSCAN_RETURN_IF_ERROR(clscan__device_has_nv_ptx(plan->ctx, &cfg->nv_ptx));
  // A register cap holds for the kernel it was measured on: the 16-byte I/O one.
  cfg->nv_registers = cfg->nv_ptx && vector_io ? t->nv_registers : 0;
  return CLSCAN_SUCCESS;
}

/* Bytes up to the end of the gates: per tile one 8-byte word per 4 bytes of state, or one 4-byte
 * word per 2 bytes (32-bit status words), and a gate word. */
static size_t status_bytes(const clscan_plan *plan, size_t n) {
  const size_t word = plan->status32 ? 4 : 8;
  return CLSCAN__STATUS_OFFSET +
         clscan__div_up(n, tile_elems(plan)) *
             (clscan__status_state_bytes(plan->state_size, plan->status32) + word);
}

/* Byte offset of the head mask, and its size. */
static size_t mask_offset(const clscan_plan *plan, size_t n) {
  return clscan__div_up(status_bytes(plan, n), MASK_ALIGN) * MASK_ALIGN;
}
static size_t mask_bytes(size_t n) {
  return clscan__div_up(n, 32) * sizeof(cl_uint);
}

/* The status words and gates, then with a head mask the mask, with tile firsts FIRST_BYTES per
 * tile (cl/single_pass.cl's seg_firsts() puts them after its status words and gates, whose end
 * status_bytes() bounds). */
static size_t temp_bytes(const clscan_plan *plan, size_t n) {
  if (uses_firsts(plan))
    return mask_offset(plan, n) + clscan__div_up(n, tile_elems(plan)) * FIRST_BYTES;
  return uses_mask(plan) ? mask_offset(plan, n) + mask_bytes(n) : status_bytes(plan, n);
}

/* The pre-pass of tile firsts: one work-item per tile searches its first offset, in work-groups
 * of the tile's work-items (cl/single_pass.cl requires that size). */
static clscan_status enqueue_firsts(const clscan__launch *l) {
  const clscan_plan *plan = l->plan;
  const clscan__request *r = l->req;
  const size_t local = plan->tuning.tile_wg;
  cl_mem off = l->aux, temp = l->temp;
  cl_ulong off_off = l->aux_off, n = r->n;
  const clscan__karg args[] = {CLSCAN__ARG(off), CLSCAN__ARG(off_off), CLSCAN__ARG(n),
                               CLSCAN__ARG(temp)};
  return clscan__chain_call(l->chain, l->kernels->k[MARK], args, 4,
                            clscan__div_up(clscan__div_up(r->n, tile_elems(plan)), local), local);
}

/* The pre-pass of a head mask (see the top): the mask's zero fill and its marking kernel, one
 * work-item per offset (the request's seg_param, also the chain's global offset). */
static clscan_status enqueue_mask(const clscan__launch *l) {
  const clscan_plan *plan = l->plan;
  const clscan__request *r = l->req;
  const size_t local = plan->tuning.tile_wg, at = mask_offset(plan, r->n);
  cl_mem off = l->aux, mask = l->temp;
  cl_ulong off_off = l->aux_off, mask_off = at / sizeof(cl_uint), n = r->n;
  const clscan__karg args[] = {CLSCAN__ARG(off), CLSCAN__ARG(off_off), CLSCAN__ARG(mask),
                               CLSCAN__ARG(mask_off), CLSCAN__ARG(n)};
  CLSCAN_RETURN_IF_ERROR(clscan__chain_zero_at(l->chain, mask, at, mask_bytes(r->n)));
  return clscan__chain_call(l->chain, l->kernels->k[MARK], args, 5,
                            clscan__div_up(r->seg_param, local), local);
}

static cl_uint tickets(const clscan_plan *plan, size_t n) {
  return (cl_uint)clscan__div_up(n, tile_elems(plan));
}

/* One launch of one work-group per tile; in place, then a finishing launch (in_place = 2, one
 * work-item per tile) that writes the tiles a fallback read, which their owners leave unwritten. */
static clscan_status enqueue(const clscan__launch *l) {
  const clscan_plan *plan = l->plan;
  const clscan__request *r = l->req;
  size_t v = plan->out_size;
  size_t local = plan->tuning.single_pass_cpu ? 1 : plan->tuning.tile_wg;
  size_t tiles = clscan__div_up(r->n, tile_elems(plan));
  cl_mem in = r->buf[CLSCAN__BUF_IN].mem, out = r->buf[CLSCAN__BUF_OUT].mem;
  cl_mem aux = l->aux, temp = l->temp;
  cl_ulong n = r->n, in_off = r->buf[CLSCAN__BUF_IN].off, out_off = r->buf[CLSCAN__BUF_OUT].off;
  cl_ulong aux_off = l->aux_off, epoch = l->epoch;
  if (l->kernels->cfg.seg_mask) {
    // The scan reads the head mask instead of the offsets.
    CLSCAN_RETURN_IF_ERROR(enqueue_mask(l));
    aux = temp;
    aux_off = mask_offset(plan, r->n) / sizeof(cl_uint);
  }
  if (l->kernels->cfg.seg_firsts)
    CLSCAN_RETURN_IF_ERROR(enqueue_firsts(l));
  cl_uint ticket_base = l->ticket_base;
  cl_int excl = plan->desc.exclusive != 0, in_place = r->in_place;
  const clscan__karg args[] = {CLSCAN__ARG(in),      CLSCAN__ARG(in_off), CLSCAN__ARG(aux),
                               CLSCAN__ARG(aux_off), CLSCAN__ARG(out),    CLSCAN__ARG(out_off),
                               CLSCAN__ARG(n),       CLSCAN__ARG(temp),   CLSCAN__ARG(ticket_base),
                               CLSCAN__ARG(epoch),   {v, l->seed},        CLSCAN__ARG(excl),
                               CLSCAN__ARG(in_place)};
  cl_kernel scan = l->kernels->k[in_place ? SCAN_IN_PLACE : SCAN];
  CLSCAN_RETURN_IF_ERROR(clscan__extra_set(scan, 13, l->extra, 1));
  CLSCAN_RETURN_IF_ERROR(clscan__chain_call(l->chain, scan, args, 13, tiles, local));
  if (in_place) {
    in_place = 2;
    CLSCAN_RETURN_IF_ERROR(clscan__extra_set(l->kernels->k[FINISH], 13, l->extra, 1));
    CLSCAN_RETURN_IF_ERROR(clscan__chain_call(l->chain, l->kernels->k[FINISH], args, 13,
                                              clscan__div_up(tiles, local), local));
  }
  if (!l->kernels->cfg.seg_mask)
    return CLSCAN_SUCCESS;
  return clscan__chain_zero_at(l->chain, temp, mask_offset(plan, r->n), mask_bytes(r->n));
}

const clscan__algorithm clscan__algo_single_pass = {
    .name = "single-pass",
    .family = CLSCAN__FAMILY_SCAN,
    .id = CLSCAN_ALGO_SINGLE_PASS,
    .programs = programs,
    .vector_variants = 1,
    .config = config,
    .temp_bytes = temp_bytes,
    .tickets = tickets,
    .enqueue = enqueue,
};
