/*
 * What the stand-alone Oclgrind reproducers of this folder share: the first device of the first
 * platform (run them with OCL_ICD_VENDORS naming a folder that holds only Oclgrind's ICD, or
 * through the oclgrind command), a program built from one source, and the number of messages in
 * Oclgrind's log (the file OCLGRIND_LOG names) that start with a given text.
 */
#ifndef CLSCAN_TESTS_OCLGRIND_COMMON_H_
#define CLSCAN_TESTS_OCLGRIND_COMMON_H_

#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct og_env {
  cl_device_id dev;
  cl_context ctx;
  cl_command_queue queue;
  cl_program prog;
} og_env;

/* Sets up the device, context, queue and program; returns 0 (with a message) on failure. */
static int og_setup(og_env *e, const char *source) {
  cl_platform_id platform;
  cl_int err;
  char name[256] = "";
  if (clGetPlatformIDs(1, &platform, NULL) != CL_SUCCESS ||
      clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &e->dev, NULL) != CL_SUCCESS) {
    printf("no OpenCL device\n");
    return 0;
  }
  clGetDeviceInfo(e->dev, CL_DEVICE_NAME, sizeof name - 1, name, NULL);
  if (!strstr(name, "Oclgrind")) {
    printf("the device is \"%s\", not Oclgrind\n", name);
    return 0;
  }
  e->ctx = clCreateContext(NULL, 1, &e->dev, NULL, NULL, &err);
  e->queue = clCreateCommandQueue(e->ctx, e->dev, 0, &err);
  e->prog = clCreateProgramWithSource(e->ctx, 1, &source, NULL, &err);
  if (clBuildProgram(e->prog, 1, &e->dev, "", NULL, NULL) != CL_SUCCESS) {
    printf("build failed\n");
    return 0;
  }
  return 1;
}

static void og_teardown(og_env *e) {
  clReleaseProgram(e->prog);
  clReleaseCommandQueue(e->queue);
  clReleaseContext(e->ctx);
}

/* Runs kernel k over `global` work-items (the queue is finished after it). */
static void og_run(og_env *e, cl_kernel k, size_t global) {
  clEnqueueNDRangeKernel(e->queue, k, 1, NULL, &global, NULL, 0, NULL, NULL);
  clFinish(e->queue);
}

/* Counts the messages of Oclgrind's log that start with `header` (-1: no OCLGRIND_LOG). */
static long og_count(const char *header) {
  const char *path = getenv("OCLGRIND_LOG");
  FILE *f = path ? fopen(path, "r") : NULL;
  if (!f)
    return path ? 0 : -1;
  char line[1024];
  long count = 0;
  while (fgets(line, sizeof line, f))
    count += strncmp(line, header, strlen(header)) == 0;
  fclose(f);
  return count;
}

/* Prints the verdict: "fixed" (exit status 0) without messages, else the count (status 1). */
static int og_verdict(const char *header, const char *what) {
  long count = og_count(header);
  if (count < 0) {
    printf("set OCLGRIND_LOG (and OCLGRIND_UNINITIALIZED=1)\n");
    return 2;
  }
  if (count == 0) {
    printf("fixed\n");
    return 0;
  }
  printf("bug: %ld \"%s\" messages: %s\n", count, header, what);
  return 1;
}

#endif /* CLSCAN_TESTS_OCLGRIND_COMMON_H_ */
