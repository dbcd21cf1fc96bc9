/*
 * clscan tests: narrow types (int8, uint8, int16, uint16), whose tile kernels keep a work-item's
 * elements packed in 32-bit words (the packed path of cl/tile.cl).
 *
 * Every narrow type x built-in operator runs under both tile algorithms: reduce-then-scan, and
 * the single pass in its GPU shape (CLSCAN_SINGLE_PASS_CPU=0). Each such cell takes one tile shape
 * (CLSCAN_TILE_VPT in 1, 2, 4, 8, 16 and CLSCAN_TILE_WG in 1, 4, 32 on a CPU, 32, 64, 256
 * elsewhere, in turn, so that every type and algorithm meets every VPT), and runs inclusive and
 * exclusive scans, with and without an initial value, at sizes around its tile (1, tile - 1, tile,
 * tile + 1, many tiles with a partial last one, and a random size) and at offsets that are
 * multiples of a vector (the packed path) or in place; one cell in four also at odd offsets (the
 * generic path, which needs a second build). Each result is checked element by element against the
 * host reference (tests/reference/ref_scan.h), with the guard elements after the output and the
 * input buffer checked too. Inputs are drawn per operator so that the running result keeps changing
 * across the whole range (a running minimum of uniform bytes would stop changing after a few
 * hundred elements). Every other cell builds with -DCLSCAN_NARROW_PRMT=2, which runs the byte
 * permutations of the NVIDIA path through their C version, so that their selectors are checked
 * on any device. Extra cells run the packed path's optional scheme for every type and algorithm,
 * half of them with the C byte permutations too: min and max with -DCLSCAN_NARROW_SIMD=1, in
 * 16-bit halves through simd16_op()'s C version (the NVIDIA path's min/max.{s,u}16x2). Half the
 * single-pass cells withhold every third tile's publications (CLSCAN_TEST_WITHHOLD=3), so that
 * successors reduce those tiles themselves (tile_reduce). A first test checks that the builds
 * compile the packed path where it applies.
 *
 *   test_narrow            all cells
 *   test_narrow rts|sp     one algorithm's cells (CTest runs the two as narrow.rts and narrow.sp)
 *   test_narrow FILTER     the cells whose names match a cmocka filter (e.g. "int8*")
 * CLSCAN_TEST_NARROW_OPTIONS adds build options to every cell (e.g. "-DCLSCAN_NARROW_PRMT=0").
 */
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ref_scan.h"
#include "test_util.h"

#ifndef CLSCAN_TEST_CL_DIR
#define CLSCAN_TEST_CL_DIR "cl"
#endif

static const clscan_type types[] = {CLSCAN_INT8, CLSCAN_UINT8, CLSCAN_INT16, CLSCAN_UINT16};
static const clscan_op ops[] = {CLSCAN_ADD, CLSCAN_MUL, CLSCAN_MIN, CLSCAN_MAX,
                                CLSCAN_AND, CLSCAN_OR,  CLSCAN_XOR};
static const clscan_algorithm algorithms[] = {CLSCAN_ALGO_REDUCE_THEN_SCAN,
                                              CLSCAN_ALGO_SINGLE_PASS};
static const unsigned vpts[] = {1, 2, 4, 8, 16};
/* Tile work-group sizes: on CPUs small ones (POCL's row has 1), elsewhere from a warp up (NVIDIA
 * needs at least 32, and several warps exercise the scan of the warps' totals). */
static const unsigned cpu_wgs[] = {1, 4, 32}, gpu_wgs[] = {32, 64, 256};
#define COUNT(a) (sizeof(a) / sizeof((a)[0]))
/* The optional scheme of the packed path, per operator: the operator and the option that selects
 * the scheme. */
static const struct {
  clscan_op op;
  const char *option, *tag;
} schemes[] = {{CLSCAN_MIN, "-DCLSCAN_NARROW_SIMD=1", "simd"},
               {CLSCAN_MAX, "-DCLSCAN_NARROW_SIMD=1", "simd"}};
#define CELL_COUNT                                 \
  (COUNT(types) * COUNT(ops) * COUNT(algorithms) + \
   COUNT(types) * COUNT(schemes) * COUNT(algorithms))

/* One type x operator x algorithm, with its tile shape. */
typedef struct cell {
  char name[96];
  clscan_type type;
  clscan_op op;
  clscan_algorithm algo;
  unsigned wg, vpt;
  int prmt;          /* 1: built with -DCLSCAN_NARROW_PRMT=2 */
  int scheme;        /* 1 + the index in schemes[] of its optional scheme, or 0 */
  char options[256]; /* the build options that prmt and scheme ask for ("" for none) */
  int odd_offsets;   /* 1: some cases have odd offsets (the generic path) */
  int withhold;      /* single pass: 1 with CLSCAN_TEST_WITHHOLD=3 (tile_reduce runs) */
} cell;

static cell cells[CELL_COUNT];

/* ============================================================================================== */
/* Inputs                                                                                         */
/* ============================================================================================== */

/* Smallest and largest value of a narrow type. */
static void type_range(clscan_type t, int64_t *lo, int64_t *hi) {
  size_t bits = 8 * clscan_type_size(t);
  int is_signed = t == CLSCAN_INT8 || t == CLSCAN_INT16;
  *lo = is_signed ? -((int64_t)1 << (bits - 1)) : 0;
  *hi = is_signed ? ((int64_t)1 << (bits - 1)) - 1 : ((int64_t)1 << bits) - 1;
}

/* Stores v (truncated to the type's bits) as element i. */
static void put(clscan_type t, void *data, size_t i, uint64_t v) {
  if (clscan_type_size(t) == 1)
    ((uint8_t *)data)[i] = (uint8_t)v;
  else
    ((uint16_t *)data)[i] = (uint16_t)v;
}

/* Bits an or-scan input sets at element i: each bit b first appears at a random position
 * first[b], then in about a quarter of the elements (and-scan inputs clear them instead). */
static uint64_t spread_bits(const size_t *first, size_t bits, uint64_t r, size_t i) {
  uint64_t v = 0;
  for (size_t b = 0; b < bits; b++) {
    if (i == first[b] || (i > first[b] && ((r >> b) & (r >> (b + 20)) & 1)))
      v |= (uint64_t)1 << b;
  }
  return v;
}

/* Fills n elements for a scan with op: uniform bits for add and xor; mostly odd factors for
 * mul (an even one rarely, so products reach zero late if at all); for min (max) a floor that
 * falls (rises) across the range with values just above (below) it, and now and then the
 * identity; bits that appear (and: disappear) at random positions for or and and. */
static void fill_input(clscan_type t, clscan_op op, uint64_t seed, void *data, size_t n) {
  const size_t bits = 8 * clscan_type_size(t);
  int64_t lo, hi;
  type_range(t, &lo, &hi);
  size_t first[16];
  for (size_t b = 0; b < bits; b++)
    first[b] = (size_t)(tu_mix(seed, 1000 + b) % (n + 1));
  for (size_t i = 0; i < n; i++) {
    const uint64_t r = tu_mix(seed, i);
    const int64_t floor_down = hi - 31 - (int64_t)((double)(hi - 31 - lo) * (double)i / (double)n);
    const int64_t floor_up = lo + 31 + (int64_t)((double)(hi - 31 - lo) * (double)i / (double)n);
    uint64_t v = r;
    if (op == CLSCAN_MUL)
      v = r % (n + 1) < 3 ? r & ~(uint64_t)1 : r | 1;
    else if (op == CLSCAN_MIN)
      v = (uint64_t)(r % 16 == 0 ? hi : floor_down + (int64_t)(r >> 8) % 32);
    else if (op == CLSCAN_MAX)
      v = (uint64_t)(r % 16 == 0 ? lo : floor_up - (int64_t)(r >> 8) % 32);
    else if (op == CLSCAN_OR)
      v = spread_bits(first, bits, r, i);
    else if (op == CLSCAN_AND)
      v = ~spread_bits(first, bits, r, i);
    put(t, data, i, v);
  }
}

/* ============================================================================================== */
/* One checked scan                                                                               */
/* ============================================================================================== */

/* Where a case's ranges lie (in elements). */
typedef struct placement {
  size_t in_off, out_off;
  int in_place;
} placement;

/* Reports a failed case into msg; returns 0. */
static int failed(char *msg, size_t cap, const char *what, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
static int failed(char *msg, size_t cap, const char *what, const char *fmt, ...) {
  int len = snprintf(msg, cap, "%s: ", what);
  va_list ap;
  va_start(ap, fmt);
  if (len >= 0 && (size_t)len < cap)
    vsnprintf(msg + len, cap - (size_t)len, fmt, ap);
  va_end(ap);
  return 0;
}

/* Enqueues a plan over the case's buffers, waits, and reads the output buffer back. */
static int scan_buffers(clscan_plan *plan, const placement *p, size_t n, cl_mem in, cl_mem out,
                        size_t out_bytes, unsigned char *img, const char *what, char *msg,
                        size_t cap) {
  clscan_context *ctx = tu_context();
  cl_event done = NULL;
  clscan_status st = clscan_plan_enqueue(plan, NULL, in, p->in_place ? p->out_off : p->in_off, out,
                                         p->out_off, n, 0, NULL, &done);
  if (st != CLSCAN_SUCCESS)
    return failed(msg, cap, what, "clscan_plan_enqueue returned %s (%s)", clscan_status_string(st),
                  clscan_last_error_detail());
  cl_int err = clWaitForEvents(1, &done);
  clReleaseEvent(done);
  if (err != CL_SUCCESS)
    return failed(msg, cap, what, "clWaitForEvents returned %d", (int)err);
  if (!tu_read(ctx, NULL, out, 0, out_bytes, img))
    return failed(msg, cap, what, "clEnqueueReadBuffer failed");
  return 1;
}

/* Checks the output image: the results against the reference, the guards after them, and the
 * poison before them. */
static int check_results(const clscan_scan_desc *desc, const placement *p, size_t n,
                         const unsigned char *input, const unsigned char *img, const char *what,
                         char *msg, size_t cap) {
  const size_t e = clscan_type_size(desc->type);
  clscan_ref_mismatch m;
  if (!clscan_ref_check(desc, input, img + p->out_off * e, n, &m))
    return failed(msg, cap, what, "element %" PRId64 ": %s", m.index, m.detail);
  if (!tu_all_bytes(img, p->out_off * e, TU_POISON))
    return failed(msg, cap, what, "bytes before the output range were written");
  if (!tu_all_bytes(img + (p->out_off + n) * e, TU_GUARD * e, TU_POISON))
    return failed(msg, cap, what, "guard elements after the output range were written");
  return 1;
}

/* Runs one scan of n elements from `input` through `plan` and checks everything. */
static int run_scan(clscan_plan *plan, const clscan_scan_desc *desc, const placement *p, size_t n,
                    const unsigned char *input, const char *what, char *msg, size_t cap) {
  clscan_context *ctx = tu_context();
  const size_t e = clscan_type_size(desc->type);
  const size_t in_bytes = (p->in_off + n + TU_GUARD) * e,
               out_bytes = (p->out_off + n + TU_GUARD) * e;
  unsigned char *in_img = malloc(in_bytes), *out_img = malloc(out_bytes);
  cl_mem in = NULL, out = NULL;
  int ok = in_img && out_img ? 1 : failed(msg, cap, what, "out of host memory");
  if (ok) {
    memset(in_img, TU_INPUT_FILL, in_bytes);
    memcpy(in_img + p->in_off * e, input, n * e);
    memset(out_img, TU_POISON, out_bytes);
    if (p->in_place)
      memcpy(out_img + p->out_off * e, input, n * e);
    out = tu_buffer(ctx, CL_MEM_READ_WRITE, out_bytes);
    in = p->in_place ? out : tu_buffer(ctx, CL_MEM_READ_WRITE, in_bytes);
    ok = in && out && tu_write(ctx, NULL, out, 0, out_bytes, out_img) &&
         (p->in_place || tu_write(ctx, NULL, in, 0, in_bytes, in_img));
    if (!ok)
      failed(msg, cap, what, "buffer creation or write failed");
  }
  if (ok)
    ok = scan_buffers(plan, p, n, in, out, out_bytes, out_img, what, msg, cap) &&
         check_results(desc, p, n, input, out_img, what, msg, cap);
  if (ok && !p->in_place) {
    // The input buffer, whole, must be unchanged (read back over the output image).
    unsigned char *back = in_bytes > out_bytes ? realloc(out_img, in_bytes) : out_img;
    ok = back != NULL;
    if (back)
      out_img = back;
    ok = ok && tu_read(ctx, NULL, in, 0, in_bytes, out_img);
    if (ok && memcmp(out_img, in_img, in_bytes) != 0)
      ok = failed(msg, cap, what, "the input buffer was modified");
  }
  if (in && in != out)
    clReleaseMemObject(in);
  if (out)
    clReleaseMemObject(out);
  free(in_img);
  free(out_img);
  return ok;
}

/* ============================================================================================== */
/* Cells                                                                                          */
/* ============================================================================================== */

/* Names a cell and sets its build options from its fields. */
static void name_cell(cell *x) {
  // CLSCAN_TEST_NARROW_OPTIONS is added to every cell's options.
  // Min and max cells without a scheme ask for the lane scheme, so that it is tested also where
  // the halves are the default (NVIDIA from sm_90, cl/tile.cl).
  const char *extra = getenv("CLSCAN_TEST_NARROW_OPTIONS");
  const char *lanes = x->op == CLSCAN_MIN || x->op == CLSCAN_MAX ? "-DCLSCAN_NARROW_SIMD=0" : "";
  snprintf(x->options, sizeof x->options, "%s%s %s", x->prmt ? "-DCLSCAN_NARROW_PRMT=2 " : "",
           x->scheme ? schemes[x->scheme - 1].option : lanes, extra ? extra : "");
  snprintf(x->name, sizeof x->name, "%s.%s.%s.wg%u.vpt%u%s%s%s%s%s", clscan_type_name(x->type),
           clscan_op_name(x->op), x->algo == CLSCAN_ALGO_SINGLE_PASS ? "sp" : "rts", x->wg, x->vpt,
           x->scheme ? "." : "", x->scheme ? schemes[x->scheme - 1].tag : "",
           x->prmt ? ".prmt" : "", x->odd_offsets ? ".odd" : "", x->withhold ? ".withhold" : "");
}

/* Adds the cells of the optional schemes from c on: every type x scheme x algorithm, with
 * shapes, byte permutations and withheld tiles in turn (odd offsets would only run the generic
 * path again). */
static void build_scheme_cells(size_t c) {
  for (size_t t = 0; t < COUNT(types); t++) {
    for (size_t o = 0; o < COUNT(schemes); o++) {
      for (size_t a = 0; a < COUNT(algorithms); a++, c++) {
        cell *x = &cells[c];
        x->type = types[t];
        x->op = schemes[o].op;
        x->algo = algorithms[a];
        x->vpt = vpts[(o + 3 * a + 2 * t + 1) % COUNT(vpts)];
        x->wg = (tu_device_is_cpu() ? cpu_wgs : gpu_wgs)[(o + 2 * a + t + 1) % COUNT(cpu_wgs)];
        x->prmt = (int)((t + o) % 2);
        x->scheme = (int)o + 1;
        x->odd_offsets = 0;
        x->withhold = a == 1 && (o + t) % 2 == 1;
        name_cell(x);
      }
    }
  }
}

/* Fills the cell table: every type x operator x algorithm, the tile shapes in turn, then the
 * cells of the optional schemes. */
static void build_cells(void) {
  size_t c = 0;
  for (size_t t = 0; t < COUNT(types); t++) {
    for (size_t o = 0; o < COUNT(ops); o++) {
      for (size_t a = 0; a < COUNT(algorithms); a++, c++) {
        cell *x = &cells[c];
        x->type = types[t];
        x->op = ops[o];
        x->algo = algorithms[a];
        x->vpt = vpts[(o + 2 * a + t) % COUNT(vpts)];
        x->wg = (tu_device_is_cpu() ? cpu_wgs : gpu_wgs)[(o + a + t) % COUNT(cpu_wgs)];
        x->prmt = (int)(c % 2);
        // A debugging aid: CLSCAN_TEST_NARROW_PRMT=0 or 1 sets every cell's choice.
        const char *prmt = getenv("CLSCAN_TEST_NARROW_PRMT");
        if (prmt && *prmt)
          x->prmt = atoi(prmt) != 0;
        x->odd_offsets = (o + t) % 4 == a;
        x->withhold = a == 1 && (o + t) % 2 == 0;
        x->scheme = 0;
        name_cell(x);
      }
    }
  }
  build_scheme_cells(c);
}

/* The environment a cell's plans and builds are made under. */
typedef struct cell_env {
  tu_env_saved wg, vpt, shape, options, withhold;
} cell_env;

static void cell_env_set(const cell *x, cell_env *env) {
  char wg[16], vpt[16];
  snprintf(wg, sizeof wg, "%u", x->wg);
  snprintf(vpt, sizeof vpt, "%u", x->vpt);
  tu_env_set("CLSCAN_TILE_WG", wg, &env->wg);
  tu_env_set("CLSCAN_TILE_VPT", vpt, &env->vpt);
  tu_env_set("CLSCAN_SINGLE_PASS_CPU", "0", &env->shape);
  tu_env_set("CLSCAN_BUILD_OPTIONS", x->options, &env->options);
  tu_env_set("CLSCAN_TEST_WITHHOLD", x->withhold ? "3" : NULL, &env->withhold);
}

static void cell_env_restore(const cell_env *env) {
  tu_env_restore(&env->withhold);
  tu_env_restore(&env->options);
  tu_env_restore(&env->shape);
  tu_env_restore(&env->vpt);
  tu_env_restore(&env->wg);
}

/* The placement of size index i: offsets that are multiples of a vector (none, or some), odd
 * ones (where `odd` allows them: each cell that has them needs a second build, of the generic
 * path, which the scan matrix covers too), or in place at a multiple of a vector. */
static placement place(size_t i, size_t vec, int odd) {
  placement p = {0, 0, 0};
  switch (i % 4) {
    case 1:
      p.in_off = vec * (1 + i % 3);
      p.out_off = vec * (2 + i % 5);
      break;
    case 2:
      p.in_off = odd ? 2 * (i % 4) + 1 : vec * 3;
      p.out_off = odd ? i % 3 : 0;
      break;
    case 3:
      p.in_place = 1;
      p.in_off = p.out_off = vec * (i % 2);
      break;
    default:
      break;
  }
  return p;
}

/* Runs one combination (exclusive, init) of a cell over its sizes. */
static int run_combo(const cell *x, unsigned combo, size_t tile, uint64_t seed, char *msg,
                     size_t cap) {
  uint64_t s = tu_mix(seed, 0x5123 + combo);
  const size_t many = tile * tu_random_size(&s, 2, 6) + tu_random_size(&s, 1, tile - 1);
  const size_t sizes[] = {1, tile - 1, tile, tile + 1, many, tu_random_size(&s, 2, 3 * tile)};
  _Alignas(8) unsigned char init[8] = {0};
  clscan_scan_desc desc = {
      .type = x->type, .op = x->op, .exclusive = (int)(combo & 1), .algorithm = x->algo};
  if (combo & 2) {
    put(x->type, init, 0, tu_mix(seed, 0x1417));
    desc.init = init;
  }
  clscan_plan *plan = NULL;
  clscan_status st = clscan_plan_create(tu_context(), &desc, &plan);
  if (st != CLSCAN_SUCCESS)
    return failed(msg, cap, x->name, "clscan_plan_create returned %s (%s)",
                  clscan_status_string(st), clscan_last_error_detail());
  const size_t e = clscan_type_size(x->type), vec = 16 / e;
  int ok = 1;
  for (size_t i = 0; ok && i < COUNT(sizes); i++) {
    const size_t n = sizes[i];
    const placement p = place(i + combo, vec, x->odd_offsets);
    const uint64_t data_seed = tu_mix(s, i);
    char what[256];
    snprintf(what, sizeof what,
             "%s %s%s n=%zu (tile %zu) in_off=%zu out_off=%zu%s data seed %" PRIu64, x->name,
             desc.exclusive ? "exclusive" : "inclusive", desc.init ? " with init" : "", n, tile,
             p.in_off, p.out_off, p.in_place ? " in place" : "", data_seed);
    tu_progress(what);
    unsigned char *input = malloc(n * e);
    if (!input) {
      ok = failed(msg, cap, what, "out of host memory");
      break;
    }
    fill_input(x->type, x->op, data_seed, input, n);
    ok = run_scan(plan, &desc, &p, n, input, what, msg, cap);
    free(input);
  }
  clscan_plan_release(plan);
  return ok;
}

/* A cmocka test: every combination of one cell. */
static void test_cell(void **state) {
  const cell *x = *state;
  clscan_context *ctx = tu_context();
  clscan_scan_desc probe = {.type = x->type, .op = x->op, .algorithm = x->algo};
  if (clscan_context_supports(ctx, &probe) != CLSCAN_SUCCESS) {
    printf("  %s: not supported by this device (%s)\n", x->name, clscan_last_error_detail());
    skip();
  }
  const size_t tile = (size_t)x->wg * x->vpt * (16 / clscan_type_size(x->type));
  const uint64_t seed = tu_mix(tu_seed(), (uint64_t)(x - cells));
  char msg[1024] = "";
  cell_env env;
  cell_env_set(x, &env);
  int ok = 1;
  for (unsigned combo = 0; ok && combo < 4; combo++)
    ok = run_combo(x, combo, tile, seed, msg, sizeof msg);
  cell_env_restore(&env);
  if (!ok)
    fail_msg("%s", msg);
}

/* ============================================================================================== */
/* The packed path is what the builds compile                                                     */
/* ============================================================================================== */

/* Reads a file into a NUL-terminated buffer, or returns NULL. */
static char *read_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f)
    return NULL;
  fseek(f, 0, SEEK_END);
  long size = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *text = size >= 0 ? malloc((size_t)size + 1) : NULL;
  if (text && fread(text, 1, (size_t)size, f) != (size_t)size) {
    free(text);
    text = NULL;
  }
  if (text)
    text[size] = '\0';
  fclose(f);
  return text;
}

/* Builds common.cl and tile.cl with `options` and a check that TILE_PACKED is `expected`;
 * returns the build's status. */
static cl_int build_tile(const char *common, const char *tile, const char *options, int expected) {
  clscan_context *ctx = tu_context();
  char check[160];
  snprintf(check, sizeof check,
           "\n#if TILE_PACKED != %d\n#error \"TILE_PACKED is not %d\"\n#endif\n", expected,
           expected);
  const char *texts[] = {common, tile, check};
  cl_int err;
  cl_program p = clCreateProgramWithSource(clscan_context_cl_context(ctx), 3, texts, NULL, &err);
  assert_int_equal(err, CL_SUCCESS);
  cl_device_id dev = clscan_context_device(ctx);
  err = clBuildProgram(p, 1, &dev, options, NULL, NULL);
  clReleaseProgram(p);
  return err;
}

static void test_packed_path_selected(void **state) {
  (void)state;
  char *common = read_file(CLSCAN_TEST_CL_DIR "/common.cl");
  char *tile = read_file(CLSCAN_TEST_CL_DIR "/tile.cl");
  if (!common || !tile) {
    free(common);
    free(tile);
    printf("  %s is not readable (tests run away from the source tree): skipped\n",
           CLSCAN_TEST_CL_DIR);
    skip();
  }
  // Each narrow type with aligned I/O takes the packed path; unaligned I/O, a wider type, a
  // different output type or a segmented scan does not.
  static const struct {
    const char *options;
    int packed;
  } builds[] = {
      {"-DCLSCAN_TYPE=6 -DCLSCAN_OP=0 -DCLSCAN_VECTOR_IO=1", 1},
      {"-DCLSCAN_TYPE=7 -DCLSCAN_OP=2 -DCLSCAN_VECTOR_IO=1", 1},
      {"-DCLSCAN_TYPE=8 -DCLSCAN_OP=6 -DCLSCAN_VECTOR_IO=1", 1},
      {"-DCLSCAN_TYPE=9 -DCLSCAN_OP=1 -DCLSCAN_VECTOR_IO=1", 1},
      {"-DCLSCAN_TYPE=6 -DCLSCAN_OP=0 -DCLSCAN_VECTOR_IO=0", 0},
      {"-DCLSCAN_TYPE=0 -DCLSCAN_OP=0 -DCLSCAN_VECTOR_IO=1", 0},
      {"-DCLSCAN_TYPE=1 -DCLSCAN_IN_TYPE=7 -DCLSCAN_OP=0 -DCLSCAN_VECTOR_IO=1", 0},
      {"-DCLSCAN_TYPE=7 -DCLSCAN_OP=0 -DCLSCAN_SEGMENTS=1 -DCLSCAN_STATE_ALIGN=4 "
       "-DCLSCAN_VECTOR_IO=1",
       0},
  };
  for (size_t i = 0; i < COUNT(builds); i++) {
    char options[256];
    snprintf(options, sizeof options, "-cl-std=CL1.2 %s", builds[i].options);
    tu_progress(options);
    cl_int err = build_tile(common, tile, options, builds[i].packed);
    if (err != CL_SUCCESS) {
      free(common);
      free(tile);
      fail_msg(
          "[%s]: the build with TILE_PACKED == %d failed (%d): the path is not the expected "
          "one",
          options, builds[i].packed, (int)err);
    }
    printf("  [%s]: %s path\n", builds[i].options, builds[i].packed ? "packed" : "generic");
  }
  free(common);
  free(tile);
}

int main(int argc, char **argv) {
  if (!tu_context())
    return 1;
  build_cells();
  // "rts" and "sp" select an algorithm's cells (CTest runs them as two tests); any other
  // argument is a cmocka filter.
  const char *group = argc > 1 ? argv[1] : "";
  const int rts = strcmp(group, "rts") == 0, sp = strcmp(group, "sp") == 0;
  struct CMUnitTest tests[CELL_COUNT + 1];
  size_t count = 0;
  if (!sp)
    tests[count++] = (struct CMUnitTest)cmocka_unit_test(test_packed_path_selected);
  for (size_t i = 0; i < CELL_COUNT; i++) {
    const int is_sp = cells[i].algo == CLSCAN_ALGO_SINGLE_PASS;
    if ((rts && is_sp) || (sp && !is_sp))
      continue;
    tests[count] = (struct CMUnitTest)cmocka_unit_test_prestate(test_cell, &cells[i]);
    tests[count++].name = cells[i].name;
  }
  if (*group && !rts && !sp)
    cmocka_set_test_filter(group);
  int failed_count =
      _cmocka_run_group_tests("narrow", tests, count, tu_group_setup, tu_group_teardown);
  tu_context_release();
  printf("clscan tests: seed %" PRIu64 "\n", tu_seed());
  return failed_count;
}
