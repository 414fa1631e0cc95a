/* The SVG chart's data, shared by the builder (svg_chart.c) and the writer
 * (svg_render.c). Nothing outside those two files includes this. */
#ifndef VERDICT_REPORT_SVG_CHART_INTERNAL_H
#define VERDICT_REPORT_SVG_CHART_INTERNAL_H

#include "report/svg_chart.h"

typedef enum {
    ITEM_SHADE, ITEM_BAND, ITEM_RULE, ITEM_BOX, ITEM_LINE, ITEM_INTERVALS, ITEM_SCATTER,
    ITEM_KINDS
} chart_item_kind; /* also the drawing order: later kinds are drawn on top */

typedef struct {
    chart_item_kind kind;
    svg_style style;
    char *legend;             /* NULL: not in the legend */
    size_t n;
    double *x, *y, *low, *high; /* per point, as the kind uses them; one allocation */
    bool *flagged;
    bool markers;
    double offset;            /* intervals: sideways shift in pixels */
    double box[6];            /* box: x, q1, median, q3, low, high; shade: low, high; rule: y */
} chart_item;

typedef struct {
    char *label;
    svg_scale scale;
    double *ticks;
    char **tick_labels;       /* NULL entries: the number */
    size_t n_ticks;           /* 0: automatic ticks */
    double include_min, include_max;
    bool has_include;
} chart_axis;

struct svg_chart {
    char *title;
    char *note;               /* NULL: no line under the title */
    char *flag_legend;        /* explains rings on flagged scatter points */
    int width, height;
    chart_axis axes[2];
    chart_item *items;
    size_t n_items, capacity;
    bool failed;              /* a build step ran out of memory */
};

/* Hue, marker and dash of a style. */
const char *svg_style_color(svg_style style);
const char *svg_style_dash(svg_style style);

#endif
