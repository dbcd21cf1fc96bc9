/*
 * Stand-alone reproducer: Mesa rusticl's llvmpipe device stops a work-item's loops after 65535
 * iterations in all.
 *
 * llvmpipe (gallivm) compiles kernels with a "loop limiter", one counter per work-item that every
 * loop's back edge decrements from 65535 (LP_MAX_TGSI_LOOP_ITERATIONS, a guard against endless
 * graphics shaders); when it reaches 0, loops exit. Kernel `single` counts the iterations of a loop
 * of n: on Mesa 22.3.6 (Debian 12's mesa-opencl-icd 22.3.6-1+deb12u2, LLVM 15.0.6) it returns 65535
 * for every n above that, silently. Kernel `split` runs the same iterations as an outer loop over
 * inner loops of 32768: it stops after 65533 (the counter is shared by all loops). Unrolled
 * iterations do not count, so 16 elements an iteration raise the limit sixteenfold but do not
 * lift it. clscan keeps every work-item's loops short instead: a CPU-shaped reduction chunk holds
 * at most 32768 elements (src/algo_reduce.c, CPU_CHUNK_MAX); with chunks of n / 32, reductions of
 * more than 2^21 int32 elements gave wrong totals on that driver.
 *
 *   cc tests/rusticl/loop_limit.c -lOpenCL -o loop_limit && RUSTICL_ENABLE=llvmpipe ./loop_limit
 *
 * Prints "fixed" and exits 0 when the single loop runs all its iterations; prints the counts and
 * exits 1 where the bug is; exits 77 when no rusticl device is found.
 */
#include <stdio.h>
#include <string.h>

#include "rusticl_device.h"

static const char *source =
    "__kernel void single(__global ulong *out, ulong n) {\n"
    "  ulong count = 0;\n"
    "  for (ulong i = 0; i < n; i++)\n"
    "    count += out[1] + 1; /* out[1] is 0: a load the compiler cannot fold away */\n"
    "  out[0] = count;\n"
    "}\n"
    "__kernel void split(__global ulong *out, ulong n) {\n"
    "  ulong count = 0;\n"
    "  for (ulong start = 0; start < n; start += 32768) {\n"
    "    const ulong end = min(start + 32768, n);\n"
    "    for (ulong i = start; i < end; i++)\n"
    "      count += out[1] + 1;\n"
    "  }\n"
    "  out[0] = count;\n"
    "}\n";

/* Runs kernel `name` with n on one work-item; returns its count (or ~0 on an OpenCL error). */
static cl_ulong run(cl_context ctx, cl_command_queue q, cl_program prog, const char *name,
                    cl_ulong n) {
  cl_int err;
  cl_ulong data[2] = {0, 0};
  cl_kernel k = clCreateKernel(prog, name, &err);
  cl_mem out =
      clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof data, data, &err);
  size_t global = 1;
  clSetKernelArg(k, 0, sizeof out, &out);
  clSetKernelArg(k, 1, sizeof n, &n);
  err = clEnqueueNDRangeKernel(q, k, 1, NULL, &global, &global, 0, NULL, NULL);
  if (err == CL_SUCCESS)
    err = clEnqueueReadBuffer(q, out, CL_TRUE, 0, sizeof data, data, 0, NULL, NULL);
  clReleaseMemObject(out);
  clReleaseKernel(k);
  return err == CL_SUCCESS ? data[0] : ~(cl_ulong)0;
}

int main(void) {
  rusticl_setup s;
  const int setup = rusticl_setup_build(&s, source);
  if (setup)
    return setup;
  cl_context ctx = s.ctx;
  cl_command_queue q = s.q;
  cl_program prog = s.prog;
  const cl_ulong n = 100000;
  cl_ulong single = run(ctx, q, prog, "single", n), split = run(ctx, q, prog, "split", n);
  printf("a loop of %llu iterations ran %llu; split into loops of 32768: %llu\n",
         (unsigned long long)n, (unsigned long long)single, (unsigned long long)split);
  rusticl_setup_release(&s);
  if (single == n) {
    printf("fixed\n");
    return 0;
  }
  printf("bug: the loop stopped after %llu iterations%s\n", (unsigned long long)single,
         split == n ? " (the split loop is right)" : "; the split loop is wrong too");
  return 1;
}
