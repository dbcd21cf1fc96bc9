/*
 * clscan kernels: reduce-then-scan (about 3n memory traffic; portable and deterministic).
 *
 * A fixed number of work-groups G each own a contiguous run of tiles. rts_reduce writes each
 * group's total; rts_scan, launched once with one group over the G totals, turns them into
 * exclusive offsets (seeded with the initial value); rts_scan, launched again with G groups,
 * scans each run seeded with its offset. The tile scan is tile.cl's.
 *
 * Needs common.cl and tile.cl first.
 */

/* Group g's run of tiles: [first, last). */
inline void group_tiles(ulong n, ulong tiles_per_group, ulong *first, ulong *last) {
  const ulong num_tiles = (n + TILE - 1) / TILE;
  *first = min((ulong)get_group_id(0) * tiles_per_group, num_tiles);
  *last = min(*first + tiles_per_group, num_tiles);
}

/* Writes the total of each group's run of tiles to partials[group]. */
__kernel __attribute__((reqd_work_group_size(CLSCAN_WG, 1, 1))) void rts_reduce(
    const __global elem_t *in, ulong in_off, ulong n, __global elem_t *partials,
    ulong partials_off, ulong tiles_per_group) {
  __local tile_scratch scratch;
  ulong first, last;
  group_tiles(n, tiles_per_group, &first, &last);
  in += in_off;
  elem_t total = IDENTITY;
  for (ulong t = first; t < last; t++) {
    elem_t x[CLSCAN_VPT][VEC], pre[CLSCAN_VPT], group_prefix;
    tile_load(in, n, t, x);
    total = combine(total, tile_scan_local(x, pre, &group_prefix, &scratch));
  }
  if (get_local_id(0) == 0) partials[partials_off + get_group_id(0)] = total;
}

/*
 * Scans each group's run of tiles, seeded with offsets[group] when has_offsets, else with seed.
 */
__kernel __attribute__((reqd_work_group_size(CLSCAN_WG, 1, 1))) void rts_scan(
    const __global elem_t *in, ulong in_off, __global elem_t *out, ulong out_off, ulong n,
    const __global elem_t *offsets, ulong offsets_off, int has_offsets, elem_t seed,
    ulong tiles_per_group, int exclusive) {
  __local tile_scratch scratch;
  ulong first, last;
  group_tiles(n, tiles_per_group, &first, &last);
  in += in_off;
  out += out_off;
  elem_t carry = has_offsets ? offsets[offsets_off + get_group_id(0)] : seed;
  for (ulong t = first; t < last; t++) {
    elem_t x[CLSCAN_VPT][VEC], pre[CLSCAN_VPT], group_prefix;
    tile_load(in, n, t, x);
    const elem_t total = tile_scan_local(x, pre, &group_prefix, &scratch);
    tile_store(out, n, t, x, pre, combine(carry, group_prefix), exclusive);
    carry = combine(carry, total);
  }
}
