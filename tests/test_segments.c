/*
 * clscan tests: segments by offsets, by-key scans of every key type (user keys and key equality
 * included) and batched scans of rows and columns.
 *
 * Every result is checked against the host reference (tests/reference/ref_scan.h): offsets and
 * keys are turned into head flags on the host (clscan_ref_offsets_to_flags, and the keys'
 * equality in C), and the reference scans the flags; batched scans are checked row by row (column
 * by column) against the reference's plain scan. Integers must match exactly, floats within the
 * reference's tolerance. Outputs sit between poisoned guards that must survive, the padding between
 * rows must keep its bytes, and the inputs must be unchanged.
 *
 * Groups (one CTest test each):
 * - keys: every built-in key type through two of the algorithm runs (small tiles, so that tiles
 *   are crossed at small sizes; the single pass's GPU and CPU shapes), float keys through all;
 * float and double keys with -0.0, NaN and equal neighbours; a user key type with its equality;
 * key_equal_source on a built-in key type; one-shot and host calls.
 * - offsets: int32, uint32, int64 and uint64 offsets through every algorithm, inclusive and
 *   exclusive, with and without init, in place and not, at sizes around tile boundaries and
 *   random sizes, with empty segments (leading, repeated, trailing), every element a segment, one
 *   segment; patterns placed against the tiles (boundaries at tile boundaries, more empty
 *   segments in a tile than work-items, tiles with no head); one-shot and host calls.
 * - offsets_gpu: the GPU-shaped single pass's head mask (built by a pre-pass) with every offset
 *   type, its per-tile search (CLSCAN_SEG_OFFSETS_MASK=0), the mask under the decoupled fallback
 *   (CLSCAN_TEST_WITHHOLD); later single passes on the temporary buffer the mask used; the
 *   caller's wait list and the first and last events; unsorted and out-of-range device offsets
 *   through every algorithm (they must finish and write only the output range).
 * - rows: rows without padding (the segmented path, every algorithm), rows with padding and
 *   columns (the simple kernel), in place and not, with init and exclusive; the host call; rows
 *   of lengths around the tiles' strides through the tile kernels, with a map of the index.
 * - huge (not in the default run; needs 4.5 GiB of device memory): n > 2^32 int8 elements in
 *   place, with uint64 offsets around 2^32, and batched rows longer than 2^31 and of 1000.
 * - errors: every bad-input status of the new entry points and descriptor fields, with the
 *   output untouched.
 * Seeds are printed with every failure, and the base seed at the start.
 *
 * The tests are in files by concern, on the fixture of segments_fixture.c (the algorithm runs,
 * the sizes, one segmented case run and checked); each file exports the cmocka tests of its
 * groups:
 *   test_segments_keys.c     keys
 *   test_segments_offsets.c  offsets, offsets_gpu
 *   test_segments_rows.c     rows
 *   test_segments_huge.c     huge
 *   test_segments_errors.c   errors
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "segments_fixture.h"

int main(int argc, char **argv) {
  if (!tu_context())
    return 1;
  printf("test_segments: base seed %" PRIu64 " (CLSCAN_TEST_SEED reproduces it)\n", tu_seed());
  int failed = 0;
  for (int i = 1; i < argc || (argc == 1 && i == 1); i++) {
    const char *g = argc > 1 ? argv[i] : "all";
    int all = strcmp(g, "all") == 0, known = 0;
#define GROUP(name, list)                                                                          \
  if (all || strcmp(g, name) == 0) {                                                               \
    known = 1;                                                                                     \
    failed += _cmocka_run_group_tests("segments." name, segments_##list##_tests,                   \
                                      segments_##list##_count, tu_group_setup, tu_group_teardown); \
  }
    GROUP("keys", keys)
    GROUP("offsets", offsets)
    GROUP("offsets_gpu", offsets_gpu)
    GROUP("rows", rows)
    GROUP("errors", errors)
#undef GROUP
    // Not part of "all": it needs more than 4 GiB of device memory.
    if (strcmp(g, "huge") == 0) {
      known = 1;
      failed += _cmocka_run_group_tests("segments.huge", segments_huge_tests, segments_huge_count,
                                        tu_group_setup, tu_group_teardown);
    }
    if (!known) {
      fprintf(stderr,
              "test_segments: unknown group %s (keys, offsets, offsets_gpu, rows, errors, huge)\n",
              g);
      return 2;
    }
  }
  tu_context_release();
  return failed ? 1 : 0;
}
