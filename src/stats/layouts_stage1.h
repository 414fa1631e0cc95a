/* Stage 1 of the layout-twins analysis (internal to layouts.c): the logs of every unit with
 * each block's effect removed, one location per unit, and the nested-ANOVA variance parts. */
#ifndef VERDICT_STATS_LAYOUTS_STAGE1_H
#define VERDICT_STATS_LAYOUTS_STAGE1_H

#include <stddef.h>

#include "comparison.h"
#include "layouts.h"
#include "status.h"

/* U = n_baseline + n_candidate units, baseline units first, each n_blocks long. */
typedef struct {
    size_t n_baseline, n_candidate, n_blocks;
    double *z; /* z[u * n_blocks + b] = log y[u][b] - (mean over all U units of block b's logs) */
} layouts_table;

/* Takes the logs (every value positive and finite) and removes the block means. */
stats_status layouts_table_build(const layouts_variant *baseline,
                                 const layouts_variant *candidate, size_t n_blocks,
                                 layouts_table *out);
void layouts_table_free(layouts_table *t);

/* One location per unit into out[U]: the mean of its z for METHOD_WELCH, their one-sample
 * Hodges–Lehmann estimate (median of Walsh averages) for METHOD_WILCOXON. */
stats_status layouts_unit_locations(const layouts_table *t, comparison_method method,
                                    double *out);

/* The mean squares of the nested design units-within-variants crossed with blocks, computed
 * on unit means whatever the method (their expectations hold for any noise law). */
typedef struct {
    double layouts_ms; /* n Σ_v Σ_k (mean_vk - mean_v)² / (U - 2): E = σ² + n σ_layout² */
    double noise_ms;   /* Σ (z_ub - mean_u)² / ((U - 1)(n - 1)): E = σ² */
    double layout_var; /* max(0, (layouts_ms - noise_ms) / n): σ_layout² by the moments */
} layouts_components;

stats_status layouts_variance_components(const layouts_table *t, layouts_components *out);

#endif
