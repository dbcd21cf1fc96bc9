/*
 * clscan_mpi: scans distributed across MPI ranks, one device per rank (see clscan_mpi.h).
 *
 * This file implements the clscan_mpi library on top of clscan's public API only: every
 * combination of elements runs on the device through clscan_scan(), clscan_scan_host() or a plan
 * seeded with the rank's offset, so no operator needs a host implementation. The stages are:
 * local checks, agreement (MPI_Allreduce), first local scan and exchange of the totals
 * (MPI_Allgather), the offset scan, the last local scan, and agreement on the final status.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clscan_mpi.h"

/* Returns a failed status at once (the library's internal style; nothing to release). */
#define CLSCAN_RETURN_IF_ERROR(call) \
  do {                               \
    clscan_status st_ = (call);      \
    if (st_ != CLSCAN_SUCCESS) {     \
      return st_;                    \
    }                                \
  } while (0)

/* ============================================================================================== */
/* Error detail                                                                                   */
/* ============================================================================================== */

/* The calling thread's last error detail. clscan_mpi keeps its own rather than the library's
 * clscan__fail(): that one is internal to libclscan (not exported), and every clscan call made
 * here clears clscan_last_error_detail(), while this detail must outlive them. */
static _Thread_local char last_detail[512];

const char *clscan_mpi_last_error_detail(void) {
  return last_detail;
}

/* Records a formatted detail for the calling thread and returns status. */
static clscan_status fail(clscan_status status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static clscan_status fail(clscan_status status, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(last_detail, sizeof last_detail, fmt, ap);
  va_end(ap);
  return status;
}

/* Records the detail of a failed clscan call and returns its status. */
static clscan_status lib_fail(clscan_status status) {
  return fail(status, "%s (%s)", clscan_status_string(status), clscan_last_error_detail());
}

/* Records a failed OpenCL call and returns CLSCAN_OPENCL_ERROR. */
static clscan_status cl_fail(cl_int err, const char *what) {
  return fail(CLSCAN_OPENCL_ERROR, "%s returned %d", what, (int)err);
}

/* Records a failed MPI call and returns CLSCAN_MPI_ERROR. */
static clscan_status mpi_fail(int err, const char *what) {
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  if (MPI_Error_string(err, text, &len) != MPI_SUCCESS)
    snprintf(text, sizeof text, "code %d", err);
  return fail(CLSCAN_MPI_ERROR, "%s failed: %s", what, text);
}

/* ============================================================================================== */
/* One distributed scan                                                                           */
/* ============================================================================================== */

/* What each rank contributes to the exchange: its status and, if it has data, its total. */
typedef struct record {
  int32_t status;
  int32_t has_data;
  unsigned char total[8];
} record;

/* A distributed scan after its arguments were checked on this rank. */
typedef struct job {
  clscan_context *ctx;
  MPI_Comm comm;
  int rank, size;
  cl_command_queue queue;
  const clscan_scan_desc *desc;
  size_t elem;
  cl_mem in, out;
  size_t in_off, out_off, n;
  cl_uint num_wait;
  const cl_event *wait_list;
  cl_event *done;
  cl_mem scratch; /* the first scan's output when scanning in place, else NULL */
  record *all;    /* one record per rank, filled by the exchange */
} job;

/* The descriptor of the first scan: inclusive, without the initial value. */
static clscan_scan_desc first_desc(const clscan_scan_desc *desc) {
  clscan_scan_desc d = *desc;
  d.exclusive = 0;
  d.init = NULL;
  return d;
}

/* ============================================================================================== */
/* Agreement                                                                                      */
/* ============================================================================================== */

/* Hashes what must agree across ranks: type, operator, exclusive, and the initial value. The
 * result fits in 62 bits, so that it can be negated in a long long. */
static long long desc_hash(const clscan_scan_desc *desc) {
  unsigned char bytes[4 + 8] = {(unsigned char)desc->type, (unsigned char)desc->op,
                                (unsigned char)(desc->exclusive != 0),
                                (unsigned char)(desc->init != NULL)};
  if (desc->init)
    memcpy(bytes + 4, desc->init, clscan_type_size(desc->type));
  uint64_t h = 14695981039346656037ull; /* FNV-1a */
  for (size_t i = 0; i < sizeof bytes; i++)
    h = (h ^ bytes[i]) * 1099511628211ull;
  return (long long)(h >> 2);
}

/* Settles a status across ranks: the most negative one wins (the lowest rank among equals), and
 * with hash != 0 all ranks must have passed the same hash. Collective. */
static clscan_status agree(MPI_Comm comm, int rank, clscan_status local, long long hash) {
  const long long shift = 4294967296LL;
  long long v[3] = {(long long)local * shift + rank, hash, -hash};
  int err = MPI_Allreduce(MPI_IN_PLACE, v, 3, MPI_LONG_LONG, MPI_MIN, comm);
  if (err != MPI_SUCCESS)
    return mpi_fail(err, "MPI_Allreduce");

  // Decode the winning status and rank; this rank's own failure keeps its own detail.
  int who = (int)(((v[0] % shift) + shift) % shift);
  clscan_status status = (clscan_status)((v[0] - who) / shift);
  if (status != CLSCAN_SUCCESS) {
    if (status == local)
      return local;
    return fail(status, "rank %d failed: %s", who, clscan_status_string(status));
  }
  if (v[1] != hash || v[2] != -hash)
    return fail(CLSCAN_INVALID_VALUE,
                "the ranks passed different descriptors (type, op, exclusive or init)");
  return CLSCAN_SUCCESS;
}

/* Finds the most negative status of the exchange (the lowest rank among equals). */
static clscan_status exchanged_status(const job *j) {
  const record *all = j->all;
  int who = 0;
  for (int r = 1; r < j->size; r++) {
    if (all[r].status < all[who].status)
      who = r;
  }
  clscan_status status = (clscan_status)all[who].status;
  if (status == CLSCAN_SUCCESS || who == j->rank || status == (clscan_status)all[j->rank].status)
    return status;
  return fail(status, "rank %d failed: %s", who, clscan_status_string(status));
}

/* ============================================================================================== */
/* Local checks                                                                                   */
/* ============================================================================================== */

/* Resolves a buffer to its root buffer and the byte offset of its start within it. */
static clscan_status buffer_root(cl_mem buf, cl_mem *root, size_t *origin) {
  *root = buf;
  *origin = 0;
  for (;;) {
    cl_mem parent = NULL;
    size_t offset = 0;
    cl_int err =
        clGetMemObjectInfo(*root, CL_MEM_ASSOCIATED_MEMOBJECT, sizeof parent, &parent, NULL);
    if (err == CL_SUCCESS && parent)
      err = clGetMemObjectInfo(*root, CL_MEM_OFFSET, sizeof offset, &offset, NULL);
    if (err != CL_SUCCESS)
      return cl_fail(err, "clGetMemObjectInfo");
    if (!parent)
      return CLSCAN_SUCCESS;
    *origin += offset;
    *root = parent;
  }
}

/* Rejects input and output ranges that overlap without being identical; allocates the first
 * scan's scratch buffer when they are identical (in place). */
static clscan_status check_overlap(job *j) {
  cl_mem in_root, out_root;
  size_t in_origin, out_origin;
  CLSCAN_RETURN_IF_ERROR(buffer_root(j->in, &in_root, &in_origin));
  CLSCAN_RETURN_IF_ERROR(buffer_root(j->out, &out_root, &out_origin));
  if (in_root != out_root || j->n == 0)
    return CLSCAN_SUCCESS;
  size_t a = in_origin + j->in_off * j->elem, b = out_origin + j->out_off * j->elem;
  size_t len = j->n * j->elem;
  if (a != b && a < b + len && b < a + len)
    return fail(CLSCAN_OVERLAP, "input bytes [%zu, %zu) and output bytes [%zu, %zu) overlap", a,
                a + len, b, b + len);
  if (a != b)
    return CLSCAN_SUCCESS;
  cl_int err;
  j->scratch =
      clCreateBuffer(clscan_context_cl_context(j->ctx), CL_MEM_READ_WRITE, len, NULL, &err);
  if (err != CL_SUCCESS)
    return cl_fail(err, "clCreateBuffer(in-place scratch)");
  return CLSCAN_SUCCESS;
}

/* Checks a device scan's arguments on this rank. The buffers, queue and wait list are checked
 * by the library itself, through an empty scan of the first descriptor at offsets offset + n
 * (which also builds that scan's program, so a build failure is agreed too). */
static clscan_status check_device_args(job *j) {
  if (!j->ctx)
    return fail(CLSCAN_NULL_ARGUMENT, "ctx is NULL");
  clscan_status st = clscan_context_supports(j->ctx, j->desc);
  if (st != CLSCAN_SUCCESS)
    return lib_fail(st);
  j->elem = clscan_type_size(j->desc->type);
  if (j->in_off > SIZE_MAX - j->n || j->out_off > SIZE_MAX - j->n)
    return fail(CLSCAN_SIZE_OVERFLOW, "offset + n_local overflows");
  clscan_scan_desc d = first_desc(j->desc);
  st = clscan_scan(j->ctx, j->queue, &d, j->in, j->in_off + j->n, j->out, j->out_off + j->n, 0,
                   j->num_wait, j->wait_list, NULL);
  if (st != CLSCAN_SUCCESS)
    return lib_fail(st);
  if (!j->queue)
    j->queue = clscan_context_queue(j->ctx);
  return check_overlap(j);
}

/* Checks a host scan's arguments on this rank. */
static clscan_status check_host_args(job *j, const void *in, const void *out) {
  if (!j->ctx)
    return fail(CLSCAN_NULL_ARGUMENT, "ctx is NULL");
  clscan_status st = clscan_context_supports(j->ctx, j->desc);
  if (st != CLSCAN_SUCCESS)
    return lib_fail(st);
  j->elem = clscan_type_size(j->desc->type);
  if (j->n == 0)
    return CLSCAN_SUCCESS;
  if (!in || !out)
    return fail(CLSCAN_NULL_ARGUMENT, "in or out is NULL");
  if (j->n > SIZE_MAX / j->elem)
    return fail(CLSCAN_SIZE_OVERFLOW, "n_local * size overflows");

  // Host ranges may be identical but must not partly overlap.
  const char *a = in, *b = out;
  size_t bytes = j->n * j->elem;
  if (a != b && a < b + bytes && b < a + bytes)
    return fail(CLSCAN_OVERLAP, "host input and output overlap without being identical");
  cl_ulong max_alloc = 0;
  cl_int err = clGetDeviceInfo(clscan_context_device(j->ctx), CL_DEVICE_MAX_MEM_ALLOC_SIZE,
                               sizeof max_alloc, &max_alloc, NULL);
  if (err != CL_SUCCESS)
    return cl_fail(err, "clGetDeviceInfo(CL_DEVICE_MAX_MEM_ALLOC_SIZE)");
  if (bytes > max_alloc)
    return fail(CLSCAN_SIZE_OVERFLOW, "%zu bytes exceed the device's largest allocation", bytes);
  return CLSCAN_SUCCESS;
}

/* ============================================================================================== */
/* Stages                                                                                         */
/* ============================================================================================== */

/* Scans the slice inclusively without the initial value and reads back its last element. */
static clscan_status local_total(job *j, unsigned char *total) {
  clscan_scan_desc d = first_desc(j->desc);
  cl_mem target = j->scratch ? j->scratch : j->out;
  size_t off = j->scratch ? 0 : j->out_off;
  cl_event ev = NULL;
  clscan_status st = clscan_scan(j->ctx, j->queue, &d, j->in, j->in_off, target, off, j->n,
                                 j->num_wait, j->wait_list, &ev);
  if (st != CLSCAN_SUCCESS)
    return lib_fail(st);
  cl_int err = clEnqueueReadBuffer(j->queue, target, CL_TRUE, (off + j->n - 1) * j->elem, j->elem,
                                   total, 1, &ev, NULL);
  if (err != CL_SUCCESS)
    clWaitForEvents(1, &ev);
  clReleaseEvent(ev);
  return err == CL_SUCCESS ? CLSCAN_SUCCESS : cl_fail(err, "clEnqueueReadBuffer(local total)");
}

/* Runs the first scan (if `local` is still a success and there is data) and exchanges every
 * rank's status and total. Collective; the result is the same on every rank. */
static clscan_status exchange(job *j, clscan_status local) {
  record mine = {.status = (int32_t)local};
  if (local == CLSCAN_SUCCESS && j->n > 0) {
    mine.status = (int32_t)local_total(j, mine.total);
    mine.has_data = mine.status == CLSCAN_SUCCESS;
  }
  if (j->scratch)
    clReleaseMemObject(j->scratch);
  j->scratch = NULL;
  int err =
      MPI_Allgather(&mine, (int)sizeof mine, MPI_BYTE, j->all, (int)sizeof mine, MPI_BYTE, j->comm);
  if (err != MPI_SUCCESS)
    return mpi_fail(err, "MPI_Allgather");
  return exchanged_status(j);
}

/* Computes this rank's seed on the device: init op the totals of the non-empty ranks before it,
 * in rank order. *seed becomes NULL (neither an init value nor such a rank), desc->init (no such
 * rank), or buf. */
static clscan_status rank_offset(const job *j, unsigned char *buf, const void **seed) {
  unsigned char *totals = malloc((size_t)j->rank * j->elem + 1);
  if (!totals)
    return fail(CLSCAN_OUT_OF_HOST_MEMORY, "offset totals");
  size_t k = 0;
  for (int r = 0; r < j->rank; r++) {
    if (j->all[r].has_data)
      memcpy(totals + j->elem * k++, j->all[r].total, j->elem);
  }

  // An inclusive scan seeded with init: its last element is init op t_0 op ... op t_{k-1}.
  clscan_status st = CLSCAN_SUCCESS;
  *seed = j->desc->init;
  if (k > 0) {
    clscan_scan_desc d = first_desc(j->desc);
    d.init = j->desc->init;
    st = clscan_scan_host(j->ctx, &d, totals, totals, k);
    if (st != CLSCAN_SUCCESS) {
      lib_fail(st);
      goto fail;
    }
    memcpy(buf, totals + (k - 1) * j->elem, j->elem);
    *seed = buf;
  }
fail:
  free(totals);
  return st;
}

/* Enqueues the last scan: the slice as asked, seeded with the offset. A seed computed on the
 * device gets a plan of its own, so that the context's plan cache does not grow per value. */
static clscan_status last_scan(job *j, const void *seed) {
  clscan_status st;
  if (j->n == 0) {
    // Nothing to scan; an empty scan still gives the caller an event that honours the waits.
    if (!j->done)
      return CLSCAN_SUCCESS;
    clscan_scan_desc d = first_desc(j->desc);
    st = clscan_scan(j->ctx, j->queue, &d, j->in, j->in_off, j->out, j->out_off, 0, j->num_wait,
                     j->wait_list, j->done);
    return st == CLSCAN_SUCCESS ? st : lib_fail(st);
  }
  clscan_scan_desc d = *j->desc;
  d.init = seed;
  if (seed == j->desc->init) {
    st = clscan_scan(j->ctx, j->queue, &d, j->in, j->in_off, j->out, j->out_off, j->n, 0, NULL,
                     j->done);
    return st == CLSCAN_SUCCESS ? st : lib_fail(st);
  }
  clscan_plan *plan = NULL;
  st = clscan_plan_create(j->ctx, &d, &plan);
  if (st != CLSCAN_SUCCESS)
    return lib_fail(st);
  st = clscan_plan_enqueue(plan, j->queue, j->in, j->in_off, j->out, j->out_off, j->n, 0, NULL,
                           j->done);
  clscan_plan_release(plan); /* work already enqueued completes */
  return st == CLSCAN_SUCCESS ? st : lib_fail(st);
}

/* Runs everything after the first agreement: first scan and exchange, offset, last scan. A
 * status that is not a success on entry (e.g. a failed upload) is taken into the exchange. */
static clscan_status run(job *j, clscan_status local) {
  CLSCAN_RETURN_IF_ERROR(exchange(j, local));
  clscan_status st = CLSCAN_SUCCESS;

  // From here no rank has failed yet, so every rank reaches the final agreement: the status
  // flows into it rather than returning early.
  unsigned char buf[8];
  const void *seed = NULL;
  if (j->n > 0)
    st = rank_offset(j, buf, &seed);
  if (st == CLSCAN_SUCCESS)
    st = last_scan(j, seed);
  clscan_status agreed = agree(j->comm, j->rank, st, 0);
  if (agreed != CLSCAN_SUCCESS && j->done && *j->done) {
    // Another rank failed: this rank's scan was enqueued, so wait for it and drop the event.
    clWaitForEvents(1, j->done);
    clReleaseEvent(*j->done);
    *j->done = NULL;
  }
  return agreed;
}

/* Fills the parts of a job that every entry point shares; fails for MPI_COMM_NULL. */
static clscan_status start_job(job *j, clscan_context *ctx, MPI_Comm comm,
                               const clscan_scan_desc *desc, size_t n) {
  memset(j, 0, sizeof *j);
  last_detail[0] = '\0';
  j->ctx = ctx;
  j->comm = comm;
  j->desc = desc;
  j->n = n;
  if (comm == MPI_COMM_NULL)
    return fail(CLSCAN_NULL_ARGUMENT, "comm is MPI_COMM_NULL");
  int err = MPI_Comm_rank(comm, &j->rank);
  if (err == MPI_SUCCESS)
    err = MPI_Comm_size(comm, &j->size);
  return err == MPI_SUCCESS ? CLSCAN_SUCCESS : mpi_fail(err, "MPI_Comm_rank or MPI_Comm_size");
}

/* Allocates the exchange's records (before the first agreement, so that a failure is agreed). */
static clscan_status alloc_records(job *j) {
  j->all = malloc((size_t)j->size * sizeof *j->all);
  return j->all ? CLSCAN_SUCCESS : fail(CLSCAN_OUT_OF_HOST_MEMORY, "exchange records");
}

/* Releases what a job allocated (not the caller's buffers). */
static void end_job(job *j) {
  if (j->scratch)
    clReleaseMemObject(j->scratch);
  free(j->all);
}

/* ============================================================================================== */
/* Entry points                                                                                   */
/* ============================================================================================== */

clscan_status clscan_mpi_scan(clscan_context *ctx, MPI_Comm comm, cl_command_queue queue,
                              const clscan_scan_desc *desc, cl_mem in, size_t in_offset, cl_mem out,
                              size_t out_offset, size_t n_local, cl_uint num_wait,
                              const cl_event *wait_list, cl_event *done) {
  job j;
  if (done)
    *done = NULL;
  CLSCAN_RETURN_IF_ERROR(start_job(&j, ctx, comm, desc, n_local));
  j.queue = queue;
  j.in = in;
  j.out = out;
  j.in_off = in_offset;
  j.out_off = out_offset;
  j.num_wait = num_wait;
  j.wait_list = wait_list;
  j.done = done;

  // Every rank checks locally, then all agree before any data moves. The status flows into
  // the agreement even when it failed (no early return): every rank must reach the collective.
  clscan_status st = check_device_args(&j);
  if (st == CLSCAN_SUCCESS)
    st = alloc_records(&j);
  st = agree(comm, j.rank, st, st == CLSCAN_SUCCESS ? desc_hash(desc) : 0);
  if (st == CLSCAN_SUCCESS)
    st = run(&j, CLSCAN_SUCCESS);
  end_job(&j);
  return st;
}

/* Creates the host scan's device input and output buffers. */
static clscan_status host_buffers(job *j) {
  cl_context cl_ctx = clscan_context_cl_context(j->ctx);
  size_t bytes = j->n * j->elem;
  cl_int err;
  j->in = clCreateBuffer(cl_ctx, CL_MEM_READ_WRITE, bytes, NULL, &err);
  if (err == CL_SUCCESS)
    j->out = clCreateBuffer(cl_ctx, CL_MEM_READ_WRITE, bytes, NULL, &err);
  return err == CL_SUCCESS ? CLSCAN_SUCCESS : cl_fail(err, "clCreateBuffer(host scan)");
}

/* Uploads the input, runs the distributed scan and waits for it, then reads the result. */
static clscan_status host_run(job *j, const void *in, void *out) {
  cl_int err = CL_SUCCESS;
  cl_event done = NULL;
  if (j->n > 0) {
    j->done = &done;
    err = clEnqueueWriteBuffer(j->queue, j->in, CL_TRUE, 0, j->n * j->elem, in, 0, NULL, NULL);
  }
  clscan_status st = run(j, err == CL_SUCCESS ? CLSCAN_SUCCESS : cl_fail(err, "upload"));
  if (st != CLSCAN_SUCCESS || !done)
    return st;
  err = clEnqueueReadBuffer(j->queue, j->out, CL_TRUE, 0, j->n * j->elem, out, 1, &done, NULL);
  clReleaseEvent(done);
  return err == CL_SUCCESS ? CLSCAN_SUCCESS : cl_fail(err, "clEnqueueReadBuffer(result)");
}

clscan_status clscan_mpi_scan_host(clscan_context *ctx, MPI_Comm comm, const clscan_scan_desc *desc,
                                   const void *in, void *out, size_t n_local) {
  job j;
  CLSCAN_RETURN_IF_ERROR(start_job(&j, ctx, comm, desc, n_local));

  // Every rank checks locally and allocates, then all agree before any data moves.
  clscan_status st = check_host_args(&j, in, out);
  if (st == CLSCAN_SUCCESS) {
    j.queue = clscan_context_queue(ctx);
    st = alloc_records(&j);
  }
  if (st == CLSCAN_SUCCESS && n_local > 0)
    st = host_buffers(&j);
  st = agree(comm, j.rank, st, st == CLSCAN_SUCCESS ? desc_hash(desc) : 0);
  if (st == CLSCAN_SUCCESS)
    st = host_run(&j, in, out);
  if (j.in)
    clReleaseMemObject(j.in);
  if (j.out)
    clReleaseMemObject(j.out);
  end_job(&j);
  return st;
}
