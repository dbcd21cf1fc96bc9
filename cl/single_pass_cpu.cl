/*
 * clscan kernels: the single-pass scan shaped for CPU devices (POCL).
 *
 * One work-item per work-group and a large tile (CLSCAN_CPU_TILE elements): a CPU runs each
 * work-group as a plain loop, so no barriers, no local memory and no per-work-item context are
 * needed, and the tile stays in the core's cache between its reduction and its scan. Tiles are
 * numbered by an atomic ticket; the status words (status.cl), epochs and the decoupled fallback are
 * those of single_pass.cl (see there). Memory traffic is one read and one write of every element,
 * plus a re-read of each tile from cache.
 *
 * Needs common.cl and status.cl first, and 64-bit atomics.
 */

#ifndef CLSCAN_CPU_TILE
#define CLSCAN_CPU_TILE 32768
#endif
#ifndef CLSCAN_SPIN
#define CLSCAN_SPIN 1024
#endif

#if CLSCAN_PLAIN
/* (These two are plainly inline: always inlined, Oclgrind's compiler turns the non-temporal store
 * below into a store of an undefined value.) */

/* Scans eight elements in registers, seeded with *acc; stores inclusive or exclusive results. */
inline vec8_t cpu_scan8(vec8_t x, elem_t *acc, int exclusive CLSCAN_XP) {
  const elem_t a = *acc;
  const elem_t s0 = combine(a, x.s0 CLSCAN_XA), s1 = combine(s0, x.s1 CLSCAN_XA),
               s2 = combine(s1, x.s2 CLSCAN_XA);
  const elem_t s3 = combine(s2, x.s3 CLSCAN_XA), s4 = combine(s3, x.s4 CLSCAN_XA),
               s5 = combine(s4, x.s5 CLSCAN_XA);
  const elem_t s6 = combine(s5, x.s6 CLSCAN_XA), s7 = combine(s6, x.s7 CLSCAN_XA);
  *acc = s7;
  return exclusive ? (vec8_t)(a, s0, s1, s2, s3, s4, s5, s6)
                   : (vec8_t)(s0, s1, s2, s3, s4, s5, s6, s7);
}

/*
 * Reduces in[begin, end) in order, eight elements an iteration in registers: the same
 * combinations as one at a time, so owner and fallback get the same bits, in an eighth of the loop
 * iterations (Mesa rusticl's llvmpipe allows a work-item 65535 in all, tests/rusticl/loop_limit.c).
 */
ALWAYS_INLINE elem_t cpu_reduce(const __global in_t *in, const __global uchar *aux CLSCAN_XP,
                                ulong begin, ulong end) {
  elem_t acc = IDENTITY;
  ulong i = begin;
  for (; i + 8 <= end; i += 8)
    (void)cpu_scan8(vload8(0, in + i), &acc, 0 CLSCAN_XA);
  for (; i < end; i++)
    acc = combine(acc, in[i] CLSCAN_XA);
  return acc;
}

/*
 * Scans in[begin, end) into out[begin, end), seeded with prefix: eight elements at a time in
 * registers. Where the compiler has it and the output is aligned, the stores are non-temporal,
 * so the output lines are not read in before they are overwritten (measured on POCL: a scan at
 * about copy speed instead of about 1.3 x its time).
 */
inline void cpu_scan_tile(const __global in_t *in, const __global uchar *aux CLSCAN_XP,
                          __global val_t *out, ulong begin, ulong end, elem_t prefix, int exclusive,
                          val_t seed) {
  elem_t acc = prefix;
  ulong i = begin;
#if defined(__has_builtin)
#if __has_builtin(__builtin_nontemporal_store)
  if ((ulong)(out + i) % sizeof(vec8_t) == 0) {
    for (; i + 8 <= end; i += 8) {
      const vec8_t r = cpu_scan8(vload8(0, in + i), &acc, exclusive CLSCAN_XA);
      __builtin_nontemporal_store(r, (__global vec8_t *)(out + i));
    }
#if defined(__x86_64__) || defined(__i386__)
    // Non-temporal stores are weakly ordered: make them visible before the kernel completes.
    __builtin_ia32_sfence();
#endif
  }
#endif
#endif
  for (; i + 8 <= end; i += 8)
    vstore8(cpu_scan8(vload8(0, in + i), &acc, exclusive CLSCAN_XA), 0, out + i);
  for (; i < end; i++) {
    const elem_t x = in[i], next = combine(acc, x CLSCAN_XA);
    out[i] = exclusive ? acc : next;
    acc = next;
  }
}
#else
/*
 * The general path (maps, conversions, user types and segments), one element at a time. Its loops
 * take eight elements an iteration, fully unrolled, and then the rest: Mesa rusticl's llvmpipe
 * allows a work-item 65535 loop iterations in all, and unrolled ones do not count
 * (tests/rusticl/loop_limit.c); a tile's reduction and scan one element an iteration would take
 * 65536.
 */

/* Reduces in[begin, end) in order (aux: see common.cl). */
ALWAYS_INLINE elem_t cpu_reduce(const __global in_t *in, const __global uchar *aux CLSCAN_XP,
                                ulong begin, ulong end) {
  elem_t acc = IDENTITY;
  ulong at = 0; /* offsets: the search position, carried from element to element */
  ulong i = begin;
  for (; i + 8 <= end; i += 8) {
#pragma unroll
    for (uint k = 0; k < 8; k++)
      acc = combine(acc, make_elem_at(in[i + k], aux CLSCAN_XA, i + k, &at) CLSCAN_XA);
  }
  for (; i < end; i++)
    acc = combine(acc, make_elem_at(in[i], aux CLSCAN_XA, i, &at) CLSCAN_XA);
  return acc;
}

/* Scans element i: stores its result and moves acc on (at: see cpu_reduce). */
ALWAYS_INLINE void cpu_scan1(const __global in_t *in, const __global uchar *aux CLSCAN_XP,
                             __global val_t *out, ulong i, elem_t *acc, ulong *at, int exclusive,
                             val_t seed) {
  const elem_t x = make_elem_at(in[i], aux CLSCAN_XA, i, at), next = combine(*acc, x CLSCAN_XA);
  out[i] = out_value(*acc, x, next, exclusive, seed CLSCAN_XA);
  *acc = next;
}

/* Scans in[begin, end) into out[begin, end), seeded with prefix. */
ALWAYS_INLINE void cpu_scan_tile(const __global in_t *in, const __global uchar *aux CLSCAN_XP,
                                 __global val_t *out, ulong begin, ulong end, elem_t prefix,
                                 int exclusive, val_t seed) {
  elem_t acc = prefix;
  ulong at = 0;
  ulong i = begin;
  for (; i + 8 <= end; i += 8) {
#pragma unroll
    for (uint k = 0; k < 8; k++)
      cpu_scan1(in, aux CLSCAN_XA, out, i + k, &acc, &at, exclusive, seed);
  }
  for (; i < end; i++)
    cpu_scan1(in, aux CLSCAN_XA, out, i, &acc, &at, exclusive, seed);
}
#endif

/*
 * Looks back from tile t - 1 to find tile t's exclusive prefix (the left fold of the aggregates
 * before it, status.cl), reducing silent tiles itself (in place through their gates, see
 * single_pass.cl).
 */
ALWAYS_INLINE elem_t cpu_lookback(const __global in_t *in, const __global uchar *aux CLSCAN_XP,
                                  ulong n, __global status_t *status, ulong t, ulong epoch,
                                  elem_t chain_seed, int in_place, __local lookback_state *lb) {
  const ulong tiles = (n + CLSCAN_CPU_TILE - 1) / CLSCAN_CPU_TILE;
  lookback_begin(lb, t);
  while (lookback_run(lb, status, epoch, CLSCAN_SPIN, chain_seed CLSCAN_XA) == LOOKBACK_FALLBACK) {
    const ulong silent = (ulong)lb->next, begin = silent * CLSCAN_CPU_TILE;
    const ulong end = min(begin + CLSCAN_CPU_TILE, n);
    // In place only after marking its gate visited; turned away, the owner's publications are
    // complete and the next walk reads them.
    if (in_place && !gate_enter(status, tiles, silent, epoch))
      continue;
    const elem_t v = cpu_reduce(in, aux CLSCAN_XA, begin, end);
    status_publish(status, silent, epoch, STATE_AGGREGATE, v);
    lookback_take(lb, v CLSCAN_XA);
  }
  return lb->acc;
}

/*
 * Scans in[0, n) into out[0, n). Launch ceil(n / CLSCAN_CPU_TILE) work-groups of one work-item.
 * Arguments as for single_pass_scan in single_pass.cl.
 */
__kernel __attribute__((reqd_work_group_size(1, 1, 1))) void single_pass_scan_cpu(
    const __global in_t *in, ulong in_off, const __global uchar *aux, ulong aux_off,
    __global val_t *out, ulong out_off, ulong n, __global uint *temp, uint ticket_base, ulong epoch,
    val_t seed, int exclusive, int in_place CLSCAN_XKP) {
  __local lookback_state lb;
  READ_SEED(seed);
  __global status_t *status = (__global status_t *)((__global uchar *)temp + 64);
  const elem_t chain_seed = CHAIN_SEED(seed);
  in += in_off;
  aux += aux_off * AUX_SIZE;
  out += out_off;
  const ulong tiles = (n + CLSCAN_CPU_TILE - 1) / CLSCAN_CPU_TILE;
  if (in_place == 2) {
    // The finishing launch of an in-place scan (see single_pass.cl): work-group g writes tile g
    // if its owner left it.
    const ulong t = get_group_id(0), begin = t * CLSCAN_CPU_TILE;
    if (t < tiles && gate_deferred(status, tiles, t, epoch))
      cpu_scan_tile(in, aux CLSCAN_XA, out, begin, min(begin + CLSCAN_CPU_TILE, n),
                    gate_exclusive(status, t, epoch, chain_seed), exclusive, seed);
    return;
  }
  const ulong tile = atomic_inc(temp) - ticket_base;
  // A ticket past the last tile has nothing to do. Only a lane that holds no work-item gets one:
  // Mesa rusticl's llvmpipe runs a work-group in SIMD lanes, and in the lanes left over (7 of 8
  // here) loads and atomics return 0, so their ticket is 0 - ticket_base; though masked, those
  // lanes keep the loops they enter running, and every iteration counts against the work-item's
  // 65535 loop iterations (tests/rusticl/empty_lanes.c). Their look-back would spin until the
  // count ran out, and the scan loops after it would stop after one iteration.
  if (tile >= tiles)
    return;
  // Test only: withheld tiles publish nothing (in place: only their aggregate, just before they
  // close their gate, so that readers turned away find a value).
  const int withheld = tile_withheld(tile);
  const ulong begin = tile * CLSCAN_CPU_TILE, end = min(begin + CLSCAN_CPU_TILE, n);

  // Reduce and publish the aggregate, then find the exclusive prefix.
  const elem_t aggregate = cpu_reduce(in, aux CLSCAN_XA, begin, end);
  elem_t prefix = chain_seed;
  if (tile == 0) {
    if (!withheld)
      status_publish(status, 0, epoch, STATE_PREFIX, combine(chain_seed, aggregate CLSCAN_XA));
  } else {
    if (!withheld)
      status_publish(status, tile, epoch, STATE_AGGREGATE, aggregate);
    prefix = cpu_lookback(in, aux CLSCAN_XA, n, status, tile, epoch, chain_seed, in_place, &lb);
    if (!withheld)
      status_publish(status, tile, epoch, STATE_PREFIX, combine(prefix, aggregate CLSCAN_XA));
    if (withheld && in_place)
      status_publish(status, tile, epoch, STATE_AGGREGATE, aggregate);
  }
  mem_fence(CLK_GLOBAL_MEM_FENCE);

  // Scan the tile (now in cache) seeded with its prefix. In place only if no fallback read it;
  // else its prefix goes to the finishing launch (as tile - 1's inclusive prefix).
  if (in_place && gate_close(status, tiles, tile, epoch)) {
    if (tile > 0)
      status_publish(status, tile - 1, epoch, STATE_PREFIX, prefix);
    return;
  }
  cpu_scan_tile(in, aux CLSCAN_XA, out, begin, end, prefix, exclusive, seed);
}
