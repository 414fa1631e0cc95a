/* The Harrell-Davis quantile estimator (Harrell & Davis 1982): a weighted mean of all order
 * statistics, weights from the incomplete beta function, smoother than one order statistic. */
#ifndef VERDICT_STATS_QUANTILE_H
#define VERDICT_STATS_QUANTILE_H

#include <stddef.h>

#include "common/error.h"

/* The n weights of quantile q in [0, 1] for n >= 1 sorted values: weights[i] =
 * I_{(i+1)/n}(a, b) - I_{i/n}(a, b), a = (n + 1) q, b = (n + 1) (1 - q), I the regularized
 * incomplete beta function (Hmisc::hdquantile's). q = 0 puts all weight on the smallest
 * value and q = 1 on the largest, as hdquantile returns them. They depend only on n and q:
 * a caller estimating many samples of one size computes them once. */
void quantile_hd_weights(size_t n, double q, double *weights);

/* The estimate from ascending values and their weights (quantile_hd_weights of the same n). */
double quantile_hd_sorted(const double *sorted, size_t n, const double *weights);

/* The Harrell-Davis estimate of quantile q of x (any order, n >= 1, no NaN): -1 with
 * ERROR_BAD_INPUT for an empty sample, a NaN or q outside [0, 1], ERROR_NO_MEMORY. */
int quantile_hd(const double *x, size_t n, double q, double *out, verdict_error *err);

#endif
