/*
 * clscan: argument validation. Every check runs before anything is enqueued, and each kind of
 * bad input has its own status.
 */
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

/* Returns 1 if an extra argument is of a user type (then type_source may define it). */
static int args_have_user_type(const clscan_scan_desc *d) {
  for (size_t k = 0; d->args && k < d->arg_count && k < CLSCAN_MAX_ARGS; k++) {
    if (d->args[k].type == CLSCAN_USER_TYPE)
      return 1;
  }
  return 0;
}

/* Checks the type fields: input, output, user type. */
static clscan_status check_types(const clscan_scan_desc *d) {
  if (!clscan__type_is_builtin(d->type) && d->type != CLSCAN_USER_TYPE)
    return clscan__fail(CLSCAN_INVALID_TYPE, "type %d is not a clscan_type", (int)d->type);
  unsigned o = (unsigned)d->out_type;
  if (o != 0 && !(o >= 0x100 && (clscan__type_is_builtin((clscan_type)(o - 0x100)) ||
                                 o - 0x100 == CLSCAN_USER_TYPE)))
    return clscan__fail(CLSCAN_INVALID_TYPE,
                        "out_type %u is not a clscan_out_type (use CLSCAN_OUT_TYPE(t))", o);
  clscan_type out = clscan__out_type(d);
  int user = d->type == CLSCAN_USER_TYPE || out == CLSCAN_USER_TYPE;
  if (user) {
    if (!d->type_name)
      return clscan__fail(CLSCAN_NULL_ARGUMENT, "a user type needs type_name");
    if (d->type_size == 0)
      return clscan__fail(CLSCAN_INVALID_VALUE, "type_size is 0");
  } else if (d->type_name || d->type_size || (d->type_source && !args_have_user_type(d))) {
    return clscan__fail(CLSCAN_INVALID_VALUE,
                        "type_name, type_source or type_size given, but no type is a user type");
  }
  if (user && d->type != out && !d->map_source)
    return clscan__fail(CLSCAN_INVALID_VALUE,
                        "converting between a user type and another type needs map_source");
  return CLSCAN_SUCCESS;
}

/* Checks the operator fields against the output type. */
static clscan_status check_op(const clscan_scan_desc *d) {
  clscan_type out = clscan__out_type(d);
  if (d->op == CLSCAN_USER_OP) {
    if (!d->op_source)
      return clscan__fail(CLSCAN_NULL_ARGUMENT, "CLSCAN_USER_OP needs op_source");
    if (!d->identity)
      return clscan__fail(CLSCAN_NULL_ARGUMENT, "CLSCAN_USER_OP needs identity");
    return CLSCAN_SUCCESS;
  }
  if ((unsigned)d->op >= CLSCAN_OP_COUNT)
    return clscan__fail(CLSCAN_INVALID_OP, "op %d is not a clscan_op", (int)d->op);
  if (d->op_source || d->identity)
    return clscan__fail(CLSCAN_INVALID_VALUE, "op_source or identity given, but op is %s",
                        clscan_op_name(d->op));
  if (out == CLSCAN_USER_TYPE)
    return clscan__fail(CLSCAN_UNSUPPORTED_OP_FOR_TYPE, "a user type needs CLSCAN_USER_OP");
  // Bitwise operators have no meaning on floating-point values.
  if (clscan__type_is_float(out) && d->op >= CLSCAN_AND)
    return clscan__fail(CLSCAN_UNSUPPORTED_OP_FOR_TYPE, "%s is not defined on %s",
                        clscan_op_name(d->op), clscan_type_name(out));
  return CLSCAN_SUCCESS;
}

/* Checks the key fields of a by-key scan: a built-in key type without user key fields, or a user
 * key type with its name, size and equality. */
static clscan_status check_keys(const clscan_scan_desc *d) {
  if (d->key_type == CLSCAN_USER_TYPE) {
    if (!d->key_type_name)
      return clscan__fail(CLSCAN_NULL_ARGUMENT, "a user key type needs key_type_name");
    if (!d->key_equal_source)
      return clscan__fail(CLSCAN_NULL_ARGUMENT, "a user key type needs key_equal_source");
    if (d->key_size == 0)
      return clscan__fail(CLSCAN_INVALID_VALUE, "key_size is 0");
    return CLSCAN_SUCCESS;
  }
  if (!clscan__type_is_builtin(d->key_type))
    return clscan__fail(CLSCAN_INVALID_TYPE, "key_type %d is not a clscan_type", (int)d->key_type);
  if (d->key_type_name || d->key_type_source || d->key_size)
    return clscan__fail(CLSCAN_INVALID_VALUE,
                        "key_type_name, key_type_source or key_size given, but key_type is %s",
                        clscan_type_name(d->key_type));
  return CLSCAN_SUCCESS;
}

/* Checks the segment fields. */
static clscan_status check_segments(const clscan_scan_desc *d) {
  if ((unsigned)d->segments > CLSCAN_SEGMENTS_OFFSETS)
    return clscan__fail(CLSCAN_INVALID_VALUE, "segments %d is not a clscan_segments",
                        (int)d->segments);
  if (d->segments == CLSCAN_SEGMENTS_KEYS)
    return check_keys(d);
  if (d->key_type_name || d->key_type_source || d->key_size || d->key_equal_source)
    return clscan__fail(CLSCAN_INVALID_VALUE,
                        "key_type_name, key_type_source, key_size or key_equal_source given, but "
                        "the scan is not by key");
  if (d->segments == CLSCAN_SEGMENTS_OFFSETS && d->key_type != CLSCAN_INT32 &&
      d->key_type != CLSCAN_UINT32 && d->key_type != CLSCAN_INT64 && d->key_type != CLSCAN_UINT64)
    return clscan__fail(CLSCAN_INVALID_TYPE,
                        "key_type %d: offsets are int32, uint32, int64 or uint64",
                        (int)d->key_type);
  // The offsets calls take no run arguments, and clscan_plan_enqueue_args() no offsets.
  if (d->segments == CLSCAN_SEGMENTS_OFFSETS && (d->arg_count || d->device_init))
    return clscan__fail(CLSCAN_INVALID_VALUE,
                        "segments by offsets take no extra arguments or device_init");
  return CLSCAN_SUCCESS;
}

/*
 * Returns 1 for a scan that Mesa 22.3's rusticl cannot compile: its LLVM JIT crashes (inside
 * clEnqueueNDRangeKernel's launch_grid) on a signed 8-bit value carried through a loop with a
 * barrier when the value may be a non-zero constant, as the identity of int8 mul, min, max and
 * and is (tests/rusticl/int8_identity.c, docs/testing-drivers.md). Such scans are refused there.
 */
static int rusticl_int8_crash(const clscan_context *ctx, const clscan_scan_desc *desc) {
  if (strcmp(ctx->info.platform, "rusticl") != 0 || strncmp(ctx->info.driver, "22.", 3) != 0 ||
      clscan__out_type(desc) != CLSCAN_INT8)
    return 0;
  if (desc->op == CLSCAN_USER_OP)
    return !desc->identity || *(const signed char *)desc->identity != 0;
  return desc->op == CLSCAN_MUL || desc->op == CLSCAN_MIN || desc->op == CLSCAN_MAX ||
         desc->op == CLSCAN_AND;
}

clscan_status clscan__validate_desc(const clscan_context *ctx, const clscan_scan_desc *desc) {
  if (!desc)
    return clscan__fail(CLSCAN_NULL_ARGUMENT, "desc is NULL");
  CLSCAN_RETURN_IF_ERROR(check_types(desc));
  CLSCAN_RETURN_IF_ERROR(check_op(desc));
  CLSCAN_RETURN_IF_ERROR(check_segments(desc));
  CLSCAN_RETURN_IF_ERROR(clscan__validate_args(ctx, desc));
  if ((unsigned)desc->algorithm >= CLSCAN_ALGORITHM_COUNT)
    return clscan__fail(CLSCAN_INVALID_ALGORITHM, "algorithm %d is not a clscan_algorithm",
                        (int)desc->algorithm);

  // Device capabilities.
  int uses_double = desc->type == CLSCAN_DOUBLE || clscan__out_type(desc) == CLSCAN_DOUBLE ||
                    (desc->segments == CLSCAN_SEGMENTS_KEYS && desc->key_type == CLSCAN_DOUBLE);
  if (uses_double && !ctx->info.has_fp64)
    return clscan__fail(CLSCAN_UNSUPPORTED_BY_DEVICE, "device %s has no fp64 (cl_khr_fp64)",
                        ctx->info.name);
  if (rusticl_int8_crash(ctx, desc))
    return clscan__fail(CLSCAN_UNSUPPORTED_BY_DEVICE,
                        "int8 %s scans crash the LLVM JIT of Mesa %s's rusticl (device %s)",
                        clscan_op_name(desc->op), ctx->info.driver, ctx->info.name);
  return CLSCAN_SUCCESS;
}

/* Resolves a buffer to its root buffer and the byte offset of its start within it. */
static clscan_status buffer_root(cl_mem buf, cl_mem *root, size_t *origin) {
  *root = buf;
  *origin = 0;
  for (;;) {
    cl_mem parent = NULL;
    size_t offset = 0;
    cl_int err =
        clGetMemObjectInfo(*root, CL_MEM_ASSOCIATED_MEMOBJECT, sizeof parent, &parent, NULL);
    if (err != CL_SUCCESS)
      return clscan__cl_fail(err, "clGetMemObjectInfo(CL_MEM_ASSOCIATED_MEMOBJECT)");
    if (!parent)
      return CLSCAN_SUCCESS;
    err = clGetMemObjectInfo(*root, CL_MEM_OFFSET, sizeof offset, &offset, NULL);
    if (err != CL_SUCCESS)
      return clscan__cl_fail(err, "clGetMemObjectInfo(CL_MEM_OFFSET)");
    *origin += offset;
    *root = parent;
  }
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
                        "%s holds %zu bytes; offset %zu + n %zu elements need %zu", name, size, off,
                        n, (off + n) * elem);
  return CLSCAN_SUCCESS;
}

clscan_status clscan__check_queue(const clscan_context *ctx, cl_command_queue queue) {
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

clscan_status clscan__range_of(cl_mem buf, size_t off, size_t n, size_t elem,
                               clscan__byte_range *r) {
  size_t origin = 0, size = 0;
  CLSCAN_RETURN_IF_ERROR(buffer_root(buf, &r->root, &origin));
  cl_int err = clGetMemObjectInfo(buf, CL_MEM_SIZE, sizeof size, &size, NULL);
  if (err != CL_SUCCESS)
    return clscan__cl_fail(err, "clGetMemObjectInfo(CL_MEM_SIZE)");
  r->begin = origin + off * elem;
  r->end = r->begin + n * elem;
  r->mem = buf;
  r->mem_begin = origin;
  r->mem_end = origin + size;
  return CLSCAN_SUCCESS;
}

int clscan__ranges_overlap(const clscan__byte_range *a, const clscan__byte_range *b) {
  if (a->root != b->root)
    return 0;
  if (a->mem == b->mem)
    return a->begin < b->end && b->begin < a->end;
  return a->mem_begin < b->mem_end && b->mem_begin < a->mem_end;
}

const char *clscan__overlap_note(const clscan__byte_range *a, const clscan__byte_range *b) {
  return a->mem == b->mem ? ""
                          : " (through a buffer and its sub-buffer or two overlapping sub-buffers, "
                            "which OpenCL leaves undefined whatever the ranges)";
}

/* The number of aux elements a request reads: n flags or keys, or the offsets' count. */
static size_t aux_count(const clscan__sizes *sizes, const clscan__request *req) {
  return sizes->aux_count ? sizes->aux_count : req->n;
}

/* Rejects input and output byte ranges that overlap without being identical (a reduction's one
 * output element: that overlap at all), and an output that overlaps the segment flags or keys.
 * Sets req->in_place when input and output are the same bytes. */
static clscan_status check_overlap(const clscan__sizes *sizes, clscan__request *req) {
  const clscan__buffer *in = &req->buf[CLSCAN__BUF_IN], *out = &req->buf[CLSCAN__BUF_OUT];
  const clscan__buffer *aux = &req->buf[CLSCAN__BUF_AUX];
  clscan__byte_range ri, ro, ra;
  req->in_place = 0;
  if (req->n == 0)
    return CLSCAN_SUCCESS;
  CLSCAN_RETURN_IF_ERROR(clscan__range_of(in->mem, in->off, req->n, sizes->in, &ri));
  CLSCAN_RETURN_IF_ERROR(
      clscan__range_of(out->mem, out->off, sizes->out_one ? 1 : req->n, sizes->out, &ro));
  if (!sizes->out_one && ri.mem == ro.mem && ri.begin == ro.begin && ri.end == ro.end) {
    req->in_place = 1;
  } else if (clscan__ranges_overlap(&ri, &ro)) {
    return clscan__fail(
        CLSCAN_OVERLAP,
        "input bytes [%zu, %zu) and output bytes [%zu, %zu) of one buffer overlap%s", ri.begin,
        ri.end, ro.begin, ro.end, clscan__overlap_note(&ri, &ro));
  }
  if (sizes->aux) {
    CLSCAN_RETURN_IF_ERROR(
        clscan__range_of(aux->mem, aux->off, aux_count(sizes, req), sizes->aux, &ra));
    if (clscan__ranges_overlap(&ra, &ro))
      return clscan__fail(CLSCAN_OVERLAP,
                          "segment bytes [%zu, %zu) and output bytes [%zu, %zu) overlap%s",
                          ra.begin, ra.end, ro.begin, ro.end, clscan__overlap_note(&ra, &ro));
  }
  return CLSCAN_SUCCESS;
}

clscan_status clscan__check_wait_list(cl_uint num_wait, const cl_event *wait_list) {
  if ((num_wait == 0) != (wait_list == NULL))
    return clscan__fail(CLSCAN_INVALID_WAIT_LIST, "num_wait is %u but wait_list is %s",
                        (unsigned)num_wait, wait_list ? "not NULL" : "NULL");
  for (cl_uint i = 0; i < num_wait; i++) {
    if (!wait_list[i])
      return clscan__fail(CLSCAN_INVALID_WAIT_LIST, "wait_list[%u] is NULL", (unsigned)i);
  }
  return CLSCAN_SUCCESS;
}

clscan_status clscan__validate_request(const clscan_context *ctx, const clscan__sizes *sizes,
                                       clscan__request *req) {
  const clscan__buffer *in = &req->buf[CLSCAN__BUF_IN], *out = &req->buf[CLSCAN__BUF_OUT];
  const clscan__buffer *aux = &req->buf[CLSCAN__BUF_AUX];
  if (!in->mem)
    return clscan__fail(CLSCAN_NULL_ARGUMENT, "input buffer is NULL");
  if (!out->mem)
    return clscan__fail(CLSCAN_NULL_ARGUMENT, "output buffer is NULL");
  if (sizes->aux && !aux->mem)
    return clscan__fail(CLSCAN_NULL_ARGUMENT, "flags, keys or offsets buffer is NULL");
  CLSCAN_RETURN_IF_ERROR(clscan__check_wait_list(req->num_wait, req->wait_list));
  if (!req->queue)
    req->queue = ctx->queue;
  CLSCAN_RETURN_IF_ERROR(clscan__check_queue(ctx, req->queue));
  CLSCAN_RETURN_IF_ERROR(check_buffer(ctx, in->mem, in->off, req->n, sizes->in, 0, "input buffer"));
  CLSCAN_RETURN_IF_ERROR(check_buffer(ctx, out->mem, out->off, sizes->out_one ? 1 : req->n,
                                      sizes->out, 1, "output buffer"));
  if (sizes->aux)
    CLSCAN_RETURN_IF_ERROR(check_buffer(ctx, aux->mem, aux->off, aux_count(sizes, req), sizes->aux,
                                        0, "flags, keys or offsets buffer"));
  return check_overlap(sizes, req);
}

/* ============================================================================================== */
/* Extra arguments, device-resident initial values and device totals                              */
/* ============================================================================================== */

/* Returns 1 if s is an OpenCL C identifier that user sources may use for an extra argument. */
static int valid_arg_name(const char *s) {
  if (!(isalpha((unsigned char)s[0]) || s[0] == '_'))
    return 0;
  for (const char *p = s + 1; *p; p++) {
    if (!(isalnum((unsigned char)*p) || *p == '_'))
      return 0;
  }
  // The map's own parameters, and the library's names.
  return strcmp(s, "x") != 0 && strcmp(s, "i") != 0 && strncmp(s, "clscan", 6) != 0 &&
         strncmp(s, "CLSCAN", 6) != 0;
}

/* Checks the type fields of extra argument k. */
static clscan_status check_arg_type(const clscan_context *ctx, const clscan_arg *a, size_t k) {
  if (a->type == CLSCAN_USER_TYPE && a->kind == CLSCAN_ARG_BUFFER) {
    if (!a->type_name)
      return clscan__fail(CLSCAN_NULL_ARGUMENT, "args[%zu] (%s): a user type needs type_name", k,
                          a->name);
    if (a->type_size == 0)
      return clscan__fail(CLSCAN_INVALID_VALUE, "args[%zu] (%s): type_size is 0", k, a->name);
    return CLSCAN_SUCCESS;
  }
  if (!clscan__type_is_builtin(a->type))
    return clscan__fail(
        CLSCAN_INVALID_TYPE, "args[%zu] (%s): type %d is not a built-in clscan_type%s", k, a->name,
        (int)a->type, a->kind == CLSCAN_ARG_SCALAR ? " (scalars are built-in)" : "");
  if (a->type_name || a->type_size)
    return clscan__fail(CLSCAN_INVALID_VALUE,
                        "args[%zu] (%s): type_name or type_size given for a built-in type", k,
                        a->name);
  if (a->type == CLSCAN_DOUBLE && !ctx->info.has_fp64)
    return clscan__fail(CLSCAN_UNSUPPORTED_BY_DEVICE, "args[%zu] (%s): device %s has no fp64", k,
                        a->name, ctx->info.name);
  return CLSCAN_SUCCESS;
}

/* Checks extra argument k: name, kind, access, type; `ab_reserved` also refuses the names a and
 * b (a user operator's or equality's parameters). */
static clscan_status check_arg(const clscan_context *ctx, const clscan_scan_desc *d, size_t k,
                               int ab_reserved) {
  const clscan_arg *a = &d->args[k];
  if (!a->name)
    return clscan__fail(CLSCAN_NULL_ARGUMENT, "args[%zu].name is NULL", k);
  if (!valid_arg_name(a->name))
    return clscan__fail(CLSCAN_INVALID_VALUE,
                        "args[%zu].name \"%s\" is not an identifier user code may use (not x, i, "
                        "or starting with clscan)",
                        k, a->name);
  if ((ab_reserved || d->op == CLSCAN_USER_OP) &&
      (strcmp(a->name, "a") == 0 || strcmp(a->name, "b") == 0))
    return clscan__fail(CLSCAN_INVALID_VALUE,
                        "args[%zu].name \"%s\" is a parameter of a user operator or equality "
                        "(not a or b)",
                        k, a->name);
  for (size_t j = 0; j < k; j++) {
    if (strcmp(d->args[j].name, a->name) == 0)
      return clscan__fail(CLSCAN_INVALID_VALUE, "args[%zu] and args[%zu] are both named %s", j, k,
                          a->name);
  }
  if ((unsigned)a->kind > CLSCAN_ARG_SCALAR)
    return clscan__fail(CLSCAN_INVALID_VALUE, "args[%zu] (%s): kind %d is not a clscan_arg_kind", k,
                        a->name, (int)a->kind);
  if ((unsigned)a->access > CLSCAN_ARG_READ_WRITE ||
      (a->kind == CLSCAN_ARG_SCALAR && a->access != CLSCAN_ARG_READ))
    return clscan__fail(CLSCAN_INVALID_VALUE, "args[%zu] (%s): access %d (scalars are read only)",
                        k, a->name, (int)a->access);
  return check_arg_type(ctx, a, k);
}

clscan_status clscan__validate_args(const clscan_context *ctx, const clscan_scan_desc *d) {
  if (d->device_init && d->init)
    return clscan__fail(CLSCAN_INVALID_VALUE, "device_init is set, so init must be NULL");
  if (d->arg_count && !d->map_source && d->op != CLSCAN_USER_OP && !d->key_equal_source)
    return clscan__fail(CLSCAN_INVALID_VALUE,
                        "extra arguments are read by map_source, op_source or "
                        "key_equal_source, and the descriptor has none of them");
  // a and b are the key equality's parameters as they are a user operator's.
  return clscan__validate_arg_list(ctx, d, d->key_equal_source != NULL);
}

clscan_status clscan__validate_arg_list(const clscan_context *ctx, const clscan_scan_desc *d,
                                        int ab_reserved) {
  if (!d->arg_count)
    return d->args ? clscan__fail(CLSCAN_INVALID_VALUE, "args given with arg_count 0")
                   : CLSCAN_SUCCESS;
  if (d->arg_count > CLSCAN_MAX_ARGS)
    return clscan__fail(CLSCAN_INVALID_VALUE, "arg_count %zu exceeds CLSCAN_MAX_ARGS (%d)",
                        d->arg_count, CLSCAN_MAX_ARGS);
  if (!d->args)
    return clscan__fail(CLSCAN_NULL_ARGUMENT, "arg_count is %zu but args is NULL", d->arg_count);
  for (size_t k = 0; k < d->arg_count; k++)
    CLSCAN_RETURN_IF_ERROR(check_arg(ctx, d, k, ab_reserved));
  return CLSCAN_SUCCESS;
}

/* Byte range of a request's output (one element for a reduction). */
static clscan_status output_range(const clscan_plan *plan, const clscan__request *req, int reduce,
                                  clscan__byte_range *r) {
  const clscan__buffer *out = &req->buf[CLSCAN__BUF_OUT];
  return clscan__range_of(out->mem, out->off, reduce ? 1 : req->n, plan->out_size, r);
}

/* Checks a byte range of an extra value against the output range (and, for what is written,
 * the input range). */
static clscan_status check_value_overlap(const clscan_plan *plan, const clscan__request *req,
                                         int reduce, const clscan__byte_range *v, int written,
                                         const char *name) {
  clscan__byte_range ro, ri;
  CLSCAN_RETURN_IF_ERROR(output_range(plan, req, reduce, &ro));
  if (clscan__ranges_overlap(v, &ro))
    return clscan__fail(CLSCAN_OVERLAP, "%s bytes [%zu, %zu) overlap the output bytes [%zu, %zu)%s",
                        name, v->begin, v->end, ro.begin, ro.end, clscan__overlap_note(v, &ro));
  const clscan__buffer *in = &req->buf[CLSCAN__BUF_IN];
  CLSCAN_RETURN_IF_ERROR(clscan__range_of(in->mem, in->off, req->n, plan->in_size, &ri));
  if (written && clscan__ranges_overlap(v, &ri))
    return clscan__fail(CLSCAN_OVERLAP, "%s bytes [%zu, %zu) overlap the input bytes [%zu, %zu)%s",
                        name, v->begin, v->end, ri.begin, ri.end, clscan__overlap_note(v, &ri));
  return CLSCAN_SUCCESS;
}

size_t clscan__arg_size(const clscan_arg *a) {
  return a->type == CLSCAN_USER_TYPE ? a->type_size : clscan_type_size(a->type);
}

clscan_status clscan__value_take(const clscan_arg *a, const clscan_arg_value *v, size_t k,
                                 const char *name, clscan__extra *x) {
  if (a->kind == CLSCAN_ARG_SCALAR) {
    if (v->buffer)
      return clscan__fail(CLSCAN_INVALID_VALUE, "%s is a scalar, but buffer is set", name);
    if (!v->scalar)
      return clscan__fail(CLSCAN_NULL_ARGUMENT, "%s: scalar is NULL", name);
    memcpy(x->scalar[k], v->scalar, clscan__arg_size(a));
    x->arg[x->count++] = (clscan__karg){clscan__arg_size(a), x->scalar[k]};
    return CLSCAN_SUCCESS;
  }
  if (v->scalar)
    return clscan__fail(CLSCAN_INVALID_VALUE, "%s is a buffer, but scalar is set", name);
  if (!v->buffer)
    return clscan__fail(CLSCAN_NULL_ARGUMENT, "%s: buffer is NULL", name);
  x->mem[k] = v->buffer;
  x->off[k] = v->offset;
  x->arg[x->count++] = (clscan__karg)CLSCAN__ARG(x->mem[k]);
  x->arg[x->count++] = (clscan__karg)CLSCAN__ARG(x->off[k]);
  return CLSCAN_SUCCESS;
}

/* Checks the value of extra argument k and appends its kernel arguments to x. */
static clscan_status check_value(const clscan_plan *plan, const clscan__request *req, int reduce,
                                 const clscan_arg_value *v, size_t k, clscan__extra *x) {
  const clscan_arg *a = &plan->desc.args[k];
  char name[96];
  snprintf(name, sizeof name, "values[%zu] (%s)", k, a->name);
  CLSCAN_RETURN_IF_ERROR(clscan__value_take(a, v, k, name, x));
  if (a->kind == CLSCAN_ARG_SCALAR)
    return CLSCAN_SUCCESS;
  size_t size = clscan__arg_size(a);
  int written = a->access == CLSCAN_ARG_READ_WRITE;
  size_t length = v->length ? v->length : req->n;
  CLSCAN_RETURN_IF_ERROR(
      check_buffer(plan->ctx, v->buffer, v->offset, length, size, written, name));
  clscan__byte_range r;
  CLSCAN_RETURN_IF_ERROR(clscan__range_of(v->buffer, v->offset, length, size, &r));
  return check_value_overlap(plan, req, reduce, &r, written, name);
}

/* Checks one device element at a byte offset (the initial value or the total). */
static clscan_status check_element(const clscan_plan *plan, const clscan__request *req, int reduce,
                                   cl_mem buf, size_t byte_off, int written, const char *name) {
  size_t size = plan->out_size;
  if (byte_off % size)
    return clscan__fail(CLSCAN_INVALID_VALUE,
                        "%s offset %zu is not a multiple of the output element's %zu bytes", name,
                        byte_off, size);
  CLSCAN_RETURN_IF_ERROR(check_buffer(plan->ctx, buf, byte_off / size, 1, size, written, name));
  clscan__byte_range r;
  CLSCAN_RETURN_IF_ERROR(clscan__range_of(buf, byte_off / size, 1, size, &r));
  return check_value_overlap(plan, req, reduce, &r, written, name);
}

/* Checks the device initial value and appends its kernel arguments to x. */
static clscan_status check_init(const clscan_plan *plan, const clscan_run_args *run,
                                const clscan__request *req, int reduce, clscan__extra *x) {
  if (!plan->desc.device_init)
    return run->init ? clscan__fail(CLSCAN_INVALID_VALUE,
                                    "init buffer given, but the plan's desc.device_init is 0")
                     : CLSCAN_SUCCESS;
  if (!run->init)
    return clscan__fail(CLSCAN_NULL_ARGUMENT, "the plan has device_init, and run->init is NULL");
  CLSCAN_RETURN_IF_ERROR(
      check_element(plan, req, reduce, run->init, run->init_offset, 0, "init buffer"));
  x->device_seed = 1;
  x->mem[CLSCAN_MAX_ARGS] = run->init;
  x->off[CLSCAN_MAX_ARGS] = run->init_offset / plan->out_size;
  x->arg[x->count++] = (clscan__karg)CLSCAN__ARG(x->mem[CLSCAN_MAX_ARGS]);
  x->arg[x->count++] = (clscan__karg)CLSCAN__ARG(x->off[CLSCAN_MAX_ARGS]);
  return CLSCAN_SUCCESS;
}

/* Checks the device total. */
static clscan_status check_total(const clscan_plan *plan, const clscan_run_args *run,
                                 clscan__request *req, int reduce) {
  if (!run->total)
    return CLSCAN_SUCCESS;
  if (reduce)
    return clscan__fail(CLSCAN_INVALID_VALUE, "a reduction has no total: its result is the total");
  if (plan->desc.segments)
    return clscan__fail(CLSCAN_INVALID_VALUE, "segmented scans have no device total");
  CLSCAN_RETURN_IF_ERROR(
      check_element(plan, req, reduce, run->total, run->total_offset, 1, "total buffer"));
  req->total.mem = run->total;
  req->total.off = run->total_offset / plan->out_size;
  return CLSCAN_SUCCESS;
}

clscan_status clscan__validate_run(const clscan_plan *plan, const clscan_run_args *run, int reduce,
                                   clscan__request *req, clscan__extra *x) {
  static const clscan_run_args none = {0};
  if (!run)
    run = &none;
  memset(x, 0, sizeof *x);
  if (run->value_count != plan->desc.arg_count)
    return clscan__fail(CLSCAN_INVALID_VALUE, "value_count is %zu; the plan has %zu arguments",
                        run->value_count, plan->desc.arg_count);
  if (run->value_count && !run->values)
    return clscan__fail(CLSCAN_NULL_ARGUMENT, "values is NULL with value_count %zu",
                        run->value_count);
  for (size_t k = 0; k < run->value_count; k++)
    CLSCAN_RETURN_IF_ERROR(check_value(plan, req, reduce, &run->values[k], k, x));
  CLSCAN_RETURN_IF_ERROR(check_init(plan, run, req, reduce, x));
  CLSCAN_RETURN_IF_ERROR(check_total(plan, run, req, reduce));
  req->extra = plan->desc.arg_count || plan->desc.device_init ? x : NULL;
  return CLSCAN_SUCCESS;
}

clscan_status clscan__check_host_ranges(const void *in, size_t in_bytes, const void *out,
                                        size_t out_bytes, const void *segments, size_t seg_bytes) {
  const char *a = in, *b = out, *c = segments;
  int same = a == b && in_bytes == out_bytes;
  if (!same && a < b + out_bytes && b < a + in_bytes)
    return clscan__fail(CLSCAN_OVERLAP, "host input and output overlap without being identical");
  if (c && c < b + out_bytes && b < c + seg_bytes)
    return clscan__fail(CLSCAN_OVERLAP, "host output and segments overlap");
  return CLSCAN_SUCCESS;
}
