/* `verdict kernel`: loads a module of kernels, times the named ones in-process in
 * interleaved blocks (optionally across a sweep), then reports like the other commands. */
#include "cli/cmd_kernel.h"

#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/bench_options.h"
#include "cli/options.h"
#include "cli/stop_signal.h"
#include "core/kernel_runner.h"
#include "report/report.h"


#define MAX_KERNELS 64
#define MAX_POINTS 256
#define DEFAULT_BLOCKS 30
#define DEFAULT_MIN_BLOCKS 10
#define DEFAULT_MAX_BLOCKS 100
#define DEFAULT_WARMUP 1
#define DEFAULT_SAMPLE_SECONDS 0.010

typedef struct {
    analysis_options analysis;
    size_t blocks, min_blocks, max_blocks, warmup;
    bool adaptive, list, has_seed;
    double sample_seconds;
    uint64_t iterations, seed;
    const char *arg, *sweep;
    report_exports exports;
    fail_if_rule fail_if;
    int first_operand;            /* index of SO in argv */
} kernel_settings;

static void kernel_usage(FILE *out)
{
    fputs(
        "usage: verdict kernel [OPTIONS] SO KERNEL KERNEL [KERNEL...]\n"
        "       verdict kernel --list SO\n"
        "\n"
        "Times functions of a shared object in-process (see include/verdict/kernel.h) and\n"
        "compares every KERNEL with the first, the baseline. Each kernel's batch size is\n"
        "calibrated so that one sample lasts about --sample-time; then every block takes one\n"
        "sample of each kernel, in a seeded shuffled order. Metrics: ns_per_call (lower is\n"
        "better) and, when the kernels process bytes, gbps (higher is better).\n"
        "\n"
        "running:\n"
        "      --arg TEXT          passed to every kernel's setup (e.g. a buffer size)\n"
        "      --sweep NAME=V1,V2  each value is a point of its own, passed to setup;\n"
        "                          points are called NAME=V1, NAME=V2, ...\n"
        "  -n, --runs N            N blocks per point (default 30)\n"
        "      --adaptive          stop a point once decided: looks at planned block counts\n"
        "      --min-runs N        adaptive: first look after N blocks (default 10)\n"
        "      --max-runs N        adaptive: at most N blocks per point (default 100)\n"
        "      --sample-time T     calibration target per sample (default 10ms)\n"
        "      --iterations N      calls per sample, no calibration (e.g. 50000000)\n"
        "  -w, --warmup N          unmeasured samples of each kernel first (default 1)\n"
        "      --seed N            seed of the block orders (default: random, printed)\n"
        "      --list              list the module's kernels and exit\n"
        "analysing:\n"
        "      --confidence C      confidence level (default 0.95)\n"
        "      --margin M          equivalence margin (default 1%)\n"
        "      --method M          wilcoxon (default, signed-rank on blocks), welch, bootstrap\n"
        "      --adjust A          holm (default), bh or none, for several comparisons\n"
        "      --fail-if worse     exit 4 when a comparison is worse (a CI gate)\n"
        "output:\n"
        "      --json FILE         the verdict/1 JSON document ('-' for stdout)\n"
        "      --csv FILE          one row per sample\n"
        "      --markdown FILE     the verdict table as Markdown\n"
        "  -h, --help              show this help\n"
        "\n"
        "exit status: 0 done, 1 internal failure, 2 usage or bad input (module, kernel or\n"
        "setup), 4 --fail-if triggered, 130 interrupted (after reporting complete blocks).\n",
        out);
}

/* ---- options ---------------------------------------------------------------------- */

enum {
    OPT_ARG = 1000, OPT_SWEEP, OPT_ADAPTIVE, OPT_MIN_RUNS, OPT_MAX_RUNS, OPT_SAMPLE_TIME,
    OPT_ITERATIONS, OPT_SEED, OPT_LIST, OPT_CONFIDENCE, OPT_MARGIN, OPT_METHOD, OPT_ADJUST,
    OPT_FAIL_IF, OPT_JSON, OPT_CSV, OPT_MARKDOWN
};

static int parse_size(const char *option, const char *text, size_t *out, char *err, size_t errlen)
{
    int value;
    if (parse_positive_int(option, text, &value, err, errlen) != 0)
        return -1;
    *out = (size_t)value;
    return 0;
}

static int parse_warmup_count(const char *text, size_t *out, char *err, size_t errlen)
{
    if (strcmp(text, "0") == 0) {
        *out = 0;
        return 0;
    }
    return parse_size("--warmup", text, out, err, errlen);
}

static int parse_iterations(const char *text, uint64_t *out, char *err, size_t errlen)
{
    if (parse_u64("--iterations", text, out, err, errlen) != 0)
        return -1;
    if (*out == 0) {
        snprintf(err, errlen, "--iterations '%s': expected a positive integer", text);
        return -1;
    }
    return 0;
}

static int apply_option(int opt, const char *arg, void *settings, char *err, size_t errlen)
{
    kernel_settings *s = settings;
    switch (opt) {
    case OPT_ARG: s->arg = arg; return 0;
    case OPT_SWEEP: s->sweep = arg; return 0;
    case 'n': return parse_size("--runs", arg, &s->blocks, err, errlen);
    case OPT_ADAPTIVE: s->adaptive = true; return 0;
    case OPT_MIN_RUNS: return parse_size("--min-runs", arg, &s->min_blocks, err, errlen);
    case OPT_MAX_RUNS: return parse_size("--max-runs", arg, &s->max_blocks, err, errlen);
    case OPT_SAMPLE_TIME: return parse_duration("--sample-time", arg, &s->sample_seconds, err, errlen);
    case OPT_ITERATIONS: return parse_iterations(arg, &s->iterations, err, errlen);
    case 'w': return parse_warmup_count(arg, &s->warmup, err, errlen);
    case OPT_SEED: s->has_seed = true; return parse_u64("--seed", arg, &s->seed, err, errlen);
    case OPT_LIST: s->list = true; return 0;
    case OPT_CONFIDENCE: return parse_confidence(arg, &s->analysis.confidence, err, errlen);
    case OPT_MARGIN: return parse_margin(arg, &s->analysis.margin, err, errlen);
    case OPT_METHOD: return parse_method(arg, &s->analysis.method, err, errlen);
    case OPT_ADJUST: return parse_adjust(arg, &s->analysis.adjust, err, errlen);
    case OPT_FAIL_IF: return parse_fail_if(arg, &s->fail_if, err, errlen);
    case OPT_JSON: s->exports.json = arg; return 0;
    case OPT_CSV: s->exports.csv = arg; return 0;
    case OPT_MARKDOWN: s->exports.markdown = arg; return 0;
    }
    snprintf(err, errlen, "unknown option (see verdict kernel --help)");
    return -1;
}

static void set_defaults(kernel_settings *s)
{
    memset(s, 0, sizeof *s);
    s->analysis = (analysis_options){.method = METHOD_WILCOXON, .paired = true,
                                     .confidence = 0.95, .margin = 0.01, .adjust = ADJUST_HOLM};
    s->blocks = DEFAULT_BLOCKS;
    s->min_blocks = DEFAULT_MIN_BLOCKS;
    s->max_blocks = DEFAULT_MAX_BLOCKS;
    s->warmup = DEFAULT_WARMUP;
    s->sample_seconds = DEFAULT_SAMPLE_SECONDS;
}

static int check_operands(const kernel_settings *s, int argc, char *err, size_t errlen)
{
    int operands = argc - s->first_operand;
    if (s->list ? operands != 1 : operands < 3) {
        snprintf(err, errlen, s->list ? "--list takes the module only: verdict kernel --list SO"
                                      : "give a module and at least two kernels to compare "
                                        "(see verdict kernel --help)");
        return -1;
    }
    if (operands - 1 > MAX_KERNELS) {
        snprintf(err, errlen, "at most %d kernels", MAX_KERNELS);
        return -1;
    }
    if (s->arg && s->sweep) {
        snprintf(err, errlen, "--arg and --sweep both set the setup argument: use one");
        return -1;
    }
    if (s->min_blocks > s->max_blocks) {
        snprintf(err, errlen, "--min-runs %zu is larger than --max-runs %zu", s->min_blocks,
                 s->max_blocks);
        return -1;
    }
    return 0;
}

/* Returns 0 with settings, 1 after --help, -1 with a message. */
static int parse_kernel_args(int argc, char **argv, kernel_settings *s, char *err, size_t errlen)
{
    static const struct option long_options[] = {
        {"arg", required_argument, NULL, OPT_ARG}, {"sweep", required_argument, NULL, OPT_SWEEP},
        {"runs", required_argument, NULL, 'n'}, {"adaptive", no_argument, NULL, OPT_ADAPTIVE},
        {"min-runs", required_argument, NULL, OPT_MIN_RUNS},
        {"max-runs", required_argument, NULL, OPT_MAX_RUNS},
        {"sample-time", required_argument, NULL, OPT_SAMPLE_TIME},
        {"iterations", required_argument, NULL, OPT_ITERATIONS},
        {"warmup", required_argument, NULL, 'w'}, {"seed", required_argument, NULL, OPT_SEED},
        {"list", no_argument, NULL, OPT_LIST},
        {"confidence", required_argument, NULL, OPT_CONFIDENCE},
        {"margin", required_argument, NULL, OPT_MARGIN},
        {"method", required_argument, NULL, OPT_METHOD},
        {"adjust", required_argument, NULL, OPT_ADJUST},
        {"fail-if", required_argument, NULL, OPT_FAIL_IF},
        {"json", required_argument, NULL, OPT_JSON}, {"csv", required_argument, NULL, OPT_CSV},
        {"markdown", required_argument, NULL, OPT_MARKDOWN},
        {"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0},
    };
    set_defaults(s);
    int first = walk_options(argc, argv, "+n:w:h", long_options, "verdict kernel",
                             apply_option, s, err, errlen);
    if (first == OPTIONS_HELP)
        return 1;
    if (first == OPTIONS_ERROR)
        return -1;
    s->first_operand = optind;
    return check_operands(s, argc, err, errlen);
}

/* ---- the experiment: kernels and points ------------------------------------------- */

typedef struct {
    kernel_module *module;
    const verdict_kernel *kernels[MAX_KERNELS];
    char *kernel_names[MAX_KERNELS];
    size_t n_kernels;
    char *sweep_copy;              /* --sweep split in place: name, then values */
    const char *param_name;
    const char *point_args[MAX_POINTS];
    char *point_ids[MAX_POINTS];
    size_t n_points;
    kernel_config config;
} kernel_model;

/* Repeated kernels get "#2", "#3" so that reports can tell them apart (an A/A check). */
static char *kernel_display_name(char **names, size_t i)
{
    size_t same = 0;
    for (size_t j = 0; j < i; j++)
        same += strcmp(names[j], names[i]) == 0;
    size_t length = strlen(names[i]) + 16;
    char *name = malloc(length);
    if (name)
        snprintf(name, length, same ? "%s#%zu" : "%s", names[i], same + 1);
    return name;
}

static int resolve_kernels(kernel_model *m, char **names, size_t n, char *err, size_t errlen)
{
    for (size_t i = 0; i < n; i++) {
        m->kernels[i] = kernel_module_find(m->module, names[i], err, errlen);
        if (m->kernels[i] == NULL)
            return -1;
        m->kernel_names[i] = kernel_display_name(names, i);
        m->n_kernels++;
        if (m->kernel_names[i] == NULL) {
            snprintf(err, errlen, "out of memory");
            return -1;
        }
    }
    return 0;
}

static int add_point(kernel_model *m, const char *id, const char *arg, char *err, size_t errlen)
{
    if (m->n_points == MAX_POINTS) {
        snprintf(err, errlen, "--sweep: at most %d values", MAX_POINTS);
        return -1;
    }
    m->point_ids[m->n_points] = strdup(id);
    m->point_args[m->n_points] = arg;
    if (m->point_ids[m->n_points++] == NULL) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    return 0;
}

/* "size=64,256" becomes points "size=64" and "size=256" with setup args "64" and "256". */
static int parse_sweep(kernel_model *m, const char *sweep, char *err, size_t errlen)
{
    char *equals = strchr(sweep, '=');
    if (equals == NULL || equals == sweep || equals[1] == '\0') {
        snprintf(err, errlen, "--sweep '%s': expected NAME=V1,V2,...", sweep);
        return -1;
    }
    if ((m->sweep_copy = strdup(sweep)) == NULL) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    char *values = m->sweep_copy + (equals - sweep);
    *values++ = '\0';
    m->param_name = m->sweep_copy;
    for (char *value = values, *next; value; value = next) {
        if ((next = strchr(value, ',')) != NULL)
            *next++ = '\0';
        char id[512];
        snprintf(id, sizeof id, "%s=%s", m->param_name, value);
        if (*value == '\0') {
            snprintf(err, errlen, "--sweep '%s': empty value", sweep);
            return -1;
        }
        if (add_point(m, id, value, err, errlen) != 0)
            return -1;
    }
    return 0;
}

static uint64_t fresh_seed(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return ((uint64_t)ts.tv_sec * 1000003u ^ (uint64_t)ts.tv_nsec ^ ((uint64_t)getpid() << 32)) %
           1000000000u;
}

static void fill_config(kernel_settings *s, kernel_model *m)
{
    if (!s->has_seed)
        s->seed = fresh_seed();
    s->analysis.seed = s->seed;
    m->config = (kernel_config){
        .kernels = m->kernels, .kernel_names = (const char *const *)m->kernel_names,
        .n_kernels = m->n_kernels, .point_args = m->point_args,
        .point_ids = (const char *const *)m->point_ids, .n_points = m->n_points,
        .sample_seconds = s->sample_seconds, .fixed_iterations = s->iterations,
        .warmup = s->warmup, .adaptive = s->adaptive, .blocks = s->blocks,
        .stopping = {s->min_blocks, s->max_blocks, 1.5}, .seed = s->seed,
        .analysis = s->analysis};
}

static int build_model(kernel_settings *s, int argc, char **argv, kernel_model *m, char *err,
                       size_t errlen)
{
    const char *so = argv[s->first_operand];
    if (kernel_module_open(so, &m->module, err, errlen) != 0 ||
        resolve_kernels(m, argv + s->first_operand + 1, (size_t)(argc - s->first_operand - 1), err,
                        errlen) != 0)
        return -1;
    if (s->sweep ? parse_sweep(m, s->sweep, err, errlen) != 0
                 : add_point(m, "default", s->arg, err, errlen) != 0)
        return -1;
    fill_config(s, m);
    return 0;
}

static void kernel_model_free(kernel_model *m)
{
    for (size_t i = 0; i < m->n_kernels; i++)
        free(m->kernel_names[i]);
    for (size_t i = 0; i < m->n_points; i++)
        free(m->point_ids[i]);
    free(m->sweep_copy);
    kernel_module_close(m->module);
}

/* ---- the report ------------------------------------------------------------------- */

static const char *const sample_metric_names[] = {"ns_per_call", "gbps", "iterations", "seconds"};
#define N_SAMPLE_METRICS 4

typedef struct {
    report_variant variants[MAX_KERNELS];
    const char *variant_argv[MAX_KERNELS][2];
    report_point points[MAX_POINTS];
    const char *param_values[MAX_POINTS];
    report_sample *samples;
    double *sample_values;
    analysis_series *series;
    double *series_values;
    size_t n_series, n_analysed_points;
} kernel_report_model;

static void fill_variants_and_points(const kernel_settings *s, const char *so, kernel_model *m,
                                     kernel_report_model *r)
{
    for (size_t k = 0; k < m->n_kernels; k++) {
        r->variant_argv[k][0] = so;
        r->variant_argv[k][1] = m->kernels[k]->name;
        r->variants[k] = (report_variant){.name = m->kernel_names[k], .argv = r->variant_argv[k],
                                          .argc = 2};
    }
    for (size_t p = 0; p < m->n_points; p++) {
        r->param_values[p] = m->point_args[p];
        bool has_param = s->sweep != NULL;
        r->points[p] = (report_point){.id = m->point_ids[p],
                                      .param_names = has_param ? &m->param_name : NULL,
                                      .param_values = has_param ? &r->param_values[p] : NULL,
                                      .n_params = has_param ? 1 : 0};
    }
}

static void fill_samples(const kernel_model *m, const kernel_outcome *o, kernel_report_model *r)
{
    for (size_t i = 0; i < o->n_samples; i++) {
        const kernel_sample *s = &o->samples[i];
        double *values = r->sample_values + i * N_SAMPLE_METRICS;
        values[0] = kernel_sample_value(&m->config, o, s, KERNEL_NS_PER_CALL);
        values[1] = kernel_sample_value(&m->config, o, s, KERNEL_GBPS);
        values[2] = (double)s->iterations;
        values[3] = s->seconds;
        r->samples[i] = (report_sample){
            .variant = m->kernel_names[s->kernel], .point = m->point_ids[s->point],
            .block = s->block, .seq = s->seq, .metric_names = sample_metric_names,
            .metric_values = values, .n_metrics = N_SAMPLE_METRICS, .started = s->started,
            .tainted = s->tainted, .taint_reason = s->tainted ? "preempted" : NULL,
            .steal = NAN, .other_busy = NAN, .load1 = NAN, .has_interference = true};
    }
}

/* Points with at least two complete blocks are analysed; the others have nothing to say. */
static void fill_series(const kernel_model *m, const kernel_outcome *o, kernel_report_model *r)
{
    double *values = r->series_values;
    for (size_t p = 0; p < m->n_points; p++) {
        size_t blocks = o->complete_blocks[p];
        if (blocks < 2)
            continue;
        size_t n = kernel_point_series(&m->config, o, p, values, r->series + r->n_series);
        r->n_series += n;
        values += n * blocks;
        r->n_analysed_points++;
    }
}

static int build_report_model(const kernel_settings *s, const char *so, kernel_model *m,
                              const kernel_outcome *o, kernel_report_model *r)
{
    memset(r, 0, sizeof *r);
    size_t total_blocks = 0;
    for (size_t p = 0; p < m->n_points; p++)
        total_blocks += o->complete_blocks[p];
    size_t per_point = KERNEL_N_METRICS * m->n_kernels;
    r->samples = calloc(o->n_samples + 1, sizeof *r->samples);
    r->sample_values = calloc((o->n_samples + 1) * N_SAMPLE_METRICS, sizeof *r->sample_values);
    r->series = calloc(per_point * m->n_points, sizeof *r->series);
    r->series_values = calloc(per_point * (total_blocks + 1), sizeof *r->series_values);
    if (!r->samples || !r->sample_values || !r->series || !r->series_values)
        return -1;
    fill_variants_and_points(s, so, m, r);
    fill_samples(m, o, r);
    fill_series(m, o, r);
    return 0;
}

static void kernel_report_model_free(kernel_report_model *r)
{
    free(r->samples);
    free(r->sample_values);
    free(r->series);
    free(r->series_values);
}

static int warn(analysis_result *a, const char *code, const char *point, const char *variant,
                const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static int warn(analysis_result *a, const char *code, const char *point, const char *variant,
                const char *fmt, ...)
{
    char message[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(message, sizeof message, fmt, ap);
    va_end(ap);
    return analysis_add_warning(a, code, point, variant, message);
}

/* Warnings only the runner can give: calls longer than a sample, and early ends. */
static int add_runner_warnings(const kernel_settings *s, const kernel_model *m,
                               const kernel_outcome *o, analysis_result *a)
{
    int rc = 0;
    for (size_t p = 0; p < o->points_started; p++)
        for (size_t k = 0; k < m->n_kernels; k++) {
            const kernel_calibration *c = &o->settings[p * m->n_kernels + k].calibration;
            if (c->single_call_too_long)
                rc |= warn(a, "long-call", m->point_ids[p], m->kernel_names[k],
                           "%s: one call takes %.3g ms, longer than --sample-time %.3g ms; each "
                           "sample is one call",
                           m->kernel_names[k], c->seconds * 1e3, s->sample_seconds * 1e3);
        }
    size_t tainted = 0;
    for (size_t i = 0; i < o->n_samples; i++)
        tainted += o->samples[i].tainted;
    if (o->retakes)
        rc |= warn(a, "retaken", "", "",
                   "%zu samples lost more than %.0f%% of their time off the CPU (another process "
                   "or the hypervisor ran) and were taken again; %zu stayed preempted after %d "
                   "tries and are kept, marked tainted",
                   o->retakes, KERNEL_MAX_OFF_CPU * 100, tainted, KERNEL_MAX_RETAKES);
    if (o->budget_spent)
        rc |= warn(a, "budget-spent", "", "", "some point was not decided within %zu blocks",
                   s->max_blocks);
    if (o->status == KERNEL_INTERRUPTED)
        rc |= warn(a, "interrupted", "", "",
                   "interrupted: the analysis covers the complete blocks of %zu of %zu points",
                   o->points_started, m->n_points);
    return rc;
}

static void print_calibration(const kernel_model *m, const kernel_outcome *o, FILE *out)
{
    fputs("calls per sample (calibrated, or --iterations):\n", out);
    for (size_t p = 0; p < o->points_started; p++) {
        fprintf(out, "  %-14s", m->point_ids[p]);
        for (size_t k = 0; k < m->n_kernels; k++)
            fprintf(out, " %s %llu", m->kernel_names[k],
                    (unsigned long long)o->settings[p * m->n_kernels + k].iterations);
        fputc('\n', out);
    }
}

static void print_run_summary(const kernel_settings *s, const kernel_model *m,
                              const kernel_outcome *o, FILE *out)
{
    size_t blocks = 0;
    for (size_t p = 0; p < m->n_points; p++)
        blocks += o->complete_blocks[p];
    fprintf(out, "%zu blocks of %zu kernels over %zu point%s in %.1f s (seed %llu, sample time "
                 "%.3g ms",
            blocks, m->n_kernels, m->n_points, m->n_points == 1 ? "" : "s", o->elapsed,
            (unsigned long long)s->seed, s->sample_seconds * 1e3);
    if (s->adaptive)
        fprintf(out, "; adaptive: %zu looks in all, each at %.4g%% confidence", o->looks_taken,
                o->look_confidence * 100);
    fputs(")\n", out);
    print_calibration(m, o, out);
}

static int analyse_and_write(const kernel_settings *s, const kernel_model *m,
                             const kernel_outcome *o, const kernel_report_model *r, FILE *out,
                             char *err, size_t errlen)
{
    analysis_result a;
    analysis_options options = s->analysis;
    options.confidence = o->look_confidence;
    if (analysis_run(r->series, r->n_series, &options, &a, err, errlen) != 0 ||
        add_runner_warnings(s, m, o, &a) != 0)
        return EXIT_INTERNAL;
    report_input in = {
        .experiment_name = "kernel", .seed = s->seed, .has_seed = true, .options = &s->analysis,
        .variants = r->variants, .n_variants = m->n_kernels, .points = r->points,
        .n_points = m->n_points, .samples = r->samples, .n_samples = o->n_samples,
        .series = r->series, .n_series = r->n_series, .analysis = &a,
        .looks = s->adaptive ? stopping_looks(&m->config.stopping) : 0};
    print_run_summary(s, m, o, out);
    report_write_text(&in, out);
    int rc = EXIT_DONE;
    if (report_write_exports(&in, &s->exports, err, errlen) != 0)
        rc = EXIT_INTERNAL;
    else if (fail_if_triggered(s->fail_if, &a))
        rc = EXIT_GATE;
    analysis_result_free(&a);
    return rc;
}

static int report_outcome(const kernel_settings *s, const char *so, kernel_model *m,
                          const kernel_outcome *o, char *err, size_t errlen)
{
    kernel_report_model r;
    FILE *out = s->exports.json && strcmp(s->exports.json, "-") == 0 ? stderr : stdout;
    int rc = EXIT_DONE;
    if (build_report_model(s, so, m, o, &r) != 0) {
        snprintf(err, errlen, "out of memory");
        rc = EXIT_INTERNAL;
    } else if (r.n_analysed_points == 0) {
        fprintf(out, "no point has two complete blocks: nothing to analyse\n");
    } else {
        rc = analyse_and_write(s, m, o, &r, out, err, errlen);
    }
    kernel_report_model_free(&r);
    return rc;
}

/* ---- running ---------------------------------------------------------------------- */

/* A progress line redrawn in place, only on a terminal. */
static void show_progress(void *context, const kernel_progress *p)
{
    const kernel_model *m = context;
    fprintf(stderr, "\r\033[K%s: block %zu/%zu (point %zu of %zu, %.1f s)",
            m->point_ids[p->points_done], p->blocks_done, p->blocks_planned, p->points_done + 1,
            p->n_points, p->elapsed);
    fflush(stderr);
}

static int run_and_report(const kernel_settings *s, const char *so, kernel_model *m, char *err,
                          size_t errlen)
{
    kernel_outcome outcome;
    bool progress = isatty(STDERR_FILENO);
    if (progress) {
        m->config.progress = show_progress;
        m->config.progress_context = m;
    }
    stop_signal_install();
    int rc = kernel_run(&m->config, stop_signal_flag(), &outcome, err, errlen);
    if (progress)
        fputs("\r\033[K", stderr);
    if (rc != 0) {
        kernel_outcome_free(&outcome);
        return EXIT_USAGE; /* a setup refused its argument, or memory ran out */
    }
    rc = report_outcome(s, so, m, &outcome, err, errlen);
    if (rc == EXIT_DONE && outcome.status == KERNEL_INTERRUPTED)
        rc = EXIT_INTERRUPTED;
    kernel_outcome_free(&outcome);
    return rc;
}

static int list_kernels(const char *so, char *err, size_t errlen)
{
    kernel_module *module;
    if (kernel_module_open(so, &module, err, errlen) != 0)
        return EXIT_USAGE;
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

int cmd_kernel(int argc, char **argv)
{
    kernel_settings settings;
    kernel_model model;
    char err[1024] = "";
    memset(&model, 0, sizeof model);
    int parsed = parse_kernel_args(argc, argv, &settings, err, sizeof err);
    if (parsed == 1) {
        kernel_usage(stdout);
        return EXIT_DONE;
    }
    int rc = EXIT_USAGE;
    if (parsed == 0 && settings.list)
        rc = list_kernels(argv[settings.first_operand], err, sizeof err);
    else if (parsed == 0 && build_model(&settings, argc, argv, &model, err, sizeof err) == 0)
        rc = run_and_report(&settings, argv[settings.first_operand], &model, err, sizeof err);
    if ((rc == EXIT_USAGE || rc == EXIT_INTERNAL) && err[0])
        fprintf(stderr, "verdict kernel: %s\n", err);
    kernel_model_free(&model);
    return rc;
}
