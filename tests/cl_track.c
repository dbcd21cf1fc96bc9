/*
 * clscan tests: counting OpenCL objects through wrappers of the ICD loader's entry points (see
 * cl_track.h).
 */
#define _GNU_SOURCE
#include "cl_track.h"

#include <dlfcn.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clscan.h"

static atomic_long g_live[TR_KIND_COUNT];
static atomic_long g_kernels;
static atomic_long g_builds;

/* Finds the next definition of an entry point (the ICD loader's); aborts if there is none. */
static void *next_symbol(const char *name) {
  void *f = dlsym(RTLD_NEXT, name);
  if (!f) {
    fprintf(stderr, "cl_track: %s not found after this program\n", name);
    abort();
  }
  return f;
}

/* Declares `real` as the loader's definition of the entry point NAME, looked up once. */
#define REAL(type, name)              \
  static type real;                   \
  if (!real) {                        \
    void *sym = next_symbol(#name);   \
    memcpy(&real, &sym, sizeof real); \
  }

/* Counts an object created (+1) or released (-1) when the call succeeded. */
static void count(tr_kind k, long delta, int success) {
  if (success)
    atomic_fetch_add(&g_live[k], delta);
}

/* Counts the event an enqueue handed out. */
static void count_event(cl_int err, const cl_event *event) {
  count(TR_EVENT, 1, err == CL_SUCCESS && event != NULL);
}

/* ============================================================================================== */
/* Creation, retain and release                                                                   */
/* ============================================================================================== */

typedef cl_mem(CL_API_CALL *create_buffer_fn)(cl_context, cl_mem_flags, size_t, void *, cl_int *);
CL_API_ENTRY cl_mem CL_API_CALL clCreateBuffer(cl_context c, cl_mem_flags flags, size_t size,
                                               void *host, cl_int *err) {
  REAL(create_buffer_fn, clCreateBuffer);
  cl_mem m = real(c, flags, size, host, err);
  count(TR_MEM, 1, m != NULL);
  return m;
}

typedef cl_mem(CL_API_CALL *create_sub_fn)(cl_mem, cl_mem_flags, cl_buffer_create_type,
                                           const void *, cl_int *);
CL_API_ENTRY cl_mem CL_API_CALL clCreateSubBuffer(cl_mem parent, cl_mem_flags flags,
                                                  cl_buffer_create_type type, const void *info,
                                                  cl_int *err) {
  REAL(create_sub_fn, clCreateSubBuffer);
  cl_mem m = real(parent, flags, type, info, err);
  count(TR_MEM, 1, m != NULL);
  return m;
}

typedef cl_int(CL_API_CALL *mem_fn)(cl_mem);
CL_API_ENTRY cl_int CL_API_CALL clRetainMemObject(cl_mem m) {
  REAL(mem_fn, clRetainMemObject);
  cl_int err = real(m);
  count(TR_MEM, 1, err == CL_SUCCESS);
  return err;
}

CL_API_ENTRY cl_int CL_API_CALL clReleaseMemObject(cl_mem m) {
  REAL(mem_fn, clReleaseMemObject);
  cl_int err = real(m);
  count(TR_MEM, -1, err == CL_SUCCESS);
  return err;
}

typedef cl_program(CL_API_CALL *program_source_fn)(cl_context, cl_uint, const char **,
                                                   const size_t *, cl_int *);
CL_API_ENTRY cl_program CL_API_CALL clCreateProgramWithSource(cl_context c, cl_uint count_,
                                                              const char **strings,
                                                              const size_t *lengths, cl_int *err) {
  REAL(program_source_fn, clCreateProgramWithSource);
  cl_program p = real(c, count_, strings, lengths, err);
  count(TR_PROGRAM, 1, p != NULL);
  return p;
}

typedef cl_int(CL_API_CALL *program_fn)(cl_program);
CL_API_ENTRY cl_int CL_API_CALL clRetainProgram(cl_program p) {
  REAL(program_fn, clRetainProgram);
  cl_int err = real(p);
  count(TR_PROGRAM, 1, err == CL_SUCCESS);
  return err;
}

CL_API_ENTRY cl_int CL_API_CALL clReleaseProgram(cl_program p) {
  REAL(program_fn, clReleaseProgram);
  cl_int err = real(p);
  count(TR_PROGRAM, -1, err == CL_SUCCESS);
  return err;
}

/* Builds and compiles are counted whether they succeed or not (each one runs the compiler). */
typedef cl_int(CL_API_CALL *build_fn)(cl_program, cl_uint, const cl_device_id *, const char *,
                                      void(CL_CALLBACK *)(cl_program, void *), void *);
CL_API_ENTRY cl_int CL_API_CALL clBuildProgram(cl_program p, cl_uint ndev, const cl_device_id *devs,
                                               const char *options,
                                               void(CL_CALLBACK *notify)(cl_program, void *),
                                               void *user) {
  REAL(build_fn, clBuildProgram);
  atomic_fetch_add(&g_builds, 1);
  return real(p, ndev, devs, options, notify, user);
}

typedef cl_int(CL_API_CALL *compile_fn)(cl_program, cl_uint, const cl_device_id *, const char *,
                                        cl_uint, const cl_program *, const char **,
                                        void(CL_CALLBACK *)(cl_program, void *), void *);
CL_API_ENTRY cl_int CL_API_CALL clCompileProgram(cl_program p, cl_uint ndev,
                                                 const cl_device_id *devs, const char *options,
                                                 cl_uint nheaders, const cl_program *headers,
                                                 const char **names,
                                                 void(CL_CALLBACK *notify)(cl_program, void *),
                                                 void *user) {
  REAL(compile_fn, clCompileProgram);
  atomic_fetch_add(&g_builds, 1);
  return real(p, ndev, devs, options, nheaders, headers, names, notify, user);
}

typedef cl_kernel(CL_API_CALL *create_kernel_fn)(cl_program, const char *, cl_int *);
CL_API_ENTRY cl_kernel CL_API_CALL clCreateKernel(cl_program p, const char *name, cl_int *err) {
  REAL(create_kernel_fn, clCreateKernel);
  cl_kernel k = real(p, name, err);
  count(TR_KERNEL, 1, k != NULL);
  return k;
}

typedef cl_int(CL_API_CALL *kernel_fn)(cl_kernel);
CL_API_ENTRY cl_int CL_API_CALL clRetainKernel(cl_kernel k) {
  REAL(kernel_fn, clRetainKernel);
  cl_int err = real(k);
  count(TR_KERNEL, 1, err == CL_SUCCESS);
  return err;
}

CL_API_ENTRY cl_int CL_API_CALL clReleaseKernel(cl_kernel k) {
  REAL(kernel_fn, clReleaseKernel);
  cl_int err = real(k);
  count(TR_KERNEL, -1, err == CL_SUCCESS);
  return err;
}

typedef cl_command_queue(CL_API_CALL *create_queue_fn)(cl_context, cl_device_id,
                                                       cl_command_queue_properties, cl_int *);
CL_API_ENTRY cl_command_queue CL_API_CALL clCreateCommandQueue(cl_context c, cl_device_id d,
                                                               cl_command_queue_properties props,
                                                               cl_int *err) {
  REAL(create_queue_fn, clCreateCommandQueue);
  cl_command_queue q = real(c, d, props, err);
  count(TR_QUEUE, 1, q != NULL);
  return q;
}

typedef cl_int(CL_API_CALL *queue_fn)(cl_command_queue);
CL_API_ENTRY cl_int CL_API_CALL clRetainCommandQueue(cl_command_queue q) {
  REAL(queue_fn, clRetainCommandQueue);
  cl_int err = real(q);
  count(TR_QUEUE, 1, err == CL_SUCCESS);
  return err;
}

CL_API_ENTRY cl_int CL_API_CALL clReleaseCommandQueue(cl_command_queue q) {
  REAL(queue_fn, clReleaseCommandQueue);
  cl_int err = real(q);
  count(TR_QUEUE, -1, err == CL_SUCCESS);
  return err;
}

typedef cl_context(CL_API_CALL *create_context_fn)(
    const cl_context_properties *, cl_uint, const cl_device_id *,
    void(CL_CALLBACK *)(const char *, const void *, size_t, void *), void *, cl_int *);
CL_API_ENTRY cl_context CL_API_CALL
clCreateContext(const cl_context_properties *props, cl_uint ndev, const cl_device_id *devs,
                void(CL_CALLBACK *notify)(const char *, const void *, size_t, void *), void *user,
                cl_int *err) {
  REAL(create_context_fn, clCreateContext);
  cl_context c = real(props, ndev, devs, notify, user, err);
  count(TR_CONTEXT, 1, c != NULL);
  return c;
}

typedef cl_int(CL_API_CALL *context_fn)(cl_context);
CL_API_ENTRY cl_int CL_API_CALL clRetainContext(cl_context c) {
  REAL(context_fn, clRetainContext);
  cl_int err = real(c);
  count(TR_CONTEXT, 1, err == CL_SUCCESS);
  return err;
}

CL_API_ENTRY cl_int CL_API_CALL clReleaseContext(cl_context c) {
  REAL(context_fn, clReleaseContext);
  cl_int err = real(c);
  count(TR_CONTEXT, -1, err == CL_SUCCESS);
  return err;
}

typedef cl_int(CL_API_CALL *event_fn)(cl_event);
CL_API_ENTRY cl_int CL_API_CALL clRetainEvent(cl_event e) {
  REAL(event_fn, clRetainEvent);
  cl_int err = real(e);
  count(TR_EVENT, 1, err == CL_SUCCESS);
  return err;
}

CL_API_ENTRY cl_int CL_API_CALL clReleaseEvent(cl_event e) {
  REAL(event_fn, clReleaseEvent);
  cl_int err = real(e);
  count(TR_EVENT, -1, err == CL_SUCCESS);
  return err;
}

/* ============================================================================================== */
/* Enqueues that hand out events                                                                  */
/* ============================================================================================== */

typedef cl_int(CL_API_CALL *ndrange_fn)(cl_command_queue, cl_kernel, cl_uint, const size_t *,
                                        const size_t *, const size_t *, cl_uint, const cl_event *,
                                        cl_event *);
CL_API_ENTRY cl_int CL_API_CALL clEnqueueNDRangeKernel(cl_command_queue q, cl_kernel k,
                                                       cl_uint dims, const size_t *offset,
                                                       const size_t *global, const size_t *local,
                                                       cl_uint nw, const cl_event *wl,
                                                       cl_event *ev) {
  REAL(ndrange_fn, clEnqueueNDRangeKernel);
  cl_int err = real(q, k, dims, offset, global, local, nw, wl, ev);
  count_event(err, ev);
  if (err == CL_SUCCESS)
    atomic_fetch_add(&g_kernels, 1);
  return err;
}

typedef cl_int(CL_API_CALL *fill_fn)(cl_command_queue, cl_mem, const void *, size_t, size_t, size_t,
                                     cl_uint, const cl_event *, cl_event *);
CL_API_ENTRY cl_int CL_API_CALL clEnqueueFillBuffer(cl_command_queue q, cl_mem b, const void *p,
                                                    size_t ps, size_t off, size_t size, cl_uint nw,
                                                    const cl_event *wl, cl_event *ev) {
  REAL(fill_fn, clEnqueueFillBuffer);
  cl_int err = real(q, b, p, ps, off, size, nw, wl, ev);
  count_event(err, ev);
  return err;
}

typedef cl_int(CL_API_CALL *rw_fn)(cl_command_queue, cl_mem, cl_bool, size_t, size_t, void *,
                                   cl_uint, const cl_event *, cl_event *);
CL_API_ENTRY cl_int CL_API_CALL clEnqueueReadBuffer(cl_command_queue q, cl_mem b, cl_bool block,
                                                    size_t off, size_t size, void *p, cl_uint nw,
                                                    const cl_event *wl, cl_event *ev) {
  REAL(rw_fn, clEnqueueReadBuffer);
  cl_int err = real(q, b, block, off, size, p, nw, wl, ev);
  count_event(err, ev);
  return err;
}

typedef cl_int(CL_API_CALL *write_fn)(cl_command_queue, cl_mem, cl_bool, size_t, size_t,
                                      const void *, cl_uint, const cl_event *, cl_event *);
CL_API_ENTRY cl_int CL_API_CALL clEnqueueWriteBuffer(cl_command_queue q, cl_mem b, cl_bool block,
                                                     size_t off, size_t size, const void *p,
                                                     cl_uint nw, const cl_event *wl, cl_event *ev) {
  REAL(write_fn, clEnqueueWriteBuffer);
  cl_int err = real(q, b, block, off, size, p, nw, wl, ev);
  count_event(err, ev);
  return err;
}

typedef cl_int(CL_API_CALL *marker_fn)(cl_command_queue, cl_uint, const cl_event *, cl_event *);
CL_API_ENTRY cl_int CL_API_CALL clEnqueueMarkerWithWaitList(cl_command_queue q, cl_uint nw,
                                                            const cl_event *wl, cl_event *ev) {
  REAL(marker_fn, clEnqueueMarkerWithWaitList);
  cl_int err = real(q, nw, wl, ev);
  count_event(err, ev);
  return err;
}

/* ============================================================================================== */
/* Snapshots                                                                                      */
/* ============================================================================================== */

void tr_snapshot_take(tr_snapshot *s) {
  for (int k = 0; k < TR_KIND_COUNT; k++)
    s->live[k] = atomic_load(&g_live[k]);
  s->kernels_enqueued = atomic_load(&g_kernels);
  s->builds = atomic_load(&g_builds);
}

const char *tr_kind_name(tr_kind k) {
  static const char *const names[TR_KIND_COUNT] = {"mem",   "program", "kernel",
                                                   "queue", "event",   "context"};
  return (unsigned)k < TR_KIND_COUNT ? names[k] : "?";
}

int tr_leaked(const tr_snapshot *before, const tr_snapshot *now, char *buf, unsigned long cap) {
  int any = 0;
  size_t len = 0;
  buf[0] = '\0';
  for (int k = 0; k < TR_KIND_COUNT; k++) {
    long d = now->live[k] - before->live[k];
    if (d == 0)
      continue;
    int w =
        snprintf(buf + len, cap - len, "%s%+ld %s", any ? ", " : "", d, tr_kind_name((tr_kind)k));
    if (w > 0 && (size_t)w < cap - len)
      len += (size_t)w;
    any = 1;
  }
  return any;
}

long tr_fault_sweep(tr_fault_run run, void *arg, char *msg, unsigned long cap) {
  unsigned long reached = 0;
  for (unsigned long k = 1; k < 200; k++) {
    tr_snapshot before, after;
    tr_snapshot_take(&before);
    int st = run(arg, k, &reached);
    tr_snapshot_take(&after);
    char leak[256];
    if (tr_leaked(&before, &after, leak, sizeof leak)) {
      snprintf(msg, cap, "fault point %lu: leaked %s", k, leak);
      return -1;
    }
    if (reached < k) {
      // Every fault point failed once; the library must still work.
      if (st != CLSCAN_SUCCESS || run(arg, 0, &reached) != CLSCAN_SUCCESS) {
        snprintf(msg, cap, "fault point %lu: no fault, yet the run failed", k);
        return -1;
      }
      return (long)(k - 1);
    }
    if (st == CLSCAN_SUCCESS) {
      snprintf(msg, cap, "fault point %lu: the run succeeded", k);
      return -1;
    }
  }
  snprintf(msg, cap, "more than 200 fault points");
  return -1;
}
