/*
 * clscan kernels: reduce-then-scan (about 3n memory traffic; portable and deterministic).
 *
 * A fixed number of work-groups G each own a contiguous run of tiles. rts_reduce writes each
 * group's total; rts_spine, one work-group, turns the G totals into exclusive offsets (seeded
 * with the initial value); rts_scan scans each run seeded with its offset. The tile scan is
 * tile.cl's.
 *
 * Needs common.cl and tile.cl first.
 */

/* Group g's run of tiles: [first, last). */
ALWAYS_INLINE void group_tiles(ulong n, ulong tiles_per_group, ulong *first, ulong *last) {
  const ulong num_tiles = (n + TILE - 1) / TILE;
  *first = min((ulong)get_group_id(0) * tiles_per_group, num_tiles);
  *last = min(*first + tiles_per_group, num_tiles);
}

/* The total of this group's run of tiles, combined in order (every work-item gets it; in and
 * aux already at their offsets). Every work-item of the group must call it. */
ALWAYS_INLINE elem_t rts_run_total(const __global in_t *in, const __global uchar *aux, ulong n,
                                   ulong tiles_per_group, __local tile_scratch *scratch CLSCAN_XP) {
  ulong first, last;
  group_tiles(n, tiles_per_group, &first, &last);
  elem_t total = IDENTITY;
  for (ulong t = first; t < last; t++) {
    tile_items x;
    elem_t pre[CLSCAN_VPT], group_prefix;
    tile_load(in, aux CLSCAN_XA, n, t, &x, scratch);
    total = combine(total, tile_scan_local(&x, pre, &group_prefix, scratch CLSCAN_XA) CLSCAN_XA);
  }
  return total;
}

/* Writes the total of each group's run of tiles to partials[group]. aux: see common.cl. */
__kernel __attribute__((reqd_work_group_size(CLSCAN_WG, 1, 1))) void rts_reduce(
    const __global in_t *in, ulong in_off, const __global uchar *aux, ulong aux_off, ulong n,
    __global elem_t *partials, ulong partials_off, ulong tiles_per_group CLSCAN_XKP) {
  __local tile_scratch scratch;
  const elem_t total =
      rts_run_total(in + in_off, aux + aux_off * AUX_SIZE, n, tiles_per_group, &scratch CLSCAN_XA);
  if (get_local_id(0) == 0)
    partials[partials_off + get_group_id(0)] = total;
}

/*
 * Writes the exclusive scan of partials[0, count), seeded with the initial value, to offsets.
 * One work-group: each work-item reduces a run of partials, the run totals are scanned in local
 * memory (Hillis-Steele), and each work-item writes its run's offsets.
 */
__kernel __attribute__((reqd_work_group_size(CLSCAN_WG, 1, 1))) void rts_spine(
    const __global elem_t *partials, ulong partials_off, __global elem_t *offsets,
    ulong offsets_off, ulong count, val_t seed CLSCAN_XKP) {
  __local elem_t lanes[CLSCAN_WG];
  READ_SEED(seed);
  const uint lid = get_local_id(0);
  const ulong per = (count + CLSCAN_WG - 1) / CLSCAN_WG;
  const ulong begin = min(lid * per, count), end = min(begin + per, count);
  partials += partials_off;
  offsets += offsets_off;

  elem_t run = IDENTITY;
  for (ulong i = begin; i < end; i++)
    run = combine(run, partials[i] CLSCAN_XA);
  lanes[lid] = run;
  for (uint d = 1; d < CLSCAN_WG; d <<= 1) {
    barrier(CLK_LOCAL_MEM_FENCE);
    const elem_t y = lid >= d ? lanes[lid - d] : IDENTITY;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid >= d)
      run = combine(y, run CLSCAN_XA);
    lanes[lid] = run;
  }
  barrier(CLK_LOCAL_MEM_FENCE);

  elem_t acc = combine(CHAIN_SEED(seed), lid > 0 ? lanes[lid - 1] : IDENTITY CLSCAN_XA);
  for (ulong i = begin; i < end; i++) {
    const elem_t x = partials[i];
    offsets[i] = acc;
    acc = combine(acc, x CLSCAN_XA);
  }
}

/* Scans each group's run of tiles, seeded with offsets[group]. seed: the initial value, which
 * segmented scans apply at the output (see out_value in common.cl). */
__kernel __attribute__((reqd_work_group_size(CLSCAN_WG, 1, 1))) void rts_scan(
    const __global in_t *in, ulong in_off, const __global uchar *aux, ulong aux_off,
    __global val_t *out, ulong out_off, ulong n, const __global elem_t *offsets, ulong offsets_off,
    ulong tiles_per_group, int exclusive, val_t seed CLSCAN_XKP) {
  __local tile_scratch scratch;
  READ_SEED(seed);
  ulong first, last;
  group_tiles(n, tiles_per_group, &first, &last);
  in += in_off;
  aux += aux_off * AUX_SIZE;
  out += out_off;
  elem_t carry = offsets[offsets_off + get_group_id(0)];
  for (ulong t = first; t < last; t++) {
    tile_items x;
    elem_t pre[CLSCAN_VPT], group_prefix;
    tile_load(in, aux CLSCAN_XA, n, t, &x, &scratch);
    const elem_t total = tile_scan_local(&x, pre, &group_prefix, &scratch CLSCAN_XA);
    tile_store(out, n, t, &x, pre, combine(carry, group_prefix CLSCAN_XA), exclusive,
               seed CLSCAN_XA);
    carry = combine(carry, total CLSCAN_XA);
  }
}
