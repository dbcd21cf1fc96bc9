/*
 * clscan: the public entry points that are not about contexts: names, versions, plans,
 * one-shot scans on device buffers and on host arrays.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* ============================================================================================== */
/* Names and versions                                                                             */
/* ============================================================================================== */

static const char *const type_names[CLSCAN_TYPE_COUNT] = {
    "int32", "uint32", "int64", "uint64", "float", "double", "int8", "uint8", "int16", "uint16"};
static const size_t type_sizes[CLSCAN_TYPE_COUNT] = {4, 4, 8, 8, 4, 8, 1, 1, 2, 2};
static const char *const op_names[CLSCAN_OP_COUNT] = {"add", "mul", "min", "max",
                                                      "and", "or",  "xor"};
static const char *const algorithm_names[CLSCAN_ALGORITHM_COUNT] = {
    "auto", "blelloch", "hillis-steele", "reduce-then-scan", "single-pass"};

size_t clscan_type_size(clscan_type type) {
  return (unsigned)type < CLSCAN_TYPE_COUNT ? type_sizes[type] : 0;
}
const char *clscan_type_name(clscan_type type) {
  return (unsigned)type < CLSCAN_TYPE_COUNT ? type_names[type] : NULL;
}
const char *clscan_op_name(clscan_op op) {
  return (unsigned)op < CLSCAN_OP_COUNT ? op_names[op] : NULL;
}
const char *clscan_algorithm_name(clscan_algorithm algorithm) {
  return (unsigned)algorithm < CLSCAN_ALGORITHM_COUNT ? algorithm_names[algorithm] : NULL;
}

unsigned clscan_version_number(void) { return CLSCAN_VERSION_NUMBER; }
const char *clscan_version_string(void) { return CLSCAN_VERSION_STRING; }

/* ============================================================================================== */
/* Identities                                                                                     */
/* ============================================================================================== */

/* Stores an integer identity of the given size and signedness. */
static void int_identity(clscan_op op, size_t size, int is_signed, void *bytes) {
  uint64_t v = 0;
  uint64_t all = size == 8 ? UINT64_MAX : (((uint64_t)1 << (8 * size)) - 1);
  uint64_t smax = all >> 1;
  switch (op) {
    case CLSCAN_MUL: v = 1; break;
    case CLSCAN_MIN: v = is_signed ? smax : all; break;
    case CLSCAN_MAX: v = is_signed ? smax + 1 : 0; break; /* the sign bit alone: the minimum */
    case CLSCAN_AND: v = all; break;
    default: v = 0; break;
  }
  memcpy(bytes, &v, size); /* little-endian hosts, like every OpenCL device we target */
}

void clscan__identity(clscan_type type, clscan_op op, void *bytes) {
  memset(bytes, 0, 8);
  if (type == CLSCAN_FLOAT) {
    float f = op == CLSCAN_MUL ? 1.0f : op == CLSCAN_MIN ? INFINITY : op == CLSCAN_MAX ? -INFINITY
                                                                                      : 0.0f;
    memcpy(bytes, &f, sizeof f);
  } else if (type == CLSCAN_DOUBLE) {
    double d = op == CLSCAN_MUL ? 1.0 : op == CLSCAN_MIN ? INFINITY : op == CLSCAN_MAX ? -INFINITY
                                                                                     : 0.0;
    memcpy(bytes, &d, sizeof d);
  } else {
    int is_signed = type == CLSCAN_INT8 || type == CLSCAN_INT16 || type == CLSCAN_INT32 ||
                    type == CLSCAN_INT64;
    int_identity(op, clscan_type_size(type), is_signed, bytes);
  }
}

/* ============================================================================================== */
/* Plans                                                                                          */
/* ============================================================================================== */

clscan_status clscan_plan_create(clscan_context *ctx, const clscan_scan_desc *desc,
                                 clscan_plan **out) {
  clscan__clear_error();
  return clscan__plan_create(ctx, desc, out);
}

clscan_status clscan_plan_enqueue_timed(clscan_plan *plan, cl_command_queue queue, cl_mem in,
                                        size_t in_offset, cl_mem out, size_t out_offset, size_t n,
                                        cl_uint num_wait, const cl_event *wait_list,
                                        cl_event *first, cl_event *done) {
  clscan__clear_error();
  if (first) *first = NULL;
  if (done) *done = NULL;
  if (!plan) return clscan__fail(CLSCAN_NULL_ARGUMENT, "plan is NULL");
  clscan__request r = {.queue = queue, .in = in, .out = out, .in_off = in_offset,
                       .out_off = out_offset, .n = n, .num_wait = num_wait,
                       .wait_list = wait_list, .first = first, .done = done};
  clscan_status st = clscan__validate_enqueue(plan->ctx, &r.queue, in, in_offset, out, out_offset,
                                              n, plan->elem_size, num_wait, wait_list, &r.in_place);
  if (st != CLSCAN_SUCCESS) return st;
  return clscan__dispatch(plan, &r);
}

clscan_status clscan_plan_enqueue(clscan_plan *plan, cl_command_queue queue, cl_mem in,
                                  size_t in_offset, cl_mem out, size_t out_offset, size_t n,
                                  cl_uint num_wait, const cl_event *wait_list, cl_event *done) {
  return clscan_plan_enqueue_timed(plan, queue, in, in_offset, out, out_offset, n, num_wait,
                                   wait_list, NULL, done);
}

/* ============================================================================================== */
/* One-shot scans                                                                                 */
/* ============================================================================================== */

/* Returns 1 if a cached plan runs the same kernels as desc. The initial value is not part of the
 * key: one-shot scans pass it with each request, so the cache stays bounded. */
static int same_desc(const clscan_plan *p, const clscan_scan_desc *d) {
  const clscan_scan_desc *q = &p->desc;
  return q->type == d->type && q->op == d->op && !q->exclusive == !d->exclusive &&
         q->algorithm == d->algorithm;
}

/* Finds or creates the context's plan for a descriptor. */
static clscan_status cached_plan(clscan_context *ctx, const clscan_scan_desc *desc,
                                 clscan_plan **out) {
  pthread_mutex_lock(&ctx->lock);
  for (size_t i = 0; i < ctx->plan_count; i++) {
    if (same_desc(ctx->plans[i], desc)) {
      *out = ctx->plans[i];
      pthread_mutex_unlock(&ctx->lock);
      return CLSCAN_SUCCESS;
    }
  }
  pthread_mutex_unlock(&ctx->lock);

  // Plans are built outside the lock (building takes it); a racing twin is discarded.
  clscan_plan *plan = NULL;
  clscan_status st = clscan__plan_create(ctx, desc, &plan);
  if (st != CLSCAN_SUCCESS) return st;
  pthread_mutex_lock(&ctx->lock);
  for (size_t i = 0; i < ctx->plan_count; i++) {
    if (same_desc(ctx->plans[i], desc)) {
      *out = ctx->plans[i];
      pthread_mutex_unlock(&ctx->lock);
      clscan_plan_release(plan);
      return CLSCAN_SUCCESS;
    }
  }
  if (ctx->plan_count == ctx->plan_cap) {
    size_t cap = ctx->plan_cap ? 2 * ctx->plan_cap : 8;
    clscan_plan **grown = realloc(ctx->plans, cap * sizeof *grown);
    if (!grown) {
      pthread_mutex_unlock(&ctx->lock);
      clscan_plan_release(plan);
      return clscan__fail(CLSCAN_OUT_OF_HOST_MEMORY, "plan cache");
    }
    ctx->plans = grown;
    ctx->plan_cap = cap;
  }
  ctx->plans[ctx->plan_count++] = plan;
  pthread_mutex_unlock(&ctx->lock);
  *out = plan;
  return CLSCAN_SUCCESS;
}

clscan_status clscan_scan(clscan_context *ctx, cl_command_queue queue,
                          const clscan_scan_desc *desc, cl_mem in, size_t in_offset, cl_mem out,
                          size_t out_offset, size_t n, cl_uint num_wait, const cl_event *wait_list,
                          cl_event *done) {
  clscan__clear_error();
  if (done) *done = NULL;
  if (!ctx) return clscan__fail(CLSCAN_NULL_ARGUMENT, "ctx is NULL");
  clscan_status st = clscan__validate_desc(ctx, desc);
  if (st != CLSCAN_SUCCESS) return st;
  clscan__request r = {.queue = queue, .in = in, .out = out, .in_off = in_offset,
                       .out_off = out_offset, .n = n, .num_wait = num_wait,
                       .wait_list = wait_list, .done = done, .init_override = 1,
                       .init = desc->init};
  st = clscan__validate_enqueue(ctx, &r.queue, in, in_offset, out, out_offset, n,
                                clscan_type_size(desc->type), num_wait, wait_list, &r.in_place);
  if (st != CLSCAN_SUCCESS) return st;
  clscan_plan *plan = NULL;
  st = cached_plan(ctx, desc, &plan);
  if (st != CLSCAN_SUCCESS) return st;
  return clscan__dispatch(plan, &r);
}

/* Copies host data to a new device buffer (or only allocates it when data is NULL). */
static clscan_status device_buffer(clscan_context *ctx, size_t bytes, cl_mem *buf) {
  cl_int err;
  *buf = CLSCAN_FAULT_CREATE(err, CL_MEM_OBJECT_ALLOCATION_FAILURE,
                             clCreateBuffer(ctx->cl_ctx, CL_MEM_READ_WRITE, bytes, NULL, &err));
  return err == CL_SUCCESS ? CLSCAN_SUCCESS : clscan__cl_fail(err, "clCreateBuffer");
}

clscan_status clscan_scan_host(clscan_context *ctx, const clscan_scan_desc *desc, const void *in,
                               void *out, size_t n) {
  clscan_status st = CLSCAN_SUCCESS;
  cl_mem buf = NULL;
  clscan__clear_error();
  if (!ctx) return clscan__fail(CLSCAN_NULL_ARGUMENT, "ctx is NULL");
  CLSCAN_TRY(clscan__validate_desc(ctx, desc));
  if (n == 0) return CLSCAN_SUCCESS;
  if (!in || !out) return clscan__fail(CLSCAN_NULL_ARGUMENT, "in or out is NULL");
  size_t e = clscan_type_size(desc->type);
  if (n > SIZE_MAX / e) return clscan__fail(CLSCAN_SIZE_OVERFLOW, "n * element size overflows");
  size_t bytes = n * e;

  // Host ranges may be identical (in place) but must not partly overlap.
  const char *a = in, *b = out;
  if (a != b && a < b + bytes && b < a + bytes)
    return clscan__fail(CLSCAN_OVERLAP, "host input and output overlap without being identical");
  if (bytes > ctx->info.max_alloc)
    return clscan__fail(CLSCAN_SIZE_OVERFLOW, "%zu bytes exceed the device's largest allocation",
                        bytes);

  // One device buffer, scanned in place; out is written only after the scan succeeded.
  clscan_plan *plan = NULL;
  CLSCAN_TRY(cached_plan(ctx, desc, &plan));
  CLSCAN_TRY(device_buffer(ctx, bytes, &buf));
  CLSCAN_CL(CLSCAN_FAULT(CL_OUT_OF_RESOURCES, clEnqueueWriteBuffer(ctx->queue, buf, CL_FALSE, 0,
                                                                   bytes, in, 0, NULL, NULL)));
  clscan__request r = {.queue = ctx->queue, .in = buf, .out = buf, .n = n, .in_place = 1,
                       .init_override = 1, .init = desc->init};
  cl_event done = NULL;
  r.done = &done;
  st = clscan__dispatch(plan, &r);
  if (st != CLSCAN_SUCCESS) {
    clFinish(ctx->queue);
    goto fail;
  }
  clReleaseEvent(done);
  CLSCAN_CL(CLSCAN_FAULT(CL_OUT_OF_RESOURCES, clEnqueueReadBuffer(ctx->queue, buf, CL_TRUE, 0,
                                                                  bytes, out, 0, NULL, NULL)));
  clReleaseMemObject(buf);
  return CLSCAN_SUCCESS;
fail:
  if (buf) clReleaseMemObject(buf);
  return st;
}
