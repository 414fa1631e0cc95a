/* The command target: per point every variant's words, environment and directory filled in,
 * each run measured through process_run between its prepare and conclude commands, its
 * counters (core/run_counters.h) counted around it. */
#include "targets/command_target.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/array.h"
#include "common/error.h"
#include "common/strbuf.h"
#include "common/wait_status.h"
#include "core/command_words.h"
#include "core/metrics.h"
#include "core/profile.h"
#include "core/run_counters.h"
#include "core/runner.h"
#include "targets/command_variant.h"
#include "targets/process_run.h"


static const target_metric command_metrics[] = {
    {"wall", false}, {"user", false}, {"sys", false}, {"cpu", false}, {"maxrss", false},
};

/* One unit (a variant in one of its layouts) at the current point. */
typedef struct {
    command_words argv;
    char **env;                  /* NAME=value, NULL-terminated */
    char **envp;                 /* what the run gets: environ, env, the pad */
    char *cwd;
    command_words prepare, conclude; /* the variant's own, substituted (n 0: none) */
} command_run;

struct target {
    const experiment *e;
    target_settings settings;
    process_runner runner;
    metric_def *metrics;
    size_t n_metrics;
    bool capture_stdout;         /* a metric is read from the output */
    run_counters *counters;      /* the counter metrics' counting, or NULL */
    size_t partial_runs;         /* measured runs a counter did not count whole */
    strbuf first_partial;        /* which was the first, and why */
    command_run *runs;           /* per unit (experiment_unit_index) */
    size_t n_runs;
    size_t point;
};

/* ---- per point ---- */

static int substituted_words(const experiment *e, const experiment_variant *v, size_t layout,
                             size_t point, command_words *out, verdict_error *err)
{
    memset(out, 0, sizeof *out);
    if (v->shell) {
        char *line = experiment_substitute_variant_shell(e, v, layout, point, v->command[0],
                                                         err);
        const char *words[] = {"/bin/sh", "-c", line};
        int rc = line && command_words_copy(words, 3, out) == 0 ? 0 : -1;
        free(line);
        return rc;
    }
    out->words = calloc(v->n_command + 1, sizeof *out->words);
    if (out->words == NULL)
        return -1;
    for (size_t i = 0; i < v->n_command; i++, out->n++)
        if ((out->words[i] = experiment_substitute_variant(e, v, layout, point, v->command[i],
                                                           err)) == NULL)
            return -1;
    return 0;
}

static char **substituted_env(const experiment *e, const experiment_variant *v, size_t layout,
                              size_t point, verdict_error *err)
{
    char **env = calloc(v->n_env + 1, sizeof *env);
    for (size_t i = 0; env && i < v->n_env; i++) {
        char *value = experiment_substitute_variant(e, v, layout, point, v->env[i].value, err);
        strbuf pair = STRBUF_INIT;
        strbuf_appendf(&pair, "%s=%s", v->env[i].name, value ? value : "");
        free(value);
        if (value == NULL || (env[i] = strbuf_detach(&pair)) == NULL) {
            for (size_t j = 0; j < i; j++)
                free(env[j]);
            free(env);
            return NULL;
        }
    }
    return env;
}

static void free_run(command_run *r)
{
    command_words_free(&r->argv);
    for (size_t i = 0; r->env && r->env[i]; i++)
        free(r->env[i]);
    free(r->env);
    free(r->envp);
    free(r->cwd);
    command_words_free(&r->prepare);
    command_words_free(&r->conclude);
    memset(r, 0, sizeof *r);
}

static int prepare_run(target *t, size_t unit, size_t point, verdict_error *err)
{
    const experiment *e = t->e;
    size_t layout;
    const experiment_variant *ev = &e->variants[experiment_unit_variant(e, unit, &layout)];
    command_run *r = &t->runs[unit];
    if (ev->cwd && (r->cwd = experiment_substitute_variant(e, ev, layout, point, ev->cwd,
                                                           err)) == NULL)
        return error_prefix(err, "%s: variant %s: cwd", e->path, ev->name);
    if ((r->env = substituted_env(e, ev, layout, point, err)) == NULL ||
        substituted_words(e, ev, layout, point, &r->argv, err) != 0)
        return error_prefix(err, "%s: variant %s", e->path, ev->name);
    if ((r->envp = process_runner_envp(&t->runner, r->env)) == NULL)
        return error_no_memory(err);
    const command_variant *c = command_variant_of(ev);
    if (c && (command_helper_words(e, ev, layout, point, &c->prepare, &r->prepare, err) != 0 ||
              command_helper_words(e, ev, layout, point, &c->conclude, &r->conclude, err) != 0))
        return error_prefix(err, "%s: variant %s", e->path, ev->name);
    if ((r->cwd && runner_check_directory(r->cwd, err) != 0) ||
        runner_check_executable(r->cwd, r->argv.words[0], err) != 0)
        return error_prefix(err, "%s: variant %s", e->path, ev->name);
    return 0;
}

static void command_end_point(target *t)
{
    for (size_t u = 0; t->runs && u < t->n_runs; u++)
        free_run(&t->runs[u]);
}

static int command_begin_point(target *t, size_t point, volatile sig_atomic_t *stop,
                               verdict_error *err)
{
    (void)stop;
    command_end_point(t);
    t->point = point;
    for (size_t u = 0; u < t->n_runs; u++)
        if (prepare_run(t, u, point, err) != 0)
            return -1;
    return 0;
}

/* ---- runs ---- */

/* A variant's prepare or conclude command: 0, TARGET_RUN_INTERRUPTED, or -1 with err (it
 * failed: a broken helper stops the run whatever --ignore-failure says, as in the engine). */
static int run_helper(const target *t, const experiment_variant *ev, const command_run *r,
                      const command_words *words, const char *role,
                      volatile sig_atomic_t *stop, verdict_error *err)
{
    if (words->n == 0)
        return 0;
    run_request request = {.argv = words->words, .envp = r->envp, .cwd = t->e->directory,
                           .timeout = t->e->timeout};
    run_result result;
    char ended[128];
    if (runner_execute(&request, stop, &result, err) != 0)
        return error_prefix(err, "variant %s: the %s command", ev->name, role);
    run_result_free(&result);
    if (result.interrupted)
        return TARGET_RUN_INTERRUPTED;
    if (result.exit_code == 0 && !result.timed_out)
        return 0;
    exit_text(result.exit_code, result.term_signal, ended, sizeof ended);
    return error_set(err, ERROR_COMMAND_FAILED, "variant %s: the %s command %s%s%s", ev->name,
                     role, result.timed_out ? "timed out" : ended,
                     result.stderr_tail[0] ? "; the end of its stderr:\n" : "",
                     result.stderr_tail);
}

/* A run that a counter did not count whole keeps its sample without that value (never a
 * scaled guess); the first such run is named in the warning that counts them. */
static void note_partial(target *t, const target_unit *unit, const char *what,
                         const char *note)
{
    if (unit->block < 0 || t->partial_runs++ > 0)
        return;
    char *point = experiment_point_id(t->e, unit->point);
    strbuf_appendf(&t->first_partial, "%s at %s, block %ld: %s", what, point ? point : "?",
                   unit->block, note);
    free(point);
}

/* The run itself, its counters around it; -1 when it could not be started. */
static int counted_run(target *t, const target_unit *unit, run_request *request,
                       volatile sig_atomic_t *stop, run_result *result,
                       target_measurement *out, char *note, size_t note_len,
                       verdict_error *err)
{
    char *const *command = request->argv;
    if (t->counters && run_counters_begin(t->counters, command, &request->argv, err) != 0)
        return -1;
    int rc = process_runner_measure(&t->runner, request, unit->seq, stop, result, out, err);
    request->argv = command;
    /* under cachegrind, a run's time and memory are valgrind's, not the program's: kept by
     * no sample, so that no report shows them as the program's */
    if (t->e->counters == EXPERIMENT_COUNTERS_VALGRIND)
        out->wall = out->user = out->sys = out->maxrss_kib = NAN;
    verdict_error why = {0};
    int counted = t->counters ? run_counters_end(t->counters, out->values, note, note_len,
                                                 &why)
                              : RUN_COUNTERS_COUNTED;
    if (rc == 0 && counted < 0) {
        run_result_free(result);
        return error_copy(err, &why);
    }
    return rc == 0 ? counted : -1;
}

static int measure_run(target *t, const target_unit *unit, const command_run *r,
                       volatile sig_atomic_t *stop, target_measurement *out, verdict_error *err)
{
    const experiment_variant *ev = &t->e->variants[unit->variant];
    const command_variant *c = command_variant_of(ev);
    run_request request = {.argv = r->argv.words, .envp = r->envp, .cwd = r->cwd,
                           .timeout = t->e->timeout, .pin = t->settings.pin,
                           .capture_stdout = t->capture_stdout,
                           .input = c ? c->input : NULL,
                           .output = c ? c->output : RUN_OUTPUT_NULL,
                           .output_path = c ? c->output_path : NULL};
    run_result result;
    char note[1024];
    int counted = counted_run(t, unit, &request, stop, &result, out, note, sizeof note, err);
    if (counted < 0)
        return error_prefix(err, "variant %s", ev->name);
    int status = TARGET_MEASURED;
    verdict_error why = {0};
    char what[512];
    bool read = process_read_metrics(t->metrics, t->n_metrics, &result, out->values,
                                     &why) == 0;
    snprintf(what, sizeof what, "'%s' (%s)", ev->command ? ev->command[0] : "", ev->name);
    if (result.interrupted)
        status = TARGET_RUN_INTERRUPTED;
    else if (result.exit_code != 0 || result.timed_out)
        status = TARGET_RUN_FAILED, process_describe_failure(&result, t->e->timeout, what, out);
    else if (!read)
        status = TARGET_RUN_FAILED, snprintf(out->failure, sizeof out->failure, "%s: %s", what,
                                                 why.message);
    else if (counted == RUN_COUNTERS_FAILED)
        status = TARGET_RUN_FAILED,
        snprintf(out->failure, sizeof out->failure, "%s under cachegrind: %s%s%s", what, note,
                 result.stderr_tail[0] ? "; the end of its stderr:\n" : "",
                 result.stderr_tail);
    else if (counted == RUN_COUNTERS_PARTIAL)
        note_partial(t, unit, what, note);
    run_result_free(&result);
    return status;
}

static int command_measure(target *t, const target_unit *unit, volatile sig_atomic_t *stop,
                           target_measurement *out, verdict_error *err)
{
    const experiment_variant *ev = &t->e->variants[unit->variant];
    command_run *r = &t->runs[experiment_unit_index(t->e, unit->variant, unit->layout)];
    int rc = run_helper(t, ev, r, &r->prepare, "prepare", stop, err);
    if (rc == 0)
        rc = measure_run(t, unit, r, stop, out, err);
    if (rc == TARGET_MEASURED || rc == TARGET_RUN_FAILED) {
        int concluded = run_helper(t, ev, r, &r->conclude, "conclude", stop, err);
        rc = concluded != 0 ? concluded : rc;
    }
    return rc;
}

/* ---- profiled runs ---- */

/* The run under perf record, as the timed runs are run (its directory, environment, input
 * and output, CPUs); 0, TARGET_RUN_INTERRUPTED, or -1 with err (a failed run included). */
static int record_run(target *t, const target_unit *unit, const command_run *r,
                      const char *event, const char *path, volatile sig_atomic_t *stop,
                      double *wall, verdict_error *err)
{
    const experiment_variant *ev = &t->e->variants[unit->variant];
    const command_variant *c = command_variant_of(ev);
    char **argv = profile_record_argv(event, path, r->argv.words);
    if (argv == NULL)
        return error_no_memory(err);
    run_request request = {.argv = argv, .envp = r->envp, .cwd = r->cwd,
                           .timeout = t->e->timeout, .pin = t->settings.pin,
                           .input = c ? c->input : NULL,
                           .output = c ? c->output : RUN_OUTPUT_NULL,
                           .output_path = c ? c->output_path : NULL};
    run_result result;
    int rc = runner_execute(&request, stop, &result, err);
    free(argv);
    if (rc != 0)
        return error_prefix(err, "variant %s under perf record", ev->name);
    *wall = result.wall;
    if (result.interrupted) {
        rc = TARGET_RUN_INTERRUPTED;
    } else if (result.exit_code != 0 || result.timed_out) {
        char what[512];
        target_measurement failed;
        snprintf(what, sizeof what, "'%s' (%s) under perf record", ev->command[0], ev->name);
        process_describe_failure(&result, t->e->timeout, what, &failed);
        rc = error_set(err, ERROR_COMMAND_FAILED, "%s", failed.failure);
    }
    run_result_free(&result);
    return rc;
}

static int command_profile(target *t, const target_unit *unit, const char *event,
                           volatile sig_atomic_t *stop, profile_data *out, double *wall,
                           verdict_error *err)
{
    const experiment_variant *ev = &t->e->variants[unit->variant];
    command_run *r = &t->runs[experiment_unit_index(t->e, unit->variant, unit->layout)];
    char path[PATH_MAX];
    memset(out, 0, sizeof *out);
    if (profile_make_path(path, sizeof path, err) != 0)
        return -1;
    int rc = run_helper(t, ev, r, &r->prepare, "prepare", stop, err);
    if (rc == 0)
        rc = record_run(t, unit, r, event, path, stop, wall, err);
    if (rc == 0)
        rc = run_helper(t, ev, r, &r->conclude, "conclude", stop, err);
    if (rc == TARGET_RUN_INTERRUPTED)
        rc = error_set(err, ERROR_INTERRUPTED, "interrupted");
    if (rc == 0)
        return profile_resolve(path, stop, out, err); /* removes the recording */
    profile_remove_path(path);
    return -1;
}

/* ---- open and close ---- */

/* The warning of runs that a counter did not count whole, for the reports. */
static int command_facts(target *t, machine_facts *facts)
{
    if (t->partial_runs == 0)
        return 0;
    strbuf w = STRBUF_INIT;
    strbuf_appendf(&w, "counter-partial\t\t\t%zu measured run%s had a counter that did not "
                   "count the whole run (the first: %s); such a sample has no value of that "
                   "counter, and its block is left out of that metric's comparison\n",
                   t->partial_runs, t->partial_runs == 1 ? "" : "s",
                   strbuf_text(&t->first_partial));
    int rc = machine_facts_set(facts, "warnings.command", strbuf_text(&w));
    strbuf_free(&w);
    return rc;
}

static void command_close(target *t)
{
    if (t == NULL)
        return;
    command_end_point(t);
    run_counters_close(t->counters);
    strbuf_free(&t->first_partial);
    free(t->runs);
    for (size_t m = 0; m < t->n_metrics; m++)
        metric_free(&t->metrics[m]);
    free(t->metrics);
    process_runner_close(&t->runner);
    free(t);
}

static int command_open(const experiment *e, const target_settings *s, target **out,
                        verdict_error *err)
{
    target *t = calloc(1, sizeof *t);
    bool *defined = calloc(e->n_metrics + 1, sizeof *defined);
    int rc = -1;
    if (t == NULL || defined == NULL ||
        (t->metrics = calloc(e->n_metrics + 1, sizeof *t->metrics)) == NULL ||
        (t->runs = calloc(experiment_unit_count(e) + 1, sizeof *t->runs)) == NULL) {
        error_no_memory(err);
        goto done;
    }
    t->e = e;
    t->n_runs = experiment_unit_count(e);
    t->settings = *s;
    t->n_metrics = e->n_metrics;
    if (process_metric_defs(e, t->metrics, defined, err) != 0 ||
        process_runner_open(&t->runner, s, e->seed, false, err) != 0 ||
        run_counters_open(t->metrics, t->n_metrics, e->counters, &t->counters, err) != 0)
        goto done;
    for (size_t m = 0; m < e->n_metrics; m++)
        t->capture_stdout |= t->metrics[m].kind == METRIC_REGEX;
    rc = 0;
done:
    free(defined);
    if (rc != 0)
        command_close(t);
    else
        *out = t;
    return rc;
}

const target_kind command_target = {
    .name = "command",
    .metrics = command_metrics,
    .n_metrics = ARRAY_SIZE(command_metrics),
    .variant_keys = command_variant_keys,
    .n_variant_keys = COMMAND_N_VARIANT_KEYS,
    .hash_variant = command_variant_hash,
    .free_variant = command_variant_free,
    .write_variant_keys = command_variant_write,
    .regex_metrics = true,
    .measures_processes = true,
    .counters = true,
    .open = command_open,
    .facts = command_facts,
    .begin_point = command_begin_point,
    .measure = command_measure,
    .end_point = command_end_point,
    .close = command_close,
    .profile = command_profile,
};
