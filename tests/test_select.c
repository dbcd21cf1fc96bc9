/*
 * clscan tests: selections (select, partition, unique, run-length encoding) against the host
 * reference of tests/reference/ref_select.h.
 *
 * A case is one selection of generated data: its operation, element type (built-in, or the user
 * types and maps below), how elements are selected (flags, predicate, runs), the pattern of the
 * selection (none, all, alternating, a random fraction, runs of a mean length), the algorithm and
 * single-pass shape, the forced fallback (CLSCAN_TEST_WITHHOLD), n, offsets, output capacity and
 * count size. Each run poisons the output, length and count buffers, and then checks every result,
 * the true count, and that nothing past min(count, capacity) was written (guards).
 *
 * Groups (one CTest test each): `sizes` (tile boundaries of both shapes), `types` (every built-in
 * type, flags and predicate), `runs` (unique and run-length encoding), `user` (user types, maps,
 * predicates, equalities), `algorithms` (multi-pass paths and shapes, the fallback), `edges`
 * (capacities, offsets, count size, n = 0, host variant), `tiles` (the GPU shape at several tile
 * geometries, around their tile sizes), `large` (millions of elements, and the
 * time of a sequential host loop against the device), `errors` (every bad-input status).
 */
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "ref_select.h"
#include "test_util.h"

/* ============================================================================================== */
/* Cases                                                                                          */
/* ============================================================================================== */

/* How elements are chosen. */
typedef enum pattern {
  P_RANDOM = 0, /* each with probability pct / 100 */
  P_NONE,
  P_ALL,
  P_ALTERNATE,
  P_RUNS /* runs of equal values of mean length `mean` (unique, rle; also the data of others) */
} sel_pattern;

/* Element kinds beyond the built-in types. */
typedef enum kind {
  K_BUILTIN = 0,
  K_USER,   /* struct pair { int k; float w; }, equality and predicate on k */
  K_MAP,    /* int32 in, int64 out: x * 3 + i % 2 (predicate and equality on the mapped value) */
  K_FLOAT2, /* float2, an OpenCL built-in vector, with equal_source */
} kind;

typedef struct sel_case {
  clscan_select_op op;
  clscan_type type; /* K_BUILTIN */
  kind kind;
  int by_pred; /* SELECT, PARTITION: predicate instead of flags */
  sel_pattern pattern;
  unsigned pct, mean;
  clscan_algorithm algorithm;
  int shape;                  /* 0 default, 1 GPU (CLSCAN_SINGLE_PASS_CPU=0), 2 CPU */
  unsigned withhold;          /* CLSCAN_TEST_WITHHOLD */
  unsigned tile_wg, tile_vpt; /* CLSCAN_TILE_WG, CLSCAN_TILE_VPT (the GPU shape's tile); 0: unset */
  size_t n, in_off, flags_off, out_off, len_off, count_off;
  long cap_delta; /* capacity = n + cap_delta (clamped at 0) */
  size_t count_size;
  int host;  /* clscan_select_host (clscan_partition_copy_host) instead of the device path */
  int split; /* PARTITION into two buffers: the rejected ones at len_off of their own, both of
                the capacity */
  uint64_t seed;
} sel_case;

typedef struct pair {
  int32_t k;
  float w;
} pair;

static const char *const pair_source = "typedef struct pair { int k; float w; } pair;";

static void describe(const sel_case *c, char *buf, size_t cap) {
  snprintf(buf, cap,
           "op %d type %s kind %d pred %d pattern %d pct %u mean %u algo %s shape %d withhold %u "
           "tile %ux%u n %zu offs %zu/%zu/%zu/%zu/%zu capdelta %ld count_size %zu host %d split %d "
           "seed %" PRIu64,
           (int)c->op, clscan_type_name(c->type), (int)c->kind, c->by_pred, (int)c->pattern, c->pct,
           c->mean, clscan_algorithm_name(c->algorithm), c->shape, c->withhold, c->tile_wg,
           c->tile_vpt, c->n, c->in_off, c->flags_off, c->out_off, c->len_off, c->count_off,
           c->cap_delta, c->count_size, c->host, c->split, c->seed);
}

/* The input element type of a case, and its size. */
static clscan_type in_type(const sel_case *c) {
  switch (c->kind) {
    case K_BUILTIN:
      return c->type;
    case K_MAP:
      return CLSCAN_INT32;
    default:
      return CLSCAN_USER_TYPE;
  }
}

static size_t in_size(const sel_case *c) {
  if (c->kind == K_USER)
    return sizeof(pair);
  if (c->kind == K_FLOAT2)
    return 8;
  return clscan_type_size(in_type(c));
}

static size_t out_size(const sel_case *c) {
  return c->kind == K_MAP ? 8 : in_size(c);
}

/* Stores the small integer v as element i of a built-in type. */
static void set_builtin(clscan_type t, void *p, size_t i, int64_t v) {
  switch (t) {
    case CLSCAN_INT32:
    case CLSCAN_UINT32:
      ((int32_t *)p)[i] = (int32_t)v;
      break;
    case CLSCAN_INT64:
    case CLSCAN_UINT64:
      ((int64_t *)p)[i] = v;
      break;
    case CLSCAN_FLOAT:
      ((float *)p)[i] = (float)v;
      break;
    case CLSCAN_DOUBLE:
      ((double *)p)[i] = (double)v;
      break;
    case CLSCAN_INT8:
    case CLSCAN_UINT8:
      ((int8_t *)p)[i] = (int8_t)v;
      break;
    case CLSCAN_HALF: /* the small integers are exact halves */
      ((uint16_t *)p)[i] = clscan_ref_half_from_double((double)v);
      break;
    default:
      ((int16_t *)p)[i] = (int16_t)v;
      break;
  }
}

/* Generates the small integers behind the data: runs (P_RUNS) or random values in [0, 100). */
static void gen_values(const sel_case *c, int64_t *v) {
  uint64_t s = c->seed;
  int64_t run_value = 1;
  size_t left = 0;
  for (size_t i = 0; i < c->n; i++) {
    if (c->pattern == P_RUNS) {
      if (left == 0) {
        left = tu_random_size(&s, 1, 2 * (size_t)(c->mean ? c->mean : 1) - 1);
        run_value = (run_value % 7) + 1; /* differs from the previous run's value */
        if (tu_random_size(&s, 0, 1))
          run_value = (run_value % 7) + 1;
      }
      left--;
      v[i] = run_value;
    } else {
      v[i] = (int64_t)tu_random_size(&s, 0, 99);
    }
  }
}

/* Fills the input (n elements of in_type) and the mapped values (out) from the integers. */
static void make_data(const sel_case *c, const int64_t *v, void *in, void *mapped) {
  for (size_t i = 0; i < c->n; i++) {
    switch (c->kind) {
      case K_BUILTIN:
        set_builtin(c->type, in, i, v[i]);
        set_builtin(c->type, mapped, i, v[i]);
        break;
      case K_USER: {
        pair p = {(int32_t)v[i], (float)(i % 5)};
        ((pair *)in)[i] = p;
        ((pair *)mapped)[i] = p;
        break;
      }
      case K_FLOAT2: {
        float f[2] = {(float)v[i], (float)(v[i] % 3)};
        memcpy((char *)in + 8 * i, f, 8);
        memcpy((char *)mapped + 8 * i, f, 8);
        break;
      }
      case K_MAP:
        ((int32_t *)in)[i] = (int32_t)v[i];
        // Runs keep their equality under the map only without the index term.
        ((int64_t *)mapped)[i] = v[i] * 3 + (c->op >= CLSCAN_UNIQUE ? 0 : (int64_t)(i % 2));
        break;
    }
  }
}

/* The predicate's host twin: the same test on the generating integer and the index. */
static int pred_host(const sel_case *c, int64_t v, size_t i) {
  if (c->kind == K_MAP)
    return ((v * 3 + (int64_t)(i % 2)) % 4) < 2;
  if (c->kind == K_USER)
    return v > 40;
  return ((v + (int64_t)i) & 1) == 0;
}

/* Fills the descriptor of a case. */
static void make_desc(const sel_case *c, clscan_select_desc *d) {
  memset(d, 0, sizeof *d);
  d->op = c->op;
  d->algorithm = c->algorithm;
  d->count_size = c->count_size;
  int runs = c->op >= CLSCAN_UNIQUE;
  switch (c->kind) {
    case K_BUILTIN:
      d->type = c->type;
      if (c->by_pred)
        d->predicate_source = "(((long)x + (long)i) & 1) == 0";
      break;
    case K_USER:
      d->type = CLSCAN_USER_TYPE;
      d->type_name = "pair";
      d->type_source = pair_source;
      d->type_size = sizeof(pair);
      if (c->by_pred)
        d->predicate_source = "{ return x.k > 40; }";
      if (runs)
        d->equal_source = "a.k == b.k && a.w == b.w";
      break;
    case K_FLOAT2:
      d->type = CLSCAN_USER_TYPE;
      d->type_name = "float2";
      d->type_size = 8;
      if (c->by_pred)
        d->predicate_source = "((long)x.x + (long)i) % 2 == 0";
      if (runs)
        d->equal_source = "a.x == b.x && a.y == b.y";
      break;
    case K_MAP:
      d->type = CLSCAN_INT32;
      d->out_type = CLSCAN_OUT_INT64;
      d->map_source = runs ? "(long)x * 3" : "(long)x * 3 + (long)(i % 2)";
      if (c->by_pred)
        d->predicate_source = "(x % 4) < 2";
      break;
  }
}

/* Twin of the K_FLOAT2 predicate. */
static int pred_float2(int64_t v, size_t i) {
  return (v + (int64_t)i) % 2 == 0;
}

/* The selection flags (or predicate results) of a case. */
static void make_sel(const sel_case *c, const int64_t *v, unsigned char *flags,
                     unsigned char *sel) {
  uint64_t s = tu_mix(c->seed, 77);
  for (size_t i = 0; i < c->n; i++) {
    unsigned char f;
    switch (c->pattern) {
      case P_NONE:
        f = 0;
        break;
      case P_ALL:
        f = (unsigned char)(1 + i % 255);
        break;
      case P_ALTERNATE:
        f = (unsigned char)(i % 2 ? 0 : 3);
        break;
      default:
        f = tu_random_size(&s, 0, 99) < c->pct ? (unsigned char)(1 + (i % 7)) : 0;
        break;
    }
    flags[i] = f;
    if (c->by_pred)
      sel[i] = (unsigned char)(c->kind == K_FLOAT2 ? pred_float2(v[i], i) : pred_host(c, v[i], i));
    else
      sel[i] = f != 0;
  }
}

/* The reference's element type for built-in equality. */
static clscan_type ref_type(const sel_case *c) {
  return c->kind == K_MAP ? CLSCAN_INT64 : c->kind == K_BUILTIN ? c->type : CLSCAN_USER_TYPE;
}

static int pair_equal(const void *a, const void *b) {
  const pair *x = a, *y = b;
  return x->k == y->k && x->w == y->w;
}

static int float2_equal(const void *a, const void *b) {
  const float *x = a, *y = b;
  return x[0] == y[0] && x[1] == y[1];
}

/* ============================================================================================== */
/* Running a case                                                                                 */
/* ============================================================================================== */

/* Everything a case allocates on the host. */
typedef struct case_data {
  int64_t *v;
  unsigned char *in, *mapped, *flags, *sel, *expect, *got, *got_len;
  unsigned char *got_rej; /* split: the rejected buffer's elements */
  uint64_t *expect_len;
} case_data;

static void case_data_free(case_data *d) {
  free(d->v);
  free(d->in);
  free(d->mapped);
  free(d->flags);
  free(d->sel);
  free(d->expect);
  free(d->got);
  free(d->got_len);
  free(d->got_rej);
  free(d->expect_len);
}

/* The environment switches a case sets. */
#define CASE_ENV 4

/* Sets the environment switches a case needs (read at plan creation). */
static void case_env(const sel_case *c, tu_env_saved saved[CASE_ENV]) {
  char w[32], wg[256] = "", vpt[256] = "";
  const char *old_wg = getenv("CLSCAN_TILE_WG"), *old_vpt = getenv("CLSCAN_TILE_VPT");
  snprintf(w, sizeof w, "%u", c->withhold);
  if (c->tile_wg)
    snprintf(wg, sizeof wg, "%u", c->tile_wg);
  else if (old_wg)
    snprintf(wg, sizeof wg, "%s", old_wg);
  if (c->tile_vpt)
    snprintf(vpt, sizeof vpt, "%u", c->tile_vpt);
  else if (old_vpt)
    snprintf(vpt, sizeof vpt, "%s", old_vpt);
  tu_env_set("CLSCAN_TEST_WITHHOLD", c->withhold ? w : NULL, &saved[0]);
  tu_env_set("CLSCAN_SINGLE_PASS_CPU", c->shape == 0 ? NULL : c->shape == 1 ? "0" : "1", &saved[1]);
  // Unset fields leave the variables as they are (test_select_oclgrind.c sets CLSCAN_TILE_WG).
  tu_env_set("CLSCAN_TILE_WG", c->tile_wg || old_wg ? wg : NULL, &saved[2]);
  tu_env_set("CLSCAN_TILE_VPT", c->tile_vpt || old_vpt ? vpt : NULL, &saved[3]);
}

/* Restores what case_env() set. */
static void case_env_restore(tu_env_saved saved[CASE_ENV]) {
  for (int i = CASE_ENV - 1; i >= 0; i--)
    tu_env_restore(&saved[i]);
}

/* Compares results with the reference; returns 1 if they match, else 0 with msg. */
static int compare(const sel_case *c, const case_data *d, uint64_t want, uint64_t got_count,
                   size_t cap, size_t lsize, char *msg, size_t mcap) {
  size_t os = out_size(c);
  if (got_count != want) {
    snprintf(msg, mcap, "count %" PRIu64 ", expected %" PRIu64, got_count, want);
    return 0;
  }
  size_t m = c->op == CLSCAN_PARTITION && !c->split ? c->n : (want < cap ? (size_t)want : cap);
  if (c->split) {
    // The rejected ones follow the selected ones in the reference.
    size_t mr = c->n - want < cap ? c->n - (size_t)want : cap;
    for (size_t k = 0; k < mr; k++) {
      if (memcmp(d->got_rej + k * os, d->expect + (want + k) * os, os) != 0) {
        snprintf(msg, mcap, "rejected element %zu of %zu differs", k, mr);
        return 0;
      }
    }
  }
  for (size_t k = 0; k < m; k++) {
    if (memcmp(d->got + k * os, d->expect + k * os, os) != 0) {
      snprintf(msg, mcap, "element %zu of %zu differs", k, m);
      return 0;
    }
    if (c->op == CLSCAN_RUN_LENGTH_ENCODE) {
      uint64_t l = 0;
      memcpy(&l, d->got_len + k * lsize, lsize);
      if (l != d->expect_len[k]) {
        snprintf(msg, mcap, "length %zu is %" PRIu64 ", expected %" PRIu64, k, l, d->expect_len[k]);
        return 0;
      }
    }
  }
  return 1;
}

/* Split partitions: reads the rejected buffer's elements into d->got_rej and checks that nothing
 * outside its first min(n - count, cap) elements was written (back: scratch of rej_bytes). */
static int rejected_guards(clscan_context *ctx, const sel_case *c, cl_mem rej, size_t rej_bytes,
                           size_t cap, uint64_t count, unsigned char *back, case_data *d, char *msg,
                           size_t mcap) {
  size_t os = out_size(c);
  if (count > c->n) {
    snprintf(msg, mcap, "count %" PRIu64 " exceeds n %zu", count, c->n);
    return 0;
  }
  size_t mr = c->n - count < cap ? c->n - (size_t)count : cap;
  if (!tu_read(ctx, NULL, rej, c->len_off * os, cap * os, d->got_rej) ||
      !tu_read(ctx, NULL, rej, 0, rej_bytes, back)) {
    snprintf(msg, mcap, "read failed");
    return 0;
  }
  if (!tu_all_bytes(back, c->len_off * os, TU_POISON) ||
      !tu_all_bytes(back + (c->len_off + mr) * os, (cap - mr + TU_GUARD) * os, TU_POISON)) {
    snprintf(msg, mcap, "rejected buffer written outside [0, %zu)", mr);
    return 0;
  }
  return 1;
}

/* Runs the device path: buffers with offsets and guards, enqueue, read back, check guards. */
static int run_device(clscan_context *ctx, const sel_case *c, const clscan_select_desc *desc,
                      case_data *d, size_t cap, uint64_t *count, char *msg, size_t mcap) {
  size_t is = in_size(c), os = out_size(c), cs = c->count_size ? c->count_size : 8;
  size_t in_bytes = (c->in_off + c->n) * is + 1, fl_bytes = c->flags_off + c->n + 1;
  size_t out_bytes = (c->out_off + cap + TU_GUARD) * os;
  size_t len_bytes = (c->len_off + cap + TU_GUARD) * cs, cnt_bytes = (c->count_off + 2) * cs;
  int ok = 0, rle = c->op == CLSCAN_RUN_LENGTH_ENCODE;
  clscan_select_plan *plan = NULL;
  cl_event done = NULL;
  cl_mem in = tu_buffer(ctx, CL_MEM_READ_ONLY, in_bytes);
  cl_mem fl = tu_buffer(ctx, CL_MEM_READ_ONLY, fl_bytes);
  cl_mem out = tu_buffer(ctx, CL_MEM_READ_WRITE, out_bytes);
  cl_mem len = tu_buffer(ctx, CL_MEM_READ_WRITE, len_bytes);
  cl_mem cnt = tu_buffer(ctx, CL_MEM_READ_WRITE, cnt_bytes);
  // Split: the rejected buffer, as large as the output (the same capacity, at len_off).
  size_t rej_bytes = (c->len_off + cap + TU_GUARD) * os;
  cl_mem rej = c->split ? tu_buffer(ctx, CL_MEM_READ_WRITE, rej_bytes) : NULL;
  size_t most = out_bytes > len_bytes ? out_bytes : len_bytes;
  most = most > rej_bytes ? most : rej_bytes;
  unsigned char *poison = malloc(most);
  unsigned char *back = malloc(most);
  if (!in || !fl || !out || !len || !cnt || (c->split && !rej) || !poison || !back) {
    snprintf(msg, mcap, "allocation failed");
    goto done;
  }
  memset(poison, TU_POISON, most);
  // Inputs are written whole, their bytes outside the range filled (Oclgrind 21.10 marks only
  // part of a write at an offset as initialised).
  unsigned char *staged = malloc(in_bytes > fl_bytes ? in_bytes : fl_bytes);
  if (!staged) {
    snprintf(msg, mcap, "allocation failed");
    goto done;
  }
  memset(staged, TU_INPUT_FILL, in_bytes);
  memcpy(staged + c->in_off * is, d->in, c->n * is);
  int wrote = tu_write(ctx, NULL, in, 0, in_bytes, staged);
  memset(staged, 0, fl_bytes);
  memcpy(staged + c->flags_off, d->flags, c->n);
  wrote = wrote && tu_write(ctx, NULL, fl, 0, fl_bytes, staged);
  free(staged);
  if (!wrote || !tu_write(ctx, NULL, out, 0, out_bytes, poison) ||
      !tu_write(ctx, NULL, len, 0, len_bytes, poison) ||
      !tu_write(ctx, NULL, cnt, 0, cnt_bytes, poison) ||
      (rej && !tu_write(ctx, NULL, rej, 0, rej_bytes, poison))) {
    snprintf(msg, mcap, "write failed");
    goto done;
  }
  tu_env_saved saved[CASE_ENV];
  case_env(c, saved);
  clscan_status st = clscan_select_plan_create(ctx, desc, &plan);
  case_env_restore(saved);
  if (st != CLSCAN_SUCCESS) {
    snprintf(msg, mcap, "plan: %s (%s)", clscan_status_string(st), clscan_last_error_detail());
    goto done;
  }
  int by_flags = c->op <= CLSCAN_PARTITION && !c->by_pred;
  const clscan_select_buffers b = {.in = in,
                                   .in_offset = c->in_off,
                                   .flags = by_flags ? fl : NULL,
                                   .flags_offset = c->flags_off,
                                   .out = out,
                                   .out_offset = c->out_off,
                                   .out_capacity = cap,
                                   .lengths = rle ? len : NULL,
                                   .lengths_offset = c->len_off,
                                   .count = cnt,
                                   .count_offset = c->count_off,
                                   .rejected = rej,
                                   .rejected_offset = c->len_off,
                                   .rejected_capacity = cap};
  st = clscan_select_enqueue(plan, NULL, &b, c->n, 0, NULL, &done);
  if (st != CLSCAN_SUCCESS) {
    snprintf(msg, mcap, "enqueue: %s (%s)", clscan_status_string(st), clscan_last_error_detail());
    goto done;
  }
  if (!tu_event_complete(done, "done", msg, mcap))
    goto done;
  *count = 0;
  if (!tu_read(ctx, NULL, cnt, c->count_off * cs, cs, count) ||
      !tu_read(ctx, NULL, out, c->out_off * os, cap * os, d->got) ||
      !tu_read(ctx, NULL, len, c->len_off * cs, cap * cs, d->got_len)) {
    snprintf(msg, mcap, "read failed");
    goto done;
  }
  // Guards: nothing past min(count, cap) (partition into one buffer: n), nor around the count.
  size_t m = c->op == CLSCAN_PARTITION && !c->split ? c->n : (*count < cap ? (size_t)*count : cap);
  if (rej && !rejected_guards(ctx, c, rej, rej_bytes, cap, *count, back, d, msg, mcap))
    goto done;
  if (!tu_read(ctx, NULL, out, 0, out_bytes, back) ||
      !tu_all_bytes(back, c->out_off * os, TU_POISON) ||
      !tu_all_bytes(back + (c->out_off + m) * os, (cap - m + TU_GUARD) * os, TU_POISON)) {
    snprintf(msg, mcap, "output written outside [0, %zu)", m);
    goto done;
  }
  size_t lm = rle ? m : 0;
  if (!tu_read(ctx, NULL, len, 0, len_bytes, back) ||
      !tu_all_bytes(back, c->len_off * cs, TU_POISON) ||
      !tu_all_bytes(back + (c->len_off + lm) * cs, (cap - lm + TU_GUARD) * cs, TU_POISON)) {
    snprintf(msg, mcap, "lengths written outside [0, %zu)", lm);
    goto done;
  }
  if (!tu_read(ctx, NULL, cnt, 0, cnt_bytes, back) ||
      !tu_all_bytes(back, c->count_off * cs, TU_POISON) ||
      !tu_all_bytes(back + (c->count_off + 1) * cs, cs, TU_POISON)) {
    snprintf(msg, mcap, "count written outside its element");
    goto done;
  }
  ok = 1;
done:
  if (done)
    clReleaseEvent(done);
  clscan_select_plan_release(plan);
  cl_mem all[] = {in, fl, out, len, cnt, rej};
  for (size_t i = 0; i < 6; i++) {
    if (all[i])
      clReleaseMemObject(all[i]);
  }
  free(poison);
  free(back);
  return ok;
}

/* Runs and checks one case; returns 1 on success, else 0 with the reason in msg. */
static int run_case(const sel_case *c, char *msg, size_t mcap) {
  clscan_context *ctx = tu_context();
  size_t n = c->n, is = in_size(c), os = out_size(c), cs = c->count_size ? c->count_size : 8;
  long capl = (long)n + c->cap_delta;
  size_t cap = capl < 0 ? 0 : (size_t)capl;
  case_data d = {0};
  d.v = calloc(n + 1, sizeof *d.v);
  d.in = calloc(n + 1, is);
  d.mapped = calloc(n + 1, os);
  d.flags = calloc(n + 1, 1);
  d.sel = calloc(n + 1, 1);
  // Split partitions compare against the whole reference (selected, then rejected).
  size_t ref_cap = c->split ? n : cap;
  d.expect = calloc((ref_cap > cap ? ref_cap : cap) + 1, os);
  d.got = calloc(cap + 1, os);
  d.got_len = calloc(cap + 1, cs);
  d.got_rej = calloc(cap + 1, os);
  d.expect_len = calloc(cap + 1, sizeof *d.expect_len);
  int ok = 0;
  if (!d.v || !d.in || !d.mapped || !d.flags || !d.sel || !d.expect || !d.got || !d.got_len ||
      !d.got_rej || !d.expect_len) {
    snprintf(msg, mcap, "host allocation failed");
    goto done;
  }
  gen_values(c, d.v);
  make_data(c, d.v, d.in, d.mapped);
  make_sel(c, d.v, d.flags, d.sel);
  if (c->op >= CLSCAN_UNIQUE) {
    clscan_ref_equal_fn eq = c->kind == K_USER     ? pair_equal
                             : c->kind == K_FLOAT2 ? float2_equal
                                                   : NULL;
    clscan_ref_heads(ref_type(c), eq, d.mapped, os, n, d.sel);
  }
  uint64_t want = clscan_ref_select(c->op, d.mapped, os, d.sel, n, d.expect, d.expect_len, ref_cap);
  clscan_select_desc desc;
  make_desc(c, &desc);
  uint64_t count = 0;
  if (c->host) {
    tu_env_saved saved[CASE_ENV];
    case_env(c, saved);
    int by_flags = c->op <= CLSCAN_PARTITION && !c->by_pred;
    const unsigned char *fl = by_flags ? d.flags : NULL;
    clscan_status st =
        c->split
            ? clscan_partition_copy_host(ctx, &desc, d.in, fl, n, d.got, cap, d.got_rej, cap,
                                         &count)
            : clscan_select_host(ctx, &desc, d.in, fl, n, d.got,
                                 c->op == CLSCAN_RUN_LENGTH_ENCODE ? d.got_len : NULL, cap, &count);
    case_env_restore(saved);
    if (st != CLSCAN_SUCCESS) {
      snprintf(msg, mcap, "host: %s (%s)", clscan_status_string(st), clscan_last_error_detail());
      goto done;
    }
  } else if (!run_device(ctx, c, &desc, &d, cap, &count, msg, mcap)) {
    goto done;
  }
  ok = compare(c, &d, want, count, cap, cs, msg, mcap);
done:
  case_data_free(&d);
  return ok;
}

/* A case with defaults: int32 select by flags, half selected, AUTO, capacity n. */
static sel_case base_case(clscan_select_op op, size_t n) {
  sel_case c = {.op = op, .type = CLSCAN_INT32, .pct = 50, .mean = 4, .n = n};
  c.seed = tu_mix(tu_seed(), (uint64_t)n * 31 + (uint64_t)op);
  if (op >= CLSCAN_UNIQUE)
    c.pattern = P_RUNS;
  return c;
}

/* ============================================================================================== */
/* Groups                                                                                         */
/* ============================================================================================== */

static const clscan_select_op all_ops[] = {CLSCAN_SELECT, CLSCAN_PARTITION, CLSCAN_UNIQUE,
                                           CLSCAN_RUN_LENGTH_ENCODE};

/* test_select_oclgrind.c includes this file with TEST_SELECT_NO_MAIN for the cases above. */
#ifndef TEST_SELECT_NO_MAIN

/* Returns 1 if the device runs a descriptor's type; a device that lacks it (fp64: rusticl's
 * llvmpipe) must refuse it with CLSCAN_UNSUPPORTED_BY_DEVICE, and the cases that need it are left
 * out. */
static int device_runs(clscan_scan_desc d) {
  const clscan_status st = clscan_context_supports(tu_context(), &d);
  if (st != CLSCAN_UNSUPPORTED_BY_DEVICE)
    assert_int_equal(st, CLSCAN_SUCCESS);
  return st == CLSCAN_SUCCESS;
}

/* Checks that the device runs the selections' single pass when it is asked for: every device
 * does, with 32-bit status words where 64-bit atomics are missing (rusticl's llvmpipe refused it
 * with CLSCAN_UNSUPPORTED_BY_DEVICE before it had them). */
static void expect_single_pass(void) {
  const clscan_select_desc d = {.op = CLSCAN_SELECT, .algorithm = CLSCAN_ALGO_SINGLE_PASS};
  clscan_select_plan *plan = NULL;
  const clscan_status st = clscan_select_plan_create(tu_context(), &d, &plan);
  clscan_select_plan_release(plan);
  if (st != CLSCAN_SUCCESS)
    fail_msg("a single-pass selection plan on %s (%s 64-bit atomics): %s (%s)", tu_device_name(),
             tu_device_has_int64_atomics() ? "with" : "without", clscan_status_string(st),
             clscan_last_error_detail());
}

/* Runs a case under cmocka: fails with its description. */
static void check_case(const sel_case *c) {
  char what[512], msg[512] = "";
  describe(c, what, sizeof what);
  tu_progress(what);
  if (!run_case(c, msg, sizeof msg))
    fail_msg("%s: %s", what, msg);
}

/* Sizes around the tiles of both shapes (GPU tiles of 4096 with 256 work-items; CPU tiles of
 * the tuning's cpu_tile), for every operation and partition into two buffers. */
static void test_sizes(void **state) {
  (void)state;
  const size_t sizes[] = {1,    2,     3,     255,   4095,  4096,  4097,  8191,
                          8192, 12289, 32767, 32768, 32769, 65537, 100003};
  for (int shape = 1; shape <= 2; shape++) {
    for (size_t o = 0; o < 4; o++) {
      for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        sel_case c = base_case(all_ops[o], sizes[s]);
        c.shape = shape;
        check_case(&c);
      }
    }
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
      sel_case c = base_case(CLSCAN_PARTITION, sizes[s]); /* into two buffers */
      c.split = 1;
      c.by_pred = s % 2;
      c.shape = shape;
      check_case(&c);
    }
  }
}

/* The GPU shape's tiles at several geometries (CLSCAN_TILE_WG x CLSCAN_TILE_VPT; int32 keeps 4
 * elements per vector, at most 32 per work-item): lane groups of fewer than 32 work-items, one
 * warp, two and eight lane groups per work-group, elements per work-item not a power of two, at
 * sizes around the tile (tile - 1, tile, tile + 1, 2 tiles + 3), with no, half and every element
 * selected (a full tile staged entirely as selected, or as rejected for partition), runs of mean
 * length 1 and 64, and the fallback forced for half selected; all with vector loads (offset 0),
 * and at 2 tiles + 3 with half selected also with the scalar loads (input offset 1). NVIDIA
 * refuses work-groups below 32 work-items, so GPUs skip the first geometry. */
static void test_tiles(void **state) {
  (void)state;
  const struct geometry { unsigned wg, vpt; } geo[] = {{8, 1}, {32, 3}, {64, 8}, {256, 2}};
  for (size_t g = tu_device_is_cpu() ? 0 : 1; g < sizeof geo / sizeof geo[0]; g++) {
    const size_t items = geo[g].vpt * 4 > 32 ? 32 : geo[g].vpt * 4, tile = geo[g].wg * items;
    const size_t sizes[] = {tile - 1, tile, tile + 1, 2 * tile + 3};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
      for (int op = 0; op < 5; op++) {
        for (int level = 0; level < 3; level++) {
          sel_case c = base_case(op == 4 ? CLSCAN_SELECT : all_ops[op], sizes[s]);
          c.by_pred = op == 4;
          c.shape = 1;
          c.tile_wg = geo[g].wg;
          c.tile_vpt = geo[g].vpt;
          if (c.op >= CLSCAN_UNIQUE) {
            if (level == 2)
              continue;
            c.mean = level == 0 ? 1 : 64;
          } else {
            c.pattern = level == 0 ? P_NONE : level == 1 ? P_RANDOM : P_ALL;
          }
          check_case(&c);
          if (level == 1) {
            c.withhold = 3;
            check_case(&c);
          }
          if (level == 1 && s == 3) { /* the scalar loads (an offset of no whole vector) */
            c.in_off = 1;
            check_case(&c);
          }
        }
      }
    }
  }
}

/* Every built-in type: every operation in the CPU shape (select and partition by flags and by
 * predicate), and in the GPU shape select by predicate, partition by flags and run-length
 * encoding (each program is a build, so the matrix is kept to what differs per type). */
static void test_types(void **state) {
  (void)state;
  static const struct {
    clscan_select_op op;
    int pred, shape;
  } cells[] = {
      {CLSCAN_SELECT, 0, 2},
      {CLSCAN_SELECT, 1, 2},
      {CLSCAN_PARTITION, 1, 2},
      {CLSCAN_UNIQUE, 0, 2},
      {CLSCAN_RUN_LENGTH_ENCODE, 0, 2},
      {CLSCAN_SELECT, 1, 1},
      {CLSCAN_PARTITION, 0, 1},
      {CLSCAN_RUN_LENGTH_ENCODE, 0, 1},
  };
  for (int t = 0; t < CLSCAN_TYPE_COUNT; t++) {
    if (!device_runs((clscan_scan_desc){.type = (clscan_type)t}))
      continue;
    for (size_t i = 0; i < sizeof cells / sizeof cells[0]; i++) {
      sel_case c = base_case(cells[i].op, 20011);
      c.type = (clscan_type)t;
      c.by_pred = cells[i].pred;
      c.shape = cells[i].shape;
      check_case(&c);
    }
    for (int shape = 1; shape <= 2; shape++) { /* partition into two buffers */
      sel_case c = base_case(CLSCAN_PARTITION, 20011);
      c.type = (clscan_type)t;
      c.by_pred = shape == 2;
      c.shape = shape;
      c.split = 1;
      check_case(&c);
    }
  }
}

/* Selection patterns: none, all, alternating, random fractions; runs of 1, n and random. */
static void test_patterns(void **state) {
  (void)state;
  const unsigned pcts[] = {0, 1, 10, 50, 90, 99, 100};
  for (int shape = 1; shape <= 2; shape++) {
    for (int op = 0; op < 2; op++) {
      for (int p = P_NONE; p <= P_ALTERNATE; p++) {
        sel_case c = base_case(all_ops[op], 50001);
        c.pattern = (sel_pattern)p;
        c.shape = shape;
        check_case(&c);
      }
      for (size_t i = 0; i < sizeof pcts / sizeof pcts[0]; i++) {
        sel_case c = base_case(all_ops[op], 50001);
        c.pct = pcts[i];
        c.shape = shape;
        check_case(&c);
      }
    }
    const unsigned means[] = {1, 2, 4, 100, 5000, 200000};
    for (int op = 2; op < 4; op++) {
      for (size_t i = 0; i < sizeof means / sizeof means[0]; i++) {
        sel_case c = base_case(all_ops[op], 70001);
        c.mean = means[i];
        c.shape = shape;
        check_case(&c);
      }
    }
  }
}

/* User types, built-in vector types, maps; predicates and equalities: every kind in the CPU
 * shape, the struct in the GPU shape too. */
static void test_user(void **state) {
  (void)state;
  const kind kinds[] = {K_USER, K_FLOAT2, K_MAP};
  for (int shape = 1; shape <= 2; shape++) {
    for (size_t k = 0; k < (shape == 1 ? 1u : 3u); k++) {
      for (size_t o = 0; o < 4; o++) {
        for (int pred = 0; pred <= (all_ops[o] <= CLSCAN_PARTITION); pred++) {
          sel_case c = base_case(all_ops[o], 9001);
          c.kind = kinds[k];
          c.by_pred = pred;
          c.shape = shape;
          check_case(&c);
        }
      }
    }
  }
}

/* The multi-pass paths, both single-pass shapes, and the forced fallback. */
static void test_algorithms(void **state) {
  (void)state;
  const clscan_algorithm multi[] = {CLSCAN_ALGO_BLELLOCH, CLSCAN_ALGO_HILLIS_STEELE,
                                    CLSCAN_ALGO_REDUCE_THEN_SCAN};
  const size_t sizes[] = {1, 1000, 70001};
  for (size_t a = 0; a < 3; a++) {
    for (size_t o = 0; o < 4; o++) {
      for (size_t s = 0; s < 3; s++) {
        sel_case c = base_case(all_ops[o], sizes[s]);
        c.algorithm = multi[a];
        c.by_pred = s == 1 && o < 2;
        check_case(&c);
      }
    }
    // Partition into two buffers, by flags and by predicate, the capacity below either part.
    for (int pred = 0; pred <= 1; pred++) {
      sel_case c = base_case(CLSCAN_PARTITION, 70001);
      c.algorithm = multi[a];
      c.split = 1;
      c.by_pred = pred;
      check_case(&c);
      c.cap_delta = -40000;
      check_case(&c);
    }
  }
  // The fallback: every 2nd or 3rd tile never publishes, in both shapes, small CPU tiles too,
  // with 8-byte counts (two status words a count; four with 32-bit words) and 4-byte ones.
  expect_single_pass();
  for (int shape = 1; shape <= 2; shape++) {
    for (unsigned w = 2; w <= 3; w++) {
      for (size_t o = 0; o < 4; o++) {
        sel_case c = base_case(all_ops[o], shape == 1 ? 100003 : 300007);
        c.algorithm = CLSCAN_ALGO_SINGLE_PASS;
        c.shape = shape;
        c.withhold = w;
        c.count_size = w == 2 ? 8 : 4;
        check_case(&c);
        if (shape == 1 && w == 3) { /* the GPU shape's scalar loads */
          c.in_off = 1;
          check_case(&c);
        }
      }
      sel_case c = base_case(CLSCAN_PARTITION, shape == 1 ? 100003 : 300007);
      c.algorithm = CLSCAN_ALGO_SINGLE_PASS;
      c.shape = shape;
      c.withhold = w;
      c.split = 1;
      c.by_pred = w == 3;
      check_case(&c);
    }
  }
}

/* The partition's per-tile counts, which a later single pass on the same temporary slot reads as
 * status words, with 32-bit words: tile 0 of a partition in CPU tiles of 2^20 counts
 * c = 3 << 18 | 2 << 16 | 0xffff, whose low 32 bits, stored as they are, read as a word of epoch
 * 3 in the state of an inclusive prefix with the largest piece (cl/status.cl), the first word of
 * tile 4 of an int32 scan in CPU tiles of 64. Atomic max keeps it: at epoch 2 tile 4 never reads
 * as published, and an in-place scan (the host variant's) never ends (its fallbacks on tile 4 are
 * turned away by the owner's closed gate; the watchdog fails the test); at epoch 3 its prefix
 * reads as 0xffff | (its high piece << 16). cl/select_common.cl stores counts in 16-bit pieces
 * there (SEL_COUNT_TO_WORD); here a fresh context's slot runs the partition, then scans of 1024
 * ones at epochs 2 to 5, which must be exact. Not on rusticl's llvmpipe: its work-items stop after
 * 65535 loop iterations, fewer than a CPU tile of 2^20 elements takes (docs/testing-drivers.md). */
static void test_status32_counts_reuse(void) {
  if (strstr(tu_device_name(), "llvmpipe")) {
    printf("  counts reuse: skipped on llvmpipe (CPU tiles of 2^20 pass its loop limit)\n");
    return;
  }
  tu_progress("status32: partition counts read as status words by later scans");
  clscan_context *shared = tu_context(), *ctx = NULL;
  assert_int_equal(
      clscan_context_create(clscan_context_cl_context(shared), clscan_context_device(shared), &ctx),
      CLSCAN_SUCCESS);
  const size_t tile = (size_t)1 << 20, n = tile + 8, c = (size_t)3 << 18 | 2u << 16 | 0xffffu;
  int32_t *in = malloc(n * 4), *out = malloc(n * 4);
  unsigned char *flags = malloc(n);
  assert_true(in && out && flags);
  for (size_t i = 0; i < n; i++) {
    in[i] = (int32_t)i;
    flags[i] = i < c || i >= tile + 4;
  }
  tu_env_saved saved[4];
  tu_env_set("CLSCAN_TEST_STATUS32", "1", &saved[0]);
  tu_env_set("CLSCAN_SINGLE_PASS_CPU", "1", &saved[1]);
  tu_env_set("CLSCAN_CPU_TILE", "1048576", &saved[2]);
  tu_env_set("CLSCAN_TEST_WITHHOLD", NULL, &saved[3]);
  const clscan_select_desc part = {.op = CLSCAN_PARTITION, .algorithm = CLSCAN_ALGO_SINGLE_PASS};
  uint64_t count = 0;
  assert_int_equal(clscan_select_host(ctx, &part, in, flags, n, out, NULL, n, &count),
                   CLSCAN_SUCCESS);
  assert_int_equal(count, c + 4);
  for (size_t k = 0; k < n; k++) {
    const size_t want = k < c ? k : k < c + 4 ? tile + 4 + (k - c) : c + (k - c - 4);
    if (out[k] != (int32_t)want)
      fail_msg("partition: element %zu is %d, expected %zu", k, out[k], want);
  }
  tu_env_set("CLSCAN_CPU_TILE", "64", &saved[2]);
  const clscan_scan_desc scan = {
      .type = CLSCAN_INT32, .op = CLSCAN_ADD, .algorithm = CLSCAN_ALGO_SINGLE_PASS};
  const size_t m = 1024;
  for (size_t i = 0; i < m; i++)
    in[i] = 1;
  for (int launch = 2; launch <= 5; launch++) {
    assert_int_equal(clscan_scan_host(ctx, &scan, in, out, m), CLSCAN_SUCCESS);
    for (size_t i = 0; i < m; i++) {
      if (out[i] != (int32_t)(i + 1))
        fail_msg("scan at epoch %d after the partition: element %zu is %d, expected %zu", launch, i,
                 out[i], i + 1);
    }
  }
  for (int i = 3; i >= 0; i--)
    tu_env_restore(&saved[i]);
  free(in);
  free(out);
  free(flags);
  clscan_context_release(ctx);
}

/* The single pass with 32-bit status words (the CTest test select.status32 sets
 * CLSCAN_TEST_STATUS32=1; devices without 64-bit atomics have them anyway): select by flags and by
 * predicate, partition by flags and by predicate, unique and run-length encoding, in both shapes,
 * with every 3rd tile withheld (the fallback) and 8-byte counts (four 32-bit words a count, eight
 * a run-length state), every 2nd with 4-byte counts, and none; the GPU shape's scalar loads too.
 * About 100000 elements are selected, and runs start past index 2^16, so that the high 16-bit
 * piece of a count or index matters. Then the partition's per-tile counts under later scans
 * (test_status32_counts_reuse). */
static void test_status32(void **state) {
  (void)state;
  static const struct {
    clscan_select_op op;
    int pred;
  } ops[] = {{CLSCAN_SELECT, 0},    {CLSCAN_SELECT, 1}, {CLSCAN_PARTITION, 0},
             {CLSCAN_PARTITION, 1}, {CLSCAN_UNIQUE, 0}, {CLSCAN_RUN_LENGTH_ENCODE, 0}};
  for (int shape = 1; shape <= 2; shape++) {
    for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++) {
      for (int v = 0; v < 3; v++) {
        sel_case c = base_case(ops[o].op, shape == 1 ? 200003 : 300007);
        c.by_pred = ops[o].pred;
        c.algorithm = CLSCAN_ALGO_SINGLE_PASS;
        c.shape = shape;
        c.withhold = v == 0 ? 0 : v == 1 ? 3 : 2;
        c.count_size = v == 2 ? 4 : 8;
        check_case(&c);
        if (ops[o].op == CLSCAN_PARTITION) { /* into two buffers */
          c.split = 1;
          check_case(&c);
          c.split = 0;
        }
        if (shape == 1 && v == 1) { /* the GPU shape's scalar loads */
          c.in_off = 1;
          check_case(&c);
        }
      }
    }
  }
  test_status32_counts_reuse();
}

/* Partition into two buffers in both shapes, by flags and by predicate: capacities of both
 * buffers (the same) above, at and below either part, with 10, 50 and 90 % selected; offsets
 * (the GPU shape's scalar and vector loads); n = 0; the host variant. */
static void test_split_edges(void) {
  for (int shape = 1; shape <= 2; shape++) {
    for (int pred = 0; pred <= 1; pred++) {
      const long deltas[] = {5, 0, -1, -30000, -45000, -60000, -90001};
      for (size_t i = 0; i < sizeof deltas / sizeof deltas[0]; i++) {
        sel_case c = base_case(CLSCAN_PARTITION, 90001);
        c.split = 1;
        c.by_pred = pred;
        c.cap_delta = deltas[i];
        c.shape = shape;
        check_case(&c);
      }
      const unsigned pcts[] = {0, 10, 90, 100};
      for (size_t i = 0; i < sizeof pcts / sizeof pcts[0]; i++) {
        sel_case c = base_case(CLSCAN_PARTITION, 90001);
        c.split = 1;
        c.by_pred = pred;
        c.pct = pcts[i];
        c.cap_delta = -40000;
        c.shape = shape;
        check_case(&c);
      }
      sel_case c = base_case(CLSCAN_PARTITION, 33333);
      c.split = 1;
      c.by_pred = pred;
      c.shape = shape;
      c.in_off = 3;
      c.flags_off = 5;
      c.out_off = 7;
      c.len_off = 9;
      c.count_off = 2;
      check_case(&c);
      c.in_off = 32;
      c.flags_off = 48;
      c.count_size = 4;
      check_case(&c);
      sel_case z = base_case(CLSCAN_PARTITION, 0);
      z.split = 1;
      z.by_pred = pred;
      z.shape = shape;
      check_case(&z);
      sel_case h = base_case(CLSCAN_PARTITION, 12345);
      h.split = 1;
      h.by_pred = pred;
      h.host = 1;
      h.shape = shape;
      check_case(&h);
      h.cap_delta = -8000;
      check_case(&h);
    }
  }
}

/* Capacities below the count, offsets, count sizes, n = 0, the host variant. */
static void test_edges(void **state) {
  (void)state;
  for (int shape = 1; shape <= 2; shape++) {
    for (size_t o = 0; o < 4; o++) {
      // -70002: a capacity of 19999, within the output of every operation but partition (and
      // within a vector of the GPU shape's stores).
      const long deltas[] = {-1, -100, -40000, -70002, -100000, 5};
      for (size_t i = 0; i < sizeof deltas / sizeof deltas[0]; i++) {
        if (all_ops[o] == CLSCAN_PARTITION && deltas[i] < 0)
          continue;
        sel_case c = base_case(all_ops[o], 90001);
        c.cap_delta = deltas[i];
        c.shape = shape;
        check_case(&c);
      }
      sel_case c = base_case(all_ops[o], 33333);
      c.in_off = 3;
      c.flags_off = 5;
      c.out_off = 7;
      c.len_off = 9;
      c.count_off = 2;
      c.shape = shape;
      check_case(&c);
      c.count_size = 4;
      c.type = CLSCAN_INT8;
      check_case(&c);
      // The GPU shape's vector loads from offsets of whole vectors (16 int8, 4 int32), and its
      // scalar loads where only the flags' offset is not one (runs read no flags: vectors).
      c.in_off = 32;
      c.flags_off = 48;
      check_case(&c);
      c.type = CLSCAN_INT32;
      c.count_size = 8;
      check_case(&c);
      c.flags_off = 2;
      check_case(&c);
      sel_case z = base_case(all_ops[o], 0);
      z.shape = shape;
      check_case(&z);
      z.count_size = 4;
      check_case(&z);
      sel_case h = base_case(all_ops[o], 12345);
      h.host = 1;
      h.shape = shape;
      check_case(&h);
      h.cap_delta = all_ops[o] == CLSCAN_PARTITION ? 0 : -12345;
      check_case(&h);
    }
  }
  for (size_t o = 0; o < 4; o++) {
    sel_case z = base_case(all_ops[o], 0);
    z.algorithm = CLSCAN_ALGO_BLELLOCH;
    check_case(&z);
  }
  test_split_edges();
}

/* Seconds of a monotonic clock. */
static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The sequential host loop doing an operation's job on int32 (returns the count). */
static uint64_t host_loop(clscan_select_op op, const int32_t *in, const unsigned char *flags,
                          size_t n, int32_t *out, uint32_t *lengths) {
  size_t k = 0;
  if (op == CLSCAN_SELECT || op == CLSCAN_PARTITION) {
    for (size_t i = 0; i < n; i++) {
      if (flags[i])
        out[k++] = in[i];
    }
    if (op == CLSCAN_PARTITION) {
      size_t r = k;
      for (size_t i = 0; i < n; i++) {
        if (!flags[i])
          out[r++] = in[i];
      }
    }
    return k;
  }
  size_t start = 0;
  for (size_t i = 0; i < n; i++) {
    if (i == 0 || in[i] != in[i - 1]) {
      if (k > 0 && op == CLSCAN_RUN_LENGTH_ENCODE)
        lengths[k - 1] = (uint32_t)(i - start);
      start = i;
      out[k++] = in[i];
    }
  }
  if (k > 0 && op == CLSCAN_RUN_LENGTH_ENCODE)
    lengths[k - 1] = (uint32_t)(n - start);
  return k;
}

/* Times an operation on the device (best of 3) against the host loop, and prints both. */
static void time_op(clscan_select_op op, size_t n) {
  clscan_context *ctx = tu_context();
  int32_t *in = malloc(n * 4), *out = malloc(n * 4);
  uint32_t *lengths = malloc(n * 4);
  unsigned char *flags = malloc(n);
  assert_true(in && out && lengths && flags);
  uint64_t s = tu_seed();
  int32_t v = 0;
  for (size_t i = 0; i < n; i++) {
    if (tu_random_size(&s, 0, 3) == 0)
      v++;
    in[i] = op >= CLSCAN_UNIQUE ? v : (int32_t)i;
    flags[i] = tu_random_size(&s, 0, 1) ? 1 : 0;
  }
  // Both sides best of three, on memory they have touched before.
  double host = 1e30;
  uint64_t k = 0;
  for (int rep = 0; rep < 3; rep++) {
    double t0 = now();
    k = host_loop(op, in, flags, n, out, lengths);
    double t = now() - t0;
    host = t < host ? t : host;
  }
  int by_flags = op <= CLSCAN_PARTITION, rle = op == CLSCAN_RUN_LENGTH_ENCODE;
  cl_mem bi = tu_buffer(ctx, CL_MEM_READ_WRITE, n * 4), bf = tu_buffer(ctx, CL_MEM_READ_WRITE, n);
  cl_mem bo = tu_buffer(ctx, CL_MEM_READ_WRITE, n * 4), bc = tu_buffer(ctx, CL_MEM_READ_WRITE, 8);
  cl_mem bl = tu_buffer(ctx, CL_MEM_READ_WRITE, n * 4);
  assert_true(tu_write(ctx, NULL, bi, 0, n * 4, in) && tu_write(ctx, NULL, bf, 0, n, flags));
  clscan_select_desc d = {.op = op, .count_size = 4};
  clscan_select_plan *plan = NULL;
  assert_int_equal(clscan_select_plan_create(ctx, &d, &plan), CLSCAN_SUCCESS);
  const clscan_select_buffers b = {.in = bi,
                                   .flags = by_flags ? bf : NULL,
                                   .out = bo,
                                   .out_capacity = n,
                                   .lengths = rle ? bl : NULL,
                                   .count = bc};
  double best = 1e30;
  for (int rep = 0; rep < 3; rep++) {
    double t1 = now();
    assert_int_equal(clscan_select_enqueue(plan, NULL, &b, n, 0, NULL, NULL), CLSCAN_SUCCESS);
    assert_int_equal(clFinish(clscan_context_queue(ctx)), CL_SUCCESS);
    double t = now() - t1;
    best = t < best ? t : best;
  }
  uint32_t count = 0;
  assert_true(tu_read(ctx, NULL, bc, 0, 4, &count));
  assert_int_equal(count, k);
  int32_t *got = malloc(n * 4);
  assert_non_null(got);
  size_t m = op == CLSCAN_PARTITION ? n : (size_t)k;
  assert_true(tu_read(ctx, NULL, bo, 0, m * 4, got));
  assert_memory_equal(got, out, m * 4);
  if (rle) {
    assert_true(tu_read(ctx, NULL, bl, 0, m * 4, got));
    assert_memory_equal(got, lengths, m * 4);
  }
  printf("%s, int32, n %zu: device %.2f ms, sequential host loop %.2f ms (%.2fx)\n",
         op == CLSCAN_SELECT      ? "select by flags"
         : op == CLSCAN_PARTITION ? "partition by flags"
         : op == CLSCAN_UNIQUE    ? "unique"
                                  : "run-length encode",
         n, 1e3 * best, 1e3 * host, host / best);
  clscan_select_plan_release(plan);
  cl_mem all[] = {bi, bf, bo, bc, bl};
  for (size_t i = 0; i < 5; i++)
    clReleaseMemObject(all[i]);
  free(got);
  free(in);
  free(out);
  free(lengths);
  free(flags);
}

/* Millions of elements; and the device's time against a sequential host loop (printed). */
static void test_large(void **state) {
  (void)state;
  for (size_t o = 0; o < 4; o++) {
    sel_case c = base_case(all_ops[o], 3000017);
    check_case(&c);
  }
  // Timing at 2^24 (2^26 with CLSCAN_TEST_SELECT_BIG=1): int32, select and partition by flags
  // (half selected), unique and run-length encoding (runs of mean length 4).
  size_t n = getenv("CLSCAN_TEST_SELECT_BIG") ? (size_t)1 << 26 : (size_t)1 << 24;
  for (size_t o = 0; o < 4; o++)
    time_op(all_ops[o], n);
}

/* ============================================================================================== */
/* Errors                                                                                         */
/* ============================================================================================== */

/* Creates a plan or fails the test. */
static clscan_select_plan *plan_of(const clscan_select_desc *d) {
  clscan_select_plan *p = NULL;
  clscan_status st = clscan_select_plan_create(tu_context(), d, &p);
  if (st != CLSCAN_SUCCESS) {
    static char log[8192];
    clscan_context_build_log(tu_context(), log, sizeof log, NULL);
    fail_msg("plan: %s (%s)\nbuild log:\n%s", clscan_status_string(st), clscan_last_error_detail(),
             log);
  }
  return p;
}

/* Expects a status from plan creation. */
static void expect_desc(const clscan_select_desc *d, clscan_status want) {
  clscan_select_plan *p = (clscan_select_plan *)1;
  clscan_status st = clscan_select_plan_create(tu_context(), d, &p);
  if (st != want)
    fail_msg("plan creation gave %s (%s), expected %s", clscan_status_string(st),
             clscan_last_error_detail(), clscan_status_string(want));
  assert_null(p);
  assert_true(strlen(clscan_last_error_detail()) > 0);
}

static void test_errors_desc(void **state) {
  (void)state;
  clscan_context *ctx = tu_context();
  clscan_select_desc d = {0};
  clscan_select_plan *p = NULL;
  assert_int_equal(clscan_select_plan_create(NULL, &d, &p), CLSCAN_NULL_ARGUMENT);
  assert_int_equal(clscan_select_plan_create(ctx, NULL, &p), CLSCAN_NULL_ARGUMENT);
  assert_int_equal(clscan_select_plan_create(ctx, &d, NULL), CLSCAN_NULL_ARGUMENT);
  d.op = CLSCAN_SELECT_OP_COUNT;
  expect_desc(&d, CLSCAN_INVALID_VALUE);
  d.op = (clscan_select_op)-1;
  expect_desc(&d, CLSCAN_INVALID_VALUE);
  d = (clscan_select_desc){.type = (clscan_type)77};
  expect_desc(&d, CLSCAN_INVALID_TYPE);
  d = (clscan_select_desc){.out_type = (clscan_out_type)CLSCAN_INT64};
  expect_desc(&d, CLSCAN_INVALID_TYPE);
  d = (clscan_select_desc){.count_size = 2};
  expect_desc(&d, CLSCAN_INVALID_VALUE);
  d = (clscan_select_desc){.algorithm = (clscan_algorithm)99};
  expect_desc(&d, CLSCAN_INVALID_ALGORITHM);
  d = (clscan_select_desc){.op = CLSCAN_UNIQUE, .predicate_source = "x > 0"};
  expect_desc(&d, CLSCAN_INVALID_VALUE);
  d = (clscan_select_desc){.op = CLSCAN_SELECT, .equal_source = "a == b"};
  expect_desc(&d, CLSCAN_INVALID_VALUE);
  d = (clscan_select_desc){.op = CLSCAN_UNIQUE,
                           .type = CLSCAN_USER_TYPE,
                           .type_name = "pair",
                           .type_source = pair_source,
                           .type_size = sizeof(pair)};
  expect_desc(&d, CLSCAN_NULL_ARGUMENT);
  d = (clscan_select_desc){.type = CLSCAN_USER_TYPE, .type_size = 8};
  expect_desc(&d, CLSCAN_NULL_ARGUMENT);
  d = (clscan_select_desc){.type = CLSCAN_INT32, .type_name = "x"};
  expect_desc(&d, CLSCAN_INVALID_VALUE);
  d = (clscan_select_desc){.type = CLSCAN_USER_TYPE,
                           .out_type = CLSCAN_OUT_INT32,
                           .type_name = "pair",
                           .type_source = pair_source,
                           .type_size = sizeof(pair),
                           .predicate_source = "1"};
  expect_desc(&d, CLSCAN_INVALID_VALUE); /* a conversion without a map */
  d = (clscan_select_desc){.predicate_source = "x +* 1"};
  expect_desc(&d, CLSCAN_USER_SOURCE_INVALID);
  d = (clscan_select_desc){.op = CLSCAN_UNIQUE,
                           .type = CLSCAN_USER_TYPE,
                           .type_name = "pair",
                           .type_source = pair_source,
                           .type_size = 12,
                           .equal_source = "a.k == b.k"};
  expect_desc(&d, CLSCAN_TYPE_SIZE_MISMATCH);
  clscan_select_plan_release(NULL);
}

static void test_errors_enqueue(void **state) {
  (void)state;
  clscan_context *ctx = tu_context();
  const size_t n = 1000;
  cl_mem in = tu_buffer(ctx, CL_MEM_READ_WRITE, n * 4), fl = tu_buffer(ctx, CL_MEM_READ_WRITE, n);
  cl_mem out = tu_buffer(ctx, CL_MEM_READ_WRITE, n * 4), cnt = tu_buffer(ctx, CL_MEM_READ_WRITE, 8);
  cl_mem ro = tu_buffer(ctx, CL_MEM_READ_ONLY, n * 4),
         len = tu_buffer(ctx, CL_MEM_READ_WRITE, n * 8);
  unsigned char poison[8];
  memset(poison, TU_POISON, 8);
  assert_true(tu_write(ctx, NULL, cnt, 0, 8, poison));
  clscan_select_desc d = {.op = CLSCAN_SELECT};
  clscan_select_plan *p = plan_of(&d);
  const clscan_select_buffers good = {
      .in = in, .flags = fl, .out = out, .out_capacity = n, .count = cnt};
  clscan_select_buffers b;
  cl_event ev = NULL;
#define EXPECT(call, want)                                                       \
  do {                                                                           \
    clscan_status st_ = (call);                                                  \
    if (st_ != (want))                                                           \
      fail_msg("%s gave %s (%s), expected %s", #call, clscan_status_string(st_), \
               clscan_last_error_detail(), clscan_status_string(want));          \
  } while (0)
  EXPECT(clscan_select_enqueue(NULL, NULL, &good, n, 0, NULL, NULL), CLSCAN_NULL_ARGUMENT);
  EXPECT(clscan_select_enqueue(p, NULL, NULL, n, 0, NULL, NULL), CLSCAN_NULL_ARGUMENT);
  b = good, b.in = NULL;
  EXPECT(clscan_select_enqueue(p, NULL, &b, n, 0, NULL, NULL), CLSCAN_NULL_ARGUMENT);
  b = good, b.out = NULL;
  EXPECT(clscan_select_enqueue(p, NULL, &b, n, 0, NULL, NULL), CLSCAN_NULL_ARGUMENT);
  b = good, b.count = NULL;
  EXPECT(clscan_select_enqueue(p, NULL, &b, n, 0, NULL, NULL), CLSCAN_NULL_ARGUMENT);
  b = good, b.flags = NULL;
  EXPECT(clscan_select_enqueue(p, NULL, &b, n, 0, NULL, NULL), CLSCAN_NULL_ARGUMENT);
  b = good, b.lengths = len;
  EXPECT(clscan_select_enqueue(p, NULL, &b, n, 0, NULL, NULL), CLSCAN_INVALID_VALUE);
  b = good;
  EXPECT(clscan_select_enqueue(p, NULL, &b, n + 1, 0, NULL, NULL), CLSCAN_BUFFER_TOO_SMALL);
  b = good, b.flags_offset = 1;
  EXPECT(clscan_select_enqueue(p, NULL, &b, n, 0, NULL, NULL), CLSCAN_BUFFER_TOO_SMALL);
  b = good, b.out_capacity = n + 1;
  EXPECT(clscan_select_enqueue(p, NULL, &b, n, 0, NULL, NULL), CLSCAN_BUFFER_TOO_SMALL);
  b = good, b.count_offset = 1;
  EXPECT(clscan_select_enqueue(p, NULL, &b, n, 0, NULL, NULL), CLSCAN_BUFFER_TOO_SMALL);
  b = good, b.in_offset = SIZE_MAX;
  EXPECT(clscan_select_enqueue(p, NULL, &b, n, 0, NULL, NULL), CLSCAN_SIZE_OVERFLOW);
  b = good, b.out = in;
  EXPECT(clscan_select_enqueue(p, NULL, &b, n, 0, NULL, NULL), CLSCAN_OVERLAP);
  b = good, b.count = out;
  EXPECT(clscan_select_enqueue(p, NULL, &b, n, 0, NULL, NULL), CLSCAN_OVERLAP);
  b = good, b.out = fl, b.out_capacity = n / 4;
  EXPECT(clscan_select_enqueue(p, NULL, &b, n, 0, NULL, NULL), CLSCAN_OVERLAP);
  b = good, b.out = ro;
  EXPECT(clscan_select_enqueue(p, NULL, &b, n, 0, NULL, NULL), CLSCAN_INVALID_BUFFER);
  EXPECT(clscan_select_enqueue(p, NULL, &good, n, 1, NULL, NULL), CLSCAN_INVALID_WAIT_LIST);
  EXPECT(clscan_select_enqueue(p, NULL, &good, n, 0, &ev, NULL), CLSCAN_INVALID_WAIT_LIST);
  cl_event null_ev = NULL;
  EXPECT(clscan_select_enqueue(p, NULL, &good, n, 1, &null_ev, NULL), CLSCAN_INVALID_WAIT_LIST);
  // A queue of another cl_context on the same device.
  cl_device_id dev = clscan_context_device(ctx);
  cl_int err;
  cl_context other = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
  assert_int_equal(err, CL_SUCCESS);
  cl_command_queue oq = clCreateCommandQueue(other, dev, 0, &err);
  assert_int_equal(err, CL_SUCCESS);
  EXPECT(clscan_select_enqueue(p, oq, &good, n, 0, NULL, NULL), CLSCAN_INVALID_QUEUE);
  cl_mem foreign = clCreateBuffer(other, CL_MEM_READ_WRITE, n * 4, NULL, &err);
  assert_int_equal(err, CL_SUCCESS);
  b = good, b.out = foreign;
  EXPECT(clscan_select_enqueue(p, NULL, &b, n, 0, NULL, NULL), CLSCAN_INVALID_BUFFER);
  clReleaseMemObject(foreign);
  clReleaseCommandQueue(oq);
  clReleaseContext(other);
  // Nothing was enqueued: the count is untouched.
  unsigned char back[8];
  assert_true(tu_read(ctx, NULL, cnt, 0, 8, back));
  assert_true(tu_all_bytes(back, 8, TU_POISON));
  clscan_select_plan_release(p);

  // A predicate plan refuses flags; runs refuse flags; RLE needs lengths; partition capacity;
  // count_size 4 counts fewer than 2^32 elements.
  d = (clscan_select_desc){.op = CLSCAN_SELECT, .predicate_source = "x > 3"};
  p = plan_of(&d);
  EXPECT(clscan_select_enqueue(p, NULL, &good, n, 0, NULL, NULL), CLSCAN_INVALID_VALUE);
  clscan_select_plan_release(p);
  d = (clscan_select_desc){.op = CLSCAN_RUN_LENGTH_ENCODE};
  p = plan_of(&d);
  b = good, b.flags = NULL;
  EXPECT(clscan_select_enqueue(p, NULL, &b, n, 0, NULL, NULL), CLSCAN_NULL_ARGUMENT);
  b.lengths = len;
  b.flags = fl;
  EXPECT(clscan_select_enqueue(p, NULL, &b, n, 0, NULL, NULL), CLSCAN_INVALID_VALUE);
  b.flags = NULL;
  b.out = len;
  EXPECT(clscan_select_enqueue(p, NULL, &b, n, 0, NULL, NULL), CLSCAN_OVERLAP);
  clscan_select_plan_release(p);
  d = (clscan_select_desc){.op = CLSCAN_PARTITION};
  p = plan_of(&d);
  b = good, b.out_capacity = n - 1;
  EXPECT(clscan_select_enqueue(p, NULL, &b, n, 0, NULL, NULL), CLSCAN_BUFFER_TOO_SMALL);
  // Into two buffers: any capacities, but within the buffers, outputs apart, writable.
  b = good, b.out_capacity = n / 4, b.rejected = len, b.rejected_capacity = n / 4;
  assert_int_equal(clscan_select_enqueue(p, NULL, &b, n, 0, NULL, NULL), CLSCAN_SUCCESS);
  assert_int_equal(clFinish(clscan_context_queue(ctx)), CL_SUCCESS);
  assert_true(tu_write(ctx, NULL, cnt, 0, 8, poison));
  b.rejected_capacity = 2 * n + 1; /* len holds 2n int32 */
  EXPECT(clscan_select_enqueue(p, NULL, &b, n, 0, NULL, NULL), CLSCAN_BUFFER_TOO_SMALL);
  b.rejected_capacity = SIZE_MAX;
  EXPECT(clscan_select_enqueue(p, NULL, &b, n, 0, NULL, NULL), CLSCAN_SIZE_OVERFLOW);
  b.rejected_capacity = n / 4, b.rejected = out;
  EXPECT(clscan_select_enqueue(p, NULL, &b, n, 0, NULL, NULL), CLSCAN_OVERLAP);
  b.rejected = in;
  EXPECT(clscan_select_enqueue(p, NULL, &b, n, 0, NULL, NULL), CLSCAN_OVERLAP);
  b.rejected = cnt, b.rejected_capacity = 1;
  EXPECT(clscan_select_enqueue(p, NULL, &b, n, 0, NULL, NULL), CLSCAN_OVERLAP);
  b.rejected = ro, b.rejected_capacity = n / 4;
  EXPECT(clscan_select_enqueue(p, NULL, &b, n, 0, NULL, NULL), CLSCAN_INVALID_BUFFER);
  clscan_select_plan_release(p);
  d = (clscan_select_desc){.op = CLSCAN_SELECT};
  p = plan_of(&d);
  b = good, b.rejected = len, b.rejected_capacity = n / 4;
  EXPECT(clscan_select_enqueue(p, NULL, &b, n, 0, NULL, NULL), CLSCAN_INVALID_VALUE);
  clscan_select_plan_release(p);
  assert_true(tu_read(ctx, NULL, cnt, 0, 8, back));
  assert_true(tu_all_bytes(back, 8, TU_POISON));

  // The host variant's own checks.
  int32_t hin[4] = {1, 2, 3, 4}, hout[4];
  unsigned char hfl[4] = {1, 0, 1, 0};
  uint64_t count = 0;
  d = (clscan_select_desc){.op = CLSCAN_SELECT};
  EXPECT(clscan_select_host(NULL, &d, hin, hfl, 4, hout, NULL, 4, &count), CLSCAN_NULL_ARGUMENT);
  EXPECT(clscan_select_host(ctx, &d, hin, hfl, 4, hout, NULL, 4, NULL), CLSCAN_NULL_ARGUMENT);
  EXPECT(clscan_select_host(ctx, &d, hin, NULL, 4, hout, NULL, 4, &count), CLSCAN_NULL_ARGUMENT);
  EXPECT(clscan_select_host(ctx, &d, hin, hfl, 4, hout, (void *)hout, 4, &count),
         CLSCAN_INVALID_VALUE);
  d.op = CLSCAN_PARTITION;
  EXPECT(clscan_select_host(ctx, &d, hin, hfl, 4, hout, NULL, 3, &count), CLSCAN_BUFFER_TOO_SMALL);
  d.op = CLSCAN_UNIQUE;
  EXPECT(clscan_select_host(ctx, &d, hin, hfl, 4, hout, NULL, 4, &count), CLSCAN_INVALID_VALUE);
  // clscan_partition_copy_host: a partition descriptor, arrays where capacities are given.
  int32_t hrej[4] = {7, 7, 7, 7};
  EXPECT(clscan_partition_copy_host(ctx, &d, hin, NULL, 4, hout, 4, hrej, 4, &count),
         CLSCAN_INVALID_VALUE);
  d.op = CLSCAN_PARTITION;
  EXPECT(clscan_partition_copy_host(NULL, &d, hin, hfl, 4, hout, 4, hrej, 4, &count),
         CLSCAN_NULL_ARGUMENT);
  EXPECT(clscan_partition_copy_host(ctx, &d, hin, hfl, 4, hout, 4, NULL, 4, &count),
         CLSCAN_NULL_ARGUMENT);
  EXPECT(clscan_partition_copy_host(ctx, &d, hin, hfl, 4, NULL, 4, hrej, 4, &count),
         CLSCAN_NULL_ARGUMENT);
  EXPECT(clscan_partition_copy_host(ctx, &d, hin, hfl, 4, hout, 4, hrej, 4, NULL),
         CLSCAN_NULL_ARGUMENT);
  EXPECT(clscan_partition_copy_host(ctx, &d, hin, NULL, 4, hout, 4, hrej, 4, &count),
         CLSCAN_NULL_ARGUMENT);
  for (int i = 0; i < 4; i++)
    assert_int_equal(hrej[i], 7);
  // Capacities of 1: one of each part, the true count.
  assert_int_equal(clscan_partition_copy_host(ctx, &d, hin, hfl, 4, hout, 1, hrej, 1, &count),
                   CLSCAN_SUCCESS);
  assert_int_equal(count, 2);
  assert_int_equal(hout[0], 1);
  assert_int_equal(hrej[0], 2);
  assert_int_equal(hrej[1], 7);
#undef EXPECT
  cl_mem all[] = {in, fl, out, cnt, ro, len};
  for (size_t i = 0; i < 6; i++)
    clReleaseMemObject(all[i]);
}

/* ============================================================================================== */
/* Extra arguments of the predicate and the map                                                   */
/* ============================================================================================== */

/* The arguments of these cases: a uint8 buffer `keep` (indexed by i), an int32 scalar `limit`,
 * and an int32 lookup table `lut` of 16 entries. */
static const clscan_arg sel_args[] = {
    {.name = "keep", .kind = CLSCAN_ARG_BUFFER, .type = CLSCAN_UINT8},
    {.name = "limit", .kind = CLSCAN_ARG_SCALAR, .type = CLSCAN_INT32},
    {.name = "lut", .kind = CLSCAN_ARG_BUFFER, .type = CLSCAN_INT32},
};
#define LUT 16

/* One run of an argument case: its data on the host and the device. */
typedef struct args_run {
  int equal; /* 1: runs by args_equal() of the unmapped elements (see args_desc) */
  size_t n, keep_off;
  int32_t *in, *mapped, lut[LUT + 3], limit;
  unsigned char *keep, *sel;
  cl_mem din, dkeep, dlut, dout, dlen, dcount;
} args_run;

/* Creates a run's data: inputs in [0, 4 * LUT), with runs of equal values for UNIQUE and RLE. */
static void args_run_make(args_run *r, size_t n, uint64_t seed) {
  clscan_context *ctx = tu_context();
  uint64_t s = seed;
  r->equal = 0;
  r->n = n;
  r->keep_off = tu_random_size(&s, 0, 7);
  r->limit = (int32_t)tu_random_size(&s, 0, 40);
  r->in = malloc((n + 1) * 4);
  r->mapped = malloc((n + 1) * 4);
  r->keep = malloc(n + r->keep_off + 1);
  r->sel = malloc(n + 1);
  assert_true(r->in && r->mapped && r->keep && r->sel);
  for (size_t i = 0; i < LUT + 3; i++)
    r->lut[i] = (int32_t)tu_random_size(&s, 0, 9);
  int32_t v = 0;
  for (size_t i = 0; i < n; i++) {
    if (i == 0 || tu_random_size(&s, 0, 3) == 0)
      v = (int32_t)tu_random_size(&s, 0, 4 * LUT - 1);
    r->in[i] = v;
  }
  for (size_t i = 0; i < n + r->keep_off + 1; i++)
    r->keep[i] = (unsigned char)(tu_random_size(&s, 0, 3) != 0);
  r->din = tu_buffer(ctx, CL_MEM_READ_WRITE, (n + 1) * 4);
  r->dkeep = tu_buffer(ctx, CL_MEM_READ_WRITE, n + r->keep_off + 1);
  r->dlut = tu_buffer(ctx, CL_MEM_READ_WRITE, sizeof r->lut);
  r->dout = tu_buffer(ctx, CL_MEM_READ_WRITE, (n + 1) * 4);
  r->dlen = tu_buffer(ctx, CL_MEM_READ_WRITE, (n + 1) * 8);
  r->dcount = tu_buffer(ctx, CL_MEM_READ_WRITE, 8);
  assert_true(r->din && r->dkeep && r->dlut && r->dout && r->dlen && r->dcount);
  assert_true(tu_write(ctx, NULL, r->din, 0, n * 4, r->in));
  assert_true(tu_write(ctx, NULL, r->dkeep, 0, n + r->keep_off + 1, r->keep));
  assert_true(tu_write(ctx, NULL, r->dlut, 0, sizeof r->lut, r->lut));
}

static void args_run_free(args_run *r) {
  cl_mem all[] = {r->din, r->dkeep, r->dlut, r->dout, r->dlen, r->dcount};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
    clReleaseMemObject(all[i]);
  free(r->in);
  free(r->mapped);
  free(r->keep);
  free(r->sel);
}

/* The equality of the runs of an argument case with `equal`: a and b agree divided by
 * limit + 1 or in the table (inputs are not negative). */
#define ARGS_EQUAL "a / (limit + 1) == b / (limit + 1) || lut[a % 16] == lut[b % 16]"

/* The host's ARGS_EQUAL (lut from the offset the cases give it). */
static int args_equal(const args_run *r, int32_t a, int32_t b) {
  return a / (r->limit + 1) == b / (r->limit + 1) || r->lut[3 + a % LUT] == r->lut[3 + b % LUT];
}

/* The descriptor of an argument case: the map x + lut[x % 16] for every operation, and for
 * SELECT and PARTITION the predicate x >= limit && keep[i] over the mapped x. With `equal`
 * (UNIQUE, RUN_LENGTH_ENCODE), no map, and runs by ARGS_EQUAL, which reads the arguments. */
static clscan_select_desc args_desc(clscan_select_op op, clscan_algorithm algorithm, int equal) {
  const int pred = op == CLSCAN_SELECT || op == CLSCAN_PARTITION;
  return (clscan_select_desc){.op = op,
                              .type = CLSCAN_INT32,
                              .map_source = equal ? NULL : "x + lut[x % 16]",
                              .predicate_source = pred ? "x >= limit && keep[i] != 0" : NULL,
                              .equal_source = equal ? ARGS_EQUAL : NULL,
                              .algorithm = algorithm,
                              .args = sel_args,
                              .arg_count = 3};
}

/* Runs one enqueue of a run on a plan (the lut from offset 3) and checks everything it wrote. */
static void args_check(clscan_select_plan *plan, clscan_select_op op, args_run *r,
                       const char *what) {
  clscan_context *ctx = tu_context();
  const size_t n = r->n;
  for (size_t i = 0; i < n; i++)
    r->mapped[i] = r->equal ? r->in[i] : r->in[i] + r->lut[3 + r->in[i] % LUT];
  if (op == CLSCAN_SELECT || op == CLSCAN_PARTITION) {
    for (size_t i = 0; i < n; i++)
      r->sel[i] = r->mapped[i] >= r->limit && r->keep[r->keep_off + i];
  } else if (r->equal) {
    for (size_t i = 0; i < n; i++)
      r->sel[i] = i == 0 || !args_equal(r, r->mapped[i - 1], r->mapped[i]);
  } else {
    clscan_ref_heads(CLSCAN_INT32, NULL, r->mapped, 4, n, r->sel);
  }
  int32_t *want = malloc((n + 1) * 4), *got = malloc((n + 1) * 4);
  uint64_t *want_len = malloc((n + 1) * 8), *got_len = malloc((n + 1) * 8);
  assert_true(want && got && want_len && got_len);
  const uint64_t count = clscan_ref_select(op, r->mapped, 4, r->sel, n, want, want_len, n);
  memset(got, TU_POISON, (n + 1) * 4);
  memset(got_len, TU_POISON, (n + 1) * 8);
  assert_true(tu_write(ctx, NULL, r->dout, 0, (n + 1) * 4, got));
  assert_true(tu_write(ctx, NULL, r->dlen, 0, (n + 1) * 8, got_len));
  const clscan_arg_value values[3] = {{.buffer = r->dkeep, .offset = r->keep_off},
                                      {.scalar = &r->limit},
                                      {.buffer = r->dlut, .offset = 3, .length = LUT}};
  const int rle = op == CLSCAN_RUN_LENGTH_ENCODE;
  const clscan_select_buffers b = {.in = r->din,
                                   .out = r->dout,
                                   .out_capacity = n,
                                   .lengths = rle ? r->dlen : NULL,
                                   .count = r->dcount,
                                   .values = values,
                                   .value_count = 3};
  cl_event done = NULL;
  clscan_status st = clscan_select_enqueue(plan, NULL, &b, n, 0, NULL, &done);
  if (st != CLSCAN_SUCCESS)
    fail_msg("%s: %s (%s)", what, clscan_status_string(st), clscan_last_error_detail());
  assert_int_equal(clWaitForEvents(1, &done), CL_SUCCESS);
  clReleaseEvent(done);
  uint64_t got_count = 0;
  assert_true(tu_read(ctx, NULL, r->dcount, 0, 8, &got_count));
  assert_true(tu_read(ctx, NULL, r->dout, 0, (n + 1) * 4, got));
  assert_true(tu_read(ctx, NULL, r->dlen, 0, (n + 1) * 8, got_len));
  if (got_count != count)
    fail_msg("%s: count %" PRIu64 ", want %" PRIu64, what, got_count, count);
  const size_t m = op == CLSCAN_PARTITION ? n : (size_t)count;
  for (size_t k = 0; k < m; k++) {
    if (got[k] != want[k])
      fail_msg("%s: element %zu of %zu is %d, want %d", what, k, m, got[k], want[k]);
    if (rle && got_len[k] != want_len[k])
      fail_msg("%s: length %zu is %" PRIu64 ", want %" PRIu64, what, k, got_len[k], want_len[k]);
  }
  if (!tu_all_bytes(got + m, (n + 1 - m) * 4, TU_POISON) ||
      !tu_all_bytes(got_len + (rle ? m : 0), (n + 1 - (rle ? m : 0)) * 8, TU_POISON))
    fail_msg("%s: something past the results was written", what);
  free(want);
  free(got);
  free(want_len);
  free(got_len);
}

/* Every operation, through the single pass in both shapes (with and without withheld tiles) and
 * the three multi-pass paths, at sizes around the tiles; each plan runs twice with new values
 * (another keep buffer and offset, limit and table). Cases 4 and 5 are UNIQUE and
 * RUN_LENGTH_ENCODE by an equality that reads the arguments. */
static void test_args(void **state) {
  (void)state;
  typedef struct path {
    const char *name;
    clscan_algorithm algorithm;
    int shape;         /* 1 GPU, 2 CPU (single pass) */
    unsigned withhold; /* CLSCAN_TEST_WITHHOLD */
  } path;
  const path paths[] = {
      {"single-pass gpu", CLSCAN_ALGO_SINGLE_PASS, 1, 0},
      {"single-pass cpu", CLSCAN_ALGO_SINGLE_PASS, 2, 0},
      {"single-pass gpu withheld", CLSCAN_ALGO_SINGLE_PASS, 1, 3},
      {"single-pass cpu withheld", CLSCAN_ALGO_SINGLE_PASS, 2, 3},
      {"blelloch", CLSCAN_ALGO_BLELLOCH, 0, 0},
      {"hillis-steele", CLSCAN_ALGO_HILLIS_STEELE, 0, 0},
      {"reduce-then-scan", CLSCAN_ALGO_REDUCE_THEN_SCAN, 0, 0},
  };
  const size_t sizes[] = {1, 4097, 70001};
  expect_single_pass();
  uint64_t seed = tu_mix(tu_seed(), 1616);
  for (size_t p = 0; p < sizeof paths / sizeof paths[0]; p++) {
    for (size_t c = 0; c < 6; c++) {
      const size_t o = c < 4 ? c : c - 2;
      const int equal = c >= 4;
      const sel_case env = {.shape = paths[p].shape, .withhold = paths[p].withhold};
      tu_env_saved saved[CASE_ENV];
      case_env(&env, saved);
      const clscan_select_desc d = args_desc(all_ops[o], paths[p].algorithm, equal);
      clscan_select_plan *plan = plan_of(&d);
      case_env_restore(saved);
      for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        size_t n = sizes[s] + (paths[p].shape == 2 && s == 2 ? 40000 : 0);
        for (int round = 0; round < 2; round++) {
          char what[160];
          snprintf(what, sizeof what, "args %s op %d%s n=%zu round %d", paths[p].name,
                   (int)all_ops[o], equal ? " equal" : "", n, round);
          tu_progress(what);
          args_run r;
          args_run_make(&r, n, tu_mix(seed, (p * 6 + c) * 16 + s * 2 + (size_t)round));
          r.equal = equal;
          args_check(plan, all_ops[o], &r, what);
          args_run_free(&r);
        }
      }
      clscan_select_plan_release(plan);
    }
  }
}

/* Every bad input of extra arguments: in the descriptor, the host variant, and the values at
 * enqueue (nothing is then enqueued: the count keeps its poison). */
static void test_args_errors(void **state) {
  (void)state;
  clscan_context *ctx = tu_context();
  clscan_select_desc d = args_desc(CLSCAN_SELECT, CLSCAN_ALGO_AUTO, 0);
  clscan_arg bad[3];
  memcpy(bad, sel_args, sizeof bad);
  d.args = bad;
  d.map_source = NULL;
  d.predicate_source = NULL;
  expect_desc(&d, CLSCAN_INVALID_VALUE); /* neither predicate_source nor map_source */
  d = args_desc(CLSCAN_UNIQUE, CLSCAN_ALGO_AUTO, 1);
  d.equal_source = NULL;
  expect_desc(&d, CLSCAN_INVALID_VALUE); /* runs by ==: nothing reads the arguments */
  d = args_desc(CLSCAN_SELECT, CLSCAN_ALGO_AUTO, 0);
  d.args = bad;
  const char *const reserved[] = {"a", "b", "x", "i", "clscan_k"};
  for (size_t k = 0; k < sizeof reserved / sizeof reserved[0]; k++) {
    bad[1].name = reserved[k];
    expect_desc(&d, CLSCAN_INVALID_VALUE);
  }
  bad[1].name = "keep";
  expect_desc(&d, CLSCAN_INVALID_VALUE); /* a duplicate name */
  memcpy(bad, sel_args, sizeof bad);
  bad[0].kind = (clscan_arg_kind)5;
  expect_desc(&d, CLSCAN_INVALID_VALUE);
  memcpy(bad, sel_args, sizeof bad);
  bad[1].type = CLSCAN_USER_TYPE;
  expect_desc(&d, CLSCAN_INVALID_TYPE);
  memcpy(bad, sel_args, sizeof bad);
  d.arg_count = CLSCAN_MAX_ARGS + 1;
  expect_desc(&d, CLSCAN_INVALID_VALUE);
  d.arg_count = 3;
  d.args = NULL;
  expect_desc(&d, CLSCAN_NULL_ARGUMENT);
  d.args = bad;
  d.predicate_source = "x >= limit && nothing[i]";
  expect_desc(&d, CLSCAN_USER_SOURCE_INVALID);
  // A user-type table defined by type_source, read by the predicate: accepted.
  const clscan_arg table = {.name = "tab",
                            .kind = CLSCAN_ARG_BUFFER,
                            .type = CLSCAN_USER_TYPE,
                            .type_name = "pair",
                            .type_size = sizeof(pair)};
  const clscan_select_desc with_table = {.op = CLSCAN_SELECT,
                                         .type = CLSCAN_INT32,
                                         .type_source = pair_source,
                                         .predicate_source = "tab[x & 3].k > 0",
                                         .args = &table,
                                         .arg_count = 1};
  clscan_select_plan_release(plan_of(&with_table));

  // The host variant has no values to give.
  int32_t hin[4] = {1, 2, 3, 4}, hout[4];
  uint64_t hcount = 0;
  d = args_desc(CLSCAN_SELECT, CLSCAN_ALGO_AUTO, 0);
  clscan_status st = clscan_select_host(ctx, &d, hin, NULL, 4, hout, NULL, 4, &hcount);
  assert_int_equal(st, CLSCAN_INVALID_VALUE);

  // The values at enqueue.
  const size_t n = 1000;
  args_run r;
  args_run_make(&r, n, tu_mix(tu_seed(), 1617));
  cl_mem ro = tu_buffer(ctx, CL_MEM_READ_ONLY, n + 8);
  unsigned char poison[8];
  memset(poison, TU_POISON, sizeof poison);
  assert_true(tu_write(ctx, NULL, r.dcount, 0, 8, poison));
  clscan_select_plan *p = plan_of(&d);
  clscan_arg_value v[3] = {
      {.buffer = r.dkeep}, {.scalar = &r.limit}, {.buffer = r.dlut, .length = LUT}};
  const clscan_select_buffers good = {.in = r.din,
                                      .out = r.dout,
                                      .out_capacity = n,
                                      .count = r.dcount,
                                      .values = v,
                                      .value_count = 3};
  clscan_select_buffers b;
  const clscan_arg_value keep = v[0], limit = v[1], lut = v[2];
#define EXPECT_VALUES(want, ...)                                                        \
  do {                                                                                  \
    b = good;                                                                           \
    v[0] = keep, v[1] = limit, v[2] = lut;                                              \
    __VA_ARGS__;                                                                        \
    clscan_status st_ = clscan_select_enqueue(p, NULL, &b, n, 0, NULL, NULL);           \
    if (st_ != (want))                                                                  \
      fail_msg("%s gave %s (%s), expected %s", #__VA_ARGS__, clscan_status_string(st_), \
               clscan_last_error_detail(), clscan_status_string(want));                 \
  } while (0)
  EXPECT_VALUES(CLSCAN_INVALID_VALUE, b.value_count = 2);
  EXPECT_VALUES(CLSCAN_INVALID_VALUE, b.values = NULL, b.value_count = 0);
  EXPECT_VALUES(CLSCAN_NULL_ARGUMENT, b.values = NULL);
  EXPECT_VALUES(CLSCAN_NULL_ARGUMENT, v[0].buffer = NULL);
  EXPECT_VALUES(CLSCAN_INVALID_VALUE, v[0].scalar = &r.limit);
  EXPECT_VALUES(CLSCAN_NULL_ARGUMENT, v[1].scalar = NULL);
  EXPECT_VALUES(CLSCAN_INVALID_VALUE, v[1].buffer = r.dkeep);
  EXPECT_VALUES(CLSCAN_BUFFER_TOO_SMALL, v[0].offset = 9); /* keep holds n + keep_off + 1 */
  EXPECT_VALUES(CLSCAN_BUFFER_TOO_SMALL, v[2].length = LUT + 4);
  EXPECT_VALUES(CLSCAN_SIZE_OVERFLOW, v[2].offset = SIZE_MAX);
  EXPECT_VALUES(CLSCAN_OVERLAP, v[2].buffer = r.dout);
  EXPECT_VALUES(CLSCAN_OVERLAP, v[0].buffer = r.dcount, v[0].length = 8);
  assert_true(tu_read(ctx, NULL, r.dcount, 0, 8, poison));
  assert_true(tu_all_bytes(poison, 8, TU_POISON));
  // A read-only argument may share the input's bytes (keep over the input here).
  EXPECT_VALUES(CLSCAN_SUCCESS, v[0].buffer = r.din);
  assert_int_equal(clFinish(clscan_context_queue(ctx)), CL_SUCCESS);
  clscan_select_plan_release(p);

  // A read-write argument must not overlap any other range, and must be writable.
  const clscan_arg rw[] = {{.name = "side",
                            .kind = CLSCAN_ARG_BUFFER,
                            .type = CLSCAN_UINT8,
                            .access = CLSCAN_ARG_READ_WRITE}};
  const clscan_select_desc drw = {.op = CLSCAN_SELECT,
                                  .type = CLSCAN_INT32,
                                  .predicate_source = "{ side[i] = (uchar)(x & 1); return x & 1; }",
                                  .args = rw,
                                  .arg_count = 1};
  p = plan_of(&drw);
  const clscan_arg_value side = {.buffer = r.dkeep};
  b = good;
  b.values = &side;
  b.value_count = 1;
  assert_int_equal(clscan_select_enqueue(p, NULL, &b, n, 0, NULL, NULL), CLSCAN_SUCCESS);
  unsigned char *got = malloc(n);
  assert_non_null(got);
  assert_true(tu_read(ctx, NULL, r.dkeep, 0, n, got));
  for (size_t i = 0; i < n; i++) {
    if (got[i] != (r.in[i] & 1))
      fail_msg("side[%zu] is %u, want %d", i, got[i], r.in[i] & 1);
  }
  free(got);
  const clscan_arg_value side_in = {.buffer = r.din}, side_ro = {.buffer = ro};
  b.values = &side_in;
  assert_int_equal(clscan_select_enqueue(p, NULL, &b, n, 0, NULL, NULL), CLSCAN_OVERLAP);
  b.values = &side_ro;
  assert_int_equal(clscan_select_enqueue(p, NULL, &b, n, 0, NULL, NULL), CLSCAN_INVALID_BUFFER);
  clscan_select_plan_release(p);
#undef EXPECT_VALUES
  clReleaseMemObject(ro);
  args_run_free(&r);
}

/* ============================================================================================== */
/* main                                                                                           */
/* ============================================================================================== */

typedef struct group {
  const char *name;
  struct CMUnitTest tests[2];
  size_t count;
} group;

int main(int argc, char **argv) {
  const group groups[] = {
      {"sizes", {cmocka_unit_test(test_sizes)}, 1},
      {"types", {cmocka_unit_test(test_types)}, 1},
      {"patterns", {cmocka_unit_test(test_patterns)}, 1},
      {"user", {cmocka_unit_test(test_user)}, 1},
      {"algorithms", {cmocka_unit_test(test_algorithms)}, 1},
      {"edges", {cmocka_unit_test(test_edges)}, 1},
      {"tiles", {cmocka_unit_test(test_tiles)}, 1},
      {"large", {cmocka_unit_test(test_large)}, 1},
      {"args", {cmocka_unit_test(test_args), cmocka_unit_test(test_args_errors)}, 2},
      {"errors", {cmocka_unit_test(test_errors_desc), cmocka_unit_test(test_errors_enqueue)}, 2},
      {"status32", {cmocka_unit_test(test_status32)}, 1},
  };
  const size_t ngroups = sizeof groups / sizeof groups[0];
  if (argc > 1 && strcmp(argv[1], "--list") == 0) {
    for (size_t i = 0; i < ngroups; i++)
      printf("%s\n", groups[i].name);
    return 0;
  }
  if (!tu_context())
    return 1;
  int failed = 0;
  int count = argc > 1 ? argc - 1 : (int)ngroups;
  for (int i = 0; i < count; i++) {
    const char *name = argc > 1 ? argv[i + 1] : groups[i].name;
    const group *g = NULL;
    for (size_t j = 0; j < ngroups; j++) {
      if (strcmp(groups[j].name, name) == 0)
        g = &groups[j];
    }
    if (!g) {
      fprintf(stderr, "test_select: unknown group %s (see --list)\n", name);
      return 2;
    }
    failed +=
        _cmocka_run_group_tests(g->name, g->tests, g->count, tu_group_setup, tu_group_teardown);
  }
  tu_context_release();
  printf("clscan tests: seed %" PRIu64 "\n", tu_seed());
  return failed ? 1 : 0;
}
#endif /* TEST_SELECT_NO_MAIN */
