/*
 * Stand-alone reproducer: Oclgrind 21.10 reports "Uninitialized value written to global memory"
 * for a 16-byte vector store of a vector built from four defined elements.
 *
 * Its clang 14 compiles the store below into a store of undef followed by four element stores;
 * the final bytes are right, but the uninitialised-value check reports the first store (for each
 * work-item). A vector literal or a union gives the same; vstore4, or -cl-opt-disable, does not.
 * cl/tile.cl stores its results that way (tile_store, narrow_store), so the Oclgrind tests build
 * it with -DCLSCAN_OCLGRIND_VSTORE=1, which stores with vstore instead. Oclgrind's issue tracker
 * (its issue 126) describes the same for float8.
 *
 *   cc tests/oclgrind/vector_store.c -lOpenCL -o vector_store && OCL_ICD_VENDORS=DIR
 *   OCLGRIND_UNINITIALIZED=1 OCLGRIND_LOG=log.txt ./vector_store
 *
 * (DIR: a folder holding only oclgrind.icd; the build makes build/tests/oclgrind-vendors.) Prints
 * "fixed" and exits 0 when Oclgrind reports nothing; exits 1 where the bug is.
 */
#include "common.h"

static const char *source =
    "kernel void k(global uint *out, uint seed) {\n"
    "  uint e[4], p = seed + get_global_id(0);\n"
    "#pragma unroll\n"
    "  for (uint i = 0; i < 4; i++) {\n"
    "    p = p * 3 + i;\n"
    "    e[i] = p;\n"
    "  }\n"
    "  ((global uint4 *)out)[get_global_id(0)] = (uint4)(e[0], e[1], e[2], e[3]);\n"
    "}\n";

int main(void) {
  og_env e;
  if (!og_setup(&e, source))
    return 77;
  cl_int err;
  cl_uint seed = 7;
  cl_mem out = clCreateBuffer(e.ctx, CL_MEM_READ_WRITE, 16 * 16, NULL, &err);
  cl_kernel k = clCreateKernel(e.prog, "k", &err);
  clSetKernelArg(k, 0, sizeof out, &out);
  clSetKernelArg(k, 1, sizeof seed, &seed);
  og_run(&e, k, 16);
  clReleaseKernel(k);
  clReleaseMemObject(out);
  og_teardown(&e);
  return og_verdict("Uninitialized value written to global memory",
                    "a vector store of defined elements");
}
