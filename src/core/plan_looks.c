/* The planned looks with their boundaries and the exact floor of the rank tests: a plan whose
 * blocks cannot reach its adjusted level is known before anything runs. */
#include "core/plan_looks.h"

#include <math.h>
#include <string.h>

#include "core/metrics.h"

/* The blocks searched for the fewest that could decide: 2 / 2^n is below any level verdict
 * accepts long before. */
#define PLAN_MAX_SEARCH 100000

double plan_smallest_p(comparison_method method, bool paired, size_t n)
{
    if (method != METHOD_WILCOXON || n == 0)
        return 0.0;
    if (paired) /* every difference of one sign: 2 of the 2^n sign patterns */
        return fmin(1.0, 2.0 * exp2(-(double)n));
    /* one sample wholly above the other: 2 of the C(2n, n) orderings */
    double log_choose = lgamma(2.0 * (double)n + 1) - 2.0 * lgamma((double)n + 1);
    return fmin(1.0, 2.0 * exp(-log_choose));
}

/* Holm and Bonferroni: the most significant comparison at alpha / m; BH and none let one
 * comparison alone use alpha when every other is as clear. */
static size_t family_of(const experiment *e, const analysis_options *o)
{
    size_t m = (e->n_variants > 1 ? e->n_variants - 1 : 1) * (e->n_metrics ? e->n_metrics : 1) *
               experiment_point_count(e);
    return o->adjust == ADJUST_HOLM ? m : 1;
}

static int fixed_look(const experiment *e, double alpha, plan_look *look)
{
    double planned = stopping_planned_alpha(alpha, e->reserve_for_more, 1);
    look->blocks = e->repetitions;
    look->level = (spending_look){.fraction = 1.0, .alpha_spent = planned,
                                  .z = spending_look_z(planned), .nominal_alpha = planned};
    return 0;
}

static int adaptive_looks(const experiment *e, double alpha, plan_looks *out,
                          verdict_error *err)
{
    stopping_rule rule = experiment_stopping_rule(e);
    spending_look levels[STOPPING_MAX_LOOKS];
    if (stopping_boundaries(&rule, alpha, levels, err) != 0)
        return -1;
    out->n_looks = stopping_looks(&rule);
    for (size_t k = 0; k < out->n_looks; k++)
        out->looks[k] = (plan_look){.blocks = stopping_look_blocks(&rule, k),
                                    .level = levels[k]};
    return 0;
}

/* The method the analysis will use: counts get the t test unless one was asked for, and it
 * has no floor; a time metric beside them keeps the rank test's. */
static comparison_method plan_method(const experiment *e, const analysis_options *o)
{
    analysis_series series = {.exact_counts = metric_counts_only(e)};
    return analysis_method_for(o, &series, &series);
}

int plan_looks_of(const experiment *e, const analysis_options *o, plan_looks *out,
                  verdict_error *err)
{
    comparison_method method = plan_method(e, o);
    memset(out, 0, sizeof *out);
    out->method = method;
    double alpha = 1.0 - o->confidence;
    if (e->adaptive ? adaptive_looks(e, alpha, out, err) != 0
                    : (out->n_looks = 1, fixed_look(e, alpha, &out->looks[0])) != 0)
        return -1;
    out->comparisons = family_of(e, o);
    for (size_t k = 0; k < out->n_looks; k++) {
        plan_look *l = &out->looks[k];
        l->comparison_alpha = l->level.nominal_alpha / (double)out->comparisons;
        l->smallest_p = plan_smallest_p(method, o->paired, l->blocks);
        l->can_decide = l->comparison_alpha > 0 && l->smallest_p <= l->comparison_alpha;
        out->decides_somewhere |= l->can_decide;
    }
    double last = out->looks[out->n_looks - 1].comparison_alpha;
    for (size_t n = 1; last > 0 && plan_smallest_p(method, o->paired, 1) > 0 &&
                       n <= PLAN_MAX_SEARCH; n++)
        if (plan_smallest_p(method, o->paired, n) <= last) {
            out->blocks_needed = n;
            break;
        }
    return 0;
}
