/* A/A experiments analysed: every method's calls and interval widths per experiment, the
 * chosen method's false-positive rate with its exact interval, and the noise's profile. */
#include "calibration.h"

#include <assert.h>
#include <gsl/gsl_cdf.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "comparison.h"
#include "descriptive.h"
#include "quantile_compare.h"
#include "t_tests.h"
#include "verdict_rules.h"

/* The quantile the quantile method compares: issue 27's default. */
#define CALIBRATION_QUANTILE_Q 0.1

static const char *const method_names[CALIBRATION_METHODS] = {"wilcoxon", "welch", "bootstrap",
                                                              "quantile"};

const char *calibration_method_name(calibration_method method)
{
    assert(method < CALIBRATION_METHODS);
    return method_names[method];
}

int calibration_method_parse(const char *text, calibration_method *out, verdict_error *err)
{
    for (size_t i = 0; i < CALIBRATION_METHODS; i++)
        if (strcmp(text, method_names[i]) == 0) {
            *out = (calibration_method)i;
            return 0;
        }
    return error_set(err, ERROR_USAGE, "--method '%s': must be wilcoxon, welch, bootstrap or "
                     "quantile", text);
}

void calibration_clopper_pearson(size_t successes, size_t trials, double confidence,
                                 double *low, double *high)
{
    assert(trials >= 1 && successes <= trials && confidence > 0 && confidence < 1);
    double alpha = 1.0 - confidence, x = (double)successes, n = (double)trials;
    *low = successes == 0 ? 0.0 : gsl_cdf_beta_Pinv(alpha / 2.0, x, n - x + 1.0);
    *high = successes == trials ? 1.0 : gsl_cdf_beta_Pinv(1.0 - alpha / 2.0, x + 1.0, n - x);
}

double calibration_lag1(const double *x, size_t n)
{
    if (n < 3)
        return NAN;
    double m = stats_mean(x, n), num = 0.0, den = 0.0;
    for (size_t t = 0; t < n; t++) {
        den += (x[t] - m) * (x[t] - m);
        if (t + 1 < n)
            num += (x[t] - m) * (x[t + 1] - m);
    }
    return den > 0.0 ? num / den : NAN;
}

double calibration_share_above(const double *x, size_t n, double q, double factor)
{
    assert(n >= 1);
    double cut = NAN;
    if (stats_quantile(x, n, q, &cut) != STATS_OK)
        return NAN;
    size_t above = 0;
    for (size_t i = 0; i < n; i++)
        above += x[i] > factor * cut;
    return (double)above / (double)n;
}

/* The quantile comparison as a comparison: its log-scale interval through the verdict rules
 * the other methods' go through. */
static int compare_quantile(const calibration_experiment *x, const calibration_options *o,
                            uint64_t seed, comparison *out, verdict_error *err)
{
    quantile_options qo = {.q = CALIBRATION_QUANTILE_Q, .confidence = o->confidence,
                           .seed = seed};
    quantile_comparison qc;
    if (quantile_compare_paired(x->a, x->b, x->blocks, &qo, &qc, err) != 0)
        return -1;
    const shift_result *s = &qc.shift;
    verdict_input in = {.estimate = s->estimate, .low = s->ci_low, .high = s->ci_high,
                        .low_open = s->low_open, .high_open = s->high_open,
                        .confidence = o->confidence,
                        .achieved_confidence = s->achieved_confidence, .margin = o->margin,
                        .min_n = 2, .usable_share = 1.0, .n_baseline = x->blocks,
                        .n_candidate = x->blocks};
    *out = (comparison){.ratio = exp(s->estimate), .ci_low = exp(s->ci_low),
                        .ci_high = exp(s->ci_high), .p_value = s->p_value,
                        .achieved_confidence = s->achieved_confidence,
                        .decision = verdict_decide(&in)};
    return 0;
}

/* One method on one experiment: 0 (*called: better or worse; *half_width of the ratio's
 * interval), 1 when the method cannot analyse it, -1 with err (no memory). */
static int compare_one(const calibration_experiment *x, calibration_method m,
                       const calibration_options *o, uint64_t seed, bool *called,
                       double *half_width, verdict_error *err)
{
    comparison c;
    if (m == CALIBRATION_QUANTILE) {
        verdict_error why;
        if (compare_quantile(x, o, seed, &c, &why) != 0)
            return error_is(&why, ERROR_NO_MEMORY) ? error_copy(err, &why) : 1;
    } else {
        static const comparison_method methods[] = {METHOD_WILCOXON, METHOD_WELCH,
                                                    METHOD_BOOTSTRAP};
        comparison_options co = {.method = methods[m], .paired = true,
                                 .confidence = o->confidence, .margin = o->margin, .seed = seed};
        stats_status st = compare_samples(x->a, x->blocks, x->b, x->blocks, &co, &c);
        if (st == STATS_ERR_NOMEM)
            return error_no_memory(err);
        if (st != STATS_OK)
            return 1;
    }
    *called = c.decision.kind == VERDICT_BETTER || c.decision.kind == VERDICT_WORSE;
    /* an interval below its level (too few blocks for a rank test's) is not a width to win by */
    bool at_level = !(c.achieved_confidence < o->confidence - 1e-9);
    *half_width = at_level ? (c.ci_high - c.ci_low) / 2.0 : INFINITY;
    return 0;
}

static int check_input(const calibration_experiment *x, size_t n, const calibration_options *o,
                       verdict_error *err)
{
    if (n == 0 || !(o->confidence > 0 && o->confidence < 1) || !(o->margin >= 0) ||
        o->method >= CALIBRATION_METHODS)
        return error_set(err, ERROR_BAD_INPUT, "calibration: %zu experiments, confidence %g, "
                         "margin %g: need one experiment or more and a level in (0, 1)", n,
                         o->confidence, o->margin);
    for (size_t e = 0; e < n; e++) {
        if (x[e].blocks < 2)
            return error_set(err, ERROR_BAD_INPUT, "calibration: experiment %zu has %zu "
                             "blocks; an A/A comparison needs 2 or more", e + 1, x[e].blocks);
        for (size_t i = 0; i < x[e].blocks; i++)
            if (!(x[e].a[i] > 0 && isfinite(x[e].a[i]) && x[e].b[i] > 0 && isfinite(x[e].b[i])))
                return error_set(err, ERROR_BAD_INPUT, "calibration: experiment %zu, block %zu: "
                                 "runs of %g and %g; every run must be positive and finite",
                                 e + 1, i + 1, x[e].a[i], x[e].b[i]);
    }
    return 0;
}

/* A method shown to call A/A experiments different more often than its level allows (the
 * exact interval of its rate lies above alpha) decides nothing fast: it is not eligible. */
static bool keeps_level(const calibration_method_result *r, const calibration_options *o)
{
    double low, high;
    calibration_clopper_pearson(r->false_positives, r->compared, o->confidence, &low, &high);
    return low <= 1.0 - o->confidence;
}

/* Every method on every experiment: the calls, and each method's median half-width. */
static int analyse_methods(const calibration_experiment *x, size_t n,
                           const calibration_options *o, calibration_result *out,
                           verdict_error *err)
{
    double *widths = malloc(n * sizeof *widths);
    if (widths == NULL)
        return error_no_memory(err);
    int rc = 0;
    for (size_t m = 0; rc == 0 && m < CALIBRATION_METHODS; m++) {
        calibration_method_result *r = &out->methods[m];
        *r = (calibration_method_result){.median_half_width = NAN};
        for (size_t e = 0; rc == 0 && e < n; e++) {
            bool called = false;
            int one = compare_one(&x[e], (calibration_method)m, o, o->seed + e, &called,
                                  &widths[r->compared], err);
            rc = one < 0 ? -1 : 0;
            if (one == 0) {
                r->false_positives += called;
                r->compared++;
            }
        }
        if (rc == 0 && r->compared > 0)
            stats_median(widths, r->compared, &r->median_half_width);
        bool narrower = !out->has_fastest ||
                        r->median_half_width < out->methods[out->fastest].median_half_width;
        if (rc == 0 && isfinite(r->median_half_width) && narrower && keeps_level(r, o)) {
            out->has_fastest = true;
            out->fastest = (calibration_method)m;
        }
    }
    free(widths);
    return rc;
}

/* The coefficient of variation and the share of slow runs of each (experiment, variant):
 * the median CV and the pooled share. cvs holds 2n. */
static void analyse_spread(const calibration_experiment *x, size_t n, double *cvs,
                           calibration_result *out)
{
    double slow = 0.0;
    size_t runs = 0;
    for (size_t e = 0; e < n; e++)
        for (size_t v = 0; v < 2; v++) {
            const double *r = v == 0 ? x[e].a : x[e].b;
            cvs[2 * e + v] = stats_stddev(r, x[e].blocks) / stats_mean(r, x[e].blocks);
            slow += calibration_share_above(r, x[e].blocks, CALIBRATION_SLOW_QUANTILE,
                                            CALIBRATION_SLOW_FACTOR) * (double)x[e].blocks;
            runs += x[e].blocks;
        }
    stats_median(cvs, 2 * n, &out->cv);
    out->slow_share = slow / (double)runs;
}

/* The runs in the order they ran (seq) and the blocks' log(second / first) (order). */
static void runs_in_order(const calibration_experiment *x, size_t n, double *seq, double *order)
{
    size_t k = 0, b = 0;
    for (size_t e = 0; e < n; e++)
        for (size_t i = 0; i < x[e].blocks; i++, b++) {
            double first = x[e].a_first[i] ? x[e].a[i] : x[e].b[i];
            double second = x[e].a_first[i] ? x[e].b[i] : x[e].a[i];
            seq[k++] = first;
            seq[k++] = second;
            order[b] = log(second) - log(first);
        }
}

static int analyse_noise(const calibration_experiment *x, size_t n, const calibration_options *o,
                         calibration_result *out, verdict_error *err)
{
    size_t blocks = 0;
    for (size_t e = 0; e < n; e++)
        blocks += x[e].blocks;
    double *seq = malloc(2 * blocks * sizeof *seq), *order = malloc(blocks * sizeof *order);
    double *cvs = malloc(2 * n * sizeof *cvs);
    int rc = seq && order && cvs ? 0 : error_no_memory(err);
    if (rc == 0) {
        analyse_spread(x, n, cvs, out);
        runs_in_order(x, n, seq, order);
        out->lag1 = calibration_lag1(seq, 2 * blocks);
        if (paired_t_test(order, blocks, o->confidence, &out->order) != STATS_OK)
            out->order = (shift_result){.estimate = NAN, .ci_low = NAN, .ci_high = NAN};
    }
    free(seq);
    free(order);
    free(cvs);
    return rc;
}

int calibration_analyse(const calibration_experiment *x, size_t n, const calibration_options *o,
                        calibration_result *out, verdict_error *err)
{
    memset(out, 0, sizeof *out);
    if (check_input(x, n, o, err) != 0 || analyse_methods(x, n, o, out, err) != 0 ||
        analyse_noise(x, n, o, out, err) != 0)
        return -1;
    const calibration_method_result *chosen = &out->methods[o->method];
    out->experiments = n;
    out->false_positives = chosen->false_positives;
    out->rate = (double)out->false_positives / (double)n;
    calibration_clopper_pearson(out->false_positives, n, o->confidence, &out->rate_low,
                                &out->rate_high);
    return 0;
}
