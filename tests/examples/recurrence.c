/*
 * clscan example: the linear recurrence x[i] = a[i] * x[i-1] + b[i] as one scan.
 *
 * Step i is the affine map x -> a[i] * x + b[i]. Doing f, then g, is again an affine map,
 * (a_f, b_f) then (a_g, b_g) = (a_f * a_g, a_g * b_f + b_g), and composition is associative (but
 * not commutative), so an inclusive scan of the steps with that user operator yields every prefix
 * of steps at once. Starting the scan from the constant map x -> x[-1], i.e. (0, x[-1]), makes
 * each result the map x -> x[i], whose b is x[i]. The arithmetic is on uint, modulo 2^32, so the
 * result must equal the sequential loop's exactly.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "clscan.h"
#include "check.h"

/* One step, x -> a * x + b; the same layout on the host and the device. */
typedef struct affine {
  uint32_t a, b;
} affine;

int main(void) {
  const size_t n = 100000;
  const uint32_t x_start = 1; /* x[-1] */
  affine *steps = malloc(n * sizeof *steps), *prefix = malloc(n * sizeof *prefix);
  if (!steps || !prefix)
    return 1;
  for (size_t i = 0; i < n; i++)
    steps[i] = (affine){1 + (uint32_t)(i % 3), 1 + (uint32_t)(i % 7)};

  // The user type and operator, as OpenCL C; `a` and `b` are the operands, earlier on the left.
  const affine identity = {1, 0}, start = {0, x_start};
  clscan_scan_desc desc = {
      .type = CLSCAN_USER_TYPE,
      .type_name = "affine",
      .type_source = "typedef struct { uint a; uint b; } affine;",
      .type_size = sizeof(affine),
      .op = CLSCAN_USER_OP,
      .op_source = "{ affine r; r.a = a.a * b.a; r.b = b.a * a.b + b.b; return r; }",
      .identity = &identity,
      .init = &start};
  clscan_context *ctx;
  CHECK(clscan_context_create_default(&ctx));
  CHECK(clscan_scan_host(ctx, &desc, steps, prefix, n));

  // The same recurrence, one step at a time.
  uint32_t x = x_start;
  for (size_t i = 0; i < n; i++) {
    x = steps[i].a * x + steps[i].b;
    if (prefix[i].b != x) {
      fprintf(stderr, "x[%zu]: the scan gives %u, the loop %u\n", i, prefix[i].b, x);
      return 1;
    }
  }
  printf("x[0..4]: %u %u %u %u %u\n", prefix[0].b, prefix[1].b, prefix[2].b, prefix[3].b,
         prefix[4].b);
  printf("x[%zu] = %u, as the sequential loop computes\n", n - 1, prefix[n - 1].b);
  clscan_context_release(ctx);
  free(steps);
  free(prefix);
  return 0;
}
