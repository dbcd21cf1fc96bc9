/*
 * What the stand-alone rusticl reproducers of this folder share: finding rusticl's device (it
 * shows its llvmpipe device only with RUSTICL_ENABLE=llvmpipe).
 */
#ifndef CLSCAN_TESTS_RUSTICL_DEVICE_H_
#define CLSCAN_TESTS_RUSTICL_DEVICE_H_

#include <stdio.h>

#include "../driver_device.h"

/* Returns the first device of the rusticl platform, or NULL. */
static inline cl_device_id rusticl_device(void) {
  return driver_device("rusticl");
}

/* What a reproducer runs on: rusticl's device, a context and a queue, and its program. */
typedef struct rusticl_setup {
  cl_device_id dev;
  cl_context ctx;
  cl_command_queue q;
  cl_program prog;
} rusticl_setup;

/* Builds `source` on rusticl's device into s; returns 0 when it runs, else the exit status (77
 * without a rusticl device, 1 when the program does not build), after saying why. */
static inline int rusticl_setup_build(rusticl_setup *s, const char *source) {
  cl_int err;
  s->dev = rusticl_device();
  if (!s->dev) {
    printf("no rusticl device (set RUSTICL_ENABLE=llvmpipe)\n");
    return 77;
  }
  s->ctx = clCreateContext(NULL, 1, &s->dev, NULL, NULL, &err);
  s->q = clCreateCommandQueue(s->ctx, s->dev, 0, &err);
  s->prog = clCreateProgramWithSource(s->ctx, 1, &source, NULL, &err);
  if (clBuildProgram(s->prog, 1, &s->dev, "", NULL, NULL) != CL_SUCCESS) {
    printf("build failed\n");
    return 1;
  }
  return 0;
}

/* Releases what rusticl_setup_build() made. */
static inline void rusticl_setup_release(rusticl_setup *s) {
  clReleaseProgram(s->prog);
  clReleaseCommandQueue(s->q);
  clReleaseContext(s->ctx);
}

#endif /* CLSCAN_TESTS_RUSTICL_DEVICE_H_ */
