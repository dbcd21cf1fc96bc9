/*
 * The reports of the clscan program's `bench` command: CSV rows, and an SVG line chart of GB/s
 * against log2 n (one chart per input type, one line per algorithm plus the copy line),
 * generated here without dependencies.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

/* ============================================================================================== */
/* CSV                                                                                            */
/* ============================================================================================== */

/* Writes a CSV field, quoted (with quotes doubled) when it holds a separator or a quote. */
void cli_csv_text(FILE *f, const char *text) {
  if (!strpbrk(text, ",\"\r\n")) {
    fputs(text, f);
    return;
  }
  fputc('"', f);
  for (const char *p = text; *p; p++) {
    if (*p == '"')
      fputc('"', f);
    fputc(*p, f);
  }
  fputc('"', f);
}

void cli_row_types(const cli_bench_row *row, char *buf, size_t cap) {
  if (row->out_type == row->type)
    snprintf(buf, cap, "%s", clscan_type_name(row->type));
  else
    snprintf(buf, cap, "%s->%s", clscan_type_name(row->type), clscan_type_name(row->out_type));
}

/* The columns after host_ms came with the variants, and op, reruns and reruns_differ after them;
 * earlier columns keep their meaning, with gbps over n * bytes_per_element bytes (2 * n * element
 * size for plain scans of one type) and the copy of copy_bytes = n * bytes_per_element / 2.
 * reruns_differ is empty when reruns is 0. */
void cli_csv_header(FILE *f) {
  fputs(
      "device,algo,type,n,ms,gbps,ratio_to_copy,copy_ms,host_ms,out_type,variant,"
      "bytes_per_element,copy_bytes,op,reruns,reruns_differ\n",
      f);
  fflush(f);
}

void cli_csv_row(FILE *f, const char *device, const cli_bench_row *row) {
  unsigned long long n = 1ull << row->log2n;
  cli_csv_text(f, device);
  fprintf(f, ",%s,%s,%llu,%.6g,%.6g,%.6g,%.6g,%.6g,%s,%s,%zu,%llu,%s,%d,",
          clscan_algorithm_name(row->algo), clscan_type_name(row->type), n, row->ms, row->gbps,
          row->copy_ms / row->ms, row->copy_ms, row->host_ms, clscan_type_name(row->out_type),
          cli_variant_name(row->variant), row->bytes_per_element,
          (n * row->bytes_per_element + 1) / 2, clscan_op_name(row->op), row->reruns);
  if (row->reruns > 0)
    fprintf(f, "%d", row->differ);
  fputc('\n', f);
  fflush(f);
}

/* ============================================================================================== */
/* SVG geometry                                                                                   */
/* ============================================================================================== */

/* Size of one chart and of its plot area's margins, in pixels. */
#define CHART_W 820.0
#define CHART_H 460.0
#define MARGIN_L 72.0
#define MARGIN_R 190.0
#define MARGIN_T 60.0
#define MARGIN_B 56.0

/* One chart: where its plot area lies and what its axes span. */
typedef struct chart {
  FILE *f;
  double top;     /* the chart's offset in the document */
  int kmin, kmax; /* x axis: log2 n */
  double ymax;    /* y axis: 0 .. ymax GB/s */
} chart;

static double plot_w(void) {
  return CHART_W - MARGIN_L - MARGIN_R;
}
static double plot_h(void) {
  return CHART_H - MARGIN_T - MARGIN_B;
}

/* Maps log2 n to a horizontal pixel position (a single size sits in the middle). */
static double px_x(const chart *c, double k) {
  if (c->kmax == c->kmin)
    return MARGIN_L + plot_w() / 2;
  return MARGIN_L + (k - c->kmin) / (c->kmax - c->kmin) * plot_w();
}

/* Maps GB/s to a vertical pixel position. */
static double px_y(const chart *c, double gbps) {
  return c->top + MARGIN_T + plot_h() * (1 - gbps / c->ymax);
}

/* Returns a tick step of 1, 2 or 5 times a power of ten giving about five ticks up to max. */
static double nice_step(double max) {
  double raw = max / 5, mag = pow(10, floor(log10(raw)));
  return raw <= mag ? mag : raw <= 2 * mag ? 2 * mag : raw <= 5 * mag ? 5 * mag : 10 * mag;
}

/* Writes text with XML's special characters escaped. */
static void xml_text(FILE *f, const char *text) {
  for (const char *p = text; *p; p++) {
    switch (*p) {
      case '&':
        fputs("&amp;", f);
        break;
      case '<':
        fputs("&lt;", f);
        break;
      case '>':
        fputs("&gt;", f);
        break;
      case '"':
        fputs("&quot;", f);
        break;
      default:
        fputc(*p, f);
        break;
    }
  }
}

/* ============================================================================================== */
/* SVG series                                                                                     */
/* ============================================================================================== */

/* A line's name and colour: one per algorithm, and the copy line (index 0: "auto" is unused). */
static const char *const colours[CLSCAN_ALGORITHM_COUNT] = {"#000000", "#1f77b4", "#ff7f0e",
                                                            "#2ca02c", "#d62728"};

/* Returns the GB/s a row's copy reached, over the bytes the scan moves (as the copy does). */
static double copy_gbps(const cli_bench_row *r) {
  return cli_gbps_bytes((double)((size_t)1 << r->log2n) * (double)r->bytes_per_element, r->copy_ms);
}

/* Collects the points of one line: an algorithm's rows of a type, or with algo < 0 the copy
 * line (one point a size). Returns the number of points. */
static int series_points(const chart *c, const cli_bench_row *rows, size_t count, clscan_type type,
                         int algo, double *xs, double *ys) {
  int points = 0;
  for (int k = c->kmin; k <= c->kmax; k++) {
    for (size_t i = 0; i < count; i++) {
      const cli_bench_row *r = &rows[i];
      if (r->type != type || r->log2n != k || (algo >= 0 && (int)r->algo != algo))
        continue;
      xs[points] = px_x(c, k);
      ys[points++] = px_y(c, algo < 0 ? copy_gbps(r) : r->gbps);
      break;
    }
  }
  return points;
}

/* Draws one line with point markers (see series_points). */
static void draw_series(const chart *c, const cli_bench_row *rows, size_t count, clscan_type type,
                        int algo) {
  double xs[64], ys[64];
  const char *colour = colours[algo < 0 ? 0 : algo];
  int points = series_points(c, rows, count, type, algo, xs, ys);
  fprintf(c->f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\"%s points=\"", colour,
          algo < 0 ? " stroke-dasharray=\"6,4\"" : "");
  for (int i = 0; i < points; i++)
    fprintf(c->f, "%s%.1f,%.1f", i ? " " : "", xs[i], ys[i]);
  fputs("\"/>\n", c->f);
  for (int i = 0; i < points; i++)
    fprintf(c->f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"/>\n", xs[i], ys[i], colour);
}

/* Draws a legend entry (a short line and a label) at slot `slot` right of the plot area. */
static void draw_legend_entry(const chart *c, int slot, const char *colour, int dashed,
                              const char *label) {
  double x = MARGIN_L + plot_w() + 20, y = c->top + MARGIN_T + 10 + 22.0 * slot;
  fprintf(c->f,
          "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
          "stroke-width=\"2\"%s/>\n",
          x, y, x + 28, y, colour, dashed ? " stroke-dasharray=\"6,4\"" : "");
  fprintf(c->f, "<text x=\"%.1f\" y=\"%.1f\" dominant-baseline=\"middle\">%s</text>\n", x + 36, y,
          label);
}

/* ============================================================================================== */
/* SVG axes and charts                                                                            */
/* ============================================================================================== */

/* Draws the axes, their ticks, grid lines and labels, and the title (types and variant from
 * `row`, one of the chart's rows). */
static void draw_axes(const chart *c, const char *device, const cli_bench_row *row, double step) {
  FILE *f = c->f;
  double left = MARGIN_L, right = MARGIN_L + plot_w(), bottom = px_y(c, 0), top = px_y(c, c->ymax);
  char types[32];
  cli_row_types(row, types, sizeof types);
  fprintf(f,
          "<text x=\"%.1f\" y=\"%.1f\" font-size=\"15\" font-weight=\"bold\">clscan bench: "
          "%s, exclusive add, %s</text>\n<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\">",
          left, c->top + 22, types, cli_variant_name(row->variant), left, c->top + 40);
  xml_text(f, device);
  fputs("</text>\n", f);
  // Horizontal grid lines and the y ticks' labels.
  for (double v = 0; v <= c->ymax + step / 2; v += step) {
    fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#dddddd\"/>\n", left,
            px_y(c, v), right, px_y(c, v));
    fprintf(f,
            "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" dominant-baseline=\"middle\">%g"
            "</text>\n",
            left - 8, px_y(c, v), v);
  }
  // The x ticks: one per power of two, labelled 2^k with a superscript.
  for (int k = c->kmin; k <= c->kmax; k++) {
    double x = px_x(c, k);
    fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#000000\"/>\n", x,
            bottom, x, bottom + 6);
    fprintf(f,
            "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">2<tspan dy=\"-6\" "
            "font-size=\"9\">%d</tspan></text>\n",
            x, bottom + 22, k);
  }
  fprintf(f, "<path d=\"M%.1f %.1f V%.1f H%.1f\" fill=\"none\" stroke=\"#000000\"/>\n", left, top,
          bottom, right);
  fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">n (elements)</text>\n",
          (left + right) / 2, bottom + 44);
  fprintf(f,
          "<text transform=\"translate(%.1f %.1f) rotate(-90)\" text-anchor=\"middle\">GB/s "
          "(n &#xB7; bytes per element / time)</text>\n",
          left - 52, (top + bottom) / 2);
}

/* Finds a type's size range and top speed; returns 0 if it has no rows. */
static int chart_range(chart *c, const cli_bench_row *rows, size_t count, clscan_type type) {
  double top = 0;
  int found = 0;
  for (size_t i = 0; i < count; i++) {
    const cli_bench_row *r = &rows[i];
    if (r->type != type)
      continue;
    c->kmin = found && c->kmin < r->log2n ? c->kmin : r->log2n;
    c->kmax = found && c->kmax > r->log2n ? c->kmax : r->log2n;
    top = fmax(top, fmax(r->gbps, copy_gbps(r)));
    found = 1;
  }
  c->ymax = top > 0 ? top : 1;
  return found;
}

/* Draws the chart of one type (which has rows). */
static void draw_chart(chart *c, const char *device, const cli_bench_row *rows, size_t count,
                       clscan_type type) {
  double step = nice_step(c->ymax);
  c->ymax = ceil(c->ymax / step) * step;
  const cli_bench_row *first = rows;
  while (first->type != type)
    first++;
  draw_axes(c, device, first, step);
  int slot = 0;
  for (int a = CLSCAN_ALGO_BLELLOCH; a < CLSCAN_ALGORITHM_COUNT; a++) {
    int has = 0;
    for (size_t i = 0; i < count && !has; i++)
      has = rows[i].type == type && (int)rows[i].algo == a;
    if (!has)
      continue;
    draw_series(c, rows, count, type, a);
    draw_legend_entry(c, slot++, colours[a], 0, clscan_algorithm_name((clscan_algorithm)a));
  }
  draw_series(c, rows, count, type, -1);
  draw_legend_entry(c, slot, colours[0], 1, "device copy");
}

int cli_write_svg(FILE *f, const char *device, const cli_bench_row *rows, size_t count) {
  // One chart per type, in the order the types were measured.
  clscan_type types[CLSCAN_TYPE_COUNT];
  int ntypes = 0;
  for (size_t i = 0; i < count; i++) {
    int seen = 0;
    for (int t = 0; t < ntypes; t++)
      seen |= types[t] == rows[i].type;
    if (!seen)
      types[ntypes++] = rows[i].type;
  }
  double height = CHART_H * (ntypes ? ntypes : 1);
  fprintf(f,
          "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" "
          "width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\" "
          "font-size=\"12\">\n<rect width=\"100%%\" height=\"100%%\" fill=\"#ffffff\"/>\n",
          CHART_W, height, CHART_W, height);
  if (ntypes == 0)
    fputs("<text x=\"20\" y=\"40\">no verified measurements</text>\n", f);
  for (int t = 0; t < ntypes; t++) {
    chart c = {.f = f, .top = CHART_H * t};
    chart_range(&c, rows, count, types[t]);
    draw_chart(&c, device, rows, count, types[t]);
  }
  fputs("</svg>\n", f);
  return !ferror(f);
}
