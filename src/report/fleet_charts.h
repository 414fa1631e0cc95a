/* A fleet's pooled comparison as a forest plot: each machine's row from the analysis, the
 * machines whose runs all failed, the pooled diamond and the prediction interval. */
#ifndef VERDICT_REPORT_FLEET_CHARTS_H
#define VERDICT_REPORT_FLEET_CHARTS_H

#include <stdbool.h>
#include <stdio.h>

#include "report/report.h"
#include "common/error.h"

/* Writes the forest plot of pooled comparison f (standalone: a whole .svg file). 0, or -1
 * with a message in err (nothing to draw, out of memory, a write error). */
int fleet_forest_write(const report_input *in, const analysis_fleet *f, FILE *out,
                       bool standalone, verdict_error *err);

#endif
