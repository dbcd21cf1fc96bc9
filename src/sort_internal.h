/*
 * clscan internals of the sort family (docs/architecture.md, "Families that are not scans"):
 * the sort plan, the launch an algorithm's enqueue gets, and the sort algorithm descriptor.
 *
 * Files: sort_api.c (api layer: entry points, validation, plans, the sort's dispatch),
 * algo_radix_sort.c (the portable LSD path) and algo_radix_sort_onesweep.c (Onesweep), both in
 * the algorithm layer and registered in algorithms.c under CLSCAN__FAMILY_SORT, and
 * cl/radix_sort.cl. A sort algorithm's registry entry is the `base` of a clscan__sort_algorithm,
 * so sort_api.c turns what clscan__algorithm_find() returns into its container.
 */
#ifndef CLSCAN_SORT_INTERNAL_H_
#define CLSCAN_SORT_INTERNAL_H_

#include "internal.h"

/* Kernels a sort algorithm may create. */
#define CLSCAN__SORT_MAX_KERNELS 8

/* Digits per pass (8 bits), and the most passes (64-bit keys). */
#define CLSCAN__SORT_RADIX 256
#define CLSCAN__SORT_MAX_PASSES 8

struct clscan_sort_plan {
  clscan_context *ctx;
  clscan_sort_desc desc;
  size_t key_size;
  unsigned begin_bit, end_bit; /* the resolved bit range */
  unsigned passes;             /* digits of up to 8 bits in the range */
  clscan_sort_algorithm algorithm;
  unsigned wg;       /* work-items per work-group */
  unsigned items;    /* keys per work-item (a tile is wg * items keys) */
  unsigned lanes;    /* Onesweep: work-items that walk look-backs */
  int rank_warps;    /* the GPU shape's warp ranking (SORT_RANK_WARPS), else per work-item */
  int exchange;      /* warp ranking: values staged in local memory (SORT_EXCHANGE) */
  unsigned withhold; /* test only (CLSCAN_TEST_WITHHOLD) */
  int status32;      /* Onesweep: 32-bit status words (no 64-bit atomics; CLSCAN_TEST_STATUS32) */
  unsigned window;   /* Onesweep: the look-back window for this device (SORT_WINDOW); 0: default */
  char *prelude;     /* the #defines the kernels are built with (part of the program key) */
  pthread_mutex_t lock; /* kernel arguments with their enqueue */
  cl_kernel k[CLSCAN__SORT_MAX_KERNELS];
};

/* What a sort algorithm's enqueue gets (the plan lock is held; n >= 2). */
typedef struct clscan__sort_launch {
  const clscan_sort_plan *plan;
  clscan__chain *chain;
  cl_mem keys, values; /* values: any valid buffer without values */
  cl_ulong keys_off, values_off;
  cl_ulong n;
  cl_mem temp; /* at least temp_bytes(n), its first zero_bytes(n) zeroed when zero_bytes > 0 */
} clscan__sort_launch;

/* A sort algorithm: its registry entry and its sort-shaped functions. */
typedef struct clscan__sort_algorithm {
  clscan__algorithm base; /* name, family (CLSCAN__FAMILY_SORT), id, programs; no scan calls */
  const char *kernels[CLSCAN__SORT_MAX_KERNELS]; /* by the algorithm's kernel index */
  /* The program its plan builds. */
  const clscan__program *(*program)(const clscan_sort_plan *plan);
  /* Bytes of temporary storage for n keys, and how many of its first bytes must be zero. */
  size_t (*temp_bytes)(const clscan_sort_plan *plan, size_t n);
  size_t (*zero_bytes)(const clscan_sort_plan *plan, size_t n);
  /* Enqueues the sort onto the launch's chain. */
  clscan_status (*enqueue)(const clscan__sort_launch *l);
} clscan__sort_algorithm;

/* Keys per tile. */
static inline size_t clscan__sort_tile(const clscan_sort_plan *plan) {
  return (size_t)plan->wg * plan->items;
}

/* Alignment in bytes of the temporary copies of keys and values (values: the least multiple of it
 * that is also one of the value size): a tile's keys then start on a cache line (128 bytes on
 * NVIDIA), as in a caller's buffer, so a warp's 32 keys are not split between two lines. */
#define CLSCAN__SORT_ALIGN 256

/* Where the temporary copies of keys and values start, after `head` bytes of the algorithm's
 * own data, as element offsets into the temporary buffer; returns the bytes in all. */
static inline size_t clscan__sort_pingpong(const clscan_sort_plan *plan, size_t head, size_t n,
                                           cl_ulong *keys_off, cl_ulong *values_off) {
  size_t ks = plan->key_size, vs = plan->desc.value_size;
  size_t kb = clscan__div_up(head, CLSCAN__SORT_ALIGN) * CLSCAN__SORT_ALIGN;
  size_t vb = kb + n * ks;
  if (vs) {
    size_t align = CLSCAN__SORT_ALIGN;
    while (align % vs)
      align += CLSCAN__SORT_ALIGN;
    vb = clscan__div_up(vb, align) * align;
  }
  if (keys_off)
    *keys_off = kb / ks;
  if (values_off)
    *values_off = vs ? vb / vs : 0;
  return vb + n * vs;
}

/* Work-items per work-group and work-groups of sort_finish, which copies the keys back in a
 * grid-stride loop: a grid sized to the keys (one work-item each) cost 2.5 ms on the H200 at 2^28
 * keys even where it copied nothing (four million work-groups, each only reading the word that
 * says so), so the grid is capped near what a large GPU holds at once. */
#define CLSCAN__SORT_FINISH_WG 64
#define CLSCAN__SORT_FINISH_GROUPS_MAX 4096
static inline size_t clscan__sort_finish_groups(size_t n) {
  size_t groups = clscan__div_up(n, CLSCAN__SORT_FINISH_WG);
  return groups < CLSCAN__SORT_FINISH_GROUPS_MAX ? groups : CLSCAN__SORT_FINISH_GROUPS_MAX;
}

#endif /* CLSCAN_SORT_INTERNAL_H_ */
