/*
 * clscan: the entry points of segments given by offsets and of batched scans (rows and columns of
 * a matrix). Offsets and rows without padding run through the segmented scan of every algorithm:
 * the kernels derive each element's head flag from the offsets or from its index
 * (cl/common.cl), and the one number they need besides (the offsets' count or the row length)
 * travels in the request's seg_param. Rows with padding and columns run cl/batch.cl's simple
 * kernel.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* ============================================================================================== */
/* Segments by offsets                                                                            */
/* ============================================================================================== */

/* Checks n_segments against n and fills the request's offsets fields. */
static clscan_status offsets_request(size_t n_segments, size_t n, clscan__request *r) {
  if (n_segments == 0 && n > 0)
    return clscan__fail(CLSCAN_INVALID_VALUE, "n_segments is 0 but n is %zu", n);
  if (n_segments == SIZE_MAX)
    return clscan__fail(CLSCAN_SIZE_OVERFLOW, "n_segments + 1 overflows");
  r->seg_param = n_segments + 1;
  return CLSCAN_SUCCESS;
}

/* The element sizes of an offsets request on a descriptor. */
static clscan__sizes offsets_sizes(const clscan_scan_desc *d, size_t in, size_t out,
                                   size_t n_segments) {
  const clscan__sizes sizes = {
      .in = in, .out = out, .aux = clscan__aux_size(d), .aux_count = n_segments + 1};
  return sizes;
}

clscan_status clscan_plan_enqueue_offsets(clscan_plan *plan, cl_command_queue queue, cl_mem offsets,
                                          size_t offsets_offset, size_t n_segments, cl_mem in,
                                          size_t in_offset, cl_mem out, size_t out_offset, size_t n,
                                          cl_uint num_wait, const cl_event *wait_list,
                                          cl_event *first, cl_event *done) {
  clscan__begin_call(first, done);
  if (!plan)
    return clscan__fail(CLSCAN_NULL_ARGUMENT, "plan is NULL");
  if (plan->desc.segments != CLSCAN_SEGMENTS_OFFSETS)
    return clscan__fail(CLSCAN_INVALID_VALUE,
                        "the plan is not segmented by offsets (desc.segments is %d)",
                        (int)plan->desc.segments);
  clscan__request r = {.queue = queue,
                       .buf = {[CLSCAN__BUF_IN] = {in, in_offset},
                               [CLSCAN__BUF_OUT] = {out, out_offset},
                               [CLSCAN__BUF_AUX] = {offsets, offsets_offset}},
                       .n = n,
                       .num_wait = num_wait,
                       .wait_list = wait_list,
                       .first = first,
                       .done = done};
  CLSCAN_RETURN_IF_ERROR(offsets_request(n_segments, n, &r));
  const clscan__sizes sizes = offsets_sizes(&plan->desc, plan->in_size, plan->out_size, n_segments);
  CLSCAN_RETURN_IF_ERROR(clscan__validate_request(plan->ctx, &sizes, &r));
  return clscan__dispatch(plan, &r);
}

/* Validates an offsets descriptor (segments NONE or OFFSETS) into *d with segments OFFSETS. */
static clscan_status offsets_desc(const clscan_context *ctx, const clscan_scan_desc *desc,
                                  clscan_scan_desc *d) {
  if (!ctx)
    return clscan__fail(CLSCAN_NULL_ARGUMENT, "ctx is NULL");
  if (!desc)
    return clscan__fail(CLSCAN_NULL_ARGUMENT, "desc is NULL");
  if (desc->segments != CLSCAN_SEGMENTS_NONE && desc->segments != CLSCAN_SEGMENTS_OFFSETS)
    return clscan__fail(CLSCAN_INVALID_VALUE, "desc.segments is %d, but this call scans by offsets",
                        (int)desc->segments);
  *d = *desc;
  d->segments = CLSCAN_SEGMENTS_OFFSETS;
  return clscan__validate_desc(ctx, d);
}

clscan_status clscan_segmented_scan_offsets(clscan_context *ctx, cl_command_queue queue,
                                            const clscan_scan_desc *desc, cl_mem offsets,
                                            size_t offsets_offset, size_t n_segments, cl_mem in,
                                            size_t in_offset, cl_mem out, size_t out_offset,
                                            size_t n, cl_uint num_wait, const cl_event *wait_list,
                                            cl_event *done) {
  clscan__begin_call(NULL, done);
  clscan_scan_desc d;
  CLSCAN_RETURN_IF_ERROR(offsets_desc(ctx, desc, &d));
  clscan__request r = {.queue = queue,
                       .buf = {[CLSCAN__BUF_IN] = {in, in_offset},
                               [CLSCAN__BUF_OUT] = {out, out_offset},
                               [CLSCAN__BUF_AUX] = {offsets, offsets_offset}},
                       .n = n,
                       .init_override = 1,
                       .init = d.init,
                       .num_wait = num_wait,
                       .wait_list = wait_list,
                       .done = done};
  CLSCAN_RETURN_IF_ERROR(offsets_request(n_segments, n, &r));
  const clscan__sizes sizes =
      offsets_sizes(&d, clscan__in_size(&d), clscan__out_size(&d), n_segments);
  CLSCAN_RETURN_IF_ERROR(clscan__validate_request(ctx, &sizes, &r));
  clscan_plan *plan = NULL;
  CLSCAN_RETURN_IF_ERROR(clscan__plan_cache_get(ctx, &d, &plan));
  return clscan__dispatch(plan, &r);
}

/* Reads offset s of host offsets of a type; *negative is set for a negative signed offset. */
static uint64_t host_offset(clscan_type t, const void *offsets, size_t s, int *negative) {
  int64_t v;
  switch (t) {
    case CLSCAN_UINT32:
      return ((const uint32_t *)offsets)[s];
    case CLSCAN_UINT64:
      return ((const uint64_t *)offsets)[s];
    case CLSCAN_INT64:
      v = ((const int64_t *)offsets)[s];
      break;
    default:
      v = ((const int32_t *)offsets)[s];
      break;
  }
  *negative = v < 0;
  return v < 0 ? 0 : (uint64_t)v;
}

/* Checks host offsets (offsets[0] == 0, non-decreasing, none negative) and returns the range's
 * length, offsets[n_segments], in *n. */
static clscan_status check_host_offsets(clscan_type t, const void *offsets, size_t n_segments,
                                        size_t *n) {
  uint64_t prev = 0;
  for (size_t s = 0; s <= n_segments; s++) {
    int negative = 0;
    uint64_t v = host_offset(t, offsets, s, &negative);
    if (negative)
      return clscan__fail(CLSCAN_INVALID_VALUE, "offsets[%zu] is negative", s);
    if (s == 0 && v != 0)
      return clscan__fail(CLSCAN_INVALID_VALUE, "offsets[0] is %llu, not 0", (unsigned long long)v);
    if (v < prev)
      return clscan__fail(CLSCAN_INVALID_VALUE, "offsets[%zu] = %llu is below offsets[%zu] = %llu",
                          s, (unsigned long long)v, s - 1, (unsigned long long)prev);
    prev = v;
  }
  if (prev > SIZE_MAX)
    return clscan__fail(CLSCAN_SIZE_OVERFLOW, "offsets[n_segments] exceeds size_t");
  *n = (size_t)prev;
  return CLSCAN_SUCCESS;
}

/* ============================================================================================== */
/* Host buffers                                                                                   */
/* ============================================================================================== */

/* Creates a device buffer and enqueues a non-blocking write of host bytes to its start (only an
 * allocation when data is NULL). */
static clscan_status host_copy(clscan_context *ctx, const void *data, size_t bytes, cl_mem *buf) {
  cl_int err;
  *buf = CLSCAN_FAULT_CREATE(err, CL_MEM_OBJECT_ALLOCATION_FAILURE,
                             clCreateBuffer(ctx->cl_ctx, CL_MEM_READ_WRITE, bytes, NULL, &err));
  if (err != CL_SUCCESS)
    return clscan__cl_fail(err, "clCreateBuffer");
  if (!data)
    return CLSCAN_SUCCESS;
  err = CLSCAN_FAULT(CL_OUT_OF_RESOURCES, clEnqueueWriteBuffer(ctx->queue, *buf, CL_FALSE, 0, bytes,
                                                               data, 0, NULL, NULL));
  return err == CL_SUCCESS ? CLSCAN_SUCCESS : clscan__cl_fail(err, "clEnqueueWriteBuffer");
}

/* Releases a host call's buffers after waiting for the commands that read the caller's arrays. */
static void host_release(clscan_context *ctx, cl_mem *bufs, size_t count) {
  clFinish(ctx->queue);
  for (size_t i = 0; i < count; i++) {
    if (bufs[i])
      clReleaseMemObject(bufs[i]);
  }
}

/* The device copies of a host scan: in (and out after it, at out_at bytes, unless in place). */
typedef struct host_bufs {
  size_t in_bytes, out_bytes, out_at;
  int in_place;
} host_bufs;

/* Lays out a host scan's data buffer: the input, then the output at a whole output element. */
static clscan_status host_layout(const clscan_context *ctx, size_t ei, size_t eo, size_t n,
                                 host_bufs *h) {
  if (n > SIZE_MAX / 2 / (ei + eo))
    return clscan__fail(CLSCAN_SIZE_OVERFLOW, "n * element size overflows");
  h->in_bytes = n * ei;
  h->out_bytes = n * eo;
  h->in_place = ei == eo;
  h->out_at = h->in_place ? 0 : (h->in_bytes + eo - 1) / eo * eo;
  if (h->out_at + h->out_bytes > ctx->info.max_alloc)
    return clscan__fail(CLSCAN_SIZE_OVERFLOW, "%zu bytes exceed the device's largest allocation",
                        h->out_at + h->out_bytes);
  return CLSCAN_SUCCESS;
}

/* Reads a host scan's result back (blocking). */
static clscan_status host_read(clscan_context *ctx, cl_mem buf, size_t at, size_t bytes,
                               void *out) {
  cl_int err = CLSCAN_FAULT(CL_OUT_OF_RESOURCES, clEnqueueReadBuffer(ctx->queue, buf, CL_TRUE, at,
                                                                     bytes, out, 0, NULL, NULL));
  return err == CL_SUCCESS ? CLSCAN_SUCCESS : clscan__cl_fail(err, "clEnqueueReadBuffer");
}

clscan_status clscan_segmented_scan_offsets_host(clscan_context *ctx, const clscan_scan_desc *desc,
                                                 const void *offsets, size_t n_segments,
                                                 const void *in, void *out) {
  clscan__clear_error();
  clscan_status st = CLSCAN_SUCCESS;
  cl_mem bufs[2] = {NULL, NULL};
  clscan_scan_desc d;
  CLSCAN_RETURN_IF_ERROR(offsets_desc(ctx, desc, &d));
  if (!offsets || !in || !out)
    return clscan__fail(CLSCAN_NULL_ARGUMENT, "offsets, in or out is NULL");
  size_t n = 0;
  CLSCAN_RETURN_IF_ERROR(check_host_offsets(d.key_type, offsets, n_segments, &n));
  if (n == 0)
    return CLSCAN_SUCCESS;
  const size_t es = clscan__aux_size(&d);
  host_bufs h = {0};
  CLSCAN_RETURN_IF_ERROR(host_layout(ctx, clscan__in_size(&d), clscan__out_size(&d), n, &h));
  CLSCAN_RETURN_IF_ERROR(
      clscan__check_host_ranges(in, h.in_bytes, out, h.out_bytes, offsets, (n_segments + 1) * es));
  clscan_plan *plan = NULL;
  CLSCAN_RETURN_IF_ERROR(clscan__plan_cache_get(ctx, &d, &plan));
  CLSCAN_TRY(host_copy(ctx, NULL, h.out_at + h.out_bytes, &bufs[0]));
  CLSCAN_TRY(host_copy(ctx, offsets, (n_segments + 1) * es, &bufs[1]));
  cl_int err = CLSCAN_FAULT(
      CL_OUT_OF_RESOURCES,
      clEnqueueWriteBuffer(ctx->queue, bufs[0], CL_FALSE, 0, h.in_bytes, in, 0, NULL, NULL));
  if (err != CL_SUCCESS) {
    st = clscan__cl_fail(err, "clEnqueueWriteBuffer");
    goto fail;
  }
  cl_event done = NULL;
  const size_t eo = clscan__out_size(&d);
  clscan__request r = {.queue = ctx->queue,
                       .buf = {[CLSCAN__BUF_IN] = {bufs[0], 0},
                               [CLSCAN__BUF_OUT] = {bufs[0], h.out_at / eo},
                               [CLSCAN__BUF_AUX] = {bufs[1], 0}},
                       .n = n,
                       .seg_param = n_segments + 1,
                       .in_place = h.in_place,
                       .init_override = 1,
                       .init = d.init,
                       .done = &done};
  CLSCAN_TRY(clscan__dispatch(plan, &r));
  clReleaseEvent(done);
  CLSCAN_TRY(host_read(ctx, bufs[0], h.out_at, h.out_bytes, out));
fail:
  host_release(ctx, bufs, 2);
  return st;
}

/* ============================================================================================== */
/* Batched scans                                                                                  */
/* ============================================================================================== */

/* A validated batch: its stride resolved and the span of elements it covers. */
typedef struct batch_shape {
  size_t rows, length, stride;
  size_t span; /* (rows - 1) * stride + length, or 0 for an empty batch */
  int columns;
} batch_shape;

/* Checks a batch and computes its span. */
static clscan_status check_batch(const clscan_batch *b, batch_shape *s) {
  if (!b)
    return clscan__fail(CLSCAN_NULL_ARGUMENT, "batch is NULL");
  if ((unsigned)b->axis > CLSCAN_BATCH_COLUMNS)
    return clscan__fail(CLSCAN_INVALID_VALUE, "batch axis %d is not a clscan_batch_axis",
                        (int)b->axis);
  s->rows = b->rows;
  s->length = b->row_length;
  s->stride = b->row_stride ? b->row_stride : b->row_length;
  s->columns = b->axis == CLSCAN_BATCH_COLUMNS;
  if (s->stride < s->length)
    return clscan__fail(CLSCAN_INVALID_VALUE, "row_stride %zu is below row_length %zu", s->stride,
                        s->length);
  s->span = 0;
  if (s->rows == 0 || s->length == 0)
    return CLSCAN_SUCCESS;
  if (s->rows - 1 > (SIZE_MAX - s->length) / s->stride)
    return clscan__fail(CLSCAN_SIZE_OVERFLOW, "(rows - 1) * row_stride + row_length overflows");
  s->span = (s->rows - 1) * s->stride + s->length;
  return CLSCAN_SUCCESS;
}

/* Validates an unsegmented descriptor for a batched scan. */
static clscan_status batch_desc(const clscan_context *ctx, const clscan_scan_desc *desc) {
  if (!ctx)
    return clscan__fail(CLSCAN_NULL_ARGUMENT, "ctx is NULL");
  CLSCAN_RETURN_IF_ERROR(clscan__validate_desc(ctx, desc));
  if (desc->segments)
    return clscan__fail(CLSCAN_INVALID_VALUE, "a batched scan's desc must not be segmented");
  if (desc->arg_count || desc->device_init)
    return clscan__fail(CLSCAN_INVALID_VALUE,
                        "a batched scan's desc has no extra arguments or device_init (their "
                        "values come only through clscan_plan_enqueue_args())");
  return CLSCAN_SUCCESS;
}

/* Rows without padding: one segmented scan with segments of row_length elements. */
static clscan_status batch_as_segments(clscan_context *ctx, const clscan_scan_desc *desc,
                                       const batch_shape *s, clscan__request *r) {
  clscan_scan_desc d = *desc;
  d.segments = CLSCAN__SEGMENTS_ROWS;
  d.key_type = CLSCAN_INT32;
  r->seg_param = s->length;
  clscan_plan *plan = NULL;
  CLSCAN_RETURN_IF_ERROR(clscan__plan_cache_get(ctx, &d, &plan));
  return clscan__dispatch(plan, r);
}

/* Enqueues the simple kernel over a batch's lines (rows with padding, or columns). */
static clscan_status batch_lines_enqueue(clscan_plan *plan, const batch_shape *s,
                                         const clscan__request *r) {
  clscan_status st = CLSCAN_SUCCESS;
  clscan__algo_kernels *ak = NULL;
  CLSCAN_RETURN_IF_ERROR(clscan__plan_prepare_batch(plan, &ak));
  cl_ulong in_off = r->buf[CLSCAN__BUF_IN].off, out_off = r->buf[CLSCAN__BUF_OUT].off;
  cl_ulong lines = s->columns ? s->length : s->rows, length = s->columns ? s->rows : s->length;
  cl_ulong line_step = s->columns ? 1 : s->stride, elem_step = s->columns ? s->stride : 1;
  cl_int exclusive = plan->desc.exclusive != 0;
  const void *init = r->init_override ? r->init : plan->desc.init;
  const clscan__karg args[] = {CLSCAN__ARG(r->buf[CLSCAN__BUF_IN].mem),
                               CLSCAN__ARG(in_off),
                               CLSCAN__ARG(r->buf[CLSCAN__BUF_OUT].mem),
                               CLSCAN__ARG(out_off),
                               CLSCAN__ARG(lines),
                               CLSCAN__ARG(length),
                               CLSCAN__ARG(line_step),
                               CLSCAN__ARG(elem_step),
                               {plan->out_size, init ? init : plan->identity},
                               CLSCAN__ARG(exclusive)};
  const size_t wg = ak->cfg.wg;
  clscan__chain c = {0};
  CLSCAN_TRY(clscan__chain_start(&c, r->queue, r->num_wait, r->wait_list, NULL));
  pthread_mutex_lock(&plan->lock);
  st = clscan__chain_call(&c, ak->k[CLSCAN__BATCH_LINES], args, sizeof args / sizeof args[0],
                          clscan__div_up((size_t)lines, wg), wg);
  pthread_mutex_unlock(&plan->lock);
  if (st != CLSCAN_SUCCESS)
    goto fail;
  clscan__chain_finish(&c, r->first, r->done);
  return CLSCAN_SUCCESS;
fail:
  clscan__chain_abort(&c);
  return st;
}

/* Runs a validated batched request: n (the span) already checked against the buffers. */
static clscan_status batch_run(clscan_context *ctx, const clscan_scan_desc *desc,
                               const batch_shape *s, clscan__request *r) {
  if (s->span == 0) {
    clscan__chain c = {0};
    clscan_status st = clscan__chain_start(&c, r->queue, r->num_wait, r->wait_list, NULL);
    if (st == CLSCAN_SUCCESS)
      st = clscan__chain_marker(&c);
    if (st != CLSCAN_SUCCESS) {
      clscan__chain_abort(&c);
      return st;
    }
    clscan__chain_finish(&c, r->first, r->done);
    return CLSCAN_SUCCESS;
  }
  if (!s->columns && (s->stride == s->length || s->rows == 1))
    return batch_as_segments(ctx, desc, s, r);
  clscan_plan *plan = NULL;
  CLSCAN_RETURN_IF_ERROR(clscan__plan_cache_get(ctx, desc, &plan));
  return batch_lines_enqueue(plan, s, r);
}

clscan_status clscan_scan_batched(clscan_context *ctx, cl_command_queue queue,
                                  const clscan_scan_desc *desc, const clscan_batch *batch,
                                  cl_mem in, size_t in_offset, cl_mem out, size_t out_offset,
                                  cl_uint num_wait, const cl_event *wait_list, cl_event *done) {
  clscan__begin_call(NULL, done);
  CLSCAN_RETURN_IF_ERROR(batch_desc(ctx, desc));
  batch_shape s;
  CLSCAN_RETURN_IF_ERROR(check_batch(batch, &s));
  clscan__request r = {
      .queue = queue,
      .buf = {[CLSCAN__BUF_IN] = {in, in_offset}, [CLSCAN__BUF_OUT] = {out, out_offset}},
      .n = s.span,
      .init_override = 1,
      .init = desc->init,
      .num_wait = num_wait,
      .wait_list = wait_list,
      .done = done};
  const clscan__sizes sizes = {.in = clscan__in_size(desc), .out = clscan__out_size(desc)};
  CLSCAN_RETURN_IF_ERROR(clscan__validate_request(ctx, &sizes, &r));
  return batch_run(ctx, desc, &s, &r);
}

clscan_status clscan_scan_batched_host(clscan_context *ctx, const clscan_scan_desc *desc,
                                       const clscan_batch *batch, const void *in, void *out) {
  clscan__clear_error();
  clscan_status st = CLSCAN_SUCCESS;
  cl_mem bufs[1] = {NULL};
  CLSCAN_RETURN_IF_ERROR(batch_desc(ctx, desc));
  batch_shape s;
  CLSCAN_RETURN_IF_ERROR(check_batch(batch, &s));
  if (!in || !out)
    return clscan__fail(CLSCAN_NULL_ARGUMENT, "in or out is NULL");
  if (s.span == 0)
    return CLSCAN_SUCCESS;
  host_bufs h = {0};
  const size_t eo = clscan__out_size(desc);
  CLSCAN_RETURN_IF_ERROR(host_layout(ctx, clscan__in_size(desc), eo, s.span, &h));
  CLSCAN_RETURN_IF_ERROR(clscan__check_host_ranges(in, h.in_bytes, out, h.out_bytes, NULL, 0));
  if (h.in_place && s.stride != s.length && in != out) {
    // The padding of `out` must come back as it was, not as the input's: separate copies.
    h.in_place = 0;
    h.out_at = h.in_bytes;
    if (h.out_at + h.out_bytes > ctx->info.max_alloc)
      return clscan__fail(CLSCAN_SIZE_OVERFLOW, "%zu bytes exceed the device's largest allocation",
                          h.out_at + h.out_bytes);
  }
  clscan_plan *plan = NULL;
  CLSCAN_RETURN_IF_ERROR(clscan__plan_cache_get(ctx, desc, &plan));
  CLSCAN_TRY(host_copy(ctx, NULL, h.out_at + h.out_bytes, &bufs[0]));
  // The padding of `out` comes back as it was: the output span starts as the caller's copy.
  cl_int err = CL_SUCCESS;
  if (!h.in_place && s.stride != s.length)
    err = CLSCAN_FAULT(CL_OUT_OF_RESOURCES,
                       clEnqueueWriteBuffer(ctx->queue, bufs[0], CL_FALSE, h.out_at, h.out_bytes,
                                            out, 0, NULL, NULL));
  if (err == CL_SUCCESS)
    err = CLSCAN_FAULT(CL_OUT_OF_RESOURCES, clEnqueueWriteBuffer(ctx->queue, bufs[0], CL_FALSE, 0,
                                                                 h.in_bytes, in, 0, NULL, NULL));
  if (err != CL_SUCCESS) {
    st = clscan__cl_fail(err, "clEnqueueWriteBuffer");
    goto fail;
  }
  cl_event done = NULL;
  clscan__request r = {
      .queue = ctx->queue,
      .buf = {[CLSCAN__BUF_IN] = {bufs[0], 0}, [CLSCAN__BUF_OUT] = {bufs[0], h.out_at / eo}},
      .n = s.span,
      .in_place = h.in_place,
      .init_override = 1,
      .init = desc->init,
      .done = &done};
  CLSCAN_TRY(batch_run(ctx, desc, &s, &r));
  clReleaseEvent(done);
  st = host_read(ctx, bufs[0], h.out_at, h.out_bytes, out);
fail:
  host_release(ctx, bufs, 1);
  return st;
}
