/*
 * clscan test hooks: fault injection. Only in builds configured with
 * -DCLSCAN_FAULT_INJECTION=ON, which tests/ uses; never part of the installed API.
 *
 * Every OpenCL allocation, program creation and build, kernel creation and enqueue inside the
 * library is a "fault point". After clscan_test_fault_arm(k), the k-th fault point reached (by
 * any thread) fails as if OpenCL had returned an error (CL_MEM_OBJECT_ALLOCATION_FAILURE,
 * CL_BUILD_PROGRAM_FAILURE, CL_OUT_OF_RESOURCES); the others proceed.
 */
#ifndef CLSCAN_FAULT_H_
#define CLSCAN_FAULT_H_

#include "clscan.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Makes the k-th fault point from now fail (k >= 1); k == 0 disarms. Resets the count. */
CLSCAN_API void clscan_test_fault_arm(unsigned long k);

/* Returns how many fault points were reached since the last arm. */
CLSCAN_API unsigned long clscan_test_fault_count(void);

#ifdef __cplusplus
}
#endif

#endif /* CLSCAN_FAULT_H_ */
