/* The PostgreSQL target at run time: templates prepared once, servers started around runs
 * with the pin policy applied, pgbench's words with the connection added, and its metrics. */
#include "targets/postgres_target.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/array.h"
#include "common/error.h"
#include "common/strbuf.h"
#include "core/command_words.h"
#include "core/metrics.h"
#include "pg/cluster.h"
#include "pg/pgbench_output.h"
#include "targets/postgres_counters.h"
#include "targets/postgres_options.h"
#include "targets/process_run.h"

#define LOG_LIMIT (256u << 20)

/* What pgbench reports (src/pg/pgbench_output.h), then the process's own readings, then the
 * server's counters (postgres_counters.c); tps, the first, is the default and the only one
 * better when higher. */
static const target_metric postgres_metrics[] = {
    {"tps", true},  {"latency_avg", false}, {"p50", false}, {"p95", false}, {"p99", false},
    {"wall", false}, {"user", false},       {"sys", false}, {"cpu", false}, {"maxrss", false},
    POSTGRES_COUNTER_METRIC("instructions"), POSTGRES_COUNTER_METRIC("cycles"),
    POSTGRES_COUNTER_METRIC("branches"), POSTGRES_COUNTER_METRIC("branch-misses"),
    POSTGRES_COUNTER_METRIC("cache-references"), POSTGRES_COUNTER_METRIC("cache-misses"),
    POSTGRES_COUNTER_METRIC("L1-dcache-load-misses"), POSTGRES_COUNTER_METRIC("task-clock"),
    POSTGRES_COUNTER_METRIC("page-faults"), POSTGRES_COUNTER_METRIC("context-switches"),
    POSTGRES_COUNTER_METRIC("cpu-migrations"),
};

/* One variant's server and the words of its runs. */
typedef struct {
    char template_dir[CLUSTER_PATH_MAX];
    cluster_template_spec spec;
    char **settings;             /* "name=value" lines, owned */
    char *pgbench;               /* BINDIR/pgbench */
    char *bindir;                /* the build run: bindir, a source build's, or found */
    cluster_instance instance;
    bool running, unwarmed;      /* unwarmed: started, warm_runs not yet made */
    command_words run_argv;
    char conninfo[1024];         /* of the server the next run uses */
    char **env, **envp;          /* the variant's env at this point, and the full one */
    char *cwd;
} pg_server;

struct target {
    const experiment *e;
    const postgres_options *pg;
    target_settings settings;
    process_runner runner;
    metric_def *metrics;         /* process builtins; pgbench's are read below */
    bool *process_metric;
    size_t n_metrics;
    pg_server *servers;          /* per unit: a variant's layouts each have their server */
    size_t n_servers;
    command_words workload;      /* this point's pgbench arguments */
    char cache_dir[CLUSTER_PATH_MAX]; /* the file's cache_dir, or the user's default */
    char log_dir[256];           /* pgbench --log files of the current run */
    bool want_log;               /* a latency percentile is measured */
    char **init_variables;       /* "name=value" for the templates' init SQL */
    cpu_set_t client_cpus, server_cpus;
    bool pin_client, pin_server;
    char client_cpu_list[64], server_cpu_list[64];
    pg_counting counting;        /* the server's counters, when a metric asks */
    pg_client_counting client;   /* pgbench's own, when a pgbench.* metric asks */
};

static bool is_percentile(const char *name)
{
    return strcmp(name, "p50") == 0 || strcmp(name, "p95") == 0 || strcmp(name, "p99") == 0;
}

/* ---- preparing ---- */

/* Shared settings first, then the variant's: postgresql.conf takes the last one. */
static char **merged_settings(const postgres_options *pg, const postgres_variant *v, size_t *n)
{
    size_t own = v ? v->n_settings : 0, total = pg->n_settings + own;
    char **lines = calloc(total + 1, sizeof *lines);
    *n = 0;
    for (size_t i = 0; lines && i < total; i++) {
        const experiment_env *s = i < pg->n_settings ? &pg->settings[i]
                                                     : &v->settings[i - pg->n_settings];
        strbuf line = STRBUF_INIT;
        strbuf_appendf(&line, "%s=%s", s->name, s->value);
        if ((lines[i] = strbuf_detach(&line)) == NULL)
            break;
        (*n)++;
    }
    return lines;
}

static void cpu_list_text(const cpu_set_t *set, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int c = 0; c < CPU_SETSIZE && used + 8 < len; c++)
        if (CPU_ISSET(c, set))
            used += (size_t)snprintf(buf + used, len - used, "%s%d", used ? "," : "", c);
}

/* same: client and server share the first CPU; split: the first for the client, the
 * second for the server (on these 2-vCPU VMs pgbench -S -c 1 swings 7k-25k tps by
 * placement, 42-51k when both share a CPU). */
static int choose_cpus(target *t, verdict_error *err)
{
    cpu_set_t allowed;
    int cpus[2] = {-1, -1}, found = 0;
    if (t->pg->pin == PG_PIN_NONE)
        return 0;
    if (sched_getaffinity(0, sizeof allowed, &allowed) != 0)
        CPU_ZERO(&allowed);
    for (int c = 0; c < CPU_SETSIZE && found < 2; c++)
        if (CPU_ISSET(c, &allowed))
            cpus[found++] = c;
    if (found < (t->pg->pin == PG_PIN_SPLIT ? 2 : 1))
        return error_set(err, ERROR_USAGE, "pin: split needs two CPUs; verdict may use %d", found);
    CPU_ZERO(&t->client_cpus);
    CPU_ZERO(&t->server_cpus);
    CPU_SET(cpus[0], &t->client_cpus);
    CPU_SET(t->pg->pin == PG_PIN_SPLIT ? cpus[1] : cpus[0], &t->server_cpus);
    t->pin_client = t->pin_server = true;
    cpu_list_text(&t->client_cpus, t->client_cpu_list, sizeof t->client_cpu_list);
    cpu_list_text(&t->server_cpus, t->server_cpu_list, sizeof t->server_cpu_list);
    return 0;
}

/* The variant a server runs. */
static const experiment_variant *server_variant(const target *t, size_t u)
{
    size_t layout;
    return &t->e->variants[experiment_unit_variant(t->e, u, &layout)];
}

/* A variant's layout twins share the template of its first layout: the same data in the
 * same format; only the server binary that starts on a copy of it differs. */
static int prepare_template(target *t, size_t u, const experiment_variant *ev,
                            verdict_error *err)
{
    size_t layout;
    size_t v = experiment_unit_variant(t->e, u, &layout);
    pg_server *s = &t->servers[u];
    if (layout > 0) {
        memcpy(s->template_dir, t->servers[experiment_unit_index(t->e, v, 0)].template_dir,
               sizeof s->template_dir);
        return 0;
    }
    fprintf(stderr, "verdict: preparing the template of %s (%s, scale %d)\n", ev->name,
            s->bindir, t->pg->scale);
    if (cluster_template_prepare(&s->spec, s->template_dir, sizeof s->template_dir, err) != 0)
        return error_prefix(err, "variant %s", ev->name);
    return 0;
}

static int prepare_server(target *t, size_t u, const char *default_bindir, verdict_error *err)
{
    size_t layout;
    const experiment_variant *ev = &t->e->variants[experiment_unit_variant(t->e, u, &layout)];
    const postgres_variant *pv = postgres_variant_of(ev);
    pg_server *s = &t->servers[u];
    strbuf built = STRBUF_INIT; /* a source variant runs the build's install */
    const char *install = experiment_variant_install(ev, layout);
    if (install)
        strbuf_appendf(&built, "%s/bin", install);
    const char *bindir = install ? strbuf_text(&built)
                         : pv && pv->bindir ? pv->bindir : default_bindir;
    strbuf pgbench = STRBUF_INIT;
    strbuf_appendf(&pgbench, "%s/pgbench", bindir);
    if ((s->pgbench = strbuf_detach(&pgbench)) == NULL || (s->bindir = strdup(bindir)) == NULL) {
        strbuf_free(&built);
        return error_no_memory(err);
    }
    strbuf_free(&built);
    bindir = s->bindir;
    if (pv && pv->conninfo)
        return 0;
    size_t n = 0;
    if ((s->settings = merged_settings(t->pg, pv, &n)) == NULL)
        return error_no_memory(err);
    s->spec = (cluster_template_spec){bindir, t->cache_dir, t->pg->run_as,
                                      (const char *const *)s->settings, n, t->pg->scale,
                                      t->pg->init_sql,
                                      (const char *const *)t->init_variables,
                                      t->pg->n_init_variables,
                                      t->pin_server ? &t->server_cpus : NULL,
                                      pg_counting_launcher(&t->counting)};
    return prepare_template(t, u, ev, err);
}

/* The file's cache_dir, or the one cluster_default_cache_dir gives verdict's user. */
static int choose_cache_dir(target *t, verdict_error *err)
{
    if (t->pg->cache_dir) {
        if (snprintf(t->cache_dir, sizeof t->cache_dir, "%s", t->pg->cache_dir) <
            (int)sizeof t->cache_dir)
            return 0;
        return error_set(err, ERROR_USAGE, "postgres cache_dir is too long: %s",
                         t->pg->cache_dir);
    }
    return cluster_default_cache_dir(t->cache_dir, sizeof t->cache_dir, err);
}

static int make_log_dir(target *t, verdict_error *err)
{
    for (size_t m = 0; m < t->e->n_metrics; m++)
        t->want_log |= is_percentile(t->e->metrics[m].name);
    if (!t->want_log)
        return 0;
    snprintf(t->log_dir, sizeof t->log_dir, "/tmp/verdict-pgbench-XXXXXX");
    if (mkdtemp(t->log_dir) == NULL) {
        t->log_dir[0] = '\0';
        return error_set(err, ERROR_INTERNAL, "cannot create a directory for pgbench logs: %s",
                         strerror(errno));
    }
    return 0;
}

/* "name=value" for psql -v, from the file's init_variables. */
static int make_init_variables(target *t, verdict_error *err)
{
    const postgres_options *pg = t->pg;
    t->init_variables = calloc(pg->n_init_variables + 1, sizeof *t->init_variables);
    for (size_t i = 0; t->init_variables && i < pg->n_init_variables; i++) {
        strbuf pair = STRBUF_INIT;
        strbuf_appendf(&pair, "%s=%s", pg->init_variables[i].name, pg->init_variables[i].value);
        if ((t->init_variables[i] = strbuf_detach(&pair)) == NULL)
            return error_no_memory(err);
    }
    return t->init_variables ? 0 : error_no_memory(err);
}

/* ---- servers ---- */

/* The postmaster is pinned as it starts (spec.server_cpus); its backends inherit that. */
static int start_server(target *t, size_t u, verdict_error *err)
{
    pg_server *s = &t->servers[u];
    if (cluster_start(s->template_dir, &s->spec, &s->instance, err) != 0)
        return -1;
    s->running = s->unwarmed = true;
    return 0;
}

static void stop_server(target *t, size_t u)
{
    pg_server *s = &t->servers[u];
    verdict_error why = {0};
    if (!s->running)
        return;
    if (cluster_stop(&s->instance, &why) != 0)
        fprintf(stderr, "verdict: stopping the server of %s: %s\n", server_variant(t, u)->name,
                why.message);
    s->running = false;
}

static void clear_logs(const target *t)
{
    DIR *dir = t->log_dir[0] ? opendir(t->log_dir) : NULL;
    struct dirent *entry;
    while (dir && (entry = readdir(dir)) != NULL) {
        char path[512];
        if (entry->d_name[0] == '.')
            continue;
        snprintf(path, sizeof path, "%s/%s", t->log_dir, entry->d_name);
        unlink(path);
    }
    if (dir)
        closedir(dir);
}

/* pgbench WORKLOAD... [--log --log-prefix=DIR/run] CONNINFO */
static int build_argv(const target *t, size_t u, const char *conninfo, bool with_log,
                      command_words *w)
{
    command_words_free(w);
    char prefix[300];
    snprintf(prefix, sizeof prefix, "--log-prefix=%s/run", t->log_dir);
    w->words = calloc(t->workload.n + 5, sizeof *w->words);
    if (w->words == NULL)
        return -1;
    const char *logs[] = {"--log", prefix};
    w->words[w->n++] = strdup(t->servers[u].pgbench);
    for (size_t i = 0; i < t->workload.n; i++)
        w->words[w->n++] = strdup(t->workload.words[i]);
    for (size_t i = 0; with_log && i < 2; i++)
        w->words[w->n++] = strdup(logs[i]);
    w->words[w->n++] = strdup(conninfo);
    for (size_t i = 0; i < w->n; i++)
        if (w->words[i] == NULL)
            return -1;
    return 0;
}

/* The queries, warm_runs times, as the measured runs send them. */
static int warm_with_queries(const target *t, const char *conninfo, volatile sig_atomic_t *stop,
                             verdict_error *err)
{
    double latencies[POSTGRES_MAX_QUERIES];
    target_measurement scratch;
    memset(&scratch, 0, sizeof scratch);
    for (size_t i = 0; i < t->pg->warm_runs; i++) {
        int status = postgres_run_queries(t->pg, conninfo, t->e->timeout, stop, latencies,
                                          &scratch);
        if (status == TARGET_RUN_INTERRUPTED)
            return error_set(err, ERROR_INTERRUPTED, "warm-up run %zu was interrupted", i + 1);
        if (status != TARGET_MEASURED)
            return error_set(err, ERROR_COMMAND_FAILED, "warm-up run %zu of %zu: %s", i + 1,
                             t->pg->warm_runs, scratch.failure);
    }
    return 0;
}

/* The measured workload, run warm_runs times on a server just started, unmeasured: with
 * `fresh: run` every measured run would otherwise start from empty shared buffers (and,
 * on some VMs, a buffer pool whose every page faults on first touch). No --log, so the
 * measured run's latency log is its own. */
static int warm_server(const target *t, size_t u, const run_request *request,
                       volatile sig_atomic_t *stop, const char *conninfo, verdict_error *err)
{
    if (t->pg->n_queries > 0)
        return warm_with_queries(t, conninfo, stop, err);
    command_words words = {0};
    if (build_argv(t, u, conninfo, false, &words) != 0) {
        command_words_free(&words);
        return error_no_memory(err);
    }
    run_request warm = *request;
    warm.argv = words.words;
    warm.capture_stdout = false;
    int rc = 0;
    for (size_t i = 0; i < t->pg->warm_runs && rc == 0; i++) {
        run_result result;
        if (runner_execute(&warm, stop, &result, err) != 0) {
            rc = error_prefix(err, "warm-up run");
            break;
        }
        if (result.exit_code != 0 || result.timed_out || result.interrupted)
            rc = error_set(err, result.interrupted ? ERROR_INTERRUPTED : ERROR_COMMAND_FAILED,
                           "warm-up run %zu of %zu %s: %s", i + 1, t->pg->warm_runs,
                           result.interrupted ? "was interrupted"
                           : result.timed_out ? "timed out"
                                              : "failed",
                           result.stderr_tail[0] ? result.stderr_tail : "no message");
        run_result_free(&result);
    }
    command_words_free(&words);
    return rc;
}

/* Before a run: the server started (and warmed) unless it runs, checkpointed, the words. */
static int ready_server(target *t, size_t u, const run_request *request,
                        volatile sig_atomic_t *stop, verdict_error *err)
{
    pg_server *s = &t->servers[u];
    const postgres_variant *pv = postgres_variant_of(server_variant(t, u));
    char *conninfo = s->conninfo;
    size_t conninfo_size = sizeof s->conninfo;
    clear_logs(t);
    if (pv && pv->conninfo) {
        snprintf(conninfo, conninfo_size, "%s", pv->conninfo);
    } else {
        if (!s->running && start_server(t, u, err) != 0)
            return -1;
        cluster_conninfo(&s->instance, conninfo, conninfo_size);
        if (s->unwarmed && t->pg->warm_runs > 0 &&
            warm_server(t, u, request, stop, conninfo, err) != 0)
            return -1;
        s->unwarmed = false;
        /* every run starts from the same state: nothing dirty to write back mid-run */
        if (cluster_checkpoint(&s->instance, err) != 0)
            return -1;
    }
    if (build_argv(t, u, conninfo, t->want_log, &s->run_argv) != 0)
        return error_no_memory(err);
    /* last: the counters see the workload's backends only, not the checkpoint's */
    if (pg_counting_active(&t->counting) && pg_counting_begin(&t->counting, &s->instance, err) != 0)
        return -1;
    return 0;
}

/* ---- metrics ---- */

/* All of this run's --log files, concatenated. */
static char *read_logs(const target *t, size_t *length)
{
    DIR *dir = opendir(t->log_dir);
    strbuf text = STRBUF_INIT;
    struct dirent *entry;
    while (dir && (entry = readdir(dir)) != NULL) {
        char path[512], chunk[65536];
        if (entry->d_name[0] == '.')
            continue;
        snprintf(path, sizeof path, "%s/%s", t->log_dir, entry->d_name);
        FILE *f = fopen(path, "r");
        size_t got;
        while (f && (got = fread(chunk, 1, sizeof chunk, f)) > 0 && text.length + got < LOG_LIMIT)
            strbuf_append_bytes(&text, chunk, got);
        if (f)
            fclose(f);
    }
    if (dir)
        closedir(dir);
    *length = text.length;
    return text.length ? strbuf_detach(&text) : (strbuf_free(&text), NULL);
}

static int percentile_metric(const target *t, const char *name, double *value, verdict_error *err)
{
    size_t length;
    char *log = read_logs(t, &length);
    double p50, p95, p99;
    int rc = log ? pgbench_latency_percentiles(log, length, &p50, &p95, &p99, err) : -1;
    if (log == NULL)
        error_set(err, ERROR_USAGE, "pgbench wrote no transaction log in %s", t->log_dir);
    free(log);
    if (rc != 0)
        return -1;
    *value = strcmp(name, "p50") == 0 ? p50 : strcmp(name, "p95") == 0 ? p95 : p99;
    return 0;
}

static int pgbench_metric(const target *t, size_t m, const run_result *run, double *value,
                          verdict_error *err)
{
    const char *name = t->e->metrics[m].name;
    if (is_percentile(name))
        return percentile_metric(t, name, value, err);
    pgbench_result r;
    if (pgbench_parse(run->stdout_text ? run->stdout_text : "", run->stdout_length,
                      run->exit_code, &r, err) != 0)
        return error_prefix(err, "pgbench output");
    char event[64];
    pg_counter_per per;
    if (postgres_client_metric(name, event, sizeof event, &per)) {
        /* NaN also when its counter ran part of the run: the sample is marked, not failed */
        *value = pg_client_value(&t->client, m, r.transactions_processed);
        return per != PG_PER_TX || r.transactions_processed > 0
                   ? 0 : error_set(err, ERROR_USAGE, "%s: pgbench printed no number of "
                                   "transactions processed", name);
    }
    bool counter = postgres_counter_metric(name, event, sizeof event, &per);
    *value = counter ? pg_counting_value(&t->counting, name, r.transactions_processed, 0)
             : strcmp(name, "tps") == 0 ? r.tps : r.latency_average_ms;
    if (!isfinite(*value)) {
        if (counter)
            return error_set(err, ERROR_USAGE, "%s: pgbench printed no number of transactions "
                             "processed", name);
        error_set(err, ERROR_USAGE, "pgbench printed no %s", name);
        return -1;
    }
    return 0;
}

static int read_metrics(const target *t, const run_result *run, double *values, verdict_error *why)
{
    int rc = 0;
    for (size_t m = 0; m < t->n_metrics; m++) {
        values[m] = NAN;
        int one = t->process_metric[m]
                      ? metric_value(&t->metrics[m], run, &values[m], why)
                      : pgbench_metric(t, m, run, &values[m], why);
        if (one != 0 && rc == 0)
            rc = -1; /* the first reason is kept */
    }
    return rc;
}

/* ---- the interface ---- */

/* This point's pgbench words: a line substituted and then split, or each word substituted. */
static int point_workload(target *t, size_t point, verdict_error *err)
{
    const experiment *e = t->e;
    command_words_free(&t->workload);
    if (t->pg->workload_line) {
        char *line = experiment_substitute(e, point, t->pg->workload_line, err);
        int rc = line ? command_words_split(line, &t->workload, err) : -1;
        free(line);
        return rc == 0 ? 0 : error_prefix(err, "%s: workload", e->path);
    }
    t->workload.words = calloc(t->pg->n_workload + 1, sizeof *t->workload.words);
    if (t->workload.words == NULL)
        return error_no_memory(err);
    for (size_t i = 0; i < t->pg->n_workload; i++, t->workload.n++)
        if ((t->workload.words[i] = experiment_substitute(e, point, t->pg->workload[i],
                                                          err)) == NULL)
            return error_prefix(err, "%s: workload", e->path);
    return 0;
}

static int postgres_begin_point(target *t, size_t point, volatile sig_atomic_t *stop,
                                verdict_error *err)
{
    (void)stop;
    const experiment *e = t->e;
    verdict_error why = {0};
    if (point_workload(t, point, err) != 0)
        return -1;
    for (size_t u = 0; u < t->n_servers; u++) {
        pg_server *s = &t->servers[u];
        size_t layout;
        const experiment_variant *ev = &e->variants[experiment_unit_variant(e, u, &layout)];
        free(s->envp);
        for (size_t i = 0; s->env && s->env[i]; i++)
            free(s->env[i]);
        free(s->env);
        free(s->cwd);
        s->envp = NULL;
        s->cwd = ev->cwd ? experiment_substitute_variant(e, ev, layout, point, ev->cwd, &why)
                         : NULL;
        s->env = calloc(ev->n_env + 1, sizeof *s->env);
        for (size_t i = 0; s->env && i < ev->n_env; i++) {
            char *value = experiment_substitute_variant(e, ev, layout, point, ev->env[i].value,
                                                        &why);
            strbuf pair = STRBUF_INIT;
            strbuf_appendf(&pair, "%s=%s", ev->env[i].name, value ? value : "");
            free(value);
            s->env[i] = strbuf_detach(&pair);
            if (s->env[i] == NULL)
                return error_set(err, ERROR_USAGE, "variant %s: env: %s", ev->name, why.message);
        }
        if (s->env == NULL || (ev->cwd && s->cwd == NULL) ||
            (s->envp = process_runner_envp(&t->runner, s->env)) == NULL)
            return why.kind != ERROR_NONE ? (error_copy(err, &why),
                                             error_prefix(err, "variant %s", ev->name))
                                          : error_no_memory(err);
        if (runner_check_executable(s->cwd, s->pgbench, &why) != 0)
            return error_set(err, ERROR_USAGE, "%s: variant %s: %s", e->path, ev->name,
                             why.message);
        const postgres_variant *pv = postgres_variant_of(ev);
        if (t->pg->fresh == PG_FRESH_POINT && !(pv && pv->conninfo) && start_server(t, u, err) != 0)
            return error_prefix(err, "at point %zu", point);
    }
    return 0;
}

static void postgres_end_point(target *t)
{
    for (size_t u = 0; t->servers && u < t->n_servers; u++)
        stop_server(t, u);
}

/* After the workload: the server's counters read (its backends waited for), unless none
 * are counted or the run failed already. 0, or -1 with out->failure saying why. A counter
 * that did not run the whole time is never scaled: the sample is marked. */
static int count_server(target *t, pg_server *s, int status, target_measurement *out)
{
    verdict_error why = {0};
    if (!pg_counting_active(&t->counting))
        return 0;
    if (status != TARGET_MEASURED) {
        pg_counting_abandon(&t->counting);
        return 0;
    }
    if (pg_counting_end(&t->counting, &s->instance, &why) != 0) {
        snprintf(out->failure, sizeof out->failure, "counting the server's processes: %s",
                 why.message);
        return -1;
    }
    if (t->counting.partial && !out->tainted) {
        out->tainted = true;
        snprintf(out->taint_reason, sizeof out->taint_reason,
                 "a counter of the server ran only part of the time (multiplexed)");
    }
    return 0;
}

/* A run of the workload's queries, sent by verdict itself: each one's latency, their
 * geometric mean, and the run's wall time (connecting included). */
static int measure_queries(target *t, pg_server *s, volatile sig_atomic_t *stop,
                           target_measurement *out)
{
    double latencies[POSTGRES_MAX_QUERIES];
    cpu_snapshot before;
    bool have_before = process_runner_span_begin(&t->runner, &before);
    struct timespec start, end;
    clock_gettime(CLOCK_MONOTONIC, &start);
    int status = postgres_run_queries(t->pg, s->conninfo, t->e->timeout, stop, latencies, out);
    clock_gettime(CLOCK_MONOTONIC, &end);
    process_runner_span_end(&t->runner, &before, have_before, out);
    out->wall = (double)(end.tv_sec - start.tv_sec) + (double)(end.tv_nsec - start.tv_nsec) / 1e9;
    out->user = out->sys = out->maxrss_kib = NAN; /* no process of verdict's to read */
    out->exit_code = status == TARGET_MEASURED ? 0 : 1;
    if (count_server(t, s, status, out) != 0)
        status = TARGET_RUN_FAILED;
    for (size_t m = 0; m < t->n_metrics; m++) {
        const char *name = t->e->metrics[m].name;
        double counted = pg_counting_value(&t->counting, name, -1, t->pg->n_queries);
        out->values[m] = status != TARGET_MEASURED ? NAN
                         : strcmp(name, "wall") == 0 ? out->wall
                         : !isnan(counted)           ? counted
                                                     : postgres_query_value(t->pg, name, latencies);
    }
    return status;
}

/* pgbench's run, its own counters around it when a pgbench.* metric asks (*client: what
 * they counted, a run_counters_outcome); -1 with err when it could not be run or counted. */
static int run_pgbench(target *t, const target_unit *unit, run_request *request,
                       volatile sig_atomic_t *stop, run_result *result, target_measurement *out,
                       int *client, char *note, size_t note_len, verdict_error *err)
{
    bool counted = pg_client_active(&t->client);
    if (counted && pg_client_begin(&t->client, request->argv, err) != 0)
        return -1;
    int ran = process_runner_measure(&t->runner, request, unit->seq, stop, result, out, err);
    verdict_error why = {0};
    *client = counted ? pg_client_end(&t->client, note, note_len, &why) : RUN_COUNTERS_COUNTED;
    if (ran == 0 && *client < 0) {
        run_result_free(result);
        return error_copy(err, &why);
    }
    return ran;
}

static int postgres_measure(target *t, const target_unit *unit, volatile sig_atomic_t *stop,
                            target_measurement *out, verdict_error *err)
{
    size_t u = experiment_unit_index(t->e, unit->variant, unit->layout);
    pg_server *s = &t->servers[u];
    const char *name = t->e->variants[unit->variant].name;
    run_request request = {.argv = NULL, .envp = s->envp, .cwd = s->cwd,
                           .timeout = t->e->timeout, .pin = t->pin_client ? &t->client_cpus : NULL,
                           .capture_stdout = true};
    if (ready_server(t, u, &request, stop, err) != 0) {
        if (t->pg->fresh == PG_FRESH_RUN)
            stop_server(t, u);
        if (*stop)
            return TARGET_RUN_INTERRUPTED;
        snprintf(out->failure, sizeof out->failure, "%s: %s", name, err->message);
        error_clear(err);
        return TARGET_RUN_FAILED;
    }
    if (t->pg->n_queries > 0) {
        int status = measure_queries(t, s, stop, out);
        if (t->pg->fresh == PG_FRESH_RUN)
            stop_server(t, u);
        if (status == TARGET_RUN_FAILED) {
            char failure[sizeof out->failure];
            memcpy(failure, out->failure, sizeof failure);
            snprintf(out->failure, sizeof out->failure, "%s: %.4000s", name, failure);
        }
        return status;
    }
    request.argv = s->run_argv.words;
    run_result result;
    char note[512] = "";
    int client = RUN_COUNTERS_COUNTED;
    int ran = run_pgbench(t, unit, &request, stop, &result, out, &client, note, sizeof note,
                          err);
    bool ended = ran == 0 && !result.interrupted && !result.timed_out && result.exit_code == 0;
    bool counted = count_server(t, s, ended ? TARGET_MEASURED : TARGET_RUN_FAILED, out) == 0;
    if (t->pg->fresh == PG_FRESH_RUN)
        stop_server(t, u);
    if (ran != 0)
        return error_prefix(err, "variant %s", name);
    int status = TARGET_MEASURED;
    verdict_error why = {0};
    char what[600];
    snprintf(what, sizeof what, "'%s' (%s)", s->pgbench, name);
    bool read = read_metrics(t, &result, out->values, &why) == 0;
    if (result.interrupted)
        status = TARGET_RUN_INTERRUPTED;
    else if (result.exit_code != 0 || result.timed_out)
        status = TARGET_RUN_FAILED, process_describe_failure(&result, t->e->timeout, what, out);
    else if (!counted)
        status = TARGET_RUN_FAILED; /* count_server said why */
    else if (!read)
        status = TARGET_RUN_FAILED, snprintf(out->failure, sizeof out->failure, "%s: %s", what,
                                             why.message);
    if (status == TARGET_MEASURED && client == RUN_COUNTERS_PARTIAL && !out->tainted) {
        out->tainted = true;
        snprintf(out->taint_reason, sizeof out->taint_reason, "pgbench's counter: %.70s", note);
    }
    run_result_free(&result);
    return status;
}

static int postgres_facts(target *t, machine_facts *facts)
{
    const postgres_options *pg = t->pg;
    static const char *const pins[] = {"none", "same", "split"};
    char scale[32];
    snprintf(scale, sizeof scale, "%d", pg->scale);
    int rc = machine_facts_set(facts, "pg.pin", pins[pg->pin]);
    rc |= machine_facts_set(facts, "pg.client_cpus", t->pin_client ? t->client_cpu_list : "any");
    rc |= machine_facts_set(facts, "pg.server_cpus", t->pin_server ? t->server_cpu_list : "any");
    rc |= machine_facts_set(facts, "pg.fresh", pg->fresh == PG_FRESH_RUN ? "run" : "point");
    rc |= machine_facts_set(facts, "pg.scale", scale);
    if (pg->init_sql)
        rc |= machine_facts_set(facts, "pg.init", pg->init_sql);
    if (pg_counting_active(&t->counting)) /* how the server's counters were read */
        rc |= machine_facts_set(facts, "pg.counters", pg->counters == PG_COUNTERS_VALGRIND
                                                          ? "valgrind (callgrind from PostgresMain)"
                                                          : "perf (inherited from the postmaster)");
    for (size_t v = 0; v < t->e->n_variants; v++) {
        const experiment_variant *ev = &t->e->variants[v];
        const postgres_variant *pv = postgres_variant_of(ev);
        const pg_server *first = &t->servers[experiment_unit_index(t->e, v, 0)];
        strbuf key = STRBUF_INIT, value = STRBUF_INIT;
        for (size_t i = 0; first->settings && first->settings[i]; i++)
            strbuf_appendf(&value, "%s%s", i ? " " : "", first->settings[i]);
        strbuf_appendf(&key, "pg.%s.server", ev->name);
        rc |= machine_facts_set(facts, strbuf_text(&key), pv && pv->conninfo
                                                               ? pv->conninfo
                                                               : first->spec.bindir);
        strbuf_clear(&key);
        strbuf_appendf(&key, "pg.%s.settings", ev->name);
        rc |= machine_facts_set(facts, strbuf_text(&key), strbuf_text(&value));
        rc |= strbuf_status(&key) | strbuf_status(&value);
        strbuf_free(&key);
        strbuf_free(&value);
    }
    return rc ? -1 : 0;
}

static void free_server(pg_server *s)
{
    for (size_t i = 0; s->settings && s->settings[i]; i++)
        free(s->settings[i]);
    free(s->settings);
    free(s->pgbench);
    free(s->bindir);
    command_words_free(&s->run_argv);
    for (size_t i = 0; s->env && s->env[i]; i++)
        free(s->env[i]);
    free(s->env);
    free(s->envp);
    free(s->cwd);
}

static void postgres_close(target *t)
{
    if (t == NULL)
        return;
    postgres_end_point(t);
    for (size_t u = 0; t->servers && u < t->n_servers; u++)
        free_server(&t->servers[u]);
    free(t->servers);
    for (size_t m = 0; t->metrics && m < t->n_metrics; m++)
        if (t->process_metric[m])
            metric_free(&t->metrics[m]);
    free(t->metrics);
    free(t->process_metric);
    command_words_free(&t->workload);
    clear_logs(t);
    if (t->log_dir[0])
        rmdir(t->log_dir);
    for (size_t i = 0; t->init_variables && t->init_variables[i]; i++)
        free(t->init_variables[i]);
    free(t->init_variables);
    process_runner_close(&t->runner);
    pg_counting_close(&t->counting);
    pg_client_close(&t->client);
    free(t);
}

static int postgres_open(const experiment *e, const target_settings *s, target **out,
                         verdict_error *err)
{
    target *t = calloc(1, sizeof *t);
    if (t == NULL ||
        (t->servers = calloc(experiment_unit_count(e) + 1, sizeof *t->servers)) == NULL ||
        (t->metrics = calloc(e->n_metrics + 1, sizeof *t->metrics)) == NULL ||
        (t->process_metric = calloc(e->n_metrics + 1, sizeof *t->process_metric)) == NULL) {
        if (t)
            free(t->servers), free(t->metrics);
        free(t);
        return error_no_memory(err);
    }
    t->e = e;
    t->n_servers = experiment_unit_count(e);
    t->pg = postgres_options_of(e);
    t->settings = *s;
    t->n_metrics = e->n_metrics;
    char default_bindir[1024] = "/usr/bin";
    cluster_find_bindir(default_bindir, sizeof default_bindir);
    int rc = process_metric_defs(e, t->metrics, t->process_metric, err);
    if (rc == 0) /* before the templates: a machine that cannot count stops at once */
        rc = pg_counting_open(&t->counting, e, err);
    if (rc == 0)
        rc = pg_client_open(&t->client, e, err);
    if (rc == 0)
        rc = process_runner_open(&t->runner, s, e->seed, true, err);
    if (rc == 0)
        rc = choose_cpus(t, err);
    if (rc == 0)
        rc = choose_cache_dir(t, err);
    if (rc == 0)
        rc = make_log_dir(t, err);
    if (rc == 0)
        rc = make_init_variables(t, err);
    for (size_t u = 0; rc == 0 && u < t->n_servers; u++)
        rc = prepare_server(t, u, default_bindir, err);
    if (rc != 0) {
        postgres_close(t);
        return -1;
    }
    *out = t;
    return 0;
}

const target_kind postgres_target = {
    .name = "postgres",
    .top_keys = postgres_top_keys,
    .n_top_keys = POSTGRES_N_TOP_KEYS,
    .variant_keys = postgres_variant_keys,
    .n_variant_keys = POSTGRES_N_VARIANT_KEYS,
    .no_command = "the workload (pgbench) is the command",
    .no_build = "give 'source' and verdict builds it with configure or meson (or 'bindir' "
                "for a build of yours)",
    .build_recipe = postgres_build_recipe,
    .measured_binary = postgres_measured_binary,
    .begin_file = postgres_begin_file,
    .variant_scalar = postgres_variant_scalar,
    .finish_variant = postgres_finish_variant,
    .finish_file = postgres_finish_file,
    .hash_variant = postgres_hash_variant,
    .hash_plan = postgres_hash_plan,
    .free_variant = postgres_free_variant,
    .free_options = postgres_free_options,
    .describe_plan = postgres_describe_plan,
    .metrics = postgres_metrics,
    .n_metrics = ARRAY_SIZE(postgres_metrics),
    .regex_metrics = true,
    .measures_processes = true, /* pgbench */
    .counters_key = true,       /* the server's counters (postgres_counters.c) */
    .open = postgres_open,
    .facts = postgres_facts,
    .begin_point = postgres_begin_point,
    .measure = postgres_measure,
    .end_point = postgres_end_point,
    .close = postgres_close,
};
