/*
 * clscan kernels: the status words of the single-pass scans (single_pass.cl, single_pass_cpu.cl).
 *
 * Tile t has ELEM_WORDS 64-bit words (one per 32 bits of the scan state); each carries
 *   bits 63..34 the launch epoch, bits 33..32 the state (0 none, 1 aggregate, 2 inclusive
 *   prefix), bits 31..0 one 32-bit piece of the value.
 * A word from an older launch has a smaller epoch and reads as "none", so no initialisation
 * kernel runs between launches. Words only grow (atom_max): a state never goes back. A reader
 * accepts a value only when all words show this epoch and the same state. Two publishers of one
 * state (the owner and a fallback) compute the value with the same code, so their bits agree.
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

/* Publishes a value in state `state` for tile t (monotone: never moves a word backwards). */
ALWAYS_INLINE void status_publish(__global ulong *status, ulong t, ulong epoch, ulong state,
                                  elem_t value) {
  const elem_bits b = elem_to_bits(value);
  const ulong head = (epoch << 34) | (state << 32);
  for (uint i = 0; i < ELEM_WORDS; i++) atom_max(&status[t * ELEM_WORDS + i], head | b.u[i]);
}

/* Reads tile t's status: returns its state (0 when absent or torn) and the value. */
ALWAYS_INLINE ulong status_read(__global ulong *status, ulong t, ulong epoch, elem_t *value) {
  elem_bits b = elem_to_bits(IDENTITY);
  ulong state = 0;
  for (uint i = 0; i < ELEM_WORDS; i++) {
    const ulong w = status_load(&status[t * ELEM_WORDS + i]);
    const ulong s = (w >> 34) == epoch ? (w >> 32) & 3ul : 0ul;
    if (i > 0 && s != state) return 0;
    state = s;
    b.u[i] = (uint)w;
  }
  *value = b.e;
  return state;
}
