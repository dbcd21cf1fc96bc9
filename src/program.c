/*
 * clscan: build options, program building and the per-context program cache.
 *
 * A program is identified by its kind (which cl/ files it concatenates), its build options and
 * the descriptor's user prelude (user type, operator and map), all compared exactly. The cache
 * lives in the context, which is bound to one cl_context and one device, so the full key is
 * (context, device, kind, options, user sources).
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* The cl/ files each program kind concatenates, in order. */
#define MAX_FILES 4
static const char *const program_files[CLSCAN__PROG_COUNT][MAX_FILES + 1] = {
    [CLSCAN__PROG_SEED] = {"common", "seed", NULL},
    [CLSCAN__PROG_REDUCE_THEN_SCAN] = {"common", "tile", "reduce_then_scan", NULL},
    [CLSCAN__PROG_SINGLE_PASS] = {"common", "tile", "status", "single_pass", NULL},
    [CLSCAN__PROG_SINGLE_PASS_CPU] = {"common", "status", "single_pass_cpu", NULL},
    [CLSCAN__PROG_PTX_PROBE] = {"common", "tile", NULL},
};

/* Finds an embedded source by name. */
static const clscan__kernel_source *find_source(const char *name) {
  for (const clscan__kernel_source *s = clscan__kernel_sources; s->name; s++) {
    if (strcmp(s->name, name) == 0)
      return s;
  }
  return NULL;
}

/* ============================================================================================== */
/* The user prelude                                                                               */
/* ============================================================================================== */

/* A growing string; `failed` records an allocation failure, reported once at the end. */
typedef struct text {
  char *buf;
  size_t len, cap;
  int failed;
} text;

static void text_add(text *t, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static void text_add(text *t, const char *fmt, ...) {
  if (t->failed)
    return;
  for (;;) {
    va_list ap;
    va_start(ap, fmt);
    int need = vsnprintf(t->buf ? t->buf + t->len : NULL, t->buf ? t->cap - t->len : 0, fmt, ap);
    va_end(ap);
    if (need < 0) {
      t->failed = 1;
      return;
    }
    if (t->buf && t->len + (size_t)need < t->cap) {
      t->len += (size_t)need;
      return;
    }
    size_t cap = (t->cap ? 2 * t->cap : 1024) + (size_t)need;
    char *grown = realloc(t->buf, cap);
    if (!grown) {
      t->failed = 1;
      return;
    }
    t->buf = grown;
    t->cap = cap;
  }
}

/* OpenCL C names of the built-in types, by clscan_type. */
static const char *const scalar_names[CLSCAN_TYPE_COUNT] = {
    "int", "uint", "long", "ulong", "float", "double", "char", "uchar", "short", "ushort"};

static const char *cl_type_name(const clscan_scan_desc *d, clscan_type t) {
  return t == CLSCAN_USER_TYPE ? d->type_name : scalar_names[t];
}

/* Returns 1 if `src` contains the word `return` (then it is a function body, not an expression). */
static int is_body(const char *src) {
  for (const char *p = strstr(src, "return"); p; p = strstr(p + 1, "return")) {
    int before = p == src || !(isalnum((unsigned char)p[-1]) || p[-1] == '_');
    int after = !(isalnum((unsigned char)p[6]) || p[6] == '_');
    if (before && after)
      return 1;
  }
  return 0;
}

/* Appends a function whose body is user source `src` (an expression or a body with return). */
static void add_function(text *t, const char *signature, const char *label, const char *src) {
  text_add(t, "inline __attribute__((always_inline)) %s {\n#line 1 \"%s\"\n", signature, label);
  if (is_body(src)) {
    text_add(t, "%s\n}\n", src);
  } else {
    text_add(t, "return (%s\n);\n}\n", src);
  }
}

/* Appends clscan_user_identity(), which rebuilds the identity from its bytes. */
static void add_identity(text *t, const char *out, const unsigned char *bytes, size_t size) {
  text_add(t, "inline __attribute__((always_inline)) %s clscan_user_identity(void) {\n", out);
  if (size % 4 == 0) {
    text_add(t, "  union { %s v; uint w[%zu]; } u;\n", out, size / 4);
    for (size_t i = 0; i < size / 4; i++) {
      uint32_t w;
      memcpy(&w, bytes + 4 * i, 4);
      text_add(t, "  u.w[%zu] = 0x%08xu;\n", i, (unsigned)w);
    }
  } else {
    text_add(t, "  union { %s v; uchar b[%zu]; } u;\n", out, size);
    for (size_t i = 0; i < size; i++)
      text_add(t, "  u.b[%zu] = 0x%02x;\n", i, bytes[i]);
  }
  text_add(t, "  return u.v;\n}\n");
}

clscan_status clscan__user_source(const clscan_scan_desc *d, char **out) {
  *out = NULL;
  clscan_type out_type = clscan__out_type(d);
  int user_type = d->type == CLSCAN_USER_TYPE || out_type == CLSCAN_USER_TYPE;
  if (!user_type && d->op != CLSCAN_USER_OP && !d->map_source)
    return CLSCAN_SUCCESS;

  text t = {0};
  const char *in = cl_type_name(d, d->type), *o = cl_type_name(d, out_type);
  text_add(&t, "/* clscan: the descriptor's user sources. */\n");
  if (d->type == CLSCAN_DOUBLE || out_type == CLSCAN_DOUBLE)
    text_add(&t, "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n");
  if (user_type) {
    if (d->type_source)
      text_add(&t, "#line 1 \"type_source\"\n%s\n", d->type_source);
    text_add(&t, "#define CLSCAN_USER_TYPE_NAME %s\n#define CLSCAN_USER_TYPE_SIZE %zu\n",
             d->type_name, d->type_size);
  }
  char signature[512];
  if (d->op == CLSCAN_USER_OP) {
    snprintf(signature, sizeof signature, "%s clscan_user_op(%s a, %s b)", o, o, o);
    add_function(&t, signature, "op_source", d->op_source);
    add_identity(&t, o, d->identity, clscan__out_size(d));
  }
  if (d->map_source) {
    snprintf(signature, sizeof signature, "%s clscan_user_map(%s x, ulong i)", o, in);
    add_function(&t, signature, "map_source", d->map_source);
  }
  // Line numbers after the prelude are physical again (compiler and Oclgrind messages refer to
  // them); the directive is on line lines + 1, so the next line is lines + 2.
  size_t lines = 0;
  for (size_t i = 0; t.buf && i < t.len; i++)
    lines += t.buf[i] == '\n';
  text_add(&t, "#line %zu\n", lines + 2);
  if (t.failed) {
    free(t.buf);
    return clscan__fail(CLSCAN_OUT_OF_HOST_MEMORY, "user prelude");
  }
  *out = t.buf;
  return CLSCAN_SUCCESS;
}

/* ============================================================================================== */
/* Build options and programs                                                                     */
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
    if (cfg->segments == CLSCAN_SEGMENTS_KEYS)
      APPEND(" -DCLSCAN_KEY_TYPE=%d", (int)cfg->key_type);
  }
  if (cfg->state_size)
    APPEND(" -DCLSCAN_STATE_SIZE=%zu", cfg->state_size);
  // Tile kernels: vectors per work-item and 16-byte I/O.
  if (cfg->vpt)
    APPEND(" -DCLSCAN_VPT=%u", cfg->vpt);
  if (cfg->program != CLSCAN__PROG_SEED)
    APPEND(" -DCLSCAN_VECTOR_IO=%d", cfg->vector_io);
  // CPU single pass: elements per work-group.
  if (cfg->cpu_tile)
    APPEND(" -DCLSCAN_CPU_TILE=%u", cfg->cpu_tile);
  // Device workaround / fast path: NVIDIA inline PTX.
  if (cfg->nv_ptx)
    APPEND(" -DCLSCAN_NV_PTX=1");
  // Test only: withhold tile publications so that the fallback path runs.
  if (cfg->withhold)
    APPEND(" -DCLSCAN_TEST_WITHHOLD=%u", cfg->withhold);
  // A user-supplied extra string (like CLBlast's CLBLAST_BUILD_OPTIONS).
  const char *extra = getenv("CLSCAN_BUILD_OPTIONS");
  if (extra && *extra)
    APPEND(" %s", extra);
#undef APPEND
}

/* Stores a build log in the context (the caller holds the lock). */
static void keep_build_log(clscan_context *ctx, cl_program program) {
  size_t size = 0;
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
  free(ctx->build_log);
  ctx->build_log = log;
}

/* Creates and builds a program from the user prelude (if any) and the embedded sources; the
 * build log goes to the context when keep_log is set (the caller holds the lock). */
static clscan_status build_once(clscan_context *ctx, const clscan__kernel_config *cfg,
                                const char *options, int keep_log, cl_program *out) {
  const char *texts[MAX_FILES + 1];
  size_t lengths[MAX_FILES + 1];
  cl_uint count = 0;
  if (cfg->user_source) {
    texts[count] = cfg->user_source;
    lengths[count++] = strlen(cfg->user_source);
  }
  for (int f = 0; program_files[cfg->program][f]; f++) {
    const clscan__kernel_source *src = find_source(program_files[cfg->program][f]);
    if (!src)
      return clscan__fail(CLSCAN_INTERNAL_ERROR, "kernel source %s missing",
                          program_files[cfg->program][f]);
    texts[count] = src->text;
    lengths[count++] = src->length;
  }
  cl_int err;
  cl_program program =
      CLSCAN_FAULT_CREATE(err, CL_OUT_OF_HOST_MEMORY,
                          clCreateProgramWithSource(ctx->cl_ctx, count, texts, lengths, &err));
  if (err != CL_SUCCESS)
    return clscan__cl_fail(err, "clCreateProgramWithSource");
  err = CLSCAN_FAULT(CL_BUILD_PROGRAM_FAILURE,
                     clBuildProgram(program, 1, &ctx->device, options, NULL, NULL));
  if (keep_log)
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

/* Builds a program (the caller holds the lock). When user sources fail to compile, a second
 * build without the type-size check tells a size mismatch from other errors; the log kept is
 * the first build's. */
static clscan_status build_program(clscan_context *ctx, const clscan__kernel_config *cfg,
                                   const char *options, cl_program *out) {
  clscan_status st = build_once(ctx, cfg, options, 1, out);
  if (st != CLSCAN_BUILD_FAILED || !cfg->user_source)
    return st;
  char retry_options[600];
  snprintf(retry_options, sizeof retry_options, "%s -DCLSCAN_NO_SIZE_CHECK", options);
  cl_program retry = NULL;
  if (cfg->type == CLSCAN_USER_TYPE || cfg->in_type == CLSCAN_USER_TYPE) {
    if (build_once(ctx, cfg, retry_options, 0, &retry) == CLSCAN_SUCCESS) {
      clReleaseProgram(retry);
      return clscan__fail(CLSCAN_TYPE_SIZE_MISMATCH,
                          "type_size differs from the device's sizeof of the user type; see "
                          "clscan_context_build_log()");
    }
  }
  return clscan__fail(CLSCAN_USER_SOURCE_INVALID,
                      "the descriptor's OpenCL C sources did not compile; see "
                      "clscan_context_build_log()");
}

/* Appends a built program to the cache (the caller holds the lock). */
static clscan_status cache_insert(clscan_context *ctx, const clscan__kernel_config *cfg,
                                  const char *options, cl_program program) {
  if (ctx->program_count == ctx->program_cap) {
    size_t cap = ctx->program_cap ? 2 * ctx->program_cap : 16;
    clscan__program_entry *grown = realloc(ctx->programs, cap * sizeof *grown);
    if (!grown)
      return clscan__fail(CLSCAN_OUT_OF_HOST_MEMORY, "program cache");
    ctx->programs = grown;
    ctx->program_cap = cap;
  }
  char *copy = malloc(strlen(options) + 1);
  char *user = cfg->user_source ? malloc(strlen(cfg->user_source) + 1) : NULL;
  if (!copy || (cfg->user_source && !user)) {
    free(copy);
    free(user);
    return clscan__fail(CLSCAN_OUT_OF_HOST_MEMORY, "program cache key");
  }
  strcpy(copy, options);
  if (user)
    strcpy(user, cfg->user_source);
  ctx->programs[ctx->program_count++] = (clscan__program_entry){copy, user, cfg->program, program};
  return CLSCAN_SUCCESS;
}

clscan_status clscan__program_get(clscan_context *ctx, const clscan__kernel_config *cfg,
                                  cl_program *program) {
  char options[512];
  clscan__build_options(cfg, options, sizeof options);
  const char *user = cfg->user_source ? cfg->user_source : "";
  clscan_status st = CLSCAN_SUCCESS;
  pthread_mutex_lock(&ctx->lock);

  // A cached program with the same kind and options is reused.
  for (size_t i = 0; i < ctx->program_count; i++) {
    clscan__program_entry *e = &ctx->programs[i];
    if (e->kind == cfg->program && strcmp(e->options, options) == 0 &&
        strcmp(e->user ? e->user : "", user) == 0) {
      *program = e->program;
      pthread_mutex_unlock(&ctx->lock);
      return CLSCAN_SUCCESS;
    }
  }

  // Otherwise build it under the lock, so that concurrent callers never build twice.
  cl_program built = NULL;
  st = build_program(ctx, cfg, options, &built);
  if (st == CLSCAN_SUCCESS) {
    st = cache_insert(ctx, cfg, options, built);
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
    free(ctx->programs[i].user);
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
    clscan__kernel_config cfg = {
        .program = CLSCAN__PROG_PTX_PROBE, .wg = 256, .vpt = 1, .nv_ptx = 1};
    cl_program probe = NULL;
    clscan_status st = clscan__program_get(ctx, &cfg, &probe);
    // A compile error means no PTX here, for good; any other failure is reported, not cached.
    if (st != CLSCAN_SUCCESS && st != CLSCAN_BUILD_FAILED)
      return st;
    ok = st == CLSCAN_SUCCESS;
    clscan__clear_error();
  }
  pthread_mutex_lock(&ctx->lock);
  ctx->nv_ptx = ok;
  pthread_mutex_unlock(&ctx->lock);
  *has = ok;
  return CLSCAN_SUCCESS;
}
