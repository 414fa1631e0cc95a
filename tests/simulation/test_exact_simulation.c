/* Seeded simulation of near-exact counts (cachegrind's instructions: about 10,000,000, a few
 * hundred apart from run to run): A/A rate, coverage, equivalence and power at a few blocks. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>

#include "common/error.h"
#include "core/analysis.h"

#define DATASETS 4000
#define MAX_BLOCKS 20
#define BASE 1e7
/* The jitter of the counts: sd 0.01% of the count (1,000 instructions of 10,000,000). */
#define JITTER 1e-4
/* Monte Carlo error of a rate near 5% over DATASETS datasets: sqrt(0.05 * 0.95 / 4000). */
#define MC_SD 0.0035

/* How one run's count departs from the program's: environment-size randomization moves
 * counts by small amounts, symmetric or not, on a few levels or many. */
typedef enum {
    JITTER_NORMAL,   /* N(0, sd) */
    JITTER_UNIFORM,  /* uniform with the same sd */
    JITTER_LEVELS,   /* one of 4 levels 2,000 apart (an alignment picks a path) */
    JITTER_HEAVY,    /* t(3) scaled to the same sd: now and then a run far off */
    JITTER_TWO,      /* two equally likely levels 6 apart: spin under cachegrind here took
                        24,130,926 or 24,130,940 instructions, run after run */
    JITTER_COUNT
} jitter_model;

static const char *jitter_name(jitter_model model)
{
    static const char *const names[] = {"normal", "uniform", "4 levels", "t(3)", "2 levels"};
    return names[model];
}

/* One run's count of a program doing `work` times the baseline's instructions. */
static double draw_count(gsl_rng *rng, jitter_model model, double work)
{
    double jitter = 0.0;
    switch (model) {
    case JITTER_NORMAL: jitter = gsl_ran_gaussian(rng, JITTER); break;
    case JITTER_UNIFORM: jitter = gsl_ran_flat(rng, -sqrt(3.0) * JITTER, sqrt(3.0) * JITTER); break;
    case JITTER_LEVELS: /* added instructions, not a share of them: a path costs its own */
        return round(BASE * work) + 2.0 * JITTER * BASE * (double)gsl_rng_uniform_int(rng, 4);
    case JITTER_HEAVY: jitter = JITTER * gsl_ran_tdist(rng, 3.0) / sqrt(3.0); break;
    case JITTER_TWO: return round(BASE * work) + 6.0 * (double)gsl_rng_uniform_int(rng, 2);
    case JITTER_COUNT: break;
    }
    return round(BASE * work * (1.0 + jitter)); /* a count: an integer */
}

typedef struct {
    int better, worse, equivalent, covered, total;
} sim_counts;

/* The comparison the analysis makes of two series of counts, as the lab gives them: paired
 * by block, declared exact counts, the default method (not asked for). */
static void analyse(const double *a, const double *b, size_t n, double margin, comparison *out)
{
    analysis_series series[2] = {
        {.point = "default", .metric = "instructions", .variant = "A", .values = a, .n = n,
         .exact_counts = true},
        {.point = "default", .metric = "instructions", .variant = "B", .values = b, .n = n,
         .exact_counts = true},
    };
    analysis_options o = {.method = METHOD_WILCOXON, .paired = true, .confidence = 0.95,
                          .margin = margin, .adjust = ADJUST_HOLM, .seed = 1};
    analysis_result r;
    verdict_error err = {0};
    assert_int_equal(analysis_run(series, 2, &o, &r, &err), 0);
    assert_int_equal(r.n_comparisons, 1);
    assert_true(r.comparisons[0].ok);
    *out = r.comparisons[0].result;
    analysis_result_free(&r);
}

static sim_counts simulate(uint64_t seed, jitter_model model, size_t n, double work,
                           double margin)
{
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, (unsigned long)seed);
    double a[MAX_BLOCKS], b[MAX_BLOCKS];
    double truth = work; /* the jitter is the same for both: the ratio of the programs' work */
    sim_counts c = {0};
    for (int d = 0; d < DATASETS; d++) {
        for (size_t i = 0; i < n; i++) {
            a[i] = draw_count(rng, model, 1.0);
            b[i] = draw_count(rng, model, work);
        }
        comparison k;
        analyse(a, b, n, margin, &k);
        assert_string_equal(k.method_name, "paired-t");
        assert_false(k.resolution_limited); /* counts get no rounding allowance */
        c.better += k.decision.kind == VERDICT_BETTER;
        c.worse += k.decision.kind == VERDICT_WORSE;
        c.equivalent += k.decision.kind == VERDICT_EQUIVALENT;
        c.covered += k.ci_low <= truth && truth <= k.ci_high;
        c.total++;
    }
    gsl_rng_free(rng);
    return c;
}

/* A/A: called better or worse at most 5% of the time (plus three Monte Carlo sds), and
 * equivalent within a 0.1% margin in 5 blocks nearly always. */
static void test_aa_in_five_blocks(void **state)
{
    (void)state;
    for (jitter_model m = 0; m < JITTER_COUNT; m++) {
        sim_counts c = simulate(2600 + m, m, 5, 1.0, 0.001);
        double called = (double)(c.better + c.worse) / c.total;
        double equivalent = (double)c.equivalent / c.total;
        printf("A/A, %-8s 5 blocks: called %.2f%%, equivalent within 0.1%% %.2f%%, "
               "coverage %.2f%%\n", jitter_name(m), 100 * called, 100 * equivalent,
               100.0 * c.covered / c.total);
        assert_true(called <= 0.05 + 3 * MC_SD);
        assert_true(equivalent >= 0.94);
    }
}

/* Counts on two levels, the worst case for counts that never varied (each variant constant
 * at another level: 2 / 4^n of A/A datasets), at 2 to 10 blocks: called better or worse at
 * most 5% of the time (plus three Monte Carlo sds; the t test on differences of -1, 0 and +1
 * level is exactly 5.55% at 8 blocks), and a 0.5% change found from 3 blocks on. */
static void test_two_levels(void **state)
{
    (void)state;
    static const size_t sizes[] = {2, 3, 4, 5, 8, 10};
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
        sim_counts aa = simulate(3000 + s, JITTER_TWO, sizes[s], 1.0, 0.001);
        sim_counts change = simulate(3100 + s, JITTER_TWO, sizes[s], 1.005, 0.001);
        double called = (double)(aa.better + aa.worse) / aa.total;
        printf("A/A, 2 levels %2zu blocks: called %.2f%%; +0.5%% worse %.2f%%\n", sizes[s],
               100 * called, 100.0 * change.worse / change.total);
        assert_true(called <= 0.05 + 3 * MC_SD);
        if (sizes[s] >= 3)
            assert_true(change.worse >= 0.99 * change.total);
    }
}

/* Coverage of the true ratio of a 0.3% change within 94-96% at 3, 5, 10 and 20 blocks where
 * the jitter is normal or uniform; printed for the others. */
static void test_coverage(void **state)
{
    (void)state;
    static const size_t sizes[] = {3, 5, 10, 20};
    /* two levels: test_two_levels (a count that never varied is given as exactly its ratio,
     * which is off the true ratio of the means by up to a level, 6e-7 here) */
    for (jitter_model m = 0; m < JITTER_TWO; m++)
        for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
            sim_counts c = simulate(2700 + 10 * m + s, m, sizes[s], 1.003, 0.001);
            double coverage = (double)c.covered / c.total;
            printf("coverage, %-8s %2zu blocks: %.2f%%\n", jitter_name(m), sizes[s],
                   100 * coverage);
            if (m == JITTER_NORMAL || m == JITTER_UNIFORM)
                assert_true(coverage >= 0.94 && coverage <= 0.96);
            else
                assert_true(coverage >= 0.93); /* levels and t(3): the t stays close */
        }
}

/* 0.5% more instructions called worse in 5 blocks, and 0.3% in 3: every time. */
static void test_small_changes_decided_fast(void **state)
{
    (void)state;
    for (jitter_model m = 0; m < JITTER_COUNT; m++) {
        sim_counts five = simulate(2800 + m, m, 5, 1.005, 0.001);
        sim_counts three = simulate(2900 + m, m, 3, 1.003, 0.001);
        printf("power, %-8s +0.5%% in 5 blocks: worse %.2f%%; +0.3%% in 3 blocks: worse "
               "%.2f%%\n", jitter_name(m), 100.0 * five.worse / five.total,
               100.0 * three.worse / three.total);
        assert_true(five.worse >= 0.99 * five.total);
        assert_true(three.worse >= 0.95 * three.total);
        assert_int_equal(five.better + three.better, 0);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_aa_in_five_blocks),
        cmocka_unit_test(test_coverage),
        cmocka_unit_test(test_small_changes_decided_fast),
        cmocka_unit_test(test_two_levels),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
