/*
 * Stand-alone reproducer: clCreateSubDevices on Mesa rusticl crashes the process.
 *
 * Mesa 22.3.6 (Debian 12's mesa-opencl-icd 22.3.6-1+deb12u2) reports
 * CL_DEVICE_PARTITION_MAX_SUB_DEVICES = 0 for its llvmpipe device, which is allowed, but its ICD
 * dispatch table has no clCreateSubDevices entry, so the ocl-icd loader calls a null pointer and
 * the program dies with SIGSEGV. OpenCL 3.0 asks for CL_INVALID_VALUE (or
 * CL_DEVICE_PARTITION_FAILED) from a device that cannot be partitioned.
 *
 *   cc tests/rusticl/sub_devices.c -lOpenCL -o sub_devices && RUSTICL_ENABLE=llvmpipe ./sub_devices
 *
 * Prints "fixed" and exits 0 when the call returns; crashes (exit status 139) where the bug is.
 * Exits 77 when no rusticl device is found. clscan's tests avoid the call where the device reports
 * no partitioning (tests/test_errors.c, first_sub_device).
 */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>
#include <string.h>

int main(void) {
  cl_platform_id platforms[8];
  cl_uint np = 0;
  if (clGetPlatformIDs(8, platforms, &np) != CL_SUCCESS)
    return 77;
  for (cl_uint p = 0; p < np && p < 8; p++) {
    char name[128] = "";
    cl_device_id dev;
    cl_uint nd = 0, max_sub = 0;
    clGetPlatformInfo(platforms[p], CL_PLATFORM_NAME, sizeof name - 1, name, NULL);
    if (strcmp(name, "rusticl") != 0 ||
        clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, 1, &dev, &nd) != CL_SUCCESS || nd == 0)
      continue;
    clGetDeviceInfo(dev, CL_DEVICE_PARTITION_MAX_SUB_DEVICES, sizeof max_sub, &max_sub, NULL);
    printf("rusticl: CL_DEVICE_PARTITION_MAX_SUB_DEVICES = %u; calling clCreateSubDevices\n",
           max_sub);
    fflush(stdout);
    const cl_device_partition_property props[] = {CL_DEVICE_PARTITION_EQUALLY, 1, 0};
    cl_uint count = 0;
    cl_int err = clCreateSubDevices(dev, props, 0, NULL, &count);
    printf("fixed: clCreateSubDevices returned %d (count %u)\n", err, count);
    return 0;
  }
  printf("no rusticl device (set RUSTICL_ENABLE=llvmpipe)\n");
  return 77;
}
