/*
 * clscan kernels: definitions shared by every program. The host prepends this file to each
 * program's source (after the user prelude, when the descriptor has user sources).
 *
 * Semantic parameters (set by the host; the defaults let the file compile on its own). The host
 * passes clscan.h's values as numbers; the kernels compare them with the names defined below.
 *   CLSCAN_TYPE       output and accumulator type: a clscan_type (CLSCAN_INT32 ..., or
 *                     CLSCAN_USER_TYPE).
 *   CLSCAN_IN_TYPE    input type (defaults to CLSCAN_TYPE).
 *   CLSCAN_OP         operator: a clscan_op (CLSCAN_ADD ..., or CLSCAN_USER_OP).
 *   CLSCAN_MAP        1 when the user prelude defines clscan_user_map(x, i).
 *   CLSCAN_SEGMENTS   a clscan_segments: CLSCAN_SEGMENTS_NONE, _HEAD_FLAGS, _KEYS (of
 *                     CLSCAN_KEY_TYPE; CLSCAN_USER_TYPE: the user key type CLSCAN_USER_KEY_NAME),
 *                     _OFFSETS (of CLSCAN_KEY_TYPE), or CLSCAN__SEGMENTS_ROWS, rows of a fixed
 *                     length (batched scans; nothing is read for them).
 *   CLSCAN_KEY_EQUAL  1 when the user prelude defines clscan_user_key_equal(a, b).
 *   CLSCAN_STATE_ALIGN  alignment of the segmented state (the host computes its size from it).
 *   CLSCAN_DEVICE_INIT  1 when kernels read the initial value from a device buffer (see READ_SEED).
 * A user type is named CLSCAN_USER_TYPE_NAME, of CLSCAN_USER_TYPE_SIZE bytes; a user operator is
 * clscan_user_op(a, b CLSCAN_XP) with identity clscan_user_identity(); the host's prelude defines
 * them.
 *
 * Three types come out of it:
 *   in_t     the input buffer's element;
 *   val_t    the output buffer's element and the operator's domain (VAL_OP, VAL_IDENTITY);
 *   elem_t   the scan state: val_t, or for segmented scans a (value, flag) pair whose operator
 *            restarts at flags. The kernels scan elem_t with OP and IDENTITY.
 * load_elem() turns input element i into its elem_t (map, conversion and head flag fused into
 * the load); out_value() turns scan states into the value written out. VEC elements move per
 * 16-byte (or narrower) vector; vec8_t exists for plain scans (CLSCAN_PLAIN), where in_t == val_t
 * == elem_t and no map applies.
 *
 * Integer add and mul are computed in an unsigned type of at least 32 bits and truncated, so
 * they wrap modulo 2^bits with no signed-overflow undefined behaviour.
 */

/* The values of clscan.h's enumerations, by their names there: CLSCAN_TYPE_MAP's types,
 * CLSCAN_OP_MAP's operators, clscan_segments, and src/internal.h's rows (CLSCAN__SEGMENTS_ROWS).
 * tests/test_kernels_compile.c checks them against the headers. */
#define CLSCAN_INT32 0
#define CLSCAN_UINT32 1
#define CLSCAN_INT64 2
#define CLSCAN_UINT64 3
#define CLSCAN_FLOAT 4
#define CLSCAN_DOUBLE 5
#define CLSCAN_INT8 6
#define CLSCAN_UINT8 7
#define CLSCAN_INT16 8
#define CLSCAN_UINT16 9
#define CLSCAN_HALF 10
#define CLSCAN_USER_TYPE 64
#define CLSCAN_ADD 0
#define CLSCAN_MUL 1
#define CLSCAN_MIN 2
#define CLSCAN_MAX 3
#define CLSCAN_AND 4
#define CLSCAN_OR 5
#define CLSCAN_XOR 6
#define CLSCAN_USER_OP 64
#define CLSCAN_SEGMENTS_NONE 0
#define CLSCAN_SEGMENTS_HEAD_FLAGS 1
#define CLSCAN_SEGMENTS_KEYS 2
#define CLSCAN_SEGMENTS_OFFSETS 3
#define CLSCAN__SEGMENTS_ROWS 4

#ifndef CLSCAN_TYPE
#define CLSCAN_TYPE CLSCAN_INT32
#endif
#ifndef CLSCAN_IN_TYPE
#define CLSCAN_IN_TYPE CLSCAN_TYPE
#endif
#ifndef CLSCAN_OP
#define CLSCAN_OP CLSCAN_ADD
#endif
#ifndef CLSCAN_MAP
#define CLSCAN_MAP 0
#endif
#ifndef CLSCAN_SEGMENTS
#define CLSCAN_SEGMENTS CLSCAN_SEGMENTS_NONE
#endif
#ifndef CLSCAN_KEY_TYPE
#define CLSCAN_KEY_TYPE CLSCAN_INT32
#endif

/* Extra arguments of the user sources (clscan_arg): the user prelude defines CLSCAN_XP, the
 * parameters every function on the way from a kernel to clscan_user_map() or clscan_user_op()
 * takes last (after `aux` on the way to the map), and CLSCAN_XA, the matching arguments (each
 * starts with a comma). The operator needs them wherever states are combined: combine(),
 * val_combine() and out_value() take them, and so does every function that calls one of these
 * (the look-back of status.cl and lookback_warp.cl included). Without extra arguments both are
 * empty, and the kernels are what they would be without them. */
#ifndef CLSCAN_XP
#define CLSCAN_XP
#define CLSCAN_XA
#endif
#ifndef CLSCAN_DEVICE_INIT
#define CLSCAN_DEVICE_INIT 0
#endif

/* Helpers are always inlined: it is what the kernels need for speed, and some checkers (Oclgrind)
 * cannot run the alias-scope intrinsics that the ordinary inliner adds for struct arguments. */
#define ALWAYS_INLINE inline __attribute__((always_inline))

#define CLSCAN_CAT_(a, b) a##b
#define CLSCAN_CAT(a, b) CLSCAN_CAT_(a, b)

/* OpenCL C scalar names and sizes of the built-in clscan_type values, for token pasting. */
#define CLSCAN_SCALAR_0 int
#define CLSCAN_SCALAR_1 uint
#define CLSCAN_SCALAR_2 long
#define CLSCAN_SCALAR_3 ulong
#define CLSCAN_SCALAR_4 float
#define CLSCAN_SCALAR_5 double
#define CLSCAN_SCALAR_6 char
#define CLSCAN_SCALAR_7 uchar
#define CLSCAN_SCALAR_8 short
#define CLSCAN_SCALAR_9 ushort
#define CLSCAN_SCALAR_10 ushort /* a half is kept as its bits: see "Half precision" below */
#define CLSCAN_SIZE_0 4
#define CLSCAN_SIZE_1 4
#define CLSCAN_SIZE_2 8
#define CLSCAN_SIZE_3 8
#define CLSCAN_SIZE_4 4
#define CLSCAN_SIZE_5 8
#define CLSCAN_SIZE_6 1
#define CLSCAN_SIZE_7 1
#define CLSCAN_SIZE_8 2
#define CLSCAN_SIZE_9 2
#define CLSCAN_SIZE_10 2
#define CLSCAN_SIZE_64 CLSCAN_USER_TYPE_SIZE

#ifndef CLSCAN_KEY_EQUAL
#define CLSCAN_KEY_EQUAL 0
#endif

#if CLSCAN_TYPE == CLSCAN_DOUBLE || CLSCAN_IN_TYPE == CLSCAN_DOUBLE || \
    (CLSCAN_SEGMENTS == CLSCAN_SEGMENTS_KEYS && CLSCAN_KEY_TYPE == CLSCAN_DOUBLE)
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif

/* ---------------------------------------------------------------------------------------------
 * The value type (output and operator domain): val_t, its unsigned twin uval_t, the unsigned
 * type arithmetic is done in (wide_t), reinterpretation AS_VAL, and limits.
 * ------------------------------------------------------------------------------------------- */
#if CLSCAN_TYPE == CLSCAN_INT32
typedef int val_t;
typedef uint uval_t;
typedef uint wide_t;
#define AS_VAL(x) as_int(x)
#define VAL_MIN INT_MIN
#define VAL_MAX INT_MAX
#elif CLSCAN_TYPE == CLSCAN_UINT32
typedef uint val_t;
typedef uint uval_t;
typedef uint wide_t;
#define AS_VAL(x) as_uint(x)
#define VAL_MIN 0u
#define VAL_MAX UINT_MAX
#elif CLSCAN_TYPE == CLSCAN_INT64
typedef long val_t;
typedef ulong uval_t;
typedef ulong wide_t;
#define AS_VAL(x) as_long(x)
#define VAL_MIN LONG_MIN
#define VAL_MAX LONG_MAX
#elif CLSCAN_TYPE == CLSCAN_UINT64
typedef ulong val_t;
typedef ulong uval_t;
typedef ulong wide_t;
#define AS_VAL(x) as_ulong(x)
#define VAL_MIN 0ul
#define VAL_MAX ULONG_MAX
#elif CLSCAN_TYPE == CLSCAN_FLOAT
typedef float val_t;
#define VAL_MIN (-INFINITY)
#define VAL_MAX INFINITY
#define VAL_IS_FLOAT 1
#elif CLSCAN_TYPE == CLSCAN_DOUBLE
typedef double val_t;
#define VAL_MIN (-(double)INFINITY)
#define VAL_MAX ((double)INFINITY)
#define VAL_IS_FLOAT 1
#elif CLSCAN_TYPE == CLSCAN_INT8
typedef char val_t;
typedef uchar uval_t;
typedef uint wide_t;
#define AS_VAL(x) as_char(x)
#define VAL_MIN CHAR_MIN
#define VAL_MAX CHAR_MAX
#elif CLSCAN_TYPE == CLSCAN_UINT8
typedef uchar val_t;
typedef uchar uval_t;
typedef uint wide_t;
#define AS_VAL(x) as_uchar(x)
#define VAL_MIN ((uchar)0)
#define VAL_MAX UCHAR_MAX
#elif CLSCAN_TYPE == CLSCAN_INT16
typedef short val_t;
typedef ushort uval_t;
typedef uint wide_t;
#define AS_VAL(x) as_short(x)
#define VAL_MIN SHRT_MIN
#define VAL_MAX SHRT_MAX
#elif CLSCAN_TYPE == CLSCAN_UINT16
typedef ushort val_t;
typedef ushort uval_t;
typedef uint wide_t;
#define AS_VAL(x) as_ushort(x)
#define VAL_MIN ((ushort)0)
#define VAL_MAX USHRT_MAX
#elif CLSCAN_TYPE == CLSCAN_HALF
typedef ushort val_t; /* IEEE binary16 bits: -infinity and +infinity below */
#define VAL_MIN ((ushort)0xFC00u)
#define VAL_MAX ((ushort)0x7C00u)
#define VAL_IS_FLOAT 1
#elif CLSCAN_TYPE == CLSCAN_USER_TYPE
typedef CLSCAN_USER_TYPE_NAME val_t;
#else
#error "CLSCAN_TYPE must be a clscan_type value (0..10, or 64 for a user type)"
#endif

#ifndef VAL_IS_FLOAT
#define VAL_IS_FLOAT 0
#endif

/* ---------------------------------------------------------------------------------------------
 * The input type, and the number of elements per vector (VEC) of the tile kernels' I/O: 16 bytes
 * of the wider of the two types, or 1 element where either is a user type.
 * ------------------------------------------------------------------------------------------- */
#if CLSCAN_IN_TYPE == CLSCAN_USER_TYPE
typedef CLSCAN_USER_TYPE_NAME in_t;
#else
typedef CLSCAN_CAT(CLSCAN_SCALAR_, CLSCAN_IN_TYPE) in_t;
#endif

#define IN_SIZE CLSCAN_CAT(CLSCAN_SIZE_, CLSCAN_IN_TYPE)
#define VAL_SIZE CLSCAN_CAT(CLSCAN_SIZE_, CLSCAN_TYPE)
#if CLSCAN_TYPE == CLSCAN_USER_TYPE || CLSCAN_IN_TYPE == CLSCAN_USER_TYPE
#define VEC 1
typedef in_t in_vec_t;
typedef val_t val_vec_t;
#else
/* A literal number, so that it can be pasted into vector type names. */
#if IN_SIZE == 8 || VAL_SIZE == 8
#define VEC 2
#elif IN_SIZE == 4 || VAL_SIZE == 4
#define VEC 4
#elif IN_SIZE == 2 || VAL_SIZE == 2
#define VEC 8
#else
#define VEC 16
#endif
typedef CLSCAN_CAT(CLSCAN_CAT(CLSCAN_SCALAR_, CLSCAN_IN_TYPE), VEC) in_vec_t;
typedef CLSCAN_CAT(CLSCAN_CAT(CLSCAN_SCALAR_, CLSCAN_TYPE), VEC) val_vec_t;
#endif

/* A plain scan: one built-in type in and out, no map, no segments (the CPU kernel's fast path). */
#if CLSCAN_TYPE != CLSCAN_USER_TYPE && CLSCAN_IN_TYPE == CLSCAN_TYPE && !CLSCAN_MAP && \
    !CLSCAN_SEGMENTS
#define CLSCAN_PLAIN 1
typedef CLSCAN_CAT(CLSCAN_CAT(CLSCAN_SCALAR_, CLSCAN_TYPE), 8) vec8_t;
#else
#define CLSCAN_PLAIN 0
#endif

/* ---------------------------------------------------------------------------------------------
 * Half precision, on every device. A half (CLSCAN_HALF, as a value, an input or a key) is kept as
 * its 16 bits and computed in float: vload_half converts it exactly and vstore_half_rte rounds a
 * float to the nearest half, ties to even. Both are core OpenCL C, so no device needs cl_khr_fp16.
 * The sum or product of two halves, rounded to float and then to half, is the correctly rounded
 * half result (float's 24 bits are at least twice half's 11, plus 2: the second rounding cannot
 * differ from a single one), so the bits are those of IEEE binary16 arithmetic, denormals
 * included. User sources see a half as the float it is, and a half result is the float they
 * return, rounded.
 * ------------------------------------------------------------------------------------------- */
ALWAYS_INLINE float half_value(ushort h) {
  return vload_half(0, (const __private half *)&h);
}
ALWAYS_INLINE ushort half_bits(float f) {
  ushort h;
  vstore_half_rte(f, 0, (__private half *)&h);
  return h;
}

/* ---------------------------------------------------------------------------------------------
 * The operator on values and its identity. VAL_OP(a, b) is "a then b": the left operand always
 * holds the earlier elements, so non-commutative operators are combined in order.
 * ------------------------------------------------------------------------------------------- */
#if CLSCAN_OP == CLSCAN_USER_OP && CLSCAN_TYPE == CLSCAN_HALF
#define VAL_IDENTITY clscan_user_identity()
#define VAL_OP(a, b) half_bits(clscan_user_op(half_value(a), half_value(b) CLSCAN_XA))
#elif CLSCAN_OP == CLSCAN_USER_OP
#define VAL_IDENTITY clscan_user_identity()
#define VAL_OP(a, b) clscan_user_op(a, b CLSCAN_XA)
#elif CLSCAN_TYPE == CLSCAN_USER_TYPE
#error "a user type needs a user operator"
#elif CLSCAN_TYPE == CLSCAN_HALF
#if CLSCAN_OP == CLSCAN_ADD
#define VAL_IDENTITY ((val_t)0)
#define VAL_OP(a, b) half_bits(half_value(a) + half_value(b))
#elif CLSCAN_OP == CLSCAN_MUL
#define VAL_IDENTITY ((val_t)0x3C00u)
#define VAL_OP(a, b) half_bits(half_value(a) * half_value(b))
#elif CLSCAN_OP == CLSCAN_MIN
#define VAL_IDENTITY VAL_MAX
#define VAL_OP(a, b) ((half_value(b) < half_value(a)) ? (b) : (a))
#elif CLSCAN_OP == CLSCAN_MAX
#define VAL_IDENTITY VAL_MIN
#define VAL_OP(a, b) ((half_value(a) < half_value(b)) ? (b) : (a))
#else
#error "bitwise operators are not defined on floating-point types"
#endif
#elif CLSCAN_OP == CLSCAN_ADD
#define VAL_IDENTITY ((val_t)0)
#if VAL_IS_FLOAT
#define VAL_OP(a, b) ((a) + (b))
#else
#define VAL_OP(a, b) AS_VAL((uval_t)((wide_t)(a) + (wide_t)(b)))
#endif
#elif CLSCAN_OP == CLSCAN_MUL
#define VAL_IDENTITY ((val_t)1)
#if VAL_IS_FLOAT
#define VAL_OP(a, b) ((a) * (b))
#else
#define VAL_OP(a, b) AS_VAL((uval_t)((wide_t)(a) * (wide_t)(b)))
#endif
#elif CLSCAN_OP == CLSCAN_MIN
#define VAL_IDENTITY ((val_t)VAL_MAX)
#define VAL_OP(a, b) (((b) < (a)) ? (b) : (a))
#elif CLSCAN_OP == CLSCAN_MAX
#define VAL_IDENTITY ((val_t)VAL_MIN)
#define VAL_OP(a, b) (((a) < (b)) ? (b) : (a))
#elif CLSCAN_OP >= CLSCAN_AND && CLSCAN_OP <= CLSCAN_XOR
#if VAL_IS_FLOAT
#error "bitwise operators are not defined on floating-point types"
#endif
#if CLSCAN_OP == CLSCAN_AND
#define VAL_IDENTITY AS_VAL((uval_t)(~(uval_t)0))
#define VAL_OP(a, b) ((val_t)((a) & (b)))
#elif CLSCAN_OP == CLSCAN_OR
#define VAL_IDENTITY ((val_t)0)
#define VAL_OP(a, b) ((val_t)((a) | (b)))
#else
#define VAL_IDENTITY ((val_t)0)
#define VAL_OP(a, b) ((val_t)((a) ^ (b)))
#endif
#else
#error "CLSCAN_OP must be a clscan_op value (0..6, or 64 for a user operator)"
#endif

/* Combines two values through a function, so that macro arguments are evaluated once. */
ALWAYS_INLINE val_t val_combine(val_t a, val_t b CLSCAN_XP) {
  return VAL_OP(a, b);
}

/* The value input element x at index i (from the start of the range) contributes. */
#if CLSCAN_IN_TYPE == CLSCAN_HALF
#define USER_IN(x) half_value(x)
#else
#define USER_IN(x) (x)
#endif
#if CLSCAN_TYPE == CLSCAN_HALF
#define USER_OUT(y) half_bits(y)
#else
#define USER_OUT(y) (y)
#endif
#if CLSCAN_MAP
#define MAP(x, i) USER_OUT(clscan_user_map(USER_IN(x), (i)CLSCAN_XA))
#elif CLSCAN_IN_TYPE == CLSCAN_TYPE
#define MAP(x, i) (x)
#elif CLSCAN_TYPE == CLSCAN_USER_TYPE || CLSCAN_IN_TYPE == CLSCAN_USER_TYPE
#error "converting to or from a user type needs a map"
#elif CLSCAN_IN_TYPE == CLSCAN_HALF
#define MAP(x, i) ((val_t)half_value(x))
#elif CLSCAN_TYPE == CLSCAN_HALF && CLSCAN_IN_TYPE == CLSCAN_DOUBLE
/* A double rounds to half once (through float it could round twice). */
ALWAYS_INLINE ushort half_bits_of_double(double d) {
  ushort h;
  vstore_half_rte(d, 0, (__private half *)&h);
  return h;
}
#define MAP(x, i) half_bits_of_double(x)
#elif CLSCAN_TYPE == CLSCAN_HALF
/* Integers and floats convert exactly to float where they fit in a half: larger ones overflow
 * to infinity either way. */
#define MAP(x, i) half_bits((float)(x))
#else
#define MAP(x, i) ((val_t)(x))
#endif

/*
 * Kernel parameters after the fixed ones: the extra arguments, then with CLSCAN_DEVICE_INIT the
 * initial value's buffer, its element offset and whether this launch takes its seed from there
 * (the host passes 0 where a kernel's seed argument is the identity). READ_SEED(seed), the first
 * statement of each kernel with a seed, replaces the seed argument by the device's value.
 */
#if CLSCAN_DEVICE_INIT
#define CLSCAN_XKP \
  CLSCAN_XP, const __global val_t *clscan_seed_buf, ulong clscan_seed_off, int clscan_seed_use
#define READ_SEED(seed)                          \
  do {                                           \
    if (clscan_seed_use)                         \
      (seed) = clscan_seed_buf[clscan_seed_off]; \
  } while (0)
#else
#define CLSCAN_XKP CLSCAN_XP
#define READ_SEED(seed) ((void)0)
#endif

/* ---------------------------------------------------------------------------------------------
 * The scan state. Unsegmented it is the value. Segmented it is a (value, flag) pair: the flag says
 * that a segment starts within the combined range, and the operator then drops what came before:
 * (v1, f1) op (v2, f2) = (f2 ? v2 : v1 op v2, f1 | f2). That operator is associative whenever the
 * value operator is, and it keeps the order of operands.
 * ------------------------------------------------------------------------------------------- */
#if CLSCAN_SEGMENTS
#ifndef CLSCAN_STATE_ALIGN
#define CLSCAN_STATE_ALIGN 8
#endif
/* Words of explicit tail padding, so that every byte of a state is written (status words and
 * checkers such as Oclgrind read them all). The host passes the state's size. */
#if defined(CLSCAN_STATE_SIZE) && CLSCAN_TYPE != CLSCAN_USER_TYPE && (VAL_SIZE % 4 == 0)
#define SEG_PAD_WORDS ((CLSCAN_STATE_SIZE - VAL_SIZE - 4) / 4)
#elif defined(CLSCAN_STATE_SIZE) && CLSCAN_TYPE == CLSCAN_USER_TYPE && \
    (CLSCAN_USER_TYPE_SIZE % 4 == 0)
#define SEG_PAD_WORDS ((CLSCAN_STATE_SIZE - CLSCAN_USER_TYPE_SIZE - 4) / 4)
#else
#define SEG_PAD_WORDS 0
#endif
/* Bytes of explicit padding between a 1- or 2-byte value and its flag. The layout is the one the
 * implicit padding had; naming the bytes works around Mesa 22.3's rusticl, which miscompiles
 * private arrays of structs with an implicit gap after a sub-word first member (every element
 * reads as the last one written: tests/rusticl/struct_gap.c), and every byte is then written. */
#if CLSCAN_TYPE != CLSCAN_USER_TYPE && VAL_SIZE < 4
#define SEG_GAP_BYTES (4 - VAL_SIZE)
#else
#define SEG_GAP_BYTES 0
#endif
typedef struct __attribute__((aligned(CLSCAN_STATE_ALIGN))) seg_state {
  val_t v;
#if SEG_GAP_BYTES > 0
  uchar gap[SEG_GAP_BYTES];
#endif
  uint f;
#if SEG_PAD_WORDS > 0
  uint pad[SEG_PAD_WORDS];
#endif
} elem_t;

ALWAYS_INLINE elem_t seg_make(val_t v, uint f) {
  elem_t s;
  s.v = v;
  s.f = f;
#if SEG_GAP_BYTES > 0
  for (uint i = 0; i < SEG_GAP_BYTES; i++)
    s.gap[i] = 0;
#endif
#if SEG_PAD_WORDS > 0
  for (uint i = 0; i < SEG_PAD_WORDS; i++)
    s.pad[i] = 0;
#endif
  return s;
}
ALWAYS_INLINE elem_t combine(elem_t a, elem_t b CLSCAN_XP) {
  return seg_make(b.f ? b.v : val_combine(a.v, b.v CLSCAN_XA), a.f | b.f);
}
#define IDENTITY seg_make(VAL_IDENTITY, 0u)
/* The seed of the carry chain: segmented scans apply the initial value at the output instead. */
#define CHAIN_SEED(seed) IDENTITY
#else
typedef val_t elem_t;
#define IDENTITY VAL_IDENTITY
ALWAYS_INLINE elem_t combine(elem_t a, elem_t b CLSCAN_XP) {
  return VAL_OP(a, b);
}
#define CHAIN_SEED(seed) (seed)
#endif
#define OP(a, b) combine(a, b CLSCAN_XA)

/* What a tile keeps per element: the state, or for segmented scans only its value (tile.cl keeps
 * the head flags as bits beside it). */
#if CLSCAN_SEGMENTS
typedef val_t item_t;
#else
typedef elem_t item_t;
#endif

/* ---------------------------------------------------------------------------------------------
 * Narrow lanes (tile.cl's packed path). A plain scan of a 1- or 2-byte type with a built-in
 * operator (CLSCAN_NARROW) can keep its elements packed, NARROW_PER_WORD to a 32-bit word, element
 * k of a word in bits NARROW_BITS * k and up (the device is little-endian, so that a vector of
 * elements is its words), and combine them as lanes: uint values whose low NARROW_BITS bits are
 * the bits the element would have after the same operations on val_t. Add, mul and the bitwise
 * operators need only those low bits of their operands, so their lanes may carry anything above
 * (a word shifted down, unmasked). Min and max compare whole lanes, so theirs are exact: the
 * element's bits zero-extended, the sign bit flipped for signed types (NARROW_BIAS), which turns
 * signed order into unsigned order.
 * ------------------------------------------------------------------------------------------- */
#if CLSCAN_PLAIN && CLSCAN_OP >= CLSCAN_ADD && CLSCAN_OP <= CLSCAN_XOR && \
    CLSCAN_TYPE >= CLSCAN_INT8 && CLSCAN_TYPE <= CLSCAN_UINT16 && defined(__ENDIAN_LITTLE__)
#define CLSCAN_NARROW 1
#else
#define CLSCAN_NARROW 0
#endif

#if CLSCAN_NARROW
#define NARROW_BITS (8 * VAL_SIZE)
#define NARROW_PER_WORD (4 / VAL_SIZE)
#define NARROW_MASK ((1u << NARROW_BITS) - 1u)
/* A 1 in the lowest bit of every lane of a word: x * NARROW_ONES copies lane value x to all. */
#define NARROW_ONES (VAL_SIZE == 1 ? 0x01010101u : 0x00010001u)
/* 1 when lanes must be exact (min and max). */
#define NARROW_EXACT (CLSCAN_OP == CLSCAN_MIN || CLSCAN_OP == CLSCAN_MAX)
#if NARROW_EXACT && (CLSCAN_TYPE == CLSCAN_INT8 || CLSCAN_TYPE == CLSCAN_INT16)
#define NARROW_BIAS (1u << (NARROW_BITS - 1))
#else
#define NARROW_BIAS 0u
#endif

/* The lane of a value, and the value of a lane. */
ALWAYS_INLINE uint narrow_lane(val_t v) {
  return (uint)(uval_t)v ^ NARROW_BIAS;
}
ALWAYS_INLINE val_t narrow_value(uint x) {
  return AS_VAL((uval_t)(x ^ NARROW_BIAS));
}
#define NARROW_IDENTITY narrow_lane(VAL_IDENTITY)

/* Flips the sign bit of every element of a word where lanes are biased (signed min and max): a
 * word's elements become their lanes' low bits, and back. */
ALWAYS_INLINE uint narrow_bias(uint w) {
  return w ^ NARROW_BIAS * NARROW_ONES;
}

/* The lane of element k of a biased word. */
ALWAYS_INLINE uint narrow_get(uint w, uint k) {
#if NARROW_EXACT
  return (w >> (NARROW_BITS * k)) & NARROW_MASK;
#else
  return w >> (NARROW_BITS * k);
#endif
}

/* The operator on lanes. */
ALWAYS_INLINE uint narrow_op(uint a, uint b) {
#if CLSCAN_OP == CLSCAN_ADD
  return a + b;
#elif CLSCAN_OP == CLSCAN_MUL
  return a * b;
#elif CLSCAN_OP == CLSCAN_MIN
  return min(a, b);
#elif CLSCAN_OP == CLSCAN_MAX
  return max(a, b);
#elif CLSCAN_OP == CLSCAN_AND
  return a & b;
#elif CLSCAN_OP == CLSCAN_OR
  return a | b;
#else
  return a ^ b;
#endif
}
#endif /* CLSCAN_NARROW */

/* ---------------------------------------------------------------------------------------------
 * Loads and outputs. aux is the head flags (uchar), keys or offsets of a segmented scan, already
 * offset to the range's start; unsegmented kernels (and rows of a fixed length) receive any
 * buffer there and never read it.
 *
 * Offsets and rows need one number per launch besides their buffer: the number of offsets
 * (n_segments + 1) or the row length. It travels as the launch's global work offset, which the
 * host sets for these scans only and every kernel can read (SEG_PARAM()), so the kernels'
 * argument lists stay the same for every kind of segments. The scan kernels index by group and
 * local ids only, never by global ids, so the offset changes nothing else.
 * ------------------------------------------------------------------------------------------- */
#if CLSCAN_SEGMENTS == CLSCAN_SEGMENTS_KEYS
#if CLSCAN_KEY_TYPE == CLSCAN_USER_TYPE
typedef CLSCAN_USER_KEY_NAME key_t;
#else
typedef CLSCAN_CAT(CLSCAN_SCALAR_, CLSCAN_KEY_TYPE) key_t;
#endif
#define AUX_SIZE sizeof(key_t)
/* Whether two keys are equal: the user's equality, or == (floats as values: -0.0 == 0.0, and a
 * NaN equals nothing). */
#if CLSCAN_KEY_EQUAL && CLSCAN_KEY_TYPE == CLSCAN_HALF
#define KEY_EQUAL(a, b) (clscan_user_key_equal(half_value(a), half_value(b) CLSCAN_XA) != 0)
#elif CLSCAN_KEY_EQUAL
#define KEY_EQUAL(a, b) (clscan_user_key_equal((a), (b)CLSCAN_XA) != 0)
#elif CLSCAN_KEY_TYPE == CLSCAN_USER_TYPE
#error "a user key type needs key_equal_source"
#elif CLSCAN_KEY_TYPE == CLSCAN_HALF
#define KEY_EQUAL(a, b) (half_value(a) == half_value(b))
#else
#define KEY_EQUAL(a, b) ((a) == (b))
#endif
#elif CLSCAN_SEGMENTS == CLSCAN_SEGMENTS_OFFSETS
#if CLSCAN_KEY_TYPE == CLSCAN_INT32 || CLSCAN_KEY_TYPE == CLSCAN_UINT32
typedef uint seg_offset_t; /* int32 offsets are read as uint: valid ones are not negative */
#else
typedef ulong seg_offset_t;
#endif
/* CLSCAN_SEG_OFFSETS_MASK 1 (set by the host for the GPU-shaped single pass): the scan kernels'
 * aux is not the offsets but a head mask that a pre-pass built from them (tile.cl,
 * seg_offsets_mark): uint words, bit p of word w set when element 32 w + p starts a segment. */
#ifndef CLSCAN_SEG_OFFSETS_MASK
#define CLSCAN_SEG_OFFSETS_MASK 0
#endif
#if CLSCAN_SEG_OFFSETS_MASK
#define AUX_SIZE sizeof(uint)
#else
#define AUX_SIZE sizeof(seg_offset_t)
#endif
#else
#define AUX_SIZE 1
#endif

#if CLSCAN_SEGMENTS >= CLSCAN_SEGMENTS_OFFSETS
/* The launch's segment parameter: the number of offsets, or the row length (see above). */
#define SEG_PARAM() ((ulong)get_global_offset(0))
#endif

#if CLSCAN_SEGMENTS == CLSCAN__SEGMENTS_ROWS
/* The position of element i in its row: a 32-bit remainder where the index and the row length
 * fit in 32 bits (a 64-bit one is emulated on GPUs, several times the instructions), else a
 * 64-bit one. */
ALWAYS_INLINE ulong seg_row_pos(ulong i) {
  const ulong len = SEG_PARAM();
  if (((i | len) >> 32) == 0)
    return (uint)i % (uint)len;
  return i % len;
}
#endif

#if CLSCAN_SEGMENTS == CLSCAN_SEGMENTS_OFFSETS
/* Returns the first index q in [a, b) with off[q] >= v, or b (a binary search; off[a .. b) must
 * be sorted for a meaningful answer, and it reads nothing outside them either way). */
ALWAYS_INLINE ulong seg_binary_search(const __global seg_offset_t *off, ulong a, ulong b, ulong v) {
  while (a < b) {
    const ulong mid = a + (b - a) / 2;
    if (off[mid] < v) {
      a = mid + 1;
    } else {
      b = mid;
    }
  }
  return a;
}
#endif

#if CLSCAN_SEGMENTS == CLSCAN_SEGMENTS_OFFSETS && CLSCAN_SEG_OFFSETS_MASK
/* Returns 1 when the head mask (see CLSCAN_SEG_OFFSETS_MASK) marks element i. */
ALWAYS_INLINE uint seg_mask_bit(const __global uchar *aux, ulong i) {
  return (((const __global uint *)aux)[i / 32] >> (i % 32)) & 1u;
}
#elif CLSCAN_SEGMENTS == CLSCAN_SEGMENTS_OFFSETS
/* Returns the first index q in [lo, count) with off[q] >= v, or count: a galloping search from lo
 * (cheap when the answer is near lo), then a binary search. It reads off[lo .. count) only and
 * always ends, also when the offsets are not sorted (the result is then some index). */
ALWAYS_INLINE ulong seg_lower_bound(const __global seg_offset_t *off, ulong lo, ulong count,
                                    ulong v) {
  ulong step = 1;
  while (lo < count && off[lo] < v) {
    const ulong probe = lo + step;
    if (probe >= count || off[probe] >= v) {
      // The answer is in (lo, probe]: a binary search of off[lo + 1 .. probe).
      return seg_binary_search(off, lo + 1, probe < count ? probe : count, v);
    }
    lo = probe + 1;
    step <<= 1;
  }
  return lo;
}

/* Returns 1 when index i is one of the offsets; *at (a lower bound of the answer on entry) receives
 * the first offset index not below i, for the next, larger i. */
ALWAYS_INLINE uint seg_is_offset(const __global seg_offset_t *off, ulong count, ulong i,
                                 ulong *at) {
  *at = seg_lower_bound(off, *at, count, i);
  return *at < count && off[*at] == i;
}
#endif

/* Returns 1 if element i starts a segment (element 0 always does). */
ALWAYS_INLINE uint is_head(const __global uchar *aux CLSCAN_XP, ulong i) {
#if CLSCAN_SEGMENTS == CLSCAN_SEGMENTS_HEAD_FLAGS
  return i == 0 || aux[i] != 0;
#elif CLSCAN_SEGMENTS == CLSCAN_SEGMENTS_KEYS
  const __global key_t *keys = (const __global key_t *)aux;
  return i == 0 || !KEY_EQUAL(keys[i], keys[i - 1]);
#elif CLSCAN_SEGMENTS == CLSCAN_SEGMENTS_OFFSETS && CLSCAN_SEG_OFFSETS_MASK
  return i == 0 || seg_mask_bit(aux, i);
#elif CLSCAN_SEGMENTS == CLSCAN_SEGMENTS_OFFSETS
  ulong at = 0;
  return i == 0 || seg_is_offset((const __global seg_offset_t *)aux, SEG_PARAM(), i, &at);
#elif CLSCAN_SEGMENTS == CLSCAN__SEGMENTS_ROWS
  return seg_row_pos(i) == 0;
#else
  return 0;
#endif
}

/* The index the map sees for element i: from the range's start, or for rows from the row's. */
#if CLSCAN_SEGMENTS == CLSCAN__SEGMENTS_ROWS
#define MAP_INDEX(i) seg_row_pos(i)
#else
#define MAP_INDEX(i) (i)
#endif

/* The scan state of input element x at index i. */
ALWAYS_INLINE elem_t make_elem(in_t x, const __global uchar *aux CLSCAN_XP, ulong i) {
#if CLSCAN_SEGMENTS == CLSCAN__SEGMENTS_ROWS
  // One division gives both the map's index and the head flag.
  const ulong r = MAP_INDEX(i);
  (void)aux;
  return seg_make(MAP(x, r), r == 0);
#elif CLSCAN_SEGMENTS
  return seg_make(MAP(x, MAP_INDEX(i)), is_head(aux CLSCAN_XA, i));
#else
  return MAP(x, i);
#endif
}

/* The scan state of input element x at index i, as make_elem(); for offsets, *at is a lower
 * bound of the first offset index not below i (0 at the start, then what the previous, smaller
 * i left there), which keeps the search short for a work-item's increasing indices. */
ALWAYS_INLINE elem_t make_elem_at(in_t x, const __global uchar *aux CLSCAN_XP, ulong i, ulong *at) {
#if CLSCAN_SEGMENTS == CLSCAN_SEGMENTS_OFFSETS && !CLSCAN_SEG_OFFSETS_MASK
  const uint head = i == 0 || seg_is_offset((const __global seg_offset_t *)aux, SEG_PARAM(), i, at);
  return seg_make(MAP(x, i), head);
#else
  (void)at;
  return make_elem(x, aux CLSCAN_XA, i);
#endif
}

/* Loads element i of a range of n elements, or the identity past its end. */
ALWAYS_INLINE elem_t load_or_identity(const __global in_t *in, const __global uchar *aux CLSCAN_XP,
                                      ulong i, ulong n) {
  return i < n ? make_elem(in[i], aux CLSCAN_XA, i) : IDENTITY;
}

/* Loads element i of an array of states (the upper levels' block totals), or the identity. */
ALWAYS_INLINE elem_t state_or_identity(const __global elem_t *p, ulong i, ulong n) {
  return i < n ? p[i] : IDENTITY;
}

/*
 * The value written for an element x whose exclusive prefix state is excl (incl = excl op x).
 * Unsegmented: the prefix itself (the initial value is already in the chain). Segmented: the
 * initial value op the prefix since the segment's start; an exclusive head gets the initial value.
 */
ALWAYS_INLINE val_t out_value(elem_t excl, elem_t x, elem_t incl, int exclusive,
                              val_t seed CLSCAN_XP) {
#if CLSCAN_SEGMENTS
  if (exclusive && x.f)
    return seed;
  return val_combine(seed, exclusive ? excl.v : incl.v CLSCAN_XA);
#else
  return exclusive ? excl : incl;
#endif
}

/* ---------------------------------------------------------------------------------------------
 * A scan state seen as 32-bit words (for shuffles and status words).
 * ------------------------------------------------------------------------------------------- */
#define ELEM_WORDS ((sizeof(elem_t) + 3) / 4)
typedef union elem_bits {
  elem_t e;
  uint u[ELEM_WORDS];
} elem_bits;

/* Returns a state's words, the bytes past its end zero. */
ALWAYS_INLINE elem_bits elem_to_bits(elem_t x) {
  elem_bits b;
#pragma unroll
  for (uint i = 0; i < ELEM_WORDS; i++)
    b.u[i] = 0;
  b.e = x;
  return b;
}

/* Exclusive sum of v over a work-group of wg work-items in local memory s (wg uints; barriers
 * inside, a Hillis-Steele scan), for any device; *total receives the sum. s is read after the
 * last barrier: the caller's next barrier frees it. */
ALWAYS_INLINE uint local_exclusive_sum(uint v, uint wg, __local uint *s, uint *total) {
  const uint lid = get_local_id(0);
  s[lid] = v;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint d = 1; d < wg; d <<= 1) {
    const uint t = lid >= d ? s[lid - d] : 0u;
    barrier(CLK_LOCAL_MEM_FENCE);
    s[lid] += t;
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  *total = s[wg - 1];
  return s[lid] - v;
}

/* ---------------------------------------------------------------------------------------------
 * Warp primitives on NVIDIA. Where the host sets CLSCAN_NV_PTX (compute capability 7.0 or newer)
 * 32 consecutive work-items of a one-dimensional work-group are a hardware warp; these reach its
 * shuffles and barrier through inline PTX, and all 32 lanes must execute each of them.
 * ------------------------------------------------------------------------------------------- */
#ifndef CLSCAN_NV_PTX
#define CLSCAN_NV_PTX 0
#endif
#if CLSCAN_NV_PTX
ALWAYS_INLINE uint shfl_up_u32(uint x, uint delta) {
  uint r;
  asm volatile("shfl.sync.up.b32 %0, %1, %2, 0, 0xffffffff;" : "=r"(r) : "r"(x), "r"(delta));
  return r;
}
ALWAYS_INLINE uint shfl_down_u32(uint x, uint delta) {
  uint r;
  asm volatile("shfl.sync.down.b32 %0, %1, %2, 0x1f, 0xffffffff;" : "=r"(r) : "r"(x), "r"(delta));
  return r;
}
ALWAYS_INLINE uint shfl_idx_u32(uint x, uint lane) {
  uint r;
  asm volatile("shfl.sync.idx.b32 %0, %1, %2, 0x1f, 0xffffffff;" : "=r"(r) : "r"(x), "r"(lane));
  return r;
}

/* The mask of the lanes whose predicate is non-zero. */
ALWAYS_INLINE uint ballot(int predicate) {
  uint r;
  asm volatile("{ .reg .pred p; setp.ne.s32 p, %1, 0; vote.sync.ballot.b32 %0, p, 0xffffffff; }"
               : "=r"(r)
               : "r"(predicate));
  return r;
}

/* Orders the warp's local memory accesses before the barrier against those after it. */
ALWAYS_INLINE void warp_sync(void) {
  asm volatile("bar.warp.sync -1;" ::: "memory");
}

/* Asks L2 for the bytes [0, bytes) from p, one 128-byte line per work-item and round, without
 * waiting and without registers to hold them: a tile prefetches a later tile's input, so that
 * more bytes are in flight than the resident work-groups' registers could hold. Every address
 * must lie in the buffer. */
ALWAYS_INLINE void group_prefetch_l2(const __global uchar *p, ulong bytes) {
  for (ulong b = get_local_id(0) * 128ul; b < bytes; b += get_local_size(0) * 128ul)
    asm volatile("prefetch.global.L2 [%0];" ::"l"(p + b));
}

/* Exclusive sum of v over a work-group of wg work-items (a multiple of 32): each warp scans its
 * values with shuffles, then every work-item adds the totals of the warps before its own, which
 * go through part (one uint per warp, one barrier; the caller's next barrier frees part). *total
 * receives the work-group's sum. */
ALWAYS_INLINE uint warp_group_exclusive_sum(uint v, uint wg, __local uint *part, uint *total) {
  const uint lid = get_local_id(0), lane = lid & 31u, w = lid >> 5;
  uint x = v;
#pragma unroll
  for (uint d = 1; d < 32; d <<= 1) {
    const uint y = shfl_up_u32(x, d);
    x += lane >= d ? y : 0u;
  }
  if (lane == 31)
    part[w] = x;
  barrier(CLK_LOCAL_MEM_FENCE);
  uint before = 0, all = 0;
  for (uint g = 0; g < wg / 32; g++) {
    const uint s = part[g];
    before += g < w ? s : 0u;
    all += s;
  }
  *total = all;
  return before + x - v;
}
#endif

/* ---------------------------------------------------------------------------------------------
 * Layout checks: the host sizes buffers and kernel arguments from its own view of the types, so a
 * disagreement must stop the build rather than corrupt memory.
 * ------------------------------------------------------------------------------------------- */
#if CLSCAN_TYPE == CLSCAN_USER_TYPE || CLSCAN_IN_TYPE == CLSCAN_USER_TYPE
#ifndef CLSCAN_NO_SIZE_CHECK
typedef char
    clscan_type_size_check[sizeof(CLSCAN_USER_TYPE_NAME) == CLSCAN_USER_TYPE_SIZE ? 1 : -1];
#endif
#endif
#if CLSCAN_SEGMENTS == CLSCAN_SEGMENTS_KEYS && CLSCAN_KEY_TYPE == CLSCAN_USER_TYPE && \
    !defined(CLSCAN_NO_SIZE_CHECK)
typedef char clscan_key_size_check[sizeof(key_t) == CLSCAN_USER_KEY_SIZE ? 1 : -1];
#endif
#if defined(CLSCAN_STATE_SIZE) && !defined(CLSCAN_NO_SIZE_CHECK)
typedef char clscan_state_size_check[sizeof(elem_t) == CLSCAN_STATE_SIZE ? 1 : -1];
#endif
