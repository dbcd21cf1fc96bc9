/*
 * clscan tests: every kernel under Oclgrind, the OpenCL device simulator that checks each memory
 * access (tests/CMakeLists.txt registers this program as the CTest test `oclgrind`).
 *
 * CTest runs it with Oclgrind as the only OpenCL platform (OCL_ICD_VENDORS names a folder whose
 * one .icd file is Oclgrind's liboclgrind-rt-icd.so) and with its data-race, uninitialised-value
 * and API checks on (OCLGRIND_DATA_RACES, OCLGRIND_UNINITIALIZED, OCLGRIND_CHECK_API), its
 * messages going to the file OCLGRIND_LOG names. Oclgrind itself never fails a program, so this
 * one reads the log after every case: any new message fails the case, and is printed under it.
 *
 * Every algorithm runs: Blelloch, Hillis-Steele, reduce-then-scan, the single pass in both shapes
 * (CLSCAN_SINGLE_PASS_CPU=1 and 0) and the single pass's decoupled fallback in both shapes
 * (CLSCAN_TEST_WITHHOLD=2), for one type of each size (int8, int16, int32, int64) and float and
 * double. Tiles are made small through the tuning overrides (CLSCAN_SEED_WG, CLSCAN_TILE_WG,
 * CLSCAN_TILE_VPT, CLSCAN_CPU_TILE) so that a few thousand elements span many tiles and, for the
 * seed algorithms, three levels. Each result is checked against the host reference.
 *
 * Every configuration also runs the segmented path (int32 add with head flags) and a user type
 * (the affine-map struct and operator of tests/user_case.h, unsegmented and by uint64 key), at
 * small sizes, checked against the reference of tests/user_case.c, and segments by uint32 and
 * uint64 offsets (int32 add), checked against the reference of their head flags.
 *
 * In-place scans: every algorithm scans in place at one size of the rotation, the single pass
 * with its fallback forced too (in place a withheld tile publishes only its aggregate, at its
 * end). With one Oclgrind thread work-groups run one after another in ticket order, so no
 * in-place tile is ever waited for; `--in-place` runs every single-pass case in place, and CTest
 * runs it (the test `oclgrind.inplace`) with four Oclgrind threads, so that work-groups overlap
 * and fallbacks read tiles whose owners write them in place: the gates of single_pass.cl must
 * keep Oclgrind's race checker silent there (it counts every pair of accesses to one byte by two
 * work-groups of a launch, one a store and not both atomic, as a race, whatever their timing).
 *
 * Usage: test_oclgrind [--quick | --user | --in-place]   (--quick: one size per kernel, for a
 *        first look; --user: only the segmented and user-type cases; --in-place: see above)
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oclgrind_log.h"
#include "test_util.h"
#include "user_case.h"

/* Tile sizes small enough that the sizes below cross many tiles and levels. */
static const struct {
  const char *name, *value;
} tuning[] = {
    {"CLSCAN_SEED_WG", "16"},  /* Blelloch: 32 elements a block; Hillis-Steele: 16 */
    {"CLSCAN_TILE_WG", "16"},  /* tiles of 16 work-items ... */
    {"CLSCAN_TILE_VPT", "1"},  /* ... of one 16-byte vector each: 256 int8 .. 32 int64 */
    {"CLSCAN_CPU_TILE", "64"}, /* the CPU-shaped single pass: 64 elements a tile */
};
#define TUNING_COUNT (sizeof tuning / sizeof tuning[0])

/* One kernel configuration: an algorithm and the environment its plan is created under. */
typedef struct config {
  const char *name;
  clscan_algorithm algo;
  const char *shape;    /* CLSCAN_SINGLE_PASS_CPU, or NULL */
  const char *withhold; /* CLSCAN_TEST_WITHHOLD, or NULL */
} config;

static const config configs[] = {
    {"blelloch", CLSCAN_ALGO_BLELLOCH, NULL, NULL},
    {"hillis-steele", CLSCAN_ALGO_HILLIS_STEELE, NULL, NULL},
    {"reduce-then-scan", CLSCAN_ALGO_REDUCE_THEN_SCAN, NULL, NULL},
    {"single-pass/cpu-shape", CLSCAN_ALGO_SINGLE_PASS, "1", NULL},
    {"single-pass/gpu-shape", CLSCAN_ALGO_SINGLE_PASS, "0", NULL},
    {"single-pass/cpu-shape/fallback", CLSCAN_ALGO_SINGLE_PASS, "1", "2"},
    {"single-pass/gpu-shape/fallback", CLSCAN_ALGO_SINGLE_PASS, "0", "2"},
};
#define CONFIG_COUNT (sizeof configs / sizeof configs[0])

static const clscan_type types[] = {CLSCAN_INT8,  CLSCAN_INT16,  CLSCAN_INT32, CLSCAN_INT64,
                                    CLSCAN_FLOAT, CLSCAN_DOUBLE, CLSCAN_HALF};
#define TYPE_COUNT (sizeof types / sizeof types[0])

/*
 * Sizes: one element; part of a tile; and sizes of many tiles (with 16 work-items a seed block
 * holds 32 or 16 elements, so 1100 and 4099 elements take three levels). Each size also rotates
 * through inclusive/exclusive, initial value, offsets and in place.
 */
static const size_t sizes[] = {1, 45, 1100, 4099};
#define SIZE_COUNT (sizeof sizes / sizeof sizes[0])

static int g_in_place; /* --in-place: the single pass only, every case in place */

/* ============================================================================================== */
/* Cases                                                                                          */
/* ============================================================================================== */

/* Creates a plan for a configuration and descriptor, under the small-tile tuning. */
static clscan_status make_plan_for(const config *cfg, const clscan_scan_desc *desc,
                                   clscan_plan **plan) {
  tu_env_saved saved[TUNING_COUNT + 2];
  size_t count = 0;
  for (size_t i = 0; i < TUNING_COUNT; i++)
    tu_env_set(tuning[i].name, tuning[i].value, &saved[count++]);
  tu_env_set("CLSCAN_SINGLE_PASS_CPU", cfg->shape, &saved[count++]);
  tu_env_set("CLSCAN_TEST_WITHHOLD", cfg->withhold, &saved[count++]);
  clscan_status st = clscan_plan_create(tu_context(), desc, plan);
  while (count > 0)
    tu_env_restore(&saved[--count]);
  return st;
}

/* Creates a plan for a configuration and type, under the small-tile tuning. */
static clscan_status make_plan(const config *cfg, const tu_case *proto, clscan_plan **plan) {
  clscan_scan_desc desc;
  tu_case_desc(proto, &desc);
  return make_plan_for(cfg, &desc, plan);
}

/* Prints the warnings of the program build a plan creation just did, unless the previous
 * build printed the same ones. */
static void print_build_warnings(const char *what) {
  static char *previous;
  size_t needed = 0;
  clscan_context_build_log(tu_context(), NULL, 0, &needed);
  char *log = needed > 1 ? malloc(needed) : NULL;
  if (log && clscan_context_build_log(tu_context(), log, needed, NULL) == CLSCAN_SUCCESS &&
      strstr(log, "warning") && (!previous || strcmp(previous, log) != 0)) {
    printf(
        "  build warnings of %s (not failing the test; later builds with the same warnings "
        "are not listed):\n%s\n",
        what, log);
    free(previous);
    previous = log;
    return;
  }
  free(log);
}

/* Counts a case and ends it (og_case_end); returns 1 when it failed. */
static int report_case(const char *what, int ok, const char *msg, unsigned *cases) {
  (*cases)++;
  return og_case_end(what, ok, msg);
}

/* Runs one configuration and type at every size; returns the number of failed cases. */
static int run_kernel(const config *cfg, clscan_type type, size_t nsizes, unsigned *cases) {
  char what[160], msg[1024];
  int failed = 0;
  snprintf(what, sizeof what, "%s %s: building", cfg->name, clscan_type_name(type));
  tu_progress(what);
  uint64_t seed = tu_mix(tu_seed(), (uint64_t)(cfg - configs) * 64 + (uint64_t)type);
  for (size_t i = 0; i < nsizes; i++) {
    // The rotation: inclusive/exclusive, initial value, offsets, in place (every size with
    // --in-place).
    tu_case c = {.type = type,
                 .op = CLSCAN_ADD,
                 .algorithm = cfg->algo,
                 .exclusive = (int)(i % 2),
                 .n = sizes[i],
                 .path = TU_PATH_PLAN,
                 .seed = tu_mix(seed, i)};
    if (i >= 1)
      tu_case_set_init(&c, tu_mix(seed, 100 + i));
    // Offsets: unaligned (scalar I/O) for the second size, 16-byte aligned for the fourth.
    size_t vec = 16 / clscan_type_size(type);
    c.in_off = i == 1 ? 3 : i == 3 ? 2 * vec : 0;
    c.out_off = i == 1 ? 1 : i == 3 ? vec : 0;
    c.in_place = i == 2 || g_in_place;
    clscan_status st = make_plan(cfg, &c, &c.plan);
    snprintf(what, sizeof what, "%s %s n=%zu", cfg->name, clscan_type_name(type), c.n);
    if (i == 0 && st == CLSCAN_SUCCESS)
      print_build_warnings(what);
    if (st == CLSCAN_UNSUPPORTED_BY_DEVICE) {
      printf("  %-44s not supported by the device: %s\n", what, clscan_last_error_detail());
      return 0;
    }
    int ok = st == CLSCAN_SUCCESS;
    if (!ok)
      snprintf(msg, sizeof msg, "clscan_plan_create returned %s (%s)", clscan_status_string(st),
               clscan_last_error_detail());
    else
      ok = tu_run_case(tu_context(), &c, msg, sizeof msg);
    clscan_plan_release(c.plan);
    failed += report_case(what, ok, msg, cases);
  }
  return failed;
}

/* ============================================================================================== */
/* Segments and user types                                                                        */
/* ============================================================================================== */

static const uc_spec int32_add = {.name = "int32-add",
                                  .desc = {.type = CLSCAN_INT32, .op = CLSCAN_ADD}};

/* The segmented and user-type cases of one configuration (each with its own rotation). */
static const struct {
  const uc_spec *spec;
  clscan_segments segments;
  size_t n;
  int exclusive, init, offsets; /* offsets: 0 none, 1 odd (scalar I/O), 2 16-byte aligned */
} extended[] = {
    {&int32_add, CLSCAN_SEGMENTS_HEAD_FLAGS, 1100, 1, 1, 1},
    {&uc_spec_affine, CLSCAN_SEGMENTS_NONE, 1100, 0, 0, 2},
    {&uc_spec_affine, CLSCAN_SEGMENTS_KEYS, 300, 1, 0, 0},
};
#define EXTENDED_COUNT (sizeof extended / sizeof extended[0])

/* Runs the segmented and user-type cases of a configuration; returns the number that failed. */
static int run_extended(const config *cfg, unsigned *cases) {
  char what[160], msg[1200];
  int failed = 0;
  for (size_t k = 0; k < EXTENDED_COUNT; k++) {
    uc_case c = {.spec = extended[k].spec,
                 .algorithm = cfg->algo,
                 .exclusive = extended[k].exclusive,
                 .segments = extended[k].segments,
                 .key_type = CLSCAN_UINT64,
                 .pattern = UC_PATTERN_RANDOM,
                 .n = extended[k].n,
                 .path = UC_PATH_PLAN,
                 .seed = tu_mix(tu_seed(), 0x0C6 + (uint64_t)(cfg - configs) * 8 + k)};
    if (extended[k].init)
      uc_case_set_init(&c, tu_mix(c.seed, 0x1417));
    c.in_off = extended[k].offsets == 1 ? 3 : extended[k].offsets == 2 ? 4 : 0;
    c.out_off = extended[k].offsets == 1 ? 1 : extended[k].offsets == 2 ? 2 : 0;
    c.seg_off = extended[k].offsets == 1 ? 5 : 0;
    c.in_place = g_in_place;
    snprintf(what, sizeof what, "%s %s%s n=%zu", cfg->name, c.spec->name,
             c.segments == CLSCAN_SEGMENTS_HEAD_FLAGS ? "/head-flags"
             : c.segments == CLSCAN_SEGMENTS_KEYS     ? "/keys-uint64"
                                                      : "",
             c.n);
    tu_progress(what);
    clscan_scan_desc desc;
    uc_case_desc(&c, &desc, 1);
    clscan_status st = make_plan_for(cfg, &desc, &c.plan);
    int ok = st == CLSCAN_SUCCESS;
    if (!ok)
      snprintf(msg, sizeof msg, "clscan_plan_create returned %s (%s)", clscan_status_string(st),
               clscan_last_error_detail());
    else
      ok = uc_run_case(tu_context(), &c, msg, sizeof msg);
    clscan_plan_release(c.plan);
    failed += report_case(what, ok, msg, cases);
  }
  return failed;
}

/* ============================================================================================== */
/* Segments by offsets                                                                            */
/* ============================================================================================== */

/* Scans n int32 elements segmented by offsets of type ot (random, a quarter empty, then 40 more
 * empty segments at the end) through a plan of a configuration, and checks the result against
 * the reference of the offsets' head flags. The tile kernels mark a tile's heads in local memory
 * with local atomics and barriers (tile.cl), which Oclgrind checks here. */
static int offsets_case(const config *cfg, clscan_type ot, size_t n, int exclusive, int in_place,
                        char *msg, size_t cap) {
  const size_t cap_offsets = n + 64, os = clscan_type_size(ot), out_off = 4;
  uint64_t *o = malloc(cap_offsets * sizeof *o), seed = tu_mix(tu_seed(), 0x0FF5 + n);
  int32_t *in = malloc(n * sizeof *in), *got = malloc((out_off + n) * sizeof *got);
  uint8_t *flags = malloc(n), *aux = malloc(cap_offsets * os);
  size_t n_segments = 0;
  int ok = 0;
  cl_mem ib = NULL, ob = NULL, ab = NULL;
  clscan_plan *plan = NULL;
  if (!o || !in || !got || !flags || !aux) {
    snprintf(msg, cap, "out of host memory");
    goto done;
  }
  clscan_ref_fill_offsets(n, 6, seed, o, cap_offsets - 40, &n_segments);
  for (size_t e = 0; e < 40; e++)
    o[++n_segments] = n;
  clscan_ref_offsets_to_flags(o, n_segments, flags, n);
  for (size_t i = 0; i <= n_segments; i++)
    memcpy(aux + i * os, &o[i], os);
  clscan_ref_fill(CLSCAN_INT32, CLSCAN_ADD, seed, in, n);
  const int32_t init = 7;
  const clscan_scan_desc desc = {.exclusive = exclusive,
                                 .init = &init,
                                 .algorithm = cfg->algo,
                                 .segments = CLSCAN_SEGMENTS_OFFSETS,
                                 .key_type = ot};
  clscan_status st = make_plan_for(cfg, &desc, &plan);
  if (st == CLSCAN_SUCCESS) {
    ob = tu_buffer(tu_context(), 0, (out_off + n) * sizeof *got);
    ib = in_place ? ob : tu_buffer(tu_context(), 0, n * sizeof *in);
    ab = tu_buffer(tu_context(), CL_MEM_READ_ONLY, (n_segments + 1) * os);
    // The output buffer in one host write (poison, then in place the input): Oclgrind 21.10
    // reports later kernels' stores to a buffer written in parts (tests/oclgrind/host_write.c).
    memset(got, TU_POISON, (out_off + n) * sizeof *got);
    if (in_place)
      memcpy(got + out_off, in, n * sizeof *in);
    if (!ob || !ib || !ab || !tu_write(tu_context(), NULL, ob, 0, (out_off + n) * 4, got) ||
        (!in_place && !tu_write(tu_context(), NULL, ib, 0, n * 4, in)) ||
        !tu_write(tu_context(), NULL, ab, 0, (n_segments + 1) * os, aux)) {
      snprintf(msg, cap, "device buffers");
      goto done;
    }
    cl_event ev = NULL;
    st = clscan_plan_enqueue_offsets(plan, NULL, ab, 0, n_segments, ib, in_place ? out_off : 0, ob,
                                     out_off, n, 0, NULL, NULL, &ev);
    if (st == CLSCAN_SUCCESS) {
      clWaitForEvents(1, &ev);
      clReleaseEvent(ev);
    }
  }
  if (st != CLSCAN_SUCCESS) {
    snprintf(msg, cap, "%s (%s)", clscan_status_string(st), clscan_last_error_detail());
    goto done;
  }
  if (!tu_read(tu_context(), NULL, ob, 0, (out_off + n) * 4, got)) {
    snprintf(msg, cap, "reading the output");
    goto done;
  }
  clscan_scan_desc ref = desc;
  ref.segments = CLSCAN_SEGMENTS_HEAD_FLAGS;
  ref.key_type = CLSCAN_INT32;
  clscan_ref_mismatch m;
  ok = clscan_ref_check_segmented(&ref, flags, in, got + out_off, n, &m);
  if (!ok)
    snprintf(msg, cap, "element %" PRId64 ": %s", m.index, m.detail);
done:
  if (ob)
    clReleaseMemObject(ob);
  if (ib && ib != ob)
    clReleaseMemObject(ib);
  if (ab)
    clReleaseMemObject(ab);
  clscan_plan_release(plan);
  free(o);
  free(in);
  free(got);
  free(flags);
  free(aux);
  return ok;
}

/* Runs the offsets cases of a configuration: uint32 offsets over 1100 elements (many tiles) and
 * uint64 offsets over 300, exclusive and in place (--in-place: both in place); returns the
 * number that failed. */
static int run_offsets(const config *cfg, unsigned *cases) {
  static const struct {
    clscan_type ot;
    size_t n;
    int exclusive;
  } runs[] = {{CLSCAN_UINT32, 1100, 0}, {CLSCAN_UINT64, 300, 1}};
  /* The second case is in place: every configuration scans in place there. */
  char what[160], msg[1200];
  int failed = 0;
  for (size_t k = 0; k < sizeof runs / sizeof runs[0]; k++) {
    snprintf(what, sizeof what, "%s int32-add/offsets-%s n=%zu%s", cfg->name,
             clscan_type_name(runs[k].ot), runs[k].n,
             runs[k].exclusive ? " exclusive in place"
             : g_in_place      ? " in place"
                               : "");
    tu_progress(what);
    const int in_place = runs[k].exclusive || g_in_place;
    int ok = offsets_case(cfg, runs[k].ot, runs[k].n, runs[k].exclusive, in_place, msg, sizeof msg);
    failed += report_case(what, ok, msg, cases);
  }
  return failed;
}

int main(int argc, char **argv) {
  int quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
  int user_only = argc > 1 && strcmp(argv[1], "--user") == 0;
  g_in_place = argc > 1 && strcmp(argv[1], "--in-place") == 0;
  if (!og_log_start("test_oclgrind"))
    return 2;
  clscan_context *ctx = tu_context();
  if (!ctx)
    return 1;
  if (!strstr(tu_device_name(), "Oclgrind")) {
    fprintf(stderr, "test_oclgrind: the device is \"%s\", not Oclgrind: check OCL_ICD_VENDORS\n",
            tu_device_name());
    return 1;
  }
  og_log_mark();
  printf("oclgrind: data races, uninitialised values and API checks on; log %s\n",
         getenv("OCLGRIND_LOG"));
  printf("oclgrind: tuning");
  for (size_t i = 0; i < TUNING_COUNT; i++)
    printf(" %s=%s", tuning[i].name, tuning[i].value);
  printf("\n");
  og_log_check("context creation");

  int failed = 0;
  unsigned cases = 0, kernels = 0;
  for (size_t k = 0; k < CONFIG_COUNT; k++) {
    if (g_in_place && configs[k].algo != CLSCAN_ALGO_SINGLE_PASS)
      continue;
    for (size_t t = 0; t < TYPE_COUNT && !user_only; t++) {
      failed += run_kernel(&configs[k], types[t], quick ? 1 : SIZE_COUNT, &cases);
      kernels++;
    }
    failed += run_extended(&configs[k], &cases);
    failed += run_offsets(&configs[k], &cases);
    kernels += EXTENDED_COUNT + 2;
  }
  tu_context_release();
  if (og_log_check("context release"))
    failed++;
  og_log_report_known(!g_in_place);
  printf(
      "oclgrind: %u kernel configurations (%zu algorithms x (%zu types + %zu segmented or "
      "user-type descriptors + 2 offsets cases)), %u verified scans, %d failed, %u with Oclgrind "
      "messages\n",
      kernels, CONFIG_COUNT, TYPE_COUNT, EXTENDED_COUNT, cases, failed, og_log_reported());
  printf(
      "oclgrind: not run here: tile_probe (the NVIDIA inline-PTX probe, built only on NVIDIA "
      "devices)%s\n",
      g_in_place ? ""
                 : "; in-place fallbacks (one Oclgrind thread runs work-groups in ticket "
                   "order: `test_oclgrind --in-place` with several threads runs them)");
  printf("%u passed, %d failed\n", cases - (unsigned)failed, failed);
  return failed ? 1 : 0;
}
