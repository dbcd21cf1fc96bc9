/*
 * Stand-alone reproducer: on Mesa rusticl, a blocking clEnqueueReadBuffer on a command queue that
 * another thread flushes at the same time can return before the data is copied.
 *
 * rusticl 22.3 keeps a queue's new commands in a pending list. A blocking call appends its
 * command to that list and then flushes the queue, waiting for the last command of the list it
 * flushes. When another thread flushes the same queue in between (clFlush, clFinish, or its own
 * blocking call), that thread takes the list with the read in it, the reading thread finds the
 * list empty, waits for nothing and returns. OpenCL says a blocking read returns once the data
 * is in host memory.
 *
 * Here the main thread runs rounds of: a kernel that fills a buffer with the round's values,
 * then a blocking read of the buffer into a host array poisoned beforehand, then a check of the
 * array right after the read returns. A second thread calls clFlush on the same queue in a loop.
 * A read that returns early leaves poison in the array. The window is short (between the read's
 * append and its flush), so a few rounds in a thousand show it: on Mesa 22.3.6 (Debian 12's
 * mesa-opencl-icd 22.3.6-1+deb12u2) 27 of 4000 rounds did on 2 busy cores. Without the second
 * thread every read is complete.
 *
 * clscan's test_threads runs eight threads on the context's one queue (its shared-queue mode),
 * each reading results back with blocking reads, and failed on rusticl that way: stale data,
 * then heap corruption when rusticl's queue thread copied into an array the test had freed.
 *
 *   cc tests/rusticl/shared_queue_read.c -lOpenCL -lpthread -o shared_queue_read &&
 *     RUSTICL_ENABLE=llvmpipe ./shared_queue_read
 *
 * Prints "fixed" and exits 0 when every read was complete; prints the early reads and exits 1
 * where the bug is; exits 77 when no rusticl device is found.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include "rusticl_device.h"

static const char *source =
    "__kernel void fill(__global uint *out, uint round) {\n"
    "  const uint i = (uint)get_global_id(0);\n"
    "  out[i] = round * 65536u + i;\n"
    "}\n";

enum { N = 4096, ROUNDS = 3000 };

/* The flushing thread's queue and its stop flag. */
typedef struct flusher {
  cl_command_queue q;
  atomic_int stop;
} flusher;

static void *flush_loop(void *arg) {
  flusher *f = arg;
  while (!atomic_load(&f->stop))
    clFlush(f->q);
  return NULL;
}

/* Runs one round: fill, blocking read into host (poisoned first); returns the elements that were
 * not the round's values when the read returned, or -1 on an OpenCL error. */
static int round_trip(cl_command_queue q, cl_kernel k, cl_mem buf, cl_uint round, cl_uint *host) {
  const size_t n = N;
  for (int i = 0; i < N; i++)
    host[i] = 0xdeadbeefu;
  cl_int err = clSetKernelArg(k, 0, sizeof buf, &buf);
  err |= clSetKernelArg(k, 1, sizeof round, &round);
  if (err == CL_SUCCESS)
    err = clEnqueueNDRangeKernel(q, k, 1, NULL, &n, NULL, 0, NULL, NULL);
  if (err == CL_SUCCESS)
    err = clEnqueueReadBuffer(q, buf, CL_TRUE, 0, N * sizeof(cl_uint), host, 0, NULL, NULL);
  if (err != CL_SUCCESS)
    return -1;
  int wrong = 0;
  for (cl_uint i = 0; i < N; i++)
    wrong += host[i] != round * 65536u + i;
  return wrong;
}

int main(void) {
  rusticl_setup s;
  const int setup = rusticl_setup_build(&s, source);
  if (setup)
    return setup;
  cl_int err;
  cl_kernel k = clCreateKernel(s.prog, "fill", &err);
  cl_mem buf = clCreateBuffer(s.ctx, CL_MEM_READ_WRITE, N * sizeof(cl_uint), NULL, &err);
  cl_uint *host = malloc(N * sizeof *host);
  flusher f = {.q = s.q};
  atomic_init(&f.stop, 0);
  pthread_t thread;
  if (!host || pthread_create(&thread, NULL, flush_loop, &f) != 0) {
    printf("cannot start the flushing thread\n");
    return 1;
  }
  int early = 0, failed = 0;
  for (cl_uint r = 1; r <= ROUNDS && !failed; r++) {
    const int wrong = round_trip(s.q, k, buf, r, host);
    failed = wrong < 0;
    if (wrong > 0 && early++ < 5)
      printf("round %u: the blocking read returned with %d of %d elements not yet copied\n", r,
             wrong, N);
  }
  atomic_store(&f.stop, 1);
  pthread_join(thread, NULL);
  clFinish(s.q);
  free(host);
  clReleaseMemObject(buf);
  clReleaseKernel(k);
  rusticl_setup_release(&s);
  if (failed) {
    printf("an OpenCL call failed\n");
    return 1;
  }
  if (!early) {
    printf("fixed\n");
    return 0;
  }
  printf("bug: %d of %d blocking reads returned before their data was copied\n", early, ROUNDS);
  return 1;
}
