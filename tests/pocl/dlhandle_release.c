/*
 * Stand-alone reproducer: POCL before 6.0 aborts with "pocl_release_dlhandle_cache: Assertion
 * `found->ref_count > 0' failed" when threads run the same kernel at once with growing grids.
 *
 * POCL's CPU drivers keep the loaded work-group functions in a process-wide cache. Starting a
 * kernel takes the first entry whose kernel, local size, global-offset kind and grid width fit
 * (an entry serves grids up to the width it was made for; a wider grid makes a new entry, put in
 * front) and counts a reference on it. Finishing the kernel gives the reference back to the
 * first entry with the same kernel and local size, without looking at the width. When a wider
 * grid makes a new entry while kernels started on an older one are still running, those kernels
 * give their references back to the new entry, which runs out and trips the assertion. POCL 6.0
 * keeps the entry with the command instead (upstream change "fix dlhandle cache", June 2024).
 *
 * Here THREADS threads, each on its own queue, launch one kernel over and over with a local size
 * of 64 and grids that grow from launch to launch, as clscan's test_threads does with the random
 * sizes of its scans.
 *
 *   cc tests/pocl/dlhandle_release.c -lOpenCL -lpthread -o dlhandle_release && ./dlhandle_release
 *
 * Prints "fixed" and exits 0 when every launch finished; aborts inside POCL where the bug is;
 * exits 77 when no POCL device is found. With --widest-first, one launch at the widest grid on a
 * second context comes first (the workaround clscan's test_threads takes): the cache entry it
 * makes serves every later launch, and the same launches finish on the affected versions too.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "../driver_device.h"

#define THREADS 8
#define LAUNCHES 400
#define LOCAL 64

static const char *source =
    "__kernel void touch(__global uint *out) {\n"
    "  out[get_global_id(0)] = (uint)get_global_id(0);\n"
    "}\n";

static cl_context g_ctx;
static cl_device_id g_dev;
static cl_program g_prog;
static cl_mem g_buf;

/* One thread: its own queue and kernel object, LAUNCHES launches with growing grids. */
static void *launcher(void *arg) {
  const size_t t = (size_t)arg;
  cl_int err;
  cl_command_queue q = clCreateCommandQueue(g_ctx, g_dev, 0, &err);
  cl_kernel k = clCreateKernel(g_prog, "touch", &err);
  clSetKernelArg(k, 0, sizeof g_buf, &g_buf);
  for (size_t i = 0; i < LAUNCHES; i++) {
    // Launch i of thread t: (i * THREADS + t + 1) groups, so that grids keep growing over all
    // threads and launches of different widths are in flight together.
    const size_t local = LOCAL, global = LOCAL * (i * THREADS + t + 1);
    clEnqueueNDRangeKernel(q, k, 1, NULL, &global, &local, 0, NULL, NULL);
    if (i % 4 == 3)
      clFinish(q);
  }
  clFinish(q);
  clReleaseKernel(k);
  clReleaseCommandQueue(q);
  return NULL;
}

/* Builds the kernel on a second context and launches it once over `global` work-items. */
static void launch_widest_first(size_t global) {
  cl_int err;
  const size_t local = LOCAL;
  cl_context ctx = clCreateContext(NULL, 1, &g_dev, NULL, NULL, &err);
  cl_program prog = clCreateProgramWithSource(ctx, 1, &source, NULL, &err);
  clBuildProgram(prog, 1, &g_dev, "", NULL, NULL);
  cl_mem buf = clCreateBuffer(ctx, CL_MEM_READ_WRITE, global * 4, NULL, &err);
  cl_command_queue q = clCreateCommandQueue(ctx, g_dev, 0, &err);
  cl_kernel k = clCreateKernel(prog, "touch", &err);
  clSetKernelArg(k, 0, sizeof buf, &buf);
  clEnqueueNDRangeKernel(q, k, 1, NULL, &global, &local, 0, NULL, NULL);
  clFinish(q);
  clReleaseKernel(k);
  clReleaseCommandQueue(q);
  clReleaseMemObject(buf);
  clReleaseProgram(prog);
  clReleaseContext(ctx);
}

int main(int argc, char **argv) {
  const int widest_first = argc > 1 && strcmp(argv[1], "--widest-first") == 0;
  cl_int err;
  g_dev = driver_device("Portable Computing Language");
  if (!g_dev) {
    printf("no POCL device\n");
    return 77;
  }
  char version[128] = "";
  clGetDeviceInfo(g_dev, CL_DRIVER_VERSION, sizeof version - 1, version, NULL);
  g_ctx = clCreateContext(NULL, 1, &g_dev, NULL, NULL, &err);
  g_prog = clCreateProgramWithSource(g_ctx, 1, &source, NULL, &err);
  if (clBuildProgram(g_prog, 1, &g_dev, "", NULL, NULL) != CL_SUCCESS) {
    printf("build failed\n");
    return 1;
  }
  const size_t max_groups = (size_t)LAUNCHES * THREADS + THREADS;
  g_buf = clCreateBuffer(g_ctx, CL_MEM_READ_WRITE, max_groups * LOCAL * 4, NULL, &err);
  if (widest_first)
    launch_widest_first(max_groups * LOCAL);
  pthread_t threads[THREADS];
  for (size_t t = 0; t < THREADS; t++)
    pthread_create(&threads[t], NULL, launcher, (void *)t);
  for (size_t t = 0; t < THREADS; t++)
    pthread_join(threads[t], NULL);
  printf("POCL %s: %d launches on %d threads finished%s\n", version, LAUNCHES * THREADS, THREADS,
         widest_first ? " (the widest launch first, on a second context)" : ": fixed");
  clReleaseMemObject(g_buf);
  clReleaseProgram(g_prog);
  clReleaseContext(g_ctx);
  return 0;
}
