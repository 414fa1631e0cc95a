/* The words of a verdict, decided once (as PostgreSQL's EXPLAIN decides what to say once
 * and formats it as text, JSON, XML or YAML): the writers only escape and style them. */
#include "report/phrases.h"

#include <assert.h>
#include <math.h>
#include <string.h>

#include "core/bisect.h"
#include "core/stopping.h"
#include "report/report_query.h"
#include "report/units.h"
#include "stats/level_text.h"
#include "stats/percent_text.h"
#include "stats/verdict_rules.h"

#define INFINITY_SIGN "\xE2\x88\x9E"
#define NO_NUMBER "\xE2\x80\x93" /* – */

/* Two decimals where one would show a small change as 0.0%. */
static int decimals_of(double percent)
{
    return fabs(percent) < 0.1 ? 2 : 1;
}

/* percent with a sign or without; no "-0.00%" for a change that rounds to nothing. */
static void format_percent(double percent, int decimals, bool sign, char *buf, size_t len)
{
    if (fabs(percent) < 0.5 * pow(10, -decimals))
        percent = 0;
    snprintf(buf, len, sign ? "%+.*f%%" : "%.*f%%", decimals, percent);
}

void phrases_percent_decimals(double ratio, int decimals, char *buf, size_t len)
{
    if (isnan(ratio))
        snprintf(buf, len, NO_NUMBER);
    else if (isinf(ratio))
        snprintf(buf, len, "%s" INFINITY_SIGN, ratio > 0 ? "+" : "-");
    else
        format_percent(query_percent(ratio), decimals, true, buf, len);
}

void phrases_percent(double ratio, char *buf, size_t len)
{
    phrases_percent_decimals(ratio, decimals_of(query_percent(ratio)), buf, len);
}

void phrases_change(double ratio, char *buf, size_t len)
{
    char times[32];
    phrases_percent(ratio, buf, len);
    size_t used = strlen(buf);
    if (isfinite(ratio) && units_format_times(ratio, times, sizeof times) > 0 && used < len)
        snprintf(buf + used, len - used, " (%s)", times);
}

void phrases_margin(double margin, char *buf, size_t len)
{
    snprintf(buf, len, "\xC2\xB1%g%%", margin * 100);
}

const char *phrases_negligible(const verdict_decision *d)
{
    return d->negligible ? " (negligible)" : "";
}

void phrases_kind(const verdict_decision *d, char *buf, size_t len)
{
    snprintf(buf, len, "%s%s", verdict_kind_name(d->kind), phrases_negligible(d));
}

void phrases_estimate_of(double ratio, double low, double high, bool low_open, bool high_open,
                         phrases_estimate *out)
{
    phrases_change(ratio, out->change, sizeof out->change);
    phrases_percent(low, out->low, sizeof out->low);
    phrases_percent(high, out->high, sizeof out->high);
    snprintf(out->interval, sizeof out->interval, "%s%s, %s%s", low_open ? "(" : "[", out->low,
             out->high, high_open ? ")" : "]");
}

void phrases_method(const report_input *in, char *buf, size_t len)
{
    const analysis_options *o = in->options;
    comparison_method counts = o->method;
    for (size_t i = 0; i < in->n_series && counts == o->method; i++)
        counts = analysis_method_for(o, &in->series[i], &in->series[i]);
    if (counts == o->method)
        snprintf(buf, len, "%s", comparison_method_name(o->method, o->paired));
    else
        snprintf(buf, len, "%s (%s for exact counts)", comparison_method_name(o->method, o->paired),
                 comparison_method_name(counts, o->paired));
}

/* slower/faster only for a time where lower is better: "B is 5% slower" of a count of
 * bytes or of a throughput would say what the number never measured; a count a variant
 * spends (allocs/op, instructions) is "more" or "fewer" of it. */
static const char *direction_of(const report_input *in, const analysis_series *base, double ratio)
{
    bool up = ratio > 1.0;
    if (!base->higher_is_better && text_style_is_time(&in->text_style, base->metric))
        return up ? "slower" : "faster";
    if (!base->higher_is_better && base->exact_counts)
        return up ? "more" : "fewer";
    return up ? "higher" : "lower";
}

/* How many runs data that never varied had: "every one of the 5 blocks", "5 runs of each",
 * "3 and 4 runs". */
static void runs_of(const comparison *r, char *buf, size_t len)
{
    if (r->paired)
        snprintf(buf, len, "every one of the %zu blocks", r->n_baseline);
    else if (r->n_baseline == r->n_candidate)
        snprintf(buf, len, "%zu runs of each", r->n_baseline);
    else
        snprintf(buf, len, "%zu and %zu runs", r->n_baseline, r->n_candidate);
}

static void decided(const report_input *in, const analysis_comparison *c, phrases_comparison *p)
{
    const comparison *r = &c->result;
    double change = fabs(query_percent(r->ratio));
    const analysis_series *base = &in->series[c->baseline];
    p->direction = direction_of(in, base, r->ratio);
    p->counted = !base->higher_is_better && base->exact_counts ? base->metric : NULL;
    format_percent(change, decimals_of(change), false, p->size, sizeof p->size);
    units_format_times(r->ratio, p->times, sizeof p->times);
    char margin[32], runs[64], negligible[96] = "";
    if (r->decision.negligible) {
        phrases_margin(in->options->margin, margin, sizeof margin);
        snprintf(negligible, sizeof negligible, "negligible: the whole interval is within %s",
                 margin);
    }
    /* n is small when samples that never varied decide: the reader weighs how many */
    runs_of(r, runs, sizeof runs);
    if (r->constant)
        snprintf(p->note, sizeof p->note, "%s%s%s%s %s", negligible, negligible[0] ? "; " : "",
                 r->relative_step > 0 ? "" : "exact: ",
                 r->paired ? "the same ratio in" : "each gave the same value in every run,",
                 runs);
    else
        snprintf(p->note, sizeof p->note, "%s", negligible);
}

/* Equivalent: what the interval rules out; [1, 1] when every run of both gave one value. */
static void equivalent(const report_input *in, const analysis_comparison *c,
                       phrases_comparison *p)
{
    const comparison *r = &c->result;
    char margin[32], runs[64];
    phrases_margin(in->options->margin, margin, sizeof margin);
    runs_of(r, runs, sizeof runs);
    if (r->constant && r->ci_low == 1.0 && r->ci_high == 1.0)
        snprintf(p->reason, sizeof p->reason, "no difference: %s %s",
                 r->paired ? "both gave the same value in" : "every run of both gave the same "
                 "value,", runs);
    else
        snprintf(p->reason, sizeof p->reason, "no difference larger than %s", margin);
}

/* For an experiment that can be extended: the --more likely to decide (0: not one). */
static size_t more_blocks_to_decide(const report_input *in, const analysis_comparison *c)
{
    const comparison *r = &c->result;
    if (!(in->reserve_for_more > 0) || in->extended_to == 0 || c->across_layouts ||
        r->decision.reason != UNDECIDED_WIDE_INTERVAL)
        return 0;
    double estimate = fabs(log(r->ratio)), band = log1p(in->options->margin);
    double half_width = (log(r->ci_high) - log(r->ci_low)) / 2.0;
    return stopping_blocks_to_decide(1.0 - in->options->confidence, in->reserve_for_more,
                                     in->planned_blocks, in->extended_to,
                                     in->analysis->n_comparisons, r->confidence, half_width,
                                     fmax(estimate, band - estimate));
}

/* What would decide an inconclusive comparison: more layouts, more runs, more digits. */
static void what_decides(const report_input *in, const analysis_comparison *c,
                         phrases_comparison *p)
{
    const verdict_decision *d = &c->result.decision;
    size_t more = more_blocks_to_decide(in, c);
    double detectable = query_detectable_effect(&c->result);
    char could[PHRASES_NUMBER + 64] = "";
    if (isfinite(detectable)) {
        format_percent(100 * detectable, decimals_of(100 * detectable), false, p->detectable,
                       sizeof p->detectable);
        snprintf(could, sizeof could, "could have detected a change of %s or more; ",
                 p->detectable);
    }
    if (d->reason == UNDECIDED_RESOLUTION)
        snprintf(p->decide, sizeof p->decide,
                 "more runs of this metric cannot decide: measure with more digits");
    else if (c->across_layouts && c->layouts.needed_layouts >= 0)
        snprintf(p->decide, sizeof p->decide, "%sabout %ld layouts per variant needed (more "
                 "runs of these layouts cannot remove their spread)", could,
                 c->layouts.needed_layouts);
    else if (d->needed_blocks >= 0 && more > 0)
        snprintf(p->decide, sizeof p->decide, "%sabout %ld more run%s per side needed at this "
                 "level; at the stricter level of an extension: verdict run --more %zu", could,
                 d->needed_blocks, d->needed_blocks == 1 ? "" : "s", more);
    else if (d->needed_blocks >= 0)
        snprintf(p->decide, sizeof p->decide, "%sabout %ld more run%s per side needed", could,
                 d->needed_blocks, d->needed_blocks == 1 ? "" : "s");
    else
        snprintf(p->decide, sizeof p->decide,
                 "%sthe spread gives no estimate of how many more runs would decide", could);
}

/* Why an analysed comparison is undecided. */
static void why_undecided(const report_input *in, const analysis_comparison *c,
                          phrases_comparison *p)
{
    const comparison *r = &c->result;
    char margin[32], level[40], rounding[64], step[48];
    phrases_margin(in->options->margin, margin, sizeof margin);
    if (r->decision.reason == UNDECIDED_RESOLUTION) {
        analysis_describe_rounding(r, rounding, sizeof rounding);
        stats_percent_text(r->relative_step * 100, step, sizeof step);
        snprintf(p->reason, sizeof p->reason, "the values are rounded (%s), which can move the "
                 "ratio by %s%%: too coarse to show a change within %s or to rule one out",
                 rounding, step, margin);
    } else if (r->decision.reason == UNDECIDED_CONFIDENCE) {
        level_text(r->confidence, 6, level, sizeof level);
        snprintf(p->reason, sizeof p->reason, "%zu %s per side cannot reach %s%% confidence",
                 r->n_baseline, p->unit, level);
    } else {
        snprintf(p->reason, sizeof p->reason,
                 "the interval includes both no change and changes beyond %s", margin);
    }
    what_decides(in, c, p);
}

/* The words of an analysed comparison (c->ok). */
static void analysed(const report_input *in, const analysis_comparison *c, phrases_comparison *p)
{
    const comparison *r = &c->result;
    phrases_estimate_of(r->ratio, r->ci_low, r->ci_high, r->low_open, r->high_open,
                        &p->estimate);
    level_text(r->achieved_confidence > 0 ? r->achieved_confidence : r->confidence, 4, p->level,
               sizeof p->level);
    switch (r->decision.kind) {
    case VERDICT_BETTER:
    case VERDICT_WORSE: decided(in, c, p); break;
    case VERDICT_EQUIVALENT: equivalent(in, c, p); break;
    case VERDICT_INCONCLUSIVE: why_undecided(in, c, p); break;
    }
}

void phrases_of_comparison(const report_input *in, const analysis_comparison *c,
                           phrases_comparison *out)
{
    assert(c->baseline < in->n_series && c->candidate < in->n_series);
    assert(in->series[c->baseline].variant != NULL && in->series[c->candidate].variant != NULL);
    *out = (phrases_comparison){
        .ok = c->ok, .kind = c->ok ? c->result.decision.kind : VERDICT_INCONCLUSIVE,
        .candidate = in->series[c->candidate].variant,
        .baseline = in->series[c->baseline].variant,
        .unit = c->across_layouts ? "layouts" : "runs"};
    out->kind_word = verdict_kind_name(out->kind);
    if (c->ok)
        analysed(in, c, out);
    else
        query_comparison_error(in, c, out->reason, sizeof out->reason);
}

void phrases_write_words(FILE *out, const phrases_comparison *p, phrases_escape escape)
{
    if (p->direction != NULL) {
        escape(out, p->candidate);
        fprintf(out, " %s %s %s ", p->counted ? "uses" : "is", p->size, p->direction);
        if (p->counted) {
            escape(out, p->counted);
            fputs(" ", out);
        }
        fputs("than ", out);
        escape(out, p->baseline);
        if (p->times[0] != '\0')
            fprintf(out, " (%s)", p->times);
        if (p->note[0] != '\0')
            fprintf(out, " (%s)", p->note);
        return;
    }
    escape(out, p->reason);
    if (p->decide[0] != '\0') {
        fputs("; ", out);
        escape(out, p->decide);
    }
}

void phrases_of_fleet(const analysis_fleet *f, phrases_pooled *out)
{
    assert(f->ok);
    phrases_estimate_of(f->ratio, f->ci_low, f->ci_high, false, false, &out->estimate);
    phrases_percent(f->predict_low, out->predict_low, sizeof out->predict_low);
    phrases_percent(f->predict_high, out->predict_high, sizeof out->predict_high);
    snprintf(out->spread, sizeof out->spread, "\xC2\xB1%.1f%%", expm1(f->tau) * 100.0);
    phrases_kind(&f->decision, out->kind, sizeof out->kind);
}

static bool called(const analysis_comparison *c)
{
    verdict_kind kind = c->result.decision.kind;
    return c->ok && (kind == VERDICT_BETTER || kind == VERDICT_WORSE);
}

/* The same point, machine and variants: the same change seen through two metrics. */
static bool same_change(const report_input *in, const analysis_comparison *a,
                        const analysis_comparison *b)
{
    const analysis_series *ab = &in->series[a->baseline], *ax = &in->series[a->candidate];
    const analysis_series *bb = &in->series[b->baseline], *bx = &in->series[b->candidate];
    return strcmp(ab->point, bb->point) == 0 && strcmp(ab->variant, bb->variant) == 0 &&
           strcmp(ax->variant, bx->variant) == 0 &&
           strcmp(analysis_comparison_machine(in->series, a),
                  analysis_comparison_machine(in->series, b)) == 0;
}

/* "instructions:u fell 2.1%" */
static void moved(const analysis_comparison *c, const char *metric, char *buf, size_t len)
{
    double change = fabs(query_percent(c->result.ratio));
    char size[PHRASES_NUMBER];
    format_percent(change, decimals_of(change), false, size, sizeof size);
    snprintf(buf, len, "%s %s %s", metric, c->result.ratio > 1.0 ? "rose" : "fell", size);
}

static int add_disagreement(const report_input *in, const analysis_comparison *count,
                            const analysis_comparison *time, analysis_result *result)
{
    const analysis_series *x = &in->series[count->candidate], *b = &in->series[count->baseline];
    char counted[PHRASES_NUMBER + 160], timed[PHRASES_NUMBER + 160], message[PHRASES_SENTENCE];
    moved(count, x->metric, counted, sizeof counted);
    moved(time, in->series[time->candidate].metric, timed, sizeof timed);
    const char *machine = analysis_comparison_machine(in->series, count);
    snprintf(message, sizeof message, "%s vs %s%s%s: %s but %s: the count does not see all "
             "that the time pays for (cache misses, the CPU's frequency, waiting, other "
             "processes); the time is what users wait for", x->variant, b->variant,
             machine[0] ? " on " : "", machine, counted, timed);
    return analysis_add_warning(result, "counts-disagree", x->point, x->variant, message);
}

int phrases_add_disagreements(const report_input *in, analysis_result *result)
{
    assert(in->analysis == result);
    size_t n = result->n_comparisons;
    for (size_t i = 0; i < n; i++) {
        const analysis_comparison *count = &result->comparisons[i];
        if (!called(count) || !in->series[count->candidate].exact_counts)
            continue;
        for (size_t j = 0; j < n; j++) {
            const analysis_comparison *time = &result->comparisons[j];
            const analysis_series *t = &in->series[time->candidate];
            if (j == i || !called(time) || t->exact_counts ||
                !text_style_is_time(&in->text_style, t->metric) ||
                !same_change(in, count, time) ||
                time->result.decision.kind == count->result.decision.kind)
                continue;
            if (add_disagreement(in, count, time, result) != 0)
                return -1;
        }
    }
    return 0;
}

/* "10th", "1st", "22nd", "12.5th": the percentile of quantile q. */
static void percentile_words(double q, char *buf, size_t len)
{
    double percent = q * 100.0;
    long whole = lround(percent);
    if (fabs(percent - (double)whole) > 1e-9) {
        snprintf(buf, len, "%gth", percent);
        return;
    }
    long tens = whole % 100, ones = whole % 10;
    const char *suffix = tens >= 11 && tens <= 13 ? "th"
                         : ones == 1              ? "st"
                         : ones == 2              ? "nd"
                         : ones == 3              ? "rd"
                                                  : "th";
    snprintf(buf, len, "%ld%s", whole, suffix);
}

void phrases_method_note(const analysis_options *o, char *buf, size_t len)
{
    if (o->method != METHOD_QUANTILE) {
        snprintf(buf, len, "%s", "");
        return;
    }
    char percentile[32];
    percentile_words(o->quantile > 0 ? o->quantile : COMPARISON_DEFAULT_QUANTILE, percentile,
                     sizeof percentile);
    snprintf(buf, len, "Compares the %s percentile of each variant (Harrell-Davis; of a "
             "metric where higher is better, such as tps, the same share from the top): how "
             "fast each runs when undisturbed, as interference only adds time.", percentile);
}

/* ---- profiles ---- */

/* An interval that excludes no change: the function moved beyond what the blocks vary. */
static bool beyond_noise(const profile_change *c)
{
    return isfinite(c->change_low) && isfinite(c->change_high) &&
           (c->change_low > 0 || c->change_high < 0);
}

static void profile_note(const profile_comparison *c, phrases_profile *out)
{
    if (c->n_blocks < 2)
        snprintf(out->note, sizeof out->note, "profiles of %zu block cannot give an interval "
                 "(at least 2 are needed)", c->n_blocks);
    if (c->addresses)
        snprintf(out->note + strlen(out->note), sizeof out->note - strlen(out->note),
                 "%saddresses shown: a binary without symbols (stripped); build it with "
                 "symbols to see function names", out->note[0] ? "; " : "");
}

void phrases_of_profile(const profile_comparison *c, phrases_profile *out)
{
    memset(out, 0, sizeof *out);
    out->profiled = c != NULL && c->n_blocks > 0;
    if (!out->profiled)
        return;
    out->n_blocks = c->n_blocks;
    for (size_t i = 0; i < c->n_symbols; i++) {
        const profile_symbol_change *s = &c->symbols[i];
        if (!beyond_noise(&s->self))
            continue;
        if (out->n_named == PHRASES_PROFILE_NAMED) {
            out->n_more++;
            continue;
        }
        phrases_profile_item *item = &out->named[out->n_named++];
        item->symbol = s->symbol;
        item->only = !s->in_candidate ? "baseline" : !s->in_baseline ? "candidate" : NULL;
        phrases_estimate_of(1 + s->self.change, 1 + s->self.change_low,
                            1 + s->self.change_high, false, false, &item->estimate);
    }
    profile_note(c, out);
}

void phrases_write_profile(FILE *out, const phrases_profile *p, const char *baseline,
                           const char *candidate, phrases_escape escape)
{
    if (!p->profiled) {
        fputs("no profile: no block holds profiled runs of both variants", out);
        return;
    }
    if (p->n_named == 0)
        fputs("no function moved beyond noise", out);
    for (size_t i = 0; i < p->n_named; i++) {
        const phrases_profile_item *item = &p->named[i];
        fputs(i == 0 ? "of that, " : ", ", out);
        escape(out, item->symbol);
        if (item->only) {
            fputs(" (only in ", out);
            escape(out, strcmp(item->only, "candidate") == 0 ? candidate : baseline);
            fputs(")", out);
        }
        fprintf(out, " %s %s", item->estimate.change, item->estimate.interval);
    }
    if (p->n_more > 0)
        fprintf(out, ", and %zu more beyond noise", p->n_more);
    if (p->n_named > 0)
        fputs("; the rest within noise", out);
    fprintf(out, " (%zu block%s)", p->n_blocks, p->n_blocks == 1 ? "" : "s");
    if (p->note[0])
        fprintf(out, "; %s", p->note);
}

const char *phrases_bisect_class(bisect_class c)
{
    switch (c) {
    case BISECT_LIKE_GOOD:
        return "like good: the change comes after it";
    case BISECT_LIKE_BAD:
        return "like bad: the change is at or before it";
    case BISECT_BETWEEN:
        return "between the ends, apart from both: the change came in more than one commit; "
               "the first is at or before it";
    case BISECT_BEYOND_BAD:
        return "beyond the bad end: part of the change was undone after it (not monotonic); "
               "the first change is at or before it";
    case BISECT_BEYOND_GOOD:
        return "beyond the good end, the other way: a change in the opposite direction came "
               "first (not monotonic); the change sought comes after it";
    case BISECT_UNKNOWN:
        break;
    }
    return "unknown: neither comparison decided within the budget";
}
