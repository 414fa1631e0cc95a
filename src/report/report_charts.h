/* The charts of a report, built from a report_input as svg_charts: the sweep (metric
 * against the swept parameter), the change per point, each point's runs in time order
 * and its distributions. The HTML report and --svg DIR draw the same charts. */
#ifndef VERDICT_REPORT_REPORT_CHARTS_H
#define VERDICT_REPORT_REPORT_CHARTS_H

#include <stddef.h>

#include "report/report.h"
#include "report/svg_chart.h"
#include "report/sweep.h"

/* Median per variant against the swept parameter, with the interquartile band, for the
 * points of one group. NULL when out of memory. */
svg_chart *chart_sweep(const report_input *in, const report_sweep *sweep, const char *metric,
                       size_t group);
/* Each candidate's change against the baseline per point, with its interval, the ±margin
 * band shaded and 0 drawn. With a sweep, for one group against the parameter; without,
 * for all points (group ignored). NULL when out of memory. */
svg_chart *chart_change(const report_input *in, const report_sweep *sweep, const char *metric,
                        size_t group);
/* Every run of series first..end-1 (one point and metric) in measurement order. */
svg_chart *chart_timeline(const report_input *in, size_t first, size_t end);
/* The series' values side by side: a box and every value as a jittered strip. */
svg_chart *chart_distribution(const report_input *in, size_t first, size_t end);

/* True when some comparison involves this metric (so a change chart has content). */
bool chart_has_comparisons(const report_input *in, const char *metric);

#endif
