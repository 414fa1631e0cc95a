/* Lookups over a report_input for the writers that draw it (charts, HTML, text charts).
 * Linear searches for series and points; the set of unrun points is sorted, as a sweep
 * may have a million of them. */
#include "report/report_query.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats/descriptive.h"
#include "stats/detectable.h"

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

double query_detectable_effect(const comparison *r)
{
    if (r->decision.kind != VERDICT_INCONCLUSIVE ||
        r->decision.reason != UNDECIDED_WIDE_INTERVAL)
        return NAN;
    double level = r->achieved_confidence > 0 ? r->achieved_confidence : r->confidence;
    return detectable_effect(r->ci_low, r->ci_high, level, DETECTABLE_POWER);
}

const char *query_low_bracket(const comparison *r)
{
    return r->low_open ? "(" : "[";
}

const char *query_high_bracket(const comparison *r)
{
    return r->high_open ? ")" : "]";
}

static int compare_ids(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static bool sorted_has(const char *const *sorted, size_t n, const char *id)
{
    return n > 0 && bsearch(&id, sorted, n, sizeof *sorted, compare_ids) != NULL;
}

int query_unrun_points(const report_input *in, query_point_set *out)
{
    *out = (query_point_set){NULL, 0};
    const char **sampled = malloc((in->n_samples ? in->n_samples : 1) * sizeof *sampled);
    out->ids = malloc((in->n_points ? in->n_points : 1) * sizeof *out->ids);
    if (sampled == NULL || out->ids == NULL) {
        free(sampled);
        query_point_set_free(out);
        return -1;
    }
    for (size_t i = 0; i < in->n_samples; i++)
        sampled[i] = in->samples[i].point;
    qsort(sampled, in->n_samples, sizeof *sampled, compare_ids);
    for (size_t p = 0; p < in->n_points; p++)
        if (!sorted_has(sampled, in->n_samples, in->points[p].id))
            out->ids[out->n++] = in->points[p].id;
    free(sampled);
    qsort(out->ids, out->n, sizeof *out->ids, compare_ids);
    return 0;
}

bool query_point_set_has(const query_point_set *set, const char *id)
{
    return id != NULL && sorted_has(set->ids, set->n, id);
}

void query_point_set_free(query_point_set *set)
{
    free(set->ids);
    *set = (query_point_set){NULL, 0};
}

/* 1000000 -> "1,000,000": a count of points is read at a glance. */
static void grouped_count(size_t n, char *buf, size_t len)
{
    char digits[32];
    int length = snprintf(digits, sizeof digits, "%zu", n);
    size_t used = 0;
    for (int i = 0; i < length && used + 2 < len; i++) {
        if (i > 0 && (length - i) % 3 == 0)
            buf[used++] = ',';
        buf[used++] = digits[i];
    }
    buf[used] = '\0';
}

void query_unrun_line(const report_input *in, const query_point_set *unrun, char *buf,
                      size_t len)
{
    if (unrun->n == 0) {
        snprintf(buf, len, "%s", "");
        return;
    }
    char count[32], total[32];
    grouped_count(unrun->n, count, sizeof count);
    grouped_count(in->n_points, total, sizeof total);
    snprintf(buf, len, "%s of %s point%s %s not run (no samples); %s left out of this report",
             count, total, in->n_points == 1 ? "" : "s", unrun->n == 1 ? "was" : "were",
             unrun->n == 1 ? "it is" : "they are");
}

static size_t missing_values(const analysis_series *s)
{
    size_t missing = 0;
    for (size_t i = 0; i < s->n; i++)
        missing += !isfinite(s->values[i]);
    return missing;
}

static size_t timed_out_runs(const report_input *in, const analysis_series *s)
{
    size_t n = 0;
    for (size_t i = 0; i < in->n_samples; i++)
        n += in->samples[i].timed_out && strcmp(in->samples[i].point, s->point) == 0 &&
             strcmp(in->samples[i].variant, s->variant) == 0;
    return n;
}

void query_comparison_error(const report_input *in, const analysis_comparison *c, char *buf,
                            size_t len)
{
    const analysis_series *x = &in->series[c->candidate], *b = &in->series[c->baseline];
    const analysis_series *short_of = missing_values(x) > 0 ? x : b;
    size_t missing = missing_values(short_of);
    if (missing == 0) {
        snprintf(buf, len, "%s", c->error ? c->error : "cannot compare");
        return;
    }
    size_t timed_out = timed_out_runs(in, short_of);
    if (timed_out >= missing)
        snprintf(buf, len, "%s vs %s: cannot compare: %zu of %zu runs of %s timed out, and a run "
                 "that times out has no %s value", x->variant, b->variant, missing,
                 short_of->n, short_of->variant, short_of->metric);
    else if (timed_out > 0)
        snprintf(buf, len, "%s vs %s: cannot compare: %zu of %zu runs of %s have no %s value "
                 "(%zu timed out; the output of the others held no number)", x->variant,
                 b->variant, missing, short_of->n, short_of->variant, short_of->metric,
                 timed_out);
    else
        snprintf(buf, len, "%s vs %s: cannot compare: %zu of %zu runs of %s have no %s value "
                 "(they timed out or failed, or their output held no number)", x->variant,
                 b->variant, missing, short_of->n, short_of->variant, short_of->metric);
}

void query_warning_message(const report_input *in, const analysis_warning *w, char *buf,
                           size_t len)
{
    if (strcmp(w->code, "comparison-failed") == 0)
        for (size_t k = 0; k < in->analysis->n_comparisons; k++) {
            const analysis_comparison *c = &in->analysis->comparisons[k];
            const analysis_series *x = &in->series[c->candidate];
            if (!c->ok && strcmp(x->point, w->point) == 0 && strcmp(x->variant, w->variant) == 0) {
                query_comparison_error(in, c, buf, len);
                return;
            }
        }
    snprintf(buf, len, "%s", w->message);
}
