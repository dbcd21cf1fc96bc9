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
 * the state bits, so it cannot undo that (on NVIDIA a tile's owner stores its own two-word states
 * instead, which keeps the results: see "Two-word states on NVIDIA"). A reader accepts a value
 * only when all words show this
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

#ifndef CLSCAN_NV_PTX
#define CLSCAN_NV_PTX 0
#endif

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
#define status_atomic_xchg(p, v) atomic_xchg((volatile __global uint *)(p), (uint)(v))
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
#define status_atomic_xchg(p, v) atom_xchg((volatile __global ulong *)(p), (ulong)(v))
#endif

/* ---------------------------------------------------------------------------------------------
 * A state as status-word payloads (the low bits of each word, below the state).
 * ------------------------------------------------------------------------------------------- */
#if CLSCAN_SEGMENTS && CLSCAN_TYPE != 64 && VAL_SIZE == 4 && !CLSCAN_STATUS32
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
 * Two-word states on NVIDIA (CLSCAN_STATUS_PAIR).
 *
 * A state of two 64-bit words (8-byte values: int64, uint64, double, 8-byte user states) is
 * accessed in one of three ways on NVIDIA (CLSCAN_NV_PTX); elsewhere, and for every other number of
 * words, as 0 (except that elsewhere 1 can be asked for as a test, see status_publish_own()).
 *   0 (the default): every publisher raises each word by an atomic max; a reader loads both words
 * with one 16-byte load (ld.relaxed.gpu.v2.u64) and checks them one by one. 1: as 0, except that
 * the owner of a tile writes both words of its own publications (its aggregate, then its inclusive
 * prefix) with one 16-byte relaxed store (st.relaxed.gpu.v2.u64) instead of two atomics. 2: the two
 * words are one 16-byte word, only ever accessed as a whole: the owner stores it
 *      (st.relaxed.gpu.b128), readers load it (ld.relaxed.gpu.b128), every other publisher raises
 *      it by compare-and-swap (atom.relaxed.gpu.cas.b128). Needs PTX ISA 8.3 and sm_90 (the
 *      driver's PTX version decides whether it compiles).
 * On the H200 (2026-12-01, `tile_sweep 28 20`, exclusive add of 2^28 int64 / double, ratio to a
 * copy in the same run) 0 ran at 0.877 / 0.854, 1 at 0.728 / 0.736 and 2 at 0.641 / 0.742, all
 * with correct results: the atomics are the fastest of the three, so 0 is the default, and 1 and
 * 2 stay for comparison. Why the stores are slower was not found; the reasoning below about torn
 * reads predicted the opposite.
 *
 * Why these and not a released flag. The look-back's critical path is the latency of one poll,
 * one round trip to L2. A value stored apart from a status word that is released after it
 * (st.release.gpu, or a fence.acq_rel.gpu before the word's atomic) must be read after the word
 * is acquired: a second, dependent round trip per poll, which would cost more than the atomics
 * it saves. Here the value travels inside the words a poll reads in one round trip, as in 0, so
 * nothing else is communicated through them and relaxed accesses suffice: ordering only matters
 * for data outside the words read.
 *
 * What 0 costs, and 1 and 2 remove. In 0 the words of one publication reach L2 as two separate
 * atomics, and a reader whose load falls between them sees one word in the new state and one in
 * the old: a torn state, which reads as none (status_read), so the reader backs off and polls
 * again although the tile's aggregate was there. Between a tile's aggregate and its inclusive
 * prefix the window reopens, on the tile its successors poll. In 1 the owner's publications are
 * one 16-byte store each (one instruction, one request), and in 2 one single-copy-atomic access.
 *
 * Soundness of 1. The PTX memory model makes each aligned 64-bit element of a vector access
 * single-copy atomic, not the vector as a whole; the relaxed store and the atomic max of a word
 * are both strong, of the same scope and size, so morally strong: each word has one coherence
 * order, and a reader checks both words' epoch and state as in 0. A torn read still reads as
 * none, never as a wrong value. What changes is monotonicity: a store does not take the maximum.
 * The owner's two stores to its tile's words come in program order (aggregate, then prefix), and
 * a fallback's aggregate of the same tile (an atomic max) cannot lower a prefix. The only write a
 * store can lower is the inclusive prefix that the next tile's owner publishes for this tile in
 * place (single_pass.cl, "In place", by atomic max), if it comes before the owner's aggregate
 * store; the owner's own prefix store follows that store in program order, so the words return
 * to the same prefix (the same bits, both are the left fold through this tile). Meanwhile a
 * reader finds the aggregate: the fold takes it in its tile's order and gets the same bits
 * (below, "The look-back as a strict left fold"), so a word that moved back costs time, never
 * bits. When the launch ends, every word holds what it would in 0: the owner's prefix store is its
 * last write (a withheld tile's one in-place aggregate, a test case, is published by atomic max),
 * which is what the finishing launch of an in-place scan reads (gate_exclusive()).
 *
 * Soundness of 2. An aligned 16-byte access of type .b128 (ld, st, atom.cas) is one scalar
 * memory operation in the PTX memory model, so single-copy atomic: NVIDIA's libcu++ implements
 * cuda::atomic_ref's 16-byte load and store by exactly these instructions (ld/st.relaxed.b128,
 * sm_70 and newer; compare-and-swap sm_90), and its memory model lists naturally aligned 16-byte
 * loads and stores as atomic. A reader never sees a torn state. The words keep 0's encoding
 * (each half carries the epoch and state), so a launch that reads them as 64-bit words of another
 * layout (a later scan of another state size, in the same temporary buffer) still sees an older
 * epoch: these and those accesses are ordered by the launches, never concurrent. Within a launch
 * every access to a tile's words is 16 bytes wide (mixing in 64-bit accesses would not be morally
 * strong). Monotonicity is argued as in 1: the owner stores, every other publisher takes the
 * maximum by compare-and-swap (status_publish()).
 *
 * Epochs and determinism are those of 0 in both: the words carry the launch's epoch, and every
 * publisher of one state writes the same bits.
 * ------------------------------------------------------------------------------------------- */
/* The mode in effect, a constant expression (STATUS_WORDS is not a preprocessor number); the code
 * of the other modes folds away. STATUS_NV_WORDS: the NVIDIA accesses compile at all. Elsewhere
 * -DCLSCAN_STATUS_PAIR=1 is a test of 1's protocol (status_publish_own()). */
#if CLSCAN_NV_PTX && !CLSCAN_STATUS32
#ifndef CLSCAN_STATUS_PAIR
#define CLSCAN_STATUS_PAIR 0
#endif
#define STATUS_NV_WORDS 1
#define STATUS_PAIR (STATUS_WORDS == 2 ? CLSCAN_STATUS_PAIR : 0)
#else
#ifndef CLSCAN_STATUS_PAIR
#define CLSCAN_STATUS_PAIR 0
#endif
#define STATUS_NV_WORDS 0
#define STATUS_PAIR 0
#endif

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
#if STATUS_NV_WORDS
  if (STATUS_PAIR == 2) {
    asm volatile("{ .reg .b128 t; ld.relaxed.gpu.global.b128 t, [%2]; mov.b128 {%0, %1}, t; }"
                 : "=l"(w[0]), "=l"(w[STATUS_WORDS - 1])
                 : "l"(p)
                 : "memory");
    return;
  }
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

#if STATUS_NV_WORDS
/* Raises a 16-byte status word {w0, w1} (w0 at the lower address) to {n0, n1} by compare-and-swap,
 * unless it already holds this epoch's state `state` or a later one. */
ALWAYS_INLINE void status_pair_raise(__global status_t *p, ulong epoch, ulong state, ulong n0,
                                     ulong n1) {
  ulong w[STATUS_WORDS];
  status_load_words(p, w);
  for (;;) {
    const ulong e0 = w[0] >> STATUS_EPOCH_SHIFT, e1 = w[STATUS_WORDS - 1] >> STATUS_EPOCH_SHIFT;
    if (e0 == epoch && e1 == epoch && ((w[0] >> STATUS_STATE_SHIFT) & 3ul) >= state)
      return;
    ulong o0, o1;
    asm volatile(
        "{ .reg .b128 c, n, o; mov.b128 c, {%2, %3}; mov.b128 n, {%4, %5};"
        " atom.relaxed.gpu.global.cas.b128 o, [%6], c, n; mov.b128 {%0, %1}, o; }"
        : "=l"(o0), "=l"(o1)
        : "l"(w[0]), "l"(w[STATUS_WORDS - 1]), "l"(n0), "l"(n1), "l"(p)
        : "memory");
    if (o0 == w[0] && o1 == w[STATUS_WORDS - 1])
      return;
    w[0] = o0;
    w[STATUS_WORDS - 1] = o1;
  }
}
#endif

/* Publishes a value in state `state` for tile t (monotone: never moves a word backwards). Any
 * work-item may call it: a fallback, or a tile's owner for another tile. */
ALWAYS_INLINE void status_publish(__global status_t *status, ulong t, ulong epoch, ulong state,
                                  elem_t value) {
  ulong p[STATUS_WORDS];
  state_to_payloads(value, p);
  const ulong head = (epoch << STATUS_EPOCH_SHIFT) | (state << STATUS_STATE_SHIFT);
#if STATUS_NV_WORDS
  if (STATUS_PAIR == 2) {
    status_pair_raise(&status[t * STATUS_WORDS], epoch, state, head | p[0],
                      head | p[STATUS_WORDS - 1]);
    return;
  }
#endif
  for (uint i = 0; i < STATUS_WORDS; i++)
    status_atomic_max(&status[t * STATUS_WORDS + i], head | p[i]);
}

/* Publishes tile t's own aggregate, then its inclusive prefix: only tile t's owner calls it, in
 * that order. With CLSCAN_STATUS_PAIR 1 or 2 one 16-byte store (not monotone: see "Two-word states
 * on NVIDIA" for why that is sound), else status_publish(). */
ALWAYS_INLINE void status_publish_own(__global status_t *status, ulong t, ulong epoch, ulong state,
                                      elem_t value) {
#if STATUS_NV_WORDS
  if (STATUS_PAIR) {
    ulong p[STATUS_WORDS];
    state_to_payloads(value, p);
    const ulong head = (epoch << STATUS_EPOCH_SHIFT) | (state << STATUS_STATE_SHIFT);
    const ulong w0 = head | p[0], w1 = head | p[STATUS_WORDS - 1];
    __global status_t *w = &status[t * STATUS_WORDS];
    if (STATUS_PAIR == 2)
      asm volatile(
          "{ .reg .b128 t; mov.b128 t, {%1, %2}; st.relaxed.gpu.global.b128 [%0], t; }" ::"l"(w),
          "l"(w0), "l"(w1)
          : "memory");
    else
      asm volatile("st.relaxed.gpu.global.v2.u64 [%0], {%1, %2};" ::"l"(w), "l"(w0), "l"(w1)
                   : "memory");
    return;
  }
#else
  if (STATUS_WORDS == 2 && CLSCAN_STATUS_PAIR == 1) {
    // Test only (the default elsewhere is 0): the protocol of 1 where no 16-byte store exists, an
    // atomic exchange per word, which is as little monotone and may tear, so that POCL, rusticl
    // and Oclgrind run its look-back, fallback and in-place cases.
    ulong p[STATUS_WORDS];
    state_to_payloads(value, p);
    const ulong head = (epoch << STATUS_EPOCH_SHIFT) | (state << STATUS_STATE_SHIFT);
    for (uint i = 0; i < STATUS_WORDS; i++)
      status_atomic_xchg(&status[t * STATUS_WORDS + i], head | p[i]);
    return;
  }
#endif
  status_publish(status, t, epoch, state, value);
}

/* Reads tile t's status: returns its state (0 when absent or torn) and the value. */
ALWAYS_INLINE ulong status_read(__global status_t *status, ulong t, ulong epoch, elem_t *value) {
  ulong w[STATUS_WORDS];
  status_load_words(&status[t * STATUS_WORDS], w);
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
