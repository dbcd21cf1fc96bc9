/*
 * clscan tests: the old names of the user-operator cases, kept for test_oclgrind.c and
 * test_threads.c until they use test_util.h's names (tu_spec, tu_case, tu_run_case); then this
 * header goes. The cases and their reference are test_util.h's (test_case.c, ref_scan.h); the
 * shared specs are user_specs.h's.
 */
#ifndef CLSCAN_USER_CASE_H_
#define CLSCAN_USER_CASE_H_

#include "test_util.h"
#include "user_specs.h"

typedef tu_spec uc_spec;
typedef tu_case uc_case;
typedef tu_path uc_path;
typedef tu_pattern uc_pattern;

#define UC_PATH_ONE_SHOT TU_PATH_ONE_SHOT
#define UC_PATH_PLAN TU_PATH_PLAN
#define UC_PATH_PLAN_TIMED TU_PATH_PLAN_TIMED
#define UC_PATH_HOST TU_PATH_HOST
#define UC_PATTERN_RANDOM TU_PATTERN_RANDOM
#define UC_PATTERN_EVERY TU_PATTERN_EVERY
#define UC_PATTERN_ONE TU_PATTERN_ONE

/* The descriptor as plans take it (for_plan must be 1: one-shot descriptors are internal). */
#define uc_case_desc(c, desc, for_plan) tu_case_desc((c), (desc))
#define uc_case_set_init tu_case_set_init
#define uc_run_case tu_run_case

#endif /* CLSCAN_USER_CASE_H_ */
