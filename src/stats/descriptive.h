/* Descriptive statistics: mean, median, quantiles (R type 7), sd, CV, MAD, min, max.
 * Functions taking unsorted input copy it; the *_sorted variants need ascending data. */
#ifndef VERDICT_STATS_DESCRIPTIVE_H
#define VERDICT_STATS_DESCRIPTIVE_H

#include <stddef.h>
#include "status.h"

typedef struct {
    size_t n;
    double mean, median, stddev, cv, mad, min, max;
} stats_summary;

double stats_mean(const double *x, size_t n);
/* Sample variance and standard deviation (denominator n - 1); NAN when n < 2. */
double stats_variance(const double *x, size_t n);
double stats_stddev(const double *x, size_t n);
/* R's quantile(x, p, type = 7) on ascending data; p in [0, 1]. */
double stats_quantile_sorted(const double *sorted, size_t n, double p);
double stats_median_sorted(const double *sorted, size_t n);
stats_status stats_quantile(const double *x, size_t n, double p, double *out);
stats_status stats_median(const double *x, size_t n, double *out);
/* R's mad(x): 1.4826 * median(|x - median(x)|). */
stats_status stats_mad(const double *x, size_t n, double *out);
/* All of the above at once; cv = stddev / mean (NAN when n < 2). */
stats_status stats_summarize(const double *x, size_t n, stats_summary *out);
/* Ascending sort of a copy; the caller frees *out. */
stats_status stats_sorted_copy(const double *x, size_t n, double **out);

#endif
