/* The resolution of measured values: how far rounding may have moved them (printed to a
 * fixed number of decimals, or of significant digits), their spread, and how many levels. */
#ifndef VERDICT_STATS_RESOLUTION_H
#define VERDICT_STATS_RESOLUTION_H

#include <stdbool.h>
#include <stddef.h>

#include "shift.h"
#include "status.h"

typedef struct {
    double step;          /* largest power of ten every value is a multiple of (0: none) */
    int digits;           /* fewest significant digits that write every value (0: none) */
    double log_step;      /* how far rounding can typically move a log ratio: half a step
                             of each sample, at the median of its values' own steps */
    double spread;        /* robust sd (1.4826 MAD) on the log scale of what a rank method
                             locates: the per-block log ratios when paired, else the two
                             samples' logs (root mean square of their MADs) */
    double value_spread;  /* the smaller of the two samples' own robust sds: how far the
                             values themselves move over the rounding grid (block effects
                             dither paired values too), which is what lets a mean average
                             rounding out */
    size_t distinct;      /* distinct values among both samples */
    size_t count;         /* values looked at */
} stats_resolution;

/* The resolution of the values of both samples (all positive); paired needs m == n. */
stats_status stats_resolution_of(const double *x, size_t m, const double *y, size_t n,
                                 bool paired, stats_resolution *out);

/* Largest power of ten (10^-15 .. 10^15) every value is an integer multiple of, or 0. */
double stats_decimal_step(const double *x, size_t n);
/* Widens an interval (log scale) by log_step on each side, keeping the side of 0 the test
 * established: an end that excluded 0 stops at 0, open. Rounding cannot make equal things
 * differ, so the test stays valid; only the interval's ends move. */
void stats_widen_by_step(shift_result *s, double log_step);
/* Fewest significant digits (1 .. 15) that write every value exactly, or 0 for none. */
int stats_significant_digits(const double *x, size_t n);

#endif
