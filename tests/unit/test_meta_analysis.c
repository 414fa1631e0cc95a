/* Pooling across machines against R's metafor (tests/golden/meta.R, r-meta.json) on fixed
 * fleets, and its closed forms, invariances and refusals on hand-made ones. */
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
#include "common/error.h"
#include "stats/distributions.h"
#include "stats/meta_analysis.h"

/* With metafor's own stopping rule the C code takes R's steps, so everything agrees to
 * rounding (the measured worst is printed by the test). Converged REML stops on another
 * rule than R's tighter threshold, so tau2 is compared on the scale of the variances. */
static const double same_as_metafor = 1e-12;
static const double same_converged = 1e-9;

typedef struct {
    const char *name;
    size_t offset;
    int floor; /* what "near 0" is measured against: see field_floor */
} meta_field;

enum { FLOOR_NONE, FLOOR_LOCATION, FLOOR_VARIANCE, FLOOR_PERCENT, FLOOR_ONE };

#define FIELD(n, f) {n, offsetof(meta_result, f), f##_floor}
enum {
    estimate_floor = FLOOR_LOCATION, se_floor = FLOOR_NONE, ci_low_floor = FLOOR_LOCATION,
    ci_high_floor = FLOOR_LOCATION, t_floor = FLOOR_ONE, p_floor = FLOOR_NONE,
    s2w_floor = FLOOR_NONE, tau2_floor = FLOOR_VARIANCE, i2_floor = FLOOR_PERCENT,
    h2_floor = FLOOR_NONE, q_floor = FLOOR_NONE, q_p_floor = FLOOR_NONE,
    pi_low_floor = FLOOR_LOCATION, pi_high_floor = FLOOR_LOCATION
};
static const meta_field fields[] = {
    FIELD("estimate", estimate), FIELD("se", se),     FIELD("ci_low", ci_low),
    FIELD("ci_high", ci_high),   FIELD("t", t),       FIELD("p", p),
    FIELD("s2w", s2w),           FIELD("tau2", tau2), FIELD("i2", i2),
    FIELD("h2", h2),             FIELD("q", q),       FIELD("q_p", q_p),
    FIELD("pi_low", pi_low),     FIELD("pi_high", pi_high),
};
#define N_FIELDS (sizeof fields / sizeof fields[0])

static double worst[2][N_FIELDS]; /* [metafor stop, converged][field]: largest scaled error */
static int failures;

static double number(const json_t *o, const char *key)
{
    return json_number_value(json_object_get(o, key));
}

/* Locations are compared relative to the machines' typical standard error, tau2 to their
 * typical variance, I^2 as a fraction, t in units: a log ratio of 1e-9 is 0 here. */
static double field_floor(int floor, const double *vi, size_t k)
{
    double mean_vi = 0.0;
    for (size_t i = 0; i < k; i++)
        mean_vi += vi[i] / (double)k;
    switch (floor) {
    case FLOOR_LOCATION: return sqrt(mean_vi);
    case FLOOR_VARIANCE: return mean_vi;
    case FLOOR_PERCENT: return 100.0;
    case FLOOR_ONE: return 1.0;
    default: return 1e-300;
    }
}

static void check_fit(const char *id, const json_t *fit, const double *yi, const double *vi,
                      size_t k, double level)
{
    const char *method = json_string_value(json_object_get(fit, "method"));
    const char *stop = json_string_value(json_object_get(fit, "stop"));
    meta_tau2_method m = strcmp(method, "DL") == 0 ? META_TAU2_DL : META_TAU2_REML;
    bool converged = strcmp(stop, "converged") == 0;
    meta_result r;
    verdict_error err = {0};
    int rc = converged ? meta_random_effects(yi, vi, k, m, level, &r, &err)
                       : meta_random_effects_threshold(yi, vi, k, m, level,
                                                       META_METAFOR_THRESHOLD, &r, &err);
    if (rc != 0) {
        failures++;
        printf("FAIL %s %s %s: %s\n", id, method, stop, err.message);
        return;
    }
    double tol = converged ? same_converged : same_as_metafor;
    for (size_t f = 0; f < N_FIELDS; f++) {
        double got = *(const double *)((const char *)&r + fields[f].offset);
        double want = number(fit, fields[f].name);
        double scale = fmax(fabs(want), field_floor(fields[f].floor, vi, k));
        double error = fabs(got - want) / scale;
        worst[converged][f] = fmax(worst[converged][f], error);
        if (!(error <= tol)) {
            failures++;
            printf("FAIL %s %s %s: %s = %.17g, R: %.17g\n", id, method, stop, fields[f].name,
                   got, want);
        }
    }
    /* metafor's stopping rule gives metafor's number of Fisher-scoring steps */
    if (!converged && r.iterations != (int)number(fit, "iterations")) {
        failures++;
        printf("FAIL %s %s: %d steps, R: %g\n", id, method, r.iterations,
               number(fit, "iterations"));
    }
    /* the fleet on which tightly held Fisher scoring cycles is settled by bisection */
    if (converged && strcmp(id, "ten-cycling") == 0)
        assert_true(r.iterations > META_REML_MAX_ITERATIONS);
    assert_true(r.k == k && r.df == (double)(k - 1) && r.q_df == (double)(k - 1));
    assert_true(fabs(r.tau - sqrt(r.tau2)) <= 1e-15 * r.tau);
}

static void test_against_r(void **state)
{
    (void)state;
    json_t *root = golden_load_from("VERDICT_META");
    const json_t *cases = json_object_get(root, "cases");
    assert_true(json_array_size(cases) >= 10);
    size_t fits = 0, i;
    const json_t *c;
    json_array_foreach(cases, i, c) {
        size_t k, k_vi;
        double *yi = golden_numbers(json_object_get(c, "yi"), &k);
        double *vi = golden_numbers(json_object_get(c, "vi"), &k_vi);
        assert_int_equal(k, k_vi);
        const char *id = json_string_value(json_object_get(c, "id"));
        size_t j;
        const json_t *fit;
        json_array_foreach(json_object_get(c, "fits"), j, fit) {
            check_fit(id, fit, yi, vi, k, number(c, "level"));
            fits++;
        }
        free(yi);
        free(vi);
    }
    for (int s = 0; s < 2; s++) {
        printf("%s: largest scaled difference from R:", s ? "converged REML" : "metafor stop");
        for (size_t f = 0; f < N_FIELDS; f++)
            printf(" %s %.1e", fields[f].name, worst[s][f]);
        printf("\n");
    }
    printf("%zu fits of %zu fleets checked\n", fits, json_array_size(cases));
    json_decref(root);
    assert_int_equal(failures, 0);
}

static int pool(const double *yi, const double *vi, size_t k, meta_tau2_method m,
                meta_result *r, verdict_error *err)
{
    return meta_random_effects(yi, vi, k, m, 0.95, r, err);
}

static void expect_refusal(const double *yi, const double *vi, size_t k, double level,
                           const char *words)
{
    meta_result r;
    verdict_error err = {0};
    assert_int_equal(meta_random_effects(yi, vi, k, META_TAU2_REML, level, &r, &err),
                     -1);
    if (strstr(err.message, words) == NULL)
        fail_msg("expected \"%s\" in \"%s\"", words, err.message);
}

static void test_refusals(void **state)
{
    (void)state;
    double yi[] = {0.10, 0.12, 0.08}, vi[] = {1e-4, 2e-4, 3e-4};
    expect_refusal(yi, vi, 0, 0.95, "pooling needs at least two machines");
    expect_refusal(yi, vi, 1, 0.95, "pooling needs at least two machines");
    double bad_y[] = {0.10, NAN, 0.08}, inf_y[] = {0.10, 0.12, -INFINITY};
    expect_refusal(bad_y, vi, 3, 0.95, "machine 2: the log ratio is not finite");
    expect_refusal(inf_y, vi, 3, 0.95, "machine 3: the log ratio is not finite");
    double zero_v[] = {1e-4, 0.0, 3e-4}, neg_v[] = {-1e-4, 2e-4, 3e-4};
    double inf_v[] = {1e-4, 2e-4, INFINITY}, nan_v[] = {1e-4, NAN, 3e-4};
    expect_refusal(yi, zero_v, 3, 0.95, "machine 2: the sampling variance must be positive");
    expect_refusal(yi, neg_v, 3, 0.95, "machine 1: the sampling variance must be positive");
    expect_refusal(yi, inf_v, 3, 0.95, "machine 3: the sampling variance must be positive");
    expect_refusal(yi, nan_v, 3, 0.95, "machine 2: the sampling variance must be positive");
    expect_refusal(yi, vi, 3, 0.0, "the level must lie strictly between 0 and 1");
    expect_refusal(yi, vi, 3, 1.0, "the level must lie strictly between 0 and 1");
    expect_refusal(yi, vi, 3, NAN, "the level must lie strictly between 0 and 1");
    expect_refusal(NULL, vi, 3, 0.95, "pooling needs log ratios");
    double same[] = {0.05, 0.05, 0.05};
    expect_refusal(same, vi, 3, 0.95, "log ratios are all equal");
    meta_result r;
    verdict_error err = {0};
    assert_int_equal(meta_random_effects(yi, vi, 3, (meta_tau2_method)7, 0.95, &r, &err), -1);
    assert_non_null(strstr(err.message, "unknown tau^2 method"));
    assert_int_equal(meta_random_effects_threshold(yi, vi, 3, META_TAU2_REML, 0.95, 0.0, &r, &err),
                     -1);
    assert_non_null(strstr(err.message, "threshold must be positive"));
    /* no buffer for the message is allowed, and a refusal leaves *out alone */
    r.estimate = 42.0;
    assert_int_equal(meta_random_effects(yi, vi, 1, META_TAU2_DL, 0.95, &r, NULL), -1);
    assert_true(r.estimate == 42.0);
}

/* REML that would need more than metafor's 100 steps says so instead of returning the
 * 100th iterate: a fleet whose REML maximum is at 0, approached by Fisher scoring a factor
 * of a few per step, with a stopping threshold no step can reach. */
static void test_reml_non_convergence(void **state)
{
    (void)state;
    double yi[] = {0.2375, 0.2543, 0.2839, 0.2372, 0.2308};
    double vi[] = {1.12e-4, 7.69e-4, 6.15e-4, 4.89e-4, 1.05e-4};
    meta_result r;
    verdict_error err = {0};
    assert_int_equal(meta_random_effects(yi, vi, 5, META_TAU2_REML, 0.95, &r, &err), 0);
    assert_true(r.tau2 >= 0.0 && r.tau2 < 1e-12 && r.iterations > 5);
    int rc = meta_random_effects_threshold(yi, vi, 5, META_TAU2_REML, 0.95, 1e-320, &r, &err);
    if (rc == 0)
        fail_msg("converged in %d steps to tau2 %g", r.iterations, r.tau2);
    assert_non_null(strstr(err.message, "REML did not converge in 100 Fisher-scoring steps"));
    /* DL has no iterations to fail */
    assert_int_equal(meta_random_effects(yi, vi, 5, META_TAU2_DL, 0.95, &r, &err), 0);
    assert_int_equal(r.iterations, 0);
}

/* Equal variances v: the weights are equal, and both REML and DL have the closed form
 * max(0, s^2 - v) with s^2 the sample variance of the yi; the estimate is their mean, and
 * HKSJ's interval is the one-sample t interval of the yi. */
static void test_equal_variances(void **state)
{
    (void)state;
    double yi[] = {0.110, 0.082, 0.131, 0.095, 0.071}, v = 1e-4, vi[5];
    size_t k = 5;
    double mean = 0.0, ss = 0.0;
    for (size_t i = 0; i < k; i++) {
        vi[i] = v;
        mean += yi[i] / (double)k;
    }
    for (size_t i = 0; i < k; i++)
        ss += (yi[i] - mean) * (yi[i] - mean);
    double s2 = ss / (double)(k - 1), crit = dist_qt(0.975, (double)(k - 1));
    for (int m = META_TAU2_REML; m <= META_TAU2_DL; m++) {
        meta_result r;
        verdict_error err = {0};
        assert_int_equal(pool(yi, vi, k, (meta_tau2_method)m, &r, &err), 0);
        assert_true(fabs(r.tau2 - (s2 - v)) <= 1e-12 * s2);
        assert_true(fabs(r.estimate - mean) <= 1e-15);
        assert_true(fabs(r.se - sqrt(s2 / (double)k)) <= 1e-12 * r.se);
        assert_true(fabs(r.s2w - 1.0) <= 1e-9);
        assert_true(fabs(r.ci_high - (mean + crit * sqrt(s2 / (double)k))) <= 1e-12);
        assert_true(fabs(r.h2 - s2 / v) <= 1e-9 * r.h2);
    }
    /* spread below the noise: tau2 = 0, I^2 = 0, H^2 = 1, the PI is the CI */
    double close[] = {0.100, 0.101, 0.099, 0.1005, 0.0995};
    meta_result r;
    verdict_error err = {0};
    assert_int_equal(pool(close, vi, k, META_TAU2_REML, &r, &err), 0);
    assert_true(r.tau2 == 0.0 && r.i2 == 0.0 && r.h2 == 1.0);
    assert_true(r.pi_low == r.ci_low && r.pi_high == r.ci_high);
}

/* Two machines: one df, so the interval uses t(1)'s 12.7 and is very wide; honest. */
static void test_two_machines(void **state)
{
    (void)state;
    double yi[] = {0.20, 0.24}, vi[] = {1e-4, 1e-4};
    meta_result r;
    verdict_error err = {0};
    assert_int_equal(pool(yi, vi, 2, META_TAU2_REML, &r, &err), 0);
    assert_true(r.df == 1.0);
    double crit = dist_qt(0.975, 1.0);
    assert_true(fabs(crit - 12.706204736174707) < 1e-12);
    assert_true(fabs(r.ci_high - r.estimate - crit * r.se) <= 1e-15);
    assert_true(r.ci_low < 0.0 && r.ci_high > 0.4);
}

static void scaled_fleet(double shift, double scale, meta_tau2_method m, meta_result *r)
{
    double yi[] = {0.041, -0.023, 0.065, 0.012, 0.030, -0.008};
    double vi[] = {2e-4, 1.5e-4, 3e-4, 2.5e-4, 1e-4, 4e-4};
    for (size_t i = 0; i < 6; i++) {
        yi[i] = shift + scale * yi[i];
        vi[i] *= scale * scale;
    }
    verdict_error err = {0};
    assert_int_equal(pool(yi, vi, 6, m, r, &err), 0);
}

/* Shifting every log ratio moves the estimate and both intervals, nothing else; measuring in
 * other units (y times c, v times c^2) scales them and tau, and REML's scale-free stopping
 * rule takes the same steps. Machines in another order give the same answer. */
static void test_invariances(void **state)
{
    (void)state;
    for (int m = META_TAU2_REML; m <= META_TAU2_DL; m++) {
        meta_result a, b, c;
        scaled_fleet(0.0, 1.0, (meta_tau2_method)m, &a);
        scaled_fleet(0.5, 1.0, (meta_tau2_method)m, &b);
        scaled_fleet(0.0, 1e-3, (meta_tau2_method)m, &c);
        assert_true(a.tau2 > 0.0);
        assert_true(fabs(b.estimate - a.estimate - 0.5) <= 1e-12);
        assert_true(fabs(b.pi_low - a.pi_low - 0.5) <= 1e-12);
        assert_true(fabs(b.tau2 - a.tau2) <= 1e-12 * a.tau2);
        assert_true(fabs(b.p - a.p) > 0.01); /* the test of 0 moves */
        assert_true(fabs(c.estimate - 1e-3 * a.estimate) <= 1e-12 * fabs(a.estimate));
        assert_true(fabs(c.tau - 1e-3 * a.tau) <= 1e-10 * a.tau);
        assert_true(fabs(c.i2 - a.i2) <= 1e-9 && fabs(c.p - a.p) <= 1e-9);
        assert_int_equal(c.iterations, a.iterations);
    }
    double yi[] = {0.041, -0.023, 0.065}, vi[] = {2e-4, 1.5e-4, 3e-4};
    double yr[] = {0.065, 0.041, -0.023}, vr[] = {3e-4, 2e-4, 1.5e-4};
    meta_result a, b;
    verdict_error err = {0};
    assert_int_equal(pool(yi, vi, 3, META_TAU2_REML, &a, &err), 0);
    assert_int_equal(pool(yr, vr, 3, META_TAU2_REML, &b, &err), 0);
    assert_true(fabs(a.estimate - b.estimate) <= 1e-15 && fabs(a.tau2 - b.tau2) <= 1e-15);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_against_r),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_reml_non_convergence),
        cmocka_unit_test(test_equal_variances),
        cmocka_unit_test(test_two_machines),
        cmocka_unit_test(test_invariances),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
