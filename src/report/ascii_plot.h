/* A compact text picture of several distributions on one shared axis, like ministat's:
 * every value as a marker, and each group's quartiles and median underneath. */
#ifndef VERDICT_REPORT_ASCII_PLOT_H
#define VERDICT_REPORT_ASCII_PLOT_H

#include <stddef.h>
#include <stdio.h>

#include "report/units.h"

typedef struct {
    char marker;
    const double *values;
    size_t n;
} plot_group;

/* width is the number of columns inside the frame (at least 20); the axis's two end
 * values are written as `axis` says (a time in its unit, or a plain number). */
void ascii_plot_write(FILE *out, const plot_group *groups, size_t n_groups, int width,
                      const units_format *axis);

#endif
