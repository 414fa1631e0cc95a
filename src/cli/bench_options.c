/* Parsing of the default command's options with getopt_long: hyperfine's options with
 * hyperfine's meaning. Defaults live in the defines below, which --help quotes. */
#include "cli/bench_options.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/array.h"
#include "common/error.h"
#include "core/command_words.h"
#include "core/runner.h"

#define DEFAULT_MIN_RUNS 10
#define DEFAULT_MAX_RUNS 100
#define DEFAULT_WARMUP 1

static const char usage_head[] =
    "usage: verdict [OPTIONS] COMMAND COMMAND [COMMAND...]\n"
    "       verdict compare [OPTIONS] FILE FILE [FILE...]\n"
    "       verdict run EXPERIMENT.yaml [--store FILE]   run or resume an experiment file\n"
    "       verdict report STORE                       re-analyse a stored experiment\n"
    "       verdict plan EXPERIMENT.yaml --detect 2%   the cheapest layouts and blocks\n"
    "       verdict kernel MODULE.so KERNEL KERNEL...   in-process benchmarks\n"
    "       verdict build EXPERIMENT.yaml              build every variant ahead of time\n"
    "       verdict cache list|prune                   the cache of builds by content\n"
    "       verdict env [--json FILE]                  machine facts and noise checks\n"
    "       verdict calibrate [--experiments N]        A/A self-test: this machine's false\n"
    "                                                  positives, noise and fastest method\n"
    "       verdict bisect EXP.yaml --good A --bad B   the commit that changed the metric\n"
    "\n"
    "Runs every COMMAND in interleaved randomized blocks (each once per block, in a\n"
    "seeded shuffled order) and compares each with the first, the baseline: a ratio\n"
    "with a confidence interval and a verdict (better, worse, equivalent within the\n"
    "margin, or inconclusive with the runs a decision would likely need). The options\n"
    "are hyperfine's, with hyperfine's meaning. COMMANDs are split into words like a\n"
    "shell would and executed directly unless --shell is given. Options may come before\n"
    "or after them; after --, every word is a COMMAND.\n";

static const char usage_running[] =
    "\n"
    "runs:\n"
    "  -r, --runs N            exactly N runs of each command, one per block (default:\n"
    "                          adaptive, see below)\n"
    "  -m, --min-runs N        adaptive: first analysis after N blocks (default 10)\n"
    "  -M, --max-runs N        adaptive: at most N blocks (default 100)\n"
    "      --max-time T        adaptive: stop after T (30s, 5m, 1h; default none)\n"
    "      --looks B,B,...     adaptive: look at these block counts (10,20,30,40,50;\n"
    "                          the first and last replace --min-runs and --max-runs)\n"
    "      --spending NAME     adaptive: how the looks spend alpha: pocock (default),\n"
    "                          obrien-fleming or equal (docs/statistics.md)\n"
    "  -w, --warmup N          unmeasured runs of each command first (default 1)\n"
    "  -i, --ignore-failure    keep going when a command exits non-zero or times out; its\n"
    "                          failed runs are counted in the report, never analysed\n"
    "      --timeout T         kill a run (and its process group) after T\n"
    "commands around the runs (through the shell: /bin/sh, or --shell; -N: directly):\n"
    "  -p, --prepare CMD       before every run, warm-up runs included; once for all\n"
    "                          commands, or once per command in their order\n"
    "  -C, --conclude CMD      after every run; once for all, or once per command\n"
    "  -s, --setup CMD         once before the runs (of each parameter point)\n"
    "  -c, --cleanup CMD       once after the runs (of each parameter point)\n"
    "how commands run:\n"
    "  -S, --shell SHELL       run COMMANDs (and the commands above) through SHELL -c:\n"
    "                          sh (or default: /bin/sh), bash, 'bash --norc', none\n"
    "  -N                      --shell=none: COMMANDs and the commands above are split\n"
    "                          into words and executed directly; for COMMANDs this is\n"
    "                          verdict's default already\n"
    "      --input FILE        the commands' standard input (default /dev/null)\n"
    "      --output WHERE      their standard output: null (default), pipe (read and\n"
    "                          discarded), inherit (the terminal) or a FILE (rewritten\n"
    "                          at every run)\n"
    "      --show-output       --output inherit, standard error too\n"
    "      --no-randomize-env  do not vary the environment's size between runs\n"
    "      --pin CPUS          run the commands on these CPUs (0, 0-1, 0,2)\n"
    "parameters (each value a point: a comparison per point and the overall effect):\n"
    "  -P, --parameter-scan VAR MIN MAX\n"
    "                          {VAR} in the commands takes MIN, MIN+1, ... MAX\n"
    "  -D, --parameter-step-size STEP\n"
    "                          the scan's step (decimals allowed)\n"
    "  -L, --parameter-list VAR A,B,C\n"
    "                          {VAR} takes each value; repeat for every combination\n"
    "measuring:\n"
    "      --metric M          wall (default), user, sys, cpu, maxrss, NAME=/REGEX/ (the\n"
    "                          first capture group of a line of stdout), or a counter:\n"
    "                          instructions, cycles, branches, branch-misses,\n"
    "                          cache-references, cache-misses, L1-dcache-load-misses,\n"
    "                          task-clock, page-faults, context-switches, cpu-migrations\n"
    "                          (:u user space, :k kernel, :uk both), ipc, branch-miss-rate\n"
    "                          (docs/metrics.md); each with :higher or :lower;\n"
    "                          repeatable. Times, maxrss and counts are lower-is-better\n"
    "                          (ipc higher) unless given :higher\n"
    "      --counters HOW      how counters are counted: perf (default; the kernel's\n"
    "                          perf_event_open, which needs hardware counters for\n"
    "                          instructions and the like: `verdict env` lists them) or\n"
    "                          valgrind (each run under cachegrind: exact instructions,\n"
    "                          and simulated cache-misses and branch-misses; about 50x\n"
    "                          slower; no time metrics; default metric instructions)\n"
    "      --higher-is-better  bigger is better for the NAME=/REGEX/ metrics given no\n"
    "                          direction (throughput)\n"
    "naming and keeping:\n"
    "  -n, --command-name NAME name the commands in order (repeat for each)\n"
    "      --seed N            seed of the plan (default: random, printed)\n"
    "      --store FILE        keep every sample in FILE as it is taken; the same command\n"
    "                          with the same store resumes (verdict report FILE reads it)\n";

static const char usage_tail[] =
    "      --export-json FILE, --export-csv FILE, --export-markdown FILE\n"
    "                          hyperfine's names of --json, --csv, --markdown\n"
    "  -h, --help              show this help\n"
    "  -V, --version           show verdict's version\n"
    "\n"
    "Adaptive stopping analyses the data only at planned block counts (10, 15, 23, ...)\n"
    "and spends alpha between those looks by a spending function, so stopping early\n"
    "keeps the error rates (docs/statistics.md).\n"
    "exit status: 0 done, 1 internal failure, 2 usage or bad input, 3 a command failed,\n"
    "4 --fail-if triggered, 130 interrupted (after reporting the complete blocks).\n";

void bench_usage(FILE *out)
{
    fputs(usage_head, out);
    fputs(usage_running, out);
    fputs(report_options_help, out);
    fputs(usage_tail, out);
}

enum {
    OPT_MAX_TIME = 1000, OPT_TIMEOUT, OPT_NO_RANDOMIZE_ENV, OPT_PIN, OPT_SEED, OPT_METRIC,
    OPT_HIGHER, OPT_STORE, OPT_INPUT, OPT_OUTPUT, OPT_SHOW_OUTPUT, OPT_COUNTERS, OPT_LOOKS,
    OPT_SPENDING
};

static int append_word(bench_words *list, const char *word, verdict_error *err)
{
    if (array_reserve((void **)&list->words, &list->capacity, list->n + 1,
                      sizeof *list->words) != 0) {
        error_no_memory(err);
        return -1;
    }
    list->words[list->n++] = word;
    return 0;
}

static int set_once(const char **slot, const char *option, const char *arg, verdict_error *err)
{
    if (*slot) {
        error_set(err, ERROR_USAGE, "%s is given twice ('%s', '%s'): give one", option, *slot, arg);
        return -1;
    }
    *slot = arg;
    return 0;
}

/* -S SHELL is hyperfine's: the shell to run the commands with. verdict's --shell used to take
 * no value, so a value that reads as a command (words that are no options of a shell) or as
 * an option is refused rather than run as the shell. */
static int parse_shell(const char *arg, bench_settings *s, verdict_error *err)
{
    command_words words = {NULL, 0};
    verdict_error why = {0};
    int rc = -1;
    s->shell_sh = s->no_shell = false;
    s->shell_program = NULL;
    if (strcmp(arg, "none") == 0) {
        s->no_shell = true;
        return 0;
    }
    if (strcmp(arg, "default") == 0 || strcmp(arg, "sh") == 0 || strcmp(arg, "/bin/sh") == 0) {
        s->shell_sh = true;
        return 0;
    }
    if (arg[0] != '-' && command_words_split(arg, &words, &why) == 0) {
        rc = 0;
        for (size_t i = 1; i < words.n; i++)
            rc |= words.words[i][0] == '-' ? 0 : -1;
        if (rc == 0 && runner_check_executable(NULL, words.words[0], &why) != 0)
            rc = -2;
    }
    if (rc == 0)
        s->shell_program = arg;
    else if (rc == -2)
        error_set(err, ERROR_USAGE, "--shell '%s': %s", arg, why.message);
    else
        error_set(err, ERROR_USAGE, "--shell '%s': expected the shell to run the commands with "
                   "and its options (sh, bash, 'bash --norc') or none; --shell takes a value now, "
                  "as in hyperfine: write --shell sh for /bin/sh", arg);
    command_words_free(&words);
    return rc == 0 ? 0 : -1;
}

/* -P VAR MIN MAX and -L VAR VALUES take the words after their value from argv. */
static int take_words(bench_settings *s, const char *option, int n, const char **out,
                      verdict_error *err)
{
    if (optind + n > s->argc) {
        error_set(err, ERROR_USAGE, "%s: expected %s", option,
                  n == 2 ? "VAR MIN MAX" : "VAR VALUES (a,b,c)");
        return -1;
    }
    for (int i = 0; i < n; i++)
        out[i] = s->argv[optind + i];
    optind += n;
    return 0;
}

static int apply_parameter(int opt, const char *arg, bench_settings *s, verdict_error *err)
{
    const char *words[2];
    if (opt == 'D')
        return set_once(&s->scan_step, "--parameter-step-size", arg, err);
    if (opt == 'L')
        return take_words(s, "--parameter-list", 1, words, err) != 0 ? -1
               : bench_parameter_list(&s->parameters, arg, words[0], err);
    if (take_words(s, "--parameter-scan", 2, words, err) != 0 ||
        set_once(&s->scan_name, "--parameter-scan", arg, err) != 0)
        return -1;
    s->scan_min = words[0];
    s->scan_max = words[1];
    return 0;
}

static int apply_running(int opt, const char *arg, bench_settings *s, verdict_error *err)
{
    switch (opt) {
    case 'r': return parse_count("--runs", arg, false, &s->runs, err);
    case 'm': return parse_count("--min-runs", arg, false, &s->min_runs, err);
    case 'M': return parse_count("--max-runs", arg, false, &s->max_runs, err);
    case OPT_MAX_TIME: return parse_duration("--max-time", arg, &s->max_seconds, err);
    case OPT_LOOKS: return set_once(&s->looks, "--looks", arg, err);
    case OPT_SPENDING: return set_once(&s->spending, "--spending", arg, err);
    case 'w': return parse_count("--warmup", arg, true, &s->warmup, err);
    case 'i': s->ignore_failure = true; return 0;
    case OPT_TIMEOUT: return parse_duration("--timeout", arg, &s->timeout, err);
    case 'p': return append_word(&s->prepares, arg, err);
    case 'C': return append_word(&s->concludes, arg, err);
    case 's': return set_once(&s->setup, "--setup", arg, err);
    case 'c': return set_once(&s->cleanup, "--cleanup", arg, err);
    case 'S': return parse_shell(arg, s, err);
    case 'N': return parse_shell("none", s, err);
    case OPT_INPUT: return set_once(&s->input, "--input", arg, err);
    case OPT_OUTPUT: return set_once(&s->output, "--output", arg, err);
    case OPT_SHOW_OUTPUT: s->show_output = true; return 0;
    case OPT_NO_RANDOMIZE_ENV: s->randomize_env = false; return 0;
    case OPT_PIN: s->has_pin = true; return parse_pin_option(arg, &s->pin, err);
    case 'P':
    case 'D':
    case 'L': return apply_parameter(opt, arg, s, err);
    }
    return 1;
}

static int parse_counters(const char *arg, experiment_counters *out, verdict_error *err)
{
    if (strcmp(arg, "perf") == 0 || strcmp(arg, "valgrind") == 0) {
        *out = arg[0] == 'p' ? EXPERIMENT_COUNTERS_PERF : EXPERIMENT_COUNTERS_VALGRIND;
        return 0;
    }
    return error_set(err, ERROR_USAGE, "--counters '%s': perf (the default) or valgrind", arg);
}

static int apply_option(int opt, const char *arg, void *settings, verdict_error *err)
{
    bench_settings *s = settings;
    int rc = apply_running(opt, arg, s, err);
    if (rc <= 0)
        return rc;
    switch (opt) {
    case 'n': return append_word(&s->names, arg, err);
    case OPT_METRIC: return append_word(&s->metric_specs, arg, err);
    case OPT_SEED: s->has_seed = true; return parse_u64("--seed", arg, &s->seed, err);
    case OPT_HIGHER: s->higher_is_better = true; return 0;
    case OPT_COUNTERS: return parse_counters(arg, &s->counters, err);
    case OPT_STORE: s->store_path = arg; return 0;
    }
    rc = report_choice_apply(&s->report, opt, arg, err);
    if (rc <= 0)
        return rc;
    error_set(err, ERROR_USAGE, "unknown option (see verdict --help)");
    return -1;
}

static void set_defaults(bench_settings *s, int argc, char **argv)
{
    memset(s, 0, sizeof *s);
    s->min_runs = DEFAULT_MIN_RUNS;
    s->max_runs = DEFAULT_MAX_RUNS;
    s->warmup = DEFAULT_WARMUP;
    s->randomize_env = true;
    s->argc = argc;
    s->argv = argv;
}

static bool all_digits(const char *text)
{
    bool any = false;
    for (; *text; text++, any = true)
        if (*text < '0' || *text > '9')
            return false;
    return any;
}

/* -n N meant --runs N before it meant hyperfine's --command-name: say so when it shows. */
static int check_names(const bench_settings *s, size_t n_commands, verdict_error *err)
{
    if (s->names.n == 0 || s->names.n == n_commands)
        return 0;
    bool numbers = false;
    for (size_t i = 0; i < s->names.n; i++)
        numbers |= all_digits(s->names.words[i]);
    error_set(err, ERROR_USAGE, "%zu --command-name (-n) for %zu commands: name every command or "
              "none%s", s->names.n, n_commands,
              numbers ? "; -n is hyperfine's --command-name now: for a number of runs write "
                        "-r N (--runs N)" : "");
    return -1;
}

static int check_consistency(const bench_settings *s, int argc, verdict_error *err)
{
    size_t n_commands = argc > s->first_command ? (size_t)(argc - s->first_command) : 0;
    if (n_commands < 2) {
        error_set(err, ERROR_USAGE, "give at least two commands to compare (see verdict --help)");
        return -1;
    }
    if (s->min_runs > s->max_runs) {
        error_set(err, ERROR_USAGE, "--min-runs %zu is larger than --max-runs %zu", s->min_runs,
                  s->max_runs);
        return -1;
    }
    if (s->runs > 0 && (s->looks || s->spending)) {
        error_set(err, ERROR_USAGE, "--%s plans adaptive looks, and --runs %zu a fixed count: "
                  "give one", s->looks ? "looks" : "spending", s->runs);
        return -1;
    }
    if (s->scan_step && !s->scan_name) {
        error_set(err, ERROR_USAGE, "--parameter-step-size needs --parameter-scan VAR MIN MAX");
        return -1;
    }
    if (s->show_output && s->output && strcmp(s->output, "inherit") != 0) {
        error_set(err, ERROR_USAGE, "--show-output and --output %s: give one", s->output);
        return -1;
    }
    return check_names(s, n_commands, err);
}

static const struct option long_options[] = {
    {"runs", required_argument, NULL, 'r'}, {"min-runs", required_argument, NULL, 'm'},
    {"max-runs", required_argument, NULL, 'M'}, {"max-time", required_argument, NULL, OPT_MAX_TIME},
    {"looks", required_argument, NULL, OPT_LOOKS},
    {"spending", required_argument, NULL, OPT_SPENDING},
    {"warmup", required_argument, NULL, 'w'}, {"prepare", required_argument, NULL, 'p'},
    {"conclude", required_argument, NULL, 'C'}, {"setup", required_argument, NULL, 's'},
    {"cleanup", required_argument, NULL, 'c'}, {"shell", required_argument, NULL, 'S'},
    {"timeout", required_argument, NULL, OPT_TIMEOUT},
    {"no-randomize-env", no_argument, NULL, OPT_NO_RANDOMIZE_ENV},
    {"pin", required_argument, NULL, OPT_PIN}, {"ignore-failure", no_argument, NULL, 'i'},
    {"command-name", required_argument, NULL, 'n'}, {"name", required_argument, NULL, 'n'},
    {"seed", required_argument, NULL, OPT_SEED}, {"metric", required_argument, NULL, OPT_METRIC},
    {"higher-is-better", no_argument, NULL, OPT_HIGHER},
    {"counters", required_argument, NULL, OPT_COUNTERS},
    {"store", required_argument, NULL, OPT_STORE}, {"input", required_argument, NULL, OPT_INPUT},
    {"output", required_argument, NULL, OPT_OUTPUT},
    {"show-output", no_argument, NULL, OPT_SHOW_OUTPUT},
    {"parameter-scan", required_argument, NULL, 'P'},
    {"parameter-step-size", required_argument, NULL, 'D'},
    {"parameter-list", required_argument, NULL, 'L'},
    {"export-json", required_argument, NULL, REPORT_OPT_JSON},
    {"export-csv", required_argument, NULL, REPORT_OPT_CSV},
    {"export-markdown", required_argument, NULL, REPORT_OPT_MARKDOWN}, REPORT_LONG_OPTIONS,
    {"help", no_argument, NULL, 'h'}, {"version", no_argument, NULL, 'V'}, {NULL, 0, NULL, 0},
};

/* -V is an option of its own here: walk_options knows only -h. */
static bool asks_version(int argc, char **argv)
{
    for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
        if (strcmp(argv[i], "-V") == 0 || strcmp(argv[i], "--version") == 0)
            return true;
    return false;
}

int bench_parse_args(int argc, char **argv, bench_settings *s, verdict_error *err)
{
    set_defaults(s, argc, argv);
    if (asks_version(argc, argv))
        return BENCH_VERSION;
    int first = walk_options(argc, argv, "r:m:M:w:p:C:s:c:S:NiP:D:L:n:h", long_options,
                             "verdict", apply_option, s, err);
    if (first == OPTIONS_HELP)
        return BENCH_HELP;
    if (first == OPTIONS_ERROR)
        return BENCH_ERROR;
    s->first_command = optind;
    if (s->scan_name && bench_parameter_scan(&s->parameters, s->scan_name, s->scan_min,
                                             s->scan_max, s->scan_step, err) != 0)
        return BENCH_ERROR;
    return check_consistency(s, argc, err) == 0 ? BENCH_PARSED : BENCH_ERROR;
}

void bench_settings_free(bench_settings *s)
{
    free(s->names.words);
    free(s->metric_specs.words);
    free(s->prepares.words);
    free(s->concludes.words);
    bench_parameters_free(&s->parameters);
    memset(&s->names, 0, sizeof s->names);
}
