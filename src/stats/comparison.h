/* One comparison of a candidate against a baseline: logs, the chosen test, the ratio
 * with its interval, and the verdict. The single entry point the rest of verdict uses. */
#ifndef VERDICT_STATS_COMPARISON_H
#define VERDICT_STATS_COMPARISON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "status.h"
#include "verdict_rules.h"

typedef enum {
    METHOD_WILCOXON,  /* signed-rank when paired, rank-sum otherwise */
    METHOD_WELCH,     /* t test on logs (paired t when paired) */
    METHOD_BOOTSTRAP, /* BCa interval for the ratio of medians */
    METHOD_QUANTILE   /* ratio of a low Harrell-Davis quantile: swaps within blocks when
                         paired, permutations of the pooled runs otherwise (issue 27) */
} comparison_method;

/* The quantile METHOD_QUANTILE compares when comparison_options.quantile is 0. */
#define COMPARISON_DEFAULT_QUANTILE 0.1

typedef struct {
    comparison_method method;
    bool paired;               /* baseline[i] and candidate[i] were measured in block i */
    double confidence;         /* level of this interval (already adjusted for multiplicity) */
    double margin;             /* equivalence margin, relative (0.01 = 1%) */
    bool higher_is_better;
    uint64_t seed;             /* bootstrap and quantile only */
    size_t resamples;          /* bootstrap resamples or quantile flips; 0 = default */
    double quantile;           /* quantile only: in (0, 1); 0 = COMPARISON_DEFAULT_QUANTILE */
    bool exact_counts;         /* the values are exact counts (instructions, allocs/op), not
                                  rounded measurements: no rounding allowance, and counts that
                                  never varied decide from 3 runs at 95% (docs/statistics.md,
                                  "Exact and near-exact data") */
} comparison_options;

typedef struct {
    const char *method_name;   /* "wilcoxon-signed-rank", "wilcoxon-rank-sum", "welch", ... */
    double quantile;           /* the quantile compared (METHOD_QUANTILE); 0 otherwise */
    bool paired, exact;
    size_t n_baseline, n_candidate;
    double ratio, ci_low, ci_high; /* candidate / baseline, from the log-scale shift */
    bool low_open, high_open;  /* that end of the interval is excluded (it rests exactly on a
                                  tied difference the test rejects, usually a ratio of 1) */
    double p_value;
    double confidence;          /* level the interval was computed at */
    double achieved_confidence; /* lower than confidence when not reachable (R's rule) */
    double statistic, df;
    size_t set_aside;           /* paired rank test: blocks with a zero difference, set aside */
    size_t distinct_values;     /* distinct values among both samples */
    double step;                /* the decimal step the values are multiples of (0: none) */
    int digits;                 /* the significant digits that write every value (0: none) */
    double relative_step;       /* how far rounding can move the ratio (0.019 = 1.9%) */
    bool resolution_limited;    /* the interval was too fine for the values' rounding and was
                                   widened by relative_step on each side */
    bool constant;              /* the data did not vary: each sample one value (unpaired), every
                                   block the same ratio (paired); the ratio is that one ratio */
    verdict_decision decision;
} comparison;

const char *comparison_method_name(comparison_method method, bool paired);
/* The option's own word: "wilcoxon", "welch", "bootstrap" or "quantile". */
const char *comparison_method_option(comparison_method method);

/* Compares positive samples; paired needs n_baseline == n_candidate. */
stats_status compare_samples(const double *baseline, size_t n_baseline,
                             const double *candidate, size_t n_candidate,
                             const comparison_options *options, comparison *out);

#endif
