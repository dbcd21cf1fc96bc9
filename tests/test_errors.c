/*
 * clscan tests: every error status, with the exact value, and the API's small promises (the
 * `errors` CTest test).
 *
 * Each failing call must return its documented status, leave the output (device buffer or host
 * array) byte-identical, leave no event behind, and describe itself in
 * clscan_last_error_detail(). The tests are in files by concern, each a cmocka group on the
 * fixture of errors_fixture.c:
 *   test_errors_args.c     NULL arguments, invalid enums, the supports matrix
 *   test_errors_buffers.c  buffer sizes, size overflows, overlaps, read-only outputs
 *   test_errors_queues.c   foreign queues and buffers, wait lists, empty scans
 *   test_errors_api.c      statuses, names, versions, releases, the build log, contexts
 */
#include <stdio.h>

#include "errors_fixture.h"

int main(void) {
  const struct {
    const char *name;
    const struct CMUnitTest *tests;
    size_t count;
  } groups[] = {
      {"errors.args", errors_args_tests, errors_args_count},
      {"errors.buffers", errors_buffers_tests, errors_buffers_count},
      {"errors.queues", errors_queues_tests, errors_queues_count},
      {"errors.api", errors_api_tests, errors_api_count},
  };
  if (!tu_context())
    return 1;
  int failed = 0;
  for (size_t g = 0; g < sizeof groups / sizeof groups[0]; g++)
    failed += _cmocka_run_group_tests(groups[g].name, groups[g].tests, groups[g].count, ef_setup,
                                      ef_teardown);
  tu_context_release();
  printf("clscan tests: seed %llu\n", (unsigned long long)tu_seed());
  return failed ? 1 : 0;
}
