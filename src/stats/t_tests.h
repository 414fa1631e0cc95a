/* Student's paired t test and Welch's two-sample t test, as R's t.test.
 * verdict applies them to logs, so the mean difference is a log-ratio of geometric means. */
#ifndef VERDICT_STATS_T_TESTS_H
#define VERDICT_STATS_T_TESTS_H

#include <stddef.h>
#include "shift.h"
#include "status.h"

/* t.test(d, conf.level = confidence): one sample of paired differences. */
stats_status paired_t_test(const double *d, size_t n, double confidence, shift_result *out);
/* t.test(x, y, conf.level = confidence): Welch's unequal-variance test of mean(x) - mean(y). */
stats_status welch_t_test(const double *x, size_t m, const double *y, size_t n,
                          double confidence, shift_result *out);

#endif
