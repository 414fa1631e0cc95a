/* Ties, zeros and rounded values against R (tests/golden/ties.R): every case of issue 11
 * gives R's p-value, the Hodges–Lehmann estimate, the inverted test's set and R's verdict. */
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
#include "stats/comparison.h"

/* p-values and estimates are computed as R computes them; the interval's ends are data
 * differences found by bisection to 1e-10 of the data's range, then widened by a rounding
 * allowance that R computes with other arithmetic (mean of log1p, signif). */
static const double same_number = 1e-9;
static const double same_end = 1e-8;

static bool close_to(double got, double want, double tolerance)
{
    return fabs(got - want) <= tolerance * fmax(1.0, fabs(want));
}

static const char *kind_name(verdict_kind kind)
{
    return verdict_kind_name(kind);
}

static void check_case(const json_t *c, double margin)
{
    const char *id = json_string_value(json_object_get(c, "id"));
    size_t na, nb;
    double *a = golden_numbers(json_object_get(c, "a"), &na);
    double *b = golden_numbers(json_object_get(c, "b"), &nb);
    comparison_options o = {
        .method = METHOD_WILCOXON, .paired = json_is_true(json_object_get(c, "paired")),
        .confidence = json_number_value(json_object_get(c, "confidence")), .margin = margin,
    };
    comparison r;
    if (compare_samples(a, na, b, nb, &o, &r) != STATS_OK)
        fail_msg("%s: compare_samples failed", id);
    double want_p = json_number_value(json_object_get(c, "r_p_value"));
    if (!close_to(r.p_value, want_p, same_number))
        fail_msg("%s: p = %.17g, R says %.17g", id, r.p_value, want_p);
    double want_estimate = json_number_value(json_object_get(c, "estimate"));
    if (!close_to(r.ratio, want_estimate, same_number))
        fail_msg("%s: estimate %.17g, R's Hodges-Lehmann %.17g", id, r.ratio, want_estimate);
    bool reachable = json_is_true(json_object_get(c, "reachable"));
    if ((r.achieved_confidence >= o.confidence - 1e-12) != reachable)
        fail_msg("%s: achieved confidence %.4g, R: %s", id, r.achieved_confidence,
                 reachable ? "reachable" : "not reachable");
    const json_t *ci = json_object_get(c, "ci");
    if (reachable && ci != NULL) {
        double low = json_number_value(json_array_get(ci, 0));
        double high = json_number_value(json_array_get(ci, 1));
        const json_t *open = json_object_get(c, "ci_open");
        if (!close_to(r.ci_low, low, same_end) || !close_to(r.ci_high, high, same_end))
            fail_msg("%s: interval [%.17g, %.17g], R's inverted test [%.17g, %.17g]", id,
                     r.ci_low, r.ci_high, low, high);
        if (r.low_open != json_is_true(json_array_get(open, 0)) ||
            r.high_open != json_is_true(json_array_get(open, 1)))
            fail_msg("%s: open ends (%d, %d), R (%d, %d)", id, r.low_open, r.high_open,
                     json_is_true(json_array_get(open, 0)), json_is_true(json_array_get(open, 1)));
        if (r.resolution_limited != json_is_true(json_object_get(c, "resolution_limited")))
            fail_msg("%s: resolution_limited %d, R %d", id, r.resolution_limited,
                     json_is_true(json_object_get(c, "resolution_limited")));
    }
    const char *want_verdict = json_string_value(json_object_get(c, "verdict"));
    if (strcmp(kind_name(r.decision.kind), want_verdict) != 0)
        fail_msg("%s: %s, R's rules give %s", id, kind_name(r.decision.kind), want_verdict);
    /* the estimate always lies in its interval's closure */
    if (reachable && !(r.ci_low <= r.ratio && r.ratio <= r.ci_high))
        fail_msg("%s: estimate %.17g outside [%.17g, %.17g]", id, r.ratio, r.ci_low, r.ci_high);
    printf("# %-34s %-12s [%.6f, %.6f] p = %.3g\n", id, want_verdict, r.ci_low, r.ci_high,
           r.p_value);
    free(a);
    free(b);
}

static void test_every_case_agrees_with_r(void **state)
{
    (void)state;
    json_t *root = golden_load_from("VERDICT_TIES");
    double margin = json_number_value(json_object_get(root, "margin"));
    size_t index;
    json_t *c;
    size_t count = 0;
    json_array_foreach(json_object_get(root, "cases"), index, c) {
        check_case(c, margin);
        count++;
    }
    json_decref(root);
    assert_true(count >= 14);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_case_agrees_with_r),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
