/* Unit tests for multiplicity.c: Holm and Benjamini–Hochberg against R's p.adjust
 * (golden entries and hand-made tie cases), input order, and error codes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "golden.h"
#include "stats/multiplicity.h"

static const double golden_tolerance = 1e-12;

typedef stats_status (*adjust_fn)(const double *, size_t, double *);

static void expect_adjusted(adjust_fn adjust, const double *p, size_t n, const double *want,
                            double *worst)
{
    double *got = malloc((n + 1) * sizeof *got);
    assert_non_null(got);
    assert_int_equal(adjust(p, n, got), STATS_OK);
    for (size_t i = 0; i < n; i++) {
        *worst = fmax(*worst, fabs(got[i] - want[i]) / fmax(fabs(want[i]), 1e-300));
        if (!golden_close(got[i], want[i], golden_tolerance))
            fail_msg("p[%zu]: adjusted %.17g, R says %.17g", i, got[i], want[i]);
    }
    free(got);
}

static void golden_p_adjust(void **state)
{
    (void)state;
    json_t *root = golden_load();
    json_t *functions = json_object_get(root, "functions");
    size_t index, holm = 0, bh = 0;
    double worst = 0.0;
    json_t *entry;
    json_array_foreach(functions, index, entry) {
        if (strcmp(json_string_value(json_object_get(entry, "fn")), "p_adjust") != 0)
            continue;
        const char *method = json_string_value(json_object_get(entry, "method"));
        size_t n, n_want;
        double *p = golden_numbers(json_object_get(entry, "p"), &n);
        double *want = golden_numbers(json_object_get(entry, "expect"), &n_want);
        assert_int_equal(n, n_want);
        if (strcmp(method, "holm") == 0) {
            expect_adjusted(p_adjust_holm, p, n, want, &worst);
            holm++;
        } else if (strcmp(method, "BH") == 0) {
            expect_adjusted(p_adjust_bh, p, n, want, &worst);
            bh++;
        } else {
            fail_msg("unexpected p.adjust method %s in the golden file", method);
        }
        free(p);
        free(want);
    }
    json_decref(root);
    print_message("p_adjust: %zu holm + %zu BH golden cases, max relative error %.3g\n", holm,
                  bh, worst);
    assert_true(holm >= 1 && bh >= 1);
}

static void ties_keep_input_order(void **state)
{
    (void)state;
    double worst = 0.0;
    /* p.adjust(c(0.04, 0.3, 0.02, 0.02, 0.9), "holm") and (..., "BH") */
    const double p[] = {0.04, 0.3, 0.02, 0.02, 0.9};
    const double holm[] = {0.12000000000000000, 0.59999999999999998, 0.10000000000000001,
                           0.10000000000000001, 0.90000000000000002};
    const double bh[] = {0.066666666666666666, 0.375, 0.050000000000000003,
                         0.050000000000000003, 0.900000000000000022};
    expect_adjusted(p_adjust_holm, p, 5, holm, &worst);
    expect_adjusted(p_adjust_bh, p, 5, bh, &worst);
    /* p.adjust(c(0.01,0.01,0.03,0.5), "holm") and (..., "BH") */
    const double q[] = {0.01, 0.01, 0.03, 0.5};
    const double holm_q[] = {0.04, 0.04, 0.06, 0.5};
    const double bh_q[] = {0.02, 0.02, 0.039999999999999994, 0.5};
    expect_adjusted(p_adjust_holm, q, 4, holm_q, &worst);
    expect_adjusted(p_adjust_bh, q, 4, bh_q, &worst);
}

static void capped_at_one_and_trivial_sizes(void **state)
{
    (void)state;
    const double p[] = {0.6, 0.7};
    double out[2];
    assert_int_equal(p_adjust_holm(p, 2, out), STATS_OK);
    assert_true(out[0] == 1.0 && out[1] == 1.0); /* p.adjust(c(.6,.7), "holm") -> 1 1 */
    assert_int_equal(p_adjust_bh(p, 1, out), STATS_OK);
    assert_true(out[0] == 0.6); /* one comparison: nothing to adjust */
    assert_int_equal(p_adjust_holm(p, 0, out), STATS_OK);
    assert_int_equal(p_adjust_bh(p, 0, out), STATS_OK);
}

static void errors_are_reported(void **state)
{
    (void)state;
    const double bad[] = {0.1, 1.5}, nan[] = {NAN};
    double out[2];
    assert_int_equal(p_adjust_holm(bad, 2, out), STATS_ERR_DOMAIN);
    assert_int_equal(p_adjust_bh(bad, 2, out), STATS_ERR_DOMAIN);
    assert_int_equal(p_adjust_bh(nan, 1, out), STATS_ERR_DOMAIN);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(golden_p_adjust),
        cmocka_unit_test(ties_keep_input_order),
        cmocka_unit_test(capped_at_one_and_trivial_sizes),
        cmocka_unit_test(errors_are_reported),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
