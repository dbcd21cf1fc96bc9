/*
 * clscan: dispatch, the same for every algorithm. Resolve the algorithm, make sure its kernels
 * exist, lease temporary memory, then enqueue: the algorithm appends its commands to a chain
 * (chain.c) whose first command waits for the caller's events and the slot's previous user.
 * Everything that can fail without side effects (kernels, temporary storage, the wait list)
 * happens before the first enqueue, so that a failure leaves the output untouched.
 */
#include "internal.h"

/* The request's aux buffer, or any valid buffer when it has none. */
static void aux_of(const clscan__request *r, clscan__launch *l) {
  const clscan__buffer *aux = &r->buf[CLSCAN__BUF_AUX];
  l->aux = aux->mem ? aux->mem : r->buf[CLSCAN__BUF_IN].mem;
  l->aux_off = aux->mem ? aux->off : 0;
}

/* Vector loads and stores need every offset aligned to a vector, the flags' or keys' included. */
static int aligned(const clscan_plan *plan, const clscan__request *r) {
  const clscan__buffer *b = r->buf;
  return b[CLSCAN__BUF_IN].off % plan->vec == 0 && b[CLSCAN__BUF_OUT].off % plan->vec == 0 &&
         (!b[CLSCAN__BUF_AUX].mem || b[CLSCAN__BUF_AUX].off % plan->vec == 0);
}

/* The device total's launch of a phase (0: save the last element, 1: write the total), with the
 * total's own kernels. */
static clscan_status enqueue_total(const clscan__launch *l, const clscan__algo_kernels *tk,
                                   int phase) {
  const clscan__algorithm *total = clscan__algorithm_find(CLSCAN__FAMILY_TOTAL, 0);
  clscan__launch t = *l;
  t.kernels = tk;
  t.total_phase = phase;
  return total->enqueue(&t);
}

/* Enqueues the commands: an empty request is a marker (unless the algorithm runs for n == 0 too,
 * as a reduction does, or a total is written); a fresh temporary buffer is zeroed first. With a
 * device total, an exclusive scan first saves its last element, and the total follows the scan. */
static clscan_status enqueue_locked(const clscan__algorithm *algo, const clscan__launch *l,
                                    const clscan__algo_kernels *tk,
                                    const clscan__temp_lease *lease) {
  const clscan__request *r = l->req;
  if (r->n == 0 && !algo->enqueue_empty && !tk)
    return clscan__chain_marker(l->chain);
  if (lease->needs_zero)
    CLSCAN_RETURN_IF_ERROR(clscan__chain_zero(l->chain, lease->buf, lease->size));
  if (tk && r->n > 0 && l->plan->desc.exclusive)
    CLSCAN_RETURN_IF_ERROR(enqueue_total(l, tk, 0));
  if (r->n > 0 || algo->enqueue_empty)
    CLSCAN_RETURN_IF_ERROR(algo->enqueue(l));
  return tk ? enqueue_total(l, tk, 1) : CLSCAN_SUCCESS;
}

/* Enqueues under the plan's lock, which orders the kernels' arguments with their enqueue. */
static clscan_status enqueue(clscan_plan *plan, const clscan__algorithm *algo,
                             const clscan__launch *l, const clscan__algo_kernels *tk,
                             const clscan__temp_lease *lease) {
  pthread_mutex_lock(&plan->lock);
  clscan_status st = enqueue_locked(algo, l, tk, lease);
  pthread_mutex_unlock(&plan->lock);
  return st;
}

clscan_status clscan__dispatch(clscan_plan *plan, const clscan__request *r) {
  return clscan__dispatch_algorithm(plan, CLSCAN__FAMILY_SCAN,
                                    (int)clscan__plan_resolve(plan, r->n), r);
}

clscan_status clscan__dispatch_algorithm(clscan_plan *plan, clscan__family family, int id,
                                         const clscan__request *r) {
  clscan_status st = CLSCAN_SUCCESS;
  clscan__chain c = {0};
  clscan__temp_lease lease = {.slot = -1};
  clscan__launch l = {
      .plan = plan, .chain = &c, .req = r, .identity = plan->identity, .extra = r->extra};
  clscan__algo_kernels *tk = NULL;
  aux_of(r, &l);
  const void *init = r->init_override ? r->init : plan->desc.init;
  l.seed = init ? init : plan->identity;

  const clscan__algorithm *algo = clscan__algorithm_find(family, id);
  if (!algo)
    return clscan__fail(CLSCAN_INTERNAL_ERROR, "unresolved algorithm");
  if (r->total.mem) {
    const clscan__algorithm *total = clscan__algorithm_find(CLSCAN__FAMILY_TOTAL, 0);
    CLSCAN_RETURN_IF_ERROR(clscan__plan_prepare(plan, total, 0, &tk));
  }
  if (r->n > 0 || algo->enqueue_empty || tk) {
    clscan__algo_kernels *ak = NULL;
    if (r->n > 0 || algo->enqueue_empty)
      CLSCAN_RETURN_IF_ERROR(clscan__plan_prepare(plan, algo, aligned(plan, r), &ak));
    l.kernels = ak;
    size_t bytes = r->n > 0 || algo->enqueue_empty ? algo->temp_bytes(plan, r->n) : 0;
    if (tk) {
      // The saved last element follows the scan's own storage.
      bytes = clscan__temp_align(plan, bytes);
      l.save_off = bytes / plan->out_size;
      bytes += clscan__temp_align(plan, plan->out_size);
    }
    cl_uint tickets = algo->tickets ? algo->tickets(plan, r->n) : 0;
    CLSCAN_RETURN_IF_ERROR(clscan__temp_acquire_words(plan->ctx, r->queue, bytes ? bytes : 16,
                                                      tickets, plan->status32 ? 4 : 8, &lease));
    l.temp = lease.buf;
    l.epoch = lease.epoch;
    l.ticket_base = lease.ticket_base;
  }
  CLSCAN_TRY(clscan__chain_start(&c, r->queue, r->num_wait, r->wait_list, lease.wait));
  c.global_offset = r->seg_param;
  CLSCAN_TRY(enqueue(plan, algo, &l, tk, &lease));
  clscan__temp_release(plan->ctx, &lease, c.last, 0);
  clscan__chain_finish(&c, r->first, r->done);
  return CLSCAN_SUCCESS;

fail:
  // Commands already enqueued are waited for; the temporary buffer's state is then unknown.
  clscan__temp_release(plan->ctx, &lease, NULL, clscan__chain_abort(&c));
  return st;
}
