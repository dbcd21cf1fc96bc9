/*
 * clscan: build options, program building and the per-context program cache.
 *
 * A program is identified by its definition (which cl/ files it concatenates), its build options
 * and the descriptor's user prelude (user type, operator and map), all compared exactly. The
 * cache lives in the context, which is bound to one cl_context and one device, so the full key is
 * (context, device, program, options, user sources).
 *
 * Locking: the cache's lock guards its entries and the build log and is never held during a
 * build. The first requester of a program inserts an entry without a program (in progress),
 * builds outside the lock, then fills the entry and broadcasts `built`; a second requester of the
 * same key waits for that broadcast instead of building again. When the build fails its entry is
 * removed, and a waiter then builds (and reports) for itself.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "internal.h"

/* Finds an embedded source by name. */
static const clscan__kernel_source *find_source(const char *name) {
  for (const clscan__kernel_source *s = clscan__kernel_sources; s->name; s++) {
    if (strcmp(s->name, name) == 0)
      return s;
  }
  return NULL;
}

#ifdef CLSCAN_FAULT_INJECTION
const clscan__kernel_source *clscan_test_kernel_sources(void) {
  return clscan__kernel_sources;
}
#endif

/* ============================================================================================== */
/* Build options                                                                                  */
/* ============================================================================================== */

void clscan__build_options(const clscan__kernel_config *cfg, char *buf, size_t cap) {
  int len = snprintf(buf, cap, "-cl-std=CL1.2 -DCLSCAN_TYPE=%d -DCLSCAN_OP=%d -DCLSCAN_WG=%u",
                     (int)cfg->type, (int)cfg->op, cfg->wg);
#define APPEND(...)                                               \
  do {                                                            \
    if (len >= 0 && (size_t)len < cap)                            \
      len += snprintf(buf + len, cap - (size_t)len, __VA_ARGS__); \
  } while (0)
  // What is scanned: the input type, the map, the segments.
  if (cfg->in_type != cfg->type)
    APPEND(" -DCLSCAN_IN_TYPE=%d", (int)cfg->in_type);
  if (cfg->map)
    APPEND(" -DCLSCAN_MAP=1");
  if (cfg->segments) {
    APPEND(" -DCLSCAN_SEGMENTS=%d -DCLSCAN_STATE_ALIGN=%u", (int)cfg->segments, cfg->state_align);
    if (cfg->segments == CLSCAN_SEGMENTS_KEYS || cfg->segments == CLSCAN_SEGMENTS_OFFSETS)
      APPEND(" -DCLSCAN_KEY_TYPE=%d", (int)cfg->key_type);
    if (cfg->seg_mask)
      APPEND(" -DCLSCAN_SEG_OFFSETS_MASK=1");
    if (cfg->seg_firsts)
      APPEND(" -DCLSCAN_SEG_OFFSETS_FIRSTS=1");
  }
  if (cfg->state_size)
    APPEND(" -DCLSCAN_STATE_SIZE=%zu", cfg->state_size);
  // Tile kernels: vectors per work-item and 16-byte I/O.
  if (cfg->vpt)
    APPEND(" -DCLSCAN_VPT=%u", cfg->vpt);
  if (cfg->program->vector_io_option)
    APPEND(" -DCLSCAN_VECTOR_IO=%d", cfg->vector_io);
  // CPU single pass: elements per work-group.
  if (cfg->cpu_tile)
    APPEND(" -DCLSCAN_CPU_TILE=%u", cfg->cpu_tile);
  // Device workaround / fast path: NVIDIA inline PTX.
  if (cfg->nv_ptx)
    APPEND(" -DCLSCAN_NV_PTX=1");
  if (cfg->nv_ptx > 1)
    APPEND(" -DCLSCAN_NV_SM=%d", cfg->nv_ptx);
  if (cfg->nv_ptx && cfg->nv_registers)
    APPEND(" -DCLSCAN_NV_REGISTERS=1 -cl-nv-maxrregcount=%u", cfg->nv_registers);
  // The single pass's tile through the look-back: in local memory rather than registers.
  if (cfg->stash)
    APPEND(" -DCLSCAN_STASH=1");
  // Test only: withhold tile publications so that the fallback path runs.
  if (cfg->withhold)
    APPEND(" -DCLSCAN_TEST_WITHHOLD=%u", cfg->withhold);
  // Devices without 64-bit atomics: 32-bit status words.
  if (cfg->status32)
    APPEND(" -DCLSCAN_STATUS32=1");
  // A user-supplied extra string (like CLBlast's CLBLAST_BUILD_OPTIONS).
  const char *extra = clscan__env_string(CLSCAN__ENV_BUILD_OPTIONS);
  if (extra)
    APPEND(" %s", extra);
#undef APPEND
}

/* ============================================================================================== */
/* Building                                                                                       */
/* ============================================================================================== */

/* Copies the first line of a build log that names an error ("error" in any case), without its
 * leading blanks, into first (cap bytes, at least 1); an empty string when there is none. */
static void first_error_line(const char *log, char *first, size_t cap) {
  first[0] = '\0';
  for (const char *line = log; *line;) {
    const char *end = strchr(line, '\n');
    size_t len = end ? (size_t)(end - line) : strlen(line);
    for (size_t i = 0; i + 5 <= len; i++) {
      if (strncasecmp(line + i, "error", 5) == 0) {
        while (len && (*line == ' ' || *line == '\t')) {
          line++;
          len--;
        }
        snprintf(first, cap, "%.*s", (int)(len < cap ? len : cap - 1), line);
        return;
      }
    }
    line += len + (end != NULL);
  }
}

/* Stores a build log in the cache (takes the cache's lock briefly) and copies its first error
 * line into first_error (cap bytes). */
static void keep_build_log(clscan_context *ctx, cl_program program, char *first_error, size_t cap) {
  size_t size = 0;
  first_error[0] = '\0';
  if (clGetProgramBuildInfo(program, ctx->device, CL_PROGRAM_BUILD_LOG, 0, NULL, &size) !=
      CL_SUCCESS)
    return;
  char *log = malloc(size + 1);
  if (!log)
    return;
  if (clGetProgramBuildInfo(program, ctx->device, CL_PROGRAM_BUILD_LOG, size, log, NULL) !=
      CL_SUCCESS)
    size = 0;
  log[size] = '\0';
  first_error_line(log, first_error, cap);
  clscan__program_cache *cache = &ctx->programs;
  pthread_mutex_lock(&cache->lock);
  free(cache->build_log);
  cache->build_log = log;
  pthread_mutex_unlock(&cache->lock);
}

/* The first error line of a failed build, for the calling thread's error detail. */
#define FIRST_ERROR_BYTES 200

/* Creates and builds a program from the user prelude (if any) and the embedded sources; the
 * build log goes to the context, and its first error line to first_error (FIRST_ERROR_BYTES),
 * when first_error is not NULL. */
static clscan_status build_once(clscan_context *ctx, const clscan__kernel_config *cfg,
                                const char *options, char *first_error, cl_program *out) {
  const char *texts[CLSCAN__MAX_FILES + 1];
  size_t lengths[CLSCAN__MAX_FILES + 1];
  cl_uint count = 0;
  if (cfg->user_source) {
    texts[count] = cfg->user_source;
    lengths[count++] = strlen(cfg->user_source);
  }
  for (int f = 0; cfg->program->files[f]; f++) {
    const clscan__kernel_source *src = find_source(cfg->program->files[f]);
    if (!src)
      return clscan__fail(CLSCAN_INTERNAL_ERROR, "kernel source %s missing",
                          cfg->program->files[f]);
    texts[count] = src->text;
    lengths[count++] = src->length;
  }
  cl_int err;
  cl_program program =
      CLSCAN_FAULT_CREATE(err, CL_OUT_OF_HOST_MEMORY,
                          clCreateProgramWithSource(ctx->cl_ctx, count, texts, lengths, &err));
  if (err != CL_SUCCESS)
    return clscan__cl_fail(err, "clCreateProgramWithSource");
  CLSCAN_TEST_ON_BUILD();
  err = CLSCAN_FAULT(CL_BUILD_PROGRAM_FAILURE,
                     clBuildProgram(program, 1, &ctx->device, options, NULL, NULL));
  if (first_error)
    keep_build_log(ctx, program, first_error, FIRST_ERROR_BYTES);
  if (err != CL_SUCCESS) {
    clReleaseProgram(program);
    if (err == CL_BUILD_PROGRAM_FAILURE || err == CL_INVALID_BUILD_OPTIONS)
      return clscan__fail(CLSCAN_BUILD_FAILED,
                          "clBuildProgram returned %s (first error: %s); options %s",
                          clscan__cl_error_name(err),
                          first_error && first_error[0] ? first_error : "none in the log", options);
    return clscan__cl_fail(err, "clBuildProgram");
  }
  *out = program;
  return CLSCAN_SUCCESS;
}

/* Builds a program. When user sources fail to compile, a second build without the type-size
 * check tells a size mismatch from other errors; the log kept is the first build's. */
static clscan_status build_program(clscan_context *ctx, const clscan__kernel_config *cfg,
                                   const char *options, cl_program *out) {
  char first_error[FIRST_ERROR_BYTES] = "";
  clscan_status st = build_once(ctx, cfg, options, first_error, out);
  if (st != CLSCAN_BUILD_FAILED || !cfg->user_source)
    return st;
  char retry_options[600];
  snprintf(retry_options, sizeof retry_options, "%s -DCLSCAN_NO_SIZE_CHECK", options);
  cl_program retry = NULL;
  if (cfg->type == CLSCAN_USER_TYPE || cfg->in_type == CLSCAN_USER_TYPE ||
      (cfg->segments == CLSCAN_SEGMENTS_KEYS && cfg->key_type == CLSCAN_USER_TYPE)) {
    if (build_once(ctx, cfg, retry_options, NULL, &retry) == CLSCAN_SUCCESS) {
      clReleaseProgram(retry);
      return clscan__fail(CLSCAN_TYPE_SIZE_MISMATCH,
                          "type_size (or key_size) differs from the device's sizeof of the user "
                          "type (or key type); see "
                          "clscan_context_build_log()");
    }
  }
  return clscan__fail(CLSCAN_USER_SOURCE_INVALID,
                      "the descriptor's OpenCL C sources did not compile (first error: %s); see "
                      "clscan_context_build_log()",
                      first_error[0] ? first_error : "none in the log");
}

/* ============================================================================================== */
/* The cache                                                                                      */
/* ============================================================================================== */

clscan_status clscan__program_cache_init(clscan__program_cache *cache) {
  memset(cache, 0, sizeof *cache);
  if (pthread_mutex_init(&cache->lock, NULL) != 0)
    return clscan__fail(CLSCAN_OUT_OF_HOST_MEMORY, "program cache lock");
  if (pthread_cond_init(&cache->built, NULL) != 0) {
    pthread_mutex_destroy(&cache->lock);
    return clscan__fail(CLSCAN_OUT_OF_HOST_MEMORY, "program cache condition");
  }
  return CLSCAN_SUCCESS;
}

/* Frees an entry (its program, if any, is released by the caller). */
static void entry_free(clscan__program_entry *e) {
  free(e->options);
  free(e->user);
  free(e);
}

void clscan__program_cache_clear(clscan__program_cache *cache) {
  for (size_t i = 0; i < cache->count; i++) {
    if (cache->entries[i]->program)
      clReleaseProgram(cache->entries[i]->program);
    entry_free(cache->entries[i]);
  }
  free(cache->entries);
  free(cache->build_log);
  pthread_cond_destroy(&cache->built);
  pthread_mutex_destroy(&cache->lock);
  memset(cache, 0, sizeof *cache);
}

/* Finds the entry of a key, built or in progress (the caller holds the lock). */
static clscan__program_entry *cache_find(const clscan__program_cache *cache,
                                         const clscan__program *def, const char *options,
                                         const char *user) {
  for (size_t i = 0; i < cache->count; i++) {
    clscan__program_entry *e = cache->entries[i];
    if (e->def == def && strcmp(e->options, options) == 0 &&
        strcmp(e->user ? e->user : "", user ? user : "") == 0)
      return e;
  }
  return NULL;
}

/* Copies a string (NULL stays NULL); returns 0 when memory ran out. */
static int copy_key(const char *src, char **dst) {
  *dst = NULL;
  if (!src)
    return 1;
  *dst = malloc(strlen(src) + 1);
  if (*dst)
    strcpy(*dst, src);
  return *dst != NULL;
}

/* Inserts an in-progress entry for a key (the caller holds the lock). */
static clscan_status cache_insert(clscan__program_cache *cache, const clscan__kernel_config *cfg,
                                  const char *options, clscan__program_entry **out) {
  if (cache->count == cache->cap) {
    size_t cap = cache->cap ? 2 * cache->cap : 16;
    clscan__program_entry **grown = realloc(cache->entries, cap * sizeof *grown);
    if (!grown)
      return clscan__fail(CLSCAN_OUT_OF_HOST_MEMORY, "program cache");
    cache->entries = grown;
    cache->cap = cap;
  }
  clscan__program_entry *e = calloc(1, sizeof *e);
  if (!e || !copy_key(options, &e->options) || !copy_key(cfg->user_source, &e->user)) {
    if (e)
      entry_free(e);
    return clscan__fail(CLSCAN_OUT_OF_HOST_MEMORY, "program cache key");
  }
  e->def = cfg->program;
  cache->entries[cache->count++] = e;
  *out = e;
  return CLSCAN_SUCCESS;
}

/* Removes an entry whose build failed (the caller holds the lock). */
static void cache_remove(clscan__program_cache *cache, clscan__program_entry *e) {
  for (size_t i = 0; i < cache->count; i++) {
    if (cache->entries[i] == e) {
      cache->entries[i] = cache->entries[--cache->count];
      break;
    }
  }
  entry_free(e);
}

clscan_status clscan__program_get(clscan_context *ctx, const clscan__kernel_config *cfg,
                                  cl_program *program) {
  clscan__program_cache *cache = &ctx->programs;
  char options[512];
  clscan__build_options(cfg, options, sizeof options);
  pthread_mutex_lock(&cache->lock);

  // A cached program is reused; one that another thread is building is waited for.
  clscan__program_entry *e;
  while ((e = cache_find(cache, cfg->program, options, cfg->user_source)) && !e->program)
    pthread_cond_wait(&cache->built, &cache->lock);
  if (e) {
    *program = e->program;
    pthread_mutex_unlock(&cache->lock);
    return CLSCAN_SUCCESS;
  }

  // Otherwise this thread builds it, outside the lock, under an in-progress entry.
  clscan_status st = cache_insert(cache, cfg, options, &e);
  pthread_mutex_unlock(&cache->lock);
  if (st != CLSCAN_SUCCESS)
    return st;
  cl_program built = NULL;
  st = build_program(ctx, cfg, options, &built);
  pthread_mutex_lock(&cache->lock);
  if (st == CLSCAN_SUCCESS) {
    e->program = built;
    *program = built;
  } else {
    cache_remove(cache, e);
  }
  pthread_cond_broadcast(&cache->built);
  pthread_mutex_unlock(&cache->lock);
  return st;
}

void clscan__program_build_log(clscan__program_cache *cache, char *buf, size_t size,
                               size_t *needed) {
  pthread_mutex_lock(&cache->lock);
  const char *log = cache->build_log ? cache->build_log : "";
  size_t len = strlen(log);
  if (needed)
    *needed = len + 1;
  if (size) {
    size_t copy = len < size - 1 ? len : size - 1;
    memcpy(buf, log, copy);
    buf[copy] = '\0';
  }
  pthread_mutex_unlock(&cache->lock);
}

/* Creates the configured kernels from a built program into k (released again on failure). */
static clscan_status create_kernels(const clscan__kernel_config *cfg, cl_program program,
                                    cl_kernel *k) {
  for (int i = 0; i < CLSCAN__MAX_KERNELS && cfg->kernels->name[i]; i++) {
    cl_int err;
    k[i] = CLSCAN_FAULT_CREATE(err, CL_OUT_OF_RESOURCES,
                               clCreateKernel(program, cfg->kernels->name[i], &err));
    if (err != CL_SUCCESS) {
      for (int j = 0; j < i; j++) {
        clReleaseKernel(k[j]);
        k[j] = NULL;
      }
      k[i] = NULL;
      return clscan__cl_fail(err, "clCreateKernel");
    }
  }
  return CLSCAN_SUCCESS;
}

int clscan__kernel_set_ready(pthread_mutex_t *lock, const clscan__algo_kernels *ak) {
  pthread_mutex_lock(lock);
  int ready = ak->ready;
  pthread_mutex_unlock(lock);
  return ready;
}

clscan_status clscan__kernel_set_build(clscan_context *ctx, pthread_mutex_t *lock,
                                       const clscan__kernel_config *cfg, clscan__algo_kernels *ak) {
  cl_program program = NULL;
  CLSCAN_RETURN_IF_ERROR(clscan__program_get(ctx, cfg, &program));
  clscan_status st = CLSCAN_SUCCESS;
  pthread_mutex_lock(lock);
  if (!ak->ready) {
    st = create_kernels(cfg, program, ak->k);
    if (st == CLSCAN_SUCCESS) {
      ak->cfg = *cfg;
      ak->ready = 1;
    }
  }
  pthread_mutex_unlock(lock);
  return st;
}
