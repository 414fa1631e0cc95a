/* Parsing of the default command's options with getopt_long. Defaults live in
 * the defines below, which --help quotes. */
#include "cli/bench_options.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/array.h"

#define DEFAULT_MIN_RUNS 10
#define DEFAULT_MAX_RUNS 100
#define DEFAULT_WARMUP 1

void bench_usage(FILE *out)
{
    fprintf(out,
        "usage: verdict [OPTIONS] COMMAND COMMAND [COMMAND...]\n"
        "       verdict compare [OPTIONS] FILE FILE [FILE...]\n"
        "       verdict run EXPERIMENT.yaml [--store FILE]   run or resume an experiment file\n"
        "       verdict report STORE                       re-analyse a stored experiment\n"
        "       verdict kernel MODULE.so KERNEL KERNEL...   in-process benchmarks\n"
        "       verdict build EXPERIMENT.yaml              build every variant ahead of time\n"
        "       verdict cache list|prune                   the cache of builds by content\n"
        "       verdict env [--json FILE]                  machine facts and noise checks\n"
        "\n"
        "Runs every COMMAND in interleaved randomized blocks (each once per block, in a\n"
        "seeded shuffled order) and compares each with the first, the baseline: a ratio\n"
        "with a confidence interval and a verdict (better, worse, equivalent within the\n"
        "margin, or inconclusive with the runs a decision would likely need).\n"
        "COMMANDs are split into words like a shell would and executed directly. Options\n"
        "may come before or after them; after --, every word is a COMMAND.\n"
        "\n"
        "running:\n"
        "  -n, --runs N            exactly N blocks (default: adaptive, see below)\n"
        "      --min-runs N        adaptive: first analysis after N blocks (default 10)\n"
        "      --max-runs N        adaptive: at most N blocks (default 100)\n"
        "      --max-time T        adaptive: stop after T (30s, 5m, 1h; default none)\n"
        "  -w, --warmup N          unmeasured runs of each command first (default 1)\n"
        "      --prepare CMD       run before every measured run (not measured)\n"
        "      --setup CMD         run once before everything; --cleanup CMD once after\n"
        "  -S, --shell             run COMMANDs through /bin/sh -c\n"
        "      --timeout T         kill a run (and its process group) after T\n"
        "      --no-randomize-env  do not vary the environment's size between runs\n"
        "      --pin CPUS          run the commands on these CPUs (0, 0-1, 0,2)\n"
        "      --ignore-failure    keep going when a command exits non-zero\n"
        "      --name NAME         name the commands in order (repeat for each)\n"
        "      --seed N            seed of the plan (default: random, printed)\n"
        "      --store FILE        keep every sample in FILE as it is taken; the same command\n"
        "                          with the same store resumes (verdict report FILE reads it)\n"
        "measuring:\n"
        "      --metric M          wall (default), user, sys, cpu, maxrss, or NAME=/REGEX/\n"
        "                          (the first capture group of a line of stdout); repeatable\n"
        "      --higher-is-better  bigger is better for the metrics (throughput)\n"
        "%s"
        "  -h, --help              show this help\n"
        "\n"
        "Adaptive stopping analyses the data only at planned block counts (10, 15, 23, ...)\n"
        "and splits alpha equally between those looks, so stopping early keeps the error\n"
        "rates (docs/statistics.md).\n"
        "exit status: 0 done, 1 internal failure, 2 usage or bad input, 3 a command failed,\n"
        "4 --fail-if triggered, 130 interrupted (after reporting the complete blocks).\n",
        report_options_help);
}

enum {
    OPT_MIN_RUNS = 1000, OPT_MAX_RUNS, OPT_MAX_TIME, OPT_PREPARE, OPT_SETUP, OPT_CLEANUP,
    OPT_TIMEOUT, OPT_NO_RANDOMIZE_ENV, OPT_PIN, OPT_IGNORE_FAILURE, OPT_NAME, OPT_SEED,
    OPT_METRIC, OPT_HIGHER, OPT_STORE
};

static int append_word(const char ***list, size_t *n, size_t *capacity, const char *word,
                       char *err, size_t errlen)
{
    if (array_reserve((void **)list, capacity, *n + 1, sizeof **list) != 0) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    (*list)[(*n)++] = word;
    return 0;
}

static int apply_option(int opt, const char *arg, void *settings, char *err, size_t errlen)
{
    bench_settings *s = settings;
    switch (opt) {
    case 'n': return parse_count("--runs", arg, false, &s->runs, err, errlen);
    case OPT_MIN_RUNS: return parse_count("--min-runs", arg, false, &s->min_runs, err, errlen);
    case OPT_MAX_RUNS: return parse_count("--max-runs", arg, false, &s->max_runs, err, errlen);
    case OPT_MAX_TIME: return parse_duration("--max-time", arg, &s->max_seconds, err, errlen);
    case 'w': return parse_count("--warmup", arg, true, &s->warmup, err, errlen);
    case OPT_PREPARE: s->prepare = arg; return 0;
    case OPT_SETUP: s->setup = arg; return 0;
    case OPT_CLEANUP: s->cleanup = arg; return 0;
    case 'S': s->shell = true; return 0;
    case OPT_TIMEOUT: return parse_duration("--timeout", arg, &s->timeout, err, errlen);
    case OPT_NO_RANDOMIZE_ENV: s->randomize_env = false; return 0;
    case OPT_PIN: s->has_pin = true; return parse_pin_option(arg, &s->pin, err, errlen);
    case OPT_IGNORE_FAILURE: s->ignore_failure = true; return 0;
    case OPT_NAME:
        return append_word(&s->names, &s->n_names, &s->names_capacity, arg, err, errlen);
    case OPT_METRIC:
        return append_word(&s->metric_specs, &s->n_metric_specs, &s->metric_specs_capacity, arg,
                           err, errlen);
    case OPT_SEED: s->has_seed = true; return parse_u64("--seed", arg, &s->seed, err, errlen);
    case OPT_HIGHER: s->higher_is_better = true; return 0;
    case OPT_STORE: s->store_path = arg; return 0;
    }
    int rc = report_choice_apply(&s->report, opt, arg, err, errlen);
    if (rc <= 0)
        return rc;
    snprintf(err, errlen, "unknown option (see verdict --help)");
    return -1;
}

static void set_defaults(bench_settings *s)
{
    memset(s, 0, sizeof *s);
    s->min_runs = DEFAULT_MIN_RUNS;
    s->max_runs = DEFAULT_MAX_RUNS;
    s->warmup = DEFAULT_WARMUP;
    s->randomize_env = true;
}

static int check_consistency(const bench_settings *s, int argc, char *err, size_t errlen)
{
    if (argc - s->first_command < 2) {
        snprintf(err, errlen, "give at least two commands to compare (see verdict --help)");
        return -1;
    }
    if (s->min_runs > s->max_runs) {
        snprintf(err, errlen, "--min-runs %zu is larger than --max-runs %zu", s->min_runs,
                 s->max_runs);
        return -1;
    }
    if (s->n_names > 0 && s->n_names != (size_t)(argc - s->first_command)) {
        snprintf(err, errlen, "%zu --name options for %d commands: name every command or none",
                 s->n_names, argc - s->first_command);
        return -1;
    }
    return 0;
}

int bench_parse_args(int argc, char **argv, bench_settings *s, char *err, size_t errlen)
{
    static const struct option long_options[] = {
        {"runs", required_argument, NULL, 'n'}, {"min-runs", required_argument, NULL, OPT_MIN_RUNS},
        {"max-runs", required_argument, NULL, OPT_MAX_RUNS},
        {"max-time", required_argument, NULL, OPT_MAX_TIME},
        {"warmup", required_argument, NULL, 'w'}, {"prepare", required_argument, NULL, OPT_PREPARE},
        {"setup", required_argument, NULL, OPT_SETUP}, {"cleanup", required_argument, NULL, OPT_CLEANUP},
        {"shell", no_argument, NULL, 'S'}, {"timeout", required_argument, NULL, OPT_TIMEOUT},
        {"no-randomize-env", no_argument, NULL, OPT_NO_RANDOMIZE_ENV},
        {"pin", required_argument, NULL, OPT_PIN},
        {"ignore-failure", no_argument, NULL, OPT_IGNORE_FAILURE},
        {"name", required_argument, NULL, OPT_NAME}, {"seed", required_argument, NULL, OPT_SEED},
        {"metric", required_argument, NULL, OPT_METRIC},
        {"higher-is-better", no_argument, NULL, OPT_HIGHER},
        {"store", required_argument, NULL, OPT_STORE}, REPORT_LONG_OPTIONS,
        {"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0},
    };
    set_defaults(s);
    int first = walk_options(argc, argv, "n:w:Sh", long_options, "verdict",
                             apply_option, s, err, errlen);
    if (first == OPTIONS_HELP)
        return 1;
    if (first == OPTIONS_ERROR)
        return -1;
    s->first_command = optind;
    return check_consistency(s, argc, err, errlen);
}

void bench_settings_free(bench_settings *s)
{
    free(s->names);
    free(s->metric_specs);
    s->names = s->metric_specs = NULL;
}
