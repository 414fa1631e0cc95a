/* Alpha spending: the published Lan-DeMets boundaries, the null crossing probabilities by
 * Monte Carlo over Brownian paths, and extensions that keep alpha however they are chosen. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>

#include "core/stopping.h"
#include "stats/spending.h"

#define ALPHA 0.05
#define PATHS 200000
#define MAX_LOOKS 16

/* Jennison & Turnbull (2000), table 7.6 and R's ldbounds / gsDesign (issue 27): two-sided
 * alpha 0.05, 5 equally spaced looks, Lan-DeMets spending, to three decimals. */
static const double equal_fractions[] = {0.2, 0.4, 0.6, 0.8, 1.0};
static const double obrien_fleming[] = {4.877, 3.357, 2.680, 2.290, 2.031};
static const double pocock[] = {2.438, 2.427, 2.410, 2.397, 2.386};

static void boundaries(spending_kind kind, double reserve, const double *fractions,
                       size_t looks, spending_look *out)
{
    spending_plan plan = {kind, ALPHA, reserve};
    verdict_error err = {0};
    int rc = spending_boundaries(&plan, fractions, looks, out, &err);
    if (rc != 0)
        printf("%s\n", err.message);
    assert_int_equal(rc, 0);
}

static void check_published(spending_kind kind, const double *want)
{
    spending_look looks[5];
    boundaries(kind, 0.0, equal_fractions, 5, looks);
    for (size_t k = 0; k < 5; k++) {
        printf("%s look %zu: z %.4f (published %.3f), nominal level %.6f\n", spending_name(kind),
               k + 1, looks[k].z, want[k], looks[k].nominal_alpha);
        assert_true(fabs(looks[k].z - want[k]) <= 0.002);
        assert_true(fabs(spending_look_confidence(&looks[k]) -
                         (1.0 - 2.0 * (1.0 - gsl_cdf_ugaussian_P(looks[k].z)))) < 1e-12);
    }
    assert_true(fabs(looks[4].alpha_spent - ALPHA) < 1e-15);
}

static void test_obrien_fleming_published(void **state)
{
    (void)state;
    check_published(SPENDING_OBRIEN_FLEMING, obrien_fleming);
}

static void test_pocock_published(void **state)
{
    (void)state;
    check_published(SPENDING_POCOCK, pocock);
}

/* One look at the whole information is the fixed-size test, whatever the function. */
static void test_single_look_is_fixed_test(void **state)
{
    (void)state;
    double whole = 1.0;
    for (int kind = SPENDING_OBRIEN_FLEMING; kind <= SPENDING_EQUAL; kind++) {
        spending_look look;
        boundaries((spending_kind)kind, 0.0, &whole, 1, &look);
        assert_true(fabs(look.z - gsl_cdf_ugaussian_Pinv(1.0 - ALPHA / 2.0)) < 1e-9);
        assert_true(fabs(spending_look_confidence(&look) - 0.95) < 1e-9);
    }
}

/* Equal spending accounts for the looks' correlation: each boundary is below Bonferroni's
 * (alpha/K at every look, today's core/stopping.h rule) and above the unadjusted 1.96. */
static void test_equal_below_bonferroni(void **state)
{
    (void)state;
    spending_look looks[5];
    boundaries(SPENDING_EQUAL, 0.0, equal_fractions, 5, looks);
    double bonferroni = spending_look_z(ALPHA / 5.0);
    for (size_t k = 0; k < 5; k++) {
        assert_true(fabs(looks[k].alpha_spent - ALPHA * (double)(k + 1) / 5.0) < 1e-15);
        assert_true(looks[k].z <= bonferroni + 1e-9);
        assert_true(looks[k].z > 1.96);
    }
    assert_true(fabs(looks[0].z - bonferroni) < 1e-9); /* the first look has no past */
    assert_true(looks[4].z < bonferroni - 0.05);
}

/* Share of PATHS Brownian paths whose |B(t_k)| / sqrt(t_k) first reaches z_k at look k. */
static void first_crossings(const double *fractions, const spending_look *looks, size_t n,
                            unsigned long seed, double *share)
{
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, seed);
    size_t count[MAX_LOOKS] = {0};
    for (size_t p = 0; p < PATHS; p++) {
        double b = 0, t = 0;
        for (size_t k = 0; k < n; k++) {
            b += gsl_ran_gaussian_ziggurat(rng, sqrt(fractions[k] - t));
            t = fractions[k];
            if (fabs(b) / sqrt(t) >= looks[k].z) {
                count[k]++;
                break;
            }
        }
    }
    gsl_rng_free(rng);
    for (size_t k = 0; k < n; k++)
        share[k] = (double)count[k] / PATHS;
}

/* Each look's crossing share is its spending increment within 4 Monte Carlo standard errors,
 * and all looks together spend alpha within 3. */
static void check_crossings(spending_kind kind, double reserve, const double *fractions,
                            size_t n, unsigned long seed)
{
    spending_look looks[MAX_LOOKS];
    double share[MAX_LOOKS], total = 0;
    boundaries(kind, reserve, fractions, n, looks);
    first_crossings(fractions, looks, n, seed, share);
    for (size_t k = 0; k < n; k++) {
        double want = looks[k].alpha_spent - (k ? looks[k - 1].alpha_spent : 0.0);
        double se = sqrt(fmax(want, 1.0 / PATHS) * (1 - want) / PATHS);
        printf("%s t=%.3f z=%.4f: crossed %.5f, spends %.5f\n", spending_name(kind),
               fractions[k], looks[k].z, share[k], want);
        assert_true(fabs(share[k] - want) <= 4.0 * se);
        total += share[k];
    }
    double want = looks[n - 1].alpha_spent;
    double se = sqrt(want * (1 - want) / PATHS);
    printf("%s: all looks crossed %.5f, alpha spent %.5f (MC se %.5f)\n", spending_name(kind),
           total, want, se);
    assert_true(fabs(total - want) <= 3.0 * se);
}

static void test_null_crossings_equal_looks(void **state)
{
    (void)state;
    check_crossings(SPENDING_OBRIEN_FLEMING, 0.0, equal_fractions, 5, 2701);
    check_crossings(SPENDING_POCOCK, 0.0, equal_fractions, 5, 2702);
    check_crossings(SPENDING_EQUAL, 0.0, equal_fractions, 5, 2703);
}

/* Unequal looks: today's adaptive schedule (10, 15, 23, 35, 53, 80, 100 blocks) and looks
 * at 10/50 ... 50/50 of a plan whose first look came early (5/50). */
static void test_null_crossings_unequal_looks(void **state)
{
    (void)state;
    const double geometric[] = {0.10, 0.15, 0.23, 0.35, 0.53, 0.80, 1.0};
    const double early[] = {5.0 / 50, 10.0 / 50, 20.0 / 50, 30.0 / 50, 40.0 / 50, 1.0};
    check_crossings(SPENDING_OBRIEN_FLEMING, 0.0, geometric, 7, 2704);
    check_crossings(SPENDING_POCOCK, 0.0, geometric, 7, 2705);
    check_crossings(SPENDING_EQUAL, 0.2, early, 6, 2706);
    check_crossings(SPENDING_OBRIEN_FLEMING, 0.2, early, 6, 2707);
}

/* Beyond the planned information the plan spends the reserve as core/stopping.h always did:
 * an extension from n1 to n2 blocks of a plan of n0 gets reserve alpha (n0/n1 - n0/n2). */
static void test_extension_spends_the_reserve(void **state)
{
    (void)state;
    spending_plan plan = {SPENDING_POCOCK, ALPHA, 0.2};
    const size_t steps[][3] = {{10, 10, 20}, {10, 20, 40}, {10, 15, 16}, {50, 50, 51},
                               {30, 45, 300}};
    for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++) {
        double n0 = (double)steps[i][0];
        double got = spending_extension_alpha(&plan, (double)steps[i][1] / n0,
                                              (double)steps[i][2] / n0);
        double today = stopping_extension_alpha(ALPHA, 0.2, steps[i][0], steps[i][1],
                                                steps[i][2]);
        assert_true(fabs(got - today) < 1e-15);
    }
    assert_true(spending_extension_alpha(&plan, 2.0, 2.0) == 0.0);
    assert_true(spending_extension_alpha(&plan, 2.0, 1.5) == 0.0);
    /* the planned looks spend (1 - reserve) alpha, then any extensions stay below alpha */
    assert_true(fabs(spending_cumulative(&plan, 1.0, 4, 5) - 0.04) < 1e-15);
    double spent = spending_cumulative(&plan, 1.0, 4, 5), from = 1.0;
    for (double to = 1.1; to < 1e6; to *= 1.7) {
        spent += spending_extension_alpha(&plan, from, to);
        from = to;
    }
    assert_true(spent < ALPHA && spent > ALPHA - 1e-5);
    plan.reserve = 0.0;
    assert_true(spending_extension_alpha(&plan, 1.0, 3.0) == 0.0);
    assert_true(isinf(spending_look_z(0.0)));
}

/* Extensions chosen after seeing the data, the worst way: a path close to its boundary gets a
 * small extension (many quick tries), one far from it a large one. Each extension at the
 * Bonferroni level of its increment; the total over planned looks and three extensions stays
 * within alpha (Monte Carlo, 3 standard errors). */
static void test_adaptive_extensions_keep_alpha(void **state)
{
    (void)state;
    spending_plan plan = {SPENDING_OBRIEN_FLEMING, ALPHA, 0.2};
    spending_look looks[5];
    boundaries(SPENDING_OBRIEN_FLEMING, 0.2, equal_fractions, 5, looks);
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, 2708);
    size_t rejected = 0;
    for (size_t p = 0; p < PATHS; p++) {
        double b = 0, t = 0;
        bool crossed = false;
        for (size_t k = 0; k < 5 && !crossed; k++) {
            b += gsl_ran_gaussian_ziggurat(rng, sqrt(equal_fractions[k] - t));
            t = equal_fractions[k];
            crossed = fabs(b) / sqrt(t) >= looks[k].z;
        }
        for (int e = 0; e < 3 && !crossed; e++) {
            double to = fabs(b) / sqrt(t) > 1.5 ? t * 1.1 : t * 3.0;
            double z = spending_look_z(spending_extension_alpha(&plan, t, to));
            b += gsl_ran_gaussian_ziggurat(rng, sqrt(to - t));
            t = to;
            crossed = fabs(b) / sqrt(t) >= z;
        }
        rejected += crossed;
    }
    gsl_rng_free(rng);
    double rate = (double)rejected / PATHS, se = sqrt(ALPHA * (1 - ALPHA) / PATHS);
    printf("planned looks + 3 data-chosen extensions: rejected %.5f (alpha %.2f)\n", rate,
           ALPHA);
    assert_true(rate <= ALPHA + 3.0 * se);
    assert_true(rate > 0.04 - 3.0 * se); /* the planned looks alone spend 0.04 */
}

/* Power and expected information at stopping over Brownian paths with drift theta (the
 * fixed-size test at t = 1 has 80% power at theta = 2.80), for planned looks and their z. */
static void operating(const double *fractions, const double *z, size_t n, double theta,
                      unsigned long seed, double *power, double *expected)
{
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, seed);
    size_t rejected = 0;
    double information = 0;
    for (size_t p = 0; p < PATHS / 2; p++) {
        double b = 0, t = 0;
        for (size_t k = 0; k < n; k++) {
            b += theta * (fractions[k] - t) + gsl_ran_gaussian_ziggurat(rng, sqrt(fractions[k] - t));
            t = fractions[k];
            if (fabs(b) / sqrt(t) >= z[k]) {
                rejected++;
                break;
            }
        }
        information += t;
    }
    gsl_rng_free(rng);
    *power = (double)rejected / (PATHS / 2);
    *expected = information / (PATHS / 2);
}

/* What each function costs and saves on today's look schedule (7 looks, 10 to 100 blocks):
 * every spending function loses little power against one fixed look (80%), and has more
 * than Bonferroni's equal split (core/stopping.h today), whose looks ignore their correlation
 * and spend only about 3.3% of the 5%. E[t], the information used on average, is reported. */
static void test_operating_characteristics(void **state)
{
    (void)state;
    const double looks7[] = {0.10, 0.15, 0.23, 0.35, 0.53, 0.80, 1.0};
    const double theta = gsl_cdf_ugaussian_Pinv(0.975) + gsl_cdf_ugaussian_Pinv(0.8);
    double z[7], power, expected, null_power, null_expected;
    for (size_t k = 0; k < 7; k++)
        z[k] = spending_look_z(ALPHA / 7.0);
    operating(looks7, z, 7, theta, 2709, &power, &expected);
    operating(looks7, z, 7, 0.0, 2710, &null_power, &null_expected);
    printf("%-15s power %.3f, E[t] %.3f under the alternative, %.3f under the null "
           "(rejects %.4f)\n", "bonferroni", power, expected, null_expected, null_power);
    double bonferroni_power = power;
    for (int kind = SPENDING_OBRIEN_FLEMING; kind <= SPENDING_EQUAL; kind++) {
        spending_look looks[7];
        boundaries((spending_kind)kind, 0.0, looks7, 7, looks);
        for (size_t k = 0; k < 7; k++)
            z[k] = looks[k].z;
        operating(looks7, z, 7, theta, 2711 + (unsigned long)kind, &power, &expected);
        operating(looks7, z, 7, 0.0, 2714 + (unsigned long)kind, &null_power, &null_expected);
        printf("%-15s power %.3f, E[t] %.3f under the alternative, %.3f under the null "
               "(rejects %.4f)\n", spending_name((spending_kind)kind), power, expected,
               null_expected, null_power);
        assert_true(power > 0.65 && power < 0.80 + 0.01);
        assert_true(power > bonferroni_power + 0.05);
    }
}

static void test_refusals(void **state)
{
    (void)state;
    spending_look looks[3];
    verdict_error err = {0};
    spending_plan plan = {SPENDING_POCOCK, ALPHA, 0.0};
    const double backwards[] = {0.5, 0.4, 1.0};
    assert_int_equal(spending_boundaries(&plan, backwards, 3, looks, &err), -1);
    assert_true(error_is(&err, ERROR_USAGE));
    const double zero[] = {0.0, 1.0};
    assert_int_equal(spending_boundaries(&plan, zero, 2, looks, &err), -1);
    plan.alpha = 1.0;
    assert_int_equal(spending_boundaries(&plan, equal_fractions, 3, looks, &err), -1);
    const double falling[] = {0.02, 0.01};
    assert_int_equal(spending_boundaries_for(equal_fractions, falling, 2, looks, &err), -1);
    spending_kind kind;
    assert_int_equal(spending_from_name("pocock", &kind, &err), 0);
    assert_int_equal(kind, SPENDING_POCOCK);
    assert_int_equal(spending_from_name("obrien-fleming", &kind, &err), 0);
    assert_int_equal(kind, SPENDING_OBRIEN_FLEMING);
    assert_int_equal(spending_from_name("haybittle", &kind, &err), -1);
    assert_true(error_is(&err, ERROR_USAGE));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_obrien_fleming_published),
        cmocka_unit_test(test_pocock_published),
        cmocka_unit_test(test_single_look_is_fixed_test),
        cmocka_unit_test(test_equal_below_bonferroni),
        cmocka_unit_test(test_null_crossings_equal_looks),
        cmocka_unit_test(test_null_crossings_unequal_looks),
        cmocka_unit_test(test_extension_spends_the_reserve),
        cmocka_unit_test(test_adaptive_extensions_keep_alpha),
        cmocka_unit_test(test_operating_characteristics),
        cmocka_unit_test(test_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
