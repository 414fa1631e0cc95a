/* One measured run of a process, shared by the command and PostgreSQL targets: the
 * environment padded to a new size every run, interference read around it, its readings. */
#ifndef VERDICT_TARGETS_PROCESS_RUN_H
#define VERDICT_TARGETS_PROCESS_RUN_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "core/metrics.h"
#include "core/runner.h"
#include "core/target.h"
#include "env/interference.h"

typedef struct {
    char *pad;                   /* "VERDICT_ENV_PAD=xxx...", cut to a new length per run */
    uint64_t seed;
    interference_probe probe;
    bool probe_open;
    bool server_does_the_work;   /* other CPUs' load is the server's: not interference */
    /* the longest run so far (NaN before the first): while even it is too short for
     * /proc/stat to measure, runs are not bracketed by snapshots that could only give NaN */
    double longest_wall;
} process_runner;

int process_runner_open(process_runner *p, const target_settings *s, uint64_t seed,
                        bool server_does_the_work, verdict_error *err);
void process_runner_close(process_runner *p);

/* environ without an old pad, then extra (NAME=value, NULL-terminated or NULL), then the pad.
 * The array is the caller's to free; its strings are borrowed. NULL when out of memory. */
char **process_runner_envp(const process_runner *p, char *const *extra);

/* Whether the next run is bracketed by /proc/stat snapshots: before the first run, and
 * once any run lasted long enough for them to measure it (interference_resolvable). */
bool process_runner_brackets_next(const process_runner *p);

/* Runs the request once: the pad gets a length drawn from (seed, seq), interference is read
 * before and after (unless every run so far was too short to measure: then only the load
 * average; the first long run of such a session goes unmeasured too). The readings go into out; the result (with stdout when captured) into
 * result, which the caller frees. 0 when it ran (whatever its exit), -1 with err when it
 * could not be started. */
int process_runner_measure(process_runner *p, const run_request *request, long seq,
                           volatile sig_atomic_t *stop, run_result *result,
                           target_measurement *out, verdict_error *err);

/* For work verdict does itself rather than in a child (queries sent over libpq): the
 * interference readings around it, as process_runner_measure takes them. begin returns
 * whether a snapshot was taken; end fills out's steal, other_busy, load1 and tainted. */
bool process_runner_span_begin(process_runner *p, cpu_snapshot *before);
void process_runner_span_end(process_runner *p, const cpu_snapshot *before, bool have_before,
                             target_measurement *out);

/* "'./spin 5' (B) exited with status 3; the end of its stderr: ..." into out->failure. */
void process_describe_failure(const run_result *r, double timeout, const char *what,
                              target_measurement *out);

/* The metrics' values for a finished run (counters aside: core/run_counters.h counts them);
 * 0, or -1 with why (a regex that matched nothing). */
int process_read_metrics(const metric_def *metrics, size_t n, const run_result *r,
                         double *values, verdict_error *why);

/* Builds metric definitions for the experiment's metrics: process builtins (wall, user,
 * sys, cpu, maxrss), regex extractions and counters (where the target counts them); others (tps) are left for the caller, with
 * defined[i] false. 0, or -1 with err. */
int process_metric_defs(const experiment *e, metric_def *defs, bool *defined,
                        verdict_error *err);

#endif
