/*
 * clscan kernels: the look-back on NVIDIA (CLSCAN_NV_PTX) as a warp-wide window: warp 0 of a
 * work-group reads 32 predecessors' status words (status.cl) per round trip, lane i tile next - i,
 * and decides with ballots. Exact operators reduce the window's ready values as a tree, others
 * fold them strictly left to right (status.cl, "The look-back as a strict left fold"), so the
 * results have the bits of the serial walker. Elsewhere this file is empty and the programs use
 * status.cl's serial walker (lookback_run).
 *
 * Needs common.cl (or the renamed state of select_common.cl), status.cl and, for the strict fold,
 * tile.cl's shfl_idx first.
 */

#ifndef CLSCAN_SPIN
#define CLSCAN_SPIN 64
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

#if CLSCAN_NV_PTX
/* Starts warp 0's look-back of tile t (all 32 lanes; tile 0's reaches the seed at once). */
ALWAYS_INLINE void warp_lookback_begin(warp_lookback *lb, ulong t) {
  lb->top = (long)t - 1;
  lb->next = lb->top;
  lb->folding = 0;
  lb->spins = 0;
  lb->first_silent = 0;
  lb->acc = IDENTITY;
}
#endif
