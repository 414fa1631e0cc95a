/* Planning an experiment (`verdict plan`): the variance components of a paired log ratio, and
 * the cheapest layouts and blocks that reach a target (docs/statistics.md, "Planning"). */
#ifndef VERDICT_STATS_PLAN_DESIGN_H
#define VERDICT_STATS_PLAN_DESIGN_H

#include <stdbool.h>
#include <stddef.h>

#include "status.h"

/* One comparison's variance components, log scale. */
typedef struct {
    double sd_pair;   /* σ_d: one block's log ratio candidate/baseline, layout effects
                         removed (2σ_run² = σ_d²) */
    double sd_layout; /* σ_layout: one layout's effect; NaN when not estimated (no twins) */
} plan_components;

/* What the plan must reach, for each comparison at its own level. */
typedef struct {
    double change;    /* relative, above 0: detect a change of this size (0.02: 2%), or the
                         interval's half-width */
    bool half_width;  /* true: an interval of half-width `change`; false: detect `change` */
    double power;     /* detect: the chance of deciding when the change is there (0.8), from
                         0.5 to below 1 */
    double alpha;     /* two-sided, of one comparison (the family's share, looks included) */
} plan_target;

typedef struct {
    size_t layouts;      /* K per variant; 1: the binaries as they are (no twins) */
    size_t blocks;       /* b per point */
    size_t kj_blocks;    /* Kalibera–Jones's repetitions r_1 (0 without twins) */
    double se;           /* the design's standard error of the log ratio */
} plan_allocation;

/* Blocks are at least this: fewer leave no spread to estimate. */
#define PLAN_MIN_BLOCKS 2
/* Above this many blocks or layouts a target is out of reach (STATS_ERR_DOMAIN). */
#define PLAN_MAX_UNITS 100000000.0

/* The robust σ_d of paired log ratios: n_pairs pairs (layout k of the candidate against
 * layout k of the baseline; one pair without twins) of n_blocks positive values each, the
 * log ratios of each pair centred on their median (the pair's layout effect), pooled, and
 * their MAD scaled to a normal sd (R's mad). STATS_ERR_TOO_FEW below 2 blocks,
 * STATS_ERR_DOMAIN for a value that is not positive and finite. */
stats_status plan_pair_sd(const double *const *baseline, const double *const *candidate,
                          size_t n_pairs, size_t n_blocks, double *out);

/* se² = 2σ_layout²/K + σ_d²/(K b) (σ_layout NaN counts as 0). */
double plan_standard_error(const plan_components *c, size_t layouts, size_t blocks);

/* Kalibera and Jones (ISMM 2013): repetitions at a level from the variance components T²
 * and the costs c of it and of the level above, ceil(sqrt((c_upper/c_lower) * T_lower² /
 * T_upper²)), at least 1; SIZE_MAX when T_upper² is 0 (the upper level costs only). */
size_t plan_kj_repetitions(double var_lower, double var_upper, double cost_lower,
                           double cost_upper);

/* The fewest blocks for the target without twins (Guenther's paired-t sample size,
 * docs/statistics.md), and at least the blocks a signed-rank test needs to reach alpha. */
stats_status plan_paired_blocks(double sd_pair, const plan_target *t, size_t *blocks);
/* With K layouts per variant: the fewest blocks, or 0 when no number of blocks reaches the
 * target (the layout spread alone is too wide for K). */
stats_status plan_blocks_for_layouts(const plan_components *c, size_t layouts,
                                     const plan_target *t, size_t *blocks);

/* The cheapest allocation of one comparison: without twins (sd_layout NaN) one layout and
 * the paired blocks; with twins r_1 = Kalibera–Jones's blocks per layout from σ_d², 2σ_layout²
 * and the costs of a block and of a relink, then the fewest layouts (at least the rank-sum
 * test's) that reach the target with r_1 blocks, then the fewest blocks for those layouts.
 * block_seconds: one more block of one layout, per variant (a run at every point); relink:
 * one more layout, per variant. */
stats_status plan_allocate(const plan_components *c, double block_seconds,
                           double relink_seconds, const plan_target *t, plan_allocation *out);

/* One allocation for every comparison of an experiment (its points and metrics share the
 * plan): the most layouts any needs, then the most blocks any needs with them. */
stats_status plan_allocate_all(const plan_components *c, size_t n, double block_seconds,
                               double relink_seconds, const plan_target *t,
                               plan_allocation *out);

/* The plan's duration in seconds: points × blocks × (variants × layouts) runs, each taking
 * run_seconds, and variants × layouts relinks when there are twins. */
double plan_expected_seconds(const plan_allocation *a, size_t points, size_t variants,
                             double run_seconds, double relink_seconds);

#endif
