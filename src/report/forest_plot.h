/* A forest plot of one comparison across the machines of a fleet, as SVG: each machine's
 * ratio and interval, the pooled diamond, the prediction interval for a new machine. */
#ifndef VERDICT_REPORT_FOREST_PLOT_H
#define VERDICT_REPORT_FOREST_PLOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "common/error.h"

/* More rows than a page can show are refused, not cut (the SVG's height is the rows'). */
#define FOREST_MAX_ROWS 10000

typedef struct {
    const char *label;        /* the machine's name */
    double ratio, low, high;  /* candidate/baseline with its confidence interval; ratio NaN:
                               * no estimate (an excluded machine, e.g. all its runs failed);
                               * low/high NaN: no interval, 0 or infinite: unbounded */
    const char *note;         /* NULL, or e.g. "worse", "inconclusive"; an excluded machine
                               * without a note is shown as "no successful runs" */
} forest_row;

typedef struct {
    const char *title;        /* e.g. "wall, clients=4: B against A" */
    const forest_row *rows;
    size_t n_rows;            /* 1..FOREST_MAX_ROWS */
    double pooled_ratio, pooled_low, pooled_high; /* the diamond; ratio NaN: none */
    double predict_low, predict_high; /* prediction interval for a new machine; NaN: none */
    double confidence;        /* e.g. 0.95, for the note and the column header; NaN: unsaid */
} forest_plot;

/* Writes the plot. standalone: a complete .svg file (XML declaration, namespace);
 * otherwise an <svg> element to place inside HTML. Every text is escaped, and no
 * coordinate is ever NaN or infinite: ends beyond the axis are drawn as arrows at its edge.
 * Returns 0, or -1 with a message in err (no rows, too many, a write error); nothing is
 * written when the plot is refused. */
int forest_plot_write(const forest_plot *plot, FILE *out, bool standalone, verdict_error *err);

#endif
