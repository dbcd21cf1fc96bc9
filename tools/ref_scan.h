/*
 * clscan reference scans on the host, shared by the tests and the clscan program's benchmark.
 *
 * Integers are computed exactly (add and mul wrap modulo 2^bits). Floating-point scans are
 * computed in double (long double for double input) and compared with a stated tolerance:
 * |got - ref| <= tol * scale_i, where scale_i is the sum of |x| up to i (add, with |init|), or
 * |ref_i| (mul); min and max select, so they must match exactly.
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

/* Scans `in` into `out` sequentially (out is of the scan's type; floats are rounded from the
 * higher-precision running value). `init` may be NULL. in == out is allowed. */
void clscan_ref_scan(const clscan_scan_desc *desc, const void *in, void *out, size_t n);

/* Checks a device result against the reference computed from `in`. Returns 1 if it matches;
 * otherwise 0 with the first mismatch described in *m (which may be NULL). */
int clscan_ref_check(const clscan_scan_desc *desc, const void *in, const void *got, size_t n,
                     clscan_ref_mismatch *m);

/* Fills `data` with n pseudo-random elements of `type` suited to `op` (never only zeros or ones:
 * products stay near 1, sums do not overflow floats). Deterministic for a seed. */
void clscan_ref_fill(clscan_type type, clscan_op op, uint64_t seed, void *data, size_t n);

/* Formats element i of an array of `type` into buf. */
void clscan_ref_format(clscan_type type, const void *data, size_t i, char *buf, size_t cap);

#endif /* CLSCAN_REF_SCAN_H_ */
