/*
 * clscan example: prefix sums of host arrays, then of a device buffer through a plan.
 */
#include <stdio.h>

#include "clscan.h"
#include "examples/check.h" /* CHECK(call): returns 1 from main if a clscan call fails */

static void print(const char *label, const int *v, size_t n) {
  printf("%s", label);
  for (size_t i = 0; i < n; i++)
    printf(" %d", v[i]);
  printf("\n");
}

int main(void) {
  int in[5] = {3, 1, 4, 1, 5}, out[5];
  clscan_context *ctx;
  CHECK(clscan_context_create_default(&ctx));

  // Host arrays: an inclusive sum, then an exclusive one (zero-initialised fields are defaults).
  clscan_scan_desc desc = {.type = CLSCAN_INT32, .op = CLSCAN_ADD};
  CHECK(clscan_scan_host(ctx, &desc, in, out, 5));
  print("inclusive:", out, 5);
  desc.exclusive = 1;
  CHECK(clscan_scan_host(ctx, &desc, in, out, 5));
  print("exclusive:", out, 5);

  // A device buffer, scanned in place by a plan (build once, enqueue often), then read back.
  // (Had clCreateBuffer failed, buf would be NULL and clscan_plan_enqueue would say so.)
  cl_mem buf = clCreateBuffer(clscan_context_cl_context(ctx),
                              CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof in, in, NULL);
  clscan_plan *plan;
  cl_event done;
  desc.exclusive = 0;
  CHECK(clscan_plan_create(ctx, &desc, &plan));
  CHECK(clscan_plan_enqueue(plan, NULL, buf, 0, buf, 0, 5, 0, NULL, &done));
  if (clWaitForEvents(1, &done) != CL_SUCCESS ||
      clEnqueueReadBuffer(clscan_context_queue(ctx), buf, CL_TRUE, 0, sizeof out, out, 0, NULL,
                          NULL) != CL_SUCCESS)
    return 1;
  print("device:", out, 5);

  clReleaseEvent(done);
  clReleaseMemObject(buf);
  clscan_plan_release(plan);
  clscan_context_release(ctx);
  return 0;
}
