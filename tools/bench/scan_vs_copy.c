/*
 * clscan single pass against clEnqueueCopyBuffer between the same two buffers (int32 exclusive
 * add), for devices where `clscan bench` caps n because its separate copy buffers would not fit
 * (POCL at 2^28). Median of REPS profiled runs each, after 2 warm-ups; the result is verified.
 *
 *   gcc -O2 -std=c11 -Iinclude -Ibuild/generated/include tools/scan_vs_copy.c -Lbuild -lclscan \
 *       -lOpenCL -o scan_vs_copy && LD_LIBRARY_PATH=build ./scan_vs_copy [LOG2_N [REPS]]
 */
#define CL_TARGET_OPENCL_VERSION 120
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include "clscan.h"
static double ev_ms(cl_event a, cl_event b) {
  cl_ulong s, e;
  clGetEventProfilingInfo(a, CL_PROFILING_COMMAND_START, sizeof s, &s, NULL);
  clGetEventProfilingInfo(b, CL_PROFILING_COMMAND_END, sizeof e, &e, NULL);
  return (e - s) * 1e-6;
}
static int cmp(const void *a, const void *b) { double x = *(double *)a, y = *(double *)b; return x < y ? -1 : x > y; }
int main(int argc, char **argv) {
  int logn = argc > 1 ? atoi(argv[1]) : 28, reps = argc > 2 ? atoi(argv[2]) : 20;
  size_t n = (size_t)1 << logn;
  clscan_context *ctx; if (clscan_context_create_default(&ctx)) return 1;
  cl_context cl = clscan_context_cl_context(ctx); cl_command_queue q = clscan_context_queue(ctx);
  int32_t *h = malloc(n * 4), *o = malloc(n * 4);
  uint64_t x = 7; for (size_t i = 0; i < n; i++) { x = x * 6364136223846793005ull + 1442695040888963407ull; h[i] = (int32_t)(x >> 40) - (1 << 23); }
  cl_int err; cl_mem in = clCreateBuffer(cl, CL_MEM_READ_WRITE, n * 4, NULL, &err), out = clCreateBuffer(cl, CL_MEM_READ_WRITE, n * 4, NULL, &err);
  clEnqueueWriteBuffer(q, in, CL_TRUE, 0, n * 4, h, 0, NULL, NULL);
  clscan_scan_desc d = {.type = CLSCAN_INT32, .op = CLSCAN_ADD, .exclusive = 1, .algorithm = CLSCAN_ALGO_SINGLE_PASS};
  clscan_plan *p; if (clscan_plan_create(ctx, &d, &p)) return 2;
  double *ts = malloc(sizeof(double) * reps), *tc = malloc(sizeof(double) * reps);
  for (int r = -2; r < reps; r++) {
    cl_event f, e, c;
    clEnqueueCopyBuffer(q, in, out, 0, 0, n * 4, 0, NULL, &c); clWaitForEvents(1, &c);
    if (r >= 0) tc[r] = ev_ms(c, c);
    clReleaseEvent(c);
    if (clscan_plan_enqueue_timed(p, q, in, 0, out, 0, n, 0, NULL, &f, &e)) return 3;
    clWaitForEvents(1, &e);
    if (r >= 0) ts[r] = ev_ms(f, e);
    clReleaseEvent(f); clReleaseEvent(e);
  }
  clEnqueueReadBuffer(q, out, CL_TRUE, 0, n * 4, o, 0, NULL, NULL);
  uint32_t acc = 0; size_t bad = 0; for (size_t i = 0; i < n; i++) { bad += (uint32_t)o[i] != acc; acc += (uint32_t)h[i]; }
  qsort(ts, reps, sizeof *ts, cmp); qsort(tc, reps, sizeof *tc, cmp);
  printf("n=2^%d int32 exclusive add: single pass %.2f ms, copy %.2f ms, scan/copy time %.2f, wrong %zu\n", logn, ts[reps / 2], tc[reps / 2], ts[reps / 2] / tc[reps / 2], bad);
  return bad != 0;
}
