/* Seeded simulations of the statistics contract: interval coverage, A/A false alarms,
 * power, small samples and family-wise error, over thousands of synthetic datasets. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/analysis.h"
#include "core/stopping.h"
#include "stats/comparison.h"

#define DATASETS 4000

typedef enum { NOISE_LOGNORMAL, NOISE_T3, NOISE_TWO_MODE } noise_model;

static const char *noise_name(noise_model model)
{
    return model == NOISE_LOGNORMAL ? "lognormal" : model == NOISE_T3 ? "t(3)" : "two-mode";
}

/* Log-scale noise of one measurement: sd about 2%, as on a quiet-ish machine. */
static double draw_noise(gsl_rng *rng, noise_model model)
{
    switch (model) {
    case NOISE_LOGNORMAL: return gsl_ran_gaussian(rng, 0.02);
    case NOISE_T3: return 0.02 * gsl_ran_tdist(rng, 3.0);
    case NOISE_TWO_MODE:
        /* a slow episode (about +10%) hits 30% of the runs */
        return gsl_ran_gaussian(rng, 0.01) + (gsl_rng_uniform(rng) < 0.3 ? 0.1 : 0.0);
    }
    return 0.0;
}

/* Baseline and candidate of n blocks; paired data share a per-block machine state. */
static void draw_dataset(gsl_rng *rng, noise_model model, bool paired, size_t n, double shift,
                         double *baseline, double *candidate)
{
    for (size_t i = 0; i < n; i++) {
        double block = paired ? gsl_ran_gaussian(rng, 0.05) : 0.0;
        baseline[i] = 100.0 * exp(block + draw_noise(rng, model));
        candidate[i] = 100.0 * exp(block + shift + draw_noise(rng, model));
    }
}

typedef struct {
    int covered, better, worse, total;
} sim_counts;

static sim_counts simulate(uint64_t seed, noise_model model, bool paired, size_t n, double shift,
                           comparison_method method)
{
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, (unsigned long)seed);
    double *baseline = malloc(n * sizeof *baseline), *candidate = malloc(n * sizeof *candidate);
    comparison_options options = {.method = method, .paired = paired, .confidence = 0.95,
                                  .margin = 0.01, .seed = seed};
    sim_counts counts = {0, 0, 0, 0};
    for (int d = 0; d < DATASETS; d++) {
        draw_dataset(rng, model, paired, n, shift, baseline, candidate);
        comparison c;
        assert_int_equal(compare_samples(baseline, n, candidate, n, &options, &c), STATS_OK);
        double truth = exp(shift);
        counts.covered += c.ci_low <= truth && truth <= c.ci_high;
        counts.better += c.decision.kind == VERDICT_BETTER;
        counts.worse += c.decision.kind == VERDICT_WORSE;
        counts.total++;
    }
    free(baseline);
    free(candidate);
    gsl_rng_free(rng);
    return counts;
}

static void expect_coverage(noise_model model, bool paired, comparison_method method)
{
    sim_counts c = simulate(20261130 + model * 10 + paired, model, paired, 20, log(1.03), method);
    double coverage = (double)c.covered / c.total;
    printf("coverage %-9s %-8s %s: %.4f\n", noise_name(model), paired ? "paired" : "unpaired",
           comparison_method_name(method, paired), coverage);
    if (coverage < 0.94 || coverage > 0.96)
        fail_msg("coverage %.4f outside [0.94, 0.96]", coverage);
}

static void test_coverage_rank_tests(void **state)
{
    (void)state;
    for (int model = NOISE_LOGNORMAL; model <= NOISE_TWO_MODE; model++) {
        expect_coverage((noise_model)model, true, METHOD_WILCOXON);
        expect_coverage((noise_model)model, false, METHOD_WILCOXON);
    }
}

static void test_coverage_t_on_lognormal(void **state)
{
    (void)state;
    expect_coverage(NOISE_LOGNORMAL, true, METHOD_WELCH);
    expect_coverage(NOISE_LOGNORMAL, false, METHOD_WELCH);
}

static void test_aa_false_alarms(void **state)
{
    (void)state;
    for (int model = NOISE_LOGNORMAL; model <= NOISE_TWO_MODE; model++)
        for (int paired = 0; paired <= 1; paired++) {
            sim_counts c = simulate(777 + model * 2 + paired, (noise_model)model, paired, 20, 0.0,
                                    METHOD_WILCOXON);
            double rate = (double)(c.better + c.worse) / c.total;
            printf("A/A %-9s %-8s: better or worse in %.4f\n", noise_name((noise_model)model),
                   paired ? "paired" : "unpaired", rate);
            if (rate > 0.055)
                fail_msg("A/A called better or worse in %.4f of datasets", rate);
        }
}

static void test_power_five_percent(void **state)
{
    (void)state;
    sim_counts c = simulate(4242, NOISE_LOGNORMAL, true, 20, log(1.05), METHOD_WILCOXON);
    double found = (double)c.worse / c.total; /* lower is better: a 5% rise is worse */
    printf("power, +5%% at 2%% noise, 20 paired blocks: %.4f\n", found);
    assert_true(found >= 0.95);
    assert_int_equal(c.better, 0);
}

/* Three runs per side, as in the seeds' pgbench runs: never a claim, always a number. */
static void test_three_runs_never_decide(void **state)
{
    (void)state;
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, 3);
    for (int paired = 0; paired <= 1; paired++)
        for (int d = 0; d < 500; d++) {
            double b[3], x[3];
            draw_dataset(rng, NOISE_LOGNORMAL, paired, 3, log(1.2), b, x);
            comparison_options o = {.method = METHOD_WILCOXON, .paired = paired,
                                    .confidence = 0.95, .margin = 0.01};
            comparison c;
            assert_int_equal(compare_samples(b, 3, x, 3, &o, &c), STATS_OK);
            assert_int_equal(c.decision.kind, VERDICT_INCONCLUSIVE);
            assert_int_equal(c.decision.reason, UNDECIDED_CONFIDENCE);
            assert_true(c.decision.needed_blocks >= 1);
        }
    gsl_rng_free(rng);
}

/* Five A/A candidates against one baseline: Holm/Bonferroni keeps the chance of any
 * false claim in the family near 5%; without adjustment it would be far higher. */
static void test_family_wise_error(void **state)
{
    (void)state;
    enum { VARIANTS = 6, N = 20, FAMILIES = 1000 };
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, 99);
    static double values[VARIANTS][N];
    analysis_series series[VARIANTS];
    const char *names[VARIANTS] = {"A", "B", "C", "D", "E", "F"};
    int any_adjusted = 0, any_raw = 0;
    for (int f = 0; f < FAMILIES; f++) {
        for (int v = 0; v < VARIANTS; v++) {
            for (int i = 0; i < N; i++)
                values[v][i] = 100.0 * exp(draw_noise(rng, NOISE_LOGNORMAL));
            series[v] = (analysis_series){"p", "wall", names[v], values[v], N, false};
        }
        for (int adjust = 0; adjust <= 1; adjust++) {
            analysis_options o = {.method = METHOD_WILCOXON, .confidence = 0.95, .margin = 0.01,
                                  .adjust = adjust ? ADJUST_HOLM : ADJUST_NONE};
            analysis_result r;
            char err[128];
            assert_int_equal(analysis_run(series, VARIANTS, &o, &r, err, sizeof err), 0);
            int claims = 0;
            for (size_t k = 0; k < r.n_comparisons; k++)
                claims += r.comparisons[k].result.decision.kind == VERDICT_BETTER ||
                          r.comparisons[k].result.decision.kind == VERDICT_WORSE;
            if (adjust)
                any_adjusted += claims > 0;
            else
                any_raw += claims > 0;
            analysis_result_free(&r);
        }
    }
    gsl_rng_free(rng);
    printf("family-wise error, 5 A/A comparisons: adjusted %.3f, unadjusted %.3f\n",
           (double)any_adjusted / FAMILIES, (double)any_raw / FAMILIES);
    assert_true(any_adjusted <= 0.06 * FAMILIES);
    assert_true(any_raw > 0.12 * FAMILIES);
}

/* One A/A run under a stopping rule: looks at planned block counts (verdict's rule), or
 * after every block from the fifth on at the full level (the naive rule). */
static verdict_kind adaptive_aa_run(gsl_rng *rng, noise_model model, const stopping_rule *rule,
                                    bool naive, double *baseline, double *candidate)
{
    comparison_options o = {.method = METHOD_WILCOXON, .paired = true, .margin = 0.01,
                            .confidence = naive ? 0.95 : stopping_look_confidence(0.95, rule)};
    draw_dataset(rng, model, true, rule->max_blocks, 0.0, baseline, candidate);
    for (size_t n = 5; n <= rule->max_blocks; n++) {
        if (!naive && !stopping_is_look(rule, n))
            continue;
        comparison c;
        assert_int_equal(compare_samples(baseline, n, candidate, n, &o, &c), STATS_OK);
        if (c.decision.kind != VERDICT_INCONCLUSIVE || n == rule->max_blocks)
            return c.decision.kind;
    }
    return VERDICT_INCONCLUSIVE;
}

static void test_adaptive_stopping_keeps_error_rate(void **state)
{
    (void)state;
    const stopping_rule rule = {10, 100, 1.5}; /* verdict's defaults */
    double baseline[100], candidate[100];
    for (int naive = 0; naive <= 1; naive++) {
        gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
        gsl_rng_set(rng, 2026);
        int claims = 0, runs = naive ? 1000 : DATASETS;
        for (int d = 0; d < runs; d++) {
            verdict_kind k = adaptive_aa_run(rng, NOISE_TWO_MODE, &rule, naive, baseline, candidate);
            claims += k == VERDICT_BETTER || k == VERDICT_WORSE;
        }
        gsl_rng_free(rng);
        double rate = (double)claims / runs;
        printf("A/A under %s stopping: better or worse in %.4f\n",
               naive ? "naive (p < 0.05 after any block)" : "verdict's adaptive", rate);
        if (naive)
            assert_true(rate > 0.10); /* the trap the rule avoids */
        else if (rate > 0.055)
            fail_msg("adaptive A/A called better or worse in %.4f", rate);
    }
}

/* Adaptive stopping still finds real effects, mostly at the first looks. */
static void test_adaptive_stopping_finds_effect(void **state)
{
    (void)state;
    const stopping_rule rule = {10, 100, 1.5};
    comparison_options o = {.method = METHOD_WILCOXON, .paired = true, .margin = 0.01,
                            .confidence = stopping_look_confidence(0.95, &rule)};
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, 7);
    double baseline[100], candidate[100];
    int found = 0;
    for (int d = 0; d < 500; d++) {
        draw_dataset(rng, NOISE_LOGNORMAL, true, 100, log(1.05), baseline, candidate);
        for (size_t n = 10; n <= 100; n++) {
            if (!stopping_is_look(&rule, n))
                continue;
            comparison c;
            assert_int_equal(compare_samples(baseline, n, candidate, n, &o, &c), STATS_OK);
            if (c.decision.kind != VERDICT_INCONCLUSIVE) {
                found += c.decision.kind == VERDICT_WORSE;
                break;
            }
        }
    }
    gsl_rng_free(rng);
    printf("adaptive, +5%% at 2%% noise: found in %d of 500\n", found);
    assert_true(found >= 490);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_coverage_rank_tests),
        cmocka_unit_test(test_coverage_t_on_lognormal),
        cmocka_unit_test(test_aa_false_alarms),
        cmocka_unit_test(test_power_five_percent),
        cmocka_unit_test(test_three_runs_never_decide),
        cmocka_unit_test(test_family_wise_error),
        cmocka_unit_test(test_adaptive_stopping_keeps_error_rate),
        cmocka_unit_test(test_adaptive_stopping_finds_effect),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
