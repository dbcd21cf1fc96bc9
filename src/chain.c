/*
 * clscan: the command chain the algorithms enqueue through, and kernel arguments.
 *
 * Every command of a chain waits for the one before it (so out-of-order queues work too); the
 * first waits for the caller's events and for the previous user of the temporary buffer.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

clscan_status clscan__chain_start(clscan__chain *c, cl_command_queue queue, cl_uint num_wait,
                                  const cl_event *wait_list, cl_event extra) {
  memset(c, 0, sizeof *c);
  c->queue = queue;
  c->num_wait = num_wait + (extra ? 1 : 0);
  if (!c->num_wait)
    return CLSCAN_SUCCESS;
  c->wait = malloc(c->num_wait * sizeof *c->wait);
  if (!c->wait)
    return clscan__fail(CLSCAN_OUT_OF_HOST_MEMORY, "wait list");
  if (num_wait)
    memcpy(c->wait, wait_list, num_wait * sizeof *c->wait);
  if (extra)
    c->wait[num_wait] = extra;
  return CLSCAN_SUCCESS;
}

/* Records a new command's event as the chain's last (and first, if it is). */
static void chain_push(clscan__chain *c, cl_event ev) {
  if (!c->first) {
    c->first = ev;
    clRetainEvent(ev);
  }
  if (c->last)
    clReleaseEvent(c->last);
  c->last = ev;
}

/* The wait list of the next command: the previous command, or the initial list. */
static cl_uint chain_waits(const clscan__chain *c, const cl_event **list) {
  if (c->last) {
    *list = &c->last;
    return 1;
  }
  *list = c->num_wait ? c->wait : NULL;
  return c->num_wait;
}

clscan_status clscan__chain_kernel(clscan__chain *c, cl_kernel k, size_t groups, size_t local) {
  const cl_event *list;
  cl_uint nw = chain_waits(c, &list);
  size_t global = groups * local;
  const size_t *offset = c->global_offset ? &c->global_offset : NULL;
  cl_event ev;
  cl_int err =
      CLSCAN_FAULT(CL_OUT_OF_RESOURCES,
                   clEnqueueNDRangeKernel(c->queue, k, 1, offset, &global, &local, nw, list, &ev));
  if (err != CL_SUCCESS)
    return clscan__cl_fail(err, "clEnqueueNDRangeKernel");
  chain_push(c, ev);
  return CLSCAN_SUCCESS;
}

clscan_status clscan__chain_zero(clscan__chain *c, cl_mem buf, size_t bytes) {
  return clscan__chain_zero_at(c, buf, 0, bytes);
}

clscan_status clscan__chain_zero_at(clscan__chain *c, cl_mem buf, size_t offset, size_t bytes) {
  const cl_event *list;
  cl_uint nw = chain_waits(c, &list);
  const cl_uint zero = 0;
  cl_event ev;
  bytes = (bytes + 3) & ~(size_t)3;
  cl_int err = CLSCAN_FAULT(
      CL_OUT_OF_RESOURCES,
      clEnqueueFillBuffer(c->queue, buf, &zero, sizeof zero, offset, bytes, nw, list, &ev));
  if (err != CL_SUCCESS)
    return clscan__cl_fail(err, "clEnqueueFillBuffer");
  chain_push(c, ev);
  return CLSCAN_SUCCESS;
}

clscan_status clscan__chain_marker(clscan__chain *c) {
  const cl_event *list;
  cl_uint nw = chain_waits(c, &list);
  cl_event ev;
  cl_int err =
      CLSCAN_FAULT(CL_OUT_OF_RESOURCES, clEnqueueMarkerWithWaitList(c->queue, nw, list, &ev));
  if (err != CL_SUCCESS)
    return clscan__cl_fail(err, "clEnqueueMarkerWithWaitList");
  chain_push(c, ev);
  return CLSCAN_SUCCESS;
}

void clscan__chain_finish(clscan__chain *c, cl_event *first, cl_event *done) {
  if (first) {
    *first = c->first;
  } else if (c->first) {
    clReleaseEvent(c->first);
  }
  if (done) {
    *done = c->last;
  } else if (c->last) {
    clReleaseEvent(c->last);
  }
  free(c->wait);
  memset(c, 0, sizeof *c);
}

int clscan__chain_abort(clscan__chain *c) {
  int enqueued = c->last != NULL;
  if (c->last)
    clWaitForEvents(1, &c->last);
  clscan__chain_finish(c, NULL, NULL);
  return enqueued;
}

clscan_status clscan__set_args(cl_kernel k, const clscan__karg *args, cl_uint count) {
  for (cl_uint i = 0; i < count; i++) {
    cl_int err = clSetKernelArg(k, i, args[i].size, args[i].value);
    if (err != CL_SUCCESS)
      return clscan__cl_fail(err, "clSetKernelArg");
  }
  return CLSCAN_SUCCESS;
}

clscan_status clscan__chain_call(clscan__chain *c, cl_kernel k, const clscan__karg *args,
                                 cl_uint count, size_t groups, size_t local) {
  CLSCAN_RETURN_IF_ERROR(clscan__set_args(k, args, count));
  return clscan__chain_kernel(c, k, groups, local);
}
