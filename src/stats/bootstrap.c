/* Seeded BCa bootstrap confidence interval for median(x) - median(y) (Efron & Tibshirani,
 * "An Introduction to the Bootstrap", 1993, ch. 14), paired by block or unpaired. */
#include "bootstrap.h"

#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdlib.h>

#include "descriptive.h"
#include "distributions.h"

/* The samples and how to resample them; the scratch buffers hold one resample. */
typedef struct {
    const double *x, *y;
    size_t m, n;
    bool paired;
    double *x_star, *y_star;
} resampling;

/* ---- helpers ----------------------------------------------------------------------- */

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

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

/* mt19937 takes a 32-bit seed (GSL keeps only the low 32 bits); folding the high half in
 * keeps seeds that differ only above bit 31 apart, and leaves seeds below 2^32 unchanged,
 * so a run can be reproduced with plain GSL. GSL maps seed 0 to its default, 4357. */
static unsigned long fold_seed(uint64_t seed)
{
    return (unsigned long)((seed ^ (seed >> 32)) & 0xffffffffu);
}

/* ---- replicates -------------------------------------------------------------------- */

/* One bootstrap replicate. Paired: n block indices, each carrying (x_i, y_i) together, so
 * the within-block correlation survives. Unpaired: each group is resampled on its own. */
static double one_replicate(resampling *r, gsl_rng *rng)
{
    if (r->paired) {
        for (size_t k = 0; k < r->n; k++) {
            size_t i = gsl_rng_uniform_int(rng, r->n);
            r->x_star[k] = r->x[i];
            r->y_star[k] = r->y[i];
        }
    } else {
        for (size_t k = 0; k < r->m; k++)
            r->x_star[k] = r->x[gsl_rng_uniform_int(rng, r->m)];
        for (size_t k = 0; k < r->n; k++)
            r->y_star[k] = r->y[gsl_rng_uniform_int(rng, r->n)];
    }
    return median_in_place(r->x_star, r->m) - median_in_place(r->y_star, r->n);
}

static stats_status draw_replicates(resampling *r, uint64_t seed, double *replicates,
                                    size_t resamples)
{
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    if (rng == NULL)
        return STATS_ERR_NOMEM;
    gsl_rng_set(rng, fold_seed(seed));
    for (size_t b = 0; b < resamples; b++)
        replicates[b] = one_replicate(r, rng);
    gsl_rng_free(rng);
    return STATS_OK;
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

/* Position of each original value in ascending order (ties: any of their positions gives
 * the same leave-one-out median). */
typedef struct {
    double value;
    size_t index;
} ranked;

static int compare_ranked(const void *a, const void *b)
{
    return compare_doubles(&((const ranked *)a)->value, &((const ranked *)b)->value);
}

static stats_status sort_with_positions(const double *v, size_t n, double *sorted,
                                        size_t *position)
{
    ranked *items = malloc(n * sizeof *items);
    if (items == NULL)
        return STATS_ERR_NOMEM;
    for (size_t i = 0; i < n; i++)
        items[i] = (ranked){v[i], i};
    qsort(items, n, sizeof *items, compare_ranked);
    for (size_t k = 0; k < n; k++) {
        sorted[k] = items[k].value;
        position[items[k].index] = k;
    }
    free(items);
    return STATS_OK;
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

/* Leave-one-out statistics: paired, one block at a time; unpaired, each of the m + n
 * observations in turn (the other group's median stays whole). */
static void jackknife_values(const resampling *r, const double *xs, const size_t *x_pos,
                             const double *ys, const size_t *y_pos, double *jack)
{
    if (r->paired) {
        for (size_t i = 0; i < r->n; i++)
            jack[i] = median_without(xs, r->m, x_pos[i]) - median_without(ys, r->n, y_pos[i]);
        return;
    }
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
    size_t count = r->paired ? r->n : r->m + r->n;
    double *xs = malloc(r->m * sizeof *xs), *ys = malloc(r->n * sizeof *ys);
    double *jack = malloc(count * sizeof *jack);
    size_t *x_pos = malloc(r->m * sizeof *x_pos), *y_pos = malloc(r->n * sizeof *y_pos);
    stats_status status = STATS_ERR_NOMEM;
    if (xs && ys && jack && x_pos && y_pos &&
        sort_with_positions(r->x, r->m, xs, x_pos) == STATS_OK &&
        sort_with_positions(r->y, r->n, ys, y_pos) == STATS_OK) {
        *estimate = stats_median_sorted(xs, r->m) - stats_median_sorted(ys, r->n);
        jackknife_values(r, xs, x_pos, ys, y_pos, jack);
        *acceleration = acceleration_from(jack, count);
        status = STATS_OK;
    }
    free(xs);
    free(ys);
    free(jack);
    free(x_pos);
    free(y_pos);
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

static void bca_interval(double *replicates, size_t resamples, double estimate,
                         double acceleration, double confidence, shift_result *out)
{
    qsort(replicates, resamples, sizeof *replicates, compare_doubles);
    if (replicates[0] == replicates[resamples - 1]) {
        /* A point-mass bootstrap distribution: nothing to stretch, the interval collapses. */
        out->ci_low = out->ci_high = estimate;
        return;
    }
    double z0 = bias_correction(replicates, resamples, estimate);
    double z = dist_qnorm(1.0 - (1.0 - confidence) / 2.0);
    out->ci_low = stats_quantile_sorted(replicates, resamples,
                                        adjusted_level(z0, acceleration, -z));
    out->ci_high = stats_quantile_sorted(replicates, resamples,
                                         adjusted_level(z0, acceleration, z));
}

/* ---- entry point ------------------------------------------------------------------- */

static stats_status validate(const double *x, size_t m, const double *y, size_t n, bool paired,
                             double confidence, size_t resamples, const shift_result *out)
{
    if (!(confidence > 0.0 && confidence < 1.0) || resamples < 2 || out == NULL)
        return STATS_ERR_DOMAIN;
    if (paired && m != n)
        return STATS_ERR_DOMAIN;
    if (m < 2 || n < 2)
        return STATS_ERR_TOO_FEW; /* the jackknife needs something left after leaving out */
    if (x == NULL || y == NULL || !all_finite(x, m) || !all_finite(y, n))
        return STATS_ERR_DOMAIN;
    return STATS_OK;
}

stats_status bootstrap_bca_median_shift(const double *x, size_t m, const double *y, size_t n,
                                        bool paired, double confidence, uint64_t seed,
                                        size_t resamples, shift_result *out)
{
    stats_status status = validate(x, m, y, n, paired, confidence, resamples, out);
    if (status != STATS_OK)
        return status;
    resampling r = {.x = x, .y = y, .m = m, .n = n, .paired = paired};
    r.x_star = malloc(m * sizeof *r.x_star);
    r.y_star = malloc(n * sizeof *r.y_star);
    double *replicates = malloc(resamples * sizeof *replicates);
    double estimate = 0.0, acceleration = 0.0;
    status = STATS_ERR_NOMEM;
    if (r.x_star && r.y_star && replicates &&
        (status = jackknife_acceleration(&r, &estimate, &acceleration)) == STATS_OK &&
        (status = draw_replicates(&r, seed, replicates, resamples)) == STATS_OK) {
        out->estimate = estimate;
        out->p_value = bootstrap_p_value(replicates, resamples);
        bca_interval(replicates, resamples, estimate, acceleration, confidence, out);
        out->statistic = NAN;
        out->df = NAN;
        out->achieved_confidence = confidence;
        out->exact = false;
    }
    free(r.x_star);
    free(r.y_star);
    free(replicates);
    return status;
}
