/* What is measured of a run: builtin metrics (wall, user, sys, cpu, maxrss), a number
 * extracted from the command's stdout with a regular expression (first capture group), or a
 * counter (perf's names: instructions, page-faults, ipc) counted around the run. */
#ifndef VERDICT_CORE_METRICS_H
#define VERDICT_CORE_METRICS_H

#include <regex.h>
#include <stdbool.h>
#include <stddef.h>

#include "common/error.h"
#include "core/experiment.h"
#include "core/experiment.h"
#include "core/runner.h"
#include "env/perf_counters.h"

typedef enum {
    METRIC_WALL, METRIC_USER, METRIC_SYS, METRIC_CPU, METRIC_MAXRSS, METRIC_REGEX,
    METRIC_CUSTOM, /* read by a function the composing layer provides (e.g. pgbench output) */
    METRIC_COUNTER /* counted around the run (core/run_counters.h), not read from it */
} metric_kind;

/* Reads a custom metric from a finished run; 0, or -1 with a message. */
typedef int (*metric_extract_fn)(void *context, const char *name, const run_result *run,
                                 double *value, verdict_error *err);

typedef struct {
    char *name;
    metric_kind kind;
    bool higher_is_better;
    bool has_regex;
    regex_t regex;
    char *pattern;
    metric_extract_fn extract;  /* METRIC_CUSTOM */
    void *extract_context;      /* borrowed */
    perf_counters_metric counter; /* METRIC_COUNTER: its events (a ratio has two) */
} metric_def;

/* Parses "wall" (or user, sys, cpu, maxrss), "NAME=/REGEX/" (POSIX extended syntax; the
 * first capture group is the number) or a counter ("instructions", "page-faults:u", "ipc").
 * Returns 0, or -1 with a message (an unknown name: the builtins and the counters). */
int metric_parse(const char *spec, metric_def *out, verdict_error *err);
/* Whether name is a counter that `how` can count: 0 with its events in *out, or -1
 * (ERROR_USAGE) naming the counters that exist (perf_counters_parse's words), or why `how`
 * cannot count it (cachegrind counts user space only and has no cycles or software events). */
int metric_counter_parse(const char *name, experiment_counters how, perf_counters_metric *out,
                         verdict_error *err);
/* Under valgrind a run's time and memory are valgrind's: the builtins (wall, user, sys, cpu,
 * maxrss) are refused (ERROR_USAGE, saying so); 0 for any other name, or under perf. */
int metric_check_counted_by(const char *name, experiment_counters how, verdict_error *err);
/* A counter's direction: lower is better for every count, higher for ipc. */
bool metric_counter_higher_is_better(const perf_counters_metric *counter);
/* True when the metric named so is a counter of events (instructions, page-faults), or one
 * per transaction or query (instructions/tx): exact, analysed as counts (docs/statistics.md,
 * "Exact and near-exact data"); false for a ratio (ipc), a clock (task-clock) and every
 * other metric. */
bool metric_counts_exactly(const char *name);
/* The same for a metric of an experiment (an extraction is never a count), and whether every
 * metric of e is one (what is measured is counts only: timing noise cannot touch it). */
bool metric_is_count(const experiment_metric *metric);
bool metric_counts_only(const experiment *e);

/* Builds a regex metric from its parts (experiment files). */
int metric_from_regex(const char *name, const char *pattern, bool higher_is_better,
                      metric_def *out, verdict_error *err);
/* The metric's value for one run; regex metrics need the run's captured stdout; a counter's
 * value is not in the run (core/run_counters.h reads it): refused (ERROR_INTERNAL). */
int metric_value(const metric_def *metric, const run_result *run, double *value,
                 verdict_error *err);
/* A metric read by extract (which needs the run's stdout). */
int metric_custom(const char *name, bool higher_is_better, metric_extract_fn extract,
                  void *context, metric_def *out);
void metric_free(metric_def *metric);
const char *metric_unit(const metric_def *metric);

#endif
