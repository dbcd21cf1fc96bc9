/*
 * clscan tests: random scans against the host reference (a property test).
 *
 * Each case is drawn from the seed and its number alone: a type, an operator valid for it,
 * inclusive or exclusive, an initial value or none, an algorithm (AUTO included), for the single
 * pass a shape (CPU-shaped or GPU-shaped, through CLSCAN_SINGLE_PASS_CPU at plan creation), a size
 * from a skewed distribution (mostly small, some up to about a million), input and output offsets
 * (none, 16-byte aligned or arbitrary), in place or not, and the entry point: clscan_scan, an
 * explicit plan, a timed plan or clscan_scan_host. Every result element, the guard elements around
 * the output and the input are checked (tu_run_case, tests/test_case.c).
 *
 * About one case in five is instead an extended case, run the same way (which also checks the
 * flags or keys buffer): a descriptor with an output type (widening and narrowing pairs of
 * built-in types) or a user operator ("a + b" on uint32, or on uint16 summed in uint32, and the
 * affine-map struct of tests/user_specs.h), with segments (none,
 * head flags, or keys of one of the four key types) and a segment pattern. Since every such
 * descriptor builds its own programs, a run uses 12 (descriptor, segments, algorithm) combinations
 * drawn from its base seed, a third of them unsegmented, a third with flags, a third with keys;
 * the other draws (sizes, offsets, entry points, initial values) are per case as for the others.
 *
 * Plans are cached in the test per descriptor and shape, and initial values come from a small
 * pool per type, so each program is built once per run and the context's own plan cache (which
 * keeps one plan per descriptor) stays small; extended cases keep theirs per combination,
 * inclusive or exclusive and initial value.
 *
 * Usage: test_property [--seed S|time] [--cases N] [--max-seconds T] [--case K]
 *   --seed     base seed (default: CLSCAN_TEST_SEED, else the suite's fixed default)
 *   --cases    number of cases (default 2500)
 *   --max-seconds  stop drawing new cases after T seconds (default 0: no limit); the number of
 *              cases run is printed either way
 *   --case     run case K only (what a failure prints to reproduce it)
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ref_scan.h"
#include "test_util.h"
#include "user_specs.h"

#define DEFAULT_CASES 2500

/* ============================================================================================== */
/* Drawing a case                                                                                 */
/* ============================================================================================== */

/* A case: a built-in one plus the single-pass shape its plan is created with; or, when
 * `extended`, one of a descriptor of the pool. */
typedef struct prop_case {
  tu_case c;
  const char *shape; /* "0", "1", or NULL for the device's default */
  int extended;
  size_t combo;  /* extended: the run's combination */
  int init_pool; /* extended: the initial value's index in its pool, or 3 for none */
} prop_case;

/* The pool of descriptors with output types, user operators (and segments, drawn per case). */
static const uint32_t zero_u32 = 0;
static const tu_spec pool[] = {
    {.name = "uint8-to-uint32-add",
     .desc = {.type = CLSCAN_UINT8, .out_type = CLSCAN_OUT_UINT32, .op = CLSCAN_ADD}},
    {.name = "int16-to-int64-max",
     .desc = {.type = CLSCAN_INT16, .out_type = CLSCAN_OUT_INT64, .op = CLSCAN_MAX}},
    {.name = "int64-to-int32-add",
     .desc = {.type = CLSCAN_INT64, .out_type = CLSCAN_OUT_INT32, .op = CLSCAN_ADD}},
    {.name = "uint32-to-uint8-xor",
     .desc = {.type = CLSCAN_UINT32, .out_type = CLSCAN_OUT_UINT8, .op = CLSCAN_XOR}},
    {.name = "uint64-to-uint16-mul",
     .desc = {.type = CLSCAN_UINT64, .out_type = CLSCAN_OUT_UINT16, .op = CLSCAN_MUL}},
    {.name = "int32-to-float-add",
     .desc = {.type = CLSCAN_INT32, .out_type = CLSCAN_OUT_FLOAT, .op = CLSCAN_ADD}},
    {.name = "float-to-double-add",
     .desc = {.type = CLSCAN_FLOAT, .out_type = CLSCAN_OUT_DOUBLE, .op = CLSCAN_ADD}},
    {.name = "float-to-int32-min",
     .desc = {.type = CLSCAN_FLOAT, .out_type = CLSCAN_OUT_INT32, .op = CLSCAN_MIN}},
    {.name = "uint32-user-add",
     .desc =
         {.type = CLSCAN_UINT32, .op = CLSCAN_USER_OP, .op_source = "a + b", .identity = &zero_u32},
     .op = uc_add_u32},
    {.name = "uint16-to-uint32-user-add",
     .desc = {.type = CLSCAN_UINT16,
              .out_type = CLSCAN_OUT_UINT32,
              .op = CLSCAN_USER_OP,
              .op_source = "a + b",
              .identity = &zero_u32},
     .op = uc_add_u32},
    {.name = "affine",
     .desc = {.type = CLSCAN_USER_TYPE,
              .op = CLSCAN_USER_OP,
              .op_source = uc_affine_op_source,
              .identity = &uc_affine_identity,
              .type_source = uc_affine_source,
              .type_name = "affine",
              .type_size = sizeof(uc_affine)},
     .op = uc_affine_op,
     .fill = uc_affine_fill,
     .fill_init = uc_affine_fill},
};
#define POOL_COUNT (sizeof pool / sizeof pool[0])

static int is_float_type(clscan_type t) {
  return t == CLSCAN_FLOAT || t == CLSCAN_DOUBLE;
}

/* Draws a size: many small ones (most scans are), some of a few tiles, a few large ones. */
static size_t draw_size(uint64_t *s) {
  size_t bucket = tu_random_size(s, 0, 99);
  if (bucket < 45)
    return tu_random_size(s, 0, 64);
  if (bucket < 75)
    return tu_random_size(s, 65, 4096);
  if (bucket < 92)
    return tu_random_size(s, 4097, 65536);
  if (bucket < 98)
    return tu_random_size(s, 65537, 300000);
  return tu_random_size(s, 300001, 1000000);
}

/* Draws offsets (none, 16-byte aligned or arbitrary) of an extended case. */
static void draw_offsets(uint64_t *s, tu_case *u) {
  const clscan_scan_desc *d = &u->spec->desc;
  size_t ks = u->segments == CLSCAN_SEGMENTS_KEYS ? clscan_type_size(u->key_type) : 1;
  size_t how = tu_random_size(s, 0, 2);
  if (how == 1) {
    u->in_off = 16 / clscan_ref_in_size(d) * tu_random_size(s, 0, 4);
    u->out_off = 16 / clscan_ref_out_size(d) * tu_random_size(s, 0, 4);
    u->seg_off = 16 / ks * tu_random_size(s, 0, 4);
  } else if (how == 2) {
    u->in_off = tu_random_size(s, 0, 37);
    u->out_off = tu_random_size(s, 0, 37);
    u->seg_off = tu_random_size(s, 0, 37);
  }
}

/* Combinations of extended cases a run uses (see the file comment). */
#define EXT_COMBOS 12

/* A combination of an extended case: pool entry, segments, key type, algorithm. */
typedef struct ext_combo {
  size_t spec;
  clscan_segments segments;
  clscan_type key_type;
  clscan_algorithm algorithm;
} ext_combo;

/* Returns combination j of a run with base seed `seed`. */
static ext_combo combo_of(uint64_t seed, size_t j) {
  static const clscan_type keys[] = {CLSCAN_INT32, CLSCAN_UINT32, CLSCAN_INT64, CLSCAN_UINT64};
  uint64_t s = tu_mix(seed ^ 0xC0B0, j);
  ext_combo x;
  x.spec = tu_random_size(&s, 0, POOL_COUNT - 1);
  x.segments = (clscan_segments)(j % 3);
  x.key_type = keys[tu_random_size(&s, 0, 3)];
  x.algorithm = (clscan_algorithm)tu_random_size(&s, 0, CLSCAN_ALGORITHM_COUNT - 1);
  return x;
}

/* Draws an extended case: one of the run's combinations, then the rest as for the others. */
static void draw_extended(uint64_t seed, uint64_t *s, prop_case *p) {
  tu_case *u = &p->c;
  p->extended = 1;
  p->combo = tu_random_size(s, 0, EXT_COMBOS - 1);
  ext_combo x = combo_of(seed, p->combo);
  u->spec = &pool[x.spec];
  u->algorithm = x.algorithm;
  u->segments = x.segments;
  u->key_type = x.key_type;
  u->exclusive = (int)tu_random_size(s, 0, 1);
  p->init_pool = (int)tu_random_size(s, 0, 3);
  if (p->init_pool < 3)
    tu_case_set_init(u, tu_mix(seed ^ 0x1417, 4096 + x.spec * 8 + (uint64_t)p->init_pool));
  u->pattern = (tu_pattern)tu_random_size(s, 0, TU_PATTERN_COUNT - 1);
  u->one_shot_none = (int)tu_random_size(s, 0, 1);
  u->n = draw_size(s);
  u->path = (tu_path)tu_random_size(s, 0, u->segments ? TU_PATH_HOST - 1 : TU_PATH_HOST);
  if (u->path != TU_PATH_HOST)
    draw_offsets(s, u);
  int same_size = clscan_ref_in_size(&u->spec->desc) == clscan_ref_out_size(&u->spec->desc);
  u->in_place = same_size && tu_random_size(s, 0, 3) == 0;
  if (u->in_place)
    u->in_off = u->out_off;
  u->seed = tu_mix(*s, 0xDA7A);
}

/* Draws case k of a run with base seed `seed`. */
static void draw_case(uint64_t seed, uint64_t k, prop_case *p) {
  uint64_t s = tu_mix(seed, k);
  tu_case *c = &p->c;
  memset(p, 0, sizeof *p);
  // One case in five comes from the extended pool (its own stream: the others stay as they were).
  uint64_t e = tu_mix(seed ^ 0xE87E, k);
  if (tu_random_size(&e, 0, 4) == 0) {
    draw_extended(seed, &e, p);
    return;
  }
  // Every built-in type but half, the last, which has its own tests (test_half.c): random
  // conversions into half would round its sums, which the reference checks exactly.
  c->type = (clscan_type)tu_random_size(&s, 0, CLSCAN_HALF - 1);
  c->op = (clscan_op)tu_random_size(&s, 0, is_float_type(c->type) ? 3 : CLSCAN_OP_COUNT - 1);
  c->exclusive = (int)tu_random_size(&s, 0, 1);
  // Initial values come from a pool of three per type (see the file comment).
  if (tu_random_size(&s, 0, 2) != 0)
    tu_case_set_init(c, tu_mix(seed ^ 0x1417, (uint64_t)c->type * 8 + tu_random_size(&s, 0, 2)));
  c->algorithm = (clscan_algorithm)tu_random_size(&s, 0, CLSCAN_ALGORITHM_COUNT - 1);
  c->n = draw_size(&s);
  c->path = (tu_path)tu_random_size(&s, 0, 3);
  // Offsets: none, aligned to 16 bytes, or arbitrary; in place a quarter of the time.
  size_t vec = 16 / clscan_type_size(c->type), how = tu_random_size(&s, 0, 2);
  if (how == 1) {
    c->in_off = vec * tu_random_size(&s, 0, 4);
    c->out_off = vec * tu_random_size(&s, 0, 4);
  } else if (how == 2) {
    c->in_off = tu_random_size(&s, 0, 37);
    c->out_off = tu_random_size(&s, 0, 37);
  }
  c->in_place = tu_random_size(&s, 0, 3) == 0;
  if (c->in_place)
    c->in_off = c->out_off;
  if (c->path == TU_PATH_HOST)
    c->in_off = c->out_off = 0;
  // Explicit single-pass plans (AUTO is the single pass where 64-bit atomics exist) get a shape.
  int planned = c->path == TU_PATH_PLAN || c->path == TU_PATH_PLAN_TIMED;
  if (planned && (c->algorithm == CLSCAN_ALGO_SINGLE_PASS || c->algorithm == CLSCAN_ALGO_AUTO)) {
    static const char *const shapes[] = {NULL, "0", "1"};
    p->shape = shapes[tu_random_size(&s, 0, 2)];
  }
  c->seed = tu_mix(s, 0xDA7A);
}

/* ============================================================================================== */
/* Plans, cached per descriptor and shape                                                         */
/* ============================================================================================== */

typedef struct cached_plan {
  tu_case key; /* type, op, exclusive, init, algorithm */
  const char *shape;
  clscan_plan *plan;
} cached_plan;

static cached_plan *g_plans;
static size_t g_plan_count, g_plan_cap;

static int same_key(const cached_plan *e, const prop_case *p) {
  const tu_case *a = &e->key, *b = &p->c;
  int same_shape =
      (!e->shape && !p->shape) || (e->shape && p->shape && !strcmp(e->shape, p->shape));
  return a->type == b->type && a->op == b->op && a->exclusive == b->exclusive &&
         a->algorithm == b->algorithm && a->has_init == b->has_init &&
         (!a->has_init || memcmp(a->init, b->init, sizeof a->init) == 0) && same_shape;
}

/* Returns the case's plan, creating it under its shape on first use; NULL with msg on failure. */
static clscan_plan *plan_for(const prop_case *p, char *msg, size_t cap) {
  for (size_t i = 0; i < g_plan_count; i++) {
    if (same_key(&g_plans[i], p))
      return g_plans[i].plan;
  }
  if (g_plan_count == g_plan_cap) {
    g_plan_cap = g_plan_cap ? 2 * g_plan_cap : 64;
    cached_plan *grown = realloc(g_plans, g_plan_cap * sizeof *grown);
    if (!grown) {
      snprintf(msg, cap, "out of host memory");
      return NULL;
    }
    g_plans = grown;
  }
  clscan_scan_desc desc;
  tu_case_desc(&p->c, &desc);
  tu_env_saved saved;
  tu_env_set("CLSCAN_SINGLE_PASS_CPU", p->shape, &saved);
  clscan_plan *plan = NULL;
  clscan_status st = clscan_plan_create(tu_context(), &desc, &plan);
  tu_env_restore(&saved);
  if (st != CLSCAN_SUCCESS) {
    snprintf(msg, cap, "clscan_plan_create returned %s (%s)", clscan_status_string(st),
             clscan_last_error_detail());
    return NULL;
  }
  g_plans[g_plan_count++] = (cached_plan){.key = p->c, .shape = p->shape, .plan = plan};
  return plan;
}

/* Extended cases run (for the summary). */
static uint64_t g_extended_run;

/* Plans of extended cases, per combination, exclusive and initial value. */
static clscan_plan *g_ext_plans[EXT_COMBOS][2][4];

/* Returns an extended case's plan, creating it on first use; NULL with msg on failure. */
static clscan_plan *ext_plan_for(const prop_case *p, char *msg, size_t cap) {
  clscan_plan **slot = &g_ext_plans[p->combo][p->c.exclusive][p->init_pool];
  if (*slot)
    return *slot;
  clscan_scan_desc desc;
  tu_case_desc(&p->c, &desc);
  clscan_status st = clscan_plan_create(tu_context(), &desc, slot);
  if (st != CLSCAN_SUCCESS)
    snprintf(msg, cap, "clscan_plan_create returned %s (%s)", clscan_status_string(st),
             clscan_last_error_detail());
  return *slot;
}

static void release_plans(void) {
  for (size_t j = 0; j < EXT_COMBOS; j++) {
    for (int x = 0; x < 2; x++) {
      for (int i = 0; i < 4; i++) {
        clscan_plan_release(g_ext_plans[j][x][i]);
        g_ext_plans[j][x][i] = NULL;
      }
    }
  }
  for (size_t i = 0; i < g_plan_count; i++)
    clscan_plan_release(g_plans[i].plan);
  free(g_plans);
  g_plans = NULL;
  g_plan_count = g_plan_cap = 0;
}

/* ============================================================================================== */
/* Running                                                                                        */
/* ============================================================================================== */

/* Runs case k; returns 1 if it passed, 0 (after printing it and how to reproduce it) if not, and
 * -1 if the device cannot run its descriptor (double without fp64). */
static int run_one(const char *argv0, uint64_t seed, uint64_t k, int verbose) {
  prop_case p;
  char msg[1200] = "", desc[600];
  draw_case(seed, k, &p);
  clscan_scan_desc d;
  tu_case_desc(&p.c, &d);
  if (clscan_context_supports(tu_context(), &d) == CLSCAN_UNSUPPORTED_BY_DEVICE)
    return -1;
  tu_case_describe(&p.c, desc, sizeof desc);
  if (verbose)
    printf("case %" PRIu64 ": %s, shape %s\n", k, desc, p.shape ? p.shape : "default");
  int ok = 1;
  if (p.c.path == TU_PATH_PLAN || p.c.path == TU_PATH_PLAN_TIMED) {
    p.c.plan = p.extended ? ext_plan_for(&p, msg, sizeof msg) : plan_for(&p, msg, sizeof msg);
    ok = p.c.plan != NULL;
  }
  g_extended_run += p.extended;
  if (ok)
    ok = tu_run_case(tu_context(), &p.c, msg, sizeof msg);
  if (!ok) {
    printf("FAILED case %" PRIu64 " (single-pass shape %s): %s%s%s\n", k,
           p.shape ? p.shape : "default", strstr(msg, desc) ? "" : desc,
           strstr(msg, desc) ? "" : ": ", msg);
    printf("  reproduce: %s --seed %" PRIu64 " --case %" PRIu64 "\n", argv0, seed, k);
    fflush(stdout);
  }
  return ok;
}

/* Parses the value of a numeric option, or exits with a usage message. */
static uint64_t option_value(int argc, char **argv, int *i) {
  if (*i + 1 >= argc) {
    fprintf(stderr, "test_property: %s needs a value\n", argv[*i]);
    exit(2);
  }
  const char *v = argv[++*i];
  if (strcmp(v, "time") == 0)
    return (uint64_t)time(NULL);
  char *end;
  uint64_t x = strtoull(v, &end, 0);
  if (*end != '\0') {
    fprintf(stderr, "test_property: %s: '%s' is not a number\n", argv[*i - 1], v);
    exit(2);
  }
  return x;
}

int main(int argc, char **argv) {
  uint64_t seed = tu_seed(), cases = DEFAULT_CASES, max_seconds = 0, only = 0;
  int have_only = 0;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--seed") == 0) {
      seed = option_value(argc, argv, &i);
    } else if (strcmp(argv[i], "--cases") == 0) {
      cases = option_value(argc, argv, &i);
    } else if (strcmp(argv[i], "--max-seconds") == 0) {
      max_seconds = option_value(argc, argv, &i);
    } else if (strcmp(argv[i], "--case") == 0) {
      only = option_value(argc, argv, &i);
      have_only = 1;
    } else {
      fprintf(stderr, "usage: %s [--seed S|time] [--cases N] [--max-seconds T] [--case K]\n",
              argv[0]);
      return 2;
    }
  }
  if (!tu_context())
    return 1;
  printf("property: seed %" PRIu64 " (reproduce the run with --seed %" PRIu64 ")\n", seed, seed);
  if (have_only) {
    int r = run_one(argv[0], seed, only, 1);
    if (r < 0)
      printf("case %" PRIu64 ": not supported by this device\n", only);
    else if (r)
      printf("case %" PRIu64 ": passed\n", only);
    release_plans();
    tu_context_release();
    return r == 0 ? 1 : 0;
  }

  // Every case in turn; a failure does not stop the run, so that all failing cases are listed.
  time_t start = time(NULL);
  uint64_t run = 0, failed = 0, unsupported = 0, k = 0;
  for (; k < cases; k++) {
    if (max_seconds && (uint64_t)(time(NULL) - start) >= max_seconds) {
      printf("property: time limit of %" PRIu64 " s reached\n", max_seconds);
      break;
    }
    int r = run_one(argv[0], seed, k, 0);
    if (r < 0) {
      unsupported++;
      continue;
    }
    run++;
    failed += r == 0;
    if (failed >= 20) {
      printf("property: stopping after 20 failures\n");
      k++;
      break;
    }
  }
  printf("property: %" PRIu64 " cases tried, %" PRIu64 " run and verified (%" PRIu64
         " with output types, user operators or segments), %" PRIu64 " failed, %" PRIu64
         " not supported by the device; %zu plans, %ld s\n",
         k, run, g_extended_run, failed, unsupported, g_plan_count, (long)(time(NULL) - start));
  printf("%" PRIu64 " passed, %" PRIu64 " failed\n", run - failed, failed);
  release_plans();
  tu_context_release();
  return failed ? 1 : 0;
}
