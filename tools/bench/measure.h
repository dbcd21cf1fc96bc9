/*
 * clscan tools: the measurement helpers shared by `clscan bench` and the developer benchmarks
 * (tile_sweep, clscan_mpi_bench): the median of a series, the profiled time between two OpenCL
 * commands, one profiled clEnqueueCopyBuffer (the copy baseline every ratio is taken against),
 * and a monotonic host clock.
 *
 * Every time is in milliseconds. The functions print nothing; they return 0 where an OpenCL call
 * failed, so that each program reports the failure in its own words.
 */
#ifndef CLSCAN_MEASURE_H_
#define CLSCAN_MEASURE_H_

#include <stddef.h>

#include "clscan.h"

/* Returns the median of count values (sorting them in place); 0 for no values. */
double measure_median(double *values, size_t count);

/* Stores in *ms the time from the start of command `first` to the end of command `last`, both
 * complete and from a queue with profiling enabled. Returns 0 if the profiling information
 * cannot be read. */
int measure_event_ms(cl_event first, cl_event last, double *ms);

/* Copies `bytes` bytes from src to dst (offset 0) on queue q, waits, and stores the copy's
 * profiled time in *ms. Returns 0 if the copy or its profiling fails. */
int measure_copy_ms(cl_command_queue q, cl_mem src, cl_mem dst, size_t bytes, double *ms);

/* Returns the monotonic host clock in milliseconds (for host loops and wall times). */
double measure_host_ms(void);

#endif /* CLSCAN_MEASURE_H_ */
