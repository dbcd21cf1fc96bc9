/*
 * clscan: device facts: what a device is and can do (names, limits, fp64, 64-bit atomics), and
 * whether it compiles the inline PTX of the NVIDIA tile path (a probe build, cached in the
 * context).
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* Returns 1 if the space-separated extension list contains `name` as a whole word. */
static int has_extension(const char *list, const char *name) {
  size_t len = strlen(name);
  for (const char *p = strstr(list, name); p; p = strstr(p + 1, name)) {
    int starts = p == list || p[-1] == ' ';
    int ends = p[len] == '\0' || p[len] == ' ';
    if (starts && ends)
      return 1;
  }
  return 0;
}

/* NVIDIA's compute capability as major * 10 + minor (cl_nv_device_attribute_query), or 0 where
 * the driver does not answer. */
static unsigned nv_compute_capability(cl_device_id device) {
  cl_uint major = 0, minor = 0;
  if (clGetDeviceInfo(device, 0x4000 /* CL_DEVICE_COMPUTE_CAPABILITY_MAJOR_NV */, sizeof major,
                      &major, NULL) != CL_SUCCESS ||
      clGetDeviceInfo(device, 0x4001 /* CL_DEVICE_COMPUTE_CAPABILITY_MINOR_NV */, sizeof minor,
                      &minor, NULL) != CL_SUCCESS ||
      major > 100 || minor > 9)
    return 0;
  return major * 10 + minor;
}

int clscan__contains_ci(const char *hay, const char *needle) {
  size_t n = strlen(needle);
  for (; *hay; hay++) {
    size_t i = 0;
    while (i < n && hay[i] && tolower((unsigned char)hay[i]) == tolower((unsigned char)needle[i]))
      i++;
    if (i == n)
      return 1;
  }
  return 0;
}

clscan_status clscan__device_query(cl_device_id device, clscan__device_info *info) {
  clscan_status st = CLSCAN_SUCCESS;
  char *ext = NULL;
  size_t ext_size = 0;
  cl_platform_id platform = NULL;
  cl_device_type type = 0;
  memset(info, 0, sizeof *info);

  // Names and versions identify the device in the tuning table and in reports.
  CLSCAN_CL(clGetDeviceInfo(device, CL_DEVICE_NAME, sizeof info->name - 1, info->name, NULL));
  CLSCAN_CL(clGetDeviceInfo(device, CL_DEVICE_VENDOR, sizeof info->vendor - 1, info->vendor, NULL));
  CLSCAN_CL(
      clGetDeviceInfo(device, CL_DRIVER_VERSION, sizeof info->driver - 1, info->driver, NULL));
  CLSCAN_CL(clGetDeviceInfo(device, CL_DEVICE_PLATFORM, sizeof platform, &platform, NULL));
  CLSCAN_CL(clGetPlatformInfo(platform, CL_PLATFORM_NAME, sizeof info->platform - 1, info->platform,
                              NULL));

  // Limits that shape launches and temporary storage.
  CLSCAN_CL(clGetDeviceInfo(device, CL_DEVICE_TYPE, sizeof type, &type, NULL));
  CLSCAN_CL(clGetDeviceInfo(device, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof info->compute_units,
                            &info->compute_units, NULL));
  CLSCAN_CL(clGetDeviceInfo(device, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof info->max_wg,
                            &info->max_wg, NULL));
  CLSCAN_CL(clGetDeviceInfo(device, CL_DEVICE_LOCAL_MEM_SIZE, sizeof info->local_mem,
                            &info->local_mem, NULL));
  CLSCAN_CL(clGetDeviceInfo(device, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof info->max_alloc,
                            &info->max_alloc, NULL));

  // Capabilities: fp64 for double, 64-bit atomics for the single-pass status words.
  CLSCAN_CL(clGetDeviceInfo(device, CL_DEVICE_EXTENSIONS, 0, NULL, &ext_size));
  ext = calloc(ext_size + 1, 1);
  if (!ext) {
    st = clscan__fail(CLSCAN_OUT_OF_HOST_MEMORY, "device extensions");
    goto fail;
  }
  CLSCAN_CL(clGetDeviceInfo(device, CL_DEVICE_EXTENSIONS, ext_size, ext, NULL));
  info->has_fp64 = has_extension(ext, "cl_khr_fp64");
  info->has_int64_atomics = has_extension(ext, "cl_khr_int64_base_atomics") &&
                            has_extension(ext, "cl_khr_int64_extended_atomics");
  info->is_nvidia =
      clscan__contains_ci(info->vendor, "nvidia") || clscan__contains_ci(info->platform, "nvidia");
  if (info->is_nvidia && has_extension(ext, "cl_nv_device_attribute_query"))
    info->nv_sm = nv_compute_capability(device);
  info->is_cpu = (type & CL_DEVICE_TYPE_CPU) != 0;
  free(ext);
  return CLSCAN_SUCCESS;
fail:
  free(ext);
  return st;
}

/* ============================================================================================== */
/* The NVIDIA inline-PTX probe                                                                    */
/* ============================================================================================== */

/* A test compile of the inline PTX the tile scan uses. */
static const clscan__program ptx_probe = {
    .name = "ptx_probe",
    .files = {"common", "tile", NULL},
    .vector_io_option = 1,
};

clscan_status clscan__device_has_nv_ptx(clscan_context *ctx, int *has) {
  int known = atomic_load(&ctx->nv_ptx);
  if (known >= 0) {
    *has = known;
    return CLSCAN_SUCCESS;
  }

  // Only NVIDIA devices are probed: elsewhere inline PTX cannot compile.
  int ok = 0;
  if (ctx->info.is_nvidia && !clscan__env_present(CLSCAN__ENV_NO_PTX)) {
    clscan__kernel_config cfg = {.program = &ptx_probe, .wg = 256, .vpt = 1, .nv_ptx = 1};
    cl_program probe = NULL;
    clscan_status st = clscan__program_get(ctx, &cfg, &probe);
    // A compile error means no PTX here, for good; any other failure is reported, not cached.
    if (st != CLSCAN_SUCCESS && st != CLSCAN_BUILD_FAILED)
      return st;
    ok = st == CLSCAN_SUCCESS;
    clscan__clear_error();
  }
  // The compute capability travels with the answer, so that kernels can use newer PTX.
  if (ok && ctx->info.nv_sm > 1)
    ok = (int)ctx->info.nv_sm;
  atomic_store(&ctx->nv_ptx, ok);
  *has = ok;
  return CLSCAN_SUCCESS;
}
