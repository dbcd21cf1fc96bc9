/*
 * clscan: the tuning table. Rows are searched in order: an exact device row first, then the
 * vendor's default, then the global default (as CLBlast's database does). Parameters are given
 * per element size, input size and segmentation (rows are searched in order, so the narrower
 * rows come first). Each row says where its values came from; `clscan tune` measures candidates
 * on the current device and prints rows in this format.
 */
#include <string.h>

#include "internal.h"

typedef struct tuning_row {
  const char *vendor;  /* substring of the vendor or platform name; NULL matches any */
  const char *device;  /* substring of the device name; NULL matches any */
  unsigned elem_bytes; /* wider of the input and output element sizes; 0 matches any */
  unsigned in_bytes;   /* input element size; 0 matches any */
  int segmented;       /* 1: only segmented and by-key plans; 0: any plan */
  clscan__tuning t;
} tuning_row;

/* Fields: vendor, device, elem_bytes, in_bytes, segmented, then seed_wg, tile_wg, tile_vpt,
 * rts_groups_per_cu, cpu_tile, single_pass_cpu, auto_seed_below, source. */
static const tuning_row table[] = {
    /* NVIDIA H200, NVIDIA OpenCL 3.0 CUDA 13.0, driver 580.159.04: single pass, exclusive add at
     * 2^28, median of 20, verified, against clEnqueueCopyBuffer of the same bytes in the same
     * process: `build/tile_sweep 28 20 KIND:WG:VPT ...` (tools/tile_sweep.c), six device calls on
     * 2026-11-29. Figures are copy time / scan time; the last call's (commit 5c4d1ab) first.
     *   int32 256 x 8 vectors: 0.530-0.533 ms, 0.959 (earlier calls: 128 x 16 0.958, 256 x 10
     *     0.948, 512 x 8 0.934, 128 x 6 0.907, 256 x 12 0.884);
     *   int64 256 x 8: 1.138 ms, 0.885 (64 x 16 0.889-0.895 and 128 x 16 0.879 in earlier calls,
     *     within run-to-run spread; 256 x 6 0.868, 512 x 4 0.748); double 256 x 8: 1.128 ms,
     *     0.892 (64 x 16 0.771 in one call, so not taken);
     *   uint8 -> uint32 128 x 10: 0.373 ms, 0.862 of copying the 5 bytes per element it moves
     *     (128 x 8 0.837, 128 x 12 0.831, 256 x 8 0.834, 256 x 6 0.758);
     *   int32 head flags 128 x 12: 0.600 ms, 1.12 x the plain scan (commit f9fd0d4; 128 x 8
     *     0.610, 256 x 8 0.690; at 5c4d1ab 128 x 16 0.638, 64 x 16 0.654, 256 x 12 0.652,
     *     256 x 6 0.675); by int32 key (same row) 0.744 ms (256 x 8 0.782).
     * The 1- and 2-byte rows (same-type narrow scans) keep each work-item at 32 elements, like
     * the int32 row: int8 256 x 2 ran at 0.32 of copy (256 x 4 0.33, 128 x 8 0.34), int16 256 x 4
     * at 0.73 (256 x 8 0.62); narrow same-type scans are not tuned further. Segmented 8-byte
     * values were not measured. */
    {"NVIDIA", "H200", 4, 1, 0, {256, 128, 10, 4, 0, 0, 0, "NVIDIA H200, 1-byte in, 4-byte out"}},
    {"NVIDIA", "H200", 4, 0, 1, {256, 128, 12, 4, 0, 0, 0, "NVIDIA H200, 4-byte, segmented"}},
    {"NVIDIA", "H200", 1, 0, 0, {256, 256, 2, 4, 0, 0, 0, "NVIDIA H200, 1-byte"}},
    {"NVIDIA", "H200", 2, 0, 0, {256, 256, 4, 4, 0, 0, 0, "NVIDIA H200, 2-byte"}},
    {"NVIDIA", "H200", 4, 0, 0, {256, 256, 8, 4, 0, 0, 0, "NVIDIA H200, 4-byte"}},
    {"NVIDIA", "H200", 8, 0, 1, {256, 128, 8, 4, 0, 0, 0, "NVIDIA H200, 8-byte, segmented"}},
    {"NVIDIA", "H200", 8, 0, 0, {256, 256, 8, 4, 0, 0, 0, "NVIDIA H200, 8-byte"}},
    /* Other NVIDIA GPUs: the H200's wide rows halved in vectors per work-item, a safer register
     * budget for smaller GPUs; untested elsewhere. */
    {"NVIDIA", NULL, 0, 0, 0, {256, 256, 4, 4, 0, 0, 0, "NVIDIA default"}},
    /* POCL CPU devices: the single pass's CPU kernel with large single-work-item tiles that stay
     * in cache. Reduce-then-scan's tiles of 1 work-item x 4 vectors ran 3.3-4.8x faster than
     * 256 x 2 on a 2-core Xeon (POCL 5, `clscan bench`, int32 and int64 at 2^24 and 2^26): POCL
     * runs a work-group's local-memory scan as barrier-separated loops. */
    {"Portable Computing Language", NULL, 0, 0, 0, {256, 1, 4, 2, 32768, 1, 0, "POCL default"}},
    /* Any other device: the portable local-memory tile scan. */
    {NULL, NULL, 0, 0, 0, {256, 256, 2, 4, 32768, 0, 0, "global default"}},
};

/* Returns 1 if `needle` is NULL or occurs in `hay`. */
static int matches(const char *hay, const char *needle) {
  return !needle || strstr(hay, needle) != NULL;
}

void clscan__tuning_lookup(const clscan__device_info *info, const clscan__tuning_key *key,
                           clscan__tuning *t) {
  for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
    const tuning_row *r = &table[i];
    int vendor_ok = matches(info->vendor, r->vendor) || matches(info->platform, r->vendor);
    int shape_ok = (r->elem_bytes == 0 || r->elem_bytes == key->elem_size) &&
                   (r->in_bytes == 0 || r->in_bytes == key->in_size) &&
                   (!r->segmented || key->segmented);
    if (vendor_ok && matches(info->name, r->device) && shape_ok) {
      *t = r->t;
      break;
    }
  }
  // CPU devices of any platform use the CPU-shaped single pass.
  if (info->is_cpu)
    t->single_pass_cpu = 1;
  if (!t->cpu_tile)
    t->cpu_tile = 32768;
  // Work-group sizes never exceed what the device allows.
  while (t->seed_wg > info->max_wg)
    t->seed_wg /= 2;
  while (t->tile_wg > info->max_wg)
    t->tile_wg /= 2;
}
