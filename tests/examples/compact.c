/*
 * clscan example: stream compaction. Keep the positive elements of an array, in order.
 *
 * A uint8 flag says whether each element is kept; an exclusive sum of the flags, computed in
 * uint32 (out_type) so that it cannot overflow, gives each kept element its place in the output,
 * and the last offset plus the last flag is the count. The scatter runs on the host here; on a
 * device it is a one-line kernel.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "clscan.h"
#include "check.h"

/* Compacts in[0..n) into kept (positive elements only); returns the count, or -1 on failure. */
static long compact(clscan_context *ctx, const int *in, size_t n, int *kept) {
  uint8_t *keep = malloc(n + 1);
  uint32_t *offset = malloc((n + 1) * sizeof *offset);
  long count = -1;
  if (keep && offset) {
    for (size_t i = 0; i < n; i++)
      keep[i] = in[i] > 0;
    // uint8 flags in, uint32 offsets out: out_type names the output (and accumulator) type.
    clscan_scan_desc desc = {.type = CLSCAN_UINT8, .out_type = CLSCAN_OUT_UINT32, .exclusive = 1};
    if (clscan_scan_host(ctx, &desc, keep, offset, n) == CLSCAN_SUCCESS) {
      for (size_t i = 0; i < n; i++) {
        if (keep[i])
          kept[offset[i]] = in[i];
      }
      count = n ? (long)(offset[n - 1] + keep[n - 1]) : 0;
    }
  }
  free(keep);
  free(offset);
  return count;
}

int main(void) {
  clscan_context *ctx;
  CHECK(clscan_context_create_default(&ctx));

  // A small array, printed.
  const int small[] = {5, -2, 7, 0, -9, 3, 8, -1, 4, 6};
  int kept[10];
  long count = compact(ctx, small, 10, kept);
  if (count < 0)
    return 1;
  printf("kept %ld of 10:", count);
  for (long i = 0; i < count; i++)
    printf(" %d", kept[i]);
  printf("\n");

  // A million elements, checked against a sequential compaction.
  const size_t n = 1000000;
  int *big = malloc(n * sizeof *big), *out = malloc(n * sizeof *out);
  if (!big || !out)
    return 1;
  uint32_t state = 12345;
  for (size_t i = 0; i < n; i++) {
    state = state * 1664525u + 1013904223u;
    big[i] = (int)(state >> 16) - 32768;
  }
  count = compact(ctx, big, n, out);
  long j = 0;
  for (size_t i = 0; i < n; i++) {
    if (big[i] > 0 && (j >= count || out[j++] != big[i])) {
      fprintf(stderr, "element %zu is not where the sequential compaction puts it\n", i);
      return 1;
    }
  }
  if (j != count)
    return 1;
  printf("kept %ld of %zu, as the sequential loop does\n", count, n);
  clscan_context_release(ctx);
  free(big);
  free(out);
  return 0;
}
