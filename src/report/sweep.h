/* Finds the sweep in a report's points: the numeric parameter (e.g. clients) to draw on
 * an x axis, its scale, and the groups formed by the other parameters' values. */
#ifndef VERDICT_REPORT_SWEEP_H
#define VERDICT_REPORT_SWEEP_H

#include <stdbool.h>
#include <stddef.h>

#include "report/report.h"
#include "report/svg_chart.h"

typedef struct {
    bool found;
    size_t parameter;     /* index into every point's parameters */
    const char *name;     /* borrowed */
    double *value;        /* per point: the parameter as a number */
    svg_scale scale;      /* log when the values grow geometrically (1, 2, 4, 8...) */
    size_t *group;        /* per point: index of its combination of the other parameters */
    char **group_label;   /* per group: "workload=rw" ("" without other parameters) */
    size_t n_groups;
} report_sweep;

/* found is false when no parameter is numeric with two or more values. -1: no memory. */
int sweep_find(const report_input *in, report_sweep *out);
void sweep_free(report_sweep *sweep);

#endif
