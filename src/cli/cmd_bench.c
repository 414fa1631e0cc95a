/* The default command, `verdict [OPTIONS] COMMAND COMMAND...`: the commands become an
 * experiment of the command target, run and reported like any experiment file. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/bench_options.h"
#include "cli/command_list.h"
#include "cli/commands.h"
#include "cli/experiment_run.h"
#include "common/error.h"
#include "targets/command_target.h"
#include "version.h"

/* The settings as the command target's description of a command line. */
static command_line_spec spec_of(const bench_settings *s, int argc, char **argv)
{
    bool one_prepare = s->prepares.n == 1;
    return (command_line_spec){
        .commands = (const char *const *)argv + s->first_command,
        .n_commands = (size_t)(argc - s->first_command), .names = s->names.words,
        .n_names = s->names.n, .shell = s->shell_sh, .shell_program = s->shell_program,
        .no_shell = s->no_shell, .metrics = s->metric_specs.words,
        .n_metrics = s->metric_specs.n, .higher_is_better = s->higher_is_better,
        .prepare = one_prepare ? s->prepares.words[0] : NULL,
        .prepares = one_prepare ? NULL : s->prepares.words,
        .n_prepares = one_prepare ? 0 : s->prepares.n, .concludes = s->concludes.words,
        .n_concludes = s->concludes.n, .setup = s->setup, .cleanup = s->cleanup,
        .input = s->input, .output = s->show_output ? "inherit" : s->output,
        .parameters = s->parameters.list, .n_parameters = s->parameters.n, .runs = s->runs,
        .min_runs = s->min_runs, .max_runs = s->max_runs, .looks = s->looks,
        .spending = s->spending, .max_seconds = s->max_seconds,
        .timeout = s->timeout, .warmup = s->warmup, .seed = s->seed, .has_seed = s->has_seed,
        .confidence = s->report.confidence_set ? s->report.confidence : 0.95,
        .margin = s->report.margin_set ? s->report.margin : 0.01,
        .method = s->report.quantile_set ? METHOD_QUANTILE
                  : s->report.method_set ? s->report.method : METHOD_WILCOXON,
        .quantile = s->report.quantile_set ? s->report.quantile : 0.0,
        .method_given = s->report.quantile_set || s->report.method_set,
        .ignore_failure = s->ignore_failure, .counters = s->counters,
        .profile = s->profile, .profile_event = s->profile_event};
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
        rc = error_exit_status(err.kind);
    } else {
        report_choices choices = s->report;
        choices.text.headlines = true; /* hyperfine's "Benchmark 1: ..." per command */
        cli_run run = {.program = "verdict", .e = &e,
                       .store_path = s->store_path ? s->store_path : ":memory:",
                       .target = {.pin = s->has_pin ? &s->pin : NULL,
                                  .randomize_env = s->randomize_env},
                       .report = &choices, .summary = print_summary};
        rc = cli_run_experiment(&run);
    }
    experiment_free(&e);
    return rc;
}

int cmd_bench(int argc, char **argv)
{
    bench_settings settings;
    verdict_error err = {0};
    int parsed = bench_parse_args(argc, argv, &settings, &err);
    int rc = EXIT_USAGE;
    if (parsed == BENCH_HELP || parsed == BENCH_VERSION) {
        if (parsed == BENCH_HELP)
            cli_help_write(cmd_bench_help, stdout);
        else
            printf("verdict %s\n", VERDICT_VERSION);
        rc = EXIT_DONE;
    } else if (parsed != BENCH_PARSED) {
        fprintf(stderr, "verdict: %s\n", err.message);
    } else {
        rc = run_commands(&settings, argc, argv);
    }
    bench_settings_free(&settings);
    return rc;
}
