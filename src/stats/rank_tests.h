/* Wilcoxon signed-rank and Mann–Whitney rank-sum tests with Hodges–Lehmann estimates and
 * confidence intervals, computed as R's wilcox.test(conf.int = TRUE, correct = TRUE) does. */
#ifndef VERDICT_STATS_RANK_TESTS_H
#define VERDICT_STATS_RANK_TESTS_H

#include <stddef.h>
#include "shift.h"
#include "status.h"

/* One sample of paired differences d (zeros dropped, as R does): wilcox.test(d, conf.int=TRUE). */
stats_status wilcoxon_signed_rank(const double *d, size_t n, double confidence, shift_result *out);
/* Shift of x relative to y: wilcox.test(x, y, conf.int=TRUE). */
stats_status wilcoxon_rank_sum(const double *x, size_t m, const double *y, size_t n,
                               double confidence, shift_result *out);

#endif
