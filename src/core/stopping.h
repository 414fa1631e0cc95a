/* Adaptive stopping that keeps its error rates: the data are looked at only at planned
 * block counts, and each look spends an equal share of alpha (Bonferroni over looks). */
#ifndef VERDICT_CORE_STOPPING_H
#define VERDICT_CORE_STOPPING_H

#include <stdbool.h>
#include <stddef.h>

/* Each adaptive look at about this times the previous block count (docs/statistics.md). */
#define STOPPING_GROWTH 1.5

typedef struct {
    size_t min_blocks;   /* first look */
    size_t max_blocks;   /* last look: the budget */
    double growth;       /* each look at about growth times the previous block count */
} stopping_rule;

/* Number of planned looks (including the last one at max_blocks). */
size_t stopping_looks(const stopping_rule *rule);
/* True when an analysis is planned after this many complete blocks. */
bool stopping_is_look(const stopping_rule *rule, size_t blocks);
/* Confidence each look must use so that the whole sequence keeps `confidence`. */
double stopping_look_confidence(double confidence, const stopping_rule *rule);

/* Extensions (`verdict run --more N`) are looks nobody planned, so a share `reserve` of
 * alpha is kept for them from the start: the planned looks spend alpha * (1 - reserve)
 * between them, and the extensions spend the rest along S(n) = reserve * alpha *
 * (1 - planned / n), n the blocks per point after an extension. S never reaches
 * reserve * alpha, so any number of extensions, of any size, keep the error rate
 * (docs/statistics.md, "Running more"). */
/* The alpha of each of `looks` planned looks (0 or 1 look: one). */
double stopping_planned_alpha(double alpha, double reserve, size_t looks);
/* The alpha of the look after extending from `from` to `to` blocks per point, the plan
 * having had `planned` blocks; 0 when `to` does not grow. */
double stopping_extension_alpha(double alpha, double reserve, size_t planned, size_t from,
                                size_t to);

/* The extension likely to decide: the fewest blocks per point to add so that an interval of
 * half-width `half_width` (log scale) at `confidence_now` over `blocks` blocks shrinks, like
 * 1/sqrt(n), below `target` at the extension's own level shared by `comparisons`; 0 when
 * none up to a hundred times the blocks would. */
size_t stopping_blocks_to_decide(double alpha, double reserve, size_t planned, size_t blocks,
                                 size_t comparisons, double confidence_now, double half_width,
                                 double target);

#endif
