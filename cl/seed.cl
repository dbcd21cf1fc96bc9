/*
 * clscan kernels: the classic multi-level scan (GPU Gems 3, ch. 39; Blelloch 1990).
 *
 * Phase 1 scans each block in local memory and records the block's total; the totals are then
 * scanned with the same work-group scans (recursively, as many levels as n needs); phase 3
 * combines each block's offset into its elements. Two work-group scans are provided:
 *   Blelloch       up-sweep / down-sweep, in place, 2 elements per work-item, bank-conflict
 *                  padding; a block is 2 * CLSCAN_WG elements.
 *   Hillis-Steele  double-buffered, 1 element per work-item; a block is CLSCAN_WG elements.
 * The *_blocks kernels and add_block_offsets work on the input and output (level 0: input type,
 * map and segments in, values out); the *_sums kernels and add_sum_offsets work on the block
 * totals of the upper levels (scan states in and out, always exclusive).
 *
 * Segmented scans: the block totals are (value, flag) states, so the offsets carry the value since
 * the last segment start. add_block_offsets then combines a block's offset only into the elements
 * before the block's first segment start, and applies the initial value to every element.
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

/*
 * Blelloch's work-group scan of the block (xa at lid, xb at lid + CLSCAN_WG): *ea and *eb receive
 * the exclusive prefixes; returns the block's total. Every work-item must call it.
 */
ALWAYS_INLINE elem_t blelloch_block(__local elem_t *tmp, elem_t xa, elem_t xb, elem_t *ea,
                                    elem_t *eb CLSCAN_XP) {
  const uint lid = get_local_id(0);
  const uint ai = lid, bi = lid + CLSCAN_WG;
  tmp[CONFLICT_FREE(ai)] = xa;
  tmp[CONFLICT_FREE(bi)] = xb;

  // Up-sweep: build partial totals in place, left subtree before right.
  uint offset = 1;
  for (uint d = BLELLOCH_BLOCK >> 1; d > 0; d >>= 1) {
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid < d) {
      const uint l = offset * (2 * lid + 1) - 1, r = offset * (2 * lid + 2) - 1;
      tmp[CONFLICT_FREE(r)] = combine(tmp[CONFLICT_FREE(l)], tmp[CONFLICT_FREE(r)] CLSCAN_XA);
    }
    offset <<= 1;
  }

  // Read the block total, then clear the root for the down-sweep.
  barrier(CLK_LOCAL_MEM_FENCE);
  const elem_t total = tmp[CONFLICT_FREE(BLELLOCH_BLOCK - 1)];
  barrier(CLK_LOCAL_MEM_FENCE);
  if (lid == 0)
    tmp[CONFLICT_FREE(BLELLOCH_BLOCK - 1)] = IDENTITY;

  // Down-sweep: each right child gets (prefix from above) op (left subtree total).
  for (uint d = 1; d < BLELLOCH_BLOCK; d <<= 1) {
    offset >>= 1;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid < d) {
      const uint l = offset * (2 * lid + 1) - 1, r = offset * (2 * lid + 2) - 1;
      const elem_t left = tmp[CONFLICT_FREE(l)];
      tmp[CONFLICT_FREE(l)] = tmp[CONFLICT_FREE(r)];
      tmp[CONFLICT_FREE(r)] = combine(tmp[CONFLICT_FREE(r)], left CLSCAN_XA);
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  *ea = tmp[CONFLICT_FREE(ai)];
  *eb = tmp[CONFLICT_FREE(bi)];
  return total;
}

/*
 * Hillis-Steele work-group scan of x (one element per work-item) between two local buffers:
 * returns the exclusive prefix. Every work-item must call it. (The last work-item's prefix op x is
 * the block's total; the callers compute it in registers rather than copy it out of local memory,
 * a struct copy that Oclgrind cannot check.)
 */
ALWAYS_INLINE elem_t hillis_steele_block(__local elem_t (*buf)[CLSCAN_WG], elem_t x CLSCAN_XP) {
  const uint lid = get_local_id(0);
  buf[0][lid] = x;
  // Each step reads one buffer and writes the other, so no step overwrites what it reads.
  uint src = 0;
  for (uint off = 1; off < CLSCAN_WG; off <<= 1) {
    barrier(CLK_LOCAL_MEM_FENCE);
    const elem_t mine = buf[src][lid];
    buf[1 - src][lid] = lid >= off ? combine(buf[src][lid - off], mine CLSCAN_XA) : mine;
    src = 1 - src;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  // The inclusive result is in buf[src]; the exclusive one is its left neighbour.
  return lid > 0 ? buf[src][lid - 1] : IDENTITY;
}

/* Writes one level-0 result: the value of lead op (exclusive or inclusive prefix). */
ALWAYS_INLINE void store_value(__global val_t *out, ulong i, ulong n, elem_t lead, elem_t excl,
                               elem_t x, int exclusive, val_t seed CLSCAN_XP) {
  if (i >= n)
    return;
  const elem_t e = combine(lead, excl CLSCAN_XA);
  out[i] = out_value(e, x, combine(e, x CLSCAN_XA), exclusive, seed CLSCAN_XA);
}

/* Writes one upper-level result: lead op the exclusive prefix. */
ALWAYS_INLINE void store_state(__global elem_t *out, ulong i, ulong n, elem_t lead,
                               elem_t excl CLSCAN_XP) {
  if (i < n)
    out[i] = combine(lead, excl CLSCAN_XA);
}

/*
 * Level 0, Blelloch: scans blocks of 2 * CLSCAN_WG input elements into out. aux (from element
 * aux_off) holds a segmented scan's flags or keys. sums, when has_sums, receives each block's
 * total. seed is the initial value when one block covers n, else the identity (the offsets then
 * carry it). in and out may be the same buffer (each block is read before it is written).
 */
__kernel __attribute__((reqd_work_group_size(CLSCAN_WG, 1, 1))) void blelloch_scan_blocks(
    const __global in_t *in, ulong in_off, const __global uchar *aux, ulong aux_off,
    __global val_t *out, ulong out_off, ulong n, __global elem_t *sums, ulong sums_off,
    int has_sums, int exclusive, val_t seed CLSCAN_XKP) {
  __local elem_t tmp[CONFLICT_FREE(BLELLOCH_BLOCK)];
  READ_SEED(seed);
  const uint lid = get_local_id(0);
  const ulong base = (ulong)get_group_id(0) * BLELLOCH_BLOCK;
  in += in_off;
  aux += aux_off * AUX_SIZE;
  out += out_off;
  const ulong ia = base + lid, ib = base + lid + CLSCAN_WG;
  const elem_t xa = load_or_identity(in, aux CLSCAN_XA, ia, n),
               xb = load_or_identity(in, aux CLSCAN_XA, ib, n);
  elem_t ea, eb;
  const elem_t total = blelloch_block(tmp, xa, xb, &ea, &eb CLSCAN_XA);
  if (lid == 0 && has_sums)
    sums[sums_off + get_group_id(0)] = total;
  const elem_t lead = CHAIN_SEED(seed);
  store_value(out, ia, n, lead, ea, xa, exclusive, seed CLSCAN_XA);
  store_value(out, ib, n, lead, eb, xb, exclusive, seed CLSCAN_XA);
}

/* Upper levels, Blelloch: the exclusive scan of block totals, lead by CHAIN_SEED(seed). */
__kernel __attribute__((reqd_work_group_size(CLSCAN_WG, 1, 1))) void blelloch_scan_sums(
    const __global elem_t *in, ulong in_off, __global elem_t *out, ulong out_off, ulong n,
    __global elem_t *sums, ulong sums_off, int has_sums, val_t seed CLSCAN_XKP) {
  __local elem_t tmp[CONFLICT_FREE(BLELLOCH_BLOCK)];
  READ_SEED(seed);
  const uint lid = get_local_id(0);
  const ulong base = (ulong)get_group_id(0) * BLELLOCH_BLOCK;
  in += in_off;
  out += out_off;
  const ulong ia = base + lid, ib = base + lid + CLSCAN_WG;
  const elem_t xa = state_or_identity(in, ia, n), xb = state_or_identity(in, ib, n);
  elem_t ea, eb;
  const elem_t total = blelloch_block(tmp, xa, xb, &ea, &eb CLSCAN_XA);
  if (lid == 0 && has_sums)
    sums[sums_off + get_group_id(0)] = total;
  const elem_t lead = CHAIN_SEED(seed);
  store_state(out, ia, n, lead, ea CLSCAN_XA);
  store_state(out, ib, n, lead, eb CLSCAN_XA);
}

/* Level 0, Hillis-Steele: blocks of CLSCAN_WG elements; arguments as for blelloch_scan_blocks. */
__kernel __attribute__((reqd_work_group_size(CLSCAN_WG, 1, 1))) void hillis_steele_scan_blocks(
    const __global in_t *in, ulong in_off, const __global uchar *aux, ulong aux_off,
    __global val_t *out, ulong out_off, ulong n, __global elem_t *sums, ulong sums_off,
    int has_sums, int exclusive, val_t seed CLSCAN_XKP) {
  __local elem_t buf[2][CLSCAN_WG];
  READ_SEED(seed);
  const ulong i = (ulong)get_group_id(0) * CLSCAN_WG + get_local_id(0);
  in += in_off;
  aux += aux_off * AUX_SIZE;
  out += out_off;
  const elem_t x = load_or_identity(in, aux CLSCAN_XA, i, n);
  const elem_t excl = hillis_steele_block(buf, x CLSCAN_XA);
  if (get_local_id(0) == CLSCAN_WG - 1 && has_sums)
    sums[sums_off + get_group_id(0)] = combine(excl, x CLSCAN_XA);
  store_value(out, i, n, CHAIN_SEED(seed), excl, x, exclusive, seed CLSCAN_XA);
}

/* Upper levels, Hillis-Steele; arguments as for blelloch_scan_sums. */
__kernel __attribute__((reqd_work_group_size(CLSCAN_WG, 1, 1))) void hillis_steele_scan_sums(
    const __global elem_t *in, ulong in_off, __global elem_t *out, ulong out_off, ulong n,
    __global elem_t *sums, ulong sums_off, int has_sums, val_t seed CLSCAN_XKP) {
  __local elem_t buf[2][CLSCAN_WG];
  READ_SEED(seed);
  const ulong i = (ulong)get_group_id(0) * CLSCAN_WG + get_local_id(0);
  in += in_off;
  out += out_off;
  const elem_t x = state_or_identity(in, i, n);
  const elem_t excl = hillis_steele_block(buf, x CLSCAN_XA);
  if (get_local_id(0) == CLSCAN_WG - 1 && has_sums)
    sums[sums_off + get_group_id(0)] = combine(excl, x CLSCAN_XA);
  store_state(out, i, n, CHAIN_SEED(seed), excl CLSCAN_XA);
}

/*
 * Level 0, phase 3: combines each block's offset into its values, out[i] = offsets[i / block] op
 * out[i]. Segmented, only elements before the block's first segment start take the offset, and
 * every element takes the initial value seed. One work-group per block.
 */
__kernel __attribute__((reqd_work_group_size(CLSCAN_WG, 1, 1))) void add_block_offsets(
    __global val_t *out, ulong out_off, const __global uchar *aux, ulong aux_off, ulong n,
    const __global elem_t *offsets, ulong offsets_off, uint block, val_t seed CLSCAN_XKP) {
  READ_SEED(seed);
  const ulong b = get_group_id(0);
  const elem_t offset = offsets[offsets_off + b];
  out += out_off;
  aux += aux_off * AUX_SIZE;
#if CLSCAN_SEGMENTS
  // The block's first segment start (block when none).
  __local uint first_head;
  if (get_local_id(0) == 0)
    first_head = block;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint k = get_local_id(0); k < block; k += CLSCAN_WG) {
    const ulong i = b * block + k;
    if (i < n && is_head(aux CLSCAN_XA, i))
      atomic_min(&first_head, k);
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  const uint h = first_head;
  for (uint k = get_local_id(0); k < block; k += CLSCAN_WG) {
    const ulong i = b * block + k;
    if (i < n)
      out[i] =
          val_combine(seed, k < h ? val_combine(offset.v, out[i] CLSCAN_XA) : out[i] CLSCAN_XA);
  }
#else
  for (uint k = get_local_id(0); k < block; k += CLSCAN_WG) {
    const ulong i = b * block + k;
    if (i < n)
      out[i] = combine(offset, out[i] CLSCAN_XA);
  }
#endif
}

/* Upper levels, phase 3: sums[i] = offsets[i / block] op sums[i]. */
__kernel __attribute__((reqd_work_group_size(CLSCAN_WG, 1, 1))) void add_sum_offsets(
    __global elem_t *sums, ulong sums_off, ulong n, const __global elem_t *offsets,
    ulong offsets_off, uint block CLSCAN_XKP) {
  const ulong b = get_group_id(0);
  const elem_t offset = offsets[offsets_off + b];
  sums += sums_off;
  for (uint k = get_local_id(0); k < block; k += CLSCAN_WG) {
    const ulong i = b * block + k;
    if (i < n)
      sums[i] = combine(offset, sums[i] CLSCAN_XA);
  }
}
