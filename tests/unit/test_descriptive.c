/* Unit tests for descriptive.c: R's quantile type 7 and mad from the golden file, plus
 * edge cases (n = 1, ties, cancellation) and error codes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "golden.h"
#include "stats/descriptive.h"

static const double golden_tolerance = 1e-12;

static double relative_error(double got, double want)
{
    return fabs(got - want) / fmax(fabs(want), 1e-300);
}

/* Runs check(entry) on every golden function entry named fn; returns how many there were. */
static size_t for_each_golden(const char *fn, double (*check)(const json_t *), double *max_err)
{
    json_t *root = golden_load();
    json_t *functions = json_object_get(root, "functions");
    size_t index, count = 0;
    json_t *entry;
    *max_err = 0.0;
    json_array_foreach(functions, index, entry) {
        if (strcmp(json_string_value(json_object_get(entry, "fn")), fn) != 0)
            continue;
        *max_err = fmax(*max_err, check(entry));
        count++;
    }
    json_decref(root);
    return count;
}

static double check_quantile(const json_t *entry)
{
    size_t n;
    double *x = golden_numbers(json_object_get(entry, "x"), &n);
    double p = json_number_value(json_object_get(entry, "p"));
    double want = json_number_value(json_object_get(entry, "expect"));
    double got;
    assert_int_equal(stats_quantile(x, n, p, &got), STATS_OK);
    assert_true(golden_close(got, want, golden_tolerance));
    double *sorted;
    assert_int_equal(stats_sorted_copy(x, n, &sorted), STATS_OK);
    double from_sorted = stats_quantile_sorted(sorted, n, p);
    assert_true(golden_close(from_sorted, want, golden_tolerance));
    free(sorted);
    free(x);
    return fmax(relative_error(got, want), relative_error(from_sorted, want));
}

static double check_mad(const json_t *entry)
{
    size_t n;
    double *x = golden_numbers(json_object_get(entry, "x"), &n);
    double want = json_number_value(json_object_get(entry, "expect"));
    double got;
    assert_int_equal(stats_mad(x, n, &got), STATS_OK);
    assert_true(golden_close(got, want, golden_tolerance));
    stats_summary summary;
    assert_int_equal(stats_summarize(x, n, &summary), STATS_OK);
    assert_true(golden_close(summary.mad, want, golden_tolerance));
    free(x);
    return relative_error(got, want);
}

static void golden_quantiles_match_r(void **state)
{
    (void)state;
    double max_err;
    size_t count = for_each_golden("quantile_type7", check_quantile, &max_err);
    print_message("quantile_type7: %zu golden cases, max relative error %.3g\n", count, max_err);
    assert_true(count >= 1); /* a golden file without these cases must not pass silently */
}

static void golden_mad_matches_r(void **state)
{
    (void)state;
    double max_err;
    size_t count = for_each_golden("mad", check_mad, &max_err);
    print_message("mad: %zu golden cases, max relative error %.3g\n", count, max_err);
    assert_true(count >= 1);
}

static void single_value(void **state)
{
    (void)state;
    const double x[] = {7.5};
    double q;
    for (double p = 0.0; p <= 1.0; p += 0.25) {
        assert_int_equal(stats_quantile(x, 1, p, &q), STATS_OK);
        assert_true(q == 7.5);
    }
    assert_int_equal(stats_median(x, 1, &q), STATS_OK);
    assert_true(q == 7.5);
    assert_int_equal(stats_mad(x, 1, &q), STATS_OK);
    assert_true(q == 0.0);
    assert_true(isnan(stats_variance(x, 1)));
    stats_summary s;
    assert_int_equal(stats_summarize(x, 1, &s), STATS_OK);
    assert_int_equal(s.n, 1);
    assert_true(s.mean == 7.5 && s.median == 7.5 && s.min == 7.5 && s.max == 7.5);
    assert_true(isnan(s.stddev) && isnan(s.cv));
}

static void ties_and_interpolation(void **state)
{
    (void)state;
    const double tied[] = {2, 3, 2, 1, 2};
    double q;
    /* quantile(c(1,2,2,2,3), c(.25,.75)) -> 2 2 */
    assert_int_equal(stats_quantile(tied, 5, 0.25, &q), STATS_OK);
    assert_true(q == 2.0);
    assert_int_equal(stats_quantile(tied, 5, 0.75, &q), STATS_OK);
    assert_true(q == 2.0);
    /* mad(c(1,2,2,2,3)) -> 0: more than half the values sit on the median */
    assert_int_equal(stats_mad(tied, 5, &q), STATS_OK);
    assert_true(q == 0.0);
    /* quantile(c(3,1,2,2), 0.1) -> 1.3 */
    const double four[] = {3, 1, 2, 2};
    assert_int_equal(stats_quantile(four, 4, 0.1, &q), STATS_OK);
    assert_true(golden_close(q, 1.3, 1e-15));
    assert_int_equal(stats_quantile(four, 4, 0.0, &q), STATS_OK);
    assert_true(q == 1.0);
    assert_int_equal(stats_quantile(four, 4, 1.0, &q), STATS_OK);
    assert_true(q == 3.0);
    /* mad(c(1,2,3,4,100)) -> 1.4826 */
    const double spread[] = {100, 1, 2, 3, 4};
    assert_int_equal(stats_mad(spread, 5, &q), STATS_OK);
    assert_true(golden_close(q, 1.4826, 1e-15));
}

static void summary_matches_r(void **state)
{
    (void)state;
    /* x <- c(2, 4, 4, 4, 5, 5, 7, 9); c(mean(x), sd(x), median(x), mad(x), sd(x)/mean(x)) */
    const double x[] = {9, 4, 2, 4, 5, 4, 7, 5};
    stats_summary s;
    assert_int_equal(stats_summarize(x, 8, &s), STATS_OK);
    assert_int_equal(s.n, 8);
    assert_true(golden_close(s.mean, 5.0, 1e-15));
    assert_true(golden_close(s.stddev, 2.13808993529939517, 1e-14));
    assert_true(golden_close(s.median, 4.5, 1e-15));
    assert_true(golden_close(s.mad, 0.74129999999999996, 1e-14));
    assert_true(golden_close(s.cv, 0.42761798705987902, 1e-14));
    assert_true(s.min == 2.0 && s.max == 9.0);
}

static void variance_survives_cancellation(void **state)
{
    (void)state;
    /* var(c(1e10+1, 1e10+2, 1e10+3)) -> 1: a one-pass sum of squares would lose it */
    const double x[] = {1e10 + 1, 1e10 + 2, 1e10 + 3};
    assert_true(golden_close(stats_variance(x, 3), 1.0, 1e-12));
    assert_true(golden_close(stats_mean(x, 3), 1e10 + 2, 1e-15));
}

static void errors_are_reported(void **state)
{
    (void)state;
    const double x[] = {1.0, NAN, 3.0};
    double q;
    stats_summary s;
    assert_int_equal(stats_quantile(x, 0, 0.5, &q), STATS_ERR_TOO_FEW);
    assert_int_equal(stats_median(x, 0, &q), STATS_ERR_TOO_FEW);
    assert_int_equal(stats_summarize(x, 0, &s), STATS_ERR_TOO_FEW);
    assert_int_equal(stats_quantile(x, 1, 1.5, &q), STATS_ERR_DOMAIN);
    assert_int_equal(stats_quantile(x, 1, NAN, &q), STATS_ERR_DOMAIN);
    assert_int_equal(stats_median(x, 3, &q), STATS_ERR_DOMAIN);
    assert_int_equal(stats_mad(x, 3, &q), STATS_ERR_DOMAIN);
    assert_true(isnan(stats_quantile_sorted(x, 1, -0.1)));
    assert_true(isnan(stats_mean(x, 0)));
}

static void sorted_copy_leaves_input_alone(void **state)
{
    (void)state;
    const double x[] = {3, -1, 2, 2, 0};
    double *sorted;
    assert_int_equal(stats_sorted_copy(x, 5, &sorted), STATS_OK);
    const double want[] = {-1, 0, 2, 2, 3};
    for (size_t i = 0; i < 5; i++)
        assert_true(sorted[i] == want[i]);
    assert_true(x[0] == 3.0);
    free(sorted);
    assert_int_equal(stats_sorted_copy(x, 0, &sorted), STATS_OK);
    free(sorted);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(golden_quantiles_match_r),
        cmocka_unit_test(golden_mad_matches_r),
        cmocka_unit_test(single_value),
        cmocka_unit_test(ties_and_interpolation),
        cmocka_unit_test(summary_matches_r),
        cmocka_unit_test(variance_survives_cancellation),
        cmocka_unit_test(errors_are_reported),
        cmocka_unit_test(sorted_copy_leaves_input_alone),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
