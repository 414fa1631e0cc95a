/* Seeded BCa bootstrap intervals: for the shift of medians of two independent samples, and
 * for the location of paired per-block differences, resampling whole blocks. */
#ifndef VERDICT_STATS_BOOTSTRAP_H
#define VERDICT_STATS_BOOTSTRAP_H

#include <stddef.h>
#include <stdint.h>
#include "shift.h"
#include "status.h"

/* Shift median(x) - median(y) of independent samples, each resampled on its own.
 * p_value is the two-sided bootstrap p-value (twice the smaller tail mass at 0). */
stats_status bootstrap_bca_median_shift(const double *x, size_t m, const double *y, size_t n,
                                        double confidence, uint64_t seed, size_t resamples,
                                        shift_result *out);

/* Location of the per-block differences d (their Hodges–Lehmann pseudo-median, the estimate
 * of the paired rank test), resampling blocks: the block's machine state cancels in d_i, so
 * the interval keeps what pairing buys. */
stats_status bootstrap_bca_paired_location(const double *d, size_t n, double confidence,
                                           uint64_t seed, size_t resamples, shift_result *out);

#endif
