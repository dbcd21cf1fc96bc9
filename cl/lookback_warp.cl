/*
 * clscan kernels: the look-back on NVIDIA (CLSCAN_NV_PTX) as a warp-wide window: warp 0 of a
 * work-group reads 32 predecessors' status words (status.cl) per round trip, lane i tile next - i,
 * and decides with ballots. Exact operators reduce the window's ready values as a tree, others
 * fold them strictly left to right (status.cl, "The look-back as a strict left fold"), so the
 * results have the bits of the serial walker: the search keeps what it reads in local memory, and
 * lane 0 folds from there once it met an inclusive prefix. The end of the file runs the
 * look-back of a whole work-group (the GPU shapes of the scan and the selections): with the window
 * on NVIDIA, elsewhere with status.cl's serial walker (lookback_run).
 *
 * The functions that combine states take the extra arguments of the user sources (CLSCAN_XP,
 * common.cl) last. Needs common.cl (or the renamed state of select_common.cl), status.cl and, for
 * the strict fold, tile.cl's shfl_idx first.
 */

#ifndef CLSCAN_SPIN
#define CLSCAN_SPIN 64
#endif
/* Exact operators (integer values under a built-in operator, segmented or not) give the same bits
 * in any bracketing, so their look-back may reduce a window as a tree: the left fold and the tree
 * agree bit for bit. Floating-point values and user operators fold strictly left to right.
 * CLSCAN_LOOKBACK_TREE=0 or 1 overrides the choice (measurement only: a tree on an inexact
 * operator is not deterministic). */
/* The packed narrow tiles (tile.cl, TILE_PACKED) fold too: with the tree, NVIDIA's in-place int16
 * multiplication gave wrong elements on the H200 (driver 580.159.04), even in tile 0, whose
 * look-back reads nothing; the fold gave correct ones and costs int8 addition about 1% (0.852 ->
 * 0.843 of copy, same call). The cause was not found: narrow.sp's int16.mul.sp.wg64.vpt1.prmt
 * cell shows it with -DCLSCAN_LOOKBACK_TREE=1. */
#if defined(TILE_PACKED)
#define LOOKBACK_TREE_PACKED TILE_PACKED
#else
#define LOOKBACK_TREE_PACKED 0
#endif
#ifndef CLSCAN_LOOKBACK_TREE
#if CLSCAN_OP != CLSCAN_USER_OP && CLSCAN_TYPE != CLSCAN_USER_TYPE && !VAL_IS_FLOAT && \
    !LOOKBACK_TREE_PACKED
#define CLSCAN_LOOKBACK_TREE 1
#else
#define CLSCAN_LOOKBACK_TREE 0
#endif
#endif
/* The strict fold loads CLSCAN_FOLD_CHUNK values of local memory before it combines them. On the
 * H200 one at a time was fastest (float 0.897 of copy against 0.85 for chunks of 4, 8 or 16,
 * which used fewer registers; double 0.757 against 0.75). */
#ifndef CLSCAN_FOLD_CHUNK
#define CLSCAN_FOLD_CHUNK 1
#endif
/* The strict fold keeps the aggregates its search reads in local memory, for the tiles up to
 * LOOKBACK_CACHE back, so that it folds them without reading them again; tiles further back are
 * reread 32 per round trip. (Rereading every window doubled the look-back's round trips, which
 * lengthened the chain of tiles waiting for a prefix: the float scan ran at half its speed.) */
#ifndef LOOKBACK_CACHE
#if defined(CLSCAN_STATE_SIZE) && CLSCAN_STATE_SIZE <= 8
#define LOOKBACK_CACHE 256
#elif !defined(CLSCAN_STATE_SIZE) || CLSCAN_STATE_SIZE <= 32
#define LOOKBACK_CACHE 64
#else
#define LOOKBACK_CACHE 32
#endif
#endif
/* Local memory a work-group provides for warp_begin(): the cache, then a window's stage. */
#define LOOKBACK_LOCAL (LOOKBACK_CACHE + 32)

#if CLSCAN_NV_PTX

/* Index of the lowest set bit of a non-zero mask. */
ALWAYS_INLINE uint lowest_bit(uint m) {
  return 31u - clz(m & (0u - m));
}

/* The state of warp 0's look-back, the same in every lane (as lookback_state in status.cl). The
 * strict fold keeps tile top - d's aggregate in cache[d] for d < LOOKBACK_CACHE, and uses
 * cache[LOOKBACK_CACHE ..] as the stage of a reread window. */
typedef struct warp_lookback {
  long top, next;
  int folding;
  uint spins, first_silent; /* rounds the window's first silent lane, first_silent, stayed so */
  elem_t acc;
  __local elem_t *cache; /* LOOKBACK_LOCAL values (unused by the tree) */
} warp_lookback;

/* Starts the look-back of tile t (all 32 lanes); cache has LOOKBACK_LOCAL values. */
ALWAYS_INLINE void warp_begin(warp_lookback *lb, ulong t, __local elem_t *cache) {
  lb->top = (long)t - 1;
  lb->next = lb->top;
  lb->folding = 0;
  lb->spins = 0;
  lb->first_silent = 0;
  lb->acc = IDENTITY;
  lb->cache = cache;
}

#if CLSCAN_LOOKBACK_TREE

/* A warp shuffle of a state, word by word (common.cl shuffles the words). */
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
ALWAYS_INLINE int warp_lookback_run(__global status_t *status, ulong epoch, warp_lookback *lb,
                                    elem_t seed CLSCAN_XP) {
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
        w = combine(shfl_down(w, d), w CLSCAN_XA);
      lb->acc = combine(w, lb->acc CLSCAN_XA);
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
ALWAYS_INLINE void warp_take(warp_lookback *lb, elem_t v CLSCAN_XP) {
  lb->acc = combine(v, lb->acc CLSCAN_XA);
  lb->next--;
}

#else

/* Folds count values of local memory, v[0], v[step], v[2 * step], ... (written by any lane before
 * a warp_sync()), onto acc strictly in that order, in lane 0, and gives every lane the result.
 * The values come in chunks of CLSCAN_FOLD_CHUNK loads issued before their combinations. */
ALWAYS_INLINE elem_t fold_local(elem_t acc, const __local elem_t *v, int step,
                                uint count CLSCAN_XP) {
  if (get_local_id(0) == 0) {
    for (; count >= CLSCAN_FOLD_CHUNK; count -= CLSCAN_FOLD_CHUNK) {
      elem_t w[CLSCAN_FOLD_CHUNK];
#pragma unroll
      for (int k = 0; k < CLSCAN_FOLD_CHUNK; k++)
        w[k] = v[k * step];
#pragma unroll
      for (int k = 0; k < CLSCAN_FOLD_CHUNK; k++)
        acc = combine(acc, w[k] CLSCAN_XA);
      v += CLSCAN_FOLD_CHUNK * step;
    }
    for (; count > 0; count--, v += step)
      acc = combine(acc, *v CLSCAN_XA);
  }
  return shfl_idx(acc, 0);
}

/*
 * Searching (all 32 lanes call it): lane i reads tile next - i, so one round trip covers 32
 * predecessors (Merrill & Garland's window); tiles before 0 read as an inclusive prefix equal to
 * the seed. Each lane keeps what it read in the cache. When the nearest inclusive prefix comes
 * before any silent tile, the search is over: lb->acc is that prefix and lb->next the first tile
 * after it (lb->folding). Returns LOOKBACK_FALLBACK when the window's first silent tile stayed so
 * for CLSCAN_SPIN rounds (lb->next is then that tile), else LOOKBACK_DONE.
 */
ALWAYS_INLINE int warp_search(__global status_t *status, ulong epoch, warp_lookback *lb,
                              elem_t seed) {
  const uint lane = get_local_id(0);
  for (;;) {
    const long t = lb->next - (long)lane;
    elem_t v = seed;
    ulong state = STATE_PREFIX;
    if (t >= 0)
      state = status_read(status, (ulong)t, epoch, &v);
    if (state && lb->top - t < LOOKBACK_CACHE)
      lb->cache[lb->top - t] = v;
    const uint silent = ballot(state == 0), done = ballot(state == STATE_PREFIX);
    const uint x = silent ? lowest_bit(silent) : 32u, p = done ? lowest_bit(done) : 32u;
    if (p < x) {
      // The prefix of tile next - p; the fold goes on with the aggregates after it.
      lb->acc = shfl_idx(v, p);
      lb->next -= (long)p - 1;
      lb->folding = 1;
      lb->spins = 0;
      return LOOKBACK_DONE;
    }
    if (x == 32) {
      // 32 aggregates and no prefix: search the window before them.
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
 * Folding (all 32 lanes call it), strictly in tile order from lb->next to lb->top. Tiles further
 * back than the cache reaches are reread, 32 per round trip (lane i tile next + i), into the stage
 * and folded up to the window's first unreadable (torn) tile, starting again from the last
 * inclusive prefix among them (status words only move forward: a better start); the rest comes
 * from the cache. Returns LOOKBACK_DONE (lb->acc is the exclusive prefix), or LOOKBACK_FALLBACK
 * when tile next stayed unreadable for CLSCAN_SPIN rounds.
 */
ALWAYS_INLINE int warp_fold(__global status_t *status, ulong epoch, warp_lookback *lb CLSCAN_XP) {
  const uint lane = get_local_id(0);
  __local elem_t *stage = lb->cache + LOOKBACK_CACHE;
  const long last = lb->top - LOOKBACK_CACHE; /* the last tile the cache does not hold */
  while (lb->next <= last) {
    const long t = lb->next + (long)lane;
    elem_t v = IDENTITY;
    ulong state = STATE_AGGREGATE;
    if (t <= last)
      state = status_read(status, (ulong)t, epoch, &v);
    const uint silent = ballot(state == 0), x = silent ? lowest_bit(silent) : 32u;
    const uint count = (uint)min((long)x, last - lb->next + 1);
    const uint done = ballot(state == STATE_PREFIX) & (count < 32 ? (1u << count) - 1u : ~0u);
    uint i = 0;
    elem_t acc = lb->acc;
    if (done) {
      i = 31u - clz(done);
      acc = shfl_idx(v, i++);
    }
    stage[lane] = v;
    warp_sync();
    lb->acc = fold_local(acc, stage + i, 1, count - i CLSCAN_XA);
    warp_sync();
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
  if (lb->next <= lb->top) {
    // cache[d] is tile top - d's aggregate: in tile order, d runs from top - next down to 0.
    warp_sync();
    const uint d = (uint)(lb->top - lb->next);
    lb->acc = fold_local(lb->acc, lb->cache + d, -1, d + 1 CLSCAN_XA);
    lb->next = lb->top + 1;
  }
  return LOOKBACK_DONE;
}

/* Runs warp 0's look-back (all 32 lanes call it): returns LOOKBACK_DONE (lb->acc is the
 * exclusive prefix) or LOOKBACK_FALLBACK (tile lb->next must be reduced, then warp_take()). */
ALWAYS_INLINE int warp_lookback_run(__global status_t *status, ulong epoch, warp_lookback *lb,
                                    elem_t seed CLSCAN_XP) {
  if (!lb->folding && warp_search(status, epoch, lb, seed) == LOOKBACK_FALLBACK)
    return LOOKBACK_FALLBACK;
  return warp_fold(status, epoch, lb CLSCAN_XA);
}

/* Takes tile lb->next's aggregate v from a fallback (all lanes, the same v). A searching
 * look-back keeps it in the cache (or its fold rereads it) and steps past it; a folding one folds
 * it. */
ALWAYS_INLINE void warp_take(warp_lookback *lb, elem_t v CLSCAN_XP) {
  if (lb->folding) {
    lb->acc = combine(lb->acc, v CLSCAN_XA);
    lb->next++;
  } else {
    if (get_local_id(0) == 0 && lb->top - lb->next < LOOKBACK_CACHE)
      lb->cache[lb->top - lb->next] = v;
    lb->next--;
  }
}

#endif /* CLSCAN_LOOKBACK_TREE */

#endif

/* ---------------------------------------------------------------------------------------------
 * The look-back of a work-group, as the GPU shapes of the scan (single_pass.cl) and the
 * selections (select.cl) run it. On NVIDIA warp 0 walks with its private window above (the
 * lookback_walker is a warp_lookback); elsewhere work-item 0 walks status.cl's serial look-back,
 * whose state lives in the group's local memory (the walker is an unused placeholder). A walk
 * that stops at a silent predecessor leaves that tile in `silent`; the whole group reduces it from
 * the input, and lookback_group_take() publishes its aggregate and hands it to the walker.
 * lookback_group_walk() and lookback_group_take() are called by the whole group and end with a
 * barrier, so that every compiler sees the barriers in uniform control flow (POCL hung in the
 * fallback with more than 2 work-items when the caller's loop broke between two barriers).
 * ------------------------------------------------------------------------------------------- */
#if CLSCAN_NV_PTX
typedef warp_lookback lookback_walker;
#else
typedef uchar lookback_walker;
#endif

/* What the group's look-back keeps in local memory (a field of the kernel's shared state). */
typedef struct lookback_group_shared {
  long silent; /* the silent predecessor a walk stopped at */
  int command; /* the walk's result: LOOKBACK_DONE or LOOKBACK_FALLBACK */
#if !CLSCAN_NV_PTX
  lookback_state lb; /* the serial walker's state */
#elif !CLSCAN_LOOKBACK_TREE
  elem_t cache[LOOKBACK_LOCAL]; /* the strict fold's window (warp_begin) */
#endif
} lookback_group_shared;

/* Starts tile t's look-back. */
ALWAYS_INLINE void lookback_group_begin(lookback_walker *wl, ulong t,
                                        __local lookback_group_shared *ls) {
#if CLSCAN_NV_PTX
#if CLSCAN_LOOKBACK_TREE
  warp_begin(wl, t, 0);
#else
  warp_begin(wl, t, ls->cache);
#endif
#else
  if (get_local_id(0) == 0)
    lookback_begin(&ls->lb, t);
#endif
}

/* One walk: the walkers search back for the exclusive prefix and leave in ls->command whether
 * they found it (LOOKBACK_DONE) or stopped at a silent predecessor, and that tile in ls->silent.
 * A tile that skips its look-back is done at once, from the identity. Returns 1 when the
 * look-back is done. */
ALWAYS_INLINE int lookback_group_walk(__global status_t *status, ulong epoch, elem_t seed,
                                      uint skip, lookback_walker *wl,
                                      __local lookback_group_shared *ls CLSCAN_XP) {
  const uint lid = get_local_id(0);
#if CLSCAN_NV_PTX
  if (lid < 32) {
    const int command = skip ? LOOKBACK_DONE : warp_lookback_run(status, epoch, wl, seed CLSCAN_XA);
    if (lid == 0) {
      ls->command = command;
      ls->silent = wl->next;
    }
  }
#else
  if (lid == 0) {
    if (skip)
      ls->lb.acc = IDENTITY;
    ls->command =
        skip ? LOOKBACK_DONE : lookback_run(&ls->lb, status, epoch, CLSCAN_SPIN, seed CLSCAN_XA);
    ls->silent = ls->lb.next;
  }
#endif
  barrier(CLK_LOCAL_MEM_FENCE);
  return ls->command == LOOKBACK_DONE;
}

/* The fallback's hand-over: work-item 0 publishes silent tile t's aggregate, which the group
 * reduced from the input, and the walker takes it. */
ALWAYS_INLINE void lookback_group_take(__global status_t *status, ulong t, ulong epoch,
                                       elem_t aggregate, lookback_walker *wl,
                                       __local lookback_group_shared *ls CLSCAN_XP) {
  const uint lid = get_local_id(0);
  if (lid == 0) {
    status_publish(status, t, epoch, STATE_AGGREGATE, aggregate);
#if !CLSCAN_NV_PTX
    lookback_take(&ls->lb, aggregate CLSCAN_XA);
#endif
  }
#if CLSCAN_NV_PTX
  if (lid < 32)
    warp_take(wl, aggregate CLSCAN_XA);
#endif
  barrier(CLK_LOCAL_MEM_FENCE);
}

/* The exclusive prefix a finished look-back found (meaningful in work-item 0). */
ALWAYS_INLINE elem_t lookback_group_prefix(const lookback_walker *wl,
                                           const __local lookback_group_shared *ls) {
#if CLSCAN_NV_PTX
  return wl->acc;
#else
  return ls->lb.acc;
#endif
}
