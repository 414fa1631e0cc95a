/* The looks a plan will take before it runs: each one's blocks, information, alpha spent and
 * boundary, and whether the method can reach its level with that many blocks at all. */
#ifndef VERDICT_CORE_PLAN_LOOKS_H
#define VERDICT_CORE_PLAN_LOOKS_H

#include <stdbool.h>
#include <stddef.h>

#include "common/error.h"
#include "core/analysis.h"
#include "core/experiment.h"
#include "core/stopping.h"

/* One planned look, as `verdict run --dry-run --json` writes it. */
typedef struct {
    size_t blocks;
    spending_look level;   /* fraction (the information), alpha_spent, z, nominal_alpha */
    double comparison_alpha; /* what the most significant comparison may use: nominal_alpha
                                over the comparisons (Holm's first step) */
    double smallest_p;     /* the method's smallest p-value with these blocks (exact rank
                              tests); 0 when the method has no such floor */
    bool can_decide;       /* smallest_p <= comparison_alpha */
} plan_look;

typedef struct {
    size_t n_looks;
    plan_look looks[STOPPING_MAX_LOOKS];
    size_t comparisons;    /* the family the report adjusts across */
    comparison_method method; /* the one the analysis will use: the t test for counts when
                                 no method was asked for (analysis_method_for) */
    bool decides_somewhere; /* some look can decide */
    size_t blocks_needed;  /* the fewest blocks whose smallest p-value reaches the last look's
                              comparison_alpha; 0 when the method has no floor */
} plan_looks;

/* The looks of experiment e analysed with options o (method, pairing, confidence, adjust):
 * an adaptive plan's by its spending, a fixed plan's one look at its repetitions and the
 * level left after the reserve for extensions. 0, or -1 with err. */
int plan_looks_of(const experiment *e, const analysis_options *o, plan_looks *out,
                  verdict_error *err);

/* The smallest p-value of the method over n blocks per variant: Wilcoxon's signed-rank test
 * 2 / 2^n, its rank-sum test 2 / C(2n, n); 0 for the methods without an exact floor. */
double plan_smallest_p(comparison_method method, bool paired, size_t n);

#endif
