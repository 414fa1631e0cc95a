/* Diagnostics of one series in measurement order: Mann–Kendall trend, Sarle's bimodality
 * coefficient, Kelly's tail skewness and a count of MAD-based outliers; each feeds a warning. */
#include "diagnostics.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "descriptive.h"
#include "distributions.h"

/* Modified z-scores (Iglewicz & Hoaglin 1993): 0.6745 = 1/1.4826 turns the raw MAD into a
 * normal-consistent scale; 1.253314 = sqrt(pi/2) does the same for the mean absolute
 * deviation, their fallback when more than half of the values equal the median. */
static const double mad_to_sigma = 0.6745;
static const double mean_ad_to_sigma = 1.253314;

static int contains_non_finite(const double *x, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!isfinite(x[i]))
            return 1;
    return 0;
}

static stats_status validate_series(const double *x, size_t n, size_t minimum)
{
    if (n < minimum)
        return STATS_ERR_TOO_FEW;
    if (x == NULL || contains_non_finite(x, n))
        return STATS_ERR_DOMAIN;
    return STATS_OK;
}

/* ---- Mann–Kendall ------------------------------------------------------------------ */

/* Counts the pairs i < j with x_i > x_j (strict inversions) while merge-sorting x in
 * place, using scratch of the same length. Equal values are taken from the left first,
 * so tied pairs are never counted. O(n log n) time: a 2,000,000-value series took over
 * ten minutes with the double loop this replaced. */
static uint64_t count_inversions(double *x, double *scratch, size_t n)
{
    uint64_t inversions = 0;
    for (size_t width = 1; width < n; width *= 2) {
        for (size_t left = 0; left < n - width; left += 2 * width) {
            size_t middle = left + width, right_end = left + 2 * width;
            if (right_end > n) /* the last run may be short */
                right_end = n;
            size_t i = left, j = middle, k = left;
            while (i < middle && j < right_end) {
                if (x[j] < x[i]) {
                    inversions += middle - i; /* x[j] is below every value left in x[i..] */
                    scratch[k++] = x[j++];
                } else {
                    scratch[k++] = x[i++];
                }
            }
            while (i < middle)
                scratch[k++] = x[i++];
            while (j < right_end)
                scratch[k++] = x[j++];
            memcpy(x + left, scratch + left, (right_end - left) * sizeof *x);
        }
    }
    return inversions;
}

/* From the tie groups of x (sizes t): sum t(t-1)(2t+5) for var(S) and sum t(t-1)/2, the
 * number of tied pairs, for S itself and tau-b. */
typedef struct {
    double variance_term;
    uint64_t tied_pairs;
} tie_sums;

static tie_sums tie_corrections(const double *sorted, size_t n)
{
    tie_sums sums = {0.0, 0};
    size_t start = 0;
    while (start < n) {
        size_t end = start + 1;
        while (end < n && sorted[end] == sorted[start])
            end++;
        uint64_t t = end - start;
        double td = (double)t;
        sums.variance_term += td * (td - 1.0) * (2.0 * td + 5.0);
        sums.tied_pairs += t * (t - 1) / 2;
        start = end;
    }
    return sums;
}

stats_status trend_mann_kendall(const double *x, size_t n, trend_result *out)
{
    stats_status status = validate_series(x, n, 3);
    if (status != STATS_OK)
        return status;
    /* work is sorted by the inversion count; scratch is the merge's buffer. */
    double *work = malloc(n * sizeof *work), *scratch = malloc(n * sizeof *scratch);
    if (work == NULL || scratch == NULL) {
        free(work);
        free(scratch);
        return STATS_ERR_NOMEM;
    }
    memcpy(work, x, n * sizeof *work);
    uint64_t discordant = count_inversions(work, scratch, n);
    tie_sums ties = tie_corrections(work, n); /* work is sorted now */
    free(work);
    free(scratch);
    /* S = sum over i < j of sign(x_j - x_i) = concordant - discordant pairs. Of the N
     * pairs, T are tied and D discordant, so N - T - D are concordant and S = N - T - 2D:
     * exact, every term being an integer count. */
    uint64_t pairs = (uint64_t)n * (uint64_t)(n - 1) / 2;
    double s = (double)(pairs - ties.tied_pairs) - 2.0 * (double)discordant;

    double nd = (double)n;
    double all_pairs = nd * (nd - 1.0) / 2.0;
    if ((double)ties.tied_pairs >= all_pairs)
        return STATS_ERR_DEGENERATE; /* all values equal: no order to test */
    double variance = (nd * (nd - 1.0) * (2.0 * nd + 5.0) - ties.variance_term) / 18.0;
    /* Continuity correction: S moves in steps of 2, so shrink |S| by 1 towards 0. */
    double corrected = s > 0.0 ? s - 1.0 : s < 0.0 ? s + 1.0 : 0.0;
    out->s = s;
    /* tau-b against time, which has no ties: S / sqrt((n0 - n1) n0). */
    out->tau = s / sqrt((all_pairs - (double)ties.tied_pairs) * all_pairs);
    out->z = corrected / sqrt(variance);
    out->p_value = fmin(1.0, 2.0 * dist_pnorm_upper(fabs(out->z)));
    return STATS_OK;
}

/* ---- Bimodality coefficient -------------------------------------------------------- */

typedef struct {
    double m2, m3, m4; /* central moments with denominator n */
} central_moments;

static central_moments moments_of(const double *x, size_t n)
{
    double mean = stats_mean(x, n);
    central_moments m = {0.0, 0.0, 0.0};
    for (size_t i = 0; i < n; i++) {
        double d = x[i] - mean, d2 = d * d;
        m.m2 += d2;
        m.m3 += d2 * d;
        m.m4 += d2 * d2;
    }
    m.m2 /= (double)n;
    m.m3 /= (double)n;
    m.m4 /= (double)n;
    return m;
}

stats_status bimodality_coefficient(const double *x, size_t n, double *out)
{
    stats_status status = validate_series(x, n, 4);
    if (status != STATS_OK)
        return status;
    central_moments m = moments_of(x, n);
    if (!(m.m2 > 0.0))
        return STATS_ERR_DEGENERATE;
    double nd = (double)n;
    double small_sample = (nd - 2.0) * (nd - 3.0);
    double g1 = m.m3 / pow(m.m2, 1.5);
    double g2 = m.m4 / (m.m2 * m.m2) - 3.0;
    /* Bias-corrected skewness G1 and excess kurtosis G2 (the adjusted Fisher–Pearson
     * estimators, as SAS and SPSS report them), which Sarle's coefficient is defined on. */
    double skew = g1 * sqrt(nd * (nd - 1.0)) / (nd - 2.0);
    double kurt = ((nd + 1.0) * g2 + 6.0) * (nd - 1.0) / small_sample;
    *out = (skew * skew + 1.0) / (kurt + 3.0 * (nd - 1.0) * (nd - 1.0) / small_sample);
    return STATS_OK;
}

/* Kelly's skewness from R's type-7 deciles: how much further the slow tail reaches from the
 * median than the fast one does, robust to the few extreme values moments chase. */
stats_status tail_skewness(const double *x, size_t n, double *out)
{
    stats_status status = validate_series(x, n, 10);
    if (status != STATS_OK)
        return status;
    double *sorted = NULL;
    if ((status = stats_sorted_copy(x, n, &sorted)) != STATS_OK)
        return status;
    double p10 = stats_quantile_sorted(sorted, n, 0.1), p50 = stats_quantile_sorted(sorted, n, 0.5);
    double p90 = stats_quantile_sorted(sorted, n, 0.9);
    free(sorted);
    if (!(p90 > p10))
        return STATS_ERR_DEGENERATE;
    *out = (p90 + p10 - 2.0 * p50) / (p90 - p10);
    return STATS_OK;
}

/* ---- Outliers ---------------------------------------------------------------------- */

/* Scale that turns |x - median| into a modified z-score. Normally 0.6745 / MAD; when the
 * MAD is 0 (more than half the values coincide, common with coarse timers) that would make
 * every other value an outlier, so the mean absolute deviation takes over, as Iglewicz and
 * Hoaglin suggest. Returns 0 when every value equals the median: there is no outlier. */
static double outlier_scale(const double *x, size_t n, double centre, double *scratch)
{
    for (size_t i = 0; i < n; i++)
        scratch[i] = fabs(x[i] - centre);
    double *sorted;
    if (stats_sorted_copy(scratch, n, &sorted) != STATS_OK)
        return NAN;
    double raw_mad = stats_median_sorted(sorted, n);
    free(sorted);
    if (raw_mad > 0.0)
        return mad_to_sigma / raw_mad;
    double mean_ad = stats_mean(scratch, n);
    return mean_ad > 0.0 ? 1.0 / (mean_ad_to_sigma * mean_ad) : 0.0;
}

stats_status count_outliers_mad(const double *x, size_t n, double threshold, size_t *out)
{
    stats_status status = validate_series(x, n, 1);
    if (status != STATS_OK)
        return status;
    if (!(threshold > 0.0) || out == NULL)
        return STATS_ERR_DOMAIN;
    double centre;
    if ((status = stats_median(x, n, &centre)) != STATS_OK)
        return status;
    double *deviations = malloc(n * sizeof *deviations);
    if (deviations == NULL)
        return STATS_ERR_NOMEM;
    double scale = outlier_scale(x, n, centre, deviations);
    size_t count = 0;
    for (size_t i = 0; i < n && scale > 0.0; i++)
        count += deviations[i] * scale > threshold;
    free(deviations);
    if (isnan(scale))
        return STATS_ERR_NOMEM;
    *out = count;
    return STATS_OK;
}
