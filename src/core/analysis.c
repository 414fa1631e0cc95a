/* Turns measured series into summaries, comparisons against each point's baseline and
 * warnings, adjusting intervals and p-values for the number of comparisons made. */
#include "core/analysis.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/array.h"
#include "common/error.h"
#include "core/experiment.h"
#include "core/stats_error.h"
#include "stats/combine.h"
#include "stats/diagnostics.h"
#include "stats/layouts.h"
#include "stats/level_text.h"
#include "stats/multiplicity.h"
#include "stats/percent_text.h"
#include "stats/quantile.h"

/* Thresholds of the diagnostics; each is a warning, never a change of verdict. */
#define HIGH_CV 0.05
#define TREND_P 0.01
#define TREND_MIN_N 8
#define BIMODAL_MIN_N 20
#define BIMODAL_COEFFICIENT 0.6
/* Kelly's tail skewness above this: the slow tail reaches about twice as far from the median
 * as the fast one (log-normal noise of 3% gives 0.04, 40% of runs slowed by 20-35% about 0.9). */
#define SKEWED_KELLY 0.3
#define OUTLIER_Z 3.5
#define OUTLIER_MIN_N 5
/* At most this many distinct values among at least twice as many: discrete data. */
#define DISCRETE_MAX_LEVELS 10
/* Rounding to more significant digits than this is described by its decimal step instead. */
#define ROUNDING_WORDS_MAX_DIGITS 4
/* Two builds compared without layout twins and closer than this: code layout alone moves
 * results that much (issue 19: six links of one program differed by up to 7.3%). */
#define LAYOUT_WARNING_EFFECT 0.05

const char *adjust_method_name(adjust_method method)
{
    switch (method) {
    case ADJUST_HOLM: return "holm";
    case ADJUST_BH: return "bh";
    case ADJUST_NONE: return "none";
    }
    return "none";
}

static char *format_text(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int length = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (length < 0)
        return NULL;
    char *text = malloc((size_t)length + 1);
    if (text == NULL)
        return NULL;
    va_start(ap, fmt);
    vsnprintf(text, (size_t)length + 1, fmt, ap);
    va_end(ap);
    return text;
}

int analysis_add_warning(analysis_result *r, const char *code, const char *point,
                         const char *variant, const char *message)
{
    /* Doubling: one warning per point of a million-point sweep was a quadratic copy. */
    if (array_reserve((void **)&r->warnings, &r->warnings_capacity, r->n_warnings + 1,
                      sizeof *r->warnings) != 0)
        return -1;
    analysis_warning *w = &r->warnings[r->n_warnings++];
    w->code = strdup(code);
    w->point = strdup(point);
    w->variant = strdup(variant);
    w->message = strdup(message);
    return w->code && w->point && w->variant && w->message ? 0 : -1;
}

/* Takes ownership of message (NULL means the formatting ran out of memory). */
static int add_warning(analysis_result *r, const char *code, const analysis_series *s,
                       char *message)
{
    if (message == NULL)
        return -1;
    int rc = analysis_add_warning(r, code, s ? s->point : "", s ? s->variant : "", message);
    free(message);
    return rc;
}

static int diagnose_series(analysis_result *r, const analysis_series *s, const stats_summary *sum,
                           const analysis_options *o)
{
    int rc = 0;
    char name[400]; /* "A", "A @3" for layout twin 3 of A, "A on m2" on machine m2 */
    if (s->n_layouts > 1)
        snprintf(name, sizeof name, "%.280s @%zu", s->variant, s->layout);
    else
        snprintf(name, sizeof name, "%.290s", s->variant);
    if (s->machine && s->machine[0])
        snprintf(name + strlen(name), sizeof name - strlen(name), " on %.64s", s->machine);
    char level[64];
    level_text(o->confidence, 6, level, sizeof level);
    /* across layouts the layouts are the sample: their count is judged by the comparison */
    if (analysis_method_for(o, s, s) == METHOD_WILCOXON && s->n_layouts <= 1 &&
        s->n < rank_test_min_n(o->confidence, o->paired))
        rc |= add_warning(r, "too-few-samples", s, format_text(
            "%s: %zu samples cannot reach %s%% confidence with a rank test; at least %zu are needed",
            name, s->n, level, rank_test_min_n(o->confidence, o->paired)));
    if (sum->cv > HIGH_CV)
        rc |= add_warning(r, "high-cv", s, format_text(
            "%s: coefficient of variation %.1f%% is high (over %.0f%%): the machine is noisy or "
            "the workload unstable", name, sum->cv * 100, HIGH_CV * 100));
    trend_result trend;
    if (s->n >= TREND_MIN_N && trend_mann_kendall(s->values, s->n, &trend) == STATS_OK &&
        trend.p_value < TREND_P)
        rc |= add_warning(r, "trend", s, format_text(
            "%s: values %s over the run (Mann-Kendall tau %.2f, p = %.2g): the machine drifted or "
            "the workload warms up", name, trend.tau > 0 ? "rise" : "fall", trend.tau,
            trend.p_value));
    /* A count's spread is a few instructions of alignment in millions: its modes and
     * "outliers" are thousandths of a percent apart and say nothing about the machine. */
    if (s->exact_counts)
        return rc;
    double coefficient;
    if (s->n >= BIMODAL_MIN_N && bimodality_coefficient(s->values, s->n, &coefficient) == STATS_OK &&
        coefficient > BIMODAL_COEFFICIENT)
        rc |= add_warning(r, "bimodal", s, format_text(
            "%s: values may have two modes (bimodality coefficient %.2f > %.3f): look for slow "
            "episodes or two code paths", name, coefficient, BIMODAL_COEFFICIENT));
    size_t outliers = 0;
    if (s->n >= OUTLIER_MIN_N && count_outliers_mad(s->values, s->n, OUTLIER_Z, &outliers) == STATS_OK &&
        outliers > 0)
        rc |= add_warning(r, "outliers", s, format_text(
            "%s: %zu of %zu values are outliers (more than %.1f MADs from the median)",
            name, outliers, s->n, OUTLIER_Z));
    return rc;
}

/* Right-skewed or bimodal runs (the slow episodes of a shared machine) carry their spread
 * into a comparison of locations; a low quantile is left alone by them. Suggested once, naming
 * the first such series: the data never switch the method on. */
static int suggest_quantile(analysis_result *r, const analysis_series *series, size_t n_series,
                            const analysis_options *o)
{
    if (o->method == METHOD_QUANTILE)
        return 0;
    for (size_t i = 0; i < n_series; i++) {
        const analysis_series *s = &series[i];
        double kelly = NAN, coefficient = NAN;
        bool skewed = s->n >= BIMODAL_MIN_N &&
                      tail_skewness(s->values, s->n, &kelly) == STATS_OK && kelly > SKEWED_KELLY;
        bool bimodal = s->n >= BIMODAL_MIN_N &&
                       bimodality_coefficient(s->values, s->n, &coefficient) == STATS_OK &&
                       coefficient > BIMODAL_COEFFICIENT;
        if (!skewed && !bimodal)
            continue;
        return add_warning(r, "try-quantile", s, format_text(
            "%s: the runs are %s (%s %.2f > %.2f): slow episodes add time to some runs and their "
            "spread to the comparison; --method quantile ('method: quantile') compares how fast "
            "each variant runs when undisturbed and often decides in fewer runs",
            s->variant, skewed ? "right-skewed" : "bimodal",
            skewed ? "tail skewness" : "bimodality coefficient", skewed ? kelly : coefficient,
            skewed ? SKEWED_KELLY : BIMODAL_COEFFICIENT));
    }
    return 0;
}

/* Code layout alone moves a binary's speed: said when two builds were compared without
 * layout twins and differ by little, and when twins show a binary-level difference to be
 * within what layout alone does. */
static int diagnose_layouts(analysis_result *r, const analysis_series *series,
                            const analysis_comparison *c)
{
    const analysis_series *b = &series[c->baseline], *x = &series[c->candidate];
    const comparison *k = &c->result;
    verdict_kind kind = k->decision.kind;
    bool called = kind == VERDICT_BETTER || kind == VERDICT_WORSE;
    if (!c->across_layouts) {
        if (!b->built || !x->built || !(fabs(log(k->ratio)) < log1p(LAYOUT_WARNING_EFFECT)))
            return 0;
        return add_warning(r, "layout-untested", x, format_text(
            "%s vs %s: two builds %.1f%% apart, each measured in one code layout: a change of "
            "function order alone can move a binary by several percent; add 'layouts: 6' to "
            "the experiment to measure the change across layouts", x->variant, b->variant,
            fabs(k->ratio - 1) * 100));
    }
    const analysis_layouts *l = &c->layouts;
    if (called || !l->binary_within_noise || !(fabs(l->binary_estimate - 1) >= 0.005))
        return 0;
    return add_warning(r, "layout-noise", x, format_text(
        "%s vs %s: their first builds alone differ by %+.1f%%, within the ±%.1f%% that layout "
        "and run noise give one build of each here (layout spread %.1f%%); across %zu and %zu "
        "layouts the change itself is not shown to matter", x->variant, b->variant,
        (l->binary_estimate - 1) * 100, l->binary_noise_band * 100, l->spread * 100,
        l->n_candidate, l->n_baseline));
}

/* Ties and zeros change what an interval means; each is said once per comparison. */
static int diagnose_comparison(analysis_result *r, const analysis_series *series,
                               const analysis_comparison *c)
{
    const analysis_series *b = &series[c->baseline], *x = &series[c->candidate];
    if (!c->ok)
        return add_warning(r, "comparison-failed", x, strdup(c->error));
    if (diagnose_layouts(r, series, c) != 0)
        return -1;
    const comparison *k = &c->result;
    size_t values = k->n_baseline + k->n_candidate;
    char rounding[64], step[48];
    analysis_describe_rounding(k, rounding, sizeof rounding);
    stats_percent_text(k->relative_step * 100, step, sizeof step);
    int rc = 0;
    if (k->resolution_limited)
        rc |= add_warning(r, "discrete", x, format_text(
            "%s vs %s: the values are rounded (%s), which can move the ratio by %s%%, and "
            "the interval could not absorb that (the values spread over less than two steps, "
            "or the interval is narrower than one): it is widened by %s%% on each side",
            x->variant, b->variant, rounding, step, step));
    else if (!k->constant && k->distinct_values <= DISCRETE_MAX_LEVELS &&
             values >= 2 * k->distinct_values)
        rc |= add_warning(r, "discrete", x, format_text(
            "%s vs %s: the %zu values take only %zu distinct values: the interval treats %s as "
            "%s shifted, which values on a few levels cannot be exactly; read it as approximate",
            x->variant, b->variant, values, k->distinct_values, x->variant, b->variant));
    if (k->set_aside > 0)
        rc |= add_warning(r, "zeros", x, format_text(
            "%s vs %s: in %zu of %zu blocks both measured exactly the same value: the test of "
            "no change sets them aside (Wilcoxon's rule, as R does); the estimate and the "
            "interval include them",
            x->variant, b->variant, k->set_aside, k->n_baseline));
    return rc;
}

void analysis_describe_rounding(const comparison *c, char *buf, size_t len)
{
    if (c->digits > 0 && c->digits <= ROUNDING_WORDS_MAX_DIGITS)
        snprintf(buf, len, "to %d significant digit%s", c->digits, c->digits == 1 ? "" : "s");
    else
        snprintf(buf, len, "to multiples of %g", c->step);
}

comparison_method analysis_method_for(const analysis_options *o, const analysis_series *baseline,
                                      const analysis_series *candidate)
{
    if (o->method_given || !baseline->exact_counts || !candidate->exact_counts)
        return o->method;
    return METHOD_WELCH;
}

static const char *machine_name(const analysis_series *s)
{
    return s->machine ? s->machine : "";
}

bool analysis_same_group(const analysis_series *a, const analysis_series *b)
{
    return strcmp(a->point, b->point) == 0 && strcmp(a->metric, b->metric) == 0 &&
           strcmp(machine_name(a), machine_name(b)) == 0;
}

const char *analysis_comparison_machine(const analysis_series *series,
                                        const analysis_comparison *c)
{
    return machine_name(&series[c->candidate]);
}

/* A variant's first series: the one its comparisons are made from (its later layouts are
 * read with it). */
static bool variant_head(const analysis_series *s)
{
    return s->layout == 0;
}

static size_t count_comparisons(const analysis_series *series, size_t n_series)
{
    size_t count = 0;
    for (size_t i = 1; i < n_series; i++)
        if (analysis_same_group(&series[i], &series[i - 1]) && variant_head(&series[i]))
            count++;
    return count;
}

/* Pairs every non-first variant of a point with the first variant of that point. */
static void plan_comparisons(const analysis_series *series, size_t n_series, analysis_result *r)
{
    size_t baseline = 0, k = 0;
    for (size_t i = 1; i < n_series; i++) {
        if (!analysis_same_group(&series[i], &series[baseline])) {
            baseline = i;
            continue;
        }
        if (!variant_head(&series[i]))
            continue;
        r->comparisons[k].baseline = baseline;
        r->comparisons[k].candidate = i;
        k++;
    }
    r->n_comparisons = k;
}

static void free_layouts(analysis_comparison *c)
{
    free(c->layouts.baseline_locations); /* candidate_locations is part of it */
    memset(&c->layouts, 0, sizeof c->layouts);
    c->across_layouts = false;
}

/* The units of a variant's layouts: series first .. first + K - 1 (one check that they are
 * what the engine wrote: the same variant, the same blocks). */
static bool layout_units(const analysis_series *series, size_t first, const double **units)
{
    const analysis_series *head = &series[first];
    for (size_t k = 0; k < head->n_layouts; k++) {
        const analysis_series *s = &series[first + k];
        if (s->layout != k || s->n != head->n || strcmp(s->variant, head->variant) != 0 ||
            !analysis_same_group(s, head))
            return false;
        units[k] = s->values;
    }
    return true;
}

/* The layout-aware comparison into c->result and c->layouts. */
static stats_status compare_across_layouts(const analysis_series *series,
                                           const analysis_options *o, double level,
                                           analysis_comparison *c)
{
    const analysis_series *b = &series[c->baseline], *x = &series[c->candidate];
    const double *bu[EXPERIMENT_MAX_LAYOUTS], *xu[EXPERIMENT_MAX_LAYOUTS];
    if (b->n_layouts > EXPERIMENT_MAX_LAYOUTS || x->n_layouts > EXPERIMENT_MAX_LAYOUTS ||
        !layout_units(series, c->baseline, bu) || !layout_units(series, c->candidate, xu))
        return STATS_ERR_DOMAIN;
    layouts_variant lb = {bu, b->n_layouts}, lx = {xu, x->n_layouts};
    layouts_options lo = {.method = o->method == METHOD_WELCH ? METHOD_WELCH : METHOD_WILCOXON,
                          .confidence = level, .margin = o->margin,
                          .higher_is_better = b->higher_is_better};
    layouts_comparison lc;
    stats_status st = layouts_compare(&lb, &lx, b->n, &lo, &lc);
    if (st != STATS_OK)
        return st;
    c->result = (comparison){
        .method_name = lc.method_name, .exact = lc.exact, .n_baseline = lc.n_baseline,
        .n_candidate = lc.n_candidate, .ratio = lc.ratio, .ci_low = lc.ci_low,
        .ci_high = lc.ci_high, .low_open = lc.low_open, .high_open = lc.high_open,
        .p_value = lc.p_value, .confidence = level,
        .achieved_confidence = lc.achieved_confidence, .statistic = lc.statistic,
        .df = lc.df, .distinct_values = lc.n_baseline + lc.n_candidate,
        .relative_step = lc.relative_step, .resolution_limited = lc.resolution_limited,
        .decision = lc.decision};
    bool binary = lc.binary_status == STATS_OK;
    c->across_layouts = true;
    c->layouts = (analysis_layouts){
        .n_baseline = lc.n_baseline, .n_candidate = lc.n_candidate,
        .spread = expm1(lc.layout_spread), .needed_layouts = lc.needed_layouts,
        .binary_estimate = binary ? lc.binary.ratio : NAN,
        .binary_low = binary ? lc.binary.ci_low : NAN,
        .binary_high = binary ? lc.binary.ci_high : NAN,
        .binary_p = binary ? lc.binary.p_value : NAN,
        .binary_kind = binary ? lc.binary.decision.kind : VERDICT_INCONCLUSIVE,
        .binary_within_noise = binary && layouts_within_noise(&lc, lc.binary.ratio),
        .binary_noise_band = expm1(lc.binary_noise_band),
        .baseline_locations = lc.baseline_locations,
        .candidate_locations = lc.candidate_locations};
    lc.baseline_locations = lc.candidate_locations = NULL; /* now the comparison's */
    layouts_comparison_free(&lc);
    return STATS_OK;
}

/* The shift function of a quantile comparison: deciles 0.1 .. 0.9 of each variant. */
static int shift_function(const analysis_series *b, const analysis_series *x,
                          analysis_comparison *c)
{
    verdict_error err = {0};
    for (size_t k = 0; k < ANALYSIS_DECILES; k++) {
        analysis_decile *d = &c->shift_function[k];
        d->q = (double)(k + 1) / 10.0;
        if (quantile_hd(b->values, b->n, d->q, &d->baseline, &err) != 0 ||
            quantile_hd(x->values, x->n, d->q, &d->candidate, &err) != 0)
            return error_is(&err, ERROR_NO_MEMORY) ? -1 : 0;
        d->ratio = d->candidate / d->baseline;
    }
    c->has_shift_function = true;
    return 0;
}

/* Across layout twins the sample is one location per layout, not the runs whose fast end the
 * quantile method reads: that comparison is refused by name, never made with another method. */
static int refuse_quantile_layouts(const analysis_series *b, const analysis_series *x,
                                   analysis_comparison *c)
{
    c->ok = false;
    c->error = format_text("%s vs %s: cannot compare: --method quantile does not compare "
                           "across layout twins (%zu and %zu layouts); use --method wilcoxon "
                           "or welch", x->variant, b->variant, x->n_layouts, b->n_layouts);
    return c->error ? 0 : -1;
}

static int compute_one(const analysis_series *series, const analysis_options *o, double level,
                       analysis_comparison *c)
{
    const analysis_series *b = &series[c->baseline], *x = &series[c->candidate];
    comparison_options co = {
        .method = analysis_method_for(o, b, x), .paired = o->paired, .confidence = level,
        .margin = o->margin, .higher_is_better = b->higher_is_better, .seed = o->seed,
        .resamples = 0, .exact_counts = b->exact_counts && x->exact_counts,
        .quantile = o->quantile,
    };
    free(c->error);
    c->error = NULL;
    free_layouts(c);
    bool layouts = b->n_layouts > 1 || x->n_layouts > 1;
    if (layouts && o->method == METHOD_QUANTILE)
        return refuse_quantile_layouts(b, x, c);
    stats_status st = layouts ? compare_across_layouts(series, o, level, c)
                              : compare_samples(b->values, b->n, x->values, x->n, &co, &c->result);
    c->ok = st == STATS_OK;
    c->has_shift_function = false;
    if (st == STATS_ERR_NOMEM ||
        (c->ok && o->method == METHOD_QUANTILE && shift_function(b, x, c) != 0))
        return -1;
    if (!c->ok && (c->error = format_text("%s vs %s: cannot compare: %s", x->variant,
                                          b->variant, stats_status_message(st))) == NULL)
        return -1;
    return 0;
}

static int compute_comparisons(const analysis_series *series, const analysis_options *o,
                               double level, analysis_result *r)
{
    for (size_t k = 0; k < r->n_comparisons; k++)
        if (compute_one(series, o, level, &r->comparisons[k]) != 0)
            return -1;
    return 0;
}

/* Collects p-values of the computed comparisons (failed ones count as p = 1). */
static double *collect_p_values(const analysis_result *r)
{
    double *p = malloc((r->n_comparisons ? r->n_comparisons : 1) * sizeof *p);
    if (p == NULL)
        return NULL;
    for (size_t k = 0; k < r->n_comparisons; k++)
        p[k] = r->comparisons[k].ok ? r->comparisons[k].result.p_value : 1.0;
    return p;
}

/* Holm controls the family-wise error; its step-down has no simple interval, so intervals
 * use Bonferroni's level, which is what Holm's first step uses. BH intervals follow
 * Benjamini & Yekutieli (2005): level 1 - R*alpha/m with R the number of discoveries. */
static int adjust_for_family(const analysis_series *series, const analysis_options *o,
                             analysis_result *r, verdict_error *err)
{
    size_t m = r->n_comparisons;
    double alpha = 1.0 - o->confidence;
    r->interval_confidence = o->confidence;
    if (m <= 1 || o->adjust == ADJUST_NONE) {
        for (size_t k = 0; k < m; k++)
            r->comparisons[k].p_adjusted = r->comparisons[k].ok ? r->comparisons[k].result.p_value : 1.0;
        return 0;
    }
    double *p = collect_p_values(r), *adjusted = malloc(m * sizeof *adjusted);
    int rc = -1;
    stats_status st = p == NULL || adjusted == NULL ? STATS_ERR_NOMEM
                      : o->adjust == ADJUST_HOLM    ? p_adjust_holm(p, m, adjusted)
                                                    : p_adjust_bh(p, m, adjusted);
    if (st != STATS_OK) {
        stats_error_set(err, st, "adjusting the p-values");
        goto done;
    }
    size_t discoveries = 0;
    for (size_t k = 0; k < m; k++)
        discoveries += adjusted[k] <= alpha;
    double share = o->adjust == ADJUST_HOLM ? 1.0 : (double)(discoveries ? discoveries : 1);
    r->interval_confidence = 1.0 - share * alpha / (double)m;
    if (compute_comparisons(series, o, r->interval_confidence, r) != 0) {
        stats_error_set(err, STATS_ERR_NOMEM, "analysis");
        goto done;
    }
    /* Benjamini & Yekutieli's false-coverage guarantee covers the intervals of the selected
     * comparisons only; the others get Bonferroni's level, so that no equivalence is claimed
     * from an interval nothing guarantees. */
    for (size_t k = 0; k < m; k++)
        if (o->adjust == ADJUST_BH && !(adjusted[k] <= alpha) &&
            compute_one(series, o, 1.0 - alpha / (double)m, &r->comparisons[k]) != 0) {
            stats_error_set(err, STATS_ERR_NOMEM, "analysis");
            goto done;
        }
    for (size_t k = 0; k < m; k++)
        r->comparisons[k].p_adjusted = adjusted[k];
    rc = 0;
done:
    free(p);
    free(adjusted);
    return rc;
}

static bool same_overall_group(const analysis_series *series, const analysis_comparison *a,
                               const analysis_comparison *b)
{
    return strcmp(series[a->baseline].variant, series[b->baseline].variant) == 0 &&
           strcmp(series[a->candidate].variant, series[b->candidate].variant) == 0 &&
           strcmp(series[a->candidate].metric, series[b->candidate].metric) == 0 &&
           strcmp(machine_name(&series[a->candidate]), machine_name(&series[b->candidate])) == 0;
}

/* Combines the comparisons of one (baseline, candidate, metric) across the points. */
static int combine_group(const analysis_series *series, const analysis_options *o,
                         analysis_result *r, size_t first, ratio_interval *scratch)
{
    const analysis_comparison *lead = &r->comparisons[first];
    size_t k = 0;
    for (size_t j = first; j < r->n_comparisons; j++) {
        const analysis_comparison *c = &r->comparisons[j];
        if (!same_overall_group(series, lead, c))
            continue;
        if (!c->ok)
            return 0; /* a point without a result leaves the overall effect undefined */
        scratch[k++] = (ratio_interval){c->result.ratio, c->result.ci_low, c->result.ci_high,
                                        c->result.achieved_confidence};
    }
    ratio_interval combined;
    if (k < 2 || combine_ratios(scratch, k, o->confidence, &combined) != STATS_OK)
        return 0;
    analysis_overall *ov = &r->overall[r->n_overall++];
    const analysis_series *b = &series[lead->baseline], *x = &series[lead->candidate];
    *ov = (analysis_overall){b->variant, x->variant, x->metric, k, combined.ratio,
                             combined.ci_low, combined.ci_high, o->confidence, {0}};
    verdict_input in = {.estimate = log(combined.ratio), .low = log(combined.ci_low),
                        .high = log(combined.ci_high), .confidence = o->confidence,
                        .achieved_confidence = o->confidence, .margin = o->margin,
                        .higher_is_better = b->higher_is_better, .usable_share = 1.0,
                        .n_baseline = b->n, .n_candidate = x->n};
    ov->decision = verdict_decide(&in);
    return 0;
}

static int compute_overall(const analysis_series *series, const analysis_options *o,
                           analysis_result *r)
{
    size_t m = r->n_comparisons;
    r->overall = calloc(m ? m : 1, sizeof *r->overall);
    ratio_interval *scratch = calloc(m ? m : 1, sizeof *scratch);
    if (r->overall == NULL || scratch == NULL) {
        free(scratch);
        return -1;
    }
    for (size_t i = 0; i < m; i++) {
        bool seen = false;
        for (size_t j = 0; j < i && !seen; j++)
            seen = same_overall_group(series, &r->comparisons[j], &r->comparisons[i]);
        if (!seen)
            combine_group(series, o, r, i, scratch);
    }
    free(scratch);
    return 0;
}

int analysis_run(const analysis_series *series, size_t n_series, const analysis_options *options,
                 analysis_result *out, verdict_error *err)
{
    memset(out, 0, sizeof *out);
    out->summaries = calloc(n_series ? n_series : 1, sizeof *out->summaries);
    size_t m = count_comparisons(series, n_series);
    out->comparisons = calloc(m ? m : 1, sizeof *out->comparisons);
    /* a summary's other failures (too few values) are the summary's to show, not errors */
    stats_status st = out->summaries == NULL || out->comparisons == NULL ? STATS_ERR_NOMEM
                                                                         : STATS_OK;
    for (size_t i = 0; st == STATS_OK && i < n_series; i++) {
        if (stats_summarize(series[i].values, series[i].n, &out->summaries[i]) == STATS_ERR_NOMEM ||
            diagnose_series(out, &series[i], &out->summaries[i], options) != 0)
            st = STATS_ERR_NOMEM;
    }
    if (st == STATS_OK && suggest_quantile(out, series, n_series, options) != 0)
        st = STATS_ERR_NOMEM;
    if (st == STATS_OK)
        plan_comparisons(series, n_series, out);
    if (st == STATS_OK && compute_comparisons(series, options, options->confidence, out) != 0)
        st = STATS_ERR_NOMEM;
    if (st == STATS_OK && adjust_for_family(series, options, out, err) != 0)
        goto fail; /* err says why */
    if (st == STATS_OK && (compute_overall(series, options, out) != 0 ||
                           analysis_pool_machines(series, options, out) != 0))
        st = STATS_ERR_NOMEM;
    for (size_t k = 0; st == STATS_OK && k < out->n_comparisons; k++)
        if (diagnose_comparison(out, series, &out->comparisons[k]) != 0)
            st = STATS_ERR_NOMEM;
    if (st == STATS_OK)
        return 0;
    stats_error_set(err, st, "analysis");
fail:
    analysis_result_free(out);
    return -1;
}

void analysis_result_free(analysis_result *result)
{
    for (size_t k = 0; k < result->n_comparisons; k++) {
        free(result->comparisons[k].error);
        free_layouts(&result->comparisons[k]);
    }
    for (size_t i = 0; i < result->n_warnings; i++) {
        free(result->warnings[i].code);
        free(result->warnings[i].point);
        free(result->warnings[i].variant);
        free(result->warnings[i].message);
    }
    free(result->warnings);
    analysis_fleet_free(result);
    free(result->overall);
    free(result->comparisons);
    free(result->summaries);
    memset(result, 0, sizeof *result);
}
