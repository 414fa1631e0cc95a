/* Continuous distributions used by the tests: standard normal and Student t.
 * Thin wrappers over GSL's CDFs so callers never include GSL headers themselves. */
#include "distributions.h"

#include <gsl/gsl_cdf.h>
#include <math.h>

double dist_pnorm(double z) { return gsl_cdf_ugaussian_P(z); }

double dist_pnorm_upper(double z) { return gsl_cdf_ugaussian_Q(z); }

double dist_qnorm(double p)
{
    if (!(p > 0.0 && p < 1.0))
        return p == 0.0 ? -INFINITY : p == 1.0 ? INFINITY : NAN;
    return gsl_cdf_ugaussian_Pinv(p);
}

double dist_pt(double t, double df)
{
    if (!(df > 0.0) || isnan(t))
        return NAN;
    return gsl_cdf_tdist_P(t, df);
}

double dist_pt_upper(double t, double df)
{
    if (!(df > 0.0) || isnan(t))
        return NAN;
    return gsl_cdf_tdist_Q(t, df);
}

double dist_qt(double p, double df)
{
    if (!(df > 0.0) || !(p > 0.0 && p < 1.0))
        return p == 0.0 ? -INFINITY : p == 1.0 ? INFINITY : NAN;
    return gsl_cdf_tdist_Pinv(p, df);
}
