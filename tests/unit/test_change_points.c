/* Change points on seeded simulated series of 32 commits x k samples: steps found where they
 * are, none where there is none, and the false alarm rate over null series within its level. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdio.h>

#include "stats/change_points.h"

#define COMMITS 32
#define SAMPLES 5
/* Noise like a busy VM's timings: 3% between samples of one build, 1% between commits'
 * builds (layout), which a test that permuted samples would take for changes. */
#define SAMPLE_SD 0.03
#define COMMIT_SD 0.01

typedef struct {
    double values[COMMITS][SAMPLES];
    const double *rows[COMMITS];
    size_t counts[COMMITS];
} series;

/* Commit i's samples are exp(effect[i] + commit noise + sample noise); effect is the log of
 * the true level, so a 10% step is log(1.1). */
static void simulate_noise(series *s, const double *effect, uint64_t seed, double commit_sd,
                           double sample_sd)
{
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    assert_non_null(rng);
    gsl_rng_set(rng, (unsigned long)seed);
    for (size_t i = 0; i < COMMITS; i++) {
        double commit = effect[i] + gsl_ran_gaussian(rng, commit_sd);
        for (size_t j = 0; j < SAMPLES; j++)
            s->values[i][j] = 1000.0 * exp(commit + gsl_ran_gaussian(rng, sample_sd));
        s->rows[i] = s->values[i];
        s->counts[i] = SAMPLES;
    }
    gsl_rng_free(rng);
}

static void simulate(series *s, const double *effect, uint64_t seed)
{
    simulate_noise(s, effect, seed, COMMIT_SD, SAMPLE_SD);
}

/* effect of a series with a step of factor at each 1-based commit of steps (the first commit
 * measuring the new level). */
static void steps(double *effect, const size_t *at, const double *factor, size_t n)
{
    for (size_t i = 0; i < COMMITS; i++) {
        effect[i] = 0.0;
        for (size_t k = 0; k < n; k++)
            if (i + 1 >= at[k])
                effect[i] += log(factor[k]);
    }
}

static size_t find(const series *s, const change_point_options *o, change_point *out)
{
    size_t found = 0;
    assert_int_equal(change_points_find(s->rows, s->counts, COMMITS, o, out, &found), STATS_OK);
    return found;
}

/* In each of 5 seeds from first_seed, exactly the n steps of factor at the 1-based commits
 * at are found (none when n is 0), each interval holding its factor and not 1. */
static void expect_steps(const size_t *at, const double *factor, size_t n, uint64_t first_seed)
{
    double effect[COMMITS];
    steps(effect, at, factor, n);
    change_point_options o = change_points_default_options();
    for (uint64_t seed = first_seed; seed < first_seed + 5; seed++) {
        series s;
        simulate(&s, effect, seed);
        o.seed = seed;
        change_point out[COMMITS];
        size_t found = find(&s, &o, out);
        printf("seed %lu: %zu change points\n", (unsigned long)seed, found);
        assert_int_equal(found, n);
        for (size_t k = 0; k < n; k++) {
            printf("  at index %zu: ratio %.4f [%.4f, %.4f] p %.4f\n", out[k].index,
                   out[k].ratio, out[k].low, out[k].high, out[k].p_value);
            assert_int_equal(out[k].index, at[k] - 1);
            assert_true(out[k].low < factor[k] && factor[k] < out[k].high);
            assert_true(factor[k] > 1.0 ? out[k].low > 1.0 : out[k].high < 1.0);
            assert_true(out[k].p_value <= o.alpha);
        }
    }
}

static void test_one_step_at_19(void **state)
{
    (void)state;
    expect_steps((size_t[]){19}, (double[]){1.10}, 1, 1);
}

static void test_up_at_11_down_at_24(void **state)
{
    (void)state;
    expect_steps((size_t[]){11, 24}, (double[]){1.10, 1.0 / 1.10}, 2, 11);
}

static void test_no_change(void **state)
{
    (void)state;
    expect_steps(NULL, NULL, 0, 21);
}

/* Exact data (counts under valgrind): no noise at all but a step. */
static void test_exact_counts(void **state)
{
    (void)state;
    series s;
    for (size_t i = 0; i < COMMITS; i++) {
        for (size_t j = 0; j < SAMPLES; j++)
            s.values[i][j] = i + 1 >= 19 ? 1100000.0 : 1000000.0;
        s.rows[i] = s.values[i];
        s.counts[i] = SAMPLES;
    }
    change_point_options o = change_points_default_options();
    change_point out[COMMITS];
    size_t found = find(&s, &o, out);
    assert_int_equal(found, 1);
    assert_int_equal(out[0].index, 18);
    assert_true(fabs(out[0].ratio - 1.1) < 1e-12);
    assert_true(fabs(out[0].low - 1.1) < 1e-12 && fabs(out[0].high - 1.1) < 1e-12);
    /* Constant series: nothing to split, and no error. */
    for (size_t i = 0; i < COMMITS; i++)
        for (size_t j = 0; j < SAMPLES; j++)
            s.values[i][j] = 1000000.0;
    assert_int_equal(find(&s, &o, out), 0);
}

/* Share of SERIES null series with any change point at level 0.05 (so that the count says
 * something with few series), commit i's noise commit_sd and its samples' sample_sd. */
static double false_alarm_rate(double commit_sd, double sample_sd, uint64_t first_seed)
{
    enum { SERIES = 1000 };
    double effect[COMMITS] = {0};
    change_point_options o = change_points_default_options();
    o.alpha = 0.05;
    o.permutations = 199;
    size_t alarms = 0;
    for (uint64_t seed = 0; seed < SERIES; seed++) {
        series s;
        simulate_noise(&s, effect, first_seed + seed, commit_sd, sample_sd);
        o.seed = seed;
        change_point out[COMMITS];
        alarms += find(&s, &o, out) > 0;
    }
    double rate = (double)alarms / SERIES;
    double mc = sqrt(o.alpha * (1.0 - o.alpha) / SERIES);
    printf("false alarms, commit sd %.3f, sample sd %.3f: %zu of %d series (%.4f; level %.2f, "
           "Monte Carlo sd %.4f)\n", commit_sd, sample_sd, alarms, SERIES, rate, o.alpha, mc);
    /* Within the level plus three Monte Carlo standard errors, and not vacuous: the test
     * does reject at about its level. */
    assert_true(rate <= o.alpha + 3.0 * mc);
    assert_true(rate >= o.alpha - 4.0 * mc);
    return rate;
}

/* Under no change, any change point comes from the first test alone. Builds that differ by
 * more than their runs do (commit noise 3% against 1% between samples) keep the level too:
 * commits, not samples, are what is permuted. */
static void test_false_alarm_rate(void **state)
{
    (void)state;
    false_alarm_rate(COMMIT_SD, SAMPLE_SD, 1000);
    false_alarm_rate(0.03, 0.01, 5000);
}

/* The best arc's score by its definition, from the two means (not the library's prefix sums),
 * over arcs leaving 2 commits in every piece; *cut is the change it names. */
static double brute_best(const double *y, size_t n, size_t *cut)
{
    double best = -1.0;
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j <= n; j++) {
            size_t len = j - i;
            if (len < 2 || n - len < 2 || (i > 0 && i < 2) || (j < n && n - j < 2))
                continue;
            double inside = 0.0, outside = 0.0;
            for (size_t k = 0; k < n; k++)
                *(k >= i && k < j ? &inside : &outside) += y[k];
            double gap = inside / (double)len - outside / (double)(n - len);
            double score = (double)len * (double)(n - len) / (double)n * gap * gap;
            if (score > best + 1e-12) {
                best = score;
                *cut = i > 0 ? i : j;
            }
        }
    return best;
}

/* Share of the n! orders of y whose best score is at least observed (Heap's algorithm). */
static double exact_p(double *y, size_t n, double observed)
{
    size_t c[8] = {0};
    assert_true(n <= 8);
    size_t orders = 1, as_large = 0, unused = 0;
    as_large += brute_best(y, n, &unused) >= observed - 1e-12;
    for (size_t i = 1; i < n;) {
        if (c[i] < i) {
            size_t j = i % 2 == 0 ? 0 : c[i];
            double t = y[j];
            y[j] = y[i];
            y[i] = t;
            orders++;
            as_large += brute_best(y, n, &unused) >= observed - 1e-12;
            c[i]++;
            i = 1;
        } else {
            c[i++] = 0;
        }
    }
    return (double)as_large / (double)orders;
}

/* The first test's Monte Carlo p-value against the exact one over all 7! orders of a small
 * series: within four standard errors of the permutations' count. */
static void test_p_value_against_enumeration(void **state)
{
    (void)state;
    enum { N = 7 };
    double levels[N] = {0.0, 0.3, -0.2, 0.5, 0.9, 0.1, 0.8};
    double values[N];
    const double *rows[N];
    size_t counts[N];
    for (size_t i = 0; i < N; i++) {
        values[i] = exp(levels[i]);
        rows[i] = &values[i];
        counts[i] = 1;
    }
    size_t cut = 0;
    double observed = brute_best(levels, N, &cut);
    double want = exact_p(levels, N, observed);
    change_point_options o = change_points_default_options();
    o.alpha = 0.999; /* keep the first cut whatever its p, to read its p-value */
    o.permutations = 99999;
    change_point out[N];
    size_t found = 0;
    assert_int_equal(change_points_find(rows, counts, N, &o, out, &found), STATS_OK);
    size_t k = 0;
    while (k < found && out[k].index != cut)
        k++;
    assert_true(k < found);
    double se = sqrt(want * (1.0 - want) / (double)o.permutations);
    printf("cut at %zu: p %.5f, exact %.5f (se %.5f)\n", cut, out[k].p_value, want, se);
    assert_true(want > 0.01 && want < 0.5); /* a p-value the comparison can tell apart */
    assert_true(fabs(out[k].p_value - want) <= 4.0 * se + 1.0 / (double)o.permutations);
}

static void test_refuses_bad_input(void **state)
{
    (void)state;
    double values[2] = {1.0, -1.0};
    const double *rows[2] = {&values[0], &values[1]};
    size_t counts[2] = {1, 1};
    change_point out[2];
    size_t found = 7;
    change_point_options o = change_points_default_options();
    assert_int_equal(change_points_find(rows, counts, 2, &o, out, &found), STATS_ERR_DOMAIN);
    assert_int_equal(found, 0);
    counts[1] = 0;
    assert_int_equal(change_points_find(rows, counts, 2, &o, out, &found), STATS_ERR_TOO_FEW);
    o.alpha = 0.0;
    assert_int_equal(change_points_find(rows, counts, 2, &o, out, &found), STATS_ERR_DOMAIN);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_one_step_at_19),
        cmocka_unit_test(test_up_at_11_down_at_24),
        cmocka_unit_test(test_exact_counts),
        cmocka_unit_test(test_no_change),
        cmocka_unit_test(test_false_alarm_rate),
        cmocka_unit_test(test_p_value_against_enumeration),
        cmocka_unit_test(test_refuses_bad_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
