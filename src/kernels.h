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

#ifdef CLSCAN_FAULT_INJECTION
#include "clscan.h"

/* Test hooks, in builds with -DCLSCAN_FAULT_INJECTION=ON only (like src/fault.h): the embedded
 * files and the programs of the registered algorithms, so that tests/test_kernels_compile.c
 * builds every cl/ file and every program without a list of its own. */

/* Returns clscan__kernel_sources (program.c). */
CLSCAN_API const clscan__kernel_source *clscan_test_kernel_sources(void);

/* A program of a registered algorithm: its name, its cl/ files (base names, NULL-terminated, in
 * the order the library concatenates them), and the algorithm that builds it, as a family and
 * the algorithm's id in it (for the scan family, 0, a clscan_algorithm). */
typedef struct clscan_test_program_info {
  const char *name;
  const char *const *files;
  int family, id;
} clscan_test_program_info;

/* Stores the i-th program of the registry in *out (a program that several algorithms share
 * counts once, under the first) and returns 1; returns 0 when i is past the last (algorithms.c). */
CLSCAN_API int clscan_test_program(size_t i, clscan_test_program_info *out);
#endif

#endif /* CLSCAN_KERNELS_H_ */
