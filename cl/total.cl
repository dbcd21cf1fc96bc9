/*
 * clscan kernels: the total of a scan, written to a device buffer (clscan_run_args.total), so that
 * the next chunk of a stream can take it as its initial value without a host round trip.
 *
 * The total is the inclusive one, init op v[0] op ... op v[n-1] (v: the input after the map),
 * also for exclusive scans. One work-item runs each of two launches around the scan:
 *   phase 0, before an exclusive scan: saves v[n-1] to save[0] (an in-place scan overwrites it);
 *   phase 1, after the scan: writes out[n-1] (inclusive), out[n-1] op save[0] (exclusive), or
 *            the seed (n == 0) to total[0].
 * Only unsegmented scans have a total. Needs common.cl first.
 */

#if CLSCAN_SEGMENTS
#error "segmented scans have no total"
#endif

__kernel __attribute__((reqd_work_group_size(1, 1, 1))) void scan_total(
    const __global in_t *in, ulong in_off, const __global val_t *out, ulong out_off, ulong n,
    __global val_t *save, ulong save_off, __global val_t *total, ulong total_off, int exclusive,
    int phase, val_t seed CLSCAN_XKP) {
  READ_SEED(seed);
  const __global uchar *aux = (const __global uchar *)in; /* never read: not segmented */
  in += in_off;
  out += out_off;
  save += save_off;
  if (phase == 0) {
    save[0] = make_elem(in[n - 1], aux CLSCAN_XA, n - 1);
    return;
  }
  if (n == 0) {
    total[total_off] = seed;
  } else if (exclusive) {
    total[total_off] = val_combine(out[n - 1], save[0] CLSCAN_XA);
  } else {
    total[total_off] = out[n - 1];
  }
}
