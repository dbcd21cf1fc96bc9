/*
 * clscan internals: the structures behind the public handles and the functions the layers
 * share. Layers: api.c (public entry points) -> plan.c / validate.c -> dispatch.c (enqueues the
 * kernels of each algorithm) -> program.c (build and cache), temp.c (temporary buffers),
 * device.c (capabilities), tuning.c (per-device parameters). Internal non-static names start
 * with clscan__.
 */
#ifndef CLSCAN_INTERNAL_H_
#define CLSCAN_INTERNAL_H_

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "clscan.h"
#include "kernels.h"

/* ============================================================================================== */
/* Errors (error.c)                                                                               */
/* ============================================================================================== */

/* Records a formatted detail for the calling thread and returns status. */
clscan_status clscan__fail(clscan_status status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Maps an OpenCL error from `what` to a status and records the detail. */
clscan_status clscan__cl_fail(cl_int err, const char *what);

/* Returns the name of an OpenCL error code ("CL_INVALID_VALUE"), or "unknown". */
const char *clscan__cl_error_name(cl_int err);

/* Clears the calling thread's error detail (at the start of each public call). */
void clscan__clear_error(void);

/* Runs an OpenCL call; on failure records it and jumps to `fail` with `st` set. */
#define CLSCAN_CL(call)                \
  do {                                 \
    cl_int e_ = (call);                \
    if (e_ != CL_SUCCESS) {            \
      st = clscan__cl_fail(e_, #call); \
      goto fail;                       \
    }                                  \
  } while (0)

/* Runs a clscan call; on failure jumps to `fail` with `st` set. */
#define CLSCAN_TRY(call)        \
  do {                          \
    st = (call);                \
    if (st != CLSCAN_SUCCESS) { \
      goto fail;                \
    }                           \
  } while (0)

/* Fault injection (fault.c): a fault point fails when armed by the tests. CLSCAN_FAULT(code, call)
 * yields `code` instead of running a call that returns a cl_int; CLSCAN_FAULT_CREATE(err, code,
 * call) yields NULL with *err = code instead of running a call that creates an object. */
#ifdef CLSCAN_FAULT_INJECTION
int clscan__fault(void);
#define CLSCAN_FAULT(code, call) (clscan__fault() ? (code) : (call))
#define CLSCAN_FAULT_CREATE(err, code, call) (clscan__fault() ? ((err) = (code), NULL) : (call))
#else
#define CLSCAN_FAULT(code, call) (call)
#define CLSCAN_FAULT_CREATE(err, code, call) (call)
#endif

/* ============================================================================================== */
/* Device capabilities (device.c)                                                                 */
/* ============================================================================================== */

typedef struct clscan__device_info {
  char name[256];
  char vendor[256];
  char platform[256];
  char driver[128];
  cl_device_type type;
  cl_uint compute_units;
  size_t max_wg;
  cl_ulong local_mem;
  cl_ulong max_alloc;
  cl_ulong global_mem;
  cl_uint base_align_bytes;
  int has_fp64;
  int has_int64_atomics;
  int is_nvidia;
  int is_cpu;
} clscan__device_info;

/* Queries what clscan needs to know about a device. */
clscan_status clscan__device_query(cl_device_id device, clscan__device_info *info);

/* ============================================================================================== */
/* Kernel configuration, build options and the program cache (program.c)                         */
/* ============================================================================================== */

/* Which program (list of cl/ files) a configuration builds. */
typedef enum clscan__program_kind {
  CLSCAN__PROG_SEED = 0,         /* common + seed */
  CLSCAN__PROG_REDUCE_THEN_SCAN, /* common + tile + reduce_then_scan */
  CLSCAN__PROG_SINGLE_PASS,      /* common + tile + status + single_pass */
  CLSCAN__PROG_SINGLE_PASS_CPU,  /* common + status + single_pass_cpu */
  CLSCAN__PROG_PTX_PROBE,        /* a test compile of the inline PTX the tile scan uses */
  CLSCAN__PROG_COUNT
} clscan__program_kind;

/* Everything that changes a program's compiled code. Build options are composed from it in
 * exactly one function, clscan__build_options(). */
typedef struct clscan__kernel_config {
  clscan__program_kind program;
  clscan_type type;    /* output (value) type; CLSCAN_USER_TYPE for a user type */
  clscan_type in_type; /* input type */
  clscan_op op;
  int map; /* 1: the user prelude defines a map */
  clscan_segments segments;
  clscan_type key_type;    /* with CLSCAN_SEGMENTS_KEYS */
  unsigned state_align;    /* segmented state alignment (see common.cl) */
  size_t state_size;       /* sizeof(elem_t), checked by the compiler */
  const char *user_source; /* the user prelude (types, operator, map), or NULL; part of the key */
  unsigned wg;             /* work-group size */
  unsigned vpt;            /* 16-byte vectors per work-item (tile kernels) */
  unsigned cpu_tile;       /* elements per work-group (CPU single pass) */
  int vector_io;           /* 1: 16-byte vector loads and stores (offsets are aligned) */
  int nv_ptx;              /* 1: NVIDIA inline-PTX warp shuffles and look-back helpers */
  unsigned withhold;       /* test only: every withhold-th tile never publishes (0: off) */
} clscan__kernel_config;

/* Composes the user prelude of a descriptor (OpenCL C placed before common.cl: the user type,
 * operator, identity and map), or sets *out to NULL when it has no user sources. The caller frees
 * *out. */
clscan_status clscan__user_source(const clscan_scan_desc *desc, char **out);

/* Composes the build options for a configuration into buf. */
void clscan__build_options(const clscan__kernel_config *cfg, char *buf, size_t cap);

/* Returns the context's program for a configuration, building and caching it on first use.
 * The program stays owned by the context. */
clscan_status clscan__program_get(clscan_context *ctx, const clscan__kernel_config *cfg,
                                  cl_program *program);

/* Releases every cached program (context teardown). */
void clscan__program_cache_clear(clscan_context *ctx);

/* Sets *has to 1 if the device compiles the inline PTX the NVIDIA tile path uses (cached once
 * known). Fails only if the probe could not be built for a reason other than a compile error. */
clscan_status clscan__device_has_nv_ptx(clscan_context *ctx, int *has);

/* ============================================================================================== */
/* Temporary buffers (temp.c)                                                                     */
/* ============================================================================================== */

#define CLSCAN__MAX_TEMP_SLOTS 16

/* One reusable device buffer. Successive users are ordered by waiting on `last`. */
typedef struct clscan__temp_slot {
  cl_mem buf;
  size_t size;
  cl_event last;               /* completion of the last scan that used it, or NULL */
  cl_command_queue last_queue; /* compared, never dereferenced */
  cl_ulong epoch;              /* single-pass launch counter (status words carry it) */
  cl_uint tickets;             /* tickets handed out so far (the ticket counter's value) */
  int busy;                    /* held between acquire and release */
  int single_pass_ready;       /* status words hold zeros or older epochs */
} clscan__temp_slot;

/* A slot held for one scan. */
typedef struct clscan__temp_lease {
  int slot;
  cl_mem buf;
  size_t size;
  cl_event wait;   /* the previous user's completion, to wait for (may be NULL) */
  int single_pass; /* the lease is for a single-pass launch */
  int needs_zero;  /* 1: the whole buffer must be zero-filled first */
  cl_ulong epoch;  /* this launch's epoch (single pass) */
  cl_uint ticket_base;
  cl_ulong saved_epoch; /* the slot's state before, restored if nothing is enqueued */
  cl_uint saved_tickets;
  int saved_ready;
} clscan__temp_lease;

/* Takes a slot of at least `bytes` for a scan on `queue`, allocating or growing as needed.
 * `tickets` is the number of single-pass tiles of the launch, or 0 for other algorithms. */
clscan_status clscan__temp_acquire(clscan_context *ctx, cl_command_queue queue, size_t bytes,
                                   cl_uint tickets, clscan__temp_lease *lease);

/* Returns a slot; `done` becomes its last use. With done NULL, `partial` says that some commands
 * were enqueued (and the caller has waited for them), so the buffer's state is unknown. */
void clscan__temp_release(clscan_context *ctx, clscan__temp_lease *lease, cl_event done,
                          int partial);

/* Releases all slots (context teardown). */
void clscan__temp_clear(clscan_context *ctx);

/* ============================================================================================== */
/* Tuning (tuning.c)                                                                              */
/* ============================================================================================== */

/* Parameters chosen for a device, type and algorithm. */
typedef struct clscan__tuning {
  unsigned seed_wg;           /* Blelloch / Hillis-Steele work-group size */
  unsigned tile_wg;           /* tile kernels' work-group size */
  unsigned tile_vpt;          /* tile kernels' 16-byte vectors per work-item */
  unsigned rts_groups_per_cu; /* reduce-then-scan: work-groups per compute unit */
  unsigned cpu_tile;          /* CPU single pass: elements per work-group */
  int single_pass_cpu;        /* 1: use the CPU-shaped single pass */
  size_t auto_seed_below;     /* AUTO: below this n use one Blelloch block launch */
  const char *source;         /* the table row used, for documentation and `clscan devices` */
} clscan__tuning;

/* What a plan's tuning row is chosen by. */
typedef struct clscan__tuning_key {
  size_t elem_size; /* the wider of the input and output element sizes (8 for user types) */
  size_t in_size;   /* the input element size */
  int segmented;    /* 1: a segmented or by-key scan */
} clscan__tuning_key;

/* Looks up the tuning for a device and plan shape: device row, then vendor, then default. */
void clscan__tuning_lookup(const clscan__device_info *info, const clscan__tuning_key *key,
                           clscan__tuning *t);

/* ============================================================================================== */
/* Context and plan                                                                               */
/* ============================================================================================== */

typedef struct clscan__program_entry {
  char *options;
  char *user; /* the user prelude, or NULL */
  clscan__program_kind kind;
  cl_program program;
} clscan__program_entry;

struct clscan_context {
  cl_context cl_ctx;
  cl_device_id device;
  cl_command_queue queue;
  clscan__device_info info;
  pthread_mutex_t lock; /* guards everything below */
  clscan__program_entry *programs;
  size_t program_count, program_cap;
  char *build_log;
  int nv_ptx; /* -1 unknown, 0 no, 1 yes */
  clscan__temp_slot slots[CLSCAN__MAX_TEMP_SLOTS];
  pthread_cond_t slot_freed;
  clscan_plan **plans; /* plans for clscan_scan(), by descriptor */
  size_t plan_count, plan_cap;
};

/* Kernels of one algorithm for one plan. */
typedef struct clscan__algo_kernels {
  int ready;
  clscan__kernel_config cfg;
  cl_kernel k[4];
} clscan__algo_kernels;

/* Index of the aligned (vector I/O) and unaligned kernel sets. */
#define CLSCAN__IO_VARIANTS 2

struct clscan_plan {
  clscan_context *ctx;
  clscan_scan_desc desc;   /* a deep copy: its pointers point at memory the plan owns */
  char *user_source;       /* the user prelude, or NULL */
  unsigned char *identity; /* the operator's identity (out_size bytes) */
  size_t in_size;          /* bytes per input element */
  size_t out_size;         /* bytes per output element (the value type) */
  size_t state_size;       /* bytes per scan state (elem_t): out_size, or the segmented pair */
  unsigned state_align;
  size_t elem_size; /* the I/O element size tuning rows are chosen by */
  unsigned vec;     /* elements per vector of the tile kernels (VEC in common.cl) */
  clscan__tuning tuning;
  unsigned withhold;    /* test only (CLSCAN_TEST_WITHHOLD) */
  pthread_mutex_t lock; /* kernel arguments are set and enqueued under it */
  clscan__algo_kernels algos[CLSCAN_ALGORITHM_COUNT][CLSCAN__IO_VARIANTS];
};

/* Creates a plan without clearing the error detail (shared by api.c and the plan cache). */
clscan_status clscan__plan_create(clscan_context *ctx, const clscan_scan_desc *desc,
                                  clscan_plan **out);

/* Resolves AUTO for n elements. */
clscan_algorithm clscan__plan_resolve(const clscan_plan *plan, size_t n);

/* Makes sure the kernels for an algorithm and I/O variant exist (builds on first use). */
clscan_status clscan__plan_prepare(clscan_plan *plan, clscan_algorithm algo, int vector_io,
                                   clscan__algo_kernels **out);

/* ============================================================================================== */
/* Validation (validate.c)                                                                        */
/* ============================================================================================== */

/* Checks a descriptor against the context's device. */
clscan_status clscan__validate_desc(const clscan_context *ctx, const clscan_scan_desc *desc);

/* The output (value) type of a descriptor whose out_type is valid: `type` for CLSCAN_OUT_SAME. */
clscan_type clscan__out_type(const clscan_scan_desc *desc);

/* Sizes of a validated descriptor's input and output elements (type_size for a user type). */
size_t clscan__in_size(const clscan_scan_desc *desc);
size_t clscan__out_size(const clscan_scan_desc *desc);

/* Bytes per segment descriptor element: 1 (head flags), the key size, or 0 (unsegmented). */
size_t clscan__aux_size(const clscan_scan_desc *desc);

/* The element sizes of an enqueue's buffers. */
typedef struct clscan__sizes {
  size_t in, out, aux;
} clscan__sizes;

/* Checks queue, buffers, ranges and the wait list of an enqueue; resolves a NULL queue and
 * reports whether input and output are the same memory (an in-place scan). aux (flags or keys,
 * with sizes->aux bytes per element) is checked when sizes->aux is not 0. */
clscan_status clscan__validate_enqueue(const clscan_context *ctx, cl_command_queue *queue,
                                       cl_mem in, size_t in_off, cl_mem aux, size_t aux_off,
                                       cl_mem out, size_t out_off, size_t n,
                                       const clscan__sizes *sizes, cl_uint num_wait,
                                       const cl_event *wait_list, int *in_place);

/* ============================================================================================== */
/* Dispatch (dispatch.c)                                                                          */
/* ============================================================================================== */

/* One enqueue request after validation. */
typedef struct clscan__request {
  cl_command_queue queue;
  cl_mem in, out;
  cl_mem aux; /* head flags or keys of a segmented scan, else NULL */
  size_t in_off, out_off, aux_off, n;
  int in_place;
  int init_override; /* 1: `init` replaces the plan's initial value (one-shot scans) */
  const void *init;  /* with init_override: the initial value, or NULL for the identity */
  cl_uint num_wait;
  const cl_event *wait_list;
  cl_event *first, *done;
} clscan__request;

/* Enqueues the plan's scan for a validated request. */
clscan_status clscan__dispatch(clscan_plan *plan, const clscan__request *req);

/* Bytes of temporary storage an algorithm needs for n elements. */
size_t clscan__temp_bytes(const clscan_plan *plan, clscan_algorithm algo, size_t n);

/* Fills `bytes` (8 bytes) with a built-in operator's identity for a built-in type. */
void clscan__identity(clscan_type type, clscan_op op, void *bytes);

#endif /* CLSCAN_INTERNAL_H_ */
