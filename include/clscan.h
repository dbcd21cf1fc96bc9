/*
 * clscan: portable parallel prefix sums (scans) on OpenCL devices.
 *
 * This is the library's one public header. It declares the status codes, the element types,
 * operators and algorithms, the scan descriptor, the context and plan handles, and the calls
 * that scan device buffers (asynchronously) or host arrays (synchronously).
 *
 * Conventions that hold for every function below:
 * - Every public name starts with clscan_ or CLSCAN_.
 * - Functions that can fail return a clscan_status; CLSCAN_SUCCESS is 0 and errors are negative.
 *   After a failure, clscan_last_error_detail() describes it for the calling thread.
 * - Release functions accept NULL and then do nothing.
 * - The library never prints. Build logs and error details are read through the API.
 * - Offsets and lengths count elements, not bytes.
 * - An argument that fails validation is reported before anything is enqueued, and the output
 *   buffer is then left untouched.
 * - Ranges are compared by the bytes they cover, through sub-buffers too. A range that is written
 *   and another range given through a different memory object over the same bytes (a buffer and
 *   its sub-buffer, or two overlapping sub-buffers of one buffer) are refused with CLSCAN_OVERLAP
 *   whatever the ranges, since OpenCL leaves a kernel that writes through overlapping memory
 *   objects undefined; sub-buffers that share no byte are independent buffers.
 */
#ifndef CLSCAN_CLSCAN_H_
#define CLSCAN_CLSCAN_H_

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#ifdef __APPLE__
#include <OpenCL/cl.h>
#else
#include <CL/cl.h>
#endif
#include <stddef.h>
#include <stdint.h>

#include "clscan_version.h"

#if defined(_WIN32) && defined(CLSCAN_SHARED)
#ifdef CLSCAN_BUILDING
#define CLSCAN_API __declspec(dllexport)
#else
#define CLSCAN_API __declspec(dllimport)
#endif
#elif defined(__GNUC__)
#define CLSCAN_API __attribute__((visibility("default")))
#else
#define CLSCAN_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ============================================================================================== */
/* Statuses                                                                                       */
/* ============================================================================================== */

/**
 * The single list of statuses: name, value and message. It generates both the enum and
 * clscan_status_string(), so the two can never disagree. Values are stable once released.
 */
#define CLSCAN_STATUS_MAP(X)                                                                     \
  X(SUCCESS, 0, "success")                                                                       \
  X(NULL_ARGUMENT, -1001, "a required pointer or handle argument is NULL")                       \
  X(INVALID_TYPE, -1002, "unknown element type")                                                 \
  X(INVALID_OP, -1003, "unknown operator")                                                       \
  X(INVALID_ALGORITHM, -1004, "unknown algorithm")                                               \
  X(UNSUPPORTED_OP_FOR_TYPE, -1005, "bitwise operators are not defined on floating-point types") \
  X(UNSUPPORTED_BY_DEVICE, -1006, "the device lacks a capability this scan needs (e.g. fp64)")   \
  X(BUFFER_TOO_SMALL, -1007, "a buffer is smaller than offset + n elements")                     \
  X(OVERLAP, -1008, "input and output ranges overlap without being identical")                   \
  X(INVALID_QUEUE, -1009, "the queue belongs to another context or device")                      \
  X(INVALID_BUFFER, -1010, "a buffer is invalid, of another context, or not writable as output") \
  X(INVALID_WAIT_LIST, -1011, "num_wait and wait_list disagree")                                 \
  X(INVALID_VALUE, -1012, "an argument is out of range")                                         \
  X(SIZE_OVERFLOW, -1013, "offset + n overflows, or exceeds what the device can address")        \
  X(NO_DEVICE, -1014, "no OpenCL device was found, or CLSCAN_DEVICE names none")                 \
  X(BUILD_FAILED, -1015, "the OpenCL program failed to build; see clscan_context_build_log()")   \
  X(OUT_OF_HOST_MEMORY, -1016, "host memory allocation failed")                                  \
  X(OUT_OF_DEVICE_MEMORY, -1017, "device memory allocation failed")                              \
  X(OPENCL_ERROR, -1018, "an OpenCL call failed; see clscan_last_error_detail()")                \
  X(INTERNAL_ERROR, -1019, "internal error (a bug in clscan)")                                   \
  X(USER_SOURCE_INVALID, -1020,                                                                  \
    "user OpenCL C (op, type or map source) failed to compile; see clscan_context_build_log()")  \
  X(TYPE_SIZE_MISMATCH, -1021, "type_size differs from the device's sizeof(type_name)")          \
  X(MPI_ERROR, -1100, "an MPI call failed (clscan_mpi); see clscan_mpi_last_error_detail()")

/** Status codes. CLSCAN_SUCCESS is 0; every error is negative and distinct. */
typedef enum clscan_status {
#define CLSCAN_STATUS_ENUM_(name, value, text) CLSCAN_##name = value,
  CLSCAN_STATUS_MAP(CLSCAN_STATUS_ENUM_)
#undef CLSCAN_STATUS_ENUM_
} clscan_status;

/**
 * Returns a static, human-readable message for a status.
 * @param s any value; unknown values get "unknown status".
 * @return a string literal; never NULL, never freed. Safe from any thread.
 */
CLSCAN_API const char *clscan_status_string(clscan_status s);

/**
 * Returns the detail of the calling thread's last failed clscan call (which check failed, which
 * OpenCL call returned which code), or "" when none failed yet.
 * @return a pointer into thread-local storage, valid until the thread's next clscan call.
 */
CLSCAN_API const char *clscan_last_error_detail(void);

/* ============================================================================================== */
/* Version                                                                                        */
/* ============================================================================================== */

/** Returns the library's version at run time as MAJOR*10000 + MINOR*100 + PATCH. */
CLSCAN_API unsigned clscan_version_number(void);

/** Returns the library's version at run time as "MAJOR.MINOR.PATCH". */
CLSCAN_API const char *clscan_version_string(void);

/* ============================================================================================== */
/* Types, operators, algorithms, descriptors                                                      */
/* ============================================================================================== */

/**
 * The single list of built-in element types: name, value, clscan name, OpenCL C name, size in
 * bytes, signedness and whether it is a floating-point type. It generates clscan_type,
 * clscan_out_type, clscan_type_name() and clscan_type_size(), and the library's own type tables.
 * Values are stable. DOUBLE needs a device with fp64 (else CLSCAN_UNSUPPORTED_BY_DEVICE).
 *
 * HALF (IEEE binary16) runs on every device, with or without cl_khr_fp16: the kernels keep a half
 * as its 16 bits and compute in float (the core vload_half and vstore_half_rte), and on the host
 * a half is its bits too (uint16_t; clscan_half_from_double() and clscan_half_to_double()
 * convert). Values are combined in the output type: with out_type CLSCAN_OUT_FLOAT each half is
 * converted exactly and sums run in float; with half output every combination is rounded to the
 * nearest half, ties to even, which gives the bits of IEEE half arithmetic (denormals included)
 * on every device. Other types convert to half as to float, then round (double rounds once).
 * User sources (op_source, map_source, predicates, equalities) see a half as the float it is, and
 * a float they return for a half is rounded; a half scalar argument is a const float, and a half
 * buffer argument a `__global half *` read with vload_half(i, name) and written with
 * vstore_half_rte(v, i, name). HALF keys compare as values (by-key scans) and sort by the IEEE
 * total order (clscan_sort_desc).
 */
#define CLSCAN_TYPE_MAP(X)                  \
  X(INT32, 0, "int32", "int", 4, 1, 0)      \
  X(UINT32, 1, "uint32", "uint", 4, 0, 0)   \
  X(INT64, 2, "int64", "long", 8, 1, 0)     \
  X(UINT64, 3, "uint64", "ulong", 8, 0, 0)  \
  X(FLOAT, 4, "float", "float", 4, 1, 1)    \
  X(DOUBLE, 5, "double", "double", 8, 1, 1) \
  X(INT8, 6, "int8", "char", 1, 1, 0)       \
  X(UINT8, 7, "uint8", "uchar", 1, 0, 0)    \
  X(INT16, 8, "int16", "short", 2, 1, 0)    \
  X(UINT16, 9, "uint16", "ushort", 2, 0, 0) \
  X(HALF, 10, "half", "half", 2, 1, 1)

/** Element types. Values are stable. */
typedef enum clscan_type {
#define CLSCAN_TYPE_ENUM_(name, value, text, cl_name, size, is_signed, is_float) \
  CLSCAN_##name = value,
  CLSCAN_TYPE_MAP(CLSCAN_TYPE_ENUM_)
#undef CLSCAN_TYPE_ENUM_
  /** The descriptor's user type: OpenCL C named by type_name (defined by type_source, unless it
   * is a built-in OpenCL type such as float2), of type_size bytes. */
  CLSCAN_USER_TYPE = 64
} clscan_type;

/** Number of built-in element types (one past the last built-in clscan_type value). */
#define CLSCAN_TYPE_COUNT 11

/**
 * Output (and accumulator) types of a descriptor. CLSCAN_OUT_SAME, the zero value, makes the
 * output type the input type. Every other value is 0x100 + a clscan_type, so that a clscan_type
 * stored here by mistake is rejected rather than misread: CLSCAN_OUT_TYPE(CLSCAN_UINT32) ==
 * CLSCAN_OUT_UINT32.
 */
typedef enum clscan_out_type {
  CLSCAN_OUT_SAME = 0,
#define CLSCAN_OUT_TYPE_ENUM_(name, value, text, cl_name, size, is_signed, is_float) \
  CLSCAN_OUT_##name = 0x100 + value,
  CLSCAN_TYPE_MAP(CLSCAN_OUT_TYPE_ENUM_)
#undef CLSCAN_OUT_TYPE_ENUM_
      CLSCAN_OUT_USER_TYPE = 0x100 + CLSCAN_USER_TYPE
} clscan_out_type;

/** The clscan_out_type for a clscan_type. */
#define CLSCAN_OUT_TYPE(t) ((clscan_out_type)(0x100 + (int)(t)))

/**
 * The single list of built-in operators: name, value and clscan name. It generates clscan_op and
 * clscan_op_name(). Integer ADD and MUL wrap modulo 2^bits, for signed types too. MIN and MAX on
 * floating types use (b < a ? b : a) and (a < b ? b : a). AND, OR and XOR are defined on
 * integer types only.
 */
#define CLSCAN_OP_MAP(X) \
  X(ADD, 0, "add")       \
  X(MUL, 1, "mul")       \
  X(MIN, 2, "min")       \
  X(MAX, 3, "max")       \
  X(AND, 4, "and")       \
  X(OR, 5, "or")         \
  X(XOR, 6, "xor")

/** Operators (see CLSCAN_OP_MAP). Values are stable. */
typedef enum clscan_op {
#define CLSCAN_OP_ENUM_(name, value, text) CLSCAN_##name = value,
  CLSCAN_OP_MAP(CLSCAN_OP_ENUM_)
#undef CLSCAN_OP_ENUM_
  /** The descriptor's op_source, with the identity the descriptor gives. */
  CLSCAN_USER_OP = 64
} clscan_op;

/** Number of built-in operators (one past the last built-in clscan_op value). */
#define CLSCAN_OP_COUNT 7

/**
 * Algorithms.
 * - BLELLOCH: work-group up-sweep/down-sweep scans in local memory (O(n) work), block totals
 *   scanned recursively, then block offsets added. About 4n elements of memory traffic.
 * - HILLIS_STEELE: the same three phases with a double-buffered Hillis-Steele work-group scan
 *   (O(n log n) work).
 * - REDUCE_THEN_SCAN: reduce tiles, scan the tile totals, scan the tiles seeded with their
 *   offsets. About 3n traffic.
 * - SINGLE_PASS: chained scan with decoupled look-back and decoupled fallback (terminates without
 *   forward-progress guarantees). About 2n traffic. Its status words are 64-bit atomics where the
 *   device has them, else 32-bit ones (two per 4 bytes of state; the same for the selections'
 *   single pass, clscan_select_desc). Every
 *   published inclusive prefix is the left fold of the tile aggregates in tile order, whichever
 *   predecessor a look-back stops at, and a tile reduced by a fallback combines in its owner's
 *   order.
 * - AUTO: the library picks per device (docs/tuning.md): the single pass where the device has
 *   64-bit atomics, and on CPU devices without them (32-bit status words); REDUCE_THEN_SCAN on
 *   other devices without 64-bit atomics.
 *
 * Determinism: every algorithm gives the same bits run to run on one device for a fixed n,
 * descriptor and tuning, whatever the timing (in place or not, under concurrency, with the
 * fallback taken or not). Integer scans with built-in operators are exact, so they agree
 * everywhere. Floating-point and user operators that are not exactly associative may differ in
 * the last bits between algorithms, devices and tunings, which group the elements differently.
 */
typedef enum clscan_algorithm {
  CLSCAN_ALGO_AUTO = 0,
  CLSCAN_ALGO_BLELLOCH,
  CLSCAN_ALGO_HILLIS_STEELE,
  CLSCAN_ALGO_REDUCE_THEN_SCAN,
  CLSCAN_ALGO_SINGLE_PASS
} clscan_algorithm;

/** Number of algorithms (one past the last clscan_algorithm value). */
#define CLSCAN_ALGORITHM_COUNT 5

/**
 * How a scan is split into segments that each start again from the initial value (or the
 * identity). Segmented descriptors run through clscan_segmented_scan(), clscan_scan_by_key(),
 * clscan_segmented_scan_offsets() or the plan calls clscan_plan_enqueue_segmented() and
 * clscan_plan_enqueue_offsets().
 * - HEAD_FLAGS: a uint8 buffer of n flags; a non-zero flag starts a segment at that element.
 * - KEYS: a buffer of n keys of key_type; a segment is a run of equal consecutive keys (see the
 *   descriptor's "Keys" for how keys compare).
 * - OFFSETS: a buffer of n_segments + 1 offsets of key_type (CLSCAN_INT32, the zero value,
 *   CLSCAN_UINT32, CLSCAN_INT64 or CLSCAN_UINT64), CSR row pointers: segment s is the elements
 *   [offsets[s], offsets[s + 1]). The offsets must partition the range: offsets[0] == 0, each
 *   offset at least the one before (equal offsets are empty segments, which write nothing) and
 *   offsets[n_segments] == n. Unlike CUB's separate begin and end offsets, no element is left
 *   outside a segment, so every output element is written. The host calls
 *   (clscan_segmented_scan_offsets_host()) check the offsets and return CLSCAN_INVALID_VALUE;
 *   device buffers are not read back to be checked: there, offsets that break the rule give
 *   unspecified results, but the kernels still read only offsets[0 .. n_segments] and write only
 *   the output range, and they terminate. The GPU-shaped single pass first turns the offsets into
 *   a bit mask of segment starts in its temporary memory (n / 8 bytes), then scans reading it;
 *   the other kernels find the segment starts by searching the offsets as they load each tile.
 */
typedef enum clscan_segments {
  CLSCAN_SEGMENTS_NONE = 0,
  CLSCAN_SEGMENTS_HEAD_FLAGS,
  CLSCAN_SEGMENTS_KEYS,
  CLSCAN_SEGMENTS_OFFSETS
} clscan_segments;

/* ---------------------------------------------------------------------------------------------- */
/* Extra arguments of user sources (types; the values are given at enqueue)                       */
/* ---------------------------------------------------------------------------------------------- */

/** What an extra argument is: a device buffer of elements, or one scalar value. */
typedef enum clscan_arg_kind {
  CLSCAN_ARG_BUFFER = 0, /**< A cl_mem of elements of `type`, seen as a pointer from its offset. */
  CLSCAN_ARG_SCALAR = 1  /**< One value of a built-in `type`, passed by value. */
} clscan_arg_kind;

/** How user code may access an extra buffer. */
typedef enum clscan_arg_access {
  CLSCAN_ARG_READ = 0,      /**< Read only: `const __global T *name`. */
  CLSCAN_ARG_READ_WRITE = 1 /**< Read and write: `__global T *name`. The map may run more than
                                 once per element (reduce-then-scan loads the input twice, a
                                 fallback reloads a tile), so writes must be idempotent, e.g.
                                 name[i] = f(x). */
} clscan_arg_access;

/** The most extra arguments a descriptor may have. */
#define CLSCAN_MAX_ARGS 8

/**
 * One extra argument of a descriptor's user sources, named in them (PyOpenCL's GenericScanKernel
 * arguments). A descriptor's list of arguments is compiled into its kernels' signatures once, when
 * the plan is created; the values (buffers with offsets, scalars) are given at each enqueue
 * (clscan_run_args), so one plan runs with new buffers every time.
 *
 * Visibility: map_source, op_source and key_equal_source see every argument by its name (scans
 * and reductions: clscan_plan_enqueue_args() and clscan_plan_enqueue_reduce_args()), so an
 * operator can read a lookup table ("tab[a * k + b]") and a key equality a scalar ("a % m ==
 * b % m"); a descriptor with arguments needs map_source, op_source or key_equal_source. A
 * buffer is a pointer to the element at the value's offset, so "x * w[i]" weights element i by
 * w[offset + i]. The operator runs any number of times in every kernel, the single pass's
 * look-back included, so it should only read the arguments, and the identity must be its identity
 * for every value they take; so does a key equality. A selection's predicate_source, map_source
 * and equal_source see them too (clscan_select_desc).
 *
 * Names are OpenCL C identifiers, distinct, not starting with "clscan" or "CLSCAN", neither `x`
 * nor `i` (the map's own parameters) and, with a user operator or a key equality, neither `a`
 * nor `b` (their own).
 */
typedef struct clscan_arg {
  const char *name;         /**< The identifier user sources use. */
  clscan_arg_kind kind;     /**< CLSCAN_ARG_BUFFER or CLSCAN_ARG_SCALAR. */
  clscan_type type;         /**< Element (buffer) or value (scalar) type: a built-in type, or for
                                 buffers CLSCAN_USER_TYPE with type_name. */
  const char *type_name;    /**< With CLSCAN_USER_TYPE: an OpenCL C type, defined by the
                                 descriptor's type_source or built into OpenCL C (float2). */
  size_t type_size;         /**< With CLSCAN_USER_TYPE: its size in bytes on host and device. */
  clscan_arg_access access; /**< Buffers: CLSCAN_ARG_READ (the zero value) or READ_WRITE. */
} clscan_arg;

/**
 * What to scan. A descriptor that is zero except for the fields a caller sets is valid: it
 * describes an inclusive int32 sum with no initial value and the automatic algorithm. Every field
 * added later keeps that rule: its zero value keeps the earlier behaviour.
 *
 * Types. `type` is the input buffer's element type. `out_type` is the output buffer's element type
 * and the type every combination is computed in (CLSCAN_OUT_SAME: `type`). Between two built-in
 * types the input is converted as an OpenCL C cast, e.g. uint8 counts summed in uint32. A user
 * type (CLSCAN_USER_TYPE as `type` or CLSCAN_OUT_USER_TYPE as `out_type`) is named by type_name,
 * defined by type_source and has type_size bytes; the library checks type_size against the
 * device's sizeof and reports CLSCAN_TYPE_SIZE_MISMATCH, since host and device layouts must agree.
 * Converting between a user type and another type needs map_source.
 *
 * User operators. With op == CLSCAN_USER_OP, op_source is OpenCL C over `a` and `b` (of the output
 * type): an expression ("a + b"), or a function body that returns the result ("{ ... return r; }",
 * recognised by the word `return`). `identity` points at the identity's bytes (out-type size).
 * The operator must be associative; it need not be commutative: results are always combined in
 * order, earlier elements on the left. It is called only on input elements (after the map),
 * the identity, the initial value and their combinations, never on padding or uninitialised memory.
 * It also sees the descriptor's extra arguments by name (`args`, see clscan_arg).
 *
 * Map. map_source is an OpenCL C expression (or function body with `return`) of `x`, the input
 * element, and `i`, its 64-bit index counted from the start of the scanned range (a ulong). Its
 * value, of the output type, is what is scanned; the map is fused into the load. It also sees the
 * descriptor's extra arguments by name (`args`, see clscan_arg), e.g. "x * w[i]".
 *
 * Keys (segments KEYS). key_type is any built-in type or CLSCAN_USER_TYPE. Built-in keys compare
 * with OpenCL C's ==, as Thrust's equal_to does: floating-point keys compare as values, so -0.0
 * equals 0.0 and a NaN equals nothing (every NaN key starts a segment of its own). A user key type
 * is named by key_type_name, defined by key_type_source (unless it is a built-in OpenCL type such
 * as int2), has key_size bytes, and needs key_equal_source, which may also replace == for
 * built-in keys (e.g. "fabs(a - b) < 0.5f"; it should be an equivalence for the segments to mean
 * anything, but any expression is safe). It sees the descriptor's extra arguments by name too
 * (`args`, see clscan_arg), e.g. "a % m == b % m" with a scalar m. double keys need fp64 on the
 * device.
 *
 * `init` and `identity` point at one element of the output type: type_size bytes for a user type,
 * read before any build can compare type_size with the device, so take it from sizeof.
 * Every string is copied when a plan is created. A source that does not compile makes plan
 * creation return CLSCAN_USER_SOURCE_INVALID; the compiler's log is then read with
 * clscan_context_build_log().
 */
typedef struct clscan_scan_desc {
  clscan_type type; /**< Element type of the input. */
  clscan_op op;     /**< Associative operator. */
  int exclusive;    /**< 0: out[i] = init op in[0] op ... op in[i]; else up to in[i-1]. */
  const void *init; /**< NULL (the operator's identity) or one element of the output type. */
  clscan_algorithm algorithm; /**< CLSCAN_ALGO_AUTO unless a specific one is wanted. */
  clscan_out_type out_type;   /**< Output and accumulator type; CLSCAN_OUT_SAME: `type`. */
  const char *op_source;      /**< With op == CLSCAN_USER_OP: the operator over a and b. */
  const void *identity;       /**< With op == CLSCAN_USER_OP: the identity's bytes. */
  const char *type_source;    /**< OpenCL C defining type_name (NULL for a built-in type). */
  const char *type_name;      /**< With a user type: its OpenCL C name. */
  size_t type_size;           /**< With a user type: sizeof(type_name) on host and device. */
  const char *map_source;     /**< NULL, or the scanned value as OpenCL C of x and i. */
  clscan_segments segments;   /**< CLSCAN_SEGMENTS_NONE unless the scan is segmented. */
  clscan_type key_type;       /**< KEYS: any built-in type or CLSCAN_USER_TYPE (see Keys);
                                   OFFSETS: the offsets' type (see clscan_segments). */
  /* Extra arguments and a device-resident initial value (clscan_plan_enqueue_args()); not with
   * segments by offsets. */
  const clscan_arg *args; /**< arg_count extra arguments of map_source, op_source and
                               key_equal_source (see clscan_arg); copied. */
  size_t arg_count;       /**< 0 to CLSCAN_MAX_ARGS. */
  int device_init;        /**< Non-zero: the initial value is read from a device buffer when the
                               scan runs (clscan_run_args.init), like CUB's FutureValue; `init`
                               must then be NULL. Such plans run only through
                               clscan_plan_enqueue_args() and _reduce_args(). */
  /* Keys of user types and key equality (segments KEYS). Zero: built-in keys compared by ==. */
  const char *key_type_source;  /**< OpenCL C defining key_type_name, or NULL. */
  const char *key_type_name;    /**< With key_type CLSCAN_USER_TYPE: the keys' OpenCL C name. */
  size_t key_size;              /**< With key_type CLSCAN_USER_TYPE: sizeof(key_type_name) on
                                     host and device (checked: CLSCAN_TYPE_SIZE_MISMATCH). */
  const char *key_equal_source; /**< NULL (built-in keys compare with ==) or OpenCL C over keys
                                     `a` and `b`, non-zero when they are equal: an expression or
                                     a body with return, as op_source; user keys need it. */
} clscan_scan_desc;

/** Returns the size in bytes of one element of a built-in `type`, or 0 for CLSCAN_USER_TYPE or
 * an unknown type. */
CLSCAN_API size_t clscan_type_size(clscan_type type);

/* Host conversions of CLSCAN_HALF elements, which the host holds as their 16 bits (uint16_t). */

/** Returns the IEEE binary16 nearest `value`, ties to even, as the kernels round: subnormal halves
 * included, values from 65520 up in magnitude to infinity, NaN to a quiet NaN of the same sign. */
CLSCAN_API uint16_t clscan_half_from_double(double value);
/** Returns the value of a half (its 16 bits) exactly. */
CLSCAN_API double clscan_half_to_double(uint16_t half);

/* Names are what the clscan program accepts. */

/** Returns the name of a type ("int32", ..., "user"), or NULL for an unknown value. */
CLSCAN_API const char *clscan_type_name(clscan_type type);
/** Returns the name of an operator ("add", ..., "user"), or NULL for an unknown value. */
CLSCAN_API const char *clscan_op_name(clscan_op op);
/** Returns the name of an algorithm ("blelloch", ...), or NULL for an unknown value. */
CLSCAN_API const char *clscan_algorithm_name(clscan_algorithm algorithm);

/* ============================================================================================== */
/* Contexts                                                                                       */
/* ============================================================================================== */

/**
 * A context binds clscan to one OpenCL device of one cl_context. It owns the program cache (one
 * build per set of build options), the temporary buffers, and a default in-order queue.
 * A context may be used from several threads at once.
 */
typedef struct clscan_context clscan_context;

/**
 * Creates a context on a device of a caller-owned cl_context.
 * @param[in] cl_ctx the OpenCL context; clscan retains it and releases it in
 *   clscan_context_release().
 * @param[in] device a device of cl_ctx; retained likewise.
 * @param[out] out receives the new context, or NULL on failure.
 * @return CLSCAN_SUCCESS; CLSCAN_NULL_ARGUMENT; CLSCAN_INVALID_VALUE if device is not in cl_ctx;
 *   CLSCAN_OUT_OF_HOST_MEMORY; CLSCAN_OPENCL_ERROR.
 */
CLSCAN_API clscan_status clscan_context_create(cl_context cl_ctx, cl_device_id device,
                                               clscan_context **out);

/**
 * Creates a context on the default device: the one the CLSCAN_DEVICE environment variable names
 * ("P:D" for platform P, device D, both counted from 0; or a case-insensitive substring of the
 * platform or device name), else the first GPU, else the first device of any type.
 * @param[out] out receives the new context, or NULL on failure.
 * @return CLSCAN_SUCCESS; CLSCAN_NULL_ARGUMENT; CLSCAN_NO_DEVICE; CLSCAN_OUT_OF_HOST_MEMORY;
 *   CLSCAN_OPENCL_ERROR.
 */
CLSCAN_API clscan_status clscan_context_create_default(clscan_context **out);

/**
 * Releases a context: its plans' cache, programs, temporary buffers and default queue. Plans the
 * caller created on it must be released first. NULL is a no-op. Work already enqueued completes.
 */
CLSCAN_API void clscan_context_release(clscan_context *ctx);

/** Returns the context's cl_context (owned by the clscan context; do not release it). */
CLSCAN_API cl_context clscan_context_cl_context(const clscan_context *ctx);

/** Returns the context's device (owned by the clscan context; do not release it). */
CLSCAN_API cl_device_id clscan_context_device(const clscan_context *ctx);

/** Returns the context's default in-order queue, created with profiling enabled (owned by the
 * clscan context; do not release it). */
CLSCAN_API cl_command_queue clscan_context_queue(const clscan_context *ctx);

/**
 * Copies the log of the context's most recent program build (successful or not, by any thread)
 * into buf. A call whose build failed (CLSCAN_BUILD_FAILED, CLSCAN_USER_SOURCE_INVALID) also quotes
 * the log's first error line in its thread's clscan_last_error_detail(), which another thread's
 * later build cannot overwrite.
 * @param[in] ctx the context.
 * @param[out] buf receives a NUL-terminated log, truncated to size bytes; may be NULL if size is 0.
 * @param[in] size capacity of buf in bytes.
 * @param[out] needed if not NULL, receives the size that would hold the whole log with its NUL.
 * @return CLSCAN_SUCCESS or CLSCAN_NULL_ARGUMENT.
 */
CLSCAN_API clscan_status clscan_context_build_log(const clscan_context *ctx, char *buf, size_t size,
                                                  size_t *needed);

/**
 * Reports whether the context's device can run a descriptor, without building anything.
 * @return CLSCAN_SUCCESS, or the status clscan_plan_create() would return for this desc, except
 *   the statuses only a build can tell: CLSCAN_BUILD_FAILED, CLSCAN_USER_SOURCE_INVALID and
 *   CLSCAN_TYPE_SIZE_MISMATCH.
 */
CLSCAN_API clscan_status clscan_context_supports(const clscan_context *ctx,
                                                 const clscan_scan_desc *desc);

/* ============================================================================================== */
/* One-shot scans                                                                                 */
/* ============================================================================================== */

/**
 * Enqueues a scan of n elements of device buffer `in` (from element in_offset) into `out` (from
 * element out_offset). Does not block. in == out with in_offset == out_offset scans in place
 * (the same cl_mem: not a buffer and its sub-buffer over the same bytes); other overlaps are
 * rejected with CLSCAN_OVERLAP. The plan for desc is created on first use and cached in the
 * context.
 * @param[in] queue a queue of the context's cl_context and device, or NULL for the context's
 *   default queue. In-order and out-of-order queues both work.
 * @param[in] num_wait, wait_list events the scan waits for (OpenCL conventions).
 * @param[out] done if not NULL, receives an event that completes when out holds the result; the
 *   caller releases it. It is valid for n == 0 too.
 * @return CLSCAN_SUCCESS or an error status. Invalid arguments, build failures and failed
 *   allocations are reported before anything is enqueued, and `out` is then untouched. If OpenCL
 *   refuses an enqueue midway (out of resources), the commands already enqueued are waited for
 *   and `out` may be partly written.
 */
CLSCAN_API clscan_status clscan_scan(clscan_context *ctx, cl_command_queue queue,
                                     const clscan_scan_desc *desc, cl_mem in, size_t in_offset,
                                     cl_mem out, size_t out_offset, size_t n, cl_uint num_wait,
                                     const cl_event *wait_list, cl_event *done);

/**
 * Scans n elements of host array `in` into host array `out` on the context's device, and waits.
 * in == out is allowed; other overlaps are rejected with CLSCAN_OVERLAP.
 * @return CLSCAN_SUCCESS or an error status; on error `out` is untouched.
 */
CLSCAN_API clscan_status clscan_scan_host(clscan_context *ctx, const clscan_scan_desc *desc,
                                          const void *in, void *out, size_t n);

/**
 * Scans host arrays as a segmented scan and waits: desc->segments (HEAD_FLAGS or KEYS) says what
 * `segments` holds: n uint8 head flags, or n keys of desc->key_type. in and out as for
 * clscan_scan_host(); out must not overlap segments.
 * @return CLSCAN_SUCCESS or an error status; on error `out` is untouched.
 */
CLSCAN_API clscan_status clscan_segmented_scan_host(clscan_context *ctx,
                                                    const clscan_scan_desc *desc,
                                                    const void *segments, const void *in, void *out,
                                                    size_t n);

/**
 * Enqueues a segmented scan: as clscan_scan(), but the scan starts again (from the initial value,
 * or the identity) at every element whose head flag is non-zero. Element 0 always starts a
 * segment. Inclusive and exclusive scans, every operator and type, and every algorithm work.
 * @param[in] desc its segments field must be CLSCAN_SEGMENTS_NONE or CLSCAN_SEGMENTS_HEAD_FLAGS.
 * @param[in] flags a buffer of uint8 head flags, n of them from element flags_offset. It must not
 *   overlap the output.
 */
CLSCAN_API clscan_status clscan_segmented_scan(clscan_context *ctx, cl_command_queue queue,
                                               const clscan_scan_desc *desc, cl_mem flags,
                                               size_t flags_offset, cl_mem in, size_t in_offset,
                                               cl_mem out, size_t out_offset, size_t n,
                                               cl_uint num_wait, const cl_event *wait_list,
                                               cl_event *done);

/**
 * Enqueues a scan by key: a segmented scan whose segments are the runs of equal consecutive keys
 * (Thrust's and CUB's scan_by_key).
 * @param[in] desc its segments field must be CLSCAN_SEGMENTS_NONE or CLSCAN_SEGMENTS_KEYS; its
 *   key_type (any built-in type, int32 being the zero value, or CLSCAN_USER_TYPE with
 *   key_type_name, key_size and key_equal_source) is the keys' type; see the descriptor's Keys.
 * @param[in] keys a buffer of n keys from element keys_offset. It must not overlap the output.
 */
CLSCAN_API clscan_status clscan_scan_by_key(clscan_context *ctx, cl_command_queue queue,
                                            const clscan_scan_desc *desc, cl_mem keys,
                                            size_t keys_offset, cl_mem in, size_t in_offset,
                                            cl_mem out, size_t out_offset, size_t n,
                                            cl_uint num_wait, const cl_event *wait_list,
                                            cl_event *done);

/* ============================================================================================== */
/* Plans                                                                                          */
/* ============================================================================================== */

/** A scan compiled and ready for one descriptor. Reuse it; it may be used from several threads. */
typedef struct clscan_plan clscan_plan;

/**
 * Creates a plan: validates desc, checks the device's capabilities, builds (or finds in the
 * context's cache) the programs it needs and creates its kernels.
 * @param[in] ctx the context; it must outlive the plan.
 * @param[in] desc the descriptor; copied, with the init value it points to.
 * @param[out] out receives the plan, or NULL on failure.
 * @return CLSCAN_SUCCESS; CLSCAN_NULL_ARGUMENT; CLSCAN_INVALID_TYPE; CLSCAN_INVALID_OP;
 *   CLSCAN_INVALID_ALGORITHM; CLSCAN_UNSUPPORTED_OP_FOR_TYPE; CLSCAN_UNSUPPORTED_BY_DEVICE;
 *   CLSCAN_BUILD_FAILED; CLSCAN_USER_SOURCE_INVALID; CLSCAN_TYPE_SIZE_MISMATCH;
 *   CLSCAN_OUT_OF_HOST_MEMORY; CLSCAN_OPENCL_ERROR. Creating a plan for a descriptor the context
 *   has compiled before (same types, operator, sources and segments) reuses the compiled program.
 */
CLSCAN_API clscan_status clscan_plan_create(clscan_context *ctx, const clscan_scan_desc *desc,
                                            clscan_plan **out);

/**
 * Shapes of the single-pass scan: the GPU shape (work-groups of tile_wg work-items scanning tiles
 * of 16-byte vectors) or the CPU shape (one work-item per tile of cpu_tile elements).
 */
typedef enum clscan_shape {
  CLSCAN_SHAPE_DEFAULT = 0, /**< the tuning table's choice (the CPU shape on CPU devices) */
  CLSCAN_SHAPE_GPU = 1,
  CLSCAN_SHAPE_CPU = 2
} clscan_shape;

/**
 * A plan's tuning: launch geometry and kernel shape. Zero fields take the tuning table's value
 * for the device (or an environment override, see docs/architecture.md), so a zeroed struct asks
 * for the defaults; clscan_plan_get_tuning() and clscan_context_default_tuning() report every
 * field resolved. Tuning changes speed, and for floating-point sums the rounding, never the
 * meaning of a scan. Fields that the plan's algorithm does not use are validated but ignored.
 */
typedef struct clscan_tuning {
  unsigned seed_wg;           /**< Blelloch and Hillis-Steele work-group size: a power of two
                                   up to the device's maximum. */
  unsigned tile_wg;           /**< Reduce-then-scan and GPU-shaped single pass work-group size:
                                   a power of two up to the device's maximum (NVIDIA: >= 32). */
  unsigned tile_vpt;          /**< 16-byte vectors per work-item of the tile kernels, 1 to 16. */
  unsigned rts_groups_per_cu; /**< Reduce-then-scan work-groups per compute unit, >= 1. */
  unsigned cpu_tile;          /**< CPU-shaped single pass: elements per tile, 1 to 2^24. */
  clscan_shape single_pass_shape; /**< Which single-pass kernel runs (and which reduction
                                       shape, see clscan_plan_enqueue_reduce()). */
} clscan_tuning;

/**
 * Creates a plan as clscan_plan_create() does, with the caller's tuning in place of the table's
 * values for the fields it sets.
 * @param[in] tuning the overrides; NULL or a zeroed struct gives clscan_plan_create()'s plan.
 *   Each set field is validated against the device: a value out of range (a work-group size that
 *   is not a power of two or exceeds the device's maximum, tile_vpt outside 1..16, cpu_tile
 *   outside 1..2^24, an unknown single_pass_shape) returns CLSCAN_INVALID_VALUE, with the field
 *   named in clscan_last_error_detail().
 * @return as clscan_plan_create(), and CLSCAN_INVALID_VALUE for a bad tuning value.
 */
CLSCAN_API clscan_status clscan_plan_create_tuned(clscan_context *ctx, const clscan_scan_desc *desc,
                                                  const clscan_tuning *tuning, clscan_plan **out);

/**
 * Reports the tuning a plan runs with, every field resolved (no zeros).
 * @param[in] plan the plan.
 * @param[out] out receives the values.
 * @return CLSCAN_SUCCESS or CLSCAN_NULL_ARGUMENT.
 */
CLSCAN_API clscan_status clscan_plan_get_tuning(const clscan_plan *plan, clscan_tuning *out);

/**
 * Reports the tuning clscan_plan_create() would give a descriptor on the context's device,
 * without creating a plan or building anything.
 * @param[in] ctx the context.
 * @param[in] desc the descriptor (validated as for clscan_context_supports()).
 * @param[out] out receives the values.
 * @return CLSCAN_SUCCESS; CLSCAN_NULL_ARGUMENT; the status clscan_context_supports() returns for
 *   an unsupported descriptor; CLSCAN_INVALID_VALUE when an environment override is out of range.
 */
CLSCAN_API clscan_status clscan_context_default_tuning(const clscan_context *ctx,
                                                       const clscan_scan_desc *desc,
                                                       clscan_tuning *out);

/**
 * Enqueues the plan's scan; arguments as for clscan_scan().
 */
CLSCAN_API clscan_status clscan_plan_enqueue(clscan_plan *plan, cl_command_queue queue, cl_mem in,
                                             size_t in_offset, cl_mem out, size_t out_offset,
                                             size_t n, cl_uint num_wait, const cl_event *wait_list,
                                             cl_event *done);

/**
 * As clscan_plan_enqueue(), and also returns the event of the first command the scan enqueued,
 * so that profiling can measure from the first kernel's start to the last kernel's end.
 * @param[out] first if not NULL, receives the first command's event (caller releases it).
 */
CLSCAN_API clscan_status clscan_plan_enqueue_timed(clscan_plan *plan, cl_command_queue queue,
                                                   cl_mem in, size_t in_offset, cl_mem out,
                                                   size_t out_offset, size_t n, cl_uint num_wait,
                                                   const cl_event *wait_list, cl_event *first,
                                                   cl_event *done);

/**
 * Enqueues a segmented plan's scan (desc.segments HEAD_FLAGS or KEYS): `segments` holds n head
 * flags (uint8) or keys (of desc.key_type) from element segments_offset; the other arguments are
 * as for clscan_plan_enqueue_timed(). Unsegmented plans reject this call, and segmented plans
 * reject clscan_plan_enqueue(), with CLSCAN_INVALID_VALUE.
 */
CLSCAN_API clscan_status clscan_plan_enqueue_segmented(clscan_plan *plan, cl_command_queue queue,
                                                       cl_mem segments, size_t segments_offset,
                                                       cl_mem in, size_t in_offset, cl_mem out,
                                                       size_t out_offset, size_t n,
                                                       cl_uint num_wait, const cl_event *wait_list,
                                                       cl_event *first, cl_event *done);

/**
 * Returns the algorithm the plan runs for n elements (AUTO resolved), or CLSCAN_ALGO_AUTO for a
 * NULL plan.
 */
CLSCAN_API clscan_algorithm clscan_plan_algorithm(const clscan_plan *plan, size_t n);

/** Releases a plan. NULL is a no-op. Work already enqueued completes. */
CLSCAN_API void clscan_plan_release(clscan_plan *plan);

/* ============================================================================================== */
/* Segments by offsets and batched scans                                                          */
/* ============================================================================================== */

/**
 * Enqueues a segmented scan whose segments are given by n_segments + 1 offsets (CSR row pointers,
 * CLSCAN_SEGMENTS_OFFSETS): as clscan_segmented_scan(), with segment s the elements
 * [offsets[s], offsets[s + 1]) of the range. desc->segments must be CLSCAN_SEGMENTS_NONE or
 * CLSCAN_SEGMENTS_OFFSETS; desc->key_type is the offsets' type (int32, the zero value, uint32,
 * int64 or uint64). Every algorithm works, inclusive and exclusive, in place or not.
 * @param[in] offsets a buffer of n_segments + 1 offsets from element offsets_offset, which must
 *   partition [0, n) (see clscan_segments; not read back to be checked). It must not overlap the
 *   output.
 * @param[in] n_segments the number of segments; 0 only with n == 0.
 * @return as clscan_segmented_scan(); CLSCAN_INVALID_VALUE also for n_segments 0 with n > 0 and
 *   for a desc with extra arguments or device_init (segments by offsets take neither, and plans
 *   segmented by offsets are refused them when created), CLSCAN_BUFFER_TOO_SMALL for an offsets
 *   buffer shorter than offsets_offset + n_segments + 1.
 */
CLSCAN_API clscan_status clscan_segmented_scan_offsets(
    clscan_context *ctx, cl_command_queue queue, const clscan_scan_desc *desc, cl_mem offsets,
    size_t offsets_offset, size_t n_segments, cl_mem in, size_t in_offset, cl_mem out,
    size_t out_offset, size_t n, cl_uint num_wait, const cl_event *wait_list, cl_event *done);

/**
 * Enqueues an offsets plan's scan (desc.segments CLSCAN_SEGMENTS_OFFSETS); arguments as for
 * clscan_segmented_scan_offsets() and clscan_plan_enqueue_timed(). Other plans reject this call,
 * and offsets plans reject clscan_plan_enqueue() and clscan_plan_enqueue_segmented(), with
 * CLSCAN_INVALID_VALUE.
 */
CLSCAN_API clscan_status clscan_plan_enqueue_offsets(clscan_plan *plan, cl_command_queue queue,
                                                     cl_mem offsets, size_t offsets_offset,
                                                     size_t n_segments, cl_mem in, size_t in_offset,
                                                     cl_mem out, size_t out_offset, size_t n,
                                                     cl_uint num_wait, const cl_event *wait_list,
                                                     cl_event *first, cl_event *done);

/**
 * Scans host arrays segmented by offsets and waits. The range has n = offsets[n_segments]
 * elements; the offsets are checked first (offsets[0] == 0, non-decreasing, signed offsets not
 * negative: else CLSCAN_INVALID_VALUE, with the first bad index in the detail). in and out as for
 * clscan_scan_host(); out must not overlap the offsets.
 * @param[in] offsets n_segments + 1 offsets of desc->key_type.
 * @return CLSCAN_SUCCESS or an error status; on error `out` is untouched.
 */
CLSCAN_API clscan_status clscan_segmented_scan_offsets_host(clscan_context *ctx,
                                                            const clscan_scan_desc *desc,
                                                            const void *offsets, size_t n_segments,
                                                            const void *in, void *out);

/** Which lines of a matrix a batched scan scans. */
typedef enum clscan_batch_axis {
  CLSCAN_BATCH_ROWS = 0,   /**< each row: elements r * row_stride + [0, row_length) */
  CLSCAN_BATCH_COLUMNS = 1 /**< each column j: elements r * row_stride + j, r = 0 .. rows - 1 */
} clscan_batch_axis;

/**
 * The shape of a batched scan: a row-major matrix of `rows` rows of row_length elements, whose
 * row r starts at element r * row_stride of the buffer (input and output alike; row_stride 0
 * means row_length, else it must be at least row_length). The elements between rows (a stride's
 * padding) are neither read nor written. A zeroed struct is an empty batch.
 */
typedef struct clscan_batch {
  size_t rows;
  size_t row_length;
  size_t row_stride;      /**< elements from one row's start to the next; 0: row_length */
  clscan_batch_axis axis; /**< CLSCAN_BATCH_ROWS (the zero value) or CLSCAN_BATCH_COLUMNS */
} clscan_batch;

/**
 * Enqueues a batched scan: every row (or every column) of the matrix is scanned independently,
 * in one enqueue, each from the initial value (or the identity); the map's index `i` counts from
 * the start of each row (column). desc must not be segmented. in == out with in_offset ==
 * out_offset scans in place; other overlaps of the two matrices' spans are rejected.
 * How: rows without padding (row_stride == row_length) are one segmented scan whose segments all
 * have row_length elements (the segment starts are computed from the index, nothing is read for
 * them), through desc->algorithm like any segmented scan. Rows with padding and columns run a
 * simple kernel instead (desc->algorithm is then not used): one work-item scans one row, or one
 * column (adjacent work-items read adjacent columns, so the loads of a row of the matrix are
 * coalesced); it is fast with many rows (columns), slow with a few long ones.
 * @return as clscan_scan(); CLSCAN_INVALID_VALUE for a NULL batch, an axis out of range, a
 *   row_stride below row_length, a segmented desc or one with args or device_init (whose values
 *   only clscan_plan_enqueue_args() takes); CLSCAN_SIZE_OVERFLOW when the matrix's span
 *   overflows; CLSCAN_BUFFER_TOO_SMALL when a buffer is shorter than its span.
 */
CLSCAN_API clscan_status clscan_scan_batched(clscan_context *ctx, cl_command_queue queue,
                                             const clscan_scan_desc *desc,
                                             const clscan_batch *batch, cl_mem in, size_t in_offset,
                                             cl_mem out, size_t out_offset, cl_uint num_wait,
                                             const cl_event *wait_list, cl_event *done);

/**
 * Scans the rows (or columns) of a host matrix and waits; in and out each hold the matrix's span
 * of (rows - 1) * row_stride + row_length elements, may be identical (in place) and must not
 * otherwise overlap. The padding between rows of `out` is left as it was.
 * @return as clscan_scan_batched(); on error `out` is untouched.
 */
CLSCAN_API clscan_status clscan_scan_batched_host(clscan_context *ctx, const clscan_scan_desc *desc,
                                                  const clscan_batch *batch, const void *in,
                                                  void *out);

/* ============================================================================================== */
/* Reductions                                                                                     */
/* ============================================================================================== */

/**
 * Enqueues the reduction of n elements of `in` under the plan's descriptor: one element of the
 * output type, init op v[0] op v[1] op ... op v[n-1], where v[i] is in[in_offset + i] (or its map)
 * and init is the descriptor's init (the identity when NULL); n == 0 gives init. The result is
 * written to out[out_offset] (offsets in elements of the input and output types). The plan must
 * not be segmented (CLSCAN_INVALID_VALUE); `exclusive` and `algorithm` do not matter. The same
 * bits come back run to run on one device for a fixed n, descriptor and tuning: a fixed number of
 * work-groups (tuning.rts_groups_per_cu per compute unit) each reduce a contiguous part, and one
 * work-group combines their partials in order. The plan's single_pass_shape picks the GPU shape
 * (tile_wg x tile_vpt vector tiles, one launch; the tuning table may give a device's reductions a
 * tile and group count of their own, used while tile_wg, tile_vpt and rts_groups_per_cu are the
 * table's, see docs/tuning.md; the work-group that finishes last, by a 32-bit
 * atomic ticket, combines the partials, which the others publish in atomic status words; it waits
 * for none to run) or the CPU shape (one loop per part, then a second kernel combines).
 * Arguments otherwise as for clscan_plan_enqueue(): `out` must hold out_offset + 1 elements
 * (else CLSCAN_BUFFER_TOO_SMALL, also for n == 0) and the output element must not overlap the
 * input range (CLSCAN_OVERLAP); on any error nothing is enqueued and `out` is untouched.
 */
CLSCAN_API clscan_status clscan_plan_enqueue_reduce(clscan_plan *plan, cl_command_queue queue,
                                                    cl_mem in, size_t in_offset, cl_mem out,
                                                    size_t out_offset, size_t n, cl_uint num_wait,
                                                    const cl_event *wait_list, cl_event *done);

/**
 * As clscan_plan_enqueue_reduce(), and also returns the event of the first command the reduction
 * enqueued, so that profiling can measure from its first kernel's start to its last kernel's end
 * (as clscan_plan_enqueue_timed() does for a scan).
 * @param[out] first if not NULL, receives the first command's event (caller releases it); NULL
 *   on any error.
 */
CLSCAN_API clscan_status clscan_plan_enqueue_reduce_timed(clscan_plan *plan, cl_command_queue queue,
                                                          cl_mem in, size_t in_offset, cl_mem out,
                                                          size_t out_offset, size_t n,
                                                          cl_uint num_wait,
                                                          const cl_event *wait_list,
                                                          cl_event *first, cl_event *done);

/**
 * Reduces a host array synchronously (as clscan_plan_enqueue_reduce() on a cached plan; desc's
 * init is read at the call).
 * @param[in] in n elements of the input type; not NULL, also for n == 0.
 * @param[out] result receives one element of the output type; it must not overlap `in`
 *   (CLSCAN_OVERLAP). It is written only on success.
 * @return CLSCAN_SUCCESS; CLSCAN_NULL_ARGUMENT; the descriptor statuses of clscan_plan_create();
 *   CLSCAN_INVALID_VALUE for a segmented desc; CLSCAN_OVERLAP; CLSCAN_SIZE_OVERFLOW;
 *   CLSCAN_OUT_OF_HOST_MEMORY, CLSCAN_OUT_OF_DEVICE_MEMORY, CLSCAN_OPENCL_ERROR.
 */
CLSCAN_API clscan_status clscan_reduce_host(clscan_context *ctx, const clscan_scan_desc *desc,
                                            const void *in, size_t n, void *result);

/* ============================================================================================== */
/* Enqueues with extra arguments, a device-resident initial value and a device total              */
/* ============================================================================================== */

/** The value of one extra argument at an enqueue (the descriptor's args[k] gets values[k]). */
typedef struct clscan_arg_value {
  cl_mem buffer;      /**< CLSCAN_ARG_BUFFER: the buffer (NULL for a scalar). */
  size_t offset;      /**< CLSCAN_ARG_BUFFER: the element (of the argument's type) that the name
                           points at. */
  size_t length;      /**< CLSCAN_ARG_BUFFER: how many elements from offset user code may
                           access; 0 means n, the scan's length. The buffer must hold them
                           (CLSCAN_BUFFER_TOO_SMALL). */
  const void *scalar; /**< CLSCAN_ARG_SCALAR: the value's bytes (NULL for a buffer); read at the
                           call. */
} clscan_arg_value;

/**
 * What an enqueue takes beyond its input and output. A zeroed struct gives no extra values, no
 * device initial value, no total and no segments.
 * Byte offsets (init_offset, total_offset) must be multiples of the output element's size.
 */
typedef struct clscan_run_args {
  const clscan_arg_value *values; /**< value_count values, one per descriptor argument. */
  size_t value_count;             /**< Must equal the descriptor's arg_count. */
  cl_mem init;                    /**< With desc.device_init: the buffer holding the initial value
                                       (one output element at byte init_offset), read when the
                                       scan runs; else NULL. */
  size_t init_offset;             /**< Byte offset of the initial value in init. */
  cl_mem total;                   /**< NULL, or a buffer that receives the scan's total at byte
                                       total_offset: init op v[0] op ... op v[n-1] (the inclusive
                                       total, also for exclusive scans; init alone for n == 0).
                                       Unsegmented scans only. total may be the init buffer and
                                       offset (the total is written after every read of init), so
                                       a stream scanned chunk by chunk chains on the device. */
  size_t total_offset;            /**< Byte offset of the total in total. */
  cl_mem segments;                /**< Segmented plans: n head flags or keys (as for
                                       clscan_plan_enqueue_segmented()); else NULL. */
  size_t segments_offset;         /**< Element offset in segments. */
} clscan_run_args;

/**
 * Enqueues the plan's scan with extra argument values, a device-resident initial value and a
 * device total (any of them, per `run`); otherwise as clscan_plan_enqueue_timed(), segmented
 * plans included (run->segments). Plans whose descriptor has args or device_init run only through
 * this call (and clscan_plan_enqueue_reduce_args()); the other enqueue calls refuse them with
 * CLSCAN_INVALID_VALUE, and the one-shot calls refuse such descriptors. Every check runs before
 * anything is enqueued, and the buffers are then untouched.
 * @param[in] run the values; NULL is a zeroed struct.
 * @return as clscan_plan_enqueue_timed(), and: CLSCAN_INVALID_VALUE (value_count differs from
 *   arg_count; a buffer value with `scalar` set or a scalar value with `buffer` set; init given
 *   to a plan without device_init, or a total for a segmented plan; segments given to an
 *   unsegmented plan; a plan segmented by offsets, which runs through
 *   clscan_plan_enqueue_offsets(); a byte offset that is not a multiple of the output element's
 *   size);
 *   CLSCAN_NULL_ARGUMENT (values NULL with value_count > 0; a buffer value's buffer, a scalar
 *   value's scalar, init with device_init, or segments of a segmented plan NULL);
 *   CLSCAN_INVALID_BUFFER (an argument, init or total buffer of another context or invalid; a
 *   READ_WRITE argument or the total CL_MEM_READ_ONLY); CLSCAN_BUFFER_TOO_SMALL (an argument's
 *   offset + length elements, init or total past its buffer's end); CLSCAN_SIZE_OVERFLOW;
 *   CLSCAN_OVERLAP (an argument's range, init or the total overlapping the output range; a
 *   READ_WRITE argument or the total overlapping the input range).
 */
CLSCAN_API clscan_status clscan_plan_enqueue_args(clscan_plan *plan, cl_command_queue queue,
                                                  cl_mem in, size_t in_offset, cl_mem out,
                                                  size_t out_offset, size_t n,
                                                  const clscan_run_args *run, cl_uint num_wait,
                                                  const cl_event *wait_list, cl_event *first,
                                                  cl_event *done);

/**
 * Enqueues the plan's reduction (as clscan_plan_enqueue_reduce()) with extra argument values and a
 * device-resident initial value from `run`; run->total and run->segments must be NULL
 * (CLSCAN_INVALID_VALUE: the result is the total). Checks and statuses as
 * clscan_plan_enqueue_args().
 */
CLSCAN_API clscan_status clscan_plan_enqueue_reduce_args(clscan_plan *plan, cl_command_queue queue,
                                                         cl_mem in, size_t in_offset, cl_mem out,
                                                         size_t out_offset, size_t n,
                                                         const clscan_run_args *run,
                                                         cl_uint num_wait,
                                                         const cl_event *wait_list, cl_event *done);

/* ============================================================================================== */
/* Selections: select, partition, unique, run-length encoding                                    */
/* ============================================================================================== */

/**
 * What a selection computes. Each writes its results and a count; results are the input
 * elements after the map (of out_type).
 * - SELECT: the selected elements, in input order; the count is the number selected.
 * - PARTITION: the selected elements in order, then the rejected ones in order (not reversed,
 *   unlike CUB's DevicePartition); all n are written; the count is the number selected, so the
 *   rejected part starts at out[count]. Or, given a `rejected` buffer
 *   (clscan_select_buffers.rejected, clscan_partition_copy_host()), the selected ones in order to
 *   `out` and the rejected ones in order to `rejected` (Thrust's stable_partition_copy): that
 *   takes one pass, with no count pre-pass. Or, with `reverse_rejected`, the selected ones in
 *   order and the rejected ones from the end of `out` backwards (out[n - 1] is the first
 *   rejected), CUB's DevicePartition layout: one pass, no count pre-pass, but the rejected part
 *   is not stable.
 * - UNIQUE: the first element of each run of equal consecutive elements; the count is the number
 *   of runs.
 * - RUN_LENGTH_ENCODE: the first element of each run, and in `lengths` each run's length
 *   (count_size bytes each); the count is the number of runs.
 */
typedef enum clscan_select_op {
  CLSCAN_SELECT = 0,
  CLSCAN_PARTITION,
  CLSCAN_UNIQUE,
  CLSCAN_RUN_LENGTH_ENCODE,
  CLSCAN_SELECT_OP_COUNT
} clscan_select_op;

/**
 * Describes a selection. Zero fields are defaults: a zeroed descriptor selects int32 elements by
 * a flags buffer, with 8-byte counts and the automatic algorithm.
 *
 * Which elements are selected. SELECT and PARTITION: element i is selected when flags[i] (a uint8
 * buffer given at enqueue) is non-zero, or, with predicate_source, when the predicate holds (then
 * no flags buffer may be given). UNIQUE and RUN_LENGTH_ENCODE: element i starts a run when i == 0
 * or it differs from element i - 1 (equal_source, or == for built-in types; user types need
 * equal_source). Predicates and equalities see elements after the map.
 *
 * Algorithms (`algorithm`):
 * - SINGLE_PASS (what AUTO picks where the device has 64-bit atomics, and on CPU devices without
 *   them, as for scans): the flag count fused with the scatter through the scan's decoupled
 *   look-back and fallback; tiles compact their selected elements locally and write them to
 *   consecutive addresses. One read of the input (and flags) and one write of the results; it
 *   terminates without forward-progress guarantees. PARTITION into one buffer adds a count
 *   pre-pass (the rejected part starts at the total, which a single pass cannot know before every
 *   tile is counted): it reads the flags once more (1 byte per element) or, with a predicate, the
 *   input once more. PARTITION into two buffers (`rejected` given), or with its rejected part
 *   reversed (`reverse_rejected`), needs no pre-pass.
 *   RUN_LENGTH_ENCODE carries the index of the last run head in the look-back's state, so it
 *   stays one pass. It runs on every device: its status words are 64-bit atomics where the device
 *   has them, else 32-bit ones (two per 4 bytes of the count state).
 * - BLELLOCH, HILLIS_STEELE, REDUCE_THEN_SCAN: the portable multi-pass path (AUTO's choice on GPUs
 *   without 64-bit atomics: REDUCE_THEN_SCAN): flags into a temporary array, that scan algorithm's
 *   exclusive sum of them, then a scatter (run-length encoding: and a pass from run starts to
 *   lengths). It needs about 17 bytes of temporary memory per element and moves several times the
 *   single pass's bytes; it is the baseline.
 * Counts are integers, so every algorithm gives the same results, run to run and across
 * algorithms.
 *
 * Types, map and user types as in clscan_scan_desc (type, out_type, map_source, type_source,
 * type_name, type_size).
 *
 * Extra arguments (`args`, clscan_arg) as for scans: predicate_source and map_source see them by
 * their names (e.g. "x > limit && keep[i]"), and their values come with each enqueue
 * (clscan_select_buffers.values), so one plan selects with new buffers and scalars every time.
 * equal_source sees them too ("a / w == b / w"); `a` and `b` cannot name them. A descriptor with
 * arguments needs predicate_source, map_source or equal_source, and runs only through
 * clscan_select_enqueue().
 *
 * Every string is copied when a plan is created; a source that does not
 * compile makes plan creation return CLSCAN_USER_SOURCE_INVALID (the log:
 * clscan_context_build_log).
 */
typedef struct clscan_select_desc {
  clscan_select_op op;
  clscan_type type;             /**< Element type of the input (CLSCAN_USER_TYPE: type_name). */
  const char *predicate_source; /**< SELECT, PARTITION: NULL (select by flags) or OpenCL C over
                                     `x` (the element, after the map) and `i` (ulong index from
                                     the range's start) whose non-zero value selects; an
                                     expression or a body with return, as op_source. */
  const char *equal_source;     /**< UNIQUE, RUN_LENGTH_ENCODE: NULL (== for built-in types;
                                     floats compare as values: -0.0 equals 0.0, NaN equals
                                     nothing, so every NaN starts a run) or OpenCL C over `a` and
                                     `b`, non-zero when equal; required for user types. */
  const char *map_source;       /**< NULL, or the element as OpenCL C of x and i, of out_type. */
  clscan_out_type out_type;     /**< The mapped element's type; CLSCAN_OUT_SAME: `type`. */
  const char *type_source;      /**< OpenCL C defining type_name (user types). */
  const char *type_name;        /**< With a user type: its OpenCL C name. */
  size_t type_size;             /**< With a user type: sizeof(type_name) on host and device. */
  size_t count_size;            /**< Bytes of the count and of run lengths: 4 (uint32; then n
                                     must be below 2^32) or 8 (uint64); 0 means 8. */
  clscan_algorithm algorithm;   /**< CLSCAN_ALGO_AUTO, SINGLE_PASS, or BLELLOCH, HILLIS_STEELE,
                                     REDUCE_THEN_SCAN (the multi-pass path over that scan). */
  const clscan_arg *args;       /**< arg_count extra arguments of predicate_source, map_source
                                     and equal_source (see clscan_arg); copied. */
  size_t arg_count;             /**< 0 to CLSCAN_MAX_ARGS. */
  int reverse_rejected;         /**< PARTITION into one buffer: non-zero writes the rejected
                                     elements from out[n - 1] backwards (the last rejected
                                     element at out[count]), as CUB's DevicePartition::If, in one
                                     pass; 0 (the default) writes them in order after the
                                     selected ones, after a count pre-pass. Not with a
                                     `rejected` buffer (clscan_select_buffers). */
} clscan_select_desc;

/** A selection compiled for one descriptor (like clscan_plan for scans). It may be used from
 * several threads. */
typedef struct clscan_select_plan clscan_select_plan;

/**
 * Creates a selection plan: validates the descriptor and builds its kernels (on GPUs those that
 * load 16-byte vectors; a first enqueue whose input or flags offset is not a multiple of a
 * vector builds the scalar ones).
 * @return CLSCAN_SUCCESS; CLSCAN_NULL_ARGUMENT (ctx, desc or out NULL, a user type without
 *   type_name, runs of a user type without equal_source); CLSCAN_INVALID_VALUE (op, count_size,
 *   predicate_source for runs, equal_source for SELECT or PARTITION, reverse_rejected for another
 *   operation than PARTITION, type fields given for a
 *   built-in type, type_size 0, a conversion to or from a user type without map_source; extra
 *   arguments as for clscan_plan_create(), or without predicate_source and map_source);
 *   CLSCAN_INVALID_TYPE; CLSCAN_INVALID_ALGORITHM; CLSCAN_UNSUPPORTED_BY_DEVICE (double without
 *   fp64); CLSCAN_BUILD_FAILED; CLSCAN_USER_SOURCE_INVALID;
 *   CLSCAN_TYPE_SIZE_MISMATCH; CLSCAN_OUT_OF_HOST_MEMORY; CLSCAN_OPENCL_ERROR.
 */
CLSCAN_API clscan_status clscan_select_plan_create(clscan_context *ctx,
                                                   const clscan_select_desc *desc,
                                                   clscan_select_plan **out);

/** Releases a selection plan (NULL is ignored). Work already enqueued completes. */
CLSCAN_API void clscan_select_plan_release(clscan_select_plan *plan);

/** The buffers of one selection. Offsets and capacities count elements of each buffer's type. */
typedef struct clscan_select_buffers {
  cl_mem in; /**< n input elements from in_offset. */
  size_t in_offset;
  cl_mem flags; /**< Selection by flags: n uint8 flags from flags_offset; else NULL. */
  size_t flags_offset;
  cl_mem out; /**< The results (out_type), out_capacity elements from out_offset. */
  size_t out_offset;
  size_t out_capacity; /**< How many elements `out` (and `lengths`) may receive. SELECT, UNIQUE
                            and RUN_LENGTH_ENCODE write the first min(count, out_capacity)
                            results and still report the true count; PARTITION into one
                            buffer needs out_capacity >= n (else CLSCAN_BUFFER_TOO_SMALL). */
  cl_mem lengths;      /**< RUN_LENGTH_ENCODE: out_capacity run lengths (count_size bytes each) from
                            lengths_offset; else NULL. */
  size_t lengths_offset;
  cl_mem rejected; /**< PARTITION: NULL (the rejected elements follow the selected ones in `out`),
                        or where the rejected elements go, in order: rejected_capacity elements of
                        out_type from rejected_offset, of which the first
                        min(n - count, rejected_capacity) are written. `out` then receives only
                        the selected ones, the first min(count, out_capacity), as for SELECT, and
                        the single pass needs no count pre-pass. NULL for other operations
                        and for a plan with reverse_rejected. */
  size_t rejected_offset;
  size_t rejected_capacity; /**< How many elements `rejected` may receive. */
  cl_mem count; /**< One count_size-byte element at count_offset: the number selected or runs. */
  size_t count_offset;
  const clscan_arg_value *values; /**< The values of the descriptor's extra arguments, one per
                                       argument (as clscan_run_args.values; a buffer's `length`
                                       0 means n); NULL without arguments. */
  size_t value_count;             /**< Must equal the descriptor's arg_count. */
} clscan_select_buffers;

/**
 * Enqueues a selection of n elements. Nothing blocks: the count is written to a device buffer, so
 * the next command can depend on `done`. n == 0 writes a count of 0 and nothing else. Only the
 * results [0, min(count, out_capacity)) (PARTITION into one buffer: [0, n); into two: that and
 * rejected [0, min(n - count, rejected_capacity))), the same range of lengths and the count are
 * written.
 * Selections never run in place: an output range (out, lengths, count) that overlaps any other
 * range (in, flags, or another output) is refused with CLSCAN_OVERLAP, even when identical; so is
 * an extra argument's buffer range that overlaps an output, and a READ_WRITE one that overlaps
 * any other range.
 * @param[in] queue a queue of the context, or NULL for the context's default queue.
 * @param[out] done if not NULL, receives an event that completes with the selection.
 * @return CLSCAN_SUCCESS; CLSCAN_NULL_ARGUMENT (plan, buffers, in, out or count NULL; flags NULL
 *   when the plan selects by flags; lengths NULL for RUN_LENGTH_ENCODE; values NULL with
 *   value_count > 0, a value's buffer or scalar NULL); CLSCAN_INVALID_VALUE (flags given to a plan
 *   that does not select by flags, lengths given for another operation, rejected given for an
 *   operation other than PARTITION or to a plan with reverse_rejected, n >= 2^32 with
 *   count_size 4, value_count not the plan's arg_count, a buffer value with `scalar` set or a
 *   scalar value with `buffer` set); CLSCAN_BUFFER_TOO_SMALL; CLSCAN_SIZE_OVERFLOW; CLSCAN_OVERLAP;
 *   CLSCAN_INVALID_BUFFER (another context, not a buffer, an output CL_MEM_READ_ONLY);
 *   CLSCAN_INVALID_QUEUE; CLSCAN_INVALID_WAIT_LIST; CLSCAN_OUT_OF_DEVICE_MEMORY;
 *   CLSCAN_OPENCL_ERROR; where the first unaligned request builds the plan's scalar kernels
 *   (clscan_select_plan_create()), also CLSCAN_BUILD_FAILED, CLSCAN_USER_SOURCE_INVALID and
 *   CLSCAN_TYPE_SIZE_MISMATCH. Every check runs before anything is enqueued, and the buffers are
 *   then untouched.
 */
CLSCAN_API clscan_status clscan_select_enqueue(clscan_select_plan *plan, cl_command_queue queue,
                                               const clscan_select_buffers *buffers, size_t n,
                                               cl_uint num_wait, const cl_event *wait_list,
                                               cl_event *done);

/**
 * As clscan_select_enqueue(), and also returns the event of the first command the selection
 * enqueued (a fill of fresh temporary storage, a count pre-pass or the first kernel), so that
 * profiling can measure from its start to the end of the last command.
 * @param[out] first if not NULL, receives the first command's event (caller releases it); NULL
 *   on any error.
 */
CLSCAN_API clscan_status clscan_select_enqueue_timed(clscan_select_plan *plan,
                                                     cl_command_queue queue,
                                                     const clscan_select_buffers *buffers, size_t n,
                                                     cl_uint num_wait, const cl_event *wait_list,
                                                     cl_event *first, cl_event *done);

/**
 * Runs a selection on host arrays synchronously (a plan is created for the call). in: n
 * elements; flags: n uint8 flags, or NULL (with a predicate, and for UNIQUE and
 * RUN_LENGTH_ENCODE); out and lengths (RUN_LENGTH_ENCODE only, else NULL) hold out_capacity
 * elements, of which the first min(count, out_capacity) (PARTITION: n) are written; *count
 * receives the true count. out may be NULL when out_capacity is 0. A descriptor with extra
 * arguments is refused (CLSCAN_INVALID_VALUE): their values are device buffers, given to
 * clscan_select_enqueue().
 * @return as clscan_select_plan_create() and clscan_select_enqueue(); on error the arrays are
 *   untouched.
 */
CLSCAN_API clscan_status clscan_select_host(clscan_context *ctx, const clscan_select_desc *desc,
                                            const void *in, const unsigned char *flags, size_t n,
                                            void *out, void *lengths, size_t out_capacity,
                                            uint64_t *count);

/**
 * Partitions host arrays synchronously into two (a plan is created for the call): the selected
 * elements in order to `selected` (the first min(count, selected_capacity)), the rejected ones in
 * order to `rejected` (the first min(n - count, rejected_capacity)), as clscan_select_enqueue()
 * with a `rejected` buffer; *count receives the number selected. desc->op must be
 * CLSCAN_PARTITION; flags as for clscan_select_host(). An array may be NULL when its capacity is
 * 0.
 * @return as clscan_select_host(); CLSCAN_INVALID_VALUE where desc->op is not PARTITION or
 *   desc->reverse_rejected is set. On error the arrays are untouched.
 */
CLSCAN_API clscan_status clscan_partition_copy_host(clscan_context *ctx,
                                                    const clscan_select_desc *desc, const void *in,
                                                    const unsigned char *flags, size_t n,
                                                    void *selected, size_t selected_capacity,
                                                    void *rejected, size_t rejected_capacity,
                                                    uint64_t *count);

/* ============================================================================================== */
/* Sorting                                                                                        */
/* ============================================================================================== */

/**
 * Sort algorithms.
 * - CLSCAN_SORT_AUTO: ONESWEEP where the device takes the GPU shape's warp ranking (work-groups
 *   of 256 and about 28 KB of local memory; on the H200 it sorted faster than LSD for every key
 *   type and distribution measured but narrow uint32 keys, docs/performance.md), LSD on CPU devices
 *   and where the GPU shape falls back to its per-work-item ranking.
 *   clscan_sort_plan_algorithm() tells which a plan took.
 * - CLSCAN_SORT_LSD: the portable least-significant-digit radix sort built from the library's
 *   pieces: per 8-bit digit, a histogram per tile, an exclusive scan of the counts (digit-major)
 *   and a stable scatter in which each work-group ranks its tile's digits in local memory. About
 *   3 reads and 1 write of the keys per digit. Needs nothing beyond OpenCL 1.2.
 * - CLSCAN_SORT_ONESWEEP: one histogram pass over every digit, then one pass per 8-bit digit in
 *   which each work-group ranks its tile in local memory and takes its digit offsets from a chained
 *   scan across tiles with the scan's decoupled look-back and fallback (Onesweep, Adinets and
 *   Merrill 2022): it terminates without forward-progress guarantees. A digit that every key
 *   shares is skipped. About 1 read and 1 write of the keys per digit. Its status words are
 *   64-bit atomics, or two 32-bit words per state on devices without 64-bit atomics.
 * On CPU devices both run in their CPU shape: one work-item per large tile, a sequential counting
 * sort per tile.
 */
typedef enum clscan_sort_algorithm {
  CLSCAN_SORT_AUTO = 0,
  CLSCAN_SORT_LSD,
  CLSCAN_SORT_ONESWEEP
} clscan_sort_algorithm;

/** Number of sort algorithms (one past the last clscan_sort_algorithm value). */
#define CLSCAN_SORT_ALGORITHM_COUNT 3

/**
 * What to sort. A descriptor that is zero except for the fields a caller sets is valid: it
 * describes an ascending sort of int32 keys without values, on all bits, by the automatic
 * algorithm.
 *
 * Order. Sorts are stable: keys that compare equal keep their input order (with their values), in
 * both directions. Integer keys sort by value. Floating-point keys sort in the IEEE total order by
 * bit pattern, after the usual sign flip (every bit flipped when the sign is set, the sign bit set
 * otherwise): -NaN < -inf < ... < -0.0 < +0.0 < ... < +inf < +NaN (NaNs by payload among
 * themselves). Descending reverses that order; equal keys still keep their input order.
 *
 * Bit range. With begin_bit < end_bit, keys are compared by bits [begin_bit, end_bit) of their
 * ordered bit pattern (the key's bits with the sign flip above, inverted when descending), which
 * is the key's order when the other bits are equal across the keys (e.g. keys known to be below
 * 2^end_bit); 0 and 0 mean every bit. end_bit may not exceed the key's bits.
 *
 * Values. value_size bytes move with each key (0: keys only); any size from 1 to
 * CLSCAN_SORT_MAX_VALUE_SIZE, e.g. 4 for a uint32 index payload, or a user struct.
 */
typedef struct clscan_sort_desc {
  clscan_type key_type;            /**< Any built-in type: int8 .. uint64, float, double or
                                        half (compared by their bits, so double keys need no
                                        fp64). */
  size_t value_size;               /**< Bytes per value; 0: keys only. */
  int descending;                  /**< 0: ascending; else descending. */
  unsigned begin_bit;              /**< First bit compared (see Bit range). */
  unsigned end_bit;                /**< One past the last bit compared; 0 with begin_bit 0: all. */
  clscan_sort_algorithm algorithm; /**< CLSCAN_SORT_AUTO unless a specific one is wanted. */
} clscan_sort_desc;

/** The largest value_size a sort accepts. */
#define CLSCAN_SORT_MAX_VALUE_SIZE 256

/** A sort compiled for one descriptor on one context (like clscan_plan for scans). A plan may be
 * used from several threads and queues at once. */
typedef struct clscan_sort_plan clscan_sort_plan;

/**
 * Creates a sort plan: validates the descriptor and builds its kernels.
 * @return CLSCAN_SUCCESS; CLSCAN_NULL_ARGUMENT; CLSCAN_INVALID_TYPE (key_type is not built-in);
 *   CLSCAN_INVALID_VALUE (value_size or the bit range); CLSCAN_INVALID_ALGORITHM;
 *   CLSCAN_BUILD_FAILED; CLSCAN_OUT_OF_HOST_MEMORY.
 */
CLSCAN_API clscan_status clscan_sort_plan_create(clscan_context *ctx, const clscan_sort_desc *desc,
                                                 clscan_sort_plan **out);

/** Releases a sort plan (NULL is ignored). Sorts already enqueued complete normally. */
CLSCAN_API void clscan_sort_plan_release(clscan_sort_plan *plan);

/** The algorithm a plan runs (AUTO resolved). */
CLSCAN_API clscan_sort_algorithm clscan_sort_plan_algorithm(const clscan_sort_plan *plan);

/**
 * Enqueues a sort of n keys of `keys` (from element keys_offset) and, with a value_size, of their
 * values in `values` (from element values_offset; NULL without values), in place: the caller's
 * buffers hold the sorted keys and values when `done` completes. clscan holds the ping-pong
 * buffers (from the context's temporary memory: clscan_sort_temp_bytes()). Does not block.
 * Offsets count elements of the key type and of value_size bytes. keys and values may be the same
 * buffer if their ranges do not overlap; a buffer and its sub-buffer, or two overlapping
 * sub-buffers of one buffer, are refused whatever the ranges (CLSCAN_OVERLAP, as everywhere: see
 * the conventions at the top). n may be at most UINT32_MAX
 * (CLSCAN_SIZE_OVERFLOW). The result is unique (a stable sort), so it is the same on every device
 * and run.
 * @param[in] queue a queue of the context, or NULL for the context's default queue.
 * @param[in] num_wait, wait_list, done as for clscan_scan(); done is valid for n == 0 too.
 * @return CLSCAN_SUCCESS or an error status; arguments are checked before anything is enqueued
 *   (NULL buffers, ranges, overlap of keys and values, queue, wait list), and temporary memory is
 *   allocated then too, so the buffers are untouched after such a failure. If OpenCL refuses an
 *   enqueue midway (out of resources), the commands already enqueued are waited for and the keys
 *   and values may be left partly permuted.
 */
CLSCAN_API clscan_status clscan_sort_enqueue(clscan_sort_plan *plan, cl_command_queue queue,
                                             cl_mem keys, size_t keys_offset, cl_mem values,
                                             size_t values_offset, size_t n, cl_uint num_wait,
                                             const cl_event *wait_list, cl_event *done);

/**
 * Returns the bytes of temporary device memory a sort of n keys takes (the ping-pong copies of
 * keys and values, the per-tile counts or status words and the histograms), or 0 for a NULL plan.
 * The context keeps it in its temporary slots after the sort, for the next call.
 */
CLSCAN_API size_t clscan_sort_temp_bytes(const clscan_sort_plan *plan, size_t n);

/**
 * Sorts host arrays in place on the context's device and waits: n keys of desc->key_type and,
 * with a value_size, n values of value_size bytes (values NULL without values).
 * @return CLSCAN_SUCCESS or an error status; on error the arrays are untouched.
 */
CLSCAN_API clscan_status clscan_sort_host(clscan_context *ctx, const clscan_sort_desc *desc,
                                          void *keys, void *values, size_t n);

#ifdef __cplusplus
}
#endif

#endif /* CLSCAN_CLSCAN_H_ */
