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

typedef struct {
    size_t runs;                 /* fixed blocks; 0: adaptive */
    size_t min_runs, max_runs, warmup;
    double max_seconds, timeout;
    uint64_t seed;
    bool has_seed, shell, randomize_env, ignore_failure, higher_is_better;
    const char *prepare, *setup, *cleanup;
    const char *store_path;      /* --store, or NULL: nothing kept */
    report_choices report;
    const char **names;          /* --name, in order (allocated) */
    size_t n_names, names_capacity;
    const char **metric_specs;   /* --metric, in order (allocated) */
    size_t n_metric_specs, metric_specs_capacity;
    cpu_set_t pin;
    bool has_pin;
    int first_command;           /* index into argv of the first COMMAND */
} bench_settings;

void bench_usage(FILE *out);
/* Returns 0 with settings, 1 after printing --help, or -1 with a message. Either way the
 * settings are released with bench_settings_free. */
int bench_parse_args(int argc, char **argv, bench_settings *s, char *err, size_t errlen);
void bench_settings_free(bench_settings *s);

#endif
