/*
 * clscan examples: CHECK(call) returns 1 from main, printing the call, its status and the
 * library's detail on stderr, when a clscan call fails.
 */
#ifndef CLSCAN_EXAMPLES_CHECK_H_
#define CLSCAN_EXAMPLES_CHECK_H_

#include <stdio.h>

#include "clscan.h"

/* Returns from main with a message when a clscan call fails. */
#define CHECK(call)                                                     \
  do {                                                                  \
    clscan_status s_ = (call);                                          \
    if (s_ != CLSCAN_SUCCESS) {                                         \
      fprintf(stderr, "%s: %s (%s)\n", #call, clscan_status_string(s_), \
              clscan_last_error_detail());                              \
      return 1;                                                         \
    }                                                                   \
  } while (0)

#endif /* CLSCAN_EXAMPLES_CHECK_H_ */
