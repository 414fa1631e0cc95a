/* The PostgreSQL back end's reads: rows fetched whole (a lost connection redoes the query,
 * never a callback), then handed out in the SQLite back end's order. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"

#include "store/pg_store.h"

/* seq counts per machine when several write one experiment: seq, then the machine (bytewise,
 * as SQLite compares), then the id order the samples; metrics follow the same order. */
static const char sql_select_samples[] =
    "SELECT id, point, variant, block, seq, started, wall, user_seconds, sys_seconds,"
    " maxrss_kib, voluntary_switches, involuntary_switches, exit_code, timed_out, tainted,"
    " taint_reason, steal, other_busy, load1, layout, machine"
    " FROM sample WHERE experiment_id = $1::bigint ORDER BY seq, machine COLLATE \"C\", id";
static const char sql_select_metrics[] =
    "SELECT m.sample_id, m.name, m.value FROM sample_metric m JOIN sample s"
    " ON s.id = m.sample_id WHERE s.experiment_id = $1::bigint"
    " ORDER BY s.seq, s.machine COLLATE \"C\", s.id, m.position";
static const char sql_get_experiment[] =
    "SELECT id, name, text, text_hash, plan_hash, seed, tool_version, tool_build"
    " FROM experiment WHERE id = $1::bigint";
static const char sql_select_experiments[] =
    "SELECT id, name, text, text_hash, plan_hash, seed, tool_version, tool_build"
    " FROM experiment ORDER BY id";
/* the experiment run most recently; experiments never run follow, newest first */
static const char sql_latest_experiment[] =
    "SELECT e.id FROM experiment e ORDER BY"
    " (SELECT max(r.id) FROM run r WHERE r.experiment_id = e.id) DESC NULLS LAST,"
    " e.id DESC LIMIT 1";
static const char sql_select_facts[] =
    "SELECT key, value FROM run_fact WHERE run_id ="
    " (SELECT max(id) FROM run WHERE experiment_id = $1::bigint) ORDER BY position";
static const char sql_select_machine_facts[] =
    "SELECT machine, key, value FROM machine_fact ORDER BY machine COLLATE \"C\", position";
static const char sql_select_extensions[] =
    "SELECT blocks FROM extension WHERE experiment_id = $1::bigint ORDER BY blocks";
static const char sql_select_blocks[] =
    "SELECT point, block, state, machine, attempts FROM block"
    " WHERE experiment_id = $1::bigint ORDER BY position, id";

/* One or two queries' rows, fetched in one attempt of a call. */
typedef struct {
    const char *sql, *second_sql, *doing;
    const char *params[1];
    int n_params;
    PGresult *rows, *second;
} query_args;

static int query_body(pg_store *s, void *args, verdict_error *err)
{
    query_args *a = args;
    PQclear(a->rows);
    PQclear(a->second);
    a->rows = a->second = NULL;
    a->rows = pg_store_exec(s, a->sql, a->n_params, a->params, PGRES_TUPLES_OK, a->doing, err);
    if (a->rows != NULL && a->second_sql != NULL)
        a->second = pg_store_exec(s, a->second_sql, a->n_params, a->params, PGRES_TUPLES_OK,
                                  a->doing, err);
    return a->rows != NULL && (a->second_sql == NULL || a->second != NULL) ? 0 : -1;
}

/* Runs the query (two in one snapshot); 0 with a->rows, or -1 with a message. */
static int fetch(pg_store *s, query_args *a, verdict_error *err)
{
    const char *begin = a->second_sql != NULL ? "BEGIN ISOLATION LEVEL REPEATABLE READ" : NULL;
    int status = pg_store_call(s, begin, query_body, a, a->doing, err);
    if (status != 0) {
        PQclear(a->rows);
        PQclear(a->second);
        a->rows = a->second = NULL;
    }
    return status;
}

static void unfetch(query_args *a)
{
    PQclear(a->rows);
    PQclear(a->second);
}

static const char *field(const PGresult *res, int row, int column)
{
    return PQgetisnull(res, row, column) ? NULL : PQgetvalue(res, row, column);
}

/* ---- samples ---- */

typedef struct {
    const char **names;
    double *values;
    size_t capacity;
} metric_buffer;

/* Points the buffer at the metrics of sample_id, from row *next of metrics on. */
static int take_metrics(const PGresult *metrics, int *next, long long sample_id,
                        metric_buffer *buffer, size_t *n)
{
    *n = 0;
    for (; *next < PQntuples(metrics) && pg_store_get_int(metrics, *next, 0) == sample_id;
         (*next)++) {
        if (*n == buffer->capacity) {
            size_t capacity = buffer->capacity == 0 ? 8 : buffer->capacity * 2;
            const char **names = realloc(buffer->names, capacity * sizeof *names);
            if (names != NULL)
                buffer->names = names;
            double *values = realloc(buffer->values, capacity * sizeof *values);
            if (values != NULL)
                buffer->values = values;
            if (names == NULL || values == NULL)
                return -1;
            buffer->capacity = capacity;
        }
        buffer->names[*n] = PQgetvalue(metrics, *next, 1);
        buffer->values[*n] = pg_store_get_double(metrics, *next, 2);
        (*n)++;
    }
    return 0;
}

static void sample_from_row(const PGresult *res, int row, store_sample *x)
{
    memset(x, 0, sizeof *x);
    x->point = PQgetvalue(res, row, 1);
    x->variant = PQgetvalue(res, row, 2);
    x->block = (long)pg_store_get_int(res, row, 3);
    x->seq = (long)pg_store_get_int(res, row, 4);
    x->started = pg_store_get_double(res, row, 5);
    x->wall = pg_store_get_double(res, row, 6);
    x->user = pg_store_get_double(res, row, 7);
    x->sys = pg_store_get_double(res, row, 8);
    x->maxrss_kib = pg_store_get_double(res, row, 9);
    x->voluntary_switches = (long)pg_store_get_int(res, row, 10);
    x->involuntary_switches = (long)pg_store_get_int(res, row, 11);
    x->exit_code = (int)pg_store_get_int(res, row, 12);
    x->timed_out = pg_store_get_int(res, row, 13) != 0;
    x->tainted = pg_store_get_int(res, row, 14) != 0;
    x->taint_reason = field(res, row, 15);
    x->steal = pg_store_get_double(res, row, 16);
    x->other_busy = pg_store_get_double(res, row, 17);
    x->load1 = pg_store_get_double(res, row, 18);
    x->layout = (long)pg_store_get_int(res, row, 19);
    x->machine = PQgetvalue(res, row, 20);
}

static int walk_samples(pg_store *s, const query_args *a, store_sample_fn fn, void *context,
                        verdict_error *err)
{
    metric_buffer buffer = {0};
    int status = 0, next = 0;
    for (int row = 0; status == 0 && row < PQntuples(a->rows); row++) {
        store_sample x;
        size_t n = 0;
        if (take_metrics(a->second, &next, pg_store_get_int(a->rows, row, 0), &buffer, &n) != 0) {
            status = error_set(err, ERROR_NO_MEMORY, "%s: out of memory reading metrics", s->label);
            break;
        }
        sample_from_row(a->rows, row, &x);
        x.metric_names = buffer.names;
        x.metric_values = buffer.values;
        x.n_metrics = n;
        /* like nftw, the callback's non-zero value is returned; err is left to it */
        status = fn(context, &x);
    }
    free(buffer.names);
    free(buffer.values);
    return status;
}

int pg_store_for_each_sample(store *base, int64_t experiment_id, store_sample_fn fn,
                             void *context, verdict_error *err)
{
    pg_store *s = pg_store_of(base);
    pg_store_number id;
    query_args a = {.sql = sql_select_samples, .second_sql = sql_select_metrics,
                    .doing = "reading the samples", .n_params = 1,
                    .params = {pg_store_int(&id, experiment_id)}};
    if (fetch(s, &a, err) != 0)
        return -1;
    int status = walk_samples(s, &a, fn, context, err);
    unfetch(&a);
    return status;
}

/* ---- experiments ---- */

/* The row's experiment (columns id, name, text, hashes, seed, version, build); its strings
 * are the result's. False when a hash is damaged. */
static bool experiment_from_row(const PGresult *res, int row, store_experiment *e)
{
    memset(e, 0, sizeof *e);
    e->name = PQgetvalue(res, row, 1);
    e->text = PQgetvalue(res, row, 2);
    e->text_length = (size_t)PQgetlength(res, row, 2);
    e->seed = (uint64_t)strtoull(PQgetvalue(res, row, 5), NULL, 10);
    e->tool_version = PQgetvalue(res, row, 6);
    e->tool_build = PQgetvalue(res, row, 7);
    return store_parse_hash(PQgetvalue(res, row, 3), &e->text_hash) &&
           store_parse_hash(PQgetvalue(res, row, 4), &e->plan_hash);
}

static int keep_experiment(pg_store *s, store_experiment *e)
{
    if (!pg_store_keep(&s->got_name, e->name) || !pg_store_keep(&s->got_text, e->text) ||
        !pg_store_keep(&s->got_tool_version, e->tool_version) ||
        !pg_store_keep(&s->got_tool_build, e->tool_build))
        return -1;
    e->name = s->got_name;
    e->text = s->got_text;
    e->tool_version = s->got_tool_version;
    e->tool_build = s->got_tool_build;
    return 0;
}

int pg_store_get_experiment(store *base, int64_t experiment_id, store_experiment *out,
                            verdict_error *err)
{
    pg_store *s = pg_store_of(base);
    pg_store_number id;
    query_args a = {.sql = sql_get_experiment, .doing = "reading the experiment",
                    .n_params = 1, .params = {pg_store_int(&id, experiment_id)}};
    if (fetch(s, &a, err) != 0)
        return -1;
    int status = 0;
    if (PQntuples(a.rows) != 1)
        status = error_set(err, ERROR_STORE, "%s: no experiment %" PRId64, s->label, experiment_id);
    else if (!experiment_from_row(a.rows, 0, out))
        status = error_set(err, ERROR_STORE, "%s: experiment %" PRId64 " has a damaged hash",
                           s->label, experiment_id);
    else if (keep_experiment(s, out) != 0)
        status = error_set(err, ERROR_NO_MEMORY, "%s: out of memory", s->label);
    unfetch(&a);
    return status;
}

int pg_store_for_each_experiment(store *base, store_experiment_fn fn, void *context,
                                 verdict_error *err)
{
    pg_store *s = pg_store_of(base);
    query_args a = {.sql = sql_select_experiments, .doing = "reading the experiments"};
    if (fetch(s, &a, err) != 0)
        return -1;
    int status = 0;
    for (int row = 0; status == 0 && row < PQntuples(a.rows); row++) {
        store_experiment e;
        if (!experiment_from_row(a.rows, row, &e))
            status = error_set(err, ERROR_STORE, "%s: experiment %s has a damaged hash", s->label,
                               e.name);
        else
            status = fn(context, pg_store_get_int(a.rows, row, 0), &e);
    }
    unfetch(&a);
    return status;
}

int pg_store_latest_experiment(store *base, int64_t *experiment_id, verdict_error *err)
{
    pg_store *s = pg_store_of(base);
    query_args a = {.sql = sql_latest_experiment, .doing = "finding the latest experiment"};
    if (fetch(s, &a, err) != 0)
        return -1;
    int status = 0;
    if (PQntuples(a.rows) == 1)
        *experiment_id = pg_store_get_int(a.rows, 0, 0);
    else
        status = error_set(err, ERROR_STORE, "%s: the store holds no experiment yet", s->label);
    unfetch(&a);
    return status;
}

/* ---- facts, machines, blocks ---- */

int pg_store_for_each_fact(store *base, int64_t experiment_id, store_fact_fn fn, void *context,
                           verdict_error *err)
{
    pg_store *s = pg_store_of(base);
    pg_store_number id;
    query_args a = {.sql = sql_select_facts, .doing = "reading the run's facts", .n_params = 1,
                    .params = {pg_store_int(&id, experiment_id)}};
    if (fetch(s, &a, err) != 0)
        return -1;
    int status = 0;
    for (int row = 0; status == 0 && row < PQntuples(a.rows); row++)
        status = fn(context, PQgetvalue(a.rows, row, 0), PQgetvalue(a.rows, row, 1));
    unfetch(&a);
    return status;
}

int pg_store_for_each_machine_fact(store *base, store_machine_fact_fn fn, void *context,
                                   verdict_error *err)
{
    pg_store *s = pg_store_of(base);
    query_args a = {.sql = sql_select_machine_facts, .doing = "reading the machines"};
    if (fetch(s, &a, err) != 0)
        return -1;
    int status = 0;
    for (int row = 0; status == 0 && row < PQntuples(a.rows); row++)
        status = fn(context, PQgetvalue(a.rows, row, 0), PQgetvalue(a.rows, row, 1),
                    PQgetvalue(a.rows, row, 2));
    unfetch(&a);
    return status;
}

int pg_store_for_each_block(store *base, int64_t experiment_id, store_block_fn fn, void *context,
                            verdict_error *err)
{
    pg_store *s = pg_store_of(base);
    pg_store_number id;
    query_args a = {.sql = sql_select_blocks, .doing = "reading the blocks", .n_params = 1,
                    .params = {pg_store_int(&id, experiment_id)}};
    if (fetch(s, &a, err) != 0)
        return -1;
    int status = 0;
    for (int row = 0; status == 0 && row < PQntuples(a.rows); row++)
        status = fn(context, PQgetvalue(a.rows, row, 0), (long)pg_store_get_int(a.rows, row, 1),
                    PQgetvalue(a.rows, row, 2), PQgetvalue(a.rows, row, 3),
                    (long)pg_store_get_int(a.rows, row, 4));
    unfetch(&a);
    return status;
}

int pg_store_for_each_extension(store *base, int64_t experiment_id, store_extension_fn fn,
                                void *context, verdict_error *err)
{
    pg_store *s = pg_store_of(base);
    pg_store_number id;
    query_args a = {.sql = sql_select_extensions, .doing = "reading the extensions",
                    .n_params = 1, .params = {pg_store_int(&id, experiment_id)}};
    if (fetch(s, &a, err) != 0)
        return -1;
    int status = 0;
    for (int row = 0; status == 0 && row < PQntuples(a.rows); row++)
        status = fn(context, (long)pg_store_get_int(a.rows, row, 0));
    unfetch(&a);
    return status;
}
