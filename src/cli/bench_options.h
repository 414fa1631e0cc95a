/* Options of the default command, `verdict [OPTIONS] COMMAND COMMAND...`: hyperfine's, with
 * hyperfine's meaning, parsed into settings; every error names the option and the value. */
#ifndef VERDICT_CLI_BENCH_OPTIONS_H
#define VERDICT_CLI_BENCH_OPTIONS_H

#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cli/bench_parameters.h"
#include "cli/options.h"
#include "common/error.h"
#include "core/experiment.h"

/* Words of repeatable options, in the order given (the array allocated, words borrowed). */
typedef struct {
    const char **words;
    size_t n, capacity;
} bench_words;

typedef struct {
    size_t runs;                 /* fixed blocks; 0: adaptive */
    size_t min_runs, max_runs, warmup;
    const char *looks, *spending; /* --looks, --spending: checked by command_experiment */
    double max_seconds, timeout;
    uint64_t seed;
    bool has_seed, randomize_env, ignore_failure, higher_is_better, show_output;
    bool shell_sh;               /* -S sh: commands and helpers through /bin/sh -c */
    const char *shell_program;   /* -S SHELL: through another shell; or NULL */
    bool no_shell;               /* -N: commands and helpers executed directly */
    const char *setup, *cleanup, *input, *output;
    const char *scan_name, *scan_min, *scan_max, *scan_step; /* -P, -D */
    const char *store_path;      /* --store, or NULL: nothing kept */
    experiment_counters counters; /* --counters */
    bool profile;                /* --profile */
    const char *profile_event;   /* --profile-event, or NULL */
    report_choices report;
    bench_words names, metric_specs, prepares, concludes;
    bench_parameters parameters;
    cpu_set_t pin;
    bool has_pin;
    int argc;
    char **argv;                 /* -P and -L read the words after their first */
    int first_command;           /* index into argv of the first COMMAND */
} bench_settings;

enum { BENCH_PARSED = 0, BENCH_HELP = 1, BENCH_VERSION = 2, BENCH_ERROR = -1 };

/* BENCH_PARSED with settings, BENCH_HELP or BENCH_VERSION (to be printed), or BENCH_ERROR
 * with a message. Either way the settings are released with bench_settings_free. */
int bench_parse_args(int argc, char **argv, bench_settings *s, verdict_error *err);
void bench_settings_free(bench_settings *s);

#endif
