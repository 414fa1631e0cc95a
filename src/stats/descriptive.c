/* Descriptive statistics of one sample, defined exactly as R defines them (mean, var, sd,
 * quantile type 7, median, mad) so that verdict's summaries agree with R to rounding. */
#include "descriptive.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/sort.h"

/* R's mad() scale: makes the MAD a consistent estimator of sd under normality. */
static const double mad_normal_constant = 1.4826;

static int contains_nan(const double *x, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (isnan(x[i]))
            return 1;
    return 0;
}

double stats_mean(const double *x, size_t n)
{
    if (n == 0)
        return NAN;
    double sum = 0.0;
    for (size_t i = 0; i < n; i++)
        sum += x[i];
    double mean = sum / (double)n;
    /* Second pass: add the mean residual, which removes most of the rounding error of the
     * first sum (R refines its mean the same way, so results agree to the last bits). */
    double residual = 0.0;
    for (size_t i = 0; i < n; i++)
        residual += x[i] - mean;
    return isfinite(mean) ? mean + residual / (double)n : mean;
}

double stats_variance(const double *x, size_t n)
{
    if (n < 2)
        return NAN;
    double mean = stats_mean(x, n);
    /* Two-pass formula: squares of deviations, never the cancelling sum of squares. */
    double sum_sq = 0.0;
    for (size_t i = 0; i < n; i++) {
        double deviation = x[i] - mean;
        sum_sq += deviation * deviation;
    }
    return sum_sq / (double)(n - 1);
}

double stats_stddev(const double *x, size_t n)
{
    return sqrt(stats_variance(x, n));
}

double stats_quantile_sorted(const double *sorted, size_t n, double p)
{
    if (n == 0 || !(p >= 0.0 && p <= 1.0))
        return NAN;
    /* Type 7: linear interpolation between order statistics at position (n - 1) p. */
    double position = (double)(n - 1) * p;
    size_t lower = (size_t)floor(position);
    double fraction = position - (double)lower;
    if (lower + 1 >= n || fraction == 0.0 || sorted[lower + 1] == sorted[lower])
        return sorted[lower];
    return (1.0 - fraction) * sorted[lower] + fraction * sorted[lower + 1];
}

double stats_median_sorted(const double *sorted, size_t n)
{
    if (n == 0)
        return NAN;
    size_t half = n / 2;
    if (n % 2 == 1)
        return sorted[half];
    return (sorted[half - 1] + sorted[half]) / 2.0;
}

stats_status stats_sorted_copy(const double *x, size_t n, double **out)
{
    /* One spare element so that n == 0 still yields a pointer the caller can free. */
    double *copy = malloc((n + 1) * sizeof *copy);
    if (copy == NULL)
        return STATS_ERR_NOMEM;
    if (n > 0)
        memcpy(copy, x, n * sizeof *copy);
    qsort(copy, n, sizeof *copy, compare_doubles);
    *out = copy;
    return STATS_OK;
}

/* Common checks and sorting for the functions that take unsorted input. */
static stats_status sorted_valid_copy(const double *x, size_t n, double **out)
{
    if (n == 0)
        return STATS_ERR_TOO_FEW;
    if (x == NULL || contains_nan(x, n))
        return STATS_ERR_DOMAIN;
    return stats_sorted_copy(x, n, out);
}

stats_status stats_quantile(const double *x, size_t n, double p, double *out)
{
    if (!(p >= 0.0 && p <= 1.0))
        return STATS_ERR_DOMAIN;
    double *sorted;
    stats_status status = sorted_valid_copy(x, n, &sorted);
    if (status != STATS_OK)
        return status;
    *out = stats_quantile_sorted(sorted, n, p);
    free(sorted);
    return STATS_OK;
}

stats_status stats_median(const double *x, size_t n, double *out)
{
    double *sorted;
    stats_status status = sorted_valid_copy(x, n, &sorted);
    if (status != STATS_OK)
        return status;
    *out = stats_median_sorted(sorted, n);
    free(sorted);
    return STATS_OK;
}

/* Unscaled MAD of ascending data: the median of |x - median|. Reuses `scratch` (n values). */
static double raw_mad_of_sorted(const double *sorted, size_t n, double *scratch)
{
    double centre = stats_median_sorted(sorted, n);
    for (size_t i = 0; i < n; i++)
        scratch[i] = fabs(sorted[i] - centre);
    qsort(scratch, n, sizeof *scratch, compare_doubles);
    return stats_median_sorted(scratch, n);
}

stats_status stats_mad(const double *x, size_t n, double *out)
{
    double *sorted;
    stats_status status = sorted_valid_copy(x, n, &sorted);
    if (status != STATS_OK)
        return status;
    double *scratch = malloc(n * sizeof *scratch);
    if (scratch == NULL) {
        free(sorted);
        return STATS_ERR_NOMEM;
    }
    *out = mad_normal_constant * raw_mad_of_sorted(sorted, n, scratch);
    free(scratch);
    free(sorted);
    return STATS_OK;
}

stats_status stats_summarize(const double *x, size_t n, stats_summary *out)
{
    double *sorted;
    stats_status status = sorted_valid_copy(x, n, &sorted);
    if (status != STATS_OK)
        return status;
    double *scratch = malloc(n * sizeof *scratch);
    if (scratch == NULL) {
        free(sorted);
        return STATS_ERR_NOMEM;
    }
    out->n = n;
    out->mean = stats_mean(x, n);
    out->median = stats_median_sorted(sorted, n);
    out->stddev = stats_stddev(x, n); /* NAN when n < 2, and then so is cv */
    out->cv = out->stddev / out->mean;
    out->mad = mad_normal_constant * raw_mad_of_sorted(sorted, n, scratch);
    out->min = sorted[0];
    out->max = sorted[n - 1];
    free(scratch);
    free(sorted);
    return STATS_OK;
}
