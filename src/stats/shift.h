/* The result of every two-sample location comparison: a shift with its interval.
 * verdict feeds logs, so the shift is a log-ratio; callers exponentiate for display. */
#ifndef VERDICT_STATS_SHIFT_H
#define VERDICT_STATS_SHIFT_H

#include <stdbool.h>

typedef struct {
    double estimate;            /* location shift, x relative to y (log scale in verdict) */
    double ci_low, ci_high;     /* confidence interval for the shift */
    double p_value;             /* two-sided, for H0: shift == 0 */
    double statistic;           /* V, W or t, exactly as R reports it */
    double df;                  /* degrees of freedom (t tests); NAN otherwise */
    double achieved_confidence; /* R's conf.level attribute: the requested level, or the
                                   level actually reached when the exact distribution
                                   cannot reach it ("requested conf.level not achievable") */
    bool exact;                 /* exact null distribution used */
} shift_result;

#endif
