/*
 * clscan: the user prelude, the OpenCL C text a descriptor's user sources become. It is placed
 * before common.cl and defines the user type's name and size, the extra arguments' parameter
 * lists, clscan_user_op() with clscan_user_identity(), clscan_user_map() (both with the extra
 * arguments in scope under their names), and a by-key scan's user key type and
 * clscan_user_key_equal(), each with #line directives so that compiler
 * messages point into the caller's strings. The prelude is part of the program cache's key.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* A growing string; `failed` records an allocation failure, reported once at the end. */
typedef struct text {
  char *buf;
  size_t len, cap;
  int failed;
} text;

static void text_add(text *t, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static void text_add(text *t, const char *fmt, ...) {
  if (t->failed)
    return;
  for (;;) {
    va_list ap;
    va_start(ap, fmt);
    int need = vsnprintf(t->buf ? t->buf + t->len : NULL, t->buf ? t->cap - t->len : 0, fmt, ap);
    va_end(ap);
    if (need < 0) {
      t->failed = 1;
      return;
    }
    if (t->buf && t->len + (size_t)need < t->cap) {
      t->len += (size_t)need;
      return;
    }
    size_t cap = (t->cap ? 2 * t->cap : 1024) + (size_t)need;
    char *grown = realloc(t->buf, cap);
    if (!grown) {
      t->failed = 1;
      return;
    }
    t->buf = grown;
    t->cap = cap;
  }
}

/* The OpenCL C name of a descriptor's type t (built-in or its user type). */
static const char *cl_type_name(const clscan_scan_desc *d, clscan_type t) {
  return t == CLSCAN_USER_TYPE ? d->type_name : clscan__type_user_name(t);
}

/* Returns 1 if `src` contains the word `return` (then it is a function body, not an expression). */
static int is_body(const char *src) {
  for (const char *p = strstr(src, "return"); p; p = strstr(p + 1, "return")) {
    int before = p == src || !(isalnum((unsigned char)p[-1]) || p[-1] == '_');
    int after = !(isalnum((unsigned char)p[6]) || p[6] == '_');
    if (before && after)
      return 1;
  }
  return 0;
}

/* The OpenCL C type of extra argument a. */
static const char *arg_type_name(const clscan_arg *a) {
  return a->type == CLSCAN_USER_TYPE ? a->type_name : clscan__type_cl_name(a->type);
}

/* Appends CLSCAN_XP and CLSCAN_XA (common.cl): per buffer argument k a pointer clscan_xk and its
 * element offset clscan_xok, per scalar its value clscan_xk. */
static void add_arg_lists(text *t, const clscan_scan_desc *d) {
  text_add(t, "#define CLSCAN_XP");
  for (size_t k = 0; k < d->arg_count; k++) {
    const clscan_arg *a = &d->args[k];
    if (a->kind == CLSCAN_ARG_SCALAR) {
      // A half scalar travels as its bits; CLSCAN_XNAMES gives the user its float.
      text_add(t, " , %s clscan_x%zu", a->type == CLSCAN_HALF ? "ushort" : arg_type_name(a), k);
    } else {
      text_add(t, " , %s__global %s *clscan_x%zu, ulong clscan_xo%zu",
               a->access == CLSCAN_ARG_READ ? "const " : "", arg_type_name(a), k, k);
    }
  }
  text_add(t, "\n#define CLSCAN_XA");
  for (size_t k = 0; k < d->arg_count; k++) {
    if (d->args[k].kind == CLSCAN_ARG_SCALAR) {
      text_add(t, " , clscan_x%zu", k);
    } else {
      text_add(t, " , clscan_x%zu, clscan_xo%zu", k, k);
    }
  }
  text_add(t, "\n");
}

/* Appends CLSCAN_XNAMES, the prologue of a user function that sees the extra arguments: each
 * under its own name (a buffer from its offset). Other families' user functions use it too. */
static void add_arg_names(text *t, const clscan_scan_desc *d) {
  if (!d->arg_count)
    return;
  text_add(t, "#define CLSCAN_XNAMES");
  for (size_t k = 0; k < d->arg_count; k++) {
    const clscan_arg *a = &d->args[k];
    if (a->kind == CLSCAN_ARG_SCALAR && a->type == CLSCAN_HALF) {
      text_add(t, " const float %s = vload_half(0, (const __private half *)&clscan_x%zu);", a->name,
               k);
    } else if (a->kind == CLSCAN_ARG_SCALAR) {
      text_add(t, " const %s %s = clscan_x%zu;", arg_type_name(a), a->name, k);
    } else {
      const char *c = a->access == CLSCAN_ARG_READ ? "const " : "";
      text_add(t, " %s__global %s *const %s = clscan_x%zu + clscan_xo%zu;", c, arg_type_name(a),
               a->name, k, k);
    }
    text_add(t, " (void)%s;", a->name);
  }
  text_add(t, "\n");
}

/* Returns 1 if an extra argument's type is the descriptor's type_source's business. */
static int args_need_types(const clscan_scan_desc *d) {
  for (size_t k = 0; k < d->arg_count; k++) {
    if (d->args[k].type == CLSCAN_USER_TYPE || d->args[k].type == CLSCAN_DOUBLE)
      return 1;
  }
  return 0;
}

/* Appends a function whose body is user source `src` (an expression or a body with return);
 * with `names`, the descriptor's extra arguments are in scope under their names (the signature
 * then ends with CLSCAN_XP). */
static void add_function(text *t, const char *signature, int names, const char *label,
                         const char *src) {
  text_add(t, "inline __attribute__((always_inline)) %s {\n", signature);
  if (names)
    text_add(t, "  CLSCAN_XNAMES\n");
  text_add(t, "#line 1 \"%s\"\n", label);
  if (is_body(src)) {
    text_add(t, "%s\n}\n", src);
  } else {
    text_add(t, "return (%s\n);\n}\n", src);
  }
}

/* Appends clscan_user_identity(), which rebuilds the identity from its bytes. */
static void add_identity(text *t, const char *out, const unsigned char *bytes, size_t size) {
  text_add(t, "inline __attribute__((always_inline)) %s clscan_user_identity(void) {\n", out);
  if (size % 4 == 0) {
    text_add(t, "  union { %s v; uint w[%zu]; } u;\n", out, size / 4);
    for (size_t i = 0; i < size / 4; i++) {
      uint32_t w;
      memcpy(&w, bytes + 4 * i, 4);
      text_add(t, "  u.w[%zu] = 0x%08xu;\n", i, (unsigned)w);
    }
  } else {
    text_add(t, "  union { %s v; uchar b[%zu]; } u;\n", out, size);
    for (size_t i = 0; i < size; i++)
      text_add(t, "  u.b[%zu] = 0x%02x;\n", i, bytes[i]);
  }
  text_add(t, "  return u.v;\n}\n");
}

/* Appends a by-key scan's user key type and key equality, if it has them. */
static void add_keys(text *t, const clscan_scan_desc *d) {
  if (d->segments != CLSCAN_SEGMENTS_KEYS)
    return;
  int user_key = d->key_type == CLSCAN_USER_TYPE;
  if (d->key_type == CLSCAN_DOUBLE)
    text_add(t, "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n");
  if (user_key) {
    if (d->key_type_source)
      text_add(t, "#line 1 \"key_type_source\"\n%s\n", d->key_type_source);
    text_add(t, "#define CLSCAN_USER_KEY_NAME %s\n#define CLSCAN_USER_KEY_SIZE %zu\n",
             d->key_type_name, d->key_size);
  }
  if (d->key_equal_source) {
    const char *k = user_key ? d->key_type_name : clscan__type_user_name(d->key_type);
    char signature[512];
    // The equality sees the extra arguments as the map and the operator do (CLSCAN_XP is
    // defined above, empty without arguments).
    snprintf(signature, sizeof signature, "int clscan_user_key_equal(%s a, %s b CLSCAN_XP)", k, k);
    add_function(t, signature, d->arg_count != 0, "key_equal_source", d->key_equal_source);
    text_add(t, "#define CLSCAN_KEY_EQUAL 1\n");
  }
}

/* Returns 1 when a descriptor has user sources for the keys of a by-key scan. */
static int has_key_sources(const clscan_scan_desc *d) {
  return d->segments == CLSCAN_SEGMENTS_KEYS &&
         (d->key_type == CLSCAN_USER_TYPE || d->key_equal_source);
}

clscan_status clscan__user_source(const clscan_scan_desc *d, char **out) {
  *out = NULL;
  clscan_type out_type = clscan__out_type(d);
  int user_type = d->type == CLSCAN_USER_TYPE || out_type == CLSCAN_USER_TYPE;
  if (!user_type && d->op != CLSCAN_USER_OP && !d->map_source && !d->arg_count && !d->device_init &&
      !has_key_sources(d))
    return CLSCAN_SUCCESS;

  text t = {0};
  const char *in = cl_type_name(d, d->type), *o = cl_type_name(d, out_type);
  text_add(&t, "/* clscan: the descriptor's user sources. */\n");
  if (d->type == CLSCAN_DOUBLE || out_type == CLSCAN_DOUBLE || args_need_types(d))
    text_add(&t, "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n");
  if (d->device_init)
    text_add(&t, "#define CLSCAN_DEVICE_INIT 1\n");
  if (d->type_source && (user_type || args_need_types(d)))
    text_add(&t, "#line 1 \"type_source\"\n%s\n", d->type_source);
  add_arg_lists(&t, d);
  add_arg_names(&t, d);
  if (user_type) {
    text_add(&t, "#define CLSCAN_USER_TYPE_NAME %s\n#define CLSCAN_USER_TYPE_SIZE %zu\n",
             d->type_name, d->type_size);
  }
  add_keys(&t, d);
  char signature[512];
  if (d->op == CLSCAN_USER_OP) {
    snprintf(signature, sizeof signature, "%s clscan_user_op(%s a, %s b CLSCAN_XP)", o, o, o);
    add_function(&t, signature, d->arg_count != 0, "op_source", d->op_source);
    // The identity is a value as the kernels keep it (a half as its bits).
    add_identity(&t, out_type == CLSCAN_HALF ? "ushort" : o, d->identity, clscan__out_size(d));
  }
  if (d->map_source) {
    snprintf(signature, sizeof signature, "%s clscan_user_map(%s x, ulong i CLSCAN_XP)", o, in);
    add_function(&t, signature, d->arg_count != 0, "map_source", d->map_source);
  }
  // Line numbers after the prelude are physical again (compiler and Oclgrind messages refer to
  // them); the directive is on line lines + 1, so the next line is lines + 2.
  size_t lines = 0;
  for (size_t i = 0; t.buf && i < t.len; i++)
    lines += t.buf[i] == '\n';
  text_add(&t, "#line %zu\n", lines + 2);
  if (t.failed) {
    free(t.buf);
    return clscan__fail(CLSCAN_OUT_OF_HOST_MEMORY, "user prelude");
  }
  *out = t.buf;
  return CLSCAN_SUCCESS;
}

clscan_status clscan__extra_set(cl_kernel k, cl_uint first, const clscan__extra *x, int seeded) {
  if (!x)
    return CLSCAN_SUCCESS;
  for (cl_uint i = 0; i < x->count; i++) {
    cl_int err = CLSCAN_FAULT(CL_INVALID_ARG_VALUE,
                              clSetKernelArg(k, first + i, x->arg[i].size, x->arg[i].value));
    if (err != CL_SUCCESS)
      return clscan__cl_fail(err, "clSetKernelArg (extra argument)");
  }
  if (!x->device_seed)
    return CLSCAN_SUCCESS;
  cl_int use = seeded != 0;
  cl_int err =
      CLSCAN_FAULT(CL_INVALID_ARG_VALUE, clSetKernelArg(k, first + x->count, sizeof use, &use));
  return err == CL_SUCCESS ? CLSCAN_SUCCESS : clscan__cl_fail(err, "clSetKernelArg (seed switch)");
}
