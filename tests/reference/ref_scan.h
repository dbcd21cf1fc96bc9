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
 * and key_type. It does not evaluate map_source, op_source or user types: a caller with a map
 * passes input that it has already mapped (in the input type) and a descriptor without the map.
 */
#ifndef CLSCAN_REF_SCAN_H_
#define CLSCAN_REF_SCAN_H_

#include <stddef.h>
#include <stdint.h>

#include "clscan.h"

/* Relative tolerances of floating-point checks (see above). */
#define CLSCAN_REF_FLOAT_TOL (1.0 / 1024.0)
#define CLSCAN_REF_DOUBLE_TOL (1.0 / 1099511627776.0) /* 2^-40 */

/* Result of a check: the first mismatching index, or -1 (as a signed 64-bit value). */
typedef struct clscan_ref_mismatch {
  int64_t index;
  char detail[160];
} clscan_ref_mismatch;

/* Returns the output type of a descriptor: `type` for CLSCAN_OUT_SAME, else the clscan_type its
 * out_type names. */
clscan_type clscan_ref_out_type(const clscan_scan_desc *desc);

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

/* Fills `data` with n pseudo-random elements of `type` suited to `op` (never only zeros or ones:
 * products stay near 1, sums do not overflow floats). Deterministic for a seed. */
void clscan_ref_fill(clscan_type type, clscan_op op, uint64_t seed, void *data, size_t n);

/* Fills `data` with the segments of desc->segments for n elements, segments starting with
 * probability 1 / mean_length at each element (so their mean length is about mean_length):
 * HEAD_FLAGS writes uint8 flags of 0 and 1; KEYS writes keys of desc->key_type that change by 1
 * to 7 where a segment starts. Deterministic for a seed; does nothing for CLSCAN_SEGMENTS_NONE. */
void clscan_ref_fill_segments(const clscan_scan_desc *desc, size_t mean_length, uint64_t seed,
                              void *data, size_t n);

/* Formats element i of an array of `type` into buf. */
void clscan_ref_format(clscan_type type, const void *data, size_t i, char *buf, size_t cap);

#endif /* CLSCAN_REF_SCAN_H_ */
