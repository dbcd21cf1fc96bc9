/*
 * Stand-alone reproducer: on Mesa rusticl's llvmpipe device, the SIMD lanes of a work-group that
 * hold no work-item run the loops their values lead them into, and use up the work-item's 65535
 * loop iterations (see loop_limit.c), so the real work-item's later loops stop after one iteration.
 *
 * llvmpipe runs a work-group as vectors of 8 lanes (256-bit AVX2); a work-group of 1 to 7
 * work-items leaves lanes over. Global loads and atomics give those lanes 0. Kernel `k` runs
 * one work-item: it reads a counter (a plain load here; clscan's CPU-shaped single pass takes an
 * atomic_inc ticket, which gives the same), subtracts `base`, and loops 100000 times only where
 * the difference is not 0, which for the work-item it never is (the host sets base to the
 * counter). Then it writes its n elements in a loop and stores how many iterations that loop ran.
 * On Mesa 22.3.6 (Debian 12's mesa-opencl-icd 22.3.6-1+deb12u2, LLVM 15.0.6) the loop runs all
 * 100 iterations with base 0, where the empty lanes also compute 0, but only 1 with base 1 or 2:
 * there the empty lanes compute 0 - base, enter the long loop (their stores masked, so nothing
 * shows but the count), and the loop limiter ends every loop after that. With a work-group of 8
 * work-items (no lane left over) the loop runs all 100 iterations every time.
 *
 * clscan's CPU-shaped single pass (cl/single_pass_cpu.cl) launches work-groups of one work-item
 * that take their tile from a ticket counter that persists between launches: after the first
 * launch, the empty lanes' tickets lay past the last tile and led them into the look-back, whose
 * polls used up the count, and the tile's scan loops then wrote 9 (or 17) elements and stopped.
 * The kernel now returns at once for a ticket past the last tile.
 *
 *   cc tests/rusticl/empty_lanes.c -lOpenCL -o empty_lanes && RUSTICL_ENABLE=llvmpipe ./empty_lanes
 *
 * Prints "fixed" and exits 0 when the loop runs all its iterations each time; prints the counts
 * and exits 1 where the bug is; exits 77 when no rusticl device is found.
 */
#include <stdio.h>

#include "rusticl_device.h"

static const char *source =
    "__kernel void k(__global uint *counter, uint base, __global uint *out, uint n) {\n"
    "  const uint t = counter[0] - base; /* 0 for the work-item */\n"
    "  uint acc = 0;\n"
    "  if (t != 0)\n"
    "    for (uint s = 0; s < 100000; s++)\n"
    "      acc += out[s % n];\n"
    "  uint i;\n"
    "  for (i = 0; i < n; i++)\n"
    "    out[i] = i + acc;\n"
    "  out[n] = i;\n"
    "  counter[0] = base + 1;\n"
    "}\n";

enum { N = 100 };

/* Runs kernel k once on one work-item with `base`; returns the iterations its last loop ran (or
 * ~0 on an OpenCL error). */
static cl_uint run(cl_command_queue q, cl_kernel k, cl_mem counter, cl_mem out, cl_uint base) {
  cl_uint n = N, res[N + 1];
  size_t one = 1;
  cl_int err = clSetKernelArg(k, 0, sizeof counter, &counter);
  err |= clSetKernelArg(k, 1, sizeof base, &base);
  err |= clSetKernelArg(k, 2, sizeof out, &out);
  err |= clSetKernelArg(k, 3, sizeof n, &n);
  if (err == CL_SUCCESS)
    err = clEnqueueNDRangeKernel(q, k, 1, NULL, &one, &one, 0, NULL, NULL);
  if (err == CL_SUCCESS)
    err = clEnqueueReadBuffer(q, out, CL_TRUE, 0, sizeof res, res, 0, NULL, NULL);
  return err == CL_SUCCESS ? res[N] : ~(cl_uint)0;
}

int main(void) {
  rusticl_setup s;
  const int setup = rusticl_setup_build(&s, source);
  if (setup)
    return setup;
  cl_int err;
  cl_kernel k = clCreateKernel(s.prog, "k", &err);
  cl_uint zero = 0;
  cl_mem counter =
      clCreateBuffer(s.ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof zero, &zero, &err);
  cl_mem out = clCreateBuffer(s.ctx, CL_MEM_READ_WRITE, (N + 1) * sizeof(cl_uint), NULL, &err);
  int bad = 0;
  for (cl_uint base = 0; base < 3; base++) {
    const cl_uint ran = run(s.q, k, counter, out, base);
    printf("base %u: the loop of %d iterations ran %u\n", base, N, ran);
    bad |= ran != N;
  }
  clReleaseMemObject(out);
  clReleaseMemObject(counter);
  clReleaseKernel(k);
  rusticl_setup_release(&s);
  if (!bad) {
    printf("fixed\n");
    return 0;
  }
  printf("bug: the lanes without a work-item used up the loop iterations\n");
  return 1;
}
