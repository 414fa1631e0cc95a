/* `verdict kernel`: the module's named functions become an experiment of the kernel target
 * (one point per --sweep value), run and reported like any experiment; --list shows them. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/command_list.h"
#include "cli/commands.h"
#include "cli/experiment_run.h"
#include "cli/options.h"
#include "common/array.h"
#include "common/error.h"
#include "targets/kernel_module.h"
#include "targets/kernel_target.h"

#define DEFAULT_BLOCKS 30
#define DEFAULT_MIN_BLOCKS 10
#define DEFAULT_MAX_BLOCKS 100
#define DEFAULT_WARMUP 1
/* The defaults above as the help's text. */
#define STRINGIFY_(x) #x
#define STRINGIFY(x) STRINGIFY_(x)

typedef struct {
    kernel_line_spec spec;
    bool adaptive, list;
    const char *store_path;
    const char **metrics;         /* --metric, in order (owned array, borrowed names) */
    size_t n_metrics, metrics_capacity;
    report_choices report;
    int first_operand;            /* index of the module in argv */
} kernel_settings;

const char cmd_kernel_help[] =
    "usage: verdict kernel [OPTIONS] SO KERNEL KERNEL [KERNEL...]\n"
    "       verdict kernel --list SO\n"
    "\n"
    "Times functions of a shared object in-process (see include/verdict/kernel.h) and\n"
    "compares every KERNEL with the first, the baseline. Each kernel's batch size is\n"
    "calibrated so that one sample lasts about --sample-time; then every block takes one\n"
    "sample of each kernel, in a seeded shuffled order. Metrics: ns_per_call (lower is\n"
    "better) and, when the kernels process bytes, gbps (higher is better); or counters\n"
    "per call (--metric).\n"
    "\n"
    "running:\n"
    "      --arg TEXT          passed to every kernel's setup (e.g. a buffer size)\n"
    "      --sweep NAME=V1,V2  each value is a point of its own, passed to setup;\n"
    "                          points are called NAME=V1, NAME=V2, ...\n"
    "  -r, --runs N            N blocks per point (default " STRINGIFY(DEFAULT_BLOCKS) ")\n"
    "      --adaptive          stop a point once decided: looks at planned block counts\n"
    "      --min-runs N        adaptive: first look after N blocks (default "
    STRINGIFY(DEFAULT_MIN_BLOCKS) ")\n"
    "      --max-runs N        adaptive: at most N blocks per point (default "
    STRINGIFY(DEFAULT_MAX_BLOCKS) ")\n"
    "      --looks B,B,...     adaptive: look at these block counts (10,20,30,40,50)\n"
    "      --spending NAME     adaptive: pocock (default), obrien-fleming or equal\n"
    "      --sample-time T     calibration target per sample (default 10ms)\n"
    "      --iterations N      calls per sample, no calibration (e.g. 50000000)\n"
    "  -w, --warmup N          unmeasured samples of each kernel first (default "
    STRINGIFY(DEFAULT_WARMUP) ")\n"
    "      --metric NAME       ns_per_call, gbps, or a counter counted around each batch\n"
    "                          on verdict's thread, per call (instructions, task-clock\n"
    "                          in ns, page-faults; :u, :k, :uk; docs/metrics.md);\n"
    "                          repeat it for several (default: ns_per_call, gbps)\n"
    "      --counters HOW      how counters are read: perf only (kernels run inside\n"
    "                          verdict, never under valgrind)\n"
    "      --seed N            seed of the block orders (default: random, printed)\n"
    "      --store FILE        keep every sample in FILE as it is taken; the same command\n"
    "                          with the same store resumes (verdict report FILE reads it)\n"
    "      --list              list the module's kernels and exit\n"
    "@report-options\n"
    "  -h, --help              show this help\n"
    "\n"
    "exit status: 0 done, 1 internal failure, 2 usage or bad input (module, kernel or\n"
    "setup), 4 --fail-if triggered, 130 interrupted (after reporting complete blocks).\n";

/* ---- options ---- */

enum {
    OPT_ARG = 1000, OPT_SWEEP, OPT_ADAPTIVE, OPT_MIN_RUNS, OPT_MAX_RUNS, OPT_SAMPLE_TIME,
    OPT_ITERATIONS, OPT_SEED, OPT_LIST, OPT_STORE, OPT_LOOKS, OPT_SPENDING, OPT_METRIC,
    OPT_COUNTERS
};

static int add_metric(kernel_settings *s, const char *name, verdict_error *err)
{
    if (array_reserve((void **)&s->metrics, &s->metrics_capacity, s->n_metrics + 1,
                      sizeof *s->metrics) != 0)
        return error_no_memory(err);
    s->metrics[s->n_metrics++] = name;
    return 0;
}

static int parse_iterations(const char *text, uint64_t *out, verdict_error *err)
{
    if (parse_u64("--iterations", text, out, err) != 0)
        return -1;
    if (*out == 0) {
        error_set(err, ERROR_USAGE, "--iterations '%s': expected a positive integer", text);
        return -1;
    }
    return 0;
}

static int apply_option(int opt, const char *arg, void *settings, verdict_error *err)
{
    kernel_settings *s = settings;
    kernel_line_spec *k = &s->spec;
    switch (opt) {
    case OPT_ARG: k->arg = arg; return 0;
    case OPT_SWEEP: k->sweep = arg; return 0;
    case 'r': return parse_count("--runs", arg, false, &k->runs, err);
    case 'n': /* -n N was --runs N; hyperfine's -n names a command, which kernels have not */
        error_set(err, ERROR_USAGE, "-n %s: the number of blocks is -r N (--runs N), as in "
                  "hyperfine; -n no longer means it", arg);
        return -1;
    case OPT_ADAPTIVE: s->adaptive = true; return 0;
    case OPT_MIN_RUNS: return parse_count("--min-runs", arg, false, &k->min_runs, err);
    case OPT_MAX_RUNS: return parse_count("--max-runs", arg, false, &k->max_runs, err);
    case OPT_LOOKS: k->looks = arg; return 0;
    case OPT_SPENDING: k->spending = arg; return 0;
    case OPT_SAMPLE_TIME:
        return parse_duration("--sample-time", arg, &k->sample_seconds, err);
    case OPT_ITERATIONS: return parse_iterations(arg, &k->iterations, err);
    case 'w': return parse_count("--warmup", arg, true, &k->warmup, err);
    case OPT_SEED: k->has_seed = true; return parse_u64("--seed", arg, &k->seed, err);
    case OPT_LIST: s->list = true; return 0;
    case OPT_STORE: s->store_path = arg; return 0;
    case OPT_METRIC: return add_metric(s, arg, err);
    case OPT_COUNTERS: return parse_counters(arg, &k->counters, err);
    }
    int rc = report_choice_apply(&s->report, opt, arg, err);
    if (rc <= 0)
        return rc;
    error_set(err, ERROR_USAGE, "unknown option (see verdict kernel --help)");
    return -1;
}

static void set_defaults(kernel_settings *s)
{
    memset(s, 0, sizeof *s);
    s->spec.runs = DEFAULT_BLOCKS;
    s->spec.min_runs = DEFAULT_MIN_BLOCKS;
    s->spec.max_runs = DEFAULT_MAX_BLOCKS;
    s->spec.warmup = DEFAULT_WARMUP;
    s->spec.sample_seconds = KERNEL_DEFAULT_SAMPLE_SECONDS;
}

static int check_operands(const kernel_settings *s, int argc, verdict_error *err)
{
    int operands = argc - s->first_operand;
    if (s->list ? operands != 1 : operands < 3) {
        error_set(err, ERROR_USAGE,
                  s->list ? "--list takes the module only: verdict kernel "
                  "--list SO"
                                       : "give a module and at least two kernels to compare "
                                         "(see verdict kernel --help)");
        return -1;
    }
    if (s->spec.arg && s->spec.sweep) {
        error_set(err, ERROR_USAGE, "--arg and --sweep both set the setup argument: use one");
        return -1;
    }
    if (s->spec.min_runs > s->spec.max_runs) {
        error_set(err, ERROR_USAGE, "--min-runs %zu is larger than --max-runs %zu",
                  s->spec.min_runs, s->spec.max_runs);
        return -1;
    }
    if (!s->adaptive && (s->spec.looks || s->spec.spending))
        return error_set(err, ERROR_USAGE, "--%s plans adaptive looks: give --adaptive too",
                         s->spec.looks ? "looks" : "spending");
    return 0;
}

/* Returns 0 with settings, 1 after --help, -1 with a message. */
static int parse_kernel_args(int argc, char **argv, kernel_settings *s, verdict_error *err)
{
    static const struct option long_options[] = {
        {"arg", required_argument, NULL, OPT_ARG}, {"sweep", required_argument, NULL, OPT_SWEEP},
        {"runs", required_argument, NULL, 'r'}, {"adaptive", no_argument, NULL, OPT_ADAPTIVE},
        {"min-runs", required_argument, NULL, OPT_MIN_RUNS},
        {"max-runs", required_argument, NULL, OPT_MAX_RUNS},
        {"looks", required_argument, NULL, OPT_LOOKS},
        {"spending", required_argument, NULL, OPT_SPENDING},
        {"sample-time", required_argument, NULL, OPT_SAMPLE_TIME},
        {"iterations", required_argument, NULL, OPT_ITERATIONS},
        {"warmup", required_argument, NULL, 'w'}, {"seed", required_argument, NULL, OPT_SEED},
        {"list", no_argument, NULL, OPT_LIST}, {"store", required_argument, NULL, OPT_STORE},
        {"metric", required_argument, NULL, OPT_METRIC},
        {"counters", required_argument, NULL, OPT_COUNTERS},
        REPORT_LONG_OPTIONS, {"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0},
    };
    set_defaults(s);
    int first = walk_options(argc, argv, "r:n:w:h", long_options, "verdict kernel",
                             apply_option, s, err);
    if (first == OPTIONS_HELP)
        return 1;
    if (first == OPTIONS_ERROR)
        return -1;
    s->first_operand = optind;
    kernel_line_spec *k = &s->spec;
    if (s->adaptive)
        k->runs = 0;
    k->module = argv[optind];
    k->kernels = (const char *const *)argv + optind + 1;
    k->n_kernels = argc > optind ? (size_t)(argc - optind - 1) : 0;
    k->metrics = s->metrics;
    k->n_metrics = s->n_metrics;
    k->confidence = s->report.confidence_set ? s->report.confidence : 0.95;
    k->margin = s->report.margin_set ? s->report.margin : 0.01;
    return check_operands(s, argc, err);
}

/* ---- the summary: blocks, then the calls per sample each kernel got ---- */

typedef struct {
    FILE *out;
    char point[512];             /* the point of the line being printed */
} calls_printer;

/* One "point\tkernel\tcalls" line: a new point starts a new printed line. */
static void print_calls_line(calls_printer *p, const char *line, size_t length)
{
    const char *kernel = memchr(line, '\t', length);
    const char *calls = kernel ? memchr(kernel + 1, '\t', length - (size_t)(kernel + 1 - line))
                               : NULL;
    if (calls == NULL)
        return;
    int point_length = (int)(kernel - line);
    if ((int)strlen(p->point) != point_length || strncmp(p->point, line, (size_t)point_length)) {
        fprintf(p->out, "%s  %-14.*s", p->point[0] ? "\n" : "", point_length, line);
        snprintf(p->point, sizeof p->point, "%.*s", point_length, line);
    }
    fprintf(p->out, " %.*s %.*s", (int)(calls - kernel - 1), kernel + 1,
            (int)(length - (size_t)(calls + 1 - line)), calls + 1);
}

static int print_calls(void *context, const char *key, const char *value)
{
    calls_printer *p = context;
    if (strcmp(key, KERNEL_CALLS_FACT) != 0)
        return 0;
    fputs("calls per sample (calibrated, or --iterations):\n", p->out);
    p->point[0] = '\0';
    for (const char *line = value; *line;) {
        size_t length = strcspn(line, "\n");
        print_calls_line(p, line, length);
        line += length + (line[length] == '\n');
    }
    if (p->point[0])
        fputc('\n', p->out);
    return 0;
}

static void print_summary(const experiment *e, const lab_outcome *o, store *db,
                          int64_t experiment_id, FILE *out)
{
    const kernel_options *k = e->target_options;
    fprintf(out, "sample time %.3g ms; ", k->sample_seconds * 1e3);
    cli_print_run_summary(e, o, "kernels", out);
    calls_printer printer = {.out = out};
    verdict_error why = {0};
    store_for_each_fact(db, experiment_id, print_calls, &printer, &why);
}

/* ---- the command ---- */

static int list_kernels(const char *so)
{
    kernel_module *module;
    verdict_error err = {0};
    if (kernel_module_open(so, &module, &err) != 0) {
        fprintf(stderr, "verdict kernel: %s\n", err.message);
        return EXIT_USAGE;
    }
    for (size_t i = 0; i < kernel_module_count(module); i++) {
        const verdict_kernel *k = kernel_module_at(module, i);
        printf("%-16s %s", k->name, k->description ? k->description : "");
        if (k->bytes_per_call)
            printf(" (%llu bytes per call)", (unsigned long long)k->bytes_per_call);
        putchar('\n');
    }
    kernel_module_close(module);
    return EXIT_DONE;
}

static int run_kernels(const kernel_settings *s)
{
    experiment e;
    verdict_error err;
    int rc;
    if (kernel_experiment(&s->spec, &e, &err) != 0) {
        fprintf(stderr, "verdict kernel: %s\n", err.message);
        rc = error_exit_status(err.kind);
    } else {
        cli_run run = {.program = "verdict kernel", .e = &e,
                       .store_path = s->store_path ? s->store_path : ":memory:",
                       .report = &s->report, .summary = print_summary};
        rc = cli_run_experiment(&run);
    }
    experiment_free(&e);
    return rc;
}

int cmd_kernel(int argc, char **argv)
{
    kernel_settings settings;
    verdict_error err = {0};
    int parsed = parse_kernel_args(argc, argv, &settings, &err);
    int rc;
    if (parsed == 1) {
        cli_help_write(cmd_kernel_help, stdout);
        rc = EXIT_DONE;
    } else if (parsed != 0) {
        fprintf(stderr, "verdict kernel: %s\n", err.message);
        rc = EXIT_USAGE;
    } else {
        rc = settings.list ? list_kernels(argv[settings.first_operand])
                           : run_kernels(&settings);
    }
    free(settings.metrics);
    return rc;
}
