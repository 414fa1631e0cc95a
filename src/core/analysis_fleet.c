/* Pools one comparison over the machines of a fleet: each machine's block-paired log ratio and
 * its variance, a random-effects meta-analysis, the prediction interval for a new machine. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/analysis.h"
#include "common/error.h"
#include "stats/meta_analysis.h"
#include "stats/multiplicity.h"

static bool same_pool(const analysis_series *series, const analysis_comparison *a,
                      const analysis_comparison *b)
{
    const analysis_series *ab = &series[a->baseline], *ac = &series[a->candidate];
    const analysis_series *bb = &series[b->baseline], *bc = &series[b->candidate];
    return strcmp(ac->point, bc->point) == 0 && strcmp(ac->metric, bc->metric) == 0 &&
           strcmp(ab->variant, bb->variant) == 0 && strcmp(ac->variant, bc->variant) == 0;
}

/* Machines with a comparison: pooling starts at two. */
static size_t count_machines(const analysis_series *series, const analysis_result *r)
{
    size_t n = 0;
    for (size_t i = 0; i < r->n_comparisons; i++) {
        const char *m = analysis_comparison_machine(series, &r->comparisons[i]);
        bool seen = false;
        for (size_t j = 0; j < i && !seen; j++)
            seen = strcmp(m, analysis_comparison_machine(series, &r->comparisons[j])) == 0;
        n += !seen;
    }
    return n;
}

/* The mean of a variant's layouts' log values in block b (series first .. first+K-1). */
static double block_log(const analysis_series *series, size_t first, size_t b)
{
    size_t k = series[first].n_layouts > 1 ? series[first].n_layouts : 1;
    double sum = 0;
    for (size_t l = 0; l < k; l++)
        sum += log(series[first + l].values[b]);
    return sum / (double)k;
}

/* One machine's log ratio and its sampling variance: the mean and squared standard error of
 * the block-paired differences of logs (the engine's blocks pair the variants). */
static int machine_effect(const analysis_series *series, const analysis_comparison *c,
                          double *yi, double *vi)
{
    size_t n = series[c->baseline].n;
    if (n < 2 || series[c->candidate].n != n)
        return -1;
    double mean = 0, m2 = 0;
    for (size_t b = 0; b < n; b++) {
        double d = block_log(series, c->candidate, b) - block_log(series, c->baseline, b);
        double delta = d - mean;
        mean += delta / (double)(b + 1);
        m2 += delta * (d - mean);
    }
    *yi = mean;
    *vi = m2 / (double)(n - 1) / (double)n;
    return isfinite(*yi) && isfinite(*vi) && *vi > 0 ? 0 : -1;
}

/* The machines of one pool, their effects, and the meta-analysis at level. */
static void pool_one(const analysis_series *series, const analysis_options *o, double level,
                     analysis_result *r, analysis_fleet *f, double *yi, double *vi)
{
    size_t k = 0;
    for (size_t j = 0; j < f->n_machines; j++) {
        const analysis_comparison *c = &r->comparisons[f->members[j]];
        if (!c->ok || machine_effect(series, c, &yi[k], &vi[k]) != 0)
            continue;
        f->n_better += c->result.decision.kind == VERDICT_BETTER;
        f->n_worse += c->result.decision.kind == VERDICT_WORSE;
        k++;
    }
    meta_result m;
    verdict_error why = {0};
    if (k < 2) {
        f->error = strdup("fewer than two machines have a result to pool");
        return;
    }
    if (o->method == METHOD_QUANTILE) { /* the pool is of mean log ratios: not a quantile's */
        f->error = strdup("--method quantile compares each machine on its own; the fleet's "
                          "pooled ratio is of mean log ratios and is not computed with it (use "
                          "--method wilcoxon or welch for the pooled verdict)");
        return;
    }
    if (meta_random_effects(yi, vi, k, META_TAU2_REML, level, &m, &why) != 0) {
        f->error = strdup(why.message);
        return;
    }
    f->ok = true;
    f->confidence = level;
    f->ratio = exp(m.estimate);
    f->ci_low = exp(m.ci_low);
    f->ci_high = exp(m.ci_high);
    f->p_value = m.p;
    f->predict_low = exp(m.pi_low);
    f->predict_high = exp(m.pi_high);
    f->tau = m.tau;
    f->i2 = m.i2 / 100.0; /* metafor's percent */
    verdict_input in = {.estimate = m.estimate, .low = m.ci_low, .high = m.ci_high,
                        .confidence = level, .achieved_confidence = level,
                        .margin = o->margin, .higher_is_better = f->higher_is_better,
                        .usable_share = 1.0, .n_baseline = k, .n_candidate = k};
    f->decision = verdict_decide(&in);
}

/* The pools: one per (point, metric, baseline, candidate), its machines in order. */
static int plan_pools(const analysis_series *series, analysis_result *r)
{
    r->fleet = calloc(r->n_comparisons ? r->n_comparisons : 1, sizeof *r->fleet);
    if (r->fleet == NULL)
        return -1;
    for (size_t i = 0; i < r->n_comparisons; i++) {
        const analysis_comparison *c = &r->comparisons[i];
        size_t p = 0;
        while (p < r->n_fleet && !same_pool(series, &r->comparisons[r->fleet[p].members[0]], c))
            p++;
        analysis_fleet *f = &r->fleet[p];
        if (p == r->n_fleet) {
            const analysis_series *b = &series[c->baseline], *x = &series[c->candidate];
            *f = (analysis_fleet){.point = x->point, .metric = x->metric,
                                  .baseline = b->variant, .candidate = x->variant,
                                  .higher_is_better = x->higher_is_better, .p_value = 1,
                                  .p_adjusted = 1};
            if ((f->members = calloc(r->n_comparisons, sizeof *f->members)) == NULL)
                return -1;
            r->n_fleet++;
        }
        f->members[f->n_machines++] = i;
    }
    return 0;
}

/* Adjusted p-values over the pools (Holm or BH, as asked); their intervals at Bonferroni's
 * level, which is what Holm's first step uses. */
static int adjust_pools(const analysis_options *o, analysis_result *r)
{
    double *p = malloc((r->n_fleet + 1) * sizeof *p), *adjusted = malloc((r->n_fleet + 1) *
                                                                         sizeof *adjusted);
    int rc = p && adjusted ? 0 : -1;
    for (size_t k = 0; rc == 0 && k < r->n_fleet; k++)
        p[k] = r->fleet[k].ok ? r->fleet[k].p_value : 1.0;
    if (rc == 0 && (o->adjust == ADJUST_HOLM ? p_adjust_holm(p, r->n_fleet, adjusted)
                                             : p_adjust_bh(p, r->n_fleet, adjusted)) != STATS_OK)
        rc = -1;
    for (size_t k = 0; rc == 0 && k < r->n_fleet; k++)
        r->fleet[k].p_adjusted = adjusted[k];
    free(p);
    free(adjusted);
    return rc;
}

int analysis_pool_machines(const analysis_series *series, const analysis_options *o,
                           analysis_result *r)
{
    r->fleet_confidence = o->confidence;
    if (count_machines(series, r) < 2)
        return 0;
    if (plan_pools(series, r) != 0)
        return -1;
    size_t m = r->n_fleet;
    double level = o->confidence;
    if (o->adjust != ADJUST_NONE && m > 1)
        level = 1.0 - (1.0 - o->confidence) / (double)m;
    r->fleet_confidence = level;
    double *yi = malloc((r->n_comparisons + 1) * sizeof *yi);
    double *vi = malloc((r->n_comparisons + 1) * sizeof *vi);
    int rc = yi && vi ? 0 : -1;
    for (size_t k = 0; rc == 0 && k < m; k++)
        pool_one(series, o, level, r, &r->fleet[k], yi, vi);
    free(yi);
    free(vi);
    if (rc == 0 && o->adjust != ADJUST_NONE && m > 1)
        rc = adjust_pools(o, r);
    for (size_t k = 0; rc == 0 && k < m && (o->adjust == ADJUST_NONE || m == 1); k++)
        r->fleet[k].p_adjusted = r->fleet[k].p_value;
    return rc;
}

void analysis_fleet_free(analysis_result *r)
{
    for (size_t k = 0; k < r->n_fleet; k++) {
        free(r->fleet[k].members);
        free(r->fleet[k].error);
    }
    free(r->fleet);
    r->fleet = NULL;
    r->n_fleet = 0;
}
