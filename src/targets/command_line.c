/* The experiment a command line describes (`verdict [OPTIONS] COMMAND COMMAND...`): variants,
 * metrics, the sweep, helpers and per-command options, and the file that says the same. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>

#include "common/strbuf.h"
#include "common/error.h"
#include "core/command_words.h"
#include "core/experiment_writer.h"
#include "core/metrics.h"
#include "core/runner.h"
#include "targets/command_target.h"
#include "targets/command_variant.h"

/* How a text of the command line runs: a /bin/sh line, through another shell, or its words
 * executed directly. */
typedef enum { LINE_SH, LINE_CUSTOM, LINE_DIRECT } line_mode;

static line_mode command_mode(const command_line_spec *s)
{
    return s->shell_program ? LINE_CUSTOM : s->shell ? LINE_SH : LINE_DIRECT;
}

/* Helpers run through /bin/sh unless told otherwise, as hyperfine runs them. */
static line_mode helper_mode(const command_line_spec *s)
{
    return s->shell_program ? LINE_CUSTOM : s->no_shell ? LINE_DIRECT : LINE_SH;
}

static bool is_parameter(const command_line_spec *s, const char *name, size_t length)
{
    for (size_t i = 0; i < s->n_parameters; i++)
        if (strlen(s->parameters[i].name) == length &&
            strncmp(s->parameters[i].name, name, length) == 0)
            return true;
    return false;
}

/* The command line's texts are literal but for {NAME} of a parameter, as in hyperfine: every
 * other brace is doubled, so that the experiment's templates read it as itself. */
static char *line_template(const command_line_spec *s, const char *text)
{
    strbuf out = STRBUF_INIT;
    strbuf_append(&out, "");
    for (const char *c = text; *c; c++) {
        const char *close = *c == '{' ? strchr(c + 1, '}') : NULL;
        if (close && close > c + 1 && is_parameter(s, c + 1, (size_t)(close - c - 1))) {
            strbuf_append_bytes(&out, c, (size_t)(close - c) + 1);
            c = close;
            continue;
        }
        if (*c == '{' || *c == '}')
            strbuf_append_bytes(&out, c, 1);
        strbuf_append_bytes(&out, c, 1);
    }
    return strbuf_detach(&out);
}

/* The shell's words (themselves literal), -c and the line. */
static int shell_words(const command_line_spec *s, const char *line, command_words *out,
                       verdict_error *why)
{
    char *program = line_template(s, s->shell_program);
    int rc = program ? command_words_split(program, out, why) : -1;
    if (rc == 0 && (command_words_append(out, "-c") != 0 || command_words_append(out, line) != 0))
        rc = -1;
    if (program == NULL)
        error_no_memory(why);
    free(program);
    return rc;
}

/* The words of a text: through another shell (LINE_CUSTOM), or the text split. */
static int template_words(const command_line_spec *s, line_mode mode, const char *text,
                          command_words *out, verdict_error *why)
{
    char *line = line_template(s, text);
    int rc = -1;
    memset(out, 0, sizeof *out);
    if (line == NULL)
        error_no_memory(why);
    else if (mode == LINE_DIRECT)
        rc = command_words_split(line, out, why);
    else
        rc = shell_words(s, line, out, why);
    free(line);
    return rc;
}

/* ---- variants ---- */

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

/* The program a variant runs, as it is at the first point (a {NAME} may choose it; the
 * other points' programs are checked when they begin). */
static int check_program(const experiment *e, const char *word, verdict_error *why)
{
    char *program = experiment_substitute(e, 0, word, why);
    int rc = program ? runner_check_executable(NULL, program, why) : -1;
    free(program);
    return rc;
}

static int command_words_of(const command_line_spec *s, size_t i, command_words *words,
                            verdict_error *why)
{
    if (command_mode(s) != LINE_SH)
        return template_words(s, command_mode(s), s->commands[i], words, why);
    char *line = line_template(s, s->commands[i]);
    const char *one[] = {line};
    int rc = line && command_words_copy(one, 1, words) == 0 ? 0 : -1;
    free(line);
    if (rc != 0)
        error_no_memory(why);
    return rc;
}

static int add_command_variant(const command_line_spec *s, size_t i, experiment *e,
                               verdict_error *err)
{
    experiment_variant *v = &e->variants[e->n_variants++];
    command_words words = {NULL, 0};
    verdict_error why = {0};
    v->name = variant_name(s, i);
    if (v->name == NULL)
        return error_no_memory(err);
    /* the store keeps the experiment as a file: what the file cannot hold is refused now */
    const char *unwritable = experiment_unwritable(s->commands[i], i >= s->n_names);
    if (unwritable)
        return error_set(err, ERROR_USAGE, "command %zu %s", i + 1, unwritable);
    if (i < s->n_names && (unwritable = experiment_unwritable(v->name, true)) != NULL)
        return error_set(err, ERROR_USAGE, "--command-name '%s' %s", v->name, unwritable);
    int rc = command_words_of(s, i, &words, &why);
    v->command = words.words;
    v->n_command = words.n;
    v->shell = command_mode(s) == LINE_SH;
    if (rc == 0)
        rc = check_program(e, v->shell ? "/bin/sh" : words.words[0], &why);
    if (rc != 0)
        return error_copy(err, &why), error_prefix(err, "command %zu (%s)", i + 1,
                                                   s->commands[i]);
    for (size_t j = 0; j < e->n_variants - 1; j++)
        if (strcmp(e->variants[j].name, v->name) == 0)
            return error_set(err, ERROR_USAGE, "two commands are named '%s'", v->name);
    return 0;
}

/* ---- per-command options ---- */

static int make_helper(const command_line_spec *s, const char *text, const char *option,
                       command_helper *h, verdict_error *err)
{
    if (helper_mode(s) == LINE_SH)
        return (h->line = line_template(s, text)) ? 0
               : error_no_memory(err);
    if (template_words(s, helper_mode(s), text, &h->words, err) != 0)
        return error_prefix(err, "%s '%s'", option, text);
    return 0;
}

/* A relative path is the caller's directory's; the file's key holds it absolute. */
static char *absolute_path(const char *path)
{
    char cwd[PATH_MAX];
    strbuf b = STRBUF_INIT;
    if (path[0] != '/' && getcwd(cwd, sizeof cwd) != NULL)
        strbuf_appendf(&b, "%s/", cwd);
    strbuf_append(&b, path);
    return strbuf_detach(&b);
}

/* --input and --output are checked now: a missing input would fail every run. */
static int set_streams(const command_line_spec *s, command_variant *c, verdict_error *err)
{
    const char *path = NULL;
    if (s->input) {
        int fd = open(s->input, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            return error_set(err, ERROR_USAGE, "--input '%s': cannot be read", s->input);
        close(fd);
        if ((c->input = absolute_path(s->input)) == NULL)
            return error_no_memory(err);
    }
    if (s->output && command_output_parse(s->output, &c->output, &path) != 0)
        return error_set(err, ERROR_USAGE, "--output '': expected null, pipe, inherit or a file");
    if (path) {
        int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0666);
        if (fd < 0)
            return error_set(err, ERROR_USAGE, "--output '%s': cannot be written", path);
        close(fd);
        if ((c->output_path = absolute_path(path)) == NULL)
            return error_no_memory(err);
    }
    return 0;
}

static bool has_variant_options(const command_line_spec *s)
{
    return s->n_prepares || s->n_concludes || s->input || s->output ||
           (s->prepare && helper_mode(s) == LINE_CUSTOM);
}

/* One --prepare for all or one per command, likewise --conclude; through another shell
 * even a single prepare is the variants' own (the engine's helpers are /bin/sh lines). */
static int add_variant_options(const command_line_spec *s, size_t i, experiment_variant *v,
                               verdict_error *err)
{
    if (!has_variant_options(s))
        return 0;
    command_variant *c = command_variant_make(v);
    if (c == NULL)
        return error_no_memory(err);
    const char *prepare = s->n_prepares ? s->prepares[i]
                          : helper_mode(s) == LINE_CUSTOM ? s->prepare : NULL;
    const char *conclude = s->n_concludes == 1 ? s->concludes[0]
                           : s->n_concludes ? s->concludes[i] : NULL;
    if ((prepare && make_helper(s, prepare, "--prepare", &c->prepare, err) != 0) ||
        (conclude && make_helper(s, conclude, "--conclude", &c->conclude, err) != 0))
        return -1;
    return set_streams(s, c, err);
}

static int check_helper_counts(const command_line_spec *s, verdict_error *err)
{
    if (s->n_prepares > 1 && s->n_prepares != s->n_commands)
        return error_set(err, ERROR_USAGE, "%zu --prepare commands for %zu commands: give one "
                         "for all or one per command", s->n_prepares, s->n_commands);
    if (s->n_concludes > 1 && s->n_concludes != s->n_commands)
        return error_set(err, ERROR_USAGE, "%zu --conclude commands for %zu commands: give one "
                         "for all or one per command", s->n_concludes, s->n_commands);
    return 0;
}

/* ---- helpers of the engine: setup, cleanup, a single prepare ---- */

/* Through another shell a helper is its words quoted back into a line the engine splits;
 * a value inserted raw into a single-quoted word must hold no quote itself. */
static int check_quotable(const command_line_spec *s, verdict_error *err)
{
    for (size_t i = 0; i < s->n_parameters; i++)
        for (size_t j = 0; j < s->parameters[i].n_values; j++)
            if (strchr(s->parameters[i].values[j], '\''))
                return error_set(err, ERROR_USAGE, "parameter %s: the value '%s' holds a "
                                 "single quote, which --setup and --cleanup through --shell %s "
                                 "cannot take", s->parameters[i].name,
                                 s->parameters[i].values[j], s->shell_program);
    return 0;
}

static int set_helper(const command_line_spec *s, const char *text, const char *option,
                      experiment_helper *out, verdict_error *err)
{
    if (text == NULL)
        return 0;
    command_helper h = {NULL, {NULL, 0}};
    int rc = make_helper(s, text, option, &h, err);
    if (rc == 0) {
        out->shell = h.line != NULL;
        out->line = h.line ? h.line : command_words_join(&h.words);
        h.line = NULL;
        rc = out->line ? 0 : error_no_memory(err);
    }
    command_words_free(&h.words);
    if (rc == 0 && helper_mode(s) == LINE_CUSTOM)
        rc = check_quotable(s, err);
    return rc;
}

static int set_helpers(const command_line_spec *s, experiment *e, verdict_error *err)
{
    const char *prepare = helper_mode(s) == LINE_CUSTOM ? NULL : s->prepare;
    if (set_helper(s, prepare, "--prepare", &e->prepare, err) != 0 ||
        set_helper(s, s->setup, "--setup", &e->setup, err) != 0 ||
        set_helper(s, s->cleanup, "--cleanup", &e->teardown, err) != 0)
        return -1;
    return 0;
}

/* ---- metrics ---- */

/* "SPEC:higher" or "SPEC:lower" (after the regex's closing slash): 1, 0, or -1 for none. */
static int metric_direction(const char *spec, size_t *length)
{
    static const struct { const char *suffix; int higher; } directions[] = {
        {":higher", 1}, {":lower", 0},
    };
    size_t n = strlen(spec);
    *length = n;
    for (size_t i = 0; i < 2; i++) {
        size_t k = strlen(directions[i].suffix);
        if (n > k && strcmp(spec + n - k, directions[i].suffix) == 0) {
            *length = n - k;
            return directions[i].higher;
        }
    }
    return -1;
}

/* What --counters can count: under valgrind, cachegrind's counts and no time. */
static int counted_metric(const command_line_spec *s, const char *spec, const metric_def *def,
                          verdict_error *err)
{
    perf_counters_metric counter;
    if (def->kind == METRIC_COUNTER)
        return metric_counter_parse(spec, s->counters, &counter, err);
    return metric_check_counted_by(spec, s->counters, err);
}

static int add_metric(const command_line_spec *s, const char *given, experiment *e,
                      verdict_error *err)
{
    size_t length;
    int direction = metric_direction(given, &length);
    char *spec = strndup(given, length);
    metric_def def = {0};
    int rc = -1;
    if (spec == NULL)
        error_no_memory(err);
    else if (metric_parse(spec, &def, err) != 0)
        rc = -1;
    else if (counted_metric(s, spec, &def, err) != 0)
        error_prefix(err, "--metric %s", given);
    else if (def.kind == METRIC_REGEX && target_find_metric(&command_target, def.name))
        error_set(err, ERROR_USAGE, "--metric %s: '%s' is a builtin metric: give the "
                  "extraction another name", given, def.name);
    else if (experiment_unwritable(spec, false))
        error_set(err, ERROR_USAGE, "--metric %s", experiment_unwritable(spec, false));
    else
        rc = 0;
    if (rc == 0) {
        experiment_metric *m = &e->metrics[e->n_metrics++];
        m->name = strdup(def.name);
        m->regex = def.kind == METRIC_REGEX ? strdup(def.pattern) : NULL;
        /* time and memory are lower-is-better unless said; --higher-is-better is for
         * what an extraction reads (throughput) */
        m->higher_is_better = direction >= 0 ? direction == 1
                              : def.kind == METRIC_COUNTER
                                  ? metric_counter_higher_is_better(&def.counter)
                                  : def.kind == METRIC_REGEX && s->higher_is_better;
        if (m->name == NULL || (def.kind == METRIC_REGEX && m->regex == NULL))
            rc = error_no_memory(err);
        for (size_t j = 0; rc == 0 && j + 1 < e->n_metrics; j++)
            if (strcmp(e->metrics[j].name, m->name) == 0)
                rc = error_set(err, ERROR_USAGE, "--metric %s is given twice", m->name);
    }
    if (def.name)
        metric_free(&def);
    free(spec);
    return rc;
}

/* --higher-is-better that applies to nothing is refused: it used to flip wall too. */
static int check_higher(const command_line_spec *s, verdict_error *err)
{
    size_t length;
    for (size_t i = 0; s->higher_is_better && i < s->n_metrics; i++)
        if (metric_direction(s->metrics[i], &length) < 0 && strchr(s->metrics[i], '='))
            return 0;
    if (!s->higher_is_better)
        return 0;
    return error_set(err, ERROR_USAGE, "--higher-is-better applies to extracted metrics "
                     "(NAME=/REGEX/) given no direction, and there is none: wall, user, sys, "
                     "cpu and maxrss are lower-is-better; write --metric 'NAME:higher' to "
                     "mean otherwise");
}

static int add_metrics(const command_line_spec *s, experiment *e, verdict_error *err)
{
    size_t n = s->n_metrics ? s->n_metrics : 1;
    if (check_higher(s, err) != 0)
        return -1;
    const char *standard = s->counters == EXPERIMENT_COUNTERS_VALGRIND ? "instructions" : "wall";
    for (size_t i = 0; i < n; i++)
        if (add_metric(s, s->n_metrics ? s->metrics[i] : standard, e, err) != 0)
            return -1;
    return 0;
}

/* ---- the sweep ---- */

static int copy_parameters(const command_line_spec *s, experiment *e, verdict_error *err)
{
    if (s->n_parameters == 0)
        return 0;
    e->parameters = calloc(s->n_parameters, sizeof *e->parameters);
    if (e->parameters == NULL)
        return error_no_memory(err);
    for (size_t i = 0; i < s->n_parameters; i++) {
        const experiment_parameter *from = &s->parameters[i];
        experiment_parameter *to = &e->parameters[e->n_parameters++];
        to->name = strdup(from->name);
        to->values = calloc(from->n_values + 1, sizeof *to->values);
        if (to->name == NULL || to->values == NULL)
            return error_no_memory(err);
        for (size_t j = 0; j < from->n_values; j++, to->n_values++) {
            if (experiment_unwritable(from->values[j], false))
                return error_set(err, ERROR_USAGE, "parameter %s: a value %s", from->name,
                                 experiment_unwritable(from->values[j], false));
            if ((to->values[j] = strdup(from->values[j])) == NULL)
                return error_no_memory(err);
        }
    }
    return 0;
}

/* ---- the experiment ---- */

static int set_budget(const command_line_spec *s, experiment *e, verdict_error *err)
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
    e->method = s->method;
    e->quantile = s->method == METHOD_QUANTILE ? s->quantile : 0.0;
    e->method_given = s->method_given;
    e->on_failure = s->ignore_failure ? FAILURE_RECORD : FAILURE_ABORT;
    e->counters = s->counters;
    e->profile = s->profile || s->profile_event;
    if (s->profile_event && (e->profile_event = strdup(s->profile_event)) == NULL)
        return error_no_memory(err);
    return e->adaptive ? experiment_set_looks(e, s->looks, s->spending, err) : 0;
}

int command_experiment(const command_line_spec *s, experiment *e, verdict_error *err)
{
    experiment_init(e);
    e->target = &command_target;
    e->path = strdup("command line");
    if (set_budget(s, e, err) != 0)
        return -1;
    e->name = strdup("verdict");
    e->variants = calloc(s->n_commands + 1, sizeof *e->variants);
    e->metrics = calloc((s->n_metrics ? s->n_metrics : 1) + 1, sizeof *e->metrics);
    if (!e->path || !e->name || !e->variants || !e->metrics)
        return error_no_memory(err);
    if (copy_parameters(s, e, err) != 0 || check_helper_counts(s, err) != 0)
        return -1;
    for (size_t i = 0; i < s->n_commands; i++)
        if (add_command_variant(s, i, e, err) != 0 ||
            add_variant_options(s, i, &e->variants[i], err) != 0)
            return -1;
    if (add_metrics(s, e, err) != 0 || set_helpers(s, e, err) != 0)
        return -1;
    return experiment_set_written_text(e) == 0 ? 0 : error_set(err, ERROR_INTERNAL,
                                                                "out of memory");
}
