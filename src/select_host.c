/*
 * clscan: the selections' host-array variants (clscan_select_host, clscan_partition_copy_host):
 * they check their arrays and descriptor, create a plan (select_api.c), copy the arrays to device
 * buffers, enqueue the selection and read the results back into the caller's arrays only once
 * everything has succeeded.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* Device copies of a host selection's arrays. */
typedef struct host_buffers {
  cl_mem in, flags, out, lengths, count, rejected;
} host_buffers;

static void host_buffers_release(host_buffers *h) {
  cl_mem *m[] = {&h->in, &h->flags, &h->out, &h->lengths, &h->count, &h->rejected};
  for (size_t i = 0; i < sizeof m / sizeof m[0]; i++) {
    if (*m[i])
      clReleaseMemObject(*m[i]);
    *m[i] = NULL;
  }
}

/* A host selection's arrays: out and lengths hold cap elements, rejected (partition into two
 * arrays: split) rejected_cap. */
typedef struct host_arrays {
  const void *in;
  const unsigned char *flags;
  size_t n;
  void *out, *lengths, *rejected;
  size_t cap, rejected_cap;
  int split; /* partition into two arrays */
} host_arrays;

/* Creates a buffer of `bytes` (at least 1), filled from `src` when it is not NULL. */
static clscan_status host_buffer(clscan_context *ctx, size_t bytes, const void *src, cl_mem *out) {
  cl_int err;
  cl_mem_flags flags = CL_MEM_READ_WRITE | (src && bytes ? CL_MEM_COPY_HOST_PTR : 0);
  *out = CLSCAN_FAULT_CREATE(
      err, CL_MEM_OBJECT_ALLOCATION_FAILURE,
      clCreateBuffer(ctx->cl_ctx, flags, bytes ? bytes : 1, bytes ? (void *)src : NULL, &err));
  if (err != CL_SUCCESS) {
    *out = NULL;
    return clscan__cl_fail(err, "clCreateBuffer(host selection)");
  }
  return CLSCAN_SUCCESS;
}

/* Reads `elems` elements of `size` bytes from the start of buf into dst (nothing when 0). */
static clscan_status host_read(cl_command_queue q, cl_mem buf, size_t elems, size_t size,
                               void *dst) {
  if (elems == 0)
    return CLSCAN_SUCCESS;
  cl_int err =
      CLSCAN_FAULT(CL_OUT_OF_RESOURCES,
                   clEnqueueReadBuffer(q, buf, CL_TRUE, 0, elems * size, dst, 0, NULL, NULL));
  return err == CL_SUCCESS ? CLSCAN_SUCCESS : clscan__cl_fail(err, "clEnqueueReadBuffer");
}

/* Copies `bytes` bytes (none when 0, where dst may be NULL). */
static void memcpy_if(void *dst, const void *src, size_t bytes) {
  if (bytes)
    memcpy(dst, src, bytes);
}

/* Runs a host selection on a plan: copies in, enqueues, reads back. */
static clscan_status host_run(clscan_select_plan *plan, const host_arrays *a, uint64_t *count) {
  clscan_status st = CLSCAN_SUCCESS;
  clscan_context *ctx = plan->ctx;
  host_buffers h = {0};
  cl_event done = NULL;
  unsigned char *scratch = NULL;
  size_t n = a->n, cap = a->cap;
  CLSCAN_TRY(host_buffer(ctx, n * plan->in_size, a->in, &h.in));
  if (a->flags)
    CLSCAN_TRY(host_buffer(ctx, n, a->flags, &h.flags));
  CLSCAN_TRY(host_buffer(ctx, cap * plan->out_size, NULL, &h.out));
  if (plan->op == CLSCAN_RUN_LENGTH_ENCODE)
    CLSCAN_TRY(host_buffer(ctx, cap * plan->count_size, NULL, &h.lengths));
  if (a->split)
    CLSCAN_TRY(host_buffer(ctx, a->rejected_cap * plan->out_size, NULL, &h.rejected));
  CLSCAN_TRY(host_buffer(ctx, plan->count_size, NULL, &h.count));
  const clscan_select_buffers b = {.in = h.in,
                                   .flags = h.flags,
                                   .out = h.out,
                                   .out_capacity = cap,
                                   .lengths = h.lengths,
                                   .count = h.count,
                                   .rejected = h.rejected,
                                   .rejected_capacity = a->rejected_cap};
  CLSCAN_TRY(clscan_select_enqueue(plan, ctx->queue, &b, n, 0, NULL, &done));
  uint64_t c = 0;
  CLSCAN_CL(
      clEnqueueReadBuffer(ctx->queue, h.count, CL_TRUE, 0, plan->count_size, &c, 1, &done, NULL));
  if (plan->count_size == 4)
    c = (uint32_t)c;
  size_t got = c < cap ? (size_t)c : cap;
  if (plan->op == CLSCAN_PARTITION && !h.rejected)
    got = n;
  size_t rejected = c <= n ? (size_t)(n - c) : 0;
  rejected = rejected < a->rejected_cap ? rejected : a->rejected_cap;
  // The results go to scratch first and to the caller's arrays only once every read succeeded.
  const size_t out_b = got * plan->out_size, len_b = a->lengths ? got * plan->count_size : 0;
  const size_t rej_b = h.rejected ? rejected * plan->out_size : 0;
  scratch = malloc(out_b + len_b + rej_b + 1);
  if (!scratch) {
    st = clscan__fail(CLSCAN_OUT_OF_HOST_MEMORY, "host selection read-back");
    goto fail;
  }
  CLSCAN_TRY(host_read(ctx->queue, h.out, got, plan->out_size, scratch));
  if (len_b)
    CLSCAN_TRY(host_read(ctx->queue, h.lengths, got, plan->count_size, scratch + out_b));
  if (rej_b)
    CLSCAN_TRY(
        host_read(ctx->queue, h.rejected, rejected, plan->out_size, scratch + out_b + len_b));
  memcpy_if(a->out, scratch, out_b);
  memcpy_if(a->lengths, scratch + out_b, len_b);
  memcpy_if(a->rejected, scratch + out_b + len_b, rej_b);
  *count = c;
fail:
  free(scratch);
  if (done)
    clReleaseEvent(done);
  host_buffers_release(&h);
  return st;
}

/* Checks a host selection's descriptor (no extra arguments: their values are device buffers) and
 * its flags against it. */
static clscan_status check_host_desc(clscan_context *ctx, const clscan_select_desc *desc,
                                     const unsigned char *flags) {
  CLSCAN_RETURN_IF_ERROR(clscan__select_desc_check(ctx, desc));
  if (desc->arg_count)
    return clscan__fail(CLSCAN_INVALID_VALUE,
                        "a desc with extra arguments runs through a plan's "
                        "clscan_select_enqueue() (their values are device buffers)");
  int by_flags =
      (desc->op == CLSCAN_SELECT || desc->op == CLSCAN_PARTITION) && !desc->predicate_source;
  if (by_flags && !flags)
    return clscan__fail(CLSCAN_NULL_ARGUMENT, "flags is NULL, and desc has no predicate_source");
  if (!by_flags && flags)
    return clscan__fail(CLSCAN_INVALID_VALUE, "flags given, but desc does not select by flags");
  return CLSCAN_SUCCESS;
}

/* Creates a plan for a host selection's checked descriptor and runs it. */
static clscan_status host_select(clscan_context *ctx, const clscan_select_desc *desc,
                                 const host_arrays *a, uint64_t *count) {
  clscan_select_plan *plan = NULL;
  CLSCAN_RETURN_IF_ERROR(clscan_select_plan_create(ctx, desc, &plan));
  clscan_status st = host_run(plan, a, count);
  clscan_select_plan_release(plan);
  return st;
}

clscan_status clscan_select_host(clscan_context *ctx, const clscan_select_desc *desc,
                                 const void *in, const unsigned char *flags, size_t n, void *out,
                                 void *lengths, size_t out_capacity, uint64_t *count) {
  clscan__clear_error();
  if (!ctx || !count || (!in && n) || (!out && out_capacity))
    return clscan__fail(CLSCAN_NULL_ARGUMENT, "ctx, in, out or count is NULL");
  CLSCAN_RETURN_IF_ERROR(check_host_desc(ctx, desc, flags));
  int rle = desc->op == CLSCAN_RUN_LENGTH_ENCODE;
  if (rle && !lengths && out_capacity)
    return clscan__fail(CLSCAN_NULL_ARGUMENT, "lengths is NULL (run-length encoding)");
  if (!rle && lengths)
    return clscan__fail(CLSCAN_INVALID_VALUE, "lengths is only for run-length encoding");
  if (desc->op == CLSCAN_PARTITION && out_capacity < n)
    return clscan__fail(CLSCAN_BUFFER_TOO_SMALL,
                        "a partition into one array writes all n %zu elements; out_capacity is "
                        "%zu",
                        n, out_capacity);
  const host_arrays a = {.in = in,
                         .flags = flags,
                         .n = n,
                         .out = out,
                         .lengths = rle ? lengths : NULL,
                         .cap = out_capacity};
  return host_select(ctx, desc, &a, count);
}

clscan_status clscan_partition_copy_host(clscan_context *ctx, const clscan_select_desc *desc,
                                         const void *in, const unsigned char *flags, size_t n,
                                         void *selected, size_t selected_capacity, void *rejected,
                                         size_t rejected_capacity, uint64_t *count) {
  clscan__clear_error();
  if (!ctx || !count || (!in && n) || (!selected && selected_capacity) ||
      (!rejected && rejected_capacity))
    return clscan__fail(CLSCAN_NULL_ARGUMENT, "ctx, in, selected, rejected or count is NULL");
  CLSCAN_RETURN_IF_ERROR(check_host_desc(ctx, desc, flags));
  if (desc->op != CLSCAN_PARTITION)
    return clscan__fail(CLSCAN_INVALID_VALUE, "desc->op is %d, not CLSCAN_PARTITION",
                        (int)desc->op);
  if (desc->reverse_rejected)
    return clscan__fail(CLSCAN_INVALID_VALUE,
                        "desc->reverse_rejected is set: the rejected elements go reversed to the "
                        "end of one array (clscan_select_host)");
  const host_arrays a = {.in = in,
                         .flags = flags,
                         .n = n,
                         .out = selected,
                         .rejected = rejected,
                         .cap = selected_capacity,
                         .rejected_cap = rejected_capacity,
                         .split = 1};
  return host_select(ctx, desc, &a, count);
}
