/* Unit tests of the verdict rules: direction, equivalence, negligible effects,
 * unreachable confidence and the projection of how many more runs would decide. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>

#include "stats/verdict_rules.h"

/* An interval given as ratios, turned into the log scale the rules work on. */
static verdict_input interval(double low, double ratio, double high)
{
    return (verdict_input){.estimate = log(ratio), .low = log(low), .high = log(high),
                           .confidence = 0.95, .achieved_confidence = 0.95, .margin = 0.01,
                           .min_n = 5, .usable_share = 1.0, .n_baseline = 20,
                           .n_candidate = 20};
}

static void test_direction(void **state)
{
    (void)state;
    verdict_input in = interval(1.02, 1.035, 1.05);
    assert_int_equal(verdict_decide(&in).kind, VERDICT_WORSE);
    in.higher_is_better = true;
    assert_int_equal(verdict_decide(&in).kind, VERDICT_BETTER);
    in = interval(0.90, 0.95, 0.97);
    assert_int_equal(verdict_decide(&in).kind, VERDICT_BETTER);
    assert_false(verdict_decide(&in).negligible);
    assert_int_equal(verdict_decide(&in).needed_blocks, -1);
}

static void test_equivalent_and_negligible(void **state)
{
    (void)state;
    verdict_input in = interval(0.995, 1.0, 1.004);
    assert_int_equal(verdict_decide(&in).kind, VERDICT_EQUIVALENT);
    in = interval(1.001, 1.003, 1.005);
    verdict_decision d = verdict_decide(&in);
    assert_int_equal(d.kind, VERDICT_WORSE);
    assert_true(d.negligible);
    /* the band is [1/1.01, 1.01]: 0.990 is just outside it */
    in = interval(0.990, 1.0, 1.004);
    assert_int_equal(verdict_decide(&in).kind, VERDICT_INCONCLUSIVE);
}

static void test_needed_blocks_grow_with_spread(void **state)
{
    (void)state;
    verdict_input narrow = interval(0.995, 1.004, 1.013), wide = interval(0.98, 1.004, 1.03);
    verdict_decision dn = verdict_decide(&narrow), dw = verdict_decide(&wide);
    assert_int_equal(dn.kind, VERDICT_INCONCLUSIVE);
    assert_int_equal(dw.kind, VERDICT_INCONCLUSIVE);
    assert_int_equal(dn.reason, UNDECIDED_WIDE_INTERVAL);
    assert_true(dn.needed_blocks >= 1);
    assert_true(dw.needed_blocks > 4 * dn.needed_blocks);
    /* a clear effect seen through a wide interval needs few more runs */
    verdict_input clear = interval(0.995, 1.10, 1.21);
    verdict_decision dc = verdict_decide(&clear);
    assert_true(dc.needed_blocks >= 1 && dc.needed_blocks <= 20);
}

static void test_unreachable_confidence(void **state)
{
    (void)state;
    /* three paired runs: R reaches only 75% (2 * psignrank(0, 3) = 0.25) */
    verdict_input in = interval(1.02, 1.03, 1.04);
    in.achieved_confidence = 0.75;
    in.n_baseline = in.n_candidate = 3;
    verdict_decision d = verdict_decide(&in);
    assert_int_equal(d.kind, VERDICT_INCONCLUSIVE);
    assert_int_equal(d.reason, UNDECIDED_CONFIDENCE);
    assert_true(d.needed_blocks >= 2); /* at least 5 paired runs are needed */
}

static void test_minimum_sizes(void **state)
{
    (void)state;
    /* In R 4.2.2, wilcox.test(x, conf.int=TRUE) warns "requested conf.level not achievable"
     * for 4 paired values but not for 5 (2/32 - 0.05 <= 0.025); wilcox.test(x, y, ...)
     * warns for 3 + 3 but not for 4 + 4 (2/70 - 0.05 <= 0.025). */
    assert_int_equal(rank_test_min_n(0.95, true), 5);
    assert_int_equal(rank_test_min_n(0.95, false), 4);
    assert_true(rank_test_min_n(0.99, true) > 5);
}

/* An end resting exactly on a ratio of 1 decides only when the test excluded it. */
static void test_open_end_at_one(void **state)
{
    (void)state;
    verdict_input in = interval(1.0, 1.05, 1.1);
    assert_int_equal(verdict_decide(&in).kind, VERDICT_INCONCLUSIVE);
    in.low_open = true;
    assert_int_equal(verdict_decide(&in).kind, VERDICT_WORSE);
    in = interval(0.9, 0.95, 1.0);
    assert_int_equal(verdict_decide(&in).kind, VERDICT_INCONCLUSIVE);
    in.high_open = true;
    assert_int_equal(verdict_decide(&in).kind, VERDICT_BETTER);
    /* a few ulps above 0 on the log scale is above 0, whatever exp() rounds it to */
    in = interval(1.0, 1.05, 1.1);
    in.low = 4.9e-324;
    assert_int_equal(verdict_decide(&in).kind, VERDICT_WORSE);
}

static void test_resolution_limited(void **state)
{
    (void)state;
    verdict_input in = interval(0.92, 1.0, 1.09);
    in.resolution_limited = true;
    verdict_decision d = verdict_decide(&in);
    assert_int_equal(d.kind, VERDICT_INCONCLUSIVE);
    assert_int_equal(d.reason, UNDECIDED_RESOLUTION);
    assert_int_equal(d.needed_blocks, -1);
    in = interval(0.999, 1.0, 1.001); /* a fine step: still equivalent */
    in.resolution_limited = true;
    assert_int_equal(verdict_decide(&in).kind, VERDICT_EQUIVALENT);
}

/* Never fewer than the smallest workable size, and more when paired zeros are set aside. */
static void test_needed_blocks_floor(void **state)
{
    (void)state;
    verdict_input in = interval(0.5, 1.0, 2.0);
    in.achieved_confidence = 0.5;
    in.n_baseline = in.n_candidate = 3;
    in.min_n = 5;
    in.usable_share = 2.0 / 3.0;
    verdict_decision d = verdict_decide(&in);
    assert_int_equal(d.reason, UNDECIDED_CONFIDENCE);
    assert_true(3 + d.needed_blocks >= 8); /* 5 usable blocks at two in three */
    in = interval(0.999, 1.0, 1.03);
    in.n_baseline = in.n_candidate = 3;
    assert_true(3 + verdict_decide(&in).needed_blocks >= 5);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_direction),
        cmocka_unit_test(test_equivalent_and_negligible),
        cmocka_unit_test(test_needed_blocks_grow_with_spread),
        cmocka_unit_test(test_unreachable_confidence),
        cmocka_unit_test(test_minimum_sizes),
        cmocka_unit_test(test_open_end_at_one),
        cmocka_unit_test(test_resolution_limited),
        cmocka_unit_test(test_needed_blocks_floor),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
