/* Unit tests for core/analysis.c: the levels intervals get under each adjustment, and that
 * an unselected comparison under BH is never called equivalent from the FCR interval. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>

#include "core/analysis.h"

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
    char err[128];
    assert_int_equal(analysis_run(series, SERIES, &o, &r, err, sizeof err), 0);
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
    assert_int_equal(analysis_run(series, 2, &o, &r, err, sizeof err), 0);
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
    char err[128];
    assert_int_equal(analysis_run(series, 3, &o, &r, err, sizeof err), 0);
    for (size_t k = 0; k < 2; k++)
        assert_true(fabs(r.comparisons[k].result.confidence - 0.975) < 1e-12);
    analysis_result_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bh_unselected_gets_bonferroni),
        cmocka_unit_test(test_holm_levels),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
