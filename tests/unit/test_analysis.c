/* Unit tests for core/analysis.c: the levels intervals get under each adjustment, BH's
 * unselected comparisons, comparisons of several machines pooled (analysis_fleet.c), and the
 * quantile method's shift function, suggestion and refusals. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "core/analysis.h"
#include "core/stats_error.h"
#include "common/error.h"
#include "stats/meta_analysis.h"

enum { BLOCKS = 20, SERIES = 5 };

/* A baseline of continuous-looking values, and candidates at exp(shift +/- spread) of it,
 * alternating, so that the paired log differences have mean `shift` and a known spread. */
static void fill(double *baseline, double (*candidates)[BLOCKS], const double *shift,
                 const double *spread, size_t count)
{
    for (size_t i = 0; i < BLOCKS; i++) {
        baseline[i] = 1.2345678901 + 0.0131 * (double)i;
        for (size_t k = 0; k < count; k++)
            candidates[k][i] = baseline[i] * exp(shift[k] + (i % 2 ? spread[k] : -spread[k]));
    }
}

/* Three clear effects and one null whose paired t interval lies inside +/-1% at
 * 1 - 3 * 0.05 / 4 (BH's false-coverage level with 3 discoveries) but not at 1 - 0.05 / 4:
 * half-widths 0.0089 and 0.0110 on the log scale against log(1.01) = 0.00995. */
static void test_bh_unselected_gets_bonferroni(void **state)
{
    (void)state;
    double baseline[BLOCKS], candidates[4][BLOCKS];
    const double shift[] = {0.1, 0.12, 0.15, 0.0}, spread[] = {0.01, 0.01, 0.01, 0.01706};
    fill(baseline, candidates, shift, spread, 4);
    analysis_series series[SERIES] = {
        {.point = "p", .metric = "wall", .variant = "A", .values = baseline, .n = BLOCKS}};
    const char *names[] = {"B", "C", "D", "E"};
    for (size_t k = 0; k < 4; k++)
        series[k + 1] = (analysis_series){.point = "p", .metric = "wall", .variant = names[k],
                                          .values = candidates[k], .n = BLOCKS};
    analysis_options o = {.method = METHOD_WELCH, .paired = true, .confidence = 0.95,
                          .margin = 0.01, .adjust = ADJUST_BH};
    analysis_result r;
    verdict_error err = {0};
    assert_int_equal(analysis_run(series, SERIES, &o, &r, &err), 0);
    assert_int_equal(r.n_comparisons, 4);
    for (size_t k = 0; k < 3; k++) {
        assert_int_equal(r.comparisons[k].result.decision.kind, VERDICT_WORSE);
        assert_true(fabs(r.comparisons[k].result.confidence - (1 - 3 * 0.05 / 4)) < 1e-12);
    }
    const comparison *null = &r.comparisons[3].result;
    assert_true(r.comparisons[3].p_adjusted > 0.05);
    assert_true(fabs(null->confidence - (1 - 0.05 / 4)) < 1e-12);
    assert_int_equal(null->decision.kind, VERDICT_INCONCLUSIVE);
    analysis_result_free(&r);

    /* the same null at the FCR level alone would have been called equivalent */
    o.adjust = ADJUST_NONE;
    o.confidence = 1 - 3 * 0.05 / 4;
    series[1] = series[4];
    assert_int_equal(analysis_run(series, 2, &o, &r, &err), 0);
    assert_int_equal(r.comparisons[0].result.decision.kind, VERDICT_EQUIVALENT);
    analysis_result_free(&r);
}

/* Holm: every interval at Bonferroni's level 1 - alpha / m. */
static void test_holm_levels(void **state)
{
    (void)state;
    double baseline[BLOCKS], candidates[2][BLOCKS];
    const double shift[] = {0.1, 0.0}, spread[] = {0.01, 0.01};
    fill(baseline, candidates, shift, spread, 2);
    analysis_series series[3] = {
        {.point = "p", .metric = "wall", .variant = "A", .values = baseline, .n = BLOCKS},
        {.point = "p", .metric = "wall", .variant = "B", .values = candidates[0], .n = BLOCKS},
        {.point = "p", .metric = "wall", .variant = "C", .values = candidates[1], .n = BLOCKS}};
    analysis_options o = {.method = METHOD_WELCH, .paired = true, .confidence = 0.95,
                          .margin = 0.01, .adjust = ADJUST_HOLM};
    analysis_result r;
    verdict_error err = {0};
    assert_int_equal(analysis_run(series, 3, &o, &r, &err), 0);
    for (size_t k = 0; k < 2; k++)
        assert_true(fabs(r.comparisons[k].result.confidence - 0.975) < 1e-12);
    analysis_result_free(&r);
}

/* Machine m's values: a baseline and a candidate exp(effect[m] +/- noise) of it. */
static void fleet_values(double *base, double *cand, double effect, double noise, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        base[i] = 0.02 + 0.0003 * (double)(i % 5);
        cand[i] = base[i] * exp(effect + (i % 2 ? noise : -noise) * (1.0 + 0.1 * (double)i));
    }
}

static void build_fleet(analysis_series *series, double (*values)[2][BLOCKS], const double *effect,
                        const char *const *machines, size_t k)
{
    for (size_t m = 0; m < k; m++) {
        fleet_values(values[m][0], values[m][1], effect[m], 0.01, BLOCKS);
        for (size_t v = 0; v < 2; v++)
            series[2 * m + v] = (analysis_series){
                .point = "p", .metric = "wall", .variant = v ? "B" : "A",
                .values = values[m][v], .n = BLOCKS, .machine = machines[m]};
    }
}

/* Three machines: one comparison each, and one pooled whose numbers are the meta-analysis of
 * the machines' mean paired log ratios and their squared standard errors. */
static void test_fleet_pools_the_machines(void **state)
{
    (void)state;
    double values[3][2][BLOCKS];
    const double effect[] = {0.20, 0.23, 0.25};
    const char *const machines[] = {"m1", "m2", "m3"};
    analysis_series series[6];
    build_fleet(series, values, effect, machines, 3);
    analysis_options o = {.method = METHOD_WILCOXON, .paired = true, .confidence = 0.95,
                          .margin = 0.01, .adjust = ADJUST_HOLM, .seed = 1};
    analysis_result r;
    verdict_error err = {0};
    assert_int_equal(analysis_run(series, 6, &o, &r, &err), 0);
    assert_int_equal(r.n_comparisons, 3);
    for (size_t k = 0; k < 3; k++) {
        assert_string_equal(analysis_comparison_machine(series, &r.comparisons[k]), machines[k]);
        assert_int_equal(r.comparisons[k].result.decision.kind, VERDICT_WORSE);
    }
    assert_int_equal(r.n_fleet, 1);
    const analysis_fleet *f = &r.fleet[0];
    assert_true(f->ok);
    assert_int_equal(f->n_machines, 3);
    assert_int_equal(f->n_worse, 3);
    double yi[3], vi[3];
    for (size_t m = 0; m < 3; m++) {
        double d[BLOCKS], mean = 0, ss = 0;
        for (size_t i = 0; i < BLOCKS; i++)
            mean += (d[i] = log(values[m][1][i]) - log(values[m][0][i])) / BLOCKS;
        for (size_t i = 0; i < BLOCKS; i++)
            ss += (d[i] - mean) * (d[i] - mean);
        yi[m] = mean;
        vi[m] = ss / (BLOCKS - 1) / BLOCKS;
    }
    meta_result want;
    assert_int_equal(meta_random_effects(yi, vi, 3, META_TAU2_REML, 0.95, &want, &err), 0);
    assert_true(fabs(f->ratio - exp(want.estimate)) < 1e-12);
    assert_true(fabs(f->ci_low - exp(want.ci_low)) < 1e-12);
    assert_true(fabs(f->predict_high - exp(want.pi_high)) < 1e-12);
    assert_true(f->predict_low < f->ci_low && f->predict_high > f->ci_high);
    assert_int_equal(f->decision.kind, VERDICT_WORSE);
    analysis_result_free(&r);
}

/* Better on one machine, worse on another: both counted, and one machine is no fleet. */
static void test_fleet_counts_disagreement_and_needs_two_machines(void **state)
{
    (void)state;
    double values[2][2][BLOCKS];
    const double effect[] = {-0.2, 0.2};
    const char *const machines[] = {"fast", "slow"};
    analysis_series series[4];
    build_fleet(series, values, effect, machines, 2);
    analysis_options o = {.method = METHOD_WILCOXON, .paired = true, .confidence = 0.95,
                          .margin = 0.01, .adjust = ADJUST_HOLM, .seed = 1};
    analysis_result r;
    verdict_error err = {0};
    assert_int_equal(analysis_run(series, 4, &o, &r, &err), 0);
    assert_int_equal(r.n_fleet, 1);
    assert_int_equal(r.fleet[0].n_better, 1);
    assert_int_equal(r.fleet[0].n_worse, 1);
    assert_int_equal(r.fleet[0].decision.kind, VERDICT_INCONCLUSIVE);
    analysis_result_free(&r);
    assert_int_equal(analysis_run(series, 2, &o, &r, &err), 0);
    assert_int_equal(r.n_fleet, 0);
    analysis_result_free(&r);
}

/* Each statistics status gets its own kind, and a message naming what was being done. */
static void test_stats_status_as_error(void **state)
{
    (void)state;
    verdict_error err = {0};
    assert_int_equal(stats_error_set(&err, STATS_ERR_NOMEM, "analysis"), -1);
    assert_true(error_is(&err, ERROR_NO_MEMORY));
    assert_string_equal(err.message, "out of memory during analysis");
    stats_error_set(&err, STATS_ERR_TOO_FEW, "pooling");
    assert_true(error_is(&err, ERROR_BAD_INPUT));
    assert_string_equal(err.message, "pooling: too few observations");
    stats_error_set(&err, STATS_ERR_DEGENERATE, "pooling");
    assert_true(error_is(&err, ERROR_BAD_INPUT));
    stats_error_set(&err, STATS_ERR_DOMAIN, "adjusting the p-values");
    assert_true(error_is(&err, ERROR_INTERNAL));
    assert_non_null(strstr(err.message, "adjusting the p-values: "));
}

static bool has_warning(const analysis_result *r, const char *code)
{
    for (size_t i = 0; i < r->n_warnings; i++)
        if (strcmp(r->warnings[i].code, code) == 0)
            return true;
    return false;
}

/* Two-mode runs (every third slowed by 25%), B 3% slower in every run. */
static void two_mode_values(double *a, double *b, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        a[i] = 0.042 * (1.0 + 0.002 * (double)(i % 7)) * (i % 3 == 0 ? 1.25 : 1.0);
        b[i] = 0.042 * 1.03 * (1.0 + 0.002 * (double)((i + 3) % 7)) * (i % 3 == 1 ? 1.25 : 1.0);
    }
}

/* METHOD_QUANTILE: the comparison is the quantile's, with the shift function beside it
 * (increasing deciles of each variant and their ratios); the default method on the same
 * skewed runs suggests it (try-quantile), the quantile method itself does not. */
static void test_quantile_method(void **state)
{
    (void)state;
    double a[30], b[30];
    two_mode_values(a, b, 30);
    analysis_series series[2] = {
        {.point = "p", .metric = "wall", .variant = "A", .values = a, .n = 30},
        {.point = "p", .metric = "wall", .variant = "B", .values = b, .n = 30}};
    analysis_options o = {.method = METHOD_QUANTILE, .paired = true, .confidence = 0.95,
                          .margin = 0.01, .adjust = ADJUST_HOLM, .seed = 1, .quantile = 0.2};
    analysis_result r;
    verdict_error err = {0};
    assert_int_equal(analysis_run(series, 2, &o, &r, &err), 0);
    const analysis_comparison *c = &r.comparisons[0];
    assert_true(c->ok);
    assert_string_equal(c->result.method_name, "quantile-hd-swap");
    assert_true(c->result.quantile == 0.2);
    assert_int_equal(c->result.decision.kind, VERDICT_WORSE);
    assert_true(c->has_shift_function);
    for (size_t k = 0; k < ANALYSIS_DECILES; k++) {
        const analysis_decile *d = &c->shift_function[k];
        assert_true(fabs(d->q - 0.1 * (double)(k + 1)) < 1e-12);
        assert_true(fabs(d->ratio - d->candidate / d->baseline) < 1e-15);
        if (k > 0)
            assert_true(d->baseline > c->shift_function[k - 1].baseline);
    }
    assert_false(has_warning(&r, "try-quantile"));
    analysis_result_free(&r);

    o.method = METHOD_WILCOXON;
    assert_int_equal(analysis_run(series, 2, &o, &r, &err), 0);
    assert_false(r.comparisons[0].has_shift_function);
    assert_true(has_warning(&r, "try-quantile"));
    analysis_result_free(&r);

    for (size_t i = 0; i < 30; i++) /* symmetric runs: nothing to suggest */
        a[i] = b[i] = 0.042 * (1.0 + 0.001 * (double)((i * 7) % 30));
    assert_int_equal(analysis_run(series, 2, &o, &r, &err), 0);
    assert_false(has_warning(&r, "try-quantile"));
    analysis_result_free(&r);
}

/* Layout twins and a fleet's pooled ratio are not the quantile's: refused by name, never
 * computed with another method. */
static void test_quantile_refusals(void **state)
{
    (void)state;
    double v[4][BLOCKS];
    for (size_t s = 0; s < 4; s++)
        for (size_t i = 0; i < BLOCKS; i++)
            v[s][i] = 1.0 + 0.01 * (double)((i * (s + 3)) % 11) + 0.05 * (double)(s / 2);
    analysis_series series[4];
    for (size_t s = 0; s < 4; s++)
        series[s] = (analysis_series){.point = "p", .metric = "wall",
                                      .variant = s < 2 ? "A" : "B", .layout = s % 2,
                                      .n_layouts = 2, .values = v[s], .n = BLOCKS};
    analysis_options o = {.method = METHOD_QUANTILE, .paired = true, .confidence = 0.95,
                          .margin = 0.01, .adjust = ADJUST_HOLM, .seed = 1};
    analysis_result r;
    verdict_error err = {0};
    assert_int_equal(analysis_run(series, 4, &o, &r, &err), 0);
    assert_int_equal(r.n_comparisons, 1);
    assert_false(r.comparisons[0].ok);
    assert_non_null(strstr(r.comparisons[0].error, "--method quantile does not compare across "
                                                   "layout twins"));
    analysis_result_free(&r);

    double values[3][2][BLOCKS];
    const double effect[] = {0.20, 0.23, 0.25};
    const char *const machines[] = {"m1", "m2", "m3"};
    analysis_series fleet[6];
    build_fleet(fleet, values, effect, machines, 3);
    assert_int_equal(analysis_run(fleet, 6, &o, &r, &err), 0);
    assert_int_equal(r.n_comparisons, 3);
    for (size_t k = 0; k < 3; k++)
        assert_true(r.comparisons[k].ok && r.comparisons[k].has_shift_function);
    assert_int_equal(r.n_fleet, 1);
    assert_false(r.fleet[0].ok);
    assert_non_null(strstr(r.fleet[0].error, "--method quantile"));
    analysis_result_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bh_unselected_gets_bonferroni),
        cmocka_unit_test(test_holm_levels),
        cmocka_unit_test(test_fleet_pools_the_machines),
        cmocka_unit_test(test_fleet_counts_disagreement_and_needs_two_machines),
        cmocka_unit_test(test_stats_status_as_error),
        cmocka_unit_test(test_quantile_method),
        cmocka_unit_test(test_quantile_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
