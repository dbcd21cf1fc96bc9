/*
 * clscan test hooks: fault injection. Only in builds configured with
 * -DCLSCAN_FAULT_INJECTION=ON, which tests/ uses; never part of the installed API.
 *
 * Every OpenCL allocation, program creation and build, kernel creation and enqueue inside the
 * library, and the host selections' reads of their results, is a "fault point". After
 * clscan_test_fault_arm(k), the k-th fault point reached (by any thread) fails as if OpenCL had
 * returned an error (CL_MEM_OBJECT_ALLOCATION_FAILURE, CL_BUILD_PROGRAM_FAILURE,
 * CL_OUT_OF_RESOURCES); the others proceed.
 *
 * The other hooks observe the library's concurrency: a function called in every program build
 * (where no clscan lock may be held), the number of builds, and the temporary slot a scan took;
 * and one resolves the tuning a scan would get on a named NVIDIA GPU.
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

/* Makes every program build call hook(arg) in the building thread, just before clBuildProgram;
 * NULL removes the hook. The library holds none of its locks there. */
CLSCAN_API void clscan_test_set_build_hook(void (*hook)(void *arg), void *arg);

/* Returns the number of program builds (clBuildProgram calls) the library has started. */
CLSCAN_API unsigned long clscan_test_build_count(void);

/* Returns the temporary slot the most recent scan (of any thread and context) took, or -1. */
CLSCAN_API int clscan_test_last_temp_slot(void);

/* Returns 1 if the most recent scan's temporary slot was zeroed before its launch, else 0. */
CLSCAN_API int clscan_test_last_temp_zeroed(void);

/* The tuning a scan descriptor (and overrides, may be NULL) would get on an NVIDIA GPU named
 * device_name with 48 KiB of local memory, otherwise like ctx's device: its public fields
 * (*tuning), whether the single pass's tile is stashed (*stash), its register cap
 * (*nv_registers, 0 for none) and the reduction's shape (reduce[0..2]: work-group size, vectors
 * per work-item, work-groups per compute unit). For the tuning table's device rows, which no CI
 * device matches. */
CLSCAN_API clscan_status clscan_test_device_tuning(const clscan_context *ctx,
                                                   const char *device_name,
                                                   const clscan_scan_desc *desc,
                                                   const clscan_tuning *overrides,
                                                   clscan_tuning *tuning, int *stash,
                                                   unsigned *nv_registers, unsigned reduce[3]);

#ifdef __cplusplus
}
#endif

#endif /* CLSCAN_FAULT_H_ */
