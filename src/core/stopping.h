/* Adaptive stopping that keeps its error rates: the data are looked at only at planned
 * block counts, and each look spends an equal share of alpha (Bonferroni over looks). */
#ifndef VERDICT_CORE_STOPPING_H
#define VERDICT_CORE_STOPPING_H

#include <stdbool.h>
#include <stddef.h>

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

#endif
