/*
 * clscan: the context's one-shot plans, for clscan_scan(), clscan_scan_host() and the segmented
 * one-shot calls. A plan is found by the descriptor's kernels (types, operator, algorithm,
 * sources, segments); the initial value is not part of the key, since one-shot requests pass it,
 * so the cache stays bounded. The cache has its own lock, held only to search and insert: plans
 * are created outside it, and a racing twin is discarded.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

clscan_status clscan__plan_cache_init(clscan__plan_cache *cache) {
  memset(cache, 0, sizeof *cache);
  if (pthread_mutex_init(&cache->lock, NULL) != 0)
    return clscan__fail(CLSCAN_OUT_OF_HOST_MEMORY, "plan cache lock");
  return CLSCAN_SUCCESS;
}

void clscan__plan_cache_clear(clscan__plan_cache *cache) {
  for (size_t i = 0; i < cache->count; i++)
    clscan__plan_release(cache->plans[i]);
  free(cache->plans);
  pthread_mutex_destroy(&cache->lock);
  memset(cache, 0, sizeof *cache);
}

/* Compares two optional strings. */
static int same_string(const char *a, const char *b) {
  return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

/* Returns 1 if a cached plan runs the same kernels as desc. */
static int same_desc(const clscan_plan *p, const clscan_scan_desc *d) {
  const clscan_scan_desc *q = &p->desc;
  if (q->type != d->type || q->op != d->op || !q->exclusive != !d->exclusive ||
      q->algorithm != d->algorithm || q->out_type != d->out_type || q->segments != d->segments ||
      q->type_size != d->type_size)
    return 0;
  if (!clscan__same_keys(q, d))
    return 0;
  if (!same_string(q->op_source, d->op_source) || !same_string(q->type_source, d->type_source) ||
      !same_string(q->type_name, d->type_name) || !same_string(q->map_source, d->map_source))
    return 0;
  return !q->identity || memcmp(q->identity, d->identity, p->out_size) == 0;
}

/* Returns the cached plan for desc, or NULL (the caller holds the lock). */
static clscan_plan *find(const clscan__plan_cache *cache, const clscan_scan_desc *desc) {
  for (size_t i = 0; i < cache->count; i++) {
    if (same_desc(cache->plans[i], desc))
      return cache->plans[i];
  }
  return NULL;
}

/* Appends a plan (the caller holds the lock). */
static clscan_status insert(clscan__plan_cache *cache, clscan_plan *plan) {
  if (cache->count == cache->cap) {
    size_t cap = cache->cap ? 2 * cache->cap : 8;
    clscan_plan **grown = realloc(cache->plans, cap * sizeof *grown);
    if (!grown)
      return clscan__fail(CLSCAN_OUT_OF_HOST_MEMORY, "plan cache");
    cache->plans = grown;
    cache->cap = cap;
  }
  cache->plans[cache->count++] = plan;
  return CLSCAN_SUCCESS;
}

clscan_status clscan__plan_cache_get(clscan_context *ctx, const clscan_scan_desc *desc,
                                     clscan_plan **out) {
  clscan__plan_cache *cache = &ctx->plan_cache;
  pthread_mutex_lock(&cache->lock);
  *out = find(cache, desc);
  pthread_mutex_unlock(&cache->lock);
  if (*out)
    return CLSCAN_SUCCESS;

  clscan_plan *plan = NULL;
  CLSCAN_RETURN_IF_ERROR(clscan__plan_create(ctx, desc, NULL, &plan));
  pthread_mutex_lock(&cache->lock);
  clscan_plan *twin = find(cache, desc);
  clscan_status st = twin ? CLSCAN_SUCCESS : insert(cache, plan);
  pthread_mutex_unlock(&cache->lock);
  if (twin || st != CLSCAN_SUCCESS)
    clscan__plan_release(plan);
  *out = st == CLSCAN_SUCCESS ? (twin ? twin : plan) : NULL;
  return st;
}
