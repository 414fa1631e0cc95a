/* Stage 1 of the layout-twins analysis: block-adjusted logs of every (variant, layout) unit,
 * one location per unit, and the variance parts of the nested design by its mean squares. */
#include "layouts_stage1.h"

#include <math.h>
#include <stdlib.h>

#include "descriptive.h"
#include "hodges_lehmann.h"

static bool layouts_variant_ok(const layouts_variant *v, size_t n_blocks)
{
    if (v->units == NULL)
        return false;
    for (size_t k = 0; k < v->n_units; k++) {
        if (v->units[k] == NULL)
            return false;
        for (size_t b = 0; b < n_blocks; b++)
            if (!(v->units[k][b] > 0.0) || !isfinite(v->units[k][b]))
                return false;
    }
    return true;
}

static const double *layouts_unit_values(const layouts_table *t,
                                         const layouts_variant *baseline,
                                         const layouts_variant *candidate, size_t u)
{
    return u < t->n_baseline ? baseline->units[u] : candidate->units[u - t->n_baseline];
}

/* Every unit ran once in each block, so a block's mean log over all units is its machine
 * state (plus the average unit): removing it is what pairing by block does for two units. */
static void layouts_remove_block_means(layouts_table *t)
{
    size_t units = t->n_baseline + t->n_candidate, n = t->n_blocks;
    for (size_t b = 0; b < n; b++) {
        double sum = 0.0;
        for (size_t u = 0; u < units; u++)
            sum += t->z[u * n + b];
        double mean = sum / (double)units;
        for (size_t u = 0; u < units; u++)
            t->z[u * n + b] -= mean;
    }
}

stats_status layouts_table_build(const layouts_variant *baseline,
                                 const layouts_variant *candidate, size_t n_blocks,
                                 layouts_table *out)
{
    if (baseline == NULL || candidate == NULL)
        return STATS_ERR_DOMAIN;
    if (n_blocks < 2 || baseline->n_units < 2 || candidate->n_units < 2)
        return STATS_ERR_TOO_FEW;
    if (!layouts_variant_ok(baseline, n_blocks) || !layouts_variant_ok(candidate, n_blocks))
        return STATS_ERR_DOMAIN;
    *out = (layouts_table){baseline->n_units, candidate->n_units, n_blocks, NULL};
    size_t units = out->n_baseline + out->n_candidate;
    out->z = malloc(units * n_blocks * sizeof *out->z);
    if (out->z == NULL)
        return STATS_ERR_NOMEM;
    for (size_t u = 0; u < units; u++) {
        const double *y = layouts_unit_values(out, baseline, candidate, u);
        for (size_t b = 0; b < n_blocks; b++)
            out->z[u * n_blocks + b] = log(y[b]);
    }
    layouts_remove_block_means(out);
    return STATS_OK;
}

void layouts_table_free(layouts_table *t)
{
    free(t->z);
    t->z = NULL;
}

stats_status layouts_unit_locations(const layouts_table *t, comparison_method method,
                                    double *out)
{
    size_t units = t->n_baseline + t->n_candidate, n = t->n_blocks;
    for (size_t u = 0; u < units; u++) {
        const double *z = t->z + u * n;
        if (method == METHOD_WELCH) {
            out[u] = stats_mean(z, n);
            continue;
        }
        stats_status st = hl_one_sample(z, n, &out[u]);
        if (st != STATS_OK)
            return st;
    }
    return STATS_OK;
}

/* Σ_k (m_k - mean of m)² over one variant's unit means. */
static double layouts_spread_about_mean(const double *means, size_t k)
{
    double centre = stats_mean(means, k), sum = 0.0;
    for (size_t i = 0; i < k; i++)
        sum += (means[i] - centre) * (means[i] - centre);
    return sum;
}

stats_status layouts_variance_components(const layouts_table *t, layouts_components *out)
{
    size_t units = t->n_baseline + t->n_candidate, n = t->n_blocks;
    double *means = malloc(units * sizeof *means);
    if (means == NULL)
        return STATS_ERR_NOMEM;
    double residual = 0.0;
    for (size_t u = 0; u < units; u++) {
        means[u] = stats_mean(t->z + u * n, n);
        for (size_t b = 0; b < n; b++)
            residual += (t->z[u * n + b] - means[u]) * (t->z[u * n + b] - means[u]);
    }
    double between = layouts_spread_about_mean(means, t->n_baseline) +
                     layouts_spread_about_mean(means + t->n_baseline, t->n_candidate);
    free(means);
    out->layouts_ms = (double)n * between / (double)(units - 2);
    out->noise_ms = residual / ((double)(units - 1) * (double)(n - 1));
    /* The method of moments can go below zero when layouts differ less than noise predicts;
     * a variance cannot, so it is floored (Searle, Casella & McCulloch 1992, ch. 3). */
    out->layout_var = fmax(0.0, (out->layouts_ms - out->noise_ms) / (double)n);
    return STATS_OK;
}
