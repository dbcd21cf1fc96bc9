/*
 * clscan: plans. A plan holds a validated descriptor, its tuning, and the kernels of each
 * algorithm it has run, built on first use through the context's program cache.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* Kernel names of each algorithm, in the order dispatch.c uses them. */
static const char *const kernel_names[CLSCAN_ALGORITHM_COUNT][4] = {
    [CLSCAN_ALGO_BLELLOCH] = {"blelloch_scan_blocks", "add_block_offsets", "blelloch_scan_sums",
                              "add_sum_offsets"},
    [CLSCAN_ALGO_HILLIS_STEELE] = {"hillis_steele_scan_blocks", "add_block_offsets",
                                   "hillis_steele_scan_sums", "add_sum_offsets"},
    [CLSCAN_ALGO_REDUCE_THEN_SCAN] = {"rts_reduce", "rts_scan", "rts_spine", NULL},
    [CLSCAN_ALGO_SINGLE_PASS] = {"single_pass_scan", NULL, NULL, NULL},
};

/* Reads an unsigned tuning override from the environment (documented in the README). */
static unsigned env_unsigned(const char *name, unsigned fallback) {
  const char *v = getenv(name);
  if (!v || !*v)
    return fallback;
  char *end;
  unsigned long x = strtoul(v, &end, 10);
  return *end == '\0' ? (unsigned)x : fallback;
}

/* Checks tuning values (table rows and environment overrides alike) against the device. */
static clscan_status check_tuning(const clscan_context *ctx, const clscan__tuning *t) {
  const size_t max_wg = ctx->info.max_wg;
  if (!t->seed_wg || (t->seed_wg & (t->seed_wg - 1)) || t->seed_wg > max_wg)
    return clscan__fail(CLSCAN_INVALID_VALUE, "seed work-group size %u: need a power of two <= %zu",
                        t->seed_wg, max_wg);
  if (!t->tile_wg || (t->tile_wg & (t->tile_wg - 1)) || t->tile_wg > max_wg)
    return clscan__fail(CLSCAN_INVALID_VALUE, "tile work-group size %u: need a power of two <= %zu",
                        t->tile_wg, max_wg);
  if (ctx->info.is_nvidia && t->tile_wg < 32)
    return clscan__fail(CLSCAN_INVALID_VALUE, "tile work-group size %u: NVIDIA needs >= 32",
                        t->tile_wg);
  if (t->tile_vpt < 1 || t->tile_vpt > 16)
    return clscan__fail(CLSCAN_INVALID_VALUE, "vectors per work-item %u: need 1..16", t->tile_vpt);
  if (t->cpu_tile < 1 || t->cpu_tile > (1u << 24))
    return clscan__fail(CLSCAN_INVALID_VALUE, "CPU tile %u: need 1..2^24 elements", t->cpu_tile);
  if (!t->rts_groups_per_cu)
    return clscan__fail(CLSCAN_INVALID_VALUE, "reduce-then-scan needs >= 1 group per unit");
  return CLSCAN_SUCCESS;
}

/* Copies a string into memory the plan owns (NULL stays NULL). */
static clscan_status copy_string(const char *src, const char **dst) {
  if (!src)
    return CLSCAN_SUCCESS;
  char *copy = malloc(strlen(src) + 1);
  if (!copy)
    return clscan__fail(CLSCAN_OUT_OF_HOST_MEMORY, "descriptor string");
  strcpy(copy, src);
  *dst = copy;
  return CLSCAN_SUCCESS;
}

/* Copies bytes into memory the plan owns (NULL stays NULL). */
static clscan_status copy_bytes(const void *src, size_t size, const void **dst) {
  if (!src)
    return CLSCAN_SUCCESS;
  void *copy = malloc(size);
  if (!copy)
    return clscan__fail(CLSCAN_OUT_OF_HOST_MEMORY, "descriptor value");
  memcpy(copy, src, size);
  *dst = copy;
  return CLSCAN_SUCCESS;
}

/* Makes plan->desc a deep copy of desc and fills the identity (the caller validated desc). */
static clscan_status copy_desc(clscan_plan *plan, const clscan_scan_desc *desc) {
  clscan_scan_desc *d = &plan->desc;
  *d = *desc;
  d->init = d->identity = NULL;
  d->op_source = d->type_source = d->type_name = d->map_source = NULL;
  size_t out = plan->out_size;
  clscan_status st = copy_bytes(desc->init, out, &d->init);
  if (st == CLSCAN_SUCCESS)
    st = copy_bytes(desc->identity, out, &d->identity);
  if (st == CLSCAN_SUCCESS)
    st = copy_string(desc->op_source, &d->op_source);
  if (st == CLSCAN_SUCCESS)
    st = copy_string(desc->type_source, &d->type_source);
  if (st == CLSCAN_SUCCESS)
    st = copy_string(desc->type_name, &d->type_name);
  if (st == CLSCAN_SUCCESS)
    st = copy_string(desc->map_source, &d->map_source);
  if (st != CLSCAN_SUCCESS)
    return st;
  plan->identity = malloc(out > 8 ? out : 8);
  if (!plan->identity)
    return clscan__fail(CLSCAN_OUT_OF_HOST_MEMORY, "identity");
  if (d->op == CLSCAN_USER_OP) {
    memcpy(plan->identity, d->identity, out);
  } else {
    clscan_type t = clscan__out_type(d);
    clscan__identity(t, d->op, plan->identity);
  }
  return CLSCAN_SUCCESS;
}

/* Sizes of the plan's elements and scan state. A segmented state is the value then a uint flag,
 * aligned to the largest power of two (4 to 128) dividing the value's size: at least the value's
 * own alignment, so the host knows the layout the kernels use (common.cl checks it). */
static void plan_sizes(clscan_plan *plan) {
  const clscan_scan_desc *d = &plan->desc;
  plan->in_size = clscan__in_size(d);
  plan->out_size = clscan__out_size(d);
  plan->state_size = plan->out_size;
  plan->state_align = 0;
  if (d->segments) {
    size_t v = plan->out_size, a = 4;
    while (a < 128 && v % (2 * a) == 0)
      a *= 2;
    size_t flag_at = (v + 3) & ~(size_t)3;
    plan->state_size = (flag_at + 4 + a - 1) / a * a;
    plan->state_align = (unsigned)a;
  }
  // Tuning rows are per I/O element size; user types take the 8-byte row.
  int user = d->type == CLSCAN_USER_TYPE || d->out_type == CLSCAN_OUT_USER_TYPE;
  size_t io = plan->in_size > plan->out_size ? plan->in_size : plan->out_size;
  plan->elem_size = user ? 8 : io;
  plan->vec = user ? 1 : (unsigned)(16 / io);
}

/* Halves work-group sizes until the local memory of the kernels fits (large user states). */
static void fit_local_memory(const clscan_context *ctx, clscan_plan *plan) {
  const cl_ulong budget = ctx->info.local_mem / 2;
  clscan__tuning *t = &plan->tuning;
  const unsigned min_wg = ctx->info.is_nvidia ? 32 : 1;
  // Blelloch keeps about 2.07 states per work-item, Hillis-Steele 2.
  while (t->seed_wg > min_wg && (cl_ulong)t->seed_wg * 17 / 8 * plan->state_size > budget)
    t->seed_wg /= 2;
  while (t->tile_wg > min_wg && (cl_ulong)t->tile_wg * 2 * plan->state_size > budget)
    t->tile_wg /= 2;
}

clscan_status clscan__plan_create(clscan_context *ctx, const clscan_scan_desc *desc,
                                  clscan_plan **out) {
  if (!out)
    return clscan__fail(CLSCAN_NULL_ARGUMENT, "out is NULL");
  *out = NULL;
  if (!ctx)
    return clscan__fail(CLSCAN_NULL_ARGUMENT, "ctx is NULL");
  clscan_status st = clscan__validate_desc(ctx, desc);
  if (st != CLSCAN_SUCCESS)
    return st;

  clscan_plan *plan = calloc(1, sizeof *plan);
  if (!plan)
    return clscan__fail(CLSCAN_OUT_OF_HOST_MEMORY, "plan");
  plan->ctx = ctx;
  pthread_mutex_init(&plan->lock, NULL);
  plan->desc = *desc;
  plan_sizes(plan);
  st = copy_desc(plan, desc);
  if (st == CLSCAN_SUCCESS)
    st = clscan__user_source(&plan->desc, &plan->user_source);
  if (st != CLSCAN_SUCCESS) {
    clscan_plan_release(plan);
    return st;
  }

  // Tuning: the table, then overrides from the environment (for `clscan tune` and tests).
  clscan__tuning *t = &plan->tuning;
  const clscan__tuning_key key = {plan->elem_size, plan->in_size, desc->segments != 0};
  clscan__tuning_lookup(&ctx->info, &key, t);
  fit_local_memory(ctx, plan);
  t->seed_wg = env_unsigned("CLSCAN_SEED_WG", t->seed_wg);
  t->tile_wg = env_unsigned("CLSCAN_TILE_WG", t->tile_wg);
  t->tile_vpt = env_unsigned("CLSCAN_TILE_VPT", t->tile_vpt);
  t->cpu_tile = env_unsigned("CLSCAN_CPU_TILE", t->cpu_tile);
  t->single_pass_cpu = (int)env_unsigned("CLSCAN_SINGLE_PASS_CPU", (unsigned)t->single_pass_cpu);
  plan->withhold = env_unsigned("CLSCAN_TEST_WITHHOLD", 0);
  st = check_tuning(ctx, t);
  if (st != CLSCAN_SUCCESS) {
    clscan_plan_release(plan);
    return st;
  }

  // Build what the plan's algorithm needs now, so the first enqueue does not compile.
  clscan__algo_kernels *unused;
  clscan_algorithm algo = clscan__plan_resolve(plan, (size_t)1 << 24);
  st = clscan__plan_prepare(plan, algo, 1, &unused);
  if (st != CLSCAN_SUCCESS) {
    clscan_plan_release(plan);
    return st;
  }
  *out = plan;
  return CLSCAN_SUCCESS;
}

clscan_algorithm clscan__plan_resolve(const clscan_plan *plan, size_t n) {
  if (plan->desc.algorithm != CLSCAN_ALGO_AUTO)
    return plan->desc.algorithm;
  // One pass needs 64-bit atomics; without them reduce-then-scan is the fastest portable path.
  (void)n;
  return plan->ctx->info.has_int64_atomics ? CLSCAN_ALGO_SINGLE_PASS : CLSCAN_ALGO_REDUCE_THEN_SCAN;
}

/* Fills the kernel configuration of an algorithm for this plan. */
static clscan_status plan_config(clscan_plan *plan, clscan_algorithm algo, int vector_io,
                                 clscan__kernel_config *cfg) {
  const clscan__tuning *t = &plan->tuning;
  const clscan_scan_desc *d = &plan->desc;
  memset(cfg, 0, sizeof *cfg);
  cfg->type = clscan__out_type(d);
  cfg->in_type = d->type;
  cfg->op = d->op;
  cfg->map = d->map_source != NULL;
  cfg->segments = d->segments;
  cfg->key_type = d->key_type;
  cfg->state_align = plan->state_align;
  cfg->state_size = plan->state_size;
  cfg->user_source = plan->user_source;
  if (algo == CLSCAN_ALGO_BLELLOCH || algo == CLSCAN_ALGO_HILLIS_STEELE) {
    cfg->program = CLSCAN__PROG_SEED;
    cfg->wg = t->seed_wg;
    return CLSCAN_SUCCESS;
  }
  if (algo == CLSCAN_ALGO_SINGLE_PASS && t->single_pass_cpu) {
    cfg->program = CLSCAN__PROG_SINGLE_PASS_CPU;
    cfg->wg = 1;
    cfg->cpu_tile = t->cpu_tile;
    cfg->withhold = plan->withhold;
    return CLSCAN_SUCCESS;
  }
  cfg->program =
      algo == CLSCAN_ALGO_SINGLE_PASS ? CLSCAN__PROG_SINGLE_PASS : CLSCAN__PROG_REDUCE_THEN_SCAN;
  cfg->wg = t->tile_wg;
  cfg->vpt = t->tile_vpt;
  cfg->vector_io = vector_io;
  if (algo == CLSCAN_ALGO_SINGLE_PASS)
    cfg->withhold = plan->withhold;
  return clscan__device_has_nv_ptx(plan->ctx, &cfg->nv_ptx);
}

/* Creates an algorithm's kernels from its (cached) program. */
static clscan_status create_kernels(clscan_plan *plan, clscan_algorithm algo,
                                    clscan__algo_kernels *ak) {
  cl_program program = NULL;
  clscan_status st = clscan__program_get(plan->ctx, &ak->cfg, &program);
  if (st != CLSCAN_SUCCESS)
    return st;
  for (int i = 0; i < 4 && kernel_names[algo][i]; i++) {
    const char *name = kernel_names[algo][i];
    if (ak->cfg.program == CLSCAN__PROG_SINGLE_PASS_CPU)
      name = "single_pass_scan_cpu";
    cl_int err;
    ak->k[i] = CLSCAN_FAULT_CREATE(err, CL_OUT_OF_RESOURCES, clCreateKernel(program, name, &err));
    if (err != CL_SUCCESS)
      return clscan__cl_fail(err, "clCreateKernel");
  }
  ak->ready = 1;
  return CLSCAN_SUCCESS;
}

clscan_status clscan__plan_prepare(clscan_plan *plan, clscan_algorithm algo, int vector_io,
                                   clscan__algo_kernels **out) {
  // The seed kernels use scalar I/O only, so they have one variant.
  if (algo == CLSCAN_ALGO_BLELLOCH || algo == CLSCAN_ALGO_HILLIS_STEELE)
    vector_io = 0;
  clscan__algo_kernels *ak = &plan->algos[algo][vector_io ? 1 : 0];
  clscan_status st = CLSCAN_SUCCESS;
  pthread_mutex_lock(&plan->lock);
  if (!ak->ready) {
    st = plan_config(plan, algo, vector_io, &ak->cfg);
    if (st == CLSCAN_SUCCESS)
      st = create_kernels(plan, algo, ak);
    if (st != CLSCAN_SUCCESS) {
      for (int i = 0; i < 4; i++) {
        if (ak->k[i])
          clReleaseKernel(ak->k[i]);
        ak->k[i] = NULL;
      }
    }
  }
  pthread_mutex_unlock(&plan->lock);
  *out = ak;
  return st;
}

void clscan_plan_release(clscan_plan *plan) {
  if (!plan)
    return;
  for (int a = 0; a < CLSCAN_ALGORITHM_COUNT; a++) {
    for (int v = 0; v < CLSCAN__IO_VARIANTS; v++) {
      for (int i = 0; i < 4; i++) {
        if (plan->algos[a][v].k[i])
          clReleaseKernel(plan->algos[a][v].k[i]);
      }
    }
  }
  pthread_mutex_destroy(&plan->lock);
  // The descriptor's pointers are the plan's own copies (see copy_desc).
  free((void *)plan->desc.init);
  free((void *)plan->desc.identity);
  free((void *)plan->desc.op_source);
  free((void *)plan->desc.type_source);
  free((void *)plan->desc.type_name);
  free((void *)plan->desc.map_source);
  free(plan->identity);
  free(plan->user_source);
  free(plan);
}

clscan_algorithm clscan_plan_algorithm(const clscan_plan *plan, size_t n) {
  return plan ? clscan__plan_resolve(plan, n) : CLSCAN_ALGO_AUTO;
}
