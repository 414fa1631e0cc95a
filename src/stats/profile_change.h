/* A function's change between two variants' profiles, paired by block: its share of the
 * samples times the block's measured time, the per-block differences' mean and t interval. */
#ifndef VERDICT_STATS_PROFILE_CHANGE_H
#define VERDICT_STATS_PROFILE_CHANGE_H

#include <stddef.h>

#include "status.h"

/* Per block (paired: index i of each array is block i): the symbol's share of each
 * variant's samples (0..1), and each variant's measured time in that block (seconds, > 0). */
typedef struct {
    const double *baseline_share, *candidate_share;
    const double *baseline_time, *candidate_time;
    size_t n;
} profile_blocks;

typedef struct {
    double share_baseline, share_candidate;   /* means over the blocks */
    /* the symbol's time in the candidate less its time in the baseline, as a share of the
     * baseline's measured time: per-block differences' mean and t interval */
    double change, change_low, change_high;
    /* the same in seconds */
    double seconds, seconds_low, seconds_high;
    double baseline_seconds, candidate_seconds; /* the symbol's mean time in each */
    size_t n;
} profile_change;

/* The change at the confidence level (a t interval on the n per-block differences; all
 * differences equal: the interval is that value). STATS_ERR_TOO_FEW under two blocks (the
 * means are set, the intervals NaN), STATS_ERR_DOMAIN for a time that is not above 0 or a
 * share outside 0..1, STATS_ERR_NOMEM. */
stats_status profile_change_estimate(const profile_blocks *blocks, double confidence,
                                     profile_change *out);

#endif
