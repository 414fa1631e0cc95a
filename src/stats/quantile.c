/* Harrell-Davis quantiles: the beta weights (GSL's regularized incomplete beta) and the
 * weighted sum of the order statistics. */
#include "quantile.h"

#include <assert.h>
#include <gsl/gsl_cdf.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/sort.h"

void quantile_hd_weights(size_t n, double q, double *weights)
{
    assert(n >= 1 && q >= 0 && q <= 1);
    memset(weights, 0, n * sizeof *weights);
    if (q == 0 || q == 1) { /* the beta distribution degenerates to a point at 0 or 1 */
        weights[q == 0 ? 0 : n - 1] = 1.0;
        return;
    }
    double a = (double)(n + 1) * q, b = (double)(n + 1) * (1.0 - q), below = 0.0;
    for (size_t i = 0; i < n; i++) {
        double upto = i + 1 == n ? 1.0 : gsl_cdf_beta_P((double)(i + 1) / (double)n, a, b);
        weights[i] = upto - below;
        below = upto;
    }
}

double quantile_hd_sorted(const double *sorted, size_t n, const double *weights)
{
    double sum = 0.0;
    for (size_t i = 0; i < n; i++)
        sum += weights[i] * sorted[i];
    return sum;
}

int quantile_hd(const double *x, size_t n, double q, double *out, verdict_error *err)
{
    if (n == 0 || !(q >= 0 && q <= 1))
        return error_set(err, ERROR_BAD_INPUT,
                         "Harrell-Davis quantile %g of %zu values: needs q in [0, 1] and a value",
                         q, n);
    for (size_t i = 0; i < n; i++)
        if (isnan(x[i]))
            return error_set(err, ERROR_BAD_INPUT, "Harrell-Davis quantile: value %zu is NaN",
                             i + 1);
    int rc = -1;
    double *sorted = malloc(n * sizeof *sorted), *weights = malloc(n * sizeof *weights);
    if (sorted == NULL || weights == NULL) {
        error_no_memory(err);
        goto done;
    }
    memcpy(sorted, x, n * sizeof *sorted);
    qsort(sorted, n, sizeof *sorted, compare_doubles);
    quantile_hd_weights(n, q, weights);
    *out = quantile_hd_sorted(sorted, n, weights);
    rc = 0;
done:
    free(sorted);
    free(weights);
    return rc;
}
