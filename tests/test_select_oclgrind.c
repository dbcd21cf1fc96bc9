/*
 * clscan tests: the selection kernels under Oclgrind (the CTest test `select.oclgrind`), modelled
 * on test_oclgrind.c: Oclgrind is the only OpenCL platform, its data-race, uninitialised-value and
 * API checks are on, and its messages go to the file OCLGRIND_LOG names. After every case this
 * program reads the log's new messages (tests/oclgrind_log.c): any message that is not a known
 * finding fails the case.
 *
 * Cases: every operation (select by flags and by predicate, partition, unique, run-length
 * encoding, and partition into two buffers and with its rejected part reversed, by flags at some
 * sizes and by predicate at others)
 * through the single pass in both shapes, with and without the forced fallback
 * (CLSCAN_TEST_WITHHOLD=2), the GPU shape's fallback also with two lane groups of 32 (tiles of 64
 * work-items x 4 elements), the fallback in both shapes with the 32-bit status words of devices
 * without 64-bit atomics (CLSCAN_TEST_STATUS32=1; 8-byte counts, so four words a count and eight a
 * run-length state), and the multi-pass path over each scan algorithm, at a few small
 * sizes that cross many tiles (CLSCAN_TILE_WG=16 gives GPU tiles of 128 int32, CLSCAN_CPU_TILE=64),
 * and n = 0 (select_empty alone), with offsets and a capacity below the count, each checked against
 * the host reference (select_case.c). The GPU shape's vector loads run at n = 700 (input
 * and flags at offsets of whole vectors), its scalar loads at n = 301 (the input at offset 3).
 *
 * The multi-pass cases each run in a context of their own, because of an Oclgrind 21.10 bug: once
 * a buffer has been released, a larger buffer created later (one that takes the released one's
 * place in Oclgrind's buffer table) has the bytes past the released buffer's size reported as
 * uninitialised whenever a kernel reads them, even after a kernel wrote them
 * (tests/oclgrind/buffer_reuse.c reproduces it without clscan). The library's temporary slots
 * grow that way (a new, larger buffer, then the old one released), so in one context a run-length
 * encoding through Blelloch after two partitions (`CLSCAN_TEST_ONLY="4,1,1;4,1,2;4,3,2"
 * CLSCAN_TEST_SHARED_CONTEXT=1`) drew such reports in blelloch_scan_blocks for the flags that
 * select_mark had just written; the results are exact. The single-pass cases share one context.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oclgrind_log.h"
#include "select_case.h"

typedef struct og_config {
  const char *name;
  clscan_algorithm algo;
  int shape;
  unsigned withhold;
  unsigned tile_wg, tile_vpt; /* 0: CLSCAN_TILE_WG=16 and the table's vectors per work-item */
  int status32;               /* the single pass's 32-bit status words (CLSCAN_TEST_STATUS32=1) */
} og_config;

int main(void) {
  const og_config configs[] = {
      {"single-pass gpu", CLSCAN_ALGO_SINGLE_PASS, 1, 0, 0, 0, 0},
      {"single-pass cpu", CLSCAN_ALGO_SINGLE_PASS, 2, 0, 0, 0, 0},
      {"single-pass gpu fallback", CLSCAN_ALGO_SINGLE_PASS, 1, 2, 0, 0, 0},
      {"single-pass cpu fallback", CLSCAN_ALGO_SINGLE_PASS, 2, 2, 0, 0, 0},
      {"single-pass gpu 64x1 fallback", CLSCAN_ALGO_SINGLE_PASS, 1, 2, 64, 1, 0},
      {"single-pass gpu status32 fallback", CLSCAN_ALGO_SINGLE_PASS, 1, 2, 0, 0, 1},
      {"single-pass cpu status32 fallback", CLSCAN_ALGO_SINGLE_PASS, 2, 2, 0, 0, 1},
      {"blelloch", CLSCAN_ALGO_BLELLOCH, 0, 0, 0, 0, 0},
      {"hillis-steele", CLSCAN_ALGO_HILLIS_STEELE, 0, 0, 0, 0, 0},
      {"reduce-then-scan", CLSCAN_ALGO_REDUCE_THEN_SCAN, 0, 0, 0, 0, 0},
  };
  const size_t sizes[] = {1, 45, 700, 301, 0}; /* 0 last: select_empty alone */
  const size_t in_offs[] = {0, 1, 4, 3, 4}, flags_offs[] = {0, 0, 8, 0, 0};
  const int shared = getenv("CLSCAN_TEST_SHARED_CONTEXT") != NULL; /* see above */
  setenv("CLSCAN_TILE_WG", "16", 1);
  setenv("CLSCAN_SEED_WG", "16", 1);
  setenv("CLSCAN_CPU_TILE", "64", 1);
  if (!og_log_start("test_select_oclgrind") || !tu_context())
    return 1;
  og_log_mark();
  unsigned failed = 0, cases = 0;
  for (size_t g = 0; g < sizeof configs / sizeof configs[0]; g++) {
    for (int op = 0; op < 7; op++) {
      for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        const char *only = getenv("CLSCAN_TEST_ONLY"); /* "config,op,size;..." to run (debugging) */
        char here[64];
        snprintf(here, sizeof here, "%zu,%d,%zu", g, op, s);
        if (only && !strstr(only, here))
          continue;
        // op 4: select by predicate; op 5: partition into two buffers; op 6: partition with its
        // rejected part reversed.
        sel_case c = sel_base_case(op == 4   ? CLSCAN_SELECT
                                   : op >= 5 ? CLSCAN_PARTITION
                                             : sel_all_ops[op],
                                   sizes[s]);
        c.by_pred = op == 4 || (op >= 5 && s % 2);
        c.split = op == 5;
        c.reverse = op == 6;
        c.algorithm = configs[g].algo;
        c.shape = configs[g].shape;
        c.withhold = configs[g].withhold;
        c.tile_wg = configs[g].tile_wg;
        c.tile_vpt = configs[g].tile_vpt;
        c.in_off = in_offs[s];
        c.flags_off = flags_offs[s];
        c.out_off = 1;
        c.cap_delta = (c.op == CLSCAN_PARTITION && !c.split) || s != 1 ? 0 : -10;
        char what[512], msg[512] = "";
        sel_describe(&c, what, sizeof what);
        // Oclgrind opens (truncates) the log for each new context: measure after creating it.
        const int fresh = c.algorithm != CLSCAN_ALGO_SINGLE_PASS && !shared;
        if (fresh && !tu_context()) /* a context of its own, see above */
          return 1;
        og_log_mark();
        tu_env_saved status32;
        tu_env_set("CLSCAN_TEST_STATUS32", configs[g].status32 ? "1" : NULL, &status32);
        int ok = sel_run_case(&c, msg, sizeof msg);
        tu_env_restore(&status32);
        if (fresh)
          tu_context_release();
        int reported = og_log_check(what);
        cases++;
        if (!ok || reported) {
          failed++;
          printf("FAILED %s (%s): %s%s\n", configs[g].name, what, ok ? "" : msg,
                 reported ? " Oclgrind reported the messages above" : "");
        }
      }
    }
  }
  tu_context_release();
  og_log_report_known(0);
  printf("select under Oclgrind: %u cases, %u failed\n", cases, failed);
  return failed ? 1 : 0;
}
