/*
 * clscan internals: the OpenCL C sources embedded at build time by cmake/cl2c.cmake.
 */
#ifndef CLSCAN_KERNELS_H_
#define CLSCAN_KERNELS_H_

#include <stddef.h>

/* One embedded cl/ file: its base name, its bytes (NUL-terminated) and its length. */
typedef struct clscan__kernel_source {
  const char *name;
  const char *text;
  size_t length;
} clscan__kernel_source;

/* All embedded files, sorted by name, ending with a {NULL, NULL, 0} entry. */
extern const clscan__kernel_source clscan__kernel_sources[];

#endif /* CLSCAN_KERNELS_H_ */
