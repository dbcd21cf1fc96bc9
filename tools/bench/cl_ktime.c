/*
 * clscan tools: cl_ktime, a library to preload (LD_PRELOAD) into any program that enqueues
 * OpenCL kernels through the ICD loader on queues with profiling enabled. It times every kernel
 * launch from its profiling event (an event of its own where the caller asks for none) and, when
 * the program exits, prints one line per kernel name to standard error: launches, total
 * milliseconds, mean microseconds per launch and the share of all kernels' time; a kernel built
 * in several programs (keys and pairs, say) or launched with several work-group sizes gets a line
 * for each, programs numbered in the order of their first launches (a program released and
 * another created may reuse its handle, and then its number). Launches on
 * queues without profiling pass through untimed. It answers "which kernel of a multi-kernel
 * algorithm takes the time" where the program itself reports only the whole (sort_sweep,
 * clscan bench); it changes nothing in what runs.
 *
 *   LD_PRELOAD=build/libcl_ktime.so build/sort_sweep 24 5 lsd:keys:u32
 *
 * Events are read back when the program waits (clFinish, clWaitForEvents) and at exit; the
 * times of different processes are not added together.
 */
#define _GNU_SOURCE
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef cl_int (*enqueue_fn)(cl_command_queue, cl_kernel, cl_uint, const size_t *, const size_t *,
                             const size_t *, cl_uint, const cl_event *, cl_event *);
typedef cl_int (*finish_fn)(cl_command_queue);
typedef cl_int (*wait_fn)(cl_uint, const cl_event *);

#define MAX_NAMES 64
#define MAX_PENDING 4096

typedef struct kernel_total {
  char name[64];
  cl_program program;
  size_t local;      /* work-items per work-group (0: the implementation's choice) */
  int program_index; /* programs numbered in the order their first launch came */
  unsigned long launches;
  double ns;
} kernel_total;

typedef struct pending {
  cl_event event;
  int slot; /* index into totals */
} pending;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static kernel_total totals[MAX_NAMES];
static int names;
static pending queue[MAX_PENDING];
static int pending_count;

/* Looks up a real entry point (POSIX: a data pointer that holds a function's address). */
static void *real_symbol(const char *name) {
  return dlsym(RTLD_NEXT, name);
}

/* The totals slot of a kernel's name and program (the last slot collects those past MAX_NAMES):
 * the same kernel built for two configurations (keys and pairs, say) is counted apart. */
static int slot_of(cl_kernel kernel, size_t local) {
  char name[64] = "?";
  cl_program program = NULL;
  clGetKernelInfo(kernel, CL_KERNEL_FUNCTION_NAME, sizeof name, name, NULL);
  clGetKernelInfo(kernel, CL_KERNEL_PROGRAM, sizeof program, &program, NULL);
  name[sizeof name - 1] = '\0';
  int programs = 0;
  for (int i = 0; i < names; i++) {
    if (totals[i].program == program && totals[i].local == local &&
        strcmp(totals[i].name, name) == 0)
      return i;
    if (totals[i].program_index >= programs)
      programs = totals[i].program_index + 1;
  }
  int index = programs;
  for (int i = 0; i < names; i++)
    if (totals[i].program == program)
      index = totals[i].program_index;
  if (names == MAX_NAMES)
    return MAX_NAMES - 1;
  snprintf(totals[names].name, sizeof totals[names].name, "%s", name);
  totals[names].program = program;
  totals[names].local = local;
  totals[names].program_index = index;
  return names++;
}

/* Adds every completed pending event to its kernel's total (all of them when `all`, waiting for
 * each), keeping the rest. Called with the lock held. */
static void drain(int all) {
  int kept = 0;
  for (int i = 0; i < pending_count; i++) {
    pending p = queue[i];
    cl_int state = CL_COMPLETE;
    if (all) {
      wait_fn real_wait;
      void *sym = real_symbol("clWaitForEvents");
      memcpy(&real_wait, &sym, sizeof real_wait);
      if (real_wait)
        real_wait(1, &p.event);
    } else
      clGetEventInfo(p.event, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof state, &state, NULL);
    if (state != CL_COMPLETE && state >= 0) {
      queue[kept++] = p;
      continue;
    }
    cl_ulong start = 0, end = 0;
    if (state == CL_COMPLETE &&
        clGetEventProfilingInfo(p.event, CL_PROFILING_COMMAND_START, sizeof start, &start, NULL) ==
            CL_SUCCESS &&
        clGetEventProfilingInfo(p.event, CL_PROFILING_COMMAND_END, sizeof end, &end, NULL) ==
            CL_SUCCESS &&
        end >= start) {
      totals[p.slot].launches++;
      totals[p.slot].ns += (double)(end - start);
    }
    clReleaseEvent(p.event);
  }
  pending_count = kept;
}

__attribute__((destructor)) static void report(void) {
  pthread_mutex_lock(&lock);
  drain(1);
  double sum = 0;
  for (int i = 0; i < names; i++)
    sum += totals[i].ns;
  if (sum > 0)
    fprintf(stderr, "cl_ktime: %-28s %7s %6s %9s %12s %12s %7s\n", "kernel", "program", "local",
            "launches", "total ms", "mean us", "share");
  for (int i = 0; i < names; i++) {
    const kernel_total *t = &totals[i];
    if (!t->launches)
      continue;
    fprintf(stderr, "cl_ktime: %-28s %7d %6zu %9lu %12.4f %12.3f %6.1f%%\n", t->name,
            t->program_index, t->local, t->launches, t->ns / 1e6, t->ns / 1e3 / (double)t->launches,
            sum > 0 ? 100.0 * t->ns / sum : 0.0);
  }
  pthread_mutex_unlock(&lock);
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueNDRangeKernel(cl_command_queue q, cl_kernel kernel,
                                                       cl_uint dims, const size_t *offset,
                                                       const size_t *global, const size_t *local,
                                                       cl_uint waits, const cl_event *wait_list,
                                                       cl_event *event) {
  static enqueue_fn real;
  pthread_mutex_lock(&lock);
  if (!real) {
    void *sym = real_symbol("clEnqueueNDRangeKernel");
    memcpy(&real, &sym, sizeof real);
  }
  pthread_mutex_unlock(&lock);
  if (!real)
    return CL_INVALID_OPERATION;
  cl_command_queue_properties props = 0;
  clGetCommandQueueInfo(q, CL_QUEUE_PROPERTIES, sizeof props, &props, NULL);
  if (!(props & CL_QUEUE_PROFILING_ENABLE))
    return real(q, kernel, dims, offset, global, local, waits, wait_list, event);
  cl_event own = NULL;
  const cl_int err =
      real(q, kernel, dims, offset, global, local, waits, wait_list, event ? event : &own);
  if (err != CL_SUCCESS)
    return err;
  cl_event e = event ? *event : own;
  if (event)
    clRetainEvent(e);
  pthread_mutex_lock(&lock);
  if (pending_count == MAX_PENDING)
    drain(1);
  queue[pending_count].event = e;
  queue[pending_count].slot = slot_of(kernel, local ? local[0] : 0);
  pending_count++;
  pthread_mutex_unlock(&lock);
  return err;
}

CL_API_ENTRY cl_int CL_API_CALL clFinish(cl_command_queue q) {
  finish_fn real;
  void *sym = real_symbol("clFinish");
  memcpy(&real, &sym, sizeof real);
  if (!real)
    return CL_INVALID_OPERATION;
  const cl_int err = real(q);
  pthread_mutex_lock(&lock);
  drain(0);
  pthread_mutex_unlock(&lock);
  return err;
}

CL_API_ENTRY cl_int CL_API_CALL clWaitForEvents(cl_uint count, const cl_event *events) {
  wait_fn real;
  void *sym = real_symbol("clWaitForEvents");
  memcpy(&real, &sym, sizeof real);
  if (!real)
    return CL_INVALID_OPERATION;
  const cl_int err = real(count, events);
  pthread_mutex_lock(&lock);
  drain(0);
  pthread_mutex_unlock(&lock);
  return err;
}
