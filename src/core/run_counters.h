/* The counter metrics of a measured run (instructions, page-faults, ipc), counted around it:
 * perf's events opened just before it starts (or enabled around the thread's own work), or
 * the run put under cachegrind; their values from the readings, never scaled. */
#ifndef VERDICT_CORE_RUN_COUNTERS_H
#define VERDICT_CORE_RUN_COUNTERS_H

#include <stdbool.h>
#include <stddef.h>

#include "common/error.h"
#include "core/experiment.h"
#include "core/metrics.h"

/* A run under cachegrind takes 20 to 100 times as long; what --dry-run says to expect. */
#define RUN_COUNTERS_CACHEGRIND_SLOWDOWN 50

typedef struct run_counters run_counters;

/* What run_counters_end found. */
typedef enum {
    RUN_COUNTERS_COUNTED,  /* every counter metric has its value */
    RUN_COUNTERS_PARTIAL,  /* a counter ran only part of the run (multiplexed) or never: the
                              metrics it serves are NaN, and the note says which and why */
    RUN_COUNTERS_FAILED,   /* nothing was counted (cachegrind wrote no file): the note says */
} run_counters_outcome;

/* Whether this machine can count the experiment's counter metrics, asked before anything is
 * built or run: each perf event opened once (perf_counters_probe's reason, then what would
 * work: --counters valgrind for the PMU's events where the target has it, ':u' for a kernel
 * level perf_event_paranoid refuses), or valgrind found (the apt-get line), also for a
 * target that counts its own processes (a server, counters_key). 0 (also when no metric is a
 * counter), or -1 (ERROR_USAGE). */
int run_counters_check(const experiment *e, verdict_error *err);

/* The counting of metrics[0..n)'s counters (the METRIC_COUNTER ones) as how says: perf's
 * events, each opened once whichever metrics share it (ipc and instructions), or cachegrind
 * with the simulations they need. *out is NULL when no metric is a counter. 0, or -1. */
int run_counters_open(const metric_def *metrics, size_t n, experiment_counters how,
                      run_counters **out, verdict_error *err);

/* Just before the run starts, on the thread that starts it: perf's counters opened on the
 * calling thread (the run's processes inherit them, enabled at their exec, so verdict's own
 * work is not counted); or a fresh directory under $TMPDIR made and *argv set to command run
 * under cachegrind in it (command itself otherwise). 0, or -1 with err. */
int run_counters_begin(run_counters *c, char *const *command, char *const **argv,
                       verdict_error *err);

/* Just after the run ended, whatever its exit: the counters read and closed, or
 * cachegrind's files read and removed with their directory; values[m] set for every counter
 * metric (NaN where it has none). Returns a run_counters_outcome (note says what was not
 * counted, for the run's warning or failure), or -1 with err when a read failed. */
int run_counters_end(run_counters *c, double *values, char *note, size_t note_len,
                     verdict_error *err);

/* Counting the calling thread's own work instead of a run it starts (a kernel's batch, run
 * in-process), perf only: start enables the counters (opened on the thread, disabled, at the
 * first start) just before the work, stop disables them just after it and sets values[m] of
 * every counter metric to what the span between the two counted (NaN where a counter ran
 * only part of it, as run_counters_end). Every start and stop on the thread of the first.
 * start: 0, or -1 with err; stop: a run_counters_outcome, or -1 with err. */
int run_counters_start(run_counters *c, verdict_error *err);
int run_counters_stop(run_counters *c, double *values, char *note, size_t note_len,
                      verdict_error *err);

void run_counters_close(run_counters *c);

#endif
