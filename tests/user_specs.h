/*
 * clscan tests: descriptors with output types, user operators and types and maps, each with the
 * host twins of its OpenCL C for the reference (tu_spec, test_util.h). They are shared by the
 * user-operator tests (test_user_*.c), the property test, test_oclgrind and test_threads.
 *
 * Names start with uc_ (user cases).
 */
#ifndef CLSCAN_USER_SPECS_H_
#define CLSCAN_USER_SPECS_H_

#include <stddef.h>
#include <stdint.h>

#include "test_util.h"

/* splitmix64 step, for generators of test data. */
uint64_t uc_rnd(uint64_t *s);

/* The affine-map user type: x -> a * x + b over uint modulo 2^32, where f then g is
 * (a_f * a_g, a_g * b_f + b_g), associative and not commutative; identity (1, 0). */
typedef struct uc_affine {
  uint32_t a, b;
} uc_affine;
extern const char uc_affine_source[];    /* "typedef struct { uint a; uint b; } affine;" */
extern const char uc_affine_op_source[]; /* f then g, as a function body */
extern const uc_affine uc_affine_identity;
void uc_affine_op(const void *a, const void *b, void *r);
/* Random maps; a is odd most of the time so that products do not soon become 0. */
void uc_affine_fill(uint64_t seed, void *data, size_t n);

/* Host twin of "a + b" on uint32. */
void uc_add_u32(const void *a, const void *b, void *r);

/* A 2x2 matrix of uint, row-major (the user type of uc_spec_mat2). */
typedef struct uc_mat2 {
  uint32_t m[4];
} uc_mat2;
extern const uc_mat2 uc_mat2_identity;

/* A running argmin: a float value and its index (the user type of uc_spec_argmin). */
typedef struct uc_argmin {
  float v;
  uint32_t i;
} uc_argmin;
extern const char uc_argmin_source[];     /* the OpenCL C typedef of argmin */
extern const char uc_argmin_map_source[]; /* x at i -> (x, i) */
extern const char uc_argmin_op_source[];  /* the smaller value, the earlier of equal ones */
extern const uc_argmin uc_argmin_identity;

/* User operators and types. */
extern const tu_spec uc_spec_affine; /* the affine maps above */
extern const tu_spec uc_spec_mat2;   /* 2x2 matrix product, out_type CLSCAN_OUT_USER_TYPE */
extern const tu_spec uc_spec_int2;   /* "a + b" on int2, an OpenCL vector type */
extern const tu_spec uc_spec_max;    /* "max(a, b)" on int32, identity INT32_MIN */
extern const tu_spec uc_spec_sat;    /* a saturating uint32 add given as a function body */

/* Output types. */
extern const tu_spec uc_spec_u8_u32;    /* uint8 -> uint32 add */
extern const tu_spec uc_spec_u8_u64;    /* uint8 -> uint64 add */
extern const tu_spec uc_spec_i8_min;    /* int8 -> int32 min */
extern const tu_spec uc_spec_i8_max;    /* int8 -> int32 max */
extern const tu_spec uc_spec_i32_float; /* int32 -> float add */
extern const tu_spec uc_spec_float_xor; /* float -> int32 xor */

/* Maps. */
extern const tu_spec uc_spec_square; /* x * x + (i & 7) on int32 */
extern const tu_spec uc_spec_argmin; /* float -> (value, index) struct, running argmin */
extern const tu_spec uc_spec_keep;   /* uint8 -> uint32 keep-flags (x != 0) */

/* The built-in int32 add, as a spec (for segmented cells). */
extern const tu_spec uc_spec_int32_add;

#endif /* CLSCAN_USER_SPECS_H_ */
