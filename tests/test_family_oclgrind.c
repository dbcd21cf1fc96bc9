/*
 * clscan tests: the reduction and radix-sort kernels under Oclgrind (the CTest test
 * `oclgrind.families`), as test_oclgrind.c runs the scans: Oclgrind is the only OpenCL platform,
 * its data-race, uninitialised-value and API checks are on, and after every case the program
 * reads Oclgrind's log (tests/oclgrind_log.c): any message that is not a known finding fails the
 * case. Every result is checked against the host reference.
 *
 * Reductions (cl/reduce.cl): the GPU shape with a small geometry (work-groups of 16, one vector
 * each, 3 groups a compute unit), through reduce_strided (built-in integer operators, also a
 * packed narrow type) and reduce_ordered (float, double, a user type), each folding the partials
 * in its last work-group; the CPU shape (reduce_chunks, then reduce_final); at sizes 0
 * (reduce_final alone), 1, a part of a tile and many tiles,
 * with an initial value and unaligned offsets in turn.
 *
 * Radix sorts (cl/radix_sort.cl: sort_histogram, sort_passes, sort_onesweep and sort_finish for
 * Onesweep; sort_count, sort_scan_reduce, sort_scan_top, sort_scan_down and sort_scatter for
 * LSD): LSD and Onesweep, in the GPU shape (the warp ranking: work-groups of 256 with 16 keys
 * each (8 for 8-byte keys), so 4096 (2048) keys a tile; and the per-work-item ranking of
 * CLSCAN_SORT_CLASSIC: 32 with 32 keys each) and the CPU shape (one work-item a tile of 16384
 * keys), keys with values of 4 bytes, a bit range (one digit, GPU shape), a descending float sort
 * with NaNs and infinities (one digit), Onesweep with every third tile's publication withheld
 * (CLSCAN_TEST_WITHHOLD=3, its decoupled fallback) and values of 2 bytes, and in the GPU shapes
 * descending int64 keys with values of 8 bytes. Sizes cross two or three tiles in each shape.
 *
 * Each sort runs in a context of its own, because of an Oclgrind 21.10 bug that
 * test_select_oclgrind.c describes (a buffer that takes a released one's place: the sorts'
 * temporary slot grows from case to case in one context). The reductions share one context.
 *
 * Usage: test_family_oclgrind [reduce | sort]   (default: both; CLSCAN_TEST_ONLY=TEXT runs only
 *        the sorts whose names contain TEXT)
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oclgrind_log.h"
#include "ref_scan.h"
#include "ref_sort.h"
#include "test_util.h"
#include "user_specs.h"

static unsigned g_cases, g_failed;

/* 1 if the context's device runs a type (double needs fp64). */
static int supported(clscan_type t) {
  clscan_scan_desc d = {.type = t};
  return clscan_context_supports(tu_context(), &d) == CLSCAN_SUCCESS;
}

/* Ends a case: prints it, with its failure or the Oclgrind messages it drew. */
static void finish_case(const char *what, int ok, const char *msg) {
  g_cases++;
  g_failed += og_case_end(what, ok, msg);
}

/* ============================================================================================== */
/* Reductions                                                                                     */
/* ============================================================================================== */

/* Reduces c's input on the device into *got; 1 on success, else 0 with the reason in msg. */
static int reduce_device(const tu_case *c, const clscan_scan_desc *d, const clscan_tuning *tuning,
                         const void *input, void *got, char *msg, size_t cap) {
  clscan_context *ctx = tu_context();
  const size_t ei = clscan_ref_in_size(d), eo = clscan_ref_out_size(d);
  const size_t in_bytes = (c->in_off + c->n) * ei + 16, out_bytes = (c->out_off + 1) * eo;
  clscan_plan *plan = NULL;
  clscan_status st = clscan_plan_create_tuned(ctx, d, tuning, &plan);
  if (st != CLSCAN_SUCCESS) {
    snprintf(msg, cap, "plan: %s (%s)", clscan_status_string(st), clscan_last_error_detail());
    return 0;
  }
  unsigned char *img = calloc(1, in_bytes), *back = malloc(out_bytes);
  cl_mem in = tu_buffer(ctx, CL_MEM_READ_WRITE, in_bytes);
  cl_mem out = tu_buffer(ctx, CL_MEM_READ_WRITE, out_bytes);
  int ok = img && back && in && out;
  if (ok) {
    memcpy(img + c->in_off * ei, input, c->n * ei);
    memset(back, TU_POISON, out_bytes);
    ok = tu_write(ctx, NULL, in, 0, in_bytes, img) && tu_write(ctx, NULL, out, 0, out_bytes, back);
  }
  cl_event done = NULL;
  if (ok) {
    st = clscan_plan_enqueue_reduce(plan, NULL, in, c->in_off, out, c->out_off, c->n, 0, NULL,
                                    &done);
    ok = st == CLSCAN_SUCCESS;
    if (!ok)
      snprintf(msg, cap, "enqueue: %s (%s)", clscan_status_string(st), clscan_last_error_detail());
  }
  ok = ok && tu_event_complete(done, "done", msg, cap) &&
       tu_read(ctx, NULL, out, 0, out_bytes, back);
  if (ok)
    memcpy(got, back + c->out_off * eo, eo);
  if (done)
    clReleaseEvent(done);
  if (in)
    clReleaseMemObject(in);
  if (out)
    clReleaseMemObject(out);
  free(img);
  free(back);
  clscan_plan_release(plan);
  return ok;
}

/* Checks a reduction of n >= 1 elements: the reference's inclusive scan with the device's value
 * as its last element must pass the reference's check. */
static int reduce_check(const tu_case *c, const clscan_scan_desc *d, const void *input,
                        const void *got, char *msg, size_t cap) {
  const size_t eo = clscan_ref_out_size(d);
  const clscan_ref_twins twins = {c->spec ? c->spec->map : NULL, c->spec ? c->spec->op : NULL};
  unsigned char *ref = malloc(c->n * eo);
  if (!ref) {
    snprintf(msg, cap, "out of host memory");
    return 0;
  }
  clscan_ref_scan_twins(d, &twins, NULL, input, ref, c->n);
  memcpy(ref + (c->n - 1) * eo, got, eo);
  clscan_ref_mismatch m;
  int ok = clscan_ref_check_twins(d, &twins, NULL, input, ref, c->n, &m);
  if (!ok)
    snprintf(msg, cap, "%s", m.detail);
  free(ref);
  return ok;
}

/* Runs one reduction and checks it; n = 0 must give the initial value. */
static void reduce_case(const char *shape, tu_case *c, const clscan_tuning *tuning) {
  char what[512], desc_text[400], msg[1024] = "";
  tu_case_describe(c, desc_text, sizeof desc_text);
  snprintf(what, sizeof what, "reduce %s: %s", shape, desc_text);
  tu_progress(what);
  clscan_scan_desc d;
  tu_case_desc(c, &d);
  d.exclusive = 0;
  const size_t ei = clscan_ref_in_size(&d), eo = clscan_ref_out_size(&d);
  unsigned char *input = malloc(c->n * ei + 1), got[TU_MAX_ELEM];
  int ok = input != NULL;
  if (ok && c->spec && c->spec->fill)
    c->spec->fill(c->seed, input, c->n);
  else if (ok)
    clscan_ref_fill(d.type, d.op, c->seed, input, c->n);
  ok = ok && reduce_device(c, &d, tuning, input, got, msg, sizeof msg);
  if (ok && c->n == 0) {
    ok = d.init && memcmp(got, d.init, eo) == 0;
    if (!ok)
      snprintf(msg, sizeof msg, "n = 0 did not give the initial value");
  } else if (ok) {
    ok = reduce_check(c, &d, input, got, msg, sizeof msg);
  }
  finish_case(what, ok, msg);
  free(input);
}

static void run_reduce(void) {
  const struct {
    const char *name;
    clscan_tuning tuning;
  } shapes[] = {
      {"gpu-shape",
       {.tile_wg = 16,
        .tile_vpt = 1,
        .rts_groups_per_cu = 3,
        .single_pass_shape = CLSCAN_SHAPE_GPU}},
      {"cpu-shape", {.single_pass_shape = CLSCAN_SHAPE_CPU}},
  };
  const struct {
    const tu_spec *spec;
    clscan_type type;
    clscan_op op;
  } descs[] = {
      {NULL, CLSCAN_INT32, CLSCAN_ADD},  /* reduce_strided */
      {NULL, CLSCAN_INT8, CLSCAN_MAX},   /* reduce_strided, packed narrow loads */
      {NULL, CLSCAN_FLOAT, CLSCAN_ADD},  /* reduce_ordered */
      {NULL, CLSCAN_DOUBLE, CLSCAN_MIN}, /* reduce_ordered */
      {&uc_spec_affine, 0, CLSCAN_ADD},  /* reduce_ordered, a user type and operator */
      {&uc_spec_u8_u64, 0, CLSCAN_ADD},  /* an output type */
  };
  const size_t sizes[] = {0, 1, 45, 3001};
  for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
    for (size_t k = 0; k < sizeof descs / sizeof descs[0]; k++) {
      for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        tu_case c = {.spec = descs[k].spec,
                     .type = descs[k].type,
                     .op = descs[k].op,
                     .n = sizes[i],
                     .in_off = i % 2 ? 3 : 0,
                     .out_off = i % 3,
                     .path = TU_PATH_PLAN,
                     .seed = tu_mix(tu_seed(), 0x4ED + s * 100 + k * 10 + i)};
        if (i % 2 == 0)
          tu_case_set_init(&c, tu_mix(c.seed, 9));
        if (!c.spec && !supported(c.type)) {
          printf("  %s %s: not supported by the device\n", shapes[s].name,
                 clscan_type_name(c.type));
          break;
        }
        reduce_case(shapes[s].name, &c, &shapes[s].tuning);
      }
    }
  }
}

/* ============================================================================================== */
/* Radix sorts                                                                                    */
/* ============================================================================================== */

typedef struct sort_case {
  const char *shape;    /* CLSCAN_SINGLE_PASS_CPU */
  const char *classic;  /* CLSCAN_SORT_CLASSIC, or NULL */
  const char *withhold; /* CLSCAN_TEST_WITHHOLD, or NULL */
  clscan_sort_desc desc;
  size_t n, keys_off;
  int special;  /* float keys: NaNs, infinities and both zeros among them */
  int status32; /* Onesweep's 32-bit status words (CLSCAN_TEST_STATUS32) */
} sort_case;

/* Fills n keys of the case's type from a seed. */
static void fill_keys(const sort_case *c, uint64_t seed, unsigned char *keys) {
  const size_t ks = clscan_type_size(c->desc.key_type);
  for (size_t i = 0; i < c->n; i++) {
    uint64_t r = tu_mix(seed, i);
    memcpy(keys + i * ks, &r, ks);
    if (c->desc.key_type == CLSCAN_FLOAT) {
      const float specials[] = {NAN, -INFINITY, INFINITY, 0.0f, -0.0f};
      float f = c->special && r % 5 == 0 ? specials[(r >> 8) % 5] : (float)(int32_t)r / 65536.0f;
      memcpy(keys + i * ks, &f, ks);
    }
  }
}

/* Sorts the keys (and values carrying their index) on the device; 1 if they match the
 * reference, else 0 with the reason in msg. */
static int sort_device(const sort_case *c, unsigned char *keys, char *msg, size_t cap) {
  clscan_context *ctx = tu_context();
  const size_t ks = clscan_type_size(c->desc.key_type), vs = c->desc.value_size, n = c->n;
  const size_t kbytes = (c->keys_off + n) * ks, vbytes = n * vs + 1;
  unsigned char *want_k = malloc(n * ks + 1), *want_v = malloc(vbytes), *vals = malloc(vbytes);
  unsigned char *img = calloc(1, kbytes + 1), *got_v = malloc(vbytes);
  int ok = want_k && want_v && vals && img && got_v;
  for (size_t i = 0; ok && i < n * vs; i++)
    vals[i] = (unsigned char)((i / vs) >> (8 * (i % vs % 4)));
  if (ok) {
    memcpy(img + c->keys_off * ks, keys, n * ks);
    memcpy(want_k, keys, n * ks);
    memcpy(want_v, vals, n * vs);
    ok = ref_sort(&c->desc, want_k, vs ? want_v : NULL, n) == 0;
  }
  // The GPU shapes also assert which ranking the plan was built with (cl/radix_sort.cl).
  tu_env_saved saved[5];
  const char *options = getenv("CLSCAN_BUILD_OPTIONS");
  char with_shape[256];
  snprintf(with_shape, sizeof with_shape, "%s -DCLSCAN_TEST_SORT_RANK_WARPS=%d",
           options ? options : "", c->classic == NULL);
  tu_env_set("CLSCAN_SINGLE_PASS_CPU", c->shape, &saved[0]);
  tu_env_set("CLSCAN_TEST_WITHHOLD", c->withhold, &saved[1]);
  tu_env_set("CLSCAN_SORT_CLASSIC", c->classic, &saved[2]);
  tu_env_set("CLSCAN_BUILD_OPTIONS", with_shape, &saved[3]);
  tu_env_set("CLSCAN_TEST_STATUS32", c->status32 ? "1" : NULL, &saved[4]);
  clscan_sort_plan *plan = NULL;
  clscan_status st = clscan_sort_plan_create(ctx, &c->desc, &plan);
  tu_env_restore(&saved[4]);
  tu_env_restore(&saved[3]);
  tu_env_restore(&saved[2]);
  tu_env_restore(&saved[1]);
  tu_env_restore(&saved[0]);
  if (st != CLSCAN_SUCCESS)
    snprintf(msg, cap, "plan: %s (%s)", clscan_status_string(st), clscan_last_error_detail());
  ok = ok && st == CLSCAN_SUCCESS;
  cl_mem kbuf = ok ? tu_buffer(ctx, CL_MEM_READ_WRITE, kbytes) : NULL;
  cl_mem vbuf = ok && vs ? tu_buffer(ctx, CL_MEM_READ_WRITE, vbytes) : NULL;
  ok = ok && kbuf && (!vs || vbuf) && tu_write(ctx, NULL, kbuf, 0, kbytes, img) &&
       (!vs || tu_write(ctx, NULL, vbuf, 0, n * vs, vals));
  cl_event done = NULL;
  if (ok) {
    st = clscan_sort_enqueue(plan, NULL, kbuf, c->keys_off, vbuf, 0, n, 0, NULL, &done);
    ok = st == CLSCAN_SUCCESS;
    if (!ok)
      snprintf(msg, cap, "enqueue: %s (%s)", clscan_status_string(st), clscan_last_error_detail());
  }
  ok = ok && tu_event_complete(done, "done", msg, cap) &&
       tu_read(ctx, NULL, kbuf, 0, kbytes, img) &&
       (!vs || tu_read(ctx, NULL, vbuf, 0, n * vs, got_v));
  if (ok && memcmp(img + c->keys_off * ks, want_k, n * ks) != 0) {
    snprintf(msg, cap, "the keys differ from the reference");
    ok = 0;
  } else if (ok && vs && memcmp(got_v, want_v, n * vs) != 0) {
    snprintf(msg, cap, "the values differ from the reference (stability)");
    ok = 0;
  }
  if (done)
    clReleaseEvent(done);
  if (kbuf)
    clReleaseMemObject(kbuf);
  if (vbuf)
    clReleaseMemObject(vbuf);
  clscan_sort_plan_release(plan);
  free(want_k);
  free(want_v);
  free(vals);
  free(img);
  free(got_v);
  return ok;
}

static void sort_case_run(const sort_case *c, uint64_t seed) {
  char what[256], msg[512] = "";
  snprintf(what, sizeof what, "sort %s %s%s%s%s%s values %zu bits [%u,%u) n=%zu keys_off=%zu",
           c->desc.algorithm == CLSCAN_SORT_ONESWEEP ? "onesweep" : "lsd",
           strcmp(c->shape, "1") == 0 ? "cpu-shape"
           : c->classic               ? "gpu-shape/classic"
                                      : "gpu-shape",
           c->withhold ? "/fallback" : "", c->status32 ? "/status32 " : " ",
           clscan_type_name(c->desc.key_type), c->desc.descending ? " descending" : "",
           c->desc.value_size, c->desc.begin_bit, c->desc.end_bit, c->n, c->keys_off);
  const char *only = getenv("CLSCAN_TEST_ONLY"); /* a part of the names to run (debugging) */
  if (only && !strstr(what, only))
    return;
  tu_progress(what);
  unsigned char *keys = malloc(c->n * 8 + 1);
  int ok = keys != NULL;
  if (ok)
    fill_keys(c, seed, keys);
  // A context of its own: see the top of the file.
  tu_context_release();
  ok = ok && tu_context() != NULL;
  og_log_mark();
  ok = ok && sort_device(c, keys, msg, sizeof msg);
  finish_case(what, ok, msg);
  free(keys);
}

static void run_sort(void) {
  const clscan_sort_algorithm algos[] = {CLSCAN_SORT_LSD, CLSCAN_SORT_ONESWEEP};
  for (int a = 0; a < 2; a++) {
    // Shapes: 0 the GPU shape (warp ranking, tiles of 4096 keys), 1 the CPU shape (tiles of
    // 16384), 2 the GPU shape's per-work-item ranking (tiles of 1024).
    for (int cpu = 0; cpu < 3; cpu++) {
      const char *shape = cpu == 1 ? "1" : "0", *classic = cpu == 2 ? "1" : NULL;
      const size_t tile = cpu == 1 ? 16384 : cpu == 2 ? 1024 : 4096;
      // Two tiles (three where a withheld tile must have a successor), few in the CPU shape,
      // whose tiles of 16384 keys are long under Oclgrind; the bit range in the GPU shapes only.
      const size_t two = tile + 77, three = 2 * tile + 77;
      const sort_case cases[] = {
          {shape, classic, NULL, {.key_type = CLSCAN_UINT8, .value_size = 4}, two, 3, 0, 0},
          {shape,
           classic,
           NULL,
           {.key_type = CLSCAN_UINT32, .begin_bit = 4, .end_bit = 12},
           cpu == 1 ? 0 : three,
           0,
           0,
           0},
          {shape,
           classic,
           NULL,
           {.key_type = CLSCAN_FLOAT, .descending = 1, .begin_bit = 24, .end_bit = 32},
           cpu == 1 ? 100 : 1500,
           1,
           1,
           0},
          {shape, classic, "3", {.key_type = CLSCAN_UINT16, .value_size = 2}, three, 0, 0, 0},
          // Onesweep's 32-bit status words (devices without 64-bit atomics), with the fallback,
          // in the GPU shapes only.
          {shape,
           classic,
           "3",
           {.key_type = CLSCAN_UINT32, .value_size = 4},
           cpu == 1 ? 0 : three,
           0,
           0,
           1},
          // 8-byte keys (the warp ranking's tiles of 256 x 8) in the GPU shapes only.
          {shape,
           classic,
           NULL,
           {.key_type = CLSCAN_INT64, .value_size = 8, .descending = 1},
           cpu == 1 ? 0 : 2 * 2048 + 77,
           2,
           0,
           0},
      };
      for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        sort_case c = cases[k];
        c.desc.algorithm = algos[a];
        if (c.n == 0 || (c.withhold && c.desc.algorithm != CLSCAN_SORT_ONESWEEP))
          continue; /* left out; only Onesweep publishes per tile */
        sort_case_run(&c, tu_mix(tu_seed(), 0x5027 + (uint64_t)a * 100 + (uint64_t)cpu * 10 + k));
      }
    }
  }
}

int main(int argc, char **argv) {
  const char *only = argc > 1 ? argv[1] : NULL;
  if (only && strcmp(only, "reduce") != 0 && strcmp(only, "sort") != 0) {
    fprintf(stderr, "usage: test_family_oclgrind [reduce | sort]\n");
    return 2;
  }
  if (!og_log_start("test_family_oclgrind") || !tu_context())
    return 1;
  if (!strstr(tu_device_name(), "Oclgrind")) {
    fprintf(stderr, "test_family_oclgrind: the device is \"%s\", not Oclgrind\n", tu_device_name());
    return 1;
  }
  og_log_mark();
  if (!only || strcmp(only, "reduce") == 0)
    run_reduce();
  if (!only || strcmp(only, "sort") == 0)
    run_sort();
  tu_context_release();
  og_log_report_known(0);
  printf("oclgrind: %u verified reductions and sorts, %u failed, %u with Oclgrind messages\n",
         g_cases, g_failed, og_log_reported());
  printf("%u passed, %u failed\n", g_cases - g_failed, g_failed);
  return g_failed ? 1 : 0;
}
