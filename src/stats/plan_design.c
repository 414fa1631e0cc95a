/* The planner's arithmetic: σ_d from paired log ratios, the standard error of a design with
 * layouts and blocks, Kalibera–Jones repetitions, Guenther's sample sizes, the rank floors. */
#include "plan_design.h"

#include <assert.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "descriptive.h"
#include "distributions.h"

stats_status plan_pair_sd(const double *const *baseline, const double *const *candidate,
                          size_t n_pairs, size_t n_blocks, double *out)
{
    if (n_blocks < PLAN_MIN_BLOCKS || n_pairs == 0)
        return STATS_ERR_TOO_FEW;
    double *d = malloc(n_pairs * n_blocks * sizeof *d);
    if (d == NULL)
        return STATS_ERR_NOMEM;
    stats_status st = STATS_OK;
    for (size_t k = 0; st == STATS_OK && k < n_pairs; k++) {
        double *row = d + k * n_blocks, centre;
        for (size_t j = 0; j < n_blocks; j++) {
            double a = baseline[k][j], c = candidate[k][j];
            if (!(a > 0 && c > 0 && isfinite(a) && isfinite(c))) {
                st = STATS_ERR_DOMAIN;
                break;
            }
            row[j] = log(c) - log(a);
        }
        /* the pair's own level is its two layouts' effects, not noise */
        if (st == STATS_OK && (st = stats_median(row, n_blocks, &centre)) == STATS_OK)
            for (size_t j = 0; j < n_blocks; j++)
                row[j] -= centre;
    }
    if (st == STATS_OK)
        st = stats_mad(d, n_pairs * n_blocks, out);
    free(d);
    return st;
}

static double layout_var(const plan_components *c)
{
    return isnan(c->sd_layout) ? 0.0 : c->sd_layout * c->sd_layout;
}

double plan_standard_error(const plan_components *c, size_t layouts, size_t blocks)
{
    assert(layouts > 0 && blocks > 0);
    double k = (double)layouts;
    return sqrt(2.0 * layout_var(c) / k + c->sd_pair * c->sd_pair / (k * (double)blocks));
}

size_t plan_kj_repetitions(double var_lower, double var_upper, double cost_lower,
                           double cost_upper)
{
    assert(var_lower >= 0 && var_upper >= 0 && cost_lower > 0 && cost_upper >= 0);
    if (var_upper == 0)
        return SIZE_MAX;
    double r = ceil(sqrt(cost_upper / cost_lower * var_lower / var_upper));
    return r < 1 ? 1 : r >= PLAN_MAX_UNITS ? SIZE_MAX : (size_t)r;
}

static bool target_valid(const plan_target *t)
{
    return t->change > 0 && isfinite(t->change) && t->alpha > 0 && t->alpha < 1 &&
           (t->half_width || (t->power >= 0.5 && t->power < 1));
}

/* z_{1-α/2}: the interval's and the test's quantile. */
static double z_alpha(const plan_target *t)
{
    return dist_qnorm(1.0 - t->alpha / 2.0);
}

/* z_{1-α/2} + z_{power} for a detection, z_{1-α/2} alone for a half-width. */
static double z_sum(const plan_target *t)
{
    return z_alpha(t) + (t->half_width ? 0.0 : dist_qnorm(t->power));
}

/* A count from its real value: NaN or beyond PLAN_MAX_UNITS is out of reach. */
static stats_status to_count(double x, size_t floor, size_t *out)
{
    if (!(x < PLAN_MAX_UNITS))
        return STATS_ERR_DOMAIN;
    size_t n = x < 1 ? 1 : (size_t)ceil(x);
    *out = n < floor ? floor : n;
    return STATS_OK;
}

/* The signed-rank test's smallest two-sided p-value over n blocks is 2/2^n: fewer blocks
 * than this can never reach alpha. */
static size_t signed_rank_floor(double alpha)
{
    size_t n = PLAN_MIN_BLOCKS;
    while (ldexp(2.0, -(int)n) > alpha)
        n++;
    return n;
}

/* The rank-sum test over K layouts a side: its smallest two-sided p is 2/C(2K, K). */
static size_t rank_sum_floor(double alpha)
{
    size_t k = 2;
    for (;;) {
        double ways = 1; /* C(2k, k) */
        for (size_t i = 1; i <= k; i++)
            ways = ways * (double)(k + i) / (double)i;
        if (2.0 / ways <= alpha)
            return k;
        k++;
    }
}

/* Guenther (1981): the normal sample size plus z²/2 (paired) matches R's power.t.test
 * to within a block; the same correction makes the half-width's size that of a t interval
 * to within one. */
stats_status plan_paired_blocks(double sd_pair, const plan_target *t, size_t *blocks)
{
    if (!target_valid(t) || !(sd_pair >= 0) || !isfinite(sd_pair))
        return STATS_ERR_DOMAIN;
    double delta = log1p(t->change), z = z_sum(t), za = z_alpha(t);
    double n = z * z * sd_pair * sd_pair / (delta * delta) + za * za / 2.0;
    return to_count(n, signed_rank_floor(t->alpha), blocks);
}

/* With twins the test is two-sample over K layout locations a side, each of variance
 * σ_layout² + σ_d²/(2b): Guenther's two-sample size is K = z²(2σ_layout² + σ_d²/b)/δ² + z_α²/4,
 * solved here for b at a given K. */
stats_status plan_blocks_for_layouts(const plan_components *c, size_t layouts,
                                     const plan_target *t, size_t *blocks)
{
    if (!target_valid(t) || !(c->sd_pair >= 0) || !isfinite(c->sd_pair) || layouts < 2)
        return STATS_ERR_DOMAIN;
    double delta = log1p(t->change), z = z_sum(t), za = z_alpha(t);
    double room = ((double)layouts - za * za / 4.0) * delta * delta / (z * z) -
                  2.0 * layout_var(c);
    *blocks = 0;
    if (!(room > 0))
        return STATS_OK;
    return to_count(c->sd_pair * c->sd_pair / room, PLAN_MIN_BLOCKS, blocks);
}

/* The layouts the target needs with b blocks each (Guenther's two-sample size). */
static stats_status layouts_for_blocks(const plan_components *c, size_t blocks,
                                       const plan_target *t, size_t *layouts)
{
    double delta = log1p(t->change), z = z_sum(t), za = z_alpha(t);
    double var = 2.0 * layout_var(c) + c->sd_pair * c->sd_pair / (double)blocks;
    double k = z * z * var / (delta * delta) + za * za / 4.0;
    return to_count(k, rank_sum_floor(t->alpha), layouts);
}

static stats_status allocate_twins(const plan_components *c, double block_seconds,
                                   double relink_seconds, const plan_target *t,
                                   plan_allocation *out)
{
    size_t r = plan_kj_repetitions(c->sd_pair * c->sd_pair, 2.0 * layout_var(c),
                                   block_seconds, relink_seconds);
    out->kj_blocks = r;
    stats_status st = STATS_OK;
    if (r == SIZE_MAX) /* no layout spread seen: the fewest layouts, every run in blocks */
        out->layouts = rank_sum_floor(t->alpha);
    else
        st = layouts_for_blocks(c, r < PLAN_MIN_BLOCKS ? PLAN_MIN_BLOCKS : r, t, &out->layouts);
    if (st == STATS_OK)
        st = plan_blocks_for_layouts(c, out->layouts, t, &out->blocks);
    /* K from r_1 blocks reaches the target with r_1 blocks; fewer may do */
    return st == STATS_OK && out->blocks == 0 ? STATS_ERR_DOMAIN : st;
}

stats_status plan_allocate(const plan_components *c, double block_seconds,
                           double relink_seconds, const plan_target *t, plan_allocation *out)
{
    *out = (plan_allocation){1, 0, 0, NAN};
    if (!target_valid(t) || !(block_seconds > 0) || !(relink_seconds >= 0) ||
        !isfinite(block_seconds) || !isfinite(relink_seconds))
        return STATS_ERR_DOMAIN;
    stats_status st = isnan(c->sd_layout)
                          ? plan_paired_blocks(c->sd_pair, t, &out->blocks)
                          : allocate_twins(c, block_seconds, relink_seconds, t, out);
    if (st == STATS_OK)
        out->se = plan_standard_error(c, out->layouts, out->blocks);
    return st;
}

stats_status plan_allocate_all(const plan_components *c, size_t n, double block_seconds,
                               double relink_seconds, const plan_target *t,
                               plan_allocation *out)
{
    *out = (plan_allocation){1, 0, 0, NAN};
    if (n == 0)
        return STATS_ERR_TOO_FEW;
    stats_status st = STATS_OK;
    for (size_t i = 0; st == STATS_OK && i < n; i++) {
        plan_allocation one;
        st = plan_allocate(&c[i], block_seconds, relink_seconds, t, &one);
        if (st == STATS_OK && one.layouts > out->layouts)
            out->layouts = one.layouts;
        if (st == STATS_OK && (one.kj_blocks > out->kj_blocks))
            out->kj_blocks = one.kj_blocks;
    }
    /* the blocks each comparison needs with the layouts the most demanding one needs */
    for (size_t i = 0; st == STATS_OK && i < n; i++) {
        size_t b;
        st = out->layouts == 1 ? plan_paired_blocks(c[i].sd_pair, t, &b)
                               : plan_blocks_for_layouts(&c[i], out->layouts, t, &b);
        if (st == STATS_OK && b == 0)
            st = STATS_ERR_DOMAIN;
        if (st == STATS_OK && b > out->blocks)
            out->blocks = b;
    }
    for (size_t i = 0; st == STATS_OK && i < n; i++) {
        double se = plan_standard_error(&c[i], out->layouts, out->blocks);
        if (!(se <= out->se))
            out->se = se;
    }
    return st;
}

double plan_expected_seconds(const plan_allocation *a, size_t points, size_t variants,
                             double run_seconds, double relink_seconds)
{
    double units = (double)variants * (double)a->layouts;
    double runs = (double)points * (double)a->blocks * units * run_seconds;
    return runs + (a->layouts > 1 ? units * relink_seconds : 0.0);
}
