/*
 * clscan kernels: the selections' portable multi-pass path (no atomics). select_mark writes each
 * element's flag (0 or 1, a uint8) into a temporary array; the host scans it exclusively into
 * ulong positions with one of the scan algorithms (Blelloch, Hillis-Steele, reduce-then-scan);
 * select_scatter writes each selected element at its position (and, for partition, each rejected
 * one at total + its rejected rank, at its rejected rank in a buffer of their own, or at n - 1 -
 * its rejected rank with SEL_REVERSE); for
 * run-length encoding it writes each run's start into a temporary array, and select_lengths turns
 * the starts into lengths. One work-item per element. The temporary arrays are regions of one
 * buffer: mark from byte mark_off, pos and starts from ulong pos_off and starts_off.
 *
 * Needs common.cl and select_common.cl first.
 */

/* mark[i] = the flag of element i, for i < n, and 0 up to `padded` (the scan's vector loads read
 * whole 16-byte vectors). */
__kernel void select_mark(const __global in_t *in, ulong in_off, const __global uchar *flags,
                          ulong flags_off, ulong n, ulong padded, __global uchar *temp,
                          ulong mark_off CLSCAN_XP) {
  const ulong i = get_global_id(0);
  if (i < n)
    temp[mark_off + i] = (uchar)sel_flag(in + in_off, flags + flags_off, i CLSCAN_XA);
  else if (i < padded)
    temp[mark_off + i] = 0;
}

/* The number selected: the last position plus the last flag. */
ALWAYS_INLINE ulong multi_total(const __global uchar *mark, const __global ulong *pos, ulong n) {
  return pos[n - 1] + mark[n - 1];
}

/* Scatters element i (n >= 1); writes the count unless runs are encoded (select_lengths does).
 * Partition writes a rejected element to rej[rej_off + dst], dst < rej_cap: after the total in
 * `out` (split 0) or from 0 in a buffer of their own (split 1), or (SEL_REVERSE) from the end of
 * `out` backwards. */
__kernel void select_scatter(const __global in_t *in, ulong in_off, __global uchar *temp,
                             ulong mark_off, ulong pos_off, ulong starts_off, ulong n,
                             __global val_t *out, ulong out_off, ulong cap, __global val_t *rej,
                             ulong rej_off, ulong rej_cap, uint split, __global uchar *count,
                             ulong count_byte_off CLSCAN_XP) {
  const ulong i = get_global_id(0);
  if (i >= n)
    return;
  const __global uchar *mark = temp + mark_off;
  const __global ulong *pos = (const __global ulong *)temp + pos_off;
  __global ulong *starts = (__global ulong *)temp + starts_off;
  in += in_off;
  out += out_off;
  const ulong total = multi_total(mark, pos, n);
  const ulong p = pos[i];
  if (mark[i]) {
    if (p < cap)
      out[p] = sel_value(in, i CLSCAN_XA);
#if SEL_RLE
    // Starts up to index cap: run cap - 1's length needs the start of run cap.
    if (p <= cap)
      starts[p] = i;
#endif
  } else if (SEL_PARTITION) {
    // i - p rejected elements come before element i.
    const ulong dst = SEL_REVERSE ? n - 1 - (i - p) : (split ? 0 : total) + (i - p);
    if (dst < rej_cap)
      rej[rej_off + dst] = sel_value(in, i CLSCAN_XA);
  }
#if !SEL_RLE
  if (i == 0)
    sel_write_count(count + count_byte_off, total);
#endif
}

/* Run-length encoding: lengths[k] = (start of run k + 1, or n) - start of run k, for k below
 * min(runs, cap); writes the count. */
__kernel void select_lengths(__global uchar *temp, ulong mark_off, ulong pos_off, ulong starts_off,
                             ulong n, __global len_t *lengths, ulong lengths_off, ulong cap,
                             __global uchar *count, ulong count_byte_off) {
  const ulong k = get_global_id(0);
  const __global uchar *mark = temp + mark_off;
  const __global ulong *pos = (const __global ulong *)temp + pos_off;
  const __global ulong *starts = (const __global ulong *)temp + starts_off;
  const ulong runs = multi_total(mark, pos, n);
  if (k == 0)
    sel_write_count(count + count_byte_off, runs);
  if (k < runs && k < cap)
    lengths[lengths_off + k] = (len_t)((k + 1 < runs ? starts[k + 1] : n) - starts[k]);
}
