/* The terminal report: a table per point, a ministat-style plot, one sentence per
 * comparison that can be pasted into a mail, and the warnings. Names are escaped. */
#include "report/report.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/utf8.h"
#include "report/ascii_plot.h"
#include "report/phrases.h"
#include "report/plain_text.h"
#include "report/report_query.h"
#include "report/text_charts.h"
#include "report/text_headlines.h"
#include "report/units.h"
#include "stats/level_text.h"
#include "stats/verdict_rules.h"

#define PLOT_WIDTH 64
#define NAME_MAX_WIDTH 48
#define LEVEL_TEXT 40
static const char markers[] = "x+*o#@%&=~";

static char marker_of(size_t index_in_point)
{
    return markers[index_in_point % (sizeof markers - 1)];
}

static void print_settings(const report_input *in, FILE *out)
{
    const analysis_options *o = in->options;
    char level[LEVEL_TEXT];
    level_text(o->confidence, 6, level, sizeof level);
    char margin[32];
    phrases_margin(o->margin, margin, sizeof margin);
    char method[96];
    phrases_method(in, method, sizeof method);
    fprintf(out, "%s%s · %s%% confidence · margin %s", method,
            o->paired ? " (paired by block)" : "", level, margin);
    if (in->analysis->n_comparisons > 1 && o->adjust != ADJUST_NONE)
        fprintf(out, " · %zu comparisons, %s-adjusted", in->analysis->n_comparisons,
                o->adjust == ADJUST_HOLM ? "Holm" : "BH");
    fputs("\n", out);
    char note[PHRASES_SENTENCE];
    phrases_method_note(o, note, sizeof note);
    if (note[0])
        fprintf(out, "%s\n", note);
}

/* Runs of one variant in blocks that did not measure it: they are kept (on_failure: record,
 * --ignore-failure) but never analysed, and the report says so rather than hide them. */
static void count_failures(const report_input *in, const char *variant, size_t *runs,
                           size_t *failed, size_t *timed_out)
{
    *runs = *failed = *timed_out = 0;
    for (size_t i = 0; i < in->n_samples; i++) {
        const report_sample *s = &in->samples[i];
        /* outside blocks, a run of verdict's own is a warmup; a file's run (compare) counts */
        if ((s->block < 0 && in->from_runs) || strcmp(s->variant, variant) != 0)
            continue;
        (*runs)++;
        *timed_out += s->timed_out;
        *failed += !s->timed_out && s->exit_code != 0;
    }
}

static void print_failures(const report_input *in, FILE *out)
{
    bool any = false;
    for (size_t v = 0; v < in->n_variants; v++) {
        size_t runs, failed, timed_out;
        count_failures(in, in->variants[v].name, &runs, &failed, &timed_out);
        if (failed + timed_out == 0)
            continue;
        if (!any)
            fputs("runs excluded from the analysis:\n", out);
        any = true;
        fputs("  ", out);
        plain_write(out, in->variants[v].name);
        fprintf(out, ": %zu of %zu runs excluded (", failed + timed_out, runs);
        if (failed)
            fprintf(out, "%zu failed: non-zero exit%s", failed, timed_out ? "; " : "");
        if (timed_out)
            fprintf(out, "%zu timed out", timed_out);
        fputs(")\n", out);
    }
}

/* "A", or "A @3" for layout twin 3 of A, escaped as it will be printed; its length. */
static size_t series_label(const analysis_series *s, char *buf, size_t len)
{
    size_t n = plain_escape(s->variant, buf, len);
    if (s->n_layouts > 1 && n + 1 < len) {
        snprintf(buf + n, len - n, " @%zu", s->layout);
        n = strlen(buf);
    }
    return n;
}

/* Column width of the variant names of one table, as they will be printed (escaped). */
static int name_width(const report_input *in, size_t first, size_t end)
{
    size_t width = 7;
    for (size_t i = first; i < end; i++) {
        char name[NAME_MAX_WIDTH + 8];
        size_t length = series_label(&in->series[i], name, sizeof name);
        if (length > width)
            width = length;
    }
    return (int)width;
}

/* How a group's numbers are shown: a time metric in one unit for the whole table, so that
 * a column can be read down. hyperfine picks it from the mean; the median here, so that one
 * stalled run (5 s among 1 ms runs) does not write every other value as 0.0008123 s. */
static units_format group_format(const report_input *in, size_t first)
{
    const stats_summary *s = &in->analysis->summaries[first];
    double typical = isfinite(s->median) ? s->median : s->mean;
    return units_for(text_style_is_time(&in->text_style, in->series[first].metric), typical,
                     in->text_style.time_unit);
}

/* Right-aligned in `width` terminal columns (µ is two bytes but one column). */
static void print_right(FILE *out, const char *text, int width)
{
    int columns = (int)utf8_width(text);
    fprintf(out, "%*s%s", width > columns ? width - columns : 0, "", text);
}

static bool ranks_before(const report_input *in, size_t a, size_t b)
{
    double ma = in->analysis->summaries[a].mean, mb = in->analysis->summaries[b].mean;
    return in->series[a].higher_is_better ? ma > mb : ma < mb;
}

/* The rows of a table in the order --sort asks: as given, or best mean first (stable). */
static void table_order(const report_input *in, size_t first, size_t end, size_t *order)
{
    size_t n = end - first;
    for (size_t i = 0; i < n; i++)
        order[i] = first + i;
    for (size_t i = 1; in->text_style.sort == TEXT_SORT_MEAN && i < n; i++)
        for (size_t j = i; j > 0 && ranks_before(in, order[j], order[j - 1]); j--) {
            size_t swap = order[j];
            order[j] = order[j - 1];
            order[j - 1] = swap;
        }
}

static void print_row(const report_input *in, size_t i, size_t first, int width,
                      const units_format *format, FILE *out)
{
    const stats_summary *s = &in->analysis->summaries[i];
    char name[NAME_MAX_WIDTH + 8], median[48], cv[24];
    series_label(&in->series[i], name, sizeof name);
    units_format_value(format, s->median, median, sizeof median);
    units_format_cv(s->cv, cv, sizeof cv);
    fprintf(out, " %c  %-*s %6zu ", marker_of(i - first), width, name, s->n);
    print_right(out, median, 14);
    fputc(' ', out);
    print_right(out, cv, 8);
    fputc('\n', out);
}

static void print_table(const report_input *in, size_t first, size_t end, FILE *out)
{
    int width = name_width(in, first, end);
    units_format format = group_format(in, first);
    size_t *order = malloc((end - first) * sizeof *order);
    fprintf(out, "    %-*s %6s %14s %8s\n", width, "variant", "n", "median", "CV");
    if (order != NULL)
        table_order(in, first, end, order);
    for (size_t k = 0; k < end - first; k++)
        print_row(in, order ? order[k] : first + k, first, width, &format, out);
    free(order);
    fputs("\n", out);
}

static void print_plot(const report_input *in, size_t first, size_t end, FILE *out)
{
    plot_group groups[sizeof markers];
    size_t n = 0;
    for (size_t i = first; i < end && n < sizeof markers - 1; i++, n++)
        groups[n] = (plot_group){marker_of(i - first), in->series[i].values, in->series[i].n};
    units_format format = group_format(in, first);
    ascii_plot_write(out, groups, n, PLOT_WIDTH, &format);
}

/* Why an interval is wider than the family's level: the planned looks, the comparisons,
 * the share of alpha kept for `verdict run --more`, or the extension this look follows. */
static void print_widening(const report_input *in, FILE *out)
{
    size_t m = in->analysis->n_comparisons;
    bool widened = in->looks > 1 || m > 1;
    const char *next = widened ? "; " : ", ";
    if (widened)
        fputs(", widened for ", out);
    if (in->looks > 1)
        fprintf(out, "%zu planned looks%s", in->looks, m > 1 ? " and " : "");
    if (m > 1)
        fprintf(out, "%zu comparisons", m);
    if (in->extensions > 0 && in->looks > 1) { /* an adaptive plan's extensions add looks */
        fprintf(out, "%sextended (--more) from %zu to %zu blocks", next, in->planned_blocks,
                in->extended_to);
    } else if (in->extensions > 0) {
        fprintf(out, "%slook %zu: extended from %zu to %zu blocks", next, in->extensions + 1,
                in->extended_from, in->extended_to);
    } else if (in->reserve_for_more > 0) {
        char kept[LEVEL_TEXT], alpha[LEVEL_TEXT];
        level_text((1.0 - in->options->confidence) * in->reserve_for_more, 6, kept,
                   sizeof kept);
        level_text(1.0 - in->options->confidence, 6, alpha, sizeof alpha);
        fprintf(out, "%skeeping %s%% of the %s%% for --more", next, kept, alpha);
    }
}

static void print_interval_line(const report_input *in, const analysis_comparison *c,
                                const phrases_comparison *p, size_t first, FILE *out)
{
    const comparison *r = &c->result;
    fprintf(out, " %c vs %c: %s %s", marker_of(c->candidate - first),
            marker_of(c->baseline - first), p->estimate.change, p->estimate.interval);
    char achieved[LEVEL_TEXT], wanted[LEVEL_TEXT], interval[LEVEL_TEXT];
    level_text(r->achieved_confidence, 6, achieved, sizeof achieved);
    level_text(r->confidence, 6, wanted, sizeof wanted);
    level_text(r->confidence, 4, interval, sizeof interval);
    if (r->achieved_confidence < r->confidence - 1e-12 && r->achieved_confidence > 0)
        fprintf(out, " (%s%% CI; %s%% is not reachable with %zu %s)", achieved, wanted,
                r->n_baseline, p->unit);
    else if (r->achieved_confidence < r->confidence - 1e-12)
        fprintf(out, " (%s%% is not reachable with %zu %s)", wanted, r->n_baseline, p->unit);
    else
        fprintf(out, " (%s%% CI", interval);
    if (r->achieved_confidence >= r->confidence - 1e-12 && r->confidence > in->options->confidence + 1e-12)
        print_widening(in, out);
    if (r->achieved_confidence >= r->confidence - 1e-12)
        fputs(")", out);
    fprintf(out, ", p = %.2g", r->p_value);
    if (in->analysis->n_comparisons > 1 && in->options->adjust != ADJUST_NONE)
        fprintf(out, " (adjusted %.2g)", c->p_adjusted);
    fputs("\n", out);
}

/* Each variant's layouts, relative to the variant's middle layout, then what the two
 * first builds alone would have said. */
static void print_layout_strip(const char *name, const double *locations, size_t k, FILE *out)
{
    double middle = 0;
    for (size_t i = 0; i < k; i++)
        middle += locations[i] / (double)k;
    char shown[NAME_MAX_WIDTH + 1];
    plain_escape(name, shown, sizeof shown);
    fprintf(out, "   layouts of %s:", shown);
    for (size_t i = 0; i < k; i++) {
        char change[PHRASES_NUMBER];
        phrases_percent(exp(locations[i] - middle), change, sizeof change);
        fprintf(out, " %s", change);
    }
    fputs("\n", out);
}

static void print_layouts(const report_input *in, const analysis_comparison *c, FILE *out)
{
    const analysis_layouts *l = &c->layouts;
    if (!c->across_layouts)
        return;
    fprintf(out, "   across %zu and %zu layouts: layout spread %.1f%% (sd of one layout's "
            "effect)\n", l->n_candidate, l->n_baseline, l->spread * 100);
    print_layout_strip(in->series[c->baseline].variant, l->baseline_locations, l->n_baseline,
                       out);
    print_layout_strip(in->series[c->candidate].variant, l->candidate_locations,
                       l->n_candidate, out);
    if (!isfinite(l->binary_estimate))
        return;
    phrases_estimate binary;
    phrases_estimate_of(l->binary_estimate, l->binary_low, l->binary_high, false, false, &binary);
    fprintf(out, "   one build each (layout 0 against layout 0) would say: %s %s, p = %.2g, ",
            binary.change, binary.interval, l->binary_p);
    text_style_verdict(out, &in->text_style, l->binary_kind);
    fprintf(out, "%s\n", l->binary_within_noise ? " — within what layout alone does" : "");
}

/* Where the change went, by function (docs/profiles.md), in the words of report/phrases.c. */
static void print_profile(const report_input *in, const analysis_comparison *c, FILE *out)
{
    size_t k = (size_t)(c - in->analysis->comparisons);
    assert(k < in->analysis->n_comparisons);
    phrases_profile p;
    phrases_of_profile(&in->profiles[k], &p);
    fprintf(out, "   profile (%s): ", in->profile_event ? in->profile_event : "");
    phrases_write_profile(out, &p, in->series[c->baseline].variant,
                          in->series[c->candidate].variant, plain_write);
    fputs("\n", out);
}

/* The interval, then the verdict in the words every writer uses (report/phrases.c). */
static void print_comparison(const report_input *in, const analysis_comparison *c, size_t first,
                             FILE *out)
{
    phrases_comparison p;
    phrases_of_comparison(in, c, &p);
    if (c->ok)
        print_interval_line(in, c, &p, first, out);
    fputs("   ", out);
    text_style_verdict(out, &in->text_style, p.kind);
    fputs(": ", out);
    phrases_write_words(out, &p, plain_write);
    fputs("\n", out);
    if (c->ok)
        print_layouts(in, c, out);
    if (in->profiles)
        print_profile(in, c, out);
}

static void print_group(const report_input *in, size_t first, size_t end, FILE *out)
{
    const analysis_series *s = &in->series[first];
    fputs("\n", out);
    text_style_on(out, &in->text_style, TEXT_PAINT_BOLD);
    fputs("== ", out);
    /* one point is named too when it has a name (the one benchmark of a compared file) */
    if (in->n_points > 1 || strcmp(s->point, "default") != 0) {
        plain_write(out, s->point);
        fputs(" · ", out);
    }
    plain_write(out, s->metric);
    if (s->machine && s->machine[0]) {
        fputs(" · machine ", out);
        plain_write(out, s->machine);
    }
    fprintf(out, " (%s is better) ==", s->higher_is_better ? "higher" : "lower");
    text_style_off(out, &in->text_style);
    fputs("\n", out);
    print_table(in, first, end, out);
    print_plot(in, first, end, out);
    fputs("\n", out);
    for (size_t k = 0; k < in->analysis->n_comparisons; k++) {
        const analysis_comparison *c = &in->analysis->comparisons[k];
        if (c->baseline == first)
            print_comparison(in, c, first, out);
    }
}

static void print_overall(const report_input *in, FILE *out)
{
    if (in->analysis->n_overall == 0)
        return;
    fputs("\n", out);
    text_style_on(out, &in->text_style, TEXT_PAINT_BOLD);
    fputs("== overall, across the points (geometric mean of the ratios) ==", out);
    text_style_off(out, &in->text_style);
    fputs("\n", out);
    for (size_t i = 0; i < in->analysis->n_overall; i++) {
        const analysis_overall *o = &in->analysis->overall[i];
        phrases_estimate e;
        phrases_estimate_of(o->ratio, o->ci_low, o->ci_high, false, false, &e);
        char level[LEVEL_TEXT];
        level_text(o->confidence, 6, level, sizeof level);
        fputs(" ", out);
        plain_write(out, o->candidate);
        fputs(" vs ", out);
        plain_write(out, o->baseline);
        fputs(", ", out);
        plain_write(out, o->metric);
        fprintf(out, " over %zu points: %s %s (%s%% CI): ", o->n_points, e.change, e.interval,
                level);
        text_style_verdict(out, &in->text_style, o->decision.kind);
        fprintf(out, "%s\n", phrases_negligible(&o->decision));
    }
}

/* The machines of a pool whose own verdict is kind, as "m1, m2 and m3". */
static void print_machines_with(const report_input *in, const analysis_fleet *f,
                                verdict_kind kind, FILE *out)
{
    size_t shown = 0, total = kind == VERDICT_BETTER ? f->n_better : f->n_worse;
    for (size_t j = 0; j < f->n_machines; j++) {
        assert(f->members[j] < in->analysis->n_comparisons);
        const analysis_comparison *c = &in->analysis->comparisons[f->members[j]];
        if (!c->ok || c->result.decision.kind != kind)
            continue;
        fputs(shown == 0 ? "" : shown + 1 == total ? " and " : ", ", out);
        plain_write(out, analysis_comparison_machine(in->series, c));
        shown++;
    }
}

/* What the machines say one by one, in words: all alike, or some better and some worse. */
static void print_machine_agreement(const report_input *in, const analysis_fleet *f, FILE *out)
{
    if (f->n_better > 0 && f->n_worse > 0) {
        fputs("   machines disagree: better on ", out);
        print_machines_with(in, f, VERDICT_BETTER, out);
        fputs(", worse on ", out);
        print_machines_with(in, f, VERDICT_WORSE, out);
        fputs("\n", out);
    } else if (f->n_better + f->n_worse == f->n_machines) {
        fprintf(out, "   %s on every machine on its own\n",
                verdict_kind_name(f->n_better ? VERDICT_BETTER : VERDICT_WORSE));
    } else if (f->n_better + f->n_worse > 0) {
        verdict_kind kind = f->n_better ? VERDICT_BETTER : VERDICT_WORSE;
        fprintf(out, "   %s on %zu of %zu machines (", verdict_kind_name(kind),
                f->n_better + f->n_worse, f->n_machines);
        print_machines_with(in, f, kind, out);
        fputs("), the others undecided on their own\n", out);
    }
}

static void print_fleet_one(const report_input *in, const analysis_fleet *f, FILE *out)
{
    fputs(" ", out);
    plain_write(out, f->candidate);
    fputs(" vs ", out);
    plain_write(out, f->baseline);
    fputs(", ", out);
    plain_write(out, f->metric);
    if (in->n_points > 1) {
        fputs(" at ", out);
        plain_write(out, f->point);
    }
    if (!f->ok) {
        fputs(": not pooled (", out); /* the analysis's message names the variants */
        plain_write(out, f->error ? f->error : "no result");
        fputs(")\n", out);
        return;
    }
    phrases_pooled pooled;
    phrases_of_fleet(f, &pooled);
    char level[LEVEL_TEXT];
    level_text(f->confidence, 6, level, sizeof level);
    fprintf(out, ": %s %s over %zu machines (%s%% CI, p = %.2g adjusted): ",
            pooled.estimate.change, pooled.estimate.interval, f->n_machines, level, f->p_adjusted);
    text_style_verdict(out, &in->text_style, f->decision.kind);
    fprintf(out, "%s\n", phrases_negligible(&f->decision));
    fprintf(out, "   on a machine not in this fleet, expect %s to %s (%s%% prediction "
            "interval)\n", pooled.predict_low, pooled.predict_high, level);
    fprintf(out, "   between machines: spread %s (tau), I\xC2\xB2 %.0f%%\n", pooled.spread,
            f->i2 * 100.0);
    if (f->predict_low < 1.0 && f->predict_high > 1.0 && f->decision.kind != VERDICT_INCONCLUSIVE &&
        f->decision.kind != VERDICT_EQUIVALENT)
        fputs("   the pooled effect is clear, but on a new machine it could go either way\n", out);
    print_machine_agreement(in, f, out);
}

static void print_fleet(const report_input *in, FILE *out)
{
    if (in->analysis->n_fleet == 0)
        return;
    fputs("\n", out);
    text_style_on(out, &in->text_style, TEXT_PAINT_BOLD);
    fputs("== across machines (random effects, Hartung-Knapp interval) ==", out);
    text_style_off(out, &in->text_style);
    fputs("\n", out);
    for (size_t i = 0; i < in->analysis->n_fleet; i++)
        print_fleet_one(in, &in->analysis->fleet[i], out);
}

/* Warnings of unrun points (too few samples, a failed comparison) are left out: the one
 * line about unrun points says it for all of them. */
static void print_warnings(const report_input *in, const query_point_set *unrun, FILE *out)
{
    bool any = false;
    for (size_t i = 0; i < in->analysis->n_warnings; i++) {
        const analysis_warning *w = &in->analysis->warnings[i];
        if (query_point_set_has(unrun, w->point))
            continue;
        if (!any) {
            fputs("\n", out);
            text_style_on(out, &in->text_style, TEXT_PAINT_BOLD);
            fputs("warnings:", out);
            text_style_off(out, &in->text_style);
            fputs("\n", out);
        }
        any = true;
        fputs("  [", out);
        plain_write(out, w->code);
        fputs("]", out);
        if (*w->point && in->n_points > 1) {
            fputs(" ", out);
            plain_write(out, w->point);
        }
        char message[2048];
        query_warning_message(in, w, message, sizeof message);
        fputs(" ", out);
        plain_write(out, message);
        fputs("\n", out);
    }
}

void report_write_text(const report_input *in, FILE *out)
{
    query_point_set unrun;
    if (query_unrun_points(in, &unrun) != 0)
        unrun = (query_point_set){NULL, 0}; /* out of memory: every point gets its block */
    print_settings(in, out);
    print_failures(in, out);
    size_t first = 0;
    const char *headlined = NULL; /* the point whose headlines were printed last */
    for (size_t i = 1; i <= in->n_series; i++) {
        if (i == in->n_series || !analysis_same_group(&in->series[i], &in->series[first])) {
            const char *point = in->series[first].point;
            if (!query_point_set_has(&unrun, point) && in->text_style.headlines &&
                (headlined == NULL || strcmp(headlined, point) != 0)) {
                text_headlines_write(in, point, out);
                headlined = point;
            }
            if (!query_point_set_has(&unrun, point))
                print_group(in, first, i, out);
            first = i;
        }
    }
    char line[160];
    query_unrun_line(in, &unrun, line, sizeof line);
    if (line[0] != '\0')
        fprintf(out, "\n%s\n", line);
    print_overall(in, out);
    print_fleet(in, out);
    text_change_charts(in, out);
    print_warnings(in, &unrun, out);
    query_point_set_free(&unrun);
}
