/*
 * The clscan program's access to the library's tuning, in one place.
 *
 * The library does not yet report a plan's tuning or take one at plan creation, so this file is
 * the only one that knows how the library tunes itself:
 * - cli_seed_wg() re-derives the seed kernels' work-group size the way src/tuning.c computes it
 *   (CLSCAN_SEED_WG, else 256, halved until the device allows it);
 * - cli_plan_create_with_tiles() creates a plan under tile parameters given through the
 *   environment overrides the library reads at plan creation (setenv, then unsetenv);
 * - cli_tiles_drop_inherited() clears those overrides where the user's environment set them.
 * When the library offers a query of a plan's tuning and a plan creation with explicit tuning,
 * these three functions are what changes; their callers (bench and tune) stay as they are.
 */
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"

/* The environment overrides of tile parameters, in the order of cli_tile_params' fields. */
static const char *const tile_vars[] = {"CLSCAN_TILE_WG", "CLSCAN_TILE_VPT", "CLSCAN_CPU_TILE",
                                        "CLSCAN_SINGLE_PASS_CPU"};
#define TILE_VAR_COUNT (sizeof tile_vars / sizeof tile_vars[0])

unsigned cli_seed_wg(cl_device_id device) {
  size_t max_wg = 0;
  clGetDeviceInfo(device, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof max_wg, &max_wg, NULL);
  const char *env = getenv("CLSCAN_SEED_WG");
  unsigned wg = env && atoi(env) > 0 ? (unsigned)atoi(env) : 256;
  while (max_wg && wg > max_wg)
    wg /= 2;
  return wg;
}

/* Removes every tile override from the environment. */
static void clear_tiles(void) {
  for (size_t i = 0; i < TILE_VAR_COUNT; i++)
    unsetenv(tile_vars[i]);
}

/* Sets the overrides of the parameters that are not the library's own (0, or -1). */
static int set_tiles(const cli_tile_params *t) {
  char v[32];
  const unsigned values[] = {t->wg, t->vpt, t->cpu_tile};
  for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
    if (!values[i])
      continue;
    snprintf(v, sizeof v, "%u", values[i]);
    if (setenv(tile_vars[i], v, 1) != 0)
      return 0;
  }
  return t->single_pass_cpu < 0 || setenv(tile_vars[3], t->single_pass_cpu ? "1" : "0", 1) == 0;
}

clscan_status cli_plan_create_with_tiles(clscan_context *ctx, const clscan_scan_desc *desc,
                                         const cli_tile_params *tiles, clscan_plan **plan) {
  *plan = NULL;
  if (!set_tiles(tiles)) {
    clear_tiles();
    cli_error("cannot set the tile overrides in the environment");
    return CLSCAN_OUT_OF_HOST_MEMORY;
  }
  clscan_status st = clscan_plan_create(ctx, desc, plan);
  clear_tiles();
  return st;
}

void cli_tiles_drop_inherited(void) {
  for (size_t i = 0; i < TILE_VAR_COUNT; i++) {
    const char *v = getenv(tile_vars[i]);
    if (v)
      printf("note: ignoring %s=%s from the environment during the sweep\n", tile_vars[i], v);
  }
  clear_tiles();
}
