/* Seeded simulation of extensions (`verdict run --more`): A/A experiments of 10 blocks
 * extended by 10 and then 20 while inconclusive keep the error rate; full-level looks do not. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdio.h>

#include "core/experiment.h"
#include "core/stopping.h"
#include "stats/comparison.h"

#define DATASETS 2000
#define ALPHA 0.05
/* the sequence: 10 blocks, then --more 10, then --more 20 */
static const size_t look_blocks[] = {10, 20, 40};
#define LOOKS (sizeof look_blocks / sizeof look_blocks[0])

typedef enum { NOISE_LOGNORMAL, NOISE_TWO_MODE, NOISE_T3, NOISE_ROUNDED, NOISE_DISCRETE } noise;

static const char *noise_name(noise model)
{
    static const char *const names[] = {"lognormal", "two-mode", "t(3)", "rounded 2 digits",
                                        "discrete ticks"};
    return names[model];
}

/* One measurement of a 100-unit workload in a block whose machine state is `block`. */
static double draw(gsl_rng *rng, noise model, double block)
{
    double x;
    switch (model) {
    case NOISE_LOGNORMAL: x = gsl_ran_gaussian(rng, 0.02); break;
    case NOISE_TWO_MODE: x = gsl_ran_gaussian(rng, 0.01) + (gsl_rng_uniform(rng) < 0.3 ? 0.1 : 0); break;
    case NOISE_T3: x = 0.02 * gsl_ran_tdist(rng, 3.0); break;
    default: x = gsl_ran_gaussian(rng, 0.02); break;
    }
    double value = 100.0 * exp(block + x);
    if (model == NOISE_ROUNDED) /* two significant digits: many exact ties */
        value = round(value);
    else if (model == NOISE_DISCRETE) /* a clock of 4-unit ticks: a handful of values */
        value = 4.0 * round(value / 4.0);
    return value;
}

/* The level of look k (0: the planned look) with `reserve` kept for extensions. */
static double look_confidence(size_t k, double reserve)
{
    if (k == 0)
        return 1.0 - stopping_planned_alpha(ALPHA, reserve, 1);
    return 1.0 - stopping_extension_alpha(ALPHA, reserve, look_blocks[0], look_blocks[k - 1],
                                          look_blocks[k]);
}

/* One experiment: the looks in turn, extended while inconclusive; the last verdict. Full
 * level: every look at 95%, as a run that ignores its earlier looks would report. */
static verdict_kind extended_run(gsl_rng *rng, noise model, double shift, bool full_level,
                                 double *baseline, double *candidate)
{
    size_t n = look_blocks[LOOKS - 1];
    for (size_t i = 0; i < n; i++) {
        double block = gsl_ran_gaussian(rng, 0.05);
        baseline[i] = draw(rng, model, block);
        candidate[i] = draw(rng, model, block + shift);
    }
    verdict_kind kind = VERDICT_INCONCLUSIVE;
    for (size_t k = 0; k < LOOKS && kind == VERDICT_INCONCLUSIVE; k++) {
        comparison_options o = {.method = METHOD_WILCOXON, .paired = true, .margin = 0.01,
                                .confidence = full_level ? 1.0 - ALPHA
                                    : look_confidence(k, EXPERIMENT_DEFAULT_RESERVE)};
        comparison c;
        stats_status status = compare_samples(baseline, look_blocks[k], candidate,
                                              look_blocks[k], &o, &c);
        /* every difference zero: no comparison, hence no claim; the next look may have one */
        assert_true(status == STATS_OK || status == STATS_ERR_DEGENERATE);
        kind = status == STATS_OK ? c.decision.kind : VERDICT_INCONCLUSIVE;
    }
    return kind;
}

static double claim_rate(noise model, double shift, bool full_level, uint64_t seed)
{
    double baseline[64], candidate[64];
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, (unsigned long)seed);
    int claims = 0;
    for (int d = 0; d < DATASETS; d++) {
        verdict_kind k = extended_run(rng, model, shift, full_level, baseline, candidate);
        claims += k == VERDICT_BETTER || k == VERDICT_WORSE;
    }
    gsl_rng_free(rng);
    return (double)claims / DATASETS;
}

/* The spending adds up: planned share plus every extension's stays within alpha, for any
 * sequence of extensions, and a look that adds nothing spends nothing. */
static void test_spending_adds_up(void **state)
{
    (void)state;
    double spent = stopping_planned_alpha(ALPHA, 0.2, 1);
    assert_true(fabs(spent - 0.04) < 1e-15);
    size_t from = 10;
    for (size_t to = 11; to < 100000; to = to * 3 / 2 + 1) {
        spent += stopping_extension_alpha(ALPHA, 0.2, 10, from, to);
        from = to;
    }
    assert_true(spent < ALPHA);
    assert_true(spent > ALPHA - 1e-4); /* and most of the reserve is usable */
    assert_true(stopping_extension_alpha(ALPHA, 0.2, 10, 20, 20) == 0.0);
    assert_true(fabs(stopping_extension_alpha(ALPHA, 0.2, 10, 10, 20) - 0.005) < 1e-15);
    assert_true(fabs(stopping_planned_alpha(ALPHA, 0.2, 4) - 0.01) < 1e-15);
}

/* The advised extension is the smallest that shrinks the interval enough at its own
 * level: more than the sqrt(n) rule at the first look's level would say. */
static void test_advised_extension_is_the_smallest(void **state)
{
    (void)state;
    double level = 1.0 - stopping_planned_alpha(ALPHA, 0.2, 1), hw = 0.10, target = 0.05;
    size_t more = stopping_blocks_to_decide(ALPHA, 0.2, 10, 10, 1, level, hw, target);
    assert_true(more > 30); /* at 96% the sqrt rule says 4x the blocks: 30 more */
    double z_now = gsl_cdf_ugaussian_Pinv(1.0 - (1.0 - level) / 2.0);
    for (size_t m = more - 1; m <= more; m++) {
        double a = stopping_extension_alpha(ALPHA, 0.2, 10, 10, 10 + m);
        double shrunk = hw * gsl_cdf_ugaussian_Pinv(1.0 - a / 2.0) / z_now * sqrt(10.0 / (10 + m));
        assert_true(m == more ? shrunk < target : shrunk >= target);
    }
    assert_int_equal(stopping_blocks_to_decide(ALPHA, 0.2, 10, 10, 1, level, hw, 1e-9), 0);
}

/* The acceptance: A/A with extensions called better or worse at most 5%, on every
 * noise model including tied and discrete values; reporting each look at the full level
 * breaks it (the test can fail). */
static void test_extensions_keep_error_rate(void **state)
{
    (void)state;
    for (noise model = NOISE_LOGNORMAL; model <= NOISE_DISCRETE; model++) {
        double kept = claim_rate(model, 0.0, false, 20261201 + model);
        double full = claim_rate(model, 0.0, true, 20261201 + model);
        printf("A/A, 10 then --more 10 then --more 20, %-16s: better or worse in %.4f "
               "(each look at 95%%: %.4f)\n", noise_name(model), kept, full);
        if (kept > 0.05)
            fail_msg("%s: extended A/A called better or worse in %.4f", noise_name(model), kept);
        if (model == NOISE_LOGNORMAL)
            assert_true(full > 0.06); /* the trap: every look another chance */
    }
}

/* Extensions still find a real effect the first look could not: +2% at this noise. */
static void test_extensions_find_effect(void **state)
{
    (void)state;
    double first_only = 0, extended = claim_rate(NOISE_LOGNORMAL, log(1.02), false, 7);
    double baseline[64], candidate[64];
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, 7);
    for (int d = 0; d < DATASETS; d++) {
        for (size_t i = 0; i < 10; i++) {
            double block = gsl_ran_gaussian(rng, 0.05);
            baseline[i] = draw(rng, NOISE_LOGNORMAL, block);
            candidate[i] = draw(rng, NOISE_LOGNORMAL, block + log(1.02));
        }
        comparison_options o = {.method = METHOD_WILCOXON, .paired = true, .margin = 0.01,
                                .confidence = look_confidence(0, EXPERIMENT_DEFAULT_RESERVE)};
        comparison c;
        assert_int_equal(compare_samples(baseline, 10, candidate, 10, &o, &c), STATS_OK);
        first_only += c.decision.kind == VERDICT_WORSE;
    }
    gsl_rng_free(rng);
    first_only /= DATASETS;
    printf("+2%% at 2%% noise: found at the first look %.3f, with the extensions %.3f\n",
           first_only, extended);
    assert_true(extended > first_only + 0.2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_spending_adds_up),
        cmocka_unit_test(test_advised_extension_is_the_smallest),
        cmocka_unit_test(test_extensions_keep_error_rate),
        cmocka_unit_test(test_extensions_find_effect),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
