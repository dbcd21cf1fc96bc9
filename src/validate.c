/*
 * clscan: argument validation. Every check runs before anything is enqueued, and each kind of
 * bad input has its own status.
 */
#include <stdint.h>

#include "internal.h"

clscan_status clscan__validate_desc(const clscan_context *ctx, const clscan_scan_desc *desc) {
  if (!desc) return clscan__fail(CLSCAN_NULL_ARGUMENT, "desc is NULL");
  if ((unsigned)desc->type >= CLSCAN_TYPE_COUNT)
    return clscan__fail(CLSCAN_INVALID_TYPE, "type %d is not a clscan_type", (int)desc->type);
  if ((unsigned)desc->op >= CLSCAN_OP_COUNT)
    return clscan__fail(CLSCAN_INVALID_OP, "op %d is not a clscan_op", (int)desc->op);
  if ((unsigned)desc->algorithm >= CLSCAN_ALGORITHM_COUNT)
    return clscan__fail(CLSCAN_INVALID_ALGORITHM, "algorithm %d is not a clscan_algorithm",
                        (int)desc->algorithm);

  // Bitwise operators have no meaning on floating-point values.
  int is_float = desc->type == CLSCAN_FLOAT || desc->type == CLSCAN_DOUBLE;
  if (is_float && desc->op >= CLSCAN_AND)
    return clscan__fail(CLSCAN_UNSUPPORTED_OP_FOR_TYPE, "%s is not defined on %s",
                        clscan_op_name(desc->op), clscan_type_name(desc->type));

  // Device capabilities.
  if (desc->type == CLSCAN_DOUBLE && !ctx->info.has_fp64)
    return clscan__fail(CLSCAN_UNSUPPORTED_BY_DEVICE, "device %s has no fp64 (cl_khr_fp64)",
                        ctx->info.name);
  if (desc->algorithm == CLSCAN_ALGO_SINGLE_PASS && !ctx->info.has_int64_atomics)
    return clscan__fail(CLSCAN_UNSUPPORTED_BY_DEVICE,
                        "the single-pass scan needs cl_khr_int64_base_atomics and "
                        "cl_khr_int64_extended_atomics, which device %s lacks",
                        ctx->info.name);
  return CLSCAN_SUCCESS;
}

/* Resolves a buffer to its root buffer and the byte offset of its start within it. */
static clscan_status buffer_root(cl_mem buf, cl_mem *root, size_t *origin) {
  clscan_status st = CLSCAN_SUCCESS;
  *root = buf;
  *origin = 0;
  for (;;) {
    cl_mem parent = NULL;
    size_t offset = 0;
    CLSCAN_CL(clGetMemObjectInfo(*root, CL_MEM_ASSOCIATED_MEMOBJECT, sizeof parent, &parent, NULL));
    if (!parent) return CLSCAN_SUCCESS;
    CLSCAN_CL(clGetMemObjectInfo(*root, CL_MEM_OFFSET, sizeof offset, &offset, NULL));
    *origin += offset;
    *root = parent;
  }
fail:
  return st;
}

/* Checks one buffer: same context, large enough for offset + n elements, writable if output. */
static clscan_status check_buffer(const clscan_context *ctx, cl_mem buf, size_t off, size_t n,
                                  size_t elem, int is_output, const char *name) {
  cl_context owner = NULL;
  size_t size = 0;
  cl_mem_flags flags = 0;
  if (clGetMemObjectInfo(buf, CL_MEM_CONTEXT, sizeof owner, &owner, NULL) != CL_SUCCESS ||
      clGetMemObjectInfo(buf, CL_MEM_SIZE, sizeof size, &size, NULL) != CL_SUCCESS ||
      clGetMemObjectInfo(buf, CL_MEM_FLAGS, sizeof flags, &flags, NULL) != CL_SUCCESS)
    return clscan__fail(CLSCAN_INVALID_BUFFER, "%s is not a valid cl_mem", name);
  if (owner != ctx->cl_ctx)
    return clscan__fail(CLSCAN_INVALID_BUFFER, "%s belongs to another cl_context", name);
  if (is_output && (flags & CL_MEM_READ_ONLY))
    return clscan__fail(CLSCAN_INVALID_BUFFER, "%s is CL_MEM_READ_ONLY", name);
  if (n > SIZE_MAX / elem || off > SIZE_MAX / elem - n)
    return clscan__fail(CLSCAN_SIZE_OVERFLOW, "%s: offset %zu + n %zu overflows", name, off, n);
  if ((off + n) * elem > size)
    return clscan__fail(CLSCAN_BUFFER_TOO_SMALL,
                        "%s holds %zu bytes; offset %zu + n %zu elements need %zu", name, size,
                        off, n, (off + n) * elem);
  return CLSCAN_SUCCESS;
}

/* Checks that the queue belongs to the context's cl_context and device. */
static clscan_status check_queue(const clscan_context *ctx, cl_command_queue queue) {
  cl_context qctx = NULL;
  cl_device_id qdev = NULL;
  if (clGetCommandQueueInfo(queue, CL_QUEUE_CONTEXT, sizeof qctx, &qctx, NULL) != CL_SUCCESS ||
      clGetCommandQueueInfo(queue, CL_QUEUE_DEVICE, sizeof qdev, &qdev, NULL) != CL_SUCCESS)
    return clscan__fail(CLSCAN_INVALID_QUEUE, "the queue is not a valid cl_command_queue");
  if (qctx != ctx->cl_ctx)
    return clscan__fail(CLSCAN_INVALID_QUEUE, "the queue belongs to another cl_context");
  if (qdev != ctx->device)
    return clscan__fail(CLSCAN_INVALID_QUEUE, "the queue belongs to another device");
  return CLSCAN_SUCCESS;
}

/* Rejects input and output byte ranges that overlap without being identical. */
static clscan_status check_overlap(cl_mem in, size_t in_off, cl_mem out, size_t out_off,
                                   size_t n, size_t elem, int *in_place) {
  clscan_status st = CLSCAN_SUCCESS;
  cl_mem in_root, out_root;
  size_t in_origin, out_origin;
  CLSCAN_TRY(buffer_root(in, &in_root, &in_origin));
  CLSCAN_TRY(buffer_root(out, &out_root, &out_origin));
  *in_place = 0;
  if (in_root != out_root || n == 0) return CLSCAN_SUCCESS;
  size_t a = in_origin + in_off * elem, b = out_origin + out_off * elem, len = n * elem;
  *in_place = a == b;
  if (a == b) return CLSCAN_SUCCESS;
  if (a < b + len && b < a + len)
    return clscan__fail(CLSCAN_OVERLAP,
                        "input bytes [%zu, %zu) and output bytes [%zu, %zu) of one buffer overlap",
                        a, a + len, b, b + len);
  return CLSCAN_SUCCESS;
fail:
  return st;
}

clscan_status clscan__validate_enqueue(const clscan_context *ctx, cl_command_queue *queue,
                                       cl_mem in, size_t in_off, cl_mem out, size_t out_off,
                                       size_t n, size_t elem, cl_uint num_wait,
                                       const cl_event *wait_list, int *in_place) {
  clscan_status st = CLSCAN_SUCCESS;
  if (!in) return clscan__fail(CLSCAN_NULL_ARGUMENT, "input buffer is NULL");
  if (!out) return clscan__fail(CLSCAN_NULL_ARGUMENT, "output buffer is NULL");
  if ((num_wait == 0) != (wait_list == NULL))
    return clscan__fail(CLSCAN_INVALID_WAIT_LIST, "num_wait is %u but wait_list is %s",
                        (unsigned)num_wait, wait_list ? "not NULL" : "NULL");
  for (cl_uint i = 0; i < num_wait; i++) {
    if (!wait_list[i])
      return clscan__fail(CLSCAN_INVALID_WAIT_LIST, "wait_list[%u] is NULL", (unsigned)i);
  }
  if (!*queue) *queue = ctx->queue;
  CLSCAN_TRY(check_queue(ctx, *queue));
  CLSCAN_TRY(check_buffer(ctx, in, in_off, n, elem, 0, "input buffer"));
  CLSCAN_TRY(check_buffer(ctx, out, out_off, n, elem, 1, "output buffer"));
  CLSCAN_TRY(check_overlap(in, in_off, out, out_off, n, elem, in_place));
  return CLSCAN_SUCCESS;
fail:
  return st;
}
