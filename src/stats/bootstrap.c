/* Seeded BCa bootstrap confidence intervals (Efron & Tibshirani, "An Introduction to the
 * Bootstrap", 1993, ch. 14): median shift of two samples, location of paired differences. */
#include "bootstrap.h"

#include <math.h>
#include <stdlib.h>

#include "common/sort.h"
#include "descriptive.h"
#include "distributions.h"
#include "hodges_lehmann.h"
#include "random.h"

/* Two independent samples; the scratch buffers hold one resample. */
typedef struct {
    const double *x, *y;
    size_t m, n;
    double *x_star, *y_star;
} resampling;

/* ---- helpers ----------------------------------------------------------------------- */

static int all_finite(const double *x, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!isfinite(x[i]))
            return 0;
    return 1;
}

/* Sorts in place (the buffer is scratch) and takes R's median. */
static double median_in_place(double *values, size_t n)
{
    qsort(values, n, sizeof *values, compare_doubles);
    return stats_median_sorted(values, n);
}

/* ---- replicates -------------------------------------------------------------------- */

/* One bootstrap replicate of median(x*) - median(y*), each group resampled on its own. */
static double one_replicate(resampling *r, stats_random *random)
{
    for (size_t k = 0; k < r->m; k++)
        r->x_star[k] = r->x[stats_random_below(random, r->m)];
    for (size_t k = 0; k < r->n; k++)
        r->y_star[k] = r->y[stats_random_below(random, r->n)];
    return median_in_place(r->x_star, r->m) - median_in_place(r->y_star, r->n);
}

static void draw_replicates(resampling *r, uint64_t seed, double *replicates, size_t resamples)
{
    stats_random random;
    stats_random_seed(&random, seed);
    for (size_t b = 0; b < resamples; b++)
        replicates[b] = one_replicate(r, &random);
}

/* Replicates of the pseudo-median of n blocks drawn with replacement from d. */
static stats_status draw_paired_replicates(const double *d, size_t n, uint64_t seed,
                                           double *replicates, size_t resamples)
{
    double *d_star = malloc(n * sizeof *d_star);
    if (d_star == NULL)
        return STATS_ERR_NOMEM;
    stats_random random;
    stats_random_seed(&random, seed);
    stats_status status = STATS_OK;
    for (size_t b = 0; b < resamples && status == STATS_OK; b++) {
        for (size_t k = 0; k < n; k++)
            d_star[k] = d[stats_random_below(&random, n)];
        status = hl_one_sample(d_star, n, &replicates[b]);
    }
    free(d_star);
    return status;
}

/* ---- jackknife acceleration -------------------------------------------------------- */

/* Median of ascending `sorted` with the element at position `gone` left out, in O(1):
 * positions at or after `gone` shift down by one. Needs n >= 2. */
static double median_without(const double *sorted, size_t n, size_t gone)
{
    size_t left = (n - 2) / 2, right = (n - 1) / 2; /* middle of the n - 1 kept values */
    double a = sorted[left < gone ? left : left + 1];
    double b = sorted[right < gone ? right : right + 1];
    return left == right ? a : (a + b) / 2.0;
}

/* a = sum d^3 / (6 (sum d^2)^1.5), d = mean(theta_(.)) - theta_(i) (E&T eq. 14.15);
 * 0 when the jackknife values do not vary (no skewness information). The median is not
 * smooth, so its jackknife is crude (E&T sec. 11.6): for an even group size leaving one out
 * gives just two values, symmetric about their mean, and a is then 0 — BCa reduces to the
 * bias-corrected percentile interval. The coverage test in test_bootstrap.c measures the
 * interval as it is. */
static double acceleration_from(const double *jack, size_t count)
{
    double mean = stats_mean(jack, count), sum2 = 0.0, sum3 = 0.0;
    for (size_t i = 0; i < count; i++) {
        double d = mean - jack[i];
        sum2 += d * d;
        sum3 += d * d * d;
    }
    return sum2 > 0.0 ? sum3 / (6.0 * pow(sum2, 1.5)) : 0.0;
}

/* Leave-one-out statistics: each of the m + n observations in turn (the other group's
 * median stays whole). */
static void jackknife_values(const resampling *r, const double *xs, const double *ys, double *jack)
{
    double median_x = stats_median_sorted(xs, r->m), median_y = stats_median_sorted(ys, r->n);
    for (size_t k = 0; k < r->m; k++)
        jack[k] = median_without(xs, r->m, k) - median_y;
    for (size_t k = 0; k < r->n; k++)
        jack[r->m + k] = median_x - median_without(ys, r->n, k);
}

/* Works on sorted copies of x and y; also gives the estimate from them. */
static stats_status jackknife_acceleration(const resampling *r, double *estimate,
                                           double *acceleration)
{
    size_t count = r->m + r->n;
    double *xs = NULL, *ys = NULL, *jack = malloc(count * sizeof *jack);
    stats_status status = jack == NULL ? STATS_ERR_NOMEM : stats_sorted_copy(r->x, r->m, &xs);
    if (status == STATS_OK)
        status = stats_sorted_copy(r->y, r->n, &ys);
    if (status == STATS_OK) {
        *estimate = stats_median_sorted(xs, r->m) - stats_median_sorted(ys, r->n);
        jackknife_values(r, xs, ys, jack);
        *acceleration = acceleration_from(jack, count);
    }
    free(xs);
    free(ys);
    free(jack);
    return status;
}

/* Leave-one-block-out pseudo-medians of d, and the pseudo-median of all of d. */
static stats_status paired_jackknife(const double *d, size_t n, double *estimate,
                                     double *acceleration)
{
    double *kept = malloc((n - 1) * sizeof *kept), *jack = malloc(n * sizeof *jack);
    stats_status status = kept && jack ? hl_one_sample(d, n, estimate) : STATS_ERR_NOMEM;
    for (size_t gone = 0; gone < n && status == STATS_OK; gone++) {
        for (size_t i = 0, k = 0; i < n; i++)
            if (i != gone)
                kept[k++] = d[i];
        status = hl_one_sample(kept, n - 1, &jack[gone]);
    }
    if (status == STATS_OK)
        *acceleration = acceleration_from(jack, n);
    free(kept);
    free(jack);
    return status;
}

/* ---- BCa interval ------------------------------------------------------------------ */

/* z0 = qnorm(share of replicates below the estimate, ties counted half) (E&T eq. 14.14).
 * The share is kept half a replicate away from 0 and 1: when every replicate falls on one
 * side z0 would be infinite, and the interval then rests on the most extreme replicates. */
static double bias_correction(const double *replicates, size_t resamples, double estimate)
{
    double below = 0.0;
    for (size_t b = 0; b < resamples; b++)
        below += replicates[b] < estimate ? 1.0 : replicates[b] == estimate ? 0.5 : 0.0;
    double half = 0.5 / (double)resamples;
    double share = fmin(fmax(below / (double)resamples, half), 1.0 - half);
    return dist_qnorm(share);
}

/* BCa level for the normal quantile z (E&T eq. 14.10). Where 1 - a (z0 + z) reaches 0 the
 * formula's own limit is used: the end of the bootstrap distribution on z0 + z's side. */
static double adjusted_level(double z0, double acceleration, double z)
{
    double shifted = z0 + z;
    double denominator = 1.0 - acceleration * shifted;
    if (!(denominator > 0.0))
        return shifted > 0.0 ? 1.0 : 0.0;
    double level = dist_pnorm(z0 + shifted / denominator);
    return isfinite(level) ? level : (shifted > 0.0 ? 1.0 : 0.0);
}

/* Two-sided bootstrap p-value: twice the smaller share of replicates on either side of 0
 * (each share counts replicates equal to 0), counted as (k + 1) / (B + 1) so that a finite
 * number of resamples never claims p = 0. Approximate: it inverts the percentile
 * interval, not the BCa one, so it may disagree with the interval near the boundary. */
static double bootstrap_p_value(const double *replicates, size_t resamples)
{
    size_t at_most = 0, at_least = 0;
    for (size_t b = 0; b < resamples; b++) {
        at_most += replicates[b] <= 0.0;
        at_least += replicates[b] >= 0.0;
    }
    double smaller = (double)((at_most < at_least ? at_most : at_least) + 1) /
                     (double)(resamples + 1);
    return fmin(1.0, 2.0 * smaller);
}

/* The normal quantile of the interval, expanded for small samples (Hesterberg, "What
 * teachers should know about the bootstrap", 2015, sec. 4.3): the bootstrap distribution is
 * too narrow by about sqrt((n - 1) / n) and has normal rather than t tails, so the level's
 * quantile becomes sqrt(n / (n - 1)) t_{n-1}. n is the smaller sample (or the blocks). */
static double expanded_quantile(double confidence, size_t n)
{
    double upper = 1.0 - (1.0 - confidence) / 2.0;
    double t = dist_qt(upper, (double)(n - 1));
    return sqrt((double)n / (double)(n - 1)) * t;
}

static void bca_interval(double *replicates, size_t resamples, double estimate,
                         double acceleration, double confidence, size_t n, shift_result *out)
{
    qsort(replicates, resamples, sizeof *replicates, compare_doubles);
    if (replicates[0] == replicates[resamples - 1]) {
        /* A point-mass bootstrap distribution: nothing to stretch, the interval collapses. */
        out->ci_low = out->ci_high = estimate;
        return;
    }
    double z0 = bias_correction(replicates, resamples, estimate);
    double z = expanded_quantile(confidence, n);
    out->ci_low = stats_quantile_sorted(replicates, resamples,
                                        adjusted_level(z0, acceleration, -z));
    out->ci_high = stats_quantile_sorted(replicates, resamples,
                                         adjusted_level(z0, acceleration, z));
}

/* ---- entry points ------------------------------------------------------------------ */

static bool valid_request(double confidence, size_t resamples, const shift_result *out)
{
    return confidence > 0.0 && confidence < 1.0 && resamples >= 2 && out != NULL;
}

/* Everything but the interval's ends, from the sorted-or-not replicates. */
static void finish_result(double *replicates, size_t resamples, double estimate,
                          double acceleration, double confidence, size_t n, shift_result *out)
{
    *out = (shift_result){.estimate = estimate, .statistic = NAN, .df = NAN,
                          .achieved_confidence = confidence, .exact = false};
    out->p_value = bootstrap_p_value(replicates, resamples);
    bca_interval(replicates, resamples, estimate, acceleration, confidence, n, out);
}

stats_status bootstrap_bca_median_shift(const double *x, size_t m, const double *y, size_t n,
                                        double confidence, uint64_t seed, size_t resamples,
                                        shift_result *out)
{
    if (!valid_request(confidence, resamples, out))
        return STATS_ERR_DOMAIN;
    if (m < 2 || n < 2)
        return STATS_ERR_TOO_FEW; /* the jackknife needs something left after leaving out */
    if (x == NULL || y == NULL || !all_finite(x, m) || !all_finite(y, n))
        return STATS_ERR_DOMAIN;
    resampling r = {.x = x, .y = y, .m = m, .n = n};
    r.x_star = malloc(m * sizeof *r.x_star);
    r.y_star = malloc(n * sizeof *r.y_star);
    double *replicates = malloc(resamples * sizeof *replicates);
    double estimate = 0.0, acceleration = 0.0;
    stats_status status = STATS_ERR_NOMEM;
    if (r.x_star && r.y_star && replicates &&
        (status = jackknife_acceleration(&r, &estimate, &acceleration)) == STATS_OK) {
        draw_replicates(&r, seed, replicates, resamples);
        finish_result(replicates, resamples, estimate, acceleration, confidence, m < n ? m : n,
                      out);
    }
    free(r.x_star);
    free(r.y_star);
    free(replicates);
    return status;
}

stats_status bootstrap_bca_paired_location(const double *d, size_t n, double confidence,
                                           uint64_t seed, size_t resamples, shift_result *out)
{
    if (!valid_request(confidence, resamples, out))
        return STATS_ERR_DOMAIN;
    if (n < 2)
        return STATS_ERR_TOO_FEW;
    if (d == NULL || !all_finite(d, n))
        return STATS_ERR_DOMAIN;
    double *replicates = malloc(resamples * sizeof *replicates);
    double estimate = 0.0, acceleration = 0.0;
    stats_status status = replicates ? paired_jackknife(d, n, &estimate, &acceleration)
                                     : STATS_ERR_NOMEM;
    if (status == STATS_OK)
        status = draw_paired_replicates(d, n, seed, replicates, resamples);
    if (status == STATS_OK)
        finish_result(replicates, resamples, estimate, acceleration, confidence, n, out);
    free(replicates);
    return status;
}
