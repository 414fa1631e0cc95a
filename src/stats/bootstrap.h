/* Seeded BCa bootstrap interval for the shift of medians (on logs: the ratio of medians).
 * Paired data are resampled by block, unpaired data within each group. */
#ifndef VERDICT_STATS_BOOTSTRAP_H
#define VERDICT_STATS_BOOTSTRAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "shift.h"
#include "status.h"

/* Shift median(x) - median(y). When paired, m must equal n and (x_i, y_i) are a block.
 * p_value is the two-sided bootstrap p-value (twice the smaller tail mass at 0). */
stats_status bootstrap_bca_median_shift(const double *x, size_t m, const double *y, size_t n,
                                        bool paired, double confidence, uint64_t seed,
                                        size_t resamples, shift_result *out);

#endif
