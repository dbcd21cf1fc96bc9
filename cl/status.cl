/*
 * clscan kernels: the status words of the single-pass scans (single_pass.cl, single_pass_cpu.cl).
 *
 * Tile t has STATUS_WORDS words (status_t); each carries the launch epoch in its top bits, then
 * the state (0 none, 1 aggregate, 2 inclusive prefix), then, in 64-bit words, a segmented
 * state's flag where it is packed (see below), and in its low bits one piece of the value:
 *   64-bit words: bits 63..35 epoch, 34..33 state, 32 flag, 31..0 a 32-bit piece;
 *   32-bit words (CLSCAN_STATUS32, for devices without 64-bit atomics): bits 31..18 epoch,
 *   17..16 state, 15..0 a 16-bit piece, so a 4-byte value takes two words.
 * A word from an older launch has a smaller epoch and reads as "none", so no initialisation
 * kernel runs between launches (the host zeroes the words before the epoch outgrows 14 bits,
 * src/temp.c). Words only grow (atomic max): a state never goes back, and the flag bit lies below
 * the state bits, so it cannot undo that. A reader accepts a value only when all words show this
 * epoch and the same state. Two publishers of one state (the owner and a fallback) combine the
 * same elements in the same order, so their bits agree, and a reader that takes some words from
 * one and some from the other still gets those bits.
 *
 * A state takes one word per 32 bits (per 16 bits in 32-bit words), except a segmented state of
 * a 4-byte built-in value in 64-bit words, whose flag travels in bit 32 of its single word: one
 * word per tile halves the look-back's reads and publications, and a torn two-word state would
 * read as "none" and make its reader wait.
 *
 * The look-back combines states, so lookback_take() and lookback_run() take the extra arguments
 * of the user sources (CLSCAN_XP, common.cl) last. Needs common.cl first, and 64-bit atomics
 * unless CLSCAN_STATUS32.
 */
/* The host sets CLSCAN_STATUS32=1 where it wants 32-bit words; otherwise the device decides. */
#ifndef CLSCAN_STATUS32
#if defined(cl_khr_int64_base_atomics) && defined(cl_khr_int64_extended_atomics)
#define CLSCAN_STATUS32 0
#else
#define CLSCAN_STATUS32 1
#endif
#endif
#if !CLSCAN_STATUS32
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
#pragma OPENCL EXTENSION cl_khr_int64_extended_atomics : enable
#endif

/* Test only (the fallback's tests): with CLSCAN_TEST_WITHHOLD=K > 0, every K-th tile (t % K == 1)
 * never publishes its status, so that the tiles after it must reduce it themselves. */
#ifndef CLSCAN_TEST_WITHHOLD
#define CLSCAN_TEST_WITHHOLD 0
#endif

/* Returns 1 if tile t never publishes its status (CLSCAN_TEST_WITHHOLD). */
ALWAYS_INLINE int tile_withheld(ulong t) {
#if CLSCAN_TEST_WITHHOLD
  return t % CLSCAN_TEST_WITHHOLD == 1;
#else
  return 0;
#endif
}

#define STATE_AGGREGATE 1ul
#define STATE_PREFIX 2ul

#if CLSCAN_STATUS32
typedef uint status_t;
#define STATUS_EPOCH_SHIFT 18
#define STATUS_STATE_SHIFT 16
#define STATUS_PAYLOAD_MASK 0xfffful /* a word's piece of the value */
#define GATE_CLOSED (1u << 17)
/* 32-bit atomics (core since OpenCL 1.1). */
#define status_atomic_max(p, v) atomic_max((volatile __global uint *)(p), (uint)(v))
#define status_atomic_load(p) atomic_or((volatile __global uint *)(p), 0u)
#define status_atomic_cas(p, c, v) \
  atomic_cmpxchg((volatile __global uint *)(p), (uint)(c), (uint)(v))
#else
typedef ulong status_t;
#define STATUS_EPOCH_SHIFT 35
#define STATUS_STATE_SHIFT 33
#define STATUS_PAYLOAD_MASK 0x1fffffffful /* a word's piece of the value, and the flag bit */
#define GATE_CLOSED (1ul << 34)
#define status_atomic_max(p, v) atom_max((volatile __global ulong *)(p), (ulong)(v))
#define status_atomic_load(p) atom_add((volatile __global ulong *)(p), 0ul)
#define status_atomic_cas(p, c, v) \
  atom_cmpxchg((volatile __global ulong *)(p), (ulong)(c), (ulong)(v))
#endif

/* ---------------------------------------------------------------------------------------------
 * A state as status-word payloads (the low bits of each word, below the state).
 * ------------------------------------------------------------------------------------------- */
#if CLSCAN_SEGMENTS && CLSCAN_TYPE != CLSCAN_USER_TYPE && VAL_SIZE == 4 && !CLSCAN_STATUS32
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
#elif CLSCAN_STATUS32
/* Two 16-bit pieces per 32-bit word of the state, low piece first. */
#define STATUS_WORDS (2 * ELEM_WORDS)
ALWAYS_INLINE void state_to_payloads(elem_t x, ulong p[STATUS_WORDS]) {
  const elem_bits b = elem_to_bits(x);
#pragma unroll
  for (uint i = 0; i < STATUS_WORDS; i++)
    p[i] = (b.u[i / 2] >> (16 * (i % 2))) & 0xffffu;
}
ALWAYS_INLINE elem_t payloads_to_state(const ulong p[STATUS_WORDS]) {
  elem_bits b = elem_to_bits(IDENTITY);
#pragma unroll
  for (uint i = 0; i < ELEM_WORDS; i++)
    b.u[i] = (uint)p[2 * i] | (uint)p[2 * i + 1] << 16;
  return b.e;
}
#else
#define STATUS_WORDS ELEM_WORDS
ALWAYS_INLINE void state_to_payloads(elem_t x, ulong p[STATUS_WORDS]) {
  const elem_bits b = elem_to_bits(x);
#pragma unroll
  for (uint i = 0; i < STATUS_WORDS; i++)
    p[i] = b.u[i];
}
ALWAYS_INLINE elem_t payloads_to_state(const ulong p[STATUS_WORDS]) {
  elem_bits b = elem_to_bits(IDENTITY);
#pragma unroll
  for (uint i = 0; i < STATUS_WORDS; i++)
    b.u[i] = (uint)p[i];
  return b.e;
}
#endif

/* ---------------------------------------------------------------------------------------------
 * Two-word states on NVIDIA.
 *
 * A state of two 64-bit words (8-byte values: int64, uint64, double, 8-byte user states) is
 * raised word by word by atomic max like any other, and on NVIDIA (CLSCAN_NV_PTX) a reader loads
 * both words with one 16-byte load (ld.relaxed.gpu.v2.u64) and checks them one by one. The two
 * atomics of one publication reach L2 separately, so a reader whose load falls between them sees
 * one word in the new state and one in the old: a torn state, which reads as none (status_read),
 * never as a wrong value; the reader polls again. Two alternatives that avoid the tear were
 * measured slower on the H200 and are not kept, the owner's publications as one 16-byte store
 * (st.relaxed.gpu.v2.u64) and the two words as one 16-byte word (.b128 load, store and
 * compare-and-swap): exclusive add of 2^28 int64 / double (`tile_sweep 28 20`, ratio to a copy)
 * ran at 0.877 / 0.854 with the atomics, 0.728 / 0.736 with the owner's store and 0.641 / 0.742
 * with the 16-byte word.
 *
 * Why these and not a released flag. The look-back's critical path is the latency of one poll,
 * one round trip to L2. A value stored apart from a status word that is released after it
 * (st.release.gpu, or a fence.acq_rel.gpu before the word's atomic) must be read after the word
 * is acquired: a second, dependent round trip per poll, which would cost more than the atomics
 * it saves. Here the value travels inside the words a poll reads in one round trip, so nothing
 * else is communicated through them and relaxed accesses suffice: ordering only matters for data
 * outside the words read.
 * ------------------------------------------------------------------------------------------- */

/* ---------------------------------------------------------------------------------------------
 * Reading and publishing.
 * ------------------------------------------------------------------------------------------- */

/* Reads one status word, bypassing caches that could hold a stale copy. */
ALWAYS_INLINE ulong status_load(__global status_t *p) {
#if CLSCAN_NV_PTX && !CLSCAN_STATUS32
  ulong v;
  asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  return v;
#else
  return status_atomic_load(p);
#endif
}

/* Reads a tile's status words into w. On NVIDIA two words come in one 16-byte load (measured
 * about 1% faster for int64 and double on the H200); the words are still checked one by one. */
ALWAYS_INLINE void status_load_words(__global status_t *p, ulong w[STATUS_WORDS]) {
#if CLSCAN_NV_PTX && !CLSCAN_STATUS32
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
  for (uint i = 0; i < STATUS_WORDS; i++)
    w[i] = status_load(p + i);
}

/* Publishes a value in state `state` for tile t (monotone: never moves a word backwards). Any
 * work-item may call it: a tile's owner, for its own tile or another, or a fallback. */
ALWAYS_INLINE void status_publish(__global status_t *status, ulong t, ulong epoch, ulong state,
                                  elem_t value) {
  ulong p[STATUS_WORDS];
  state_to_payloads(value, p);
  const ulong head = (epoch << STATUS_EPOCH_SHIFT) | (state << STATUS_STATE_SHIFT);
  for (uint i = 0; i < STATUS_WORDS; i++)
    status_atomic_max(&status[t * STATUS_WORDS + i], head | p[i]);
}

/* Decodes status words read by status_load_words: returns their state (0 when absent or torn)
 * and the value. */
ALWAYS_INLINE ulong status_decode(ulong w[STATUS_WORDS], ulong epoch, elem_t *value) {
  ulong state = 0;
  for (uint i = 0; i < STATUS_WORDS; i++) {
    const ulong s =
        (w[i] >> STATUS_EPOCH_SHIFT) == epoch ? (w[i] >> STATUS_STATE_SHIFT) & 3ul : 0ul;
    if (i > 0 && s != state)
      return 0;
    state = s;
    w[i] &= STATUS_PAYLOAD_MASK;
  }
  *value = payloads_to_state(w);
#if CLSCAN_SEGMENTS
  // A segmented aggregate with its flag set contains a segment start: whatever comes before it
  // cannot change it, so it ends a look-back like an inclusive prefix.
  if (state == STATE_AGGREGATE && value->f)
    state = STATE_PREFIX;
#endif
  return state;
}

/* Reads tile t's status: returns its state (0 when absent or torn) and the value. */
ALWAYS_INLINE ulong status_read(__global status_t *status, ulong t, ulong epoch, elem_t *value) {
  ulong w[STATUS_WORDS];
  status_load_words(&status[t * STATUS_WORDS], w);
  return status_decode(w, epoch, value);
}

/* ---------------------------------------------------------------------------------------------
 * The look-back as a strict left fold.
 *
 * A tile's exclusive prefix is the left fold of the aggregates before it, from the chain's seed:
 * ((seed op a_0) op a_1) op ... op a_{t-1}, and its published inclusive prefix is that fold op a_t
 * (one combination). By induction every published inclusive prefix P_j is the left fold through
 * tile j, so a look-back that meets P_j and folds the aggregates j + 1 .. t - 1 onto it, in tile
 * order, gets the same bits whichever j it met: the result depends on the aggregates only, and
 * each aggregate is combined in its tile's fixed order (by its owner or by a fallback alike).
 * A segmented aggregate whose flag is set reads as an inclusive prefix (status_read): folding
 * onto it gives the same bits as folding it onto the fold before it, since its flag drops what
 * came before.
 *
 * The search walks back to the nearest inclusive prefix; the fold then walks forward over the
 * tiles the search passed, rereading those it did not keep (status words only move forward: a
 * tile that meanwhile became an inclusive prefix is taken as the fold itself, an even better
 * start).
 * ------------------------------------------------------------------------------------------- */
#define LOOKBACK_DONE 0
#define LOOKBACK_FALLBACK 1
/* Tiles whose aggregates the serial walker keeps from its search for its fold. */
#define LOOKBACK_KEEP 32

/* Pauses between polls: CLSCAN_BACKOFF_NS, doubling up to CLSCAN_BACKOFF_DOUBLINGS times. */
#ifndef CLSCAN_BACKOFF_NS
#define CLSCAN_BACKOFF_NS 32
#endif
#ifndef CLSCAN_BACKOFF_DOUBLINGS
#define CLSCAN_BACKOFF_DOUBLINGS 5
#endif
ALWAYS_INLINE void backoff(uint round) {
#if CLSCAN_NV_PTX
  const uint ns = (uint)CLSCAN_BACKOFF_NS << min(round, (uint)CLSCAN_BACKOFF_DOUBLINGS);
  asm volatile("nanosleep.u32 %0;" ::"r"(ns));
#endif
}

/* Polls tile t up to `spins` times; returns its state (0: it stayed silent or torn). */
ALWAYS_INLINE ulong status_poll(__global status_t *status, ulong t, ulong epoch, uint spins,
                                elem_t *value) {
  for (uint spin = 0; spin < spins; spin++) {
    const ulong state = status_read(status, t, epoch, value);
    if (state)
      return state;
    backoff(spin);
  }
  return 0;
}

/* The state of a serial look-back (one work-item walks; it lives in local memory). */
typedef struct lookback_state {
  long top;    /* the last tile folded: the caller's tile - 1 */
  long next;   /* searching: the next tile to read, going back; folding: the next to fold */
  int folding; /* 0 while searching for the nearest inclusive prefix, 1 while folding */
  elem_t acc;  /* folding: the fold of every tile before next */
  elem_t kept[LOOKBACK_KEEP]; /* kept[i]: the aggregate of tile top - i, seen by the search */
} lookback_state;

/* Starts the look-back of tile t (tile 0's walk reaches the seed at once). */
ALWAYS_INLINE void lookback_begin(__local lookback_state *lb, ulong t) {
  lb->top = (long)t - 1;
  lb->next = (long)t - 1;
  lb->folding = 0;
}

/* Takes tile lb->next's aggregate v (read, or reduced by a fallback) and moves on. */
ALWAYS_INLINE void lookback_take(__local lookback_state *lb, elem_t v CLSCAN_XP) {
  if (lb->folding) {
    lb->acc = combine(lb->acc, v CLSCAN_XA);
    lb->next++;
  } else {
    if (lb->top - lb->next < LOOKBACK_KEEP)
      lb->kept[lb->top - lb->next] = v;
    lb->next--;
  }
}

/*
 * Runs the look-back until it is done (lb->acc is the exclusive prefix) or until tile lb->next
 * stays silent for `spins` polls (LOOKBACK_FALLBACK: the caller reduces that tile and passes its
 * aggregate to lookback_take(), or calls again). seed is the chain's seed.
 */
ALWAYS_INLINE int lookback_run(__local lookback_state *lb, __global status_t *status, ulong epoch,
                               uint spins, elem_t seed CLSCAN_XP) {
  for (;;) {
    if (!lb->folding && lb->next < 0) {
      // The search reached the start: the fold starts from the seed.
      lb->acc = seed;
      lb->folding = 1;
      lb->next = 0;
    }
    if (lb->folding && lb->next > lb->top)
      return LOOKBACK_DONE;
    elem_t v;
    ulong state = STATE_AGGREGATE;
    if (lb->folding && lb->top - lb->next < LOOKBACK_KEEP) {
      v = lb->kept[lb->top - lb->next];
    } else {
      state = status_poll(status, (ulong)lb->next, epoch, spins, &v);
      if (!state)
        return LOOKBACK_FALLBACK;
    }
    if (state == STATE_PREFIX) {
      // The nearest inclusive prefix (searching), or a better start (folding): fold from it.
      lb->acc = v;
      lb->folding = 1;
      lb->next++;
    } else {
      lookback_take(lb, v CLSCAN_XA);
    }
  }
}

/* ---------------------------------------------------------------------------------------------
 * In-place gates (see single_pass.cl, "In place"). Tile t's gate is one word after all the status
 * words: the epoch in the status words' epoch bits (a word of an older launch reads as open and
 * unvisited), "closed" in the bit above the state's (the owner is done with its look-back), bit 0
 * "visited" (a fallback read the tile's input). Both bits are set by compare-and-swap, which fails
 * only when another work-item changed the word: nobody waits for anybody. Only the order of the two
 * bits in the word's modification order matters, which even relaxed atomics define.
 * ------------------------------------------------------------------------------------------- */
#define GATE_VISITED 1ul

/* Tile t's gate, for a range of `tiles` tiles. */
ALWAYS_INLINE __global status_t *gate_word(__global status_t *status, ulong tiles, ulong t) {
  return &status[tiles * STATUS_WORDS + t];
}

/* Sets `bit` in tile t's gate unless it is closed; returns the gate as it was (this epoch's). */
ALWAYS_INLINE ulong gate_mark(__global status_t *status, ulong tiles, ulong t, ulong epoch,
                              ulong bit) {
  __global status_t *p = gate_word(status, tiles, t);
  ulong g = status_atomic_load(p);
  for (;;) {
    const ulong cur = (g >> STATUS_EPOCH_SHIFT) == epoch ? g : epoch << STATUS_EPOCH_SHIFT;
    if (cur & GATE_CLOSED)
      return cur;
    const ulong old = status_atomic_cas(p, g, cur | bit);
    if (old == g)
      return cur;
    g = old;
  }
}

/* A fallback marks tile t visited before it reads the tile's input: returns 0 if the owner has
 * closed the gate (its publications are then complete, and it may be writing the tile). */
ALWAYS_INLINE int gate_enter(__global status_t *status, ulong tiles, ulong t, ulong epoch) {
  return !(gate_mark(status, tiles, t, epoch, GATE_VISITED) & GATE_CLOSED);
}

/* The owner closes tile t's gate before any store: returns 1 if a fallback visited the tile (the
 * owner then writes nothing, and the finishing launch writes the tile). */
ALWAYS_INLINE int gate_close(__global status_t *status, ulong tiles, ulong t, ulong epoch) {
  return (gate_mark(status, tiles, t, epoch, GATE_CLOSED) & GATE_VISITED) != 0;
}

/* The finishing launch: returns 1 if tile t's owner left its output to it. */
ALWAYS_INLINE int gate_deferred(__global status_t *status, ulong tiles, ulong t, ulong epoch) {
  const ulong g = status_atomic_load(gate_word(status, tiles, t));
  return (g >> STATUS_EPOCH_SHIFT) == epoch && (g & GATE_CLOSED) && (g & GATE_VISITED);
}

/* The exclusive prefix of a deferred tile t: its owner published it as tile t - 1's inclusive
 * prefix (the same bits tile t - 1's owner publishes: both are the left fold through t - 1). */
ALWAYS_INLINE elem_t gate_exclusive(__global status_t *status, ulong t, ulong epoch, elem_t seed) {
  elem_t v = seed;
  if (t > 0)
    status_read(status, t - 1, epoch, &v);
  return v;
}
