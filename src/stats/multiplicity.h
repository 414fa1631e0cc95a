/* Adjusted p-values for several comparisons in one analysis: Holm (family-wise error)
 * and Benjamini–Hochberg (false discovery rate), as R's p.adjust. */
#ifndef VERDICT_STATS_MULTIPLICITY_H
#define VERDICT_STATS_MULTIPLICITY_H

#include <stddef.h>
#include "status.h"

stats_status p_adjust_holm(const double *p, size_t n, double *adjusted);
stats_status p_adjust_bh(const double *p, size_t n, double *adjusted);

#endif
