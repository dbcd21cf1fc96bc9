/*
 * clscan kernels: reductions (about n elements of memory traffic; deterministic).
 *
 * No work-group waits for another to run. In the GPU shape a reduction is one launch: a fixed
 * number G of work-groups each reduce a contiguous run of tile.cl tiles (16-byte vector loads) to
 * a partial and publish it, and the last to finish folds the G partials in order (see below):
 * reduce_strided for exactly commutative operators, reduce_ordered (reduce_then_scan.cl's tile
 * reduction) for the others. In the CPU shape it is two: reduce_chunks (one work-item per
 * work-group folding its chunk element by element) writes G partials, and reduce_final, one
 * work-group, combines them in order with the initial value and writes the one result (it also
 * writes the initial value alone for an empty reduction, in either shape). Every combination is
 * "earlier op later", so non-commutative operators reduce in order, and the same n, descriptor
 * and tuning give the same bits on every run.
 *
 * Needs common.cl first (and, for the GPU shape, tile.cl, reduce_then_scan.cl and status.cl).
 * Reductions are never segmented, so elem_t is val_t here.
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
/* ---------------------------------------------------------------------------------------------
 * GPU shape: one launch. Each work-group reduces its run of tiles, publishes the partial in
 * status.cl's words (as tile g's aggregate, in this launch's epoch) and takes a ticket; the
 * work-group that takes the launch's last ticket folds the G partials in order with the initial
 * value and writes the result. Its polls wait only for partials whose publishers have already
 * taken their tickets, that is, finished publishing: they wait for the words to become visible,
 * never for another work-group to run, so no forward-progress guarantee is needed. temp holds the
 * ticket counter (a uint at byte 0) and, from byte REDUCE_STATUS_OFFSET, the status words;
 * ticket_base is the counter's value before this launch (src/temp.c).
 * ------------------------------------------------------------------------------------------- */
#define REDUCE_STATUS_OFFSET 64

/* The partials' status words in temp. */
ALWAYS_INLINE __global status_t *reduce_status(__global uint *temp) {
  return (__global status_t *)((__global uchar *)temp + REDUCE_STATUS_OFFSET);
}

/* Publishes the group's partial (work-item 0's) and takes a ticket; returns 1 in every work-item
 * of the group that took the launch's last ticket. Every work-item must call it. */
ALWAYS_INLINE int reduce_publish(elem_t partial, __global uint *temp, uint ticket_base, ulong epoch,
                                 __local uint *last) {
  if (get_local_id(0) == 0) {
    status_publish(reduce_status(temp), get_group_id(0), epoch, STATE_AGGREGATE, partial);
    mem_fence(CLK_GLOBAL_MEM_FENCE);
    *last = atomic_inc(temp) - ticket_base == (uint)get_num_groups(0) - 1;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  return *last != 0;
}

/* Partials the fold reads per round trip: each work-item issues the loads of up to
 * REDUCE_FOLD_BATCH status words before it looks at any of them, so that their latencies overlap
 * (a poll that sees no partial yet polls that word again). */
#ifndef REDUCE_FOLD_BATCH
#define REDUCE_FOLD_BATCH 8
#endif

/* The last work-group: seed op partial[0] op ... op partial[G - 1] into out[out_off]. Each
 * work-item folds a contiguous run of partials, and the runs are combined in work-item order. */
ALWAYS_INLINE void reduce_fold_once(__global uint *temp, ulong epoch, __global val_t *out,
                                    ulong out_off, elem_t seed,
                                    __local tile_scratch *scratch CLSCAN_XP) {
  const uint lid = get_local_id(0);
  const ulong groups = get_num_groups(0), per = (groups + CLSCAN_WG - 1) / CLSCAN_WG;
  const ulong begin = min(lid * per, groups), end = min(begin + per, groups);
  __global status_t *status = reduce_status(temp);
  elem_t run = IDENTITY;
  for (ulong g0 = begin; g0 < end; g0 += REDUCE_FOLD_BATCH) {
    const uint count = (uint)min((ulong)REDUCE_FOLD_BATCH, end - g0);
    ulong w[REDUCE_FOLD_BATCH][STATUS_WORDS];
#pragma unroll
    for (uint k = 0; k < REDUCE_FOLD_BATCH; k++) {
      if (k < count)
        status_load_words(&status[(g0 + k) * STATUS_WORDS], w[k]);
    }
#pragma unroll
    for (uint k = 0; k < REDUCE_FOLD_BATCH; k++) {
      if (k < count) {
        elem_t v;
        if (status_decode(w[k], epoch, &v) != STATE_AGGREGATE) {
          while (status_read(status, g0 + k, epoch, &v) != STATE_AGGREGATE)
            ;
        }
        run = combine(run, v CLSCAN_XA);
      }
    }
  }
  elem_t excl, total, group_prefix;
  group_scan(run, lid % SG, scratch, &excl, &total CLSCAN_XA);
  total = tile_totals(total, &group_prefix, scratch CLSCAN_XA);
  if (lid == 0)
    out[out_off] = combine(seed, total CLSCAN_XA);
}

/* Measurement only: REDUCE_TEST_FOLD_REPEAT > 1 makes the last work-group fold that many times
 * (the same result each time), so that the fold's share of a launch shows as a difference. */
#ifndef REDUCE_TEST_FOLD_REPEAT
#define REDUCE_TEST_FOLD_REPEAT 1
#endif

/* The last work-group's fold (see reduce_fold_once). */
ALWAYS_INLINE void reduce_fold(__global uint *temp, ulong epoch, __global val_t *out, ulong out_off,
                               elem_t seed, __local tile_scratch *scratch CLSCAN_XP) {
  for (uint r = 0; r < REDUCE_TEST_FOLD_REPEAT; r++) {
    reduce_fold_once(temp, epoch, out, out_off, seed, scratch CLSCAN_XA);
    barrier(CLK_LOCAL_MEM_FENCE);
  }
}

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

/* REDUCE_PIPELINE 1: each work-item issues the loads of its group's next tile before it folds
 * the current one, so that its loads stay in flight from tile to tile, at the cost of a second
 * tile's registers. On by default where a work-item's tile holds at most 32 registers of values
 * (int32 at 256 x 8: on the H200 the int32 sum went from 0.2425-0.2428 to 0.2413-0.2416 ms per call
 * in batches of ten, and int64 at 128 x 16, 64 registers, from 0.4772 to 0.4814 with it);
 * -DREDUCE_PIPELINE=0 or 1 overrides (docs/performance.md). */
#ifndef REDUCE_PIPELINE
#if CLSCAN_TYPE != CLSCAN_USER_TYPE && CLSCAN_VPT * VEC * ((VAL_SIZE + 3) / 4) <= 32
#define REDUCE_PIPELINE 1
#else
#define REDUCE_PIPELINE 0
#endif
#endif

/* Loads a work-item's vectors of tile t. */
ALWAYS_INLINE void strided_load(const __global in_t *in, ulong n, ulong t,
                                elem_t xs[CLSCAN_VPT][VEC] CLSCAN_XP) {
  const uint lid = get_local_id(0);
  const __global uchar *aux = (const __global uchar *)in; /* never read: not segmented */
  const ulong base = t * TILE;
  const int full = base + TILE <= n;
#pragma unroll
  for (uint j = 0; j < CLSCAN_VPT; j++)
    reduce_load(in, aux CLSCAN_XA, n, base + (ulong)vector_index(lid, j) * VEC, full, xs[j]);
}

/* Folds a work-item's loaded vectors onto acc. */
ALWAYS_INLINE elem_t strided_fold(elem_t acc, elem_t xs[CLSCAN_VPT][VEC] CLSCAN_XP) {
#pragma unroll
  for (uint j = 0; j < CLSCAN_VPT; j++) {
#pragma unroll
    for (uint k = 0; k < VEC; k++)
      acc = combine(acc, xs[j][k] CLSCAN_XA);
  }
  return acc;
}

/*
 * For operators that are exact, associative and commutative: built-in operators on integer
 * values (whatever the input type and map). Any order of combination gives the same bits for
 * them, so each work-item folds its vectors of every tile of the group's run into one register
 * (tile.cl's coalesced layout and vector loads), and the work-group combines those once at the
 * end: no cross-lane work per vector and no barrier per tile. Other operators (float values,
 * user operators) use reduce_ordered below.
 */
ALWAYS_INLINE elem_t strided_run_total(const __global in_t *in, ulong n, ulong tiles_per_group,
                                       __local tile_scratch *scratch CLSCAN_XP) {
  const uint lid = get_local_id(0);
  ulong first, last;
  group_tiles(n, tiles_per_group, &first, &last);
  elem_t acc = IDENTITY;
#if REDUCE_PIPELINE
  elem_t a[CLSCAN_VPT][VEC], b[CLSCAN_VPT][VEC];
  if (first < last)
    strided_load(in, n, first, a CLSCAN_XA);
  for (ulong t = first; t < last; t += 2) {
    if (t + 1 < last)
      strided_load(in, n, t + 1, b CLSCAN_XA);
    acc = strided_fold(acc, a CLSCAN_XA);
    if (t + 1 >= last)
      break;
    if (t + 2 < last)
      strided_load(in, n, t + 2, a CLSCAN_XA);
    acc = strided_fold(acc, b CLSCAN_XA);
  }
#else
  for (ulong t = first; t < last; t++) {
    elem_t xs[CLSCAN_VPT][VEC];
    strided_load(in, n, t, xs CLSCAN_XA);
    acc = strided_fold(acc, xs CLSCAN_XA);
  }
#endif
  elem_t excl, total, group_prefix;
  group_scan(acc, lid % SG, scratch, &excl, &total CLSCAN_XA);
  return tile_totals(total, &group_prefix, scratch CLSCAN_XA);
}

__kernel __attribute__((reqd_work_group_size(CLSCAN_WG, 1, 1))) void reduce_strided(
    const __global in_t *in, ulong in_off, ulong n, __global uint *temp, uint ticket_base,
    ulong epoch, ulong tiles_per_group, __global val_t *out, ulong out_off, val_t seed CLSCAN_XKP) {
  __local tile_scratch scratch;
  __local uint last;
  const elem_t partial = strided_run_total(in + in_off, n, tiles_per_group, &scratch CLSCAN_XA);
  if (!reduce_publish(partial, temp, ticket_base, epoch, &last))
    return;
  READ_SEED(seed);
  reduce_fold(temp, epoch, out, out_off, CHAIN_SEED(seed), &scratch CLSCAN_XA);
}

/* Any operator: each group's run of tiles combined in order (reduce_then_scan.cl's tile
 * reduction), then the ordered fold of the partials. */
__kernel __attribute__((reqd_work_group_size(CLSCAN_WG, 1, 1))) void reduce_ordered(
    const __global in_t *in, ulong in_off, ulong n, __global uint *temp, uint ticket_base,
    ulong epoch, ulong tiles_per_group, __global val_t *out, ulong out_off, val_t seed CLSCAN_XKP) {
  __local tile_scratch scratch;
  __local uint last;
  const __global uchar *aux = (const __global uchar *)in; /* never read: not segmented */
  const elem_t partial = rts_run_total(in + in_off, aux, n, tiles_per_group, &scratch CLSCAN_XA);
  if (!reduce_publish(partial, temp, ticket_base, epoch, &last))
    return;
  READ_SEED(seed);
  reduce_fold(temp, epoch, out, out_off, CHAIN_SEED(seed), &scratch CLSCAN_XA);
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
