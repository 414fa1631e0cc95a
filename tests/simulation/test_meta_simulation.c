/* Seeded simulation of pooling across machines: how often the HKSJ interval covers the
 * fleet's mean effect, and the prediction interval a new machine's true effect. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/error.h"

#include "stats/meta_analysis.h"

#define FLEETS 10000
#define MAX_K 10

static const double mu = 0.22314355131420976; /* log(1.25): the change's mean effect */

typedef struct {
    size_t k;   /* machines */
    double tau; /* sd of the machines' true log ratios */
    meta_tau2_method method;
} sim_cell;

typedef struct {
    double ci, pi;     /* coverage of mu, and of a new machine's mu + u_new */
    double tau2_zero;  /* share of fleets whose tau2 estimate is 0 */
    int refused;       /* fits that returned an error (REML not converging, ...) */
} sim_coverage;

/* One fleet: machine i's standard error log-uniform in [1%, 3.2%] (vi 1e-4..1e-3, what 10 to
 * 100 paired blocks of 3-10% noise give), its true effect mu + u_i, u_i ~ N(0, tau^2), and
 * its observed log ratio yi ~ N(mu + u_i, vi). */
static void draw_fleet(gsl_rng *rng, const sim_cell *cell, double *yi, double *vi)
{
    for (size_t i = 0; i < cell->k; i++) {
        double se = exp(log(0.01) + gsl_rng_uniform(rng) * (log(0.032) - log(0.01)));
        vi[i] = se * se;
        yi[i] = mu + gsl_ran_gaussian(rng, cell->tau) + gsl_ran_gaussian(rng, se);
    }
}

static sim_coverage simulate(gsl_rng *rng, const sim_cell *cell)
{
    double yi[MAX_K], vi[MAX_K];
    long ci_hits = 0, pi_hits = 0, zeros = 0;
    int refused = 0;
    for (int f = 0; f < FLEETS; f++) {
        draw_fleet(rng, cell, yi, vi);
        double new_machine = mu + gsl_ran_gaussian(rng, cell->tau);
        meta_result r;
        verdict_error err = {0};
        if (meta_random_effects(yi, vi, cell->k, cell->method, 0.95, &r, &err) != 0) {
            refused++;
            continue;
        }
        zeros += r.tau2 == 0.0;
        ci_hits += r.ci_low <= mu && mu <= r.ci_high;
        pi_hits += r.pi_low <= new_machine && new_machine <= r.pi_high;
    }
    return (sim_coverage){(double)ci_hits / FLEETS, (double)pi_hits / FLEETS,
                          (double)zeros / FLEETS, refused};
}

/* Binomial noise of a 95% rate over 10,000 fleets is 0.22 points. Measured with seed 20240611
 * (percent; REML / DL):
 *                   HKSJ interval covers mu      prediction interval covers mu + u_new
 *   k = 3,  tau 0:      95.26 / 94.81               95.26 / 94.81
 *   k = 3,  tau 1%:     94.67 / 94.53               91.16 / 90.89
 *   k = 3,  tau 3%:     93.45 / 93.83               86.85 / 87.85
 *   k = 5,  tau 0:      95.36 / 94.99               95.40 / 95.04
 *   k = 5,  tau 1%:     94.14 / 94.27               87.48 / 86.87
 *   k = 5,  tau 3%:     94.34 / 94.05               88.17 / 88.47
 *   k = 10, tau 0:      95.24 / 95.09               95.62 / 95.40
 *   k = 10, tau 1%:     94.19 / 94.35               83.27 / 83.71
 *   k = 10, tau 3%:     94.24 / 94.40               91.28 / 91.29
 * The HKSJ interval is held to [93%, 97%] (a normal interval without HKSJ's scaling, or with
 * z instead of t(k-1), falls far below at k = 3). The prediction interval is not at its
 * level when tau is near the machines' standard errors: tau2 is then estimated as 0 in many
 * fleets (REML: a quarter of them at k = 10, tau = 1%) and the interval shrinks to the
 * HKSJ one; metafor's predict() does the same (R, 3,000 fleets: 85% at k = 10, tau = 1%;
 * 87% at k = 5, tau = 3%). It is held to what it does, [80%, 97%] with heterogeneity and
 * [93%, 99%] without (its target is then mu itself), so that a change shows. */
static void check(const sim_cell *cell, const sim_coverage *c)
{
    const char *name = cell->method == META_TAU2_DL ? "DL" : "REML";
    printf("%-4s k = %2zu tau = %.2f: CI covers mu %.2f%%, PI covers a new machine %.2f%%, "
           "tau2 = 0 in %.1f%%\n", name, cell->k, cell->tau, 100.0 * c->ci, 100.0 * c->pi,
           100.0 * c->tau2_zero);
    assert_int_equal(c->refused, 0);
    assert_true(c->ci >= 0.93 && c->ci <= 0.97);
    if (cell->tau == 0.0)
        assert_true(c->pi >= 0.93 && c->pi <= 0.99);
    else
        assert_true(c->pi >= 0.80 && c->pi <= 0.97);
}

static void test_coverage(void **state)
{
    (void)state;
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, 20240611);
    static const size_t ks[] = {3, 5, 10};
    static const double taus[] = {0.0, 0.01, 0.03};
    for (int m = META_TAU2_REML; m <= META_TAU2_DL; m++)
        for (size_t a = 0; a < sizeof ks / sizeof ks[0]; a++)
            for (size_t b = 0; b < sizeof taus / sizeof taus[0]; b++) {
                sim_cell cell = {ks[a], taus[b], (meta_tau2_method)m};
                sim_coverage c = simulate(rng, &cell);
                check(&cell, &c);
            }
    gsl_rng_free(rng);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_coverage)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
