/* Harrell-Davis quantiles and the paired and unpaired quantile comparisons against R
 * (tests/golden/quantiles.R, r-quantiles.json), their invariances and refusals, and
 * compare_samples with METHOD_QUANTILE. */
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

#include "golden.h"
#include "stats/comparison.h"
#include "stats/quantile.h"
#include "stats/quantile_compare.h"

static json_t *reference(void)
{
    return golden_load_from("VERDICT_QUANTILES");
}

/* Every sample at every quantile: hdquantile's value to 1e-12 relative. */
static void test_hd_matches_hmisc(void **state)
{
    (void)state;
    json_t *doc = reference();
    json_t *cases = json_object_get(doc, "quantiles"), *c;
    size_t i, checked = 0;
    assert_true(json_array_size(cases) >= 10);
    json_array_foreach(cases, i, c) {
        size_t n, np, nh;
        double *x = golden_numbers(json_object_get(c, "x"), &n);
        double *probs = golden_numbers(json_object_get(c, "probs"), &np);
        double *hd = golden_numbers(json_object_get(c, "hd"), &nh);
        assert_int_equal(np, nh);
        for (size_t k = 0; k < np; k++) {
            double got;
            verdict_error err = {0};
            assert_int_equal(quantile_hd(x, n, probs[k], &got, &err), 0);
            if (!golden_close(got, hd[k], 1e-12))
                printf("%s q=%g: %.17g, Hmisc %.17g\n",
                       json_string_value(json_object_get(c, "id")), probs[k], got, hd[k]);
            assert_true(golden_close(got, hd[k], 1e-12));
            checked++;
        }
        free(x);
        free(probs);
        free(hd);
    }
    printf("%zu Harrell-Davis quantiles equal Hmisc::hdquantile's\n", checked);
    json_decref(doc);
}

/* The weights are a distribution over the ranks, and the estimate is scale-equivariant
 * (the comparison's interval relies on it) and lies between the extremes. */
static void test_hd_properties(void **state)
{
    (void)state;
    double w[50], x[50], scaled[50], sum = 0;
    quantile_hd_weights(50, 0.1, w);
    for (size_t i = 0; i < 50; i++) {
        sum += w[i];
        assert_true(w[i] >= 0);
        x[i] = 40.0 + (double)((i * 37) % 50) / 7.0;
        scaled[i] = x[i] * 1.0372;
    }
    assert_true(fabs(sum - 1.0) < 1e-12);
    double a, b;
    verdict_error err = {0};
    assert_int_equal(quantile_hd(x, 50, 0.1, &a, &err), 0);
    assert_int_equal(quantile_hd(scaled, 50, 0.1, &b, &err), 0);
    assert_true(fabs(log(b) - log(a) - log(1.0372)) < 1e-13);
    assert_true(a > 40.0 && a < 40.0 + 49.0 / 7.0);
    double one = 3.5;
    assert_int_equal(quantile_hd(&one, 1, 0.1, &a, &err), 0);
    assert_true(a == 3.5);
    double with_nan[2] = {1.0, NAN};
    assert_int_equal(quantile_hd(with_nan, 2, 0.1, &a, &err), -1);
    assert_true(error_is(&err, ERROR_BAD_INPUT));
    assert_int_equal(quantile_hd(x, 0, 0.1, &a, &err), -1);
    assert_int_equal(quantile_hd(x, 5, 1.5, &a, &err), -1);
}

static bool same_end(double got, const json_t *want)
{
    if (json_is_null(want)) /* R's Inf: no shift rejected */
        return isinf(got);
    return fabs(got - json_number_value(want)) <= 2e-5;
}

/* Every case of one section of the reference, compared with every rearrangement enumerated:
 * the p-value is R's exactly, and the interval ends are where R's bisection on the enumerated
 * p-value puts them. */
static void check_enumerated(const char *section, bool paired)
{
    json_t *doc = reference();
    json_t *cases = json_object_get(doc, section), *c;
    size_t i;
    assert_true(json_array_size(cases) >= 4);
    json_array_foreach(cases, i, c) {
        size_t n, m;
        double *a = golden_numbers(json_object_get(c, "baseline"), &n);
        double *b = golden_numbers(json_object_get(c, "candidate"), &m);
        quantile_options o = {.q = json_number_value(json_object_get(c, "q")),
                              .confidence = json_number_value(json_object_get(c, "confidence")),
                              .seed = 1};
        quantile_comparison got;
        verdict_error err = {0};
        if (paired)
            assert_int_equal(n, m);
        assert_int_equal(paired ? quantile_compare_paired(a, b, n, &o, &got, &err)
                                : quantile_compare_unpaired(a, n, b, m, &o, &got, &err), 0);
        double estimate = json_number_value(json_object_get(c, "estimate"));
        double p = json_number_value(json_object_get(c, "p_value"));
        printf("%s: estimate %.6f (R %.6f), p %.6f (R %.6f), [%.6f, %.6f] (R [%.6f, %.6f])\n",
               json_string_value(json_object_get(c, "id")), got.shift.estimate, estimate,
               got.shift.p_value, p, got.shift.ci_low, got.shift.ci_high,
               json_number_value(json_object_get(c, "ci_low")),
               json_number_value(json_object_get(c, "ci_high")));
        assert_true(got.shift.exact);
        assert_true(fabs(got.shift.estimate - estimate) < 1e-12);
        assert_true(fabs(log(got.candidate_quantile / got.baseline_quantile) - estimate) < 1e-12);
        assert_true(fabs(got.shift.p_value - p) < 1e-12);
        assert_true(same_end(got.shift.ci_low, json_object_get(c, "ci_low")));
        assert_true(same_end(got.shift.ci_high, json_object_get(c, "ci_high")));
        free(a);
        free(b);
    }
    json_decref(doc);
}

/* Paired: every swap within blocks enumerated (quantiles.R, part 2). */
static void test_paired_matches_enumeration(void **state)
{
    (void)state;
    check_enumerated("paired", true);
}

/* Drawn rearrangements (1999 of them): the same answer twice for one seed, an interval that
 * holds the estimate, p below alpha exactly when the interval leaves out 0. */
static void check_drawn(const quantile_comparison *x, const quantile_comparison *y)
{
    assert_false(x->shift.exact);
    assert_int_equal(x->flips, 1999);
    assert_true(x->shift.p_value == y->shift.p_value && x->shift.ci_low == y->shift.ci_low);
    assert_true(x->shift.ci_low < x->shift.estimate && x->shift.estimate < x->shift.ci_high);
    assert_true((x->shift.p_value <= 0.05) == (x->shift.ci_low > 0 || x->shift.ci_high < 0));
}

/* Beyond enumeration: drawn flips give the same answer for one seed, an interval that holds
 * the estimate, a p-value below alpha exactly when the interval leaves out 0, and swapping
 * the variants mirrors everything. */
static void test_paired_drawn_flips(void **state)
{
    (void)state;
    enum { N = 30 };
    double a[N], b[N];
    for (size_t i = 0; i < N; i++) {
        double slow_a = (i * 7) % 5 < 2 ? 1.27 : 1.0, slow_b = (i * 3) % 5 < 2 ? 1.22 : 1.0;
        a[i] = 42.0 * (1.0 + 0.01 * sin((double)i)) * slow_a;
        b[i] = 42.0 * 1.015 * (1.0 + 0.01 * cos((double)i * 1.3)) * slow_b;
    }
    quantile_options o = {.q = 0.1, .confidence = 0.95, .flips = 1999, .seed = 9};
    quantile_comparison x, y, mirrored;
    verdict_error err = {0};
    assert_int_equal(quantile_compare_paired(a, b, N, &o, &x, &err), 0);
    assert_int_equal(quantile_compare_paired(a, b, N, &o, &y, &err), 0);
    assert_int_equal(quantile_compare_paired(b, a, N, &o, &mirrored, &err), 0);
    printf("30 blocks: %.5f [%.5f, %.5f] p %.5f\n", x.shift.estimate, x.shift.ci_low,
           x.shift.ci_high, x.shift.p_value);
    check_drawn(&x, &y);
    assert_true(fabs(mirrored.shift.estimate + x.shift.estimate) < 1e-12);
    assert_true(fabs(mirrored.shift.ci_low + x.shift.ci_high) < 1e-5);
    assert_true(fabs(mirrored.shift.p_value - x.shift.p_value) < 1e-12);
}

/* Identical runs in every block: nothing to flip, p = 1; five blocks cannot reach 5% (the
 * smallest p-value of 32 flips is 2/32): an unbounded interval, never a claim. */
static void test_paired_limits(void **state)
{
    (void)state;
    double a[5] = {10, 11, 12, 13, 14}, b[5] = {20, 22, 24, 26, 28};
    quantile_options o = {.q = 0.1, .confidence = 0.95};
    quantile_comparison c;
    verdict_error err = {0};
    assert_int_equal(quantile_compare_paired(a, a, 5, &o, &c, &err), 0);
    assert_true(c.shift.p_value == 1.0 && c.shift.estimate == 0.0);
    double same[8] = {5, 5, 6, 6, 7, 5, 6, 8};
    assert_int_equal(quantile_compare_paired(same, same, 8, &o, &c, &err), 0);
    assert_true(c.shift.p_value == 1.0); /* and a bounded interval around 0 */
    assert_true(c.shift.ci_low < 0 && c.shift.ci_high > 0);
    assert_true(isfinite(c.shift.ci_low) && isfinite(c.shift.ci_high));
    assert_int_equal(quantile_compare_paired(a, b, 5, &o, &c, &err), 0);
    assert_true(fabs(c.shift.min_p_value - 2.0 / 32.0) < 1e-15);
    assert_true(c.shift.p_value >= c.shift.min_p_value);
    assert_true(isinf(c.shift.ci_low) && isinf(c.shift.ci_high));
    double bad[5] = {10, 11, -1, 13, 14};
    assert_int_equal(quantile_compare_paired(a, bad, 5, &o, &c, &err), -1);
    assert_true(error_is(&err, ERROR_BAD_INPUT));
    assert_int_equal(quantile_compare_paired(a, b, 1, &o, &c, &err), -1);
    o.q = 1.0;
    assert_int_equal(quantile_compare_paired(a, b, 5, &o, &c, &err), -1);
}

/* Unpaired: every assignment of the pooled runs enumerated (quantiles.R, part 3). */
static void test_unpaired_matches_enumeration(void **state)
{
    (void)state;
    check_enumerated("unpaired", false);
}

/* Two unpaired samples of 30 and 25 runs, the candidate 3% slower in its fast runs. */
static void unpaired_samples(double *a, size_t na, double *b, size_t nb)
{
    for (size_t i = 0; i < na; i++)
        a[i] = 42.0 * (1.0 + 0.01 * sin((double)i)) * ((i * 7) % 5 < 2 ? 1.27 : 1.0);
    for (size_t i = 0; i < nb; i++)
        b[i] = 42.0 * 1.03 * (1.0 + 0.01 * cos((double)i * 1.3)) * ((i * 3) % 5 < 2 ? 1.22 : 1.0);
}

/* Beyond enumeration: drawn permutations give the same answer for one seed, an interval that
 * holds the estimate, a p-value below alpha exactly when the interval leaves out 0, and
 * exchanging the samples mirrors the estimate. */
static void test_unpaired_drawn_permutations(void **state)
{
    (void)state;
    enum { NA = 30, NB = 25 };
    double a[NA], b[NB];
    unpaired_samples(a, NA, b, NB);
    quantile_options o = {.q = 0.1, .confidence = 0.95, .flips = 1999, .seed = 9};
    quantile_comparison x, y, mirrored;
    verdict_error err = {0};
    assert_int_equal(quantile_compare_unpaired(a, NA, b, NB, &o, &x, &err), 0);
    assert_int_equal(quantile_compare_unpaired(a, NA, b, NB, &o, &y, &err), 0);
    assert_int_equal(quantile_compare_unpaired(b, NB, a, NA, &o, &mirrored, &err), 0);
    printf("30 + 25 runs: %.5f [%.5f, %.5f] p %.5f\n", x.shift.estimate, x.shift.ci_low,
           x.shift.ci_high, x.shift.p_value);
    check_drawn(&x, &y);
    assert_true(x.shift.ci_low > 0); /* a 3% change of the fast runs, which are 60% of them */
    assert_true(fabs(mirrored.shift.estimate + x.shift.estimate) < 1e-12);
}

/* Three runs a side cannot reach 5% (2 / C(6, 3) = 0.1): an unbounded interval; the
 * refusals name the side and the run; the fewest runs that can decide. */
static void test_unpaired_limits(void **state)
{
    (void)state;
    double a[3] = {10, 11, 12}, b[3] = {20, 22, 24};
    quantile_options o = {.q = 0.1, .confidence = 0.95};
    quantile_comparison c;
    verdict_error err = {0};
    assert_int_equal(quantile_compare_unpaired(a, 3, b, 3, &o, &c, &err), 0);
    assert_true(c.shift.exact);
    assert_true(fabs(c.shift.min_p_value - 2.0 / 20.0) < 1e-15);
    assert_true(fabs(c.shift.p_value - 2.0 / 20.0) < 1e-15); /* the most extreme there is */
    assert_true(isinf(c.shift.ci_low) && isinf(c.shift.ci_high));
    double bad[3] = {10, NAN, 12};
    assert_int_equal(quantile_compare_unpaired(a, 3, bad, 3, &o, &c, &err), -1);
    assert_true(error_is(&err, ERROR_BAD_INPUT));
    assert_non_null(strstr(err.message, "candidate run 2"));
    assert_int_equal(quantile_compare_unpaired(a, 1, b, 3, &o, &c, &err), -1);
    assert_non_null(strstr(err.message, "1 baseline runs"));
    assert_int_equal(quantile_compare_min_n(0.95, true), 6);   /* 2 / 64 <= 0.05 < 2 / 32 */
    assert_int_equal(quantile_compare_min_n(0.95, false), 4);  /* 2 / 70 <= 0.05 < 2 / 20 */
    assert_int_equal(quantile_compare_min_n(0.995, true), 9);  /* 2 / 512 <= 0.005 */
}

/* compare_samples with METHOD_QUANTILE: the paired and unpaired comparisons' numbers, the
 * default quantile, the verdict rules (a clear change called, too few blocks never), and the
 * refusals of options out of range. */
static void test_compare_samples_quantile(void **state)
{
    (void)state;
    enum { N = 25 };
    double a[30], b[N];
    unpaired_samples(a, 30, b, N);
    comparison_options co = {.method = METHOD_QUANTILE, .paired = true, .confidence = 0.95,
                             .margin = 0.01, .seed = 3};
    comparison c;
    assert_int_equal(compare_samples(a, N, b, N, &co, &c), STATS_OK);
    assert_string_equal(c.method_name, "quantile-hd-swap");
    assert_true(c.quantile == 0.1);
    quantile_options qo = {.q = 0.1, .confidence = 0.95, .seed = 3};
    quantile_comparison q;
    verdict_error err = {0};
    assert_int_equal(quantile_compare_paired(a, b, N, &qo, &q, &err), 0);
    assert_true(fabs(log(c.ratio) - q.shift.estimate) < 1e-12);
    assert_true(fabs(c.p_value - q.shift.p_value) < 1e-15);
    assert_int_equal(c.decision.kind, VERDICT_WORSE);

    co.paired = false;
    co.quantile = 0.25;
    assert_int_equal(compare_samples(a, 30, b, N, &co, &c), STATS_OK);
    assert_string_equal(c.method_name, "quantile-hd-permutation");
    assert_true(c.quantile == 0.25);
    qo.q = 0.25;
    assert_int_equal(quantile_compare_unpaired(a, 30, b, N, &qo, &q, &err), 0);
    assert_true(fabs(log(c.ratio) - q.shift.estimate) < 1e-12);
    assert_int_equal(c.n_baseline, 30);

    co.paired = true; /* five blocks: 2 / 32 > 0.05, never a verdict */
    co.quantile = 0;
    assert_int_equal(compare_samples(a, 5, b, 5, &co, &c), STATS_OK);
    assert_int_equal(c.decision.kind, VERDICT_INCONCLUSIVE);
    assert_int_equal(c.decision.reason, UNDECIDED_CONFIDENCE);

    /* Where higher is better (tps), interference takes from the value: the good end that
     * --quantile 0.25 names is the 75th percentile, compared and reported as such. */
    co.quantile = 0.25;
    co.higher_is_better = true;
    assert_int_equal(compare_samples(a, N, b, N, &co, &c), STATS_OK);
    assert_true(c.quantile == 0.75);
    qo.q = 0.75;
    assert_int_equal(quantile_compare_paired(a, b, N, &qo, &q, &err), 0);
    assert_true(fabs(log(c.ratio) - q.shift.estimate) < 1e-12);
    qo.q = 0.25;
    assert_int_equal(quantile_compare_paired(a, b, N, &qo, &q, &err), 0);
    assert_true(fabs(log(c.ratio) - q.shift.estimate) > 1e-6);
    co.higher_is_better = false;
    co.quantile = 0;

    assert_int_equal(compare_samples(a, 25, b, 20, &co, &c), STATS_ERR_DOMAIN);
    co.quantile = 1.5;
    assert_int_equal(compare_samples(a, N, b, N, &co, &c), STATS_ERR_DOMAIN);
    co.quantile = 0.1;
    double zero[N];
    for (size_t i = 0; i < N; i++)
        zero[i] = i == 3 ? 0.0 : b[i];
    assert_int_equal(compare_samples(a, N, zero, N, &co, &c), STATS_ERR_DOMAIN);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hd_matches_hmisc),
        cmocka_unit_test(test_hd_properties),
        cmocka_unit_test(test_paired_matches_enumeration),
        cmocka_unit_test(test_paired_drawn_flips),
        cmocka_unit_test(test_paired_limits),
        cmocka_unit_test(test_unpaired_matches_enumeration),
        cmocka_unit_test(test_unpaired_drawn_permutations),
        cmocka_unit_test(test_unpaired_limits),
        cmocka_unit_test(test_compare_samples_quantile),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
