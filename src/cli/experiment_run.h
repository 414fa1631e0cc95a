/* Running an experiment from any command (a file, two commands, a kernel module) and
 * reporting it: the store opened, the progress line drawn, Ctrl-C honoured, an exit code. */
#ifndef VERDICT_CLI_EXPERIMENT_RUN_H
#define VERDICT_CLI_EXPERIMENT_RUN_H

#include <stdint.h>
#include <stdio.h>

#include "cli/options.h"
#include "core/experiment.h"
#include "core/target.h"
#include "lab/engine.h"
#include "store/store.h"

/* A line or table printed before the report (blocks, seed, a kernel's calibration). */
typedef void (*cli_summary_fn)(const experiment *e, const lab_outcome *o, store *db,
                               int64_t experiment_id, FILE *out);

typedef struct {
    const char *program;         /* "verdict run": the prefix of messages */
    experiment *e;               /* a target chosen; the seed is settled here if not given */
    const char *store_path;      /* ":memory:": nothing kept */
    bool build_logs;             /* variants' in-place builds log beside the store */
    const char *cache_dir;       /* builds from sources (NULL: the experiment has none) */
    target_settings target;
    const report_choices *report;
    cli_summary_fn summary;      /* NULL: none */
} cli_run;

/* Runs (or resumes) and reports; returns the exit code, every message printed. */
int cli_run_experiment(const cli_run *r);

/* Analyses what the store holds of the experiment and writes the report and the exports;
 * the exit code (--fail-if included), messages printed. */
int cli_report(const char *program, store *db, int64_t experiment_id, const experiment *e,
               const report_choices *choices);

/* The summary line every run prints: "12 blocks of 2 commands in 3.4 s (seed 7; ...)". */
void cli_print_run_summary(const experiment *e, const lab_outcome *o, const char *noun,
                           FILE *out);

/* A seed for a run given none and keeping nothing: from the clock and the process id. */
uint64_t cli_fresh_seed(void);

#endif
