/* The minimum detectable effect from an interval's half-width: the normal approximation of
 * the power of a two-sided test at the interval's level. */
#include "detectable.h"

#include <math.h>

#include "distributions.h"

double detectable_effect(double ci_low, double ci_high, double confidence, double power)
{
    if (!(ci_low > 0) || !(ci_high >= ci_low) || !isfinite(ci_high) || !(confidence > 0) ||
        !(confidence < 1) || !(power > 0) || !(power < 1))
        return NAN;
    double z_level = -dist_qnorm((1.0 - confidence) / 2.0);
    double se = (log(ci_high) - log(ci_low)) / 2.0 / z_level;
    return expm1((z_level + dist_qnorm(power)) * se);
}
