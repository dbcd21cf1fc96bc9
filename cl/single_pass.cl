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
 * Fallback. A work-group that has polled a predecessor CLSCAN_SPIN times without a value reduces
 * that tile itself, from the input, combining in its owner's order (so the bits agree), and
 * publishes it as an aggregate. In-place scans validate first: the owner may already have
 * overwritten its input, which it only does after publishing, so a fallback value is used only
 * if the status words still show nothing once it has been computed.
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
 * what any look-back could reach (tools/tile_sweep with -DCLSCAN_TEST_NO_LOOKBACK=1). */
#ifndef CLSCAN_TEST_NO_LOOKBACK
#define CLSCAN_TEST_NO_LOOKBACK 0
#endif

#if CLSCAN_NV_PTX
#define LOOKBACK_LANES 32 /* warp 0 walks */
#else
#define LOOKBACK_LANES 1 /* work-item 0 walks */
#endif
#define LOOKBACK_DONE 0
#define LOOKBACK_FALLBACK 1

/* Pauses between polls: CLSCAN_BACKOFF_NS, doubling up to CLSCAN_BACKOFF_DOUBLINGS times. */
#ifndef CLSCAN_BACKOFF_NS
#define CLSCAN_BACKOFF_NS 32
#endif
#ifndef CLSCAN_BACKOFF_DOUBLINGS
#define CLSCAN_BACKOFF_DOUBLINGS 5
#endif
ALWAYS_INLINE void backoff(uint round) {
#if CLSCAN_NV_PTX
  const uint ns = (uint)CLSCAN_BACKOFF_NS << min(round, (uint)CLSCAN_BACKOFF_DOUBLINGS);
  asm volatile("nanosleep.u32 %0;" ::"r"(ns));
#endif
}

/*
 * Work-item 0 walks back from tile `pred`, folding aggregates into *acc until it meets an
 * inclusive prefix (or the start, where it folds in `seed`). Returns LOOKBACK_DONE, or
 * LOOKBACK_FALLBACK with *pred the tile that stayed silent for CLSCAN_SPIN polls.
 */
ALWAYS_INLINE int lookback_walk(__global ulong *status, ulong epoch, long *pred, elem_t *acc,
                                elem_t seed) {
  for (;;) {
    if (*pred < 0) {
      *acc = combine(seed, *acc);
      return LOOKBACK_DONE;
    }
    elem_t v;
    ulong state = 0;
    for (uint spin = 0; spin < CLSCAN_SPIN; spin++) {
      state = status_read(status, (ulong)*pred, epoch, &v);
      if (state) break;
      backoff(spin);
    }
    if (state == 0) return LOOKBACK_FALLBACK;
    *acc = combine(v, *acc);
    if (state == STATE_PREFIX) return LOOKBACK_DONE;
    (*pred)--;
  }
}

#if CLSCAN_NV_PTX

/* Warp primitives for the look-back window (inline PTX; all 32 lanes execute them). */
ALWAYS_INLINE uint ballot(int predicate) {
  uint r;
  asm volatile("{ .reg .pred p; setp.ne.s32 p, %1, 0; vote.sync.ballot.b32 %0, p, 0xffffffff; }"
               : "=r"(r)
               : "r"(predicate));
  return r;
}
ALWAYS_INLINE uint shfl_down_u32(uint x, uint delta) {
  uint r;
  asm volatile("shfl.sync.down.b32 %0, %1, %2, 0x1f, 0xffffffff;" : "=r"(r) : "r"(x), "r"(delta));
  return r;
}
ALWAYS_INLINE elem_t shfl_down(elem_t x, uint delta) {
  elem_bits a = elem_to_bits(x), r;
#pragma unroll
  for (uint i = 0; i < ELEM_WORDS; i++) r.u[i] = shfl_down_u32(a.u[i], delta);
  return r.e;
}

/* Index of the lowest set bit of a non-zero mask. */
ALWAYS_INLINE uint lowest_bit(uint m) { return 31u - clz(m & (0u - m)); }

/*
 * The look-back of warp 0 (all 32 lanes call it): lane i reads tile pred - i, so one round trip
 * covers 32 predecessors (Merrill & Garland's window). Tiles before 0 read as an inclusive
 * prefix equal to the seed. Lanes up to the nearest inclusive prefix are folded in order,
 * earliest tile leftmost, with a shuffle reduction into lane 0. Returns LOOKBACK_DONE, or
 * LOOKBACK_FALLBACK with *pred the nearest tile that stayed silent for CLSCAN_SPIN rounds.
 * *acc is meaningful in lane 0.
 */
ALWAYS_INLINE int lookback_walk_warp(__global ulong *status, ulong epoch, long *pred, elem_t *acc,
                                     elem_t seed) {
  const uint lane = get_local_id(0);
  uint spins = 0;
  for (;;) {
    const long t = *pred - (long)lane;
    elem_t v = seed;
    ulong state = STATE_PREFIX;
    if (t >= 0) state = status_read(status, (ulong)t, epoch, &v);
    const uint silent = ballot(state == 0), done = ballot(state == STATE_PREFIX);
    const uint x = silent ? lowest_bit(silent) : 32u, p = done ? lowest_bit(done) : 32u;

    // Fold the ready lanes before the first silent one (through the prefix, if it comes first).
    const uint count = p < x ? p + 1 : x;
    if (count > 0) {
      elem_t w = lane < count ? v : IDENTITY;
#pragma unroll
      for (uint d = 1; d < 32; d <<= 1) w = combine(shfl_down(w, d), w);
      *acc = combine(w, *acc);
      *pred -= (long)count;
      spins = 0;
    }
    if (p < x) return LOOKBACK_DONE;
    if (x < 32 && count == 0) {
      // The nearest predecessor is silent: wait, then reduce it ourselves.
      if (++spins >= CLSCAN_SPIN) return LOOKBACK_FALLBACK;
      backoff(spins);
    }
  }
}

#endif

/* The work-group's shared state. */
typedef struct single_pass_shared {
  tile_scratch scratch;
  ulong tile;
  long pred;
  int command;
  elem_t prefix;
} single_pass_shared;

/*
 * Scans in[0, n) into out[0, n) in one pass. Launch exactly ceil(n / TILE) work-groups of
 * CLSCAN_WG work-items. aux (from byte aux_off * AUX_SIZE) holds a segmented scan's flags or keys.
 * temp holds the ticket counter (a uint at byte 0) and, from byte 64, the status words.
 * ticket_base is the counter's value before this launch; epoch is this launch's epoch (>= 1).
 * seed is the initial value (or the identity); in_place is 1 when in == out.
 */
__kernel __attribute__((reqd_work_group_size(CLSCAN_WG, 1, 1))) void single_pass_scan(
    const __global in_t *in, ulong in_off, const __global uchar *aux, ulong aux_off,
    __global val_t *out, ulong out_off, ulong n, __global uint *temp, uint ticket_base,
    ulong epoch, val_t seed, int exclusive, int in_place) {
  __local single_pass_shared sh;
  __global ulong *status = (__global ulong *)((__global uchar *)temp + 64);
  const uint lid = get_local_id(0);
  const elem_t chain_seed = CHAIN_SEED(seed);
  in += in_off;
  aux += aux_off * AUX_SIZE;
  out += out_off;

  // Take a ticket: tiles are numbered in the order work-groups start.
  if (lid == 0) sh.tile = atomic_inc(temp) - ticket_base;
  barrier(CLK_LOCAL_MEM_FENCE);
  const ulong tile = sh.tile;
  // Test only: withheld tiles never publish. In place they would overwrite their input unannounced,
  // which the protocol rules out, so in-place launches withhold nothing.
#if CLSCAN_TEST_WITHHOLD
  const int withheld = !in_place && tile % CLSCAN_TEST_WITHHOLD == 1;
#else
  const int withheld = 0;
#endif

  // Load and scan the tile locally; publish its aggregate at once.
  tile_items x;
  elem_t pre[CLSCAN_VPT], group_prefix;
  tile_load(in, aux, n, tile, &x);
  const elem_t aggregate = tile_scan_local(&x, pre, &group_prefix, &sh.scratch);
  if (lid == 0) {
    if (withheld) {
      // Test only: stay silent.
    } else if (tile == 0) {
      status_publish(status, 0, epoch, STATE_PREFIX, combine(chain_seed, aggregate));
    } else {
      status_publish(status, tile, epoch, STATE_AGGREGATE, aggregate);
    }
  }

  // Look back. Work-item 0 walks; the whole group joins when a predecessor must be reduced.
  elem_t acc = IDENTITY;
  long pred = (long)tile - 1;
  while (!CLSCAN_TEST_NO_LOOKBACK) {
#if CLSCAN_NV_PTX
    if (lid < 32) {
      const int command = lookback_walk_warp(status, epoch, &pred, &acc, chain_seed);
      if (lid == 0) {
        sh.command = command;
        sh.pred = pred;
      }
    }
#else
    if (lid == 0) {
      sh.command = lookback_walk(status, epoch, &pred, &acc, chain_seed);
      sh.pred = pred;
    }
#endif
    barrier(CLK_LOCAL_MEM_FENCE);
    if (sh.command == LOOKBACK_DONE) break;
    const ulong silent = (ulong)sh.pred;

    // Fallback: reduce the silent tile from the input in its owner's order.
    const elem_t fagg = tile_reduce(in, aux, n, silent, &sh.scratch);
    if (lid == 0) {
      elem_t v;
      const ulong state = in_place ? status_read(status, silent, epoch, &v) : 0;
      if (state == 0) {
        // Nobody published meanwhile (or the input cannot have changed): fagg is the value.
        status_publish(status, silent, epoch, STATE_AGGREGATE, fagg);
        acc = combine(fagg, acc);
#if CLSCAN_NV_PTX
        sh.pred = (long)silent - 1;
#else
        pred = (long)silent - 1;
#endif
      }
      // Otherwise the owner published while we read: the next walk takes its value.
    }
    barrier(CLK_LOCAL_MEM_FENCE);
#if CLSCAN_NV_PTX
    // The warp's lanes take the walk's next start from lane 0 (which writes it again next round).
    if (lid < LOOKBACK_LANES) pred = sh.pred;
#endif
    // Elsewhere only work-item 0 walks and it keeps pred itself: no other work-item reads sh.pred
    // after the barrier (a conditional read there was compiled into a speculative read by every
    // work-item, racing with work-item 0's next write; Oclgrind reported it).
  }

  // Publish the inclusive prefix and share the exclusive one with the group. The global fence
  // orders the publications before this group's stores (an in-place fallback relies on it).
  if (lid == 0) {
    const elem_t prefix = tile == 0 ? chain_seed : acc;
    if (tile != 0) {
      if (!withheld) status_publish(status, tile, epoch, STATE_PREFIX, combine(prefix, aggregate));
    }
    sh.prefix = prefix;
  }
  barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
  tile_store(out, n, tile, &x, pre, combine(sh.prefix, group_prefix), exclusive, seed);
}
