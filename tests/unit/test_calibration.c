/* verdict calibrate's analysis (stats/calibration.c): Clopper-Pearson and lag-1 against R
 * (tests/golden/calibration.R), the order effect and slow runs on constructed data, and
 * A/A and shifted experiments simulated with a fixed seed. */
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
#include "stats/calibration.h"
#include "stats/random.h"

static json_t *reference(void)
{
    return golden_load_from("VERDICT_CALIBRATION");
}

static void test_clopper_pearson_matches_binom_test(void **state)
{
    (void)state;
    json_t *doc = reference(), *c;
    json_t *cases = json_object_get(doc, "binom");
    size_t i;
    assert_true(json_array_size(cases) >= 10);
    json_array_foreach(cases, i, c) {
        double low, high;
        size_t x = (size_t)json_integer_value(json_object_get(c, "successes"));
        size_t n = (size_t)json_integer_value(json_object_get(c, "trials"));
        calibration_clopper_pearson(x, n, json_number_value(json_object_get(c, "confidence")),
                                    &low, &high);
        double want_low = json_number_value(json_object_get(c, "low"));
        double want_high = json_number_value(json_object_get(c, "high"));
        if (!golden_close(low, want_low, 1e-9) || !golden_close(high, want_high, 1e-9))
            printf("%zu of %zu: [%.17g, %.17g], R [%.17g, %.17g]\n", x, n, low, high, want_low,
                   want_high);
        assert_true(golden_close(low, want_low, 1e-9));
        assert_true(golden_close(high, want_high, 1e-9));
        assert_true(low <= (double)x / (double)n && (double)x / (double)n <= high);
    }
    printf("%zu Clopper-Pearson intervals equal binom.test's\n", json_array_size(cases));
    json_decref(doc);
}

static void test_lag1_matches_acf(void **state)
{
    (void)state;
    json_t *doc = reference(), *c;
    size_t i;
    json_array_foreach(json_object_get(doc, "lag1"), i, c) {
        size_t n;
        double *x = golden_numbers(json_object_get(c, "x"), &n);
        double want = json_number_value(json_object_get(c, "lag1"));
        assert_true(golden_close(calibration_lag1(x, n), want, 1e-12));
        free(x);
    }
    double constant[] = {3, 3, 3, 3}, two[] = {1, 2};
    assert_true(isnan(calibration_lag1(constant, 4)));
    assert_true(isnan(calibration_lag1(two, 2)));
    json_decref(doc);
}

/* Eight runs at the fast mode and two 25% above it: a fifth of the runs are slow; at 5% above
 * the mode none is. */
static void test_share_above(void **state)
{
    (void)state;
    double x[] = {40, 50, 40.1, 40, 39.9, 50, 40.2, 40, 40.3, 40.1};
    assert_true(golden_close(calibration_share_above(x, 10, 0.1, 1.1), 0.2, 1e-15));
    double fast[] = {40, 40.5, 41, 41.5, 42};
    assert_true(calibration_share_above(fast, 5, 0.1, 1.1) == 0.0);
}

/* The model of issue 27: a fast mode 1.7% wide (uniform), 40% of the runs slowed by 20-35%. */
static double noisy_run(stats_random *r, double mode)
{
    double u = (double)(stats_random_next(r) >> 11) / 9007199254740992.0;
    double v = (double)(stats_random_next(r) >> 11) / 9007199254740992.0;
    double w = (double)(stats_random_next(r) >> 11) / 9007199254740992.0;
    double spread = 1.0 + 0.02 * (u - 0.5) * 1.7;
    return mode * spread * (v < 0.4 ? 1.2 + 0.15 * w : 1.0);
}

/* Up to 20 experiments of up to 20 blocks (the analysis of one costs about a second under
 * the sanitizers: the bootstrap's resamples and the quantile comparison's flips). */
typedef struct {
    double a[20][20], b[20][20];
    bool a_first[20][20];
    calibration_experiment x[20];
} simulated;

static void simulate(simulated *s, uint64_t seed, size_t experiments, size_t blocks, double shift)
{
    stats_random r;
    stats_random_seed(&r, seed);
    for (size_t e = 0; e < experiments; e++) {
        for (size_t i = 0; i < blocks; i++) {
            s->a[e][i] = noisy_run(&r, 40.0);
            s->b[e][i] = noisy_run(&r, 40.0 * shift);
            s->a_first[e][i] = stats_random_below(&r, 2) == 0;
        }
        s->x[e] = (calibration_experiment){s->a[e], s->b[e], s->a_first[e], blocks};
    }
}

/* Simulates and analyses, the rate by `method`. */
static calibration_result simulate_and_analyse(uint64_t seed, size_t experiments,
                                               size_t blocks, double shift,
                                               calibration_method method)
{
    simulated *s = malloc(sizeof *s);
    assert_non_null(s);
    simulate(s, seed, experiments, blocks, shift);
    calibration_options o = {.confidence = 0.95, .margin = 0.01, .method = method, .seed = 5};
    calibration_result r;
    verdict_error err = {0};
    assert_int_equal(calibration_analyse(s->x, experiments, &o, &r, &err), 0);
    free(s);
    return r;
}

/* A/A under one-sided bimodal noise: the rate is the chosen method's count over the
 * experiments inside its exact interval; no method calls more than a fifth different (5%
 * expected: 1 of 20); the noise profile finds the slow runs and no order or serial effect. */
static void test_simulated_aa(void **state)
{
    (void)state;
    calibration_result r = simulate_and_analyse(27, 20, 20, 1.0, CALIBRATION_WELCH);
    assert_int_equal(r.experiments, 20);
    assert_int_equal(r.false_positives, r.methods[CALIBRATION_WELCH].false_positives);
    assert_true(r.rate == r.false_positives / 20.0);
    assert_true(r.rate_low <= r.rate && r.rate <= r.rate_high);
    for (size_t m = 0; m < CALIBRATION_METHODS; m++) {
        printf("%s: %zu of %zu called, median half-width %.4f\n",
               calibration_method_name((calibration_method)m), r.methods[m].false_positives,
               r.methods[m].compared, r.methods[m].median_half_width);
        assert_int_equal(r.methods[m].compared, 20);
        assert_true(r.methods[m].false_positives <= 4);
        assert_true(r.methods[m].median_half_width > 0 && isfinite(r.methods[m].median_half_width));
        assert_true(r.methods[r.fastest].median_half_width <= r.methods[m].median_half_width);
    }
    assert_true(r.has_fastest);
    printf("cv %.3f slow %.3f lag1 %.3f order %.4f [%.4f, %.4f]\n", r.cv, r.slow_share, r.lag1,
           r.order.estimate, r.order.ci_low, r.order.ci_high);
    assert_true(r.slow_share > 0.3 && r.slow_share < 0.5);
    assert_true(r.cv > 0.05 && r.cv < 0.2);
    assert_true(fabs(r.lag1) < 0.1);
    assert_true(r.order.ci_low < 0 && 0 < r.order.ci_high);
}

/* A 20% slower b is no false positive of an A/A test but is called by every method in nearly
 * every experiment of 12 blocks: the counts are calls, not a constant; and a method calling
 * that often is never the one that "decides fastest". */
static void test_simulated_shift_is_called(void **state)
{
    (void)state;
    calibration_result r = simulate_and_analyse(28, 10, 12, 1.2, CALIBRATION_QUANTILE);
    for (size_t m = 0; m < CALIBRATION_METHODS; m++)
        assert_true(r.methods[m].false_positives >= 9);
    assert_int_equal(r.false_positives, r.methods[CALIBRATION_QUANTILE].false_positives);
    assert_false(r.has_fastest); /* every method calls far more than 5%: none is eligible */
}

/* The second run of every block 2% slower than the first, whichever variant ran first: the
 * order effect is log(1.02) exactly, and a and b do not differ. */
static void test_order_effect(void **state)
{
    (void)state;
    double a[12], b[12];
    bool a_first[12];
    for (size_t i = 0; i < 12; i++) {
        double first = 40.0 + (double)(i % 5), noise = i % 2 ? 1.001 : 1 / 1.001;
        a_first[i] = i % 2 == 0 || i % 3 == 0;
        double second = first * 1.02 * noise;
        a[i] = a_first[i] ? first : second;
        b[i] = a_first[i] ? second : first;
    }
    calibration_experiment x = {a, b, a_first, 12};
    calibration_options o = {.confidence = 0.95, .margin = 0.01, .seed = 1};
    calibration_result r;
    verdict_error err = {0};
    assert_int_equal(calibration_analyse(&x, 1, &o, &r, &err), 0);
    assert_true(golden_close(r.order.estimate, log(1.02), 1e-12));
    assert_true(r.order.ci_low < log(1.02) && log(1.02) < r.order.ci_high);
    assert_true(r.order.ci_low > 0);
}

static void test_refusals(void **state)
{
    (void)state;
    double a[] = {1, 2, 3}, b[] = {1, -2, 3};
    bool f[] = {true, false, true};
    calibration_experiment x = {a, b, f, 3}, one = {a, a, f, 1};
    calibration_options o = {.confidence = 0.95, .margin = 0.01};
    calibration_result r;
    verdict_error err = {0};
    assert_int_equal(calibration_analyse(&x, 1, &o, &r, &err), -1);
    assert_true(error_is(&err, ERROR_BAD_INPUT));
    assert_non_null(strstr(err.message, "block 2"));
    assert_int_equal(calibration_analyse(&one, 1, &o, &r, &err), -1);
    assert_non_null(strstr(err.message, "1 blocks"));
    assert_int_equal(calibration_analyse(&x, 0, &o, &r, &err), -1);
    calibration_method m;
    assert_int_equal(calibration_method_parse("quantile", &m, &err), 0);
    assert_int_equal(m, CALIBRATION_QUANTILE);
    assert_int_equal(calibration_method_parse("median", &m, &err), -1);
    assert_non_null(strstr(err.message, "'median'"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_clopper_pearson_matches_binom_test),
        cmocka_unit_test(test_lag1_matches_acf),
        cmocka_unit_test(test_share_above),
        cmocka_unit_test(test_simulated_aa),
        cmocka_unit_test(test_simulated_shift_is_called),
        cmocka_unit_test(test_order_effect),
        cmocka_unit_test(test_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
