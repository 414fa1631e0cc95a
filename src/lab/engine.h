/* The experiment engine: one loop for every target and plan. A plan is points (fixed) x
 * units (a variant in a code layout) x blocks (every unit once, shuffled); samples are
 * committed in batches, a stopped run resumes, adaptive looks end a point once decided. */
#ifndef VERDICT_LAB_ENGINE_H
#define VERDICT_LAB_ENGINE_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "common/error.h"
#include "core/analysis.h"
#include "core/experiment.h"
#include "core/target.h"
#include "store/store.h"

typedef struct {
    size_t position, n_points;       /* the point being run (1-based) and how many there are */
    const char *point_id;
    size_t blocks_done, blocks_planned; /* at this point: planned is the fixed count or budget */
    double elapsed, eta;             /* seconds in this run; eta < 0 when unknown */
    size_t next_look;                /* adaptive: blocks at the next analysis, else 0 */
    const analysis_result *latest;   /* the latest look's analysis, or NULL */
} lab_progress;

typedef void (*lab_progress_fn)(void *context, const lab_progress *progress);

typedef struct {
    const experiment *e;             /* what to run (a target chosen, the seed settled) */
    store *db;                       /* opened, the experiment registered (lab_open_store) */
    int64_t experiment_id;
    const char *build_logs;          /* prefix of in-place build logs (the store's path);
                                        NULL: such builds are not run */
    const char *cache_dir;           /* where builds from sources live (lab_builds.h) */
    target_settings target;          /* --pin, --no-randomize-env */
    analysis_options analysis;       /* for adaptive looks; confidence: the family's level */
    lab_progress_fn progress;
    void *progress_context;
    FILE *notes;                     /* "resuming", "building" lines; NULL: none */
    volatile sig_atomic_t *stop;     /* set by a signal handler: stop after this run */
    /* The fleet (docs/fleet.md): the machine whose samples these are ("" or NULL: the one
     * machine of a local store); with `machines: share`, the worker's token and lease. */
    const char *machine;
    const char *worker;
    double lease_seconds;
} lab_config;

typedef struct {
    size_t samples_taken, samples_resumed;
    size_t blocks_retaken;           /* share: blocks this worker took over from a dead one */
    size_t blocks_lost;              /* share: blocks another worker finished (lease ran out) */
    size_t complete_blocks;          /* over all points */
    size_t points_started, n_points;
    size_t looks_taken, looks_planned; /* looks_planned: per point, 0 for fixed counts */
    double look_confidence;          /* adaptive: the level of the last look taken (before
                                        any: of the last planned); else the family's */
    double look_alpha;               /* 1 - look_confidence, exact where that rounds to 1 */
    bool budget_spent;               /* adaptive: some point undecided at its last look */
    double elapsed;
    int64_t run_id;
} lab_outcome;

/* Runs (or resumes) the experiment. 0 when every point is done; -1 with err otherwise:
 * kind interrupted (what was measured is stored), command failed (a build or a run, with
 * its stderr), usage (an executable missing, a plan too large), internal. The outcome is
 * filled either way, for the report. */
int lab_run(const lab_config *config, lab_outcome *out, verdict_error *err);

#endif
