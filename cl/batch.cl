/*
 * clscan kernels: the batched scans that the segmented scan does not cover, rows with padding
 * between them and columns (clscan_scan_batched()). A batched scan is a set of `lines` lines of
 * `length` elements; element i of line l is at l * line_step + i * elem_step. Rows: a line is a
 * row (line_step the row stride, elem_step 1); columns: a line is a column (line_step 1,
 * elem_step the row stride).
 *
 * This is the simple kernel: one work-item scans one line, in order, from the initial value. For
 * columns, adjacent work-items read adjacent elements of a row, so the loads are coalesced; for
 * rows with padding, each work-item walks its own row. It does the scan's work and moves its
 * bytes once, but a few long lines leave most of the device idle. Each element is read before the
 * same work-item writes it, so in place is race-free. Needs common.cl first, without segments.
 */

__kernel void batch_lines(const __global in_t *in, ulong in_off, __global val_t *out, ulong out_off,
                          ulong lines, ulong length, ulong line_step, ulong elem_step, val_t seed,
                          int exclusive) {
  const ulong line = (ulong)get_group_id(0) * get_local_size(0) + get_local_id(0);
  if (line >= lines)
    return;
  in += in_off + line * line_step;
  out += out_off + line * line_step;
  val_t acc = seed;
  for (ulong i = 0; i < length; i++) {
    const ulong at = i * elem_step;
    const val_t x = MAP(in[at], i);
    const val_t next = val_combine(acc, x CLSCAN_XA);
    out[at] = exclusive ? acc : next;
    acc = next;
  }
}
