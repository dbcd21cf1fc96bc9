/*
 * clscan kernels: what every selection program shares (select.cl, select_cpu.cl,
 * select_multi.cl): the selection's switches, the flag of an element, the output helpers, and the
 * count state that the single pass carries through status.cl's status words and look-back.
 *
 * The host's prelude (select_api.c) defines the switches:
 *   CLSCAN_SELECT_OP     0 select, 1 partition, 2 unique, 3 run-length encode (clscan_select_op).
 *   CLSCAN_SELECT_PRED   1: clscan_user_pred(x, i CLSCAN_XP) selects (else the uint8 flags do).
 *   CLSCAN_SELECT_EQUAL  1: clscan_user_equal(a, b CLSCAN_XP) compares (else ==); both see the
 *                        extra arguments, as the map does.
 *   CLSCAN_COUNT_SIZE    4 or 8: bytes of the count and of run lengths.
 *   CLSCAN_SELECT_REVERSE  1: partition into one buffer writes the rejected elements from the
 *                        end of `out` backwards (reverse_rejected), with no count pre-pass.
 * common.cl comes first: in_t, val_t and MAP are the input, the mapped element and the map.
 *
 * The count state. status.cl works on a state named elem_t with combine() and IDENTITY (the
 * scan's, from common.cl). Here they are renamed to the selection's count state, so that the
 * scan's status words, epochs and strictly ordered look-back serve unchanged:
 * - select, partition, unique: the number of selected elements, combined by addition;
 * - run-length encoding: (c, p), the number of run heads and the index of the last one, combined
 *   as (c1, p1) + (c2, p2) = (c1 + c2, c2 ? p2 : p1), which is associative. A tile's exclusive
 *   prefix then says how many runs started before it and where the run entering it started.
 * Both are integers, so every fold of them gives the same bits in any order. Their fields have
 * the count's size (len_t): with 4-byte counts n < 2^32 (the host checks it), so a count, or an
 * index, fits, and the state takes half the status words (one per tile, two for run-length
 * encoding; a one-word state is never torn).
 */

#ifndef CLSCAN_SELECT_OP
#define CLSCAN_SELECT_OP 0
#endif
#ifndef CLSCAN_SELECT_PRED
#define CLSCAN_SELECT_PRED 0
#endif
#ifndef CLSCAN_SELECT_EQUAL
#define CLSCAN_SELECT_EQUAL 0
#endif
#ifndef CLSCAN_COUNT_SIZE
#define CLSCAN_COUNT_SIZE 8
#endif
#ifndef CLSCAN_SELECT_REVERSE
#define CLSCAN_SELECT_REVERSE 0
#endif

#define SEL_PARTITION (CLSCAN_SELECT_OP == 1)
/* Partition's rejected elements from the end of `out` backwards: the r-th rejected element (r
 * from 0, in input order) goes to out[n - 1 - r]. */
#define SEL_REVERSE (SEL_PARTITION && CLSCAN_SELECT_REVERSE)
#define SEL_RLE (CLSCAN_SELECT_OP == 3)
/* UNIQUE and RUN_LENGTH_ENCODE select the heads of runs of equal elements. */
#define SEL_RUNS (CLSCAN_SELECT_OP >= 2)

#if CLSCAN_COUNT_SIZE == 4
typedef uint len_t;
#else
typedef ulong len_t;
#endif

/* ---------------------------------------------------------------------------------------------
 * Flags and values.
 * ------------------------------------------------------------------------------------------- */

/* A mapped element as the user's predicate and equality see it (a half as its float). */
#if CLSCAN_TYPE == CLSCAN_HALF
#define USER_IN_VAL(v) half_value(v)
#else
#define USER_IN_VAL(v) (v)
#endif

#if SEL_RUNS
/* Returns 1 if two mapped elements are equal (built-in ==: -0.0 equals 0.0, NaN nothing). */
ALWAYS_INLINE int sel_equal(val_t a, val_t b CLSCAN_XP) {
#if CLSCAN_SELECT_EQUAL
  return clscan_user_equal(USER_IN_VAL(a), USER_IN_VAL(b) CLSCAN_XA) != 0;
#elif CLSCAN_TYPE == CLSCAN_HALF
  return half_value(a) == half_value(b);
#else
  return a == b;
#endif
}
#endif

/* The element written for input element i of the range (after the map). */
ALWAYS_INLINE val_t sel_value(const __global in_t *in, ulong i CLSCAN_XP) {
  return MAP(in[i], i);
}

/* Returns 1 if element i of the range is selected: its flag, its predicate, or (UNIQUE and
 * RUN_LENGTH_ENCODE) whether it starts a run. Reads element i - 1 too for runs. */
ALWAYS_INLINE uint sel_flag(const __global in_t *in, const __global uchar *flags,
                            ulong i CLSCAN_XP) {
#if SEL_RUNS
  return i == 0 || !sel_equal(sel_value(in, i - 1 CLSCAN_XA), sel_value(in, i CLSCAN_XA) CLSCAN_XA);
#elif CLSCAN_SELECT_PRED
  return clscan_user_pred(USER_IN_VAL(sel_value(in, i CLSCAN_XA)), i CLSCAN_XA) != 0;
#else
  return flags[i] != 0;
#endif
}

/* Writes the count (count_size bytes at `count`). */
ALWAYS_INLINE void sel_write_count(__global uchar *count, ulong c) {
#if CLSCAN_COUNT_SIZE == 4
  *(__global uint *)count = (uint)c;
#else
  *(__global ulong *)count = c;
#endif
}

/* Every program's empty selection (n == 0): the count is zero and nothing else is written. */
__kernel void select_empty(__global uchar *count, ulong count_byte_off) {
  if (get_global_id(0) == 0)
    sel_write_count(count + count_byte_off, 0);
}

/* ---------------------------------------------------------------------------------------------
 * Partition's per-tile counts.
 *
 * The count pre-pass stores one ulong per tile after the status words. A later single pass (a
 * scan's, or a selection's with more tiles) may take the same bytes for status words without
 * zeroing them, so they must read as words of an older epoch (status.cl): a count is at most a
 * tile (2^24 elements), below 2^35, as a 64-bit word; with 32-bit words (CLSCAN_STATUS32, whose
 * epoch starts at bit 18) it is stored as its low 16 bits in the low word and the rest in the high
 * word, each below 2^16. The macros expand where they are used, after status.cl has defined
 * CLSCAN_STATUS32; with 64-bit words they are the identity.
 * ------------------------------------------------------------------------------------------- */
#define SEL_COUNT_TO_WORD(c) (CLSCAN_STATUS32 ? ((c)&0xfffful) | ((c) >> 16 << 32) : (c))
#define SEL_WORD_TO_COUNT(w) (CLSCAN_STATUS32 ? ((w)&0xfffful) | ((w) >> 32 << 16) : (w))

/* ---------------------------------------------------------------------------------------------
 * The count state, under status.cl's names.
 * ------------------------------------------------------------------------------------------- */
#if SEL_RLE
typedef struct cnt_state {
  len_t c; /* run heads */
  len_t p; /* index of the last head (meaningful when c > 0) */
} cnt_t;
ALWAYS_INLINE cnt_t cnt_make(ulong c, ulong p) {
  cnt_t s;
  s.c = (len_t)c;
  s.p = (len_t)p;
  return s;
}
ALWAYS_INLINE cnt_t cnt_combine(cnt_t a, cnt_t b CLSCAN_XP) {
  return cnt_make(a.c + b.c, b.c ? b.p : a.p);
}
#define CNT_IDENTITY cnt_make(0, 0)
#define CNT_COUNT(s) ((s).c)
#else
typedef len_t cnt_t;
ALWAYS_INLINE cnt_t cnt_make(ulong c, ulong p) {
  return (cnt_t)c;
}
ALWAYS_INLINE cnt_t cnt_combine(cnt_t a, cnt_t b CLSCAN_XP) {
  return a + b;
}
#define CNT_IDENTITY ((cnt_t)0)
#define CNT_COUNT(s) (s)
#endif

#define CNT_WORDS ((sizeof(cnt_t) + 3) / 4)
typedef union cnt_bits {
  cnt_t e;
  uint u[CNT_WORDS];
} cnt_bits;

ALWAYS_INLINE cnt_bits cnt_to_bits(cnt_t x) {
  cnt_bits b;
  b.e = x;
  return b;
}

/* status.cl's names for the state (common.cl gave them to the scan's value). status.cl passes
 * the extra arguments of the user sources (CLSCAN_XP) to combine(); cnt_combine() ignores them. */
#undef ELEM_WORDS
#undef IDENTITY
#undef OP
#define elem_t cnt_t
#define elem_bits cnt_bits
#define elem_to_bits cnt_to_bits
#define ELEM_WORDS CNT_WORDS
#define combine cnt_combine
#define IDENTITY CNT_IDENTITY
/* Counts are exact: lookback_warp.cl reduces its window as a tree (and compiles no strict fold,
 * whose shuffles come from tile.cl, which the selections do not include). */
#undef CLSCAN_LOOKBACK_TREE
#define CLSCAN_LOOKBACK_TREE 1
