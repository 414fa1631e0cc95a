/* PostgreSQL target: templates per variant, fresh copies started around each run with
 * the pin policy applied, pgbench's words with the connection added, and its metrics. */
#include "cli/pg_target.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pg/pgbench_output.h"

#define DEFAULT_CACHE_DIR "/var/tmp/verdict-pg"
#define LOG_LIMIT (256u << 20)

static const char *const pg_metrics[] = {"tps", "latency_avg", "p50", "p95", "p99"};

bool pg_target_is_metric(const char *name)
{
    for (size_t i = 0; i < sizeof pg_metrics / sizeof pg_metrics[0]; i++)
        if (strcmp(name, pg_metrics[i]) == 0)
            return true;
    return false;
}

/* Shared settings first, then the variant's: postgresql.conf takes the last one. */
static char **merged_settings(const experiment *e, const experiment_variant *v, size_t *n)
{
    size_t total = e->postgres.n_settings + v->n_pg_settings;
    char **lines = calloc(total + 1, sizeof *lines);
    *n = 0;
    for (size_t i = 0; lines && i < total; i++) {
        const experiment_env *s = i < e->postgres.n_settings
                                      ? &e->postgres.settings[i]
                                      : &v->pg_settings[i - e->postgres.n_settings];
        size_t length = strlen(s->name) + strlen(s->value) + 2;
        if ((lines[i] = malloc(length)) == NULL)
            break;
        snprintf(lines[i], length, "%s=%s", s->name, s->value);
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
static int choose_cpus(pg_target *t, char *err, size_t errlen)
{
    cpu_set_t allowed;
    int cpus[2] = {-1, -1}, found = 0;
    if (t->e->postgres.pin == PG_PIN_NONE)
        return 0;
    if (sched_getaffinity(0, sizeof allowed, &allowed) != 0)
        CPU_ZERO(&allowed);
    for (int c = 0; c < CPU_SETSIZE && found < 2; c++)
        if (CPU_ISSET(c, &allowed))
            cpus[found++] = c;
    if (found < (t->e->postgres.pin == PG_PIN_SPLIT ? 2 : 1)) {
        snprintf(err, errlen, "pin: split needs two CPUs; verdict may use %d", found);
        return -1;
    }
    CPU_ZERO(&t->client_cpus);
    CPU_ZERO(&t->server_cpus);
    CPU_SET(cpus[0], &t->client_cpus);
    CPU_SET(t->e->postgres.pin == PG_PIN_SPLIT ? cpus[1] : cpus[0], &t->server_cpus);
    t->pin_client = t->pin_server = true;
    cpu_list_text(&t->client_cpus, t->client_cpu_list, sizeof t->client_cpu_list);
    cpu_list_text(&t->server_cpus, t->server_cpu_list, sizeof t->server_cpu_list);
    return 0;
}

static int prepare_variant(pg_target *t, size_t v, const char *default_bindir, char *err,
                           size_t errlen)
{
    const experiment *e = t->e;
    const experiment_variant *ev = &e->variants[v];
    const char *bindir = ev->bindir ? ev->bindir : default_bindir;
    snprintf(t->pgbench[v], sizeof t->pgbench[v], "%s/pgbench", bindir);
    if (ev->conninfo)
        return 0;
    size_t n = 0;
    t->settings[v] = merged_settings(e, ev, &n);
    if (t->settings[v] == NULL)
        return -1;
    t->spec[v] = (cluster_template_spec){bindir, t->cache_dir, e->postgres.run_as,
                                         (const char *const *)t->settings[v], n,
                                         e->postgres.scale,
                                         t->pin_server ? &t->server_cpus : NULL};
    fprintf(stderr, "verdict run: preparing the template of %s (%s, scale %d)\n", ev->name, bindir,
            e->postgres.scale);
    char why[1024];
    if (cluster_template_prepare(&t->spec[v], t->template_dir[v], sizeof t->template_dir[v], why,
                                 sizeof why) != 0) {
        snprintf(err, errlen, "variant %s: %s", ev->name, why);
        return -1;
    }
    return 0;
}

int pg_target_prepare(pg_target *t, const experiment *e, char *err, size_t errlen)
{
    memset(t, 0, sizeof *t);
    t->e = e;
    snprintf(t->cache_dir, sizeof t->cache_dir, "%s",
             e->postgres.cache_dir ? e->postgres.cache_dir : DEFAULT_CACHE_DIR);
    if (e->n_variants > PG_TARGET_MAX_VARIANTS) {
        snprintf(err, errlen, "at most %d variants", PG_TARGET_MAX_VARIANTS);
        return -1;
    }
    for (size_t m = 0; m < e->n_metrics; m++)
        t->want_log |= strcmp(e->metrics[m].name, "p50") == 0 ||
                       strcmp(e->metrics[m].name, "p95") == 0 || strcmp(e->metrics[m].name, "p99") == 0;
    char default_bindir[1024] = "/usr/bin";
    cluster_find_bindir(default_bindir, sizeof default_bindir);
    if (choose_cpus(t, err, errlen) != 0)
        return -1;
    snprintf(t->log_dir, sizeof t->log_dir, "/tmp/verdict-pgbench-XXXXXX");
    if (t->want_log && mkdtemp(t->log_dir) == NULL) {
        snprintf(err, errlen, "cannot create a directory for pgbench logs: %s", strerror(errno));
        t->log_dir[0] = '\0';
        return -1;
    }
    if (!t->want_log)
        t->log_dir[0] = '\0';
    for (size_t v = 0; v < e->n_variants; v++)
        if (prepare_variant(t, v, default_bindir, err, errlen) != 0)
            return -1;
    return 0;
}

int pg_target_facts(const pg_target *t, machine_facts *facts)
{
    const experiment *e = t->e;
    static const char *const pins[] = {"none", "same", "split"};
    char scale[32];
    snprintf(scale, sizeof scale, "%d", e->postgres.scale);
    int rc = machine_facts_set(facts, "pg.pin", pins[e->postgres.pin]);
    rc |= machine_facts_set(facts, "pg.client_cpus", t->pin_client ? t->client_cpu_list : "any");
    rc |= machine_facts_set(facts, "pg.server_cpus", t->pin_server ? t->server_cpu_list : "any");
    rc |= machine_facts_set(facts, "pg.fresh", e->postgres.fresh == PG_FRESH_RUN ? "run" : "point");
    rc |= machine_facts_set(facts, "pg.scale", scale);
    for (size_t v = 0; v < e->n_variants; v++) {
        char key[160], value[4096] = "";
        size_t used = 0;
        for (size_t i = 0; t->settings[v] && t->settings[v][i] && used + 2 < sizeof value; i++)
            used += (size_t)snprintf(value + used, sizeof value - used, "%s%s", used ? " " : "",
                                     t->settings[v][i]);
        snprintf(key, sizeof key, "pg.%s.server", e->variants[v].name);
        rc |= machine_facts_set(facts, key, e->variants[v].conninfo ? e->variants[v].conninfo
                                                                    : t->spec[v].bindir);
        snprintf(key, sizeof key, "pg.%s.settings", e->variants[v].name);
        rc |= machine_facts_set(facts, key, value);
    }
    return rc ? -1 : 0;
}

/* The postmaster is pinned as it starts (spec.server_cpus); its backends inherit that. */
static int start_server(pg_target *t, size_t v, char *err, size_t errlen)
{
    int rc = cluster_start(t->template_dir[v], &t->spec[v], &t->instance[v], err, errlen);
    if (rc == 0)
        t->running[v] = t->unwarmed[v] = true;
    return rc;
}

static void stop_server(pg_target *t, size_t v)
{
    char why[512];
    if (!t->running[v])
        return;
    if (cluster_stop(&t->instance[v], why, sizeof why) != 0)
        fprintf(stderr, "verdict run: stopping the server of %s: %s\n", t->e->variants[v].name, why);
    t->running[v] = false;
}

int pg_target_begin_point(pg_target *t, size_t point, char *err, size_t errlen)
{
    const experiment *e = t->e;
    command_words_free(&t->workload);
    t->workload.words = calloc(e->n_workload + 1, sizeof *t->workload.words);
    if (t->workload.words == NULL)
        return -1;
    for (size_t i = 0; i < e->n_workload; i++, t->workload.n++)
        if ((t->workload.words[i] = experiment_substitute(e, point, e->workload[i], err, errlen)) == NULL)
            return -1;
    for (size_t v = 0; e->postgres.fresh == PG_FRESH_POINT && v < e->n_variants; v++)
        if (!e->variants[v].conninfo && start_server(t, v, err, errlen) != 0)
            return -1;
    return 0;
}

void pg_target_end_point(pg_target *t)
{
    for (size_t v = 0; v < t->e->n_variants; v++)
        stop_server(t, v);
}

static void clear_logs(pg_target *t)
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
static int build_argv(const pg_target *t, size_t v, const char *conninfo, bool with_log,
                      command_words *w)
{
    command_words_free(w);
    char prefix[300];
    snprintf(prefix, sizeof prefix, "--log-prefix=%s/run", t->log_dir);
    size_t n = t->workload.n + 5;
    w->words = calloc(n, sizeof *w->words);
    if (w->words == NULL)
        return -1;
    const char *logs[] = {"--log", prefix};
    w->words[w->n++] = strdup(t->pgbench[v]);
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

/* The measured workload, run warm_runs times on a server just started, unmeasured: with
 * `fresh: run` every measured run would otherwise start from empty shared buffers (and,
 * on some VMs, a buffer pool whose every page faults on first touch). No --log, so the
 * measured run's latency log is its own. */
static int warm_server(const pg_target *t, size_t v, const run_request *request,
                       volatile sig_atomic_t *stop, const char *conninfo, char *err, size_t errlen)
{
    command_words words = {0};
    if (build_argv(t, v, conninfo, false, &words) != 0) {
        command_words_free(&words);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    run_request warm = *request;
    warm.argv = words.words;
    warm.capture_stdout = false;
    bool failed = false;
    for (size_t i = 0; i < t->e->postgres.warm_runs && !failed; i++) {
        run_result result;
        char why[512];
        if (runner_execute(&warm, stop, &result, why, sizeof why) != 0) {
            snprintf(err, errlen, "warm-up run: %s", why);
            failed = true;
            break;
        }
        failed = result.exit_code != 0 || result.timed_out || result.interrupted;
        if (failed)
            snprintf(err, errlen, "warm-up run %zu of %zu %s: %s", i + 1,
                     t->e->postgres.warm_runs,
                     result.interrupted ? "was interrupted"
                     : result.timed_out ? "timed out"
                                        : "failed",
                     result.stderr_tail[0] ? result.stderr_tail : "no message");
        run_result_free(&result);
    }
    command_words_free(&words);
    return failed ? -1 : 0;
}

int pg_target_before_run(void *context, size_t variant, const run_request *request,
                         volatile sig_atomic_t *stop, char *const **argv, char *err,
                         size_t errlen)
{
    pg_target *t = context;
    const experiment_variant *ev = &t->e->variants[variant];
    char conninfo[1024];
    clear_logs(t);
    if (ev->conninfo) {
        snprintf(conninfo, sizeof conninfo, "%s", ev->conninfo);
    } else {
        if (!t->running[variant] && start_server(t, variant, err, errlen) != 0)
            return -1;
        cluster_conninfo(&t->instance[variant], conninfo, sizeof conninfo);
        if (t->unwarmed[variant] && t->e->postgres.warm_runs > 0 &&
            warm_server(t, variant, request, stop, conninfo, err, errlen) != 0)
            return -1;
        t->unwarmed[variant] = false;
        /* every run starts from the same state: nothing dirty to write back mid-run */
        if (cluster_checkpoint(&t->instance[variant], err, errlen) != 0)
            return -1;
    }
    if (build_argv(t, variant, conninfo, t->want_log, &t->run_argv[variant]) != 0) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    *argv = t->run_argv[variant].words;
    return 0;
}

void pg_target_after_run(void *context, size_t variant)
{
    pg_target *t = context;
    if (t->e->postgres.fresh == PG_FRESH_RUN)
        stop_server(t, variant);
}

/* All of this run's --log files, concatenated. */
static char *read_logs(const pg_target *t, size_t *length)
{
    DIR *dir = opendir(t->log_dir);
    char *text = NULL;
    *length = 0;
    struct dirent *entry;
    while (dir && (entry = readdir(dir)) != NULL) {
        char path[512];
        if (entry->d_name[0] == '.')
            continue;
        snprintf(path, sizeof path, "%s/%s", t->log_dir, entry->d_name);
        FILE *f = fopen(path, "r");
        if (f == NULL)
            continue;
        char chunk[65536];
        size_t got;
        while ((got = fread(chunk, 1, sizeof chunk, f)) > 0 && *length + got < LOG_LIMIT) {
            char *grown = realloc(text, *length + got + 1);
            if (grown == NULL)
                break;
            text = grown;
            memcpy(text + *length, chunk, got);
            *length += got;
            text[*length] = '\0';
        }
        fclose(f);
    }
    if (dir)
        closedir(dir);
    return text;
}

static int percentile_metric(const pg_target *t, const char *name, double *value, char *err,
                             size_t errlen)
{
    size_t length;
    char *log = read_logs(t, &length);
    double p50, p95, p99;
    int rc = log ? pgbench_latency_percentiles(log, length, &p50, &p95, &p99, err, errlen) : -1;
    if (log == NULL)
        snprintf(err, errlen, "pgbench wrote no transaction log in %s", t->log_dir);
    free(log);
    if (rc != 0)
        return -1;
    *value = strcmp(name, "p50") == 0 ? p50 : strcmp(name, "p95") == 0 ? p95 : p99;
    return 0;
}

int pg_target_metric(void *context, const char *name, const run_result *run, double *value,
                     char *err, size_t errlen)
{
    const pg_target *t = context;
    if (strcmp(name, "p50") == 0 || strcmp(name, "p95") == 0 || strcmp(name, "p99") == 0)
        return percentile_metric(t, name, value, err, errlen);
    pgbench_result r;
    char why[512];
    if (pgbench_parse(run->stdout_text ? run->stdout_text : "", run->stdout_length, run->exit_code,
                      &r, why, sizeof why) != 0) {
        snprintf(err, errlen, "pgbench output: %s", why);
        return -1;
    }
    *value = strcmp(name, "tps") == 0 ? r.tps : r.latency_average_ms;
    if (!isfinite(*value)) {
        snprintf(err, errlen, "pgbench printed no %s", name);
        return -1;
    }
    return 0;
}

const cpu_set_t *pg_target_client_pin(const pg_target *t)
{
    return t->pin_client ? &t->client_cpus : NULL;
}

void pg_target_free(pg_target *t)
{
    if (t->e == NULL)
        return;
    pg_target_end_point(t);
    for (size_t v = 0; v < PG_TARGET_MAX_VARIANTS; v++) {
        for (size_t i = 0; t->settings[v] && t->settings[v][i]; i++)
            free(t->settings[v][i]);
        free(t->settings[v]);
        command_words_free(&t->run_argv[v]);
    }
    command_words_free(&t->workload);
    clear_logs(t);
    if (t->log_dir[0])
        rmdir(t->log_dir);
}
