/*
 * clscan tests: helpers shared by the test programs.
 *
 * Every test program uses one clscan context per process, created on first use on the default
 * device (CLSCAN_DEVICE selects another) and described once on stdout together with the seed.
 * Test data comes from the deterministic generator in tests/reference/ref_scan.h; every seed is
 * derived from one base seed (CLSCAN_TEST_SEED, printed at start), so a failure's message is enough
 * to reproduce it. A watchdog ends the process, naming the case it was running, when no case makes
 * progress for a while, so a hung kernel fails the test instead of stalling CI.
 *
 * It is also the one case harness: a tu_case is one scan (built-in, or of a tu_spec with output
 * types, user operators and types, maps, segments) run through one entry point and checked
 * against the host reference of ref_scan.h (test_case.c).
 *
 * Helper names start with tu_ (test utilities).
 */
#ifndef CLSCAN_TEST_UTIL_H_
#define CLSCAN_TEST_UTIL_H_

#include <stddef.h>
#include <stdint.h>

#include "clscan.h"
#include "ref_scan.h"

/* Elements after every output range that must keep their poison. */
#define TU_GUARD 16
/* Byte the output buffer holds before a scan. */
#define TU_POISON 0xA5
/* Byte the input buffer holds outside the scanned range. */
#define TU_INPUT_FILL 0x5A

/* ============================================================================================== */
/* Context, device and seeds                                                                      */
/* ============================================================================================== */

/* Returns the process's context, creating it on first use (NULL, with a message, on failure). */
clscan_context *tu_context(void);

/* Releases the process's context (at the end of main). */
void tu_context_release(void);

/* Returns the device's name, or "" before tu_context() succeeded. */
const char *tu_device_name(void);

/* Returns 1 when the context's device is a CPU. */
int tu_device_is_cpu(void);

/* Returns 1 when the context's device has 64-bit global atomics (the single pass's 64-bit status
 * words; without them its words are 32-bit). */
int tu_device_has_int64_atomics(void);

/* Returns 1 on Mesa's rusticl (the context's platform name). */
int tu_on_rusticl(void);

/* Returns the major version of POCL's driver ("3.1+debian": 3) on POCL, else 0. */
int tu_pocl_major(void);

/* Group setup and teardown for cmocka: make sure the context exists (its release is main's). */
int tu_group_setup(void **state);
int tu_group_teardown(void **state);

/* Returns the base seed: CLSCAN_TEST_SEED (a number, or "time"), else a fixed default. */
uint64_t tu_seed(void);

/* Derives a seed from a seed and a value (splitmix64 of both). */
uint64_t tu_mix(uint64_t seed, uint64_t value);

/* Returns a pseudo-random size in [lo, hi] and advances *state. */
size_t tu_random_size(uint64_t *state, size_t lo, size_t hi);

/* Returns a pseudo-random size in [0, m) (m >= 1) and advances *state. */
size_t tu_draw(uint64_t *state, size_t m);

/* Seconds of the monotonic clock (for intervals). */
double tu_seconds(void);

/* The budget of a property group (random cases drawn from the seed): at most
 * CLSCAN_TEST_PROPERTY_CASES cases (default `cases`) and no new case after
 * CLSCAN_TEST_PROPERTY_SECONDS seconds (default `seconds`) of the monotonic clock, counted from
 * the first call. Returns 1 while case number `done` may start. */
int tu_property_more(size_t done, size_t cases, double seconds);

/* Seconds of the monotonic clock since the first call of tu_property_more(). */
double tu_property_elapsed(void);

/* ============================================================================================== */
/* Environment and watchdog                                                                       */
/* ============================================================================================== */

/* A variable's value saved by tu_env_set(), to be put back by tu_env_restore(). */
typedef struct tu_env_saved {
  char name[64];
  char value[256];
  int was_set;
} tu_env_saved;

/* Sets (value not NULL) or unsets (value NULL) an environment variable, saving the old value. */
void tu_env_set(const char *name, const char *value, tu_env_saved *saved);

/* Puts back the value tu_env_set() saved. */
void tu_env_restore(const tu_env_saved *saved);

/* Records that the process is now working on `what` (the watchdog names it if it stalls). */
void tu_progress(const char *what);

/* ============================================================================================== */
/* Buffers                                                                                        */
/* ============================================================================================== */

/* Creates a buffer of the context's cl_context; NULL (with a message) on failure. */
cl_mem tu_buffer(clscan_context *ctx, cl_mem_flags flags, size_t bytes);

/* Creates a read-write buffer holding `bytes` of data, or TU_POISON bytes where data is NULL (at
 * least one byte either way); NULL (with a message) on failure. */
cl_mem tu_buffer_with(clscan_context *ctx, size_t bytes, const void *data);

/* The device's alignment of sub-buffer origins in bytes (CL_DEVICE_MEM_BASE_ADDR_ALIGN), at
 * least `at_least`. */
size_t tu_sub_buffer_align(clscan_context *ctx, size_t at_least);

/* Creates the sub-buffer [origin, origin + size) of parent; NULL (with a message) on failure. */
cl_mem tu_sub_buffer(cl_mem parent, size_t origin, size_t size);

/* Blocking write and read of `bytes` at byte offset `at` on `queue` (NULL: the context's). */
int tu_write(clscan_context *ctx, cl_command_queue queue, cl_mem buf, size_t at, size_t bytes,
             const void *data);
int tu_read(clscan_context *ctx, cl_command_queue queue, cl_mem buf, size_t at, size_t bytes,
            void *data);

/* ============================================================================================== */
/* Cases: one scan to run and check (test_case.c)                                                 */
/* ============================================================================================== */

/* Largest element (input, output or key) a case uses, in bytes. */
#define TU_MAX_ELEM CLSCAN_REF_MAX_ELEM

/* Fills n input elements (or one initial value) deterministically from a seed. */
typedef void (*tu_fill_fn)(uint64_t seed, void *data, size_t n);

/* A descriptor template and the host twins of its OpenCL C, for the reference (ref_scan.h). */
typedef struct tu_spec {
  const char *name;
  clscan_scan_desc desc; /* types, op, sources, identity; the case sets the rest */
  clscan_ref_map_fn map; /* twin of desc.map_source (required with it) */
  clscan_ref_op_fn op;   /* twin of desc.op_source (required with CLSCAN_USER_OP) */
  tu_fill_fn fill;       /* inputs; NULL: clscan_ref_fill of the input type */
  tu_fill_fn fill_init;  /* one initial value; NULL: clscan_ref_fill of the output type */
} tu_spec;

/* How a case reaches the library. */
typedef enum tu_path {
  TU_PATH_ONE_SHOT = 0, /* clscan_scan, clscan_segmented_scan or clscan_scan_by_key */
  TU_PATH_PLAN,         /* clscan_plan_enqueue or clscan_plan_enqueue_segmented */
  TU_PATH_PLAN_TIMED,   /* the timed plan enqueue, checking its first event too */
  TU_PATH_HOST,         /* clscan_scan_host or clscan_segmented_scan_host (offsets ignored) */
  TU_PATH_COUNT
} tu_path;

/* How the segment boundaries of a segmented case are laid out. */
typedef enum tu_pattern {
  TU_PATTERN_RANDOM = 0, /* random lengths, from 1 to tens of thousands */
  TU_PATTERN_EVERY,      /* every element starts a segment */
  TU_PATTERN_ONE,        /* one segment: no heads, or all keys equal */
  TU_PATTERN_COUNT
} tu_pattern;

/*
 * One scan to run and verify: a built-in scan of `type` with `op` (spec NULL), or a scan of a
 * spec's descriptor (output types, user operators and types, maps), with or without segments.
 */
typedef struct tu_case {
  const tu_spec *spec; /* NULL: the built-in scan of type and op */
  clscan_type type;    /* without a spec */
  clscan_op op;        /* without a spec */
  clscan_algorithm algorithm;
  int exclusive;
  int has_init;
  _Alignas(16) unsigned char init[TU_MAX_ELEM]; /* the initial value when has_init */
  clscan_segments segments;                     /* NONE, HEAD_FLAGS or KEYS */
  clscan_type key_type;                         /* with KEYS */
  tu_pattern pattern;                           /* with segments */
  int one_shot_none; /* one-shot segmented paths: pass desc.segments = NONE (allowed) */
  size_t n, in_off, out_off, seg_off;
  int in_place; /* one buffer; the input starts at out_off (same element sizes only) */
  tu_path path;
  clscan_plan *plan;      /* plan paths: the plan to use, or NULL to create one */
  cl_command_queue queue; /* device paths: the queue, or NULL for the context's */
  uint64_t seed;          /* seed of the input data and the segments */
} tu_case;

/* Fills a descriptor from a case, as plans take it (desc->init points into the case). */
void tu_case_desc(const tu_case *c, clscan_scan_desc *desc);

/* Gives a case an initial value derived from `seed`. */
void tu_case_set_init(tu_case *c, uint64_t seed);

/* Describes a case in one line (everything needed to reproduce it). */
void tu_case_describe(const tu_case *c, char *buf, size_t cap);

/*
 * Runs a case: inputs and segments from its seed, poisoned output, scan, wait, then every result
 * element (against clscan_ref_check_twins), the guards around the output range, the input and the
 * segment buffer are checked. Thread-safe (it does not use cmocka). Returns 1 on success; else 0
 * with the reason in msg.
 */
int tu_run_case(clscan_context *ctx, const tu_case *c, char *msg, size_t cap);

/* Checks n results of a case against the reference computed from `in` and `segments` (flags or
 * keys, as the case's descriptor says; NULL: one segment). Returns 1 if they match; else 0 with
 * the first mismatch in detail. */
int tu_case_check(const tu_case *c, const void *segments, const void *in, const void *got, size_t n,
                  char *detail, size_t cap);

/* Waits for an event and checks that it completed; else 0 with the reason in msg. */
int tu_event_complete(cl_event ev, const char *name, char *msg, size_t cap);

/* Checks the events of a timed enqueue: both complete and, where the queue profiles, the first
 * command started no later than the last one. Returns 1, or 0 with the reason in msg. */
int tu_events_ordered(cl_event first, cl_event done, char *msg, size_t cap);

/* Returns 1 if every byte of p[0, bytes) equals `byte`. */
int tu_all_bytes(const void *p, size_t bytes, unsigned char byte);

#endif /* CLSCAN_TEST_UTIL_H_ */
