/* The default command: builds the variants from COMMAND words, runs the session with a
 * progress line, then analyses the complete blocks, prints the report and writes exports. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/bench_options.h"
#include "cli/commands.h"
#include "cli/progress.h"
#include "cli/stop_signal.h"
#include "core/session.h"
#include "report/report.h"


#define TOO_SHORT_SECONDS 0.005
#define MAX_VARIANTS 64

/* Everything built from the settings; released by bench_model_free. */
typedef struct {
    session_variant variants[MAX_VARIANTS];
    size_t n_variants;
    metric_def metrics[SESSION_MAX_METRICS];
    size_t n_metrics;
    session_config config;
} bench_model;

static int split_command(const char *line, bool shell, command_words *out, char *err, size_t errlen)
{
    if (!shell)
        return command_words_split(line, out, err, errlen);
    const char *words[] = {"/bin/sh", "-c", line};
    if (command_words_copy(words, 3, out) != 0) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    return 0;
}

static int build_helper(const char *line, bool shell, command_words *out, const char *option,
                        char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (line == NULL)
        return 0;
    char why[256];
    if (split_command(line, shell, out, why, sizeof why) != 0 ||
        runner_check_executable(NULL, out->words[0], why, sizeof why) != 0) {
        snprintf(err, errlen, "%s: %s", option, why);
        return -1;
    }
    return 0;
}

/* Names are the command lines unless given; repeated lines get "#2", "#3". */
static char *variant_name(const bench_settings *s, char **commands, size_t i)
{
    if (s->n_names)
        return strdup(s->names[i]);
    size_t same = 0;
    for (size_t j = 0; j < i; j++)
        same += strcmp(commands[j], commands[i]) == 0;
    if (same == 0)
        return strdup(commands[i]);
    size_t length = strlen(commands[i]) + 16;
    char *name = malloc(length);
    if (name)
        snprintf(name, length, "%s #%zu", commands[i], same + 1);
    return name;
}

static int build_variants(const bench_settings *s, char **commands, size_t n, bench_model *m,
                          char *err, size_t errlen)
{
    if (n > MAX_VARIANTS) {
        snprintf(err, errlen, "at most %d commands", MAX_VARIANTS);
        return -1;
    }
    for (size_t i = 0; i < n; i++, m->n_variants++) {
        session_variant *v = &m->variants[i];
        char why[512];
        v->line = strdup(commands[i]);
        v->name = variant_name(s, commands, i);
        if (v->line == NULL || v->name == NULL ||
            split_command(commands[i], s->shell, &v->argv, why, sizeof why) != 0 ||
            runner_check_executable(NULL, v->argv.words[0], why, sizeof why) != 0) {
            snprintf(err, errlen, "command %zu (%s): %s", i + 1, commands[i],
                     v->line ? why : "out of memory");
            m->n_variants++;
            return -1;
        }
    }
    return 0;
}

static int build_metrics(const bench_settings *s, bench_model *m, char *err, size_t errlen)
{
    const char *default_spec[] = {"wall"};
    const char *const *specs = s->n_metric_specs ? s->metric_specs : default_spec;
    size_t n = s->n_metric_specs ? s->n_metric_specs : 1;
    for (size_t i = 0; i < n; i++, m->n_metrics++) {
        if (metric_parse(specs[i], &m->metrics[i], err, errlen) != 0)
            return -1;
        m->metrics[i].higher_is_better = s->higher_is_better;
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

static int build_model(bench_settings *s, int argc, char **argv, bench_model *m,
                       progress_line *progress, char *err, size_t errlen)
{
    size_t n = (size_t)(argc - s->first_command);
    if (build_variants(s, argv + s->first_command, n, m, err, errlen) != 0 ||
        build_metrics(s, m, err, errlen) != 0)
        return -1;
    session_config *c = &m->config;
    if (build_helper(s->prepare, s->shell, &c->prepare, "--prepare", err, errlen) != 0 ||
        build_helper(s->setup, s->shell, &c->setup, "--setup", err, errlen) != 0 ||
        build_helper(s->cleanup, s->shell, &c->cleanup, "--cleanup", err, errlen) != 0)
        return -1;
    if (!s->has_seed)
        s->seed = fresh_seed();
    s->analysis.seed = s->seed;
    c->variants = m->variants;
    c->n_variants = m->n_variants;
    c->metrics = m->metrics;
    c->n_metrics = m->n_metrics;
    c->warmup = s->warmup;
    c->adaptive = s->runs == 0;
    c->runs = s->runs;
    c->stopping = (stopping_rule){s->min_runs, s->max_runs, 1.5};
    c->max_seconds = s->max_seconds;
    c->seed = s->seed;
    c->point_id = "default";
    c->timeout = s->timeout;
    c->randomize_env = s->randomize_env;
    c->pin = s->has_pin ? &s->pin : NULL;
    c->ignore_failure = s->ignore_failure;
    c->analysis = s->analysis;
    c->progress = progress_update;
    c->progress_context = progress;
    return 0;
}

static void bench_model_free(bench_model *m)
{
    for (size_t i = 0; i < m->n_variants; i++) {
        free(m->variants[i].name);
        free(m->variants[i].line);
        command_words_free(&m->variants[i].argv);
    }
    for (size_t i = 0; i < m->n_metrics; i++)
        metric_free(&m->metrics[i]);
    command_words_free(&m->config.prepare);
    command_words_free(&m->config.setup);
    command_words_free(&m->config.cleanup);
}

/* The report's view of the session: variants, samples with all their readings, series. */
typedef struct {
    report_variant variants[MAX_VARIANTS];
    report_sample *samples;
    const char *metric_names[SESSION_MAX_METRICS + 4];
    double *metric_values;
    size_t n_sample_metrics;
    double *series_values;
    analysis_series *series;
    size_t n_series;
} bench_report_model;

static const char *const builtin_extras[] = {"wall", "user", "sys", "maxrss"};

static double builtin_value(const run_result *r, size_t i)
{
    double values[] = {r->wall, r->user, r->sys, r->maxrss_kib};
    return values[i];
}

/* Sample metrics: the compared ones, then wall/user/sys/maxrss when not already there. */
static void choose_sample_metrics(const bench_model *m, bench_report_model *r, size_t *extra_index)
{
    r->n_sample_metrics = 0;
    for (size_t i = 0; i < m->n_metrics; i++)
        r->metric_names[r->n_sample_metrics++] = m->metrics[i].name;
    for (size_t e = 0; e < 4; e++) {
        extra_index[e] = SIZE_MAX;
        bool present = false;
        for (size_t i = 0; i < m->n_metrics; i++)
            present |= strcmp(m->metrics[i].name, builtin_extras[e]) == 0;
        if (!present) {
            extra_index[e] = r->n_sample_metrics;
            r->metric_names[r->n_sample_metrics++] = builtin_extras[e];
        }
    }
}

static void fill_report_sample(const bench_model *m, const session_sample *s, report_sample *out,
                               double *values, const char *const *names, size_t n_values,
                               const size_t *extra_index)
{
    for (size_t i = 0; i < m->n_metrics; i++)
        values[i] = s->values[i];
    for (size_t e = 0; e < 4; e++)
        if (extra_index[e] != SIZE_MAX)
            values[extra_index[e]] = builtin_value(&s->run, e);
    *out = (report_sample){
        .variant = m->variants[s->variant].name, .point = "default", .block = s->block,
        .seq = s->seq, .metric_names = names, .metric_values = values, .n_metrics = n_values,
        .exit_code = s->run.exit_code, .tainted = s->tainted, .taint_reason = s->taint_reason,
        .started = s->started, .steal = s->noise.steal, .other_busy = s->noise.other_busy,
        .load1 = s->noise.load1, .has_interference = true};
}

static int build_report_model(const bench_model *m, const session_outcome *o,
                              bench_report_model *r)
{
    size_t extra_index[4];
    memset(r, 0, sizeof *r);
    choose_sample_metrics(m, r, extra_index);
    size_t blocks = o->complete_blocks, n = m->n_variants;
    r->samples = calloc(o->n_samples + 1, sizeof *r->samples);
    r->metric_values = calloc((o->n_samples + 1) * r->n_sample_metrics, sizeof *r->metric_values);
    r->series_values = calloc(n * (blocks + 1) * m->n_metrics, sizeof *r->series_values);
    r->series = calloc(n * m->n_metrics, sizeof *r->series);
    if (!r->samples || !r->metric_values || !r->series_values || !r->series)
        return -1;
    for (size_t v = 0; v < n; v++)
        r->variants[v] = (report_variant){.name = m->variants[v].name,
                                          .argv = (const char *const *)m->variants[v].argv.words,
                                          .argc = m->variants[v].argv.n};
    for (size_t i = 0; i < o->n_samples; i++)
        fill_report_sample(m, &o->samples[i], &r->samples[i],
                           r->metric_values + i * r->n_sample_metrics, r->metric_names,
                           r->n_sample_metrics, extra_index);
    for (size_t k = 0; k < m->n_metrics; k++)
        session_series(&m->config, o, k, r->series_values + k * n * blocks, r->series + k * n);
    r->n_series = n * m->n_metrics;
    return 0;
}

static void bench_report_model_free(bench_report_model *r)
{
    free(r->samples);
    free(r->metric_values);
    free(r->series_values);
    free(r->series);
}

static int warn(analysis_result *a, const char *code, const char *variant, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int warn(analysis_result *a, const char *code, const char *variant, const char *fmt, ...)
{
    char message[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(message, sizeof message, fmt, ap);
    va_end(ap);
    return analysis_add_warning(a, code, "default", variant, message);
}

/* Warnings only the runner can give: disturbed runs, commands too short to time, and why
 * the session ended early. */
static int add_runner_warnings(const bench_model *m, const session_outcome *o,
                               const bench_report_model *r, analysis_result *a)
{
    int rc = 0;
    for (size_t v = 0; v < m->n_variants; v++) {
        size_t tainted = 0, runs = 0;
        const char *reason = "";
        for (size_t i = 0; i < o->n_samples; i++)
            if (o->samples[i].variant == v) {
                runs++;
                if (o->samples[i].tainted) {
                    tainted++;
                    reason = o->samples[i].taint_reason;
                }
            }
        if (tainted)
            rc |= warn(a, "disturbed-runs", m->variants[v].name,
                       "%s: %zu of %zu runs were disturbed by the machine (e.g. %s)",
                       m->variants[v].name, tainted, runs, reason);
        const stats_summary *wall = NULL;
        for (size_t s = 0; s < r->n_series; s++)
            if (strcmp(r->series[s].metric, "wall") == 0 && strcmp(r->series[s].variant, m->variants[v].name) == 0)
                wall = &a->summaries[s];
        if (wall && wall->n > 0 && wall->median < TOO_SHORT_SECONDS)
            rc |= warn(a, "too-short", m->variants[v].name,
                       "%s: runs last %.2g ms; starting a process costs about a millisecond, so "
                       "it is a large part of what is measured (loop the work inside the command)",
                       m->variants[v].name, wall->median * 1e3);
    }
    if (o->budget_spent)
        rc |= warn(a, "budget-spent", "", "not decided within the budget (%zu blocks, %.0f s)",
                   o->complete_blocks, o->elapsed);
    if (o->status == SESSION_INTERRUPTED)
        rc |= warn(a, "interrupted", "", "interrupted: the analysis covers the %zu complete blocks",
                   o->complete_blocks);
    return rc;
}

static void print_run_summary(const bench_settings *s, const session_outcome *o,
                              const bench_model *m, FILE *out)
{
    fprintf(out, "%zu blocks of %zu commands in %.1f s (seed %llu", o->complete_blocks,
            m->n_variants, o->elapsed, (unsigned long long)s->seed);
    if (m->config.adaptive)
        fprintf(out, "; adaptive: %zu of %zu planned looks, each at %.4g%% confidence so the "
                     "run keeps %g%%", o->looks_taken, stopping_looks(&m->config.stopping),
                o->look_confidence * 100, s->analysis.confidence * 100);
    fputs(")\n", out);
}

/* Analysis of the complete blocks, the report and the exports; returns an exit code. */
static int report_session(const bench_settings *s, const bench_model *m, const session_outcome *o,
                          char *err, size_t errlen)
{
    bench_report_model r;
    FILE *out = s->exports.json && strcmp(s->exports.json, "-") == 0 ? stderr : stdout;
    if (build_report_model(m, o, &r) != 0) {
        bench_report_model_free(&r);
        snprintf(err, errlen, "out of memory");
        return EXIT_INTERNAL;
    }
    int rc = EXIT_DONE;
    analysis_result a;
    analysis_options options = s->analysis;
    options.confidence = o->look_confidence;
    if (o->complete_blocks < 2) {
        fprintf(out, "%zu complete blocks: nothing to analyse\n", o->complete_blocks);
    } else if (analysis_run(r.series, r.n_series, &options, &a, err, errlen) != 0 ||
               add_runner_warnings(m, o, &r, &a) != 0) {
        rc = EXIT_INTERNAL;
    } else {
        report_input in = {
            .experiment_name = "verdict", .seed = s->seed, .has_seed = true, .options = &s->analysis,
            .variants = r.variants, .n_variants = m->n_variants,
            .points = &(report_point){.id = "default"}, .n_points = 1, .samples = r.samples,
            .n_samples = o->n_samples, .series = r.series, .n_series = r.n_series, .analysis = &a,
            .looks = m->config.adaptive ? stopping_looks(&m->config.stopping) : 0};
        print_run_summary(s, o, m, out);
        report_write_text(&in, out);
        if (report_write_exports(&in, &s->exports, err, errlen) != 0)
            rc = EXIT_INTERNAL;
        else if (fail_if_triggered(s->fail_if, &a))
            rc = EXIT_GATE;
        analysis_result_free(&a);
    }
    bench_report_model_free(&r);
    return rc;
}

static int run_and_report(bench_settings *s, bench_model *m, progress_line *progress, char *err,
                          size_t errlen)
{
    session_outcome outcome;
    stop_signal_install();
    if (session_run(&m->config, stop_signal_flag(), &outcome, err, errlen) != 0) {
        progress_clear(progress);
        session_outcome_free(&outcome);
        return EXIT_INTERNAL;
    }
    progress_clear(progress);
    if (outcome.status == SESSION_FAILED)
        fprintf(stderr, "verdict: %s\n", outcome.failure);
    int rc = report_session(s, m, &outcome, err, errlen);
    if (outcome.status == SESSION_FAILED)
        rc = EXIT_COMMAND_FAILED;
    else if (outcome.status == SESSION_INTERRUPTED)
        rc = EXIT_INTERRUPTED;
    session_outcome_free(&outcome);
    return rc;
}

int cmd_bench(int argc, char **argv)
{
    bench_settings settings;
    bench_model model;
    progress_line progress;
    char err[1024] = "";
    memset(&model, 0, sizeof model);
    int parsed = bench_parse_args(argc, argv, &settings, err, sizeof err);
    if (parsed == 1) {
        bench_usage(stdout);
        return EXIT_DONE;
    }
    int rc = EXIT_USAGE;
    progress_init(&progress, stderr);
    if (parsed == 0 && build_model(&settings, argc, argv, &model, &progress, err, sizeof err) == 0)
        rc = run_and_report(&settings, &model, &progress, err, sizeof err);
    if (rc == EXIT_USAGE || (rc == EXIT_INTERNAL && err[0]))
        fprintf(stderr, "verdict: %s\n", err);
    bench_model_free(&model);
    return rc;
}
