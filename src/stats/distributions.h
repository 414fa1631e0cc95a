/* Probability distributions: normal and Student t (through GSL), and the exact null
 * distributions of the Wilcoxon signed-rank and rank-sum statistics (as R's psignrank...). */
#ifndef VERDICT_STATS_DISTRIBUTIONS_H
#define VERDICT_STATS_DISTRIBUTIONS_H

#include "status.h"

double dist_pnorm(double z);            /* P(Z <= z) */
double dist_pnorm_upper(double z);      /* P(Z > z), accurate in the tail */
double dist_qnorm(double p);
double dist_pt(double t, double df);    /* P(T <= t), df > 0, not necessarily integer */
double dist_pt_upper(double t, double df);
double dist_qt(double p, double df);

/* Signed-rank statistic V for n observations: P(V <= q), and R's qsignrank(p, n). */
stats_status dist_psignrank(double q, int n, double *out);
stats_status dist_psignrank_upper(double q, int n, double *out); /* P(V > q) */
stats_status dist_qsignrank(double p, int n, int *out);
/* Rank-sum statistic W for samples of m and n: P(W <= q), and R's qwilcox(p, m, n). */
stats_status dist_pwilcox(double q, int m, int n, double *out);
stats_status dist_pwilcox_upper(double q, int m, int n, double *out); /* P(W > q) */
stats_status dist_qwilcox(double p, int m, int n, int *out);

#endif
