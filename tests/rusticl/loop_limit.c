/*
 * Stand-alone reproducer: Mesa rusticl's llvmpipe device stops every loop after 65535 iterations.
 *
 * llvmpipe (gallivm) compiles each loop with a "loop limiter", a counter that leaves the loop
 * after 65535 iterations (LP_MAX_TGSI_LOOP_ITERATIONS, a guard against endless graphics shaders),
 * and rusticl's compute kernels get it too: the kernel below counts the iterations of a loop of
 * n iterations, and on Mesa 22.3.6 (Debian 12's mesa-opencl-icd 22.3.6-1+deb12u2, LLVM 15.0.6)
 * it returns 65535 for every n above 65535, silently. A loop split into an outer loop and an
 * inner loop of at most 65535 iterations each runs to the end (the limit is per loop), which is
 * what clscan's kernels do where one work-item may walk more than that (cl/common.cl's
 * CLSCAN_LOOP_SPLIT, used by reduce_chunks): clscan's CPU-shaped reduction of more than 2^21
 * int32 elements gave wrong totals on that driver before.
 *
 *   cc tests/rusticl/loop_limit.c -lOpenCL -o loop_limit && RUSTICL_ENABLE=llvmpipe ./loop_limit
 *
 * Prints "fixed" and exits 0 when the single loop runs all its iterations; prints the count it
 * got and exits 1 where the bug is (after checking that the split loop is right); exits 77 when
 * no rusticl device is found.
 */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>
#include <string.h>

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

/* Returns the first device of the rusticl platform, or NULL. */
static cl_device_id rusticl_device(void) {
  cl_platform_id platforms[8];
  cl_uint np = 0;
  if (clGetPlatformIDs(8, platforms, &np) != CL_SUCCESS)
    return NULL;
  for (cl_uint p = 0; p < np && p < 8; p++) {
    char name[128] = "";
    cl_device_id dev;
    cl_uint nd = 0;
    clGetPlatformInfo(platforms[p], CL_PLATFORM_NAME, sizeof name - 1, name, NULL);
    if (strcmp(name, "rusticl") == 0 &&
        clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, 1, &dev, &nd) == CL_SUCCESS && nd > 0)
      return dev;
  }
  return NULL;
}

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
  cl_device_id dev = rusticl_device();
  if (!dev) {
    printf("no rusticl device (set RUSTICL_ENABLE=llvmpipe)\n");
    return 77;
  }
  cl_int err;
  cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
  cl_command_queue q = clCreateCommandQueue(ctx, dev, 0, &err);
  cl_program prog = clCreateProgramWithSource(ctx, 1, &source, NULL, &err);
  if (clBuildProgram(prog, 1, &dev, "", NULL, NULL) != CL_SUCCESS) {
    printf("build failed\n");
    return 1;
  }
  const cl_ulong n = 100000;
  cl_ulong single = run(ctx, q, prog, "single", n), split = run(ctx, q, prog, "split", n);
  printf("a loop of %llu iterations ran %llu; split into loops of 32768: %llu\n",
         (unsigned long long)n, (unsigned long long)single, (unsigned long long)split);
  clReleaseProgram(prog);
  clReleaseCommandQueue(q);
  clReleaseContext(ctx);
  if (single == n) {
    printf("fixed\n");
    return 0;
  }
  printf("bug: the loop stopped after %llu iterations%s\n", (unsigned long long)single,
         split == n ? " (the split loop is right)" : "; the split loop is wrong too");
  return 1;
}
