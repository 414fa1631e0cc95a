/* The result of every two-sample location comparison: a shift with its interval.
 * verdict feeds logs, so the shift is a log-ratio; callers exponentiate for display. */
#ifndef VERDICT_STATS_SHIFT_H
#define VERDICT_STATS_SHIFT_H

#include <stdbool.h>
#include <stddef.h>

typedef struct {
    double estimate;            /* location shift, x relative to y (log scale in verdict) */
    double ci_low, ci_high;     /* the confidence set's ends (its hull) */
    bool low_open, high_open;   /* an end that is not itself in the set: with ties the set
                                   can stop exactly at a data difference the test rejects,
                                   most often 0 (docs/statistics.md, "Ties and zeros") */
    double p_value;             /* two-sided, for H0: shift == 0 */
    double statistic;           /* V, W or t, exactly as R reports it */
    double df;                  /* degrees of freedom (t tests); NAN otherwise */
    double achieved_confidence; /* R's conf.level attribute: the requested level, or the
                                   level actually reached when the data cannot reach it
                                   ("requested conf.level not achievable") */
    bool exact;                 /* exact null distribution used */
    double min_p_value;         /* rank tests: the smallest p-value the permutation
                                   distribution of this many values can give (0 otherwise) */
    size_t set_aside;           /* paired rank test: zero differences set aside */
} shift_result;

#endif
