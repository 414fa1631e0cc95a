/* Unit tests of the overall effect across points: the geometric mean of ratios and the
 * interval from per-point intervals, by hand-worked numbers and by simulated coverage. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdio.h>

#include "stats/combine.h"
#include "stats/comparison.h"

static void test_one_point_is_itself(void **state)
{
    (void)state;
    ratio_interval p = {1.05, 1.01, 1.09, 0.95}, out;
    assert_int_equal(combine_ratios(&p, 1, 0.95, &out), STATS_OK);
    assert_true(fabs((out.ratio) - (1.05)) <= 1e-12);
    /* a symmetric-in-logs interval comes back unchanged; this one nearly is */
    assert_true(fabs(log(out.ci_low) - log(1.01)) < 2e-3);
    assert_true(fabs(log(out.ci_high) - log(1.09)) < 2e-3);
}

static void test_two_points_by_hand(void **state)
{
    (void)state;
    /* worked in Python: mean of logs of 1.10 and 1.00, se from the half-widths of
     * [1.00, 1.21] and [1/1.1, 1.1] (both 0.0953 in logs) over z = 1.95996 */
    ratio_interval p[2] = {{1.10, 1.00, 1.21, 0.95}, {1.00, 1 / 1.1, 1.1, 0.95}}, out;
    assert_int_equal(combine_ratios(p, 2, 0.95, &out), STATS_OK);
    assert_true(fabs((out.ratio) - (1.0488088481701516)) <= 1e-12);
    assert_true(fabs((out.ci_low) - (0.980454161512215)) <= 1e-12);
    assert_true(fabs((out.ci_high) - (1.121929043886562)) <= 1e-12);
}

static void test_rejects_bad_input(void **state)
{
    (void)state;
    ratio_interval p = {1.0, 1.1, 0.9, 0.95}, out;
    assert_int_equal(combine_ratios(&p, 1, 0.95, &out), STATS_ERR_DOMAIN);
    assert_int_equal(combine_ratios(&p, 0, 0.95, &out), STATS_ERR_TOO_FEW);
    p = (ratio_interval){1.0, 0.9, 1.1, 0.95};
    assert_int_equal(combine_ratios(&p, 1, 1.5, &out), STATS_ERR_DOMAIN);
}

/* Four points with the same true ratio, each compared by the signed-rank test on 20
 * paired blocks: the combined 95% interval covers the truth about 95% of the time. */
static void test_coverage_by_simulation(void **state)
{
    (void)state;
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, 31);
    comparison_options o = {.method = METHOD_WILCOXON, .paired = true, .confidence = 0.95,
                            .margin = 0.01};
    int covered = 0, datasets = 1000;
    for (int d = 0; d < datasets; d++) {
        ratio_interval points[4], out;
        for (int k = 0; k < 4; k++) {
            double a[20], b[20];
            for (int i = 0; i < 20; i++) {
                double block = gsl_ran_gaussian(rng, 0.05) + 0.3 * k;
                a[i] = exp(block + gsl_ran_gaussian(rng, 0.02));
                b[i] = exp(block + log(1.03) + gsl_ran_gaussian(rng, 0.02));
            }
            comparison c;
            assert_int_equal(compare_samples(a, 20, b, 20, &o, &c), STATS_OK);
            points[k] = (ratio_interval){c.ratio, c.ci_low, c.ci_high, c.achieved_confidence};
        }
        assert_int_equal(combine_ratios(points, 4, 0.95, &out), STATS_OK);
        covered += out.ci_low <= 1.03 && 1.03 <= out.ci_high;
    }
    gsl_rng_free(rng);
    double coverage = (double)covered / datasets;
    printf("combined interval coverage: %.3f\n", coverage);
    /* the per-point rank intervals are slightly conservative, so a little above 95% */
    assert_true(coverage >= 0.93 && coverage <= 0.99);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_one_point_is_itself),
        cmocka_unit_test(test_two_points_by_hand),
        cmocka_unit_test(test_rejects_bad_input),
        cmocka_unit_test(test_coverage_by_simulation),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
