/*
 * clscan tools: cl_dump, a library to preload (LD_PRELOAD) into any program that builds OpenCL
 * programs through the ICD loader. After every successful clBuildProgram without a callback (a
 * build with one completes later, and is passed on untouched) it writes into the folder named
 * by CL_DUMP_DIR (which must exist): NNN.bin, the binary for the program's first device (on
 * NVIDIA the PTX the driver generated; NNN.D.bin for device D > 0), NNN.opts (the options, then a
 * line with the kernel names separated by ';') and NNN.log (the first device's build log; with
 * -cl-nv-verbose among the options, NVIDIA's lists each kernel's registers), NNN counting the
 * builds from 000. A file it cannot write gets one line on standard error. Without CL_DUMP_DIR
 * it only passes the call on. It exists so that the exact
 * kernels clscan runs can be replayed and profiled outside OpenCL (ptx_replay.cu, README.md); it
 * changes nothing in the build itself.
 *
 *   CL_DUMP_DIR=/tmp/ptx LD_PRELOAD=build/libcl_dump.so build/tile_sweep 16 2 i32:0:0
 */
#define _GNU_SOURCE
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef cl_int (*build_fn)(cl_program, cl_uint, const cl_device_id *, const char *,
                           void(CL_CALLBACK *)(cl_program, void *), void *);

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned builds;

/* Writes len bytes to dir/name; returns 0 on failure. */
static int write_file(const char *dir, const char *name, const void *bytes, size_t len,
                      const char *tail) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "wb");
  int ok = f != NULL && fwrite(bytes, 1, len, f) == len;
  if (ok && tail)
    ok = fputs(tail, f) >= 0;
  if (f && fclose(f) != 0)
    ok = 0;
  if (!ok)
    fprintf(stderr, "cl_dump: cannot write %s\n", path);
  return ok;
}

/* Writes the program's build log on its first device. */
static void dump_log(cl_program program, const char *dir, unsigned id) {
  cl_uint count = 0;
  if (clGetProgramInfo(program, CL_PROGRAM_NUM_DEVICES, sizeof count, &count, NULL) != CL_SUCCESS ||
      count == 0)
    return;
  cl_device_id *devices = calloc(count, sizeof *devices);
  size_t size = 0;
  const int found =
      devices && clGetProgramInfo(program, CL_PROGRAM_DEVICES, count * sizeof *devices, devices,
                                  NULL) == CL_SUCCESS;
  const cl_device_id device = found ? devices[0] : NULL;
  free(devices);
  if (!found ||
      clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, 0, NULL, &size) != CL_SUCCESS)
    return;
  char *log = malloc(size + 1);
  if (log &&
      clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, size, log, NULL) == CL_SUCCESS) {
    char name[64];
    snprintf(name, sizeof name, "%03u.log", id);
    write_file(dir, name, log, strnlen(log, size), NULL);
  }
  free(log);
}

/* Writes the program's options and kernel names, its build log, then each device's binary. */
static void dump(cl_program program, const char *options, const char *dir, unsigned id) {
  char name[64], kernels[8192] = "";
  clGetProgramInfo(program, CL_PROGRAM_KERNEL_NAMES, sizeof kernels, kernels, NULL);
  snprintf(name, sizeof name, "%03u.opts", id);
  const char *opts = options ? options : "";
  char tail[8300];
  snprintf(tail, sizeof tail, "\n%s\n", kernels);
  write_file(dir, name, opts, strlen(opts), tail);
  dump_log(program, dir, id);

  cl_uint devices = 0;
  if (clGetProgramInfo(program, CL_PROGRAM_NUM_DEVICES, sizeof devices, &devices, NULL) !=
          CL_SUCCESS ||
      devices == 0)
    return;
  size_t *sizes = calloc(devices, sizeof *sizes);
  unsigned char **bins = calloc(devices, sizeof *bins);
  if (sizes && bins &&
      clGetProgramInfo(program, CL_PROGRAM_BINARY_SIZES, devices * sizeof *sizes, sizes, NULL) ==
          CL_SUCCESS) {
    int ok = 1;
    for (cl_uint d = 0; d < devices; d++)
      ok = ok && (bins[d] = malloc(sizes[d] ? sizes[d] : 1)) != NULL;
    if (ok && clGetProgramInfo(program, CL_PROGRAM_BINARIES, devices * sizeof *bins, bins, NULL) ==
                  CL_SUCCESS)
      for (cl_uint d = 0; d < devices; d++) {
        snprintf(name, sizeof name, d ? "%03u.%u.bin" : "%03u.bin", id, d);
        write_file(dir, name, bins[d], sizes[d], NULL);
      }
    for (cl_uint d = 0; d < devices; d++)
      free(bins[d]);
  }
  free(bins);
  free(sizes);
}

CL_API_ENTRY cl_int CL_API_CALL clBuildProgram(cl_program program, cl_uint num_devices,
                                               const cl_device_id *device_list, const char *options,
                                               void(CL_CALLBACK *notify)(cl_program, void *),
                                               void *user_data) {
  static build_fn real;
  pthread_mutex_lock(&lock);
  if (!real) {
    void *sym = dlsym(RTLD_NEXT, "clBuildProgram");
    memcpy(&real, &sym, sizeof real); /* POSIX: a data pointer that holds a function's address */
  }
  pthread_mutex_unlock(&lock);
  if (!real)
    return CL_INVALID_OPERATION;
  const cl_int err = real(program, num_devices, device_list, options, notify, user_data);
  const char *dir = getenv("CL_DUMP_DIR");
  if (err == CL_SUCCESS && dir && !notify) {
    pthread_mutex_lock(&lock);
    const unsigned id = builds++;
    pthread_mutex_unlock(&lock);
    dump(program, options, dir, id);
  }
  return err;
}
