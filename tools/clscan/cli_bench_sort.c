/*
 * The clscan program's sort measurements, shared by `clscan sort --bench` and `clscan bench
 * --family sort`: keys of four distributions (uniform random, few distinct, already sorted, a
 * narrow bit range), sorted on the device in place from a pristine copy, verified before and
 * after timing, timed from a marker enqueued just before the sort to its end (median of the timed
 * runs after warm-ups), next to a single-threaded host radix sort of the same keys and,
 * optionally, the C library's qsort.
 *
 * The expected result is the host radix sort: a stable least-significant-digit sort of the
 * reference's ordered bits (ref_sort_order(), tests/reference/ref_sort.h), so that it follows the
 * same rule as the reference; up to VERIFY_REF_MAX keys it is itself checked against the
 * reference's ref_sort() (qsort with an index tie-break), which is too slow for 2^28 keys. Pairs
 * carry uint32 index values, so their check covers stability.
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "measure.h"
#include "ref_sort.h"

/* Up to this many keys the host radix sort is checked against ref_sort() as well. */
#define VERIFY_REF_MAX ((size_t)1 << 20)

/* Number of distinct keys of the "few" distribution. */
#define FEW_KEYS 16

static const char *const dist_names[CLI_SORT_DIST_COUNT] = {"uniform", "few", "sorted", "narrow"};

const char *cli_sort_dist_name(cli_sort_dist d) {
  return (unsigned)d < CLI_SORT_DIST_COUNT ? dist_names[d] : "?";
}

/* ============================================================================================== */
/* Keys                                                                                           */
/* ============================================================================================== */

/* Returns the key bits whose ascending ordered bits (ref_sort_order) are u, for a key type of
 * `bits` bits: the inverse of the sign flip of signed integers and of the float flip. */
static uint64_t key_from_order(clscan_type t, unsigned bits, uint64_t u) {
  const uint64_t all = bits == 64 ? ~(uint64_t)0 : (((uint64_t)1 << bits) - 1);
  const uint64_t sign = (uint64_t)1 << (bits - 1);
  if (t == CLSCAN_FLOAT || t == CLSCAN_DOUBLE)
    return (u & sign) ? (u ^ sign) : (~u & all);
  if (t == CLSCAN_INT8 || t == CLSCAN_INT16 || t == CLSCAN_INT32 || t == CLSCAN_INT64)
    return u ^ sign;
  return u;
}

/* Returns the ordered bits of key i of a distribution, for keys of `bits` bits. */
static uint64_t dist_order(cli_sort_dist dist, unsigned bits, size_t n, uint64_t seed, size_t i) {
  const uint64_t all = bits == 64 ? ~(uint64_t)0 : (((uint64_t)1 << bits) - 1);
  unsigned log2n = 0;
  switch (dist) {
    case CLI_SORT_FEW:
      return cli_mix64(seed ^ 0xfe3, cli_mix64(seed, i) % FEW_KEYS) & all;
    case CLI_SORT_SORTED:
      // Ascending: index i spread over the key's range (or folded onto it when n > 2^bits).
      while (log2n < 63 && ((size_t)1 << log2n) < n)
        log2n++;
      return log2n <= bits ? (uint64_t)i << (bits - log2n) : (uint64_t)i >> (log2n - bits);
    case CLI_SORT_NARROW:
      return cli_mix64(seed, i) & ((((uint64_t)1) << (bits / 2)) - 1);
    default:
      return cli_mix64(seed, i) & all;
  }
}

void cli_sort_fill_keys(clscan_type key_type, cli_sort_dist dist, uint64_t seed, void *keys,
                        size_t n) {
  const size_t ks = clscan_type_size(key_type);
  const unsigned bits = (unsigned)ks * 8;
  for (size_t i = 0; i < n; i++) {
    uint64_t k = key_from_order(key_type, bits, dist_order(dist, bits, n, seed, i));
    unsigned char *p = (unsigned char *)keys + i * ks;
    if (ks == 1)
      *p = (uint8_t)k;
    else if (ks == 2)
      memcpy(p, &(uint16_t){(uint16_t)k}, 2);
    else if (ks == 4)
      memcpy(p, &(uint32_t){(uint32_t)k}, 4);
    else
      memcpy(p, &k, 8);
  }
}

/* ============================================================================================== */
/* The host radix sort                                                                            */
/* ============================================================================================== */

/* Sorts n (order, index) entries stably by order, `bits` low bits of it, 8 bits a pass through
 * the scratch arrays; returns the arrays that hold the result (either set). */
static void radix_passes(uint64_t **ord, uint32_t **idx, uint64_t **ord2, uint32_t **idx2, size_t n,
                         unsigned bits) {
  for (unsigned shift = 0; shift < bits; shift += 8) {
    size_t count[257] = {0};
    for (size_t i = 0; i < n; i++)
      count[((*ord)[i] >> shift & 0xff) + 1]++;
    int skip = 0;
    for (int d = 1; d <= 256; d++)
      skip |= count[d] == n; /* every key has this digit: the pass would not move any */
    if (skip)
      continue;
    for (int d = 1; d <= 256; d++)
      count[d] += count[d - 1];
    for (size_t i = 0; i < n; i++) {
      size_t at = count[(*ord)[i] >> shift & 0xff]++;
      (*ord2)[at] = (*ord)[i];
      (*idx2)[at] = (*idx)[i];
    }
    uint64_t *o = *ord;
    uint32_t *x = *idx;
    *ord = *ord2;
    *idx = *idx2;
    *ord2 = o;
    *idx2 = x;
  }
}

/* Computes the expected sorted keys (and the index values: the input position of each) of
 * c->desc with a host radix sort, and its time in *ms. Returns 0 when memory ran out. */
static int host_radix(const clscan_sort_desc *desc, const unsigned char *keys, size_t n,
                      unsigned char *want_keys, uint32_t *want_values, double *ms) {
  const size_t ks = clscan_type_size(desc->key_type);
  uint64_t *ord = malloc(n * sizeof *ord + 1), *ord2 = malloc(n * sizeof *ord + 1);
  uint32_t *idx = malloc(n * sizeof *idx + 1), *idx2 = malloc(n * sizeof *idx + 1);
  uint64_t *all_ord[2] = {ord, ord2};
  uint32_t *all_idx[2] = {idx, idx2};
  int ok = ord && ord2 && idx && idx2;
  if (ok) {
    double start = measure_host_ms();
    unsigned bits = desc->end_bit ? desc->end_bit - desc->begin_bit : (unsigned)ks * 8;
    for (size_t i = 0; i < n; i++) {
      ord[i] = ref_sort_order(desc->key_type, desc->descending, desc->begin_bit, desc->end_bit,
                              keys + i * ks);
      idx[i] = (uint32_t)i;
    }
    radix_passes(&ord, &idx, &ord2, &idx2, n, bits);
    for (size_t i = 0; i < n; i++)
      memcpy(want_keys + i * ks, keys + (size_t)idx[i] * ks, ks);
    *ms = measure_host_ms() - start;
    memcpy(want_values, idx, n * sizeof *idx);
  }
  for (int i = 0; i < 2; i++) {
    free(all_ord[i]);
    free(all_idx[i]);
  }
  return ok;
}

/* Checks the host radix sort's result against the reference's ref_sort(); 1 if they agree. */
static int check_against_ref(const clscan_sort_desc *desc, const unsigned char *keys, size_t n,
                             const unsigned char *want_keys, const uint32_t *want_values) {
  const size_t ks = clscan_type_size(desc->key_type);
  unsigned char *k = malloc(n * ks + 1);
  uint32_t *v = malloc(n * sizeof *v + 1);
  clscan_sort_desc d = *desc;
  d.value_size = 4;
  int ok = k && v;
  if (ok) {
    memcpy(k, keys, n * ks);
    for (size_t i = 0; i < n; i++)
      v[i] = (uint32_t)i;
    ok = ref_sort(&d, k, v, n) == 0 && memcmp(k, want_keys, n * ks) == 0 &&
         memcmp(v, want_values, n * sizeof *v) == 0;
  }
  free(k);
  free(v);
  return ok;
}

/* ============================================================================================== */
/* Host data                                                                                      */
/* ============================================================================================== */

void cli_sort_data_free(cli_sort_data *h) {
  free(h->keys);
  free(h->values);
  free(h->want_keys);
  free(h->want_values);
  free(h->got);
  memset(h, 0, sizeof *h);
}

int cli_sort_data_init(cli_sort_data *h, const clscan_sort_desc *desc, cli_sort_dist dist, size_t n,
                       uint64_t seed) {
  memset(h, 0, sizeof *h);
  h->desc = *desc;
  h->desc.value_size = 0;
  h->n = n;
  h->ks = clscan_type_size(desc->key_type);
  h->keys = malloc(n * h->ks + 1);
  h->values = malloc(n * sizeof *h->values + 1);
  h->want_keys = malloc(n * h->ks + 1);
  h->want_values = malloc(n * sizeof *h->want_values + 1);
  h->got = malloc(n * (h->ks > 4 ? h->ks : 4) + 1);
  if (!h->keys || !h->values || !h->want_keys || !h->want_values || !h->got) {
    cli_error("out of host memory for %zu keys", n);
    return 0;
  }
  cli_sort_fill_keys(desc->key_type, dist, seed, h->keys, n);
  for (size_t i = 0; i < n; i++)
    h->values[i] = (uint32_t)i;
  if (!host_radix(&h->desc, h->keys, n, h->want_keys, h->want_values, &h->host_ms)) {
    cli_error("out of host memory for the host sort of %zu keys", n);
    return 0;
  }
  if (n <= VERIFY_REF_MAX &&
      !check_against_ref(&h->desc, h->keys, n, h->want_keys, h->want_values)) {
    cli_error("the host radix sort of %zu %s keys differs from the host reference", n,
              clscan_type_name(desc->key_type));
    return 0;
  }
  return 1;
}

/* ============================================================================================== */
/* Device runs                                                                                    */
/* ============================================================================================== */

/* The device buffers of one measurement: pristine keys and values, and the ones sorted. */
typedef struct sort_device {
  cl_mem src_keys, src_values, keys, values;
} sort_device;

static void device_free(sort_device *d) {
  cl_mem all[4] = {d->src_keys, d->src_values, d->keys, d->values};
  for (int i = 0; i < 4; i++) {
    if (all[i])
      clReleaseMemObject(all[i]);
  }
}

static int device_init(clscan_context *ctx, cli_sort_data *h, int pairs, sort_device *d) {
  size_t kb = h->n * h->ks, vb = h->n * sizeof *h->values;
  memset(d, 0, sizeof *d);
  d->src_keys = cli_new_buffer(ctx, kb, h->keys, "keys");
  d->keys = d->src_keys ? cli_new_buffer(ctx, kb, NULL, "sorted keys") : NULL;
  if (!pairs || !d->keys)
    return d->keys != NULL;
  d->src_values = cli_new_buffer(ctx, vb, h->values, "values");
  d->values = d->src_values ? cli_new_buffer(ctx, vb, NULL, "sorted values") : NULL;
  return d->values != NULL;
}

/* What one sort run needs. */
typedef struct sort_run {
  clscan_context *ctx;
  clscan_sort_plan *plan;
  cli_sort_data *h;
  sort_device *d;
  const char *label;
} sort_run;

/* Restores the unsorted keys (and values), sorts them and waits; with ms, stores the time from a
 * marker enqueued after the restore to the sort's end (the wall time if profiling fails). */
static int sort_once(void *state, double *ms) {
  const sort_run *r = state;
  cl_command_queue q = clscan_context_queue(r->ctx);
  size_t kb = r->h->n * r->h->ks, vb = r->h->n * sizeof *r->h->values;
  cl_event marker = NULL, done = NULL;
  if (clEnqueueCopyBuffer(q, r->d->src_keys, r->d->keys, 0, 0, kb, 0, NULL, NULL) != CL_SUCCESS ||
      (r->d->values && clEnqueueCopyBuffer(q, r->d->src_values, r->d->values, 0, 0, vb, 0, NULL,
                                           NULL) != CL_SUCCESS) ||
      clFinish(q) != CL_SUCCESS) {
    cli_error("%s: restoring the unsorted keys failed", r->label);
    return 0;
  }
  double start = measure_host_ms();
  if (ms && clEnqueueMarkerWithWaitList(q, 0, NULL, &marker) != CL_SUCCESS)
    marker = NULL;
  clscan_status st =
      clscan_sort_enqueue(r->plan, q, r->d->keys, 0, r->d->values, 0, r->h->n, 0, NULL, &done);
  int ok = st == CLSCAN_SUCCESS && clWaitForEvents(1, &done) == CL_SUCCESS;
  double wall = measure_host_ms() - start;
  if (st != CLSCAN_SUCCESS)
    cli_lib_error(st, "%s: enqueue failed", r->label);
  else if (!ok)
    cli_error("%s: waiting for the sort failed", r->label);
  if (ok && ms && !measure_span_ms(marker, done, wall, ms))
    *ms = wall;
  if (marker)
    clReleaseEvent(marker);
  if (done)
    clReleaseEvent(done);
  return ok;
}

/* Reads the sorted keys (and values) back and compares them with the expected ones. */
static cli_timing sort_verify(void *state, const char *when) {
  const sort_run *r = state;
  cl_command_queue q = clscan_context_queue(r->ctx);
  cli_sort_data *h = r->h;
  size_t kb = h->n * h->ks, vb = h->n * sizeof *h->values;
  if (clEnqueueReadBuffer(q, r->d->keys, CL_TRUE, 0, kb, h->got, 0, NULL, NULL) != CL_SUCCESS) {
    cli_error("%s: reading the sorted keys back failed", r->label);
    return CLI_FAILED;
  }
  if (memcmp(h->got, h->want_keys, kb) != 0) {
    cli_error("%s: WRONG RESULT %s: the keys differ from the host's", r->label, when);
    return CLI_WRONG;
  }
  if (!r->d->values)
    return CLI_TIMED;
  if (clEnqueueReadBuffer(q, r->d->values, CL_TRUE, 0, vb, h->got, 0, NULL, NULL) != CL_SUCCESS) {
    cli_error("%s: reading the sorted values back failed", r->label);
    return CLI_FAILED;
  }
  if (memcmp(h->got, h->want_values, vb) == 0)
    return CLI_TIMED;
  cli_error("%s: WRONG RESULT %s: the values differ from the host's (not stable?)", r->label, when);
  return CLI_WRONG;
}

/* Verifies a sort, times reps sorts after warm-ups, verifies the last. The sort is in place from
 * restored unsorted keys, so a sort that wrote nothing leaves them unsorted. */
static cli_timing sort_time(const sort_run *r, int reps, double *ms) {
  cli_verified_runs v = {.run = sort_once, .check = sort_verify, .state = (void *)r};
  return cli_time_verified(&v, reps, ms);
}

cli_timing cli_sort_measure(clscan_context *ctx, clscan_sort_plan *plan, cli_sort_data *h,
                            int pairs, int reps, const char *label, double *ms) {
  sort_device d;
  sort_run r = {.ctx = ctx, .plan = plan, .h = h, .d = &d, .label = label};
  cli_timing t = device_init(ctx, h, pairs, &d) ? sort_time(&r, reps, ms) : CLI_FAILED;
  device_free(&d);
  return t;
}

int cli_sort_max_log2(cl_device_id device, size_t key_size) {
  // Pristine and sorted keys and values, and the library's ping-pong copies of both.
  size_t per_key = 3 * (key_size + 4);
  cl_ulong quarter = cli_device_ulong(device, CL_DEVICE_GLOBAL_MEM_SIZE) / 4;
  cl_ulong max_alloc = cli_device_ulong(device, CL_DEVICE_MAX_MEM_ALLOC_SIZE);
  int k = 31; /* the index values are uint32 */
  while (k > 0 && (((cl_ulong)per_key << k) > quarter || ((cl_ulong)key_size << k) > max_alloc))
    k--;
  return k;
}

/* ============================================================================================== */
/* qsort of the same keys                                                                         */
/* ============================================================================================== */

/* The key type qsort compares (qsort has no context argument). */
static clscan_type qsort_type;

/* Compares two keys by their ordered bits (uint32 directly, as a hand-written qsort would). */
static int compare_keys(const void *a, const void *b) {
  if (qsort_type == CLSCAN_UINT32) {
    uint32_t p, q;
    memcpy(&p, a, 4);
    memcpy(&q, b, 4);
    return p < q ? -1 : p > q;
  }
  uint64_t x = ref_sort_order(qsort_type, 0, 0, 0, a), y = ref_sort_order(qsort_type, 0, 0, 0, b);
  return x < y ? -1 : x > y;
}

double cli_sort_qsort_ms(const cli_sort_data *h) {
  unsigned char *copy = malloc(h->n * h->ks + 1);
  if (!copy)
    return 0;
  memcpy(copy, h->keys, h->n * h->ks);
  qsort_type = h->desc.key_type;
  double start = measure_host_ms();
  qsort(copy, h->n, h->ks, compare_keys);
  double ms = measure_host_ms() - start;
  free(copy);
  return ms;
}

/* ============================================================================================== */
/* bench --family sort                                                                            */
/* ============================================================================================== */

/* The plans of one key type: by algorithm (in the request's order), keys or pairs, and all bits
 * or the narrow distribution's bit range; NULL where none. */
typedef clscan_sort_plan *sort_plans[CLSCAN_SORT_ALGORITHM_COUNT][2][2];

/* Returns the descriptor of a row: ascending, all bits or the low half of them (narrow), with
 * uint32 values for pairs. */
static clscan_sort_desc row_desc(clscan_type type, clscan_sort_algorithm algo, int pairs,
                                 int narrow) {
  clscan_sort_desc d = {.key_type = type, .algorithm = algo, .value_size = pairs ? 4 : 0};
  if (narrow)
    d.end_bit = (unsigned)clscan_type_size(type) * 4;
  return d;
}

/* Creates the plans of one type; unsupported ones are skipped with a note. Returns 0 if a plan
 * failed otherwise. */
static int create_sort_plans(const cli_family_bench *b, clscan_type type, sort_plans plans) {
  int ok = 1;
  memset(plans, 0, sizeof(sort_plans));
  for (int a = 0; a < b->sort_algo_count; a++) {
    for (int p = 0; p < 4; p++) {
      clscan_sort_desc d = row_desc(type, b->sort_algos[a], p & 1, p >> 1);
      clscan_status st = clscan_sort_plan_create(b->ctx, &d, &plans[a][p & 1][p >> 1]);
      if (st == CLSCAN_UNSUPPORTED_BY_DEVICE && p == 0)
        printf("note: skipping %s sorts of %s: %s (%s)\n",
               cli_sort_algorithm_name(b->sort_algos[a]), clscan_type_name(type),
               clscan_status_string(st), clscan_last_error_detail());
      else if (st != CLSCAN_SUCCESS && st != CLSCAN_UNSUPPORTED_BY_DEVICE) {
        cli_lib_error(st, "cannot create the %s sort plan for %s",
                      cli_sort_algorithm_name(b->sort_algos[a]), clscan_type_name(type));
        ok = 0;
      }
    }
  }
  return ok;
}

static void release_sort_plans(sort_plans plans) {
  for (int a = 0; a < CLSCAN_SORT_ALGORITHM_COUNT; a++) {
    for (int p = 0; p < 4; p++)
      clscan_sort_plan_release(plans[a][p & 1][p >> 1]);
  }
}

/* Writes the algorithm column: the plan's algorithm, "auto:" before it when auto chose it. */
static void algo_column(clscan_sort_algorithm asked, const clscan_sort_plan *plan, char *buf,
                        size_t cap) {
  const char *ran = cli_sort_algorithm_name(clscan_sort_plan_algorithm(plan));
  if (asked == CLSCAN_SORT_AUTO)
    snprintf(buf, cap, "auto:%s", ran);
  else
    snprintf(buf, cap, "%s", ran);
}

/* Ends a table row: with --cub, the fraction of CUB's rate (CUB's time over this one), or "-"
 * where CUB's file has no verified sort of the row's kind. */
static void cub_column(const cli_family_bench *b, double cub_ms, double ms) {
  if (b->cub && cub_ms > 0 && ms > 0)
    printf(" %8.3f", cub_ms / ms);
  else if (b->cub)
    printf(" %8s", "-");
  printf("\n");
}

/* Ends a CSV row: with --cub, CUB's time in ms (empty where none). */
static void cub_csv(const cli_family_bench *b, double cub_ms) {
  if (b->cub && cub_ms > 0)
    fprintf(b->csv, ",%.6g", cub_ms);
  else if (b->cub)
    fputc(',', b->csv);
  fputc('\n', b->csv);
}

/* Measures one row (a plan on host data) and prints it; returns 0 if it failed. */
static int sort_row(const cli_family_bench *b, clscan_sort_plan *plan, clscan_sort_algorithm asked,
                    cli_sort_data *h, cli_sort_dist dist, int pairs, int log2n) {
  const char *kind = pairs ? "pairs" : "keys", *type = clscan_type_name(h->desc.key_type);
  char algo[32], label[96];
  algo_column(asked, plan, algo, sizeof algo);
  snprintf(label, sizeof label, "sort %s %s %s %s n=2^%d", kind, cli_sort_dist_name(dist), algo,
           type, log2n);
  double ms = 0;
  cli_timing t = cli_sort_measure(b->ctx, plan, h, pairs, b->reps, label, &ms);
  printf("%-5s %-7s %-14s %-7s 2^%-3d ", kind, cli_sort_dist_name(dist), algo, type, log2n);
  if (t != CLI_TIMED) {
    printf("%s\n",
           t == CLI_WRONG ? "WRONG RESULT (no time reported)" : "FAILED (no time reported)");
    fflush(stdout);
    return 0;
  }
  double keys_per_s = ms > 0 ? (double)h->n / (ms * 1e-3) : 0;
  const double cub_ms = cli_cub_sort_ms(b->cub, pairs, type, cli_sort_dist_name(dist), log2n);
  printf("%11.4f %10.3f %10.3f", ms, keys_per_s * 1e-9, h->host_ms);
  cub_column(b, cub_ms, ms);
  fflush(stdout);
  if (b->csv) {
    cli_csv_text(b->csv, b->device_name);
    fprintf(b->csv, ",%s,%s,%s,%s,%llu,%.6g,%.6g,%.6g", algo, type, pairs ? "uint32" : "",
            cli_sort_dist_name(dist), 1ull << log2n, ms, keys_per_s, h->host_ms);
    cub_csv(b, cub_ms);
    fflush(b->csv);
  }
  return 1;
}

/* Measures every distribution, kind and algorithm of one type at n = 2^log2n. */
static int sort_size(const cli_family_bench *b, clscan_type type, int log2n, sort_plans plans) {
  int ok = 1;
  for (int dist = 0; dist < CLI_SORT_DIST_COUNT; dist++) {
    int narrow = dist == CLI_SORT_NARROW;
    clscan_sort_desc d = row_desc(type, CLSCAN_SORT_AUTO, 0, narrow);
    cli_sort_data h;
    if (!cli_sort_data_init(&h, &d, (cli_sort_dist)dist, (size_t)1 << log2n, b->seed)) {
      cli_sort_data_free(&h);
      return 0;
    }
    for (int pairs = 0; pairs < 2; pairs++) {
      for (int a = 0; a < b->sort_algo_count; a++) {
        clscan_sort_plan *plan = plans[a][pairs][narrow];
        if (plan)
          ok = sort_row(b, plan, b->sort_algos[a], &h, (cli_sort_dist)dist, pairs, log2n) && ok;
      }
    }
    cli_sort_data_free(&h);
  }
  return ok;
}

void cli_bench_sort_header(const cli_family_bench *b) {
  printf(
      "family:  sort, ascending: keys, and pairs of keys and uint32 index values; keys uniform\n"
      "         (random bits), few (%d distinct random keys), sorted (ascending already) and\n"
      "         narrow (random in the low half of the ordered bits, sorted on those bits only)\n",
      FEW_KEYS);
  printf(
      "check:   keys and values byte for byte against a host radix sort (itself checked against\n"
      "         the reference's qsort up to 2^20 keys), before and after timing\n");
  printf(
      "time:    from a marker enqueued after the unsorted keys are restored to the sort's end;\n"
      "         median of %d runs after %d warm-ups; host ms: the single-threaded host radix "
      "sort\n",
      b->reps, CLI_WARMUPS);
  if (b->cub)
    printf(
        "cub:     of CUB = CUB's time / this time (CUB's rate is 1; above 1 is faster), from the\n"
        "         verified sort of the same kind, key type, distribution and n in --cub's file\n"
        "         (tools/bench/cub_bench; its keys are other random keys); -: none there\n");
  printf("\n%-5s %-7s %-14s %-7s %-5s %11s %10s %10s", "kind", "keys", "algorithm", "type", "n",
         "median ms", "G keys/s", "host ms");
  if (b->cub)
    printf(" %8s", "of CUB");
  printf("\n");
  if (b->csv) {
    fputs("device,algo,key_type,value_type,distribution,n,ms,keys_per_s,host_ms", b->csv);
    fputs(b->cub ? ",cub_ms\n" : "\n", b->csv);
    fflush(b->csv);
  }
}

int cli_bench_sort(const cli_family_bench *b) {
  cl_device_id device = clscan_context_device(b->ctx);
  int ok = 1;
  for (int i = 0; i < b->type_count; i++) {
    clscan_type type = b->types[i];
    int max = cli_family_max_log2(b, type, 22, cli_sort_max_log2(device, clscan_type_size(type)));
    sort_plans plans;
    ok = create_sort_plans(b, type, plans) && ok;
    for (int k = b->min_log2; k <= max; k++)
      ok = sort_size(b, type, k, plans) && ok;
    release_sort_plans(plans);
  }
  return ok;
}
