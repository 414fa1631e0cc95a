/* Lan-DeMets spending functions and the Armitage-McPherson-Rowe recursion: the null density
 * of the Brownian-motion statistic on a grid, each boundary solved to spend its increment. */
#include "spending.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "distributions.h"

/* Beyond |Z| = 12 lies 3.6e-33 of a standard normal: the grid stops there, and a look whose
 * increment is smaller than what crosses there spends nothing (its boundary is INFINITY). */
#define SPENDING_Z_CAP 12.0
/* Grid points per standard deviation of the next increment of the Brownian motion: Simpson's
 * rule on a Gaussian kernel this finely sampled errs by about (1/48)^4 / 180, below 1e-8. */
#define SPENDING_POINTS_PER_SD 48.0
/* At most this many grid points (looks closer than a hundredth of the information apart get a
 * coarser grid rather than a quadratic cost). */
#define SPENDING_MAX_POINTS 6001
#define SPENDING_BISECTIONS 200

static const char *const kind_names[] = {"obrien-fleming", "pocock", "equal"};

const char *spending_name(spending_kind kind)
{
    assert((size_t)kind < sizeof kind_names / sizeof kind_names[0]);
    return kind_names[kind];
}

int spending_from_name(const char *name, spending_kind *kind, verdict_error *err)
{
    for (size_t i = 0; i < sizeof kind_names / sizeof kind_names[0]; i++) {
        if (strcmp(name, kind_names[i]) == 0) {
            *kind = (spending_kind)i;
            return 0;
        }
    }
    return error_set(err, ERROR_USAGE,
                     "spending '%s' is not one of obrien-fleming, pocock, equal", name);
}

/* The spending function itself, at two-sided level alpha, t in [0, 1]. Each tail spends
 * alpha / 2 by the one-sided function, as R's ldbounds and gsDesign do for symmetric
 * two-sided bounds: for O'Brien-Fleming that is 2 (2 - 2 Phi(z_{alpha/4} / sqrt(t))), which
 * gives the published 4.877 ... 2.031 (the two-sided form 2 - 2 Phi(z_{alpha/2} / sqrt(t))
 * spends more early: 4.383 ... 2.064). Pocock's is linear in alpha: the same either way. */
static double spending_function(spending_kind kind, double alpha, double t, size_t look,
                                size_t looks)
{
    switch (kind) {
    case SPENDING_OBRIEN_FLEMING:
        return t <= 0 ? 0.0 : 4.0 * dist_pnorm_upper(-dist_qnorm(alpha / 4.0) / sqrt(t));
    case SPENDING_POCOCK:
        return alpha * log(1.0 + (M_E - 1.0) * t);
    case SPENDING_EQUAL:
        return looks == 0 ? alpha : alpha * (double)(look + 1 < looks ? look + 1 : looks) /
                                        (double)looks;
    }
    assert(!"unknown spending kind");
    return alpha;
}

double spending_cumulative(const spending_plan *plan, double t, size_t look, size_t looks)
{
    assert(plan->alpha > 0 && plan->alpha < 1 && plan->reserve >= 0 && plan->reserve < 1);
    double planned = 1.0 - plan->reserve;
    if (t <= 1.0)
        return planned * spending_function(plan->kind, plan->alpha, t, look, looks);
    return plan->alpha * (planned + plan->reserve * (1.0 - 1.0 / t));
}

double spending_extension_alpha(const spending_plan *plan, double from, double to)
{
    from = fmax(from, 1.0);
    if (!(to > from))
        return 0.0;
    /* the same look index for both: beyond t = 1 the index is not read */
    return spending_cumulative(plan, to, 0, 1) - spending_cumulative(plan, from, 0, 1);
}

double spending_look_z(double nominal_alpha)
{
    if (!(nominal_alpha > 0))
        return INFINITY;
    return -dist_qnorm(nominal_alpha / 2.0); /* accurate for the smallest levels */
}

double spending_look_confidence(const spending_look *look)
{
    return 1.0 - look->nominal_alpha;
}

/* The null sub-density of B(t_k) on the paths that have not crossed yet, as point masses:
 * mass[j] = Simpson weight * density at s[j] (one point of mass 1 at 0 before the first look). */
typedef struct {
    size_t n;
    double *s;
    double *mass;
} spending_grid;

static void grid_free(spending_grid *g)
{
    free(g->s);
    free(g->mass);
    g->s = g->mass = NULL;
}

static int grid_alloc(spending_grid *g, size_t n, verdict_error *err)
{
    g->n = n;
    g->s = malloc(n * sizeof *g->s);
    g->mass = malloc(n * sizeof *g->mass);
    if (g->s == NULL || g->mass == NULL) {
        grid_free(g);
        return error_no_memory(err);
    }
    return 0;
}

/* P(not crossed before, |B(t)| >= bound now), the increment having standard deviation sd. */
static double crossing(const spending_grid *g, double bound, double sd)
{
    double p = 0;
    for (size_t j = 0; j < g->n; j++)
        p += g->mass[j] * (dist_pnorm_upper((bound - g->s[j]) / sd) +
                           dist_pnorm_upper((bound + g->s[j]) / sd));
    return p;
}

/* The boundary on the z scale whose crossing probability is `target` (bisection: crossing
 * falls as the boundary rises). */
static int solve_boundary(const spending_grid *g, double target, double sqrt_t, double sd,
                          double *z, verdict_error *err)
{
    if (!(target > 0) || crossing(g, SPENDING_Z_CAP * sqrt_t, sd) >= target) {
        *z = INFINITY;
        return 0;
    }
    if (crossing(g, 0.0, sd) < target)
        return error_set(err, ERROR_USAGE,
                         "spending: an increment of %g exceeds what is left to spend", target);
    double lo = 0.0, hi = SPENDING_Z_CAP;
    for (int i = 0; i < SPENDING_BISECTIONS && hi - lo > 1e-12; i++) {
        double mid = 0.5 * (lo + hi);
        if (crossing(g, mid * sqrt_t, sd) > target)
            lo = mid;
        else
            hi = mid;
    }
    *z = 0.5 * (lo + hi);
    return 0;
}

/* Carries the sub-density from `from` over an increment of standard deviation sd into the
 * continuation region |s| < half, sampled finely enough for increments of `next_sd`. */
static int carry(const spending_grid *from, double half, double sd, double next_sd,
                 spending_grid *to, verdict_error *err)
{
    double finest = fmin(sd, next_sd) / SPENDING_POINTS_PER_SD;
    size_t intervals = (size_t)ceil(2.0 * half / finest);
    intervals += intervals % 2; /* Simpson's rule needs an even number of intervals */
    if (intervals < 64)
        intervals = 64;
    if (intervals > SPENDING_MAX_POINTS - 1)
        intervals = SPENDING_MAX_POINTS - 1;
    if (grid_alloc(to, intervals + 1, err) != 0)
        return -1;
    double step = 2.0 * half / (double)intervals;
    for (size_t i = 0; i <= intervals; i++) {
        double u = -half + step * (double)i, density = 0;
        for (size_t j = 0; j < from->n; j++) {
            double x = (u - from->s[j]) / sd;
            density += from->mass[j] * exp(-0.5 * x * x);
        }
        density /= sd * sqrt(2.0 * M_PI);
        double weight = (i == 0 || i == intervals) ? 1.0 : (i % 2 ? 4.0 : 2.0);
        to->s[i] = u;
        to->mass[i] = density * weight * step / 3.0;
    }
    return 0;
}

static int check_fractions(const double *fractions, const double *cumulative, size_t looks,
                           verdict_error *err)
{
    for (size_t k = 0; k < looks; k++) {
        double before = k ? fractions[k - 1] : 0.0;
        if (!(fractions[k] > before) || !isfinite(fractions[k]))
            return error_set(err, ERROR_USAGE,
                             "spending: look %zu's information fraction %g does not follow %g",
                             k + 1, fractions[k], before);
        double spent = k ? cumulative[k - 1] : 0.0;
        if (!(cumulative[k] >= spent) || !(cumulative[k] < 1))
            return error_set(err, ERROR_USAGE,
                             "spending: look %zu's cumulative alpha %g does not follow %g",
                             k + 1, cumulative[k], spent);
    }
    return 0;
}

int spending_boundaries_for(const double *fractions, const double *cumulative, size_t looks,
                            spending_look *out, verdict_error *err)
{
    if (check_fractions(fractions, cumulative, looks, err) != 0)
        return -1;
    int rc = -1;
    spending_grid now = {0}, next = {0};
    if (grid_alloc(&now, 1, err) != 0)
        goto done;
    now.s[0] = 0.0;
    now.mass[0] = 1.0; /* B(0) = 0 */
    for (size_t k = 0; k < looks; k++) {
        double before = k ? fractions[k - 1] : 0.0;
        double sd = sqrt(fractions[k] - before), sqrt_t = sqrt(fractions[k]);
        double target = cumulative[k] - (k ? cumulative[k - 1] : 0.0);
        out[k] = (spending_look){.fraction = fractions[k], .alpha_spent = cumulative[k]};
        if (solve_boundary(&now, target, sqrt_t, sd, &out[k].z, err) != 0)
            goto done;
        out[k].nominal_alpha = isinf(out[k].z) ? 0.0 : 2.0 * dist_pnorm_upper(out[k].z);
        if (k + 1 == looks)
            break;
        double next_sd = sqrt(fractions[k + 1] - fractions[k]);
        double half = fmin(out[k].z, SPENDING_Z_CAP) * sqrt_t;
        if (carry(&now, half, sd, next_sd, &next, err) != 0)
            goto done;
        grid_free(&now);
        now = next;
        next = (spending_grid){0};
    }
    rc = 0;
done:
    grid_free(&now);
    grid_free(&next);
    return rc;
}

int spending_boundaries(const spending_plan *plan, const double *fractions, size_t looks,
                        spending_look *out, verdict_error *err)
{
    if (!(plan->alpha > 0 && plan->alpha < 1) || !(plan->reserve >= 0 && plan->reserve < 1))
        return error_set(err, ERROR_USAGE,
                         "spending: alpha %g must be in (0, 1) and the reserve %g in [0, 1)",
                         plan->alpha, plan->reserve);
    double *cumulative = malloc((looks ? looks : 1) * sizeof *cumulative);
    if (cumulative == NULL)
        return error_no_memory(err);
    size_t planned = 0; /* looks at or before the planned information: EQUAL divides by them */
    while (planned < looks && fractions[planned] <= 1.0)
        planned++;
    for (size_t k = 0; k < looks; k++)
        cumulative[k] = spending_cumulative(plan, fractions[k], k, planned);
    int rc = spending_boundaries_for(fractions, cumulative, looks, out, err);
    free(cumulative);
    return rc;
}
