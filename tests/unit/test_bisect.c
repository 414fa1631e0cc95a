/* verdict bisect's rules: every pair of a midpoint's decisions classified, in both
 * directions of change; the next commit around skipped ones; the comparisons alpha is split
 * among. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "core/bisect.h"

#define B VERDICT_BETTER
#define W VERDICT_WORSE
#define E VERDICT_EQUIVALENT
#define I VERDICT_INCONCLUSIVE

/* The whole table for a regression (bad is worse than good): mid against good, mid against
 * bad, and the class; for a speed-up every better and worse swap and the classes stay. */
static const struct {
    verdict_kind vs_good, vs_bad;
    bisect_class expected;
} table[] = {
    {E, B, BISECT_LIKE_GOOD},    {E, I, BISECT_LIKE_GOOD},   {E, W, BISECT_LIKE_GOOD},
    {W, E, BISECT_LIKE_BAD},     {I, E, BISECT_LIKE_BAD},    {B, E, BISECT_LIKE_BAD},
    {E, E, BISECT_UNKNOWN},      {I, I, BISECT_UNKNOWN},
    {W, I, BISECT_LIKE_BAD},     /* worse than good: the change is at or before it */
    {I, B, BISECT_LIKE_GOOD},    /* better than bad: a change after it */
    {I, W, BISECT_UNKNOWN},      {B, I, BISECT_UNKNOWN},
    {W, B, BISECT_BETWEEN},      {W, W, BISECT_BEYOND_BAD},
    {B, B, BISECT_BEYOND_GOOD},  {B, W, BISECT_UNKNOWN},  /* better than good, worse than bad */
};

static void every_pair_of_decisions_is_classified(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        assert_int_equal(bisect_classify(table[i].vs_good, table[i].vs_bad, W),
                         table[i].expected);
        assert_int_equal(bisect_classify(bisect_flip(table[i].vs_good),
                                         bisect_flip(table[i].vs_bad), B),
                         table[i].expected);
    }
}

static void the_bad_classes_move_the_bad_end(void **state)
{
    (void)state;
    assert_true(bisect_class_is_bad(BISECT_LIKE_BAD));
    assert_true(bisect_class_is_bad(BISECT_BETWEEN));
    assert_true(bisect_class_is_bad(BISECT_BEYOND_BAD));
    assert_false(bisect_class_is_bad(BISECT_LIKE_GOOD));
    assert_false(bisect_class_is_bad(BISECT_BEYOND_GOOD));
    assert_false(bisect_class_is_bad(BISECT_UNKNOWN));
    assert_string_equal(bisect_class_name(BISECT_BEYOND_BAD), "beyond-bad");
    assert_int_equal(bisect_flip(E), E);
    assert_int_equal(bisect_flip(W), B);
}

static void the_next_commit_goes_around_skipped_ones(void **state)
{
    (void)state;
    bool skipped[33];
    memset(skipped, 0, sizeof skipped);
    assert_int_equal(bisect_next(0, 32, skipped), 16);
    assert_int_equal(bisect_next(16, 19, skipped), 17);
    assert_int_equal(bisect_next(18, 20, skipped), 19);
    skipped[16] = true;
    assert_int_equal(bisect_next(0, 32, skipped), 17); /* the later first on a tie */
    skipped[17] = true;
    assert_int_equal(bisect_next(0, 32, skipped), 15);
    skipped[15] = skipped[18] = true;
    assert_int_equal(bisect_next(0, 32, skipped), 14); /* 2 below before 3 above */
    memset(skipped, 0, sizeof skipped);
    skipped[1] = skipped[2] = true;
    assert_int_equal(bisect_next(0, 3, skipped), -1); /* nothing left between the ends */
    skipped[2] = false;
    assert_int_equal(bisect_next(0, 3, skipped), 2);
    skipped[2] = true;
    skipped[3] = false;
    assert_int_equal(bisect_next(0, 4, skipped), 3);  /* never below lo: 0 is not taken */
}

static void alpha_is_split_over_the_ends_and_each_halving(void **state)
{
    (void)state;
    assert_int_equal(bisect_planned_steps(1), 1);  /* the ends are the answer */
    assert_int_equal(bisect_planned_steps(2), 2);
    assert_int_equal(bisect_planned_steps(3), 3);
    assert_int_equal(bisect_planned_steps(4), 3);
    assert_int_equal(bisect_planned_steps(32), 6);
    assert_int_equal(bisect_planned_steps(33), 7);
    /* halving (lo, hi] from n commits never needs more midpoints than planned - 1 */
    for (size_t n = 1; n <= 300; n++) {
        bool skipped[301] = {false};
        for (size_t first_bad = 1; first_bad <= n; first_bad++) {
            size_t lo = 0, hi = n, steps = 0;
            while (hi - lo > 1) {
                size_t mid = (size_t)bisect_next(lo, hi, skipped);
                *(mid >= first_bad ? &hi : &lo) = mid;
                steps++;
            }
            assert_int_equal(hi, first_bad);
            assert_true(steps + 1 <= bisect_planned_steps(n));
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_pair_of_decisions_is_classified),
        cmocka_unit_test(the_bad_classes_move_the_bad_end),
        cmocka_unit_test(the_next_commit_goes_around_skipped_ones),
        cmocka_unit_test(alpha_is_split_over_the_ends_and_each_halving),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
