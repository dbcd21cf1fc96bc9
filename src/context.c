/*
 * clscan: contexts (one device of one cl_context) and default device selection.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* Creates the context's default in-order queue, with profiling so that benchmarks can time it. */
static cl_command_queue create_queue(cl_context cl_ctx, cl_device_id device, cl_int *err) {
  return clCreateCommandQueue(cl_ctx, device, CL_QUEUE_PROFILING_ENABLE, err);
}

/* Checks that a device belongs to a cl_context. */
static clscan_status device_in_context(cl_context cl_ctx, cl_device_id device) {
  cl_device_id devices[64];
  size_t bytes = 0;
  cl_int err = clGetContextInfo(cl_ctx, CL_CONTEXT_DEVICES, sizeof devices, devices, &bytes);
  if (err != CL_SUCCESS)
    return clscan__cl_fail(err, "clGetContextInfo(CL_CONTEXT_DEVICES)");
  for (size_t i = 0; i < bytes / sizeof devices[0]; i++) {
    if (devices[i] == device)
      return CLSCAN_SUCCESS;
  }
  return clscan__fail(CLSCAN_INVALID_VALUE, "the device is not part of the cl_context");
}

/* Releases what a context holds (every part may be missing, after a failed creation). */
static void context_free(clscan_context *ctx, int plans, int programs, int temp) {
  // Plans made for clscan_scan() belong to the context; work already enqueued completes.
  if (plans)
    clscan__plan_cache_clear(&ctx->plan_cache);
  if (ctx->queue)
    clFinish(ctx->queue);
  if (temp)
    clscan__temp_clear(&ctx->temp);
  if (programs)
    clscan__program_cache_clear(&ctx->programs);
  if (ctx->queue)
    clReleaseCommandQueue(ctx->queue);
  if (ctx->device)
    clReleaseDevice(ctx->device);
  if (ctx->cl_ctx)
    clReleaseContext(ctx->cl_ctx);
  free(ctx);
}

clscan_status clscan_context_create(cl_context cl_ctx, cl_device_id device, clscan_context **out) {
  clscan_status st = CLSCAN_SUCCESS;
  int plans = 0, programs = 0, temp = 0;
  clscan__clear_error();
  if (!out)
    return clscan__fail(CLSCAN_NULL_ARGUMENT, "out is NULL");
  *out = NULL;
  if (!cl_ctx || !device)
    return clscan__fail(CLSCAN_NULL_ARGUMENT, "cl_ctx or device is NULL");
  CLSCAN_RETURN_IF_ERROR(device_in_context(cl_ctx, device));

  clscan_context *ctx = calloc(1, sizeof *ctx);
  if (!ctx)
    return clscan__fail(CLSCAN_OUT_OF_HOST_MEMORY, "context");
  atomic_init(&ctx->nv_ptx, -1);
  CLSCAN_TRY(clscan__device_query(device, &ctx->info));
  CLSCAN_TRY(clscan__plan_cache_init(&ctx->plan_cache));
  plans = 1;
  CLSCAN_TRY(clscan__program_cache_init(&ctx->programs));
  programs = 1;
  CLSCAN_TRY(clscan__temp_init(&ctx->temp));
  temp = 1;
  cl_int err;
  ctx->queue = create_queue(cl_ctx, device, &err);
  if (err != CL_SUCCESS) {
    ctx->queue = NULL;
    st = clscan__cl_fail(err, "clCreateCommandQueue");
    goto fail;
  }

  // The context keeps its own references to the caller's OpenCL objects.
  clRetainContext(cl_ctx);
  clRetainDevice(device);
  ctx->cl_ctx = cl_ctx;
  ctx->device = device;
  *out = ctx;
  return CLSCAN_SUCCESS;
fail:
  context_free(ctx, plans, programs, temp);
  return st;
}

/* Returns 1 if a device matches a CLSCAN_DEVICE selector ("P:D" or a name substring). */
static int selector_matches(const char *sel, cl_uint p, cl_uint d, cl_platform_id platform,
                            cl_device_id device) {
  unsigned sp, sd;
  char tail;
  if (sscanf(sel, "%u:%u%c", &sp, &sd, &tail) == 2)
    return sp == p && sd == d;
  char pname[256] = "", dname[256] = "";
  clGetPlatformInfo(platform, CL_PLATFORM_NAME, sizeof pname - 1, pname, NULL);
  clGetDeviceInfo(device, CL_DEVICE_NAME, sizeof dname - 1, dname, NULL);
  return clscan__contains_ci(pname, sel) || clscan__contains_ci(dname, sel);
}

/* Finds the default device: CLSCAN_DEVICE, else the first GPU, else the first device. */
static clscan_status find_default_device(cl_device_id *out) {
  cl_platform_id platforms[16];
  cl_uint np = 0;
  const char *sel = clscan__env_string(CLSCAN__ENV_DEVICE);
  if (clGetPlatformIDs(16, platforms, &np) != CL_SUCCESS || np == 0)
    return clscan__fail(CLSCAN_NO_DEVICE, "no OpenCL platform found");
  cl_device_id first = NULL, gpu = NULL;
  for (cl_uint p = 0; p < np && p < 16; p++) {
    cl_device_id devices[16];
    cl_uint nd = 0;
    if (clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, 16, devices, &nd) != CL_SUCCESS)
      continue;
    for (cl_uint d = 0; d < nd && d < 16; d++) {
      cl_device_type type = 0;
      clGetDeviceInfo(devices[d], CL_DEVICE_TYPE, sizeof type, &type, NULL);
      if (sel && selector_matches(sel, p, d, platforms[p], devices[d])) {
        *out = devices[d];
        return CLSCAN_SUCCESS;
      }
      if (!first)
        first = devices[d];
      if (!gpu && (type & CL_DEVICE_TYPE_GPU))
        gpu = devices[d];
    }
  }
  if (sel)
    return clscan__fail(CLSCAN_NO_DEVICE, "CLSCAN_DEVICE=%s matches no device", sel);
  *out = gpu ? gpu : first;
  return *out ? CLSCAN_SUCCESS : clscan__fail(CLSCAN_NO_DEVICE, "no OpenCL device found");
}

clscan_status clscan_context_create_default(clscan_context **out) {
  clscan__clear_error();
  if (!out)
    return clscan__fail(CLSCAN_NULL_ARGUMENT, "out is NULL");
  *out = NULL;
  cl_device_id device = NULL;
  CLSCAN_RETURN_IF_ERROR(find_default_device(&device));
  cl_int err;
  cl_context cl_ctx = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
  if (err != CL_SUCCESS)
    return clscan__cl_fail(err, "clCreateContext");
  clscan_status st = clscan_context_create(cl_ctx, device, out);
  clReleaseContext(cl_ctx); /* the clscan context holds its own reference */
  return st;
}

void clscan_context_release(clscan_context *ctx) {
  if (ctx)
    context_free(ctx, 1, 1, 1);
}

cl_context clscan_context_cl_context(const clscan_context *ctx) {
  return ctx ? ctx->cl_ctx : NULL;
}

cl_device_id clscan_context_device(const clscan_context *ctx) {
  return ctx ? ctx->device : NULL;
}

cl_command_queue clscan_context_queue(const clscan_context *ctx) {
  return ctx ? ctx->queue : NULL;
}

clscan_status clscan_context_build_log(const clscan_context *ctx, char *buf, size_t size,
                                       size_t *needed) {
  if (!ctx || (!buf && size))
    return clscan__fail(CLSCAN_NULL_ARGUMENT, "ctx or buf is NULL");
  clscan_context *mut = (clscan_context *)ctx; /* the cache's lock is internal state */
  clscan__program_build_log(&mut->programs, buf, size, needed);
  return CLSCAN_SUCCESS;
}

clscan_status clscan_context_supports(const clscan_context *ctx, const clscan_scan_desc *desc) {
  clscan__clear_error();
  if (!ctx)
    return clscan__fail(CLSCAN_NULL_ARGUMENT, "ctx is NULL");
  return clscan__validate_desc(ctx, desc);
}
