/*
 * clscan internals: the structures behind the public handles and the functions the layers share.
 *
 * Layers, top to bottom (docs/architecture.md states them; scripts/check_layers.sh checks them).
 * A file calls functions of its own layer or of the layers below it, never above, and the calls
 * between files form no circle.
 *   api        api.c, context.c, validate.c, select_api.c, select_host.c, sort_api.c,
 *              segments_api.c: public entry points and argument checking.
 *   plan       plan.c, plan_cache.c, dispatch.c: a descriptor resolved to a configuration, the
 *              one-shot plan cache, and the generic dispatch (validate, resolve, lease, run).
 *   algorithm  algorithms.c (the registry) and one algo_*.c file per algorithm, each exporting
 *              one descriptor: the scans' algo_classic.c, algo_reduce_then_scan.c and
 *              algo_single_pass.c, algo_reduce.c, algo_total.c, the selections'
 *              algo_select_single_pass.c and algo_select_multi_pass.c, the sorts'
 *              algo_radix_sort.c and algo_radix_sort_onesweep.c (algo_batch.c: the batched
 *              scans' program).
 *   service    program.c (build and cache), prelude.c (user sources), device.c (device facts,
 *              the NVIDIA PTX probe), temp.c (temporary buffers), tuning.c, chain.c (command
 *              chain and kernel arguments), env.c (the environment switches).
 *   base       types.c (element types and operators), error.c (statuses and details), fault.c
 *              (test hooks).
 * Internal non-static names start with clscan__.
 */
#ifndef CLSCAN_INTERNAL_H_
#define CLSCAN_INTERNAL_H_

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "clscan.h"
#include "kernels.h"

typedef struct clscan__kernel_config clscan__kernel_config;
typedef struct clscan__request clscan__request;

/* ============================================================================================== */
/* base: errors (error.c)                                                                         */
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

/* Starts a public call that may return events: clears the error detail and sets *first and
 * *done (either pointer may be NULL) to NULL, so that a call that fails returns no event. */
void clscan__begin_call(cl_event *first, cl_event *done);

/*
 * The internal error style. In a function that has nothing to release, CLSCAN_RETURN_IF_ERROR
 * returns a failed status at once. In a function that must release something, CLSCAN_TRY and
 * CLSCAN_CL set the local `st` and jump to the function's single `fail:` label, which releases
 * and returns st.
 */
#define CLSCAN_RETURN_IF_ERROR(call) \
  do {                               \
    clscan_status st_ = (call);      \
    if (st_ != CLSCAN_SUCCESS) {     \
      return st_;                    \
    }                                \
  } while (0)

/* Runs a clscan call; on failure jumps to `fail` with `st` set. */
#define CLSCAN_TRY(call)        \
  do {                          \
    st = (call);                \
    if (st != CLSCAN_SUCCESS) { \
      goto fail;                \
    }                           \
  } while (0)

/* Runs an OpenCL call; on failure records it and jumps to `fail` with `st` set. */
#define CLSCAN_CL(call)                \
  do {                                 \
    cl_int e_ = (call);                \
    if (e_ != CL_SUCCESS) {            \
      st = clscan__cl_fail(e_, #call); \
      goto fail;                       \
    }                                  \
  } while (0)

/* ============================================================================================== */
/* base: test hooks (fault.c, only with CLSCAN_FAULT_INJECTION)                                   */
/* ============================================================================================== */

/* Fault injection: a fault point fails when armed by the tests. CLSCAN_FAULT(code, call) yields
 * `code` instead of running a call that returns a cl_int; CLSCAN_FAULT_CREATE(err, code, call)
 * yields NULL with *err = code instead of running a call that creates an object. The other hooks
 * let tests observe program builds and temporary-slot choices (src/fault.h). */
#ifdef CLSCAN_FAULT_INJECTION
int clscan__fault(void);
void clscan__test_on_build(void);
void clscan__test_on_slot(int slot, int zeroed);
#define CLSCAN_FAULT(code, call) (clscan__fault() ? (code) : (call))
#define CLSCAN_FAULT_CREATE(err, code, call) (clscan__fault() ? ((err) = (code), NULL) : (call))
#define CLSCAN_TEST_ON_BUILD() clscan__test_on_build()
#define CLSCAN_TEST_ON_SLOT(slot, zeroed) clscan__test_on_slot(slot, zeroed)
#else
#define CLSCAN_FAULT(code, call) (call)
#define CLSCAN_FAULT_CREATE(err, code, call) (call)
#define CLSCAN_TEST_ON_BUILD() ((void)0)
#define CLSCAN_TEST_ON_SLOT(slot, zeroed) ((void)(slot), (void)(zeroed))
#endif

/* ============================================================================================== */
/* base: element types and operators (types.c, generated from CLSCAN_TYPE_MAP and CLSCAN_OP_MAP)  */
/* ============================================================================================== */

/* Returns 1 for a built-in clscan_type value. */
int clscan__type_is_builtin(clscan_type t);

/* Returns 1 for float and double. */
int clscan__type_is_float(clscan_type t);

/* The OpenCL C name of a built-in type ("int", "ulong", ...), or NULL. */
const char *clscan__type_cl_name(clscan_type t);

/* The OpenCL C type user sources see a built-in type's values as: its name, but "float" for a
 * half (cl/common.cl keeps halves as bits and hands them to user code as floats), or NULL. */
const char *clscan__type_user_name(clscan_type t);

/* Fills `bytes` (8 bytes) with a built-in operator's identity for a built-in type. */
void clscan__identity(clscan_type type, clscan_op op, void *bytes);

/* The output (value) type of a descriptor whose out_type is valid: `type` for CLSCAN_OUT_SAME. */
clscan_type clscan__out_type(const clscan_scan_desc *desc);

/* Sizes of a validated descriptor's input and output elements (type_size for a user type). */
size_t clscan__in_size(const clscan_scan_desc *desc);
size_t clscan__out_size(const clscan_scan_desc *desc);

/* Bytes per segment descriptor element: 1 (head flags), the key or offset size, or 0
 * (unsegmented, or rows of a fixed length, which read nothing). */
size_t clscan__aux_size(const clscan_scan_desc *desc);

/* The internal segment kind of batched rows without padding: segments of one fixed length (the
 * request's seg_param), computed from the index. Never accepted from callers. */
#define CLSCAN__SEGMENTS_ROWS ((clscan_segments)4)

/* Rounds a up to a multiple of b. */
static inline size_t clscan__div_up(size_t a, size_t b) {
  return (a + b - 1) / b;
}

/* ============================================================================================== */
/* service: environment switches (env.c, the only reader of CLSCAN_* variables)                   */
/* ============================================================================================== */

/* The variables the library reads; env.c documents each. */
typedef enum clscan__env_var {
  CLSCAN__ENV_DEVICE,
  CLSCAN__ENV_SEED_WG,
  CLSCAN__ENV_TILE_WG,
  CLSCAN__ENV_TILE_VPT,
  CLSCAN__ENV_RTS_GROUPS,
  CLSCAN__ENV_CPU_TILE,
  CLSCAN__ENV_SINGLE_PASS_CPU,
  CLSCAN__ENV_TEST_WITHHOLD,
  CLSCAN__ENV_NO_PTX,
  CLSCAN__ENV_BUILD_OPTIONS,
  CLSCAN__ENV_TEST_STATUS32,
  CLSCAN__ENV_SORT_CLASSIC,
  CLSCAN__ENV_SORT_ITEMS,
  CLSCAN__ENV_SEG_OFFSETS_MASK,
  CLSCAN__ENV_COUNT
} clscan__env_var;

/* Returns the variable's value, or NULL when it is unset or empty. */
const char *clscan__env_string(clscan__env_var var);

/* Returns 1 if the variable is set, even to the empty string. */
int clscan__env_present(clscan__env_var var);

/* Returns the variable as an unsigned decimal number, or fallback when it is unset, empty or not
 * a number. *set (if not NULL) says whether the variable gave the value. */
unsigned clscan__env_unsigned(clscan__env_var var, unsigned fallback, int *set);

/* ============================================================================================== */
/* service: device facts (device.c)                                                               */
/* ============================================================================================== */

typedef struct clscan__device_info {
  char name[256];
  char vendor[256];
  char platform[256];
  char driver[128]; /* CL_DRIVER_VERSION (driver workarounds, validate.c) */
  cl_uint compute_units;
  size_t max_wg;
  cl_ulong local_mem;
  cl_ulong max_alloc;
  int has_fp64;
  int has_int64_atomics;
  int is_nvidia;
  unsigned nv_sm; /* NVIDIA's compute capability as major * 10 + minor, 0 where not reported */
  int is_cpu;
} clscan__device_info;

/* Case-insensitive substring test (vendor detection, CLSCAN_DEVICE names). */
int clscan__contains_ci(const char *hay, const char *needle);

/* Queries what clscan needs to know about a device. */
clscan_status clscan__device_query(cl_device_id device, clscan__device_info *info);

/* Sets *has to 1 if the device compiles the inline PTX the NVIDIA tile path uses (cached in the
 * context once known). Fails only if the probe could not be built for a reason other than a
 * compile error. */
clscan_status clscan__device_has_nv_ptx(clscan_context *ctx, int *has);

/* ============================================================================================== */
/* service: the user prelude (prelude.c)                                                          */
/* ============================================================================================== */

/* Composes the user prelude of a descriptor (OpenCL C placed before common.cl: the user type,
 * operator, identity and map, the extra arguments' parameter lists and the device-init switch),
 * or sets *out to NULL when it has none of these. The caller frees *out. */
clscan_status clscan__user_source(const clscan_scan_desc *desc, char **out);

/* ============================================================================================== */
/* service: build options and the program cache (program.c)                                       */
/* ============================================================================================== */

#define CLSCAN__MAX_FILES 6
#define CLSCAN__MAX_KERNELS 4

/* A program an algorithm builds: the cl/ files it concatenates. Programs are compared by
 * address in the cache key, so algorithms that share one (Blelloch and Hillis-Steele) share the
 * definition. */
typedef struct clscan__program {
  const char *name;                         /* for messages and docs */
  const char *files[CLSCAN__MAX_FILES + 1]; /* NULL-terminated, in order */
  int vector_io_option;                     /* 1: pass -DCLSCAN_VECTOR_IO (tile kernels) */
} clscan__program;

/* The kernels an algorithm creates from its program, by the algorithm's own kernel index
 * (designated initialisers in its file); NULL where it has fewer. */
typedef struct clscan__kernel_names {
  const char *name[CLSCAN__MAX_KERNELS];
} clscan__kernel_names;

/* Everything that changes a program's compiled code. Build options are composed from it in
 * exactly one function, clscan__build_options(). */
struct clscan__kernel_config {
  const clscan__program *program;
  const clscan__kernel_names *kernels; /* what to create from the program (not in the key) */
  clscan_type type;                    /* output (value) type; CLSCAN_USER_TYPE for a user type */
  clscan_type in_type;                 /* input type */
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
  int nv_ptx;              /* non-zero: NVIDIA inline PTX (shuffles, look-back helpers); > 1: also
                              the compute capability * 10 (CLSCAN_NV_SM) */
  unsigned withhold;       /* test only: every withhold-th tile never publishes (0: off) */
  int status32;            /* 1: 32-bit status words (cl/status.cl, CLSCAN_STATUS32) */
  int seg_mask;            /* 1: segments by offsets read a head mask (CLSCAN_SEG_OFFSETS_MASK) */
  int seg_firsts;          /* 1: their tiles read their first offset's index (the same, 2) */
  int stash;               /* 1: the single pass stashes its tile in local memory (CLSCAN_STASH) */
  unsigned nv_registers;   /* NVIDIA: register cap (CLSCAN_NV_REGISTERS, -cl-nv-maxrregcount) */
};

/* Composes the build options for a configuration into buf. */
void clscan__build_options(const clscan__kernel_config *cfg, char *buf, size_t cap);

/* One cached program; `program` is NULL while its first requester builds it. */
typedef struct clscan__program_entry {
  char *options;
  char *user; /* the user prelude, or NULL */
  const clscan__program *def;
  cl_program program;
} clscan__program_entry;

/* The context's programs. `lock` guards the entries and the build log, never a build: a new
 * entry is inserted as in progress, built outside the lock, and `built` is broadcast when it is
 * done, so that a second requester of the same program waits instead of building it again. */
typedef struct clscan__program_cache {
  pthread_mutex_t lock;
  pthread_cond_t built;
  clscan__program_entry **entries;
  size_t count, cap;
  char *build_log; /* the most recent build's log */
} clscan__program_cache;

/* Initialises and releases a context's program cache. */
clscan_status clscan__program_cache_init(clscan__program_cache *cache);
void clscan__program_cache_clear(clscan__program_cache *cache);

/* Returns the context's program for a configuration, building and caching it on first use.
 * The program stays owned by the context. */
clscan_status clscan__program_get(clscan_context *ctx, const clscan__kernel_config *cfg,
                                  cl_program *program);

/* Copies the most recent build log (clscan_context_build_log()). */
void clscan__program_build_log(clscan__program_cache *cache, char *buf, size_t size,
                               size_t *needed);

/* ============================================================================================== */
/* service: temporary buffers (temp.c)                                                            */
/* ============================================================================================== */

#define CLSCAN__MAX_TEMP_SLOTS 16

/* One reusable device buffer. Successive users are ordered by waiting on `last`. */
typedef struct clscan__temp_slot {
  cl_mem buf;
  size_t size;
  cl_event last;               /* completion of the last scan that used it, or NULL */
  cl_command_queue last_queue; /* the queue of that scan; compared, never dereferenced */
  cl_ulong epoch;              /* single-pass launch counter (status words carry it) */
  cl_uint tickets;             /* tickets handed out so far (the ticket counter's value) */
  int busy;                    /* held between acquire and release */
  int single_pass_ready;       /* status words hold zeros or older epochs */
  unsigned status_bytes;       /* the size of those status words (4 or 8; 0: none yet) */
} clscan__temp_slot;

/* The context's slots, on their own lock. */
typedef struct clscan__temp_pool {
  pthread_mutex_t lock;
  pthread_cond_t freed;
  clscan__temp_slot slots[CLSCAN__MAX_TEMP_SLOTS];
} clscan__temp_pool;

/* A slot held for one scan. */
typedef struct clscan__temp_lease {
  int slot;
  cl_command_queue queue;
  cl_mem buf;
  size_t size;
  cl_event wait;         /* the previous user's completion, to wait for (may be NULL) */
  int single_pass;       /* the lease is for a single-pass launch */
  unsigned status_bytes; /* its status words' size (4 or 8) */
  int needs_zero;        /* 1: the whole buffer must be zero-filled first */
  cl_ulong epoch;        /* this launch's epoch (single pass) */
  cl_uint ticket_base;
  cl_ulong saved_epoch; /* the slot's state before, restored if nothing is enqueued */
  cl_uint saved_tickets;
  int saved_ready;
  unsigned saved_status_bytes;
} clscan__temp_lease;

/* The status-word algorithms' layout of a slot (cl/status.cl): the ticket counter, a uint at byte
 * 0, then from CLSCAN__STATUS_OFFSET the status words. */
#define CLSCAN__STATUS_OFFSET 64

/* Bytes of the status words of one state of `state_bytes` bytes: one 8-byte word per 4 bytes, or
 * with 32-bit words one 4-byte word per 2 bytes (cl/status.cl's STATUS_WORDS words). */
size_t clscan__status_state_bytes(size_t state_bytes, int status32);

/* Initialises a context's slots. */
clscan_status clscan__temp_init(clscan__temp_pool *pool);

/* Takes a slot of at least `bytes` for a scan on `queue`, allocating or growing as needed.
 * `tickets` is the number of single-pass tiles of the launch, or 0 for other algorithms; a
 * single pass's status words are 64-bit. */
clscan_status clscan__temp_acquire(clscan_context *ctx, cl_command_queue queue, size_t bytes,
                                   cl_uint tickets, clscan__temp_lease *lease);

/* As clscan__temp_acquire(), for a single pass whose status words are `status_bytes` (4 or 8)
 * wide: a slot whose words had the other size is zeroed first (read in the other size, its words
 * could stay above every epoch of this launch, and every look-back would take the fallback). */
clscan_status clscan__temp_acquire_words(clscan_context *ctx, cl_command_queue queue, size_t bytes,
                                         cl_uint tickets, unsigned status_bytes,
                                         clscan__temp_lease *lease);

/* Returns a slot; `done` becomes its last use and the lease's queue its last queue. With done
 * NULL, `partial` says that some commands were enqueued (and the caller has waited for them), so
 * the buffer's state is unknown. */
void clscan__temp_release(clscan_context *ctx, clscan__temp_lease *lease, cl_event done,
                          int partial);

/* Releases all slots and the pool's lock (context teardown). */
void clscan__temp_clear(clscan__temp_pool *pool);

/* ============================================================================================== */
/* service: tuning (tuning.c)                                                                     */
/* ============================================================================================== */

/* Parameters chosen for a device, algorithm and element size. */
typedef struct clscan__tuning {
  unsigned seed_wg;           /* Blelloch / Hillis-Steele work-group size */
  unsigned tile_wg;           /* tile kernels' work-group size */
  unsigned tile_vpt;          /* tile kernels' 16-byte vectors per work-item */
  unsigned rts_groups_per_cu; /* reduce-then-scan: work-groups per compute unit */
  unsigned cpu_tile;          /* CPU single pass: elements per work-group */
  int single_pass_cpu;        /* 1: use the CPU-shaped single pass */
  int stash;                  /* 1: the GPU single pass keeps its tile in local memory through the
                                 look-back (cl/tile.cl, CLSCAN_STASH), where it fits */
  unsigned nv_registers;      /* NVIDIA: the single pass's register cap (0: the compiler's) */
  /* The reduction's GPU shape (src/algo_reduce.c): work-group size, vectors per work-item and
   * work-groups per compute unit. A table row may give one of its own (all three, or 0: the
   * tile's and rts_groups_per_cu); resolved, they are never 0. */
  unsigned reduce_wg, reduce_vpt, reduce_groups_per_cu;
} clscan__tuning;

/* What a plan's tuning row is chosen by. */
typedef struct clscan__tuning_key {
  clscan_algorithm algorithm; /* the plan's resolved algorithm */
  size_t elem_size;           /* the wider of the input and output element sizes (8: user types) */
  size_t in_size;             /* the input element size */
  clscan_segments segments;   /* segmented and by-key scans: the descriptor's kind
                                 (CLSCAN__SEGMENTS_ROWS for rows); 0: none */
  int packed; /* 1: a plain 1- or 2-byte scan under a built-in operator (cl/tile.cl's packed path)
               */
  size_t state_size; /* bytes per scan state, for the local-memory fit */
  int floating;      /* 1: float or double values (their look-back folds strictly) */
  int user;          /* 1: a user type in or out */
  int scan;          /* 1: a scan plan (0: a selection, which shares the rows) */
  clscan_op op;      /* the operator */
} clscan__tuning_key;

/* The whole tuning policy: the table row (device, then vendor, then default), the device clamps,
 * the local-memory fit, the caller's overrides (non-zero fields of `overrides`, may be NULL),
 * the environment overrides for fields the caller left zero, and the validation of the result
 * (CLSCAN_INVALID_VALUE with a detail naming the field). */
clscan_status clscan__tuning_for(const clscan__device_info *info, const clscan__tuning_key *key,
                                 const clscan_tuning *overrides, clscan__tuning *t);

/* The public view of a resolved tuning. */
void clscan__tuning_export(const clscan__tuning *t, clscan_tuning *out);

/* ============================================================================================== */
/* service: command chain and kernel arguments (chain.c)                                          */
/* ============================================================================================== */

/* The commands of one enqueue: each waits for the one before it (so out-of-order queues work);
 * the first waits for `wait`. */
typedef struct clscan__chain {
  cl_command_queue queue;
  cl_uint num_wait;
  cl_event *wait; /* for the first command; owned by the chain */
  cl_event first, last;
  size_t global_offset; /* every kernel's global work offset: the request's seg_param */
} clscan__chain;

/* Builds the first command's wait list: the caller's events plus `extra` (may be NULL). */
clscan_status clscan__chain_start(clscan__chain *c, cl_command_queue queue, cl_uint num_wait,
                                  const cl_event *wait_list, cl_event extra);

/* Enqueues a 1-D kernel of `groups` work-groups of `local` work-items. */
clscan_status clscan__chain_kernel(clscan__chain *c, cl_kernel k, size_t groups, size_t local);

/* Enqueues a zero fill of a buffer's first `bytes`. */
clscan_status clscan__chain_zero(clscan__chain *c, cl_mem buf, size_t bytes);

/* Enqueues a zero fill of `bytes` of a buffer from byte `offset` (both multiples of 4). */
clscan_status clscan__chain_zero_at(clscan__chain *c, cl_mem buf, size_t offset, size_t bytes);

/* Enqueues a marker (for n == 0, so that the caller still gets an event). */
clscan_status clscan__chain_marker(clscan__chain *c);

/* Hands the first and last events to the caller (NULL pointers: released) and frees the chain. */
void clscan__chain_finish(clscan__chain *c, cl_event *first, cl_event *done);

/* After a failed enqueue: waits for the commands already enqueued, releases everything, and
 * returns 1 if any command was enqueued. */
int clscan__chain_abort(clscan__chain *c);

/* One kernel argument: its size and a pointer to its value. */
typedef struct clscan__karg {
  size_t size;
  const void *value;
} clscan__karg;

#define CLSCAN__ARG(x) \
  { sizeof(x), &(x) }

/* Sets consecutive kernel arguments from 0. */
clscan_status clscan__set_args(cl_kernel k, const clscan__karg *args, cl_uint count);

/* Sets the arguments and enqueues the kernel. */
clscan_status clscan__chain_call(clscan__chain *c, cl_kernel k, const clscan__karg *args,
                                 cl_uint count, size_t groups, size_t local);

/* ---------------------------------------------------------------------------------------------- */
/* Extra kernel arguments: the values of clscan_arg arguments and the device seed (prelude.c)     */
/* ---------------------------------------------------------------------------------------------- */

/* Kernel arguments an enqueue appends after every kernel's fixed ones (CLSCAN_XKP in common.cl):
 * per buffer argument its cl_mem and element offset, per scalar its bytes, then with a device
 * seed its buffer and element offset, and (set per launch) whether the launch reads it. */
#define CLSCAN__MAX_EXTRA_ARGS (2 * CLSCAN_MAX_ARGS + 2)
typedef struct clscan__extra {
  cl_uint count;   /* entries of arg[] */
  int device_seed; /* 1: the last two entries are the seed's buffer and offset */
  clscan__karg arg[CLSCAN__MAX_EXTRA_ARGS];
  cl_mem mem[CLSCAN_MAX_ARGS + 1];
  cl_ulong off[CLSCAN_MAX_ARGS + 1];
  unsigned char scalar[CLSCAN_MAX_ARGS][8];
} clscan__extra;

/* Sets a request's extra arguments on kernel k from argument index `first` (nothing when x is
 * NULL). `seeded` says whether this launch takes its seed from the device (kernels whose seed
 * argument is the identity get 0). */
clscan_status clscan__extra_set(cl_kernel k, cl_uint first, const clscan__extra *x, int seeded);

/* ============================================================================================== */
/* Context (context.c)                                                                            */
/* ============================================================================================== */

/* The one-shot plans of clscan_scan() and friends, on their own lock (plan_cache.c). */
typedef struct clscan__plan_cache {
  pthread_mutex_t lock;
  clscan_plan **plans;
  size_t count, cap;
} clscan__plan_cache;

struct clscan_context {
  cl_context cl_ctx;
  cl_device_id device;
  cl_command_queue queue;
  clscan__device_info info; /* read-only after creation */
  atomic_int nv_ptx;        /* -1 unknown, 0 no, else yes (kernel_config.nv_ptx's value) */
  clscan__program_cache programs;
  clscan__temp_pool temp;
  clscan__plan_cache plan_cache;
};

/* ============================================================================================== */
/* Requests (filled by api.c, read by dispatch and the algorithms)                                */
/* ============================================================================================== */

/* Buffer roles of a request. Every family names its own roles within CLSCAN__MAX_BUFFERS; the
 * scan family's are these. The reduce family uses IN (n elements) and OUT (one element). */
enum {
  CLSCAN__BUF_IN = 0,
  CLSCAN__BUF_OUT = 1,
  CLSCAN__BUF_AUX = 2, /* head flags or keys of a segmented scan, else NULL */
  CLSCAN__MAX_BUFFERS = 4
};

/* A buffer and the element it starts at. */
typedef struct clscan__buffer {
  cl_mem mem;
  size_t off;
} clscan__buffer;

/* One enqueue request after validation. */
struct clscan__request {
  cl_command_queue queue;
  clscan__buffer buf[CLSCAN__MAX_BUFFERS];
  size_t n;
  int in_place;
  size_t seg_param;  /* offsets: their number (n_segments + 1); rows: the row length; else 0.
                        Kernels read it as their global work offset (cl/common.cl, SEG_PARAM) */
  int init_override; /* 1: `init` replaces the plan's initial value (one-shot scans) */
  const void *init;  /* with init_override: the initial value, or NULL for the identity */
  const clscan__extra *extra; /* extra kernel arguments (clscan_plan_enqueue_args), or NULL */
  clscan__buffer total;       /* the device total's buffer and element, or NULL */
  cl_uint num_wait;
  const cl_event *wait_list;
  cl_event *first, *done;
};

/* ============================================================================================== */
/* algorithm: descriptors and the registry (algorithms.c, algo_*.c)                               */
/* ============================================================================================== */

/* Families of algorithms. Each family has its own public entry points and request roles; the
 * scan family's ids are clscan_algorithm values. */
typedef enum clscan__family {
  CLSCAN__FAMILY_SCAN = 0,
  CLSCAN__FAMILY_REDUCE,
  CLSCAN__FAMILY_SORT,   /* ids are clscan_sort_algorithm values (sort_internal.h) */
  CLSCAN__FAMILY_SELECT, /* select, partition, unique, run-length encoding (select_api.c) */
  CLSCAN__FAMILY_TOTAL,  /* a scan's device total (algo_total.c, dispatch.c) */
  CLSCAN__FAMILY_BATCH,  /* the batched scans' simple kernel (algo_batch.c, segments_api.c) */
  CLSCAN__FAMILY_COUNT
} clscan__family;

/* The reduce family's algorithms (ids within CLSCAN__FAMILY_REDUCE; internal: the public API has
 * one reduction). */
enum { CLSCAN__REDUCE_TWO_PASS = 0, CLSCAN__REDUCE_ALGORITHM_COUNT };

/* Kernels of one algorithm for one plan and I/O variant. */
typedef struct clscan__algo_kernels {
  int ready;
  clscan__kernel_config cfg;
  cl_kernel k[CLSCAN__MAX_KERNELS]; /* by the algorithm's kernel index */
} clscan__algo_kernels;

/* Returns 1 when a kernel set exists (its ready flag, read under its owner's lock). */
int clscan__kernel_set_ready(pthread_mutex_t *lock, const clscan__algo_kernels *ak);

/* Builds (or finds, through the program cache) a configuration's program and creates its kernels
 * into the set once: the build runs without `lock`, so that enqueues of built sets go on, and the
 * kernels are created and published under it (a set another thread finished first stays). */
clscan_status clscan__kernel_set_build(clscan_context *ctx, pthread_mutex_t *lock,
                                       const clscan__kernel_config *cfg, clscan__algo_kernels *ak);

/* What an algorithm's enqueue gets: the plan, its kernels, the chain to append to, the request
 * and the leased temporary buffer. */
typedef struct clscan__launch {
  const clscan_plan *plan;
  const clscan__algo_kernels *kernels;
  clscan__chain *chain;
  const clscan__request *req;
  cl_mem temp;
  cl_ulong epoch;      /* single pass: this launch's epoch */
  cl_uint ticket_base; /* single pass: the ticket counter's value before the launch */
  cl_mem aux;          /* the request's aux buffer, or any valid buffer when it has none */
  cl_ulong aux_off;
  const void *seed;           /* the initial value, or the identity (out_size bytes) */
  const void *identity;       /* the operator's identity (out_size bytes) */
  const clscan__extra *extra; /* the request's extra kernel arguments, or NULL */
  cl_ulong save_off;          /* total: the element of temp that keeps v[n-1] */
  int total_phase;            /* total: 0 before an exclusive scan, 1 after the scan */
} clscan__launch;

/* One algorithm: its facts and functions. Adding an algorithm means one new algo_*.c file that
 * defines one of these, and one line in algorithms.c (docs/architecture.md). */
typedef struct clscan__algorithm {
  const char *name;                       /* the public name ("reduce-then-scan") */
  clscan__family family;                  /* which registry it belongs to */
  int id;                                 /* its public value within the family */
  const clscan__program *const *programs; /* NULL-terminated: every program config may pick */
  int vector_variants; /* 1: aligned (vector I/O) and unaligned kernel sets; 0: one */
  int enqueue_empty;   /* 1: its enqueue runs for n == 0 too (a reduction writes init); 0: an
                          empty request is one marker */
  /* Fills the algorithm's part of a kernel configuration: program, geometry, build switches. */
  clscan_status (*config)(const clscan_plan *plan, int vector_io, clscan__kernel_config *cfg);
  /* Bytes of temporary storage for n elements. */
  size_t (*temp_bytes)(const clscan_plan *plan, size_t n);
  /* Single-pass tickets a launch of n elements takes, or NULL when it takes none. */
  cl_uint (*tickets)(const clscan_plan *plan, size_t n);
  /* Enqueues the algorithm's commands onto the launch's chain (the plan lock is held). */
  clscan_status (*enqueue)(const clscan__launch *launch);
} clscan__algorithm;

/* The batched scans' simple kernel (algo_batch.c): its program (common.cl, batch.cl) and its
 * one kernel, batch_lines, at index CLSCAN__BATCH_LINES. */
enum { CLSCAN__BATCH_LINES = 0 };
extern const clscan__program clscan__batch_program;
extern const clscan__kernel_names clscan__batch_kernels;

/* Returns the registered algorithm of a family with a given id, or NULL. */
const clscan__algorithm *clscan__algorithm_find(clscan__family family, int id);

/* Rounds a byte offset in an algorithm's temporary buffer up to a multiple of 16 and of the
 * plan's state size, so that arrays of states start aligned and at whole-state offsets. */
size_t clscan__temp_align(const clscan_plan *plan, size_t bytes);

/* ============================================================================================== */
/* plan: plans (plan.c), the one-shot plan cache (plan_cache.c), dispatch (dispatch.c)            */
/* ============================================================================================== */

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
  int status32;         /* 1: the single pass uses 32-bit status words (no 64-bit atomics) */
  int seg_mask;         /* segments by offsets where the algorithm has a choice
                           (CLSCAN_SEG_OFFSETS_MASK): 2 (the default) each tile's first offset from
                           a pre-pass, 1 a head mask from a pre-pass, 0 a search per tile */
  pthread_mutex_t lock; /* kernel creation and argument setting with enqueueing */
  clscan__algo_kernels algos[CLSCAN_ALGORITHM_COUNT][CLSCAN__IO_VARIANTS];
  clscan__algo_kernels reductions[CLSCAN__REDUCE_ALGORITHM_COUNT][CLSCAN__IO_VARIANTS];
  clscan__algo_kernels totals[CLSCAN__IO_VARIANTS]; /* the device total's kernel */
  clscan__algo_kernels batch; /* the batched scans' simple kernel (cl/batch.cl) */
};

/* Creates a plan for a validated descriptor, without clearing the error detail; `tuning` (may
 * be NULL) overrides the table's values. */
clscan_status clscan__plan_create(clscan_context *ctx, const clscan_scan_desc *desc,
                                  const clscan_tuning *tuning, clscan_plan **out);

/* Resolves the tuning a plan of a validated descriptor would get, without building anything. */
clscan_status clscan__plan_default_tuning(const clscan_context *ctx, const clscan_scan_desc *desc,
                                          clscan__tuning *t);

/* Resolves AUTO for n elements. */
clscan_algorithm clscan__plan_resolve(const clscan_plan *plan, size_t n);

/* Makes sure the kernels for an algorithm and I/O variant exist (builds on first use, without
 * holding the plan's lock during the build). */
clscan_status clscan__plan_prepare(clscan_plan *plan, const clscan__algorithm *algo, int vector_io,
                                   clscan__algo_kernels **out);

/* Returns 1 when two descriptors with the same segments agree on their keys or offsets (type,
 * user key type and equality), as the plan cache compares them. */
int clscan__same_keys(const clscan_scan_desc *a, const clscan_scan_desc *b);

/* Makes sure the plan's batched-scan kernel (cl/batch.cl: batch_lines) exists. */
clscan_status clscan__plan_prepare_batch(clscan_plan *plan, clscan__algo_kernels **out);

/* Releases a plan (also clscan_plan_release()). */
void clscan__plan_release(clscan_plan *plan);

/* Enqueues the plan's scan for a validated request. */
clscan_status clscan__dispatch(clscan_plan *plan, const clscan__request *req);

/* Enqueues a validated request through the algorithm of a family with a given id (the scan
 * family resolves it from the plan, see clscan__dispatch()). */
clscan_status clscan__dispatch_algorithm(clscan_plan *plan, clscan__family family, int id,
                                         const clscan__request *req);

/* Initialises and clears the one-shot plan cache. */
clscan_status clscan__plan_cache_init(clscan__plan_cache *cache);
void clscan__plan_cache_clear(clscan__plan_cache *cache);

/* Finds or creates the context's plan for a validated descriptor (its initial value is not part
 * of the key: one-shot requests pass it). The plan belongs to the context. */
clscan_status clscan__plan_cache_get(clscan_context *ctx, const clscan_scan_desc *desc,
                                     clscan_plan **out);

/* ============================================================================================== */
/* api: validation (validate.c)                                                                   */
/* ============================================================================================== */

/* Checks a descriptor against the context's device. */
clscan_status clscan__validate_desc(const clscan_context *ctx, const clscan_scan_desc *desc);

/* The element sizes of an enqueue's buffers. */
typedef struct clscan__sizes {
  size_t in, out, aux;
  size_t aux_count; /* elements of the aux buffer when they are not n (offsets: n_segments + 1) */
  int out_one;      /* 1: the output is one element (a reduction), whatever n, and must not overlap
                       the input at all */
} clscan__sizes;

/* Checks the request's queue, buffers, ranges and wait list; resolves a NULL queue and sets
 * in_place when input and output are the same memory. The aux buffer (flags or keys, with
 * sizes->aux bytes per element) is checked when sizes->aux is not 0. */
clscan_status clscan__validate_request(const clscan_context *ctx, const clscan__sizes *sizes,
                                       clscan__request *req);

/* Checks the wait list: num_wait and wait_list agree, and no event is NULL. */
clscan_status clscan__check_wait_list(cl_uint num_wait, const cl_event *wait_list);
/* Checks that the queue belongs to the context's cl_context and device. */
clscan_status clscan__check_queue(const clscan_context *ctx, cl_command_queue queue);

/* The byte range [begin, end) of elements [off, off + n) of a buffer, within its root buffer
 * (sub-buffers resolved), so that ranges of sub-buffers of one buffer compare. */
typedef struct clscan__byte_range {
  cl_mem root;               /* the buffer that owns the bytes (not a sub-buffer) */
  size_t begin, end;         /* the range's bytes in root */
  cl_mem mem;                /* the memory object the range was given through */
  size_t mem_begin, mem_end; /* that object's bytes in root */
} clscan__byte_range;
/* Resolves the range of elements [off, off + n) of `elem` bytes of a valid buffer. */
clscan_status clscan__range_of(cl_mem buf, size_t off, size_t n, size_t elem,
                               clscan__byte_range *r);
/* 1 if two ranges may not be used by one kernel that writes either: through one memory object,
 * if they share a byte; through two (a buffer and its sub-buffer, or two sub-buffers of one
 * buffer), if the objects share a byte, whatever the ranges, since OpenCL leaves writing through
 * overlapping memory objects undefined. */
int clscan__ranges_overlap(const clscan__byte_range *a, const clscan__byte_range *b);
/* The end of an overlap message: empty for one memory object, else a note that the objects
 * overlap. */
const char *clscan__overlap_note(const clscan__byte_range *a, const clscan__byte_range *b);

/* Checks a validated request's clscan_run_args against the plan (argument values, device
 * initial value, total) and fills *x with the extra kernel arguments; sets req->extra and
 * req->total. `reduce`: the request is a reduction (no total). */
clscan_status clscan__validate_run(const clscan_plan *plan, const clscan_run_args *run, int reduce,
                                   clscan__request *req, clscan__extra *x);

/* Checks a descriptor's extra arguments (names, kinds, types, access, and that map_source or
 * op_source reads them) and device_init. */
clscan_status clscan__validate_args(const clscan_context *ctx, const clscan_scan_desc *desc);
/* Checks desc's list of extra arguments only (count, names, kinds, types, access); `ab_reserved`
 * refuses the names a and b (which a user operator always reserves). For other families whose
 * user sources see the arguments (the selections). */
clscan_status clscan__validate_arg_list(const clscan_context *ctx, const clscan_scan_desc *desc,
                                        int ab_reserved);
/* Size in bytes of one element of extra argument a. */
size_t clscan__arg_size(const clscan_arg *a);
/* Checks that value v of extra argument a (number k, `name` in messages) is of a's kind and
 * appends its kernel arguments to x (a scalar's bytes are copied into x). A buffer's range is the
 * caller's to check. */
clscan_status clscan__value_take(const clscan_arg *a, const clscan_arg_value *v, size_t k,
                                 const char *name, clscan__extra *x);
/* Checks the host arrays of a host call: in and out may be identical (in place, same sizes) but
 * must not otherwise overlap, and out must not overlap the segments (flags, keys or offsets; NULL:
 * none) at all. */
clscan_status clscan__check_host_ranges(const void *in, size_t in_bytes, const void *out,
                                        size_t out_bytes, const void *segments, size_t seg_bytes);

/* ============================================================================================== */
/* The selection family (select_api.c, select_host.c, algo_select_*.c; docs/architecture.md)      */
/* ============================================================================================== */

/* Buffer roles of a selection request. */
enum {
  CLSCAN__SEL_IN = 0,
  CLSCAN__SEL_FLAGS,    /* uint8 flags, or NULL (predicate, UNIQUE, RUN_LENGTH_ENCODE) */
  CLSCAN__SEL_OUT,      /* out_capacity elements of the output type */
  CLSCAN__SEL_LENGTHS,  /* RUN_LENGTH_ENCODE: out_capacity run lengths, else NULL */
  CLSCAN__SEL_COUNT,    /* one count */
  CLSCAN__SEL_REJECTED, /* PARTITION into two buffers: the rejected elements, else NULL */
  CLSCAN__SEL_BUFFERS
};

/* One selection request after validation. */
typedef struct clscan__select_request {
  cl_command_queue queue;
  clscan__buffer buf[CLSCAN__SEL_BUFFERS];
  size_t n;
  size_t capacity;            /* out_capacity */
  size_t rejected_capacity;   /* with a rejected buffer: its capacity */
  const clscan__extra *extra; /* the extra arguments' kernel arguments, or NULL */
  cl_uint num_wait;
  const cl_event *wait_list;
  cl_event *first; /* NULL, or receives the first command's event */
  cl_event *done;
} clscan__select_request;

typedef struct clscan__select_algorithm clscan__select_algorithm;

struct clscan_select_plan {
  clscan_context *ctx;
  clscan_select_op op;
  int by_predicate;     /* SELECT, PARTITION: 1 with predicate_source, 0 by flags */
  int reverse_rejected; /* PARTITION: 1 writes the rejected ones from the end of out backwards */
  clscan_type in_type;  /* the input's type (CLSCAN_USER_TYPE for a user type) */
  clscan_type out_type; /* the mapped element's type */
  clscan_op common_op;  /* what common.cl is built with: ADD, or USER_OP for user types */
  size_t in_size, out_size;
  size_t count_size;                /* 4 or 8 */
  int map;                          /* 1: the prelude defines a map */
  size_t arg_count;                 /* extra arguments of the predicate and the map */
  clscan_arg args[CLSCAN_MAX_ARGS]; /* their kinds, types and access (names not kept) */
  char *user_source;                /* the prelude: user sources and the selection's switches */
  clscan__tuning tuning;
  unsigned items;             /* GPU shape: elements per work-item */
  unsigned vec;               /* elements per vector load of `kernels` (1: none) */
  unsigned withhold;          /* test only (CLSCAN_TEST_WITHHOLD) */
  int status32;               /* single pass: 1 for 32-bit status words (CLSCAN_STATUS32) */
  clscan_algorithm algorithm; /* resolved (never AUTO) */
  const clscan__select_algorithm *algo;
  clscan_plan *scan;    /* multi-pass: the plan of the flag scan (uint8 -> uint64), else NULL */
  pthread_mutex_t lock; /* the kernels' arguments with their enqueue (and the scan plan's) */
  clscan__algo_kernels kernels;   /* built at creation: vector loads where vec > 1 */
  clscan__algo_kernels unaligned; /* vec > 1: the scalar loads, built on first unaligned use */
};

/* A request's buffers as the selection kernels take them: absent flags read the input's buffer
 * and absent lengths the output's (the kernels ignore both then); offsets in elements, but the
 * count's in bytes. A partition's rejected elements (rej, rej_off, rej_cap) go to a buffer of their
 * own from 0 (split 1), or else to `out` (split 0; the same for the other operations, which
 * ignore it): after the total, or from its end backwards where the plan has reverse_rejected (the
 * kernels are built for that: CLSCAN_SELECT_REVERSE). */
typedef struct clscan__select_io {
  cl_mem in, flags, out, lengths, count, rej;
  cl_ulong in_off, flags_off, out_off, lengths_off, count_off, rej_off, rej_cap;
  cl_uint split;
} clscan__select_io;

/* The kernel view of a request's buffers. */
static inline clscan__select_io clscan__select_io_of(const clscan_select_plan *plan,
                                                     const clscan__select_request *r) {
  const clscan__buffer *b = r->buf;
  clscan__select_io io = {
      .in = b[CLSCAN__SEL_IN].mem,
      .flags = b[CLSCAN__SEL_FLAGS].mem ? b[CLSCAN__SEL_FLAGS].mem : b[CLSCAN__SEL_IN].mem,
      .out = b[CLSCAN__SEL_OUT].mem,
      .lengths = b[CLSCAN__SEL_LENGTHS].mem ? b[CLSCAN__SEL_LENGTHS].mem : b[CLSCAN__SEL_OUT].mem,
      .count = b[CLSCAN__SEL_COUNT].mem,
      .in_off = b[CLSCAN__SEL_IN].off,
      .flags_off = b[CLSCAN__SEL_FLAGS].off,
      .out_off = b[CLSCAN__SEL_OUT].off,
      .lengths_off = b[CLSCAN__SEL_LENGTHS].off,
      .count_off = b[CLSCAN__SEL_COUNT].off * plan->count_size,
      .rej = b[CLSCAN__SEL_OUT].mem,
      .rej_off = b[CLSCAN__SEL_OUT].off,
      .rej_cap = r->capacity,
  };
  if (b[CLSCAN__SEL_REJECTED].mem) {
    io.rej = b[CLSCAN__SEL_REJECTED].mem;
    io.rej_off = b[CLSCAN__SEL_REJECTED].off;
    io.rej_cap = r->rejected_capacity;
    io.split = 1;
  }
  return io;
}

/* What a selection algorithm's enqueue gets (the plan lock is held). */
typedef struct clscan__select_launch {
  const clscan_select_plan *plan;
  clscan__chain *chain;
  const clscan__select_request *req;
  const clscan__algo_kernels *kernels; /* the plan's kernel set for the request's alignment */
  cl_mem temp;
  cl_ulong epoch;      /* single pass: this launch's epoch */
  cl_uint ticket_base; /* single pass: the ticket counter's value before the launch */
} clscan__select_launch;

/* One selection algorithm (as clscan__algorithm for scans). The kernel at index 0 of every
 * algorithm is the empty selection's (it writes a zero count). */
struct clscan__select_algorithm {
  const char *name;
  int id;                                 /* the clscan_algorithm value that selects it */
  const clscan__program *const *programs; /* NULL-terminated: every program config may pick */
  /* Fills the program, kernels, geometry and switches of the plan's configuration (the caller
   * has set cfg->vector_io: 1 for the kernel set with the plan's vector loads). */
  clscan_status (*config)(const clscan_select_plan *plan, clscan__kernel_config *cfg);
  size_t (*temp_bytes)(const clscan_select_plan *plan, size_t n);
  cl_uint (*tickets)(const clscan_select_plan *plan, size_t n); /* NULL: none */
  clscan_status (*enqueue)(const clscan__select_launch *l);
};

/* Index of every selection algorithm's empty-selection kernel. */
#define CLSCAN__SEL_KERNEL_EMPTY 0

/* Validates a selection descriptor against the context's device (types, user type, map, fp64,
 * algorithm and its device needs through the scan's checks; select_api.c). */
clscan_status clscan__select_desc_check(const clscan_context *ctx, const clscan_select_desc *d);

/* Returns the selection algorithm registered for a clscan_algorithm value (not AUTO), or NULL. */
const clscan__select_algorithm *clscan__select_algorithm_find(int id);

#endif /* CLSCAN_INTERNAL_H_ */
