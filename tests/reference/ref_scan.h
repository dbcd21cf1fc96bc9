/*
 * clscan reference scans on the host, shared by the tests and the clscan program's benchmark.
 *
 * Integers are computed exactly (add and mul wrap modulo 2^bits of the output type).
 * Floating-point scans are computed in double (long double for double output) and compared with a
 * stated tolerance: |got - ref| <= tol * scale_i, where scale_i is the sum of |y| over i's segment
 * up to i (add, with |init|), or |ref_i| (mul); min and max select, so they must match exactly.
 *
 * The descriptor fields the reference honours: type, op (built-in operators only), exclusive,
 * init (one element of the output type), out_type (built-in types: each input element is
 * converted as an OpenCL C cast, with the result of converting an out-of-range or NaN float to an
 * integer left undefined on the device and 0 here), and, in the *_segmented functions, segments
 * and key_type. map_source, op_source and user types are evaluated through host twins of their
 * OpenCL C (clscan_ref_twins) in the *_twins functions; the other functions take descriptors
 * without them.
 */
#ifndef CLSCAN_REF_SCAN_H_
#define CLSCAN_REF_SCAN_H_

#include <stddef.h>
#include <stdint.h>

#include "clscan.h"

/* Relative tolerances of floating-point checks (see above). */
#define CLSCAN_REF_FLOAT_TOL (1.0 / 1024.0)
#define CLSCAN_REF_DOUBLE_TOL (1.0 / 1099511627776.0) /* 2^-40 */
/* Half sums and products are checked exactly: clscan_ref_fill() makes them exact in every
 * grouping (see there), and a check then holds any other input to the same standard. */
#define CLSCAN_REF_HALF_TOL 0.0

/* IEEE binary16 (CLSCAN_HALF, stored as its 16 bits): the exact double of a half, and the half
 * nearest a double (ties to even; beyond the largest half, infinity; NaN stays NaN). */
double clscan_ref_half_to_double(uint16_t h);
uint16_t clscan_ref_half_from_double(double d);

/* Largest user-type element the reference handles, in bytes. */
#define CLSCAN_REF_MAX_ELEM 16

/* Result of a check: the first mismatching index, or -1 (as a signed 64-bit value). */
typedef struct clscan_ref_mismatch {
  int64_t index;
  char detail[320];
} clscan_ref_mismatch;

/* Host twins of a descriptor's OpenCL C, on raw element bytes (little-endian, as the devices). */
typedef void (*clscan_ref_map_fn)(const void *x, uint64_t i, void *y);
typedef void (*clscan_ref_op_fn)(const void *a, const void *b, void *r);

/* What the reference needs beyond a descriptor to evaluate its OpenCL C. */
typedef struct clscan_ref_twins {
  clscan_ref_map_fn map; /* y = map(x, i) in the output type: the twin of map_source */
  clscan_ref_op_fn op;   /* r = op(a, b): the twin of op_source (with CLSCAN_USER_OP) */
} clscan_ref_twins;

/* Returns the output type of a descriptor: `type` for CLSCAN_OUT_SAME, else the clscan_type its
 * out_type names (CLSCAN_USER_TYPE for CLSCAN_OUT_USER_TYPE). */
clscan_type clscan_ref_out_type(const clscan_scan_desc *desc);

/* Returns the size in bytes of one input element and of one output element of a descriptor
 * (type_size for a user type). */
size_t clscan_ref_in_size(const clscan_scan_desc *desc);
size_t clscan_ref_out_size(const clscan_scan_desc *desc);

/* Scans `in` into `out` sequentially (out is of the output type; floats are rounded from the
 * higher-precision running value). `init` may be NULL. in == out is allowed when the input and
 * output types have the same size. */
void clscan_ref_scan(const clscan_scan_desc *desc, const void *in, void *out, size_t n);

/* Checks a device result against the reference computed from `in`. Returns 1 if it matches;
 * otherwise 0 with the first mismatch described in *m (which may be NULL). */
int clscan_ref_check(const clscan_scan_desc *desc, const void *in, const void *got, size_t n,
                     clscan_ref_mismatch *m);

/* As clscan_ref_scan() and clscan_ref_check(), for a segmented descriptor: `segments` holds n
 * head flags (uint8; non-zero starts a segment) when desc->segments is CLSCAN_SEGMENTS_HEAD_FLAGS,
 * or n keys of desc->key_type (a segment is a run of equal keys) when it is CLSCAN_SEGMENTS_KEYS.
 * Element 0 always starts a segment. With CLSCAN_SEGMENTS_NONE or segments == NULL the whole
 * range is one segment. */
void clscan_ref_scan_segmented(const clscan_scan_desc *desc, const void *segments, const void *in,
                               void *out, size_t n);
int clscan_ref_check_segmented(const clscan_scan_desc *desc, const void *segments, const void *in,
                               const void *got, size_t n, clscan_ref_mismatch *m);

/*
 * As clscan_ref_scan_segmented() and clscan_ref_check_segmented(), for any descriptor the library
 * accepts: y[i] = twins->map(x[i], i) when map_source is set (i counted from the start of the
 * range), else x[i] converted as a C cast (user types: copied); with CLSCAN_USER_OP every element
 * is combined by twins->op from init (or desc->identity), earlier elements on the left, and
 * compared byte by byte; built-in operators are checked as above (floats with the tolerance).
 * `twins` may be NULL for a descriptor without map_source and op_source. User types are at most
 * CLSCAN_REF_MAX_ELEM bytes.
 */
void clscan_ref_scan_twins(const clscan_scan_desc *desc, const clscan_ref_twins *twins,
                           const void *segments, const void *in, void *out, size_t n);
int clscan_ref_check_twins(const clscan_scan_desc *desc, const clscan_ref_twins *twins,
                           const void *segments, const void *in, const void *got, size_t n,
                           clscan_ref_mismatch *m);

/* Fills `data` with n pseudo-random elements of `type` suited to `op` (never only zeros or ones:
 * products stay near 1, sums do not overflow floats; halves as in ref_scan.c's half_fill, whose
 * sums and products are exact). Deterministic for a seed. */
void clscan_ref_fill(clscan_type type, clscan_op op, uint64_t seed, void *data, size_t n);

/* Fills `data` with the segments of desc->segments for n elements, segments starting with
 * probability 1 / mean_length at each element (so their mean length is about mean_length):
 * HEAD_FLAGS writes uint8 flags of 0 and 1; KEYS writes keys of desc->key_type that change by 1
 * to 7 where a segment starts. Deterministic for a seed; does nothing for CLSCAN_SEGMENTS_NONE. */
void clscan_ref_fill_segments(const clscan_scan_desc *desc, size_t mean_length, uint64_t seed,
                              void *data, size_t n);

/* Returns 1 when keys i and j of an array of built-in key_type are equal as the by-key scan
 * compares them: integers by value, floating-point keys with == (-0.0 equals 0.0; a NaN equals
 * nothing). */
int clscan_ref_keys_equal(clscan_type key_type, const void *keys, size_t i, size_t j);

/* Fills offsets (room for cap of them, cap >= 2) with a partition of [0, n) in the form of
 * CLSCAN_SEGMENTS_OFFSETS: offsets[0] == 0, non-decreasing, offsets[*n_segments] == n. A quarter
 * of the segments are empty (some at the end too), the others average mean_length elements; when
 * cap runs out, the last segment takes the rest. Deterministic for a seed. */
void clscan_ref_fill_offsets(size_t n, size_t mean_length, uint64_t seed, uint64_t *offsets,
                             size_t cap, size_t *n_segments);

/* Writes the head flags (uint8) of n elements segmented by n_segments + 1 offsets: 1 at every
 * offset below n, 0 elsewhere; the reference scans them as CLSCAN_SEGMENTS_HEAD_FLAGS. */
void clscan_ref_offsets_to_flags(const uint64_t *offsets, size_t n_segments, uint8_t *flags,
                                 size_t n);

/* Formats element i of an array of `type` into buf. */
void clscan_ref_format(clscan_type type, const void *data, size_t i, char *buf, size_t cap);

/* Formats one output element of a descriptor: built-in types as numbers, user types as their
 * 32-bit words (or bytes, when the size is not a multiple of 4) in braces. */
void clscan_ref_format_out(const clscan_scan_desc *desc, const void *elem, char *buf, size_t cap);

#endif /* CLSCAN_REF_SCAN_H_ */
