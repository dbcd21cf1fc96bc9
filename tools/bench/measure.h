/*
 * clscan tools: the measurement helpers shared by `clscan bench` and the developer benchmarks
 * (tile_sweep, clscan_mpi_bench): the median of a series, the profiled time between two OpenCL
 * commands, one profiled clEnqueueCopyBuffer (the copy baseline every ratio is taken against)
 * and the median of several, and a monotonic host clock.
 *
 * The clock: profiling events by default. A program that finds the device's events do not
 * measure (measure_events_usable(); rusticl 22.3 gives every command the timestamps 0, 1, 2 and
 * 3 ns) switches the process to the wall clock (measure_use_wall_clock()): then
 * measure_span_ms() returns the host time the caller took around its enqueue and wait, and
 * measure_copy_ms() times its copy that way.
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
 * profiled time in *ms (with the wall clock: the host time of its enqueue and wait). Returns 0
 * if the copy or its profiling fails. */
int measure_copy_ms(cl_command_queue q, cl_mem src, cl_mem dst, size_t bytes, double *ms);

/* Copies `bytes` bytes from src to dst `warmups` times, then `reps` times (reps >= 1), each as
 * measure_copy_ms() does, and stores the median of the last reps times in *ms. Returns 0 if a
 * copy or its profiling fails, or host memory runs out. */
int measure_copy_median_ms(cl_command_queue q, cl_mem src, cl_mem dst, size_t bytes, int warmups,
                           int reps, double *ms);

/* The time of a span of commands from `first` to `last` (both complete): their profiled time
 * (measure_event_ms()), or with the wall clock `wall_ms`, the host time the caller measured
 * from before the first enqueue to after the wait for the last. Returns 0 if the profiled time
 * cannot be read. */
int measure_span_ms(cl_event first, cl_event last, double wall_ms, double *ms);

/* Returns 1 if profiling events measure on queue q (a queue with profiling enabled): one
 * profiled copy of `bytes` bytes from src to dst must last at least a thousandth of its host
 * time (enqueue to wait). Returns 0 where they do not (or the copy fails), and stores the two
 * times in *event_ms and *wall_ms when they are not NULL. */
int measure_events_usable(cl_command_queue q, cl_mem src, cl_mem dst, size_t bytes,
                          double *event_ms, double *wall_ms);

/* Switches the process to the wall clock (on != 0) or back to profiling events. */
void measure_use_wall_clock(int on);

/* Returns 1 if the process times with the wall clock. */
int measure_wall_clock(void);

/* Returns the monotonic host clock in milliseconds (for host loops and wall times). */
double measure_host_ms(void);

/* A sweep's leading arguments, from argv[1] on: LOG2N, REPS and, where rounds is not NULL,
 * ROUNDS, followed by at least one configuration. Returns 1 with *n = 2^LOG2N (LOG2N in [1,
 * max_log2], the others at least 1), or prints "usage: NAME USAGE" or the bounds to standard
 * error and returns 0. */
int measure_sweep_args(int argc, char **argv, const char *name, const char *usage, int max_log2,
                       size_t *n, int *reps, int *rounds);

#endif /* CLSCAN_MEASURE_H_ */
