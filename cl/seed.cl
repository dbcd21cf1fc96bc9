/*
 * clscan kernels: the classic multi-level scan (GPU Gems 3, ch. 39; Blelloch 1990).
 *
 * Phase 1 scans each block in local memory and records the block's total; the totals are then
 * scanned with the same kernels (recursively, as many levels as n needs); phase 3 combines each
 * block's offset into its elements. Two work-group scans are provided:
 *   blelloch_scan_blocks       up-sweep / down-sweep, in place, 2 elements per work-item,
 *                              bank-conflict padding; a block is 2 * CLSCAN_WG elements.
 *   hillis_steele_scan_blocks  double-buffered Hillis-Steele, 1 element per work-item;
 *                              a block is CLSCAN_WG elements.
 *
 * Tuning parameter: CLSCAN_WG, the work-group size (a power of two). Needs common.cl first.
 */

#ifndef CLSCAN_WG
#define CLSCAN_WG 256
#endif

/* Local memory has 32 banks on the GPUs we target; one pad element per 32 avoids conflicts. */
#define LOG_NUM_BANKS 5
#define CONFLICT_FREE(i) ((i) + ((i) >> LOG_NUM_BANKS))
#define BLELLOCH_BLOCK (2 * CLSCAN_WG)

/* Writes a block's scan results: seed op (exclusive or inclusive prefix), for in-range items. */
inline void store_result(__global elem_t *out, ulong i, ulong n, elem_t seed, elem_t excl,
                         elem_t x, int exclusive) {
  if (i < n) out[i] = combine(seed, exclusive ? excl : combine(excl, x));
}

/*
 * Scans blocks of 2 * CLSCAN_WG elements with Blelloch's work-efficient algorithm.
 * in/out may be the same buffer (each block is read before it is written). sums, when not NULL
 * (has_sums != 0), receives each block's total, without the seed. seed is combined before every
 * result (the caller passes the identity, or the initial value when one block covers n).
 */
__kernel __attribute__((reqd_work_group_size(CLSCAN_WG, 1, 1))) void blelloch_scan_blocks(
    const __global elem_t *in, ulong in_off, __global elem_t *out, ulong out_off, ulong n,
    __global elem_t *sums, ulong sums_off, int has_sums, int exclusive, elem_t seed) {
  __local elem_t tmp[CONFLICT_FREE(BLELLOCH_BLOCK)];
  const uint lid = get_local_id(0);
  const ulong base = (ulong)get_group_id(0) * BLELLOCH_BLOCK;
  in += in_off;
  out += out_off;

  // Load two elements per work-item, padding past n with the identity.
  const uint ai = lid, bi = lid + CLSCAN_WG;
  const elem_t xa = load_or_identity(in, base + ai, n);
  const elem_t xb = load_or_identity(in, base + bi, n);
  tmp[CONFLICT_FREE(ai)] = xa;
  tmp[CONFLICT_FREE(bi)] = xb;

  // Up-sweep: build partial totals in place, left subtree before right.
  uint offset = 1;
  for (uint d = BLELLOCH_BLOCK >> 1; d > 0; d >>= 1) {
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid < d) {
      const uint l = offset * (2 * lid + 1) - 1, r = offset * (2 * lid + 2) - 1;
      tmp[CONFLICT_FREE(r)] = combine(tmp[CONFLICT_FREE(l)], tmp[CONFLICT_FREE(r)]);
    }
    offset <<= 1;
  }

  // Record the block total and clear the root for the down-sweep.
  barrier(CLK_LOCAL_MEM_FENCE);
  if (lid == 0) {
    if (has_sums) sums[sums_off + get_group_id(0)] = tmp[CONFLICT_FREE(BLELLOCH_BLOCK - 1)];
    tmp[CONFLICT_FREE(BLELLOCH_BLOCK - 1)] = IDENTITY;
  }

  // Down-sweep: each right child gets (prefix from above) op (left subtree total).
  for (uint d = 1; d < BLELLOCH_BLOCK; d <<= 1) {
    offset >>= 1;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid < d) {
      const uint l = offset * (2 * lid + 1) - 1, r = offset * (2 * lid + 2) - 1;
      const elem_t left = tmp[CONFLICT_FREE(l)];
      tmp[CONFLICT_FREE(l)] = tmp[CONFLICT_FREE(r)];
      tmp[CONFLICT_FREE(r)] = combine(tmp[CONFLICT_FREE(r)], left);
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE);

  // Write the exclusive or inclusive results.
  store_result(out, base + ai, n, seed, tmp[CONFLICT_FREE(ai)], xa, exclusive);
  store_result(out, base + bi, n, seed, tmp[CONFLICT_FREE(bi)], xb, exclusive);
}

/*
 * Scans blocks of CLSCAN_WG elements with the Hillis-Steele algorithm: log2(CLSCAN_WG) steps,
 * each combining element i - 2^k into element i, between two local buffers. Arguments as for
 * blelloch_scan_blocks.
 */
__kernel __attribute__((reqd_work_group_size(CLSCAN_WG, 1, 1))) void hillis_steele_scan_blocks(
    const __global elem_t *in, ulong in_off, __global elem_t *out, ulong out_off, ulong n,
    __global elem_t *sums, ulong sums_off, int has_sums, int exclusive, elem_t seed) {
  __local elem_t buf[2][CLSCAN_WG];
  const uint lid = get_local_id(0);
  const ulong i = (ulong)get_group_id(0) * CLSCAN_WG + lid;
  in += in_off;
  out += out_off;

  const elem_t x = load_or_identity(in, i, n);
  buf[0][lid] = x;

  // Each step reads one buffer and writes the other, so no step overwrites what it reads.
  uint src = 0;
  for (uint off = 1; off < CLSCAN_WG; off <<= 1) {
    barrier(CLK_LOCAL_MEM_FENCE);
    const elem_t mine = buf[src][lid];
    buf[1 - src][lid] = lid >= off ? combine(buf[src][lid - off], mine) : mine;
    src = 1 - src;
  }
  barrier(CLK_LOCAL_MEM_FENCE);

  // The inclusive result is in buf[src]; the exclusive one is its left neighbour.
  const elem_t excl = lid > 0 ? buf[src][lid - 1] : IDENTITY;
  if (lid == CLSCAN_WG - 1 && has_sums) sums[sums_off + get_group_id(0)] = buf[src][lid];
  store_result(out, i, n, seed, excl, x, exclusive);
}

/*
 * Combines each block's offset into its elements: out[i] = offsets[i / block] op out[i].
 * One work-group per block; each work-item handles block / CLSCAN_WG elements.
 */
__kernel __attribute__((reqd_work_group_size(CLSCAN_WG, 1, 1))) void add_block_offsets(
    __global elem_t *out, ulong out_off, ulong n, const __global elem_t *offsets,
    ulong offsets_off, uint block) {
  const ulong b = get_group_id(0);
  const elem_t offset = offsets[offsets_off + b];
  out += out_off;
  for (uint k = get_local_id(0); k < block; k += CLSCAN_WG) {
    const ulong i = b * block + k;
    if (i < n) out[i] = combine(offset, out[i]);
  }
}
