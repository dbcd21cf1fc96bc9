/*
 * Stand-alone reproducer: Mesa rusticl miscompiles a private array of structs with a gap.
 *
 * Mesa 22.3.6 (Debian 12's mesa-opencl-icd 22.3.6-1+deb12u2, llvmpipe): in the kernel below, a
 * private array of struct { ushort v; uint f; } (two bytes of implicit padding after v) filled in
 * a loop reads back wrong: out gets {0, 0} then {in[1], 0} instead of {in[0], 1} then
 * {in[1], 0} (in clscan's larger kernels, every slot read as the last one written). With uint v,
 * or with the two bytes named (ushort v, w; uint f), it is right. clscan's segmented scans of 8-
 * and 16-bit values keep such (value, flag) states in private arrays and got wrong results; their
 * states now name the gap (cl/common.cl, SEG_GAP_BYTES).
 *
 *   cc tests/rusticl/struct_gap.c -lOpenCL -o struct_gap && RUSTICL_ENABLE=llvmpipe ./struct_gap
 *
 * Prints "fixed" and exits 0 when the results are right, "wrong" and exits 1 where the bug is;
 * exits 77 when no rusticl device is found.
 */
#include <stdio.h>
#include <string.h>

#include "rusticl_device.h"

static const char *source =
    "typedef struct { ushort v; uint f; } st;\n"
    "__kernel void k(const __global ushort *in, __global uint *out) {\n"
    "  st a[2];\n"
    "  for (uint j = 0; j < 2; j++) {\n"
    "    st s;\n"
    "    s.v = in[j];\n"
    "    s.f = j == 0;\n"
    "    a[j] = s;\n"
    "  }\n"
    "  for (uint j = 0; j < 2; j++) {\n"
    "    out[2 * j] = a[j].v;\n"
    "    out[2 * j + 1] = a[j].f;\n"
    "  }\n"
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
  const cl_ushort data[2] = {3, 15841};
  cl_uint got[4] = {0, 0, 0, 0};
  const cl_uint want[4] = {3, 1, 15841, 0};
  cl_mem in =
      clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof data, (void *)data, &err);
  cl_mem out = clCreateBuffer(ctx, CL_MEM_WRITE_ONLY, sizeof got, NULL, &err);
  clSetKernelArg(k, 0, sizeof in, &in);
  clSetKernelArg(k, 1, sizeof out, &out);
  size_t global = 1;
  err = clEnqueueNDRangeKernel(q, k, 1, NULL, &global, &global, 0, NULL, NULL);
  if (err == CL_SUCCESS)
    err = clEnqueueReadBuffer(q, out, CL_TRUE, 0, sizeof got, got, 0, NULL, NULL);
  const int right = err == CL_SUCCESS && memcmp(got, want, sizeof want) == 0;
  printf("%s: status %d, got {%u, %u} {%u, %u}, want {3, 1} {15841, 0}\n",
         right ? "fixed" : "wrong", err, got[0], got[1], got[2], got[3]);
  return right ? 0 : 1;
}
