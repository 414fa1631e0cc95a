/* Stage 2 of the layout-twins analysis: the K_a baseline against the K_b candidate layout
 * locations, the verdict on that level, the layout spread and the binary-level contrast. */
#include "layouts.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "distributions.h"
#include "layouts_stage1.h"
#include "rank_tests.h"
#include "resolution.h"
#include "shift.h"
#include "t_tests.h"

static const char *layouts_method_name(comparison_method method)
{
    return method == METHOD_WELCH ? "layouts-welch" : "layouts-wilcoxon-rank-sum";
}

static bool layouts_options_ok(const layouts_options *o)
{
    return o != NULL && o->confidence > 0.0 && o->confidence < 1.0 && o->margin >= 0.0 &&
           (o->method == METHOD_WILCOXON || o->method == METHOD_WELCH);
}

/* Each layout location is one observation of its variant: the test sees K_a + K_b values,
 * so that the layout-to-layout variance is inside the interval, as it must be for a claim
 * about the change rather than about two binaries. */
static stats_status layouts_stage2(const layouts_comparison *c, comparison_method method,
                                   double confidence, shift_result *shift)
{
    const double *base = c->baseline_locations, *cand = c->candidate_locations;
    if (method == METHOD_WELCH)
        return welch_t_test(cand, c->n_candidate, base, c->n_baseline, confidence, shift);
    return wilcoxon_rank_sum(cand, c->n_candidate, base, c->n_baseline, confidence, shift);
}

/* Each variant's layouts all at one location, the two apart (a deterministic metric): the
 * rank test gives no interval. The shift is then known, but claimed only when the test
 * rejects no change and this many layouts can reach the level at all. */
static void layouts_settle_point(shift_result *s, double confidence)
{
    if (isfinite(s->ci_low) && isfinite(s->ci_high))
        return;
    double alpha = 1.0 - confidence;
    bool reachable = !(s->min_p_value - alpha > alpha / 2.0);
    s->ci_low = s->ci_high = s->estimate;
    s->achieved_confidence = s->p_value <= alpha && reachable ? confidence : 0.0;
}

/* Every value of both variants in one array, baseline first. */
static double *layouts_pool(const layouts_variant *baseline, const layouts_variant *candidate,
                            size_t n_blocks)
{
    size_t units = baseline->n_units + candidate->n_units;
    double *all = malloc(units * n_blocks * sizeof *all);
    for (size_t u = 0; all != NULL && u < units; u++) {
        const layouts_variant *v = u < baseline->n_units ? baseline : candidate;
        size_t k = u < baseline->n_units ? u : u - baseline->n_units;
        memcpy(all + u * n_blocks, v->units[k], n_blocks * sizeof *all);
    }
    return all;
}

/* The rounding of the values of both variants, as compare_samples finds it. */
static stats_status layouts_resolution(const layouts_variant *baseline,
                                       const layouts_variant *candidate, size_t n_blocks,
                                       stats_resolution *out)
{
    size_t na = baseline->n_units * n_blocks, nb = candidate->n_units * n_blocks;
    double *all = layouts_pool(baseline, candidate, n_blocks);
    if (all == NULL)
        return STATS_ERR_NOMEM;
    stats_status st = stats_resolution_of(all, na, all + na, nb, false, out);
    free(all);
    return st;
}

/* Rounded values give the layouts of a variant one common rounding error in a block when
 * they round alike: when what varies between them within a block (layout and run noise,
 * `dither`) spans less than half a rounding step. The spread between layouts cannot show an
 * error they share, so the interval is then widened by the rounding allowance on each side,
 * as compare_samples does, keeping the side of 0 the test established: rounding cannot make
 * equal things differ (docs/statistics.md, "Layout twins"). */
static bool layouts_widen(shift_result *s, double log_step, double dither)
{
    if (!(log_step > 0.0) || !(dither < log_step / 2.0))
        return false;
    stats_widen_by_step(s, log_step);
    return true;
}

static void layouts_fill_shift(const shift_result *s, layouts_comparison *c)
{
    c->exact = s->exact;
    c->ratio = exp(s->estimate);
    c->ci_low = exp(s->ci_low);
    c->ci_high = exp(s->ci_high);
    c->low_open = s->low_open;
    c->high_open = s->high_open;
    c->p_value = s->p_value;
    c->statistic = s->statistic;
    c->df = s->df;
    c->achieved_confidence = s->achieved_confidence;
}

/* The usual rules, with layouts as the sample size: what verdict_rules projects as more
 * runs per side is here more layouts per variant, since every layout adds one value. */
static void layouts_decide(const shift_result *s, const layouts_options *o,
                           layouts_comparison *c)
{
    verdict_input in = {
        .estimate = s->estimate, .low = s->ci_low, .high = s->ci_high,
        .low_open = s->low_open, .high_open = s->high_open,
        .confidence = o->confidence, .achieved_confidence = s->achieved_confidence,
        .margin = o->margin, .higher_is_better = o->higher_is_better,
        .resolution_limited = c->resolution_limited,
        .min_n = o->method == METHOD_WELCH ? 2 : rank_test_min_n(o->confidence, false),
        .usable_share = 1.0, .n_baseline = c->n_baseline, .n_candidate = c->n_candidate,
    };
    c->decision = verdict_decide(&in);
    size_t k = c->n_baseline < c->n_candidate ? c->n_baseline : c->n_candidate;
    c->needed_layouts = c->decision.needed_blocks < 0 ? -1
                                                      : c->decision.needed_blocks + (long)k;
    c->decision.needed_blocks = -1;
}

/* σ_layout and the run noise from the mean squares; the band is where a no-op change's
 * binary-level log ratio falls: two layout effects plus a paired mean of n noise pairs. */
static stats_status layouts_spread(const layouts_table *t, double confidence,
                                   layouts_comparison *c)
{
    layouts_components parts;
    stats_status st = layouts_variance_components(t, &parts);
    if (st != STATS_OK)
        return st;
    double n = (double)t->n_blocks;
    double location_var = parts.layout_var + parts.noise_ms / n;
    c->layout_spread = sqrt(parts.layout_var);
    c->noise_sd = sqrt(parts.noise_ms);
    c->dither = sqrt(parts.layout_var + parts.noise_ms);
    c->layout_share = location_var > 0.0 ? parts.layout_var / location_var : 0.0;
    double z = dist_qnorm(1.0 - (1.0 - confidence) / 2.0);
    c->binary_noise_band = z * sqrt(2.0 * parts.layout_var + 2.0 * parts.noise_ms / n);
    return STATS_OK;
}

/* The comparison a single build of each variant gives: its failure (every paired
 * difference zero) does not stop the layout-level one, it is only recorded. */
static void layouts_binary(const layouts_variant *baseline, const layouts_variant *candidate,
                           size_t n_blocks, const layouts_options *o, layouts_comparison *c)
{
    comparison_options options = {.method = o->method, .paired = true,
                                  .confidence = o->confidence, .margin = o->margin,
                                  .higher_is_better = o->higher_is_better};
    c->binary_status = compare_samples(baseline->units[0], n_blocks, candidate->units[0],
                                       n_blocks, &options, &c->binary);
    if (c->binary_status != STATS_OK)
        c->binary.ratio = c->binary.ci_low = c->binary.ci_high = c->binary.p_value = NAN;
}

static stats_status layouts_locations(const layouts_table *t, comparison_method method,
                                      layouts_comparison *c)
{
    size_t units = t->n_baseline + t->n_candidate;
    double *all = malloc(units * sizeof *all);
    if (all == NULL)
        return STATS_ERR_NOMEM;
    stats_status st = layouts_unit_locations(t, method, all);
    c->baseline_locations = all;
    c->candidate_locations = all + t->n_baseline;
    return st;
}

static void layouts_begin(const layouts_variant *baseline, const layouts_variant *candidate,
                          size_t n_blocks, const layouts_options *o, layouts_comparison *c)
{
    *c = (layouts_comparison){
        .method_name = layouts_method_name(o->method),
        .n_baseline = baseline->n_units, .n_candidate = candidate->n_units,
        .n_blocks = n_blocks, .confidence = o->confidence, .needed_layouts = -1,
        .binary_status = STATS_ERR_DOMAIN,
    };
}

/* Everything that needs the block-adjusted table: the locations, the test between them,
 * the variance parts and the values' rounding. */
static stats_status layouts_analyse(const layouts_variant *baseline,
                                    const layouts_variant *candidate, size_t n_blocks,
                                    const layouts_options *o, layouts_comparison *c,
                                    shift_result *shift, stats_resolution *resolution)
{
    layouts_table table = {0};
    stats_status st = layouts_table_build(baseline, candidate, n_blocks, &table);
    if (st != STATS_OK)
        return st;
    layouts_begin(baseline, candidate, n_blocks, o, c);
    st = layouts_locations(&table, o->method, c);
    if (st == STATS_OK)
        st = layouts_stage2(c, o->method, o->confidence, shift);
    if (st == STATS_OK)
        st = layouts_spread(&table, o->confidence, c);
    if (st == STATS_OK)
        st = layouts_resolution(baseline, candidate, n_blocks, resolution);
    layouts_table_free(&table);
    return st;
}

stats_status layouts_compare(const layouts_variant *baseline, const layouts_variant *candidate,
                             size_t n_blocks, const layouts_options *options,
                             layouts_comparison *out)
{
    if (out == NULL || !layouts_options_ok(options))
        return STATS_ERR_DOMAIN;
    memset(out, 0, sizeof *out);
    shift_result shift = {0};
    stats_resolution resolution = {0};
    stats_status st = layouts_analyse(baseline, candidate, n_blocks, options, out, &shift,
                                      &resolution);
    if (st != STATS_OK) {
        layouts_comparison_free(out);
        return st;
    }
    layouts_settle_point(&shift, options->confidence);
    out->relative_step = expm1(resolution.log_step);
    out->resolution_limited = layouts_widen(&shift, resolution.log_step, out->dither);
    layouts_fill_shift(&shift, out);
    layouts_decide(&shift, options, out);
    layouts_binary(baseline, candidate, n_blocks, options, out);
    return STATS_OK;
}

void layouts_comparison_free(layouts_comparison *c)
{
    if (c == NULL)
        return;
    free(c->baseline_locations); /* one allocation holds both variants' locations */
    c->baseline_locations = c->candidate_locations = NULL;
}

bool layouts_within_noise(const layouts_comparison *c, double binary_ratio)
{
    bool claimed = c->decision.kind == VERDICT_BETTER || c->decision.kind == VERDICT_WORSE;
    return !claimed && binary_ratio > 0.0 && fabs(log(binary_ratio)) <= c->binary_noise_band;
}
