/*
 * clscan example: a weighted running sum of a stream, scanned in chunks that chain on the device.
 *
 * The map reads an extra buffer, the weights: each element contributes x * w[i]. The descriptor
 * names the argument (its type and name are compiled into the plan once); each enqueue gives its
 * value, here the weights' buffer at the chunk's offset, so one plan serves every chunk. The
 * initial value lives on the device (desc.device_init): each chunk reads it when it runs, and
 * writes its total to the same place, so the next chunk starts where this one ended without a
 * host round trip. The result must equal one scan of the whole stream, exactly (int32 sums).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "check.h"
#include "clscan.h"

int main(void) {
  const size_t n = 1000003, chunk = 65536;
  int32_t *x = malloc(n * sizeof *x), *w = malloc(n * sizeof *w);
  int32_t *chunked = malloc(n * sizeof *chunked), *whole = malloc(n * sizeof *whole);
  if (!x || !w || !chunked || !whole)
    return 1;
  for (size_t i = 0; i < n; i++) {
    x[i] = (int32_t)(i % 1000) - 500;
    w[i] = 1 + (int32_t)(i % 3);
  }
  clscan_context *ctx;
  CHECK(clscan_context_create_default(&ctx));
  cl_context cl = clscan_context_cl_context(ctx);
  cl_command_queue q = clscan_context_queue(ctx);
  cl_int err;
  cl_mem dx = clCreateBuffer(cl, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n * 4, x, &err);
  cl_mem dw = clCreateBuffer(cl, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, n * 4, w, &err);
  cl_mem dout = clCreateBuffer(cl, CL_MEM_READ_WRITE, n * 4, NULL, &err);
  const int32_t start = 7; /* the stream's initial value */
  cl_mem carry =
      clCreateBuffer(cl, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, 4, (void *)&start, &err);
  if (!dx || !dw || !dout || !carry)
    return 1;

  // The weights are an extra argument of the map; the initial value is read on the device.
  const clscan_arg weights = {.name = "w", .kind = CLSCAN_ARG_BUFFER, .type = CLSCAN_INT32};
  clscan_scan_desc desc = {.type = CLSCAN_INT32,
                           .op = CLSCAN_ADD,
                           .map_source = "x * w[i]",
                           .args = &weights,
                           .arg_count = 1,
                           .device_init = 1};
  clscan_plan *plan;
  CHECK(clscan_plan_create(ctx, &desc, &plan));
  for (size_t at = 0; at < n; at += chunk) {
    size_t len = n - at < chunk ? n - at : chunk;
    // w points at the chunk's first weight; the carry is read, then overwritten by the total.
    const clscan_arg_value w_value = {.buffer = dw, .offset = at};
    const clscan_run_args run = {
        .values = &w_value, .value_count = 1, .init = carry, .total = carry};
    CHECK(clscan_plan_enqueue_args(plan, q, dx, at, dout, at, len, &run, 0, NULL, NULL, NULL));
  }
  int32_t last_total;
  if (clEnqueueReadBuffer(q, dout, CL_TRUE, 0, n * 4, chunked, 0, NULL, NULL) != CL_SUCCESS ||
      clEnqueueReadBuffer(q, carry, CL_TRUE, 0, 4, &last_total, 0, NULL, NULL) != CL_SUCCESS)
    return 1;

  // The same scan in one piece, from the host.
  for (size_t i = 0; i < n; i++)
    x[i] *= w[i];
  const clscan_scan_desc plain = {.type = CLSCAN_INT32, .op = CLSCAN_ADD, .init = &start};
  CHECK(clscan_scan_host(ctx, &plain, x, whole, n));
  for (size_t i = 0; i < n; i++) {
    if (chunked[i] != whole[i]) {
      fprintf(stderr, "element %zu: chunked %d, whole %d\n", i, chunked[i], whole[i]);
      return 1;
    }
  }
  if (last_total != whole[n - 1]) {
    fprintf(stderr, "the last total is %d, the scan's last element %d\n", last_total, whole[n - 1]);
    return 1;
  }
  printf("first: %d %d %d %d\n", chunked[0], chunked[1], chunked[2], chunked[3]);
  printf("%zu elements in %zu chunks agree with one scan; total %d\n", n, (n + chunk - 1) / chunk,
         last_total);
  clscan_plan_release(plan);
  clReleaseMemObject(dx);
  clReleaseMemObject(dw);
  clReleaseMemObject(dout);
  clReleaseMemObject(carry);
  clscan_context_release(ctx);
  free(x);
  free(w);
  free(chunked);
  free(whole);
  return 0;
}
