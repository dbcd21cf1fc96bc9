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
  if (c->last)
    clReleaseEvent(c->last);
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
  cl_int err =
      CLSCAN_FAULT(CL_OUT_OF_RESOURCES,
                   clEnqueueNDRangeKernel(c->queue, k, 1, NULL, &global, &local, nw, list, &ev));
  if (err != CL_SUCCESS)
    return clscan__cl_fail(err, "clEnqueueNDRangeKernel");
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
  cl_int err =
      CLSCAN_FAULT(CL_OUT_OF_RESOURCES,
                   clEnqueueFillBuffer(c->queue, buf, &zero, sizeof zero, 0, bytes, nw, list, &ev));
  if (err != CL_SUCCESS)
    return clscan__cl_fail(err, "clEnqueueFillBuffer");
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
  if (err != CL_SUCCESS)
    return clscan__cl_fail(err, "clEnqueueMarkerWithWaitList");
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
    if (err != CL_SUCCESS)
      return clscan__cl_fail(err, "clSetKernelArg");
  }
  return CLSCAN_SUCCESS;
}

#define ARG(x) \
  { sizeof(x), &(x) }

/* ============================================================================================== */
/* Sizes                                                                                          */
/* ============================================================================================== */

static size_t div_up(size_t a, size_t b) {
  return (a + b - 1) / b;
}

/* Rounds a byte offset in the temporary buffer up to a multiple of 16 and of the state size, so
 * that arrays of states start aligned and at whole-state offsets. */
static size_t temp_align(const clscan_plan *plan, size_t bytes) {
  size_t s = plan->state_size, a = 16;
  while (a % s)
    a += 16;
  return div_up(bytes, a) * a;
}

/* Elements per block of the seed algorithms. */
static size_t seed_block(const clscan_plan *plan, clscan_algorithm algo) {
  return algo == CLSCAN_ALGO_BLELLOCH ? 2 * (size_t)plan->tuning.seed_wg : plan->tuning.seed_wg;
}

/* Elements per tile of the GPU-shaped tile kernels (tile.cl). */
static size_t gpu_tile_elems(const clscan_plan *plan) {
  return (size_t)plan->tuning.tile_wg * plan->tuning.tile_vpt * plan->vec;
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
  size_t s = plan->state_size;
  switch (algo) {
    case CLSCAN_ALGO_BLELLOCH:
    case CLSCAN_ALGO_HILLIS_STEELE: {
      // One array of block totals per level.
      size_t b = seed_block(plan, algo), bytes = 0;
      for (size_t m = n; m > b; m = div_up(m, b))
        bytes += temp_align(plan, div_up(m, b) * s);
      return bytes;
    }
    case CLSCAN_ALGO_REDUCE_THEN_SCAN:
      return 2 * temp_align(plan, rts_groups(plan, n) * s);
    case CLSCAN_ALGO_SINGLE_PASS:
      // The ticket counter, then one 8-byte status word per 4 bytes of state, per tile, then one
      // 8-byte in-place gate per tile.
      return STATUS_OFFSET + div_up(n, tile_elems(plan)) * 8 * ((s + 3) / 4 + 1);
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
  cl_mem aux; /* flags or keys; any valid buffer when unsegmented */
  cl_ulong aux_off;
  cl_ulong epoch;
  cl_uint ticket_base;
  int in_place;
  const void *seed;     /* the initial value, or the identity (out_size bytes) */
  const void *identity; /* the operator's identity (out_size bytes) */
} scan_args;

/* Scans the m block totals of an upper level in place (exclusively), and the levels above. */
static clscan_status seed_sums(scan_args *a, clscan_algorithm algo, cl_ulong off, cl_ulong m,
                               cl_ulong temp_off) {
  const clscan_plan *plan = a->plan;
  size_t b = seed_block(plan, algo), s = plan->state_size, v = plan->out_size;
  size_t wg = plan->tuning.seed_wg, blocks = div_up(m, b);
  cl_int has_sums = blocks > 1;
  cl_ulong sums_off = temp_off / s;
  cl_kernel scan = a->ak->k[2], add = a->ak->k[3];
  const karg kargs[] = {ARG(a->temp),  ARG(off),      ARG(a->temp),
                        ARG(off),      ARG(m),        ARG(a->temp),
                        ARG(sums_off), ARG(has_sums), {v, has_sums ? a->identity : a->seed}};
  clscan_status st = set_args(scan, kargs, 9);
  if (st == CLSCAN_SUCCESS)
    st = chain_kernel(a->c, scan, blocks, wg);
  if (st != CLSCAN_SUCCESS || !has_sums)
    return st;

  st = seed_sums(a, algo, sums_off, blocks, temp_off + temp_align(plan, blocks * s));
  if (st != CLSCAN_SUCCESS)
    return st;
  cl_uint block = (cl_uint)b;
  const karg add_args[] = {ARG(a->temp), ARG(off), ARG(m), ARG(a->temp), ARG(sums_off), ARG(block)};
  st = set_args(add, add_args, 6);
  if (st == CLSCAN_SUCCESS)
    st = chain_kernel(a->c, add, blocks, wg);
  return st;
}

/* The seed algorithms: scan level 0's blocks, scan their totals (recursively), add offsets. */
static clscan_status seed_scan(scan_args *a, clscan_algorithm algo, const clscan__request *r) {
  const clscan_plan *plan = a->plan;
  size_t b = seed_block(plan, algo), s = plan->state_size, v = plan->out_size;
  size_t wg = plan->tuning.seed_wg, blocks = div_up(r->n, b);
  cl_ulong in_off = r->in_off, out_off = r->out_off, n = r->n;
  cl_int has_sums = blocks > 1, excl = plan->desc.exclusive != 0;
  cl_ulong sums_off = 0;
  cl_mem sums = has_sums ? a->temp : r->in; /* any valid buffer when unused */
  cl_kernel scan = a->ak->k[0], add = a->ak->k[1];

  // Blocks are scanned with the seed only when one block covers n.
  const karg kargs[] = {ARG(r->in),      ARG(in_off), ARG(a->aux),
                        ARG(a->aux_off), ARG(r->out), ARG(out_off),
                        ARG(n),          ARG(sums),   ARG(sums_off),
                        ARG(has_sums),   ARG(excl),   {v, has_sums ? a->identity : a->seed}};
  clscan_status st = set_args(scan, kargs, 12);
  if (st == CLSCAN_SUCCESS)
    st = chain_kernel(a->c, scan, blocks, wg);
  if (st != CLSCAN_SUCCESS || !has_sums)
    return st;

  // Scan the block totals exclusively, in place, with the seed; then add them as offsets.
  st = seed_sums(a, algo, sums_off, blocks, temp_align(plan, blocks * s));
  if (st != CLSCAN_SUCCESS)
    return st;
  cl_uint block = (cl_uint)b;
  const karg add_args[] = {ARG(r->out),  ARG(out_off),  ARG(a->aux), ARG(a->aux_off), ARG(n),
                           ARG(a->temp), ARG(sums_off), ARG(block),  {v, a->seed}};
  st = set_args(add, add_args, 9);
  if (st == CLSCAN_SUCCESS)
    st = chain_kernel(a->c, add, blocks, wg);
  return st;
}

/* Reduce-then-scan: group totals, their exclusive scan, then the seeded scan of each run. */
static clscan_status reduce_then_scan(scan_args *a, const clscan__request *r) {
  const clscan_plan *plan = a->plan;
  size_t s = plan->state_size, v = plan->out_size, wg = plan->tuning.tile_wg;
  cl_ulong n = r->n, in_off = r->in_off, out_off = r->out_off;
  cl_ulong groups = rts_groups(plan, r->n);
  cl_ulong tile = gpu_tile_elems(plan);
  cl_ulong per_group = div_up(div_up(r->n, tile), groups);
  cl_ulong partials_off = 0, offsets_off = temp_align(plan, groups * s) / s;
  cl_int excl = plan->desc.exclusive != 0;
  cl_kernel reduce = a->ak->k[0], scan = a->ak->k[1], spine = a->ak->k[2];

  const karg reduce_args[] = {ARG(r->in), ARG(in_off),  ARG(a->aux),       ARG(a->aux_off),
                              ARG(n),     ARG(a->temp), ARG(partials_off), ARG(per_group)};
  clscan_status st = set_args(reduce, reduce_args, 8);
  if (st == CLSCAN_SUCCESS)
    st = chain_kernel(a->c, reduce, groups, wg);
  if (st != CLSCAN_SUCCESS)
    return st;

  const karg spine_args[] = {ARG(a->temp),     ARG(partials_off), ARG(a->temp),
                             ARG(offsets_off), ARG(groups),       {v, a->seed}};
  st = set_args(spine, spine_args, 6);
  if (st == CLSCAN_SUCCESS)
    st = chain_kernel(a->c, spine, 1, wg);
  if (st != CLSCAN_SUCCESS)
    return st;

  const karg kargs[] = {ARG(r->in),       ARG(in_off),    ARG(a->aux), ARG(a->aux_off),
                        ARG(r->out),      ARG(out_off),   ARG(n),      ARG(a->temp),
                        ARG(offsets_off), ARG(per_group), ARG(excl),   {v, a->seed}};
  st = set_args(scan, kargs, 12);
  if (st == CLSCAN_SUCCESS)
    st = chain_kernel(a->c, scan, groups, wg);
  return st;
}

/* Single pass: one launch of one work-group per tile (in place, then a finishing launch). */
static clscan_status single_pass(scan_args *a, const clscan__request *r) {
  const clscan_plan *plan = a->plan;
  size_t v = plan->out_size;
  size_t local = plan->tuning.single_pass_cpu ? 1 : plan->tuning.tile_wg;
  size_t tiles = div_up(r->n, tile_elems(plan));
  cl_ulong n = r->n, in_off = r->in_off, out_off = r->out_off;
  cl_int excl = plan->desc.exclusive != 0, in_place = a->in_place;
  const karg args[] = {ARG(r->in),   ARG(in_off), ARG(a->aux),  ARG(a->aux_off),     ARG(r->out),
                       ARG(out_off), ARG(n),      ARG(a->temp), ARG(a->ticket_base), ARG(a->epoch),
                       {v, a->seed}, ARG(excl),   ARG(in_place)};
  clscan_status st = set_args(a->ak->k[0], args, 13);
  if (st == CLSCAN_SUCCESS)
    st = chain_kernel(a->c, a->ak->k[0], tiles, local);
  // In place, a finishing launch (in_place = 2, one work-item per tile) writes the tiles that a
  // fallback read, which their owners leave unwritten (cl/single_pass.cl, "In place").
  if (st == CLSCAN_SUCCESS && in_place) {
    in_place = 2;
    st = set_args(a->ak->k[0], args, 13);
    if (st == CLSCAN_SUCCESS)
      st = chain_kernel(a->c, a->ak->k[0], div_up(tiles, local), local);
  }
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
static clscan_status run_algorithm(scan_args *a, clscan_algorithm algo, const clscan__request *r) {
  switch (algo) {
    case CLSCAN_ALGO_BLELLOCH:
    case CLSCAN_ALGO_HILLIS_STEELE:
      return seed_scan(a, algo, r);
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
  if (!c->num_wait)
    return CLSCAN_SUCCESS;
  c->wait = malloc(c->num_wait * sizeof *c->wait);
  if (!c->wait)
    return clscan__fail(CLSCAN_OUT_OF_HOST_MEMORY, "wait list");
  if (r->num_wait)
    memcpy(c->wait, r->wait_list, r->num_wait * sizeof *c->wait);
  if (slot_wait)
    c->wait[r->num_wait] = slot_wait;
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
  scan_args a = {.plan = plan,
                 .c = &c,
                 .in_place = r->in_place,
                 .aux = r->aux ? r->aux : r->in,
                 .aux_off = r->aux ? r->aux_off : 0};

  // Everything that can fail without side effects happens first: kernels, temp storage.
  clscan_algorithm algo = clscan__plan_resolve(plan, r->n);
  // Vector loads and stores need every offset aligned to a vector, the flags' or keys' included.
  int vector_io = r->in_off % plan->vec == 0 && r->out_off % plan->vec == 0 &&
                  (!r->aux || r->aux_off % plan->vec == 0);
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
  a.identity = plan->identity;
  const void *init = r->init_override ? r->init : plan->desc.init;
  a.seed = init ? init : plan->identity;

  // Enqueue: an empty scan is a marker; a fresh temporary buffer is zeroed first.
  pthread_mutex_lock(&plan->lock);
  if (r->n == 0) {
    st = chain_marker(&c);
  } else {
    if (lease.needs_zero)
      st = chain_zero(&c, lease.buf, lease.size);
    if (st == CLSCAN_SUCCESS)
      st = run_algorithm(&a, algo, r);
  }
  pthread_mutex_unlock(&plan->lock);
  if (st != CLSCAN_SUCCESS)
    goto fail;

  clscan__temp_release(plan->ctx, &lease, c.last, 0);
  finish_chain(&c, r);
  free(c.wait);
  return CLSCAN_SUCCESS;

fail:
  // Commands already enqueued are waited for; the temporary buffer's state is then unknown.
  if (c.last)
    clWaitForEvents(1, &c.last);
  clscan__temp_release(plan->ctx, &lease, NULL, c.last != NULL);
  if (c.first)
    clReleaseEvent(c.first);
  if (c.last)
    clReleaseEvent(c.last);
  free(c.wait);
  return st;
}
