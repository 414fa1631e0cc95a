/* Diagnostics on one series of samples in measurement order: trend (Mann–Kendall),
 * bimodality (bimodality coefficient), outliers (MAD-based modified z-scores). */
#ifndef VERDICT_STATS_DIAGNOSTICS_H
#define VERDICT_STATS_DIAGNOSTICS_H

#include <stdbool.h>
#include <stddef.h>
#include "status.h"

typedef struct {
    double s;       /* Mann–Kendall S */
    double tau;     /* Kendall's tau-b against order */
    double z;       /* normal score with continuity and tie corrections */
    double p_value; /* two-sided */
} trend_result;

stats_status trend_mann_kendall(const double *x, size_t n, trend_result *out);
/* Sarle's bimodality coefficient (sample skewness and excess kurtosis, bias corrected);
 * values above 5/9 suggest two modes. Needs n >= 4. */
stats_status bimodality_coefficient(const double *x, size_t n, double *out);
/* Kelly's skewness (P90 + P10 - 2 P50) / (P90 - P10), R type-7 quantiles, in [-1, 1]:
 * 0 for a symmetric distribution, 0.46 for an exponential one, near 1 when a share of the
 * values sits in a slow mode. Needs n >= 10 and P90 > P10. */
stats_status tail_skewness(const double *x, size_t n, double *out);
/* Number of values whose modified z-score 0.6745 |x - median| / MAD exceeds threshold. */
stats_status count_outliers_mad(const double *x, size_t n, double threshold, size_t *out);

#endif
