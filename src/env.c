/*
 * clscan: the environment switches, read here and nowhere else. They are debugging and test aids;
 * programs set tuning through clscan_plan_create_tuned(). Each is read when it takes effect
 * (tuning and test switches at plan creation, build options at each build), so a program may
 * change them between plans.
 *
 *   CLSCAN_DEVICE          the default device of clscan_context_create_default(): "P:D"
 *                          (platform P, device D, from 0) or a case-insensitive substring of the
 *                          platform or device name.
 *   CLSCAN_SEED_WG         Blelloch / Hillis-Steele work-group size     (clscan_tuning.seed_wg)
 *   CLSCAN_TILE_WG         tile kernels' work-group size                (clscan_tuning.tile_wg)
 *   CLSCAN_TILE_VPT        tile kernels' vectors per work-item          (clscan_tuning.tile_vpt)
 *   CLSCAN_RTS_GROUPS      reduce-then-scan's and the reduction's work-groups per compute unit
 *                                                              (clscan_tuning.rts_groups_per_cu)
 *   CLSCAN_CPU_TILE        CPU-shaped single pass's tile                (clscan_tuning.cpu_tile)
 *   CLSCAN_SINGLE_PASS_CPU 0: the GPU-shaped single pass, also on a CPU device; non-zero: the
 *                          CPU-shaped one, also on a GPU          (clscan_tuning.single_pass_shape)
 *                          The tuning variables apply to the fields a caller's clscan_tuning
 *                          leaves zero, and are validated like the caller's values.
 *   CLSCAN_TEST_WITHHOLD   K > 0: every K-th single-pass tile never publishes its status, so the
 *                          decoupled fallback runs (tests of the no-hang protocol).
 *   CLSCAN_NO_PTX          set: never probe for or use the NVIDIA inline-PTX path.
 *   CLSCAN_BUILD_OPTIONS   appended to every program's build options.
 *   CLSCAN_TEST_STATUS32   non-zero: single-pass scans use the 32-bit status words that devices
 *                          without 64-bit atomics use, also where 64-bit atomics exist.
 *   CLSCAN_SORT_CLASSIC    non-zero: radix sorts in the GPU shape rank tiles of 32 x 32 keys with
 *                          one count per digit and work-item instead of the warp ranking's tiles
 *                          of 256 x 20, 16 or 12 (comparisons and tests).
 *   CLSCAN_SORT_ITEMS      1 to 24: keys per work-item of the radix sort's warp ranking (tiles of
 *                          256 x K; default 20, 16 for 8-byte keys, 12 for 8-byte keys with
 *                          values); other values are ignored.
 *   CLSCAN_SEG_OFFSETS_MASK how the GPU-shaped single pass of segments by offsets finds each
 *                          tile's first offset: 2 or unset (or any other value), a pre-pass of
 *                          one binary search per tile (the tile firsts); 1, a global head mask
 *                          from a pre-pass instead; 0, a search by each tile (comparisons).
 */
#include <stdlib.h>

#include "internal.h"

static const char *const names[CLSCAN__ENV_COUNT] = {
    [CLSCAN__ENV_DEVICE] = "CLSCAN_DEVICE",
    [CLSCAN__ENV_SEED_WG] = "CLSCAN_SEED_WG",
    [CLSCAN__ENV_TILE_WG] = "CLSCAN_TILE_WG",
    [CLSCAN__ENV_TILE_VPT] = "CLSCAN_TILE_VPT",
    [CLSCAN__ENV_RTS_GROUPS] = "CLSCAN_RTS_GROUPS",
    [CLSCAN__ENV_CPU_TILE] = "CLSCAN_CPU_TILE",
    [CLSCAN__ENV_SINGLE_PASS_CPU] = "CLSCAN_SINGLE_PASS_CPU",
    [CLSCAN__ENV_TEST_WITHHOLD] = "CLSCAN_TEST_WITHHOLD",
    [CLSCAN__ENV_NO_PTX] = "CLSCAN_NO_PTX",
    [CLSCAN__ENV_BUILD_OPTIONS] = "CLSCAN_BUILD_OPTIONS",
    [CLSCAN__ENV_TEST_STATUS32] = "CLSCAN_TEST_STATUS32",
    [CLSCAN__ENV_SORT_CLASSIC] = "CLSCAN_SORT_CLASSIC",
    [CLSCAN__ENV_SORT_ITEMS] = "CLSCAN_SORT_ITEMS",
    [CLSCAN__ENV_SEG_OFFSETS_MASK] = "CLSCAN_SEG_OFFSETS_MASK",
};

const char *clscan__env_string(clscan__env_var var) {
  if ((unsigned)var >= CLSCAN__ENV_COUNT)
    return NULL;
  const char *v = getenv(names[var]);
  return v && *v ? v : NULL;
}

unsigned clscan__env_unsigned(clscan__env_var var, unsigned fallback, int *set) {
  const char *v = clscan__env_string(var);
  if (set)
    *set = 0;
  if (!v)
    return fallback;
  char *end;
  unsigned long x = strtoul(v, &end, 10);
  if (*end != '\0')
    return fallback;
  if (set)
    *set = 1;
  return (unsigned)x;
}

int clscan__env_present(clscan__env_var var) {
  return (unsigned)var < CLSCAN__ENV_COUNT && getenv(names[var]) != NULL;
}
