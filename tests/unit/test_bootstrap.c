/* Unit tests for bootstrap.c: reproducibility by seed, stability across seeds, coverage of
 * the BCa interval by simulation (paired and unpaired), pairing, degenerate data, errors. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <string.h>

#include "stats/bootstrap.h"

enum { N = 30 };
static const double true_shift = 0.05; /* log ratio of the candidate's median to the baseline */

/* Timing-like samples: lognormal with a 5% multiplicative noise, then logged, as verdict
 * feeds the bootstrap. Paired blocks share a block effect (the machine's state in that
 * block), which the paired resampling must keep together. */
static void lognormal_logs(gsl_rng *rng, bool paired, double *x, double *y)
{
    for (size_t i = 0; i < N; i++) {
        double block = paired ? gsl_ran_gaussian(rng, 0.1) : 0.0;
        y[i] = log(gsl_ran_lognormal(rng, 2.0 + block, 0.05));
        x[i] = log(gsl_ran_lognormal(rng, 2.0 + true_shift + block, 0.05));
    }
}

static void make_data(uint64_t seed, bool paired, double *x, double *y)
{
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    assert_non_null(rng);
    gsl_rng_set(rng, (unsigned long)seed);
    lognormal_logs(rng, paired, x, y);
    gsl_rng_free(rng);
}

/* Paired data go through the paired entry point on the per-block differences, as
 * compare_samples sends them; unpaired through the median shift. */
static stats_status run_bootstrap(const double *x, size_t m, const double *y, size_t n,
                                  bool paired, double confidence, uint64_t seed,
                                  size_t resamples, shift_result *out)
{
    if (!paired)
        return bootstrap_bca_median_shift(x, m, y, n, confidence, seed, resamples, out);
    if (m != n)
        return STATS_ERR_DOMAIN;
    double d[N];
    assert_true(n <= N);
    for (size_t i = 0; i < n; i++)
        d[i] = x[i] - y[i];
    return bootstrap_bca_paired_location(d, n, confidence, seed, resamples, out);
}

static void same_seed_same_result(void **state)
{
    (void)state;
    double x[N], y[N];
    for (int paired = 0; paired <= 1; paired++) {
        make_data(7, paired, x, y);
        shift_result first, second;
        assert_int_equal(run_bootstrap(x, N, y, N, paired, 0.95, 42, 999, &first),
                         STATS_OK);
        assert_int_equal(run_bootstrap(x, N, y, N, paired, 0.95, 42, 999, &second),
                         STATS_OK);
        assert_true(first.estimate == second.estimate);
        assert_true(first.ci_low == second.ci_low && first.ci_high == second.ci_high);
        assert_true(first.p_value == second.p_value);
        assert_true(isnan(first.statistic) && isnan(first.df));
        assert_true(first.achieved_confidence == 0.95);
        assert_false(first.exact);
        assert_true(first.ci_low <= first.estimate && first.estimate <= first.ci_high);
    }
}

/* Seeds change only the Monte Carlo error: with 4000 resamples the ends move by a small
 * part of the interval's width, and the estimate (no resampling) not at all. */
static void different_seeds_close(void **state)
{
    (void)state;
    double x[N], y[N];
    for (int paired = 0; paired <= 1; paired++) {
        make_data(11, paired, x, y);
        shift_result base, other;
        assert_int_equal(run_bootstrap(x, N, y, N, paired, 0.95, 1, 4000, &base),
                         STATS_OK);
        double width = base.ci_high - base.ci_low;
        assert_true(width > 0.0);
        bool any_difference = false;
        for (uint64_t seed = 2; seed <= 6; seed++) {
            assert_int_equal(
                run_bootstrap(x, N, y, N, paired, 0.95, seed, 4000, &other),
                STATS_OK);
            assert_true(other.estimate == base.estimate);
            assert_true(fabs(other.ci_low - base.ci_low) < 0.2 * width);
            assert_true(fabs(other.ci_high - base.ci_high) < 0.2 * width);
            any_difference |= other.ci_low != base.ci_low || other.ci_high != base.ci_high;
        }
        assert_true(any_difference); /* the seed is actually used */
    }
}

/* Seeds that differ only above bit 31 must still give different streams. */
static void high_seed_bits_matter(void **state)
{
    (void)state;
    double x[N], y[N];
    make_data(3, false, x, y);
    shift_result low, high;
    assert_int_equal(run_bootstrap(x, N, y, N, false, 0.95, 5, 999, &low), STATS_OK);
    assert_int_equal(run_bootstrap(x, N, y, N, false, 0.95, 5 + (UINT64_C(1) << 40),
                                                999, &high),
                     STATS_OK);
    assert_true(low.ci_low != high.ci_low || low.ci_high != high.ci_high);
    /* GSL's mt19937 made 0, 4357 (its default) and 2^32 + 1 (folded to 0) one stream. */
    const uint64_t seeds[] = {0, 4357, (UINT64_C(1) << 32) + 1, 1};
    shift_result r[4];
    for (size_t i = 0; i < 4; i++)
        assert_int_equal(run_bootstrap(x, N, y, N, false, 0.95, seeds[i], 999, &r[i]), STATS_OK);
    for (size_t i = 0; i < 4; i++)
        for (size_t j = i + 1; j < 4; j++)
            assert_true(r[i].ci_low != r[j].ci_low || r[i].ci_high != r[j].ci_high);
}

static double coverage(bool paired, int datasets, size_t resamples)
{
    double x[N], y[N];
    int covered = 0;
    for (int d = 0; d < datasets; d++) {
        make_data(1000 + (uint64_t)d, paired, x, y);
        shift_result r;
        assert_int_equal(run_bootstrap(x, N, y, N, paired, 0.95, (uint64_t)d,
                                                    resamples, &r),
                         STATS_OK);
        covered += r.ci_low <= true_shift && true_shift <= r.ci_high;
    }
    return (double)covered / datasets;
}

/* BCa is second-order accurate only asymptotically; for the median of 30 values its
 * coverage is near, not at, 95%. Trial runs of this very design (4000 datasets, other
 * seeds, 1000 resamples) measured 94.7% unpaired and 93.9% paired (94.8% / 94.2% with
 * 2000 resamples). With 400 datasets the binomial sd is about 1.2 points, so [90%, 98%]
 * is at least 3 sd from the measured rates on both sides: a correct implementation passes,
 * while the usual bugs (a swapped z0 sign, quantiles off by one tail, resampling x without
 * y in blocks) fall far outside. The seeds are fixed, so the outcome is deterministic. */
static void coverage_near_nominal(void **state)
{
    (void)state;
    enum { DATASETS = 400 };
    double unpaired = coverage(false, DATASETS, 1000);
    double paired = coverage(true, DATASETS, 1000);
    print_message("BCa 95%% coverage over %d datasets: unpaired %.1f%%, paired %.1f%%\n",
                  DATASETS, 100.0 * unpaired, 100.0 * paired);
    assert_true(unpaired >= 0.90 && unpaired <= 0.98);
    assert_true(paired >= 0.90 && paired <= 0.98);
}

/* Blocks share a large effect, so x and y are strongly correlated: the location of the
 * per-block differences must have a much narrower interval than the groups resampled apart. */
static void pairing_is_kept(void **state)
{
    (void)state;
    double x[N], y[N];
    make_data(5, true, x, y);
    shift_result paired, unpaired;
    assert_int_equal(run_bootstrap(x, N, y, N, true, 0.95, 9, 2000, &paired),
                     STATS_OK);
    assert_int_equal(run_bootstrap(x, N, y, N, false, 0.95, 9, 2000, &unpaired),
                     STATS_OK);
    assert_true(fabs(paired.estimate - unpaired.estimate) < 0.03);
    assert_true(paired.ci_high - paired.ci_low < 0.7 * (unpaired.ci_high - unpaired.ci_low));
}

static void p_value_follows_the_shift(void **state)
{
    (void)state;
    double x[N], y[N];
    make_data(21, false, x, y);
    for (size_t i = 0; i < N; i++)
        x[i] += 0.05; /* a 10% shift in all, about 6 standard errors of the median difference */
    shift_result r;
    /* The interval excludes 0, and the p-value agrees. */
    assert_int_equal(run_bootstrap(x, N, y, N, false, 0.95, 3, 2000, &r), STATS_OK);
    assert_true(r.ci_low > 0.0);
    assert_true(r.p_value < 0.01);
    /* The same sample against itself: every replicate of x vs x is centred on 0. */
    assert_int_equal(run_bootstrap(y, N, y, N, true, 0.95, 3, 2000, &r), STATS_OK);
    assert_true(r.estimate == 0.0 && r.ci_low == 0.0 && r.ci_high == 0.0);
    assert_true(r.p_value == 1.0);
    assert_int_equal(run_bootstrap(y, N, y, N, false, 0.95, 3, 2000, &r), STATS_OK);
    assert_true(r.ci_low < 0.0 && r.ci_high > 0.0 && r.p_value > 0.5);
}

static void degenerate_data_collapse(void **state)
{
    (void)state;
    const double flat_x[] = {2, 2, 2, 2}, flat_y[] = {1, 1, 1, 1};
    shift_result r;
    for (int paired = 0; paired <= 1; paired++) {
        assert_int_equal(
            run_bootstrap(flat_x, 4, flat_y, 4, paired, 0.95, 1, 500, &r),
            STATS_OK);
        assert_true(r.estimate == 1.0 && r.ci_low == 1.0 && r.ci_high == 1.0);
        /* every replicate is 1, none reaches 0: the smallest p 500 resamples can give */
        assert_true(fabs(r.p_value - 2.0 / 501.0) < 1e-15);
    }
    /* Two observations only, heavy ties: the interval must stay finite and ordered. */
    const double two_x[] = {1, 3}, two_y[] = {0, 0};
    for (uint64_t seed = 0; seed < 20; seed++) {
        assert_int_equal(run_bootstrap(two_x, 2, two_y, 2, seed % 2, 0.99, seed,
                                                    50, &r),
                         STATS_OK);
        assert_true(isfinite(r.ci_low) && isfinite(r.ci_high) && r.ci_low <= r.ci_high);
        assert_true(r.ci_low >= 1.0 && r.ci_high <= 3.0);
    }
}

static void errors_are_reported(void **state)
{
    (void)state;
    const double x[] = {1, 2, 3}, y[] = {1, 2}, bad[] = {1, NAN, 3};
    shift_result r;
    assert_int_equal(run_bootstrap(x, 3, y, 2, true, 0.95, 1, 100, &r),
                     STATS_ERR_DOMAIN);
    assert_int_equal(bootstrap_bca_paired_location(x, 1, 0.95, 1, 100, &r), STATS_ERR_TOO_FEW);
    assert_int_equal(bootstrap_bca_paired_location(bad, 3, 0.95, 1, 100, &r), STATS_ERR_DOMAIN);
    assert_int_equal(bootstrap_bca_paired_location(x, 3, 0.95, 1, 1, &r), STATS_ERR_DOMAIN);
    assert_int_equal(run_bootstrap(x, 3, y, 2, false, 1.0, 1, 100, &r),
                     STATS_ERR_DOMAIN);
    assert_int_equal(run_bootstrap(x, 3, y, 2, false, 0.95, 1, 0, &r),
                     STATS_ERR_DOMAIN);
    assert_int_equal(run_bootstrap(x, 1, y, 2, false, 0.95, 1, 100, &r),
                     STATS_ERR_TOO_FEW);
    assert_int_equal(run_bootstrap(bad, 3, y, 2, false, 0.95, 1, 100, &r),
                     STATS_ERR_DOMAIN);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(same_seed_same_result),
        cmocka_unit_test(different_seeds_close),
        cmocka_unit_test(high_seed_bits_matter),
        cmocka_unit_test(coverage_near_nominal),
        cmocka_unit_test(pairing_is_kept),
        cmocka_unit_test(p_value_follows_the_shift),
        cmocka_unit_test(degenerate_data_collapse),
        cmocka_unit_test(errors_are_reported),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
