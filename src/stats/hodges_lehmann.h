/* Hodges–Lehmann estimators and order statistics of Walsh averages / pairwise
 * differences, in O(n log n) time and O(n) memory (never materialising the n² values). */
#ifndef VERDICT_STATS_HODGES_LEHMANN_H
#define VERDICT_STATS_HODGES_LEHMANN_H

#include <stddef.h>
#include <stdint.h>
#include "status.h"

/* k-th smallest (1-based) of the n(n+1)/2 Walsh averages (x_i + x_j)/2, i <= j, of ascending x. */
stats_status hl_walsh_kth(const double *sorted, size_t n, uint64_t k, double *out);
/* k-th smallest (1-based) of the m*n differences x_i - y_j, both ascending. */
stats_status hl_diff_kth(const double *x_sorted, size_t m, const double *y_sorted, size_t n,
                         uint64_t k, double *out);
/* Median of the Walsh averages of x (R's median(diffs) in wilcox.test's exact branch). */
stats_status hl_one_sample(const double *x, size_t n, double *out);
/* Median of the differences x_i - y_j. */
stats_status hl_two_sample(const double *x, size_t m, const double *y, size_t n, double *out);

#endif
