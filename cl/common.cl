/*
 * clscan kernels: definitions shared by every program. The host prepends this file to each
 * program's source.
 *
 * Semantic parameters (set by the host; the defaults let the file compile on its own):
 *   CLSCAN_TYPE  element type, the value of the host's clscan_type enum (0 = int32).
 *   CLSCAN_OP    operator, the value of the host's clscan_op enum (0 = add).
 * It defines elem_t (the element type), OP(a, b) (the operator, always applied left to right),
 * IDENTITY (the operator's identity), VEC / vec_t for 16-byte vector input and output, and vec8_t
 * (eight elements) for the CPU kernel.
 *
 * Integer add and mul are computed in an unsigned type of at least 32 bits and truncated, so
 * they wrap modulo 2^bits with no signed-overflow undefined behaviour.
 */

#ifndef CLSCAN_TYPE
#define CLSCAN_TYPE 0
#endif
#ifndef CLSCAN_OP
#define CLSCAN_OP 0
#endif

/* ---------------------------------------------------------------------------------------------
 * Element types: elem_t, its unsigned twin uelem_t, the unsigned type arithmetic is done in
 * (wide_t), reinterpretation AS_ELEM, limits, and the 16-byte vector type.
 * ------------------------------------------------------------------------------------------- */
#if CLSCAN_TYPE == 0
typedef int elem_t;
typedef uint uelem_t;
typedef uint wide_t;
typedef int4 vec_t;
typedef int8 vec8_t;
#define AS_ELEM(x) as_int(x)
#define ELEM_MIN INT_MIN
#define ELEM_MAX INT_MAX
#define VEC 4
#elif CLSCAN_TYPE == 1
typedef uint elem_t;
typedef uint uelem_t;
typedef uint wide_t;
typedef uint4 vec_t;
typedef uint8 vec8_t;
#define AS_ELEM(x) as_uint(x)
#define ELEM_MIN 0u
#define ELEM_MAX UINT_MAX
#define VEC 4
#elif CLSCAN_TYPE == 2
typedef long elem_t;
typedef ulong uelem_t;
typedef ulong wide_t;
typedef long2 vec_t;
typedef long8 vec8_t;
#define AS_ELEM(x) as_long(x)
#define ELEM_MIN LONG_MIN
#define ELEM_MAX LONG_MAX
#define VEC 2
#elif CLSCAN_TYPE == 3
typedef ulong elem_t;
typedef ulong uelem_t;
typedef ulong wide_t;
typedef ulong2 vec_t;
typedef ulong8 vec8_t;
#define AS_ELEM(x) as_ulong(x)
#define ELEM_MIN 0ul
#define ELEM_MAX ULONG_MAX
#define VEC 2
#elif CLSCAN_TYPE == 4
typedef float elem_t;
typedef float4 vec_t;
typedef float8 vec8_t;
#define ELEM_MIN (-INFINITY)
#define ELEM_MAX INFINITY
#define ELEM_IS_FLOAT 1
#define VEC 4
#elif CLSCAN_TYPE == 5
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
typedef double elem_t;
typedef double2 vec_t;
typedef double8 vec8_t;
#define ELEM_MIN (-(double)INFINITY)
#define ELEM_MAX ((double)INFINITY)
#define ELEM_IS_FLOAT 1
#define VEC 2
#elif CLSCAN_TYPE == 6
typedef char elem_t;
typedef uchar uelem_t;
typedef uint wide_t;
typedef char16 vec_t;
typedef char8 vec8_t;
#define AS_ELEM(x) as_char(x)
#define ELEM_MIN CHAR_MIN
#define ELEM_MAX CHAR_MAX
#define VEC 16
#elif CLSCAN_TYPE == 7
typedef uchar elem_t;
typedef uchar uelem_t;
typedef uint wide_t;
typedef uchar16 vec_t;
typedef uchar8 vec8_t;
#define AS_ELEM(x) as_uchar(x)
#define ELEM_MIN ((uchar)0)
#define ELEM_MAX UCHAR_MAX
#define VEC 16
#elif CLSCAN_TYPE == 8
typedef short elem_t;
typedef ushort uelem_t;
typedef uint wide_t;
typedef short8 vec_t;
typedef short8 vec8_t;
#define AS_ELEM(x) as_short(x)
#define ELEM_MIN SHRT_MIN
#define ELEM_MAX SHRT_MAX
#define VEC 8
#elif CLSCAN_TYPE == 9
typedef ushort elem_t;
typedef ushort uelem_t;
typedef uint wide_t;
typedef ushort8 vec_t;
typedef ushort8 vec8_t;
#define AS_ELEM(x) as_ushort(x)
#define ELEM_MIN ((ushort)0)
#define ELEM_MAX USHRT_MAX
#define VEC 8
#else
#error "CLSCAN_TYPE must be a clscan_type value (0..9)"
#endif

#ifndef ELEM_IS_FLOAT
#define ELEM_IS_FLOAT 0
#endif

/* ---------------------------------------------------------------------------------------------
 * Operators and their identities. OP(a, b) is "a then b": the left operand always holds the
 * earlier elements, so non-commutative operators would be combined in order too.
 * ------------------------------------------------------------------------------------------- */
#if CLSCAN_OP == 0
#define IDENTITY ((elem_t)0)
#if ELEM_IS_FLOAT
#define OP(a, b) ((a) + (b))
#else
#define OP(a, b) AS_ELEM((uelem_t)((wide_t)(a) + (wide_t)(b)))
#endif
#elif CLSCAN_OP == 1
#define IDENTITY ((elem_t)1)
#if ELEM_IS_FLOAT
#define OP(a, b) ((a) * (b))
#else
#define OP(a, b) AS_ELEM((uelem_t)((wide_t)(a) * (wide_t)(b)))
#endif
#elif CLSCAN_OP == 2
#define IDENTITY ((elem_t)ELEM_MAX)
#define OP(a, b) (((b) < (a)) ? (b) : (a))
#elif CLSCAN_OP == 3
#define IDENTITY ((elem_t)ELEM_MIN)
#define OP(a, b) (((a) < (b)) ? (b) : (a))
#elif CLSCAN_OP >= 4 && CLSCAN_OP <= 6
#if ELEM_IS_FLOAT
#error "bitwise operators are not defined on floating-point types"
#endif
#if CLSCAN_OP == 4
#define IDENTITY AS_ELEM((uelem_t)~(uelem_t)0)
#define OP(a, b) ((elem_t)((a) & (b)))
#elif CLSCAN_OP == 5
#define IDENTITY ((elem_t)0)
#define OP(a, b) ((elem_t)((a) | (b)))
#else
#define IDENTITY ((elem_t)0)
#define OP(a, b) ((elem_t)((a) ^ (b)))
#endif
#else
#error "CLSCAN_OP must be a clscan_op value (0..6)"
#endif

/* Combines two elements through a function, so that macro arguments are evaluated once. */
inline elem_t combine(elem_t a, elem_t b) { return OP(a, b); }

/* Loads element i of a range of n elements, or the identity past its end. */
inline elem_t load_or_identity(const __global elem_t *p, ulong i, ulong n) {
  return i < n ? p[i] : IDENTITY;
}
