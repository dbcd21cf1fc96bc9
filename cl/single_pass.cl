/*
 * clscan kernels: single-pass chained scan with decoupled look-back (Merrill & Garland 2016) and
 * decoupled fallback (Smith, Levien & Owens 2025), so it terminates without forward-progress
 * guarantees between work-groups.
 *
 * Each work-group takes a tile number from an atomic ticket (work-groups may start in any order;
 * on NVIDIA, out of place, the group id: CLSCAN_GROUP_TILE), scans its tile locally, publishes the
 * tile's aggregate, looks back over its predecessors' status words for its exclusive prefix,
 * publishes its inclusive prefix and writes its results. Memory traffic is one read and one write
 * of every element.
 *
 * Status words: see status.cl.
 *
 * Determinism. Every published inclusive prefix is the strict left fold of the tile aggregates
 * (status.cl): the look-back searches back to the nearest inclusive prefix, then folds the
 * aggregates after it onto it in tile order, one at a time. So the bits depend on the device, n,
 * the descriptor and the tuning only, never on timing, the look-back's depth or the fallback.
 *
 * Fallback. A work-group that has polled a predecessor CLSCAN_SPIN times without a value reduces
 * that tile itself, from the input, combining in its owner's order (so the bits agree), and
 * publishes it as an aggregate.
 *
 * In place (in == out), a fallback reads a tile that its owner overwrites, and no two accesses
 * may race (in the memory model, not only in effect; Oclgrind's checker counts any two accesses
 * to a byte by two work-groups of one launch, one of them a plain store, as a race). Each tile
 * has a gate (status.cl) with two bits set by compare-and-swap: "visited" and "closed". A
 * fallback sets "visited" before it reads the silent tile's input, unless the gate is closed:
 * then the owner's publications are complete and the fallback takes them instead. The owner sets
 * "closed" after its publications and before its stores. If its gate was not visited, it writes
 * its output, and no fallback will read the tile any more; if it was, it writes nothing and
 * publishes its exclusive prefix as tile t - 1's inclusive prefix (the same bits tile t - 1's
 * owner publishes: both are the left fold through t - 1), and a finishing launch (in_place = 2,
 * enqueued right after by the host) writes those tiles, with the same functions and prefix, so
 * the same bits. So within the scan's launch a tile's bytes are either read by other work-groups
 * or written, never both; the finishing launch's work-groups touch disjoint tiles; and nobody
 * waits for anybody (the no-hang guarantee stands). Out-of-place launches skip the gates; in
 * place costs one compare-and-swap per tile and the finishing launch (one work-item per tile,
 * which reads its tile's gate and almost always exits).
 *
 * The look-back: status.cl's serial walker, or on NVIDIA lookback_warp.cl's warp-wide window.
 *
 * Needs common.cl, tile.cl, status.cl and lookback_warp.cl first, and 64-bit atomics.
 */

#ifndef CLSCAN_SPIN
#define CLSCAN_SPIN 64
#endif
/* Measurement only (the results are wrong): skip the look-back, so that every tile starts from
 * the identity. What remains is the tile's load, local scan, publication and store, which bounds
 * what any look-back could reach (build/tile_sweep with -DCLSCAN_TEST_NO_LOOKBACK=1). */
#ifndef CLSCAN_TEST_NO_LOOKBACK
#define CLSCAN_TEST_NO_LOOKBACK 0
#endif

/* The work-group's shared state. */
typedef struct single_pass_shared {
  tile_scratch scratch;
  ulong tile;
  lookback_group_shared look; /* the look-back's (lookback_warp.cl) */
  int entered, write;
  elem_t lead;
  uchar deferred[CLSCAN_WG];
  elem_t prefix;
#if CLSCAN_STASH
  tile_stash stash; /* the tile through the look-back (tile.cl) */
#endif
} single_pass_shared;

#if CLSCAN_SEGMENTS == CLSCAN_SEGMENTS_OFFSETS && CLSCAN_SEG_OFFSETS_FIRSTS
/*
 * The tile firsts of segments by offsets (CLSCAN_SEG_OFFSETS_FIRSTS, tile.cl): for each tile the
 * index of its first offset, after the status words and gates, from the next multiple of 256
 * bytes from the start of temp (status is temp + 64 bytes). The host reserves them past its own
 * bound of the status words (algo_single_pass.c), which is at least this one. Each first takes
 * SEG_FIRST_WORDS ulongs of 16 bits, lowest first: every 64-bit word, and every 32-bit half of
 * one, then reads as a status word of epoch 0 (never a launch's; cl/status.cl) to a later single
 * pass whose status words cover them, with either size of status words, so nothing clears them.
 */
#define SEG_FIRST_WORDS 4

ALWAYS_INLINE __global ulong *seg_firsts(__global status_t *status, ulong n) {
  const ulong tiles = (n + TILE - 1) / TILE;
  const ulong end = 64 + tiles * (STATUS_WORDS + 1) * sizeof(status_t);
  return (__global ulong *)((__global uchar *)status - 64 + (end + 255) / 256 * 256);
}

/* Tile t's first offset index. */
ALWAYS_INLINE ulong seg_first(__global status_t *status, ulong n, ulong t) {
  const __global ulong *f = seg_firsts(status, n) + SEG_FIRST_WORDS * t;
  ulong q = 0;
#pragma unroll
  for (uint i = 0; i < SEG_FIRST_WORDS; i++)
    q |= f[i] << (16 * i);
  return q;
}

/* Offsets a work-group of the pre-pass stages in local memory for its searches (8 KiB). */
#define SEG_FIRSTS_STAGED (8192 / sizeof(seg_offset_t))

/*
 * The pre-pass of segments by offsets with tile firsts: work-item t (of ceil(n / TILE) and up)
 * writes tile t's first, the index of the first offset not below the tile's start (the launch's
 * global offset is the number of offsets, SEG_PARAM()). Work-group g's answers are at least that
 * of its first tile, which the group finds together in a few rounds of wide probes
 * (seg_group_lower_bound); it stages the SEG_FIRSTS_STAGED offsets from there in local memory,
 * and each work-item searches them, or where its answer lies beyond them, the offsets after them
 * in global memory. On the H200 a binary search per work-item over all the offsets, a chain of
 * dependent loads that miss the cache, took 14 us of an offsets scan of 2^28 int32 (one segment
 * start in 1000). Unsorted offsets give some index in [0, count], and the scan reads no offset
 * outside [0, count) for it. Every work-item of a group reaches the barriers.
 */
__kernel __attribute__((reqd_work_group_size(CLSCAN_WG, 1, 1))) void seg_offsets_firsts(
    const __global seg_offset_t *off, ulong off_off, ulong n, __global uint *temp) {
  __local uint slot[3];
  __local seg_offset_t staged[SEG_FIRSTS_STAGED];
  const uint lid = get_local_id(0);
  const ulong count = SEG_PARAM(), first_tile = (ulong)get_group_id(0) * CLSCAN_WG;
  const ulong t = first_tile + lid;
  off += off_off;
  const ulong lo = seg_group_lower_bound(off, count, first_tile * TILE, slot);
  const uint have = (uint)min((ulong)SEG_FIRSTS_STAGED, count - lo);
  for (uint i = lid; i < have; i += CLSCAN_WG)
    staged[i] = off[lo + i];
  barrier(CLK_LOCAL_MEM_FENCE);
  if (t >= (n + TILE - 1) / TILE)
    return;
  const ulong v = t * TILE;
  ulong a;
  if (have == count - lo || staged[have - 1] >= v) {
    // The answer is in [lo, lo + have]: a binary search of the staged offsets, as
    // seg_binary_search (common.cl) does in global memory (OpenCL 1.2 has no generic pointers).
    uint x = 0, y = have;
    while (x < y) {
      const uint mid = x + (y - x) / 2;
      if (staged[mid] < v) {
        x = mid + 1;
      } else {
        y = mid;
      }
    }
    a = lo + x;
  } else {
    a = seg_binary_search(off, lo + have, count, v);
  }
  __global ulong *f =
      seg_firsts((__global status_t *)((__global uchar *)temp + 64), n) + SEG_FIRST_WORDS * t;
#pragma unroll
  for (uint i = 0; i < SEG_FIRST_WORDS; i++)
    f[i] = (a >> (16 * i)) & 0xffffu;
}
#endif

/*
 * The finishing launch of an in-place scan: work-group g looks at the gates of tiles
 * g * CLSCAN_WG .. (one work-item each) and scans each tile whose owner left its output to it,
 * with the same functions and prefix as the owner (so the bits agree).
 */
ALWAYS_INLINE void finish_in_place(const __global in_t *in, const __global uchar *aux CLSCAN_XP,
                                   __global val_t *out, ulong n, __global status_t *status,
                                   ulong epoch, elem_t chain_seed, int exclusive, val_t seed,
                                   __local single_pass_shared *sh) {
  const uint lid = get_local_id(0);
  const ulong tiles = (n + TILE - 1) / TILE, first = get_group_id(0) * (ulong)CLSCAN_WG;
  const ulong mine = first + lid;
  sh->deferred[lid] = mine < tiles && gate_deferred(status, tiles, mine, epoch);
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint i = 0; i < CLSCAN_WG; i++) {
    if (!sh->deferred[i])
      continue;
    const ulong t = first + i;
    if (lid == 0)
      sh->lead = gate_exclusive(status, t, epoch, chain_seed);
    barrier(CLK_LOCAL_MEM_FENCE);
    const elem_t lead = sh->lead;
    tile_items x;
    elem_t pre[CLSCAN_VPT], group_prefix;
    tile_load(in, aux CLSCAN_XA, n, t, &x, &sh->scratch TILE_FIRST_A(seg_first(status, n, t)));
    tile_scan_local(&x, pre, &group_prefix, &sh->scratch CLSCAN_XA);
    tile_store(out, n, t, &x, pre, combine(lead, group_prefix CLSCAN_XA), exclusive,
               seed CLSCAN_XA);
    barrier(CLK_LOCAL_MEM_FENCE);
  }
}

/* CLSCAN_GROUP_TILE: an out-of-place scan's tile is its group id, which NVIDIA starts in order,
 * so that its loads need not wait for the ticket's atomic round trip; the ticket is still taken
 * (its result unused), so that the counter advances as the host counts. A tile whose predecessor
 * has not started reduces it itself (the fallback), so the order matters for speed only, never
 * for termination. In place the tile stays the ticket (the gates' protocol assumes it). On by
 * default on NVIDIA, where it was 0.6 to 2.0 % faster on the H200 at 2^28 (plain int32, offsets,
 * rows, head flags; docs/performance.md); -DCLSCAN_GROUP_TILE=0 or 1 overrides. */
#ifndef CLSCAN_GROUP_TILE
#define CLSCAN_GROUP_TILE CLSCAN_NV_PTX
#endif

/* Takes a ticket: tiles are numbered in the order work-groups start (or, CLSCAN_GROUP_TILE, by
 * group id). Returns the work-group's tile. */
ALWAYS_INLINE ulong single_pass_take_tile(__global uint *temp, uint ticket_base, const int in_place,
                                          __local single_pass_shared *sh) {
  const uint lid = get_local_id(0);
  ulong tile;
  if (CLSCAN_GROUP_TILE && !in_place) {
    if (lid == 0)
      atomic_inc(temp);
    tile = get_group_id(0);
  } else {
    if (lid == 0)
      sh->tile = atomic_inc(temp) - ticket_base;
    barrier(CLK_LOCAL_MEM_FENCE);
    tile = sh->tile;
  }
  return tile;
}

/* Segmented, a tile that starts a segment skips its look-back (tile_first_is_head): rows whose
 * length divides the tile make every tile independent. Work-item 0 knows; on NVIDIA its warp
 * walks, and takes the answer from lane 0. */
ALWAYS_INLINE uint single_pass_skip(const tile_items *x) {
#if CLSCAN_NV_PTX
  return CLSCAN_SEGMENTS ? shfl_idx_u32(tile_first_is_head(x), 0) : 0u;
#else
  return tile_first_is_head(x);
#endif
}

/* Publishes the tile's aggregate as soon as it is known (work-item 0); tile 0, which has no
 * predecessor, publishes its inclusive prefix instead. */
ALWAYS_INLINE void single_pass_publish_aggregate(__global status_t *status, ulong tile, ulong epoch,
                                                 elem_t chain_seed, elem_t aggregate,
                                                 int withheld CLSCAN_XP) {
  if (get_local_id(0) == 0) {
    if (withheld) {
      // Test only: stay silent.
    } else if (tile == 0) {
      status_publish(status, 0, epoch, STATE_PREFIX, combine(chain_seed, aggregate CLSCAN_XA));
    } else {
      status_publish(status, tile, epoch, STATE_AGGREGATE, aggregate);
    }
  }
}

/* In place, the fallback first marks the silent tile's gate visited (work-item 0); returns 0 when
 * the gate turned it away (then the owner's publications are complete and the next walk reads
 * them). The whole group calls it, and reaches its barrier. */
ALWAYS_INLINE int single_pass_enter(__global status_t *status, ulong n, ulong silent, ulong epoch,
                                    __local single_pass_shared *sh) {
  if (get_local_id(0) == 0)
    sh->entered = gate_enter(status, (n + TILE - 1) / TILE, silent, epoch);
  barrier(CLK_LOCAL_MEM_FENCE);
  return sh->entered;
}

/*
 * Looks back (tile 0 has no predecessor) for the tile's exclusive prefix, which the walker holds
 * after it. Work-item 0 (on NVIDIA warp 0) walks; the whole group joins when a predecessor must
 * be reduced.
 */
ALWAYS_INLINE void single_pass_lookback(const __global in_t *in,
                                        const __global uchar *aux CLSCAN_XP, ulong n,
                                        __global status_t *status, ulong tile, ulong epoch,
                                        elem_t chain_seed, uint skip, const int in_place,
                                        lookback_walker *wl, __local single_pass_shared *sh) {
  lookback_group_begin(wl, tile, &sh->look);
  // Tile 0 walks too (its walk reaches the seed at once). The loop's condition is a constant, so
  // that every compiler sees its barriers in uniform control flow (POCL hung on a condition read
  // from local memory), and on NVIDIA it left fewer registers to hold (64 against 68 for int32,
  // 80 against 90 for int64).
  while (!CLSCAN_TEST_NO_LOOKBACK) {
    if (lookback_group_walk(status, epoch, chain_seed, skip, wl, &sh->look CLSCAN_XA))
      break;
    const ulong silent = (ulong)sh->look.silent;

    // Fallback: reduce the silent tile from the input in its owner's order, and hand its
    // aggregate to the walker. In place only after marking its gate visited; turned away, the
    // owner's publications are complete and the next walk reads them.
    if (in_place && !single_pass_enter(status, n, silent, epoch, sh))
      continue;
    const elem_t aggregate = tile_reduce(in, aux CLSCAN_XA, n, silent,
                                         &sh->scratch TILE_FIRST_A(seg_first(status, n, silent)));
    lookback_group_take(status, silent, epoch, aggregate, wl, &sh->look CLSCAN_XA);
  }
}

/* In place: store only if no fallback read the tile; else hand its prefix to the finishing launch
 * (as tile - 1's inclusive prefix). Work-item 0 closes the tile's gate, and sh->write says
 * whether the group stores the tile. */
ALWAYS_INLINE void single_pass_close(__global status_t *status, ulong n, ulong tile, ulong epoch,
                                     elem_t prefix, const int in_place,
                                     __local single_pass_shared *sh) {
  sh->write = 1;
  if (in_place && gate_close(status, (n + TILE - 1) / TILE, tile, epoch)) {
    sh->write = 0;
    if (tile > 0)
      status_publish(status, tile - 1, epoch, STATE_PREFIX, prefix);
  }
}

/* Scans the tile on from the exclusive prefix the group shares (sh->prefix) and writes it, unless
 * in place its output went to the finishing launch. The whole group calls it, after the barrier
 * that follows work-item 0's publication of the prefix. */
ALWAYS_INLINE void single_pass_store(__global val_t *out, ulong n, ulong tile, tile_items *x,
                                     elem_t pre[CLSCAN_VPT], elem_t group_prefix, int exclusive,
                                     val_t seed, const int in_place,
                                     __local single_pass_shared *sh CLSCAN_XP) {
  if (!in_place || sh->write) {
#if CLSCAN_STASH
    tile_stash_get(x, &sh->stash);
#endif
    tile_store(out, n, tile, x, pre, combine(sh->prefix, group_prefix CLSCAN_XA), exclusive,
               seed CLSCAN_XA);
  }
}

/*
 * Scans in[0, n) into out[0, n) in one pass. Launch exactly ceil(n / TILE) work-groups of
 * CLSCAN_WG work-items. aux (from byte aux_off * AUX_SIZE) holds a segmented scan's flags or keys.
 * temp holds the ticket counter (a uint at byte 0) and, from byte 64, the status words.
 * ticket_base is the counter's value before this launch; epoch is this launch's epoch (>= 1).
 * seed is the initial value (or the identity); in_place is 1 when in == out (then the host runs
 * single_pass_finish right after).
 */
ALWAYS_INLINE void single_pass_body(const __global in_t *in, ulong in_off,
                                    const __global uchar *aux, ulong aux_off, __global val_t *out,
                                    ulong out_off, ulong n, __global uint *temp, uint ticket_base,
                                    ulong epoch, val_t seed, int exclusive, const int in_place,
                                    __local single_pass_shared *sh CLSCAN_XP) {
  __global status_t *status = (__global status_t *)((__global uchar *)temp + 64);
  const uint lid = get_local_id(0);
  const elem_t chain_seed = CHAIN_SEED(seed);
  in += in_off;
  aux += aux_off * AUX_SIZE;
  out += out_off;
  const ulong tile = single_pass_take_tile(temp, ticket_base, in_place, sh);
  // Test only: withheld tiles publish nothing (in place: only their aggregate, just before they
  // close their gate, so that readers turned away find a value).
  const int withheld = tile_withheld(tile);

  // Load and scan the tile locally; publish its aggregate at once.
  tile_items x;
  elem_t pre[CLSCAN_VPT], group_prefix;
  tile_load(in, aux CLSCAN_XA, n, tile, &x, &sh->scratch TILE_FIRST_A(seg_first(status, n, tile)));
  const elem_t aggregate = tile_scan_local(&x, pre, &group_prefix, &sh->scratch CLSCAN_XA);
  const uint skip = single_pass_skip(&x);
  single_pass_publish_aggregate(status, tile, epoch, chain_seed, aggregate, withheld CLSCAN_XA);
  // With CLSCAN_STASH (tile.cl), the tile waits out the look-back in local memory, so that its
  // registers are free meanwhile: the kernel needs fewer, and more work-groups fit.
#if CLSCAN_STASH
  tile_stash_put(&x, &sh->stash);
#endif

  lookback_walker wl;
  single_pass_lookback(in, aux CLSCAN_XA, n, status, tile, epoch, chain_seed, skip, in_place, &wl,
                       sh);

  // Publish the inclusive prefix (the exclusive one op the aggregate, one combination) and share
  // the exclusive one with the group.
  if (lid == 0) {
    elem_t prefix = chain_seed;
    if (tile != 0) {
#if CLSCAN_TEST_NO_LOOKBACK
      prefix = IDENTITY;
#else
      prefix = lookback_group_prefix(&wl, &sh->look);
#endif
      if (!withheld)
        status_publish(status, tile, epoch, STATE_PREFIX, combine(prefix, aggregate CLSCAN_XA));
      if (withheld && in_place)
        status_publish(status, tile, epoch, STATE_AGGREGATE, aggregate);
    }
    sh->prefix = prefix;
    single_pass_close(status, n, tile, epoch, prefix, in_place, sh);
  }
  barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
  single_pass_store(out, n, tile, &x, pre, group_prefix, exclusive, seed, in_place, sh CLSCAN_XA);
}

/* NVIDIA's OpenCL applies a register cap (-cl-nv-maxrregcount=N) only to kernels without a
 * required work-group size: on the H200 int8 kept 149 registers under N = 128 with the attribute,
 * and got 128 without it. So a plan with a cap (a tuning row's nv_registers: the host adds
 * CLSCAN_NV_REGISTERS=1 with the option) builds these kernels without the attribute, and the host
 * launches them with CLSCAN_WG work-items all the same. */
#ifndef CLSCAN_NV_REGISTERS
#define CLSCAN_NV_REGISTERS 0
#endif
#if CLSCAN_NV_REGISTERS
#define SINGLE_PASS_KERNEL __kernel
#else
#define SINGLE_PASS_KERNEL __kernel __attribute__((reqd_work_group_size(CLSCAN_WG, 1, 1)))
#endif

/* The scan's two kernels: single_pass_scan for out-of-place launches, single_pass_scan_in_place
 * for in == out (the host picks by its in_place argument). Out of place, the gates compile away,
 * which keeps their code out of the registers of the common case. */
SINGLE_PASS_KERNEL void single_pass_scan(const __global in_t *in, ulong in_off,
                                         const __global uchar *aux, ulong aux_off,
                                         __global val_t *out, ulong out_off, ulong n,
                                         __global uint *temp, uint ticket_base, ulong epoch,
                                         val_t seed, int exclusive, int in_place CLSCAN_XKP) {
  __local single_pass_shared sh;
  READ_SEED(seed);
  single_pass_body(in, in_off, aux, aux_off, out, out_off, n, temp, ticket_base, epoch, seed,
                   exclusive, 0, &sh CLSCAN_XA);
}
SINGLE_PASS_KERNEL void single_pass_scan_in_place(const __global in_t *in, ulong in_off,
                                                  const __global uchar *aux, ulong aux_off,
                                                  __global val_t *out, ulong out_off, ulong n,
                                                  __global uint *temp, uint ticket_base,
                                                  ulong epoch, val_t seed, int exclusive,
                                                  int in_place CLSCAN_XKP) {
  __local single_pass_shared sh;
  READ_SEED(seed);
  single_pass_body(in, in_off, aux, aux_off, out, out_off, n, temp, ticket_base, epoch, seed,
                   exclusive, 1, &sh CLSCAN_XA);
}

/*
 * The finishing launch of an in-place scan (see "In place" above): ceil(ceil(n / TILE) /
 * CLSCAN_WG) work-groups of CLSCAN_WG work-items, with the scan's arguments. It is a kernel of its
 * own so that its code does not add to the registers of single_pass_scan.
 */
SINGLE_PASS_KERNEL void single_pass_finish(const __global in_t *in, ulong in_off,
                                           const __global uchar *aux, ulong aux_off,
                                           __global val_t *out, ulong out_off, ulong n,
                                           __global uint *temp, uint ticket_base, ulong epoch,
                                           val_t seed, int exclusive, int in_place CLSCAN_XKP) {
  __local single_pass_shared sh;
  __global status_t *status = (__global status_t *)((__global uchar *)temp + 64);
  READ_SEED(seed);
  finish_in_place(in + in_off, aux + aux_off * AUX_SIZE CLSCAN_XA, out + out_off, n, status, epoch,
                  CHAIN_SEED(seed), exclusive, seed, &sh);
}
