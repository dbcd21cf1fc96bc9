/*
 * Stand-alone reproducer: Oclgrind 21.10 forgets what kernels store in a buffer created after a
 * smaller one was released, past the released one's size.
 *
 * Three buffers of 4096, 8192 and 16384 bytes are created one after another, each releasing the
 * one before (as a growing temporary buffer is replaced); in each, kernel w writes the last 64
 * bytes and kernel r copies them out. The uninitialised-value check reports r's 64 stores in the
 * third buffer although w wrote the bytes; kept alive (no release), none is reported. clscan's
 * temporary slots grow that way, so test_select_oclgrind.c and test_family_oclgrind.c run the
 * cases whose temporary storage grows in contexts of their own.
 *
 *   cc tests/oclgrind/buffer_reuse.c -lOpenCL -o buffer_reuse && OCL_ICD_VENDORS=DIR
 *   OCLGRIND_UNINITIALIZED=1 OCLGRIND_LOG=log.txt ./buffer_reuse
 *
 * Prints "fixed" and exits 0 when Oclgrind reports nothing; exits 1 where the bug is.
 */
#include "common.h"

static const char *source =
    "kernel void w(global uchar *t, ulong off) { t[off + get_global_id(0)] = 1; }\n"
    "kernel void r(global const uchar *t, ulong off, global uchar *out) {\n"
    "  out[get_global_id(0)] = t[off + get_global_id(0)] + 1;\n"
    "}\n";

int main(void) {
  og_env e;
  if (!og_setup(&e, source))
    return 77;
  cl_int err;
  cl_kernel w = clCreateKernel(e.prog, "w", &err), r = clCreateKernel(e.prog, "r", &err);
  cl_mem out = clCreateBuffer(e.ctx, CL_MEM_READ_WRITE, 64, NULL, &err), prev = NULL;
  const size_t sizes[] = {4096, 8192, 16384};
  for (int i = 0; i < 3; i++) {
    cl_mem t = clCreateBuffer(e.ctx, CL_MEM_READ_WRITE, sizes[i], NULL, &err);
    if (prev)
      clReleaseMemObject(prev);
    prev = t;
    cl_ulong off = sizes[i] - 64;
    clSetKernelArg(w, 0, sizeof t, &t);
    clSetKernelArg(w, 1, sizeof off, &off);
    clSetKernelArg(r, 0, sizeof t, &t);
    clSetKernelArg(r, 1, sizeof off, &off);
    clSetKernelArg(r, 2, sizeof out, &out);
    og_run(&e, w, 64);
    og_run(&e, r, 64);
  }
  clReleaseMemObject(prev);
  clReleaseMemObject(out);
  clReleaseKernel(w);
  clReleaseKernel(r);
  og_teardown(&e);
  return og_verdict("Uninitialized value written to global memory",
                    "bytes a kernel wrote past the size of a released buffer");
}
