/*
 * clscan kernels: the tile scan shared by the reduce-then-scan and single-pass kernels.
 *
 * A tile is CLSCAN_WG work-items x CLSCAN_VPT vectors x VEC elements (a vector is 16 bytes of the
 * wider of the input and output types, or one element of a user type). The tile is scanned as
 * scan states (elem_t, see common.cl), loaded through make_elem() (or, for whole vectors, one
 * vector load of the input and one of the flags or keys) and written through out_value(). A
 * work-item keeps its loaded elements in a tile_items: segmented head flags as bits beside the
 * values. Segments by offsets take their head flags from a bit mask: in global memory, built by
 * a pre-pass (seg_offsets_mark), or in local memory, filled by the work-group once per tile from
 * the offsets (seg_mark_tile); rows of a fixed length from each vector's position in its row.
 * tile_reduce() computes a tile's total with the same combinations in the same order while holding
 * one vector at a time (the single pass's fallback). tile_load() and tile_reduce() take the
 * work-group's scratch and must be called by every work-item. Work-items are grouped in "lane
 * groups" of SG lanes: a warp of 32 on NVIDIA (CLSCAN_NV_PTX, scanned with inline-PTX shuffles),
 * the whole work-group elsewhere (scanned in local memory). Lane group w owns a contiguous segment
 * of SG * VPT vectors; its lane l holds vectors j * SG + l of that segment (j < VPT), so every load
 * and store is fully coalesced and each work-item issues all its loads before it computes.
 *
 * Scan order inside a segment is vector-major: for each j, a serial scan inside each lane's
 * vector, a lane-group scan of the vector totals, and a carry from j to j + 1. Lane-group totals
 * are combined through local memory. Every combination is "earlier op later".
 *
 * Narrow types (CLSCAN_NARROW in common.cl, with CLSCAN_VECTOR_IO) take the packed path instead:
 * a work-item keeps each 16-byte vector as four 32-bit words (16 int8 or 8 int16 elements,
 * loaded and stored with one 16-byte access) and computes on the words: a vector's total, then
 * after the lane-group scan its serial scan seeded with its prefix, in 32-bit lanes (common.cl)
 * or several elements per operation (add of bytes in 16-bit halves, bitwise operators on whole
 * words, min and max in 16-bit halves with CLSCAN_NARROW_SIMD). Lane-group scans then combine
 * lanes (uint) too, for add of bytes, bitwise operators and min and max in halves several
 * vectors' totals per word. The combinations are the generic path's, in its order: each
 * vector's total, the lane-group scans, each vector's prefix; for integers any order gives the
 * same bits, and the results are those of val_t arithmetic (integers wrap).
 *
 * Tuning parameters: CLSCAN_WG, CLSCAN_VPT, CLSCAN_VECTOR_IO (1 when the host guarantees that
 * the input, output and flag or key offsets are multiples of VEC), CLSCAN_NV_PTX,
 * CLSCAN_NARROW_PRMT (see prmt()), CLSCAN_NARROW_SIMD (on by default from sm_90, CLSCAN_NV_SM),
 * CLSCAN_STASH (the single pass's tile in local memory through the look-back: tile_stash).
 * Needs common.cl first.
 */

#ifndef CLSCAN_WG
#define CLSCAN_WG 256
#endif
#ifndef CLSCAN_VPT
#define CLSCAN_VPT 4
#endif
#ifndef CLSCAN_VECTOR_IO
#define CLSCAN_VECTOR_IO 1
#endif

#if CLSCAN_NV_PTX
#define SG 32
#else
#define SG CLSCAN_WG
#endif
#define NUM_GROUPS (CLSCAN_WG / SG)
#define SEGMENT (SG * CLSCAN_VPT)
#define TILE ((ulong)CLSCAN_WG * CLSCAN_VPT * VEC)

/* How a tile finds its heads for segments by offsets (CLSCAN_SEGMENTS 3). With
 * CLSCAN_SEG_OFFSETS_MASK 1 (common.cl; set by the host for the GPU-shaped single pass under
 * CLSCAN_SEG_OFFSETS_MASK=1), aux is a head mask in global memory that a pre-pass built
 * (seg_offsets_mark, below): each work-item reads one mask word per vector beside its value load,
 * with no search and no barrier. Without it, aux is the offsets, and CLSCAN_SEG_OFFSETS_SEARCH
 * picks: 0 (the default) the work-group marks the tile's heads in a bit mask in local memory
 * (seg_mark_tile), which each work-item then reads, from the tile's first offset, which a
 * pre-pass wrote (CLSCAN_SEG_OFFSETS_FIRSTS 1, below: the GPU-shaped single pass's default) or a
 * wide search by the work-group finds; 1: each work-item searches the offsets for each of its
 * elements (seg_is_offset in common.cl), as a fallback and for comparisons. */
#ifndef CLSCAN_SEG_OFFSETS_SEARCH
#define CLSCAN_SEG_OFFSETS_SEARCH 0
#endif
#if CLSCAN_SEGMENTS == CLSCAN_SEGMENTS_OFFSETS && !CLSCAN_SEG_OFFSETS_MASK && \
    !CLSCAN_SEG_OFFSETS_SEARCH
#define TILE_HEAD_MASK 1
#define TILE_MASK_WORDS ((CLSCAN_WG * CLSCAN_VPT * VEC + 31) / 32)
#else
#define TILE_HEAD_MASK 0
#endif
/* CLSCAN_SEG_OFFSETS_FIRSTS 1 (set by the host with the local head mask): the tile's first offset
 * is not searched but read from the tile firsts that a pre-pass wrote (seg_offsets_firsts); the
 * kernel passes it to tile_load() and tile_reduce() as their last argument (TILE_FIRST_A), which
 * other kernels do not have. */
#ifndef CLSCAN_SEG_OFFSETS_FIRSTS
#define CLSCAN_SEG_OFFSETS_FIRSTS 0
#endif
#define TILE_SEG_FIRSTS (TILE_HEAD_MASK && CLSCAN_SEG_OFFSETS_FIRSTS)
#if TILE_SEG_FIRSTS
#define TILE_FIRST_P , ulong first
#define TILE_FIRST_A(f) , (f)
#else
#define TILE_FIRST_P
#define TILE_FIRST_A(f)
#endif
/* The packed path (see above). */
#if CLSCAN_NARROW && CLSCAN_VECTOR_IO
#define TILE_PACKED 1
#else
#define TILE_PACKED 0
#endif

/* How the packed path moves bytes within words. CLSCAN_NARROW_PRMT 1: with PTX prmt (the default
 * under CLSCAN_NV_PTX); 2: with the same selectors through prmt()'s C version (so that tests check
 * them on any device); 0: with shifts and masks. */
#ifndef CLSCAN_NARROW_PRMT
#define CLSCAN_NARROW_PRMT CLSCAN_NV_PTX
#endif

/* Byte permutation, as PTX prmt.b32 in its default mode: byte i of the result is byte s_i & 7 of
 * the eight bytes of a then b (a's bytes are 0..3), where s_i is nibble i of s; where s_i & 8,
 * that byte's top bit replicated instead (sign extension). */
#if CLSCAN_NARROW_PRMT == 1
ALWAYS_INLINE uint prmt(uint a, uint b, uint s) {
  uint r;
  asm("prmt.b32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(s));
  return r;
}
#else
ALWAYS_INLINE uint prmt(uint a, uint b, uint s) {
  const ulong x = (ulong)b << 32 | a;
  uint r = 0;
#pragma unroll
  for (uint i = 0; i < 4; i++) {
    const uint n = s >> (4 * i), byte = (uint)(x >> (8 * (n & 7u))) & 0xFFu;
    r |= ((n & 8u) ? (byte >> 7) * 0xFFu : byte) << (8 * i);
  }
  return r;
}
#endif

/* Min and max of narrow types in 16-bit halves, two elements per operation (NARROW_SCHEME 3 of
 * the packed path): CLSCAN_NARROW_SIMD 1 takes it, with PTX min/max.{s,u}16x2 under
 * CLSCAN_NV_PTX (PTX ISA 8.0, sm_90) and simd16_op()'s C version of the same operation elsewhere
 * (so that tests check the scheme on any device); 0: the lane scheme. The default is 1 on NVIDIA
 * GPUs of compute capability 9.0 and newer (CLSCAN_NV_SM, from the host), 0 elsewhere: on the
 * H200 it took int8 min from 0.639 to 0.733 of copy and int16 min from 0.773 to 0.842 (2^26, one
 * call), with the results checked. */
#ifndef CLSCAN_NARROW_SIMD
#if CLSCAN_NV_PTX && defined(CLSCAN_NV_SM) && CLSCAN_NV_SM >= 90
#define CLSCAN_NARROW_SIMD 1
#else
#define CLSCAN_NARROW_SIMD 0
#endif
#endif
#if TILE_PACKED && CLSCAN_NARROW_SIMD && NARROW_EXACT
#define NARROW_HALVES 1
#define NARROW_SIGNED (CLSCAN_TYPE == CLSCAN_INT8 || CLSCAN_TYPE == CLSCAN_INT16)
#else
#define NARROW_HALVES 0
#endif

#if NARROW_HALVES
/* The operator on each 16-bit half of two words: signed halves for signed types. */
#if CLSCAN_NV_PTX
#if CLSCAN_OP == CLSCAN_MIN && NARROW_SIGNED
#define NARROW_SIMD_INSN "min.s16x2"
#elif CLSCAN_OP == CLSCAN_MIN
#define NARROW_SIMD_INSN "min.u16x2"
#elif NARROW_SIGNED
#define NARROW_SIMD_INSN "max.s16x2"
#else
#define NARROW_SIMD_INSN "max.u16x2"
#endif
ALWAYS_INLINE uint simd16_op(uint a, uint b) {
  uint r;
  asm(NARROW_SIMD_INSN " %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
  return r;
}
#else
ALWAYS_INLINE uint simd16_op(uint a, uint b) {
  uint r = 0;
#pragma unroll
  for (uint i = 0; i < 32; i += 16) {
#if NARROW_SIGNED
    const int x = as_int(a << (16 - i)) >> 16, y = as_int(b << (16 - i)) >> 16;
#else
    const uint x = (a >> i) & 0xFFFFu, y = (b >> i) & 0xFFFFu;
#endif
    r |= ((uint)(CLSCAN_OP == CLSCAN_MIN ? min(x, y) : max(x, y)) & 0xFFFFu) << i;
  }
  return r;
}
#endif
#define NARROW_FIELD_OP(a, b) simd16_op(a, b)
#elif TILE_PACKED
#define NARROW_FIELD_OP(a, b) narrow_op(a, b)
#endif

/* An input vector and an output vector seen as their elements. */
typedef union in_elems {
  in_vec_t v;
  in_t e[VEC];
} in_elems;
typedef union out_elems {
  val_vec_t v;
  val_t e[VEC];
} out_elems;

/* Local memory a tile scan needs: a lane-group scan buffer and the lane-group totals; for offsets
 * also the tile's heads, one bit per element, and the slots of the search for the tile's first
 * offset (seg_mark_tile). The scan's members and the mask are used at different times, but they
 * are kept apart so that no barrier has to separate their uses. */
typedef struct tile_scratch {
#if !CLSCAN_NV_PTX
  elem_t lanes[CLSCAN_WG];
#if TILE_PACKED
  uint words[CLSCAN_WG]; /* the packed path's lanes (see narrow_group_scan) */
#endif
#endif
  elem_t group_total[NUM_GROUPS];
#if TILE_HEAD_MASK
  uint head_mask[TILE_MASK_WORDS];
#endif
#if TILE_HEAD_MASK && !TILE_SEG_FIRSTS
  uint search_slot[3];
#endif
} tile_scratch;

#if TILE_PACKED
/* A work-item's loaded vectors, each as four words (element k of a vector in bits
 * NARROW_BITS * (k % NARROW_PER_WORD) and up of word k / NARROW_PER_WORD). */
typedef struct tile_items {
  uint4 w[CLSCAN_VPT];
} tile_items;
#else
/* A work-item's loaded elements. Segmented, the values and the head flags are kept apart (one
 * bit per element): a (value, flag) state per element would double the registers a tile needs,
 * and registers bound how many work-groups share a compute unit. item_state() rebuilds a state. */
typedef struct tile_items {
  item_t v[CLSCAN_VPT][VEC];
#if CLSCAN_SEGMENTS
  uint heads[CLSCAN_VPT];
#endif
} tile_items;

/* The scan state of element k of a work-item's vector j. */
ALWAYS_INLINE elem_t item_state(const tile_items *x, uint j, uint k) {
#if CLSCAN_SEGMENTS
  return seg_make(x->v[j][k], (x->heads[j] >> k) & 1u);
#else
  return x->v[j][k];
#endif
}
#endif

/*
 * The stash (CLSCAN_STASH 1): local memory where a work-item keeps its loaded tile while the
 * work-group looks back, so that the tile's registers are free during the look-back and the
 * kernel needs fewer registers (more work-groups fit on a compute unit). Each work-item writes
 * and reads only its own slots, vector j of work-item lid at [j][lid], so consecutive work-items
 * touch consecutive 16-byte words (no bank conflicts) and no barrier is needed.
 */
#ifndef CLSCAN_STASH
#define CLSCAN_STASH 0
#endif
/* Rows of a fixed length take their positions from a work-item's hint (tile_hint) with the stash,
 * and divide once per vector without it: on the H200 (int32, rows of 1024) the hint ran at 1.10x
 * the plain scan's time stashed against 1.16x for the division, and in registers at 1.22x against
 * 1.16x (its position stays live through the loads). */
#define TILE_ROWS_HINT (CLSCAN_SEGMENTS == CLSCAN__SEGMENTS_ROWS && CLSCAN_STASH)
#if CLSCAN_STASH
#if TILE_PACKED
typedef uint4 stash_vec_t;
#elif CLSCAN_TYPE != CLSCAN_USER_TYPE
typedef val_vec_t stash_vec_t;
#endif
typedef struct tile_stash {
#if TILE_PACKED || CLSCAN_TYPE != CLSCAN_USER_TYPE
  stash_vec_t v[CLSCAN_VPT][CLSCAN_WG];
#else
  item_t v[CLSCAN_VPT][VEC][CLSCAN_WG];
#endif
#if CLSCAN_SEGMENTS && !TILE_PACKED
  uint heads[CLSCAN_VPT][CLSCAN_WG];
#endif
} tile_stash;

/* Writes a work-item's loaded tile to the stash. */
ALWAYS_INLINE void tile_stash_put(const tile_items *x, __local tile_stash *s) {
  const uint lid = get_local_id(0);
#pragma unroll
  for (uint j = 0; j < CLSCAN_VPT; j++) {
#if TILE_PACKED
    s->v[j][lid] = x->w[j];
#elif CLSCAN_TYPE != CLSCAN_USER_TYPE
    out_elems u;
#pragma unroll
    for (uint k = 0; k < VEC; k++)
      u.e[k] = x->v[j][k];
#if VEC > 1 && defined(CLSCAN_OCLGRIND_VSTORE)
    // Oclgrind: vstore, as in tile_store (its compiler stores undef first for the vector store).
    CLSCAN_CAT(vstore, VEC)(u.v, (size_t)j * CLSCAN_WG + lid, (__local val_t *)s->v);
#else
    s->v[j][lid] = u.v;
#endif
#else
#pragma unroll
    for (uint k = 0; k < VEC; k++)
      s->v[j][k][lid] = x->v[j][k];
#endif
#if CLSCAN_SEGMENTS && !TILE_PACKED
    s->heads[j][lid] = x->heads[j];
#endif
  }
}

/* Reads a work-item's tile back from the stash. */
ALWAYS_INLINE void tile_stash_get(tile_items *x, const __local tile_stash *s) {
  const uint lid = get_local_id(0);
#pragma unroll
  for (uint j = 0; j < CLSCAN_VPT; j++) {
#if TILE_PACKED
    x->w[j] = s->v[j][lid];
#elif CLSCAN_TYPE != CLSCAN_USER_TYPE
    out_elems u;
    u.v = s->v[j][lid];
#pragma unroll
    for (uint k = 0; k < VEC; k++)
      x->v[j][k] = u.e[k];
#else
#pragma unroll
    for (uint k = 0; k < VEC; k++)
      x->v[j][k] = s->v[j][k][lid];
#endif
#if CLSCAN_SEGMENTS && !TILE_PACKED
    x->heads[j] = s->heads[j][lid];
#endif
  }
}
#endif

/* ---------------------------------------------------------------------------------------------
 * Lane-group scans.
 * ------------------------------------------------------------------------------------------- */
#if CLSCAN_NV_PTX

/* Warp shuffles of a state, word by word (common.cl shuffles the words). */
ALWAYS_INLINE elem_t shfl_up(elem_t x, uint delta) {
  elem_bits a = elem_to_bits(x), r;
#pragma unroll
  for (uint i = 0; i < ELEM_WORDS; i++)
    r.u[i] = shfl_up_u32(a.u[i], delta);
  return r.e;
}
ALWAYS_INLINE elem_t shfl_idx(elem_t x, uint lane) {
  elem_bits a = elem_to_bits(x), r;
#pragma unroll
  for (uint i = 0; i < ELEM_WORDS; i++)
    r.u[i] = shfl_idx_u32(a.u[i], lane);
  return r.e;
}

/* Scans x across the warp: *excl gets the exclusive prefix, *total the warp's total. */
ALWAYS_INLINE void group_scan(elem_t x, uint lane, __local tile_scratch *s, elem_t *excl,
                              elem_t *total CLSCAN_XP) {
#pragma unroll
  for (uint d = 1; d < 32; d <<= 1) {
    const elem_t y = shfl_up(x, d);
    if (lane >= d)
      x = combine(y, x CLSCAN_XA);
  }
  const elem_t up = shfl_up(x, 1);
  *excl = lane > 0 ? up : IDENTITY;
  *total = shfl_idx(x, 31);
}

#else

/* Scans x across the work-group in local memory (Hillis-Steele); barriers are uniform. */
ALWAYS_INLINE void group_scan(elem_t x, uint lane, __local tile_scratch *s, elem_t *excl,
                              elem_t *total CLSCAN_XP) {
  s->lanes[lane] = x;
#pragma unroll
  for (uint d = 1; d < CLSCAN_WG; d <<= 1) {
    barrier(CLK_LOCAL_MEM_FENCE);
    const elem_t y = lane >= d ? s->lanes[lane - d] : IDENTITY;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lane >= d)
      x = combine(y, x CLSCAN_XA);
    s->lanes[lane] = x;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  *excl = lane > 0 ? s->lanes[lane - 1] : IDENTITY;
  *total = s->lanes[CLSCAN_WG - 1];
  barrier(CLK_LOCAL_MEM_FENCE);
}

#endif

#if TILE_PACKED && CLSCAN_NV_PTX
/* group_scan() on narrow lanes (common.cl), or (fields) on words of several fields (see
 * tile_scan_local) combined with NARROW_FIELD_OP; identity is the word's. */
ALWAYS_INLINE void narrow_group_scan(uint x, uint lane, __local tile_scratch *s, uint identity,
                                     const int fields, uint *excl, uint *total) {
#pragma unroll
  for (uint d = 1; d < 32; d <<= 1) {
    const uint y = shfl_up_u32(x, d);
    if (lane >= d)
      x = fields ? NARROW_FIELD_OP(y, x) : narrow_op(y, x);
  }
  const uint up = shfl_up_u32(x, 1);
  *excl = lane > 0 ? up : identity;
  *total = shfl_idx_u32(x, 31);
}
#elif TILE_PACKED
/* As above, in local memory. */
ALWAYS_INLINE void narrow_group_scan(uint x, uint lane, __local tile_scratch *s, uint identity,
                                     const int fields, uint *excl, uint *total) {
  s->words[lane] = x;
#pragma unroll
  for (uint d = 1; d < CLSCAN_WG; d <<= 1) {
    barrier(CLK_LOCAL_MEM_FENCE);
    const uint y = lane >= d ? s->words[lane - d] : identity;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lane >= d)
      x = fields ? NARROW_FIELD_OP(y, x) : narrow_op(y, x);
    s->words[lane] = x;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  *excl = lane > 0 ? s->words[lane - 1] : identity;
  *total = s->words[CLSCAN_WG - 1];
  barrier(CLK_LOCAL_MEM_FENCE);
}
#endif

/* ---------------------------------------------------------------------------------------------
 * Tile load, local scan and store.
 * ------------------------------------------------------------------------------------------- */

/* 1 in work-item 0, which holds a tile's first element (vector_index(0, 0) is 0), when that
 * element starts a segment; 0 elsewhere and for unsegmented scans. No element of such a tile
 * depends on what comes before it, so its look-back can be skipped: its inclusive prefix is its
 * aggregate, whose flag is set (single_pass_body). */
ALWAYS_INLINE uint tile_first_is_head(const tile_items *x) {
#if CLSCAN_SEGMENTS && !TILE_PACKED
  return get_local_id(0) == 0 ? x->heads[0] & 1u : 0u;
#else
  (void)x;
  return 0;
#endif
}

/* Index (in vectors, within the tile) of a work-item's j-th vector. (A blocked layout, each
 * work-item's vectors consecutive, was measured 30-45% slower on the H200: its loads are not
 * coalesced.) */
ALWAYS_INLINE uint vector_index(uint lid, uint j) {
  return (lid / SG) * SEGMENT + j * SG + lid % SG;
}

/* Combines the lane groups' segment totals: *group_prefix receives the total of the groups before
 * the caller's; returns the tile's total. Every work-item of the group must call it. */
ALWAYS_INLINE elem_t tile_totals(elem_t segment_total, elem_t *group_prefix,
                                 __local tile_scratch *s CLSCAN_XP) {
#if NUM_GROUPS > 1
  // Lane-group totals meet in local memory; each work-item folds them in order.
  const uint lid = get_local_id(0);
  if (lid % SG == 0)
    s->group_total[lid / SG] = segment_total;
  barrier(CLK_LOCAL_MEM_FENCE);
  const uint g = lid / SG;
  elem_t before = IDENTITY, all = IDENTITY;
#pragma unroll
  for (uint i = 0; i < NUM_GROUPS; i++) {
    const elem_t v = s->group_total[i];
    if (i < g)
      before = combine(before, v CLSCAN_XA);
    all = combine(all, v CLSCAN_XA);
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  *group_prefix = before;
  return all;
#else
  *group_prefix = IDENTITY;
  return segment_total;
#endif
}

#if TILE_PACKED

/* ---------------------------------------------------------------------------------------------
 * The packed path: words of narrow elements (common.cl's narrow lanes).
 * ------------------------------------------------------------------------------------------- */

/* A vector's words, one by one. */
typedef union narrow_words {
  uint4 v;
  uint u[4];
} narrow_words;

/* Packs the low NARROW_BITS bits of lanes p[0, NARROW_PER_WORD) into a word, p[0] lowest. */
ALWAYS_INLINE uint narrow_pack(const uint *p) {
#if VAL_SIZE == 1 && CLSCAN_NARROW_PRMT
  return prmt(prmt(p[0], p[1], 0x0040u), prmt(p[2], p[3], 0x0040u), 0x5410u);
#elif VAL_SIZE == 1
  return (p[0] & 0xFFu) | (p[1] & 0xFFu) << 8 | (p[2] & 0xFFu) << 16 | p[3] << 24;
#elif CLSCAN_NARROW_PRMT
  return prmt(p[0], p[1], 0x5410u);
#else
  return (p[0] & 0xFFFFu) | p[1] << 16;
#endif
}

/*
 * How a vector is scanned depends on the operator (NARROW_SCHEME). Each scheme has a running
 * state (narrow_state() makes it from a prefix lane), a word scan that returns the inclusive or
 * exclusive results of one word and advances the state past it, and a vector total (a lane).
 *   0  lanes: element by element in 32-bit lanes (mul, min, max, and add of 16-bit types);
 *   1  add of bytes in the 16-bit halves of a word, two elements per addition;
 *   2  bitwise operators on whole words, with the word's in-word prefix in two steps;
 *   3  min and max in 16-bit halves (CLSCAN_NARROW_SIMD), two elements per operation.
 */
#if CLSCAN_OP == CLSCAN_ADD && VAL_SIZE == 1
#define NARROW_SCHEME 1
#elif CLSCAN_OP >= CLSCAN_AND
#define NARROW_SCHEME 2
#elif NARROW_HALVES
#define NARROW_SCHEME 3
#else
#define NARROW_SCHEME 0
#endif

#if NARROW_SCHEME == 0

/* The state is the running lane. */
ALWAYS_INLINE uint narrow_state(uint r) {
  return r;
}

/* Scans word w seeded with *state, one lane after another. */
ALWAYS_INLINE uint narrow_word_scan(uint w, uint *state, const int exclusive) {
  const uint b = narrow_bias(w);
  uint p[NARROW_PER_WORD + 1];
  p[0] = *state;
#pragma unroll
  for (uint k = 0; k < NARROW_PER_WORD; k++)
    p[k + 1] = narrow_op(p[k], narrow_get(b, k));
  *state = p[NARROW_PER_WORD];
  return narrow_bias(narrow_pack(exclusive ? p : p + 1));
}

/*
 * The total of a vector's elements. Its expressions differ from narrow_word_scan()'s on purpose:
 * the compiler would otherwise keep the values they share (every extracted lane, for min and
 * max) alive from the totals to the stores, where recomputing them is cheaper than the registers.
 */
#if NARROW_EXACT
/* Min or max of each lane of two biased words, several lanes per operation: the top bit of
 * d = (x | H) - (y & ~H) tells, in each lane, whether x's lower bits are at least y's. */
ALWAYS_INLINE uint narrow_lanewise(uint x, uint y) {
  const uint high = (1u << (NARROW_BITS - 1)) * NARROW_ONES;
  const uint d = (x | high) - (y & ~high);
  const uint ge = ((x & ~y) | (~(x ^ y) & d)) & high; /* x >= y, at each lane's top bit */
  const uint m = (ge >> (NARROW_BITS - 1)) * NARROW_MASK;
#if CLSCAN_OP == CLSCAN_MIN
  return (x & ~m) | (y & m);
#else
  return (x & m) | (y & ~m);
#endif
}
ALWAYS_INLINE uint narrow_vector_total(narrow_words x) {
  const uint w = narrow_lanewise(narrow_lanewise(narrow_bias(x.u[0]), narrow_bias(x.u[1])),
                                 narrow_lanewise(narrow_bias(x.u[2]), narrow_bias(x.u[3])));
  uint t = narrow_get(w, 0);
#pragma unroll
  for (uint k = 1; k < NARROW_PER_WORD; k++)
    t = narrow_op(t, narrow_get(w, k));
  return t;
}
#elif CLSCAN_OP == CLSCAN_ADD
/* Add of 16-bit elements: with W the words' sum and L the sum of their low halves, the high
 * halves' sum is (W - L) >> 16. */
ALWAYS_INLINE uint narrow_vector_total(narrow_words x) {
  const uint w = x.u[0] + x.u[1] + x.u[2] + x.u[3];
  const uint l = (x.u[0] & 0xFFFFu) + (x.u[1] & 0xFFFFu) + (x.u[2] & 0xFFFFu) + (x.u[3] & 0xFFFFu);
  return l + ((w - l) >> 16);
}
#else
/* Mul: each word's lanes multiplied through rotations of the word (lane k of a rotation by
 * NARROW_BITS * k is the word's lane k at the bottom), then the words' products. */
ALWAYS_INLINE uint narrow_vector_total(narrow_words x) {
  uint t = 1;
#pragma unroll
  for (uint i = 0; i < 4; i++) {
#pragma unroll
    for (uint k = 0; k < NARROW_PER_WORD; k++)
      t *= rotate(x.u[i], (uint)(32 - NARROW_BITS * k));
  }
  return t;
}
#endif

#elif NARROW_SCHEME == 1

/*
 * Bytes b0..b3 of a word are added as two 16-bit halves, [b0, b2] and [b1, b3] (low half
 * first): a half never exceeds 16 * 255 + 255, so no carry crosses into the next half, and the
 * low byte of each half is the sum modulo 256. The state is the running prefix R (a byte) in
 * both halves, [R, R].
 */
ALWAYS_INLINE uint narrow_state(uint r) {
  return (r & 0xFFu) * 0x00010001u;
}

/* The word whose bytes are byte 0 of lo's halves and byte 0 of hi's, interleaved:
 * [lo.b0, hi.b0, lo.b2, hi.b2]. */
ALWAYS_INLINE uint narrow_interleave(uint lo, uint hi) {
#if CLSCAN_NARROW_PRMT
  return prmt(lo, hi, 0x6240u);
#else
  return (lo & 0x00FF00FFu) | (hi & 0x00FF00FFu) << 8;
#endif
}

/* Scans word w seeded with *state: with P_k = R + b0 + ... + bk, the odd results [P1, P3] are
 * the pair sums [b0 + b1, b2 + b3] scanned across the halves, plus R; the even ones [P0, P2] are
 * the odd ones less [b1, b3]. Exclusive results are [R, P0, P1, P2]: [R, P1] = R + [0, b0 + b1],
 * and [P0, P2]. */
ALWAYS_INLINE uint narrow_word_scan(uint w, uint *state, const int exclusive) {
  const uint r = *state;
  const uint even_bytes = w & 0x00FF00FFu;
#if CLSCAN_NARROW_PRMT
  const uint odd_bytes = prmt(w, 0u, 0x4341u);
#else
  const uint odd_bytes = w >> 8 & 0x00FF00FFu;
#endif
  const uint pairs = even_bytes + odd_bytes;
  const uint odd = pairs * 0x00010001u + r;
  const uint even = odd - odd_bytes;
#if CLSCAN_NARROW_PRMT
  *state = prmt(odd, 0u, 0x4242u);
#else
  *state = (odd >> 16 & 0xFFu) * 0x00010001u;
#endif
  return exclusive ? narrow_interleave(r + (pairs << 16), even) : narrow_interleave(even, odd);
}

/* The total of a vector's bytes (its low byte). With W the words' sum and O the sum of their odd
 * bytes' halves, W - 255 O is the sum of the even and odd halves, exact in each half. (Not the
 * halves added directly: see the lane scheme's totals.) */
ALWAYS_INLINE uint narrow_vector_total(narrow_words x) {
  const uint w = x.u[0] + x.u[1] + x.u[2] + x.u[3];
  const uint o = (x.u[0] >> 8 & 0x00FF00FFu) + (x.u[1] >> 8 & 0x00FF00FFu) +
                 (x.u[2] >> 8 & 0x00FF00FFu) + (x.u[3] >> 8 & 0x00FF00FFu);
  const uint halves = w - 255u * o;
  return halves + (halves >> 16);
}

#elif NARROW_SCHEME == 3

/*
 * Words of 16-bit halves: a 16-bit element is its half; bytes b0..b3 of a word become two words
 * of halves, [b0, b2] and [b1, b3] (low half first), each byte sign-extended for signed types, so
 * that simd16_op() orders them as their type does. The state is the last word of inclusive
 * results (of 16-bit elements, or of the odd bytes), [P', R]: R, the running prefix, in its high
 * half, and P', an earlier prefix, in its low half (at first [R, R]). The operators are
 * idempotent and every prefix is an earlier one combined with more elements, so R op P' = R:
 * combining a half with both of the state's halves combines it with R, which saves broadcasting
 * R to both halves.
 */

/* The half of lane r (its element, sign-extended for signed types), and the lane of half h. */
ALWAYS_INLINE uint narrow_half(uint r) {
#if VAL_SIZE == 2
  return (r ^ NARROW_BIAS) & 0xFFFFu;
#else
  return (uint)(ushort)(short)narrow_value(r);
#endif
}
ALWAYS_INLINE uint narrow_half_lane(uint h) {
  return (h ^ NARROW_BIAS) & NARROW_MASK;
}
#define NARROW_HALVES_IDENTITY (narrow_half(NARROW_IDENTITY) * 0x00010001u)

ALWAYS_INLINE uint narrow_state(uint r) {
#if CLSCAN_NARROW_PRMT
  // The element's bits (its half's low byte or bytes), copied or sign-extended to both halves.
  return prmt(r ^ NARROW_BIAS, 0u, VAL_SIZE == 2 ? 0x1010u : NARROW_SIGNED ? 0x8080u : 0x4040u);
#else
  return narrow_half(r) * 0x00010001u;
#endif
}

/* [b.hi, a.lo]: a's low half moved up, b's high half below it. */
ALWAYS_INLINE uint narrow_after_top(uint a, uint b) {
#if CLSCAN_NARROW_PRMT
  return prmt(a, b, 0x1076u);
#else
  return a << 16 | b >> 16;
#endif
}

#if VAL_SIZE == 1
/* The halves of word w's even bytes, [b0, b2], and of its odd bytes, [b1, b3]. */
#if NARROW_SIGNED
#define NARROW_EVEN_SEL 0xA280u
#define NARROW_ODD_SEL 0xB391u
#else
#define NARROW_EVEN_SEL 0x4240u
#define NARROW_ODD_SEL 0x4341u
#endif
ALWAYS_INLINE uint narrow_even_halves(uint w) {
  return prmt(w, 0u, NARROW_EVEN_SEL);
}
ALWAYS_INLINE uint narrow_odd_halves(uint w) {
  return prmt(w, 0u, NARROW_ODD_SEL);
}

/* Scans word w seeded with *state = [P', R]: with P_k = R op b0 op ... op bk, the odd results
 * [P1, P3] are the pairs p = [b0 op b1, b2 op b3] combined with [R, p.lo] and the state; the even
 * ones [P0, P2] are [R, P1] op [b0, b2]. Exclusive results are [R, P0, P1, P2]; the new state is
 * [P1, P3]. */
ALWAYS_INLINE uint narrow_word_scan(uint w, uint *state, const int exclusive) {
  const uint r = *state;
  const uint even_bytes = narrow_even_halves(w);
  const uint pairs = simd16_op(even_bytes, narrow_odd_halves(w));
  const uint odd = simd16_op(simd16_op(pairs, narrow_after_top(pairs, r)), r);
  const uint before_even = narrow_after_top(odd, r);
  const uint even = simd16_op(before_even, even_bytes);
  *state = odd;
  return exclusive ? prmt(before_even, even, 0x6240u) : prmt(even, odd, 0x6240u);
}

/* The total of a vector's bytes (a lane), from the halves of each word's low bytes, [b0, b1], and
 * of its high bytes, [b2, b3]: not the even and odd bytes of narrow_word_scan(), which the
 * compiler would otherwise keep alive from the totals to the stores (registers). */
#if NARROW_SIGNED
#define NARROW_LOW_SEL 0x9180u
#define NARROW_HIGH_SEL 0xB3A2u
#else
#define NARROW_LOW_SEL 0x4140u
#define NARROW_HIGH_SEL 0x4342u
#endif
ALWAYS_INLINE uint narrow_vector_total(narrow_words x) {
  uint h[4];
#pragma unroll
  for (uint i = 0; i < 4; i++)
    h[i] = simd16_op(prmt(x.u[i], 0u, NARROW_LOW_SEL), prmt(x.u[i], 0u, NARROW_HIGH_SEL));
  const uint t = simd16_op(simd16_op(h[0], h[1]), simd16_op(h[2], h[3]));
  return narrow_half_lane(simd16_op(t, t >> 16));
}
#else
/* Scans word w seeded with *state = [P', R]: w combined with [R, w.lo] and the state; the
 * exclusive results are [R, x.lo] of the inclusive ones x, the new state x. */
ALWAYS_INLINE uint narrow_word_scan(uint w, uint *state, const int exclusive) {
  const uint before = *state;
  const uint x = simd16_op(simd16_op(w, narrow_after_top(w, before)), before);
  *state = x;
  return exclusive ? narrow_after_top(x, before) : x;
}

/* The total of a vector's elements (a lane): the words combined, then their halves. */
ALWAYS_INLINE uint narrow_vector_total(narrow_words x) {
  const uint t = simd16_op(simd16_op(x.u[0], x.u[1]), simd16_op(x.u[2], x.u[3]));
  return narrow_half_lane(simd16_op(t, t >> 16));
}
#endif

#else /* NARROW_SCHEME == 2 */

/* What a shift fills in: the identity's bits (all ones for and). */
#if CLSCAN_OP == CLSCAN_AND
#define NARROW_FILL(bits) ((1u << (bits)) - 1u)
#else
#define NARROW_FILL(bits) 0u
#endif

/* The state is the running prefix in every lane. */
ALWAYS_INLINE uint narrow_state(uint r) {
  return (r & NARROW_MASK) * NARROW_ONES;
}

/* Copies the top lane of a word to every lane. */
ALWAYS_INLINE uint narrow_broadcast_top(uint w) {
#if CLSCAN_NARROW_PRMT
  return prmt(w, 0u, VAL_SIZE == 1 ? 0x3333u : 0x3232u);
#else
  return (w >> (32 - NARROW_BITS)) * NARROW_ONES;
#endif
}

/* Scans word w seeded with *state: each lane combines itself with the lane below, then (bytes)
 * each pair with the pair below, then the state; the exclusive results are the inclusive ones a
 * lane up, with the state's lane below them. */
ALWAYS_INLINE uint narrow_word_scan(uint w, uint *state, const int exclusive) {
  const uint before = *state;
  uint x = narrow_op(w, (w << NARROW_BITS) | NARROW_FILL(NARROW_BITS));
#if VAL_SIZE == 1
  x = narrow_op(x, (x << 16) | NARROW_FILL(16));
#endif
  x = narrow_op(before, x);
  *state = narrow_broadcast_top(x);
  return exclusive ? (x << NARROW_BITS) | (before >> (32 - NARROW_BITS)) : x;
}

/* The total of a vector's elements (its low lane): the words combined, then their lanes. */
ALWAYS_INLINE uint narrow_vector_total(narrow_words x) {
  uint t = narrow_op(narrow_op(x.u[0], x.u[1]), narrow_op(x.u[2], x.u[3]));
  t = narrow_op(t, t >> 16);
#if VAL_SIZE == 1
  t = narrow_op(t, t >> 8);
#endif
  return t;
}

#endif /* NARROW_SCHEME */

/*
 * Lane-group scans take several vector totals per word where the operator keeps fields apart:
 * bitwise operators a total per lane; add of bytes two totals of 8 bits in 16-bit fields, whose
 * sums over a lane group (at most 32 * 255 on NVIDIA, CLSCAN_WG * 255 elsewhere) stay below
 * 2^16; min and max in halves two totals as halves. Fewer shuffles per vector (or local-memory
 * rounds) is what this buys. NARROW_FIELD makes a field from a total's lane. The scans' results
 * are carried from j to j + 1 in a word (NARROW_CARRY_OP combines it with a field in a word's low
 * bits, NARROW_CARRY_VALUE makes a value of it): a lane, or in halves a half, so that no field is
 * turned back into a lane.
 */
#if NARROW_SCHEME == 2
#define NARROW_TOTALS_PER_SCAN NARROW_PER_WORD
#define NARROW_FIELD_BITS NARROW_BITS
#elif NARROW_SCHEME == 3
#define NARROW_TOTALS_PER_SCAN 2
#define NARROW_FIELD_BITS 16
#elif NARROW_SCHEME == 1 && SG <= 256
#define NARROW_TOTALS_PER_SCAN 2
#define NARROW_FIELD_BITS 16
#else
#define NARROW_TOTALS_PER_SCAN 1
#define NARROW_FIELD_BITS 32
#endif
#if NARROW_SCHEME == 3
#define NARROW_FIELD(v) narrow_half(v)
#define NARROW_CARRY_IDENTITY NARROW_HALVES_IDENTITY
#define NARROW_CARRY_OP(c, f) simd16_op(c, f)
#define NARROW_CARRY_VALUE(c) narrow_value(narrow_half_lane(c))
#else
#define NARROW_FIELD(v) ((v)&NARROW_MASK)
#define NARROW_CARRY_IDENTITY NARROW_IDENTITY
#define NARROW_CARRY_OP(c, f) narrow_op(c, f)
#define NARROW_CARRY_VALUE(c) narrow_value(c)
#endif
#if NARROW_SCHEME == 3
#define NARROW_FIELD_IDENTITY NARROW_HALVES_IDENTITY
#elif NARROW_TOTALS_PER_SCAN > 1
#if CLSCAN_OP == CLSCAN_AND
#define NARROW_FIELD_IDENTITY 0xFFFFFFFFu
#else
#define NARROW_FIELD_IDENTITY 0u
#endif
#else
#define NARROW_FIELD_IDENTITY NARROW_IDENTITY
#endif

/* Scans a vector seeded with prefix lane r: its inclusive or exclusive results, as words. */
ALWAYS_INLINE narrow_words narrow_vector_scan(narrow_words x, uint r, const int exclusive) {
  uint state = narrow_state(r);
  narrow_words y;
#pragma unroll
  for (uint i = 0; i < 4; i++)
    y.u[i] = narrow_word_scan(x.u[i], &state, exclusive);
  return y;
}

/* Loads the vector from index e (a multiple of VEC) of in[0, n) as words; elements past n read as
 * the identity. full says that the whole tile lies inside the range (then one 16-byte load). */
ALWAYS_INLINE uint4 narrow_load(const __global in_t *in, ulong n, ulong e, int full) {
  if (full)
    return ((const __global uint4 *)in)[e / VEC];
  narrow_words x;
#pragma unroll
  for (uint i = 0; i < 4; i++) {
    uint w = 0;
#pragma unroll
    for (uint k = 0; k < NARROW_PER_WORD; k++) {
      const ulong at = e + i * NARROW_PER_WORD + k;
      const val_t v = at < n ? in[at] : VAL_IDENTITY;
      w |= (uint)(uval_t)v << (NARROW_BITS * k);
    }
    x.u[i] = w;
  }
  return x.v;
}

/* Stores the vector u of results at index e of out[0, n) (as narrow_load reads). */
ALWAYS_INLINE void narrow_store(__global val_t *out, ulong n, ulong e, int full, narrow_words u) {
  if (full) {
    // CLSCAN_OCLGRIND_VSTORE (the Oclgrind tests set it): vstore, which Oclgrind's compiler does
    // not turn into a store of undef first (tests/oclgrind/vector_store.c); elsewhere the vector
    // store, which NVIDIA compiles to one 16-byte store.
#if defined(CLSCAN_OCLGRIND_VSTORE)
    vstore4(u.v, e / VEC, (__global uint *)out);
#else
    ((__global uint4 *)out)[e / VEC] = u.v;
#endif
    return;
  }
#pragma unroll
  for (uint i = 0; i < 4; i++) {
#pragma unroll
    for (uint k = 0; k < NARROW_PER_WORD; k++) {
      const ulong at = e + i * NARROW_PER_WORD + k;
      if (at < n)
        out[at] = AS_VAL((uval_t)(u.u[i] >> (NARROW_BITS * k)));
    }
  }
}

/* Loads a work-item's vectors of tile t from in[0, n) (aux is unused: the packed path has no
 * segments); elements past n read as the identity. Every load is issued before any is used. */
ALWAYS_INLINE void tile_load(const __global in_t *in, const __global uchar *aux CLSCAN_XP, ulong n,
                             ulong t, tile_items *x, __local tile_scratch *s TILE_FIRST_P) {
  const uint lid = get_local_id(0);
  const ulong base = t * TILE;
  const int full = base + TILE <= n;
  (void)aux;
  (void)s;
#pragma unroll
  for (uint j = 0; j < CLSCAN_VPT; j++)
    x->w[j] = narrow_load(in, n, base + (ulong)vector_index(lid, j) * VEC, full);
}

/*
 * Scans a loaded tile locally. pre[j] receives the exclusive prefix of vector j within its lane
 * group's segment, *group_prefix the total of the earlier lane groups; returns the tile's total.
 * Every work-item of the group must call it (it contains barriers).
 */
ALWAYS_INLINE elem_t tile_scan_local(const tile_items *x, elem_t pre[CLSCAN_VPT],
                                     elem_t *group_prefix, __local tile_scratch *s CLSCAN_XP) {
  const uint lane = get_local_id(0) % SG;
  uint vt[CLSCAN_VPT];
#pragma unroll
  for (uint j = 0; j < CLSCAN_VPT; j++) {
    narrow_words u;
    u.v = x->w[j];
    vt[j] = narrow_vector_total(u);
  }
  // Lane-group scans of the vector totals, NARROW_TOTALS_PER_SCAN vector indices at a time (in
  // the fields of a word), carried from j to j + 1.
  uint carry = NARROW_CARRY_IDENTITY;
#pragma unroll
  for (uint j = 0; j < CLSCAN_VPT; j += NARROW_TOTALS_PER_SCAN) {
    uint word = 0, excl, total;
#pragma unroll
    for (uint g = 0; g < NARROW_TOTALS_PER_SCAN; g++) {
      const uint v = j + g < CLSCAN_VPT ? vt[j + g] : NARROW_IDENTITY;
      word |= NARROW_TOTALS_PER_SCAN > 1 ? NARROW_FIELD(v) << (NARROW_FIELD_BITS * g) : v;
    }
    narrow_group_scan(word, lane, s, NARROW_FIELD_IDENTITY, NARROW_TOTALS_PER_SCAN > 1, &excl,
                      &total);
#pragma unroll
    for (uint g = 0; g < NARROW_TOTALS_PER_SCAN && j + g < CLSCAN_VPT; g++) {
      const uint shift = NARROW_FIELD_BITS * g;
      pre[j + g] = NARROW_CARRY_VALUE(NARROW_CARRY_OP(carry, excl >> shift));
      carry = NARROW_CARRY_OP(carry, total >> shift);
    }
  }
  return tile_totals(NARROW_CARRY_VALUE(carry), group_prefix, s CLSCAN_XA);
}

/*
 * Returns the total of tile t of in[0, n), combined in the same order as tile_load and
 * tile_scan_local combine it, while holding one vector at a time (the single pass's fallback).
 * Every work-item must call it.
 */
ALWAYS_INLINE elem_t tile_reduce(const __global in_t *in, const __global uchar *aux CLSCAN_XP,
                                 ulong n, ulong t, __local tile_scratch *s TILE_FIRST_P) {
  const uint lid = get_local_id(0);
  const ulong base = t * TILE;
  const int full = base + TILE <= n;
  uint carry = NARROW_IDENTITY;
  (void)aux;
#pragma unroll 1
  for (uint j = 0; j < CLSCAN_VPT; j++) {
    narrow_words u;
    uint excl, total;
    u.v = narrow_load(in, n, base + (ulong)vector_index(lid, j) * VEC, full);
    narrow_group_scan(narrow_vector_total(u), lid % SG, s, NARROW_IDENTITY, 0, &excl, &total);
    carry = narrow_op(carry, total);
  }
  elem_t group_prefix;
  return tile_totals(narrow_value(carry), &group_prefix, s CLSCAN_XA);
}

/* tile_store() for inclusive (exclusive 0) or exclusive (1) results, a constant. */
ALWAYS_INLINE void narrow_tile_store(__global val_t *out, ulong n, ulong t, const tile_items *x,
                                     elem_t pre[CLSCAN_VPT], elem_t lead,
                                     const int exclusive CLSCAN_XP) {
  const uint lid = get_local_id(0);
  const ulong base = t * TILE;
  const int full = base + TILE <= n;
#pragma unroll
  for (uint j = 0; j < CLSCAN_VPT; j++) {
    narrow_words u;
    u.v = x->w[j];
    const narrow_words y =
        narrow_vector_scan(u, narrow_lane(combine(lead, pre[j] CLSCAN_XA)), exclusive);
    narrow_store(out, n, base + (ulong)vector_index(lid, j) * VEC, full, y);
  }
}

/* Writes a work-item's results of tile t: for each element the prefix within the tile, lead op
 * pre[j] first (seed is for segmented scans, which take the generic path). */
ALWAYS_INLINE void tile_store(__global val_t *out, ulong n, ulong t, const tile_items *x,
                              elem_t pre[CLSCAN_VPT], elem_t lead, int exclusive,
                              val_t seed CLSCAN_XP) {
  (void)seed;
  if (exclusive) {
    narrow_tile_store(out, n, t, x, pre, lead, 1 CLSCAN_XA);
  } else {
    narrow_tile_store(out, n, t, x, pre, lead, 0 CLSCAN_XA);
  }
}

#else /* !TILE_PACKED: the generic path */

/* Aux vectors of a full tile (CLSCAN_VECTOR_IO: the host guarantees that aux_off, like in_off
 * and out_off, is a multiple of VEC, so these loads are aligned). */
#if CLSCAN_SEGMENTS == CLSCAN_SEGMENTS_HEAD_FLAGS && VEC > 1
typedef CLSCAN_CAT(uchar, VEC) flag_vec_t;
typedef union flag_elems {
  flag_vec_t v;
  uchar e[VEC];
} flag_elems;
#elif CLSCAN_SEGMENTS == CLSCAN_SEGMENTS_KEYS && VEC > 1 && CLSCAN_KEY_TYPE != CLSCAN_USER_TYPE
typedef CLSCAN_CAT(CLSCAN_CAT(CLSCAN_SCALAR_, CLSCAN_KEY_TYPE), VEC) key_vec_t;
typedef union key_elems {
  key_vec_t v;
  key_t e[VEC];
} key_elems;
#endif

#if CLSCAN_SEGMENTS == CLSCAN_SEGMENTS_OFFSETS && CLSCAN_SEG_OFFSETS_MASK
/* The head bits of the VEC elements from index e (a multiple of VEC) in the head mask aux;
 * element 0 is always a head. */
ALWAYS_INLINE uint seg_vector_mask(const __global uchar *aux, ulong e) {
  const uint w = ((const __global uint *)aux)[e / 32];
  return ((w >> (e % 32)) & (uint)((1ul << VEC) - 1)) | (uint)(e == 0);
}
#endif

/* Loads the VEC elements from index e (a multiple of VEC) of a full tile as scan states, with
 * one vector load for the input and one for the flags or keys (*at: see make_elem_at). */
ALWAYS_INLINE void load_full_vector(const __global in_t *in, const __global uchar *aux CLSCAN_XP,
                                    ulong e, ulong *at, elem_t xs[VEC]) {
  in_elems u;
  u.v = ((const __global in_vec_t *)in)[e / VEC];
#if CLSCAN_SEGMENTS == CLSCAN_SEGMENTS_HEAD_FLAGS && VEC > 1
  flag_elems f;
  f.v = ((const __global flag_vec_t *)aux)[e / VEC];
#pragma unroll
  for (uint k = 0; k < VEC; k++)
    xs[k] = seg_make(MAP(u.e[k], e + k), (e + k == 0) | (f.e[k] != 0));
#elif CLSCAN_SEGMENTS == CLSCAN_SEGMENTS_KEYS && VEC > 1 && CLSCAN_KEY_TYPE != CLSCAN_USER_TYPE
  const __global key_t *keys = (const __global key_t *)aux;
  key_elems kv;
  kv.v = ((const __global key_vec_t *)aux)[e / VEC];
  key_t prev = e > 0 ? keys[e - 1] : kv.e[0];
#pragma unroll
  for (uint k = 0; k < VEC; k++) {
    xs[k] = seg_make(MAP(u.e[k], e + k), (e + k == 0) | !KEY_EQUAL(kv.e[k], prev));
    prev = kv.e[k];
  }
#elif CLSCAN_SEGMENTS == CLSCAN_SEGMENTS_OFFSETS && CLSCAN_SEG_OFFSETS_MASK
  // The vector's heads are VEC bits of one mask word (VEC divides 32, and e is a multiple of it).
  const uint heads = seg_vector_mask(aux, e);
#pragma unroll
  for (uint k = 0; k < VEC; k++)
    xs[k] = seg_make(MAP(u.e[k], e + k), (heads >> k) & 1u);
  (void)at;
#elif CLSCAN_SEGMENTS == CLSCAN__SEGMENTS_ROWS
  // Rows of a fixed length: the position of element e in its row (from the hint, or one division),
  // counting up from there with selects only (a branch here would keep the compiler from issuing
  // every vector's load first).
  const ulong len = SEG_PARAM();
#if TILE_ROWS_HINT
  ulong p = *at;
#else
  ulong p = e % len;
#endif
#pragma unroll
  for (uint k = 0; k < VEC; k++) {
    xs[k] = seg_make(MAP(u.e[k], p), p == 0);
    p = p + 1 == len ? 0 : p + 1;
  }
#else
#pragma unroll
  for (uint k = 0; k < VEC; k++)
    xs[k] = make_elem_at(u.e[k], aux CLSCAN_XA, e + k, at);
#endif
}

/* Loads the VEC elements from index e of a range of n elements (elements past n read as the
 * identity); full says that the whole tile lies inside the range (*at: see load_full_vector). */
ALWAYS_INLINE void load_vector_at(const __global in_t *in, const __global uchar *aux CLSCAN_XP,
                                  ulong n, ulong e, int full, ulong *at, elem_t xs[VEC]) {
  if (CLSCAN_VECTOR_IO && full) {
    load_full_vector(in, aux CLSCAN_XA, e, at, xs);
  } else {
#pragma unroll
    for (uint k = 0; k < VEC; k++)
      xs[k] = e + k < n ? make_elem_at(in[e + k], aux CLSCAN_XA, e + k, at) : IDENTITY;
  }
}

/* load_vector_at() without a hint (cl/reduce.cl's loads; not for rows, whose hint is a
 * position). */
ALWAYS_INLINE void load_vector(const __global in_t *in, const __global uchar *aux CLSCAN_XP,
                               ulong n, ulong e, int full, elem_t xs[VEC]) {
  ulong at = 0;
  load_vector_at(in, aux CLSCAN_XA, n, e, full, &at, xs);
}

/*
 * A work-item's hint for its vectors of a tile, which load_vector_at() reads and
 * tile_hint_next() advances from vector j to j + 1 (vector_index(): SG * VEC elements further,
 * by tile_hint_step()):
 * for offsets, a lower bound of the next offset index (0 at the start; the search moves it); for
 * rows under TILE_ROWS_HINT, the position of the vector's first element in its row, so that a
 * work-item divides once per tile instead of once per vector (otherwise 0, unused).
 */
ALWAYS_INLINE ulong tile_hint(ulong base, uint lid) {
#if TILE_ROWS_HINT
  const ulong e = base + (ulong)vector_index(lid, 0) * VEC, len = SEG_PARAM();
  return ((e | len) >> 32) == 0 ? (uint)e % (uint)len : e % len;
#else
  (void)base;
  (void)lid;
  return 0;
#endif
}

/* What tile_hint_next() adds for rows: SG * VEC modulo the row length (0 for other kinds). */
ALWAYS_INLINE ulong tile_hint_step(void) {
#if TILE_ROWS_HINT
  const ulong len = SEG_PARAM();
  return len > SG * VEC ? SG * VEC : (uint)(SG * VEC) % (uint)len;
#else
  return 0;
#endif
}

ALWAYS_INLINE void tile_hint_next(ulong *at, ulong step) {
#if TILE_ROWS_HINT
  const ulong len = SEG_PARAM(), r = *at + step;
  *at = r >= len ? r - len : r;
#else
  (void)at;
  (void)step;
#endif
}

#if TILE_HEAD_MASK
/*
 * Returns the first index q in [0, count) with off[q] >= v, or count, found by the whole
 * work-group in rounds. The answer lies in [a, b] (b: count, or an index known to qualify); in
 * each round every work-item probes one index, the probes cutting [a, b) into CLSCAN_WG + 1
 * chunks of s elements, and the first probe that qualifies (a local atomic_min) gives the chunk
 * of the answer, so that b - a shrinks at least CLSCAN_WG + 1 times: ceil(log_(WG+1)(count + 1))
 * rounds of one global load each. The number of rounds follows from count alone, so every
 * work-item runs the same rounds and reaches the same barriers, for any offsets; each probe lies
 * in [0, count). The slots rotate over three, so that one barrier per round suffices: a slot is
 * reset (by work-item 0) one round before it is used, two rounds after it was last read. Every
 * work-item must call it, and all get the same answer; unsorted offsets give some index in
 * [0, count].
 */
ALWAYS_INLINE ulong seg_group_lower_bound(const __global seg_offset_t *off, ulong count, ulong v,
                                          __local uint *slot) {
  const uint lid = get_local_id(0);
  ulong a = 0, b = count;
  uint r = 0;
  if (lid == 0)
    slot[0] = UINT_MAX;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (ulong w = count; w > 0; w /= CLSCAN_WG + 1) {
    // Chunks of s elements with s > (b - a) / (CLSCAN_WG + 1); probe k ends chunk k.
    const ulong s = (b - a) / (CLSCAN_WG + 1) + 1;
    const ulong probes = (b - a) / s;
    const ulong p = a + (lid + 1) * s - 1;
    const uint next = r == 2 ? 0 : r + 1;
    if (lid < probes && off[p] >= v)
      atomic_min(&slot[r], lid);
    if (lid == 0)
      slot[next] = UINT_MAX;
    barrier(CLK_LOCAL_MEM_FENCE);
    const ulong m = min((ulong)slot[r], probes);
    // The answer is in chunk m: [a + m s, a + (m + 1) s - 1] if probe m qualified, else past
    // the last probe, [a + m s, b].
    if (m < probes)
      b = a + (m + 1) * s - 1;
    a += m * s;
    r = next;
  }
  return a;
}

/*
 * Marks the heads of tile t of a range of n elements segmented by offsets in s->head_mask (bit
 * p of the mask is element t * TILE + p): the work-group finds the first offset not below the
 * tile's start (seg_group_lower_bound), then its work-items read the offsets from there in
 * turn, each setting the bit of an offset inside the tile (local atomic_or: equal offsets,
 * empty segments, set one bit) until it reads one at or past the tile's end. Elements past n
 * get no bit (they load as the identity, whose flag is 0). Offsets outside the tile set nothing,
 * so unsorted offsets give wrong heads but touch nothing outside the mask; every offset read is
 * in [0, count). Every work-item must call it; the mask is complete when it returns.
 */
ALWAYS_INLINE void seg_mark_tile(const __global uchar *aux, ulong n, ulong t,
                                 __local tile_scratch *s TILE_FIRST_P) {
  const __global seg_offset_t *off = (const __global seg_offset_t *)aux;
  const uint lid = get_local_id(0);
  const ulong count = SEG_PARAM(), base = t * TILE, end = min(base + TILE, n);
  barrier(CLK_LOCAL_MEM_FENCE); /* the previous tile's heads are read */
  for (uint w = lid; w < TILE_MASK_WORDS; w += CLSCAN_WG)
    s->head_mask[w] = 0;
#if TILE_SEG_FIRSTS
  first = min(first, count);
  barrier(CLK_LOCAL_MEM_FENCE); /* the mask is zero */
#else
  const ulong first = seg_group_lower_bound(off, count, base, s->search_slot);
#endif
  for (ulong q = first + lid; q < count; q += CLSCAN_WG) {
    const ulong o = off[q];
    if (o >= end)
      break;
    if (o >= base) {
      const uint p = (uint)(o - base);
      atomic_or(&s->head_mask[p / 32], 1u << (p % 32));
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE);
}

/* The head bits of the vector at index v (in vectors, within the tile) from the mask of a tile
 * starting at element base; element 0 is always a head. */
ALWAYS_INLINE uint seg_vector_heads(const __local tile_scratch *s, ulong base, uint v) {
  const uint p = v * VEC;
  const uint bits = (s->head_mask[p / 32] >> (p % 32)) & (uint)((1ul << VEC) - 1);
  return bits | (uint)(base + p == 0);
}

/* The values of the VEC elements from index e (past n: the identity's); full: as above. */
ALWAYS_INLINE void load_vector_values(const __global in_t *in, const __global uchar *aux CLSCAN_XP,
                                      ulong n, ulong e, int full, item_t v[VEC]) {
  (void)aux;
  if (CLSCAN_VECTOR_IO && full) {
    in_elems u;
    u.v = ((const __global in_vec_t *)in)[e / VEC];
#pragma unroll
    for (uint k = 0; k < VEC; k++)
      v[k] = MAP(u.e[k], e + k);
  } else {
#pragma unroll
    for (uint k = 0; k < VEC; k++)
      v[k] = e + k < n ? MAP(in[e + k], e + k) : VAL_IDENTITY;
  }
}
#endif

/* Loads the VEC elements of the vector at index v (in vectors) of tile t as scan states; *at is
 * the work-item's search hint (make_elem_at), and for offsets s->head_mask holds the tile's
 * heads. */
ALWAYS_INLINE void tile_vector(const __global in_t *in, const __global uchar *aux CLSCAN_XP,
                               ulong n, ulong t, uint v, int full, ulong *at,
                               const __local tile_scratch *s, elem_t xs[VEC]) {
  const ulong e = t * TILE + (ulong)v * VEC;
#if TILE_HEAD_MASK
  item_t values[VEC];
  load_vector_values(in, aux CLSCAN_XA, n, e, full, values);
  const uint heads = seg_vector_heads(s, t * TILE, v);
#pragma unroll
  for (uint k = 0; k < VEC; k++)
    xs[k] = seg_make(values[k], (heads >> k) & 1u);
  (void)at;
#else
  (void)s;
  load_vector_at(in, aux CLSCAN_XA, n, e, full, at, xs);
#endif
}

/* Loads a work-item's vectors of tile t from in[0, n) (aux: see common.cl); elements past n read
 * as the identity. Every load is issued before any is used; for offsets the values are loaded
 * first, then the work-group marks the tile's heads (seg_mark_tile) while they are in flight,
 * and each work-item takes its bits from the mask. Every work-item must call it (for offsets it
 * contains barriers; s is the work-group's scratch, otherwise unused). */
ALWAYS_INLINE void tile_load(const __global in_t *in, const __global uchar *aux CLSCAN_XP, ulong n,
                             ulong t, tile_items *x, __local tile_scratch *s TILE_FIRST_P) {
  const uint lid = get_local_id(0);
  const ulong base = t * TILE;
  const int full = base + TILE <= n;
#if TILE_HEAD_MASK
#pragma unroll
  for (uint j = 0; j < CLSCAN_VPT; j++)
    load_vector_values(in, aux CLSCAN_XA, n, base + (ulong)vector_index(lid, j) * VEC, full,
                       x->v[j]);
  seg_mark_tile(aux, n, t, s TILE_FIRST_A(first));
#pragma unroll
  for (uint j = 0; j < CLSCAN_VPT; j++)
    x->heads[j] = seg_vector_heads(s, base, vector_index(lid, j));
#else
  ulong at = tile_hint(base, lid);
  const ulong step = tile_hint_step();
  (void)s;
#pragma unroll
  for (uint j = 0; j < CLSCAN_VPT; j++) {
    elem_t xs[VEC];
    load_vector_at(in, aux CLSCAN_XA, n, base + (ulong)vector_index(lid, j) * VEC, full, &at, xs);
    tile_hint_next(&at, step);
#if CLSCAN_SEGMENTS
    x->heads[j] = 0;
#pragma unroll
    for (uint k = 0; k < VEC; k++) {
      x->v[j][k] = xs[k].v;
      x->heads[j] |= xs[k].f << k;
    }
#else
#pragma unroll
    for (uint k = 0; k < VEC; k++)
      x->v[j][k] = xs[k];
#endif
  }
#endif
}

/*
 * Scans a loaded tile locally. pre[j] receives the exclusive prefix of vector j within its lane
 * group's segment, *group_prefix the total of the earlier lane groups; returns the tile's total.
 * Every work-item of the group must call it (it contains barriers).
 */
ALWAYS_INLINE elem_t tile_scan_local(const tile_items *x, elem_t pre[CLSCAN_VPT],
                                     elem_t *group_prefix, __local tile_scratch *s CLSCAN_XP) {
  const uint lid = get_local_id(0);
  const uint lane = lid % SG;
  elem_t vt[CLSCAN_VPT];
#pragma unroll
  for (uint j = 0; j < CLSCAN_VPT; j++) {
    vt[j] = item_state(x, j, 0);
#pragma unroll
    for (uint k = 1; k < VEC; k++)
      vt[j] = combine(vt[j], item_state(x, j, k) CLSCAN_XA);
  }
  // One lane-group scan per vector index, carried from j to j + 1.
  elem_t carry = IDENTITY;
#pragma unroll
  for (uint j = 0; j < CLSCAN_VPT; j++) {
    elem_t excl, total;
    group_scan(vt[j], lane, s, &excl, &total CLSCAN_XA);
    pre[j] = combine(carry, excl CLSCAN_XA);
    carry = combine(carry, total CLSCAN_XA);
  }
  return tile_totals(carry, group_prefix, s CLSCAN_XA);
}

/*
 * Returns the total of tile t of in[0, n), combined in the same order as tile_load and
 * tile_scan_local combine it (so the bits agree, for floating point too), while holding one
 * vector at a time: the single pass's fallback uses it beside a loaded tile, where a second
 * tile in registers would cost every work-group occupancy. Every work-item must call it.
 */
ALWAYS_INLINE elem_t tile_reduce(const __global in_t *in, const __global uchar *aux CLSCAN_XP,
                                 ulong n, ulong t, __local tile_scratch *s TILE_FIRST_P) {
  const uint lid = get_local_id(0);
  const ulong base = t * TILE;
  const int full = base + TILE <= n;
  elem_t carry = IDENTITY;
#if TILE_HEAD_MASK
  seg_mark_tile(aux, n, t, s TILE_FIRST_A(first));
#endif
  ulong at = tile_hint(base, lid);
  const ulong step = tile_hint_step();
#pragma unroll 1
  for (uint j = 0; j < CLSCAN_VPT; j++) {
    elem_t xs[VEC], excl, total;
    tile_vector(in, aux CLSCAN_XA, n, t, vector_index(lid, j), full, &at, s, xs);
    tile_hint_next(&at, step);
    elem_t vt = xs[0];
#pragma unroll
    for (uint k = 1; k < VEC; k++)
      vt = combine(vt, xs[k] CLSCAN_XA);
    group_scan(vt, lid % SG, s, &excl, &total CLSCAN_XA);
    carry = combine(carry, total CLSCAN_XA);
  }
  elem_t group_prefix;
  return tile_totals(carry, &group_prefix, s CLSCAN_XA);
}

/* Writes a work-item's results of tile t: the value of lead op (prefix within the tile) for each
 * element, through out_value() (seed: the initial value segmented scans apply there). */
ALWAYS_INLINE void tile_store(__global val_t *out, ulong n, ulong t, const tile_items *x,
                              elem_t pre[CLSCAN_VPT], elem_t lead, int exclusive,
                              val_t seed CLSCAN_XP) {
  const uint lid = get_local_id(0);
  const ulong base = t * TILE;
  const int vector_path = CLSCAN_VECTOR_IO && base + TILE <= n;
#pragma unroll
  for (uint j = 0; j < CLSCAN_VPT; j++) {
    elem_t p = combine(lead, pre[j] CLSCAN_XA);
    out_elems u;
#pragma unroll
    for (uint k = 0; k < VEC; k++) {
      const elem_t xk = item_state(x, j, k);
      const elem_t next = combine(p, xk CLSCAN_XA);
      u.e[k] = out_value(p, xk, next, exclusive, seed CLSCAN_XA);
      p = next;
    }
    const uint v = vector_index(lid, j);
    if (vector_path) {
#if VEC > 1 && defined(CLSCAN_OCLGRIND_VSTORE)
      CLSCAN_CAT(vstore, VEC)(u.v, base / VEC + v, out);
#else
      ((__global val_vec_t *)out)[base / VEC + v] = u.v;
#endif
    } else {
      const ulong e = base + (ulong)v * VEC;
#pragma unroll
      for (uint k = 0; k < VEC; k++) {
        if (e + k < n)
          out[e + k] = u.e[k];
      }
    }
  }
}

#endif /* TILE_PACKED */

#if CLSCAN_SEGMENTS == CLSCAN_SEGMENTS_OFFSETS && CLSCAN_SEG_OFFSETS_MASK
/*
 * The pre-pass of segments by offsets: sets the head-mask bit of each offset, one work-item per
 * offset (q, from group and local ids: the launch's global offset is the number of offsets,
 * SEG_PARAM()). mask (from word mask_off) holds (n + 31) / 32 words, zeroed before; bit p of word
 * w is element 32 w + p of the range. Offsets at or past n set nothing (offsets[n_segments] == n
 * is one of them); equal offsets (empty segments) set one bit. Unsorted offsets set their bits
 * all the same, and no write leaves the mask's words.
 */
__kernel void seg_offsets_mark(const __global seg_offset_t *off, ulong off_off, __global uint *mask,
                               ulong mask_off, ulong n) {
  const ulong q = (ulong)get_group_id(0) * get_local_size(0) + get_local_id(0);
  if (q >= SEG_PARAM())
    return;
  const ulong o = off[off_off + q];
  if (o < n)
    atomic_or(&mask[mask_off + o / 32], 1u << (uint)(o % 32));
}
#endif

#if CLSCAN_NV_PTX
/* A kernel that only exercises the inline PTX, so the host can test-compile it (built only with
 * it: elsewhere it would double the programs' compile time for nothing). */
__kernel void tile_probe(const __global in_t *in, __global val_t *out, val_t seed CLSCAN_XKP) {
  __local tile_scratch s;
  tile_items x;
  elem_t pre[CLSCAN_VPT], gp;
  tile_load(in, (const __global uchar *)in CLSCAN_XA, 0, 0, &x, &s TILE_FIRST_A(0));
  const elem_t total = tile_scan_local(&x, pre, &gp, &s CLSCAN_XA);
  tile_store(out, 0, 0, &x, pre, combine(gp, total CLSCAN_XA), 0, seed CLSCAN_XA);
}
#endif

#if CLSCAN_NARROW_PRMT == 1
/* A kernel that only exercises the packed path's inline PTX, which the probe's int32 tile does
 * not compile otherwise. */
__kernel void tile_probe_prmt(__global uint *p) {
  p[0] = prmt(p[1], p[2], p[3]);
}
#endif
