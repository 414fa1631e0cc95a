/* The default command, `verdict [OPTIONS] COMMAND COMMAND...`: the commands become an
 * experiment of the command target, run and reported like any experiment file. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/bench_options.h"
#include "cli/commands.h"
#include "cli/experiment_run.h"
#include "targets/command_target.h"

/* The settings as the command target's description of a command line. */
static command_line_spec spec_of(const bench_settings *s, int argc, char **argv)
{
    return (command_line_spec){
        .commands = (const char *const *)argv + s->first_command,
        .n_commands = (size_t)(argc - s->first_command), .names = s->names,
        .n_names = s->n_names, .shell = s->shell, .metrics = s->metric_specs,
        .n_metrics = s->n_metric_specs, .higher_is_better = s->higher_is_better,
        .prepare = s->prepare, .setup = s->setup, .cleanup = s->cleanup, .runs = s->runs,
        .min_runs = s->min_runs, .max_runs = s->max_runs, .max_seconds = s->max_seconds,
        .timeout = s->timeout, .warmup = s->warmup, .seed = s->seed, .has_seed = s->has_seed,
        .confidence = s->report.confidence_set ? s->report.confidence : 0.95,
        .margin = s->report.margin_set ? s->report.margin : 0.01,
        .ignore_failure = s->ignore_failure};
}

static void print_summary(const experiment *e, const lab_outcome *o, store *db,
                          int64_t experiment_id, FILE *out)
{
    (void)db;
    (void)experiment_id;
    cli_print_run_summary(e, o, "commands", out);
}

static int run_commands(const bench_settings *s, int argc, char **argv)
{
    experiment e;
    verdict_error err;
    command_line_spec spec = spec_of(s, argc, argv);
    int rc;
    if (command_experiment(&spec, &e, &err) != 0) {
        fprintf(stderr, "verdict: %s\n", err.message);
        rc = exit_code_of(err.kind);
    } else {
        cli_run run = {.program = "verdict", .e = &e,
                       .store_path = s->store_path ? s->store_path : ":memory:",
                       .target = {.pin = s->has_pin ? &s->pin : NULL,
                                  .randomize_env = s->randomize_env},
                       .report = &s->report, .summary = print_summary};
        rc = cli_run_experiment(&run);
    }
    experiment_free(&e);
    return rc;
}

int cmd_bench(int argc, char **argv)
{
    bench_settings settings;
    char err[1024] = "";
    int parsed = bench_parse_args(argc, argv, &settings, err, sizeof err);
    int rc = EXIT_USAGE;
    if (parsed == 1) {
        bench_usage(stdout);
        rc = EXIT_DONE;
    } else if (parsed != 0) {
        fprintf(stderr, "verdict: %s\n", err);
    } else {
        rc = run_commands(&settings, argc, argv);
    }
    bench_settings_free(&settings);
    return rc;
}
