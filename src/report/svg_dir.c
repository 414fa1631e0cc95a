/* --svg DIR: each chart of the report as its own .svg file, numbered in report order
 * and named after its point and metric (sanitized), so names never collide. */
#include "report/report.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "common/error.h"
#include "report/fleet_charts.h"
#include "report/output_file.h"
#include "report/report_charts.h"
#include "report/report_query.h"
#include "report/sweep.h"

#define MAX_METRICS 64
#define NAME_PART 60

typedef struct {
    const char *dir;
    unsigned number;
    verdict_error *err;
} svg_dir_writer;

/* Letters, digits, '.', '_' and '-' are kept; anything else becomes '_'. */
static void sanitize(const char *text, char *buf, size_t len)
{
    size_t n = 0;
    for (const char *s = text; *s && n + 1 < len && n < NAME_PART; s++) {
        char c = *s;
        bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '.' || c == '_' || c == '-';
        buf[n++] = keep ? c : c == '=' ? '-' : '_';
    }
    buf[n] = '\0';
}

/* Writes the chart as DIR/NN-kind-what-metric.svg and frees it. */
static int write_chart(svg_dir_writer *w, svg_chart *chart, const char *kind, const char *what,
                       const char *metric)
{
    if (chart == NULL) {
        error_set(w->err, ERROR_NO_MEMORY, "%s: out of memory while drawing the charts", w->dir);
        return -1;
    }
    char a[NAME_PART + 1], b[NAME_PART + 1], path[4096];
    sanitize(what, a, sizeof a);
    sanitize(metric, b, sizeof b);
    snprintf(path, sizeof path, "%s/%02u-%s%s%s-%s.svg", w->dir, ++w->number, kind, *a ? "-" : "",
             a, b);
    output_file out;
    int rc = output_open(&out, path, w->err);
    if (rc == 0 && svg_chart_write(chart, out.stream, true) != 0) {
        output_abandon(&out); /* nothing drawable: no file rather than an empty one */
    } else if (rc == 0) {
        rc = output_commit(&out, w->err);
    }
    svg_chart_free(chart);
    return rc;
}

static int write_overview(svg_dir_writer *w, const report_input *in, const report_sweep *sw)
{
    const char *metrics[MAX_METRICS];
    size_t n = query_metrics(in, metrics, MAX_METRICS);
    int rc = 0;
    for (size_t m = 0; m < n && rc == 0; m++) {
        for (size_t g = 0; sw->found && g < sw->n_groups && rc == 0; g++) {
            rc |= write_chart(w, chart_sweep(in, sw, metrics[m], g), "sweep", sw->group_label[g],
                              metrics[m]);
            if (chart_has_comparisons(in, metrics[m]) && rc == 0)
                rc |= write_chart(w, chart_change(in, sw, metrics[m], g), "change",
                                  sw->group_label[g], metrics[m]);
        }
        if (!sw->found && in->n_points > 1 && chart_has_comparisons(in, metrics[m]))
            rc |= write_chart(w, chart_change(in, sw, metrics[m], 0), "change", "", metrics[m]);
    }
    return rc;
}

static int write_points(svg_dir_writer *w, const report_input *in)
{
    size_t first = 0;
    int rc = 0;
    for (size_t i = 1; i <= in->n_series && rc == 0; i++)
        if (i == in->n_series || !analysis_same_group(&in->series[i], &in->series[first])) {
            const analysis_series *s = &in->series[first];
            rc |= write_chart(w, chart_timeline(in, first, i), "runs", s->point, s->metric);
            if (rc == 0)
                rc |= write_chart(w, chart_distribution(in, first, i), "distribution", s->point,
                                  s->metric);
            first = i;
        }
    return rc;
}

/* A fleet's forest plots: DIR/NN-forest-POINT-METRIC.svg, one per pooled comparison. */
static int write_forests(svg_dir_writer *w, const report_input *in)
{
    for (size_t i = 0; i < in->analysis->n_fleet; i++) {
        const analysis_fleet *f = &in->analysis->fleet[i];
        char a[NAME_PART + 1], b[NAME_PART + 1], path[4096];
        sanitize(f->point, a, sizeof a);
        sanitize(f->metric, b, sizeof b);
        snprintf(path, sizeof path, "%s/%02u-forest-%s-%s.svg", w->dir, ++w->number, a, b);
        output_file out;
        if (output_open(&out, path, w->err) != 0)
            return -1;
        if (fleet_forest_write(in, f, out.stream, true, w->err) != 0) {
            output_abandon(&out);
            return -1;
        }
        if (output_commit(&out, w->err) != 0)
            return -1;
    }
    return 0;
}

int report_write_svg_dir(const report_input *in, const char *dir, verdict_error *err)
{
    if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
        error_set(err, ERROR_INTERNAL, "%s: cannot create the directory: %s", dir, strerror(errno));
        return -1;
    }
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        error_set(err, ERROR_INTERNAL, "%s: not a directory", dir);
        return -1;
    }
    report_sweep sw;
    if (sweep_find(in, &sw) != 0) {
        error_set(err, ERROR_NO_MEMORY, "%s: out of memory", dir);
        return -1;
    }
    svg_dir_writer w = {dir, 0, err};
    int rc = write_forests(&w, in);
    if (rc == 0)
        rc = write_overview(&w, in, &sw);
    if (rc == 0)
        rc = write_points(&w, in);
    sweep_free(&sw);
    return rc;
}
