/* Layout twins (issue 19): a candidate variant against a baseline when each is built as K
 * links that differ only in function order, every link measured once per randomized block. */
#ifndef VERDICT_STATS_LAYOUTS_H
#define VERDICT_STATS_LAYOUTS_H

#include <stdbool.h>
#include <stddef.h>

#include "comparison.h"
#include "status.h"
#include "verdict_rules.h"

/* One variant's K layout twins: units[k][b] is layout k's measurement (positive) in block
 * b; block b of every unit of both variants was measured in the same randomized block. */
typedef struct {
    const double *const *units;
    size_t n_units; /* K, at least 2 */
} layouts_variant;

typedef struct {
    comparison_method method; /* METHOD_WILCOXON (default, 0) or METHOD_WELCH */
    double confidence;        /* level of the interval (already adjusted for multiplicity) */
    double margin;            /* equivalence margin, relative (0.01 = 1%) */
    bool higher_is_better;
} layouts_options;

/* The change's effect, with the layout variance inside its interval (docs/statistics.md,
 * "Layout twins"). Everything the verdict uses is on the layout level: K_a + K_b values. */
typedef struct {
    const char *method_name;        /* "layouts-wilcoxon-rank-sum" or "layouts-welch" */
    bool exact;                     /* exact null distribution (rank method, no tied locations) */
    size_t n_baseline, n_candidate; /* K_a, K_b */
    size_t n_blocks;
    double ratio, ci_low, ci_high;  /* candidate / baseline over layouts, and its interval */
    bool low_open, high_open;       /* as in comparison (tied layout locations) */
    double p_value, statistic, df;  /* W (rank-sum) or Welch's t and df; df NAN for ranks */
    double relative_step;           /* how far the values' rounding can move the ratio */
    bool resolution_limited;        /* the layouts of a variant round alike (dither below half
                                       of relative_step's log), so the interval was widened by
                                       it on each side; a claim of better or worse stands, the
                                       test being valid under rounding */
    double confidence;              /* requested level */
    double achieved_confidence;     /* lower when K is too small for it (rank: K <= 3 at 95%) */
    verdict_decision decision;      /* the usual rules on the layout-level interval; its
                                       needed_blocks is -1: more blocks cannot remove the
                                       layout variance, see needed_layouts */
    long needed_layouts;            /* inconclusive: layouts per variant likely to decide (the
                                       total, not the additional ones); -1 otherwise */
    double layout_spread;           /* sd of layout effects, log scale (σ_layout): 0.031 ≈ 3.1% */
    double noise_sd;                /* sd of one run's noise once unit and block are removed */
    double dither;                  /* sqrt(σ_layout² + noise_sd²): how far the layouts of a
                                       variant move apart within one block */
    double layout_share;            /* σ_layout² / (σ_layout² + noise_sd² / n_blocks): the
                                       share of a layout location's variance that is layout;
                                       near 1, more blocks barely help and only layouts do */
    stats_status binary_status;     /* STATS_OK when `binary` was computed */
    comparison binary;              /* the first candidate layout against the first baseline
                                       layout, paired by block, same method and level: what a
                                       user who built each variant once would have been told;
                                       binary.ratio is the binary-level estimate */
    double binary_noise_band;       /* log scale: a no-op change's binary-level log ratio lies
                                       within ±this at the requested confidence */
    double *baseline_locations;     /* K_a stage-1 locations, log scale, block-adjusted: */
    double *candidate_locations;    /* exp(l - l') is the ratio of two layouts (strip chart);
                                       one allocation, owned by baseline_locations */
} layouts_comparison;

/* Compares candidate with baseline over their layout twins; n_blocks >= 2 measurements per
 * unit, K >= 2 units per variant. STATS_ERR_DEGENERATE when the locations carry no
 * information (all equal; for Welch, no spread within the variants), as compare_samples.
 * On success *out owns the location arrays: release them with layouts_comparison_free
 * (harmless on a zeroed or failed result). */
stats_status layouts_compare(const layouts_variant *baseline, const layouts_variant *candidate,
                             size_t n_blocks, const layouts_options *options,
                             layouts_comparison *out);
void layouts_comparison_free(layouts_comparison *c);

/* Whether a binary-level ratio (one link of each variant, e.g. c->binary.ratio) is explained
 * by layout alone: the layout-aware comparison claims no change (neither better nor worse)
 * and the ratio lies inside ±c->binary_noise_band, the range layouts give a no-op change. */
bool layouts_within_noise(const layouts_comparison *c, double binary_ratio);

#endif
