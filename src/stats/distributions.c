/* Continuous distributions used by the tests: standard normal and Student t.
 * Thin wrappers over GSL's CDFs so callers never include GSL headers themselves. */
#include "distributions.h"

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_sf_gamma.h>
#include <math.h>

double dist_pnorm(double z) { return gsl_cdf_ugaussian_P(z); }

double dist_pnorm_upper(double z) { return gsl_cdf_ugaussian_Q(z); }

double dist_qnorm(double p)
{
    if (!(p > 0.0 && p < 1.0))
        return p == 0.0 ? -INFINITY : p == 1.0 ? INFINITY : NAN;
    return gsl_cdf_ugaussian_Pinv(p);
}

/* Where the incomplete beta function refines GSL's t tail (see t_tail). */
#define REFINE_BELOW_P 1e-4
#define REFINE_ABOVE_P 1e-290
#define REFINE_UP_TO_DF 1e7

/* P(T > t) for t >= 0. GSL's t CDF is accurate to ~1e-11 for tail areas above 1e-4 but
 * only to ~1e-6 relative in the far tail for moderate df (2e-8 at t = 15, df = 48, against
 * R's pt). There the regularized incomplete beta I_x(df/2, 1/2) / 2, x = df / (df + t^2),
 * agrees with R to ~1e-11. It is used only where a scan of (t, df) showed GSL raises no
 * error (GSL's default error handler aborts, and a library must not replace that global
 * handler): tail area in [1e-290, 1e-4], df <= 1e7; beyond 1e7 x is too close to 1 to
 * carry the tail, and the CDF is the better of the two. */
static double t_tail(double t, double df)
{
    double rough = gsl_cdf_tdist_Q(t, df);
    if (rough > REFINE_BELOW_P || rough < REFINE_ABOVE_P || df > REFINE_UP_TO_DF)
        return rough;
    return 0.5 * gsl_sf_beta_inc(df / 2.0, 0.5, df / (df + t * t));
}

double dist_pt_upper(double t, double df)
{
    if (!(df > 0.0) || isnan(t))
        return NAN;
    return t >= 0.0 ? t_tail(t, df) : 1.0 - t_tail(-t, df);
}

double dist_pt(double t, double df)
{
    if (!(df > 0.0) || isnan(t))
        return NAN;
    return t <= 0.0 ? t_tail(-t, df) : 1.0 - t_tail(t, df);
}

double dist_qt(double p, double df)
{
    if (!(df > 0.0) || !(p > 0.0 && p < 1.0))
        return p == 0.0 ? -INFINITY : p == 1.0 ? INFINITY : NAN;
    return gsl_cdf_tdist_Pinv(p, df);
}
