/*
 * clscan_mpi_bench: throughput of the distributed scan (clscan_mpi_scan), verified.
 *
 *   mpirun -np K clscan_mpi_bench [--log2 N] [--type T] [--op OP] [--exclusive] [--reps R]
 *                                 [--seed S] [--algorithm A] [--device-per-rank] [--platform P]
 *                                 [--no-verify]
 *
 * Each rank scans 2^N elements of its own (default N = 24, int32 add, inclusive, 10 timed runs
 * after one warm-up). A run's time is MPI_Wtime around the call and the wait for its result,
 * after a barrier; the reported time is the largest of the ranks' medians, and the aggregate
 * throughput is 2 * K * 2^N * element size / time (each element read and written once). For
 * comparison rank 0 then times its local clscan_scan() of the same slice alone, with the other
 * ranks idle. Each rank regenerates the inputs of the ranks before it from the seed and checks its
 * slice against the sequential reference of the concatenation, so no data moves to verify.
 *
 * Device: CLSCAN_DEVICE as for clscan_context_create_default(), or with --device-per-rank
 * device (local rank mod device count) of platform P (default 0), the local rank being the
 * rank within the node (MPI_Comm_split_type). Exit status: 0 verified, 1 failed, 2 usage.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clscan_mpi.h"
#include "measure.h"
#include "ref_scan.h"

/* ============================================================================================== */
/* Options                                                                                        */
/* ============================================================================================== */

typedef struct options {
  int log2, reps, device_per_rank, verify;
  unsigned platform;
  uint64_t seed;
  clscan_scan_desc desc;
} options;

/* Prints the usage (rank 0 only). */
static void usage(int rank) {
  if (rank != 0)
    return;
  fprintf(stderr,
          "usage: mpirun -np K clscan_mpi_bench [--log2 N] [--type T] [--op OP] [--exclusive]\n"
          "         [--reps R] [--seed S] [--algorithm A] [--device-per-rank] [--platform P]\n"
          "         [--no-verify]\n"
          "  types: int32 uint32 int64 uint64 float double int8 uint8 int16 uint16\n"
          "  ops: add mul min max and or xor; algorithms: auto blelloch hillis-steele\n"
          "  reduce-then-scan single-pass\n");
}

/* Finds a name in a list of count names given by a lookup function; returns -1 if absent. */
static int find_name(const char *v, int count, const char *(*name_of)(int)) {
  for (int i = 0; i < count; i++) {
    if (strcmp(v, name_of(i)) == 0)
      return i;
  }
  return -1;
}
static const char *type_name_at(int i) {
  return clscan_type_name((clscan_type)i);
}
static const char *op_name_at(int i) {
  return clscan_op_name((clscan_op)i);
}
static const char *algo_name_at(int i) {
  return clscan_algorithm_name((clscan_algorithm)i);
}

/* Parses a whole number in [lo, hi]; returns 0 if v is not one. */
static int parse_number(const char *v, unsigned long long lo, unsigned long long hi,
                        unsigned long long *x) {
  char *end;
  *x = strtoull(v, &end, 0);
  return *v && *end == '\0' && *x >= lo && *x <= hi;
}

/* Applies one option with a value; returns 0 on a bad value. */
static int apply_value(options *o, const char *opt, const char *v) {
  unsigned long long x = 0;
  int i;
  if (strcmp(opt, "--type") == 0 && (i = find_name(v, CLSCAN_TYPE_COUNT, type_name_at)) >= 0)
    o->desc.type = (clscan_type)i;
  else if (strcmp(opt, "--op") == 0 && (i = find_name(v, CLSCAN_OP_COUNT, op_name_at)) >= 0)
    o->desc.op = (clscan_op)i;
  else if (strcmp(opt, "--algorithm") == 0 &&
           (i = find_name(v, CLSCAN_ALGORITHM_COUNT, algo_name_at)) >= 0)
    o->desc.algorithm = (clscan_algorithm)i;
  else if (strcmp(opt, "--log2") == 0 && parse_number(v, 0, 34, &x))
    o->log2 = (int)x;
  else if (strcmp(opt, "--reps") == 0 && parse_number(v, 1, 100000, &x))
    o->reps = (int)x;
  else if (strcmp(opt, "--seed") == 0 && parse_number(v, 0, UINT64_MAX, &x))
    o->seed = x;
  else if (strcmp(opt, "--platform") == 0 && parse_number(v, 0, 63, &x))
    o->platform = (unsigned)x;
  else
    return 0;
  return 1;
}

/* Parses the command line; returns 0 after a usage error. */
static int parse_options(int argc, char **argv, options *o) {
  *o = (options){.log2 = 24, .reps = 10, .verify = 1, .seed = 42};
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--exclusive") == 0)
      o->desc.exclusive = 1;
    else if (strcmp(argv[i], "--device-per-rank") == 0)
      o->device_per_rank = 1;
    else if (strcmp(argv[i], "--no-verify") == 0)
      o->verify = 0;
    else if (i + 1 >= argc || !apply_value(o, argv[i], argv[i + 1]))
      return 0;
    else
      i++;
  }
  return 1;
}

/* ============================================================================================== */
/* Device and data                                                                                */
/* ============================================================================================== */

/* Creates the rank's context: the default device, or one device per rank of a node. */
static clscan_status open_context(const options *o, clscan_context **ctx) {
  if (!o->device_per_rank)
    return clscan_context_create_default(ctx);
  MPI_Comm node;
  int local = 0;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  MPI_Comm_rank(node, &local);
  MPI_Comm_free(&node);

  // Device (local rank mod count) of the chosen platform.
  cl_platform_id platforms[64];
  cl_device_id devices[64];
  cl_uint np = 0, nd = 0;
  if (clGetPlatformIDs(64, platforms, &np) != CL_SUCCESS || o->platform >= np ||
      clGetDeviceIDs(platforms[o->platform], CL_DEVICE_TYPE_ALL, 64, devices, &nd) != CL_SUCCESS ||
      nd == 0)
    return CLSCAN_NO_DEVICE;
  cl_device_id device = devices[(cl_uint)local % (nd < 64 ? nd : 64)];
  cl_int err;
  cl_context cl = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
  if (err != CL_SUCCESS)
    return CLSCAN_OPENCL_ERROR;
  clscan_status st = clscan_context_create(cl, device, ctx);
  clReleaseContext(cl); /* the clscan context keeps its own reference */
  return st;
}

/* The data seed of a rank's slice. */
static uint64_t rank_seed(uint64_t seed, int rank) {
  return seed ^ (0x9E3779B97F4A7C15ull * (uint64_t)(rank + 1));
}

/* Checks this rank's slice: the inputs of ranks 0..rank regenerated, the reference of the ranks
 * before, then this rank's result. Returns 1 ok, 0 mismatch, -1 not enough host memory. */
static int verify(const options *o, int rank, size_t n, const void *got) {
  size_t e = clscan_type_size(o->desc.type), all = (size_t)(rank + 1) * n;
  unsigned char *in = malloc(all * e), *want = malloc(all * e);
  int result = -1;
  if (in && want) {
    for (int r = 0; r <= rank; r++)
      clscan_ref_fill(o->desc.type, o->desc.op, rank_seed(o->seed, r), in + (size_t)r * n * e, n);
    clscan_ref_scan(&o->desc, in, want, all - n);
    memcpy(want + (all - n) * e, got, n * e);
    clscan_ref_mismatch m;
    result = clscan_ref_check(&o->desc, in, want, all, &m);
    if (!result)
      printf("rank %d: mismatch at global %s\n", rank, m.detail);
  }
  free(in);
  free(want);
  return result;
}

/* ============================================================================================== */
/* Timing                                                                                         */
/* ============================================================================================== */

/* The buffers of one rank's benchmark. */
typedef struct bench {
  clscan_context *ctx;
  cl_command_queue queue;
  cl_mem in, out;
  size_t n;
} bench;

/* Times one distributed scan: barrier, then the call and the wait for its result. */
static clscan_status time_distributed(const options *o, const bench *b, double *seconds) {
  cl_event done = NULL;
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  clscan_status st = clscan_mpi_scan(b->ctx, MPI_COMM_WORLD, b->queue, &o->desc, b->in, 0, b->out,
                                     0, b->n, 0, NULL, &done);
  if (st == CLSCAN_SUCCESS) {
    clWaitForEvents(1, &done);
    clReleaseEvent(done);
  }
  *seconds = MPI_Wtime() - t0;
  return st;
}

/* Times one local scan of the same slice. */
static clscan_status time_local(const options *o, const bench *b, double *seconds) {
  double t0 = MPI_Wtime();
  clscan_status st =
      clscan_scan(b->ctx, b->queue, &o->desc, b->in, 0, b->out, 0, b->n, 0, NULL, NULL);
  clFinish(b->queue);
  *seconds = MPI_Wtime() - t0;
  return st;
}

/* Runs a warm-up and o->reps timed runs; returns the median in seconds, or -1 on failure. */
static double run_timed(const options *o, const bench *b,
                        clscan_status (*once)(const options *, const bench *, double *)) {
  double *t = malloc((size_t)(o->reps + 1) * sizeof *t);
  clscan_status st = t ? CLSCAN_SUCCESS : CLSCAN_OUT_OF_HOST_MEMORY;
  for (int i = 0; i <= o->reps && st == CLSCAN_SUCCESS; i++)
    st = once(o, b, &t[i]);
  double m = st == CLSCAN_SUCCESS ? measure_median(t + 1, (size_t)o->reps) : -1;
  if (st != CLSCAN_SUCCESS)
    fprintf(stderr, "scan failed: %s (%s / %s)\n", clscan_status_string(st),
            clscan_mpi_last_error_detail(), clscan_last_error_detail());
  free(t);
  return m;
}

/* ============================================================================================== */
/* Main                                                                                           */
/* ============================================================================================== */

/* One rank's results, gathered on rank 0. */
typedef struct rank_result {
  double median;
  int verified; /* 1 ok, 0 mismatch, -1 skipped */
  char device[120];
} rank_result;

/* Creates the rank's buffers and fills the input. */
static int prepare(const options *o, int rank, bench *b) {
  size_t e = clscan_type_size(o->desc.type), bytes = b->n * e;
  void *host = malloc(bytes);
  cl_int err = host ? CL_SUCCESS : CL_OUT_OF_HOST_MEMORY;
  cl_context cl = clscan_context_cl_context(b->ctx);
  b->queue = clscan_context_queue(b->ctx);
  if (err == CL_SUCCESS)
    b->in = clCreateBuffer(cl, CL_MEM_READ_WRITE, bytes, NULL, &err);
  if (err == CL_SUCCESS)
    b->out = clCreateBuffer(cl, CL_MEM_READ_WRITE, bytes, NULL, &err);
  if (err == CL_SUCCESS) {
    clscan_ref_fill(o->desc.type, o->desc.op, rank_seed(o->seed, rank), host, b->n);
    err = clEnqueueWriteBuffer(b->queue, b->in, CL_TRUE, 0, bytes, host, 0, NULL, NULL);
  }
  free(host);
  if (err != CL_SUCCESS)
    fprintf(stderr, "rank %d: buffers of %zu bytes: error %d\n", rank, bytes, err);
  return err == CL_SUCCESS;
}

/* Prints the report on rank 0. */
static void report(const options *o, int size, const rank_result *all, double local, size_t n) {
  double e = (double)clscan_type_size(o->desc.type), worst = 0;
  int verified = 1;
  printf("clscan_mpi_bench: %d ranks x 2^%d %s %s %s, %s, %d runs, seed %" PRIu64 ", clscan %s\n",
         size, o->log2, clscan_type_name(o->desc.type), clscan_op_name(o->desc.op),
         o->desc.exclusive ? "exclusive" : "inclusive", clscan_algorithm_name(o->desc.algorithm),
         o->reps, o->seed, clscan_version_string());
  for (int r = 0; r < size; r++) {
    printf("rank %d: %s: median %.3f ms, %.1f GB/s, verify %s\n", r, all[r].device,
           all[r].median * 1e3, 2 * (double)n * e / all[r].median / 1e9,
           all[r].verified > 0    ? "ok"
           : all[r].verified == 0 ? "FAILED"
                                  : "skipped");
    if (all[r].median > worst)
      worst = all[r].median;
    if (all[r].verified == 0)
      verified = 0;
  }
  double total = (double)n * size;
  printf("distributed: %.0f elements, %.3f ms (max of rank medians), %.1f GB/s aggregate\n", total,
         worst * 1e3, 2 * total * e / worst / 1e9);
  printf("local scan alone (rank 0, 2^%d): %.3f ms, %.1f GB/s; distributed/local time %.2f\n",
         o->log2, local * 1e3, 2 * (double)n * e / local / 1e9, worst / local);
  printf("verification: %s\n", !o->verify ? "off" : verified ? "ok" : "FAILED");
}

/* Runs the benchmark on this rank; fills its result. Returns 0 on a failure. */
static int run(const options *o, int rank, bench *b, rank_result *mine, double *local) {
  size_t e = clscan_type_size(o->desc.type);
  mine->median = run_timed(o, b, time_distributed);
  if (mine->median < 0)
    return 0;
  mine->verified = -1;
  if (o->verify) {
    void *got = malloc(b->n * e);
    if (got && clEnqueueReadBuffer(b->queue, b->out, CL_TRUE, 0, b->n * e, got, 0, NULL, NULL) ==
                   CL_SUCCESS)
      mine->verified = verify(o, rank, b->n, got);
    free(got);
  }

  // Rank 0's local scan alone, while the others wait.
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0)
    *local = run_timed(o, b, time_local);
  MPI_Barrier(MPI_COMM_WORLD);
  return 1;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size, ok = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  options o;
  if (!parse_options(argc, argv, &o)) {
    usage(rank);
    MPI_Finalize();
    return 2;
  }

  // Context and buffers; a failure on any rank ends every rank.
  bench b = {.n = (size_t)1 << o.log2};
  rank_result mine = {.verified = -1};
  clscan_status st = open_context(&o, &b.ctx);
  if (st != CLSCAN_SUCCESS)
    fprintf(stderr, "rank %d: no context: %s (%s)\n", rank, clscan_status_string(st),
            clscan_last_error_detail());
  ok = st == CLSCAN_SUCCESS && prepare(&o, rank, &b);
  MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  double local = 0;
  if (ok) {
    clGetDeviceInfo(clscan_context_device(b.ctx), CL_DEVICE_NAME, sizeof mine.device - 1,
                    mine.device, NULL);
    ok = run(&o, rank, &b, &mine, &local);
  }

  // Rank 0 gathers the results and reports.
  rank_result *all = malloc((size_t)size * sizeof *all);
  MPI_Gather(&mine, (int)sizeof mine, MPI_BYTE, all, (int)sizeof mine, MPI_BYTE, 0, MPI_COMM_WORLD);
  int failed = !ok || mine.verified == 0;
  MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (rank == 0 && ok)
    report(&o, size, all, local, b.n);
  free(all);
  if (b.in)
    clReleaseMemObject(b.in);
  if (b.out)
    clReleaseMemObject(b.out);
  clscan_context_release(b.ctx);
  MPI_Finalize();
  return failed ? 1 : 0;
}
