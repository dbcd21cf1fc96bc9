/*
 * clscan example: a running argmin, the smallest value so far and where it is.
 *
 * The map turns each float x at index i into a (value, index) pair, a user type; the user
 * operator keeps the pair with the smaller value, and of two equal values the earlier one (its
 * left operand `a` is always the earlier). The input is float, the output the pair: the scan reads
 * 4-byte elements and writes 8-byte ones.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include "clscan.h"
#include "check.h"

/* A value and its index; the same layout on the host and the device. */
typedef struct argmin {
  float value;
  uint32_t index;
} argmin;

#define N 8

int main(void) {
  const float temps[N] = {3.5f, 2.0f, 4.0f, 2.0f, 1.5f, 1.5f, 6.0f, -0.5f};
  argmin best[N];
  const argmin none = {INFINITY, UINT32_MAX}; /* the identity: loses to every element */
  clscan_scan_desc desc = {.type = CLSCAN_FLOAT,
                           .out_type = CLSCAN_OUT_USER_TYPE,
                           .type_name = "argmin",
                           .type_source = "typedef struct { float value; uint index; } argmin;",
                           .type_size = sizeof(argmin),
                           .map_source = "{ argmin r; r.value = x; r.index = (uint)i; return r; }",
                           .op = CLSCAN_USER_OP,
                           .op_source = "b.value < a.value ? b : a",
                           .identity = &none};
  clscan_context *ctx;
  CHECK(clscan_context_create_default(&ctx));
  CHECK(clscan_scan_host(ctx, &desc, temps, best, N));

  // Print, and check against a sequential loop.
  argmin want = none;
  printf("running min:");
  for (int i = 0; i < N; i++)
    printf(" %g", best[i].value);
  printf("\nat index:");
  for (int i = 0; i < N; i++) {
    printf(" %u", best[i].index);
    if (temps[i] < want.value)
      want = (argmin){temps[i], (uint32_t)i};
    if (best[i].value != want.value || best[i].index != want.index)
      return 1;
  }
  printf("\n");
  clscan_context_release(ctx);
  return 0;
}
