/* Options of the default command, `verdict [OPTIONS] COMMAND COMMAND...`: parsed into
 * settings, with every value checked and every error naming the option and the value. */
#ifndef VERDICT_CLI_BENCH_OPTIONS_H
#define VERDICT_CLI_BENCH_OPTIONS_H

#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cli/options.h"
#include "core/analysis.h"
#include "report/report.h"

#define BENCH_MAX_NAMES 64
#define BENCH_MAX_METRIC_SPECS 16

typedef struct {
    analysis_options analysis;
    size_t runs;                 /* fixed blocks; 0: adaptive */
    size_t min_runs, max_runs, warmup;
    double max_seconds, timeout;
    uint64_t seed;
    bool has_seed, shell, randomize_env, ignore_failure, higher_is_better;
    const char *prepare, *setup, *cleanup;
    report_exports exports;
    const char *names[BENCH_MAX_NAMES];
    size_t n_names;
    const char *metric_specs[BENCH_MAX_METRIC_SPECS];
    size_t n_metric_specs;
    cpu_set_t pin;
    bool has_pin;
    fail_if_rule fail_if;
    int first_command;           /* index into argv of the first COMMAND */
} bench_settings;

void bench_usage(FILE *out);
/* Returns 0 with settings, 1 after printing --help, or -1 with a message. */
int bench_parse_args(int argc, char **argv, bench_settings *s, char *err, size_t errlen);
/* "0", "0-3", "0,2-3" into a CPU set; every CPU must be one verdict may run on. */
int parse_pin_option(const char *text, cpu_set_t *out, char *err, size_t errlen);
/* "30", "30s", "500ms", "5m", "1h" into seconds. */
int parse_duration(const char *option, const char *text, double *out, char *err, size_t errlen);

#endif
