/* Unit tests for the distributions: every psignrank/pwilcox/pt/qt entry of R's golden file,
 * qsignrank/qwilcox against values taken from R, argument rounding, tails and error codes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "golden.h"
#include "stats/distributions.h"

static const double golden_tolerance = 1e-9;

static double relative_error(double got, double want)
{
    return fabs(got - want) / fmax(fabs(want), 1e-300);
}

static double number(const json_t *entry, const char *key)
{
    return json_number_value(json_object_get(entry, key));
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

static double check_psignrank(const json_t *entry)
{
    double q = number(entry, "q"), want = number(entry, "expect"), got = NAN, upper = NAN;
    int n = (int)number(entry, "n");
    assert_int_equal(dist_psignrank(q, n, &got), STATS_OK);
    assert_int_equal(dist_psignrank_upper(q, n, &upper), STATS_OK);
    if (!golden_close(got, want, golden_tolerance))
        fail_msg("psignrank(%g, %d) = %.17g, R says %.17g", q, n, got, want);
    assert_true(fabs(got + upper - 1.0) < 1e-14);
    return relative_error(got, want);
}

static double check_pwilcox(const json_t *entry)
{
    double q = number(entry, "q"), want = number(entry, "expect"), got = NAN, upper = NAN;
    int m = (int)number(entry, "m"), n = (int)number(entry, "n");
    assert_int_equal(dist_pwilcox(q, m, n, &got), STATS_OK);
    assert_int_equal(dist_pwilcox_upper(q, m, n, &upper), STATS_OK);
    if (!golden_close(got, want, golden_tolerance))
        fail_msg("pwilcox(%g, %d, %d) = %.17g, R says %.17g", q, m, n, got, want);
    assert_true(fabs(got + upper - 1.0) < 1e-14);
    return relative_error(got, want);
}

static double check_pt(const json_t *entry)
{
    double q = number(entry, "q"), df = number(entry, "df"), want = number(entry, "expect");
    double got = dist_pt(q, df);
    if (!golden_close(got, want, golden_tolerance))
        fail_msg("pt(%g, %g) = %.17g, R says %.17g", q, df, got, want);
    assert_true(golden_close(dist_pt_upper(-q, df), want, golden_tolerance));
    return relative_error(got, want);
}

static double check_qt(const json_t *entry)
{
    double p = number(entry, "p"), df = number(entry, "df"), want = number(entry, "expect");
    double got = dist_qt(p, df);
    if (!golden_close(got, want, golden_tolerance))
        fail_msg("qt(%g, %g) = %.17g, R says %.17g", p, df, got, want);
    return relative_error(got, want);
}

static void run_golden(const char *fn, double (*check)(const json_t *))
{
    double max_err;
    size_t count = for_each_golden(fn, check, &max_err);
    assert_true(count > 0);
    printf("# %zu golden %s entries, max relative error %.3g\n", count, fn, max_err);
}

static void test_golden_psignrank(void **state)
{
    (void)state;
    run_golden("psignrank", check_psignrank);
}

static void test_golden_pwilcox(void **state)
{
    (void)state;
    run_golden("pwilcox", check_pwilcox);
}

static void test_golden_pt(void **state)
{
    (void)state;
    run_golden("pt", check_pt);
}

static void test_golden_qt(void **state)
{
    (void)state;
    run_golden("qt", check_qt);
}

/* Values from R 4.2.2's qsignrank(p, n), including p exactly on a step of the distribution
 * (0.125, 0.0625, 0.875 ...), where the 10 * DBL_EPSILON fuzz decides. */
static const struct {
    double p;
    int n, want;
} qsignrank_from_r[] = {
    {0.025, 10, 9},  {0.125, 3, 0},    {0.25, 3, 1},    {0.5, 3, 3},     {0.5, 4, 5},
    {0.875, 3, 5},   {0.975, 10, 46},  {0.005, 12, 8},  {0.025, 49, 416}, {0.3, 20, 91},
    {0.7, 20, 119},  {0.9999, 5, 15},  {1e-05, 5, 0},   {0.0625, 4, 0},  {0.9375, 4, 9},
    {0.0, 10, 0},    {1e-20, 10, 0},   {1.0, 10, 55},
};

static void test_qsignrank_matches_r(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof qsignrank_from_r / sizeof *qsignrank_from_r; i++) {
        int got = -1;
        assert_int_equal(dist_qsignrank(qsignrank_from_r[i].p, qsignrank_from_r[i].n, &got),
                         STATS_OK);
        if (got != qsignrank_from_r[i].want)
            fail_msg("qsignrank(%g, %d) = %d, R says %d", qsignrank_from_r[i].p,
                     qsignrank_from_r[i].n, got, qsignrank_from_r[i].want);
    }
}

/* Values from R 4.2.2's qwilcox(p, m, n). */
static const struct {
    double p;
    int m, n, want;
} qwilcox_from_r[] = {
    {0.025, 3, 3, 0},    {0.05, 3, 3, 0},     {0.1, 3, 3, 1},      {0.95, 3, 3, 8},
    {0.9, 3, 3, 7},      {0.025, 4, 7, 4},    {0.975, 4, 7, 24},   {0.5, 10, 10, 50},
    {0.5, 3, 4, 6},      {0.025, 49, 49, 925}, {0.005, 20, 35, 204}, {0.999, 20, 35, 523},
    {0.3, 1, 1, 0},      {0.5, 1, 1, 0},      {0.7, 1, 2, 2},      {0.0, 4, 6, 0},
    {0.025, 4, 6, 3},    {0.5, 4, 6, 12},     {1.0, 4, 6, 24},
};

static void test_qwilcox_matches_r(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof qwilcox_from_r / sizeof *qwilcox_from_r; i++) {
        int got = -1;
        assert_int_equal(dist_qwilcox(qwilcox_from_r[i].p, qwilcox_from_r[i].m,
                                      qwilcox_from_r[i].n, &got),
                         STATS_OK);
        if (got != qwilcox_from_r[i].want)
            fail_msg("qwilcox(%g, %d, %d) = %d, R says %d", qwilcox_from_r[i].p,
                     qwilcox_from_r[i].m, qwilcox_from_r[i].n, got, qwilcox_from_r[i].want);
    }
}

/* R rounds psignrank's q to the nearest integer but floors pwilcox's (both after adding
 * 1e-7); the expected values are R 4.2.2's. Also upper tails far from the centre. */
static void test_argument_rounding_and_tails(void **state)
{
    (void)state;
    double got;
    assert_int_equal(dist_psignrank(2.5, 3, &got), STATS_OK);
    assert_true(golden_close(got, 0.62500000000000022, golden_tolerance));
    assert_int_equal(dist_psignrank(3.5, 3, &got), STATS_OK);
    assert_true(golden_close(got, 0.75, golden_tolerance));
    assert_int_equal(dist_psignrank(1.4999999, 3, &got), STATS_OK);
    assert_true(golden_close(got, 0.37500000000000011, golden_tolerance));
    assert_int_equal(dist_pwilcox(2.5, 3, 3, &got), STATS_OK);
    assert_true(golden_close(got, 0.2, golden_tolerance));
    assert_int_equal(dist_pwilcox(2.9999999, 3, 3, &got), STATS_OK);
    assert_true(golden_close(got, 0.35, golden_tolerance));
    assert_int_equal(dist_psignrank_upper(5, 3, &got), STATS_OK);
    assert_true(golden_close(got, 0.12500000000000003, golden_tolerance));
    assert_int_equal(dist_pwilcox_upper(4, 4, 7, &got), STATS_OK);
    assert_true(golden_close(got, 0.96363636363636362, golden_tolerance));
    assert_int_equal(dist_psignrank_upper(200, 40, &got), STATS_OK);
    assert_true(golden_close(got, 0.99797394511278981, golden_tolerance));
    assert_int_equal(dist_pwilcox_upper(1900, 49, 49, &got), STATS_OK);
    assert_true(golden_close(got, 1.1758623308988588e-07, golden_tolerance));
}

/* Outside the support the answers are 0 and 1; every probability sums to 1. */
static void test_support_edges(void **state)
{
    (void)state;
    double got;
    assert_int_equal(dist_psignrank(-1, 5, &got), STATS_OK);
    assert_true(got == 0.0);
    assert_int_equal(dist_psignrank(15, 5, &got), STATS_OK);
    assert_true(got == 1.0);
    assert_int_equal(dist_psignrank_upper(INFINITY, 5, &got), STATS_OK);
    assert_true(got == 0.0);
    assert_int_equal(dist_pwilcox(-INFINITY, 3, 4, &got), STATS_OK);
    assert_true(got == 0.0);
    assert_int_equal(dist_pwilcox(12, 3, 4, &got), STATS_OK);
    assert_true(got == 1.0);
    assert_int_equal(dist_pwilcox_upper(11, 3, 4, &got), STATS_OK);
    assert_true(golden_close(got, 1.0 / 35, 1e-14)); /* only W = 12, one subset of C(7,3) */
    /* symmetry: P(W <= q) == P(W >= mn - q) */
    for (int q = 0; q < 24; q++) {
        double lower, upper;
        assert_int_equal(dist_pwilcox(q, 4, 6, &lower), STATS_OK);
        assert_int_equal(dist_pwilcox_upper(24 - q - 1, 4, 6, &upper), STATS_OK);
        assert_true(fabs(lower - upper) < 1e-15);
    }
}

static void test_errors(void **state)
{
    (void)state;
    double p;
    int q;
    assert_int_equal(dist_psignrank(1, 0, &p), STATS_ERR_DOMAIN);
    assert_int_equal(dist_psignrank(NAN, 5, &p), STATS_ERR_DOMAIN);
    assert_int_equal(dist_pwilcox(1, 0, 3, &p), STATS_ERR_DOMAIN);
    assert_int_equal(dist_pwilcox_upper(1, 3, -1, &p), STATS_ERR_DOMAIN);
    assert_int_equal(dist_qsignrank(1.5, 5, &q), STATS_ERR_DOMAIN);
    assert_int_equal(dist_qsignrank(NAN, 5, &q), STATS_ERR_DOMAIN);
    assert_int_equal(dist_qwilcox(-0.1, 3, 3, &q), STATS_ERR_DOMAIN);
    assert_int_equal(dist_qwilcox(0.5, 3, 0, &q), STATS_ERR_DOMAIN);
    /* too large to tabulate: refused rather than taking minutes */
    assert_int_equal(dist_pwilcox(50000, 1000, 1000, &p), STATS_ERR_DOMAIN);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_golden_psignrank),
        cmocka_unit_test(test_golden_pwilcox),
        cmocka_unit_test(test_golden_pt),
        cmocka_unit_test(test_golden_qt),
        cmocka_unit_test(test_qsignrank_matches_r),
        cmocka_unit_test(test_qwilcox_matches_r),
        cmocka_unit_test(test_argument_rounding_and_tails),
        cmocka_unit_test(test_support_edges),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
