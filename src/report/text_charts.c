/* The per-point change chart of the terminal report. All rows of a chart share one scale
 * so the intervals can be compared by eye, as in the HTML report's change chart. */
#include "report/text_charts.h"

#include <math.h>
#include <string.h>

#include "report/phrases.h"
#include "report/plain_text.h"
#include "report/report_query.h"
#include "stats/verdict_rules.h"

#define CHART_WIDTH 50
#define LABEL_WIDTH 24
#define MAX_METRICS 64

typedef struct {
    double low, high; /* percent */
} change_scale;

static int column_of(const change_scale *s, double percent)
{
    double position = (percent - s->low) / (s->high - s->low) * (CHART_WIDTH - 1);
    int column = (int)lround(position);
    return column < 0 ? 0 : column >= CHART_WIDTH ? CHART_WIDTH - 1 : column;
}

static bool in_chart(const report_input *in, const analysis_comparison *c, const char *metric,
                     const char *candidate)
{
    const analysis_series *s = &in->series[c->candidate];
    return c->ok && strcmp(s->metric, metric) == 0 && strcmp(s->variant, candidate) == 0;
}

static change_scale scale_of(const report_input *in, const char *metric, const char *candidate)
{
    double m = in->options->margin;
    change_scale s = {query_percent(1.0 / (1.0 + m)), m * 100};
    for (size_t k = 0; k < in->analysis->n_comparisons; k++) {
        const analysis_comparison *c = &in->analysis->comparisons[k];
        if (!in_chart(in, c, metric, candidate))
            continue;
        if (isfinite(c->result.ci_low))
            s.low = fmin(s.low, query_percent(c->result.ci_low));
        if (isfinite(c->result.ci_high))
            s.high = fmax(s.high, query_percent(c->result.ci_high));
    }
    double pad = (s.high - s.low) * 0.04;
    s.low -= pad;
    s.high += pad;
    return s;
}

/* Background ':' for the margin band, '|' for no change, then the interval on top. */
static void draw_row(const report_input *in, const change_scale *s, const comparison *r,
                     char *row)
{
    double m = in->options->margin;
    memset(row, ' ', CHART_WIDTH);
    row[CHART_WIDTH] = '\0';
    for (int c = column_of(s, query_percent(1.0 / (1.0 + m))); c <= column_of(s, m * 100); c++)
        row[c] = ':';
    int low = column_of(s, query_percent(r->ci_low)), high = column_of(s, query_percent(r->ci_high));
    for (int c = low; c <= high; c++)
        row[c] = '-';
    row[column_of(s, 0)] = '|';
    if (low < high) {
        row[low] = '[';
        row[high] = ']';
    }
    row[column_of(s, query_percent(r->ratio))] = '*';
}

static void print_axis(const change_scale *s, FILE *out)
{
    char low[16], high[16], line[CHART_WIDTH + 1];
    snprintf(low, sizeof low, "%+.1f%%", s->low);
    snprintf(high, sizeof high, "%+.1f%%", s->high);
    memset(line, ' ', CHART_WIDTH);
    line[CHART_WIDTH] = '\0';
    memcpy(line, low, strlen(low));
    memcpy(line + CHART_WIDTH - strlen(high), high, strlen(high));
    int zero = column_of(s, 0);
    bool free_there = line[zero] == ' ' && (zero == 0 || line[zero - 1] == ' ') &&
                      (zero == CHART_WIDTH - 1 || line[zero + 1] == ' ');
    if (free_there) /* the end labels win: they give the scale */
        line[zero] = '0';
    fprintf(out, "  %-*s %s\n", LABEL_WIDTH, "", line);
}

static void print_chart(const report_input *in, const char *metric, const char *candidate,
                        FILE *out)
{
    change_scale s = scale_of(in, metric, candidate);
    const char *baseline = NULL;
    bool higher = false;
    for (size_t k = 0; k < in->analysis->n_comparisons && baseline == NULL; k++)
        if (in_chart(in, &in->analysis->comparisons[k], metric, candidate)) {
            baseline = in->series[in->analysis->comparisons[k].baseline].variant;
            higher = in->series[in->analysis->comparisons[k].baseline].higher_is_better;
        }
    if (baseline == NULL)
        return;
    fputs("\n", out);
    text_style_on(out, &in->text_style, TEXT_PAINT_BOLD);
    fputs("== change per point: ", out);
    plain_write(out, candidate);
    fputs(" vs ", out);
    plain_write(out, baseline);
    fputs(", ", out);
    plain_write(out, metric);
    fprintf(out, " (%s is better) ==", higher ? "higher" : "lower");
    text_style_off(out, &in->text_style);
    fputs("\n", out);
    char margin[32];
    phrases_margin(in->options->margin, margin, sizeof margin);
    fprintf(out, "   * estimate, [---] interval, : the %s margin, | no change\n", margin);
    print_axis(&s, out);
    for (size_t k = 0; k < in->analysis->n_comparisons; k++) {
        const analysis_comparison *c = &in->analysis->comparisons[k];
        if (!in_chart(in, c, metric, candidate))
            continue;
        char row[CHART_WIDTH + 1], label[LABEL_WIDTH + 1], change[PHRASES_NUMBER];
        draw_row(in, &s, &c->result, row);
        plain_escape(in->series[c->candidate].point, label, sizeof label);
        phrases_change(c->result.ratio, change, sizeof change);
        fprintf(out, "  %-*s %s %7s  ", LABEL_WIDTH, label, row, change);
        text_style_verdict(out, &in->text_style, c->result.decision.kind);
        fputs("\n", out);
    }
}

void text_change_charts(const report_input *in, FILE *out)
{
    if (in->n_points < 2)
        return;
    const char *metrics[MAX_METRICS];
    size_t n_metrics = query_metrics(in, metrics, MAX_METRICS);
    for (size_t m = 0; m < n_metrics; m++)
        for (size_t v = 1; v < in->n_variants; v++)
            print_chart(in, metrics[m], in->variants[v].name, out);
}
