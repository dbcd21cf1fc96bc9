/*
 * clscan: the tuning table. Rows are searched in order: an exact device row first, then the
 * vendor's default, then the global default (as CLBlast's database does). Parameters are given
 * per element size. Each row says where its values came from; `clscan tune` measures candidates
 * on the current device and prints rows in this format.
 */
#include <string.h>

#include "internal.h"

typedef struct tuning_row {
  const char *vendor;  /* substring of the vendor or platform name; NULL matches any */
  const char *device;  /* substring of the device name; NULL matches any */
  unsigned elem_bytes; /* element size the row is for; 0 matches any */
  clscan__tuning t;
} tuning_row;

/* Fields: seed_wg, tile_wg, tile_vpt, rts_groups_per_cu, cpu_tile, single_pass_cpu,
 * auto_seed_below, source. */
static const tuning_row table[] = {
    /* NVIDIA H200, NVIDIA OpenCL 3.0 CUDA 13.0, driver 580.159.04, exclusive add at 2^28 (sweep of
     * work-group 128/256/512 x 2..8 vectors per work-item, 2026-11-29, by a scratch program making
     * the same calls as `clscan tune`: verified, median of 20, copy timed in the same run):
     * int32 128 x 6 vectors: 0.592 ms, 3.63 TB/s, 0.87 of clEnqueueCopyBuffer;
     * int64 256 x 4 vectors: 1.342 ms, 3.20 TB/s, 0.75 of clEnqueueCopyBuffer.
     * A later call the same day (`clscan bench --types int32 --algorithms single-pass`, 2^28)
     * measured this int32 row at 0.645-0.648 ms (0.79 of copy) and 256 x 6 at 0.617 ms (0.83):
     * one run, so the row was kept; see the README's "H200, later the same day". The 1- and 2-byte
     * rows serve scans into 4-byte outputs (VEC follows the wider type); uint8 -> uint32 counts
     * ran at 0.64 of copy with them, untuned. */
    {"NVIDIA", "H200", 1, {256, 128, 6, 4, 0, 0, 0, "NVIDIA H200, 1-byte (4-byte values)"}},
    {"NVIDIA", "H200", 2, {256, 128, 6, 4, 0, 0, 0, "NVIDIA H200, 2-byte (4-byte values)"}},
    {"NVIDIA", "H200", 4, {256, 128, 6, 4, 0, 0, 0, "NVIDIA H200, 4-byte"}},
    {"NVIDIA", "H200", 8, {256, 256, 4, 4, 0, 0, 0, "NVIDIA H200, 8-byte"}},
    /* Other NVIDIA GPUs: the H200 values, untested elsewhere. */
    {"NVIDIA", NULL, 0, {256, 256, 4, 4, 0, 0, 0, "NVIDIA default"}},
    /* POCL CPU devices: large single-work-item tiles that stay in cache. */
    {"Portable Computing Language", NULL, 0, {256, 256, 2, 2, 32768, 1, 0, "POCL default"}},
    /* Any other device: the portable local-memory tile scan. */
    {NULL, NULL, 0, {256, 256, 2, 4, 32768, 0, 0, "global default"}},
};

/* Returns 1 if `needle` is NULL or occurs in `hay`. */
static int matches(const char *hay, const char *needle) {
  return !needle || strstr(hay, needle) != NULL;
}

void clscan__tuning_lookup(const clscan__device_info *info, size_t elem_size, clscan__tuning *t) {
  for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
    const tuning_row *r = &table[i];
    int vendor_ok = matches(info->vendor, r->vendor) || matches(info->platform, r->vendor);
    int elem_ok = r->elem_bytes == 0 || r->elem_bytes == elem_size;
    if (vendor_ok && matches(info->name, r->device) && elem_ok) {
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
