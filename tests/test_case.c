/*
 * clscan tests: one case, run on host arrays or device buffers and checked against the host
 * reference (see test_util.h).
 *
 * A case's descriptor comes from its spec, or is the built-in scan of its type and operator. Its
 * inputs and initial value come from the spec's generators or clscan_ref_fill; its segments from
 * its seed and pattern. The output range is surrounded by TU_GUARD poisoned elements, the input
 * range by TU_INPUT_FILL bytes; after the scan every result element is checked with
 * clscan_ref_check_twins, and the guards, the input and the flags or keys must be unchanged.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ref_scan.h"
#include "test_util.h"

/* ============================================================================================== */
/* Descriptors and descriptions                                                                   */
/* ============================================================================================== */

static const char *const path_names[TU_PATH_COUNT] = {"one-shot", "plan", "plan-timed",
                                                      "scan_host"};
static const char *const pattern_names[TU_PATTERN_COUNT] = {"random-lengths", "every-element",
                                                            "one-segment"};

/* Fills a descriptor from a case: one-shot paths pass segments = NONE when one_shot_none. */
static void case_desc(const tu_case *c, clscan_scan_desc *desc, int for_plan) {
  if (c->spec) {
    *desc = c->spec->desc;
  } else {
    memset(desc, 0, sizeof *desc);
    desc->type = c->type;
    desc->op = c->op;
  }
  desc->exclusive = c->exclusive;
  desc->init = c->has_init ? c->init : NULL;
  desc->algorithm = c->algorithm;
  desc->segments = c->segments;
  desc->key_type = c->segments == CLSCAN_SEGMENTS_KEYS ? c->key_type : CLSCAN_INT32;
  if (!for_plan && c->one_shot_none)
    desc->segments = CLSCAN_SEGMENTS_NONE;
}

void tu_case_desc(const tu_case *c, clscan_scan_desc *desc) {
  case_desc(c, desc, 1);
}

void tu_case_set_init(tu_case *c, uint64_t seed) {
  clscan_scan_desc d;
  tu_case_desc(c, &d);
  memset(c->init, 0, sizeof c->init);
  if (c->spec && c->spec->fill_init)
    c->spec->fill_init(seed, c->init, 1);
  else
    clscan_ref_fill(clscan_ref_out_type(&d), d.op, seed, c->init, 1);
  c->has_init = 1;
}

/* Describes a case's segments. */
static void describe_segments(const tu_case *c, char *buf, size_t cap) {
  const char *none =
      c->one_shot_none && c->path == TU_PATH_ONE_SHOT ? " (one-shot desc.segments NONE)" : "";
  if (c->segments == CLSCAN_SEGMENTS_HEAD_FLAGS)
    snprintf(buf, cap, " head-flags %s seg_off=%zu%s", pattern_names[c->pattern], c->seg_off, none);
  else if (c->segments == CLSCAN_SEGMENTS_KEYS)
    snprintf(buf, cap, " keys-%s %s seg_off=%zu%s", clscan_type_name(c->key_type),
             pattern_names[c->pattern], c->seg_off, none);
  else
    buf[0] = '\0';
}

void tu_case_describe(const tu_case *c, char *buf, size_t cap) {
  char init[128] = "none", seg[128], name[64];
  clscan_scan_desc d;
  tu_case_desc(c, &d);
  if (c->has_init)
    clscan_ref_format_out(&d, c->init, init, sizeof init);
  describe_segments(c, seg, sizeof seg);
  if (c->spec)
    snprintf(name, sizeof name, "%s", c->spec->name);
  else
    snprintf(name, sizeof name, "%s %s", clscan_type_name(c->type), clscan_op_name(c->op));
  snprintf(buf, cap,
           "%s %s %s init=%s%s n=%zu in_off=%zu out_off=%zu%s via %s%s data_seed=%" PRIu64
           " (base seed %" PRIu64 ")",
           name, clscan_algorithm_name(c->algorithm), c->exclusive ? "exclusive" : "inclusive",
           init, seg, c->n, c->in_off, c->out_off, c->in_place ? " in-place" : "",
           path_names[c->path], c->queue ? " (own queue)" : "", c->seed, tu_seed());
}

/* Formats a failure: the case, then the reason. Always returns 0. */
#if defined(__GNUC__)
static int fail(const tu_case *c, char *msg, size_t cap, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
#endif
static int fail(const tu_case *c, char *msg, size_t cap, const char *fmt, ...) {
  char what[512], desc[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  tu_case_describe(c, desc, sizeof desc);
  snprintf(msg, cap, "%s: %s", desc, what);
  return 0;
}

/* ============================================================================================== */
/* Segments                                                                                       */
/* ============================================================================================== */

/* splitmix64 step. */
static uint64_t next_random(uint64_t *s) {
  uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/* Draws a segment length: many short ones, some of a few tiles, a few very long ones. */
static size_t draw_length(uint64_t *s) {
  uint64_t r = next_random(s), bucket = r % 100, v = r >> 8;
  if (bucket < 40)
    return 1 + (size_t)(v % 8);
  if (bucket < 70)
    return 9 + (size_t)(v % 292);
  if (bucket < 90)
    return 301 + (size_t)(v % 4700);
  return 5001 + (size_t)(v % 65000);
}

/* Lays out where segments start, by pattern (heads[0] is always set). */
static void draw_heads(const tu_case *c, uint64_t *s, unsigned char *heads, size_t n) {
  memset(heads, 0, n);
  if (c->pattern == TU_PATTERN_EVERY) {
    memset(heads, 1, n);
  } else if (c->pattern == TU_PATTERN_RANDOM) {
    for (size_t i = 0; i < n; i += draw_length(s))
      heads[i] = 1;
  }
  if (n)
    heads[0] = 1;
}

/* Masks a key to its type's width. */
static uint64_t key_mask(clscan_type t, uint64_t v) {
  return clscan_type_size(t) == 8 ? v : v & 0xFFFFFFFFu;
}

/* Writes the low bytes of a key as key i (little-endian hosts, like the devices). */
static void put_key(clscan_type t, void *keys, size_t i, uint64_t v) {
  size_t size = clscan_type_size(t);
  memcpy((unsigned char *)keys + i * size, &v, size);
}

/* The key after `key` at a segment start: differs from it in the key's width, sometimes only in
 * the high half (64-bit keys), sometimes back to a value used earlier. */
static uint64_t next_key(clscan_type t, uint64_t *s, uint64_t key, const uint64_t *pool) {
  uint64_t r = next_random(s), k;
  switch (r % 4) {
    case 0:
      k = clscan_type_size(t) == 8 ? key + ((uint64_t)1 << 32) : key ^ 0x80000000u;
      break;
    case 1:
      k = key + 1;
      break;
    case 2:
      k = pool[(r >> 8) % 4];
      break;
    default:
      k = r >> 3;
      break;
  }
  if (key_mask(t, k) == key_mask(t, key))
    k = key ^ 1;
  return k;
}

/* Writes head flags: any non-zero byte starts a segment; element 0's flag may be zero. */
static void fill_flags(uint64_t *s, const unsigned char *heads, unsigned char *seg, size_t n) {
  for (size_t i = 0; i < n; i++) {
    uint64_t r = next_random(s);
    seg[i] = heads[i] ? (unsigned char)(1 + r % 255) : 0;
    if (i == 0 && r % 3 == 0)
      seg[i] = 0;
  }
}

/* Writes keys that change where heads are set. With every element a head, two keys alternate
 * (only consecutive runs matter); 64-bit ones differ only in their high half. */
static void fill_keys(const tu_case *c, uint64_t *s, const unsigned char *heads, void *seg,
                      size_t n) {
  uint64_t pool[4];
  for (int k = 0; k < 4; k++)
    pool[k] = next_random(s) >> (k * 9);
  uint64_t key = pool[0], other = clscan_type_size(c->key_type) == 8 ? pool[0] ^ ((uint64_t)1 << 40)
                                                                     : pool[0] ^ 0x80000000u;
  for (size_t i = 0; i < n; i++) {
    if (i > 0 && heads[i] && c->pattern == TU_PATTERN_EVERY)
      key = i % 2 ? other : pool[0];
    else if (i > 0 && heads[i])
      key = next_key(c->key_type, s, key, pool);
    put_key(c->key_type, seg, i, key);
  }
}

/* Fills the flags or keys of a case (n elements) for its pattern; 0 when out of memory. */
static int fill_segments(const tu_case *c, unsigned char *seg, size_t n) {
  uint64_t s = tu_mix(c->seed, 0x5E6);
  unsigned char *heads = malloc(n + 1);
  if (!heads)
    return 0;
  draw_heads(c, &s, heads, n);
  if (c->segments == CLSCAN_SEGMENTS_HEAD_FLAGS)
    fill_flags(&s, heads, seg, n);
  else
    fill_keys(c, &s, heads, seg, n);
  free(heads);
  return 1;
}

/* ============================================================================================== */
/* Data and checks                                                                                */
/* ============================================================================================== */

int tu_case_check(const tu_case *c, const void *segments, const void *in, const void *got, size_t n,
                  char *detail, size_t cap) {
  clscan_scan_desc d;
  clscan_ref_mismatch mm;
  clscan_ref_twins twins = {c->spec ? c->spec->map : NULL, c->spec ? c->spec->op : NULL};
  tu_case_desc(c, &d);
  if (clscan_ref_check_twins(&d, &twins, segments, in, got, n, &mm))
    return 1;
  snprintf(detail, cap, "%s", mm.detail);
  return 0;
}

int tu_event_complete(cl_event ev, const char *name, char *msg, size_t cap) {
  cl_int status = CL_QUEUED;
  if (!ev) {
    snprintf(msg, cap, "no %s event was returned", name);
    return 0;
  }
  cl_int err = clWaitForEvents(1, &ev);
  if (err == CL_SUCCESS)
    err = clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, NULL);
  if (err != CL_SUCCESS || status != CL_COMPLETE) {
    snprintf(msg, cap, "%s event: wait returned %d, status %d", name, (int)err, (int)status);
    return 0;
  }
  return 1;
}

int tu_events_ordered(cl_event first, cl_event done, char *msg, size_t cap) {
  if (!tu_event_complete(first, "first", msg, cap) || !tu_event_complete(done, "done", msg, cap))
    return 0;
  cl_ulong first_start = 0, done_start = 0, done_end = 0;
  if (clGetEventProfilingInfo(first, CL_PROFILING_COMMAND_START, sizeof first_start, &first_start,
                              NULL) != CL_SUCCESS ||
      clGetEventProfilingInfo(done, CL_PROFILING_COMMAND_START, sizeof done_start, &done_start,
                              NULL) != CL_SUCCESS ||
      clGetEventProfilingInfo(done, CL_PROFILING_COMMAND_END, sizeof done_end, &done_end, NULL) !=
          CL_SUCCESS)
    return 1; /* a queue without profiling: completion is all there is to check */
  if (first_start <= done_start && done_start <= done_end)
    return 1;
  snprintf(msg, cap,
           "the first command started at %llu, after the last one's start %llu (end %llu)",
           (unsigned long long)first_start, (unsigned long long)done_start,
           (unsigned long long)done_end);
  return 0;
}

/* Host data of one case: inputs and segments (flags or keys), and element sizes. */
typedef struct case_data {
  unsigned char *input, *seg;
  size_t is, os, ks;
} case_data;

static void data_free(case_data *d) {
  free(d->input);
  free(d->seg);
}

/* Draws a case's inputs and segments; 0 when out of memory. */
static int data_make(const tu_case *c, case_data *d) {
  clscan_scan_desc desc;
  tu_case_desc(c, &desc);
  memset(d, 0, sizeof *d);
  d->is = clscan_ref_in_size(&desc);
  d->os = clscan_ref_out_size(&desc);
  d->ks = c->segments == CLSCAN_SEGMENTS_KEYS ? clscan_type_size(c->key_type) : 1;
  d->input = malloc(c->n * d->is + 1);
  if (!d->input)
    return 0;
  if (c->spec && c->spec->fill)
    c->spec->fill(c->seed, d->input, c->n);
  else
    clscan_ref_fill(desc.type, desc.op, c->seed, d->input, c->n);
  if (c->segments == CLSCAN_SEGMENTS_NONE)
    return 1;
  d->seg = malloc(c->n * d->ks + 1);
  return d->seg && fill_segments(c, d->seg, c->n);
}

/* Checks a result range that starts at element `off` of an image of `total` elements, and the
 * guards around it. */
static int check_result(const tu_case *c, const case_data *d, const unsigned char *img, size_t off,
                        size_t total, char *msg, size_t cap) {
  char detail[400];
  if (!tu_all_bytes(img, off * d->os, TU_POISON))
    return fail(c, msg, cap, "a guard element before the output range was overwritten");
  if (!tu_all_bytes(img + (off + c->n) * d->os, (total - off - c->n) * d->os, TU_POISON))
    return fail(c, msg, cap, "a guard element after the output range was overwritten");
  if (!tu_case_check(c, d->seg, d->input, img + off * d->os, c->n, detail, sizeof detail))
    return fail(c, msg, cap, "wrong result at %s", detail);
  return 1;
}

/* ============================================================================================== */
/* Running on host arrays                                                                         */
/* ============================================================================================== */

static int run_host(clscan_context *ctx, const tu_case *c, const case_data *d, char *msg,
                    size_t cap) {
  size_t total = c->n + 2 * TU_GUARD;
  unsigned char *img = malloc(total * d->os), *src = NULL;
  clscan_scan_desc desc;
  int ok = 0;
  tu_case_desc(c, &desc);
  if (!img)
    return fail(c, msg, cap, "out of host memory");
  memset(img, TU_POISON, total * d->os);
  unsigned char *dst = img + TU_GUARD * d->os;

  // In place, the input is copied into the output range; otherwise a copy is checked afterwards.
  if (c->in_place) {
    memcpy(dst, d->input, c->n * d->is);
    src = dst;
  } else {
    src = malloc(c->n * d->is + 1);
    if (!src) {
      free(img);
      return fail(c, msg, cap, "out of host memory");
    }
    memcpy(src, d->input, c->n * d->is);
  }
  clscan_status st = c->segments ? clscan_segmented_scan_host(ctx, &desc, d->seg, src, dst, c->n)
                                 : clscan_scan_host(ctx, &desc, src, dst, c->n);
  if (st != CLSCAN_SUCCESS)
    fail(c, msg, cap, "returned %s (%s)", clscan_status_string(st), clscan_last_error_detail());
  else if (!c->in_place && memcmp(src, d->input, c->n * d->is) != 0)
    fail(c, msg, cap, "the input array was modified");
  else
    ok = check_result(c, d, img, TU_GUARD, total, msg, cap);
  if (!c->in_place)
    free(src);
  free(img);
  return ok;
}

/* ============================================================================================== */
/* Running on device buffers                                                                      */
/* ============================================================================================== */

/* Device buffers of one case and the host images they started from. */
typedef struct case_bufs {
  cl_mem in, out, seg;
  unsigned char *in_img, *out_img, *seg_img;
  size_t in_bytes, out_bytes, seg_bytes, out_total;
} case_bufs;

static void bufs_free(case_bufs *b) {
  if (b->in && b->in != b->out)
    clReleaseMemObject(b->in);
  if (b->out)
    clReleaseMemObject(b->out);
  if (b->seg)
    clReleaseMemObject(b->seg);
  free(b->in_img);
  free(b->out_img);
  free(b->seg_img);
}

/* Creates one buffer from a host image (written on `queue`, NULL: the context's). */
static cl_mem upload(clscan_context *ctx, cl_command_queue queue, const unsigned char *img,
                     size_t bytes) {
  cl_mem buf = tu_buffer(ctx, CL_MEM_READ_WRITE, bytes);
  if (buf && !tu_write(ctx, queue, buf, 0, bytes, img)) {
    clReleaseMemObject(buf);
    return NULL;
  }
  return buf;
}

/* Makes a host image of `total` bytes filled with `fill`, holding `len` bytes of data at `at`. */
static unsigned char *image(size_t total, unsigned char fill, const void *data, size_t at,
                            size_t len) {
  unsigned char *img = malloc(total);
  if (img) {
    memset(img, fill, total);
    if (len)
      memcpy(img + at, data, len);
  }
  return img;
}

/* Makes the host images (poison around the output, fill bytes around inputs) and buffers. */
static int bufs_make(clscan_context *ctx, const tu_case *c, const case_data *d, case_bufs *b) {
  memset(b, 0, sizeof *b);
  b->out_total = c->out_off + c->n + TU_GUARD;
  b->out_bytes = b->out_total * d->os;
  b->out_img =
      image(b->out_bytes, TU_POISON, d->input, c->out_off * d->os, c->in_place ? c->n * d->is : 0);
  if (!b->out_img || !(b->out = upload(ctx, c->queue, b->out_img, b->out_bytes)))
    return 0;
  if (c->in_place) {
    b->in = b->out;
  } else {
    b->in_bytes = (c->in_off + c->n + TU_GUARD) * d->is;
    b->in_img = image(b->in_bytes, TU_INPUT_FILL, d->input, c->in_off * d->is, c->n * d->is);
    if (!b->in_img || !(b->in = upload(ctx, c->queue, b->in_img, b->in_bytes)))
      return 0;
  }
  if (c->segments == CLSCAN_SEGMENTS_NONE)
    return 1;
  b->seg_bytes = (c->seg_off + c->n + TU_GUARD) * d->ks;
  b->seg_img = image(b->seg_bytes, TU_INPUT_FILL, d->seg, c->seg_off * d->ks, c->n * d->ks);
  return b->seg_img && (b->seg = upload(ctx, c->queue, b->seg_img, b->seg_bytes));
}

/* Enqueues an unsegmented case through its path. */
static clscan_status enqueue_plain(clscan_context *ctx, const tu_case *c, const case_bufs *b,
                                   clscan_plan *plan, cl_event *first, cl_event *done) {
  clscan_scan_desc desc;
  size_t in_off = c->in_place ? c->out_off : c->in_off;
  cl_command_queue q = c->queue;
  case_desc(c, &desc, 0);
  if (c->path == TU_PATH_ONE_SHOT)
    return clscan_scan(ctx, q, &desc, b->in, in_off, b->out, c->out_off, c->n, 0, NULL, done);
  if (c->path == TU_PATH_PLAN_TIMED)
    return clscan_plan_enqueue_timed(plan, q, b->in, in_off, b->out, c->out_off, c->n, 0, NULL,
                                     first, done);
  return clscan_plan_enqueue(plan, q, b->in, in_off, b->out, c->out_off, c->n, 0, NULL, done);
}

/* Enqueues a segmented case through its path. */
static clscan_status enqueue_segmented(clscan_context *ctx, const tu_case *c, const case_bufs *b,
                                       clscan_plan *plan, cl_event *first, cl_event *done) {
  clscan_scan_desc desc;
  size_t in_off = c->in_place ? c->out_off : c->in_off;
  cl_command_queue q = c->queue;
  case_desc(c, &desc, 0);
  if (c->path == TU_PATH_ONE_SHOT && c->segments == CLSCAN_SEGMENTS_HEAD_FLAGS)
    return clscan_segmented_scan(ctx, q, &desc, b->seg, c->seg_off, b->in, in_off, b->out,
                                 c->out_off, c->n, 0, NULL, done);
  if (c->path == TU_PATH_ONE_SHOT)
    return clscan_scan_by_key(ctx, q, &desc, b->seg, c->seg_off, b->in, in_off, b->out, c->out_off,
                              c->n, 0, NULL, done);
  return clscan_plan_enqueue_segmented(plan, q, b->seg, c->seg_off, b->in, in_off, b->out,
                                       c->out_off, c->n, 0, NULL,
                                       c->path == TU_PATH_PLAN_TIMED ? first : NULL, done);
}

/* Enqueues a case, creating its plan if a plan path has none. */
static clscan_status enqueue(clscan_context *ctx, const tu_case *c, const case_bufs *b,
                             cl_event *first, cl_event *done) {
  clscan_plan *plan = c->plan;
  clscan_status st = CLSCAN_SUCCESS;
  if (c->path != TU_PATH_ONE_SHOT && !plan) {
    clscan_scan_desc desc;
    tu_case_desc(c, &desc);
    st = clscan_plan_create(ctx, &desc, &plan);
    if (st != CLSCAN_SUCCESS)
      return st;
  }
  if (c->segments == CLSCAN_SEGMENTS_NONE)
    st = enqueue_plain(ctx, c, b, plan, first, done);
  else
    st = enqueue_segmented(ctx, c, b, plan, first, done);
  if (plan != c->plan)
    clscan_plan_release(plan);
  return st;
}

/* Waits for the case's events and checks that they completed. */
static int check_events(const tu_case *c, cl_event first, cl_event done, char *msg, size_t cap) {
  char why[128];
  int ok = tu_event_complete(done, "done", why, sizeof why);
  if (ok && c->path == TU_PATH_PLAN_TIMED)
    ok = tu_event_complete(first, "first", why, sizeof why);
  return ok ? 1 : fail(c, msg, cap, "%s", why);
}

/* Reads a buffer back and compares it with the image it was made from. */
static int unchanged(clscan_context *ctx, cl_command_queue queue, cl_mem buf,
                     const unsigned char *img, size_t bytes) {
  unsigned char *back = malloc(bytes);
  int same = back && tu_read(ctx, queue, buf, 0, bytes, back) && memcmp(back, img, bytes) == 0;
  free(back);
  return same;
}

/* Scans, waits, reads back and checks the output, the input and the segments. */
static int scan_and_check(clscan_context *ctx, const tu_case *c, const case_data *d, case_bufs *b,
                          char *msg, size_t cap) {
  cl_event first = NULL, done = NULL;
  clscan_status st = enqueue(ctx, c, b, &first, &done);
  if (st != CLSCAN_SUCCESS)
    return fail(c, msg, cap, "returned %s (%s)", clscan_status_string(st),
                clscan_last_error_detail());
  int ok = check_events(c, first, done, msg, cap);
  if (done)
    clReleaseEvent(done);
  if (first)
    clReleaseEvent(first);
  if (!ok)
    return 0;
  if (!tu_read(ctx, c->queue, b->out, 0, b->out_bytes, b->out_img))
    return fail(c, msg, cap, "clEnqueueReadBuffer failed");
  if (!check_result(c, d, b->out_img, c->out_off, b->out_total, msg, cap))
    return 0;
  if (!c->in_place && !unchanged(ctx, c->queue, b->in, b->in_img, b->in_bytes))
    return fail(c, msg, cap, "the input buffer was modified");
  if (b->seg && !unchanged(ctx, c->queue, b->seg, b->seg_img, b->seg_bytes))
    return fail(c, msg, cap, "the flags or keys buffer was modified");
  return 1;
}

int tu_run_case(clscan_context *ctx, const tu_case *c, char *msg, size_t cap) {
  char desc[512];
  case_data d;
  tu_case_describe(c, desc, sizeof desc);
  tu_progress(desc);
  int ok = data_make(c, &d);
  if (!ok) {
    data_free(&d);
    return fail(c, msg, cap, "out of host memory");
  }
  if (c->path == TU_PATH_HOST) {
    ok = run_host(ctx, c, &d, msg, cap);
  } else {
    case_bufs b;
    ok = bufs_make(ctx, c, &d, &b);
    if (!ok)
      fail(c, msg, cap, "could not create or fill the buffers");
    else
      ok = scan_and_check(ctx, c, &d, &b, msg, cap);
    bufs_free(&b);
  }
  data_free(&d);
  return ok;
}
