/*
 * clscan_mpi tests: distributed scans checked against a sequential reference of the
 * concatenated data, and the collective agreement on errors.
 *
 * Run under mpirun with any number of ranks: `test_mpi full` scans every type and operator,
 * `test_mpi quick` a subset; both run the edge cases and the error cases. Every rank derives all
 * ranks' sizes and data from the case seed (tools/ref_scan.h generates the data), so rank r
 * checks its slice against the reference of elements [0, s_r + n_r) without receiving anything.
 * The base seed is CLSCAN_TEST_SEED (a number) or a fixed default, printed at start; a failure
 * prints its case and seed. The last line is "N passed, M failed" over all ranks.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clscan_mpi.h"
#include "ref_scan.h"

/* Default base seed when CLSCAN_TEST_SEED is not set. */
#define DEFAULT_SEED 20251207u

/* Largest number of elements a rank gets in random cases. */
#define MAX_LOCAL 100000

/* ============================================================================================== */
/* Suite state and checks                                                                         */
/* ============================================================================================== */

typedef struct suite {
  int rank, size;
  clscan_context *ctx;
  cl_command_queue user_queue; /* a second in-order queue of the context's device */
  uint64_t seed;
  int has_fp64;
  int passed, failed;
} suite;

/* Counts a check; prints a failure with this rank's number. */
static int check(suite *s, int ok, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static int check(suite *s, int ok, const char *fmt, ...) {
  if (ok) {
    s->passed++;
    return 1;
  }
  s->failed++;
  va_list ap;
  va_start(ap, fmt);
  printf("FAIL rank %d: ", s->rank);
  vprintf(fmt, ap);
  printf("\n");
  fflush(stdout);
  va_end(ap);
  return 0;
}

/* splitmix64 step, for sizes and offsets. */
static uint64_t mix(uint64_t *state) {
  uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/* ============================================================================================== */
/* Cases                                                                                          */
/* ============================================================================================== */

/* How the ranks' sizes are chosen. */
typedef enum sizes_kind {
  SIZES_RANDOM = 0, /* 0, 1..16, or a few thousand to MAX_LOCAL, per rank */
  SIZES_ALL_EMPTY,
  SIZES_ONLY_LAST,
  SIZES_ONLY_FIRST,
  SIZES_ONE_EACH
} sizes_kind;

typedef struct scan_case {
  clscan_type type;
  clscan_op op;
  int exclusive, with_init;
  int host;     /* 1: clscan_mpi_scan_host, else device buffers */
  int in_place; /* 1: in == out (same buffer and offset, or same host array) */
  clscan_algorithm algorithm;
  sizes_kind sizes;
  uint64_t seed;
} scan_case;

/* Fills every rank's size for a case. */
static void case_sizes(const scan_case *c, int size, size_t *n) {
  uint64_t st = c->seed ^ 0x51735u;
  for (int r = 0; r < size; r++) {
    uint64_t u = mix(&st);
    switch (c->sizes) {
      case SIZES_ALL_EMPTY:
        n[r] = 0;
        break;
      case SIZES_ONLY_LAST:
        n[r] = r == size - 1 ? 3000 : 0;
        break;
      case SIZES_ONLY_FIRST:
        n[r] = r == 0 ? 3000 : 0;
        break;
      case SIZES_ONE_EACH:
        n[r] = 1;
        break;
      default:
        n[r] = u % 5 == 0   ? 0
               : u % 5 == 1 ? 1 + (u >> 8) % 16
                            : 2000 + (u >> 8) % (MAX_LOCAL - 1999);
        break;
    }
  }
}

/* Describes a case for failure messages. */
static void case_name(const scan_case *c, char *buf, size_t cap) {
  snprintf(buf, cap, "%s %s %s init=%s %s%s algorithm=%s sizes=%d seed=%" PRIu64,
           clscan_type_name(c->type), clscan_op_name(c->op),
           c->exclusive ? "exclusive" : "inclusive", c->with_init ? "yes" : "no",
           c->host ? "host" : "device", c->in_place ? " in-place" : "",
           clscan_algorithm_name(c->algorithm), (int)c->sizes, c->seed);
}

/* Checks this rank's slice against the reference of the concatenated data. */
static void verify(suite *s, const scan_case *c, const clscan_scan_desc *d, const void *global,
                   size_t start, const void *got, size_t n) {
  size_t e = clscan_type_size(c->type);
  unsigned char *both = malloc((start + n) * e + 1);
  char name[200];
  case_name(c, name, sizeof name);
  if (!check(s, both != NULL, "%s: out of host memory", name))
    return;

  // The reference for the ranks before this one, then this rank's result.
  clscan_ref_scan(d, global, both, start);
  memcpy(both + start * e, got, n * e);
  clscan_ref_mismatch m;
  int ok = clscan_ref_check(d, global, both, start + n, &m);
  if (!ok && m.index >= (int64_t)start)
    m.index -= (int64_t)start;
  check(s, ok, "%s: slice of %zu at %zu: %s (local index %" PRId64 ")", name, n, start, m.detail,
        m.index);
  free(both);
}

/* Runs the device-buffer variant: uploads at offsets, waits for the upload, reads back. */
static clscan_status run_device(suite *s, const scan_case *c, const clscan_scan_desc *d,
                                const void *slice, void *got, size_t n) {
  size_t e = clscan_type_size(c->type);
  uint64_t st = c->seed ^ (uint64_t)(s->rank + 1) * 0x9E37u;
  size_t in_off = mix(&st) % 7, out_off = c->in_place ? in_off : mix(&st) % 7;
  cl_command_queue q = (c->seed & 1) ? s->user_queue : NULL;
  cl_command_queue use = q ? q : clscan_context_queue(s->ctx);
  cl_context cl = clscan_context_cl_context(s->ctx);
  cl_int err;
  cl_mem in = clCreateBuffer(cl, CL_MEM_READ_WRITE, (in_off + n + 1) * e, NULL, &err);
  cl_mem out =
      c->in_place ? in : clCreateBuffer(cl, CL_MEM_READ_WRITE, (out_off + n + 1) * e, NULL, &err);
  cl_event up = NULL, done = NULL;
  if (n)
    clEnqueueWriteBuffer(use, in, CL_FALSE, in_off * e, n * e, slice, 0, NULL, &up);
  clscan_status status = clscan_mpi_scan(s->ctx, MPI_COMM_WORLD, q, d, in, in_off, out, out_off, n,
                                         up ? 1 : 0, up ? &up : NULL, &done);
  if (status == CLSCAN_SUCCESS) {
    check(s, done != NULL, "no done event");
    if (n)
      clEnqueueReadBuffer(use, out, CL_TRUE, out_off * e, n * e, got, 1, &done, NULL);
    if (done)
      clWaitForEvents(1, &done);
  }
  if (done)
    clReleaseEvent(done);
  if (up)
    clReleaseEvent(up);
  if (out != in)
    clReleaseMemObject(out);
  clReleaseMemObject(in);
  return status;
}

/* Runs one case on every rank and checks this rank's slice. */
static void run_case(suite *s, const scan_case *c) {
  size_t n[64], start = 0, total = 0, e = clscan_type_size(c->type);
  case_sizes(c, s->size, n);
  for (int r = 0; r < s->size; r++) {
    if (r < s->rank)
      start += n[r];
    total += n[r];
  }
  unsigned char init[8];
  clscan_scan_desc d = {
      .type = c->type, .op = c->op, .exclusive = c->exclusive, .algorithm = c->algorithm};
  if (c->with_init) {
    clscan_ref_fill(c->type, c->op, c->seed ^ 0x1417u, init, 1);
    d.init = init;
  }

  // Every rank generates the whole concatenation; its slice starts at `start`.
  unsigned char *global = malloc(total * e + 1), *got = malloc(n[s->rank] * e + 1);
  clscan_ref_fill(c->type, c->op, c->seed, global, total);
  const unsigned char *slice = global + start * e;
  clscan_status st;
  if (c->host) {
    if (c->in_place)
      memcpy(got, slice, n[s->rank] * e);
    st = clscan_mpi_scan_host(s->ctx, MPI_COMM_WORLD, &d, c->in_place ? got : slice, got,
                              n[s->rank]);
  } else {
    st = run_device(s, c, &d, slice, got, n[s->rank]);
  }
  char name[200];
  case_name(c, name, sizeof name);
  if (check(s, st == CLSCAN_SUCCESS, "%s: %s (%s)", name, clscan_status_string(st),
            clscan_mpi_last_error_detail()))
    verify(s, c, &d, global, start, got, n[s->rank]);
  free(global);
  free(got);
}

/* Returns 1 if an operator applies to a type. */
static int op_applies(clscan_type t, clscan_op op) {
  if (t == CLSCAN_HALF)
    return 0; /* the reference has no half type */
  return !((t == CLSCAN_FLOAT || t == CLSCAN_DOUBLE) && op >= CLSCAN_AND);
}

/* Runs the eight variants (inclusive or exclusive, init or not, host or device) of a type and
 * operator, with random sizes; in-place and the user queue vary with the seed. */
static void run_pair(suite *s, clscan_type t, clscan_op op, uint64_t *serial) {
  if (t == CLSCAN_DOUBLE && !s->has_fp64)
    return;
  for (int v = 0; v < 8; v++) {
    scan_case c = {.type = t,
                   .op = op,
                   .exclusive = v & 1,
                   .with_init = (v >> 1) & 1,
                   .host = (v >> 2) & 1,
                   .sizes = SIZES_RANDOM};
    c.seed = s->seed + 1000003u * (*serial)++;
    c.in_place = (c.seed >> 3) % 3 == 0;
    run_case(s, &c);
  }
}

/* The matrix: every type and operator ("full") or a subset that covers each type once and each
 * operator at least twice ("quick"). */
static void run_matrix(suite *s, int full, uint64_t *serial) {
  static const struct {
    clscan_type t;
    clscan_op op;
  } quick[] = {
      {CLSCAN_INT32, CLSCAN_ADD},  {CLSCAN_UINT32, CLSCAN_MIN}, {CLSCAN_INT64, CLSCAN_MAX},
      {CLSCAN_UINT64, CLSCAN_XOR}, {CLSCAN_FLOAT, CLSCAN_ADD},  {CLSCAN_DOUBLE, CLSCAN_MUL},
      {CLSCAN_INT8, CLSCAN_MUL},   {CLSCAN_UINT8, CLSCAN_AND},  {CLSCAN_INT16, CLSCAN_OR},
      {CLSCAN_UINT16, CLSCAN_MIN}, {CLSCAN_FLOAT, CLSCAN_MAX},  {CLSCAN_INT32, CLSCAN_AND}};
  if (!full) {
    for (size_t i = 0; i < sizeof quick / sizeof quick[0]; i++)
      run_pair(s, quick[i].t, quick[i].op, serial);
    return;
  }
  for (int t = 0; t < CLSCAN_TYPE_COUNT; t++) {
    for (int op = 0; op < CLSCAN_OP_COUNT; op++) {
      if (op_applies((clscan_type)t, (clscan_op)op))
        run_pair(s, (clscan_type)t, (clscan_op)op, serial);
    }
  }
}

/* Edge cases of sizes: all empty, only the last or first rank with data, one element each; with
 * and without init, inclusive and exclusive, both variants. */
static void run_edges(suite *s, uint64_t *serial) {
  for (int k = SIZES_ALL_EMPTY; k <= SIZES_ONE_EACH; k++) {
    for (int v = 0; v < 8; v++) {
      scan_case c = {.type = v < 4 ? CLSCAN_INT32 : CLSCAN_FLOAT,
                     .op = v < 4 ? CLSCAN_ADD : CLSCAN_MIN,
                     .exclusive = v & 1,
                     .with_init = (v >> 1) & 1,
                     .host = (v + k) & 1,
                     .sizes = (sizes_kind)k};
      c.seed = s->seed + 1000003u * (*serial)++;
      c.in_place = k == SIZES_ONE_EACH && !c.host;
      run_case(s, &c);
    }
  }
}

/* Runs each explicit algorithm, rank r using algorithm a + r (the ranks' devices may choose
 * differently), on int32 add and uint8 max, inclusive and exclusive with init. Algorithms that
 * some rank's device lacks are skipped by every rank. */
static void run_algorithms(suite *s, uint64_t *serial) {
  for (int a = 0; a < CLSCAN_ALGORITHM_COUNT - 1; a++) {
    clscan_algorithm mine = (clscan_algorithm)(1 + (a + s->rank) % (CLSCAN_ALGORITHM_COUNT - 1));
    clscan_scan_desc probe = {.algorithm = mine};
    int ok = clscan_context_supports(s->ctx, &probe) == CLSCAN_SUCCESS;
    MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!ok)
      continue;
    for (int v = 0; v < 4; v++) {
      scan_case c = {.type = v < 2 ? CLSCAN_INT32 : CLSCAN_UINT8,
                     .op = v < 2 ? CLSCAN_ADD : CLSCAN_MAX,
                     .exclusive = v & 1,
                     .with_init = v & 1,
                     .host = 0,
                     .algorithm = mine,
                     .sizes = SIZES_RANDOM};
      c.seed = s->seed + 1000003u * (*serial)++;
      run_case(s, &c);
    }
  }
}

/* ============================================================================================== */
/* Error agreement                                                                                */
/* ============================================================================================== */

/* What one rank does wrong in an error case. */
typedef enum fault {
  FAULT_SMALL_OUT = 0, /* the output buffer is one element too small */
  FAULT_NULL_IN,       /* the input buffer is NULL */
  FAULT_BAD_TYPE,      /* the descriptor's type is out of range */
  FAULT_OTHER_DESC,    /* the descriptor is exclusive where the others are inclusive */
  FAULT_OTHER_INIT,    /* the init value differs */
  FAULT_BITWISE_FLOAT, /* a bitwise operator on floats */
  FAULT_OVERLAP,       /* input and output overlap without being identical */
  FAULT_HOST_NULL_OUT, /* host variant: out is NULL with n > 0 */
  FAULT_TWO_RANKS,     /* rank 0: NULL input; the last rank: too small; the latter wins */
  FAULT_COUNT
} fault;

static const clscan_status fault_status[FAULT_COUNT] = {
    CLSCAN_BUFFER_TOO_SMALL, CLSCAN_NULL_ARGUMENT, CLSCAN_INVALID_TYPE,
    CLSCAN_INVALID_VALUE,    CLSCAN_INVALID_VALUE, CLSCAN_UNSUPPORTED_OP_FOR_TYPE,
    CLSCAN_OVERLAP,          CLSCAN_NULL_ARGUMENT, CLSCAN_BUFFER_TOO_SMALL};

/* Runs a device scan where the faulty rank (the last) breaks one argument; every rank must get
 * the same status, and the output must be untouched. */
static void run_fault(suite *s, fault f) {
  const size_t n = 1000, e = 4;
  if (s->size == 1 && (f == FAULT_OTHER_DESC || f == FAULT_OTHER_INIT))
    return; /* no other rank */
  int bad = s->rank == s->size - 1 || (f == FAULT_TWO_RANKS && s->rank == 0);
  int32_t init = 7, other_init = 8, host_in[1000], host_out[1000];
  clscan_scan_desc d = {.type = CLSCAN_INT32, .op = CLSCAN_ADD};
  if (f == FAULT_OTHER_INIT)
    d.init = bad ? &other_init : &init;
  if (bad && f == FAULT_BAD_TYPE)
    d.type = (clscan_type)99;
  if (bad && f == FAULT_OTHER_DESC)
    d.exclusive = 1;
  if (bad && f == FAULT_BITWISE_FLOAT) {
    d.type = CLSCAN_FLOAT;
    d.op = CLSCAN_XOR;
  }
  clscan_status st;
  if (f == FAULT_HOST_NULL_OUT) {
    memset(host_in, 1, sizeof host_in);
    st = clscan_mpi_scan_host(s->ctx, MPI_COMM_WORLD, &d, host_in, bad ? NULL : host_out, n);
  } else {
    cl_int err;
    cl_context cl = clscan_context_cl_context(s->ctx);
    size_t out_n =
        bad && (f == FAULT_SMALL_OUT || (f == FAULT_TWO_RANKS && s->rank != 0)) ? n - 1 : n;
    cl_mem in = clCreateBuffer(cl, CL_MEM_READ_WRITE, 2 * n * e, NULL, &err);
    cl_mem out = clCreateBuffer(cl, CL_MEM_READ_WRITE, out_n * e, NULL, &err);
    const int32_t poison = -12345;
    clEnqueueFillBuffer(clscan_context_queue(s->ctx), out, &poison, e, 0, out_n * e, 0, NULL, NULL);
    clFinish(clscan_context_queue(s->ctx));
    int null_in = bad && (f == FAULT_NULL_IN || (f == FAULT_TWO_RANKS && s->rank == 0));
    cl_mem o = bad && f == FAULT_OVERLAP ? in : out;
    size_t o_off = bad && f == FAULT_OVERLAP ? n / 2 : 0;
    cl_event done = NULL;
    st = clscan_mpi_scan(s->ctx, MPI_COMM_WORLD, NULL, &d, null_in ? NULL : in, 0, o, o_off, n, 0,
                         NULL, &done);
    check(s, done == NULL, "fault %d: done is set after an error", (int)f);

    // The output must still hold the poison everywhere.
    int32_t back[1000];
    clEnqueueReadBuffer(clscan_context_queue(s->ctx), out, CL_TRUE, 0, out_n * e, back, 0, NULL,
                        NULL);
    int untouched = 1;
    for (size_t i = 0; i < out_n; i++)
      untouched &= back[i] == poison;
    check(s, untouched, "fault %d: the output was written after an argument error", (int)f);
    clReleaseMemObject(in);
    clReleaseMemObject(out);
  }
  // With one rank, rank 0's NULL input is the only fault of FAULT_TWO_RANKS.
  clscan_status want =
      s->size == 1 && f == FAULT_TWO_RANKS ? CLSCAN_NULL_ARGUMENT : fault_status[f];
  check(s, st == want, "fault %d: got %d (%s, %s), want %d", (int)f, (int)st,
        clscan_status_string(st), clscan_mpi_last_error_detail(), (int)want);
  check(s, clscan_mpi_last_error_detail()[0] != '\0', "fault %d: no error detail", (int)f);
}

/* Runs every fault, then a correct scan (the ranks must still be in step), and the one local
 * error: MPI_COMM_NULL. */
static void run_faults(suite *s, uint64_t *serial) {
  for (int f = 0; f < FAULT_COUNT; f++)
    run_fault(s, (fault)f);
  scan_case c = {.type = CLSCAN_INT32, .op = CLSCAN_ADD, .sizes = SIZES_RANDOM};
  c.seed = s->seed + 1000003u * (*serial)++;
  run_case(s, &c);
  clscan_scan_desc d = {.type = CLSCAN_INT32, .op = CLSCAN_ADD};
  int32_t x = 1;
  clscan_status st = clscan_mpi_scan_host(s->ctx, MPI_COMM_NULL, &d, &x, &x, 1);
  check(s, st == CLSCAN_NULL_ARGUMENT, "MPI_COMM_NULL: got %d", (int)st);
}

/* ============================================================================================== */
/* Main                                                                                           */
/* ============================================================================================== */

/* Creates the context and the second queue, and agrees on fp64 (so that all ranks skip double
 * together). Returns 0 on failure on any rank. */
static int setup(suite *s) {
  clscan_status st = clscan_context_create_default(&s->ctx);
  int ok = st == CLSCAN_SUCCESS;
  if (!ok)
    printf("rank %d: no context: %s (%s)\n", s->rank, clscan_status_string(st),
           clscan_last_error_detail());
  clscan_scan_desc dbl = {.type = CLSCAN_DOUBLE};
  s->has_fp64 = ok && clscan_context_supports(s->ctx, &dbl) == CLSCAN_SUCCESS;
  if (ok) {
    cl_int err;
    s->user_queue = clCreateCommandQueue(clscan_context_cl_context(s->ctx),
                                         clscan_context_device(s->ctx), 0, &err);
    ok = err == CL_SUCCESS;
  }
  int flags[2] = {ok, s->has_fp64};
  MPI_Allreduce(MPI_IN_PLACE, flags, 2, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  s->has_fp64 = flags[1];
  return flags[0];
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  suite s = {0};
  MPI_Comm_rank(MPI_COMM_WORLD, &s.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &s.size);
  const char *mode = argc > 1 ? argv[1] : "quick";
  const char *env = getenv("CLSCAN_TEST_SEED");
  s.seed = env && *env ? strtoull(env, NULL, 0) : DEFAULT_SEED;
  if (s.size > 64 || !setup(&s)) {
    if (s.rank == 0)
      printf("setup failed (at most 64 ranks)\n0 passed, 1 failed\n");
    MPI_Finalize();
    return 1;
  }
  if (s.rank == 0) {
    char dev[256] = "";
    clGetDeviceInfo(clscan_context_device(s.ctx), CL_DEVICE_NAME, sizeof dev - 1, dev, NULL);
    printf("clscan_mpi tests (%s): %d ranks, device %s, seed %" PRIu64
           " (run with CLSCAN_TEST_SEED=%" PRIu64 " to reproduce)\n",
           mode, s.size, dev, s.seed, s.seed);
    fflush(stdout);
  }

  uint64_t serial = 0;
  run_faults(&s, &serial);
  run_edges(&s, &serial);
  run_algorithms(&s, &serial);
  run_matrix(&s, strcmp(mode, "full") == 0, &serial);

  int counts[2] = {s.passed, s.failed};
  MPI_Allreduce(MPI_IN_PLACE, counts, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (s.rank == 0)
    printf("%d passed, %d failed\n", counts[0], counts[1]);
  clReleaseCommandQueue(s.user_queue);
  clscan_context_release(s.ctx);
  MPI_Finalize();
  return counts[1] ? 1 : 0;
}
