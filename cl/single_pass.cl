/*
 * clscan kernels: single-pass chained scan with decoupled look-back (Merrill & Garland 2016) and
 * decoupled fallback (Smith, Levien & Owens 2025), so it terminates without forward-progress
 * guarantees between work-groups.
 *
 * Each work-group takes a tile number from an atomic ticket (not its group id: work-groups may
 * start in any order), scans its tile locally, publishes the tile's aggregate, looks back over
 * its predecessors' status words for its exclusive prefix, publishes its inclusive prefix and
 * writes its results. Memory traffic is one read and one write of every element.
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
 * Needs common.cl, tile.cl and status.cl first, and 64-bit atomics.
 */

#ifndef CLSCAN_SPIN
#define CLSCAN_SPIN 64
#endif
#ifndef CLSCAN_TEST_WITHHOLD
#define CLSCAN_TEST_WITHHOLD 0
#endif
/* Measurement only (the results are wrong): skip the look-back, so that every tile starts from
 * the identity. What remains is the tile's load, local scan, publication and store, which bounds
 * what any look-back could reach (build/tile_sweep with -DCLSCAN_TEST_NO_LOOKBACK=1). */
#ifndef CLSCAN_TEST_NO_LOOKBACK
#define CLSCAN_TEST_NO_LOOKBACK 0
#endif
/* Exact operators (integer values under a built-in operator, segmented or not) give the same bits
 * in any bracketing, so their look-back may reduce a window as a tree: the left fold and the tree
 * agree bit for bit. Floating-point values and user operators fold strictly left to right.
 * CLSCAN_LOOKBACK_TREE=0 or 1 overrides the choice (measurement only: a tree on an inexact
 * operator is not deterministic). */
#ifndef CLSCAN_LOOKBACK_TREE
#if CLSCAN_OP != 64 && CLSCAN_TYPE != 64 && !VAL_IS_FLOAT
#define CLSCAN_LOOKBACK_TREE 1
#else
#define CLSCAN_LOOKBACK_TREE 0
#endif
#endif
/* The strict fold on NVIDIA gathers CLSCAN_FOLD_CHUNK window values by shuffles before it combines
 * them, so that the shuffles' latencies overlap (the combinations stay in tile order). */
#ifndef CLSCAN_FOLD_CHUNK
#define CLSCAN_FOLD_CHUNK 16
#endif
/* The strict fold on NVIDIA publishes each tile's inclusive prefix it computes on the way (1), or
 * only the caller's own (0). */
#ifndef CLSCAN_FOLD_PUBLISH
#define CLSCAN_FOLD_PUBLISH 0
#endif

#if CLSCAN_NV_PTX

/* Warp primitives for the look-back window (inline PTX; all 32 lanes execute them). */
ALWAYS_INLINE uint ballot(int predicate) {
  uint r;
  asm volatile("{ .reg .pred p; setp.ne.s32 p, %1, 0; vote.sync.ballot.b32 %0, p, 0xffffffff; }"
               : "=r"(r)
               : "r"(predicate));
  return r;
}

/* Index of the lowest set bit of a non-zero mask. */
ALWAYS_INLINE uint lowest_bit(uint m) {
  return 31u - clz(m & (0u - m));
}

/* Folds lanes first, first - 1, ..., last (first >= last, both warp-uniform) of v onto acc, one
 * after another in that order: CLSCAN_FOLD_CHUNK shuffles, then their combinations. Each lane
 * folded gets the fold through its own value in *mine. */
ALWAYS_INLINE elem_t fold_lanes_down(elem_t acc, elem_t v, uint first, uint last, elem_t *mine) {
  const uint lane = get_local_id(0);
  for (uint base = first + 1; base > last;) {
    elem_t w[CLSCAN_FOLD_CHUNK];
#pragma unroll
    for (uint k = 0; k < CLSCAN_FOLD_CHUNK; k++)
      w[k] = shfl_idx(v, (base - 1u - k) & 31u);
#pragma unroll
    for (uint k = 0; k < CLSCAN_FOLD_CHUNK; k++)
      if (k < base - last) {
        acc = combine(acc, w[k]);
        if (lane == base - 1u - k)
          *mine = acc;
      }
    base = base - last > CLSCAN_FOLD_CHUNK ? base - CLSCAN_FOLD_CHUNK : last;
  }
  return acc;
}

/* Folds lanes first, first + 1, ..., last - 1 (first <= last, warp-uniform) onto acc in order;
 * each lane folded gets the fold through its own value in *mine. */
ALWAYS_INLINE elem_t fold_lanes_up(elem_t acc, elem_t v, uint first, uint last, elem_t *mine) {
  const uint lane = get_local_id(0);
  for (uint base = first; base < last;) {
    elem_t w[CLSCAN_FOLD_CHUNK];
#pragma unroll
    for (uint k = 0; k < CLSCAN_FOLD_CHUNK; k++)
      w[k] = shfl_idx(v, (base + k) & 31u);
#pragma unroll
    for (uint k = 0; k < CLSCAN_FOLD_CHUNK; k++)
      if (base + k < last) {
        acc = combine(acc, w[k]);
        if (lane == base + k)
          *mine = acc;
      }
    base = last - base > CLSCAN_FOLD_CHUNK ? base + CLSCAN_FOLD_CHUNK : last;
  }
  return acc;
}

/* The state of warp 0's look-back, the same in every lane (as lookback_state in status.cl, but
 * the warp keeps no aggregates: its fold rereads the windows its search passed). */
typedef struct warp_lookback {
  long top, next;
  int folding;
  uint spins, first_silent; /* rounds the window's first silent lane, first_silent, stayed so */
  elem_t acc;
} warp_lookback;

#if CLSCAN_LOOKBACK_TREE

ALWAYS_INLINE uint shfl_down_u32(uint x, uint delta) {
  uint r;
  asm volatile("shfl.sync.down.b32 %0, %1, %2, 0x1f, 0xffffffff;" : "=r"(r) : "r"(x), "r"(delta));
  return r;
}
ALWAYS_INLINE elem_t shfl_down(elem_t x, uint delta) {
  elem_bits a = elem_to_bits(x), r;
#pragma unroll
  for (uint i = 0; i < ELEM_WORDS; i++)
    r.u[i] = shfl_down_u32(a.u[i], delta);
  return r.e;
}

/*
 * Exact operators (all 32 lanes call it): lane i reads tile next - i, so one round trip covers
 * 32 predecessors; tiles before 0 read as an inclusive prefix equal to the seed. The ready lanes
 * before the first silent one (through the nearest inclusive prefix, if it comes first) are
 * reduced as a tree into lane 0 and combined onto lb->acc, which is meaningful in lane 0; the
 * result is the left fold's bits, since the operator is exact. Returns LOOKBACK_DONE, or
 * LOOKBACK_FALLBACK when tile lb->next stayed silent for CLSCAN_SPIN rounds.
 */
ALWAYS_INLINE int warp_lookback_run(__global ulong *status, ulong epoch, warp_lookback *lb,
                                    elem_t seed) {
  const uint lane = get_local_id(0);
  for (;;) {
    const long t = lb->next - (long)lane;
    elem_t v = seed;
    ulong state = STATE_PREFIX;
    if (t >= 0)
      state = status_read(status, (ulong)t, epoch, &v);
    const uint silent = ballot(state == 0), done = ballot(state == STATE_PREFIX);
    const uint x = silent ? lowest_bit(silent) : 32u, p = done ? lowest_bit(done) : 32u;
    const uint count = p < x ? p + 1 : x;
    if (count > 0) {
      elem_t w = lane < count ? v : IDENTITY;
#pragma unroll
      for (uint d = 1; d < 32; d <<= 1)
        w = combine(shfl_down(w, d), w);
      lb->acc = combine(w, lb->acc);
      lb->next -= (long)count;
      lb->spins = 0;
    }
    if (p < x)
      return LOOKBACK_DONE;
    if (count == 0) {
      if (++lb->spins >= CLSCAN_SPIN) {
        lb->spins = 0;
        return LOOKBACK_FALLBACK;
      }
      backoff(lb->spins);
    }
  }
}

/* Takes tile lb->next's aggregate v from a fallback (all lanes, the same v). */
ALWAYS_INLINE void warp_take(warp_lookback *lb, elem_t v) {
  lb->acc = combine(v, lb->acc);
  lb->next--;
}

#else

/*
 * Searching (all 32 lanes call it): lane i reads tile next - i, so one round trip covers 32
 * predecessors (Merrill & Garland's window); tiles before 0 read as an inclusive prefix equal to
 * the seed. When the nearest inclusive prefix comes before any silent tile, it and the aggregates
 * after it are folded strictly left to right, one lane's value after another through shuffles
 * (not as a tree: a tree brackets differently and gives other floating-point bits), and the
 * search is over (lb->folding). Returns LOOKBACK_FALLBACK when the window's first silent tile
 * stayed so for CLSCAN_SPIN rounds (lb->next is then that tile), else LOOKBACK_DONE.
 */
ALWAYS_INLINE int warp_search(__global ulong *status, ulong epoch, warp_lookback *lb, elem_t seed) {
  const uint lane = get_local_id(0);
  for (;;) {
    const long t = lb->next - (long)lane;
    elem_t v = seed;
    ulong state = STATE_PREFIX;
    if (t >= 0)
      state = status_read(status, (ulong)t, epoch, &v);
    const uint silent = ballot(state == 0), done = ballot(state == STATE_PREFIX);
    const uint x = silent ? lowest_bit(silent) : 32u, p = done ? lowest_bit(done) : 32u;
    if (p < x) {
      // The prefix of tile next - p, then the aggregates of tiles next - p + 1 .. next.
      elem_t acc = shfl_idx(v, p), mine = IDENTITY;
      if (p > 0)
        acc = fold_lanes_down(acc, v, p - 1, 0, &mine);
      // Each fold step is the inclusive prefix of its tile (the strict left fold through it):
      // publish it, so that later look-backs stop sooner (its owner publishes the same bits).
      if (CLSCAN_FOLD_PUBLISH && lane < p)
        status_publish(status, (ulong)t, epoch, STATE_PREFIX, mine);
      lb->acc = acc;
      lb->folding = 1;
      lb->next++;
      lb->spins = 0;
      return LOOKBACK_DONE;
    }
    if (x == 32) {
      // 32 aggregates and no prefix: search the window before them (the fold rereads these).
      lb->next -= 32;
      lb->spins = 0;
      lb->first_silent = 0;
      continue;
    }
    // A silent tile before any prefix: poll the window again, or reduce that tile ourselves
    // once it stayed silent for CLSCAN_SPIN rounds.
    if (x != lb->first_silent) {
      lb->first_silent = x;
      lb->spins = 0;
    }
    if (++lb->spins >= CLSCAN_SPIN) {
      lb->next -= (long)x;
      lb->spins = 0;
      lb->first_silent = 0;
      return LOOKBACK_FALLBACK;
    }
    backoff(lb->spins);
  }
}

/*
 * Folding (all 32 lanes call it): lane i rereads tile next + i (up to top), and the window is
 * folded onto lb->acc strictly in tile order up to its first unreadable (torn) tile, starting
 * again from the last inclusive prefix among those. Returns LOOKBACK_DONE when next passed top
 * (lb->acc is the exclusive prefix), or LOOKBACK_FALLBACK when tile next stayed unreadable for
 * CLSCAN_SPIN rounds.
 */
ALWAYS_INLINE int warp_fold(__global ulong *status, ulong epoch, warp_lookback *lb) {
  const uint lane = get_local_id(0);
  while (lb->next <= lb->top) {
    const long t = lb->next + (long)lane;
    elem_t v = IDENTITY;
    ulong state = STATE_AGGREGATE;
    if (t <= lb->top)
      state = status_read(status, (ulong)t, epoch, &v);
    const uint silent = ballot(state == 0), x = silent ? lowest_bit(silent) : 32u;
    const uint count = (uint)min((long)x, lb->top - lb->next + 1);
    const uint done = ballot(state == STATE_PREFIX) & (count < 32 ? (1u << count) - 1u : ~0u);
    uint i = 0;
    elem_t acc = lb->acc, mine = IDENTITY;
    if (done) {
      i = 31u - clz(done);
      acc = shfl_idx(v, i++);
    }
    lb->acc = fold_lanes_up(acc, v, i, count, &mine);
    if (CLSCAN_FOLD_PUBLISH && lane >= i && lane < count)
      status_publish(status, (ulong)t, epoch, STATE_PREFIX, mine);
    lb->next += (long)count;
    if (count > 0) {
      lb->spins = 0;
    } else {
      if (++lb->spins >= CLSCAN_SPIN) {
        lb->spins = 0;
        return LOOKBACK_FALLBACK;
      }
      backoff(lb->spins);
    }
  }
  return LOOKBACK_DONE;
}

/* Runs warp 0's look-back (all 32 lanes call it): returns LOOKBACK_DONE (lb->acc is the
 * exclusive prefix) or LOOKBACK_FALLBACK (tile lb->next must be reduced, then warp_take()). */
ALWAYS_INLINE int warp_lookback_run(__global ulong *status, ulong epoch, warp_lookback *lb,
                                    elem_t seed) {
  if (!lb->folding && warp_search(status, epoch, lb, seed) == LOOKBACK_FALLBACK)
    return LOOKBACK_FALLBACK;
  return warp_fold(status, epoch, lb);
}

/* Takes tile lb->next's aggregate v from a fallback (all lanes, the same v). A searching
 * look-back steps past it (its fold rereads it); a folding one folds it. */
ALWAYS_INLINE void warp_take(warp_lookback *lb, elem_t v) {
  if (lb->folding) {
    lb->acc = combine(lb->acc, v);
    lb->next++;
  } else {
    lb->next--;
  }
}

#endif /* CLSCAN_LOOKBACK_TREE */

#endif

/* The work-group's shared state. */
typedef struct single_pass_shared {
  tile_scratch scratch;
  ulong tile;
  long silent;
  int command, entered, write;
  elem_t lead;
  uchar deferred[CLSCAN_WG];
#if !CLSCAN_NV_PTX
  lookback_state lb;
#endif
  elem_t prefix;
} single_pass_shared;

/*
 * The finishing launch of an in-place scan: work-group g looks at the gates of tiles
 * g * CLSCAN_WG .. (one work-item each) and scans each tile whose owner left its output to it,
 * with the same functions and prefix as the owner (so the bits agree).
 */
ALWAYS_INLINE void finish_in_place(const __global in_t *in, const __global uchar *aux CLSCAN_XP,
                                   __global val_t *out, ulong n, __global ulong *status,
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
    tile_load(in, aux CLSCAN_XA, n, t, &x);
    tile_scan_local(&x, pre, &group_prefix, &sh->scratch);
    tile_store(out, n, t, &x, pre, combine(lead, group_prefix), exclusive, seed);
    barrier(CLK_LOCAL_MEM_FENCE);
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
  __global ulong *status = (__global ulong *)((__global uchar *)temp + 64);
  const uint lid = get_local_id(0);
  const elem_t chain_seed = CHAIN_SEED(seed);
  in += in_off;
  aux += aux_off * AUX_SIZE;
  out += out_off;

  // Take a ticket: tiles are numbered in the order work-groups start.
  if (lid == 0)
    sh->tile = atomic_inc(temp) - ticket_base;
  barrier(CLK_LOCAL_MEM_FENCE);
  const ulong tile = sh->tile;
  // Test only: withheld tiles publish nothing (in place: only their aggregate, just before they
  // close their gate, so that readers turned away find a value).
#if CLSCAN_TEST_WITHHOLD
  const int withheld = tile % CLSCAN_TEST_WITHHOLD == 1;
#else
  const int withheld = 0;
#endif

  // Load and scan the tile locally; publish its aggregate at once.
  tile_items x;
  elem_t pre[CLSCAN_VPT], group_prefix;
  tile_load(in, aux CLSCAN_XA, n, tile, &x);
  const elem_t aggregate = tile_scan_local(&x, pre, &group_prefix, &sh->scratch);
  if (lid == 0) {
    if (withheld) {
      // Test only: stay silent.
    } else if (tile == 0) {
      status_publish(status, 0, epoch, STATE_PREFIX, combine(chain_seed, aggregate));
    } else {
      status_publish(status, tile, epoch, STATE_AGGREGATE, aggregate);
    }
  }

  // Look back (tile 0 has no predecessor). Work-item 0 (on NVIDIA warp 0) walks; the whole group
  // joins when a predecessor must be reduced.
#if CLSCAN_NV_PTX
  warp_lookback wl;
  wl.top = (long)tile - 1;
  wl.next = wl.top;
  wl.folding = 0;
  wl.spins = 0;
  wl.first_silent = 0;
  wl.acc = IDENTITY;
#else
  if (lid == 0)
    lookback_begin(&sh->lb, tile);
#endif
  // Tile 0 walks too (its walk reaches the seed at once). The loop's condition is a constant, so
  // that every compiler sees its barriers in uniform control flow (POCL hung on a condition read
  // from local memory), and on NVIDIA it left fewer registers to hold (64 against 68 for int32,
  // 80 against 90 for int64).
  while (!CLSCAN_TEST_NO_LOOKBACK) {
#if CLSCAN_NV_PTX
    if (lid < 32) {
      const int command = warp_lookback_run(status, epoch, &wl, chain_seed);
      if (lid == 0) {
        sh->command = command;
        sh->silent = wl.next;
      }
    }
#else
    if (lid == 0) {
      sh->command = lookback_run(&sh->lb, status, epoch, CLSCAN_SPIN, chain_seed);
      sh->silent = sh->lb.next;
    }
#endif
    barrier(CLK_LOCAL_MEM_FENCE);
    if (sh->command == LOOKBACK_DONE)
      break;
    const ulong silent = (ulong)sh->silent;

    // Fallback: reduce the silent tile from the input in its owner's order. In place only
    // after marking its gate visited; turned away, the owner's publications are complete and
    // the next walk reads them.
    if (in_place) {
      if (lid == 0)
        sh->entered = gate_enter(status, (n + TILE - 1) / TILE, silent, epoch);
      barrier(CLK_LOCAL_MEM_FENCE);
      if (!sh->entered)
        continue;
    }
    const elem_t fagg = tile_reduce(in, aux CLSCAN_XA, n, silent, &sh->scratch);
    if (lid == 0) {
      status_publish(status, silent, epoch, STATE_AGGREGATE, fagg);
#if !CLSCAN_NV_PTX
      lookback_take(&sh->lb, fagg);
#endif
    }
#if CLSCAN_NV_PTX
    if (lid < 32)
      warp_take(&wl, fagg);
#endif
    barrier(CLK_LOCAL_MEM_FENCE);
  }

  // Publish the inclusive prefix (the exclusive one op the aggregate, one combination) and share
  // the exclusive one with the group.
  if (lid == 0) {
    elem_t prefix = chain_seed;
    if (tile != 0) {
#if CLSCAN_TEST_NO_LOOKBACK
      prefix = IDENTITY;
#elif CLSCAN_NV_PTX
      prefix = wl.acc;
#else
      prefix = sh->lb.acc;
#endif
      if (!withheld)
        status_publish(status, tile, epoch, STATE_PREFIX, combine(prefix, aggregate));
      if (withheld && in_place)
        status_publish(status, tile, epoch, STATE_AGGREGATE, aggregate);
    }
    sh->prefix = prefix;
    // In place: store only if no fallback read the tile; else hand its prefix to the finishing
    // launch (as tile - 1's inclusive prefix).
    sh->write = 1;
    if (in_place && gate_close(status, (n + TILE - 1) / TILE, tile, epoch)) {
      sh->write = 0;
      if (tile > 0)
        status_publish(status, tile - 1, epoch, STATE_PREFIX, prefix);
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
  if (!in_place || sh->write)
    tile_store(out, n, tile, &x, pre, combine(sh->prefix, group_prefix), exclusive, seed);
}

/* The scan's two kernels: single_pass_scan for out-of-place launches, single_pass_scan_in_place
 * for in == out (the host picks by its in_place argument). Out of place, the gates compile away,
 * which keeps their code out of the registers of the common case. */
__kernel __attribute__((reqd_work_group_size(CLSCAN_WG, 1, 1))) void single_pass_scan(
    const __global in_t *in, ulong in_off, const __global uchar *aux, ulong aux_off,
    __global val_t *out, ulong out_off, ulong n, __global uint *temp, uint ticket_base, ulong epoch,
    val_t seed, int exclusive, int in_place CLSCAN_XKP) {
  __local single_pass_shared sh;
  READ_SEED(seed);
  single_pass_body(in, in_off, aux, aux_off, out, out_off, n, temp, ticket_base, epoch, seed,
                   exclusive, 0, &sh CLSCAN_XA);
}
__kernel __attribute__((reqd_work_group_size(CLSCAN_WG, 1, 1))) void single_pass_scan_in_place(
    const __global in_t *in, ulong in_off, const __global uchar *aux, ulong aux_off,
    __global val_t *out, ulong out_off, ulong n, __global uint *temp, uint ticket_base, ulong epoch,
    val_t seed, int exclusive, int in_place CLSCAN_XKP) {
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
__kernel __attribute__((reqd_work_group_size(CLSCAN_WG, 1, 1))) void single_pass_finish(
    const __global in_t *in, ulong in_off, const __global uchar *aux, ulong aux_off,
    __global val_t *out, ulong out_off, ulong n, __global uint *temp, uint ticket_base, ulong epoch,
    val_t seed, int exclusive, int in_place CLSCAN_XKP) {
  __local single_pass_shared sh;
  __global ulong *status = (__global ulong *)((__global uchar *)temp + 64);
  READ_SEED(seed);
  finish_in_place(in + in_off, aux + aux_off * AUX_SIZE CLSCAN_XA, out + out_off, n, status, epoch,
                  CHAIN_SEED(seed), exclusive, seed, &sh);
}
