/* Counters of a PostgreSQL run: the server's (perf on the postmaster, inherited by its new
 * backends, or callgrind from PostgresMain on), and pgbench's own on request, apart. */
#include "targets/postgres_counters.h"

#include <assert.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "common/strbuf.h"
#include "targets/postgres_options.h"

/* The postmaster's backends end a moment after pgbench disconnects; under valgrind each
 * writes its file first. A backend still running after this is an error, never a count
 * read without it. */
#define PERF_END_SECONDS 30.0
#define VALGRIND_END_SECONDS 180.0
#define POLL_NANOSECONDS 10000000L
#define FILE_PREFIX "cg."

static const char *const per_suffix[] = {"", "/tx", "/query"}; /* pg_counter_per */

bool postgres_counter_metric(const char *metric, char *event, size_t len, pg_counter_per *per)
{
    size_t base = strcspn(metric, "/");
    *per = PG_PER_RUN;
    for (int p = PG_PER_TX; p <= PG_PER_QUERY && metric[base]; p++)
        if (strcmp(metric + base, per_suffix[p]) == 0)
            *per = (pg_counter_per)p;
    if ((metric[base] && *per == PG_PER_RUN) || base >= len)
        return false;
    memcpy(event, metric, base);
    event[base] = '\0';
    const perf_counters_event *found = perf_counters_event_find(event);
    return found != NULL && strcmp(found->name, event) == 0;
}

/* ---- the experiment file ---- */

/* pgbench's -T (or --time) in one word: a fixed duration, whose transaction count varies. */
static bool word_sets_duration(const char *word)
{
    if (strncmp(word, "--time", 6) == 0)
        return word[6] == '\0' || word[6] == '=';
    if (word[0] != '-' || word[1] == '-')
        return false;
    for (const char *c = word + 1; *c; c++) {
        if (*c == 'T')
            return true;
        if (strchr("bcDfFhIjLMpPRstU", *c)) /* the rest is that option's value */
            return false;
    }
    return false;
}

static bool workload_sets_duration(const postgres_options *pg)
{
    command_words line = {NULL, 0};
    verdict_error ignored = {0};
    bool found = false;
    if (pg->workload_line && command_words_split(pg->workload_line, &line, &ignored) == 0)
        for (size_t i = 0; i < line.n && !found; i++)
            found = word_sets_duration(line.words[i]);
    for (size_t i = 0; !pg->workload_line && i < pg->n_workload && !found; i++)
        found = word_sets_duration(pg->workload[i]);
    command_words_free(&line);
    return found;
}

static bool autovacuum_off(const experiment_env *settings, size_t n)
{
    static const char *const off[] = {"off", "false", "no", "0"};
    for (size_t i = 0; i < n; i++)
        if (strcasecmp(settings[i].name, "autovacuum") == 0)
            for (size_t k = 0; k < sizeof off / sizeof *off; k++)
                if (strcasecmp(settings[i].value, off[k]) == 0)
                    return true;
    return false;
}

/* Every server verdict starts counts under valgrind only with autovacuum off: a worker it
 * forks during the workload never enters PostgresMain, so its file holds the postmaster's
 * start-up too, tens of millions of instructions. */
static bool every_server_without_autovacuum(const experiment *e, const postgres_options *pg)
{
    if (autovacuum_off(pg->settings, pg->n_settings))
        return true;
    for (size_t v = 0; v < e->n_variants; v++) {
        const postgres_variant *pv = postgres_variant_of(&e->variants[v]);
        if (pv == NULL || !autovacuum_off(pv->settings, pv->n_settings))
            return false;
    }
    return true;
}

/* pgbench's own count (pgbench.instructions/tx), asked for: counted by perf around pgbench,
 * which a 'queries' workload does not run; 2, or -1. */
static int check_client_metric(experiment_loader *l, const postgres_options *pg,
                               const char *name)
{
    struct fy_node *where = loader_target_node(l);
    if (pg->n_queries > 0)
        return yaml_fail(loader_reader(l), where, "metric '%s' counts pgbench, and a 'queries' "
                         "workload runs no pgbench (verdict sends the queries itself)", name);
    if (pg->counters == PG_COUNTERS_VALGRIND)
        return yaml_fail(loader_reader(l), where, "metric '%s': pgbench's own counts are "
                         "perf's, and 'counters: valgrind' counts the server only (pgbench "
                         "waiting on a server under valgrind is no measure of pgbench)", name);
    return 2;
}

/* One metric against the mode and the workload; 1 when it is a counter metric of the
 * server, 2 when one of pgbench (PG_CLIENT_PREFIX). */
static int check_metric(experiment_loader *l, const postgres_options *pg, const char *name)
{
    char event[64];
    pg_counter_per per;
    bool valgrind = pg->counters == PG_COUNTERS_VALGRIND;
    struct fy_node *where = loader_target_node(l);
    if (postgres_client_metric(name, event, sizeof event, &per))
        return check_client_metric(l, pg, name);
    if (!postgres_counter_metric(name, event, sizeof event, &per))
        return valgrind ? yaml_fail(loader_reader(l), where, "metric '%s' with 'counters: "
                                    "valgrind': the server runs under valgrind, tens of times "
                                    "slower, so times and tps would measure valgrind; measure "
                                    "counts (instructions/tx, branch-misses/tx, ...)", name)
                        : 0;
    if (per == PG_PER_TX && pg->n_queries > 0)
        return yaml_fail(loader_reader(l), where, "metric '%s' divides by pgbench's "
                         "transactions; a 'queries' workload counts per query: %s/query",
                         name, event);
    if (per == PG_PER_QUERY && pg->n_queries == 0)
        return yaml_fail(loader_reader(l), where, "metric '%s' divides by the queries of a "
                         "'queries' workload; a pgbench workload counts per transaction: "
                         "%s/tx", name, event);
    if (valgrind && cachegrind_count_find(event) == NULL) {
        verdict_error why = {0};
        const char *names[] = {event};
        cachegrind_options_for(names, 1, &(cachegrind_options){0}, &why);
        return yaml_fail(loader_reader(l), where, "metric '%s': %s", name, why.message);
    }
    return 1;
}

static int check_servers(experiment_loader *l, const experiment *e, const postgres_options *pg)
{
    struct fy_node *where = loader_target_node(l);
    for (size_t v = 0; v < e->n_variants; v++) {
        const postgres_variant *pv = postgres_variant_of(&e->variants[v]);
        if (pv && pv->conninfo)
            return yaml_fail(loader_reader(l), where, "variant %s connects to a server "
                             "verdict does not start (conninfo): its processes cannot be "
                             "counted", e->variants[v].name);
    }
    if (pg->counters != PG_COUNTERS_VALGRIND)
        return 0;
    if (workload_sets_duration(pg))
        return yaml_fail(loader_reader(l), where, "'counters: valgrind' needs a fixed number "
                         "of transactions: give pgbench -t N instead of -T (under valgrind a "
                         "duration would hold a few transactions, and a different number each "
                         "run)");
    if (!every_server_without_autovacuum(e, pg))
        return yaml_fail(loader_reader(l), where, "'counters: valgrind' needs 'settings: "
                         "{autovacuum: \"off\"}' under 'postgres': an autovacuum worker "
                         "started during the workload would be counted with the server's "
                         "start-up");
    return 0;
}

int postgres_finish_counters(experiment_loader *l)
{
    experiment *e = loader_experiment(l);
    postgres_options *pg = postgres_options_of(e);
    pg->counters = e->counters == EXPERIMENT_COUNTERS_VALGRIND ? PG_COUNTERS_VALGRIND
                                                               : PG_COUNTERS_NONE;
    size_t counted = 0, client = 0;
    for (size_t m = 0; m < e->n_metrics; m++) {
        int one = check_metric(l, pg, e->metrics[m].name);
        if (one < 0)
            return -1;
        counted += one == 1;
        client += one == 2;
    }
    if (counted == 0 && client == 0 && e->counters_given)
        return yaml_fail(loader_reader(l), loader_target_node(l), "'counters' says how the "
                         "server's counter metrics are read, and none is measured: add one, "
                         "e.g. metrics: [instructions/tx]");
    if (counted == 0) /* pgbench's own counts need no server of verdict's */
        return 0;
    if (pg->counters == PG_COUNTERS_NONE)
        pg->counters = PG_COUNTERS_PERF;
    return check_servers(l, e, pg);
}

void postgres_describe_plan(const experiment *e, strbuf *out)
{
    const postgres_options *pg = postgres_options_of(e);
    if (pg->counters == PG_COUNTERS_PERF)
        strbuf_appendf(out, "  counters: perf's, of the server's processes during each "
                       "workload (the backends forked for it and the postmaster; not "
                       "pgbench, not the processes started before it)\n");
    else if (pg->counters == PG_COUNTERS_VALGRIND)
        strbuf_appendf(out, "  counters: every server runs under valgrind (callgrind, each "
                       "backend counted from PostgresMain on): much slower, tens of times "
                       "(pgbench -S -c 1 -t 20 took 6-9 s a run here, a server's start a "
                       "few seconds more); only counts are measured\n");
    bool client = false;
    for (size_t m = 0; m < e->n_metrics && !client; m++) {
        char event[64];
        pg_counter_per per;
        client = postgres_client_metric(e->metrics[m].name, event, sizeof event, &per);
    }
    if (client)
        strbuf_appendf(out, "  counters: perf's of pgbench itself (its %s* metrics), around "
                       "each run, apart from the server's\n", PG_CLIENT_PREFIX);
}

/* ---- opening ---- */

static int add_event(pg_counting *c, const perf_counters_event *event)
{
    for (size_t i = 0; i < c->n; i++)
        if (c->events[i] == event)
            return 0;
    if (c->n == PG_COUNTING_MAX)
        return -1;
    c->events[c->n++] = event;
    return 0;
}

/* Probed here, before any template is made: a machine without the counters stops at once. */
static int open_perf(pg_counting *c, verdict_error *err)
{
    for (size_t i = 0; i < c->n; i++) {
        verdict_error why = {0};
        c->specs[i] = (perf_counters_spec){c->events[i], c->events[i]->default_scope};
        if (perf_counters_probe(&c->specs[i], &why) != 0)
            return error_set(err, why.kind, "%s (the PostgreSQL target: 'counters: valgrind' "
                             "under 'postgres')", why.message);
    }
    return 0;
}

/* valgrind -q --tool=callgrind ... : callgrind rather than cachegrind because a forked
 * process inherits its parent's counts, and only callgrind can zero them where a backend
 * begins its own work (PostgresMain); its events have cachegrind's names. */
static int open_valgrind(pg_counting *c, verdict_error *err)
{
    char valgrind[4096];
    const char *names[PG_COUNTING_MAX];
    cachegrind_options options;
    for (size_t i = 0; i < c->n; i++)
        names[i] = c->events[i]->name;
    if (cachegrind_find_valgrind(valgrind, sizeof valgrind, err) != 0 ||
        cachegrind_options_for(names, c->n, &options, err) != 0)
        return -1;
    for (size_t i = 0; i < c->n; i++)
        c->counts[i] = cachegrind_count_find(names[i]);
    const char *words[] = {valgrind, "-q", "--tool=callgrind", "--trace-children=yes",
                           "--zero-before=PostgresMain", "--dump-line=no",
                           "--callgrind-out-file=" CLUSTER_TOOL_DIR "/" FILE_PREFIX "%p",
                           options.cache_sim ? "--cache-sim=yes" : "--cache-sim=no",
                           options.branch_sim ? "--branch-sim=yes" : "--branch-sim=no"};
    size_t n = sizeof words / sizeof *words;
    if ((c->launcher = calloc(n + 1, sizeof *c->launcher)) == NULL)
        return error_no_memory(err);
    for (size_t i = 0; i < n; i++)
        if ((c->launcher[i] = strdup(words[i])) == NULL)
            return error_no_memory(err);
    return 0;
}

int pg_counting_open(pg_counting *c, const experiment *e, verdict_error *err)
{
    const postgres_options *pg = postgres_options_of(e);
    memset(c, 0, sizeof *c);
    c->mode = pg->counters;
    for (size_t m = 0; m < e->n_metrics; m++) {
        char event[64];
        pg_counter_per per;
        if (postgres_counter_metric(e->metrics[m].name, event, sizeof event, &per) &&
            add_event(c, perf_counters_event_find(event)) != 0)
            return error_set(err, ERROR_USAGE, "at most %d counters of the server at once",
                             PG_COUNTING_MAX);
    }
    if (c->n == 0 || c->mode == PG_COUNTERS_NONE) {
        c->mode = PG_COUNTERS_NONE;
        return 0;
    }
    return c->mode == PG_COUNTERS_PERF ? open_perf(c, err) : open_valgrind(c, err);
}

void pg_counting_close(pg_counting *c)
{
    pg_counting_abandon(c);
    for (size_t i = 0; c->launcher && c->launcher[i]; i++)
        free(c->launcher[i]);
    free(c->launcher);
    c->launcher = NULL;
}

bool pg_counting_active(const pg_counting *c)
{
    return c->mode != PG_COUNTERS_NONE;
}

const char *const *pg_counting_launcher(const pg_counting *c)
{
    return (const char *const *)c->launcher;
}

/* ---- around a run ---- */

static bool counted_before(const pg_counting *c, pid_t pid)
{
    for (size_t i = 0; i < c->n_before; i++)
        if (c->before[i] == pid)
            return true;
    return false;
}

/* The pid of a callgrind file's name, or 0 when it is no such file. */
static pid_t file_pid(const char *name)
{
    if (strncmp(name, FILE_PREFIX, strlen(FILE_PREFIX)) != 0)
        return 0;
    char *end;
    long pid = strtol(name + strlen(FILE_PREFIX), &end, 10);
    return *end == '\0' && pid > 0 ? (pid_t)pid : 0;
}

/* Removes the files of processes that ended before the workload (warm-up runs, the
 * checkpoint's connection). */
static void remove_old_files(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *entry;
    while (d && (entry = readdir(d)) != NULL) {
        char path[CLUSTER_PATH_MAX + 300];
        if (file_pid(entry->d_name) == 0)
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, entry->d_name);
        unlink(path);
    }
    if (d)
        closedir(d);
}

int pg_counting_begin(pg_counting *c, const cluster_instance *server, verdict_error *err)
{
    assert(c->session == NULL && server->postmaster_pid > 0);
    c->n_before = cluster_processes(server, c->before, PG_COUNTING_PIDS);
    if (c->n_before == PG_COUNTING_PIDS)
        return error_set(err, ERROR_INTERNAL, "the server runs %d processes or more: too many "
                         "to tell the workload's from", PG_COUNTING_PIDS);
    if (c->mode == PG_COUNTERS_VALGRIND) {
        remove_old_files(server->tool_dir);
        return 0;
    }
    if (perf_counters_attach(server->postmaster_pid, c->specs, c->n, &c->session, err) != 0)
        return error_prefix(err, "counting the server (postmaster %d)",
                            (int)server->postmaster_pid);
    return 0;
}

void pg_counting_abandon(pg_counting *c)
{
    perf_counters_close(c->session);
    c->session = NULL;
}

/* Until no process started since begin runs: a backend's counts are the postmaster's (perf)
 * or in its file (valgrind) only once it has ended. */
static int wait_for_new_processes(const pg_counting *c, const cluster_instance *server,
                                  verdict_error *err)
{
    double limit = c->mode == PG_COUNTERS_VALGRIND ? VALGRIND_END_SECONDS : PERF_END_SECONDS;
    struct timespec start, now, pause = {0, POLL_NANOSECONDS};
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (;;) {
        pid_t pids[PG_COUNTING_PIDS], running = 0;
        size_t n = cluster_processes(server, pids, PG_COUNTING_PIDS);
        for (size_t i = 0; i < n && running == 0; i++)
            if (!counted_before(c, pids[i]))
                running = pids[i];
        if (running == 0)
            return 0;
        clock_gettime(CLOCK_MONOTONIC, &now);
        if ((double)(now.tv_sec - start.tv_sec) > limit)
            return error_set(err, ERROR_COMMAND_FAILED, "the server's process %d, started "
                             "during the workload, still runs %.0f s after it: its counts "
                             "cannot be read", (int)running, limit);
        nanosleep(&pause, NULL);
    }
}

static int read_perf(pg_counting *c, verdict_error *err)
{
    perf_counters_value values[PG_COUNTING_MAX];
    int rc = perf_counters_read(c->session, values, err);
    pg_counting_abandon(c);
    c->partial = false;
    for (size_t i = 0; rc == 0 && i < c->n; i++) {
        c->totals[i] = values[i].count;
        c->partial |= values[i].partial;
    }
    return rc;
}

/* The line of a callgrind file that starts with key, without it; NULL when none. */
static const char *line_after(const char *text, const char *key, size_t *length)
{
    size_t k = strlen(key);
    for (const char *at = text; at && *at; at = strchr(at, '\n'), at = at ? at + 1 : NULL)
        if (strncmp(at, key, k) == 0) {
            *length = strcspn(at + k, "\n");
            return at + k;
        }
    return NULL;
}

/* A callgrind file's events and totals (its "totals:" line, or "summary:"), read through
 * cachegrind's parser as one count line. */
static int read_callgrind(const char *path, cachegrind_totals *out, verdict_error *err)
{
    strbuf text = STRBUF_INIT, shaped = STRBUF_INIT;
    char chunk[65536];
    size_t got, n_events = 0, n_totals = 0;
    FILE *f = fopen(path, "r");
    int rc = -1;
    if (f == NULL) {
        error_set(err, ERROR_INTERNAL, "cannot read %s: %s", path, strerror(errno));
        goto done;
    }
    while ((got = fread(chunk, 1, sizeof chunk, f)) > 0)
        strbuf_append_bytes(&text, chunk, got);
    fclose(f);
    const char *events = line_after(strbuf_text(&text), "events:", &n_events);
    const char *totals = line_after(strbuf_text(&text), "totals:", &n_totals);
    if (totals == NULL)
        totals = line_after(strbuf_text(&text), "summary:", &n_totals);
    if (events == NULL || totals == NULL) {
        error_set(err, ERROR_BAD_INPUT, "%s: no 'events:' or no 'totals:' line (a callgrind "
                  "file cut short?)", path);
        goto done;
    }
    strbuf_appendf(&shaped, "events:%.*s\n0%.*s\n", (int)n_events, events, (int)n_totals,
                   totals);
    if (strbuf_status(&shaped) != 0 || strbuf_status(&text) != 0) {
        error_no_memory(err);
        goto done;
    }
    rc = cachegrind_parse(strbuf_text(&shaped), shaped.length, path, out, err);
done:
    strbuf_free(&text);
    strbuf_free(&shaped);
    return rc;
}

/* Adds up the files of the processes that ended during the workload, removing them. */
static int read_valgrind(pg_counting *c, const char *dir, verdict_error *err)
{
    cachegrind_totals sum, one;
    memset(&sum, 0, sizeof sum);
    DIR *d = opendir(dir);
    struct dirent *entry;
    int rc = d ? 0 : error_set(err, ERROR_INTERNAL, "cannot read %s: %s", dir, strerror(errno));
    while (rc == 0 && (entry = readdir(d)) != NULL) {
        pid_t pid = file_pid(entry->d_name);
        char path[CLUSTER_PATH_MAX + 300];
        if (pid == 0 || counted_before(c, pid))
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, entry->d_name);
        rc = read_callgrind(path, &one, err);
        if (rc == 0)
            rc = cachegrind_add(&sum, &one, err);
        unlink(path);
    }
    if (d)
        closedir(d);
    if (rc == 0 && sum.files == 0)
        rc = error_set(err, ERROR_COMMAND_FAILED, "no process of the server ended during the "
                       "workload: no callgrind file in %s", dir);
    for (size_t i = 0; rc == 0 && i < c->n; i++)
        rc = cachegrind_value(&sum, c->counts[i], &c->totals[i], err);
    return rc;
}

int pg_counting_end(pg_counting *c, const cluster_instance *server, verdict_error *err)
{
    if (wait_for_new_processes(c, server, err) != 0) {
        pg_counting_abandon(c);
        return -1;
    }
    return c->mode == PG_COUNTERS_VALGRIND ? read_valgrind(c, server->tool_dir, err)
                                           : read_perf(c, err);
}

double pg_counting_value(const pg_counting *c, const char *metric, long transactions,
                         size_t queries)
{
    char event[64];
    pg_counter_per per;
    if (!postgres_counter_metric(metric, event, sizeof event, &per))
        return NAN;
    double divisor = per == PG_PER_TX      ? (transactions > 0 ? (double)transactions : NAN)
                     : per == PG_PER_QUERY ? (queries > 0 ? (double)queries : NAN)
                                           : 1.0;
    for (size_t i = 0; i < c->n; i++)
        if (strcmp(c->events[i]->name, event) == 0)
            return (double)c->totals[i] / divisor;
    return NAN;
}

/* ---- pgbench's own counts, on request ---- */

bool postgres_client_metric(const char *metric, char *event, size_t len, pg_counter_per *per)
{
    size_t prefix = strlen(PG_CLIENT_PREFIX);
    return strncmp(metric, PG_CLIENT_PREFIX, prefix) == 0 &&
           postgres_counter_metric(metric + prefix, event, len, per) && *per != PG_PER_QUERY;
}

/* The pgbench.* metrics of e, each as the counter of its event; 0, or -1. */
static int client_metrics(pg_client_counting *c, const experiment *e, verdict_error *err)
{
    c->defs = calloc(e->n_metrics + 1, sizeof *c->defs);
    c->metric = calloc(e->n_metrics + 1, sizeof *c->metric);
    c->per = calloc(e->n_metrics + 1, sizeof *c->per);
    c->values = calloc(e->n_metrics + 1, sizeof *c->values);
    if (!c->defs || !c->metric || !c->per || !c->values)
        return error_no_memory(err);
    for (size_t m = 0; m < e->n_metrics; m++) {
        char event[64];
        pg_counter_per per;
        if (!postgres_client_metric(e->metrics[m].name, event, sizeof event, &per))
            continue;
        verdict_error why = {0};
        metric_def *def = &c->defs[c->n];
        if (metric_parse(event, def, &why) != 0)
            return error_set(err, ERROR_INTERNAL, "metric %s: %s", e->metrics[m].name,
                             why.message);
        c->metric[c->n] = m;
        c->per[c->n++] = per;
        assert(def->kind == METRIC_COUNTER);
    }
    return 0;
}

/* Probed here, before any template is made, as the server's: a machine that cannot count
 * stops at once. */
static int probe_client(const pg_client_counting *c, const experiment *e, verdict_error *err)
{
    for (size_t k = 0; k < c->n; k++) {
        const perf_counters_spec *spec = &c->defs[k].counter.parts[0];
        verdict_error why = {0};
        if (perf_counters_probe(spec, &why) != 0)
            return error_set(err, why.kind, "metric %s: %s (pgbench's own counts are perf's "
                             "only)", e->metrics[c->metric[k]].name, why.message);
    }
    return 0;
}

int pg_client_open(pg_client_counting *c, const experiment *e, verdict_error *err)
{
    memset(c, 0, sizeof *c);
    if (client_metrics(c, e, err) != 0 || probe_client(c, e, err) != 0)
        return -1;
    return c->n == 0 ? 0 : run_counters_open(c->defs, c->n, EXPERIMENT_COUNTERS_PERF,
                                             &c->counters, err);
}

void pg_client_close(pg_client_counting *c)
{
    run_counters_close(c->counters);
    for (size_t k = 0; c->defs && k < c->n; k++)
        metric_free(&c->defs[k]);
    free(c->defs);
    free(c->metric);
    free(c->per);
    free(c->values);
    memset(c, 0, sizeof *c);
}

bool pg_client_active(const pg_client_counting *c)
{
    return c->counters != NULL;
}

int pg_client_begin(pg_client_counting *c, char *const *argv, verdict_error *err)
{
    char *const *counted;
    if (run_counters_begin(c->counters, argv, &counted, err) != 0)
        return -1;
    assert(counted == argv); /* perf's: pgbench itself runs, not a wrapper */
    return 0;
}

int pg_client_end(pg_client_counting *c, char *note, size_t note_len, verdict_error *err)
{
    return run_counters_end(c->counters, c->values, note, note_len, err);
}

double pg_client_value(const pg_client_counting *c, size_t metric, long transactions)
{
    for (size_t k = 0; k < c->n; k++)
        if (c->metric[k] == metric)
            return c->per[k] == PG_PER_TX
                       ? (transactions > 0 ? c->values[k] / (double)transactions : NAN)
                       : c->values[k];
    return NAN;
}
