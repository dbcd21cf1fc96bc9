/*
 * clscan: the selection family's public entry points (select, partition, unique, run-length
 * encoding): plans, their validation, the enqueue on device buffers and the host-array variant.
 * The algorithms are the single pass (algo_select_single_pass.c) and the multi-pass path over a
 * scan algorithm (algo_select_multi_pass.c), found through the selection registry
 * (algorithms.c). The dispatch follows the scan's six steps (docs/architecture.md): resolve,
 * kernels (built at plan creation), lease a temporary slot, start the chain, enqueue under the
 * plan's lock, release the slot with the chain's last event. The host-array variants are in
 * select_host.c.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* ============================================================================================== */
/* The descriptor                                                                                 */
/* ============================================================================================== */

/* The scan descriptor of a selection's element types, map and extra arguments: common.cl is built
 * from it (a user type needs a user operator there; the selection never calls it, so it is the
 * identity "a"). */
static clscan_scan_desc element_desc(const clscan_select_desc *d, const void *zero) {
  clscan_scan_desc s = {0};
  s.type = d->type;
  s.out_type = d->out_type;
  s.type_source = d->type_source;
  s.type_name = d->type_name;
  s.type_size = d->type_size;
  s.map_source = d->map_source;
  s.algorithm = d->algorithm;
  s.args = d->args;
  s.arg_count = d->arg_count;
  s.op = CLSCAN_ADD;
  if (d->type == CLSCAN_USER_TYPE || d->out_type == CLSCAN_OUT_USER_TYPE) {
    s.op = CLSCAN_USER_OP;
    s.op_source = "a";
    s.identity = zero;
  }
  return s;
}

/* Checks the fields that are the selection's own. */
static clscan_status check_select_fields(const clscan_select_desc *d) {
  if ((unsigned)d->op >= CLSCAN_SELECT_OP_COUNT)
    return clscan__fail(CLSCAN_INVALID_VALUE, "op %d is not a clscan_select_op", (int)d->op);
  if (d->count_size != 0 && d->count_size != 4 && d->count_size != 8)
    return clscan__fail(CLSCAN_INVALID_VALUE, "count_size %zu: counts are 4 or 8 bytes (0: 8)",
                        d->count_size);
  int runs = d->op == CLSCAN_UNIQUE || d->op == CLSCAN_RUN_LENGTH_ENCODE;
  int user = d->type == CLSCAN_USER_TYPE || d->out_type == CLSCAN_OUT_USER_TYPE;
  if (runs && d->predicate_source)
    return clscan__fail(CLSCAN_INVALID_VALUE,
                        "predicate_source is for SELECT and PARTITION, not for runs");
  if (!runs && d->equal_source)
    return clscan__fail(CLSCAN_INVALID_VALUE,
                        "equal_source is for UNIQUE and RUN_LENGTH_ENCODE only");
  if (d->reverse_rejected && d->op != CLSCAN_PARTITION)
    return clscan__fail(CLSCAN_INVALID_VALUE, "reverse_rejected is for PARTITION only");
  if (runs && user && !d->equal_source)
    return clscan__fail(CLSCAN_NULL_ARGUMENT, "runs of a user type need equal_source");
  if (d->arg_count && !d->predicate_source && !d->map_source && !d->equal_source)
    return clscan__fail(CLSCAN_INVALID_VALUE,
                        "extra arguments are read by predicate_source, map_source or "
                        "equal_source, and the descriptor has none of them");
  return CLSCAN_SUCCESS;
}

/* Returns 1 if one of a descriptor's extra arguments is a buffer of a user type. */
static int args_have_user_type(const clscan_select_desc *d) {
  for (size_t k = 0; d->args && k < d->arg_count && k < CLSCAN_MAX_ARGS; k++) {
    if (d->args[k].type == CLSCAN_USER_TYPE)
      return 1;
  }
  return 0;
}

/* Validates a selection descriptor against the context's device (internal.h). */
clscan_status clscan__select_desc_check(const clscan_context *ctx, const clscan_select_desc *d) {
  if (!d)
    return clscan__fail(CLSCAN_NULL_ARGUMENT, "desc is NULL");
  CLSCAN_RETURN_IF_ERROR(check_select_fields(d));
  unsigned char zero[8] = {0};
  const clscan_scan_desc s = element_desc(d, zero);
  // The elements as a scan would check them, without the arguments (whose reader is the
  // predicate, which a scan descriptor has not); type_source may define an argument's type only.
  clscan_scan_desc elements = s;
  elements.args = NULL;
  elements.arg_count = 0;
  int user = d->type == CLSCAN_USER_TYPE || d->out_type == CLSCAN_OUT_USER_TYPE;
  if (!user && args_have_user_type(d))
    elements.type_source = NULL;
  CLSCAN_RETURN_IF_ERROR(clscan__validate_desc(ctx, &elements));
  // a and b are the equality's and the user type's operator's parameters.
  return clscan__validate_arg_list(ctx, &s, 1);
}

/* ============================================================================================== */
/* The prelude                                                                                    */
/* ============================================================================================== */

/* Returns 1 if `src` contains the word `return` (a function body, not an expression). */
static int is_body(const char *src) {
  for (const char *p = strstr(src, "return"); p; p = strstr(p + 1, "return")) {
    int before = p == src || !(isalnum((unsigned char)p[-1]) || p[-1] == '_');
    int after = !(isalnum((unsigned char)p[6]) || p[6] == '_');
    if (before && after)
      return 1;
  }
  return 0;
}

/* Appends to *buf (grown with realloc); returns 0 when memory ran out. */
static int append(char **buf, size_t *len, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static int append(char **buf, size_t *len, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int need = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (need < 0)
    return 0;
  char *grown = realloc(*buf, *len + (size_t)need + 1);
  if (!grown)
    return 0;
  *buf = grown;
  va_start(ap, fmt);
  vsnprintf(*buf + *len, (size_t)need + 1, fmt, ap);
  va_end(ap);
  *len += (size_t)need;
  return 1;
}

/* Appends a user function: `src` is an expression or a body with return; with `names`, the
 * extra arguments are in scope under their names (CLSCAN_XNAMES, from the scan's prelude). */
static int append_function(char **buf, size_t *len, const char *signature, int names,
                           const char *label, const char *src) {
  if (!append(buf, len, "inline __attribute__((always_inline)) %s {\n%s#line 1 \"%s\"\n", signature,
              names ? "  CLSCAN_XNAMES\n" : "", label))
    return 0;
  return is_body(src) ? append(buf, len, "%s\n}\n", src)
                      : append(buf, len, "return (%s\n);\n}\n", src);
}

/* The OpenCL C type of the mapped element as the predicate and equality see it. */
static const char *out_cl_name(const clscan_select_desc *d, clscan_type out) {
  return out == CLSCAN_USER_TYPE ? d->type_name : clscan__type_user_name(out);
}

/* Composes the prelude: the element types and map (prelude.c), then the selection's switches,
 * predicate and equality. */
static clscan_status compose_prelude(const clscan_select_plan *plan, const clscan_select_desc *d,
                                     const clscan_scan_desc *elements, char **out) {
  char *base = NULL, *buf = NULL;
  size_t len = 0;
  CLSCAN_RETURN_IF_ERROR(clscan__user_source(elements, &base));
  const char *o = out_cl_name(d, plan->out_type);
  char signature[512];
  int ok = append(&buf, &len, "%s/* clscan: the selection. */\n", base ? base : "");
  ok = ok && append(&buf, &len,
                    "#define CLSCAN_SELECT_OP %d\n#define CLSCAN_SELECT_PRED %d\n"
                    "#define CLSCAN_SELECT_EQUAL %d\n#define CLSCAN_COUNT_SIZE %zu\n"
                    "#define CLSCAN_SELECT_REVERSE %d\n",
                    (int)d->op, d->predicate_source != NULL, d->equal_source != NULL,
                    plan->count_size, plan->reverse_rejected);
  if (ok && (plan->out_type == CLSCAN_DOUBLE || plan->in_type == CLSCAN_DOUBLE))
    ok = append(&buf, &len, "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n");
  if (ok && d->predicate_source) {
    // CLSCAN_XP is defined before common.cl only where the scan's prelude has arguments.
    snprintf(signature, sizeof signature, "int clscan_user_pred(%s x, ulong i%s)", o,
             d->arg_count ? " CLSCAN_XP" : "");
    ok = append_function(&buf, &len, signature, d->arg_count != 0, "predicate_source",
                         d->predicate_source);
  }
  if (ok && d->equal_source) {
    snprintf(signature, sizeof signature, "int clscan_user_equal(%s a, %s b%s)", o, o,
             d->arg_count ? " CLSCAN_XP" : "");
    ok = append_function(&buf, &len, signature, d->arg_count != 0, "equal_source", d->equal_source);
  }
  size_t lines = 0;
  for (size_t i = 0; ok && i < len; i++)
    lines += buf[i] == '\n';
  ok = ok && append(&buf, &len, "#line %zu\n", lines + 2);
  free(base);
  if (!ok) {
    free(buf);
    return clscan__fail(CLSCAN_OUT_OF_HOST_MEMORY, "selection prelude");
  }
  *out = buf;
  return CLSCAN_SUCCESS;
}

/* ============================================================================================== */
/* Plans                                                                                          */
/* ============================================================================================== */

/* AUTO, as the scans' (plan.c, docs/tuning.md "What AUTO runs"): the single pass where the
 * device has 64-bit atomics (64-bit status words) and on CPU devices without them (32-bit status
 * words, the CPU shape: measured 1.2 to 9.3 times faster than reduce-then-scan's path on rusticl's
 * llvmpipe, docs/tuning.md), else reduce-then-scan's path: no GPU without 64-bit atomics has been
 * measured. */
static clscan_algorithm resolve(const clscan_context *ctx, clscan_algorithm a) {
  if (a != CLSCAN_ALGO_AUTO)
    return a;
  return ctx->info.has_int64_atomics || ctx->info.is_cpu ? CLSCAN_ALGO_SINGLE_PASS
                                                         : CLSCAN_ALGO_REDUCE_THEN_SCAN;
}

/* Local memory the GPU shape's tile may take: what the device has, at most 48 KiB (what
 * NVIDIA's OpenCL gives a work-group), less 8 KiB for the rest of the work-group's state. */
static size_t tile_local_budget(const clscan__device_info *info) {
  cl_ulong local = info->local_mem < 49152 ? info->local_mem : 49152;
  return (size_t)(local > 16384 ? local - 8192 : local / 2);
}

/* The GPU shape's tile (cl/select.cl): tile_wg work-items of `items` elements, tile_vpt 16-byte
 * vectors of the wider element type each (one element of a user type), at most 32 (a work-item's
 * flags are the bits of a word), fewer where the staged tile would not fit in local memory: per
 * element its value (and, for run-length encoding, its head's tile index, a ushort), counted as
 * at least 5 bytes (the tiles of 1-byte types as measured); whole vectors as long as one is left.
 * Large user types take fewer work-items. The single pass loads `vec` elements per vector
 * (cl/select.cl's SEL_VEC) where the items are whole vectors, else 1. */
static void gpu_tile(clscan_select_plan *plan, const clscan__device_info *info, int user) {
  size_t io = plan->in_size > plan->out_size ? plan->in_size : plan->out_size;
  size_t vec = user || io >= 16 ? 1 : 16 / io;
  size_t items = plan->tuning.tile_vpt * vec;
  items = items < 1 ? 1 : items > 32 ? 32 : items;
  size_t per = plan->out_size + (plan->op == CLSCAN_RUN_LENGTH_ENCODE ? 2 : 0);
  per = per < 5 ? 5 : per;
  const size_t budget = tile_local_budget(info);
  const unsigned min_wg = info->is_nvidia ? 32 : 1;
  while (items > 1 && plan->tuning.tile_wg * items * per > budget)
    items -= items > vec && items % vec == 0 ? vec : 1;
  while (plan->tuning.tile_wg > min_wg && plan->tuning.tile_wg * items * per > budget)
    plan->tuning.tile_wg /= 2;
  plan->items = (unsigned)items;
  int gpu_pass = plan->algorithm == CLSCAN_ALGO_SINGLE_PASS && !plan->tuning.single_pass_cpu;
  plan->vec = gpu_pass && vec > 1 && items % vec == 0 ? (unsigned)vec : 1;
}

/* Sizes, algorithm and tuning of a new plan. */
static clscan_status plan_shape(clscan_select_plan *plan, const clscan_select_desc *d,
                                const clscan_scan_desc *elements) {
  plan->op = d->op;
  plan->by_predicate = d->predicate_source != NULL;
  plan->reverse_rejected = d->reverse_rejected != 0;
  plan->in_type = d->type;
  plan->out_type = clscan__out_type(elements);
  plan->common_op = elements->op;
  plan->in_size = clscan__in_size(elements);
  plan->out_size = clscan__out_size(elements);
  plan->count_size = d->count_size ? d->count_size : 8;
  plan->map = d->map_source != NULL;
  plan->arg_count = d->arg_count;
  for (size_t k = 0; k < d->arg_count; k++) {
    plan->args[k] = d->args[k];
    plan->args[k].name = NULL; /* not kept: the caller's strings */
    plan->args[k].type_name = NULL;
  }
  plan->algorithm = resolve(plan->ctx, d->algorithm);
  plan->algo = clscan__select_algorithm_find((int)plan->algorithm);
  if (!plan->algo)
    return clscan__fail(CLSCAN_INTERNAL_ERROR, "no selection algorithm %d", (int)plan->algorithm);
  int user = plan->in_type == CLSCAN_USER_TYPE || plan->out_type == CLSCAN_USER_TYPE;
  size_t io = plan->in_size > plan->out_size ? plan->in_size : plan->out_size;
  // Not a scan (.scan 0): the scan-only rows do not apply; no operator row either.
  const clscan__tuning_key key = {.algorithm = CLSCAN_ALGO_SINGLE_PASS,
                                  .elem_size = user ? 8 : io,
                                  .in_size = plan->in_size,
                                  .state_size = 8,
                                  .user = user,
                                  .op = CLSCAN_USER_OP};
  CLSCAN_RETURN_IF_ERROR(clscan__tuning_for(&plan->ctx->info, &key, NULL, &plan->tuning));
  gpu_tile(plan, &plan->ctx->info, user);
  plan->withhold = clscan__env_unsigned(CLSCAN__ENV_TEST_WITHHOLD, 0, NULL);
  // The single pass's status words: 32-bit ones where the device lacks 64-bit atomics (or a test
  // asks), as the scan's (plan.c).
  plan->status32 = plan->algorithm == CLSCAN_ALGO_SINGLE_PASS &&
                   (!plan->ctx->info.has_int64_atomics ||
                    clscan__env_unsigned(CLSCAN__ENV_TEST_STATUS32, 0, NULL) != 0);
  return CLSCAN_SUCCESS;
}

/* The configuration of the plan's algorithm (vector_io: the vector loads of cl/select.cl). */
static clscan_status plan_config(const clscan_select_plan *plan, int vector_io,
                                 clscan__kernel_config *cfg) {
  memset(cfg, 0, sizeof *cfg);
  cfg->type = plan->out_type;
  cfg->in_type = plan->in_type;
  cfg->op = plan->common_op;
  cfg->map = plan->map;
  cfg->user_source = plan->user_source;
  cfg->vector_io = vector_io;
  return plan->algo->config(plan, cfg);
}

/* Creates the kernels of the plan's algorithm (built through the program cache), with vector
 * loads where the plan has them. */
static clscan_status plan_kernels(clscan_select_plan *plan) {
  clscan__kernel_config cfg;
  CLSCAN_RETURN_IF_ERROR(plan_config(plan, plan->vec > 1, &cfg));
  return clscan__kernel_set_build(plan->ctx, &plan->lock, &cfg, &plan->kernels);
}

/* The kernel set for a request: the plan's vector loads need the input's and the flags' offsets
 * to be multiples of a vector; otherwise the scalar set, built on first use (the build runs
 * without the plan's lock; the program cache builds it once, however many threads ask). */
static clscan_status kernels_for(clscan_select_plan *plan, const clscan__select_request *r,
                                 const clscan__algo_kernels **out) {
  const clscan__buffer *b = r->buf;
  *out = &plan->kernels;
  if (plan->vec <= 1 || (b[CLSCAN__SEL_IN].off % plan->vec == 0 &&
                         (!b[CLSCAN__SEL_FLAGS].mem || b[CLSCAN__SEL_FLAGS].off % plan->vec == 0)))
    return CLSCAN_SUCCESS;
  *out = &plan->unaligned;
  if (clscan__kernel_set_ready(&plan->lock, &plan->unaligned))
    return CLSCAN_SUCCESS;
  clscan__kernel_config cfg;
  CLSCAN_RETURN_IF_ERROR(plan_config(plan, 0, &cfg));
  return clscan__kernel_set_build(plan->ctx, &plan->lock, &cfg, &plan->unaligned);
}

/* The multi-pass path's flag scan: uint8 flags summed exclusively into uint64 positions. */
static clscan_status plan_flag_scan(clscan_select_plan *plan) {
  if (plan->algorithm == CLSCAN_ALGO_SINGLE_PASS)
    return CLSCAN_SUCCESS;
  const clscan_scan_desc s = {.type = CLSCAN_UINT8,
                              .out_type = CLSCAN_OUT_UINT64,
                              .op = CLSCAN_ADD,
                              .exclusive = 1,
                              .algorithm = plan->algorithm};
  return clscan__plan_create(plan->ctx, &s, NULL, &plan->scan);
}

void clscan_select_plan_release(clscan_select_plan *plan) {
  if (!plan)
    return;
  for (int i = 0; i < CLSCAN__MAX_KERNELS; i++) {
    if (plan->kernels.k[i])
      clReleaseKernel(plan->kernels.k[i]);
    if (plan->unaligned.k[i])
      clReleaseKernel(plan->unaligned.k[i]);
  }
  clscan__plan_release(plan->scan);
  free(plan->user_source);
  pthread_mutex_destroy(&plan->lock);
  free(plan);
}

/* Creates a plan for a validated descriptor, without clearing the error detail. */
static clscan_status plan_create(clscan_context *ctx, const clscan_select_desc *desc,
                                 clscan_select_plan **out) {
  clscan_status st = CLSCAN_SUCCESS;
  unsigned char *zero = NULL;
  clscan_select_plan *plan = calloc(1, sizeof *plan);
  if (!plan)
    return clscan__fail(CLSCAN_OUT_OF_HOST_MEMORY, "selection plan");
  plan->ctx = ctx;
  pthread_mutex_init(&plan->lock, NULL);
  zero = calloc(1, desc->type_size > 8 ? desc->type_size : 8);
  if (!zero) {
    st = clscan__fail(CLSCAN_OUT_OF_HOST_MEMORY, "selection plan");
    goto fail;
  }
  const clscan_scan_desc elements = element_desc(desc, zero);
  CLSCAN_TRY(plan_shape(plan, desc, &elements));
  CLSCAN_TRY(compose_prelude(plan, desc, &elements, &plan->user_source));
  CLSCAN_TRY(plan_kernels(plan));
  CLSCAN_TRY(plan_flag_scan(plan));
  free(zero);
  *out = plan;
  return CLSCAN_SUCCESS;
fail:
  free(zero);
  clscan_select_plan_release(plan);
  return st;
}

clscan_status clscan_select_plan_create(clscan_context *ctx, const clscan_select_desc *desc,
                                        clscan_select_plan **out) {
  clscan__clear_error();
  if (!out)
    return clscan__fail(CLSCAN_NULL_ARGUMENT, "out is NULL");
  *out = NULL;
  if (!ctx)
    return clscan__fail(CLSCAN_NULL_ARGUMENT, "ctx is NULL");
  CLSCAN_RETURN_IF_ERROR(clscan__select_desc_check(ctx, desc));
  return plan_create(ctx, desc, out);
}

/* ============================================================================================== */
/* Request validation                                                                             */
/* ============================================================================================== */

/* A buffer's element range, for the checks. */
typedef struct sel_range {
  const char *name;
  cl_mem mem;
  size_t off, count, elem;
  int output;
  clscan__byte_range bytes; /* within the root buffer */
} sel_range;

/* Checks one buffer (context, writability, range) and resolves its bytes. */
static clscan_status check_range(const clscan_context *ctx, sel_range *r) {
  cl_context owner = NULL;
  size_t size = 0;
  cl_mem_flags flags = 0;
  if (clGetMemObjectInfo(r->mem, CL_MEM_CONTEXT, sizeof owner, &owner, NULL) != CL_SUCCESS ||
      clGetMemObjectInfo(r->mem, CL_MEM_SIZE, sizeof size, &size, NULL) != CL_SUCCESS ||
      clGetMemObjectInfo(r->mem, CL_MEM_FLAGS, sizeof flags, &flags, NULL) != CL_SUCCESS)
    return clscan__fail(CLSCAN_INVALID_BUFFER, "%s is not a valid cl_mem", r->name);
  if (owner != ctx->cl_ctx)
    return clscan__fail(CLSCAN_INVALID_BUFFER, "%s belongs to another cl_context", r->name);
  if (r->output && (flags & CL_MEM_READ_ONLY))
    return clscan__fail(CLSCAN_INVALID_BUFFER, "%s is CL_MEM_READ_ONLY", r->name);
  if (r->count > SIZE_MAX / r->elem || r->off > SIZE_MAX / r->elem - r->count)
    return clscan__fail(CLSCAN_SIZE_OVERFLOW, "%s: offset %zu + %zu elements overflows", r->name,
                        r->off, r->count);
  if ((r->off + r->count) * r->elem > size)
    return clscan__fail(CLSCAN_BUFFER_TOO_SMALL,
                        "%s holds %zu bytes; offset %zu + %zu elements need %zu", r->name, size,
                        r->off, r->count, (r->off + r->count) * r->elem);
  return clscan__range_of(r->mem, r->off, r->count, r->elem, &r->bytes);
}

/* Rejects an output range that overlaps any other range (inputs and outputs). */
static clscan_status check_overlaps(const sel_range *r, int count) {
  for (int a = 0; a < count; a++) {
    for (int b = a + 1; b < count; b++) {
      if (!r[a].mem || !r[b].mem || !(r[a].output || r[b].output))
        continue;
      if (clscan__ranges_overlap(&r[a].bytes, &r[b].bytes))
        return clscan__fail(CLSCAN_OVERLAP,
                            "%s bytes [%zu, %zu) and %s bytes [%zu, %zu) overlap%s; selections "
                            "never run in place",
                            r[a].name, r[a].bytes.begin, r[a].bytes.end, r[b].name,
                            r[b].bytes.begin, r[b].bytes.end,
                            clscan__overlap_note(&r[a].bytes, &r[b].bytes));
    }
  }
  return CLSCAN_SUCCESS;
}

/* Checks which buffers the plan's operation needs. */
static clscan_status check_presence(const clscan_select_plan *plan,
                                    const clscan_select_buffers *b) {
  if (!b->in)
    return clscan__fail(CLSCAN_NULL_ARGUMENT, "buffers->in is NULL");
  if (!b->out)
    return clscan__fail(CLSCAN_NULL_ARGUMENT, "buffers->out is NULL");
  if (!b->count)
    return clscan__fail(CLSCAN_NULL_ARGUMENT, "buffers->count is NULL");
  int by_flags = (plan->op == CLSCAN_SELECT || plan->op == CLSCAN_PARTITION) && !plan->by_predicate;
  if (by_flags && !b->flags)
    return clscan__fail(CLSCAN_NULL_ARGUMENT,
                        "buffers->flags is NULL, and the descriptor has no predicate_source");
  if (!by_flags && b->flags)
    return clscan__fail(CLSCAN_INVALID_VALUE, "buffers->flags is given, but the plan selects by %s",
                        plan->by_predicate ? "its predicate" : "runs of equal elements");
  int rle = plan->op == CLSCAN_RUN_LENGTH_ENCODE;
  if (rle && !b->lengths)
    return clscan__fail(CLSCAN_NULL_ARGUMENT, "buffers->lengths is NULL (run-length encoding)");
  if (!rle && b->lengths)
    return clscan__fail(CLSCAN_INVALID_VALUE, "buffers->lengths is only for run-length encoding");
  if (plan->op != CLSCAN_PARTITION && b->rejected)
    return clscan__fail(CLSCAN_INVALID_VALUE, "buffers->rejected is only for partition");
  if (plan->reverse_rejected && b->rejected)
    return clscan__fail(CLSCAN_INVALID_VALUE,
                        "buffers->rejected is given, but the plan writes the rejected elements "
                        "reversed at the end of out (reverse_rejected)");
  return CLSCAN_SUCCESS;
}

/* The names of the extra arguments' values in messages (their descriptors' names are not kept). */
static const char *const value_names[CLSCAN_MAX_ARGS] = {"values[0]", "values[1]", "values[2]",
                                                         "values[3]", "values[4]", "values[5]",
                                                         "values[6]", "values[7]"};

/* Checks value k of an extra argument into x and, for a buffer, its range into *r (checked against
 * the others by the caller). */
static clscan_status check_value(const clscan_select_plan *plan, const clscan_arg_value *v,
                                 size_t k, size_t n, sel_range *r, clscan__extra *x) {
  const clscan_arg *a = &plan->args[k];
  CLSCAN_RETURN_IF_ERROR(clscan__value_take(a, v, k, value_names[k], x));
  if (a->kind == CLSCAN_ARG_SCALAR)
    return CLSCAN_SUCCESS;
  *r = (sel_range){.name = value_names[k],
                   .mem = v->buffer,
                   .off = v->offset,
                   .count = v->length ? v->length : n,
                   .elem = clscan__arg_size(a),
                   .output = a->access == CLSCAN_ARG_READ_WRITE};
  return check_range(plan->ctx, r);
}

/* Checks the values of the plan's extra arguments into x (r: one range per value). */
static clscan_status check_values(const clscan_select_plan *plan, const clscan_select_buffers *b,
                                  size_t n, sel_range *r, clscan__extra *x) {
  memset(x, 0, sizeof *x);
  if (b->value_count != plan->arg_count)
    return clscan__fail(CLSCAN_INVALID_VALUE, "value_count is %zu; the plan has %zu arguments",
                        b->value_count, plan->arg_count);
  if (b->value_count && !b->values)
    return clscan__fail(CLSCAN_NULL_ARGUMENT, "values is NULL with value_count %zu",
                        b->value_count);
  for (size_t k = 0; k < b->value_count; k++)
    CLSCAN_RETURN_IF_ERROR(check_value(plan, &b->values[k], k, n, &r[k], x));
  return CLSCAN_SUCCESS;
}

/* Validates an enqueue and fills the request (x: storage of the extra arguments). */
static clscan_status validate_request(const clscan_select_plan *plan,
                                      const clscan_select_buffers *b, clscan__select_request *req,
                                      clscan__extra *x) {
  const clscan_context *ctx = plan->ctx;
  CLSCAN_RETURN_IF_ERROR(check_presence(plan, b));
  CLSCAN_RETURN_IF_ERROR(clscan__check_wait_list(req->num_wait, req->wait_list));
  if (!req->queue)
    req->queue = ctx->queue;
  CLSCAN_RETURN_IF_ERROR(clscan__check_queue(ctx, req->queue));
  if (plan->count_size == 4 && req->n > UINT32_MAX)
    return clscan__fail(CLSCAN_INVALID_VALUE,
                        "n %zu exceeds what count_size 4 can count (use count_size 8)", req->n);
  if (plan->op == CLSCAN_PARTITION && !b->rejected && b->out_capacity < req->n)
    return clscan__fail(CLSCAN_BUFFER_TOO_SMALL,
                        "a partition into one buffer writes all n %zu elements; out_capacity is "
                        "%zu",
                        req->n, b->out_capacity);
  sel_range r[CLSCAN__SEL_BUFFERS + CLSCAN_MAX_ARGS] = {
      [CLSCAN__SEL_IN] = {.name = "input buffer",
                          .mem = b->in,
                          .off = b->in_offset,
                          .count = req->n,
                          .elem = plan->in_size},
      [CLSCAN__SEL_FLAGS] = {.name = "flags buffer",
                             .mem = b->flags,
                             .off = b->flags_offset,
                             .count = req->n,
                             .elem = 1},
      [CLSCAN__SEL_OUT] = {.name = "output buffer",
                           .mem = b->out,
                           .off = b->out_offset,
                           .count = b->out_capacity,
                           .elem = plan->out_size,
                           .output = 1},
      [CLSCAN__SEL_LENGTHS] = {.name = "lengths buffer",
                               .mem = b->lengths,
                               .off = b->lengths_offset,
                               .count = b->out_capacity,
                               .elem = plan->count_size,
                               .output = 1},
      [CLSCAN__SEL_COUNT] = {.name = "count buffer",
                             .mem = b->count,
                             .off = b->count_offset,
                             .count = 1,
                             .elem = plan->count_size,
                             .output = 1},
      [CLSCAN__SEL_REJECTED] = {.name = "rejected buffer",
                                .mem = b->rejected,
                                .off = b->rejected_offset,
                                .count = b->rejected_capacity,
                                .elem = plan->out_size,
                                .output = 1},
  };
  for (int i = 0; i < CLSCAN__SEL_BUFFERS; i++) {
    if (r[i].mem)
      CLSCAN_RETURN_IF_ERROR(check_range(ctx, &r[i]));
    req->buf[i] = (clscan__buffer){r[i].mem, r[i].off};
  }
  req->capacity = b->out_capacity;
  req->rejected_capacity = b->rejected_capacity;
  CLSCAN_RETURN_IF_ERROR(check_values(plan, b, req->n, r + CLSCAN__SEL_BUFFERS, x));
  req->extra = plan->arg_count ? x : NULL;
  return check_overlaps(r, CLSCAN__SEL_BUFFERS + (int)plan->arg_count);
}

/* ============================================================================================== */
/* Dispatch                                                                                       */
/* ============================================================================================== */

/* The empty selection writes a zero count; others zero a fresh slot first, then run. */
static clscan_status enqueue_locked(const clscan__select_launch *l,
                                    const clscan__temp_lease *lease) {
  const clscan_select_plan *plan = l->plan;
  if (l->req->n == 0) {
    const clscan__select_io io = clscan__select_io_of(plan, l->req);
    const clscan__karg args[] = {CLSCAN__ARG(io.count), CLSCAN__ARG(io.count_off)};
    return clscan__chain_call(l->chain, plan->kernels.k[CLSCAN__SEL_KERNEL_EMPTY], args, 2, 1, 1);
  }
  if (lease->needs_zero)
    CLSCAN_RETURN_IF_ERROR(clscan__chain_zero(l->chain, lease->buf, lease->size));
  return plan->algo->enqueue(l);
}

static clscan_status select_dispatch(clscan_select_plan *plan, const clscan__select_request *r) {
  clscan_status st = CLSCAN_SUCCESS;
  clscan__chain c = {0};
  clscan__temp_lease lease = {.slot = -1};
  clscan__select_launch l = {.plan = plan, .chain = &c, .req = r, .kernels = &plan->kernels};
  if (r->n > 0) {
    CLSCAN_RETURN_IF_ERROR(kernels_for(plan, r, &l.kernels));
    size_t bytes = plan->algo->temp_bytes(plan, r->n);
    cl_uint tickets = plan->algo->tickets ? plan->algo->tickets(plan, r->n) : 0;
    CLSCAN_RETURN_IF_ERROR(clscan__temp_acquire_words(plan->ctx, r->queue, bytes ? bytes : 16,
                                                      tickets, plan->status32 ? 4 : 8, &lease));
    l.temp = lease.buf;
    l.epoch = lease.epoch;
    l.ticket_base = lease.ticket_base;
  }
  CLSCAN_TRY(clscan__chain_start(&c, r->queue, r->num_wait, r->wait_list, lease.wait));
  pthread_mutex_lock(&plan->lock);
  st = enqueue_locked(&l, &lease);
  pthread_mutex_unlock(&plan->lock);
  if (st != CLSCAN_SUCCESS)
    goto fail;
  clscan__temp_release(plan->ctx, &lease, c.last, 0);
  clscan__chain_finish(&c, r->first, r->done);
  return CLSCAN_SUCCESS;

fail:
  clscan__temp_release(plan->ctx, &lease, NULL, clscan__chain_abort(&c));
  return st;
}

clscan_status clscan_select_enqueue_timed(clscan_select_plan *plan, cl_command_queue queue,
                                          const clscan_select_buffers *buffers, size_t n,
                                          cl_uint num_wait, const cl_event *wait_list,
                                          cl_event *first, cl_event *done) {
  clscan__begin_call(first, done);
  if (!plan)
    return clscan__fail(CLSCAN_NULL_ARGUMENT, "plan is NULL");
  if (!buffers)
    return clscan__fail(CLSCAN_NULL_ARGUMENT, "buffers is NULL");
  clscan__select_request req = {.queue = queue,
                                .n = n,
                                .num_wait = num_wait,
                                .wait_list = wait_list,
                                .first = first,
                                .done = done};
  clscan__extra x;
  CLSCAN_RETURN_IF_ERROR(validate_request(plan, buffers, &req, &x));
  return select_dispatch(plan, &req);
}

clscan_status clscan_select_enqueue(clscan_select_plan *plan, cl_command_queue queue,
                                    const clscan_select_buffers *buffers, size_t n,
                                    cl_uint num_wait, const cl_event *wait_list, cl_event *done) {
  return clscan_select_enqueue_timed(plan, queue, buffers, n, num_wait, wait_list, NULL, done);
}
