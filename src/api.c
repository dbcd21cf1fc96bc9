/*
 * clscan: the public entry points that are not about contexts: algorithm names, versions, plans
 * and their tuning, one-shot scans on device buffers and on host arrays. Each checks its
 * arguments (validate.c) before it hands anything to the layers below.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* ============================================================================================== */
/* Names and versions                                                                             */
/* ============================================================================================== */

const char *clscan_algorithm_name(clscan_algorithm algorithm) {
  if (algorithm == CLSCAN_ALGO_AUTO)
    return "auto";
  const clscan__algorithm *a = clscan__algorithm_find(CLSCAN__FAMILY_SCAN, (int)algorithm);
  return a ? a->name : NULL;
}

unsigned clscan_version_number(void) {
  return CLSCAN_VERSION_NUMBER;
}
const char *clscan_version_string(void) {
  return CLSCAN_VERSION_STRING;
}

/* ============================================================================================== */
/* Plans                                                                                          */
/* ============================================================================================== */

/* Creates a plan after checking the arguments. */
static clscan_status plan_create(clscan_context *ctx, const clscan_scan_desc *desc,
                                 const clscan_tuning *tuning, clscan_plan **out) {
  clscan__clear_error();
  if (!out)
    return clscan__fail(CLSCAN_NULL_ARGUMENT, "out is NULL");
  *out = NULL;
  if (!ctx)
    return clscan__fail(CLSCAN_NULL_ARGUMENT, "ctx is NULL");
  CLSCAN_RETURN_IF_ERROR(clscan__validate_desc(ctx, desc));
  return clscan__plan_create(ctx, desc, tuning, out);
}

clscan_status clscan_plan_create(clscan_context *ctx, const clscan_scan_desc *desc,
                                 clscan_plan **out) {
  return plan_create(ctx, desc, NULL, out);
}

clscan_status clscan_plan_create_tuned(clscan_context *ctx, const clscan_scan_desc *desc,
                                       const clscan_tuning *tuning, clscan_plan **out) {
  return plan_create(ctx, desc, tuning, out);
}

clscan_status clscan_plan_get_tuning(const clscan_plan *plan, clscan_tuning *out) {
  clscan__clear_error();
  if (!plan || !out)
    return clscan__fail(CLSCAN_NULL_ARGUMENT, "plan or out is NULL");
  clscan__tuning_export(&plan->tuning, out);
  return CLSCAN_SUCCESS;
}

clscan_status clscan_context_default_tuning(const clscan_context *ctx, const clscan_scan_desc *desc,
                                            clscan_tuning *out) {
  clscan__clear_error();
  if (!ctx || !out)
    return clscan__fail(CLSCAN_NULL_ARGUMENT, "ctx or out is NULL");
  CLSCAN_RETURN_IF_ERROR(clscan__validate_desc(ctx, desc));
  clscan__tuning t;
  CLSCAN_RETURN_IF_ERROR(clscan__plan_default_tuning(ctx, desc, &t));
  clscan__tuning_export(&t, out);
  return CLSCAN_SUCCESS;
}

clscan_algorithm clscan_plan_algorithm(const clscan_plan *plan, size_t n) {
  return plan ? clscan__plan_resolve(plan, n) : CLSCAN_ALGO_AUTO;
}

void clscan_plan_release(clscan_plan *plan) {
  clscan__plan_release(plan);
}

/* Validates and dispatches a request on a plan (aux: the segments' flags or keys, or NULL), with
 * the run arguments of clscan_plan_enqueue_args() when `run` is not NULL. */
static clscan_status plan_request(clscan_plan *plan, clscan__request *r,
                                  const clscan_run_args *run) {
  const clscan__sizes sizes = {
      .in = plan->in_size, .out = plan->out_size, .aux = clscan__aux_size(&plan->desc)};
  CLSCAN_RETURN_IF_ERROR(clscan__validate_request(plan->ctx, &sizes, r));
  clscan__extra x;
  if (run)
    CLSCAN_RETURN_IF_ERROR(clscan__validate_run(plan, run, 0, r, &x));
  return clscan__dispatch(plan, r);
}

/* Returns 1 if a descriptor's kernels take values only clscan_plan_enqueue_args() gives. */
static int needs_run_args(const clscan_scan_desc *desc) {
  return desc->arg_count || desc->device_init;
}

/* Refuses a descriptor with extra arguments or a device initial value in a call without them. */
static clscan_status check_no_run_args(const clscan_scan_desc *desc) {
  if (desc && needs_run_args(desc))
    return clscan__fail(CLSCAN_INVALID_VALUE,
                        "a desc with args or device_init runs through a plan's "
                        "clscan_plan_enqueue_args() or clscan_plan_enqueue_reduce_args()");
  return CLSCAN_SUCCESS;
}

/* The checks every plan enqueue shares; `segmented` says which entry point was called. */
static clscan_status plan_enqueue(clscan_plan *plan, int segmented, clscan__request *r) {
  clscan__begin_call(r->first, r->done);
  if (!plan)
    return clscan__fail(CLSCAN_NULL_ARGUMENT, "plan is NULL");
  CLSCAN_RETURN_IF_ERROR(check_no_run_args(&plan->desc));
  if (segmented && !plan->desc.segments)
    return clscan__fail(CLSCAN_INVALID_VALUE,
                        "the plan is not segmented (desc.segments is CLSCAN_SEGMENTS_NONE)");
  if (!segmented && plan->desc.segments)
    return clscan__fail(CLSCAN_INVALID_VALUE,
                        "a segmented plan runs through clscan_plan_enqueue_segmented()");
  if (plan->desc.segments == CLSCAN_SEGMENTS_OFFSETS)
    return clscan__fail(CLSCAN_INVALID_VALUE,
                        "an offsets plan runs through clscan_plan_enqueue_offsets()");
  return plan_request(plan, r, NULL);
}

clscan_status clscan_plan_enqueue_timed(clscan_plan *plan, cl_command_queue queue, cl_mem in,
                                        size_t in_offset, cl_mem out, size_t out_offset, size_t n,
                                        cl_uint num_wait, const cl_event *wait_list,
                                        cl_event *first, cl_event *done) {
  clscan__request r = {
      .queue = queue,
      .buf = {[CLSCAN__BUF_IN] = {in, in_offset}, [CLSCAN__BUF_OUT] = {out, out_offset}},
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
                       .buf = {[CLSCAN__BUF_IN] = {in, in_offset},
                               [CLSCAN__BUF_OUT] = {out, out_offset},
                               [CLSCAN__BUF_AUX] = {segments, segments_offset}},
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

/* A one-shot scan: validates, finds the cached plan and dispatches. */
static clscan_status one_shot(clscan_context *ctx, const clscan_scan_desc *desc,
                              clscan__request *r) {
  if (r->done)
    *r->done = NULL;
  if (!ctx)
    return clscan__fail(CLSCAN_NULL_ARGUMENT, "ctx is NULL");
  CLSCAN_RETURN_IF_ERROR(clscan__validate_desc(ctx, desc));
  CLSCAN_RETURN_IF_ERROR(check_no_run_args(desc));
  const clscan__sizes sizes = {
      .in = clscan__in_size(desc), .out = clscan__out_size(desc), .aux = clscan__aux_size(desc)};
  r->init_override = 1;
  r->init = desc->init;
  CLSCAN_RETURN_IF_ERROR(clscan__validate_request(ctx, &sizes, r));
  clscan_plan *plan = NULL;
  CLSCAN_RETURN_IF_ERROR(clscan__plan_cache_get(ctx, desc, &plan));
  return clscan__dispatch(plan, r);
}

clscan_status clscan_scan(clscan_context *ctx, cl_command_queue queue, const clscan_scan_desc *desc,
                          cl_mem in, size_t in_offset, cl_mem out, size_t out_offset, size_t n,
                          cl_uint num_wait, const cl_event *wait_list, cl_event *done) {
  clscan__clear_error();
  clscan__request r = {
      .queue = queue,
      .buf = {[CLSCAN__BUF_IN] = {in, in_offset}, [CLSCAN__BUF_OUT] = {out, out_offset}},
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
  clscan__begin_call(NULL, done);
  if (!desc)
    return clscan__fail(CLSCAN_NULL_ARGUMENT, "desc is NULL");
  if (desc->segments != CLSCAN_SEGMENTS_NONE && desc->segments != kind)
    return clscan__fail(CLSCAN_INVALID_VALUE, "desc.segments is %d, but this call scans by %s",
                        (int)desc->segments, kind == CLSCAN_SEGMENTS_KEYS ? "keys" : "head flags");
  clscan_scan_desc d = *desc;
  d.segments = kind;
  clscan__request r = {.queue = queue,
                       .buf = {[CLSCAN__BUF_IN] = {in, in_offset},
                               [CLSCAN__BUF_OUT] = {out, out_offset},
                               [CLSCAN__BUF_AUX] = {aux, aux_off}},
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

/* The byte layout of a host scan's device buffers. */
typedef struct host_layout {
  size_t in_bytes, out_bytes, seg_bytes;
  size_t out_at; /* byte offset of the output in the data buffer */
  size_t bytes;  /* bytes of the data buffer */
  size_t eo;     /* bytes per output element */
  int in_place;
} host_layout;

/* Checks a host scan's arrays and lays out its device buffers: one holds the input and, after
 * it, the output (or both in place when their sizes agree); the segments get a buffer of their
 * own. */
static clscan_status host_check(const clscan_context *ctx, const clscan_scan_desc *desc,
                                const void *segments, const void *in, void *out, size_t n,
                                host_layout *h) {
  if (!in || !out || (desc->segments && !segments))
    return clscan__fail(CLSCAN_NULL_ARGUMENT, "in, out or segments is NULL");
  size_t ei = clscan__in_size(desc), eo = clscan__out_size(desc), es = clscan__aux_size(desc);
  if (n > SIZE_MAX / 2 / (ei + eo + es))
    return clscan__fail(CLSCAN_SIZE_OVERFLOW, "n * element size overflows");
  h->in_bytes = n * ei;
  h->out_bytes = n * eo;
  h->seg_bytes = n * es;
  h->eo = eo;
  h->in_place = ei == eo;
  CLSCAN_RETURN_IF_ERROR(
      clscan__check_host_ranges(in, h->in_bytes, out, h->out_bytes, segments, h->seg_bytes));
  h->out_at = ei == eo ? 0 : (h->in_bytes + eo - 1) / eo * eo;
  h->bytes = ei == eo ? h->in_bytes : h->out_at + h->out_bytes;
  if (h->bytes > ctx->info.max_alloc || h->seg_bytes > ctx->info.max_alloc)
    return clscan__fail(CLSCAN_SIZE_OVERFLOW, "%zu bytes exceed the device's largest allocation",
                        h->bytes > h->seg_bytes ? h->bytes : h->seg_bytes);
  return CLSCAN_SUCCESS;
}

/*
 * Scans host arrays on the context's device and waits: clscan_scan_host, and with `segments` (n
 * flags or keys) clscan_segmented_scan_host. `out` is written only after the scan succeeded.
 */
static clscan_status host_scan(clscan_context *ctx, const clscan_scan_desc *desc,
                               const void *segments, const void *in, void *out, size_t n) {
  clscan_status st = CLSCAN_SUCCESS;
  cl_mem buf = NULL, seg = NULL;
  host_layout h = {0};
  CLSCAN_RETURN_IF_ERROR(check_no_run_args(desc));
  if (n == 0)
    return CLSCAN_SUCCESS;
  CLSCAN_RETURN_IF_ERROR(host_check(ctx, desc, segments, in, out, n, &h));
  clscan_plan *plan = NULL;
  CLSCAN_RETURN_IF_ERROR(clscan__plan_cache_get(ctx, desc, &plan));

  CLSCAN_TRY(device_buffer(ctx, h.bytes, &buf));
  if (h.seg_bytes)
    CLSCAN_TRY(device_buffer(ctx, h.seg_bytes, &seg));
  CLSCAN_TRY(write_start(ctx, buf, in, h.in_bytes));
  if (h.seg_bytes)
    CLSCAN_TRY(write_start(ctx, seg, segments, h.seg_bytes));
  cl_event done = NULL;
  clscan__request r = {.queue = ctx->queue,
                       .buf = {[CLSCAN__BUF_IN] = {buf, 0},
                               [CLSCAN__BUF_OUT] = {buf, h.out_at / h.eo},
                               [CLSCAN__BUF_AUX] = {seg, 0}},
                       .n = n,
                       .in_place = h.in_place,
                       .init_override = 1,
                       .init = desc->init,
                       .done = &done};
  CLSCAN_TRY(clscan__dispatch(plan, &r));
  clReleaseEvent(done);
  CLSCAN_CL(CLSCAN_FAULT(
      CL_OUT_OF_RESOURCES,
      clEnqueueReadBuffer(ctx->queue, buf, CL_TRUE, h.out_at, h.out_bytes, out, 0, NULL, NULL)));
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
  CLSCAN_RETURN_IF_ERROR(clscan__validate_desc(ctx, desc));
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
  CLSCAN_RETURN_IF_ERROR(clscan__validate_desc(ctx, desc));
  if (!desc->segments || desc->segments == CLSCAN_SEGMENTS_OFFSETS)
    return clscan__fail(CLSCAN_INVALID_VALUE,
                        "desc.segments must be CLSCAN_SEGMENTS_HEAD_FLAGS or CLSCAN_SEGMENTS_KEYS "
                        "(offsets: clscan_segmented_scan_offsets_host())");
  return host_scan(ctx, desc, segments, in, out, n);
}

/* ============================================================================================== */
/* Reductions                                                                                     */
/* ============================================================================================== */

/* Rejects segmented descriptors: a reduction has no segments. */
static clscan_status check_unsegmented(const clscan_scan_desc *desc) {
  if (desc->segments)
    return clscan__fail(CLSCAN_INVALID_VALUE,
                        "a reduction is not segmented (desc.segments must be "
                        "CLSCAN_SEGMENTS_NONE)");
  return CLSCAN_SUCCESS;
}

/* Checks and dispatches a reduction on a plan (n input elements, one output element); with_args:
 * clscan_plan_enqueue_reduce_args() and its run arguments (run may be NULL). */
static clscan_status reduce_enqueue(clscan_plan *plan, clscan__request *r, int with_args,
                                    const clscan_run_args *run) {
  clscan__begin_call(r->first, r->done);
  if (!plan)
    return clscan__fail(CLSCAN_NULL_ARGUMENT, "plan is NULL");
  CLSCAN_RETURN_IF_ERROR(check_unsegmented(&plan->desc));
  if (!with_args)
    CLSCAN_RETURN_IF_ERROR(check_no_run_args(&plan->desc));
  if (run && run->segments)
    return clscan__fail(CLSCAN_INVALID_VALUE, "a reduction has no segments");
  const clscan__sizes sizes = {.in = plan->in_size, .out = plan->out_size, .out_one = 1};
  CLSCAN_RETURN_IF_ERROR(clscan__validate_request(plan->ctx, &sizes, r));
  clscan__extra x;
  if (with_args)
    CLSCAN_RETURN_IF_ERROR(clscan__validate_run(plan, run, 1, r, &x));
  return clscan__dispatch_algorithm(plan, CLSCAN__FAMILY_REDUCE, CLSCAN__REDUCE_TWO_PASS, r);
}

/* The request of a reduction enqueue, checked and dispatched by reduce_enqueue(). */
static clscan_status reduce_call(clscan_plan *plan, cl_command_queue queue, cl_mem in,
                                 size_t in_offset, cl_mem out, size_t out_offset, size_t n,
                                 int with_args, const clscan_run_args *run, cl_uint num_wait,
                                 const cl_event *wait_list, cl_event *first, cl_event *done) {
  clscan__request r = {
      .queue = queue,
      .buf = {[CLSCAN__BUF_IN] = {in, in_offset}, [CLSCAN__BUF_OUT] = {out, out_offset}},
      .n = n,
      .num_wait = num_wait,
      .wait_list = wait_list,
      .first = first,
      .done = done};
  return reduce_enqueue(plan, &r, with_args, run);
}

clscan_status clscan_plan_enqueue_reduce(clscan_plan *plan, cl_command_queue queue, cl_mem in,
                                         size_t in_offset, cl_mem out, size_t out_offset, size_t n,
                                         cl_uint num_wait, const cl_event *wait_list,
                                         cl_event *done) {
  return reduce_call(plan, queue, in, in_offset, out, out_offset, n, 0, NULL, num_wait, wait_list,
                     NULL, done);
}

clscan_status clscan_plan_enqueue_reduce_timed(clscan_plan *plan, cl_command_queue queue, cl_mem in,
                                               size_t in_offset, cl_mem out, size_t out_offset,
                                               size_t n, cl_uint num_wait,
                                               const cl_event *wait_list, cl_event *first,
                                               cl_event *done) {
  return reduce_call(plan, queue, in, in_offset, out, out_offset, n, 0, NULL, num_wait, wait_list,
                     first, done);
}

/* The byte layout of a host reduction's device buffer: the input, then the result at a whole
 * output element's offset. */
static clscan_status reduce_host_layout(const clscan_context *ctx, const clscan_scan_desc *desc,
                                        const void *in, const void *result, size_t n,
                                        host_layout *h) {
  size_t ei = clscan__in_size(desc), eo = clscan__out_size(desc);
  if (n > (SIZE_MAX - 2 * eo) / ei)
    return clscan__fail(CLSCAN_SIZE_OVERFLOW, "n * element size overflows");
  h->in_bytes = n * ei;
  h->out_bytes = eo;
  h->eo = eo;
  const char *a = in, *b = result;
  if (n && a < b + eo && b < a + h->in_bytes)
    return clscan__fail(CLSCAN_OVERLAP, "the host result overlaps the input");
  h->out_at = (h->in_bytes + eo - 1) / eo * eo;
  h->bytes = h->out_at + eo;
  if (h->bytes > ctx->info.max_alloc)
    return clscan__fail(CLSCAN_SIZE_OVERFLOW, "%zu bytes exceed the device's largest allocation",
                        h->bytes);
  return CLSCAN_SUCCESS;
}

clscan_status clscan_reduce_host(clscan_context *ctx, const clscan_scan_desc *desc, const void *in,
                                 size_t n, void *result) {
  clscan__clear_error();
  clscan_status st = CLSCAN_SUCCESS;
  cl_mem buf = NULL;
  host_layout h = {0};
  if (!ctx)
    return clscan__fail(CLSCAN_NULL_ARGUMENT, "ctx is NULL");
  CLSCAN_RETURN_IF_ERROR(clscan__validate_desc(ctx, desc));
  CLSCAN_RETURN_IF_ERROR(check_unsegmented(desc));
  CLSCAN_RETURN_IF_ERROR(check_no_run_args(desc));
  if (!in || !result)
    return clscan__fail(CLSCAN_NULL_ARGUMENT, "in or result is NULL");
  CLSCAN_RETURN_IF_ERROR(reduce_host_layout(ctx, desc, in, result, n, &h));
  clscan_plan *plan = NULL;
  CLSCAN_RETURN_IF_ERROR(clscan__plan_cache_get(ctx, desc, &plan));

  CLSCAN_TRY(device_buffer(ctx, h.bytes, &buf));
  if (n)
    CLSCAN_TRY(write_start(ctx, buf, in, h.in_bytes));
  cl_event done = NULL;
  clscan__request r = {
      .queue = ctx->queue,
      .buf = {[CLSCAN__BUF_IN] = {buf, 0}, [CLSCAN__BUF_OUT] = {buf, h.out_at / h.eo}},
      .n = n,
      .init_override = 1,
      .init = desc->init,
      .done = &done};
  CLSCAN_TRY(clscan__dispatch_algorithm(plan, CLSCAN__FAMILY_REDUCE, CLSCAN__REDUCE_TWO_PASS, &r));
  clReleaseEvent(done);
  CLSCAN_CL(CLSCAN_FAULT(
      CL_OUT_OF_RESOURCES,
      clEnqueueReadBuffer(ctx->queue, buf, CL_TRUE, h.out_at, h.eo, result, 0, NULL, NULL)));
  clReleaseMemObject(buf);
  return CLSCAN_SUCCESS;
fail:
  // A write already enqueued reads the caller's array: it finishes before the buffer goes.
  clFinish(ctx->queue);
  if (buf)
    clReleaseMemObject(buf);
  return st;
}

/* ============================================================================================== */
/* Enqueues with extra arguments, a device initial value and a device total                       */
/* ============================================================================================== */

clscan_status clscan_plan_enqueue_args(clscan_plan *plan, cl_command_queue queue, cl_mem in,
                                       size_t in_offset, cl_mem out, size_t out_offset, size_t n,
                                       const clscan_run_args *run, cl_uint num_wait,
                                       const cl_event *wait_list, cl_event *first, cl_event *done) {
  static const clscan_run_args none = {0};
  clscan__begin_call(first, done);
  if (!plan)
    return clscan__fail(CLSCAN_NULL_ARGUMENT, "plan is NULL");
  if (!run)
    run = &none;
  if (plan->desc.segments == CLSCAN_SEGMENTS_OFFSETS)
    return clscan__fail(CLSCAN_INVALID_VALUE,
                        "an offsets plan runs through clscan_plan_enqueue_offsets()");
  if (run->segments && !plan->desc.segments)
    return clscan__fail(CLSCAN_INVALID_VALUE, "run->segments given to an unsegmented plan");
  clscan__request r = {.queue = queue,
                       .buf = {[CLSCAN__BUF_IN] = {in, in_offset},
                               [CLSCAN__BUF_OUT] = {out, out_offset},
                               [CLSCAN__BUF_AUX] = {run->segments, run->segments_offset}},
                       .n = n,
                       .num_wait = num_wait,
                       .wait_list = wait_list,
                       .first = first,
                       .done = done};
  return plan_request(plan, &r, run);
}

clscan_status clscan_plan_enqueue_reduce_args(clscan_plan *plan, cl_command_queue queue, cl_mem in,
                                              size_t in_offset, cl_mem out, size_t out_offset,
                                              size_t n, const clscan_run_args *run,
                                              cl_uint num_wait, const cl_event *wait_list,
                                              cl_event *done) {
  return reduce_call(plan, queue, in, in_offset, out, out_offset, n, 1, run, num_wait, wait_list,
                     NULL, done);
}
