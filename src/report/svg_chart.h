/* A small SVG chart builder: add lines, bands, scatter, intervals and boxes in data
 * coordinates, then write the chart with its axes, ticks, labels, units and legend. */
#ifndef VERDICT_REPORT_SVG_CHART_H
#define VERDICT_REPORT_SVG_CHART_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

typedef enum { SVG_X, SVG_Y } svg_axis_id;
typedef enum { SVG_SCALE_LINEAR, SVG_SCALE_LOG } svg_scale;

/* Series n is drawn with style n: a hue, a marker shape and a dash pattern, so series
 * stay apart without colour too. The shapes and dashes repeat after a few series. */
typedef size_t svg_style;

typedef struct svg_chart svg_chart;

/* NULL when out of memory. Width and height are in pixels (the viewBox). */
svg_chart *svg_chart_new(const char *title, int width, int height);
void svg_chart_free(svg_chart *chart);

/* A line of explanation under the title (what the lines, bands and bars are). */
int svg_chart_note(svg_chart *chart, const char *note);
/* The label names the quantity and its unit, e.g. "wall time (seconds)". */
int svg_chart_axis(svg_chart *chart, svg_axis_id axis, const char *label, svg_scale scale);
/* Ticks at these positions (labels NULL: the numbers), instead of automatic ones. */
int svg_chart_ticks(svg_chart *chart, svg_axis_id axis, const double *at,
                    const char *const *labels, size_t n);
/* Makes sure the axis shows this value (e.g. 0 on a change axis). */
void svg_chart_include(svg_chart *chart, svg_axis_id axis, double value);

/* A polyline through the points, with the style's marker on each (markers false: none). */
int svg_chart_line(svg_chart *chart, svg_style style, const char *legend, const double *x,
                   const double *y, size_t n, bool markers);
/* Markers only; points whose flagged[i] is true get a ring (e.g. tainted samples). */
int svg_chart_scatter(svg_chart *chart, svg_style style, const char *legend, const double *x,
                      const double *y, const bool *flagged, size_t n);
/* A translucent band between low[i] and high[i] along x (an interval around a line). */
int svg_chart_band(svg_chart *chart, svg_style style, const double *x, const double *low,
                   const double *high, size_t n);
/* What the ring around flagged scatter points means, shown in the legend when a
 * flagged point is drawn (e.g. "ringed: tainted run"). */
int svg_chart_flag_legend(svg_chart *chart, const char *legend);
/* A shaded horizontal band across the plot from y = low to y = high, with a legend. */
int svg_chart_shade(svg_chart *chart, double low, double high, const char *legend);
/* A horizontal reference line at y (e.g. no change). */
int svg_chart_rule(svg_chart *chart, double y, const char *legend);
/* Estimates with vertical interval bars, shifted offset pixels sideways so several
 * series at the same x stay readable. */
int svg_chart_intervals(svg_chart *chart, svg_style style, const char *legend, const double *x,
                        const double *estimate, const double *low, const double *high,
                        size_t n, double offset);
/* A box at x: quartiles q1..q3 with the median, whiskers from low to high. */
int svg_chart_box(svg_chart *chart, svg_style style, double x, double q1, double median,
                  double q3, double low, double high);

/* Writes the chart. standalone: a complete .svg file (XML declaration, namespace);
 * otherwise an <svg> element to place inside HTML. Returns -1 when a build step ran
 * out of memory or nothing could be placed (no finite data). */
int svg_chart_write(const svg_chart *chart, FILE *out, bool standalone);

#endif
