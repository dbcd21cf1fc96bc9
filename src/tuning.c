/*
 * clscan: tuning, as data and one policy function.
 *
 * The table's rows name their fields. A row applies to a device (a substring of its name and of
 * its vendor or platform name), to a vendor, or to every device, and is chosen in that order: the
 * first matching device row, else the first matching vendor row, else the first default row
 * (CLBlast's fallback order). Within a level the narrower rows come first. A row may be limited
 * to one algorithm, to an element size (the wider of input and output, 8 for user types), to an
 * input size, to segmented, packed or floating-point plans, to operators and to scans of built-in
 * types; a zero field matches anything. Each row carries a one-line note of what was measured and
 * where; the history of the measurements is in docs/tuning.md.
 *
 * clscan__tuning_for() then applies, in order: the device clamps, the local-memory fit, the
 * caller's clscan_tuning, the environment (env.c) for fields the caller left zero, the single
 * pass's fit (the stash and the register cap), and the validation of the result.
 */
#include <string.h>

#include "internal.h"

typedef struct tuning_row {
  const char *vendor;         /* substring of the vendor or platform name; NULL matches any */
  const char *device;         /* substring of the device name, or several separated by '|';
                                 NULL matches any */
  clscan_algorithm algorithm; /* CLSCAN_ALGO_AUTO matches any */
  unsigned elem_bytes;        /* wider of the input and output element sizes; 0 matches any */
  unsigned in_bytes;          /* input element size; 0 matches any */
  int segmented;              /* 1: only segmented and by-key plans; 0: any plan */
  clscan_segments segments;   /* only plans with these segments (with segmented); 0: any kind */
  int packed;                 /* 1: only plain narrow plans (cl/tile.cl's packed path) */
  int floating;               /* 1: only float or double values (a strictly folding look-back) */
  unsigned ops;               /* bit 1 << op for each built-in operator it applies to; 0: any */
  int scan; /* 1: only scans of built-in types (not user types, nor selections, which share rows) */
  clscan__tuning t;
} tuning_row;

/* The GH100 chip's boards: the H100 and the H200 have the same multiprocessors (132 of them on
 * the SXM boards, the same registers and local memory) and differ in memory (HBM3 at 3.35 TB/s,
 * HBM3e at 4.8 TB/s). The rows below were chosen on the H200; on an H100 they were faster than
 * the NVIDIA rows for every kind measured but two within 1% (docs/tuning.md, "The H100"). */
#define GH100 "H100|H200"

/* Figures are exclusive add at n = 2^28 unless said otherwise, median of 20, verified, as copy
 * time / scan time against clEnqueueCopyBuffer of the same bytes (tools/bench/tile_sweep.c). */
static const tuning_row table[] = {
    /* H200, NVIDIA OpenCL 3.0: uint8 -> uint32 at 0.860 of copying its 5 bytes per element. */
    {.vendor = "NVIDIA",
     .device = GH100,
     .elem_bytes = 4,
     .in_bytes = 1,
     .t = {.seed_wg = 256, .tile_wg = 128, .tile_vpt = 10, .rts_groups_per_cu = 4}},
    /* H200, single pass: int32 rows of a fixed length, 128 x 12 stashed. Chosen with batched rows
     * of 1024 when every tile looked back: 1.10x the plain scan's time (0.5773 against 0.5232 ms
     * in one call, tiles by group id; 128 x 8 1.12x, 128 x 16 1.19x; in registers, dividing per
     * vector, 1.16x by ticket). Rows of 1024 now start every tile, which then skips its
     * look-back: 0.99x (0.5184 against 0.5227 ms). */
    {.vendor = "NVIDIA",
     .device = GH100,
     .algorithm = CLSCAN_ALGO_SINGLE_PASS,
     .elem_bytes = 4,
     .segmented = 1,
     .segments = CLSCAN__SEGMENTS_ROWS,
     .t = {.seed_wg = 256, .tile_wg = 128, .tile_vpt = 12, .rts_groups_per_cu = 4, .stash = 1}},
    /* H200, single pass: int32 segmented by offsets (the tile firsts) at 1.10x the plain scan's
     * time, 128 x 10 stashed (0.5747 / 0.5730 against 0.5198 / 0.5217 ms in one call; 128 x 8
     * 0.5867 / 0.5794, 128 x 12 0.5986 / 0.5942, 128 x 6 1.16x; by ticket, 128 x 12 1.22x
     * stashed, 1.39x in registers, the head mask's pre-pass at 128 x 12 1.20x). */
    {.vendor = "NVIDIA",
     .device = GH100,
     .algorithm = CLSCAN_ALGO_SINGLE_PASS,
     .elem_bytes = 4,
     .segmented = 1,
     .segments = CLSCAN_SEGMENTS_OFFSETS,
     .t = {.seed_wg = 256, .tile_wg = 128, .tile_vpt = 10, .rts_groups_per_cu = 4, .stash = 1}},
    /* H200: int32 with head flags at 1.11x the plain scan's time; by int32 key 0.744 ms. */
    {.vendor = "NVIDIA",
     .device = GH100,
     .elem_bytes = 4,
     .segmented = 1,
     .t = {.seed_wg = 256, .tile_wg = 128, .tile_vpt = 12, .rts_groups_per_cu = 4}},
    /* H200: segmented 8-byte values, not measured (the segmented 4-byte geometry). */
    {.vendor = "NVIDIA",
     .device = GH100,
     .elem_bytes = 8,
     .segmented = 1,
     .t = {.seed_wg = 256, .tile_wg = 128, .tile_vpt = 8, .rts_groups_per_cu = 4}},
    /* H200: uint16 -> uint32 (and half -> float) held in registers; stashed, uint16 -> uint32 ran
     * at 0.841 of copy against 0.863 (another call) without. */
    {.vendor = "NVIDIA",
     .device = GH100,
     .elem_bytes = 4,
     .in_bytes = 2,
     .t = {.seed_wg = 256, .tile_wg = 256, .tile_vpt = 8, .rts_groups_per_cu = 4}},
    /* H200: packed int8 and uint8 addition capped at 128 registers (4 work-groups per compute
     * unit instead of 3): int8 0.896 of copy against 0.838 uncapped (tile_sweep, one call); capped,
     * min and max ran slower (0.788 against 0.822), so the cap is for addition only. */
    {.vendor = "NVIDIA",
     .device = GH100,
     .elem_bytes = 1,
     .packed = 1,
     .ops = 1u << CLSCAN_ADD,
     .t = {.seed_wg = 256,
           .tile_wg = 128,
           .tile_vpt = 16,
           .rts_groups_per_cu = 4,
           .nv_registers = 128}},
    /* H200: packed int8 with the other operators: min 0.826, max 0.826, xor 0.856 of copy (for
     * addition before the cap, 256 x 4 0.762, 256 x 8 0.734, 256 x 12 0.591). */
    {.vendor = "NVIDIA",
     .device = GH100,
     .elem_bytes = 1,
     .packed = 1,
     .t = {.seed_wg = 256, .tile_wg = 128, .tile_vpt = 16, .rts_groups_per_cu = 4}},
    /* H200: packed int16 single-pass scans at 0.945 of copy, 128 x 16 (128 x 12 0.926 in the
     * same call; 256 x 6 0.893, 256 x 8 0.883 earlier). */
    {.vendor = "NVIDIA",
     .device = GH100,
     .algorithm = CLSCAN_ALGO_SINGLE_PASS,
     .scan = 1,
     .elem_bytes = 2,
     .packed = 1,
     .t = {.seed_wg = 256, .tile_wg = 128, .tile_vpt = 16, .rts_groups_per_cu = 4}},
    /* H200: packed int16 with the other algorithms, 128 x 12. */
    {.vendor = "NVIDIA",
     .device = GH100,
     .elem_bytes = 2,
     .packed = 1,
     .t = {.seed_wg = 256, .tile_wg = 128, .tile_vpt = 12, .rts_groups_per_cu = 4}},
    /* H200: other int8 plans (maps, segments, user operators) at 32 elements per work-item. */
    {.vendor = "NVIDIA",
     .device = GH100,
     .elem_bytes = 1,
     .t = {.seed_wg = 256, .tile_wg = 256, .tile_vpt = 2, .rts_groups_per_cu = 4}},
    /* H200: other int16 plans at 32 elements per work-item. */
    {.vendor = "NVIDIA",
     .device = GH100,
     .elem_bytes = 2,
     .t = {.seed_wg = 256, .tile_wg = 256, .tile_vpt = 4, .rts_groups_per_cu = 4}},
    /*
     * H200, single-pass scans of 4- and 8-byte values: the tile is stashed in local memory
     * through the look-back, in work-groups of 128 (4 or 5 fit per compute unit where 2 or 3 of
     * 256 did). 8 groups per compute unit for the reduction these plans also run, so that it
     * keeps the work-items of the 256-wide rows below (not measured with these rows).
     */
    /* float (the strict fold) at 0.958 of copy, 128 x 12 stashed (128 x 16 0.938, 256 x 8 0.939
     * stashed in the same call; 256 x 8 in registers 0.896: 75 registers, 3 work-groups per
     * compute unit, stashed 64 and 4). */
    {.vendor = "NVIDIA",
     .device = GH100,
     .algorithm = CLSCAN_ALGO_SINGLE_PASS,
     .scan = 1,
     .elem_bytes = 4,
     .floating = 1,
     .t = {.seed_wg = 256, .tile_wg = 128, .tile_vpt = 12, .rts_groups_per_cu = 8, .stash = 1}},
    /* int32 at 0.967 of copy, 128 x 16 stashed (256 x 8 stashed 0.952 in the same call; in
     * registers 0.945); 0.973 with the tiles by group id (cl/single_pass.cl). Its reductions
     * (integers: the strided kernel) in tiles of 256 x 8, 2 groups per compute unit: 0.2439 /
     * 0.2429 ms against 0.2456 / 0.2452 at 128 x 16 with 8 (two rounds, 2026-12-06). */
    {.vendor = "NVIDIA",
     .device = GH100,
     .algorithm = CLSCAN_ALGO_SINGLE_PASS,
     .scan = 1,
     .elem_bytes = 4,
     .t = {.seed_wg = 256,
           .tile_wg = 128,
           .tile_vpt = 16,
           .rts_groups_per_cu = 8,
           .stash = 1,
           .reduce_wg = 256,
           .reduce_vpt = 8,
           .reduce_groups_per_cu = 2}},
    /* double (the strict fold) at 0.932 of copy, 128 x 16 stashed (256 x 8 stashed 0.868, 128 x
     * 12 stashed 0.857, 64 x 16 0.821; 256 x 12 in registers 0.853). */
    {.vendor = "NVIDIA",
     .device = GH100,
     .algorithm = CLSCAN_ALGO_SINGLE_PASS,
     .scan = 1,
     .elem_bytes = 8,
     .floating = 1,
     .t = {.seed_wg = 256, .tile_wg = 128, .tile_vpt = 16, .rts_groups_per_cu = 8, .stash = 1}},
    /* int64 at 0.932 of copy, 128 x 16 stashed (128 x 12 stashed 0.919 in the same call, 64 x 16
     * 0.906; 256 x 8 stashed 0.874, in registers 0.875). */
    {.vendor = "NVIDIA",
     .device = GH100,
     .algorithm = CLSCAN_ALGO_SINGLE_PASS,
     .scan = 1,
     .elem_bytes = 8,
     .t = {.seed_wg = 256, .tile_wg = 128, .tile_vpt = 16, .rts_groups_per_cu = 8, .stash = 1}},
    /* H200: 4-byte selections and other algorithms (int32 single pass at 0.945 of copy held in
     * registers, 2026-12-02). */
    {.vendor = "NVIDIA",
     .device = GH100,
     .elem_bytes = 4,
     .t = {.seed_wg = 256, .tile_wg = 256, .tile_vpt = 8, .rts_groups_per_cu = 4}},
    /* H200: double with the other algorithms (the single pass held 0.853 of copy at 256 x 12). */
    {.vendor = "NVIDIA",
     .device = GH100,
     .elem_bytes = 8,
     .floating = 1,
     .t = {.seed_wg = 256, .tile_wg = 256, .tile_vpt = 12, .rts_groups_per_cu = 4}},
    /* H200: 8-byte selections and other algorithms (the int64 single pass held 0.875 of copy). */
    {.vendor = "NVIDIA",
     .device = GH100,
     .elem_bytes = 8,
     .t = {.seed_wg = 256, .tile_wg = 256, .tile_vpt = 8, .rts_groups_per_cu = 4}},
    /* Other NVIDIA GPUs: the H200's 256-wide rows with half the vectors (registers); not
     * measured. */
    {.vendor = "NVIDIA",
     .t = {.seed_wg = 256, .tile_wg = 256, .tile_vpt = 4, .rts_groups_per_cu = 4}},
    /* POCL 5, 2-core Xeon: reduce-then-scan tiles of 1 x 4 ran 3.3-4.8x faster than 256 x 2
     * (int32 and int64 at 2^24 and 2^26, `clscan bench`); the CPU-shaped single pass. */
    {.vendor = "Portable Computing Language",
     .t = {.seed_wg = 256,
           .tile_wg = 1,
           .tile_vpt = 4,
           .rts_groups_per_cu = 2,
           .cpu_tile = 32768,
           .single_pass_cpu = 1}},
    /* Any other device: the portable local-memory tile scan; not measured. */
    {.t = {.seed_wg = 256,
           .tile_wg = 256,
           .tile_vpt = 2,
           .rts_groups_per_cu = 4,
           .cpu_tile = 32768}},
};

/* Returns 1 if the len bytes at `part` occur in `hay`. */
static int contains(const char *hay, const char *part, size_t len) {
  for (; *hay; hay++) {
    if (strncmp(hay, part, len) == 0)
      return 1;
  }
  return len == 0;
}

/* Returns 1 if `needle` is NULL or one of its alternatives (separated by '|') occurs in `hay`. */
static int matches(const char *hay, const char *needle) {
  if (!needle)
    return 1;
  for (;;) {
    const char *bar = strchr(needle, '|');
    const size_t len = bar ? (size_t)(bar - needle) : strlen(needle);
    if (contains(hay, needle, len))
      return 1;
    if (!bar)
      return 0;
    needle = bar + 1;
  }
}

/* A row's level: 0 for a device row, 1 for a vendor row, 2 for a default row. */
static int row_level(const tuning_row *r) {
  return r->device ? 0 : r->vendor ? 1 : 2;
}

/* Returns 1 if a row applies to the device and plan. */
static int row_applies(const tuning_row *r, const clscan__device_info *info,
                       const clscan__tuning_key *key) {
  int vendor_ok = matches(info->vendor, r->vendor) || matches(info->platform, r->vendor);
  int shape_ok = (r->algorithm == CLSCAN_ALGO_AUTO || r->algorithm == key->algorithm) &&
                 (r->elem_bytes == 0 || r->elem_bytes == key->elem_size) &&
                 (r->in_bytes == 0 || r->in_bytes == key->in_size) &&
                 (!r->segmented || key->segments) &&
                 (!r->segments || r->segments == key->segments) && (!r->packed || key->packed) &&
                 (!r->floating || key->floating) &&
                 (!r->ops || (key->op < CLSCAN_OP_COUNT && (r->ops >> key->op & 1u))) &&
                 (!r->scan || (key->scan && !key->user));
  return vendor_ok && matches(info->name, r->device) && shape_ok;
}

/* The table's values: device row, then vendor row, then default row. */
static void lookup(const clscan__device_info *info, const clscan__tuning_key *key,
                   clscan__tuning *t) {
  const size_t rows = sizeof table / sizeof table[0];
  for (int level = 0; level < 3; level++) {
    for (size_t i = 0; i < rows; i++) {
      if (row_level(&table[i]) == level && row_applies(&table[i], info, key)) {
        *t = table[i].t;
        return;
      }
    }
  }
  *t = table[rows - 1].t; /* the default row always applies; this is never reached */
}

/* Device clamps and the local-memory fit: CPU devices run the CPU-shaped single pass, work-group
 * sizes never exceed the device's, and they halve until the kernels' local memory fits (large
 * user states). */
static void fit_device(const clscan__device_info *info, const clscan__tuning_key *key,
                       clscan__tuning *t) {
  if (info->is_cpu)
    t->single_pass_cpu = 1;
  if (!t->cpu_tile)
    t->cpu_tile = 32768;
  while (t->seed_wg > info->max_wg)
    t->seed_wg /= 2;
  while (t->tile_wg > info->max_wg)
    t->tile_wg /= 2;
  const cl_ulong budget = info->local_mem / 2;
  const unsigned min_wg = info->is_nvidia ? 32 : 1;
  // Blelloch keeps about 2.07 states per work-item, Hillis-Steele 2.
  while (t->seed_wg > min_wg && (cl_ulong)t->seed_wg * 17 / 8 * key->state_size > budget)
    t->seed_wg /= 2;
  while (t->tile_wg > min_wg && (cl_ulong)t->tile_wg * 2 * key->state_size > budget)
    t->tile_wg /= 2;
}

/* Takes a caller's value if set, else the environment's if set, else keeps the table's. */
static void override(unsigned caller, clscan__env_var var, unsigned *value) {
  *value = caller ? caller : clscan__env_unsigned(var, *value, NULL);
}

/* Applies the caller's overrides and, for fields it left zero, the environment's. */
static clscan_status apply_overrides(const clscan_tuning *o, clscan__tuning *t) {
  static const clscan_tuning none = {0};
  if (!o)
    o = &none;
  override(o->seed_wg, CLSCAN__ENV_SEED_WG, &t->seed_wg);
  override(o->tile_wg, CLSCAN__ENV_TILE_WG, &t->tile_wg);
  override(o->tile_vpt, CLSCAN__ENV_TILE_VPT, &t->tile_vpt);
  override(o->rts_groups_per_cu, CLSCAN__ENV_RTS_GROUPS, &t->rts_groups_per_cu);
  override(o->cpu_tile, CLSCAN__ENV_CPU_TILE, &t->cpu_tile);
  switch (o->single_pass_shape) {
    case CLSCAN_SHAPE_DEFAULT:
      t->single_pass_cpu = (int)clscan__env_unsigned(CLSCAN__ENV_SINGLE_PASS_CPU,
                                                     (unsigned)t->single_pass_cpu, NULL);
      return CLSCAN_SUCCESS;
    case CLSCAN_SHAPE_GPU:
      t->single_pass_cpu = 0;
      return CLSCAN_SUCCESS;
    case CLSCAN_SHAPE_CPU:
      t->single_pass_cpu = 1;
      return CLSCAN_SUCCESS;
  }
  return clscan__fail(CLSCAN_INVALID_VALUE, "tuning.single_pass_shape %d is not a clscan_shape",
                      (int)o->single_pass_shape);
}

/* Checks the resolved values (table rows and overrides alike) against the device. */
static clscan_status check(const clscan__device_info *info, const clscan__tuning *t) {
  const size_t max_wg = info->max_wg;
  if (!t->seed_wg || (t->seed_wg & (t->seed_wg - 1)) || t->seed_wg > max_wg)
    return clscan__fail(CLSCAN_INVALID_VALUE,
                        "seed work-group size (tuning.seed_wg) %u: need a power of two <= %zu",
                        t->seed_wg, max_wg);
  if (!t->tile_wg || (t->tile_wg & (t->tile_wg - 1)) || t->tile_wg > max_wg)
    return clscan__fail(CLSCAN_INVALID_VALUE,
                        "tile work-group size (tuning.tile_wg) %u: need a power of two <= %zu",
                        t->tile_wg, max_wg);
  if (info->is_nvidia && t->tile_wg < 32)
    return clscan__fail(CLSCAN_INVALID_VALUE,
                        "tile work-group size (tuning.tile_wg) %u: NVIDIA needs >= 32", t->tile_wg);
  if (t->tile_vpt < 1 || t->tile_vpt > 16)
    return clscan__fail(CLSCAN_INVALID_VALUE,
                        "vectors per work-item (tuning.tile_vpt) %u: need 1..16", t->tile_vpt);
  if (t->cpu_tile < 1 || t->cpu_tile > (1u << 24))
    return clscan__fail(CLSCAN_INVALID_VALUE,
                        "CPU tile (tuning.cpu_tile) %u: need 1..2^24 elements", t->cpu_tile);
  if (!t->rts_groups_per_cu)
    return clscan__fail(CLSCAN_INVALID_VALUE,
                        "reduce-then-scan needs >= 1 group per unit (tuning.rts_groups_per_cu)");
  return CLSCAN_SUCCESS;
}

/* The stash holds a tile of built-in values, 16 bytes per vector (and a word of head bits per
 * vector when segmented), beside the single pass's other local memory: per work-item a state of
 * the portable tile scan and a byte, the look-back's cache and stage (288 states at most, or the
 * portable walker's), and 4 KiB for the rest and to spare. It is dropped where that does not fit.
 * A register cap holds for the tile it was measured with: another tile drops it. */
static void fit_single_pass(const clscan__device_info *info, const clscan__tuning_key *key,
                            const clscan__tuning *row, clscan__tuning *t) {
  const cl_ulong vectors = (cl_ulong)t->tile_wg * t->tile_vpt;
  const cl_ulong rest = (cl_ulong)t->tile_wg * (key->state_size + 1) + 288 * key->state_size + 4096;
  const cl_ulong bytes = vectors * (16 + (key->segments ? 4 : 0)) + rest;
  if (key->user || t->single_pass_cpu || bytes > info->local_mem)
    t->stash = 0;
  if (!info->is_nvidia || t->tile_wg != row->tile_wg || t->tile_vpt != row->tile_vpt)
    t->nv_registers = 0;
}

/* The reduction's shape: the row's own where it gives one and the tile and group count are the
 * row's (it was measured beside them), else the tile's and rts_groups_per_cu. The CPU shape has
 * no tile. */
static void fit_reduction(const clscan__device_info *info, const clscan__tuning *row,
                          clscan__tuning *t) {
  const int row_kept = t->tile_wg == row->tile_wg && t->tile_vpt == row->tile_vpt &&
                       t->rts_groups_per_cu == row->rts_groups_per_cu;
  if (!row->reduce_wg || !row_kept || t->single_pass_cpu) {
    t->reduce_wg = t->tile_wg;
    t->reduce_vpt = t->tile_vpt;
    t->reduce_groups_per_cu = t->rts_groups_per_cu;
    return;
  }
  while (t->reduce_wg > info->max_wg)
    t->reduce_wg /= 2;
}

clscan_status clscan__tuning_for(const clscan__device_info *info, const clscan__tuning_key *key,
                                 const clscan_tuning *overrides, clscan__tuning *t) {
  lookup(info, key, t);
  fit_device(info, key, t);
  const clscan__tuning row = *t;
  CLSCAN_RETURN_IF_ERROR(apply_overrides(overrides, t));
  fit_single_pass(info, key, &row, t);
  fit_reduction(info, &row, t);
  return check(info, t);
}

void clscan__tuning_export(const clscan__tuning *t, clscan_tuning *out) {
  memset(out, 0, sizeof *out);
  out->seed_wg = t->seed_wg;
  out->tile_wg = t->tile_wg;
  out->tile_vpt = t->tile_vpt;
  out->rts_groups_per_cu = t->rts_groups_per_cu;
  out->cpu_tile = t->cpu_tile;
  out->single_pass_shape = t->single_pass_cpu ? CLSCAN_SHAPE_CPU : CLSCAN_SHAPE_GPU;
}
