/* Running an experiment from any command (a file, two commands, a kernel module) and
 * reporting it: the store opened, the progress line drawn, Ctrl-C honoured, an exit code. */
#ifndef VERDICT_CLI_EXPERIMENT_RUN_H
#define VERDICT_CLI_EXPERIMENT_RUN_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "cli/options.h"
#include "common/error.h"
#include "core/experiment.h"
#include "core/target.h"
#include "lab/engine.h"
#include "lab/lab_signature.h"
#include "store/store.h"

/* A line or table printed before the report (blocks, seed, a kernel's calibration). */
typedef void (*cli_summary_fn)(const experiment *e, const lab_outcome *o, store *db,
                               int64_t experiment_id, FILE *out);

typedef struct {
    const char *program;         /* "verdict run": the prefix of messages */
    experiment *e;               /* a target chosen; the seed is settled here if not given */
    const char *store_path;      /* ":memory:": nothing kept; or a PostgreSQL URI */
    bool build_logs;             /* variants' in-place builds log beside the store */
    const char *log_prefix;      /* where they log when the store is not a file (a server) */
    const char *cache_dir;       /* builds from sources (NULL: the experiment has none) */
    target_settings target;
    const report_choices *report;
    cli_summary_fn summary;      /* NULL: none */
    const char *machine;         /* --machine; NULL: the host's name on a fleet, else "" */
    double lease_seconds;        /* machines: share: a claimed block's lease (0: default) */
    bool no_report;              /* a worker: a line per experiment, not the whole report */
    size_t more;                 /* --more N: extend the stored experiment by N blocks */
    const char *sign_path;       /* --sign FILE: sign it as stored with sign_key, read from */
    const lab_signing_key *sign_key; /* that file (NULL: no signature) */
} cli_run;

/* A claimed block is given up when its worker has not renewed it for this long (every run
 * renews it): long enough for one run of a slow target, short enough to retake a block. */
#define CLI_DEFAULT_LEASE_SECONDS 120.0

/* The machine's name in a fleet: --machine, else the host's name (a fleet's experiment) or ""
 * (one machine, whose samples stay as they were). */
void cli_machine_name(const char *given, bool fleet, char *out, size_t len);

/* --machine NAME: letters, digits and . _ - only, at most 64 (names appear in reports,
 * file names and SQL); 0, or -1 with a message. */
int cli_check_machine_name(const char *name, verdict_error *err);
/* --lease DURATION: above 0; 0, or -1 with a message. */
int cli_parse_lease(const char *text, double *out, verdict_error *err);

/* The engine alone on a registered experiment (the store open): builds, the progress line,
 * Ctrl-C honoured; no report. 0, or -1 with err (lab_run's). */
int cli_run_engine(const cli_run *r, store *db, int64_t experiment_id, lab_outcome *out,
                   verdict_error *err);
/* Runs (or resumes) and reports; returns the exit code, every message printed. */
int cli_run_experiment(const cli_run *r);
/* The analysis of e as the report group's options change it (--confidence, --method ...). */
analysis_options cli_analysis_of(const experiment *e, const report_choices *c);

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
