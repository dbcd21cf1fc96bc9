/*
 * clscan: the sort family's entry points (api layer): descriptor and request validation, sort
 * plans, the sort's dispatch and host-array sorts. The algorithms are algo_radix_sort.c (LSD)
 * and algo_radix_sort_onesweep.c (Onesweep), found through the registry (sort_internal.h).
 *
 * Dispatch follows the scan's six steps (docs/architecture.md): the algorithm is fixed when the
 * plan is created and its kernels built then; a sort leases one temporary slot of the
 * algorithm's temp_bytes(n), without single-pass tickets (the slot then holds key copies, so the
 * next single-pass scan zeroes it); the chain's first command waits for the caller's events and
 * the slot's previous user; under the plan's lock the algorithm zeroes what it needs and
 * appends its commands; the slot is released with the chain's last event.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sort_internal.h"

/* Work-items per work-group and keys per work-item of the GPU shapes. The warp ranking keeps one
 * count per digit and warp of 32 work-items: tiles of 256 x 20 keys of up to 4 bytes, 256 x 16
 * 8-byte keys, or 256 x 12 8-byte keys with values (measured on the H200 at 2^28 uniform keys
 * with build/sort_sweep: uint32 LSD 35.8 G keys/s at 20 against 34.3 at 18, 33.5 at 22 and
 * 30.2 at 16; uint64 LSD 12.05 at 16 against 11.95 at 12; see docs/performance.md). sort_scatter
 * then takes 72 registers and 28 KB of local memory on sm_90 (ptxas), 46 KB with uint32 values
 * staged beside the keys. The per-work-item ranking keeps one count per digit and work-item, so
 * its work-groups stay small (32 x 32); devices get it where the warp ranking's work-groups do not
 * fit even with one key per work-item, or where CLSCAN_SORT_CLASSIC asks for it. Onesweep's
 * look-back work-items walk one of the 256 digit chains each in the warp shape, 8 at once in the
 * per-work-item shape. The CPU shape has one work-item per tile of CPU_ITEMS keys (16384: within
 * 5% of 8192 to 65535 on POCL, 2^24 uint32 keys). */
#define WARP_WG 256
#define WARP_ITEMS 20
#define WARP_ITEMS_WIDE 16
#define WARP_ITEMS_WIDE_PAIRS 12
#define WARP_ITEMS_MAX 24 /* the most CLSCAN_SORT_ITEMS may ask for */
#define GPU_WG 32
#define GPU_ITEMS 32
#define CPU_ITEMS 16384

/* ============================================================================================== */
/* Validation                                                                                     */
/* ============================================================================================== */

/* Checks a sort descriptor (every algorithm runs on every device). */
static clscan_status validate_desc(const clscan_sort_desc *desc) {
  if (!clscan__type_is_builtin(desc->key_type))
    return clscan__fail(CLSCAN_INVALID_TYPE, "key_type %d is not a built-in type",
                        (int)desc->key_type);
  if (desc->value_size > CLSCAN_SORT_MAX_VALUE_SIZE)
    return clscan__fail(CLSCAN_INVALID_VALUE, "value_size %zu exceeds %d", desc->value_size,
                        CLSCAN_SORT_MAX_VALUE_SIZE);
  unsigned bits = (unsigned)clscan_type_size(desc->key_type) * 8;
  if (desc->begin_bit || desc->end_bit) {
    if (desc->begin_bit >= desc->end_bit || desc->end_bit > bits)
      return clscan__fail(CLSCAN_INVALID_VALUE,
                          "bit range [%u, %u) is empty or exceeds the key's %u bits",
                          desc->begin_bit, desc->end_bit, bits);
  }
  if ((int)desc->algorithm < 0 || (int)desc->algorithm >= CLSCAN_SORT_ALGORITHM_COUNT)
    return clscan__fail(CLSCAN_INVALID_ALGORITHM, "sort algorithm %d is unknown",
                        (int)desc->algorithm);
  return CLSCAN_SUCCESS;
}

/* Checks one buffer's range for n elements of `size` bytes, writable (through the scan family's
 * request check, with the buffer as its own input and output); resolves a NULL queue. */
static clscan_status validate_range(const clscan_context *ctx, cl_command_queue *queue, cl_mem mem,
                                    size_t off, size_t size, size_t n, cl_uint num_wait,
                                    const cl_event *wait_list) {
  clscan__request r = {.queue = *queue, .n = n, .num_wait = num_wait, .wait_list = wait_list};
  r.buf[CLSCAN__BUF_IN] = (clscan__buffer){mem, off};
  r.buf[CLSCAN__BUF_OUT] = (clscan__buffer){mem, off};
  const clscan__sizes sizes = {.in = size, .out = size};
  CLSCAN_RETURN_IF_ERROR(clscan__validate_request(ctx, &sizes, &r));
  *queue = r.queue;
  return CLSCAN_SUCCESS;
}

/* Checks a sort request: buffers, ranges, the overlap of keys and values, the queue and the
 * wait list. */
static clscan_status validate_request(const clscan_sort_plan *plan, cl_command_queue *queue,
                                      cl_mem keys, size_t keys_off, cl_mem values,
                                      size_t values_off, size_t n, cl_uint num_wait,
                                      const cl_event *wait_list) {
  const size_t ks = plan->key_size, vs = plan->desc.value_size;
  if (!keys)
    return clscan__fail(CLSCAN_NULL_ARGUMENT, "keys buffer is NULL");
  if (vs && !values)
    return clscan__fail(CLSCAN_NULL_ARGUMENT, "values buffer is NULL with value_size %zu", vs);
  if (!vs && values)
    return clscan__fail(CLSCAN_INVALID_VALUE, "a values buffer without a value_size");
  if (n > UINT32_MAX)
    return clscan__fail(CLSCAN_SIZE_OVERFLOW, "n = %zu exceeds UINT32_MAX keys", n);
  CLSCAN_RETURN_IF_ERROR(
      validate_range(plan->ctx, queue, keys, keys_off, ks, n, num_wait, wait_list));
  if (!vs)
    return CLSCAN_SUCCESS;
  CLSCAN_RETURN_IF_ERROR(
      validate_range(plan->ctx, queue, values, values_off, vs, n, num_wait, wait_list));
  // The ranges fit their buffers (checked above), so their byte bounds do not overflow. One
  // buffer may hold both ranges apart; two memory objects over the same bytes may not (NVIDIA's
  // driver crashed sorting disjoint ranges of two overlapping sub-buffers).
  if (n == 0)
    return CLSCAN_SUCCESS;
  clscan__byte_range kr, vr;
  CLSCAN_RETURN_IF_ERROR(clscan__range_of(keys, keys_off, n, ks, &kr));
  CLSCAN_RETURN_IF_ERROR(clscan__range_of(values, values_off, n, vs, &vr));
  if (clscan__ranges_overlap(&kr, &vr))
    return clscan__fail(CLSCAN_OVERLAP,
                        "keys bytes [%zu, %zu) and values bytes [%zu, %zu) overlap%s", kr.begin,
                        kr.end, vr.begin, vr.end, clscan__overlap_note(&kr, &vr));
  return CLSCAN_SUCCESS;
}

/* ============================================================================================== */
/* Plans                                                                                          */
/* ============================================================================================== */

/* The registered descriptor of a sort algorithm. */
static const clscan__sort_algorithm *find_algorithm(clscan_sort_algorithm id) {
  const clscan__algorithm *a = clscan__algorithm_find(CLSCAN__FAMILY_SORT, (int)id);
  return a ? (const clscan__sort_algorithm *)(const void *)a : NULL;
}

/* Resolves the algorithm, bit range and geometry of a validated descriptor. The CPU shape is
 * the default on CPU devices; CLSCAN_SINGLE_PASS_CPU (0 or not) forces either shape (tests). */
static void resolve(clscan_sort_plan *plan) {
  const clscan__device_info *info = &plan->ctx->info;
  const clscan_sort_desc *d = &plan->desc;
  plan->key_size = clscan_type_size(d->key_type);
  plan->begin_bit = d->begin_bit || d->end_bit ? d->begin_bit : 0;
  plan->end_bit = d->begin_bit || d->end_bit ? d->end_bit : (unsigned)plan->key_size * 8;
  plan->passes = (plan->end_bit - plan->begin_bit + 7) / 8;
  int cpu = info->is_cpu;
  if (clscan__env_present(CLSCAN__ENV_SINGLE_PASS_CPU))
    cpu = clscan__env_unsigned(CLSCAN__ENV_SINGLE_PASS_CPU, 1, NULL) != 0;
  // AUTO stays AUTO until the shape is known (choose_algorithm).
  plan->algorithm = d->algorithm;
  // Mesa's llvmpipe (rusticl) ends a work-item's loops after 65535 iterations in all
  // (tests/rusticl/loop_limit.c): Onesweep's CPU shape, one work-item per tile of 16384 keys,
  // goes past that and sorts wrongly, so Onesweep takes the GPU shape there, whatever is asked.
  if (plan->algorithm == CLSCAN_SORT_ONESWEEP && strcmp(info->platform, "rusticl") == 0)
    cpu = 0;
  plan->wg = cpu ? 1 : GPU_WG;
  plan->items = cpu ? CPU_ITEMS : GPU_ITEMS;
  plan->rank_warps = 0;
  if (!cpu && !clscan__env_unsigned(CLSCAN__ENV_SORT_CLASSIC, 0, NULL)) {
    const unsigned fallback = plan->key_size < 8 ? WARP_ITEMS
                              : d->value_size    ? WARP_ITEMS_WIDE_PAIRS
                                                 : WARP_ITEMS_WIDE;
    unsigned items = clscan__env_unsigned(CLSCAN__ENV_SORT_ITEMS, fallback, NULL);
    plan->wg = WARP_WG;
    plan->items = items >= 1 && items <= WARP_ITEMS_MAX ? items : fallback;
    plan->rank_warps = 1;
  }
  plan->lanes = plan->wg;
  plan->withhold = clscan__env_unsigned(CLSCAN__ENV_TEST_WITHHOLD, 0, NULL);
}

/* Onesweep's look-back window (SORT_WINDOW, predecessors a chain reads a round) where a device
 * measured better with another than the kernel's default; 0 keeps the default. The H100, keys of
 * up to 4 bytes with values, the warp ranking: 2 (uint32 pairs at 2^28 were faster with 2 than with
 * 4 in each of ten H100 calls, by 1 to 5%, e.g. 11.01 against 11.46 ms; docs/performance.md).
 * The H200 keeps 4, which it measured faster for an earlier kernel (10.35 against 11.78 ms). */
static unsigned choose_window(const clscan_sort_plan *plan) {
  const int h100 = clscan__contains_ci(plan->ctx->info.name, "H100");
  if (h100 && plan->rank_warps && plan->algorithm == CLSCAN_SORT_ONESWEEP &&
      plan->desc.value_size && plan->key_size <= 4)
    return 2;
  return 0;
}

/* Resolves AUTO for the plan's shape, as measured (docs/performance.md): Onesweep with the warp
 * ranking (on the H200 at 2^28 uniform keys, uint32 keys 7.10 ms against 7.42 for LSD, uint32
 * pairs 9.89 against 11.86, uint64 keys 19.42 against 22.23), LSD in the CPU shape (POCL, 2
 * cores, 2^22 uint32 keys: 40 ms against 63) and with the per-work-item ranking (the H200: 31 ms
 * against 81). Then Onesweep's status words: 32-bit ones where the device lacks 64-bit atomics
 * (or a test asks). */
static void choose_algorithm(clscan_sort_plan *plan) {
  if (plan->desc.algorithm == CLSCAN_SORT_AUTO)
    plan->algorithm = plan->rank_warps ? CLSCAN_SORT_ONESWEEP : CLSCAN_SORT_LSD;
  plan->status32 = plan->algorithm == CLSCAN_SORT_ONESWEEP &&
                   (!plan->ctx->info.has_int64_atomics ||
                    clscan__env_unsigned(CLSCAN__ENV_TEST_STATUS32, 0, NULL) != 0);
  plan->window = choose_window(plan);
}

/* Bytes of local memory the warp ranking's scatter takes (cl/radix_sort.cl, sort_tile_mem): the
 * digits' bases, counts and starts and the scan's scratch, then the ranking's words (the next
 * places and one set of peer words on NVIDIA, two elsewhere) or the staged tile with its values
 * (exchange) or its keys' tile indices; plus a margin for what the compiler adds. */
static size_t warp_local_bytes(const clscan_sort_plan *plan, int nv, int exchange) {
  const size_t tile = clscan__sort_tile(plan), padded = tile + tile / 32;
  const size_t vs = plan->desc.value_size;
  size_t words = (nv ? 2 : 3) * (WARP_WG / 32) * CLSCAN__SORT_RADIX * 4;
  size_t staged = plan->key_size * padded + (exchange ? vs * padded : vs ? 2 * tile : 0);
  return 4 * (3 * CLSCAN__SORT_RADIX + WARP_WG) + (words > staged ? words : staged) + 256;
}

/* The GPU shape's per-work-item ranking. */
static void use_per_item_ranking(clscan_sort_plan *plan) {
  plan->wg = plan->lanes = GPU_WG;
  plan->items = GPU_ITEMS;
  plan->rank_warps = 0;
  plan->exchange = 0;
}

/* Fits the warp ranking to the device before building: fewer keys per work-item where its tile
 * does not fit in local memory (32 KB devices take 8-byte keys in smaller tiles), the per-work-item
 * ranking where its work-groups do not fit at all, and the values' exchange where it fits. */
static void fit_device(clscan_sort_plan *plan) {
  const clscan__device_info *info = &plan->ctx->info;
  // The inline-PTX path's ranking needs one set of peer words (a failed probe counts two; the
  // build reports the failure).
  int nv = 0;
  if (plan->rank_warps && clscan__device_has_nv_ptx(plan->ctx, &nv) != CLSCAN_SUCCESS)
    nv = 0;
  while (plan->rank_warps && plan->items > 1 && info->local_mem < warp_local_bytes(plan, nv, 0))
    plan->items--;
  if (plan->rank_warps &&
      (info->max_wg < WARP_WG || info->local_mem < warp_local_bytes(plan, nv, 0)))
    use_per_item_ranking(plan);
  // Values of 4 or 8 bytes are staged beside the keys where both fit in local memory.
  const size_t vs = plan->desc.value_size;
  plan->exchange =
      plan->rank_warps && (vs == 4 || vs == 8) && info->local_mem >= warp_local_bytes(plan, nv, 1);
}

/* The #defines the kernels are built with. */
static clscan_status make_prelude(clscan_sort_plan *plan) {
  char buf[512];
  int len = snprintf(buf, sizeof buf,
                     "#define SORT_KEY_TYPE %d\n#define SORT_KEY_SIZE %zu\n"
                     "#define SORT_VALUE_SIZE %zu\n#define SORT_DESCENDING %d\n"
                     "#define SORT_WG %u\n#define SORT_ITEMS %u\n#define SORT_LANES %u\n"
                     "#define SORT_ONESWEEP %d\n#define SORT_RANK_WARPS %d\n"
                     "#ifndef SORT_EXCHANGE\n#define SORT_EXCHANGE %d\n#endif\n",
                     (int)plan->desc.key_type, plan->key_size, plan->desc.value_size,
                     plan->desc.descending != 0, plan->wg, plan->items, plan->lanes,
                     plan->algorithm == CLSCAN_SORT_ONESWEEP, plan->rank_warps, plan->exchange);
  if (plan->window && len > 0 && (size_t)len < sizeof buf)
    len += snprintf(buf + len, sizeof buf - (size_t)len,
                    "#ifndef SORT_WINDOW\n#define SORT_WINDOW %u\n#endif\n", plan->window);
  if (len < 0 || (size_t)len >= sizeof buf)
    return clscan__fail(CLSCAN_INTERNAL_ERROR, "sort plan: prelude too long");
  plan->prelude = malloc((size_t)len + 1);
  if (!plan->prelude)
    return clscan__fail(CLSCAN_OUT_OF_HOST_MEMORY, "sort plan");
  memcpy(plan->prelude, buf, (size_t)len + 1);
  return CLSCAN_SUCCESS;
}

/* Builds (or finds) the plan's program and creates its kernels. */
static clscan_status build(clscan_sort_plan *plan, const clscan__sort_algorithm *algo) {
  clscan__kernel_config cfg = {
      .program = algo->program(plan),
      .type = CLSCAN_UINT32,
      .in_type = CLSCAN_UINT32,
      .op = CLSCAN_ADD,
      .user_source = plan->prelude,
      .wg = plan->wg,
      .withhold = plan->withhold,
      .status32 = plan->status32,
  };
  // On NVIDIA the status words are read with the scan's inline-PTX relaxed loads where the
  // driver compiles them, as in the single pass, and the warp ranking uses the warp's barriers
  // and shuffles there (SORT_NV_WARPS, cl/radix_sort.cl).
  if (plan->algorithm == CLSCAN_SORT_ONESWEEP || plan->rank_warps)
    CLSCAN_RETURN_IF_ERROR(clscan__device_has_nv_ptx(plan->ctx, &cfg.nv_ptx));
  cl_program program;
  CLSCAN_RETURN_IF_ERROR(clscan__program_get(plan->ctx, &cfg, &program));
  for (int i = 0; i < CLSCAN__SORT_MAX_KERNELS && algo->kernels[i]; i++) {
    cl_int err;
    plan->k[i] = CLSCAN_FAULT_CREATE(err, CL_OUT_OF_HOST_MEMORY,
                                     clCreateKernel(program, algo->kernels[i], &err));
    if (err != CL_SUCCESS)
      return clscan__cl_fail(err, "clCreateKernel(sort)");
  }
  return CLSCAN_SUCCESS;
}

/* 1 if every kernel of the plan runs work-groups of plan->wg work-items on the device. */
static int kernels_fit(const clscan_sort_plan *plan) {
  for (int i = 0; i < CLSCAN__SORT_MAX_KERNELS && plan->k[i]; i++) {
    size_t max = 0;
    if (clGetKernelWorkGroupInfo(plan->k[i], plan->ctx->device, CL_KERNEL_WORK_GROUP_SIZE,
                                 sizeof max, &max, NULL) != CL_SUCCESS ||
        max < plan->wg)
      return 0;
  }
  return 1;
}

/* Releases the plan's kernels and prelude (before a rebuild in another shape). */
static void unbuild(clscan_sort_plan *plan) {
  for (int i = 0; i < CLSCAN__SORT_MAX_KERNELS; i++) {
    if (plan->k[i])
      clReleaseKernel(plan->k[i]);
    plan->k[i] = NULL;
  }
  free(plan->prelude);
  plan->prelude = NULL;
}

/* Resolves the algorithm for the plan's shape and builds it. */
static clscan_status build_algorithm(clscan_sort_plan *plan) {
  choose_algorithm(plan);
  const clscan__sort_algorithm *algo = find_algorithm(plan->algorithm);
  if (!algo)
    return clscan__fail(CLSCAN_INTERNAL_ERROR, "sort algorithm %d is not registered",
                        (int)plan->algorithm);
  CLSCAN_RETURN_IF_ERROR(make_prelude(plan));
  return build(plan, algo);
}

/* Builds the plan in its shape; where the device refuses the warp ranking's work-groups for
 * these kernels, builds the per-work-item ranking instead. */
static clscan_status build_shape(clscan_sort_plan *plan) {
  fit_device(plan);
  CLSCAN_RETURN_IF_ERROR(build_algorithm(plan));
  if (!plan->rank_warps || kernels_fit(plan))
    return CLSCAN_SUCCESS;
  unbuild(plan);
  use_per_item_ranking(plan);
  return build_algorithm(plan);
}

void clscan_sort_plan_release(clscan_sort_plan *plan) {
  if (!plan)
    return;
  for (int i = 0; i < CLSCAN__SORT_MAX_KERNELS; i++) {
    if (plan->k[i])
      clReleaseKernel(plan->k[i]);
  }
  free(plan->prelude);
  pthread_mutex_destroy(&plan->lock);
  free(plan);
}

clscan_status clscan_sort_plan_create(clscan_context *ctx, const clscan_sort_desc *desc,
                                      clscan_sort_plan **out) {
  clscan__clear_error();
  if (!ctx || !desc || !out)
    return clscan__fail(CLSCAN_NULL_ARGUMENT, "ctx, desc and out must not be NULL");
  CLSCAN_RETURN_IF_ERROR(validate_desc(desc));
  clscan_sort_plan *plan = calloc(1, sizeof *plan);
  if (!plan)
    return clscan__fail(CLSCAN_OUT_OF_HOST_MEMORY, "sort plan");
  if (pthread_mutex_init(&plan->lock, NULL) != 0) {
    free(plan);
    return clscan__fail(CLSCAN_OUT_OF_HOST_MEMORY, "sort plan lock");
  }
  plan->ctx = ctx;
  plan->desc = *desc;
  resolve(plan);
  clscan_status st;
  CLSCAN_TRY(build_shape(plan));
  *out = plan;
  return CLSCAN_SUCCESS;
fail:
  clscan_sort_plan_release(plan);
  return st;
}

clscan_sort_algorithm clscan_sort_plan_algorithm(const clscan_sort_plan *plan) {
  return plan ? plan->algorithm : CLSCAN_SORT_AUTO;
}

size_t clscan_sort_temp_bytes(const clscan_sort_plan *plan, size_t n) {
  if (!plan || n < 2)
    return 0;
  const clscan__sort_algorithm *algo = find_algorithm(plan->algorithm);
  return algo ? algo->temp_bytes(plan, n) : 0;
}

/* ============================================================================================== */
/* Dispatch                                                                                       */
/* ============================================================================================== */

/* Enqueues under the plan's lock: a marker for fewer than two keys (already sorted); else the
 * zeroing the algorithm needs, then its commands. */
static clscan_status enqueue_locked(clscan_sort_plan *plan, const clscan__sort_algorithm *algo,
                                    const clscan__sort_launch *l) {
  if (l->n < 2)
    return clscan__chain_marker(l->chain);
  size_t zero = algo->zero_bytes(plan, (size_t)l->n);
  if (zero)
    CLSCAN_RETURN_IF_ERROR(clscan__chain_zero(l->chain, l->temp, zero));
  return algo->enqueue(l);
}

/* The sort's dispatch for a validated request. */
static clscan_status dispatch(clscan_sort_plan *plan, cl_command_queue queue, cl_mem keys,
                              size_t keys_off, cl_mem values, size_t values_off, size_t n,
                              cl_uint num_wait, const cl_event *wait_list, cl_event *done) {
  clscan_status st = CLSCAN_SUCCESS;
  clscan__chain c = {0};
  clscan__temp_lease lease = {.slot = -1};
  const clscan__sort_algorithm *algo = find_algorithm(plan->algorithm);
  if (!algo)
    return clscan__fail(CLSCAN_INTERNAL_ERROR, "unregistered sort algorithm");
  clscan__sort_launch l = {.plan = plan,
                           .chain = &c,
                           .keys = keys,
                           .keys_off = keys_off,
                           .values = values ? values : keys,
                           .values_off = values_off,
                           .n = n};
  if (n >= 2) {
    CLSCAN_RETURN_IF_ERROR(
        clscan__temp_acquire(plan->ctx, queue, algo->temp_bytes(plan, n), 0, &lease));
    l.temp = lease.buf;
  }
  CLSCAN_TRY(clscan__chain_start(&c, queue, num_wait, wait_list, lease.wait));
  pthread_mutex_lock(&plan->lock);
  st = enqueue_locked(plan, algo, &l);
  pthread_mutex_unlock(&plan->lock);
  if (st != CLSCAN_SUCCESS)
    goto fail;
  clscan__temp_release(plan->ctx, &lease, c.last, 0);
  clscan__chain_finish(&c, NULL, done);
  return CLSCAN_SUCCESS;
fail:
  // Commands already enqueued are waited for; the temporary buffer's state is then unknown.
  clscan__temp_release(plan->ctx, &lease, NULL, clscan__chain_abort(&c));
  return st;
}

clscan_status clscan_sort_enqueue(clscan_sort_plan *plan, cl_command_queue queue, cl_mem keys,
                                  size_t keys_offset, cl_mem values, size_t values_offset, size_t n,
                                  cl_uint num_wait, const cl_event *wait_list, cl_event *done) {
  clscan__begin_call(NULL, done);
  if (!plan)
    return clscan__fail(CLSCAN_NULL_ARGUMENT, "plan is NULL");
  CLSCAN_RETURN_IF_ERROR(validate_request(plan, &queue, keys, keys_offset, values, values_offset, n,
                                          num_wait, wait_list));
  return dispatch(plan, queue, keys, keys_offset, values, values_offset, n, num_wait, wait_list,
                  done);
}

/* ============================================================================================== */
/* Host arrays                                                                                    */
/* ============================================================================================== */

/* Creates a device buffer holding `bytes` bytes copied from host memory. */
static clscan_status upload(const clscan_context *ctx, const void *host, size_t bytes,
                            cl_mem *out) {
  cl_int err;
  *out = CLSCAN_FAULT_CREATE(err, CL_MEM_OBJECT_ALLOCATION_FAILURE,
                             clCreateBuffer(ctx->cl_ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                                            bytes, (void *)host, &err));
  if (err != CL_SUCCESS)
    return clscan__cl_fail(err, "clCreateBuffer(sort host array)");
  return CLSCAN_SUCCESS;
}

/* Sorts the device copies and reads them back into the host arrays only when all succeeded. */
static clscan_status sort_copies(clscan_sort_plan *plan, cl_mem kbuf, cl_mem vbuf, void *keys,
                                 void *values, size_t n) {
  clscan_status st;
  cl_command_queue q = plan->ctx->queue;
  CLSCAN_RETURN_IF_ERROR(clscan_sort_enqueue(plan, q, kbuf, 0, vbuf, 0, n, 0, NULL, NULL));
  cl_int err = clFinish(q);
  if (err != CL_SUCCESS)
    return clscan__cl_fail(err, "clFinish");
  // Read into scratch first, so that a failed read leaves the caller's arrays untouched.
  size_t kb = n * plan->key_size, vb = n * plan->desc.value_size;
  unsigned char *tmp = malloc(kb + vb);
  if (!tmp)
    return clscan__fail(CLSCAN_OUT_OF_HOST_MEMORY, "sort host read-back");
  CLSCAN_CL(clEnqueueReadBuffer(q, kbuf, CL_TRUE, 0, kb, tmp, 0, NULL, NULL));
  if (vb)
    CLSCAN_CL(clEnqueueReadBuffer(q, vbuf, CL_TRUE, 0, vb, tmp + kb, 0, NULL, NULL));
  memcpy(keys, tmp, kb);
  if (vb)
    memcpy(values, tmp + kb, vb);
  free(tmp);
  return CLSCAN_SUCCESS;
fail:
  free(tmp);
  return st;
}

clscan_status clscan_sort_host(clscan_context *ctx, const clscan_sort_desc *desc, void *keys,
                               void *values, size_t n) {
  clscan__clear_error();
  if (!ctx || !desc)
    return clscan__fail(CLSCAN_NULL_ARGUMENT, "ctx and desc must not be NULL");
  if (n > 0 && !keys)
    return clscan__fail(CLSCAN_NULL_ARGUMENT, "keys is NULL");
  if (n > 0 && desc->value_size && !values)
    return clscan__fail(CLSCAN_NULL_ARGUMENT, "values is NULL with value_size %zu",
                        desc->value_size);
  if (!desc->value_size && values)
    return clscan__fail(CLSCAN_INVALID_VALUE, "values without a value_size");
  if (n > UINT32_MAX)
    return clscan__fail(CLSCAN_SIZE_OVERFLOW, "n = %zu exceeds UINT32_MAX keys", n);
  CLSCAN_RETURN_IF_ERROR(validate_desc(desc));
  if (n < 2)
    return CLSCAN_SUCCESS;
  clscan_status st;
  clscan_sort_plan *plan = NULL;
  cl_mem kbuf = NULL, vbuf = NULL;
  CLSCAN_TRY(clscan_sort_plan_create(ctx, desc, &plan));
  CLSCAN_TRY(upload(ctx, keys, n * plan->key_size, &kbuf));
  if (desc->value_size)
    CLSCAN_TRY(upload(ctx, values, n * desc->value_size, &vbuf));
  CLSCAN_TRY(sort_copies(plan, kbuf, vbuf, keys, values, n));
fail:
  if (kbuf)
    clReleaseMemObject(kbuf);
  if (vbuf)
    clReleaseMemObject(vbuf);
  clscan_sort_plan_release(plan);
  return st;
}
