/*
 * Stand-alone reproducer: after a host write to part of a buffer, Oclgrind 21.10 forgets what
 * kernels store in the rest of it.
 *
 * The host writes the first 64 bytes of a 4096-byte buffer (clEnqueueWriteBuffer); kernel w then
 * writes bytes 0 to 255, and kernel r copies them to another buffer. The uninitialised-value
 * check reports r's stores of bytes 64 to 255 (48 messages) although w wrote them; without the
 * host write it reports nothing. clscan zeroes the head of its temporary buffer (status words,
 * ticket counters) and keeps data that kernels write in the rest (Onesweep's copies of the keys),
 * so tests/oclgrind_log.c zeroes with a kernel instead of a host write.
 *
 *   cc tests/oclgrind/host_write.c -lOpenCL -o host_write && OCL_ICD_VENDORS=DIR
 *   OCLGRIND_UNINITIALIZED=1 OCLGRIND_LOG=log.txt ./host_write
 *
 * Prints "fixed" and exits 0 when Oclgrind reports nothing; exits 1 where the bug is.
 */
#include "common.h"

static const char *source =
    "kernel void w(global uint *t) { t[get_global_id(0)] = 5; }\n"
    "kernel void r(global const uint *t, global uint *out) {\n"
    "  out[get_global_id(0)] = t[get_global_id(0)] + 1;\n"
    "}\n";

int main(void) {
  og_env e;
  if (!og_setup(&e, source))
    return 77;
  cl_int err;
  cl_uint head[16] = {0};
  cl_mem t = clCreateBuffer(e.ctx, CL_MEM_READ_WRITE, 4096, NULL, &err);
  cl_mem out = clCreateBuffer(e.ctx, CL_MEM_READ_WRITE, 256, NULL, &err);
  clEnqueueWriteBuffer(e.queue, t, CL_TRUE, 0, sizeof head, head, 0, NULL, NULL);
  cl_kernel w = clCreateKernel(e.prog, "w", &err), r = clCreateKernel(e.prog, "r", &err);
  clSetKernelArg(w, 0, sizeof t, &t);
  clSetKernelArg(r, 0, sizeof t, &t);
  clSetKernelArg(r, 1, sizeof out, &out);
  og_run(&e, w, 64);
  og_run(&e, r, 64);
  clReleaseKernel(w);
  clReleaseKernel(r);
  clReleaseMemObject(t);
  clReleaseMemObject(out);
  og_teardown(&e);
  return og_verdict("Uninitialized value written to global memory",
                    "values a kernel wrote after a host write to the buffer's head");
}
