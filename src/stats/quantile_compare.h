/* The comparison of a low quantile: the log ratio of the two variants' Harrell-Davis
 * quantiles, its p-value from rearranging the runs under H0, its interval by inversion. */
#ifndef VERDICT_STATS_QUANTILE_COMPARE_H
#define VERDICT_STATS_QUANTILE_COMPARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "shift.h"

/* Sign flips drawn when enumerating all 2^n - 1 would take more than this (a p-value's
 * Monte Carlo standard error at 0.05: 0.0022). */
#define QUANTILE_DEFAULT_FLIPS 9999

typedef struct {
    double q;          /* the quantile compared, in (0, 1): 0.1 by default (issue 27) */
    double confidence; /* level of the interval, in (0, 1) */
    size_t flips;      /* sign flips drawn (0: QUANTILE_DEFAULT_FLIPS); every one of the
                          2^n - 1 is enumerated when there are no more than this */
    uint64_t seed;     /* the flips drawn; the same seed gives the same answer */
    bool test_only;    /* the p-value alone (ci_low, ci_high left unbounded): the interval
                          takes about twenty times the test's work, and a power simulation or
                          an A/A self-test reads only the p-value */
} quantile_options;

typedef struct {
    /* estimate: log HD_q(candidate) - log HD_q(baseline); ci_low, ci_high on the same scale,
       -INFINITY / INFINITY when no shift can be rejected at this level (too few blocks: see
       min_p_value); p_value for H0: the variants exchangeable within each block; statistic
       is the estimate, df NAN, exact when every flip was enumerated. */
    shift_result shift;
    double baseline_quantile, candidate_quantile; /* the two Harrell-Davis estimates */
    size_t flips;                                 /* flips the distribution was made of */
} quantile_comparison;

/* Compares candidate[i] with baseline[i] (i-th block, both positive, n >= 2).
 *
 * Test: under H0 the two runs of a block are exchangeable (A/A: the variants' order in a
 * block is random and the machine treats both alike), so swapping them in any set of blocks
 * leaves the data's distribution unchanged. The p-value is the share of flips (including
 * none) whose statistic is at least as far from 0 as the observed one: exact, whatever the
 * noise's shape, ties or rounding (a percentile bootstrap of the same statistic called A/A
 * different in 11% of simulated experiments of 20 blocks: issue 27).
 *
 * Interval: the shifts d not rejected when the candidate is divided by exp(d) and the flips
 * redone (the test inverted; it covers the quantile ratio when the candidate's distribution
 * is the baseline's scaled, as a change of the program's own cost scales its fast runs).
 * Each end solves |T(d)| = c(d), c(d) being the flips' critical value at d, by fixed-point
 * iteration (c moves slowly with d). -1 with ERROR_BAD_INPUT for fewer than 2 blocks, a value
 * that is not positive and finite, or options out of range; ERROR_NO_MEMORY. */
int quantile_compare_paired(const double *baseline, const double *candidate, size_t n,
                            const quantile_options *options, quantile_comparison *out,
                            verdict_error *err);

/* The same for two unpaired samples (runs not measured in blocks), nb, nc >= 2.
 *
 * Test: under H0 the runs of both variants are exchangeable, so every assignment of the pooled
 * runs to the two sides (nb to the baseline) is equally likely: p is the share of them whose
 * statistic is at least as far from 0 as the observed one, every C(nb + nc, nb) enumerated when
 * there are no more than flips + 1, else `flips` drawn (p = (1 + as extreme) / (flips + 1)).
 * Interval: the test inverted over the shift of the candidate, as for the paired comparison.
 * Errors as quantile_compare_paired's. */
int quantile_compare_unpaired(const double *baseline, size_t nb, const double *candidate,
                              size_t nc, const quantile_options *options,
                              quantile_comparison *out, verdict_error *err);

/* The fewest blocks (paired) or runs a side (unpaired, equal sides) whose smallest p-value
 * reaches 1 - confidence with the default number of flips. */
size_t quantile_compare_min_n(double confidence, bool paired);

#endif
