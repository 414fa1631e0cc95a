/* Student's one-sample t test on paired differences and Welch's two-sample t test,
 * giving the same estimate, interval, t, df and two-sided p-value as R's t.test. */
#include "t_tests.h"

#include <float.h>
#include <math.h>

#include "descriptive.h"
#include "distributions.h"

static int valid_confidence(double confidence)
{
    return confidence > 0.0 && confidence < 1.0;
}

/* R refuses ("data are essentially constant") when the standard error is negligible next
 * to the means; the same threshold keeps t from being rounding noise divided by noise. */
static int essentially_constant(double std_error, double location_scale)
{
    return !(std_error > 10.0 * DBL_EPSILON * location_scale);
}

/* Two-sided p-value P(|T| > |t|); dist_pt_upper is accurate in the far tail too. */
static double two_sided_t_p_value(double t, double df)
{
    return 2.0 * dist_pt_upper(fabs(t), df);
}

/* Fills everything a t test reports from the estimate, its standard error and df. */
static void fill_t_result(double estimate, double std_error, double df, double confidence,
                          shift_result *out)
{
    double t = estimate / std_error;
    double t_crit = dist_qt(1.0 - (1.0 - confidence) / 2.0, df);
    /* (t -/+ t_crit) * se, as R computes it, rather than estimate -/+ t_crit * se. */
    *out = (shift_result){.estimate = estimate, .ci_low = (t - t_crit) * std_error,
                          .ci_high = (t + t_crit) * std_error,
                          .p_value = two_sided_t_p_value(t, df), .statistic = t, .df = df,
                          .achieved_confidence = confidence, .exact = false};
}

static int contains_non_finite(const double *x, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!isfinite(x[i]))
            return 1;
    return 0;
}

stats_status paired_t_test(const double *d, size_t n, double confidence, shift_result *out)
{
    if (!valid_confidence(confidence))
        return STATS_ERR_DOMAIN;
    if (n < 2)
        return STATS_ERR_TOO_FEW;
    if (d == NULL || out == NULL || contains_non_finite(d, n))
        return STATS_ERR_DOMAIN;
    double mean = stats_mean(d, n);
    double std_error = sqrt(stats_variance(d, n) / (double)n);
    if (essentially_constant(std_error, fabs(mean)))
        return STATS_ERR_DEGENERATE;
    fill_t_result(mean, std_error, (double)(n - 1), confidence, out);
    return STATS_OK;
}

/* Welch–Satterthwaite degrees of freedom from the two squared standard errors. */
static double welch_df(double var_mean_x, size_t m, double var_mean_y, size_t n)
{
    double total = var_mean_x + var_mean_y;
    double denominator = var_mean_x * var_mean_x / (double)(m - 1) +
                         var_mean_y * var_mean_y / (double)(n - 1);
    return total * total / denominator;
}

stats_status welch_t_test(const double *x, size_t m, const double *y, size_t n,
                          double confidence, shift_result *out)
{
    if (!valid_confidence(confidence))
        return STATS_ERR_DOMAIN;
    if (m < 2 || n < 2)
        return STATS_ERR_TOO_FEW;
    if (x == NULL || y == NULL || out == NULL || contains_non_finite(x, m) ||
        contains_non_finite(y, n))
        return STATS_ERR_DOMAIN;
    double mean_x = stats_mean(x, m), mean_y = stats_mean(y, n);
    double var_mean_x = stats_variance(x, m) / (double)m;
    double var_mean_y = stats_variance(y, n) / (double)n;
    double std_error = sqrt(var_mean_x + var_mean_y);
    if (essentially_constant(std_error, fmax(fabs(mean_x), fabs(mean_y))))
        return STATS_ERR_DEGENERATE;
    double df = welch_df(var_mean_x, m, var_mean_y, n);
    fill_t_result(mean_x - mean_y, std_error, df, confidence, out);
    return STATS_OK;
}
