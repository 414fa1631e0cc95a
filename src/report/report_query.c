/* Lookups over a report_input for the writers that draw it (charts, HTML, text charts).
 * Linear searches: a report holds at most a few thousand series and samples. */
#include "report/report_query.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats/descriptive.h"

size_t query_metrics(const report_input *in, const char **names, size_t capacity)
{
    size_t n = 0;
    for (size_t i = 0; i < in->n_series && n < capacity; i++) {
        bool seen = false;
        for (size_t k = 0; k < n && !seen; k++)
            seen = strcmp(names[k], in->series[i].metric) == 0;
        if (!seen)
            names[n++] = in->series[i].metric;
    }
    return n;
}

size_t query_series(const report_input *in, const char *point, const char *metric,
                    const char *variant)
{
    for (size_t i = 0; i < in->n_series; i++) {
        const analysis_series *s = &in->series[i];
        if (strcmp(s->point, point) == 0 && strcmp(s->metric, metric) == 0 &&
            strcmp(s->variant, variant) == 0)
            return i;
    }
    return QUERY_NOT_FOUND;
}

size_t query_point(const report_input *in, const char *id)
{
    for (size_t i = 0; i < in->n_points; i++)
        if (strcmp(in->points[i].id, id) == 0)
            return i;
    return QUERY_NOT_FOUND;
}

bool query_sample_value(const report_sample *s, const char *metric, double *value)
{
    for (size_t k = 0; k < s->n_metrics; k++)
        if (strcmp(s->metric_names[k], metric) == 0 && isfinite(s->metric_values[k])) {
            *value = s->metric_values[k];
            return true;
        }
    return false;
}

const analysis_comparison *query_comparison_of(const report_input *in, size_t candidate)
{
    for (size_t k = 0; k < in->analysis->n_comparisons; k++)
        if (in->analysis->comparisons[k].candidate == candidate)
            return &in->analysis->comparisons[k];
    return NULL;
}

static int ascending(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

bool query_quartiles(const double *values, size_t n, quartiles *out)
{
    double *sorted = malloc((n + 1) * sizeof *sorted);
    size_t m = 0;
    if (sorted == NULL)
        return false;
    for (size_t i = 0; i < n; i++)
        if (isfinite(values[i]))
            sorted[m++] = values[i];
    if (m > 0) {
        qsort(sorted, m, sizeof *sorted, ascending);
        *out = (quartiles){sorted[0], stats_quantile_sorted(sorted, m, 0.25),
                           stats_median_sorted(sorted, m), stats_quantile_sorted(sorted, m, 0.75),
                           sorted[m - 1]};
    }
    free(sorted);
    return m > 0;
}

const char *query_metric_unit(const char *metric)
{
    static const char *const seconds[] = {"wall", "user", "sys", "cpu"};
    for (size_t i = 0; i < sizeof seconds / sizeof *seconds; i++)
        if (strcmp(metric, seconds[i]) == 0)
            return "seconds";
    return strcmp(metric, "maxrss") == 0 ? "KiB" : NULL;
}

void query_metric_label(const char *metric, char *buf, size_t len)
{
    const char *unit = query_metric_unit(metric);
    if (unit)
        snprintf(buf, len, "%s (%s)", metric, unit);
    else
        snprintf(buf, len, "%s", metric);
}

double query_percent(double ratio)
{
    return (ratio - 1.0) * 100.0;
}

const char *query_low_bracket(const comparison *r)
{
    return r->low_open ? "(" : "[";
}

const char *query_high_bracket(const comparison *r)
{
    return r->high_open ? ")" : "]";
}
