/*
 * clscan kernels: the selections' single pass shaped for CPU devices (POCL), as
 * single_pass_cpu.cl is for the scan: one work-item per work-group and a tile of CLSCAN_CPU_TILE
 * elements, a plain loop that keeps the tile in the core's cache between its count and its
 * scatter. Tickets, status words, the strictly ordered look-back and the decoupled fallback are
 * the scan's (status.cl) with the count state of select_common.cl; see select.cl for what each
 * operation writes. Memory traffic: one read of the input (and flags), one write of the output,
 * plus a re-read of each tile from cache. The status words are status.cl's status_t (32-bit ones
 * where the device lacks 64-bit atomics, CLSCAN_STATUS32); nothing else needs 64-bit atomics
 * (select.cl). Its loops take eight elements an iteration, for Mesa rusticl's llvmpipe
 * (cpu_count).
 *
 * Needs common.cl, select_common.cl and status.cl first.
 */

#ifndef CLSCAN_CPU_TILE
#define CLSCAN_CPU_TILE 32768
#endif
#ifndef CLSCAN_SPIN
#define CLSCAN_SPIN 1024
#endif

/* Counts element i into c and, for runs, its index into *last if it is a head. */
ALWAYS_INLINE void cpu_count1(const __global in_t *in, const __global uchar *flags, ulong i,
                              ulong *c, ulong *last CLSCAN_XP) {
  const uint f = sel_flag(in, flags, i CLSCAN_XA);
  *c += f;
#if SEL_RLE
  *last = f ? i : *last;
#endif
}

/* Counts in[begin, end): the selected elements and, for runs, the last head. Eight elements an
 * iteration, fully unrolled, then the rest: Mesa rusticl's llvmpipe allows a work-item 65535 loop
 * iterations in all, and unrolled ones do not count (tests/rusticl/loop_limit.c); a tile's count
 * and scatter one element an iteration would take 65536. */
ALWAYS_INLINE cnt_t cpu_count(const __global in_t *in, const __global uchar *flags, ulong begin,
                              ulong end CLSCAN_XP) {
  ulong c = 0, last = 0, i = begin;
  for (; i + 8 <= end; i += 8) {
#pragma unroll
    for (uint k = 0; k < 8; k++)
      cpu_count1(in, flags, i + k, &c, &last CLSCAN_XA);
  }
  for (; i < end; i++)
    cpu_count1(in, flags, i, &c, &last CLSCAN_XA);
  return cnt_make(c, last);
}

/* Finds tile t's exclusive prefix (t >= 1), counting silent predecessors itself. */
ALWAYS_INLINE cnt_t cpu_lookback(const __global in_t *in, const __global uchar *flags, ulong n,
                                 __global status_t *status, ulong t, ulong epoch,
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

/* Where a tile's scatter stands (see select_single_pass_cpu). */
typedef struct cpu_cursor {
  ulong dst;     /* the next selected element's slot */
  ulong end_sel; /* the tile's end in the output: its prefix plus its count */
  ulong lim;     /* min(end_sel, cap) */
  ulong rej;     /* PARTITION: the next rejected element's slot (SEL_REVERSE: its rank r) */
  ulong rej_lim; /* PARTITION: the end of the tile's rejected ones, at most cap */
  ulong rej_end; /* SEL_REVERSE: n - 1, where rank r goes to rej_end - r */
  ulong prev;    /* RUN_LENGTH_ENCODE: the index of the last head */
} cpu_cursor;

/* Scatters element i (see select_single_pass_cpu): stores it at the next free slot (partition:
 * also at the next rejected one) and moves the cursor on. */
ALWAYS_INLINE void cpu_scatter1(const __global in_t *in, const __global uchar *flags,
                                __global val_t *out, __global len_t *lengths, __global val_t *rej,
                                ulong cap, ulong i, cpu_cursor *q CLSCAN_XP) {
  const uint f = sel_flag(in, flags, i CLSCAN_XA);
  const val_t v = sel_value(in, i CLSCAN_XA);
  if (q->dst < q->lim)
    out[q->dst] = v;
#if SEL_RLE
  // A head closes run dst - 1; other elements store a length there that the head after them
  // (within the tile, since dst < end_sel) overwrites.
  if (q->dst > 0 && q->dst < q->end_sel && q->dst - 1 < cap)
    lengths[q->dst - 1] = (len_t)(i - q->prev);
  q->prev = f ? i : q->prev;
#endif
#if SEL_REVERSE
  if (q->rej < q->rej_lim)
    rej[q->rej_end - q->rej] = v;
  q->rej += 1u - f;
#elif SEL_PARTITION
  if (q->rej < q->rej_lim)
    rej[q->rej] = v;
  q->rej += 1u - f;
#endif
  q->dst += f;
}

/* Publishes the tile's aggregate (tile 0's is its inclusive prefix), looks back for its exclusive
 * prefix and publishes its inclusive prefix (a withheld tile publishes nothing). Returns the
 * exclusive prefix. */
ALWAYS_INLINE cnt_t cpu_tile_prefix(const __global in_t *in, const __global uchar *flags, ulong n,
                                    __global status_t *status, ulong tile, ulong epoch,
                                    cnt_t aggregate, int withheld,
                                    __local lookback_state *lb CLSCAN_XP) {
  cnt_t prefix = CNT_IDENTITY;
  if (!withheld)
    status_publish(status, tile, epoch, tile == 0 ? STATE_PREFIX : STATE_AGGREGATE, aggregate);
  if (tile != 0) {
    prefix = cpu_lookback(in, flags, n, status, tile, epoch, lb CLSCAN_XA);
    if (!withheld)
      status_publish(status, tile, epoch, STATE_PREFIX, cnt_combine(prefix, aggregate CLSCAN_XA));
  }
  return prefix;
}

/* Places the cursor at the start of tile [begin, end), whose exclusive prefix and aggregate are
 * known. */
ALWAYS_INLINE void cpu_cursor_begin(cpu_cursor *q, cnt_t prefix, cnt_t aggregate, ulong cap,
                                    ulong begin, ulong end, ulong rej_cap, uint split,
                                    __global uint *temp, ulong n) {
  q->dst = CNT_COUNT(prefix);
  q->end_sel = q->dst + CNT_COUNT(aggregate);
  q->lim = min(q->end_sel, cap);
#if SEL_REVERSE
  // The rejected run by rank (begin - dst come before the tile), each at n - 1 - rank: all n
  // fit (the host checks cap >= n).
  (void)split;
  (void)temp;
  q->rej = begin - q->dst;
  q->rej_lim = q->rej + (end - begin) - CNT_COUNT(aggregate);
  q->rej_end = n - 1;
#elif SEL_PARTITION
  // The rejected run: after the partition's total (a plain load of what select_count_total_cpu
  // stored, no atomics), or from 0 in a buffer of their own (split).
  (void)n;
  q->rej = (split ? 0 : ((__global ulong *)temp)[1]) + (begin - q->dst);
  q->rej_lim = min(q->rej + (end - begin) - CNT_COUNT(aggregate), rej_cap);
#endif
#if SEL_RLE
  q->prev = prefix.p;
#endif
}

/* Scatters in[begin, end) (now in cache) without branching on the flags: every element is stored
 * at the next free slot, which the next selected element overwrites, but only below the tile's
 * end (its prefix plus its count, known now), so nothing outside the tile's own results is
 * touched and each slot ends with its element. Partition stores the rejected ones likewise.
 * Eight elements an iteration, as cpu_count (the loop limit of rusticl's llvmpipe). */
ALWAYS_INLINE void cpu_scatter(const __global in_t *in, const __global uchar *flags,
                               __global val_t *out, __global len_t *lengths, __global val_t *rej,
                               ulong cap, ulong begin, ulong end, cpu_cursor *q CLSCAN_XP) {
  ulong i = begin;
  for (; i + 8 <= end; i += 8) {
#pragma unroll
    for (uint k = 0; k < 8; k++)
      cpu_scatter1(in, flags, out, lengths, rej, cap, i + k, q CLSCAN_XA);
  }
  for (; i < end; i++)
    cpu_scatter1(in, flags, out, lengths, rej, cap, i, q CLSCAN_XA);
}

/* The last tile: writes the count (the cursor's slot after the scatter) and, for run-length
 * encoding, closes the last run. */
ALWAYS_INLINE void cpu_finish_count(__global uchar *count, __global len_t *lengths, ulong cap,
                                    ulong n, const cpu_cursor *q) {
  sel_write_count(count, q->dst);
#if SEL_RLE
  if (q->dst - 1 < cap)
    lengths[q->dst - 1] = (len_t)(n - q->prev);
#endif
}

/*
 * Selects from in[0, n) into out[0, cap). Launch ceil(n / CLSCAN_CPU_TILE) work-groups of one
 * work-item. Arguments as for select_single_pass (select.cl).
 */
__kernel __attribute__((reqd_work_group_size(1, 1, 1))) void select_single_pass_cpu(
    const __global in_t *in, ulong in_off, const __global uchar *flags, ulong flags_off,
    __global val_t *out, ulong out_off, ulong cap, __global len_t *lengths, ulong lengths_off,
    __global val_t *rej, ulong rej_off, ulong rej_cap, uint split, __global uchar *count,
    ulong count_byte_off, ulong n, __global uint *temp, uint ticket_base, ulong epoch CLSCAN_XP) {
  __local lookback_state lb;
  __global status_t *status = (__global status_t *)((__global uchar *)temp + 64);
  in += in_off;
  flags += flags_off;
  out += out_off;
  lengths += lengths_off;
  rej += rej_off;
  const ulong tile = atomic_inc(temp) - ticket_base;
  const ulong tiles = (n + CLSCAN_CPU_TILE - 1) / CLSCAN_CPU_TILE;
  // A ticket past the last tile has nothing to do: only a SIMD lane of Mesa rusticl's llvmpipe
  // that holds no work-item gets one, and its look-back would use up the work-item's loop
  // iterations (see single_pass_cpu.cl; tests/rusticl/empty_lanes.c).
  if (tile >= tiles)
    return;
  const ulong begin = tile * CLSCAN_CPU_TILE, end = min(begin + CLSCAN_CPU_TILE, n);
  const int withheld = tile_withheld(tile);

  const cnt_t aggregate = cpu_count(in, flags, begin, end CLSCAN_XA);
  const cnt_t prefix =
      cpu_tile_prefix(in, flags, n, status, tile, epoch, aggregate, withheld, &lb CLSCAN_XA);

  // Scatter the tile (now in cache) behind the cursor: its prefix and count are known now.
  cpu_cursor q;
  cpu_cursor_begin(&q, prefix, aggregate, cap, begin, end, rej_cap, split, temp, n);
  cpu_scatter(in, flags, out, lengths, rej, cap, begin, end, &q CLSCAN_XA);
  if (tile == tiles - 1)
    cpu_finish_count(count + count_byte_off, lengths, cap, n, &q);
}

/* Partition pre-pass: work-group t counts tile t into counts[t]. */
__kernel __attribute__((reqd_work_group_size(1, 1, 1))) void select_count_tiles_cpu(
    const __global in_t *in, ulong in_off, const __global uchar *flags, ulong flags_off, ulong n,
    __global ulong *temp, ulong counts_off CLSCAN_XP) {
  __global ulong *counts = temp + counts_off;
  const ulong t = get_group_id(0), begin = t * CLSCAN_CPU_TILE;
  const cnt_t a =
      cpu_count(in + in_off, flags + flags_off, begin, min(begin + CLSCAN_CPU_TILE, n) CLSCAN_XA);
  counts[t] = SEL_COUNT_TO_WORD((ulong)CNT_COUNT(a));
}

/* Partition pre-pass: sums counts[0, tiles) into the ulong at byte 8 of temp (one work-item). */
__kernel __attribute__((reqd_work_group_size(1, 1, 1))) void select_count_total_cpu(
    __global ulong *temp, ulong counts_off, ulong tiles) {
  const __global ulong *counts = temp + counts_off;
  ulong total = 0;
  for (ulong t = 0; t < tiles; t++)
    total += SEL_WORD_TO_COUNT(counts[t]);
  temp[1] = total;
}
