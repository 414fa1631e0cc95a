/* What is measured of a run: builtin metrics (wall, user, sys, cpu, maxrss) or a number
 * extracted from the command's stdout with a regular expression (first capture group). */
#ifndef VERDICT_CORE_METRICS_H
#define VERDICT_CORE_METRICS_H

#include <regex.h>
#include <stdbool.h>
#include <stddef.h>

#include "core/runner.h"
#include "common/error.h"

typedef enum {
    METRIC_WALL, METRIC_USER, METRIC_SYS, METRIC_CPU, METRIC_MAXRSS, METRIC_REGEX,
    METRIC_CUSTOM /* read by a function the composing layer provides (e.g. pgbench output) */
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
} metric_def;

/* Parses "wall" (or user, sys, cpu, maxrss) or "NAME=/REGEX/" (POSIX extended syntax;
 * the first capture group is the number). Returns 0, or -1 with a message. */
int metric_parse(const char *spec, metric_def *out, verdict_error *err);
/* Builds a regex metric from its parts (experiment files). */
int metric_from_regex(const char *name, const char *pattern, bool higher_is_better,
                      metric_def *out, verdict_error *err);
/* The metric's value for one run; regex metrics need the run's captured stdout. */
int metric_value(const metric_def *metric, const run_result *run, double *value,
                 verdict_error *err);
/* A metric read by extract (which needs the run's stdout). */
int metric_custom(const char *name, bool higher_is_better, metric_extract_fn extract,
                  void *context, metric_def *out);
void metric_free(metric_def *metric);
const char *metric_unit(const metric_def *metric);

#endif
