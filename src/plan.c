/*
 * clscan: plans. A plan holds a validated descriptor, its tuning, and the kernels of each
 * algorithm it has run, built on first use through the context's program cache. What each
 * algorithm builds comes from its descriptor (algorithms.c); this file only fills the part of
 * the configuration every algorithm shares.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#ifdef CLSCAN_FAULT_INJECTION
#include "fault.h"
#endif

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

/* Copies the descriptor's extra arguments (names and type names included) into plan memory. */
static clscan_status copy_args(const clscan_scan_desc *desc, const clscan_arg **dst) {
  if (!desc->arg_count)
    return CLSCAN_SUCCESS;
  clscan_arg *args = calloc(desc->arg_count, sizeof *args);
  if (!args)
    return clscan__fail(CLSCAN_OUT_OF_HOST_MEMORY, "descriptor arguments");
  *dst = args;
  for (size_t k = 0; k < desc->arg_count; k++) {
    args[k] = desc->args[k];
    args[k].name = args[k].type_name = NULL;
    CLSCAN_RETURN_IF_ERROR(copy_string(desc->args[k].name, &args[k].name));
    CLSCAN_RETURN_IF_ERROR(copy_string(desc->args[k].type_name, &args[k].type_name));
  }
  return CLSCAN_SUCCESS;
}

/* Frees what copy_args() allocated. */
static void free_args(const clscan_arg *args, size_t count) {
  for (size_t k = 0; args && k < count; k++) {
    free((void *)args[k].name);
    free((void *)args[k].type_name);
  }
  free((void *)args);
}

/* Makes plan->desc a deep copy of desc and fills the identity (the caller validated desc). */
static clscan_status copy_desc(clscan_plan *plan, const clscan_scan_desc *desc) {
  clscan_scan_desc *d = &plan->desc;
  *d = *desc;
  d->init = d->identity = NULL;
  d->op_source = d->type_source = d->type_name = d->map_source = NULL;
  d->args = NULL;
  CLSCAN_RETURN_IF_ERROR(copy_args(desc, &d->args));
  d->key_type_source = d->key_type_name = d->key_equal_source = NULL;
  size_t out = plan->out_size;
  CLSCAN_RETURN_IF_ERROR(copy_bytes(desc->init, out, &d->init));
  CLSCAN_RETURN_IF_ERROR(copy_bytes(desc->identity, out, &d->identity));
  CLSCAN_RETURN_IF_ERROR(copy_string(desc->op_source, &d->op_source));
  CLSCAN_RETURN_IF_ERROR(copy_string(desc->type_source, &d->type_source));
  CLSCAN_RETURN_IF_ERROR(copy_string(desc->type_name, &d->type_name));
  CLSCAN_RETURN_IF_ERROR(copy_string(desc->map_source, &d->map_source));
  CLSCAN_RETURN_IF_ERROR(copy_string(desc->key_type_source, &d->key_type_source));
  CLSCAN_RETURN_IF_ERROR(copy_string(desc->key_type_name, &d->key_type_name));
  CLSCAN_RETURN_IF_ERROR(copy_string(desc->key_equal_source, &d->key_equal_source));
  plan->identity = malloc(out > 8 ? out : 8);
  if (!plan->identity)
    return clscan__fail(CLSCAN_OUT_OF_HOST_MEMORY, "identity");
  if (d->op == CLSCAN_USER_OP) {
    memcpy(plan->identity, d->identity, out);
  } else {
    clscan__identity(clscan__out_type(d), d->op, plan->identity);
  }
  return CLSCAN_SUCCESS;
}

/* Compares two optional strings. */
static int same_text(const char *a, const char *b) {
  return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

int clscan__same_keys(const clscan_scan_desc *a, const clscan_scan_desc *b) {
  if (a->segments != CLSCAN_SEGMENTS_KEYS && a->segments != CLSCAN_SEGMENTS_OFFSETS)
    return 1;
  return a->key_type == b->key_type && a->key_size == b->key_size &&
         same_text(a->key_type_source, b->key_type_source) &&
         same_text(a->key_type_name, b->key_type_name) &&
         same_text(a->key_equal_source, b->key_equal_source);
}

/* The sizes a plan of a descriptor works with. */
typedef struct plan_shape {
  size_t in_size, out_size, state_size, elem_size;
  unsigned state_align, vec;
  int user; /* 1: a user type in or out */
} plan_shape;

/* Sizes of a descriptor's elements and scan state. A segmented state is the value then a uint
 * flag, aligned to the largest power of two (4 to 128) dividing the value's size: at least the
 * value's own alignment, so the host knows the layout the kernels use (common.cl checks it). */
static void shape_of(const clscan_scan_desc *d, plan_shape *p) {
  p->in_size = clscan__in_size(d);
  p->out_size = clscan__out_size(d);
  p->state_size = p->out_size;
  p->state_align = 0;
  if (d->segments) {
    size_t v = p->out_size, a = 4;
    while (a < 128 && v % (2 * a) == 0)
      a *= 2;
    size_t flag_at = (v + 3) & ~(size_t)3;
    p->state_size = (flag_at + 4 + a - 1) / a * a;
    p->state_align = (unsigned)a;
  }
  // Tuning rows are per I/O element size; user types take the 8-byte row.
  p->user = d->type == CLSCAN_USER_TYPE || d->out_type == CLSCAN_OUT_USER_TYPE;
  size_t io = p->in_size > p->out_size ? p->in_size : p->out_size;
  p->elem_size = p->user ? 8 : io;
  p->vec = p->user ? 1 : (unsigned)(16 / io);
}

/* AUTO's choice on a device (docs/tuning.md, "What AUTO runs"): the single pass where the device
 * has 64-bit atomics (64-bit status words), and on CPU devices without them (32-bit status words,
 * the CPU shape: measured faster than reduce-then-scan from 2^16 to 2^24 elements on rusticl's
 * llvmpipe). GPUs without 64-bit atomics take reduce-then-scan: the 32-bit words' GPU shape has
 * not been measured on one. It does not depend on n. */
static clscan_algorithm resolve(const clscan__device_info *info, clscan_algorithm algorithm) {
  if (algorithm != CLSCAN_ALGO_AUTO)
    return algorithm;
  return info->has_int64_atomics || info->is_cpu ? CLSCAN_ALGO_SINGLE_PASS
                                                 : CLSCAN_ALGO_REDUCE_THEN_SCAN;
}

/* Resolves the tuning of a descriptor of a given shape. */
static clscan_status tuning_of(const clscan__device_info *info, const clscan_scan_desc *desc,
                               const plan_shape *p, const clscan_tuning *overrides,
                               clscan__tuning *t) {
  // The tile kernels keep plain narrow scans packed (cl/common.cl, CLSCAN_NARROW): same type in
  // and out, 1 or 2 bytes, a built-in operator, no map, no segments.
  const int packed = desc->type != CLSCAN_USER_TYPE && clscan__out_type(desc) == desc->type &&
                     p->in_size <= 2 && desc->op != CLSCAN_USER_OP && !desc->map_source &&
                     !desc->segments && desc->type != CLSCAN_HALF;
  const clscan__tuning_key key = {.algorithm = resolve(info, desc->algorithm),
                                  .elem_size = p->elem_size,
                                  .in_size = p->in_size,
                                  .segments = desc->segments,
                                  .packed = packed,
                                  .state_size = p->state_size,
                                  .floating = clscan__type_is_float(clscan__out_type(desc)),
                                  .user = p->user,
                                  .op = desc->op,
                                  .scan = 1};
  return clscan__tuning_for(info, &key, overrides, t);
}

clscan_status clscan__plan_default_tuning(const clscan_context *ctx, const clscan_scan_desc *desc,
                                          clscan__tuning *t) {
  plan_shape p;
  shape_of(desc, &p);
  return tuning_of(&ctx->info, desc, &p, NULL, t);
}

#ifdef CLSCAN_FAULT_INJECTION
/* The tuning of a descriptor on a named NVIDIA GPU (fault.h). */
clscan_status clscan_test_device_tuning(const clscan_context *ctx, const char *device_name,
                                        const clscan_scan_desc *desc,
                                        const clscan_tuning *overrides, clscan_tuning *tuning,
                                        int *stash, unsigned *nv_registers, unsigned reduce[3]) {
  clscan__device_info info = ctx->info;
  snprintf(info.name, sizeof info.name, "%s", device_name);
  snprintf(info.vendor, sizeof info.vendor, "NVIDIA Corporation");
  snprintf(info.platform, sizeof info.platform, "NVIDIA CUDA");
  info.is_nvidia = 1;
  info.is_cpu = 0;
  info.has_int64_atomics = 1;
  info.max_wg = 1024;
  info.local_mem = 49152;
  plan_shape p;
  shape_of(desc, &p);
  clscan__tuning t;
  clscan_status st = tuning_of(&info, desc, &p, overrides, &t);
  clscan__tuning_export(&t, tuning);
  *stash = t.stash;
  *nv_registers = t.nv_registers;
  reduce[0] = t.reduce_wg;
  reduce[1] = t.reduce_vpt;
  reduce[2] = t.reduce_groups_per_cu;
  return st;
}
#endif

/* Fills a new plan from a validated descriptor: copies, sizes, user prelude and tuning. */
static clscan_status plan_fill(clscan_plan *plan, const clscan_scan_desc *desc,
                               const clscan_tuning *tuning) {
  plan_shape p;
  shape_of(desc, &p);
  plan->in_size = p.in_size;
  plan->out_size = p.out_size;
  plan->state_size = p.state_size;
  plan->state_align = p.state_align;
  plan->elem_size = p.elem_size;
  plan->vec = p.vec;
  CLSCAN_RETURN_IF_ERROR(copy_desc(plan, desc));
  CLSCAN_RETURN_IF_ERROR(clscan__user_source(&plan->desc, &plan->user_source));
  CLSCAN_RETURN_IF_ERROR(tuning_of(&plan->ctx->info, desc, &p, tuning, &plan->tuning));
  plan->withhold = clscan__env_unsigned(CLSCAN__ENV_TEST_WITHHOLD, 0, NULL);
  plan->status32 = !plan->ctx->info.has_int64_atomics ||
                   clscan__env_unsigned(CLSCAN__ENV_TEST_STATUS32, 0, NULL) != 0;
  const unsigned seg_mode = clscan__env_unsigned(CLSCAN__ENV_SEG_OFFSETS_MASK, 2, NULL);
  plan->seg_mask = desc->segments != CLSCAN_SEGMENTS_OFFSETS ? 0
                   : seg_mode <= 1                           ? (int)seg_mode
                                                             : 2;
  return CLSCAN_SUCCESS;
}

clscan_status clscan__plan_create(clscan_context *ctx, const clscan_scan_desc *desc,
                                  const clscan_tuning *tuning, clscan_plan **out) {
  clscan_status st = CLSCAN_SUCCESS;
  clscan_plan *plan = calloc(1, sizeof *plan);
  if (!plan)
    return clscan__fail(CLSCAN_OUT_OF_HOST_MEMORY, "plan");
  plan->ctx = ctx;
  pthread_mutex_init(&plan->lock, NULL);
  CLSCAN_TRY(plan_fill(plan, desc, tuning));

  // Build what the plan's algorithm needs now, so the first enqueue does not compile.
  const clscan__algorithm *algo =
      clscan__algorithm_find(CLSCAN__FAMILY_SCAN, (int)clscan__plan_resolve(plan, (size_t)1 << 24));
  clscan__algo_kernels *unused;
  CLSCAN_TRY(clscan__plan_prepare(plan, algo, algo->vector_variants, &unused));
  *out = plan;
  return CLSCAN_SUCCESS;
fail:
  clscan__plan_release(plan);
  return st;
}

clscan_algorithm clscan__plan_resolve(const clscan_plan *plan, size_t n) {
  (void)n;
  return resolve(&plan->ctx->info, plan->desc.algorithm);
}

/* Fills the kernel configuration of an algorithm for this plan: the shared part here, the
 * algorithm's own (program, geometry, switches) from its descriptor. */
static void shared_config(const clscan_plan *plan, clscan__kernel_config *cfg) {
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
}

static clscan_status plan_config(const clscan_plan *plan, const clscan__algorithm *algo,
                                 int vector_io, clscan__kernel_config *cfg) {
  shared_config(plan, cfg);
  return algo->config(plan, vector_io, cfg);
}

/* The plan's kernel set of an algorithm (its family's table, by id) and I/O variant. */
static clscan__algo_kernels *kernel_set(clscan_plan *plan, const clscan__algorithm *algo, int v) {
  if (algo->family == CLSCAN__FAMILY_REDUCE)
    return &plan->reductions[algo->id][v];
  if (algo->family == CLSCAN__FAMILY_TOTAL)
    return &plan->totals[v];
  return &plan->algos[algo->id][v];
}

/* Releases the kernels of a table of kernel sets. */
static void release_kernels(clscan__algo_kernels *sets, size_t count) {
  for (size_t a = 0; a < count; a++) {
    for (int i = 0; i < CLSCAN__MAX_KERNELS; i++) {
      if (sets[a].k[i])
        clReleaseKernel(sets[a].k[i]);
    }
  }
}

clscan_status clscan__plan_prepare(clscan_plan *plan, const clscan__algorithm *algo, int vector_io,
                                   clscan__algo_kernels **out) {
  // Algorithms without vector I/O have one kernel set.
  if (!algo->vector_variants)
    vector_io = 0;
  clscan__algo_kernels *ak = kernel_set(plan, algo, vector_io ? 1 : 0);
  *out = ak;
  if (clscan__kernel_set_ready(&plan->lock, ak))
    return CLSCAN_SUCCESS;

  clscan__kernel_config cfg;
  CLSCAN_RETURN_IF_ERROR(plan_config(plan, algo, vector_io, &cfg));
  return clscan__kernel_set_build(plan->ctx, &plan->lock, &cfg, ak);
}

clscan_status clscan__plan_prepare_batch(clscan_plan *plan, clscan__algo_kernels **out) {
  clscan__algo_kernels *ak = &plan->batch;
  *out = ak;
  if (clscan__kernel_set_ready(&plan->lock, ak))
    return CLSCAN_SUCCESS;
  clscan__kernel_config cfg;
  shared_config(plan, &cfg);
  cfg.program = &clscan__batch_program;
  cfg.kernels = &clscan__batch_kernels;
  cfg.wg = plan->tuning.seed_wg;
  return clscan__kernel_set_build(plan->ctx, &plan->lock, &cfg, ak);
}

void clscan__plan_release(clscan_plan *plan) {
  if (!plan)
    return;
  release_kernels(&plan->algos[0][0], CLSCAN_ALGORITHM_COUNT * CLSCAN__IO_VARIANTS);
  release_kernels(&plan->reductions[0][0], CLSCAN__REDUCE_ALGORITHM_COUNT * CLSCAN__IO_VARIANTS);
  release_kernels(plan->totals, CLSCAN__IO_VARIANTS);
  release_kernels(&plan->batch, 1);
  pthread_mutex_destroy(&plan->lock);
  // The descriptor's pointers are the plan's own copies (see copy_desc).
  free((void *)plan->desc.init);
  free((void *)plan->desc.identity);
  free((void *)plan->desc.op_source);
  free((void *)plan->desc.type_source);
  free((void *)plan->desc.type_name);
  free((void *)plan->desc.map_source);
  free_args(plan->desc.args, plan->desc.arg_count);
  free((void *)plan->desc.key_type_source);
  free((void *)plan->desc.key_type_name);
  free((void *)plan->desc.key_equal_source);
  free(plan->identity);
  free(plan->user_source);
  free(plan);
}
