/* A PostgreSQL workload that brings its own data and queries: 'init' SQL loaded once into
 * each template, and 'queries' files run in order by one pgbench -r script, each timed. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/array.h"
#include "common/error.h"
#include "core/experiment_loader.h"
#include "core/plan_hash.h"
#include "core/target.h"
#include "pg/query_timer.h"
#include "targets/postgres_counters.h"
#include "targets/postgres_options.h"

#define INIT_SQL_LIMIT (64u << 20)
#define QUERY_LIMIT (1u << 20)
#define MAX_QUERIES POSTGRES_MAX_QUERIES

static bool is_identifier(const char *name, size_t n)
{
    if (n == 0 || !(isalpha((unsigned char)name[0]) || name[0] == '_'))
        return false;
    for (size_t i = 1; i < n; i++)
        if (!(isalnum((unsigned char)name[i]) || name[i] == '_'))
            return false;
    return true;
}

/* ---- init: the workload's own data ---- */

int postgres_read_init(experiment_loader *l, const yaml_field *f, void *target)
{
    postgres_options *pg = target;
    char *path = NULL;
    verdict_error why = {0};
    struct stat st;
    if (loader_existing_path(l, f, "init SQL file", &path) != 0)
        return -1;
    strbuf text = STRBUF_INIT;
    int rc = 0;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
        rc = yaml_fail_field(loader_reader(l), f, "init SQL '%s' is not a file", path);
    else if (strbuf_append_file(&text, path, INIT_SQL_LIMIT, &why) != 0)
        rc = yaml_fail_field(loader_reader(l), f, "init SQL %s", why.message);
    else if (strspn(strbuf_text(&text), " \t\r\n") == text.length)
        rc = yaml_fail_field(loader_reader(l), f, "init SQL '%s' is empty", path);
    strbuf_free(&text);
    if (rc != 0) {
        free(path);
        return rc;
    }
    free(pg->init_sql);
    pg->init_sql = path;
    return 0;
}

/* psql variables: names psql accepts after -v, values on one line (they reach psql as one
 * argument, never through a shell). */
int postgres_read_init_variables(experiment_loader *l, const yaml_field *f, void *target)
{
    postgres_options *pg = target;
    if (loader_need_mapping(l, f, "psql variable: value") != 0)
        return -1;
    void *iter = NULL;
    struct fy_node_pair *pair;
    while ((pair = fy_node_mapping_iterate(f->value, &iter)) != NULL) {
        yaml_field v;
        size_t n;
        if (loader_read_key(l, pair, &v) != 0)
            return -1;
        const char *value = yaml_scalar(v.value, &n);
        if (!is_identifier(v.key, strlen(v.key)))
            return yaml_fail(loader_reader(l), v.key_node, "init variable '%s': a name of "
                             "letters, digits and _", v.key);
        if (value == NULL || memchr(value, '\n', n) || memchr(value, '\0', n))
            return yaml_fail_field(loader_reader(l), &v, "init variable %s needs a value on "
                                   "one line", v.key);
        char *copy = strndup(value, n);
        int rc = copy ? loader_set_pair(&pg->init_variables, &pg->n_init_variables, v.key, copy)
                      : -1;
        free(copy);
        if (rc != 0)
            return yaml_fail(loader_reader(l), v.key_node, "out of memory");
    }
    return 0;
}

/* ---- queries: one file each, timed as a whole ---- */

/* The file's name without its directory and ".sql": the query's metric. */
static int query_name(experiment_loader *l, struct fy_node *item, const char *path,
                      char **out)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    size_t n = strlen(base);
    if (n > 4 && strcmp(base + n - 4, ".sql") == 0)
        n -= 4;
    if (!is_identifier(base, n) || n > 48)
        return yaml_fail(loader_reader(l), item, "query file '%s': its name (without .sql) "
                         "is the query's metric, so it must be letters, digits and _ (at most "
                         "48), starting with a letter", path);
    *out = strndup(base, n);
    return *out ? 0 : yaml_fail(loader_reader(l), item, "out of memory");
}

/* Whether text holds anything besides white space, semicolons and comments (line and block
 * comments). */
static bool holds_sql(const char *text)
{
    const char *p = text;
    while (*p) {
        if (isspace((unsigned char)*p) || *p == ';')
            p++;
        else if (p[0] == '-' && p[1] == '-')
            p += strcspn(p, "\n");
        else if (p[0] == '/' && p[1] == '*') {
            const char *end = strstr(p + 2, "*/");
            p = end ? end + 2 : p + strlen(p);
        } else
            return true;
    }
    return false;
}

/* The file's SQL, trimmed, ending in one ';'. A file is timed as a whole: it may hold
 * several statements (a SET before the query, say), sent together. */
static int query_text(experiment_loader *l, struct fy_node *item, const char *path,
                      char **out)
{
    strbuf text = STRBUF_INIT;
    verdict_error why = {0};
    if (strbuf_append_file(&text, path, QUERY_LIMIT, &why) != 0) {
        strbuf_free(&text);
        return yaml_fail(loader_reader(l), item, "query file %s", why.message);
    }
    char *s = strbuf_detach(&text);
    if (s == NULL)
        return yaml_fail(loader_reader(l), item, "query file '%s' is empty", path);
    size_t n = strlen(s);
    while (n > 0 && (isspace((unsigned char)s[n - 1]) || s[n - 1] == ';'))
        s[--n] = '\0';
    size_t start = strspn(s, " \t\r\n");
    if (!holds_sql(s)) {
        free(s);
        return yaml_fail(loader_reader(l), item, "query file '%s' holds no statement", path);
    }
    strbuf statement = STRBUF_INIT;
    strbuf_appendf(&statement, "%s;\n", s + start);
    free(s);
    if ((*out = strbuf_detach(&statement)) == NULL)
        return yaml_fail(loader_reader(l), item, "out of memory");
    return 0;
}

static int add_query(experiment_loader *l, struct fy_node *item, postgres_options *pg,
                     size_t *capacity)
{
    yaml_field f = {.key = "queries", .key_node = NULL, .value = item};
    postgres_query q = {NULL, NULL, NULL};
    struct stat st;
    if (pg->n_queries >= MAX_QUERIES)
        return yaml_fail(loader_reader(l), item, "more than %d queries", MAX_QUERIES);
    if (array_reserve((void **)&pg->queries, capacity, pg->n_queries + 1, sizeof q) != 0)
        return yaml_fail(loader_reader(l), item, "out of memory");
    if (loader_existing_path(l, &f, "query file", &q.path) != 0)
        return -1;
    int rc = stat(q.path, &st) == 0 && S_ISREG(st.st_mode)
                 ? 0 : yaml_fail(loader_reader(l), item, "query '%s' is not a file", q.path);
    if (rc == 0)
        rc = query_name(l, item, q.path, &q.name);
    for (size_t i = 0; rc == 0 && i < pg->n_queries; i++)
        if (strcmp(pg->queries[i].name, q.name) == 0)
            rc = yaml_fail(loader_reader(l), item, "two queries are called %s (%s and %s)",
                           q.name, pg->queries[i].path, q.path);
    if (rc == 0 && (strcmp(q.name, POSTGRES_GEOMEAN_METRIC) == 0 ||
                    target_find_metric(loader_experiment(l)->target, q.name) != NULL))
        rc = yaml_fail(loader_reader(l), item, "query '%s' has the name of a builtin metric: "
                       "rename the file", q.path);
    if (rc == 0)
        rc = query_text(l, item, q.path, &q.text);
    if (rc != 0) {
        free(q.path), free(q.name), free(q.text);
        return rc;
    }
    pg->queries[pg->n_queries++] = q;
    return 0;
}

int postgres_read_queries(experiment_loader *l, const yaml_field *f, void *target)
{
    postgres_options *pg = target;
    size_t capacity = 0;
    if (!loader_is_sequence(f))
        return yaml_fail_field(loader_reader(l), f, "'queries' must be a list of SQL files, "
                               "each one timed as a whole");
    void *iter = NULL;
    struct fy_node *item;
    while ((item = fy_node_sequence_iterate(f->value, &iter)) != NULL)
        if (add_query(l, item, pg, &capacity) != 0)
            return -1;
    return pg->n_queries ? 0 : yaml_fail_field(loader_reader(l), f, "'queries' is empty");
}

/* ---- the file as a whole ---- */

static int add_query_metric(experiment *e, const char *name)
{
    experiment_metric *grown = realloc(e->metrics, (e->n_metrics + 1) * sizeof *grown);
    if (grown == NULL)
        return -1;
    e->metrics = grown;
    e->metrics[e->n_metrics] = (experiment_metric){strdup(name), NULL, false};
    return e->metrics[e->n_metrics++].name ? 0 : -1;
}

/* verdict sends the queries itself, so pgbench's numbers do not exist; wall (the whole
 * run) does, and the server's counters (instructions/query). */
static int check_query_metrics(experiment_loader *l)
{
    const experiment *e = loader_experiment(l);
    for (size_t m = 0; m < e->n_metrics; m++) {
        char event[64];
        pg_counter_per per;
        if (strcmp(e->metrics[m].name, "wall") != 0 &&
            !postgres_counter_metric(e->metrics[m].name, event, sizeof event, &per))
            return yaml_fail(loader_reader(l), loader_target_node(l), "metric '%s': with "
                             "workload 'queries' the metrics are each query's latency and "
                             "'%s' (leave out 'metrics'), or 'wall', or the server's counters "
                             "('instructions/query', ...)", e->metrics[m].name,
                             POSTGRES_GEOMEAN_METRIC);
    }
    return 0;
}

/* With queries and no 'metrics': each query's latency, then their geometric mean. */
int postgres_finish_analytic(experiment_loader *l)
{
    experiment *e = loader_experiment(l);
    postgres_options *pg = postgres_options_of(e);
    if (pg->init_sql && !pg->scale_given)
        pg->scale = 0; /* the init SQL is the data: no pgbench tables unless asked for */
    if (pg->n_queries == 0)
        return 0;
    if (pg->workload != NULL)
        return yaml_fail(loader_reader(l), loader_target_node(l), "workload: give 'pgbench' "
                         "or 'queries', not both (verdict sends the queries itself, one at a "
                         "time, and times each)");
    if (e->n_metrics > 0)
        return check_query_metrics(l);
    for (size_t i = 0; i <= pg->n_queries; i++)
        if (add_query_metric(e, i < pg->n_queries ? pg->queries[i].name
                                                  : POSTGRES_GEOMEAN_METRIC) != 0)
            return yaml_fail(loader_reader(l), NULL, "out of memory");
    return 0;
}

/* The data and the statements are the experiment: a changed query is another plan. */
void postgres_hash_analytic(uint64_t *h, const postgres_options *pg)
{
    if (pg->init_sql == NULL && pg->n_queries == 0)
        return; /* absent from older plans: they stay resumable */
    plan_hash_field(h, 'I', pg->init_sql);
    plan_hash_pairs(h, 'V', pg->init_variables, pg->n_init_variables);
    plan_hash_number(h, 'Q', pg->n_queries);
    for (size_t i = 0; i < pg->n_queries; i++) {
        plan_hash_field(h, 'q', pg->queries[i].name);
        plan_hash_field(h, 'x', pg->queries[i].text);
    }
}

void postgres_free_analytic(postgres_options *pg)
{
    free(pg->init_sql);
    loader_free_pairs(pg->init_variables, pg->n_init_variables);
    for (size_t i = 0; i < pg->n_queries; i++) {
        free(pg->queries[i].name);
        free(pg->queries[i].path);
        free(pg->queries[i].text);
    }
    free(pg->queries);
}

/* ---- at run time ---- */

int postgres_run_queries(const postgres_options *pg, const char *conninfo, double timeout_s,
                         volatile sig_atomic_t *stop, double *latencies_ms,
                         target_measurement *out)
{
    const char *texts[MAX_QUERIES];
    verdict_error why = {0};
    size_t failed;
    for (size_t i = 0; i < pg->n_queries; i++)
        texts[i] = pg->queries[i].text;
    query_timer_status status = query_timer_run(conninfo, texts, pg->n_queries, timeout_s,
                                                stop, latencies_ms, &failed, &why);
    out->timed_out = status == QUERY_TIMER_TIMED_OUT;
    if (status == QUERY_TIMER_DONE)
        return TARGET_MEASURED;
    if (status == QUERY_TIMER_INTERRUPTED)
        return TARGET_RUN_INTERRUPTED;
    if (status == QUERY_TIMER_TIMED_OUT)
        snprintf(out->failure, sizeof out->failure, "query %s (%s) was cancelled: the run "
                 "passed its timeout of %.3g s", pg->queries[failed].name,
                 pg->queries[failed].path, timeout_s);
    else if (failed < pg->n_queries)
        snprintf(out->failure, sizeof out->failure, "query %s (%s) failed: %s",
                 pg->queries[failed].name, pg->queries[failed].path, why.message);
    else
        snprintf(out->failure, sizeof out->failure, "cannot connect to run the queries: %s",
                 why.message);
    return TARGET_RUN_FAILED;
}

double postgres_query_value(const postgres_options *pg, const char *name,
                            const double *latencies_ms)
{
    if (strcmp(name, POSTGRES_GEOMEAN_METRIC) == 0) {
        double log_sum = 0;
        for (size_t i = 0; i < pg->n_queries; i++)
            log_sum += log(latencies_ms[i]);
        return exp(log_sum / (double)pg->n_queries);
    }
    for (size_t i = 0; i < pg->n_queries; i++)
        if (strcmp(pg->queries[i].name, name) == 0)
            return latencies_ms[i];
    return NAN;
}
