/* Compares a candidate with a baseline on the log scale with the chosen method and
 * turns the shift into a ratio, an interval and a verdict. */
#include "comparison.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>

#include "bootstrap.h"
#include "common/error.h"
#include "quantile_compare.h"
#include "rank_tests.h"
#include "resolution.h"
#include "t_tests.h"

#define DEFAULT_RESAMPLES 10000
/* Below this many runs per side the bootstrap distribution has too few distinct
 * resamples for its interval to keep its level (3 + 3 runs give 10 distinct medians per
 * side), so no level is claimed at all. */
#define BOOTSTRAP_MIN_N 10
/* Values spread over fewer rounding steps than this do not dither the rounding away: the
 * simulations in tests/simulation measure the coverage that results on either side. */
#ifndef COARSE_SPREAD_STEPS
#define COARSE_SPREAD_STEPS 2.0
#endif

const char *comparison_method_name(comparison_method method, bool paired)
{
    switch (method) {
    case METHOD_WILCOXON: return paired ? "wilcoxon-signed-rank" : "wilcoxon-rank-sum";
    case METHOD_WELCH: return paired ? "paired-t" : "welch";
    case METHOD_BOOTSTRAP: return paired ? "bootstrap-bca-paired" : "bootstrap-bca";
    case METHOD_QUANTILE: return paired ? "quantile-hd-swap" : "quantile-hd-permutation";
    }
    return "unknown";
}

const char *comparison_method_option(comparison_method method)
{
    switch (method) {
    case METHOD_WILCOXON: return "wilcoxon";
    case METHOD_WELCH: return "welch";
    case METHOD_BOOTSTRAP: return "bootstrap";
    case METHOD_QUANTILE: return "quantile";
    }
    return "unknown";
}

/* The quantile compared: Q of the runs at the metric's good end, where interference does not
 * reach. For a time that is the Q quantile; where higher is better (tps, gbps) interference
 * takes from the value, so the good end is the 1 - Q quantile (0.9 for the default 0.1). */
static double quantile_of(const comparison_options *o)
{
    double q = o->quantile > 0 ? o->quantile : COMPARISON_DEFAULT_QUANTILE;
    assert(q > 0.0 && q < 1.0);
    return o->higher_is_better ? 1.0 - q : q;
}

/* The quantile method compares the values themselves (its estimate is the log ratio of two
 * quantiles, not a location of the log differences): swaps within blocks when paired,
 * permutations of the pooled runs otherwise (stats/quantile_compare.h). */
static stats_status run_quantile(const double *baseline, size_t nb, const double *candidate,
                                 size_t nc, const comparison_options *o, shift_result *shift)
{
    quantile_options qo = {.q = quantile_of(o), .confidence = o->confidence,
                           .flips = o->resamples, .seed = o->seed};
    quantile_comparison qc;
    verdict_error err = {0};
    int rc = o->paired ? quantile_compare_paired(baseline, candidate, nb, &qo, &qc, &err)
                       : quantile_compare_unpaired(baseline, nb, candidate, nc, &qo, &qc, &err);
    if (rc != 0)
        return error_is(&err, ERROR_NO_MEMORY) ? STATS_ERR_NOMEM : STATS_ERR_DOMAIN;
    *shift = qc.shift;
    return STATS_OK;
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

/* Paired: every method works on the per-block log differences, so that pairing cancels the
 * block's machine state whatever the method. */
static stats_status run_paired(const double *log_b, const double *log_c, size_t n,
                               const comparison_options *o, shift_result *shift)
{
    double *diff = malloc(n * sizeof *diff);
    if (diff == NULL)
        return STATS_ERR_NOMEM;
    for (size_t i = 0; i < n; i++)
        diff[i] = log_c[i] - log_b[i];
    stats_status st;
    switch (o->method) {
    case METHOD_WELCH: st = paired_t_test(diff, n, o->confidence, shift); break;
    case METHOD_BOOTSTRAP:
        st = bootstrap_bca_paired_location(diff, n, o->confidence, o->seed,
                                           o->resamples ? o->resamples : DEFAULT_RESAMPLES, shift);
        break;
    case METHOD_WILCOXON:
    default: st = wilcoxon_signed_rank(diff, n, o->confidence, shift); break;
    }
    free(diff);
    return st;
}

static stats_status run_unpaired(const double *log_b, size_t nb, const double *log_c, size_t nc,
                                 const comparison_options *o, shift_result *shift)
{
    switch (o->method) {
    case METHOD_WELCH: return welch_t_test(log_c, nc, log_b, nb, o->confidence, shift);
    case METHOD_BOOTSTRAP:
        return bootstrap_bca_median_shift(log_c, nc, log_b, nb, o->confidence, o->seed,
                                          o->resamples ? o->resamples : DEFAULT_RESAMPLES, shift);
    case METHOD_QUANTILE: /* run_quantile's, never here */
    case METHOD_WILCOXON: break;
    }
    return wilcoxon_rank_sum(log_c, nc, log_b, nb, o->confidence, shift);
}

/* Every block showed the same difference (a deterministic metric, such as a count printed
 * by the command), or each sample is constant: R gives no interval. The shift is then known
 * exactly, but only claimed when the test itself rejects no change at the requested level,
 * and when this many values can reach that level at all (R's rule, as for intervals). */
static void settle_constant_difference(shift_result *shift, double confidence)
{
    if (isfinite(shift->ci_low) && isfinite(shift->ci_high))
        return;
    if (!isfinite(shift->estimate))
        return;
    double alpha = 1.0 - confidence;
    shift->ci_low = shift->ci_high = shift->estimate;
    bool rejected = shift->p_value <= alpha;
    bool reachable = !(shift->min_p_value - alpha > alpha / 2.0);
    shift->achieved_confidence = rejected && reachable ? confidence : 0.0;
}

/* On the log scale a difference this small is no difference: doubles of proportional values
 * (11/10 and 22/20) give log ratios a few ulps apart, while counts of 10^7 differ by 10^-7. */
#define SAME_LOG_RATIO 1e-12

static bool constant_values(const double *x, size_t n)
{
    for (size_t i = 1; i < n; i++)
        if (x[i] != x[0])
            return false;
    return true;
}

/* The data show no variation at all: each sample one value (unpaired), or every block the
 * same log ratio (paired: the block's own level cancels, as in every paired method). */
static bool without_variation(const double *log_b, size_t nb, const double *log_c, size_t nc,
                              bool paired)
{
    if (!paired)
        return constant_values(log_b, nb) && constant_values(log_c, nc);
    double d = log_c[0] - log_b[0];
    for (size_t i = 1; i < nb; i++)
        if (!(fabs(log_c[i] - log_b[i] - d) <= SAME_LOG_RATIO))
            return false;
    return true;
}

/* The smallest two-sided p-value a permutation test of no change has with these runs: every
 * paired difference of one sign (2 / 2^n), or every candidate beyond every baseline
 * (2 / C(m + n, m)). */
static double separation_p_value(size_t nb, size_t nc, bool paired)
{
    if (paired)
        return fmin(1.0, 2.0 * pow(0.5, (double)nb));
    double log_choose = lgamma((double)(nb + nc + 1)) - lgamma((double)(nb + 1)) -
                        lgamma((double)(nc + 1));
    return fmin(1.0, 2.0 * exp(-log_choose));
}

/* How likely runs of a count look as these do when nothing changed: every run of each
 * variant one value, the two values different. A count is not moved by the machine's state,
 * so each run is a draw of its own; whatever the count's distribution (one value, or a few
 * levels that an alignment picks: spin's count under cachegrind takes two, 14 instructions
 * apart), that chance is the sum over values i != j of p_i^m p_j^n, at most 2 / 4^min(m, n),
 * reached by two equally likely levels (docs/statistics.md, "Exact and near-exact data"). */
static double counts_separation_p_value(size_t nb, size_t nc)
{
    return fmin(1.0, 2.0 * pow(0.25, (double)(nb < nc ? nb : nc)));
}

/* The fewest runs per side with which counts that never varied can reach the level. */
static size_t counts_min_n(double confidence)
{
    size_t n = 1;
    while (counts_separation_p_value(n, n) > 1.0 - confidence)
        n++;
    return n;
}

/* Data that did not vary at all (a deterministic count; values printed with too few digits
 * to show their spread) leave a test no noise to measure, and the tests refuse them: the shift
 * is the one difference they show (docs/statistics.md, "Exact and near-exact data").
 * Equal values are no change, [0, 0] (rounded ones are widened by their allowance after).
 * Different values are claimed when data so unvarying are unlikely under no change: for counts
 * that each took one value, the chance above; otherwise the permutation floor, and for the
 * rank method its own rule (settle_constant_difference, after the test). Sets *min_n to the
 * fewest runs that can decide so. True when the shift was settled here. */
static bool settle_without_variation(const double *log_b, size_t nb, const double *log_c,
                                     size_t nc, const comparison_options *o, shift_result *shift,
                                     size_t *min_n)
{
    if (!without_variation(log_b, nb, log_c, nc, o->paired))
        return false;
    double d = log_c[0] - log_b[0];
    bool equal = fabs(d) <= SAME_LOG_RATIO;
    if (equal)
        d = 0.0;
    bool counted = o->exact_counts && constant_values(log_b, nb) && constant_values(log_c, nc);
    if (!equal && !counted && o->method == METHOD_WILCOXON)
        return false;
    double floor = counted ? counts_separation_p_value(nb, nc)
                           : separation_p_value(nb, nc, o->paired);
    double p = equal ? 1.0 : floor;
    bool claimed = equal || p <= 1.0 - o->confidence;
    *shift = (shift_result){.estimate = d, .ci_low = d, .ci_high = d, .p_value = p,
                            .statistic = NAN, .df = NAN,
                            .achieved_confidence = claimed ? o->confidence : 0.0,
                            .exact = true, .min_p_value = floor};
    if (counted)
        *min_n = counts_min_n(o->confidence);
    return true;
}

/* Rounded values move a location interval by up to a step (each difference of two rounded
 * values can be off by half a step of each), and rank methods snap to the few values the data
 * take rather than averaging the rounding out, as means do. That matters when the values are
 * not spread over several steps (their spread dithers the rounding), or when the interval is
 * narrower than a step: values rounded to 0.1 s cannot show a 1% difference however many runs
 * there are. The interval is then widened by the step on each side, keeping the side of 0 the
 * test established (the test itself stays valid: rounding cannot make equal things differ). */
static bool widen_to_resolution(shift_result *s, const stats_resolution *resolution,
                                comparison_method method)
{
    double log_step = resolution->log_step;
    /* A mean averages rounding out once the values themselves spread over the grid
     * (Sheppard), so the t interval may then be narrower than a step; medians and ranks
     * snap to the few values what they locate takes, so they need that spread over steps. */
    bool mean = method == METHOD_WELCH;
    double spread = mean ? resolution->value_spread : resolution->spread;
    bool coarse = !(spread >= COARSE_SPREAD_STEPS * log_step);
    bool finer_than_step = !mean && log_step > (s->ci_high - s->ci_low) / 2.0;
    if (!(log_step > 0.0) || !(coarse || finer_than_step))
        return false;
    stats_widen_by_step(s, log_step);
    return true;
}

/* The fewest runs per side with which the method can ever decide at the requested level. */
static size_t method_min_n(const comparison_options *o)
{
    switch (o->method) {
    case METHOD_WILCOXON: return rank_test_min_n(o->confidence, o->paired);
    case METHOD_BOOTSTRAP: return BOOTSTRAP_MIN_N;
    case METHOD_QUANTILE: return quantile_compare_min_n(o->confidence, o->paired);
    case METHOD_WELCH: break;
    }
    return 2;
}

static void fill_comparison(const shift_result *shift, const stats_resolution *resolution,
                            bool limited, const comparison_options *o, size_t min_n, size_t nb,
                            size_t nc, comparison *out)
{
    *out = (comparison){
        .method_name = comparison_method_name(o->method, o->paired),
        .quantile = o->method == METHOD_QUANTILE ? quantile_of(o) : 0.0,
        .paired = o->paired, .exact = shift->exact, .n_baseline = nb, .n_candidate = nc,
        .ratio = exp(shift->estimate), .ci_low = exp(shift->ci_low), .ci_high = exp(shift->ci_high),
        .low_open = shift->low_open, .high_open = shift->high_open,
        .p_value = shift->p_value, .confidence = o->confidence,
        .achieved_confidence = shift->achieved_confidence,
        .statistic = shift->statistic, .df = shift->df, .set_aside = shift->set_aside,
        .distinct_values = resolution->distinct, .step = resolution->step,
        .digits = resolution->digits,
        .relative_step = expm1(resolution->log_step), .resolution_limited = limited,
    };
    size_t used = nb - (shift->set_aside < nb ? shift->set_aside : nb);
    verdict_input in = {
        .estimate = shift->estimate, .low = shift->ci_low, .high = shift->ci_high,
        .low_open = shift->low_open, .high_open = shift->high_open,
        .confidence = o->confidence, .achieved_confidence = shift->achieved_confidence,
        .margin = o->margin, .higher_is_better = o->higher_is_better,
        .resolution_limited = limited, .min_n = min_n,
        .usable_share = nb > 0 ? (double)used / (double)nb : 1.0,
        .n_baseline = nb, .n_candidate = nc,
    };
    out->decision = verdict_decide(&in);
}

stats_status compare_samples(const double *baseline, size_t n_baseline,
                             const double *candidate, size_t n_candidate,
                             const comparison_options *options, comparison *out)
{
    if (!(options->confidence > 0.0 && options->confidence < 1.0) || !(options->margin >= 0.0) ||
        !(options->quantile >= 0.0 && options->quantile < 1.0))
        return STATS_ERR_DOMAIN;
    if (options->paired && n_baseline != n_candidate)
        return STATS_ERR_DOMAIN;
    if (n_baseline < 2 || n_candidate < 2)
        return STATS_ERR_TOO_FEW;

    double *log_b = NULL, *log_c = NULL;
    stats_status st = logs_of(baseline, n_baseline, &log_b);
    if (st == STATS_OK)
        st = logs_of(candidate, n_candidate, &log_c);
    shift_result shift = {0};
    size_t min_n = method_min_n(options);
    bool settled = st == STATS_OK && settle_without_variation(log_b, n_baseline, log_c,
                                                              n_candidate, options, &shift,
                                                              &min_n);
    if (st == STATS_OK && !settled && options->method == METHOD_QUANTILE)
        st = run_quantile(baseline, n_baseline, candidate, n_candidate, options, &shift);
    else if (st == STATS_OK && !settled)
        st = options->paired ? run_paired(log_b, log_c, n_baseline, options, &shift)
                             : run_unpaired(log_b, n_baseline, log_c, n_candidate, options, &shift);
    if (st == STATS_OK && !settled && options->method == METHOD_BOOTSTRAP &&
        (n_baseline < BOOTSTRAP_MIN_N || n_candidate < BOOTSTRAP_MIN_N))
        shift.achieved_confidence = 0.0;
    stats_resolution resolution = {0};
    if (st == STATS_OK)
        st = stats_resolution_of(baseline, n_baseline, candidate, n_candidate, options->paired,
                                 &resolution);
    if (st == STATS_OK) {
        if (options->exact_counts)
            resolution.log_step = 0.0; /* counted, not rounded: no allowance */
        settle_constant_difference(&shift, options->confidence);
        bool limited = widen_to_resolution(&shift, &resolution, options->method);
        fill_comparison(&shift, &resolution, limited, options, min_n, n_baseline, n_candidate,
                        out);
        out->constant = without_variation(log_b, n_baseline, log_c, n_candidate,
                                          options->paired);
    }
    free(log_b);
    free(log_c);
    return st;
}
