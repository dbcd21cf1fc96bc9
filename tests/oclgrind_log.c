/*
 * clscan tests: Oclgrind's log, and clEnqueueFillBuffer through a write (oclgrind_log.h).
 */
#include "oclgrind_log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "test_util.h"

/* ============================================================================================== */
/* clEnqueueFillBuffer through a write                                                            */
/* ============================================================================================== */

/*
 * Oclgrind 21.10's uninitialised-value check does not count what clEnqueueFillBuffer stores as
 * initialised (a kernel that reads a filled buffer is reported), and the library zeroes the
 * single pass's and Onesweep's status words and ticket counters with clEnqueueFillBuffer. A
 * host write (clEnqueueWriteBuffer) instead is not enough: after a host write to part of a
 * buffer, Oclgrind reports what later kernels store in the rest of that buffer as uninitialised
 * when it is read back (tests/oclgrind/host_write.c), and Onesweep keeps its key copies in the
 * buffer whose head it zeroes. So the Oclgrind programs define clEnqueueFillBuffer themselves
 * (the dynamic linker binds the library's calls to this definition) and store the pattern with a
 * kernel, which Oclgrind tracks like any other: same queue, wait list and event. Every other value
 * a kernel reads is still checked. Patterns other than the library's (4 bytes at 4-byte offsets)
 * are written with a blocking clEnqueueWriteBuffer.
 */

/* The fill kernel of one context (kept, with the context retained, for the program's life). */
typedef struct fill_kernel {
  cl_context ctx;
  cl_kernel kernel;
} fill_kernel;

static fill_kernel g_fills[64];

/* Returns the fill kernel of a queue's context (built on first use), or NULL. */
static cl_kernel fill_kernel_for(cl_command_queue queue) {
  static const char *source =
      "__kernel void og_fill(__global uint *b, ulong first, uint pattern) {\n"
      "  b[first + get_global_id(0)] = pattern;\n"
      "}\n";
  cl_context ctx;
  cl_device_id dev;
  if (clGetCommandQueueInfo(queue, CL_QUEUE_CONTEXT, sizeof ctx, &ctx, NULL) != CL_SUCCESS ||
      clGetCommandQueueInfo(queue, CL_QUEUE_DEVICE, sizeof dev, &dev, NULL) != CL_SUCCESS)
    return NULL;
  size_t i = 0;
  for (; i < sizeof g_fills / sizeof g_fills[0] && g_fills[i].ctx; i++) {
    if (g_fills[i].ctx == ctx)
      return g_fills[i].kernel;
  }
  if (i == sizeof g_fills / sizeof g_fills[0])
    return NULL;
  cl_int err;
  cl_program prog = clCreateProgramWithSource(ctx, 1, &source, NULL, &err);
  if (!prog)
    return NULL;
  cl_kernel k = NULL;
  if (clBuildProgram(prog, 1, &dev, "", NULL, NULL) == CL_SUCCESS)
    k = clCreateKernel(prog, "og_fill", &err);
  clReleaseProgram(prog);
  if (!k)
    return NULL;
  clRetainContext(ctx); /* so that no later context takes its address in g_fills */
  g_fills[i] = (fill_kernel){ctx, k};
  return k;
}

/* Stores a pattern with a blocking write (patterns the fill kernel does not take). */
static cl_int fill_by_write(cl_command_queue queue, cl_mem buffer, const void *pattern,
                            size_t pattern_size, size_t offset, size_t size, cl_uint num_wait,
                            const cl_event *wait_list, cl_event *event) {
  unsigned char *bytes = malloc(size ? size : 1);
  if (!bytes)
    return CL_OUT_OF_HOST_MEMORY;
  for (size_t i = 0; i < size; i += pattern_size)
    memcpy(bytes + i, pattern, pattern_size);
  cl_int err =
      clEnqueueWriteBuffer(queue, buffer, CL_TRUE, offset, size, bytes, num_wait, wait_list, event);
  free(bytes);
  return err;
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueFillBuffer(cl_command_queue queue, cl_mem buffer,
                                                    const void *pattern, size_t pattern_size,
                                                    size_t offset, size_t size, cl_uint num_wait,
                                                    const cl_event *wait_list, cl_event *event) {
  if (!pattern || pattern_size == 0 || size % pattern_size != 0 || offset % pattern_size != 0)
    return CL_INVALID_VALUE;
  cl_kernel k = pattern_size == 4 && size > 0 ? fill_kernel_for(queue) : NULL;
  if (!k)
    return fill_by_write(queue, buffer, pattern, pattern_size, offset, size, num_wait, wait_list,
                         event);
  cl_uint value;
  cl_ulong first = offset / 4;
  memcpy(&value, pattern, 4);
  cl_int err = clSetKernelArg(k, 0, sizeof buffer, &buffer);
  if (err == CL_SUCCESS)
    err = clSetKernelArg(k, 1, sizeof first, &first);
  if (err == CL_SUCCESS)
    err = clSetKernelArg(k, 2, sizeof value, &value);
  size_t global = size / 4;
  if (err == CL_SUCCESS)
    err = clEnqueueNDRangeKernel(queue, k, 1, NULL, &global, NULL, num_wait, wait_list, event);
  return err;
}

/* ============================================================================================== */
/* Known findings                                                                                 */
/* ============================================================================================== */

/*
 * Findings that are known and understood: a message matching one of these (its first line, its
 * kernel and a source line it quotes) is counted and listed but does not fail the test, and a
 * known finding that no longer appears is pointed out so that its entry can be removed. Any other
 * message fails the case that caused it.
 */
typedef struct known_finding {
  const char *header; /* the message's first line starts with this */
  const char *kernel; /* "Kernel: NAME" ("" matches every kernel) */
  const char *source; /* a source line quoted in the message */
  const char *why;
  unsigned long count;
} known_finding;

/* The list ends at the first entry whose header is NULL. */
static known_finding known[] = {
    {NULL, NULL, NULL, NULL, 0},
};
#define KNOWN_COUNT (sizeof known / sizeof known[0])

static const char *g_log;   /* OCLGRIND_LOG */
static long g_log_seen;     /* bytes of the log already attributed to a case */
static unsigned g_reported; /* cases with unknown Oclgrind messages */

int og_log_start(const char *program) {
  g_log = getenv("OCLGRIND_LOG");
  if (!g_log || !*g_log) {
    fprintf(stderr, "%s: run through CTest (OCLGRIND_LOG must name Oclgrind's log)\n", program);
    return 0;
  }
  return 1;
}

/* Returns the log's size (0 if it does not exist yet). */
static long log_size(void) {
  struct stat st;
  return g_log && stat(g_log, &st) == 0 ? (long)st.st_size : 0;
}

void og_log_mark(void) {
  g_log_seen = log_size();
}

unsigned og_log_reported(void) {
  return g_reported;
}

/* Returns the known finding a message matches, or NULL. */
static known_finding *match_known(const char *msg) {
  for (size_t i = 0; i < KNOWN_COUNT && known[i].header; i++) {
    char kernel[96];
    snprintf(kernel, sizeof kernel, "Kernel: %s", known[i].kernel);
    if (strncmp(msg, known[i].header, strlen(known[i].header)) == 0 && strstr(msg, kernel) &&
        strstr(msg, known[i].source))
      return &known[i];
  }
  return NULL;
}

/* Classifies the messages in text (blank-line separated); prints unknown ones under `what`.
 * Returns the number of unknown messages. */
static unsigned classify(char *text, const char *what) {
  unsigned unknown = 0, printed_lines = 0;
  char *p = text;
  while (*p) {
    // One message: from its first non-blank line to the next blank line.
    while (*p == '\n' || *p == '\t' || *p == ' ')
      p++;
    if (!*p)
      break;
    char *end = strstr(p, "\n\n");
    if (end)
      *end = '\0';
    known_finding *k = match_known(p);
    if (k) {
      k->count++;
    } else {
      if (unknown++ == 0)
        printf("  OCLGRIND REPORTED during %s:\n", what);
      for (char *line = p; line && *line && printed_lines < 80; printed_lines++) {
        char *nl = strchr(line, '\n');
        printf("    | %.*s\n", nl ? (int)(nl - line) : (int)strlen(line), line);
        line = nl ? nl + 1 : NULL;
      }
    }
    p = end ? end + 2 : p + strlen(p);
  }
  return unknown;
}

int og_log_check(const char *what) {
  long size = log_size();
  if (size < g_log_seen)
    g_log_seen = 0; /* truncated since (a new context): all of it is new */
  if (size == g_log_seen)
    return 0;
  char *text = malloc((size_t)(size - g_log_seen) + 1);
  FILE *f = fopen(g_log, "r");
  size_t got = 0;
  if (text && f && fseek(f, g_log_seen, SEEK_SET) == 0)
    got = fread(text, 1, (size_t)(size - g_log_seen), f);
  if (f)
    fclose(f);
  g_log_seen = size;
  if (!text || got == 0) {
    free(text);
    printf("  OCLGRIND REPORTED during %s, but its log could not be read\n", what);
    g_reported++;
    return 1;
  }
  text[got] = '\0';
  unsigned unknown = classify(text, what);
  free(text);
  g_reported += unknown != 0;
  return unknown != 0;
}

int og_case_end(const char *what, int ok, const char *msg) {
  if (!ok)
    printf("  FAILED %s: %s\n", what, msg);
  if (og_log_check(what))
    ok = 0;
  if (ok)
    printf("  ok  %s\n", what);
  fflush(stdout);
  return !ok;
}

int og_log_report_known(int list_unseen) {
  int unseen = 0;
  for (size_t i = 0; i < KNOWN_COUNT && known[i].header; i++) {
    if (known[i].count) {
      printf("oclgrind: KNOWN FINDING (%lu messages, not failing the test): %s [%s]: %s\n",
             known[i].count, known[i].header, known[i].source, known[i].why);
    } else if (list_unseen) {
      printf(
          "oclgrind: known finding no longer reported (remove it from tests/oclgrind_log.c): "
          "%s [%s]\n",
          known[i].header, known[i].source);
      unseen++;
    } else {
      unseen++;
    }
  }
  return unseen;
}
