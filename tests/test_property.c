/*
 * clscan tests: random scans against the host reference (a property test).
 *
 * Each case is drawn from the seed and its number alone: a type, an operator valid for it,
 * inclusive or exclusive, an initial value or none, an algorithm (AUTO included), for the single
 * pass a shape (CPU-shaped or GPU-shaped, through CLSCAN_SINGLE_PASS_CPU at plan creation), a size
 * from a skewed distribution (mostly small, some up to about a million), input and output offsets
 * (none, 16-byte aligned or arbitrary), in place or not, and the entry point: clscan_scan, an
 * explicit plan, a timed plan or clscan_scan_host. Every result element, the guard elements around
 * the output and the input are checked (tests/test_util.c).
 *
 * Plans are cached in the test per descriptor and shape, and initial values come from a small
 * pool per type, so each program is built once per run and the context's own plan cache (which
 * keeps one plan per descriptor) stays small.
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

#define DEFAULT_CASES 2500

/* ============================================================================================== */
/* Drawing a case                                                                                 */
/* ============================================================================================== */

/* A case: what tu_run_case() runs, plus the single-pass shape its plan is created with. */
typedef struct prop_case {
  tu_case c;
  const char *shape; /* "0", "1", or NULL for the device's default */
} prop_case;

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

/* Draws case k of a run with base seed `seed`. */
static void draw_case(uint64_t seed, uint64_t k, prop_case *p) {
  uint64_t s = tu_mix(seed, k);
  tu_case *c = &p->c;
  memset(p, 0, sizeof *p);
  c->type = (clscan_type)tu_random_size(&s, 0, CLSCAN_TYPE_COUNT - 1);
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

static void release_plans(void) {
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
  char msg[1200] = "", desc[400];
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
    p.c.plan = plan_for(&p, msg, sizeof msg);
    ok = p.c.plan != NULL;
  }
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
  printf("property: %" PRIu64 " cases tried, %" PRIu64 " run and verified, %" PRIu64
         " failed, %" PRIu64 " not supported by the device; %zu plans, %ld s\n",
         k, run, failed, unsupported, g_plan_count, (long)(time(NULL) - start));
  printf("%" PRIu64 " passed, %" PRIu64 " failed\n", run - failed, failed);
  release_plans();
  tu_context_release();
  return failed ? 1 : 0;
}
