/*
 * clscan kernels: the selections' single pass in its GPU shape (select, partition, unique,
 * run-length encoding), the flag count fused with the scatter.
 *
 * Each work-group takes a ticket (its tile of TILE = CLSCAN_WG x ITEMS elements; on NVIDIA some
 * selections take their group id instead, SEL_GROUP_TILE). The tile is read in vectors of SEL_VEC
 * elements: VEC (16 bytes of the wider of the input and output types, common.cl) where the host
 * guarantees that the input's and the flags' offsets are multiples of VEC (CLSCAN_VECTOR_IO=1)
 * and a work-item's ITEMS are whole vectors, else 1 (the scalar path: unaligned offsets, user
 * types). Work-items form lane groups of SEL_SG (a warp of 32 on NVIDIA, whose ballot gives a
 * row's flags at once; elsewhere up to 32 work-items, whose flags are ORed into a local word);
 * lane group g holds the g-th of NG consecutive chunks of the tile, in VECS = ITEMS / SEL_VEC rows
 * of SEL_SG vectors: lane l's vector j covers the tile's elements (e * SEL_SG + l) * SEL_VEC + k,
 * k < SEL_VEC, with e = g * VECS + j (ENTRY_OF; every load coalesced). Select by flags loads one
 * uchar vector of flags per vector, and its values only when one of them is set (partition:
 * always); a predicate is applied per element after the vector load; unique and run-length
 * encoding compare each element with its predecessor, which is in the vector except for the first
 * element's, one extra (cached) scalar load. The partial last tile loads element by element. The
 * work-item keeps its ITEMS values in registers with their flags.
 *
 * Entry e = ENTRY_OF(j, g) holds the SEL_VEC masks of row j of lane group g, mask k having lane
 * l's bit set when component k of its vector is selected; the entries are in tile order, and
 * within an entry the elements are ordered by lane, then component. One work-group scan of the
 * entries' counts (the popcounts of their masks) gives each entry's offset, and an element's
 * tile-local rank is its entry's offset, plus the selected components of the lanes below it (each
 * mask ANDed with the lanes below), plus its own selected components below it (on NVIDIA, but
 * for select by flags, the same from each warp's count and its rows' ballots, SEL_WARP_RANK). The
 * work-group publishes its count as its aggregate, writes every selected element into local
 * memory at its rank (partition: every rejected one after them, in order; with vector loads,
 * padded against bank conflicts, SEL_STAGE_PAD), looks back for its exclusive prefix with the
 * scan's status words and look-back (status.cl's serial walker, or on NVIDIA lookback_warp.cl's
 * warp-wide window reduced as a tree; the state is the count of select_common.cl), publishes its
 * inclusive prefix, and then writes the tile's selected run to out[prefix, prefix + selected) from
 * local memory, consecutive work-items to consecutive addresses (coalesced stores; with vector
 * loads, one aligned vector of SEL_VEC elements per work-item between an unaligned lead and tail,
 * SEL_VEC_STORE). Only indices below out_capacity are written. A predecessor that stays silent
 * is counted from its input (and flags) by the waiting work-group itself (the decoupled fallback,
 * with the same vector loads), so the kernel terminates without forward-progress guarantees;
 * counts are integers, so the fallback's result is the owner's.
 *
 * Partition: the rejected elements go to total + (rejected before the tile) + rank, where total,
 * the number selected, comes from a count pre-pass (select_count_tiles, select_count_total) that
 * re-reads the flags (or, with a predicate, the input); into two buffers, to (rejected before the
 * tile) + rank of the second, with no pre-pass; reversed (SEL_REVERSE), to n - 1 - ((rejected
 * before the tile) + rank), with no pre-pass, staged in reverse so that the tile's rejected run
 * still leaves local memory in ascending addresses. Run-length encoding: the state carries
 * the index of the last run head, so the tile's first head closes the run entering the tile, the
 * other heads close the runs started within it, and the last tile closes the last run; the heads'
 * tile indices are staged beside the values (ushorts, SEL_HEAD16).
 *
 * Status words: status.cl's status_t, 64-bit, or 32-bit where the device lacks 64-bit atomics
 * (CLSCAN_STATUS32); the warp window of lookback_warp.cl reads either through status_read(). The
 * rest needs no 64-bit atomics: the ticket is a 32-bit atomic, the partition's total and per-tile
 * counts are plain stores read by a later launch.
 *
 * Input and output never overlap (the host refuses it). Needs common.cl, select_common.cl,
 * status.cl and lookback_warp.cl first.
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
#ifndef CLSCAN_VECTOR_IO
#define CLSCAN_VECTOR_IO 1
#endif

/* Elements per work-item and per tile. */
#define ITEMS CLSCAN_VPT
#define TILE (CLSCAN_WG * ITEMS)

/* Elements per vector load, and vectors per work-item. */
#if CLSCAN_VECTOR_IO && VEC > 1 && ITEMS % VEC == 0
#define SEL_VEC VEC
#else
#define SEL_VEC 1
#endif
#define VECS (ITEMS / SEL_VEC)

/* Lane groups: a warp on NVIDIA, else up to 32 work-items; NG of them per work-group. */
#if CLSCAN_NV_PTX || CLSCAN_WG >= 32
#define SEL_SG 32
#else
#define SEL_SG CLSCAN_WG
#endif
#define NG (CLSCAN_WG / SEL_SG)
/* The entry of row j of lane group g: each lane group's rows are consecutive in the tile. */
#define ENTRY_OF(j, g) ((g)*VECS + (j))
/* The tile index of the first element of lane l's vector j in lane group g. */
#define VEC_FIRST(j, g, l) ((ENTRY_OF(j, g) * SEL_SG + (l)) * SEL_VEC)
/* One entry per row of a lane group, in tile order: SEL_VEC 32-bit masks (one per component of
 * the row's vectors); each work-item scans CHUNK entries. */
#define ENTRIES (VECS * NG)
#define CHUNK ((ENTRIES + CLSCAN_WG - 1) / CLSCAN_WG)
/* The work-group scan's local words: one per warp on NVIDIA, one per work-item elsewhere. */
#if CLSCAN_NV_PTX
#define PARTS NG
#else
#define PARTS CLSCAN_WG
#endif
#if ITEMS > 32
#error "CLSCAN_VPT: a work-item keeps at most 32 elements (its flags are the bits of a uint)"
#endif

/* What counting a tile needs (the fallback and the partition pre-pass). */
typedef struct count_shared {
  uint last; /* RUN_LENGTH_ENCODE: 1 + the tile index of the last head, 0 when none */
  uint part[PARTS];
} count_shared;

#if CLSCAN_NV_PTX
/* Sum of v over the work-group, in every work-item (one barrier; the caller's next barrier frees
 * part). */
ALWAYS_INLINE uint group_sum(uint v, __local uint *part) {
  const uint lid = get_local_id(0);
  uint x = v;
#pragma unroll
  for (uint d = 16; d > 0; d >>= 1)
    x += shfl_down_u32(x, d);
  if ((lid & 31u) == 0)
    part[lid >> 5] = x;
  barrier(CLK_LOCAL_MEM_FENCE);
  uint s = 0;
  for (uint g = 0; g < NG; g++)
    s += part[g];
  return s;
}

#else
/* Sum of v over the work-group, in every work-item (a tree in local memory; the caller's next
 * barrier frees s). */
ALWAYS_INLINE uint group_sum(uint v, __local uint *s) {
  const uint lid = get_local_id(0);
  s[lid] = v;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint d = CLSCAN_WG / 2; d > 0; d >>= 1) {
    if (lid < d)
      s[lid] += s[lid + d];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  return s[0];
}

#endif

/* Loads element i: returns its flag, and where keep is set and the selection needs its value
 * (select by flags: only a selected one's, partition: every one's), stores the value in *v. */
ALWAYS_INLINE uint load_flag(const __global in_t *in, const __global uchar *flags, ulong i,
                             val_t *v, int keep CLSCAN_XP) {
#if SEL_RUNS
  *v = sel_value(in, i CLSCAN_XA);
  return i == 0 || !sel_equal(sel_value(in, i - 1 CLSCAN_XA), *v CLSCAN_XA);
#elif CLSCAN_SELECT_PRED
  *v = sel_value(in, i CLSCAN_XA);
  return clscan_user_pred(USER_IN_VAL(*v), i CLSCAN_XA) != 0;
#else
  const uint f = flags[i] != 0;
  if (keep && (f || SEL_PARTITION))
    *v = sel_value(in, i CLSCAN_XA);
  return f;
#endif
}

/* Loads the SEL_VEC elements from index i (those below n) element by element: returns their flags
 * as bits k, their values in v[k] as load_flag() stores them. */
ALWAYS_INLINE uint load_partial(const __global in_t *in, const __global uchar *flags, ulong i,
                                ulong n, val_t *v, int keep CLSCAN_XP) {
  uint bits = 0;
#pragma unroll
  for (uint k = 0; k < SEL_VEC; k++) {
    if (i + k < n)
      bits |= load_flag(in, flags, i + k, &v[k], keep CLSCAN_XA) << k;
  }
  return bits;
}

#if SEL_VEC > 1
/* A vector of inputs, and of flags, seen as their elements. */
typedef union sel_in_elems {
  in_vec_t v;
  in_t e[SEL_VEC];
} sel_in_elems;
typedef union sel_val_elems {
  val_vec_t v;
  val_t e[SEL_VEC];
} sel_val_elems;
typedef CLSCAN_CAT(uchar, SEL_VEC) flag_vec_t;
typedef union sel_flag_elems {
  flag_vec_t v;
  uchar e[SEL_VEC];
} sel_flag_elems;

/* Maps vector vi (elements vi * SEL_VEC and up) into v. */
ALWAYS_INLINE void load_values(const __global in_t *in, ulong vi, val_t *v CLSCAN_XP) {
  sel_in_elems u;
  u.v = ((const __global in_vec_t *)in)[vi];
#pragma unroll
  for (uint k = 0; k < SEL_VEC; k++)
    v[k] = MAP(u.e[k], vi * SEL_VEC + k);
}
#endif

/* Loads vector vi, elements vi * SEL_VEC + k (all below n), with vector loads: returns their flags
 * as bits k, their values in v[k] as load_flag() stores them. A run's first element is compared
 * with its predecessor, one scalar load; the others with their neighbours in the vector. (The
 * kernels pass vector indices, so that the addresses of a work-item's vectors differ by
 * constants.) */
ALWAYS_INLINE uint load_vector(const __global in_t *in, const __global uchar *flags, ulong vi,
                               val_t *v, int keep CLSCAN_XP) {
#if SEL_VEC == 1
  return load_flag(in, flags, vi, v, keep CLSCAN_XA);
#else
  const ulong i = vi * SEL_VEC;
  uint bits = 0;
#if SEL_RUNS
  load_values(in, vi, v CLSCAN_XA);
  // Element i - 1, or for i == 0 element 0 (read, never compared: element 0 is a head).
  const val_t prev = sel_value(in, i > 0 ? i - 1 : 0 CLSCAN_XA);
  bits = i == 0 || !sel_equal(prev, v[0] CLSCAN_XA);
#pragma unroll
  for (uint k = 1; k < SEL_VEC; k++)
    bits |= (uint)!sel_equal(v[k - 1], v[k] CLSCAN_XA) << k;
#elif CLSCAN_SELECT_PRED
  load_values(in, vi, v CLSCAN_XA);
#pragma unroll
  for (uint k = 0; k < SEL_VEC; k++)
    bits |= (uint)(clscan_user_pred(USER_IN_VAL(v[k]), i + k CLSCAN_XA) != 0) << k;
#else
  sel_flag_elems f;
  f.v = ((const __global flag_vec_t *)flags)[vi];
#pragma unroll
  for (uint k = 0; k < SEL_VEC; k++)
    bits |= (uint)(f.e[k] != 0) << k;
  if (keep && (bits || SEL_PARTITION))
    load_values(in, vi, v CLSCAN_XA);
#endif
  return bits;
#endif
}

/* Counts tile t from its input (the fallback and the partition pre-pass), with the single pass's
 * loads; keeps no flags. */
ALWAYS_INLINE cnt_t tile_count(const __global in_t *in, const __global uchar *flags, ulong n,
                               ulong t, __local count_shared *cs CLSCAN_XP) {
  const uint lid = get_local_id(0);
  const ulong base = t * TILE;
  const int full = base + TILE <= n;
  const ulong vbase = t * (TILE / SEL_VEC) + lid;
  uint c = 0, last = 0;
  if (lid == 0)
    cs->last = 0;
  for (uint j = 0; j < VECS; j++) {
    const uint k = (j * CLSCAN_WG + lid) * SEL_VEC;
    val_t x[SEL_VEC];
    uint bits = 0;
    // (The scalar loads stay guarded one by one, so that the compiler does not hoist them all.)
    if (SEL_VEC > 1 && full)
      bits = load_vector(in, flags, vbase + j * CLSCAN_WG, x, 0 CLSCAN_XA);
    else if (base + k < n)
      bits = load_partial(in, flags, base + k, n, x, 0 CLSCAN_XA);
    c += popcount(bits);
    last = bits ? k + 32u - clz(bits) : last;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
#if SEL_RLE
  atomic_max(&cs->last, last);
#endif
  const uint total = group_sum(c, cs->part);
  const cnt_t a = cnt_make(total, base + (cs->last ? cs->last - 1u : 0u));
  barrier(CLK_LOCAL_MEM_FENCE);
  return a;
}

#define COUNT_SHARED(sh) (&(sh)->cnt)

/* Where the element of rank r is staged. With vector loads a work-item's components go to
 * neighbouring ranks, so that consecutive work-items' stores (and the vector stores' reads) would
 * fall into the same banks; SEL_STAGE_PAD puts padding after every 128 bytes, which spreads them:
 * 4 bytes for elements of 1 to 4 bytes, one element for 8 bytes (1/32 and 1/16 more staging).
 * SEL_VEC_STORE: the selected run leaves local memory in vectors (store_run). Both are on by
 * default except for run-length encoding, which ran faster without them on the H200
 * (docs/performance.md); -DSEL_STAGE_PAD=0 or 1 and -DSEL_VEC_STORE=0 or 1 override. */
#ifndef SEL_STAGE_PAD
#define SEL_STAGE_PAD (!SEL_RLE)
#endif
#ifndef SEL_VEC_STORE
#define SEL_VEC_STORE (!SEL_RLE)
#endif
#if SEL_STAGE_PAD && SEL_VEC > 1
#define STAGE_RUN (128 / VAL_SIZE)
#define STAGE_GAP (VAL_SIZE >= 4 ? 1 : 4 / VAL_SIZE)
#define STAGE_AT(r) ((r) + (r) / STAGE_RUN * STAGE_GAP)
#define STAGED (TILE + TILE / STAGE_RUN * STAGE_GAP)
#define HEAD_AT(r) ((r) + (r) / 32)
#define HEADS (TILE + TILE / 32)
#else
#define STAGE_AT(r) (r)
#define STAGED TILE
#define HEAD_AT(r) (r)
#define HEADS TILE
#endif

/* Run-length encoding stages each head's tile index beside its value: a ushort (a tile has at
 * most 32768 elements: 1024 work-items of 32), so that the tile takes 2 bytes per element fewer
 * (select_api.c's gpu_tile() counts 2). SEL_HEAD16=0: a uint, the earlier staging (which fits
 * NVIDIA's local memory with at most 20 int32 per work-item of 256: CLSCAN_TILE_VPT=5). */
#ifndef SEL_HEAD16
#define SEL_HEAD16 1
#endif
#if SEL_HEAD16
typedef ushort head_t;
#if TILE > 65536
#error "SEL_HEAD16: a tile index must fit in a ushort"
#endif
#else
typedef uint head_t;
#endif

/* SEL_WARP_RANK (NVIDIA): the ranks come from each warp's count and its rows' ballots, in
 * registers, instead of from the entries' masks and offsets in local memory (one barrier and the
 * work-group scan fewer, and for run-length encoding no local atomic per work-item). On by default
 * on NVIDIA except for select by flags: on an H100 (int32, n = 2^28, two rounds) it took unique
 * from 0.470 / 0.467 to 0.447 / 0.451 ms, run-length encoding from 0.576 / 0.574 to 0.558 / 0.563
 * and select by predicate from 0.541 / 0.539 to 0.532 / 0.533, but select by flags at 50 %, which
 * takes its tile from the ticket, from 0.610 to 0.658 / 0.663 (with the group id as its tile
 * 0.609, as without; docs/performance.md). -DSEL_WARP_RANK=0 or 1 overrides. */
#ifndef SEL_WARP_RANK
#define SEL_WARP_RANK (CLSCAN_NV_PTX && (CLSCAN_SELECT_PRED || CLSCAN_SELECT_OP != 0))
#endif
#if SEL_WARP_RANK && !CLSCAN_NV_PTX
#error "SEL_WARP_RANK needs warp ballots (CLSCAN_NV_PTX)"
#endif

#if SEL_WARP_RANK
/* Warp g's selected elements (bits: its lane's flags) into wcount[g], and for run-length encoding
 * 1 + the tile index of its last head (0: none) into wlast[g]; then (after a barrier) returns the
 * tile's count, with *below_g the warps' before g and *tile_last the tile's last head (as
 * wlast). All work-items call it. */
ALWAYS_INLINE uint warp_counts(uint bits, uint g, uint lane, __local uint *wcount,
                               __local uint *wlast, uint *below_g, uint *tile_last) {
  uint c = popcount(bits);
#if SEL_RLE
  const uint b = 31u - clz(bits), j = b / SEL_VEC;
  uint last = bits ? VEC_FIRST(j, g, lane) + b % SEL_VEC + 1u : 0u;
#endif
#pragma unroll
  for (uint d = 16; d > 0; d >>= 1) {
    c += shfl_down_u32(c, d);
#if SEL_RLE
    last = max(last, shfl_down_u32(last, d));
#endif
  }
  if (lane == 0) {
    wcount[g] = c;
#if SEL_RLE
    wlast[g] = last;
#endif
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  uint total = 0, before = 0, tl = 0;
#pragma unroll
  for (uint h = 0; h < NG; h++) {
    const uint ch = wcount[h];
    before += h < g ? ch : 0u;
    total += ch;
#if SEL_RLE
    tl = max(tl, wlast[h]);
#endif
  }
  *below_g = before;
  *tile_last = tl;
  return total;
}
#endif

/* The work-group's shared state. */
typedef struct select_shared {
  val_t stage[STAGED]; /* selected at their rank, rejected (partition) after them in order */
#if SEL_RLE
  head_t head[HEADS]; /* the tile index of the head of rank q */
#endif
#if SEL_WARP_RANK
  uint wcount[NG]; /* each warp's selected elements */
  uint wlast[NG];  /* and 1 + the tile index of its last head (run-length encoding) */
#else
  uint mask[ENTRIES * SEL_VEC]; /* entry ENTRY_OF(j, g), mask k: component k of row j, group g */
  uint offset[ENTRIES];         /* selected elements in the tile before the entry */
  uint part[PARTS];
  uint last; /* 1 + the tile index of the last head (run-length encoding), 0 when none */
#endif
  count_shared cnt;
  ulong tile;
  lookback_group_shared look; /* the look-back's (lookback_warp.cl) */
  cnt_t prefix;
} select_shared;

#if CLSCAN_NV_PTX
/* Exclusive sum of v over the work-group (warp scans, common.cl); *total receives the sum. part
 * is not written again within the tile. */
ALWAYS_INLINE uint group_exclusive(uint v, __local uint *part, uint *total) {
  return warp_group_exclusive_sum(v, NG * 32, part, total);
}

/* Records flag f of a lane of group g in the mask of entry e (every lane calls it). */
ALWAYS_INLINE void record_flag(__local uint *mask, uint e, uint lane, uint f) {
  const uint m = ballot((int)f);
  if (lane == 0)
    mask[e] = m;
}
#else
/* Exclusive sum of v over the work-group in local memory (common.cl); *total receives the sum. */
ALWAYS_INLINE uint group_exclusive(uint v, __local uint *s, uint *total) {
  return local_exclusive_sum(v, CLSCAN_WG, s, total);
}

/* Records flag f of a lane in the mask of entry e (zeroed before). */
ALWAYS_INLINE void record_flag(__local uint *mask, uint e, uint lane, uint f) {
  if (f)
    atomic_or(&mask[e], 1u << lane);
}
#endif

/* The number of selected elements of entry e (the popcounts of its masks). */
ALWAYS_INLINE uint entry_count(const __local uint *mask, uint e) {
  uint c = 0;
#pragma unroll
  for (uint k = 0; k < SEL_VEC; k++)
    c += popcount(mask[e * SEL_VEC + k]);
  return c;
}

/* Finds tile t's exclusive prefix (t >= 1), counting silent predecessors itself. Work-item 0
 * walks status.cl's chain, or on NVIDIA warp 0 reads lookback_warp.cl's window of 32 status words
 * per round trip and reduces it as a tree (counts are exact); the whole group counts a silent
 * predecessor. The result is meaningful in work-item 0. */
ALWAYS_INLINE cnt_t tile_lookback(const __global in_t *in, const __global uchar *flags, ulong n,
                                  __global status_t *status, ulong t, ulong epoch,
                                  __local select_shared *sh CLSCAN_XP) {
  lookback_walker wl;
  lookback_group_begin(&wl, t, &sh->look);
  // The loop's condition is a constant and it breaks right after the walk's barrier, as in
  // single_pass.cl, so that every compiler sees its barriers in uniform control flow (POCL hung on
  // a condition read from local memory).
  for (;;) {
    if (lookback_group_walk(status, epoch, CNT_IDENTITY, 0, &wl, &sh->look CLSCAN_XA))
      break;
    const ulong silent = (ulong)sh->look.silent;
    const cnt_t aggregate = tile_count(in, flags, n, silent, COUNT_SHARED(sh) CLSCAN_XA);
    lookback_group_take(status, silent, epoch, aggregate, &wl, &sh->look CLSCAN_XA);
  }
  return lookback_group_prefix(&wl, &sh->look);
}

/* Measurement only (-DSEL_TEST_NO_LOOKBACK=1): tiles publish but do not look back; each takes its
 * own first index as the count before it, so that it writes its run where its input lies (wrong
 * output, but as many bytes written as the right one, in whole runs), and a timing without the
 * look-back bounds what it costs (as CLSCAN_TEST_NO_LOOKBACK for the scan). */
#ifndef SEL_TEST_NO_LOOKBACK
#define SEL_TEST_NO_LOOKBACK 0
#endif

/* The last tile's work-item 0: writes the count and, for run-length encoding, closes the last
 * run. */
ALWAYS_INLINE void finish_count(cnt_t prefix, cnt_t aggregate, __global uchar *count,
                                __global len_t *lengths, ulong cap, ulong n CLSCAN_XP) {
  const cnt_t incl = cnt_combine(prefix, aggregate CLSCAN_XA);
  sel_write_count(count, CNT_COUNT(incl));
#if SEL_RLE
  if (incl.c - 1 < cap)
    lengths[incl.c - 1] = (len_t)(n - incl.p);
#endif
}

/* Writes the staged run [from, from + count) to out[before, before + count), below cap: with
 * vector stores (SEL_VEC_STORE), element by element up to the first output address aligned to a
 * vector, then one vector per work-item (when it lies below cap), then the rest; else element by
 * element. out_off: out's offset in its buffer (in elements), whose start is aligned. The
 * selected run starts at 0, the partition's rejected run at the tile's count. */
ALWAYS_INLINE void store_run(__global val_t *out, ulong out_off, ulong before, uint count,
                             ulong cap, const __local select_shared *sh, uint from) {
  const uint lid = get_local_id(0);
#if SEL_VEC > 1 && SEL_VEC_STORE
  const uint lead = min(count, (uint)((SEL_VEC - (out_off + before) % SEL_VEC) % SEL_VEC));
  const uint body = lead + (count - lead) / SEL_VEC * SEL_VEC;
  for (uint q = lead + lid * SEL_VEC; q < body; q += CLSCAN_WG * SEL_VEC) {
    const ulong dst = before + q;
    if (dst + SEL_VEC <= cap) {
      sel_val_elems w;
#pragma unroll
      for (uint c = 0; c < SEL_VEC; c++)
        w.e[c] = sh->stage[STAGE_AT(from + q + c)];
        // CLSCAN_OCLGRIND_VSTORE (the Oclgrind tests set it): vstore, which Oclgrind's compiler
        // does not turn into a store of undef first (tests/oclgrind/vector_store.c).
#if defined(CLSCAN_OCLGRIND_VSTORE)
      CLSCAN_CAT(vstore, SEL_VEC)(w.v, 0, out + dst);
#else
      *(__global val_vec_t *)(out + dst) = w.v;
#endif
    } else {
      for (uint c = 0; c < SEL_VEC && dst + c < cap; c++)
        out[dst + c] = sh->stage[STAGE_AT(from + q + c)];
    }
  }
  // The lead and the tail: fewer than SEL_VEC elements each.
  for (uint r = lid; r < lead + (count - body); r += CLSCAN_WG) {
    const uint q = r < lead ? r : body + r - lead;
    const ulong dst = before + q;
    if (dst < cap)
      out[dst] = sh->stage[STAGE_AT(from + q)];
  }
#else
  (void)out_off;
  for (uint q = lid; q < count; q += CLSCAN_WG) {
    const ulong dst = before + q;
    if (dst < cap)
      out[dst] = sh->stage[STAGE_AT(from + q)];
  }
#endif
}

/* SEL_GROUP_TILE: a work-group's tile is its group id, which NVIDIA starts in order, so that its
 * loads need not wait for the ticket's atomic round trip; the ticket is still taken (its result
 * unused), so that the counter advances as the host counts. A tile whose predecessor has not
 * started counts it itself (the fallback), so the order is not needed for termination, only for
 * speed. Otherwise the tile is the ticket: tiles in the order work-groups start. On by default on
 * NVIDIA for select by predicate, unique and run-length encoding, which ran 2-7 % faster with it
 * on the H200 (int32, n = 2^28); select by flags ran 2-5 % slower with it at 50 % selected (faster
 * at 0 %), and partition was not measured, so both keep the ticket (-DSEL_GROUP_TILE=0 or 1
 * overrides). */
#ifndef SEL_GROUP_TILE
#define SEL_GROUP_TILE (CLSCAN_NV_PTX && !SEL_PARTITION && (CLSCAN_SELECT_PRED || SEL_RUNS))
#endif

/* Work-item 0: takes the work-group's ticket; returns its tile unless SEL_GROUP_TILE. */
ALWAYS_INLINE ulong take_tile(__global uint *temp, uint ticket_base) {
#if SEL_GROUP_TILE
  atomic_inc(temp);
  return get_group_id(0);
#else
  return atomic_inc(temp) - ticket_base;
#endif
}

/* Starts the work-group's tile: zeroes the entries' masks (elsewhere than NVIDIA, where they are
 * ORed into) and sh->last, and takes the ticket. Returns the tile in every work-item: the group id
 * (SEL_GROUP_TILE), else the ticket after a barrier. */
ALWAYS_INLINE ulong tile_start(__global uint *temp, uint ticket_base, __local select_shared *sh) {
  const uint lid = get_local_id(0);
#if !CLSCAN_NV_PTX
  for (uint e = lid; e < ENTRIES * SEL_VEC; e += CLSCAN_WG)
    sh->mask[e] = 0;
#endif
  if (lid == 0) {
    sh->tile = take_tile(temp, ticket_base);
#if !SEL_WARP_RANK
    sh->last = 0;
#endif
  }
#if SEL_GROUP_TILE
  return get_group_id(0);
#else
  barrier(CLK_LOCAL_MEM_FENCE);
  return sh->tile;
#endif
}

/* Loads the work-item's ITEMS elements of the tile (valid of them below n) into v: the lane
 * group's rows of vectors into registers (coalesced; the partial last tile element by element).
 * Returns their flags as bits j * SEL_VEC + k. */
ALWAYS_INLINE uint load_tile(const __global in_t *in, const __global uchar *flags, ulong n,
                             ulong tile, uint valid, val_t *v CLSCAN_XP) {
  const uint lid = get_local_id(0), lane = lid % SEL_SG, g = lid / SEL_SG;
  const ulong base = tile * TILE;
  uint bits = 0;
  if (valid == TILE) {
    const ulong vbase = tile * (TILE / SEL_VEC) + ENTRY_OF(0, g) * SEL_SG + lane;
#pragma unroll
    for (uint j = 0; j < VECS; j++)
      bits |= load_vector(in, flags, vbase + j * SEL_SG, v + j * SEL_VEC, 1 CLSCAN_XA)
              << (j * SEL_VEC);
  } else {
#pragma unroll
    for (uint j = 0; j < VECS; j++) {
      const uint k = VEC_FIRST(j, g, lane);
      if (k < valid)
        bits |= load_partial(in, flags, base + k, n, v + j * SEL_VEC, 1 CLSCAN_XA) << (j * SEL_VEC);
    }
  }
  return bits;
}

#if SEL_WARP_RANK
/* Ranks the tile from the warps' counts and their rows' ballots (warp_counts): returns the tile's
 * count, with *below_g the selected elements of the warps before g and *tile_last 1 + the tile
 * index of its last head (run-length encoding; 0: none). All work-items call it. */
ALWAYS_INLINE uint tile_rank(uint bits, __local select_shared *sh, uint *below_g, uint *tile_last) {
  const uint lid = get_local_id(0), lane = lid % SEL_SG, g = lid / SEL_SG;
  // Each warp's count (and last head) to local memory; the tile's and the warps' before it.
  return warp_counts(bits, g, lane, sh->wcount, sh->wlast, below_g, tile_last);
}

#else
/* Records the work-item's flags (bits j * SEL_VEC + k): each lane group's flags of row j as the
 * masks of entry ENTRY_OF(j, g), and for run-length encoding 1 + the tile index of the
 * work-item's last head in sh->last. Ends with the barrier after which the masks are read. */
ALWAYS_INLINE void record_flags(uint bits, __local select_shared *sh) {
  const uint lid = get_local_id(0), lane = lid % SEL_SG, g = lid / SEL_SG;
#if SEL_GROUP_TILE
  // Work-item 0's sh.last (and elsewhere the masks' zeros) before anyone records a flag.
  barrier(CLK_LOCAL_MEM_FENCE);
#endif
  __local uint *mask = sh->mask + ENTRY_OF(0, g) * SEL_VEC;
  uint last = 0;
#pragma unroll
  for (uint j = 0; j < VECS; j++) {
#pragma unroll
    for (uint c = 0; c < SEL_VEC; c++) {
      const uint f = (bits >> (j * SEL_VEC + c)) & 1u;
      last = f ? VEC_FIRST(j, g, lane) + c + 1 : last;
      record_flag(mask, j * SEL_VEC + c, lane, f);
    }
  }
#if SEL_RLE
  atomic_max(&sh->last, last);
#endif
  barrier(CLK_LOCAL_MEM_FENCE);
}

/* The entries' offsets into sh->offset: an exclusive scan of their counts, CHUNK consecutive
 * entries each. Returns the tile's count. */
ALWAYS_INLINE uint entry_offsets(__local select_shared *sh) {
  const uint lid = get_local_id(0);
  const uint e0 = min(lid * CHUNK, (uint)ENTRIES), e1 = min(e0 + CHUNK, (uint)ENTRIES);
  uint own = 0;
  for (uint e = e0; e < e1; e++)
    own += entry_count(sh->mask, e);
  uint selected;
  uint run = group_exclusive(own, sh->part, &selected);
  for (uint e = e0; e < e1; e++) {
    sh->offset[e] = run;
    run += entry_count(sh->mask, e);
  }
  return selected;
}

/* Ranks the tile from the entries' masks and offsets in local memory: returns the tile's count,
 * with *tile_last 1 + the tile index of its last head (run-length encoding; 0: none). *below_g
 * is 0: the entries' offsets already count the lane groups before g. All work-items call it. */
ALWAYS_INLINE uint tile_rank(uint bits, __local select_shared *sh, uint *below_g, uint *tile_last) {
  record_flags(bits, sh);
  const uint selected = entry_offsets(sh);
  *below_g = 0;
  *tile_last = sh->last;
  return selected;
}
#endif

/* Work-item 0 publishes the tile's aggregate (tile 0's is its inclusive prefix) unless the tile is
 * withheld; returns the aggregate. Without SEL_WARP_RANK a barrier follows, which orders the
 * entries' offsets before the staging reads them. */
ALWAYS_INLINE cnt_t publish_aggregate(__global status_t *status, ulong tile, ulong epoch,
                                      int withheld, uint selected, uint tile_last) {
  const cnt_t aggregate = cnt_make(selected, tile * TILE + (tile_last ? tile_last - 1u : 0u));
  if (get_local_id(0) == 0 && !withheld)
    status_publish(status, tile, epoch, tile == 0 ? STATE_PREFIX : STATE_AGGREGATE, aggregate);
#if !SEL_WARP_RANK
  barrier(CLK_LOCAL_MEM_FENCE);
#endif
  return aggregate;
}

#if SEL_WARP_RANK
/* The first rank of the lane's vector of row j, from the row's ballots: *run (the selected
 * elements of the warps and rows before the row) plus the selected components of the lanes below
 * (below: their bits); advances *run past the row. Every lane of the warp calls it. */
ALWAYS_INLINE uint vector_first(uint bits, uint j, uint below, uint *run) {
  uint first = *run;
#pragma unroll
  for (uint c = 0; c < SEL_VEC; c++) {
    const uint m = ballot((int)((bits >> (j * SEL_VEC + c)) & 1u));
    first += popcount(m & below);
    *run += popcount(m);
  }
  return first;
}
#else
/* The first rank of the lane's vector in entry e: the entry's offset plus the selected components
 * of the lanes below (below: their bits). */
ALWAYS_INLINE uint entry_first(const __local select_shared *sh, uint e, uint below) {
  uint first = sh->offset[e];
#pragma unroll
  for (uint c = 0; c < SEL_VEC; c++)
    first += popcount(sh->mask[e * SEL_VEC + c] & below);
  return first;
}
#endif

/* Stages the SEL_VEC elements v of a vector whose first element has tile index k: the selected
 * ones (own: their flags as bits c) at their ranks from first, the rejected ones (partition) after
 * the tile's selected ones, in order (SEL_REVERSE: in reverse order, the tile's first rejected
 * one last, as they go out). */
ALWAYS_INLINE void stage_vector(const val_t *v, uint own, uint k, uint first, uint valid,
                                uint selected, __local select_shared *sh) {
#pragma unroll
  for (uint c = 0; c < SEL_VEC; c++) {
    const uint i = k + c, rank = first + popcount(own & ((1u << c) - 1u));
    if ((own >> c) & 1u) {
      sh->stage[STAGE_AT(rank)] = v[c];
#if SEL_RLE
      sh->head[HEAD_AT(rank)] = (head_t)i;
#endif
    } else if (SEL_PARTITION && i < valid) {
      // i - rank rejected elements of the tile come before this one.
      sh->stage[STAGE_AT(SEL_REVERSE ? valid - 1u - (i - rank) : selected + (i - rank))] = v[c];
    }
  }
}

/* Stages the work-item's elements v (flags: bits) of lane group g, lane `lane`, in local memory:
 * selected at their rank, rejected (partition) after them. below_g: the selected elements of the
 * warps before g (SEL_WARP_RANK). (g and lane come from the kernel: recomputed here, the ranks'
 * arithmetic took more registers in clang's NVPTX build of the scalar loads.) */
ALWAYS_INLINE void stage_tile(const val_t *v, uint bits, uint g, uint lane, uint valid,
                              uint selected, uint below_g, __local select_shared *sh) {
  // A vector's first rank: its entry's offset and the selected components of the lanes below
  // (SEL_WARP_RANK: the warps' before it, its rows' before it and the lanes' below it, from
  // ballots).
  const uint below = (1u << lane) - 1u;
#if SEL_WARP_RANK
  uint run = below_g;
#else
  (void)below_g;
#endif
#pragma unroll
  for (uint j = 0; j < VECS; j++) {
    const uint k = VEC_FIRST(j, g, lane);
#if SEL_WARP_RANK
    const uint first = vector_first(bits, j, below, &run);
#endif
    if (k < valid) {
#if !SEL_WARP_RANK
      const uint first = entry_first(sh, ENTRY_OF(j, g), below);
#endif
      stage_vector(v + j * SEL_VEC, bits >> (j * SEL_VEC), k, first, valid, selected, sh);
    }
  }
}

/* Looks back for the tile's exclusive prefix (its barriers also order the staging) and publishes
 * the inclusive prefix. Returns the exclusive prefix in every work-item (after a barrier). */
ALWAYS_INLINE cnt_t tile_prefix(const __global in_t *in, const __global uchar *flags, ulong n,
                                __global status_t *status, ulong tile, ulong epoch, cnt_t aggregate,
                                int withheld, __local select_shared *sh CLSCAN_XP) {
  cnt_t prefix = CNT_IDENTITY;
#if SEL_TEST_NO_LOOKBACK
  prefix = cnt_make(tile * TILE, tile * TILE);
#else
  if (tile != 0)
    prefix = tile_lookback(in, flags, n, status, tile, epoch, sh CLSCAN_XA);
#endif
  if (get_local_id(0) == 0) {
    if (tile != 0 && !withheld)
      status_publish(status, tile, epoch, STATE_PREFIX, cnt_combine(prefix, aggregate CLSCAN_XA));
    sh->prefix = prefix;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  return sh->prefix;
}

#if SEL_RLE
/* Writes the lengths of the runs that the tile's heads close, below cap: head q closes the run
 * before it, from the tile's previous head, or the run entering the tile (from the prefix's last
 * head). */
ALWAYS_INLINE void store_lengths(__global len_t *lengths, ulong cap, ulong base, ulong before,
                                 uint selected, cnt_t prefix, const __local select_shared *sh) {
  for (uint q = get_local_id(0); q < selected; q += CLSCAN_WG) {
    const ulong dst = before + q;
    if (dst > 0 && dst - 1 < cap) {
      const ulong prev = q > 0 ? base + sh->head[HEAD_AT(q - 1)] : prefix.p;
      lengths[dst - 1] = (len_t)(base + sh->head[HEAD_AT(q)] - prev);
    }
  }
}
#endif

#if SEL_PARTITION
/* Writes the tile's rejected run (valid - selected elements; base - before rejected ones come
 * before the tile) to rej, below rej_cap: after the total as select_count_total stored it (a
 * plain load: the launches are ordered), or from 0 in a buffer of their own (split), or
 * (SEL_REVERSE) as the staged reversed run ending where the rejected ones before it begin, at
 * n - (base - before). */
ALWAYS_INLINE void store_rejected(__global val_t *rej, ulong rej_off, ulong rej_cap, uint split,
                                  __global uint *temp, ulong n, ulong base, ulong before,
                                  uint valid, uint selected, const __local select_shared *sh) {
  const uint count = valid - selected;
#if SEL_REVERSE
  (void)split;
  (void)temp;
  const ulong first = n - (base - before) - count;
#else
  (void)n;
  const ulong first = (split ? 0 : ((__global ulong *)temp)[1]) + (base - before);
#endif
  store_run(rej, rej_off, first, count, rej_cap, sh, selected);
}
#endif

/* NVIDIA's OpenCL applies a register cap (-cl-nv-maxrregcount=N) only to kernels without a
 * required work-group size (single_pass.cl): with CLSCAN_NV_REGISTERS=1 the single pass is built
 * without it, and the host launches it with CLSCAN_WG work-items all the same. */
#ifndef CLSCAN_NV_REGISTERS
#define CLSCAN_NV_REGISTERS 0
#endif
#if CLSCAN_NV_REGISTERS
#define SELECT_KERNEL __kernel
#else
#define SELECT_KERNEL __kernel __attribute__((reqd_work_group_size(CLSCAN_WG, 1, 1)))
#endif

/*
 * Selects from in[0, n) (offsets in elements) into out[0, out_capacity). Launch exactly
 * ceil(n / TILE) work-groups of CLSCAN_WG work-items. temp: the ticket counter (a uint at byte
 * 0), the partition's total (a ulong at byte 8, from select_count_total), and from byte 64 the
 * status words (STATUS_WORDS status_t per tile). lengths: run lengths (RUN_LENGTH_ENCODE). rej:
 * where partition writes the rejected elements, rej[0, rej_cap): `out` after the total (split 0),
 * or a buffer of their own from 0 (split 1, with no pre-pass), or `out` from its end backwards
 * (SEL_REVERSE, split 0, with no pre-pass). The last tile writes the count at
 * byte count_byte_off of `count`.
 */
SELECT_KERNEL void select_single_pass(
    const __global in_t *in, ulong in_off, const __global uchar *flags, ulong flags_off,
    __global val_t *out, ulong out_off, ulong cap, __global len_t *lengths, ulong lengths_off,
    __global val_t *rej, ulong rej_off, ulong rej_cap, uint split, __global uchar *count,
    ulong count_byte_off, ulong n, __global uint *temp, uint ticket_base, ulong epoch CLSCAN_XP) {
  __local select_shared sh;
  __global status_t *status = (__global status_t *)((__global uchar *)temp + 64);
  const uint lid = get_local_id(0), lane = lid % SEL_SG, g = lid / SEL_SG;
  in += in_off;
  flags += flags_off;
  out += out_off;
  lengths += lengths_off;
  rej += rej_off;

  const ulong tile = tile_start(temp, ticket_base, &sh);
  const ulong base = tile * TILE, tiles = (n + TILE - 1) / TILE;
  const uint valid = (uint)min((ulong)TILE, n - base);
  const int withheld = tile_withheld(tile);

  // The work-item's elements into registers with their flags; their ranks, the tile's count.
  val_t v[ITEMS];
  const uint bits = load_tile(in, flags, n, tile, valid, v CLSCAN_XA);
  uint below_g, tile_last;
  const uint selected = tile_rank(bits, &sh, &below_g, &tile_last);
  const cnt_t aggregate = publish_aggregate(status, tile, epoch, withheld, selected, tile_last);

  // Stage the tile in local memory: selected at their rank, rejected (partition) after them.
  stage_tile(v, bits, g, lane, valid, selected, below_g, &sh);

  // Look back (its barriers also order the staging), publish the inclusive prefix.
  const cnt_t prefix =
      tile_prefix(in, flags, n, status, tile, epoch, aggregate, withheld, &sh CLSCAN_XA);
  const ulong before = CNT_COUNT(prefix);

  // The tile's selected run, consecutive work-items to consecutive addresses.
  store_run(out, out_off, before, selected, cap, &sh, 0);
#if SEL_RLE
  store_lengths(lengths, cap, base, before, selected, prefix, &sh);
#endif
#if SEL_PARTITION
  store_rejected(rej, rej_off, rej_cap, split, temp, n, base, before, valid, selected, &sh);
#endif

  // The last tile writes the count (and closes the last run).
  if (tile == tiles - 1 && lid == 0)
    finish_count(prefix, aggregate, count + count_byte_off, lengths, cap, n CLSCAN_XA);
}

/* Partition pre-pass: work-group t counts tile t into counts[t] (ceil(n / TILE) work-groups). */
__kernel __attribute__((reqd_work_group_size(CLSCAN_WG, 1, 1))) void select_count_tiles(
    const __global in_t *in, ulong in_off, const __global uchar *flags, ulong flags_off, ulong n,
    __global ulong *temp, ulong counts_off CLSCAN_XP) {
  __global ulong *counts = temp + counts_off;
  __local count_shared cs;
  const cnt_t a = tile_count(in + in_off, flags + flags_off, n, get_group_id(0), &cs CLSCAN_XA);
  if (get_local_id(0) == 0)
    counts[get_group_id(0)] = SEL_COUNT_TO_WORD((ulong)CNT_COUNT(a));
}

/* Partition pre-pass: one work-group sums counts[0, tiles) into the ulong at byte 8 of temp. */
__kernel __attribute__((reqd_work_group_size(CLSCAN_WG, 1, 1))) void select_count_total(
    __global ulong *temp, ulong counts_off, ulong tiles) {
  const __global ulong *counts = temp + counts_off;
  __local ulong part[CLSCAN_WG];
  const uint lid = get_local_id(0);
  ulong s = 0;
  for (ulong t = lid; t < tiles; t += CLSCAN_WG)
    s += SEL_WORD_TO_COUNT(counts[t]);
  part[lid] = s;
  barrier(CLK_LOCAL_MEM_FENCE);
  if (lid == 0) {
    ulong total = 0;
    for (uint i = 0; i < CLSCAN_WG; i++)
      total += part[i];
    temp[1] = total;
  }
}
