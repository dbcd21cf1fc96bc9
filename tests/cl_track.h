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

#endif /* CLSCAN_CL_TRACK_H_ */
