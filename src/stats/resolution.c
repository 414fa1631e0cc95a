/* Finds how coarsely measured values are rounded, so that an interval finer than the data
 * can resolve is recognised and widened (docs/statistics.md, "Ties, zeros and rounding"). */
#include "resolution.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "descriptive.h"

/* Beyond this quotient a double cannot say whether a value is a multiple of the step. */
static const double largest_quotient = 1e12;
/* A value is a multiple when it is this close (relative) to one: 2.1 / 0.1 is 21.000000000000004. */
static const double multiple_tolerance = 1e-9;

enum { LARGEST_EXPONENT = 15, SMALLEST_EXPONENT = -15 };

/* 1 when every value is a multiple of step, 0 when one is not, -1 when a double cannot tell. */
static int all_multiples(const double *x, size_t n, double step)
{
    for (size_t i = 0; i < n; i++) {
        double quotient = fabs(x[i]) / step;
        if (quotient > largest_quotient)
            return -1;
        double nearest = nearbyint(quotient);
        if (nearest < 1.0 || fabs(quotient - nearest) > multiple_tolerance * quotient)
            return 0; /* values are positive: a multiple is at least one step */
    }
    return 1;
}

double stats_decimal_step(const double *x, size_t n)
{
    if (n == 0)
        return 0.0;
    for (int exponent = LARGEST_EXPONENT; exponent >= SMALLEST_EXPONENT; exponent--) {
        int verdict = all_multiples(x, n, pow(10.0, exponent));
        if (verdict < 0)
            return 0.0;
        if (verdict > 0)
            return pow(10.0, exponent);
    }
    return 0.0;
}

enum { MOST_DIGITS = 15 };

/* Exponent e with 10^e <= v < 10^(e + 1), for v > 0, safe against log10 rounding. */
static int decade_of(double v)
{
    int e = (int)floor(log10(v));
    if (pow(10.0, e + 1) <= v)
        e++;
    else if (pow(10.0, e) > v)
        e--;
    return e;
}

/* The step of the last of `digits` significant digits of v: 0.1 for 9.8 at two digits. */
static double significant_step(double v, int digits)
{
    return pow(10.0, decade_of(v) - digits + 1);
}

static bool written_with(double v, int digits)
{
    double step = significant_step(v, digits);
    return fabs(nearbyint(v / step) * step - v) <= multiple_tolerance * v;
}

int stats_significant_digits(const double *x, size_t n)
{
    for (int digits = 1; digits <= MOST_DIGITS; digits++) {
        bool all = true;
        for (size_t i = 0; i < n && all; i++)
            all = x[i] > 0.0 && written_with(x[i], digits);
        if (all)
            return digits;
    }
    return 0;
}

/* Half a rounding step of one sample on the log scale, averaged over its values: each
 * value's step is the coarser of the two ways it could have been rounded (to the sample's
 * decimals, or to its significant digits: 9.8 and 11 at two digits have steps 0.1 and 1).
 * The mean, not the median, so that a sample that crosses a power of ten counts the
 * coarser values above it (there rounding is also lopsided: the density falls across the
 * step, and more values are rounded down than up). */
static double half_log_step(const double *x, size_t n, double step, int digits)
{
    if (n == 0 || (step == 0.0 && digits == 0))
        return 0.0;
    double sum = 0.0;
    for (size_t i = 0; i < n; i++) {
        double own = fmax(step, digits > 0 ? significant_step(x[i], digits) : 0.0);
        sum += log1p(own / x[i]) / 2.0;
    }
    return sum / (double)n;
}

static size_t distinct_in_sorted(const double *sorted, size_t n)
{
    size_t distinct = n > 0;
    for (size_t i = 1; i < n; i++)
        distinct += sorted[i] != sorted[i - 1];
    return distinct;
}

/* 1.4826 MAD of the logs of v (or of log(y_i / x_i) when y is given), NAN without memory. */
static double log_spread(const double *x, const double *y, size_t n)
{
    double *logs = malloc((n ? n : 1) * sizeof *logs), mad = NAN;
    if (logs == NULL)
        return NAN;
    for (size_t i = 0; i < n; i++)
        logs[i] = y ? log(y[i]) - log(x[i]) : log(x[i]);
    if (stats_mad(logs, n, &mad) != STATS_OK)
        mad = NAN;
    free(logs);
    return mad;
}

static double spread_of(const double *x, size_t m, const double *y, size_t n, bool paired)
{
    if (paired)
        return log_spread(x, y, m);
    double sx = log_spread(x, NULL, m), sy = log_spread(y, NULL, n);
    return sqrt((sx * sx + sy * sy) / 2.0);
}

stats_status stats_resolution_of(const double *x, size_t m, const double *y, size_t n,
                                 bool paired, stats_resolution *out)
{
    if (paired && m != n)
        return STATS_ERR_DOMAIN;
    if (m + n == 0 || x == NULL || y == NULL || out == NULL)
        return STATS_ERR_DOMAIN;
    double *pooled = malloc((m + n) * sizeof *pooled);
    if (pooled == NULL)
        return STATS_ERR_NOMEM;
    memcpy(pooled, x, m * sizeof *pooled);
    memcpy(pooled + m, y, n * sizeof *pooled);
    double *sorted = NULL;
    stats_status status = stats_sorted_copy(pooled, m + n, &sorted);
    if (status == STATS_OK) {
        double step = stats_decimal_step(sorted, m + n);
        int digits = stats_significant_digits(sorted, m + n);
        *out = (stats_resolution){
            .step = step,
            .digits = digits,
            .log_step = half_log_step(x, m, step, digits) + half_log_step(y, n, step, digits),
            .spread = spread_of(x, m, y, n, paired),
            .value_spread = fmin(log_spread(x, NULL, m), log_spread(y, NULL, n)),
            .distinct = distinct_in_sorted(sorted, m + n),
            .count = m + n,
        };
    }
    free(sorted);
    free(pooled);
    return status;
}

void stats_widen_by_step(shift_result *s, double log_step)
{
    bool above = s->ci_low > 0.0 || (s->ci_low == 0.0 && s->low_open);
    bool below = s->ci_high < 0.0 || (s->ci_high == 0.0 && s->high_open);
    s->ci_low -= log_step;
    s->ci_high += log_step;
    s->low_open = s->high_open = false;
    /* The step is itself only known to a few digits: an end within a billionth of a step of
     * 0 is at 0 (a point at one step, widened by it, lands a few ulps either side). */
    double negligible = log_step * 1e-9;
    if (above && !(s->ci_low > negligible))
        s->ci_low = 0.0, s->low_open = true;
    if (below && !(s->ci_high < -negligible))
        s->ci_high = 0.0, s->high_open = true;
}
