/*
 * clscan kernels: the selections' single pass shaped for CPU devices (POCL), as
 * single_pass_cpu.cl is for the scan: one work-item per work-group and a tile of CLSCAN_CPU_TILE
 * elements, a plain loop that keeps the tile in the core's cache between its count and its
 * scatter. Tickets, status words, the strictly ordered look-back and the decoupled fallback are
 * the scan's (status.cl) with the count state of select_common.cl; see select.cl for what each
 * operation writes. Memory traffic: one read of the input (and flags), one write of the output,
 * plus a re-read of each tile from cache.
 *
 * Needs common.cl, select_common.cl and status.cl first.
 */

#ifndef CLSCAN_CPU_TILE
#define CLSCAN_CPU_TILE 32768
#endif
#ifndef CLSCAN_SPIN
#define CLSCAN_SPIN 1024
#endif
#ifndef CLSCAN_TEST_WITHHOLD
#define CLSCAN_TEST_WITHHOLD 0
#endif

/* Counts in[begin, end): the selected elements and, for runs, the last head. */
ALWAYS_INLINE cnt_t cpu_count(const __global in_t *in, const __global uchar *flags, ulong begin,
                              ulong end CLSCAN_XP) {
  ulong c = 0, last = 0;
  for (ulong i = begin; i < end; i++) {
    const uint f = sel_flag(in, flags, i CLSCAN_XA);
    c += f;
#if SEL_RLE
    last = f ? i : last;
#endif
  }
  return cnt_make(c, last);
}

/* Finds tile t's exclusive prefix (t >= 1), counting silent predecessors itself. */
ALWAYS_INLINE cnt_t cpu_lookback(const __global in_t *in, const __global uchar *flags, ulong n,
                                 __global ulong *status, ulong t, ulong epoch,
                                 __local lookback_state *lb CLSCAN_XP) {
  lookback_begin(lb, t);
  while (lookback_run(lb, status, epoch, CLSCAN_SPIN, CNT_IDENTITY CLSCAN_XA) ==
         LOOKBACK_FALLBACK) {
    const ulong begin = (ulong)lb->next * CLSCAN_CPU_TILE;
    const cnt_t v = cpu_count(in, flags, begin, min(begin + CLSCAN_CPU_TILE, n) CLSCAN_XA);
    status_publish(status, (ulong)lb->next, epoch, STATE_AGGREGATE, v);
    lookback_take(lb, v CLSCAN_XA);
  }
  return lb->acc;
}

/*
 * Selects from in[0, n) into out[0, cap). Launch ceil(n / CLSCAN_CPU_TILE) work-groups of one
 * work-item. Arguments as for select_single_pass (select.cl).
 */
__kernel __attribute__((reqd_work_group_size(1, 1, 1))) void select_single_pass_cpu(
    const __global in_t *in, ulong in_off, const __global uchar *flags, ulong flags_off,
    __global val_t *out, ulong out_off, ulong cap, __global len_t *lengths, ulong lengths_off,
    __global uchar *count, ulong count_byte_off, ulong n, __global uint *temp, uint ticket_base,
    ulong epoch CLSCAN_XP) {
  __local lookback_state lb;
  __global ulong *status = (__global ulong *)((__global uchar *)temp + 64);
  in += in_off;
  flags += flags_off;
  out += out_off;
  lengths += lengths_off;
  const ulong tile = atomic_inc(temp) - ticket_base;
  const ulong tiles = (n + CLSCAN_CPU_TILE - 1) / CLSCAN_CPU_TILE;
  const ulong begin = tile * CLSCAN_CPU_TILE, end = min(begin + CLSCAN_CPU_TILE, n);
#if CLSCAN_TEST_WITHHOLD
  const int withheld = tile % CLSCAN_TEST_WITHHOLD == 1;
#else
  const int withheld = 0;
#endif

  const cnt_t aggregate = cpu_count(in, flags, begin, end CLSCAN_XA);
  cnt_t prefix = CNT_IDENTITY;
  if (!withheld)
    status_publish(status, tile, epoch, tile == 0 ? STATE_PREFIX : STATE_AGGREGATE, aggregate);
  if (tile != 0) {
    prefix = cpu_lookback(in, flags, n, status, tile, epoch, &lb CLSCAN_XA);
    if (!withheld)
      status_publish(status, tile, epoch, STATE_PREFIX, cnt_combine(prefix, aggregate CLSCAN_XA));
  }

  // Scatter the tile (now in cache) without branching on the flags: every element is stored at
  // the next free slot, which the next selected element overwrites, but only below the tile's
  // end (its prefix plus its count, known now), so nothing outside the tile's own results is
  // touched and each slot ends with its element. Partition stores the rejected ones likewise.
  ulong dst = CNT_COUNT(prefix);
  const ulong end_sel = dst + CNT_COUNT(aggregate), lim = min(end_sel, cap);
#if SEL_PARTITION
  ulong rej = ((__global ulong *)temp)[1] + (begin - dst);
  const ulong rej_lim = min(rej + (end - begin) - CNT_COUNT(aggregate), cap);
#endif
#if SEL_RLE
  ulong prev = prefix.p;
#endif
  for (ulong i = begin; i < end; i++) {
    const uint f = sel_flag(in, flags, i CLSCAN_XA);
    const val_t v = sel_value(in, i CLSCAN_XA);
    if (dst < lim)
      out[dst] = v;
#if SEL_RLE
    // A head closes run dst - 1; other elements store a length there that the head after them
    // (within the tile, since dst < end_sel) overwrites.
    if (dst > 0 && dst < end_sel && dst - 1 < cap)
      lengths[dst - 1] = (len_t)(i - prev);
    prev = f ? i : prev;
#endif
#if SEL_PARTITION
    if (rej < rej_lim)
      out[rej] = v;
    rej += 1u - f;
#endif
    dst += f;
  }
  if (tile == tiles - 1) {
    sel_write_count(count + count_byte_off, dst);
#if SEL_RLE
    if (dst - 1 < cap)
      lengths[dst - 1] = (len_t)(n - prev);
#endif
  }
}

/* Partition pre-pass: work-group t counts tile t into counts[t]. */
__kernel __attribute__((reqd_work_group_size(1, 1, 1))) void select_count_tiles_cpu(
    const __global in_t *in, ulong in_off, const __global uchar *flags, ulong flags_off, ulong n,
    __global ulong *temp, ulong counts_off CLSCAN_XP) {
  __global ulong *counts = temp + counts_off;
  const ulong t = get_group_id(0), begin = t * CLSCAN_CPU_TILE;
  counts[t] = CNT_COUNT(
      cpu_count(in + in_off, flags + flags_off, begin, min(begin + CLSCAN_CPU_TILE, n) CLSCAN_XA));
}

/* Partition pre-pass: sums counts[0, tiles) into the ulong at byte 8 of temp (one work-item). */
__kernel __attribute__((reqd_work_group_size(1, 1, 1))) void select_count_total_cpu(
    __global ulong *temp, ulong counts_off, ulong tiles) {
  const __global ulong *counts = temp + counts_off;
  ulong total = 0;
  for (ulong t = 0; t < tiles; t++)
    total += counts[t];
  temp[1] = total;
}
