/*
 * The clscan program's element text: strict parsing of one element of a built-in type (every
 * digit checked, ranges exact, no silent wrap) and its formatting, the inverse: integers in
 * decimal, float with 9 and double with 17 significant digits, so that every element formats and
 * parses back to the same bits (NaN to a NaN). The fuzz target checks that round trip.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* ============================================================================================== */
/* Parsing elements                                                                               */
/* ============================================================================================== */

/* Returns the smallest and largest value of an integer type. */
static void int_range(clscan_type t, long long *min, unsigned long long *max) {
  size_t bits = 8 * clscan_type_size(t);
  int is_signed = t == CLSCAN_INT8 || t == CLSCAN_INT16 || t == CLSCAN_INT32 || t == CLSCAN_INT64;
  unsigned long long all = bits == 64 ? ~0ull : (1ull << bits) - 1;
  *max = is_signed ? all >> 1 : all;
  *min = is_signed ? -(long long)(all >> 1) - 1 : 0;
}

/* Stores the low bytes of v as an element of `size` bytes. */
static void store_int(unsigned long long v, size_t size, void *out) {
  uint8_t u8 = (uint8_t)v;
  uint16_t u16 = (uint16_t)v;
  uint32_t u32 = (uint32_t)v;
  uint64_t u64 = (uint64_t)v;
  memcpy(out,
         size == 1   ? (void *)&u8
         : size == 2 ? (void *)&u16
         : size == 4 ? (void *)&u32
                     : (void *)&u64,
         size);
}

/* Parses a decimal integer of type t; see cli_parse_element(). */
static int parse_int(clscan_type t, const char *text, void *out, char *why, size_t cap) {
  long long min;
  unsigned long long max, v = 0;
  int_range(t, &min, &max);
  const char *digits = text + (text[0] == '-' || text[0] == '+');
  char *end = NULL;
  errno = 0;
  // strtoull takes the magnitude: it would skip spaces and wrap negative numbers on its own.
  if (isdigit((unsigned char)digits[0]))
    v = strtoull(digits, &end, 10);
  if (!end || *end != '\0') {
    snprintf(why, cap, "is not a valid %s", clscan_type_name(t));
    return 0;
  }
  int negative = text[0] == '-' && v != 0;
  unsigned long long limit = negative ? (unsigned long long)(-(min + 1)) + 1 : max;
  if (errno == ERANGE || v > limit) {
    snprintf(why, cap, "is out of range for %s [%lld, %llu]", clscan_type_name(t), min, max);
    return 0;
  }
  store_int(negative ? 0 - v : v, clscan_type_size(t), out);
  return 1;
}

/* Parses a float or double; overflow is an error, underflow to a subnormal or zero is not. */
static int parse_float(clscan_type t, const char *text, void *out, char *why, size_t cap) {
  char *end = NULL;
  errno = 0;
  float f = 0;
  double d = 0;
  if (t == CLSCAN_FLOAT)
    f = strtof(text, &end);
  else
    d = strtod(text, &end);
  if (end == text || *end != '\0' || isspace((unsigned char)text[0])) {
    snprintf(why, cap, "is not a valid %s", clscan_type_name(t));
    return 0;
  }
  if (errno == ERANGE && (t == CLSCAN_FLOAT ? isinf(f) : isinf(d))) {
    snprintf(why, cap, "is out of range for %s", clscan_type_name(t));
    return 0;
  }
  if (t == CLSCAN_FLOAT)
    memcpy(out, &f, sizeof f);
  else
    memcpy(out, &d, sizeof d);
  return 1;
}

/* Parses a half: a double rounded to the nearest half; a finite value that rounds to infinity
 * (65520 or more in magnitude) is out of range. */
static int parse_half(const char *text, void *out, char *why, size_t cap) {
  double d;
  if (!parse_float(CLSCAN_DOUBLE, text, &d, why, cap)) {
    snprintf(why, cap, errno == ERANGE ? "is out of range for half" : "is not a valid half");
    return 0;
  }
  const uint16_t h = clscan_half_from_double(d);
  if (!isinf(d) && (h & 0x7FFFu) == 0x7C00u) {
    snprintf(why, cap, "is out of range for half (largest 65504)");
    return 0;
  }
  memcpy(out, &h, sizeof h);
  return 1;
}

int cli_parse_element(clscan_type type, const char *text, void *out, char *why, size_t cap) {
  if (type == CLSCAN_HALF)
    return parse_half(text, out, why, cap);
  return cli_type_is_float(type) ? parse_float(type, text, out, why, cap)
                                 : parse_int(type, text, out, why, cap);
}

/* ============================================================================================== */
/* Formatting elements                                                                            */
/* ============================================================================================== */

/* Returns an integer element of `size` bytes, zero-extended to 64 bits. */
static uint64_t load_unsigned(const unsigned char *p, size_t size) {
  uint8_t u8;
  uint16_t u16;
  uint32_t u32;
  uint64_t u64;
  switch (size) {
    case 1:
      memcpy(&u8, p, 1);
      return u8;
    case 2:
      memcpy(&u16, p, 2);
      return u16;
    case 4:
      memcpy(&u32, p, 4);
      return u32;
    default:
      memcpy(&u64, p, 8);
      return u64;
  }
}

/* Returns a signed integer element of `size` bytes, sign-extended to 64 bits. */
static int64_t load_signed(const unsigned char *p, size_t size) {
  uint64_t v = load_unsigned(p, size);
  if (size < 8 && (v >> (8 * size - 1)) != 0)
    v |= ~0ull << (8 * size);
  int64_t s;
  memcpy(&s, &v, sizeof s);
  return s;
}

/* Returns 1 for the signed integer types. */
static int is_signed_int(clscan_type t) {
  return t == CLSCAN_INT8 || t == CLSCAN_INT16 || t == CLSCAN_INT32 || t == CLSCAN_INT64;
}

void cli_format_element(clscan_type type, const void *element, char *buf, size_t cap) {
  const unsigned char *p = element;
  size_t size = clscan_type_size(type);
  if (type == CLSCAN_HALF) {
    uint16_t h;
    memcpy(&h, p, sizeof h);
    snprintf(buf, cap, "%.5g", clscan_half_to_double(h)); /* 5 digits tell every half apart */
  } else if (type == CLSCAN_FLOAT) {
    float f;
    memcpy(&f, p, sizeof f);
    snprintf(buf, cap, "%.9g", (double)f);
  } else if (type == CLSCAN_DOUBLE) {
    double d;
    memcpy(&d, p, sizeof d);
    snprintf(buf, cap, "%.17g", d);
  } else if (is_signed_int(type)) {
    snprintf(buf, cap, "%" PRId64, load_signed(p, size));
  } else {
    snprintf(buf, cap, "%" PRIu64, load_unsigned(p, size));
  }
}
