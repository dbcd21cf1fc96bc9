/*
 * clscan: dispatch. Lays out temporary storage and enqueues each algorithm's kernels in order.
 *
 * Every command of a scan waits for the one before it (so out-of-order queues work too); the
 * first waits for the caller's events and for the previous user of the temporary buffer.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* Single-pass temporary layout: the ticket counter, then status words from this offset. */
#define STATUS_OFFSET 64

/* ============================================================================================== */
/* Command chain                                                                                  */
/* ============================================================================================== */

typedef struct chain {
  cl_command_queue queue;
  cl_uint num_wait;
  cl_event *wait; /* for the first command */
  cl_event first, last;
} chain;

/* Records a new command's event as the chain's last (and first, if it is). */
static void chain_push(chain *c, cl_event ev) {
  if (!c->first) {
    c->first = ev;
    clRetainEvent(ev);
  }
  if (c->last) clReleaseEvent(c->last);
  c->last = ev;
}

/* The wait list of the next command: the previous command, or the initial list. */
static cl_uint chain_waits(const chain *c, const cl_event **list) {
  if (c->last) {
    *list = &c->last;
    return 1;
  }
  *list = c->num_wait ? c->wait : NULL;
  return c->num_wait;
}

/* Enqueues a 1-D kernel of `groups` work-groups of `local` work-items. */
static clscan_status chain_kernel(chain *c, cl_kernel k, size_t groups, size_t local) {
  const cl_event *list;
  cl_uint nw = chain_waits(c, &list);
  size_t global = groups * local;
  cl_event ev;
  cl_int err = CLSCAN_FAULT(CL_OUT_OF_RESOURCES, clEnqueueNDRangeKernel(c->queue, k, 1, NULL, &global,
                                                                     &local, nw, list, &ev));
  if (err != CL_SUCCESS) return clscan__cl_fail(err, "clEnqueueNDRangeKernel");
  chain_push(c, ev);
  return CLSCAN_SUCCESS;
}

/* Enqueues a zero fill of a buffer's first `bytes`. */
static clscan_status chain_zero(chain *c, cl_mem buf, size_t bytes) {
  const cl_event *list;
  cl_uint nw = chain_waits(c, &list);
  const cl_uint zero = 0;
  cl_event ev;
  bytes = (bytes + 3) & ~(size_t)3;
  cl_int err = CLSCAN_FAULT(CL_OUT_OF_RESOURCES, clEnqueueFillBuffer(c->queue, buf, &zero, sizeof zero,
                                                                  0, bytes, nw, list, &ev));
  if (err != CL_SUCCESS) return clscan__cl_fail(err, "clEnqueueFillBuffer");
  chain_push(c, ev);
  return CLSCAN_SUCCESS;
}

/* Enqueues a marker (for n == 0, so that the caller still gets an event). */
static clscan_status chain_marker(chain *c) {
  const cl_event *list;
  cl_uint nw = chain_waits(c, &list);
  cl_event ev;
  cl_int err =
      CLSCAN_FAULT(CL_OUT_OF_RESOURCES, clEnqueueMarkerWithWaitList(c->queue, nw, list, &ev));
  if (err != CL_SUCCESS) return clscan__cl_fail(err, "clEnqueueMarkerWithWaitList");
  chain_push(c, ev);
  return CLSCAN_SUCCESS;
}

/* ============================================================================================== */
/* Kernel arguments                                                                               */
/* ============================================================================================== */

/* Sets consecutive kernel arguments from a list of (size, pointer) pairs. */
typedef struct karg {
  size_t size;
  const void *value;
} karg;

static clscan_status set_args(cl_kernel k, const karg *args, cl_uint count) {
  for (cl_uint i = 0; i < count; i++) {
    cl_int err = clSetKernelArg(k, i, args[i].size, args[i].value);
    if (err != CL_SUCCESS) return clscan__cl_fail(err, "clSetKernelArg");
  }
  return CLSCAN_SUCCESS;
}

#define ARG(x) \
  { sizeof(x), &(x) }

/* ============================================================================================== */
/* Sizes                                                                                          */
/* ============================================================================================== */

static size_t div_up(size_t a, size_t b) { return (a + b - 1) / b; }
static size_t align16(size_t bytes) { return (bytes + 15) & ~(size_t)15; }

/* Elements per block of the seed algorithms. */
static size_t seed_block(const clscan_plan *plan, clscan_algorithm algo) {
  return algo == CLSCAN_ALGO_BLELLOCH ? 2 * (size_t)plan->tuning.seed_wg : plan->tuning.seed_wg;
}

/* Elements per tile of the GPU-shaped tile kernels (tile.cl). */
static size_t gpu_tile_elems(const clscan_plan *plan) {
  return (size_t)plan->tuning.tile_wg * plan->tuning.tile_vpt * (16 / plan->elem_size);
}

/* Elements per tile of the single pass (the CPU shape has its own tile size). */
static size_t tile_elems(const clscan_plan *plan) {
  return plan->tuning.single_pass_cpu ? plan->tuning.cpu_tile : gpu_tile_elems(plan);
}

/* Work-groups reduce-then-scan uses for n elements. */
static size_t rts_groups(const clscan_plan *plan, size_t n) {
  size_t tile = gpu_tile_elems(plan);
  size_t groups = (size_t)plan->ctx->info.compute_units * plan->tuning.rts_groups_per_cu;
  size_t tiles = div_up(n, tile);
  return groups < tiles ? (groups ? groups : 1) : (tiles ? tiles : 1);
}

size_t clscan__temp_bytes(const clscan_plan *plan, clscan_algorithm algo, size_t n) {
  size_t e = plan->elem_size;
  switch (algo) {
    case CLSCAN_ALGO_BLELLOCH:
    case CLSCAN_ALGO_HILLIS_STEELE: {
      // One array of block totals per level.
      size_t b = seed_block(plan, algo), bytes = 0;
      for (size_t m = n; m > b; m = div_up(m, b)) bytes += align16(div_up(m, b) * e);
      return bytes;
    }
    case CLSCAN_ALGO_REDUCE_THEN_SCAN:
      return 2 * align16(rts_groups(plan, n) * e);
    case CLSCAN_ALGO_SINGLE_PASS:
      // The ticket counter, then (8-byte status words per 4 bytes of value) per tile.
      return STATUS_OFFSET + div_up(n, tile_elems(plan)) * 8 * ((e + 3) / 4);
    default:
      return 0;
  }
}

/* ============================================================================================== */
/* Algorithms                                                                                     */
/* ============================================================================================== */

/* One scan's arguments as the algorithms see them. */
typedef struct scan_args {
  clscan_plan *plan;
  clscan__algo_kernels *ak;
  chain *c;
  cl_mem temp;
  cl_ulong epoch;
  cl_uint ticket_base;
  int in_place;
  unsigned char seed[8]; /* the initial value, or the identity */
  unsigned char identity[8];
} scan_args;

/* Scans m elements of one level and, recursively, the levels above it. */
static clscan_status seed_level(scan_args *a, clscan_algorithm algo, cl_mem in, cl_ulong in_off,
                                cl_mem out, cl_ulong out_off, cl_ulong m, cl_int exclusive,
                                cl_ulong temp_off) {
  const clscan_plan *plan = a->plan;
  size_t b = seed_block(plan, algo), e = plan->elem_size;
  size_t wg = plan->tuning.seed_wg, blocks = div_up(m, b);
  cl_int has_sums = blocks > 1;
  cl_ulong sums_off = temp_off / e;
  cl_mem sums = has_sums ? a->temp : in; /* any valid buffer when unused */
  cl_kernel scan = a->ak->k[0], add = a->ak->k[1];

  // Blocks are scanned with the seed only when one block covers the level.
  const karg kargs[] = {ARG(in),       ARG(in_off),    ARG(out),  ARG(out_off), ARG(m),
                            ARG(sums),     ARG(sums_off),  ARG(has_sums), ARG(exclusive),
                            {e, has_sums ? a->identity : a->seed}};
  clscan_status st = set_args(scan, kargs, 10);
  if (st == CLSCAN_SUCCESS) st = chain_kernel(a->c, scan, blocks, wg);
  if (st != CLSCAN_SUCCESS || !has_sums) return st;

  // Scan the block totals exclusively, in place, with the seed; then add them as offsets.
  cl_ulong next_off = temp_off + align16(blocks * e);
  st = seed_level(a, algo, a->temp, sums_off, a->temp, sums_off, blocks, 1, next_off);
  if (st != CLSCAN_SUCCESS) return st;
  cl_uint block = (cl_uint)b;
  const karg add_args[] = {ARG(out), ARG(out_off), ARG(m), ARG(a->temp), ARG(sums_off),
                           ARG(block)};
  st = set_args(add, add_args, 6);
  if (st == CLSCAN_SUCCESS) st = chain_kernel(a->c, add, blocks, wg);
  return st;
}

/* Reduce-then-scan: group totals, their exclusive scan, then the seeded scan of each run. */
static clscan_status reduce_then_scan(scan_args *a, const clscan__request *r) {
  const clscan_plan *plan = a->plan;
  size_t e = plan->elem_size, wg = plan->tuning.tile_wg;
  cl_ulong n = r->n, in_off = r->in_off, out_off = r->out_off;
  cl_ulong groups = rts_groups(plan, r->n);
  cl_ulong tile = gpu_tile_elems(plan);
  cl_ulong per_group = div_up(div_up(r->n, tile), groups);
  cl_ulong partials_off = 0, offsets_off = align16(groups * e) / e;
  cl_ulong spine_per_group = div_up(groups, tile);
  cl_int yes = 1, no = 0, excl = plan->desc.exclusive != 0, spine_excl = 1;
  cl_kernel reduce = a->ak->k[0], scan = a->ak->k[1];

  const karg reduce_args[] = {ARG(r->in), ARG(in_off), ARG(n), ARG(a->temp), ARG(partials_off),
                              ARG(per_group)};
  clscan_status st = set_args(reduce, reduce_args, 6);
  if (st == CLSCAN_SUCCESS) st = chain_kernel(a->c, reduce, groups, wg);
  if (st != CLSCAN_SUCCESS) return st;

  const karg spine_args[] = {ARG(a->temp), ARG(partials_off), ARG(a->temp), ARG(offsets_off),
                             ARG(groups), ARG(a->temp), ARG(partials_off), ARG(no),
                             {e, a->seed}, ARG(spine_per_group), ARG(spine_excl)};
  st = set_args(scan, spine_args, 11);
  if (st == CLSCAN_SUCCESS) st = chain_kernel(a->c, scan, 1, wg);
  if (st != CLSCAN_SUCCESS) return st;

  const karg kargs[] = {ARG(r->in), ARG(in_off), ARG(r->out), ARG(out_off), ARG(n),
                            ARG(a->temp), ARG(offsets_off), ARG(yes), {e, a->seed},
                            ARG(per_group), ARG(excl)};
  st = set_args(scan, kargs, 11);
  if (st == CLSCAN_SUCCESS) st = chain_kernel(a->c, scan, groups, wg);
  return st;
}

/* Single pass: one launch of one work-group per tile. */
static clscan_status single_pass(scan_args *a, const clscan__request *r) {
  const clscan_plan *plan = a->plan;
  size_t e = plan->elem_size;
  size_t local = plan->tuning.single_pass_cpu ? 1 : plan->tuning.tile_wg;
  size_t tiles = div_up(r->n, tile_elems(plan));
  cl_ulong n = r->n, in_off = r->in_off, out_off = r->out_off;
  cl_int excl = plan->desc.exclusive != 0, in_place = a->in_place;
  const karg args[] = {ARG(r->in),          ARG(in_off),  ARG(r->out), ARG(out_off),
                       ARG(n),              ARG(a->temp), ARG(a->ticket_base),
                       ARG(a->epoch),       {e, a->seed}, ARG(excl),   ARG(in_place)};
  clscan_status st = set_args(a->ak->k[0], args, 11);
  if (st == CLSCAN_SUCCESS) st = chain_kernel(a->c, a->ak->k[0], tiles, local);
  return st;
}

/* ============================================================================================== */
/* Entry                                                                                          */
/* ============================================================================================== */

/* Tickets a launch takes (single pass only). */
static cl_uint launch_tickets(const clscan_plan *plan, clscan_algorithm algo, size_t n) {
  return algo == CLSCAN_ALGO_SINGLE_PASS ? (cl_uint)div_up(n, tile_elems(plan)) : 0;
}

/* Enqueues the chosen algorithm's commands (the plan lock is held). */
static clscan_status run_algorithm(scan_args *a, clscan_algorithm algo,
                                   const clscan__request *r) {
  switch (algo) {
    case CLSCAN_ALGO_BLELLOCH:
    case CLSCAN_ALGO_HILLIS_STEELE:
      return seed_level(a, algo, r->in, r->in_off, r->out, r->out_off, r->n,
                        a->plan->desc.exclusive != 0, 0);
    case CLSCAN_ALGO_REDUCE_THEN_SCAN:
      return reduce_then_scan(a, r);
    case CLSCAN_ALGO_SINGLE_PASS:
      return single_pass(a, r);
    default:
      return clscan__fail(CLSCAN_INTERNAL_ERROR, "unresolved algorithm");
  }
}

/* Builds the first command's wait list: the caller's events plus the temp slot's last user. */
static clscan_status initial_waits(chain *c, const clscan__request *r, cl_event slot_wait) {
  c->num_wait = r->num_wait + (slot_wait ? 1 : 0);
  if (!c->num_wait) return CLSCAN_SUCCESS;
  c->wait = malloc(c->num_wait * sizeof *c->wait);
  if (!c->wait) return clscan__fail(CLSCAN_OUT_OF_HOST_MEMORY, "wait list");
  if (r->num_wait) memcpy(c->wait, r->wait_list, r->num_wait * sizeof *c->wait);
  if (slot_wait) c->wait[r->num_wait] = slot_wait;
  return CLSCAN_SUCCESS;
}

/* Hands the chain's events to the caller (or releases them). */
static void finish_chain(chain *c, const clscan__request *r) {
  if (r->first) {
    *r->first = c->first;
  } else if (c->first) {
    clReleaseEvent(c->first);
  }
  if (r->done) {
    *r->done = c->last;
  } else {
    clReleaseEvent(c->last);
  }
}

clscan_status clscan__dispatch(clscan_plan *plan, const clscan__request *r) {
  clscan_status st = CLSCAN_SUCCESS;
  chain c = {.queue = r->queue};
  clscan__temp_lease lease = {.slot = -1};
  scan_args a = {.plan = plan, .c = &c, .in_place = r->in_place};

  // Everything that can fail without side effects happens first: kernels, temp storage.
  clscan_algorithm algo = clscan__plan_resolve(plan, r->n);
  size_t vec = 16 / plan->elem_size;
  int vector_io = r->in_off % vec == 0 && r->out_off % vec == 0;
  if (r->n > 0) {
    CLSCAN_TRY(clscan__plan_prepare(plan, algo, vector_io, &a.ak));
    size_t bytes = clscan__temp_bytes(plan, algo, r->n);
    CLSCAN_TRY(clscan__temp_acquire(plan->ctx, r->queue, bytes ? bytes : 16,
                                    launch_tickets(plan, algo, r->n), &lease));
    a.temp = lease.buf;
    a.epoch = lease.epoch;
    a.ticket_base = lease.ticket_base;
  }
  CLSCAN_TRY(initial_waits(&c, r, lease.wait));
  clscan__identity(plan->desc.type, plan->desc.op, a.identity);
  const void *init = r->init_override ? r->init : plan->desc.init;
  memcpy(a.seed, a.identity, sizeof a.seed);
  if (init) memcpy(a.seed, init, plan->elem_size);

  // Enqueue: an empty scan is a marker; a fresh temporary buffer is zeroed first.
  pthread_mutex_lock(&plan->lock);
  if (r->n == 0) {
    st = chain_marker(&c);
  } else {
    if (lease.needs_zero) st = chain_zero(&c, lease.buf, lease.size);
    if (st == CLSCAN_SUCCESS) st = run_algorithm(&a, algo, r);
  }
  pthread_mutex_unlock(&plan->lock);
  if (st != CLSCAN_SUCCESS) goto fail;

  clscan__temp_release(plan->ctx, &lease, c.last, 0);
  finish_chain(&c, r);
  free(c.wait);
  return CLSCAN_SUCCESS;

fail:
  // Commands already enqueued are waited for; the temporary buffer's state is then unknown.
  if (c.last) clWaitForEvents(1, &c.last);
  clscan__temp_release(plan->ctx, &lease, NULL, c.last != NULL);
  if (c.first) clReleaseEvent(c.first);
  if (c.last) clReleaseEvent(c.last);
  free(c.wait);
  return st;
}
