/*
 * What the stand-alone driver reproducers (tests/rusticl/, tests/pocl/) share: finding the first
 * device of a platform by its name.
 */
#ifndef CLSCAN_TESTS_DRIVER_DEVICE_H_
#define CLSCAN_TESTS_DRIVER_DEVICE_H_

#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <string.h>

/* Returns the first device of the platform named `platform_name`, or NULL. */
static inline cl_device_id driver_device(const char *platform_name) {
  cl_platform_id platforms[8];
  cl_uint np = 0;
  if (clGetPlatformIDs(8, platforms, &np) != CL_SUCCESS)
    return NULL;
  for (cl_uint p = 0; p < np && p < 8; p++) {
    char name[128] = "";
    cl_device_id dev;
    cl_uint nd = 0;
    clGetPlatformInfo(platforms[p], CL_PLATFORM_NAME, sizeof name - 1, name, NULL);
    if (strcmp(name, platform_name) == 0 &&
        clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, 1, &dev, &nd) == CL_SUCCESS && nd > 0)
      return dev;
  }
  return NULL;
}

#endif /* CLSCAN_TESTS_DRIVER_DEVICE_H_ */
