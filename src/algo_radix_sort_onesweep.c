/*
 * clscan: the Onesweep radix sort (cl/status.cl, cl/radix_sort.cl; Adinets and Merrill 2022).
 * sort_histogram counts every pass's digits in one launch; sort_passes (one work-group) decides
 * which passes run (a pass in which one digit holds every key is the identity) and where the
 * keys are before each, and scans each pass's histogram into the digits' starts; then one
 * sort_onesweep launch per pass ranks each tile in local memory and takes the tile's digit offsets
 * from a chained scan across tiles, one chain per digit, with the scan's status words (status.cl),
 * a decoupled look-back whose work-items walk their digits' chains, and the decoupled fallback;
 * sort_finish copies the keys back if they ended in the temporary copies. The status words are
 * 64-bit, or 32-bit where the device lacks 64-bit atomics (plan->status32, CLSCAN_STATUS32).
 *
 * Temporary layout (zeroed before each sort): the ticket counters of the passes, the pass and
 * side words, the histograms (SORT_HIST_OFFSET in cl/radix_sort.cl), from STATUS_OFFSET the
 * status words (8 bytes per digit and tile, one 64-bit word or two 32-bit ones, tile-major; pass
 * p publishes under epoch p + 1, so one zeroing serves every pass), then the copies of keys and
 * values.
 */
#include "sort_internal.h"

/* Kernel index. */
enum { HISTOGRAM, PASSES, ONESWEEP, FINISH };

/* Work-groups of sort_histogram per compute unit at most (each counts every so many tiles): about
 * what a GPU holds at once (8 work-groups of 256 on each of the H200's 132 multiprocessors), so
 * that few work-groups add their counts to the histogram's words with atomics. */
#define HISTOGRAM_GROUPS_PER_CU 8

/* Byte offset of the status words: 16 words, then the histograms, rounded up to
 * CLSCAN__SORT_ALIGN (256) bytes, as SORT_STATUS_OFFSET in cl/radix_sort.cl. */
#define STATUS_OFFSET                                                                   \
  (((16 + CLSCAN__SORT_MAX_PASSES * CLSCAN__SORT_RADIX) * 4 + CLSCAN__SORT_ALIGN - 1) / \
   CLSCAN__SORT_ALIGN * CLSCAN__SORT_ALIGN)

static const clscan__program onesweep_program = {
    .name = "radix_sort_onesweep",
    .files = {"common", "status", "radix_sort", NULL},
};

static const clscan__program *const programs[] = {&onesweep_program, NULL};

static const clscan__program *program(const clscan_sort_plan *plan) {
  (void)plan;
  return &onesweep_program;
}

static size_t tiles_of(const clscan_sort_plan *plan, size_t n) {
  return clscan__div_up(n, clscan__sort_tile(plan));
}

/* The counters, words, histograms and status words: everything that is zeroed. */
static size_t zero_bytes(const clscan_sort_plan *plan, size_t n) {
  return STATUS_OFFSET + 8 * CLSCAN__SORT_RADIX * tiles_of(plan, n);
}

static size_t temp_bytes(const clscan_sort_plan *plan, size_t n) {
  return clscan__sort_pingpong(plan, zero_bytes(plan, n), n, NULL, NULL);
}

static clscan_status enqueue(const clscan__sort_launch *l) {
  const clscan_sort_plan *plan = l->plan;
  size_t local = plan->wg;
  cl_mem a = l->keys, av = l->values, temp = l->temp;
  cl_ulong a_off = l->keys_off, av_off = l->values_off, b_off, bv_off;
  clscan__sort_pingpong(plan, zero_bytes(plan, l->n), l->n, &b_off, &bv_off);
  cl_ulong n = l->n, tiles = tiles_of(plan, l->n);
  cl_uint begin = plan->begin_bit, end = plan->end_bit, passes = plan->passes;
  const clscan__karg hist_args[] = {CLSCAN__ARG(a),     CLSCAN__ARG(a_off), CLSCAN__ARG(n),
                                    CLSCAN__ARG(begin), CLSCAN__ARG(end),   CLSCAN__ARG(passes),
                                    CLSCAN__ARG(temp)};
  const size_t hist_cap = (size_t)plan->ctx->info.compute_units * HISTOGRAM_GROUPS_PER_CU;
  const size_t hist_groups = tiles < hist_cap ? tiles : hist_cap > 0 ? hist_cap : 1;
  CLSCAN_RETURN_IF_ERROR(
      clscan__chain_call(l->chain, plan->k[HISTOGRAM], hist_args, 7, hist_groups, local));
  const clscan__karg passes_args[] = {CLSCAN__ARG(temp), CLSCAN__ARG(n), CLSCAN__ARG(passes)};
  CLSCAN_RETURN_IF_ERROR(clscan__chain_call(l->chain, plan->k[PASSES], passes_args, 3, 1, local));
  for (cl_uint p = 0; p < passes; p++) {
    const clscan__karg args[] = {CLSCAN__ARG(a),      CLSCAN__ARG(a_off),  CLSCAN__ARG(av),
                                 CLSCAN__ARG(av_off), CLSCAN__ARG(temp),   CLSCAN__ARG(b_off),
                                 CLSCAN__ARG(temp),   CLSCAN__ARG(bv_off), CLSCAN__ARG(n),
                                 CLSCAN__ARG(p),      CLSCAN__ARG(begin),  CLSCAN__ARG(end),
                                 CLSCAN__ARG(temp)};
    CLSCAN_RETURN_IF_ERROR(clscan__chain_call(l->chain, plan->k[ONESWEEP], args, 13, tiles, local));
  }
  cl_int from_words = 1;
  const clscan__karg args[] = {CLSCAN__ARG(a),      CLSCAN__ARG(a_off),      CLSCAN__ARG(av),
                               CLSCAN__ARG(av_off), CLSCAN__ARG(temp),       CLSCAN__ARG(b_off),
                               CLSCAN__ARG(temp),   CLSCAN__ARG(bv_off),     CLSCAN__ARG(n),
                               CLSCAN__ARG(passes), CLSCAN__ARG(from_words), CLSCAN__ARG(temp)};
  return clscan__chain_call(l->chain, plan->k[FINISH], args, 12, clscan__sort_finish_groups(l->n),
                            CLSCAN__SORT_FINISH_WG);
}

const clscan__sort_algorithm clscan__algo_radix_sort_onesweep = {
    .base =
        {
            .name = "onesweep",
            .family = CLSCAN__FAMILY_SORT,
            .id = CLSCAN_SORT_ONESWEEP,
            .programs = programs,
        },
    .kernels = {[HISTOGRAM] = "sort_histogram",
                [PASSES] = "sort_passes",
                [ONESWEEP] = "sort_onesweep",
                [FINISH] = "sort_finish"},
    .program = program,
    .temp_bytes = temp_bytes,
    .zero_bytes = zero_bytes,
    .enqueue = enqueue,
};
