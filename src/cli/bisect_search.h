/* The search of verdict bisect: the range of commits, the ends compared first, then each
 * midpoint against both ends of what is left, until one commit is the first bad one. */
#ifndef VERDICT_CLI_BISECT_SEARCH_H
#define VERDICT_CLI_BISECT_SEARCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "cli/bisect_step.h"
#include "core/bisect.h"

typedef enum {
    BISECT_FOUND,          /* the first bad commit named (maybe among skipped ones) */
    BISECT_NO_CHANGE,      /* the ends are equivalent: no regression in the range */
    BISECT_ENDS_UNKNOWN,   /* the ends could not be told apart or the same within the budget */
    BISECT_STEP_UNKNOWN,   /* a midpoint was undecided: the range left is reported */
    BISECT_ALL_SKIPPED,    /* every commit left between the ends failed to build */
    BISECT_OUT_OF_STEPS    /* --max-steps, or the steps alpha was split among, were used */
} bisect_outcome;

/* One midpoint measured: commits[mid] against commits[lo] and commits[hi]. */
typedef struct {
    size_t lo, mid, hi;
    bisect_class class_;
    comparison vs_good, vs_bad;  /* the midpoint (candidate) against each end (baseline) */
    bool ok_good, ok_bad;
    size_t blocks;
    bool from_store;
} bisect_step_record;

typedef struct {
    char **commits;            /* [0] good, [n] bad: n + 1 ids, oldest first */
    size_t n;
    bool *skipped;             /* could not be built */
    size_t planned;            /* the comparisons alpha is split among */
    comparison ends;           /* bad against good */
    bool ends_ok;
    size_t ends_blocks;
    bisect_step_record *steps;
    size_t n_steps;
    bisect_outcome outcome;
    size_t lo, hi;             /* the range left: the first bad commit is in (lo, hi] */
    comparison effect;         /* commits[hi] against commits[lo], from the last step */
    bool effect_ok;
} bisect_search;

typedef struct {
    const char *good, *bad;    /* as given */
    bool all_commits, allow_dirty;
    size_t max_steps;          /* midpoints at most; 0: no limit but the alpha split's */
    double confidence;         /* the whole bisection's */
} bisect_request;

/* The range of commits and its checks: good an ancestor of bad, the work tree clean unless
 * allowed. 0, or -1 with err (usage). */
int bisect_search_open(const char *repo, const bisect_request *q, bisect_search *s,
                       verdict_error *err);
/* Builds the ends, compares them, then bisects; a line per step on out. 0 with s->outcome
 * set, or -1 with err (interrupted: run again to resume). */
int bisect_search_run(bisect_context *b, const bisect_request *q, bisect_search *s, FILE *out,
                      verdict_error *err);
void bisect_search_free(bisect_search *s);

/* "found", "no-change", "ends-unknown", "step-unknown", "all-skipped", "out-of-steps". */
const char *bisect_outcome_name(bisect_outcome o);

#endif
