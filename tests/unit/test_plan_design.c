/* The planner's arithmetic (stats/plan_design.c) on known components: sample sizes against
 * R's power.t.test, Kalibera–Jones repetitions and an allocation with twins worked by hand. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>

#include "stats/distributions.h"
#include "stats/plan_design.h"

static plan_target detect(double change, double alpha)
{
    return (plan_target){.change = change, .half_width = false, .power = 0.8, .alpha = alpha};
}

/* σ_d 5%, detect 2% at 95% with power 80%. R 4.2:
 *   power.t.test(delta = log(1.02), sd = 0.05, sig.level = 0.05, power = 0.8,
 *                type = "paired")$n                                  51.99171 -> 52 blocks
 *   ((qnorm(0.975) + qnorm(0.8)) * 0.05 / log(1.02))^2              50.03824 (normal) -> 51
 * With 3 comparisons and a fifth of alpha kept for --more (alpha 0.05 * 0.8 / 3):
 *   power.t.test(..., sig.level = 0.04 / 3, ...)$n                   73.20169 -> 74 blocks */
static void test_paired_blocks_match_power_t_test(void **state)
{
    (void)state;
    size_t b = 0;
    plan_target t = detect(0.02, 0.05);
    assert_int_equal(plan_paired_blocks(0.05, &t, &b), STATS_OK);
    assert_int_equal(b, 52);
    double z = dist_qnorm(0.975) + dist_qnorm(0.8);
    assert_true((double)b >= ceil(pow(z * 0.05 / log(1.02), 2))); /* never below the normal's */
    t = detect(0.02, 0.05 * 0.8 / 3);
    assert_int_equal(plan_paired_blocks(0.05, &t, &b), STATS_OK);
    assert_int_equal(b, 74);
    /* the design's standard error reaches the target: se (z_a + z_b) <= log(1.02) */
    plan_components c = {0.05, NAN};
    assert_true(plan_standard_error(&c, 1, b) * (dist_qnorm(1 - t.alpha / 2) + dist_qnorm(0.8)) <=
                log(1.02));
    /* noisier, more blocks; a larger change, fewer */
    size_t noisier, larger;
    assert_int_equal(plan_paired_blocks(0.10, &t, &noisier), STATS_OK);
    t.change = 0.05;
    assert_int_equal(plan_paired_blocks(0.05, &t, &larger), STATS_OK);
    assert_true(noisier > b && larger < b);
}

/* A half-width of 1% at 95% with σ_d 5%: the t interval needs 100 blocks (R: the least n
 * with qt(0.975, n - 1) * 0.05 / sqrt(n) <= log(1.01)); the normal one 97.0 plus z²/2. */
static void test_half_width(void **state)
{
    (void)state;
    plan_target t = {.change = 0.01, .half_width = true, .power = NAN, .alpha = 0.05};
    size_t b = 0;
    assert_int_equal(plan_paired_blocks(0.05, &t, &b), STATS_OK);
    assert_in_range(b, 99, 100);
}

/* Quiet data still need the blocks a signed-rank test needs to reach alpha at all:
 * 2/2^n <= 0.05 from n = 6 (2/32 = 0.0625 is not), <= 0.01 from n = 8. */
static void test_signed_rank_floor(void **state)
{
    (void)state;
    size_t b = 0;
    plan_target t = detect(0.05, 0.05);
    assert_int_equal(plan_paired_blocks(0.0001, &t, &b), STATS_OK);
    assert_int_equal(b, 6);
    t.alpha = 0.01;
    assert_int_equal(plan_paired_blocks(0.0001, &t, &b), STATS_OK);
    assert_int_equal(b, 8);
}

/* r = ceil(sqrt((c_upper / c_lower) * T_lower² / T_upper²)): σ_d 2%, σ_layout 1% (T_upper² =
 * 2σ_layout² for a paired ratio), a run 1 s, a relink 10 s: sqrt(10 * 4e-4 / 2e-4) = 4.47 -> 5.
 * Cheaper relinks or more run noise move the blocks the expected way. */
static void test_kalibera_jones(void **state)
{
    (void)state;
    assert_int_equal(plan_kj_repetitions(4e-4, 2e-4, 1.0, 10.0), 5);
    assert_int_equal(plan_kj_repetitions(4e-4, 2e-4, 1.0, 0.5), 1);     /* sqrt(1) = 1 */
    assert_int_equal(plan_kj_repetitions(16e-4, 2e-4, 1.0, 10.0), 9);   /* sqrt(80) = 8.94 */
    assert_int_equal(plan_kj_repetitions(4e-4, 0.0, 1.0, 10.0), SIZE_MAX);
}

/* The same components, detect 2% at 95% with power 80%: r = 5 blocks; then K from Guenther's
 * two-sample size, 7.849 * (2e-4 + 4e-4/5) / log(1.02)² + 1.96²/4 = 6.57 -> 7 layouts (R:
 * power.t.test(delta = log(1.02), sd = sqrt(1e-4 + 4e-4/10), power = 0.8)$n = 6.72 -> 7); with
 * 7 layouts 4 blocks do (R: power 0.793 at n = 7, sd = sqrt(1e-4 + 4e-4/8); 3 blocks: 0.750). */
static void test_allocation_with_twins(void **state)
{
    (void)state;
    plan_components c = {0.02, 0.01};
    plan_target t = detect(0.02, 0.05);
    plan_allocation a;
    assert_int_equal(plan_allocate(&c, 1.0, 10.0, &t, &a), STATS_OK);
    assert_int_equal(a.kj_blocks, 5);
    assert_int_equal(a.layouts, 7);
    assert_int_equal(a.blocks, 4);
    assert_true(fabs(a.se - sqrt(2 * 1e-4 / 7 + 4e-4 / 28)) < 1e-15);
    /* no layout spread seen: the fewest layouts a rank-sum test can decide with (2/C(8,4) =
     * 0.029 <= 0.05; 2/C(6,3) = 0.1 is not), the runs in blocks */
    c.sd_layout = 0;
    assert_int_equal(plan_allocate(&c, 1.0, 10.0, &t, &a), STATS_OK);
    assert_int_equal(a.layouts, 4);
    assert_true(a.blocks >= PLAN_MIN_BLOCKS);
    /* without twins: the paired blocks, one layout */
    c.sd_layout = NAN;
    assert_int_equal(plan_allocate(&c, 1.0, 10.0, &t, &a), STATS_OK);
    assert_int_equal(a.layouts, 1);
}

/* With K layouts fixed, a spread the layouts alone cannot average out is said (0 blocks). */
static void test_blocks_for_layouts(void **state)
{
    (void)state;
    plan_components c = {0.02, 0.05};
    plan_target t = detect(0.02, 0.05);
    size_t b = 99;
    assert_int_equal(plan_blocks_for_layouts(&c, 4, &t, &b), STATS_OK);
    assert_int_equal(b, 0);
    assert_int_equal(plan_blocks_for_layouts(&c, 200, &t, &b), STATS_OK);
    assert_true(b >= PLAN_MIN_BLOCKS);
}

/* Every comparison of an experiment shares its plan: the noisiest sets the blocks. */
static void test_allocate_all(void **state)
{
    (void)state;
    plan_components c[2] = {{0.02, NAN}, {0.05, NAN}};
    plan_target t = detect(0.02, 0.05);
    plan_allocation all, noisy;
    assert_int_equal(plan_allocate_all(c, 2, 1.0, 10.0, &t, &all), STATS_OK);
    assert_int_equal(plan_allocate(&c[1], 1.0, 10.0, &t, &noisy), STATS_OK);
    assert_int_equal(all.blocks, noisy.blocks);
    assert_int_equal(all.layouts, 1);
    assert_int_equal(plan_allocate_all(c, 0, 1.0, 10.0, &t, &all), STATS_ERR_TOO_FEW);
}

/* σ_d: the log ratios' MAD; each layout pair's own level (its layouts' effects) removed. */
static void test_pair_sd(void **state)
{
    (void)state;
    double a[5] = {1, 1, 1, 1, 1}, c1[5], c2[5];
    double x[5] = {0.01, -0.02, 0.03, 0.0, -0.01}; /* median 0; |x| median 0.01 */
    for (size_t j = 0; j < 5; j++) {
        c1[j] = exp(x[j]);
        c2[j] = 1.1 * exp(x[j]); /* another layout, 10% slower throughout */
    }
    const double *base[2] = {a, a}, *cand[2] = {c1, c2};
    double sd = 0;
    assert_int_equal(plan_pair_sd(base, cand, 1, 5, &sd), STATS_OK);
    assert_true(fabs(sd - 1.4826 * 0.01) < 1e-12);
    assert_int_equal(plan_pair_sd(base, cand, 2, 5, &sd), STATS_OK);
    assert_true(fabs(sd - 1.4826 * 0.01) < 1e-12);
    assert_int_equal(plan_pair_sd(base, cand, 1, 1, &sd), STATS_ERR_TOO_FEW);
    a[2] = 0;
    assert_int_equal(plan_pair_sd(base, cand, 1, 5, &sd), STATS_ERR_DOMAIN);
}

/* points × blocks × variants × layouts runs, and variants × layouts relinks: 2 × 10 × 2 × 3
 * runs of 0.5 s and 6 relinks of 4 s make 84 s; no relinks without twins. */
static void test_expected_seconds(void **state)
{
    (void)state;
    plan_allocation a = {3, 10, 5, 0.01};
    assert_true(fabs(plan_expected_seconds(&a, 2, 2, 0.5, 4.0) - 84.0) < 1e-12);
    a.layouts = 1;
    assert_true(fabs(plan_expected_seconds(&a, 2, 2, 0.5, 4.0) - 20.0) < 1e-12);
}

static void test_refusals(void **state)
{
    (void)state;
    size_t b;
    plan_allocation a;
    plan_components c = {0.05, NAN};
    plan_target t = detect(0.0, 0.05);
    assert_int_equal(plan_paired_blocks(0.05, &t, &b), STATS_ERR_DOMAIN);
    t = detect(-0.02, 0.05);
    assert_int_equal(plan_allocate(&c, 1.0, 1.0, &t, &a), STATS_ERR_DOMAIN);
    t = detect(0.02, 0.05);
    assert_int_equal(plan_allocate(&c, 0.0, 1.0, &t, &a), STATS_ERR_DOMAIN);
    t.power = 1.0;
    assert_int_equal(plan_paired_blocks(0.05, &t, &b), STATS_ERR_DOMAIN);
    t.power = 0.4; /* z_alpha + z_power could reach 0 below one half */
    assert_int_equal(plan_paired_blocks(0.05, &t, &b), STATS_ERR_DOMAIN);
    /* out of reach rather than a wrapped count */
    t = detect(1e-9, 0.05);
    assert_int_equal(plan_paired_blocks(0.5, &t, &b), STATS_ERR_DOMAIN);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_paired_blocks_match_power_t_test),
        cmocka_unit_test(test_half_width),
        cmocka_unit_test(test_signed_rank_floor),
        cmocka_unit_test(test_kalibera_jones),
        cmocka_unit_test(test_allocation_with_twins),
        cmocka_unit_test(test_blocks_for_layouts),
        cmocka_unit_test(test_allocate_all),
        cmocka_unit_test(test_pair_sd),
        cmocka_unit_test(test_expected_seconds),
        cmocka_unit_test(test_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
