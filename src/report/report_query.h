/* Questions the chart and HTML writers ask of a report_input: which metrics, which
 * series, a sample's value of a metric, quartiles of a series, a metric's unit. */
#ifndef VERDICT_REPORT_REPORT_QUERY_H
#define VERDICT_REPORT_REPORT_QUERY_H

#include <stdbool.h>
#include <stddef.h>

#include "report/report.h"

#define QUERY_NOT_FOUND ((size_t)-1)

/* The compared metrics, each once, in series order; returns how many (at most capacity). */
size_t query_metrics(const report_input *in, const char **names, size_t capacity);
/* Index of the series of (point, metric, variant), or QUERY_NOT_FOUND. */
size_t query_series(const report_input *in, const char *point, const char *metric,
                    const char *variant);
/* Index of the point with this id, or QUERY_NOT_FOUND. */
size_t query_point(const report_input *in, const char *id);
/* A sample's value of a metric; false when it has none. */
bool query_sample_value(const report_sample *s, const char *metric, double *value);
/* The comparison whose candidate is series index `candidate`, or NULL. */
const analysis_comparison *query_comparison_of(const report_input *in, size_t candidate);

typedef struct {
    double min, q1, median, q3, max;
} quartiles;
/* R's type-7 quartiles of the finite values; false when there are none (or no memory). */
bool query_quartiles(const double *values, size_t n, quartiles *out);

/* "seconds" for wall, user, sys and cpu; "KiB" for maxrss; NULL for extracted metrics. */
const char *query_metric_unit(const char *metric);
/* An axis label: "wall (seconds)", or the metric's own name when it has no known unit. */
void query_metric_label(const char *metric, char *buf, size_t len);
/* Change of a ratio in percent: 1.031 -> 3.1. */
double query_percent(double ratio);
/* The minimum detectable effect an inconclusive comparison states (stats/detectable.h, at
 * DETECTABLE_POWER and the interval's own level): the interval too wide to decide; NaN for
 * any other comparison, whose interval did decide or was not its data's to narrow. */
double query_detectable_effect(const comparison *r);
/* The interval's brackets: "(" or ")" where that end is excluded (it rests exactly on a tied
 * difference the test rejects, usually a ratio of 1), "[" or "]" otherwise. */
const char *query_low_bracket(const comparison *r);
const char *query_high_bracket(const comparison *r);

/* Why a comparison could not be computed, for the reports. When a series holds runs
 * without a value (NaN: the run timed out, or its output held no number) the statistics
 * only say "argument out of range"; this says how many runs had no value and how many of
 * them timed out. Otherwise the analysis's own message. */
void query_comparison_error(const report_input *in, const analysis_comparison *c, char *buf,
                            size_t len);

/* A warning's message; a comparison-failed warning gets query_comparison_error's words. */
void query_warning_message(const report_input *in, const analysis_warning *w, char *buf,
                           size_t len);


/* Points with no sample at all (a sweep interrupted, say), sorted for lookups: the
 * writers sum them up in one line instead of a block each. */
typedef struct {
    const char **ids; /* borrowed from the report_input */
    size_t n;
} query_point_set;

/* 0, or -1 when out of memory. */
int query_unrun_points(const report_input *in, query_point_set *out);
bool query_point_set_has(const query_point_set *set, const char *id);
void query_point_set_free(query_point_set *set);
/* "912 of 1,000,000 points were not run (no samples); they are left out below" into buf,
 * or "" when every point has samples. */
void query_unrun_line(const report_input *in, const query_point_set *unrun, char *buf,
                      size_t len);

#endif
