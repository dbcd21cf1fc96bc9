/*
 * clscan: temporary device buffers, reused across scans.
 *
 * The context keeps up to CLSCAN__MAX_TEMP_SLOTS buffers. A scan holds one slot from before its
 * first enqueue until after its last; its commands wait on the previous user's completion event,
 * so scans on different queues never share a buffer at the same time, and on one in-order queue
 * the wait costs nothing. A slot last used on the same queue is preferred, then an idle one,
 * then a new one; when all are taken the caller waits for one to be returned. The slots have
 * their own lock (never held during a program build).
 */
#include <string.h>

#include "internal.h"

/* Epochs live in 14 bits of the single-pass status words (the 32-bit words' epoch bits; the
 * 64-bit words have 29, cl/status.cl): the slot is zeroed once every 16383 launches. */
#define EPOCH_LIMIT ((cl_ulong)1 << 14)

/* Returns 1 if a slot's last use has completed (or there was none). */
static int slot_idle(const clscan__temp_slot *s) {
  cl_int status = CL_COMPLETE;
  if (!s->last)
    return 1;
  if (clGetEventInfo(s->last, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, NULL) !=
      CL_SUCCESS)
    return 0;
  return status <= CL_COMPLETE; /* CL_COMPLETE is 0; errors are negative */
}

/* Picks a free slot: same queue first, then an idle allocated one, then an empty one. */
static int pick_slot(clscan__temp_pool *pool, cl_command_queue queue) {
  int idle = -1, empty = -1, any = -1;
  for (int i = 0; i < CLSCAN__MAX_TEMP_SLOTS; i++) {
    clscan__temp_slot *s = &pool->slots[i];
    if (s->busy)
      continue;
    if (s->buf && s->last_queue == queue)
      return i;
    if (s->buf && idle < 0 && slot_idle(s))
      idle = i;
    if (!s->buf && empty < 0)
      empty = i;
    if (s->buf && any < 0)
      any = i;
  }
  if (idle >= 0)
    return idle;
  if (empty >= 0)
    return empty;
  return any;
}

/* Makes sure a slot's buffer holds `bytes` (the caller holds the pool's lock). */
static clscan_status ensure_size(const clscan_context *ctx, clscan__temp_slot *s, size_t bytes) {
  if (s->buf && s->size >= bytes)
    return CLSCAN_SUCCESS;
  // Grow geometrically; commands still using the old buffer keep it alive until they finish.
  size_t size = s->size * 2 > bytes ? s->size * 2 : bytes;
  if (size < 4096)
    size = 4096;
  if (size > ctx->info.max_alloc)
    size = bytes;
  cl_int err;
  cl_mem buf =
      CLSCAN_FAULT_CREATE(err, CL_MEM_OBJECT_ALLOCATION_FAILURE,
                          clCreateBuffer(ctx->cl_ctx, CL_MEM_READ_WRITE, size, NULL, &err));
  if (err != CL_SUCCESS)
    return clscan__cl_fail(err, "clCreateBuffer(temporary)");
  if (s->buf)
    clReleaseMemObject(s->buf);
  s->buf = buf;
  s->size = size;
  s->single_pass_ready = 0;
  return CLSCAN_SUCCESS;
}

clscan_status clscan__temp_acquire(clscan_context *ctx, cl_command_queue queue, size_t bytes,
                                   cl_uint tickets, clscan__temp_lease *lease) {
  return clscan__temp_acquire_words(ctx, queue, bytes, tickets, 8, lease);
}

clscan_status clscan__temp_acquire_words(clscan_context *ctx, cl_command_queue queue, size_t bytes,
                                         cl_uint tickets, unsigned status_bytes,
                                         clscan__temp_lease *lease) {
  clscan_status st;
  clscan__temp_pool *pool = &ctx->temp;
  memset(lease, 0, sizeof *lease);
  lease->slot = -1;
  pthread_mutex_lock(&pool->lock);

  // Wait until some slot is free; slots are held only while a scan is being enqueued.
  int i;
  while ((i = pick_slot(pool, queue)) < 0)
    pthread_cond_wait(&pool->freed, &pool->lock);
  clscan__temp_slot *s = &pool->slots[i];
  st = ensure_size(ctx, s, bytes);
  if (st != CLSCAN_SUCCESS) {
    pthread_mutex_unlock(&pool->lock);
    return st;
  }

  // Remember the state, so that a scan that enqueues nothing can put it back.
  lease->saved_epoch = s->epoch;
  lease->saved_tickets = s->tickets;
  lease->saved_ready = s->single_pass_ready;
  lease->saved_status_bytes = s->status_bytes;
  if (tickets) {
    // Single pass: status words must hold zeros or older epochs of words of the same size. After
    // another algorithm or another word size used the buffer, or when the epoch would overflow
    // its bits, the buffer is zeroed first.
    if (!s->single_pass_ready || s->status_bytes != status_bytes || s->epoch + 1 >= EPOCH_LIMIT) {
      s->epoch = 0;
      s->tickets = 0;
      lease->needs_zero = 1;
    }
    s->epoch++;
    lease->epoch = s->epoch;
    lease->ticket_base = s->tickets;
    s->tickets += tickets;
  }
  s->busy = 1;
  lease->slot = i;
  lease->queue = queue;
  lease->buf = s->buf;
  lease->size = s->size;
  lease->wait = s->last;
  lease->single_pass = tickets != 0;
  lease->status_bytes = status_bytes;
  CLSCAN_TEST_ON_SLOT(i, lease->needs_zero);
  pthread_mutex_unlock(&pool->lock);
  return CLSCAN_SUCCESS;
}

void clscan__temp_release(clscan_context *ctx, clscan__temp_lease *lease, cl_event done,
                          int partial) {
  if (lease->slot < 0)
    return;
  clscan__temp_pool *pool = &ctx->temp;
  pthread_mutex_lock(&pool->lock);
  clscan__temp_slot *s = &pool->slots[lease->slot];
  s->busy = 0;
  if (done) {
    // The scan was enqueued: it is now the slot's last use, on the lease's queue.
    clRetainEvent(done);
    if (s->last)
      clReleaseEvent(s->last);
    s->last = done;
    s->last_queue = lease->queue;
    s->single_pass_ready = lease->single_pass;
    s->status_bytes = lease->single_pass ? lease->status_bytes : 0;
  } else if (partial) {
    // Some commands ran and the caller waited for them: the buffer's state is unknown.
    s->last_queue = lease->queue;
    s->single_pass_ready = 0;
  } else {
    // Nothing was enqueued: the slot's state is as before.
    s->epoch = lease->saved_epoch;
    s->tickets = lease->saved_tickets;
    s->single_pass_ready = lease->saved_ready;
    s->status_bytes = lease->saved_status_bytes;
  }
  lease->slot = -1;
  pthread_cond_signal(&pool->freed);
  pthread_mutex_unlock(&pool->lock);
}

size_t clscan__status_state_bytes(size_t state_bytes, int status32) {
  const size_t pieces = (state_bytes + 3) / 4; /* 32-bit pieces of the state */
  return status32 ? pieces * 2 * 4 : pieces * 8;
}

clscan_status clscan__temp_init(clscan__temp_pool *pool) {
  memset(pool, 0, sizeof *pool);
  if (pthread_mutex_init(&pool->lock, NULL) != 0)
    return clscan__fail(CLSCAN_OUT_OF_HOST_MEMORY, "temporary buffer lock");
  if (pthread_cond_init(&pool->freed, NULL) != 0) {
    pthread_mutex_destroy(&pool->lock);
    return clscan__fail(CLSCAN_OUT_OF_HOST_MEMORY, "temporary buffer condition");
  }
  return CLSCAN_SUCCESS;
}

void clscan__temp_clear(clscan__temp_pool *pool) {
  for (int i = 0; i < CLSCAN__MAX_TEMP_SLOTS; i++) {
    clscan__temp_slot *s = &pool->slots[i];
    if (s->last)
      clReleaseEvent(s->last);
    if (s->buf)
      clReleaseMemObject(s->buf);
  }
  pthread_cond_destroy(&pool->freed);
  pthread_mutex_destroy(&pool->lock);
  memset(pool, 0, sizeof *pool);
}
