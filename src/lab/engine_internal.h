/* The engine's state, its one batch of measurements, and the work source its one loop takes
 * blocks from: the plan's own (lab/engine_plan.c) or a shared plan's (lab/engine_shared.c). */
#ifndef VERDICT_LAB_ENGINE_INTERNAL_H
#define VERDICT_LAB_ENGINE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "common/error.h"
#include "common/strbuf.h"
#include "core/command_words.h"
#include "core/stopping.h"
#include "lab/engine.h"
#include "lab/lab_series.h"
#include "lab/point_index.h"

/* A stored sample's place in the plan, and its values (one per metric; NULL: the run failed
 * and was recorded, so it is no measurement, but its cell is taken). */
typedef struct {
    size_t point, unit;
    long block;
    double *values;
} held_sample;

/* One point's blocks in memory: the values the looks read, and which cells hold a sample
 * (present[block * n_units + unit]; a recorded failure is present without values). */
typedef struct {
    lab_block_table values;
    bool *present;
    size_t blocks;               /* blocks present has room for */
} point_table;

/* A measurement waiting to be committed. Its values are in the batch's values array, at the
 * item's index (m.values is NULL: that array moves as it grows). */
typedef struct {
    size_t point, unit;
    long block;
    double started;
    long seq;
    target_measurement m;
} engine_batch_item;

/* Samples are committed in batches: one transaction each, which a store file otherwise pays
 * per sample (13 page writes, about 200 us), and SQLite's code is cold after every run.
 * The plan's own batch is committed at the end of a block once it holds this many samples
 * or its first is this old, and always before a point is left and before the engine
 * returns: a stop (Ctrl-C) loses nothing; a crash or SIGKILL at most the last second. A
 * shared block's batch is committed with its claim at the block's end. */
#define ENGINE_BATCH_SAMPLES 64
#define ENGINE_BATCH_SECONDS 1.0

typedef struct {
    engine_batch_item *items;
    size_t n, capacity;
    double *values;              /* n_metrics per item */
    size_t values_capacity;
    double oldest;               /* runner_monotonic_seconds() of the first item */
} engine_batch;

/* The state of the point being run. */
typedef struct {
    size_t point, position;
    bool active;                 /* the loop is at this point (entered, not yet left) */
    bool begun;                  /* the target's begin_point and the setup ran */
    bool warmed;
    double start;
    command_words prepare, setup, teardown;
    stopping_rule rule;
    analysis_result latest;
    bool have_latest;
} point_run;

/* Everything one run holds; released by engine_free. */
typedef struct {
    const lab_config *c;
    const experiment *e;
    lab_outcome *out;
    target *t;
    point_index points;
    size_t *point_order;         /* the points in the seed's order (schedule_point_order) */
    held_sample *held;           /* sorted by (point, unit, block) */
    size_t n_held, held_capacity;
    size_t n_units, n_metrics;
    double start;
    long seq;                    /* the next sample's */
    double *values;              /* one measurement's metric values */
    const char **metric_names;
    strbuf warnings;             /* "code\tpoint\tvariant\tmessage" lines */
    strbuf measured;             /* what each variant ran (LAB_BUILDS_FACT lines) */
    point_table table;           /* the current point's */
    point_run at;                /* the current point */
    engine_batch batch;          /* measured, not yet committed */
    held_sample *profiled;       /* profiles the store holds, sorted, without values
                                    (engine_profile.c): not made again on resume */
    size_t n_profiled, profiled_capacity;
} engine;

/* ---- the work source: where the loop's blocks come from, and how each is retired ----
 * (git's run_process_parallel: callbacks that supply tasks and retire them) */

/* One block to run: the point (an index into the engine's points) and the block. */
typedef struct {
    size_t point;
    long block;
} engine_task;

typedef struct {
    size_t state_size;           /* the source's state, zeroed by the loop before start */
    /* Before the first block: 0, or -1 with err. */
    int (*start)(engine *g, void *source, verdict_error *err);
    /* The next block: 1 with *task, 0 when there is no more work, -1 with err. */
    int (*next)(engine *g, void *source, engine_task *task, verdict_error *err);
    /* After each run of the task's block was measured and put in the batch: 0 to go on, or
     * -1 with err (ERROR_CLAIM_LOST: the block is no longer this worker's). */
    int (*kept)(engine *g, void *source, const engine_task *task, verdict_error *err);
    /* The block's end. status 0: every unit measured, the block is committed (or left in
     * the batch for later); -1: ended by err, and the source either handles it (0, err
     * cleared: a lost claim) or gives up (-1, err kept). The batch is committed through
     * engine_batch_commit or thrown away (engine_batch_discard) by the source alone. */
    int (*retire)(engine *g, void *source, const engine_task *task, int status,
                  verdict_error *err);
    /* Commits what the source left in the batch: before a point is left and before the
     * loop returns, whatever ended it (0, or -1 with err). */
    int (*flush)(engine *g, void *source, verdict_error *err);
} engine_source_kind;

/* The plan's own source: the points in the seed's order, the blocks of each in order until
 * the plan (or an adaptive look, or the time budget) ends the point; committed in batches. */
extern const engine_source_kind engine_plan_source;
/* A shared plan's source (machines: share): blocks claimed from the store under a lease,
 * each committed whole with its claim. */
extern const engine_source_kind engine_shared_source;

/* ---- what the loop and the sources share ---- */

/* The machine whose samples these are ("" on a local store). */
const char *engine_machine(const lab_config *c);
/* A warning for the reports: "code\tpoint\tvariant\tmessage", kept as a run fact. */
void engine_note_warning(engine *g, const char *code, const char *point, const char *variant,
                         const char *message);
/* Forgets the current point's cells of a block whose runs were thrown away (a shared block
 * given back): if the block is run again, every unit is measured again. */
void engine_forget_block(engine *g, long block);

/* The store's row for a measurement (its strings borrowed from the engine and m, its values
 * from `values`, n_metrics of them). */
store_sample engine_sample_row(const engine *g, size_t point, size_t unit, long block, long seq,
                               const target_measurement *m, const double *values,
                               double started);

/* qsort's and bsearch's order of held samples: by point, unit, block. */
int engine_compare_held(const void *a, const void *b);

/* The current point begun (target, setup) and warmed up if it was not yet; 0, or -1. */
int engine_ready_point(engine *g, verdict_error *err);

/* ---- profiled runs (lab/engine_profile.c, docs/profiles.md) ---- */

/* The profiles this machine's runs of the experiment stored, to be skipped on resume. */
int engine_profile_load(engine *g, verdict_error *err);
/* After the block's timed runs: one profiled run of each unit, in the block's order, each
 * kept in the store as soon as it is resolved; those the store holds skipped. 0, or -1. */
int engine_profile_block(engine *g, const engine_task *task, const size_t *order,
                         verdict_error *err);

/* ---- the batch (lab/engine_batch.c) ---- */

/* How a batch's rows are made durable: 0, or -1 with err (nothing was written then). */
typedef int (*engine_commit_fn)(engine *g, void *context, const store_sample *rows, size_t n,
                                verdict_error *err);
/* Holds a measurement (copied) for the next commit and takes the next seq; -1 when out of
 * memory. */
int engine_batch_add(engine *g, size_t point, size_t unit, long block,
                     const target_measurement *m, double started);
/* Whether the plan's own batch should be committed now (at a block's end). */
bool engine_batch_due(const engine *g);
/* Commits the batch through commit and empties it (the samples counted as taken); on a
 * failure it is kept, err set. An empty batch is not committed. */
int engine_batch_commit(engine *g, engine_commit_fn commit, void *context, verdict_error *err);
/* Throws the batch away and gives its seq back: the next sample takes the first's. */
void engine_batch_discard(engine *g);
void engine_batch_free(engine_batch *b);

#endif
