/*
 * clscan_mpi: prefix sums distributed across MPI ranks, one OpenCL device per rank.
 *
 * This header declares the optional clscan_mpi library, built when CMake finds MPI. It scans
 * the concatenation of the ranks' local arrays, in rank order of the communicator; each rank
 * passes its own slice and receives its own slice of the result.
 *
 * How it works (the library's reduce-then-scan design one level up):
 * 1. Each rank scans its slice inclusively, without the initial value, and reads back the last
 *    element: its local total.
 * 2. The ranks exchange their totals and statuses with one MPI_Allgather.
 * 3. Each rank scans the totals of the non-empty ranks before it on its device, seeded with the
 *    descriptor's initial value: this is its offset.
 * 4. Each rank scans its slice again, as asked (inclusive or exclusive), seeded with the offset.
 * Every combination runs on the device through clscan's own scans, so no operator ever needs a
 * host implementation and every type and operator of clscan works.
 *
 * Cost: two local scans, so about twice the device memory traffic of one local scan of the same
 * slice (4 n_local elements read or written instead of 2, plus each algorithm's own temporary
 * traffic), three small collectives (an MPI_Allreduce before any data moves, the MPI_Allgather of
 * 16 bytes per rank, an MPI_Allreduce of the final status), two blocking reads of one element or
 * a few, one tiny scan of at most one element per rank, and one plan creation (kernel objects
 * only; programs come from the context's cache). An in-place scan (in == out, same offsets)
 * also allocates a temporary device buffer of n_local elements for the first scan.
 *
 * Errors are agreed: every rank returns the same status. Each rank first checks its arguments
 * locally; one MPI_Allreduce then settles the status (the most negative status of any rank wins)
 * and checks that all ranks passed the same descriptor (type, operator, inclusive or exclusive,
 * and the initial value, if any). Failures later on (a build, an allocation, a device error) are
 * exchanged with the totals and with the final status, so no rank is ever left waiting in a
 * collective. The detail of a failure, including which rank failed, is read with
 * clscan_mpi_last_error_detail().
 *
 * Both calls are collective over the communicator: every rank must call the same function, in
 * the same order relative to other collectives on that communicator.
 */
#ifndef CLSCAN_CLSCAN_MPI_H_
#define CLSCAN_CLSCAN_MPI_H_

#include <mpi.h>

#include "clscan.h"

#if defined(_WIN32) && defined(CLSCAN_SHARED)
#ifdef CLSCAN_MPI_BUILDING
#define CLSCAN_MPI_API __declspec(dllexport)
#else
#define CLSCAN_MPI_API __declspec(dllimport)
#endif
#elif defined(__GNUC__)
#define CLSCAN_MPI_API __attribute__((visibility("default")))
#else
#define CLSCAN_MPI_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/*
 * CLSCAN_MPI_ERROR (-1100), the status returned when an MPI call fails, is part of
 * CLSCAN_STATUS_MAP in clscan.h, so clscan_status_string() knows it. It is seen only where the
 * communicator's error handler returns errors (the default handler aborts the job instead), and
 * ranks may then disagree; clscan_mpi_last_error_detail() names the MPI error.
 */

/**
 * Scans device buffers distributed across the ranks of a communicator. Collective.
 *
 * Rank r's output holds elements [s_r, s_r + n_local) of the scan of the concatenation of all
 * ranks' inputs, where s_r is the sum of n_local over the ranks before r. The descriptor's init
 * value, if any, seeds the whole scan (it is combined once, before rank 0's first element).
 *
 * The call blocks until the local totals are exchanged and the last local scan is enqueued; that
 * last scan runs asynchronously and `done` completes when `out` holds the result. The first
 * local scan waits for wait_list.
 *
 * @param[in] ctx this rank's clscan context (its device).
 * @param[in] comm the communicator; every rank of it calls with the same descriptor. With
 *   MPI_COMM_NULL the call returns CLSCAN_NULL_ARGUMENT at once, without any collective.
 * @param[in] queue a queue of ctx's cl_context and device, or NULL for the context's default.
 * @param[in] desc the scan; type, op, exclusive and init must agree across ranks (init is
 *   compared by value); algorithm may differ (each device may pick its own).
 * @param[in] in, in_offset this rank's input: n_local elements from element in_offset.
 * @param[out] out, out_offset this rank's output. in == out with equal offsets scans in place;
 *   other overlaps are rejected with CLSCAN_OVERLAP.
 * @param[in] n_local this rank's number of elements; 0 is allowed (the rank then contributes
 *   nothing, but still takes part and must pass valid buffers).
 * @param[in] num_wait, wait_list events the first local scan waits for (OpenCL conventions).
 * @param[out] done if not NULL, receives an event that completes when out holds this rank's
 *   result (also for n_local == 0); the caller releases it. NULL on error.
 * @return CLSCAN_SUCCESS or an error status, the same on every rank (except CLSCAN_MPI_ERROR).
 *   On error the contents of out are unspecified: the first scan may have written them.
 */
CLSCAN_MPI_API clscan_status clscan_mpi_scan(clscan_context *ctx, MPI_Comm comm,
                                             cl_command_queue queue, const clscan_scan_desc *desc,
                                             cl_mem in, size_t in_offset, cl_mem out,
                                             size_t out_offset, size_t n_local, cl_uint num_wait,
                                             const cl_event *wait_list, cl_event *done);

/**
 * Scans host arrays distributed across the ranks of a communicator, and waits. Collective.
 *
 * Semantics and errors are those of clscan_mpi_scan(). The slice is copied to two device buffers
 * of the context (input and output, 2 n_local elements of device memory) on its default queue.
 *
 * @param[in] in this rank's n_local input elements; may be NULL if n_local is 0.
 * @param[out] out this rank's n_local output elements; in == out is allowed, other overlaps are
 *   rejected with CLSCAN_OVERLAP. On error out is untouched.
 * @return CLSCAN_SUCCESS or an error status, the same on every rank (except CLSCAN_MPI_ERROR).
 */
CLSCAN_MPI_API clscan_status clscan_mpi_scan_host(clscan_context *ctx, MPI_Comm comm,
                                                  const clscan_scan_desc *desc, const void *in,
                                                  void *out, size_t n_local);

/**
 * Returns the detail of the calling thread's last failed clscan_mpi call: the clscan detail of a
 * local failure, which rank failed with which status, that the descriptors differ across ranks,
 * or the MPI error; "" when none failed yet.
 * @return a pointer into thread-local storage, valid until the thread's next clscan_mpi call.
 */
CLSCAN_MPI_API const char *clscan_mpi_last_error_detail(void);

#ifdef __cplusplus
}
#endif

#endif /* CLSCAN_CLSCAN_MPI_H_ */
