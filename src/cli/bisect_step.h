/* One step of verdict bisect: a commit built alone (to skip one that does not build), and
 * commits measured against a baseline commit in interleaved blocks, stored, resumable. */
#ifndef VERDICT_CLI_BISECT_STEP_H
#define VERDICT_CLI_BISECT_STEP_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

#include "common/error.h"
#include "stats/comparison.h"

/* The shorter names of commits: variants, step names, messages. */
#define BISECT_SHORT 12

typedef struct {
    const char *experiment_path; /* the file; its one git variant is built at each commit */
    size_t variant;              /* that variant's index in the file */
    const char *store_path, *cache_dir;
    double confidence;           /* each step's family level: alpha split over the steps */
    volatile sig_atomic_t *stop;
    size_t builds_made, builds_cached; /* counted by bisect_build */
    size_t blocks_run, steps_from_store; /* what bisect_compare measured and found stored */
} bisect_context;

/* What a step measured: each commit after the first against the first (its baseline), on the
 * experiment's first metric. */
#define BISECT_MAX_COMMITS 3
typedef struct {
    size_t n_commits;
    comparison against[BISECT_MAX_COMMITS - 1];
    bool ok[BISECT_MAX_COMMITS - 1];     /* false: the comparison could not be computed */
    size_t blocks;                       /* complete blocks the analysis used */
    bool from_store;                     /* every block was stored before: nothing was run */
} bisect_measured;

/* Builds the file's git variant at commit (or finds it in the cache). -1 with err: a
 * recipe that failed is ERROR_COMMAND_FAILED (the commit is skipped); anything else stops. */
int bisect_build(bisect_context *b, const char *commit, verdict_error *err);

/* Measures commits[1..n-1] against commits[0] (n is 2 or 3) as one experiment of the store,
 * named by its commits, or reads it back when its store already decided it. 0, or -1 with
 * err (interrupted: what was measured is stored). */
int bisect_compare(bisect_context *b, const char *const *commits, size_t n,
                   bisect_measured *out, verdict_error *err);

#endif
