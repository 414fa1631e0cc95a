/* Adaptive stopping that keeps its error rates: the data are looked at only at planned
 * block counts, and each look spends alpha by a Lan-DeMets spending function. */
#ifndef VERDICT_CORE_STOPPING_H
#define VERDICT_CORE_STOPPING_H

#include <stdbool.h>
#include <stddef.h>

#include "common/error.h"
#include "stats/spending.h"

/* Each adaptive look at about this times the previous block count (docs/statistics.md). */
#define STOPPING_GROWTH 1.5
/* How the looks spend alpha unless told: chosen by the blocks it takes to decide in the
 * simulation of docs/statistics.md ("Alpha spending"). */
#define STOPPING_DEFAULT_SPENDING SPENDING_POCOCK
/* The most looks a plan may name (`adaptive: {looks: [...]}`, `--looks`). */
#define STOPPING_MAX_LOOKS 64

typedef struct {
    size_t min_blocks;      /* first look */
    size_t max_blocks;      /* last look: the budget */
    double growth;          /* each look at about growth times the previous block count */
    const size_t *looks;    /* the looks' block counts, increasing (borrowed); NULL: the
                               series from min_blocks by growth up to max_blocks */
    size_t n_looks;
    spending_kind spending;
    double reserve;         /* share of alpha the planned looks leave for extensions */
    const size_t *extensions; /* blocks per point after each extension (`--more`), above
                                 max_blocks and increasing (borrowed); each adds looks by
                                 growth from the one before up to its end */
    size_t n_extensions;
} stopping_rule;

/* The rule of an adaptive plan with the growth series. */
stopping_rule stopping_rule_growth(size_t min_blocks, size_t max_blocks, spending_kind spending);

/* Number of looks: the planned ones (the last at max_blocks), then the extensions'. */
size_t stopping_looks(const stopping_rule *rule);
/* Number of planned looks alone (up to max_blocks). */
size_t stopping_planned_looks(const stopping_rule *rule);
/* The block count of the look'th (0-based) look, planned or an extension's. */
size_t stopping_look_blocks(const stopping_rule *rule, size_t look);
/* True when an analysis is planned after this many complete blocks. */
bool stopping_is_look(const stopping_rule *rule, size_t blocks);
/* The boundaries of the looks (stopping_looks(rule) of them), at information fractions
 * blocks / max_blocks, spending two-sided alpha by the rule's function: (1 - reserve) of it
 * by max_blocks, and beyond it spending_cumulative's share of the reserve, every boundary by
 * the one recursion (docs/statistics.md, "Extending an adaptive experiment"). */
int stopping_boundaries(const stopping_rule *rule, double alpha, spending_look *out,
                        verdict_error *err);
/* The look of an analysis after `blocks` blocks: a planned look's boundary, or for an
 * analysis between planned looks (a point cut short by its time budget, an interrupted run)
 * the boundary of a look at its own information after the planned looks before it — a
 * spending function lets a look fall where it does (Lan & DeMets 1983). */
int stopping_look_at(const stopping_rule *rule, double alpha, size_t blocks,
                     spending_look *out, verdict_error *err);

/* Block counts "10,20,30" (--looks): increasing, positive, at most STOPPING_MAX_LOOKS;
 * *out allocated. -1 with ERROR_USAGE naming the value otherwise. */
int stopping_parse_looks(const char *text, size_t **out, size_t *n, verdict_error *err);
/* The same checks of looks already read: 0, or -1 with ERROR_USAGE. */
int stopping_check_looks(const size_t *looks, size_t n, verdict_error *err);

/* Extensions (`verdict run --more N`) are looks nobody planned, so a share `reserve` of
 * alpha is kept for them from the start: the planned looks spend alpha * (1 - reserve)
 * between them, and the extensions spend the rest by spending_extension_alpha: S(n) =
 * reserve * alpha * (1 - planned / n), n the blocks per point after an extension. S never
 * reaches reserve * alpha, so any number of extensions, of any size, keep the error rate
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
