/* Two variants' profiles compared (docs/profiles.md): per symbol and per stack, its time in
 * each (share of samples times the block's measured time) and its change, paired by block,
 * with an interval across blocks; symbols ranked by their part of the total change. */
#ifndef VERDICT_CORE_PROFILE_COMPARE_H
#define VERDICT_CORE_PROFILE_COMPARE_H

#include <stdbool.h>
#include <stddef.h>

#include "common/error.h"
#include "core/profile.h"
#include "stats/profile_change.h"

/* One profiled run and the time its unit measured in the same block (a timed sample). */
typedef struct {
    const char *point, *variant, *machine; /* machine "" on one machine */
    long layout, block;
    double time;                 /* the timed run's time (CPU time, else wall), seconds;
                                    NaN: none (not paired) */
    profile_data data;
} profile_run;

typedef struct {
    char *symbol, *dso;
    bool in_baseline, in_candidate; /* seen in some profile of each: a symbol in one only
                                       (renamed, inlined, new) is said so, never matched */
    profile_change self;            /* its own samples (the leaf of a stack) */
    double children_baseline, children_candidate; /* mean share with its callees */
} profile_symbol_change;

typedef struct {
    char *stack;                 /* folded, root first */
    profile_change change;       /* its seconds: baseline_seconds, candidate_seconds, ... */
} profile_stack_change;

typedef struct {
    profile_symbol_change *symbols; /* ranked: the largest part of the change first */
    size_t n_symbols;
    profile_stack_change *stacks;   /* sorted by stack */
    size_t n_stacks;
    size_t n_blocks;             /* blocks with a profile and a time of both variants */
    bool addresses;              /* some symbol is an address (a binary without symbols) */
    double confidence;           /* the family's level asked for */
    double symbol_confidence;    /* each symbol's interval: Bonferroni's over the symbols */
    double stack_confidence;     /* each stack's interval: the same over the stacks */
} profile_comparison;

/* Symbols whose share is under this in both variants are left out of the comparison
 * (their stacks stay: the flame graph draws the whole). */
#define PROFILE_MIN_SHARE 0.001

/* Compares the candidate's profiles with the baseline's at one point on one machine; the
 * runs of other points, variants and machines are passed over. A variant's layouts are
 * averaged within a block. The intervals hold together at confidence: each symbol's (and
 * each stack's) at Bonferroni's level for their number. 0 (n_blocks 0 when no block pairs
 * them), or -1 with err. */
int profile_compare(const profile_run *runs, size_t n_runs, const char *point,
                    const char *machine, const char *baseline, const char *candidate,
                    double confidence, profile_comparison *out, verdict_error *err);
void profile_comparison_free(profile_comparison *c);

#endif
