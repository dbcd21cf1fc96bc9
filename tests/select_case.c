/*
 * clscan tests: one selection case against the host reference (select_case.h).
 */
#include "select_case.h"

#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ref_select.h"

/* ============================================================================================== */
/* Cases                                                                                          */
/* ============================================================================================== */

const char *const sel_pair_source = "typedef struct pair { int k; float w; } pair;";

void sel_describe(const sel_case *c, char *buf, size_t cap) {
  snprintf(buf, cap,
           "op %d type %s kind %d pred %d pattern %d pct %u mean %u algo %s shape %d withhold %u "
           "tile %ux%u n %zu offs %zu/%zu/%zu/%zu/%zu capdelta %ld count_size %zu host %d split %d "
           "reverse %d seed %" PRIu64,
           (int)c->op, clscan_type_name(c->type), (int)c->kind, c->by_pred, (int)c->pattern, c->pct,
           c->mean, clscan_algorithm_name(c->algorithm), c->shape, c->withhold, c->tile_wg,
           c->tile_vpt, c->n, c->in_off, c->flags_off, c->out_off, c->len_off, c->count_off,
           c->cap_delta, c->count_size, c->host, c->split, c->reverse, c->seed);
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
  d->reverse_rejected = c->reverse;
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
      d->type_source = sel_pair_source;
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

/* Sets the environment switches a case needs (read at plan creation). */
void sel_case_env(const sel_case *c, tu_env_saved saved[SEL_CASE_ENV]) {
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

/* Restores what sel_case_env() set. */
void sel_case_env_restore(tu_env_saved saved[SEL_CASE_ENV]) {
  for (int i = SEL_CASE_ENV - 1; i >= 0; i--)
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
  cl_event first = NULL, done = NULL;
  cl_mem in = tu_buffer(ctx, CL_MEM_READ_ONLY, in_bytes);
  cl_mem fl = tu_buffer(ctx, CL_MEM_READ_ONLY, fl_bytes);
  cl_mem out = tu_buffer(ctx, CL_MEM_READ_WRITE, out_bytes);
  cl_mem len = tu_buffer(ctx, CL_MEM_READ_WRITE, len_bytes);
  cl_mem cnt = tu_buffer(ctx, CL_MEM_READ_WRITE, cnt_bytes);
  // Split: the rejected buffer, as large as the output (the same capacity, at len_off).
  size_t rej_bytes = (c->len_off + cap + TU_GUARD) * os;
  cl_mem rej = c->split ? tu_buffer(ctx, CL_MEM_READ_WRITE, rej_bytes) : NULL;
  // The largest of the buffers the poison fills and the guards read back.
  size_t most = out_bytes > len_bytes ? out_bytes : len_bytes;
  most = most > rej_bytes ? most : rej_bytes;
  most = most > cnt_bytes ? most : cnt_bytes;
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
  tu_env_saved saved[SEL_CASE_ENV];
  sel_case_env(c, saved);
  clscan_status st = clscan_select_plan_create(ctx, desc, &plan);
  sel_case_env_restore(saved);
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
  const int timed = c->n % 2 == 1; /* odd sizes go through the timed entry point */
  st = timed ? clscan_select_enqueue_timed(plan, NULL, &b, c->n, 0, NULL, &first, &done)
             : clscan_select_enqueue(plan, NULL, &b, c->n, 0, NULL, &done);
  if (st != CLSCAN_SUCCESS) {
    snprintf(msg, mcap, "enqueue: %s (%s)", clscan_status_string(st), clscan_last_error_detail());
    goto done;
  }
  if (timed ? !tu_events_ordered(first, done, msg, mcap)
            : !tu_event_complete(done, "done", msg, mcap))
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
  if (first)
    clReleaseEvent(first);
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

/* Reverses the order of count elements of `size` bytes at p (a partition's rejected part, for
 * reverse_rejected: CUB's layout). */
static void reverse_elements(unsigned char *p, size_t count, size_t size) {
  unsigned char tmp[64];
  for (size_t a = 0, b = count; a + 1 < b; a++, b--) {
    memcpy(tmp, p + a * size, size);
    memcpy(p + a * size, p + (b - 1) * size, size);
    memcpy(p + (b - 1) * size, tmp, size);
  }
}

/* Runs and checks one case; returns 1 on success, else 0 with the reason in msg. */
int sel_run_case(const sel_case *c, char *msg, size_t mcap) {
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
  if (c->reverse && want <= n)
    reverse_elements(d.expect + want * os, n - (size_t)want, os);
  clscan_select_desc desc;
  make_desc(c, &desc);
  uint64_t count = 0;
  if (c->host) {
    tu_env_saved saved[SEL_CASE_ENV];
    sel_case_env(c, saved);
    int by_flags = c->op <= CLSCAN_PARTITION && !c->by_pred;
    const unsigned char *fl = by_flags ? d.flags : NULL;
    clscan_status st =
        c->split
            ? clscan_partition_copy_host(ctx, &desc, d.in, fl, n, d.got, cap, d.got_rej, cap,
                                         &count)
            : clscan_select_host(ctx, &desc, d.in, fl, n, d.got,
                                 c->op == CLSCAN_RUN_LENGTH_ENCODE ? d.got_len : NULL, cap, &count);
    sel_case_env_restore(saved);
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
sel_case sel_base_case(clscan_select_op op, size_t n) {
  sel_case c = {.op = op, .type = CLSCAN_INT32, .pct = 50, .mean = 4, .n = n};
  c.seed = tu_mix(tu_seed(), (uint64_t)n * 31 + (uint64_t)op);
  if (op >= CLSCAN_UNIQUE)
    c.pattern = P_RUNS;
  return c;
}

const clscan_select_op sel_all_ops[4] = {CLSCAN_SELECT, CLSCAN_PARTITION, CLSCAN_UNIQUE,
                                         CLSCAN_RUN_LENGTH_ENCODE};

/* Checks that the device runs the selections' single pass when it is asked for: every device
 * does, with 32-bit status words where 64-bit atomics are missing (rusticl's llvmpipe refused it
 * with CLSCAN_UNSUPPORTED_BY_DEVICE before it had them). */
void sel_expect_single_pass(void) {
  const clscan_select_desc d = {.op = CLSCAN_SELECT, .algorithm = CLSCAN_ALGO_SINGLE_PASS};
  clscan_select_plan *plan = NULL;
  const clscan_status st = clscan_select_plan_create(tu_context(), &d, &plan);
  clscan_select_plan_release(plan);
  if (st != CLSCAN_SUCCESS)
    fail_msg("a single-pass selection plan on %s (%s 64-bit atomics): %s (%s)", tu_device_name(),
             tu_device_has_int64_atomics() ? "with" : "without", clscan_status_string(st),
             clscan_last_error_detail());
}
