/* Builtin metrics from a run's measurements, and regex extraction from its stdout.
 * POSIX regcomp/regexec (libc) does the matching; strtod reads the captured number. */
#include "core/metrics.h"
#include "core/regex_budget.h"

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
                      metric_def *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    out->kind = METRIC_REGEX;
    out->higher_is_better = higher_is_better;
    char why[192];
    regex_outcome outcome = regex_compile(&out->regex, pattern, REG_NEWLINE, why, sizeof why);
    if (outcome == REGEX_OVER_BUDGET) {
        snprintf(err, errlen, "metric %s: regular expression refused: %s", name, why);
        return -1;
    }
    if (outcome == REGEX_INVALID) {
        snprintf(err, errlen, "metric %s: bad regular expression /%s/: %s", name, pattern, why);
        return -1;
    }
    out->has_regex = true;
    if (out->regex.re_nsub < 1) {
        snprintf(err, errlen, "metric %s: /%s/ has no capture group; put the number in ( )",
                 name, pattern);
        metric_free(out);
        return -1;
    }
    out->name = strdup(name);
    out->pattern = strdup(pattern);
    if (out->name == NULL || out->pattern == NULL) {
        snprintf(err, errlen, "out of memory");
        metric_free(out);
        return -1;
    }
    return 0;
}

int metric_parse(const char *spec, metric_def *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    for (size_t i = 0; i < sizeof builtins / sizeof builtins[0]; i++)
        if (strcmp(spec, builtins[i].name) == 0) {
            out->kind = builtins[i].kind;
            out->name = strdup(spec);
            return out->name ? 0 : -1;
        }
    const char *equals = strchr(spec, '=');
    size_t length = spec + strlen(spec) - (equals ? equals + 1 : spec);
    if (equals == NULL || equals == spec || length < 3 || equals[1] != '/' ||
        spec[strlen(spec) - 1] != '/') {
        snprintf(err, errlen,
                 "--metric '%s': expected wall, user, sys, cpu, maxrss or NAME=/REGEX/", spec);
        return -1;
    }
    char name[128], pattern[1024];
    snprintf(name, sizeof name, "%.*s", (int)(equals - spec), spec);
    snprintf(pattern, sizeof pattern, "%.*s", (int)(length - 2), equals + 2);
    return metric_from_regex(name, pattern, false, out, err, errlen);
}

static int extract_number(const metric_def *m, const run_result *run, double *value, char *err,
                          size_t errlen)
{
    regmatch_t match[2];
    if (run->stdout_text == NULL || regexec(&m->regex, run->stdout_text, 2, match, 0) != 0 ||
        match[1].rm_so < 0) {
        snprintf(err, errlen, "metric %s: no line of the output matches /%s/", m->name, m->pattern);
        return -1;
    }
    char number[128];
    int length = (int)(match[1].rm_eo - match[1].rm_so);
    snprintf(number, sizeof number, "%.*s", length, run->stdout_text + match[1].rm_so);
    char *end = NULL;
    errno = 0;
    *value = strtod(number, &end);
    if (end == number || *end != '\0' || errno == ERANGE || !isfinite(*value)) {
        snprintf(err, errlen, "metric %s: captured '%s', which is not a number", m->name, number);
        return -1;
    }
    return 0;
}

int metric_value(const metric_def *metric, const run_result *run, double *value, char *err,
                 size_t errlen)
{
    switch (metric->kind) {
    case METRIC_WALL: *value = run->wall; return 0;
    case METRIC_USER: *value = run->user; return 0;
    case METRIC_SYS: *value = run->sys; return 0;
    case METRIC_CPU: *value = run->user + run->sys; return 0;
    case METRIC_MAXRSS: *value = run->maxrss_kib; return 0;
    case METRIC_REGEX: return extract_number(metric, run, value, err, errlen);
    case METRIC_CUSTOM:
        return metric->extract(metric->extract_context, metric->name, run, value, err, errlen);
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
    case METRIC_CUSTOM: break;
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
