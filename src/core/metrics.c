/* Builtin metrics from a run's measurements, regex extraction from its stdout, and the names
 * of counters. POSIX regcomp/regexec (libc, REG_STARTEND) does the matching; the captured
 * text is read as a decimal number by the sample-file parser's rules. */
#include "core/metrics.h"
#include "common/error.h"
#include "core/cachegrind.h"
#include "core/regex_budget.h"
#include "core/sample_file.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
    const char *name;
    metric_kind kind;
} builtins[] = {
    {"wall", METRIC_WALL}, {"user", METRIC_USER}, {"sys", METRIC_SYS},
    {"cpu", METRIC_CPU},   {"maxrss", METRIC_MAXRSS},
};

int metric_from_regex(const char *name, const char *pattern, bool higher_is_better,
                      metric_def *out, verdict_error *err)
{
    memset(out, 0, sizeof *out);
    out->kind = METRIC_REGEX;
    out->higher_is_better = higher_is_better;
    verdict_error why = {0};
    regex_outcome outcome = regex_compile(&out->regex, pattern, REG_NEWLINE, &why);
    if (outcome == REGEX_OVER_BUDGET) {
        error_set(err, ERROR_USAGE, "metric %s: regular expression refused: %s", name, why.message);
        return -1;
    }
    if (outcome == REGEX_INVALID) {
        error_set(err, ERROR_USAGE, "metric %s: bad regular expression /%s/: %s", name, pattern,
                  why.message);
        return -1;
    }
    out->has_regex = true;
    if (out->regex.re_nsub < 1) {
        error_set(err, ERROR_USAGE, "metric %s: /%s/ has no capture group; put the number in ( )",
                  name, pattern);
        metric_free(out);
        return -1;
    }
    out->name = strdup(name);
    out->pattern = strdup(pattern);
    if (out->name == NULL || out->pattern == NULL) {
        error_no_memory(err);
        metric_free(out);
        return -1;
    }
    return 0;
}

/* Under valgrind every part of the counter must be one of cachegrind's counts, in user
 * space: its table names what it has; a kernel level is refused as cachegrind's own. */
static int countable_by_cachegrind(const char *name, const perf_counters_metric *counter,
                                   verdict_error *err)
{
    for (size_t i = 0; i < counter->n_parts; i++) {
        const perf_counters_spec *part = &counter->parts[i];
        const char *event = part->event->name;
        cachegrind_options options;
        if (cachegrind_count_find(event) == NULL) {
            cachegrind_options_for(&event, 1, &options, err);
            return counter->derived ? error_prefix(err, "'%s' is %s", name,
                                                   counter->derived->meaning)
                                    : -1;
        }
        if (part->scope != PERF_COUNTERS_USER)
            return error_set(err, ERROR_USAGE, "'%s' cannot be counted under --counters "
                             "valgrind: cachegrind sees user space only (:u)", name);
    }
    return 0;
}

int metric_counter_parse(const char *name, experiment_counters how, perf_counters_metric *out,
                         verdict_error *err)
{
    if (perf_counters_parse(name, out, err) != 0)
        return -1;
    if (how == EXPERIMENT_COUNTERS_VALGRIND)
        return countable_by_cachegrind(name, out, err);
    return 0;
}

int metric_check_counted_by(const char *name, experiment_counters how, verdict_error *err)
{
    if (how != EXPERIMENT_COUNTERS_VALGRIND)
        return 0;
    for (size_t i = 0; i < sizeof builtins / sizeof builtins[0]; i++)
        if (strcmp(name, builtins[i].name) == 0)
            return error_set(err, ERROR_USAGE, "metric '%s' is not measured under --counters "
                             "valgrind: a run under cachegrind takes 20 to 100 times as long, "
                             "and its time and memory are valgrind's; measure time in another "
                             "experiment", name);
    return 0;
}

bool metric_counter_higher_is_better(const perf_counters_metric *counter)
{
    return counter->derived != NULL && counter->derived->higher_is_better;
}

bool metric_counts_exactly(const char *name)
{
    /* A count per transaction or per query (PostgreSQL's instructions/tx) is a count divided
     * by a count: as exact as its parts. */
    char event_name[64];
    snprintf(event_name, sizeof event_name, "%.*s", (int)strcspn(name, "/"), name);
    perf_counters_metric counter;
    verdict_error quiet = {0};
    if (perf_counters_parse(event_name, &counter, &quiet) != 0) {
        error_clear(&quiet);
        return false;
    }
    /* A ratio (ipc) is no count, and the clocks count nanoseconds of time, not events. */
    const char *event = counter.parts[0].event->name;
    return counter.derived == NULL && strcmp(event, "task-clock") != 0 &&
           strcmp(event, "cpu-clock") != 0;
}

bool metric_is_count(const experiment_metric *metric)
{
    return metric->regex == NULL && metric_counts_exactly(metric->name);
}

bool metric_counts_only(const experiment *e)
{
    for (size_t m = 0; m < e->n_metrics; m++)
        if (!metric_is_count(&e->metrics[m]))
            return false;
    return e->n_metrics > 0;
}

static int parse_regex_spec(const char *spec, metric_def *out, verdict_error *err)
{
    const char *equals = strchr(spec, '=');
    size_t length = spec + strlen(spec) - (equals ? equals + 1 : spec);
    if (equals == spec || length < 3 || equals[1] != '/' || spec[strlen(spec) - 1] != '/')
        return error_set(err, ERROR_USAGE, "--metric '%s': expected NAME=/REGEX/", spec);
    char name[128], pattern[1024];
    snprintf(name, sizeof name, "%.*s", (int)(equals - spec), spec);
    snprintf(pattern, sizeof pattern, "%.*s", (int)(length - 2), equals + 2);
    return metric_from_regex(name, pattern, false, out, err);
}

int metric_parse(const char *spec, metric_def *out, verdict_error *err)
{
    memset(out, 0, sizeof *out);
    for (size_t i = 0; i < sizeof builtins / sizeof builtins[0]; i++)
        if (strcmp(spec, builtins[i].name) == 0) {
            out->kind = builtins[i].kind;
            out->name = strdup(spec);
            return out->name ? 0 : error_no_memory(err);
        }
    if (strchr(spec, '=') != NULL)
        return parse_regex_spec(spec, out, err);
    verdict_error why = {0};
    if (perf_counters_parse(spec, &out->counter, &why) != 0)
        return error_set(err, ERROR_USAGE, "--metric '%s': expected wall, user, sys, cpu, "
                         "maxrss, NAME=/REGEX/ or a counter: %s", spec, why.message);
    out->kind = METRIC_COUNTER;
    out->name = strdup(spec);
    return out->name ? 0 : error_no_memory(err);
}

/* Where the metric's number is: the first match in the whole captured output. With
 * REG_STARTEND the search runs to stdout_length, past NUL bytes (a NUL used to end it
 * and turn a present line into "no line matches"). */
static bool find_capture(const metric_def *m, const run_result *run, regmatch_t *capture)
{
    regmatch_t match[2];
    match[0].rm_so = 0;
    match[0].rm_eo = (regoff_t)run->stdout_length;
    if (run->stdout_text == NULL ||
        regexec(&m->regex, run->stdout_text, 2, match, REG_STARTEND) != 0 || match[1].rm_so < 0)
        return false;
    *capture = match[1];
    return true;
}

static void describe_cut(const run_result *run, char *out, size_t outlen)
{
    if (run->stdout_cut)
        snprintf(out, outlen, " in the first %zu bytes of the output (the %zu bytes after "
                 "them were not kept)", run->stdout_length, run->stdout_dropped);
    else
        out[0] = '\0';
}

static int extract_number(const metric_def *m, const run_result *run, double *value,
                          verdict_error *err)
{
    regmatch_t capture;
    char cut[160];
    describe_cut(run, cut, sizeof cut);
    if (!find_capture(m, run, &capture)) {
        error_set(err, ERROR_USAGE, "metric %s: no line of the output matches /%s/%s", m->name,
                  m->pattern, cut);
        return -1;
    }
    const char *number = run->stdout_text + capture.rm_so;
    size_t length = (size_t)(capture.rm_eo - capture.rm_so);
    /* A head that ends inside a line over the limit may have cut the number itself. */
    if (run->stdout_cut && (size_t)capture.rm_eo == run->stdout_length) {
        error_set(err, ERROR_USAGE, "metric %s: the output was cut after %zu bytes, where /%s/ "
                  "matched: the number may be cut too", m->name, run->stdout_length, m->pattern);
        return -1;
    }
    verdict_error why = {0};
    if (sample_number_parse(number, length, value, &why) != 0) {
        error_set(err, ERROR_USAGE, "metric %s: what /%s/ captured is refused: %s", m->name,
                  m->pattern, why.message);
        return -1;
    }
    return 0;
}

int metric_value(const metric_def *metric, const run_result *run, double *value, verdict_error *err)
{
    switch (metric->kind) {
    case METRIC_WALL: *value = run->wall; return 0;
    case METRIC_USER: *value = run->user; return 0;
    case METRIC_SYS: *value = run->sys; return 0;
    case METRIC_CPU: *value = run->user + run->sys; return 0;
    case METRIC_MAXRSS: *value = run->maxrss_kib; return 0;
    case METRIC_REGEX: return extract_number(metric, run, value, err);
    case METRIC_CUSTOM:
        return metric->extract(metric->extract_context, metric->name, run, value, err);
    case METRIC_COUNTER:
        return error_set(err, ERROR_INTERNAL, "metric %s: a counter is not read from the run",
                         metric->name);
    }
    return -1;
}

int metric_custom(const char *name, bool higher_is_better, metric_extract_fn extract,
                  void *context, metric_def *out)
{
    memset(out, 0, sizeof *out);
    out->kind = METRIC_CUSTOM;
    out->higher_is_better = higher_is_better;
    out->extract = extract;
    out->extract_context = context;
    out->name = strdup(name);
    return out->name ? 0 : -1;
}

const char *metric_unit(const metric_def *metric)
{
    switch (metric->kind) {
    case METRIC_WALL:
    case METRIC_USER:
    case METRIC_SYS:
    case METRIC_CPU: return "s";
    case METRIC_MAXRSS: return "KiB";
    case METRIC_REGEX:
    case METRIC_CUSTOM:
    case METRIC_COUNTER: break;
    }
    return "";
}

void metric_free(metric_def *metric)
{
    if (metric->has_regex)
        regfree(&metric->regex);
    free(metric->name);
    free(metric->pattern);
    memset(metric, 0, sizeof *metric);
}
