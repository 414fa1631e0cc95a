/* Unit tests for diagnostics.c: Mann–Kendall against R's Kendall test, its calibration on
 * shuffled series, the bimodality coefficient against R formulas, and outlier counts. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdlib.h>

#include "golden.h"
#include "stats/diagnostics.h"
#include "stats/distributions.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* R reference for Mann–Kendall. Base R has it: cor.test(x, seq_along(x), method =
 * "kendall", exact = FALSE, continuity = TRUE) uses the tie-corrected variance of S
 * (time has no ties, so its extra terms vanish), shrinks |S| by 1, and reports tau-b, z and
 * 2 * pnorm(-|z|) — exactly our definition. Note continuity = TRUE: R's default is FALSE.
 * S itself is sum(sign(x[j] - x[i])) over i < j, computed in R with a double loop. */
typedef struct {
    const double *x;
    size_t n;
    double s, tau, z, p;
} mk_case;

static void expect_mann_kendall(const mk_case *c)
{
    trend_result r;
    assert_int_equal(trend_mann_kendall(c->x, c->n, &r), STATS_OK);
    assert_true(r.s == c->s);
    assert_true(golden_close(r.tau, c->tau, 1e-13));
    assert_true(golden_close(r.z, c->z, 1e-13));
    assert_true(golden_close(r.p_value, c->p, 1e-11));
}

static void mann_kendall_matches_r(void **state)
{
    (void)state;
    static const double rising[] = {5.1, 4.9, 5.3, 5.0, 5.4, 5.2, 5.6, 5.5, 5.8, 5.7};
    static const double tied[] = {3, 1, 2, 2, 5, 3, 3, 4, 1, 6, 2, 5};
    static const double falling[] = {10, 9, 9, 8, 9, 7, 7, 6, 8, 5, 5, 4, 6, 3};
    static const double flat[] = {2.0, 2.5, 1.0, 3.0, 1.5, 2.0, 2.5};
    const mk_case cases[] = {
        /* x <- c(5.1, 4.9, 5.3, 5.0, 5.4, 5.2, 5.6, 5.5, 5.8, 5.7) */
        {rising, COUNT(rising), 31, 0.68888888888888888, 2.6832815729997477,
         0.0072903580915356404},
        /* x <- c(3, 1, 2, 2, 5, 3, 3, 4, 1, 6, 2, 5) (tie groups of 2, 3 and 2) */
        {tied, COUNT(tied), 18, 0.2909286827258562, 1.1921876846410704, 0.2331876612487486},
        /* x <- c(10, 9, 9, 8, 9, 7, 7, 6, 8, 5, 5, 4, 6, 3) */
        {falling, COUNT(falling), -70, -0.80064076902543557, -3.8215565517898078,
         0.0001326119945816135},
        /* x <- c(2.0, 2.5, 1.0, 3.0, 1.5, 2.0, 2.5) */
        {flat, COUNT(flat), 3, 0.15018785229652767, 0.30738931174713596, 0.75854706263862626},
    };
    for (size_t i = 0; i < COUNT(cases); i++)
        expect_mann_kendall(&cases[i]);
}

/* A steady drift (as a warming machine gives) plus deterministic wiggle. */
static void trend_series(double *x, size_t n)
{
    for (size_t i = 0; i < n; i++)
        x[i] = 100.0 + 0.05 * (double)i + 0.3 * sin(1.7 * (double)i);
}

static void clear_trend_detected_shuffles_calibrated(void **state)
{
    (void)state;
    enum { N = 40, SHUFFLES = 400 };
    double x[N];
    trend_series(x, N);
    trend_result r;
    assert_int_equal(trend_mann_kendall(x, N, &r), STATS_OK);
    assert_true(r.p_value < 1e-3);
    assert_true(r.tau > 0.5);

    /* The same values in random order carry no trend: the test should reject at 5% about
     * 5% of the time (a little less: the continuity correction is conservative; 3.0% with
     * this seed). 400 shuffles: binomial sd 1.1%, so [1%, 9%] fails only if broken. */
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, 20261130);
    size_t rejections = 0;
    for (int k = 0; k < SHUFFLES; k++) {
        gsl_ran_shuffle(rng, x, N, sizeof x[0]);
        assert_int_equal(trend_mann_kendall(x, N, &r), STATS_OK);
        rejections += r.p_value < 0.05;
    }
    gsl_rng_free(rng);
    double rate = (double)rejections / SHUFFLES;
    print_message("Mann-Kendall on shuffled series: %.1f%% below 0.05\n", 100.0 * rate);
    assert_true(rate >= 0.01 && rate <= 0.09);
}

static void mann_kendall_edge_cases(void **state)
{
    (void)state;
    const double constant[] = {4, 4, 4, 4}, two[] = {1, 2}, nan[] = {1, NAN, 3};
    trend_result r;
    assert_int_equal(trend_mann_kendall(constant, 4, &r), STATS_ERR_DEGENERATE);
    assert_int_equal(trend_mann_kendall(two, 2, &r), STATS_ERR_TOO_FEW);
    assert_int_equal(trend_mann_kendall(nan, 3, &r), STATS_ERR_DOMAIN);
}

/* The definition, as the O(n^2) double loop that trend_mann_kendall used to be. */
static double naive_kendall_s(const double *x, size_t n)
{
    double s = 0.0;
    for (size_t i = 0; i + 1 < n; i++)
        for (size_t j = i + 1; j < n; j++)
            s += (x[j] > x[i]) - (x[j] < x[i]);
    return s;
}

/* z from S with the tie-corrected variance, the tie groups counted directly (the values
 * are the integers 0..9). */
static double expected_z(double s, const double *x, size_t n)
{
    double groups[10] = {0}, nd = (double)n, ties = 0.0;
    for (size_t i = 0; i < n; i++)
        groups[(int)x[i]] += 1.0;
    for (int v = 0; v < 10; v++)
        ties += groups[v] * (groups[v] - 1.0) * (2.0 * groups[v] + 5.0);
    double variance = (nd * (nd - 1.0) * (2.0 * nd + 5.0) - ties) / 18.0;
    double corrected = s > 0.0 ? s - 1.0 : s < 0.0 ? s + 1.0 : 0.0;
    return corrected / sqrt(variance);
}

/* The merge-sort count gives exactly the double loop's S on data full of ties (integers
 * 0..9, 3 to 3000 of them, lengths that are and are not powers of two so the merge's
 * short last runs are exercised), and the z of that S. */
static void mann_kendall_merge_count_matches_the_double_loop(void **state)
{
    (void)state;
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, 18);
    static double x[3000];
    const size_t lengths[] = {3, 4, 5, 7, 8, 17, 64, 100, 257, 1000, 2999, 3000};
    for (size_t c = 0; c < COUNT(lengths); c++) {
        size_t n = lengths[c];
        for (size_t i = 0; i < n; i++)
            x[i] = (double)gsl_rng_uniform_int(rng, 10);
        x[0] = 0.0; /* never all equal */
        x[n - 1] = 9.0;
        trend_result r;
        assert_int_equal(trend_mann_kendall(x, n, &r), STATS_OK);
        double s = naive_kendall_s(x, n);
        assert_true(r.s == s);
        assert_true(golden_close(r.z, expected_z(s, x, n), 1e-12));
        assert_true(fabs(r.tau) <= 1.0);
    }
    gsl_rng_free(rng);
}

/* A million values: the double loop needed 5e11 comparisons (hours; meson's 120 s
 * timeout stops this test on that code); the merge count needs about 2e7. A strictly
 * rising series has S = n(n-1)/2 and tau 1; a falling one the negatives. */
static void mann_kendall_handles_a_million_values(void **state)
{
    (void)state;
    enum { N = 1000000 };
    double *x = malloc(N * sizeof *x);
    assert_non_null(x);
    for (size_t i = 0; i < N; i++)
        x[i] = (double)i;
    trend_result r;
    assert_int_equal(trend_mann_kendall(x, N, &r), STATS_OK);
    assert_true(r.s == (double)N * (N - 1) / 2);
    assert_true(golden_close(r.tau, 1.0, 1e-12));
    for (size_t i = 0; i < N; i++)
        x[i] = (double)(N - i);
    assert_int_equal(trend_mann_kendall(x, N, &r), STATS_OK);
    assert_true(r.s == -(double)N * (N - 1) / 2);
    free(x);
}

/* R's ppoints(n) quantiles of N(mean, 1): an idealised sample without sampling noise. */
static void normal_scores(double *x, size_t n, double mean)
{
    double a = n <= 10 ? 3.0 / 8.0 : 0.5;
    for (size_t i = 0; i < n; i++)
        x[i] = mean + dist_qnorm(((double)i + 1.0 - a) / ((double)n + 1.0 - 2.0 * a));
}

/* R reference: bc <- function(x) { n <- length(x); m <- mean(x); m2 <- mean((x-m)^2);
 *   m3 <- mean((x-m)^3); m4 <- mean((x-m)^4); G1 <- sqrt(n*(n-1))/(n-2) * m3/m2^1.5;
 *   G2 <- ((n+1)*(m4/m2^2 - 3) + 6)*(n-1)/((n-2)*(n-3));
 *   (G1^2+1)/(G2 + 3*(n-1)^2/((n-2)*(n-3))) } */
static void bimodality_separates_one_and_two_modes(void **state)
{
    (void)state;
    const double threshold = 5.0 / 9.0; /* the uniform distribution's value */
    double normal[50], two_modes[50], bc;
    normal_scores(normal, 50, 0.0);
    normal_scores(two_modes, 25, 10.0);
    normal_scores(two_modes + 25, 25, 20.0);
    /* bc(qnorm(ppoints(50))) */
    assert_int_equal(bimodality_coefficient(normal, 50, &bc), STATS_OK);
    assert_true(golden_close(bc, 0.33076943897036204, 1e-12));
    assert_true(bc < threshold);
    /* bc(c(qnorm(ppoints(25), 10, 1), qnorm(ppoints(25), 20, 1))) */
    assert_int_equal(bimodality_coefficient(two_modes, 50, &bc), STATS_OK);
    assert_true(golden_close(bc, 0.78963780332409317, 1e-12));
    assert_true(bc > threshold);
    /* bc(c(1, 2, 4, 8, 16, 32)): skewed, small n */
    const double skewed[] = {1, 2, 4, 8, 16, 32};
    assert_int_equal(bimodality_coefficient(skewed, 6, &bc), STATS_OK);
    assert_true(golden_close(bc, 0.39988892635054984, 1e-12));
}

/* Kelly's tail skewness against R:
 *   k <- function(x) { q <- quantile(x, c(.1, .5, .9), type = 7)
 *                      (q[3] + q[1] - 2 * q[2]) / (q[3] - q[1]) }
 * symmetric 0, exponential about 0.45, a fast mode of 30 and a slow one of 20 near 0.87: the
 * try-quantile suggestion's rule (over 0.3) tells the last two from the first. */
static void tail_skewness_against_r(void **state)
{
    (void)state;
    double normal[50], exponential[50], two_modes[50], k;
    normal_scores(normal, 50, 0.0);
    for (size_t i = 0; i < 50; i++) /* qexp(ppoints(50)) */
        exponential[i] = -log(1.0 - ((double)i + 1.0 - 0.5) / 50.0);
    for (size_t i = 0; i < 50; i++)
        two_modes[i] = i < 30 ? 42.0 * (1 + 0.001 * (double)i) : 54.0 * (1 + 0.001 * (double)(i - 30));
    assert_int_equal(tail_skewness(normal, 50, &k), STATS_OK);
    assert_true(fabs(k) < 1e-12);
    assert_int_equal(tail_skewness(exponential, 50, &k), STATS_OK);
    assert_true(golden_close(k, 0.45193813015918921, 1e-12));
    assert_int_equal(tail_skewness(two_modes, 50, &k), STATS_OK);
    assert_true(golden_close(k, 0.86887126063270526, 1e-12));
    const double flat[10] = {3, 3, 3, 3, 3, 3, 3, 3, 3, 3};
    assert_int_equal(tail_skewness(flat, 10, &k), STATS_ERR_DEGENERATE);
    assert_int_equal(tail_skewness(flat, 9, &k), STATS_ERR_TOO_FEW);
}

static void bimodality_edge_cases(void **state)
{
    (void)state;
    const double three[] = {1, 2, 3}, flat[] = {5, 5, 5, 5, 5};
    double bc;
    assert_int_equal(bimodality_coefficient(three, 3, &bc), STATS_ERR_TOO_FEW);
    assert_int_equal(bimodality_coefficient(flat, 5, &bc), STATS_ERR_DEGENERATE);
}

static void outliers_counted(void **state)
{
    (void)state;
    /* x <- c(10.0, 10.2, 9.9, 10.1, 10.0, 9.8, 10.3, 10.1, 15.0, 3.0, 10.4, 9.7)
     * sum(0.6745*abs(x-median(x))/median(abs(x-median(x))) > 3.5) -> 2 (15.0 and 3.0) */
    const double planted[] = {10.0, 10.2, 9.9, 10.1, 10.0, 9.8, 10.3, 10.1, 15.0, 3.0, 10.4, 9.7};
    size_t count;
    assert_int_equal(count_outliers_mad(planted, COUNT(planted), 3.5, &count), STATS_OK);
    assert_int_equal(count, 2);
    /* Lower the threshold under 1.18 and the two 1.18 scores (10.4, 9.7) join in. */
    assert_int_equal(count_outliers_mad(planted, COUNT(planted), 1.0, &count), STATS_OK);
    assert_int_equal(count, 4);
}

static void outliers_when_mad_is_zero(void **state)
{
    (void)state;
    /* More than half the values equal the median, so the MAD is 0 and the mean absolute
     * deviation (5/8) scales instead: scores 1/(1.253314*0.625) = 1.28 for the 6 and
     * 5.11 for the 9; only the 9 is an outlier at 3.5. */
    const double coarse[] = {5, 5, 6, 5, 5, 9, 5, 5};
    const double constant[] = {3, 3, 3};
    size_t count;
    assert_int_equal(count_outliers_mad(coarse, COUNT(coarse), 3.5, &count), STATS_OK);
    assert_int_equal(count, 1);
    assert_int_equal(count_outliers_mad(constant, 3, 3.5, &count), STATS_OK);
    assert_int_equal(count, 0);
    assert_int_equal(count_outliers_mad(constant, 0, 3.5, &count), STATS_ERR_TOO_FEW);
    assert_int_equal(count_outliers_mad(constant, 3, 0.0, &count), STATS_ERR_DOMAIN);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(mann_kendall_matches_r),
        cmocka_unit_test(clear_trend_detected_shuffles_calibrated),
        cmocka_unit_test(mann_kendall_edge_cases),
        cmocka_unit_test(mann_kendall_merge_count_matches_the_double_loop),
        cmocka_unit_test(mann_kendall_handles_a_million_values),
        cmocka_unit_test(bimodality_separates_one_and_two_modes),
        cmocka_unit_test(bimodality_edge_cases),
        cmocka_unit_test(tail_skewness_against_r),
        cmocka_unit_test(outliers_counted),
        cmocka_unit_test(outliers_when_mad_is_zero),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
