/* A benchmark session: setup, warmup, then randomized complete blocks of every variant
 * until a fixed count, or adaptively until decided or out of budget; cleanup at the end. */
#ifndef VERDICT_CORE_SESSION_H
#define VERDICT_CORE_SESSION_H

#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/analysis.h"
#include "core/command_words.h"
#include "core/metrics.h"
#include "core/stopping.h"
#include "env/interference.h"

#define SESSION_MAX_METRICS 16

typedef struct {
    char *name;                 /* how reports call it */
    char *line;                 /* the command as written */
    command_words argv;         /* what is executed */
    const char *cwd;            /* NULL: verdict's own */
    char *const *extra_env;     /* NAME=value entries added to the environment, or NULL */
} session_variant;

typedef struct {
    size_t variant;
    long block, seq;
    double started;             /* seconds since the session began */
    double values[SESSION_MAX_METRICS];
    run_result run;             /* measurements (stdout not kept) */
    interference noise;
    bool tainted;
    char taint_reason[96];
} session_sample;

typedef struct {
    size_t blocks_done, blocks_planned; /* planned: fixed count or budget */
    double elapsed, eta;                /* seconds; eta < 0 when unknown */
    size_t next_look;                   /* adaptive: blocks at the next analysis, else 0 */
    const analysis_result *latest;      /* latest analysis, or NULL */
} session_progress;

typedef void (*session_progress_fn)(void *context, const session_progress *progress);

typedef struct {
    session_variant *variants;
    size_t n_variants;
    metric_def *metrics;
    size_t n_metrics;
    size_t warmup;                  /* unmeasured runs of each variant first */
    bool adaptive;
    size_t runs;                    /* fixed: number of blocks */
    stopping_rule stopping;         /* adaptive: looks and budget */
    double max_seconds;             /* adaptive: time budget; 0 for none */
    uint64_t seed;
    size_t point;                   /* index of the point (experiments with sweeps) */
    const char *point_id;
    double timeout;                 /* per run; 0 for none */
    command_words prepare, setup, cleanup; /* n == 0: none */
    const char *helper_cwd;         /* where prepare/setup/cleanup run; NULL: verdict's own */
    bool randomize_env;
    const cpu_set_t *pin;
    bool ignore_failure;
    int retries;                    /* a failed run is re-run up to this many times first */
    analysis_options analysis;      /* for adaptive looks */
    session_progress_fn progress;
    void *progress_context;
    /* Resume and durability, for experiments (all optional): samples already stored for
     * this point are not measured again, and every new sample is handed to on_sample as
     * soon as it is measured; a non-zero return stops the session with its message. */
    const session_sample *preloaded;
    size_t n_preloaded;
    /* Per-run hooks (the PostgreSQL target): before every run of a variant, to start its
     * server and give the words to execute (*argv NULL: the variant's own); it gets the
     * run's request (environment, directory, pin, timeout) and the stop flag, to make
     * unmeasured runs of its own first. After the run, whatever happened, after_run stops
     * the server. A failing before_run fails the run (or ends it, when stop is set). */
    int (*before_run)(void *context, size_t variant, const run_request *request,
                      volatile sig_atomic_t *stop, char *const **argv, char *err, size_t errlen);
    void (*after_run)(void *context, size_t variant);
    void *run_context;
    bool server_does_the_work;      /* other CPUs' load is the server's: not interference */
    int (*on_sample)(void *context, const session_sample *sample, char *err, size_t errlen);
    void *sample_context;
} session_config;

typedef enum {
    SESSION_DONE,          /* planned blocks run, or decided, or budget spent */
    SESSION_FAILED,        /* a run failed (exit status, timeout, metric missing) */
    SESSION_INTERRUPTED    /* *stop was set */
} session_status;

typedef struct {
    session_status status;
    session_sample *samples;
    size_t n_samples, capacity;
    size_t complete_blocks;
    bool decided;                 /* adaptive: every comparison decided at a look */
    bool budget_spent;
    size_t looks_taken;
    double look_confidence;       /* confidence each interval must use (adaptive) */
    double elapsed;
    char failure[RUNNER_STDERR_TAIL + 256]; /* SESSION_FAILED: what failed, with stderr tail */
} session_outcome;

/* Runs the session. Returns 0 (see outcome->status), or -1 with a message when the
 * session could not run at all (a command that cannot be started, out of memory). */
int session_run(const session_config *config, volatile sig_atomic_t *stop, session_outcome *out,
                char *err, size_t errlen);
void session_outcome_free(session_outcome *outcome);

/* The series of one metric per variant over the complete blocks, in block order, for
 * analysis. values must hold n_variants * complete_blocks doubles. */
void session_series(const session_config *config, const session_outcome *outcome,
                    size_t metric, double *values, analysis_series *series);

#endif
