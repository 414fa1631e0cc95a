/* Unit tests for rank_tests.c: every wilcoxon case of R's golden file (on logs, as ratios),
 * then special cases checked against R 4.2.2: ties, zeros, unreachable levels, degeneracy. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "golden.h"
#include "stats/rank_tests.h"

/* Everything must agree to rounding except normal-approximation interval ends: R's uniroot
 * stops within an absolute 1e-4 of the jump we locate exactly, so those are compared
 * against a share of R's interval width. The golden estimate is the Hodges–Lehmann median
 * in both branches (docs/statistics.md), which is what we report. */
static const double exact_tolerance = 1e-9;
static const double width_share = 0.02;

static double relative_error(double got, double want)
{
    return fabs(got - want) / fmax(fabs(want), 1e-300);
}

/* Worst deviations seen over the golden cases, reported at the end. */
typedef struct {
    size_t exact_cases, approximate_cases, departures;
    double exact_max_relative;  /* estimate, ci, p, confidence, statistic */
    double approx_max_relative; /* estimate, p, confidence, statistic */
    double approx_width_share;  /* |endpoint - R| / R's width */
} golden_summary;

static void expect_relative(const char *id, const char *what, double got, double want,
                            double *worst)
{
    double err = relative_error(got, want);
    if (!(err <= exact_tolerance))
        fail_msg("%s: %s = %.17g, R says %.17g", id, what, got, want);
    *worst = fmax(*worst, err);
}

static void expect_within_width(const char *id, const char *what, double got, double want,
                                double width, double *worst)
{
    double share = fabs(got - want) / width;
    if (!(share <= width_share))
        fail_msg("%s: %s = %.17g, R says %.17g (%.3g of the width)", id, what, got, want, share);
    *worst = fmax(*worst, share);
}

/* paired: signed-rank on log(b) - log(a); unpaired: rank-sum of log b against log a. */
static stats_status run_case(const json_t *c, shift_result *result)
{
    size_t na, nb;
    double *a = golden_numbers(json_object_get(c, "a"), &na);
    double *b = golden_numbers(json_object_get(c, "b"), &nb);
    double confidence = json_number_value(json_object_get(c, "confidence"));
    stats_status status;
    if (json_is_true(json_object_get(c, "paired"))) {
        assert_int_equal(na, nb);
        double *d = malloc(na * sizeof *d);
        assert_non_null(d);
        for (size_t i = 0; i < na; i++)
            d[i] = log(b[i]) - log(a[i]);
        status = wilcoxon_signed_rank(d, na, confidence, result);
        free(d);
    } else {
        for (size_t i = 0; i < na; i++)
            a[i] = log(a[i]);
        for (size_t i = 0; i < nb; i++)
            b[i] = log(b[i]);
        status = wilcoxon_rank_sum(b, nb, a, na, confidence, result);
    }
    free(a);
    free(b);
    return status;
}

/* The confidence set R's inverted test gives for a golden case, where verdict's interval
 * departs from R's on purpose (paired zeros: tests/golden/ties.R); NULL for the others. */
static const json_t *inverted_set(const json_t *ties, const char *id)
{
    size_t index;
    const json_t *c;
    json_array_foreach(json_object_get(ties, "cases"), index, c)
        if (strcmp(json_string_value(json_object_get(c, "id")), id) == 0 &&
            json_is_true(json_object_get(c, "departs")))
            return json_object_get(c, "set");
    return NULL;
}

static void check_case(const json_t *c, const json_t *ties, golden_summary *summary)
{
    const char *id = json_string_value(json_object_get(c, "id"));
    const json_t *want = json_object_get(c, "wilcoxon");
    bool exact = json_is_true(json_object_get(want, "exact"));
    double estimate = json_number_value(json_object_get(want, "estimate"));
    double low = json_number_value(json_array_get(json_object_get(want, "ci"), 0));
    double high = json_number_value(json_array_get(json_object_get(want, "ci"), 1));
    double p = json_number_value(json_object_get(want, "p_value"));
    double level = json_number_value(json_object_get(want, "achieved_confidence"));
    double statistic = json_number_value(json_object_get(want, "statistic"));

    shift_result r;
    stats_status status = run_case(c, &r);
    if (status != STATS_OK)
        fail_msg("%s: status %d", id, (int)status);
    if (r.exact != exact)
        fail_msg("%s: exact = %d, R used exact = %d", id, r.exact, exact);
    assert_true(isnan(r.df));
    double *worst = exact ? &summary->exact_max_relative : &summary->approx_max_relative;
    expect_relative(id, "estimate", exp(r.estimate), estimate, worst);
    expect_relative(id, "p_value", r.p_value, p, worst);
    expect_relative(id, "achieved_confidence", r.achieved_confidence, level, worst);
    expect_relative(id, "statistic", r.statistic, statistic, worst);
    if (exact) {
        summary->exact_cases++;
        expect_relative(id, "ci low", exp(r.ci_low), low, worst);
        expect_relative(id, "ci high", exp(r.ci_high), high, worst);
    } else if (inverted_set(ties, id) != NULL) {
        /* zeros kept in the interval: R's inverted test, exactly (ends are data values) */
        const json_t *set = inverted_set(ties, id);
        summary->departures++;
        expect_relative(id, "ci low (inverted test)", exp(r.ci_low),
                        json_number_value(json_array_get(set, 0)), worst);
        expect_relative(id, "ci high (inverted test)", exp(r.ci_high),
                        json_number_value(json_array_get(set, 1)), worst);
    } else {
        summary->approximate_cases++;
        double width = high - low, *share = &summary->approx_width_share;
        assert_true(width > 0);
        expect_within_width(id, "ci low", exp(r.ci_low), low, width, share);
        expect_within_width(id, "ci high", exp(r.ci_high), high, width, share);
    }
}

/* Every case the golden file holds, however many: new data is checked the same way. */
static void test_golden_cases(void **state)
{
    (void)state;
    json_t *root = golden_load(), *ties = golden_load_from("VERDICT_TIES");
    golden_summary summary = {0};
    size_t index;
    json_t *c;
    json_array_foreach(json_object_get(root, "cases"), index, c) {
        if (json_object_get(c, "wilcoxon") != NULL)
            check_case(c, ties, &summary);
    }
    json_decref(root);
    json_decref(ties);
    assert_int_equal(summary.departures, 1); /* paired-ties-zeros */
    assert_true(summary.exact_cases > 0);
    assert_true(summary.approximate_cases > 0);
    printf("# %zu exact golden cases, max relative error %.3g\n", summary.exact_cases,
           summary.exact_max_relative);
    printf("# %zu approximate golden cases, max relative error %.3g (estimate, p, level, "
           "statistic), endpoints within %.3g of R's width\n",
           summary.approximate_cases, summary.approx_max_relative, summary.approx_width_share);
}

/* One call's expected outcome from R 4.2.2: p-value, statistic, level and interval from
 * wilcox.test(..., conf.int = TRUE, tol.root = 1e-13), which makes R locate the interval's
 * jumps as precisely as we do; the estimate is R's Hodges–Lehmann median, median(diffs). */
typedef struct {
    double estimate, low, high, p, statistic, level;
} r_answer;

/* With R's root tolerance at 1e-13, the ends must agree to a millionth of the width. */
static const double precise_width_share = 1e-6;

static void expect_answer(const char *name, const shift_result *r, const r_answer *want)
{
    double worst = 0;
    expect_relative(name, "p_value", r->p_value, want->p, &worst);
    expect_relative(name, "statistic", r->statistic, want->statistic, &worst);
    expect_relative(name, "estimate", r->estimate, want->estimate, &worst);
    if (want->level == 0)
        assert_true(r->achieved_confidence == 0);
    else
        expect_relative(name, "achieved_confidence", r->achieved_confidence, want->level, &worst);
    if (isnan(want->low)) {
        assert_true(isnan(r->ci_low) && isnan(r->ci_high));
        return;
    }
    double width = fmax(want->high - want->low, 1e-300);
    double share_low = fabs(r->ci_low - want->low) / width;
    double share_high = fabs(r->ci_high - want->high) / width;
    if (!(share_low <= precise_width_share && share_high <= precise_width_share))
        fail_msg("%s: interval (%.17g, %.17g), R says (%.17g, %.17g)", name, r->ci_low,
                 r->ci_high, want->low, want->high);
}

static void signed_case(const char *name, const double *d, size_t n, double confidence,
                        const r_answer *want)
{
    shift_result r;
    assert_int_equal(wilcoxon_signed_rank(d, n, confidence, &r), STATS_OK);
    assert_false(r.exact);
    expect_answer(name, &r, want);
}

/* Zeros, ties and tiny samples (normal approximation), including R's doubling of alpha
 * when the extremes cannot reach the requested level (s1, s2). */
static void test_signed_rank_special_cases(void **state)
{
    (void)state;
    /* {0.1, 0.1, 0, 0.2}: R drops the zero and doubles alpha past 1 (level 0); with the zero
     * kept the level is capped by 3 nonzero differences instead: tests/golden/ties.R, "s1" */
    const double s2[] = {0.1, -0.1, 0.3};
    signed_case("s2", s2, 3, 0.8,
                &(r_answer){0.1, -0.09999999999990207, 0.29999999999990201,
                            0.58621368107313998, 4.5, 0.60000000000000009});
    const double s4[] = {-0.3, 0.1, 0.1, 0.2, 0.5, 0.5, 0.7};
    signed_case("s4", s4, 7, 0.9,
                &(r_answer){0.3, -0.0499999999999442, 0.50000000000004052, 0.1070579459659193,
                            24, 0.9});
    /* all differences equal: a p-value, but no interval (R: NaN, level 0) */
    const double s3[] = {0.25, 0.25, 0.25};
    signed_case("s3", s3, 3, 0.95, &(r_answer){0.25, NAN, NAN, 0.14891467317876567, 6, 0});
}

static void test_rank_sum_special_cases(void **state)
{
    (void)state;
    shift_result r;
    const double x1[] = {1, 2, 2, 3}, y1[] = {2, 2, 4};
    assert_int_equal(wilcoxon_rank_sum(x1, 4, y1, 3, 0.95, &r), STATS_OK);
    assert_false(r.exact);
    expect_answer("r1", &r, &(r_answer){-0.5, -3, 1, 0.55845215728315589, 4, 0.95});
    const double x3[] = {1, 2, 3}, y3[] = {1, 2, 3, 4, 5};
    assert_int_equal(wilcoxon_rank_sum(x3, 3, y3, 5, 0.8, &r), STATS_OK);
    expect_answer("r3", &r, &(r_answer){-1, -2.9999999999999498, 0.99999999999995048,
                                        0.44783258313458513, 4.5, 0.8});
    /* one observation each: exact, and no level is reachable */
    const double x2[] = {1.5}, y2[] = {0.5};
    assert_int_equal(wilcoxon_rank_sum(x2, 1, y2, 1, 0.95, &r), STATS_OK);
    assert_true(r.exact);
    assert_true(r.estimate == 1 && r.ci_low == 1 && r.ci_high == 1);
    assert_true(r.p_value == 1 && r.statistic == 1 && r.achieved_confidence == 0);
}

/* R's reported level when the exact distribution cannot reach the requested one:
 * 1 - signif(achieved alpha, 2) for the signed-rank test, 1 - achieved alpha for rank-sum.
 * Data: (1..n) * 0.37 - 1 (signed) and (1..m) * 0.31 against (1..n) * 0.29 + 0.001. */
static const struct {
    int n;
    double confidence, level;
} signed_levels_from_r[] = {
    {1, 0.80, 0},    {1, 0.99, 0},    {2, 0.80, 0.5},  {2, 0.99, 0.5},  {3, 0.80, 0.8},
    {3, 0.90, 0.75}, {3, 0.99, 0.75}, {4, 0.90, 0.9},  {4, 0.95, 0.88}, {4, 0.99, 0.88},
    {5, 0.95, 0.95}, {5, 0.99, 0.938}, {6, 0.99, 0.969}, {7, 0.99, 0.984}, {8, 0.99, 0.99},
};

static const struct {
    int m, n;
    double level;
} sum_levels_from_r[] = {
    {1, 1, 0},   {1, 2, 0.33333333333333337}, {1, 5, 0.66666666666666674},
    {2, 2, 0.66666666666666674}, {2, 4, 0.8666666666666667}, {2, 5, 0.90476190476190477},
    {3, 3, 0.9}, {3, 4, 0.95}, {4, 2, 0.8666666666666667}, {5, 5, 0.95},
};

static void test_unreachable_levels(void **state)
{
    (void)state;
    double x[10], y[10];
    shift_result r;
    for (size_t i = 0; i < sizeof signed_levels_from_r / sizeof *signed_levels_from_r; i++) {
        int n = signed_levels_from_r[i].n;
        for (int k = 0; k < n; k++)
            x[k] = (k + 1) * 0.37 - 1;
        assert_int_equal(wilcoxon_signed_rank(x, (size_t)n, signed_levels_from_r[i].confidence, &r),
                         STATS_OK);
        if (fabs(r.achieved_confidence - signed_levels_from_r[i].level) > 1e-12)
            fail_msg("signed n=%d conf %.2f: level %.17g, R says %.17g", n,
                     signed_levels_from_r[i].confidence, r.achieved_confidence,
                     signed_levels_from_r[i].level);
    }
    for (size_t i = 0; i < sizeof sum_levels_from_r / sizeof *sum_levels_from_r; i++) {
        int m = sum_levels_from_r[i].m, n = sum_levels_from_r[i].n;
        for (int k = 0; k < m; k++)
            x[k] = (k + 1) * 0.31;
        for (int k = 0; k < n; k++)
            y[k] = (k + 1) * 0.29 + 0.001;
        assert_int_equal(wilcoxon_rank_sum(x, (size_t)m, y, (size_t)n, 0.95, &r), STATS_OK);
        if (fabs(r.achieved_confidence - sum_levels_from_r[i].level) > 1e-12)
            fail_msg("sum m=%d n=%d: level %.17g, R says %.17g", m, n, r.achieved_confidence,
                     sum_levels_from_r[i].level);
    }
}

static double seconds_since(const struct timespec *start)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)(now.tv_sec - start->tv_sec) + (double)(now.tv_nsec - start->tv_nsec) * 1e-9;
}

/* 10,000 values per group, compared with R on data both can generate identically:
 * d_i = 0.03 sin(1.7 i) + 0.002 (i mod 5) - 0.004; x_i = 0.05 cos(0.37 i) + 0.001 (i mod 3),
 * y_i = 0.05 sin(0.91 i). Must also be fast (the issue asks for well under a second). */
static void test_ten_thousand_per_group(void **state)
{
    (void)state;
    enum { N = 10000 };
    double *d = malloc(N * sizeof *d), *x = malloc(N * sizeof *x), *y = malloc(N * sizeof *y);
    assert_true(d && x && y);
    for (int i = 1; i <= N; i++) {
        d[i - 1] = 0.03 * sin(i * 1.7) + 0.002 * (i % 5) - 0.004;
        x[i - 1] = 0.05 * cos(i * 0.37) + 0.001 * (i % 3);
        y[i - 1] = 0.05 * sin(i * 0.91);
    }
    shift_result r;
    struct timespec start;
    clock_gettime(CLOCK_MONOTONIC, &start);
    assert_int_equal(wilcoxon_signed_rank(d, N, 0.95, &r), STATS_OK);
    double signed_seconds = seconds_since(&start);
    expect_answer("big signed", &r,
                  &(r_answer){7.4959857871087845e-07, -0.00035092678304343738,
                              0.00035292796713863112, 0.99624546502961664, 25003859, 0.95});
    clock_gettime(CLOCK_MONOTONIC, &start);
    assert_int_equal(wilcoxon_rank_sum(x, N, y, N, 0.95, &r), STATS_OK);
    double sum_seconds = seconds_since(&start);
    expect_answer("big rank-sum", &r,
                  &(r_answer){0.0009904662560211823, 0.00038413087694092113,
                              0.0015919823293940021, 0.0013605773936462046, 51307606, 0.95});
    printf("# 10,000 per group: signed-rank %.3f s, rank-sum %.3f s\n", signed_seconds,
           sum_seconds);
    assert_true(signed_seconds < 1.0 && sum_seconds < 1.0);
    free(d);
    free(x);
    free(y);
}

static void test_errors(void **state)
{
    (void)state;
    const double zeros[] = {0, 0, 0}, some[] = {1, 2, 3}, with_nan[] = {1, NAN},
                 with_inf[] = {1, INFINITY}, constant[] = {2, 2, 2};
    shift_result r;
    assert_int_equal(wilcoxon_signed_rank(some, 0, 0.95, &r), STATS_ERR_TOO_FEW);
    assert_int_equal(wilcoxon_signed_rank(zeros, 3, 0.95, &r), STATS_ERR_DEGENERATE);
    assert_int_equal(wilcoxon_signed_rank(with_nan, 2, 0.95, &r), STATS_ERR_DOMAIN);
    assert_int_equal(wilcoxon_signed_rank(with_inf, 2, 0.95, &r), STATS_ERR_DOMAIN);
    assert_int_equal(wilcoxon_signed_rank(some, 3, 1.0, &r), STATS_ERR_DOMAIN);
    assert_int_equal(wilcoxon_signed_rank(some, 3, 0.0, &r), STATS_ERR_DOMAIN);
    assert_int_equal(wilcoxon_rank_sum(some, 3, some, 0, 0.95, &r), STATS_ERR_TOO_FEW);
    assert_int_equal(wilcoxon_rank_sum(some, 0, some, 3, 0.95, &r), STATS_ERR_TOO_FEW);
    assert_int_equal(wilcoxon_rank_sum(some, 3, with_nan, 2, 0.95, &r), STATS_ERR_DOMAIN);
    assert_int_equal(wilcoxon_rank_sum(some, 3, some, 3, NAN, &r), STATS_ERR_DOMAIN);
    /* every value tied: no variance, R's p-value is NaN */
    assert_int_equal(wilcoxon_rank_sum(constant, 3, constant, 3, 0.95, &r), STATS_ERR_DEGENERATE);
    /* each sample constant but different: R stops ("missing value where TRUE/FALSE
     * needed"); the shift is known exactly and has a p-value, only no interval, which
     * compare_samples settles as for a constant paired difference; 3 + 1 values cannot
     * reach 95% (the permutation floor is 2 / C(4, 1) = 0.5) */
    assert_int_equal(wilcoxon_rank_sum(constant, 3, some, 1, 0.95, &r), STATS_OK);
    assert_true(r.estimate == 1.0 && isnan(r.ci_low) && isnan(r.ci_high));
    assert_true(r.achieved_confidence == 0 && r.p_value > 0 && r.p_value < 1);
    assert_true(fabs(r.min_p_value - 0.5) < 1e-12);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_golden_cases),
        cmocka_unit_test(test_signed_rank_special_cases),
        cmocka_unit_test(test_rank_sum_special_cases),
        cmocka_unit_test(test_unreachable_levels),
        cmocka_unit_test(test_ten_thousand_per_group),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
