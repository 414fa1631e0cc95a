/* Builds the report's charts from a report_input. Every variant keeps one style (hue,
 * marker, dash) across all charts: its index among the experiment's variants. */
#include "report/report_charts.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/phrases.h"
#include "report/report_query.h"

#define WIDE 760
#define TALL 420
#define TIMELINE_WIDTH 640
#define DISTRIBUTION_WIDTH 420
#define SMALL_TALL 340
#define GOLDEN_FRACTION 0.6180339887498949
#define JITTER 0.22          /* strip width, as a share of the gap between categories */
#define CANDIDATE_SHIFT 10.0 /* pixels between candidates' intervals at one x */

static svg_style variant_style(const report_input *in, const char *variant)
{
    for (size_t v = 0; v < in->n_variants; v++)
        if (strcmp(in->variants[v].name, variant) == 0)
            return v;
    return 0;
}

static svg_chart *new_chart(const char *title, const char *note, int width, int height)
{
    svg_chart *chart = svg_chart_new(title, width, height);
    if (chart && svg_chart_note(chart, note) != 0) {
        svg_chart_free(chart);
        return NULL;
    }
    return chart;
}

/* Points of a sweep group in ascending order of the parameter. */
static size_t group_points(const report_input *in, const report_sweep *sw, size_t group,
                           size_t *points)
{
    size_t n = 0;
    for (size_t p = 0; p < in->n_points; p++) {
        if (sw->group[p] != group)
            continue;
        size_t at = n++;
        while (at > 0 && sw->value[points[at - 1]] > sw->value[p]) {
            points[at] = points[at - 1];
            at--;
        }
        points[at] = p;
    }
    return n;
}

static int sweep_ticks(svg_chart *chart, const report_input *in, const report_sweep *sw,
                       const size_t *points, size_t n)
{
    double *at = calloc(n + 1, sizeof *at);
    const char **labels = calloc(n + 1, sizeof *labels);
    int rc = -1;
    if (at && labels) {
        for (size_t i = 0; i < n; i++) {
            at[i] = sw->value[points[i]];
            labels[i] = in->points[points[i]].param_values[sw->parameter];
        }
        rc = svg_chart_ticks(chart, SVG_X, at, labels, n);
    }
    free(at);
    free(labels);
    return rc;
}

static void sweep_title(const report_sweep *sw, const char *what, size_t group, char *buf,
                        size_t len)
{
    const char *label = sw->group_label[group];
    snprintf(buf, len, "%s against %s%s%s", what, sw->name, *label ? " · " : "", label);
}

/* One variant's line through the group's points: medians with the quartile band. */
static int sweep_variant(svg_chart *chart, const report_input *in, const report_sweep *sw,
                         const size_t *points, size_t n, const char *metric, size_t v)
{
    double *x = calloc(4 * n + 1, sizeof *x), *median = x + n, *q1 = median + n, *q3 = q1 + n;
    if (x == NULL)
        return -1;
    for (size_t i = 0; i < n; i++) {
        size_t s = query_series(in, in->points[points[i]].id, metric, in->variants[v].name);
        quartiles q = {NAN, NAN, NAN, NAN, NAN};
        if (s != QUERY_NOT_FOUND)
            query_quartiles(in->series[s].values, in->series[s].n, &q);
        x[i] = sw->value[points[i]];
        median[i] = q.median;
        q1[i] = q.q1;
        q3[i] = q.q3;
    }
    int rc = svg_chart_band(chart, v, x, q1, q3, n);
    rc |= svg_chart_line(chart, v, in->variants[v].name, x, median, n, true);
    free(x);
    return rc;
}

svg_chart *chart_sweep(const report_input *in, const report_sweep *sw, const char *metric,
                       size_t group)
{
    char title[512], label[256];
    sweep_title(sw, metric, group, title, sizeof title);
    query_metric_label(metric, label, sizeof label);
    svg_chart *chart = new_chart(title, "line: median of the runs · band: 25–75% of the runs "
                                 "(interquartile range)", WIDE, TALL);
    size_t *points = calloc(in->n_points + 1, sizeof *points);
    int rc = chart && points ? 0 : -1;
    if (rc == 0) {
        size_t n = group_points(in, sw, group, points);
        rc |= svg_chart_axis(chart, SVG_X, sw->name, sw->scale);
        rc |= svg_chart_axis(chart, SVG_Y, label, SVG_SCALE_LINEAR);
        rc |= sweep_ticks(chart, in, sw, points, n);
        for (size_t v = 0; v < in->n_variants && rc == 0; v++)
            rc |= sweep_variant(chart, in, sw, points, n, metric, v);
    }
    free(points);
    if (rc != 0) {
        svg_chart_free(chart);
        return NULL;
    }
    return chart;
}

bool chart_has_comparisons(const report_input *in, const char *metric)
{
    for (size_t k = 0; k < in->analysis->n_comparisons; k++)
        if (strcmp(in->series[in->analysis->comparisons[k].candidate].metric, metric) == 0)
            return true;
    return false;
}

/* The selected points of a change chart and where they sit on the x axis. */
typedef struct {
    size_t *points, n;
    double *x;
} change_axis;

static int change_points(const report_input *in, const report_sweep *sw, size_t group,
                         svg_chart *chart, change_axis *axis)
{
    axis->points = calloc(in->n_points + 1, sizeof *axis->points);
    axis->x = calloc(in->n_points + 1, sizeof *axis->x);
    const char **labels = calloc(in->n_points + 1, sizeof *labels);
    int rc = axis->points && axis->x && labels ? 0 : -1;
    if (rc == 0 && sw->found) {
        axis->n = group_points(in, sw, group, axis->points);
        for (size_t i = 0; i < axis->n; i++)
            axis->x[i] = sw->value[axis->points[i]];
        rc |= svg_chart_axis(chart, SVG_X, sw->name, sw->scale);
        rc |= sweep_ticks(chart, in, sw, axis->points, axis->n);
    } else if (rc == 0) {
        for (axis->n = 0; axis->n < in->n_points; axis->n++) {
            axis->points[axis->n] = axis->n;
            axis->x[axis->n] = (double)axis->n;
            labels[axis->n] = in->points[axis->n].id;
        }
        rc |= svg_chart_axis(chart, SVG_X, "point", SVG_SCALE_LINEAR);
        rc |= svg_chart_ticks(chart, SVG_X, axis->x, labels, axis->n);
        svg_chart_include(chart, SVG_X, -0.5);
        svg_chart_include(chart, SVG_X, (double)axis->n - 0.5);
    }
    free(labels);
    return rc;
}

/* Distinct candidates compared on this metric, in comparison order. */
static size_t candidates_of(const report_input *in, const char *metric, const char **names)
{
    size_t n = 0;
    for (size_t k = 0; k < in->analysis->n_comparisons; k++) {
        const analysis_series *c = &in->series[in->analysis->comparisons[k].candidate];
        bool seen = strcmp(c->metric, metric) != 0;
        for (size_t i = 0; i < n && !seen; i++)
            seen = strcmp(names[i], c->variant) == 0;
        if (!seen)
            names[n++] = c->variant;
    }
    return n;
}

static int change_candidate(svg_chart *chart, const report_input *in, const change_axis *axis,
                            const char *metric, const char *candidate, double offset)
{
    size_t n = axis->n;
    double *estimate = calloc(3 * n + 1, sizeof *estimate), *low = estimate + n, *high = low + n;
    const char *baseline = "baseline";
    if (estimate == NULL)
        return -1;
    for (size_t i = 0; i < n; i++) {
        size_t s = query_series(in, in->points[axis->points[i]].id, metric, candidate);
        const analysis_comparison *c = s == QUERY_NOT_FOUND ? NULL : query_comparison_of(in, s);
        bool ok = c && c->ok;
        estimate[i] = ok ? query_percent(c->result.ratio) : NAN;
        low[i] = ok ? query_percent(c->result.ci_low) : NAN;
        high[i] = ok ? query_percent(c->result.ci_high) : NAN;
        if (c)
            baseline = in->series[c->baseline].variant;
    }
    char legend[512];
    snprintf(legend, sizeof legend, "%s vs %s", candidate, baseline);
    int rc = svg_chart_intervals(chart, variant_style(in, candidate), legend, axis->x, estimate,
                                 low, high, n, offset);
    free(estimate);
    return rc;
}

static int change_reference(svg_chart *chart, const report_input *in)
{
    double m = in->options->margin;
    char legend[96];
    char margin[32];
    phrases_margin(m, margin, sizeof margin);
    snprintf(legend, sizeof legend, "%s equivalence margin", margin);
    int rc = svg_chart_shade(chart, query_percent(1.0 / (1.0 + m)), m * 100, legend);
    rc |= svg_chart_rule(chart, 0.0, "no change");
    return rc;
}

static void change_labels(const report_input *in, const report_sweep *sw, const char *metric,
                          size_t group, char *title, char *note, size_t len)
{
    bool higher = false;
    for (size_t i = 0; i < in->n_series; i++)
        if (strcmp(in->series[i].metric, metric) == 0)
            higher = in->series[i].higher_is_better;
    char what[300];
    snprintf(what, sizeof what, "change in %s", metric);
    if (sw->found)
        sweep_title(sw, what, group, title, len);
    else
        snprintf(title, len, "%s per point", what);
    snprintf(note, len, "point: estimated change · bar: its confidence interval (level in the "
             "table) · %s is better", higher ? "higher" : "lower");
}

svg_chart *chart_change(const report_input *in, const report_sweep *sw, const char *metric,
                        size_t group)
{
    char title[512], note[512], label[256];
    change_labels(in, sw, metric, group, title, note, sizeof title);
    snprintf(label, sizeof label, "change in %s, candidate vs baseline (%%)", metric);
    svg_chart *chart = new_chart(title, note, WIDE, TALL);
    const char **candidates = calloc(in->analysis->n_comparisons + 1, sizeof *candidates);
    change_axis axis = {NULL, 0, NULL};
    int rc = chart && candidates ? 0 : -1;
    if (rc == 0)
        rc = change_points(in, sw, group, chart, &axis);
    if (rc == 0) {
        rc |= svg_chart_axis(chart, SVG_Y, label, SVG_SCALE_LINEAR);
        rc |= change_reference(chart, in);
        size_t n = candidates_of(in, metric, candidates);
        for (size_t k = 0; k < n && rc == 0; k++)
            rc |= change_candidate(chart, in, &axis, metric, candidates[k],
                                   ((double)k - (double)(n - 1) / 2.0) * CANDIDATE_SHIFT);
    }
    free(candidates);
    free(axis.points);
    free(axis.x);
    if (rc != 0) {
        svg_chart_free(chart);
        return NULL;
    }
    return chart;
}

/* A variant's runs at a point in measurement order: sequence number, value, tainted. */
static size_t gather_runs(const report_input *in, const analysis_series *s, double *seq,
                          double *value, bool *tainted)
{
    size_t n = 0;
    for (size_t i = 0; i < in->n_samples; i++) {
        const report_sample *r = &in->samples[i];
        if (strcmp(r->point, s->point) == 0 && strcmp(r->variant, s->variant) == 0 &&
            query_sample_value(r, s->metric, &value[n])) {
            seq[n] = (double)r->seq;
            tainted[n++] = r->tainted;
        }
    }
    return n;
}

static size_t samples_at(const report_input *in, const char *point)
{
    size_t n = 0;
    for (size_t i = 0; i < in->n_samples; i++)
        n += strcmp(in->samples[i].point, point) == 0;
    return n;
}

static int timeline_variant(svg_chart *chart, const report_input *in, const analysis_series *s,
                            bool from_samples, size_t capacity)
{
    double *seq = calloc(2 * capacity + 1, sizeof *seq), *value = seq + capacity;
    bool *tainted = calloc(capacity + 1, sizeof *tainted);
    int rc = seq && tainted ? 0 : -1;
    size_t n = 0;
    if (rc == 0 && from_samples) {
        n = gather_runs(in, s, seq, value, tainted);
    } else if (rc == 0) {
        for (n = 0; n < s->n; n++) {
            seq[n] = (double)n;
            value[n] = s->values[n];
        }
    }
    svg_style style = variant_style(in, s->variant);
    if (rc == 0) {
        rc |= svg_chart_line(chart, style, NULL, seq, value, n, false);
        rc |= svg_chart_scatter(chart, style, s->variant, seq, value, tainted, n);
    }
    free(seq);
    free(tainted);
    return rc;
}

svg_chart *chart_timeline(const report_input *in, size_t first, size_t end)
{
    const analysis_series *s = &in->series[first];
    char title[512], label[256];
    snprintf(title, sizeof title, "%s · %s: every run in measurement order", s->point, s->metric);
    query_metric_label(s->metric, label, sizeof label);
    size_t from_samples = samples_at(in, s->point), capacity = from_samples;
    for (size_t i = first; i < end; i++)
        capacity = in->series[i].n > capacity ? in->series[i].n : capacity;
    svg_chart *chart = new_chart(title, "drift, slow episodes and two modes show here", TIMELINE_WIDTH,
                                 SMALL_TALL);
    int rc = chart ? 0 : -1;
    if (rc == 0) {
        rc |= svg_chart_axis(chart, SVG_X, from_samples ? "measurement order (seq)"
                                                        : "run (file order)", SVG_SCALE_LINEAR);
        rc |= svg_chart_axis(chart, SVG_Y, label, SVG_SCALE_LINEAR);
        rc |= svg_chart_flag_legend(chart, "ringed: tainted run (machine disturbed)");
        for (size_t i = first; i < end && rc == 0; i++)
            rc |= timeline_variant(chart, in, &in->series[i], from_samples > 0, capacity);
    }
    if (rc != 0) {
        svg_chart_free(chart);
        return NULL;
    }
    return chart;
}

/* Jitter from the golden ratio: deterministic, and spread evenly for any count. */
static int distribution_variant(svg_chart *chart, const report_input *in,
                                const analysis_series *s, double at)
{
    quartiles q;
    double *x = calloc(s->n + 1, sizeof *x);
    if (x == NULL)
        return -1;
    for (size_t i = 0; i < s->n; i++)
        x[i] = at + (fmod((double)i * GOLDEN_FRACTION, 1.0) - 0.5) * JITTER;
    svg_style style = variant_style(in, s->variant);
    int rc = 0;
    if (query_quartiles(s->values, s->n, &q))
        rc |= svg_chart_box(chart, style, at, q.q1, q.median, q.q3, q.min, q.max);
    rc |= svg_chart_scatter(chart, style, NULL, x, s->values, NULL, s->n);
    free(x);
    return rc;
}

svg_chart *chart_distribution(const report_input *in, size_t first, size_t end)
{
    const analysis_series *s = &in->series[first];
    char title[512], label[256];
    snprintf(title, sizeof title, "%s · %s: distributions", s->point, s->metric);
    query_metric_label(s->metric, label, sizeof label);
    size_t n = end - first;
    svg_chart *chart = new_chart(title, "box: quartiles, thick line: median, whiskers: min–max",
                                 DISTRIBUTION_WIDTH, SMALL_TALL);
    double *at = calloc(n + 1, sizeof *at);
    const char **names = calloc(n + 1, sizeof *names);
    int rc = chart && at && names ? 0 : -1;
    for (size_t i = 0; i < n && rc == 0; i++) {
        at[i] = (double)i;
        names[i] = in->series[first + i].variant;
        rc |= distribution_variant(chart, in, &in->series[first + i], at[i]);
    }
    if (rc == 0) {
        rc |= svg_chart_axis(chart, SVG_X, "variant", SVG_SCALE_LINEAR);
        rc |= svg_chart_axis(chart, SVG_Y, label, SVG_SCALE_LINEAR);
        rc |= svg_chart_ticks(chart, SVG_X, at, names, n);
        svg_chart_include(chart, SVG_X, -0.5);
        svg_chart_include(chart, SVG_X, (double)n - 0.5);
    }
    free(at);
    free(names);
    if (rc != 0) {
        svg_chart_free(chart);
        return NULL;
    }
    return chart;
}
