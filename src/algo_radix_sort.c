/*
 * clscan: the portable LSD radix sort (cl/radix_sort.cl), built from the library's pieces: per
 * 8-bit digit a histogram per tile (sort_count), an exclusive scan of the counts in digit-major
 * order (a reduce-then-scan: sort_scan_reduce, sort_scan_top, sort_scan_down), and a stable
 * scatter in which each work-group ranks its tile in local memory (sort_scatter). Passes move
 * the keys between the caller's buffers and the temporary copies; after an odd number of passes
 * sort_finish copies them back. Needs only OpenCL 1.2 (32-bit local atomics).
 *
 * Temporary layout: the counts (256 per tile, digit-major), the block sums of their scan, then
 * the copies of keys and values (clscan__sort_pingpong).
 */
#include "sort_internal.h"

/* Kernel index. */
enum { COUNT, REDUCE, TOP, DOWN, SCATTER, FINISH };

static const clscan__program lsd_program = {
    .name = "radix_sort",
    .files = {"common", "radix_sort", NULL},
};

static const clscan__program *const programs[] = {&lsd_program, NULL};

static const clscan__program *program(const clscan_sort_plan *plan) {
  (void)plan;
  return &lsd_program;
}

/* Tiles of n keys, entries of the count array, and blocks of its scan. */
static size_t tiles_of(const clscan_sort_plan *plan, size_t n) {
  return clscan__div_up(n, clscan__sort_tile(plan));
}
static size_t blocks_of(const clscan_sort_plan *plan, size_t n) {
  return clscan__div_up(CLSCAN__SORT_RADIX * tiles_of(plan, n), clscan__sort_tile(plan));
}

/* Bytes before the copies: the counts and the block sums. */
static size_t head_bytes(const clscan_sort_plan *plan, size_t n) {
  return 4 * (CLSCAN__SORT_RADIX * tiles_of(plan, n) + blocks_of(plan, n));
}

static size_t temp_bytes(const clscan_sort_plan *plan, size_t n) {
  return clscan__sort_pingpong(plan, head_bytes(plan, n), n, NULL, NULL);
}

static size_t zero_bytes(const clscan_sort_plan *plan, size_t n) {
  (void)plan;
  (void)n;
  return 0;
}

/* One buffer and element offset of a pass's source or destination. */
typedef struct side {
  cl_mem keys, values;
  cl_ulong keys_off, values_off;
} side;

/* One pass: count, scan the counts, scatter from `from` to `to`. */
static clscan_status pass(const clscan__sort_launch *l, const side *from, const side *to,
                          cl_uint shift, cl_uint mask) {
  const clscan_sort_plan *plan = l->plan;
  size_t local = plan->wg;
  cl_ulong n = l->n, tiles = tiles_of(plan, l->n), m = CLSCAN__SORT_RADIX * tiles;
  cl_ulong blocks = blocks_of(plan, l->n);
  cl_mem counts = l->temp;
  cl_ulong sums_off = m; /* the block sums follow the counts (in uints) */
  const clscan__karg count_args[] = {
      CLSCAN__ARG(from->keys), CLSCAN__ARG(from->keys_off), CLSCAN__ARG(n),    CLSCAN__ARG(shift),
      CLSCAN__ARG(mask),       CLSCAN__ARG(counts),         CLSCAN__ARG(tiles)};
  CLSCAN_RETURN_IF_ERROR(clscan__chain_call(l->chain, plan->k[COUNT], count_args, 7, tiles, local));
  const clscan__karg reduce_args[] = {CLSCAN__ARG(counts), CLSCAN__ARG(m), CLSCAN__ARG(counts),
                                      CLSCAN__ARG(sums_off)};
  CLSCAN_RETURN_IF_ERROR(
      clscan__chain_call(l->chain, plan->k[REDUCE], reduce_args, 4, blocks, local));
  const clscan__karg top_args[] = {CLSCAN__ARG(counts), CLSCAN__ARG(sums_off), CLSCAN__ARG(blocks)};
  CLSCAN_RETURN_IF_ERROR(clscan__chain_call(l->chain, plan->k[TOP], top_args, 3, 1, local));
  CLSCAN_RETURN_IF_ERROR(
      clscan__chain_call(l->chain, plan->k[DOWN], reduce_args, 4, blocks, local));
  const clscan__karg scatter_args[] = {CLSCAN__ARG(from->keys),
                                       CLSCAN__ARG(from->keys_off),
                                       CLSCAN__ARG(from->values),
                                       CLSCAN__ARG(from->values_off),
                                       CLSCAN__ARG(to->keys),
                                       CLSCAN__ARG(to->keys_off),
                                       CLSCAN__ARG(to->values),
                                       CLSCAN__ARG(to->values_off),
                                       CLSCAN__ARG(n),
                                       CLSCAN__ARG(shift),
                                       CLSCAN__ARG(mask),
                                       CLSCAN__ARG(counts),
                                       CLSCAN__ARG(tiles)};
  return clscan__chain_call(l->chain, plan->k[SCATTER], scatter_args, 13, tiles, local);
}

/* Every pass in turn, from the caller's buffers to the copies and back; after an odd number of
 * passes, the copies go back to the caller's buffers. */
static clscan_status enqueue(const clscan__sort_launch *l) {
  const clscan_sort_plan *plan = l->plan;
  side s[2] = {{l->keys, l->values, l->keys_off, l->values_off}, {l->temp, l->temp, 0, 0}};
  clscan__sort_pingpong(plan, head_bytes(plan, l->n), l->n, &s[1].keys_off, &s[1].values_off);
  for (unsigned p = 0; p < plan->passes; p++) {
    cl_uint shift = plan->begin_bit + 8 * p;
    cl_uint bits = plan->end_bit - shift < 8 ? plan->end_bit - shift : 8;
    CLSCAN_RETURN_IF_ERROR(pass(l, &s[p & 1], &s[(p + 1) & 1], shift, (1u << bits) - 1u));
  }
  if (plan->passes % 2 == 0)
    return CLSCAN_SUCCESS;
  cl_ulong n = l->n;
  cl_uint passes = plan->passes;
  cl_int from_words = 0;
  const clscan__karg args[] = {
      CLSCAN__ARG(s[0].keys),       CLSCAN__ARG(s[0].keys_off),   CLSCAN__ARG(s[0].values),
      CLSCAN__ARG(s[0].values_off), CLSCAN__ARG(s[1].keys),       CLSCAN__ARG(s[1].keys_off),
      CLSCAN__ARG(s[1].values),     CLSCAN__ARG(s[1].values_off), CLSCAN__ARG(n),
      CLSCAN__ARG(passes),          CLSCAN__ARG(from_words),      CLSCAN__ARG(l->temp)};
  return clscan__chain_call(l->chain, plan->k[FINISH], args, 12, clscan__sort_finish_groups(l->n),
                            CLSCAN__SORT_FINISH_WG);
}

const clscan__sort_algorithm clscan__algo_radix_sort = {
    .base =
        {
            .name = "lsd",
            .family = CLSCAN__FAMILY_SORT,
            .id = CLSCAN_SORT_LSD,
            .programs = programs,
        },
    .kernels = {[COUNT] = "sort_count",
                [REDUCE] = "sort_scan_reduce",
                [TOP] = "sort_scan_top",
                [DOWN] = "sort_scan_down",
                [SCATTER] = "sort_scatter",
                [FINISH] = "sort_finish"},
    .program = program,
    .temp_bytes = temp_bytes,
    .zero_bytes = zero_bytes,
    .enqueue = enqueue,
};
