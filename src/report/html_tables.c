/* Tables of the HTML report. Each cell that holds text from a command, an experiment
 * file or the machine is escaped; numbers are formatted here. */
#include "report/html_tables.h"

#include <math.h>
#include <string.h>

#include "report/markup.h"
#include "report/phrases.h"
#include "report/report_query.h"
#include "report/units.h"
#include "stats/level_text.h"
#include "stats/verdict_rules.h"

#define LEVEL_TEXT 40
#define ERROR_TEXT 2048

void html_element(FILE *out, const char *tag, const char *text)
{
    fprintf(out, "<%s>", tag);
    markup_write_escaped(out, text);
    fprintf(out, "</%s>", tag);
}

static void number_cell(FILE *out, double value)
{
    if (isfinite(value))
        fprintf(out, "<td class=\"num\">%.6g</td>", value);
    else
        fputs("<td class=\"num\">–</td>", out);
}

void html_settings(FILE *out, const report_input *in)
{
    const analysis_options *o = in->options;
    fputs("<p class=\"settings\">", out);
    char method[96];
    phrases_method(in, method, sizeof method);
    markup_write_escaped(out, method);
    char level[LEVEL_TEXT], interval[LEVEL_TEXT];
    level_text(o->confidence, 6, level, sizeof level);
    level_text(in->analysis->interval_confidence, 4, interval, sizeof interval);
    char margin[32];
    phrases_margin(o->margin, margin, sizeof margin);
    fprintf(out, "%s · %s%% confidence · equivalence margin %s",
            o->paired ? " (paired by block)" : "", level, margin);
    if (in->analysis->n_comparisons > 1 && o->adjust != ADJUST_NONE)
        fprintf(out, " · %zu comparisons, %s-adjusted (intervals at %s%%)",
                in->analysis->n_comparisons, o->adjust == ADJUST_HOLM ? "Holm" : "BH", interval);
    if (in->has_seed)
        fprintf(out, " · seed %llu", (unsigned long long)in->seed);
    fputs("</p>\n", out);
    char note[PHRASES_SENTENCE];
    phrases_method_note(o, note, sizeof note);
    if (note[0]) {
        fputs("<p class=\"settings\">", out);
        markup_write_escaped(out, note);
        fputs("</p>\n", out);
    }
}

/* The change, its interval and the p beside it; dashes when it could not be computed. */
static void verdict_numbers(FILE *out, const report_input *in, const analysis_comparison *c,
                            const phrases_comparison *p)
{
    if (!c->ok) {
        fputs("<td class=\"num\">\xE2\x80\x93</td><td class=\"num\">\xE2\x80\x93</td>", out);
        number_cell(out, NAN);
        return;
    }
    fprintf(out, "<td class=\"num\">%s</td><td class=\"num\">%s <small>(%s%%)</small></td>",
            p->estimate.change, p->estimate.interval, p->level);
    bool adjusted = in->analysis->n_comparisons > 1 && in->options->adjust != ADJUST_NONE;
    number_cell(out, adjusted ? c->p_adjusted : c->result.p_value);
}

/* Where ratio r falls on a strip from lo to hi, in pixels. */
static double strip_x(double r, double lo, double hi, double width)
{
    return 4 + (log(r) - log(lo)) / (log(hi) - log(lo)) * (width - 8);
}

/* The K layouts of each variant as dots (relative to the baseline's mean layout) above the
 * change's interval: the reader sees whether the layouts spread as far as the change. */
static void layout_strip(FILE *out, const analysis_comparison *c)
{
    const analysis_layouts *l = &c->layouts;
    const double width = 180;
    double mean = 0, lo = c->result.ci_low, hi = c->result.ci_high;
    for (size_t k = 0; k < l->n_baseline; k++)
        mean += l->baseline_locations[k] / (double)l->n_baseline;
    for (size_t k = 0; k < l->n_baseline + l->n_candidate; k++) {
        double v = k < l->n_baseline ? l->baseline_locations[k]
                                     : l->candidate_locations[k - l->n_baseline];
        lo = fmin(lo, exp(v - mean));
        hi = fmax(hi, exp(v - mean));
    }
    if (!(lo > 0) || !(hi > lo) || !isfinite(hi))
        return;
    fprintf(out, "<br><svg class=\"layouts\" width=\"%.0f\" height=\"34\" role=\"img\">"
            "<title>layouts: baseline (grey, top), candidate (blue), the change's interval "
            "(bar)</title>", width);
    for (size_t k = 0; k < l->n_baseline; k++)
        fprintf(out, "<circle cx=\"%.1f\" cy=\"7\" r=\"3\" fill=\"#888\"/>",
                strip_x(exp(l->baseline_locations[k] - mean), lo, hi, width));
    for (size_t k = 0; k < l->n_candidate; k++)
        fprintf(out, "<circle cx=\"%.1f\" cy=\"17\" r=\"3\" fill=\"#36c\"/>",
                strip_x(exp(l->candidate_locations[k] - mean), lo, hi, width));
    double x0 = strip_x(c->result.ci_low, lo, hi, width);
    double x1 = strip_x(c->result.ci_high, lo, hi, width);
    fprintf(out, "<rect x=\"%.1f\" y=\"26\" width=\"%.1f\" height=\"4\" fill=\"#36c\"/>"
            "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"0\" y2=\"34\" stroke=\"#000\" "
            "stroke-dasharray=\"2\"/></svg> <small>%zu+%zu layouts, spread %.1f%%</small>",
            x0, fmax(x1 - x0, 1), strip_x(1, lo, hi, width), strip_x(1, lo, hi, width),
            l->n_baseline, l->n_candidate, l->spread * 100);
}

/* A row: the names, the numbers, and the verdict in the words every writer uses. */
static void verdict_row(FILE *out, const report_input *in, const analysis_comparison *c)
{
    const analysis_series *base = &in->series[c->baseline], *cand = &in->series[c->candidate];
    phrases_comparison p;
    phrases_of_comparison(in, c, &p);
    fprintf(out, "<tr class=\"v-%s\">", p.kind_word);
    html_element(out, "td", base->point);
    if (in->n_machines > 1)
        html_element(out, "td", analysis_comparison_machine(in->series, c));
    html_element(out, "td", base->metric);
    html_element(out, "td", base->variant);
    html_element(out, "td", cand->variant);
    verdict_numbers(out, in, c, &p);
    fprintf(out, "<td><strong>%s</strong>: ", p.kind_word);
    phrases_write_words(out, &p, markup_write_escaped);
    if (c->ok && c->across_layouts)
        layout_strip(out, c);
    fputs("</td></tr>\n", out);
}

void html_verdict_table(FILE *out, const report_input *in, const query_point_set *unrun)
{
    if (in->analysis->n_comparisons == 0) {
        fputs("<p>No comparisons: there is only one variant.</p>\n", out);
        return;
    }
    bool adjusted = in->analysis->n_comparisons > 1 && in->options->adjust != ADJUST_NONE;
    fprintf(out, "<table class=\"verdicts\">\n<thead><tr><th>point</th>%s<th>metric</th>"
                 "<th>baseline</th><th>candidate</th><th>change</th><th>interval</th>"
                 "<th>p%s</th><th>verdict</th></tr></thead>\n<tbody>\n",
            in->n_machines > 1 ? "<th>machine</th>" : "", adjusted ? " (adjusted)" : "");
    for (size_t k = 0; k < in->analysis->n_comparisons; k++) {
        const analysis_comparison *c = &in->analysis->comparisons[k];
        if (!query_point_set_has(unrun, in->series[c->baseline].point))
            verdict_row(out, in, c);
    }
    fputs("</tbody>\n</table>\n", out);
    html_unrun_note(out, in, unrun);
}

void html_overall_table(FILE *out, const report_input *in)
{
    const analysis_result *a = in->analysis;
    fputs("<table>\n<thead><tr><th>candidate</th><th>baseline</th><th>metric</th><th>points</th>"
          "<th>change</th><th>interval</th><th>verdict</th></tr></thead>\n<tbody>\n", out);
    for (size_t i = 0; i < a->n_overall; i++) {
        const analysis_overall *o = &a->overall[i];
        phrases_estimate e;
        phrases_estimate_of(o->ratio, o->ci_low, o->ci_high, false, false, &e);
        char level[LEVEL_TEXT];
        level_text(o->confidence, 6, level, sizeof level);
        fprintf(out, "<tr class=\"v-%s\">", verdict_kind_name(o->decision.kind));
        html_element(out, "td", o->candidate);
        html_element(out, "td", o->baseline);
        html_element(out, "td", o->metric);
        fprintf(out, "<td class=\"num\">%zu</td><td class=\"num\">%s</td>"
                     "<td class=\"num\">%s <small>(%s%%)</small></td><td><strong>%s</strong>%s"
                     "</td></tr>\n", o->n_points, e.change, e.interval, level,
                verdict_kind_name(o->decision.kind), phrases_negligible(&o->decision));
    }
    fputs("</tbody>\n</table>\n", out);
}

static size_t tainted_runs(const report_input *in, const analysis_series *s)
{
    size_t n = 0;
    for (size_t i = 0; i < in->n_samples; i++)
        n += in->samples[i].tainted && strcmp(in->samples[i].point, s->point) == 0 &&
             strcmp(in->samples[i].variant, s->variant) == 0;
    return n;
}

void html_summary_table(FILE *out, const report_input *in, size_t first, size_t end)
{
    fputs("<table>\n<thead><tr><th>variant</th><th>n</th><th>median</th><th>mean</th>"
          "<th>CV</th><th>min</th><th>max</th><th>tainted runs</th></tr></thead>\n<tbody>\n", out);
    for (size_t i = first; i < end; i++) {
        const stats_summary *s = &in->analysis->summaries[i];
        fputs("<tr>", out);
        html_element(out, "td", in->series[i].variant);
        fprintf(out, "<td class=\"num\">%zu</td>", s->n);
        number_cell(out, s->median);
        number_cell(out, s->mean);
        char cv[24];
        units_format_cv(s->cv, cv, sizeof cv);
        fprintf(out, "<td class=\"num\">%s</td>", cv);
        number_cell(out, s->min);
        number_cell(out, s->max);
        fprintf(out, "<td class=\"num\">%zu</td></tr>\n", tainted_runs(in, &in->series[i]));
    }
    fputs("</tbody>\n</table>\n", out);
}

void html_unrun_note(FILE *out, const report_input *in, const query_point_set *unrun)
{
    char line[160];
    query_unrun_line(in, unrun, line, sizeof line);
    if (line[0] != '\0')
        html_element(out, "p", line);
}

void html_warnings(FILE *out, const report_input *in, const query_point_set *unrun)
{
    const analysis_result *a = in->analysis;
    size_t shown = 0;
    for (size_t i = 0; i < a->n_warnings; i++) {
        const analysis_warning *w = &a->warnings[i];
        if (query_point_set_has(unrun, w->point))
            continue; /* said once for all of them by html_unrun_note */
        fputs(shown++ == 0 ? "<ul class=\"warnings\">\n" : "", out);
        fputs("<li><code>", out);
        markup_write_escaped(out, w->code);
        fputs("</code> ", out);
        if (w->point && *w->point && in->n_points > 1) {
            markup_write_escaped(out, w->point);
            fputs(" · ", out);
        }
        char message[ERROR_TEXT];
        query_warning_message(in, w, message, sizeof message);
        markup_write_escaped(out, message);
        fputs("</li>\n", out);
    }
    fputs(shown > 0 ? "</ul>\n" : "<p>No warnings.</p>\n", out);
}

void html_environment(FILE *out, const report_input *in)
{
    if (in->n_environment == 0) { /* "elsewhere" only when it is true: verdict compare's */
        fputs(in->from_runs ? "<p>No machine facts were stored with these runs.</p>\n"
                            : "<p>No machine facts (the samples were measured elsewhere).</p>\n",
              out);
        return;
    }
    fputs("<table class=\"facts\">\n<tbody>\n", out);
    for (size_t i = 0; i < in->n_environment; i++) {
        fputs("<tr>", out);
        html_element(out, "th", in->environment[i].key);
        html_element(out, "td", in->environment[i].value);
        fputs("</tr>\n", out);
    }
    fputs("</tbody>\n</table>\n", out);
}

void html_variants(FILE *out, const report_input *in)
{
    fputs("<table>\n<thead><tr><th>variant</th><th>command or file</th></tr></thead>\n<tbody>\n",
          out);
    for (size_t v = 0; v < in->n_variants; v++) {
        const report_variant *variant = &in->variants[v];
        fputs("<tr>", out);
        html_element(out, "td", variant->name);
        fputs("<td><code>", out);
        for (size_t k = 0; variant->argv && k < variant->argc; k++) {
            fputs(k ? " " : "", out);
            markup_write_escaped(out, variant->argv[k]);
        }
        if (variant->argv == NULL)
            markup_write_escaped(out, variant->file ? variant->file : "");
        fputs("</code></td></tr>\n", out);
    }
    fputs("</tbody>\n</table>\n", out);
}

bool html_has_shift_function(const report_input *in)
{
    for (size_t k = 0; k < in->analysis->n_comparisons; k++)
        if (in->analysis->comparisons[k].has_shift_function)
            return true;
    return false;
}

/* One small table per comparison: each decile of both variants and their change, so a reader
 * sees where the distributions differ (a change of the fast runs alone, or of the slow tail). */
void html_shift_functions(FILE *out, const report_input *in)
{
    for (size_t k = 0; k < in->analysis->n_comparisons; k++) {
        const analysis_comparison *c = &in->analysis->comparisons[k];
        if (!c->has_shift_function)
            continue;
        const analysis_series *b = &in->series[c->baseline], *x = &in->series[c->candidate];
        fputs("<table class=\"shift\">\n<caption>", out);
        markup_write_escaped(out, x->variant);
        fputs(" vs ", out);
        markup_write_escaped(out, b->variant);
        fputs(" · ", out);
        markup_write_escaped(out, b->point);
        fputs(" · ", out);
        markup_write_escaped(out, b->metric);
        fputs("</caption>\n<thead><tr><th>decile</th><th>", out);
        markup_write_escaped(out, b->variant);
        fputs("</th><th>", out);
        markup_write_escaped(out, x->variant);
        fputs("</th><th>change</th></tr></thead>\n<tbody>\n", out);
        for (size_t d = 0; d < ANALYSIS_DECILES; d++) {
            const analysis_decile *q = &c->shift_function[d];
            char change[PHRASES_NUMBER];
            phrases_percent(q->ratio, change, sizeof change);
            fprintf(out, "<tr><td class=\"num\">%.1f</td>", q->q);
            number_cell(out, q->baseline);
            number_cell(out, q->candidate);
            fprintf(out, "<td class=\"num\">%s</td></tr>\n", change);
        }
        fputs("</tbody>\n</table>\n", out);
    }
}
