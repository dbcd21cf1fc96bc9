/*
 * clscan kernels: the stable LSD radix sort (src/algo_radix_sort.c,
 * src/algo_radix_sort_onesweep.c).
 *
 * Keys are sorted by their ordered bits: the key's bit pattern with the sign bit flipped for
 * signed integers, and for floating-point keys with every bit flipped when the sign is set and
 * the sign bit set otherwise (the IEEE total order by bit pattern: -NaN < -inf < ... < -0.0 <
 * +0.0 < ... < +inf < +NaN); descending sorts invert the ordered bits. Each pass sorts by one
 * digit of up to 8 bits of the ordered bits, from begin_bit upwards; keys and values move
 * unchanged.
 *
 * Tiles: work-group g owns keys [g * SORT_TILE, (g + 1) * SORT_TILE) and ranks them in local
 * memory (see "Ranking a tile in local memory" for the shapes). In the per-work-item ranking
 * work-item l owns the SORT_ITEMS consecutive keys from g * SORT_TILE + l * SORT_ITEMS, and
 * rank[d * SORT_WG + l] counts its keys of digit d; in the warp ranking warp w owns the
 * 32 * SORT_ITEMS consecutive keys from g * SORT_TILE + w * 32 * SORT_ITEMS, and one count per
 * digit and warp. The exclusive scan of the counts in digit-major order is each (digit, owner)'s
 * first place in the tile, so every key's place follows from its digit, its owner and its order
 * within the owner's keys: the scatter is stable by construction, and no atomic decides an
 * order.
 *
 * The portable path (sort_count, the three sort_scan_* kernels and sort_scatter) takes each
 * tile's digit offsets from an exclusive scan of all tiles' counts in digit-major order. The
 * Onesweep path (sort_histogram, sort_passes, sort_onesweep, sort_finish) counts every pass's
 * digits in one launch and takes each tile's digit offsets from a chained scan across tiles, one
 * chain per digit, with the scan's status words (status.cl; one state per digit and tile,
 * tile-major: a 64-bit word, or two 32-bit words where the device lacks 64-bit atomics), a
 * decoupled look-back and the decoupled fallback: a tile whose predecessor is silent counts that
 * predecessor's digit itself, so no tile waits for another to be scheduled.
 * The look-back runs the 256 chains in parallel: each of SORT_LANES work-items walks SORT_CHAINS
 * chains at once, reading SORT_WINDOW predecessors of each per round, adding counts (sums of
 * integers: exact whatever was read), and publishes each digit's inclusive prefix as soon as its
 * chain is done.
 * A pass in which one digit holds every key is the identity and is skipped; every kernel derives
 * from the histogram which buffer holds the keys before its pass.
 *
 * Set by the host (the plan's prelude): SORT_KEY_TYPE (a clscan_type value), SORT_KEY_SIZE,
 * SORT_VALUE_SIZE (0: keys only), SORT_DESCENDING, SORT_WG, SORT_ITEMS, SORT_LANES (Onesweep:
 * work-items that run look-backs, a power of two <= SORT_WG), SORT_RANK_WARPS (1: the warp
 * ranking, with SORT_WG 256), SORT_EXCHANGE (1: 4- or 8-byte values staged beside the keys).
 * Where CLSCAN_NV_PTX is set the warp ranking and the work-group scans use warp barriers and
 * shuffles (SORT_NV_WARPS). Needs common.cl first (with
 * CLSCAN_TYPE uint and CLSCAN_OP add), and status.cl before it for the Onesweep kernels
 * (SORT_ONESWEEP).
 */

#ifndef SORT_KEY_TYPE
#define SORT_KEY_TYPE CLSCAN_UINT32
#define SORT_KEY_SIZE 4
#endif
#ifndef SORT_VALUE_SIZE
#define SORT_VALUE_SIZE 0
#endif
#ifndef SORT_DESCENDING
#define SORT_DESCENDING 0
#endif
#ifndef SORT_WG
#define SORT_WG 32
#endif
#ifndef SORT_ITEMS
#define SORT_ITEMS 32
#endif
#ifndef SORT_LANES
#define SORT_LANES 1
#endif
#ifndef SORT_RANK_WARPS
#define SORT_RANK_WARPS 0
#endif
#ifndef SORT_ONESWEEP
#ifdef STATUS_EPOCH_SHIFT /* status.cl came first */
#define SORT_ONESWEEP 1
#else
#define SORT_ONESWEEP 0
#endif
#endif
#ifndef SORT_SPIN
#define SORT_SPIN 1024
#endif
/* Measurement only (-DSORT_TEST_NO_LOOKBACK=1): Onesweep's tiles neither publish nor look back
 * and take offsets as if each were the first tile, so the output is wrong but every store stays
 * in bounds; what is left is the time of the pass without its chained scan. */
#ifndef SORT_TEST_NO_LOOKBACK
#define SORT_TEST_NO_LOOKBACK 0
#endif

#define SORT_RADIX 256
#define SORT_TILE (SORT_WG * SORT_ITEMS)
#define SORT_KEY_BITS (SORT_KEY_SIZE * 8)

/* The key as an unsigned word of its size. */
#if SORT_KEY_SIZE == 1
typedef uchar sort_bits_t;
#elif SORT_KEY_SIZE == 2
typedef ushort sort_bits_t;
#elif SORT_KEY_SIZE == 4
typedef uint sort_bits_t;
#else
typedef ulong sort_bits_t;
#endif

/* A value moves as an opaque block of its size, in the widest words its size allows. */
#if SORT_VALUE_SIZE
#if SORT_VALUE_SIZE % 8 == 0
typedef struct sort_value_t {
  ulong w[SORT_VALUE_SIZE / 8];
} sort_value_t;
#elif SORT_VALUE_SIZE % 4 == 0
typedef struct sort_value_t {
  uint w[SORT_VALUE_SIZE / 4];
} sort_value_t;
#elif SORT_VALUE_SIZE % 2 == 0
typedef struct sort_value_t {
  ushort w[SORT_VALUE_SIZE / 2];
} sort_value_t;
#else
typedef struct sort_value_t {
  uchar w[SORT_VALUE_SIZE];
} sort_value_t;
#endif
#else
typedef uchar sort_value_t; /* never read or written */
#endif

/* Places within a tile fit 16 bits when the tile does (halves the ranking's local memory). */
#if SORT_TILE <= 65535
typedef ushort sort_rank_t;
#else
typedef uint sort_rank_t;
#endif

/* Floating-point keys, whose ordered bits flip with the sign, and signed integer keys, whose sign
 * bit flips (see the top of the file). */
#define SORT_FLOAT_KEYS \
  (SORT_KEY_TYPE == CLSCAN_FLOAT || SORT_KEY_TYPE == CLSCAN_DOUBLE || SORT_KEY_TYPE == CLSCAN_HALF)
#define SORT_SIGNED_KEYS                                             \
  (SORT_KEY_TYPE == CLSCAN_INT32 || SORT_KEY_TYPE == CLSCAN_INT64 || \
   SORT_KEY_TYPE == CLSCAN_INT8 || SORT_KEY_TYPE == CLSCAN_INT16)

/* The ordered bits of a key (see the top of the file). */
#define SORT_SIGN ((sort_bits_t)((sort_bits_t)1 << (SORT_KEY_BITS - 1)))
ALWAYS_INLINE sort_bits_t sort_order(sort_bits_t k) {
#if SORT_FLOAT_KEYS
  k = (k & SORT_SIGN) ? (sort_bits_t)~k : (sort_bits_t)(k | SORT_SIGN);
#elif SORT_SIGNED_KEYS
  k = (sort_bits_t)(k ^ SORT_SIGN);
#endif
#if SORT_DESCENDING
  k = (sort_bits_t)~k;
#endif
  return k;
}

/* The digit of a key at `shift` (mask: the digit's width in ones). */
ALWAYS_INLINE uint sort_digit(sort_bits_t k, uint shift, uint mask) {
  return (uint)(sort_order(k) >> shift) & mask;
}

/* The key whose ordered bits are all ones, so that its digit is the highest (`mask`) in every
 * pass: the pad of the warp ranking's last tile (SORT_PAD_KEYS). */
ALWAYS_INLINE sort_bits_t sort_pad_key(void) {
#if SORT_DESCENDING
  const sort_bits_t ordered = 0; /* ascending order's bits before the descending flip */
#else
  const sort_bits_t ordered = (sort_bits_t) ~(sort_bits_t)0;
#endif
#if SORT_FLOAT_KEYS
  return ordered ? (sort_bits_t)~SORT_SIGN : (sort_bits_t) ~(sort_bits_t)0;
#elif SORT_SIGNED_KEYS
  return (sort_bits_t)(ordered ^ SORT_SIGN);
#else
  return ordered;
#endif
}

/* Work-item l's keys of tile t: [*begin, *end). */
ALWAYS_INLINE void sort_item_range(ulong t, ulong n, ulong *begin, ulong *end) {
  const ulong b = t * SORT_TILE + (ulong)get_local_id(0) * SORT_ITEMS;
  *begin = min(b, n);
  *end = min(b + SORT_ITEMS, n);
}

/* The number of keys in tile t. */
ALWAYS_INLINE uint sort_in_tile(ulong t, ulong n) {
  return (uint)min((ulong)SORT_TILE, n - t * SORT_TILE);
}

/* On NVIDIA (CLSCAN_NV_PTX) the work-group scan and the warp ranking use the warp's shuffles and
 * barriers: 32 consecutive work-items of a one-dimensional work-group are a hardware warp. The
 * build option -DSORT_NV_WARPS=0 takes the portable code there too (for measurements). */
#ifndef SORT_NV_WARPS
#define SORT_NV_WARPS 1
#endif
#if SORT_NV_WARPS && !(CLSCAN_NV_PTX && SORT_WG > 1 && SORT_WG % 32 == 0)
#undef SORT_NV_WARPS
#define SORT_NV_WARPS 0
#endif

/* Exclusive scan of one value per work-item across the work-group; *total gets the sum. */
ALWAYS_INLINE uint sort_wg_exclusive(uint x, __local uint *s, uint *total) {
#if SORT_WG == 1
  *total = x;
  return 0;
#elif SORT_NV_WARPS
  const uint r = warp_group_exclusive_sum(x, SORT_WG, s, total);
  barrier(CLK_LOCAL_MEM_FENCE);
  return r;
#else
  const uint r = local_exclusive_sum(x, SORT_WG, s, total);
  barrier(CLK_LOCAL_MEM_FENCE);
  return r;
#endif
}

/* ---------------------------------------------------------------------------------------------
 * Ranking a tile in local memory.
 * ------------------------------------------------------------------------------------------- */

/*
 * Three shapes. With one work-item per tile (the CPU shape) keys move directly. With more than
 * one (the GPU shapes) the tile is staged in local memory: ranked, placed in local memory in
 * sorted order, and stored with consecutive work-items writing consecutive places of each
 * digit's run, so that global stores coalesce. Local arrays read with a stride of SORT_ITEMS or
 * SORT_RADIX entries per work-item are padded so that the work-items of a wave fall on different
 * banks.
 *
 * The per-work-item ranking (SORT_RANK_WARPS 0) keeps one count per digit and work-item, so its
 * work-groups stay small (32 work-items of 32 keys).
 *
 * The warp ranking (SORT_RANK_WARPS 1: 256 work-items of SORT_ITEMS keys) splits the work-group
 * into warps of 32 consecutive work-items, each owning SORT_ITEMS * 32 consecutive keys of the
 * tile, which it ranks in SORT_ITEMS rounds of 32 (lane l of warp w takes tile key
 * w * 32 * SORT_ITEMS + i * 32 + l in round i, so the loads coalesce). First each warp counts its
 * keys of every digit (local atomics: the early counts), and work-item d scans digit d's counts
 * over the warps and the digits' totals, which gives each (warp, digit) its first place in the
 * tile. Then in each round every lane sets its bit in the word of its (warp, digit) with
 * atomic_or; the word then names the lanes of the round with the same digit, so a lane's place is
 * the warp's next place of the digit plus the peers below it, and one peer advances the next place
 * by the number of peers and clears the word (sort_place_tile: with work-group barriers anywhere,
 * with warp barriers and a shuffle on NVIDIA). The bits decide the order, not the atomics' order,
 * so the ranking is stable.
 */
#if SORT_WG > 1
#define SORT_STAGED 1
#else
#define SORT_STAGED 0
#endif
/* Padded index of a staged key (one extra entry per 32) and of a rank (one word per 256). */
#define SORT_KEY_AT(j) ((j) + (j) / 32)
#define SORT_RANK_AT(e) ((e) + ((e) / SORT_RADIX) * (4 / sizeof(sort_rank_t)))
#define SORT_RANK_ENTRIES SORT_RANK_AT(SORT_RADIX *SORT_WG)

#if SORT_RANK_WARPS
#if SORT_WG != SORT_RADIX
#error "the warp ranking needs SORT_WG == 256 (one digit per work-item in its scan)"
#endif
#define SORT_WARPS (SORT_WG / 32)
/* SORT_PAD_KEYS: the last tile's slots past the end hold sort_pad_key(), a key of the pass's
 * highest digit, and are counted, ranked and staged like keys. Being the tile's last keys in the
 * ranking's order (warps, then rounds, then lanes), they take its last places, after every key of
 * every digit, so no key's place changes and no round checks whether its key is in the tile; only
 * the highest digit's count of the last tile includes them, which no later tile reads, and the
 * stores end at the tile's end. On by default for uint64 and int64 keys alone: on an H100
 * (2026-12-07, 2^28 keys, Onesweep, build/sort_sweep, one call, two runs each) uint64 keys 17.59 /
 * 17.63 -> 17.13 / 17.15 ms, int64 keys 17.59 / 17.62 -> 17.16 / 17.17 ms. Off for the rest: uint32
 * keys 6.11 / 6.09 ms without them against 6.34 / 6.33 with them (the same call; before the
 * temporaries' 256-byte alignment they had gained 0.4%), and where they cost registers (float keys
 * 72 -> 91; earlier calls): uint32 pairs 11.51 -> 13.09 ms, float keys 6.43 -> 7.15 ms, double keys
 * 18.65 -> 21.07 ms, int32 keys 6.33 -> 6.65 ms (8- and 16-bit keys follow 32-bit ones,
 * unmeasured). */
#ifndef SORT_PAD_KEYS
/* clscan_type 2 is int64, 3 uint64. */
#define SORT_PAD_KEYS \
  (SORT_VALUE_SIZE == 0 && (SORT_KEY_TYPE == CLSCAN_INT64 || SORT_KEY_TYPE == CLSCAN_UINT64))
#endif
/* Whether the work-item's key of round i is in the tile of in_tile keys (always, with pads). */
#define SORT_IN_TILE(i, in_tile) (SORT_PAD_KEYS || sort_warp_index(i) < (in_tile))
/* SORT_LANE_POINTER: a work-item loads its keys through a pointer to its first one, so that each
 * round's key is at a constant offset from it. On by default for keys of up to 4 bytes: on an H100
 * (2026-12-07, 2^28 uint32 keys, Onesweep, build/sort_sweep) 6.435 -> 6.408 ms alone, and with
 * SORT_STORE_UNROLL 6.501 -> 6.449 ms (pairs 11.65 -> 11.64). */
#ifndef SORT_LANE_POINTER
#define SORT_LANE_POINTER (SORT_KEY_SIZE <= 4)
#endif
/* SORT_NV_PLACE (NVIDIA): how a round's peers take their places (sort_place_tile): 1 every peer
 * reads the next place and the lowest advances it, 0 the highest advances it and hands the place
 * on by a shuffle. 1 for keys alone (on the H200, 2^28 uint32 keys 40.7 -> 41.3 G keys/s, uint64
 * 14.31 -> 14.44), 0 with values (uint32 pairs 27.3 -> 27.2: the second set of peer words below
 * takes local memory). */
#ifndef SORT_NV_PLACE
#define SORT_NV_PLACE (SORT_VALUE_SIZE == 0)
#endif
/* Words of the warp ranking: the next place of every (warp, digit), then the peer words: two sets
 * that alternate between rounds, or one on NVIDIA with the shuffle, whose warp barriers need no
 * second. */
#if SORT_NV_WARPS && !SORT_NV_PLACE
#define SORT_PEER_SETS 1
#else
#define SORT_PEER_SETS 2
#endif
#define SORT_WARP_WORDS ((1 + SORT_PEER_SETS) * SORT_WARPS * SORT_RADIX)

/* Values of 4 or 8 bytes may move through local memory like the keys (SORT_EXCHANGE 1, which the
 * host sets where the staged values fit beside the staged keys): loaded with consecutive
 * work-items reading consecutive values, staged at their keys' places, and stored with the keys.
 * Otherwise they are gathered from global memory by the staged keys' tile indices
 * (sort_staged_from). */
#ifndef SORT_EXCHANGE
#define SORT_EXCHANGE 0
#endif
#if SORT_EXCHANGE && SORT_VALUE_SIZE != 4 && SORT_VALUE_SIZE != 8
#error "SORT_EXCHANGE needs values of 4 or 8 bytes"
#endif

/* The local memory of one tile's ranking: the ranking's words and the staged tile share it. */
typedef struct sort_tile_mem {
  uint base[SORT_RADIX];  /* destination of digit d's first key, minus its place */
  uint count[SORT_RADIX]; /* the tile's keys of digit d */
  uint start[SORT_RADIX]; /* digit d's first place in the tile */
  uint scratch[SORT_WG];
  union {
    uint rank[SORT_WARP_WORDS]; /* next[w * 256 + d], then the peer words */
    struct {
      sort_bits_t keys[SORT_KEY_AT(SORT_TILE)]; /* the tile in sorted order */
#if SORT_EXCHANGE
      sort_value_t vals[SORT_KEY_AT(SORT_TILE)]; /* their values */
#elif SORT_VALUE_SIZE
      sort_rank_t from[SORT_TILE]; /* from[p]: the tile index of the key at place p */
#endif
    } s;
  } u;
} sort_tile_mem;

/* Warp w's next place for digit d (its count of the digit until the ranking starts). */
#define SORT_NEXT(m, w, d) ((m)->u.rank[(w)*SORT_RADIX + (d)])
/* The peer word of warp w and digit d in set `set`. */
#define SORT_PEERS(m, set, w, d) \
  ((m)->u.rank[(1 + (set)) * SORT_WARPS * SORT_RADIX + (w)*SORT_RADIX + (d)])

/* A work-item's keys and their places in the tile, between ranking and scatter. */
typedef struct sort_mine {
  sort_bits_t k[SORT_ITEMS];
  uint place[SORT_ITEMS];
} sort_mine;

/* The tile index of the work-item's key of round i. */
ALWAYS_INLINE uint sort_warp_index(uint i) {
  const uint lid = get_local_id(0);
  return (lid / 32) * 32 * SORT_ITEMS + i * 32 + lid % 32;
}

/* Loads the work-item's keys of tile t and counts each warp's keys of every digit (the early
 * counts); then work-item d scans digit d's counts over the warps and the digits' totals over the
 * digits, so that m->count and m->start hold each digit's keys and first place in the tile and
 * SORT_NEXT(m, w, d) warp w's first place for digit d. */
ALWAYS_INLINE void sort_count_tile(const __global sort_bits_t *keys, ulong n, ulong t, uint shift,
                                   uint mask, __local sort_tile_mem *m, sort_mine *mine) {
  const uint lid = get_local_id(0), w = lid / 32;
  for (uint e = lid; e < SORT_WARP_WORDS; e += SORT_WG)
    m->u.rank[e] = 0;
  const uint in_tile = sort_in_tile(t, n);
#if SORT_PAD_KEYS
  const sort_bits_t past_end = sort_pad_key();
#else
  const sort_bits_t past_end = 0;
#endif
#if SORT_LANE_POINTER
  // The work-item's first key, and how many of the tile's keys are at or after it: round i's
  // key is 32 i further, an offset the loads can carry.
  const __global sort_bits_t *first = keys + t * SORT_TILE + sort_warp_index(0);
  const int left = (int)in_tile - (int)sort_warp_index(0);
#pragma unroll
  for (uint i = 0; i < SORT_ITEMS; i++)
    mine->k[i] = (int)(i * 32) < left ? first[i * 32] : past_end;
#else
  keys += t * SORT_TILE;
#pragma unroll
  for (uint i = 0; i < SORT_ITEMS; i++) {
    const uint j = sort_warp_index(i);
    mine->k[i] = j < in_tile ? keys[j] : past_end;
  }
#endif
  barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
  for (uint i = 0; i < SORT_ITEMS; i++) {
    if (SORT_IN_TILE(i, in_tile))
      atomic_inc(&SORT_NEXT(m, w, sort_digit(mine->k[i], shift, mask)));
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  uint c[SORT_WARPS], run = 0;
#pragma unroll
  for (uint v = 0; v < SORT_WARPS; v++) {
    const uint x = SORT_NEXT(m, v, lid);
    c[v] = run;
    run += x;
  }
  uint total;
  const uint start = sort_wg_exclusive(run, m->scratch, &total);
  m->count[lid] = run;
  m->start[lid] = start;
#pragma unroll
  for (uint v = 0; v < SORT_WARPS; v++)
    SORT_NEXT(m, v, lid) = start + c[v];
  barrier(CLK_LOCAL_MEM_FENCE);
}

#if SORT_NV_WARPS
/* How a warp finds the lanes whose key has its digit (the peers) on NVIDIA (SORT_NV_MATCH): 0,
 * each lane sets its bit in a local peer word of its (warp, digit) and reads the word back (the
 * default); 1, one ballot per digit bit, each lane keeping the lanes that agree with it (as CUB's
 * MatchAny); 2, the match.any.sync instruction. On the H200 (2^28 uint32 keys, Onesweep) 0 took
 * 6.97 ms, 1 8.06 ms and 2 9.66 ms. */
#ifndef SORT_NV_MATCH
#define SORT_NV_MATCH 0
#endif

#if SORT_NV_MATCH
/* The lanes of the warp whose digit equals this lane's d (0 for a lane that is not valid). */
ALWAYS_INLINE uint sort_match_peers(uint d, int valid) {
#if SORT_NV_MATCH == 2
  uint m;
  const uint label = valid ? d : 0x100u + get_local_id(0) % 32; /* unique: matches no one */
  asm volatile("match.any.sync.b32 %0, %1, 0xffffffff;" : "=r"(m) : "r"(label));
  return valid ? m : 0u;
#else
  uint m = ballot(valid);
#pragma unroll
  for (uint b = 0; b < 8; b++) {
    const uint set = (d >> b) & 1u, agree = ballot((int)set);
    m &= set ? agree : ~agree;
  }
  return valid ? m : 0u;
#endif
}
#endif

/*
 * Ranking on NVIDIA: warp barriers instead of the work-group's (a warp of the ranking is a
 * hardware warp). Each round the lanes find their peers (SORT_NV_MATCH). With SORT_NV_PLACE every
 * peer reads the warp's next place of the digit and the lowest advances it; otherwise the highest
 * peer takes and advances it and hands the place to its peers by a shuffle. Lanes past the tile's
 * end take part in the ballots, barriers and shuffles only.
 */
ALWAYS_INLINE void sort_place_tile(uint in_tile, uint shift, uint mask, __local sort_tile_mem *m,
                                   sort_mine *mine) {
  const uint lid = get_local_id(0), w = lid / 32, lane = lid % 32, below = (1u << lane) - 1u;
#pragma unroll
  for (uint i = 0; i < SORT_ITEMS; i++) {
    const int valid = SORT_IN_TILE(i, in_tile);
    const uint d = sort_digit(mine->k[i], shift, mask);
#if SORT_NV_PLACE && !SORT_NV_MATCH
    // Every peer reads the next place, then the lowest peer advances it and clears the word of
    // its set: the sets alternate, so that the next round's bits never meet this round's.
    volatile __local uint *word = &SORT_PEERS(m, i & 1, w, d);
    if (valid)
      atomic_or(word, below + 1u);
    warp_sync();
    const uint peers = valid ? *word : 0u;
    const uint first = valid ? SORT_NEXT(m, w, d) : 0u;
    warp_sync();
    if (valid && !(peers & below)) {
      SORT_NEXT(m, w, d) = first + popcount(peers);
      *word = 0;
    }
    mine->place[i] = first + popcount(peers & below);
#else
#if SORT_NV_MATCH
    const uint peers = sort_match_peers(d, valid);
#else
    volatile __local uint *word = &SORT_PEERS(m, 0, w, d);
    if (valid)
      atomic_or(word, below + 1u);
    warp_sync();
    const uint peers = valid ? *word : 0u;
#endif
    const uint leader = valid ? 31u - clz(peers) : lane;
    uint first = 0;
    if (valid && lane == leader) {
      first = SORT_NEXT(m, w, d);
      SORT_NEXT(m, w, d) = first + popcount(peers);
    }
    first = shfl_idx_u32(first, leader);
#if !SORT_NV_MATCH
    if (valid && lane == leader)
      *word = 0;
#endif
    warp_sync();
    mine->place[i] = first + popcount(peers & below);
#endif
  }
  barrier(CLK_LOCAL_MEM_FENCE);
}
#else
/*
 * Ranking with work-group barriers (any device): in round i every lane sets its bit in the peer
 * word of its (warp, digit) of set i % 2; after a barrier the word names the lanes of the round
 * with the same digit, so a lane's place is the warp's next place of the digit plus the peers
 * below it; after a second barrier the lowest peer advances the next place and clears the word
 * (the sets alternate, so the clearing needs no third barrier).
 */
ALWAYS_INLINE void sort_place_tile(uint in_tile, uint shift, uint mask, __local sort_tile_mem *m,
                                   sort_mine *mine) {
  const uint lid = get_local_id(0), w = lid / 32, below = (1u << (lid % 32)) - 1u;
#pragma unroll
  for (uint i = 0; i < SORT_ITEMS; i++) {
    const int valid = SORT_IN_TILE(i, in_tile);
    const uint d = sort_digit(mine->k[i], shift, mask);
    volatile __local uint *word = &SORT_PEERS(m, i & 1, w, d);
    if (valid)
      atomic_or(word, below + 1u);
    barrier(CLK_LOCAL_MEM_FENCE);
    const uint peers = valid ? *word : 0u;
    mine->place[i] = SORT_NEXT(m, w, d) + popcount(peers & below);
    barrier(CLK_LOCAL_MEM_FENCE);
    if (valid && !(peers & below)) {
      SORT_NEXT(m, w, d) += popcount(peers);
      *word = 0;
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE);
}
#endif

/* Digit d's first place in the tile (after sort_rank_tile). */
ALWAYS_INLINE uint sort_digit_start(__local sort_tile_mem *m, uint d) {
  return m->start[d];
}

/* The staged tile of the scatter, and the tile indices of its keys. */
ALWAYS_INLINE __local sort_bits_t *sort_staged_keys(__local sort_tile_mem *m) {
  return m->u.s.keys;
}
#if SORT_VALUE_SIZE && !SORT_EXCHANGE
ALWAYS_INLINE __local sort_rank_t *sort_staged_from(__local sort_tile_mem *m) {
  return m->u.s.from;
}
#endif

#else /* the per-work-item ranking */
#undef SORT_EXCHANGE
#define SORT_EXCHANGE 0 /* values are gathered (sort_staged_from) */

/* The local memory of one tile's ranking. */
typedef struct sort_tile_mem {
  sort_rank_t rank[SORT_RANK_ENTRIES]; /* rank[d * SORT_WG + l] (padded), see the top */
  uint base[SORT_RADIX];               /* destination of digit d's first key, minus its place */
  uint count[SORT_RADIX];              /* the tile's keys of digit d */
  uint scratch[SORT_WG];
#if SORT_STAGED
  sort_bits_t keys[SORT_KEY_AT(SORT_TILE)]; /* the tile, in input order, then sorted */
#if SORT_VALUE_SIZE
  sort_rank_t from[SORT_TILE];              /* from[p]: the tile index of the key at place p */
#endif
#endif
} sort_tile_mem;

/* Unused by this ranking (its places are in m->rank). */
typedef struct sort_mine {
  uchar unused;
} sort_mine;

/* The number of keys of work-item l in tile t (from t * SORT_TILE + l * SORT_ITEMS). */
ALWAYS_INLINE uint sort_item_count(ulong t, ulong n) {
  ulong begin, end;
  sort_item_range(t, n, &begin, &end);
  return (uint)(end - begin);
}

/* Key e of the work-item's keys in tile t. */
ALWAYS_INLINE sort_bits_t sort_item_key(const __global sort_bits_t *keys, ulong t,
                                        __local sort_tile_mem *m, uint e) {
  const uint j = get_local_id(0) * SORT_ITEMS + e;
#if SORT_STAGED
  return m->keys[SORT_KEY_AT(j)];
#else
  return keys[t * SORT_TILE + j];
#endif
}

/* Loads the tile into local memory (staged shape only), consecutive work-items reading
 * consecutive keys. */
ALWAYS_INLINE void sort_load_tile(const __global sort_bits_t *keys, ulong n, ulong t,
                                  __local sort_tile_mem *m) {
#if SORT_STAGED
  const ulong begin = t * SORT_TILE;
  for (uint j = get_local_id(0); j < SORT_TILE; j += SORT_WG) {
    if (begin + j < n)
      m->keys[SORT_KEY_AT(j)] = keys[begin + j];
  }
#endif
}

/* Loads the tile (staged), counts the work-item's keys per digit, then scans the counts:
 * afterwards m->rank holds each (digit, work-item)'s first place in the tile and m->count each
 * digit's keys in the tile. */
ALWAYS_INLINE void sort_count_tile(const __global sort_bits_t *keys, ulong n, ulong t, uint shift,
                                   uint mask, __local sort_tile_mem *m, sort_mine *mine) {
  (void)mine;
  const uint lid = get_local_id(0);
  for (uint e = lid; e < SORT_RANK_ENTRIES; e += SORT_WG)
    m->rank[e] = 0;
  sort_load_tile(keys, n, t, m);
  barrier(CLK_LOCAL_MEM_FENCE);
  const uint count = sort_item_count(t, n);
  for (uint e = 0; e < count; e++)
    m->rank[SORT_RANK_AT(sort_digit(sort_item_key(keys, t, m, e), shift, mask) * SORT_WG + lid)]++;
  barrier(CLK_LOCAL_MEM_FENCE);
  // Work-item l scans entries [l * SORT_RADIX, (l + 1) * SORT_RADIX) of the SORT_RADIX * SORT_WG.
  __local sort_rank_t *r = m->rank + SORT_RANK_AT(lid * SORT_RADIX);
  uint sum = 0;
  for (uint e = 0; e < SORT_RADIX; e++)
    sum += r[e];
  uint total;
  uint acc = sort_wg_exclusive(sum, m->scratch, &total);
  for (uint e = 0; e < SORT_RADIX; e++) {
    const uint c = r[e];
    r[e] = (sort_rank_t)acc;
    acc += c;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint d = lid; d < SORT_RADIX; d += SORT_WG) {
    const uint next = d + 1 < SORT_RADIX ? m->rank[SORT_RANK_AT((d + 1) * SORT_WG)] : total;
    m->count[d] = next - m->rank[SORT_RANK_AT(d * SORT_WG)];
  }
  barrier(CLK_LOCAL_MEM_FENCE);
}

/* Nothing: this ranking's places are in m->rank once the counts are scanned. */
ALWAYS_INLINE void sort_place_tile(uint in_tile, uint shift, uint mask, __local sort_tile_mem *m,
                                   sort_mine *mine) {
  (void)in_tile;
  (void)shift;
  (void)mask;
  (void)m;
  (void)mine;
}

/* Digit d's first place in the tile (after sort_rank_tile). */
ALWAYS_INLINE uint sort_digit_start(__local sort_tile_mem *m, uint d) {
  return m->rank[SORT_RANK_AT(d * SORT_WG)];
}

#if SORT_STAGED
/* The staged tile of the scatter, and the tile indices of its keys. */
ALWAYS_INLINE __local sort_bits_t *sort_staged_keys(__local sort_tile_mem *m) {
  return m->keys;
}
#if SORT_VALUE_SIZE
ALWAYS_INLINE __local sort_rank_t *sort_staged_from(__local sort_tile_mem *m) {
  return m->from;
}
#endif
#endif
#endif /* SORT_RANK_WARPS */

/* Loads and ranks tile t: afterwards mine->place holds each key's place in the tile, m->start
 * each digit's first place and m->count each digit's keys. */
ALWAYS_INLINE void sort_rank_tile(const __global sort_bits_t *keys, ulong n, ulong t, uint shift,
                                  uint mask, __local sort_tile_mem *m, sort_mine *mine) {
  sort_count_tile(keys, n, t, shift, mask, m, mine);
  sort_place_tile(sort_in_tile(t, n), shift, mask, m, mine);
}

/* SORT_STORE_UNROLL: the stores of a staged tile in a loop of SORT_ITEMS rounds, unrolled, each
 * checking its place against the tile's end, instead of a loop up to that end. On by default with
 * the warp ranking for keys of up to 4 bytes: on an H100 (2026-12-07, 2^28 keys, Onesweep,
 * build/sort_sweep, two calls) uint32 keys 6.435 -> 6.363 and 6.516 -> 6.499 ms, uint32 pairs
 * 11.36 -> 11.13 and 11.86 -> 11.65 ms; uint64 keys 18.41 -> 18.62 ms, so not for 8-byte keys.
 * (A round past the end skips with `continue`: with `break` POCL 3.1 sorted int64 keys with values
 * wrongly in the GPU shape.) */
#ifndef SORT_STORE_UNROLL
#define SORT_STORE_UNROLL (SORT_RANK_WARPS && SORT_KEY_SIZE <= 4)
#endif
#if SORT_STAGED
/* The key k staged at place p of tile t goes to m->base[d] + p (d its digit), with its value;
 * only where `store` (the destination is computed either way). */
ALWAYS_INLINE void sort_store_place(const __global sort_value_t *vals, __global sort_bits_t *dkeys,
                                    __global sort_value_t *dvals, ulong t, uint shift, uint mask,
                                    __local sort_tile_mem *m, uint p, sort_bits_t k, int store) {
  const uint to = m->base[sort_digit(k, shift, mask)] + p;
  if (store) {
    dkeys[to] = k;
#if SORT_EXCHANGE
    dvals[to] = m->u.s.vals[SORT_KEY_AT(p)];
#elif SORT_VALUE_SIZE
    dvals[to] = vals[t * SORT_TILE + sort_staged_from(m)[p]];
#endif
  }
}

/* Stores the staged tile (in sorted order) with consecutive work-items writing consecutive
 * places of a digit's run. */
ALWAYS_INLINE void sort_store_tile(const __global sort_value_t *vals, __global sort_bits_t *dkeys,
                                   __global sort_value_t *dvals, ulong n, ulong t, uint shift,
                                   uint mask, __local sort_tile_mem *m) {
  const __local sort_bits_t *staged = sort_staged_keys(m);
  const uint in_tile = sort_in_tile(t, n);
#if SORT_STORE_UNROLL && SORT_PAD_KEYS && SORT_RANK_WARPS
  // Every place of the tile holds a key or a pad: each round reads its key unchecked (at a
  // constant offset from the work-item's first: SORT_WG is a multiple of 32, the padding's
  // period) and only the stores check the tile's end.
  const uint lid = get_local_id(0);
  const __local sort_bits_t *mine0 = staged + SORT_KEY_AT(lid);
#pragma unroll
  for (uint r = 0; r < SORT_ITEMS; r++) {
    const uint p = lid + r * SORT_WG;
    sort_store_place(vals, dkeys, dvals, t, shift, mask, m, p, mine0[r * SORT_KEY_AT(SORT_WG)],
                     p < in_tile);
  }
#else
#if SORT_STORE_UNROLL
#pragma unroll
  for (uint r = 0; r < SORT_ITEMS; r++) {
    const uint p = get_local_id(0) + r * SORT_WG;
    if (p >= in_tile)
      continue;
#else
  for (uint p = get_local_id(0); p < in_tile; p += SORT_WG) {
#endif
    sort_store_place(vals, dkeys, dvals, t, shift, mask, m, p, staged[SORT_KEY_AT(p)], 1);
  }
#endif
}
#endif

/* Moves the tile's keys (and values) to their places: the key at place p of the tile, of digit d,
 * goes to m->base[d] + p. Needs m->base set for every digit (and a barrier). */
ALWAYS_INLINE void sort_scatter_tile(const __global sort_bits_t *keys,
                                     const __global sort_value_t *vals, __global sort_bits_t *dkeys,
                                     __global sort_value_t *dvals, ulong n, ulong t, uint shift,
                                     uint mask, __local sort_tile_mem *m, sort_mine *mine) {
#if SORT_RANK_WARPS
  // Place the keys (and 4- or 8-byte values) in local memory in sorted order (the ranking's
  // words are no longer read).
  (void)keys;
  const uint in_tile = sort_in_tile(t, n);
#if SORT_EXCHANGE
  const __global sort_value_t *tile_vals = vals + t * SORT_TILE;
#endif
#pragma unroll
  for (uint i = 0; i < SORT_ITEMS; i++) {
    const uint j = sort_warp_index(i);
    const uint place = mine->place[i];
    if (SORT_IN_TILE(i, in_tile))
      m->u.s.keys[SORT_KEY_AT(place)] = mine->k[i];
    if (j < in_tile) {
#if SORT_EXCHANGE
      m->u.s.vals[SORT_KEY_AT(place)] = tile_vals[j];
#elif SORT_VALUE_SIZE
      m->u.s.from[place] = (sort_rank_t)j;
#endif
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  sort_store_tile(vals, dkeys, dvals, n, t, shift, mask, m);
#else
  (void)mine;
  const uint lid = get_local_id(0);
  const uint count = sort_item_count(t, n);
#if SORT_STAGED
  // Place the keys in local memory in sorted order (the work-item's keys first go to registers,
  // since the places overwrite the tile).
  sort_bits_t mine_keys[SORT_ITEMS];
  for (uint e = 0; e < count; e++)
    mine_keys[e] = sort_item_key(keys, t, m, e);
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint e = 0; e < count; e++) {
    const uint d = sort_digit(mine_keys[e], shift, mask);
    const uint p = m->rank[SORT_RANK_AT(d * SORT_WG + lid)]++;
    m->keys[SORT_KEY_AT(p)] = mine_keys[e];
#if SORT_VALUE_SIZE
    m->from[p] = (sort_rank_t)(lid * SORT_ITEMS + e);
#endif
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  sort_store_tile(vals, dkeys, dvals, n, t, shift, mask, m);
#else
  const ulong begin = t * SORT_TILE + (ulong)lid * SORT_ITEMS;
  for (uint e = 0; e < count; e++) {
    const sort_bits_t k = keys[begin + e];
    const uint d = sort_digit(k, shift, mask);
    const uint to = m->base[d] + m->rank[SORT_RANK_AT(d * SORT_WG + lid)]++;
    dkeys[to] = k;
#if SORT_VALUE_SIZE
    dvals[to] = vals[begin + e];
#endif
  }
#endif
#endif
}

#if SORT_RANK_WARPS
/* Onesweep can stage a tile's keys (and values) at their places before its look-back rather than
 * after it (the look-back reads nothing staged): their registers are then free during the
 * look-back, and after it only a barrier and the stores remain.
 *
 * SORT_EARLY_KEYS (keys alone): on by default. On an H100 (2^28 keys, one call, two runs each) it
 * took uint32 keys from 6.595 / 6.595 to 6.500 / 6.502 ms (72 registers instead of 77) and
 * uint64 keys from 18.98 / 19.00 to 18.44 / 18.48 ms (another call).
 *
 * SORT_EARLY_VALUES (values staged beside the keys, SORT_EXCHANGE): the values are loaded and
 * staged with the keys too. On by default where a value is no wider than its key. On an H100
 * (2^28 keys, one call, two runs each), against the values loaded into registers before the
 * look-back and staged after it: uint32 keys with uint32 values 11.65 / 11.65 -> 11.29 / 11.28
 * ms (94 -> 92 registers), uint64 keys with uint32 values 31.99 / 32.04 -> 31.60 / 31.57.
 * Wider values were not measured.
 *
 * -DSORT_EARLY_KEYS=0 and -DSORT_EARLY_VALUES=0 (or 1, for wider values too) override. */
#ifndef SORT_EARLY_KEYS
#define SORT_EARLY_KEYS (SORT_VALUE_SIZE == 0)
#endif
#if SORT_EARLY_KEYS && SORT_VALUE_SIZE
#undef SORT_EARLY_KEYS
#define SORT_EARLY_KEYS 0
#endif
#ifndef SORT_EARLY_VALUES
#define SORT_EARLY_VALUES (SORT_VALUE_SIZE <= SORT_KEY_SIZE)
#endif
#if SORT_EARLY_VALUES && !SORT_EXCHANGE
#undef SORT_EARLY_VALUES
#define SORT_EARLY_VALUES 0
#endif

/* SORT_KEYS_FIRST: with SORT_EARLY_VALUES, the keys are staged before the values are loaded
 * rather than after, so that the keys' registers are free before the values' loads need theirs.
 * On by default for 8-byte keys with values of up to 4 bytes: on an H100 (2^28 keys, one call, two
 * runs each) uint64 keys with uint32 values took 31.24 / 31.31 ms against 31.91 / 31.93 (68
 * registers against 70). Not for 4-byte keys: uint32 pairs took 12.70 ms against 11.46, though
 * their registers fell from 90 to 80 (three work-groups to a multiprocessor instead of two; not
 * explained). -DSORT_KEYS_FIRST=0 or 1 overrides. */
#ifndef SORT_KEYS_FIRST
#define SORT_KEYS_FIRST (SORT_KEY_SIZE > 4 && SORT_VALUE_SIZE <= 4)
#endif

#if SORT_EARLY_KEYS || SORT_EARLY_VALUES
/* Stages the work-item's keys at their places. */
ALWAYS_INLINE void sort_stage_keys(uint in_tile, __local sort_tile_mem *m, const sort_mine *mine) {
#pragma unroll
  for (uint i = 0; i < SORT_ITEMS; i++) {
    if (SORT_IN_TILE(i, in_tile))
      m->u.s.keys[SORT_KEY_AT(mine->place[i])] = mine->k[i];
  }
}

/* Stages the work-item's keys, and with SORT_EARLY_VALUES its values, at their places (after the
 * ranking's last barrier: the ranking's words are no longer read). */
ALWAYS_INLINE void sort_stage_early(const __global sort_value_t *vals, ulong n, ulong t,
                                    __local sort_tile_mem *m, const sort_mine *mine) {
  const uint in_tile = sort_in_tile(t, n);
#if SORT_KEYS_FIRST
  sort_stage_keys(in_tile, m, mine);
#endif
#if SORT_EARLY_VALUES
  const __global sort_value_t *tile_vals = vals + t * SORT_TILE;
#pragma unroll
  for (uint i = 0; i < SORT_ITEMS; i++) {
    const uint j = sort_warp_index(i);
    if (j < in_tile)
      m->u.s.vals[SORT_KEY_AT(mine->place[i])] = tile_vals[j];
  }
#else
  (void)vals;
#endif
#if !SORT_KEYS_FIRST
  sort_stage_keys(in_tile, m, mine);
#endif
}
#endif
#endif

/* ---------------------------------------------------------------------------------------------
 * The portable path: per pass, sort_count, sort_scan_reduce, sort_scan_top, sort_scan_down and
 * sort_scatter, each with one work-group of SORT_WG work-items per tile or block.
 * ------------------------------------------------------------------------------------------- */

/* Loads the work-item's keys of tile t, key lid + i * SORT_WG into k[i] (consecutive work-items
 * read consecutive keys; zeros past the end); returns the number of keys in the tile. */
ALWAYS_INLINE uint sort_load_strided(const __global sort_bits_t *keys, ulong n, ulong t,
                                     sort_bits_t k[SORT_ITEMS]) {
  const uint lid = get_local_id(0), in_tile = sort_in_tile(t, n);
  keys += t * SORT_TILE;
#pragma unroll
  for (uint i = 0; i < SORT_ITEMS; i++)
    k[i] = lid + i * SORT_WG < in_tile ? keys[lid + i * SORT_WG] : (sort_bits_t)0;
  return in_tile;
}

/* counts[d * tiles + t] = tile t's keys of digit d. With the warp ranking each warp counts into
 * its own histogram, consecutive work-items reading consecutive keys. */
__kernel void sort_count(const __global sort_bits_t *keys, ulong keys_off, ulong n, uint shift,
                         uint mask, __global uint *counts, ulong tiles) {
#if SORT_RANK_WARPS
  __local uint hist[SORT_WARPS * SORT_RADIX];
#else
  __local uint hist[SORT_RADIX];
#endif
  const uint lid = get_local_id(0);
  const ulong t = get_group_id(0);
  keys += keys_off;
  for (uint d = lid; d < sizeof hist / sizeof hist[0]; d += SORT_WG)
    hist[d] = 0;
  barrier(CLK_LOCAL_MEM_FENCE);
#if SORT_RANK_WARPS
  // Every key is loaded before the first is counted, so that the loads are all in flight.
  __local uint *mine = hist + (lid / 32) * SORT_RADIX;
  sort_bits_t k[SORT_ITEMS];
  const uint in_tile = sort_load_strided(keys, n, t, k);
#pragma unroll
  for (uint i = 0; i < SORT_ITEMS; i++) {
    if (lid + i * SORT_WG < in_tile)
      atomic_inc(&mine[sort_digit(k[i], shift, mask)]);
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint d = lid; d < SORT_RADIX; d += SORT_WG) {
    uint c = 0;
    for (uint v = 0; v < SORT_WARPS; v++)
      c += hist[v * SORT_RADIX + d];
    counts[d * tiles + t] = c;
  }
#else
  ulong begin, end;
  sort_item_range(t, n, &begin, &end);
  for (ulong i = begin; i < end; i++) {
#if SORT_WG == 1
    hist[sort_digit(keys[i], shift, mask)]++;
#else
    atomic_inc(&hist[sort_digit(keys[i], shift, mask)]);
#endif
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint d = lid; d < SORT_RADIX; d += SORT_WG)
    counts[d * tiles + t] = hist[d];
#endif
}

/* The sum of work-item l's SORT_ITEMS consecutive entries of block b of counts[0, m). */
ALWAYS_INLINE uint sort_block_sum(const __global uint *counts, ulong m, ulong b) {
  const ulong begin = min(b * SORT_TILE + (ulong)get_local_id(0) * SORT_ITEMS, m);
  const ulong end = min(begin + SORT_ITEMS, m);
  uint s = 0;
  for (ulong i = begin; i < end; i++)
    s += counts[i];
  return s;
}

/* sums[b] = the sum of block b (SORT_TILE entries) of counts[0, m). */
__kernel void sort_scan_reduce(const __global uint *counts, ulong m, __global uint *sums,
                               ulong sums_off) {
  sums += sums_off;
  __local uint scratch[SORT_WG];
  const ulong b = get_group_id(0);
  uint total;
  sort_wg_exclusive(sort_block_sum(counts, m, b), scratch, &total);
  if (get_local_id(0) == 0)
    sums[b] = total;
}

/* The exclusive scan of sums[0, blocks) in place, by one work-group. */
__kernel void sort_scan_top(__global uint *sums, ulong sums_off, ulong blocks) {
  sums += sums_off;
  __local uint scratch[SORT_WG];
  const uint lid = get_local_id(0);
  uint carry = 0;
  for (ulong base = 0; base < blocks; base += SORT_WG) {
    const ulong i = base + lid;
    const uint x = i < blocks ? sums[i] : 0u;
    uint total;
    const uint ex = sort_wg_exclusive(x, scratch, &total);
    if (i < blocks)
      sums[i] = carry + ex;
    carry += total;
  }
}

/* The exclusive scan of block b of counts[0, m) in place, seeded with sums[b]. */
__kernel void sort_scan_down(__global uint *counts, ulong m, const __global uint *sums,
                             ulong sums_off) {
  sums += sums_off;
  __local uint scratch[SORT_WG];
  const ulong b = get_group_id(0);
  uint total;
  uint acc = sums[b] + sort_wg_exclusive(sort_block_sum(counts, m, b), scratch, &total);
  const ulong begin = min(b * SORT_TILE + (ulong)get_local_id(0) * SORT_ITEMS, m);
  const ulong end = min(begin + SORT_ITEMS, m);
  for (ulong i = begin; i < end; i++) {
    const uint c = counts[i];
    counts[i] = acc;
    acc += c;
  }
}

/* Moves tile t's keys (and values) to their places; offsets[d * tiles + t] is the place of the
 * tile's first key of digit d (the scanned counts). */
__kernel void sort_scatter(const __global sort_bits_t *keys, ulong keys_off,
                           const __global sort_value_t *vals, ulong vals_off,
                           __global sort_bits_t *dkeys, ulong dkeys_off,
                           __global sort_value_t *dvals, ulong dvals_off, ulong n, uint shift,
                           uint mask, const __global uint *offsets, ulong tiles) {
  __local sort_tile_mem m;
  sort_mine mine;
  const ulong t = get_group_id(0);
  keys += keys_off;
  vals += vals_off;
  dkeys += dkeys_off;
  dvals += dvals_off;
  sort_rank_tile(keys, n, t, shift, mask, &m, &mine);
  for (uint d = get_local_id(0); d < SORT_RADIX; d += SORT_WG)
    m.base[d] = offsets[d * tiles + t] - sort_digit_start(&m, d);
  barrier(CLK_LOCAL_MEM_FENCE);
  sort_scatter_tile(keys, vals, dkeys, dvals, n, t, shift, mask, &m, &mine);
}

/* ---------------------------------------------------------------------------------------------
 * The Onesweep path.
 *
 * Temporary layout (uints from `temp`): SORT_MAX_PASSES ticket counters, then the histogram of
 * every pass (SORT_MAX_PASSES * SORT_RADIX counts, which sort_passes turns into the digits'
 * starts), then from SORT_STATUS_OFFSET bytes the status words, tile-major: digit d's chain of
 * tile t is state t * SORT_RADIX + d (sort_word). Pass p publishes under epoch p + 1; the host
 * zeroes counters, histogram and words before each sort.
 * ------------------------------------------------------------------------------------------- */
#define SORT_MAX_PASSES 8
#define SORT_HIST_OFFSET 16 /* uints */
/* The status words start on a 256-byte boundary, so that a tile's words do too (2048 bytes a
 * tile) and the 32 words a warp reads or publishes at once lie in two 128-byte lines, not three. */
#define SORT_STATUS_OFFSET \
  (((SORT_HIST_OFFSET + SORT_MAX_PASSES * SORT_RADIX) * 4 + 255) / 256 * 256)

#if SORT_ONESWEEP
/* Tile t's status in digit d's chain: one 64-bit word, or STATUS_WORDS (two) 32-bit words where
 * the device lacks 64-bit atomics (CLSCAN_STATUS32); 8 bytes either way. A tile's states are
 * consecutive, so that the work-items publishing or reading consecutive digits of one tile touch
 * one stretch of memory (a warp's accesses coalesce). */
ALWAYS_INLINE __global status_t *sort_word(__global status_t *status, ulong t, uint d) {
  return status + t * (SORT_RADIX * STATUS_WORDS) + d * STATUS_WORDS;
}
#endif

/* The shift and mask of pass p's digit for the bit range [begin_bit, end_bit). */
ALWAYS_INLINE void sort_pass_digit(uint p, uint begin_bit, uint end_bit, uint *shift, uint *mask) {
  *shift = begin_bit + 8 * p;
  const uint bits = min(8u, end_bit - *shift);
  *mask = (1u << bits) - 1u;
}

/* The shifts and masks of every pass's digit (passes at most SORT_KEY_SIZE; the rest get 0 and
 * are not counted), computed once per work-item rather than per key. */
typedef struct sort_digits {
  uint shift[SORT_KEY_SIZE], mask[SORT_KEY_SIZE];
} sort_digits;

ALWAYS_INLINE sort_digits sort_all_digits(uint begin_bit, uint end_bit, uint passes) {
  sort_digits g;
#pragma unroll
  for (uint p = 0; p < SORT_KEY_SIZE; p++) {
    g.shift[p] = 0;
    g.mask[p] = 0;
    if (p < passes)
      sort_pass_digit(p, begin_bit, end_bit, &g.shift[p], &g.mask[p]);
  }
  return g;
}

/* Adds key k's digit of every pass to the histogram h (passes of SORT_RADIX counts). */
ALWAYS_INLINE void sort_histogram_key(__local uint *h, sort_bits_t k, const sort_digits *g,
                                      uint passes) {
  const sort_bits_t o = sort_order(k);
#pragma unroll
  for (uint p = 0; p < SORT_KEY_SIZE; p++) {
    if (p < passes) {
      __local uint *c = &h[p * SORT_RADIX + ((uint)(o >> g->shift[p]) & g->mask[p])];
#if SORT_WG == 1
      (*c)++;
#else
      atomic_inc(c);
#endif
    }
  }
}

/* SORT_REQD: sort_histogram and sort_onesweep declare their work-group size
 * (reqd_work_group_size), which the host always launches. On by default for keys of up to 4 bytes
 * with values: on an H100 (2026-12-07, 2^28 keys, build/sort_sweep, each comparison in one call,
 * two runs each) uint32 pairs took 10.35 / 10.36 ms with it against 10.47 / 10.47 without (in
 * another call 10.21 / 10.20 against 10.36 / 10.42). Off for the rest, where it cost time: uint64
 * keys 19.87 / 19.84 ms against 17.20 / 17.20, uint64 keys with uint32 values 34.79 / 34.81
 * against 32.19 / 32.25, float keys 6.34 / 6.32 against 6.30 / 6.30, uint32 keys 6.32 / 6.32
 * against 6.31 / 6.31. Why: with the attribute NVIDIA's compiler gives sort_onesweep more
 * registers (an H100, -cl-nv-verbose: uint64 keys 98 instead of 72, so two work-groups share a
 * multiprocessor instead of three; uint32 keys 80 instead of 72; uint32 pairs 97 instead of 90,
 * two work-groups either way), and it applies -cl-nv-maxrregcount only to kernels without the
 * attribute (see cl/single_pass.cl). -DSORT_REQD=0 or 1 overrides. */
#ifndef SORT_REQD
#define SORT_REQD (SORT_VALUE_SIZE != 0 && SORT_KEY_SIZE <= 4)
#endif
#if SORT_REQD
#define SORT_KERNEL __kernel __attribute__((reqd_work_group_size(SORT_WG, 1, 1)))
#else
#define SORT_KERNEL __kernel
#endif

/* Counts every pass's digits. Each work-group counts tiles g, g + groups, ... in local memory
 * (any grid: the host caps it, so that few work-groups add their counts to the histogram with
 * atomics at the end; one work-group per tile put 2^28 / 5120 x 1024 atomics on 1024 words, which
 * took 0.82 ms on the H200). With the warp ranking's tiles consecutive work-items read
 * consecutive keys, and a tile's keys are all loaded before the first is counted, so that the
 * loads are in flight together. The digits' shifts and masks are computed once (per key and
 * pass, the H200 took 0.61 ms instead of 0.48 at 2^28 uint32 keys). Sums: the order of the
 * atomics does not matter. */
SORT_KERNEL void sort_histogram(const __global sort_bits_t *keys, ulong keys_off, ulong n,
                                uint begin_bit, uint end_bit, uint passes, __global uint *temp) {
  __local uint hist[SORT_MAX_PASSES * SORT_RADIX];
  const uint lid = get_local_id(0);
  keys += keys_off;
  for (uint e = lid; e < passes * SORT_RADIX; e += SORT_WG)
    hist[e] = 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  const sort_digits g = sort_all_digits(begin_bit, end_bit, passes);
  const ulong tiles = (n + SORT_TILE - 1) / SORT_TILE;
  for (ulong t = get_group_id(0); t < tiles; t += get_num_groups(0)) {
#if SORT_RANK_WARPS
    sort_bits_t k[SORT_ITEMS];
    const uint in_tile = sort_load_strided(keys, n, t, k);
#pragma unroll
    for (uint i = 0; i < SORT_ITEMS; i++) {
      if (lid + i * SORT_WG < in_tile)
        sort_histogram_key(hist, k[i], &g, passes);
    }
#else
    ulong begin, end;
    sort_item_range(t, n, &begin, &end);
    for (ulong i = begin; i < end; i++)
      sort_histogram_key(hist, keys[i], &g, passes);
#endif
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  __global uint *ghist = temp + SORT_HIST_OFFSET;
  for (uint e = lid; e < passes * SORT_RADIX; e += SORT_WG) {
    if (hist[e])
      atomic_add(&ghist[e], hist[e]);
  }
}

/* Words SORT_RUNS and SORT_SIDES of the temporary buffer: bit p of the first says that pass p
 * runs (it is not the identity), bit p of the second that the keys are in the temporary
 * buffers before pass p (the parity of the passes before p that ran; bit `passes`: after the
 * last pass). */
#define SORT_RUNS 8
#define SORT_SIDES 9

/* Digits of the histogram per work-item of sort_passes (consecutive ones). */
#define SORT_PASS_DIGITS (SORT_RADIX / SORT_WG)

/* Turns pass p's histogram into the digits' starts (its exclusive scan) in place, work-item l
 * taking digits [l * SORT_PASS_DIGITS, (l + 1) * SORT_PASS_DIGITS); returns 1 if the pass is the
 * identity (one of its digits holds every key). */
ALWAYS_INLINE int sort_pass_starts(__global uint *temp, uint p, ulong n, __local uint *scratch) {
  __global uint *h = temp + SORT_HIST_OFFSET + p * SORT_RADIX + get_local_id(0) * SORT_PASS_DIGITS;
  uint sum = 0, whole = 0, any;
  for (uint e = 0; e < SORT_PASS_DIGITS; e++) {
    sum += h[e];
    whole |= h[e] == n;
  }
  sort_wg_exclusive(whole, scratch, &any);
  uint total, acc = sort_wg_exclusive(sum, scratch, &total);
  for (uint e = 0; e < SORT_PASS_DIGITS; e++) {
    const uint c = h[e];
    h[e] = acc;
    acc += c;
  }
  return any != 0;
}

/* Decides which passes run and where the keys are before each, and turns every pass's histogram
 * into its digits' starts (one work-group of SORT_WG work-items, after sort_histogram). */
__kernel void sort_passes(__global uint *temp, ulong n, uint passes) {
  __local uint scratch[SORT_WG];
  uint runs = 0, sides = 0, side = 0;
  for (uint p = 0; p < passes; p++) {
    sides |= side << p;
    const uint run = (uint)!sort_pass_starts(temp, p, n, scratch);
    runs |= run << p;
    side ^= run;
  }
  if (get_local_id(0) == 0) {
    temp[SORT_RUNS] = runs;
    temp[SORT_SIDES] = sides | side << passes;
  }
}

#if SORT_ONESWEEP
/* Tile t's keys of digit d (a fallback for a silent predecessor): counted by one work-item. */
ALWAYS_INLINE uint sort_count_digit(const __global sort_bits_t *keys, ulong n, ulong t, uint shift,
                                    uint mask, uint d) {
  const ulong begin = t * SORT_TILE, end = min(begin + SORT_TILE, n);
  uint c = 0;
  for (ulong i = begin; i < end; i++)
    c += sort_digit(keys[i], shift, mask) == d;
  return c;
}

/* Chains a look-back work-item walks at once (its digits go in groups of this many). With 8,
 * sort_onesweep takes 161 registers on sm_90 (ptxas), within what its 23 KB of local memory per
 * 32 work-items leaves for occupancy. */
#define SORT_LANE_DIGITS (SORT_RADIX / SORT_LANES)
#ifndef SORT_CHAINS
#if SORT_LANE_DIGITS < 8
#define SORT_CHAINS SORT_LANE_DIGITS
#else
#define SORT_CHAINS 8
#endif
#endif

/* Pauses between rounds of a look-back in which no chain moved: SORT_BACKOFF_NS nanoseconds on
 * NVIDIA, a fixed pause (the scan's doubling back-off measured slower here); 0, the default, for
 * none (the H200, uint32 keys at 2^28: 7.41 ms without a pause, 7.50 with 32 ns or 100 ns). */
#ifndef SORT_BACKOFF_NS
#define SORT_BACKOFF_NS 0
#endif
ALWAYS_INLINE void sort_backoff(void) {
#if CLSCAN_NV_PTX && SORT_BACKOFF_NS > 0
  asm volatile("nanosleep.u32 %0;" ::"r"((uint)SORT_BACKOFF_NS));
#endif
}

/* Publishes a digit's count or inclusive prefix in its status word. On NVIDIA (SORT_NV_STORE,
 * on by default) with a relaxed store rather than the scan's atomic max: every publisher of a
 * word's state writes the same count (the owner and a fallback count the same keys), and a word
 * that goes back from a prefix to an aggregate only makes a reader walk further, so the words need
 * not only grow here. */
#ifndef SORT_NV_STORE
#define SORT_NV_STORE 1
#endif
ALWAYS_INLINE void sort_publish(__global status_t *word, ulong epoch, ulong state, uint value) {
#if CLSCAN_NV_PTX && SORT_NV_STORE && !CLSCAN_STATUS32
  const ulong w = (epoch << STATUS_EPOCH_SHIFT) | (state << STATUS_STATE_SHIFT) | value;
  asm volatile("st.relaxed.gpu.global.u64 [%0], %1;" ::"l"(word), "l"(w) : "memory");
#else
  status_publish(word, 0, epoch, state, value);
#endif
}

/* Reads a digit's status word: returns its state (0 when absent, torn or of an earlier pass) and
 * puts its count in *value. 64-bit words are decoded from their high half in 32-bit arithmetic. */
ALWAYS_INLINE uint sort_read(__global status_t *word, ulong epoch, uint *value) {
#if CLSCAN_STATUS32
  elem_t v;
  const uint state = (uint)status_read(word, 0, epoch, &v);
  *value = v;
  return state;
#else
  const ulong w = status_load(word);
  const uint hi = (uint)(w >> 32);
  *value = (uint)w;
  return hi >> (STATUS_EPOCH_SHIFT - 32) == (uint)epoch ? (hi >> (STATUS_STATE_SHIFT - 32)) & 3u
                                                        : 0u;
#endif
}

/* Ends chain d's look-back with the tile's exclusive prefix `prefix`: publishes the tile's
 * inclusive prefix (unless it is tile 0, which published it first, or withheld) and turns
 * m->base[d] into the destination of the digit's first key minus its place. */
ALWAYS_INLINE void sort_chain_done(__global status_t *status, ulong t, ulong epoch, int withheld,
                                   uint d, uint prefix, __local sort_tile_mem *m) {
  if (t > 0 && !withheld)
    sort_publish(sort_word(status, t, d), epoch, STATE_PREFIX, prefix + m->count[d]);
  m->base[d] += prefix - sort_digit_start(m, d);
}

/* Predecessors a chain reads at once: a round reads tiles next, next - 1, ..., and takes their
 * counts up to the first that is silent or holds an inclusive prefix. Wider windows walk a long
 * chain of aggregates in fewer round trips, at the price of more reads and registers. On the H200
 * (2^28 keys, sort_sweep) 4 was best for keys of up to 4 bytes (uint32 keys: 7.50 ms against 8.77
 * with 3, 8.84 with 6 and 9.28 with 8; uint32 pairs: 10.35 ms against 10.82 with 1 and 11.78 with
 * 2), 1 for 8-byte keys (uint64 keys: 20.32 ms against 22.16 with 2 and 21.72 with 4; pairs:
 * 30.41 against 32.77 with 2). One work-item walking several chains (the CPU shape) reads one
 * predecessor a chain. */
#ifndef SORT_WINDOW
#if SORT_CHAINS > 1 || SORT_KEY_SIZE > 4
#define SORT_WINDOW 1
#else
#define SORT_WINDOW 4
#endif
#endif

/*
 * The look-backs of digits d0, d0 + SORT_LANES, ... (SORT_CHAINS digits), walked at once by one
 * work-item: each round reads the next SORT_WINDOW predecessors of every unfinished chain
 * (independent reads, so their round trips overlap), adds their counts up to the first silent
 * one and moves back past them, until an inclusive prefix ends the chain. A predecessor that
 * stays silent for SORT_SPIN rounds is counted here from its keys and published (the decoupled
 * fallback). Counts are sums of integers, so the result is the same whatever was read. Each
 * chain publishes the tile's inclusive prefix as soon as it is done. Tile indices are ints: a sort
 * has at most UINT32_MAX keys (src/sort_api.c), in tiles of at least 256 keys. 32-bit
 * arithmetic here, instead of 64-bit, took a uint32 sort from 7.00 to 6.64 ms on the H200
 * (2^28 keys), its loop being about a quarter of the pass's instructions.
 */
ALWAYS_INLINE void sort_lookback_chains(const __global sort_bits_t *keys, ulong n, ulong t,
                                        uint shift, uint mask, uint d0, __global status_t *status,
                                        ulong epoch, int withheld, __local sort_tile_mem *m) {
  uint acc[SORT_CHAINS], spins[SORT_CHAINS];
  int next[SORT_CHAINS]; /* the next predecessor to read; < 0 once the chain is done */
#pragma unroll
  for (uint k = 0; k < SORT_CHAINS; k++) {
    acc[k] = 0;
    spins[k] = 0;
    next[k] = (int)t - 1;
    if (next[k] < 0)
      sort_chain_done(status, t, epoch, withheld, d0 + k * SORT_LANES, 0, m);
  }
  for (uint idle = 0;;) {
    uint state[SORT_CHAINS][SORT_WINDOW], v[SORT_CHAINS][SORT_WINDOW];
#pragma unroll
    for (uint k = 0; k < SORT_CHAINS; k++) {
#pragma unroll
      for (uint j = 0; j < SORT_WINDOW; j++) {
        state[k][j] = 0;
        v[k][j] = 0;
        if (next[k] >= (int)j)
          state[k][j] = sort_read(sort_word(status, (uint)(next[k] - (int)j), d0 + k * SORT_LANES),
                                  epoch, &v[k][j]);
      }
    }
    // At most one fallback a round (one copy of its code): the first chain whose predecessor
    // stayed silent for SORT_SPIN rounds; other such chains count theirs in the next rounds.
    uint fk = SORT_CHAINS, fd = 0, fc = 0, ft = 0;
#pragma unroll
    for (uint k = 0; k < SORT_CHAINS; k++) {
      if (next[k] >= 0 && !state[k][0] && ++spins[k] >= SORT_SPIN && fk == SORT_CHAINS) {
        fk = k;
        fd = d0 + k * SORT_LANES;
        ft = (uint)next[k];
      }
    }
    if (fk < SORT_CHAINS) {
      fc = sort_count_digit(keys, n, ft, shift, mask, fd);
      sort_publish(sort_word(status, ft, fd), epoch, STATE_AGGREGATE, fc);
    }
    int open = 0, moved = 0;
#pragma unroll
    for (uint k = 0; k < SORT_CHAINS; k++) {
      if (k == fk) {
        state[k][0] = STATE_AGGREGATE;
        v[k][0] = fc;
      }
      const int was_open = next[k] >= 0;
      int live = was_open; /* the window's tiles so far were all read with a state */
#pragma unroll
      for (uint j = 0; j < SORT_WINDOW; j++) {
        live = live && state[k][j];
        if (live) {
          acc[k] += v[k][j];
          next[k] = state[k][j] == STATE_PREFIX ? -1 : next[k] - 1;
          live = next[k] >= 0;
          moved = 1;
          spins[k] = 0;
        }
      }
      if (was_open && next[k] < 0)
        sort_chain_done(status, t, epoch, withheld, d0 + k * SORT_LANES, acc[k], m);
      open |= next[k] >= 0;
    }
    if (!open)
      return;
    idle = moved ? 0 : idle + 1;
    if (idle)
      sort_backoff();
  }
}

/* SORT_GROUP_TILE: a work-group's tile is its group id, which NVIDIA starts in order, so that its
 * key loads need not wait for a ticket's atomic round trip; otherwise the tile is a ticket (tiles
 * in the order work-groups start). A tile whose predecessor has not started counts that
 * predecessor's digit itself (the fallback), so the order matters for speed only, never for
 * termination. On by default on NVIDIA (-DSORT_GROUP_TILE=0 or 1 overrides). */
#ifndef SORT_GROUP_TILE
#define SORT_GROUP_TILE CLSCAN_NV_PTX
#endif

/* SORT_PREFETCH (NVIDIA): each tile asks L2 for the keys of the tile SORT_PREFETCH tiles after it
 * (common.cl's group_prefetch_l2), so that more keys are in flight than the three work-groups a
 * multiprocessor holds can load; 0: none. On by default for keys alone, where on the H200 (2^28
 * uniform keys) distances of 32 to 256 sped uint32 keys up by 4 % and uint64 keys by 3.5 %
 * (2048: slower); with values it gained nothing, also with the values prefetched
 * (SORT_PREFETCH_VALUES=1: 11 % slower). -DSORT_PREFETCH=N overrides. */
#ifndef SORT_PREFETCH
#define SORT_PREFETCH (CLSCAN_NV_PTX && SORT_VALUE_SIZE == 0 ? 64 : 0)
#endif
#ifndef SORT_PREFETCH_VALUES
#define SORT_PREFETCH_VALUES 0
#endif

/* Word i of `temp` that sort_passes wrote before this pass and nothing writes during it (the runs
 * and sides words): on NVIDIA through the non-coherent cache, so that the work-groups after a
 * multiprocessor's first need not wait for L2 before they know where their keys are. */
ALWAYS_INLINE uint sort_pass_word(const __global uint *temp, uint i) {
#if CLSCAN_NV_PTX
  uint v;
  asm("ld.global.nc.u32 %0, [%1];" : "=r"(v) : "l"(temp + i));
  return v;
#else
  return temp[i];
#endif
}

#if CLSCAN_NV_PTX && SORT_PREFETCH
/* Asks L2 for the keys (and with SORT_PREFETCH_VALUES the values) of the tile SORT_PREFETCH tiles
 * after tile t, where that tile is whole. */
ALWAYS_INLINE void sort_prefetch_later(const __global sort_bits_t *keys,
                                       const __global sort_value_t *vals, ulong n, ulong t) {
  if ((t + SORT_PREFETCH + 1) * SORT_TILE <= n) {
    group_prefetch_l2((const __global uchar *)(keys + (t + SORT_PREFETCH) * SORT_TILE),
                      SORT_TILE * sizeof(sort_bits_t));
#if SORT_VALUE_SIZE && SORT_PREFETCH_VALUES
    group_prefetch_l2(
        (const __global uchar *)vals + (t + SORT_PREFETCH) * SORT_TILE * (ulong)SORT_VALUE_SIZE,
        SORT_TILE * (ulong)SORT_VALUE_SIZE);
#endif
  }
}
#endif

/* Publishes tile t's count of every digit, as soon as it is known and before the keys are placed,
 * so that the tiles after it find it early (test only: withheld tiles publish nothing). */
ALWAYS_INLINE void sort_publish_counts(__global status_t *status, ulong t, ulong epoch,
                                       int withheld, __local sort_tile_mem *m) {
#if !SORT_TEST_NO_LOOKBACK
  if (!withheld) {
    for (uint d = get_local_id(0); d < SORT_RADIX; d += SORT_WG)
      sort_publish(sort_word(status, t, d), epoch, t == 0 ? STATE_PREFIX : STATE_AGGREGATE,
                   m->count[d]);
  }
#endif
}

/* Looks back along each digit's chain for the tile's digit offsets (m->base): lane l walks digits
 * l, l + SORT_LANES, ..., SORT_CHAINS of them at once. The caller's barrier follows. */
ALWAYS_INLINE void sort_lookback(const __global sort_bits_t *keys, ulong n, ulong t, uint shift,
                                 uint mask, __global status_t *status, ulong epoch, int withheld,
                                 __local sort_tile_mem *m) {
  const uint lid = get_local_id(0);
#if SORT_TEST_NO_LOOKBACK
  for (uint d = lid; d < SORT_RADIX; d += SORT_WG)
    m->base[d] -= sort_digit_start(m, d);
#else
  if (lid < SORT_LANES) {
    for (uint d0 = lid; d0 < SORT_RADIX; d0 += SORT_LANES * SORT_CHAINS)
      sort_lookback_chains(keys, n, t, shift, mask, d0, status, epoch, withheld, m);
  }
#endif
}

/* One pass: tiles take tickets (or their group ids), rank their keys, publish their digit counts,
 * look back along every digit's chain for their offsets, and scatter. `a` is the caller's
 * buffers, `b` the temporary ones; the kernel picks its source and destination from the
 * histogram. */
SORT_KERNEL void sort_onesweep(__global sort_bits_t *akeys, ulong akeys_off,
                               __global sort_value_t *avals, ulong avals_off,
                               __global sort_bits_t *bkeys, ulong bkeys_off,
                               __global sort_value_t *bvals, ulong bvals_off, ulong n, uint pass,
                               uint begin_bit, uint end_bit, __global uint *temp) {
  __local sort_tile_mem m;
  const uint lid = get_local_id(0);
  if (!((sort_pass_word(temp, SORT_RUNS) >> pass) & 1u))
    return;
  const uint side = (sort_pass_word(temp, SORT_SIDES) >> pass) & 1u;
  akeys += akeys_off;
  avals += avals_off;
  bkeys += bkeys_off;
  bvals += bvals_off;
  const __global sort_bits_t *keys = side ? bkeys : akeys;
  const __global sort_value_t *vals = side ? bvals : avals;
  __global sort_bits_t *dkeys = side ? akeys : bkeys;
  __global sort_value_t *dvals = side ? avals : bvals;
  uint shift, mask;
  sort_pass_digit(pass, begin_bit, end_bit, &shift, &mask);
#if SORT_GROUP_TILE
  const ulong t = get_group_id(0);
#else
  __local uint tile_id;
  if (lid == 0)
    tile_id = atomic_inc(&temp[pass]);
  barrier(CLK_LOCAL_MEM_FENCE);
  const ulong t = tile_id;
#endif
  const ulong epoch = pass + 1;
  __global status_t *status = (__global status_t *)((__global uchar *)temp + SORT_STATUS_OFFSET);
#if CLSCAN_NV_PTX && SORT_PREFETCH
  sort_prefetch_later(keys, vals, n, t);
#endif
  sort_mine mine;
  sort_count_tile(keys, n, t, shift, mask, &m, &mine);
  const int withheld = tile_withheld(t);
  sort_publish_counts(status, t, epoch, withheld, &m);

  // The digits' starts in the whole pass (sort_passes scanned the histogram), in local memory.
  const __global uint *starts = temp + SORT_HIST_OFFSET + pass * SORT_RADIX;
  for (uint d = lid; d < SORT_RADIX; d += SORT_WG)
    m.base[d] = starts[d];
  // No barrier before the look-back: a look-back work-item reads and updates only the bases of
  // its own digits, which it set itself just above, and the counts and starts, which
  // sort_count_tile left behind its barrier (the ranking's places are not read until the scatter).
  sort_place_tile(sort_in_tile(t, n), shift, mask, &m, &mine);
#if SORT_RANK_WARPS && (SORT_EARLY_KEYS || SORT_EARLY_VALUES)
  sort_stage_early(vals, n, t, &m, &mine);
#endif

  sort_lookback(keys, n, t, shift, mask, status, epoch, withheld, &m);
  barrier(CLK_LOCAL_MEM_FENCE);
#if SORT_RANK_WARPS && (SORT_EARLY_KEYS || SORT_EARLY_VALUES)
  sort_store_tile(vals, dkeys, dvals, n, t, shift, mask, &m);
#else
  sort_scatter_tile(keys, vals, dkeys, dvals, n, t, shift, mask, &m, &mine);
#endif
}
#endif

/* After the last pass: if the keys ended in the temporary buffers, copies them back in a
 * grid-stride loop (any grid; the host caps it, src/sort_internal.h), or returns at once.
 * from_words: 1 where sort_passes decided (the Onesweep path), 0 where every pass ran (the keys
 * are in the temporary buffers when `passes` is odd). */
__kernel void sort_finish(__global sort_bits_t *akeys, ulong akeys_off,
                          __global sort_value_t *avals, ulong avals_off,
                          const __global sort_bits_t *bkeys, ulong bkeys_off,
                          const __global sort_value_t *bvals, ulong bvals_off, ulong n, uint passes,
                          int from_words, const __global uint *temp) {
  const uint side = from_words ? (temp[SORT_SIDES] >> passes) & 1u : passes & 1u;
  if (!side)
    return;
  for (ulong i = get_global_id(0); i < n; i += get_global_size(0)) {
    akeys[akeys_off + i] = bkeys[bkeys_off + i];
#if SORT_VALUE_SIZE
    avals[avals_off + i] = bvals[bvals_off + i];
#endif
  }
}

/* Test only: CLSCAN_TEST_SORT_RANK_WARPS (through CLSCAN_BUILD_OPTIONS) names the GPU shape's
 * ranking a test expects; a plan built in the other one fails to build. */
#if defined(CLSCAN_TEST_SORT_RANK_WARPS) && SORT_WG > 1
#if CLSCAN_TEST_SORT_RANK_WARPS != SORT_RANK_WARPS
#error "the sort plan was built in the other GPU shape"
#endif
#endif
