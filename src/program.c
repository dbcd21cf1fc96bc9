/*
 * clscan: build options, program building and the per-context program cache.
 *
 * A program is identified by its kind (which cl/ files it concatenates) and its build options,
 * compared exactly. The cache lives in the context, which is bound to one cl_context and one
 * device, so the full key is (context, device, kind, options).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* The cl/ files each program kind concatenates, in order. */
static const char *const program_files[CLSCAN__PROG_COUNT][4] = {
    [CLSCAN__PROG_SEED] = {"common", "seed", NULL},
    [CLSCAN__PROG_REDUCE_THEN_SCAN] = {"common", "tile", "reduce_then_scan", NULL},
    [CLSCAN__PROG_SINGLE_PASS] = {"common", "tile", "single_pass", NULL},
    [CLSCAN__PROG_SINGLE_PASS_CPU] = {"common", "single_pass_cpu", NULL},
    [CLSCAN__PROG_PTX_PROBE] = {"common", "tile", NULL},
};

/* Finds an embedded source by name. */
static const clscan__kernel_source *find_source(const char *name) {
  for (const clscan__kernel_source *s = clscan__kernel_sources; s->name; s++) {
    if (strcmp(s->name, name) == 0) return s;
  }
  return NULL;
}

void clscan__build_options(const clscan__kernel_config *cfg, char *buf, size_t cap) {
  int len = snprintf(buf, cap, "-cl-std=CL1.2 -DCLSCAN_TYPE=%d -DCLSCAN_OP=%d -DCLSCAN_WG=%u",
                     (int)cfg->type, (int)cfg->op, cfg->wg);
  if (len < 0 || (size_t)len >= cap) return;
  // Tile kernels: vectors per work-item and 16-byte I/O.
  if (cfg->vpt) len += snprintf(buf + len, cap - (size_t)len, " -DCLSCAN_VPT=%u", cfg->vpt);
  if ((size_t)len < cap && cfg->program != CLSCAN__PROG_SEED)
    len += snprintf(buf + len, cap - (size_t)len, " -DCLSCAN_VECTOR_IO=%d", cfg->vector_io);
  // CPU single pass: elements per work-group.
  if ((size_t)len < cap && cfg->cpu_tile)
    len += snprintf(buf + len, cap - (size_t)len, " -DCLSCAN_CPU_TILE=%u", cfg->cpu_tile);
  // Device workaround / fast path: NVIDIA inline PTX.
  if ((size_t)len < cap && cfg->nv_ptx)
    len += snprintf(buf + len, cap - (size_t)len, " -DCLSCAN_NV_PTX=1");
  // Test only: withhold tile publications so that the fallback path runs.
  if ((size_t)len < cap && cfg->withhold)
    len += snprintf(buf + len, cap - (size_t)len, " -DCLSCAN_TEST_WITHHOLD=%u", cfg->withhold);
  // A user-supplied extra string (like CLBlast's CLBLAST_BUILD_OPTIONS).
  const char *extra = getenv("CLSCAN_BUILD_OPTIONS");
  if ((size_t)len < cap && extra && *extra) snprintf(buf + len, cap - (size_t)len, " %s", extra);
}

/* Stores a build log in the context (the caller holds the lock). */
static void keep_build_log(clscan_context *ctx, cl_program program) {
  size_t size = 0;
  if (clGetProgramBuildInfo(program, ctx->device, CL_PROGRAM_BUILD_LOG, 0, NULL, &size) !=
      CL_SUCCESS)
    return;
  char *log = malloc(size + 1);
  if (!log) return;
  if (clGetProgramBuildInfo(program, ctx->device, CL_PROGRAM_BUILD_LOG, size, log, NULL) !=
      CL_SUCCESS)
    size = 0;
  log[size] = '\0';
  free(ctx->build_log);
  ctx->build_log = log;
}

/* Builds a program from its embedded sources (the caller holds the lock). */
static clscan_status build_program(clscan_context *ctx, clscan__program_kind kind,
                                   const char *options, cl_program *out) {
  const char *texts[4];
  size_t lengths[4];
  cl_uint count = 0;
  for (; count < 4 && program_files[kind][count]; count++) {
    const clscan__kernel_source *src = find_source(program_files[kind][count]);
    if (!src) return clscan__fail(CLSCAN_INTERNAL_ERROR, "kernel source %s missing",
                                  program_files[kind][count]);
    texts[count] = src->text;
    lengths[count] = src->length;
  }
  cl_int err;
  cl_program program = CLSCAN_FAULT_CREATE(
      err, CL_OUT_OF_HOST_MEMORY, clCreateProgramWithSource(ctx->cl_ctx, count, texts, lengths, &err));
  if (err != CL_SUCCESS) return clscan__cl_fail(err, "clCreateProgramWithSource");
  err = CLSCAN_FAULT(CL_BUILD_PROGRAM_FAILURE,
                     clBuildProgram(program, 1, &ctx->device, options, NULL, NULL));
  keep_build_log(ctx, program);
  if (err != CL_SUCCESS) {
    clReleaseProgram(program);
    if (err == CL_BUILD_PROGRAM_FAILURE || err == CL_INVALID_BUILD_OPTIONS)
      return clscan__fail(CLSCAN_BUILD_FAILED, "clBuildProgram(%s) returned %s", options,
                          clscan__cl_error_name(err));
    return clscan__cl_fail(err, "clBuildProgram");
  }
  *out = program;
  return CLSCAN_SUCCESS;
}

/* Appends a built program to the cache (the caller holds the lock). */
static clscan_status cache_insert(clscan_context *ctx, clscan__program_kind kind,
                                  const char *options, cl_program program) {
  if (ctx->program_count == ctx->program_cap) {
    size_t cap = ctx->program_cap ? 2 * ctx->program_cap : 16;
    clscan__program_entry *grown = realloc(ctx->programs, cap * sizeof *grown);
    if (!grown) return clscan__fail(CLSCAN_OUT_OF_HOST_MEMORY, "program cache");
    ctx->programs = grown;
    ctx->program_cap = cap;
  }
  char *copy = malloc(strlen(options) + 1);
  if (!copy) return clscan__fail(CLSCAN_OUT_OF_HOST_MEMORY, "program cache key");
  strcpy(copy, options);
  ctx->programs[ctx->program_count++] = (clscan__program_entry){copy, kind, program};
  return CLSCAN_SUCCESS;
}

clscan_status clscan__program_get(clscan_context *ctx, const clscan__kernel_config *cfg,
                                  cl_program *program) {
  char options[512];
  clscan__build_options(cfg, options, sizeof options);
  clscan_status st = CLSCAN_SUCCESS;
  pthread_mutex_lock(&ctx->lock);

  // A cached program with the same kind and options is reused.
  for (size_t i = 0; i < ctx->program_count; i++) {
    clscan__program_entry *e = &ctx->programs[i];
    if (e->kind == cfg->program && strcmp(e->options, options) == 0) {
      *program = e->program;
      pthread_mutex_unlock(&ctx->lock);
      return CLSCAN_SUCCESS;
    }
  }

  // Otherwise build it under the lock, so that concurrent callers never build twice.
  cl_program built = NULL;
  st = build_program(ctx, cfg->program, options, &built);
  if (st == CLSCAN_SUCCESS) {
    st = cache_insert(ctx, cfg->program, options, built);
    if (st == CLSCAN_SUCCESS) {
      *program = built;
    } else {
      clReleaseProgram(built);
    }
  }
  pthread_mutex_unlock(&ctx->lock);
  return st;
}

void clscan__program_cache_clear(clscan_context *ctx) {
  for (size_t i = 0; i < ctx->program_count; i++) {
    clReleaseProgram(ctx->programs[i].program);
    free(ctx->programs[i].options);
  }
  free(ctx->programs);
  ctx->programs = NULL;
  ctx->program_count = ctx->program_cap = 0;
}

clscan_status clscan__device_has_nv_ptx(clscan_context *ctx, int *has) {
  pthread_mutex_lock(&ctx->lock);
  int known = ctx->nv_ptx;
  pthread_mutex_unlock(&ctx->lock);
  if (known >= 0) {
    *has = known;
    return CLSCAN_SUCCESS;
  }

  // Only NVIDIA devices are probed: elsewhere inline PTX cannot compile.
  int ok = 0;
  if (ctx->info.is_nvidia && !getenv("CLSCAN_NO_PTX")) {
    clscan__kernel_config cfg = {.program = CLSCAN__PROG_PTX_PROBE, .wg = 256, .vpt = 1,
                                 .nv_ptx = 1};
    cl_program probe = NULL;
    clscan_status st = clscan__program_get(ctx, &cfg, &probe);
    // A compile error means no PTX here, for good; any other failure is reported, not cached.
    if (st != CLSCAN_SUCCESS && st != CLSCAN_BUILD_FAILED) return st;
    ok = st == CLSCAN_SUCCESS;
    clscan__clear_error();
  }
  pthread_mutex_lock(&ctx->lock);
  ctx->nv_ptx = ok;
  pthread_mutex_unlock(&ctx->lock);
  *has = ok;
  return CLSCAN_SUCCESS;
}
