/* The verdict rules (docs/statistics.md): better, worse, equivalent or inconclusive from an
 * interval, a margin and a direction, and how many more runs would likely decide. */
#ifndef VERDICT_STATS_VERDICT_RULES_H
#define VERDICT_STATS_VERDICT_RULES_H

#include <stdbool.h>
#include <stddef.h>

typedef enum {
    VERDICT_BETTER,
    VERDICT_WORSE,
    VERDICT_EQUIVALENT,
    VERDICT_INCONCLUSIVE
} verdict_kind;

typedef enum {
    UNDECIDED_NONE,            /* decided */
    UNDECIDED_CONFIDENCE,      /* requested confidence not reachable with this many samples */
    UNDECIDED_WIDE_INTERVAL,   /* interval straddles 1 and leaves the margin band */
    UNDECIDED_RESOLUTION       /* the interval is as wide as the data's rounding step allows:
                                  more runs of the same metric cannot narrow it */
} undecided_reason;

typedef struct {
    verdict_kind kind;
    bool negligible;           /* better/worse, but the whole interval is inside the margin band */
    undecided_reason reason;
    long needed_blocks;        /* more runs per side likely to decide; -1 when not applicable */
} verdict_decision;

/* Everything on the log scale, where the decisions are exact: an end that rests exactly on
 * 0 (a ratio of exactly 1) is on the side the test put it, whatever exp() would round to. */
typedef struct {
    double estimate, low, high;      /* log(candidate / baseline) and its interval */
    bool low_open, high_open;        /* that end is not itself in the confidence set */
    double confidence;               /* level the interval was meant to have */
    double achieved_confidence;      /* level it has (lower when not reachable) */
    double margin;                   /* relative */
    bool higher_is_better;
    bool resolution_limited;         /* widened to the data's rounding step (UNDECIDED_RESOLUTION) */
    size_t min_n;                    /* fewest usable runs per side that can ever decide (0: any) */
    double usable_share;             /* share of the runs the test used (paired zeros are set
                                        aside); 1 when all were used */
    size_t n_baseline, n_candidate;
} verdict_input;

verdict_decision verdict_decide(const verdict_input *in);
const char *verdict_kind_name(verdict_kind kind);

/* Smallest sample size per side at which a rank test can reach `confidence` under R's
 * rule (achieved alpha within alpha/2 of the requested alpha). */
size_t rank_test_min_n(double confidence, bool paired);

#endif
