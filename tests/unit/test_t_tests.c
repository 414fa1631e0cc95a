/* Unit tests for t_tests.c: every golden case's welch_log block (R's t.test on logs,
 * reported as ratios b/a), a few hand-made R cases, and the error codes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>

#include "golden.h"
#include "stats/t_tests.h"

static const double golden_tolerance = 1e-9;

enum { FIELD_ESTIMATE, FIELD_CI_LOW, FIELD_CI_HIGH, FIELD_P, FIELD_T, FIELD_DF, FIELD_COUNT };
static const char *const field_names[FIELD_COUNT] = {"estimate", "ci_low", "ci_high",
                                                     "p_value", "statistic", "df"};

static double *logs_of(const json_t *array, size_t *n)
{
    double *values = golden_numbers(array, n);
    for (size_t i = 0; i < *n; i++)
        values[i] = log(values[i]);
    return values;
}

static double number(const json_t *object, const char *key)
{
    return json_number_value(json_object_get(object, key));
}

/* R's t.test on logs for one case: paired on log b - log a, else Welch on (log b, log a). */
static void run_case(const json_t *c, shift_result *r)
{
    size_t na, nb;
    double *a = logs_of(json_object_get(c, "a"), &na);
    double *b = logs_of(json_object_get(c, "b"), &nb);
    double confidence = number(c, "confidence");
    if (json_is_true(json_object_get(c, "paired"))) {
        assert_int_equal(na, nb);
        for (size_t i = 0; i < nb; i++)
            b[i] -= a[i];
        assert_int_equal(paired_t_test(b, nb, confidence, r), STATS_OK);
    } else {
        assert_int_equal(welch_t_test(b, nb, a, na, confidence, r), STATS_OK);
    }
    assert_true(r->achieved_confidence == confidence);
    assert_false(r->exact);
    free(a);
    free(b);
}

/* Compares one field, keeps the worst relative error, and names the case when it fails. */
static void expect_close(const char *id, int field, double got, double want, double *worst)
{
    double err = fabs(got - want) / fmax(fabs(want), 1e-300);
    worst[field] = fmax(worst[field], err);
    if (!golden_close(got, want, golden_tolerance))
        fail_msg("%s: %s = %.17g, R says %.17g", id, field_names[field], got, want);
}

static void golden_welch_log_cases(void **state)
{
    (void)state;
    json_t *root = golden_load();
    json_t *cases = json_object_get(root, "cases");
    double worst[FIELD_COUNT] = {0};
    size_t index, count = 0;
    json_t *c;
    json_array_foreach(cases, index, c) {
        const json_t *want = json_object_get(c, "welch_log");
        if (want == NULL)
            continue;
        const char *id = json_string_value(json_object_get(c, "id"));
        shift_result r;
        run_case(c, &r);
        const json_t *ci = json_object_get(want, "ci");
        expect_close(id, FIELD_ESTIMATE, exp(r.estimate), number(want, "estimate"), worst);
        expect_close(id, FIELD_CI_LOW, exp(r.ci_low), json_number_value(json_array_get(ci, 0)),
                     worst);
        expect_close(id, FIELD_CI_HIGH, exp(r.ci_high), json_number_value(json_array_get(ci, 1)),
                     worst);
        expect_close(id, FIELD_P, r.p_value, number(want, "p_value"), worst);
        expect_close(id, FIELD_T, r.statistic, number(want, "statistic"), worst);
        expect_close(id, FIELD_DF, r.df, number(want, "df"), worst);
        count++;
    }
    json_decref(root);
    print_message("welch_log: %zu golden cases\n", count);
    for (int f = 0; f < FIELD_COUNT; f++)
        print_message("  %-9s max relative error %.3g\n", field_names[f], worst[f]);
    assert_true(count >= 1);
}

static void one_group_constant(void **state)
{
    (void)state;
    /* r <- t.test(c(1,2,3), c(1,1,1)):
     * c(diff(rev(r$estimate)), r$conf.int, r$p.value, r$statistic, r$parameter) */
    const double x[] = {1, 2, 3}, y[] = {1, 1, 1};
    shift_result r;
    assert_int_equal(welch_t_test(x, 3, y, 3, 0.95, &r), STATS_OK);
    assert_true(golden_close(r.estimate, 1.0, 1e-14));
    assert_true(golden_close(r.ci_low, -1.48413771175032960, 1e-12));
    assert_true(golden_close(r.ci_high, 3.48413771175032982, 1e-12));
    assert_true(golden_close(r.p_value, 0.22540333075851657, 1e-12));
    assert_true(golden_close(r.statistic, 1.73205080756887742, 1e-14));
    assert_true(golden_close(r.df, 2.0, 1e-14));
}

static void one_sample_other_level(void **state)
{
    (void)state;
    /* r <- t.test(c(1,2,3,4,6), conf.level = 0.8):
     * c(r$estimate, r$conf.int, r$p.value, r$statistic, r$parameter) */
    const double d[] = {1, 2, 3, 4, 6};
    shift_result r;
    assert_int_equal(paired_t_test(d, 5, 0.8, &r), STATS_OK);
    assert_true(golden_close(r.estimate, 3.2, 1e-14));
    assert_true(golden_close(r.ci_low, 1.881086092907447771, 1e-12));
    assert_true(golden_close(r.ci_high, 4.518913907092553472, 1e-12));
    assert_true(golden_close(r.p_value, 0.020475874420910676, 1e-12));
    assert_true(golden_close(r.statistic, 3.719924439802217542, 1e-14));
    assert_true(r.df == 4.0);
    assert_true(r.achieved_confidence == 0.8);
}

/* The far tail, where GSL's t CDF alone is off by ~1e-6 relative, and beyond the smallest
 * double, where the p-value must underflow to 0 without GSL aborting. */
static void far_tail_p_values(void **state)
{
    (void)state;
    enum { LARGE = 1000 };
    double d[LARGE];
    shift_result r;
    /* d <- 1 + 0.5*sin(1:101); r <- t.test(d); c(r$statistic, r$p.value, r$conf.int) */
    for (int i = 0; i < 101; i++)
        d[i] = 1.0 + 0.5 * sin((double)(i + 1));
    assert_int_equal(paired_t_test(d, 101, 0.95, &r), STATS_OK);
    assert_true(golden_close(r.statistic, 2.8337707494242164e+01, 1e-12));
    assert_true(golden_close(r.p_value, 1.3829495106143605e-49, 1e-9));
    assert_true(golden_close(r.ci_low, 9.3148388404674853e-01, 1e-12));
    assert_true(golden_close(r.ci_high, 1.0717324998494686e+00, 1e-12));
    /* d <- 1 + 0.001*sin(1:1000); t.test(d) -> t = 44690.453962515807, p-value 0 */
    for (int i = 0; i < LARGE; i++)
        d[i] = 1.0 + 0.001 * sin((double)(i + 1));
    assert_int_equal(paired_t_test(d, LARGE, 0.95, &r), STATS_OK);
    assert_true(golden_close(r.statistic, 44690.453962515807, 1e-11));
    assert_true(r.p_value == 0.0);
}

static void errors_are_reported(void **state)
{
    (void)state;
    const double x[] = {1, 2, 3}, flat[] = {2, 2, 2}, bad[] = {1, INFINITY, 2};
    shift_result r;
    assert_int_equal(paired_t_test(x, 1, 0.95, &r), STATS_ERR_TOO_FEW);
    assert_int_equal(welch_t_test(x, 3, x, 1, 0.95, &r), STATS_ERR_TOO_FEW);
    assert_int_equal(paired_t_test(x, 3, 0.0, &r), STATS_ERR_DOMAIN);
    assert_int_equal(paired_t_test(x, 3, 1.0, &r), STATS_ERR_DOMAIN);
    assert_int_equal(welch_t_test(x, 3, x, 3, NAN, &r), STATS_ERR_DOMAIN);
    assert_int_equal(paired_t_test(bad, 3, 0.95, &r), STATS_ERR_DOMAIN);
    assert_int_equal(paired_t_test(flat, 3, 0.95, &r), STATS_ERR_DEGENERATE);
    assert_int_equal(welch_t_test(flat, 3, flat, 3, 0.95, &r), STATS_ERR_DEGENERATE);
    const double zeros[] = {0, 0, 0};
    assert_int_equal(paired_t_test(zeros, 3, 0.95, &r), STATS_ERR_DEGENERATE);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(golden_welch_log_cases),
        cmocka_unit_test(one_group_constant),
        cmocka_unit_test(one_sample_other_level),
        cmocka_unit_test(far_tail_p_values),
        cmocka_unit_test(errors_are_reported),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
