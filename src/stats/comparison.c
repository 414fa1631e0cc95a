/* Compares a candidate with a baseline on the log scale with the chosen method and
 * turns the shift into a ratio, an interval and a verdict. */
#include "comparison.h"

#include <math.h>
#include <stdlib.h>

#include "bootstrap.h"
#include "rank_tests.h"
#include "t_tests.h"

#define DEFAULT_RESAMPLES 10000
/* Below this many runs per side the bootstrap distribution has too few distinct
 * resamples for its interval to keep its level (3 + 3 runs give 10 distinct medians per
 * side), so no level is claimed at all. */
#define BOOTSTRAP_MIN_N 10

const char *comparison_method_name(comparison_method method, bool paired)
{
    switch (method) {
    case METHOD_WILCOXON: return paired ? "wilcoxon-signed-rank" : "wilcoxon-rank-sum";
    case METHOD_WELCH: return paired ? "paired-t" : "welch";
    case METHOD_BOOTSTRAP: return paired ? "bootstrap-bca-paired" : "bootstrap-bca";
    }
    return "unknown";
}

static stats_status logs_of(const double *x, size_t n, double **out)
{
    double *logs = malloc((n ? n : 1) * sizeof *logs);
    if (logs == NULL)
        return STATS_ERR_NOMEM;
    for (size_t i = 0; i < n; i++) {
        if (!(x[i] > 0.0) || !isfinite(x[i])) {
            free(logs);
            return STATS_ERR_DOMAIN;
        }
        logs[i] = log(x[i]);
    }
    *out = logs;
    return STATS_OK;
}

static stats_status run_paired(const double *log_b, const double *log_c, size_t n,
                               const comparison_options *o, shift_result *shift)
{
    if (o->method == METHOD_BOOTSTRAP)
        return bootstrap_bca_median_shift(log_c, n, log_b, n, true, o->confidence, o->seed,
                                          o->resamples ? o->resamples : DEFAULT_RESAMPLES, shift);
    double *diff = malloc(n * sizeof *diff);
    if (diff == NULL)
        return STATS_ERR_NOMEM;
    for (size_t i = 0; i < n; i++)
        diff[i] = log_c[i] - log_b[i];
    stats_status st = o->method == METHOD_WELCH ? paired_t_test(diff, n, o->confidence, shift)
                                                : wilcoxon_signed_rank(diff, n, o->confidence, shift);
    free(diff);
    return st;
}

static stats_status run_unpaired(const double *log_b, size_t nb, const double *log_c, size_t nc,
                                 const comparison_options *o, shift_result *shift)
{
    switch (o->method) {
    case METHOD_WELCH: return welch_t_test(log_c, nc, log_b, nb, o->confidence, shift);
    case METHOD_BOOTSTRAP:
        return bootstrap_bca_median_shift(log_c, nc, log_b, nb, false, o->confidence, o->seed,
                                          o->resamples ? o->resamples : DEFAULT_RESAMPLES, shift);
    case METHOD_WILCOXON: break;
    }
    return wilcoxon_rank_sum(log_c, nc, log_b, nb, o->confidence, shift);
}

/* Every block showed the same difference (a deterministic metric, such as a count printed
 * by the command): R gives no interval. The shift is then known exactly, but only claimed
 * when the test itself rejects no change at the requested level. */
static void settle_constant_difference(shift_result *shift, double confidence)
{
    if (isfinite(shift->ci_low) && isfinite(shift->ci_high))
        return;
    if (!isfinite(shift->estimate))
        return;
    shift->ci_low = shift->ci_high = shift->estimate;
    shift->achieved_confidence = shift->p_value <= 1.0 - confidence ? confidence : 0.0;
}

static void fill_comparison(const shift_result *shift, const comparison_options *o,
                            size_t nb, size_t nc, comparison *out)
{
    out->method_name = comparison_method_name(o->method, o->paired);
    out->paired = o->paired;
    out->exact = shift->exact;
    out->n_baseline = nb;
    out->n_candidate = nc;
    out->ratio = exp(shift->estimate);
    out->ci_low = exp(shift->ci_low);
    out->ci_high = exp(shift->ci_high);
    out->p_value = shift->p_value;
    out->confidence = o->confidence;
    out->achieved_confidence = shift->achieved_confidence;
    out->statistic = shift->statistic;
    out->df = shift->df;
    verdict_input in = {
        .ratio = out->ratio, .ci_low = out->ci_low, .ci_high = out->ci_high,
        .confidence = o->confidence, .achieved_confidence = shift->achieved_confidence,
        .margin = o->margin, .higher_is_better = o->higher_is_better,
        .paired = o->paired, .exact = shift->exact && o->method == METHOD_WILCOXON,
        .min_n = o->method == METHOD_BOOTSTRAP ? BOOTSTRAP_MIN_N : 0,
        .n_baseline = nb, .n_candidate = nc,
    };
    out->decision = verdict_decide(&in);
}

stats_status compare_samples(const double *baseline, size_t n_baseline,
                             const double *candidate, size_t n_candidate,
                             const comparison_options *options, comparison *out)
{
    if (!(options->confidence > 0.0 && options->confidence < 1.0) || !(options->margin >= 0.0))
        return STATS_ERR_DOMAIN;
    if (options->paired && n_baseline != n_candidate)
        return STATS_ERR_DOMAIN;
    if (n_baseline < 2 || n_candidate < 2)
        return STATS_ERR_TOO_FEW;

    double *log_b = NULL, *log_c = NULL;
    stats_status st = logs_of(baseline, n_baseline, &log_b);
    if (st == STATS_OK)
        st = logs_of(candidate, n_candidate, &log_c);
    shift_result shift;
    if (st == STATS_OK)
        st = options->paired ? run_paired(log_b, log_c, n_baseline, options, &shift)
                             : run_unpaired(log_b, n_baseline, log_c, n_candidate, options, &shift);
    if (st == STATS_OK && options->method == METHOD_BOOTSTRAP &&
        (n_baseline < BOOTSTRAP_MIN_N || n_candidate < BOOTSTRAP_MIN_N))
        shift.achieved_confidence = 0.0;
    if (st == STATS_OK) {
        settle_constant_difference(&shift, options->confidence);
        fill_comparison(&shift, options, n_baseline, n_candidate, out);
    }
    free(log_b);
    free(log_c);
    return st;
}
