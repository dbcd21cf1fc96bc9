/*
 * clscan kernels: the status words of the single-pass scans (single_pass.cl, single_pass_cpu.cl).
 *
 * Tile t has STATUS_WORDS 64-bit words; each carries
 *   bits 63..35 the launch epoch, bits 34..33 the state (0 none, 1 aggregate, 2 inclusive
 *   prefix), bit 32 a segmented state's flag where it is packed (see below), bits 31..0 one
 *   32-bit piece of the value.
 * A word from an older launch has a smaller epoch and reads as "none", so no initialisation
 * kernel runs between launches (the host zeroes the words before the epoch outgrows 29 bits).
 * Words only grow (atom_max): a state never goes back, and the flag bit lies below the state
 * bits, so it cannot undo that. A reader accepts a value only when all words show this epoch
 * and the same state. Two publishers of one state (the owner and a fallback) combine the same
 * elements in the same order, so their bits agree.
 *
 * A state takes one word per 32 bits, except a segmented state of a 4-byte built-in value, whose
 * flag travels in bit 32 of its single word: one word per tile halves the look-back's reads and
 * publications, and a torn two-word state would read as "none" and make its reader wait.
 *
 * Needs common.cl first, and 64-bit atomics.
 */
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
#pragma OPENCL EXTENSION cl_khr_int64_extended_atomics : enable

#ifndef CLSCAN_NV_PTX
#define CLSCAN_NV_PTX 0
#endif

#define STATE_AGGREGATE 1ul
#define STATE_PREFIX 2ul
#define STATUS_EPOCH_SHIFT 35
#define STATUS_STATE_SHIFT 33

/* ---------------------------------------------------------------------------------------------
 * A state as status-word payloads (the low 33 bits of each word).
 * ------------------------------------------------------------------------------------------- */
#if CLSCAN_SEGMENTS && CLSCAN_TYPE != 64 && VAL_SIZE == 4
#define STATUS_WORDS 1
typedef union value_word {
  val_t v;
  uint u;
} value_word;
ALWAYS_INLINE void state_to_payloads(elem_t x, ulong p[STATUS_WORDS]) {
  value_word w;
  w.v = x.v;
  p[0] = (ulong)w.u | ((ulong)(x.f != 0) << 32);
}
ALWAYS_INLINE elem_t payloads_to_state(const ulong p[STATUS_WORDS]) {
  value_word w;
  w.u = (uint)p[0];
  return seg_make(w.v, (uint)(p[0] >> 32) & 1u);
}
#else
#define STATUS_WORDS ELEM_WORDS
ALWAYS_INLINE void state_to_payloads(elem_t x, ulong p[STATUS_WORDS]) {
  const elem_bits b = elem_to_bits(x);
#pragma unroll
  for (uint i = 0; i < STATUS_WORDS; i++) p[i] = b.u[i];
}
ALWAYS_INLINE elem_t payloads_to_state(const ulong p[STATUS_WORDS]) {
  elem_bits b = elem_to_bits(IDENTITY);
#pragma unroll
  for (uint i = 0; i < STATUS_WORDS; i++) b.u[i] = (uint)p[i];
  return b.e;
}
#endif

/* ---------------------------------------------------------------------------------------------
 * Reading and publishing.
 * ------------------------------------------------------------------------------------------- */

/* Reads one status word, bypassing caches that could hold a stale copy. */
ALWAYS_INLINE ulong status_load(__global ulong *p) {
#if CLSCAN_NV_PTX
  ulong v;
  asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  return v;
#else
  return atom_add((volatile __global ulong *)p, 0ul);
#endif
}

/* Reads a tile's status words into w. On NVIDIA two words come in one 16-byte load (measured
 * about 1% faster for int64 and double on the H200); the words are still checked one by one. */
ALWAYS_INLINE void status_load_words(__global ulong *p, ulong w[STATUS_WORDS]) {
#if CLSCAN_NV_PTX
  if (STATUS_WORDS == 2) {
    // w[STATUS_WORDS - 1] is w[1] here; written so, the dead branch of one-word states does not
    // index past w.
    asm volatile("ld.relaxed.gpu.global.v2.u64 {%0, %1}, [%2];"
                 : "=l"(w[0]), "=l"(w[STATUS_WORDS - 1])
                 : "l"(p)
                 : "memory");
    return;
  }
#endif
#pragma unroll
  for (uint i = 0; i < STATUS_WORDS; i++) w[i] = status_load(p + i);
}

/* Publishes a value in state `state` for tile t (monotone: never moves a word backwards). */
ALWAYS_INLINE void status_publish(__global ulong *status, ulong t, ulong epoch, ulong state,
                                  elem_t value) {
  ulong p[STATUS_WORDS];
  state_to_payloads(value, p);
  const ulong head = (epoch << STATUS_EPOCH_SHIFT) | (state << STATUS_STATE_SHIFT);
  for (uint i = 0; i < STATUS_WORDS; i++) atom_max(&status[t * STATUS_WORDS + i], head | p[i]);
}

/* Reads tile t's status: returns its state (0 when absent or torn) and the value. */
ALWAYS_INLINE ulong status_read(__global ulong *status, ulong t, ulong epoch, elem_t *value) {
  ulong w[STATUS_WORDS];
  status_load_words(&status[t * STATUS_WORDS], w);
  ulong state = 0;
  for (uint i = 0; i < STATUS_WORDS; i++) {
    const ulong s = (w[i] >> STATUS_EPOCH_SHIFT) == epoch ? (w[i] >> STATUS_STATE_SHIFT) & 3ul : 0ul;
    if (i > 0 && s != state) return 0;
    state = s;
    w[i] &= 0x1fffffffful;
  }
  *value = payloads_to_state(w);
#if CLSCAN_SEGMENTS
  // A segmented aggregate with its flag set contains a segment start: whatever comes before it
  // cannot change it, so it ends a look-back like an inclusive prefix.
  if (state == STATE_AGGREGATE && value->f) state = STATE_PREFIX;
#endif
  return state;
}
