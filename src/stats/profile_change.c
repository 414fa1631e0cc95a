/* A function's change between two variants' profiles: per block, its time in each variant
 * (share of samples times the measured time), their difference; the differences' mean with
 * a paired t interval, as a share of the baseline's time and in seconds. */
#include "profile_change.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>

#include "descriptive.h"
#include "shift.h"
#include "t_tests.h"

static bool valid_blocks(const profile_blocks *b)
{
    for (size_t i = 0; i < b->n; i++) {
        double s[2] = {b->baseline_share[i], b->candidate_share[i]};
        double t[2] = {b->baseline_time[i], b->candidate_time[i]};
        for (int k = 0; k < 2; k++)
            if (!(s[k] >= 0 && s[k] <= 1) || !(t[k] > 0) || !isfinite(t[k]))
                return false;
    }
    return true;
}

/* The mean of d and its t interval; all d equal: the interval is that value. */
static stats_status mean_interval(const double *d, size_t n, double confidence, double *mean,
                                  double *low, double *high)
{
    *mean = stats_mean(d, n);
    shift_result r;
    stats_status status = paired_t_test(d, n, confidence, &r);
    if (status == STATS_ERR_DEGENERATE) {
        *low = *high = *mean;
        return STATS_OK;
    }
    *low = status == STATS_OK ? r.ci_low : NAN;
    *high = status == STATS_OK ? r.ci_high : NAN;
    return status;
}

stats_status profile_change_estimate(const profile_blocks *b, double confidence,
                                     profile_change *out)
{
    *out = (profile_change){.n = b->n, .change = NAN, .change_low = NAN, .change_high = NAN,
                            .seconds = NAN, .seconds_low = NAN, .seconds_high = NAN,
                            .share_baseline = NAN, .share_candidate = NAN,
                            .baseline_seconds = NAN, .candidate_seconds = NAN};
    if (b->n == 0)
        return STATS_ERR_TOO_FEW;
    if (!valid_blocks(b))
        return STATS_ERR_DOMAIN;
    double *work = malloc(4 * b->n * sizeof *work);
    if (work == NULL)
        return STATS_ERR_NOMEM;
    double *relative = work, *seconds = work + b->n, *base = work + 2 * b->n,
           *cand = work + 3 * b->n;
    for (size_t i = 0; i < b->n; i++) {
        base[i] = b->baseline_share[i] * b->baseline_time[i];
        cand[i] = b->candidate_share[i] * b->candidate_time[i];
        seconds[i] = cand[i] - base[i];
        relative[i] = seconds[i] / b->baseline_time[i];
    }
    out->share_baseline = stats_mean(b->baseline_share, b->n);
    out->share_candidate = stats_mean(b->candidate_share, b->n);
    out->baseline_seconds = stats_mean(base, b->n);
    out->candidate_seconds = stats_mean(cand, b->n);
    stats_status status = mean_interval(relative, b->n, confidence, &out->change,
                                        &out->change_low, &out->change_high);
    stats_status again = mean_interval(seconds, b->n, confidence, &out->seconds,
                                       &out->seconds_low, &out->seconds_high);
    free(work);
    return status != STATS_OK ? status : again;
}
