/* Pooling one change's effect across machines: a random-effects meta-analysis of per-machine
 * log ratios, with the machines as the random effect, as R's metafor::rma(test = "knha"). */
#ifndef VERDICT_STATS_META_ANALYSIS_H
#define VERDICT_STATS_META_ANALYSIS_H

#include <stddef.h>

#include "common/error.h"

typedef enum {
    META_TAU2_REML = 0, /* restricted maximum likelihood by Fisher scoring (default) */
    META_TAU2_DL        /* DerSimonian-Laird's method of moments: closed form, never fails */
} meta_tau2_method;

/* metafor's defaults for Fisher scoring: stop when a step moves tau2 by at most 1e-5
 * (absolute, control$threshold), give up after 100 steps (control$maxiter). */
#define META_METAFOR_THRESHOLD 1e-5
#define META_REML_MAX_ITERATIONS 100
/* verdict's default stop, scale-free: a step moves tau2 by at most this share of
 * (mean vi + tau2). metafor's absolute 1e-5 suits effect sizes with vi near 0.01-0.1; for
 * log ratios with vi near 1e-4 it can stop REML 40% away from its maximum. Held to this,
 * Fisher scoring creeps or cycles on the flat likelihoods of a few machines in about 0.2%
 * of simulated fleets; after META_REML_MAX_ITERATIONS steps verdict then brackets the root
 * of the REML score around the last step and bisects it to the same tolerance. */
#define META_REML_TOLERANCE 1e-10

typedef struct {
    size_t k;               /* machines (studies) pooled */
    meta_tau2_method method;
    double level;           /* of the intervals, e.g. 0.95 */
    double estimate;        /* pooled log ratio: inverse-variance weights 1/(vi + tau2) */
    double se;              /* its standard error, Hartung-Knapp-Sidik-Jonkman */
    double df;              /* k - 1: of the t distribution of the interval and the test */
    double ci_low, ci_high; /* HKSJ interval at `level`: estimate -/+ t(k-1) se */
    double t, p;            /* HKSJ test of estimate = 0: t = estimate / se, two-sided p */
    double s2w;             /* HKSJ scaling factor: the weighted residual variance around
                               the estimate, not truncated at 1 (metafor's default) */
    double pi_low, pi_high; /* prediction interval at `level` for the true log ratio of a
                               machine not in this fleet: estimate -/+ t(k-1) sqrt(tau2+se^2) */
    double tau2, tau;       /* between-machine variance of the true log ratios, its sqrt
                               (truncated at 0: a fleet more alike than its noise says) */
    double i2;              /* I^2 in percent, as metafor: 100 tau2 / (tau2 + typical vi) */
    double h2;              /* H^2 = tau2 / typical vi + 1 */
    double q, q_df, q_p;    /* Cochran's Q with fixed-effect weights 1/vi, its df k - 1
                               and the p-value of the test of no heterogeneity */
    int iterations;         /* REML: Fisher-scoring steps taken, plus the bracketing and
                               bisection steps when they were needed (see below); DL: 0 */
} meta_result;

/* The random-effects model yi = mu + u_i + e_i, u_i ~ N(0, tau2), e_i ~ N(0, vi): pools k
 * machines' log ratios yi with their sampling variances vi (squared standard errors) at
 * `level` in (0, 1) (already adjusted for multiplicity). REML converges to
 * META_REML_TOLERANCE. Returns 0, or -1 with a message in err (may be NULL; machines are
 * numbered from 1): fewer than two machines, a non-finite yi, a vi not positive and finite,
 * a bad level, REML that finds no maximum, or machines whose log ratios are all equal (no
 * spread for HKSJ to scale; metafor would report an interval of width 0). */
int meta_random_effects(const double *yi, const double *vi, size_t k, meta_tau2_method method,
                        double level, meta_result *out, verdict_error *err);

/* The same with metafor's absolute stopping rule for REML (DL ignores it): a threshold > 0
 * stops when a step moves tau2 by at most it, and more than META_REML_MAX_ITERATIONS steps
 * is an error, as in metafor; META_METAFOR_THRESHOLD gives rma()'s default results, step
 * count included. */
int meta_random_effects_threshold(const double *yi, const double *vi, size_t k,
                                  meta_tau2_method method, double level, double threshold,
                                  meta_result *out, verdict_error *err);

#endif
