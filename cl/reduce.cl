#if TILE_PACKED
/* Loads the VEC elements from index e (past n: the identity); full says the whole tile lies
 * inside the range. tile.cl's packed path (narrow types) keeps no load_vector of elements. */
ALWAYS_INLINE void reduce_load(const __global in_t *in, const __global uchar *aux CLSCAN_XP,
                               ulong n, ulong e, int full, elem_t xs[VEC]) {
  if (full) {
    in_elems u;
    u.v = ((const __global in_vec_t *)in)[e / VEC];
#pragma unroll
    for (uint k = 0; k < VEC; k++)
      xs[k] = u.e[k];
  } else {
#pragma unroll
    for (uint k = 0; k < VEC; k++)
      xs[k] = load_or_identity(in, aux CLSCAN_XA, e + k, n);
  }
}
#else
#define reduce_load load_vector
#endif

/*
 * clscan kernels: reductions (about n elements of memory traffic; deterministic).
 *
 * A reduction runs in two kernels with no atomics and no waiting between work-groups. First a
 * fixed number G of work-groups each reduce a contiguous part of the input to one partial: in
 * the GPU shape that is reduce_then_scan.cl's rts_reduce (a run of tile.cl tiles, 16-byte vector
 * loads, combined in a fixed order); in the CPU shape it is reduce_chunks below (one work-item
 * per work-group folding its chunk element by element; for exactly commutative operators the GPU
 * shape uses reduce_strided below instead). Then reduce_final, one work-group,
 * combines the G partials in order with the initial value and writes the one result. Every
 * combination is "earlier op later", so non-commutative operators reduce in order, and the same
 * n, descriptor and tuning give the same bits on every run.
 *
 * Needs common.cl first (and, for the GPU shape, tile.cl and reduce_then_scan.cl). Reductions are
 * never segmented, so elem_t is val_t here.
 */

#if CLSCAN_SEGMENTS
#error "reductions are not segmented"
#endif

/* The final kernel's work-group size (tile.cl's default where it is not included). */
#ifndef CLSCAN_WG
#define CLSCAN_WG 256
#endif

/*
 * CPU shape: work-group g (of one work-item) writes the total of in[g * per_group, (g + 1) *
 * per_group) within [0, n) to partials[partials_off + g]. A CPU runs each work-group as one loop,
 * so a plain sequential fold is the fastest ordered reduction there.
 */
__kernel __attribute__((reqd_work_group_size(1, 1, 1))) void reduce_chunks(
    const __global in_t *in, ulong in_off, ulong n, __global elem_t *partials, ulong partials_off,
    ulong per_group CLSCAN_XKP) {
  const ulong g = get_group_id(0);
  const ulong begin = min(g * per_group, n), end = min(begin + per_group, n);
  const __global uchar *aux = (const __global uchar *)in; /* never read: not segmented */
  in += in_off;
  elem_t total = IDENTITY;
  for (ulong i = begin; i < end; i++)
    total = combine(total, make_elem(in[i], aux CLSCAN_XA, i) CLSCAN_XA);
  partials[partials_off + g] = total;
}

#ifdef TILE
/*
 * GPU shape, for operators that are exact, associative and commutative: built-in operators on
 * integer values (whatever the input type and map). Any order of combination gives the same
 * bits for them, so each work-item folds its vectors of every tile of the group's run into one
 * register (tile.cl's coalesced layout and vector loads), and the work-group combines those
 * once at the end: no cross-lane work per vector and no barrier per tile. Other operators (float
 * values, user operators) use reduce_then_scan.cl's rts_reduce, which combines in order.
 */
__kernel __attribute__((reqd_work_group_size(CLSCAN_WG, 1, 1))) void reduce_strided(
    const __global in_t *in, ulong in_off, ulong n, __global elem_t *partials, ulong partials_off,
    ulong tiles_per_group CLSCAN_XKP) {
  __local tile_scratch scratch;
  const uint lid = get_local_id(0);
  const __global uchar *aux = (const __global uchar *)in; /* never read: not segmented */
  ulong first, last;
  group_tiles(n, tiles_per_group, &first, &last);
  in += in_off;
  elem_t acc = IDENTITY;
  for (ulong t = first; t < last; t++) {
    const ulong base = t * TILE;
    const int full = base + TILE <= n;
    elem_t xs[CLSCAN_VPT][VEC];
#pragma unroll
    for (uint j = 0; j < CLSCAN_VPT; j++)
      reduce_load(in, aux CLSCAN_XA, n, base + (ulong)vector_index(lid, j) * VEC, full, xs[j]);
#pragma unroll
    for (uint j = 0; j < CLSCAN_VPT; j++) {
#pragma unroll
      for (uint k = 0; k < VEC; k++)
        acc = combine(acc, xs[j][k] CLSCAN_XA);
    }
  }
  elem_t excl, total, group_prefix;
  group_scan(acc, lid % SG, &scratch, &excl, &total CLSCAN_XA);
  total = tile_totals(total, &group_prefix, &scratch CLSCAN_XA);
  if (lid == 0)
    partials[partials_off + get_group_id(0)] = total;
}
#endif

/*
 * Writes seed op partials[0] op ... op partials[count - 1] to out[out_off] (count may be 0: the
 * seed alone). One work-group: each work-item folds a contiguous run of partials, and work-item
 * 0 folds the runs in order (count is a few hundred or thousand, so the serial step is short).
 */
__kernel __attribute__((reqd_work_group_size(CLSCAN_WG, 1, 1))) void reduce_final(
    const __global elem_t *partials, ulong partials_off, ulong count, __global val_t *out,
    ulong out_off, val_t seed CLSCAN_XKP) {
  __local elem_t lanes[CLSCAN_WG];
  READ_SEED(seed);
  const uint lid = get_local_id(0);
  const ulong per = (count + CLSCAN_WG - 1) / CLSCAN_WG;
  const ulong begin = min(lid * per, count), end = min(begin + per, count);
  partials += partials_off;
  elem_t run = IDENTITY;
  for (ulong i = begin; i < end; i++)
    run = combine(run, partials[i] CLSCAN_XA);
  lanes[lid] = run;
  barrier(CLK_LOCAL_MEM_FENCE);
  if (lid == 0) {
    elem_t total = CHAIN_SEED(seed);
    for (uint l = 0; l < CLSCAN_WG; l++) {
      if ((ulong)l * per < count)
        total = combine(total, lanes[l] CLSCAN_XA);
    }
    out[out_off] = total;
  }
}
