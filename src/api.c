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
  if (type == CLSCAN_USER_TYPE)
    return "user";
  return (unsigned)type < CLSCAN_TYPE_COUNT ? type_names[type] : NULL;
}
const char *clscan_op_name(clscan_op op) {
  if (op == CLSCAN_USER_OP)
    return "user";
  return (unsigned)op < CLSCAN_OP_COUNT ? op_names[op] : NULL;
}
const char *clscan_algorithm_name(clscan_algorithm algorithm) {
  return (unsigned)algorithm < CLSCAN_ALGORITHM_COUNT ? algorithm_names[algorithm] : NULL;
}

unsigned clscan_version_number(void) {
  return CLSCAN_VERSION_NUMBER;
}
const char *clscan_version_string(void) {
  return CLSCAN_VERSION_STRING;
}

/* ============================================================================================== */
/* Identities                                                                                     */
/* ============================================================================================== */

/* Stores an integer identity of the given size and signedness. */
static void int_identity(clscan_op op, size_t size, int is_signed, void *bytes) {
  uint64_t v = 0;
  uint64_t all = size == 8 ? UINT64_MAX : (((uint64_t)1 << (8 * size)) - 1);
  uint64_t smax = all >> 1;
  switch (op) {
    case CLSCAN_MUL:
      v = 1;
      break;
    case CLSCAN_MIN:
      v = is_signed ? smax : all;
      break;
    case CLSCAN_MAX:
      v = is_signed ? smax + 1 : 0;
      break; /* the sign bit alone: the minimum */
    case CLSCAN_AND:
      v = all;
      break;
    default:
      v = 0;
      break;
  }
  memcpy(bytes, &v, size); /* little-endian hosts, like every OpenCL device we target */
}

void clscan__identity(clscan_type type, clscan_op op, void *bytes) {
  memset(bytes, 0, 8);
  if (type == CLSCAN_FLOAT) {
    float f = op == CLSCAN_MUL   ? 1.0f
              : op == CLSCAN_MIN ? INFINITY
              : op == CLSCAN_MAX ? -INFINITY
                                 : 0.0f;
    memcpy(bytes, &f, sizeof f);
  } else if (type == CLSCAN_DOUBLE) {
    double d = op == CLSCAN_MUL   ? 1.0
               : op == CLSCAN_MIN ? INFINITY
               : op == CLSCAN_MAX ? -INFINITY
                                  : 0.0;
    memcpy(bytes, &d, sizeof d);
  } else {
    int is_signed =
        type == CLSCAN_INT8 || type == CLSCAN_INT16 || type == CLSCAN_INT32 || type == CLSCAN_INT64;
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

/* Validates and dispatches a request on a plan (aux: the segments' flags or keys, or NULL). */
static clscan_status plan_request(clscan_plan *plan, clscan__request *r) {
  const clscan__sizes sizes = {plan->in_size, plan->out_size, clscan__aux_size(&plan->desc)};
  clscan_status st =
      clscan__validate_enqueue(plan->ctx, &r->queue, r->in, r->in_off, r->aux, r->aux_off, r->out,
                               r->out_off, r->n, &sizes, r->num_wait, r->wait_list, &r->in_place);
  if (st != CLSCAN_SUCCESS)
    return st;
  return clscan__dispatch(plan, r);
}

/* The checks every plan enqueue shares; `segmented` says which entry point was called. */
static clscan_status plan_enqueue(clscan_plan *plan, int segmented, clscan__request *r) {
  clscan__clear_error();
  if (r->first)
    *r->first = NULL;
  if (r->done)
    *r->done = NULL;
  if (!plan)
    return clscan__fail(CLSCAN_NULL_ARGUMENT, "plan is NULL");
  if (segmented && !plan->desc.segments)
    return clscan__fail(CLSCAN_INVALID_VALUE,
                        "the plan is not segmented (desc.segments is CLSCAN_SEGMENTS_NONE)");
  if (!segmented && plan->desc.segments)
    return clscan__fail(CLSCAN_INVALID_VALUE,
                        "a segmented plan runs through clscan_plan_enqueue_segmented()");
  return plan_request(plan, r);
}

clscan_status clscan_plan_enqueue_timed(clscan_plan *plan, cl_command_queue queue, cl_mem in,
                                        size_t in_offset, cl_mem out, size_t out_offset, size_t n,
                                        cl_uint num_wait, const cl_event *wait_list,
                                        cl_event *first, cl_event *done) {
  clscan__request r = {.queue = queue,
                       .in = in,
                       .out = out,
                       .in_off = in_offset,
                       .out_off = out_offset,
                       .n = n,
                       .num_wait = num_wait,
                       .wait_list = wait_list,
                       .first = first,
                       .done = done};
  return plan_enqueue(plan, 0, &r);
}

clscan_status clscan_plan_enqueue(clscan_plan *plan, cl_command_queue queue, cl_mem in,
                                  size_t in_offset, cl_mem out, size_t out_offset, size_t n,
                                  cl_uint num_wait, const cl_event *wait_list, cl_event *done) {
  return clscan_plan_enqueue_timed(plan, queue, in, in_offset, out, out_offset, n, num_wait,
                                   wait_list, NULL, done);
}

clscan_status clscan_plan_enqueue_segmented(clscan_plan *plan, cl_command_queue queue,
                                            cl_mem segments, size_t segments_offset, cl_mem in,
                                            size_t in_offset, cl_mem out, size_t out_offset,
                                            size_t n, cl_uint num_wait, const cl_event *wait_list,
                                            cl_event *first, cl_event *done) {
  clscan__request r = {.queue = queue,
                       .in = in,
                       .out = out,
                       .aux = segments,
                       .in_off = in_offset,
                       .out_off = out_offset,
                       .aux_off = segments_offset,
                       .n = n,
                       .num_wait = num_wait,
                       .wait_list = wait_list,
                       .first = first,
                       .done = done};
  return plan_enqueue(plan, 1, &r);
}

/* ============================================================================================== */
/* One-shot scans                                                                                 */
/* ============================================================================================== */

/* Compares two optional strings. */
static int same_string(const char *a, const char *b) {
  return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

/* Returns 1 if a cached plan runs the same kernels as desc. The initial value is not part of the
 * key: one-shot scans pass it with each request, so the cache stays bounded. */
static int same_desc(const clscan_plan *p, const clscan_scan_desc *d) {
  const clscan_scan_desc *q = &p->desc;
  if (q->type != d->type || q->op != d->op || !q->exclusive != !d->exclusive ||
      q->algorithm != d->algorithm || q->out_type != d->out_type || q->segments != d->segments ||
      q->type_size != d->type_size)
    return 0;
  if (q->segments == CLSCAN_SEGMENTS_KEYS && q->key_type != d->key_type)
    return 0;
  if (!same_string(q->op_source, d->op_source) || !same_string(q->type_source, d->type_source) ||
      !same_string(q->type_name, d->type_name) || !same_string(q->map_source, d->map_source))
    return 0;
  return !q->identity || memcmp(q->identity, d->identity, p->out_size) == 0;
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
  if (st != CLSCAN_SUCCESS)
    return st;
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

/* A one-shot scan: validates, finds the cached plan and dispatches. */
static clscan_status one_shot(clscan_context *ctx, const clscan_scan_desc *desc,
                              clscan__request *r) {
  if (r->done)
    *r->done = NULL;
  if (!ctx)
    return clscan__fail(CLSCAN_NULL_ARGUMENT, "ctx is NULL");
  clscan_status st = clscan__validate_desc(ctx, desc);
  if (st != CLSCAN_SUCCESS)
    return st;
  const clscan__sizes sizes = {clscan__in_size(desc), clscan__out_size(desc),
                               clscan__aux_size(desc)};
  r->init_override = 1;
  r->init = desc->init;
  st = clscan__validate_enqueue(ctx, &r->queue, r->in, r->in_off, r->aux, r->aux_off, r->out,
                                r->out_off, r->n, &sizes, r->num_wait, r->wait_list, &r->in_place);
  if (st != CLSCAN_SUCCESS)
    return st;
  clscan_plan *plan = NULL;
  st = cached_plan(ctx, desc, &plan);
  if (st != CLSCAN_SUCCESS)
    return st;
  return clscan__dispatch(plan, r);
}

clscan_status clscan_scan(clscan_context *ctx, cl_command_queue queue, const clscan_scan_desc *desc,
                          cl_mem in, size_t in_offset, cl_mem out, size_t out_offset, size_t n,
                          cl_uint num_wait, const cl_event *wait_list, cl_event *done) {
  clscan__clear_error();
  clscan__request r = {.queue = queue,
                       .in = in,
                       .out = out,
                       .in_off = in_offset,
                       .out_off = out_offset,
                       .n = n,
                       .num_wait = num_wait,
                       .wait_list = wait_list,
                       .done = done};
  if (desc && desc->segments)
    return clscan__fail(CLSCAN_INVALID_VALUE,
                        "a segmented desc runs through "
                        "clscan_segmented_scan() or clscan_scan_by_key()");
  return one_shot(ctx, desc, &r);
}

/* A one-shot segmented scan of the given kind. */
static clscan_status segmented(clscan_context *ctx, cl_command_queue queue,
                               const clscan_scan_desc *desc, clscan_segments kind, cl_mem aux,
                               size_t aux_off, cl_mem in, size_t in_offset, cl_mem out,
                               size_t out_offset, size_t n, cl_uint num_wait,
                               const cl_event *wait_list, cl_event *done) {
  clscan__clear_error();
  if (done)
    *done = NULL;
  if (!desc)
    return clscan__fail(CLSCAN_NULL_ARGUMENT, "desc is NULL");
  if (desc->segments != CLSCAN_SEGMENTS_NONE && desc->segments != kind)
    return clscan__fail(CLSCAN_INVALID_VALUE, "desc.segments is %d, but this call scans by %s",
                        (int)desc->segments, kind == CLSCAN_SEGMENTS_KEYS ? "keys" : "head flags");
  clscan_scan_desc d = *desc;
  d.segments = kind;
  clscan__request r = {.queue = queue,
                       .in = in,
                       .out = out,
                       .aux = aux,
                       .in_off = in_offset,
                       .out_off = out_offset,
                       .aux_off = aux_off,
                       .n = n,
                       .num_wait = num_wait,
                       .wait_list = wait_list,
                       .done = done};
  return one_shot(ctx, &d, &r);
}

clscan_status clscan_segmented_scan(clscan_context *ctx, cl_command_queue queue,
                                    const clscan_scan_desc *desc, cl_mem flags, size_t flags_offset,
                                    cl_mem in, size_t in_offset, cl_mem out, size_t out_offset,
                                    size_t n, cl_uint num_wait, const cl_event *wait_list,
                                    cl_event *done) {
  return segmented(ctx, queue, desc, CLSCAN_SEGMENTS_HEAD_FLAGS, flags, flags_offset, in, in_offset,
                   out, out_offset, n, num_wait, wait_list, done);
}

clscan_status clscan_scan_by_key(clscan_context *ctx, cl_command_queue queue,
                                 const clscan_scan_desc *desc, cl_mem keys, size_t keys_offset,
                                 cl_mem in, size_t in_offset, cl_mem out, size_t out_offset,
                                 size_t n, cl_uint num_wait, const cl_event *wait_list,
                                 cl_event *done) {
  return segmented(ctx, queue, desc, CLSCAN_SEGMENTS_KEYS, keys, keys_offset, in, in_offset, out,
                   out_offset, n, num_wait, wait_list, done);
}

/* Copies host data to a new device buffer (or only allocates it when data is NULL). */
static clscan_status device_buffer(clscan_context *ctx, size_t bytes, cl_mem *buf) {
  cl_int err;
  *buf = CLSCAN_FAULT_CREATE(err, CL_MEM_OBJECT_ALLOCATION_FAILURE,
                             clCreateBuffer(ctx->cl_ctx, CL_MEM_READ_WRITE, bytes, NULL, &err));
  return err == CL_SUCCESS ? CLSCAN_SUCCESS : clscan__cl_fail(err, "clCreateBuffer");
}

/* Enqueues a non-blocking write of host bytes to the start of a device buffer. */
static clscan_status write_start(clscan_context *ctx, cl_mem buf, const void *data, size_t bytes) {
  cl_int err = CLSCAN_FAULT(CL_OUT_OF_RESOURCES, clEnqueueWriteBuffer(ctx->queue, buf, CL_FALSE, 0,
                                                                      bytes, data, 0, NULL, NULL));
  return err == CL_SUCCESS ? CLSCAN_SUCCESS : clscan__cl_fail(err, "clEnqueueWriteBuffer");
}

/* Checks the host ranges of a host scan: in and out may be identical (in place, same element
 * sizes) but must not otherwise overlap, and out must not overlap the segments at all. */
static clscan_status check_host_ranges(const void *in, size_t in_bytes, void *out, size_t out_bytes,
                                       const void *segments, size_t seg_bytes) {
  const char *a = in, *b = out, *c = segments;
  int same = a == b && in_bytes == out_bytes;
  if (!same && a < b + out_bytes && b < a + in_bytes)
    return clscan__fail(CLSCAN_OVERLAP, "host input and output overlap without being identical");
  if (c && c < b + out_bytes && b < c + seg_bytes)
    return clscan__fail(CLSCAN_OVERLAP, "host output and segments overlap");
  return CLSCAN_SUCCESS;
}

/*
 * Scans host arrays on the context's device and waits: clscan_scan_host, and with `segments` (n
 * flags or keys) clscan_segmented_scan_host. One device buffer holds the input and, after it, the
 * output (or both in place when their sizes agree); the segments get a buffer of their own. `out`
 * is written only after the scan succeeded.
 */
static clscan_status host_scan(clscan_context *ctx, const clscan_scan_desc *desc,
                               const void *segments, const void *in, void *out, size_t n) {
  clscan_status st = CLSCAN_SUCCESS;
  cl_mem buf = NULL, seg = NULL;
  if (n == 0)
    return CLSCAN_SUCCESS;
  if (!in || !out || (desc->segments && !segments))
    return clscan__fail(CLSCAN_NULL_ARGUMENT, "in, out or segments is NULL");
  size_t ei = clscan__in_size(desc), eo = clscan__out_size(desc), es = clscan__aux_size(desc);
  if (n > SIZE_MAX / 2 / (ei + eo + es))
    return clscan__fail(CLSCAN_SIZE_OVERFLOW, "n * element size overflows");
  size_t in_bytes = n * ei, out_bytes = n * eo, seg_bytes = n * es;
  CLSCAN_TRY(check_host_ranges(in, in_bytes, out, out_bytes, segments, seg_bytes));
  size_t out_at = ei == eo ? 0 : (in_bytes + eo - 1) / eo * eo;
  size_t bytes = ei == eo ? in_bytes : out_at + out_bytes;
  if (bytes > ctx->info.max_alloc || seg_bytes > ctx->info.max_alloc)
    return clscan__fail(CLSCAN_SIZE_OVERFLOW, "%zu bytes exceed the device's largest allocation",
                        bytes > seg_bytes ? bytes : seg_bytes);

  clscan_plan *plan = NULL;
  CLSCAN_TRY(cached_plan(ctx, desc, &plan));
  CLSCAN_TRY(device_buffer(ctx, bytes, &buf));
  if (es)
    CLSCAN_TRY(device_buffer(ctx, seg_bytes, &seg));
  CLSCAN_TRY(write_start(ctx, buf, in, in_bytes));
  if (es)
    CLSCAN_TRY(write_start(ctx, seg, segments, seg_bytes));
  clscan__request r = {.queue = ctx->queue,
                       .in = buf,
                       .out = buf,
                       .aux = seg,
                       .n = n,
                       .out_off = out_at / eo,
                       .in_place = ei == eo,
                       .init_override = 1,
                       .init = desc->init};
  cl_event done = NULL;
  r.done = &done;
  st = clscan__dispatch(plan, &r);
  if (st != CLSCAN_SUCCESS) {
    clFinish(ctx->queue);
    goto fail;
  }
  clReleaseEvent(done);
  CLSCAN_CL(CLSCAN_FAULT(CL_OUT_OF_RESOURCES, clEnqueueReadBuffer(ctx->queue, buf, CL_TRUE, out_at,
                                                                  out_bytes, out, 0, NULL, NULL)));
  clReleaseMemObject(buf);
  if (seg)
    clReleaseMemObject(seg);
  return CLSCAN_SUCCESS;
fail:
  // Writes already enqueued read the caller's arrays: they finish before the buffers go.
  clFinish(ctx->queue);
  if (buf)
    clReleaseMemObject(buf);
  if (seg)
    clReleaseMemObject(seg);
  return st;
}

clscan_status clscan_scan_host(clscan_context *ctx, const clscan_scan_desc *desc, const void *in,
                               void *out, size_t n) {
  clscan__clear_error();
  if (!ctx)
    return clscan__fail(CLSCAN_NULL_ARGUMENT, "ctx is NULL");
  clscan_status st = clscan__validate_desc(ctx, desc);
  if (st != CLSCAN_SUCCESS)
    return st;
  if (desc->segments)
    return clscan__fail(CLSCAN_INVALID_VALUE,
                        "a segmented desc runs through clscan_segmented_scan_host()");
  return host_scan(ctx, desc, NULL, in, out, n);
}

clscan_status clscan_segmented_scan_host(clscan_context *ctx, const clscan_scan_desc *desc,
                                         const void *segments, const void *in, void *out,
                                         size_t n) {
  clscan__clear_error();
  if (!ctx)
    return clscan__fail(CLSCAN_NULL_ARGUMENT, "ctx is NULL");
  clscan_status st = clscan__validate_desc(ctx, desc);
  if (st != CLSCAN_SUCCESS)
    return st;
  if (!desc->segments)
    return clscan__fail(CLSCAN_INVALID_VALUE,
                        "desc.segments must be CLSCAN_SEGMENTS_HEAD_FLAGS or CLSCAN_SEGMENTS_KEYS");
  return host_scan(ctx, desc, segments, in, out, n);
}
