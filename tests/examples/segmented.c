/*
 * clscan example: the sum of every row of a ragged (CSR-like) matrix, twice: with head flags
 * (clscan_segmented_scan) and with keys (clscan_scan_by_key).
 *
 * Row r holds the values vals[row_start[r] .. row_start[r + 1]). An inclusive sum that starts
 * again at every row gives, at each row's last element, the row's sum. Head flags mark where rows
 * start; keys give each element its row number, and a segment is a run of equal keys. Row 1 is
 * empty: it has no element, so it has no flag and no key, and its sum is 0.
 */
#include <stdio.h>
#include <string.h>

#include "clscan.h"
#include "check.h"

#define ROWS 5
#define N 12

static const int row_start[ROWS + 1] = {0, 3, 3, 7, 8, 12};
static const int vals[N] = {1, 2, 3, 4, 5, 6, 7, 5, 9, 10, 11, 12};

/* Creates a buffer holding `bytes` bytes of `data`. */
static cl_mem buffer(clscan_context *ctx, const void *data, size_t bytes) {
  return clCreateBuffer(clscan_context_cl_context(ctx), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                        bytes, (void *)data, NULL);
}

/* Reads the scan's result and picks each row's sum (0 for an empty row); prints and checks them. */
static int report(clscan_context *ctx, const char *label, cl_mem out, cl_event done) {
  int prefix[N], sums[ROWS];
  if (clWaitForEvents(1, &done) != CL_SUCCESS ||
      clEnqueueReadBuffer(clscan_context_queue(ctx), out, CL_TRUE, 0, sizeof prefix, prefix, 0,
                          NULL, NULL) != CL_SUCCESS)
    return 0;
  clReleaseEvent(done);
  printf("row sums (%s):", label);
  for (int r = 0; r < ROWS; r++) {
    int want = 0;
    for (int i = row_start[r]; i < row_start[r + 1]; i++)
      want += vals[i];
    sums[r] = row_start[r + 1] > row_start[r] ? prefix[row_start[r + 1] - 1] : 0;
    printf(" %d", sums[r]);
    if (sums[r] != want)
      return 0;
  }
  printf("\n");
  return 1;
}

int main(void) {
  clscan_context *ctx;
  CHECK(clscan_context_create_default(&ctx));

  // Head flags (uint8, non-zero where a row starts) and keys (each element's row, int32).
  unsigned char flags[N];
  int keys[N];
  memset(flags, 0, sizeof flags);
  for (int r = 0; r < ROWS; r++) {
    for (int i = row_start[r]; i < row_start[r + 1]; i++) {
      flags[i] = i == row_start[r];
      keys[i] = r;
    }
  }
  cl_mem in = buffer(ctx, vals, sizeof vals), out = buffer(ctx, vals, sizeof vals);
  cl_mem flag_buf = buffer(ctx, flags, sizeof flags), key_buf = buffer(ctx, keys, sizeof keys);
  cl_event done;

  // An inclusive int32 sum restarting at every head flag.
  clscan_scan_desc desc = {.type = CLSCAN_INT32, .op = CLSCAN_ADD};
  CHECK(clscan_segmented_scan(ctx, NULL, &desc, flag_buf, 0, in, 0, out, 0, N, 0, NULL, &done));
  if (!report(ctx, "head flags", out, done))
    return 1;

  // The same sums from the keys (key_type int32 is the zero value).
  desc.segments = CLSCAN_SEGMENTS_KEYS;
  desc.key_type = CLSCAN_INT32;
  CHECK(clscan_scan_by_key(ctx, NULL, &desc, key_buf, 0, in, 0, out, 0, N, 0, NULL, &done));
  if (!report(ctx, "keys", out, done))
    return 1;

  clReleaseMemObject(in);
  clReleaseMemObject(out);
  clReleaseMemObject(flag_buf);
  clReleaseMemObject(key_buf);
  clscan_context_release(ctx);
  return 0;
}
