/* Unit tests of exact and near-exact data in the analysis (issue 26): data that never varied,
 * counts without a rounding allowance, and the t test as the default method for counts. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "common/error.h"
#include "core/analysis.h"

enum { MAX_SERIES = 6 };

typedef struct {
    analysis_series series[MAX_SERIES];
    size_t n;
    analysis_options options;
    analysis_result result;
} bench;

static void set_up(bench *b, bool paired, comparison_method method)
{
    *b = (bench){.options = {.method = method, .paired = paired, .confidence = 0.95,
                             .margin = 0.01, .adjust = ADJUST_HOLM, .seed = 1}};
}

static void add(bench *b, const char *point, const char *variant, const double *values, size_t n,
                bool exact_counts)
{
    assert_true(b->n < MAX_SERIES);
    b->series[b->n++] = (analysis_series){.point = point, .metric = "allocs/op",
                                          .variant = variant, .values = values, .n = n,
                                          .exact_counts = exact_counts};
}

static const comparison *run(bench *b)
{
    verdict_error err = {0};
    assert_int_equal(analysis_run(b->series, b->n, &b->options, &b->result, &err), 0);
    assert_true(b->result.n_comparisons >= 1);
    assert_true(b->result.comparisons[0].ok);
    return &b->result.comparisons[0].result;
}

static bool has_warning(const analysis_result *r, const char *code)
{
    for (size_t i = 0; i < r->n_warnings; i++)
        if (strcmp(r->warnings[i].code, code) == 0)
            return true;
    return false;
}

/* 5 against 5 in every run: equivalent, the ratio exactly 1 and its interval [1, 1], whatever
 * the method, paired or not, counts or not (the values 5 could be rounded: the interval is then
 * widened by the rounding allowance, and 1 digit allows far more than 1%). */
static void test_identical_data_are_equivalent(void **state)
{
    (void)state;
    static const double five[] = {5, 5, 5, 5, 5};
    static const comparison_method methods[] = {METHOD_WILCOXON, METHOD_WELCH, METHOD_BOOTSTRAP};
    for (size_t m = 0; m < 3; m++)
        for (int paired = 0; paired < 2; paired++) {
            bench b;
            set_up(&b, paired, methods[m]);
            b.options.method_given = true;
            add(&b, "p", "A", five, 5, true);
            add(&b, "p", "B", five, 5, true);
            const comparison *c = run(&b);
            assert_int_equal(c->decision.kind, VERDICT_EQUIVALENT);
            assert_true(c->constant);
            assert_true(c->ratio == 1.0 && c->ci_low == 1.0 && c->ci_high == 1.0);
            assert_true(c->p_value == 1.0);
            assert_false(c->resolution_limited);
            assert_false(has_warning(&b.result, "comparison-failed"));
            analysis_result_free(&b.result);
        }
    bench b;
    set_up(&b, true, METHOD_WILCOXON);
    add(&b, "p", "A", five, 5, false);
    add(&b, "p", "B", five, 5, false);
    const comparison *c = run(&b);
    assert_int_equal(c->decision.kind, VERDICT_INCONCLUSIVE);
    assert_int_equal(c->decision.reason, UNDECIDED_RESOLUTION);
    assert_true(c->resolution_limited && c->ci_low < 0.9 && c->ci_high > 1.1);
    analysis_result_free(&b.result);
}

/* Values printed to many digits, identical: the allowance is tiny, and they are equivalent. */
static void test_identical_precise_values_are_equivalent(void **state)
{
    (void)state;
    static const double same[] = {12.3456, 12.3456, 12.3456};
    bench b;
    set_up(&b, true, METHOD_WILCOXON);
    add(&b, "p", "A", same, 3, false);
    add(&b, "p", "B", same, 3, false);
    const comparison *c = run(&b);
    assert_int_equal(c->decision.kind, VERDICT_EQUIVALENT);
    assert_true(c->ci_low < 1.0 && c->ci_low > 0.9999 && c->ci_high > 1.0 && c->ci_high < 1.0001);
    analysis_result_free(&b.result);
}

/* 5 against 6 in every run of exact counts: decided with the exact ratio, by the metric's
 * direction, no allowance, once such runs are unlikely under no change whatever the count's
 * levels (2 / 4^n: 3 runs at 95%, 4 at 99%); 2 runs say that one more is needed. */
static void test_constant_counts_that_differ_are_decided(void **state)
{
    (void)state;
    static const double five[] = {5, 5, 5, 5}, six[] = {6, 6, 6, 6};
    for (int paired = 0; paired < 2; paired++)
        for (int higher = 0; higher < 2; higher++) {
            bench b;
            set_up(&b, paired, METHOD_WILCOXON);
            add(&b, "p", "A", five, 3, true);
            add(&b, "p", "B", six, 3, true);
            b.series[0].higher_is_better = b.series[1].higher_is_better = higher;
            const comparison *c = run(&b);
            assert_int_equal(c->decision.kind, higher ? VERDICT_BETTER : VERDICT_WORSE);
            assert_true(c->constant);
            assert_true(fabs(c->ratio - 1.2) < 1e-15);
            assert_true(c->ci_low == c->ratio && c->ci_high == c->ratio);
            assert_true(fabs(c->p_value - 2.0 / 64) < 1e-15);
            assert_true(c->relative_step == 0.0 && !c->resolution_limited);
            assert_false(has_warning(&b.result, "discrete"));
            analysis_result_free(&b.result);
        }
    static const struct {
        size_t n;
        double confidence;
        verdict_kind kind;
    } levels[] = {{2, 0.95, VERDICT_INCONCLUSIVE}, {3, 0.99, VERDICT_INCONCLUSIVE},
                  {4, 0.99, VERDICT_WORSE}};
    for (size_t i = 0; i < sizeof levels / sizeof *levels; i++) {
        bench b;
        set_up(&b, true, METHOD_WILCOXON);
        b.options.confidence = levels[i].confidence;
        add(&b, "p", "A", five, levels[i].n, true);
        add(&b, "p", "B", six, levels[i].n, true);
        const comparison *c = run(&b);
        assert_int_equal(c->decision.kind, levels[i].kind);
        if (levels[i].kind == VERDICT_INCONCLUSIVE) {
            assert_int_equal(c->decision.reason, UNDECIDED_CONFIDENCE);
            assert_int_equal(c->decision.needed_blocks, 1);
        }
        analysis_result_free(&b.result);
    }
}

/* The same values not known to be counts (5 and 6 could be rounded 5.4 and 5.6): two runs
 * each cannot show it (the permutation floor of 2 + 2 is 1/3); six paired blocks can, with
 * the interval widened by the rounding and kept above 1. */
static void test_constant_measurements_need_the_runs(void **state)
{
    (void)state;
    static const double five[] = {5, 5, 5, 5, 5, 5}, six[] = {6, 6, 6, 6, 6, 6};
    bench b;
    set_up(&b, false, METHOD_WELCH);
    add(&b, "p", "A", five, 2, false);
    add(&b, "p", "B", six, 2, false);
    const comparison *c = run(&b);
    assert_int_equal(c->decision.kind, VERDICT_INCONCLUSIVE);
    assert_int_equal(c->decision.reason, UNDECIDED_CONFIDENCE);
    analysis_result_free(&b.result);
    set_up(&b, true, METHOD_WELCH);
    add(&b, "p", "A", five, 6, false);
    add(&b, "p", "B", six, 6, false);
    c = run(&b);
    assert_int_equal(c->decision.kind, VERDICT_WORSE);
    assert_true(c->resolution_limited && c->ci_low > 1.0 && c->ci_low < 1.2 && c->ci_high > 1.2);
    analysis_result_free(&b.result);
}

/* allocs/op 2 against 3 with some variation: as counts, no rounding allowance and the t test;
 * as values that might be rounded to one digit, the interval is widened by about 35%. */
static void test_counts_get_no_rounding_allowance(void **state)
{
    (void)state;
    static const double a[] = {2, 2, 3, 2, 2, 2, 2, 3, 2, 2},
                        b3[] = {3, 3, 3, 3, 2, 3, 3, 3, 3, 4};
    bench b;
    set_up(&b, true, METHOD_WILCOXON);
    add(&b, "p", "A", a, 10, true);
    add(&b, "p", "B", b3, 10, true);
    const comparison *c = run(&b);
    assert_string_equal(c->method_name, "paired-t");
    assert_false(c->resolution_limited);
    assert_true(c->relative_step == 0.0);
    assert_int_equal(c->decision.kind, VERDICT_WORSE);
    assert_false(has_warning(&b.result, "too-few-samples"));
    double counted_width = log(c->ci_high / c->ci_low);
    analysis_result_free(&b.result);

    set_up(&b, true, METHOD_WELCH);
    add(&b, "p", "A", a, 10, false);
    add(&b, "p", "B", b3, 10, false);
    c = run(&b);
    assert_true(c->relative_step > 0.3);
    assert_true(log(c->ci_high / c->ci_low) > counted_width);
    analysis_result_free(&b.result);
}

/* A count an alignment moved by a few instructions is no outlier, nor are its two levels two
 * modes; the same values as measurements are both. */
static void test_counts_have_no_shape_warnings(void **state)
{
    (void)state;
    double a[24], b2[24];
    for (size_t i = 0; i < 24; i++) {
        a[i] = 24130926 + (i % 2 ? 14 : 0);
        b2[i] = 24131926 + (i % 2 ? 0 : 14);
    }
    a[5] = 24131926;
    for (int counts = 0; counts < 2; counts++) {
        bench b;
        set_up(&b, true, METHOD_WILCOXON);
        add(&b, "p", "A", a, 24, counts);
        add(&b, "p", "B", b2, 24, counts);
        run(&b);
        assert_int_equal(has_warning(&b.result, "outliers"), !counts);
        analysis_result_free(&b.result);
    }
}

/* The t test on logs is the default for counts; a method asked for is kept. At 99% (two
 * comparisons, or adaptive looks, ask for more than 95%) the signed-rank test needs 8 blocks:
 * +0.5% more instructions in 5 blocks is decided by the t test only. */
static void test_method_for_counts(void **state)
{
    (void)state;
    static const double a[] = {10000012, 10000340, 10000101, 10000290, 9999870},
                        b2[] = {10050230, 10049990, 10050410, 10050021, 10049777};
    bench b;
    set_up(&b, true, METHOD_WILCOXON);
    b.options.confidence = 0.99;
    add(&b, "p", "A", a, 5, true);
    add(&b, "p", "B", b2, 5, true);
    const comparison *c = run(&b);
    assert_string_equal(c->method_name, "paired-t");
    assert_int_equal(c->decision.kind, VERDICT_WORSE); /* +0.5% in 5 blocks */
    analysis_result_free(&b.result);

    set_up(&b, true, METHOD_WILCOXON);
    b.options.confidence = 0.99;
    b.options.method_given = true;
    add(&b, "p", "A", a, 5, true);
    add(&b, "p", "B", b2, 5, true);
    c = run(&b);
    assert_string_equal(c->method_name, "wilcoxon-signed-rank");
    assert_int_equal(c->decision.kind, VERDICT_INCONCLUSIVE); /* p >= 1/16 with 5 blocks */
    assert_int_equal(c->decision.reason, UNDECIDED_CONFIDENCE);
    analysis_result_free(&b.result);

    set_up(&b, true, METHOD_WILCOXON); /* one series not a count: the options' method */
    add(&b, "p", "A", a, 5, true);
    add(&b, "p", "B", b2, 5, false);
    c = run(&b);
    assert_string_equal(c->method_name, "wilcoxon-signed-rank");
    analysis_result_free(&b.result);
}

/* Paired counts equal in every block though the blocks differ: no change, [1, 1]. */
static void test_equal_in_every_block(void **state)
{
    (void)state;
    static const double a[] = {100, 104, 100, 108};
    bench b;
    set_up(&b, true, METHOD_WILCOXON);
    add(&b, "p", "A", a, 4, true);
    add(&b, "p", "B", a, 4, true);
    const comparison *c = run(&b);
    assert_int_equal(c->decision.kind, VERDICT_EQUIVALENT);
    assert_true(c->constant && c->ci_low == 1.0 && c->ci_high == 1.0);
    analysis_result_free(&b.result);
}

/* allocs/op against itself over two benchmarks: each equivalent, and an overall line. */
static void test_overall_of_identical_points(void **state)
{
    (void)state;
    static const double five[] = {5, 5, 5, 5}, two[] = {2, 2, 2, 2};
    bench b;
    set_up(&b, false, METHOD_WILCOXON);
    add(&b, "Encode", "old", five, 4, true);
    add(&b, "Encode", "new", five, 4, true);
    add(&b, "Decode", "old", two, 4, true);
    add(&b, "Decode", "new", two, 4, true);
    run(&b);
    assert_int_equal(b.result.n_comparisons, 2);
    for (size_t k = 0; k < 2; k++)
        assert_int_equal(b.result.comparisons[k].result.decision.kind, VERDICT_EQUIVALENT);
    assert_int_equal(b.result.n_overall, 1);
    assert_int_equal(b.result.overall[0].decision.kind, VERDICT_EQUIVALENT);
    assert_true(b.result.overall[0].ci_low == 1.0 && b.result.overall[0].ci_high == 1.0);
    analysis_result_free(&b.result);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_identical_data_are_equivalent),
        cmocka_unit_test(test_identical_precise_values_are_equivalent),
        cmocka_unit_test(test_constant_counts_that_differ_are_decided),
        cmocka_unit_test(test_constant_measurements_need_the_runs),
        cmocka_unit_test(test_counts_get_no_rounding_allowance),
        cmocka_unit_test(test_method_for_counts),
        cmocka_unit_test(test_counts_have_no_shape_warnings),
        cmocka_unit_test(test_equal_in_every_block),
        cmocka_unit_test(test_overall_of_identical_points),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
