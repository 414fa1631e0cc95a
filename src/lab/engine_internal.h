/* The engine's state and the steps its two loops share: the plan's own (lab/engine.c) and
 * a shared plan's, whose blocks are claimed from the store (lab/engine_shared.c). */
#ifndef VERDICT_LAB_ENGINE_INTERNAL_H
#define VERDICT_LAB_ENGINE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "common/error.h"
#include "common/strbuf.h"
#include "core/command_words.h"
#include "core/stopping.h"
#include "lab/engine.h"
#include "lab/point_index.h"

/* A stored sample's place in the plan, and its values (one per metric). */
typedef struct {
    size_t point, unit;
    long block;
    double *values;
} held_sample;

/* One point's blocks in memory: values[block][unit][metric], present[block][unit]. */
typedef struct {
    double *values;
    bool *present;
    size_t blocks;               /* blocks allocated */
} point_table;

/* A measurement waiting to be committed (lab/engine_batch.c). */
typedef struct {
    size_t point, unit;
    long block;
    double started;
    long seq;
    target_measurement m;        /* m.values is in the batch's values, at the item's index */
} engine_batch_item;

/* Samples are committed in batches: one transaction each, which a store file otherwise pays
 * per sample (13 page writes, about 200 us), and SQLite's code is cold after every run.
 * A batch is flushed at the end of a block once it holds this many samples or its first
 * is this old, and always before the engine returns: a stop (Ctrl-C) loses nothing; a
 * crash or SIGKILL at most the last second. */
#define ENGINE_BATCH_SAMPLES 64
#define ENGINE_BATCH_SECONDS 1.0

typedef struct {
    engine_batch_item *items;
    size_t n, capacity;
    double *values;              /* n_metrics per item */
    size_t values_capacity;
    double oldest;               /* runner_monotonic_seconds() of the first item */
} engine_batch;

/* Everything one run holds; released by engine_free. */
typedef struct {
    const lab_config *c;
    const experiment *e;
    lab_outcome *out;
    target *t;
    point_index points;
    held_sample *held;           /* sorted by (point, unit, block) */
    size_t n_held, held_capacity;
    size_t n_units, n_metrics;
    double start;
    long seq;
    double *values;              /* one measurement's metric values */
    const char **metric_names;
    strbuf warnings;             /* "code\tpoint\tvariant\tmessage" lines */
    strbuf measured;             /* what each variant ran (LAB_BUILDS_FACT lines) */
    point_table table;
    engine_batch batch;          /* measured, not yet committed */
} engine;


/* The state of the point being run. */
typedef struct {
    size_t point, position;
    bool begun;                  /* the target's begin_point and the setup ran */
    bool warmed;
    double start;
    command_words prepare, setup, teardown;
    stopping_rule rule;
    analysis_result latest;
    bool have_latest;
} point_run;

/* The machine whose samples these are ("" on a local store). */
const char *engine_machine(const lab_config *c);
/* A warning for the reports: "code\tpoint\tvariant\tmessage", kept as a run fact. */
void engine_note_warning(engine *g, const char *code, const char *point, const char *variant,
                         const char *message);
/* The point's helpers read, the target's begin_point, then the setup helper. */
int engine_begin_point(engine *g, point_run *p, verdict_error *err);
/* The unmeasured runs of every unit before the point's first measured one. */
int engine_warm_up(engine *g, point_run *p, verdict_error *err);
/* One run of a unit with the failure policy applied; 0, or -1 with err. */
int engine_measure(engine *g, point_run *p, size_t unit, long block, target_measurement *m,
                   verdict_error *err);
/* The store's row for a measurement (its strings borrowed from the engine and m). */
store_sample engine_sample_row(const engine *g, size_t point, size_t unit, long block,
                               const target_measurement *m, double started);
/* Holds a measurement (copied) for the next flush and takes its seq; -1 when out of memory. */
int engine_batch_add(engine *g, size_t point, size_t unit, long block,
                     const target_measurement *m, double started);
/* Whether the batch should be committed now (at a block's end). */
bool engine_batch_due(const engine *g);
/* Commits the batch in one transaction and empties it; 0, or -1 with err (kept then). */
int engine_batch_flush(engine *g, verdict_error *err);
void engine_batch_free(engine_batch *b);

/* The teardown helper and the target's end_point, even after a failure or a stop. */
void engine_end_point(engine *g, point_run *p, verdict_error *err);

/* machines: share: claims the plan's blocks from the store until every one is done. */
int engine_run_shared(engine *g, verdict_error *err);

#endif
