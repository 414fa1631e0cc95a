/* Markdown export: the verdict table, the overall effect and the per-variant summaries, for
 * a mail, a wiki or a pull request. Text from commands is escaped so it cannot break the
 * tables, and its control characters are shown as \xNN so that it cannot drive a terminal. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/output_file.h"
#include "common/error.h"
#include "report/phrases.h"
#include "report/plain_text.h"
#include "report/report.h"
#include "report/report_query.h"
#include "report/units.h"
#include "stats/level_text.h"
#include "stats/verdict_rules.h"

#define LEVEL_TEXT 40

/* Control characters first become visible escapes (plain_text.h), then Markdown's own
 * characters are escaped, so "\x1b" shows as written. */
static void write_text(FILE *f, const char *text)
{
    char *visible = plain_escaped_copy(text);
    for (const char *c = visible ? visible : "(out of memory)"; *c; c++) {
        if (*c == '|' || *c == '\\' || *c == '`' || *c == '*' || *c == '_' || *c == '<' ||
            *c == '[' || *c == ']')
            fputc('\\', f);
        fputc(*c, f);
    }
    free(visible);
}

static void write_cell(FILE *f, const char *text)
{
    fputc(' ', f);
    write_text(f, text);
    fputs(" |", f);
}

/* A change and its interval: numbers, which need no escaping. */
static void write_estimate_cells(FILE *f, const phrases_estimate *e, const char *level)
{
    fprintf(f, " %s | %s at %s%% |", e->change, e->interval, level);
}

/* The point's cell; in a fleet "point · machine", so each machine's row says whose it is. */
static void write_point_cell(FILE *f, const report_input *in, const analysis_series *s)
{
    if (in->n_machines <= 1 || s->machine == NULL || s->machine[0] == '\0') {
        write_cell(f, s->point);
        return;
    }
    char both[512];
    snprintf(both, sizeof both, "%s · %s", s->point, s->machine);
    write_cell(f, both);
}

/* A fleet's pooled comparisons: the change over the machines, its interval, where a new
 * machine is expected, the spread between machines. */
static void write_fleet(FILE *f, const report_input *in)
{
    const analysis_result *a = in->analysis;
    if (a->n_fleet == 0)
        return;
    char level[LEVEL_TEXT];
    level_text(a->fleet_confidence, 6, level, sizeof level);
    fprintf(f, "\nAcross machines (random effects, Hartung-Knapp, %s%%):\n\n"
            "| point | metric | baseline | candidate | machines | change | interval | "
            "new machine | spread | verdict |\n"
            "| --- | --- | --- | --- | ---: | ---: | --- | --- | ---: | --- |\n", level);
    for (size_t i = 0; i < a->n_fleet; i++) {
        const analysis_fleet *x = &a->fleet[i];
        fputc('|', f);
        write_cell(f, x->point);
        write_cell(f, x->metric);
        write_cell(f, x->baseline);
        write_cell(f, x->candidate);
        fprintf(f, " %zu |", x->n_machines);
        if (!x->ok) {
            fputs(" | | | | not pooled (", f); /* the analysis's message names the variants */
            write_text(f, x->error ? x->error : "no result");
            fputs(") |\n", f);
            continue;
        }
        phrases_pooled pooled;
        phrases_of_fleet(x, &pooled);
        fprintf(f, " %s | %s | %s to %s | %s | %s |\n", pooled.estimate.change,
                pooled.estimate.interval, pooled.predict_low, pooled.predict_high, pooled.spread,
                pooled.kind);
    }
}

/* Several comparisons under Holm or BH: their intervals are at the adjusted level, so the p
 * beside them is the adjusted one too (as in the HTML page). */
static bool p_adjusted_shown(const report_input *in)
{
    return in->analysis->n_comparisons > 1 && in->options->adjust != ADJUST_NONE;
}

static void write_comparisons(FILE *f, const report_input *in, const query_point_set *unrun)
{
    bool adjusted = p_adjusted_shown(in);
    fprintf(f, "| point | metric | baseline | candidate | change | interval | p%s | verdict |\n"
            "| --- | --- | --- | --- | ---: | --- | ---: | --- |\n", adjusted ? " (adjusted)" : "");
    for (size_t k = 0; k < in->analysis->n_comparisons; k++) {
        const analysis_comparison *c = &in->analysis->comparisons[k];
        const analysis_series *b = &in->series[c->baseline], *x = &in->series[c->candidate];
        if (query_point_set_has(unrun, b->point))
            continue;
        fputc('|', f);
        write_point_cell(f, in, b);
        write_cell(f, b->metric);
        write_cell(f, b->variant);
        write_cell(f, x->variant);
        phrases_comparison p;
        phrases_of_comparison(in, c, &p);
        if (c->ok) {
            write_estimate_cells(f, &p.estimate, p.level);
            fprintf(f, " %.2g |", adjusted ? c->p_adjusted : c->result.p_value);
        } else {
            fputs(" | | |", f);
        }
        fprintf(f, " %s: ", p.kind_word);
        phrases_write_words(f, &p, write_text);
        fputs(" |\n", f);
    }
}

/* A candidate's effect across the points of a sweep: the geometric mean of its ratios. */
static void write_overall(FILE *f, const report_input *in)
{
    const analysis_result *a = in->analysis;
    if (a->n_overall == 0)
        return;
    fputs("\nOverall, across the points (geometric mean of the ratios):\n\n"
          "| candidate | baseline | metric | points | change | interval | verdict |\n"
          "| --- | --- | --- | ---: | ---: | --- | --- |\n", f);
    for (size_t i = 0; i < a->n_overall; i++) {
        const analysis_overall *o = &a->overall[i];
        char level[LEVEL_TEXT];
        level_text(o->confidence, 4, level, sizeof level);
        fputc('|', f);
        write_cell(f, o->candidate);
        write_cell(f, o->baseline);
        write_cell(f, o->metric);
        fprintf(f, " %zu |", o->n_points);
        phrases_estimate e;
        char kind[64];
        phrases_estimate_of(o->ratio, o->ci_low, o->ci_high, false, false, &e);
        phrases_kind(&o->decision, kind, sizeof kind);
        write_estimate_cells(f, &e, level);
        fprintf(f, " %s |\n", kind);
    }
}

static void write_summaries(FILE *f, const report_input *in, const query_point_set *unrun)
{
    fputs("\n| point | metric | variant | n | median | CV | min | max |\n"
          "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: |\n", f);
    for (size_t i = 0; i < in->n_series; i++) {
        const stats_summary *s = &in->analysis->summaries[i];
        if (query_point_set_has(unrun, in->series[i].point))
            continue;
        fputc('|', f);
        write_point_cell(f, in, &in->series[i]);
        write_cell(f, in->series[i].metric);
        write_cell(f, in->series[i].variant);
        char cv[24];
        units_format_cv(s->cv, cv, sizeof cv);
        fprintf(f, " %zu | %.6g | %s | %.6g | %.6g |\n", s->n, s->median, cv, s->min, s->max);
    }
}

static void write_warnings(FILE *f, const report_input *in, const query_point_set *unrun)
{
    bool any = false;
    for (size_t i = 0; i < in->analysis->n_warnings; i++) {
        const analysis_warning *w = &in->analysis->warnings[i];
        if (query_point_set_has(unrun, w->point))
            continue;
        if (!any)
            fputs("\nWarnings:\n\n", f);
        any = true;
        fputs("- `", f); /* codes are verdict's own words: nothing to escape in a code span */
        plain_write(f, w->code);
        fputs("`", f);
        if (w->point && *w->point && in->n_points > 1) {
            fputs(" at ", f);
            write_text(f, w->point);
        }
        char message[2048];
        query_warning_message(in, w, message, sizeof message);
        fputs(": ", f);
        write_text(f, message);
        fputc('\n', f);
    }
}

static void write_document(FILE *f, const report_input *in, const query_point_set *unrun)
{
    char level[LEVEL_TEXT], line[160];
    level_text(in->options->confidence, 6, level, sizeof level);
    query_unrun_line(in, unrun, line, sizeof line);
    fputs("## ", f);
    write_text(f, in->experiment_name);
    char margin[32];
    phrases_margin(in->options->margin, margin, sizeof margin);
    char method[96];
    phrases_method(in, method, sizeof method);
    fprintf(f, "\n\n%s, %s%% confidence, margin %s", method, level, margin);
    if (p_adjusted_shown(in)) {
        char interval[LEVEL_TEXT];
        level_text(in->analysis->interval_confidence, 4, interval, sizeof interval);
        fprintf(f, ", %zu comparisons, %s-adjusted (intervals at %s%%, p adjusted)",
                in->analysis->n_comparisons, in->options->adjust == ADJUST_HOLM ? "Holm" : "BH",
                interval);
    }
    fputs("\n\n", f);
    char note[PHRASES_SENTENCE];
    phrases_method_note(in->options, note, sizeof note);
    if (note[0])
        fprintf(f, "%s\n\n", note);
    if (line[0] != '\0')
        fprintf(f, "%s.\n\n", line);
    write_comparisons(f, in, unrun);
    write_overall(f, in);
    write_fleet(f, in);
    write_summaries(f, in, unrun);
    write_warnings(f, in, unrun);
}

int report_write_markdown(const report_input *in, const char *path, verdict_error *err)
{
    query_point_set unrun = {NULL, 0};
    output_file out;
    int rc = -1;
    if (query_unrun_points(in, &unrun) != 0) {
        error_set(err, ERROR_NO_MEMORY, "%s: out of memory", path);
    } else if (output_open(&out, path, err) == 0) {
        write_document(out.stream, in, &unrun);
        rc = output_commit(&out, err);
    }
    query_point_set_free(&unrun);
    return rc;
}
