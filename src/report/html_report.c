/* The single-file HTML report: verdicts, sweep and change charts, every point's runs, the
 * overall effect, a fleet's forest plots, warnings and machine facts, inline and offline. */
#include "report/report.h"

#include <string.h>

#include "common/error.h"
#include "report/fleet_charts.h"
#include "report/html_profiles.h"
#include "report/html_tables.h"
#include "report/markup.h"
#include "report/output_file.h"
#include "report/report_charts.h"
#include "report/report_query.h"
#include "report/sweep.h"
#include "version.h"

#define MAX_METRICS 64

/* No external resource of any kind may load: the policy forbids all but inline parts. */
static const char page_head[] =
    "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n"
    "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
    "style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\"/>\n"
    "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>\n";

static const char page_style[] =
    "<style>\n"
    "body { font-family: sans-serif; margin: 1.5em auto; max-width: 1200px; padding: 0 1em;"
    " color: #1a1a1a; line-height: 1.4; }\n"
    "h1 { font-size: 1.6em; margin-bottom: 0.2em; }\n"
    "h2 { border-bottom: 1px solid #ccc; padding-bottom: 0.2em; margin-top: 1.8em; }\n"
    "table { border-collapse: collapse; margin: 0.6em 0; font-size: 0.92em; }\n"
    "th, td { border: 1px solid #d0d0d0; padding: 0.25em 0.55em; text-align: left;"
    " vertical-align: top; }\n"
    "thead th { background: #f1f1f1; }\n"
    "td.num { text-align: right; white-space: nowrap; font-variant-numeric: tabular-nums; }\n"
    "tr.v-better td { background: #e9f6ec; }\n"
    "tr.v-worse td { background: #fbeaea; }\n"
    "tr.v-equivalent td { background: #eef3fb; }\n"
    ".settings, figcaption, .note { color: #444; }\n"
    ".charts { display: flex; flex-wrap: wrap; gap: 1em; align-items: flex-start; }\n"
    "figure { margin: 0.5em 0; }\n"
    "figure svg { max-width: 100%; height: auto; border: 1px solid #e5e5e5; }\n"
    "figcaption { font-size: 0.88em; max-width: 760px; }\n"
    "details { margin: 0.8em 0; }\n"
    "summary { cursor: pointer; font-weight: bold; font-size: 1.1em; }\n"
    "table.facts th { background: #f7f7f7; font-weight: normal; }\n"
    "code { font-size: 0.95em; }\n"
    "</style>\n";

static int write_figure(FILE *out, svg_chart *chart, const char *caption)
{
    if (chart == NULL)
        return -1;
    fputs("<figure>\n", out);
    int rc = svg_chart_write(chart, out, false);
    svg_chart_free(chart);
    if (rc != 0) /* no drawable data (e.g. every comparison failed): say so instead */
        fputs("<p class=\"note\">(nothing to draw)</p>\n", out);
    if (caption)
        html_element(out, "figcaption", caption);
    fputs("\n</figure>\n", out);
    return 0;
}

static void write_header(FILE *out, const report_input *in)
{
    fputs(page_head, out);
    fputs("<title>verdict: ", out);
    markup_write_escaped(out, in->experiment_name);
    fputs("</title>\n", out);
    fputs(page_style, out);
    fputs("</head>\n<body>\n<h1>", out);
    markup_write_escaped(out, in->experiment_name);
    fputs("</h1>\n", out);
    html_settings(out, in);
}

static int write_sweep_charts(FILE *out, const report_input *in, const report_sweep *sw,
                              const char *metric)
{
    int rc = 0;
    for (size_t g = 0; g < sw->n_groups && rc == 0; g++) {
        fputs("<div class=\"charts\">\n", out);
        rc |= write_figure(out, chart_sweep(in, sw, metric, g),
                           "Each variant's median at every value of the parameter; the shaded "
                           "band holds the middle half of the runs (25th to 75th percentile).");
        if (chart_has_comparisons(in, metric))
            rc |= write_figure(out, chart_change(in, sw, metric, g),
                               "The candidate's change against the baseline with its confidence "
                               "interval; the grey band is the equivalence margin.");
        fputs("</div>\n", out);
    }
    return rc;
}

static int write_overview_charts(FILE *out, const report_input *in, const report_sweep *sw)
{
    const char *metrics[MAX_METRICS];
    size_t n = query_metrics(in, metrics, MAX_METRICS);
    int rc = 0;
    if (sw->found) {
        fputs("<h2>Against ", out);
        markup_write_escaped(out, sw->name);
        fputs("</h2>\n", out);
        for (size_t m = 0; m < n && rc == 0; m++)
            rc |= write_sweep_charts(out, in, sw, metrics[m]);
    } else if (in->n_points > 1) {
        fputs("<h2>Change per point</h2>\n", out);
        for (size_t m = 0; m < n && rc == 0; m++)
            if (chart_has_comparisons(in, metrics[m]))
                rc |= write_figure(out, chart_change(in, sw, metrics[m], 0),
                                   "The candidate's change against the baseline per point with "
                                   "its confidence interval; the grey band is the equivalence "
                                   "margin.");
    }
    return rc;
}

static int write_point_group(FILE *out, const report_input *in, size_t first, size_t end)
{
    const analysis_series *s = &in->series[first];
    fputs("<details open=\"open\">\n<summary>", out);
    markup_write_escaped(out, s->point);
    fputs(" · ", out);
    markup_write_escaped(out, s->metric);
    if (s->machine && s->machine[0]) {
        fputs(" · machine ", out);
        markup_write_escaped(out, s->machine);
    }
    fprintf(out, " (%s is better)</summary>\n", s->higher_is_better ? "higher" : "lower");
    html_summary_table(out, in, first, end);
    fputs("<div class=\"charts\">\n", out);
    int rc = write_figure(out, chart_timeline(in, first, end),
                          "Every run in the order it was measured (all variants interleaved); a "
                          "ring marks a run taken while the machine was disturbed.");
    rc |= write_figure(out, chart_distribution(in, first, end),
                       "The runs that were compared (complete blocks), side by side.");
    fputs("</div>\n</details>\n", out);
    return rc;
}

/* A block per point that was run; the points never run are counted in one note. */
static int write_points(FILE *out, const report_input *in, const query_point_set *unrun)
{
    fputs("<h2>Runs per point</h2>\n", out);
    html_unrun_note(out, in, unrun);
    size_t first = 0;
    int rc = 0;
    for (size_t i = 1; i <= in->n_series && rc == 0; i++)
        if (i == in->n_series || !analysis_same_group(&in->series[i], &in->series[first])) {
            if (!query_point_set_has(unrun, in->series[first].point))
                rc |= write_point_group(out, in, first, i);
            first = i;
        }
    return rc;
}

/* One forest plot per pooled comparison (report/fleet_charts.c). */
static int write_forest(FILE *out, const report_input *in, const analysis_fleet *f)
{
    verdict_error why = {0};
    fputs("<figure>\n", out);
    if (fleet_forest_write(in, f, out, false, &why) != 0)
        fputs("<p class=\"note\">(nothing to draw)</p>\n", out);
    html_element(out, "figcaption", "Each machine's change with its confidence interval; the "
                 "diamond is the pooled change over the machines (random effects), the dashed "
                 "bar where a machine not in this fleet is expected (prediction interval).");
    fputs("\n</figure>\n", out);
    return 0;
}

static int write_fleet(FILE *out, const report_input *in)
{
    if (in->analysis->n_fleet == 0)
        return 0;
    fprintf(out, "<h2>Across machines</h2>\n<p class=\"note\">%zu machines; each "
            "comparison pooled over them with the machines as a random effect.</p>\n",
            in->n_machines);
    int rc = 0;
    for (size_t i = 0; i < in->analysis->n_fleet && rc == 0; i++)
        rc = write_forest(out, in, &in->analysis->fleet[i]);
    return rc;
}

static int write_page(FILE *out, const report_input *in, const report_sweep *sw,
                      const query_point_set *unrun)
{
    write_header(out, in);
    fputs("<h2>Verdicts</h2>\n", out);
    html_verdict_table(out, in, unrun);
    if (in->analysis->n_overall > 0) {
        fputs("<h2>Overall effect across the points</h2>\n<p class=\"note\">Geometric mean of "
              "the per-point ratios.</p>\n", out);
        html_overall_table(out, in);
    }
    if (html_has_shift_function(in)) {
        fputs("<h2>Shift function</h2>\n<p class=\"note\">Each decile of both variants "
              "(Harrell-Davis) and their change: where the distributions differ.</p>\n", out);
        html_shift_functions(out, in);
    }
    int rc = write_fleet(out, in);
    if (html_has_profiles(in))
        rc |= html_profiles(out, in);
    rc |= write_overview_charts(out, in, sw);
    rc |= write_points(out, in, unrun);
    fputs("<h2>Warnings</h2>\n", out);
    html_warnings(out, in, unrun);
    fputs("<h2>Variants</h2>\n", out);
    html_variants(out, in);
    fputs("<h2>Environment</h2>\n", out);
    html_environment(out, in);
    fputs("<p class=\"note\">Written by verdict " VERDICT_VERSION ".</p>\n", out);
    /* The only script: a marker the browser test reads; the page needs no script. */
    fputs("<script>document.body.dataset.ready = \"yes\";</script>\n</body>\n</html>\n", out);
    return rc;
}

int report_write_html(const report_input *in, const char *path, verdict_error *err)
{
    report_sweep sw = {0};
    query_point_set unrun = {NULL, 0};
    output_file out;
    int rc = -1;
    if (sweep_find(in, &sw) != 0 || query_unrun_points(in, &unrun) != 0) {
        error_set(err, ERROR_NO_MEMORY, "%s: out of memory", path);
    } else if (output_open(&out, path, err) == 0) {
        if (write_page(out.stream, in, &sw, &unrun) == 0) {
            rc = output_commit(&out, err);
        } else {
            output_abandon(&out);
            error_set(err, ERROR_NO_MEMORY, "%s: out of memory while drawing the charts", path);
        }
    }
    sweep_free(&sw);
    query_point_set_free(&unrun);
    return rc;
}
