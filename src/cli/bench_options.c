/* Parsing of the default command's options with getopt_long. Defaults live in
 * bench_defaults so that --help and the code cannot disagree. */
#include "cli/bench_options.h"

#include "env/proc_text.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_MIN_RUNS 10
#define DEFAULT_MAX_RUNS 100
#define DEFAULT_WARMUP 1

void bench_usage(FILE *out)
{
    fputs(
        "usage: verdict [OPTIONS] COMMAND COMMAND [COMMAND...]\n"
        "       verdict compare [OPTIONS] FILE FILE [FILE...]\n"
        "       verdict run EXPERIMENT.yaml [--store FILE]   run or resume an experiment file\n"
        "       verdict report STORE                       re-analyse a stored experiment\n"
        "       verdict kernel MODULE.so KERNEL KERNEL...   in-process benchmarks\n"
        "       verdict env [--json FILE]                  machine facts and noise checks\n"
        "\n"
        "Runs every COMMAND in interleaved randomized blocks (each once per block, in a\n"
        "seeded shuffled order) and compares each with the first, the baseline: a ratio\n"
        "with a confidence interval and a verdict (better, worse, equivalent within the\n"
        "margin, or inconclusive with the runs a decision would likely need).\n"
        "COMMANDs are split into words like a shell would and executed directly.\n"
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
        "measuring:\n"
        "      --metric M          wall (default), user, sys, cpu, maxrss, or NAME=/REGEX/\n"
        "                          (the first capture group of a line of stdout); repeatable\n"
        "      --higher-is-better  bigger is better for the metrics (throughput)\n"
        "analysing:\n"
        "      --confidence C      confidence level (default 0.95)\n"
        "      --margin M          equivalence margin (default 1%)\n"
        "      --method M          wilcoxon (default), welch or bootstrap\n"
        "      --adjust A          holm (default), bh or none, for several comparisons\n"
        "      --fail-if worse     exit 4 when a comparison is worse (a CI gate)\n"
        "output:\n"
        "      --json FILE         the verdict/1 JSON document ('-' for stdout)\n"
        "      --csv FILE          one row per sample\n"
        "      --markdown FILE     the verdict table as Markdown\n"
        "      --html FILE         a single-file HTML report with charts (works offline)\n"
        "  -h, --help              show this help\n"
        "\n"
        "Adaptive stopping analyses the data only at planned block counts (10, 15, 23, ...)\n"
        "and splits alpha equally between those looks, so stopping early keeps the error\n"
        "rates (docs/statistics.md).\n"
        "exit status: 0 done, 1 internal failure, 2 usage or bad input, 3 a command failed,\n"
        "4 --fail-if triggered, 130 interrupted (after reporting the complete blocks).\n",
        out);
}

int parse_duration(const char *option, const char *text, double *out, char *err, size_t errlen)
{
    char *end = NULL;
    errno = 0;
    double value = strtod(text, &end);
    double scale = -1;
    if (end != text && errno == 0) {
        if (*end == '\0' || strcmp(end, "s") == 0)
            scale = 1;
        else if (strcmp(end, "ms") == 0)
            scale = 1e-3;
        else if (strcmp(end, "m") == 0 || strcmp(end, "min") == 0)
            scale = 60;
        else if (strcmp(end, "h") == 0)
            scale = 3600;
    }
    if (scale < 0 || !(value > 0) || !isfinite(value)) {
        snprintf(err, errlen, "%s '%s': expected a positive duration such as 30s, 500ms, 5m", option,
                 text);
        return -1;
    }
    *out = value * scale;
    return 0;
}

/* The kernel's CPU-list syntax, parsed by env's parser; every CPU must be allowed to us. */
int parse_pin_option(const char *text, cpu_set_t *out, char *err, size_t errlen)
{
    int ids[CPU_SETSIZE];
    cpu_set_t allowed;
    CPU_ZERO(out);
    if (sched_getaffinity(0, sizeof allowed, &allowed) != 0)
        CPU_ZERO(&allowed);
    int n = parse_cpu_list(text, ids, CPU_SETSIZE);
    for (int i = 0; i < n && n <= CPU_SETSIZE; i++) {
        if (!CPU_ISSET(ids[i], &allowed)) {
            snprintf(err, errlen, "--pin '%s': CPU %d is not one verdict may run on", text, ids[i]);
            return -1;
        }
        CPU_SET(ids[i], out);
    }
    if (n > 0 && n <= CPU_SETSIZE)
        return 0;
    snprintf(err, errlen, "--pin '%s': expected a CPU list such as 0, 0-1 or 0,2", text);
    return -1;
}

static int parse_count(const char *option, const char *text, size_t *out, char *err, size_t errlen)
{
    int value;
    if (parse_positive_int(option, text, &value, err, errlen) != 0)
        return -1;
    *out = (size_t)value;
    return 0;
}

static int parse_warmup(const char *text, size_t *out, char *err, size_t errlen)
{
    if (strcmp(text, "0") == 0) {
        *out = 0;
        return 0;
    }
    return parse_count("--warmup", text, out, err, errlen);
}

enum {
    OPT_MIN_RUNS = 1000, OPT_MAX_RUNS, OPT_MAX_TIME, OPT_PREPARE, OPT_SETUP, OPT_CLEANUP,
    OPT_TIMEOUT, OPT_NO_RANDOMIZE_ENV, OPT_PIN, OPT_IGNORE_FAILURE, OPT_NAME, OPT_SEED,
    OPT_METRIC, OPT_HIGHER, OPT_CONFIDENCE, OPT_MARGIN, OPT_METHOD, OPT_ADJUST, OPT_FAIL_IF,
    OPT_JSON, OPT_CSV, OPT_MARKDOWN, OPT_HTML
};

static int apply_list_option(int opt, const char *arg, bench_settings *s, char *err, size_t errlen)
{
    if (opt == OPT_NAME) {
        if (s->n_names == BENCH_MAX_NAMES) {
            snprintf(err, errlen, "--name: at most %d names", BENCH_MAX_NAMES);
            return -1;
        }
        s->names[s->n_names++] = arg;
        return 0;
    }
    if (s->n_metric_specs == BENCH_MAX_METRIC_SPECS) {
        snprintf(err, errlen, "--metric: at most %d metrics", BENCH_MAX_METRIC_SPECS);
        return -1;
    }
    s->metric_specs[s->n_metric_specs++] = arg;
    return 0;
}

static int apply_option(int opt, const char *arg, void *settings, char *err, size_t errlen)
{
    bench_settings *s = settings;
    switch (opt) {
    case 'n': return parse_count("--runs", arg, &s->runs, err, errlen);
    case OPT_MIN_RUNS: return parse_count("--min-runs", arg, &s->min_runs, err, errlen);
    case OPT_MAX_RUNS: return parse_count("--max-runs", arg, &s->max_runs, err, errlen);
    case OPT_MAX_TIME: return parse_duration("--max-time", arg, &s->max_seconds, err, errlen);
    case 'w': return parse_warmup(arg, &s->warmup, err, errlen);
    case OPT_PREPARE: s->prepare = arg; return 0;
    case OPT_SETUP: s->setup = arg; return 0;
    case OPT_CLEANUP: s->cleanup = arg; return 0;
    case 'S': s->shell = true; return 0;
    case OPT_TIMEOUT: return parse_duration("--timeout", arg, &s->timeout, err, errlen);
    case OPT_NO_RANDOMIZE_ENV: s->randomize_env = false; return 0;
    case OPT_PIN: s->has_pin = true; return parse_pin_option(arg, &s->pin, err, errlen);
    case OPT_IGNORE_FAILURE: s->ignore_failure = true; return 0;
    case OPT_NAME:
    case OPT_METRIC: return apply_list_option(opt, arg, s, err, errlen);
    case OPT_SEED: s->has_seed = true; return parse_u64("--seed", arg, &s->seed, err, errlen);
    case OPT_HIGHER: s->higher_is_better = true; return 0;
    case OPT_CONFIDENCE: return parse_confidence(arg, &s->analysis.confidence, err, errlen);
    case OPT_MARGIN: return parse_margin(arg, &s->analysis.margin, err, errlen);
    case OPT_METHOD: return parse_method(arg, &s->analysis.method, err, errlen);
    case OPT_ADJUST: return parse_adjust(arg, &s->analysis.adjust, err, errlen);
    case OPT_FAIL_IF: return parse_fail_if(arg, &s->fail_if, err, errlen);
    case OPT_JSON: s->exports.json = arg; return 0;
    case OPT_CSV: s->exports.csv = arg; return 0;
    case OPT_MARKDOWN: s->exports.markdown = arg; return 0;
    case OPT_HTML: s->exports.html = arg; return 0;
    }
    snprintf(err, errlen, "unknown option (see verdict --help)");
    return -1;
}

static void set_defaults(bench_settings *s)
{
    memset(s, 0, sizeof *s);
    s->analysis = (analysis_options){.method = METHOD_WILCOXON, .paired = true,
                                     .confidence = 0.95, .margin = 0.01, .adjust = ADJUST_HOLM};
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
        {"confidence", required_argument, NULL, OPT_CONFIDENCE},
        {"margin", required_argument, NULL, OPT_MARGIN},
        {"method", required_argument, NULL, OPT_METHOD},
        {"adjust", required_argument, NULL, OPT_ADJUST},
        {"fail-if", required_argument, NULL, OPT_FAIL_IF},
        {"json", required_argument, NULL, OPT_JSON}, {"csv", required_argument, NULL, OPT_CSV},
        {"markdown", required_argument, NULL, OPT_MARKDOWN},
        {"html", required_argument, NULL, OPT_HTML},
        {"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0},
    };
    set_defaults(s);
    int first = walk_options(argc, argv, "+n:w:Sh", long_options, "verdict",
                             apply_option, s, err, errlen);
    if (first == OPTIONS_HELP)
        return 1;
    if (first == OPTIONS_ERROR)
        return -1;
    s->first_command = optind;
    return check_consistency(s, argc, err, errlen);
}
