/* Scales of the SVG charts: data ranges to pixels (linear or logarithmic), padded ranges,
 * "nice" tick positions and tick labels. Internal to svg_chart.c. */
#ifndef VERDICT_REPORT_SVG_SCALE_H
#define VERDICT_REPORT_SVG_SCALE_H

#include <stdbool.h>
#include <stddef.h>

#include "report/svg_chart.h"

typedef struct {
    svg_scale kind;
    double min, max;               /* data range shown */
    double pixel_from, pixel_to;   /* where min and max land */
} svg_mapping;

/* Grows [*min, *max] a little so nothing sits on the frame; a single value gets a
 * range around it. False when the range is empty (no finite, usable data). */
bool svg_range_finish(svg_scale kind, double *min, double *max);
double svg_map(const svg_mapping *m, double value);
/* Whether the value can be placed on this scale (finite; positive on a log scale). */
bool svg_placeable(svg_scale kind, double value);
/* Tick positions inside the range: 1-2-5 steps, or powers of ten on a log scale. */
size_t svg_auto_ticks(const svg_mapping *m, double *at, size_t capacity);
/* A short label for a tick or a value: up to 4 significant digits (whole numbers up to
 * a billion in full), no "-0". */
void svg_format_number(double value, char *buf, size_t len);

#endif
