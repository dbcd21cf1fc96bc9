/*
 * clscan kernels: the tile scan shared by the reduce-then-scan and single-pass kernels.
 *
 * A tile is CLSCAN_WG work-items x CLSCAN_VPT vectors x VEC elements (a vector is 16 bytes of the
 * wider of the input and output types, or one element of a user type). The tile is scanned as
 * scan states (elem_t, see common.cl), loaded through make_elem() (or, for whole vectors, one
 * vector load of the input and one of the flags or keys) and written through out_value(). A
 * work-item keeps its loaded elements in a tile_items: segmented head flags as bits beside the
 * values. tile_reduce() computes a tile's total with the same combinations in the same order
 * while holding one vector at a time (the single pass's fallback).
 * Work-items are grouped in "lane groups" of SG lanes: a warp of 32 on NVIDIA (CLSCAN_NV_PTX,
 * scanned with inline-PTX shuffles), the whole work-group elsewhere (scanned in local memory).
 * Lane group w owns a contiguous segment of SG * VPT vectors; its lane l holds vectors
 * j * SG + l of that segment (j < VPT), so every load and store is fully coalesced and each
 * work-item issues all its loads before it computes.
 *
 * Scan order inside a segment is vector-major: for each j, a serial scan inside each lane's
 * vector, a lane-group scan of the vector totals, and a carry from j to j + 1. Lane-group totals
 * are combined through local memory. Every combination is "earlier op later".
 *
 * Tuning parameters: CLSCAN_WG, CLSCAN_VPT, CLSCAN_VECTOR_IO (1 when the host guarantees that
 * the input, output and flag or key offsets are multiples of VEC), CLSCAN_NV_PTX. Needs common.cl
 * first.
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
#ifndef CLSCAN_NV_PTX
#define CLSCAN_NV_PTX 0
#endif

#if CLSCAN_NV_PTX
#define SG 32
#else
#define SG CLSCAN_WG
#endif
#define NUM_GROUPS (CLSCAN_WG / SG)
#define SEGMENT (SG * CLSCAN_VPT)
#define TILE ((ulong)CLSCAN_WG * CLSCAN_VPT * VEC)

/* An input vector and an output vector seen as their elements. */
typedef union in_elems {
  in_vec_t v;
  in_t e[VEC];
} in_elems;
typedef union out_elems {
  val_vec_t v;
  val_t e[VEC];
} out_elems;

/* Local memory a tile scan needs: a lane-group scan buffer and the lane-group totals. */
typedef struct tile_scratch {
#if !CLSCAN_NV_PTX
  elem_t lanes[CLSCAN_WG];
#endif
  elem_t group_total[NUM_GROUPS];
} tile_scratch;

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

/* ---------------------------------------------------------------------------------------------
 * Lane-group scans.
 * ------------------------------------------------------------------------------------------- */
#if CLSCAN_NV_PTX

/* Warp shuffles through inline PTX; all 32 lanes execute them. */
ALWAYS_INLINE uint shfl_up_u32(uint x, uint delta) {
  uint r;
  asm volatile("shfl.sync.up.b32 %0, %1, %2, 0, 0xffffffff;" : "=r"(r) : "r"(x), "r"(delta));
  return r;
}
ALWAYS_INLINE uint shfl_idx_u32(uint x, uint lane) {
  uint r;
  asm volatile("shfl.sync.idx.b32 %0, %1, %2, 0x1f, 0xffffffff;" : "=r"(r) : "r"(x), "r"(lane));
  return r;
}
ALWAYS_INLINE elem_t shfl_up(elem_t x, uint delta) {
  elem_bits a = elem_to_bits(x), r;
#pragma unroll
  for (uint i = 0; i < ELEM_WORDS; i++) r.u[i] = shfl_up_u32(a.u[i], delta);
  return r.e;
}
ALWAYS_INLINE elem_t shfl_idx(elem_t x, uint lane) {
  elem_bits a = elem_to_bits(x), r;
#pragma unroll
  for (uint i = 0; i < ELEM_WORDS; i++) r.u[i] = shfl_idx_u32(a.u[i], lane);
  return r.e;
}

/* Scans x across the warp: *excl gets the exclusive prefix, *total the warp's total. */
ALWAYS_INLINE void group_scan(elem_t x, uint lane, __local tile_scratch *s, elem_t *excl,
                              elem_t *total) {
#pragma unroll
  for (uint d = 1; d < 32; d <<= 1) {
    const elem_t y = shfl_up(x, d);
    if (lane >= d) x = combine(y, x);
  }
  const elem_t up = shfl_up(x, 1);
  *excl = lane > 0 ? up : IDENTITY;
  *total = shfl_idx(x, 31);
}

#else

/* Scans x across the work-group in local memory (Hillis-Steele); barriers are uniform. */
ALWAYS_INLINE void group_scan(elem_t x, uint lane, __local tile_scratch *s, elem_t *excl,
                              elem_t *total) {
  s->lanes[lane] = x;
#pragma unroll
  for (uint d = 1; d < CLSCAN_WG; d <<= 1) {
    barrier(CLK_LOCAL_MEM_FENCE);
    const elem_t y = lane >= d ? s->lanes[lane - d] : IDENTITY;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lane >= d) x = combine(y, x);
    s->lanes[lane] = x;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  *excl = lane > 0 ? s->lanes[lane - 1] : IDENTITY;
  *total = s->lanes[CLSCAN_WG - 1];
  barrier(CLK_LOCAL_MEM_FENCE);
}

#endif

/* ---------------------------------------------------------------------------------------------
 * Tile load, local scan and store.
 * ------------------------------------------------------------------------------------------- */

/* Index (in vectors, within the tile) of a work-item's j-th vector. (A blocked layout, each
 * work-item's vectors consecutive, was measured 30-45% slower on the H200: its loads are not
 * coalesced.) */
ALWAYS_INLINE uint vector_index(uint lid, uint j) {
  return (lid / SG) * SEGMENT + j * SG + lid % SG;
}

/* Aux vectors of a full tile (CLSCAN_VECTOR_IO: the host guarantees that aux_off, like in_off
 * and out_off, is a multiple of VEC, so these loads are aligned). */
#if CLSCAN_SEGMENTS == 1 && VEC > 1
typedef CLSCAN_CAT(uchar, VEC) flag_vec_t;
typedef union flag_elems {
  flag_vec_t v;
  uchar e[VEC];
} flag_elems;
#elif CLSCAN_SEGMENTS == 2 && VEC > 1
typedef CLSCAN_CAT(CLSCAN_CAT(CLSCAN_SCALAR_, CLSCAN_KEY_TYPE), VEC) key_vec_t;
typedef union key_elems {
  key_vec_t v;
  key_t e[VEC];
} key_elems;
#endif

/* Loads the VEC elements from index e (a multiple of VEC) of a full tile as scan states, with
 * one vector load for the input and one for the flags or keys. */
ALWAYS_INLINE void load_full_vector(const __global in_t *in, const __global uchar *aux, ulong e,
                                    elem_t xs[VEC]) {
  in_elems u;
  u.v = ((const __global in_vec_t *)in)[e / VEC];
#if CLSCAN_SEGMENTS == 1 && VEC > 1
  flag_elems f;
  f.v = ((const __global flag_vec_t *)aux)[e / VEC];
#pragma unroll
  for (uint k = 0; k < VEC; k++)
    xs[k] = seg_make(MAP(u.e[k], e + k), (e + k == 0) | (f.e[k] != 0));
#elif CLSCAN_SEGMENTS == 2 && VEC > 1
  const __global key_t *keys = (const __global key_t *)aux;
  key_elems kv;
  kv.v = ((const __global key_vec_t *)aux)[e / VEC];
  key_t prev = e > 0 ? keys[e - 1] : kv.e[0];
#pragma unroll
  for (uint k = 0; k < VEC; k++) {
    xs[k] = seg_make(MAP(u.e[k], e + k), (e + k == 0) | (kv.e[k] != prev));
    prev = kv.e[k];
  }
#else
#pragma unroll
  for (uint k = 0; k < VEC; k++) xs[k] = make_elem(u.e[k], aux, e + k);
#endif
}

/* Loads the VEC elements from index e of a range of n elements (elements past n read as the
 * identity); full says that the whole tile lies inside the range. */
ALWAYS_INLINE void load_vector(const __global in_t *in, const __global uchar *aux, ulong n,
                               ulong e, int full, elem_t xs[VEC]) {
  if (CLSCAN_VECTOR_IO && full) {
    load_full_vector(in, aux, e, xs);
  } else {
#pragma unroll
    for (uint k = 0; k < VEC; k++) xs[k] = load_or_identity(in, aux, e + k, n);
  }
}

/* Loads a work-item's vectors of tile t from in[0, n) (aux: see common.cl); elements past n read
 * as the identity. Every load is issued before any is used. */
ALWAYS_INLINE void tile_load(const __global in_t *in, const __global uchar *aux, ulong n, ulong t,
                             tile_items *x) {
  const uint lid = get_local_id(0);
  const ulong base = t * TILE;
  const int full = base + TILE <= n;
#pragma unroll
  for (uint j = 0; j < CLSCAN_VPT; j++) {
    elem_t xs[VEC];
    load_vector(in, aux, n, base + (ulong)vector_index(lid, j) * VEC, full, xs);
#if CLSCAN_SEGMENTS
    x->heads[j] = 0;
#pragma unroll
    for (uint k = 0; k < VEC; k++) {
      x->v[j][k] = xs[k].v;
      x->heads[j] |= xs[k].f << k;
    }
#else
#pragma unroll
    for (uint k = 0; k < VEC; k++) x->v[j][k] = xs[k];
#endif
  }
}

/* Combines the lane groups' segment totals: *group_prefix receives the total of the groups before
 * the caller's; returns the tile's total. Every work-item of the group must call it. */
ALWAYS_INLINE elem_t tile_totals(elem_t segment_total, elem_t *group_prefix,
                                 __local tile_scratch *s) {
#if NUM_GROUPS > 1
  // Lane-group totals meet in local memory; each work-item folds them in order.
  const uint lid = get_local_id(0);
  if (lid % SG == 0) s->group_total[lid / SG] = segment_total;
  barrier(CLK_LOCAL_MEM_FENCE);
  const uint g = lid / SG;
  elem_t before = IDENTITY, all = IDENTITY;
#pragma unroll
  for (uint i = 0; i < NUM_GROUPS; i++) {
    const elem_t v = s->group_total[i];
    if (i < g) before = combine(before, v);
    all = combine(all, v);
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  *group_prefix = before;
  return all;
#else
  *group_prefix = IDENTITY;
  return segment_total;
#endif
}

/*
 * Scans a loaded tile locally. pre[j] receives the exclusive prefix of vector j within its lane
 * group's segment, *group_prefix the total of the earlier lane groups; returns the tile's total.
 * Every work-item of the group must call it (it contains barriers).
 */
ALWAYS_INLINE elem_t tile_scan_local(const tile_items *x, elem_t pre[CLSCAN_VPT],
                                     elem_t *group_prefix, __local tile_scratch *s) {
  const uint lid = get_local_id(0);
  const uint lane = lid % SG;
  elem_t vt[CLSCAN_VPT];
#pragma unroll
  for (uint j = 0; j < CLSCAN_VPT; j++) {
    vt[j] = item_state(x, j, 0);
#pragma unroll
    for (uint k = 1; k < VEC; k++) vt[j] = combine(vt[j], item_state(x, j, k));
  }
  // One lane-group scan per vector index, carried from j to j + 1.
  elem_t carry = IDENTITY;
#pragma unroll
  for (uint j = 0; j < CLSCAN_VPT; j++) {
    elem_t excl, total;
    group_scan(vt[j], lane, s, &excl, &total);
    pre[j] = combine(carry, excl);
    carry = combine(carry, total);
  }
  return tile_totals(carry, group_prefix, s);
}

/*
 * Returns the total of tile t of in[0, n), combined in the same order as tile_load and
 * tile_scan_local combine it (so the bits agree, for floating point too), while holding one
 * vector at a time: the single pass's fallback uses it beside a loaded tile, where a second
 * tile in registers would cost every work-group occupancy. Every work-item must call it.
 */
ALWAYS_INLINE elem_t tile_reduce(const __global in_t *in, const __global uchar *aux, ulong n,
                                 ulong t, __local tile_scratch *s) {
  const uint lid = get_local_id(0);
  const ulong base = t * TILE;
  const int full = base + TILE <= n;
  elem_t carry = IDENTITY;
#pragma unroll 1
  for (uint j = 0; j < CLSCAN_VPT; j++) {
    elem_t xs[VEC], excl, total;
    load_vector(in, aux, n, base + (ulong)vector_index(lid, j) * VEC, full, xs);
    elem_t vt = xs[0];
#pragma unroll
    for (uint k = 1; k < VEC; k++) vt = combine(vt, xs[k]);
    group_scan(vt, lid % SG, s, &excl, &total);
    carry = combine(carry, total);
  }
  elem_t group_prefix;
  return tile_totals(carry, &group_prefix, s);
}

/* Writes a work-item's results of tile t: the value of lead op (prefix within the tile) for each
 * element, through out_value() (seed: the initial value segmented scans apply there). */
ALWAYS_INLINE void tile_store(__global val_t *out, ulong n, ulong t, const tile_items *x,
                              elem_t pre[CLSCAN_VPT], elem_t lead, int exclusive, val_t seed) {
  const uint lid = get_local_id(0);
  const ulong base = t * TILE;
  const int vector_path = CLSCAN_VECTOR_IO && base + TILE <= n;
#pragma unroll
  for (uint j = 0; j < CLSCAN_VPT; j++) {
    elem_t p = combine(lead, pre[j]);
    out_elems u;
#pragma unroll
    for (uint k = 0; k < VEC; k++) {
      const elem_t xk = item_state(x, j, k);
      const elem_t next = combine(p, xk);
      u.e[k] = out_value(p, xk, next, exclusive, seed);
      p = next;
    }
    const uint v = vector_index(lid, j);
    if (vector_path) {
      ((__global val_vec_t *)out)[base / VEC + v] = u.v;
    } else {
      const ulong e = base + (ulong)v * VEC;
#pragma unroll
      for (uint k = 0; k < VEC; k++) {
        if (e + k < n) out[e + k] = u.e[k];
      }
    }
  }
}

/* A kernel that only exercises the inline PTX, so the host can test-compile it. */
__kernel void tile_probe(const __global in_t *in, __global val_t *out, val_t seed) {
  __local tile_scratch s;
  tile_items x;
  elem_t pre[CLSCAN_VPT], gp;
  tile_load(in, (const __global uchar *)in, 0, 0, &x);
  const elem_t total = tile_scan_local(&x, pre, &gp, &s);
  tile_store(out, 0, 0, &x, pre, combine(gp, total), 0, seed);
}
