/* The layout-twins analysis against R (tests/golden/layouts.R, r-layouts.json) on fixed data
 * sets, and its invariances and refusals on hand-made ones. */
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
#include "stats/layouts.h"

/* Locations, t, W, p-values and mean squares are computed as R computes them; interval ends
 * found by bisection (tied locations) or moved by a rounding allowance R computes with other
 * arithmetic are data differences to 1e-10 of the data's range. */
static const double same_number = 1e-9;
static const double same_end = 1e-8;

static bool near(double got, double want, double rel)
{
    return fabs(got - want) <= rel * fmax(fabs(want), 1e-12);
}

typedef struct {
    double **rows;
    const double **views;
    size_t k;
} owned_variant;

static owned_variant variant_of(const json_t *rows, size_t *n_blocks)
{
    owned_variant v = {NULL, NULL, json_array_size(rows)};
    v.rows = calloc(v.k, sizeof *v.rows);
    v.views = calloc(v.k, sizeof *v.views);
    assert_non_null(v.rows);
    assert_non_null(v.views);
    for (size_t i = 0; i < v.k; i++) {
        v.rows[i] = golden_numbers(json_array_get(rows, i), n_blocks);
        v.views[i] = v.rows[i];
    }
    return v;
}

static void variant_free(owned_variant *v)
{
    for (size_t i = 0; i < v->k; i++)
        free(v->rows[i]);
    free(v->rows);
    free(v->views);
}

static double number(const json_t *o, const char *key)
{
    return json_number_value(json_object_get(o, key));
}

static bool flag(const json_t *o, const char *key)
{
    return json_is_true(json_object_get(o, key));
}

static int failures;

static void expect(bool ok, const char *id, const char *method, const char *what, double got,
                   double want)
{
    if (ok)
        return;
    failures++;
    printf("FAIL %s %s: %s = %.17g, R: %.17g\n", id, method, what, got, want);
}

static void check_locations(const char *id, const char *m, const double *got,
                            const json_t *want)
{
    for (size_t i = 0; i < json_array_size(want); i++) {
        double w = json_number_value(json_array_get(want, i));
        expect(fabs(got[i] - w) <= 1e-12, id, m, "location", got[i], w);
    }
}

static void check_interval(const char *id, const char *m, const layouts_comparison *c,
                           const json_t *r)
{
    const json_t *ci = json_object_get(r, "ci"), *open = json_object_get(r, "ci_open");
    double tolerance = c->exact && !c->resolution_limited ? same_number : same_end;
    double low = json_number_value(json_array_get(ci, 0));
    double high = json_number_value(json_array_get(ci, 1));
    expect(near(c->ci_low, low, tolerance), id, m, "ci_low", c->ci_low, low);
    expect(near(c->ci_high, high, tolerance), id, m, "ci_high", c->ci_high, high);
    expect(c->low_open == json_is_true(json_array_get(open, 0)), id, m, "low_open",
           c->low_open, json_is_true(json_array_get(open, 0)));
    expect(c->high_open == json_is_true(json_array_get(open, 1)), id, m, "high_open",
           c->high_open, json_is_true(json_array_get(open, 1)));
}

static void check_test(const char *id, const char *m, const layouts_comparison *c,
                       const json_t *r)
{
    expect(near(c->ratio, number(r, "ratio"), same_number), id, m, "ratio", c->ratio,
           number(r, "ratio"));
    expect(near(c->p_value, number(r, "p_value"), same_number), id, m, "p", c->p_value,
           number(r, "p_value"));
    expect(near(c->statistic, number(r, "statistic"), same_number), id, m, "statistic",
           c->statistic, number(r, "statistic"));
    const json_t *df = json_object_get(r, "df");
    expect(json_is_null(df) ? isnan(c->df) : near(c->df, json_number_value(df), same_number),
           id, m, "df", c->df, json_number_value(df));
    expect(c->exact == flag(r, "exact"), id, m, "exact", c->exact, flag(r, "exact"));
    expect(near(c->achieved_confidence, number(r, "achieved_confidence"), same_number), id, m,
           "achieved_confidence", c->achieved_confidence, number(r, "achieved_confidence"));
    expect(c->resolution_limited == flag(r, "resolution_limited"), id, m, "resolution_limited",
           c->resolution_limited, flag(r, "resolution_limited"));
}

static void check_spread(const char *id, const char *m, const layouts_comparison *c,
                         const json_t *r)
{
    expect(near(c->layout_spread, number(r, "layout_spread"), same_number), id, m,
           "layout_spread", c->layout_spread, number(r, "layout_spread"));
    expect(near(c->noise_sd, number(r, "noise_sd"), same_number), id, m, "noise_sd",
           c->noise_sd, number(r, "noise_sd"));
    expect(near(c->layout_share, number(r, "layout_share"), same_number), id, m,
           "layout_share", c->layout_share, number(r, "layout_share"));
    expect(c->binary_status == STATS_OK, id, m, "binary_status", c->binary_status, STATS_OK);
    expect(near(c->binary.ratio, number(r, "binary_ratio"), same_number), id, m,
           "binary ratio", c->binary.ratio, number(r, "binary_ratio"));
    expect(near(c->binary.p_value, number(r, "binary_p_value"), same_number), id, m,
           "binary p", c->binary.p_value, number(r, "binary_p_value"));
    expect(near(c->binary_noise_band, number(r, "binary_noise_band"), same_number), id, m,
           "noise band", c->binary_noise_band, number(r, "binary_noise_band"));
}

static void check_verdict(const char *id, const char *m, const layouts_comparison *c,
                          const json_t *r)
{
    const char *want = json_string_value(json_object_get(r, "verdict"));
    if (strcmp(verdict_kind_name(c->decision.kind), want) != 0) {
        failures++;
        printf("FAIL %s %s: %s, R's rules give %s\n", id, m,
               verdict_kind_name(c->decision.kind), want);
    }
    expect(c->needed_layouts == (long)number(r, "needed_layouts"), id, m, "needed_layouts",
           (double)c->needed_layouts, number(r, "needed_layouts"));
    expect(c->decision.needed_blocks == -1, id, m, "needed_blocks", c->decision.needed_blocks,
           -1);
    bool within = layouts_within_noise(c, c->binary.ratio);
    expect(within == flag(r, "within_noise"), id, m, "within_noise", within,
           flag(r, "within_noise"));
}

static void check_method(const json_t *cs, const char *m, comparison_method method,
                         double confidence, double margin)
{
    const char *id = json_string_value(json_object_get(cs, "id"));
    const json_t *r = json_object_get(cs, m);
    size_t n = 0, n_candidate = 0;
    owned_variant a = variant_of(json_object_get(cs, "baseline"), &n);
    owned_variant b = variant_of(json_object_get(cs, "candidate"), &n_candidate);
    assert_int_equal(n, n_candidate);
    layouts_variant va = {a.views, a.k}, vb = {b.views, b.k};
    layouts_options o = {.method = method, .confidence = confidence, .margin = margin};
    layouts_comparison c;
    assert_int_equal(layouts_compare(&va, &vb, n, &o, &c), STATS_OK);
    check_locations(id, m, c.baseline_locations, json_object_get(r, "baseline_locations"));
    check_locations(id, m, c.candidate_locations, json_object_get(r, "candidate_locations"));
    check_test(id, m, &c, r);
    check_interval(id, m, &c, r);
    check_spread(id, m, &c, r);
    check_verdict(id, m, &c, r);
    const json_t *ci = json_object_get(r, "ci");
    printf("# %-17s %-5s verdict %.6f [%.6f, %.6f] p %.6g | R %.6f [%.6f, %.6f] p %.6g | %s\n",
           id, m, c.ratio, c.ci_low, c.ci_high, c.p_value, number(r, "ratio"),
           json_number_value(json_array_get(ci, 0)), json_number_value(json_array_get(ci, 1)),
           number(r, "p_value"), verdict_kind_name(c.decision.kind));
    layouts_comparison_free(&c);
    variant_free(&a);
    variant_free(&b);
}

static void test_against_r(void **state)
{
    (void)state;
    json_t *root = golden_load_from("VERDICT_LAYOUTS");
    double confidence = number(root, "confidence"), margin = number(root, "margin");
    const json_t *cases = json_object_get(root, "cases");
    assert_true(json_array_size(cases) >= 8);
    failures = 0;
    for (size_t i = 0; i < json_array_size(cases); i++) {
        check_method(json_array_get(cases, i), "welch", METHOD_WELCH, confidence, margin);
        check_method(json_array_get(cases, i), "rank", METHOD_WILCOXON, confidence, margin);
    }
    json_decref(root);
    if (failures)
        fail_msg("%d value(s) differ from R (see above)", failures);
}

/* Four layouts a side, six blocks: fixed numbers with a layout spread and a 5% change. */
enum { HAND_K = 4, HAND_N = 6 };
static const double hand_base[HAND_K][HAND_N] = {
    {10.0, 10.4, 9.8, 10.1, 10.6, 9.9}, {10.5, 10.7, 10.2, 10.6, 11.1, 10.3},
    {9.7, 10.0, 9.5, 9.9, 10.2, 9.6}, {10.2, 10.5, 10.0, 10.3, 10.7, 10.1}};

static void hand_data(double scale_block, double (*a)[HAND_N], double (*b)[HAND_N],
                      const double **ra, const double **rb)
{
    for (size_t k = 0; k < HAND_K; k++) {
        for (size_t j = 0; j < HAND_N; j++) {
            double block = j == 2 ? scale_block : 1.0;
            a[k][j] = hand_base[k][j] * block;
            b[k][j] = hand_base[(k + 1) % HAND_K][j] * 1.05 * block * (1.0 + 0.003 * (double)k);
        }
        ra[k] = a[k];
        rb[k] = b[k];
    }
}

static layouts_comparison hand_compare(double scale_block, comparison_method method)
{
    double a[HAND_K][HAND_N], b[HAND_K][HAND_N];
    const double *ra[HAND_K], *rb[HAND_K];
    hand_data(scale_block, a, b, ra, rb);
    layouts_variant va = {ra, HAND_K}, vb = {rb, HAND_K};
    layouts_options o = {.method = method, .confidence = 0.95, .margin = 0.01};
    layouts_comparison c;
    assert_int_equal(layouts_compare(&va, &vb, HAND_N, &o, &c), STATS_OK);
    return c;
}

/* A machine state that slows a whole block (every unit in it) changes nothing: that is what
 * removing the block means buys. */
static void test_block_effect_cancels(void **state)
{
    (void)state;
    for (int m = 0; m < 2; m++) {
        comparison_method method = m ? METHOD_WELCH : METHOD_WILCOXON;
        layouts_comparison plain = hand_compare(1.0, method), slow = hand_compare(1.7, method);
        assert_true(fabs(plain.ratio - slow.ratio) < 1e-12);
        assert_true(fabs(plain.ci_low - slow.ci_low) < 1e-12);
        assert_true(fabs(plain.ci_high - slow.ci_high) < 1e-12);
        assert_true(fabs(plain.layout_spread - slow.layout_spread) < 1e-12);
        assert_true(fabs(plain.noise_sd - slow.noise_sd) < 1e-12);
        for (size_t k = 0; k < HAND_K; k++)
            assert_true(fabs(plain.candidate_locations[k] - slow.candidate_locations[k]) < 1e-12);
        assert_true(plain.ratio > 1.03 && plain.ratio < 1.07);
        layouts_comparison_free(&plain);
        layouts_comparison_free(&slow);
    }
}

static void test_refusals(void **state)
{
    (void)state;
    double a[HAND_K][HAND_N], b[HAND_K][HAND_N];
    const double *ra[HAND_K], *rb[HAND_K];
    hand_data(1.0, a, b, ra, rb);
    layouts_variant va = {ra, HAND_K}, vb = {rb, HAND_K}, one = {ra, 1};
    layouts_options o = {.method = METHOD_WILCOXON, .confidence = 0.95, .margin = 0.01};
    layouts_comparison c;
    assert_int_equal(layouts_compare(&va, &one, HAND_N, &o, &c), STATS_ERR_TOO_FEW);
    assert_int_equal(layouts_compare(&va, &vb, 1, &o, &c), STATS_ERR_TOO_FEW);
    layouts_comparison_free(&c); /* harmless after a failure */
    o.method = METHOD_BOOTSTRAP;
    assert_int_equal(layouts_compare(&va, &vb, HAND_N, &o, &c), STATS_ERR_DOMAIN);
    o.method = METHOD_WELCH;
    o.confidence = 1.0;
    assert_int_equal(layouts_compare(&va, &vb, HAND_N, &o, &c), STATS_ERR_DOMAIN);
    o.confidence = 0.95;
    b[2][3] = 0.0;
    assert_int_equal(layouts_compare(&va, &vb, HAND_N, &o, &c), STATS_ERR_DOMAIN);
    b[2][3] = NAN;
    assert_int_equal(layouts_compare(&va, &vb, HAND_N, &o, &c), STATS_ERR_DOMAIN);
    assert_int_equal(layouts_compare(NULL, &vb, HAND_N, &o, &c), STATS_ERR_DOMAIN);
}

/* A deterministic metric: every layout of a variant measures the same value in every block.
 * The rank test then has no interval; the shift is known and claimed (six layouts a side can
 * reach 95%), widened by the rounding of 1.0 and 1.1. Welch has no variance to work with. */
static void test_constant_layouts(void **state)
{
    (void)state;
    enum { K = 6, N = 5 };
    double a[K][N], b[K][N];
    const double *ra[K], *rb[K];
    for (size_t k = 0; k < K; k++) {
        for (size_t j = 0; j < N; j++)
            a[k][j] = 1.0, b[k][j] = 1.1;
        ra[k] = a[k], rb[k] = b[k];
    }
    layouts_variant va = {ra, K}, vb = {rb, K};
    layouts_options o = {.method = METHOD_WILCOXON, .confidence = 0.95, .margin = 0.01};
    layouts_comparison c;
    assert_int_equal(layouts_compare(&va, &vb, N, &o, &c), STATS_OK);
    assert_int_equal(c.decision.kind, VERDICT_WORSE);
    assert_true(fabs(c.ratio - 1.1) < 1e-12);
    assert_true(c.resolution_limited);
    assert_true(c.ci_low > 1.0 && c.ci_low < 1.1 && c.ci_high > 1.1);
    assert_true(c.layout_spread == 0.0 && c.noise_sd == 0.0);
    layouts_comparison_free(&c);
    o.method = METHOD_WELCH;
    assert_int_equal(layouts_compare(&va, &vb, N, &o, &c), STATS_ERR_DEGENERATE);
    for (size_t k = 0; k < K; k++)
        for (size_t j = 0; j < N; j++)
            b[k][j] = 1.0;
    o.method = METHOD_WILCOXON;
    assert_int_equal(layouts_compare(&va, &vb, N, &o, &c), STATS_ERR_DEGENERATE);
}

/* A claimed change is never "within layout noise", however small the binary ratio. */
static void test_within_noise_needs_no_claim(void **state)
{
    (void)state;
    layouts_comparison c = hand_compare(1.0, METHOD_WELCH);
    assert_int_equal(c.decision.kind, VERDICT_WORSE);
    assert_false(layouts_within_noise(&c, 1.0));
    c.decision.kind = VERDICT_INCONCLUSIVE;
    assert_true(layouts_within_noise(&c, exp(c.binary_noise_band * 0.99)));
    assert_false(layouts_within_noise(&c, exp(c.binary_noise_band * 1.01)));
    assert_false(layouts_within_noise(&c, 0.0));
    layouts_comparison_free(&c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_against_r),
        cmocka_unit_test(test_block_effect_cancels),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_constant_layouts),
        cmocka_unit_test(test_within_noise_needs_no_claim),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
