/* Equal-weight combination of per-point log ratios (each point of a sweep matters as
 * much as any other), with a normal interval from the per-point standard errors. */
#include "combine.h"

#include <math.h>

#include "distributions.h"

stats_status combine_ratios(const ratio_interval *points, size_t k, double confidence,
                            ratio_interval *out)
{
    if (k == 0)
        return STATS_ERR_TOO_FEW;
    if (!(confidence > 0.0 && confidence < 1.0))
        return STATS_ERR_DOMAIN;
    double sum = 0.0, variance = 0.0;
    for (size_t i = 0; i < k; i++) {
        const ratio_interval *p = &points[i];
        if (!(p->ratio > 0 && p->ci_low > 0 && p->ci_high >= p->ci_low) ||
            !(p->confidence > 0.0 && p->confidence < 1.0))
            return STATS_ERR_DOMAIN;
        double z = dist_qnorm(1.0 - (1.0 - p->confidence) / 2.0);
        double se = (log(p->ci_high) - log(p->ci_low)) / (2.0 * z);
        sum += log(p->ratio);
        variance += se * se;
    }
    double mean = sum / (double)k, se = sqrt(variance) / (double)k;
    double z = dist_qnorm(1.0 - (1.0 - confidence) / 2.0);
    *out = (ratio_interval){exp(mean), exp(mean - z * se), exp(mean + z * se), confidence};
    return STATS_OK;
}
