/* `verdict run EXPERIMENT`: runs (or resumes) an experiment file point by point, every
 * sample committed to the store as it is measured, then reports from the store. */
#include <getopt.h>
#include <libgen.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/commands.h"
#include "cli/experiment_report.h"
#include "cli/options.h"
#include "cli/pg_target.h"
#include "cli/progress.h"
#include "cli/stop_signal.h"
#include "cli/stored_samples.h"
#include "core/experiment.h"
#include "core/schedule.h"
#include "core/session.h"
#include "env/machine.h"
#include "store/store.h"
#include "version.h"

#define BUILD_LOG_TAIL 1500


typedef struct {
    const char *experiment_path, *store_path;
    experiment_report_options report;
    bool confidence_set, margin_set;
    double confidence, margin;
} run_settings;

static void run_usage(FILE *out)
{
    fputs(
        "usage: verdict run EXPERIMENT.yaml [OPTIONS]\n"
        "\n"
        "Runs the experiment described by the file (docs/experiments.md): every point of its\n"
        "parameters, in shuffled order, with all variants in randomized complete blocks.\n"
        "Every sample is committed to the store as soon as it is measured; running the same\n"
        "file against the same store again resumes where it stopped.\n"
        "\n"
        "options:\n"
        "      --store FILE        results store (default: EXPERIMENT without .yaml + .db)\n"
        "      --json FILE         the verdict/1 JSON document ('-' for stdout)\n"
        "      --csv FILE          one row per sample\n"
        "      --markdown FILE     the verdict table as Markdown\n"
        "      --html FILE         a single-file HTML report with charts (works offline)\n"
        "      --confidence C      override the file's confidence\n"
        "      --margin M          override the file's equivalence margin\n"
        "      --fail-if worse     exit 4 when a comparison is worse\n"
        "  -h, --help              show this help\n"
        "\n"
        "exit status: 0 done, 1 internal failure (e.g. the store cannot be written),\n"
        "2 bad experiment file or usage, 3 a build or a run failed, 4 --fail-if triggered,\n"
        "130 interrupted (what was measured is stored; run again to resume).\n",
        out);
}

static int parse_run_option(int opt, const char *arg, void *settings, char *err, size_t errlen)
{
    run_settings *s = settings;
    switch (opt) {
    case 's': s->store_path = arg; return 0;
    case 'j': s->report.exports.json = arg; return 0;
    case 'v': s->report.exports.csv = arg; return 0;
    case 'm': s->report.exports.markdown = arg; return 0;
    case 'H': s->report.exports.html = arg; return 0;
    case 'c': s->confidence_set = true; return parse_confidence(arg, &s->confidence, err, errlen);
    case 'g': s->margin_set = true; return parse_margin(arg, &s->margin, err, errlen);
    case 'f': return parse_fail_if(arg, &s->report.fail_if, err, errlen);
    }
    snprintf(err, errlen, "unknown option (see verdict run --help)");
    return -1;
}

/* 0 with settings, 1 after --help, -1 with a message. */
static int parse_run_args(int argc, char **argv, run_settings *s, char *err, size_t errlen)
{
    static const struct option options[] = {
        {"store", required_argument, NULL, 's'}, {"json", required_argument, NULL, 'j'},
        {"csv", required_argument, NULL, 'v'}, {"markdown", required_argument, NULL, 'm'},
        {"html", required_argument, NULL, 'H'}, {"confidence", required_argument, NULL, 'c'}, {"margin", required_argument, NULL, 'g'},
        {"fail-if", required_argument, NULL, 'f'}, {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    int first = walk_options(argc, argv, "h", options, "verdict run",
                             parse_run_option, s, err, errlen);
    if (first == OPTIONS_HELP)
        return 1;
    if (first == OPTIONS_ERROR)
        return -1;
    if (argc - optind != 1) {
        snprintf(err, errlen, "run needs exactly one experiment file (see verdict run --help)");
        return -1;
    }
    s->experiment_path = argv[optind];
    return 0;
}

/* "bench/spin.yaml" -> "bench/spin.db" */
static char *default_store_path(const char *experiment_path)
{
    size_t length = strlen(experiment_path);
    const char *dot = strrchr(experiment_path, '.');
    const char *slash = strrchr(experiment_path, '/');
    if (dot && (!slash || dot > slash))
        length = (size_t)(dot - experiment_path);
    char *path = malloc(length + 4);
    if (path)
        snprintf(path, length + 4, "%.*s.db", (int)length, experiment_path);
    return path;
}

/* Everything one `verdict run` holds; released by run_context_free. */
typedef struct {
    run_settings settings;
    experiment e;
    bool experiment_loaded;
    store *db;
    int64_t experiment_id, run_id;
    char *base_dir;               /* the experiment file's directory: relative paths start here */
    char *store_path;
    stored_samples existing;
    metric_def metrics[SESSION_MAX_METRICS];
    size_t n_metrics;
    progress_line progress;
    pg_target pg;                 /* target postgres */
} run_context;

/* One point's variants with placeholders filled in. */
typedef struct {
    session_variant variants[64];
    char **env_storage[64];
    char *cwd_storage[64];
    size_t n;
    command_words prepare, setup, cleanup;
} point_variants;

static char *resolve_path(const run_context *r, const char *path)
{
    if (path == NULL)
        return strdup(r->base_dir);
    if (path[0] == '/')
        return strdup(path);
    size_t length = strlen(r->base_dir) + strlen(path) + 2;
    char *joined = malloc(length);
    if (joined)
        snprintf(joined, length, "%s/%s", r->base_dir, path);
    return joined;
}

static int substituted_words(const run_context *r, const experiment_variant *v, size_t point,
                             command_words *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (v->shell) {
        char *line = experiment_substitute_shell(&r->e, point, v->command[0], err, errlen);
        const char *words[] = {"/bin/sh", "-c", line};
        int rc = line && command_words_copy(words, 3, out) == 0 ? 0 : -1;
        free(line);
        return rc;
    }
    out->words = calloc(v->n_command + 1, sizeof *out->words);
    if (out->words == NULL)
        return -1;
    for (size_t i = 0; i < v->n_command; i++, out->n++)
        if ((out->words[i] = experiment_substitute(&r->e, point, v->command[i], err, errlen)) == NULL)
            return -1;
    return 0;
}

static char **substituted_env(const run_context *r, const experiment_variant *v, size_t point,
                              char *err, size_t errlen)
{
    char **env = calloc(v->n_env + 1, sizeof *env);
    for (size_t i = 0; env && i < v->n_env; i++) {
        char *value = experiment_substitute(&r->e, point, v->env[i].value, err, errlen);
        size_t length = strlen(v->env[i].name) + (value ? strlen(value) : 0) + 2;
        if (value == NULL || (env[i] = malloc(length)) == NULL) {
            free(value);
            return env; /* freed by the caller; the NULL entry ends it */
        }
        snprintf(env[i], length, "%s=%s", v->env[i].name, value);
        free(value);
    }
    return env;
}

static int shell_helper(const run_context *r, const char *line, size_t point, command_words *out,
                        char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (line == NULL)
        return 0;
    char *filled = experiment_substitute_shell(&r->e, point, line, err, errlen);
    const char *words[] = {"/bin/sh", "-c", filled};
    int rc = filled && command_words_copy(words, 3, out) == 0 ? 0 : -1;
    free(filled);
    return rc;
}

static void point_variants_free(point_variants *pv)
{
    for (size_t v = 0; v < pv->n; v++) {
        command_words_free(&pv->variants[v].argv);
        for (size_t i = 0; pv->env_storage[v] && pv->env_storage[v][i]; i++)
            free(pv->env_storage[v][i]);
        free(pv->env_storage[v]);
        free(pv->cwd_storage[v]);
    }
    command_words_free(&pv->prepare);
    command_words_free(&pv->setup);
    command_words_free(&pv->cleanup);
}

static int build_point_variants(const run_context *r, size_t point, point_variants *pv,
                                char *err, size_t errlen)
{
    const experiment *e = &r->e;
    memset(pv, 0, sizeof *pv);
    for (size_t v = 0; v < e->n_variants && v < 64; v++, pv->n++) {
        const experiment_variant *ev = &e->variants[v];
        session_variant *sv = &pv->variants[v];
        char *cwd = ev->cwd ? experiment_substitute(e, point, ev->cwd, err, errlen) : NULL;
        pv->cwd_storage[v] = resolve_path(r, cwd);
        free(cwd);
        pv->env_storage[v] = substituted_env(r, ev, point, err, errlen);
        if (pv->cwd_storage[v] == NULL || pv->env_storage[v] == NULL)
            return -1;
        if (e->target == TARGET_POSTGRES) {
            /* the words come from pg_target_before_run; pgbench stands in for checks */
            const char *words[] = {r->pg.pgbench[v]};
            if (command_words_copy(words, 1, &sv->argv) != 0)
                return -1;
        } else if (substituted_words(r, ev, point, &sv->argv, err, errlen) != 0) {
            return -1;
        }
        for (size_t i = 0; i < ev->n_env; i++)
            if (pv->env_storage[v][i] == NULL)
                return -1;
        sv->name = ev->name;
        sv->line = e->target == TARGET_POSTGRES ? (char *)r->pg.pgbench[v] : ev->command[0];
        sv->cwd = pv->cwd_storage[v];
        sv->extra_env = pv->env_storage[v];
        char why[512];
        if (runner_check_executable(sv->cwd, sv->argv.words[0], why, sizeof why) != 0) {
            snprintf(err, errlen, "%s: variant %s: %s", e->path, ev->name, why);
            return -1;
        }
    }
    return shell_helper(r, e->prepare, point, &pv->prepare, err, errlen) ||
           shell_helper(r, e->setup, point, &pv->setup, err, errlen) ||
           shell_helper(r, e->teardown, point, &pv->cleanup, err, errlen) ? -1 : 0;
}

static long variant_index(const experiment *e, const char *name)
{
    for (size_t v = 0; v < e->n_variants; v++)
        if (strcmp(e->variants[v].name, name) == 0)
            return (long)v;
    return -1;
}

/* The stored samples of one point, as the session's samples (for resume). */
static session_sample *preload_point(const run_context *r, const char *point_id, size_t *n)
{
    session_sample *out = calloc(r->existing.n + 1, sizeof *out);
    *n = 0;
    for (size_t i = 0; out && i < r->existing.n; i++) {
        const stored_sample *s = &r->existing.items[i];
        long v = variant_index(&r->e, s->variant);
        if (v < 0 || s->block < 0 || strcmp(s->point, point_id) != 0)
            continue;
        session_sample *d = &out[(*n)++];
        d->variant = (size_t)v;
        d->block = s->block;
        d->seq = s->seq;
        d->started = s->started;
        d->run.wall = s->wall;
        d->run.user = s->user;
        d->run.sys = s->sys;
        d->run.maxrss_kib = s->maxrss_kib;
        d->run.exit_code = s->exit_code;
        d->tainted = s->tainted;
        d->noise.steal = s->steal;
        d->noise.other_busy = s->other_busy;
        d->noise.load1 = s->load1;
        for (size_t k = 0; k < r->n_metrics; k++)
            if (!stored_metric(s, r->metrics[k].name, &d->values[k]))
                d->values[k] = NAN;
    }
    return out;
}

typedef struct {
    run_context *r;
    const char *point_id;
    const char *metric_names[SESSION_MAX_METRICS];
} sample_sink;

/* Commits a sample the moment it is measured; a failure (disk full) stops the run. */
static int commit_sample(void *context, const session_sample *s, char *err, size_t errlen)
{
    sample_sink *sink = context;
    run_context *r = sink->r;
    store_sample row = {
        .point = sink->point_id, .variant = r->e.variants[s->variant].name, .block = s->block,
        .seq = s->seq, .started = s->started, .wall = s->run.wall, .user = s->run.user,
        .sys = s->run.sys, .maxrss_kib = s->run.maxrss_kib,
        .voluntary_switches = s->run.voluntary_switches,
        .involuntary_switches = s->run.involuntary_switches, .exit_code = s->run.exit_code,
        .timed_out = s->run.timed_out, .tainted = s->tainted,
        .taint_reason = s->tainted ? s->taint_reason : NULL, .steal = s->noise.steal,
        .other_busy = s->noise.other_busy, .load1 = s->noise.load1,
        .metric_names = sink->metric_names, .metric_values = s->values, .n_metrics = r->n_metrics};
    return store_add_sample(r->db, r->run_id, &row, err, errlen);
}

static void configure_session(run_context *r, point_variants *pv, size_t point,
                              session_config *c)
{
    const experiment *e = &r->e;
    memset(c, 0, sizeof *c);
    c->variants = pv->variants;
    c->n_variants = pv->n;
    c->metrics = r->metrics;
    c->n_metrics = r->n_metrics;
    c->warmup = e->warmup;
    c->adaptive = e->adaptive;
    c->runs = e->repetitions;
    c->stopping = (stopping_rule){e->min_blocks, e->max_blocks, 1.5};
    c->max_seconds = e->max_seconds;
    c->seed = e->seed;
    c->point = point;
    c->timeout = e->timeout;
    c->prepare = pv->prepare;
    c->setup = pv->setup;
    c->cleanup = pv->cleanup;
    c->helper_cwd = r->base_dir;
    c->randomize_env = true;
    c->ignore_failure = e->on_failure == FAILURE_RECORD;
    c->retries = e->on_failure == FAILURE_RETRY ? e->retries : 0;
    c->analysis = r->settings.report.analysis;
    c->progress = progress_update;
    c->progress_context = &r->progress;
    if (e->target == TARGET_POSTGRES) {
        c->before_run = pg_target_before_run;
        c->after_run = pg_target_after_run;
        c->run_context = &r->pg;
        c->server_does_the_work = true;
        c->pin = pg_target_client_pin(&r->pg);
    }
}

/* Runs one point; returns 0, or an exit code with the message printed. */
static int run_point(run_context *r, size_t point, size_t position, size_t n_points)
{
    char err[1024] = "";
    point_variants pv;
    session_config config;
    session_outcome outcome;
    memset(&outcome, 0, sizeof outcome);
    char *point_id = experiment_point_id(&r->e, point);
    sample_sink sink = {r, point_id, {0}};
    for (size_t k = 0; k < r->n_metrics; k++)
        sink.metric_names[k] = r->metrics[k].name;
    int rc = EXIT_INTERNAL;
    if (point_id == NULL || build_point_variants(r, point, &pv, err, sizeof err) != 0) {
        rc = point_id && err[0] ? EXIT_USAGE : EXIT_INTERNAL;
        fprintf(stderr, "verdict run: %s\n", err[0] ? err : "out of memory");
        point_variants_free(&pv);
        free(point_id);
        return rc;
    }
    configure_session(r, &pv, point, &config);
    config.point_id = point_id;
    config.preloaded = preload_point(r, point_id, &config.n_preloaded);
    config.on_sample = commit_sample;
    config.sample_context = &sink;
    snprintf(r->progress.prefix, sizeof r->progress.prefix, "point %zu/%zu %s · ", position + 1,
             n_points, point_id);
    int session_rc = -1;
    if (r->e.target == TARGET_POSTGRES && pg_target_begin_point(&r->pg, point, err, sizeof err) != 0) {
        pg_target_end_point(&r->pg);
        fprintf(stderr, "verdict run: at %s: %s\n", point_id, err[0] ? err : "out of memory");
        session_outcome_free(&outcome);
        free((void *)config.preloaded);
        point_variants_free(&pv);
        free(point_id);
        return EXIT_COMMAND_FAILED;
    }
    if (config.preloaded)
        session_rc = session_run(&config, stop_signal_flag(), &outcome, err, sizeof err);
    if (r->e.target == TARGET_POSTGRES)
        pg_target_end_point(&r->pg);
    progress_clear(&r->progress);
    if (session_rc != 0)
        fprintf(stderr, "verdict run: %s\n", err[0] ? err : "out of memory");
    else if (outcome.status == SESSION_FAILED)
        fprintf(stderr, "verdict run: at %s: %s\n", point_id, outcome.failure);
    rc = session_rc != 0 ? EXIT_INTERNAL
         : outcome.status == SESSION_FAILED ? EXIT_COMMAND_FAILED
         : outcome.status == SESSION_INTERRUPTED ? EXIT_INTERRUPTED : 0;
    session_outcome_free(&outcome);
    free((void *)config.preloaded);
    point_variants_free(&pv);
    free(point_id);
    return rc;
}

/* Runs each variant's build once, before any sample; its output goes to a log beside
 * the store, and a failure stops the run with the log's tail. */
static int run_builds(run_context *r)
{
    for (size_t v = 0; v < r->e.n_variants; v++) {
        const experiment_variant *ev = &r->e.variants[v];
        if (ev->build == NULL)
            continue;
        char err[512] = "", log_path[4096];
        snprintf(log_path, sizeof log_path, "%s.build-%s.log", r->store_path, ev->name);
        char *line = experiment_substitute_shell(&r->e, 0, ev->build, err, sizeof err);
        char *cwd = resolve_path(r, ev->cwd);
        if (line == NULL || cwd == NULL) {
            free(line);
            free(cwd);
            fprintf(stderr, "verdict run: variant %s: build: %s\n", ev->name, err[0] ? err : "out of memory");
            return EXIT_INTERNAL;
        }
        size_t length = strlen(line) + strlen(log_path) + 64;
        char *wrapped = malloc(length);
        if (wrapped)
            snprintf(wrapped, length, "( %s ) > '%s' 2>&1", line, log_path);
        char *argv[] = {"/bin/sh", "-c", wrapped, NULL};
        extern char **environ;
        run_request request = {.argv = argv, .envp = environ, .cwd = cwd};
        run_result result;
        fprintf(stderr, "verdict run: building %s (log: %s)\n", ev->name, log_path);
        int rc = wrapped ? runner_execute(&request, stop_signal_flag(), &result, err, sizeof err) : -1;
        free(wrapped);
        free(line);
        free(cwd);
        if (rc != 0) {
            fprintf(stderr, "verdict run: variant %s: build: %s\n", ev->name, err);
            return EXIT_INTERNAL;
        }
        if (result.interrupted)
            return EXIT_INTERRUPTED;
        if (result.exit_code != 0) {
            char tail[BUILD_LOG_TAIL + 1] = "";
            FILE *log = fopen(log_path, "r");
            if (log) {
                fseek(log, 0, SEEK_END);
                long size = ftell(log);
                fseek(log, size > BUILD_LOG_TAIL ? size - BUILD_LOG_TAIL : 0, SEEK_SET);
                tail[fread(tail, 1, BUILD_LOG_TAIL, log)] = '\0';
                fclose(log);
            }
            fprintf(stderr, "verdict run: the build of variant %s failed (exit status %d); the end of %s:\n%s\n",
                    ev->name, result.exit_code, log_path, tail);
            return EXIT_COMMAND_FAILED;
        }
    }
    return 0;
}

static int open_store(run_context *r, char *err, size_t errlen)
{
    store_experiment se = {
        .name = r->e.name, .text = r->e.text, .text_length = r->e.text_length,
        .text_hash = experiment_text_hash(&r->e), .plan_hash = experiment_plan_hash(&r->e),
        .seed = r->e.seed, .tool_version = VERDICT_VERSION};
    bool existing = false;
    if (store_open(r->store_path, &r->db, err, errlen) != 0 ||
        store_open_experiment(r->db, &se, &r->experiment_id, &existing, err, errlen) != 0)
        return -1;
    if (stored_samples_load(r->db, r->experiment_id, &r->existing, err, errlen) != 0)
        return -1;
    if (existing && r->existing.n > 0)
        fprintf(stderr, "verdict run: resuming %s from %s (%zu samples stored)\n", r->e.name,
                r->store_path, r->existing.n);
    return 0;
}

/* Records this invocation with the machine's facts (and the PostgreSQL placement). */
static int begin_run(run_context *r, char *err, size_t errlen)
{
    machine_facts facts = {0};
    char why[256];
    if (machine_facts_collect(&facts, why, sizeof why) != 0)
        facts.n = 0;
    machine_facts_set(&facts, "verdict", VERDICT_VERSION);
    if (r->e.target == TARGET_POSTGRES)
        pg_target_facts(&r->pg, &facts);
    store_fact *rows = calloc(facts.n + 1, sizeof *rows);
    int rc = -1;
    if (rows) {
        for (size_t i = 0; i < facts.n; i++)
            rows[i] = (store_fact){facts.facts[i].key, facts.facts[i].value};
        rc = store_begin_run(r->db, r->experiment_id, rows, facts.n, &r->run_id, err, errlen);
    }
    free(rows);
    machine_facts_free(&facts);
    return rc;
}

static int prepare_metrics(run_context *r, char *err, size_t errlen)
{
    for (size_t k = 0; k < r->e.n_metrics && k < SESSION_MAX_METRICS; k++, r->n_metrics++) {
        const experiment_metric *m = &r->e.metrics[k];
        int rc;
        if (r->e.target == TARGET_POSTGRES && !m->regex && pg_target_is_metric(m->name))
            rc = metric_custom(m->name, m->higher_is_better, pg_target_metric, &r->pg,
                               &r->metrics[k]);
        else
            rc = m->regex ? metric_from_regex(m->name, m->regex, m->higher_is_better,
                                              &r->metrics[k], err, errlen)
                          : metric_parse(m->name, &r->metrics[k], err, errlen);
        if (rc != 0)
            return -1;
        r->metrics[k].higher_is_better = m->higher_is_better;
    }
    return 0;
}

static int run_points(run_context *r)
{
    size_t n = experiment_point_count(&r->e);
    size_t *order = calloc(n, sizeof *order);
    if (order == NULL)
        return EXIT_INTERNAL;
    schedule_point_order(r->e.seed, n, order);
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++)
        rc = run_point(r, order[i], i, n);
    free(order);
    return rc;
}

static void run_context_free(run_context *r)
{
    for (size_t k = 0; k < r->n_metrics; k++)
        metric_free(&r->metrics[k]);
    stored_samples_free(&r->existing);
    pg_target_free(&r->pg);
    if (r->db)
        store_close(r->db);
    if (r->experiment_loaded)
        experiment_free(&r->e);
    free(r->base_dir);
    free(r->store_path);
}

static int load_experiment(run_context *r, char *err, size_t errlen)
{
    if (experiment_load(r->settings.experiment_path, &r->e, err, errlen) != 0)
        return -1;
    r->experiment_loaded = true;
    /* without a seed in the file the plan still must be the same on every resume */
    if (!r->e.has_seed)
        r->e.seed = experiment_plan_hash(&r->e) % 1000000000u;
    char *copy = strdup(r->settings.experiment_path);
    char *real = copy ? realpath(dirname(copy), NULL) : NULL;
    free(copy);
    r->base_dir = real;
    r->store_path = r->settings.store_path ? strdup(r->settings.store_path)
                                           : default_store_path(r->settings.experiment_path);
    if (r->base_dir == NULL || r->store_path == NULL) {
        snprintf(err, errlen, "%s: cannot resolve its directory", r->settings.experiment_path);
        return -1;
    }
    experiment_report_defaults(&r->e, &r->settings.report);
    return 0;
}

/* Report options from the file, then the command line's overrides. */
static void apply_overrides(run_context *r, const run_settings *given)
{
    experiment_report_options *o = &r->settings.report;
    o->exports = given->report.exports;
    o->fail_if = given->report.fail_if;
    if (given->confidence_set)
        o->analysis.confidence = given->confidence;
    if (given->margin_set)
        o->analysis.margin = given->margin;
    if (o->exports.json && strcmp(o->exports.json, "-") == 0)
        o->text = stderr;
}

int cmd_run(int argc, char **argv)
{
    run_context r;
    memset(&r, 0, sizeof r);
    run_settings given;
    memset(&given, 0, sizeof given);
    char err[1024] = "";
    int parsed = parse_run_args(argc, argv, &given, err, sizeof err);
    if (parsed == 1) {
        run_usage(stdout);
        return EXIT_DONE;
    }
    r.settings = given;
    if (parsed != 0 || load_experiment(&r, err, sizeof err) != 0) {
        fprintf(stderr, "verdict run: %s\n", err);
        run_context_free(&r);
        return EXIT_USAGE;
    }
    apply_overrides(&r, &given);
    progress_init(&r.progress, stderr);
    stop_signal_install();
    int rc = EXIT_INTERNAL;
    if (prepare_metrics(&r, err, sizeof err) != 0 || open_store(&r, err, sizeof err) != 0) {
        fprintf(stderr, "verdict run: %s\n", err);
        rc = strstr(err, "different plan") ? EXIT_USAGE : EXIT_INTERNAL;
    } else {
        rc = run_builds(&r);
        if (rc == 0 && r.e.target == TARGET_POSTGRES && pg_target_prepare(&r.pg, &r.e, err, sizeof err) != 0) {
            fprintf(stderr, "verdict run: %s\n", err);
            rc = EXIT_COMMAND_FAILED;
        }
        if (rc == 0 && begin_run(&r, err, sizeof err) != 0) {
            fprintf(stderr, "verdict run: %s\n", err);
            rc = EXIT_INTERNAL;
        }
        if (rc == 0)
            rc = run_points(&r);
        if (r.run_id)
            store_end_run(r.db, r.run_id, rc == 0 ? "done" : rc == EXIT_INTERRUPTED ? "interrupted" : "failed",
                      err, sizeof err);
        if (rc == 0 || rc == EXIT_INTERRUPTED || rc == EXIT_COMMAND_FAILED) {
            err[0] = '\0';
            int report_rc = experiment_report(r.db, r.experiment_id, &r.e, &r.settings.report, err, sizeof err);
            if (report_rc == EXIT_INTERNAL)
                fprintf(stderr, "verdict run: %s\n", err);
            if (rc == 0)
                rc = report_rc;
        }
    }
    run_context_free(&r);
    return rc;
}
