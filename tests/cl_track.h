/*
 * clscan tests: counts of live OpenCL objects and of enqueued kernels, for leak checks.
 *
 * tests/cl_track.c defines the OpenCL entry points the library uses that create, retain or release
 * an object (buffers, programs, kernels, queues, events, contexts), enqueue a kernel or build a
 * program. A program
 * linked with it binds the library's calls (and its own) to these definitions, which count and
 * then call the ICD loader's function (found with dlsym(RTLD_NEXT)). Counts are process-wide and
 * thread-safe. Only the test programs that need them link this file.
 */
#ifndef CLSCAN_CL_TRACK_H_
#define CLSCAN_CL_TRACK_H_

/* Kinds of OpenCL objects counted. */
typedef enum tr_kind {
  TR_MEM = 0,
  TR_PROGRAM,
  TR_KERNEL,
  TR_QUEUE,
  TR_EVENT,
  TR_CONTEXT,
  TR_KIND_COUNT
} tr_kind;

/* Live objects of every kind, kernels enqueued and programs built (or compiled) so far. */
typedef struct tr_snapshot {
  long live[TR_KIND_COUNT];
  long kernels_enqueued;
  long builds;
} tr_snapshot;

/* Takes a snapshot of the counts. */
void tr_snapshot_take(tr_snapshot *s);

/* Describes what `now` holds beyond `before` ("2 mem, 1 event"); returns 0 if nothing. */
int tr_leaked(const tr_snapshot *before, const tr_snapshot *now, char *buf, unsigned long cap);

/* Returns the name of a kind ("mem", "program", ...). */
const char *tr_kind_name(tr_kind k);

/* One run of an operation under fault injection: runs it with the k-th fault point armed (0:
 * none), sets *reached to the fault points it passed and returns its status (a clscan_status). */
typedef int (*tr_fault_run)(void *arg, unsigned long k, unsigned long *reached);

/* Sweeps an operation's fault points: run(arg, k) for k = 1, 2, ... must fail and leak no OpenCL
 * object, until the first k the operation passes without reaching; then a run without faults
 * must succeed. Returns the number of fault points, or -1 with what went wrong in msg (at most
 * 200 points are swept). The caller checks each run's outputs inside run. */
long tr_fault_sweep(tr_fault_run run, void *arg, char *msg, unsigned long cap);

#endif /* CLSCAN_CL_TRACK_H_ */
