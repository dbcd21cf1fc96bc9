/*
 * The clscan program's `devices` command, which lists every OpenCL platform and device with
 * what clscan can run on it and the tuning it would use, and the device helpers the other
 * commands share (opening a context on a selected device, device queries, build logs).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* ============================================================================================== */
/* Device helpers                                                                                 */
/* ============================================================================================== */

int cli_open_context(const char *selector, clscan_context **ctx) {
  // The library selects devices through CLSCAN_DEVICE; --device sets it for this process.
  if (selector && setenv("CLSCAN_DEVICE", selector, 1) != 0) {
    cli_error("cannot set CLSCAN_DEVICE");
    return 0;
  }
  clscan_status st = clscan_context_create_default(ctx);
  if (st == CLSCAN_SUCCESS)
    return 1;
  const char *env = getenv("CLSCAN_DEVICE");
  if (env && *env) {
    cli_lib_error(st, "cannot open device '%s'", env);
  } else {
    cli_lib_error(st, "cannot open the default device");
  }
  return 0;
}

void cli_device_string(cl_device_id device, cl_device_info what, char *buf, size_t cap) {
  buf[0] = '\0';
  if (clGetDeviceInfo(device, what, cap - 1, buf, NULL) != CL_SUCCESS)
    buf[0] = '\0';
  buf[cap - 1] = '\0';
}

cl_ulong cli_device_ulong(cl_device_id device, cl_device_info what) {
  cl_ulong v = 0;
  return clGetDeviceInfo(device, what, sizeof v, &v, NULL) == CL_SUCCESS ? v : 0;
}

/* Returns a cl_uint property of a device (0 on failure). */
static cl_uint device_uint(cl_device_id device, cl_device_info what) {
  cl_uint v = 0;
  return clGetDeviceInfo(device, what, sizeof v, &v, NULL) == CL_SUCCESS ? v : 0;
}

int cli_device_is_gpu(cl_device_id device) {
  return (cli_device_ulong(device, CL_DEVICE_TYPE) & CL_DEVICE_TYPE_GPU) != 0;
}

void cli_print_build_log(const clscan_context *ctx) {
  size_t needed = 0;
  if (clscan_context_build_log(ctx, NULL, 0, &needed) != CLSCAN_SUCCESS || needed <= 1)
    return;
  char *log = malloc(needed);
  if (!log)
    return;
  if (clscan_context_build_log(ctx, log, needed, NULL) == CLSCAN_SUCCESS)
    fprintf(stderr, "clscan: build log:\n%s\n", log);
  free(log);
}

/* ============================================================================================== */
/* Device properties                                                                              */
/* ============================================================================================== */

/* Returns 1 if the device's space-separated extension list contains `name` as a whole word. */
static int has_extension(cl_device_id device, const char *name) {
  size_t size = 0;
  if (clGetDeviceInfo(device, CL_DEVICE_EXTENSIONS, 0, NULL, &size) != CL_SUCCESS)
    return 0;
  char *list = malloc(size + 1);
  if (!list)
    return 0;
  int found = 0;
  if (clGetDeviceInfo(device, CL_DEVICE_EXTENSIONS, size, list, NULL) == CL_SUCCESS) {
    list[size] = '\0';
    size_t len = strlen(name);
    for (char *w = strtok(list, " "); w && !found; w = strtok(NULL, " ")) {
      found = strlen(w) == len && strcmp(w, name) == 0;
    }
  }
  free(list);
  return found;
}

/* Describes a device type as words ("GPU", "CPU", "CPU+ACCELERATOR"). */
static void type_words(cl_device_type type, char *buf, size_t cap) {
  static const struct {
    cl_device_type bit;
    const char *name;
  } names[] = {{CL_DEVICE_TYPE_CPU, "CPU"},
               {CL_DEVICE_TYPE_GPU, "GPU"},
               {CL_DEVICE_TYPE_ACCELERATOR, "ACCELERATOR"},
               {CL_DEVICE_TYPE_DEFAULT, "DEFAULT"}};
  buf[0] = '\0';
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    if (!(type & names[i].bit))
      continue;
    size_t len = strlen(buf);
    snprintf(buf + len, cap - len, "%s%s", len ? "+" : "", names[i].name);
  }
  if (!buf[0])
    snprintf(buf, cap, "other (0x%llx)", (unsigned long long)type);
}

/* Formats a byte count in binary units. */
static void bytes_words(cl_ulong bytes, char *buf, size_t cap) {
  const char *units[] = {"bytes", "KiB", "MiB", "GiB", "TiB"};
  double v = (double)bytes;
  int u = 0;
  while (v >= 1024 && u < 4)
    v /= 1024, u++;
  if (u == 0)
    snprintf(buf, cap, "%llu bytes", (unsigned long long)bytes);
  else
    snprintf(buf, cap, "%.2f %s (%llu bytes)", v, units[u], (unsigned long long)bytes);
}

/* Lists the algorithms the device runs for one element type, by asking the library. */
static void algorithm_words(const clscan_context *ctx, clscan_type type, char *buf, size_t cap) {
  buf[0] = '\0';
  for (int a = CLSCAN_ALGO_BLELLOCH; a < CLSCAN_ALGORITHM_COUNT; a++) {
    clscan_scan_desc desc = {.type = type, .op = CLSCAN_ADD, .algorithm = (clscan_algorithm)a};
    if (clscan_context_supports(ctx, &desc) != CLSCAN_SUCCESS)
      continue;
    size_t len = strlen(buf);
    snprintf(buf + len, cap - len, "%s%s", len ? ", " : "", clscan_algorithm_name(desc.algorithm));
  }
  if (!buf[0])
    snprintf(buf, cap, "none");
}

/* Prints the tuning a default int32 plan gets on the context's device, as the library reports
 * it (clscan_context_default_tuning). */
static void print_tuning(const clscan_context *ctx) {
  char words[256];
  clscan_scan_desc desc = {.type = CLSCAN_INT32, .op = CLSCAN_ADD};
  clscan_tuning t;
  clscan_status st = clscan_context_default_tuning(ctx, &desc, &t);
  if (st == CLSCAN_SUCCESS)
    cli_describe_tuning(&t, words, sizeof words);
  else
    snprintf(words, sizeof words, "unknown (%s)", clscan_status_string(st));
  printf("      int32 tuning    %s\n", words);
}

/* Prints the algorithm lines of a device, from a clscan context of its own. */
static void print_algorithms(cl_device_id device) {
  char words[256];
  cl_int err;
  cl_context cl_ctx = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
  clscan_context *ctx = NULL;
  clscan_status st =
      err == CL_SUCCESS ? clscan_context_create(cl_ctx, device, &ctx) : CLSCAN_OPENCL_ERROR;
  if (st != CLSCAN_SUCCESS) {
    printf("      algorithms      unknown: clscan cannot use this device (%s)\n",
           clscan_status_string(st));
  } else {
    algorithm_words(ctx, CLSCAN_INT32, words, sizeof words);
    printf("      algorithms      %s\n", words);
    algorithm_words(ctx, CLSCAN_DOUBLE, words, sizeof words);
    printf("      for double      %s\n", words);
    print_tuning(ctx);
  }
  clscan_context_release(ctx);
  if (cl_ctx)
    clReleaseContext(cl_ctx);
}

/* Prints one device as a block of "property value" lines. */
static void print_device(cl_uint p, cl_uint d, cl_device_id device, int is_default) {
  char name[256], vendor[256], version[256], driver[256], type[64], global[64], alloc[64];
  cli_device_string(device, CL_DEVICE_NAME, name, sizeof name);
  cli_device_string(device, CL_DEVICE_VENDOR, vendor, sizeof vendor);
  cli_device_string(device, CL_DEVICE_VERSION, version, sizeof version);
  cli_device_string(device, CL_DRIVER_VERSION, driver, sizeof driver);
  type_words(cli_device_ulong(device, CL_DEVICE_TYPE), type, sizeof type);
  bytes_words(cli_device_ulong(device, CL_DEVICE_GLOBAL_MEM_SIZE), global, sizeof global);
  bytes_words(cli_device_ulong(device, CL_DEVICE_MAX_MEM_ALLOC_SIZE), alloc, sizeof alloc);
  int atomics64 = has_extension(device, "cl_khr_int64_base_atomics") &&
                  has_extension(device, "cl_khr_int64_extended_atomics");

  printf("%c %u:%u %s\n", is_default ? '*' : ' ', (unsigned)p, (unsigned)d, name);
  printf("      vendor          %s\n", vendor);
  printf("      type            %s\n", type);
  printf("      version         %s\n", version);
  printf("      driver          %s\n", driver);
  printf("      compute units   %u\n", (unsigned)device_uint(device, CL_DEVICE_MAX_COMPUTE_UNITS));
  printf("      global memory   %s\n", global);
  printf("      max alloc       %s\n", alloc);
  printf("      fp64            %s\n", has_extension(device, "cl_khr_fp64") ? "yes" : "no");
  printf("      64-bit atomics  %s\n", atomics64 ? "yes" : "no");
  print_algorithms(device);
}

/* ============================================================================================== */
/* The devices command                                                                            */
/* ============================================================================================== */

/* Returns the device clscan_context_create_default() picks, or NULL (with a note). */
static cl_device_id default_device(void) {
  clscan_context *ctx = NULL;
  clscan_status st = clscan_context_create_default(&ctx);
  if (st != CLSCAN_SUCCESS) {
    cli_lib_error(st, "note: no default device");
    return NULL;
  }
  cl_device_id device = clscan_context_device(ctx);
  clRetainDevice(device);
  clscan_context_release(ctx);
  return device;
}

/* Lists one platform's devices; returns how many it has. */
static cl_uint list_platform(cl_uint p, cl_platform_id platform, cl_device_id chosen) {
  char name[256] = "", version[256] = "";
  clGetPlatformInfo(platform, CL_PLATFORM_NAME, sizeof name - 1, name, NULL);
  clGetPlatformInfo(platform, CL_PLATFORM_VERSION, sizeof version - 1, version, NULL);
  printf("Platform %u: %s (%s)\n", (unsigned)p, name, version);
  cl_uint nd = 0;
  if (clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 0, NULL, &nd) != CL_SUCCESS || nd == 0) {
    printf("  (no devices)\n");
    return 0;
  }
  cl_device_id *devices = malloc(nd * sizeof *devices);
  if (!devices || clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, nd, devices, NULL) != CL_SUCCESS) {
    free(devices);
    printf("  (devices cannot be listed)\n");
    return 0;
  }
  for (cl_uint d = 0; d < nd; d++)
    print_device(p, d, devices[d], devices[d] == chosen);
  free(devices);
  return nd;
}

int cli_cmd_devices(int argc, char **argv) {
  static const cli_option options[] = {{NULL, 0, 0}};
  cli_parser parser;
  const char *value;
  cli_parser_init(&parser, "devices", argc, argv, options);
  int id = cli_next_option(&parser, &value);
  if (id == CLI_OPT_HELP) {
    cli_print_usage(stdout, "devices");
    return CLI_EXIT_OK;
  }
  if (id == CLI_OPT_POSITIONAL)
    return cli_usage_error("devices", "unexpected argument '%s'", value);
  if (id != CLI_OPT_END)
    return CLI_EXIT_USAGE;

  cl_uint np = 0;
  if (clGetPlatformIDs(0, NULL, &np) != CL_SUCCESS || np == 0) {
    cli_error("no OpenCL platform found");
    return CLI_EXIT_FAIL;
  }
  cl_platform_id *platforms = malloc(np * sizeof *platforms);
  if (!platforms || clGetPlatformIDs(np, platforms, NULL) != CL_SUCCESS) {
    free(platforms);
    cli_error("cannot list the OpenCL platforms");
    return CLI_EXIT_FAIL;
  }
  cl_device_id chosen = default_device();
  cl_uint total = 0;
  for (cl_uint p = 0; p < np; p++)
    total += list_platform(p, platforms[p], chosen);
  free(platforms);
  if (chosen)
    clReleaseDevice(chosen);

  const char *env = getenv("CLSCAN_DEVICE");
  if (!chosen) {
    printf("\nno default device (see the note above)\n");
  } else if (env && *env) {
    printf("\n* = default device (CLSCAN_DEVICE=%s)\n", env);
  } else {
    printf("\n* = default device (CLSCAN_DEVICE is unset: the first GPU, else the first device)\n");
  }
  if (total == 0) {
    cli_error("no OpenCL device found");
    return CLI_EXIT_FAIL;
  }
  return CLI_EXIT_OK;
}
