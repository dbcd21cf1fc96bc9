/*
 * Stand-alone reproducer: Mesa rusticl's LLVM JIT crashes on a signed 8-bit loop-carried value.
 *
 * Mesa 22.3.6 (Debian 12's mesa-opencl-icd 22.3.6-1+deb12u2, LLVM 15.0.6, llvmpipe) dies with
 * SIGSEGV (sometimes SIGABRT, "free(): invalid pointer") inside clEnqueueNDRangeKernel's
 * launch_grid, in llvm::SelectionDAG::canonicalizeCommutativeBinop during LegalizeTypes, when it
 * compiles the kernel below: a char minimum carried through a loop with a barrier, whose operand
 * is a conditional load with a non-zero constant otherwise. With 0 instead of 127, with uchar,
 * short or int, or without the barrier, it compiles and runs. clscan's kernels hit it through the
 * identity of int8 mul, min, max and and (1, 127, -128, -1) in a tile's partial load; clscan
 * refuses those scans on that driver (src/validate.c, rusticl_int8_crash).
 *
 *   cc tests/rusticl/int8_identity.c -lOpenCL -o int8_identity && RUSTICL_ENABLE=llvmpipe
 * ./int8_identity
 *
 * Prints "fixed" and exits 0 when the kernel runs and gives the right minimum; crashes where the
 * bug is; exits 77 when no rusticl device is found.
 */
#include <stdio.h>
#include <string.h>

#include "rusticl_device.h"

static const char *source =
    "__kernel void k(const __global char *in, __global char *out, ulong n) {\n"
    "  char total = 127;\n"
    "  for (ulong t = 0; t < n; t++) {\n"
    "    char x = t < 5 ? in[t] : 127;\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "    total = min(total, x);\n"
    "  }\n"
    "  out[0] = total;\n"
    "}\n";

int main(void) {
  rusticl_setup s;
  const int setup = rusticl_setup_build(&s, source);
  if (setup)
    return setup;
  cl_int err;
  cl_context ctx = s.ctx;
  cl_command_queue q = s.q;
  cl_program prog = s.prog;
  cl_kernel k = clCreateKernel(prog, "k", &err);
  const cl_char data[8] = {9, -3, 7, 5, 2, 0, 0, 0};
  cl_char result = 0;
  cl_mem in =
      clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof data, (void *)data, &err);
  cl_mem out = clCreateBuffer(ctx, CL_MEM_WRITE_ONLY, 1, NULL, &err);
  cl_ulong n = 8;
  clSetKernelArg(k, 0, sizeof in, &in);
  clSetKernelArg(k, 1, sizeof out, &out);
  clSetKernelArg(k, 2, sizeof n, &n);
  size_t global = 1;
  printf("rusticl: launching the kernel (its LLVM compilation happens here)\n");
  fflush(stdout);
  err = clEnqueueNDRangeKernel(q, k, 1, NULL, &global, &global, 0, NULL, NULL);
  if (err == CL_SUCCESS)
    err = clEnqueueReadBuffer(q, out, CL_TRUE, 0, 1, &result, 0, NULL, NULL);
  printf("%s: status %d, minimum %d (want -3)\n",
         err == CL_SUCCESS && result == -3 ? "fixed" : "wrong", err, result);
  return err == CL_SUCCESS && result == -3 ? 0 : 1;
}
