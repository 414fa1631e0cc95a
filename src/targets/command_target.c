/* The command target: per point every variant's words, environment and directory filled in,
 * each run measured through process_run; and the experiment the command line describes. */
#include "targets/command_target.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/array.h"
#include "common/strbuf.h"
#include "core/command_words.h"
#include "core/experiment_writer.h"
#include "core/metrics.h"
#include "core/runner.h"
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
} command_run;

struct target {
    const experiment *e;
    target_settings settings;
    process_runner runner;
    metric_def *metrics;
    size_t n_metrics;
    bool capture_stdout;         /* a metric is read from the output */
    command_run *runs;           /* per unit (experiment_unit_index) */
    size_t n_runs;
    size_t point;
};

/* ---- per point ---- */

static int substituted_words(const experiment *e, const experiment_variant *v, size_t layout,
                             size_t point, command_words *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (v->shell) {
        char *line = experiment_substitute_variant_shell(e, v, layout, point, v->command[0],
                                                         err, errlen);
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
                                                           err, errlen)) == NULL)
            return -1;
    return 0;
}

static char **substituted_env(const experiment *e, const experiment_variant *v, size_t layout,
                              size_t point, char *err, size_t errlen)
{
    char **env = calloc(v->n_env + 1, sizeof *env);
    for (size_t i = 0; env && i < v->n_env; i++) {
        char *value = experiment_substitute_variant(e, v, layout, point, v->env[i].value, err,
                                                    errlen);
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
    memset(r, 0, sizeof *r);
}

static int prepare_run(target *t, size_t unit, size_t point, verdict_error *err)
{
    const experiment *e = t->e;
    size_t layout;
    const experiment_variant *ev = &e->variants[experiment_unit_variant(e, unit, &layout)];
    command_run *r = &t->runs[unit];
    char why[1024] = "";
    if (ev->cwd && (r->cwd = experiment_substitute_variant(e, ev, layout, point, ev->cwd, why,
                                                           sizeof why)) == NULL)
        return error_set(err, ERROR_USAGE, "%s: variant %s: cwd: %s", e->path, ev->name, why);
    if ((r->env = substituted_env(e, ev, layout, point, why, sizeof why)) == NULL ||
        substituted_words(e, ev, layout, point, &r->argv, why, sizeof why) != 0)
        return error_set(err, why[0] ? ERROR_USAGE : ERROR_INTERNAL, "%s: variant %s: %s",
                         e->path, ev->name, why[0] ? why : "out of memory");
    if ((r->envp = process_runner_envp(&t->runner, r->env)) == NULL)
        return error_set(err, ERROR_INTERNAL, "out of memory");
    if ((r->cwd && runner_check_directory(r->cwd, why, sizeof why) != 0) ||
        runner_check_executable(r->cwd, r->argv.words[0], why, sizeof why) != 0)
        return error_set(err, ERROR_USAGE, "%s: variant %s: %s", e->path, ev->name, why);
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

static int command_measure(target *t, const target_unit *unit, volatile sig_atomic_t *stop,
                           target_measurement *out, verdict_error *err)
{
    const experiment_variant *ev = &t->e->variants[unit->variant];
    command_run *r = &t->runs[experiment_unit_index(t->e, unit->variant, unit->layout)];
    run_request request = {.argv = r->argv.words, .envp = r->envp, .cwd = r->cwd,
                           .timeout = t->e->timeout, .pin = t->settings.pin,
                           .capture_stdout = t->capture_stdout};
    run_result result;
    if (process_runner_measure(&t->runner, &request, unit->seq, stop, &result, out, err) != 0)
        return error_prefix(err, "variant %s", ev->name);
    int status = TARGET_MEASURED;
    char why[512] = "", what[512];
    bool read = process_read_metrics(t->metrics, t->n_metrics, &result, out->values, why,
                                     sizeof why) == 0;
    snprintf(what, sizeof what, "'%s' (%s)", ev->command ? ev->command[0] : "", ev->name);
    if (result.interrupted)
        status = TARGET_RUN_INTERRUPTED;
    else if (result.exit_code != 0 || result.timed_out)
        status = TARGET_RUN_FAILED, process_describe_failure(&result, t->e->timeout, what, out);
    else if (!read)
        status = TARGET_RUN_FAILED, snprintf(out->failure, sizeof out->failure, "%s: %s", what, why);
    run_result_free(&result);
    return status;
}

/* ---- open and close ---- */

static void command_close(target *t)
{
    if (t == NULL)
        return;
    command_end_point(t);
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
        error_set(err, ERROR_INTERNAL, "out of memory");
        goto done;
    }
    t->e = e;
    t->n_runs = experiment_unit_count(e);
    t->settings = *s;
    t->n_metrics = e->n_metrics;
    if (process_metric_defs(e, t->metrics, defined, err) != 0 ||
        process_runner_open(&t->runner, s, e->seed, false, err) != 0)
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
    .regex_metrics = true,
    .measures_processes = true,
    .open = command_open,
    .begin_point = command_begin_point,
    .measure = command_measure,
    .end_point = command_end_point,
    .close = command_close,
};

/* ---- the experiment of the command line ---- */

/* Names are the command lines unless given; repeated lines get "#2", "#3". */
static char *variant_name(const command_line_spec *s, size_t i)
{
    if (i < s->n_names)
        return strdup(s->names[i]);
    size_t same = 0;
    for (size_t j = 0; j < i; j++)
        same += strcmp(s->commands[j], s->commands[i]) == 0;
    strbuf name = STRBUF_INIT;
    strbuf_append(&name, s->commands[i]);
    if (same)
        strbuf_appendf(&name, " #%zu", same + 1);
    return strbuf_detach(&name);
}

/* The command line's words are literal; the experiment's are templates: braces doubled. */
static int make_literal(command_words *words)
{
    for (size_t i = 0; i < words->n; i++) {
        char *literal = experiment_literal_template(words->words[i]);
        if (literal == NULL)
            return -1;
        free(words->words[i]);
        words->words[i] = literal;
    }
    return 0;
}

static int add_command_variant(const command_line_spec *s, size_t i, experiment *e,
                               verdict_error *err)
{
    experiment_variant *v = &e->variants[e->n_variants++];
    command_words words = {NULL, 0};
    char why[512] = "";
    v->name = variant_name(s, i);
    if (v->name == NULL)
        return error_set(err, ERROR_INTERNAL, "out of memory");
    /* the store keeps the experiment as a file: what the file cannot hold is refused now */
    const char *unwritable = experiment_unwritable(s->commands[i], i >= s->n_names);
    if (unwritable)
        return error_set(err, ERROR_USAGE, "command %zu %s", i + 1, unwritable);
    if (i < s->n_names && (unwritable = experiment_unwritable(v->name, true)) != NULL)
        return error_set(err, ERROR_USAGE, "--name '%s' %s", v->name, unwritable);
    int rc = s->shell ? command_words_copy(&s->commands[i], 1, &words)
                      : command_words_split(s->commands[i], &words, why, sizeof why);
    if (rc == 0)
        rc = runner_check_executable(NULL, s->shell ? "/bin/sh" : words.words[0], why,
                                     sizeof why);
    if (rc == 0 && make_literal(&words) != 0)
        snprintf(why, sizeof why, "out of memory"), rc = -1;
    v->command = words.words;
    v->n_command = words.n;
    if (rc != 0)
        return error_set(err, ERROR_USAGE, "command %zu (%s): %s", i + 1, s->commands[i],
                         why[0] ? why : "out of memory");
    v->shell = s->shell;
    for (size_t j = 0; j < e->n_variants - 1; j++)
        if (strcmp(e->variants[j].name, v->name) == 0)
            return error_set(err, ERROR_USAGE, "two commands are named '%s'", v->name);
    return 0;
}

static int add_metric(const char *spec, bool higher, experiment *e, verdict_error *err)
{
    metric_def def;
    char why[512];
    if (metric_parse(spec, &def, why, sizeof why) != 0)
        return error_set(err, ERROR_USAGE, "%s", why);
    if (def.kind == METRIC_REGEX && target_find_metric(&command_target, def.name)) {
        error_set(err, ERROR_USAGE, "--metric %s: '%s' is a builtin metric: give the "
                  "extraction another name", spec, def.name);
        metric_free(&def);
        return -1;
    }
    const char *unwritable = experiment_unwritable(spec, false);
    if (unwritable) {
        metric_free(&def);
        return error_set(err, ERROR_USAGE, "--metric %s", unwritable);
    }
    experiment_metric *m = &e->metrics[e->n_metrics++];
    m->name = strdup(def.name);
    m->regex = def.kind == METRIC_REGEX ? strdup(def.pattern) : NULL;
    m->higher_is_better = higher;
    bool failed = m->name == NULL || (def.kind == METRIC_REGEX && m->regex == NULL);
    metric_free(&def);
    for (size_t j = 0; !failed && j + 1 < e->n_metrics; j++)
        if (strcmp(e->metrics[j].name, m->name) == 0)
            return error_set(err, ERROR_USAGE, "--metric %s is given twice", m->name);
    return failed ? error_set(err, ERROR_INTERNAL, "out of memory") : 0;
}

static int set_helper(const char *line, bool shell, experiment_helper *out, verdict_error *err)
{
    if (line == NULL)
        return 0;
    out->shell = shell;
    out->line = experiment_literal_template(line);
    return out->line ? 0 : error_set(err, ERROR_INTERNAL, "out of memory");
}

static void set_budget(const command_line_spec *s, experiment *e)
{
    e->adaptive = s->runs == 0;
    e->repetitions = s->runs;
    e->min_blocks = e->adaptive ? s->min_runs : 0;
    e->max_blocks = e->adaptive ? s->max_runs : 0;
    e->max_seconds = e->adaptive ? s->max_seconds : 0;
    e->warmup = s->warmup;
    e->timeout = s->timeout;
    e->seed = s->seed;
    e->has_seed = s->has_seed;
    e->confidence = s->confidence;
    e->margin = s->margin;
    e->on_failure = s->ignore_failure ? FAILURE_RECORD : FAILURE_ABORT;
}

int command_experiment(const command_line_spec *s, experiment *e, verdict_error *err)
{
    experiment_init(e);
    e->target = &command_target;
    set_budget(s, e);
    e->path = strdup("command line");
    e->name = strdup("verdict");
    size_t n_metrics = s->n_metrics ? s->n_metrics : 1;
    e->variants = calloc(s->n_commands + 1, sizeof *e->variants);
    e->metrics = calloc(n_metrics + 1, sizeof *e->metrics);
    if (!e->path || !e->name || !e->variants || !e->metrics)
        return error_set(err, ERROR_INTERNAL, "out of memory");
    for (size_t i = 0; i < s->n_commands; i++)
        if (add_command_variant(s, i, e, err) != 0)
            return -1;
    for (size_t i = 0; i < n_metrics; i++)
        if (add_metric(s->n_metrics ? s->metrics[i] : "wall", s->higher_is_better, e, err) != 0)
            return -1;
    if (set_helper(s->prepare, s->shell, &e->prepare, err) != 0 ||
        set_helper(s->setup, s->shell, &e->setup, err) != 0 ||
        set_helper(s->cleanup, s->shell, &e->teardown, err) != 0)
        return -1;
    return experiment_set_written_text(e) == 0 ? 0 : error_set(err, ERROR_INTERNAL,
                                                                "out of memory");
}
