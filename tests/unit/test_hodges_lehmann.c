/* Unit tests for hodges_lehmann.c: every order statistic of the Walsh averages and of the
 * pairwise differences against a brute-force sort, on random data with ties, plus errors. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats/hodges_lehmann.h"

/* Deterministic test data (splitmix64), so a failure reproduces. */
static uint64_t next_random(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15u);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
    return z ^ (z >> 31);
}

static double uniform(uint64_t *state) { return (double)(next_random(state) >> 11) * 0x1p-53; }

/* Styles of data: continuous, heavily tied (few distinct values), constant, and runs of
 * adjacent doubles (the smallest possible gaps between candidates). */
typedef enum { CONTINUOUS, FEW_VALUES, CONSTANT, ADJACENT_DOUBLES, STYLE_COUNT } data_style;

static double *random_sample(size_t n, data_style style, uint64_t *state)
{
    double *x = malloc((n ? n : 1) * sizeof *x);
    assert_non_null(x);
    for (size_t i = 0; i < n; i++) {
        switch (style) {
        case CONTINUOUS: x[i] = log(50 + 100 * uniform(state)); break;
        case FEW_VALUES: x[i] = 0.25 * (double)(next_random(state) % 5) - 0.5; break;
        case CONSTANT: x[i] = 1.5; break;
        default: {
            double v = 1.0;
            for (uint64_t steps = next_random(state) % 4; steps > 0; steps--)
                v = nextafter(v, 2.0);
            x[i] = v;
        }
        }
    }
    return x;
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double *sorted_copy(const double *x, size_t n)
{
    double *copy = malloc((n ? n : 1) * sizeof *copy);
    assert_non_null(copy);
    memcpy(copy, x, n * sizeof *copy);
    qsort(copy, n, sizeof *copy, compare_doubles);
    return copy;
}

/* All n(n+1)/2 Walsh averages, sorted: the brute force the fast selection must agree with. */
static double *all_walsh_sorted(const double *x, size_t n, size_t *count)
{
    *count = n * (n + 1) / 2;
    double *values = malloc(*count * sizeof *values);
    assert_non_null(values);
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t j = i; j < n; j++)
            values[k++] = (x[i] + x[j]) / 2;
    qsort(values, *count, sizeof *values, compare_doubles);
    return values;
}

static double *all_differences_sorted(const double *x, size_t m, const double *y, size_t n)
{
    double *values = malloc(m * n * sizeof *values);
    assert_non_null(values);
    for (size_t i = 0; i < m; i++)
        for (size_t j = 0; j < n; j++)
            values[i * n + j] = x[i] - y[j];
    qsort(values, m * n, sizeof *values, compare_doubles);
    return values;
}

static double brute_median(const double *sorted, size_t count)
{
    return count % 2 ? sorted[count / 2] : (sorted[count / 2 - 1] + sorted[count / 2]) / 2;
}

static void check_walsh(const double *x, size_t n)
{
    double *xs = sorted_copy(x, n);
    size_t count;
    double *brute = all_walsh_sorted(xs, n, &count);
    for (size_t k = 1; k <= count; k++) {
        double got = NAN;
        assert_int_equal(hl_walsh_kth(xs, n, k, &got), STATS_OK);
        if (got != brute[k - 1])
            fail_msg("walsh n=%zu k=%zu: %.17g, brute force %.17g", n, k, got, brute[k - 1]);
    }
    double median = NAN;
    assert_int_equal(hl_one_sample(x, n, &median), STATS_OK); /* unsorted input */
    assert_true(median == brute_median(brute, count));
    free(brute);
    free(xs);
}

static void check_differences(const double *x, size_t m, const double *y, size_t n)
{
    double *xs = sorted_copy(x, m), *ys = sorted_copy(y, n);
    double *brute = all_differences_sorted(xs, m, ys, n);
    for (size_t k = 1; k <= m * n; k++) {
        double got = NAN;
        assert_int_equal(hl_diff_kth(xs, m, ys, n, k, &got), STATS_OK);
        if (got != brute[k - 1])
            fail_msg("diff m=%zu n=%zu k=%zu: %.17g, brute force %.17g", m, n, k, got,
                     brute[k - 1]);
    }
    double median = NAN;
    assert_int_equal(hl_two_sample(x, m, y, n, &median), STATS_OK);
    assert_true(median == brute_median(brute, m * n));
    free(brute);
    free(xs);
    free(ys);
}

static void test_walsh_kth_all_sizes(void **state)
{
    (void)state;
    uint64_t seed = 42;
    for (size_t n = 1; n <= 60; n++)
        for (data_style style = 0; style < STYLE_COUNT; style++)
            for (int repeat = 0; repeat < 3; repeat++) {
                double *x = random_sample(n, style, &seed);
                check_walsh(x, n);
                free(x);
            }
}

static void test_diff_kth_all_sizes(void **state)
{
    (void)state;
    uint64_t seed = 7;
    for (size_t m = 1; m <= 60; m += 1 + m / 8)
        for (size_t n = 1; n <= 60; n += 1 + n / 5)
            for (data_style style = 0; style < STYLE_COUNT; style++) {
                double *x = random_sample(m, style, &seed);
                double *y = random_sample(n, (style + 1) % STYLE_COUNT, &seed);
                check_differences(x, m, y, n);
                check_differences(y, n, x, m);
                free(x);
                free(y);
            }
}

/* Larger samples take many rounds of the selection loop before gathering; a sample of k. */
static void test_larger_samples(void **state)
{
    (void)state;
    uint64_t seed = 2024;
    const size_t n = 400, m = 333;
    for (data_style style = 0; style < STYLE_COUNT; style++) {
        double *x = random_sample(n, style, &seed), *y = random_sample(m, style, &seed);
        double *xs = sorted_copy(x, n), *ys = sorted_copy(y, m);
        size_t count;
        double *walsh = all_walsh_sorted(xs, n, &count);
        double *diffs = all_differences_sorted(xs, n, ys, m);
        for (int trial = 0; trial < 200; trial++) {
            uint64_t k = 1 + next_random(&seed) % count, kd = 1 + next_random(&seed) % (n * m);
            double got;
            assert_int_equal(hl_walsh_kth(xs, n, k, &got), STATS_OK);
            assert_true(got == walsh[k - 1]);
            assert_int_equal(hl_diff_kth(xs, n, ys, m, kd, &got), STATS_OK);
            assert_true(got == diffs[kd - 1]);
        }
        double got;
        assert_int_equal(hl_one_sample(x, n, &got), STATS_OK);
        assert_true(got == brute_median(walsh, count));
        assert_int_equal(hl_two_sample(x, n, y, m, &got), STATS_OK);
        assert_true(got == brute_median(diffs, n * m));
        free(walsh);
        free(diffs);
        free(x);
        free(y);
        free(xs);
        free(ys);
    }
}

/* Hand-checked: x = 1, 2, 4 gives Walsh averages 1, 1.5, 2, 2.5, 3, 4 (median 2.25);
 * x - y for y = 0, 3 gives -2, -1, 1, 1, 2, 4 (median 1). */
static void test_small_known_values(void **state)
{
    (void)state;
    const double x[] = {4, 1, 2}, y[] = {3, 0};
    double got;
    assert_int_equal(hl_one_sample(x, 3, &got), STATS_OK);
    assert_true(got == 2.25);
    assert_int_equal(hl_two_sample(x, 3, y, 2, &got), STATS_OK);
    assert_true(got == 1.0);
    const double xs[] = {1, 2, 4}, ys[] = {0, 3};
    assert_int_equal(hl_walsh_kth(xs, 3, 2, &got), STATS_OK);
    assert_true(got == 1.5);
    assert_int_equal(hl_diff_kth(xs, 3, ys, 2, 6, &got), STATS_OK);
    assert_true(got == 4.0);
}

static void test_errors(void **state)
{
    (void)state;
    const double sorted[] = {1, 2, 3}, unsorted[] = {2, 1, 3}, with_nan[] = {1, NAN, 3};
    double out;
    assert_int_equal(hl_walsh_kth(sorted, 0, 1, &out), STATS_ERR_TOO_FEW);
    assert_int_equal(hl_walsh_kth(sorted, 3, 0, &out), STATS_ERR_DOMAIN);
    assert_int_equal(hl_walsh_kth(sorted, 3, 7, &out), STATS_ERR_DOMAIN);
    assert_int_equal(hl_walsh_kth(unsorted, 3, 1, &out), STATS_ERR_DOMAIN);
    assert_int_equal(hl_walsh_kth(with_nan, 3, 1, &out), STATS_ERR_DOMAIN);
    assert_int_equal(hl_diff_kth(sorted, 3, sorted, 0, 1, &out), STATS_ERR_TOO_FEW);
    assert_int_equal(hl_diff_kth(sorted, 3, sorted, 3, 10, &out), STATS_ERR_DOMAIN);
    assert_int_equal(hl_diff_kth(sorted, 3, unsorted, 3, 1, &out), STATS_ERR_DOMAIN);
    assert_int_equal(hl_one_sample(sorted, 0, &out), STATS_ERR_TOO_FEW);
    assert_int_equal(hl_one_sample(with_nan, 3, &out), STATS_ERR_DOMAIN);
    assert_int_equal(hl_two_sample(sorted, 3, with_nan, 3, &out), STATS_ERR_DOMAIN);
    assert_int_equal(hl_two_sample(sorted, 0, sorted, 3, &out), STATS_ERR_TOO_FEW);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_small_known_values),
        cmocka_unit_test(test_walsh_kth_all_sizes),
        cmocka_unit_test(test_diff_kth_all_sizes),
        cmocka_unit_test(test_larger_samples),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
