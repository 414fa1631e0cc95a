/* The overall effect of a change across the points of a sweep: the geometric mean of the
 * per-point ratios, with an interval built from the per-point intervals. */
#ifndef VERDICT_STATS_COMBINE_H
#define VERDICT_STATS_COMBINE_H

#include <stddef.h>

#include "status.h"

typedef struct {
    double ratio, ci_low, ci_high; /* a per-point ratio and its interval */
    double confidence;             /* the level of that interval */
} ratio_interval;

/* exp(mean of log ratios); the interval treats each point's log ratio as an independent
 * normal estimate whose standard error is its interval's half-width over the normal
 * quantile of its level, so se = sqrt(sum se_i^2) / k. */
stats_status combine_ratios(const ratio_interval *points, size_t k, double confidence,
                            ratio_interval *out);

#endif
