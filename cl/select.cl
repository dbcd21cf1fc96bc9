/*
 * clscan kernels: the selections' single pass in its GPU shape (select, partition, unique,
 * run-length encoding), the flag count fused with the scatter.
 *
 * Each work-group takes a ticket (its tile), computes the flag of each of the tile's TILE
 * elements into local memory (coalesced reads), counts them, publishes the count as its
 * aggregate, looks back for its exclusive prefix with the scan's status words and look-back
 * (status.cl's serial walker, or on NVIDIA lookback_warp.cl's warp-wide window reduced as a tree;
 * the state is the count of select_common.cl), publishes its
 * inclusive prefix, then compacts the selected elements' tile indices in local memory, so that
 * their stores to out[prefix + rank] are consecutive (coalesced). Only indices below out_capacity
 * are written. A predecessor that stays silent is counted from its input (and flags) by the
 * waiting work-group itself (the decoupled fallback), so the kernel terminates without
 * forward-progress guarantees; counts are integers, so the fallback's result is the owner's.
 *
 * Partition: the rejected elements go to total + (rejected before the tile) + rank, where total,
 * the number selected, comes from a count pre-pass (select_count_tiles, select_count_total) that
 * re-reads the flags (or, with a predicate, the input). Run-length encoding: the state carries
 * the index of the last run head, so the tile's first head closes the run entering the tile, the
 * other heads close the runs started within it, and the last tile closes the last run.
 *
 * The input element is read again in the scatter (from cache). Input and output never overlap
 * (the host refuses it). Needs common.cl, select_common.cl, status.cl and lookback_warp.cl first.
 */

#ifndef CLSCAN_WG
#define CLSCAN_WG 256
#endif
#ifndef CLSCAN_VPT
#define CLSCAN_VPT 16
#endif
#ifndef CLSCAN_SPIN
#define CLSCAN_SPIN 64
#endif
#ifndef CLSCAN_TEST_WITHHOLD
#define CLSCAN_TEST_WITHHOLD 0
#endif

/* Elements per work-item and per tile. */
#define ITEMS CLSCAN_VPT
#define TILE (CLSCAN_WG * ITEMS)

/* The work-group's shared state. */
typedef struct select_shared {
  uint idx[TILE]; /* tile indices: selected from the front, rejected (partition) from the back */
  uchar flag[TILE];
  uint scan[CLSCAN_WG];
  uint last; /* RUN_LENGTH_ENCODE: 1 + the tile index of the last head, 0 when none */
  ulong tile;
  long silent;
  int command;
  cnt_t prefix;
#if !CLSCAN_NV_PTX
  lookback_state lb;
#endif
} select_shared;

/* Exclusive sum of v over the work-group; *total receives the sum (barriers inside). */
ALWAYS_INLINE uint wg_exclusive(uint v, __local uint *s, uint *total) {
  const uint lid = get_local_id(0);
  s[lid] = v;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint d = 1; d < CLSCAN_WG; d <<= 1) {
    const uint t = lid >= d ? s[lid - d] : 0u;
    barrier(CLK_LOCAL_MEM_FENCE);
    s[lid] += t;
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  *total = s[CLSCAN_WG - 1];
  const uint r = s[lid] - v;
  barrier(CLK_LOCAL_MEM_FENCE);
  return r;
}

/* The aggregate of a tile whose first element is `base`: count and, for runs, the last head. */
ALWAYS_INLINE cnt_t tile_aggregate(ulong base, uint count, __local select_shared *sh) {
#if SEL_RLE
  return cnt_make(count, base + (sh->last ? sh->last - 1u : 0u));
#else
  return cnt_make(count, 0);
#endif
}

/* Counts tile t from its input (the fallback and the partition pre-pass); keeps no flags. */
ALWAYS_INLINE cnt_t tile_count(const __global in_t *in, const __global uchar *flags, ulong n,
                               ulong t, __local select_shared *sh CLSCAN_XP) {
  const uint lid = get_local_id(0);
  const ulong base = t * TILE;
  uint c = 0, last = 0;
  if (lid == 0)
    sh->last = 0;
  for (uint j = 0; j < ITEMS; j++) {
    const uint k = j * CLSCAN_WG + lid;
    if (base + k < n && sel_flag(in, flags, base + k CLSCAN_XA)) {
      c++;
      last = k + 1;
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE);
#if SEL_RLE
  atomic_max(&sh->last, last);
#endif
  uint total;
  wg_exclusive(c, sh->scan, &total);
  const cnt_t a = tile_aggregate(base, total, sh);
  barrier(CLK_LOCAL_MEM_FENCE);
  return a;
}

/* Finds tile t's exclusive prefix (t >= 1), counting silent predecessors itself. Work-item 0
 * walks status.cl's chain, or on NVIDIA warp 0 reads lookback_warp.cl's window of 32 status words
 * per round trip and reduces it as a tree (counts are exact); the whole group counts a silent
 * predecessor. The result is meaningful in work-item 0. */
ALWAYS_INLINE cnt_t tile_lookback(const __global in_t *in, const __global uchar *flags, ulong n,
                                  __global ulong *status, ulong t, ulong epoch,
                                  __local select_shared *sh CLSCAN_XP) {
  const uint lid = get_local_id(0);
#if CLSCAN_NV_PTX
  warp_lookback wl;
  warp_begin(&wl, t, 0); /* the tree keeps no cache */
#else
  if (lid == 0)
    lookback_begin(&sh->lb, t);
#endif
  for (;;) {
#if CLSCAN_NV_PTX
    if (lid < 32) {
      const int command = warp_lookback_run(status, epoch, &wl, CNT_IDENTITY CLSCAN_XA);
      if (lid == 0) {
        sh->command = command;
        sh->silent = wl.next;
      }
    }
#else
    if (lid == 0) {
      sh->command = lookback_run(&sh->lb, status, epoch, CLSCAN_SPIN, CNT_IDENTITY CLSCAN_XA);
      sh->silent = sh->lb.next;
    }
#endif
    barrier(CLK_LOCAL_MEM_FENCE);
    const int command = sh->command;
    const ulong silent = (ulong)sh->silent;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (command == LOOKBACK_DONE)
      break;
    const cnt_t fagg = tile_count(in, flags, n, silent, sh CLSCAN_XA);
    if (lid == 0) {
      status_publish(status, silent, epoch, STATE_AGGREGATE, fagg);
#if !CLSCAN_NV_PTX
      lookback_take(&sh->lb, fagg CLSCAN_XA);
#endif
    }
#if CLSCAN_NV_PTX
    if (lid < 32)
      warp_take(&wl, fagg CLSCAN_XA);
#endif
  }
#if CLSCAN_NV_PTX
  return wl.acc;
#else
  return sh->lb.acc;
#endif
}

/*
 * Selects from in[0, n) (offsets in elements) into out[0, out_capacity). Launch exactly
 * ceil(n / TILE) work-groups of CLSCAN_WG work-items. temp: the ticket counter (a uint at byte
 * 0), the partition's total (a ulong at byte 8, from select_count_total), and from byte 64 the
 * status words. lengths: run lengths (RUN_LENGTH_ENCODE). The last tile writes the count at byte
 * count_byte_off of `count`.
 */
__kernel __attribute__((reqd_work_group_size(CLSCAN_WG, 1, 1))) void select_single_pass(
    const __global in_t *in, ulong in_off, const __global uchar *flags, ulong flags_off,
    __global val_t *out, ulong out_off, ulong cap, __global len_t *lengths, ulong lengths_off,
    __global uchar *count, ulong count_byte_off, ulong n, __global uint *temp, uint ticket_base,
    ulong epoch CLSCAN_XP) {
  __local select_shared sh;
  __global ulong *status = (__global ulong *)((__global uchar *)temp + 64);
  const uint lid = get_local_id(0);
  in += in_off;
  flags += flags_off;
  out += out_off;
  lengths += lengths_off;

  if (lid == 0)
    sh.tile = atomic_inc(temp) - ticket_base;
  barrier(CLK_LOCAL_MEM_FENCE);
  const ulong tile = sh.tile, base = tile * TILE, tiles = (n + TILE - 1) / TILE;
  const uint valid = (uint)min((ulong)TILE, n - base);
#if CLSCAN_TEST_WITHHOLD
  const int withheld = tile % CLSCAN_TEST_WITHHOLD == 1;
#else
  const int withheld = 0;
#endif

  // Flags into local memory (coalesced), then each work-item counts ITEMS consecutive ones.
  if (lid == 0)
    sh.last = 0;
  for (uint j = 0; j < ITEMS; j++) {
    const uint k = j * CLSCAN_WG + lid;
    sh.flag[k] = k < valid ? (uchar)sel_flag(in, flags, base + k CLSCAN_XA) : (uchar)0;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  uint c = 0, last = 0;
  for (uint j = 0; j < ITEMS; j++) {
    const uint k = lid * ITEMS + j;
    if (sh.flag[k]) {
      c++;
      last = k + 1;
    }
  }
#if SEL_RLE
  atomic_max(&sh.last, last);
#endif
  uint selected;
  const uint rank0 = wg_exclusive(c, sh.scan, &selected);
  const cnt_t aggregate = tile_aggregate(base, selected, &sh);

  // Publish, look back, publish the inclusive prefix.
  if (lid == 0 && !withheld)
    status_publish(status, tile, epoch, tile == 0 ? STATE_PREFIX : STATE_AGGREGATE, aggregate);
  cnt_t prefix = CNT_IDENTITY;
  if (tile != 0)
    prefix = tile_lookback(in, flags, n, status, tile, epoch, &sh CLSCAN_XA);
  if (lid == 0) {
    if (tile != 0 && !withheld)
      status_publish(status, tile, epoch, STATE_PREFIX, cnt_combine(prefix, aggregate CLSCAN_XA));
    sh.prefix = prefix;
  }

  // Compact the tile indices: selected at their rank, rejected (partition) from the back.
  uint r = rank0;
  for (uint j = 0; j < ITEMS; j++) {
    const uint k = lid * ITEMS + j;
    if (sh.flag[k]) {
      sh.idx[r++] = k;
    } else if (SEL_PARTITION && k < valid) {
      sh.idx[TILE - 1u - (k - r)] = k;
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  prefix = sh.prefix;
  const ulong before = CNT_COUNT(prefix);

  // Scatter: consecutive ranks go to consecutive addresses.
  for (uint q = lid; q < selected; q += CLSCAN_WG) {
    const uint k = sh.idx[q];
    const ulong dst = before + q;
    if (dst < cap)
      out[dst] = sel_value(in, base + k CLSCAN_XA);
#if SEL_RLE
    // Head q closes the run before it: the tile's previous head, or the run entering the tile.
    if (dst > 0 && dst - 1 < cap) {
      const ulong prev = q > 0 ? base + sh.idx[q - 1] : prefix.p;
      lengths[dst - 1] = (len_t)(base + k - prev);
    }
#endif
  }
#if SEL_PARTITION
  const ulong total = ((__global ulong *)temp)[1];
  const ulong rejected_before = base - before;
  for (uint q = lid; q < valid - selected; q += CLSCAN_WG) {
    const ulong dst = total + rejected_before + q;
    if (dst < cap)
      out[dst] = sel_value(in, base + sh.idx[TILE - 1u - q] CLSCAN_XA);
  }
#endif

  // The last tile writes the count (and closes the last run).
  if (tile == tiles - 1 && lid == 0) {
    const cnt_t incl = cnt_combine(prefix, aggregate CLSCAN_XA);
    sel_write_count(count + count_byte_off, CNT_COUNT(incl));
#if SEL_RLE
    if (incl.c - 1 < cap)
      lengths[incl.c - 1] = (len_t)(n - incl.p);
#endif
  }
}

/* Partition pre-pass: work-group t counts tile t into counts[t] (ceil(n / TILE) work-groups). */
__kernel __attribute__((reqd_work_group_size(CLSCAN_WG, 1, 1))) void select_count_tiles(
    const __global in_t *in, ulong in_off, const __global uchar *flags, ulong flags_off, ulong n,
    __global ulong *temp, ulong counts_off CLSCAN_XP) {
  __global ulong *counts = temp + counts_off;
  __local select_shared sh;
  const cnt_t a = tile_count(in + in_off, flags + flags_off, n, get_group_id(0), &sh CLSCAN_XA);
  if (get_local_id(0) == 0)
    counts[get_group_id(0)] = CNT_COUNT(a);
}

/* Partition pre-pass: one work-group sums counts[0, tiles) into the ulong at byte 8 of temp. */
__kernel __attribute__((reqd_work_group_size(CLSCAN_WG, 1, 1))) void select_count_total(
    __global ulong *temp, ulong counts_off, ulong tiles) {
  const __global ulong *counts = temp + counts_off;
  __local ulong part[CLSCAN_WG];
  const uint lid = get_local_id(0);
  ulong s = 0;
  for (ulong t = lid; t < tiles; t += CLSCAN_WG)
    s += counts[t];
  part[lid] = s;
  barrier(CLK_LOCAL_MEM_FENCE);
  if (lid == 0) {
    ulong total = 0;
    for (uint i = 0; i < CLSCAN_WG; i++)
      total += part[i];
    temp[1] = total;
  }
}
