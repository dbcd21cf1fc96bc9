/*
 * clscan tests: scans with output types, user operators and types, maps and segments, run on the
 * device and checked against a host reference (shared by test_user.c and test_property.c).
 *
 * A spec (uc_spec) is a descriptor template plus host twins of its OpenCL C: the map, the
 * operator, and generators of inputs and initial values. A case (uc_case) is one scan of a spec:
 * algorithm, inclusive or exclusive, initial value, segments, size, offsets, entry point. The
 * reference follows clscan.h: y[i] = map(x[i], i) (i counted from the start of the range), or
 * x[i] converted as a C cast; out[i] combines init (or the identity) with y[s..i] (inclusive) or
 * y[s..i-1] (exclusive), earlier elements on the left, where s starts i's segment. Integer and
 * user types are compared exactly; float and double outputs with the tolerance of
 * tools/ref_scan.h (relative to the sum of |y| in the segment, with |init|).
 *
 * Helper names start with uc_ (user cases).
 */
#ifndef CLSCAN_USER_CASE_H_
#define CLSCAN_USER_CASE_H_

#include <stddef.h>
#include <stdint.h>

#include "clscan.h"

/* Largest element (input, output or key) the cases use, in bytes. */
#define UC_MAX_ELEM 16

/* Host twins of a descriptor's OpenCL C, on raw element bytes. */
typedef void (*uc_map_fn)(const void *x, uint64_t i, void *y);
typedef void (*uc_op_fn)(const void *a, const void *b, void *r);
/* Fills n input elements (or one initial value) deterministically from a seed. */
typedef void (*uc_fill_fn)(uint64_t seed, void *data, size_t n);

/* A descriptor template and what the host needs to check it. */
typedef struct uc_spec {
  const char *name;
  clscan_scan_desc desc; /* types, op, sources, identity; the case sets the rest */
  uc_map_fn map;         /* twin of desc.map_source (required with it) */
  uc_op_fn op;           /* twin of desc.op_source (required with CLSCAN_USER_OP) */
  uc_fill_fn fill;       /* inputs; NULL: clscan_ref_fill of the input type */
  uc_fill_fn fill_init;  /* one initial value; NULL: clscan_ref_fill of the output type */
} uc_spec;

/* How the segment boundaries of a case are laid out. */
typedef enum uc_pattern {
  UC_PATTERN_RANDOM = 0, /* random lengths, from 1 to tens of thousands */
  UC_PATTERN_EVERY,      /* every element starts a segment */
  UC_PATTERN_ONE,        /* one segment: no heads, or all keys equal */
  UC_PATTERN_COUNT
} uc_pattern;

/* How a case reaches the library. */
typedef enum uc_path {
  UC_PATH_ONE_SHOT = 0, /* clscan_scan, clscan_segmented_scan or clscan_scan_by_key */
  UC_PATH_PLAN,         /* clscan_plan_enqueue or clscan_plan_enqueue_segmented */
  UC_PATH_PLAN_TIMED,   /* clscan_plan_enqueue_timed or _segmented with its first event */
  UC_PATH_HOST,         /* clscan_scan_host or clscan_segmented_scan_host (offsets ignored) */
  UC_PATH_COUNT
} uc_path;

/* One scan to run and verify. */
typedef struct uc_case {
  const uc_spec *spec;
  clscan_algorithm algorithm;
  int exclusive;
  int has_init;
  _Alignas(16) unsigned char init[UC_MAX_ELEM];
  clscan_segments segments; /* NONE, HEAD_FLAGS or KEYS */
  clscan_type key_type;     /* with KEYS */
  uc_pattern pattern;
  int one_shot_none; /* one-shot segmented paths: pass desc.segments = NONE (allowed) */
  size_t n, in_off, out_off, seg_off;
  int in_place; /* one buffer; the input starts at out_off (same sizes only) */
  uc_path path;
  clscan_plan *plan; /* plan paths: the plan to use, or NULL to create one */
  uint64_t seed;
} uc_case;

/* The affine-map user type shared by the tests: x -> a * x + b over uint modulo 2^32, where f
 * then g is (a_f * a_g, a_g * b_f + b_g), associative and not commutative; identity (1, 0). */
typedef struct uc_affine {
  uint32_t a, b;
} uc_affine;
extern const char uc_affine_source[];    /* "typedef struct { uint a; uint b; } affine;" */
extern const char uc_affine_op_source[]; /* f then g, as a function body */
extern const uc_affine uc_affine_identity;
void uc_affine_op(const void *a, const void *b, void *r);
/* Random maps; a is odd most of the time so that products do not soon become 0. */
void uc_affine_fill(uint64_t seed, void *data, size_t n);
/* The spec: a user input and output type with the user operator. */
extern const uc_spec uc_spec_affine;

/* Host twin of "a + b" on uint32. */
void uc_add_u32(const void *a, const void *b, void *r);

/* Returns the output type of a descriptor (CLSCAN_USER_TYPE for a user output type). */
clscan_type uc_out_type(const clscan_scan_desc *desc);

/* Returns the element sizes of a descriptor's input and output, and of a key type. */
size_t uc_in_size(const clscan_scan_desc *desc);
size_t uc_out_size(const clscan_scan_desc *desc);
size_t uc_key_size(clscan_type key_type);

/* Fills a descriptor from a case (desc->init points into the case). The one-shot segmented
 * paths may pass segments = NONE (see one_shot_none); plans always carry the segments. */
void uc_case_desc(const uc_case *c, clscan_scan_desc *desc, int for_plan);

/* Gives a case an initial value derived from `seed`. */
void uc_case_set_init(uc_case *c, uint64_t seed);

/* Describes a case in one line (everything needed to reproduce it). */
void uc_case_describe(const uc_case *c, char *buf, size_t cap);

/* Runs a case: inputs and segments from its seed, poisoned output, scan, wait, then every result
 * element, the guards around the output range, the input and the segment buffer are checked.
 * Returns 1 on success; else 0 with the reason in msg. */
int uc_run_case(clscan_context *ctx, const uc_case *c, char *msg, size_t cap);

/*
 * The reference: computes the scan of n inputs into out (output-type elements), with heads[i]
 * != 0 where a segment starts (heads may be NULL: one segment). Checks got against it; returns 1
 * if it matches, else 0 with the first mismatch described in detail.
 */
int uc_check(const uc_case *c, const void *in, const unsigned char *heads, const void *got,
             size_t n, char *detail, size_t cap);

#endif /* CLSCAN_USER_CASE_H_ */
