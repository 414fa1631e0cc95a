/* The minimum detectable effect of a comparison: the smallest change its data could have
 * found with a given power at its level, read from the width of its interval. */
#ifndef VERDICT_STATS_DETECTABLE_H
#define VERDICT_STATS_DETECTABLE_H

/* The power every report states its minimum detectable effect at. */
#define DETECTABLE_POWER 0.8

/* (z_{1-a/2} + z_{power}) se on the log scale, se = half-width / z_{1-a/2}, a = 1 -
 * confidence, half-width = (log ci_high - log ci_low) / 2: the normal approximation of a
 * two-sided test's power, whatever the method that gave the interval (docs/statistics.md,
 * "Minimum detectable effect"). As a relative change (0.031 = 3.1%); NaN when the interval
 * has an end that is not a positive finite ratio or the level is not in (0, 1). */
double detectable_effect(double ci_low, double ci_high, double confidence, double power);

#endif
