/* Adaptive stopping with spending functions: the looks of a rule (growth series or given),
 * each look's boundary, a look between planned ones, --looks, the rank tests' floor, and
 * the minimum detectable effect of a known interval. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/plan_looks.h"
#include "core/stopping.h"
#include "stats/detectable.h"
#include "stats/spending.h"

static void test_growth_series(void **state)
{
    (void)state;
    stopping_rule rule = stopping_rule_growth(10, 100, SPENDING_POCOCK);
    static const size_t want[] = {10, 15, 23, 35, 53, 80, 100};
    assert_int_equal(stopping_looks(&rule), 7);
    for (size_t k = 0; k < 7; k++) {
        assert_int_equal(stopping_look_blocks(&rule, k), want[k]);
        assert_true(stopping_is_look(&rule, want[k]));
        assert_false(stopping_is_look(&rule, want[k] + 1));
    }
}

/* Given looks replace the series; their boundaries are spending_boundaries' at blocks / the
 * last look: the published O'Brien-Fleming numbers for 5 equal looks. */
static void test_given_looks_boundaries(void **state)
{
    (void)state;
    static const size_t looks[] = {10, 20, 30, 40, 50};
    static const double published[] = {4.877, 3.357, 2.680, 2.290, 2.031};
    stopping_rule rule = {.min_blocks = 10, .max_blocks = 50, .looks = looks, .n_looks = 5,
                          .spending = SPENDING_OBRIEN_FLEMING};
    spending_look out[5];
    verdict_error err = {0};
    assert_int_equal(stopping_boundaries(&rule, 0.05, out, &err), 0);
    for (size_t k = 0; k < 5; k++) {
        assert_true(fabs(out[k].z - published[k]) <= 0.002);
        assert_true(fabs(out[k].fraction - (double)looks[k] / 50) < 1e-15);
        spending_look at;
        assert_int_equal(stopping_look_at(&rule, 0.05, looks[k], &at, &err), 0);
        assert_true(at.z == out[k].z); /* a planned look is the plan's own */
    }
    assert_false(stopping_is_look(&rule, 15));
    /* a look between planned ones (a time budget ran out at 25 blocks): spends alpha at its
     * own information, so its boundary lies between its neighbours' */
    spending_look between;
    assert_int_equal(stopping_look_at(&rule, 0.05, 25, &between, &err), 0);
    assert_true(fabs(between.fraction - 0.5) < 1e-15);
    assert_true(between.z < out[1].z && between.z > out[2].z);
}

/* Pocock spends more early than O'Brien-Fleming and less at the end: at the default looks
 * its first look is reachable, O'Brien-Fleming's is not. */
static void test_spending_shapes(void **state)
{
    (void)state;
    stopping_rule pocock = stopping_rule_growth(10, 100, SPENDING_POCOCK);
    stopping_rule obf = stopping_rule_growth(10, 100, SPENDING_OBRIEN_FLEMING);
    spending_look p[7], o[7];
    verdict_error err = {0};
    assert_int_equal(stopping_boundaries(&pocock, 0.05, p, &err), 0);
    assert_int_equal(stopping_boundaries(&obf, 0.05, o, &err), 0);
    assert_true(p[0].z < 3.0 && o[0].z > 6.0);
    assert_true(p[6].z > o[6].z);
    /* either way the last look has spent alpha */
    assert_true(fabs(p[6].alpha_spent - 0.05) < 1e-12 && fabs(o[6].alpha_spent - 0.05) < 1e-12);
}

/* An adaptive plan extended twice (`--more` to 150, then to 300 blocks) keeping a reserve:
 * the extensions continue the growth series; the looks already taken keep their boundaries;
 * the last look has spent (1 - rho) alpha + rho alpha (1 - 1/t), never alpha; and the
 * recursion, which counts the paths the earlier looks stopped, gives each extension's look a
 * lower boundary than Bonferroni's split of the same increment would. */
static void test_extended_looks(void **state)
{
    (void)state;
    static const size_t ends[] = {150, 300};
    static const size_t want[] = {10, 15, 23, 35, 53, 80, 100, 150, 225, 300};
    stopping_rule planned = stopping_rule_growth(10, 100, SPENDING_POCOCK);
    planned.reserve = 0.2;
    stopping_rule extended = planned;
    extended.extensions = ends;
    extended.n_extensions = 2;
    assert_int_equal(stopping_looks(&extended), 10);
    assert_int_equal(stopping_planned_looks(&extended), 7);
    for (size_t k = 0; k < 10; k++) {
        assert_int_equal(stopping_look_blocks(&extended, k), want[k]);
        assert_true(stopping_is_look(&extended, want[k]));
    }
    assert_false(stopping_is_look(&extended, 200));
    spending_look before[7], after[10];
    verdict_error err = {0};
    assert_int_equal(stopping_boundaries(&planned, 0.05, before, &err), 0);
    assert_int_equal(stopping_boundaries(&extended, 0.05, after, &err), 0);
    for (size_t k = 0; k < 7; k++)
        assert_true(after[k].z == before[k].z);
    assert_true(fabs(before[6].alpha_spent - 0.04) < 1e-12);
    assert_true(fabs(after[9].alpha_spent - (0.04 + 0.01 * (1.0 - 1.0 / 3.0))) < 1e-12);
    for (size_t k = 7; k < 10; k++) {
        double increment = after[k].alpha_spent - after[k - 1].alpha_spent;
        assert_true(increment > 0 && isfinite(after[k].z));
        assert_true(after[k].z < spending_look_z(increment));
    }
    spending_look at;
    assert_int_equal(stopping_look_at(&extended, 0.05, 225, &at, &err), 0);
    assert_true(at.z == after[8].z);
}

static void test_parse_looks(void **state)
{
    (void)state;
    size_t *looks = NULL, n = 0;
    verdict_error err = {0};
    assert_int_equal(stopping_parse_looks("10,20,35", &looks, &n, &err), 0);
    assert_int_equal(n, 3);
    assert_int_equal(looks[2], 35);
    free(looks);
    const char *bad[] = {"", "10,", "10,,20", "20,10", "0,5", "5,x", "-3", "10 20"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        error_clear(&err);
        assert_int_equal(stopping_parse_looks(bad[i], &looks, &n, &err), -1);
        assert_int_equal(err.kind, ERROR_USAGE);
        assert_non_null(strstr(err.message, "--looks"));
    }
}

/* Wilcoxon's signed-rank floor 2 / 2^n, the rank-sum's 2 / C(2n, n); none for the t test. */
static void test_rank_floor(void **state)
{
    (void)state;
    assert_true(plan_smallest_p(METHOD_WILCOXON, true, 4) == 0.125);
    assert_true(fabs(plan_smallest_p(METHOD_WILCOXON, false, 4) - 2.0 / 70) < 1e-12);
    assert_true(plan_smallest_p(METHOD_WELCH, true, 4) == 0.0);
}

/* The minimum detectable effect of a known interval: [0.98, 1.02] at 95% has half-width
 * log(1.02/0.98)/2 on the log scale, se = that / 1.959964, and 80% power adds 0.841621 se:
 * expm1(2.801585 se) = 2.9005% (computed independently). */
static void test_minimum_detectable_effect(void **state)
{
    (void)state;
    assert_true(fabs(detectable_effect(0.98, 1.02, 0.95, 0.8) - 0.0290046) < 1e-6);
    assert_true(fabs(detectable_effect(0.95, 1.10, 0.99, 0.8) - 0.1021383) < 1e-6);
    /* a narrower interval detects less; more power needs a larger change */
    assert_true(detectable_effect(0.99, 1.01, 0.95, 0.8) < detectable_effect(0.98, 1.02, 0.95, 0.8));
    assert_true(detectable_effect(0.98, 1.02, 0.95, 0.9) > detectable_effect(0.98, 1.02, 0.95, 0.8));
    assert_true(isnan(detectable_effect(0.0, 1.02, 0.95, 0.8)));
    assert_true(isnan(detectable_effect(0.98, INFINITY, 0.95, 0.8)));
    assert_true(isnan(detectable_effect(0.98, 1.02, 1.0, 0.8)));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_growth_series),
        cmocka_unit_test(test_given_looks_boundaries),
        cmocka_unit_test(test_spending_shapes),
        cmocka_unit_test(test_extended_looks),
        cmocka_unit_test(test_parse_looks),
        cmocka_unit_test(test_rank_floor),
        cmocka_unit_test(test_minimum_detectable_effect),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
